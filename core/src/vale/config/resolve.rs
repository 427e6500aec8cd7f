//! What a configuration means for one path: Vale's `NewFile` and `Linter.shouldRun`.

use std::collections::HashMap;

use super::ini::unique;
use super::{Level, RuleValue, Section, ValeConfig};

/// Vale's `IgnoredScopes` when the configuration sets none (`internal/lint/ast.go`).
pub const DEFAULT_IGNORED_SCOPES: [&str; 3] = ["tt", "code", "kbd"];

/// Vale's `SkippedScopes` when the configuration sets none.
pub const DEFAULT_SKIPPED_SCOPES: [&str; 6] =
    ["script", "style", "pre", "figure", "noscript", "iframe"];

/// The classes Vale always skips; `IgnoredClasses` adds to them.
pub const DEFAULT_IGNORED_CLASSES: [&str; 3] = ["problematic", "pre", "code"];

fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Whether a rule runs on a path, and at what level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleState {
    /// The rule does not run.
    Off,
    /// The rule runs; `Some` when the configuration overrides its level.
    On(Option<Level>),
}

/// The settings Vale applies to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The path as matched (relative to the configuration's folder, `/`-separated).
    pub path: String,
    /// The path with its extension mapped through `[formats]` (`a.mdx` → `a.md`), when mapped.
    pub normed_path: Option<String>,
    /// The format the file is read as, when `[formats]` maps its extension (`md` for `mdx`).
    pub format: Option<String>,
    /// The styles every rule of which runs (`BasedOnStyles` of the last matching section, else
    /// of `[*]`). As in Vale, the sections matching the path come first, then those matching
    /// the mapped path, each in file order.
    pub styles: Vec<String>,
    /// Rule settings that apply, each rule once: matching sections in the order of `styles`
    /// (a later one wins), then `[*]` for the rules no section set.
    pub rules: Vec<(String, RuleValue)>,
    /// `BlockIgnores` of `[*]` and every matching section.
    pub block_ignores: Vec<String>,
    /// `TokenIgnores` of `[*]` and every matching section.
    pub token_ignores: Vec<String>,
    /// `Lang` of the last matching section, else `[*]`'s.
    pub lang: Option<String>,
    /// `Transform` of the last matching section, else `[*]`'s.
    pub transform: Option<String>,
    /// `CommentDelimiters` of the last matching section, else `[*]`'s.
    pub comment_delimiters: Option<(String, String)>,
    /// Inline scopes whose text is not linted: `IgnoredScopes`, else [`DEFAULT_IGNORED_SCOPES`].
    pub ignored_scopes: Vec<String>,
    /// Block scopes skipped entirely: `SkippedScopes`, else [`DEFAULT_SKIPPED_SCOPES`].
    pub skipped_scopes: Vec<String>,
    /// HTML classes whose elements are skipped: [`DEFAULT_IGNORED_CLASSES`] and then
    /// `IgnoredClasses` (Vale adds them to its own).
    pub ignored_classes: Vec<String>,
    /// The core `MinAlertLevel`.
    pub min_alert_level: Level,
}

impl Resolved {
    /// Whether `rule` (`Style.Rule`) runs, as Vale's `shouldRun` decides it: a rule setting
    /// first, then the rule's style among the styles. `Vale.*` rules follow the same logic.
    pub fn rule_state(&self, rule: &str) -> RuleState {
        if let Some((_, value)) = self.rules.iter().find(|(id, _)| id == rule) {
            return match value {
                RuleValue::Off => RuleState::Off,
                RuleValue::On => RuleState::On(None),
                RuleValue::Level(level) => RuleState::On(Some(*level)),
            };
        }
        let style = rule.split_once('.').map_or(rule, |(style, _)| style);
        if self.styles.iter().any(|s| s == style) {
            RuleState::On(None)
        } else {
            RuleState::Off
        }
    }

    /// Every style a rule of which may run: the styles, then those of rules set on.
    pub fn active_styles(&self) -> Vec<String> {
        let mut out = self.styles.clone();
        for (rule, value) in &self.rules {
            if *value == RuleValue::Off {
                continue;
            }
            if let Some((style, _)) = rule.split_once('.')
                && !out.iter().any(|s| s == style)
            {
                out.push(style.to_owned());
            }
        }
        out
    }
}

/// `path` with `/` separators and no leading `./`.
fn normalize(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let mut rest = slashed.as_str();
    while let Some(r) = rest.strip_prefix("./") {
        rest = r;
    }
    rest.to_owned()
}

/// The extension of the last component, without its dot.
fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() || name.len() > ext.len() + 1).then_some(ext)
}

impl ValeConfig {
    /// The settings for `path`, relative to the configuration's folder.
    pub fn resolve(&self, path: &str) -> Resolved {
        let path = normalize(path);
        let (normed_path, format) = match extension(&path).and_then(|ext| {
            self.format_for(ext)
                .map(|to| (path[..path.len() - ext.len()].to_owned() + to, to))
        }) {
            Some((normed, to)) => (Some(normed), Some(to.to_owned())),
            None => (None, None),
        };
        // Vale's `NewFile`: the path, then the mapped path, each against every section in
        // file order; a section that matches both counts twice, in both places.
        let hits: Vec<(&Section, bool, bool)> = self
            .sections
            .iter()
            .map(|s| {
                let normed = normed_path.as_deref().is_some_and(|n| s.matches(n));
                (s, s.matches(&path), normed)
            })
            .collect();
        let passes: Vec<&Section> = (hits.iter().filter(|h| h.1))
            .chain(hits.iter().filter(|h| h.2))
            .map(|h| h.0)
            .collect();
        let matching: Vec<&Section> = hits.iter().filter(|h| h.1 || h.2).map(|h| h.0).collect();
        let global = self.global.as_ref();

        let mut styles = global
            .and_then(|g| g.based_on_styles.clone())
            .unwrap_or_default();
        if let Some(last) = passes.iter().rev().find_map(|s| s.based_on_styles.as_ref()) {
            styles = last.clone();
        }

        // Each rule once, at its first place: sections in order (a later one wins), then `[*]`
        // for the rules no section set. The index keeps this linear in the settings.
        let mut rules: Vec<(String, RuleValue)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for setting in passes.iter().flat_map(|s| s.rules.iter()) {
            match index.get(setting.rule.as_str()) {
                Some(&at) => rules[at].1 = setting.value,
                None => {
                    index.insert(&setting.rule, rules.len());
                    rules.push((setting.rule.clone(), setting.value));
                }
            }
        }
        let section_set = rules.len();
        for setting in global.iter().flat_map(|g| g.rules.iter()) {
            match index.get(setting.rule.as_str()) {
                Some(&at) if at < section_set => {}
                Some(&at) => rules[at].1 = setting.value,
                None => {
                    index.insert(&setting.rule, rules.len());
                    rules.push((setting.rule.clone(), setting.value));
                }
            }
        }

        let ordered: Vec<&Section> = global.into_iter().chain(matching.iter().copied()).collect();
        let block_ignores = unique(ordered.iter().flat_map(|s| s.block_ignores.iter().cloned()));
        let token_ignores = unique(ordered.iter().flat_map(|s| s.token_ignores.iter().cloned()));
        let last = |get: fn(&Section) -> Option<&String>| {
            ordered.iter().rev().find_map(|s| get(s)).cloned()
        };
        Resolved {
            lang: last(|s| s.lang.as_ref()),
            transform: last(|s| s.transform.as_ref()),
            comment_delimiters: ordered
                .iter()
                .rev()
                .find_map(|s| s.comment_delimiters.clone()),
            path,
            normed_path,
            format,
            styles,
            rules,
            block_ignores,
            token_ignores,
            ignored_scopes: self
                .ignored_scopes
                .clone()
                .unwrap_or_else(|| owned(&DEFAULT_IGNORED_SCOPES)),
            skipped_scopes: self
                .skipped_scopes
                .clone()
                .unwrap_or_else(|| owned(&DEFAULT_SKIPPED_SCOPES)),
            ignored_classes: owned(&DEFAULT_IGNORED_CLASSES)
                .into_iter()
                .chain(self.ignored_classes.iter().cloned())
                .collect(),
            min_alert_level: self.min_alert_level,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_and_extensions_found() {
        assert_eq!(normalize("./docs\\a.md"), "docs/a.md");
        assert_eq!(extension("docs/a.md"), Some("md"));
        assert_eq!(extension("docs.v2/README"), None);
        assert_eq!(extension(".vale"), None);
        assert_eq!(extension("a.tar.gz"), Some("gz"));
    }
}
