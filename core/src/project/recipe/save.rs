//! Saving `kapi.yaml`: known keys are written into the original mapping, in place, so unknown
//! keys and key order survive.

use serde_yaml::{Mapping, Value};

use super::*;

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

/// Sets `source_language` and `target_languages` as [`set`] does each: the defaults, a
/// collection and an item all carry the pair.
fn set_languages(m: &mut Mapping, source: Option<&str>, targets: Option<&[String]>) {
    set(m, "source_language", source.map(s));
    set(m, "target_languages", targets.map(strs));
}

/// `locales:` as a mapping, `None` (the key removed) when there are none.
fn locales_value(locales: &[(String, String)]) -> Option<Value> {
    (!locales.is_empty()).then(|| {
        Value::Mapping(
            locales
                .iter()
                .map(|(tag, code)| (s(tag), s(code)))
                .collect(),
        )
    })
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
        set_languages(
            &mut m,
            self.source_language.as_deref(),
            self.target_languages.as_deref(),
        );
        set(&mut m, "voice", self.voice.as_ref().map(VoiceRef::to_value));
        set(&mut m, "terms_source", self.terms_source.as_deref().map(s));
        set(&mut m, "vale", self.vale.as_deref().map(s));
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
        set_languages(
            m,
            self.source_language.as_deref(),
            self.target_languages.as_deref(),
        );
        // `false` is the default: written only when the file says so already.
        if self.generated {
            set(m, "generated", Some(Value::Bool(true)));
        } else if m
            .get("generated")
            .is_some_and(|v| v.as_bool() == Some(true))
        {
            set(m, "generated", None);
        }
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
                set(&mut m, "locales", locales_value(&self.locales));
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
        set_languages(
            &mut m,
            self.source_language.as_deref(),
            self.target_languages.as_deref(),
        );
        set(&mut m, "locales", locales_value(&self.locales));
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
        set(&mut m, "vale", self.vale.as_deref().map(s));
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

impl Recipe {
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
