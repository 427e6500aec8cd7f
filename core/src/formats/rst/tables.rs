//! reStructuredText grid tables (`+---+`) and simple tables (`=== ===`) into cells: each cell
//! is a block, its lines read in place between the borders, which stay in the skeleton.
//!
//! A cell on one line is editable in its place: its hole runs from its text to the column's
//! edge (the padding included), and the writer pads an edit to that width or refuses one that
//! would not fit (the last column of a simple table has no edge). A cell over several lines
//! is read and checked but locked: its lines are not one stretch of the file, and rewrapping
//! them is the table's author's to do.
use std::collections::BTreeMap;
use std::ops::Range;

use crate::formats::lines::{Line, Lines};

/// One cell: its lines' text (by byte range) and, for a cell on one line, its hole.
#[derive(Debug, Clone)]
pub struct Cell {
    pub segments: Vec<(usize, usize)>,
    /// From the cell's text to its column's edge, on the cell's one line.
    pub hole: Range<usize>,
}

/// Whether `line` opens a grid table: `+-` … `-+`.
pub fn is_grid_top(t: &str) -> bool {
    let t = t.trim_end();
    t.len() >= 3
        && t.starts_with("+-")
        && t.ends_with("-+")
        && t.bytes().all(|b| matches!(b, b'+' | b'-'))
}

/// Whether `t` is a simple table's border: runs of `=` (two or more columns) separated by
/// spaces, as docutils requires of a simple table's top.
pub fn is_simple_border(t: &str) -> bool {
    let t = t.trim_end();
    t.starts_with('=') && t.contains(' ') && t.bytes().all(|b| matches!(b, b'=' | b' '))
}

/// Each character of `s` (a line's content) with its byte offset and display column.
fn columns(s: &str) -> impl Iterator<Item = (usize, usize, char)> + '_ {
    let mut column = 0;
    s.char_indices().map(move |(at, c)| {
        let here = column;
        column += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        (at, here, c)
    })
}

/// Hands the cells of a grid table whose top border is `top` to `emit`, a row (or a block of
/// rows a cell spans) at a time, in reading order; `lines` is left after the table.
pub fn grid(text: &str, top: Line, lines: &mut Lines<'_>, emit: &mut dyn FnMut(Vec<Cell>)) {
    let in_table = |line: &Line| {
        let t = line.text(text);
        !line.blank() && line.indent == top.indent && (t.starts_with('+') || t.starts_with('|'))
    };
    // The cells' edges: the columns of a `+` on any border line (one of `+-=|` and spaces),
    // so a column that only a row's border divides is an edge too. A first walk finds them.
    let mut edges: Vec<usize> = columns(top.text(text))
        .filter(|&(_, _, c)| c == '+')
        .map(|(_, col, _)| col)
        .collect();
    let mut ahead = lines.clone();
    while let Some(line) = ahead.next().filter(|l| in_table(l)) {
        let t = line.text(text);
        if t.bytes()
            .all(|b| matches!(b, b'+' | b'-' | b'=' | b'|' | b' '))
        {
            edges.extend(
                columns(t)
                    .filter(|&(_, _, c)| c == '+')
                    .map(|(_, col, _)| col),
            );
            if edges.len() > 4096 {
                edges.sort_unstable();
                edges.dedup();
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    // Open cells by their left edge (they never overlap), with their right edge; and the
    // cells done, handed over whenever no cell is open.
    let mut open: BTreeMap<usize, (usize, Cell)> = BTreeMap::new();
    let mut done: Vec<Cell> = Vec::new();
    while let Some(line) = lines.peek().filter(|l| in_table(l)) {
        lines.next();
        let t = line.text(text);
        // Where this line holds an edge character, by edge index.
        let mut at_edge: Vec<(usize, usize)> = Vec::new();
        let mut edge = 0;
        for (at, col, c) in columns(t) {
            while edges.get(edge).is_some_and(|&e| e < col) {
                edge += 1;
            }
            if edges.get(edge) == Some(&col) && matches!(c, '|' | '+') {
                at_edge.push((edge, at));
            }
        }
        for pair in at_edge.windows(2) {
            let [(left, from), (right, to)] = [pair[0], pair[1]];
            let region = t.get(from + 1..to).unwrap_or_default();
            let base = line.content + from + 1;
            if !region.is_empty() && region.bytes().all(|b| matches!(b, b'-' | b'=' | b'+')) {
                // A border under these columns closes every cell over them.
                let closing: Vec<usize> = open
                    .range(..right)
                    .rev()
                    .take_while(|(_, (r, _))| *r > left)
                    .map(|(l, _)| *l)
                    .collect();
                for l in closing {
                    if let Some((_, cell)) = open.remove(&l) {
                        done.push(cell);
                    }
                }
                if open.is_empty() && !done.is_empty() {
                    flush(&mut done, emit);
                }
                continue;
            }
            let trimmed = region.trim_start();
            if trimmed.trim_end().is_empty() {
                continue;
            }
            let start = base + (region.len() - trimmed.len());
            let end = start + trimmed.trim_end().len();
            let segment = (start, end);
            match open.get_mut(&left) {
                Some((r, cell)) if *r == right => cell.segments.push(segment),
                _ => {
                    let cell = Cell {
                        segments: vec![segment],
                        hole: start..base + region.len(),
                    };
                    if let Some((_, old)) = open.insert(left, (right, cell)) {
                        done.push(old);
                    }
                }
            }
        }
    }
    done.extend(open.into_values().map(|(_, cell)| cell));
    flush(&mut done, emit);
}

/// Hands `done` over in reading order.
fn flush(done: &mut Vec<Cell>, emit: &mut dyn FnMut(Vec<Cell>)) {
    let mut cells = std::mem::take(done);
    cells.sort_by_key(|c| c.segments.first().map_or(0, |s| s.0));
    emit(cells);
}

/// Hands the cells of a simple table whose top border is `top` to `emit`, a row at a time;
/// `lines` is left after the table.
pub fn simple(text: &str, top: Line, lines: &mut Lines<'_>, emit: &mut dyn FnMut(Vec<Cell>)) {
    let border = top.text(text);
    // Each column's first and last display column, from the runs of `=`.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (_, col, c) in columns(border) {
        match (c, spans.last_mut()) {
            ('=', Some((_, end))) if *end + 1 == col => *end = col,
            ('=', _) => spans.push((col, col)),
            _ => {}
        }
    }
    // The row being read: one cell per column.
    let mut row: Vec<Option<Cell>> = vec![None; spans.len()];
    let mut borders = 1;
    let mut end_row = |row: &mut Vec<Option<Cell>>| {
        let mut cells: Vec<Cell> = row.iter_mut().filter_map(Option::take).collect();
        if !cells.is_empty() {
            flush(&mut cells, emit);
        }
    };
    while let Some(line) = lines.peek() {
        let t = line.text(text);
        if !line.blank() && line.indent < top.indent {
            break;
        }
        lines.next();
        if line.blank() {
            continue;
        }
        if is_simple_border(t) || (t.starts_with('=') && t.trim_end().bytes().all(|b| b == b'=')) {
            end_row(&mut row);
            borders += 1;
            // The bottom border: a border followed by a blank line or the end, or the third.
            let after = lines.peek();
            if borders >= 3 || after.is_none_or(|l| l.blank()) {
                break;
            }
            continue;
        }
        if t.trim_end().bytes().all(|b| matches!(b, b'-' | b' ')) {
            // A column span's underline in the header.
            continue;
        }
        let offset = line.indent - top.indent;
        // Each column's first byte and the byte past its last column, in one walk.
        let mut bounds: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        {
            let mut chars = columns(t).map(|(at, col, _)| (at, col + offset)).peekable();
            let mut at_col = |col: usize| -> usize {
                while let Some(&(at, c)) = chars.peek() {
                    if c >= col {
                        return at;
                    }
                    chars.next();
                }
                t.len()
            };
            for &(start, end) in &spans {
                let from = at_col(start);
                let to = at_col(end + 1);
                bounds.push((from, to));
            }
        }
        // A line whose first column is blank continues the row above.
        let first_blank = bounds
            .first()
            .is_some_and(|&(from, to)| t.get(from..to).is_none_or(|r| r.trim().is_empty()));
        if !first_blank {
            end_row(&mut row);
        }
        for (k, &(from, to)) in bounds.iter().enumerate() {
            let last = k + 1 == spans.len();
            let to = if last { t.len() } else { to };
            let region = t.get(from..to).unwrap_or_default();
            let trimmed = region.trim_start();
            if trimmed.trim_end().is_empty() {
                continue;
            }
            let s = line.content + from + (region.len() - trimmed.len());
            let e = s + trimmed.trim_end().len();
            let hole = if last { s..e } else { s..line.content + to };
            match row.get_mut(k) {
                Some(Some(cell)) => cell.segments.push((s, e)),
                Some(slot) => {
                    *slot = Some(Cell {
                        segments: vec![(s, e)],
                        hole,
                    })
                }
                None => {}
            }
        }
    }
    end_row(&mut row);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lines::{Body, line_at};

    fn cells(text: &str, grid_table: bool) -> Vec<(String, Vec<String>)> {
        let body = Body {
            first: None,
            from: 0,
            end: text.len(),
            indent: 0,
        };
        let mut lines = body.lines(text);
        let top = lines.next().unwrap();
        assert_eq!(line_at(text, 0, 0), Some(top));
        let mut found = Vec::new();
        let mut emit = |cells: Vec<Cell>| found.extend(cells);
        if grid_table {
            grid(text, top, &mut lines, &mut emit);
        } else {
            simple(text, top, &mut lines, &mut emit);
        }
        found
            .into_iter()
            .map(|c| {
                (
                    text[c.hole.clone()].to_owned(),
                    c.segments
                        .iter()
                        .map(|&(s, e)| text[s..e].to_owned())
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn grid_cells_hold_their_text_and_padding() {
        let t = "+-----+-------+\n| a   | b c   |\n+=====+=======+\n| d   | e     |\n|     | f     |\n+-----+-------+\n";
        let c = cells(t, true);
        let texts: Vec<&Vec<String>> = c.iter().map(|(_, s)| s).collect();
        assert_eq!(
            texts,
            [
                &vec!["a".to_owned()],
                &vec!["b c".to_owned()],
                &vec!["d".to_owned()],
                &vec!["e".to_owned(), "f".to_owned()]
            ]
        );
        assert_eq!(c[0].0, "a   ");
        assert_eq!(c[1].0, "b c   ");
    }

    #[test]
    fn a_spanning_grid_cell_is_one_cell() {
        let t = "+---+---+\n| wide  |\n+---+---+\n| x | y |\n+---+---+\n";
        let c = cells(t, true);
        assert_eq!(c[0].1, ["wide"]);
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn simple_cells_and_continuation_lines() {
        let t = "=====  =====\nA      B\n=====  =====\nx      one\n       two\ny      three\n=====  =====\n";
        let c = cells(t, false);
        let texts: Vec<Vec<String>> = c.iter().map(|(_, s)| s.clone()).collect();
        assert_eq!(
            texts,
            [
                vec!["A"],
                vec!["B"],
                vec!["x"],
                vec!["one", "two"],
                vec!["y"],
                vec!["three"]
            ]
        );
        assert_eq!(c[0].0, "A    ");
        assert_eq!(c[1].0, "B");
    }
}
