//! Writing an edited pattern back as Fluent: text escaped and re-indented so that it reads
//! back as the same runs (the module doc's "Writing").
use crate::formats::{Hole, Parsed, WriteError};
use crate::model::{Run, Switch};

pub(super) fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let text = parsed.skeleton.text();
    let mut newline: Option<&'static str> = None;
    parsed
        .skeleton
        .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
            let newline =
                *newline.get_or_insert_with(|| if text.contains("\r\n") { "\r\n" } else { "\n" });
            let (block, indent) = layout(text, hole.span.clone());
            let mut writer = Writer {
                out: String::new(),
                newline,
            };
            writer.pattern(runs, block, indent);
            Ok(writer.out)
        })
}

/// Whether the pattern at `span` starts a line (a block pattern), and the indent of its
/// continuation lines: the spaces before it on its line; else its own continuation lines'
/// least indent, else its entry line's indent plus four.
fn layout(text: &str, span: std::ops::Range<usize>) -> (bool, usize) {
    let start = span.start.min(text.len());
    let line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line..start];
    if before.bytes().all(|b| b == b' ') {
        return (true, before.len());
    }
    let entry = before.bytes().take_while(|&b| b == b' ').count();
    let own = continuation_indent(text.get(span).unwrap_or_default()).filter(|&n| n > 0);
    (false, own.unwrap_or(entry + 4))
}

/// The least indent of the non-blank lines that start outside every placeable of `pattern`.
fn continuation_indent(pattern: &str) -> Option<usize> {
    let bytes = pattern.as_bytes();
    let (mut depth, mut quoted, mut least) = (0usize, false, None::<usize>);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quoted => i += 1,
            b'"' if depth > 0 => quoted = !quoted,
            b'{' if !quoted => depth += 1,
            b'}' if !quoted => depth = depth.saturating_sub(1),
            b'\n' if depth == 0 => {
                let spaces = bytes[i + 1..].iter().take_while(|&&b| b == b' ').count();
                if !matches!(bytes.get(i + 1 + spaces), None | Some(b'\n' | b'\r')) {
                    least = Some(least.map_or(spaces, |l| l.min(spaces)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    least
}

/// Where the writer is in a pattern.
struct At {
    /// Nothing written yet: blanks and line breaks here would be dropped.
    start: bool,
    /// At the start of a continuation line: `[`, `*`, `.` and spaces would be syntax.
    line_start: bool,
    /// A line break written, its indent not yet (a blank line takes none).
    indent_due: bool,
}

struct Writer {
    out: String,
    newline: &'static str,
}

impl Writer {
    /// A pattern from its runs: `block` when it starts a line, `indent` for its lines.
    fn pattern(&mut self, runs: &[Run], block: bool, mut indent: usize) {
        if block && indent == 0 {
            self.out.push_str("    ");
            indent = 4;
        }
        let last_text = match runs.iter().rposition(|r| !matches!(r, Run::Text { .. })) {
            Some(i) => i + 1,
            None => 0,
        };
        let tail: String = runs[last_text..]
            .iter()
            .filter_map(|r| match r {
                Run::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let kept = tail.trim_end_matches([' ', '\n', '\r']).len();
        let mut at = At {
            start: true,
            line_start: block,
            indent_due: false,
        };
        for run in &runs[..last_text] {
            match run {
                Run::Text { text, .. } => self.text(text, &mut at, indent),
                Run::Code(code) => {
                    self.placeable(&mut at, indent);
                    self.out.push_str(&code.data);
                }
                Run::Switch(switch) => {
                    self.placeable(&mut at, indent);
                    self.switch(switch, indent);
                }
            }
        }
        self.text(&tail[..kept], &mut at, indent);
        if kept < tail.len() || at.start {
            self.placeable(&mut at, indent);
            literal(&tail[kept..], &mut self.out);
        }
    }

    /// Before a placeable: the indent due.
    fn placeable(&mut self, at: &mut At, indent: usize) {
        if at.indent_due {
            self.out.extend(std::iter::repeat_n(' ', indent));
        }
        *at = At {
            start: false,
            line_start: false,
            indent_due: false,
        };
    }

    fn text(&mut self, text: &str, at: &mut At, indent: usize) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '\n' && !at.start {
                self.out.push_str(self.newline);
                at.line_start = true;
                at.indent_due = true;
                rest = &rest[1..];
                continue;
            }
            if (at.start && matches!(c, ' ' | '\n')) || (at.line_start && c == ' ') {
                let blanks: &[char] = if at.start { &[' ', '\n'] } else { &[' '] };
                let len = rest.len() - rest.trim_start_matches(blanks).len();
                self.placeable(at, indent);
                literal(&rest[..len], &mut self.out);
                rest = &rest[len..];
                continue;
            }
            let line_start = at.line_start;
            self.placeable(at, indent);
            match c {
                '{' | '}' | '\r' => literal(&rest[..1], &mut self.out),
                '[' | '*' | '.' if line_start => literal(&rest[..1], &mut self.out),
                c => self.out.push(c),
            }
            rest = &rest[c.len_utf8()..];
        }
    }

    /// A select expression: its native parts as read, each branch's runs written as a
    /// pattern; a switch without them (made by an edit) in canonical form.
    fn switch(&mut self, switch: &Switch, indent: usize) {
        if switch.head.is_empty() {
            self.out.push_str(&format!("{{ ${} ->", switch.pivot));
        } else {
            self.out.push_str(&switch.head);
        }
        let default = switch
            .branches
            .iter()
            .rposition(|b| b.case == "other")
            .unwrap_or(switch.branches.len().saturating_sub(1));
        let marked = switch.branches.iter().any(|b| b.open.contains('*'));
        for (i, branch) in switch.branches.iter().enumerate() {
            let open = if branch.open.is_empty() {
                let star = if i == default && !marked { "*" } else { " " };
                let key = branch.case.trim_start_matches('=');
                format!("{}{}{star}[{key}] ", self.newline, " ".repeat(indent + 3))
            } else {
                branch.open.clone()
            };
            self.out.push_str(&open);
            let (block, own) = branch_layout(&open, indent);
            self.pattern(&branch.runs, block, own);
            self.out.push_str(&branch.close);
        }
        if switch.tail.is_empty() {
            self.out.push_str(self.newline);
            self.out.extend(std::iter::repeat_n(' ', indent));
            self.out.push('}');
        } else {
            self.out.push_str(&switch.tail);
        }
    }
}

/// Whether a variant's pattern starts a line after its `open`, and its lines' indent.
fn branch_layout(open: &str, parent: usize) -> (bool, usize) {
    match open.rsplit_once('\n') {
        Some((_, last)) if last.bytes().all(|b| b == b' ') => (true, last.len()),
        Some((_, last)) => (false, last.bytes().take_while(|&b| b == b' ').count() + 4),
        None => (false, parent + 4),
    }
}

/// Text as a string literal placeable: `{"…"}`, line breaks as `\u000A`.
fn literal(text: &str, out: &mut String) {
    out.push_str("{\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\u000A"),
            '\r' => out.push_str("\\u000D"),
            c => out.push(c),
        }
    }
    out.push_str("\"}");
}
