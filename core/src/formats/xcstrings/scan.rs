//! A strict JSON cursor over a String Catalog's text: the reader walks the members it knows
//! (`strings`, `localizations`, `stringUnit`…) and skips every other value, checking it.
//!
//! Skipping is iterative with a count of open objects and arrays, refused past
//! [`MAX_DEPTH`]; nothing is built for a skipped value, so any input costs linear time and
//! memory. Strings are decoded only when the reader asks ([`Cursor::decode`]).

use std::ops::Range;

use crate::formats::inline::icu::Piece;
use crate::formats::json::escape_at;
use crate::formats::{MAX_DEPTH, ReadError};

/// A member's value handed to [`Cursor::object`]'s callback: the cursor stands at it.
pub(super) type Member<'m, 't> =
    &'m mut dyn FnMut(&mut Cursor<'t>, Range<usize>) -> Result<(), ReadError>;

pub(super) struct Cursor<'t> {
    pub text: &'t str,
    bytes: &'t [u8],
    pub pos: usize,
}

impl<'t> Cursor<'t> {
    /// A cursor at the start of `text`, after a BOM.
    pub fn new(text: &'t str) -> Self {
        let pos = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos,
        }
    }

    pub fn error(&self, at: usize, message: impl Into<String>) -> ReadError {
        ReadError::syntax_at(self.text, at, message)
    }

    /// What is at `at`, for messages.
    fn found(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|rest| rest.chars().next()) {
            None => "the end of the file".into(),
            Some(c) if c.is_control() => format!("U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
        }
    }

    pub fn ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The next byte after white space.
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes.get(self.pos).copied()
    }

    /// Only white space is left.
    pub fn end(&mut self) -> Result<(), ReadError> {
        self.ws();
        if self.pos < self.bytes.len() {
            return Err(self.error(
                self.pos,
                format!(
                    "expected the end of the file after the JSON value, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        Ok(())
    }

    /// The string token at the cursor (after white space), quotes included.
    pub fn string(&mut self) -> Result<Range<usize>, ReadError> {
        self.ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            return Err(self.error(
                start,
                format!("expected a string, found {}", self.found(start)),
            ));
        }
        let mut at = start + 1;
        loop {
            let rest = self.bytes.get(at..).unwrap_or_default();
            let Some(found) = memchr::memchr2(b'"', b'\\', rest) else {
                return Err(self.error(
                    start,
                    "unterminated string: no closing `\"` before the end of the file",
                ));
            };
            if let Some(bad) = rest[..found].iter().position(|&b| b < 0x20) {
                return Err(self.error(
                    at + bad,
                    "a control character inside a string: write it as an escape (`\\n`, `\\t`, `\\u0001`)",
                ));
            }
            at += found;
            if self.bytes.get(at) == Some(&b'"') {
                self.pos = at + 1;
                return Ok(start..at + 1);
            }
            match escape_at(self.bytes, at) {
                Some((_, len)) => at += len,
                None => {
                    return Err(self.error(
                        at,
                        "an invalid escape: JSON takes `\\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t` and `\\uXXXX`",
                    ));
                }
            }
        }
    }

    /// A string token's text decoded, and the verbatim pieces (decoded offset, file offset)
    /// when it has escapes; `None` when its content is a verbatim slice of the file.
    pub fn decode(&self, token: &Range<usize>) -> (String, Option<Vec<Piece>>) {
        let content = content(token);
        let raw = self.text.get(content.clone()).unwrap_or_default();
        if !raw.contains('\\') {
            return (raw.to_owned(), None);
        }
        let mut text = String::with_capacity(raw.len());
        let mut pieces = Vec::new();
        let mut at = content.start;
        let mut verbatim = at;
        let mut keep = |text: &mut String, from: usize, to: usize| {
            if to > from {
                pieces.push(Piece {
                    dec: text.len(),
                    src: from,
                    len: to - from,
                });
                text.push_str(self.text.get(from..to).unwrap_or_default());
            }
        };
        while at < content.end {
            if self.bytes.get(at) == Some(&b'\\') {
                keep(&mut text, verbatim, at);
                let (c, len) = escape_at(self.bytes, at).unwrap_or(('\u{fffd}', 2));
                text.push(c);
                at += len;
                verbatim = at;
            } else {
                at += 1;
            }
        }
        keep(&mut text, verbatim, content.end);
        (text, Some(pieces))
    }

    /// A string token's decoded text alone.
    pub fn text_of(&self, token: &Range<usize>) -> String {
        self.decode(token).0
    }

    /// `"name" :` at the cursor: the name's token.
    fn member_name(&mut self) -> Result<Range<usize>, ReadError> {
        self.ws();
        if self.bytes.get(self.pos) != Some(&b'"') {
            let mut message = format!(
                "expected a member name in double quotes, found {}",
                self.found(self.pos)
            );
            if self.bytes.get(self.pos) == Some(&b'}') {
                message.push_str(" (JSON allows no trailing comma)");
            }
            return Err(self.error(self.pos, message));
        }
        let name = self.string()?;
        self.ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.error(
                self.pos,
                format!(
                    "expected `:` after a member name, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        self.pos += 1;
        self.ws();
        Ok(name)
    }

    /// The object at the cursor, `depth` objects deep: `each` gets every member's name token
    /// with the cursor at its value, and must read or skip that value. Returns the object's
    /// span, braces included.
    pub fn object(
        &mut self,
        depth: usize,
        each: Member<'_, 't>,
    ) -> Result<Range<usize>, ReadError> {
        self.ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'{') {
            return Err(self.error(
                start,
                format!("expected an object, found {}", self.found(start)),
            ));
        }
        if depth >= MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                start,
                "objects and arrays",
                MAX_DEPTH,
            ));
        }
        self.pos += 1;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(start..self.pos);
        }
        loop {
            let name = self.member_name()?;
            each(self, name)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(start..self.pos);
                }
                _ => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `,` or `}}` after an object member, found {}",
                            self.found(self.pos)
                        ),
                    ));
                }
            }
        }
    }

    /// Skips the value at the cursor, `depth` objects deep, checking its syntax; its span.
    pub fn skip(&mut self, depth: usize) -> Result<Range<usize>, ReadError> {
        self.ws();
        let first = self.pos;
        // The open objects (`{`) and arrays (`[`) inside the value.
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.ws();
            let start = self.pos;
            match self.bytes.get(start).copied() {
                Some(b @ (b'{' | b'[')) => {
                    if depth + open.len() >= MAX_DEPTH {
                        return Err(ReadError::too_deep(
                            self.text,
                            start,
                            "objects and arrays",
                            MAX_DEPTH,
                        ));
                    }
                    let close = if b == b'{' { b'}' } else { b']' };
                    self.pos += 1;
                    if self.peek() == Some(close) {
                        self.pos += 1;
                    } else {
                        open.push(b);
                        if b == b'{' {
                            self.member_name()?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't' | b'f' | b'n') => self.literal()?,
                _ => {
                    let mut message = format!(
                        "expected a value (an object, array, string, number, `true`, `false` or `null`), found {}",
                        self.found(start)
                    );
                    if self.bytes.get(start) == Some(&b']') {
                        message.push_str(" (JSON allows no trailing comma)");
                    }
                    return Err(self.error(start, message));
                }
            }
            // After a value: close what ends here, up to the next member or element.
            loop {
                let Some(&top) = open.last() else {
                    return Ok(first..self.pos);
                };
                match (self.peek(), top) {
                    (Some(b','), _) => {
                        self.pos += 1;
                        if top == b'{' {
                            self.member_name()?;
                        }
                        break;
                    }
                    (Some(b'}'), b'{') | (Some(b']'), b'[') => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => {
                        let close = if top == b'{' { '}' } else { ']' };
                        return Err(self.error(
                            self.pos,
                            format!("expected `,` or `{close}`, found {}", self.found(self.pos)),
                        ));
                    }
                }
            }
        }
    }

    /// A JSON number at the cursor.
    fn number(&mut self) -> Result<(), ReadError> {
        let start = self.pos;
        let digits = |c: &mut Self| {
            let from = c.pos;
            while c.bytes.get(c.pos).is_some_and(u8::is_ascii_digit) {
                c.pos += 1;
            }
            c.pos > from
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let lead = self.pos;
        if !digits(self) || (self.bytes.get(lead) == Some(&b'0') && self.pos > lead + 1) {
            return Err(self.error(start, "an invalid number"));
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.error(start, "an invalid number: no digit after `.`"));
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.error(start, "an invalid number: no digit in the exponent"));
            }
        }
        Ok(())
    }

    /// `true`, `false` or `null` at the cursor.
    fn literal(&mut self) -> Result<(), ReadError> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        for word in ["true", "false", "null"] {
            if rest.starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Ok(());
            }
        }
        Err(self.error(
            self.pos,
            format!(
                "expected `true`, `false` or `null`, found {}",
                self.found(self.pos)
            ),
        ))
    }

    /// Whether the value at `span` is the literal `false`.
    pub fn is_false(&self, span: &Range<usize>) -> bool {
        self.text.get(span.clone()) == Some("false")
    }
}

/// A string token's content, between its quotes.
pub(super) fn content(token: &Range<usize>) -> Range<usize> {
    token.start + 1..token.end.saturating_sub(1).max(token.start + 1)
}
