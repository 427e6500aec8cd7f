//! Line reading helpers for the terms file editor: indentation, list dashes, `key: value`
//! splitting, trailing comments, and the values it refuses to edit.

use super::layout::ANCHORS;

pub(super) fn indent(body: &str) -> usize {
    body.len() - body.trim_start_matches(' ').len()
}

/// `body` has a list item's `-` at column `col`.
pub(super) fn is_dash(body: &str, col: usize) -> bool {
    body.get(col..)
        .and_then(|s| s.strip_prefix('-'))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// The column after `- ` and what follows it.
pub(super) fn dash_rest(body: &str, dash: usize) -> (usize, &str) {
    let after = body.get(dash + 1..).unwrap_or_default();
    let rest = after.trim_start_matches([' ', '\t']);
    (body.len() - rest.len(), rest)
}

pub(super) fn is_marker(body: &str, marker: &str) -> bool {
    body.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

pub(super) fn rest_is_blank(rest: &str) -> bool {
    let t = rest.trim();
    t.is_empty() || t.starts_with('#')
}

/// The key at column `col` and the text after its `:`.
pub(super) fn key_at(body: &str, col: usize) -> Option<(String, &str)> {
    let s = body.get(col..)?;
    let after_colon = |rest: &'_ str| -> bool { rest.is_empty() || rest.starts_with([' ', '\t']) };
    if let Some(quote) = s.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &s[1..];
        let end = inner.find(quote)?;
        let key = &inner[..end];
        let rest = inner[end + 1..].strip_prefix(':')?;
        if key.contains('\\') || !after_colon(rest) {
            return None;
        }
        return Some((key.to_owned(), rest));
    }
    for (i, c) in s.char_indices() {
        if c == ':' {
            let rest = &s[i + 1..];
            if !after_colon(rest) {
                return None;
            }
            let key = &s[..i];
            let ok = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            return ok.then(|| (key.to_owned(), rest));
        }
        if !(c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return None;
        }
    }
    None
}

/// Refuses values this editor does not follow: anchors, aliases and tags.
pub(super) fn check_value(value: &str, line: usize) -> Result<(), String> {
    if value.trim_start().starts_with(['&', '*', '!']) {
        return Err(format!("line {line}: {ANCHORS}"));
    }
    Ok(())
}

/// Splits the text after a `key:` into the value and a trailing comment (with the blanks
/// before its `#`). A quoted value that does not end on its line has no comment.
pub(super) fn split_comment(rest: &str) -> (&str, &str) {
    let bytes = rest.as_bytes();
    let start = rest.len() - rest.trim_start().len();
    let mut i = start;
    match bytes.get(i) {
        Some(b'"') => {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return (rest.trim(), ""),
                    Some(b'\\') => i += 2,
                    Some(b'"') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        }
        Some(b'\'') => {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return (rest.trim(), ""),
                    Some(b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                    Some(b'\'') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        }
        _ => {}
    }
    for j in i..bytes.len() {
        if bytes[j] == b'#' && (j == start || matches!(bytes[j - 1], b' ' | b'\t')) {
            let mut c = j;
            while c > 0 && matches!(bytes[c - 1], b' ' | b'\t') {
                c -= 1;
            }
            return (rest[..c].trim(), &rest[c..]);
        }
    }
    (rest.trim(), "")
}
