//! Widening a table's column for an edited cell that no longer fits: every line of the
//! table gets the same columns at the column's right edge (`-` or `=` in a border, spaces in
//! a row), so the table stays a table and the cell takes its new text in place.
//!
//! The writer asks first ([`widen`]): it returns the skeleton to fill, the file's text with
//! the columns inserted and each hole moved past them (a cell's hole that ends at an insert
//! takes it as padding). A table kapi cannot see whole (a simple table whose borders are not
//! its first and last line) refuses the edit with the widths instead.
use super::tables::is_simple_border;
use crate::formats::lines::{column_of, width};
use crate::formats::{Hole, Parsed, Skeleton, WriteError, hole_runs};
use crate::model::{Role, fingerprint_runs};

/// Where to insert, in the original text: offset, how many characters, which.
type Insert = (usize, usize, char);

/// A column to widen: which (the table's first line, the column's right edge), by how many
/// columns, the table's lines, and whether it is a grid table.
struct Edge {
    key: (usize, usize),
    add: usize,
    region: Vec<(usize, usize)>,
    grid: bool,
}

/// The skeleton to fill when an edited cell is wider than its column: the text with the
/// column widened; `None` when every edit fits.
pub fn widen(parsed: &Parsed) -> Result<Option<Skeleton>, WriteError> {
    let original = parsed.skeleton.text();
    let mut edges: Vec<Edge> = Vec::new();
    for hole in &parsed.skeleton.holes {
        let Some(block) = parsed.document.blocks.get(hole.block) else {
            continue;
        };
        if block.role != Role::TableCell {
            continue;
        }
        let Some(runs) = hole_runs(&parsed.document, hole) else {
            continue;
        };
        if fingerprint_runs(runs) == hole.original {
            continue;
        }
        let after = original.get(hole.span.end..).unwrap_or_default();
        if after.is_empty() || after.starts_with(['\n', '\r']) {
            continue;
        }
        let held = original.get(hole.span.clone()).unwrap_or_default();
        let needs = width(&super::write::one_line(runs));
        let room = super::write::room(held, after);
        if needs <= room {
            continue;
        }
        let grid = after.starts_with('|');
        let Some(region) = region(original, hole.span.start, grid) else {
            return Err(WriteError::Block {
                key: block.key.clone(),
                message: format!(
                    "the new text takes {needs} columns and its table column holds {room}, \
                     and kapi cannot see the whole table to widen it: widen the column in \
                     the file, or shorten the text"
                ),
            });
        };
        let line_start = line_start(original, hole.span.end);
        let edge = column_of(original, line_start, hole.span.end);
        let key = (region.first().map_or(0, |l| l.0), edge);
        match edges.iter_mut().find(|e| e.key == key) {
            Some(found) => found.add = found.add.max(needs - room),
            None => edges.push(Edge {
                key,
                add: needs - room,
                region,
                grid,
            }),
        }
    }
    if edges.is_empty() {
        return Ok(None);
    }
    let mut inserts: Vec<Insert> = Vec::new();
    for Edge {
        key: (_, edge),
        add,
        region,
        grid,
    } in &edges
    {
        for &(from, to) in region {
            if let Some(insert) = insert_at(original, from, to, *edge, *add, *grid) {
                inserts.push(insert);
            }
        }
    }
    inserts.sort_unstable();
    let mut text = String::with_capacity(original.len() + inserts.len() * 4);
    let mut at = 0;
    for &(offset, count, c) in &inserts {
        text.push_str(original.get(at..offset).unwrap_or_default());
        text.extend(std::iter::repeat_n(c, count));
        at = offset;
    }
    text.push_str(original.get(at..).unwrap_or_default());
    // Bytes inserted before an offset, and at it.
    let shift = |offset: usize, inclusive: bool| -> usize {
        inserts
            .iter()
            .take_while(|&&(o, _, _)| o < offset || (inclusive && o == offset))
            .map(|&(_, n, c)| n * c.len_utf8())
            .sum()
    };
    let mut skeleton = parsed.skeleton.clone();
    skeleton.original = text;
    for hole in &mut skeleton.holes {
        let Hole { span, .. } = hole;
        *span = span.start + shift(span.start, false)..span.end + shift(span.end, true);
    }
    Ok(Some(skeleton))
}

/// The lines of the table a cell's hole at `span` lies in (its start to its last line's
/// end); `None` when the hole is no fixed-width cell.
pub fn table_extent(text: &str, span: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let after = text.get(span.end..)?;
    if after.is_empty() || after.starts_with(['\n', '\r']) {
        return None;
    }
    let lines = region(text, span.start, after.starts_with('|'))?;
    Some(lines.first()?.0..lines.last()?.1)
}

fn line_start(text: &str, at: usize) -> usize {
    text.get(..at)
        .and_then(|b| b.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1)
}

/// The lines of the table holding offset `at`, each as (start, end of content): for a grid
/// table the lines around it that start with `+` or `|`; for a simple table the non-blank
/// lines around it, when its first and last are borders.
fn region(text: &str, at: usize, grid: bool) -> Option<Vec<(usize, usize)>> {
    let is_table = |line: &str| {
        let t = line.trim_start();
        if grid {
            t.starts_with('+') || t.starts_with('|')
        } else {
            !t.trim_end().is_empty()
        }
    };
    let line_of = |start: usize| -> (usize, usize) {
        let end = text
            .get(start..)
            .and_then(|r| r.find(['\n', '\r']))
            .map_or(text.len(), |i| start + i);
        (start, end)
    };
    let here = line_of(line_start(text, at));
    let mut lines = vec![here];
    // Upwards.
    let mut start = here.0;
    while start > 0 {
        let prev_end = start - 1;
        let prev_end = if prev_end > 0 && text.get(prev_end - 1..prev_end + 1) == Some("\r\n") {
            prev_end - 1
        } else {
            prev_end
        };
        let prev = line_of(line_start(text, prev_end));
        if !is_table(text.get(prev.0..prev.1)?) {
            break;
        }
        lines.insert(0, prev);
        start = prev.0;
    }
    // Downwards.
    let mut end = here.1;
    loop {
        let next = match text.get(end..end + 2) {
            Some("\r\n") => end + 2,
            _ if end < text.len() => end + 1,
            _ => break,
        };
        if next >= text.len() {
            break;
        }
        let line = line_of(next);
        if !is_table(text.get(line.0..line.1)?) {
            break;
        }
        lines.push(line);
        end = line.1;
    }
    if !grid {
        let border = |l: &(usize, usize)| {
            text.get(l.0..l.1)
                .is_some_and(|t| is_simple_border(t.trim_start()))
        };
        if !(lines.first().is_some_and(border) && lines.last().is_some_and(border)) {
            return None;
        }
    }
    Some(lines)
}

/// Where to insert `add` characters on the line `from..to` to widen the column whose right
/// edge is at display column `edge`: before the first `|` or `+` at or past it in a grid
/// table, at the column itself in a simple table; `-` or `=` after a border's, else spaces.
fn insert_at(
    text: &str,
    from: usize,
    to: usize,
    edge: usize,
    add: usize,
    grid: bool,
) -> Option<Insert> {
    let line = text.get(from..to)?;
    let mut column = 0;
    let mut before = None;
    for (i, c) in line.char_indices() {
        let hit = if grid {
            column >= edge && matches!(c, '|' | '+')
        } else {
            column >= edge
        };
        if hit {
            let fill = before.filter(|b| matches!(b, '-' | '=')).unwrap_or(' ');
            return Some((from + i, add, fill));
        }
        column += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        before = Some(c);
    }
    None
}
