//! ICU MessageFormat inside one string value: plurals, ordinals and selects become
//! [`Switch`] runs, arguments become codes, for every catalog format that stores ICU text.
//!
//! # Reading
//! [`runs`] reads a string's decoded text (after the container's own escapes are undone:
//! JSON `\n`, YAML quoting, properties `\uXXXX`). A string is read as ICU only when it holds
//! at least one complex argument (`{n, plural, …}`, `{n, selectordinal, …}`,
//! `{g, select, …}`) and the whole string parses; otherwise, and for any malformed ICU, it
//! falls back to [`placeholders::split`], never an error. In ICU mode:
//! - a complex argument is a [`Switch`] (kind `Plural`, `Ordinal` or `Select`, pivot = the
//!   argument name) taking the next id of the edition; each branch is its own id scope.
//!   The switch's `head` is `{n, plural,` (with `offset:N` when given), each branch's
//!   `open` is the whitespace, selector and `{` before its message (` one {`, ` =0 {`),
//!   its `close` is `}`, and the switch's `tail` is the whitespace and `}` after the last
//!   branch, so rendering the runs gives the identical string;
//! - branches nest to any depth up to 32 levels (deeper falls back to placeholders);
//! - `#` in a message whose nearest enclosing switch is a plural or selectordinal is a
//!   standalone code (class `placeholder`, data `#`); elsewhere it is text;
//! - simple arguments (`{name}`, `{n, number}`, `{d, date, short}`, `{n, number, ::currency/EUR}`)
//!   are standalone `placeholder` codes; the literal text between them also goes through
//!   [`placeholders::split`] with the caller's syntaxes, so `<b>…</b>`, `%s` and `&amp;`
//!   are codes too (a tag pair split by a complex argument reads as two standalone codes);
//! - apostrophe quoting (ICU's default `DOUBLE_OPTIONAL` mode) is undone: `''` reads as
//!   `'`; `'` followed by `{`, `}` (or `#` inside a plural) starts quoted literal text up to
//!   the next lone `'`; any other `'` is a literal apostrophe. Quoted and `''` pieces are
//!   text runs of their own with no source offset; every other text run and code keeps
//!   the offset of its verbatim slice (`src + position`). `'<` is not a quote (ICU4J, not
//!   formatjs).
//!
//! # Writing
//! [`render`] turns runs back into the string's decoded text. Runs with a switch are
//! written as ICU: codes and native switch parts as they were read, text re-quoted
//! minimally: the stretch from the first `{`, `}` (or `#` in a plural) through the last
//! is wrapped in `'…'` (apostrophes inside doubled), and a `'` outside it is doubled only
//! where a lone one would start quoting (before `'`, `{`, `}`, a plural's `#`, or right
//! after a closing quote). A switch built without native parts (an agent's new plural)
//! is written `{pivot, plural, one {…} other {…}}`. Runs without a switch are written as
//! they read: text as is, codes as their data.
//!
//! # Offsets through a container's escapes
//! A format whose strings have escapes reads the decoded text with `src = Some(0)` and
//! lists its verbatim [`Piece`]s; [`remap`] then turns decoded offsets into file offsets.
use super::placeholders::{self, Ids, Syntaxes};
use crate::model::{Branch, Code, CodeKind, Run, Switch, SwitchKind};

/// How deep switches may nest before the string is read as plain placeholders.
const MAX_DEPTH: usize = 32;

/// Reads `text` as ICU MessageFormat when it holds a complex argument, else (or when it is
/// malformed) splits it with [`placeholders::split`]. `src` is the offset of `text` in the
/// file (or in the decoded value) when it is a verbatim slice of it.
pub fn runs(text: &str, src: Option<usize>, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    match parse(text, src, syntaxes, ids) {
        Some(runs) => runs,
        None => placeholders::split(text, src, syntaxes, ids),
    }
}

/// Reads `text` as ICU MessageFormat: `None` when it has no complex argument or is not
/// valid ICU (then `ids` is left as it was).
pub fn parse(
    text: &str,
    src: Option<usize>,
    syntaxes: Syntaxes,
    ids: &mut Ids,
) -> Option<Vec<Run>> {
    if !looks_complex(text) {
        return None;
    }
    let mut parser = Parser {
        text,
        pos: 0,
        src,
        syntaxes,
        depth: 0,
        switches: 0,
        made: 0,
    };
    let mut trial = ids.clone();
    let Some(runs) = parser.message(&mut trial, false, false) else {
        if parser.made > crate::formats::MAX_CODES {
            // Too many to read: the edition is full, and its block is refused.
            ids.fill();
        }
        return None;
    };
    if parser.switches == 0 || parser.pos != text.len() {
        return None;
    }
    *ids = trial;
    Some(runs)
}

/// Whether runs hold a switch at their top level (and so are written as ICU).
pub fn has_switch(runs: &[Run]) -> bool {
    runs.iter().any(|r| matches!(r, Run::Switch(_)))
}

/// Writes runs back as the string's decoded text: ICU with minimal re-quoting when they
/// hold a switch, else text and code data as they are.
pub fn render(runs: &[Run], out: &mut String) {
    if has_switch(runs) {
        render_level(runs, false, None, out);
    } else {
        crate::formats::render_runs(runs, out, &mut |text, out| out.push_str(text));
    }
}

/// A verbatim piece of a decoded string: the `len` bytes at `dec` in the decoded text are
/// the file's bytes at `src` (no escape undone inside). Formats that decode escapes
/// (JSON, YAML, properties) list them to give [`remap`] the file offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub dec: usize,
    pub src: usize,
    pub len: usize,
}

/// Maps offsets of runs read from a decoded string (read with `src = Some(0)`) to file
/// offsets: text runs are cut at the escapes between `pieces` (the verbatim pieces keep
/// offsets, the decoded escapes get none); codes and switch heads keep theirs when their
/// bytes lie in one piece.
pub fn remap(runs: Vec<Run>, segs: &[Piece]) -> Vec<Run> {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        match run {
            Run::Text {
                text,
                src: Some(at),
            } => cut_text(&text, at, segs, &mut out),
            Run::Text { .. } => out.push(run),
            Run::Code(mut code) => {
                code.src = code.src.and_then(|at| map_range(at, code.data.len(), segs));
                out.push(Run::Code(code));
            }
            Run::Switch(mut switch) => {
                switch.src = switch
                    .src
                    .and_then(|at| map_range(at, switch.head.len(), segs));
                for branch in &mut switch.branches {
                    branch.runs = remap(std::mem::take(&mut branch.runs), segs);
                }
                out.push(Run::Switch(switch));
            }
        }
    }
    out
}

/// The file offset of decoded bytes `at..at + len` when they lie in one verbatim piece.
fn map_range(at: usize, len: usize, segs: &[Piece]) -> Option<usize> {
    let index = segs.partition_point(|s| s.dec + s.len <= at);
    let seg = segs.get(index)?;
    (seg.dec <= at && at + len <= seg.dec + seg.len).then(|| seg.src + (at - seg.dec))
}

/// Cuts a decoded text run (at decoded offset `at`) into verbatim pieces with offsets and
/// escaped pieces without.
fn cut_text(text: &str, at: usize, segs: &[Piece], out: &mut Vec<Run>) {
    let end = at + text.len();
    let piece = |from: usize, to: usize| text.get(from - at..to - at);
    let mut pieces: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut pos = at;
    let first = segs.partition_point(|s| s.dec + s.len <= at);
    for seg in segs.get(first..).unwrap_or_default() {
        if seg.dec >= end {
            break;
        }
        if seg.dec > pos {
            pieces.push((pos, seg.dec, None));
            pos = seg.dec;
        }
        let to = end.min(seg.dec + seg.len);
        pieces.push((pos, to, Some(seg.src + (pos - seg.dec))));
        pos = to;
    }
    if pos < end {
        pieces.push((pos, end, None));
    }
    if pieces
        .iter()
        .any(|&(from, to, _)| piece(from, to).is_none())
    {
        out.push(Run::text(text));
        return;
    }
    for (from, to, src) in pieces {
        let t = piece(from, to).unwrap_or_default();
        out.push(Run::Text {
            text: t.to_owned(),
            src,
        });
    }
}

/// A cheap test before parsing: a brace and a complex argument keyword.
fn looks_complex(text: &str) -> bool {
    text.contains('{') && (text.contains("plural") || text.contains("select"))
}

enum Arg {
    /// A simple argument the placeholder splitter recognises on its own.
    Simple {
        plain: bool,
    },
    Complex(Switch),
}

/// Verbatim text of one message level not yet turned into runs, with the simple
/// arguments inside it.
struct Chunk {
    start: usize,
    args: Vec<std::ops::Range<usize>>,
}

impl Chunk {
    fn reset(&mut self, start: usize) {
        self.start = start;
        self.args.clear();
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    src: Option<usize>,
    syntaxes: Syntaxes,
    depth: usize,
    switches: usize,
    /// Branches and the codes and switches in them so far, each once: past
    /// [`crate::formats::MAX_CODES`] the text is not read, [`Ids::fill`] marks its edition full, and
    /// the reader refuses the block.
    made: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    fn at(&self, offset: usize) -> Option<usize> {
        self.src.map(|s| s + offset)
    }

    fn slice(&self, range: std::ops::Range<usize>) -> &str {
        self.text.get(range).unwrap_or_default()
    }

    /// One message up to the end of the text (top level) or to the `}` closing its branch
    /// (left unconsumed).
    fn message(&mut self, ids: &mut Ids, plural: bool, in_branch: bool) -> Option<Vec<Run>> {
        let mut runs = Vec::new();
        let mut chunk = Chunk {
            start: self.pos,
            args: Vec::new(),
        };
        loop {
            let Some(byte) = self.peek() else {
                if in_branch {
                    return None;
                }
                break;
            };
            match byte {
                b'}' if in_branch => break,
                b'}' => return None,
                b'\'' => {
                    let next = self.peek_at(1);
                    if next == Some(b'\'') {
                        self.flush(&chunk, self.pos, &mut runs, ids);
                        runs.push(Run::text("'"));
                        self.pos += 2;
                        chunk.reset(self.pos);
                    } else if matches!(next, Some(b'{' | b'}')) || (plural && next == Some(b'#')) {
                        self.flush(&chunk, self.pos, &mut runs, ids);
                        let literal = self.quoted();
                        runs.push(Run::text(literal));
                        chunk.reset(self.pos);
                    } else {
                        self.pos += 1;
                    }
                }
                b'#' if plural => {
                    self.flush(&chunk, self.pos, &mut runs, ids);
                    let code =
                        Code::new(ids.next(), CodeKind::Standalone, "placeholder", "#", false);
                    runs.push(Run::Code(Box::new(Code {
                        src: self.at(self.pos),
                        ..code
                    })));
                    self.pos += 1;
                    chunk.reset(self.pos);
                }
                b'{' => {
                    let start = self.pos;
                    match self.argument()? {
                        Arg::Simple { plain: true } => chunk.args.push(start..self.pos),
                        Arg::Simple { plain: false } => {
                            self.flush(&chunk, start, &mut runs, ids);
                            runs.push(self.arg_code(start..self.pos, ids));
                            chunk.reset(self.pos);
                        }
                        Arg::Complex(mut switch) => {
                            self.flush(&chunk, start, &mut runs, ids);
                            switch.id = ids.next();
                            runs.push(Run::Switch(Box::new(switch)));
                            chunk.reset(self.pos);
                        }
                    }
                }
                _ => self.pos += 1,
            }
        }
        self.flush(&chunk, self.pos, &mut runs, ids);
        Some(runs)
    }

    /// Quoted literal text from the opening `'` (at `pos`) to the next lone `'`, or to the
    /// end of the text when it is never closed (as ICU reads it).
    fn quoted(&mut self) -> String {
        self.pos += 1;
        let mut literal = String::new();
        let mut from = self.pos;
        loop {
            match self.peek() {
                None => {
                    literal.push_str(self.slice(from..self.pos));
                    return literal;
                }
                Some(b'\'') => {
                    literal.push_str(self.slice(from..self.pos));
                    if self.peek_at(1) == Some(b'\'') {
                        literal.push('\'');
                        self.pos += 2;
                        from = self.pos;
                    } else {
                        self.pos += 1;
                        return literal;
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn arg_code(&self, range: std::ops::Range<usize>, ids: &mut Ids) -> Run {
        let code = Code::new(
            ids.next(),
            CodeKind::Standalone,
            "placeholder",
            self.slice(range.clone()),
            false,
        );
        Run::Code(Box::new(Code {
            src: self.at(range.start),
            ..code
        }))
    }

    /// Turns the verbatim chunk `chunk.start..end` into runs: through the placeholder
    /// splitter, which also finds the simple arguments; when its reading leaves a brace in
    /// a text run, the arguments are cut out first and only the text between is split.
    fn flush(&self, chunk: &Chunk, end: usize, runs: &mut Vec<Run>, ids: &mut Ids) {
        if chunk.start >= end {
            return;
        }
        let piece = self.slice(chunk.start..end);
        let mut trial = ids.clone();
        let split = placeholders::split(piece, self.at(chunk.start), self.syntaxes, &mut trial);
        let brace_in_text = split
            .iter()
            .any(|r| matches!(r, Run::Text { text, .. } if text.contains(['{', '}'])));
        if !brace_in_text {
            *ids = trial;
            runs.extend(split);
            return;
        }
        let mut at = chunk.start;
        for arg in &chunk.args {
            if arg.start > at {
                runs.extend(placeholders::split(
                    self.slice(at..arg.start),
                    self.at(at),
                    self.syntaxes,
                    ids,
                ));
            }
            runs.push(self.arg_code(arg.clone(), ids));
            at = arg.end;
        }
        if at < end {
            runs.extend(placeholders::split(
                self.slice(at..end),
                self.at(at),
                self.syntaxes,
                ids,
            ));
        }
    }

    /// An argument from its `{` through its closing `}`.
    fn argument(&mut self) -> Option<Arg> {
        let start = self.pos;
        self.pos += 1;
        self.skip_ws();
        let name = self.name()?;
        self.skip_ws();
        match self.peek()? {
            b'}' => {
                self.pos += 1;
                return Some(Arg::Simple {
                    plain: self.plain_arg(start),
                });
            }
            b',' => self.pos += 1,
            _ => return None,
        }
        self.skip_ws();
        let word_start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        let kind = match self.slice(word_start..self.pos) {
            "" => return None,
            "plural" => SwitchKind::Plural,
            "selectordinal" => SwitchKind::Ordinal,
            "select" => SwitchKind::Select,
            _ => {
                self.skip_ws();
                match self.peek()? {
                    b'}' => self.pos += 1,
                    b',' => {
                        self.pos += 1;
                        self.style()?;
                    }
                    _ => return None,
                }
                return Some(Arg::Simple {
                    plain: self.plain_arg(start),
                });
            }
        };
        self.skip_ws();
        if self.peek()? != b',' {
            return None;
        }
        self.pos += 1;
        if kind != SwitchKind::Select {
            let save = self.pos;
            self.skip_ws();
            if self.text.get(self.pos..)?.starts_with("offset:") {
                self.pos += "offset:".len();
                self.skip_ws();
                self.integer()?;
            } else {
                self.pos = save;
            }
        }
        let head = self.slice(start..self.pos).to_owned();
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let mut branches = Vec::new();
        let tail = loop {
            let open_start = self.pos;
            self.skip_ws();
            if self.peek()? == b'}' {
                self.pos += 1;
                break self.slice(open_start..self.pos).to_owned();
            }
            let case = self.selector()?;
            self.skip_ws();
            if self.peek()? != b'{' {
                return None;
            }
            self.pos += 1;
            let open = self.slice(open_start..self.pos).to_owned();
            let runs = self.message(&mut Ids::default(), kind != SwitchKind::Select, true)?;
            // The branch and what its level holds (a switch in it counted its own branches).
            let level = runs
                .iter()
                .filter(|r| !matches!(r, Run::Text { .. }))
                .count();
            self.made += 1 + level;
            if self.made > crate::formats::MAX_CODES {
                return None;
            }
            self.pos += 1;
            branches.push(Branch {
                case,
                runs,
                open,
                close: "}".into(),
            });
        };
        self.depth -= 1;
        if branches.is_empty() {
            return None;
        }
        self.switches += 1;
        Some(Arg::Complex(Switch {
            id: String::new(),
            kind,
            pivot: name,
            branches,
            head,
            tail,
            src: self.at(start),
            forms: None,
        }))
    }

    /// Whether the simple argument at `start..pos` has one brace pair and no quote, the
    /// shape the placeholder splitter reads as one code.
    fn plain_arg(&self, start: usize) -> bool {
        let arg = self.slice(start..self.pos);
        arg.matches('{').count() == 1 && arg.matches('}').count() == 1 && !arg.contains('\'')
    }

    /// An argument name or number.
    fn name(&mut self) -> Option<String> {
        let rest = self.text.get(self.pos..)?;
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(rest.get(..len)?.to_owned())
    }

    /// A branch selector: `=N` or a keyword (`one`, `other`, `female`).
    fn selector(&mut self) -> Option<String> {
        let start = self.pos;
        if self.peek() == Some(b'=') {
            self.pos += 1;
            let digits = self.pos;
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
            {
                self.pos += 1;
            }
            if self.pos == digits {
                return None;
            }
            return Some(self.slice(start..self.pos).to_owned());
        }
        self.name()
    }

    fn integer(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        (self.pos > digits).then_some(())
    }

    /// A simple argument's style, through the argument's closing `}`: nested braces must
    /// balance, and quoted text is skipped.
    fn style(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'\'' => {
                    self.pos += 1;
                    while self.peek()? != b'\'' {
                        self.pos += 1;
                    }
                }
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    self.pos += 1;
                    return Some(());
                }
                b'}' => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips ICU pattern white space.
    fn skip_ws(&mut self) {
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let len = rest
            .char_indices()
            .find(|&(_, c)| {
                !matches!(
                    c,
                    '\t' | '\n'
                        | '\u{b}'
                        | '\u{c}'
                        | '\r'
                        | ' '
                        | '\u{85}'
                        | '\u{200e}'
                        | '\u{200f}'
                        | '\u{2028}'
                        | '\u{2029}'
                )
            })
            .map_or(rest.len(), |(i, _)| i);
        self.pos += len;
    }
}

/// Renders one message level; `plural` says whether `#` is special here, `follow` is the
/// first character written after this level (a branch's `}`), for apostrophe doubling.
fn render_level(runs: &[Run], plural: bool, follow: Option<char>, out: &mut String) {
    let mut at = 0;
    while let Some(run) = runs.get(at) {
        match run {
            Run::Text { .. } => {
                let mut end = at;
                let mut text = String::new();
                while let Some(Run::Text { text: t, .. }) = runs.get(end) {
                    text.push_str(t);
                    end += 1;
                }
                let next = runs
                    .get(end..)
                    .unwrap_or_default()
                    .iter()
                    .find_map(first_char)
                    .or(follow);
                quote(&text, plural, next, out);
                at = end;
                continue;
            }
            Run::Code(code) => out.push_str(&code.data),
            Run::Switch(switch) => render_switch(switch, out),
        }
        at += 1;
    }
}

fn render_switch(switch: &Switch, out: &mut String) {
    if switch.head.is_empty() {
        out.push('{');
        out.push_str(&switch.pivot);
        out.push_str(", ");
        out.push_str(switch.kind.as_str());
        out.push(',');
    } else {
        out.push_str(&switch.head);
    }
    let plural = switch.kind != SwitchKind::Select;
    for branch in &switch.branches {
        if branch.open.is_empty() {
            out.push(' ');
            out.push_str(&branch.case);
            out.push_str(" {");
        } else {
            out.push_str(&branch.open);
        }
        let close = if branch.close.is_empty() {
            "}"
        } else {
            branch.close.as_str()
        };
        render_level(&branch.runs, plural, close.chars().next(), out);
        out.push_str(close);
    }
    if switch.tail.is_empty() {
        out.push('}');
    } else {
        out.push_str(&switch.tail);
    }
}

/// The first character a run writes, if it writes any.
fn first_char(run: &Run) -> Option<char> {
    match run {
        Run::Text { text, .. } => text.chars().next(),
        Run::Code(code) => code.data.chars().next(),
        Run::Switch(switch) => switch.head.chars().next().or(Some('{')),
    }
}

/// Writes literal text as ICU: from the first syntax character through the last one is
/// one quoted span (apostrophes inside doubled), and an apostrophe outside it is doubled
/// where a lone one would start quoting.
fn quote(text: &str, plural: bool, follow: Option<char>, out: &mut String) {
    let special = |c: char| c == '{' || c == '}' || (plural && c == '#');
    let span = text.find(special).map(|first| {
        let last = text
            .char_indices()
            .rev()
            .find(|&(_, c)| special(c))
            .map_or(first, |(i, c)| i + c.len_utf8());
        first..last
    });
    let mut after_quote = false;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if let Some(span) = span.as_ref().filter(|s| s.start == index) {
            out.push('\'');
            for q in text.get(span.clone()).unwrap_or_default().chars() {
                if q == '\'' {
                    out.push('\'');
                }
                out.push(q);
            }
            out.push('\'');
            while chars.peek().is_some_and(|&(i, _)| i < span.end) {
                chars.next();
            }
            after_quote = true;
            continue;
        }
        if c == '\'' {
            let next = chars.peek().map(|&(_, n)| n).or(follow);
            let double = after_quote || next.is_some_and(|n| n == '\'' || special(n));
            out.push_str(if double { "''" } else { "'" });
        } else {
            out.push(c);
        }
        after_quote = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> Option<Vec<Run>> {
        parse(text, Some(0), Syntaxes::ALL, &mut Ids::default())
    }

    /// A compact picture of runs: text as is, codes as `[id:data]`, switches as
    /// `<id pivot kind|case: …|case: …>`.
    fn shape(runs: &[Run]) -> String {
        let mut out = String::new();
        for run in runs {
            match run {
                Run::Text { text, .. } => out.push_str(text),
                Run::Code(c) => out.push_str(&format!("[{}:{}]", c.id, c.data)),
                Run::Switch(s) => {
                    out.push_str(&format!("<{} {} {}", s.id, s.pivot, s.kind.as_str()));
                    for b in &s.branches {
                        out.push_str(&format!("|{}: {}", b.case, shape(&b.runs)));
                    }
                    out.push('>');
                }
            }
        }
        out
    }

    fn rendered(runs: &[Run]) -> String {
        let mut out = String::new();
        render(runs, &mut out);
        out
    }

    #[test]
    fn complex_arguments_become_switches_with_codes_inside() {
        let table: &[(&str, &str)] = &[
            (
                "{count, plural, one {# item} other {# items}}",
                "<1 count plural|one: [1:#] item|other: [1:#] items>",
            ),
            (
                "You have {n, plural, =0 {no mail} one {one mail} other {{n} mails}} today",
                "You have <1 n plural|=0: no mail|one: one mail|other: [1:{n}] mails> today",
            ),
            (
                "{g, select, female {She} male {He} other {They}} said {name}",
                "<1 g select|female: She|male: He|other: They> said [2:{name}]",
            ),
            (
                "{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}",
                "<1 n selectordinal|one: [1:#]st|two: [1:#]nd|few: [1:#]rd|other: [1:#]th>",
            ),
            (
                "{g, select, female {{n, plural, one {her # cat} other {her # cats}}} other {# x}}",
                "<1 g select|female: <1 n plural|one: her [1:#] cat|other: her [1:#] cats>|other: # x>",
            ),
            (
                "{n, plural, offset:1 =0 {nobody} other {<b>{who}</b> and # others}}",
                "<1 n plural|=0: nobody|other: [1:<b>][2:{who}][1:</b>] and [3:#] others>",
            ),
            (
                "{n,plural,one{a}other{b}} costs {p, number, ::currency/EUR} on {d, date, short}",
                "<1 n plural|one: a|other: b> costs [2:{p, number, ::currency/EUR}] on [3:{d, date, short}]",
            ),
            (
                "It's {n, plural, one {'{one}'} other {'#' {x, number, integer}}}",
                "It's <1 n plural|one: {one}|other: # [1:{x, number, integer}]>",
            ),
            (
                "{n, plural, other {{t, time, 'at' HH:mm {x}}}}",
                "<1 n plural|other: [1:{t, time, 'at' HH:mm {x}}]>",
            ),
        ];
        for (text, want) in table {
            let runs = parse_all(text).unwrap_or_else(|| panic!("not ICU: {text}"));
            assert_eq!(shape(&runs), *want, "{text}");
            assert_eq!(rendered(&runs), *text, "render of {text}");
        }
    }

    #[test]
    fn malformed_or_plain_icu_falls_back_to_placeholders() {
        for text in [
            "Hello {name}",
            "{count, plural, one {# item} other {# items}",
            "{count, plural, one {# item} other {# items}}}",
            "{count, plural, }",
            "{count, plural one {a}}",
            "{count, plural, one a}",
            "{, plural, one {a}}",
            "a {n, plural, one {'{unterminated}}",
            "{{count}} plural select",
            "",
        ] {
            assert!(parse_all(text).is_none(), "{text}");
            let runs = runs(text, Some(0), Syntaxes::ALL, &mut Ids::default());
            let mut out = String::new();
            render(&runs, &mut out);
            assert_eq!(out, text);
        }
        let deep = "{a, select, other {".repeat(40) + &"}}".repeat(40);
        assert!(parse_all(&deep).is_none());
        let ok = "{a, select, other {".repeat(10) + "x" + &"}}".repeat(10);
        assert!(parse_all(&ok).is_some());
    }

    #[test]
    fn verbatim_runs_keep_their_offsets_and_quoted_pieces_have_none() {
        let text = "ab {n, plural, one {x '{'y} other {z}} it''s";
        let runs = parse(text, Some(100), Syntaxes::ALL, &mut Ids::default()).unwrap();
        let check = |runs: &[Run]| {
            for run in runs {
                if let Run::Text {
                    text: t,
                    src: Some(at),
                } = run
                {
                    assert_eq!(&text[at - 100..at - 100 + t.len()], t);
                }
            }
        };
        check(&runs);
        let Run::Switch(s) = &runs[1] else { panic!() };
        assert_eq!(s.src, Some(103));
        assert!(s.head == "{n, plural," && s.tail == "}");
        assert_eq!(s.branches[0].open, " one {");
        check(&s.branches[0].runs);
        assert!(matches!(&s.branches[0].runs[1], Run::Text { text, src: None } if text == "{"));
    }

    #[test]
    fn edited_text_is_requoted_so_it_reads_back_the_same() {
        let base = "{n, plural, one {a} other {b}}";
        for literal in [
            "it's",
            "{x}",
            "50% {off} #1",
            "'",
            "''",
            "a'",
            "'{",
            "}'",
            "#'#",
            "x '{y}' z",
        ] {
            let mut runs = parse_all(base).unwrap();
            let Run::Switch(s) = &mut runs[0] else {
                panic!()
            };
            s.branches[1].runs = vec![Run::text(literal)];
            s.branches[0].runs = vec![
                Run::text(literal),
                Run::Code(Box::new(Code::new(
                    "1",
                    CodeKind::Standalone,
                    "placeholder",
                    "#",
                    false,
                ))),
            ];
            let out = rendered(&runs);
            let again = parse_all(&out).unwrap_or_else(|| panic!("{out}"));
            let Run::Switch(t) = &again[0] else { panic!() };
            let plain = |runs: &[Run]| crate::model::Edition::new(runs.to_vec()).plain_text();
            assert_eq!(plain(&t.branches[1].runs), literal, "{out}");
            assert_eq!(plain(&t.branches[0].runs), literal, "{out}");
            // Text around the switch at the top level, where `#` is plain.
            let top = vec![Run::text(literal), runs[0].clone(), Run::text(literal)];
            let out = rendered(&top);
            let again = parse_all(&out).unwrap_or_else(|| panic!("{out}"));
            assert_eq!(
                crate::model::Edition::new(again.clone()).plain_text(),
                crate::model::Edition::new(top.clone()).plain_text(),
                "{out}"
            );
        }
    }

    #[test]
    fn a_switch_without_native_parts_is_written_as_icu() {
        let switch = Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("one {file}")]),
                Branch::new("other", vec![Run::text("many")]),
            ],
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        };
        let out = rendered(&[Run::Switch(Box::new(switch))]);
        assert_eq!(out, "{count, plural, one {one '{file}'} other {many}}");
        assert!(parse_all(&out).is_some());
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let pieces = [
            "{", "}", "'", "#", ",", " plural", " select", "a", "=1", "offset:", "é", "<b>", "</b>",
        ];
        let mut seed = 7u64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(seed % 14) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            seed = seed.wrapping_add(1);
            let runs = runs(&text, Some(0), Syntaxes::ALL, &mut Ids::default());
            let out = rendered(&runs);
            if parse_all(&text).is_some() {
                let again = parse_all(&out).unwrap_or_else(|| panic!("{text:?} -> {out:?}"));
                assert_eq!(shape(&again), shape(&runs), "{text:?} -> {out:?}");
            } else {
                assert_eq!(out, text);
            }
        }
    }
}
