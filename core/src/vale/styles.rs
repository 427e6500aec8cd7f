//! A Vale configuration loaded for checking: every rule of its styles parsed and compiled
//! once, Vale's built-in rules made from its vocabularies, and the rules in force for a path.
//!
//! [`ValeStyles::load`] reads the configuration (with the configurations synced packages
//! left under `StylesPath`), lists its styles and vocabularies on disk, and compiles every
//! rule file of every style it names. A rule file Vale would refuse (bad YAML, a missing
//! `message`, an unknown key, a pattern that does not compile) is an error naming the file,
//! as Vale stops on it too. One exception: a pattern that needs .NET's variable-length
//! lookbehind, which Vale's `regexp2` has and no engine here does, leaves its rule
//! *unassessed* with that reason (listed in the report's coverage, never silently passed).
//!
//! The built-in `Vale` style is Vale's (`internal/check/definition.go`): `Vale.Repetition`
//! (a word repeated), `Vale.Spelling`, and, from the vocabularies, `Vale.Terms` (an accepted
//! term written in another case; only the entries that are phrases, as Vale) and `Vale.Avoid`
//! (a rejected term), each at level `error` unless the configuration sets one.
//!
//! [`ValeStyles::rule_set`] gives the rules in force for one path (Vale's `shouldRun`, its
//! level overrides and `MinAlertLevel`), with the path's `TokenIgnores` and `BlockIgnores`
//! compiled, once per distinct set.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use regex::Regex;
use sha2::{Digest, Sha256};

use super::config::{self, ConfigError, LoadedStyles, Notice, Resolved, RuleState, ValeConfig};
use super::rules::{CompiledRule, Level, Rule, RuleError};

/// Why a Vale configuration cannot be used: its `.vale.ini`, or one of its rule files.
#[derive(Debug, thiserror::Error)]
pub enum ValeError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Rule(#[from] RuleError),
}

impl crate::error::Hint for ValeError {
    fn hints(&self) -> Vec<String> {
        match self {
            Self::Config(e) => e.hints(),
            Self::Rule(e) => {
                let mut hints = e.hints();
                hints.push(
                    "fix the rule file, or turn the rule off in .vale.ini (`Style.Rule = NO`)"
                        .to_owned(),
                );
                hints
            }
        }
    }
}

/// A rule in force for a path, at its level there.
#[derive(Debug, Clone)]
pub struct ActiveRule {
    pub rule: Arc<CompiledRule>,
    pub level: Level,
}

/// The rules in force for one path and what it ignores.
#[derive(Debug)]
pub struct RuleSet {
    /// In rule-id order.
    pub rules: Vec<ActiveRule>,
    /// Rules in force that are not assessed, with the reason (by rule id).
    pub unassessed: Vec<(String, String)>,
    /// `TokenIgnores`: inline text that is not linted.
    pub token_ignores: Vec<Regex>,
    /// `BlockIgnores`: stretches of the file that are not linted.
    pub block_ignores: Vec<Regex>,
    /// Every rule id and style a directive may name (`Style.Rule`, `Style`).
    pub names: Vec<String>,
    /// `v` + 16 hex of SHA-256 over the configuration and the rules in force.
    pub fingerprint: String,
}

impl RuleSet {
    /// Whether no rule is in force (nothing to run).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.unassessed.is_empty()
    }
}

/// A Vale configuration with its styles compiled.
#[derive(Debug)]
pub struct ValeStyles {
    /// The configuration file, as the caller shows it.
    pub file: String,
    /// The folder paths are matched from (the configuration's).
    pub root: PathBuf,
    pub config: ValeConfig,
    pub loaded: LoadedStyles,
    /// Every rule, by id.
    rules: HashMap<String, Arc<CompiledRule>>,
    /// Rules that could not be assessed, by id, with the reason.
    unassessed: HashMap<String, String>,
    /// What Vale would accept silently: unknown keys, missing styles…
    pub notices: Vec<Notice>,
    digest: Sha256,
    sets: Mutex<HashMap<String, Arc<RuleSet>>>,
}

impl ValeStyles {
    /// Reads the configuration at `path` (shown as `display`) and compiles its styles.
    pub fn load(path: &Path, display: &str) -> Result<Self, ValeError> {
        let mut config = config::read_config_with_packages(path)?;
        config.file = display.to_owned();
        let loaded = config::load(path, &config)?;
        let mut digest = Sha256::new();
        for source in &config.sources {
            digest.update(source.as_bytes());
            digest.update(std::fs::read(source).unwrap_or_default());
        }
        let accepted: Vec<String> = loaded
            .vale_terms()
            .iter()
            .map(|e| e.pattern.clone())
            .collect();
        let mut rules = HashMap::new();
        let mut unassessed = HashMap::new();
        let root = path.parent().unwrap_or(Path::new("")).to_path_buf();
        for style in &loaded.styles {
            for file in &style.rules {
                digest.update(file.id.as_bytes());
                digest.update(file.text.as_bytes());
                let shown = shown(&root, display, &file.path);
                let rule = Rule::parse(&file.id, &shown, &file.text)?;
                add(&mut rules, &mut unassessed, rule, &accepted)?;
            }
        }
        for vocab in &loaded.vocabularies {
            for entry in vocab.accept.iter().chain(&vocab.reject) {
                digest.update(entry.pattern.as_bytes());
                digest.update([0]);
            }
        }
        for rule in built_in(&loaded)? {
            add(&mut rules, &mut unassessed, rule, &accepted)?;
        }
        let mut notices = config.notices.clone();
        notices.extend(loaded.notices.iter().cloned());
        Ok(Self {
            file: display.to_owned(),
            root,
            config,
            loaded,
            rules,
            unassessed,
            notices,
            digest,
            sets: Mutex::new(HashMap::new()),
        })
    }

    /// The rules in force for `rel` (relative to [`ValeStyles::root`], `/`-separated).
    pub fn rule_set(&self, rel: &str) -> Result<Arc<RuleSet>, ValeError> {
        let resolved = self.config.resolve(rel);
        let key = format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}",
            resolved.styles,
            resolved.rules,
            resolved.token_ignores,
            resolved.block_ignores,
            resolved.min_alert_level
        );
        if let Ok(sets) = self.sets.lock()
            && let Some(set) = sets.get(&key)
        {
            return Ok(Arc::clone(set));
        }
        let set = Arc::new(self.build(&resolved)?);
        if let Ok(mut sets) = self.sets.lock() {
            sets.insert(key, Arc::clone(&set));
        }
        Ok(set)
    }

    fn build(&self, resolved: &Resolved) -> Result<RuleSet, ValeError> {
        let min = level_of(resolved.min_alert_level);
        let mut ids: Vec<&String> = self.rules.keys().chain(self.unassessed.keys()).collect();
        ids.sort();
        let mut rules = Vec::new();
        let mut unassessed = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for id in ids {
            let RuleState::On(over) = resolved.rule_state(id) else {
                continue;
            };
            let style = id.split_once('.').map_or(id.as_str(), |(s, _)| s);
            if !names.iter().any(|n| n == style) {
                names.push(style.to_owned());
            }
            names.push(id.clone());
            if let Some(reason) = self.unassessed.get(id) {
                unassessed.push((id.clone(), reason.clone()));
                continue;
            }
            let Some(rule) = self.rules.get(id) else {
                continue;
            };
            let level = over.map_or(rule.rule.level, level_of);
            if level >= min {
                rules.push(ActiveRule {
                    rule: Arc::clone(rule),
                    level,
                });
            }
        }
        let file = &self.file;
        let compile = |patterns: &[String]| -> Result<Vec<Regex>, ValeError> {
            patterns
                .iter()
                .map(|p| super::rules::compile_plain(file, p).map_err(ValeError::from))
                .collect()
        };
        let mut digest = self.digest.clone();
        for r in &rules {
            digest.update(r.rule.rule.id.as_bytes());
            digest.update([r.level as u8]);
        }
        for p in resolved.token_ignores.iter().chain(&resolved.block_ignores) {
            digest.update(p.as_bytes());
            digest.update([1]);
        }
        let hash = digest.finalize();
        let fingerprint = format!(
            "v{}",
            hash[..8]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        Ok(RuleSet {
            rules,
            unassessed,
            token_ignores: compile(&resolved.token_ignores)?,
            block_ignores: compile(&resolved.block_ignores)?,
            names,
            fingerprint,
        })
    }
}

/// Compiles `rule` into `rules`, or, when its pattern needs a feature no engine here has,
/// records it in `unassessed` with the reason.
fn add(
    rules: &mut HashMap<String, Arc<CompiledRule>>,
    unassessed: &mut HashMap<String, String>,
    rule: Rule,
    accepted: &[String],
) -> Result<(), ValeError> {
    let id = rule.id.clone();
    match CompiledRule::compile(rule, accepted) {
        Ok(compiled) => {
            if let Some(reason) = compiled.unassessed_reason() {
                unassessed.insert(id, reason);
            } else {
                rules.insert(id, Arc::new(compiled));
            }
            Ok(())
        }
        Err(RuleError::Regex {
            pattern, message, ..
        }) if message.contains("constant size") => {
            unassessed.insert(
                id,
                format!(
                    "its pattern `{pattern}` has a variable-length lookbehind (.NET's, which Vale's regexp2 has); kapi's regex engines do not"
                ),
            );
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// The rule file's path as reports show it: relative to the configuration's folder, under
/// the configuration's own shown folder.
fn shown(root: &Path, display: &str, path: &Path) -> String {
    let base = Path::new(display).parent().unwrap_or(Path::new(""));
    match path.strip_prefix(root) {
        Ok(rel) => base.join(rel).display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

fn level_of(level: config::Level) -> Level {
    match level {
        config::Level::Suggestion => Level::Suggestion,
        config::Level::Warning => Level::Warning,
        config::Level::Error => Level::Error,
    }
}

/// Vale's built-in rules (`definition.go`'s `defaultRules`), as rule files.
fn built_in(loaded: &LoadedStyles) -> Result<Vec<Rule>, RuleError> {
    let mut out = vec![
        Rule::parse(
            "Vale.Repetition",
            "Vale.Repetition",
            "extends: repetition\nmessage: \"'%s' is repeated!\"\nlevel: error\nscope: text\nalpha: true\naction:\n  name: edit\n  params: [truncate, ' ']\ntokens: ['[^\\s]+']\n",
        )?,
        Rule::parse(
            "Vale.Spelling",
            "Vale.Spelling",
            "extends: spelling\nmessage: \"Did you really mean '%s'?\"\nlevel: error\nscope: text\naction:\n  name: suggest\n  params: [spellings]\n",
        )?,
    ];
    let terms = loaded.vale_terms();
    let phrases: Vec<String> = terms
        .iter()
        .filter(|e| super::rules::is_phrase(&e.pattern))
        .map(|e| e.pattern.clone())
        .collect();
    if !terms.is_empty() {
        let mut yaml = String::from(
            "extends: substitution\nmessage: \"Use '%s' instead of '%s'.\"\nlevel: error\nscope: text\nignorecase: true\nvocab: false\nswap:\n",
        );
        for term in &phrases {
            yaml.push_str(&format!(
                "  {}: {}\n",
                crate::yaml_text::quote(&term.to_lowercase()),
                crate::yaml_text::quote(term)
            ));
        }
        if phrases.is_empty() {
            yaml = yaml.replace("swap:\n", "swap: {}\n");
        }
        out.push(Rule::parse("Vale.Terms", "Vale.Terms", &yaml)?);
    }
    let avoid = loaded.vale_avoid();
    if !avoid.is_empty() {
        let mut yaml = String::from(
            "extends: existence\nmessage: \"Avoid using '%s'.\"\nlevel: error\nscope: text\nignorecase: false\ntokens:\n",
        );
        for entry in avoid {
            yaml.push_str(&format!(
                "  - {}\n",
                crate::yaml_text::quote(&entry.pattern)
            ));
        }
        out.push(Rule::parse("Vale.Avoid", "Vale.Avoid", &yaml)?);
    }
    Ok(out)
}
