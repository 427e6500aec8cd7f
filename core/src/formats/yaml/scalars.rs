//! YAML scalars: plain (one line or folded over several), single- and double-quoted with
//! their escapes, and literal `|` and folded `>` block scalars with libyaml's indentation.

use std::borrow::Cow;

use super::scanner::{Parser, is_blank, is_blankz, is_break, is_flow_indicator};
use super::tree::{BlockInfo, Chomp, Scalar, Style, slice};
use crate::formats::ReadError;

impl<'a> Parser<'a> {
    /// A plain scalar at `pos`. In block context its continuation lines are indented more
    /// than `n`; in a flow collection it stops at flow indicators.
    pub(super) fn plain(&mut self, n: isize, flow: bool) -> Result<Scalar<'a>, ReadError> {
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
    pub(super) fn quoted(&mut self, flow: bool) -> Result<Scalar<'a>, ReadError> {
        let start = self.pos;
        let quote = self.byte(start);
        let double = quote == b'"';
        let style = if double { Style::Double } else { Style::Single };
        if let Some(end) = self.verbatim_quoted_end(start, quote) {
            self.pos = end;
            return Ok(Scalar {
                style,
                verbatim: Some(start + 1),
                value: Cow::Borrowed(slice(self.text, start + 1, end - 1)),
                span: start..end,
                tag: None,
                flow,
                block: None,
            });
        }
        let mut p = start + 1;
        let mut line_start = self.line_start(start);
        let mut value = String::new();
        loop {
            if p >= self.b.len() || (p == line_start && self.is_marker(p)) {
                return Err(self.unterminated(start, double));
            }
            let (next_line, escaped_break) = match self.quoted_line(start, p, quote, &mut value)? {
                QuotedStop::Close(at) => {
                    self.pos = at + 1;
                    return Ok(Scalar {
                        style,
                        verbatim: None,
                        value: Cow::Owned(value),
                        span: start..at + 1,
                        tag: None,
                        flow,
                        block: None,
                    });
                }
                QuotedStop::Break { at, keep } => {
                    let trimmed = value.trim_end_matches([' ', '\t']).len().max(keep);
                    value.truncate(trimmed);
                    (self.after_break(at), false)
                }
                QuotedStop::EscapedBreak(next_line) => (next_line, true),
            };
            (p, line_start) = self.fold_quoted_breaks(next_line, escaped_break, &mut value);
        }
    }

    /// The common case of a quoted scalar, a slice of the text (no escape, no line break):
    /// the offset after its closing quote.
    fn verbatim_quoted_end(&self, start: usize, quote: u8) -> Option<usize> {
        let len = self.b.len();
        let mut p = start + 1;
        while p < len && !matches!(self.byte(p), b'\n' | b'\r' | b'\\' | b'"' | b'\'') {
            p += 1;
        }
        (self.byte(p) == quote && (quote == b'"' || self.byte(p + 1) != b'\'')).then_some(p + 1)
    }

    fn unterminated(&self, start: usize, double: bool) -> ReadError {
        self.err(
            start,
            if double {
                "this double-quoted value is never closed: expected `\"`"
            } else {
                "this single-quoted value is never closed: expected `'`"
            },
        )
    }

    /// Reads one line of the quoted scalar opened at `start` into `value`, from `p` up to a
    /// line break or the closing quote, decoding `''` and backslash escapes.
    fn quoted_line(
        &self,
        start: usize,
        mut p: usize,
        quote: u8,
        value: &mut String,
    ) -> Result<QuotedStop, ReadError> {
        let len = self.b.len();
        let double = quote == b'"';
        // How much of the value escapes produced (never trimmed at a line break).
        let mut keep = value.len();
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
                return Err(self.unterminated(start, double));
            }
            let c = self.byte(p);
            if c == quote {
                if !double && self.byte(p + 1) == b'\'' {
                    value.push('\'');
                    keep = value.len();
                    p += 2;
                    continue;
                }
                return Ok(QuotedStop::Close(p));
            }
            if is_break(c) {
                return Ok(QuotedStop::Break { at: p, keep });
            }
            // A backslash escape.
            if is_break(self.byte(p + 1)) {
                return Ok(QuotedStop::EscapedBreak(self.after_break(p + 1)));
            }
            p = self.escape(p, value)?;
            keep = value.len();
        }
    }

    /// Skips the blank lines after a line break of a quoted scalar (the next line starts at
    /// `p`) and folds them into `value`: one break is a space, more are line breaks, and after
    /// an escaped break each is kept. Returns where the text resumes and its line's start.
    fn fold_quoted_breaks(
        &self,
        mut p: usize,
        escaped_break: bool,
        value: &mut String,
    ) -> (usize, usize) {
        let mut line_start = p;
        let mut breaks = usize::from(!escaped_break);
        loop {
            while is_blank(self.byte(p)) {
                p += 1;
            }
            if p < self.b.len() && is_break(self.byte(p)) {
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
        (p, line_start)
    }

    /// Decodes the escape at `p` (a backslash) into `out`; returns the offset after it.
    pub(super) fn escape(&self, p: usize, out: &mut String) -> Result<usize, ReadError> {
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
    pub(super) fn block_scalar(
        &mut self,
        n: isize,
        tag: Option<&'a str>,
    ) -> Result<Scalar<'a>, ReadError> {
        let len = self.b.len();
        let start = self.pos;
        let folded = self.byte(start) == b'>';
        let header = self.block_header(start)?;
        let header_end = header.end;
        let base = usize::try_from(n).unwrap_or(0);
        let mut state = BlockLines {
            p: self.after_break(header_end),
            line_start: self.after_break(header_end),
            indent: header
                .explicit
                .map_or(0, |m| if n >= 0 { base + m } else { m }),
            trailing: 0,
            last_break: None,
        };
        if header_end >= len {
            state.p = len;
            state.line_start = len;
        }
        self.scalar_breaks(&mut state, n)?;
        let content = self.block_content(&mut state, n, folded, header_end)?;
        let mut value = content.value;
        let chomp = header.chomp;
        if chomp != Chomp::Strip && content.leading_break {
            value.push('\n');
        }
        if chomp == Chomp::Keep {
            for _ in 0..state.trailing {
                value.push('\n');
            }
        }
        let end = match (chomp, state.last_break) {
            (Chomp::Keep, Some(lb)) if lb >= content.end => lb,
            _ => content.end,
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
                explicit: header.explicit.is_some(),
                tail: header.indicators_end..header_end,
                trailing_empty: state.trailing > 0,
                eof: end >= len,
            })),
        })
    }

    /// The header of the block scalar at `start` (its `|` or `>`): the chomping and
    /// indentation indicators, then only spaces and a comment to the end of the line.
    fn block_header(&self, start: usize) -> Result<BlockHeader, ReadError> {
        let len = self.b.len();
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
        Ok(BlockHeader {
            chomp,
            explicit,
            indicators_end,
            end: p,
        })
    }

    /// The content lines of a block scalar, from `state` (at its first content line) on:
    /// the value before chomping, folded when `folded`.
    fn block_content(
        &self,
        state: &mut BlockLines,
        n: isize,
        folded: bool,
        header_end: usize,
    ) -> Result<BlockContent, ReadError> {
        let len = self.b.len();
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
            self.scalar_breaks(state, n)?;
        }
        Ok(BlockContent {
            value,
            end: content_end,
            leading_break,
        })
    }

    /// Skips the indentation and the empty lines of a block scalar (libyaml's rules),
    /// settling the content indentation on first use.
    pub(super) fn scalar_breaks(&self, state: &mut BlockLines, n: isize) -> Result<(), ReadError> {
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
}

/// Where a block scalar's line scan stands.
pub(super) struct BlockLines {
    pub(super) p: usize,
    pub(super) line_start: usize,
    /// Content indentation; 0 until detected.
    pub(super) indent: usize,
    /// Empty lines since the last content line.
    pub(super) trailing: usize,
    /// The last line break consumed.
    pub(super) last_break: Option<usize>,
}

/// Where a line of a quoted scalar stops.
enum QuotedStop {
    /// At the closing quote, at this offset.
    Close(usize),
    /// At a line break at `at`; the value's first `keep` bytes are not trimmed (escapes
    /// produced them).
    Break { at: usize, keep: usize },
    /// At a backslash-escaped line break; the next line starts at this offset.
    EscapedBreak(usize),
}

/// A block scalar's header line.
struct BlockHeader {
    chomp: Chomp,
    /// The indentation indicator.
    explicit: Option<usize>,
    /// After the indicators.
    indicators_end: usize,
    /// The end of the header line (its line break, or the end of the text).
    end: usize,
}

/// A block scalar's content lines, read.
struct BlockContent {
    /// The value before chomping.
    value: String,
    /// The end of the last content line (the header's end when there is none).
    end: usize,
    /// A line break ended the last content line.
    leading_break: bool,
}
