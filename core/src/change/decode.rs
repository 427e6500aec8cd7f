//! Decoding `kapi.change/v1`: one JSON document `{"schema", "gate", "operations"}`, or a stream
//! of JSON objects (JSON lines), one operation each, optionally led by a header object
//! `{"schema": "kapi.change/v1", "gate": …}`.
//!
//! Decoding is strict: an unknown operation or field, a wrong type, a `doc` that climbs with
//! `..`, a score outside 0–100 or an unknown recipe field is an error naming the operation's index (`operations[3]`), its line and the field.
//! An empty input is an error; an empty `operations` list is a valid set that changes nothing.

use serde_json::{Map, Value};

use super::{ChangeSet, GateMode, MatchMode, MemoryPair, NoteOp, Operation, Outcome, SCHEMA};
use crate::governance::terms_edit::TermUpsert;
use crate::model::Ref;

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

struct Ctx {
    index: Option<usize>,
    line: Option<usize>,
}

impl Ctx {
    fn err(&self, field: impl Into<Option<String>>, message: impl Into<String>) -> DecodeError {
        DecodeError {
            index: self.index,
            line: self.line,
            field: field.into(),
            message: message.into(),
            hint: None,
        }
    }
    fn hinted(
        &self,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> DecodeError {
        let mut e = self.err(field, message);
        e.hint = Some(hint.into());
        e
    }
}

/// Decodes a change set from raw bytes.
pub fn decode(bytes: &[u8]) -> Result<ChangeSet, DecodeError> {
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

    // One document with `schema` or `operations`: the document form.
    if let [(line, Value::Object(map))] = values.as_slice()
        && (map.contains_key("operations")
            || (map.contains_key("schema") && !map.contains_key("op")))
    {
        let ctx = Ctx {
            index: None,
            line: Some(*line),
        };
        let gate = header(map, &ctx, &["schema", "gate", "operations"])?;
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
        return Ok(ChangeSet {
            schema: SCHEMA,
            gate,
            operations,
        });
    }

    // JSON lines: an optional header, then one operation per object.
    let mut gate = GateMode::Enforce;
    let mut rest = values.as_slice();
    if let Some((line, Value::Object(map))) = rest.first()
        && map.contains_key("schema")
        && !map.contains_key("op")
    {
        let ctx = Ctx {
            index: None,
            line: Some(*line),
        };
        gate = header(map, &ctx, &["schema", "gate"])?;
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

fn unknown_fields(
    map: &Map<String, Value>,
    known: &[&str],
    ctx: &Ctx,
    prefix: &str,
) -> Result<(), DecodeError> {
    for key in map.keys() {
        if !known.contains(&key.as_str()) {
            let mut e = ctx.hinted(
                Some(format!("{prefix}{key}")),
                "unknown field",
                format!("fields here: {}", known.join(", ")),
            );
            if key == "actor" && prefix.is_empty() {
                e.hint = Some(
                    "a change set cannot name its actor: the command line takes it from KAPI_ACTOR, MCP from the client"
                        .into(),
                );
            }
            return Err(e);
        }
    }
    Ok(())
}

const OPS: &[&str] = &[
    "set_content",
    "replace_text",
    "decide",
    "term",
    "memory",
    "note",
    "recipe",
];

/// The longest note field, in characters (as `kapi context note`).
pub const MAX_NOTE_CHARS: usize = 500;

fn operation(value: &Value, ctx: &Ctx) -> Result<Operation, DecodeError> {
    let Value::Object(map) = value else {
        return Err(ctx.err(None, "must be a JSON object"));
    };
    let op = match map.get("op") {
        Some(Value::String(op)) => op.as_str(),
        Some(_) => return Err(ctx.err(Some("op".into()), "must be a string")),
        None => {
            return Err(ctx.hinted(
                Some("op".into()),
                "missing",
                format!("name the operation: {}", OPS.join(", ")),
            ));
        }
    };
    let f = Fields { map, ctx };
    match op {
        "set_content" => {
            f.known(&["op", "at", "if_match", "content"])?;
            Ok(Operation::SetContent {
                at: f.at()?,
                if_match: f.if_match()?,
                content: f.string("content")?,
            })
        }
        "replace_text" => {
            f.known(&["op", "at", "if_match", "find", "replace", "match", "count"])?;
            let find = f.string("find")?;
            if find.is_empty() {
                return Err(ctx.err(Some("find".into()), "must not be empty"));
            }
            let mode = match f.opt_string("match")?.as_deref() {
                None | Some("literal") => MatchMode::Literal,
                Some("word") => MatchMode::Word,
                Some(other) => {
                    return Err(ctx.hinted(
                        Some("match".into()),
                        format!("`{other}` is not a match mode"),
                        "use `literal` (the default) or `word`",
                    ));
                }
            };
            let count = match map.get("count") {
                None | Some(Value::Null) => None,
                Some(v) => match v.as_u64() {
                    Some(n) if n >= 1 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                    _ => {
                        return Err(ctx.err(Some("count".into()), "must be a whole number ≥ 1"));
                    }
                },
            };
            Ok(Operation::ReplaceText {
                at: f.at()?,
                if_match: f.if_match()?,
                find,
                replace: f.string("replace")?,
                mode,
                count,
            })
        }
        "decide" => {
            f.known(&["op", "at", "if_match", "outcome", "score", "reasons"])?;
            let outcome = match f.string("outcome")?.as_str() {
                "establish" => Outcome::Establish,
                "reject" => Outcome::Reject,
                "withdraw" => Outcome::Withdraw,
                "advise" => Outcome::Advise,
                other => {
                    return Err(ctx.hinted(
                        Some("outcome".into()),
                        format!("`{other}` is not an outcome"),
                        "use establish, reject, withdraw or advise",
                    ));
                }
            };
            let score = match map.get("score") {
                None | Some(Value::Null) => None,
                Some(v) => match v.as_u64() {
                    Some(n) if n <= 100 => Some(n as u8),
                    _ => {
                        return Err(ctx.err(
                            Some("score".into()),
                            format!("`{v}` is not a score: a whole number from 0 to 100"),
                        ));
                    }
                },
            };
            let reasons = match map.get("reasons") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        v.as_str().map(str::to_owned).ok_or_else(|| {
                            ctx.err(Some(format!("reasons[{i}]")), "must be a string")
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(ctx.err(Some("reasons".into()), "must be an array of strings"));
                }
            };
            if outcome == Outcome::Advise && score.is_none() {
                return Err(ctx.hinted(
                    Some("score".into()),
                    "missing",
                    "an `advise` carries a score from 0 to 100 and its reasons",
                ));
            }
            if outcome != Outcome::Advise && (score.is_some() || !reasons.is_empty()) {
                return Err(ctx.hinted(
                    Some(if score.is_some() { "score" } else { "reasons" }.into()),
                    format!(
                        "only an `advise` carries a score and reasons, not `{}`",
                        outcome.as_str()
                    ),
                    "drop `score` and `reasons`, or use `\"outcome\": \"advise\"`",
                ));
            }
            Ok(Operation::Decide {
                at: f.at()?,
                if_match: f.if_match()?,
                outcome,
                score,
                reasons,
            })
        }
        "term" => {
            f.known(&["op", "term"])?;
            let Some(term) = map.get("term") else {
                return Err(ctx.hinted(
                    Some("term".into()),
                    "missing",
                    "give the term as {\"text\", \"lang\", \"status\", …}",
                ));
            };
            let term: TermUpsert = serde_json::from_value(term.clone())
                .map_err(|e| ctx.err(Some("term".into()), e.to_string()))?;
            if term.text.trim().is_empty() {
                return Err(ctx.err(Some("term.text".into()), "must not be empty"));
            }
            if term.lang.trim().is_empty() {
                return Err(ctx.err(Some("term.lang".into()), "must not be empty"));
            }
            Ok(Operation::Term { term })
        }
        "memory" => {
            f.known(&["op", "pair"])?;
            let pair = match map.get("pair") {
                Some(Value::Object(pair)) => pair,
                Some(_) => return Err(ctx.err(Some("pair".into()), "must be an object")),
                None => {
                    return Err(ctx.hinted(
                        Some("pair".into()),
                        "missing",
                        "give the pair as {\"source\", \"target\", \"target_lang\"}",
                    ));
                }
            };
            let p = Fields { map: pair, ctx };
            p.known_in(
                &["source", "target", "source_lang", "target_lang", "status"],
                "pair.",
            )?;
            let status = p.opt_string_in("status", "pair.")?;
            if let Some(s) = &status
                && s != "reviewed"
                && s != "signed-off"
            {
                return Err(ctx.hinted(
                    Some("pair.status".into()),
                    format!("`{s}` is not a memory status"),
                    "use `reviewed` or `signed-off`, or leave it out",
                ));
            }
            let pair = MemoryPair {
                source: p.string_in("source", "pair.")?,
                target: p.string_in("target", "pair.")?,
                source_lang: p.opt_string_in("source_lang", "pair.")?,
                target_lang: p.string_in("target_lang", "pair.")?,
                status,
            };
            if pair.source.trim().is_empty() || pair.target.trim().is_empty() {
                return Err(ctx.err(
                    Some("pair".into()),
                    "`source` and `target` must not be empty",
                ));
            }
            Ok(Operation::Memory { pair })
        }
        "note" => {
            f.known(&["op", "note"])?;
            let note = match map.get("note") {
                Some(Value::Object(note)) => note,
                Some(_) => return Err(ctx.err(Some("note".into()), "must be an object")),
                None => {
                    return Err(ctx.hinted(
                        Some("note".into()),
                        "missing",
                        "give the note as {\"path\", \"text\"} or {\"path\", \"from\", \"to\"}",
                    ));
                }
            };
            let n = Fields { map: note, ctx };
            n.known_in(&["path", "text", "from", "to", "suggest"], "note.")?;
            let path = n.string_in("path", "note.")?;
            check_doc(if path.trim().is_empty() { "." } else { &path })
                .map_err(|(m, h)| ctx.hinted(Some("note.path".into()), m, h.to_owned()))?;
            let mut fields = Vec::new();
            for name in ["text", "from", "to", "suggest"] {
                let v = n.opt_string_in(name, "note.")?;
                if let Some(v) = &v {
                    if v.trim().is_empty() {
                        return Err(ctx.err(Some(format!("note.{name}")), "must not be empty"));
                    }
                    let chars = v.chars().count();
                    if chars > MAX_NOTE_CHARS {
                        return Err(ctx.err(
                            Some(format!("note.{name}")),
                            format!(
                                "has {chars} characters; a note holds at most {MAX_NOTE_CHARS}"
                            ),
                        ));
                    }
                }
                fields.push(v.map(|v| v.trim().to_owned()));
            }
            let mut it = fields.into_iter();
            let (text, from, to, suggest) = (
                it.next().flatten(),
                it.next().flatten(),
                it.next().flatten(),
                it.next().flatten(),
            );
            if from.is_some() != to.is_some() {
                return Err(ctx.err(
                    Some("note".into()),
                    "a person's change needs both `from` and `to`",
                ));
            }
            if text.is_none() && from.is_none() {
                return Err(ctx.err(Some("note".into()), "needs `text`, or `from` and `to`"));
            }
            if suggest.is_some() && from.is_none() {
                return Err(ctx.err(Some("note.suggest".into()), "goes with `from` and `to`"));
            }
            Ok(Operation::Note {
                note: NoteOp {
                    path,
                    text,
                    from,
                    to,
                    suggest,
                },
            })
        }
        "recipe" => {
            f.known(&["op", "field", "value"])?;
            let field = f.string("field")?;
            let Some((_, kind)) = RECIPE_FIELDS.iter().find(|(name, _)| *name == field) else {
                let names: Vec<&str> = RECIPE_FIELDS.iter().map(|(n, _)| *n).collect();
                return Err(ctx.hinted(
                    Some("field".into()),
                    format!("`{field}` is not a field a change set may set"),
                    format!("fields: {}", names.join(", ")),
                ));
            };
            let Some(value) = map.get("value") else {
                return Err(ctx.err(Some("value".into()), format!("missing ({kind})")));
            };
            let ok = match *kind {
                "string" => value.is_string(),
                "integer" => value.as_u64().is_some(),
                _ => value
                    .as_array()
                    .is_some_and(|items| items.iter().all(Value::is_string)),
            };
            if !ok {
                return Err(ctx.err(
                    Some("value".into()),
                    format!("`{field}` takes {kind}, not `{value}`"),
                ));
            }
            Ok(Operation::Recipe {
                field,
                value: value.clone(),
            })
        }
        other => Err(ctx.hinted(
            Some("op".into()),
            format!("unknown operation `{other}`"),
            format!("operations: {}", OPS.join(", ")),
        )),
    }
}

struct Fields<'a> {
    map: &'a Map<String, Value>,
    ctx: &'a Ctx,
}

impl Fields<'_> {
    fn known(&self, known: &[&str]) -> Result<(), DecodeError> {
        unknown_fields(self.map, known, self.ctx, "")
    }
    fn known_in(&self, known: &[&str], prefix: &str) -> Result<(), DecodeError> {
        unknown_fields(self.map, known, self.ctx, prefix)
    }
    fn string(&self, key: &str) -> Result<String, DecodeError> {
        self.string_in(key, "")
    }
    fn string_in(&self, key: &str, prefix: &str) -> Result<String, DecodeError> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self
                .ctx
                .err(Some(format!("{prefix}{key}")), "must be a string")),
            None => Err(self.ctx.err(Some(format!("{prefix}{key}")), "missing")),
        }
    }
    fn opt_string(&self, key: &str) -> Result<Option<String>, DecodeError> {
        self.opt_string_in(key, "")
    }
    fn opt_string_in(&self, key: &str, prefix: &str) -> Result<Option<String>, DecodeError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self
                .ctx
                .err(Some(format!("{prefix}{key}")), "must be a string")),
        }
    }
    fn if_match(&self) -> Result<String, DecodeError> {
        let rev = match self.map.get("if_match") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(self.ctx.err(Some("if_match".into()), "must be a string")),
            None => {
                return Err(self.ctx.hinted(
                    Some("if_match".into()),
                    "missing",
                    "send the `rev` the edition had when you read it (the `rev` beside its `ref`)",
                ));
            }
        };
        let well_formed = rev == super::BLIND
            || (rev.len() == 17
                && rev.starts_with('r')
                && rev[1..].bytes().all(|b| b.is_ascii_hexdigit()));
        if !well_formed {
            return Err(self.ctx.hinted(
                Some("if_match".into()),
                format!("`{rev}` is not a revision"),
                "send the `rev` a read gave (`r` and 16 hex digits)",
            ));
        }
        Ok(rev)
    }
    fn at(&self) -> Result<Ref, DecodeError> {
        let map = match self.map.get("at") {
            Some(Value::Object(map)) => map,
            Some(_) => return Err(self.ctx.err(Some("at".into()), "must be an object")),
            None => {
                return Err(self.ctx.hinted(
                    Some("at".into()),
                    "missing",
                    "send the `ref` a read gave: {\"doc\", \"block\", \"edition\"}",
                ));
            }
        };
        let f = Fields { map, ctx: self.ctx };
        f.known_in(&["doc", "block", "edition", "branch"], "at.")?;
        let doc = f.string_in("doc", "at.")?;
        check_doc(&doc).map_err(|(message, hint)| {
            self.ctx
                .hinted(Some("at.doc".into()), message, hint.to_owned())
        })?;
        let block = f.string_in("block", "at.")?;
        if block.is_empty() {
            return Err(self.ctx.err(Some("at.block".into()), "must not be empty"));
        }
        let edition = f
            .opt_string_in("edition", "at.")?
            .unwrap_or_else(|| "source".into());
        if edition.is_empty() {
            return Err(self.ctx.err(Some("at.edition".into()), "must not be empty"));
        }
        let branch = f.opt_string_in("branch", "at.")?.filter(|b| !b.is_empty());
        Ok(Ref {
            doc,
            block,
            edition,
            branch,
        })
    }
}

/// A `doc` is named as a read gave it: relative to the project root (or the working folder),
/// never through `..`; or absolute, as a read outside a project names a file (the change
/// service refuses an absolute path outside the project it binds).
fn check_doc(doc: &str) -> Result<(), (String, &'static str)> {
    let hint = "name the document as a read gave it: relative to the project root (or the working folder outside a project)";
    if doc.is_empty() {
        return Err(("must not be empty".into(), hint));
    }
    if doc.contains('\0') {
        return Err(("holds a NUL byte".into(), hint));
    }
    let normal = doc.replace('\\', "/");
    if normal.split('/').any(|part| part == "..") {
        return Err((format!("`{doc}` leaves the project (`..`)"), hint));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: &str = r#"{"doc":"a.md","block":"p","edition":"source"}"#;

    fn set(body: &str) -> String {
        format!(r#"{{"op":"set_content","at":{AT},"if_match":"r0123456789abcdef",{body}}}"#)
    }

    #[test]
    fn a_document_decodes() {
        let doc = format!(
            r#"{{"schema":"kapi.change/v1","gate":"report","operations":[{}]}}"#,
            set(r#""content":"Hi""#)
        );
        let set = decode(doc.as_bytes()).unwrap();
        assert_eq!(set.gate, GateMode::Report);
        assert_eq!(set.operations.len(), 1);
        assert_eq!(set.operations[0].name(), "set_content");
    }

    #[test]
    fn json_lines_decode_with_and_without_a_header() {
        let lines = format!(
            "{}\n{}\n",
            set(r#""content":"A""#),
            r#"{"op":"replace_text","at":{"doc":"a.md","block":"p"},"if_match":"*","find":"x","replace":"y","match":"word","count":2}"#
        );
        let set1 = decode(lines.as_bytes()).unwrap();
        assert_eq!(set1.operations.len(), 2);
        match &set1.operations[1] {
            Operation::ReplaceText {
                mode, count, at, ..
            } => {
                assert_eq!(*mode, MatchMode::Word);
                assert_eq!(*count, Some(2));
                assert_eq!(at.edition, "source");
            }
            other => panic!("{other:?}"),
        }
        let with_header = format!("{{\"schema\":\"kapi.change/v1\"}}\n{lines}");
        assert_eq!(decode(with_header.as_bytes()).unwrap().operations.len(), 2);
    }

    #[test]
    fn errors_name_the_index_line_and_field() {
        let lines = format!("{}\n{}\n", set(r#""content":"A""#), set(r#""contnet":"A""#));
        let e = decode(lines.as_bytes()).unwrap_err();
        assert_eq!(e.index, Some(1));
        assert_eq!(e.line, Some(2));
        assert_eq!(e.field.as_deref(), Some("contnet"));
        assert!(
            e.to_string()
                .starts_with("line 2: operations[1].contnet: unknown field")
        );
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("not json", "not JSON"),
            (
                r#"{"schema":"kapi.change/v2","operations":[]}"#,
                "unknown schema",
            ),
            (r#"{"operations":[]}"#, "schema: missing"),
            (r#"{"op":"delete"}"#, "unknown operation"),
            (&set(r#""content":1"#), "content: must be a string"),
            (
                r#"{"op":"set_content","at":{"doc":"../x.md","block":"p"},"if_match":"*","content":""}"#,
                "at.doc: `../x.md` leaves the project",
            ),
            (
                r#"{"op":"set_content","at":{"doc":"/etc/../x.md","block":"p"},"if_match":"*","content":""}"#,
                "leaves the project",
            ),
            (
                r#"{"op":"set_content","at":{"doc":"a.md","block":"p"},"if_match":"abc","content":""}"#,
                "is not a revision",
            ),
            (
                r#"{"op":"decide","at":{"doc":"a.md","block":"p"},"if_match":"*","outcome":"advise","score":101}"#,
                "not a score",
            ),
            (
                r#"{"op":"decide","at":{"doc":"a.md","block":"p"},"if_match":"*","outcome":"advise"}"#,
                "score: missing",
            ),
            (
                r#"{"op":"recipe","field":"collections","value":[]}"#,
                "not a field",
            ),
            (
                r#"{"op":"recipe","field":"gates.min_score","value":"x"}"#,
                "takes integer",
            ),
            (
                r#"{"schema":"kapi.change/v1","actor":"person","operations":[]}"#,
                "actor: unknown field",
            ),
            ("[1,2]", "JSON array"),
        ];
        for (input, wanted) in cases {
            let e = decode(input.as_bytes()).expect_err(input);
            assert!(e.to_string().contains(wanted), "{input}: {e}");
        }
    }

    #[test]
    fn too_many_operations_are_refused() {
        let one = set(r#""content":"A""#);
        let many = format!("{one}\n").repeat(MAX_OPERATIONS + 1);
        let e = decode(many.as_bytes()).unwrap_err();
        assert!(e.message.contains("at most"), "{e}");
    }

    #[test]
    fn an_empty_operations_list_is_a_valid_set() {
        let set = decode(br#"{"schema":"kapi.change/v1","operations":[]}"#).unwrap();
        assert!(set.operations.is_empty());
    }
}
