//! The decoder's readers: where an error is (`Ctx`), the typed reads of one object's fields
//! (`Fields`), the unknown-field check, and the `doc` path rule.

use serde_json::{Map, Value};

use super::DecodeError;
use crate::model::Ref;

/// Where the object being read sits: its operation index and input line, when known.
pub(super) struct Ctx {
    pub(super) index: Option<usize>,
    pub(super) line: Option<usize>,
}

impl Ctx {
    pub(super) fn err(
        &self,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> DecodeError {
        DecodeError {
            index: self.index,
            line: self.line,
            field: field.into(),
            message: message.into(),
            hint: None,
        }
    }
    pub(super) fn hinted(
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

/// Refuses the first key of `map` not in `known`, naming it (after `prefix`, `at.`) and the
/// fields that are.
pub(super) fn unknown_fields(
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

/// One JSON object of the input, read field by field with errors that name the field.
pub(super) struct Fields<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) ctx: &'a Ctx,
}

impl<'a> Fields<'a> {
    /// The object at `key`, to read in turn; `hint` says what to send when it is missing.
    pub(super) fn object(&self, key: &str, hint: &str) -> Result<Fields<'a>, DecodeError> {
        match self.map.get(key) {
            Some(Value::Object(map)) => Ok(Fields { map, ctx: self.ctx }),
            Some(_) => Err(self.ctx.err(Some(key.to_owned()), "must be an object")),
            None => Err(self.ctx.hinted(Some(key.to_owned()), "missing", hint)),
        }
    }
    pub(super) fn known(&self, known: &[&str]) -> Result<(), DecodeError> {
        unknown_fields(self.map, known, self.ctx, "")
    }
    pub(super) fn known_in(&self, known: &[&str], prefix: &str) -> Result<(), DecodeError> {
        unknown_fields(self.map, known, self.ctx, prefix)
    }
    pub(super) fn string(&self, key: &str) -> Result<String, DecodeError> {
        self.string_in(key, "")
    }
    pub(super) fn string_in(&self, key: &str, prefix: &str) -> Result<String, DecodeError> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self
                .ctx
                .err(Some(format!("{prefix}{key}")), "must be a string")),
            None => Err(self.ctx.err(Some(format!("{prefix}{key}")), "missing")),
        }
    }
    pub(super) fn opt_string(&self, key: &str) -> Result<Option<String>, DecodeError> {
        self.opt_string_in(key, "")
    }
    pub(super) fn opt_string_in(
        &self,
        key: &str,
        prefix: &str,
    ) -> Result<Option<String>, DecodeError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self
                .ctx
                .err(Some(format!("{prefix}{key}")), "must be a string")),
        }
    }
    /// `if_match`: `*` or a revision (`r` and 16 hex digits).
    pub(super) fn if_match(&self) -> Result<String, DecodeError> {
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
        let well_formed = rev == super::super::BLIND
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
    /// `at`: the edition a read named, `edition` defaulting to `source`.
    pub(super) fn at(&self) -> Result<Ref, DecodeError> {
        let f = self.object(
            "at",
            "send the `ref` a read gave: {\"doc\", \"block\", \"edition\"}",
        )?;
        f.known_in(&super::shape::AT.names(), "at.")?;
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
pub(super) fn check_doc(doc: &str) -> Result<(), (String, &'static str)> {
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
