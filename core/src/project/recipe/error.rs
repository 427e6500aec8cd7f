//! What goes wrong with a recipe: [`RecipeError`] (read, syntax, version, type and value
//! errors, each with the [`Site`] it sits at) and the hints that say how to fix each.

use std::fmt;
use std::path::PathBuf;

use crate::error::Hint;

/// Where in which file an error sits: the file, the key path, and line:column when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub file: PathBuf,
    /// `collections[1].content[0].channel`; empty for the whole file.
    pub key: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        Ok(())
    }
}

/// Why a recipe could not be read, parsed or saved.
#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    #[error("{}: cannot read the recipe", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot write the recipe", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{at}: invalid YAML: {message}")]
    Syntax { at: Box<Site>, message: String },
    #[error("{at}: `version` is missing")]
    MissingVersion { at: Box<Site> },
    #[error("{at}: unsupported recipe version `{found}` in `version`")]
    UnsupportedVersion { at: Box<Site>, found: String },
    #[error("{at}: `{}` is a retired key", .at.key)]
    RetiredKey {
        at: Box<Site>,
        replacement: &'static str,
    },
    #[error("{at}: {} must be {expected}", key_or_document(&.at.key))]
    WrongType {
        at: Box<Site>,
        expected: &'static str,
    },
    #[error("{at}: `{}` is required", .at.key)]
    MissingKey { at: Box<Site> },
    #[error("{at}: `{}` {}", .at.key, .problem.message())]
    Provider {
        at: Box<Site>,
        problem: super::providers::ProviderProblem,
    },
    #[error("{at}: a bare collection entry cannot have `{}`", .at.key)]
    BareEntryKey { at: Box<Site> },
    #[error("{at}: `{}` is empty; a named collection needs at least one item", .at.key)]
    EmptyContent { at: Box<Site> },
    #[error("{at}: a named collection cannot have `{}`; put globs under `content`", .at.key)]
    NamedCollectionWithPath { at: Box<Site> },
    #[error("{at}: unqualified channel `{found}` in `{}`", .at.key)]
    UnqualifiedChannel {
        at: Box<Site>,
        found: String,
        valid: Vec<String>,
    },
    #[error("{at}: unknown profile in channel `{found}` in `{}`", .at.key)]
    UnknownProfile {
        at: Box<Site>,
        found: String,
        valid: Vec<String>,
    },
    #[error("{at}: unknown channel `{found}` in `{}`", .at.key)]
    UnknownChannel {
        at: Box<Site>,
        found: String,
        valid: Vec<String>,
    },
    #[error("{at}: `{found}` in `{}` is not a slug", .at.key)]
    NotASlug { at: Box<Site>, found: String },
    #[error("{at}: channel `{channel}` is declared twice in `{}`", .at.key)]
    DuplicateChannel { at: Box<Site>, channel: String },
    #[error("{at}: concept `{found}` in `{}` contains whitespace", .at.key)]
    ConceptWhitespace { at: Box<Site>, found: String },
    #[error("{at}: voice binding `{}` names {found} sources; it needs exactly one", .at.key)]
    VoiceSources { at: Box<Site>, found: usize },
    #[error("{at}: voice source `{source_key}` in `{}` is not supported", .at.key)]
    UnsupportedVoiceSource { at: Box<Site>, source_key: String },
    #[error("{at}: `{found}` in `{}` is not a date or an RFC 3339 instant", .at.key)]
    BadDate { at: Box<Site>, found: String },
    #[error("{at}: `{}` ({valid_to}) is not after `valid_from` ({valid_from})", .at.key)]
    EmptyWindow {
        at: Box<Site>,
        valid_from: String,
        valid_to: String,
    },
    #[error("{at}: unknown severity `{found}` in `{}`", .at.key)]
    BadFailOn { at: Box<Site>, found: String },
    #[error("{at}: `{}` is {found}; a score is at most 100", .at.key)]
    MinScoreTooHigh { at: Box<Site>, found: u64 },
    #[error("{at}: invalid glob `{glob}` in `{}`: {message}", .at.key)]
    BadGlob {
        at: Box<Site>,
        glob: String,
        message: String,
    },
    /// A `locales:` entry whose key is no BCP 47 tag, or whose code is empty or a path.
    #[error("{at}: `{tag}` in `locales` {problem}")]
    BadLocale {
        at: Box<Site>,
        tag: String,
        problem: String,
    },
    #[error("{at}: profile `{name}` is not declared")]
    UndeclaredProfile {
        at: Box<Site>,
        name: String,
        declared: Vec<String>,
    },
    /// A key under `rules` that names no rule and no analyzer.
    #[error("{at}: `{found}` in `rules` is neither a rule nor an analyzer")]
    UnknownRule {
        at: Box<Site>,
        found: String,
        /// Every rule id and analyzer name, to suggest from.
        valid: Vec<String>,
    },
    /// Keys kapi does not read, refused because the caller asked for a strict reading
    /// (`--strict`); never returned by [`super::Recipe::parse`], which keeps them
    /// ([`super::Recipe::unknown_keys`]). Never empty.
    #[error("{}", unknown_keys_message(.keys))]
    UnknownKeys { keys: Vec<super::UnknownKey> },
}

fn unknown_keys_message(keys: &[super::UnknownKey]) -> String {
    let Some(first) = keys.first() else {
        return "no unknown keys".to_owned();
    };
    let mut out = format!("{}: {}", first.at, first.problem());
    if let [_, rest @ ..] = keys
        && !rest.is_empty()
    {
        let names: Vec<String> = rest.iter().map(|k| k.at.key.clone()).collect();
        out.push_str(&format!(
            " (and {} more: {})",
            rest.len(),
            backticked(&names)
        ));
    }
    out
}

impl RecipeError {
    /// Where the error sits, when it is about a place in a recipe.
    pub fn site(&self) -> Option<&Site> {
        use RecipeError::*;
        match self {
            Read { .. } | Write { .. } => None,
            Syntax { at, .. }
            | MissingVersion { at }
            | UnsupportedVersion { at, .. }
            | RetiredKey { at, .. }
            | WrongType { at, .. }
            | MissingKey { at }
            | Provider { at, .. }
            | BareEntryKey { at }
            | EmptyContent { at }
            | NamedCollectionWithPath { at }
            | UnqualifiedChannel { at, .. }
            | UnknownProfile { at, .. }
            | UnknownChannel { at, .. }
            | NotASlug { at, .. }
            | DuplicateChannel { at, .. }
            | ConceptWhitespace { at, .. }
            | VoiceSources { at, .. }
            | UnsupportedVoiceSource { at, .. }
            | BadDate { at, .. }
            | EmptyWindow { at, .. }
            | BadFailOn { at, .. }
            | MinScoreTooHigh { at, .. }
            | BadGlob { at, .. }
            | BadLocale { at, .. }
            | UndeclaredProfile { at, .. }
            | UnknownRule { at, .. } => Some(at.as_ref()),
            UnknownKeys { keys } => keys.first().map(|k| &k.at),
        }
    }
}

fn key_or_document(key: &str) -> String {
    if key.is_empty() {
        "the document".to_owned()
    } else {
        format!("`{key}`")
    }
}

fn backticked(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn choice_hints(found: &str, valid: &[String], what: &str) -> Vec<String> {
    if valid.is_empty() {
        return vec![format!("declare {what} under `profiles` first")];
    }
    let mut hints = Vec::new();
    if let Some(close) = crate::suggest::closest(found, valid) {
        hints.push(format!("use `{close}`"));
    }
    hints.push(format!("valid {what}: {}", backticked(valid)));
    hints
}

impl Hint for RecipeError {
    fn hints(&self) -> Vec<String> {
        use RecipeError::*;
        match self {
            Read { .. } => {
                vec!["check the path, or run `kapi init` to create a project".to_owned()]
            }
            Write { .. } => vec!["check that the project folder is writable".to_owned()],
            Syntax { .. } => vec!["fix the YAML at the position shown".to_owned()],
            MissingVersion { .. } => vec!["add `version: v1` at the top of the recipe".to_owned()],
            UnsupportedVersion { .. } => {
                vec!["set `version: v1`, or upgrade kapi if a newer version wrote it".to_owned()]
            }
            RetiredKey { replacement, .. } => vec![format!("use `{replacement}` instead")],
            WrongType { .. } => vec!["fix the value's type as described".to_owned()],
            MissingKey { at } => vec![format!("add `{}`", at.key)],
            Provider { problem, .. } => vec![problem.hint()],
            BareEntryKey { .. } => vec![
                "give the entry a `name` and move its glob under `content` to use a channel"
                    .to_owned(),
            ],
            EmptyContent { .. } => vec!["add an item such as `- path: \"**/*.md\"`".to_owned()],
            NamedCollectionWithPath { .. } => {
                vec!["move the glob into an item: `content: [{path: ...}]`".to_owned()]
            }
            UnqualifiedChannel { found, valid, .. } => {
                let matching: Vec<String> = valid
                    .iter()
                    .filter(|v| v.ends_with(&format!("/{found}")))
                    .cloned()
                    .collect();
                if matching.is_empty() {
                    choice_hints(found, valid, "channels")
                } else {
                    vec![format!("write the channel as {}", backticked(&matching))]
                }
            }
            UnknownProfile { found, valid, .. } | UnknownChannel { found, valid, .. } => {
                choice_hints(found, valid, "channels")
            }
            NotASlug { found, .. } => {
                let slug = crate::suggest::slug(found);
                let mut h = vec![
                    "use lowercase letters, digits and `-`, starting with a letter or digit"
                        .to_owned(),
                ];
                if !slug.is_empty() {
                    h.push(format!("use `{slug}`"));
                }
                h
            }
            DuplicateChannel { channel, .. } => vec![format!("remove the second `{channel}`")],
            ConceptWhitespace { found, .. } => {
                vec![format!(
                    "use `{}`",
                    found.split_whitespace().collect::<Vec<_>>().join("-")
                )]
            }
            VoiceSources { .. } => {
                vec!["give the voice as a path, or as `{profile_file: PATH}`".to_owned()]
            }
            UnsupportedVoiceSource { .. } => {
                vec!["use `profile_file: PATH` (a voice file in the project)".to_owned()]
            }
            BadDate { .. } => {
                vec![
                    "write a date (`2026-01-01`) or an RFC 3339 instant (`2026-01-01T09:00:00Z`)"
                        .to_owned(),
                ]
            }
            EmptyWindow { .. } => vec!["make `valid_to` later than `valid_from`".to_owned()],
            BadFailOn { found, .. } => {
                let valid: Vec<String> = ["critical", "major", "minor", "none"]
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect();
                choice_hints(found, &valid, "values")
            }
            MinScoreTooHigh { .. } => vec!["use a score between 0 and 100".to_owned()],
            BadLocale { .. } => vec![
                "map each BCP 47 tag the project uses to the code its files use: `locales: {de: de-DE, pt-BR: pt-rBR}`".to_owned(),
            ],
            BadGlob { .. } => vec![
                "fix the glob; use `**` to cross folders and `{a,b}` for alternatives".to_owned(),
            ],
            UnknownRule { found, valid, .. } => crate::suggest::closest(found, valid)
                .map(|near| format!("did you mean `{near}`?"))
                .into_iter()
                .chain([
                    "`kapi help rules` lists every rule; an analyzer's name (`terms`) takes in all of its rules"
                        .to_owned(),
                ])
                .collect(),
            UnknownKeys { keys } => keys
                .first()
                .and_then(super::UnknownKey::fix)
                .into_iter()
                .chain([
                    "rename or remove the key; without `--strict` kapi names it and goes on"
                        .to_owned(),
                ])
                .collect(),
            UndeclaredProfile { name, declared, .. } => {
                if declared.is_empty() {
                    vec!["declare the profile under `profiles` in `kapi.yaml`".to_owned()]
                } else {
                    choice_hints(name, declared, "profiles")
                }
            }
        }
    }
}
