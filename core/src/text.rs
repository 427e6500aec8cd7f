//! Text positions: byte offsets to 1-based lines and columns, and the prose view analyzers read.

use crate::model::{CodeKind, Edition, Run};
use std::borrow::Cow;
use std::ops::Range;

/// Maps byte offsets in a file to 1-based line and column (columns count characters).
///
/// A position costs a binary search and, in a non-ASCII text, counting at most
/// [`MARK_EVERY`] bytes of characters: the index keeps the column of a character every
/// `MARK_EVERY` bytes, so a finding deep in a long line does not count the line from its
/// start (which made a check of one long line quadratic in its findings). An ASCII text needs
/// no marks: a column is a byte count.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Where each line starts: 4 bytes a line, as a text under [`crate::formats::MAX_INPUT_BYTES`]
    /// needs (a longer text's later lines all start at `u32::MAX`).
    starts: Vec<u32>,
    ascii: bool,
    /// `(offset, characters before it on its line)`, increasing, one every [`MARK_EVERY`]
    /// bytes at a character boundary; empty for an ASCII text.
    marks: Vec<(usize, usize)>,
}

/// How far apart the column marks of a non-ASCII text are, in bytes.
pub const MARK_EVERY: usize = 4096;

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts: Vec<u32> = vec![0];
        let at = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
        let bytes = text.as_bytes();
        let ascii = text.is_ascii();
        let mut marks = Vec::new();
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(at));
        if !ascii {
            marks = column_marks(bytes, &starts);
        }
        Self {
            starts,
            ascii,
            marks,
        }
    }

    /// The 1-based line holding `offset`.
    pub fn line(&self, offset: usize) -> usize {
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// 1-based line and column (in characters) of `offset` in `text`, the text the index was
    /// built from.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        let start = self.starts[line - 1] as usize;
        let end = offset.min(text.len());
        if self.ascii {
            return (line, end.saturating_sub(start) + 1);
        }
        let (from, before) = match self.marks.partition_point(|&(at, _)| at <= end) {
            0 => (start, 0),
            i => match self.marks[i - 1] {
                (at, column) if at >= start => (at, column),
                _ => (start, 0),
            },
        };
        let column = before
            + text
                .get(from..end)
                .map_or(end.saturating_sub(from), |s| s.chars().count())
            + 1;
        (line, column)
    }
}

/// The column marks of a non-ASCII text with line starts `starts`: at the first character
/// boundary at or past every [`MARK_EVERY`] bytes, the characters before it on its line
/// (counted a chunk at a time, which the compiler vectorises).
fn column_marks(bytes: &[u8], starts: &[u32]) -> Vec<(usize, usize)> {
    let boundary = |b: &&u8| (**b & 0xC0) != 0x80;
    let mut marks = Vec::new();
    let (mut line, mut counted_to, mut column) = (0, 0, 0);
    let mut next = MARK_EVERY;
    while let Some(offset) = bytes
        .get(next..)
        .and_then(|rest| rest.iter().position(|b| boundary(&b)))
    {
        let at = next + offset;
        while starts.get(line + 1).is_some_and(|&s| s as usize <= at) {
            line += 1;
        }
        let line_start = starts.get(line).map_or(0, |&s| s as usize);
        if line_start > counted_to {
            (counted_to, column) = (line_start, 0);
        }
        column += bytes
            .get(counted_to..at)
            .map_or(0, |b| b.iter().filter(boundary).count());
        counted_to = at;
        marks.push((at, column));
        next = at + MARK_EVERY;
    }
    marks
}

/// The character that stands for a standalone inline code in the prose view: it separates
/// words and counts as one opaque character, so no rule matches across a code.
pub const CODE_MARK: char = '\u{FFFC}';

/// One edition's prose as analyzers read it, as a reader sees it: text runs joined, a paired
/// formatting code (emphasis, strong, a link's `[` and `](url)`: [`CodeKind::Open`] and
/// [`CodeKind::Close`]) gone so its words read on, each standalone code (a placeholder, inline
/// code, an image, inline HTML, a hard line break) one [`CODE_MARK`], and a switch a mark, then
/// each branch's prose followed by a mark. `**Open the settings first.** Then` reads
/// `Open the settings first. Then`, so the sentence ends where a reader sees it end.
///
/// Every offset maps back to the file ([`Prose::file_offset`], [`Prose::file_end`]): a text
/// run read verbatim maps one to one, a mark maps to its code's bytes. An edition whose only
/// text is one run (alone, or between paired codes: `**Note**`) is its own prose: the view
/// borrows it (a paragraph of 4 MB is not copied to be checked). A literal U+FFFC in the text
/// stays as written and reads as a mark would.
#[derive(Debug, Clone, Default)]
pub struct Prose<'a> {
    pub text: Cow<'a, str>,
    segments: Vec<Segment>,
    /// Where each paired code that opens sits in the file, by its end; those that close, by
    /// their start (for [`Prose::widen`]).
    opens: Vec<Range<usize>>,
    closes: Vec<Range<usize>>,
}

/// A run's place in the view: a text run, or the mark of a standalone code or a switch.
#[derive(Debug, Clone)]
struct Segment {
    start: usize,
    len: usize,
    /// Where the run starts in the file, when it does.
    file: Option<usize>,
    /// For a mark, where its code ends in the file, when that is known.
    mark_end: Option<usize>,
    /// A text run read verbatim: its offsets map one to one (a mark maps to its code whole).
    verbatim: bool,
}

impl Segment {
    /// A text run's segment, at `start` of the view.
    fn text(start: usize, text: &str, file: Option<usize>) -> Self {
        Segment {
            start,
            len: text.len(),
            file,
            mark_end: None,
            verbatim: true,
        }
    }
}

impl<'a> Prose<'a> {
    pub fn from_edition(edition: &'a Edition) -> Self {
        let mut prose = match lone_text(&edition.runs) {
            Some((text, src)) => {
                let mut prose = Prose {
                    text: Cow::Borrowed(text),
                    segments: vec![Segment::text(0, text, src)],
                    ..Prose::default()
                };
                for run in &edition.runs {
                    if let Run::Code(code) = run {
                        prose.push_pair(code);
                    }
                }
                prose
            }
            None => {
                let mut prose = Prose::default();
                prose.push_runs(&edition.runs);
                prose
            }
        };
        prose.opens.sort_by_key(|r| r.end);
        prose.closes.sort_by_key(|r| r.start);
        prose
    }

    /// Notes where a paired code sits in the file.
    fn push_pair(&mut self, code: &crate::model::Code) {
        let Some(src) = code.src else { return };
        let at = src..src + code.data.len();
        match code.kind {
            CodeKind::Open => self.opens.push(at),
            CodeKind::Close => self.closes.push(at),
            CodeKind::Standalone => {}
        }
    }

    fn push_runs(&mut self, runs: &[Run]) {
        for run in runs {
            let start = self.text.len();
            match run {
                Run::Text { text, src } => {
                    self.text.to_mut().push_str(text);
                    self.segments.push(Segment::text(start, text, *src));
                }
                Run::Code(code) if code.kind == CodeKind::Standalone => {
                    let end = code.src.map(|src| src + code.data.len());
                    self.push_mark(code.src, end);
                }
                Run::Code(code) => self.push_pair(code),
                Run::Switch(switch) => {
                    self.push_mark(switch.src, None);
                    for branch in &switch.branches {
                        self.push_runs(&branch.runs);
                        self.push_mark(None, None);
                    }
                }
            }
        }
    }

    fn push_mark(&mut self, file: Option<usize>, mark_end: Option<usize>) {
        let start = self.text.len();
        self.text.to_mut().push(CODE_MARK);
        self.segments.push(Segment {
            start,
            len: CODE_MARK.len_utf8(),
            file,
            mark_end,
            verbatim: false,
        });
    }

    /// The file offset of a position in this view, when the run it falls in was read
    /// verbatim; otherwise the start of that run, or `None` when nothing maps. A position
    /// between two runs maps to the start of the second (past a paired code between them).
    pub fn file_offset(&self, offset: usize) -> Option<usize> {
        let index = self.segments.partition_point(|s| s.start + s.len <= offset);
        let segment = self.segments.get(index).or_else(|| self.segments.last())?;
        let file = segment.file?;
        if segment.verbatim && offset >= segment.start {
            Some(file + (offset - segment.start).min(segment.len))
        } else {
            Some(file)
        }
    }

    /// The file offset just past the last character of `range` (a paired code after it is not
    /// included; a mark's code is, whole): `None` when it does not map. An empty range ends
    /// where it starts.
    pub fn file_end(&self, range: &Range<usize>) -> Option<usize> {
        if range.is_empty() {
            return self.file_offset(range.start);
        }
        let last = range.end - 1;
        let index = self.segments.partition_point(|s| s.start + s.len <= last);
        let segment = self.segments.get(index)?;
        if segment.verbatim {
            let within = range.end.min(segment.start + segment.len) - segment.start;
            segment.file.map(|file| file + within)
        } else {
            segment.mark_end.or_else(|| self.file_offset(range.end))
        }
    }

    /// A span of the file (a whole sentence's, as [`Prose::file_offset`] and
    /// [`Prose::file_end`] place it) with the paired codes that open right before it and close
    /// right after it: `**Open the settings first.**` rather than
    /// `Open the settings first.`.
    pub fn widen(&self, span: Range<usize>) -> Range<usize> {
        let (mut start, mut end) = (span.start, span.end);
        // Each step moves past one code: at most as many steps as codes.
        while let Some(open) = self
            .opens
            .get(self.opens.partition_point(|r| r.end < start))
            .filter(|r| r.end == start && r.start < start)
        {
            start = open.start;
        }
        while let Some(close) = self
            .closes
            .get(self.closes.partition_point(|r| r.start < end))
            .filter(|r| r.start == end && r.end > end)
        {
            end = close.end;
        }
        start..end
    }

    /// The text at `range`, as a finding quotes what it matched: none when the range is empty
    /// or does not fall on character boundaries.
    pub fn matched(&self, range: Range<usize>) -> Option<String> {
        self.text
            .get(range)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }
}

/// The one text run of `runs` and its file offset, when every other run is a paired code.
fn lone_text(runs: &[Run]) -> Option<(&str, Option<usize>)> {
    let mut found = None;
    for run in runs {
        match run {
            Run::Text { text, src } if found.is_none() => found = Some((text.as_str(), *src)),
            Run::Code(code) if code.kind != CodeKind::Standalone => {}
            _ => return None,
        }
    }
    found
}

/// Appends an edition's prose, as [`Prose::from_edition`] reads it, to `out`, without the map
/// back to the file (a document's joined prose).
pub fn push_prose(out: &mut String, runs: &[Run]) {
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(code) if code.kind == CodeKind::Standalone => out.push(CODE_MARK),
            Run::Code(_) => {}
            Run::Switch(switch) => {
                out.push(CODE_MARK);
                for branch in &switch.branches {
                    push_prose(out, &branch.runs);
                    out.push(CODE_MARK);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Code;

    #[test]
    fn matched_quotes_a_non_empty_range_on_char_boundaries() {
        let prose = Prose {
            text: "ça va".into(),
            ..Prose::default()
        };
        assert_eq!(prose.matched(0..2).as_deref(), Some("ç"));
        assert_eq!(prose.matched(3..3), None);
        assert_eq!(prose.matched(0..1), None, "inside `ç`");
        assert_eq!(prose.matched(4..9), None, "past the end");
    }

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let text = "ab\nçd e\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0), (1, 1));
        assert_eq!(index.position(text, 3), (2, 1));
        assert_eq!(index.position(text, 6), (2, 3)); // after "çd": ç is 2 bytes
    }

    #[test]
    fn positions_past_a_column_mark_count_from_it() {
        // Lines longer than the mark distance, with multi-byte characters on both sides of
        // the marks: every position agrees with counting the line from its start.
        let line = "ab ç é ".repeat(MARK_EVERY / 3);
        // Marks on long lines, and on short lines (a mark on a line break, after a run of
        // short lines, inside a multi-byte character).
        let short: String = (0..3 * MARK_EVERY / 8)
            .map(|i| ["é\n", "a\n", "\n", "ça\u{1F600}\n"][i % 4])
            .collect();
        // A mark on the first byte of a line.
        let at_start = format!("é{}\nbé{line}", "a".repeat(MARK_EVERY - 3));
        for text in [
            format!("{line}\nx{line}\n"),
            short,
            format!("\u{1F600}{line}"),
            at_start,
        ] {
            let index = LineIndex::new(&text);
            assert!(!index.marks.is_empty());
            let (mut line_no, mut column) = (1, 1);
            for (at, c) in text.char_indices() {
                assert_eq!(index.position(&text, at), (line_no, column), "at {at}");
                if c == '\n' {
                    (line_no, column) = (line_no + 1, 1);
                } else {
                    column += 1;
                }
            }
        }
        let text = format!("{line}\nx{line}\n");
        assert_eq!(LineIndex::new(&text).position(&text, text.len()), (3, 1));
    }

    /// `Read **the guide first.** Then [open](u) it.` as a Markdown reader reads it, at its
    /// file offsets.
    fn marked_up() -> (&'static str, Edition) {
        let file = "Read **the guide first.** Then [open](u) it, `x`.";
        let pair = |id: &str, kind, data: &str, at: usize| {
            let mut code = Code::new(id, kind, "strong", data, true);
            code.src = Some(at);
            Run::from(code)
        };
        let mut code = Code::new("4", CodeKind::Standalone, "code", "`x`", false);
        code.src = Some(45);
        let edition = Edition::new(vec![
            Run::text_at("Read ", 0),
            pair("1", CodeKind::Open, "**", 5),
            Run::text_at("the guide first.", 7),
            pair("1", CodeKind::Close, "**", 23),
            Run::text_at(" Then ", 25),
            pair("2", CodeKind::Open, "[", 31),
            Run::text_at("open", 32),
            pair("2", CodeKind::Close, "](u)", 36),
            Run::text_at(" it, ", 40),
            Run::from(code),
            Run::text_at(".", 48),
        ]);
        (file, edition)
    }

    #[test]
    fn paired_codes_vanish_and_standalone_codes_are_one_mark() {
        let (file, edition) = marked_up();
        let prose = Prose::from_edition(&edition);
        assert_eq!(prose.text, "Read the guide first. Then open it, \u{FFFC}.");
        // Every word maps back to its bytes in the file.
        for word in ["Read", "guide", "first.", "Then", "open", "it,"] {
            let at = prose.text.find(word).unwrap_or_default();
            let range = at..at + word.len();
            let start = prose.file_offset(at).unwrap_or_default();
            let end = prose.file_end(&range).unwrap_or_default();
            assert_eq!(&file[start..end], word);
        }
        // A range across a vanished code spans its bytes; one ending on a mark, the code's.
        let across = prose.text.find("first. Then").unwrap_or_default();
        let range = across..across + "first. Then".len();
        let (start, end) = (prose.file_offset(range.start), prose.file_end(&range));
        assert_eq!(&file[start.unwrap_or(0)..end.unwrap_or(0)], "first.** Then");
        let mark = prose.text.find(CODE_MARK).unwrap_or_default();
        let range = prose.text.find("it").unwrap_or_default()..mark + CODE_MARK.len_utf8();
        let (start, end) = (prose.file_offset(range.start), prose.file_end(&range));
        assert_eq!(&file[start.unwrap_or(0)..end.unwrap_or(0)], "it, `x`");
        let mut joined = String::new();
        push_prose(&mut joined, &edition.runs);
        assert_eq!(joined, prose.text);
    }

    #[test]
    fn one_text_run_between_paired_codes_is_borrowed() {
        let edition = Edition::new(vec![
            Code::new("1", CodeKind::Open, "strong", "**", true).into(),
            Run::text_at("Note", 2),
            Code::new("1", CodeKind::Close, "strong", "**", true).into(),
        ]);
        let prose = Prose::from_edition(&edition);
        assert!(matches!(prose.text, Cow::Borrowed("Note")));
        assert_eq!(prose.file_offset(0), Some(2));
        assert_eq!(prose.file_end(&(0..4)), Some(6));
        let with_mark = Edition::new(vec![
            Run::text("a "),
            Code::new("1", CodeKind::Standalone, "code", "`b`", false).into(),
        ]);
        assert!(matches!(
            Prose::from_edition(&with_mark).text,
            Cow::Owned(_)
        ));
    }

    #[test]
    fn prose_maps_offsets_through_codes() {
        let edition = Edition::new(vec![
            Run::text_at("Run ", 10),
            Run::Code(Box::new(Code {
                id: "1".into(),
                kind: CodeKind::Standalone,
                class: "code".into(),
                data: "`x`".into(),
                deletable: false,
                attrs: Default::default(),
                src: Some(14),
            })),
            Run::text_at(" now", 17),
        ]);
        let prose = Prose::from_edition(&edition);
        assert_eq!(prose.text, "Run \u{FFFC} now");
        assert_eq!(prose.file_offset(0), Some(10));
        assert_eq!(prose.file_offset(4), Some(14));
        let now = prose.text.find("now").unwrap_or_default();
        assert_eq!(prose.file_offset(now), Some(18));
    }
}
