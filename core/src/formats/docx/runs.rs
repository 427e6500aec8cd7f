//! One block's runs: the codes between a paragraph's pieces, classed by what they hold and
//! paired as Open and Close codes when the formatting changes.

use std::ops::Range;

use super::reader::{BOLD, ITALIC, LINK, STRIKE, SUBSCRIPT, SUPERSCRIPT, UNDERLINE};
use super::writer::qualified;
use super::{Tokens, local};
use crate::formats::xml::{self, Token};
use crate::model::{Code, CodeKind, Run};

/// Class names of the formatting flags, in the order they are joined.
const FLAG_NAMES: [(u8, &str); 7] = [
    (LINK, "hyperlink"),
    (BOLD, "bold"),
    (ITALIC, "italic"),
    (UNDERLINE, "underline"),
    (STRIKE, "strike"),
    (SUPERSCRIPT, "superscript"),
    (SUBSCRIPT, "subscript"),
];

fn flag_class(flags: u8) -> String {
    let mut class = String::new();
    for (flag, name) in FLAG_NAMES {
        if flags & flag != 0 {
            if !class.is_empty() {
                class.push('+');
            }
            class.push_str(name);
        }
    }
    class
}

/// The formatting state of a piece: run flags and the hyperlink it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct State {
    pub(super) flags: u8,
    pub(super) link: Option<usize>,
}

impl State {
    pub(super) fn is_plain(self) -> bool {
        self.flags == 0 && self.link.is_none()
    }
}

/// What a transition from one state to the next removes and adds.
fn change(from: State, to: State) -> (u8, u8) {
    let mut removed = from.flags & !to.flags;
    let mut added = to.flags & !from.flags;
    if from.link.is_some() && from.link != to.link {
        removed |= LINK;
    }
    if to.link.is_some() && to.link != from.link {
        added |= LINK;
    }
    (removed, added)
}

/// Builds one block's runs: codes between pieces, paired by formatting.
pub(super) struct RunBuilder<'a> {
    text: &'a str,
    w: &'a str,
    pub(super) runs: Vec<Run>,
    next_id: u32,
    /// Open codes not yet closed: run index, flags.
    open: Vec<(usize, u8)>,
}

impl<'a> RunBuilder<'a> {
    pub(super) fn new(text: &'a str, w: &'a str) -> Self {
        Self {
            text,
            w,
            runs: Vec::new(),
            next_id: 0,
            open: Vec::new(),
        }
    }

    fn id(&mut self) -> String {
        self.next_id += 1;
        self.next_id.to_string()
    }

    /// A code over `range`; a standalone code without a class is named by its content.
    fn code(
        &mut self,
        kind: CodeKind,
        class: Option<String>,
        range: Range<usize>,
        id: String,
        props_differ: bool,
    ) {
        let data = self.text.get(range.clone()).unwrap_or_default();
        let (named, deletable) = inspect(data, self.w, kind, props_differ);
        let class = class.unwrap_or_else(|| named.to_owned());
        self.runs.push(Run::Code(Box::new(
            Code::new(id, kind, class, data, deletable).at(range.start),
        )));
    }

    /// The codes for the bytes `range` between two states.
    pub(super) fn transition(
        &mut self,
        range: Range<usize>,
        from: State,
        to: State,
        props_differ: bool,
    ) {
        let (removed, added) = change(from, to);
        match (removed, added) {
            (0, 0) => {
                let id = self.id();
                self.code(CodeKind::Standalone, None, range, id, props_differ);
            }
            (0, added) => self.open_side(added, range),
            (removed, 0) => self.close_side(removed, range),
            (removed, added) => {
                let data = self.text.get(range.clone()).unwrap_or_default();
                let split = leading_end_tags(data);
                if split == 0 || split >= data.len() {
                    let id = self.id();
                    self.orphan(removed);
                    self.code(CodeKind::Standalone, Some("format".into()), range, id, true);
                } else {
                    self.close_side(removed, range.start..range.start + split);
                    self.open_side(added, range.start + split..range.end);
                }
            }
        }
    }

    /// Opens `added`: a hyperlink and run formatting opened together are two codes, the
    /// `<w:hyperlink …>` tag and the run's markup.
    fn open_side(&mut self, added: u8, range: Range<usize>) {
        if added & LINK != 0 && added != LINK {
            let data = self.text.get(range.clone()).unwrap_or_default();
            let open = format!("<{}", qualified(self.w, "hyperlink"));
            let tag_end = data.find(&open).and_then(|at| {
                let rest = data.get(at + open.len()..)?;
                if !rest.starts_with([' ', '\t', '\r', '\n', '>']) {
                    return None;
                }
                Some(at + open.len() + rest.find('>')? + 1)
            });
            if let Some(end) = tag_end.filter(|&end| end < data.len()) {
                self.open_code(LINK, range.start..range.start + end);
                self.open_code(added & !LINK, range.start + end..range.end);
                return;
            }
        }
        self.open_code(added, range);
    }

    /// Closes `removed`: run formatting and a hyperlink closed together are two codes,
    /// the run's end and `</w:hyperlink>` with what follows it.
    fn close_side(&mut self, removed: u8, range: Range<usize>) {
        if removed & LINK != 0 && removed != LINK {
            let data = self.text.get(range.clone()).unwrap_or_default();
            let close = format!("</{}>", qualified(self.w, "hyperlink"));
            if let Some(at) = data.find(&close).filter(|&at| at > 0) {
                self.close_code(removed & !LINK, range.start..range.start + at);
                self.close_code(LINK, range.start + at..range.end);
                return;
            }
        }
        self.close_code(removed, range);
    }

    fn open_code(&mut self, flags: u8, range: Range<usize>) {
        let id = self.id();
        self.code(CodeKind::Open, Some(flag_class(flags)), range, id, false);
        self.open.push((self.runs.len() - 1, flags));
    }

    fn close_code(&mut self, flags: u8, range: Range<usize>) {
        match self.open.iter().rposition(|&(_, f)| f == flags) {
            Some(at) => {
                let (index, _) = self.open.remove(at);
                let id = match self.runs.get(index) {
                    Some(Run::Code(code)) => code.id.clone(),
                    _ => self.id(),
                };
                self.code(CodeKind::Close, Some(flag_class(flags)), range, id, false);
            }
            None => {
                self.orphan(flags);
                let id = self.id();
                self.code(
                    CodeKind::Standalone,
                    Some(flag_class(flags)),
                    range,
                    id,
                    false,
                );
            }
        }
    }

    /// Open codes whose formatting ends without a matching close become standalone.
    fn orphan(&mut self, flags: u8) {
        let runs = &mut self.runs;
        self.open.retain(|&(index, f)| {
            if f & flags == 0 {
                return true;
            }
            if let Some(Run::Code(code)) = runs.get_mut(index) {
                code.kind = CodeKind::Standalone;
            }
            false
        });
    }

    pub(super) fn finish(mut self) -> Vec<Run> {
        self.orphan(u8::MAX);
        self.runs
    }
}

/// How many bytes of `data` are end tags (with blanks between them) at its start.
fn leading_end_tags(data: &str) -> usize {
    let mut split = 0;
    loop {
        let blanks = data
            .get(split..)
            .unwrap_or_default()
            .bytes()
            .take_while(u8::is_ascii_whitespace)
            .count();
        match xml::next_token(data, split + blanks, data.len()) {
            Ok((Token::End { .. }, next)) => split = next,
            _ => return split,
        }
    }
}

/// The local names of the elements a code's data opens, closes or holds.
fn code_elements<'a>(data: &'a str, w: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    Tokens::new(data)
        .map_while(Result::ok)
        .filter_map(move |token| {
            let (Token::Start { name, .. } | Token::End { name, .. }) = token else {
                return None;
            };
            let name = data.get(name)?;
            Some(local(name, w).unwrap_or(name))
        })
}

/// Classes of standalone codes, most telling first, and whether each may be deleted.
const CLASSES: &[(&[&str], &str)] = &[
    (&["fldChar", "instrText", "fldSimple", "fldData"], "field"),
    (&["footnoteReference", "endnoteReference"], "footnote"),
    (&["drawing", "pict", "object"], "image"),
    (
        &["commentRangeStart", "commentRangeEnd", "commentReference"],
        "comment",
    ),
    (&["bookmarkStart", "bookmarkEnd"], "bookmark"),
    (&["ins", "del", "moveFrom", "moveTo"], "revision"),
    (&["br", "cr"], "break"),
    (&["tab", "ptab"], "tab"),
    (&["sym"], "symbol"),
    (&["noBreakHyphen", "softHyphen"], "hyphen"),
];

/// Classes whose codes an edit must keep.
const KEPT: [&str; 6] = [
    "field", "footnote", "image", "comment", "bookmark", "revision",
];

/// What a code's data holds: its standalone class (from [`CLASSES`], else `format` when
/// the run properties around it differ, `proof`, or `run`) and whether it may be deleted.
fn inspect(data: &str, w: &str, kind: CodeKind, props_differ: bool) -> (&'static str, bool) {
    let mut best: Option<usize> = None;
    let mut proof = false;
    let mut link = false;
    for name in code_elements(data, w) {
        match name {
            "proofErr" => proof = true,
            "hyperlink" => link = true,
            "r" | "t" | "rPr" => {}
            _ => {
                if let Some(rank) = CLASSES.iter().position(|(names, _)| names.contains(&name)) {
                    best = Some(best.map_or(rank, |b| b.min(rank)));
                }
            }
        }
    }
    let class = match best {
        Some(rank) => CLASSES[rank].1,
        None if props_differ => "format",
        None if proof => "proof",
        None => "run",
    };
    let kept = best.is_some_and(|rank| KEPT.contains(&CLASSES[rank].1));
    let structural = kind == CodeKind::Standalone && link;
    (class, !(kept || structural))
}
