//! Writing reStructuredText back: untouched blocks copy their bytes; an edited block is
//! rendered from its runs with the escaping that keeps its text text, in its place's shape
//! (a title's adornments, a cell's width, a body's indentation).
use super::blocks::{field, is_adornment};
use super::inline::{closes_before, opens_after};
use crate::formats::lines::{line_ending, width};
use crate::formats::{Hole, Parsed, Skeleton, WriteError};
use crate::model::{Role, Run};

pub fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    match super::widen::widen(parsed)? {
        Some(widened) => fill(parsed, &widened),
        None => fill(parsed, &parsed.skeleton),
    }
}

/// Fills `skeleton` (the read's, or one with a table column widened) with `parsed`'s blocks.
fn fill(parsed: &Parsed, skeleton: &Skeleton) -> Result<Vec<u8>, WriteError> {
    let original = skeleton.text();
    let fallback = line_ending(original).unwrap_or("\n");
    skeleton.fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
        let Some(block) = parsed.document.blocks.get(hole.block) else {
            return Err(WriteError::Skeleton {
                message: format!("hole {:?} names no block", hole.span),
            });
        };
        let held = original.get(hole.span.clone()).unwrap_or_default();
        let after = original.get(hole.span.end..).unwrap_or_default();
        let newline = line_ending(held)
            .or_else(|| line_ending(after).filter(|_| after.starts_with(['\n', '\r'])))
            .unwrap_or(fallback);
        let kind = block
            .key
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .split('#')
            .next()
            .unwrap_or_default();
        match (block.role, kind) {
            (Role::Code, _) => {
                let mut out = String::new();
                crate::formats::render_runs(runs, &mut out, &mut |t, out| out.push_str(t));
                Ok(out)
            }
            (Role::Heading, "h") => Ok(title(held, &one_line(runs), newline)),
            (Role::TableCell, _) => cell(&block.key, held, after, &one_line(runs)),
            _ => {
                let prefix = prefix(original, hole.span.start);
                Ok(prose(runs, &prefix, newline))
            }
        }
    })
}

/// The indentation that puts a new line's text under the first line's: the bytes before
/// `at` on its line, each one that is not whitespace a space per column.
fn prefix(original: &str, at: usize) -> String {
    let line_start = original
        .get(..at)
        .and_then(|b| b.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let before = original.get(line_start..at).unwrap_or_default();
    let before = before.strip_prefix('\u{feff}').unwrap_or(before);
    let mut out = String::with_capacity(before.len());
    for c in before.chars() {
        if c == ' ' || c == '\t' {
            out.push(c);
        } else {
            let w = unicode_width::UnicodeWidthChar::width(c)
                .unwrap_or(1)
                .max(1);
            out.extend(std::iter::repeat_n(' ', w));
        }
    }
    out
}

/// Runs as one line of prose: line breaks as spaces.
pub(super) fn one_line(runs: &[Run]) -> String {
    let text = prose(runs, "", "\n");
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(line.trim());
    }
    out.trim().to_owned()
}

/// A title: the new text between its over- and underline, each as long as the text needs.
fn title(held: &str, text: &str, newline: &str) -> String {
    let lines: Vec<&str> = held.lines().collect();
    let adornment = |l: &str| l.trim_end().to_owned();
    match lines.as_slice() {
        [over, middle, under] => {
            let inset: String = middle.chars().take_while(|c| *c == ' ').collect();
            let c = over.chars().next().unwrap_or('=');
            let len = adornment(over)
                .chars()
                .count()
                .max(2 * inset.len() + width(text));
            let _ = under;
            let rule: String = std::iter::repeat_n(c, len).collect();
            format!("{rule}{newline}{inset}{text}{newline}{rule}")
        }
        [_, under] => {
            let c = under.chars().next().unwrap_or('=');
            let len = adornment(under).chars().count().max(width(text));
            let rule: String = std::iter::repeat_n(c, len).collect();
            format!("{text}{newline}{rule}")
        }
        _ => text.to_owned(),
    }
}

/// A table cell: the new text padded to its column's width; refused when wider. A cell whose
/// hole ends its line (a simple table's last column) has no width to keep.
fn cell(key: &str, held: &str, after: &str, text: &str) -> Result<String, WriteError> {
    if after.is_empty() || after.starts_with(['\n', '\r']) {
        return Ok(text.to_owned());
    }
    let room = room(held, after);
    let needs = width(text);
    if needs > room {
        return Err(WriteError::Block {
            key: key.to_owned(),
            message: format!(
                "the new text takes {needs} columns and its table column holds {room}: \
                 widen the column in the file (its borders on every row), or shorten the text"
            ),
        });
    }
    let mut out = text.to_owned();
    out.extend(std::iter::repeat_n(' ', width(held) - needs));
    Ok(out)
}

/// The columns a cell's text may take in its hole `held`: all of them, but for a space kept
/// before a grid table's border when the cell had one.
pub(super) fn room(held: &str, after: &str) -> usize {
    let keep = usize::from(after.starts_with('|') && held.ends_with(' '));
    width(held).saturating_sub(keep)
}

/// Runs as reST prose: codes as written, text escaped where it would read as markup, line
/// breaks as `newline` and `prefix`.
pub fn prose(runs: &[Run], prefix: &str, newline: &str) -> String {
    // The runs flattened to what is written, each char marked text (true) or markup.
    let pieces = crate::formats::spans::flatten(runs);
    let mut out = String::new();
    let mut line_start = true;
    let mut i = 0;
    while i < pieces.len() {
        let (c, is_text) = pieces[i];
        if !is_text {
            out.push(c);
            line_start = false;
            i += 1;
            continue;
        }
        if c == '\n' || c == '\r' {
            // Consecutive breaks as one: a blank line would end the block.
            while pieces
                .get(i)
                .is_some_and(|&(c, t)| t && matches!(c, '\n' | '\r' | ' ' | '\t'))
            {
                i += 1;
            }
            if pieces.get(i).is_some() {
                while out.ends_with([' ', '\t']) {
                    out.pop();
                }
                out.push_str(newline);
                out.push_str(prefix);
                line_start = true;
            }
            continue;
        }
        if line_start {
            let line: String = pieces[i..]
                .iter()
                .take_while(|(c, _)| *c != '\n' && *c != '\r')
                .map(|(c, _)| *c)
                .collect();
            if starts_construct(&line) {
                out.push('\\');
            }
            line_start = false;
        }
        let before = out.chars().next_back();
        let after = pieces.get(i + 1).map(|&(c, _)| c);
        let escape = match c {
            '\\' => true,
            '*' | '`' | '|' => {
                (opens_after(before) && after.is_some_and(|a| !a.is_whitespace()))
                    || (before.is_some_and(|b| !b.is_whitespace()) && closes_before(after))
            }
            '_' => {
                before.is_some_and(|b| b.is_alphanumeric() || matches!(b, '`' | ']' | '|'))
                    && (closes_before(after) || after == Some('_'))
            }
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    // A closing `::` would make the block after it literal.
    if out.ends_with("::") && pieces.last().is_some_and(|&(_, t)| t) {
        out.pop();
        out.push_str("\\:");
    }
    out
}

/// Whether a line of new text would start a construct of its own (a list item, a field,
/// explicit markup, a line block, a doctest, an adornment) rather than continue prose.
fn starts_construct(line: &str) -> bool {
    let t = line.trim_start();
    let marker = |m: &str| {
        t.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    };
    ["*", "+", "-", "•", "‣", "⁃", "..", "|", "#."]
        .iter()
        .any(|m| marker(m))
        || t.starts_with(">>>")
        || field(t).is_some()
        || is_adornment(t)
        || enumerated(t)
}

/// `1. `, `a) `, `(iv) ` at a line's start.
fn enumerated(t: &str) -> bool {
    let body = t.strip_prefix('(').unwrap_or(t);
    let len = body
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(body.len());
    len > 0
        && len <= 9
        && body[len..].starts_with(['.', ')'])
        && body[len + 1..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_escapes_only_what_would_be_markup() {
        let p = |t: &str| prose(&[Run::text(t)], "  ", "\n");
        assert_eq!(p("2 * 3 and a_b"), "2 * 3 and a_b");
        assert_eq!(p("a *b* c"), r"a \*b\* c");
        assert_eq!(p("see Python_ now"), r"see Python\_ now");
        assert_eq!(p("one\n\n- two"), "one\n  \\- two");
        assert_eq!(p("Example::"), r"Example:\:");
        assert_eq!(p(r"a\b"), r"a\\b");
        assert_eq!(p("1. first"), r"\1. first");
    }

    #[test]
    fn titles_and_cells_keep_their_shape() {
        assert_eq!(
            title("Title\n=====", "A longer title", "\n"),
            "A longer title\n=============="
        );
        assert_eq!(title("Title\n=========", "Short", "\n"), "Short\n=========");
        assert_eq!(title("===\n A \n===", "Big", "\n"), "=====\n Big\n=====");
        assert_eq!(cell("k", "ab   ", "|", "xy").unwrap(), "xy   ");
        assert_eq!(cell("k", "ab   ", "|", "wxyz").unwrap(), "wxyz ");
        assert!(cell("k", "ab ", "|", "xyz").is_err());
        assert_eq!(cell("k", "ab", "\n", "longer").unwrap(), "longer");
    }
}
