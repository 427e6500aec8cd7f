//! The readable prose of an edition, as the text tools (`kapi cat`, `grep`, `sed`) show and
//! search it: paired formatting codes vanish and their words stay, a placeholder or other
//! standalone code is one opaque character, and a plural or select reads as its branches.
//!
//! A match never sees markup: `Open the [dashboard](/d)` reads `Open the dashboard`, so a
//! search for `the dashboard` finds it, while a placeholder (`{name}`) is [`MARK`], which no
//! word pattern matches. Each switch reads as a mark, then each branch followed by a mark,
//! the way the analyzers read it ([`crate::text::Prose`]), so a pattern never runs from one
//! branch into the next. [`Readable::display`] shows each mark as what it stands for
//! (`{name}`, `{one: # file | other: # files}`). Every piece of text keeps where it came
//! from: its file offset (for a line and column) and its run, by path (for `sed`).

use crate::model::{CodeKind, Edition, Run};

/// The character that stands for a standalone code or a switch boundary in the view.
pub const MARK: char = crate::text::CODE_MARK;

/// One edition's readable prose.
#[derive(Debug, Clone, Default)]
pub struct Readable {
    pub text: String,
    pieces: Vec<Piece>,
    /// Where the text meets a code: a paired code's place (zero width) or a mark's start.
    stops: Vec<usize>,
    /// What each mark shows as, in order.
    shown: Vec<String>,
}

/// A text run's place in the view.
#[derive(Debug, Clone)]
struct Piece {
    start: usize,
    len: usize,
    src: Option<usize>,
    path: RunPath,
}

/// The displayed text ([`Readable::display`]) and where each view offset lands in it.
#[derive(Debug, Clone)]
pub struct Displayed {
    pub text: String,
    /// `(view offset of a mark, bytes the display adds (or takes) up to and including it)`,
    /// in order.
    marks: Vec<(usize, isize)>,
}

impl Displayed {
    /// `offset` in the view as an offset in [`Displayed::text`].
    pub fn offset(&self, offset: usize) -> usize {
        let before = self.marks.partition_point(|&(at, _)| at < offset);
        let extra = before.checked_sub(1).map_or(0, |i| self.marks[i].1);
        offset.saturating_add_signed(extra)
    }
}

/// Where a text run sits in an edition: its index in the runs, and inside a switch the
/// branch's index then the run's index in the branch, however deep.
pub type RunPath = Vec<usize>;

impl Readable {
    pub fn of(edition: &Edition) -> Readable {
        let mut view = Readable::default();
        view.push_runs(&edition.runs, &mut Vec::new());
        view
    }

    fn push_runs(&mut self, runs: &[Run], path: &mut RunPath) {
        for (i, run) in runs.iter().enumerate() {
            path.push(i);
            match run {
                Run::Text { text, src } => {
                    self.pieces.push(Piece {
                        start: self.text.len(),
                        len: text.len(),
                        src: *src,
                        path: path.clone(),
                    });
                    // A literal U+FFFC in the prose would read as a mark: it reads as U+FFFD,
                    // the same three bytes, so every offset still maps.
                    if text.contains(MARK) {
                        self.text.push_str(&text.replace(MARK, "\u{FFFD}"));
                    } else {
                        self.text.push_str(text);
                    }
                }
                Run::Code(code) if code.kind == CodeKind::Standalone => {
                    self.mark(code.data.clone());
                }
                Run::Code(_) => self.stops.push(self.text.len()),
                Run::Switch(switch) => {
                    for (b, branch) in switch.branches.iter().enumerate() {
                        let lead = if b == 0 { "{" } else { " | " };
                        self.mark(format!("{lead}{}: ", branch.case));
                        path.push(b);
                        self.push_runs(&branch.runs, path);
                        path.pop();
                    }
                    self.mark("}".into());
                }
            }
            path.pop();
        }
    }

    fn mark(&mut self, shown: String) {
        self.stops.push(self.text.len());
        self.text.push(MARK);
        self.shown.push(shown);
    }

    /// The text with each mark shown as what it stands for: a placeholder's native bytes,
    /// a switch's cases and branches.
    pub fn display(&self) -> String {
        if self.shown.is_empty() {
            return self.text.clone();
        }
        let mut out = String::with_capacity(self.text.len());
        let mut shown = self.shown.iter();
        for c in self.text.chars() {
            match c {
                MARK => out.push_str(shown.next().map_or("", String::as_str)),
                c => out.push(c),
            }
        }
        out
    }

    /// [`Readable::display`]'s text with a map from view offsets to offsets in it, built in
    /// one pass so that many matches in one long block each cost a binary search.
    pub fn displayed(&self) -> Displayed {
        let text = self.display();
        let mut marks = Vec::with_capacity(self.shown.len());
        let mut extra = 0isize;
        for ((at, _), shown) in self.text.match_indices(MARK).zip(&self.shown) {
            extra += shown.len() as isize - MARK.len_utf8() as isize;
            marks.push((at, extra));
        }
        Displayed { text, marks }
    }

    /// Whether `range` lies in text alone: no code sits strictly inside it and it holds no
    /// mark. A match that is not can be found but not replaced by `replace_text`.
    pub fn clear(&self, range: &std::ops::Range<usize>) -> bool {
        let first = self.stops.partition_point(|&s| s <= range.start);
        let inside = self.stops.get(first).is_some_and(|&s| s < range.end);
        let at_start_mark = self.text[range.clone()].starts_with(MARK);
        !inside && !at_start_mark
    }

    /// The file offset of `offset`, when the run holding it was read verbatim from a file
    /// (offsets inside it map one to one); `None` when that run was decoded (an escape, an
    /// entity) and keeps no offset.
    pub fn file_offset(&self, offset: usize) -> Option<usize> {
        let i = self.pieces.partition_point(|p| p.start + p.len <= offset);
        let piece = self.pieces.get(i).or_else(|| self.pieces.last())?;
        let src = piece.src?;
        if offset >= piece.start {
            Some(src + (offset - piece.start).min(piece.len))
        } else {
            Some(src)
        }
    }

    /// The text run holding `range` (which must be [`Readable::clear`]) and the range within
    /// that run's text.
    pub fn locate(
        &self,
        range: &std::ops::Range<usize>,
    ) -> Option<(&RunPath, std::ops::Range<usize>)> {
        match self.spans(range).as_slice() {
            [(path, within)] if within.len() == range.len() => Some((*path, within.clone())),
            _ => None,
        }
    }

    /// Each text run `range` covers and the part of it covered, in order: one run for a
    /// range inside a run, several for a range across touching runs (a Markdown soft break
    /// is a run of its own). Empty when the range covers no text.
    pub fn spans(&self, range: &std::ops::Range<usize>) -> Vec<(&RunPath, std::ops::Range<usize>)> {
        let first = self
            .pieces
            .partition_point(|p| p.start + p.len <= range.start);
        self.pieces[first..]
            .iter()
            .take_while(|p| p.start < range.end)
            .filter_map(|p| {
                let from = range.start.max(p.start) - p.start;
                let to = range.end.min(p.start + p.len) - p.start;
                (from < to).then_some((&p.path, from..to))
            })
            .collect()
    }
}

/// The text of the run at `path` in `runs`, mutable.
pub fn text_at_mut<'a>(runs: &'a mut [Run], path: &[usize]) -> Option<&'a mut String> {
    let (&first, rest) = path.split_first()?;
    match (runs.get_mut(first)?, rest) {
        (Run::Text { text, .. }, []) => Some(text),
        (Run::Switch(switch), [branch, rest @ ..]) => {
            text_at_mut(&mut switch.branches.get_mut(*branch)?.runs, rest)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, Code, Switch, SwitchKind};

    fn linked() -> Edition {
        Edition::new(vec![
            Run::text_at("Open the ", 10),
            Code::new("1", CodeKind::Open, "link", "[", false).into(),
            Run::text_at("dashboard", 20),
            Code::new("1", CodeKind::Close, "link", "](/d)", false).into(),
            Run::text(", "),
            Code::new("2", CodeKind::Standalone, "placeholder", "{name}", false).into(),
            Run::text("."),
        ])
    }

    #[test]
    fn paired_codes_vanish_and_standalone_codes_are_marks() {
        let view = Readable::of(&linked());
        assert_eq!(view.text, "Open the dashboard, \u{FFFC}.");
        assert_eq!(view.display(), "Open the dashboard, {name}.");
        let at = view.text.find("dashboard").unwrap();
        assert_eq!(view.file_offset(at + 4), Some(24));
        let shown = view.displayed();
        assert_eq!(
            shown.offset(view.text.len()),
            "Open the dashboard, {name}.".len()
        );
        assert_eq!(shown.offset(at), "Open the ".len());
    }

    #[test]
    fn a_literal_mark_in_the_prose_is_not_a_mark() {
        let edition = Edition::new(vec![
            Run::text("\u{FFFC} a "),
            Code::new("1", CodeKind::Standalone, "placeholder", "{n}", false).into(),
            Run::text(" b€"),
        ]);
        let view = Readable::of(&edition);
        assert_eq!(view.display(), "\u{FFFD} a {n} b€");
        let shown = view.displayed();
        let at = view.text.find('b').unwrap();
        assert_eq!(&shown.text[shown.offset(at)..], "b€");
    }

    #[test]
    fn a_range_across_a_code_is_not_clear_and_locates_nowhere() {
        let view = Readable::of(&linked());
        let across = 4..12; // " the das"
        assert!(!view.clear(&across));
        assert!(view.locate(&across).is_none());
        let inside = 9..18; // "dashboard"
        assert!(view.clear(&inside));
        let (path, range) = view.locate(&inside).unwrap();
        assert_eq!((path.as_slice(), range), (&[2usize][..], 0..9));
        let mark = view.text.find(MARK).unwrap();
        assert!(!view.clear(&(mark..mark + MARK.len_utf8())));
    }

    #[test]
    fn a_switch_reads_as_its_branches_and_locates_into_them() {
        let switch = Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "n".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("one file")]),
                Branch::new("other", vec![Run::text("many files")]),
            ],
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        };
        let mut edition = Edition::new(vec![Run::text("You have "), switch.into()]);
        let view = Readable::of(&edition);
        assert_eq!(
            view.display(),
            "You have {one: one file | other: many files}"
        );
        let at = view.text.find("many").unwrap();
        let shown = view.displayed();
        assert_eq!(&shown.text[shown.offset(at)..shown.offset(at) + 4], "many");
        let (path, range) = view.locate(&(at..at + 4)).unwrap();
        assert_eq!(path.as_slice(), &[1, 1, 0]);
        let path = path.clone();
        let text = text_at_mut(&mut edition.runs, &path).unwrap();
        text.replace_range(range, "several");
        assert!(Readable::of(&edition).text.contains("several files"));
    }
}
