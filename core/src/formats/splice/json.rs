//! JSON catalogs: the string values of a few keys found by one strict scan that builds no other
//! block, and read back from the bytes a splice wrote; `None` wherever the full reader could differ.
//!
//! What the scan proves before it answers (else `None`, and the caller reads the file whole):
//! the file is UTF-8 (a BOM allowed, no NUL) and strict JSON as [`crate::formats::json`] reads
//! it, no deeper than its limit; each key is in the canonical form the reader writes, names
//! exactly one string value, is no i18next plural sibling and no plural group's key, and does
//! not end in a CLDR category (`items.one` may be a branch of a nested plural object) (so no
//! key is renumbered `#2` and no group takes the value); the keys of every value fit the reader's
//! [`KeyBudget`]; and no value is long enough to hold [`MAX_CODES`] codes. Each value found is
//! the block the full reader makes of it (key, level, span, runs with their file offsets, so
//! the same `rev`), with its hole, and the blocks come in file order as
//! [`crate::formats::output::read_picked`] gives them.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::formats::inline::icu;
use crate::formats::inline::placeholders::{Ids, Syntaxes};
use crate::formats::json::{Decoded, escape_at, hex4_at};
use crate::formats::{Encoding, KeyBudget, MAX_CODES, MAX_DEPTH, Parsed, Skeleton, WriteError};
use crate::model::{Block, Document, PLURAL_CATEGORIES, Role, Run};

/// The longest value (bytes between its quotes) the scan takes: a value holds at most one
/// code per byte, so one this long cannot pass [`MAX_CODES`].
const LONGEST: usize = MAX_CODES / 2;
/// The longest i18next plural sibling: six siblings of this many bytes and their group's
/// switch stay under [`MAX_CODES`].
const LONGEST_SIBLING: usize = MAX_CODES / 8;

/// The i18next plural suffixes (as [`crate::formats::json`] reads them).
const PLURAL_SUFFIXES: [&str; 6] = ["_zero", "_one", "_two", "_few", "_many", "_other"];

/// The blocks a scan found and what a read back needs.
#[derive(Debug)]
pub struct Located {
    /// The found blocks (file order) with their holes, over the whole text.
    pub parsed: Parsed,
    /// The bytes of key every value of the file charges to the reader's [`KeyBudget`].
    pub key_bytes: usize,
}

/// One segment of a key's path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A key's segments, when the key is in the form the reader writes (`a.'b.c'.0`); `None` for
/// any other key (a renumbered `a#2`, the root string's `.`, a quoted segment that needs no
/// quotes), which no value of a file could be proved to be.
fn parse_key(key: &str) -> Option<Vec<Seg>> {
    let bytes = key.as_bytes();
    let mut segs = Vec::new();
    let mut i = 0;
    loop {
        if bytes.get(i) == Some(&b'\'') {
            let mut seg = String::new();
            i += 1;
            loop {
                let rest = key.get(i..)?;
                let quote = rest.find('\'')?;
                seg.push_str(rest.get(..quote)?);
                i += quote + 1;
                if bytes.get(i) == Some(&b'\'') {
                    seg.push('\'');
                    i += 1;
                } else {
                    break;
                }
            }
            segs.push(Seg::Key(seg));
        } else {
            let rest = key.get(i..)?;
            let end = rest.find('.').map_or(key.len(), |p| i + p);
            let raw = key.get(i..end)?;
            if raw.bytes().all(|b| b.is_ascii_digit()) {
                segs.push(Seg::Index(raw.parse().ok()?));
            } else {
                segs.push(Seg::Key(raw.to_owned()));
            }
            i = end;
        }
        match bytes.get(i) {
            None => break,
            Some(b'.') => i += 1,
            Some(_) => return None,
        }
    }
    (render_key(&segs) == key).then_some(segs)
}

/// A path as the reader writes it.
fn render_key(segs: &[Seg]) -> String {
    let mut out = String::new();
    for (n, seg) in segs.iter().enumerate() {
        if n > 0 {
            out.push('.');
        }
        match seg {
            Seg::Key(k) => push_segment(&mut out, k),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

fn needs_quotes(key: &str) -> bool {
    key.is_empty() || key.bytes().all(|b| b.is_ascii_digit()) || key.contains(['.', '\'', '#'])
}

/// One object key as a path segment (the reader's `push_segment`).
fn push_segment(path: &mut String, key: &str) {
    if needs_quotes(key) {
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

/// The length [`push_segment`] gives `key`, in one pass over it.
fn segment_len(key: &str) -> usize {
    let (mut digits, mut marks, mut quotes) = (true, false, 0);
    for &b in key.as_bytes() {
        digits &= b.is_ascii_digit();
        marks |= matches!(b, b'.' | b'\'' | b'#');
        quotes += usize::from(b == b'\'');
    }
    if key.is_empty() || digits || marks {
        2 + key.len() + quotes
    } else {
        key.len()
    }
}

/// The base of an i18next plural sibling's key, `_ordinal` kept (the group key's last
/// segment); `None` for a key that is no sibling.
fn plural_base(key: &str) -> Option<&str> {
    if !key.contains('_') {
        return None;
    }
    let stem = PLURAL_SUFFIXES
        .iter()
        .find_map(|suffix| key.strip_suffix(suffix))?;
    match stem.strip_suffix("_ordinal") {
        Some(base) if !base.is_empty() => Some(stem),
        _ if !stem.is_empty() => Some(stem),
        _ => None,
    }
}

/// The string token at `start` (its `"`) in `text`: its end (after the closing quote) and
/// whether it holds an escape; `None` for anything the reader refuses.
fn string_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut at = start + 1;
    let mut escaped = false;
    loop {
        at += plain_run(bytes.get(at..)?);
        match *bytes.get(at)? {
            b'"' => return Some((at + 1, escaped)),
            b'\\' => {
                escaped = true;
                at += escape_len(bytes, at)?;
            }
            b if b < 0x20 => return None,
            _ => at += 1,
        }
    }
}

/// How many bytes at the start of `bytes` are plain string content (no `"`, `\\` or control
/// character), eight at a time.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let special = |word: u64| {
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGH)
    };
    let mut n = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if special(u64::from_le_bytes(word)) != 0 {
            break;
        }
        n += 8;
    }
    n
}

/// The length of the escape at `at` (a backslash), as the reader takes it.
fn escape_len(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => hex4_at(bytes, at + 2).map(|_| 6),
        _ => None,
    }
}

/// The content of the string token `token` (quotes included), decoded.
fn decode(text: &str, token: &Range<usize>) -> Option<Decoded> {
    let bytes = text.as_bytes();
    let end = token.end.checked_sub(1)?;
    let mut d = Decoded::default();
    let (mut at, mut verbatim) = (token.start + 1, token.start + 1);
    while at < end {
        if bytes.get(at) == Some(&b'\\') {
            d.verbatim(text.get(verbatim..at)?, verbatim);
            let (c, len) = escape_at(bytes, at)?;
            d.text.push(c);
            at += len;
            verbatim = at;
        } else {
            at += 1;
        }
    }
    d.verbatim(text.get(verbatim..end)?, verbatim);
    Some(d)
}

/// The runs of the value `token` (the reader's `value_runs`), and whether the reader would
/// refuse its block as too dense.
fn value_runs(text: &str, token: &Range<usize>, escaped: bool) -> Option<(Vec<Run>, bool)> {
    let content = token.start + 1..token.end.checked_sub(1)?.max(token.start + 1);
    let mut ids = Ids::default();
    let mut runs = if escaped {
        let decoded = decode(text, token)?;
        icu::remap(
            icu::runs(&decoded.text, Some(0), Syntaxes::ALL, &mut ids),
            &decoded.segs,
        )
    } else {
        let value = text.get(content.clone())?;
        if !value
            .bytes()
            .any(|b| matches!(b, b'{' | b'%' | b'$' | b'<' | b'&'))
        {
            if value.is_empty() {
                Vec::new()
            } else {
                vec![Run::text_at(value, content.start)]
            }
        } else {
            icu::runs(value, Some(content.start), Syntaxes::ALL, &mut ids)
        }
    };
    compact(&mut runs);
    let dense = ids.full() || crate::model::code_count(&runs) > MAX_CODES;
    Some((runs, dense))
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

/// A key being looked for, and where its value was found.
struct Target {
    segs: Vec<Seg>,
    key: String,
    /// Each string value at the key: its token, depth and whether it has escapes.
    found: Vec<(Range<usize>, u32, bool)>,
}

/// An open object or array: the length of its path, the targets its path is a prefix of,
/// and (an array) the index of the item being read.
struct Frame {
    path_len: usize,
    cands: Vec<usize>,
    index: Option<usize>,
}

struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    targets: Vec<Target>,
    /// The targets the value being read may be (its path so far matches theirs).
    here: Vec<usize>,
    /// The path length of the value being read.
    path_len: usize,
    /// Whether the value being read is an object member whose key is a plural sibling.
    sibling: bool,
    key_bytes: usize,
}

impl Scan<'_> {
    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn run(&mut self) -> Option<()> {
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            if self.value(&mut stack)? {
                continue;
            }
            self.sibling = false;
            if !self.after_value(&mut stack)? {
                break;
            }
        }
        self.skip_ws();
        (self.pos == self.bytes.len()).then_some(())
    }

    /// The value at `pos`; `true` when it opened an object or array.
    fn value(&mut self, stack: &mut Vec<Frame>) -> Option<bool> {
        self.skip_ws();
        let start = self.pos;
        match *self.bytes.get(start)? {
            open @ (b'{' | b'[') => {
                self.pos += 1;
                self.skip_ws();
                let close = if open == b'{' { b'}' } else { b']' };
                if self.bytes.get(self.pos) == Some(&close) {
                    self.pos += 1;
                    return Some(false);
                }
                if stack.len() + 1 >= MAX_DEPTH {
                    return None;
                }
                let frame = Frame {
                    path_len: self.path_len,
                    cands: std::mem::take(&mut self.here),
                    index: (open == b'[').then_some(0),
                };
                stack.push(frame);
                if open == b'{' {
                    self.member_key(stack)?;
                } else {
                    self.item(stack, 0);
                }
                Some(true)
            }
            b'"' => {
                self.string_value(stack.len(), start)?;
                Some(false)
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
                Some(false)
            }
            b't' | b'f' | b'n' => {
                let rest = self.bytes.get(start..)?;
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| rest.starts_with(w.as_bytes()))?;
                self.pos += word.len();
                Some(false)
            }
            _ => None,
        }
    }

    /// A string value: its key charged, and noted for each target whose whole path it is.
    fn string_value(&mut self, depth: usize, start: usize) -> Option<()> {
        let (end, escaped) = string_end(self.bytes, start)?;
        let len = end - start - 2;
        if len > LONGEST || (self.sibling && len > LONGEST_SIBLING) {
            return None;
        }
        self.key_bytes = self.key_bytes.checked_add(self.path_len)?;
        let level = u32::try_from(depth.saturating_sub(1)).unwrap_or(u32::MAX);
        for &t in &self.here {
            if let Some(target) = self.targets.get_mut(t)
                && target.segs.len() == depth
            {
                target.found.push((start..end, level, escaped));
            }
        }
        self.here.clear();
        self.pos = end;
        Some(())
    }

    /// After a value: closes frames until one goes on with `,`; `false` once the root ended.
    fn after_value(&mut self, stack: &mut Vec<Frame>) -> Option<bool> {
        loop {
            self.skip_ws();
            let Some(frame) = stack.last_mut() else {
                return Some(false);
            };
            match (*self.bytes.get(self.pos)?, frame.index) {
                (b',', None) => {
                    self.pos += 1;
                    self.member_key(stack)?;
                    return Some(true);
                }
                (b',', Some(index)) => {
                    self.pos += 1;
                    frame.index = Some(index + 1);
                    self.item(stack, index + 1);
                    return Some(true);
                }
                (b'}', None) | (b']', Some(_)) => {
                    self.pos += 1;
                    stack.pop();
                }
                _ => return None,
            }
        }
    }

    /// The path and targets of array item `index` of the innermost frame.
    fn item(&mut self, stack: &[Frame], index: usize) {
        let Some(frame) = stack.last() else { return };
        self.sibling = false;
        let digits = index.checked_ilog10().map_or(1, |d| d as usize + 1);
        self.path_len = frame.path_len + usize::from(frame.path_len > 0) + digits;
        let depth = stack.len() - 1;
        self.here = frame
            .cands
            .iter()
            .copied()
            .filter(|&t| {
                self.targets
                    .get(t)
                    .and_then(|target| target.segs.get(depth))
                    == Some(&Seg::Index(index))
            })
            .collect();
    }

    /// A member's key and its `:` in the innermost frame (an object): its path and targets.
    fn member_key(&mut self, stack: &[Frame]) -> Option<()> {
        self.skip_ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(self.bytes, start)?;
        let decoded;
        let key = if escaped {
            decoded = decode(self.text, &(start..end))?.text;
            decoded.as_str()
        } else {
            self.text.get(start + 1..end - 1)?
        };
        let frame = stack.last()?;
        let depth = stack.len() - 1;
        let prefix = frame.path_len + usize::from(frame.path_len > 0);
        let base = plural_base(key);
        if let Some(base) = base {
            // The group key the reader charges for a sibling.
            self.key_bytes = self.key_bytes.checked_add(prefix + segment_len(base))?;
        }
        self.here.clear();
        for &t in &frame.cands {
            let Some(target) = self.targets.get(t) else {
                continue;
            };
            let Some(Seg::Key(want)) = target.segs.get(depth) else {
                continue;
            };
            let last = target.segs.len() == depth + 1;
            if last && (base == Some(want.as_str()) || (base.is_some() && want == key)) {
                // A plural group could be keyed as the target, or take the value.
                return None;
            }
            if last && want == key && PLURAL_CATEGORIES.contains(&key) {
                // A CLDR category's value may be a branch of a nested plural object.
                return None;
            }
            if want == key {
                self.here.push(t);
            }
        }
        self.sibling = base.is_some();
        self.path_len = prefix + segment_len(key);
        self.pos = end;
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return None;
        }
        self.pos += 1;
        Some(())
    }

    fn number(&mut self) -> Option<()> {
        let mut at = self.pos;
        if self.bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        at = match self.bytes.get(at) {
            Some(b'0') => at + 1,
            _ => self.digits(at)?,
        };
        if self.bytes.get(at) == Some(&b'.') {
            at = self.digits(at + 1)?;
        }
        if matches!(self.bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(self.bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            at = self.digits(at)?;
        }
        self.pos = at;
        Some(())
    }

    fn digits(&self, at: usize) -> Option<usize> {
        let count = self
            .bytes
            .get(at..)?
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (count > 0).then_some(at + count)
    }
}

/// The text of a file's bytes as the JSON reader decodes it, when that is UTF-8 (the bytes
/// themselves); `None` for anything else (a NUL byte, UTF-16, ISO-8859-1).
pub fn utf8(bytes: Vec<u8>) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Finds the string value of each of `keys` in `text` (a JSON file's text, see [`utf8`]):
/// the blocks the full reader makes of them, with their holes, or `None` when the scan cannot
/// prove that (see the module docs).
pub fn locate(text: String, keys: &BTreeSet<String>) -> Option<Located> {
    let mut targets = Vec::with_capacity(keys.len());
    for key in keys {
        targets.push(Target {
            segs: parse_key(key)?,
            key: key.clone(),
            found: Vec::new(),
        });
    }
    let mut scan = Scan {
        text: &text,
        bytes: text.as_bytes(),
        pos: 0,
        here: Vec::new(),
        targets,
        path_len: 0,
        sibling: false,
        key_bytes: 0,
    };
    // The root's empty path is a prefix of every target's.
    scan.here = (0..scan.targets.len()).collect();
    scan.run()?;
    let key_bytes = scan.key_bytes;
    if !KeyBudget::new(text.len()).take(key_bytes) {
        return None;
    }
    let mut found = Vec::with_capacity(scan.targets.len());
    for target in std::mem::take(&mut scan.targets) {
        let [(token, level, escaped)] = target.found.as_slice() else {
            return None;
        };
        found.push((token.clone(), *level, *escaped, target.key));
    }
    found.sort_by_key(|f| f.0.start);
    let mut document = Document {
        format: "json".into(),
        blocks: Vec::with_capacity(found.len()),
    };
    let mut skeleton = Skeleton::owned(String::new(), Encoding::Utf8);
    for (index, (token, level, escaped, key)) in found.into_iter().enumerate() {
        let (runs, dense) = value_runs(&text, &token, escaped)?;
        if dense {
            return None;
        }
        let mut block = Block::new(key, Role::Key, runs);
        block.level = level;
        block.span = token.clone();
        skeleton.hole(content(&token), index, &block.source);
        document.blocks.push(block);
    }
    skeleton.original = text;
    Some(Located {
        parsed: Parsed::new(document, skeleton),
        key_bytes,
    })
}

/// The content of a string token (between its quotes).
fn content(token: &Range<usize>) -> Range<usize> {
    token.start + 1..token.end.saturating_sub(1).max(token.start + 1)
}

/// Reads back the blocks of `parsed` (as [`locate`] made them, its text since dropped) from
/// `new`, the text a fill of `parsed`'s skeleton wrote: each hole's value found where the
/// edits before it moved it, and read as the full reader reads it. `None` when the read back
/// cannot be proved to be the full reader's: a value that is no longer a string token (a
/// writer's fault), a block now too dense, or keys past the budget of the new length.
pub fn reread(new: &str, parsed: &Parsed, key_bytes: usize) -> Option<Vec<Block>> {
    if new.as_bytes().contains(&0) || !KeyBudget::new(new.len()).take(key_bytes) {
        return None;
    }
    let mut holes: Vec<_> = parsed.skeleton.holes.iter().collect();
    holes.sort_by_key(|h| h.span.start);
    let mut blocks: Vec<Option<Block>> = vec![None; parsed.document.blocks.len()];
    let mut shift: isize = 0;
    for hole in holes {
        let start = hole.span.start.checked_add_signed(shift)?.checked_sub(1)?;
        if new.as_bytes().get(start) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(new.as_bytes(), start)?;
        let was = hole.span.end.checked_sub(hole.span.start)?;
        let is = end - start - 2;
        shift += isize::try_from(is).ok()? - isize::try_from(was).ok()?;
        let token = start..end;
        let (runs, dense) = value_runs(new, &token, escaped)?;
        let old = parsed.document.blocks.get(hole.block)?;
        if dense || hole.edition().is_some() || hole.branch().is_some() {
            return None;
        }
        let mut block = Block::new(old.key.clone(), Role::Key, runs);
        block.level = old.level;
        block.span = token;
        *blocks.get_mut(hole.block)? = Some(block);
    }
    blocks.into_iter().collect()
}

/// Renders `parsed` (a [`locate`]d file with edited blocks): the JSON writer's own render
/// (the untouched bytes copied, each edited value escaped in the file's style).
pub fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    crate::formats::Format::write(&crate::formats::json::Json, parsed)
}

#[cfg(test)]
mod tests;
