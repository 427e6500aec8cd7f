//! The reStructuredText block scanner: a file's lines into blocks, by docutils' body
//! elements, reading each construct's indented body again as a body of its own.
//!
//! Titles (underlined, or over- and underlined) start sections; paragraphs, list items
//! (bullet, enumerated, field and option lists), definition list terms and definitions,
//! footnotes and citations, block quotes, line blocks, table cells and the titles a directive
//! takes as its argument are prose blocks. Literal blocks (after `::`), doctest blocks and the
//! content of code directives are code blocks. Comments, hyperlink targets, substitution
//! definitions, directive options and the directives that hold no prose (`toctree`,
//! `literalinclude`, `image`…) are no block: their bytes stay in the skeleton.
use super::inline;
use super::tables::{self, Cell};
use crate::formats::docs_blocks::{Ctx, Emit};
use crate::formats::lines::{Body, Line, Lines, column_of, indented, width};
use crate::formats::output::Output;
use crate::formats::{MAX_DEPTH, ReadError};
use crate::model::{Code, CodeKind, Role, Run};

/// Why a table cell over several lines takes no edit.
pub const CELL_LOCKED: &str = "a table cell over several lines: its lines are not one stretch of the file; edit the table in the file, where its borders and widths are yours to keep";

/// What a directive's argument and content hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    /// No argument: its first line's text starts its prose content (`note`, `warning`).
    Admonition,
    /// A version, then prose (`versionadded`, `deprecated`).
    Version,
    /// A title people read, then prose (`admonition`, `topic`, `rubric`, `table`).
    Titled,
    /// An argument that is code (a signature, a path, a condition), then prose.
    Signature,
    /// Content that is code (`code-block`, `math`, `raw`).
    Code,
    /// Nothing to read (`toctree`, `image`, `include`, `index`).
    Skip,
}

fn classify(name: &str) -> Directive {
    let name = name.to_ascii_lowercase();
    let bare = name.rsplit(':').next().unwrap_or(&name);
    match bare {
        "attention" | "caution" | "danger" | "error" | "hint" | "important" | "note" | "tip"
        | "warning" | "seealso" | "todo" => Directive::Admonition,
        "versionadded" | "versionchanged" | "deprecated" | "versionremoved" => Directive::Version,
        "admonition" | "topic" | "sidebar" | "rubric" | "table" | "list-table" | "dropdown"
        | "tab" | "tab-item" | "group-tab" | "card" | "grid-item-card" | "centered" | "title" => {
            Directive::Titled
        }
        "code-block" | "code" | "sourcecode" | "code-cell" | "code-tab" | "math" | "raw"
        | "csv-table" | "graphviz" | "graph" | "digraph" | "productionlist" | "testcode"
        | "testoutput" | "testsetup" | "testcleanup" | "doctest" | "ipython"
        | "jupyter-execute" | "mermaid" | "plantuml" | "uml" | "parsed-literal" | "prompt"
        | "program-output" | "command-output" => Directive::Code,
        "toctree" | "index" | "autosummary" | "meta" | "include" | "literalinclude" | "image"
        | "tabularcolumns" | "default-role" | "role" | "sectionauthor" | "moduleauthor"
        | "codeauthor" | "currentmodule" | "default-domain" | "highlightlang" | "highlight"
        | "sectnum" | "contents" | "target-notes" | "bibliography" | "footbibliography"
        | "rst-class" | "cssclass" => Directive::Skip,
        _ => Directive::Signature,
    }
}

/// Reads a file's text into blocks.
pub struct Reader<'t, 'e> {
    text: &'t str,
    emit: Emit<'t, 'e>,
    /// Title adornment styles (character, overlined) in order of first use: a title's level.
    styles: Vec<(char, bool)>,
}

impl<'t, 'e> Reader<'t, 'e> {
    pub fn new(text: &'t str, out: Output<'e>) -> Self {
        Reader {
            text,
            emit: Emit::new(text, out),
            styles: Vec::new(),
        }
    }

    /// Reads the whole text (after a BOM).
    pub fn read(mut self) -> Result<Output<'e>, ReadError> {
        let from = if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        let body = Body {
            first: None,
            from,
            end: self.text.len(),
            indent: 0,
        };
        let top = Ctx::top();
        self.body(body, top)?;
        Ok(self.emit.out)
    }

    fn body(&mut self, body: Body, ctx: Ctx) -> Result<(), ReadError> {
        if ctx.depth > MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                body.from,
                "indented blocks",
                MAX_DEPTH,
            ));
        }
        let text = self.text;
        let first = body.first.map(|f| f.start);
        let mut lines = body.lines(text);
        let mut literal_next = false;
        while let Some(line) = lines.peek() {
            if self.emit.out.refused() {
                break;
            }
            if line.blank() {
                lines.next();
                continue;
            }
            if Some(line.start) != first && line.indent > body.indent {
                let inner = indented(text, &mut lines, None, body.indent);
                if literal_next {
                    self.emit.code(inner);
                } else {
                    self.body(inner, ctx.nested("quote", Role::Quote))?;
                }
                literal_next = false;
                continue;
            }
            lines.next();
            literal_next = self.construct(line, &mut lines, body, ctx)?;
        }
        Ok(())
    }

    /// Reads the construct starting at `line`; whether it was a paragraph ending with `::`
    /// (the indented block after it is then literal).
    fn construct(
        &mut self,
        line: Line,
        lines: &mut Lines<'t>,
        body: Body,
        ctx: Ctx,
    ) -> Result<bool, ReadError> {
        let text = self.text;
        let t = line.text(text);
        if ctx.top && self.title(line, lines) {
            return Ok(false);
        }
        if t == ".." || t.starts_with(".. ") || t.starts_with("..\t") {
            self.explicit(line, lines, ctx)?;
            return Ok(false);
        }
        if tables::is_grid_top(t) {
            tables::grid(text, line, lines, &mut |cells| self.cells(cells, ctx));
            return Ok(false);
        }
        if tables::is_simple_border(t) {
            tables::simple(text, line, lines, &mut |cells| self.cells(cells, ctx));
            return Ok(false);
        }
        let item = bullet(t)
            .map(|len| (len, "li"))
            .or_else(|| {
                enumerator(t)
                    .filter(|_| !continues_paragraph(text, lines, line))
                    .map(|len| (len, "li"))
            })
            .or_else(|| field(t).map(|len| (len, "field")))
            .or_else(|| option(t).map(|len| (len, "li")));
        if let Some((len, kind)) = item {
            self.item(line, len, lines, ctx.nested(kind, Role::ListItem))?;
            return Ok(false);
        }
        if t.starts_with(">>>") {
            let mut end = line;
            while let Some(next) = lines.peek().filter(|l| !l.blank()) {
                end = next;
                lines.next();
            }
            self.emit.push_code(line.content..end.end);
            return Ok(false);
        }
        if t == "|" || t.starts_with("| ") {
            self.line_block(line, lines, ctx)?;
            return Ok(false);
        }
        if is_adornment(t) && t.trim_end().len() >= 4 {
            // A transition.
            return Ok(false);
        }
        Ok(self.paragraph(line, lines, body, ctx))
    }

    /// A section title at `line`, underlined or over- and underlined.
    fn title(&mut self, line: Line, lines: &mut Lines<'t>) -> bool {
        let text = self.text;
        let t = line.text(text).trim_end();
        let (over, title, under) = if is_adornment(t) {
            let (Some(mid), Some(under)) = (lines.peek(), lines.peek2()) else {
                return false;
            };
            if mid.blank() || under.text(text).trim_end() != t || is_adornment(mid.text(text)) {
                return false;
            }
            lines.next();
            lines.next();
            (Some(line), mid, under)
        } else {
            let Some(under) = lines.peek() else {
                return false;
            };
            let u = under.text(text).trim_end();
            if line.indent != 0
                || under.indent != 0
                || !is_adornment(u)
                || (u.chars().count() < 4 && u.chars().count() < width(t))
            {
                return false;
            }
            lines.next();
            (None, line, under)
        };
        let style = (
            under.text(text).chars().next().unwrap_or('='),
            over.is_some(),
        );
        let level = match self.styles.iter().position(|&s| s == style) {
            Some(i) => i + 1,
            None => {
                self.styles.push(style);
                self.styles.len()
            }
        };
        let segment = (
            title.content,
            title.content + title.text(text).trim_end().len(),
        );
        let runs = inline::runs(text, &[segment]);
        self.emit
            .title(&crate::model::Edition::new(runs.clone()).plain_text());
        let from = over.map_or(title.start, |o| o.start);
        let level = u32::try_from(level).unwrap_or(u32::MAX);
        self.emit
            .push("h", Role::Heading, level, runs, from..under.end, true, None);
        true
    }

    /// Explicit markup at `line`: a footnote or citation, a directive, or what holds no prose
    /// (a comment, a hyperlink target, a substitution definition).
    fn explicit(&mut self, line: Line, lines: &mut Lines<'t>, ctx: Ctx) -> Result<(), ReadError> {
        let text = self.text;
        let after_dots = line.content + 2;
        let rest_full = text.get(after_dots..line.end).unwrap_or_default();
        let rest = rest_full.trim_start();
        let rest_at = after_dots + (rest_full.len() - rest.len());
        if let Some(label_end) = footnote_label(rest) {
            let first = self.first_line(line, rest_at + label_end);
            let body = indented(text, lines, first, line.indent);
            return self.body(body, ctx.nested("footnote", Role::Paragraph));
        }
        if let Some((name, arg_at)) = directive_name(rest) {
            return self.directive(line, lines, ctx, name, rest_at + arg_at);
        }
        indented(text, lines, None, line.indent);
        Ok(())
    }

    /// The rest of `line` from byte `at` (spaces skipped) as a body's first line, or `None`
    /// when nothing is left on it.
    fn first_line(&self, line: Line, at: usize) -> Option<Line> {
        let rest = self.text.get(at..line.end).unwrap_or_default();
        let trimmed = rest.trim_start();
        if trimmed.trim_end().is_empty() {
            return None;
        }
        let at = at + (rest.len() - trimmed.len());
        Some(Line {
            start: at,
            content: at,
            end: line.end,
            next: line.next,
            indent: line.indent + column_of(self.text, line.content, at),
        })
    }

    fn directive(
        &mut self,
        line: Line,
        lines: &mut Lines<'t>,
        ctx: Ctx,
        name: &str,
        arg_at: usize,
    ) -> Result<(), ReadError> {
        let text = self.text;
        let kind = classify(name);
        let mut first = self.first_line(line, arg_at);
        let block = indented(text, lines, None, line.indent);
        let content_ctx = ctx.nested("p", Role::Paragraph);
        if kind == Directive::Version {
            // The version is the first word; the prose follows it.
            first = first.and_then(|f| {
                let t = f.text(text);
                let word = t.find(char::is_whitespace).unwrap_or(t.len());
                self.first_line(f, f.content + word)
            });
        }
        if matches!(kind, Directive::Admonition | Directive::Version) && first.is_some() {
            let content = Body {
                first,
                from: block.from,
                end: block.end,
                indent: if block.from == block.end {
                    first.map_or(0, |f| f.indent)
                } else {
                    block.indent
                },
            };
            return self.body(content, content_ctx);
        }
        let mut inner = block.lines(text);
        // The argument's lines after the first, up to an option or a blank line.
        let mut title: Vec<(usize, usize)> = first
            .map(|f| (f.content, f.content + f.text(text).trim_end().len()))
            .into_iter()
            .collect();
        let takes_args = !matches!(kind, Directive::Admonition | Directive::Version);
        while takes_args
            && let Some(l) = inner
                .peek()
                .filter(|l| !l.blank() && field(l.text(text)).is_none())
        {
            title.push((l.content, l.content + l.text(text).trim_end().len()));
            inner.next();
        }
        // The options: field lines (each with the more indented lines that go on with its
        // value) right after the argument.
        while let Some(option) = inner
            .peek()
            .filter(|l| !l.blank() && field(l.text(text)).is_some())
        {
            inner.next();
            while inner
                .peek()
                .is_some_and(|l| !l.blank() && l.indent > option.indent)
            {
                inner.next();
            }
        }
        if kind == Directive::Titled && !title.is_empty() {
            let runs = inline::runs(text, &title);
            let span = title[0].0..title[title.len() - 1].1;
            self.emit.push(
                "title",
                Role::Heading,
                ctx.level + 1,
                runs,
                span,
                true,
                None,
            );
        }
        let content = rest(&inner, block.end);
        match kind {
            Directive::Code => self.emit.code(content),
            Directive::Skip => {}
            _ => self.body(content, content_ctx)?,
        }
        Ok(())
    }

    /// A list item, field or option whose marker takes `len` bytes of `line`.
    fn item(
        &mut self,
        line: Line,
        len: usize,
        lines: &mut Lines<'t>,
        ctx: Ctx,
    ) -> Result<(), ReadError> {
        let first = self.first_line(line, line.content + len);
        let body = indented(self.text, lines, first, line.indent);
        self.body(body, ctx)
    }

    /// A line block: each `|` line (with the lines that continue it) one block.
    fn line_block(&mut self, line: Line, lines: &mut Lines<'t>, ctx: Ctx) -> Result<(), ReadError> {
        let text = self.text;
        let mut current = Some(line);
        while let Some(l) = current {
            let mut segments = Vec::new();
            if let Some(first) = self.first_line(l, l.content + 1) {
                segments.push((first.content, first.end_trimmed(text)));
            }
            current = None;
            while let Some(next) = lines.peek().filter(|n| !n.blank()) {
                let t = next.text(text);
                if next.indent == line.indent && (t == "|" || t.starts_with("| ")) {
                    lines.next();
                    current = Some(next);
                    break;
                }
                if next.indent <= line.indent {
                    break;
                }
                lines.next();
                segments.push((next.content, next.end_trimmed(text)));
            }
            if !segments.is_empty() {
                let runs = inline::runs(text, &segments);
                let span = segments[0].0..segments[segments.len() - 1].1;
                self.emit
                    .push("line", ctx.role, ctx.level, runs, span, true, None);
            }
        }
        Ok(())
    }

    /// A paragraph from `line`, or a definition list item when one line is followed by an
    /// indented definition. Returns whether it ends with `::`.
    fn paragraph(&mut self, line: Line, lines: &mut Lines<'t>, body: Body, ctx: Ctx) -> bool {
        let text = self.text;
        let mut segments = vec![(line.content, line.end_trimmed(text))];
        let definition = lines
            .peek()
            .is_some_and(|n| !n.blank() && n.indent > body.indent && n.indent > line.indent);
        if definition {
            let t = line.text(text).trim_end();
            // Classifiers (`term : type`) are no part of the term.
            let term = t.find(" : ").map_or(t, |at| &t[..at]);
            let runs = inline::runs(text, &[(line.content, line.content + term.len())]);
            self.emit.push(
                "term",
                ctx.role,
                ctx.level,
                runs,
                line.content..line.content + term.len(),
                true,
                None,
            );
            let def = indented(text, lines, None, body.indent.max(line.indent));
            // A definition's paragraphs are prose like the term's.
            let _ = self.body(def, ctx.nested("def", Role::Paragraph));
            return false;
        }
        while let Some(next) = lines.peek() {
            if next.blank() || next.indent != body.indent {
                break;
            }
            lines.next();
            segments.push((next.content, next.end_trimmed(text)));
        }
        let last = segments.len() - 1;
        let (from, to) = segments[last];
        let t = text.get(from..to).unwrap_or_default();
        let literal = t.ends_with("::");
        let mut marker = None;
        if literal {
            // `text::` shows `text:`, `text ::` and `::` show no colon: the colons (and the
            // spaces before them) are one code an edit keeps, which writes them back after
            // whatever text comes before it.
            let kept = t.trim_end_matches(':');
            let cut = if t.len() - kept.len() == 2 && !kept.ends_with([' ', '\t']) {
                to - 2
            } else {
                from + kept.trim_end().len()
            };
            segments[last].1 = cut;
            marker = Some(cut..to);
        }
        let span = segments[0].0..to;
        let mut runs = if segments.len() == 1 && segments[0].0 == segments[0].1 {
            Vec::new()
        } else {
            inline::runs(text, &segments)
        };
        if runs.is_empty() {
            // `::` alone introduces the literal block and says nothing.
            return literal;
        }
        if let Some(marker) = marker {
            let data = text.get(marker.clone()).unwrap_or_default();
            let id = (crate::model::code_count(&runs) + 1).to_string();
            runs.push(Run::from(
                Code::new(id, CodeKind::Standalone, "literal-marker", data, false).at(marker.start),
            ));
        }
        self.emit
            .push(ctx.kind, ctx.role, ctx.level, runs, span, true, None);
        literal
    }

    /// The cells of a table.
    fn cells(&mut self, cells: Vec<Cell>, ctx: Ctx) {
        for cell in cells {
            let runs = inline::runs(self.text, &cell.segments);
            let (Some(first), Some(last)) = (cell.segments.first(), cell.segments.last()) else {
                continue;
            };
            let span = first.0..last.1;
            if cell.segments.len() == 1 {
                self.emit.push(
                    "cell",
                    Role::TableCell,
                    ctx.level,
                    runs,
                    cell.hole,
                    true,
                    None,
                );
            } else {
                self.emit.push(
                    "cell",
                    Role::TableCell,
                    ctx.level,
                    runs,
                    span,
                    false,
                    Some(CELL_LOCKED),
                );
            }
        }
    }
}

/// The rest of a directive's lines, from where `inner` stands to `end`, as a body measured
/// from its least indented line.
fn rest(inner: &Lines<'_>, end: usize) -> Body {
    let from = inner.offset();
    let indent = inner
        .clone()
        .filter(|l| !l.blank())
        .map(|l| l.indent)
        .min()
        .unwrap_or(0);
    Body {
        first: None,
        from,
        end,
        indent,
    }
}

/// Whether `t` is a line of one punctuation character repeated (a title's adornment).
pub fn is_adornment(t: &str) -> bool {
    let t = t.trim_end();
    let mut chars = t.chars();
    let Some(c) = chars.next() else {
        return false;
    };
    c.is_ascii_punctuation() && chars.all(|d| d == c)
}

/// A bullet list marker at the start of `t`: its length with the spaces after it.
fn bullet(t: &str) -> Option<usize> {
    let c = t.chars().next()?;
    if !matches!(c, '*' | '+' | '-' | '•' | '‣' | '⁃') {
        return None;
    }
    marker_end(t, c.len_utf8())
}

/// The marker of `len` bytes at `t`'s start followed by whitespace or the line's end: the
/// marker's length.
fn marker_end(t: &str, len: usize) -> Option<usize> {
    match t.get(len..)?.chars().next() {
        None => Some(len),
        Some(' ' | '\t') => Some(len),
        _ => None,
    }
}

/// An enumerated list marker (`1.`, `a)`, `(iv)`, `#.`) at the start of `t`: its length.
fn enumerator(t: &str) -> Option<usize> {
    let (open, body) = match t.strip_prefix('(') {
        Some(rest) => (1, rest),
        None => (0, t),
    };
    let len = body
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '#')
        .unwrap_or(body.len());
    let value = body.get(..len)?;
    let valid = value == "#"
        || (!value.is_empty() && value.len() <= 9 && value.bytes().all(|b| b.is_ascii_digit()))
        || (value.len() == 1 && value.bytes().all(|b| b.is_ascii_alphabetic()))
        || (!value.is_empty()
            && (value.bytes().all(|b| b"ivxlcdm".contains(&b))
                || value.bytes().all(|b| b"IVXLCDM".contains(&b))));
    if !valid {
        return None;
    }
    let close = body.get(len..)?.chars().next()?;
    let ok = match open {
        1 => close == ')',
        _ => close == '.' || close == ')',
    };
    if !ok {
        return None;
    }
    marker_end(t, open + len + 1)
}

/// Whether the line after an enumerated-looking `line` continues a paragraph (docutils reads
/// `A. Smith` over two lines as text, not a list).
fn continues_paragraph(text: &str, lines: &Lines<'_>, line: Line) -> bool {
    lines.peek().is_some_and(|n| {
        !n.blank() && n.indent == line.indent && enumerator(n.text(text)).is_none()
    })
}

/// A field marker `:name: ` at the start of `t`: its length.
pub fn field(t: &str) -> Option<usize> {
    let rest = t.strip_prefix(':')?;
    if rest.starts_with([' ', ':', '`']) {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b':' if at > 0
                && bytes[at - 1] != b' '
                && matches!(bytes.get(at + 1), None | Some(b' ' | b'\t')) =>
            {
                return Some(1 + at + 1);
            }
            b'`' => return None,
            _ => at += 1,
        }
    }
    None
}

/// An option list item's options (`-a, --all`) at the start of `t`: their length, up to
/// the two spaces before the description.
fn option(t: &str) -> Option<usize> {
    let bytes = t.as_bytes();
    let starts = match bytes {
        [b'-', b'-', c, ..] | [b'-', c, ..] | [b'/', c, ..] => c.is_ascii_alphanumeric(),
        _ => false,
    };
    if !starts {
        return None;
    }
    match t.find("  ") {
        Some(at) => Some(at),
        None => (!t.trim_end().contains(' ')).then_some(t.len()),
    }
}

/// A footnote or citation label at the start of `rest` (`[1] `, `[#note] `, `[CIT2002] `):
/// where the body starts after it.
fn footnote_label(rest: &str) -> Option<usize> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.bytes().take(130).position(|b| b == b']')?;
    let label = inner.get(..close)?;
    let valid = !label.is_empty()
        && (label == "*"
            || label
                .trim_start_matches('#')
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+')));
    let after = 1 + close + 1;
    (valid && marker_end(rest, after).is_some()).then_some(after)
}

/// A directive's name at the start of `rest` (`code-block:: python`): the name and where
/// its argument starts.
fn directive_name(rest: &str) -> Option<(&str, usize)> {
    let first = rest.chars().next()?;
    if !first.is_alphanumeric() {
        return None;
    }
    let at = rest.find("::")?;
    let name = rest.get(..at)?;
    if name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '+'))
    {
        return None;
    }
    marker_end(rest, at + 2).map(|end| (name, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(bullet("- a"), Some(1));
        assert_eq!(bullet("-a"), None);
        assert_eq!(enumerator("1. a"), Some(2));
        assert_eq!(enumerator("(iv) a"), Some(4));
        assert_eq!(enumerator("#. a"), Some(2));
        assert_eq!(enumerator("1.5 a"), None);
        assert_eq!(enumerator("Mr. Smith"), None);
        assert_eq!(field(":param x: the x"), Some(9));
        assert_eq!(field(":orphan:"), Some(8));
        assert_eq!(field(":func:`f` is"), None);
        assert_eq!(field(": not"), None);
        assert_eq!(option("-a, --all  Show all."), Some(9));
        assert_eq!(option("--verbose"), Some(9));
        assert_eq!(option("-- not an option"), None);
        assert_eq!(footnote_label("[1] Text"), Some(3));
        assert_eq!(footnote_label("[#note] Text"), Some(7));
        assert_eq!(
            directive_name("code-block:: python"),
            Some(("code-block", 12))
        );
        assert_eq!(
            directive_name("py:function:: f(x)"),
            Some(("py:function", 13))
        );
        assert_eq!(directive_name("_target: url"), None);
        assert!(is_adornment("====="));
        assert!(!is_adornment("=-="));
        assert_eq!(classify("py:function"), Directive::Signature);
        assert_eq!(classify("NOTE"), Directive::Admonition);
    }
}
