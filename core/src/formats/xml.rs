//! A small XML scanner shared by the XML-based formats: tokens with exact byte spans, a
//! well-formedness pass that builds a flat element tree, attribute and entity decoding.
//!
//! It is not a validating parser: it checks what a round trip needs (tags nest and close,
//! attributes are `name="value"`, references in text and attribute values are the five
//! predefined entities or character references) and reports the first problem with its line
//! and column. DTD internal subsets are skipped, so entities a DTD declares are refused.
//! Every offset indexes into the decoded UTF-8 text; nothing is copied except decoded values.
//! Elements nest at most 256 deep ([`super::MAX_DEPTH`]): a deeper start tag is refused
//! ([`ReadError::TooDeep`]) with its line and column, so the tree (40 bytes an element) and
//! every walk over it stay linear in the file.
//!
//! One scanner, not `quick-xml`: a skeleton writer needs the exact byte span of every token
//! and attribute value as written (quotes, references and whitespace kept), the reads must
//! refuse what a round trip cannot keep with a line and column, and the depth bound must
//! hold before a tree is built. Building that on `quick-xml`'s positions meant re-scanning
//! each tag for its attribute spans, so the dependency was dropped; XLIFF, XLIFF 2, docx and
//! Android all read through this module and its one reference decoder ([`reference()`]).

use std::borrow::Cow;
use std::ops::Range;

use super::{Encoding, ReadError};

/// One piece of markup or text, by byte span in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Character data between tags (entities not yet decoded).
    Text(Range<usize>),
    /// `<![CDATA[…]]>`: `inner` is the verbatim content.
    CData {
        span: Range<usize>,
        inner: Range<usize>,
    },
    Comment(Range<usize>),
    /// A processing instruction or the XML declaration.
    Pi(Range<usize>),
    Doctype(Range<usize>),
    /// A start tag or an empty-element tag; `name` is the qualified name.
    Start {
        span: Range<usize>,
        name: Range<usize>,
        empty: bool,
    },
    End {
        span: Range<usize>,
        name: Range<usize>,
    },
}

impl Token {
    pub fn span(&self) -> Range<usize> {
        match self {
            Token::Text(span) | Token::Comment(span) | Token::Pi(span) | Token::Doctype(span) => {
                span.clone()
            }
            Token::CData { span, .. } | Token::Start { span, .. } | Token::End { span, .. } => {
                span.clone()
            }
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b':' | b'_' | b'-' | b'.') || b >= 0x80
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b':' | b'_') || b >= 0x80
}

fn find_from(text: &str, at: usize, end: usize, pat: &str) -> Option<usize> {
    text.get(at..end)?.find(pat).map(|i| at + i)
}

/// Reads the token at `at` (before `end`); returns it and the offset after it.
pub fn next_token(text: &str, at: usize, end: usize) -> Result<(Token, usize), ReadError> {
    let bytes = text.as_bytes();
    let rest = bytes.get(at..end).unwrap_or_default();
    if rest.first() != Some(&b'<') {
        let stop = rest.iter().position(|&b| b == b'<').map_or(end, |i| at + i);
        return Ok((Token::Text(at..stop), stop));
    }
    if rest.starts_with(b"<!--") {
        let close = find_from(text, at + 4, end, "-->").ok_or_else(|| {
            ReadError::syntax_at(text, at, "a comment is never closed: expected `-->`")
        })?;
        return Ok((Token::Comment(at..close + 3), close + 3));
    }
    if rest.starts_with(b"<![CDATA[") {
        let close = find_from(text, at + 9, end, "]]>").ok_or_else(|| {
            ReadError::syntax_at(text, at, "a CDATA section is never closed: expected `]]>`")
        })?;
        return Ok((
            Token::CData {
                span: at..close + 3,
                inner: at + 9..close,
            },
            close + 3,
        ));
    }
    if rest.starts_with(b"<?") {
        let close = find_from(text, at + 2, end, "?>").ok_or_else(|| {
            ReadError::syntax_at(
                text,
                at,
                "a processing instruction is never closed: expected `?>`",
            )
        })?;
        return Ok((Token::Pi(at..close + 2), close + 2));
    }
    if rest.starts_with(b"<!") {
        return doctype(text, at, rest);
    }
    if rest.get(1) == Some(&b'/') {
        return end_tag(text, at, end);
    }
    start_tag(text, at, end)
}

/// The `<!` declaration (a DOCTYPE) at `at`, whose bytes up to the scan's end are `rest`.
fn doctype(text: &str, at: usize, rest: &[u8]) -> Result<(Token, usize), ReadError> {
    // A DOCTYPE, with an internal subset in brackets that may hold `>`.
    let mut depth = 0usize;
    let mut quote = 0u8;
    for (i, &b) in rest.iter().enumerate().skip(2) {
        if quote != 0 {
            if b == quote {
                quote = 0;
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = b,
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'>' if depth == 0 => return Ok((Token::Doctype(at..at + i + 1), at + i + 1)),
            _ => {}
        }
    }
    Err(ReadError::syntax_at(
        text,
        at,
        "a `<!` declaration is never closed: expected `>`",
    ))
}

/// The end tag at `at` (`</name>`, blanks allowed before the `>`).
fn end_tag(text: &str, at: usize, end: usize) -> Result<(Token, usize), ReadError> {
    let bytes = text.as_bytes();
    let name_start = at + 2;
    let mut i = name_start;
    while i < end && bytes.get(i).is_some_and(|&b| is_name_byte(b)) {
        i += 1;
    }
    if i == name_start {
        return Err(ReadError::syntax_at(
            text,
            at,
            "an end tag has no name: expected `</name>`",
        ));
    }
    let name = name_start..i;
    while i < end && bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if i >= end || bytes.get(i) != Some(&b'>') {
        return Err(ReadError::syntax_at(
            text,
            i.min(end),
            "an end tag is not closed: expected `>`",
        ));
    }
    Ok((
        Token::End {
            span: at..i + 1,
            name,
        },
        i + 1,
    ))
}

/// The start tag (or empty-element tag) at `at`: the name, then attributes up to `>`
/// outside quotes.
fn start_tag(text: &str, at: usize, end: usize) -> Result<(Token, usize), ReadError> {
    let bytes = text.as_bytes();
    let rest = bytes.get(at..end).unwrap_or_default();
    let name_start = at + 1;
    if !rest.get(1).is_some_and(|&b| is_name_start(b)) {
        return Err(ReadError::syntax_at(
            text,
            at,
            "`<` starts no tag: write `&lt;` for a literal `<`",
        ));
    }
    let mut i = name_start;
    while i < end && bytes.get(i).is_some_and(|&b| is_name_byte(b)) {
        i += 1;
    }
    let name = name_start..i;
    let mut quote = 0u8;
    while i < end {
        let b = bytes.get(i).copied().unwrap_or(b'>');
        if quote != 0 {
            if b == quote {
                quote = 0;
            } else if b == b'<' {
                return Err(ReadError::syntax_at(
                    text,
                    i,
                    "`<` inside an attribute value: write `&lt;`",
                ));
            }
        } else if b == b'"' || b == b'\'' {
            quote = b;
        } else if b == b'>' {
            let empty = i > name.end && bytes.get(i - 1) == Some(&b'/');
            return Ok((
                Token::Start {
                    span: at..i + 1,
                    name,
                    empty,
                },
                i + 1,
            ));
        } else if b == b'<' {
            return Err(ReadError::syntax_at(
                text,
                at,
                "a start tag is not closed: expected `>` or `/>`",
            ));
        }
        i += 1;
    }
    Err(ReadError::syntax_at(
        text,
        at,
        "a start tag is not closed: expected `>` or `/>`",
    ))
}

/// One attribute of a start tag: name and raw value spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    pub name: Range<usize>,
    pub value: Range<usize>,
}

/// The attributes of the start tag `span` whose name ends at `name_end`, in order; a
/// malformed attribute ends the iteration with its error.
pub fn attributes<'a>(text: &'a str, name_end: usize, span: &Range<usize>) -> Attributes<'a> {
    Attributes {
        text,
        name_end,
        stop: span.end.saturating_sub(1), // the `>`
        at: name_end,
        done: false,
    }
}

/// Iterator over a start tag's attributes, see [`attributes`].
pub struct Attributes<'a> {
    text: &'a str,
    name_end: usize,
    stop: usize,
    at: usize,
    done: bool,
}

impl Iterator for Attributes<'_> {
    type Item = Result<Attr, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let result = self.step();
        if !matches!(result, Some(Ok(_))) {
            self.done = true;
        }
        result
    }
}

impl Attributes<'_> {
    fn step(&mut self) -> Option<Result<Attr, ReadError>> {
        let (text, stop, name_end) = (self.text, self.stop, self.name_end);
        let bytes = text.as_bytes();
        let mut i = self.at;
        while i < stop && bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if i >= stop || (bytes.get(i) == Some(&b'/') && i + 1 == stop) {
            return None;
        }
        if i == name_end {
            return Some(Err(ReadError::syntax_at(
                text,
                i,
                "expected whitespace before an attribute",
            )));
        }
        let start = i;
        while i < stop && bytes.get(i).is_some_and(|&b| is_name_byte(b)) {
            i += 1;
        }
        if i == start {
            return Some(Err(ReadError::syntax_at(
                text,
                i,
                "expected an attribute name, `>` or `/>`",
            )));
        }
        let name = start..i;
        while i < stop && bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if bytes.get(i) != Some(&b'=') || i >= stop {
            return Some(Err(ReadError::syntax_at(
                text,
                i,
                "expected `=` and a quoted value after the attribute name",
            )));
        }
        i += 1;
        while i < stop && bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let quote = match bytes.get(i) {
            Some(&q @ (b'"' | b'\'')) if i < stop => q,
            _ => {
                return Some(Err(ReadError::syntax_at(
                    text,
                    i,
                    "expected a quoted attribute value",
                )));
            }
        };
        let value_start = i + 1;
        let Some(close) = bytes
            .get(value_start..stop)
            .and_then(|s| s.iter().position(|&b| b == quote))
        else {
            return Some(Err(ReadError::syntax_at(
                text,
                i,
                "an attribute value is never closed",
            )));
        };
        let value = value_start..value_start + close;
        i = value.end + 1;
        if !matches!(bytes.get(i), Some(b) if b.is_ascii_whitespace() || *b == b'/' || *b == b'>') {
            return Some(Err(ReadError::syntax_at(
                text,
                i,
                "expected whitespace, `>` or `/>` after an attribute value",
            )));
        }
        self.at = i;
        Some(Ok(Attr { name, value }))
    }
}

/// Decodes the five predefined entities and character references in `raw`, which starts at
/// byte `at` of `text` (for error positions).
pub fn unescape<'a>(text: &str, raw: &'a str, at: usize) -> Result<Cow<'a, str>, ReadError> {
    if !raw.contains('&') {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    references(text, raw, at, Some(&mut out))?;
    Ok(Cow::Owned(out))
}

/// Checks every reference in `raw` without decoding.
pub fn check_references(text: &str, raw: &str, at: usize) -> Result<(), ReadError> {
    if raw.contains('&') {
        references(text, raw, at, None)?;
    }
    Ok(())
}

/// Walks `raw`'s references, appending the decoded text to `out` when given.
fn references(
    text: &str,
    raw: &str,
    at: usize,
    mut out: Option<&mut String>,
) -> Result<(), ReadError> {
    let mut i = 0;
    while i < raw.len() {
        let rest = raw.get(i..).unwrap_or_default();
        if !rest.starts_with('&') {
            let next = memchr::memchr(b'&', rest.as_bytes()).map_or(raw.len(), |n| i + n);
            if let Some(out) = out.as_deref_mut() {
                out.push_str(raw.get(i..next).unwrap_or_default());
            }
            i = next;
            continue;
        }
        let Some(semi) = rest.bytes().take(12).position(|b| b == b';') else {
            return Err(ReadError::syntax_at(
                text,
                at + i,
                "`&` starts no entity: write `&amp;` for a literal `&`",
            ));
        };
        let name = rest.get(1..semi).unwrap_or_default();
        let Some(c) = reference(name) else {
            return Err(ReadError::syntax_at(
                text,
                at + i,
                format!(
                    "unknown entity `&{name};`: expected `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a character reference"
                ),
            ));
        };
        if let Some(out) = out.as_deref_mut() {
            out.push(c);
        }
        i += semi + 1;
    }
    Ok(())
}

/// The character the reference `&{name};` stands for: one of the five predefined entities,
/// or a character reference as XML 1.0 writes one (`#` and decimal digits, `#x` and hex
/// digits; no sign, no `#X`), of any character but NUL. What every XML reader here decodes
/// with (XLIFF, XLIFF 2, Android resources, docx).
pub fn reference(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let (digits, radix) = match name.strip_prefix("#x") {
                Some(hex) => (hex, 16),
                None => (name.strip_prefix('#')?, 10),
            };
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return None;
            }
            u32::from_str_radix(digits, radix)
                .ok()
                .and_then(char::from_u32)
                .filter(|&c| c != '\0')
        }
    }
}

/// Escapes text for element content: `&`, `<` and `>`.
pub fn escape_text(text: &str, out: &mut String) {
    let mut at = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => continue,
        };
        out.push_str(text.get(at..i).unwrap_or_default());
        out.push_str(entity);
        at = i + 1;
    }
    out.push_str(text.get(at..).unwrap_or_default());
}

/// An element of the tree, by byte offsets into the text. Offsets are `u32` (a tree is
/// refused over text past 4 GB; kapi reads at most 100 MB), so an element takes 40 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The start tag (or the empty-element tag).
    open: Range<u32>,
    /// Where the qualified name ends (it starts after the start tag's `<`).
    name_end: u32,
    /// The end tag; empty at `open.end` for an empty-element tag.
    close: Range<u32>,
    parent: u32,
    depth: u32,
    /// Index after the last element of this element's subtree.
    subtree_end: u32,
    first_child: u32,
    next_sibling: u32,
    empty: bool,
}

/// How many start tags (and empty-element tags) `text` holds, about: each `<` before a name,
/// outside comments, CDATA sections and processing instructions. (Past the first error it may
/// count more, and the parse stops there.)
fn start_tags(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut count, mut at) = (0, 0);
    while let Some(i) = b
        .get(at..)
        .and_then(|rest| rest.iter().position(|&c| c == b'<'))
    {
        let lt = at + i;
        let rest = &text[lt..];
        let close = if rest.starts_with("<!--") {
            Some("-->")
        } else if rest.starts_with("<![CDATA[") {
            Some("]]>")
        } else if rest.starts_with("<?") {
            Some("?>")
        } else {
            None
        };
        at = match close {
            Some(close) => rest[2..]
                .find(close)
                .map_or(b.len(), |j| lt + 2 + j + close.len()),
            None => {
                if b.get(lt + 1).is_some_and(|&c| {
                    c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80
                }) {
                    count += 1;
                }
                lt + 1
            }
        };
    }
    count
}

/// No parent, child or sibling.
const NONE: u32 = u32::MAX;

fn wide(range: &Range<u32>) -> Range<usize> {
    range.start as usize..range.end as usize
}

fn index(i: u32) -> Option<usize> {
    (i != NONE).then_some(i as usize)
}

impl Element {
    /// The start tag (or the empty-element tag).
    pub fn open(&self) -> Range<usize> {
        wide(&self.open)
    }
    /// The qualified name inside the start tag.
    pub fn name(&self) -> Range<usize> {
        self.open.start as usize + 1..self.name_end as usize
    }
    /// The end tag; empty at the start tag's end for an empty-element tag.
    pub fn close(&self) -> Range<usize> {
        wide(&self.close)
    }
    pub fn empty(&self) -> bool {
        self.empty
    }
    pub fn parent(&self) -> Option<usize> {
        index(self.parent)
    }
    /// How many elements enclose it (0 for the root).
    pub fn depth(&self) -> usize {
        self.depth as usize
    }
    /// Index after the last element of this element's subtree (elements are in document
    /// order, so descendants are `index + 1 .. subtree_end`).
    pub fn subtree_end(&self) -> usize {
        self.subtree_end as usize
    }
    /// The whole element, start tag to end tag.
    pub fn span(&self) -> Range<usize> {
        self.open.start as usize..self.close.end as usize
    }
    /// Between the start tag and the end tag.
    pub fn content(&self) -> Range<usize> {
        self.open.end as usize..self.close.start as usize
    }
}

/// A well-formed document's elements in document order.
#[derive(Debug, Clone)]
pub struct Tree<'t> {
    pub text: &'t str,
    pub elements: Vec<Element>,
    /// Index of the root element.
    pub root: usize,
}

impl<'t> Tree<'t> {
    /// Checks that `text` is well-formed XML and indexes its elements.
    pub fn parse(text: &'t str) -> Result<Tree<'t>, ReadError> {
        if u32::try_from(text.len()).is_err() {
            return Err(ReadError::TooLarge {
                at: "1:1".into(),
                message: "the XML text is larger than 4 GB".into(),
            });
        }
        let mut builder = TreeBuilder::new(text);
        let mut at = 0;
        let end = text.len();
        while at < end {
            let (token, next) = next_token(text, at, end)?;
            match token {
                Token::Text(span) => builder.text(span)?,
                Token::CData { span, .. } => {
                    if builder.stack.is_empty() {
                        return Err(ReadError::syntax_at(
                            text,
                            span.start,
                            "a CDATA section outside the root element",
                        ));
                    }
                }
                Token::Comment(_) | Token::Pi(_) | Token::Doctype(_) => {}
                Token::Start { span, name, empty } => builder.start(span, name, empty)?,
                Token::End { span, name } => builder.end(span, name)?,
            }
            at = next;
        }
        builder.finish()
    }

    pub fn get(&self, index: usize) -> Option<&Element> {
        self.elements.get(index)
    }

    /// The qualified name (`xlf:source`).
    pub fn qname(&self, index: usize) -> &'t str {
        self.elements
            .get(index)
            .and_then(|e| self.text.get(e.name()))
            .unwrap_or_default()
    }

    /// The prefix of the name (`xlf`), empty without one.
    pub fn prefix(&self, index: usize) -> &'t str {
        self.qname(index)
            .split_once(':')
            .map_or("", |(prefix, _)| prefix)
    }

    /// The local name (`source`).
    pub fn local(&self, index: usize) -> &'t str {
        let name = self.qname(index);
        name.split_once(':').map_or(name, |(_, local)| local)
    }

    /// The children of an element, in order.
    pub fn children(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let mut next = self
            .elements
            .get(index)
            .and_then(|e| self::index(e.first_child));
        std::iter::from_fn(move || {
            let current = next?;
            next = self
                .elements
                .get(current)
                .and_then(|e| self::index(e.next_sibling));
            Some(current)
        })
    }

    /// The decoded value of the attribute with this qualified name.
    pub fn attr(&self, index: usize, name: &str) -> Option<Cow<'t, str>> {
        let element = self.elements.get(index)?;
        let attr = attributes(self.text, element.name().end, &element.open())
            .map_while(Result::ok)
            .find(|a| self.text.get(a.name.clone()) == Some(name))?;
        let raw = self.text.get(attr.value.clone())?;
        unescape(self.text, raw, attr.value.start).ok()
    }

    /// The element's text content with entities decoded, markup dropped.
    pub fn text_content(&self, index: usize) -> String {
        let mut out = String::new();
        let Some(element) = self.elements.get(index) else {
            return out;
        };
        let range = element.content();
        let mut at = range.start;
        while at < range.end {
            let Ok((token, next)) = next_token(self.text, at, range.end) else {
                break;
            };
            match token {
                Token::Text(span) => {
                    let raw = self.text.get(span.clone()).unwrap_or_default();
                    if let Ok(text) = unescape(self.text, raw, span.start) {
                        out.push_str(&text);
                    }
                }
                Token::CData { inner, .. } => {
                    out.push_str(self.text.get(inner).unwrap_or_default())
                }
                _ => {}
            }
            at = next.max(at + 1);
        }
        out
    }
}

/// An offset as a tree holds it (the text is at most 4 GB: [`Tree::parse`] checks).
fn narrow(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(NONE)
}

/// The state of [`Tree::parse`]: the elements so far and the open ones.
struct TreeBuilder<'t> {
    text: &'t str,
    elements: Vec<Element>,
    stack: Vec<usize>,
    /// The last child seen of each open element (parallel to `stack`).
    last_child: Vec<Option<usize>>,
    root: Option<usize>,
}

impl<'t> TreeBuilder<'t> {
    fn new(text: &'t str) -> Self {
        // Room for the elements, reserved once, so the vector never grows by doubling (a file
        // dense with elements peaked at the old and the new vector together); when the room
        // cannot be had, it grows as it goes.
        let mut elements: Vec<Element> = Vec::new();
        let _ = elements.try_reserve_exact(start_tags(text));
        Self {
            text,
            elements,
            stack: Vec::new(),
            last_child: Vec::new(),
            root: None,
        }
    }

    /// Character data: only blanks outside the root, and well-formed references inside it.
    fn text(&self, span: Range<usize>) -> Result<(), ReadError> {
        let text = self.text;
        let raw = text.get(span.clone()).unwrap_or_default();
        if self.stack.is_empty() {
            if let Some(i) = raw
                .char_indices()
                .find(|&(_, c)| !c.is_whitespace() && c != '\u{feff}')
                .map(|(i, _)| i)
            {
                return Err(ReadError::syntax_at(
                    text,
                    span.start + i,
                    "text outside the root element: expected a tag",
                ));
            }
        } else {
            check_references(text, raw, span.start)?;
        }
        Ok(())
    }

    /// A start tag (or empty-element tag): a new element, linked to its parent and its
    /// previous sibling.
    fn start(
        &mut self,
        span: Range<usize>,
        name: Range<usize>,
        empty: bool,
    ) -> Result<(), ReadError> {
        let text = self.text;
        if self.stack.is_empty() && self.root.is_some() {
            return Err(ReadError::syntax_at(
                text,
                span.start,
                "a second root element: a document has one",
            ));
        }
        for attr in attributes(text, name.end, &span) {
            let attr = attr?;
            let raw = text.get(attr.value.clone()).unwrap_or_default();
            check_references(text, raw, attr.value.start)?;
        }
        let index = self.elements.len();
        let parent = self.stack.last().copied();
        match parent {
            Some(_) => {
                if let Some(Some(prev)) = self.last_child.last().copied()
                    && let Some(p) = self.elements.get_mut(prev)
                {
                    p.next_sibling = narrow(index);
                } else if let Some(p) = parent.and_then(|p| self.elements.get_mut(p)) {
                    p.first_child = narrow(index);
                }
                if let Some(slot) = self.last_child.last_mut() {
                    *slot = Some(index);
                }
            }
            None => self.root = Some(index),
        }
        if !empty && self.stack.len() >= super::MAX_DEPTH {
            return Err(ReadError::too_deep(
                text,
                span.start,
                "elements",
                super::MAX_DEPTH,
            ));
        }
        debug_assert_eq!(name.start, span.start + 1);
        self.elements.push(Element {
            open: narrow(span.start)..narrow(span.end),
            name_end: narrow(name.end),
            close: narrow(span.end)..narrow(span.end),
            empty,
            parent: parent.map_or(NONE, narrow),
            depth: narrow(self.stack.len()),
            subtree_end: narrow(index + 1),
            first_child: NONE,
            next_sibling: NONE,
        });
        if !empty {
            self.stack.push(index);
            self.last_child.push(None);
        }
        Ok(())
    }

    /// An end tag: it closes the innermost open element, which must have its name.
    fn end(&mut self, span: Range<usize>, name: Range<usize>) -> Result<(), ReadError> {
        let text = self.text;
        let Some(open) = self.stack.pop() else {
            return Err(ReadError::syntax_at(
                text,
                span.start,
                format!(
                    "`</{}>` closes no open element",
                    text.get(name).unwrap_or_default()
                ),
            ));
        };
        self.last_child.pop();
        let count = self.elements.len();
        let Some(element) = self.elements.get_mut(open) else {
            return Ok(());
        };
        let open_name = text.get(element.name()).unwrap_or_default();
        let close_name = text.get(name).unwrap_or_default();
        if open_name != close_name {
            let opened = ReadError::syntax_at(text, element.open().start, "");
            let (line, column) = match opened {
                ReadError::Syntax { line, column, .. } => (line, column),
                _ => (0, 0),
            };
            return Err(ReadError::syntax_at(
                text,
                span.start,
                format!(
                    "`</{close_name}>` closes `<{open_name}>` (opened at {line}:{column}): expected `</{open_name}>`"
                ),
            ));
        }
        element.close = narrow(span.start)..narrow(span.end);
        element.subtree_end = narrow(count);
        Ok(())
    }

    /// The tree, once every element is closed and there is a root.
    fn finish(self) -> Result<Tree<'t>, ReadError> {
        let text = self.text;
        if let Some(&open) = self.stack.last() {
            let (start, name) = self
                .elements
                .get(open)
                .map(|e| (e.open().start, text.get(e.name()).unwrap_or_default()))
                .unwrap_or((0, ""));
            return Err(ReadError::syntax_at(
                text,
                start,
                format!(
                    "`<{name}>` is never closed: expected `</{name}>` before the end of the file"
                ),
            ));
        }
        let Some(root) = self.root else {
            return Err(ReadError::syntax_at(
                text,
                text.len(),
                "no root element: the file holds no XML element",
            ));
        };
        Ok(Tree {
            text,
            elements: self.elements,
            root,
        })
    }
}

/// Decodes an XML file: the encoding a BOM names, else the one the XML declaration names,
/// else UTF-8.
pub fn decode(bytes: &[u8]) -> Result<(Cow<'_, str>, Encoding), ReadError> {
    match Encoding::sniff_bom(bytes) {
        Some(enc @ (Encoding::Utf16Le | Encoding::Utf16Be)) => {
            return Ok((enc.decode(bytes)?, enc));
        }
        Some(_) => return Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8)),
        None => {}
    }
    let Some(label) = declared_encoding(bytes) else {
        return Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8));
    };
    let Some(encoding) = Encoding::for_label(&label) else {
        let at = bytes.windows(8).position(|w| w == b"encoding").unwrap_or(0);
        let head = String::from_utf8_lossy(bytes.get(..at).unwrap_or_default()).into_owned();
        return Err(ReadError::syntax_at(
            &head,
            head.len(),
            format!("unknown encoding `{label}` in the XML declaration"),
        ));
    };
    Ok((encoding.decode(bytes)?, encoding))
}

/// The `encoding` the XML declaration at the start of `bytes` names.
pub fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..bytes.len().min(200))?;
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(head.get(..end)?).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl
        .get(at + 8..)?
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = rest.get(1..)?;
    let close = value.find(quote)?;
    Some(value.get(..close)?.to_owned())
}

/// The root element's qualified name and attributes (name, decoded value), read from the
/// first bytes of a file: a BOM, the XML declaration, comments, processing instructions and
/// a DOCTYPE are skipped. `None` when no root start tag lies in `head`.
pub fn sniff_root(head: &[u8]) -> Option<(String, Vec<(String, String)>)> {
    let decoded: Cow<'_, str> = match Encoding::sniff_bom(head) {
        Some(enc @ (Encoding::Utf16Le | Encoding::Utf16Be)) => {
            let even = head.get(..head.len() & !1).unwrap_or_default();
            let units = even.chunks(2).map(|pair| match pair {
                [a, b] if enc == Encoding::Utf16Le => u16::from_le_bytes([*a, *b]),
                [a, b] => u16::from_be_bytes([*a, *b]),
                _ => 0xFFFD,
            });
            Cow::Owned(
                char::decode_utf16(units)
                    .map(|c| c.unwrap_or('\u{fffd}'))
                    .collect(),
            )
        }
        _ => String::from_utf8_lossy(head),
    };
    let text: &str = &decoded;
    let mut at = 0;
    while at < text.len() {
        let (token, next) = next_token(text, at, text.len()).ok()?;
        match token {
            Token::Start { span, name, .. } => {
                let attrs = attributes(text, name.end, &span)
                    .collect::<Result<Vec<_>, _>>()
                    .ok()?;
                let attrs = attrs
                    .into_iter()
                    .map(|a| {
                        let raw = text.get(a.value.clone()).unwrap_or_default();
                        (
                            text.get(a.name).unwrap_or_default().to_owned(),
                            unescape(text, raw, a.value.start)
                                .map(Cow::into_owned)
                                .unwrap_or_else(|_| raw.to_owned()),
                        )
                    })
                    .collect();
                return Some((text.get(name).unwrap_or_default().to_owned(), attrs));
            }
            Token::Text(span) => {
                let raw = text.get(span).unwrap_or_default();
                if raw.chars().any(|c| !c.is_whitespace() && c != '\u{feff}') {
                    return None;
                }
            }
            Token::End { .. } | Token::CData { .. } => return None,
            Token::Comment(_) | Token::Pi(_) | Token::Doctype(_) => {}
        }
        at = next.max(at + 1);
    }
    None
}

/// Which major XLIFF version a file's root announces: `Some(2)` for `version="2.x"` or the
/// 2.0 namespace, `Some(1)` for another `<xliff>` root, `None` when the head shows no
/// `<xliff>` root.
pub fn xliff_major(head: &[u8]) -> Option<u8> {
    let (name, attrs) = sniff_root(head)?;
    let local = name.rsplit(':').next().unwrap_or_default();
    if local != "xliff" {
        return None;
    }
    let version = attrs
        .iter()
        .find(|(n, _)| n == "version")
        .map(|(_, v)| v.trim());
    if let Some(version) = version {
        return Some(if version.starts_with('2') { 2 } else { 1 });
    }
    let two = attrs.iter().any(|(n, v)| {
        (n == "xmlns" || n.starts_with("xmlns:"))
            && v.starts_with("urn:oasis:names:tc:xliff:document:2.")
    });
    Some(if two { 2 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_is_decoded_only_as_xml_writes_one() {
        for (name, c) in [
            ("amp", Some('&')),
            ("apos", Some('\'')),
            ("#65", Some('A')),
            ("#x41", Some('A')),
            ("#x1F600", Some('\u{1F600}')),
            ("#0065", Some('A')),
            ("#X41", None),
            ("#0", None),
            ("#x0", None),
            ("#+65", None),
            ("#x+41", None),
            ("#", None),
            ("#x", None),
            ("#xD800", None),
            ("#x110000", None),
            ("nbsp", None),
            ("AMP", None),
        ] {
            assert_eq!(reference(name), c, "&{name};");
        }
    }

    #[test]
    fn start_tags_are_counted_outside_comments_cdata_and_instructions() {
        let text =
            "<?xml version=\"1.0\"?><a><!-- <b> <c> --><b/><![CDATA[<d>]]><?p <e>?><c></c></a>";
        assert_eq!(start_tags(text), 3);
        assert_eq!(start_tags("<!-- unclosed <a>"), 0);
        assert_eq!(start_tags("a < b <c"), 1);
    }

    fn error(text: &str) -> String {
        match Tree::parse(text) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{text:?} parsed"),
        }
    }

    #[test]
    fn malformed_documents_are_refused_with_their_position() {
        let table: &[(&str, &str)] = &[
            (
                "<a><b></a>",
                "1:7: `</a>` closes `<b>` (opened at 1:4): expected `</b>`",
            ),
            (
                "<a>\n  <b>",
                "2:3: `<b>` is never closed: expected `</b>` before the end of the file",
            ),
            ("<a>x &nbsp; y</a>", "1:6: unknown entity `&nbsp;`"),
            ("<a>x & y</a>", "1:6: `&` starts no entity"),
            ("<a b=c/>", "1:6: expected a quoted attribute value"),
            ("<a b='<'/>", "1:7: `<` inside an attribute value"),
            ("<a><!-- x</a>", "1:4: a comment is never closed"),
            ("<a>< b</a>", "1:4: `<` starts no tag"),
            ("", "1:1: no root element"),
            ("<a/><b/>", "1:5: a second root element"),
            ("</a>", "1:1: `</a>` closes no open element"),
            (
                "<a b='1'c='2'/>",
                "1:9: expected whitespace, `>` or `/>` after an attribute value",
            ),
        ];
        for (text, want) in table {
            let got = error(text);
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }

    #[test]
    fn the_tree_knows_spans_children_and_attributes() {
        let text = "<?xml version='1.0'?>\n<r:a x=\"1 &amp; 2\"><b/><c>t</c><!-- k --></r:a>";
        let tree = Tree::parse(text).unwrap();
        assert_eq!(tree.qname(tree.root), "r:a");
        assert_eq!((tree.prefix(0), tree.local(0)), ("r", "a"));
        assert_eq!(tree.attr(0, "x").as_deref(), Some("1 & 2"));
        let kids: Vec<_> = tree.children(0).map(|i| tree.qname(i)).collect();
        assert_eq!(kids, ["b", "c"]);
        let c = &tree.elements[2];
        assert_eq!(&text[c.content()], "t");
        assert_eq!(&text[c.span()], "<c>t</c>");
        assert_eq!(tree.elements[0].subtree_end(), 3);
        assert_eq!(tree.text_content(0), "t");
    }

    #[test]
    fn entities_decode_and_escape_symmetrically() {
        assert_eq!(unescape("", "a&lt;&#65;&#x42;&amp;", 0).unwrap(), "a<AB&");
        let mut out = String::new();
        escape_text("a<b>&c", &mut out);
        assert_eq!(out, "a&lt;b&gt;&amp;c");
        assert_eq!(unescape("", &out, 0).unwrap(), "a<b>&c");
    }

    #[test]
    fn sniffing_reads_the_root_past_declaration_comments_and_bom() {
        let two = "\u{feff}<?xml version=\"1.0\"?>\n<!-- c --><xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.1\">";
        assert_eq!(xliff_major(two.as_bytes()), Some(2));
        assert_eq!(
            xliff_major(b"<xliff xmlns='urn:oasis:names:tc:xliff:document:2.0'>"),
            Some(2)
        );
        assert_eq!(
            xliff_major(b"<x:xliff version=\"1.2\" xmlns:x=\"u\">"),
            Some(1)
        );
        assert_eq!(xliff_major(b"<resources>"), None);
        assert_eq!(xliff_major(b"<!-- truncated"), None);
        let utf16: Vec<u8> = "\u{feff}<xliff version=\"2.0\">"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(xliff_major(&utf16), Some(2));
    }

    #[test]
    fn the_declared_encoding_decodes_the_file() {
        let bytes = b"<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>\x80</a>";
        let (text, enc) = decode(bytes).unwrap();
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>\u{20ac}</a>"
        );
        assert!(matches!(enc, Encoding::Legacy(_)));
        assert!(decode(b"<?xml version=\"1.0\" encoding=\"nope-9\"?><a/>").is_err());
    }
}
