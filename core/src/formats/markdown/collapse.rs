//! Making each span [`super::syntax`] found in a block one standalone code: the runs it
//! covers give way to a code holding the span's bytes, and the codes are numbered again.
//!
//! A span is taken only whole: one that would cut a code in two (it starts or ends inside a
//! code span, a tag, a link's destination) or hold one half of a pair (a link's `[` without
//! its `](url)`, an emphasis marker without its partner) is left as it was read. Text runs
//! are cut at a span's edges, each piece keeping its file offset.

use std::ops::Range;

use crate::model::{Code, CodeKind, Run};

/// The file range a run's bytes come from, when it was read from the file.
fn range_of(run: &Run) -> Option<Range<usize>> {
    match run {
        Run::Text {
            text,
            src: Some(at),
        } => Some(*at..at + text.len()),
        Run::Code(code) => code.src.map(|at| at..at + code.data.len()),
        _ => None,
    }
}

/// Whether `span` may become one code among `runs`: every code it touches lies inside it,
/// and every pair it holds one half of, it holds whole. `from` is the index of the first run
/// that may touch it; returns the index for the next span.
fn whole(runs: &[Run], span: &Range<usize>, from: usize) -> (bool, usize) {
    let mut first = from;
    while runs
        .get(first)
        .is_some_and(|r| range_of(r).is_none_or(|r| r.end <= span.start))
    {
        first += 1;
    }
    let mut halves: Vec<(&str, CodeKind)> = Vec::new();
    for run in &runs[first..] {
        let Some(range) = range_of(run) else { continue };
        if range.start >= span.end {
            break;
        }
        if let Run::Code(code) = run {
            if range.start < span.start || range.end > span.end {
                return (false, first);
            }
            if code.kind != CodeKind::Standalone && !markers(&code.data) {
                halves.push((&code.id, code.kind));
            }
        }
    }
    halves.sort_unstable_by_key(|&(id, kind)| (id, kind == CodeKind::Close));
    let paired = halves
        .chunks(2)
        .all(|pair| matches!(pair, [(a, CodeKind::Open), (b, CodeKind::Close)] if a == b));
    (paired, first)
}

/// `runs` with each span of `spans` (file ranges with their classes, sorted, apart) that is
/// whole made one code holding `text[span]`; the spans taken.
pub(super) fn collapse(
    text: &str,
    runs: Vec<Run>,
    spans: Vec<(Range<usize>, &'static str)>,
) -> (Vec<Run>, Vec<Range<usize>>) {
    let mut taken = Vec::with_capacity(spans.len());
    let mut from = 0;
    for (span, class) in spans {
        let (ok, next) = whole(&runs, &span, from);
        from = next;
        if ok && text.get(span.clone()).is_some() {
            taken.push((span, class));
        }
    }
    if taken.is_empty() {
        return (runs, Vec::new());
    }
    let mut out: Vec<Run> = Vec::with_capacity(runs.len() + taken.len());
    let mut spans = taken.iter().peekable();
    // Bytes before `until` are inside a span already written as its code; `cursor` is where
    // the last run with an offset ended.
    let (mut until, mut cursor) = (0, 0);
    let code = |out: &mut Vec<Run>, span: &Range<usize>, class: &str| {
        let data = text.get(span.clone()).unwrap_or_default();
        out.push(Run::Code(Box::new(Code {
            src: Some(span.start),
            ..Code::new("", CodeKind::Standalone, class, data, false)
        })));
    };
    for run in runs {
        let Some(range) = range_of(&run) else {
            // A run with no offset lies where the last one ended: inside a span, or not.
            if cursor >= until {
                out.push(run);
            }
            continue;
        };
        cursor = range.end;
        // Spans that start before this run (in bytes no run holds) are written first.
        while let Some((span, class)) = spans.next_if(|(s, _)| s.start < range.start) {
            code(&mut out, span, class);
            until = span.end;
        }
        match run {
            Run::Text { text: t, .. } => {
                let mut at = range.start.max(until);
                while let Some((span, class)) = spans.next_if(|(s, _)| s.start < range.end) {
                    if span.start > at {
                        let piece = t.get(at - range.start..span.start - range.start);
                        out.push(Run::text_at(piece.unwrap_or_default(), at));
                    }
                    code(&mut out, span, class);
                    until = span.end;
                    at = at.max(span.end);
                }
                if at < range.end {
                    let piece = t.get(at - range.start..).unwrap_or_default();
                    out.push(Run::text_at(piece, at));
                }
            }
            run => {
                if let Some((span, class)) = spans.next_if(|(s, _)| s.start == range.start) {
                    code(&mut out, span, class);
                    until = span.end;
                }
                if range.start >= until {
                    out.push(run);
                }
            }
        }
    }
    for (span, class) in spans {
        code(&mut out, span, class);
    }
    orphans_to_text(&mut out);
    renumber(&mut out);
    (out, taken.into_iter().map(|(span, _)| span).collect())
}

/// Whether a pair code's data is emphasis markers alone (`*`, `__`, `~~`).
fn markers(data: &str) -> bool {
    data.bytes().all(|b| matches!(b, b'*' | b'_' | b'~'))
}

/// An emphasis marker whose partner a code took (`{/* a */}\n{/* b */}`, where CommonMark
/// paired the `*` of one comment's end with the next one's start) is the text it is written
/// as.
fn orphans_to_text(runs: &mut [Run]) {
    let mut halves: Vec<(String, bool)> = runs
        .iter()
        .filter_map(|r| match r {
            Run::Code(c) if c.kind != CodeKind::Standalone => {
                Some((c.id.clone(), c.kind == CodeKind::Open))
            }
            _ => None,
        })
        .collect();
    halves.sort_unstable();
    let paired = |id: &str| {
        let first = halves.partition_point(|(h, _)| h.as_str() < id);
        halves
            .get(first..first + 2)
            .is_some_and(|two| two.iter().all(|(h, _)| h == id) && two[0].1 != two[1].1)
    };
    for run in runs.iter_mut() {
        if let Run::Code(c) = run
            && c.kind != CodeKind::Standalone
            && !paired(&c.id)
        {
            *run = match c.src {
                Some(at) => Run::text_at(c.data.clone(), at),
                None => Run::text(c.data.clone()),
            };
        }
    }
}

/// Numbers the codes `1`, `2`, … in reading order, a close taking its open's number.
fn renumber(runs: &mut [Run]) {
    let mut next = 0u32;
    let mut opens: Vec<(String, String)> = Vec::new();
    for run in runs {
        let Run::Code(code) = run else { continue };
        match code.kind {
            CodeKind::Close => {
                if let Some(k) = opens.iter().rposition(|(old, _)| *old == code.id) {
                    let (_, new) = opens.swap_remove(k);
                    code.id = new;
                    continue;
                }
                next += 1;
                code.id = next.to_string();
            }
            kind => {
                next += 1;
                let new = next.to_string();
                if kind == CodeKind::Open {
                    opens.push((std::mem::take(&mut code.id), new.clone()));
                }
                code.id = new;
            }
        }
    }
}
