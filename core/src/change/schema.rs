//! The JSON Schema of `kapi.change/v1` (draft 2020-12), published by `kapi schema change` and
//! used as the input schema of the MCP `apply_edits` tool, so both surfaces take one shape.
//! It is built from the decoder's own field lists (`decode::shape`, one per object,
//! and `decode::KINDS`, the operation kinds), so a field the decoder takes is a
//! field the schema declares. The decoder is stricter than the schema in one place only: a
//! recipe `value` must have the type its `field` takes.

use serde_json::{Map, Value, json};

use super::decode::shape::{self, Holds, Shape};
use super::decode::{KINDS, MAX_OPERATIONS};

/// The change set's JSON Schema.
pub fn change() -> Value {
    let mut top = Map::new();
    top.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    top.insert("$id".into(), json!("kapi.change/v1"));
    top.insert("title".into(), json!("kapi change set"));
    top.insert(
        "description".into(),
        json!(
            "Operations applied whole or not at all. Also accepted as JSON lines: one operation object per line, optionally led by {\"schema\": \"kapi.change/v1\", \"gate\": …}."
        ),
    );
    top.extend(object(&shape::DOCUMENT));
    Value::Object(top)
}

/// One object's schema: closed (`additionalProperties: false`), its required fields, its
/// description, and a property per field.
fn object(shape: &Shape) -> Map<String, Value> {
    let required: Vec<&str> = shape
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("additionalProperties".into(), json!(false));
    out.insert("required".into(), json!(required));
    if let Some(description) = shape.description {
        out.insert("description".into(), json!(description));
    }
    let properties: Map<String, Value> = shape
        .fields
        .iter()
        .map(|f| (f.name.to_owned(), property(shape, &f.holds)))
        .collect();
    out.insert("properties".into(), Value::Object(properties));
    out
}

/// A field's schema.
fn property(shape: &Shape, holds: &Holds) -> Value {
    match holds {
        Holds::Op => json!({"const": shape.op}),
        Holds::Value(schema) => schema(),
        Holds::Object(inner) => Value::Object(object(inner)),
        Holds::Operations => {
            let kinds: Vec<Value> = KINDS
                .iter()
                .map(|k| Value::Object(object(k.shape)))
                .collect();
            json!({"type": "array", "maxItems": MAX_OPERATIONS, "items": {"oneOf": kinds}})
        }
    }
}

#[cfg(test)]
mod tests;
