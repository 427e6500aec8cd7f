//! The HTML reader: the stack of open block elements and their implied ends, segments
//! between block tags, element-path keys, and blocks for prose attributes.

use std::collections::HashMap;
use std::ops::Range;

use super::INFO;
use super::elements::*;
use super::lexer::{Attr, Kind, Lexer, TagName, Token, slice};
use super::runs::value_runs;
use crate::formats::output::Output;
use crate::formats::{Keys, ReadError, Skeleton};
use crate::model::{Block, Role, Run};

/// The longest key path, in elements.
pub(super) const MAX_PATH: usize = 24;

/// The deepest nesting of open block elements (and of open `translate="no"` inline ones).
pub(super) const MAX_DEPTH: usize = crate::formats::MAX_DEPTH;

/// How deep into the open elements an implied end tag looks.
pub(super) const MAX_SCAN: usize = 64;

/// An open block-level element.
#[derive(Debug, Clone)]
pub(super) struct Open {
    pub(super) name: TagName,
    /// Its `id`, made fit for a key, when it has one.
    pub(super) anchor: Option<String>,
    /// Whether `translate="no"` is in effect.
    pub(super) no: bool,
    /// How many `pre`, lists and block quotes are open, this element included.
    pub(super) pre: u32,
    pub(super) lists: u32,
    pub(super) quotes: u32,
}

/// An attribute block waiting for its segment's block, so blocks stay in reading order.
pub(super) struct Pending {
    pub(super) key: String,
    pub(super) role: Role,
    pub(super) locked: bool,
    pub(super) span: Range<usize>,
    pub(super) hole: Range<usize>,
    pub(super) runs: Vec<Run>,
}

pub(super) struct Reader<'a, 'e> {
    pub(super) text: &'a str,
    pub(super) attrs: Vec<Attr>,
    pub(super) stack: Vec<Open>,
    /// How many elements of each name are open.
    pub(super) open_names: HashMap<TagName, usize>,
    pub(super) out: Output<'e>,
    pub(super) keys: Keys,
    pub(super) pending: Vec<Pending>,
    /// Names of open inline `translate="no"` elements in the current segment.
    pub(super) inline_no: Vec<TagName>,
    /// The index in the file's tokens of the segment's first token.
    pub(super) seg_start: usize,
    /// The index in the file's tokens of the lexer's first held token (those before it
    /// are read and let go).
    pub(super) base: usize,
    /// The index of `attrs[0]` among the file's attributes.
    pub(super) attrs_base: usize,
    /// The first limit the file went past; reading stops there.
    pub(super) error: Option<ReadError>,
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
pub(super) fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<crate::formats::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lexer = Lexer::new(text);
    let out = Output::new(INFO.id, skeleton, each);
    // A document kept whole is sized once, from all the tokens (a block per segment between
    // block tags, and per attribute, at most); one streamed is lexed as it is read, so only
    // the segment in hand's tokens are held.
    let bound = if out.streams() {
        lexer.begin(start);
        0
    } else {
        lexer.run(start);
        lexer
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, Kind::Start | Kind::End) && t.block)
            .count()
            + lexer.attrs.len()
            + 1
    };
    let mut reader = Reader {
        text,
        attrs: Vec::new(),
        attrs_base: 0,
        base: 0,
        stack: Vec::new(),
        open_names: HashMap::new(),
        out,
        keys: Keys::new(text.len()),
        pending: Vec::new(),
        inline_no: Vec::new(),
        seg_start: 0,
        error: None,
    };
    reader.out.reserve(bound);
    reader.run(&mut lexer);
    if let Some(error) = reader.error {
        return Err(error);
    }
    Ok(reader.out)
}

/// The most tokens one segment (what lies between two block tags) holds, whatever they
/// become: tags inside a `translate="no"` element (one code whole), comments, or markup
/// with no prose around it (no block). A segment with prose is refused at more than
/// [`crate::formats::MAX_CODES`] tags and entities outside such elements, its block's codes; either
/// is refused with [`ReadError::TooDense`] before the reader holds more.
pub(super) const SEGMENT_TOKENS: usize = 8 * crate::formats::MAX_CODES;

/// How many read tokens the reader lets go of at once.
pub(super) const LET_GO: usize = 4096;

/// A token that belongs to a segment's content (rather than its edges).
pub(super) fn is_content(text: &str, token: &Token) -> bool {
    match token.kind {
        Kind::Text => !slice(text, &token.span).trim().is_empty(),
        Kind::Entity | Kind::Start | Kind::End => true,
        Kind::Comment | Kind::Decl | Kind::Raw => false,
    }
}

/// An `id` value fit for a key: letters, digits, `-`, `_`, `.`, `:`; at most 64 chars.
pub(super) fn anchor(id: &str) -> Option<String> {
    let id: String = id
        .trim()
        .chars()
        .take(64)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':') {
                c
            } else {
                '-'
            }
        })
        .collect();
    (!id.is_empty()).then_some(id)
}

impl<'a> Reader<'a, '_> {
    /// A held token's attributes.
    pub(super) fn attrs_of(&self, token: &Token) -> Option<&[Attr]> {
        if token.attrs.is_empty() {
            return Some(&[]);
        }
        let from = token.attrs.start.checked_sub(self.attrs_base)?;
        self.attrs.get(from..from + token.attrs.len())
    }

    pub(super) fn attr(&self, token: &Token, name: &str) -> Option<&'a str> {
        let text = self.text;
        self.attrs_of(token)?
            .iter()
            .find(|a| slice(text, &a.name).eq_ignore_ascii_case(name))
            .map(|a| a.value.as_ref().map_or("", |v| slice(text, v)))
    }

    /// `Some(true)` for `translate="no"` or class `notranslate`, `Some(false)` for
    /// `translate="yes"`, `None` to inherit.
    pub(super) fn translate_no(&self, token: &Token) -> Option<bool> {
        if let Some(value) = self.attr(token, "translate") {
            let value = value.trim();
            if value.eq_ignore_ascii_case("no") {
                return Some(true);
            }
            if value.is_empty() || value.eq_ignore_ascii_case("yes") {
                return Some(false);
            }
        }
        self.attr(token, "class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|w| w == "notranslate"))
            .then_some(true)
    }

    pub(super) fn run(&mut self, lexer: &mut Lexer<'a>) {
        let mut k = 0;
        // The segment counted (its first token), its codes, and whether it holds prose.
        let mut counted = (0usize, 0usize, false);
        loop {
            if self.error.is_some() {
                return;
            }
            if k - self.base >= lexer.tokens.len() && !lexer.step() {
                break;
            }
            lexer.hand_attrs(&mut self.attrs);
            let outside_no = self.inline_no.is_empty();
            self.step(&lexer.tokens, k);
            k += 1;
            // A segment's tags and entities become its block's codes (a `translate="no"`
            // element one code whole): past what a block may hold, or past what a segment
            // may hold in tokens, it is refused before more are held.
            if self.seg_start != counted.0 {
                counted = (self.seg_start, 0, false);
            } else if let Some(token) = lexer.tokens.get(k - 1 - self.base) {
                match token.kind {
                    Kind::Start | Kind::End | Kind::Entity if outside_no => counted.1 += 1,
                    Kind::Text if outside_no => counted.2 |= is_content(self.text, token),
                    _ => {}
                }
            }
            let (_, codes, prose) = counted;
            if prose && codes > crate::formats::MAX_CODES || k - self.seg_start > SEGMENT_TOKENS {
                let at = lexer.tokens.get(self.seg_start - self.base);
                self.error = Some(ReadError::too_dense(
                    self.text,
                    at.map_or(0, |t| t.span.start),
                ));
                return;
            }
            // Streamed, the tokens before the segment are done with, and the attributes before
            // theirs. (Read whole, the lexer holds every token already: letting go would only
            // shift the rest of the file, again and again.)
            if self.out.streams() && self.seg_start - self.base >= LET_GO {
                lexer.tokens.drain(..self.seg_start - self.base);
                self.base = self.seg_start;
                let held = self.attrs_base + self.attrs.len();
                let from = lexer
                    .tokens
                    .iter()
                    .find(|t| !t.attrs.is_empty())
                    .map_or(held, |t| t.attrs.start);
                self.attrs
                    .drain(..from.saturating_sub(self.attrs_base).min(self.attrs.len()));
                self.attrs_base = from.max(self.attrs_base);
            }
        }
        self.flush(&lexer.tokens, k);
    }

    /// Reads the token at index `k` of the file's, `tokens` holding those from `self.base`.
    pub(super) fn step(&mut self, tokens: &[Token], k: usize) {
        let Some(token) = tokens.get(k - self.base) else {
            return;
        };
        {
            match token.kind {
                Kind::Start if token.block => {
                    self.flush(tokens, k);
                    let pushed = self.open_block(token);
                    let element = if pushed { None } else { Some(token) };
                    self.attribute_blocks(token, element, true);
                    self.seg_start = k + 1;
                }
                Kind::End if token.block => {
                    self.flush(tokens, k);
                    if self.open_names.get(&token.name).is_some_and(|&n| n > 0)
                        && let Some(at) = self.stack.iter().rposition(|o| o.name == token.name)
                    {
                        self.truncate(at);
                    }
                    self.seg_start = k + 1;
                }
                Kind::Start => {
                    let no = self.translate_no(token) == Some(true);
                    let void = token.self_closing || one_of(&token.name, INLINE_VOID);
                    if !no && self.inline_no.is_empty() {
                        self.attribute_blocks(token, Some(token), false);
                    }
                    // Bounded like the block stack, so an end tag's search stays short.
                    if no && !void && self.inline_no.len() < MAX_DEPTH {
                        self.inline_no.push(token.name.clone());
                    }
                }
                Kind::End => {
                    if let Some(at) = self.inline_no.iter().rposition(|n| *n == token.name) {
                        self.inline_no.truncate(at);
                    }
                }
                _ => {}
            }
        }
    }

    /// Closes what a new block element implies, then opens it unless it is void or
    /// self-closed; returns whether it was pushed.
    pub(super) fn open_block(&mut self, token: &Token) -> bool {
        let name = &*token.name;
        // Looks no deeper than MAX_SCAN elements, so deep broken nesting stays linear.
        let pop_to = |reader: &mut Self, targets: &[&str], bounds: &[&str]| {
            let len = reader.stack.len();
            for at in (len.saturating_sub(MAX_SCAN)..len).rev() {
                let n = &*reader.stack[at].name;
                if targets.contains(&n) {
                    reader.truncate(at);
                    return;
                }
                if bounds.contains(&n) {
                    return;
                }
            }
        };
        match name {
            "li" => pop_to(self, &["li"], &["ul", "ol", "menu", "dir", "table"]),
            "dt" | "dd" => pop_to(self, &["dt", "dd"], &["dl", "table"]),
            "td" | "th" => pop_to(self, &["td", "th"], &["tr", "table"]),
            "tr" => pop_to(self, &["tr"], &["table", "thead", "tbody", "tfoot"]),
            "thead" | "tbody" | "tfoot" => pop_to(self, &["thead", "tbody", "tfoot"], &["table"]),
            "option" => pop_to(self, &["option"], &["select", "datalist", "optgroup"]),
            "optgroup" => pop_to(self, &["option", "optgroup"], &["select"]),
            "body" => pop_to(self, &["head"], &["html"]),
            _ => {}
        }
        if let Some(top) = self.stack.last() {
            let heading = |n: &str| matches!(n, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
            if (top.name == "p" && one_of(name, CLOSES_P)) || (heading(&top.name) && heading(name))
            {
                self.truncate(self.stack.len() - 1);
            }
        }
        if token.self_closing || one_of(name, BLOCK_VOID) {
            return false;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.error.get_or_insert(ReadError::too_deep(
                self.text,
                token.span.start,
                "block elements",
                MAX_DEPTH,
            ));
            return false;
        }
        let parent = self.stack.last();
        let inherited = parent.is_some_and(|o| o.no);
        let depth = |f: fn(&Open) -> u32, names: &[&str]| {
            parent.map_or(0, f) + u32::from(names.contains(&name))
        };
        let open = Open {
            name: token.name.clone(),
            anchor: self.attr(token, "id").and_then(anchor),
            no: self.translate_no(token).unwrap_or(inherited),
            pre: depth(|o| o.pre, &["pre", "listing"]),
            lists: depth(|o| o.lists, &["ul", "ol", "menu", "dir"]),
            quotes: depth(|o| o.quotes, &["blockquote"]),
        };
        *self.open_names.entry(open.name.clone()).or_default() += 1;
        self.stack.push(open);
        true
    }

    /// Closes the open elements from `at` up.
    pub(super) fn truncate(&mut self, at: usize) {
        for open in self.stack.drain(at..) {
            if let Some(n) = self.open_names.get_mut(&open.name) {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// The element path of the stack, plus `element` when given.
    pub(super) fn path(&self, element: Option<&Token>) -> String {
        let own = element.map(|t| (&*t.name, self.attr(t, "id").and_then(anchor)));
        // Innermost first, up to the anchor or MAX_PATH elements: linear in neither the
        // depth nor the file.
        let mut segments: Vec<(&str, Option<&str>)> = Vec::new();
        let inner = own.as_ref().map(|(name, id)| (*name, id.as_deref()));
        let outer = self
            .stack
            .iter()
            .rev()
            .map(|o| (&*o.name, o.anchor.as_deref()));
        for segment in inner.into_iter().chain(outer) {
            segments.push(segment);
            if segment.1.is_some() || segments.len() == MAX_PATH {
                break;
            }
        }
        let mut path = String::new();
        for (i, (name, id)) in segments.iter().rev().enumerate() {
            if i > 0 {
                path.push('/');
            }
            path.push_str(name);
            if i == 0
                && let Some(id) = id
            {
                path.push('[');
                path.push_str(id);
                path.push(']');
            }
        }
        path
    }

    /// Blocks for the translatable attributes of a start tag (`element` when it is not on
    /// the stack); `now` pushes them at once, else they wait for the segment's block.
    pub(super) fn attribute_blocks(&mut self, token: &Token, element: Option<&Token>, now: bool) {
        let name = &*token.name;
        let Some(attrs) = self.attrs_of(token) else {
            return;
        };
        let text = self.text;
        let is = |attr: &Attr, names: &[&str]| {
            let n = slice(text, &attr.name);
            names.iter().any(|m| m.eq_ignore_ascii_case(n))
        };
        let candidate = |attr: &Attr| {
            is(attr, PROSE_ATTRS)
                || (name == "meta" && is(attr, &["content"]))
                || (name == "input" && is(attr, &["value"]))
        };
        if !attrs.iter().any(candidate)
            || self.stack.last().is_some_and(|o| o.no)
            || self.translate_no(token) == Some(true)
        {
            return;
        }
        let meta = name == "meta"
            && self
                .attr(token, "name")
                .or_else(|| self.attr(token, "property"))
                .is_some_and(|n| META_NAMES.iter().any(|m| m.eq_ignore_ascii_case(n.trim())));
        let button = name == "input"
            && self.attr(token, "type").is_some_and(|t| {
                ["submit", "reset", "button"]
                    .iter()
                    .any(|b| b.eq_ignore_ascii_case(t.trim()))
            });
        let mut found = Vec::new();
        for attr in attrs {
            let prose = is(attr, PROSE_ATTRS)
                || (meta && is(attr, &["content"]))
                || (button && is(attr, &["value"]));
            let Some(value) = attr.value.clone() else {
                continue;
            };
            if !prose || slice(text, &value).trim().is_empty() {
                continue;
            }
            found.push((slice(text, &attr.name).to_ascii_lowercase(), value));
        }
        if found.is_empty() {
            return;
        }
        let path = self.path(element);
        for (attr_name, value) in found {
            let runs = value_runs(self.text, value.clone());
            let pending = Pending {
                key: format!("{path}/@{attr_name}"),
                role: if meta { Role::Key } else { Role::Other },
                locked: false,
                span: token.span.clone(),
                hole: value,
                runs,
            };
            if now {
                self.push_pending(pending);
            } else {
                self.pending.push(pending);
            }
        }
    }

    /// A unique key for `base`; past the key budget, the error is kept and reading stops.
    pub(super) fn key(&mut self, base: &str, at: usize) -> String {
        match self.keys.key(base, self.text, at) {
            Ok(key) => key,
            Err(e) => {
                self.error.get_or_insert(e);
                String::new()
            }
        }
    }

    pub(super) fn push_pending(&mut self, p: Pending) {
        let key = self.key(&p.key, p.span.start);
        let mut block = Block::new(key, p.role, p.runs);
        if p.locked {
            block.translatable = false;
            block.locked = Some("translate=\"no\"".into());
        }
        block.span = p.span;
        let index = self.out.index();
        self.out.skeleton.hole(p.hole, index, &block.source);
        self.out.push(self.text, block);
    }

    /// Role and level of a segment in the innermost open block.
    pub(super) fn role(&self) -> (Role, u32) {
        let Some(open) = self.stack.last() else {
            return (Role::Paragraph, 0);
        };
        if open.pre > 0 {
            return (Role::Code, 0);
        }
        let top = &*open.name;
        match top {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = top.get(1..).and_then(|n| n.parse().ok()).unwrap_or(1);
                (Role::Heading, level)
            }
            "li" => (Role::ListItem, open.lists.max(1)),
            "td" | "th" => (Role::TableCell, 0),
            "title" | "button" | "label" | "option" | "optgroup" | "legend" | "summary"
            | "textarea" | "select" => (Role::Other, 0),
            _ => match open.quotes {
                0 => (Role::Paragraph, 0),
                depth => (Role::Quote, depth),
            },
        }
    }

    /// Ends the segment before token `end`: a block when it holds prose, then the
    /// attribute blocks of its tags.
    /// Ends the segment at the file's token `end` (`tokens` holding those from `self.base`).
    pub(super) fn flush(&mut self, tokens: &[Token], end: usize) {
        let (from, to) = (
            self.seg_start.saturating_sub(self.base),
            end.saturating_sub(self.base),
        );
        let seg = tokens.get(from..to).unwrap_or_default();
        let text = self.text;
        let first = seg.iter().position(|t| is_content(text, t));
        let last = seg.iter().rposition(|t| is_content(text, t));
        if let (Some(first), Some(last)) = (first, last)
            && let Some(content) = seg.get(first..=last)
            && content
                .iter()
                .any(|t| t.kind == Kind::Text && !slice(text, &t.span).trim().is_empty())
        {
            self.segment_block(content);
        }
        for p in std::mem::take(&mut self.pending) {
            self.push_pending(p);
        }
        self.inline_no.clear();
    }

    pub(super) fn segment_block(&mut self, content: &[Token]) {
        let text = self.text;
        let (Some(head), Some(tail)) = (content.first(), content.last()) else {
            return;
        };
        let start = if head.kind == Kind::Text {
            let t = slice(text, &head.span);
            head.span.start + (t.len() - t.trim_start().len())
        } else {
            head.span.start
        };
        let end = if tail.kind == Kind::Text {
            tail.span.start + slice(text, &tail.span).trim_end().len()
        } else {
            tail.span.end
        };
        let (runs, all_code) = self.runs(content, start..end);
        // Prose that sat only inside `translate="no"` elements leaves nothing to read.
        if !runs
            .iter()
            .any(|r| matches!(r, Run::Text { text, .. } if !text.trim().is_empty()))
        {
            return;
        }
        let (mut role, mut level) = self.role();
        if all_code {
            (role, level) = (Role::Code, 0);
        }
        let no = self.stack.last().is_some_and(|o| o.no);
        let path = self.path(None);
        let key = self.key(if path.is_empty() { "text" } else { &path }, start);
        let mut block = Block::new(key, role, runs);
        block.level = level;
        block.translatable = role != Role::Code && !no;
        if no {
            block.locked = Some("translate=\"no\"".into());
        }
        block.span = start..end;
        let index = self.out.index();
        self.out.skeleton.hole(start..end, index, &block.source);
        self.out.push(self.text, block);
    }
}
