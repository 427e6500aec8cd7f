//! The `kapi.yaml` recipe: its typed model, load-time validation with located errors, and a
//! save that writes known keys back into the original YAML so unknown keys survive verbatim.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_yaml::{Mapping, Value};

use crate::check::FailOn;
use crate::error::Hint;
use crate::yaml_text::Outline;

/// The only recipe version this kapi reads.
pub const RECIPE_VERSION: &str = "v1";

/// The parsed recipe. Unknown keys at every level are kept for [`Recipe::save`].
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// Always `v1` once loaded.
    pub version: String,
    pub name: Option<String>,
    pub defaults: Defaults,
    /// In recipe order: the first matching item wins.
    pub collections: Vec<Collection>,
    /// In declared order.
    pub profiles: Vec<Profile>,
    pub gates: GateConfig,
    raw: Mapping,
}

impl Default for Recipe {
    fn default() -> Self {
        Recipe {
            version: RECIPE_VERSION.to_owned(),
            name: None,
            defaults: Defaults::default(),
            collections: Vec::new(),
            profiles: Vec::new(),
            gates: GateConfig::default(),
            raw: Mapping::new(),
        }
    }
}

/// `defaults:`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defaults {
    pub source_language: Option<String>,
    pub target_languages: Option<Vec<String>>,
    pub voice: Option<VoiceRef>,
    pub terms_source: Option<String>,
    pub exclude: Vec<String>,
    raw: Mapping,
}

/// A voice binding: a scalar path, or `{profile_file: PATH}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VoiceRef {
    /// Path relative to the project root.
    pub profile_file: String,
    /// Written as a bare scalar (kept on save).
    pub short: bool,
    raw: Mapping,
}

impl VoiceRef {
    pub fn new(profile_file: impl Into<String>) -> Self {
        VoiceRef {
            profile_file: profile_file.into(),
            short: true,
            raw: Mapping::new(),
        }
    }
}

/// A `profile/channel` reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChannelRef {
    pub profile: String,
    pub channel: String,
}

impl fmt::Display for ChannelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.profile, self.channel)
    }
}

/// A collection: a bare entry (`name` is `None`, exactly one item, no channel) or a named
/// collection of items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collection {
    pub name: Option<String>,
    /// Folder joined onto every item's path.
    pub base: Option<String>,
    pub channel: Option<ChannelRef>,
    pub source_language: Option<String>,
    pub target_languages: Option<Vec<String>>,
    pub content: Vec<Item>,
    raw: Mapping,
}

impl Collection {
    /// A bare entry for one glob.
    pub fn bare(path: impl Into<String>) -> Self {
        Collection {
            content: vec![Item::new(path)],
            ..Collection::default()
        }
    }

    /// A named collection of items.
    pub fn named(name: impl Into<String>, content: Vec<Item>) -> Self {
        Collection {
            name: Some(name.into()),
            content,
            ..Collection::default()
        }
    }

    pub fn is_bare(&self) -> bool {
        self.name.is_none()
    }
}

/// One content item (or the single item of a bare entry).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    /// A glob relative to the root (or the collection's `base`).
    pub path: String,
    pub format: Option<FormatRef>,
    /// Target template (`{lang}/{relpath}`).
    pub target: Option<String>,
    pub channel: Option<ChannelRef>,
    pub source_language: Option<String>,
    pub target_languages: Option<Vec<String>>,
    raw: Mapping,
}

impl Item {
    pub fn new(path: impl Into<String>) -> Self {
        Item {
            path: path.into(),
            ..Item::default()
        }
    }
}

/// `format: markdown` or `format: {name: json, config: {...}}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FormatRef {
    pub name: String,
    pub config: Option<Value>,
    raw: Mapping,
}

/// A governance profile (`profiles.<slug>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    pub name: String,
    pub channels: Vec<Channel>,
    pub voice: Option<VoiceRef>,
    pub termstore: Option<String>,
    pub concept: Option<String>,
    /// Inclusive.
    pub valid_from: Option<Bound>,
    /// Exclusive.
    pub valid_to: Option<Bound>,
    raw: Mapping,
}

impl Profile {
    pub fn new(name: impl Into<String>) -> Self {
        Profile {
            name: name.into(),
            ..Profile::default()
        }
    }

    pub fn has_channel(&self, id: &str) -> bool {
        self.channels.iter().any(|c| c.id == id)
    }
}

/// A channel a profile declares: `docs` or `{id: docs, concept: ...}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Channel {
    pub id: String,
    pub concept: Option<String>,
    raw: Option<Mapping>,
}

/// A window bound as written and as an instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub text: String,
    pub at: jiff::Timestamp,
}

impl Bound {
    /// Parses a bare date (midnight UTC) or an RFC 3339 instant.
    pub fn parse(text: &str) -> Option<Bound> {
        let at = if let Ok(date) = text.parse::<jiff::civil::Date>() {
            date.to_zoned_datetime(jiff::tz::TimeZone::UTC)
                .ok()?
                .timestamp()
        } else {
            text.parse::<jiff::Timestamp>().ok()?
        };
        Some(Bound {
            text: text.to_owned(),
            at,
        })
    }

    /// A bare date when the bound is midnight UTC, else RFC 3339.
    pub fn render(&self) -> String {
        let zoned = self.at.to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let t = zoned.time();
        if t.hour() == 0 && t.minute() == 0 && t.second() == 0 && t.subsec_nanosecond() == 0 {
            zoned.date().to_string()
        } else {
            self.at.to_string()
        }
    }
}

/// One gate's thresholds as the recipe states them (`None` = not stated).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateSpec {
    pub fail_on: Option<FailOn>,
    pub min_score: Option<u32>,
}

/// The default gate and the ship gate (`gates.ship`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gates {
    pub default: GateSpec,
    pub ship: GateSpec,
}

/// `gates:` as stored (with unknown keys).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GateConfig {
    pub default: GateSpec,
    pub ship: GateSpec,
    raw: Mapping,
    ship_raw: Option<Mapping>,
}

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
    #[error("{at}: profile `{name}` is not declared")]
    UndeclaredProfile {
        at: Box<Site>,
        name: String,
        declared: Vec<String>,
    },
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
            | UndeclaredProfile { at, .. } => Some(at.as_ref()),
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
            BadGlob { .. } => vec![
                "fix the glob; use `**` to cross folders and `{a,b}` for alternatives".to_owned(),
            ],
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

pub use crate::suggest::is_slug;

// ---------------------------------------------------------------------------------------------
// Parsing

struct Ctx<'a> {
    file: &'a Path,
    outline: Outline,
}

impl Ctx<'_> {
    fn site(&self, key: &str) -> Box<Site> {
        let loc = self.outline.locate(key);
        Box::new(Site {
            file: self.file.to_path_buf(),
            key: key.to_owned(),
            line: loc.map(|l| l.0),
            column: loc.map(|l| l.1),
        })
    }

    fn wrong(&self, key: &str, expected: &'static str) -> RecipeError {
        RecipeError::WrongType {
            at: self.site(key),
            expected,
        }
    }

    fn string(&self, v: Option<&Value>, key: &str) -> Result<Option<String>, RecipeError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(self.wrong(key, "a string")),
        }
    }

    fn strings(&self, v: Option<&Value>, key: &str) -> Result<Option<Vec<String>>, RecipeError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Sequence(seq)) => {
                let mut out = Vec::with_capacity(seq.len());
                for (i, item) in seq.iter().enumerate() {
                    let k = format!("{key}[{i}]");
                    match self.string(Some(item), &k)? {
                        Some(s) => out.push(s),
                        None => return Err(self.wrong(&k, "a string")),
                    }
                }
                Ok(Some(out))
            }
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(_) => Err(self.wrong(key, "a list of strings")),
        }
    }

    fn mapping<'v>(&self, v: &'v Value, key: &str) -> Result<&'v Mapping, RecipeError> {
        v.as_mapping().ok_or_else(|| self.wrong(key, "a mapping"))
    }
}

fn get<'m>(m: &'m Mapping, key: &str) -> Option<&'m Value> {
    m.get(key)
}

fn present(m: &Mapping, key: &str) -> bool {
    !matches!(m.get(key), None | Some(Value::Null))
}

impl Recipe {
    /// A fresh `v1` recipe (for `kapi init`); set the public fields, then [`Recipe::save`].
    pub fn new(name: Option<String>) -> Recipe {
        Recipe {
            name,
            ..Recipe::default()
        }
    }

    /// Reads and validates a recipe file.
    pub fn load(path: &Path) -> Result<Recipe, RecipeError> {
        let text = std::fs::read_to_string(path).map_err(|source| RecipeError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Recipe::parse(&text, path)
    }

    /// Parses and validates recipe text; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Recipe, RecipeError> {
        let ctx = Ctx {
            file: path,
            outline: Outline::new(text),
        };
        let value: Value = serde_yaml::from_str(text).map_err(|e| {
            let loc = e.location();
            RecipeError::Syntax {
                at: Box::new(Site {
                    file: path.to_path_buf(),
                    key: String::new(),
                    line: loc.as_ref().map(|l| l.line()),
                    column: loc.as_ref().map(|l| l.column()),
                }),
                message: e.to_string(),
            }
        })?;
        let raw = match value {
            Value::Mapping(m) => m,
            Value::Null => Mapping::new(),
            _ => return Err(ctx.wrong("", "a mapping of recipe keys")),
        };
        match ctx.string(get(&raw, "version"), "version")? {
            None => {
                return Err(RecipeError::MissingVersion {
                    at: ctx.site("version"),
                });
            }
            Some(v) if v != RECIPE_VERSION => {
                return Err(RecipeError::UnsupportedVersion {
                    at: ctx.site("version"),
                    found: v,
                });
            }
            Some(_) => {}
        }
        for (key, replacement) in [("content", "collections"), ("coordinates", "profiles")] {
            if raw.contains_key(key) {
                return Err(RecipeError::RetiredKey {
                    at: ctx.site(key),
                    replacement,
                });
            }
        }
        let name = ctx.string(get(&raw, "name"), "name")?;
        let defaults = match get(&raw, "defaults") {
            None | Some(Value::Null) => Defaults::default(),
            Some(v) => parse_defaults(&ctx, ctx.mapping(v, "defaults")?)?,
        };
        let profiles = match get(&raw, "profiles") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_profiles(&ctx, ctx.mapping(v, "profiles")?)?,
        };
        let collections = match get(&raw, "collections") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Sequence(seq)) => {
                let mut out = Vec::with_capacity(seq.len());
                for (i, v) in seq.iter().enumerate() {
                    out.push(parse_collection(&ctx, v, i, &profiles)?);
                }
                out
            }
            Some(_) => return Err(ctx.wrong("collections", "a list")),
        };
        let gates = match get(&raw, "gates") {
            None | Some(Value::Null) => GateConfig::default(),
            Some(v) => parse_gates(&ctx, ctx.mapping(v, "gates")?)?,
        };
        Ok(Recipe {
            version: RECIPE_VERSION.to_owned(),
            name,
            defaults,
            collections,
            profiles,
            gates,
            raw,
        })
    }

    /// A profile by name.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The default gate and the ship gate as stated in `gates`.
    pub fn gates(&self) -> Gates {
        Gates {
            default: self.gates.default,
            ship: self.gates.ship,
        }
    }

    /// Every `profile/channel` the recipe declares, in order.
    pub fn qualified_channels(&self) -> Vec<String> {
        qualified(&self.profiles)
    }

    /// The recipe as YAML text: known keys written into the original mapping, so unknown keys
    /// and key order survive (comments do not).
    pub fn to_yaml(&self) -> Result<String, serde_yaml::Error> {
        serde_yaml::to_string(&Value::Mapping(self.to_mapping()))
    }

    /// Writes the recipe atomically (a temporary file in the same folder, then a rename).
    pub fn save(&self, path: &Path) -> Result<(), RecipeError> {
        let write_err = |source| RecipeError::Write {
            path: path.to_path_buf(),
            source,
        };
        let text = self
            .to_yaml()
            .map_err(|e| write_err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        crate::change::stage::write_one(path, text.as_bytes()).map_err(write_err)?;
        Ok(())
    }

    fn to_mapping(&self) -> Mapping {
        let mut m = self.raw.clone();
        set(&mut m, "version", Some(s(&self.version)));
        set(&mut m, "name", self.name.as_deref().map(s));
        let d = self.defaults.to_mapping();
        let keep = !d.is_empty() || m.contains_key("defaults");
        set(&mut m, "defaults", keep.then_some(Value::Mapping(d)));
        if !self.collections.is_empty() || m.contains_key("collections") {
            let seq = self.collections.iter().map(Collection::to_value).collect();
            set(&mut m, "collections", Some(Value::Sequence(seq)));
        }
        if !self.profiles.is_empty() || m.contains_key("profiles") {
            let mut pm = Mapping::new();
            for p in &self.profiles {
                pm.insert(s(&p.name), Value::Mapping(p.to_mapping()));
            }
            set(&mut m, "profiles", Some(Value::Mapping(pm)));
        }
        let g = self.gates.to_mapping();
        let keep = !g.is_empty() || m.contains_key("gates");
        set(&mut m, "gates", keep.then_some(Value::Mapping(g)));
        m
    }
}

fn qualified(profiles: &[Profile]) -> Vec<String> {
    profiles
        .iter()
        .flat_map(|p| {
            p.channels
                .iter()
                .map(move |c| format!("{}/{}", p.name, c.id))
        })
        .collect()
}

fn parse_voice(ctx: &Ctx<'_>, v: &Value, key: &str) -> Result<Option<VoiceRef>, RecipeError> {
    match v {
        Value::Null => Ok(None),
        Value::String(p) if p.trim().is_empty() => Err(RecipeError::VoiceSources {
            at: ctx.site(key),
            found: 0,
        }),
        Value::String(p) => Ok(Some(VoiceRef::new(p.clone()))),
        Value::Mapping(m) => {
            let sources: Vec<&str> = ["profile_file", "profile", "pack"]
                .into_iter()
                .filter(|k| present(m, k))
                .collect();
            if sources.len() != 1 {
                return Err(RecipeError::VoiceSources {
                    at: ctx.site(key),
                    found: sources.len(),
                });
            }
            if sources[0] != "profile_file" {
                return Err(RecipeError::UnsupportedVoiceSource {
                    at: ctx.site(&format!("{key}.{}", sources[0])),
                    source_key: sources[0].to_owned(),
                });
            }
            let k = format!("{key}.profile_file");
            let profile_file = ctx
                .string(get(m, "profile_file"), &k)?
                .ok_or_else(|| ctx.wrong(&k, "a path"))?;
            Ok(Some(VoiceRef {
                profile_file,
                short: false,
                raw: m.clone(),
            }))
        }
        _ => Err(ctx.wrong(key, "a path or `{profile_file: PATH}`")),
    }
}

fn check_glob(ctx: &Ctx<'_>, pattern: &str, key: &str) -> Result<(), RecipeError> {
    match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(RecipeError::BadGlob {
            at: ctx.site(key),
            glob: pattern.to_owned(),
            message: e.kind().to_string(),
        }),
    }
}

fn parse_defaults(ctx: &Ctx<'_>, m: &Mapping) -> Result<Defaults, RecipeError> {
    let exclude = ctx
        .strings(get(m, "exclude"), "defaults.exclude")?
        .unwrap_or_default();
    for (i, pattern) in exclude.iter().enumerate() {
        check_glob(ctx, pattern, &format!("defaults.exclude[{i}]"))?;
    }
    Ok(Defaults {
        source_language: ctx.string(get(m, "source_language"), "defaults.source_language")?,
        target_languages: ctx.strings(get(m, "target_languages"), "defaults.target_languages")?,
        voice: match get(m, "voice") {
            Some(v) => parse_voice(ctx, v, "defaults.voice")?,
            None => None,
        },
        terms_source: ctx.string(get(m, "terms_source"), "defaults.terms_source")?,
        exclude,
        raw: m.clone(),
    })
}

fn parse_bound(ctx: &Ctx<'_>, m: &Mapping, key: &str) -> Result<Option<Bound>, RecipeError> {
    match ctx.string(get(m, key.rsplit('.').next().unwrap_or(key)), key)? {
        None => Ok(None),
        Some(text) => match Bound::parse(&text) {
            Some(b) => Ok(Some(b)),
            None => Err(RecipeError::BadDate {
                at: ctx.site(key),
                found: text,
            }),
        },
    }
}

fn parse_profiles(ctx: &Ctx<'_>, m: &Mapping) -> Result<Vec<Profile>, RecipeError> {
    let mut out = Vec::with_capacity(m.len());
    for (k, v) in m {
        let name = match k {
            Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        let key = format!("profiles.{name}");
        if !is_slug(&name) {
            return Err(RecipeError::NotASlug {
                at: ctx.site(&key),
                found: name,
            });
        }
        let pm = match v {
            Value::Null => Mapping::new(),
            other => ctx.mapping(other, &key)?.clone(),
        };
        let mut channels: Vec<Channel> = Vec::new();
        match get(&pm, "channels") {
            None | Some(Value::Null) => {}
            Some(Value::Sequence(seq)) => {
                for (i, c) in seq.iter().enumerate() {
                    let ck = format!("{key}.channels[{i}]");
                    let channel = match c {
                        Value::String(id) => Channel {
                            id: id.clone(),
                            concept: None,
                            raw: None,
                        },
                        Value::Mapping(cm) => {
                            let id = ctx.string(get(cm, "id"), &format!("{ck}.id"))?.ok_or_else(
                                || RecipeError::MissingKey {
                                    at: ctx.site(&format!("{ck}.id")),
                                },
                            )?;
                            let concept =
                                ctx.string(get(cm, "concept"), &format!("{ck}.concept"))?;
                            Channel {
                                id,
                                concept,
                                raw: Some(cm.clone()),
                            }
                        }
                        _ => return Err(ctx.wrong(&ck, "a slug or `{id, concept}`")),
                    };
                    if !is_slug(&channel.id) {
                        return Err(RecipeError::NotASlug {
                            at: ctx.site(&ck),
                            found: channel.id,
                        });
                    }
                    if let Some(concept) = &channel.concept
                        && concept.chars().any(char::is_whitespace)
                    {
                        return Err(RecipeError::ConceptWhitespace {
                            at: ctx.site(&format!("{ck}.concept")),
                            found: concept.clone(),
                        });
                    }
                    if channels.iter().any(|c| c.id == channel.id) {
                        return Err(RecipeError::DuplicateChannel {
                            at: ctx.site(&ck),
                            channel: channel.id,
                        });
                    }
                    channels.push(channel);
                }
            }
            Some(_) => return Err(ctx.wrong(&format!("{key}.channels"), "a list")),
        }
        let voice = match get(&pm, "voice") {
            Some(v) => parse_voice(ctx, v, &format!("{key}.voice"))?,
            None => None,
        };
        let termstore = ctx.string(get(&pm, "termstore"), &format!("{key}.termstore"))?;
        let concept = ctx.string(get(&pm, "concept"), &format!("{key}.concept"))?;
        if let Some(c) = &concept
            && c.chars().any(char::is_whitespace)
        {
            return Err(RecipeError::ConceptWhitespace {
                at: ctx.site(&format!("{key}.concept")),
                found: c.clone(),
            });
        }
        let valid_from = parse_bound(ctx, &pm, &format!("{key}.valid_from"))?;
        let valid_to = parse_bound(ctx, &pm, &format!("{key}.valid_to"))?;
        if let (Some(f), Some(t)) = (&valid_from, &valid_to)
            && t.at <= f.at
        {
            return Err(RecipeError::EmptyWindow {
                at: ctx.site(&format!("{key}.valid_to")),
                valid_from: f.text.clone(),
                valid_to: t.text.clone(),
            });
        }
        out.push(Profile {
            name,
            channels,
            voice,
            termstore,
            concept,
            valid_from,
            valid_to,
            raw: pm,
        });
    }
    Ok(out)
}

fn parse_channel_ref(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
    profiles: &[Profile],
) -> Result<Option<ChannelRef>, RecipeError> {
    let Some(text) = ctx.string(get(m, "channel"), key)? else {
        return Ok(None);
    };
    let valid = qualified(profiles);
    let Some((p, c)) = text.split_once('/') else {
        return Err(RecipeError::UnqualifiedChannel {
            at: ctx.site(key),
            found: text,
            valid,
        });
    };
    let Some(profile) = profiles.iter().find(|x| x.name == p) else {
        return Err(RecipeError::UnknownProfile {
            at: ctx.site(key),
            found: text,
            valid,
        });
    };
    if !profile.has_channel(c) {
        return Err(RecipeError::UnknownChannel {
            at: ctx.site(key),
            found: text,
            valid,
        });
    }
    Ok(Some(ChannelRef {
        profile: p.to_owned(),
        channel: c.to_owned(),
    }))
}

fn parse_format(
    ctx: &Ctx<'_>,
    v: Option<&Value>,
    key: &str,
) -> Result<Option<FormatRef>, RecipeError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => Ok(Some(FormatRef {
            name: name.clone(),
            config: None,
            raw: Mapping::new(),
        })),
        Some(Value::Mapping(m)) => {
            let nk = format!("{key}.name");
            let name = ctx
                .string(get(m, "name"), &nk)?
                .ok_or_else(|| RecipeError::MissingKey { at: ctx.site(&nk) })?;
            Ok(Some(FormatRef {
                name,
                config: get(m, "config").cloned(),
                raw: m.clone(),
            }))
        }
        Some(_) => Err(ctx.wrong(key, "a format name or `{name, config}`")),
    }
}

fn parse_item(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
    profiles: &[Profile],
) -> Result<Item, RecipeError> {
    let pk = format!("{key}.path");
    let path = ctx
        .string(get(m, "path"), &pk)?
        .ok_or_else(|| RecipeError::MissingKey { at: ctx.site(&pk) })?;
    Ok(Item {
        path,
        format: parse_format(ctx, get(m, "format"), &format!("{key}.format"))?,
        target: ctx.string(get(m, "target"), &format!("{key}.target"))?,
        channel: parse_channel_ref(ctx, m, &format!("{key}.channel"), profiles)?,
        source_language: ctx
            .string(get(m, "source_language"), &format!("{key}.source_language"))?,
        target_languages: ctx.strings(
            get(m, "target_languages"),
            &format!("{key}.target_languages"),
        )?,
        raw: m.clone(),
    })
}

fn parse_collection(
    ctx: &Ctx<'_>,
    v: &Value,
    i: usize,
    profiles: &[Profile],
) -> Result<Collection, RecipeError> {
    let key = format!("collections[{i}]");
    let m = ctx.mapping(v, &key)?;
    let name = ctx.string(get(m, "name"), &format!("{key}.name"))?;
    let Some(name) = name else {
        // A bare entry.
        for k in ["channel", "content"] {
            if present(m, k) {
                return Err(RecipeError::BareEntryKey {
                    at: ctx.site(&format!("{key}.{k}")),
                });
            }
        }
        let mut item = parse_item(ctx, m, &key, profiles)?;
        check_glob(ctx, &item.path, &format!("{key}.path"))?;
        item.channel = None;
        return Ok(Collection {
            content: vec![item],
            ..Collection::default()
        });
    };
    if present(m, "path") {
        return Err(RecipeError::NamedCollectionWithPath {
            at: ctx.site(&format!("{key}.path")),
        });
    }
    let ck = format!("{key}.content");
    let content = match get(m, "content") {
        None | Some(Value::Null) => return Err(RecipeError::EmptyContent { at: ctx.site(&ck) }),
        Some(Value::Sequence(seq)) if seq.is_empty() => {
            return Err(RecipeError::EmptyContent { at: ctx.site(&ck) });
        }
        Some(Value::Sequence(seq)) => {
            let mut items = Vec::with_capacity(seq.len());
            for (j, item) in seq.iter().enumerate() {
                let ik = format!("{ck}[{j}]");
                items.push(parse_item(ctx, ctx.mapping(item, &ik)?, &ik, profiles)?);
            }
            items
        }
        Some(_) => return Err(ctx.wrong(&ck, "a list of items")),
    };
    let base = ctx.string(get(m, "base"), &format!("{key}.base"))?;
    for (j, item) in content.iter().enumerate() {
        check_glob(
            ctx,
            &super::collections::join(base.as_deref(), &item.path),
            &format!("{ck}[{j}].path"),
        )?;
    }
    Ok(Collection {
        name: Some(name),
        base,
        channel: parse_channel_ref(ctx, m, &format!("{key}.channel"), profiles)?,
        source_language: ctx
            .string(get(m, "source_language"), &format!("{key}.source_language"))?,
        target_languages: ctx.strings(
            get(m, "target_languages"),
            &format!("{key}.target_languages"),
        )?,
        content,
        raw: m.clone(),
    })
}

fn parse_gate(ctx: &Ctx<'_>, m: &Mapping, key: &str) -> Result<GateSpec, RecipeError> {
    let fk = if key.is_empty() {
        "gates.fail_on".to_owned()
    } else {
        format!("{key}.fail_on")
    };
    let sk = if key.is_empty() {
        "gates.min_score".to_owned()
    } else {
        format!("{key}.min_score")
    };
    let fail_on = match ctx.string(get(m, "fail_on"), &fk)? {
        None => None,
        Some(f) => Some(match f.as_str() {
            "critical" => FailOn::Critical,
            "major" => FailOn::Major,
            "minor" => FailOn::Minor,
            "none" => FailOn::None,
            _ => {
                return Err(RecipeError::BadFailOn {
                    at: ctx.site(&fk),
                    found: f,
                });
            }
        }),
    };
    let min_score = match get(m, "min_score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(s) if s > 100 => {
                return Err(RecipeError::MinScoreTooHigh {
                    at: ctx.site(&sk),
                    found: s,
                });
            }
            Some(s) => Some(u32::try_from(s).unwrap_or(100)),
            None => return Err(ctx.wrong(&sk, "a whole number from 0 to 100")),
        },
        Some(_) => return Err(ctx.wrong(&sk, "a whole number from 0 to 100")),
    };
    Ok(GateSpec { fail_on, min_score })
}

fn parse_gates(ctx: &Ctx<'_>, m: &Mapping) -> Result<GateConfig, RecipeError> {
    let default = parse_gate(ctx, m, "")?;
    let (ship, ship_raw) = match get(m, "ship") {
        None | Some(Value::Null) => (GateSpec::default(), None),
        Some(v) => {
            let sm = ctx.mapping(v, "gates.ship")?;
            (parse_gate(ctx, sm, "gates.ship")?, Some(sm.clone()))
        }
    };
    Ok(GateConfig {
        default,
        ship,
        raw: m.clone(),
        ship_raw,
    })
}

// ---------------------------------------------------------------------------------------------
// Saving: known keys are written into the original mapping.

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

fn strs(list: &[String]) -> Value {
    Value::Sequence(list.iter().map(|x| s(x)).collect())
}

/// Sets `key` in place (keeping its position), appends it if new, or removes it for `None`.
fn set(m: &mut Mapping, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            m.insert(s(key), v);
        }
        None => {
            m.shift_remove(key);
        }
    }
}

impl VoiceRef {
    fn to_value(&self) -> Value {
        if self.short && self.raw.is_empty() {
            return s(&self.profile_file);
        }
        let mut m = self.raw.clone();
        set(&mut m, "profile_file", Some(s(&self.profile_file)));
        Value::Mapping(m)
    }
}

impl Defaults {
    fn to_mapping(&self) -> Mapping {
        let mut m = self.raw.clone();
        set(
            &mut m,
            "source_language",
            self.source_language.as_deref().map(s),
        );
        set(
            &mut m,
            "target_languages",
            self.target_languages.as_deref().map(strs),
        );
        set(&mut m, "voice", self.voice.as_ref().map(VoiceRef::to_value));
        set(&mut m, "terms_source", self.terms_source.as_deref().map(s));
        let keep = !self.exclude.is_empty() || m.contains_key("exclude");
        set(&mut m, "exclude", keep.then(|| strs(&self.exclude)));
        m
    }
}

impl FormatRef {
    fn to_value(&self) -> Value {
        if self.raw.is_empty() && self.config.is_none() {
            return s(&self.name);
        }
        let mut m = self.raw.clone();
        set(&mut m, "name", Some(s(&self.name)));
        set(&mut m, "config", self.config.clone());
        Value::Mapping(m)
    }
}

impl Item {
    fn write_into(&self, m: &mut Mapping) {
        set(m, "path", Some(s(&self.path)));
        set(m, "format", self.format.as_ref().map(FormatRef::to_value));
        set(m, "target", self.target.as_deref().map(s));
        set(
            m,
            "channel",
            self.channel.as_ref().map(|c| s(&c.to_string())),
        );
        set(m, "source_language", self.source_language.as_deref().map(s));
        set(
            m,
            "target_languages",
            self.target_languages.as_deref().map(strs),
        );
    }
}

impl Collection {
    fn to_value(&self) -> Value {
        let Some(name) = &self.name else {
            let mut m = Mapping::new();
            if let Some(item) = self.content.first() {
                m = item.raw.clone();
                let mut bare = item.clone();
                bare.channel = None;
                bare.write_into(&mut m);
            }
            return Value::Mapping(m);
        };
        let mut m = self.raw.clone();
        set(&mut m, "name", Some(s(name)));
        set(&mut m, "base", self.base.as_deref().map(s));
        set(
            &mut m,
            "channel",
            self.channel.as_ref().map(|c| s(&c.to_string())),
        );
        set(
            &mut m,
            "source_language",
            self.source_language.as_deref().map(s),
        );
        set(
            &mut m,
            "target_languages",
            self.target_languages.as_deref().map(strs),
        );
        let items = self
            .content
            .iter()
            .map(|item| {
                let mut im = item.raw.clone();
                item.write_into(&mut im);
                Value::Mapping(im)
            })
            .collect();
        set(&mut m, "content", Some(Value::Sequence(items)));
        Value::Mapping(m)
    }
}

impl Profile {
    fn to_mapping(&self) -> Mapping {
        let mut m = self.raw.clone();
        let channels: Vec<Value> = self
            .channels
            .iter()
            .map(|c| match (&c.raw, &c.concept) {
                (None, None) => s(&c.id),
                (raw, concept) => {
                    let mut cm = raw.clone().unwrap_or_default();
                    set(&mut cm, "id", Some(s(&c.id)));
                    set(&mut cm, "concept", concept.as_deref().map(s));
                    Value::Mapping(cm)
                }
            })
            .collect();
        let keep = !channels.is_empty() || m.contains_key("channels");
        set(
            &mut m,
            "channels",
            keep.then_some(Value::Sequence(channels)),
        );
        set(&mut m, "voice", self.voice.as_ref().map(VoiceRef::to_value));
        set(&mut m, "termstore", self.termstore.as_deref().map(s));
        set(&mut m, "concept", self.concept.as_deref().map(s));
        set(
            &mut m,
            "valid_from",
            self.valid_from.as_ref().map(|b| s(&b.text)),
        );
        set(
            &mut m,
            "valid_to",
            self.valid_to.as_ref().map(|b| s(&b.text)),
        );
        m
    }
}

fn gate_into(m: &mut Mapping, g: &GateSpec) {
    set(m, "fail_on", g.fail_on.map(|f| s(f.as_str())));
    set(
        m,
        "min_score",
        g.min_score.map(|n| Value::Number(u64::from(n).into())),
    );
}

impl GateConfig {
    fn to_mapping(&self) -> Mapping {
        let mut m = self.raw.clone();
        gate_into(&mut m, &self.default);
        let mut sm = self.ship_raw.clone().unwrap_or_default();
        gate_into(&mut sm, &self.ship);
        let keep = !sm.is_empty() || self.ship_raw.is_some();
        set(&mut m, "ship", keep.then_some(Value::Mapping(sm)));
        m
    }
}

#[cfg(test)]
mod tests;
