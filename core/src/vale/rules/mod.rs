//! Vale rule files: the YAML of one `Style/Rule.yml` parsed into a typed [`Rule`], and the
//! engine that runs a compiled rule over a piece of scoped text ([`CompiledRule::run`]).
//!
//! The semantics are Vale's (v3, `internal/check/*.go`), read from its source and rewritten:
//!
//! - Parsing ([`Rule::parse`]) checks what Vale checks when it loads a rule: `extends` one of
//!   the twelve kinds, a `message`, a `level` of `suggestion`, `warning` or `error` (default
//!   `warning`), valid scopes (default `text`), and no key the kind does not know. Every kind
//!   parses, `sequence`, `script` and `spelling` too.
//! - Compiling ([`CompiledRule::compile`]) builds each kind's regular expressions exactly as
//!   Vale writes them (`\b(?:tok1|tok2)\b`, `(?i)` for `ignorecase`, `raw` before the tokens
//!   or after them with `append`, …). Vale's engine is `regexp2`, which has lookaround and
//!   backreferences; the `regex` crate has neither, so a rule that uses them is a typed error
//!   naming the rule file and the pattern ([`RuleError::Regex`]), never a panic. Every other
//!   regex is linear in its input.
//! - Running ([`CompiledRule::run`]) returns the alerts of one scoped text, or, for the kinds
//!   this engine does not assess (`sequence`, `script`, `spelling`), an
//!   [`Outcome::Unassessed`] with the reason: never silently nothing. State that Vale keeps
//!   per file (the definitions `conditional` has seen, the spellings `consistency` has seen,
//!   `limit` and the one-alert-per-place rule) lives in a [`FileState`] the caller keeps for
//!   one file.
//! - The `summary` kinds, `metric` and `readability`, run once per file instead
//!   ([`CompiledRule::is_document_rule`], [`CompiledRule::run_document`]) on the [`Metrics`]
//!   of the file's [`DocumentCounts`], which the caller fills piece by piece as Vale fills its
//!   summary and counters. Their alert is at the file's start.
//!
//! Where this engine differs from Vale, the kind's module says so (for `metric` and
//! `readability`: the formula evaluator, checked when compiled, and Punkt's sentence splitting
//! without its orthographic data).

mod capitalization;
mod conditional;
mod consistency;
mod decode;
mod engine;
mod existence;
mod metric;
mod occurrence;
mod pattern;
mod readability;
mod regexp;
mod repetition;
mod scope;
mod substitution;
mod unassessed;

#[cfg(test)]
mod tests;

use decode::Decoder;

pub use capitalization::{Capitalization, CaseMatch, TitleStyle};
pub use conditional::Conditional;
pub use consistency::Consistency;
pub use engine::{
    Alert, CompiledRule, FileState, Outcome, ScopeKind, ScopedText, prose_scopes, sentence_scopes,
};
pub use existence::Existence;
pub use metric::{DocumentCounts, Metric, Metrics, VARIABLES, metrics};
pub use occurrence::Occurrence;
pub(crate) use pattern::{compile_plain, is_phrase};
pub use readability::{GRADES, Readability, TextStats, syllables};
pub use repetition::Repetition;
pub use substitution::Substitution;
pub use unassessed::{Script, Sequence, Spelling};

/// A rule's severity, as Vale names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Suggestion,
    Warning,
    Error,
}

impl Level {
    /// The level a rule file names, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "suggestion" => Some(Self::Suggestion),
            "warning" => Some(Self::Warning),
            "error" => Some(Self::Error),
            _ => None,
        }
    }

    /// Vale's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Suggestion => "suggestion",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// What a rule's `action` does to its match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionName {
    Replace,
    Remove,
    Suggest,
    Edit,
    Convert,
}

impl ActionName {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "replace" => Some(Self::Replace),
            "remove" => Some(Self::Remove),
            "suggest" => Some(Self::Suggest),
            "edit" => Some(Self::Edit),
            "convert" => Some(Self::Convert),
            _ => None,
        }
    }
}

/// A rule's `action`: its name and parameters (a substitution fills `replace`'s parameters
/// from its `swap` when the rule gives none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub name: ActionName,
    pub params: Vec<String>,
}

/// The twelve kinds a rule `extends`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extends {
    Existence,
    Substitution,
    Occurrence,
    Repetition,
    Consistency,
    Conditional,
    Capitalization,
    Metric,
    Readability,
    Spelling,
    Sequence,
    Script,
}

impl Extends {
    const ALL: [(&'static str, Self); 12] = [
        ("capitalization", Self::Capitalization),
        ("conditional", Self::Conditional),
        ("consistency", Self::Consistency),
        ("existence", Self::Existence),
        ("occurrence", Self::Occurrence),
        ("repetition", Self::Repetition),
        ("substitution", Self::Substitution),
        ("readability", Self::Readability),
        ("spelling", Self::Spelling),
        ("sequence", Self::Sequence),
        ("metric", Self::Metric),
        ("script", Self::Script),
    ];

    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, k)| *k)
    }

    /// Vale's name for it.
    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("", |(n, _)| n)
    }
}

/// The fields of one kind of rule.
#[derive(Debug, Clone)]
pub enum Check {
    Existence(Existence),
    Substitution(Substitution),
    Occurrence(Occurrence),
    Repetition(Repetition),
    Consistency(Consistency),
    Conditional(Conditional),
    Capitalization(Capitalization),
    Metric(Metric),
    Readability(Readability),
    Spelling(Spelling),
    Sequence(Sequence),
    Script(Script),
}

/// One Vale rule, parsed from its YAML file.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `Style.Rule`.
    pub id: String,
    /// The file it was read from, as the caller names it (for errors).
    pub file: String,
    pub extends: Extends,
    /// The message, with `%s` where the match (and, for some kinds, the replacement) goes.
    pub message: String,
    pub description: String,
    pub level: Level,
    /// The scopes as written (`heading`, `~blockquote`, `sentence&~list`, …); `text` when none.
    pub scope: Vec<String>,
    pub link: String,
    /// At most this many alerts in one file; 0 for no limit.
    pub limit: usize,
    pub action: Option<Action>,
    pub check: Check,
}

/// Why a rule file could not be read or compiled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleError {
    #[error("{file}: not a rule file: {message}")]
    Yaml { file: String, message: String },
    #[error("{file}: missing the required '{key}' key")]
    Missing { file: String, key: String },
    #[error("{file}: 'extends' is '{value}', not one of {}", Extends::ALL.map(|(n, _)| n).join(", "))]
    Extends { file: String, value: String },
    #[error("{file}: 'level' is '{value}', not one of suggestion, warning, error")]
    Level { file: String, value: String },
    #[error("{file}: 'action' names '{value}', not one of replace, remove, suggest, edit, convert")]
    Action { file: String, value: String },
    #[error("{file}: '{key}' must be {expected}")]
    Field {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: '{key}' is not a key of this kind of rule")]
    UnknownKey { file: String, key: String },
    #[error("{file}: scope '{scope}': {reason}")]
    Scope {
        file: String,
        scope: String,
        reason: String,
    },
    #[error("{file}: the pattern `{pattern}` does not compile: {message}")]
    Regex {
        file: String,
        pattern: String,
        message: String,
    },
}

impl crate::error::Hint for RuleError {
    fn hints(&self) -> Vec<String> {
        match self {
            Self::Regex { .. } => vec![
                "rewrite the pattern without lookaround or backreferences, which kapi's regex engine does not have".to_owned(),
            ],
            Self::Scope { .. } => vec!["use `raw` for markup scopes such as code or links".to_owned()],
            _ => Vec::new(),
        }
    }
}

impl Rule {
    /// Parses the YAML of the rule `id` (`Style.Rule`), read from `file` (named in errors).
    pub fn parse(id: &str, file: &str, yaml: &str) -> Result<Rule, RuleError> {
        let mut d = Decoder::new(file, yaml)?;
        let missing = |key: &str| RuleError::Missing {
            file: file.to_owned(),
            key: key.to_owned(),
        };
        let extends_name = d.string("extends")?;
        if extends_name.is_empty() {
            return Err(missing("extends"));
        }
        let extends = Extends::parse(&extends_name).ok_or_else(|| RuleError::Extends {
            file: file.to_owned(),
            value: extends_name.clone(),
        })?;
        if !d.has("message") {
            return Err(missing("message"));
        }
        let message = d.string("message")?;
        let level = match d.take("level") {
            None => Level::Warning,
            Some(v) => {
                let s = decode::scalar(&v).unwrap_or_default();
                Level::parse(&s).ok_or(RuleError::Level {
                    file: file.to_owned(),
                    value: s,
                })?
            }
        };
        if d.has("code") && d.bool("code", false)? {
            return Err(RuleError::Field {
                file: file.to_owned(),
                key: "code".to_owned(),
                expected: "absent: `code` is deprecated; use `scope: raw`".to_owned(),
            });
        }
        let mut scope = d.strings("scope")?;
        if scope.is_empty() {
            scope.push("text".to_owned());
        }
        // Vale checks the scopes of the kinds that run on pieces, not of those that run on a
        // whole file or on words (`metric`, `readability`, `spelling`, `script`).
        let whole = matches!(
            extends,
            Extends::Metric | Extends::Readability | Extends::Spelling | Extends::Script
        );
        if !whole {
            scope::check(file, &scope)?;
        }
        let description = d.string("description")?;
        let link = d.string("link")?;
        let limit = d.count("limit")?;
        let action = read_action(&mut d)?;
        // Keys Vale's loader adds or ignores.
        let _ = d.take("name");
        let _ = d.take("selector");
        let check = read_check(extends, &mut d)?;
        d.finish(extends != Extends::Consistency)?;
        let scope = if matches!(extends, Extends::Metric | Extends::Readability) {
            vec!["summary".to_owned()]
        } else {
            scope
        };
        Ok(Rule {
            id: id.to_owned(),
            file: file.to_owned(),
            extends,
            message,
            description,
            level,
            scope,
            link,
            limit,
            action,
            check,
        })
    }
}

fn read_action(d: &mut Decoder) -> Result<Option<Action>, RuleError> {
    let Some(value) = d.take("action") else {
        return Ok(None);
    };
    let file = d.file.clone();
    let bad = || RuleError::Field {
        file: file.clone(),
        key: "action".to_owned(),
        expected: "a mapping with `name` and `params`".to_owned(),
    };
    let serde_yaml::Value::Mapping(map) = value else {
        return Err(bad());
    };
    let mut name = String::new();
    let mut params = Vec::new();
    for (k, v) in &map {
        match decode::scalar(k)
            .unwrap_or_default()
            .to_lowercase()
            .as_str()
        {
            "name" => name = decode::scalar(v).ok_or_else(bad)?,
            "params" => {
                params = match v {
                    serde_yaml::Value::Sequence(items) => items
                        .iter()
                        .map(decode::scalar)
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(bad)?,
                    v => vec![decode::scalar(v).ok_or_else(bad)?],
                }
            }
            _ => return Err(bad()),
        }
    }
    if name.is_empty() {
        return Ok(None);
    }
    let name = ActionName::parse(&name).ok_or(RuleError::Action { file, value: name })?;
    Ok(Some(Action { name, params }))
}

fn read_check(extends: Extends, d: &mut Decoder) -> Result<Check, RuleError> {
    Ok(match extends {
        Extends::Existence => Check::Existence(Existence::read(d)?),
        Extends::Substitution => Check::Substitution(Substitution::read(d)?),
        Extends::Occurrence => Check::Occurrence(Occurrence::read(d)?),
        Extends::Repetition => Check::Repetition(Repetition::read(d)?),
        Extends::Consistency => Check::Consistency(Consistency::read(d)?),
        Extends::Conditional => Check::Conditional(Conditional::read(d)?),
        Extends::Capitalization => Check::Capitalization(Capitalization::read(d)?),
        Extends::Metric => Check::Metric(Metric::read(d)?),
        Extends::Readability => Check::Readability(Readability::read(d)?),
        Extends::Spelling => Check::Spelling(Spelling::read(d)?),
        Extends::Sequence => Check::Sequence(Sequence::read(d)?),
        Extends::Script => Check::Script(Script::read(d)?),
    })
}
