//! The YAML scanner: lines, indentation, documents, block mappings and sequences, and
//! the node properties (anchors, tags) and aliases before a value.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::MAX_DEPTH;
use super::tree::{Entry, Node, Scalar, key_text, slice};
use crate::formats::ReadError;

/// The scalars wanted, taken from the collections as they end.
#[derive(Default)]
pub(super) struct Harvest<'a> {
    pub(super) wanted: HashSet<usize>,
    pub(super) found: HashMap<usize, Scalar<'a>>,
}

impl<'a> Harvest<'a> {
    pub(super) fn take(&mut self, node: Node<'a>) {
        match node {
            Node::Scalar(s) => {
                if self.wanted.contains(&s.span.start) {
                    self.found.insert(s.span.start, s);
                }
            }
            Node::Map(entries, _) => {
                for entry in entries {
                    self.take(entry.value);
                }
            }
            Node::Seq(items, _) => {
                for item in items {
                    self.take(item);
                }
            }
            Node::Alias(_) | Node::Null(_) => {}
        }
    }
}

pub(super) fn is_break(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

pub(super) fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// A blank, a line break or the end of the text (0).
pub(super) fn is_blankz(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0)
}

pub(super) fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

/// What the next line that is not blank or a comment holds.
pub(super) enum Line {
    Content {
        indent: usize,
        at: usize,
    },
    /// `---` or `...` at column 0.
    Marker {
        at: usize,
    },
    Eof,
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) b: &'a [u8],
    pub(super) pos: usize,
    /// Where the first line starts (after a BOM).
    pub(super) start: usize,
    pub(super) depth: usize,
    /// The comment lines just above the line [`Parser::peek`] found.
    pub(super) notes: Vec<Range<usize>>,
    /// The entries and items of the collections being read, innermost last: a collection
    /// takes its own off the top when it ends, so each holds exactly its length (a vector
    /// grown by doubling is a quarter empty on average, and the tree is most of a read).
    pub(super) entries: Vec<Entry<'a>>,
    pub(super) items: Vec<Node<'a>>,
    /// Set, the collections keep nothing: their scalars go here as each ends.
    pub(super) harvest: Option<Harvest<'a>>,
    /// The scalars inside the collections read so far (room for the blocks and holes).
    pub(super) scalars: usize,
    /// Some mapping read so far repeats a key.
    pub(super) repeats: bool,
}

impl<'a> Parser<'a> {
    /// The entries of the collection that began at `mark`, off the stack (none kept when
    /// harvesting).
    pub(super) fn close_entries(&mut self, mark: usize) -> Vec<Entry<'a>> {
        let Some(harvest) = self.harvest.as_mut() else {
            // Counted here, while the entries are in the cache, rather than by walking the
            // tree again.
            let entries = self.entries.get(mark..).unwrap_or_default();
            self.scalars += entries
                .iter()
                .filter(|e| matches!(e.value, Node::Scalar(_)))
                .count();
            self.repeats = self.repeats || repeats_a_key(entries);
            return take_from(&mut self.entries, mark);
        };
        for entry in self.entries.drain(mark..) {
            harvest.take(entry.value);
        }
        Vec::new()
    }

    /// [`Parser::close_entries`] for a sequence's items.
    pub(super) fn close_items(&mut self, mark: usize) -> Vec<Node<'a>> {
        let Some(harvest) = self.harvest.as_mut() else {
            let items = self.items.get(mark..).unwrap_or_default();
            self.scalars += items
                .iter()
                .filter(|n| matches!(n, Node::Scalar(_)))
                .count();
            return take_from(&mut self.items, mark);
        };
        for item in self.items.drain(mark..) {
            harvest.take(item);
        }
        Vec::new()
    }

    /// A parser of a whole stream, which holds text: a NUL is refused before anything is read.
    pub(super) fn over(text: &'a str) -> Result<Self, ReadError> {
        if let Some(at) = text.find('\0') {
            return Err(ReadError::syntax_at(
                text,
                at,
                "a NUL character: a YAML file holds text",
            ));
        }
        Ok(Parser::new(text))
    }

    pub(super) fn new(text: &'a str) -> Self {
        let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Parser {
            text,
            b: text.as_bytes(),
            pos: start,
            start,
            depth: 0,
            notes: Vec::new(),
            entries: Vec::new(),
            items: Vec::new(),
            scalars: 0,
            repeats: false,
            harvest: None,
        }
    }

    pub(super) fn err(&self, at: usize, message: impl Into<String>) -> ReadError {
        ReadError::syntax_at(self.text, at, message)
    }

    /// The byte at `p`, 0 past the end (the text holds no NUL).
    pub(super) fn byte(&self, p: usize) -> u8 {
        self.b.get(p).copied().unwrap_or(0)
    }

    pub(super) fn char_at(&self, p: usize) -> char {
        self.text
            .get(p..)
            .and_then(|s| s.chars().next())
            .unwrap_or(' ')
    }

    pub(super) fn line_start(&self, p: usize) -> usize {
        let p = p.min(self.b.len());
        match self
            .b
            .get(..p)
            .and_then(|s| s.iter().rposition(|&c| is_break(c)))
        {
            Some(i) => i + 1,
            None => self.start.min(p),
        }
    }

    pub(super) fn col(&self, p: usize) -> usize {
        p - self.line_start(p)
    }

    /// The end of the line holding `p` (its line break, or the end of the text).
    pub(super) fn line_end(&self, p: usize) -> usize {
        let from = p.min(self.b.len());
        self.b
            .get(from..)
            .and_then(|s| s.iter().position(|&c| is_break(c)))
            .map_or(self.b.len(), |i| from + i)
    }

    /// Just past the line break at `p` (`\r\n`, `\r` or `\n`).
    pub(super) fn after_break(&self, p: usize) -> usize {
        match self.byte(p) {
            b'\r' if self.byte(p + 1) == b'\n' => p + 2,
            b'\r' | b'\n' => p + 1,
            _ => p,
        }
    }

    /// `---` or `...` at column 0, followed by a blank or the end.
    pub(super) fn is_marker(&self, p: usize) -> bool {
        let three = self.b.get(p..p + 3);
        (three == Some(b"---") || three == Some(b"...")) && is_blankz(self.byte(p + 3))
    }

    pub(super) fn is_seq_entry(&self, p: usize) -> bool {
        self.byte(p) == b'-' && is_blankz(self.byte(p + 1))
    }

    pub(super) fn skip_inline_space(&mut self) {
        while is_blank(self.byte(self.pos)) {
            self.pos += 1;
        }
    }

    pub(super) fn at_line_end_or_comment(&self) -> bool {
        let c = self.byte(self.pos);
        self.pos >= self.b.len() || is_break(c) || c == b'#'
    }

    pub(super) fn enter(&mut self) -> Result<(), ReadError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                self.pos,
                "collections",
                MAX_DEPTH,
            ));
        }
        Ok(())
    }

    /// Finds the next line with content after the current one, skipping blank and
    /// comment lines. Does not move `pos`.
    pub(super) fn peek(&mut self) -> Result<Line, ReadError> {
        self.notes.clear();
        let len = self.b.len();
        let mut p = self.pos;
        if !(p == self.start || (p > 0 && is_break(self.byte(p - 1)))) {
            p = self.line_end(p);
            if p >= len {
                return Ok(Line::Eof);
            }
            p = self.after_break(p);
        }
        loop {
            if p >= len {
                return Ok(Line::Eof);
            }
            let line = p;
            while self.byte(p) == b' ' {
                p += 1;
            }
            let indent = p - line;
            let mut q = p;
            while is_blank(self.byte(q)) {
                q += 1;
            }
            let c = self.byte(q);
            if q >= len || is_break(c) {
                self.notes.clear();
            } else if c == b'#' {
                self.notes.push(q..self.line_end(q));
            } else if q != p {
                return Err(self.err(
                    p,
                    "a tab character in the indentation: indent YAML with spaces",
                ));
            } else if indent == 0 && self.is_marker(p) {
                return Ok(Line::Marker { at: p });
            } else {
                return Ok(Line::Content { indent, at: p });
            }
            let end = self.line_end(q);
            if end >= len {
                return Ok(Line::Eof);
            }
            p = self.after_break(end);
        }
    }

    /// After a value: only spaces and a comment may remain on the line.
    pub(super) fn end_of_line(&mut self) -> Result<(), ReadError> {
        let mut p = self.pos;
        while is_blank(self.byte(p)) {
            p += 1;
        }
        if self.byte(p) == b'#' {
            p = self.line_end(p);
        }
        if p < self.b.len() && !is_break(self.byte(p)) {
            let message = match self.byte(p) {
                b':' => "unexpected `:`: a mapping cannot start on the line of another key; \
                         quote a value that holds `: `"
                    .to_owned(),
                _ => format!(
                    "unexpected `{}` after the value: expected the end of the line",
                    self.char_at(p)
                ),
            };
            return Err(self.err(p, message));
        }
        self.pos = p;
        Ok(())
    }

    pub(super) fn take_notes(&mut self) -> Vec<String> {
        self.notes
            .drain(..)
            .map(|r| {
                let line = slice(self.text, r.start, r.end);
                let line = line.strip_prefix('#').unwrap_or(line);
                line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned()
            })
            .collect()
    }

    pub(super) fn stream(&mut self) -> Result<Vec<Node<'a>>, ReadError> {
        let mut docs = Vec::new();
        // A root node was read since the last document marker.
        let mut open = false;
        loop {
            match self.peek()? {
                Line::Eof => break,
                Line::Marker { at } => {
                    self.pos = at + 3;
                    if self.byte(at) == b'-' {
                        let node = self.block_node(-1, true, false)?;
                        self.end_of_line()?;
                        docs.push(node);
                        open = true;
                    } else {
                        self.end_of_line()?;
                        open = false;
                    }
                }
                Line::Content { indent, at } => {
                    if !open && indent == 0 && self.byte(at) == b'%' {
                        // A directive (`%YAML 1.2`, `%TAG`): skeleton.
                        self.pos = self.line_end(at);
                        continue;
                    }
                    if open {
                        return Err(self.err(
                            at,
                            "this line belongs to no mapping or sequence above it: check its \
                             indentation (or start a new document with `---`)",
                        ));
                    }
                    self.pos = at;
                    let node = self.block_node(-1, true, false)?;
                    self.end_of_line()?;
                    docs.push(node);
                    open = true;
                }
            }
        }
        Ok(docs)
    }

    /// A node in block context at `pos` (blanks before it are skipped). `n` is the
    /// indentation of the collection holding it (-1 at the top level); `compact` lets a
    /// block collection start on this line; `seq_same` lets a block sequence at
    /// indentation `n` be the node (a mapping's value).
    pub(super) fn block_node(
        &mut self,
        n: isize,
        compact: bool,
        seq_same: bool,
    ) -> Result<Node<'a>, ReadError> {
        self.enter()?;
        let node = self.block_node_inner(n, compact, seq_same);
        self.depth -= 1;
        node
    }

    pub(super) fn block_node_inner(
        &mut self,
        n: isize,
        compact: bool,
        seq_same: bool,
    ) -> Result<Node<'a>, ReadError> {
        self.skip_inline_space();
        let node_start = self.pos;
        let col = self.col(node_start);
        let tag = self.properties();
        let had_properties = self.pos != node_start;
        self.skip_inline_space();
        if self.at_line_end_or_comment() {
            let here = if had_properties { self.pos } else { node_start };
            match self.peek()? {
                Line::Content { indent, at } if indent as isize > n => {
                    self.pos = at;
                    return Ok(self.block_node(n, true, false)?.with_tag(tag));
                }
                Line::Content { indent, at }
                    if seq_same && indent as isize == n && self.is_seq_entry(at) =>
                {
                    self.pos = at;
                    return self.block_seq(indent);
                }
                _ => {
                    self.pos = self.line_end(self.pos);
                    return Ok(Node::Null(here));
                }
            }
        }
        let c = self.byte(self.pos);
        let next = self.byte(self.pos + 1);
        match c {
            b'|' | b'>' => return Ok(Node::Scalar(self.block_scalar(n, tag)?)),
            b'-' if is_blankz(next) && compact && !had_properties => {
                return self.block_seq(col);
            }
            b'?' if is_blankz(next) && compact && !had_properties => {
                return self.block_map(col, None);
            }
            _ => {}
        }
        let item_start = self.pos;
        let item = self.inline_item(n)?;
        let after = self.pos;
        self.skip_inline_space();
        if self.byte(self.pos) == b':' && is_blankz(self.byte(self.pos + 1)) {
            if !compact {
                return Err(self.err(
                    self.pos,
                    "unexpected `:`: a mapping cannot start on the line of another key; \
                     quote a value that holds `: `",
                ));
            }
            if slice(self.text, item_start, after).contains(['\n', '\r']) {
                return Err(self.err(item_start, "a mapping key must be on one line"));
            }
            let key = key_text(item, self.text);
            let notes = self.take_notes();
            self.pos += 1;
            return self.block_map(
                col,
                Some(Entry {
                    key,
                    key_start: node_start,
                    notes,
                    value: Node::Null(self.pos),
                }),
            );
        }
        self.pos = after;
        Ok(item.with_tag(tag))
    }

    /// Anchors and tags before a node; returns the last tag.
    pub(super) fn properties(&mut self) -> Option<&'a str> {
        let mut tag = None;
        loop {
            let start = self.pos;
            match self.byte(self.pos) {
                b'&' => {
                    self.pos += 1;
                    while !is_blankz(self.byte(self.pos)) && !is_flow_indicator(self.byte(self.pos))
                    {
                        self.pos += 1;
                    }
                }
                b'!' => {
                    self.pos += 1;
                    if self.byte(self.pos) == b'<' {
                        while !is_blankz(self.byte(self.pos)) && self.byte(self.pos) != b'>' {
                            self.pos += 1;
                        }
                        if self.byte(self.pos) == b'>' {
                            self.pos += 1;
                        }
                    } else {
                        while !is_blankz(self.byte(self.pos))
                            && !is_flow_indicator(self.byte(self.pos))
                        {
                            self.pos += 1;
                        }
                    }
                    tag = Some(slice(self.text, start, self.pos));
                }
                _ => return tag,
            }
            self.skip_inline_space();
        }
    }

    /// A scalar, flow collection or alias on this line, in block context.
    pub(super) fn inline_item(&mut self, n: isize) -> Result<Node<'a>, ReadError> {
        let c = self.byte(self.pos);
        let next = self.byte(self.pos + 1);
        match c {
            b'"' | b'\'' => Ok(Node::Scalar(self.quoted(false)?)),
            b'[' | b'{' => self.flow_node(),
            b'*' => Ok(self.alias()),
            b'-' | b'?' | b':' if is_blankz(next) => Err(self.err(
                self.pos,
                format!(
                    "unexpected `{}`: a block collection cannot start on the line of its key; \
                     put it on the next lines",
                    char::from(c)
                ),
            )),
            b',' | b']' | b'}' | b'%' | b'@' | b'`' | b'|' | b'>' => Err(self.err(
                self.pos,
                format!(
                    "`{}` cannot start a plain value: quote the value",
                    char::from(c)
                ),
            )),
            _ => {
                let at = self.pos;
                let scalar = self.plain(n, false)?;
                Ok(if scalar.value.is_empty() {
                    Node::Null(at)
                } else {
                    Node::Scalar(scalar)
                })
            }
        }
    }

    pub(super) fn alias(&mut self) -> Node<'a> {
        let start = self.pos;
        self.pos += 1;
        while !is_blankz(self.byte(self.pos)) && !is_flow_indicator(self.byte(self.pos)) {
            self.pos += 1;
        }
        Node::Alias(start..self.pos)
    }

    /// A block mapping at indentation `ind`; `first` is its first entry when the key was
    /// already read (`pos` is then just after its `:`).
    pub(super) fn block_map(
        &mut self,
        ind: usize,
        first: Option<Entry<'a>>,
    ) -> Result<Node<'a>, ReadError> {
        let start = first.as_ref().map_or(self.pos, |e| e.key_start);
        let mark = self.entries.len();
        let mut first = first;
        loop {
            let (key, key_start, notes, has_value) = match first.take() {
                Some(entry) => (entry.key, entry.key_start, entry.notes, true),
                None => self.map_key(ind)?,
            };
            let value = if has_value {
                self.block_node(ind as isize, false, true)?
            } else {
                Node::Null(self.pos)
            };
            self.end_of_line()?;
            self.entries.push(Entry {
                key,
                key_start,
                notes,
                value,
            });
            match self.peek()? {
                Line::Content { indent, at } if indent == ind => self.pos = at,
                Line::Content { indent, at } if indent > ind => {
                    return Err(self.err(
                        at,
                        format!(
                            "bad indentation: expected a key at column {} (the mapping's \
                             indentation) or a line indented less",
                            ind + 1
                        ),
                    ));
                }
                _ => break,
            }
        }
        let end = self.entries[mark..]
            .last()
            .map_or(start, |e| e.value.end().max(e.key_start));
        Ok(Node::Map(self.close_entries(mark), start..end))
    }

    /// A key of a block mapping at `pos` and its `:`; returns the key, where it starts,
    /// its notes and whether a value follows.
    pub(super) fn map_key(
        &mut self,
        ind: usize,
    ) -> Result<(Cow<'a, str>, usize, Vec<String>, bool), ReadError> {
        let key_start = self.pos;
        let notes = self.take_notes();
        if self.byte(self.pos) == b'?' && is_blankz(self.byte(self.pos + 1)) {
            self.pos += 1;
            let key = self.block_node(ind as isize, true, false)?;
            let key = key_text(key, self.text);
            self.end_of_line()?;
            return match self.peek()? {
                Line::Content { indent, at }
                    if indent == ind && self.byte(at) == b':' && is_blankz(self.byte(at + 1)) =>
                {
                    self.pos = at + 1;
                    Ok((key, key_start, notes, true))
                }
                _ => Ok((key, key_start, notes, false)),
            };
        }
        self.properties();
        self.skip_inline_space();
        let item_start = self.pos;
        if self.is_seq_entry(self.pos) {
            return Err(self.err(
                self.pos,
                "expected a key (`key: value`) in this mapping, found a sequence item `- `",
            ));
        }
        let item = self.inline_item(ind as isize)?;
        let after = self.pos;
        self.skip_inline_space();
        if self.byte(self.pos) == b':' && is_blankz(self.byte(self.pos + 1)) {
            if slice(self.text, item_start, after).contains(['\n', '\r']) {
                return Err(self.err(item_start, "a mapping key must be on one line"));
            }
            self.pos += 1;
            return Ok((key_text(item, self.text), key_start, notes, true));
        }
        Err(self.err(
            item_start,
            "expected `key: value` in this mapping, found a line without `: ` (check the \
             indentation, or quote a value that spans lines)",
        ))
    }

    /// A block sequence at indentation `ind`; `pos` is at its first `-`.
    pub(super) fn block_seq(&mut self, ind: usize) -> Result<Node<'a>, ReadError> {
        let start = self.pos;
        let mark = self.items.len();
        loop {
            self.pos += 1;
            let item = self.block_node(ind as isize, true, false)?;
            self.end_of_line()?;
            self.items.push(item);
            match self.peek()? {
                Line::Content { indent, at } if indent == ind && self.is_seq_entry(at) => {
                    self.pos = at;
                }
                Line::Content { indent, at } if indent > ind => {
                    return Err(self.err(
                        at,
                        format!(
                            "bad indentation: expected `- ` at column {} (the sequence's \
                             indentation) or a line indented less",
                            ind + 1
                        ),
                    ));
                }
                _ => break,
            }
        }
        let end = self.items[mark..]
            .last()
            .map_or(start + 1, |i: &Node| i.end().max(start + 1));
        Ok(Node::Seq(self.close_items(mark), start..end))
    }
}

/// The top of `stack` from `mark`, as a vector of its own length. The whole stack when it
/// holds nothing below `mark` (the outermost collection open, and a large catalog's only
/// one: no copy); a stack left far larger than what it still holds is shrunk.
/// Whether two of a mapping's entries have the same key.
pub(super) fn repeats_a_key(entries: &[Entry]) -> bool {
    if entries.len() <= 16 {
        (1..entries.len()).any(|i| entries[..i].iter().any(|e| e.key == entries[i].key))
    } else {
        let mut seen = rustc_hash::FxHashSet::default();
        seen.reserve(entries.len());
        !entries.iter().all(|e| seen.insert(&*e.key))
    }
}

pub(super) fn take_from<T>(stack: &mut Vec<T>, mark: usize) -> Vec<T> {
    if mark == 0 {
        return std::mem::take(stack);
    }
    let top: Vec<T> = stack.drain(mark..).collect();
    if stack.capacity() > 4 * stack.len() + 1024 {
        stack.shrink_to(2 * stack.len());
    }
    top
}
