//! A comment's prose: its lines with the markers, leading `*` and indentation stripped, as
//! runs whose text is a verbatim slice of the file (so a finding lands on its real line and
//! column), with inline code, fenced examples, doc tags and markup tags as codes.
//!
//! Lines of one paragraph are joined by a space, paragraphs (a blank comment line between)
//! by a blank line; neither join is in the file. Fenced blocks (```` ``` ````, `~~~`) and
//! Python doctest lines (`>>>`, `...`) are one code each, never prose; a run of `~` under a
//! title line at least as long (reStructuredText's underline) is a code, not a fence.

use std::ops::Range;

use crate::model::{Code, CodeKind, Run};

/// One line of a comment with its markers stripped: `text` starts at byte `at` of the file.
#[derive(Debug, Clone, Copy)]
pub struct Line<'t> {
    pub at: usize,
    pub text: &'t str,
}

/// What to recognise as code inside a comment's prose.
#[derive(Debug, Clone, Copy, Default)]
pub struct Codes {
    /// Markup tags (`<summary>`, `<p>`).
    pub tags: bool,
    /// Python doctest lines.
    pub doctest: bool,
}

/// The runs of a comment whose stripped lines are `lines`.
pub fn runs(lines: &[Line<'_>], codes: Codes) -> Vec<Run> {
    let mut out = Runs::default();
    // An open fenced block: where it starts, its lines so far and its marker.
    let mut block: Option<(usize, String, &'static str)> = None;
    let mut blank = false;
    // The width of the line before when it was prose, with no blank line since.
    let mut above: Option<usize> = None;
    for line in lines {
        let trimmed = line.text.trim();
        let lead = line.text.len() - line.text.trim_start().len();
        if let Some((at, data, marker)) = &mut block {
            data.push('\n');
            data.push_str(line.text);
            if trimmed.starts_with(*marker) {
                out.code(*at, "code-block", std::mem::take(data));
                block = None;
            }
            continue;
        }
        if trimmed.is_empty() {
            blank = true;
            above = None;
            continue;
        }
        // A reStructuredText title's underline (`~~~~` under `requests.auth`, at least as
        // long as the title) is no fence: one would swallow the rest of the docstring.
        let underline = trimmed.len() >= 3
            && trimmed.bytes().all(|b| b == b'~')
            && above.is_some_and(|width| trimmed.len() >= width);
        above = None;
        let fence = ["```", "~~~"]
            .into_iter()
            .find(|m| trimmed.starts_with(m) && !underline);
        let doctest = codes.doctest && (trimmed.starts_with(">>>") || trimmed.starts_with("..."));
        if out.pending_doctest && !blank && !doctest {
            // A doctest's expected output, up to the next blank line: code too.
            if let Some(Run::Code(code)) = out.runs.last_mut() {
                code.data.push('\n');
                code.data.push_str(trimmed);
                continue;
            }
        }
        out.join(blank);
        blank = false;
        if let Some(marker) = fence {
            block = Some((line.at + lead, trimmed.to_owned(), marker));
            continue;
        }
        if doctest {
            // A doctest's lines and its output run to the next blank line.
            out.code(line.at + lead, "code-block", trimmed.to_owned());
            out.pending_doctest = true;
            continue;
        }
        if underline {
            out.code(line.at + lead, "underline", trimmed.to_owned());
            continue;
        }
        prose_line(&mut out, line.at + lead, trimmed, codes);
        above = Some(trimmed.chars().count());
    }
    if let Some((at, data, _)) = block {
        out.code(at, "code-block", data);
    }
    out.runs
}

#[derive(Default)]
struct Runs {
    runs: Vec<Run>,
    ids: usize,
    /// The last line was a doctest: the lines up to a blank one are its output.
    pending_doctest: bool,
}

impl Runs {
    /// Between the previous line and the next: a space in a paragraph, a blank line between
    /// paragraphs; nothing before the first.
    fn join(&mut self, blank: bool) {
        if blank {
            self.pending_doctest = false;
        }
        if self.runs.is_empty() {
            return;
        }
        self.runs
            .push(Run::text(if blank { "\n\n" } else { " " }.to_owned()));
    }

    fn code(&mut self, at: usize, class: &str, data: String) {
        self.ids += 1;
        let code = Code::new(
            self.ids.to_string(),
            CodeKind::Standalone,
            class,
            data,
            false,
        )
        .at(at);
        self.runs.push(Run::Code(Box::new(code)));
    }

    fn text(&mut self, at: usize, text: &str) {
        if !text.is_empty() {
            self.runs.push(Run::text_at(text, at));
        }
    }
}

/// One line of prose: text with its inline codes.
fn prose_line(out: &mut Runs, at: usize, line: &str, codes: Codes) {
    let mut from = 0;
    let mut i = 0;
    let bytes = line.as_bytes();
    // A doc tag opens the line: `@param name`, `@returns`.
    if let Some(end) = doc_tag(line) {
        out.code(at, "doc-tag", line[..end].to_owned());
        from = end;
        i = end;
    }
    while i < bytes.len() {
        let found: Option<(Range<usize>, &str)> = match bytes[i] {
            b'`' => backticks(line, i).map(|r| (r, "code")),
            b'{' if line[i..].starts_with("{@") => {
                line[i..].find('}').map(|end| (i..i + end + 1, "doc-tag"))
            }
            b':' => role(line, i).map(|r| (r, "code")),
            b'<' if codes.tags => tag(line, i).map(|r| (r, "tag")),
            _ => None,
        };
        match found {
            Some((range, class)) => {
                out.text(at + from, &line[from..range.start]);
                out.code(at + range.start, class, line[range.clone()].to_owned());
                from = range.end;
                i = range.end;
            }
            None => i += 1,
        }
    }
    out.text(at + from, &line[from..]);
}

/// A code span opening at `i`: as many backticks as open it close it.
fn backticks(line: &str, i: usize) -> Option<Range<usize>> {
    let rest = &line[i..];
    let ticks = rest.bytes().take_while(|&b| b == b'`').count();
    let marker = &rest[..ticks];
    let body = &rest[ticks..];
    let mut search = 0;
    while let Some(found) = body[search..].find(marker) {
        let close = search + found;
        let run = body[close..].bytes().take_while(|&b| b == b'`').count();
        if run == ticks {
            return Some(i..i + ticks + close + ticks);
        }
        search = close + run;
    }
    None
}

/// A reStructuredText role at `i`: `:func:` followed by a backtick span.
fn role(line: &str, i: usize) -> Option<Range<usize>> {
    let rest = &line[i + 1..];
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':'))
        .count();
    let name_end = i + 1 + name;
    if name < 2 || line.as_bytes().get(name_end - 1) != Some(&b':') {
        return None;
    }
    if line.as_bytes().get(name_end) != Some(&b'`') {
        return None;
    }
    backticks(line, name_end).map(|r| i..r.end)
}

/// A markup tag at `i`: `<name ...>`, `</name>`, `<name/>`.
fn tag(line: &str, i: usize) -> Option<Range<usize>> {
    let rest = &line[i + 1..];
    let first = rest.bytes().next()?;
    if !(first.is_ascii_alphabetic() || first == b'/') {
        return None;
    }
    let end = rest.find(['>', '<'])?;
    (rest.as_bytes()[end] == b'>').then_some(i..i + 1 + end + 1)
}

/// The doc tag opening a line, and the name it documents: `@param {string} name`,
/// `@throws Error`, `@returns`; `None` when the line opens with none.
fn doc_tag(line: &str) -> Option<usize> {
    let rest = line.strip_prefix('@')?;
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if name == 0 {
        return None;
    }
    let tag = &rest[..name];
    let mut end = 1 + name;
    let named = matches!(
        tag,
        "param"
            | "arg"
            | "argument"
            | "tparam"
            | "throws"
            | "throw"
            | "exception"
            | "raises"
            | "typedef"
            | "property"
            | "prop"
            | "template"
            | "see"
            | "link"
            | "type"
    );
    // `{type}` after any tag.
    let after = &line[end..];
    if after.trim_start().starts_with('{') {
        if let Some(close) = after.find('}') {
            end += close + 1;
        }
    } else if !named {
        return Some(end);
    }
    if named {
        let after = &line[end..];
        let spaces2 = after.len() - after.trim_start().len();
        let word = after
            .trim_start()
            .bytes()
            .take_while(|b| !b.is_ascii_whitespace())
            .count();
        if word > 0 {
            end += spaces2 + word;
        }
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Line<'_>> {
        let mut at = 0;
        text.split('\n')
            .map(|l| {
                let line = Line { at, text: l };
                at += l.len() + 1;
                line
            })
            .collect()
    }

    fn shown(runs: &[Run]) -> String {
        runs.iter()
            .map(|r| match r {
                Run::Text { text, .. } => text.clone(),
                Run::Code(c) => format!("[{}:{}]", c.class, c.data),
                Run::Switch(_) => "?".into(),
            })
            .collect()
    }

    #[test]
    fn lines_join_into_paragraphs_and_codes_are_kept_apart() {
        let text = "Parses `input` into a {@link Tree}.\nSee :func:`walk` too.\n\n@param {string} src the text\n```rust\nlet x = 1;\n```\nDone.";
        let runs = runs(&lines(text), Codes::default());
        assert_eq!(
            shown(&runs),
            "Parses [code:`input`] into a [doc-tag:{@link Tree}]. See [code::func:`walk`] too.\n\n[doc-tag:@param {string} src] the text [code-block:```rust\nlet x = 1;\n```] Done."
        );
        // Text runs point at their bytes in the file.
        for run in &runs {
            if let Run::Text {
                text: t,
                src: Some(at),
            } = run
            {
                assert_eq!(&text[*at..*at + t.len()], t);
            }
        }
    }

    #[test]
    fn doctests_and_tags_are_codes() {
        let text = "Adds.\n\n>>> add(1, 2)\n3\n\nAfter.";
        let runs = runs(
            &lines(text),
            Codes {
                doctest: true,
                tags: false,
            },
        );
        assert_eq!(
            shown(&runs),
            "Adds.\n\n[code-block:>>> add(1, 2)\n3]\n\nAfter."
        );
        let runs = runs_of("<summary>Reads a <c>file</c>.</summary>", true);
        assert_eq!(
            runs,
            "[tag:<summary>]Reads a [tag:<c>]file[tag:</c>].[tag:</summary>]"
        );
        assert_eq!(runs_of("a < b and c > d", true), "a < b and c > d");
        assert_eq!(runs_of("an `unclosed tick", false), "an `unclosed tick");
    }

    fn runs_of(text: &str, tags: bool) -> String {
        shown(&runs(
            &lines(text),
            Codes {
                tags,
                doctest: false,
            },
        ))
    }
}
