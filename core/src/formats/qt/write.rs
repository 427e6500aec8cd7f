//! The `.ts` writer: edited sources and translations re-rendered, a numerus translation whole
//! from its switch, the `type` state in place, a missing `<translation>` after the source.

use std::ops::Range;

use super::{STATES, numerus};
use crate::formats::xliff;
use crate::formats::{Hole, HoleKind, Parsed, WriteError, render_runs, xml};
use crate::model::{Block, Run};

/// Fills the skeleton (module docs: Writing).
pub(super) fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let original = parsed.skeleton.text();
    let document = &parsed.document;
    parsed.skeleton.fill(document, |hole, runs| {
        let block = document.blocks.get(hole.block);
        let key = || block.map_or_else(String::new, |b| b.key.clone());
        let state = crate::formats::hole_edition(document, hole).and_then(|e| e.state.as_deref());
        let check = |s: &str| check_state(s, &key());
        let numerus = block.is_some_and(|b| is_numerus(original, b));
        match hole.kind() {
            HoleKind::State => {
                xliff::render_state(original, hole.span.clone(), state, "type", check)
            }
            HoleKind::Runs if hole.language().is_some() && numerus => {
                let layout = Layout::of(original, hole.span.clone());
                let content = layout.render(runs, forms_count(runs, hole.language()));
                Ok(wrap(original, hole, content))
            }
            HoleKind::Runs => Ok(xliff::render(original, hole, runs)),
            HoleKind::Missing => {
                if let Some(state) = state {
                    check(state)?;
                }
                Ok(missing(original, hole, state, runs, numerus))
            }
        }
    })
}

/// Refuses a `type` Qt does not write.
fn check_state(state: &str, key: &str) -> Result<(), WriteError> {
    if STATES.contains(&state) {
        return Ok(());
    }
    Err(WriteError::State {
        key: key.to_owned(),
        state: state.to_owned(),
        allowed: format!("{}, or none for a finished translation", STATES.join(", ")),
    })
}

/// Whether `block`'s `<message>` start tag says `numerus="yes"`.
fn is_numerus(original: &str, block: &Block) -> bool {
    let tag = original.get(block.span.clone()).unwrap_or_default();
    let tag = tag.get(..tag.find('>').unwrap_or(0)).unwrap_or_default();
    tag.contains("numerus=\"yes\"") || tag.contains("numerus='yes'")
}

/// How many `<numerusform>`s a plain text written to a numerus message fills: every form
/// Qt's rule gives the language (two without one).
fn forms_count(runs: &[Run], lang: Option<&str>) -> usize {
    match runs {
        [Run::Switch(_)] => 0,
        _ => lang
            .and_then(numerus::forms)
            .map_or(2, |f| f.cases.len().max(1)),
    }
}

/// How the file lays out the `<numerusform>`s of one translation: the text before each
/// and after the last (a line break and indentation).
struct Layout {
    before: String,
    after: String,
}

impl Layout {
    /// The layout the translation content at `span` shows; for one with no forms, a line
    /// each, indented one step past the `<translation>`'s line.
    fn of(original: &str, span: Range<usize>) -> Layout {
        let content = original.get(span.clone()).unwrap_or_default();
        if let (Some(first), Some(last)) = (content.find("<numerusform"), content.rfind('>')) {
            return Layout {
                before: content.get(..first).unwrap_or_default().to_owned(),
                after: content.get(last + 1..).unwrap_or_default().to_owned(),
            };
        }
        let (newline, indent) = line_of(original, span.start);
        Layout {
            before: format!("{newline}{indent}    "),
            after: format!("{newline}{indent}"),
        }
    }

    /// The `<numerusform>`s of `runs`: one per branch of its switch, else `count` of the
    /// same text.
    fn render(&self, runs: &[Run], count: usize) -> String {
        let mut out = String::new();
        let form = |runs: &[Run], out: &mut String| {
            out.push_str(&self.before);
            out.push_str("<numerusform>");
            render_runs(runs, out, &mut |text, out| xml::escape_text(text, out));
            out.push_str("</numerusform>");
        };
        match runs {
            [Run::Switch(switch)] => {
                for branch in &switch.branches {
                    form(&branch.runs, &mut out);
                }
            }
            _ => {
                for _ in 0..count {
                    form(runs, &mut out);
                }
            }
        }
        if !out.is_empty() {
            out.push_str(&self.after);
        }
        out
    }
}

/// The line break the file uses and the indentation of the line `at` is on.
fn line_of(original: &str, at: usize) -> (&'static str, String) {
    let before = original.get(..at).unwrap_or_default();
    let start = before.rfind('\n').map_or(0, |nl| nl + 1);
    let indent: String = before
        .get(start..)
        .unwrap_or_default()
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let newline = if before.get(..start).is_some_and(|b| b.ends_with("\r\n")) {
        "\r\n"
    } else {
        "\n"
    };
    (newline, indent)
}

/// `content` in place of `hole`: as it is, or `>content</translation>` when the hole is
/// the `/>` of an empty `<translation/>`.
fn wrap(original: &str, hole: &Hole, content: String) -> String {
    let empty_tag = original.get(hole.span.clone()) == Some("/>");
    match (empty_tag, content.is_empty()) {
        (false, _) => content,
        (true, true) => "/>".to_owned(),
        (true, false) => format!(">{content}</translation>"),
    }
}

/// A `<translation>` the message lacked, on a line of its own after `hole`'s place (the
/// end of the source or the comments), indented as that line.
fn missing(
    original: &str,
    hole: &Hole,
    state: Option<&str>,
    runs: &[Run],
    numerus: bool,
) -> String {
    let (newline, indent) = line_of(original, hole.span.start);
    let mut out = format!("{newline}{indent}<translation");
    if let Some(state) = state {
        out.push_str(" type=\"");
        xliff::escape_attr(state, &mut out);
        out.push('"');
    }
    out.push('>');
    if numerus {
        let layout = Layout {
            before: format!("{newline}{indent}    "),
            after: format!("{newline}{indent}"),
        };
        out.push_str(&layout.render(runs, forms_count(runs, hole.language())));
    } else {
        render_runs(runs, &mut out, &mut |text, out| xml::escape_text(text, out));
    }
    out.push_str("</translation>");
    out
}
