//! reStructuredText inline markup into runs: prose as verbatim slices of the file, markup as
//! codes an edit keeps, recognised by docutils' inline markup recognition rules (a start
//! string follows whitespace or an opening punctuation and precedes a non-space; an end string
//! follows a non-space and precedes whitespace or a closing punctuation).
//!
//! - emphasis and strong are open/close codes holding `*` and `**`, their text prose;
//! - inline literals (class `code`, as Markdown's), roles (`:func:`x``, `` `x`:role: ``), interpreted text, substitution
//!   references (`|name|`), footnote and citation references (`[1]_`) and standalone URLs
//!   are one standalone code each;
//! - a hyperlink reference's text is prose: `` `Python <https://python.org>`_ `` is an open
//!   code `` ` ``, the text, and a close code `` <https://python.org>`_ ``; `word_` is the word
//!   and a code `_`; an inline target `` _`term` `` is an open code ``_` `` and a close `` ` ``;
//! - a backslash escape reads as the escaped character at its own offset (the backslash is
//!   markup the writer puts back where the text needs it); an escaped space, or a backslash
//!   ending a line, is a standalone code;
//! - a line break is a text run `"\n"` at the line ending; the next line's indentation is
//!   skipped.
use crate::formats::spans::Piece;
use crate::model::{CodeKind, Run};

/// The runs of a block whose text lies in `segments` of `text` (each a line's content, by
/// byte range), its line breaks read as `"\n"` runs at each segment's end.
pub fn runs(text: &str, segments: &[(usize, usize)]) -> Vec<Run> {
    crate::formats::spans::runs(text, segments, pieces)
}

/// Whether the character before a start string lets it start markup.
pub(super) fn opens_after(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => {
            c.is_whitespace()
                || matches!(c, '\'' | '"' | '(' | '[' | '{' | '<' | '-' | '/' | ':')
                || matches!(
                    unicode_class(c),
                    Punct::Open | Punct::Dash | Punct::Initial | Punct::Final
                )
        }
    }
}

/// Whether the character after an end string lets it end markup.
pub(super) fn closes_before(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => {
            c.is_whitespace()
                || matches!(
                    c,
                    '\'' | '"'
                        | ')'
                        | ']'
                        | '}'
                        | '>'
                        | '-'
                        | '/'
                        | ':'
                        | '.'
                        | ','
                        | ';'
                        | '!'
                        | '?'
                        | '\\'
                )
                || unicode_class(c) != Punct::None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Punct {
    None,
    Open,
    Close,
    Dash,
    Initial,
    Final,
    Other,
}

/// The Unicode punctuation class docutils' rules name, for the common characters.
fn unicode_class(c: char) -> Punct {
    match c {
        '«' | '‘' | '“' | '‹' => Punct::Initial,
        '»' | '’' | '”' | '›' => Punct::Final,
        '‐' | '‑' | '‒' | '–' | '—' | '―' => Punct::Dash,
        '（' | '［' | '｛' | '「' | '『' | '【' | '〔' | '〈' | '《' => Punct::Open,
        '）' | '］' | '｝' | '」' | '』' | '】' | '〕' | '〉' | '》' => Punct::Close,
        '。' | '、' | '，' | '：' | '；' | '！' | '？' | '…' => Punct::Other,
        _ => Punct::None,
    }
}

/// Whether a start string at `at` (of length `len`) in `s` may start markup: after an
/// allowed character, before a non-space, and not inside a pair of quotes or brackets
/// (`(*)`, `"*"`).
fn starts_at(s: &str, at: usize, len: usize) -> bool {
    let before = s.get(..at).and_then(|b| b.chars().next_back());
    let after = s.get(at + len..).and_then(|a| a.chars().next());
    let Some(after) = after else { return false };
    if after.is_whitespace() || !opens_after(before) {
        return false;
    }
    !matches!(
        (before, after),
        (Some('('), ')')
            | (Some('['), ']')
            | (Some('{'), '}')
            | (Some('<'), '>')
            | (Some('\''), '\'')
            | (Some('"'), '"')
    )
}

/// Where each end string was last looked for in vain: no end lies after it, so a later start
/// string finds none either and need not look (each search then reads a byte once, and a
/// block of unclosed start strings stays linear).
#[derive(Debug, Default)]
struct Misses([usize; 6]);

/// The end strings [`Misses`] keeps apart.
#[derive(Debug, Clone, Copy)]
enum End {
    Literal = 0,
    Strong = 1,
    Emphasis = 2,
    Tick = 3,
    Bar = 4,
    Role = 5,
}

impl End {
    fn mark(self) -> &'static str {
        match self {
            End::Literal => "``",
            End::Strong => "**",
            End::Emphasis => "*",
            End::Tick | End::Role => "`",
            End::Bar => "|",
        }
    }
}

impl Misses {
    fn new() -> Self {
        Misses([usize::MAX; 6])
    }

    /// [`find_end`] of `end` after `from`, remembering a miss.
    fn find(&mut self, s: &str, from: usize, end: End) -> Option<usize> {
        let slot = &mut self.0[end as usize];
        if from >= *slot {
            return None;
        }
        let found = match end {
            End::Tick => find_end_ticked(s, from),
            End::Literal | End::Role => find_end(s, from, end.mark(), false),
            End::Bar => find_end(s, from, end.mark(), true).or_else(|| {
                // `|name|_`: a reference suffix may follow a substitution's end.
                let mut at = from;
                while let Some(i) = s.get(at..).and_then(|r| r.find("|_")) {
                    let pos = at + i;
                    let before = s.get(..pos).and_then(|b| b.chars().next_back());
                    if pos > from
                        && before.is_some_and(|c| !c.is_whitespace())
                        && reference_suffix(s, pos + 1) > 0
                    {
                        return Some(pos);
                    }
                    at = pos + 2;
                }
                None
            }),
            _ => find_end(s, from, end.mark(), true),
        };
        if found.is_none() {
            *slot = from;
        }
        found
    }
}

/// The end of markup opened before `from`: the first `end` string after `from` that follows
/// a non-space (not escaped) and precedes an allowed character; its byte offset.
fn find_end(s: &str, from: usize, end: &str, escapes: bool) -> Option<usize> {
    let mut at = from;
    while let Some(i) = s.get(at..).and_then(|rest| rest.find(end)) {
        let pos = at + i;
        let before = s.get(..pos).and_then(|b| b.chars().next_back());
        let after = s.get(pos + end.len()..).and_then(|a| a.chars().next());
        let escaped = escapes && !backslashes_before(s, pos).is_multiple_of(2);
        if pos > from
            && before.is_some_and(|c| !c.is_whitespace())
            && !escaped
            && closes_before(after)
        {
            return Some(pos);
        }
        // One byte on: `` ``a``` `` ends at its last two backticks.
        at = pos + 1;
    }
    None
}

/// How many backslashes stand right before `at`.
fn backslashes_before(s: &str, at: usize) -> usize {
    s.as_bytes()
        .get(..at)
        .unwrap_or_default()
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count()
}

/// A role's name at `at` (`:func:`), as docutils reads one: words joined by single `-_.:+`.
fn role_at(s: &str, at: usize) -> Option<usize> {
    let rest = s.get(at..)?;
    let body = rest.strip_prefix(':')?;
    let mut len = 0;
    let mut last_sep = true;
    for c in body.chars().take(128) {
        if c.is_alphanumeric() {
            last_sep = false;
        } else if matches!(c, '-' | '_' | '.' | '+') || (c == ':' && !last_sep) {
            if c == ':' && body.get(len + 1..).is_some_and(|r| r.starts_with('`')) {
                return (len > 0).then_some(at + 1 + len + 1);
            }
            if last_sep {
                return None;
            }
            last_sep = true;
        } else {
            return None;
        }
        len += c.len_utf8();
    }
    None
}

/// The pieces of a block's joined text.
fn pieces(s: &str) -> Vec<Piece> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut text_from = 0;
    let mut at = 0;
    let mut misses = Misses::new();
    let flush = |out: &mut Vec<Piece>, from: usize, to: usize| {
        if to > from {
            out.push(Piece::Text(from, to));
        }
    };
    let code = |from, to, class| Piece::Code {
        from,
        to,
        kind: CodeKind::Standalone,
        class,
        deletable: false,
    };
    while at < bytes.len() {
        let b = bytes[at];
        let found: Option<(usize, Vec<Piece>)> = match b {
            b'\\' => Some(escape(s, at)),
            b'`' if bytes.get(at + 1) == Some(&b'`') && starts_at(s, at, 2) => {
                misses.find(s, at + 2, End::Literal).map(|end| {
                    let to = end + 2;
                    (to, vec![code(at, to, "code")])
                })
            }
            b'*' if bytes.get(at + 1) == Some(&b'*') && starts_at(s, at, 2) => {
                pair(s, at, End::Strong, "strong", &mut misses)
            }
            b'*' if starts_at(s, at, 1) => pair(s, at, End::Emphasis, "emphasis", &mut misses),
            b'`' if starts_at(s, at, 1) => interpreted(s, at, &mut misses),
            b':' if opens_after(s.get(..at).and_then(|b| b.chars().next_back())) => role_at(s, at)
                .and_then(|tick| {
                    misses
                        .find(s, tick + 1, End::Role)
                        .map(|end| (end + 1, vec![code(at, end + 1, "role")]))
                }),
            b'|' if starts_at(s, at, 1) => misses.find(s, at + 1, End::Bar).map(|end| {
                let mut to = end + 1;
                to += reference_suffix(s, to);
                (to, vec![code(at, to, "substitution")])
            }),
            b'[' if starts_at(s, at, 1) => footnote_reference(s, at),
            b'_' if bytes.get(at + 1) == Some(&b'`') && starts_at(s, at, 2) => {
                misses.find(s, at + 2, End::Tick).map(|end| {
                    (
                        end + 1,
                        vec![
                            pair_code(at, at + 2, CodeKind::Open, "target"),
                            Piece::Text(at + 2, end),
                            pair_code(end, end + 1, CodeKind::Close, "target"),
                        ],
                    )
                })
            }
            b'_' => word_reference(s, at),
            b'h' | b'f' | b'm' => url(s, at),
            _ => None,
        };
        match found {
            Some((to, pieces)) if to > at => {
                flush(&mut out, text_from, at);
                out.extend(pieces);
                at = to;
                text_from = to;
            }
            _ => at += 1,
        }
    }
    flush(&mut out, text_from, bytes.len());
    out
}

fn pair_code(from: usize, to: usize, kind: CodeKind, class: &'static str) -> Piece {
    Piece::Code {
        from,
        to,
        kind,
        class,
        deletable: true,
    }
}

/// A backslash escape at `at`: the escaped character as text (the backslash left out), or
/// an escaped space or line end as a code.
fn escape(s: &str, at: usize) -> (usize, Vec<Piece>) {
    match s.get(at + 1..).and_then(|r| r.chars().next()) {
        None => (
            at + 1,
            vec![pair_code(at, at + 1, CodeKind::Standalone, "escape")],
        ),
        Some(c) if c.is_whitespace() => {
            let to = at + 1 + c.len_utf8();
            let to = if c == '\n' { at + 1 } else { to };
            (to, vec![pair_code(at, to, CodeKind::Standalone, "escape")])
        }
        Some(c) => (
            at + 1 + c.len_utf8(),
            vec![Piece::Text(at + 1, at + 1 + c.len_utf8())],
        ),
    }
}

/// Emphasis or strong opened by `mark` at `at`.
fn pair(
    s: &str,
    at: usize,
    end: End,
    class: &'static str,
    misses: &mut Misses,
) -> Option<(usize, Vec<Piece>)> {
    let mark = end.mark();
    let inner = at + mark.len();
    let end = misses.find(s, inner, end)?;
    let mut pieces = vec![pair_code(at, inner, CodeKind::Open, class)];
    pieces.extend(escaped_text(s, inner, end));
    pieces.push(pair_code(end, end + mark.len(), CodeKind::Close, class));
    Some((end + mark.len(), pieces))
}

/// Text from `from` to `to` with its backslash escapes read.
fn escaped_text(s: &str, from: usize, to: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut start = from;
    let mut at = from;
    while at < to {
        if s.as_bytes().get(at) == Some(&b'\\') && at + 1 < to {
            if at > start {
                out.push(Piece::Text(start, at));
            }
            let (next, pieces) = escape(s, at);
            out.extend(pieces);
            at = next.min(to);
            start = at;
        } else {
            at += 1;
        }
    }
    if to > start {
        out.push(Piece::Text(start, to));
    }
    out
}

/// The `_` or `__` after a reference's end, if any (its length).
fn reference_suffix(s: &str, at: usize) -> usize {
    let rest = s.get(at..).unwrap_or_default();
    let len = if rest.starts_with("__") {
        2
    } else if rest.starts_with('_') {
        1
    } else {
        return 0;
    };
    if closes_before(rest.get(len..).and_then(|r| r.chars().next())) {
        len
    } else {
        0
    }
}

/// Interpreted text or a phrase reference opened by `` ` `` at `at`.
fn interpreted(s: &str, at: usize, misses: &mut Misses) -> Option<(usize, Vec<Piece>)> {
    let end = misses.find(s, at + 1, End::Tick)?;
    let mut to = end + 1;
    let suffix = reference_suffix(s, to);
    if suffix == 0 {
        // A role after it (`` `x`:role: ``) belongs to the code.
        if let Some(after) = role_suffix(s, to) {
            to = after;
        }
        return Some((to, vec![code_piece(at, to, "role")]));
    }
    to += suffix;
    let inner = s.get(at + 1..end).unwrap_or_default();
    // An embedded URI or alias: `text <target>`_.
    let text_end = match inner.strip_suffix('>').and_then(|i| i.rfind('<')) {
        Some(lt) => {
            let before = inner.get(..lt).unwrap_or_default();
            at + 1 + before.trim_end().len()
        }
        None => end,
    };
    if text_end == at + 1 {
        return Some((to, vec![code_piece(at, to, "link")]));
    }
    let mut pieces = vec![pair_code(at, at + 1, CodeKind::Open, "link")];
    pieces.extend(escaped_text(s, at + 1, text_end));
    pieces.push(Piece::Code {
        from: text_end,
        to,
        kind: CodeKind::Close,
        class: "link",
        deletable: true,
    });
    Some((to, pieces))
}

fn code_piece(from: usize, to: usize, class: &'static str) -> Piece {
    Piece::Code {
        from,
        to,
        kind: CodeKind::Standalone,
        class,
        deletable: false,
    }
}

/// The end backtick of interpreted text opened before `from`.
fn find_end_ticked(s: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = s.get(at..).and_then(|r| r.find('`')) {
        let pos = at + i;
        let before = s.get(..pos).and_then(|b| b.chars().next_back());
        let after_tick = pos + 1;
        let ok_after = closes_before(s.get(after_tick..).and_then(|a| a.chars().next()))
            || reference_suffix(s, after_tick) > 0
            || role_suffix(s, after_tick).is_some();
        if pos > from
            && before.is_some_and(|c| !c.is_whitespace())
            && backslashes_before(s, pos).is_multiple_of(2)
            && ok_after
        {
            return Some(pos);
        }
        at = pos + 1;
    }
    None
}

/// A `:role:` suffix at `at` (`:py:func:`); where it ends.
fn role_suffix(s: &str, at: usize) -> Option<usize> {
    let body = s.get(at..)?.strip_prefix(':')?;
    let bytes = body.as_bytes();
    // A role's name is short: read its next bytes only.
    for (i, &b) in bytes.iter().enumerate().take(128) {
        if b == b':' {
            let next = bytes.get(i + 1).copied();
            if i > 0 && next.is_some_and(|n| n.is_ascii_alphanumeric()) {
                continue;
            }
            let to = at + 1 + i + 1;
            return (i > 0 && closes_before(s.get(to..).and_then(|a| a.chars().next())))
                .then_some(to);
        }
        if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'+')) {
            return None;
        }
    }
    None
}

/// A footnote or citation reference at `at`: `[1]_`, `[#]_`, `[#name]_`, `[*]_`, `[CIT]_`.
fn footnote_reference(s: &str, at: usize) -> Option<(usize, Vec<Piece>)> {
    let rest = s.get(at + 1..)?;
    // A label is short: look for its `]` among the next bytes only.
    let close = rest.bytes().take(130).position(|b| b == b']')?;
    let label = rest.get(..close)?;
    let valid = !label.is_empty()
        && label.len() <= 128
        && (label == "*"
            || label
                .trim_start_matches('#')
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+')));
    let after = at + 1 + close + 1;
    if !valid || s.as_bytes().get(after) != Some(&b'_') {
        return None;
    }
    let to = after + 1 + usize::from(s.as_bytes().get(after + 1) == Some(&b'_'));
    closes_before(s.get(to..).and_then(|a| a.chars().next()))
        .then(|| (to, vec![code_piece(at, to, "footnote")]))
}

/// The `_` (or `__`) ending a one-word reference (`Python_`), when at `at`.
fn word_reference(s: &str, at: usize) -> Option<(usize, Vec<Piece>)> {
    let before = s.get(..at).and_then(|b| b.chars().next_back())?;
    if !before.is_alphanumeric() {
        return None;
    }
    let len = if s.as_bytes().get(at + 1) == Some(&b'_') {
        2
    } else {
        1
    };
    let to = at + len;
    if !closes_before(s.get(to..).and_then(|a| a.chars().next())) {
        return None;
    }
    Some((
        to,
        vec![Piece::Code {
            from: at,
            to,
            kind: CodeKind::Standalone,
            class: "reference",
            deletable: true,
        }],
    ))
}

/// A standalone URL at `at` (`https://…`, `ftp://…`, `mailto:…`), up to whitespace, its
/// trailing punctuation left out.
fn url(s: &str, at: usize) -> Option<(usize, Vec<Piece>)> {
    let rest = s.get(at..)?;
    let scheme = ["https://", "http://", "ftp://", "mailto:"]
        .iter()
        .find(|p| rest.starts_with(*p))?;
    let before = s.get(..at).and_then(|b| b.chars().next_back());
    if before.is_some_and(|c| c.is_alphanumeric()) {
        return None;
    }
    let len = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '`' | '"'))
        .unwrap_or(rest.len());
    // Trailing punctuation ends the sentence, not the URL; a `)` only when it closes no `(`
    // of the URL (`https://…/man(1)`).
    let mut url = rest.get(..len)?;
    let opens = url.matches('(').count();
    let mut closes = url.matches(')').count();
    while let Some(last) = url.chars().next_back() {
        match last {
            '.' | ',' | ';' | ':' | '!' | '?' | '\'' => {}
            ')' if closes > opens => closes -= 1,
            _ => break,
        }
        url = &url[..url.len() - 1];
    }
    (url.len() > scheme.len())
        .then(|| (at + url.len(), vec![code_piece(at, at + url.len(), "url")]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Edition;

    fn read(s: &str) -> (String, Vec<String>) {
        let runs = runs(s, &[(0, s.len())]);
        let codes = runs
            .iter()
            .filter_map(|r| match r {
                Run::Code(c) => Some(c.data.clone()),
                _ => None,
            })
            .collect();
        (Edition::new(runs).plain_text(), codes)
    }

    #[test]
    fn markup_is_codes_and_prose_is_text() {
        let (text, codes) = read("Use *this* and **that**, ``code`` and :func:`f`.");
        assert_eq!(text, "Use this and that,  and .");
        assert_eq!(codes, ["*", "*", "**", "**", "``code``", ":func:`f`"]);
        let (text, codes) = read("See `Python <https://python.org>`_ and Sphinx_ or |name|_.");
        assert_eq!(text, "See Python and Sphinx or .");
        assert_eq!(codes, ["`", " <https://python.org>`_", "_", "|name|_"]);
        let (text, codes) = read("A note [#n]_ and [CIT2002]_, and `x`:py:func: too.");
        assert_eq!(text, "A note  and , and  too.");
        assert_eq!(codes.len(), 3);
        let (text, _) = read("Visit https://example.com/a. And _`target` here.");
        assert_eq!(text, "Visit . And target here.");
        let (text, _) = read("(see <https://example.com/man(1)>) and (https://example.com).");
        assert_eq!(text, "(see <>) and ().");
    }

    #[test]
    fn look_alikes_stay_prose() {
        for s in [
            "2 * 3 = 6 and 2*3 too",
            "snake_case_name and a_b",
            "a (*) star, \"*\" and '|'",
            "x|y and [1] without underscore",
            "a colon: here, and :not a role",
        ] {
            let (text, codes) = read(s);
            assert_eq!(text, s, "{s}: {codes:?}");
        }
    }

    #[test]
    fn escapes_read_as_the_character_and_lines_join() {
        let (text, _) = read(r"a \*star\* and a\ b");
        assert_eq!(text, "a *star* and ab");
        let s = "one *two\n   three* four";
        let runs = runs(s, &[(0, 8), (12, s.len())]);
        assert_eq!(
            Edition::new(runs.clone()).plain_text(),
            "one two\nthree four"
        );
        assert!(runs.contains(&Run::text_at("\n", 8)));
    }

    #[test]
    fn hostile_input_is_linear() {
        for s in [
            "`".repeat(100_000),
            "*a ".repeat(30_000),
            ":a:".repeat(30_000),
            "|x ".repeat(30_000),
        ] {
            let _ = read(&s);
        }
    }
}
