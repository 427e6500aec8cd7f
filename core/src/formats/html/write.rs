//! Writing HTML: the skeleton with edited holes, text escaped for where it sits (text, a
//! quoted or a bare attribute value), and codes whose attributes were edited.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use super::lexer::{Attr, Lexer, entity_end, is_space, slice};
use crate::formats::{Hole, Parsed, WriteError, hole_runs};
use crate::model::{Code, Document, Run, fingerprint_runs};

/// Where a hole's text sits, which decides its escaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    Text,
    /// An attribute value in these quotes.
    Quoted(char),
    /// An attribute value without quotes.
    Bare,
}

pub(super) fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let skeleton = &parsed.skeleton;
    let original = skeleton.text();
    let mut holes: Vec<&Hole> = skeleton.holes.iter().collect();
    holes.sort_by(|a, b| {
        a.span
            .start
            .cmp(&b.span.start)
            .then(b.span.end.cmp(&a.span.end))
    });
    let writer = Writer {
        document: &parsed.document,
        original,
    };
    let mut out = String::with_capacity(original.len());
    let mut at = 0;
    let mut i = 0;
    while let Some(&top) = holes.get(i) {
        let mut j = i + 1;
        while holes
            .get(j)
            .is_some_and(|h| h.span.start >= top.span.start && h.span.end <= top.span.end)
        {
            j += 1;
        }
        let Some(before) = original.get(at..top.span.start) else {
            return Err(WriteError::Skeleton {
                message: format!("hole {:?} overlaps the one before it", top.span),
            });
        };
        out.push_str(before);
        writer.hole(top, holes.get(i + 1..j).unwrap_or_default(), &mut out)?;
        at = top.span.end;
        i = j;
    }
    out.push_str(original.get(at..).unwrap_or_default());
    skeleton.encode(out.into_bytes())
}

pub(super) struct Writer<'a> {
    pub(super) document: &'a Document,
    pub(super) original: &'a str,
}

impl Writer<'_> {
    pub(super) fn edited(&self, hole: &Hole) -> Option<&[Run]> {
        hole_runs(self.document, hole).filter(|runs| fingerprint_runs(runs) != hole.original)
    }

    pub(super) fn context(&self, hole: &Hole) -> Context {
        let attribute = self
            .document
            .blocks
            .get(hole.block)
            .is_some_and(|b| b.key.contains("/@"));
        if !attribute {
            return Context::Text;
        }
        let b = self.original.as_bytes();
        let before = hole
            .span
            .start
            .checked_sub(1)
            .and_then(|i| b.get(i))
            .copied();
        match before {
            Some(q @ (b'"' | b'\'')) if b.get(hole.span.end) == Some(&q) => {
                Context::Quoted(char::from(q))
            }
            _ => Context::Bare,
        }
    }

    /// Writes a top-level hole and the holes nested in it (attributes of its tags).
    pub(super) fn hole(
        &self,
        top: &Hole,
        nested: &[&Hole],
        out: &mut String,
    ) -> Result<(), WriteError> {
        let held = |span: &Range<usize>| {
            self.original
                .get(span.clone())
                .ok_or_else(|| WriteError::Skeleton {
                    message: format!("hole {span:?} lies outside the file"),
                })
        };
        match self.edited(top) {
            None => {
                let mut at = top.span.start;
                for hole in nested {
                    if hole.span.start < at {
                        continue;
                    }
                    out.push_str(held(&(at..hole.span.start))?);
                    match self.edited(hole) {
                        Some(runs) => self.render(hole, runs, &[], out),
                        None => out.push_str(held(&hole.span)?),
                    }
                    at = hole.span.end;
                }
                out.push_str(held(&(at..top.span.end))?);
            }
            Some(runs) => self.render(top, runs, nested, out),
        }
        Ok(())
    }

    /// Renders edited runs with the hole's escaping; a code read from the file gets the
    /// edited attribute holes inside it and its changed attrs.
    pub(super) fn render(&self, hole: &Hole, runs: &[Run], nested: &[&Hole], out: &mut String) {
        let context = self.context(hole);
        let mut value = String::new();
        self.render_runs(runs, nested, context, &mut value);
        if context == Context::Bare
            && (value.is_empty()
                || value
                    .bytes()
                    .any(|c| is_space(c) || matches!(c, b'"' | b'\'' | b'=' | b'<' | b'>' | b'`')))
        {
            out.push('"');
            out.push_str(&value.replace('"', "&quot;"));
            out.push('"');
        } else {
            out.push_str(&value);
        }
    }

    pub(super) fn render_runs(
        &self,
        runs: &[Run],
        nested: &[&Hole],
        context: Context,
        out: &mut String,
    ) {
        let mut pending = String::new();
        for run in runs {
            match run {
                Run::Text { text, .. } => pending.push_str(text),
                Run::Code(code) => {
                    escape(&pending, context, out);
                    pending.clear();
                    self.render_code(code, nested, out);
                }
                Run::Switch(switch) => {
                    escape(&pending, context, out);
                    pending.clear();
                    out.push_str(&switch.head);
                    for branch in &switch.branches {
                        out.push_str(&branch.open);
                        self.render_runs(&branch.runs, nested, context, out);
                        out.push_str(&branch.close);
                    }
                    out.push_str(&switch.tail);
                }
            }
        }
        escape(&pending, context, out);
    }

    pub(super) fn render_code(&self, code: &Code, nested: &[&Hole], out: &mut String) {
        let mut data = Cow::Borrowed(code.data.as_str());
        if let Some(src) = code.src
            && self.original.get(src..src + code.data.len()) == Some(code.data.as_str())
        {
            let inside: Vec<&&Hole> = nested
                .iter()
                .filter(|h| h.span.start >= src && h.span.end <= src + code.data.len())
                .collect();
            if inside.iter().any(|h| self.edited(h).is_some()) {
                let mut filled = String::new();
                let mut at = src;
                for hole in inside {
                    if hole.span.start < at {
                        continue;
                    }
                    filled.push_str(self.original.get(at..hole.span.start).unwrap_or_default());
                    match self.edited(hole) {
                        Some(runs) => self.render(hole, runs, &[], &mut filled),
                        None => filled
                            .push_str(self.original.get(hole.span.clone()).unwrap_or_default()),
                    }
                    at = hole.span.end;
                }
                filled.push_str(
                    self.original
                        .get(at..src + code.data.len())
                        .unwrap_or_default(),
                );
                data = Cow::Owned(filled);
            }
        }
        if !code.attrs.is_empty() {
            data = Cow::Owned(with_attrs(&data, &code.attrs));
        }
        out.push_str(&data);
    }
}

/// Escapes edited text for its context.
pub(super) fn escape(text: &str, context: Context, out: &mut String) {
    let b = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '&' if entity_end(b, i).is_some() => out.push_str("&amp;"),
            '<' if context == Context::Text
                && b.get(i + 1)
                    .is_none_or(|n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')) =>
            {
                out.push_str("&lt;")
            }
            '"' if context == Context::Quoted('"') => out.push_str("&quot;"),
            '\'' if context == Context::Quoted('\'') => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
}

/// A start tag with its attributes set to `attrs` (values as written), changing only the
/// values that differ and adding missing ones before the tag's end.
pub(super) fn with_attrs(tag: &str, attrs: &BTreeMap<String, String>) -> String {
    let mut lexer = Lexer::new(tag);
    if !tag.starts_with('<') || !tag.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) {
        return tag.to_owned();
    }
    let Some((token, end)) = lexer.parse_tag(0) else {
        return tag.to_owned();
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (name, value) in attrs {
        let found = lexer.attrs[token.attrs.clone()]
            .iter()
            .find(|a| slice(tag, &a.name).eq_ignore_ascii_case(name));
        match found {
            Some(Attr {
                value: Some(span), ..
            }) if slice(tag, span) == value => {}
            Some(Attr {
                value: Some(span), ..
            }) => {
                let b = tag.as_bytes();
                let quoted = span
                    .start
                    .checked_sub(1)
                    .and_then(|i| b.get(i))
                    .is_some_and(|q| matches!(q, b'"' | b'\''));
                let new = if quoted {
                    let q = b.get(span.start - 1).copied().unwrap_or(b'"');
                    if q == b'"' {
                        value.replace('"', "&quot;")
                    } else {
                        value.replace('\'', "&#39;")
                    }
                } else {
                    format!("\"{}\"", value.replace('"', "&quot;"))
                };
                edits.push((span.clone(), new));
            }
            Some(Attr {
                name: n,
                value: None,
            }) => {
                edits.push((
                    n.end..n.end,
                    format!("=\"{}\"", value.replace('"', "&quot;")),
                ));
            }
            None => {
                let close = if token.self_closing { end - 2 } else { end - 1 };
                let mut at = close;
                while at > 0 && tag.as_bytes().get(at - 1).is_some_and(|&c| is_space(c)) {
                    at -= 1;
                }
                edits.push((
                    at..at,
                    format!(" {name}=\"{}\"", value.replace('"', "&quot;")),
                ));
            }
        }
    }
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(tag.len() + 16);
    let mut at = 0;
    for (span, new) in edits {
        if span.start < at {
            continue;
        }
        out.push_str(tag.get(at..span.start).unwrap_or_default());
        out.push_str(&new);
        at = span.end;
    }
    out.push_str(tag.get(at..).unwrap_or_default());
    out
}
