//! The per-document unified diff of a change set (`--dry-run`, the result's `documents[].diff`).

use super::*;

pub(super) fn diff(file: &File, new: &[u8]) -> String {
    if file.parsed.container.is_some() {
        return String::new();
    }
    let encoding = file.parsed.skeleton.encoding;
    let old = file.parsed.skeleton.text();
    let Ok(new) = encoding.decode(new) else {
        return String::new();
    };
    unified_diff(old, &new, &file.doc)
}

/// Bytes compared at once while the texts agree (a slice comparison, `memcmp`).
const STRIDE: usize = 64;

/// How many bytes `a` and `b` share at their start.
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + STRIDE <= n && a.get(i..i + STRIDE) == b.get(i..i + STRIDE) {
        i += STRIDE;
    }
    let (rest_a, rest_b) = (
        a.get(i..n).unwrap_or_default(),
        b.get(i..n).unwrap_or_default(),
    );
    i + rest_a
        .iter()
        .zip(rest_b)
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` share at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + STRIDE <= n && a.get(n - i - STRIDE..n - i) == b.get(n - i - STRIDE..n - i) {
        i += STRIDE;
    }
    let (rest_a, rest_b) = (
        a.get(..n - i).unwrap_or_default(),
        b.get(..n - i).unwrap_or_default(),
    );
    i + rest_a
        .iter()
        .rev()
        .zip(rest_b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// A unified diff of two texts. The lines both share at the start and the end (beyond the
/// context) are cut before diffing, so a one-value edit of a large file costs a few lines
/// rather than a diff of the whole file; hunk headers are shifted back to file line numbers.
pub fn unified_diff(old: &str, new: &str, doc: &str) -> String {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    // Common prefix, back to a line start, then `CONTEXT` more lines back.
    let same = common_prefix(a, b);
    let mut start = a[..same]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let mut skipped_lines = a[..start].iter().filter(|&&c| c == b'\n').count();
    for _ in 0..CONTEXT {
        if start == 0 {
            break;
        }
        start = a[..start - 1]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        skipped_lines -= 1;
    }
    // Common suffix (not overlapping the prefix), forward to a line end, then `CONTEXT` more.
    let max_tail = (a.len() - start).min(b.len() - start);
    let tail = common_suffix(&a[a.len() - max_tail..], &b[b.len() - max_tail..]);
    let mut cut = tail;
    // Keep the suffix whole lines: advance the cut to just after a newline.
    let suffix = &a[a.len() - tail..];
    match suffix.iter().position(|&c| c == b'\n') {
        Some(i) => cut -= i + 1,
        None => cut = 0,
    }
    for _ in 0..CONTEXT {
        if cut == 0 {
            break;
        }
        let kept = &a[a.len() - cut..];
        match kept.iter().position(|&c| c == b'\n') {
            Some(i) => cut -= i + 1,
            None => cut = 0,
        }
    }
    let (Some(old_mid), Some(new_mid)) = (
        old.get(start..old.len() - cut),
        new.get(start..new.len() - cut),
    ) else {
        return lines(old, new)
            .unified_diff()
            .context_radius(CONTEXT)
            .header(&format!("a/{doc}"), &format!("b/{doc}"))
            .to_string();
    };
    let text = lines(old_mid, new_mid)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&format!("a/{doc}"), &format!("b/{doc}"))
        .to_string();
    if skipped_lines == 0 {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        match shift_hunk(line, skipped_lines) {
            Some(shifted) => out.push_str(&shifted),
            None => out.push_str(line),
        }
    }
    out
}

/// How long the line diff may search for the shortest edit script: a file whose every line
/// changed (a translation file written whole) would cost Myers' algorithm the square of its
/// lines; past this the diff is still right, just less tight.
const DIFF_TIME: std::time::Duration = std::time::Duration::from_millis(100);

/// The line diff of `old` and `new`, its search bounded by [`DIFF_TIME`].
fn lines<'a>(old: &'a str, new: &'a str) -> similar::TextDiff<'a, 'a, 'a, str> {
    similar::TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_lines(old, new)
}

/// `@@ -a,b +c,d @@` with `a` and `c` moved down by `by` lines.
fn shift_hunk(line: &str, by: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let shift = |range: &str| -> Option<String> {
        let (first, len) = match range.split_once(',') {
            Some((f, l)) => (f, Some(l)),
            None => (range, None),
        };
        let first: usize = first.parse().ok()?;
        let moved = first + by;
        Some(match len {
            Some(l) => format!("{moved},{l}"),
            None => moved.to_string(),
        })
    };
    Some(format!("@@ -{} +{} @@{tail}", shift(old)?, shift(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(old: &str, new: &str) -> String {
        similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(CONTEXT)
            .header("a/f", "b/f")
            .to_string()
    }

    #[test]
    fn the_trimmed_diff_equals_the_whole_file_diff() {
        let base: Vec<String> = (0..40).map(|i| format!("line {i}")).collect();
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for case in 0..400 {
            let mut lines = base.clone();
            for _ in 0..1 + next(3) {
                let at = next(lines.len() + 1);
                match next(3) {
                    0 if at < lines.len() => lines[at] = format!("changed {case}"),
                    1 => lines.insert(at, format!("new {case}")),
                    _ if at < lines.len() => {
                        lines.remove(at);
                    }
                    _ => lines.push("tail".into()),
                }
            }
            let end = if next(2) == 0 { "\n" } else { "" };
            let old = base.join("\n") + end;
            let new = lines.join("\n") + if next(4) == 0 { "" } else { end };
            assert_eq!(
                unified_diff(&old, &new, "f"),
                full(&old, &new),
                "case {case}"
            );
        }
        assert_eq!(unified_diff("a\n", "a\n", "f"), "");
        assert_eq!(unified_diff("", "x\n", "f"), full("", "x\n"));
    }

    #[test]
    fn the_common_prefix_and_suffix_are_the_bytewise_ones() {
        let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suffix = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let base: Vec<u8> = (0..300u32).map(|i| b'a' + (i % 7) as u8).collect();
        for len in [0, 1, 63, 64, 65, 128, 200, 300] {
            for at in [0, 1, 31, 63, 64, 65, 127, 150, 299] {
                let a = &base[..len];
                let mut b = a.to_vec();
                if at < b.len() {
                    b[at] = b'#';
                }
                for b in [
                    b.clone(),
                    b[..b.len() / 2].to_vec(),
                    [b.as_slice(), b"xy"].concat(),
                ] {
                    assert_eq!(common_prefix(a, &b), naive_prefix(a, &b), "{len} {at}");
                    assert_eq!(common_suffix(a, &b), naive_suffix(a, &b), "{len} {at}");
                }
            }
        }
    }
}
