//! Text positions: byte offsets to 1-based lines and columns, and the prose view analyzers read.

use crate::model::{Edition, Run};
use std::borrow::Cow;

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

/// The character that stands for an inline code in the prose view: it separates words and
/// counts as one opaque character, so no rule matches across a code.
pub const CODE_MARK: char = '\u{FFFC}';

/// One edition's prose as analyzers read it: text runs joined, each code replaced by
/// [`CODE_MARK`], with a map from offsets in this view back to offsets in the file. An
/// edition of one text run is its own prose: the view borrows it (a paragraph of 4 MB is not
/// copied to be checked).
#[derive(Debug, Clone, Default)]
pub struct Prose<'a> {
    pub text: Cow<'a, str>,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone)]
struct Segment {
    start: usize,
    len: usize,
    file: Option<usize>,
    verbatim: bool,
}

impl Segment {
    /// A text run's segment, at `start` of the view.
    fn text(start: usize, text: &str, file: Option<usize>) -> Self {
        Segment {
            start,
            len: text.len(),
            file,
            verbatim: true,
        }
    }
}

impl<'a> Prose<'a> {
    pub fn from_edition(edition: &'a Edition) -> Self {
        if let [Run::Text { text, src }] = edition.runs.as_slice() {
            return Prose {
                text: Cow::Borrowed(text),
                segments: vec![Segment::text(0, text, *src)],
            };
        }
        let mut prose = Prose::default();
        prose.push_runs(&edition.runs);
        prose
    }

    /// A switch reads as a code mark, then each branch's prose followed by a code mark, so
    /// the analyzers see every form's words.
    fn push_runs(&mut self, runs: &[Run]) {
        let prose = self;
        for run in runs {
            let start = prose.text.len();
            match run {
                Run::Text { text, src } => {
                    prose.text.to_mut().push_str(text);
                    prose.segments.push(Segment::text(start, text, *src));
                }
                Run::Code(code) => prose.push_mark(code.src),
                Run::Switch(switch) => {
                    prose.push_mark(switch.src);
                    for branch in &switch.branches {
                        prose.push_runs(&branch.runs);
                        prose.push_mark(None);
                    }
                }
            }
        }
    }

    fn push_mark(&mut self, file: Option<usize>) {
        let start = self.text.len();
        self.text.to_mut().push(CODE_MARK);
        self.segments.push(Segment {
            start,
            len: CODE_MARK.len_utf8(),
            file,
            verbatim: false,
        });
    }

    /// The file offset of a position in this view, when the run it falls in was read
    /// verbatim; otherwise the start of that run, or `None` when nothing maps.
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

    /// The text at `range`, as a finding quotes what it matched: none when the range is empty
    /// or does not fall on character boundaries.
    pub fn matched(&self, range: std::ops::Range<usize>) -> Option<String> {
        self.text
            .get(range)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Code, CodeKind};

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
