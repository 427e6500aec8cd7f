//! The AsciiDoc block scanner: a file's lines into blocks, by Asciidoctor's block rules.
//!
//! Section titles (`== Title`, `#` Markdown-style, or a two-line title underlined `=-~^+`)
//! start sections; the document title (`= Title`) is the first, its header lines (author,
//! revision, attribute entries) no block. Paragraphs, admonition paragraphs (`NOTE: …`, the
//! label left out), list items (`*`, `-`, `.`, `1.`, callouts `<1>`, checklists), description
//! list terms and descriptions, block titles (`.Title`), table cells and the content of
//! example, sidebar, open, quote and verse blocks are prose; listing, literal, passthrough and
//! fenced blocks, literal (indented) paragraphs and blocks styled `source`, `listing` or
//! `literal` are code. Comments, attribute entries, block attribute lines (`[source,java]`,
//! `[[id]]`), preprocessor directives (`include::`, `ifdef::`…), block macros (`image::`)
//! and breaks are no block: their bytes stay in the skeleton. A list item's attached blocks
//! (after a `+` line) are read as blocks of the item.
use std::ops::Range;

use super::inline;
use crate::formats::ReadError;
use crate::formats::docs_blocks::{Ctx, Emit};
use crate::formats::lines::{Body, Line, Lines, width};
use crate::formats::output::Output;

/// The deepest nesting of blocks read (delimited blocks inside each other, blocks attached to
/// list items): real documents nest a few levels; a deeper file is refused at the block that
/// goes past it, so reading stays within a thread's stack.
const MAX_NESTING: usize = 64;
use crate::model::Role;

/// What a delimited block's delimiter line opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delimited {
    Listing,
    Literal,
    Pass,
    Fenced,
    Comment,
    Example,
    Sidebar,
    Open,
    Quote,
    Table,
    /// A table of comma- or colon-separated values (`,===`, `:===`).
    Data,
}

/// The delimited block `t` (a line's content) opens, if any.
pub fn delimiter_of(t: &str) -> Option<Delimited> {
    delimiter(t)
}

fn delimiter(t: &str) -> Option<Delimited> {
    let t = t.trim_end();
    if t == "--" {
        return Some(Delimited::Open);
    }
    if t.starts_with("```") {
        return Some(Delimited::Fenced);
    }
    if t.len() >= 4 && t.bytes().skip(1).all(|b| b == b'=') {
        match t.as_bytes()[0] {
            b'|' | b'!' => return Some(Delimited::Table),
            b',' | b':' => return Some(Delimited::Data),
            _ => {}
        }
    }
    let first = t.bytes().next()?;
    if t.len() < 4 || !t.bytes().all(|b| b == first) {
        return None;
    }
    Some(match first {
        b'-' => Delimited::Listing,
        b'.' => Delimited::Literal,
        b'+' => Delimited::Pass,
        b'/' => Delimited::Comment,
        b'=' => Delimited::Example,
        b'*' => Delimited::Sidebar,
        b'_' => Delimited::Quote,
        _ => return None,
    })
}

/// Styles that make a block's content code.
fn code_style(style: &str) -> bool {
    matches!(
        style,
        "source"
            | "listing"
            | "literal"
            | "pass"
            | "stem"
            | "latexmath"
            | "asciimath"
            | "plantuml"
            | "mermaid"
            | "graphviz"
            | "ditaa"
    )
}

/// Reads a file's text into blocks.
pub struct Reader<'t, 'e> {
    text: &'t str,
    emit: Emit<'t, 'e>,
}

impl<'t, 'e> Reader<'t, 'e> {
    pub fn new(text: &'t str, out: Output<'e>) -> Self {
        Reader {
            text,
            emit: Emit::new(text, out),
        }
    }

    /// Reads the whole text (after a BOM and YAML front matter).
    pub fn read(mut self) -> Result<Output<'e>, ReadError> {
        let text = self.text;
        let mut from = if text.starts_with('\u{feff}') { 3 } else { 0 };
        if let Some(first) = crate::formats::lines::line_at(text, from, 0)
            && first.text(text).trim_end() == "---"
        {
            // Front matter, as Asciidoctor skips it (`skip-front-matter`).
            let mut at = first.next;
            while let Some(line) = crate::formats::lines::line_at(text, at, 0) {
                at = line.next;
                if line.text(text).trim_end() == "---" && line.indent == 0 {
                    from = at;
                    break;
                }
            }
        }
        let body = Body {
            first: None,
            from,
            end: text.len(),
            indent: 0,
        };
        let top = Ctx::top();
        self.body(body, top, true)?;
        Ok(self.emit.out)
    }

    fn body(&mut self, body: Body, ctx: Ctx, header: bool) -> Result<(), ReadError> {
        if ctx.depth > MAX_NESTING {
            return Err(ReadError::too_deep(
                self.text,
                body.from,
                "blocks",
                MAX_NESTING,
            ));
        }
        let mut lines = body.lines(self.text);
        let mut style: Option<String> = None;
        while let Some(line) = lines.next() {
            if self.emit.out.refused() {
                break;
            }
            if line.blank() {
                continue;
            }
            // The document header comes before any block (anchors and attributes may).
            let first = header && self.emit.out.index() == 0;
            self.construct(line, &mut lines, ctx, &mut style, first)?;
        }
        Ok(())
    }

    /// Reads the construct starting at `line` (taken from `lines`). `style` carries a block
    /// attribute line's style to the block after it.
    fn construct(
        &mut self,
        line: Line,
        lines: &mut Lines<'t>,
        ctx: Ctx,
        style: &mut Option<String>,
        header: bool,
    ) -> Result<(), ReadError> {
        let text = self.text;
        let t = line.text(text);
        let at_start = line.indent == 0;
        if at_start && let Some(kind) = delimiter(t) {
            let taken = style.take();
            return self.delimited(line, lines, ctx, kind, taken.as_deref());
        }
        if t.starts_with("//") {
            // A line comment.
            return Ok(());
        }
        if at_start && (preprocessor(t) || block_macro(t) || is_break(t)) {
            return Ok(());
        }
        if at_start && attribute_entry(t) {
            // An entry's value may go on over lines that end with ` \`.
            let mut last = t;
            while last.trim_end().ends_with(" \\") {
                match lines.next() {
                    Some(next) => last = next.text(text),
                    None => break,
                }
            }
            return Ok(());
        }
        if at_start && t.starts_with('[') && t.trim_end().ends_with(']') {
            if let Some(found) = block_style(t) {
                *style = Some(found);
            }
            return Ok(());
        }
        if at_start && block_title(t) {
            let seg = (line.content + 1, line.end_trimmed(text));
            let runs = inline::runs(text, &[seg]);
            self.emit.push(
                "title",
                Role::Heading,
                ctx.level + 1,
                runs,
                seg.0..seg.1,
                true,
                None,
            );
            return Ok(());
        }
        if at_start && ctx.top && self.title(line, lines, header) {
            style.take();
            return Ok(());
        }
        let taken = style.take();
        let taken = taken.as_deref();
        if let Some(item) = list_item(t) {
            return self.item(line, item, lines, ctx);
        }
        if line.indent > 0 || taken.is_some_and(code_style) {
            // A literal paragraph, or one styled as code.
            let end = paragraph_end(text, line, lines);
            self.emit.push_code(line.content..end);
            return Ok(());
        }
        let skip = admonition_label(t).unwrap_or(0);
        let mut segments = vec![(line.content + skip, line.end_trimmed(text))];
        segments.extend(paragraph_lines(text, lines));
        let (kind, role) = match taken {
            Some("verse" | "quote") => ("quote", Role::Quote),
            _ => (ctx.kind, ctx.role),
        };
        let runs = inline::runs(text, &segments);
        let span = segments[0].0..segments[segments.len() - 1].1;
        self.emit
            .push(kind, role, ctx.level, runs, span, true, None);
        Ok(())
    }

    /// A section title at `line`: `== Title` (or `#`), or a line underlined with `=-~^+` of
    /// its width (give or take one). `header`: the document's first block, whose title's
    /// header lines (author, revision, attributes) follow it.
    fn title(&mut self, line: Line, lines: &mut Lines<'t>, header: bool) -> bool {
        let text = self.text;
        let t = line.text(text).trim_end();
        let (segment, span, level) = if let Some(level) = atx_level(t) {
            let from = line.content + level + 1;
            let words = text.get(from..line.content + t.len()).unwrap_or_default();
            let lead = words.len() - words.trim_start().len();
            // A closing run of the same marks (`== Title ==`) is no part of the title.
            let mark = t.as_bytes()[0] as char;
            let body = words.trim_start().trim_end_matches(mark).trim_end();
            let seg = (from + lead, from + lead + body.len());
            (seg, seg.0..seg.1, level - 1)
        } else {
            let Some(under) = lines.peek() else {
                return false;
            };
            let u = under.text(text).trim_end();
            let Some(level) = setext_level(u) else {
                return false;
            };
            if under.indent != 0
                || width(t).abs_diff(u.chars().count()) > 1
                || t.starts_with(['.', '[', '/', '*', '-', '+', '|', ':'])
                || list_item(t).is_some()
            {
                return false;
            }
            lines.next();
            (
                (line.content, line.content + t.len()),
                line.start..under.end,
                level,
            )
        };
        if segment.1 <= segment.0 {
            return false;
        }
        if header && level == 0 {
            // The document header: the lines after the title up to a blank line.
            while lines.peek().is_some_and(|l| !l.blank()) {
                lines.next();
            }
        }
        let runs = inline::runs(text, &[segment]);
        self.emit
            .title(&crate::model::Edition::new(runs.clone()).plain_text());
        let level = u32::try_from(level + 1).unwrap_or(u32::MAX);
        self.emit
            .push("h", Role::Heading, level, runs, span, true, None);
        true
    }

    /// A delimited block opened at `line`.
    fn delimited(
        &mut self,
        line: Line,
        lines: &mut Lines<'t>,
        ctx: Ctx,
        kind: Delimited,
        style: Option<&str>,
    ) -> Result<(), ReadError> {
        let text = self.text;
        let open = line.text(text).trim_end();
        let closing = if kind == Delimited::Fenced {
            "```"
        } else {
            open
        };
        let from = line.next;
        let mut end = None;
        for next in lines.by_ref() {
            if next.indent == 0 && next.text(text).trim_end() == closing {
                end = Some(next.start);
                break;
            }
        }
        let content = Body {
            first: None,
            from,
            end: end.unwrap_or_else(|| lines.offset()),
            indent: 0,
        };
        let style = style.unwrap_or_default();
        match kind {
            Delimited::Comment => Ok(()),
            Delimited::Listing
            | Delimited::Literal
            | Delimited::Pass
            | Delimited::Fenced
            | Delimited::Data => {
                self.emit.code(content);
                Ok(())
            }
            _ if code_style(style) || style == "comment" => {
                if style != "comment" {
                    self.emit.code(content);
                }
                Ok(())
            }
            Delimited::Table if style == "csv" || style == "dsv" => {
                self.emit.code(content);
                Ok(())
            }
            Delimited::Table => self.table(content, open.as_bytes()[0], ctx),
            _ if style == "verse" => {
                self.verse(content, ctx);
                Ok(())
            }
            Delimited::Quote => self.body(content, ctx.nested("quote", Role::Quote), false),
            _ => self.body(content, ctx.nested("p", Role::Paragraph), false),
        }
    }

    /// A verse: its lines one prose block, their breaks kept.
    fn verse(&mut self, content: Body, ctx: Ctx) {
        let text = self.text;
        let segments: Vec<(usize, usize)> = content
            .lines(text)
            .filter(|l| !l.blank())
            .map(|l| (l.content, l.end_trimmed(text)))
            .collect();
        if let (Some(first), Some(last)) = (segments.first(), segments.last()) {
            let span = first.0..last.1;
            let runs = inline::runs(text, &segments);
            self.emit
                .push("quote", Role::Quote, ctx.level + 1, runs, span, true, None);
        }
    }

    /// A list item (or a description list entry) at `line`, its text over the lines after
    /// it, and the blocks a `+` line attaches to it.
    fn item(
        &mut self,
        line: Line,
        item: Item,
        lines: &mut Lines<'t>,
        ctx: Ctx,
    ) -> Result<(), ReadError> {
        let text = self.text;
        if ctx.depth > MAX_NESTING {
            return Err(ReadError::too_deep(text, line.start, "blocks", MAX_NESTING));
        }
        let level = ctx.level + item.depth;
        let item_ctx = Ctx {
            kind: "li",
            role: Role::ListItem,
            level,
            depth: ctx.depth + 1,
            top: false,
        };
        let start = line.content + item.text;
        if let Some(term) = item.term.clone() {
            let term = (line.content + term.start, line.content + term.end);
            let runs = inline::runs(text, &[term]);
            self.emit.push(
                "term",
                Role::Paragraph,
                level,
                runs,
                term.0..term.1,
                true,
                None,
            );
        }
        let kind = if item.term.is_some() { "def" } else { "li" };
        let mut segments = Vec::new();
        if start < line.end_trimmed(text) {
            segments.push((start, line.end_trimmed(text)));
        }
        segments.extend(paragraph_lines(text, lines));
        if let (Some(first), Some(last)) = (segments.first(), segments.last()) {
            let span = first.0..last.1;
            let runs = inline::runs(text, &segments);
            self.emit
                .push(kind, Role::ListItem, level, runs, span, true, None);
        }
        // Blocks attached with `+` (a list item after one is the list's next item, read by
        // the caller, so nesting never grows with the list).
        while lines.peek().is_some_and(|l| l.text(text).trim_end() == "+") {
            lines.next();
            let mut style = None;
            while let Some(next) = lines.peek() {
                if next.blank() {
                    lines.next();
                    continue;
                }
                if list_item(next.text(text)).is_some() {
                    break;
                }
                lines.next();
                let before = style.is_some();
                self.construct(next, lines, item_ctx, &mut style, false)?;
                // A block attribute line or a title goes with the block after it.
                if style.is_some() && !before || block_title(next.text(text)) {
                    continue;
                }
                break;
            }
        }
        Ok(())
    }

    /// A table's cells: each `|` (or `!` in a nested table) starts one, its text up to the
    /// next, over lines too; a cell's specifier (`2+`, `a`, `^.^`) before its `|` is markup.
    fn table(&mut self, content: Body, separator: u8, ctx: Ctx) -> Result<(), ReadError> {
        let text = self.text;
        let Some(region) = text.get(content.from..content.end) else {
            return Ok(());
        };
        let bytes = region.as_bytes();
        // Where each cell's text starts, by its separator's offset.
        let mut starts: Vec<usize> = Vec::new();
        for (i, &b) in bytes.iter().enumerate() {
            if b == separator && (i == 0 || bytes[i - 1] != b'\\') {
                starts.push(i);
            }
        }
        // Each cell and its specifier: the one before the table's first separator, then the
        // one each cell's text ends with (which belongs to the next cell).
        let first_spec = starts
            .first()
            .and_then(|&f| region.get(..f))
            .map(str::trim)
            .filter(|w| is_spec(w))
            .unwrap_or_default();
        let mut spec = first_spec;
        for (k, &sep) in starts.iter().enumerate() {
            let to = starts.get(k + 1).copied().unwrap_or(bytes.len());
            let mut cell = sep + 1..to;
            let mut next_spec = "";
            if k + 1 < starts.len() {
                let inner = &region[cell.clone()];
                let spec_len = trailing_spec(inner);
                next_spec = &inner[inner.len() - spec_len..];
                cell.end -= spec_len;
            }
            let (from, end) = (content.from + cell.start, content.from + cell.end);
            // An AsciiDoc cell (`a|`) whose text ends a line holds blocks: read them.
            let blocks = spec.ends_with('a') && text.get(..end).is_some_and(|t| t.ends_with('\n'));
            spec = next_spec;
            if blocks {
                let first = crate::formats::lines::line_at(text, from, 0).map(|l| Line {
                    start: from,
                    content: l.content,
                    end: l.end.min(end),
                    next: l.next,
                    indent: 0,
                });
                let body = Body {
                    first,
                    from: first.map_or(from, |l| l.next),
                    end,
                    indent: 0,
                };
                self.body(body, ctx.nested("cell", Role::TableCell), false)?;
                continue;
            }
            let segments = cell_lines(text, from, end);
            let (Some(first), Some(last)) = (segments.first(), segments.last()) else {
                continue;
            };
            let span = first.0..last.1;
            let runs = inline::runs(text, &segments);
            self.emit
                .push("cell", Role::TableCell, ctx.level, runs, span, true, None);
        }
        Ok(())
    }
}

/// The lines of a cell from `from` to `to` (its text, by byte range), blank ones left out.
fn cell_lines(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = from;
    for piece in text.get(from..to).unwrap_or_default().split_inclusive('\n') {
        let body = piece.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        let start = at + (body.len() - trimmed.len());
        let end = start + trimmed.trim_end().len();
        if end > start {
            out.push((start, end));
        }
        at += piece.len();
    }
    out
}

/// The length of a cell specifier at the end of `cell` (`2+`, `.3+`, `^.^`, `a`, `2*`), after
/// whitespace; 0 when there is none.
fn trailing_spec(cell: &str) -> usize {
    let word_start = cell.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let word = &cell[word_start..];
    // A specifier follows whitespace (the cell's text, or the line break before it).
    if word_start == 0 || !is_spec(word) {
        return 0;
    }
    word.len()
}

/// Whether `w` is a cell specifier: span (`2+`, `.3+`, `2.3+`), duplication (`3*`), alignment
/// (`<`, `^`, `>`, `.<`, `.^`, `.>`) and a style letter (`a e h l m s d v`), each optional.
fn is_spec(w: &str) -> bool {
    let mut rest = w;
    let digits = |r: &str| r.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(rest);
    if n > 0 && rest[n..].starts_with('*') {
        rest = &rest[n + 1..];
    } else {
        let mut m = n;
        if rest[m..].starts_with('.') {
            let d = digits(&rest[m + 1..]);
            if d > 0 {
                m += 1 + d;
            }
        }
        if m > 0 && rest[m..].starts_with('+') {
            rest = &rest[m + 1..];
        } else if n > 0 {
            return false;
        }
    }
    if rest.starts_with(['<', '^', '>']) {
        rest = &rest[1..];
    }
    if rest.starts_with('.') && rest[1..].starts_with(['<', '^', '>']) {
        rest = &rest[2..];
    }
    if rest.len() == 1 && "aehlmsdv".contains(rest) {
        rest = "";
    }
    rest.is_empty() && !w.is_empty()
}

/// Whether a line of new text would start a block of its own rather than go on with the
/// prose it is written in (the writer puts `{empty}` before it).
pub fn starts_block(line: &str) -> bool {
    let t = line.trim_end();
    line.starts_with([' ', '\t'])
        || t == "+"
        || delimiter(t).is_some()
        || t.starts_with("//")
        || (t.starts_with('[') && t.ends_with(']'))
        || block_title(t)
        || attribute_entry(t)
        || admonition_label(t).is_some()
        || atx_level(t).is_some()
        || setext_level(t).is_some()
        || preprocessor(t)
        || block_macro(t)
        || is_break(t)
}

/// The lines after a paragraph's first that go on with it: up to a blank line, a delimiter,
/// a block attribute line, a comment, a preprocessor line (`include::`, `ifdef::`, kept as
/// they stand between the blocks), a list continuation (`+`), or the next list item.
fn paragraph_lines(text: &str, lines: &mut Lines<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    while let Some(next) = lines.peek() {
        let t = next.text(text);
        let t_end = t.trim_end();
        if next.blank()
            || t_end == "+"
            || t.starts_with("//")
            || (next.indent == 0
                && (delimiter(t).is_some()
                    || preprocessor(t)
                    || (t.starts_with('[') && t_end.ends_with(']'))))
            || list_item(t).is_some()
        {
            break;
        }
        lines.next();
        out.push((next.content, next.end_trimmed(text)));
    }
    out
}

/// Where a literal paragraph starting at `line` ends: its last non-blank line's end.
fn paragraph_end(text: &str, line: Line, lines: &mut Lines<'_>) -> usize {
    let mut end = line.end_trimmed(text);
    while let Some(next) = lines.peek().filter(|l| !l.blank()) {
        end = next.end_trimmed(text);
        lines.next();
    }
    end
}

/// A list item's marker and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Where the item's text starts in the line's content.
    pub text: usize,
    /// Its nesting by marker (`**` is 2).
    pub depth: u32,
    /// A description list entry's term, by byte range in the line's content.
    pub term: Option<Range<usize>>,
}

/// The list item `t` (a line's content) starts, if any.
pub fn list_item(t: &str) -> Option<Item> {
    let bytes = t.as_bytes();
    let marker = |len: usize| -> Option<usize> {
        let rest = t.get(len..)?;
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        (spaces > 0 && !rest.trim().is_empty()).then_some(len + spaces)
    };
    let run = |b: u8| bytes.iter().take_while(|&&c| c == b).count();
    let stars = run(b'*');
    if (1..=5).contains(&stars)
        && let Some(text) = marker(stars)
    {
        let text = checkbox(t, text);
        return Some(Item {
            text,
            depth: u32::try_from(stars).unwrap_or(1),
            term: None,
        });
    }
    if bytes.first() == Some(&b'-')
        && run(b'-') == 1
        && let Some(text) = marker(1)
    {
        let text = checkbox(t, text);
        return Some(Item {
            text,
            depth: 1,
            term: None,
        });
    }
    let dots = run(b'.');
    if (1..=5).contains(&dots)
        && let Some(text) = marker(dots)
    {
        return Some(Item {
            text,
            depth: u32::try_from(dots).unwrap_or(1),
            term: None,
        });
    }
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if (1..=9).contains(&digits)
        && bytes.get(digits) == Some(&b'.')
        && let Some(text) = marker(digits + 1)
    {
        return Some(Item {
            text,
            depth: 1,
            term: None,
        });
    }
    if bytes.len() > 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b'.'
        && let Some(text) = marker(2)
    {
        return Some(Item {
            text,
            depth: 1,
            term: None,
        });
    }
    if bytes.first() == Some(&b'<') {
        let close = t.find('>')?;
        let inner = &t[1..close];
        if (inner == "." || (!inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit())))
            && let Some(text) = marker(close + 1)
        {
            return Some(Item {
                text,
                depth: 1,
                term: None,
            });
        }
        return None;
    }
    description(t)
}

/// `[x] `, `[ ] ` or `[*] ` after a list marker: a checkbox, no part of the text.
fn checkbox(t: &str, text: usize) -> usize {
    let rest = t.get(text..).unwrap_or_default();
    if ["[x] ", "[ ] ", "[*] "].iter().any(|c| rest.starts_with(c)) {
        text + 4
    } else {
        text
    }
}

/// A description list entry: `term::`, `term:::`, `term::::` or `term;;`, then whitespace
/// or the line's end.
fn description(t: &str) -> Option<Item> {
    if t.starts_with(['.', '[', '/', '=', '|', ':', '*', '-']) {
        return None;
    }
    let mut search = 0;
    while let Some(i) = t.get(search..).and_then(|r| r.find([':', ';'])) {
        let at = search + i;
        let c = t.as_bytes()[at];
        let run = t.as_bytes()[at..].iter().take_while(|&&b| b == c).count();
        let valid = match c {
            b':' => (2..=4).contains(&run),
            _ => run == 2,
        };
        let after = t.get(at + run..).unwrap_or_default();
        if valid && at > 0 && (after.is_empty() || after.starts_with([' ', '\t'])) {
            let term = t[..at].trim_end();
            if term.is_empty() || term.ends_with(char::is_whitespace) {
                return None;
            }
            let text = at + run + (after.len() - after.trim_start().len());
            return Some(Item {
                text,
                depth: u32::try_from(run.saturating_sub(1)).unwrap_or(1),
                term: Some(0..term.len()),
            });
        }
        search = at + run;
    }
    None
}

/// `NOTE: `, `TIP: `, `IMPORTANT: `, `WARNING: `, `CAUTION: `: the label's length.
fn admonition_label(t: &str) -> Option<usize> {
    ["NOTE: ", "TIP: ", "IMPORTANT: ", "WARNING: ", "CAUTION: "]
        .iter()
        .find(|l| t.starts_with(*l))
        .map(|l| l.len())
}

/// A section title's level by its marks: `==` is 2 (`=` the document title is 1).
fn atx_level(t: &str) -> Option<usize> {
    let c = t.bytes().next()?;
    if c != b'=' && c != b'#' {
        return None;
    }
    let n = t.bytes().take_while(|&b| b == c).count();
    ((1..=6).contains(&n) && t.as_bytes().get(n) == Some(&b' ') && !t[n..].trim().is_empty())
        .then_some(n)
}

/// A two-line title's underline: its level (`=` 0, `-` 1, `~` 2, `^` 3, `+` 4).
fn setext_level(u: &str) -> Option<usize> {
    let c = u.bytes().next()?;
    let level = match c {
        b'=' => 0,
        b'-' => 1,
        b'~' => 2,
        b'^' => 3,
        b'+' => 4,
        _ => return None,
    };
    (u.len() >= 2 && u.bytes().all(|b| b == c)).then_some(level)
}

/// `.Title` (not `..`, `. item` or `.5`).
fn block_title(t: &str) -> bool {
    let mut chars = t.chars();
    chars.next() == Some('.')
        && chars
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '.' && !c.is_ascii_digit())
}

/// `:name: value`, `:name!:`, `:!name:`.
fn attribute_entry(t: &str) -> bool {
    let Some(rest) = t.strip_prefix(':') else {
        return false;
    };
    let Some(end) = rest.find(':') else {
        return false;
    };
    let name = rest[..end].trim_matches('!');
    let after = &rest[end + 1..];
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && (after.is_empty() || after.starts_with([' ', '\t']))
}

/// `include::`, `ifdef::`, `ifndef::`, `ifeval::`, `endif::`, and an Antora `tag::`/`end::`.
fn preprocessor(t: &str) -> bool {
    [
        "include::",
        "ifdef::",
        "ifndef::",
        "ifeval::",
        "endif::",
        "tag::",
        "end::",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        && t.trim_end().ends_with(']')
}

/// A block macro: `image::x.png[]`, `toc::[]`, `video::…[]`.
fn block_macro(t: &str) -> bool {
    let t = t.trim_end();
    let Some(colons) = t.find("::") else {
        return false;
    };
    let name = &t[..colons];
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && t.ends_with(']')
        && !t[colons + 2..].starts_with(char::is_whitespace)
        && t[colons + 2..].contains('[')
}

/// A thematic or page break: `'''`, `<<<`, `---`, `***`, `- - -`, `* * *`.
fn is_break(t: &str) -> bool {
    matches!(
        t.trim_end(),
        "'''" | "<<<" | "---" | "***" | "- - -" | "* * *"
    )
}

/// The style a block attribute line gives the next block (`[source,java]` → `source`,
/// `[NOTE]` → `note`, `[quote, A. Author]` → `quote`), when its first attribute is one.
fn block_style(t: &str) -> Option<String> {
    let inner = t.trim_end().strip_prefix('[')?.strip_suffix(']')?;
    if inner.starts_with('[') {
        return None;
    }
    let first = inner.split(',').next()?.trim();
    // `source#id.role%option`: the style is before the first shorthand.
    let style = first.split(['#', '.', '%']).next()?.trim();
    if style.is_empty() || style.contains('=') || style.contains('"') {
        return None;
    }
    Some(style.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_open_constructs() {
        assert_eq!(delimiter("----"), Some(Delimited::Listing));
        assert_eq!(delimiter("--"), Some(Delimited::Open));
        assert_eq!(delimiter("|==="), Some(Delimited::Table));
        assert_eq!(delimiter("```java"), Some(Delimited::Fenced));
        assert_eq!(delimiter("---"), None);
        assert_eq!(list_item("* Item").map(|i| i.text), Some(2));
        assert_eq!(list_item("** Deeper").map(|i| i.depth), Some(2));
        assert_eq!(list_item("- [x] done").map(|i| i.text), Some(6));
        assert_eq!(list_item(". Step").map(|i| i.text), Some(2));
        assert_eq!(list_item("<1> Callout").map(|i| i.text), Some(4));
        assert_eq!(
            list_item("first term:: its definition").map(|i| i.text),
            Some(13)
        );
        assert_eq!(list_item("term::").and_then(|i| i.term), Some(0..4));
        assert_eq!(list_item("Use std::vector here"), None);
        assert_eq!(list_item("*bold* start"), None);
        assert_eq!(list_item(".Title"), None);
        assert!(block_title(".Section B list"));
        assert!(!block_title("..."));
        assert!(attribute_entry(":idprefix: id_"));
        assert!(attribute_entry(":toc:"));
        assert!(!attribute_entry(":not an attribute"));
        assert!(preprocessor("include::partial$x.adoc[]"));
        assert!(block_macro("image::diagram.png[Diagram]"));
        assert!(!block_macro("Use image::x[] inline."));
        assert_eq!(block_style("[source,java]").as_deref(), Some("source"));
        assert_eq!(block_style("[NOTE]").as_deref(), Some("note"));
        assert_eq!(block_style("[[anchor]]"), None);
        assert_eq!(block_style("[cols=\"1,2\"]"), None);
        assert_eq!(atx_level("== Section"), Some(2));
        assert_eq!(atx_level("==Section"), None);
        assert!(is_spec("2+") && is_spec("a") && is_spec(".3+^.^") && is_spec("3*"));
        assert!(!is_spec("word") && !is_spec("12"));
        assert_eq!(trailing_spec(" text 2+"), 2);
        assert_eq!(trailing_spec(" text "), 0);
    }
}
