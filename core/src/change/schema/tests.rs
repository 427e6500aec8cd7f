//! The schema and the decoder agree: walking the JSON Schema, every operation kind and every
//! property it declares (each value an enum allows) decodes; every field the schema requires
//! is one decode refuses to go without, and no optional one is; and decode refuses any field
//! the schema does not declare, at every level.

use serde_json::{Map, Value, json};

use super::change;
use crate::change::SCHEMA;
use crate::change::decode::{DecodeError, RECIPE_FIELDS, decode};
use crate::governance::terms_edit::TermUpsert;

fn properties(object: &Value) -> &Map<String, Value> {
    object["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("no properties in {object}"))
}

fn required(object: &Value) -> Vec<&str> {
    object["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The operation kinds the schema lists, by `op`.
fn kinds(schema: &Value) -> Vec<(&str, &Value)> {
    let items = schema["properties"]["operations"]["items"]["oneOf"]
        .as_array()
        .expect("operations.items.oneOf");
    items
        .iter()
        .map(|kind| {
            let op = kind["properties"]["op"]["const"]
                .as_str()
                .expect("op const");
            (op, kind)
        })
        .collect()
}

/// Values a property's schema allows: every `enum` value, the `const`, or one or two of its
/// type (bounds included). `value` (no type) gets a placeholder [`complete`] replaces.
fn samples(property: &Value) -> Vec<Value> {
    if let Some(c) = property.get("const") {
        return vec![c.clone()];
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return values.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") if property.get("pattern").is_some() => {
            vec![json!("*"), json!("r0123456789abcdef")]
        }
        Some("string") => vec![json!("x")],
        Some("integer") => {
            let low = property.get("minimum").and_then(Value::as_u64).unwrap_or(1);
            let mut out = vec![json!(low)];
            if let Some(high) = property.get("maximum").and_then(Value::as_u64) {
                out.push(json!(high));
            }
            out
        }
        Some("array") => {
            let item = samples(&property["items"]).remove(0);
            vec![json!([]), json!([item])]
        }
        Some("object") => vec![Value::Object(minimal(property))],
        Some(other) => panic!("no sample for type {other}: {property}"),
        None => vec![json!("placeholder")],
    }
}

/// An object holding only the required properties, each with its first sample.
fn minimal(object: &Value) -> Map<String, Value> {
    let props = properties(object);
    required(object)
        .into_iter()
        .map(|name| (name.to_owned(), samples(&props[name]).remove(0)))
        .collect()
}

/// Adds what decode's rules between fields ask for (no field the schema requires): an
/// `advise` carries a score, a score or reasons go with `advise`, a note needs `text` (or
/// `from` and `to`, when `avoid` is `text`), a recipe `value` has its field's type.
fn complete(op: &str, object: &mut Map<String, Value>, avoid: &str) {
    match op {
        "decide" => {
            let has_extra = object.contains_key("score") || object.contains_key("reasons");
            if has_extra {
                object.insert("outcome".into(), json!("advise"));
            }
            if object["outcome"] == "advise" && !object.contains_key("score") {
                object.insert("score".into(), json!(50));
            }
        }
        "note" => {
            let Some(Value::Object(note)) = object.get_mut("note") else {
                return;
            };
            let person = note.contains_key("from") || note.contains_key("to");
            if person || note.contains_key("suggest") || avoid == "note.text" {
                note.entry("from").or_insert(json!("x"));
                note.entry("to").or_insert(json!("y"));
            } else {
                note.entry("text").or_insert(json!("x"));
            }
        }
        "recipe" => {
            let field = object["field"].as_str().unwrap_or_default();
            let (_, kind) = RECIPE_FIELDS
                .iter()
                .find(|(name, _)| *name == field)
                .expect("a recipe field");
            let value = match *kind {
                "string" => json!("x"),
                "integer" => json!(1),
                _ => json!(["x"]),
            };
            object.insert("value".into(), value);
        }
        _ => {}
    }
}

fn run(op: Map<String, Value>) -> Result<(), DecodeError> {
    let set = json!({"schema": SCHEMA, "operations": [op]});
    decode(set.to_string().as_bytes()).map(|_| ())
}

/// Every property path of an object, with its schema and whether it is required, nested
/// objects' properties included (`at.doc`).
fn paths<'s>(object: &'s Value, prefix: &str, out: &mut Vec<(String, &'s Value, bool)>) {
    let needed = required(object);
    for (name, property) in properties(object) {
        let path = format!("{prefix}{name}");
        out.push((path.clone(), property, needed.contains(&name.as_str())));
        if property.get("type").and_then(Value::as_str) == Some("object") {
            paths(property, &format!("{path}."), out);
        }
    }
}

/// The object at the path's parent and the path's last name.
fn parent<'m, 'p>(
    object: &'m mut Map<String, Value>,
    path: &'p str,
) -> (&'m mut Map<String, Value>, &'p str) {
    let mut names: Vec<&str> = path.split('.').collect();
    let last = names.pop().expect("a name");
    let mut at = object;
    for name in names {
        at = at
            .get_mut(name)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("no object at {name} of {path}"));
    }
    (at, last)
}

/// Every property the schema declares, with every sample value, is accepted.
#[test]
fn every_declared_property_decodes() {
    let schema = change();
    for (op, kind) in kinds(&schema) {
        let mut base = minimal(kind);
        complete(op, &mut base, "");
        run(base.clone()).unwrap_or_else(|e| panic!("{op}: the minimal set {base:?}: {e}"));
        let mut all = Vec::new();
        paths(kind, "", &mut all);
        for (path, property, _) in all {
            for sample in samples(property) {
                let mut object = base.clone();
                let (at, name) = parent(&mut object, &path);
                at.insert(name.to_owned(), sample.clone());
                complete(op, &mut object, "");
                if let Err(e) = run(object.clone()) {
                    panic!("{op}: `{path}` = {sample} is declared but refused: {e}\n{object:?}");
                }
            }
        }
    }
}

/// What the schema requires decode refuses to go without; what it leaves optional, decode does.
#[test]
fn required_in_the_schema_is_what_decode_demands() {
    let schema = change();
    for (op, kind) in kinds(&schema) {
        let mut all = Vec::new();
        paths(kind, "", &mut all);
        for (path, _, is_required) in all {
            let mut object = minimal(kind);
            complete(op, &mut object, &path);
            let (at, name) = parent(&mut object, &path);
            let had = at.remove(name).is_some();
            let result = run(object.clone());
            if is_required {
                assert!(
                    had,
                    "{op}: required `{path}` is missing from the minimal set"
                );
                let e = result.expect_err(&format!("{op}: decoded without required `{path}`"));
                let named = e.field.as_deref() == Some(path.as_str())
                    || (e.message.contains(&format!("missing field `{name}`")));
                assert!(named, "{op}: without `{path}`: {e}");
            } else if let Err(e) = result {
                panic!("{op}: `{path}` is optional in the schema but decode demands it: {e}");
            }
        }
    }
    let bare = decode(json!({"operations": []}).to_string().as_bytes()).unwrap_err();
    assert_eq!(bare.field.as_deref(), Some("schema"));
    let no_ops = decode(json!({"schema": SCHEMA}).to_string().as_bytes()).unwrap_err();
    assert_eq!(no_ops.field.as_deref(), Some("operations"));
}

/// A field the schema does not declare is refused, in every object at every level; the
/// operations decode knows are the ones the schema lists.
#[test]
fn decode_takes_no_field_the_schema_does_not_declare() {
    let schema = change();
    let top = properties(&schema);
    assert_eq!(
        top.keys().collect::<Vec<_>>(),
        ["schema", "gate", "operations"]
    );
    for gate in samples(&top["gate"]) {
        let set = json!({"schema": SCHEMA, "gate": gate, "operations": []});
        decode(set.to_string().as_bytes()).unwrap_or_else(|e| panic!("gate {gate}: {e}"));
    }
    let extra = json!({"schema": SCHEMA, "operations": [], "undeclared": 1});
    let e = decode(extra.to_string().as_bytes()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("undeclared"), "{e}");

    let kinds = kinds(&schema);
    let unknown = decode(br#"{"op":"undeclared"}"#).unwrap_err();
    let names: Vec<&str> = kinds.iter().map(|(op, _)| *op).collect();
    assert_eq!(
        unknown.hint,
        Some(format!("operations: {}", names.join(", ")))
    );

    for (op, kind) in kinds {
        let mut base = minimal(kind);
        complete(op, &mut base, "");
        let mut objects = vec![String::new()];
        let mut all = Vec::new();
        paths(kind, "", &mut all);
        objects.extend(
            all.iter()
                .filter(|(_, p, _)| p.get("type").and_then(Value::as_str) == Some("object"))
                .map(|(path, _, _)| format!("{path}.")),
        );
        for prefix in objects {
            let mut object = base.clone();
            let path = format!("{prefix}undeclared");
            let (at, name) = parent(&mut object, &path);
            at.insert(name.to_owned(), json!("x"));
            let e = run(object).expect_err(&format!("{op}: `{path}` was taken"));
            let named = e.field.as_deref() == Some(path.as_str())
                || e.message.contains("unknown field `undeclared`");
            assert!(named, "{op}: `{path}`: {e}");
        }
    }
}

/// The `term` object is read by serde: the fields [`TermUpsert`] reads are the ones the
/// schema's `term` declares (asked of serde itself, so a new field cannot slip past).
#[test]
fn a_term_reads_exactly_the_declared_fields() {
    use serde::de::{self, Deserialize, Visitor};

    struct FieldNames(Vec<&'static str>);
    impl<'de> de::Deserializer<'de> for &mut FieldNames {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields.to_vec();
            Err(de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut names = FieldNames(Vec::new());
    let _ = TermUpsert::deserialize(&mut names);
    let schema = change();
    let (_, term_op) = kinds(&schema)
        .into_iter()
        .find(|(op, _)| *op == "term")
        .expect("a term operation");
    let declared: Vec<&str> = properties(&term_op["properties"]["term"])
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names.0, declared);
}
