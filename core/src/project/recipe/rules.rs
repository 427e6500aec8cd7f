//! `rules:` in `kapi.yaml`: the paths a rule does not apply to, for a rule by its id or for
//! every rule of an analyzer by its name, each compiled as the collections' globs are.
//!
//! ```yaml
//! rules:
//!   voice.sentence-too-long:
//!     exclude: ["docs/reference/**", CHANGELOG.md]
//!   terms:                       # an analyzer: every rule of it
//!     exclude: ["docs/legal/**"]
//! ```
//!
//! Choices: a key names a rule id or an analyzer from the rule table (`kapi help rules`), so a
//! rule added later is accepted without a change here; anything else is a load error with the
//! closest name. The shape follows `defaults.exclude` (one glob or a list, relative to the
//! project root, `**` to cross folders), and a rule's entry is a mapping so it can take more
//! settings later; `rules.<rule>:` left empty excludes nothing. The recipe never changes what a
//! finding is: the check asks [`Recipe::excludes`] and reports what an entry set aside as
//! suppressed, naming `kapi.yaml:LINE`. Two more settings serve a rule that is off by
//! default (`translation.unchanged`): `enable: true` turns it on, and `allow:` lists the
//! strings it lets pass ([`Recipe::enabled`]); other rules ignore them.

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_yaml::{Mapping, Value};

use super::keys::{site_in_rule, site_under};
use super::{Recipe, RecipeError};
use crate::project::layout::RECIPE_FILE;
use crate::yaml_text::Outline;

/// One `rules.<rule>` entry: the paths its rule, or every rule of its analyzer, does not
/// apply to.
#[derive(Debug, Clone)]
pub struct RuleExclusion {
    /// A rule id (`voice.sentence-too-long`) or an analyzer (`terms`), as written.
    pub rule: String,
    /// The globs as written, relative to the project root.
    pub globs: Vec<String>,
    /// The 1-based line of `rules.<rule>` in `kapi.yaml`, when it is written in block style
    /// (else the nearest enclosing key's, else `None`).
    pub line: Option<usize>,
    /// `enable: true`: turns on a rule that is off by default (`translation.unchanged`).
    pub enable: bool,
    /// `allow:` the strings the rule lets pass (`translation.unchanged`: sources a translation
    /// may keep as they are, `[URL, OPML, Port]`).
    pub allow: Vec<String>,
    set: GlobSet,
}

impl PartialEq for RuleExclusion {
    fn eq(&self, other: &Self) -> bool {
        (&self.rule, &self.globs, self.line) == (&other.rule, &other.globs, other.line)
    }
}

impl RuleExclusion {
    /// Whether the entry names `rule_id` or its analyzer (`terms` for `terms.forbidden`).
    pub fn covers(&self, rule_id: &str) -> bool {
        self.rule == rule_id
            || rule_id
                .split_once('.')
                .is_some_and(|(analyzer, _)| analyzer == self.rule)
    }

    /// Whether a glob matches `rel`, a project-relative `/`-separated path.
    pub fn matches(&self, rel: &str) -> bool {
        self.set.is_match(rel.trim_start_matches("./"))
    }

    /// Where the entry is, as a report names it: `kapi.yaml:12` (`kapi.yaml` when the line
    /// is not known).
    pub fn origin(&self) -> String {
        match self.line {
            Some(line) => format!("{RECIPE_FILE}:{line}"),
            None => RECIPE_FILE.to_owned(),
        }
    }
}

impl Recipe {
    /// The `rules:` entries, in recipe order.
    pub fn rule_exclusions(&self) -> &[RuleExclusion] {
        &self.rules
    }

    /// Whether an entry naming `rule_id` itself turns it on (`enable: true`): what an
    /// off-by-default rule (`translation.unchanged`) needs; `Some` holds the entries' `allow:`
    /// strings, together.
    pub fn enabled(&self, rule_id: &str) -> Option<Vec<String>> {
        let entries: Vec<&RuleExclusion> =
            self.rules.iter().filter(|e| e.rule == rule_id).collect();
        entries.iter().any(|e| e.enable).then(|| {
            entries
                .iter()
                .flat_map(|e| e.allow.iter().cloned())
                .collect()
        })
    }

    /// The `allow:` strings of the entries naming `rule_id` itself, whether or not they turn it
    /// on (`translate` lets a provider's answer equal to such a source land).
    pub fn allowed(&self, rule_id: &str) -> Vec<String> {
        self.rules
            .iter()
            .filter(|e| e.rule == rule_id)
            .flat_map(|e| e.allow.iter().cloned())
            .collect()
    }

    /// The entry that sets `rule_id` aside at `rel` (project-relative): one naming the rule
    /// itself first, else one naming its analyzer; `None` when the rule applies there.
    pub fn excludes(&self, rule_id: &str, rel: &str) -> Option<&RuleExclusion> {
        let hit = |e: &&RuleExclusion| e.matches(rel);
        self.rules
            .iter()
            .filter(|e| e.rule == rule_id)
            .find(hit)
            .or_else(|| {
                self.rules
                    .iter()
                    .filter(|e| e.rule != rule_id && e.covers(rule_id))
                    .find(hit)
            })
    }
}

/// Every rule id and analyzer name a `rules:` key may be, from the rule table.
fn names() -> Vec<String> {
    let rules = crate::check::analyzers::rule::all();
    let mut names: Vec<String> = crate::check::ANALYZERS
        .iter()
        .map(|a| (*a).to_owned())
        .chain(rules.iter().map(|r| r.analyzer().to_owned()))
        .chain(rules.iter().map(|r| r.id.to_owned()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// Reads `rules:` (a mapping of rule ids and analyzers), each glob checked and compiled.
pub(super) fn parse_rules(
    file: &Path,
    outline: &Outline,
    value: &Value,
) -> Result<Vec<RuleExclusion>, RecipeError> {
    let wrong = |at: super::Site, expected| RecipeError::WrongType {
        at: Box::new(at),
        expected,
    };
    let m: &Mapping = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Mapping(m) => m,
        _ => {
            return Err(wrong(
                site_under(file, outline, "", "rules"),
                "a mapping of rule ids and analyzers",
            ));
        }
    };
    let valid = names();
    let mut out = Vec::with_capacity(m.len());
    for (k, entry) in m {
        let rule = match k {
            Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        let at = site_in_rule(file, outline, &rule, &[]);
        if !valid.contains(&rule) {
            return Err(RecipeError::UnknownRule {
                at: Box::new(at),
                found: rule,
                valid,
            });
        }
        let (globs, enable, allow) = match entry {
            Value::Null => (Vec::new(), false, Vec::new()),
            Value::Mapping(em) => {
                let enable = match em.get("enable") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => {
                        let mut at = site_in_rule(file, outline, &rule, &["enable"]);
                        at.key = format!("rules.{rule}.enable");
                        return Err(wrong(at, "true or false"));
                    }
                };
                let allow = strings(file, outline, &rule, em.get("allow"))?;
                (
                    globs(file, outline, &rule, em.get("exclude"))?,
                    enable,
                    allow,
                )
            }
            _ => return Err(wrong(at, "a mapping such as `{exclude: [GLOB, …]}`")),
        };
        let mut set = GlobSetBuilder::new();
        for (i, pattern) in globs.iter().enumerate() {
            let joined = crate::project::collections::join(None, pattern);
            match GlobBuilder::new(&joined).literal_separator(true).build() {
                Ok(glob) => {
                    set.add(glob);
                }
                Err(e) => {
                    let mut at = site_in_rule(file, outline, &rule, &["exclude"]);
                    at.key = format!("rules.{rule}.exclude[{i}]");
                    return Err(RecipeError::BadGlob {
                        at: Box::new(at),
                        glob: pattern.clone(),
                        message: e.kind().to_string(),
                    });
                }
            }
        }
        let set = set.build().map_err(|e| RecipeError::BadGlob {
            at: Box::new(site_in_rule(file, outline, &rule, &["exclude"])),
            glob: String::new(),
            message: e.to_string(),
        })?;
        out.push(RuleExclusion {
            line: at.line,
            rule,
            globs,
            enable,
            allow,
            set,
        });
    }
    Ok(out)
}

/// `allow`: one string or a list of them.
fn strings(
    file: &Path,
    outline: &Outline,
    rule: &str,
    value: Option<&Value>,
) -> Result<Vec<String>, RecipeError> {
    let wrong = || {
        let mut at = site_in_rule(file, outline, rule, &["allow"]);
        at.key = format!("rules.{rule}.allow");
        RecipeError::WrongType {
            at: Box::new(at),
            expected: "a string or a list of strings",
        }
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Sequence(seq)) => seq
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                Value::Bool(b) => Ok(b.to_string()),
                _ => Err(wrong()),
            })
            .collect(),
        Some(_) => Err(wrong()),
    }
}

/// `exclude`: one glob or a list of them.
fn globs(
    file: &Path,
    outline: &Outline,
    rule: &str,
    value: Option<&Value>,
) -> Result<Vec<String>, RecipeError> {
    let wrong = || RecipeError::WrongType {
        at: Box::new(site_in_rule(file, outline, rule, &["exclude"])),
        expected: "a glob or a list of globs",
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Sequence(seq)) => seq
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect(),
        Some(_) => Err(wrong()),
    }
}
