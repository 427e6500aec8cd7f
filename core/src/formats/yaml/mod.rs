//! YAML catalogs (Rails i18n, Symfony translations, app config): every string value is a
//! block keyed by its path of mapping keys, read by a hand-written scanner with exact spans.
//!
//! # Blocks and keys
//! Every string scalar is one block of role `key`. Its key is the dot path of the mapping
//! keys above it (`activerecord.errors.messages.blank`); a sequence item adds its 0-based
//! index (`date.day_names.0`, `date.day_names.1`). In a key segment a `.`, a `#` and a
//! backslash are escaped with a backslash (`"a.b": x` is `a\.b`), so a path is unambiguous
//! and no segment ends in something that reads as a [`KeyDeduper`] suffix. A plain key is
//! used as written (`1`, `true`); a flow collection used as a key is its source text.
//! Repeats (a duplicate key, a later document of a `---` stream) are numbered
//! `key#2`. The level is the path depth minus one. Comment lines just above a key whose
//! value is a block (a string or a plural map) are that block's notes.
//!
//! Rails layout: when a document's only root key is a language tag (`en`, `fr`, `pt-BR`,
//! `zh-CN`, `sr-Latn`) holding a mapping, the tag is not part of the keys, so `en.yml` and
//! `fr.yml` read with the same keys; the `en:` line stays in the skeleton.
//!
//! Strings are plain, single- and double-quoted scalars (one line or several), literal `|`
//! and folded `>` block scalars (any chomping and indentation indicator), in block or flow
//! collections, tagged `!!str`/`!` or untagged. Not blocks: aliases (`*a`, the anchored
//! value is the block), plain scalars that resolve to null (`~`, `null`, empty), booleans
//! (`true false yes no on off`), numbers, dates and Ruby symbols (`:day`), and any scalar
//! with another tag.
//!
//! Rails plural maps: a mapping whose keys are all CLDR categories (`zero one two few many
//! other`), with `other` among them and a string under each, is ONE block at the mapping's
//! path whose source is a plural switch (pivot `count`) with one branch per key in file
//! order, and one skeleton hole per branch (`count:one`, `count:other`).
//!
//! # Codes
//! Placeholders and markup become inline codes through [`placeholders::split`]: Ruby
//! `%{x}` and `%<x>s`, `{{x}}`, `{x}`, printf (`%s`, `%1$d`, `%d` of a date format) and
//! HTML tags and entities. Text runs carry file offsets when the value is a verbatim slice
//! of the file (one-line plain, or quoted without escapes).
//!
//! # Skeleton and writing
//! A hole is the whole scalar as written: quotes included, and for a block scalar its
//! header (`|-2 # comment`) and content lines (a `|+` scalar also holds its trailing blank
//! lines, but not the last line break). Everything else (comments, anchors, tags, keys,
//! document markers, directives, a BOM, CRLF line endings, blank lines) is skeleton and
//! copied byte for byte. An edited value is written in its original style when it can
//! be: plain stays plain unless it would need quoting (leading or trailing space, `: `,
//! ` #`, an indicator first, flow indicators inside a flow collection, a line break, or a
//! word that would read as null, a boolean or a number); single quotes double a `'`;
//! literal and folded scalars keep their indentation and comment and take the chomping the
//! new text needs. Every rendering is read back with this scanner, and when it would not
//! give the same text, or the style cannot hold it, the value is written double-quoted on
//! one line with `\"`, `\\` and escapes for control characters and line breaks.
//!
//! The scanner follows YAML 1.2 where libyaml keeps 1.1 rules: a plain scalar may start
//! with `:` inside a flow collection (`order: [:day, :month]`, which Rails files hold).
//! Block scalars follow libyaml's indentation rules.
//!
//! Malformed YAML (an unterminated quote or flow collection, a tab used for indentation,
//! a line indented to no level, `key: value: x`) is a [`ReadError`] at its line and column.
//! Collections nest at most 100 deep ([`ReadError::TooDeep`]: the scanner recurses), and
//! block keys may add up to four times the file's size plus 16 MB ([`super::KeyBudget`]: a long key
//! repeats in the key of every value under it).
//!
//! ```yaml
//! en:                       # Rails root: not part of the keys
//!   greeting: Hello %{name} # `greeting`: "Hello ", code %{name}
//!   inbox:                  # `inbox`: one block, a plural switch
//!     one: 1 message        #   branch count:one
//!     other: "%{count} messages"
//!   days: [Mon, Tue]        # `days.0`, `days.1`
//! ```

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;

use super::output::Output;
use super::placeholders::{self, Ids, Syntaxes};
use super::{Capabilities, Format, FormatInfo, KeyBudget, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, Branch, KeyDeduper, PLURAL_CATEGORIES, Role, Run, Switch, SwitchKind};
use crate::yaml_text::{is_symbol, plain_ok, printable, quote, resolves_to_non_string};

pub const INFO: FormatInfo = FormatInfo {
    id: "yaml",
    name: "YAML",
    extensions: &["yaml", "yml"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
    },
};

/// The placeholder syntaxes of YAML catalogs: Rails, i18next-style and ICU-style
/// arguments, printf and HTML.
const SYNTAXES: Syntaxes = Syntaxes {
    brace: true,
    double_brace: true,
    printf: true,
    dollar: false,
    ruby: true,
    html: true,
};

/// Deepest nesting of collections the scanner follows before refusing the file: below the
/// other readers' [`super::MAX_DEPTH`], because this scanner recurses (100 levels stay far
/// inside a 2 MB thread stack in a debug build; the deepest real catalog seen nests 6).
const MAX_DEPTH: usize = 100;

pub struct Yaml;

impl Format for Yaml {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let text = parsed.skeleton.text();
        let newline = first_line_ending(text);
        // The styles of the edited scalars, read again only when some hole was edited (and
        // only theirs are kept: a catalog's every scalar would outweigh the file).
        let mut scalars: Option<HashMap<usize, Scalar>> = None;
        parsed.skeleton.fill(&parsed.document, |hole, runs| {
            if scalars.is_none() {
                let edited: HashSet<usize> = parsed
                    .skeleton
                    .holes
                    .iter()
                    .filter(|h| {
                        super::hole_runs(&parsed.document, h)
                            .is_some_and(|r| crate::model::fingerprint_runs(r) != h.original)
                    })
                    .map(|h| h.span.start)
                    .collect();
                scalars = Some(scalars_at(text, edited).map_err(|e| WriteError::Skeleton {
                    message: format!("the original YAML no longer reads: {e}"),
                })?);
            }
            let scalar = scalars
                .as_ref()
                .and_then(|map| map.get(&hole.span.start))
                .ok_or_else(|| WriteError::Skeleton {
                    message: format!("no scalar starts at byte {}", hole.span.start),
                })?;
            let mut value = String::new();
            super::render_runs(runs, &mut value, &mut |t, out| out.push_str(t));
            Ok(render(&value, scalar, text, newline))
        })
    }
}

// ---------------------------------------------------------------------------------------
// The tree the scanner reads.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A scalar as written: what the writer needs to render an edit in the same style.
#[derive(Debug, Clone)]
struct Scalar<'a> {
    style: Style,
    value: Cow<'a, str>,
    /// The bytes of the scalar: quotes and block header included (the hole).
    span: Range<usize>,
    /// Where `value` starts in the file when it is a verbatim slice of it.
    verbatim: Option<usize>,
    /// The tag written before it (`!!str`), if any.
    tag: Option<&'a str>,
    /// Inside a flow collection.
    flow: bool,
    /// For `|` and `>` scalars.
    block: Option<Box<BlockInfo>>,
}

#[derive(Debug, Clone)]
struct BlockInfo {
    /// Indentation of the collection holding the scalar (-1 at the top level).
    parent: isize,
    /// Indentation of the content lines.
    indent: usize,
    chomp: Chomp,
    /// The header has an indentation indicator.
    explicit: bool,
    /// After the indicators up to the end of the header line: spaces and a comment.
    tail: Range<usize>,
    /// Blank lines follow the last content line (they stay in the skeleton).
    trailing_empty: bool,
    /// The hole reaches the end of the file with no line break after it.
    eof: bool,
}

#[derive(Debug)]
enum Node<'a> {
    Scalar(Scalar<'a>),
    Alias(Range<usize>),
    /// An empty value, at this offset.
    Null(usize),
    Map(Vec<Entry<'a>>, Range<usize>),
    Seq(Vec<Node<'a>>, Range<usize>),
}

#[derive(Debug)]
struct Entry<'a> {
    key: Cow<'a, str>,
    key_start: usize,
    notes: Vec<String>,
    value: Node<'a>,
}

impl<'a> Node<'a> {
    fn end(&self) -> usize {
        match self {
            Node::Scalar(s) => s.span.end,
            Node::Alias(r) | Node::Map(_, r) | Node::Seq(_, r) => r.end,
            Node::Null(at) => *at,
        }
    }

    fn start(&self) -> usize {
        match self {
            Node::Scalar(s) => s.span.start,
            Node::Alias(r) | Node::Map(_, r) | Node::Seq(_, r) => r.start,
            Node::Null(at) => *at,
        }
    }

    fn with_tag(mut self, tag: Option<&'a str>) -> Node<'a> {
        if let (Node::Scalar(s), Some(tag)) = (&mut self, tag)
            && s.tag.is_none()
        {
            s.tag = Some(tag);
        }
        self
    }
}

/// The text of a key: a scalar's value, else the key as written.
fn key_text<'a>(node: Node<'a>, text: &'a str) -> Cow<'a, str> {
    match node {
        Node::Scalar(s) => s.value,
        Node::Null(_) => Cow::Borrowed(""),
        other => Cow::Borrowed(slice(text, other.start(), other.end()).trim()),
    }
}

fn slice(text: &str, from: usize, to: usize) -> &str {
    text.get(from..to).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// The scanner.

/// Reads every document of a YAML stream.
fn parse(text: &str) -> Result<Vec<Node<'_>>, ReadError> {
    Parser::over(text)?.stream()
}

/// The scalars of a YAML stream that start at `wanted` offsets, read without keeping its tree:
/// each collection hands its scalars over as it ends and is kept empty (the writer needs the
/// edited scalars' styles, and a catalog's tree is three times the file).
fn scalars_at(text: &str, wanted: HashSet<usize>) -> Result<HashMap<usize, Scalar<'_>>, ReadError> {
    let mut parser = Parser::over(text)?;
    parser.harvest = Some(Harvest {
        wanted,
        found: HashMap::new(),
    });
    let docs = parser.stream()?;
    let mut harvest = parser.harvest.take().unwrap_or_default();
    for doc in docs {
        harvest.take(doc);
    }
    Ok(harvest.found)
}

/// The scalars wanted, taken from the collections as they end.
#[derive(Default)]
struct Harvest<'a> {
    wanted: HashSet<usize>,
    found: HashMap<usize, Scalar<'a>>,
}

impl<'a> Harvest<'a> {
    fn take(&mut self, node: Node<'a>) {
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

fn is_break(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// A blank, a line break or the end of the text (0).
fn is_blankz(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0)
}

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

/// What the next line that is not blank or a comment holds.
enum Line {
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

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Where the first line starts (after a BOM).
    start: usize,
    depth: usize,
    /// The comment lines just above the line [`Parser::peek`] found.
    notes: Vec<Range<usize>>,
    /// The entries and items of the collections being read, innermost last: a collection
    /// takes its own off the top when it ends, so each holds exactly its length (a vector
    /// grown by doubling is a quarter empty on average, and the tree is most of a read).
    entries: Vec<Entry<'a>>,
    items: Vec<Node<'a>>,
    /// Set, the collections keep nothing: their scalars go here as each ends.
    harvest: Option<Harvest<'a>>,
}

impl<'a> Parser<'a> {
    /// The entries of the collection that began at `mark`, off the stack (none kept when
    /// harvesting).
    fn close_entries(&mut self, mark: usize) -> Vec<Entry<'a>> {
        let Some(harvest) = self.harvest.as_mut() else {
            return take_from(&mut self.entries, mark);
        };
        for entry in self.entries.drain(mark..) {
            harvest.take(entry.value);
        }
        Vec::new()
    }

    /// [`Parser::close_entries`] for a sequence's items.
    fn close_items(&mut self, mark: usize) -> Vec<Node<'a>> {
        let Some(harvest) = self.harvest.as_mut() else {
            return take_from(&mut self.items, mark);
        };
        for item in self.items.drain(mark..) {
            harvest.take(item);
        }
        Vec::new()
    }

    /// A parser of a whole stream, which holds text: a NUL is refused before anything is read.
    fn over(text: &'a str) -> Result<Self, ReadError> {
        if let Some(at) = text.find('\0') {
            return Err(ReadError::syntax_at(
                text,
                at,
                "a NUL character: a YAML file holds text",
            ));
        }
        Ok(Parser::new(text))
    }

    fn new(text: &'a str) -> Self {
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
            harvest: None,
        }
    }

    fn err(&self, at: usize, message: impl Into<String>) -> ReadError {
        ReadError::syntax_at(self.text, at, message)
    }

    /// The byte at `p`, 0 past the end (the text holds no NUL).
    fn byte(&self, p: usize) -> u8 {
        self.b.get(p).copied().unwrap_or(0)
    }

    fn char_at(&self, p: usize) -> char {
        self.text
            .get(p..)
            .and_then(|s| s.chars().next())
            .unwrap_or(' ')
    }

    fn line_start(&self, p: usize) -> usize {
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

    fn col(&self, p: usize) -> usize {
        p - self.line_start(p)
    }

    /// The end of the line holding `p` (its line break, or the end of the text).
    fn line_end(&self, p: usize) -> usize {
        let from = p.min(self.b.len());
        self.b
            .get(from..)
            .and_then(|s| s.iter().position(|&c| is_break(c)))
            .map_or(self.b.len(), |i| from + i)
    }

    /// Just past the line break at `p` (`\r\n`, `\r` or `\n`).
    fn after_break(&self, p: usize) -> usize {
        match self.byte(p) {
            b'\r' if self.byte(p + 1) == b'\n' => p + 2,
            b'\r' | b'\n' => p + 1,
            _ => p,
        }
    }

    /// `---` or `...` at column 0, followed by a blank or the end.
    fn is_marker(&self, p: usize) -> bool {
        let three = self.b.get(p..p + 3);
        (three == Some(b"---") || three == Some(b"...")) && is_blankz(self.byte(p + 3))
    }

    fn is_seq_entry(&self, p: usize) -> bool {
        self.byte(p) == b'-' && is_blankz(self.byte(p + 1))
    }

    fn skip_inline_space(&mut self) {
        while is_blank(self.byte(self.pos)) {
            self.pos += 1;
        }
    }

    fn at_line_end_or_comment(&self) -> bool {
        let c = self.byte(self.pos);
        self.pos >= self.b.len() || is_break(c) || c == b'#'
    }

    fn enter(&mut self) -> Result<(), ReadError> {
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
    fn peek(&mut self) -> Result<Line, ReadError> {
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
    fn end_of_line(&mut self) -> Result<(), ReadError> {
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

    fn take_notes(&mut self) -> Vec<String> {
        self.notes
            .drain(..)
            .map(|r| {
                let line = slice(self.text, r.start, r.end);
                let line = line.strip_prefix('#').unwrap_or(line);
                line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned()
            })
            .collect()
    }

    fn stream(&mut self) -> Result<Vec<Node<'a>>, ReadError> {
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
    fn block_node(
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

    fn block_node_inner(
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
    fn properties(&mut self) -> Option<&'a str> {
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
    fn inline_item(&mut self, n: isize) -> Result<Node<'a>, ReadError> {
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

    fn alias(&mut self) -> Node<'a> {
        let start = self.pos;
        self.pos += 1;
        while !is_blankz(self.byte(self.pos)) && !is_flow_indicator(self.byte(self.pos)) {
            self.pos += 1;
        }
        Node::Alias(start..self.pos)
    }

    /// A block mapping at indentation `ind`; `first` is its first entry when the key was
    /// already read (`pos` is then just after its `:`).
    fn block_map(&mut self, ind: usize, first: Option<Entry<'a>>) -> Result<Node<'a>, ReadError> {
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
    fn map_key(
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
    fn block_seq(&mut self, ind: usize) -> Result<Node<'a>, ReadError> {
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

    /// A plain scalar at `pos`. In block context its continuation lines are indented more
    /// than `n`; in a flow collection it stops at flow indicators.
    fn plain(&mut self, n: isize, flow: bool) -> Result<Scalar<'a>, ReadError> {
        let len = self.b.len();
        let start = self.pos;
        let min_col = usize::try_from(n + 1).unwrap_or(0);
        let mut line_start = self.line_start(start);
        let mut p = start;
        let mut end = start;
        // Built only once the value spans lines; a one-line value is a slice of the text.
        let mut value = String::new();
        let mut owned = false;
        // The separation before the next chunk: spaces from an offset, or line breaks.
        let mut spaces_from: Option<usize> = None;
        let mut breaks = 0usize;
        let mut first = true;
        loop {
            if p >= len {
                break;
            }
            if !first && (self.byte(p) == b'#' || (p == line_start && self.is_marker(p))) {
                break;
            }
            let chunk = p;
            while p < len {
                let c = self.byte(p);
                if is_blank(c) || is_break(c) {
                    break;
                }
                if c == b':' {
                    let next = self.byte(p + 1);
                    if is_blankz(next) || (flow && is_flow_indicator(next)) {
                        break;
                    }
                }
                if flow && is_flow_indicator(c) {
                    break;
                }
                p += 1;
            }
            if p == chunk {
                break;
            }
            if breaks > 0 && !owned {
                value.push_str(slice(self.text, start, end));
                owned = true;
            }
            if let Some(from) = spaces_from.take() {
                if owned {
                    value.push_str(slice(self.text, from, chunk));
                }
            } else if breaks == 1 {
                value.push(' ');
            } else {
                for _ in 1..breaks {
                    value.push('\n');
                }
            }
            breaks = 0;
            if owned {
                value.push_str(slice(self.text, chunk, p));
            }
            end = p;
            first = false;
            let ws = p;
            loop {
                while is_blank(self.byte(p)) {
                    if breaks > 0 && !flow && p - line_start < min_col && self.byte(p) == b'\t' {
                        let mut q = p;
                        while is_blank(self.byte(q)) {
                            q += 1;
                        }
                        if !(q >= len || is_break(self.byte(q)) || self.byte(q) == b'#') {
                            return Err(self.err(
                                p,
                                "a tab character in the indentation: indent YAML with spaces",
                            ));
                        }
                    }
                    p += 1;
                }
                if p < len && is_break(self.byte(p)) {
                    p = self.after_break(p);
                    line_start = p;
                    breaks += 1;
                } else {
                    break;
                }
            }
            if breaks == 0 {
                if p == ws {
                    break;
                }
                spaces_from = Some(ws);
            } else {
                if p >= len || (!flow && p - line_start < min_col) {
                    break;
                }
            }
        }
        self.pos = end;
        Ok(Scalar {
            style: Style::Plain,
            verbatim: (!owned).then_some(start),
            value: if owned {
                Cow::Owned(value)
            } else {
                Cow::Borrowed(slice(self.text, start, end))
            },
            span: start..end,
            tag: None,
            flow,
            block: None,
        })
    }

    /// A single- or double-quoted scalar at `pos`.
    fn quoted(&mut self, flow: bool) -> Result<Scalar<'a>, ReadError> {
        let len = self.b.len();
        let start = self.pos;
        let double = self.byte(start) == b'"';
        let quote = self.byte(start);
        let unterminated = |parser: &Self| {
            parser.err(
                start,
                if double {
                    "this double-quoted value is never closed: expected `\"`"
                } else {
                    "this single-quoted value is never closed: expected `'`"
                },
            )
        };
        // The common case, a slice of the text: no escape, no line break.
        let mut p = start + 1;
        while p < len && !matches!(self.byte(p), b'\n' | b'\r' | b'\\' | b'"' | b'\'') {
            p += 1;
        }
        if self.byte(p) == quote && (double || self.byte(p + 1) != b'\'') {
            self.pos = p + 1;
            return Ok(Scalar {
                style: if double { Style::Double } else { Style::Single },
                verbatim: Some(start + 1),
                value: Cow::Borrowed(slice(self.text, start + 1, p)),
                span: start..p + 1,
                tag: None,
                flow,
                block: None,
            });
        }
        let mut p = start + 1;
        let mut line_start = self.line_start(start);
        let mut value = String::new();
        loop {
            if p >= len || (p == line_start && self.is_marker(p)) {
                return Err(unterminated(self));
            }
            // Text up to a line break or the closing quote. `keep` is how much of the
            // value escapes produced (never trimmed at a line break).
            let mut keep = value.len();
            let mut escaped_break = false;
            loop {
                let run = p;
                while p < len {
                    let c = self.byte(p);
                    if c == quote || is_break(c) || (double && c == b'\\') {
                        break;
                    }
                    p += 1;
                }
                value.push_str(slice(self.text, run, p));
                if p >= len {
                    return Err(unterminated(self));
                }
                let c = self.byte(p);
                if c == quote {
                    if !double && self.byte(p + 1) == b'\'' {
                        value.push('\'');
                        keep = value.len();
                        p += 2;
                        continue;
                    }
                    self.pos = p + 1;
                    return Ok(Scalar {
                        style: if double { Style::Double } else { Style::Single },
                        verbatim: None,
                        value: Cow::Owned(value),
                        span: start..p + 1,
                        tag: None,
                        flow,
                        block: None,
                    });
                }
                if is_break(c) {
                    break;
                }
                // A backslash escape.
                let next = self.byte(p + 1);
                if is_break(next) {
                    p = self.after_break(p + 1);
                    line_start = p;
                    escaped_break = true;
                    break;
                }
                p = self.escape(p, &mut value)?;
                keep = value.len();
            }
            let mut breaks = 0usize;
            if !escaped_break {
                let trimmed = value.trim_end_matches([' ', '\t']).len().max(keep);
                value.truncate(trimmed);
                p = self.after_break(p);
                line_start = p;
                breaks = 1;
            }
            loop {
                while is_blank(self.byte(p)) {
                    p += 1;
                }
                if p < len && is_break(self.byte(p)) {
                    p = self.after_break(p);
                    line_start = p;
                    breaks += 1;
                } else {
                    break;
                }
            }
            if escaped_break {
                for _ in 0..breaks {
                    value.push('\n');
                }
            } else if breaks == 1 {
                value.push(' ');
            } else {
                for _ in 1..breaks {
                    value.push('\n');
                }
            }
        }
    }

    /// Decodes the escape at `p` (a backslash) into `out`; returns the offset after it.
    fn escape(&self, p: usize, out: &mut String) -> Result<usize, ReadError> {
        let c = self.byte(p + 1);
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\u{7}'),
            b'b' => Some('\u{8}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{b}'),
            b'f' => Some('\u{c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(p + 2);
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            0 => return Err(self.err(p, "a backslash at the end of the file")),
            _ => {
                return Err(self.err(
                    p,
                    format!(
                        "unknown escape `\\{}` in a double-quoted value (write `\\\\` for a \
                         backslash)",
                        self.char_at(p + 1)
                    ),
                ));
            }
        };
        let mut code: u32 = 0;
        for i in 0..digits {
            let d = char::from(self.byte(p + 2 + i))
                .to_digit(16)
                .ok_or_else(|| {
                    self.err(
                        p,
                        format!(
                            "the escape `\\{}` needs {digits} hexadecimal digits",
                            char::from(c)
                        ),
                    )
                })?;
            code = code * 16 + d;
        }
        let ch = char::from_u32(code)
            .ok_or_else(|| self.err(p, format!("the escape names no character (U+{code:X})")))?;
        out.push(ch);
        Ok(p + 2 + digits)
    }

    /// A literal (`|`) or folded (`>`) scalar at `pos`, in a collection indented `n`.
    fn block_scalar(&mut self, n: isize, tag: Option<&'a str>) -> Result<Scalar<'a>, ReadError> {
        let len = self.b.len();
        let start = self.pos;
        let folded = self.byte(start) == b'>';
        let mut p = start + 1;
        let mut chomp = Chomp::Clip;
        let mut chomp_set = false;
        let mut explicit: Option<usize> = None;
        for _ in 0..2 {
            match self.byte(p) {
                b'+' if !chomp_set => {
                    chomp = Chomp::Keep;
                    chomp_set = true;
                }
                b'-' if !chomp_set => {
                    chomp = Chomp::Strip;
                    chomp_set = true;
                }
                d @ b'1'..=b'9' if explicit.is_none() => explicit = Some(usize::from(d - b'0')),
                b'0' => {
                    return Err(
                        self.err(p, "a block scalar's indentation indicator must be 1 to 9")
                    );
                }
                _ => break,
            }
            p += 1;
        }
        let indicators_end = p;
        while is_blank(self.byte(p)) {
            p += 1;
        }
        if self.byte(p) == b'#' {
            p = self.line_end(p);
        }
        if p < len && !is_break(self.byte(p)) {
            return Err(self.err(
                p,
                format!(
                    "expected a comment or the end of the line after the block scalar header \
                     `{}`",
                    slice(self.text, start, indicators_end)
                ),
            ));
        }
        let header_end = p;
        let base = usize::try_from(n).unwrap_or(0);
        let mut state = BlockLines {
            p: self.after_break(p),
            line_start: self.after_break(p),
            indent: explicit.map_or(0, |m| if n >= 0 { base + m } else { m }),
            trailing: 0,
            last_break: None,
        };
        if header_end >= len {
            state.p = len;
            state.line_start = len;
        }
        self.scalar_breaks(&mut state, n)?;
        let mut value = String::new();
        let mut leading_break = false;
        let mut leading_blank = false;
        let mut content_end = header_end;
        while state.p < len && state.p - state.line_start == state.indent {
            let trailing_blank = is_blank(self.byte(state.p));
            if folded && leading_break && !leading_blank && !trailing_blank {
                if state.trailing == 0 {
                    value.push(' ');
                }
            } else if leading_break {
                value.push('\n');
            }
            leading_break = false;
            for _ in 0..state.trailing {
                value.push('\n');
            }
            state.trailing = 0;
            leading_blank = trailing_blank;
            let eol = self.line_end(state.p);
            value.push_str(slice(self.text, state.p, eol));
            content_end = eol;
            state.p = eol;
            if eol >= len {
                break;
            }
            state.last_break = Some(eol);
            state.p = self.after_break(eol);
            state.line_start = state.p;
            leading_break = true;
            self.scalar_breaks(&mut state, n)?;
        }
        if chomp != Chomp::Strip && leading_break {
            value.push('\n');
        }
        if chomp == Chomp::Keep {
            for _ in 0..state.trailing {
                value.push('\n');
            }
        }
        let end = match (chomp, state.last_break) {
            (Chomp::Keep, Some(lb)) if lb >= content_end => lb,
            _ => content_end,
        };
        self.pos = end;
        Ok(Scalar {
            style: if folded {
                Style::Folded
            } else {
                Style::Literal
            },
            value: Cow::Owned(value),
            span: start..end,
            verbatim: None,
            tag,
            flow: false,
            block: Some(Box::new(BlockInfo {
                parent: n,
                indent: state.indent,
                chomp,
                explicit: explicit.is_some(),
                tail: indicators_end..header_end,
                trailing_empty: state.trailing > 0,
                eof: end >= len,
            })),
        })
    }

    /// Skips the indentation and the empty lines of a block scalar (libyaml's rules),
    /// settling the content indentation on first use.
    fn scalar_breaks(&self, state: &mut BlockLines, n: isize) -> Result<(), ReadError> {
        let len = self.b.len();
        let mut max_col = 0;
        loop {
            while (state.indent == 0 || state.p - state.line_start < state.indent)
                && self.byte(state.p) == b' '
            {
                state.p += 1;
            }
            max_col = max_col.max(state.p - state.line_start);
            if (state.indent == 0 || state.p - state.line_start < state.indent)
                && self.byte(state.p) == b'\t'
            {
                return Err(self.err(
                    state.p,
                    "a tab character where the block scalar's indentation spaces are expected",
                ));
            }
            if state.p < len && is_break(self.byte(state.p)) {
                state.last_break = Some(state.p);
                state.p = self.after_break(state.p);
                state.line_start = state.p;
                state.trailing += 1;
            } else {
                break;
            }
        }
        if state.indent == 0 {
            state.indent = max_col.max(usize::try_from(n + 1).unwrap_or(0)).max(1);
        }
        Ok(())
    }

    /// A node inside a flow collection.
    fn flow_node(&mut self) -> Result<Node<'a>, ReadError> {
        self.enter()?;
        let node = self.flow_node_inner();
        self.depth -= 1;
        node
    }

    fn flow_node_inner(&mut self) -> Result<Node<'a>, ReadError> {
        self.skip_flow_space()?;
        let tag = self.properties();
        self.skip_flow_space()?;
        let c = self.byte(self.pos);
        let next = self.byte(self.pos + 1);
        let node = match c {
            b'[' => self.flow_seq()?,
            b'{' => self.flow_map()?,
            b'"' | b'\'' => Node::Scalar(self.quoted(true)?),
            b'*' => self.alias(),
            0 | b',' | b']' | b'}' => Node::Null(self.pos),
            b':' if is_blankz(next) || is_flow_indicator(next) => Node::Null(self.pos),
            b'@' | b'`' | b'|' | b'>' | b'%' => {
                return Err(self.err(
                    self.pos,
                    format!(
                        "`{}` cannot start a plain value: quote the value",
                        char::from(c)
                    ),
                ));
            }
            b'-' if is_blankz(next) => {
                return Err(self.err(
                    self.pos,
                    "a block sequence `- ` cannot be inside a flow collection",
                ));
            }
            _ => {
                let at = self.pos;
                let scalar = self.plain(-1, true)?;
                if scalar.value.is_empty() {
                    Node::Null(at)
                } else {
                    Node::Scalar(scalar)
                }
            }
        };
        Ok(node.with_tag(tag))
    }

    /// Spaces, line breaks and comments between flow tokens.
    fn skip_flow_space(&mut self) -> Result<(), ReadError> {
        let len = self.b.len();
        loop {
            let c = self.byte(self.pos);
            if is_blank(c) {
                self.pos += 1;
            } else if self.pos < len && is_break(c) {
                self.pos = self.after_break(self.pos);
                if self.is_marker(self.pos) {
                    return Err(self.err(
                        self.pos,
                        "a document marker inside a flow collection: close it with `]` or `}` \
                         first",
                    ));
                }
            } else if c == b'#' {
                self.pos = self.line_end(self.pos);
            } else {
                return Ok(());
            }
        }
    }

    fn flow_seq(&mut self) -> Result<Node<'a>, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mark = self.items.len();
        loop {
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b']' => {
                    self.pos += 1;
                    break;
                }
                0 => {
                    return Err(self.err(open, "this flow sequence is never closed: expected `]`"));
                }
                _ => {}
            }
            let before = self.pos;
            if self.byte(self.pos) == b'?' && is_blankz(self.byte(self.pos + 1)) {
                self.pos += 1;
            }
            let key_start = self.pos;
            let node = self.flow_node()?;
            self.skip_flow_space()?;
            let item = if self.byte(self.pos) == b':' {
                self.pos += 1;
                let value = self.flow_value()?;
                let end = value.end().max(self.pos);
                Node::Map(
                    vec![Entry {
                        key: key_text(node, self.text),
                        key_start,
                        notes: Vec::new(),
                        value,
                    }],
                    key_start..end,
                )
            } else {
                node
            };
            self.items.push(item);
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b',' => self.pos += 1,
                b']' => {}
                0 => {
                    return Err(self.err(open, "this flow sequence is never closed: expected `]`"));
                }
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `,` or `]` in the flow sequence, found `{}`",
                            self.char_at(self.pos)
                        ),
                    ));
                }
            }
            if self.pos == before {
                return Err(self.err(self.pos, "expected a value in the flow sequence"));
            }
        }
        Ok(Node::Seq(self.close_items(mark), open..self.pos))
    }

    /// The value after a `:` in a flow collection (empty before `,`, `]` or `}`).
    fn flow_value(&mut self) -> Result<Node<'a>, ReadError> {
        self.skip_flow_space()?;
        match self.byte(self.pos) {
            b',' | b']' | b'}' | 0 => Ok(Node::Null(self.pos)),
            _ => self.flow_node(),
        }
    }

    fn flow_map(&mut self) -> Result<Node<'a>, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mark = self.entries.len();
        loop {
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b'}' => {
                    self.pos += 1;
                    break;
                }
                0 => {
                    return Err(self.err(open, "this flow mapping is never closed: expected `}`"));
                }
                _ => {}
            }
            let before = self.pos;
            if self.byte(self.pos) == b'?' && is_blankz(self.byte(self.pos + 1)) {
                self.pos += 1;
            }
            let key_start = self.pos;
            let key = self.flow_node()?;
            self.skip_flow_space()?;
            let value = if self.byte(self.pos) == b':' {
                self.pos += 1;
                self.flow_value()?
            } else {
                Node::Null(self.pos)
            };
            self.entries.push(Entry {
                key: key_text(key, self.text),
                key_start,
                notes: Vec::new(),
                value,
            });
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b',' => self.pos += 1,
                b'}' => {}
                0 => {
                    return Err(self.err(open, "this flow mapping is never closed: expected `}`"));
                }
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `,` or `}}` in the flow mapping, found `{}`",
                            self.char_at(self.pos)
                        ),
                    ));
                }
            }
            if self.pos == before {
                return Err(self.err(self.pos, "expected a key in the flow mapping"));
            }
        }
        Ok(Node::Map(self.close_entries(mark), open..self.pos))
    }
}

/// The top of `stack` from `mark`, as a vector of its own length. The whole stack when it
/// holds nothing below `mark` (the outermost collection open, and a large catalog's only
/// one: no copy); a stack left far larger than what it still holds is shrunk.
fn take_from<T>(stack: &mut Vec<T>, mark: usize) -> Vec<T> {
    if mark == 0 {
        return std::mem::take(stack);
    }
    let top: Vec<T> = stack.drain(mark..).collect();
    if stack.capacity() > 4 * stack.len() + 1024 {
        stack.shrink_to(2 * stack.len());
    }
    top
}

/// Where a block scalar's line scan stands.
struct BlockLines {
    p: usize,
    line_start: usize,
    /// Content indentation; 0 until detected.
    indent: usize,
    /// Empty lines since the last content line.
    trailing: usize,
    /// The last line break consumed.
    last_break: Option<usize>,
}

// ---------------------------------------------------------------------------------------
// From the tree to blocks.

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let docs = parse(text)?;
    let scalars: usize = docs.iter().map(count_scalars).sum();
    let mut out = Output::new(INFO.id, skeleton, each);
    out.reserve(scalars);
    let mut builder = Builder {
        out,
        text,
        // Paths are unique within one document whose mappings repeat no key, so the
        // deduper (a hash and a copy per key) is only needed otherwise.
        keys: (docs.len() > 1 || docs.iter().any(has_duplicate_keys)).then(KeyDeduper::default),
        path: String::new(),
        budget: KeyBudget::new(text.len()),
        over_budget: None,
    };
    for doc in &docs {
        builder.root(doc);
        if let Some(at) = builder.over_budget {
            return Err(builder.budget.refusal(text, at));
        }
    }
    Ok(builder.out)
}

struct Builder<'t, 'e> {
    out: Output<'e>,
    /// The text the blocks' offsets index.
    text: &'t str,
    keys: Option<KeyDeduper>,
    path: String,
    budget: KeyBudget,
    /// Where the keys first went past the budget; no block is made after it.
    over_budget: Option<usize>,
}

impl Builder<'_, '_> {
    fn root(&mut self, node: &Node) {
        self.path.clear();
        if let Node::Map(entries, _) = node
            && let [entry] = entries.as_slice()
            && matches!(entry.value, Node::Map(..))
            && !is_plural_map(&entry.value)
            && is_language_tag(&entry.key)
        {
            self.walk(&entry.value, 0, &entry.notes, None);
            return;
        }
        self.walk(node, 0, &[], None);
    }

    /// Blocks for `node` at `self.path` (`depth` segments deep).
    fn walk(&mut self, node: &Node, depth: u32, notes: &[String], from: Option<usize>) {
        match node {
            Node::Scalar(scalar) if is_string(scalar) => {
                let mut ids = Ids::default();
                let runs = placeholders::split(&scalar.value, scalar.verbatim, SYNTAXES, &mut ids);
                let key = self.key(scalar.span.start);
                let mut block = Block::new(key, Role::Key, runs);
                block.level = depth.saturating_sub(1);
                block.span = from.unwrap_or(scalar.span.start)..scalar.span.end;
                block.notes = notes.to_vec();
                let index = self.out.index();
                self.out
                    .skeleton
                    .hole(scalar.span.clone(), index, &block.source);
                self.out.push(self.text, block);
            }
            Node::Map(entries, span) if is_plural_map(node) => {
                self.plural(entries, span, depth, notes, from);
            }
            Node::Map(entries, _) => {
                for entry in entries {
                    let len = self.path.len();
                    if !self.path.is_empty() {
                        self.path.push('.');
                    }
                    push_segment(&mut self.path, &entry.key);
                    self.walk(&entry.value, depth + 1, &entry.notes, Some(entry.key_start));
                    self.path.truncate(len);
                }
            }
            Node::Seq(items, _) => {
                for (index, item) in items.iter().enumerate() {
                    let len = self.path.len();
                    if !self.path.is_empty() {
                        self.path.push('.');
                    }
                    // Writing to a String cannot fail.
                    let _ = write!(self.path, "{index}");
                    self.walk(item, depth + 1, &[], None);
                    self.path.truncate(len);
                }
            }
            Node::Scalar(_) | Node::Alias(_) | Node::Null(_) => {}
        }
    }

    /// The key of the block at `at`, charged to the budget.
    fn key(&mut self, at: usize) -> String {
        if self.over_budget.is_none() && !self.budget.take(self.path.len()) {
            self.over_budget = Some(at);
        }
        if self.over_budget.is_some() {
            return String::new();
        }
        let base = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        match &mut self.keys {
            Some(keys) => keys.key(base),
            None => base.to_owned(),
        }
    }

    /// One block whose source is a plural switch, one hole per branch.
    fn plural(
        &mut self,
        entries: &[Entry],
        span: &Range<usize>,
        depth: u32,
        notes: &[String],
        from: Option<usize>,
    ) {
        let index = self.out.index();
        let mut branches = Vec::with_capacity(entries.len());
        let mut spans = Vec::with_capacity(entries.len());
        for entry in entries {
            if let Node::Scalar(scalar) = &entry.value {
                let mut ids = Ids::default();
                let runs = placeholders::split(&scalar.value, scalar.verbatim, SYNTAXES, &mut ids);
                spans.push(scalar.span.clone());
                branches.push(Branch::new(entry.key.clone(), runs));
            }
        }
        let mut path = String::from("count:");
        for (span, branch) in spans.into_iter().zip(&branches) {
            path.truncate("count:".len());
            path.push_str(&branch.case);
            self.out
                .skeleton
                .push(span, index, None, Some(&path), &branch.runs);
        }
        let switch = Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches,
            head: String::new(),
            tail: String::new(),
            src: entries.first().map(|e| e.key_start),
        };
        let key = self.key(span.start);
        let mut block = Block::new(key, Role::Key, vec![Run::Switch(Box::new(switch))]);
        block.level = depth.saturating_sub(1);
        block.span = from.unwrap_or(span.start)..span.end;
        block.notes = notes.to_vec();
        self.out.push(self.text, block);
    }
}

/// How many scalars a node holds: room for its blocks and holes.
fn count_scalars(node: &Node) -> usize {
    match node {
        Node::Scalar(_) => 1,
        Node::Map(entries, _) => entries.iter().map(|e| count_scalars(&e.value)).sum(),
        Node::Seq(items, _) => items.iter().map(count_scalars).sum(),
        Node::Alias(_) | Node::Null(_) => 0,
    }
}

/// Whether some mapping repeats a key.
fn has_duplicate_keys(node: &Node) -> bool {
    match node {
        Node::Map(entries, _) => {
            let repeats = if entries.len() <= 16 {
                (1..entries.len()).any(|i| entries[..i].iter().any(|e| e.key == entries[i].key))
            } else {
                let mut seen = HashSet::with_capacity(entries.len());
                !entries.iter().all(|e| seen.insert(&*e.key))
            };
            repeats || entries.iter().any(|e| has_duplicate_keys(&e.value))
        }
        Node::Seq(items, _) => items.iter().any(has_duplicate_keys),
        _ => false,
    }
}

/// Appends a key segment, escaping `.`, `#` and `\` with a backslash.
fn push_segment(path: &mut String, key: &str) {
    for c in key.chars() {
        if matches!(c, '.' | '#' | '\\') {
            path.push('\\');
        }
        path.push(c);
    }
}

/// Whether a mapping is a Rails plural map: CLDR category keys with `other`, strings
/// under each.
fn is_plural_map(node: &Node) -> bool {
    let Node::Map(entries, _) = node else {
        return false;
    };
    entries.iter().any(|e| e.key == "other")
        && entries.iter().all(|e| {
            PLURAL_CATEGORIES.contains(&&*e.key)
                && matches!(&e.value, Node::Scalar(s) if is_string(s))
        })
        && (1..entries.len()).all(|i| entries[..i].iter().all(|e| e.key != entries[i].key))
}

/// Whether a scalar is a string: quoted, block, `!!str`, or plain and not null, a
/// boolean, a number, a date or a Ruby symbol.
fn is_string(scalar: &Scalar) -> bool {
    match scalar.tag {
        Some("!!str" | "!" | "!<tag:yaml.org,2002:str>" | "tag:yaml.org,2002:str") => true,
        Some(_) => false,
        None => {
            scalar.style != Style::Plain
                || !(resolves_to_non_string(&scalar.value) || is_symbol(&scalar.value))
        }
    }
}

/// ISO 639-1 codes, and the three-letter codes Rails locales use.
const LANGUAGES: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce \
    ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv \
    ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr \
    ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn \
    no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so \
    sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh \
    yi yo za zh zu ast bal ceb chr ckb dsb fil fur gsw haw hsb kab kok lij mai mni nds nso sah \
    sat scn sco szl tzm yue zgh";

/// A BCP 47 style language tag: a known language, then region, script or variant
/// subtags after `-` or `_` (`pt-BR`, `zh_CN`, `sr-Latn`, `es-419`).
fn is_language_tag(s: &str) -> bool {
    let mut parts = s.split(['-', '_']);
    let Some(language) = parts.next() else {
        return false;
    };
    if !(2..=3).contains(&language.len())
        || !language.bytes().all(|b| b.is_ascii_lowercase())
        || !LANGUAGES.split_ascii_whitespace().any(|l| l == language)
    {
        return false;
    }
    parts.all(|part| {
        let alpha = part.bytes().all(|b| b.is_ascii_alphabetic());
        let digits = part.bytes().all(|b| b.is_ascii_digit());
        (part.len() == 2 && alpha)
            || (part.len() == 3 && digits)
            || (part.len() == 4 && alpha)
            || ((5..=8).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_alphanumeric()))
    })
}

// ---------------------------------------------------------------------------------------
// Writing an edited value.

fn first_line_ending(text: &str) -> &'static str {
    match text.find(['\n', '\r']).map(|at| &text.as_bytes()[at..]) {
        Some([b'\r', b'\n', ..]) => "\r\n",
        Some([b'\r', ..]) => "\r",
        _ => "\n",
    }
}

/// Renders `value` for the hole of `scalar`: in its style when that reads back as the
/// same text, else double-quoted.
fn render(value: &str, scalar: &Scalar, text: &str, newline: &str) -> String {
    let newline = scalar
        .block
        .as_ref()
        .and_then(|_| {
            let held = slice(text, scalar.span.start, scalar.span.end);
            held.contains("\r\n").then_some("\r\n")
        })
        .unwrap_or(newline);
    let styled = match scalar.style {
        Style::Plain if plain_ok(value, scalar.flow) => Some(value.to_owned()),
        Style::Single if single_ok(value) => Some(format!("'{}'", value.replace('\'', "''"))),
        Style::Literal | Style::Folded => block_render(value, scalar, text, newline),
        _ => None,
    };
    if let Some(out) = styled
        && reads_back(&out, scalar, value, newline)
    {
        return out;
    }
    let mut out = quote(value);
    if let Some(info) = &scalar.block {
        let tail = slice(text, info.tail.start, info.tail.end);
        if tail.contains('#') {
            out.push_str(tail);
        }
    }
    out
}

/// Whether `rendered` reads back as `value` in the scalar's context.
fn reads_back(rendered: &str, scalar: &Scalar, value: &str, newline: &str) -> bool {
    let probe;
    let source = match &scalar.block {
        Some(info) if !info.eof => {
            probe = format!("{rendered}{newline}");
            probe.as_str()
        }
        _ => rendered,
    };
    let mut parser = Parser::new(source);
    parser.start = 0;
    let got = match scalar.style {
        Style::Plain => parser
            .plain(-1, scalar.flow)
            .ok()
            .filter(|s| s.span.end == rendered.len() && !resolves_to_non_string(&s.value)),
        Style::Single | Style::Double => parser
            .quoted(scalar.flow)
            .ok()
            .filter(|s| s.span.end == rendered.len()),
        Style::Literal | Style::Folded => {
            let parent = scalar.block.as_ref().map_or(-1, |b| b.parent);
            parser.block_scalar(parent, None).ok()
        }
    };
    got.is_some_and(|s| s.value == value)
}

fn single_ok(v: &str) -> bool {
    v.chars().all(printable)
}

/// `value` as a literal or folded scalar with the original's indentation and header
/// comment; `None` when the style cannot hold it here.
fn block_render(value: &str, scalar: &Scalar, text: &str, newline: &str) -> Option<String> {
    let info = scalar.block.as_ref()?;
    if value
        .chars()
        .any(|c| c != '\n' && c != '\t' && !printable(c))
    {
        return None;
    }
    let body = value.trim_end_matches('\n');
    let trail = value.len() - body.len();
    if body.is_empty() {
        return None;
    }
    let chomp = match trail {
        0 => Chomp::Strip,
        1 => Chomp::Clip,
        _ => Chomp::Keep,
    };
    if chomp == Chomp::Keep && info.chomp != Chomp::Keep && info.trailing_empty {
        return None;
    }
    let first = body.split('\n').find(|l| !l.is_empty())?;
    let indicator = first.starts_with(' ') || info.explicit;
    let base = usize::try_from(info.parent).unwrap_or(0);
    let m = info.indent.checked_sub(base)?;
    if indicator && !(1..=9).contains(&m) {
        return None;
    }
    let mut out = String::with_capacity(value.len() * 2 + 8);
    out.push(if scalar.style == Style::Folded {
        '>'
    } else {
        '|'
    });
    if indicator {
        out.push_str(&m.to_string());
    }
    match chomp {
        Chomp::Strip => out.push('-'),
        Chomp::Keep => out.push('+'),
        Chomp::Clip => {}
    }
    out.push_str(slice(text, info.tail.start, info.tail.end));
    let pad = " ".repeat(info.indent);
    if scalar.style == Style::Literal {
        for line in body.split('\n') {
            out.push_str(newline);
            if !line.is_empty() {
                out.push_str(&pad);
                out.push_str(line);
            }
        }
    } else {
        // libyaml's folded writer, without wrapping: a line break between two lines that
        // start with no blank is written as an empty line.
        out.push_str(newline);
        let mut breaks = true;
        let mut leading_blank = true;
        for (i, c) in body.char_indices() {
            if c == '\n' {
                if !breaks && !leading_blank {
                    let rest = body.get(i..).unwrap_or_default().trim_start_matches('\n');
                    if rest.starts_with(|c: char| c != ' ' && c != '\t') {
                        out.push_str(newline);
                    }
                }
                out.push_str(newline);
                breaks = true;
            } else {
                if breaks {
                    out.push_str(&pad);
                    leading_blank = c == ' ' || c == '\t';
                }
                out.push(c);
                breaks = false;
            }
        }
    }
    if chomp == Chomp::Keep {
        for _ in 1..trail {
            out.push_str(newline);
        }
    }
    if info.eof && chomp != Chomp::Strip {
        out.push_str(newline);
    }
    Some(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Yaml, "yaml") > 0);
    }
}
