//! gettext PO and POT catalogs: one block per message, its `msgid` as the source edition
//! and its `msgstr` as the target edition of the header's `Language:`.
//!
//! # Blocks and keys
//! Every message but the header (the entry with an empty `msgid` and no `msgctxt`) is a
//! block of role `key`. Its key is the catalog key gettext looks it up by, written readably:
//! the `msgid` text, or `msgctxt|msgid` when the message has a context. Both parts are
//! written with PO escapes (`\n`, `\t`, `\"`, `\\`…) and a `|` inside either part as `\|`,
//! so the only bare `|` is the separator and no two messages share a key by accident; a
//! repeated key (the same message in two `domain` sections) becomes `key#2`.
//!
//! # Editions
//! The source edition holds the `msgid` text; the target edition, named by the header's
//! `Language:` (`zh_CN` as `zh-CN`, `sr@latin` as `sr-Latn`; `target` when the header names
//! none, as in a POT file), holds the `msgstr` text. An empty `msgstr` still gives an (empty)
//! target edition with a hole, so a translation can be written into it. The target's state
//! is `fuzzy` when the `#,` flags say so, else `translated` when some `msgstr` is not empty,
//! else none. The writer does not change flags: a state set on an edited edition is not
//! written back.
//!
//! A plural message is one [`Switch`] per edition (kind plural, pivot `n`): the source has
//! branches `one` (`msgid`) and `other` (`msgid_plural`); the target has one branch per
//! `msgstr[i]`, named by the language's CLDR categories in gettext's order when the number
//! of forms matches a built-in table ([`plural_categories`]: one form is `other`, two are
//! `one other`, six are `zero one two few many other`, and three to five by language: `ru`,
//! `uk`, `pl`… `one few many (other)`, `cs`/`sk` `one few (many) other`, `he` `one two (many)
//! other`, `fr`/`es`/`it`/`pt` `one many other`, `sl` `one two few other`, `ga` five forms),
//! else `form0`, `form1`…. Each branch has its own hole (`n:one`, `n:few`).
//!
//! # Codes
//! Placeholders are standalone codes chosen by the message's flags: `c-format`,
//! `python-format` (with Django's `%(name)s`), `javascript-format`, `php-format` and other
//! printf-like flags give printf codes; `python-brace-format`, `java-format` and
//! `csharp-format` give brace codes (`{name}`, `{0}`, `{}`); a message with no format flag reads
//! both printf and brace placeholders, and a `no-…-format` flag turns its syntax off. Codes
//! are found by a byte scanner that gives what [`super::placeholders::split`] gives for those two
//! syntaxes, except that a placeholder inside HTML (`<a href="%(url)s">`) is still a code;
//! HTML itself is text: PO strings hold an application's text, not markup of this file.
//! `{{` and `}}` are literal braces. Translator comments (`#`) and extracted comments
//! (`#.`) are the block's notes, one note per kind, lines joined with `\n`.
//!
//! # Strings and the skeleton
//! A string is one or more `"…"` segments on consecutive lines, concatenated, with the C
//! escapes gettext reads undone (`\n`, `\t`, `\r`, `\"`, `\\`, `\a`, `\b`, `\f`, `\v`, octal
//! `\ooo` and hex `\xHH`, these two read as the character of that code). A text run keeps
//! its file offset when the string is one segment with no escape. A hole spans every
//! segment of one `msgid`, `msgid_plural`, `msgstr` or `msgstr[i]`, quotes included;
//! everything else stays in the skeleton byte for byte: keywords, comments and flags,
//! references (`#:`), previous messages (`#|`), obsolete messages (`#~`, never blocks), the
//! header, `domain` lines, blank lines, a BOM and CRLF line endings.
//!
//! # Writing
//! An edited hole is escaped (`\\`, `\"`, `\n`, `\t`, `\r`, `\a`… and `\ooo` for other
//! control characters) and wrapped as msgcat does when the file shows msgcat's wrapping (a
//! string broken at a space, or no line longer than 79 columns): one line when it fits in 79
//! columns after its keyword and holds no inner newline, else `""` and lines of at most 79
//! columns broken after each `\n`, at spaces, after a hyphen between letters, after `/`
//! before a letter and around ideographs (East Asian wide characters count two columns,
//! combining marks none). msgcat follows all of Unicode line breaking, so about 1.6% of
//! the lines of the Django fixtures would break elsewhere; gettext reads both the same.
//! In a file that does not wrap, a string that was one segment stays one line and one
//! broken into segments is broken after each `\n`, keeping whether it began with `""`.
//! Continuation lines reuse the hole's own separator (its line ending), else the file's.
//!
//! # Encoding
//! A UTF-16 or UTF-8 BOM decides; else the header's `charset=` through
//! [`Encoding::for_label`] (`windows-1251`, `ISO-8859-1`…), except that a file that is valid
//! UTF-8 with non-ASCII bytes is read as UTF-8 whatever it declares. An unknown label or
//! `CHARSET` (a fresh POT) reads as UTF-8.
//!
//! ```text
//! #. Shown on the button            → notes ["Shown on the button"]
//! #, fuzzy, python-format           → target state fuzzy, printf codes
//! msgctxt "menu"                    → key `menu|Open %(name)s`
//! msgid "Open %(name)s"             → source: "Open " <x id="1/"/>
//! msgstr "Ouvrir %(name)s"          → targets[fr]: "Ouvrir " <x id="1/"/>
//! ```
use std::borrow::Cow;
use std::ops::Range;

use super::output::Output;
use super::placeholders::{Ids, Syntaxes};
use super::{
    Capabilities, Encoding, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Branch, Edition, KeyDeduper, Role, Run, Switch, SwitchKind};

pub const INFO: FormatInfo = FormatInfo {
    id: "po",
    name: "gettext PO",
    extensions: &["po", "pot"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
    },
};

/// msgcat's page width: no line longer than this many columns when a string is wrapped.
const WIDTH: usize = 79;

pub struct Po;

impl Format for Po {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let original = parsed.skeleton.text();
        let mut wraps: Option<bool> = None;
        parsed
            .skeleton
            .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
                let wraps =
                    *wraps.get_or_insert_with(|| file_wraps(original, &parsed.skeleton.holes));
                let mut plain = String::new();
                super::render_runs(runs, &mut plain, &mut |text, out| out.push_str(text));
                Ok(render(original, hole.span.clone(), wraps, &plain))
            })
    }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes the file: a BOM decides, else valid UTF-8 with non-ASCII text is UTF-8, else the
/// header's declared charset, else UTF-8.
fn decode(bytes: &[u8]) -> Result<(Cow<'_, str>, Encoding), ReadError> {
    if let Some(enc) = Encoding::sniff_bom(bytes) {
        return Ok((enc.decode(bytes)?, enc));
    }
    let declared = declared_charset(bytes).and_then(Encoding::for_label);
    match declared {
        Some(enc @ (Encoding::Latin1 | Encoding::Legacy(_))) => {
            let utf8 = !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok();
            if utf8 {
                Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8))
            } else {
                Ok((enc.decode(bytes)?, enc))
            }
        }
        _ => Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8)),
    }
}

/// The `charset=` label of the header (the first message, when its `msgid` is empty), read
/// from the raw bytes: headers are ASCII in every encoding a PO file may declare.
fn declared_charset(bytes: &[u8]) -> Option<&str> {
    let at = find(bytes, b"msgid", 0)?;
    let rest = bytes.get(at + 5..)?;
    let skip = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest.get(skip..skip + 2) != Some(b"\"\"") {
        return None;
    }
    // The header ends at the first blank line (or a line starting another keyword).
    let end = find(bytes, b"\nmsgid", at + 5).unwrap_or(bytes.len());
    let header = bytes.get(at..end)?;
    let start = find(header, b"charset=", 0)? + 8;
    let label = header.get(start..)?;
    let len = label
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')))
        .unwrap_or(label.len());
    std::str::from_utf8(label.get(..len)?).ok()
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let hay = haystack.get(from..)?;
    hay.windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

// ---------------------------------------------------------------------------------------
// Parsing

/// One keyword's string: every `"…"` segment, decoded and concatenated.
#[derive(Debug, Clone)]
struct Str {
    /// From the first segment's opening quote to the last one's closing quote.
    span: Range<usize>,
    text: String,
    /// File offset of `text` when it is a verbatim slice (one segment, no escape).
    verbatim: Option<usize>,
}

/// The comments before a message, by kind.
#[derive(Debug, Default)]
struct Comments<'a> {
    /// `# ` lines, without the `#` and the spaces after it.
    translator: Vec<&'a str>,
    /// `#.` lines, without the `#.` and one space.
    extracted: Vec<&'a str>,
    /// The words of `#,` lines.
    flags: Vec<&'a str>,
}

impl<'a> Comments<'a> {
    fn add(&mut self, line: &'a str) {
        let rest = line.get(1..).unwrap_or_default();
        let strip = |s: &'a str| s.strip_prefix(' ').unwrap_or(s);
        match rest.as_bytes().first() {
            Some(b'.') => self
                .extracted
                .push(strip(rest.get(1..).unwrap_or_default())),
            Some(b',') => self.flags.extend(
                rest.get(1..)
                    .unwrap_or_default()
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty()),
            ),
            Some(b':' | b'|' | b'~' | b'=') => {}
            _ => self.translator.push(rest.trim_start()),
        }
    }

    fn has_flag(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }
}

#[derive(Debug)]
struct Entry<'a> {
    /// Where the message's comments (or its first keyword) start.
    start: usize,
    comments: Comments<'a>,
    ctx: Option<Str>,
    id: Option<Str>,
    plural: Option<Str>,
    /// `msgstr`, or `msgstr[0]`, `msgstr[1]`… in order.
    strs: Vec<Str>,
}

impl Entry<'_> {
    fn is_header(&self) -> bool {
        self.ctx.is_none() && self.id.as_ref().is_some_and(|id| id.text.is_empty())
    }

    fn end(&self) -> usize {
        self.strs.last().map_or(self.start, |s| s.span.end)
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, offset: usize, message: impl Into<String>) -> ReadError {
        ReadError::syntax_at(self.text, offset, message)
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            if matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) {
                self.at += 1;
            } else {
                break;
            }
        }
    }

    /// The end of the line at `from`, before its `\n` or `\r\n`.
    fn line_end(&self, from: usize) -> usize {
        let rest = self.bytes.get(from..).unwrap_or_default();
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |p| from + p);
        if end > from && self.bytes.get(end - 1) == Some(&b'\r') {
            end - 1
        } else {
            end
        }
    }

    /// Reads the strings after `keyword`: one or more `"…"` segments.
    fn strings(&mut self, keyword: &str) -> Result<Str, ReadError> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(self.error(
                self.at,
                format!("expected a quoted string after `{keyword}`"),
            ));
        }
        let start = self.at;
        let mut text = String::new();
        let mut segments = 0;
        let mut escaped = false;
        let mut end;
        loop {
            end = self.segment(&mut text, &mut escaped)?;
            segments += 1;
            self.at = end;
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b'"') {
                break;
            }
        }
        self.at = end;
        let verbatim = (segments == 1 && !escaped).then_some(start + 1);
        Ok(Str {
            span: start..end,
            text,
            verbatim,
        })
    }

    /// Reads the segment whose opening quote is at `self.at` into `out`; returns the offset
    /// after its closing quote.
    fn segment(&self, out: &mut String, escaped: &mut bool) -> Result<usize, ReadError> {
        let open = self.at;
        let mut i = open + 1;
        let mut chunk = i;
        loop {
            match self.bytes.get(i) {
                Some(b'"') => {
                    out.push_str(self.text.get(chunk..i).unwrap_or_default());
                    return Ok(i + 1);
                }
                Some(b'\\') => {
                    out.push_str(self.text.get(chunk..i).unwrap_or_default());
                    let (c, next) = self.escape(i)?;
                    out.push(c);
                    *escaped = true;
                    i = next;
                    chunk = i;
                }
                Some(b'\n') | None => {
                    return Err(self.error(
                        open,
                        "this string is not closed: expected a `\"` before the end of the line",
                    ));
                }
                Some(b'\r') if self.bytes.get(i + 1) == Some(&b'\n') => {
                    return Err(self.error(
                        open,
                        "this string is not closed: expected a `\"` before the end of the line",
                    ));
                }
                Some(_) => i += 1,
            }
        }
    }

    /// Decodes the escape whose backslash is at `at`; returns the character and the offset
    /// after the escape.
    fn escape(&self, at: usize) -> Result<(char, usize), ReadError> {
        let simple = |c: char| Ok((c, at + 2));
        match self.bytes.get(at + 1) {
            Some(b'n') => simple('\n'),
            Some(b't') => simple('\t'),
            Some(b'r') => simple('\r'),
            Some(b'"') => simple('"'),
            Some(b'\\') => simple('\\'),
            Some(b'a') => simple('\u{7}'),
            Some(b'b') => simple('\u{8}'),
            Some(b'f') => simple('\u{c}'),
            Some(b'v') => simple('\u{b}'),
            Some(b'\'') => simple('\''),
            Some(b'?') => simple('?'),
            Some(b'0'..=b'7') => {
                let mut value = 0u32;
                let mut i = at + 1;
                while i < at + 4
                    && let Some(&d @ b'0'..=b'7') = self.bytes.get(i)
                {
                    value = value * 8 + u32::from(d - b'0');
                    i += 1;
                }
                char::from_u32(value)
                    .map(|c| (c, i))
                    .ok_or_else(|| self.error(at, "this octal escape is not a character"))
            }
            Some(b'x') => {
                let mut value = 0u32;
                let mut i = at + 2;
                while let Some(&d) = self.bytes.get(i)
                    && d.is_ascii_hexdigit()
                    && i < at + 10
                {
                    value = value * 16 + char::from(d).to_digit(16).unwrap_or(0);
                    i += 1;
                }
                if i == at + 2 {
                    return Err(self.error(at, "expected hex digits after `\\x`"));
                }
                char::from_u32(value)
                    .map(|c| (c, i))
                    .ok_or_else(|| self.error(at, "this hex escape is not a character"))
            }
            _ => {
                let shown = self
                    .text
                    .get(at..)
                    .and_then(|s| s.chars().nth(1))
                    .map_or(String::from("end of line"), |c| format!("`\\{c}`"));
                Err(self.error(
                    at,
                    format!(
                        "unknown escape {shown}; expected `\\n`, `\\t`, `\\\"`, `\\\\` or an octal or hex escape"
                    ),
                ))
            }
        }
    }
}

/// Closes the open message; `at` is where the next token was found.
fn finish<'a>(
    current: &mut Option<Entry<'a>>,
    sink: &mut dyn FnMut(Entry<'a>) -> Result<Flow, ReadError>,
    p: &Parser<'_>,
    at: usize,
) -> Result<Flow, ReadError> {
    if let Some(entry) = current.take() {
        if entry.id.is_none() {
            return Err(p.error(at, "expected `msgid` after `msgctxt`"));
        }
        if entry.strs.is_empty() {
            let want = if entry.plural.is_some() {
                "msgstr[0]"
            } else {
                "msgstr"
            };
            return Err(p.error(at, format!("expected `{want}` after `msgid`")));
        }
        return sink(entry);
    }
    Ok(Flow::Go)
}

/// Whether [`parse`] reads on after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// Reads the file's messages in order, the header included, handing each to `sink` as it
/// ends (none is kept: a catalog is never held twice) until `sink` says [`Flow::Stop`].
fn parse<'a>(
    text: &'a str,
    sink: &mut dyn FnMut(Entry<'a>) -> Result<Flow, ReadError>,
) -> Result<(), ReadError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        at: if text.starts_with('\u{feff}') { 3 } else { 0 },
    };
    let mut comments = Comments::default();
    let mut comments_start: Option<usize> = None;
    let mut current: Option<Entry> = None;

    loop {
        p.skip_space();
        let at = p.at;
        let Some(&b) = p.bytes.get(at) else { break };
        match b {
            b'#' => {
                if finish(&mut current, sink, &p, at)? == Flow::Stop {
                    return Ok(());
                }
                let end = p.line_end(at);
                let line = text.get(at..end).unwrap_or_default();
                if line.starts_with("#~") {
                    // Obsolete messages end a comment group; they stay in the skeleton.
                    comments = Comments::default();
                    comments_start = None;
                } else {
                    comments_start.get_or_insert(at);
                    comments.add(line);
                }
                p.at = end;
            }
            b'"' => {
                return Err(p.error(
                    at,
                    "a string with no keyword before it: expected `msgid`, `msgstr` or `msgctxt`",
                ));
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while p
                    .bytes
                    .get(p.at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    p.at += 1;
                }
                let word = text.get(at..p.at).unwrap_or_default();
                let index = if p.bytes.get(p.at) == Some(&b'[') {
                    let digits = p.at + 1;
                    let mut i = digits;
                    while p.bytes.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    if i == digits || p.bytes.get(i) != Some(&b']') || i - digits > 3 {
                        return Err(p.error(p.at, "expected an index and `]` after `[`"));
                    }
                    let n: usize = text.get(digits..i).unwrap_or("0").parse().unwrap_or(0);
                    p.at = i + 1;
                    Some(n)
                } else {
                    None
                };
                let open = current.as_ref();
                match (word, index) {
                    ("domain", None) => {
                        if finish(&mut current, sink, &p, at)? == Flow::Stop {
                            return Ok(());
                        }
                        comments = Comments::default();
                        comments_start = None;
                        p.at = p.line_end(p.at);
                    }
                    ("msgctxt", None) => {
                        if finish(&mut current, sink, &p, at)? == Flow::Stop {
                            return Ok(());
                        }
                        let ctx = p.strings(word)?;
                        current = Some(Entry {
                            start: comments_start.take().unwrap_or(at),
                            comments: std::mem::take(&mut comments),
                            ctx: Some(ctx),
                            id: None,
                            plural: None,
                            strs: Vec::new(),
                        });
                    }
                    ("msgid", None) => {
                        if open.is_none_or(|e| e.id.is_some()) {
                            if finish(&mut current, sink, &p, at)? == Flow::Stop {
                                return Ok(());
                            }
                            current = Some(Entry {
                                start: comments_start.take().unwrap_or(at),
                                comments: std::mem::take(&mut comments),
                                ctx: None,
                                id: None,
                                plural: None,
                                strs: Vec::new(),
                            });
                        }
                        let id = p.strings(word)?;
                        if let Some(entry) = current.as_mut() {
                            entry.id = Some(id);
                        }
                    }
                    ("msgid_plural", None) => {
                        match open {
                            Some(e)
                                if e.id.is_some() && e.plural.is_none() && e.strs.is_empty() => {}
                            Some(e) if e.plural.is_some() => {
                                return Err(p.error(at, "a second `msgid_plural` in one message"));
                            }
                            _ => {
                                return Err(p.error(
                                    at,
                                    "`msgid_plural` must follow a `msgid` and come before `msgstr[0]`",
                                ));
                            }
                        }
                        let plural = p.strings(word)?;
                        if let Some(entry) = current.as_mut() {
                            entry.plural = Some(plural);
                        }
                    }
                    ("msgstr", None) => {
                        match open {
                            Some(e)
                                if e.id.is_some() && e.plural.is_none() && e.strs.is_empty() => {}
                            Some(e) if e.plural.is_some() => {
                                return Err(p.error(
                                    at,
                                    "a plural message takes `msgstr[0]`, `msgstr[1]`…, not `msgstr`",
                                ));
                            }
                            Some(e) if e.id.is_some() => {
                                return Err(p.error(
                                    at,
                                    "a second `msgstr` in one message; expected `msgid`",
                                ));
                            }
                            _ => return Err(p.error(at, "`msgstr` without `msgid` before it")),
                        }
                        let s = p.strings(word)?;
                        if let Some(entry) = current.as_mut() {
                            // One slot at a time: most messages have one `msgstr`.
                            entry.strs.reserve_exact(1);
                            entry.strs.push(s);
                        }
                    }
                    ("msgstr", Some(n)) => {
                        match open {
                            Some(e) if e.plural.is_some() && e.strs.len() == n => {}
                            Some(e) if e.plural.is_some() => {
                                return Err(p.error(
                                    at,
                                    format!(
                                        "expected `msgstr[{}]`, found `msgstr[{n}]`",
                                        e.strs.len()
                                    ),
                                ));
                            }
                            Some(e) if e.id.is_some() => {
                                return Err(p.error(
                                    at,
                                    format!(
                                        "`msgstr[{n}]` without `msgid_plural`; expected `msgstr`"
                                    ),
                                ));
                            }
                            _ => {
                                return Err(p.error(
                                    at,
                                    format!("`msgstr[{n}]` without `msgid` before it"),
                                ));
                            }
                        }
                        let s = p.strings("msgstr[]")?;
                        if let Some(entry) = current.as_mut() {
                            // One slot at a time: most messages have one `msgstr`.
                            entry.strs.reserve_exact(1);
                            entry.strs.push(s);
                        }
                    }
                    _ => {
                        return Err(p.error(
                            at,
                            format!(
                                "unknown keyword `{word}`; expected `msgctxt`, `msgid`, `msgid_plural`, `msgstr` or a `#` comment"
                            ),
                        ));
                    }
                }
            }
            _ => {
                return Err(p.error(
                    at,
                    "expected a keyword (`msgid`, `msgstr`…), a quoted string or a `#` comment",
                ));
            }
        }
    }
    finish(&mut current, sink, &p, p.at)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Blocks

/// What the header says about the file.
#[derive(Debug, Default)]
struct Header {
    language: Option<String>,
}

/// The header: the first message with an empty `msgid` and no context (read up to it, so
/// a file with its header first, as gettext writes them, costs one message).
fn header(text: &str) -> Result<Header, ReadError> {
    let mut found = None;
    parse(text, &mut |entry| {
        if entry.is_header() {
            found = entry.strs.into_iter().next().map(|s| s.text);
            return Ok(Flow::Stop);
        }
        Ok(Flow::Go)
    })?;
    Ok(header_of(found.as_deref()))
}

fn header_of(text: Option<&str>) -> Header {
    let mut out = Header::default();
    let Some(text) = text else {
        return out;
    };
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("language") {
            let value = value.trim();
            if !value.is_empty() {
                out.language = Some(value.to_owned());
            }
        }
    }
    out
}

/// A gettext locale name as a language tag: `zh_CN` → `zh-CN`, `sr@latin` → `sr-Latn`.
fn language_tag(locale: &str) -> String {
    let (base, modifier) = locale.split_once('@').unwrap_or((locale, ""));
    let mut tag = base.replace('_', "-");
    match modifier.to_ascii_lowercase().as_str() {
        "" => {}
        "latin" => tag.push_str("-Latn"),
        "cyrillic" => tag.push_str("-Cyrl"),
        other => {
            tag.push_str("-x-");
            tag.push_str(other);
        }
    }
    tag
}

/// The CLDR categories of `forms` plural forms in gettext's order for `language` (a locale
/// or tag), when the number of forms matches the built-in table.
pub fn plural_categories(language: &str, forms: usize) -> Option<&'static [&'static str]> {
    let lang = language
        .split(['_', '-', '@', '.'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let lang = lang.as_str();
    Some(match forms {
        1 => &["other"],
        2 => &["one", "other"],
        3 => match lang {
            "ru" | "uk" | "be" | "pl" | "sr" | "hr" | "bs" | "sh" => &["one", "few", "many"],
            "cs" | "sk" | "lt" | "ro" | "mo" => &["one", "few", "other"],
            "lv" | "prg" => &["zero", "one", "other"],
            "he" | "iw" => &["one", "two", "other"],
            "fr" | "es" | "it" | "pt" | "ca" => &["one", "many", "other"],
            _ => return None,
        },
        4 => match lang {
            "ru" | "uk" | "be" | "pl" | "lt" | "cs" | "sk" | "mt" => {
                &["one", "few", "many", "other"]
            }
            "sl" | "gd" | "dsb" | "hsb" | "cy" => &["one", "two", "few", "other"],
            "he" | "iw" => &["one", "two", "many", "other"],
            _ => return None,
        },
        5 => match lang {
            "ga" | "br" => &["one", "two", "few", "many", "other"],
            _ => return None,
        },
        6 => &["zero", "one", "two", "few", "many", "other"],
        _ => return None,
    })
}

/// The placeholder syntaxes a message's flags call for.
fn syntaxes(comments: &Comments) -> Syntaxes {
    const PRINTF_FLAGS: &[&str] = &[
        "c-format",
        "objc-format",
        "python-format",
        "javascript-format",
        "php-format",
        "perl-format",
        "lua-format",
        "gcc-internal-format",
        "gfc-internal-format",
        "awk-format",
        "tcl-format",
        "scheme-format",
        "elisp-format",
        "librep-format",
        "ruby-format",
    ];
    const BRACE_FLAGS: &[&str] = &[
        "python-brace-format",
        "java-format",
        "java-printf-format",
        "csharp-format",
        "perl-brace-format",
        "rust-format",
    ];
    let mut printf = false;
    let mut brace = false;
    let mut any = false;
    for flag in &comments.flags {
        if PRINTF_FLAGS.contains(flag) {
            printf = true;
            any = true;
        } else if BRACE_FLAGS.contains(flag) {
            // `java-printf-format` is printf in Java's syntax.
            if *flag == "java-printf-format" {
                printf = true;
            } else {
                brace = true;
            }
            any = true;
        } else if flag.ends_with("-format") && !flag.starts_with("no-") {
            any = true;
        }
    }
    if !any {
        printf = true;
        brace = true;
    }
    for flag in &comments.flags {
        if let Some(name) = flag.strip_prefix("no-") {
            if PRINTF_FLAGS.contains(&name) {
                printf = false;
            }
            if BRACE_FLAGS.contains(&name) {
                brace = false;
            }
        }
    }
    Syntaxes {
        printf,
        brace,
        ..Syntaxes::NONE
    }
}

/// The runs of `s`, taking its text (a message with no placeholder becomes one run that
/// keeps the decoded string rather than a copy).
fn runs_of(s: &mut Str, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    split_owned(std::mem::take(&mut s.text), s.verbatim, syntaxes, ids)
}

/// [`split`] over an owned string: moved into the only run when no code is found.
fn split_owned(text: String, src: Option<usize>, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    let runs = split_at(&text, src, syntaxes, ids, true);
    if runs.is_empty() && !text.is_empty() {
        // Exactly one slot (a first push would take four).
        return vec![Run::Text { text, src }];
    }
    runs
}

/// Splits a message into text and placeholder codes: printf (`%s`, `%1$d`, `%.2f`, `%S`, `%%`,
/// `%(name)s`) when `syntaxes.printf`, and brace (`{name}`, `{0}`, `{}`, `{:>10}`, `{0,number}`,
/// `{name!r}`, `{value:>10}`; `{{` and `}}` are literal braces) when `syntaxes.brace`.
/// The codes are those [`super::placeholders::split`] gives, found by a byte scanner: it is
/// several times faster on catalogs, and a placeholder inside HTML in the message
/// (`<a href="%(url)s">`) is still a code.
#[cfg(test)]
fn split(text: &str, src: Option<usize>, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    split_at(text, src, syntaxes, ids, false)
}

/// [`split`]; with `leave_whole`, a text with no code gives no run (the caller moves it in).
fn split_at(
    text: &str,
    src: Option<usize>,
    syntaxes: Syntaxes,
    ids: &mut Ids,
    leave_whole: bool,
) -> Vec<Run> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while let Some(p) = bytes.get(i..).and_then(|rest| {
        rest.iter()
            .position(|&b| b == b'%' || b == b'{' || b == b'}')
    }) {
        let start = i + p;
        let found = match bytes.get(start) {
            Some(b'%') if syntaxes.printf => printf_len(bytes, start).map(|len| (len, "printf")),
            Some(b'{') if syntaxes.brace && bytes.get(start + 1) == Some(&b'{') => {
                i = start + 2;
                continue;
            }
            Some(b'{') if syntaxes.brace => brace_len(bytes, start).map(|len| (len, "placeholder")),
            _ => None,
        };
        let Some((len, class)) = found else {
            i = start + 1;
            continue;
        };
        let end = start + len;
        if start > at {
            runs.push(Run::Text {
                text: text.get(at..start).unwrap_or_default().to_owned(),
                src: src.map(|s| s + at),
            });
        }
        let data = text.get(start..end).unwrap_or_default();
        let mut code = crate::model::Code::new(
            ids.next(),
            crate::model::CodeKind::Standalone,
            class,
            data,
            false,
        );
        code.src = src.map(|s| s + start);
        runs.push(Run::Code(Box::new(code)));
        at = end;
        i = end;
        if ids.full() {
            // The block is refused when it ends ([`super::MAX_CODES`]).
            break;
        }
    }
    if leave_whole && at == 0 {
        return runs;
    }
    if at < text.len() {
        runs.push(Run::Text {
            text: text.get(at..).unwrap_or_default().to_owned(),
            src: src.map(|s| s + at),
        });
    }
    runs
}

/// The length of the printf directive at `start` (a `%`), if one is there.
fn printf_len(bytes: &[u8], start: usize) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let digits = |mut i: usize| {
        while at(i).is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = start + 1;
    if at(i) == b'%' {
        return Some(2);
    }
    if at(i) == b'(' {
        // Python: %(name)s with flags, width and precision.
        let name = i + 1;
        if !(at(name).is_ascii_alphabetic() || at(name) == b'_') {
            return None;
        }
        i = name;
        while at(i).is_ascii_alphanumeric() || matches!(at(i), b'_' | b'.') {
            i += 1;
        }
        if at(i) != b')' {
            return None;
        }
        i += 1;
        while matches!(at(i), b'-' | b'+' | b'0' | b'#') {
            i += 1;
        }
        i = digits(i);
        if at(i) == b'.' && at(i + 1).is_ascii_digit() {
            i = digits(i + 1);
        }
        return b"diouxXeEfFgGcrsa"
            .contains(&at(i))
            .then_some(i + 1 - start);
    }
    // C: %[n$][flags][width][.precision][length]conversion
    let n = digits(i);
    if n > i && at(n) == b'$' {
        i = n + 1;
    }
    while matches!(at(i), b'-' | b'+' | b'0' | b'#' | b'\'') {
        i += 1;
    }
    if at(i) == b'*' {
        i += 1;
    } else {
        i = digits(i);
    }
    if at(i) == b'.' {
        if at(i + 1) == b'*' {
            i += 2;
        } else if at(i + 1).is_ascii_digit() {
            i = digits(i + 1);
        }
    }
    for length in [&b"hh"[..], b"ll", b"h", b"l", b"L", b"z", b"j", b"t", b"q"] {
        if bytes.get(i..i + length.len()) == Some(length) {
            i += length.len();
            break;
        }
    }
    b"diouxXeEfFgGaAcspn@S"
        .contains(&at(i))
        .then_some(i + 1 - start)
}

/// The length of the brace placeholder at `start` (a `{`), if one is there.
fn brace_len(bytes: &[u8], start: usize) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut i = start + 1;
    // `{}`, `{!r}`, `{:>10}`: Python's auto-numbered field, which has no name.
    if !matches!(at(i), b'}' | b'!' | b':') {
        while matches!(at(i), b' ' | b'\t') {
            i += 1;
        }
        if !(at(i).is_ascii_alphanumeric() || at(i) == b'_') {
            return None;
        }
        while at(i).is_ascii_alphanumeric() || matches!(at(i), b'_' | b'.' | b'-' | b'[' | b']') {
            i += 1;
        }
        while matches!(at(i), b' ' | b'\t') {
            i += 1;
        }
    }
    if at(i) == b'!' && matches!(at(i + 1), b'r' | b's' | b'a') {
        i += 2;
    }
    if matches!(at(i), b',' | b':') {
        while !matches!(at(i), b'{' | b'}' | 0) {
            i += 1;
        }
    }
    (at(i) == b'}').then_some(i + 1 - start)
}

/// Appends `s` as a key part: PO escapes, and `|` as `\|`.
fn push_key_part(s: &str, out: &mut String) {
    // Every character that takes an escape is ASCII: copy the runs between them whole.
    let mut chunk = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if b < 0x20 || matches!(b, b'|' | b'"' | b'\\' | 0x7f) {
            out.push_str(s.get(chunk..i).unwrap_or_default());
            if b == b'|' {
                out.push_str("\\|");
            } else {
                push_escaped(char::from(b), out);
            }
            chunk = i + 1;
        }
    }
    out.push_str(s.get(chunk..).unwrap_or_default());
}

/// The document of `text`, its holes in `skeleton` (whose text is `text`, or is given it
/// after).
/// Reads `text` into `skeleton` (whose text is `text`, or is given it after), or hands each
/// block to `each` ([`Format::read_each`]).
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let header = header(text)?;
    let lang = header
        .language
        .as_deref()
        .map_or_else(|| "target".to_owned(), language_tag);
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = KeyDeduper::default();
    let mut key = String::new();
    parse(text, &mut |mut entry| {
        let entry = &mut entry;
        // Blocks and holes grow with the file read so far, not by doubling.
        out.make_room(2 + entry.strs.len(), entry.end(), text.len());
        let translated = entry.strs.iter().any(|s| !s.text.is_empty());
        let Some(id) = entry.id.as_mut() else {
            return Ok(Flow::Go);
        };
        if entry.ctx.is_none() && id.text.is_empty() {
            // The header.
            return Ok(Flow::Go);
        }
        let index = out.index();
        key.clear();
        if let Some(ctx) = &entry.ctx {
            push_key_part(&ctx.text, &mut key);
            key.push('|');
        }
        push_key_part(&id.text, &mut key);
        let syntaxes = syntaxes(&entry.comments);

        // Source: the msgid, or a switch of msgid and msgid_plural.
        let source = match &mut entry.plural {
            None => {
                let runs = runs_of(id, syntaxes, &mut Ids::default());
                out.skeleton.push(id.span.clone(), index, None, None, &runs);
                runs
            }
            Some(plural) => {
                let one = runs_of(id, syntaxes, &mut Ids::default());
                let other = runs_of(plural, syntaxes, &mut Ids::default());
                out.skeleton
                    .push(id.span.clone(), index, None, Some("n:one"), &one);
                out.skeleton
                    .push(plural.span.clone(), index, None, Some("n:other"), &other);
                vec![switch(vec![
                    Branch::new("one", one),
                    Branch::new("other", other),
                ])]
            }
        };

        // Target: the msgstr, or a switch of msgstr[0..N].
        let target = if entry.plural.is_none() {
            let mut runs = Vec::new();
            if let Some(s) = entry.strs.first_mut() {
                runs = runs_of(s, syntaxes, &mut Ids::default());
                out.skeleton
                    .push(s.span.clone(), index, Some(&lang), None, &runs);
            }
            runs
        } else {
            let names = header
                .language
                .as_deref()
                .and_then(|l| plural_categories(l, entry.strs.len()))
                .or_else(|| plural_categories("", entry.strs.len()));
            let mut branches = Vec::with_capacity(entry.strs.len());
            for (i, s) in entry.strs.iter_mut().enumerate() {
                let case = names
                    .and_then(|n| n.get(i))
                    .map_or_else(|| format!("form{i}"), |c| (*c).to_owned());
                let runs = runs_of(s, syntaxes, &mut Ids::default());
                let path = format!("n:{case}");
                out.skeleton
                    .push(s.span.clone(), index, Some(&lang), Some(&path), &runs);
                branches.push(Branch::new(case, runs));
            }
            vec![switch(branches)]
        };
        let state = if entry.comments.has_flag("fuzzy") {
            Some("fuzzy".to_owned())
        } else if translated {
            Some("translated".to_owned())
        } else {
            None
        };

        let mut block = Block::new(keys.key(&key), Role::Key, source);
        block.targets.insert(
            lang.clone(),
            Edition {
                runs: target,
                state: state.map(String::into_boxed_str),
            },
        );
        for lines in [&entry.comments.translator, &entry.comments.extracted] {
            if lines.is_empty() {
                continue;
            }
            let note = lines.join("\n");
            let note = note.trim_end();
            if !note.is_empty() {
                block.notes.push(note.to_owned());
            }
        }
        block.span = entry.start..entry.end();
        out.push(text, block);
        Ok(Flow::Go)
    })?;
    Ok(out)
}

fn switch(branches: Vec<Branch>) -> Run {
    Run::Switch(Box::new(Switch {
        id: "1".into(),
        kind: SwitchKind::Plural,
        pivot: "n".into(),
        branches,
        head: String::new(),
        tail: String::new(),
        src: None,
    }))
}

// ---------------------------------------------------------------------------------------
// Writing

/// Appends `c` as a PO string writes it.
fn push_escaped(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{b}' => out.push_str("\\v"),
        '\u{c}' => out.push_str("\\f"),
        c if u32::from(c) < 0x20 || c == '\u{7f}' => {
            let v = u32::from(c);
            out.push('\\');
            for shift in [6, 3, 0] {
                out.push(char::from(b'0' + ((v >> shift) & 7) as u8));
            }
        }
        c => out.push(c),
    }
}

/// Display columns of a character as msgcat counts them: two for East Asian wide ones,
/// none for combining marks.
fn columns(c: char) -> usize {
    let v = u32::from(c);
    let wide = matches!(v,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x20000..=0x3FFFD);
    let mark = matches!(v,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06DC
        | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8
        | 0x06EA..=0x06ED
        | 0x200B..=0x200F
        | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F);
    if wide {
        2
    } else if mark {
        0
    } else {
        1
    }
}

/// The `"…"` segments of a hole as written: (content start, content end) of each.
fn segments(held: &str) -> Vec<Range<usize>> {
    let bytes = held.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'"') {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while let Some(&b) = bytes.get(j) {
            match b {
                b'\\' => j += 2,
                b'"' => break,
                _ => j += 1,
            }
        }
        out.push(start..j.min(bytes.len()));
        i = j + 1;
    }
    out
}

/// Whether the file shows msgcat's wrapping: a string broken at a space, or else no
/// one-line string that runs past the page width (msgcat's default is to wrap).
fn file_wraps(original: &str, holes: &[Hole]) -> bool {
    let mut too_long = false;
    for hole in holes {
        let Some(held) = original.get(hole.span.clone()) else {
            continue;
        };
        let segs = segments(held);
        if segs.len() >= 2 {
            let inner = &segs[..segs.len() - 1];
            if inner.iter().any(|seg| {
                let content = held.get(seg.clone()).unwrap_or_default();
                !content.is_empty() && !ends_with_newline_escape(content)
            }) {
                return true;
            }
        } else if !too_long {
            let line_start = original
                .get(..hole.span.start)
                .and_then(|b| b.rfind('\n'))
                .map_or(0, |p| p + 1);
            let line = original.get(line_start..hole.span.end).unwrap_or_default();
            too_long = line.chars().map(columns).sum::<usize>() > WIDTH;
        }
    }
    !too_long
}

/// Whether escaped `content` ends with a `\n` escape (not an escaped backslash and `n`).
fn ends_with_newline_escape(content: &str) -> bool {
    let Some(head) = content.strip_suffix('n') else {
        return false;
    };
    let slashes = head.bytes().rev().take_while(|&b| b == b'\\').count();
    slashes % 2 == 1
}

/// Renders `text` as the string of the hole at `span`, in the hole's style.
fn render(original: &str, span: Range<usize>, wraps: bool, text: &str) -> String {
    let held = original.get(span.clone()).unwrap_or_default();
    let segs = segments(held);
    // Continuation lines: the hole's own separator, else the file's line ending.
    let sep = match (segs.first(), segs.get(1)) {
        (Some(a), Some(b)) => held.get(a.end + 1..b.start - 1).unwrap_or("\n"),
        _ => {
            if original.contains("\r\n") {
                "\r\n"
            } else {
                "\n"
            }
        }
    };
    let sep = if sep.contains('\n') { sep } else { "\n" };
    let line_start = original
        .get(..span.start)
        .and_then(|b| b.rfind('\n'))
        .map_or(0, |p| p + 1);
    let prefix: usize = original
        .get(line_start..span.start)
        .unwrap_or_default()
        .chars()
        .map(columns)
        .sum();
    let lead_empty = segs.len() < 2 || segs.first().is_some_and(|s| s.is_empty());
    let multi = segs.len() >= 2;

    let width = wraps.then_some(WIDTH - 2);
    let lines = lines_of(text, width);
    let mut out = String::with_capacity(text.len() + 8);
    let one_line = match lines.as_slice() {
        [] => true,
        [only] => !wraps || prefix + 2 + only.chars().map(columns).sum::<usize>() <= WIDTH,
        _ => !wraps && !multi,
    };
    if one_line {
        out.push('"');
        for line in &lines {
            out.push_str(line);
        }
        out.push('"');
        return out;
    }
    let lead_empty = wraps || lead_empty;
    if lead_empty {
        out.push_str("\"\"");
    }
    for (i, line) in lines.iter().enumerate() {
        if i > 0 || lead_empty {
            out.push_str(sep);
        }
        out.push('"');
        out.push_str(line);
        out.push('"');
    }
    out
}

/// Whether a line may break between `c` and `next` (`prev` before them): after a space,
/// before or after an ideograph or kana (not before CJK punctuation), after a hyphen
/// between letters and after a slash before a letter, a subset of Unicode line breaking.
fn break_between(prev: char, c: char, next: char) -> bool {
    let cjk_punct =
        |c: char| matches!(u32::from(c), 0x3000..=0x303F | 0xFE30..=0xFE4F | 0xFF00..=0xFF65);
    let ideograph = |c: char| columns(c) == 2 && !cjk_punct(c);
    match c {
        ' ' => next != ' ',
        '-' => prev.is_alphanumeric() && next.is_alphabetic(),
        '/' => next.is_alphabetic(),
        _ => ideograph(next) || (ideograph(c) && next.is_ascii_alphanumeric()),
    }
}

/// Splits escaped `text` into lines: after each `\n` that more text follows, and at spaces
/// so no line's content passes `width` columns (a word longer than that stays whole).
fn lines_of(text: &str, width: Option<usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut cols = 0;
    // Byte offset in `line` after its last space, and the columns up to there.
    let mut space: Option<(usize, usize)> = None;
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let before = line.len();
        push_escaped(c, &mut line);
        cols += if before + c.len_utf8() == line.len() {
            columns(c)
        } else {
            line.len() - before
        };
        if let Some(width) = width
            && cols > width
            && let Some((at, upto)) = space
        {
            let rest = line.split_off(at);
            lines.push(std::mem::replace(&mut line, rest));
            cols -= upto;
            space = None;
        }
        if let Some(&next) = chars.peek()
            && break_between(prev, c, next)
        {
            space = Some((line.len(), cols));
        }
        prev = c;
        if c == '\n' && chars.peek().is_some() {
            lines.push(std::mem::take(&mut line));
            cols = 0;
            space = None;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Po, "po") > 0);
    }
}

#[cfg(test)]
mod tests;
