//! Markdown: CommonMark with GFM tables, strikethrough, task lists and YAML front matter,
//! read through pulldown-cmark's offset iterator.
//!
//! # Blocks and keys
//! Headings, paragraphs, list items (tight or one block per paragraph of a loose item),
//! table cells, block quotes' paragraphs, code blocks, HTML blocks and the front-matter
//! fields `title`, `description`, `summary`, `subtitle` and `excerpt` (top-level, one-line
//! scalars) are blocks. A key is `<section>/<kind>`: the section is the slug of the
//! nearest preceding heading (`top` before the first one, `section` for a heading with no
//! letters or digits), a heading's own key is `<slug>/h`, and the kinds are `p`, `li`,
//! `cell`, `quote`, `code` and `html`. Front-matter fields are `front/<field>`. Repeats
//! are numbered by [`KeyDeduper`] (`install/p#2`), so editing the text of one section never
//! changes another section's keys.
//!
//! # Runs
//! Every text run is a verbatim slice of the file (`Run::text_at`), so findings map back
//! to exact positions. What is not prose in the file is left out of the text or kept as a
//! code:
//! - a backslash escape (`\*`) reads as the escaped character alone, at its own offset;
//!   the backslash is markup, like a list's continuation indent, and the writer puts one
//!   back where an edited text needs it;
//! - an entity or numeric character reference (`&amp;`, `&#169;`) is a standalone code of
//!   class `entity` whose data is the reference as written, so an edit keeps its spelling;
//! - a soft line break is a text run `"\n"` at the newline's offset; the next line's
//!   indentation and quote markers are skipped;
//! - inline code is a standalone code (`code`), emphasis, strong and strikethrough are
//!   open/close codes holding their markers, links are an open code `[` and a close code
//!   with the raw `](url "title")`, images, autolinks, inline HTML, hard breaks (with the
//!   next line's indent) and task markers are standalone codes holding their raw bytes.
//!
//! Code and HTML blocks are not translatable; their text is the raw content between the
//! fences (indentation and quote markers of later lines included), written back as is.
//!
//! # Writing
//! Untouched blocks copy their bytes. An edited block is rendered from its runs: codes
//! write their data, text gets the minimal escaping that keeps its meaning at that
//! position, and a newline becomes the block's line ending plus its continuation prefix
//! (in ATX headings and table cells, a space). Consecutive newlines are written as one,
//! since a blank line would end the block.
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::{
    Capabilities, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError, placeholders,
};
use crate::model::{Block, Code, CodeKind, Document, Edition, KeyDeduper, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "markdown",
    name: "Markdown",
    extensions: &["md", "markdown", "mdx"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: true,
        bilingual: false,
    },
};

/// Front-matter fields read as blocks, when they hold a one-line string.
const FRONT_FIELDS: &[&str] = &["title", "description", "summary", "subtitle", "excerpt"];

pub struct Markdown;

impl Format for Markdown {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        let text = ReadError::decode(bytes)?;
        Ok(read_str(text))
    }

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        // Decoded once: the skeleton holds the bytes `read` accepted as UTF-8.
        let original = parsed.skeleton.text();
        parsed.skeleton.fill(&parsed.document, |hole, edition| {
            let role = parsed
                .document
                .blocks
                .get(hole.block)
                .map_or(Role::Paragraph, |b| b.role);
            Ok(render(original, hole, role, edition))
        })
    }
}

fn options() -> Options {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    options
}

/// A container the reader is inside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Quote,
    List,
    Item,
    Other,
}

struct Reader<'a> {
    text: &'a str,
    events: Vec<(Event<'a>, Range<usize>)>,
    /// For each `Start` event, the index of its `End`.
    ends: Vec<usize>,
    document: Document,
    skeleton: Skeleton,
    keys: KeyDeduper,
    section: String,
    containers: Vec<Container>,
}

fn read_str(text: &str) -> Parsed {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = text.get(bom..).unwrap_or_default();
    let events: Vec<(Event<'_>, Range<usize>)> = Parser::new_ext(body, options())
        .into_offset_iter()
        .map(|(event, range)| (event, range.start + bom..range.end + bom))
        .collect();
    let mut ends = vec![0; events.len()];
    let mut stack = Vec::new();
    for (i, (event, _)) in events.iter().enumerate() {
        match event {
            Event::Start(_) => stack.push(i),
            Event::End(_) => {
                if let Some(start) = stack.pop() {
                    ends[start] = i;
                }
            }
            _ => {}
        }
    }
    let mut reader = Reader {
        text,
        events,
        ends,
        document: Document {
            format: INFO.id.into(),
            blocks: Vec::new(),
        },
        skeleton: Skeleton::over(text),
        keys: KeyDeduper::default(),
        section: "top".into(),
        containers: Vec::new(),
    };
    reader.run();
    // Variables written in prose (`{name}`, `{{x}}`, `%s`, `${x}`, `%{x}`) are codes too, so
    // an edit cannot lose them; HTML is already a code.
    let syntaxes = placeholders::Syntaxes {
        html: false,
        ..placeholders::Syntaxes::ALL
    };
    for block in &mut reader.document.blocks {
        if block.translatable {
            let runs = std::mem::take(&mut block.source.runs);
            block.source.runs = placeholders::split_runs(runs, syntaxes);
        }
    }
    reader.skeleton.refresh(&reader.document);
    Parsed::new(reader.document, reader.skeleton)
}

/// Events that belong to a block's inline content.
fn is_inline(event: &Event<'_>) -> bool {
    match event {
        Event::Text(_)
        | Event::Code(_)
        | Event::InlineHtml(_)
        | Event::InlineMath(_)
        | Event::SoftBreak
        | Event::HardBreak
        | Event::TaskListMarker(_)
        | Event::FootnoteReference(_) => true,
        Event::Start(tag) => matches!(
            tag,
            Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. }
        ),
        _ => false,
    }
}

impl<'a> Reader<'a> {
    /// The index of the `End` matching the `Start` at `i` (or `i` when unbalanced).
    fn end_of(&self, i: usize) -> usize {
        self.ends.get(i).copied().filter(|&e| e > i).unwrap_or(i)
    }

    fn slice(&self, range: Range<usize>) -> &'a str {
        self.text.get(range).unwrap_or_default()
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.events.len() {
            let (event, range) = self.events[i].clone();
            match &event {
                Event::Start(Tag::Paragraph) => {
                    let end = self.end_of(i);
                    let (role, level, kind) = self.paragraph_role();
                    self.leaf(i + 1..end, range, role, level, kind);
                    i = end + 1;
                }
                Event::Start(Tag::Heading { level, .. }) => {
                    let end = self.end_of(i);
                    self.heading(i + 1..end, range, *level as u32);
                    i = end + 1;
                }
                Event::Start(Tag::TableCell) => {
                    let end = self.end_of(i);
                    self.leaf(i + 1..end, range, Role::TableCell, 0, "cell");
                    i = end + 1;
                }
                Event::Start(Tag::CodeBlock(_)) => {
                    let end = self.end_of(i);
                    self.raw_block(i + 1..end, range, Role::Code, "code");
                    i = end + 1;
                }
                Event::Start(Tag::HtmlBlock) => {
                    let end = self.end_of(i);
                    self.raw_block(i + 1..end, range, Role::Html, "html");
                    i = end + 1;
                }
                Event::Start(Tag::MetadataBlock(_)) => {
                    let end = self.end_of(i);
                    for k in i + 1..end {
                        if let Event::Text(_) = self.events[k].0 {
                            self.front_matter(self.events[k].1.clone());
                        }
                    }
                    i = end + 1;
                }
                Event::Start(tag) => {
                    let container = match tag {
                        Tag::BlockQuote(_) => Container::Quote,
                        Tag::List(_) => Container::List,
                        Tag::Item => Container::Item,
                        _ => Container::Other,
                    };
                    self.containers.push(container);
                    i += 1;
                }
                Event::End(_) => {
                    self.containers.pop();
                    i += 1;
                }
                event if is_inline(event) => {
                    // Inline content straight inside a container: a tight list item's text.
                    let mut end = i;
                    while end < self.events.len() && is_inline(&self.events[end].0) {
                        end = if matches!(self.events[end].0, Event::Start(_)) {
                            self.end_of(end) + 1
                        } else {
                            end + 1
                        };
                    }
                    let end = end.min(self.events.len());
                    let (role, level, kind) = self.paragraph_role();
                    let start = range.start;
                    let stop = self
                        .events
                        .get(end.saturating_sub(1))
                        .map_or(start, |(_, r)| r.end);
                    self.leaf(i..end, start..stop, role, level, kind);
                    i = end.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }

    /// Role, level and key kind of a paragraph, from the innermost quote or list item.
    fn paragraph_role(&self) -> (Role, u32, &'static str) {
        let depth = |c: Container| self.containers.iter().filter(|&&x| x == c).count() as u32;
        match self
            .containers
            .iter()
            .rev()
            .find(|c| matches!(c, Container::Quote | Container::Item))
        {
            Some(Container::Item) => (Role::ListItem, depth(Container::List), "li"),
            Some(Container::Quote) => (Role::Quote, depth(Container::Quote), "quote"),
            _ => (Role::Paragraph, 0, "p"),
        }
    }

    fn heading(&mut self, items: Range<usize>, span: Range<usize>, level: u32) {
        let mut words = String::new();
        for k in items.clone() {
            if let Event::Text(t) | Event::Code(t) = &self.events[k].0 {
                words.push_str(t);
            }
        }
        let slug = slug(&words);
        self.section = if slug.is_empty() {
            "section".into()
        } else {
            slug
        };
        let key = format!("{}/h", self.section);
        self.leaf_keyed(items, span, Role::Heading, level, key);
    }

    fn leaf(
        &mut self,
        items: Range<usize>,
        span: Range<usize>,
        role: Role,
        level: u32,
        kind: &str,
    ) {
        let key = format!("{}/{kind}", self.section);
        self.leaf_keyed(items, span, role, level, key);
    }

    /// A block of inline content: its runs, and a hole over the content's bytes.
    fn leaf_keyed(
        &mut self,
        mut items: Range<usize>,
        span: Range<usize>,
        role: Role,
        level: u32,
        key: String,
    ) {
        // A task marker stays in the skeleton: the item's text starts after it.
        if let Some((Event::TaskListMarker(_), _)) = self.events.get(items.start) {
            items.start += 1;
        }
        if items.is_empty() {
            return;
        }
        let start = self.events[items.start].1.start;
        let end = self.events[items.clone()]
            .iter()
            .map(|(_, r)| r.end)
            .max()
            .unwrap_or(start);
        let runs = self.runs(items);
        if runs.is_empty() {
            return;
        }
        self.push(key, role, level, span, start..end, runs);
    }

    fn push(
        &mut self,
        key: String,
        role: Role,
        level: u32,
        span: Range<usize>,
        hole: Range<usize>,
        runs: Vec<Run>,
    ) {
        let key = self.keys.key(&key);
        let mut block = Block::new(key, role, runs);
        block.level = level;
        block.translatable = !matches!(role, Role::Code | Role::Html);
        block.span = span;
        let index = self.document.blocks.len();
        self.skeleton.hole(hole, index, &block.source);
        self.document.blocks.push(block);
    }

    /// Inline events to runs, without recursion (nesting in malformed input can be deep).
    fn runs(&self, items: Range<usize>) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        let mut next_id = 0u32;
        let mut id = || {
            next_id += 1;
            next_id.to_string()
        };
        // Open pairs: (index of the End event, id, close data, close offset).
        let mut open: Vec<(usize, String, &'a str, usize)> = Vec::new();
        // Whether the last run is text that the next verbatim slice may extend.
        let mut mergeable = false;
        let mut k = items.start;
        while k < items.end {
            let range = self.events[k].1.clone();
            let raw = self.slice(range.clone());
            let mut next = k + 1;
            let mut merge_next = false;
            match &self.events[k].0 {
                Event::Text(t) => {
                    if raw == t.as_ref() {
                        match runs.last_mut() {
                            Some(Run::Text { text, src: Some(s) })
                                if mergeable && *s + text.len() == range.start =>
                            {
                                text.push_str(raw);
                            }
                            _ => runs.push(Run::text_at(raw, range.start)),
                        }
                        merge_next = true;
                    } else if raw.starts_with('&') && raw.ends_with(';') {
                        runs.push(standalone(id(), "entity", raw, true, range.start));
                    } else {
                        runs.push(Run::text(t.as_ref()));
                    }
                }
                Event::SoftBreak => {
                    if raw.ends_with('\n') {
                        runs.push(Run::text_at("\n", range.end - 1));
                    } else {
                        runs.push(Run::text("\n"));
                    }
                }
                Event::HardBreak => {
                    let to = self
                        .events
                        .get(k + 1)
                        .filter(|_| k + 1 < items.end)
                        .map_or(range.end, |(_, r)| r.start);
                    let data = self.slice(range.start..to.max(range.end));
                    runs.push(standalone(id(), "break", data, true, range.start));
                }
                Event::Code(_) => runs.push(standalone(id(), "code", raw, false, range.start)),
                Event::InlineHtml(_) | Event::Html(_) => {
                    runs.push(standalone(id(), "html", raw, false, range.start))
                }
                Event::TaskListMarker(_) => {
                    runs.push(standalone(id(), "task", raw, false, range.start))
                }
                Event::Start(tag) => {
                    let end = self.end_of(k);
                    let class = match tag {
                        Tag::Emphasis => "emphasis",
                        Tag::Strong => "strong",
                        Tag::Strikethrough => "strikethrough",
                        Tag::Superscript => "superscript",
                        Tag::Subscript => "subscript",
                        Tag::Link { .. } => "link",
                        Tag::Image { .. } => "image",
                        _ => "other",
                    };
                    let whole = matches!(
                        tag,
                        Tag::Image { .. }
                            | Tag::Link {
                                link_type: LinkType::Autolink | LinkType::Email,
                                ..
                            }
                    );
                    let inner = self
                        .events
                        .get(k + 1)
                        .map(|(_, r)| r.start)
                        .filter(|_| end > k + 1);
                    let inner_end = self
                        .events
                        .get(end.wrapping_sub(1))
                        .map(|(_, r)| r.end)
                        .filter(|_| end > k + 1);
                    let pair = match (inner, inner_end) {
                        (Some(a), Some(b))
                            if !whole && range.start <= a && a <= b && b <= range.end =>
                        {
                            self.text
                                .get(range.start..a)
                                .zip(self.text.get(b..range.end))
                                .map(|(o, c)| (o, c, b))
                        }
                        _ => None,
                    };
                    // A link's or image's target and title, for a reader of the codes.
                    let mut attrs = std::collections::BTreeMap::new();
                    if let Tag::Link {
                        dest_url, title, ..
                    }
                    | Tag::Image {
                        dest_url, title, ..
                    } = tag
                    {
                        let name = if matches!(tag, Tag::Image { .. }) {
                            "src"
                        } else {
                            "href"
                        };
                        attrs.insert(name.to_owned(), dest_url.to_string());
                        if !title.is_empty() {
                            attrs.insert("title".to_owned(), title.to_string());
                        }
                    }
                    match pair {
                        Some((open_data, close_data, close_at)) => {
                            let deletable = class != "link";
                            let code_id = id();
                            runs.push(Run::Code(Box::new(Code {
                                id: code_id.clone(),
                                kind: CodeKind::Open,
                                class: class.into(),
                                data: open_data.into(),
                                deletable,
                                attrs,
                                src: Some(range.start),
                            })));
                            open.push((end, code_id, close_data, close_at));
                        }
                        None => {
                            let deletable = !matches!(class, "link" | "image");
                            let mut code = standalone(id(), class, raw, deletable, range.start);
                            if let Run::Code(c) = &mut code {
                                c.attrs = attrs;
                            }
                            runs.push(code);
                            next = end + 1;
                        }
                    }
                }
                Event::End(end_tag) => {
                    if open.last().is_some_and(|&(end, ..)| end == k)
                        && let Some((_, code_id, data, at)) = open.pop()
                    {
                        runs.push(Run::Code(Box::new(Code {
                            id: code_id,
                            kind: CodeKind::Close,
                            class: close_class(end_tag).into(),
                            data: data.into(),
                            deletable: !matches!(end_tag, TagEnd::Link),
                            attrs: Default::default(),
                            src: Some(at),
                        })));
                    }
                }
                _ => runs.push(standalone(id(), "other", raw, false, range.start)),
            }
            mergeable = merge_next;
            k = next;
        }
        runs
    }

    /// A code or HTML block: one text run of the raw content.
    fn raw_block(&mut self, items: Range<usize>, span: Range<usize>, role: Role, kind: &str) {
        let mut ranges = self.events[items].iter().map(|(_, r)| r.clone());
        let Some(first) = ranges.next() else { return };
        let end = ranges.map(|r| r.end).fold(first.end, usize::max);
        let hole = first.start..end;
        let raw = self.slice(hole.clone());
        if raw.is_empty() {
            return;
        }
        let key = format!("{}/{kind}", self.section);
        self.push(
            key,
            role,
            0,
            span,
            hole.clone(),
            vec![Run::text_at(raw, hole.start)],
        );
    }

    /// One block per one-line string field among [`FRONT_FIELDS`]; the rest is skeleton.
    fn front_matter(&mut self, range: Range<usize>) {
        let yaml = self.slice(range.clone());
        let Ok(serde_yaml::Value::Mapping(map)) = serde_yaml::from_str::<serde_yaml::Value>(yaml)
        else {
            return;
        };
        let mut offset = range.start;
        for line in yaml.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            let Some((name, rest)) = line.split_once(':') else {
                continue;
            };
            if !FRONT_FIELDS.contains(&name) {
                continue;
            }
            let Some(value) = scalar_value(rest) else {
                continue;
            };
            let parsed = map.get(name).and_then(serde_yaml::Value::as_str);
            if parsed != Some(value.text) {
                continue;
            }
            let start = at + name.len() + 1 + value.offset;
            let span = at..at + line.trim_end_matches(['\n', '\r']).len();
            let key = format!("front/{name}");
            self.push(
                key,
                Role::Key,
                0,
                span,
                start..start + value.text.len(),
                vec![Run::text_at(value.text, start)],
            );
        }
    }
}

fn close_class(tag: &TagEnd) -> &'static str {
    match tag {
        TagEnd::Emphasis => "emphasis",
        TagEnd::Strong => "strong",
        TagEnd::Strikethrough => "strikethrough",
        TagEnd::Superscript => "superscript",
        TagEnd::Subscript => "subscript",
        TagEnd::Link => "link",
        TagEnd::Image => "image",
        _ => "other",
    }
}

fn standalone(id: String, class: &str, data: &str, deletable: bool, src: usize) -> Run {
    Run::Code(Box::new(Code {
        id,
        kind: CodeKind::Standalone,
        class: class.into(),
        data: data.into(),
        deletable,
        attrs: Default::default(),
        src: Some(src),
    }))
}

/// A front-matter value as written on its line: the verbatim text and its offset after
/// the colon.
struct Scalar<'a> {
    text: &'a str,
    offset: usize,
}

/// The string a one-line YAML scalar holds, when it is written verbatim (plain, or quoted
/// without escapes); `None` for anything else (block scalars, flow, escapes).
fn scalar_value(rest: &str) -> Option<Scalar<'_>> {
    let line = rest.trim_end_matches(['\n', '\r']);
    let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
    if lead == 0 {
        return None;
    }
    let value = &line[lead..];
    let quote = value.chars().next()?;
    if quote == '"' || quote == '\'' {
        let inner = &value[1..];
        let close = inner.find(quote)?;
        let text = &inner[..close];
        let after = inner[close + 1..].trim_start_matches([' ', '\t']);
        if (quote == '"' && text.contains('\\')) || !(after.is_empty() || after.starts_with('#')) {
            return None;
        }
        return Some(Scalar {
            text,
            offset: lead + 1,
        });
    }
    if "|>[{&*!%@`-?:,#'\"".contains(quote) {
        return None;
    }
    let text = match value.find(" #").or_else(|| value.find("\t#")) {
        Some(comment) => &value[..comment],
        None => value,
    };
    let text = text.trim_end_matches([' ', '\t']);
    Some(Scalar { text, offset: lead })
}

/// A heading's section name: lowercase letters and digits, anything else one `-`.
fn slug(words: &str) -> String {
    let mut slug = String::with_capacity(words.len());
    for c in words.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

/// How an edited block is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Prose whose newlines continue the block on a new line.
    Flow,
    /// Prose on one line (ATX heading, table cell): newlines become spaces.
    Line,
    /// Code and HTML blocks: text written as is.
    Raw,
    /// A front-matter value.
    Yaml,
}

/// Writes an edited edition in the place of `hole` in `text`.
fn render(text: &str, hole: &Hole, role: Role, runs: &[Run]) -> String {
    let start = hole.span.start.min(text.len());
    let line_start = text
        .get(..start)
        .and_then(|t| t.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let before = text.get(line_start..start).unwrap_or_default();
    let mode = match role {
        Role::Code | Role::Html => Mode::Raw,
        Role::Key => Mode::Yaml,
        Role::TableCell => Mode::Line,
        Role::Heading if before.contains('#') => Mode::Line,
        _ => Mode::Flow,
    };
    let mut out = String::new();
    match mode {
        Mode::Raw => {
            super::render_runs(runs, &mut out, &mut |text, out| out.push_str(text));
        }
        Mode::Yaml => yaml_value(&Edition::new(runs.to_vec()).plain_text(), before, &mut out),
        Mode::Flow | Mode::Line => {
            let held = text.get(hole.span.clone()).unwrap_or_default();
            let newline = line_ending(held)
                .or_else(|| line_ending(text))
                .unwrap_or("\n");
            let prefix = continuation(held).unwrap_or_else(|| {
                before
                    .chars()
                    .map(|c| {
                        if matches!(c, '>' | ' ' | '\t') {
                            c
                        } else {
                            ' '
                        }
                    })
                    .collect()
            });
            let escaper = Escaper {
                newline: if mode == Mode::Line {
                    None
                } else {
                    Some((newline, prefix.as_str()))
                },
                table: role == Role::TableCell,
                atx: mode == Mode::Line && role == Role::Heading,
            };
            escaper.write(runs, &mut out);
        }
    }
    out
}

/// The first line ending in `text`.
fn line_ending(text: &str) -> Option<&'static str> {
    let at = text.find(['\n', '\r'])?;
    Some(match &text.as_bytes()[at..] {
        [b'\r', b'\n', ..] => "\r\n",
        [b'\r', ..] => "\r",
        _ => "\n",
    })
}

/// The continuation prefix (indent, quote markers) after the first newline in a block.
fn continuation(held: &str) -> Option<String> {
    let at = held.find(['\n', '\r'])?;
    let rest = held[at..].trim_start_matches(['\r', '\n']);
    let content = rest.trim_start_matches([' ', '\t', '>']);
    Some(rest[..rest.len() - content.len()].to_owned())
}

/// Writes a front-matter value in the quoting style it was read in, quoting a plain value
/// when the new text would not read back as the same string.
fn yaml_value(value: &str, before: &str, out: &mut String) {
    let value = value.replace(['\r', '\n'], " ");
    if before.ends_with('\'') {
        out.push_str(&value.replace('\'', "''"));
        return;
    }
    let quoted = before.ends_with('"');
    let plain_ok = !quoted
        && scalar_value(&format!(" {value}")).is_some_and(|s| s.text == value)
        && serde_yaml::from_str::<serde_yaml::Value>(&value)
            .ok()
            .as_ref()
            .and_then(serde_yaml::Value::as_str)
            == Some(value.as_str());
    if plain_ok {
        out.push_str(&value);
        return;
    }
    if !quoted {
        out.push('"');
    }
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    if !quoted {
        out.push('"');
    }
}

/// Minimal Markdown escaping of edited text.
struct Escaper<'p> {
    /// Line ending and continuation prefix, or `None` when newlines become spaces.
    newline: Option<(&'static str, &'p str)>,
    table: bool,
    atx: bool,
}

impl Escaper<'_> {
    fn write(&self, runs: &[Run], out: &mut String) {
        let mut prev: Option<char> = None;
        let mut line_start = self.newline.is_some();
        for (index, run) in runs.iter().enumerate() {
            let text = match run {
                Run::Code(code) => {
                    out.push_str(&code.data);
                    if let Some(c) = code.data.chars().last() {
                        prev = Some(c);
                        line_start = false;
                    }
                    continue;
                }
                Run::Text { text, .. } => text,
                // Markdown reads no switches; one written here keeps its native bytes.
                Run::Switch(_) => {
                    super::render_runs(std::slice::from_ref(run), out, &mut |t, o| o.push_str(t));
                    continue;
                }
            };
            let following = runs.get(index + 1).and_then(|r| match r {
                Run::Text { text, .. } => text.chars().next(),
                Run::Code(code) => code.data.chars().next(),
                Run::Switch(switch) => switch.head.chars().next(),
            });
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                let next = chars.peek().copied().or(following);
                if c == '\r' || c == '\n' {
                    if c == '\r' && next == Some('\n') {
                        continue;
                    }
                    match self.newline {
                        Some((newline, prefix)) => {
                            if line_start {
                                continue; // a blank line would end the block
                            }
                            let kept = out.trim_end_matches([' ', '\t']).len();
                            out.truncate(kept);
                            out.push_str(newline);
                            out.push_str(prefix);
                            line_start = true;
                            prev = None;
                        }
                        None => {
                            out.push(' ');
                            prev = Some(' ');
                        }
                    }
                    continue;
                }
                if line_start && c.is_ascii_digit() {
                    // `1.` or `1)` at a line start would begin an ordered list.
                    let mut digits = String::from(c);
                    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                        digits.push(d);
                        chars.next();
                    }
                    out.push_str(&digits);
                    if let Some(&p @ ('.' | ')')) = chars.peek() {
                        out.push('\\');
                        out.push(p);
                        chars.next();
                        prev = Some(p);
                    } else {
                        prev = digits.chars().last();
                    }
                    line_start = false;
                    continue;
                }
                if self.needs_escape(c, prev, next, line_start, &mut chars.clone()) {
                    out.push('\\');
                }
                out.push(c);
                prev = Some(c);
                line_start = false;
            }
        }
        if self.newline.is_some() {
            let kept = out.trim_end_matches([' ', '\t']).len();
            out.truncate(kept);
        }
    }

    fn needs_escape(
        &self,
        c: char,
        prev: Option<char>,
        next: Option<char>,
        line_start: bool,
        rest: &mut impl Iterator<Item = char>,
    ) -> bool {
        let space = |x: Option<char>| x.is_none_or(char::is_whitespace);
        let word = |x: Option<char>| x.is_some_and(char::is_alphanumeric);
        match c {
            '\\' => next.is_none_or(|n| n.is_ascii_punctuation() || n == '\n' || n == '\r'),
            '`' | '[' | ']' => true,
            '*' | '~' => {
                line_start
                    || !(prev.is_some_and(char::is_whitespace)
                        && next.is_some_and(char::is_whitespace))
            }
            '_' => line_start || !((word(prev) && word(next)) || (space(prev) && space(next))),
            '<' => next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')),
            '&' => {
                // Escape only what would read as a character reference.
                for (len, n) in rest.by_ref().take(34).enumerate() {
                    if n == ';' {
                        return len > 0;
                    }
                    if !(n.is_ascii_alphanumeric() || n == '#') {
                        return false;
                    }
                }
                false
            }
            '|' => self.table,
            '#' => line_start || (self.atx && space(prev)),
            '>' | '-' | '+' | '=' => line_start,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::path::PathBuf;

    use super::*;
    use crate::text::{CODE_MARK, Prose};

    fn fixtures() -> Vec<(String, Vec<u8>)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats/markdown");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_file() && path.extension().is_some_and(|e| e != "snap") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
        out.sort();
        assert!(out.len() >= 10, "fixtures missing");
        out
    }

    fn read(text: &str) -> Parsed {
        Markdown.read(text.as_bytes()).unwrap()
    }

    fn write(parsed: &Parsed) -> String {
        String::from_utf8(Markdown.write(parsed).unwrap()).unwrap()
    }

    fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
        let block = parsed
            .document
            .block_mut(key)
            .unwrap_or_else(|| panic!("no block {key}"));
        block.source = Edition::new(vec![Run::text(text)]);
    }

    /// Text with codes as `<x id="1"/>` (open), `<x id="/1"/>` (close), `<x id="1/"/>`.
    fn marked(edition: &Edition) -> String {
        let mut out = String::new();
        for run in &edition.runs {
            match run {
                Run::Text { text, .. } => out.push_str(text),
                Run::Code(code) => {
                    let id = match code.kind {
                        CodeKind::Open => code.id.clone(),
                        CodeKind::Close => format!("/{}", code.id),
                        CodeKind::Standalone => format!("{}/", code.id),
                    };
                    let _ = write!(out, "<x id=\"{id}\"/>");
                }
                Run::Switch(_) => out.push_str("<switch/>"),
            }
        }
        out.replace('\r', "\\r").replace('\n', "\\n")
    }

    fn blocks_table(document: &Document) -> String {
        let mut out = String::new();
        for b in &document.blocks {
            let _ = writeln!(
                out,
                "{} | {} | {} | {} | {}",
                b.key,
                b.role.as_str(),
                b.level,
                b.translatable,
                marked(&b.source)
            );
        }
        out
    }

    #[test]
    fn every_fixture_round_trips_byte_for_byte() {
        for (name, bytes) in fixtures() {
            let parsed = Markdown
                .read(&bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
            assert_eq!(Markdown.write(&parsed).unwrap(), bytes, "{name}");
        }
    }

    #[test]
    fn every_text_run_is_a_verbatim_slice_and_holes_do_not_overlap() {
        for (name, bytes) in fixtures() {
            let parsed = Markdown.read(&bytes).unwrap();
            for block in &parsed.document.blocks {
                for run in &block.source.runs {
                    match run {
                        Run::Text {
                            text,
                            src: Some(at),
                        } => {
                            assert_eq!(
                                &bytes[*at..*at + text.len()],
                                text.as_bytes(),
                                "{name} {}",
                                block.key
                            );
                        }
                        Run::Code(code)
                            if let Code {
                                data,
                                src: Some(at),
                                ..
                            } = &**code =>
                        {
                            assert_eq!(
                                &bytes[*at..*at + data.len()],
                                data.as_bytes(),
                                "{name} {}",
                                block.key
                            );
                        }
                        _ => {}
                    }
                }
            }
            let mut holes: Vec<_> = parsed
                .skeleton
                .holes
                .iter()
                .map(|h| h.span.clone())
                .collect();
            holes.sort_by_key(|h| h.start);
            for pair in holes.windows(2) {
                assert!(pair[0].end <= pair[1].start, "{name}: {pair:?}");
            }
        }
    }

    #[test]
    fn rendering_an_unchanged_edition_gives_back_its_bytes_where_nothing_was_escaped() {
        // Re-rendering every block as if edited must read back to the same runs text.
        for (name, bytes) in fixtures() {
            let parsed = Markdown.read(&bytes).unwrap();
            let text = std::str::from_utf8(&bytes).unwrap();
            for hole in &parsed.skeleton.holes {
                let block = &parsed.document.blocks[hole.block];
                let rendered = render(text, hole, block.role, &block.source.runs);
                let held = &text[hole.span.clone()];
                if !held.contains('\\') && !held.contains(['\n', '\r']) && block.role != Role::Key {
                    let plain = block.source.plain_text();
                    if !plain.contains([
                        '*', '_', '`', '[', ']', '<', '#', '>', '-', '+', '=', '~', '&', '|',
                    ]) && !plain.starts_with(|c: char| c.is_ascii_digit())
                    {
                        assert_eq!(rendered, held, "{name} {}", block.key);
                    }
                }
            }
        }
    }

    #[test]
    fn an_edit_changes_only_its_own_bytes() {
        let source = "# Intro\n\nFirst *one*\nline two.\n\nSecond para.\n";
        let mut parsed = read(source);
        set_text(
            &mut parsed,
            "intro/p#2",
            "Changed 2 * 3 and a_b and *this*.",
        );
        assert_eq!(
            write(&parsed),
            "# Intro\n\nFirst *one*\nline two.\n\nChanged 2 * 3 and a_b and \\*this\\*.\n"
        );
    }

    #[test]
    fn edited_text_keeps_codes_and_the_continuation_indent() {
        let source = "- item **bold** text\n  more\n- other\n\n> quoted\n> text\n";
        let mut parsed = read(source);
        let block = parsed.document.block_mut("top/li").unwrap();
        let mut runs = block.source.runs.clone();
        runs[0] = Run::text("Item ");
        block.source = Edition::new(runs);
        let block = parsed.document.block_mut("top/quote").unwrap();
        block.source = Edition::new(vec![Run::text("# new\n1. quoted\n\nagain")]);
        assert_eq!(
            write(&parsed),
            "- Item **bold** text\n  more\n- other\n\n> \\# new\n> 1\\. quoted\n> again\n"
        );
        let again = read(&write(&parsed));
        assert_eq!(
            again
                .document
                .block("top/quote")
                .unwrap()
                .source
                .plain_text(),
            "# new\n1. quoted\nagain"
        );
    }

    #[test]
    fn keys_are_stable_when_another_section_is_edited() {
        let source =
            "Intro text.\n\n## Install\n\nRun it.\n\nThen this.\n\n## Use\n\n- one\n- two\n";
        let parsed = read(source);
        let keys: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.clone())
            .collect();
        assert_eq!(
            keys,
            [
                "top/p",
                "install/h",
                "install/p",
                "install/p#2",
                "use/h",
                "use/li",
                "use/li#2"
            ]
        );
        let mut edited = parsed.clone();
        set_text(
            &mut edited,
            "install/p",
            "Run it now, with *care* and `care`.",
        );
        set_text(&mut edited, "top/p", "New intro\nover two lines.");
        let reread = read(&write(&edited));
        let again: Vec<_> = reread
            .document
            .blocks
            .iter()
            .map(|b| b.key.clone())
            .collect();
        assert_eq!(again, keys);
        assert_eq!(
            reread
                .document
                .block("install/p")
                .unwrap()
                .source
                .plain_text(),
            "Run it now, with *care* and `care`."
        );
    }

    #[test]
    fn code_is_not_prose() {
        let source = "Run `cargo test` now.\n\n```sh\ncargo test\n```\n\n    indented\n";
        let parsed = read(source);
        let p = parsed.document.block("top/p").unwrap();
        let prose = Prose::from_edition(&p.source);
        assert_eq!(prose.text, format!("Run {CODE_MARK} now."));
        assert_eq!(
            prose.file_offset(prose.text.find("now").unwrap()),
            Some(source.find("now").unwrap())
        );
        for key in ["top/code", "top/code#2"] {
            let code = parsed.document.block(key).unwrap();
            assert_eq!(code.role, Role::Code);
            assert!(!code.translatable);
        }
    }

    #[test]
    fn escapes_and_entities_read_as_text_and_codes() {
        let source = "A \\*star\\* and AT&amp;T.\n";
        let parsed = read(source);
        let p = parsed.document.block("top/p").unwrap();
        assert_eq!(marked(&p.source), "A *star* and AT<x id=\"1/\"/>T.");
        assert_eq!(write(&parsed), source);
    }

    #[test]
    fn table_cells_are_blocks() {
        let source = "| Name | Notes |\n|---|---|\n| `x` | a \\| b |\n";
        let mut parsed = read(source);
        let cells: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.as_str(), b.role))
            .collect();
        assert_eq!(
            cells,
            [
                ("top/cell", Role::TableCell),
                ("top/cell#2", Role::TableCell),
                ("top/cell#3", Role::TableCell),
                ("top/cell#4", Role::TableCell)
            ]
        );
        set_text(&mut parsed, "top/cell#4", "c | d\ne");
        assert_eq!(
            write(&parsed),
            "| Name | Notes |\n|---|---|\n| `x` | c \\| d e |\n"
        );
    }

    #[test]
    fn front_matter_title_is_a_block_and_the_rest_is_untouched() {
        let source = "---\ntitle: Hello world # note\ntags: [a, b]\ndescription: \"Quoted: yes\"\nsummary: |\n  block\n---\n\n# Hi\n";
        let mut parsed = read(source);
        let keys: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(keys, ["front/title", "front/description", "hi/h"]);
        assert_eq!(parsed.document.blocks[0].role, Role::Key);
        assert_eq!(parsed.document.blocks[0].source.plain_text(), "Hello world");
        set_text(&mut parsed, "front/title", "Bonjour: monde");
        set_text(&mut parsed, "front/description", "Say \"hi\"");
        let out = write(&parsed);
        assert_eq!(
            out,
            source
                .replace("Hello world", "\"Bonjour: monde\"")
                .replace("Quoted: yes", "Say \\\"hi\\\"")
        );
        let again = read(&out);
        assert_eq!(
            again
                .document
                .block("front/title")
                .unwrap()
                .source
                .plain_text(),
            "Bonjour: monde"
        );
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let source = "# T\r\n\r\nOne\r\ntwo\r\n\r\n- a\r\n";
        let mut parsed = read(source);
        assert_eq!(write(&parsed), source);
        set_text(&mut parsed, "t/p", "Uno\ndos");
        set_text(&mut parsed, "t/li", "b\nc");
        assert_eq!(
            write(&parsed),
            "# T\r\n\r\nUno\r\ndos\r\n\r\n- b\r\n  c\r\n"
        );
    }

    #[test]
    fn list_items_and_quotes_have_roles_and_levels() {
        let source = "- one\n  - two\n\n    para\n> - q\n>\n> quoted\n";
        let parsed = read(source);
        let got: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.as_str(), b.role, b.level))
            .collect();
        assert_eq!(
            got,
            [
                ("top/li", Role::ListItem, 1),
                ("top/li#2", Role::ListItem, 2),
                ("top/li#3", Role::ListItem, 2),
                ("top/li#4", Role::ListItem, 1),
                ("top/quote", Role::Quote, 1),
            ]
        );
    }

    #[test]
    fn malformed_and_truncated_input_never_panics() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for (_, bytes) in fixtures() {
            for cut in [
                1,
                7,
                64,
                333,
                1000,
                bytes.len() / 2,
                bytes.len().saturating_sub(3),
            ] {
                inputs.push(bytes[..cut.min(bytes.len())].to_vec());
            }
            let garbled: Vec<u8> = bytes
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    if i % 17 == 0 {
                        b"*_[`<&\\|>#\n"[i % 11]
                    } else {
                        b
                    }
                })
                .collect();
            inputs.push(garbled);
        }
        for nasty in [
            "[[[[[[[[[[",
            "*****a*****",
            "---\ntitle: \"x\n---\n",
            "\u{feff}---\ntitle: a\n---\n",
            "&;\\",
            "\r\r\n\r",
        ] {
            inputs.push(nasty.as_bytes().to_vec());
        }
        inputs.push("*a ".repeat(5000).into_bytes());
        for input in inputs {
            if let Ok(mut parsed) = Markdown.read(&input) {
                assert_eq!(Markdown.write(&parsed).unwrap(), input);
                for block in &mut parsed.document.blocks {
                    block.source.runs.push(Run::text(" *edited* \\ <a> 1. #"));
                }
                let _ = Markdown.write(&parsed).unwrap();
            }
        }
        assert!(Markdown.read(b"a\0b").is_err());
        assert!(Markdown.read(b"\xff\xfe").is_err());
    }

    #[test]
    fn reads_blocks_of_a_fixture() {
        let bytes = include_bytes!("../../../testdata/formats/markdown/tldr-en-tar.md");
        let parsed = Markdown.read(bytes).unwrap();
        insta::assert_snapshot!(
            "markdown_blocks_tldr_en_tar",
            blocks_table(&parsed.document)
        );
    }

    #[test]
    fn reads_blocks_of_a_sample_with_every_construct() {
        let bytes = include_bytes!("../../../testdata/formats/markdown/kapi-sample.md");
        let parsed = Markdown.read(bytes).unwrap();
        insta::assert_snapshot!(
            "markdown_blocks_kapi_sample",
            blocks_table(&parsed.document)
        );
    }

    #[test]
    fn rendering_every_block_as_edited_reads_back_to_the_same_content() {
        for (name, bytes) in fixtures() {
            let parsed = Markdown.read(&bytes).unwrap();
            let text = std::str::from_utf8(&bytes).unwrap();
            let mut holes: Vec<&Hole> = parsed.skeleton.holes.iter().collect();
            holes.sort_by_key(|h| h.span.start);
            let (mut out, mut at) = (String::new(), 0);
            for hole in holes {
                out.push_str(&text[at..hole.span.start]);
                let block = &parsed.document.blocks[hole.block];
                out.push_str(&render(text, hole, block.role, &block.source.runs));
                at = hole.span.end;
            }
            out.push_str(&text[at..]);
            let again = read(&out);
            let table = |d: &Document| blocks_table(d);
            assert_eq!(table(&again.document), table(&parsed.document), "{name}");
        }
    }

    #[test]
    fn an_edited_atx_heading_stays_one_line() {
        let mut parsed = read("## Old title ##\n\nText.\n");
        set_text(&mut parsed, "old-title/h", "New\ntitle #");
        assert_eq!(write(&parsed), "## New title \\# ##\n\nText.\n");
    }
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Markdown, "markdown") > 0);
    }

    /// The benchmark's Rust book (the shared corpus's `bench/rust-book`, 478 files).
    #[test]
    fn the_rust_book_round_trips() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/data/rust-book");
        let mut stack = vec![root];
        let mut files = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    let bytes = std::fs::read(&path).unwrap_or_default();
                    super::super::conformance::assert_round_trip(
                        &super::Markdown,
                        &path.display().to_string(),
                        &bytes,
                    );
                    files += 1;
                }
            }
        }
        assert!(files > 400, "{files}");
    }
}
