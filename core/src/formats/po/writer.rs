//! Writing an edited string back: PO escapes, and msgcat's wrapping when the file shows
//! it (column widths, break opportunities, continuation lines).

use std::ops::Range;

use crate::formats::{Hole, HoleKind};

/// msgcat's page width: no line longer than this many columns when a string is wrapped.
const WIDTH: usize = 79;

/// Appends `c` as a PO string writes it.
pub(super) fn push_escaped(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{b}' => out.push_str("\\v"),
        '\u{c}' => out.push_str("\\f"),
        c if u32::from(c) < 0x20 || c == '\u{7f}' => {
            let v = u32::from(c);
            out.push('\\');
            for shift in [6, 3, 0] {
                out.push(char::from(b'0' + ((v >> shift) & 7) as u8));
            }
        }
        c => out.push(c),
    }
}

/// Display columns of a character as msgcat counts them: two for East Asian wide ones,
/// none for combining marks.
fn columns(c: char) -> usize {
    let v = u32::from(c);
    let wide = matches!(v,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x20000..=0x3FFFD);
    let mark = matches!(v,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06DC
        | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8
        | 0x06EA..=0x06ED
        | 0x200B..=0x200F
        | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F);
    if wide {
        2
    } else if mark {
        0
    } else {
        1
    }
}

/// The `"…"` segments of a hole as written: (content start, content end) of each.
fn segments(held: &str) -> Vec<Range<usize>> {
    let bytes = held.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'"') {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while let Some(&b) = bytes.get(j) {
            match b {
                b'\\' => j += 2,
                b'"' => break,
                _ => j += 1,
            }
        }
        out.push(start..j.min(bytes.len()));
        i = j + 1;
    }
    out
}

/// Whether the file shows msgcat's wrapping: a string broken at a space, or else no
/// one-line string that runs past the page width (msgcat's default is to wrap).
pub(super) fn file_wraps(original: &str, holes: &[Hole]) -> bool {
    let mut too_long = false;
    for hole in holes.iter().filter(|h| h.kind() == HoleKind::Runs) {
        let Some(held) = original.get(hole.span.clone()) else {
            continue;
        };
        let segs = segments(held);
        if segs.len() >= 2 {
            let inner = &segs[..segs.len() - 1];
            if inner.iter().any(|seg| {
                let content = held.get(seg.clone()).unwrap_or_default();
                !content.is_empty() && !ends_with_newline_escape(content)
            }) {
                return true;
            }
        } else if !too_long {
            let line_start = original
                .get(..hole.span.start)
                .and_then(|b| b.rfind('\n'))
                .map_or(0, |p| p + 1);
            let line = original.get(line_start..hole.span.end).unwrap_or_default();
            too_long = line.chars().map(columns).sum::<usize>() > WIDTH;
        }
    }
    !too_long
}

/// Whether escaped `content` ends with a `\n` escape (not an escaped backslash and `n`).
fn ends_with_newline_escape(content: &str) -> bool {
    let Some(head) = content.strip_suffix('n') else {
        return false;
    };
    let slashes = head.bytes().rev().take_while(|&b| b == b'\\').count();
    slashes % 2 == 1
}

/// The file's line ending, for continuation lines of a string that had none: `\r\n` when
/// the file holds one. Found once per write (a search of the whole file).
pub(super) fn line_ending(original: &str) -> &'static str {
    if original.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// Renders `text` as the string of the hole at `span`, in the hole's style; `eol` is the
/// file's [`line_ending`].
pub(super) fn render(
    original: &str,
    span: Range<usize>,
    wraps: bool,
    eol: &str,
    text: &str,
) -> String {
    let held = original.get(span.clone()).unwrap_or_default();
    let segs = segments(held);
    // Continuation lines: the hole's own separator, else the file's line ending.
    let sep = match (segs.first(), segs.get(1)) {
        (Some(a), Some(b)) => held.get(a.end + 1..b.start - 1).unwrap_or("\n"),
        _ => eol,
    };
    let sep = if sep.contains('\n') { sep } else { "\n" };
    let line_start = original
        .get(..span.start)
        .and_then(|b| b.rfind('\n'))
        .map_or(0, |p| p + 1);
    let prefix: usize = original
        .get(line_start..span.start)
        .unwrap_or_default()
        .chars()
        .map(columns)
        .sum();
    let lead_empty = segs.len() < 2 || segs.first().is_some_and(|s| s.is_empty());
    let multi = segs.len() >= 2;

    let width = wraps.then_some(WIDTH - 2);
    let lines = lines_of(text, width);
    let mut out = String::with_capacity(text.len() + 8);
    let one_line = match lines.as_slice() {
        [] => true,
        [only] => !wraps || prefix + 2 + only.chars().map(columns).sum::<usize>() <= WIDTH,
        _ => !wraps && !multi,
    };
    if one_line {
        out.push('"');
        for line in &lines {
            out.push_str(line);
        }
        out.push('"');
        return out;
    }
    let lead_empty = wraps || lead_empty;
    if lead_empty {
        out.push_str("\"\"");
    }
    for (i, line) in lines.iter().enumerate() {
        if i > 0 || lead_empty {
            out.push_str(sep);
        }
        out.push('"');
        out.push_str(line);
        out.push('"');
    }
    out
}

/// Whether a line may break between `c` and `next` (`prev` before them): after a space,
/// before or after an ideograph or kana (not before CJK punctuation), after a hyphen
/// between letters and after a slash before a letter, a subset of Unicode line breaking.
fn break_between(prev: char, c: char, next: char) -> bool {
    let cjk_punct =
        |c: char| matches!(u32::from(c), 0x3000..=0x303F | 0xFE30..=0xFE4F | 0xFF00..=0xFF65);
    let ideograph = |c: char| columns(c) == 2 && !cjk_punct(c);
    match c {
        ' ' => next != ' ',
        '-' => prev.is_alphanumeric() && next.is_alphabetic(),
        '/' => next.is_alphabetic(),
        _ => ideograph(next) || (ideograph(c) && next.is_ascii_alphanumeric()),
    }
}

/// Splits escaped `text` into lines: after each `\n` that more text follows, and at spaces
/// so no line's content passes `width` columns (a word longer than that stays whole).
fn lines_of(text: &str, width: Option<usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut cols = 0;
    // Byte offset in `line` after its last space, and the columns up to there.
    let mut space: Option<(usize, usize)> = None;
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let before = line.len();
        push_escaped(c, &mut line);
        cols += if before + c.len_utf8() == line.len() {
            columns(c)
        } else {
            line.len() - before
        };
        if let Some(width) = width
            && cols > width
            && let Some((at, upto)) = space
        {
            let rest = line.split_off(at);
            lines.push(std::mem::replace(&mut line, rest));
            cols -= upto;
            space = None;
        }
        if let Some(&next) = chars.peek()
            && break_between(prev, c, next)
        {
            space = Some((line.len(), cols));
        }
        prev = c;
        if c == '\n' && chars.peek().is_some() {
            lines.push(std::mem::take(&mut line));
            cols = 0;
            space = None;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
