//! Java properties: every `key = value` entry is a block keyed by its decoded property key,
//! read as `java.util.Properties.load` reads it, and written back byte for byte.
//!
//! # Blocks and keys
//! Each entry is a [`Role::Key`] block whose key is the decoded property key (`key\ one`
//! reads as `key one`); a key that repeats is numbered by [`KeyDeduper`] (`key#2`). Comment
//! lines (`#`, `!`) directly above an entry, with no blank line between, become its notes.
//! Comments, blank lines, keys, separators (`=`, `:` or whitespace) and the line breaks of
//! continuation lines stay in the skeleton; the value is the one hole of its block.
//!
//! # Runs
//! The value text is decoded: `\uXXXX` (surrogate pairs joined), `\t`, `\n`, `\r`, `\f`, and
//! `\x` for any other `x` (`\\`, `\=`, `\:`, `\ `, `\#`, `\!`). A continuation (an unescaped
//! backslash at the end of a line) reads as nothing, and the next line's leading spaces,
//! tabs and form feeds are dropped. Text runs carry their file offset (`src`) only where the
//! piece is verbatim in the file, so a value is several runs where an escape or a
//! continuation sits in it (an escaped `\=` reads as `=` at the offset of the `=`).
//! Java MessageFormat arguments (`{0}`, `{1,number,integer}`) and printf specifiers (`%s`,
//! `%1$d`, `%%`) are standalone codes; `''` (a quoted apostrophe in MessageFormat) stays
//! text, and so does an EL expression like `${a ? 'b' : ''}`. A code's data is the decoded
//! text, escaped again on write like the rest of the value.
//!
//! # Encoding
//! A file whose bytes are valid UTF-8 is read as UTF-8 (a BOM stays in the skeleton), any
//! other file as ISO-8859-1 ([`Encoding::Latin1`]), and each is written back in its own
//! encoding. An edited value escapes what must be escaped: `\\`, control characters
//! (`\t`, `\n`, `\r`, `\f`, else `\uXXXX`), a leading space (`\ `), a leading `=` or `:`,
//! and every character the file cannot hold as `\uXXXX` (above U+00FF in a Latin-1 file;
//! above U+007F in a file that is pure ASCII, so ASCII files that escape everything stay
//! ASCII and load under either charset).
//!
//! # Line continuations
//! An edited value keeps the original continuation layout when the edit allows: each
//! continuation break lying in the unchanged start or end of the value (the common prefix
//! or suffix of the old and new text) is written where it was, with its original indent,
//! and a leading whitespace on a continued line is escaped. Breaks inside the changed
//! middle are dropped, so an entirely new value is written on one line.
//!
//! ```text
//! # Greeting       → note of `greeting`
//! greeting = Hi {0}, \
//!     welcome!     → block `greeting`: "Hi " {0} ", " "welcome!"
//! ```
use std::ops::Range;

use super::inline::placeholders::{self, Ids, Syntaxes};
use super::output::Output;
use super::{
    Capabilities, Encoding, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, KeyDeduper, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "properties",
    name: "Java properties",
    extensions: &["properties"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// MessageFormat arguments and printf specifiers.
const SYNTAXES: Syntaxes = Syntaxes {
    brace: true,
    printf: true,
    ..Syntaxes::NONE
};

pub struct Properties;

impl Format for Properties {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let original = parsed.skeleton.text();
        let limit = match parsed.skeleton.encoding {
            Encoding::Latin1 => 0xFF,
            _ if original.is_ascii() => 0x7F,
            _ => u32::MAX,
        };
        parsed
            .skeleton
            .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
                let held = original.get(hole.span.clone()).unwrap_or_default();
                let mut value = String::new();
                flatten(runs, &mut value);
                let mut out = String::new();
                // An entry with neither value nor separator (`key` alone) needs one now.
                if held.is_empty() && !value.is_empty() {
                    let start = parsed
                        .document
                        .blocks
                        .get(hole.block)
                        .map_or(hole.span.start, |b| b.span.start);
                    if parse_key(original, start).is_ok_and(|k| !k.has_separator) {
                        out.push('=');
                    }
                }
                render_value(held, &value, limit, &mut out);
                Ok(out)
            })
    }
}

/// One step along an entry's logical line.
#[derive(Debug)]
struct Step {
    /// The decoded character, the offset where it reads verbatim (if it does) and whether
    /// it was escaped; `None` at the end of the logical line.
    item: Option<(char, Option<usize>, bool)>,
    /// Continuations (backslash, line break, the next line's indent) skipped before it.
    cont: Option<Range<usize>>,
    /// Past the character; at the end of the line, the line break (not consumed). A lone
    /// backslash at the very end of the text is left unconsumed too.
    next: usize,
}

/// The next character of the logical line at `pos`, escapes decoded and continuations
/// skipped.
fn step(text: &str, mut pos: usize) -> Result<Step, ReadError> {
    let bytes = text.as_bytes();
    let mut cont: Option<Range<usize>> = None;
    loop {
        let end = |cont| Step {
            item: None,
            cont,
            next: pos,
        };
        match bytes.get(pos) {
            None | Some(b'\n' | b'\r') => return Ok(end(cont)),
            Some(b'\\') => match bytes.get(pos + 1) {
                None => return Ok(end(cont)),
                Some(b'\n' | b'\r') => {
                    let after = skip_continuation(bytes, pos);
                    cont = Some(cont.map_or(pos, |r| r.start)..after);
                    pos = after;
                }
                Some(_) => {
                    let (c, verbatim, next) = decode_escape(text, pos)?;
                    return Ok(Step {
                        item: Some((c, verbatim.then_some(pos + 1), true)),
                        cont,
                        next,
                    });
                }
            },
            Some(_) => {
                let Some(c) = text.get(pos..).and_then(|s| s.chars().next()) else {
                    return Ok(end(cont));
                };
                return Ok(Step {
                    item: Some((c, Some(pos), false)),
                    cont,
                    next: pos + c.len_utf8(),
                });
            }
        }
    }
}

/// From the backslash of a continuation at `pos`: past the line break and the next line's
/// leading whitespace.
fn skip_continuation(bytes: &[u8], pos: usize) -> usize {
    let mut at = past_line_break(bytes, pos + 1);
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\x0c')) {
        at += 1;
    }
    at
}

/// The escape whose backslash is at `at`: the character it stands for, whether that is
/// the character written right after the backslash (so it reads verbatim there), and the
/// offset past the escape. `\u` takes four hex digits; a surrogate pair written as two
/// escapes reads as one character, a lone surrogate as U+FFFD.
fn decode_escape(text: &str, at: usize) -> Result<(char, bool, usize), ReadError> {
    let Some(c) = text.get(at + 1..).and_then(|s| s.chars().next()) else {
        return Err(ReadError::syntax_at(text, at, "a backslash ends the text"));
    };
    Ok(match c {
        't' => ('\t', false, at + 2),
        'n' => ('\n', false, at + 2),
        'r' => ('\r', false, at + 2),
        'f' => ('\x0c', false, at + 2),
        'u' => {
            let Some(code) = hex4(text, at + 2) else {
                return Err(ReadError::syntax_at(
                    text,
                    at,
                    "malformed `\\u` escape: expected four hex digits after `\\u`",
                ));
            };
            if (0xD800..0xDC00).contains(&code)
                && text.get(at + 6..at + 8) == Some("\\u")
                && let Some(low @ 0xDC00..=0xDFFF) = hex4(text, at + 8)
            {
                let joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                (char::from_u32(joined).unwrap_or('\u{fffd}'), false, at + 12)
            } else {
                (char::from_u32(code).unwrap_or('\u{fffd}'), false, at + 6)
            }
        }
        c => (c, true, at + 1 + c.len_utf8()),
    })
}

/// Four hex digits at `at`.
fn hex4(text: &str, at: usize) -> Option<u32> {
    let hex = text.get(at..at + 4)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

/// What [`parse_key`] found at the start of an entry.
#[derive(Debug)]
struct KeyPart {
    key: String,
    /// Whether an `=` or `:`, or whitespace, separates the key from the value.
    has_separator: bool,
    /// Where the value starts (after the separator and the whitespace around it).
    value_start: usize,
}

/// Reads the key and separator of the entry starting at `start` (its first non-blank
/// character): the key ends at the first unescaped `=`, `:` or whitespace; then come
/// whitespace, at most one `=` or `:` (when the key ended at whitespace), and whitespace.
fn parse_key(text: &str, start: usize) -> Result<KeyPart, ReadError> {
    let mut key = String::new();
    let mut pos = start;
    let mut has_separator = false;
    let mut sign = false;
    loop {
        // Plain key characters as one slice.
        let rest = text.as_bytes().get(pos..).unwrap_or_default();
        let plain = rest
            .iter()
            .position(|&b| {
                matches!(
                    b,
                    b'=' | b':' | b' ' | b'\t' | b'\x0c' | b'\\' | b'\n' | b'\r'
                )
            })
            .unwrap_or(rest.len());
        key.push_str(text.get(pos..pos + plain).unwrap_or_default());
        pos += plain;
        let step = step(text, pos)?;
        pos = step.next;
        match step.item {
            None => break,
            Some(('=' | ':', _, false)) => {
                (has_separator, sign) = (true, true);
                break;
            }
            Some((c, _, false)) if is_blank(c) => {
                has_separator = true;
                break;
            }
            Some((c, _, _)) => key.push(c),
        }
    }
    loop {
        let step = step(text, pos)?;
        match step.item {
            Some((c, _, false)) if is_blank(c) => pos = step.next,
            Some(('=' | ':', _, false)) if !sign => {
                sign = true;
                pos = step.next;
            }
            _ => break,
        }
    }
    Ok(KeyPart {
        key,
        has_separator,
        value_start: pos,
    })
}

/// Decoded value text as pieces: verbatim slices (with their offset) and decoded stretches.
#[derive(Debug, Default)]
pub(crate) struct Pieces {
    pub(crate) pieces: Vec<(String, Option<usize>)>,
    /// File offset just past the last verbatim character pushed.
    end: usize,
}

impl Pieces {
    /// Appends `c`, read verbatim at `at` when `at` is `Some`.
    pub(crate) fn push(&mut self, c: char, at: Option<usize>) {
        match (at, self.pieces.last_mut()) {
            (Some(at), Some((text, Some(_)))) if at == self.end => text.push(c),
            (None, Some((text, None))) => text.push(c),
            _ => self.pieces.push((c.to_string(), at)),
        }
        if let Some(at) = at {
            self.end = at + c.len_utf8();
        }
    }

    /// Appends `text`, read verbatim at `at`.
    pub(crate) fn push_str(&mut self, text: &str, at: usize) {
        if text.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some((last, Some(_))) if at == self.end => last.push_str(text),
            _ => self.pieces.push((text.to_owned(), Some(at))),
        }
        self.end = at + text.len();
    }

    /// Splits every piece into text runs and placeholder codes.
    pub(crate) fn into_runs(self, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
        let mut runs = Vec::with_capacity(self.pieces.len());
        for (text, src) in self.pieces {
            // What `split` would find nothing in moves into its run uncopied.
            if syntaxes == Syntaxes::NONE
                || !crate::formats::inline::placeholders::may_hold_code(&text)
            {
                if !text.is_empty() {
                    runs.push(Run::Text { text, src });
                }
            } else if runs.is_empty() {
                runs = placeholders::split(&text, src, syntaxes, ids);
            } else {
                runs.extend(placeholders::split(&text, src, syntaxes, ids));
            }
        }
        runs
    }
}

/// A continuation inside a value: the byte offset in the decoded text where it sits, and
/// its raw bytes' range.
type Break = (usize, Range<usize>);

/// Decodes the value from `start` to the end of its logical line: its pieces, where it
/// ends, and its continuations.
fn decode_value(text: &str, start: usize) -> Result<(Pieces, usize, Vec<Break>), ReadError> {
    let mut pieces = Pieces::default();
    let mut breaks = Vec::new();
    let mut decoded_len = 0;
    let mut pos = start;
    loop {
        // Plain characters up to the next backslash or line break, as one slice.
        let rest = text.as_bytes().get(pos..).unwrap_or_default();
        let plain = rest
            .iter()
            .position(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
            .unwrap_or(rest.len());
        if plain > 0 {
            pieces.push_str(text.get(pos..pos + plain).unwrap_or_default(), pos);
            decoded_len += plain;
            pos += plain;
        }
        let step = step(text, pos)?;
        if let Some(raw) = step.cont {
            breaks.push((decoded_len, raw));
        }
        let Some((c, verbatim, _)) = step.item else {
            return Ok((pieces, step.next, breaks));
        };
        pieces.push(c, verbatim);
        decoded_len += c.len_utf8();
        pos = step.next;
    }
}

/// The file's text: UTF-8 when it is, else ISO-8859-1 (what `java.util.Properties` reads).
fn decode(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, Encoding), ReadError> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(ReadError::Binary { offset });
    }
    Ok(match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), Encoding::Utf8),
        Err(_) => (Encoding::Latin1.decode(bytes)?, Encoding::Latin1),
    })
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each entry to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let mut out = Output::new(INFO.id, skeleton, each);
    let bytes = text.as_bytes();
    // At most a block per line.
    if !out.streams() {
        out.reserve(bytes.iter().filter(|&&b| b == b'\n').count() + 1);
    }
    let mut keys = KeyDeduper::default();
    let mut pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut notes: Vec<String> = Vec::new();
    while pos < bytes.len() {
        while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\x0c')) {
            pos += 1;
        }
        match bytes.get(pos) {
            None => break,
            Some(b'\n' | b'\r') => {
                pos = past_line_break(bytes, pos);
                notes.clear();
                continue;
            }
            Some(b'#' | b'!') => {
                let end = line_end(bytes, pos);
                let note = text.get(pos + 1..end).unwrap_or_default().trim();
                notes.push(note.to_owned());
                pos = past_line_break(bytes, end);
                continue;
            }
            Some(_) => {}
        }
        let start = pos;
        let key = parse_key(text, start)?;
        let (pieces, end, _) = decode_value(text, key.value_start)?;
        let mut block = Block::new(
            keys.key(&key.key),
            Role::Key,
            pieces.into_runs(SYNTAXES, &mut Ids::default()),
        );
        block.span = start..end;
        block.notes = std::mem::take(&mut notes);
        let index = out.index();
        out.skeleton
            .hole(key.value_start..end, index, &block.source);
        out.push(text, block);
        // A lone backslash at the very end of the text stays in the skeleton.
        pos = past_line_break(bytes, line_end(bytes, end));
    }
    Ok(out)
}

/// The offset of the line break (or the end) at or after `pos`.
fn line_end(bytes: &[u8], pos: usize) -> usize {
    bytes
        .get(pos..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n' || b == b'\r'))
        .map_or(bytes.len(), |i| pos + i)
}

/// Past the line break at `pos` (`\n`, `\r\n` or `\r`), or `pos` at the end.
fn past_line_break(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos..) {
        Some([b'\r', b'\n', ..]) => pos + 2,
        Some([b'\r' | b'\n', ..]) => pos + 1,
        _ => pos,
    }
}

/// The decoded text of runs: text and code data alike.
fn flatten(runs: &[Run], out: &mut String) {
    super::render_runs(runs, out, &mut |text, out| out.push_str(text));
}

/// Writes `value` in place of the value `held`, keeping its continuation breaks where the
/// edit leaves them in unchanged text.
fn render_value(held: &str, value: &str, limit: u32, out: &mut String) {
    let (old, breaks) = match decode_value(held, 0) {
        Ok((pieces, _, breaks)) => {
            let old: String = pieces.pieces.into_iter().map(|(t, _)| t).collect();
            (old, breaks)
        }
        Err(_) => (String::new(), Vec::new()),
    };
    let prefix = common_prefix(&old, value);
    let suffix = common_suffix(&old[prefix..], &value[prefix..]);
    let mut cuts: Vec<(usize, &str)> = Vec::new();
    for (at, raw) in breaks {
        let Some(raw) = held.get(raw) else { continue };
        let mapped = if at <= prefix {
            Some(at)
        } else if at >= old.len() - suffix {
            Some(at + value.len() - old.len())
        } else {
            None
        };
        if let Some(at) = mapped
            && value.is_char_boundary(at)
            && cuts.last().is_none_or(|&(last, _)| last <= at)
        {
            cuts.push((at, raw));
        }
    }
    let mut from = 0;
    for (at, raw) in cuts {
        escape(
            value.get(from..at).unwrap_or_default(),
            from == 0,
            limit,
            out,
        );
        out.push_str(raw);
        from = at;
    }
    escape(value.get(from..).unwrap_or_default(), from == 0, limit, out);
}

/// Escapes one line's worth of value text: the value's start or a continued line's, where
/// leading whitespace would be skipped. `first` marks the value's start, where a leading
/// `=` or `:` would read as a separator.
fn escape(text: &str, first: bool, limit: u32, out: &mut String) {
    for (i, c) in text.char_indices() {
        let leading = i == 0;
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0c' => out.push_str("\\f"),
            ' ' if leading => out.push_str("\\ "),
            '=' | ':' if leading && first => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\x7f' || (c as u32) > limit => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
}

/// Length in bytes of the common prefix of `a` and `b`, on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
        .min(b.len())
}

/// Length in bytes of the common suffix of `a` and `b`, on a character boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut len = 0;
    for (x, y) in a.chars().rev().zip(b.chars().rev()) {
        if x != y {
            break;
        }
        len += x.len_utf8();
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CodeKind, Document, Edition};

    fn read(text: &str) -> Parsed {
        Properties.read(text.as_bytes()).unwrap()
    }

    fn write(parsed: &Parsed) -> String {
        String::from_utf8(Properties.write(parsed).unwrap()).unwrap()
    }

    fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
        parsed.document.block_mut(key).unwrap().source = Edition::new(vec![Run::text(text)]);
    }

    fn values(parsed: &Parsed) -> Vec<(String, String)> {
        parsed
            .document
            .blocks
            .iter()
            .map(|b| {
                let mut value = String::new();
                flatten(&b.source.runs, &mut value);
                (b.key.clone(), value)
            })
            .collect()
    }

    fn fixtures() -> Vec<(String, Vec<u8>)> {
        super::super::conformance::fixtures("properties")
            .into_iter()
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect()
    }

    /// One line per block: key, notes, and runs with codes as `<x id/>`.
    fn blocks_table(document: &Document) -> String {
        let mut out = String::new();
        for block in &document.blocks {
            let mut text = String::new();
            for run in &block.source.runs {
                match run {
                    Run::Text { text: t, .. } => text.push_str(t),
                    Run::Code(c) => text.push_str(&format!("<x id=\"{}/\"/>", c.id)),
                    Run::Switch(_) => text.push_str("<switch/>"),
                }
            }
            out.push_str(&format!(
                "{} | {} | {}\n",
                block.key,
                block.notes.join(" / "),
                text.replace('\n', "\\n")
            ));
        }
        out
    }

    #[test]
    fn keys_separators_and_escapes_read_as_java_reads_them() {
        let table: &[(&str, &[(&str, &str)])] = &[
            ("a=b", &[("a", "b")]),
            ("a:b", &[("a", "b")]),
            ("a b", &[("a", "b")]),
            ("  a  =  b  ", &[("a", "b  ")]),
            ("a \t: b", &[("a", "b")]),
            ("a = = b", &[("a", "= b")]),
            ("a b=c", &[("a", "b=c")]),
            ("key\\ with\\ spaces: v", &[("key with spaces", "v")]),
            ("key\\:\\= x", &[("key:=", "x")]),
            ("tricky3:\\:", &[("tricky3", ":")]),
            ("tricky6\\==\\=", &[("tricky6=", "=")]),
            ("k", &[("k", "")]),
            ("k=", &[("k", "")]),
            ("=v", &[("", "v")]),
            ("k=\\u00e9\\t\\n\\\\x", &[("k", "é\t\n\\x")]),
            ("k=\\uD83D\\uDE00!", &[("k", "😀!")]),
            ("k=\\uD83Dx", &[("k", "\u{fffd}x")]),
            ("k=a \\\n   b", &[("k", "a b")]),
            ("k=a\\\r\n\t  \\ b", &[("k", "a b")]),
            ("k=a\\\\\nb", &[("k", "a\\"), ("b", "")]),
            ("k=a\\\n\nb=c", &[("k", "a"), ("b", "c")]),
            ("k=a\\\n# not a comment", &[("k", "a# not a comment")]),
            ("# c\\\nk=v", &[("k", "v")]),
            ("k=v\\", &[("k", "v")]),
            ("k=1\nk=2", &[("k", "1"), ("k#2", "2")]),
            ("\u{feff}k=v", &[("k", "v")]),
        ];
        for (text, want) in table {
            let parsed = read(text);
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(values(&parsed), want, "{text:?}");
            assert_eq!(write(&parsed), *text, "{text:?}");
        }
    }

    #[test]
    fn verbatim_pieces_carry_their_offsets_and_decoded_ones_do_not() {
        let parsed = read("k = it\\'s \\u00e9t\\\n  \u{e9}");
        let runs = &parsed.document.blocks[0].source.runs;
        let got: Vec<(&str, Option<usize>)> = runs
            .iter()
            .map(|r| match r {
                Run::Text { text, src } => (text.as_str(), *src),
                _ => ("code", None),
            })
            .collect();
        assert_eq!(
            got,
            [
                ("it", Some(4)),
                ("'s ", Some(7)),
                ("é", None),
                ("t", Some(16)),
                ("é", Some(21))
            ]
        );
    }

    #[test]
    fn message_format_and_printf_are_codes_and_quoted_apostrophes_text() {
        let parsed = read("t = At {2,time,short} it''s {0} and %1$s or %d, 100%%\n");
        let codes: Vec<String> = parsed.document.blocks[0]
            .source
            .runs
            .iter()
            .filter_map(|r| match r {
                Run::Code(c) if c.kind == CodeKind::Standalone => Some(c.data.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(codes, ["{2,time,short}", "{0}", "%1$s", "%d", "%%"]);
        assert!(
            parsed.document.blocks[0]
                .source
                .plain_text()
                .contains("it''s")
        );
    }

    #[test]
    fn comments_above_an_entry_are_its_notes() {
        let parsed = read("# Section\n\n# Greeting\n! shown on start\nhi=Hello\nbye=Bye\n");
        assert_eq!(
            parsed.document.blocks[0].notes,
            ["Greeting", "shown on start"]
        );
        assert!(parsed.document.blocks[1].notes.is_empty());
    }

    #[test]
    fn an_edit_escapes_what_java_would_misread() {
        let table: &[(&str, &str, &str)] = &[
            ("k=v\n", " lead\\ing\ttab", "k=\\ lead\\\\ing\\ttab\n"),
            ("k v\n", "=x:y", "k \\=x:y\n"),
            ("k:\n", "a\nb\r", "k:a\\nb\\r\n"),
            ("k\n", "v", "k=v\n"),
            ("k\\ \n", "v", "k\\ =v\n"),
            ("k=\n", "#!", "k=#!\n"),
            ("k=x\r\nj=y\r\n", "é", "k=\\u00E9\r\nj=y\r\n"),
            ("k=\\u00e9\n", "ĳ ☃", "k=\\u0133 \\u2603\n"),
            ("k=v\n", "\u{1}", "k=\\u0001\n"),
            ("k=v\n", "😀", "k=\\uD83D\\uDE00\n"),
        ];
        for (source, value, want) in table {
            let mut parsed = read(source);
            parsed.document.blocks[0].source = Edition::new(vec![Run::text(*value)]);
            let written = write(&parsed);
            assert_eq!(written, *want, "{source:?} ← {value:?}");
            assert_eq!(
                values(&read(&written))[0].1,
                *value,
                "{source:?} ← {value:?}"
            );
        }
    }

    #[test]
    fn a_latin1_file_is_written_back_as_latin1_with_escapes_beyond_it() {
        let bytes = b"k=caf\xe9\nj=\xdf\n";
        let mut parsed = Properties.read(bytes).unwrap();
        assert_eq!(parsed.skeleton.encoding, Encoding::Latin1);
        assert_eq!(values(&parsed)[0].1, "café");
        assert_eq!(Properties.write(&parsed).unwrap(), bytes);
        set_text(&mut parsed, "k", "thé ☃");
        assert_eq!(
            Properties.write(&parsed).unwrap(),
            b"k=th\xe9 \\u2603\nj=\xdf\n"
        );
        // A UTF-8 file with non-ASCII text takes any character as is.
        let mut parsed = read("k=é\n");
        set_text(&mut parsed, "k", "☃");
        assert_eq!(write(&parsed), "k=☃\n");
    }

    #[test]
    fn an_edit_keeps_continuations_in_unchanged_text() {
        let source = "k = one \\\n    two \\\n\tthree\nnext=x\n";
        let mut parsed = read(source);
        set_text(&mut parsed, "k", "one two three four");
        assert_eq!(
            write(&parsed),
            "k = one \\\n    two \\\n\tthree four\nnext=x\n"
        );
        set_text(&mut parsed, "k", "One two three");
        assert_eq!(write(&parsed), "k = One \\\n    two \\\n\tthree\nnext=x\n");
        set_text(&mut parsed, "k", "one  two three");
        assert_eq!(
            write(&parsed),
            "k = one \\\n    \\ two \\\n\tthree\nnext=x\n"
        );
        set_text(&mut parsed, "k", "all new");
        assert_eq!(write(&parsed), "k = all new\nnext=x\n");
        for value in ["one  two three", "one two three four", "x"] {
            set_text(&mut parsed, "k", value);
            assert_eq!(values(&read(&write(&parsed)))[0].1, value);
        }
    }

    #[test]
    fn malformed_unicode_escapes_are_errors_with_a_position() {
        let err = Properties.read(b"a=1\nkey = ab\\u12g4\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "2:9: malformed `\\u` escape: expected four hex digits after `\\u`"
        );
        assert!(Properties.read(b"k\\u00=v").is_err());
        assert!(matches!(
            Properties.read(b"a=\0"),
            Err(ReadError::Binary { offset: 2 })
        ));
    }

    #[test]
    fn every_fixture_reads_the_expected_keys() {
        let bytes = include_bytes!("../../../testdata/formats/properties/okapi-Test01.properties");
        let parsed = Properties.read(bytes).unwrap();
        assert_eq!(parsed.skeleton.encoding, Encoding::Latin1);
        insta::assert_snapshot!(
            "properties_blocks_okapi_test01",
            blocks_table(&parsed.document)
        );
        for (name, bytes) in fixtures() {
            let parsed = Properties
                .read(&bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!parsed.document.blocks.is_empty(), "{name}");
        }
    }

    #[test]
    fn rendering_every_value_as_edited_reads_back_the_same() {
        for (name, bytes) in fixtures() {
            let mut parsed = Properties.read(&bytes).unwrap();
            let before = values(&parsed);
            for block in &mut parsed.document.blocks {
                // A structurally different but equal-text edition forces a render.
                let mut value = String::new();
                flatten(&block.source.runs, &mut value);
                block.source = Edition::new(vec![Run::text(value), Run::text("")]);
            }
            let written = Properties.write(&parsed).unwrap();
            let again = Properties.read(&written).unwrap();
            assert_eq!(values(&again), before, "{name}");
            assert_eq!(again.skeleton.encoding, parsed.skeleton.encoding, "{name}");
        }
    }

    #[test]
    fn truncated_and_garbled_input_never_panics() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for (_, bytes) in fixtures() {
            for cut in crate::formats::conformance::cuts(bytes.len()) {
                inputs.push(bytes[..cut].to_vec());
            }
            inputs.push(
                bytes
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| {
                        if i % 13 == 0 {
                            b"\\\n=:#u \r"[i % 8]
                        } else {
                            b
                        }
                    })
                    .collect(),
            );
        }
        for nasty in [
            "\\",
            "\\\n",
            "k\\",
            "k=\\u",
            "k=\\uD800",
            "\r\r\n",
            "\\\r\n\\\n",
            "=",
            ":",
        ] {
            inputs.push(nasty.as_bytes().to_vec());
        }
        for input in inputs {
            if let Ok(mut parsed) = Properties.read(&input) {
                assert_eq!(Properties.write(&parsed).unwrap(), input);
                for block in &mut parsed.document.blocks {
                    block.source.runs.push(Run::text(" \\ = \n\u{1}é☃"));
                }
                let written = Properties.write(&parsed).unwrap();
                Properties.read(&written).unwrap();
            }
        }
    }
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Properties, "properties") > 0);
    }
}
