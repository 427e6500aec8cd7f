//! Reading a large Markdown file in pieces: where a file may be cut between blocks so each
//! piece parses alone to the same blocks as the whole, and the bounds that keep one piece small.

use super::*;

/// Reads Markdown `text` whole, or, given a piece size, in pieces when [`plan`] finds where.
pub(super) fn read_in_pieces<'e>(
    text: &str,
    piece: Option<usize>,
    skeleton: Skeleton,
    each: Option<super::super::Each<'e>>,
) -> Output<'e> {
    read_dialect(text, piece, skeleton, each, Dialect::Markdown)
}

/// Reads `text` as `dialect` (Markdown, or MDX: ESM is code), whole or in pieces.
pub(super) fn read_dialect<'e>(
    text: &str,
    piece: Option<usize>,
    skeleton: Skeleton,
    each: Option<super::super::Each<'e>>,
    dialect: Dialect,
) -> Output<'e> {
    let id = dialect.id();
    // MDX: pulldown-cmark reads a copy in which a JSX tag or expression over several lines is
    // one line and a tag alone beside Markdown a thematic break (`mdx::mask`); Markdown written
    // for an MDX compiler (it holds a JSX comment, as the React docs' `.md` files do) takes the
    // thematic breaks alone, so Markdown inside a component is read as such. Offsets, block
    // texts and the skeleton are the file's.
    let masked = match dialect {
        Dialect::Mdx => mdx::mask(text),
        Dialect::Markdown if super::syntax::mdx_style(text) => mdx::interleave(text),
        Dialect::Markdown => None,
    };
    let parsed = masked.as_deref().unwrap_or(text);
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = text.get(bom..).unwrap_or_default();
    let parsed_body = parsed.get(bom..).unwrap_or_default();
    // Read whole, a long line is checked for a block too dense to read first (a plan
    // checks the lines that stretch its windows).
    let dense = || {
        // Line lengths from the gaps between line feeds (memchr, not a char search).
        let bytes = parsed_body.as_bytes();
        let mut from = 0;
        let mut long = false;
        for nl in memchr::memchr_iter(b'\n', bytes) {
            if nl - from > LONG_LINE {
                long = true;
                break;
            }
            from = nl + 1;
        }
        let long = long || bytes.len() - from > LONG_LINE;
        long.then(|| {
            dense_block(
                parsed_body,
                0..parsed_body.len(),
                LONG_LINE,
                last_metadata_close(parsed_body),
            )
        })
        .flatten()
    };
    let planned = match piece {
        Some(piece) => plan(parsed_body, piece).map(Some),
        None => dense().map_or(Ok(None), Err),
    };
    let plan = match planned {
        Ok(plan) => plan,
        Err(at) => {
            let mut out = Output::new(id, skeleton, each);
            out.refuse(ReadError::too_dense(text, at + bom));
            return out;
        }
    };
    let (cuts, heads, blocks, defs) =
        plan.map_or_else(Default::default, |p| (p.cuts, p.heads, p.blocks, p.defs));
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for cut in cuts.into_iter().chain([parsed_body.len()]) {
        pieces.push(from..cut);
        from = cut;
    }
    // One parser at a time: the next piece's is built when the last one's events run out.
    let scratch = RefCell::new(Scratch::default());
    let (defs, heads, scratch) = (&defs, &heads, &scratch);
    let events = pieces.into_iter().flat_map(move |piece| {
        let at = piece.start + bom;
        let head = heads.get(&piece.start).cloned();
        piece_parser(parsed_body, piece, head, defs, scratch)
            .map(move |(event, range)| (event, range.start + at..range.end + at))
    });
    let mut reader = Reader {
        text,
        events: Vec::new(),
        ends: Vec::new(),
        starts: Vec::new(),
        marks: Marks::default(),
        out: Output::new(id, skeleton, each),
        dialect,
        parsed,
        headings: 0,
        counts: [0; KINDS.len()],
        slug: "top".into(),
        labels: Default::default(),
        front: KeyDeduper::default(),
        containers: Vec::new(),
        in_kapi_section: false,
        syntax: {
            // An `.mdx` file is MDX whether or not it holds a JSX comment: every `{…}` and a
            // JSX tag CommonMark cannot read are codes.
            let mut syntax = syntax::SiteSyntax::new(body);
            syntax.mdx |= dialect == Dialect::Mdx;
            syntax
        },
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
pub(super) struct Plan {
    /// Offsets in the body (after a BOM) where a piece starts.
    pub(super) cuts: Vec<usize>,
    /// The cuts inside a table, each with the table's head: its header and delimiter lines,
    /// which the piece's parser reads first (see [`piece_parser`]).
    pub(super) heads: Heads,
    pub(super) blocks: usize,
    /// The file's link reference definitions, for the references a piece makes to one in
    /// another piece.
    pub(super) defs: Defs,
}

/// Link reference definitions by label (matched as pulldown-cmark matches them: Unicode
/// case folded): each one's destination and title.
pub(super) type Defs = rustc_hash::FxHashMap<UniCase<String>, (CowStr<'static>, CowStr<'static>)>;

/// Where a piece that starts inside a table finds the table's head, by the piece's start.
pub(super) type Heads = rustc_hash::FxHashMap<usize, Range<usize>>;

/// The events of `body[piece]` (offsets in the piece), a reference to a definition in
/// another piece resolved from `defs` as the whole file's read resolves it. A piece that
/// starts inside a table is parsed after the table's head (`body[head]`), whose events
/// are left out: its rows read as the rows of the one table did.
pub(super) fn piece_parser<'b>(
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
pub(super) struct Scratch {
    /// The table's head and the piece's text.
    pub(super) joined: String,
    /// The piece's events, owned.
    pub(super) events: Vec<(Event<'static>, Range<usize>)>,
}

/// The events a piece inside a table left in [`Scratch`], taken in turn.
pub(super) struct Held<'b> {
    pub(super) scratch: &'b RefCell<Scratch>,
    pub(super) at: usize,
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
pub(super) fn headed(joined: &mut String, body: &str, head: Range<usize>, text: &str) {
    let head = body.get(head).unwrap_or_default();
    joined.clear();
    joined.reserve(head.len() + text.len());
    joined.push_str(head);
    joined.push_str(text);
}

/// The events of `text` with its offsets, a reference to a label it does not define
/// resolved from `defs`.
pub(super) fn parser<'t>(
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
pub(super) const PIECE_REFERENCE_BUDGET: usize = 50_000;

/// What the references of `body[piece]` spend of pulldown-cmark's expansion budget (and
/// those of the table head it is read after: the piece's parser spends them again).
pub(super) fn reference_spend(
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
pub(super) fn is_reference(link_type: LinkType) -> bool {
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
pub(super) struct ListCut {
    /// A top-level list is open.
    pub(super) open: bool,
    /// Where it starts (in this window).
    pub(super) start: usize,
    /// Its items so far in this window.
    pub(super) items: usize,
    /// The first blank line at or after every offset from `.0` to it (`.1`), and whether a
    /// list open before it has ended by then (`.2`): one scan serves every list and cut in
    /// that stretch.
    pub(super) blank: Option<(usize, usize, bool)>,
    /// Whether a blank line comes before the item before the last, and before the last (in
    /// this window's part of the list).
    pub(super) gaps: [bool; 2],
    /// The last item: where it starts and the blocks counted before it.
    pub(super) last: Option<(usize, usize)>,
    /// Where the last block inside a top-level item ended: a blank line before it is inside
    /// that block (a fence or an HTML block left open to the item's end), not between items.
    pub(super) child_end: usize,
}

impl ListCut {
    /// Notes a `Start` at `depth` and offset `at` (before it is counted in).
    pub(super) fn start(&mut self, tag: &Tag<'_>, depth: usize, at: usize) {
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
    pub(super) fn loose_cut(
        &mut self,
        body: &str,
        at: usize,
        counted: usize,
    ) -> Option<(usize, usize)> {
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
    pub(super) fn may_cut(&mut self, body: &str, at: usize) -> bool {
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
pub(super) fn first_blank_line(body: &str, at: usize) -> usize {
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
pub(super) fn tight_to_its_end(body: &str, blank: usize) -> bool {
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
pub(super) fn is_blank_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Whether `line` starts like a list item: `-`, `+`, `*`, or one to nine digits and `.` or
/// `)`, then a space, a tab or the line's end.
pub(super) fn is_list_marker(line: &str) -> bool {
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
pub(super) fn last_metadata_close(body: &str) -> Option<usize> {
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
pub(super) fn closes_metadata(line: &[u8]) -> bool {
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
pub(super) fn opens_metadata(body: &str, at: usize) -> bool {
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
pub(super) fn line_end(text: &str, at: usize) -> usize {
    text.as_bytes()
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(text.len(), |i| at + i + 1)
}

/// Where the line of a paragraph starting at `at` in a top-level block quote starts, when
/// the quote may be cut there: the line is `>` at the margin, one space or none, then the
/// paragraph; the line before it is `>` and blank space alone (the quote's blank line). A
/// piece from there is a quote of its own, whose paragraphs read as the one quote's did.
pub(super) fn quote_cut(body: &str, at: usize) -> Option<usize> {
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
pub(super) struct Table {
    /// Where the table's header line starts.
    pub(super) line: usize,
    /// Its header and delimiter lines, once its first row is seen.
    pub(super) head: Option<Range<usize>>,
    /// Its empty cells so far.
    pub(super) filled: usize,
    /// A piece starts inside it.
    pub(super) continued: bool,
}

/// Empty cells in a table that is cut in pieces that read it whole: half of
/// pulldown-cmark's limit on cells it fills (`MAX_AUTOCOMPLETED_CELLS`).
pub(super) const TABLE_FILLED: usize = 1 << 17;

/// Where the line holding offset `at` starts.
pub(super) fn line_start(text: &str, at: usize) -> usize {
    text.get(..at)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// Where the line before the one starting at `at` starts.
pub(super) fn line_before(text: &str, at: usize) -> usize {
    let before = text.get(..at).unwrap_or_default();
    let before = before
        .strip_suffix("\r\n")
        .or_else(|| before.strip_suffix(['\n', '\r']))
        .unwrap_or(before);
    before.rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// Whether the line before offset `at` (which starts a line) is blank.
pub(super) fn after_blank_line(text: &str, at: usize) -> bool {
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
pub(super) fn is_inline(event: &Event<'_>) -> bool {
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
/// [`super::super::MAX_CODES`] is refused by, in the reader and in the plan.
#[derive(Default)]
pub(super) struct Marks {
    pub(super) count: usize,
    /// Starts open inside an element that is one code whole (the element's own included).
    pub(super) inside_whole: usize,
    /// Where the block starts, as the reader names it: a leaf's `Start`, or the first inline
    /// event of text straight inside a container (a tight list item's).
    pub(super) at: Option<usize>,
}

impl Marks {
    /// Counting afresh after a block edge at `at` (a leaf's start is the block's).
    pub(super) fn after(edge: &Event<'_>, at: usize) -> Marks {
        let leaf = matches!(edge, Event::Start(tag) if is_leaf(tag));
        Marks {
            at: leaf.then_some(at),
            ..Marks::default()
        }
    }

    /// Where the block counted starts (`or` when no event of it was seen).
    pub(super) fn start(&self, or: usize) -> usize {
        self.at.unwrap_or(or)
    }

    /// Counts `event`, at offset `at`; the count so far.
    pub(super) fn see(&mut self, event: &Event<'_>, at: usize) -> usize {
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
pub(super) fn is_block_edge(event: &Event<'_>) -> bool {
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

/// Where a block starts that holds more than [`super::super::MAX_CODES`] codes in `body[range]`,
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
pub(super) fn dense_block(
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
            } else if marks.see(&event, at + offsets.start) > super::super::MAX_CODES {
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
pub(super) fn table_stretches(body: &str, range: Range<usize>) -> Vec<Range<usize>> {
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
pub(super) fn metadata_end(body: &str, at: usize) -> usize {
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
pub(super) fn may_be_delimiter_row(line: &str) -> bool {
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
