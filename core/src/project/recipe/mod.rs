//! The `kapi.yaml` recipe: its typed model, load-time validation with located errors, and a
//! save that writes known keys back into the original YAML so unknown keys survive verbatim.
//! A key kapi does not read is kept and listed ([`Recipe::unknown_keys`], see `keys`), never an
//! error here: the surface says whether it is a warning or, under `--strict`, an error.

mod error;
mod keys;
mod parse;
pub mod providers;
mod rules;
mod save;

use std::fmt;
use std::path::Path;

use serde_yaml::{Mapping, Value};

use crate::check::FailOn;
pub use error::{RecipeError, Site};
pub use keys::{MAX_UNKNOWN_KEYS, UnknownKey};
pub use rules::RuleExclusion;

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
    /// `providers:`, by name, in recipe order.
    pub providers: Vec<providers::ProviderSpec>,
    /// `rules:`, in recipe order ([`Recipe::rule_exclusions`], [`Recipe::excludes`]).
    rules: Vec<RuleExclusion>,
    /// The keys kapi does not read, in file order ([`Recipe::unknown_keys`]).
    unknown: Vec<UnknownKey>,
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
            providers: Vec::new(),
            rules: Vec::new(),
            unknown: Vec::new(),
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
    /// `defaults.vale`: a Vale configuration (`.vale.ini`), relative to the root, whose styles
    /// every path runs unless its profile names another.
    pub vale: Option<String>,
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
    /// `locales:`: each BCP 47 tag of the project with the code this collection's files use
    /// for it (`de: de-DE`, `pt-BR: pt-rBR`), in recipe order ([`crate::project::locales`]).
    pub locales: Vec<(String, String)>,
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
    /// `generated: true`: kapi writes this item's target files (`translate`, `up`), so a hand
    /// edit of one is refused by the pre-edit hook; by default a target is a person's work,
    /// editable by hand.
    pub generated: bool,
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
    /// `profiles.<p>.vale`: the Vale configuration of the profile's paths.
    pub vale: Option<String>,
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

    /// The keys kapi does not read where they stand, in file order, as parsed (a recipe built
    /// in code has none; at most [`MAX_UNKNOWN_KEYS`]): kept on save, and named by every
    /// surface that loads the recipe.
    pub fn unknown_keys(&self) -> &[UnknownKey] {
        &self.unknown
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
}

/// Every `profile/channel` the profiles declare, in order.
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

pub use crate::suggest::is_slug;

#[cfg(test)]
mod tests;
