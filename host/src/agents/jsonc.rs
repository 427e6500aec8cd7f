//! Editing a JSON (or JSONC) file in place through its concrete syntax tree, so only kapi's
//! values change and every other byte stays; and the refusal of a file kapi cannot read.

use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use serde_json::{Map, Value, json};

/// The refusal of a file kapi cannot read, with where and how to fix it.
pub(crate) fn unreadable(rel: &str, at: Option<(usize, usize)>, what: &str) -> String {
    let at = at.map_or(String::new(), |(l, c)| format!("line {l}, column {c}: "));
    format!(
        "{rel}: {at}{what}; kapi leaves a file it cannot read alone: fix it and run `kapi init` again"
    )
}

/// How kapi reads a JSON file it merges into: JSON plus comments and trailing commas (JSONC, as
/// VS Code reads `.vscode/mcp.json`), and nothing looser (no single quotes, bare keys or
/// missing commas: no host reads those).
fn jsonc_options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// A JSON (or JSONC) file kapi merges an entry into, held as its concrete syntax tree: kapi
/// inserts or replaces only its own values, and every other byte (comments, trailing commas,
/// key order, indentation, line endings) is written back as it was read.
pub(crate) struct JsonFile {
    root: CstRootNode,
    /// The text read; `None` for a new (or blank) file, written as pretty JSON.
    original: Option<String>,
}

impl JsonFile {
    /// Parses `existing` (absent or blank: a new file), refusing text that is not JSON or JSONC
    /// with its line and column.
    pub(crate) fn parse(rel: &str, existing: Option<&str>) -> Result<JsonFile, String> {
        let original = existing.filter(|t| !t.trim().is_empty());
        let root =
            CstRootNode::parse(original.unwrap_or_default(), &jsonc_options()).map_err(|e| {
                use jsonc_parser::errors::ParseErrorKind as Kind;
                // An unclosed value is reported where it opens: say so.
                let what: String = match e.kind() {
                    Kind::UnterminatedObject => "the object that opens here is never closed".into(),
                    Kind::UnterminatedArray => "the list that opens here is never closed".into(),
                    Kind::UnterminatedCommentBlock => {
                        "the comment that opens here is never closed".into()
                    }
                    kind => {
                        let what = kind.to_string();
                        let mut chars = what.chars();
                        chars
                            .next()
                            .map(|c| c.to_lowercase().chain(chars).collect())
                            .unwrap_or_default()
                    }
                };
                unreadable(
                    rel,
                    Some((e.line_display(), e.column_display())),
                    &format!("not valid JSON ({what})"),
                )
            })?;
        Ok(JsonFile {
            root,
            original: original.map(str::to_owned),
        })
    }

    /// The top-level object (created in a new file, or after a file's lone comments); `what`
    /// says what it should be when it is something else.
    pub(crate) fn object(&self, rel: &str, what: &str) -> Result<CstObject, String> {
        self.root.object_value_or_create().ok_or_else(|| {
            let text = self.original.as_deref().unwrap_or_default();
            unreadable(rel, json_position(text, &[]), what)
        })
    }

    /// The text to write: `None` when no byte changed, pretty JSON with a final newline for a
    /// new file, and otherwise the person's text with kapi's edits in it.
    pub(crate) fn finish(self, rel: &str) -> Result<Option<String>, String> {
        let Some(original) = &self.original else {
            let value = self.root.to_serde_value().unwrap_or_else(|| json!({}));
            let mut text =
                serde_json::to_string_pretty(&value).map_err(|e| format!("{rel}: {e}"))?;
            text.push('\n');
            return Ok(Some(text));
        };
        let text = self.root.to_string();
        Ok((text != *original).then_some(text))
    }
}

/// The property `name` of an object: the last one when the name repeats, as a JSON reader
/// keeps it.
pub(crate) fn json_prop(object: &CstObject, name: &str) -> Option<CstObjectProp> {
    object
        .properties()
        .into_iter()
        .filter(|p| p.decoded_name().as_deref() == Some(name))
        .last()
}

/// The value of a property, as JSON.
pub(crate) fn prop_value(prop: &CstObjectProp) -> Option<Value> {
    prop.value()?.to_serde_value()
}

/// A JSON value in the form the syntax tree inserts (key order kept).
pub(crate) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// Sets each of `ours`' fields in `object` whose value differs, leaving the rest (and its
/// formatting) as it is.
pub(crate) fn update_fields(object: &CstObject, ours: &Map<String, Value>) {
    for (key, value) in ours {
        match json_prop(object, key) {
            Some(prop) if prop_value(&prop).as_ref() == Some(value) => {}
            Some(prop) => prop.set_value(cst_value(value)),
            None => {
                object.append(key, cst_value(value));
            }
        }
    }
}

/// Where the value at `path` (object keys from the top) starts in a JSON or JSONC text, as
/// line and column; the top level for an empty path.
pub(crate) fn json_position(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    let root = CstRootNode::parse(text, &jsonc_options()).ok()?;
    let mut node = root.value()?;
    for key in path {
        node = json_prop(&node.as_object()?, key)?.value()?;
    }
    Some(line_col(text, node_offset(&node)))
}

/// The byte offset a node starts at: the length of everything before it in the tree.
fn node_offset(node: &CstNode) -> usize {
    let mut offset = 0;
    let mut current = node.clone();
    loop {
        offset += current
            .previous_siblings()
            .map(|n| n.to_string().len())
            .sum::<usize>();
        match current.parent() {
            Some(parent) => current = parent.into(),
            None => return offset,
        }
    }
}

/// Line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
