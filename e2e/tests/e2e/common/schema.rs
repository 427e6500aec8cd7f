//! The JSON Schema validator the suite checks each tool's `structuredContent` with, against
//! the `outputSchema` its `tools/list` entry declared ([`super::Server::tool`]).
//!
//! Written here rather than taken from the `jsonschema` crate: that crate, even with
//! `default-features = false`, brings some fifty crates this workspace does not build
//! (ICU's normalizer through `idna`, `num`, `fancy-regex`, …) and measured close to two
//! minutes of extra build on this project's two cores, for a test that needs the handful of
//! keywords schemars writes. This validator knows exactly those: `type`, `properties`,
//! `required`, `additionalProperties`, `items`, `$ref` (to `#/$defs/…`), `anyOf`, `oneOf`,
//! `allOf`, `const`, `enum`, `minimum`, `maximum`, and the `format`s of numbers. Annotations
//! (`description`, `title`, `$schema`, `$defs`, `default`, …) are skipped; any other keyword
//! fails the check, so no constraint is ever passed over unread.
//!
//! One rule is stricter than JSON Schema: an object schema that lists `properties` and says
//! nothing of `additionalProperties` admits no other property. schemars writes
//! `additionalProperties` wherever serde may write keys it does not list (a flattened map), so
//! a field serde writes that the schema does not name is a failure, not a pass.

use serde_json::{Map, Value};

/// Checks `value` against `schema` (its `$defs` the root's); every violation, each with its
/// JSON pointer, else `Ok`.
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    Validator {
        root: schema,
        enclosing: Default::default(),
    }
    .check(schema, value, "", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The keywords that only annotate: they never reject a value.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$defs",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

struct Validator<'a> {
    root: &'a Value,
    /// The property names an object schema with branches knows (its `properties` and every
    /// branch's), by the value's pointer: a branch checked against that same value admits
    /// them too, as the whole object does.
    enclosing: std::cell::RefCell<Vec<(String, std::collections::BTreeSet<String>)>>,
}

impl Validator<'_> {
    fn check(&self, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return errors.push(format!("{at}: no value is allowed here")),
            Value::Object(object) => object,
            other => return errors.push(format!("{at}: the schema is not a schema: {other}")),
        };
        let branched = ["anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| object.contains_key(*k));
        if branched && value.is_object() {
            let mut names = std::collections::BTreeSet::new();
            self.branch_properties(object, &mut names, 0);
            let mut names: std::collections::BTreeSet<String> =
                names.into_iter().map(str::to_owned).collect();
            if let Some(props) = object.get("properties").and_then(Value::as_object) {
                names.extend(props.keys().cloned());
            }
            self.enclosing.borrow_mut().push((at.to_owned(), names));
        }
        self.check_keywords(object, value, at, errors);
        if branched && value.is_object() {
            self.enclosing.borrow_mut().pop();
        }
    }

    fn check_keywords(
        &self,
        object: &Map<String, Value>,
        value: &Value,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        for (keyword, rule) in object {
            match keyword.as_str() {
                "type" => self.check_type(rule, value, at, errors),
                "properties" | "additionalProperties" | "required" => {}
                "items" => {
                    if let Value::Array(items) = value {
                        for (i, item) in items.iter().enumerate() {
                            self.check(rule, item, &format!("{at}/{i}"), errors);
                        }
                    }
                }
                "$ref" => match self.resolve(rule) {
                    Some(target) => self.check(target, value, at, errors),
                    None => errors.push(format!("{at}: `$ref` {rule} resolves to nothing")),
                },
                "anyOf" => {
                    let passed = self.branches(rule, value, at, errors);
                    if passed.is_some_and(|n| n == 0) {
                        errors.push(format!("{at}: matches no `anyOf` branch: {value}"));
                    }
                }
                "oneOf" => {
                    let passed = self.branches(rule, value, at, errors);
                    if let Some(n) = passed
                        && n != 1
                    {
                        errors.push(format!(
                            "{at}: matches {n} `oneOf` branches, not one: {value}"
                        ));
                    }
                }
                "allOf" => match rule {
                    Value::Array(all) => {
                        for branch in all {
                            self.check(branch, value, at, errors);
                        }
                    }
                    _ => errors.push(format!("{at}: `allOf` is not an array")),
                },
                "const" => {
                    if rule != value {
                        errors.push(format!("{at}: {value} is not the `const` {rule}"));
                    }
                }
                "enum" => match rule {
                    Value::Array(allowed) if allowed.contains(value) => {}
                    Value::Array(allowed) => errors.push(format!(
                        "{at}: {value} is none of {}",
                        Value::Array(allowed.clone())
                    )),
                    _ => errors.push(format!("{at}: `enum` is not an array")),
                },
                "minimum" | "maximum" => {
                    if let (Some(bound), Some(n)) = (rule.as_f64(), value.as_f64()) {
                        let ok = if keyword == "minimum" {
                            n >= bound
                        } else {
                            n <= bound
                        };
                        if !ok {
                            errors.push(format!("{at}: {n} is past the {keyword} {bound}"));
                        }
                    }
                }
                "format" => check_format(rule, value, at, errors),
                k if ANNOTATIONS.contains(&k) => {}
                other => errors.push(format!(
                    "{at}: the schema uses `{other}`, which this validator does not know"
                )),
            }
        }
        if let Value::Object(fields) = value {
            self.check_object(object, fields, at, errors);
        }
    }

    /// `properties`, `required` and `additionalProperties` (absent: none beyond `properties`
    /// when it is given, see the module doc).
    fn check_object(
        &self,
        schema: &Map<String, Value>,
        fields: &Map<String, Value>,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        let properties = schema.get("properties").and_then(Value::as_object);
        // Beside `anyOf`/`oneOf`/`allOf` (a flattened enum) a branch names the other
        // properties: a property is known when `properties`, any branch, or (checking a
        // branch) the object around it names it.
        let mut named = std::collections::BTreeSet::new();
        self.branch_properties(schema, &mut named, 0);
        let around: std::collections::BTreeSet<String> = self
            .enclosing
            .borrow()
            .iter()
            .filter(|(pointer, _)| pointer == at)
            .flat_map(|(_, names)| names.iter().cloned())
            .collect();
        let around = |name: &str| around.contains(name);
        if let Some(required) = schema.get("required") {
            match required.as_array() {
                Some(names) => {
                    for name in names {
                        let present = name.as_str().is_some_and(|n| fields.contains_key(n));
                        if !present {
                            errors.push(format!("{at}: the required {name} is absent"));
                        }
                    }
                }
                None => errors.push(format!("{at}: `required` is not an array")),
            }
        }
        for (name, field) in fields {
            let here = format!("{at}/{name}");
            match (
                properties.and_then(|p| p.get(name)),
                schema.get("additionalProperties"),
            ) {
                (Some(property), _) => self.check(property, field, &here, errors),
                (None, Some(additional)) => self.check(additional, field, &here, errors),
                (None, None)
                    if properties.is_some() && !named.contains(name.as_str()) && !around(name) =>
                {
                    errors.push(format!(
                        "{here}: written, but the schema names no such property"
                    ))
                }
                (None, None) => {}
            }
        }
    }

    /// The property names `schema`'s `anyOf`/`oneOf`/`allOf` branches name, through `$ref`s
    /// and nested branches (`depth` bounds a `$ref` cycle).
    fn branch_properties<'s>(
        &'s self,
        schema: &'s Map<String, Value>,
        named: &mut std::collections::BTreeSet<&'s str>,
        depth: usize,
    ) {
        if depth > 16 {
            return;
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let branch = match branch.get("$ref") {
                    Some(rule) => self.resolve(rule),
                    None => Some(branch),
                };
                let Some(Value::Object(branch)) = branch else {
                    continue;
                };
                if let Some(props) = branch.get("properties").and_then(Value::as_object) {
                    named.extend(props.keys().map(String::as_str));
                }
                self.branch_properties(branch, named, depth + 1);
            }
        }
    }

    /// How many of `rule`'s branches `value` matches (`None`: `rule` is not an array).
    fn branches(
        &self,
        rule: &Value,
        value: &Value,
        at: &str,
        errors: &mut Vec<String>,
    ) -> Option<usize> {
        let Value::Array(branches) = rule else {
            errors.push(format!("{at}: `anyOf`/`oneOf` is not an array"));
            return None;
        };
        Some(
            branches
                .iter()
                .filter(|branch| {
                    let mut inner = Vec::new();
                    self.check(branch, value, at, &mut inner);
                    inner.is_empty()
                })
                .count(),
        )
    }

    fn check_type(&self, rule: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
        let names: Vec<&str> = match rule {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => return errors.push(format!("{at}: `type` is neither a name nor a list")),
        };
        if !names.iter().any(|name| is_type(name, value)) {
            errors.push(format!("{at}: {value} is not of type {rule}"));
        }
    }

    /// A `$ref` to `#/$defs/NAME` (or `#`, the root).
    fn resolve(&self, rule: &Value) -> Option<&Value> {
        let pointer = rule.as_str()?.strip_prefix('#')?;
        self.root.pointer(pointer)
    }
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// The numeric `format`s schemars writes (`uint`, `int64`, `double`, …); a string format is
/// an annotation.
fn check_format(rule: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(format) = rule.as_str() else {
        return errors.push(format!("{at}: `format` is not a string"));
    };
    let Some(n) = value.as_number() else { return };
    let ok = match format {
        f if f.starts_with("uint") => n.is_u64(),
        f if f.starts_with("int") => n.is_i64() || n.is_u64(),
        "float" | "double" => true,
        _ => true,
    };
    if !ok {
        errors.push(format!("{at}: {n} is not a `{format}`"));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::validate;

    #[test]
    fn the_validator_rejects_what_a_schema_excludes() {
        let schema = json!({
            "type": "object",
            "properties": {
                "schema": {"const": "kapi.x/v1"},
                "n": {"type": "integer", "format": "uint", "minimum": 0},
                "kind": {"$ref": "#/$defs/Kind"},
                "items": {"type": "array", "items": {"type": "string"}},
                "note": {"type": ["string", "null"]},
                "map": {"type": "object", "additionalProperties": {"type": "boolean"}},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "required": ["schema", "n"],
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}}
        });
        let good = json!({"schema": "kapi.x/v1", "n": 3, "kind": "a", "items": ["x"],
                          "note": null, "map": {"k": true}, "either": 2});
        assert_eq!(validate(&schema, &good), Ok(()));
        for bad in [
            json!({"schema": "kapi.y/v1", "n": 3}),
            json!({"schema": "kapi.x/v1"}),
            json!({"schema": "kapi.x/v1", "n": -1}),
            json!({"schema": "kapi.x/v1", "n": 1.5}),
            json!({"schema": "kapi.x/v1", "n": 1, "kind": "c"}),
            json!({"schema": "kapi.x/v1", "n": 1, "items": [1]}),
            json!({"schema": "kapi.x/v1", "n": 1, "map": {"k": "yes"}}),
            json!({"schema": "kapi.x/v1", "n": 1, "either": true}),
            json!({"schema": "kapi.x/v1", "n": 1, "extra": 1}),
        ] {
            assert!(validate(&schema, &bad).is_err(), "{bad} passed");
        }
        let unknown = json!({"type": "string", "pattern": "^a"});
        assert!(validate(&unknown, &json!("a")).is_err());
        // A flattened enum: properties beside `oneOf`, whose branches name the others; a
        // property neither names is refused.
        let flattened = json!({
            "type": "object",
            "properties": {"schema": {"const": "kapi.x/v1"}},
            "oneOf": [
                {"properties": {"file": {"type": "string"}}, "required": ["file"]},
                {"$ref": "#/$defs/Text"}
            ],
            "$defs": {"Text": {"properties": {"text": {"type": "string"}}, "required": ["text"]}}
        });
        for good in [
            json!({"schema": "kapi.x/v1", "file": "a.md"}),
            json!({"schema": "kapi.x/v1", "text": "Hi"}),
        ] {
            assert_eq!(validate(&flattened, &good), Ok(()), "{good}");
        }
        let stray = json!({"schema": "kapi.x/v1", "file": "a.md", "stray": 1});
        assert!(validate(&flattened, &stray).is_err(), "{stray} passed");
    }
}
