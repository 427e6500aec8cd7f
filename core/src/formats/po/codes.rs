//! The placeholder codes of a message: a byte scanner for printf and brace placeholders
//! that gives what `formats::inline::placeholders::split` gives for those two syntaxes.

use super::parser::Str;
use crate::formats::inline::placeholders::{Ids, Syntaxes};
use crate::model::Run;

/// The runs of `s`, taking its text (a message with no placeholder becomes one run that
/// keeps the decoded string rather than a copy).
pub(super) fn runs_of(s: &mut Str, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    split_owned(std::mem::take(&mut s.text), s.verbatim, syntaxes, ids)
}

/// [`split_at`] over an owned string: moved into the only run when no code is found.
fn split_owned(text: String, src: Option<usize>, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    let runs = split_at(&text, src, syntaxes, ids, true);
    if runs.is_empty() && !text.is_empty() {
        // Exactly one slot (a first push would take four).
        return vec![Run::Text { text, src }];
    }
    runs
}

/// Splits a message into text and placeholder codes: printf (`%s`, `%1$d`, `%.2f`, `%S`, `%%`,
/// `%(name)s`) when `syntaxes.printf`, and brace (`{name}`, `{0}`, `{}`, `{:>10}`, `{0,number}`,
/// `{name!r}`, `{value:>10}`; `{{` and `}}` are literal braces) when `syntaxes.brace`.
/// The codes are those [`crate::formats::inline::placeholders::split`] gives, found by a byte scanner: it is
/// several times faster on catalogs, and a placeholder inside HTML in the message
/// (`<a href="%(url)s">`) is still a code.
/// With `leave_whole`, a text with no code gives no run (the caller moves it in).
pub(super) fn split_at(
    text: &str,
    src: Option<usize>,
    syntaxes: Syntaxes,
    ids: &mut Ids,
    leave_whole: bool,
) -> Vec<Run> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while let Some(p) = bytes
        .get(i..)
        .and_then(|rest| memchr::memchr3(b'%', b'{', b'}', rest))
    {
        let start = i + p;
        let found = match bytes.get(start) {
            Some(b'%') if syntaxes.printf => printf_len(bytes, start).map(|len| (len, "printf")),
            Some(b'{') if syntaxes.brace && bytes.get(start + 1) == Some(&b'{') => {
                i = start + 2;
                continue;
            }
            Some(b'{') if syntaxes.brace => brace_len(bytes, start).map(|len| (len, "placeholder")),
            _ => None,
        };
        let Some((len, class)) = found else {
            i = start + 1;
            continue;
        };
        let end = start + len;
        if start > at {
            runs.push(Run::Text {
                text: text.get(at..start).unwrap_or_default().to_owned(),
                src: src.map(|s| s + at),
            });
        }
        let data = text.get(start..end).unwrap_or_default();
        let mut code = crate::model::Code::new(
            ids.next(),
            crate::model::CodeKind::Standalone,
            class,
            data,
            false,
        );
        code.src = src.map(|s| s + start);
        runs.push(Run::Code(Box::new(code)));
        at = end;
        i = end;
        if ids.full() {
            // The block is refused when it ends ([`crate::formats::MAX_CODES`]).
            break;
        }
    }
    if leave_whole && at == 0 {
        return runs;
    }
    if at < text.len() {
        runs.push(Run::Text {
            text: text.get(at..).unwrap_or_default().to_owned(),
            src: src.map(|s| s + at),
        });
    }
    runs
}

/// The length of the printf directive at `start` (a `%`), if one is there.
fn printf_len(bytes: &[u8], start: usize) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let digits = |mut i: usize| {
        while at(i).is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = start + 1;
    if at(i) == b'%' {
        return Some(2);
    }
    if at(i) == b'(' {
        // Python: %(name)s with flags, width and precision.
        let name = i + 1;
        if !(at(name).is_ascii_alphabetic() || at(name) == b'_') {
            return None;
        }
        i = name;
        while at(i).is_ascii_alphanumeric() || matches!(at(i), b'_' | b'.') {
            i += 1;
        }
        if at(i) != b')' {
            return None;
        }
        i += 1;
        while matches!(at(i), b'-' | b'+' | b'0' | b'#') {
            i += 1;
        }
        i = digits(i);
        if at(i) == b'.' && at(i + 1).is_ascii_digit() {
            i = digits(i + 1);
        }
        return b"diouxXeEfFgGcrsa"
            .contains(&at(i))
            .then_some(i + 1 - start);
    }
    // C: %[n$][flags][width][.precision][length]conversion
    let n = digits(i);
    if n > i && at(n) == b'$' {
        i = n + 1;
    }
    while matches!(at(i), b'-' | b'+' | b'0' | b'#' | b'\'') {
        i += 1;
    }
    if at(i) == b'*' {
        i += 1;
    } else {
        i = digits(i);
    }
    if at(i) == b'.' {
        if at(i + 1) == b'*' {
            i += 2;
        } else if at(i + 1).is_ascii_digit() {
            i = digits(i + 1);
        }
    }
    for length in [&b"hh"[..], b"ll", b"h", b"l", b"L", b"z", b"j", b"t", b"q"] {
        if bytes.get(i..i + length.len()) == Some(length) {
            i += length.len();
            break;
        }
    }
    b"diouxXeEfFgGaAcspn@S"
        .contains(&at(i))
        .then_some(i + 1 - start)
}

/// The length of the brace placeholder at `start` (a `{`), if one is there.
fn brace_len(bytes: &[u8], start: usize) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut i = start + 1;
    // `{}`, `{!r}`, `{:>10}`: Python's auto-numbered field, which has no name.
    if !matches!(at(i), b'}' | b'!' | b':') {
        while matches!(at(i), b' ' | b'\t') {
            i += 1;
        }
        if !(at(i).is_ascii_alphanumeric() || at(i) == b'_') {
            return None;
        }
        while at(i).is_ascii_alphanumeric() || matches!(at(i), b'_' | b'.' | b'-' | b'[' | b']') {
            i += 1;
        }
        while matches!(at(i), b' ' | b'\t') {
            i += 1;
        }
    }
    if at(i) == b'!' && matches!(at(i + 1), b'r' | b's' | b'a') {
        i += 2;
    }
    if matches!(at(i), b',' | b':') {
        while !matches!(at(i), b'{' | b'}' | 0) {
            i += 1;
        }
    }
    (at(i) == b'}').then_some(i + 1 - start)
}
