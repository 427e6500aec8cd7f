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
//!   next line's indent) and task markers are standalone codes holding their raw bytes.
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
//! since a blank line would end the block.
use std::cell::RefCell;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use unicase::UniCase;

use super::output::Output;
use super::{
    Capabilities, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError, placeholders,
};
use crate::model::{Block, Code, CodeKind, Edition, KeyDeduper, Role, Run};

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

    super::output::text_reads!(decode, read_text);

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

/// The kinds of block a key names, in the order of [`Reader::counts`].
const KINDS: [&str; 7] = ["h", "p", "li", "cell", "quote", "code", "html"];
const HEADING: usize = 0;
const PARAGRAPH: usize = 1;
const ITEM: usize = 2;
const CELL: usize = 3;
const QUOTE: usize = 4;
const CODE: usize = 5;
const HTML: usize = 6;

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

/// Reads `text` whole, or, given a piece size, in pieces when [`plan`] finds where.
fn read_in_pieces<'e>(
    text: &str,
    piece: Option<usize>,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Output<'e> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = text.get(bom..).unwrap_or_default();
    // Read whole, a long line is checked for a block too dense to read first (a plan
    // checks the lines that stretch its windows).
    let dense = || {
        let long = body.split('\n').any(|line| line.len() > LONG_LINE);
        long.then(|| dense_block(body, 0..body.len(), LONG_LINE, last_metadata_close(body)))
            .flatten()
    };
    let planned = match piece {
        Some(piece) => plan(body, piece).map(Some),
        None => dense().map_or(Ok(None), Err),
    };
    let plan = match planned {
        Ok(plan) => plan,
        Err(at) => {
            let mut out = Output::new(INFO.id, skeleton, each);
            out.refuse(ReadError::too_dense(text, at + bom));
            return out;
        }
    };
    let (cuts, heads, blocks, defs) =
        plan.map_or_else(Default::default, |p| (p.cuts, p.heads, p.blocks, p.defs));
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for cut in cuts.into_iter().chain([body.len()]) {
        pieces.push(from..cut);
        from = cut;
    }
    // One parser at a time: the next piece's is built when the last one's events run out.
    let scratch = RefCell::new(Scratch::default());
    let (defs, heads, scratch) = (&defs, &heads, &scratch);
    let events = pieces.into_iter().flat_map(move |piece| {
        let at = piece.start + bom;
        let head = heads.get(&piece.start).cloned();
        piece_parser(body, piece, head, defs, scratch)
            .map(move |(event, range)| (event, range.start + at..range.end + at))
    });
    let mut reader = Reader {
        text,
        events: Vec::new(),
        ends: Vec::new(),
        starts: Vec::new(),
        marks: Marks::default(),
        out: Output::new(INFO.id, skeleton, each),
        headings: 0,
        counts: [0; KINDS.len()],
        slug: "top".into(),
        labels: Default::default(),
        front: KeyDeduper::default(),
        containers: Vec::new(),
        in_kapi_section: false,
        // Variables written in prose (`{name}`, `{{x}}`, `%s`, `${x}`, `%{x}`) are codes
        // too, so an edit cannot lose them; HTML is already a code.
        syntaxes: placeholders::Syntaxes {
            html: false,
            ..placeholders::Syntaxes::ALL
        },
    };
    reader.out.reserve(blocks);
    reader.run(events.peekable());
    reader.out
}

/// Whether `text` read in the smallest pieces [`plan`] cuts reads as it does whole: what the
/// fuzz target holds the windowed plan to (a fuzzed input never reaches [`PIECES_FROM`]).
#[doc(hidden)]
pub fn pieces_agree(text: &str) -> bool {
    let whole = read_in_pieces(text, None, Skeleton::over(text), None).finish();
    let pieces = read_in_pieces(text, Some(1), Skeleton::over(text), None).finish();
    match (whole, pieces) {
        (Ok(whole), Ok(pieces)) => {
            whole.document == pieces.document && whole.skeleton == pieces.skeleton
        }
        (Err(whole), Err(pieces)) => whole == pieces,
        _ => false,
    }
}

/// Where a large file is read in pieces, and about how many blocks it holds.
struct Plan {
    /// Offsets in the body (after a BOM) where a piece starts.
    cuts: Vec<usize>,
    /// The cuts inside a table, each with the table's head: its header and delimiter lines,
    /// which the piece's parser reads first (see [`piece_parser`]).
    heads: Heads,
    blocks: usize,
    /// The file's link reference definitions, for the references a piece makes to one in
    /// another piece.
    defs: Defs,
}

/// Link reference definitions by label (matched as pulldown-cmark matches them: Unicode
/// case folded): each one's destination and title.
type Defs = rustc_hash::FxHashMap<UniCase<String>, (CowStr<'static>, CowStr<'static>)>;

/// Where a piece that starts inside a table finds the table's head, by the piece's start.
type Heads = rustc_hash::FxHashMap<usize, Range<usize>>;

/// The events of `body[piece]` (offsets in the piece), a reference to a definition in
/// another piece resolved from `defs` as the whole file's read resolves it. A piece that
/// starts inside a table is parsed after the table's head (`body[head]`), whose events
/// are left out: its rows read as the rows of the one table did.
fn piece_parser<'b>(
    body: &'b str,
    piece: Range<usize>,
    head: Option<Range<usize>>,
    defs: &'b Defs,
    scratch: &'b RefCell<Scratch>,
) -> Box<dyn Iterator<Item = (Event<'b>, Range<usize>)> + 'b> {
    let text = body.get(piece).unwrap_or_default();
    let Some(head) = head else {
        return Box::new(parser(text, defs));
    };
    let mut held = scratch.borrow_mut();
    let Scratch { joined, events } = &mut *held;
    headed(joined, body, head, text);
    let skip = joined.len() - text.len();
    // The events borrow the joined text, which the next such piece overwrites: they are
    // owned.
    events.clear();
    events.extend(
        parser(joined, defs)
            .filter(|(_, range)| range.start >= skip)
            .map(|(event, range)| (event.into_static(), range.start - skip..range.end - skip)),
    );
    drop(held);
    Box::new(Held { scratch, at: 0 })
}

/// What the pieces inside a table are parsed with, one piece at a time: its buffers are
/// used again by the next (allocated afresh, each piece's cost the kernel pages it maps).
#[derive(Default)]
struct Scratch {
    /// The table's head and the piece's text.
    joined: String,
    /// The piece's events, owned.
    events: Vec<(Event<'static>, Range<usize>)>,
}

/// The events a piece inside a table left in [`Scratch`], taken in turn.
struct Held<'b> {
    scratch: &'b RefCell<Scratch>,
    at: usize,
}

impl<'b> Iterator for Held<'b> {
    type Item = (Event<'b>, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let mut held = self.scratch.borrow_mut();
        let event = held.events.get_mut(self.at)?;
        self.at += 1;
        Some(std::mem::replace(event, (Event::SoftBreak, 0..0)))
    }
}

/// Writes into `joined` (cleared first) a table's head (`body[head]`) and then `text`, which
/// goes on inside the table.
fn headed(joined: &mut String, body: &str, head: Range<usize>, text: &str) {
    let head = body.get(head).unwrap_or_default();
    joined.clear();
    joined.reserve(head.len() + text.len());
    joined.push_str(head);
    joined.push_str(text);
}

/// The events of `text` with its offsets, a reference to a label it does not define
/// resolved from `defs`.
fn parser<'t>(
    text: &'t str,
    defs: &'t Defs,
) -> pulldown_cmark::OffsetIter<'t, impl pulldown_cmark::BrokenLinkCallback<'t>> {
    let elsewhere = move |link: BrokenLink<'t>| -> Option<(CowStr<'t>, CowStr<'t>)> {
        if defs.is_empty() {
            return None;
        }
        let (dest, title) = defs.get(&UniCase::new(link.reference.into_string()))?;
        Some((dest.clone(), title.clone()))
    };
    Parser::new_with_broken_link_callback(text, options(), Some(elsewhere)).into_offset_iter()
}

/// How much of pulldown-cmark's link reference budget a piece may spend: a parser expands
/// references up to the length of its text (at least 100,000 bytes of destinations and
/// titles), then reads the rest as text. Pieces read as the whole file only while no
/// parser, of a piece or of the file, runs out; so a file whose references spend more than
/// half of either budget is read whole.
const PIECE_REFERENCE_BUDGET: usize = 50_000;

/// What the references of `body[piece]` spend of pulldown-cmark's expansion budget (and
/// those of the table head it is read after: the piece's parser spends them again).
fn reference_spend(
    body: &str,
    piece: Range<usize>,
    head: Option<Range<usize>>,
    defs: &Defs,
) -> usize {
    let text = body.get(piece).unwrap_or_default();
    let mut joined = String::new();
    if let Some(head) = head {
        headed(&mut joined, body, head, text);
    }
    parser(if joined.is_empty() { text } else { &joined }, defs)
        .filter_map(|(event, _)| match event {
            Event::Start(
                Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    ..
                }
                | Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    ..
                },
            ) if is_reference(link_type) => Some(dest_url.len() + title.len()),
            _ => None,
        })
        .sum()
}

/// Whether a link of this type was resolved from a reference definition.
fn is_reference(link_type: LinkType) -> bool {
    matches!(
        link_type,
        LinkType::Reference
            | LinkType::Collapsed
            | LinkType::Shortcut
            | LinkType::ReferenceUnknown
            | LinkType::CollapsedUnknown
            | LinkType::ShortcutUnknown
    )
}

/// pulldown-cmark builds a tree of the whole file before its first event, several times
/// the file's size, and the document read from it is as large again: reading a large
/// file in pieces keeps one piece's tree at a time. A first pass finds the cuts, each
/// before a top-level paragraph or heading that follows a blank line, at least `piece`
/// bytes apart: there no block is open (lists, quotes and fences have ended) and nothing
/// before bears on how what follows reads, so each piece reads as it would in the whole
/// file. A file that is one long list is cut too, before a top-level item that is not the
/// list's first, when the list is tight from its start to its end (see [`ListCut`]): its
/// items read the same as the items of two lists; a loose list, a top-level block quote and
/// a top-level table are cut too ([`ListCut::loose_cut`], [`quote_cut`], [`Table`]). Link
/// reference definitions reach across the file: the pass gathers them, and a piece's
/// reference to one in another piece is resolved from them (see [`piece_parser`]), as the
/// whole file's read resolves it. The file is read whole when a label is defined twice (the
/// first definition wins, wherever the reference is) or its references spend much of
/// pulldown-cmark's expansion budget ([`PIECE_REFERENCE_BUDGET`]). The pass also counts the
/// blocks, so the document's vectors are allocated once, at their size. A block that holds
/// more than [`super::MAX_CODES`] codes is found here, before a window grows around it: its
/// start is the error, and the file is refused.
fn plan(body: &str, piece: usize) -> Result<Plan, usize> {
    let piece = piece.max(1);
    let (mut cuts, mut blocks, mut from) = (Vec::new(), FRONT_FIELDS.len(), 0);
    // A file the windows cannot cut (below) is still counted to its end. pulldown-cmark ends
    // a line at a bare `\r`, but scans a fence's info string and an indented code block's
    // lines to the next `\n`, so what a bare `\r` ends may reach past a cut: such a file
    // (old Mac line ends) is read whole.
    let b = body.as_bytes();
    let mut whole = b
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'));
    // pulldown-cmark opens a metadata block at any `---` line followed by text (in a quote or
    // a list item too)
    // when a `---` or `...` line closes it further on, however far: where the last such line
    // starts, to tell a window whose end hides a closing line.
    let last_closing = last_metadata_close(body);
    // The file is planned a window at a time, from the last cut: the parser's tree is a
    // window's, never the file's. A window ends at a line's end; a cut is taken only where
    // what the window leaves out cannot bear on it (a block's start depends on the lines
    // before it alone), so at least half a piece before the window's end. A window with no
    // cut grows until it finds one or reaches the end. No cut at all when a `---` line in a
    // window may open a metadata block that a line past the window closes.
    let mut span = 3 * piece;
    let mut lists = ListCut::default();
    let mut defs = Defs::default();
    let mut heads = Heads::default();
    // The empty cells of the table the window starts inside, before the window.
    let mut filled = 0;
    while from < body.len() {
        let end = line_end(body, from.saturating_add(span));
        // A long line stretches the window, and its tree with it: a block too dense with
        // codes to read is refused before the window is parsed whole.
        // A window inside a table is not counted: its rows would read as one paragraph.
        if end - from > span + piece
            && !heads.contains_key(&from)
            && let Some(at) = dense_block(body, from..end, piece, last_closing)
        {
            return Err(at);
        }
        let last = end == body.len();
        let window = body.get(from..end).unwrap_or_default();
        // A window that starts inside a table is read after the table's head, whose events
        // (those before `skip`) were planned where the table starts.
        let head = heads.get(&from).cloned();
        let mut joined = String::new();
        if let Some(head) = head.clone() {
            headed(&mut joined, body, head, window);
        }
        let text = if joined.is_empty() { window } else { &joined };
        let skip = text.len() - window.len();
        let mut events = Parser::new_ext(text, options()).into_offset_iter();
        // The window's definitions; those before its cut are the file's (the next window
        // reads the rest).
        let found: Vec<_> = events
            .reference_definitions()
            .iter()
            .filter(|(_, def)| def.span.start >= skip)
            .map(|(label, def)| {
                let title = def.title.as_deref().unwrap_or_default();
                let owned = |s: &str| CowStr::from(s.to_owned());
                (
                    from + def.span.start - skip,
                    label.to_owned(),
                    owned(&def.dest),
                    owned(title),
                )
            })
            .collect();
        // The cut is the last place that may start a piece, up to two pieces past the first
        // (so a piece is about two and a half pieces long and each byte is parsed about
        // 1.2 times here, not three), with the blocks before it.
        let (mut depth, mut next, mut first, mut counted) = (0usize, None, None, 0);
        // The top-level block open is a block quote.
        let mut top_quote = false;
        // The top-level table open, and where a cut inside it leaves the next window.
        let mut table = head.map(|head| Table {
            line: head.start,
            head: Some(head),
            filled,
            continued: true,
        });
        let mut next_head = None;
        // `---` lines that may open a metadata block closed past the window: a thematic break
        // or a paragraph's start here (`---` and a form feed is no break).
        let mut metadata = Vec::new();
        lists.open = false;
        let closes_past = last_closing.is_some_and(|c| c >= end);
        // The codes of the block being planned, and where it starts: a block past
        // MAX_CODES is refused here, before a window grows around it.
        let mut marks = Marks::default();
        for (event, range) in events.by_ref() {
            if range.start < skip {
                match event {
                    Event::Start(_) => depth += 1,
                    Event::End(_) => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if depth == 0 {
                    table = None;
                }
                continue;
            }
            let at = from + range.start - skip;
            if is_block_edge(&event) {
                marks = Marks::after(&event, at);
            } else if marks.see(&event, at) > super::MAX_CODES {
                return Err(marks.start(at));
            }
            if closes_past
                && matches!(event, Event::Start(_) | Event::Rule)
                && opens_metadata(body, at)
            {
                metadata.push(at);
            }
            match event {
                Event::Start(tag) => {
                    if first.is_some_and(|first: usize| at > first.saturating_add(2 * piece)) {
                        break;
                    }
                    let far = at >= from + piece && (last || at + piece / 2 < end);
                    let block = depth == 0
                        && matches!(tag, Tag::Paragraph | Tag::Heading { .. })
                        && after_blank_line(body, at);
                    let item = depth == 1 && matches!(tag, Tag::Item);
                    if depth == 0 {
                        top_quote = matches!(tag, Tag::BlockQuote(_));
                        table = matches!(tag, Tag::Table(_)).then(|| Table {
                            line: line_start(body, at),
                            head: None,
                            filled: 0,
                            continued: false,
                        });
                    }
                    // A row of a top-level table but its first: the table is cut where the
                    // row's line starts.
                    if depth == 1
                        && matches!(tag, Tag::TableRow)
                        && let Some(table) = table.as_mut()
                    {
                        let line = line_start(body, at);
                        match &table.head {
                            None => table.head = Some(table.line..line),
                            Some(head)
                                if far
                                    && line >= from + piece
                                    && next.is_none_or(|(n, _)| n < line)
                                    && body.as_bytes()[line..at]
                                        .iter()
                                        .all(|&b| b == b' ' || b == b'\t') =>
                            {
                                first.get_or_insert(line);
                                next = Some((line, counted));
                                next_head = Some((head.clone(), table.filled));
                            }
                            Some(_) => {}
                        }
                    }
                    if depth == 2
                        && matches!(tag, Tag::TableCell)
                        && range.is_empty()
                        && let Some(table) = table.as_mut()
                    {
                        table.filled += 1;
                        whole |= table.continued && table.filled >= TABLE_FILLED;
                    }
                    // A paragraph of a top-level quote after one of its blank lines: the
                    // quote is cut where its line starts.
                    if far
                        && top_quote
                        && depth == 1
                        && matches!(tag, Tag::Paragraph)
                        && let Some(line) = quote_cut(body, at)
                        && next.is_none_or(|(n, _)| n < line)
                        && line >= from + piece
                    {
                        first.get_or_insert(line);
                        next = Some((line, counted));
                        next_head = None;
                    }
                    if far && (block || item && lists.may_cut(body, at)) {
                        first.get_or_insert(at);
                        next = Some((at, counted));
                        next_head = None;
                    }
                    // A loose list's cut is known at the item after it.
                    if item && let Some((cut, before)) = lists.loose_cut(body, at, counted) {
                        let far = cut >= from + piece && (last || cut + piece / 2 < end);
                        if far && next.is_none_or(|(n, _)| n < cut) {
                            first.get_or_insert(cut);
                            next = Some((cut, before));
                            next_head = None;
                        }
                    }
                    lists.start(&tag, depth, at);
                    // A tight list item's text is a block without a paragraph of its own.
                    if matches!(tag, Tag::Item) || is_leaf(&tag) {
                        counted += 1;
                    }
                    depth += 1;
                }
                Event::End(_) => {
                    if depth == 3 {
                        // A block of a top-level item ends (a list's: the top is one).
                        lists.child_end = from + range.end - skip;
                    }
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        lists.open = false;
                        table = None;
                    }
                }
                _ => {}
            }
        }
        // Only what lies before the cut is this window's; the next window sees the rest.
        whole |= metadata
            .iter()
            .any(|&rule| next.is_none_or(|(cut, _)| rule < cut));
        if next.is_some() || last {
            for (at, label, dest, title) in found {
                if next.is_none_or(|(cut, _)| at < cut) {
                    // A label defined twice: the first definition is every reference's.
                    whole |= defs.insert(UniCase::new(label), (dest, title)).is_some();
                }
            }
        }
        match next {
            Some((cut, counted)) => {
                blocks += counted;
                cuts.push(cut);
                if let Some((head, before)) = next_head {
                    heads.insert(cut, head);
                    filled = before;
                }
                from = cut;
                span = 3 * piece;
            }
            None if last => {
                blocks += counted;
                break;
            }
            None => span = span.saturating_mul(2),
        }
    }
    if !whole && !defs.is_empty() && !cuts.is_empty() {
        let budget = body.len().max(100_000) / 2;
        let (mut spent, mut from) = (0usize, 0);
        for cut in cuts.iter().copied().chain([body.len()]) {
            let piece = reference_spend(body, from..cut, heads.get(&from).cloned(), &defs);
            spent = spent.saturating_add(piece);
            if piece >= PIECE_REFERENCE_BUDGET || spent >= budget {
                whole = true;
                break;
            }
            from = cut;
        }
    }
    if whole {
        // Read whole, the file resolves its own references: what a window took for a
        // definition (inside what the whole read finds is a metadata block) must not.
        cuts.clear();
        heads.clear();
        defs.clear();
    }
    Ok(Plan {
        cuts,
        heads,
        blocks,
        defs,
    })
}

/// The top-level list a window is in, for cuts between its items. A cut splits the list in
/// two, which read as the one did only if the list is tight throughout: a blank line
/// anywhere in it (between items, or between an item's children) makes every item's text a
/// paragraph (another span), whatever the items hold. So a cut needs an item before it in
/// the window's part of the list and no blank line from the list's start to its end: none
/// from the start to the cut, and the first after it past the list's end
/// ([`tight_to_its_end`]). A list a window starts inside began at an earlier cut, which met
/// the same test, so its start here stands for the list's.
///
/// A loose list is cut too, where both its parts stay loose: before an item whose list has
/// a blank line between the two items before it and between it and the next one. The part
/// before the cut holds a blank line between two of its items, and so does the part after
/// (the next cut needs two of its items before it); a blank line between items makes the
/// whole list loose, so each part reads as it did in it ([`ListCut::loose_cut`]).
#[derive(Default)]
struct ListCut {
    /// A top-level list is open.
    open: bool,
    /// Where it starts (in this window).
    start: usize,
    /// Its items so far in this window.
    items: usize,
    /// The first blank line at or after every offset from `.0` to it (`.1`), and whether a
    /// list open before it has ended by then (`.2`): one scan serves every list and cut in
    /// that stretch.
    blank: Option<(usize, usize, bool)>,
    /// Whether a blank line comes before the item before the last, and before the last (in
    /// this window's part of the list).
    gaps: [bool; 2],
    /// The last item: where it starts and the blocks counted before it.
    last: Option<(usize, usize)>,
    /// Where the last block inside a top-level item ended: a blank line before it is inside
    /// that block (a fence or an HTML block left open to the item's end), not between items.
    child_end: usize,
}

impl ListCut {
    /// Notes a `Start` at `depth` and offset `at` (before it is counted in).
    fn start(&mut self, tag: &Tag<'_>, depth: usize, at: usize) {
        match (depth, tag) {
            (0, Tag::List(_)) => {
                (self.open, self.start, self.items) = (true, at, 0);
                (self.gaps, self.last) = ([false; 2], None);
            }
            (1, Tag::Item) if self.open => self.items += 1,
            _ => {}
        }
    }

    /// Given the top-level item starting at `at` (`counted` blocks before it; before
    /// [`ListCut::start`] counts it in), the item before it when that one may start a piece
    /// of a loose list: where it starts and the blocks before it. A blank line is before
    /// this item, and before the item two back.
    fn loose_cut(&mut self, body: &str, at: usize, counted: usize) -> Option<(usize, usize)> {
        if !self.open {
            return None;
        }
        let gap =
            self.items > 0 && after_blank_line(body, at) && self.child_end <= line_before(body, at);
        let cut = self.last.filter(|_| self.gaps[0] && gap);
        (self.gaps, self.last) = ([self.gaps[1], gap], Some((at, counted)));
        cut
    }

    /// Whether the top-level item starting at `at` may start a piece.
    fn may_cut(&mut self, body: &str, at: usize) -> bool {
        if !self.open || self.items == 0 {
            return false;
        }
        let (blank, tight) = match self.blank {
            Some((from, blank, tight)) if from <= self.start && self.start <= blank => {
                (blank, tight)
            }
            _ => {
                let blank = first_blank_line(body, self.start);
                let tight = tight_to_its_end(body, blank);
                self.blank = Some((self.start, blank, tight));
                (blank, tight)
            }
        };
        at < blank && tight
    }
}

/// Where the first blank line (only spaces, tabs, vertical tabs and form feeds, as
/// pulldown-cmark counts one) at or after the line starting at `at` starts; the text's end
/// when there is none. `\n`, `\r\n` and `\r` end lines.
fn first_blank_line(body: &str, at: usize) -> usize {
    let b = body.as_bytes();
    let mut line = at;
    while line < b.len() {
        let mut i = line;
        while i < b.len() && is_blank_space(b[i]) {
            i += 1;
        }
        if i < b.len() && (b[i] == b'\n' || b[i] == b'\r') {
            return line;
        }
        // The next line: past this one's end.
        let Some(end) = b[i..].iter().position(|&c| c == b'\n' || c == b'\r') else {
            return b.len();
        };
        let end = i + end;
        line = if b[end] == b'\r' && b.get(end + 1) == Some(&b'\n') {
            end + 2
        } else {
            end + 1
        };
    }
    b.len()
}

/// Whether a list open before the blank line at `blank` (or the text's end) has ended by
/// then: the next line with text after the blank lines starts at the margin and is no list
/// item (an indented line or an item would carry the list on, loose).
fn tight_to_its_end(body: &str, blank: usize) -> bool {
    let rest = body.get(blank..).unwrap_or_default();
    let Some(next) = rest
        .split(['\n', '\r'])
        .find(|line| !line.bytes().all(is_blank_space))
    else {
        return true;
    };
    !next.bytes().next().is_some_and(is_blank_space) && !is_list_marker(next)
}

/// What a blank line may hold besides its end.
fn is_blank_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Whether `line` starts like a list item: `-`, `+`, `*`, or one to nine digits and `.` or
/// `)`, then a space, a tab or the line's end.
fn is_list_marker(line: &str) -> bool {
    let b = line.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let after = match b.first() {
        Some(b'-' | b'+' | b'*') => 1,
        Some(c) if c.is_ascii_digit() && digits <= 9 => match b.get(digits) {
            Some(b'.' | b')') => digits + 1,
            _ => return false,
        },
        _ => return false,
    };
    matches!(b.get(after), None | Some(b' ' | b'\t'))
}

/// Where the last line that could close a metadata block starts: lines start after a `\n`
/// (pulldown-cmark's closing search splits at `\n` alone), and one closes as
/// [`closes_metadata`] says.
fn last_metadata_close(body: &str) -> Option<usize> {
    let b = body.as_bytes();
    let mut last = None;
    let mut at = 0;
    while at < b.len() {
        if closes_metadata(&b[at..]) {
            last = Some(at);
        }
        at = line_end(body, at);
    }
    last
}

/// Whether `line` (from a line's start) closes a metadata block as pulldown-cmark's
/// `scan_closing_metadata_block` does: exactly `---` or `...`, spaces, then `\n`, `\r` or
/// the text's end.
fn closes_metadata(line: &[u8]) -> bool {
    let Some(&c) = line.first() else {
        return false;
    };
    if !(c == b'-' || c == b'.') || line.get(..3) != Some(&[c, c, c][..]) || line.get(3) == Some(&c)
    {
        return false;
    }
    let rest = &line[3..];
    let spaces = rest.iter().take_while(|&&b| b == b' ').count();
    matches!(rest.get(spaces), None | Some(b'\n' | b'\r'))
}

/// Whether the `---` at `at` opens a metadata block when a closing line follows, as
/// pulldown-cmark's `scan_metadata_block` decides (at any depth: in a quote or a list item
/// too): exactly three `-`, only ASCII whitespace to the line's end, and a first line after it
/// that neither closes the block nor is blank.
fn opens_metadata(body: &str, at: usize) -> bool {
    let b = body.as_bytes().get(at..).unwrap_or_default();
    if !b.starts_with(b"---") || b.get(3) == Some(&b'-') {
        return false;
    }
    let first_end = line_end(body, at) - at;
    if !b[3..first_end]
        .iter()
        .all(|&c| (0x09..=0x0d).contains(&c) || c == b' ')
    {
        return false;
    }
    let next = &b[first_end..];
    let blank_to = next.iter().take_while(|&&c| is_blank_space(c)).count();
    let blank = matches!(next.get(blank_to), None | Some(b'\n' | b'\r'));
    !next.is_empty() && !blank && !closes_metadata(next)
}

/// The offset just past the line end at or after `at` (the text's end when none).
fn line_end(text: &str, at: usize) -> usize {
    text.as_bytes()
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(text.len(), |i| at + i + 1)
}

/// Where the line of a paragraph starting at `at` in a top-level block quote starts, when
/// the quote may be cut there: the line is `>` at the margin, one space or none, then the
/// paragraph; the line before it is `>` and blank space alone (the quote's blank line). A
/// piece from there is a quote of its own, whose paragraphs read as the one quote's did.
fn quote_cut(body: &str, at: usize) -> Option<usize> {
    let line = line_start(body, at);
    let marker = body.get(line..at)?;
    if marker != ">" && marker != "> " {
        return None;
    }
    let before = body.get(..line)?.strip_suffix('\n')?;
    let before = before.strip_suffix('\r').unwrap_or(before);
    let previous = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let rest = previous.strip_prefix('>')?;
    rest.bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then_some(line)
}

/// The top-level table a window is in, for cuts between its rows. A row reads as the same
/// row whatever rows come before it: pulldown-cmark parses each line of a table's body on
/// its own, against the header's column count. So a piece that starts before a row (but
/// the first) is parsed after the table's head, its header and delimiter lines, and the
/// head's events are left out ([`piece_parser`]). One count spans the table: the empty
/// cells pulldown-cmark fills into short rows, up to 2^18 a table, after which the table
/// ends; a piece's parser counts afresh, so a table cut in pieces whose empty cells reach
/// [`TABLE_FILLED`] is read whole. A filled cell is an empty one, but so is a cell written
/// empty (`||`): the count is over, never under, and a sparse table may be read whole.
struct Table {
    /// Where the table's header line starts.
    line: usize,
    /// Its header and delimiter lines, once its first row is seen.
    head: Option<Range<usize>>,
    /// Its empty cells so far.
    filled: usize,
    /// A piece starts inside it.
    continued: bool,
}

/// Empty cells in a table that is cut in pieces that read it whole: half of
/// pulldown-cmark's limit on cells it fills (`MAX_AUTOCOMPLETED_CELLS`).
const TABLE_FILLED: usize = 1 << 17;

/// Where the line holding offset `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    text.get(..at)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// Where the line before the one starting at `at` starts.
fn line_before(text: &str, at: usize) -> usize {
    let before = text.get(..at).unwrap_or_default();
    let before = before
        .strip_suffix("\r\n")
        .or_else(|| before.strip_suffix(['\n', '\r']))
        .unwrap_or(before);
    before.rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// Whether the line before offset `at` (which starts a line) is blank.
fn after_blank_line(text: &str, at: usize) -> bool {
    let Some(before) = text.get(..at) else {
        return false;
    };
    let before = before
        .strip_suffix("\r\n")
        .or_else(|| before.strip_suffix(['\n', '\r']));
    let Some(before) = before else {
        return false;
    };
    let line = before.rsplit(['\n', '\r']).next().unwrap_or_default();
    line.bytes().all(|b| b == b' ' || b == b'\t')
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

/// Counts the inline codes a block's events make, as [`Reader::runs`] makes them, without
/// counting more: an inline element's start (its end closes the same code pair), a code span,
/// inline HTML, a hard break, a footnote reference; nothing inside an image
/// or an autolink, which is one code whole. What a block holding more than
/// [`super::MAX_CODES`] is refused by, in the reader and in the plan.
#[derive(Default)]
struct Marks {
    count: usize,
    /// Starts open inside an element that is one code whole (the element's own included).
    inside_whole: usize,
    /// Where the block starts, as the reader names it: a leaf's `Start`, or the first inline
    /// event of text straight inside a container (a tight list item's).
    at: Option<usize>,
}

impl Marks {
    /// Counting afresh after a block edge at `at` (a leaf's start is the block's).
    fn after(edge: &Event<'_>, at: usize) -> Marks {
        let leaf = matches!(edge, Event::Start(tag) if is_leaf(tag));
        Marks {
            at: leaf.then_some(at),
            ..Marks::default()
        }
    }

    /// Where the block counted starts (`or` when no event of it was seen).
    fn start(&self, or: usize) -> usize {
        self.at.unwrap_or(or)
    }

    /// Counts `event`, at offset `at`; the count so far.
    fn see(&mut self, event: &Event<'_>, at: usize) -> usize {
        self.at.get_or_insert(at);
        if self.inside_whole > 0 {
            match event {
                Event::Start(_) => self.inside_whole += 1,
                Event::End(_) => self.inside_whole -= 1,
                _ => {}
            }
            return self.count;
        }
        match event {
            Event::Start(
                Tag::Image { .. }
                | Tag::Link {
                    link_type: LinkType::Autolink | LinkType::Email,
                    ..
                },
            ) => {
                self.inside_whole = 1;
                self.count += 1;
            }
            Event::Start(tag) if is_inline(event) && !is_leaf(tag) => self.count += 1,
            Event::Code(_)
            | Event::InlineHtml(_)
            | Event::HardBreak
            | Event::FootnoteReference(_) => self.count += 1,
            _ => {}
        }
        self.count
    }
}

/// Whether an event starts or ends a block (any `Start` or `End` but an inline element's):
/// where [`Marks`] count afresh.
fn is_block_edge(event: &Event<'_>) -> bool {
    match event {
        Event::Start(_) => !is_inline(event),
        Event::End(end) => !matches!(
            end,
            TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image
        ),
        _ => false,
    }
}

/// Where a block starts that holds more than [`super::MAX_CODES`] codes in `body[range]`,
/// parsed `chunk` bytes at a time so that no tree is larger than a chunk's. A chunk may end
/// inside a line: the block it ends in goes on in the next chunk, its count with it. It
/// counts, never reads, and never more than a whole read makes: a chunk that ends inside a
/// code or HTML block (whose lines hold no codes, but would read as prose from a cut) ends
/// the count, with no refusal; and nothing is counted in what may be a table (a chunk from
/// inside a table reads its rows as one paragraph, and a row's cells are blocks of their
/// own) or a metadata block ([`table_stretches`], [`metadata_end`]). A dense block elsewhere
/// in the range is still refused.
///
/// `last_closing` is where the body's last line that could close a metadata block starts
/// ([`last_metadata_close`]).
fn dense_block(
    body: &str,
    range: Range<usize>,
    chunk: usize,
    last_closing: Option<usize>,
) -> Option<usize> {
    // Stretches where nothing is counted: what may be a table, or a metadata block.
    let tables = table_stretches(body, range.clone());
    let mut table = tables.iter().peekable();
    let mut metadata_until = 0;
    let mut marks = Marks::default();
    let mut at = range.start;
    // Whether the chunk starts inside a line, so its first block goes on from the last.
    let mut goes_on = false;
    while at < range.end {
        let mut to = at.saturating_add(chunk.max(1)).min(range.end);
        while !body.is_char_boundary(to) {
            to += 1;
        }
        let text = body.get(at..to).unwrap_or_default();
        let ends_inside_a_line = to < range.end && body.as_bytes().get(to - 1) != Some(&b'\n');
        for (event, offsets) in Parser::new_ext(text, options()).into_offset_iter() {
            let p = at + offsets.start;
            if p >= metadata_until
                && matches!(event, Event::Start(_) | Event::Rule)
                && last_closing.is_some_and(|closing| closing > p)
                && opens_metadata(body, p)
            {
                metadata_until = metadata_end(body, p);
            }
            while table.next_if(|t| t.end <= p).is_some() {}
            if p < metadata_until || table.peek().is_some_and(|t| t.start <= p) {
                // A table read from a cut reads its rows as one paragraph, a metadata block
                // as prose: the count starts afresh after it.
                marks = Marks::default();
                continue;
            }
            let cut_end = matches!(event, Event::End(_)) && offsets.end == text.len();
            if cut_end
                && to < range.end
                && matches!(event, Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock))
            {
                return None;
            }
            // What the cut opens at the chunk's start and closes at its end is the block
            // that goes on.
            // (A chunk may start with the spaces between two words: the block starts after.)
            let at_start = text
                .get(..offsets.start)
                .is_some_and(|before| before.bytes().all(|b| b == b' ' || b == b'\t'));
            let goes_on_here = (goes_on && matches!(event, Event::Start(_)) && at_start)
                || (ends_inside_a_line && cut_end);
            if is_block_edge(&event) {
                if !goes_on_here {
                    marks = Marks::after(&event, at + offsets.start);
                }
            } else if marks.see(&event, at + offsets.start) > super::MAX_CODES {
                return Some(marks.start(at + offsets.start));
            }
        }
        goes_on = ends_inside_a_line;
        at = to;
    }
    None
}

/// The stretches of `body[range]` that may be a table: from the line before each line that may
/// be a delimiter row (the header) to the next blank line, where every table has ended.
fn table_stretches(body: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let (mut line, mut before) = (range.start, range.start);
    while line < range.end {
        let end = line_end(body, line).min(range.end);
        let text = body.get(line..end).unwrap_or_default();
        // A line inside the last stretch is in it already (one scan to its blank line).
        let covered = out.last().is_some_and(|last| last.end > line);
        if !covered && may_be_delimiter_row(text.trim_end_matches('\n')) {
            let stop = first_blank_line(body, end).min(range.end);
            match out.last_mut() {
                Some(last) if last.end >= before => last.end = stop,
                _ => out.push(before..stop),
            }
        }
        (before, line) = (line, end);
    }
    out
}

/// Where the metadata block the `---` line at `at` may open ends: past the next line that
/// could close it (the text's end when none does).
fn metadata_end(body: &str, at: usize) -> usize {
    let mut line = line_end(body, at);
    while line < body.len() {
        let next = line_end(body, line);
        if closes_metadata(body.as_bytes().get(line..).unwrap_or_default()) {
            return next;
        }
        line = next;
    }
    body.len()
}

/// Whether `line` may be a table's delimiter row (`|---|:-:|`), inside a quote or a list
/// item too: a `|` and a `-`, and nothing but those, `:`, blank space and the markers of
/// quotes and list items.
fn may_be_delimiter_row(line: &str) -> bool {
    line.contains('|')
        && line.contains('-')
        && line.bytes().all(|b| {
            matches!(
                b,
                b'|' | b'-' | b':' | b'>' | b'*' | b'+' | b'.' | b')' | b'\r'
            ) || is_blank_space(b)
                || b.is_ascii_digit()
        })
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
                Event::Start(tag) => {
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
        let mut words = String::new();
        for k in items.clone() {
            if let Event::Text(t) | Event::Code(t) = &self.events[k].0 {
                words.push_str(t);
            }
        }
        self.slug = slug(&words);
        if self.slug.is_empty() {
            self.slug.push_str("section");
        }
        self.leaf(items, span, Role::Heading, level, HEADING);
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
        let runs = self.runs(items);
        if runs.is_empty() {
            return;
        }
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

/// Writes a front-matter value in the quoting style it was read in. A plain value stays plain
/// where YAML (1.1 and 1.2, [`crate::yaml_text::plain_ok`]) and this reader both read it back
/// as itself; else it is quoted the way this reader reads back too: double quotes when it
/// holds no `"` or `\`, single quotes when it holds no `'`, and only past both YAML's escaped
/// double quotes (valid YAML, though this reader then sees no text block there).
fn yaml_value(value: &str, before: &str, out: &mut String) {
    let value = value.replace(['\r', '\n'], " ");
    if before.ends_with('\'') {
        out.push_str(&value.replace('\'', "''"));
        return;
    }
    // What a quoted scalar may hold as written: a tab, never another control character.
    let raw = value
        .chars()
        .all(|c| c == '\t' || crate::yaml_text::printable(c));
    let escaped = || {
        let quoted = crate::yaml_text::quote(&value);
        quoted[1..quoted.len() - 1].to_owned()
    };
    if before.ends_with('"') {
        if raw && !value.contains(['"', '\\']) {
            out.push_str(&value);
        } else {
            out.push_str(&escaped());
        }
        return;
    }
    let reads_back = || scalar_value(&format!(" {value}")).is_some_and(|s| s.text == value);
    if crate::yaml_text::plain_ok(&value, false) && reads_back() {
        out.push_str(&value);
    } else if raw && !value.contains(['"', '\\']) {
        out.push_str(&format!("\"{value}\""));
    } else if raw && !value.contains('\'') {
        out.push_str(&format!("'{value}'"));
    } else {
        out.push_str(&format!("\"{}\"", escaped()));
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
    use crate::model::Document;
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

    #[test]
    fn kapis_rules_section_is_kapis_and_the_text_around_it_the_persons() {
        let text = "# Agents\n\nOur own words.\n\n<!-- kapi:rules -->\n## kapi\n\n- Never write utilize.\n<!-- /kapi:rules -->\n\nMore of ours.\n";
        let parsed = read(text);
        let prose: Vec<(String, bool, bool)> = parsed
            .document
            .blocks
            .iter()
            .filter(|b| b.role != Role::Html)
            .map(|b| (b.source.plain_text(), b.translatable, b.locked.is_some()))
            .collect();
        assert_eq!(
            prose,
            [
                ("Agents".to_owned(), true, false),
                ("Our own words.".to_owned(), true, false),
                ("kapi".to_owned(), false, true),
                ("Never write utilize.".to_owned(), false, true),
                ("More of ours.".to_owned(), true, false),
            ]
        );
        assert_eq!(write(&parsed), text);
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
            let label = b
                .label
                .as_deref()
                .map(|l| format!(" ({l})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{}{label} | {} | {} | {} | {}",
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
        set_text(&mut parsed, "s1/p#2", "Changed 2 * 3 and a_b and *this*.");
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

    /// (key, label) of every block.
    fn keys_and_labels(parsed: &Parsed) -> Vec<(String, Option<String>)> {
        parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.clone(), b.label.as_deref().map(str::to_owned)))
            .collect()
    }

    /// Every Markdown file the tests know: the fixtures and the benchmark's Rust book.
    fn corpus() -> Vec<(String, Vec<u8>)> {
        let mut out = fixtures();
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/data/rust-book");
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    let bytes = std::fs::read(&path).unwrap();
                    out.push((path.display().to_string(), bytes));
                }
            }
        }
        out
    }

    #[test]
    fn reading_in_pieces_gives_what_a_whole_read_gives() {
        let mut inputs = corpus();
        for tricky in [
            "- a\n- b\n\nAfter the list.\n\n1. one\n\n2. two\n\nAfter.\n",
            "```\ncode\n\nstill code\n```\n\nAfter the fence.\n\n    indented\n\n    more\n\nText.\n",
            "<pre>\nx\n\ny\n</pre>\n\nAfter.\n\n<div>\n```\n</div>\n\n```\ncode\n\nZ\n```\n\nEnd.\n",
            "> quote\n\n> again\n\nPlain.\n\nPara\n---\n\n# H\n\nText *a\n\nb* c.\n",
            "---\ntitle: T\n\n---\n\nBody.\n\n---\n\nAfter a rule.\n\n| a | b |\n|---|---|\n| c | d |\n\nX.\n",
            "\u{feff}# Title\r\n\r\nOne.\r\n\r\nTwo.\r\n",
            // Lists cut between items, or kept whole where a cut would change them.
            "- a\n- b\n- c\n\n- d\n",
            "- a\n- b\n- c\n\nAfter.\n",
            "1. a\n2. b\n3) c\n* d\n+ e\n- f\n",
            "- a\n  - nested\n  - more\n- b\n  continued\nlazy\n- c\n\nPara.\n",
            "- a\n- b\n\n  a second paragraph of b\n- c\n",
            "- a\r- b\r\r- c\r- d\r",
            "- a\r\n- b\r\n  \r\n- c\r\n",
            "- a\n- ```\n  code\n\n  more\n  ```\n- c\n",
            "- a\n- b\n# H\n- c\n- d\n\n- e\n",
            "- a\n- b\n***\n- c\n- d\n\n\tindented\n",
            "- a\n- b\n> quote\n- c\n\n> more\n",
            "10. a\n11. b\n12. c\n\n13. d\n",
            "- [ ] task\n- [x] done\n- plain\n",
            // Loose by a blank line before the cut, with no paragraph straight in an item.
            "- # A\n\n- b\n",
            "- ```\n  x\n  ```\n\n- b\n- c\n",
            "- - x\n\n- b\n",
            "- | a |\n  |---|\n\n- b\n",
            "- a\n- # b\n\x0c\n- c\n",
            "- a\n- b\n\x0b\n- c\n",
            // Link references across pieces: before and after their definitions, of every
            // kind, in another case and spacing, images, definitions in quotes and lists,
            // titles on the next line, undefined labels, and a label defined twice.
            "See [a] and [b][] and [text][A].\n\n[a]: /one\n\nMore [a].\n\n[b]: /two 'T'\n",
            "[Foo   Bar]: /fb\n\nA [foo bar] and ![FOO BAR] and [ÄÖ].\n\n[äö]: /u\n",
            "> [q]: /quoted\n\n- [l]: /listed\n\nUse [q] and [l] and [missing].\n",
            "[t]: /url\n\"title on the next line\"\n\nUse [t].\n\n[u]:\n/next-line\n\n[u]\n",
            "[d]: /first\n\nUse [d].\n\n[d]: /second\n\nAgain [d].\n",
            "[[a]] and [a [a]](/x) and [![a]][a].\n\n[a]: /a\n",
            "```\n[c]: /in-code\n```\n\nNot a link: [c].\n",
            // Metadata blocks (found in review): one read whole that a window took for a
            // definition, in a quote and a list item, after a non-ASCII space, closed by `\r`.
            "---\n[a]: /x\n\nb\n\nc\n\nd\n\ne\n\n---\n\n[a]\n",
            "a\n\n> ---\n> b\n\nc\n\n---\n",
            "a\n\n* ---\n  b\n\nc\n\n---\n",
            "a\n\n> ---\n> [a]: /x\n\nc\n\n---\n\n[a]\n",
            "a\n\n---\n\u{a0}\n\nb\n\nc\n\nd\n\ne\n\n---\n",
            "a\n\n---\nb\n\nc\n\nd\n\ne\n\n---\rz\n",
            "a\n\n---\t\x0c\r\nb\n\nc\n\n...  \n",
            // pulldown-cmark scans a fence's info string and an indented code block's lines
            // to the next `\n`, past bare `\r` line ends (fuzz).
            "```\r\r`",
            "a\n\n```\r\r`\n\nb\n",
            "-\t\x00\n-\t\t%\r\r>\n\n-",
            // Tables cut between rows: short and long rows, escaped pipes, code spans, rows
            // that end the table, references across pieces, a table inside a list.
            "| a | b |\n|---|:-:|\n| c | d |\n| e |\n  f | g | h\n\nEnd.\n",
            "a | b\n--|--\n`c|d` | e\\|f\n*g | h*\n> i\n| j |\n",
            "| [a] |\n|---|\n| [b] |\n| [a] |\n| x\n- y\n\n[a]: /a\n[b]: /b \"t\"\n",
            "- | a |\n  |---|\n  | b |\n  | c |\n",
            "| a |\n|---|\n| b |\n---\n| c |\n|\n| d |\n",
            "Para\n| a |\n|---|\n| b |\n| c |\n",
        ] {
            inputs.push((tricky.to_owned(), tricky.as_bytes().to_vec()));
        }
        let mut cut = 0;
        for (name, bytes) in &inputs {
            let Ok(text) = std::str::from_utf8(bytes) else {
                continue;
            };
            let whole = read_in_pieces(text, None, Skeleton::over(text), None).finish();
            let pieces = read_in_pieces(text, Some(1), Skeleton::over(text), None).finish();
            let (Ok(whole), Ok(pieces)) = (whole, pieces) else {
                panic!("{name}: refused");
            };
            assert_eq!(pieces.document, whole.document, "{name}");
            assert_eq!(pieces.skeleton, whole.skeleton, "{name}");
            let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
            cut += plan(&text[bom..], 1).unwrap().cuts.len();
        }
        assert!(cut > 1000, "{cut} cuts");
        // Link references reach across the file: a piece's reference to a definition in
        // another resolves from the plan's definitions; a label defined twice, or references
        // that spend much of pulldown-cmark's expansion budget, read the file whole.
        assert_eq!(plan("[a]\n\ntext\n\n[a]: /url\n", 1).unwrap().cuts, [5]);
        assert!(
            plan("[a]: /1\n\ntext\n\n[A]: /2\n", 1)
                .unwrap()
                .cuts
                .is_empty()
        );
        // A 2,000-byte destination used `uses` times in each of `paragraphs` paragraphs.
        let costly = |uses: usize, paragraphs: usize| {
            let paragraph = format!("Use{}.\n\n", " [a]".repeat(uses));
            format!(
                "[a]: /{}\n\n{}",
                "x".repeat(2_000),
                paragraph.repeat(paragraphs)
            )
        };
        assert!(!plan(&costly(1, 10), 1).unwrap().cuts.is_empty());
        // Past the whole file's budget (max(its length, 100,000) / 2), past a piece's.
        assert!(plan(&costly(1, 30), 1).unwrap().cuts.is_empty());
        assert!(plan(&costly(30, 1), 1).unwrap().cuts.is_empty());
        let costly = costly(10, 40);
        for text in [costly.as_str(), &costly.repeat(2)] {
            let whole = read_in_pieces(text, None, Skeleton::over(text), None)
                .finish()
                .unwrap();
            let pieces = read_in_pieces(text, Some(1), Skeleton::over(text), None)
                .finish()
                .unwrap();
            assert_eq!(pieces.document, whole.document);
        }
        assert_eq!(plan("a\n\nb\n\n- c\n- d\n", 1).unwrap().cuts, [3, 10]);
        // A tight list is cut before each item but its first; one a blank line makes loose,
        // before or after the cut, is not.
        assert_eq!(plan("- a\n- b\n- c\n\nEnd.\n", 1).unwrap().cuts, [4, 8, 13]);
        assert_eq!(
            plan("- a\n- b\n- c\n\n- d\n", 1).unwrap().cuts,
            Vec::<usize>::new()
        );
        assert_eq!(
            plan("- a\n\n- b\n- c\n", 1).unwrap().cuts,
            Vec::<usize>::new()
        );
        // A loose list is cut where both parts keep a blank line between two of their items:
        // before `c` (blank lines before `b` and before `d`), and so on every other item.
        assert_eq!(plan("- a\n\n- b\n\n- c\n\n- d\n", 1).unwrap().cuts, [10]);
        // A block quote is cut before a paragraph that follows one of its blank lines.
        assert_eq!(plan("> a\n>\n> b\n>\n> c\n", 1).unwrap().cuts, [6, 12]);
        // A table is cut before each row but its first, each piece read after its head.
        let table = "| a | b |\n|---|:-:|\n| c | d |\n| e |\n  f | g | h\n\nEnd.\n";
        let planned = plan(table, 1).unwrap();
        assert_eq!(planned.cuts, [30, 36, 49]);
        assert_eq!(planned.heads.get(&30), Some(&(0..20)));
        assert_eq!(planned.heads.get(&36), Some(&(0..20)));
        assert_eq!(planned.heads.get(&49), None);
        // pulldown-cmark fills at most 2^18 empty cells into a table's short rows, then ends
        // the table; a piece's parser counts afresh, so a cut table whose empty cells reach
        // 2^17 is read whole, and reads as the whole file does past the limit.
        let short = |rows: usize| format!("| a | b | c |\n|---|---|---|\n{}", "|x\n".repeat(rows));
        assert!(!plan(&short(60_000), 1).unwrap().cuts.is_empty());
        let past = short(140_000);
        assert!(plan(&past, 1).unwrap().cuts.is_empty());
        let whole = read_in_pieces(&past, None, Skeleton::over(&past), None).finish();
        let pieces = read_in_pieces(&past, Some(1), Skeleton::over(&past), None).finish();
        assert_eq!(pieces.unwrap().document, whole.unwrap().document);
        let loose = "- a\n\n- b\n\n- c\n\n- d\n\n- e\n\n- f\n\nEnd.\n";
        assert_eq!(plan(loose, 1).unwrap().cuts, [10, 20, 30]);
        // Not where a part would hold no blank line between items: a gap that is not blank
        // before the next item or two back.
        assert_eq!(
            plan("- a\n\n- b\n\n- c\n- d\n", 1).unwrap().cuts,
            Vec::<usize>::new()
        );
        assert_eq!(
            plan("- a\n- b\n\n- c\n\n- d\n", 1).unwrap().cuts,
            Vec::<usize>::new()
        );
        for text in [
            loose,
            "- a\n\n- b\n\n- c\n\n- d\n",
            "1. a\n\n2. b\n\n3. c\n\n   more\n\n4. d\n\n5. e\n",
            "- a\n\n- b\n  - x\n  - y\n\n- c\n\n- d\n\n- e\n",
            "- a\n\n- b\n\n- c\n\n- d\n\n   \n- e\n\n> q\n",
            // Block quotes cut between their paragraphs.
            "> a\n>\n> b\n>\n> c\n",
            "> a\n> b\n>\n> c\n>  \n>d\nlazy\n>\n> - x\n>\n> e\n\nEnd.\n",
            "> a\n>\n>     code\n>\n> b\n>\n> > nested\n>\n> c\n",
            "> ```\n> x\n>\n> y\n> ```\n>\n> z\n",
            // A blank line inside a fence left open to its item's end is no gap.
            "- a\n  ```\n  x\n\n- b\n\n- c\n\n- d\n",
            "- a\n\n- b\n  ```\n  x\n\n- c\n\n- d\n\n- e\n",
            "- a\n\n- b\n  <pre>\n\n- c\n\n- d\n\n- e\n",
        ] {
            assert!(pieces_agree(text), "{text:?}");
        }
        // A `---` line a window ends before the closing line of: the metadata block it opens
        // reaches across the windows, so the file is read whole, and counted to its end.
        let far = format!(
            "Intro.\n\n---\nBy the team\n\n{}---\n",
            "Open.\n\n".repeat(50)
        );
        let planned = plan(&far, 4).unwrap();
        assert!(planned.cuts.is_empty(), "{:?}", planned.cuts);
        let whole = read_in_pieces(&far, None, Skeleton::over(&far), None)
            .finish()
            .unwrap();
        let pieces = read_in_pieces(&far, Some(4), Skeleton::over(&far), None)
            .finish()
            .unwrap();
        assert_eq!(pieces.document, whole.document);
        let linked = format!("{}[a]: /url\n", "Open.\n\n".repeat(50));
        assert!(plan(&linked, 4).unwrap().blocks >= 50);
        let text = "See [a].\n\nMore.\n\n[a]: /url\n";
        let linked = read_in_pieces(text, Some(1), Skeleton::over(text), None)
            .finish()
            .unwrap();
        assert!(
            linked.document.blocks[0]
                .source
                .runs
                .iter()
                .any(|r| matches!(r, Run::Code(c) if c.class == "link"))
        );
    }

    #[test]
    fn keys_name_a_section_by_its_heading_ordinal_and_labels_by_its_words() {
        let source =
            "Intro text.\n\n## Install\n\nRun it.\n\nThen this.\n\n## Use\n\n- one\n- two\n";
        let got = keys_and_labels(&read(source));
        let want = [
            ("top/p", None),
            ("s1/h", Some("install/h")),
            ("s1/p", Some("install/p")),
            ("s1/p#2", Some("install/p#2")),
            ("s2/h", Some("use/h")),
            ("s2/li", Some("use/li")),
            ("s2/li#2", Some("use/li#2")),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(k, l)| (k.to_string(), l.map(str::to_owned)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn keys_survive_an_edit_of_a_block_and_of_the_heading_above_it() {
        let source =
            "Intro text.\n\n## Install\n\nRun it.\n\nThen this.\n\n## Use\n\n- one\n- two\n";
        let parsed = read(source);
        let keys: Vec<_> = keys_and_labels(&parsed)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let mut edited = parsed.clone();
        set_text(&mut edited, "s1/h", "Setting up");
        set_text(&mut edited, "s1/p", "Run it now, with *care* and `care`.");
        set_text(&mut edited, "top/p", "New intro\nover two lines.");
        let reread = read(&write(&edited));
        let again: Vec<_> = keys_and_labels(&reread);
        assert_eq!(
            again.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            keys
        );
        let p = reread.document.block("s1/p").unwrap();
        assert_eq!(p.source.plain_text(), "Run it now, with *care* and `care`.");
        // The label follows the heading's new words; the key does not.
        assert_eq!(p.label.as_deref(), Some("setting-up/p"));
        assert_eq!(
            reread.document.block("s2/li#2").unwrap().label.as_deref(),
            Some("use/li#2")
        );
    }

    #[test]
    fn a_new_heading_shifts_the_sections_after_it_only() {
        let before = read("# A\n\nOne.\n\n# B\n\nTwo.\n");
        let after = read("# A\n\nOne.\n\n# New\n\nInserted.\n\n# B\n\nTwo.\n");
        assert_eq!(
            before.document.block("s1/p").unwrap().source.plain_text(),
            after.document.block("s1/p").unwrap().source.plain_text()
        );
        // `s2/p` now names other text: its rev differs, so an edit read before is `stale`.
        let (old, new) = (
            before.document.block("s2/p").unwrap(),
            after.document.block("s2/p").unwrap(),
        );
        assert_ne!(old.source.rev(), new.source.rev());
        assert_eq!(
            after.document.block("s3/p").unwrap().source.plain_text(),
            "Two."
        );
    }

    #[test]
    fn every_heading_starts_a_section_even_an_empty_or_repeated_one() {
        // Two headings with the same words are two sections; a heading with no text is no
        // block but still a section, so emptying a heading moves no other key.
        let got = keys_and_labels(&read(
            "Top.\n\n# Top\n\nA.\n\n# Top\n\nB.\n\n#\n\nC.\n\n# --\n\nD.\n",
        ));
        let want = [
            ("top/p", None),
            ("s1/h", Some("top/h")),
            ("s1/p", Some("top/p#2")),
            ("s2/h", Some("top/h#2")),
            ("s2/p", Some("top/p#3")),
            ("s3/p", Some("section/p")),
            ("s4/h", Some("section/h")),
            ("s4/p", Some("section/p#2")),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(k, l)| (k.to_string(), l.map(str::to_owned)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_translation_with_other_headings_and_an_extra_paragraph_aligns_by_section() {
        let source = read("# Install\n\nRun it.\n\n# Use\n\nOpen it.\n");
        let target = read("# Installer\n\nLancez-le.\n\nUne note.\n\n# Utiliser\n\nOuvrez-le.\n");
        let pairs = crate::model::align(&source.document, &target.document);
        let texts: Vec<Option<String>> = pairs
            .iter()
            .map(|p| p.map(|i| target.document.blocks[i].source.plain_text()))
            .collect();
        assert_eq!(
            texts,
            [
                Some("Installer".to_owned()),
                Some("Lancez-le.".to_owned()),
                Some("Utiliser".to_owned()),
                Some("Ouvrez-le.".to_owned())
            ]
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
        assert_eq!(keys, ["front/title", "front/description", "s1/h"]);
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
    fn front_matter_values_are_written_as_yaml_and_this_reader_read_them_back() {
        let source = "---\ntitle: Hello\n---\n\n# Hi\n";
        // Each reads back as a text block: YAML would take `yes` and `12` for another type,
        // `Say "hi"` and `a\tb` need quotes this reader reads.
        for text in [
            "2024 roadmap",
            "yes",
            "12",
            "a: b",
            "Say \"hi\"",
            "a\tb",
            "it's",
        ] {
            let mut parsed = read(source);
            set_text(&mut parsed, "front/title", text);
            let out = write(&parsed);
            let again = read(&out);
            let block = again
                .document
                .block("front/title")
                .unwrap_or_else(|| panic!("the title is still a block in {out:?}"));
            assert_eq!(block.source.plain_text(), text, "{out:?}");
            let front = out.split("---\n").nth(1).unwrap_or_default();
            let yaml: serde_yaml::Mapping = serde_yaml::from_str(front).expect("front matter");
            assert_eq!(
                yaml.get("title").and_then(|v| v.as_str()),
                Some(text),
                "{out:?}"
            );
        }
        // Both quotes and a control character: YAML's escapes, still valid YAML.
        let mut parsed = read(source);
        set_text(&mut parsed, "front/title", "it's \"x\"\u{7}");
        let out = write(&parsed);
        let front = out.split("---\n").nth(1).unwrap_or_default();
        let yaml: serde_yaml::Mapping = serde_yaml::from_str(front).expect("front matter");
        assert_eq!(
            yaml.get("title").and_then(|v| v.as_str()),
            Some("it's \"x\"\u{7}")
        );
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let source = "# T\r\n\r\nOne\r\ntwo\r\n\r\n- a\r\n";
        let mut parsed = read(source);
        assert_eq!(write(&parsed), source);
        set_text(&mut parsed, "s1/p", "Uno\ndos");
        set_text(&mut parsed, "s1/li", "b\nc");
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
        set_text(&mut parsed, "s1/h", "New\ntitle #");
        assert_eq!(write(&parsed), "## New title \\# ##\n\nText.\n");
    }

    /// A long line makes a whole read count codes in chunks first; a chunk from inside a
    /// table or a metadata block reads lines as one paragraph that the whole read splits
    /// into cells, or reads as no block: such a range is not refused by the count, only by
    /// the read, block by block.
    #[test]
    fn a_long_line_refuses_only_a_block_a_whole_read_refuses() {
        let long = format!("{}\n\n", "x".repeat(40_000));
        let refused = |text: &str| {
            let out = read_in_pieces(text, None, Skeleton::over(text), None);
            matches!(out.finish(), Err(ReadError::TooDense { .. }))
        };
        // 10,000 rows of two emphasised cells, in a table at the margin and in a quote.
        let rows = "| *a* | *b* |\n".repeat(10_000);
        assert!(!refused(&format!("{long}| a | b |\n|---|---|\n{rows}")));
        let quoted = "> | *a* | *b* |\n".repeat(10_000);
        assert!(!refused(&format!(
            "{long}> | a | b |\n> |---|---|\n{quoted}"
        )));
        // Front matter of 12,000 emphasised words, which a whole read reads as no prose.
        let front = format!("---\nk: {}\n---\n\n", "*a* ".repeat(12_000));
        assert!(!refused(&format!("{front}{long}")));
        // One paragraph, and one cell, of 12,000 emphasised words are refused.
        let dense = "*a* ".repeat(12_000);
        assert!(refused(&format!("{long}{dense}\n")));
        assert!(refused(&format!("{long}| a |\n|---|\n| {dense} |\n")));
        // A table or front matter elsewhere leaves a dense paragraph after it counted: the
        // count refuses it before pulldown-cmark builds its tree.
        let counted = |text: &str| {
            dense_block(text, 0..text.len(), LONG_LINE, last_metadata_close(text)).is_some()
        };
        for text in [
            format!("| a |\n|---|\n| b |\n\n{long}{dense}\n"),
            format!("---\nk: v\n---\n\n{long}{dense}\n"),
            format!("{long}| a |\n|---|\n\n{dense}\n"),
        ] {
            assert!(refused(&text), "{}", &text[..12]);
            assert!(counted(&text), "counted {}", &text[..12]);
        }
        assert!(!counted(&format!("{long}| a | b |\n|---|---|\n{rows}")));
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
