//! Writing an edited block back into its place in the file: prose, one-line, raw and
//! front-matter modes, with the minimal escaping that keeps the edit reading as sent.

use super::*;

/// How an edited block is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Prose whose newlines continue the block on a new line.
    Flow,
    /// Prose on one line (ATX heading, table cell): newlines become spaces.
    Line,
    /// Code and HTML blocks: text written as is.
    Raw,
    /// A front-matter value.
    Yaml,
}

/// Writes an edited edition in the place of `hole` in `text`.
pub(super) fn render(text: &str, hole: &Hole, role: Role, runs: &[Run]) -> String {
    let start = hole.span.start.min(text.len());
    let line_start = text
        .get(..start)
        .and_then(|t| t.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let before = text.get(line_start..start).unwrap_or_default();
    let mode = match role {
        Role::Code | Role::Html => Mode::Raw,
        Role::Key => Mode::Yaml,
        Role::TableCell => Mode::Line,
        Role::Heading if before.contains('#') => Mode::Line,
        _ => Mode::Flow,
    };
    let mut out = String::new();
    match mode {
        Mode::Raw => {
            super::super::render_runs(runs, &mut out, &mut |text, out| out.push_str(text));
        }
        Mode::Yaml => yaml_value(&Edition::new(runs.to_vec()).plain_text(), before, &mut out),
        Mode::Flow | Mode::Line => {
            let held = text.get(hole.span.clone()).unwrap_or_default();
            let newline = line_ending(held)
                .or_else(|| line_ending(text))
                .unwrap_or("\n");
            let prefix = continuation(held).unwrap_or_else(|| {
                before
                    .chars()
                    .map(|c| {
                        if matches!(c, '>' | ' ' | '\t') {
                            c
                        } else {
                            ' '
                        }
                    })
                    .collect()
            });
            let escaper = Escaper {
                newline: if mode == Mode::Line {
                    None
                } else {
                    Some((newline, prefix.as_str()))
                },
                table: role == Role::TableCell,
                atx: mode == Mode::Line && role == Role::Heading,
            };
            escaper.write(runs, &mut out);
        }
    }
    out
}

/// The first line ending in `text`.
pub(super) fn line_ending(text: &str) -> Option<&'static str> {
    let at = text.find(['\n', '\r'])?;
    Some(match &text.as_bytes()[at..] {
        [b'\r', b'\n', ..] => "\r\n",
        [b'\r', ..] => "\r",
        _ => "\n",
    })
}

/// The continuation prefix (indent, quote markers) after the first newline in a block.
pub(super) fn continuation(held: &str) -> Option<String> {
    let at = held.find(['\n', '\r'])?;
    let rest = held[at..].trim_start_matches(['\r', '\n']);
    let content = rest.trim_start_matches([' ', '\t', '>']);
    Some(rest[..rest.len() - content.len()].to_owned())
}

/// Writes a front-matter value in the quoting style it was read in. A plain value stays plain
/// where YAML (1.1 and 1.2, [`crate::yaml_text::plain_ok`]) and this reader both read it back
/// as itself; else it is quoted the way this reader reads back too: double quotes when it
/// holds no `"` or `\`, single quotes when it holds no `'`, and only past both YAML's escaped
/// double quotes (valid YAML, though this reader then sees no text block there).
pub(super) fn yaml_value(value: &str, before: &str, out: &mut String) {
    let value = value.replace(['\r', '\n'], " ");
    if before.ends_with('\'') {
        out.push_str(&value.replace('\'', "''"));
        return;
    }
    // What a quoted scalar may hold as written: a tab, never another control character.
    let raw = value
        .chars()
        .all(|c| c == '\t' || crate::yaml_text::printable(c));
    let escaped = || {
        let quoted = crate::yaml_text::quote(&value);
        quoted[1..quoted.len() - 1].to_owned()
    };
    if before.ends_with('"') {
        if raw && !value.contains(['"', '\\']) {
            out.push_str(&value);
        } else {
            out.push_str(&escaped());
        }
        return;
    }
    let reads_back = || scalar_value(&format!(" {value}")).is_some_and(|s| s.text == value);
    if crate::yaml_text::plain_ok(&value, false) && reads_back() {
        out.push_str(&value);
    } else if raw && !value.contains(['"', '\\']) {
        out.push_str(&format!("\"{value}\""));
    } else if raw && !value.contains('\'') {
        out.push_str(&format!("'{value}'"));
    } else {
        out.push_str(&format!("\"{}\"", escaped()));
    }
}

/// Minimal Markdown escaping of edited text.
pub(super) struct Escaper<'p> {
    /// Line ending and continuation prefix, or `None` when newlines become spaces.
    pub(super) newline: Option<(&'static str, &'p str)>,
    pub(super) table: bool,
    pub(super) atx: bool,
}

/// Whether a code is a container's marker that must start its line (`::: tip `, `:::`, a
/// GitHub alert's `[!NOTE]`) and one whose line must end after it (the colons alone).
fn container_line(code: &crate::model::Code) -> (bool, bool) {
    if code.class != "directive" {
        return (false, false);
    }
    let data = code.data.as_str();
    let starts = data.starts_with(":::") || data.starts_with("[!");
    let last = data.rsplit(['\n', '\r']).next().unwrap_or(data);
    let last = last.trim_start_matches([' ', '\t', '>']);
    let ends = last.len() >= 3 && last.bytes().all(|b| b == b':');
    (starts, ends)
}

impl Escaper<'_> {
    /// Ends the line written so far (its trailing blank space dropped) and starts the next
    /// with the block's continuation prefix; nothing in a one-line block.
    fn line_break(&self, out: &mut String) {
        if let Some((newline, prefix)) = self.newline {
            let kept = out.trim_end_matches([' ', '\t']).len();
            out.truncate(kept);
            out.push_str(newline);
            out.push_str(prefix);
        }
    }

    fn write(&self, runs: &[Run], out: &mut String) {
        let mut prev: Option<char> = None;
        let mut line_start = self.newline.is_some();
        for (index, run) in runs.iter().enumerate() {
            let text = match run {
                Run::Code(code) => {
                    let (starts_line, ends_line) = container_line(code);
                    if starts_line && !line_start && !out.is_empty() {
                        self.line_break(out);
                    }
                    out.push_str(&code.data);
                    if let Some(c) = code.data.chars().last() {
                        prev = Some(c);
                        line_start = false;
                    }
                    let text_follows = matches!(
                        runs.get(index + 1),
                        Some(Run::Text { text, .. }) if !text.starts_with(['\n', '\r'])
                    );
                    if ends_line && text_follows && self.newline.is_some() {
                        self.line_break(out);
                        line_start = true;
                        prev = None;
                        continue;
                    }
                    // A code that ends a line (a hard break, a container's line with its
                    // line break) leaves the text after it at a line's start.
                    if self.newline.is_some()
                        && let Some(nl) = code.data.rfind(['\n', '\r'])
                        && code.data[nl + 1..]
                            .bytes()
                            .all(|b| matches!(b, b' ' | b'\t' | b'>'))
                    {
                        line_start = true;
                        prev = None;
                    }
                    continue;
                }
                Run::Text { text, .. } => text,
                // Markdown reads no switches; one written here keeps its native bytes.
                Run::Switch(_) => {
                    super::super::render_runs(std::slice::from_ref(run), out, &mut |t, o| {
                        o.push_str(t)
                    });
                    continue;
                }
            };
            let following = runs.get(index + 1).and_then(|r| match r {
                Run::Text { text, .. } => text.chars().next(),
                Run::Code(code) => code.data.chars().next(),
                Run::Switch(switch) => switch.head.chars().next(),
            });
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                let next = chars.peek().copied().or(following);
                if c == '\r' || c == '\n' {
                    if c == '\r' && next == Some('\n') {
                        continue;
                    }
                    match self.newline {
                        Some((newline, prefix)) => {
                            if line_start {
                                continue; // a blank line would end the block
                            }
                            let kept = out.trim_end_matches([' ', '\t']).len();
                            out.truncate(kept);
                            out.push_str(newline);
                            out.push_str(prefix);
                            line_start = true;
                            prev = None;
                        }
                        None => {
                            out.push(' ');
                            prev = Some(' ');
                        }
                    }
                    continue;
                }
                if line_start && c.is_ascii_digit() {
                    // `1.` or `1)` at a line start would begin an ordered list.
                    let mut digits = String::from(c);
                    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                        digits.push(d);
                        chars.next();
                    }
                    out.push_str(&digits);
                    if let Some(&p @ ('.' | ')')) = chars.peek() {
                        out.push('\\');
                        out.push(p);
                        chars.next();
                        prev = Some(p);
                    } else {
                        prev = digits.chars().last();
                    }
                    line_start = false;
                    continue;
                }
                if self.needs_escape(c, prev, next, line_start, &mut chars.clone()) {
                    out.push('\\');
                }
                out.push(c);
                prev = Some(c);
                line_start = false;
            }
        }
        if self.newline.is_some() {
            let kept = out.trim_end_matches([' ', '\t']).len();
            out.truncate(kept);
        }
    }

    fn needs_escape(
        &self,
        c: char,
        prev: Option<char>,
        next: Option<char>,
        line_start: bool,
        rest: &mut impl Iterator<Item = char>,
    ) -> bool {
        let space = |x: Option<char>| x.is_none_or(char::is_whitespace);
        let word = |x: Option<char>| x.is_some_and(char::is_alphanumeric);
        match c {
            '\\' => next.is_none_or(|n| n.is_ascii_punctuation() || n == '\n' || n == '\r'),
            '`' | '[' | ']' => true,
            '*' | '~' => {
                line_start
                    || !(prev.is_some_and(char::is_whitespace)
                        && next.is_some_and(char::is_whitespace))
            }
            '_' => line_start || !((word(prev) && word(next)) || (space(prev) && space(next))),
            '<' => next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')),
            '&' => {
                // Escape only what would read as a character reference.
                for (len, n) in rest.by_ref().take(34).enumerate() {
                    if n == ';' {
                        return len > 0;
                    }
                    if !(n.is_ascii_alphanumeric() || n == '#') {
                        return false;
                    }
                }
                false
            }
            '|' => self.table,
            // A brace opens a placeholder (`{name}`), a template (`{{x}}`, `{% x %}`), a
            // JSX expression or comment, or an attribute list: edited text reads back as
            // text only with each escaped.
            '{' => true,
            ':' => line_start && next == Some(':'),
            // A placeholder's start (`${x}`, `%{x}`, `%(x)s`) read back as text.
            '$' => next == Some('{'),
            '%' => matches!(next, Some('{' | '(')),
            '#' => line_start || (self.atx && space(prev)),
            '>' | '-' | '+' | '=' => line_start,
            _ => false,
        }
    }
}
