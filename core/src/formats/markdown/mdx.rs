//! MDX (`.mdx`): Markdown with JSX and ESM, read by the Markdown reader in its MDX dialect.
//!
//! What MDX adds, and how kapi reads it:
//! - ESM: a top-level paragraph whose first line starts `import` or `export` and a space (or
//!   `{`, `*`) is JavaScript up to the next blank line (micromark's `mdxjs-esm`): a block of
//!   its own, kind `esm`, role code, never prose, never translated, written back as is.
//! - JSX on lines of its own (`<Tabs>`, `<LinkCard title="…" />`) is an HTML block: tags and
//!   props are markup; the Markdown between an element's tags is prose, as MDX reads it, with
//!   or without a blank line after the opening tag (MDX 2 interleaves). A tag alone on its
//!   line with text on the line after it (or, for a closing tag, before it) would take that
//!   text into its HTML block, as CommonMark reads an HTML block to the next blank line: such
//!   a line is parsed as a thematic break (`***…`, one line, no block), so the text around it
//!   is read as the Markdown it is. A tag whose props run over several lines (`<CommandTabs npm="…` with a
//!   `# comment` line inside a prop) is read as one line, and a prop's `{…}` as a plain
//!   value: pulldown-cmark parses a copy of the file in which each line break inside such a
//!   tag, or inside a `{…}` expression that opens a line, is a space, and the inside of a
//!   tag's `{…}` is `x`s ([`mask`]), so the tag parses as HTML. Offsets are the file's, every block's text is the file's
//!   own bytes, and the writer writes the file's bytes; only what pulldown-cmark sees as lines
//!   differs, so a prop's `# …` is never a heading and its text never prose.
//! - JSX inside prose (inline elements, `{expressions}`, `{/* comments */}`, components that
//!   hold code) is the Markdown reader's own: codes (module `syntax`), read in every `.mdx`
//!   file as in a Markdown file that holds a JSX comment (an element with a `{…}` prop that
//!   CommonMark cannot read is one code).
//! - A string prop people read (`title="…"`, `description="…"`) is not checked: kapi cannot
//!   tell which props a component shows, and a finding must never point into markup.
//!
//! Fenced code blocks are skipped by the mask, so a `<` or `{` in code is code. A tag or
//! expression that does not close within [`MAX_LINES`] lines, or before a blank line, is left
//! as Markdown reads it. The scan reads each byte a bounded number of times (a budget of
//! [`BUDGET_PER_BYTE`] reads a byte of the file; past it, the rest is read as Markdown).

use super::{INFO, MDX_INFO};

/// The most lines one masked tag or expression may span.
pub const MAX_LINES: usize = 64;
/// How many byte reads the scan may make per byte of the file, all tags together.
pub const BUDGET_PER_BYTE: usize = 8;

/// A scan's position and what it may still read.
struct Scan<'b> {
    bytes: &'b [u8],
    budget: usize,
    lines: usize,
    /// The insides of a tag's `{…}` props, read as `x`s (so the tag parses as HTML).
    fills: Vec<(usize, usize)>,
}

/// Which language the reader reads: Markdown, or MDX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Markdown,
    Mdx,
}

impl Dialect {
    pub(super) fn id(self) -> &'static str {
        match self {
            Dialect::Markdown => INFO.id,
            Dialect::Mdx => MDX_INFO.id,
        }
    }
}

/// Whether a paragraph's text is MDX's ESM: its first line starts `import` or `export`, then
/// a space, a tab, `{` or `*`.
pub(super) fn is_esm(text: &str) -> bool {
    ["import", "export"].iter().any(|kw| {
        text.strip_prefix(kw)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| matches!(c, ' ' | '\t' | '{' | '*'))
    })
}

/// The text pulldown-cmark parses for an MDX file: `text` with each line break inside a JSX
/// tag or a `{…}` expression that opens a line (outside fenced code) turned into spaces, byte
/// for byte; `None` when there is none.
pub(crate) fn mask(text: &str) -> Option<String> {
    masked(text, true)
}

/// [`mask`]'s thematic breaks alone (a tag alone on its line beside Markdown), for Markdown
/// written for an MDX compiler: its tags and expressions are otherwise read as CommonMark reads
/// them; `None` when there is none.
pub(crate) fn interleave(text: &str) -> Option<String> {
    masked(text, false)
}

/// The masked copy: with `joins`, every mask; without, the thematic breaks alone.
fn masked(text: &str, joins: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let mut scan = Scan {
        bytes,
        budget: bytes.len().saturating_mul(BUDGET_PER_BYTE),
        lines: 0,
        fills: Vec::new(),
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut fills: Vec<(usize, usize)> = Vec::new();
    // Tags alone on their line beside text, parsed as thematic breaks.
    let mut stars: Vec<(usize, usize)> = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut at = 0;
    while at < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let line = &bytes[at..line_end];
        let indent = line
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        let rest = &line[indent..];
        // Fenced code: from a line of three or more ` or ~ to the next such line.
        let run = |c: u8| rest.iter().take_while(|b| **b == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && rest[run(c)..].iter().all(|b| b.is_ascii_whitespace()) {
                    fence = None;
                }
                at = line_end + 1;
                continue;
            }
            None => {
                for c in [b'`', b'~'] {
                    if run(c) >= 3 {
                        fence = Some((c, run(c)));
                    }
                }
                if fence.is_some() {
                    at = line_end + 1;
                    continue;
                }
            }
        }
        let start = at + indent;
        scan.lines = 0;
        scan.fills.clear();
        let end = match rest {
            [b'<', c, ..] if c.is_ascii_alphabetic() || *c == b'/' || *c == b'>' => {
                scan.tag_end(start)
            }
            [b'{', ..] => scan.expression_end(start),
            _ => None,
        };
        let tag = matches!(rest, [b'<', ..]);
        match end {
            Some(end) if end > line_end || !scan.fills.is_empty() => {
                spans.push((start, end));
                fills.append(&mut scan.fills);
                let next = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
                if tag && alone(bytes, at, indent, end, next) {
                    stars.push((start, end));
                }
                // Go on from the line the span ends on.
                at = next + 1;
            }
            Some(end) if tag && alone(bytes, at, indent, end, line_end) => {
                stars.push((start, end));
                at = line_end + 1;
            }
            _ => at = line_end + 1,
        }
    }
    if !joins {
        spans.clear();
        fills.clear();
    }
    if spans.is_empty() && stars.is_empty() {
        return None;
    }
    let mut out = bytes.to_vec();
    for (start, end) in spans {
        for b in &mut out[start..end] {
            if *b == b'\n' || *b == b'\r' {
                *b = b' ';
            }
        }
    }
    for (start, end) in fills {
        out[start..end].fill(b'x');
    }
    for (start, end) in stars {
        out[start..end].fill(b'*');
    }
    // Only whole bytes became ASCII (a multi-byte character's every byte an `x`): UTF-8.
    String::from_utf8(out).ok()
}

/// Whether the tag from `start` (after `indent` bytes of the line at `line_start`) to `end`
/// is alone on its line (only blanks after it up to `line_end`), indented less than a code
/// block, at least three bytes long (a thematic break's least), and has text beside it: an
/// opening or self-closing tag text on the next line, after a blank line or another tag (a
/// tag inside a paragraph's lines stays the paragraph's), a closing tag text on the line
/// before.
fn alone(bytes: &[u8], line_start: usize, indent: usize, end: usize, line_end: usize) -> bool {
    let start = line_start + indent;
    let after = bytes.get(end..line_end).unwrap_or_default();
    if indent >= 4 || end - start < 3 || !after.iter().all(|b| b.is_ascii_whitespace()) {
        return false;
    }
    // A component or element that holds code (`<TerminalBlock>`, `<pre>`) keeps its content
    // in its block, never prose.
    let name_start = start
        + if bytes.get(start + 1) == Some(&b'/') {
            2
        } else {
            1
        };
    let name_len = bytes
        .get(name_start..end)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        .count();
    let name = std::str::from_utf8(&bytes[name_start..name_start + name_len]).unwrap_or_default();
    if super::syntax::CODE_COMPONENTS.contains(&name)
        || super::syntax::CODE_ELEMENTS.contains(&name.to_ascii_lowercase().as_str())
    {
        return false;
    }
    let blank = |line: &[u8]| line.iter().all(|b| b.is_ascii_whitespace());
    let next_start = (line_end + 1).min(bytes.len());
    let next_end =
        memchr::memchr(b'\n', &bytes[next_start..]).map_or(bytes.len(), |i| next_start + i);
    let next = &bytes[next_start..next_end];
    let prev = if line_start == 0 {
        &[][..]
    } else {
        let prev_end = line_start - 1;
        let prev_start = bytes[..prev_end]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        &bytes[prev_start..prev_end]
    };
    let prev_trimmed = prev.trim_ascii();
    let after_tag = prev_trimmed.first() == Some(&b'<') && prev_trimmed.last() == Some(&b'>');
    if bytes.get(start + 1) == Some(&b'/') {
        return !blank(prev) && !after_tag;
    }
    line_end < bytes.len() && !blank(next) && (blank(prev) || after_tag)
}

impl Scan<'_> {
    /// The byte at `i`, spending one read of the budget; `None` past the end or the budget.
    fn at(&mut self, i: usize) -> Option<u8> {
        self.budget = self.budget.checked_sub(1)?;
        self.bytes.get(i).copied()
    }

    /// Counts a line break at `i`, and refuses a blank line after it or one line too many.
    fn line(&mut self, i: usize) -> Option<()> {
        self.lines += 1;
        let after = self.bytes.get(i + 1..).unwrap_or_default();
        let blank = after
            .iter()
            .take_while(|b| **b != b'\n')
            .take(256)
            .all(|b| b.is_ascii_whitespace());
        (self.lines <= MAX_LINES && !blank).then_some(())
    }

    /// The offset just past the `>` that ends the JSX tag at `start` (`<Name …>`,
    /// `<Name … />`, `</Name>`, `<>`): props' strings and `{…}` are skipped whole.
    fn tag_end(&mut self, start: usize) -> Option<usize> {
        let mut i = start + 1;
        loop {
            match self.at(i)? {
                b'>' => return Some(i + 1),
                // A JSX attribute string has no escapes.
                b'"' | b'\'' => i = self.string_end(i, false)?,
                b'{' => {
                    let end = self.expression_end(i)?;
                    self.fills.push((i + 1, end - 1));
                    i = end;
                }
                b'\n' => {
                    self.line(i)?;
                    i += 1;
                }
                // Not JSX: a comparison or an arrow in prose.
                b'<' => return None,
                _ => i += 1,
            }
        }
    }

    /// The offset just past the quote that closes the string opening at `start` (a
    /// JavaScript string's backslash escapes the next byte, when `escapes`).
    fn string_end(&mut self, start: usize, escapes: bool) -> Option<usize> {
        let quote = self.at(start)?;
        let mut i = start + 1;
        loop {
            match self.at(i)? {
                q if q == quote => return Some(i + 1),
                b'\\' if escapes => i += 2,
                b'\n' => {
                    self.line(i)?;
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }

    /// The offset just past the `}` that balances the `{` at `start`, strings and template
    /// literals skipped.
    fn expression_end(&mut self, start: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = start;
        loop {
            match self.at(i)? {
                b'{' => {
                    depth += 1;
                    i += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    i += 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'"' | b'\'' | b'`' => i = self.string_end(i, true)?,
                b'\n' => {
                    self.line(i)?;
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::formats::markdown::Mdx;
    use crate::model::Role;

    /// Every file of the MDX corpus (Tauri's and Meilisearch's docs) round-trips byte for byte,
    /// takes a one-block edit, and keeps its keys.
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(crate::formats::conformance::run_corpus(&Mdx, "mdx") > 0);
    }

    /// Every block of the MDX corpus takes a `set_content` of its own text as a no-op.
    #[test]
    fn every_block_of_the_corpus_takes_its_own_text_as_a_no_op() {
        let mut tried = 0;
        for path in crate::formats::conformance::fixtures("mdx") {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.display().to_string();
            tried += crate::formats::conformance::assert_own_text_is_a_no_op(&Mdx, &name, &bytes);
        }
        assert!(tried > 1000, "{tried} blocks");
    }

    /// An `.mdx` file is MDX with no JSX comment in it: an inline element whose prop is a
    /// `{…}` is a code there, while a `.md` file without a JSX comment reads it as prose.
    #[test]
    fn an_inline_element_with_an_expression_prop_is_a_code_in_any_mdx_file() {
        let text = b"Use <Kbd keys={[\"Ctrl\", \"C\"]} /> to copy.\n";
        let mdx = Mdx.read(text).unwrap();
        assert_eq!(mdx.document.blocks[0].source.plain_text(), "Use  to copy.");
        let md = crate::formats::markdown::Markdown.read(text).unwrap();
        assert!(md.document.blocks[0].source.plain_text().contains("keys="));
        assert_eq!(Mdx.write(&mdx).unwrap(), text);
    }

    /// In the corpus, no prose block holds ESM, a JSX tag's props or a `#` line inside one,
    /// and ESM is a code block of its own.
    #[test]
    fn the_corpus_reads_no_markup_as_prose() {
        let mut esm = 0;
        for path in crate::formats::conformance::fixtures("mdx") {
            let bytes = std::fs::read(&path).unwrap();
            let parsed = Mdx.read(&bytes).unwrap();
            let name = path.display();
            for block in &parsed.document.blocks {
                let text = block.source.plain_text();
                if block.key.ends_with("/esm") || block.key.contains("/esm#") {
                    esm += 1;
                    assert_eq!(block.role, Role::Code, "{name} {}", block.key);
                    assert!(is_esm(&text), "{name} {}: {text}", block.key);
                    continue;
                }
                if !block.translatable {
                    continue;
                }
                for needle in ["import {", "export const", "npm=\"", "title=\"", "={`"] {
                    assert!(!text.contains(needle), "{name} {}: {text}", block.key);
                }
            }
        }
        assert!(esm >= 40, "{esm} ESM blocks");
    }

    /// MDX 2 interleaves: Markdown right under an opening tag, or right above a closing one,
    /// is prose (the React docs' `<TeamMember>`), and the file writes back as it was; a
    /// component that holds code keeps it.
    #[test]
    fn markdown_right_inside_a_component_is_prose() {
        let text = "# Team\n\n<TeamMember name=\"A\" image={{src: '/a.jpg'}}>\n  Loves whitelist rules.\n</TeamMember>\n\n<Note>\n**Bold** text here.\n</Note>\n\nA line\n<br/>\nstays one paragraph.\n\n<Tabs>\n\nAfter a blank line.\n\n</Tabs>\n\n<TerminalBlock>\nnpm install whitelist-loader\n</TerminalBlock>\n";
        let parsed = Mdx.read(text.as_bytes()).unwrap();
        let prose: Vec<String> = parsed
            .document
            .blocks
            .iter()
            .filter(|b| b.translatable)
            .map(|b| b.source.plain_text())
            .collect();
        assert_eq!(
            prose,
            [
                "Team",
                "Loves whitelist rules.",
                "Bold text here.",
                "A line\n\nstays one paragraph.",
                "After a blank line."
            ],
            "{:#?}",
            parsed.document.blocks
        );
        assert_eq!(Mdx.write(&parsed).unwrap(), text.as_bytes());
        let masked = mask(text).unwrap_or_default();
        assert_eq!(masked.len(), text.len());
        assert!(masked.contains("\n*************\n\n"), "{masked}");
    }

    #[test]
    fn esm_is_import_or_export_and_a_space() {
        assert!(is_esm(
            "import { Tabs } from '@astrojs/starlight/components';"
        ));
        assert!(is_esm("export const meta = {\n  title: 'x',\n}"));
        assert!(is_esm("export * from './a'"));
        assert!(!is_esm("important things first."));
        assert!(!is_esm("Export the file."));
        assert!(!is_esm("exports are listed below."));
    }

    /// A tag whose props run over lines, and an expression that opens a line, are read as one
    /// line; code, short tags and a tag that never closes are left alone.
    #[test]
    fn masks_line_breaks_inside_multi_line_tags_and_expressions() {
        let props = "<CommandTabs npm={`a b`} x=\"1\" />\n";
        assert_eq!(
            mask(props).unwrap(),
            "<CommandTabs npm={xxxxx} x=\"1\" />\n"
        );
        let text = "Intro.\n\n<CommandTabs\n  npm=\"npm run build\n# bundle it\"\n/>\n\nAfter.\n";
        let masked = mask(text).unwrap();
        assert_eq!(masked.len(), text.len());
        assert_eq!(
            masked,
            "Intro.\n\n<CommandTabs   npm=\"npm run build # bundle it\" />\n\nAfter.\n"
        );
        let expr = "{/* a\n# not a heading\n*/}\n\nText.\n";
        assert_eq!(mask(expr).unwrap(), "{/* a # not a heading */}\n\nText.\n");
        assert_eq!(mask("<Tabs>\n\nText.\n\n</Tabs>\n"), None);
        let code = "```jsx\n<Foo\n  bar=\"1\"\n/>\n```\n";
        assert_eq!(mask(code), None);
        assert_eq!(mask("<Foo\n\nbar />\n"), None, "a blank line ends it");
        assert_eq!(mask("a <b and\nc > d\n"), None, "not at a line's start");
        let crlf = "<A\r\n  b=\"c\"\r\n/>\r\n";
        assert_eq!(mask(crlf).unwrap(), "<A    b=\"c\"  />\r\n");
    }

    /// Hostile input ends in bounded time and never panics.
    #[test]
    fn hostile_input_is_bounded() {
        let open = "<A\n".repeat(10_000);
        let _ = mask(&open);
        let braces = "{".repeat(50_000);
        assert_eq!(mask(&braces), None);
        let quotes = format!("<A b=\"{}", "x\n".repeat(MAX_LINES + 5));
        assert_eq!(mask(&quotes), None);
        let _ = mask("<\u{e9}\n\u{e9}>\n");
    }
}
