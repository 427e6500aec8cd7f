//! Planning a large Markdown file's pieces: a pass over windows of the file that finds the
//! cuts between blocks, counts the blocks and gathers the link reference definitions.

use super::*;

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
/// more than [`super::super::MAX_CODES`] codes is found here, before a window grows around it: its
/// start is the error, and the file is refused.
pub(super) fn plan(body: &str, piece: usize) -> Result<Plan, usize> {
    let piece = piece.max(1);
    // A file the windows cannot cut (below) is still counted to its end. pulldown-cmark ends
    // a line at a bare `\r`, but scans a fence's info string and an indented code block's
    // lines to the next `\n`, so what a bare `\r` ends may reach past a cut: such a file
    // (old Mac line ends) is read whole.
    let b = body.as_bytes();
    let whole = b
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'));
    let mut planner = Planner {
        body,
        piece,
        cuts: Vec::new(),
        blocks: FRONT_FIELDS.len(),
        from: 0,
        whole,
        // pulldown-cmark opens a metadata block at any `---` line followed by text (in a
        // quote or a list item too) when a `---` or `...` line closes it further on, however
        // far: where the last such line starts, to tell a window whose end hides a closing
        // line.
        last_closing: last_metadata_close(body),
        span: 3 * piece,
        lists: ListCut::default(),
        defs: Defs::default(),
        heads: Heads::default(),
        filled: 0,
    };
    // The file is planned a window at a time, from the last cut: the parser's tree is a
    // window's, never the file's. A window ends at a line's end; a cut is taken only where
    // what the window leaves out cannot bear on it (a block's start depends on the lines
    // before it alone), so at least half a piece before the window's end. A window with no
    // cut grows until it finds one or reaches the end. No cut at all when a `---` line in a
    // window may open a metadata block that a line past the window closes.
    while planner.from < body.len() {
        if !planner.window()? {
            break;
        }
    }
    let Planner {
        mut cuts,
        mut heads,
        mut defs,
        blocks,
        mut whole,
        ..
    } = planner;
    if !whole && !defs.is_empty() && !cuts.is_empty() {
        whole = references_spend_too_much(body, &cuts, &heads, &defs);
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

/// Whether the pieces' references spend too much of pulldown-cmark's expansion budget for
/// the file to be read in pieces ([`PIECE_REFERENCE_BUDGET`], or half the file's).
fn references_spend_too_much(body: &str, cuts: &[usize], heads: &Heads, defs: &Defs) -> bool {
    let budget = body.len().max(100_000) / 2;
    let (mut spent, mut from) = (0usize, 0);
    for cut in cuts.iter().copied().chain([body.len()]) {
        let piece = reference_spend(body, from..cut, heads.get(&from).cloned(), defs);
        spent = spent.saturating_add(piece);
        if piece >= PIECE_REFERENCE_BUDGET || spent >= budget {
            return true;
        }
        from = cut;
    }
    false
}

/// A window's link reference definitions, at their offsets in the body, leaving out those
/// of a table head it was read after (before `skip`).
fn window_definitions(
    found: &pulldown_cmark::RefDefs<'_>,
    from: usize,
    skip: usize,
) -> Vec<(usize, String, CowStr<'static>, CowStr<'static>)> {
    found
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
        .collect()
}

/// What [`plan`] has found so far, and where its next window starts.
struct Planner<'b> {
    body: &'b str,
    piece: usize,
    cuts: Vec<usize>,
    blocks: usize,
    /// Where the next window starts: the last cut.
    from: usize,
    /// The file is read whole.
    whole: bool,
    last_closing: Option<usize>,
    /// The next window's length.
    span: usize,
    lists: ListCut,
    defs: Defs,
    heads: Heads,
    /// The empty cells of the table the window starts inside, before the window.
    filled: usize,
}

impl Planner<'_> {
    /// Plans the window from `from`: takes its cut, or doubles the window when it has
    /// none. Returns false once the file's last window is planned.
    fn window(&mut self) -> Result<bool, usize> {
        let (body, piece, from) = (self.body, self.piece, self.from);
        let end = line_end(body, from.saturating_add(self.span));
        // A long line stretches the window, and its tree with it: a block too dense with
        // codes to read is refused before the window is parsed whole.
        // A window inside a table is not counted: its rows would read as one paragraph.
        if end - from > self.span + piece
            && !self.heads.contains_key(&from)
            && let Some(at) = dense_block(body, from..end, piece, self.last_closing)
        {
            return Err(at);
        }
        let last = end == body.len();
        let window = body.get(from..end).unwrap_or_default();
        // A window that starts inside a table is read after the table's head, whose events
        // (those before `skip`) were planned where the table starts.
        let head = self.heads.get(&from).cloned();
        let mut joined = String::new();
        if let Some(head) = head.clone() {
            headed(&mut joined, body, head, window);
        }
        let text = if joined.is_empty() { window } else { &joined };
        let skip = text.len() - window.len();
        let events = Parser::new_ext(text, options()).into_offset_iter();
        // The window's definitions; those before its cut are the file's (the next window
        // reads the rest).
        let found = window_definitions(events.reference_definitions(), from, skip);
        let table = head.map(|head| Table {
            line: head.start,
            head: Some(head),
            filled: self.filled,
            continued: true,
        });
        self.lists.open = false;
        let closes_past = self.last_closing.is_some_and(|c| c >= end);
        let mut scan = WindowScan {
            planner: self,
            window: Window {
                from,
                end,
                last,
                skip,
            },
            depth: 0,
            next: None,
            first: None,
            counted: 0,
            top_quote: false,
            table,
            next_head: None,
            metadata: Vec::new(),
            closes_past,
            marks: Marks::default(),
        };
        for (event, range) in events {
            if !scan.event(event, range)? {
                break;
            }
        }
        let WindowScan {
            next,
            counted,
            next_head,
            metadata,
            ..
        } = scan;
        // Only what lies before the cut is this window's; the next window sees the rest.
        self.whole |= metadata
            .iter()
            .any(|&rule| next.is_none_or(|(cut, _)| rule < cut));
        if next.is_some() || last {
            for (at, label, dest, title) in found {
                if next.is_none_or(|(cut, _)| at < cut) {
                    // A label defined twice: the first definition is every reference's.
                    self.whole |= self
                        .defs
                        .insert(UniCase::new(label), (dest, title))
                        .is_some();
                }
            }
        }
        match next {
            Some((cut, counted)) => {
                self.blocks += counted;
                self.cuts.push(cut);
                if let Some((head, before)) = next_head {
                    self.heads.insert(cut, head);
                    self.filled = before;
                }
                self.from = cut;
                self.span = 3 * piece;
            }
            None if last => {
                self.blocks += counted;
                return Ok(false);
            }
            None => self.span = self.span.saturating_mul(2),
        }
        Ok(true)
    }
}

/// Where a window lies, in the body and in the text it is parsed as.
#[derive(Clone, Copy)]
struct Window {
    from: usize,
    end: usize,
    /// It reaches the end of the body.
    last: bool,
    /// The length of the table head it is parsed after.
    skip: usize,
}

/// A window's events as [`Planner::window`] reads them. The cut is the last place that may
/// start a piece, up to two pieces past the first (so a piece is about two and a half pieces
/// long and each byte is parsed about 1.2 times here, not three), with the blocks before it.
struct WindowScan<'p, 'b> {
    planner: &'p mut Planner<'b>,
    window: Window,
    depth: usize,
    /// The cut, and the blocks counted before it.
    next: Option<(usize, usize)>,
    /// The first place a cut was possible.
    first: Option<usize>,
    counted: usize,
    /// The top-level block open is a block quote.
    top_quote: bool,
    /// The top-level table open, and where a cut inside it leaves the next window.
    table: Option<Table>,
    next_head: Option<(Range<usize>, usize)>,
    /// `---` lines that may open a metadata block closed past the window: a thematic break
    /// or a paragraph's start here (`---` and a form feed is no break).
    metadata: Vec<usize>,
    closes_past: bool,
    /// The codes of the block being planned, and where it starts: a block past
    /// MAX_CODES is refused here, before a window grows around it.
    marks: Marks,
}

impl WindowScan<'_, '_> {
    /// Reads one event; false when the window is planned far enough.
    fn event(&mut self, event: Event<'_>, range: Range<usize>) -> Result<bool, usize> {
        let w = self.window;
        if range.start < w.skip {
            match event {
                Event::Start(_) => self.depth += 1,
                Event::End(_) => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            if self.depth == 0 {
                self.table = None;
            }
            return Ok(true);
        }
        let at = w.from + range.start - w.skip;
        if is_block_edge(&event) {
            self.marks = Marks::after(&event, at);
        } else if self.marks.see(&event, at) > super::super::MAX_CODES {
            return Err(self.marks.start(at));
        }
        if self.closes_past
            && matches!(event, Event::Start(_) | Event::Rule)
            && opens_metadata(self.planner.body, at)
        {
            self.metadata.push(at);
        }
        match event {
            Event::Start(tag) => return Ok(self.start(&tag, at, range)),
            Event::End(_) => {
                if self.depth == 3 {
                    // A block of a top-level item ends (a list's: the top is one).
                    self.planner.lists.child_end = w.from + range.end - w.skip;
                }
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.planner.lists.open = false;
                    self.table = None;
                }
            }
            _ => {}
        }
        Ok(true)
    }

    /// A `Start` at `at`: the cuts it allows. False when it lies too far past the first.
    fn start(&mut self, tag: &Tag<'_>, at: usize, range: Range<usize>) -> bool {
        let (body, piece, w) = (self.planner.body, self.planner.piece, self.window);
        if self
            .first
            .is_some_and(|first: usize| at > first.saturating_add(2 * piece))
        {
            return false;
        }
        let depth = self.depth;
        let far = at >= w.from + piece && (w.last || at + piece / 2 < w.end);
        let block = depth == 0
            && matches!(tag, Tag::Paragraph | Tag::Heading { .. })
            && after_blank_line(body, at);
        let item = depth == 1 && matches!(tag, Tag::Item);
        if depth == 0 {
            self.top_quote = matches!(tag, Tag::BlockQuote(_));
            self.table = matches!(tag, Tag::Table(_)).then(|| Table {
                line: line_start(body, at),
                head: None,
                filled: 0,
                continued: false,
            });
        }
        if depth == 1 && matches!(tag, Tag::TableRow) {
            self.table_row(at, far);
        }
        if depth == 2
            && matches!(tag, Tag::TableCell)
            && range.is_empty()
            && let Some(table) = self.table.as_mut()
        {
            table.filled += 1;
            self.planner.whole |= table.continued && table.filled >= TABLE_FILLED;
        }
        // A paragraph of a top-level quote after one of its blank lines: the
        // quote is cut where its line starts.
        if far
            && self.top_quote
            && depth == 1
            && matches!(tag, Tag::Paragraph)
            && let Some(line) = quote_cut(body, at)
            && self.next.is_none_or(|(n, _)| n < line)
            && line >= w.from + piece
        {
            self.cut_at(line, self.counted, None);
        }
        if far && (block || item && self.planner.lists.may_cut(body, at)) {
            self.cut_at(at, self.counted, None);
        }
        // A loose list's cut is known at the item after it.
        if item && let Some((cut, before)) = self.planner.lists.loose_cut(body, at, self.counted) {
            let far = cut >= w.from + piece && (w.last || cut + piece / 2 < w.end);
            if far && self.next.is_none_or(|(n, _)| n < cut) {
                self.cut_at(cut, before, None);
            }
        }
        self.planner.lists.start(tag, depth, at);
        // A tight list item's text is a block without a paragraph of its own.
        if matches!(tag, Tag::Item) || is_leaf(tag) {
            self.counted += 1;
        }
        self.depth += 1;
        true
    }

    /// A row of a top-level table but its first: the table is cut where the row's line
    /// starts.
    fn table_row(&mut self, at: usize, far: bool) {
        let (body, piece, from) = (self.planner.body, self.planner.piece, self.window.from);
        let Some(table) = self.table.as_mut() else {
            return;
        };
        let line = line_start(body, at);
        let head = match &table.head {
            None => {
                table.head = Some(table.line..line);
                return;
            }
            Some(head)
                if far
                    && line >= from + piece
                    && self.next.is_none_or(|(n, _)| n < line)
                    && body.as_bytes()[line..at]
                        .iter()
                        .all(|&b| b == b' ' || b == b'\t') =>
            {
                (head.clone(), table.filled)
            }
            Some(_) => return,
        };
        self.cut_at(line, self.counted, Some(head));
    }

    /// Takes the cut at `cut`, with the blocks counted before it and the table head the
    /// next window is read after.
    fn cut_at(&mut self, cut: usize, before: usize, head: Option<(Range<usize>, usize)>) {
        self.first.get_or_insert(cut);
        self.next = Some((cut, before));
        self.next_head = head;
    }
}
