//! The PO syntax: messages with their comments, keywords and `"…"` strings, read in order
//! and handed over one at a time.

use std::ops::Range;

use crate::formats::ReadError;

/// One keyword's string: every `"…"` segment, decoded and concatenated.
#[derive(Debug, Clone)]
pub(super) struct Str {
    /// From the first segment's opening quote to the last one's closing quote.
    pub(super) span: Range<usize>,
    pub(super) text: String,
    /// File offset of `text` when it is a verbatim slice (one segment, no escape).
    pub(super) verbatim: Option<usize>,
}

/// The comments before a message, by kind.
#[derive(Debug, Default)]
pub(super) struct Comments<'a> {
    /// `# ` lines, without the `#` and the spaces after it.
    pub(super) translator: Vec<&'a str>,
    /// `#.` lines, without the `#.` and one space.
    pub(super) extracted: Vec<&'a str>,
    /// The words of `#,` lines.
    pub(super) flags: Vec<&'a str>,
    /// From the first `#,` line to the end of the last one, its line ending included: where
    /// the writer changes the `fuzzy` flag.
    pub(super) flag_lines: Option<Range<usize>>,
    /// Where the first `#|` line (the previous message) starts: a new `#,` line goes before it.
    pub(super) previous: Option<usize>,
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

    pub(super) fn has_flag(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }
}

#[derive(Debug)]
pub(super) struct Entry<'a> {
    /// Where the message's comments (or its first keyword) start.
    pub(super) start: usize,
    /// Where its first keyword (`msgctxt` or `msgid`) starts.
    pub(super) keyword: usize,
    pub(super) comments: Comments<'a>,
    pub(super) ctx: Option<Str>,
    pub(super) id: Option<Str>,
    pub(super) plural: Option<Str>,
    /// `msgstr`, or `msgstr[0]`, `msgstr[1]`… in order.
    pub(super) strs: Vec<Str>,
}

impl Entry<'_> {
    pub(super) fn is_header(&self) -> bool {
        self.ctx.is_none() && self.id.as_ref().is_some_and(|id| id.text.is_empty())
    }

    pub(super) fn end(&self) -> usize {
        self.strs.last().map_or(self.start, |s| s.span.end)
    }

    /// Where the message's `fuzzy` flag is written: its `#,` lines, else the empty span
    /// where a `#,` line would go (before the `#|` lines, else before the first keyword).
    pub(super) fn flags_span(&self) -> Range<usize> {
        self.comments.flag_lines.clone().unwrap_or_else(|| {
            let at = self.comments.previous.unwrap_or(self.keyword);
            at..at
        })
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

    /// The `[n]` after a keyword (`msgstr[1]`), if there is one.
    fn index(&mut self) -> Result<Option<usize>, ReadError> {
        if self.bytes.get(self.at) != Some(&b'[') {
            return Ok(None);
        }
        let digits = self.at + 1;
        let mut i = digits;
        while self.bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == digits || self.bytes.get(i) != Some(&b']') || i - digits > 3 {
            return Err(self.error(self.at, "expected an index and `]` after `[`"));
        }
        let n: usize = self.text.get(digits..i).unwrap_or("0").parse().unwrap_or(0);
        self.at = i + 1;
        Ok(Some(n))
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
            // Straight to the next quote, backslash or line end (memchr, not a byte loop).
            i = self
                .bytes
                .get(i..)
                .and_then(|rest| memchr::memchr3(b'"', b'\\', b'\n', rest))
                .map_or(self.bytes.len(), |p| i + p);
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
                // A `\r\n` ends the line at its `\n`, found above.
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

/// Whether [`parse`] reads on after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Go,
    Stop,
}

/// Reads the file's messages in order, the header included, handing each to `sink` as it
/// ends (none is kept: a catalog is never held twice) until `sink` says [`Flow::Stop`].
pub(super) fn parse<'a>(
    text: &'a str,
    sink: &mut dyn FnMut(Entry<'a>) -> Result<Flow, ReadError>,
) -> Result<(), ReadError> {
    let mut messages = Messages {
        p: Parser {
            text,
            bytes: text.as_bytes(),
            at: if text.starts_with('\u{feff}') { 3 } else { 0 },
        },
        sink,
        comments: Comments::default(),
        comments_start: None,
        current: None,
    };
    loop {
        messages.p.skip_space();
        let at = messages.p.at;
        let Some(&b) = messages.p.bytes.get(at) else {
            break;
        };
        let flow = match b {
            b'#' => messages.comment(at)?,
            b'"' => {
                return Err(messages.p.error(
                    at,
                    "a string with no keyword before it: expected `msgid`, `msgstr` or `msgctxt`",
                ));
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => messages.keyword(at)?,
            _ => {
                return Err(messages.p.error(
                    at,
                    "expected a keyword (`msgid`, `msgstr`…), a quoted string or a `#` comment",
                ));
            }
        };
        if flow == Flow::Stop {
            return Ok(());
        }
    }
    let end = messages.p.at;
    messages.finish(end)?;
    Ok(())
}

/// The state of [`parse`]: the scanner, the message being read and the comments read
/// since the last one.
struct Messages<'a, 's> {
    p: Parser<'a>,
    sink: &'s mut dyn FnMut(Entry<'a>) -> Result<Flow, ReadError>,
    comments: Comments<'a>,
    comments_start: Option<usize>,
    current: Option<Entry<'a>>,
}

impl<'a> Messages<'a, '_> {
    /// Closes the open message; `at` is where the next token was found.
    fn finish(&mut self, at: usize) -> Result<Flow, ReadError> {
        if let Some(entry) = self.current.take() {
            if entry.id.is_none() {
                return Err(self.p.error(at, "expected `msgid` after `msgctxt`"));
            }
            if entry.strs.is_empty() {
                let want = if entry.plural.is_some() {
                    "msgstr[0]"
                } else {
                    "msgstr"
                };
                return Err(self.p.error(at, format!("expected `{want}` after `msgid`")));
            }
            return (self.sink)(entry);
        }
        Ok(Flow::Go)
    }

    /// Forgets the comments read so far: they belong to no message.
    fn drop_comments(&mut self) {
        self.comments = Comments::default();
        self.comments_start = None;
    }

    /// A new message starting at `at` (or at its comments) with the comments read so far.
    fn start(&mut self, at: usize, ctx: Option<Str>) -> Entry<'a> {
        Entry {
            start: self.comments_start.take().unwrap_or(at),
            keyword: at,
            comments: std::mem::take(&mut self.comments),
            ctx,
            id: None,
            plural: None,
            strs: Vec::new(),
        }
    }

    /// A `#` comment line at `at`: it ends the open message.
    fn comment(&mut self, at: usize) -> Result<Flow, ReadError> {
        if self.finish(at)? == Flow::Stop {
            return Ok(Flow::Stop);
        }
        let end = self.p.line_end(at);
        let line = self.p.text.get(at..end).unwrap_or_default();
        if line.starts_with("#~") {
            // Obsolete messages end a comment group; they stay in the skeleton.
            self.drop_comments();
        } else {
            self.comments_start.get_or_insert(at);
            self.comments.add(line);
            if line.starts_with("#,") {
                // The line ending too, so a line left with no flag goes whole.
                let after = match self.p.bytes.get(end) {
                    Some(b'\r') => end + 2,
                    Some(b'\n') => end + 1,
                    _ => end,
                };
                let after = after.min(self.p.bytes.len());
                let lines = self.comments.flag_lines.get_or_insert(at..after);
                lines.end = after;
            } else if line.starts_with("#|") {
                self.comments.previous.get_or_insert(at);
            }
        }
        self.p.at = end;
        Ok(Flow::Go)
    }

    /// The keyword at `at` (`msgid`, `msgstr[1]`…) and the strings after it.
    fn keyword(&mut self, at: usize) -> Result<Flow, ReadError> {
        let p = &mut self.p;
        while p
            .bytes
            .get(p.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            p.at += 1;
        }
        let word = p.text.get(at..p.at).unwrap_or_default();
        let index = p.index()?;
        match (word, index) {
            ("domain", None) => {
                if self.finish(at)? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
                self.drop_comments();
                self.p.at = self.p.line_end(self.p.at);
            }
            ("msgctxt", None) => {
                if self.finish(at)? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
                let ctx = self.p.strings(word)?;
                self.current = Some(self.start(at, Some(ctx)));
            }
            ("msgid", None) => return self.msgid(at),
            ("msgid_plural", None) => {
                self.check_plural(at)?;
                let plural = self.p.strings(word)?;
                if let Some(entry) = self.current.as_mut() {
                    entry.plural = Some(plural);
                }
            }
            ("msgstr", None) => {
                self.check_msgstr(at)?;
                let s = self.p.strings(word)?;
                self.push_str(s);
            }
            ("msgstr", Some(n)) => {
                self.check_msgstr_n(at, n)?;
                let s = self.p.strings("msgstr[]")?;
                self.push_str(s);
            }
            _ => {
                return Err(self.p.error(
                    at,
                    format!(
                        "unknown keyword `{word}`; expected `msgctxt`, `msgid`, `msgid_plural`, `msgstr` or a `#` comment"
                    ),
                ));
            }
        }
        Ok(Flow::Go)
    }

    /// A `msgid` at `at`: it starts a message unless it follows that message's `msgctxt`.
    fn msgid(&mut self, at: usize) -> Result<Flow, ReadError> {
        if self.current.as_ref().is_none_or(|e| e.id.is_some()) {
            if self.finish(at)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
            self.current = Some(self.start(at, None));
        }
        let id = self.p.strings("msgid")?;
        if let Some(entry) = self.current.as_mut() {
            entry.id = Some(id);
        }
        Ok(Flow::Go)
    }

    /// Refuses a `msgid_plural` at `at` that does not follow a `msgid` alone.
    fn check_plural(&self, at: usize) -> Result<(), ReadError> {
        match &self.current {
            Some(e) if e.id.is_some() && e.plural.is_none() && e.strs.is_empty() => Ok(()),
            Some(e) if e.plural.is_some() => {
                Err(self.p.error(at, "a second `msgid_plural` in one message"))
            }
            _ => Err(self.p.error(
                at,
                "`msgid_plural` must follow a `msgid` and come before `msgstr[0]`",
            )),
        }
    }

    /// Refuses a `msgstr` at `at` that does not follow a singular message's `msgid`.
    fn check_msgstr(&self, at: usize) -> Result<(), ReadError> {
        match &self.current {
            Some(e) if e.id.is_some() && e.plural.is_none() && e.strs.is_empty() => Ok(()),
            Some(e) if e.plural.is_some() => Err(self.p.error(
                at,
                "a plural message takes `msgstr[0]`, `msgstr[1]`…, not `msgstr`",
            )),
            Some(e) if e.id.is_some() => Err(self
                .p
                .error(at, "a second `msgstr` in one message; expected `msgid`")),
            _ => Err(self.p.error(at, "`msgstr` without `msgid` before it")),
        }
    }

    /// Refuses a `msgstr[n]` at `at` that is not the next form of a plural message.
    fn check_msgstr_n(&self, at: usize, n: usize) -> Result<(), ReadError> {
        match &self.current {
            Some(e) if e.plural.is_some() && e.strs.len() == n => Ok(()),
            Some(e) if e.plural.is_some() => Err(self.p.error(
                at,
                format!("expected `msgstr[{}]`, found `msgstr[{n}]`", e.strs.len()),
            )),
            Some(e) if e.id.is_some() => Err(self.p.error(
                at,
                format!("`msgstr[{n}]` without `msgid_plural`; expected `msgstr`"),
            )),
            _ => Err(self
                .p
                .error(at, format!("`msgstr[{n}]` without `msgid` before it"))),
        }
    }

    /// Adds a `msgstr` or `msgstr[n]` string to the open message.
    fn push_str(&mut self, s: Str) {
        if let Some(entry) = self.current.as_mut() {
            // One slot at a time: most messages have one `msgstr`.
            entry.strs.reserve_exact(1);
            entry.strs.push(s);
        }
    }
}
