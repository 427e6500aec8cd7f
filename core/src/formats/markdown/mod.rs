//! Markdown: CommonMark with GFM tables, strikethrough, task lists and YAML front matter,
//! read through pulldown-cmark's offset iterator one block at a time (a file's events are
//! never all held in memory).
//!
//! # Blocks and keys
//! Headings, paragraphs, list items (tight or one block per paragraph of a loose item),
//! table cells, block quotes' paragraphs, code blocks, HTML blocks and the front-matter
//! fields `title`, `description`, `summary`, `subtitle` and `excerpt` (top-level, one-line
//! scalars) are blocks.
//!
//! A key is `<section>/<kind>`, by position alone: the section is `s<n>` for the blocks
//! from the n-th heading of the file (counted from 1, every heading counts, in a quote or
//! a list too, and one with no text) up to the next one, and `top` before the first
//! heading; the heading itself is `s<n>/h`. The kinds are `p`, `li`, `cell`, `quote`,
//! `code` and `html`, and repeats in a section are numbered (`s3/p#2`, the section's second
//! paragraph). Front-matter fields are `front/<field>`.
//!
//! Keys come from no text, so an edit of a block, or of the heading above it, keeps every
//! key: a change set sent again after it landed still finds its blocks and is refused
//! `stale` with their current rev and text, and a ref an assistant holds into the section
//! still resolves. What moves keys is structure: a heading added or removed shifts the
//! sections after it (`s4` becomes `s5`), and a block added or removed shifts the numbers
//! of the later blocks of its kind in its section. A ref read before such a change may then
//! name other text; its `if_match` no longer holds, so the edit is refused `stale` (with the
//! text the key names now) instead of landing on the wrong block.
//!
//! Each block under a heading also carries a `label`, its readable name from the heading's
//! words: the slug of the heading (lowercase letters and digits, anything else one `-`;
//! `section` when it has none) and the kind, repeats numbered across the file
//! (`install/p#2`). `kapi inspect` shows it; nothing resolves by it, and it changes when the
//! heading does. Blocks in `top` and `front` need none.
//!
//! A translated file pairs with its source by key ([`crate::model::align`]): the n-th
//! paragraph of the n-th section, whatever its heading says in either language.
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
//!   next line's indent) and task markers are standalone codes holding their raw bytes;
//! - the syntax docs generators read inside prose (heading ids `{/*id*/}` and `{#id}`, JSX
//!   comments and expressions, `:::` containers, Hugo shortcodes, Liquid and mdBook tags,
//!   components and elements that hold code) is one standalone code each, found in the
//!   block's bytes after its runs are read (modules `syntax` and `collapse`);
//! - an escaped `{`, `$` or `%` is a text run of its own, so `\{{x}}` is never read as the
//!   placeholder `{{x}}` and keeps its backslash when the block is edited.
//!
//! Code and HTML blocks are not translatable; their text is the raw content between the
//! fences (indentation and quote markers of later lines included), written back as is.
//!
//! The blocks of kapi's own rules section (between `<!-- kapi:rules -->` and
//! `<!-- /kapi:rules -->`, which `kapi init` and `kapi context sync` write into AGENTS.md and
//! CLAUDE.md) are kapi's: not translatable, so never checked (they quote the words to avoid),
//! and locked, so an edit says where the rules come from. The text around them is the person's.
//!
//! # Writing
//! Untouched blocks copy their bytes. An edited block is rendered from its runs: codes
//! write their data, text gets the minimal escaping that keeps its meaning at that
//! position, and a newline becomes the block's line ending plus its continuation prefix
//! (in ATX headings and table cells, a space). Consecutive newlines are written as one,
//! since a blank line would end the block. Text that would read as syntax is escaped: every
//! `{` (a placeholder, template, JSX expression or attribute list would start there), `:::`
//! at a line's start, `${` and `%{`; text after a code that ends a line (a container's line,
//! a hard break) is at a line's start. A container's marker stays on a line of its own: text
//! an edit puts before it on its line, or after a closing `:::`, goes on its own line.
use std::cell::RefCell;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use unicase::UniCase;

use super::output::Output;
use super::{
    Capabilities, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError,
    inline::placeholders,
};
use crate::model::{Block, Code, CodeKind, Edition, KeyDeduper, Role, Run};

mod collapse;
mod mdx;
mod pieces;
mod plan;
mod syntax;
mod write;
use mdx::{Dialect, is_esm};
pub use pieces::pieces_agree;
use pieces::*;
use plan::plan;
use write::*;

pub const INFO: FormatInfo = FormatInfo {
    id: "markdown",
    name: "Markdown",
    extensions: &["md", "markdown"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: true,
        bilingual: false,
        comments: false,
    },
};

/// MDX (`.mdx`): Markdown with JSX and ESM, read by the same reader in its MDX dialect and
/// written by the same writer (module `mdx`).
pub const MDX_INFO: FormatInfo = FormatInfo {
    id: "mdx",
    name: "MDX",
    extensions: &["mdx"],
    capabilities: INFO.capabilities,
};

/// Front-matter fields read as blocks, when they hold a one-line string.
const FRONT_FIELDS: &[&str] = &["title", "description", "summary", "subtitle", "excerpt"];

pub struct Markdown;

impl Format for Markdown {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write_markdown(parsed)
    }
}

/// MDX: the Markdown reader in its MDX dialect, and the Markdown writer.
pub struct Mdx;

impl Format for Mdx {
    fn info(&self) -> &'static FormatInfo {
        &MDX_INFO
    }

    super::output::text_reads!(decode, read_mdx_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write_markdown(parsed)
    }
}

/// Writes a Markdown or MDX file: untouched blocks copy their bytes, an edited one is rendered.
fn write_markdown(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
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

/// The kinds of block a key names, in the order of [`Reader::counts`].
const KINDS: [&str; 8] = ["h", "p", "li", "cell", "quote", "code", "html", "esm"];
const HEADING: usize = 0;
const PARAGRAPH: usize = 1;
const ITEM: usize = 2;
const CELL: usize = 3;
const QUOTE: usize = 4;
const CODE: usize = 5;
const HTML: usize = 6;
const ESM: usize = 7;

struct Reader<'a, 'e> {
    text: &'a str,
    /// The events of the one block being read (its start, what it holds, its end), reused
    /// from block to block: the file's events are never all held at once.
    events: Vec<(Event<'a>, Range<usize>)>,
    /// For each `Start` event in `events`, the index of its `End`.
    ends: Vec<usize>,
    /// Scratch for [`Reader::index_ends`].
    starts: Vec<usize>,
    /// The codes the events taken would make, counted as they are taken.
    marks: Marks,
    /// Where each block goes as it ends: kept, or handed over ([`Format::read_each`]).
    out: Output<'e>,
    /// Headings read so far: the current section is `s{headings}`, `top` before the first.
    headings: usize,
    /// Blocks of each kind in the current section, numbering repeats (`s3/p#2`).
    counts: [u32; KINDS.len()],
    /// The current section's readable name (its heading's slug), for labels.
    slug: String,
    /// Label bases handed out so far and how often, numbered as [`KeyDeduper`] does.
    labels: rustc_hash::FxHashMap<String, u32>,
    /// Front-matter keys (`front/title`).
    front: KeyDeduper,
    containers: Vec<Container>,
    syntaxes: placeholders::Syntaxes,
    /// Inside kapi's own rules section (between [`KAPI_SECTION`]'s markers): its blocks are
    /// kapi's, never checked and never edited by hand.
    in_kapi_section: bool,
    /// Docs generators' syntax in prose, and what of it is open from block to block.
    syntax: syntax::SiteSyntax,
    /// Markdown or MDX.
    dialect: Dialect,
    /// The text pulldown-cmark parses: `text`, or for MDX its masked copy (`mdx::mask`).
    parsed: &'a str,
}

/// The markers of the rules section `kapi init` and `kapi context sync` write into AGENTS.md
/// and CLAUDE.md (host `rules::START_MARKER`, `END_MARKER`).
const KAPI_SECTION: (&str, &str) = ("<!-- kapi:rules -->", "<!-- /kapi:rules -->");

/// A file this large is read in pieces (see [`plan`]): pulldown-cmark's tree of a window is
/// up to about 25 times its text (a node for each emphasis marker, code span and line), so
/// a window is kept to a few hundred KB whatever the file's size.
const PIECES_FROM: usize = 512 << 10;
/// About how many bytes one piece holds (the planning windows are three times as large).
const PIECE: usize = 128 << 10;

/// A line this long in a file read whole is parsed in chunks of this size first, to refuse
/// a block too dense with codes before pulldown-cmark builds its tree (about 50 times a
/// line of emphasised words).
const LONG_LINE: usize = 32 << 10;

/// The file's text: UTF-8, as Markdown is.
fn decode(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, super::Encoding), ReadError> {
    Ok((ReadError::decode(bytes)?.into(), super::Encoding::Utf8))
}

/// Reads `text` into `skeleton` (whose text is `text`, or is given it after), or hands each
/// block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    Ok(read_in_pieces(
        text,
        (text.len() >= PIECES_FROM).then_some(PIECE),
        skeleton,
        each,
    ))
}

/// [`read_text`] for MDX.
fn read_mdx_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    Ok(read_dialect(
        text,
        (text.len() >= PIECES_FROM).then_some(PIECE),
        skeleton,
        each,
        Dialect::Mdx,
    ))
}

/// Whether a `Start` opens a block read whole: a leaf or the front matter.
fn is_leaf(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::TableCell
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::MetadataBlock(_)
    )
}

impl<'a> Reader<'a, '_> {
    /// The index of the `End` matching the `Start` at `i` (or `i` when unbalanced).
    fn end_of(&self, i: usize) -> usize {
        self.ends.get(i).copied().filter(|&e| e > i).unwrap_or(i)
    }

    fn slice(&self, range: Range<usize>) -> &'a str {
        self.text.get(range).unwrap_or_default()
    }

    /// Whether `range` differs in the text pulldown-cmark parsed (a masked MDX line).
    fn masked(&self, range: Range<usize>) -> bool {
        !std::ptr::eq(self.parsed, self.text)
            && self.parsed.get(range.clone()) != self.text.get(range)
    }

    /// Appends `first` to [`Reader::events`] and, when it is a `Start`, every event up to
    /// and including its `End`.
    fn take_element(
        &mut self,
        first: (Event<'a>, Range<usize>),
        events: &mut impl Iterator<Item = (Event<'a>, Range<usize>)>,
    ) {
        if self.events.is_empty() {
            self.marks = Marks::default();
        }
        let opens = matches!(first.0, Event::Start(_));
        self.take(first);
        if !opens {
            return;
        }
        let mut depth = 1usize;
        for (event, range) in events.by_ref() {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) => depth -= 1,
                _ => {}
            }
            self.take((event, range));
            if depth == 0 {
                break;
            }
        }
    }

    /// Holds one event of the block being taken, unless the block already makes more than
    /// [`super::MAX_CODES`] codes: it is then refused at its start and its events let go.
    fn take(&mut self, event: (Event<'a>, Range<usize>)) {
        if self.marks.see(&event.0, event.1.start) > super::MAX_CODES {
            if !self.out.refused() {
                let at = self.events.first().map_or(event.1.start, |(_, r)| r.start);
                self.out.refuse(ReadError::too_dense(self.text, at));
            }
            return;
        }
        self.events.push(event);
    }

    /// Fills [`Reader::ends`] for the events taken.
    fn index_ends(&mut self) {
        self.ends.clear();
        self.ends.resize(self.events.len(), 0);
        self.starts.clear();
        for (i, (event, _)) in self.events.iter().enumerate() {
            match event {
                Event::Start(_) => self.starts.push(i),
                Event::End(_) => {
                    if let Some(start) = self.starts.pop() {
                        self.ends[start] = i;
                    }
                }
                _ => {}
            }
        }
    }

    fn run(
        &mut self,
        mut events: std::iter::Peekable<impl Iterator<Item = (Event<'a>, Range<usize>)>>,
    ) {
        while let Some((event, range)) = events.next() {
            if self.out.refused() {
                // The read fails with the block refused: the rest is not worth reading.
                return;
            }
            match &event {
                Event::Start(tag) if is_leaf(tag) => {
                    self.events.clear();
                    self.take_element((event, range), &mut events);
                    self.index_ends();
                    self.leaf_block();
                }
                // An inline element that opens a tight list item's text (`- **Lead**: text`)
                // is that text's start, not a container.
                Event::Start(tag) if !is_inline(&event) => {
                    let container = match tag {
                        Tag::BlockQuote(_) => Container::Quote,
                        Tag::List(_) => Container::List,
                        Tag::Item => Container::Item,
                        _ => Container::Other,
                    };
                    self.containers.push(container);
                }
                Event::End(_) => {
                    self.containers.pop();
                }
                inline if is_inline(inline) => {
                    // Inline content straight inside a container: a tight list item's text.
                    let start = range.start;
                    self.events.clear();
                    self.take_element((event, range), &mut events);
                    while let Some(next) = events.next_if(|(e, _)| is_inline(e)) {
                        self.take_element(next, &mut events);
                    }
                    self.index_ends();
                    let (role, level, kind) = self.paragraph_role();
                    let stop = self.events.last().map_or(start, |(_, r)| r.end);
                    self.leaf(0..self.events.len(), start..stop, role, level, kind);
                }
                _ => {}
            }
        }
    }

    /// The block whose `Start` is `events[0]`.
    fn leaf_block(&mut self) {
        let Some((Event::Start(tag), range)) = self.events.first() else {
            return;
        };
        let range = range.clone();
        let end = self.end_of(0);
        let items = 1..end;
        match tag {
            // MDX's ESM: a top-level paragraph of `import`/`export` statements is code.
            Tag::Paragraph
                if self.dialect == Dialect::Mdx
                    && self.containers.is_empty()
                    && is_esm(self.slice(range.clone())) =>
            {
                self.raw_block(items, range, Role::Code, ESM);
            }
            Tag::Paragraph => {
                let (role, level, kind) = self.paragraph_role();
                self.leaf(items, range, role, level, kind);
            }
            Tag::Heading { level, .. } => {
                let level = *level as u32;
                self.heading(items, range, level);
            }
            Tag::TableCell => self.leaf(items, range, Role::TableCell, 0, CELL),
            Tag::CodeBlock(_) => self.raw_block(items, range, Role::Code, CODE),
            Tag::HtmlBlock => self.raw_block(items, range, Role::Html, HTML),
            Tag::MetadataBlock(_) => {
                for k in items {
                    if let Event::Text(_) = self.events[k].0 {
                        self.front_matter(self.events[k].1.clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// Role, level and key kind of a paragraph, from the innermost quote or list item.
    fn paragraph_role(&self) -> (Role, u32, usize) {
        let depth = |c: Container| self.containers.iter().filter(|&&x| x == c).count() as u32;
        match self
            .containers
            .iter()
            .rev()
            .find(|c| matches!(c, Container::Quote | Container::Item))
        {
            Some(Container::Item) => (Role::ListItem, depth(Container::List), ITEM),
            Some(Container::Quote) => (Role::Quote, depth(Container::Quote), QUOTE),
            _ => (Role::Paragraph, 0, PARAGRAPH),
        }
    }

    /// Starts the next section: every heading does, even one with no text (which is no
    /// block), so an edit that empties a heading moves no other section's keys.
    fn heading(&mut self, items: Range<usize>, span: Range<usize>, level: u32) {
        if self.headings == 0 {
            // The labels of the blocks before the first heading were their keys; count
            // them, so a later section slugged `top` numbers its labels after them.
            for (kind, &count) in KINDS.iter().zip(&self.counts) {
                if count > 0 {
                    self.labels.insert(format!("top/{kind}"), count);
                }
            }
        }
        self.headings += 1;
        self.counts = [0; KINDS.len()];
        self.slug_without(items.clone(), &[]);
        self.leaf(items, span, Role::Heading, level, HEADING);
    }

    /// The section's name from the words of its heading's events `items`, leaving out those
    /// in `codes` (a heading id is no word of the title).
    fn slug_without(&mut self, items: Range<usize>, codes: &[Range<usize>]) {
        let mut words = String::new();
        for (event, range) in &self.events[items] {
            let (Event::Text(t) | Event::Code(t)) = event else {
                continue;
            };
            let raw = self.slice(range.clone());
            if matches!(event, Event::Text(_)) && raw == &**t && !codes.is_empty() {
                // The words of a text outside the codes it holds part of.
                let mut at = range.start;
                for code in codes {
                    if code.start < range.end && code.end > at {
                        words.push_str(self.slice(at..code.start.max(at)));
                        at = code.end;
                    }
                }
                words.push_str(self.slice(at.min(range.end)..range.end));
            } else if !codes.iter().any(|c| c.contains(&range.start)) {
                words.push_str(t);
            }
        }
        self.slug = slug(&words);
        if self.slug.is_empty() {
            self.slug.push_str("section");
        }
    }

    /// The key of the next block of `kind` in the current section, and its label when
    /// that reads differently (`s3/p#2`, `install/p#2`).
    fn key(&mut self, kind: usize) -> (String, Option<Box<str>>) {
        use std::fmt::Write as _;
        let name = KINDS[kind];
        self.counts[kind] += 1;
        let count = self.counts[kind];
        let mut key = String::with_capacity(16);
        if self.headings == 0 {
            key.push_str("top");
        } else {
            let _ = write!(key, "s{}", self.headings);
        }
        key.push('/');
        key.push_str(name);
        if count > 1 {
            let _ = write!(key, "#{count}");
        }
        if self.headings == 0 {
            return (key, None);
        }
        let mut base = String::with_capacity(self.slug.len() + 1 + name.len());
        base.push_str(&self.slug);
        base.push('/');
        base.push_str(name);
        let label = match self.labels.get_mut(&base) {
            Some(seen) => {
                *seen += 1;
                let _ = write!(base, "#{seen}");
                base
            }
            None => {
                self.labels.insert(base.clone(), 1);
                base
            }
        };
        // Held exactly: one label per block.
        (key, Some(label.into_boxed_str()))
    }

    fn leaf(
        &mut self,
        mut items: Range<usize>,
        span: Range<usize>,
        role: Role,
        level: u32,
        kind: usize,
    ) {
        // A task marker stays in the skeleton: the item's text starts after it.
        if let Some((Event::TaskListMarker(_), _)) = self.events.get(items.start) {
            items.start += 1;
        }
        if items.is_empty() {
            // No text, no block; the key is not taken, as a re-read would not take it.
            return;
        }
        let start = self.events[items.start].1.start;
        let end = self.events[items.clone()]
            .iter()
            .map(|(_, r)| r.end)
            .max()
            .unwrap_or(start);
        let runs = self.runs(items.clone());
        if runs.is_empty() {
            return;
        }
        let runs = if self.in_kapi_section {
            runs
        } else {
            let heading = role == Role::Heading;
            let spans = self.syntax.find(self.text, start..end, &runs, role);
            let (runs, taken) = collapse::collapse(self.text, runs, spans);
            if heading && !taken.is_empty() {
                self.slug_without(items, &taken);
            }
            runs
        };
        let (key, label) = self.key(kind);
        self.push(key, label, role, level, span, start..end, runs);
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        key: String,
        label: Option<Box<str>>,
        role: Role,
        level: u32,
        span: Range<usize>,
        hole: Range<usize>,
        mut runs: Vec<Run>,
    ) {
        let translatable = !matches!(role, Role::Code | Role::Html) && !self.in_kapi_section;
        if translatable {
            runs = placeholders::split_runs(runs, self.syntaxes);
        }
        // Most blocks hold one run: no spare capacity kept per block.
        runs.shrink_to_fit();
        let mut block = Block::new(key, role, runs);
        block.label = label;
        block.level = level;
        block.translatable = translatable;
        if self.in_kapi_section && role != Role::Html {
            block.locked = Some(
                "kapi's rules section: `kapi context sync` writes it from the project's rules; change those (`kapi context note`, `kapi context review`)".into(),
            );
        }
        block.span = span;
        let index = self.out.index();
        self.out.skeleton.hole(hole, index, &block.source);
        self.out.push(self.text, block);
    }
    /// Inline events to runs, without recursion (nesting in malformed input can be deep).
    fn runs(&self, items: Range<usize>) -> Vec<Run> {
        let mut out = InlineRuns {
            runs: Vec::new(),
            next_id: 0,
            open: Vec::new(),
        };
        // Whether the last run is text that the next verbatim slice may extend.
        let mut mergeable = false;
        let mut k = items.start;
        while k < items.end {
            let range = self.events[k].1.clone();
            let raw = self.slice(range.clone());
            let mut next = k + 1;
            let mut merge_next = false;
            match &self.events[k].0 {
                Event::Text(t) if self.escapes_a_code_start(&out, range.start, t) => {
                    // `\{{x}}`: the escaped `{` is a run of its own, so the rest is no
                    // placeholder; and so it stays after an edit, which escapes it again.
                    out.runs.push(Run::text_at(&t[..1], range.start));
                    merge_next =
                        t.len() > 1 && out.text(&t[1..], &raw[1..], range.start + 1, false);
                }
                // MDX: text pulldown-cmark read in a masked line is the file's own bytes.
                Event::Text(_) if self.masked(range.clone()) => {
                    merge_next = out.text(raw, raw, range.start, mergeable);
                }
                Event::Text(t) => merge_next = out.text(t, raw, range.start, mergeable),
                Event::SoftBreak => {
                    if raw.ends_with('\n') {
                        out.runs.push(Run::text_at("\n", range.end - 1));
                    } else {
                        out.runs.push(Run::text("\n"));
                    }
                }
                Event::HardBreak => {
                    let to = self
                        .events
                        .get(k + 1)
                        .filter(|_| k + 1 < items.end)
                        .map_or(range.end, |(_, r)| r.start);
                    let data = self.slice(range.start..to.max(range.end));
                    out.standalone("break", data, true, range.start);
                }
                Event::Code(_) => out.standalone("code", raw, false, range.start),
                Event::InlineHtml(_) | Event::Html(_) => {
                    out.standalone("html", raw, false, range.start)
                }
                Event::TaskListMarker(_) => out.standalone("task", raw, false, range.start),
                Event::Start(tag) => next = self.inline_start(&mut out, k, tag),
                Event::End(end_tag) => out.close(k, end_tag),
                _ => out.standalone("other", raw, false, range.start),
            }
            mergeable = merge_next;
            k = next;
        }
        out.runs
    }

    /// Whether the verbatim text `t` at `at` starts with an escaped character that starts a
    /// placeholder or a template (`\{`, `\$`, `\%`): a backslash no run holds before it.
    fn escapes_a_code_start(&self, out: &InlineRuns<'_>, at: usize, t: &str) -> bool {
        t.starts_with(['{', '$', '%'])
            && self.text.get(at..at + t.len()) == Some(t)
            && at > 0
            && self.text.as_bytes().get(at - 1) == Some(&b'\\')
            && out.runs.last().is_none_or(|r| match r {
                Run::Text { text, src: Some(s) } => s + text.len() != at,
                Run::Code(c) => c.src.is_none_or(|s| s + c.data.len() != at),
                _ => true,
            })
    }

    /// The code of the inline element whose `Start` is event `k`: an open code (its close
    /// to come at its `End`), or, for an image, an autolink or an element with nothing
    /// inside, one standalone code of the whole. Returns the next event to read.
    fn inline_start(&self, out: &mut InlineRuns<'a>, k: usize, tag: &Tag<'_>) -> usize {
        let range = self.events[k].1.clone();
        let raw = self.slice(range.clone());
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
        let pair = if whole {
            None
        } else {
            self.pair_edges(k, end, &range)
        };
        let attrs = link_attrs(tag);
        match pair {
            Some((open_data, close_data, close_at)) => {
                let deletable = class != "link";
                let code_id = out.id();
                out.runs.push(Run::Code(Box::new(Code {
                    id: code_id.clone(),
                    kind: CodeKind::Open,
                    class: class.into(),
                    data: open_data.into(),
                    deletable,
                    attrs,
                    src: Some(range.start),
                })));
                out.open.push((end, code_id, close_data, close_at));
                k + 1
            }
            None => {
                let deletable = !matches!(class, "link" | "image");
                let mut code = standalone(out.id(), class, raw, deletable, range.start);
                if let Run::Code(c) = &mut code {
                    c.attrs = attrs;
                }
                out.runs.push(code);
                end + 1
            }
        }
    }

    /// The open and close data of the inline element whose `Start` is event `k` and `End`
    /// event `end` (what its span holds before and after its content), and where the close
    /// starts; `None` when it holds no content within its span.
    fn pair_edges(
        &self,
        k: usize,
        end: usize,
        range: &Range<usize>,
    ) -> Option<(&'a str, &'a str, usize)> {
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
        match (inner, inner_end) {
            (Some(a), Some(b)) if range.start <= a && a <= b && b <= range.end => self
                .text
                .get(range.start..a)
                .zip(self.text.get(b..range.end))
                .map(|(o, c)| (o, c, b)),
            _ => None,
        }
    }

    /// A code or HTML block: one text run of the raw content.
    fn raw_block(&mut self, items: Range<usize>, span: Range<usize>, role: Role, kind: usize) {
        let mut ranges = self.events[items].iter().map(|(_, r)| r.clone());
        let Some(first) = ranges.next() else { return };
        let end = ranges.map(|r| r.end).fold(first.end, usize::max);
        let hole = first.start..end;
        let raw = self.slice(hole.clone());
        if raw.is_empty() {
            return;
        }
        if role == Role::Html {
            self.syntax.html_block(raw);
            match raw.trim() {
                m if m == KAPI_SECTION.0 => self.in_kapi_section = true,
                m if m == KAPI_SECTION.1 => self.in_kapi_section = false,
                _ => {}
            }
        }
        let (key, label) = self.key(kind);
        self.push(
            key,
            label,
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
            let key = self.front.key(&format!("front/{name}"));
            self.push(
                key,
                None,
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

/// A link's or image's target and title, for a reader of the codes.
fn link_attrs(tag: &Tag<'_>) -> std::collections::BTreeMap<String, String> {
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
    attrs
}

/// A block's runs as [`Reader::runs`] makes them.
struct InlineRuns<'a> {
    runs: Vec<Run>,
    /// The last code id handed out.
    next_id: u32,
    /// Open pairs: (index of the End event, id, close data, close offset).
    open: Vec<(usize, String, &'a str, usize)>,
}

impl InlineRuns<'_> {
    fn id(&mut self) -> String {
        self.next_id += 1;
        self.next_id.to_string()
    }

    fn standalone(&mut self, class: &str, data: &str, deletable: bool, src: usize) {
        let id = self.id();
        self.runs.push(standalone(id, class, data, deletable, src));
    }

    /// A text event `t` written as `raw` at `at`: a verbatim slice extends the text run
    /// before it when `mergeable`; an entity is a code. Returns whether the next verbatim
    /// slice may extend it.
    fn text(&mut self, t: &str, raw: &str, at: usize, mergeable: bool) -> bool {
        if raw == t {
            match self.runs.last_mut() {
                Some(Run::Text { text, src: Some(s) }) if mergeable && *s + text.len() == at => {
                    text.push_str(raw);
                }
                _ => self.runs.push(Run::text_at(raw, at)),
            }
            true
        } else if raw.starts_with('&') && raw.ends_with(';') {
            self.standalone("entity", raw, true, at);
            false
        } else {
            self.runs.push(Run::text(t));
            false
        }
    }

    /// The `End` event `k`: the close of the innermost open pair when it is that pair's.
    fn close(&mut self, k: usize, end_tag: &TagEnd) {
        if self.open.last().is_some_and(|&(end, ..)| end == k)
            && let Some((_, code_id, data, at)) = self.open.pop()
        {
            self.runs.push(Run::Code(Box::new(Code {
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

#[cfg(test)]
mod tests;

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
