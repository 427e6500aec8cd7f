//! JSON catalogs (i18next, react-intl/formatjs, Docusaurus, plain nested key/value files):
//! every string value is a block, read by a hand-written byte scanner with exact spans.
//!
//! # Blocks and keys
//! Each string value is a block with role `key` and level = its nesting depth (0 for a
//! top-level member). Object keys, numbers, booleans and `null` are never blocks. A key is
//! the dot path of object keys and array indices: `errors.notFound`, `list.0`, `list.1`,
//! `menu.items.2.label`. A path segment is written bare unless it is empty, holds only
//! ASCII digits, or contains `.`, `'` or `#`; then it is quoted in single quotes with `'`
//! doubled, so every key names one path: `{"a.b": {"0": "x"}}` is `'a.b'.'0'` while
//! `{"a": {"b": ["x"]}}` is `a.b.0`. A document that is one bare string has the key `.`.
//! A repeated key (duplicate members) is numbered as [`crate::model::KeyDeduper`] does:
//! the second is `key#2`.
//!
//! i18next plural siblings in one object, `key_zero`, `key_one`, `key_two`, `key_few`,
//! `key_many`, `key_other`, read as ONE block keyed by the base (`key`) whose edition is a
//! [`Switch`] (kind `plural`, pivot `count`, one branch per category in file order, branch
//! path `count:one`), with one skeleton hole per branch, when `_other` and at least one
//! other category exist and no category repeats. `key_ordinal_one`… group the same way
//! into a `selectordinal` block keyed `key_ordinal`. Other siblings stay blocks of their
//! own.
//!
//! A nested plural, an object (not the root) whose members are two or more strings under
//! distinct CLDR category keys with `other` among them and nothing else (`"items": {"one":
//! "…", "other": "…"}`, as Element writes them), reads the same way: ONE block keyed by the
//! object's path (`items`, level of the object), a plural switch with a branch and a hole per
//! member. An object with any other member, a lone `other`, or a repeated category stays
//! keys of its own.
//!
//! # Example
//! ```text
//! {"errors": {"notFound": "Page {{path}} not found"},
//!  "item_one": "{{count}} item", "item_other": "{{count}} items",
//!  "a.b": "It's {n, plural, one {# day} other {# days}}"}
//! ```
//! reads as three blocks: `errors.notFound` (level 1), `Page <x id="1/"/> not found`;
//! `item`, one plural switch with branches `count:one` and `count:other` (a hole each);
//! and `'a.b'`, the text `It's ` then an ICU switch on `n` whose branches hold a `#` code.
//!
//! # Runs
//! A value's text is the decoded string (`\n`, `\"`, `\uXXXX` and surrogate pairs undone;
//! a lone surrogate escape reads as U+FFFD). It is read by [`icu::runs`]: ICU plurals and
//! selects become switches, and placeholders of every syntax ([`Syntaxes::ALL`]: `{name}`,
//! `{{x}}`, `$t(key)`, `%s`, `${x}`, `%{x}`, HTML tags and entities) become codes. A text
//! run or code keeps its file offset when its bytes are a verbatim slice of the file;
//! runs are cut at escapes ([`icu::remap`]), so the verbatim pieces between escapes keep
//! their offsets and the decoded escapes are runs with no offset.
//!
//! # Round trip and writing
//! The skeleton is the whole file (BOM, CRLF, indentation, key order, spacing, trailing
//! newline) with a hole per string's content between its quotes (per branch value for an
//! i18next plural). An untouched value copies its bytes, escapes as written. An edited
//! value is rendered ([`icu::render`]) and re-encoded with minimal JSON escaping: `"`,
//! `\`, and control characters (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX`). Two file
//! styles are kept: a file with a `\/` escape gets `/` written as `\/`, and a file with
//! no raw non-ASCII byte but a `\uXXXX` escape of a non-ASCII character gets every
//! non-ASCII character written as `\uXXXX` (surrogate pairs above U+FFFF), with the hex
//! case of the file's first `\u` escape.
//!
//! # Encoding and errors
//! UTF-8 (with or without BOM) and UTF-16 with a BOM are read and written back as they
//! came. A file that is not valid UTF-8 and has no NUL byte is read as ISO-8859-1 and
//! written back in it; there an edited character above U+00FF is written as `\uXXXX`.
//! Strict RFC 8259 syntax (no comments, no trailing commas); malformed JSON is a
//! [`ReadError`] with line and column saying what was expected. The scanner is iterative
//! and refuses nesting deeper than 256 levels ([`super::MAX_DEPTH`], [`ReadError::TooDeep`]
//! at the `{` or `[` that goes past it), so no input overflows the stack. A value's key
//! repeats the keys above it, so the keys may add up to four times the file's size plus 16 MB
//! ([`super::KeyBudget`]): a very long key with many values under it is refused at the value
//! that passes it, instead of taking gigabytes.
mod arb;
mod entries;
mod escapes;

pub use arb::{ARB_INFO, Arb};
#[cfg(test)]
use entries::CHUNK;
use entries::Entries;

pub(crate) use escapes::{escape_at, hex4_at};

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

use super::inline::icu::{self, Piece};
use super::inline::placeholders::{Ids, Syntaxes};
use super::output::Output;
use super::{
    Capabilities, Encoding, Format, FormatInfo, Hole, KeyBudget, Parsed, ReadError, Skeleton,
    WriteError,
};
use crate::model::{Block, Branch, PLURAL_CATEGORIES, Role, Run, Switch, SwitchKind};

pub const INFO: FormatInfo = FormatInfo {
    id: "json",
    name: "JSON",
    extensions: &["json"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// The deepest nesting of objects and arrays the reader accepts.
const MAX_DEPTH: usize = super::MAX_DEPTH;

/// The i18next plural suffixes and the CLDR category each names.
const PLURAL_SUFFIXES: [(&str, &str); 6] = [
    ("_zero", "zero"),
    ("_one", "one"),
    ("_two", "two"),
    ("_few", "few"),
    ("_many", "many"),
    ("_other", "other"),
];

pub struct Json;

impl Format for Json {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let style: OnceCell<Style> = OnceCell::new();
        parsed
            .skeleton
            .fill(&parsed.document, |_hole: &Hole, runs: &[Run]| {
                let style = style.get_or_init(|| Style::of(&parsed.skeleton));
                let mut value = String::new();
                icu::render(runs, &mut value);
                let mut out = String::with_capacity(value.len() + 8);
                escape_into(&value, style, &mut out);
                Ok(out)
            })
    }

    /// A JSON file starts (after a BOM and white space) with `{`, `[` or `"`.
    fn sniff(&self, head: &[u8]) -> bool {
        if matches!(
            Encoding::sniff_bom(head),
            Some(Encoding::Utf16Le | Encoding::Utf16Be)
        ) {
            return true;
        }
        let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        matches!(
            head.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[' | b'"')
        )
    }
}

/// A string with escapes, decoded, with its verbatim pieces (the reader's and the splice's).
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub(crate) text: String,
    pub(crate) segs: Vec<Piece>,
}

impl Decoded {
    pub(crate) fn verbatim(&mut self, piece: &str, src: usize) {
        if !piece.is_empty() {
            self.segs.push(Piece {
                dec: self.text.len(),
                src,
                len: piece.len(),
            });
            self.text.push_str(piece);
        }
    }
}

/// An i18next plural sibling: the key of its group and its category.
#[derive(Debug)]
struct Sibling {
    group_key: String,
    category: &'static str,
    ordinal: bool,
}

/// One string value.
#[derive(Debug)]
struct Entry {
    key: String,
    depth: u32,
    /// The string token, quotes included.
    token: Range<usize>,
    /// `None` when the content has no escape (a verbatim slice). Boxed, as is `sibling`:
    /// most values have neither, and a catalog keeps an entry per value.
    decoded: Option<Box<Decoded>>,
    sibling: Option<Box<Sibling>>,
    group: Option<u32>,
}

impl Entry {
    fn content(&self) -> Range<usize> {
        self.token.start + 1..self.token.end.saturating_sub(1).max(self.token.start + 1)
    }
}

enum Frame {
    Object {
        path_len: usize,
        siblings: Vec<usize>,
        /// Its members while each is a string under a CLDR category key: a nested plural
        /// (`{"one": "…", "other": "…"}`); `None` once one is not.
        categories: Option<Vec<(usize, &'static str)>>,
    },
    Array {
        path_len: usize,
        index: usize,
    },
}

struct Scanned {
    entries: Entries,
    /// Entry indices of each i18next plural group, in file order.
    groups: Vec<Vec<usize>>,
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    path: String,
    /// The plural sibling named by the member key just read, for its value.
    sibling: Option<Box<Sibling>>,
    /// The CLDR category the member key just read is, for its value.
    category: Option<&'static str>,
    entries: Entries,
    keys: KeyBudget,
    groups: Vec<Vec<usize>>,
    /// Whether a plural form `one` is anywhere in the file (a `_one` key, a `"one"` member).
    has_one: bool,
    /// Lone i18next `_other` keys (no sibling of their base): one plural group each when the
    /// file has no `one` form anywhere ([`Scanner::scan`]).
    lone_others: Vec<usize>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            path: String::new(),
            sibling: None,
            category: None,
            entries: Entries::default(),
            keys: KeyBudget::new(text.len()),
            groups: Vec::new(),
            has_one: false,
            lone_others: Vec::new(),
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ReadError {
        ReadError::syntax_at(self.text, at, message)
    }

    /// What is at `at`, for messages: `` `x` `` or "the end of the file".
    fn found(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|rest| rest.chars().next()) {
            None => "the end of the file".into(),
            Some(c) if c.is_control() => format!("U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn scan(mut self) -> Result<Scanned, ReadError> {
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        self.skip_ws();
        if self.pos >= self.bytes.len() {
            return Err(self.error(self.pos, "the file is empty: expected a JSON value"));
        }
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            if self.value(&mut stack)? {
                continue;
            }
            self.sibling = None;
            if !self.after_value(&mut stack)? {
                break;
            }
        }
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error(
                self.pos,
                format!(
                    "expected the end of the file after the JSON value, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        // A file with no `one` form anywhere is in a language with one form (Japanese,
        // Chinese, Korean): each lone `_other` key is its plural. In a file that has a `one`,
        // a lone `_other` (`payment_other`) is a key like any other.
        if !self.has_one {
            for index in std::mem::take(&mut self.lone_others) {
                let id = u32::try_from(self.groups.len()).ok();
                if let Some(entry) = self.entries.get_mut(index) {
                    entry.group = id;
                    self.groups.push(vec![index]);
                }
            }
        }
        Ok(Scanned {
            entries: self.entries,
            groups: self.groups,
        })
    }

    /// Reads the value at `pos`: a scalar or an empty collection whole, else the opening of
    /// an object or array (its frame pushed, its first key or index taken). Returns whether
    /// a collection was opened.
    fn value(&mut self, stack: &mut Vec<Frame>) -> Result<bool, ReadError> {
        self.skip_ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"')
            && let Some(Frame::Object { categories, .. }) = stack.last_mut()
        {
            // A member that is no string: the object is no nested plural.
            *categories = None;
        }
        match self.bytes.get(start) {
            Some(b'{') => {
                self.pos += 1;
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    self.deeper(stack, start)?;
                    let path_len = self.path.len();
                    self.member_key(path_len, false)?;
                    stack.push(Frame::Object {
                        path_len,
                        siblings: Vec::new(),
                        categories: Some(Vec::new()),
                    });
                    return Ok(true);
                }
            }
            Some(b'[') => {
                self.pos += 1;
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    self.deeper(stack, start)?;
                    let path_len = self.path.len();
                    self.push_index(path_len, 0);
                    stack.push(Frame::Array { path_len, index: 0 });
                    return Ok(true);
                }
            }
            Some(b'"') => self.string_entry(stack, start)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't' | b'f' | b'n') => self.literal()?,
            Some(b']') if matches!(stack.last(), Some(Frame::Array { .. })) => {
                return Err(self.error(
                    start,
                    "expected a value after `,`, found `]` (JSON allows no trailing comma)",
                ));
            }
            _ => {
                return Err(self.error(
                    start,
                    format!(
                        "expected a value (an object, array, string, number, `true`, `false` or `null`), found {}",
                        self.found(start)
                    ),
                ));
            }
        }
        Ok(false)
    }

    /// The string value at `start`: an entry at the current path (a plural sibling's
    /// noted in its object's frame).
    fn string_entry(&mut self, stack: &mut [Frame], start: usize) -> Result<(), ReadError> {
        let (token, decoded) = self.string()?;
        self.keys.charge(self.path.len(), self.text, start)?;
        let index = self.entries.len();
        let sibling = self.sibling.take();
        let category = self.category.take();
        if let Some(Frame::Object {
            siblings,
            categories,
            ..
        }) = stack.last_mut()
        {
            if sibling.is_some() {
                siblings.push(index);
            }
            match (category, categories.as_mut()) {
                (Some(c), Some(list)) => list.push((index, c)),
                _ => *categories = None,
            }
        }
        self.entries.push(Entry {
            key: if self.path.is_empty() {
                ".".into()
            } else {
                self.path.clone()
            },
            depth: u32::try_from(stack.len().saturating_sub(1)).unwrap_or(u32::MAX),
            token,
            decoded: decoded.map(Box::new),
            sibling,
            group: None,
        });
        Ok(())
    }

    /// After a value: closes frames until one goes on with `,` (its next key or index
    /// taken). Returns false once the root value has ended.
    fn after_value(&mut self, stack: &mut Vec<Frame>) -> Result<bool, ReadError> {
        loop {
            self.skip_ws();
            let at = self.pos;
            match stack.last_mut() {
                None => return Ok(false),
                Some(Frame::Object { path_len, .. }) => match self.bytes.get(at) {
                    Some(b',') => {
                        self.pos += 1;
                        let path_len = *path_len;
                        self.member_key(path_len, true)?;
                        return Ok(true);
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        if let Some(Frame::Object {
                            path_len,
                            siblings,
                            categories,
                        }) = stack.pop()
                        {
                            self.path.truncate(path_len);
                            self.group(siblings);
                            if let Some(list) = categories {
                                self.nested_plural(list, at)?;
                            }
                        }
                    }
                    _ => {
                        return Err(self.error(
                            at,
                            format!(
                                "expected `,` or `}}` after an object member, found {}",
                                self.found(at)
                            ),
                        ));
                    }
                },
                Some(Frame::Array { path_len, index }) => match self.bytes.get(at) {
                    Some(b',') => {
                        self.pos += 1;
                        *index += 1;
                        let (path_len, index) = (*path_len, *index);
                        self.push_index(path_len, index);
                        return Ok(true);
                    }
                    Some(b']') => {
                        self.pos += 1;
                        let path_len = *path_len;
                        stack.pop();
                        self.path.truncate(path_len);
                    }
                    _ => {
                        return Err(self.error(
                            at,
                            format!(
                                "expected `,` or `]` after an array item, found {}",
                                self.found(at)
                            ),
                        ));
                    }
                },
            }
        }
    }

    fn deeper(&self, stack: &[Frame], at: usize) -> Result<(), ReadError> {
        if stack.len() >= MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                at,
                "objects and arrays",
                MAX_DEPTH,
            ));
        }
        Ok(())
    }

    fn push_index(&mut self, path_len: usize, index: usize) {
        use std::fmt::Write as _;
        self.path.truncate(path_len);
        if path_len > 0 {
            self.path.push('.');
        }
        let _ = write!(self.path, "{index}");
    }

    /// A member's key and its `:`, at `pos` (white space first); sets the path.
    fn member_key(&mut self, path_len: usize, after_comma: bool) -> Result<(), ReadError> {
        self.skip_ws();
        let at = self.pos;
        if self.bytes.get(at) != Some(&b'"') {
            let message = if after_comma && self.bytes.get(at) == Some(&b'}') {
                "expected an object key after `,`, found `}` (JSON allows no trailing comma)"
                    .to_owned()
            } else {
                format!(
                    "expected an object key in double quotes, found {}",
                    self.found(at)
                )
            };
            return Err(self.error(at, message));
        }
        let (token, decoded) = self.string()?;
        let raw = match &decoded {
            Some(d) => d.text.as_str(),
            None => self
                .text
                .get(token.start + 1..token.end - 1)
                .unwrap_or_default(),
        };
        self.path.truncate(path_len);
        let sibling = plural_suffix(raw).map(|(base, category, ordinal)| {
            let mut group_key = self.path.clone();
            if path_len > 0 {
                group_key.push('.');
            }
            if ordinal {
                push_segment(&mut group_key, &format!("{base}_ordinal"));
            } else {
                push_segment(&mut group_key, base);
            }
            Box::new(Sibling {
                group_key,
                category,
                ordinal,
            })
        });
        if let Some(sibling) = &sibling {
            self.keys
                .charge(sibling.group_key.len(), self.text, token.start)?;
        }
        if path_len > 0 {
            self.path.push('.');
        }
        push_segment(&mut self.path, raw);
        self.sibling = sibling;
        self.category = PLURAL_CATEGORIES.iter().copied().find(|c| *c == raw);
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.error(
                self.pos,
                format!(
                    "expected `:` after an object key, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        self.pos += 1;
        Ok(())
    }

    /// A string token at `pos`: its span with quotes, and its decoded text when it has
    /// escapes.
    fn string(&mut self) -> Result<(Range<usize>, Option<Decoded>), ReadError> {
        let start = self.pos;
        let mut at = start + 1;
        let mut verbatim = at;
        let mut decoded: Option<Decoded> = None;
        loop {
            let rest = self.bytes.get(at..).unwrap_or_default();
            let Some(found) = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            else {
                return Err(self.error(
                    start,
                    "unterminated string: no closing `\"` before the end of the file",
                ));
            };
            at += found;
            match rest.get(found) {
                Some(b'"') => {
                    if let Some(d) = &mut decoded {
                        d.verbatim(self.text.get(verbatim..at).unwrap_or_default(), verbatim);
                    }
                    self.pos = at + 1;
                    return Ok((start..at + 1, decoded));
                }
                Some(b'\\') => {
                    let d = decoded.get_or_insert_with(Decoded::default);
                    d.verbatim(self.text.get(verbatim..at).unwrap_or_default(), verbatim);
                    let (c, len) = self.escape(at)?;
                    d.text.push(c);
                    at += len;
                    verbatim = at;
                }
                Some(b'\n' | b'\r') => {
                    return Err(self.error(
                        at,
                        "a string runs past the end of its line: close it with `\"` or write the line break as `\\n`",
                    ));
                }
                _ => {
                    return Err(self.error(
                        at,
                        format!(
                            "a control character ({}) inside a string: write it as an escape",
                            self.found(at)
                        ),
                    ));
                }
            }
        }
    }

    /// The escape at `at` (a backslash): the character and the escape's length
    /// ([`escape_at`]), or the error saying what is wrong with it.
    fn escape(&self, at: usize) -> Result<(char, usize), ReadError> {
        if let Some(found) = escape_at(self.bytes, at) {
            return Ok(found);
        }
        match self.bytes.get(at + 1) {
            None => Err(self.error(
                at,
                "unterminated string: no closing `\"` before the end of the file",
            )),
            Some(b'u') => Err(self.hex4(at).err().unwrap_or_else(|| {
                self.error(at + 2, "invalid `\\u` escape: expected four hex digits")
            })),
            Some(_) => Err(self.error(
                at,
                format!(
                    "invalid escape `\\{}`: expected one of `\\\"` `\\\\` `\\/` `\\b` `\\f` `\\n` `\\r` `\\t` `\\uXXXX`",
                    self.found(at + 1).trim_matches('`')
                ),
            )),
        }
    }

    /// The four hex digits of a `\u` escape at `at`.
    fn hex4(&self, at: usize) -> Result<u32, ReadError> {
        let digits = self.bytes.get(at + 2..at + 6).unwrap_or_default();
        let mut value = 0;
        for (i, &b) in digits.iter().enumerate() {
            let Some(d) = char::from(b).to_digit(16) else {
                return Err(
                    self.error(at + 2 + i, "invalid `\\u` escape: expected four hex digits")
                );
            };
            value = value * 16 + d;
        }
        if digits.len() < 4 {
            return Err(self.error(
                at + 2 + digits.len(),
                "invalid `\\u` escape: expected four hex digits",
            ));
        }
        Ok(value)
    }

    fn number(&mut self) -> Result<(), ReadError> {
        let mut at = self.pos;
        if self.bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        at = match self.bytes.get(at) {
            Some(b'0') => at + 1,
            _ => self.digits(at, "")?,
        };
        if self.bytes.get(at) == Some(&b'.') {
            at = self.digits(at + 1, " after `.`")?;
        }
        if matches!(self.bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(self.bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            at = self.digits(at, " in the exponent")?;
        }
        self.pos = at;
        Ok(())
    }

    /// The end of the run of digits at `at`, which must hold one: a number's integer part,
    /// fraction and exponent; `place` (` after `.``) says which in the error.
    fn digits(&self, at: usize, place: &str) -> Result<usize, ReadError> {
        let rest = self.bytes.get(at..).unwrap_or_default();
        let count = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return Err(self.error(
                at,
                format!(
                    "invalid number: expected a digit{place}, found {}",
                    self.found(at)
                ),
            ));
        }
        Ok(at + count)
    }

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
            "expected a value: `true`, `false` or `null` (JSON literals are lower case and unquoted)",
        ))
    }

    /// Makes a closed object whose members are all strings under distinct CLDR category keys,
    /// `other` among them, one plural group keyed by the object's path (the path now); a
    /// top-level object stays keys of its own. `{"other": …}` alone is a plural too: what a
    /// language with one form (Japanese, Chinese, Korean) writes for an English `one`/`other`.
    /// `at` is the object's `}`.
    fn nested_plural(
        &mut self,
        members: Vec<(usize, &'static str)>,
        at: usize,
    ) -> Result<(), ReadError> {
        let distinct = members
            .iter()
            .enumerate()
            .all(|(i, (_, c))| !members[..i].iter().any(|(_, d)| d == c));
        self.has_one |= members.iter().any(|(_, c)| *c == "one");
        if self.path.is_empty()
            || members.is_empty()
            || !distinct
            || !members.iter().any(|(_, c)| *c == "other")
        {
            return Ok(());
        }
        self.keys.charge(self.path.len(), self.text, at)?;
        let id = u32::try_from(self.groups.len()).ok();
        let mut group = Vec::with_capacity(members.len());
        for (index, category) in members {
            if let Some(entry) = self.entries.get_mut(index) {
                entry.sibling = Some(Box::new(Sibling {
                    group_key: self.path.clone(),
                    category,
                    ordinal: false,
                }));
                entry.group = id;
                entry.depth = entry.depth.saturating_sub(1);
                group.push(index);
            }
        }
        self.groups.push(group);
        Ok(())
    }

    /// Groups a closed object's plural siblings into i18next plural blocks.
    fn group(&mut self, siblings: Vec<usize>) {
        if siblings.is_empty() {
            return;
        }
        let mut order: Vec<(&str, bool)> = Vec::new();
        let mut by_base: HashMap<(&str, bool), Vec<usize>> = HashMap::new();
        for &index in &siblings {
            let Some(s) = self.entries.get(index).and_then(|e| e.sibling.as_ref()) else {
                continue;
            };
            let base = (s.group_key.as_str(), s.ordinal);
            by_base
                .entry(base)
                .or_insert_with(|| {
                    order.push(base);
                    Vec::new()
                })
                .push(index);
        }
        let mut new_groups = Vec::new();
        for base in order {
            let Some(members) = by_base.remove(&base) else {
                continue;
            };
            let categories: Vec<&str> = members
                .iter()
                .filter_map(|&i| self.entries.get(i)?.sibling.as_ref().map(|s| s.category))
                .collect();
            let distinct = categories
                .iter()
                .enumerate()
                .all(|(i, c)| !categories[..i].contains(c));
            self.has_one |= categories.contains(&"one");
            if members.len() >= 2 && distinct && categories.contains(&"other") {
                new_groups.push(members);
            } else if categories == ["other"] {
                self.lone_others.extend(members);
            }
        }
        for members in new_groups {
            let id = self.groups.len();
            for &m in &members {
                if let Some(entry) = self.entries.get_mut(m) {
                    entry.group = u32::try_from(id).ok();
                }
            }
            self.groups.push(members);
        }
    }
}

/// The i18next plural suffix of a member key: (base, category, ordinal).
fn plural_suffix(key: &str) -> Option<(&str, &'static str, bool)> {
    if !key.contains('_') {
        return None;
    }
    let (stem, category) = PLURAL_SUFFIXES
        .iter()
        .find_map(|(suffix, category)| Some((key.strip_suffix(suffix)?, *category)))?;
    match stem.strip_suffix("_ordinal") {
        Some(base) if !base.is_empty() => Some((base, category, true)),
        _ if !stem.is_empty() => Some((stem, category, false)),
        _ => None,
    }
}

/// Appends one object key as a path segment, quoted when it could be misread.
fn push_segment(path: &mut String, key: &str) {
    let quote =
        key.is_empty() || key.bytes().all(|b| b.is_ascii_digit()) || key.contains(['.', '\'', '#']);
    if quote {
        path.push('\'');
        for c in key.chars() {
            if c == '\'' {
                path.push('\'');
            }
            path.push(c);
        }
        path.push('\'');
    } else {
        path.push_str(key);
    }
}

/// The runs of one string value, their vectors trimmed to size (a catalog keeps millions).
fn value_runs(text: &str, entry: &Entry, ids: &mut Ids) -> Vec<Run> {
    let mut runs = read_runs(text, entry, ids);
    compact(&mut runs);
    runs
}

fn compact(runs: &mut Vec<Run>) {
    runs.shrink_to_fit();
    for run in runs.iter_mut() {
        if let Run::Switch(switch) = run {
            switch.branches.shrink_to_fit();
            for branch in &mut switch.branches {
                compact(&mut branch.runs);
            }
        }
    }
}

fn read_runs(text: &str, entry: &Entry, ids: &mut Ids) -> Vec<Run> {
    match &entry.decoded {
        None => {
            let content = entry.content();
            let value = text.get(content.clone()).unwrap_or_default();
            // What the placeholder splitter would give, without its general path.
            if !crate::formats::inline::placeholders::may_hold_code(value) {
                return if value.is_empty() {
                    Vec::new()
                } else {
                    vec![Run::text_at(value, content.start)]
                };
            }
            icu::runs(
                text.get(content.clone()).unwrap_or_default(),
                Some(content.start),
                Syntaxes::ALL,
                ids,
            )
        }
        Some(decoded) => icu::remap(
            icu::runs(&decoded.text, Some(0), Syntaxes::ALL, ids),
            &decoded.segs,
        ),
    }
}

/// Where keys repeat (duplicate members), as `(block, n)` for the n-th repeat, which is
/// numbered `key#n` as [`crate::model::KeyDeduper`] does; `keys` are the blocks' keys in
/// order. Most files repeat no key: a sorted list of key hashes says so without a map of
/// every key.
fn repeats<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> Vec<(usize, u32)> {
    use std::hash::BuildHasher as _;
    let mut hashes: Vec<u64> = keys
        .clone()
        .map(|k| rustc_hash::FxBuildHasher.hash_one(k))
        .collect();
    hashes.sort_unstable();
    if !hashes.windows(2).any(|w| w[0] == w[1]) {
        return Vec::new();
    }
    drop(hashes);
    let mut repeats = Vec::new();
    let mut seen: HashMap<&str, u32> = HashMap::new();
    for (index, key) in keys.enumerate() {
        let count = seen.entry(key).or_insert(0);
        *count += 1;
        if *count > 1 {
            repeats.push((index, *count));
        }
    }
    repeats
}

/// The key of each block [`build`] makes, in order: an entry's own, or a plural group's
/// for the group's first member.
fn block_keys<'s>(
    entries: &'s Entries,
    groups: &'s [Vec<usize>],
) -> impl Iterator<Item = &'s str> + Clone {
    (0..entries.len()).filter_map(move |index| {
        let entry = entries.get(index)?;
        match entry.group.and_then(|g| groups.get(g as usize)) {
            Some(members) if members.first() != Some(&index) => None,
            Some(_) => entry.sibling.as_ref().map(|s| s.group_key.as_str()),
            None => Some(entry.key.as_str()),
        }
    })
}

/// The file's text: UTF-8 or UTF-16 by its first bytes, else ISO-8859-1.
fn decode(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, Encoding), ReadError> {
    match super::decode_auto(bytes) {
        Ok(decoded) => Ok(decoded),
        Err(ReadError::NotUtf8 { .. }) => Ok((Encoding::Latin1.decode(bytes)?, Encoding::Latin1)),
        Err(e) => Err(e),
    }
}

/// Reads `text` into `skeleton` (whose text is `text`, or is given it after), or hands each
/// block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let scanned = Scanner::new(text).scan()?;
    Ok(build(
        text,
        Output::new(INFO.id, skeleton, each),
        scanned,
        None,
    ))
}

/// The blocks of `scanned` into `out` (whose skeleton's text is `text`, or is given it
/// after), each with the notes `notes` holds for its key (an ARB message's description).
fn build<'e>(
    text: &str,
    mut out: Output<'e>,
    scanned: Scanned,
    notes: Option<&arb::Notes>,
) -> Output<'e> {
    let Scanned {
        mut entries,
        groups,
    } = scanned;
    out.reserve(entries.len());
    // Repeated keys are numbered as the blocks are made, so each leaves with its key.
    let mut repeats = repeats(block_keys(&entries, &groups))
        .into_iter()
        .peekable();
    let mut push = |out: &mut Output<'e>, mut block: Block| {
        if let Some((_, n)) = repeats.next_if(|&(at, _)| at == out.index()) {
            block.key.push('#');
            block.key.push_str(&n.to_string());
        }
        out.push(text, block);
    };
    for index in 0..entries.len() {
        // Entries before this one are done with (a group's members come after its first).
        entries.free_before(index);
        let block_index = out.index();
        let Some(entry) = entries.get_mut(index) else {
            continue;
        };
        let members = match entry.group.and_then(|g| groups.get(g as usize)) {
            Some(members) if members.first() != Some(&index) => continue,
            Some(members) => members,
            None => {
                let mut ids = Ids::default();
                let runs = value_runs(text, entry, &mut ids);
                if ids.full() {
                    // Past what a block may hold (ICU branches stop before it is counted).
                    out.refuse(ReadError::too_dense(text, entry.token.start));
                }
                let key = std::mem::take(&mut entry.key);
                let mut block = Block::new(key, Role::Key, runs);
                block.notes = notes.map(|n| n.of(&block.key)).unwrap_or_default();
                block.level = entry.depth;
                block.span = entry.token.clone();
                out.skeleton
                    .hole(entry.content(), block_index, &block.source);
                push(&mut out, block);
                continue;
            }
        };
        let Some(sibling) = entry.sibling.as_mut() else {
            continue;
        };
        let key = std::mem::take(&mut sibling.group_key);
        let ordinal = sibling.ordinal;
        let (depth, mut span) = (entry.depth, entry.token.clone());
        let mut ids = Ids::default();
        let id = ids.next();
        let mut branches = Vec::with_capacity(members.len());
        for &m in members {
            let Some(member) = entries.get(m) else {
                continue;
            };
            let Some(category) = member.sibling.as_ref().map(|s| s.category) else {
                continue;
            };
            let mut member_ids = Ids::default();
            let runs = value_runs(text, member, &mut member_ids);
            if member_ids.full() {
                out.refuse(ReadError::too_dense(text, member.token.start));
            }
            out.skeleton.push(
                member.content(),
                block_index,
                None,
                Some(&format!("count:{category}")),
                &runs,
            );
            span.end = span.end.max(member.token.end);
            branches.push(Branch::new(category, runs));
        }
        let switch = Switch {
            id,
            kind: if ordinal {
                SwitchKind::Ordinal
            } else {
                SwitchKind::Plural
            },
            pivot: "count".into(),
            branches,
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        };
        let mut block = Block::new(key, Role::Key, vec![Run::Switch(Box::new(switch))]);
        block.level = depth;
        block.span = span;
        push(&mut out, block);
    }
    out
}

/// How the file writes characters an edited value may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Write `/` as `\/`.
    slash: bool,
    /// Write every non-ASCII character as `\uXXXX`.
    ascii: bool,
    /// Write characters above U+00FF as `\uXXXX` (an ISO-8859-1 file).
    latin1: bool,
    upper_hex: bool,
}

impl Style {
    pub(crate) fn of(skeleton: &Skeleton) -> Style {
        let text = skeleton.original.as_bytes();
        let body = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
        let mut slash = false;
        let mut escaped_non_ascii = false;
        let mut upper_hex = None;
        let mut at = 0;
        while let Some(found) = body.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            at += found;
            match body.get(at + 1) {
                Some(b'/') => slash = true,
                Some(b'u') => {
                    let hex = body.get(at + 2..at + 6).unwrap_or_default();
                    if upper_hex.is_none() && hex.iter().any(u8::is_ascii_alphabetic) {
                        upper_hex = Some(hex.iter().any(u8::is_ascii_uppercase));
                    }
                    let value = std::str::from_utf8(hex)
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok());
                    escaped_non_ascii |= value.is_some_and(|v| v >= 0x80);
                }
                _ => {}
            }
            at += 2;
        }
        Style {
            slash,
            ascii: escaped_non_ascii && body.is_ascii(),
            latin1: skeleton.encoding == Encoding::Latin1,
            upper_hex: upper_hex.unwrap_or(false),
        }
    }
}

/// Appends `value` as JSON string content (no quotes) in the file's style.
pub(crate) fn escape_into(value: &str, style: &Style, out: &mut String) {
    use std::fmt::Write as _;
    let unit = |u: u16, out: &mut String| {
        let _ = if style.upper_hex {
            write!(out, "\\u{u:04X}")
        } else {
            write!(out, "\\u{u:04x}")
        };
    };
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '/' if style.slash => out.push_str("\\/"),
            c if u32::from(c) < 0x20 => unit(u32::from(c) as u16, out),
            c if (style.ascii && !c.is_ascii()) || (style.latin1 && u32::from(c) > 0xFF) => {
                let mut buf = [0u16; 2];
                for &u in c.encode_utf16(&mut buf).iter() {
                    unit(u, out);
                }
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Json, "json") > 0);
    }
}
