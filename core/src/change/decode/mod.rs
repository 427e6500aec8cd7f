//! Decoding `kapi.change/v1`: one JSON document `{"schema", "gate", "operations"}`, or a stream
//! of JSON objects (JSON lines), one operation each, optionally led by a header object
//! `{"schema": "kapi.change/v1", "gate": …}`.
//!
//! Decoding is strict: an unknown operation or field, a wrong type, a `doc` that climbs with
//! `..`, a score outside 0–100 or an unknown recipe field is an error naming the operation's index (`operations[3]`), its line and the field.
//! An empty input is an error; an empty `operations` list is a valid set that changes nothing.

mod fields;
mod operations;
pub(crate) mod shape;

use serde_json::{Map, Value};

use super::{ChangeSet, GateMode, SCHEMA};
use fields::{Ctx, unknown_fields};
pub(crate) use operations::KINDS;
pub use operations::MAX_NOTE_CHARS;
use operations::operation;

/// The most operations one change set may hold.
pub const MAX_OPERATIONS: usize = 10_000;
/// The largest change set accepted, in bytes.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Recipe fields a `recipe` operation may set, with the JSON type each takes.
pub const RECIPE_FIELDS: &[(&str, &str)] = &[
    ("name", "string"),
    ("defaults.source_language", "string"),
    ("defaults.target_languages", "array of strings"),
    ("defaults.voice", "string"),
    ("defaults.terms_source", "string"),
    ("defaults.exclude", "array of strings"),
    ("gates.fail_on", "string"),
    ("gates.min_score", "integer"),
    ("gates.ship.fail_on", "string"),
    ("gates.ship.min_score", "integer"),
];

/// A change set that does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(*.index, *.line, .field))]
pub struct DecodeError {
    /// The operation's 0-based index, when the error is in one.
    pub index: Option<usize>,
    /// 1-based line of the input where the object starts (or the JSON error sits).
    pub line: Option<usize>,
    /// The field, as a path inside the operation (`at.doc`).
    pub field: Option<String>,
    pub message: String,
    pub hint: Option<String>,
}

fn location(index: Option<usize>, line: Option<usize>, field: &Option<String>) -> String {
    let mut out = String::new();
    if let Some(line) = line {
        out.push_str(&format!("line {line}: "));
    }
    match (index, field) {
        (Some(i), Some(f)) => out.push_str(&format!("operations[{i}].{f}: ")),
        (Some(i), None) => out.push_str(&format!("operations[{i}]: ")),
        (None, Some(f)) => out.push_str(&format!("{f}: ")),
        (None, None) => {}
    }
    out
}

impl crate::error::Hint for DecodeError {
    fn hints(&self) -> Vec<String> {
        let mut hints: Vec<String> = self.hint.iter().cloned().collect();
        hints.push("`kapi schema change` prints the JSON Schema of a change set".to_owned());
        hints
    }
}

/// Decodes a change set from raw bytes.
pub fn decode(bytes: &[u8]) -> Result<ChangeSet, DecodeError> {
    let text = text_of(bytes)?;
    let values = json_values(text)?;
    // One document with `schema` or `operations`: the document form.
    if let [(line, Value::Object(map))] = values.as_slice()
        && (map.contains_key("operations")
            || (map.contains_key("schema") && !map.contains_key("op")))
    {
        return document(*line, map);
    }
    json_lines(&values)
}

/// The input as text: at most [`MAX_BYTES`], UTF-8 (a leading BOM dropped), not blank.
fn text_of(bytes: &[u8]) -> Result<&str, DecodeError> {
    let top = Ctx {
        index: None,
        line: None,
    };
    if bytes.len() > MAX_BYTES {
        return Err(top.hinted(
            None,
            format!(
                "the change set is {} bytes; at most {MAX_BYTES} are read",
                bytes.len()
            ),
            "split it into several change sets",
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
        DecodeError {
            index: None,
            line: Some(line),
            field: None,
            message: format!("not UTF-8 at byte {offset}"),
            hint: Some("save the change set as UTF-8 JSON".into()),
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(top.hinted(
            None,
            "the input is empty",
            "send a kapi.change/v1 document or JSON lines of operations",
        ));
    }
    Ok(text)
}

/// Every JSON value of the text, each with the 1-based line it starts on; at most one more
/// than [`MAX_OPERATIONS`] (room for a header).
fn json_values(text: &str) -> Result<Vec<(usize, Value)>, DecodeError> {
    let mut values: Vec<(usize, Value)> = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    // Lines are counted incrementally: (offset counted up to, line there).
    let mut counted = (0usize, 1usize);
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                // The object starts at the first non-space byte after the previous value.
                let skipped = text[start..].len() - text[start..].trim_start().len();
                let at = start + skipped;
                counted.1 += text.as_bytes()[counted.0..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                counted.0 = at;
                values.push((counted.1, value));
                if values.len() > MAX_OPERATIONS + 1 {
                    return Err(too_many());
                }
            }
            Some(Err(e)) => {
                return Err(DecodeError {
                    index: None,
                    line: Some(e.line()),
                    field: None,
                    message: format!("not JSON: {e}"),
                    hint: Some(
                        "send one JSON document, or one JSON object per line (JSON lines)".into(),
                    ),
                });
            }
        }
    }
    Ok(values)
}

/// The document form: `{"schema", "gate", "operations": [...]}` starting on `line`.
fn document(line: usize, map: &Map<String, Value>) -> Result<ChangeSet, DecodeError> {
    let ctx = Ctx {
        index: None,
        line: Some(line),
    };
    let gate = header(map, &ctx, &shape::DOCUMENT.names())?;
    let ops = match map.get("operations") {
        Some(Value::Array(ops)) => ops,
        Some(_) => return Err(ctx.err(Some("operations".into()), "must be an array")),
        None => {
            return Err(ctx.hinted(
                Some("operations".into()),
                "missing",
                "list the operations in `operations`",
            ));
        }
    };
    if ops.len() > MAX_OPERATIONS {
        return Err(too_many());
    }
    let operations = ops
        .iter()
        .enumerate()
        .map(|(i, v)| {
            operation(
                v,
                &Ctx {
                    index: Some(i),
                    line: None,
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ChangeSet {
        schema: SCHEMA,
        gate,
        operations,
    })
}

/// JSON lines: an optional header, then one operation per object.
fn json_lines(values: &[(usize, Value)]) -> Result<ChangeSet, DecodeError> {
    let mut gate = GateMode::Enforce;
    let mut rest = values;
    if let Some((line, Value::Object(map))) = rest.first()
        && map.contains_key("schema")
        && !map.contains_key("op")
    {
        let ctx = Ctx {
            index: None,
            line: Some(*line),
        };
        gate = header(map, &ctx, &shape::LINES_HEADER.names())?;
        rest = &rest[1..];
    }
    if rest.len() > MAX_OPERATIONS {
        return Err(too_many());
    }
    let operations = rest
        .iter()
        .enumerate()
        .map(|(i, (line, v))| {
            if let Value::Array(_) = v {
                return Err(Ctx {
                    index: None,
                    line: Some(*line),
                }
                .hinted(
                    None,
                    "a JSON array here; expected an operation object",
                    "wrap the operations as {\"schema\": \"kapi.change/v1\", \"operations\": [...]}, or send one object per line",
                ));
            }
            operation(
                v,
                &Ctx {
                    index: Some(i),
                    line: Some(*line),
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ChangeSet {
        schema: SCHEMA,
        gate,
        operations,
    })
}

/// The error for a set over [`MAX_OPERATIONS`].
fn too_many() -> DecodeError {
    DecodeError {
        index: Some(MAX_OPERATIONS),
        line: None,
        field: None,
        message: format!("a change set holds at most {MAX_OPERATIONS} operations"),
        hint: Some("split it into several change sets".into()),
    }
}

/// Checks a header's `schema` and known keys; returns its gate.
fn header(map: &Map<String, Value>, ctx: &Ctx, known: &[&str]) -> Result<GateMode, DecodeError> {
    unknown_fields(map, known, ctx, "")?;
    match map.get("schema") {
        Some(Value::String(s)) if s == SCHEMA => {}
        Some(Value::String(s)) => {
            return Err(ctx.hinted(
                Some("schema".into()),
                format!("unknown schema `{s}`"),
                format!("set `\"schema\": \"{SCHEMA}\"`"),
            ));
        }
        Some(_) => return Err(ctx.err(Some("schema".into()), "must be a string")),
        None => {
            return Err(ctx.hinted(
                Some("schema".into()),
                "missing",
                format!("set `\"schema\": \"{SCHEMA}\"`"),
            ));
        }
    }
    match map.get("gate") {
        None => Ok(GateMode::Enforce),
        Some(Value::String(s)) if s == "enforce" => Ok(GateMode::Enforce),
        Some(Value::String(s)) if s == "report" => Ok(GateMode::Report),
        Some(other) => Err(ctx.hinted(
            Some("gate".into()),
            format!("`{other}` is not a gate"),
            "use `enforce` (the default) or `report`",
        )),
    }
}

#[cfg(test)]
mod tests;
