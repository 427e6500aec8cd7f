//! The Fluent scanner: entries' pieces (identifiers, blank lines, comments) and patterns
//! (text, placeables, select expressions) read into runs with their byte ranges.
use std::ops::Range;

use crate::formats::inline::placeholders::Ids;
use crate::formats::{MAX_CODES, ReadError};
use crate::model::{Branch, Code, CodeKind, PLURAL_CATEGORIES, Run, Switch, SwitchKind};

/// How deep placeables and select expressions may nest inside each other.
pub(super) const MAX_NESTING: usize = 32;

/// The characters a string literal placeable holding only them stands for as text: what
/// cannot be written as text where it stands (`{"{"}`, `{"["}` at a line start, `{"  "}`
/// at a pattern's start or end), so the writer writes them so and a read gives text back.
pub(super) const SYNTAX_CHARS: &[char] = &['{', '}', '[', '*', '.', ' ', '\n', '\r'];

/// Why an entry could not be read: junk (Fluent recovers: the entry stays in the skeleton
/// and the read goes on), or a limit that refuses the file.
#[derive(Debug)]
pub(super) enum Fail {
    Junk,
    Refuse(ReadError),
}

pub(super) type Res<T> = Result<T, Fail>;

/// A pattern read: the byte range of its content (leading blanks and trailing white space
/// left out) and its runs.
#[derive(Debug)]
pub(super) struct Pattern {
    pub span: Range<usize>,
    pub runs: Vec<Run>,
}

/// One piece of a pattern before the common indent is known.
enum Piece {
    Text(Range<usize>),
    /// A line break (and the blank lines after it) before a continuation line starting at
    /// `line` whose first `indent` bytes are spaces.
    Break {
        newlines: usize,
        line: usize,
        indent: usize,
    },
    /// A placeable and its byte range.
    Run(Run, Range<usize>),
}

/// A scanner over the text.
pub(super) struct Scan<'t> {
    pub text: &'t str,
    pub at: usize,
    /// Placeables open around the one being read.
    depth: usize,
    /// Codes, switches and branches made for the block being read.
    made: usize,
    /// Where the block being read starts (for a refusal).
    entry: usize,
}

impl<'t> Scan<'t> {
    pub fn new(text: &'t str, at: usize) -> Self {
        Scan {
            text,
            at,
            depth: 0,
            made: 0,
            entry: at,
        }
    }

    /// Starts reading the entry at the scanner: no placeable open (a junk entry may have
    /// left some).
    pub fn begin(&mut self) {
        self.depth = 0;
    }

    /// Starts reading the block at `at`: no code made yet.
    pub fn block(&mut self, at: usize) {
        self.entry = at;
        self.made = 0;
    }

    fn bytes(&self) -> &'t [u8] {
        self.text.as_bytes()
    }

    pub fn byte(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    /// The length of the line end at `at` (`\n` or `\r\n`), 0 when there is none.
    pub fn eol_at(&self, at: usize) -> usize {
        match self.bytes().get(at..at + 2) {
            Some([b'\r', b'\n']) => 2,
            _ if self.bytes().get(at) == Some(&b'\n') => 1,
            _ => 0,
        }
    }

    /// Skips spaces; returns how many.
    pub fn blank_inline(&mut self) -> usize {
        let start = self.at;
        while self.byte() == Some(b' ') {
            self.at += 1;
        }
        self.at - start
    }

    /// Skips spaces and line ends.
    pub fn blank(&mut self) {
        loop {
            self.blank_inline();
            match self.eol_at(self.at) {
                0 => return,
                n => self.at += n,
            }
        }
    }

    /// Skips whole blank lines (spaces then a line end) from a line start; returns how many.
    pub fn blank_lines(&mut self) -> usize {
        let mut count = 0;
        loop {
            let start = self.at;
            self.blank_inline();
            match self.eol_at(self.at) {
                0 => {
                    self.at = start;
                    return count;
                }
                n => {
                    self.at += n;
                    count += 1;
                }
            }
        }
    }

    /// Moves past the line end at `at`, if any.
    pub fn eol(&mut self) {
        self.at += self.eol_at(self.at);
    }

    /// An identifier: `[a-zA-Z][a-zA-Z0-9_-]*`.
    pub fn identifier(&mut self) -> Res<Range<usize>> {
        let start = self.at;
        if !self.byte().is_some_and(|b| b.is_ascii_alphabetic()) {
            return Err(Fail::Junk);
        }
        while self
            .byte()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            self.at += 1;
        }
        Ok(start..self.at)
    }

    fn expect(&mut self, byte: u8) -> Res<()> {
        if self.byte() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(Fail::Junk)
        }
    }

    fn count(&mut self) -> Res<()> {
        self.made += 1;
        if self.made > MAX_CODES {
            return Err(Fail::Refuse(ReadError::too_dense(self.text, self.entry)));
        }
        Ok(())
    }

    /// After a line end at `at`: the blank lines skipped, and the continuation line that
    /// follows (its start and indent) when the pattern goes on there.
    fn continuation(&self, at: usize) -> Option<(usize, usize, usize)> {
        let bytes = self.bytes();
        let mut p = at;
        let mut newlines = 0;
        loop {
            let n = self.eol_at(p);
            if n == 0 {
                break;
            }
            p += n;
            newlines += 1;
            let mut q = p;
            while bytes.get(q) == Some(&b' ') {
                q += 1;
            }
            if self.eol_at(q) > 0 {
                p = q;
                continue;
            }
            let indent = q - p;
            let go_on = match bytes.get(q) {
                Some(b'{') => true,
                Some(b'[' | b'*' | b'.' | b'}') | None => false,
                Some(_) => indent > 0,
            };
            return go_on.then_some((newlines, p, indent));
        }
        None
    }

    /// A pattern after `=` or a variant key: inline on this line, or a block starting on a
    /// later one; `None` when there is none (the scanner then stays where it was).
    pub fn pattern(&mut self) -> Res<Option<Pattern>> {
        let save = self.at;
        self.blank_inline();
        let mut pieces = Vec::new();
        let mut common = usize::MAX;
        let mut ids = Ids::default();
        if self.byte().is_none() || self.eol_at(self.at) > 0 {
            let Some((_, line, indent)) = self.continuation(self.at) else {
                self.at = save;
                return Ok(None);
            };
            pieces.push(Piece::Break {
                newlines: 0,
                line,
                indent,
            });
            common = indent;
            self.at = line + indent;
        }
        while let Some(byte) = self.byte() {
            match byte {
                b'{' => {
                    let at = self.at;
                    let run = self.placeable(&mut ids)?;
                    pieces.push(Piece::Run(run, at..self.at));
                }
                b'}' => return Err(Fail::Junk),
                _ if self.eol_at(self.at) > 0 => {
                    let Some((newlines, line, indent)) = self.continuation(self.at) else {
                        break;
                    };
                    pieces.push(Piece::Break {
                        newlines,
                        line,
                        indent,
                    });
                    common = common.min(indent);
                    self.at = line + indent;
                }
                _ => {
                    let rest = &self.bytes()[self.at..];
                    let stop = memchr::memchr3(b'\n', b'{', b'}', rest).map_or(rest.len(), |i| i);
                    let mut end = self.at + stop;
                    if rest.get(stop) == Some(&b'\n') && end > self.at && rest[stop - 1] == b'\r' {
                        end -= 1;
                    }
                    if end == self.at {
                        // A lone `\r` before `\n` is a line end, read above.
                        end += 1;
                    }
                    pieces.push(Piece::Text(self.at..end));
                    self.at = end;
                }
            }
        }
        Ok(Some(self.dedent(pieces, common)))
    }

    /// Runs of a pattern's pieces: the common indent stripped, line breaks as `\n`,
    /// trailing white space dropped (a string literal's kept).
    fn dedent(&self, mut pieces: Vec<Piece>, common: usize) -> Pattern {
        let start = match pieces.first() {
            Some(Piece::Break { line, .. }) => line + common,
            Some(Piece::Text(r) | Piece::Run(_, r)) => r.start,
            None => self.at,
        };
        let mut end = start;
        while let Some(piece) = pieces.last_mut() {
            match piece {
                Piece::Text(r) => {
                    let kept = self.text[r.clone()]
                        .trim_end_matches([' ', '\n', '\r'])
                        .len();
                    if kept > 0 {
                        r.end = r.start + kept;
                        end = r.end;
                        break;
                    }
                }
                Piece::Run(_, r) => {
                    end = r.end;
                    break;
                }
                Piece::Break { .. } => {}
            }
            pieces.pop();
        }
        let mut runs = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match piece {
                Piece::Text(r) => runs.push(Run::text_at(&self.text[r.clone()], r.start)),
                Piece::Break {
                    newlines,
                    line,
                    indent,
                } => {
                    if newlines > 0 {
                        runs.push(Run::text("\n".repeat(newlines)));
                    }
                    if indent > common {
                        let spaces = line + common..line + indent;
                        runs.push(Run::text_at(&self.text[spaces.clone()], spaces.start));
                    }
                }
                Piece::Run(run, _) => runs.push(run),
            }
        }
        Pattern {
            span: start..end.max(start),
            runs,
        }
    }

    /// A placeable at `{`: a code (its bytes as written), a switch (a select expression),
    /// or text (a string literal of syntax characters).
    fn placeable(&mut self, ids: &mut Ids) -> Res<Run> {
        let open = self.at;
        self.at += 1;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Fail::Refuse(ReadError::too_deep(
                self.text,
                open,
                "placeables and select expressions",
                MAX_NESTING,
            )));
        }
        self.blank();
        let (selector, literal) = self.inline_expression()?;
        self.blank();
        let run = if self.bytes().get(self.at..self.at + 2) == Some(b"->") {
            self.at += 2;
            Run::from(self.select(open, selector, ids)?)
        } else {
            self.expect(b'}')?;
            match literal {
                Some(value) if value.chars().all(|c| SYNTAX_CHARS.contains(&c)) => Run::text(value),
                _ => {
                    self.count()?;
                    let data = &self.text[open..self.at];
                    Run::from(
                        Code::new(ids.next(), CodeKind::Standalone, "placeholder", data, false)
                            .at(open),
                    )
                }
            }
        };
        self.depth -= 1;
        Ok(run)
    }

    /// An inline expression: its range, and its value when it is a string literal.
    fn inline_expression(&mut self) -> Res<(Range<usize>, Option<String>)> {
        let start = self.at;
        let bytes = self.bytes();
        match self.byte() {
            Some(b'"') => return self.string_literal().map(|s| (start..self.at, Some(s))),
            Some(b'0'..=b'9') => self.number()?,
            Some(b'-') if bytes.get(self.at + 1).is_some_and(u8::is_ascii_digit) => {
                self.number()?;
            }
            Some(b'-') => {
                self.at += 1;
                self.identifier()?;
                self.attribute_accessor()?;
                self.call_arguments()?;
            }
            Some(b'$') => {
                self.at += 1;
                self.identifier()?;
            }
            Some(b'{') => {
                self.placeable(&mut Ids::default())?;
            }
            Some(b) if b.is_ascii_alphabetic() => {
                self.identifier()?;
                if !self.call_arguments()? {
                    self.attribute_accessor()?;
                }
            }
            _ => return Err(Fail::Junk),
        }
        Ok((start..self.at, None))
    }

    fn attribute_accessor(&mut self) -> Res<()> {
        if self.byte() == Some(b'.') {
            self.at += 1;
            self.identifier()?;
        }
        Ok(())
    }

    fn number(&mut self) -> Res<()> {
        if self.byte() == Some(b'-') {
            self.at += 1;
        }
        let digits = |s: &mut Self| {
            let start = s.at;
            while s.byte().is_some_and(|b| b.is_ascii_digit()) {
                s.at += 1;
            }
            s.at > start
        };
        if !digits(self) {
            return Err(Fail::Junk);
        }
        if self.byte() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(Fail::Junk);
            }
        }
        Ok(())
    }

    /// A string literal at `"`, its escapes (`\\`, `\"`, `\uXXXX`, `\UXXXXXX`) undone.
    fn string_literal(&mut self) -> Res<String> {
        self.at += 1;
        let mut value = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(i) = rest.find(['"', '\\', '\n']) else {
                return Err(Fail::Junk);
            };
            value.push_str(&rest[..i]);
            self.at += i;
            match self.bytes()[self.at] {
                b'"' => {
                    self.at += 1;
                    return Ok(value);
                }
                b'\\' => {
                    let len = match self.bytes().get(self.at + 1) {
                        Some(b'\\' | b'"') => {
                            value.push(char::from(self.bytes()[self.at + 1]));
                            self.at += 2;
                            continue;
                        }
                        Some(b'u') => 4,
                        Some(b'U') => 6,
                        _ => return Err(Fail::Junk),
                    };
                    let hex = self.text.get(self.at + 2..self.at + 2 + len);
                    let c = hex
                        .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
                        .ok_or(Fail::Junk)?;
                    value.push(c);
                    self.at += 2 + len;
                }
                _ => return Err(Fail::Junk),
            }
        }
    }

    /// `( arguments )` after a callee (blanks allowed before it): whether there were any.
    fn call_arguments(&mut self) -> Res<bool> {
        let save = self.at;
        self.blank();
        if self.byte() != Some(b'(') {
            self.at = save;
            return Ok(false);
        }
        self.at += 1;
        loop {
            self.blank();
            if self.byte() == Some(b')') {
                self.at += 1;
                return Ok(true);
            }
            let named = self.at;
            if self.byte().is_some_and(|b| b.is_ascii_alphabetic()) {
                self.identifier()?;
                self.blank();
                if self.byte() == Some(b':') {
                    self.at += 1;
                    self.blank();
                } else {
                    self.at = named;
                }
            }
            self.inline_expression()?;
            self.blank();
            match self.byte() {
                Some(b',') => self.at += 1,
                Some(b')') => {}
                _ => return Err(Fail::Junk),
            }
        }
    }

    /// A select expression after its `->`: a switch whose head runs from the placeable's `{`
    /// through `->`, each variant's `open` from the end of the one before through its key
    /// and the blanks after it, and whose tail is what follows the last variant through `}`.
    fn select(&mut self, open: usize, selector: Range<usize>, ids: &mut Ids) -> Res<Switch> {
        let head_end = self.at;
        self.count()?;
        let id = ids.next();
        self.blank_inline();
        if self.eol_at(self.at) == 0 {
            return Err(Fail::Junk);
        }
        let mut prev = head_end;
        let mut branches: Vec<Branch> = Vec::new();
        let mut keys: Vec<(&str, bool)> = Vec::new();
        let mut defaults = 0;
        loop {
            self.blank();
            let variant = self.at;
            match self.byte() {
                Some(b'}') => break,
                Some(b'*') => {
                    defaults += 1;
                    self.at += 1;
                }
                Some(b'[') => {}
                _ => return Err(Fail::Junk),
            }
            if !self.text[prev..variant].contains('\n') {
                return Err(Fail::Junk);
            }
            self.expect(b'[')?;
            self.blank();
            let key_at = self.at;
            let number = matches!(self.byte(), Some(b'0'..=b'9' | b'-'));
            if number {
                self.number()?;
            } else {
                self.identifier()?;
            }
            let key = &self.text[key_at..self.at];
            self.blank();
            self.expect(b']')?;
            self.count()?;
            let pattern = self.pattern()?.ok_or(Fail::Junk)?;
            let mut branch = Branch::new(key, pattern.runs);
            branch.open = self.text[prev..pattern.span.start].to_owned();
            prev = pattern.span.end;
            keys.push((key, number));
            branches.push(branch);
        }
        if defaults != 1 {
            return Err(Fail::Junk);
        }
        self.at += 1;
        let plural = keys
            .iter()
            .all(|(k, number)| *number || PLURAL_CATEGORIES.contains(k));
        let source = &self.text[selector];
        let kind = if source.contains("\"ordinal\"") {
            SwitchKind::Ordinal
        } else if plural {
            SwitchKind::Plural
        } else {
            SwitchKind::Select
        };
        if kind != SwitchKind::Select {
            for (branch, (_, number)) in branches.iter_mut().zip(&keys) {
                if *number {
                    branch.case = format!("={}", branch.case);
                }
            }
        }
        Ok(Switch {
            id,
            kind,
            pivot: pivot(source),
            branches,
            head: self.text[open..head_end].to_owned(),
            tail: self.text[prev..self.at].to_owned(),
            src: Some(open),
            forms: None,
        })
    }
}

/// The variable a selector reads: its first `$name`, else its callee or reference.
fn pivot(selector: &str) -> String {
    let name = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect()
    };
    match selector.find('$') {
        Some(i) => name(&selector[i + 1..]),
        None => name(selector.trim_start_matches('-')),
    }
}
