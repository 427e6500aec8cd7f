//! A block's text read over several lines into runs: its lines' contents are joined with
//! `\n`, a format's inline reader cuts the joined text into pieces (prose, codes) by byte
//! range, and each piece becomes runs at the file's own offsets (prose as verbatim slices,
//! a line break as a `"\n"` run at the line's end, a code holding the file's bytes).
//! reStructuredText and AsciiDoc read their inline markup this way.
use crate::model::{Code, CodeKind, Run};

/// One piece of a block's text, by byte range in the joined text (lines joined by `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(usize, usize),
    Code {
        from: usize,
        to: usize,
        kind: CodeKind,
        class: &'static str,
        deletable: bool,
    },
}

/// The runs of a block whose text lies in `segments` of `text` (each a line's content,
/// by byte range), its line breaks read as `"\n"` runs at each segment's end.
pub fn runs(text: &str, segments: &[(usize, usize)], pieces: fn(&str) -> Vec<Piece>) -> Vec<Run> {
    let mut joined = String::new();
    // Where each segment starts in `joined`.
    let mut starts = Vec::with_capacity(segments.len());
    for (i, &(from, to)) in segments.iter().enumerate() {
        if i > 0 {
            joined.push('\n');
        }
        starts.push(joined.len());
        joined.push_str(text.get(from..to).unwrap_or_default());
    }
    let map = |at: usize| -> usize {
        let i = starts.partition_point(|&s| s <= at).saturating_sub(1);
        match (starts.get(i), segments.get(i)) {
            (Some(&s), Some(&(from, to))) => (from + (at - s)).min(to),
            _ => 0,
        }
    };
    let mut out = Vec::new();
    let mut ids = 0usize;
    let mut open: Vec<String> = Vec::new();
    for piece in pieces(&joined) {
        match piece {
            Piece::Text(from, to) => {
                let mut at = from;
                for (i, part) in joined
                    .get(from..to)
                    .unwrap_or_default()
                    .split('\n')
                    .enumerate()
                {
                    if i > 0 {
                        out.push(Run::text_at("\n", map(at)));
                        at += 1;
                    }
                    if !part.is_empty() {
                        out.push(Run::text_at(part, map(at)));
                    }
                    at += part.len();
                }
            }
            Piece::Code {
                from,
                to,
                kind,
                class,
                deletable,
            } => {
                let id = match kind {
                    CodeKind::Close => open.pop().unwrap_or_default(),
                    _ => {
                        ids += 1;
                        let id = ids.to_string();
                        if kind == CodeKind::Open {
                            open.push(id.clone());
                        }
                        id
                    }
                };
                let (start, end) = (map(from), map(to.saturating_sub(1)) + 1);
                let data = text.get(start..end.max(start)).unwrap_or_default();
                out.push(Run::from(
                    Code::new(id, kind, class, data, deletable).at(start),
                ));
            }
        }
    }
    out
}

/// Runs as the characters a writer puts down, each marked text (`true`) or markup (a code's
/// data, a switch's native bytes), for a writer that escapes text by what is around it.
pub fn flatten(runs: &[Run]) -> Vec<(char, bool)> {
    let mut out = Vec::new();
    flatten_into(runs, &mut out);
    out
}

fn flatten_into(runs: &[Run], out: &mut Vec<(char, bool)>) {
    for run in runs {
        match run {
            Run::Text { text, .. } => out.extend(text.chars().map(|c| (c, true))),
            Run::Code(code) => out.extend(code.data.chars().map(|c| (c, false))),
            Run::Switch(switch) => {
                out.extend(switch.head.chars().map(|c| (c, false)));
                for branch in &switch.branches {
                    out.extend(branch.open.chars().map(|c| (c, false)));
                    flatten_into(&branch.runs, out);
                    out.extend(branch.close.chars().map(|c| (c, false)));
                }
                out.extend(switch.tail.chars().map(|c| (c, false)));
            }
        }
    }
}
