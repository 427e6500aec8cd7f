//! YAML as text: whether a string may be written as a plain scalar, quoting it when not, and
//! finding a dotted key path (`defaults.voice`, `concepts[2].terms`) by line and column.
//!
//! Every writer of YAML text in the crate (the YAML format, the terms editor, the recipe
//! editor) renders scalars with [`scalar`], and every located error finds its key with
//! [`locate`]. One form of quoting only: [`quote`] writes a double-quoted scalar on one line,
//! with YAML 1.2's named escapes (`\\`, `\"`, `\n`, `\t`, `\r`, `\0`, `\e`, `\N`, `\L`, `\P`…)
//! and `\xNN` or `\uNNNN` for other characters YAML does not allow as written. (The YAML
//! format still writes a single-quoted value back single-quoted; that keeps the file's own
//! style and is not a choice of this module.)
//!
//! [`plain_ok`] is strict on purpose: it is the union of the rules the crate's three earlier
//! copies had, but one: a string that merely starts with a digit (`2FA`, `3 fichiers`) stays
//! plain, as a faithful edit of a catalog must keep a translator's plain value plain; only
//! what reads as a number or a date (`12`, `1e3`, `2024-01-01`) is quoted.

/// Characters that may not start a plain scalar (YAML 1.2 c-indicator).
pub(crate) const INDICATORS: &str = "-?:,[]{}#&*!|>'\"%@`";

/// A character YAML allows as written in a scalar (no control characters, no BOM, no
/// line separators).
pub(crate) fn printable(c: char) -> bool {
    matches!(c, ' '..='~')
        || (c >= '\u{a0}'
            && !matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            ))
}

/// Whether `s` may be written as a plain (unquoted) scalar and read back as this very string
/// by a YAML 1.1 or 1.2 reader (libyaml, yaml-rust, Psych, PyYAML). `flow` for a value
/// inside `[…]` or `{…}`.
///
/// Not plain: the empty string; leading or trailing whitespace; any character that is not
/// printable (line breaks, tabs, control characters); a leading indicator (`-?:,[]{}#&*!|>'"%@`
/// and backtick); `: ` or ` #` inside, or a trailing `:`; in flow, any of `,[]{}:`; anything that resolves to another type in either
/// YAML version in any case (`null`, `~`, `true`, `yes`, `on`, `y`, `=`, `<<`, numbers with
/// `0x`, `0o`, `0b`, `_`, exponents or base 60, `.inf`, `.nan`, and with the thousands commas
/// YAML 1.1 readers such as Psych drop, `1,000` or `0,5`; dates) or a Ruby symbol
/// (`:day`); and, last, whatever the crate's YAML parser does not read back as `s`.
pub fn plain_ok(s: &str, flow: bool) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if !s.chars().all(printable)
        || first.is_whitespace()
        || s.ends_with(char::is_whitespace)
        || INDICATORS.contains(first)
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || (flow && s.contains([',', '[', ']', '{', '}', ':']))
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "true"
            | "false"
            | "null"
            | "~"
            | "="
            | "<<"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | ".nan"
    ) || is_number(&lower.replace(',', ""))
        || resolves_to_non_string(s)
        || is_symbol(s)
    {
        return false;
    }
    reads_back_plain(s, flow)
}

/// The last word for [`plain_ok`]: the crate's YAML parser reads `s` back as itself, as a
/// mapping value and as a whole document (or, in flow, in a flow mapping and a flow list).
fn reads_back_plain(s: &str, flow: bool) -> bool {
    use serde_yaml::Value;
    let (in_map, alone) = if flow {
        (format!("{{k: {s}}}"), format!("[{s}]"))
    } else {
        (format!("k: {s}"), s.to_owned())
    };
    let map_ok = serde_yaml::from_str::<serde_yaml::Mapping>(&in_map)
        .ok()
        .and_then(|m| m.get("k").cloned())
        .is_some_and(|v| v.as_str() == Some(s));
    map_ok
        && match serde_yaml::from_str::<Value>(&alone) {
            Ok(Value::String(t)) => !flow && t == s,
            Ok(Value::Sequence(seq)) => {
                flow && seq.len() == 1 && matches!(&seq[0], Value::String(t) if t == s)
            }
            _ => false,
        }
}

/// A plain value that YAML (1.1 or 1.2) reads as null, a boolean, a number or a date, in
/// the spellings the schemas name (`True`, not `tRUE`).
pub(crate) fn resolves_to_non_string(v: &str) -> bool {
    matches!(
        v,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | ".nan"
            | ".NaN"
            | ".NAN"
    ) || is_number(v)
        || is_date(v)
}

fn is_number(v: &str) -> bool {
    let s = v.strip_prefix(['+', '-']).unwrap_or(v);
    if matches!(s, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    let radix = |rest: &str, ok: fn(char) -> bool| {
        !rest.is_empty() && rest.chars().all(|c| ok(c) || c == '_')
    };
    if let Some(rest) = s.strip_prefix("0x") {
        return radix(rest, |c| c.is_ascii_hexdigit());
    }
    if let Some(rest) = s.strip_prefix("0o") {
        return radix(rest, |c| ('0'..='7').contains(&c));
    }
    if let Some(rest) = s.strip_prefix("0b") {
        return radix(rest, |c| c == '0' || c == '1');
    }
    // Decimal, float, or YAML 1.1 base 60 (`1:30`).
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_' || bytes[i] == b':') {
        if bytes[i].is_ascii_digit() {
            digits += 1;
        } else if bytes[i] == b':' && (digits == 0 || i + 1 >= bytes.len()) {
            return false;
        }
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
            digits += usize::from(bytes[i].is_ascii_digit());
            i += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let from = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == from {
            return false;
        }
    }
    i == bytes.len()
}

/// `2001-12-14`, `2001-12-14T21:59:43.10-05:00`, `2001-12-14 21:59:43.10 -5`.
fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() >= 8
        && b.iter().take(4).all(u8::is_ascii_digit)
        && b.get(4) == Some(&b'-')
        && v.chars().all(|c| {
            c.is_ascii_digit() || matches!(c, '-' | ':' | '.' | 'T' | 't' | 'Z' | 'z' | ' ' | '+')
        })
}

/// A Ruby symbol as Psych reads it (`:day`).
pub(crate) fn is_symbol(v: &str) -> bool {
    let Some(name) = v.strip_prefix(':') else {
        return false;
    };
    let name = name.strip_suffix(['?', '!']).unwrap_or(name);
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `s` as a YAML double-quoted scalar on one line, with every escape YAML 1.2 names and
/// `\xNN`/`\uNNNN` for the other characters YAML does not allow as written.
pub fn quote(s: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if (c as u32) < 0x20 || ('\u{7f}'..'\u{a0}').contains(&c) => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as a YAML scalar: plain when [`plain_ok`], else [`quote`]d. `flow` for a value
/// inside `[…]` or `{…}`.
pub fn scalar(s: &str, flow: bool) -> String {
    if plain_ok(s, flow) {
        s.to_owned()
    } else {
        quote(s)
    }
}

// ---------------------------------------------------------------------------------------------
// Locating a key path.

/// One item of a block structure as the text writes it: a `- ` sequence entry or a `key:`.
#[derive(Debug)]
struct Entry {
    /// Index into [`Outline::lines`].
    line: usize,
    /// 0-based column (a byte count: only spaces and `- ` come before it).
    column: usize,
    /// The key, or `None` for a sequence entry.
    key: Option<String>,
}

#[derive(Debug)]
struct OutlineLine {
    /// 1-based line number.
    number: usize,
    /// Column of the first character.
    indent: usize,
}

/// The block structure of a YAML text, scanned once, to [`locate`](Outline::locate) key paths
/// in: per line its `- ` entries and its first key. Best effort: flow collections are leaves,
/// block-scalar bodies are skipped, and multi-line quoted or plain scalars are not followed.
#[derive(Debug, Default)]
pub struct Outline {
    lines: Vec<OutlineLine>,
    entries: Vec<Entry>,
}

impl Outline {
    pub fn new(text: &str) -> Self {
        let mut out = Outline::default();
        // The column a block scalar's body must be deeper than, while in one.
        let mut block_body: Option<usize> = None;
        for (n, raw) in text.lines().enumerate() {
            let indent = raw.len() - raw.trim_start_matches(' ').len();
            let rest = raw[indent..].trim_end();
            if let Some(parent) = block_body {
                if rest.is_empty() || indent > parent {
                    continue;
                }
                block_body = None;
            }
            if rest.is_empty()
                || rest.starts_with('#')
                || (indent == 0 && (is_marker(rest, "---") || is_marker(rest, "...")))
                || (indent == 0 && rest.starts_with('%'))
            {
                continue;
            }
            let line = out.lines.len();
            out.lines.push(OutlineLine {
                number: n + 1,
                indent,
            });
            let mut rest = rest;
            let mut column = indent;
            let mut last = None;
            while rest == "-" || rest.starts_with("- ") {
                out.entries.push(Entry {
                    line,
                    column,
                    key: None,
                });
                last = Some(column);
                let after = rest[1..].trim_start_matches(' ');
                column += rest.len() - after.len();
                rest = after;
            }
            let value = match key_of(rest) {
                Some((key, value)) => {
                    out.entries.push(Entry {
                        line,
                        column,
                        key: Some(key),
                    });
                    last = Some(column);
                    value
                }
                None => rest,
            };
            if let Some(parent) = last
                && is_block_header(value)
            {
                block_body = Some(parent);
            }
        }
        out
    }

    /// The 1-based line and column of `path`'s last part: the key of a `.key` (or a leading
    /// `key`), the `-` of an `[n]`. `None` when the text does not write it in block style, or
    /// for an empty or malformed path.
    pub fn locate(&self, path: &str) -> Option<(usize, usize)> {
        self.locate_segments(&segments(path)?)
    }

    /// [`locate`](Self::locate) for a path given as its parts, so a key may hold a `.` (a rule
    /// id, `voice.sentence-too-long`); `None` for no parts.
    pub fn locate_segments(&self, segments: &[Segment<'_>]) -> Option<(usize, usize)> {
        // The entries of the current node's value: `entries[from..to]`, the node's column
        // (`None` for the document).
        let (mut from, mut to) = (0, self.entries.len());
        let mut found = None;
        for segment in segments {
            let first = self.entries.get(from).filter(|_| from < to)?;
            let at = match *segment {
                Segment::Key(key) => {
                    first.key.as_ref()?;
                    let level = first.column;
                    (from..to).find(|&i| {
                        let e = &self.entries[i];
                        e.column == level && e.key.as_deref() == Some(key)
                    })?
                }
                Segment::Index(n) => {
                    if first.key.is_some() {
                        return None;
                    }
                    let level = first.column;
                    (from..to)
                        .filter(|&i| {
                            let e = &self.entries[i];
                            e.column == level && e.key.is_none()
                        })
                        .nth(n)?
                }
            };
            let entry = &self.entries[at];
            found = Some((self.lines[entry.line].number, entry.column + 1));
            from = at + 1;
            to = self.value_end(at, to);
        }
        found
    }

    /// [`locate`](Self::locate) for `path`, else for its nearest enclosing path that is written
    /// (a missing `examples[0].after` points at `examples[0]`).
    pub fn locate_nearest(&self, path: &str) -> Option<(usize, usize)> {
        let mut path = path;
        loop {
            if let Some(found) = self.locate(path) {
                return Some(found);
            }
            let cut = path.rfind(['.', '['])?;
            path = &path[..cut];
            if path.is_empty() {
                return None;
            }
        }
    }

    /// Where the value of entry `at` ends (its entries are `at + 1..` that), within `to`: at
    /// the first later line that starts at or left of the entry's column, except that a key's
    /// value may be a sequence whose `- ` stand at the key's own column.
    fn value_end(&self, at: usize, to: usize) -> usize {
        let entry = &self.entries[at];
        let column = entry.column;
        let is_key = entry.key.is_some();
        (at + 1..to)
            .find(|&i| {
                let e = &self.entries[i];
                let line = &self.lines[e.line];
                e.line != entry.line
                    && e.column == line.indent
                    && (line.indent < column
                        || (line.indent == column && !(is_key && e.key.is_none())))
            })
            .unwrap_or(to)
    }
}

/// `locate` over `text` scanned afresh; see [`Outline::locate`].
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    Outline::new(text).locate(path)
}

/// `locate_nearest` over `text` scanned afresh; see [`Outline::locate_nearest`].
pub fn locate_nearest(text: &str, path: &str) -> Option<(usize, usize)> {
    Outline::new(text).locate_nearest(path)
}

fn is_marker(rest: &str, marker: &str) -> bool {
    rest.strip_prefix(marker)
        .is_some_and(|tail| tail.is_empty() || tail.starts_with([' ', '\t']))
}

/// A block scalar header: `|` or `>`, an optional chomping and indentation indicator, then
/// nothing but a comment.
fn is_block_header(value: &str) -> bool {
    let Some(rest) = value.strip_prefix(['|', '>']) else {
        return false;
    };
    let rest = rest.trim_start_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit());
    let tail = rest.trim_start_matches([' ', '\t']);
    tail.is_empty() || (tail.len() < rest.len() && tail.starts_with('#'))
}

/// The key of a `key:` at the start of `rest` (plain, single- or double-quoted) and the text
/// after its `:`, trimmed.
fn key_of(rest: &str) -> Option<(String, &str)> {
    let (key, tail) = match rest.chars().next()? {
        '"' => {
            let b = rest.as_bytes();
            let mut i = 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return None;
            }
            let quoted = &rest[..=i];
            let key = serde_yaml::from_str::<String>(quoted)
                .unwrap_or_else(|_| quoted[1..quoted.len() - 1].to_owned());
            (key, &rest[i + 1..])
        }
        '\'' => {
            let b = rest.as_bytes();
            let mut i = 1;
            loop {
                match b.get(i) {
                    None => return None,
                    Some(b'\'') if b.get(i + 1) == Some(&b'\'') => i += 2,
                    Some(b'\'') => break,
                    Some(_) => i += 1,
                }
            }
            (rest[1..i].replace("''", "'"), &rest[i + 1..])
        }
        '[' | '{' | '?' | '|' | '>' | '#' => return None,
        _ => {
            let b = rest.as_bytes();
            let colon = (0..b.len())
                .find(|&i| b[i] == b':' && b.get(i + 1).is_none_or(|&n| n == b' ' || n == b'\t'))?;
            let key = rest[..colon].trim_end_matches([' ', '\t']);
            if key.is_empty() || key.contains(" #") {
                return None;
            }
            (key.to_owned(), &rest[colon..])
        }
    };
    let tail = tail.trim_start_matches([' ', '\t']);
    let value = tail.strip_prefix(':')?;
    (value.is_empty() || value.starts_with([' ', '\t']))
        .then(|| (key, value.trim_start_matches([' ', '\t'])))
}

/// One part of a path to [`Outline::locate_segments`]: a mapping key or a sequence index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// `a.b[2].c` as its parts; `None` for an empty path or a malformed index.
fn segments(path: &str) -> Option<Vec<Segment<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Segment::Key(name));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Segment::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `key: {scalar(s)}`, `{key: …}` and `[…]` read back as `s`.
    fn assert_round_trips(s: &str) {
        let block = scalar(s, false);
        let doc = format!("key: {block}\n");
        let back: serde_yaml::Mapping =
            serde_yaml::from_str(&doc).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
        assert_eq!(back.get("key").and_then(|v| v.as_str()), Some(s), "{doc:?}");

        let flow = scalar(s, true);
        let doc = format!("{{key: {flow}, other: [{flow}, {flow}]}}\n");
        let back: serde_yaml::Mapping =
            serde_yaml::from_str(&doc).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
        assert_eq!(back.get("key").and_then(|v| v.as_str()), Some(s), "{doc:?}");
        let list = back
            .get("other")
            .and_then(|v| v.as_sequence())
            .unwrap_or_else(|| panic!("{doc:?}"));
        assert_eq!(list.len(), 2, "{doc:?}");
        assert!(list.iter().all(|v| v.as_str() == Some(s)), "{doc:?}");
    }

    #[test]
    fn plain_when_nothing_needs_quotes() {
        for s in [
            "sign in",
            "e-mail",
            "it's",
            "say \"hi\"",
            "écran",
            "Zwei-Faktor-Authentifizierung",
            "a, b",
            "a#b",
            "a:b",
            "http://example.com/x",
            "nullable",
            "yes please",
            "x-extra",
            ".kapi/voice.yaml",
            "handbook/docs",
            "x{lang}",
            "2FA",
            "3 fichiers",
            "555-0100",
            "+1 555 0100",
            "18-25",
            "1.2.3",
            "e2e",
            "0xyz",
        ] {
            assert!(plain_ok(s, false), "{s:?}");
            assert_eq!(scalar(s, false), s);
            assert_round_trips(s);
        }
        for s in ["sign in", "e-mail", "fr", ".kapi/voice.yaml"] {
            assert!(plain_ok(s, true), "{s:?}");
        }
    }

    #[test]
    fn empty_whitespace_and_control_characters_are_quoted() {
        for s in [
            "",
            " a",
            "a ",
            "\ta",
            "a\t",
            "a\u{a0}",
            "\u{3000}a",
            "two\nlines",
            "cr\rhere",
            "nul\0",
            "del\u{7f}",
            "c1\u{85}",
            "ls\u{2028}",
            "ps\u{2029}",
            "\u{feff}bom",
            "\u{fffe}",
            "tab\tinside",
        ] {
            assert!(!plain_ok(s, false), "{s:?}");
            assert!(!plain_ok(s, true), "{s:?}");
            assert_round_trips(s);
        }
    }

    #[test]
    fn leading_indicators_are_quoted() {
        for c in INDICATORS.chars() {
            for s in [c.to_string(), format!("{c}a"), format!("{c} a")] {
                assert!(!plain_ok(&s, false), "{s:?}");
                assert_round_trips(&s);
            }
        }
        for s in [
            "---", "...", "- item", "? key", "%YAML", "@x", "`x`", "!tag", "&a", "*a",
        ] {
            assert!(!plain_ok(s, false), "{s:?}");
            assert_round_trips(s);
        }
    }

    #[test]
    fn colons_and_comments_inside_are_quoted() {
        for s in ["a: b", "Node.js: core", "a #b", "it's #1", "key:", "a::"] {
            assert!(!plain_ok(s, false), "{s:?}");
            assert_round_trips(s);
        }
        for s in ["a, b", "a[0]", "{x}", "x}", "a:b", "a]"] {
            assert!(!plain_ok(s, true), "{s:?}");
            assert_round_trips(s);
        }
    }

    #[test]
    fn other_types_are_quoted_in_any_case() {
        for s in [
            "null",
            "Null",
            "NULL",
            "nUlL",
            "~",
            "true",
            "True",
            "tRuE",
            "false",
            "yes",
            "Yes",
            "YES",
            "no",
            "No",
            "on",
            "On",
            "off",
            "OFF",
            "y",
            "Y",
            "n",
            "N",
            "=",
            "<<",
            "123",
            "-1",
            "+1",
            "1.5",
            ".5",
            "+.5",
            "1_000",
            "1e3",
            "1E3",
            "1.5e-3",
            "0x1F",
            "0o17",
            "0b101",
            "1,000",
            "1,5",
            "0,5",
            "1,000.5",
            "12:30",
            "1:20:30",
            ".inf",
            ".Inf",
            "+.inf",
            "-.inf",
            ".nan",
            ".NaN",
            "2024-01-01",
            "2001-12-14T21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            ":day",
        ] {
            assert!(!plain_ok(s, false), "{s:?}");
            assert!(!plain_ok(s, true), "{s:?}");
            assert_round_trips(s);
        }
    }

    #[test]
    fn quote_escapes() {
        assert_eq!(quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quote("a\nb\tc\r"), r#""a\nb\tc\r""#);
        assert_eq!(
            quote("\0\u{7}\u{1b}\u{1}\u{7f}\u{9f}"),
            r#""\0\a\e\x01\x7F\x9F""#
        );
        assert_eq!(quote("\u{85}\u{2028}\u{2029}"), r#""\N\L\P""#);
        assert_eq!(quote("\u{feff}\u{fffe}\u{ffff}"), r#""\uFEFF\uFFFE\uFFFF""#);
        assert_eq!(quote("écran ✓"), "\"écran ✓\"");
        assert_eq!(scalar("yes", false), "\"yes\"");
        assert_eq!(scalar("", true), "\"\"");
    }

    /// A tiny deterministic generator, so the fuzz test is the same on every run.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const ALPHABET: &[char] = &[
        ' ', ' ', '-', '?', ':', ':', ',', '[', ']', '{', '}', '#', '#', '&', '*', '!', '|', '>',
        '\'', '"', '%', '@', '`', '\\', '.', '~', '+', '=', '<', '/', '0', '1', '9', 'e', 'E', 'x',
        'o', 'a', 'y', 'n', 'N', 'T', 'é', '\t', '\n', '\r', '\0', '\u{7f}', '\u{85}', '\u{a0}',
        '\u{2028}', '\u{feff}', '\u{ffff}',
    ];

    const WORDS: &[&str] = &[
        "null",
        "true",
        "yes",
        "No",
        "~",
        ".inf",
        ".nan",
        "0x1",
        "0o7",
        "1e3",
        "2024-01-01",
        ": ",
        " #",
        "---",
        "...",
        "<<",
        "12:30",
        "y",
    ];

    #[test]
    fn generated_strings_round_trip() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut plain = 0;
        for _ in 0..4000 {
            let mut s = String::new();
            for _ in 0..rng.below(7) {
                if rng.below(5) == 0 {
                    s.push_str(WORDS[rng.below(WORDS.len())]);
                } else {
                    s.push(ALPHABET[rng.below(ALPHABET.len())]);
                }
            }
            plain += usize::from(plain_ok(&s, false));
            assert_round_trips(&s);
        }
        // The generator reaches both sides of the rule.
        assert!(plain > 100, "{plain}");
    }

    #[test]
    fn plain_strings_read_back_in_yamls_own_reader_too() {
        // Every string `plain_ok` accepts, written plain as a catalog value, is read back by
        // the YAML format as a text block holding that string.
        use crate::formats::Format;
        let mut rng = XorShift(7);
        let mut read = 0;
        for _ in 0..2000 {
            let s: String = (0..rng.below(6))
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            if !plain_ok(&s, false) {
                continue;
            }
            let file = format!("greeting: {s}\n");
            let parsed = crate::formats::yaml::Yaml
                .read(file.as_bytes())
                .unwrap_or_else(|e| panic!("{file:?}: {e}"));
            // A block, so a string (a number or a boolean is no block); its prose is `s`
            // where the format reads no placeholder in it (`%a` is a code).
            let block = parsed
                .document
                .block("greeting")
                .unwrap_or_else(|| panic!("{file:?} reads as no text"));
            if block.source.code_count() == 0 {
                assert_eq!(block.source.plain_text(), s, "{file:?}");
            }
            read += 1;
        }
        assert!(read > 100, "{read}");
    }

    const GOVERNANCE: &str = "name: x\n# comment\ntone:\n  formality: neutral\nstyle:\n  prohibited_patterns:\n    - regex: 'a'\n    - description: d\n      regex: '('\nexamples:\n- before: a\n  after: b\n";

    #[test]
    fn locates_nested_keys_and_list_items() {
        let cases = [
            ("name", Some((1, 1))),
            ("tone", Some((3, 1))),
            ("tone.formality", Some((4, 3))),
            ("style.prohibited_patterns", Some((6, 3))),
            ("style.prohibited_patterns[0]", Some((7, 5))),
            ("style.prohibited_patterns[0].regex", Some((7, 7))),
            ("style.prohibited_patterns[1]", Some((8, 5))),
            ("style.prohibited_patterns[1].description", Some((8, 7))),
            ("style.prohibited_patterns[1].regex", Some((9, 7))),
            ("examples", Some((10, 1))),
            ("examples[0]", Some((11, 1))),
            ("examples[0].before", Some((11, 3))),
            ("examples[0].after", Some((12, 3))),
            ("style.constraints", None),
            ("style.prohibited_patterns[2].regex", None),
            ("style.prohibited_patterns[2]", None),
            ("formality", None),
            ("tone[0]", None),
            ("name.x", None),
            ("", None),
            ("style[x]", None),
            ("style[0", None),
        ];
        for (path, want) in cases {
            assert_eq!(locate(GOVERNANCE, path), want, "{path}");
        }
    }

    #[test]
    fn locate_nearest_falls_back_to_the_enclosing_path() {
        assert_eq!(
            locate_nearest(GOVERNANCE, "examples[0].missing"),
            Some((11, 1))
        );
        assert_eq!(locate_nearest(GOVERNANCE, "tone.voice.x"), Some((3, 1)));
        assert_eq!(
            locate_nearest(GOVERNANCE, "style.prohibited_patterns[5]"),
            Some((6, 3))
        );
        assert_eq!(locate_nearest(GOVERNANCE, "nothing.here"), None);
    }

    #[test]
    fn locates_through_quotes_markers_comments_and_nested_lists() {
        let text = "\
%YAML 1.2
---
# header
\"quoted key\": 1
'it''s': 2
plain key:   # comment
  - - a: 1
    - b: 2
  -   c: 3
      d: |
        e: not a key
        f: neither

      g: >-
        h: no
      i: 4
url: http://x
\"a: b\": 5
list:
- x
- y: 1
  z: 2
...
";
        let cases = [
            ("quoted key", Some((4, 1))),
            ("it's", Some((5, 1))),
            ("plain key", Some((6, 1))),
            ("plain key[0]", Some((7, 3))),
            ("plain key[0][0]", Some((7, 5))),
            ("plain key[0][0].a", Some((7, 7))),
            ("plain key[0][1]", Some((8, 5))),
            ("plain key[0][1].b", Some((8, 7))),
            ("plain key[0][2]", None),
            ("plain key[1]", Some((9, 3))),
            ("plain key[1].c", Some((9, 7))),
            ("plain key[1].d", Some((10, 7))),
            ("plain key[1].d.e", None),
            ("plain key[1].e", None),
            ("plain key[1].f", None),
            ("plain key[1].g", Some((14, 7))),
            ("plain key[1].h", None),
            ("plain key[1].i", Some((16, 7))),
            ("plain key[2]", None),
            ("url", Some((17, 1))),
            ("a: b", Some((18, 1))),
            ("list[0]", Some((20, 1))),
            ("list[1]", Some((21, 1))),
            ("list[1].z", Some((22, 3))),
            ("list[2]", None),
            ("x", None),
        ];
        for (path, want) in cases {
            assert_eq!(locate(text, path), want, "{path}");
        }
    }

    #[test]
    fn flow_collections_are_leaves() {
        let text = "a: {b: 1}\nc: [1, 2]\nd:\n  e: [x,\n    y]\n";
        assert_eq!(locate(text, "a"), Some((1, 1)));
        assert_eq!(locate(text, "a.b"), None);
        assert_eq!(locate(text, "c[0]"), None);
        assert_eq!(locate(text, "d.e"), Some((4, 3)));
        assert_eq!(locate_nearest(text, "c[1]"), Some((2, 1)));
    }

    #[test]
    fn an_outline_answers_many_paths() {
        let outline = Outline::new(GOVERNANCE);
        assert_eq!(outline.locate("tone.formality"), Some((4, 3)));
        assert_eq!(outline.locate_nearest("examples[3]"), Some((10, 1)));
        assert_eq!(Outline::new("").locate("a"), None);
        assert_eq!(Outline::new("- a\n- b\n").locate("[1]"), Some((2, 1)));
    }
}
