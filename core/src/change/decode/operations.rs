//! One decoder per `kapi.change/v1` operation kind, behind [`operation`], which reads `op` and
//! hands the object to the decoder of that kind.

use serde_json::Value;

use super::fields::{Ctx, Fields, check_doc};
use super::shape::{self, Shape};
use super::{DecodeError, RECIPE_FIELDS};
use crate::change::{MatchMode, MemoryPair, NoteOp, Operation, Outcome};
use crate::governance::terms_edit::TermUpsert;

/// An operation kind: its fields and its decoder, which reads an object holding no others.
pub struct Kind {
    pub shape: &'static Shape,
    decode: fn(&Fields) -> Result<Operation, DecodeError>,
}

/// Every operation kind a change set may hold, in the order the schema lists them.
pub const KINDS: &[Kind] = &[
    Kind {
        shape: &shape::SET_CONTENT,
        decode: set_content,
    },
    Kind {
        shape: &shape::REPLACE_TEXT,
        decode: replace_text,
    },
    Kind {
        shape: &shape::DECIDE,
        decode: decide,
    },
    Kind {
        shape: &shape::TERM_OP,
        decode: term,
    },
    Kind {
        shape: &shape::MEMORY,
        decode: memory,
    },
    Kind {
        shape: &shape::NOTE_OP,
        decode: note,
    },
    Kind {
        shape: &shape::RECIPE,
        decode: recipe,
    },
];

/// The operations' names, for a hint.
fn op_names() -> String {
    let names: Vec<&str> = KINDS.iter().filter_map(|k| k.shape.op).collect();
    names.join(", ")
}

/// The longest note field, in characters (as `kapi context note`).
pub const MAX_NOTE_CHARS: usize = 500;

/// Decodes one operation object: its `op`, then the fields that kind takes.
pub(super) fn operation(value: &Value, ctx: &Ctx) -> Result<Operation, DecodeError> {
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
                format!("name the operation: {}", op_names()),
            ));
        }
    };
    let Some(kind) = KINDS.iter().find(|k| k.shape.op == Some(op)) else {
        return Err(ctx.hinted(
            Some("op".into()),
            format!("unknown operation `{op}`"),
            format!("operations: {}", op_names()),
        ));
    };
    let f = Fields { map, ctx };
    f.known(&kind.shape.names())?;
    (kind.decode)(&f)
}

/// `set_content`: an edition's whole text.
fn set_content(f: &Fields) -> Result<Operation, DecodeError> {
    Ok(Operation::SetContent {
        at: f.at()?,
        if_match: f.if_match()?,
        content: f.string("content")?,
    })
}

/// `replace_text`: a non-empty `find`, its `replace`, the match mode and an optional count.
fn replace_text(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
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
    let count = match f.map.get("count") {
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

/// `decide`: an outcome; an `advise` (and only an `advise`) carries a score and reasons.
fn decide(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
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
    let score = decide_score(f)?;
    let reasons = decide_reasons(f)?;
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

/// A decision's `score`, when given: a whole number from 0 to 100.
fn decide_score(f: &Fields) -> Result<Option<u8>, DecodeError> {
    match f.map.get("score") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n <= 100 => Ok(Some(n as u8)),
            _ => Err(f.ctx.err(
                Some("score".into()),
                format!("`{v}` is not a score: a whole number from 0 to 100"),
            )),
        },
    }
}

/// A decision's `reasons`, when given: an array of strings.
fn decide_reasons(f: &Fields) -> Result<Vec<String>, DecodeError> {
    match f.map.get("reasons") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| f.ctx.err(Some(format!("reasons[{i}]")), "must be a string"))
            })
            .collect(),
        Some(_) => Err(f
            .ctx
            .err(Some("reasons".into()), "must be an array of strings")),
    }
}

/// `term`: a [`TermUpsert`] (read by serde, which refuses unknown fields) with a text and lang.
fn term(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
    let Some(term) = f.map.get("term") else {
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

/// `memory`: one content-memory `pair` with a non-empty source and target.
fn memory(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
    let p = f.object(
        "pair",
        "give the pair as {\"source\", \"target\", \"target_lang\"}",
    )?;
    p.known_in(&shape::PAIR.names(), "pair.")?;
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

/// `note`: a `path` and either `text`, or `from` and `to` (with an optional `suggest`).
fn note(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
    let n = f.object(
        "note",
        "give the note as {\"path\", \"text\"} or {\"path\", \"from\", \"to\"}",
    )?;
    n.known_in(&shape::NOTE.names(), "note.")?;
    let path = n.string_in("path", "note.")?;
    check_doc(if path.trim().is_empty() { "." } else { &path })
        .map_err(|(m, h)| ctx.hinted(Some("note.path".into()), m, h.to_owned()))?;
    let [text, from, to, suggest] =
        ["text", "from", "to", "suggest"].map(|name| note_text(&n, name));
    let (text, from, to, suggest) = (text?, from?, to?, suggest?);
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

/// One text field of a note, when given: not blank, at most [`MAX_NOTE_CHARS`], trimmed.
fn note_text(n: &Fields, name: &str) -> Result<Option<String>, DecodeError> {
    let Some(v) = n.opt_string_in(name, "note.")? else {
        return Ok(None);
    };
    if v.trim().is_empty() {
        return Err(n.ctx.err(Some(format!("note.{name}")), "must not be empty"));
    }
    let chars = v.chars().count();
    if chars > MAX_NOTE_CHARS {
        return Err(n.ctx.err(
            Some(format!("note.{name}")),
            format!("has {chars} characters; a note holds at most {MAX_NOTE_CHARS}"),
        ));
    }
    Ok(Some(v.trim().to_owned()))
}

/// `recipe`: one allowlisted field ([`RECIPE_FIELDS`]) and a value of the type it takes.
fn recipe(f: &Fields) -> Result<Operation, DecodeError> {
    let ctx = f.ctx;
    let field = f.string("field")?;
    let Some((_, kind)) = RECIPE_FIELDS.iter().find(|(name, _)| *name == field) else {
        let names: Vec<&str> = RECIPE_FIELDS.iter().map(|(n, _)| *n).collect();
        return Err(ctx.hinted(
            Some("field".into()),
            format!("`{field}` is not a field a change set may set"),
            format!("fields: {}", names.join(", ")),
        ));
    };
    let Some(value) = f.map.get("value") else {
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
