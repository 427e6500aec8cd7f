//! The keys kapi reads in `kapi.yaml`, and the pass that names every other one
//! ([`UnknownKey`]): where it sits, and the key it most likely means.
//!
//! A key kapi does not read is kept (a save writes it back) and does nothing, so the person who
//! typed `defaults.languages` for `defaults.target_languages` would never learn why no file is
//! translated: the surfaces name each one on every run (`--strict` makes it an error). Choices:
//!
//! - A key that starts with `x-` is the person's own (the extension fields of docker compose and
//!   OpenAPI), at every level where kapi gives the keys, and is never named.
//! - Free-form values (`format.config`) are not walked, nor `providers` (strict where it is
//!   parsed: a key there could hold a secret, so an unknown one is an error).
//! - A key kapi reads elsewhere says where it goes: a named collection's `format` or `target`
//!   belongs on its items, an item's `base` on its collection, and a key that is another
//!   section's (`exclude` at the top) names its place (`defaults.exclude`).
//! - The suggestion is a sibling key spelled close to it or made of the same words
//!   ([`crate::suggest::closest_key`]), else a key of `defaults`, `gates` or the top level made
//!   of the same words (`min_score` under `defaults` is `gates.min_score`); spelling alone is
//!   too weak a tie across sections (`note` on an item is not the project's `name`).
//! - The pass runs on a recipe that parsed, so each value has the type parse checked; the keys
//!   are listed in the order they stand in the file, at most [`MAX_UNKNOWN_KEYS`] of them.

use std::path::Path;

use serde_yaml::{Mapping, Value};

use super::Site;
use crate::yaml_text::{Outline, Segment};

/// The top-level keys (`content` and `coordinates` are retired: parse refuses them).
const TOP: &[&str] = &[
    "version",
    "name",
    "defaults",
    "collections",
    "profiles",
    "gates",
    "providers",
    "rules",
];
const DEFAULTS: &[&str] = &[
    "source_language",
    "target_languages",
    "voice",
    "terms_source",
    "vale",
    "exclude",
];
/// A voice binding's mapping form (`profile` and `pack` parse as unsupported sources).
const VOICE: &[&str] = &["profile_file", "profile", "pack"];
/// A named collection (`path` is refused by parse).
const NAMED: &[&str] = &[
    "name",
    "base",
    "channel",
    "source_language",
    "target_languages",
    "locales",
    "content",
    "path",
];
/// An item under a named collection's `content`.
const ITEM: &[&str] = &[
    "path",
    "format",
    "target",
    "channel",
    "source_language",
    "target_languages",
    "generated",
];
/// A bare entry: an item (`channel` and `content` are refused by parse), with `name` empty.
const BARE: &[&str] = &[
    "path",
    "format",
    "target",
    "channel",
    "source_language",
    "target_languages",
    "locales",
    "name",
    "content",
    "generated",
];
const FORMAT: &[&str] = &["name", "config"];
const PROFILE: &[&str] = &[
    "channels",
    "voice",
    "termstore",
    "vale",
    "concept",
    "valid_from",
    "valid_to",
];
const CHANNEL: &[&str] = &["id", "concept"];
const GATES: &[&str] = &["fail_on", "min_score", "ship"];
const SHIP: &[&str] = &["fail_on", "min_score"];
/// One `rules.<rule>` entry.
pub(super) const RULE: &[&str] = &["exclude", "enable", "allow"];

/// The most unknown keys listed: each is located with a scan of the outline, and a surface
/// names each one, so a recipe of thousands costs neither time nor a screen of warnings.
pub const MAX_UNKNOWN_KEYS: usize = 50;

/// A key in `kapi.yaml` that kapi does not read where it stands, so it does nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The file, the key's path (`defaults.languages`), and its line and column (the nearest
    /// enclosing key's when it is written in flow style).
    pub at: Site,
    /// The key it most likely means, as a path (`defaults.target_languages`).
    pub meant: Option<String>,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// No key of that name is read here.
    Unknown,
    /// A key of another section (`meant` names it).
    Elsewhere,
    /// A key read on another kind of entry: where it stands (`on a named collection`) and
    /// where it goes.
    Misplaced { here: &'static str, fix: String },
}

impl UnknownKey {
    /// What is wrong, without the location: ``` `defaults.languages` is not a key kapi reads ```.
    pub fn problem(&self) -> String {
        let key = &self.at.key;
        match &self.kind {
            Kind::Unknown => format!("`{key}` is not a key kapi reads"),
            Kind::Elsewhere => format!("`{key}` does nothing here"),
            Kind::Misplaced { here, .. } => format!("`{key}` does nothing {here}"),
        }
    }

    /// The fix, when one is known: ``did you mean `defaults.target_languages`?``.
    pub fn fix(&self) -> Option<String> {
        match (&self.kind, &self.meant) {
            (Kind::Misplaced { fix, .. }, _) => Some(fix.clone()),
            (_, Some(meant)) => Some(format!("did you mean `{meant}`?")),
            (_, None) => None,
        }
    }

    /// The one-line warning, without the location: the problem, what it means, the fix.
    pub fn message(&self) -> String {
        let mut out = self.problem();
        if self.kind == Kind::Unknown {
            out.push_str(", so it does nothing");
        }
        if let Some(fix) = self.fix() {
            out.push_str("; ");
            out.push_str(&fix);
        }
        out
    }
}

impl std::fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message())
    }
}

/// One part of a key's path.
#[derive(Debug, Clone)]
enum Part {
    Key(String),
    Index(usize),
}

fn key(k: &str) -> Part {
    Part::Key(k.to_owned())
}

/// `collections[1].content[0].format`.
fn display(path: &[Part]) -> String {
    let mut out = String::new();
    for part in path {
        match part {
            Part::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Part::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The site of `path` in the file: its own line and column, else its nearest written parent's.
fn site_of(file: &Path, outline: &Outline, path: &[Part]) -> Site {
    let segments: Vec<Segment<'_>> = path
        .iter()
        .map(|p| match p {
            Part::Key(k) => Segment::Key(k),
            Part::Index(i) => Segment::Index(*i),
        })
        .collect();
    let found = (1..=segments.len())
        .rev()
        .find_map(|n| outline.locate_segments(&segments[..n]));
    Site {
        file: file.to_path_buf(),
        key: display(path),
        line: found.map(|f| f.0),
        column: found.map(|f| f.1),
    }
}

/// The site of the key `name` under `parent` (dotted, no indices: `rules`), the key located as
/// one part even when it holds a `.` (a rule id).
pub(super) fn site_under(file: &Path, outline: &Outline, parent: &str, name: &str) -> Site {
    let mut path: Vec<Part> = parent
        .split('.')
        .filter(|p| !p.is_empty())
        .map(key)
        .collect();
    path.push(key(name));
    site_of(file, outline, &path)
}

/// The site of `rules.<rule>.<rest…>`.
pub(super) fn site_in_rule(file: &Path, outline: &Outline, rule: &str, rest: &[&str]) -> Site {
    let mut path = vec![key("rules"), key(rule)];
    path.extend(rest.iter().map(|k| key(k)));
    site_of(file, outline, &path)
}

/// Where a key that kapi reads on another kind of entry goes, for one kind of mapping.
type Placement = fn(&str) -> Option<(&'static str, String)>;

fn on_named(k: &str) -> Option<(&'static str, String)> {
    matches!(k, "format" | "target" | "generated").then(|| {
        (
            "on a named collection",
            format!("give each item under `content` its own `{k}`"),
        )
    })
}

fn on_item(k: &str) -> Option<(&'static str, String)> {
    matches!(k, "base" | "content" | "name" | "locales").then(|| {
        (
            "on an item",
            format!("put `{k}` on the collection, beside `content`"),
        )
    })
}

fn on_bare(k: &str) -> Option<(&'static str, String)> {
    (k == "base").then(|| {
        (
            "on a bare entry",
            "give the entry a `name` and move its glob into an item under `content` to use `base`"
                .to_owned(),
        )
    })
}

fn nowhere(_: &str) -> Option<(&'static str, String)> {
    None
}

/// Every key in `kapi.yaml` that kapi does not read where it stands, in file order.
pub(super) fn unknown_keys(raw: &Mapping, file: &Path, outline: &Outline) -> Vec<UnknownKey> {
    let mut walk = Walk {
        file,
        outline,
        found: Vec::new(),
    };
    walk.keys(raw, &[], TOP, nowhere);
    let section = |k: &str| raw.get(k).and_then(Value::as_mapping);
    if let Some(d) = section("defaults") {
        let path = [key("defaults")];
        walk.keys(d, &path, DEFAULTS, nowhere);
        walk.voice(d, &path);
    }
    if let Some(Value::Sequence(seq)) = raw.get("collections") {
        for (i, c) in seq.iter().enumerate() {
            if let Some(m) = c.as_mapping() {
                walk.collection(m, &[key("collections"), Part::Index(i)]);
            }
        }
    }
    if let Some(profiles) = section("profiles") {
        for (name, p) in profiles {
            if let (Some(name), Some(m)) = (name.as_str(), p.as_mapping()) {
                walk.profile(m, &[key("profiles"), key(name)]);
            }
        }
    }
    if let Some(g) = section("gates") {
        let path = [key("gates")];
        walk.keys(g, &path, GATES, nowhere);
        if let Some(ship) = g.get("ship").and_then(Value::as_mapping) {
            walk.keys(ship, &[key("gates"), key("ship")], SHIP, nowhere);
        }
    }
    if let Some(rules) = section("rules") {
        for (rule, entry) in rules {
            if let (Some(rule), Some(m)) = (rule.as_str(), entry.as_mapping()) {
                walk.keys(m, &[key("rules"), key(rule)], RULE, nowhere);
            }
        }
    }
    let mut found = walk.found;
    found.sort_by_key(|k| (k.at.line.unwrap_or(usize::MAX), k.at.column.unwrap_or(0)));
    found
}

struct Walk<'a> {
    file: &'a Path,
    outline: &'a Outline,
    found: Vec<UnknownKey>,
}

impl Walk<'_> {
    /// Names each key of `m` (at `path`) that is not in `known` and not the person's (`x-`).
    fn keys(&mut self, m: &Mapping, path: &[Part], known: &[&str], placement: Placement) {
        for k in m.keys() {
            let name = match k {
                Value::String(s) => s.clone(),
                other => serde_yaml::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            };
            if known.contains(&name.as_str()) || name.starts_with("x-") {
                continue;
            }
            if self.found.len() >= MAX_UNKNOWN_KEYS {
                return;
            }
            let mut at = path.to_vec();
            at.push(key(&name));
            let site = site_of(self.file, self.outline, &at);
            let prefix = display(path);
            let full = |k: &str| {
                if prefix.is_empty() {
                    k.to_owned()
                } else {
                    format!("{prefix}.{k}")
                }
            };
            let unknown = if let Some((here, fix)) = placement(&name) {
                UnknownKey {
                    at: site,
                    meant: None,
                    kind: Kind::Misplaced { here, fix },
                }
            } else if let Some(near) = crate::suggest::closest_key(&name, known) {
                UnknownKey {
                    at: site,
                    meant: Some(full(near)),
                    kind: Kind::Unknown,
                }
            } else {
                let meant = elsewhere(&name, &prefix);
                let kind = if meant.is_some() {
                    Kind::Elsewhere
                } else {
                    Kind::Unknown
                };
                UnknownKey {
                    at: site,
                    meant,
                    kind,
                }
            };
            self.found.push(unknown);
        }
    }

    fn voice(&mut self, m: &Mapping, path: &[Part]) {
        if let Some(v) = m.get("voice").and_then(Value::as_mapping) {
            let mut at = path.to_vec();
            at.push(key("voice"));
            self.keys(v, &at, VOICE, nowhere);
        }
    }

    fn format(&mut self, m: &Mapping, path: &[Part]) {
        if let Some(f) = m.get("format").and_then(Value::as_mapping) {
            let mut at = path.to_vec();
            at.push(key("format"));
            self.keys(f, &at, FORMAT, nowhere);
        }
    }

    /// A collection: named when `name` holds a value (as parse reads it), else a bare entry.
    fn collection(&mut self, m: &Mapping, path: &[Part]) {
        let named = !matches!(m.get("name"), None | Some(Value::Null));
        if !named {
            self.keys(m, path, BARE, on_bare);
            self.format(m, path);
            return;
        }
        self.keys(m, path, NAMED, on_named);
        if let Some(Value::Sequence(items)) = m.get("content") {
            for (j, item) in items.iter().enumerate() {
                if let Some(im) = item.as_mapping() {
                    let mut at = path.to_vec();
                    at.extend([key("content"), Part::Index(j)]);
                    self.keys(im, &at, ITEM, on_item);
                    self.format(im, &at);
                }
            }
        }
    }

    fn profile(&mut self, m: &Mapping, path: &[Part]) {
        self.keys(m, path, PROFILE, nowhere);
        self.voice(m, path);
        if let Some(Value::Sequence(channels)) = m.get("channels") {
            for (k, c) in channels.iter().enumerate() {
                if let Some(cm) = c.as_mapping() {
                    let mut at = path.to_vec();
                    at.extend([key("channels"), Part::Index(k)]);
                    self.keys(cm, &at, CHANNEL, nowhere);
                }
            }
        }
    }
}

/// The key of another section that `name` (found under `prefix`) most likely means: a top-level
/// key, or one of `defaults` or `gates`.
fn elsewhere(name: &str, prefix: &str) -> Option<String> {
    let sections: [(&str, &[&str]); 3] = [("", TOP), ("defaults", DEFAULTS), ("gates", SHIP)];
    let mut paths: Vec<String> = Vec::new();
    let mut lasts: Vec<&str> = Vec::new();
    for (section, keys) in sections {
        if section == prefix {
            continue;
        }
        for k in keys {
            paths.push(if section.is_empty() {
                (*k).to_owned()
            } else {
                format!("{section}.{k}")
            });
            lasts.push(k);
        }
    }
    let near = crate::suggest::by_words(name, &lasts)?;
    let at = lasts.iter().position(|k| *k == near)?;
    paths.get(at).cloned()
}
