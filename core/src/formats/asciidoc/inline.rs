//! AsciiDoc inline markup into runs, by Asciidoctor's substitution rules: prose as verbatim
//! slices of the file, markup as codes an edit keeps.
//!
//! - strong, emphasis, mark, superscript and subscript (`*x*`, `_x_`, `#x#`, `^x^`, `~x~`,
//!   and the unconstrained `**x**`, `__x__`, `##x##`) are open/close codes around prose (a
//!   constrained pair opens after a non-word character and closes before one, so
//!   `snake_case_name` and `2 * 3` stay prose);
//! - monospace (`` `x` ``, class `code`), passthroughs (`+x+`, `++x++`, `+++x+++`,
//!   `pass:[…]`), attribute references (`{name}`), inline macros (`kbd:[…]`, `image:…[…]`,
//!   `btn:`, `menu:`, `icon:`, and any `name:target[…]`), inline anchors (`[[id]]`), a role
//!   list before a span (`[.role]#x#`), character references (`&amp;`), bare URLs and a hard
//!   line break (` +` at a line's end) are one standalone code each;
//! - a link's or a cross reference's text is prose between codes: `https://x[text]`,
//!   `link:x[text]`, `xref:x[text]`, `<<id,text>>`; a footnote's text too (`footnote:[text]`);
//! - a backslash escape (`\*`, `\{name}`) reads as the escaped text, the backslash markup.
use crate::formats::spans::Piece;
use crate::model::{CodeKind, Run};

/// The deepest nesting of formatting read (`*_`x`_*`); deeper markup stays prose.
const MAX_NESTING: usize = 8;

/// How far a closing bracket or delimiter is looked for, in bytes: a macro's attributes, a
/// cross reference or an attribute name is short.
const REACH: usize = 1024;

/// The runs of a block whose text lies in `segments` of `text`.
pub fn runs(text: &str, segments: &[(usize, usize)]) -> Vec<Run> {
    crate::formats::spans::runs(text, segments, pieces)
}

/// The pieces of a block's joined text.
pub fn pieces(s: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    read(s, 0, s.len(), 0, &mut out);
    out
}

/// Where a closing mark was looked for in vain in one stretch of text, by mark: no close lies
/// after it in the stretch, so a later opening looks no further (each mark's searches read a
/// byte once per stretch; a nested stretch keeps its own).
#[derive(Debug, Default)]
struct Misses(Vec<(&'static str, usize)>);

impl Misses {
    fn missed(&self, mark: &str, from: usize) -> bool {
        self.0.iter().any(|&(m, at)| m == mark && from >= at)
    }

    fn miss(&mut self, mark: &'static str, from: usize) {
        match self.0.iter_mut().find(|(m, _)| *m == mark) {
            Some(slot) => slot.1 = slot.1.min(from),
            None => self.0.push((mark, from)),
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn char_before(s: &str, at: usize) -> Option<char> {
    s.get(..at).and_then(|b| b.chars().next_back())
}

fn char_at(s: &str, at: usize) -> Option<char> {
    s.get(at..).and_then(|r| r.chars().next())
}

fn code(from: usize, to: usize, class: &'static str) -> Piece {
    Piece::Code {
        from,
        to,
        kind: CodeKind::Standalone,
        class,
        deletable: false,
    }
}

fn pair(from: usize, to: usize, kind: CodeKind, class: &'static str) -> Piece {
    Piece::Code {
        from,
        to,
        kind,
        class,
        deletable: true,
    }
}

/// Reads `s[from..to]` into `out`.
fn read(s: &str, from: usize, to: usize, depth: usize, out: &mut Vec<Piece>) {
    let bytes = s.as_bytes();
    let misses = &mut Misses::default();
    let mut text_from = from;
    let mut at = from;
    while at < to {
        let found = match bytes[at] {
            b'\\' => escape(s, at, to),
            b'{' => attribute(s, at, to, depth),
            b'`' | b'+' => literal(s, at, to, misses),
            b'*' | b'_' | b'#' | b'^' | b'~' if depth < MAX_NESTING => {
                formatting(s, at, to, depth, misses)
            }
            b'<' => cross_reference(s, at, to, depth),
            b'[' => anchor_or_role(s, at, to),
            b'&' => entity(s, at, to),
            b' ' => hard_break(s, at, to),
            b'a'..=b'z' => macro_at(s, at, to, depth),
            _ => None,
        };
        match found {
            Some((end, pieces)) if end > at => {
                if at > text_from {
                    out.push(Piece::Text(text_from, at));
                }
                out.extend(pieces);
                at = end;
                text_from = end;
            }
            _ => at += char_at(s, at).map_or(1, char::len_utf8),
        }
    }
    if to > text_from {
        out.push(Piece::Text(text_from, to));
    }
}

type Found = Option<(usize, Vec<Piece>)>;

/// A backslash before markup: the markup as text, the backslash left out.
fn escape(s: &str, at: usize, to: usize) -> Found {
    let next = char_at(s, at + 1)?;
    // `\|` is a table cell's escaped separator.
    if at + 1 >= to
        || !matches!(
            next,
            '*' | '_'
                | '`'
                | '#'
                | '^'
                | '~'
                | '+'
                | '{'
                | '['
                | '<'
                | '\\'
                | '&'
                | '('
                | '|'
                | '!'
        )
    {
        return None;
    }
    // The escaped text: a whole pair or reference (`\{name}`, `\*x*`) reads as itself.
    Some((
        at + 1 + next.len_utf8(),
        vec![Piece::Text(at + 1, at + 1 + next.len_utf8())],
    ))
}

/// `{name}` (and `{counter:x}`, `{set:…}`): an attribute reference; one that starts a URL
/// with link text (`{url-docs}/guide.html[the guide]`) is a link, its text prose.
fn attribute(s: &str, at: usize, to: usize, depth: usize) -> Found {
    let rest = s.get(at + 1..to)?;
    let close = rest.bytes().take(128).position(|b| b == b'}')?;
    let name = rest.get(..close)?;
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '!'));
    if !valid {
        return None;
    }
    let end = at + 1 + close + 1;
    let tail = s.get(end..to).unwrap_or_default();
    let target = tail
        .bytes()
        .take(REACH)
        .position(|b| b == b'[' || b.is_ascii_whitespace())
        .filter(|&i| tail.as_bytes().get(i) == Some(&b'['));
    if let Some(bracket) = target.map(|i| end + i)
        && let Some(stop) = bracket_end(s, bracket, to)
        && stop > bracket + 2
    {
        return Some((stop, link(s, at, bracket, stop, depth)));
    }
    Some((end, vec![code(at, end, "attribute")]))
}

/// Where the `]` closing the `[` at `bracket` ends (past it), not escaped, within reach.
fn bracket_end(s: &str, bracket: usize, to: usize) -> Option<usize> {
    let attrs = s.get(bracket + 1..to)?;
    let mut prev = 0u8;
    for (i, b) in attrs.bytes().enumerate().take(REACH) {
        if b == b']' && prev != b'\\' {
            return Some(bracket + 1 + i + 1);
        }
        prev = b;
    }
    None
}

/// A link from `at` whose `[` is at `bracket` and whose `]` ends at `stop`: an open code up
/// to the bracket, the text (before a named attribute, without a trailing `^`), a close code.
fn link(s: &str, at: usize, bracket: usize, stop: usize, depth: usize) -> Vec<Piece> {
    let content = s.get(bracket + 1..stop - 1).unwrap_or_default();
    let mut text_end = stop - 1;
    if let Some(comma) = content.find(',').filter(|&c| {
        content[c + 1..]
            .trim_start()
            .split(['=', ','])
            .next()
            .is_some_and(|k| !k.is_empty() && k.chars().all(|ch| ch.is_alphanumeric() || ch == '-'))
            && content[c + 1..].contains('=')
    }) {
        text_end = bracket + 1 + comma;
    }
    if s.get(..text_end).is_some_and(|t| t.ends_with('^')) {
        text_end -= 1;
    }
    if text_end <= bracket + 1 || content.starts_with('"') {
        return vec![code(at, stop, "link")];
    }
    let mut pieces = vec![pair(at, bracket + 1, CodeKind::Open, "link")];
    let mut inner = Vec::new();
    read(s, bracket + 1, text_end, depth + 1, &mut inner);
    pieces.extend(inner);
    pieces.push(pair(text_end, stop, CodeKind::Close, "link"));
    pieces
}

/// Whether a constrained mark at `at` (of length `len`) may open: after a non-word character
/// (or the start), before a non-space.
fn opens(s: &str, at: usize, len: usize) -> bool {
    let before = char_before(s, at);
    let after = char_at(s, at + len);
    !before.is_some_and(|c| is_word(c) || c == ';' || c == ':' || c == '\\')
        && after.is_some_and(|c| !c.is_whitespace())
}

/// The close of a constrained `mark` after `from` (up to `to`): after a non-space, before a
/// non-word character.
fn close_of(s: &str, from: usize, to: usize, mark: &str, constrained: bool) -> Option<usize> {
    let mut at = from;
    while let Some(i) = s.get(at..to).and_then(|r| r.find(mark)) {
        let pos = at + i;
        let before = char_before(s, pos);
        let after = char_at(s, pos + mark.len()).filter(|_| pos + mark.len() < to);
        let escaped = before == Some('\\');
        let ok = pos > from
            && !escaped
            && (!constrained
                || (before.is_some_and(|c| !c.is_whitespace()) && !after.is_some_and(is_word)));
        if ok {
            return Some(pos);
        }
        at = pos + 1;
    }
    None
}

/// Monospace or a passthrough opened at `at`: one code.
fn literal(s: &str, at: usize, to: usize, misses: &mut Misses) -> Found {
    let marks: &[&'static str] = if s.as_bytes()[at] == b'`' {
        &["``", "`"]
    } else {
        &["+++", "++", "+"]
    };
    for &mark in marks {
        if !s.get(at..to).is_some_and(|r| r.starts_with(mark)) {
            continue;
        }
        let constrained = mark.len() == 1;
        if constrained && !opens(s, at, 1) {
            return None;
        }
        let from = at + mark.len();
        if misses.missed(mark, from) {
            continue;
        }
        match close_of(s, from, to, mark, constrained) {
            Some(end) => {
                let class = if mark.starts_with('`') {
                    "code"
                } else {
                    "passthrough"
                };
                return Some((end + mark.len(), vec![code(at, end + mark.len(), class)]));
            }
            None => misses.miss(mark, from),
        }
    }
    None
}

/// Strong, emphasis, mark, superscript or subscript opened at `at`: open and close codes
/// around the text between, read again for nested markup.
fn formatting(s: &str, at: usize, to: usize, depth: usize, misses: &mut Misses) -> Found {
    let c = s.as_bytes()[at];
    let class = match c {
        b'*' => "strong",
        b'_' => "emphasis",
        b'#' => "mark",
        b'^' => "superscript",
        _ => "subscript",
    };
    let (double, single): (&'static str, &'static str) = match c {
        b'*' => ("**", "*"),
        b'_' => ("__", "_"),
        b'#' => ("##", "#"),
        b'^' => ("^", "^"),
        _ => ("~", "~"),
    };
    if matches!(c, b'^' | b'~') {
        // No spaces inside, no constraint around.
        let rest = s.get(at + 1..to)?;
        let len = rest.find(|ch: char| ch.is_whitespace() || ch as u32 == u32::from(c))?;
        if len == 0 || rest.as_bytes().get(len) != Some(&c) {
            return None;
        }
        let end = at + 1 + len;
        let mut pieces = vec![pair(at, at + 1, CodeKind::Open, class)];
        pieces.push(Piece::Text(at + 1, end));
        pieces.push(pair(end, end + 1, CodeKind::Close, class));
        return Some((end + 1, pieces));
    }
    let (mark, constrained) = if s.get(at..to).is_some_and(|r| r.starts_with(double)) {
        (double, false)
    } else {
        (single, true)
    };
    if constrained && !opens(s, at, 1) {
        return None;
    }
    let from = at + mark.len();
    if misses.missed(mark, from) {
        return None;
    }
    let Some(end) = close_of(s, from, to, mark, constrained) else {
        misses.miss(mark, from);
        return None;
    };
    let mut pieces = vec![pair(at, from, CodeKind::Open, class)];
    let mut inner = Vec::new();
    read(s, from, end, depth + 1, &mut inner);
    pieces.extend(inner);
    pieces.push(pair(end, end + mark.len(), CodeKind::Close, class));
    Some((end + mark.len(), pieces))
}

/// `<<id>>` (one code) or `<<id,text>>` (the text prose between codes).
fn cross_reference(s: &str, at: usize, to: usize, depth: usize) -> Found {
    let rest = s.get(at..to)?;
    if !rest.starts_with("<<") {
        return None;
    }
    let near = &rest.as_bytes()[2..rest.len().min(REACH)];
    let end = near.windows(2).position(|w| w == b">>")? + 2;
    let inner = rest.get(2..end)?;
    if inner.is_empty() || inner.starts_with(char::is_whitespace) {
        return None;
    }
    let stop = at + end + 2;
    match inner.find(',') {
        Some(comma) if !inner[comma + 1..].trim().is_empty() => {
            let text_from = at + 2 + comma + 1;
            let mut pieces = vec![pair(at, text_from, CodeKind::Open, "xref")];
            let mut inner_pieces = Vec::new();
            read(s, text_from, at + end, depth + 1, &mut inner_pieces);
            pieces.extend(inner_pieces);
            pieces.push(pair(at + end, stop, CodeKind::Close, "xref"));
            Some((stop, pieces))
        }
        _ => Some((stop, vec![code(at, stop, "xref")])),
    }
}

/// `[[id]]` or `[[[id]]]` (an anchor), or an attribute list right before a span
/// (`[.role]#x#`): one code.
fn anchor_or_role(s: &str, at: usize, to: usize) -> Found {
    let rest = s.get(at..to)?;
    let close = rest.bytes().take(REACH).position(|b| b == b']')?;
    if rest.starts_with("[[") {
        let near = &rest.as_bytes()[..rest.len().min(REACH)];
        let end = near.windows(2).position(|w| w == b"]]")?;
        let stop =
            at + end + 2 + usize::from(rest.get(end + 2..).is_some_and(|r| r.starts_with(']')));
        return Some((stop, vec![code(at, stop, "anchor")]));
    }
    let next = rest.as_bytes().get(close + 1).copied();
    let before = char_before(s, at);
    if matches!(next, Some(b'#' | b'*' | b'_' | b'`')) && !before.is_some_and(is_word) {
        return Some((at + close + 1, vec![code(at, at + close + 1, "role")]));
    }
    None
}

/// `&amp;`, `&#169;`, `&#x2014;`: one code.
fn entity(s: &str, at: usize, to: usize) -> Found {
    let rest = s.get(at + 1..to)?;
    let end = rest.bytes().take(32).position(|b| b == b';')?;
    let name = rest.get(..end)?;
    let valid = !name.is_empty()
        && (name.chars().all(|c| c.is_ascii_alphanumeric())
            || name.strip_prefix('#').is_some_and(|n| {
                let n = n.strip_prefix(['x', 'X']).unwrap_or(n);
                !n.is_empty() && n.chars().all(|c| c.is_ascii_hexdigit())
            }));
    valid.then(|| (at + 1 + end + 1, vec![code(at, at + 1 + end + 1, "entity")]))
}

/// ` +` at a line's end: a hard line break.
fn hard_break(s: &str, at: usize, to: usize) -> Found {
    let rest = s.get(at..to)?;
    (rest.starts_with(" +") && (at + 2 == to || rest.as_bytes().get(2) == Some(&b'\n')))
        .then(|| (at + 2, vec![code(at, at + 2, "break")]))
}

/// A URL or an inline macro at `at`: `https://x`, `https://x[text]`, `link:x[text]`,
/// `xref:x[text]`, `mailto:x[text]`, `footnote:[text]`, `kbd:[…]`, `image:x[…]` and any
/// `name:target[attributes]`.
fn macro_at(s: &str, at: usize, to: usize, depth: usize) -> Found {
    if char_before(s, at).is_some_and(|c| is_word(c) || matches!(c, '/' | '.' | ':' | '-')) {
        return None;
    }
    let rest = s.get(at..to)?;
    let name_len = rest
        .bytes()
        .take(32)
        .position(|b| !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))?;
    let after_name = rest.get(name_len..)?;
    if !after_name.starts_with(':') || name_len == 0 {
        return None;
    }
    let name = rest.get(..name_len)?;
    let url = matches!(name, "http" | "https" | "ftp" | "irc") && after_name.starts_with("://");
    // The target: up to `[`, whitespace or the end.
    let target_from = at + name_len + 1;
    let tail = s.get(target_from..to)?;
    let target_len = tail
        .find(|c: char| c == '[' || c.is_whitespace())
        .unwrap_or(tail.len());
    let bracket = target_from + target_len;
    if s.as_bytes().get(bracket) != Some(&b'[') || bracket >= to {
        if !url {
            return None;
        }
        // A bare URL, its trailing punctuation left out.
        let mut end = bracket;
        while end > target_from + 2
            && matches!(
                s.as_bytes()[end - 1],
                b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b'\'' | b'"'
            )
        {
            end -= 1;
        }
        return Some((end, vec![code(at, end, "url")]));
    }
    if target_len == 0
        && !matches!(
            name,
            "footnote"
                | "kbd"
                | "btn"
                | "pass"
                | "stem"
                | "latexmath"
                | "asciimath"
                | "indexterm"
                | "indexterm2"
                | "footnoteref"
                | "anchor"
        )
    {
        return None;
    }
    let stop = bracket_end(s, bracket, to)?;
    let prose = url || matches!(name, "link" | "mailto" | "xref" | "footnote");
    if !prose {
        let class = if url { "url" } else { "macro" };
        return Some((stop, vec![code(at, stop, class)]));
    }
    Some((stop, link(s, at, bracket, stop, depth)))
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
        let (text, codes) = read("Use *this* and `code`, {version} and kbd:[Ctrl+C].");
        assert_eq!(text, "Use this and ,  and .");
        assert_eq!(codes, ["*", "*", "`code`", "{version}", "kbd:[Ctrl+C]"]);
        let (text, codes) = read("See https://spring.io[Spring] and xref:a.adoc#b[the guide].");
        assert_eq!(text, "See Spring and the guide.");
        assert_eq!(codes, ["https://spring.io[", "]", "xref:a.adoc#b[", "]"]);
        let (text, _) = read("A <<ref,cross reference>> and <<plain>>, footnote:[A note.]");
        assert_eq!(text, "A cross reference and , A note.");
        let (text, _) = read("Visit https://example.com/a. Then *_nested_ strong*.");
        assert_eq!(text, "Visit . Then nested strong.");
        let (text, _) = read("Open https://x.org[docs,window=_blank] and link:a.html[here^].");
        assert_eq!(text, "Open docs and here.");
        let (text, codes) = read("See {url-docs}/guide.html[the guide] and {version}.");
        assert_eq!(text, "See the guide and .");
        assert_eq!(codes, ["{url-docs}/guide.html[", "]", "{version}"]);
        let (text, codes) = read("x^2^ and H~2~O, [.role]#marked# &amp; line +");
        assert_eq!(text, "x2 and H2O, marked  line");
        assert_eq!(codes.last().map(String::as_str), Some(" +"));
    }

    #[test]
    fn look_alikes_stay_prose() {
        for s in [
            "2 * 3 = 6 and 2*3 too",
            "snake_case_name and a_b",
            "C# and F# are languages",
            "~/.m2/repository and ~ alone",
            "Note: this [is] fine",
            "a < b and b > c",
            "Use std::vector here",
        ] {
            let (text, codes) = read(s);
            assert_eq!(text, s, "{s}: {codes:?}");
        }
    }

    #[test]
    fn escapes_read_as_the_text() {
        let (text, codes) = read(r"Write \{name} and \*not strong*.");
        assert_eq!(text, "Write {name} and *not strong*.");
        assert!(codes.is_empty(), "{codes:?}");
    }

    #[test]
    fn hostile_input_is_linear() {
        for s in [
            "*a ".repeat(30_000),
            "`".repeat(60_000),
            "<<".repeat(30_000),
            "link:".repeat(20_000),
            "[".repeat(60_000),
            "{a ".repeat(30_000),
            "*_#".repeat(30_000) + "x",
        ] {
            let _ = read(&s);
        }
    }
}
