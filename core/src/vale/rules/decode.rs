//! Reads a rule file's YAML mapping field by field, with the weak typing Vale's decoder
//! (`mapstructure`, `WeaklyTypedInput`) applies, so a file Vale loads loads here too.
//!
//! Choices, each Vale's: keys match case-insensitively; a scalar where a list is expected is a
//! one-item list; numbers and booleans read as strings (`true` → `1`, as Go's decoder writes
//! it), strings as booleans (`true`, `t`, `1`, …) and numbers; a key the rule kind does not
//! know is an error (`ErrorUnused`), except for `consistency`, which Vale decodes leniently.

use serde_yaml::Value;

use super::RuleError;

/// A rule file's top-level mapping, its keys taken out as they are read.
pub(crate) struct Decoder {
    pub(crate) file: String,
    fields: Vec<(String, Value)>,
}

impl Decoder {
    /// The top-level mapping of `yaml`, or the YAML error.
    pub(crate) fn new(file: &str, yaml: &str) -> Result<Self, RuleError> {
        let value: Value = serde_yaml::from_str(yaml).map_err(|e| RuleError::Yaml {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
        let Value::Mapping(map) = value else {
            return Err(RuleError::Yaml {
                file: file.to_owned(),
                message: "a rule file is a mapping of keys".to_owned(),
            });
        };
        let fields = map
            .into_iter()
            .map(|(k, v)| (scalar(&k).unwrap_or_default().to_lowercase(), v))
            .collect();
        Ok(Self {
            file: file.to_owned(),
            fields,
        })
    }

    fn bad(&self, key: &str, expected: &str) -> RuleError {
        RuleError::Field {
            file: self.file.clone(),
            key: key.to_owned(),
            expected: expected.to_owned(),
        }
    }

    /// The value of `key`, taken out; `None` when absent or null.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        let at = self.fields.iter().position(|(k, _)| k == key)?;
        let (_, v) = self.fields.remove(at);
        (!v.is_null()).then_some(v)
    }

    /// Whether `key` is present (even when null).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.fields.iter().any(|(k, _)| k == key)
    }

    pub(crate) fn string(&mut self, key: &str) -> Result<String, RuleError> {
        match self.take(key) {
            None => Ok(String::new()),
            Some(v) => scalar(&v).ok_or_else(|| self.bad(key, "a string")),
        }
    }

    pub(crate) fn strings(&mut self, key: &str) -> Result<Vec<String>, RuleError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Sequence(items)) => items
                .iter()
                .map(|v| match v {
                    Value::Null => Some(String::new()),
                    v => scalar(v),
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| self.bad(key, "a list of strings")),
            Some(v) => scalar(&v)
                .map(|s| vec![s])
                .ok_or_else(|| self.bad(key, "a list of strings")),
        }
    }

    pub(crate) fn bool(&mut self, key: &str, default: bool) -> Result<bool, RuleError> {
        match self.take(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(b),
            Some(Value::Number(n)) => Ok(n.as_f64().is_some_and(|f| f != 0.0)),
            Some(Value::String(s)) => match s.as_str() {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
                "" | "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
                _ => Err(self.bad(key, "true or false")),
            },
            Some(_) => Err(self.bad(key, "true or false")),
        }
    }

    pub(crate) fn float(&mut self, key: &str) -> Result<f64, RuleError> {
        match self.take(key) {
            None => Ok(0.0),
            Some(Value::Bool(b)) => Ok(if b { 1.0 } else { 0.0 }),
            Some(Value::Number(n)) => n.as_f64().ok_or_else(|| self.bad(key, "a number")),
            Some(Value::String(s)) if s.is_empty() => Ok(0.0),
            Some(Value::String(s)) => s.trim().parse().map_err(|_| self.bad(key, "a number")),
            Some(_) => Err(self.bad(key, "a number")),
        }
    }

    /// A whole number; a negative one reads as 0 (every count Vale reads is "at most").
    pub(crate) fn count(&mut self, key: &str) -> Result<usize, RuleError> {
        let f = self.float(key)?;
        if f.is_finite() && f > 0.0 {
            // Truncated, as Go converts a float to an int.
            Ok(f.min(usize::MAX as f64) as usize)
        } else {
            Ok(0)
        }
    }

    /// A mapping of strings, in the file's order.
    pub(crate) fn string_map(&mut self, key: &str) -> Result<Vec<(String, String)>, RuleError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Mapping(map)) => map
                .iter()
                .map(|(k, v)| {
                    let value = if v.is_null() {
                        Some(String::new())
                    } else {
                        scalar(v)
                    };
                    Some((scalar(k)?, value?))
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| self.bad(key, "a mapping of strings")),
            Some(_) => Err(self.bad(key, "a mapping of strings")),
        }
    }

    /// The raw value of `key` (for a field read as a whole: `tokens` of `sequence`).
    pub(crate) fn value(&mut self, key: &str) -> Option<Value> {
        self.take(key)
    }

    /// An error for the first key left unread, as Vale's decoder gives one.
    pub(crate) fn finish(self, strict: bool) -> Result<(), RuleError> {
        match self.fields.into_iter().next() {
            Some((key, _)) if strict => Err(RuleError::UnknownKey {
                file: self.file,
                key,
            }),
            _ => Ok(()),
        }
    }
}

/// A scalar as a string, with Go's weak conversions; `None` for a list or a mapping.
pub(crate) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_owned()),
        Value::Null => Some(String::new()),
        Value::Tagged(t) => scalar(&t.value),
        Value::Sequence(_) | Value::Mapping(_) => None,
    }
}
