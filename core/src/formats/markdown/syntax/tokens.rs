//! The tokens the forms are made of, read from a block's masked bytes: blank space and names,
//! brace pairs, strings, attribute lists, code-holding tags, shortcodes, Liquid tag names, and
//! where a stretch of code closes.

use super::*;

/// The count of blank space (spaces, tabs) at the start of `bytes`.
pub(super) fn blanks(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// The length of `bytes` without the blank space (and uncovered bytes) at its end.
pub(super) fn trim_end_blank(bytes: &[u8]) -> usize {
    bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r' | UNCOVERED))
            .count()
}

/// The length of the name (letters, digits, `_`, `-`, `.`, `:`) at the start of `bytes`.
pub(super) fn name_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
        .count()
}

/// Every matched brace pair of `m` (`{` at the first, `}` at the second), sorted. Inside
/// braces a string (`'…'`, `"…"` to the line's end at most, `` `…` ``) and a comment
/// (`/* … */`, when it ends) hold no brace. One pass; nesting costs a stack entry, no
/// recursion.
pub(super) fn brace_pairs(m: &[u8]) -> Vec<(usize, usize)> {
    let mut comments = Finder::default();
    let mut stack = Vec::new();
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < m.len() {
        let b = m[i];
        if !stack.is_empty() {
            if matches!(b, b'\'' | b'"' | b'`') {
                i = string_end(m, i);
                continue;
            }
            if b == b'/'
                && m.get(i + 1) == Some(&b'*')
                && let Some(k) = comments.find(m, b"*/", i + 2)
            {
                i = k + 2;
                continue;
            }
        }
        match b {
            b'{' => stack.push(i),
            b'}' => {
                if let Some(open) = stack.pop() {
                    pairs.push((open, i));
                }
            }
            _ => {}
        }
        i += 1;
    }
    pairs.sort_unstable();
    pairs
}

/// Just past the string whose quote is at `at` (a backslash escapes the next byte); `'` and
/// `"` strings end at the line's end when unterminated.
pub(super) fn string_end(m: &[u8], at: usize) -> usize {
    let quote = m[at];
    let mut k = at + 1;
    while k < m.len() {
        match m[k] {
            b'\\' => k += 2,
            b'\n' if quote != b'`' => return k,
            b if b == quote => return k + 1,
            _ => k += 1,
        }
    }
    m.len()
}

/// Whether the inside of a brace pair is one string and blank space (`' '`, `"\n"`).
pub(super) fn string_alone(inner: &[u8]) -> bool {
    let lead = inner.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let Some(&q) = inner.get(lead) else {
        return false;
    };
    if !matches!(q, b'\'' | b'"' | b'`') {
        return false;
    }
    let end = string_end(inner, lead);
    end > lead + 1 && inner[end - 1] == q && inner[end..].iter().all(u8::is_ascii_whitespace)
}

/// Whether the inside of a brace pair is an attribute list: `#id`, `.class`, `key=value`
/// (quoted or not) and Pandoc's `-`, blank-separated, on one line; kramdown's `:` first, after
/// which a bare name (`{:toc}`) is one too.
pub(super) fn attribute_list(inner: &[u8]) -> bool {
    let (kramdown, inner) = match inner.strip_prefix(b":") {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let mut k = 0;
    let mut items = 0;
    loop {
        k += blanks(&inner[k..]);
        let Some(&b) = inner.get(k) else {
            return items > 0 || kramdown;
        };
        let word = |from: usize| {
            inner[from..]
                .iter()
                .take_while(|&&c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'}'))
                .count()
        };
        match b {
            b'#' | b'.' => {
                let n = word(k + 1);
                if n == 0
                    || inner[k + 1..k + 1 + n]
                        .iter()
                        .any(|c| matches!(c, b'"' | b'\''))
                {
                    return false;
                }
                k += 1 + n;
            }
            b'-' if inner.get(k + 1).is_none_or(|c| matches!(c, b' ' | b'\t')) => k += 1,
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let n = name_len(&inner[k..]);
                k += n;
                if inner.get(k) == Some(&b'=') {
                    k += 1;
                    match inner.get(k) {
                        Some(&q @ (b'"' | b'\'')) => match memchr::memchr(q, &inner[k + 1..]) {
                            Some(close) if !inner[k + 1..k + 1 + close].contains(&b'\n') => {
                                k += close + 2;
                            }
                            _ => return false,
                        },
                        Some(_) => {
                            let n = word(k);
                            if n == 0 {
                                return false;
                            }
                            k += n;
                        }
                        None => return false,
                    }
                } else if !kramdown {
                    return false;
                }
            }
            _ => return false,
        }
        items += 1;
    }
}

/// The longest a code-holding tag's attributes may run before its `>`.
pub(super) const TAG_MOST: usize = 4096;

/// What a `<` in a block is, when it is a tag of [`CODE_COMPONENTS`] or [`CODE_ELEMENTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TagKind {
    Open,
    Close,
    SelfClosing,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Tag {
    pub(super) name: &'static str,
    pub(super) kind: TagKind,
    /// Just past its `>`.
    pub(super) end: usize,
}

/// The tag of a code-holding component or element at `at` (`<Name` or `</Name`, then blank
/// space, `/` or `>`; on to the next `>`, within [`TAG_MOST`] bytes). Names are
/// case-sensitive: `<Code>` is some other component.
pub(super) fn component_tag(m: &[u8], at: usize) -> Option<Tag> {
    let rest = m.get(at..)?.strip_prefix(b"<")?;
    let (close, rest) = match rest.strip_prefix(b"/") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let n = name_len(rest);
    let word = &rest[..n];
    let name = CODE_COMPONENTS
        .iter()
        .chain(CODE_ELEMENTS)
        .find(|c| c.as_bytes() == word)?;
    if !matches!(
        rest.get(n),
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'>')
    ) {
        return None;
    }
    let gt = memchr::memchr(b'>', &rest[n..rest.len().min(n + TAG_MOST)])?;
    let end = at + 1 + usize::from(close) + n + gt + 1;
    let kind = if close {
        TagKind::Close
    } else if rest[n..n + gt].ends_with(b"/") {
        TagKind::SelfClosing
    } else {
        TagKind::Open
    };
    Some(Tag { name, kind, end })
}

/// A shortcode's parts: its name, and whether it opens a pair (neither `{{< /name >}}` nor
/// `{{< name />}}` nor the escaped `{{</* name */>}}`).
pub(super) struct Shortcode<'m> {
    pub(super) name: &'m [u8],
    pub(super) opens: bool,
    pub(super) closes: bool,
}

/// The shortcode from `at` (`{{<` or `{{%`) to `stop` (past its `>}}` or `%}}`).
pub(super) fn shortcode(m: &[u8], at: usize, stop: usize) -> Option<Shortcode<'_>> {
    let inner = m.get(at + 3..stop.checked_sub(3)?)?;
    let lead = blanks_nl(inner);
    let inner = &inner[lead..];
    if inner.starts_with(b"/*") {
        return Some(Shortcode {
            name: &[],
            opens: false,
            closes: false,
        });
    }
    let (closes, inner) = match inner.strip_prefix(b"/") {
        Some(rest) => (true, &rest[blanks_nl(rest)..]),
        None => (false, inner),
    };
    let n = inner
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'/' | b'.'))
        .count();
    let self_closing = inner[..trim_end_blank(inner)].ends_with(b"/");
    Some(Shortcode {
        name: &inner[..n],
        opens: !closes && !self_closing,
        closes,
    })
}

/// Blank space and line breaks (and bytes no run holds) at the start of `bytes`.
pub(super) fn blanks_nl(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | UNCOVERED))
        .count()
}

/// The name of a Liquid tag from its inside (`- highlight ruby -` gives `highlight`).
pub(super) fn tag_name(inner: &[u8]) -> &[u8] {
    let inner = inner.strip_prefix(b"-").unwrap_or(inner);
    let inner = &inner[blanks_nl(inner)..];
    &inner[..name_len(inner)]
}

/// Where the stretch `open` closes in `m` from `at`: just past its closing tag, shortcode
/// or end tag; or, when it does not close there, how many of its kind are open at the end.
pub(super) fn close_of(m: &[u8], at: usize, open: Open) -> Result<usize, Open> {
    let mut depth = open.depth;
    let mut k = at;
    match open.closer {
        Closer::Component(name) => {
            while let Some(i) = m
                .get(k..)
                .and_then(|r| memchr::memchr(b'<', r))
                .map(|i| k + i)
            {
                match component_tag(m, i) {
                    Some(tag) if tag.name == name => {
                        match tag.kind {
                            TagKind::Open => depth += 1,
                            TagKind::Close => depth -= 1,
                            TagKind::SelfClosing => {}
                        }
                        if depth == 0 {
                            return Ok(tag.end);
                        }
                        k = tag.end;
                    }
                    _ => k = i + 1,
                }
            }
        }
        Closer::Shortcode(name) => {
            while let Some(i) = m
                .get(k..)
                .and_then(|r| memmem::find(r, b"{{"))
                .map(|i| k + i)
            {
                let end: &[u8] = match m.get(i + 2) {
                    Some(b'<') => b">}}",
                    Some(b'%') => b"%}}",
                    _ => {
                        k = i + 2;
                        continue;
                    }
                };
                let Some(stop) = m.get(i + 3..).and_then(|r| memmem::find(r, end)) else {
                    break;
                };
                let stop = i + 3 + stop + 3;
                if let Some(s) = shortcode(m, i, stop)
                    && s.name == name.as_bytes()
                {
                    if s.closes {
                        depth -= 1;
                    } else if s.opens {
                        depth += 1;
                    }
                    if depth == 0 {
                        return Ok(stop);
                    }
                }
                k = stop;
            }
        }
        Closer::Tag(name) => {
            while let Some(i) = m
                .get(k..)
                .and_then(|r| memmem::find(r, b"{%"))
                .map(|i| k + i)
            {
                let Some(stop) = m.get(i + 2..).and_then(|r| memmem::find(r, b"%}")) else {
                    break;
                };
                let stop = i + 2 + stop + 2;
                let word = tag_name(&m[i + 2..stop - 2]);
                if word.strip_prefix(b"end") == Some(name.as_bytes()) {
                    depth -= 1;
                } else if word == name.as_bytes() {
                    depth += 1;
                }
                if depth == 0 {
                    return Ok(stop);
                }
                k = stop;
            }
        }
    }
    Err(Open { depth, ..open })
}
