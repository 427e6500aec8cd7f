//! One rules file's text: kapi's section found between its markers (a broken one named by its
//! line), set or removed with every byte around it kept, and the line ending kept.

use super::{END_MARKER, RulesError, START_MARKER};

/// One file's new text with kapi's section set to `body` (None: section removed); Err names the
/// line of a bad marker.
///
/// Everything outside the section is kept byte for byte. A new section goes at the end of an
/// existing text after one blank line (an empty text becomes just the section); removing a
/// section that ends the text also removes the one blank line before it, so adding then
/// removing gives back the original text. The text's line ending (CRLF or LF) is kept.
pub fn set_section(text: &str, body: Option<&[String]>) -> Result<String, RulesError> {
    let eol = line_ending(text);
    let span = find_section(text)?;
    let out = match (span, body) {
        (Some((start, end)), Some(body)) => {
            let closed = text[..end].ends_with('\n');
            format!(
                "{}{}{}",
                &text[..start],
                render(body, eol, closed),
                &text[end..]
            )
        }
        (Some((start, end)), None) => {
            let mut before = &text[..start];
            let after = &text[end..];
            if after.is_empty() {
                if before.ends_with("\r\n\r\n") {
                    before = &before[..before.len() - 2];
                } else if before.ends_with("\n\n") {
                    before = &before[..before.len() - 1];
                }
            }
            format!("{before}{after}")
        }
        (None, Some(body)) if text.is_empty() => render(body, eol, true),
        (None, Some(body)) => {
            let gap = if text.ends_with('\n') {
                eol.to_owned()
            } else {
                format!("{eol}{eol}")
            };
            format!("{text}{gap}{}", render(body, eol, true))
        }
        (None, None) => text.to_owned(),
    };
    Ok(out)
}

/// The text's line ending: that of its first line, LF when it has none.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Whether a line (with or without its ending) is a marker.
pub(super) fn marker(line: &str) -> Option<bool> {
    match line.trim() {
        START_MARKER => Some(true),
        END_MARKER => Some(false),
        _ => None,
    }
}

/// The byte span of the one section (start of its start marker line, end of its end marker
/// line including the line ending), or the marker error.
fn find_section(text: &str) -> Result<Option<(usize, usize)>, RulesError> {
    let mut open: Option<(usize, usize)> = None;
    let mut found: Option<(usize, usize, usize)> = None;
    let mut pos = 0;
    let mut number = 0;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        number += 1;
        match marker(&text[pos..end]) {
            Some(true) => {
                if let Some((line, _)) = open {
                    return Err(RulesError::Unterminated { line });
                }
                if let Some((first, _, _)) = found {
                    return Err(RulesError::TwoSections {
                        first,
                        second: number,
                    });
                }
                open = Some((number, pos));
            }
            Some(false) => match open.take() {
                Some((line, start)) => found = Some((line, start, end)),
                None => return Err(RulesError::StrayEnd { line: number }),
            },
            None => {}
        }
        pos = end;
    }
    if let Some((line, _)) = open {
        return Err(RulesError::Unterminated { line });
    }
    Ok(found.map(|(_, start, end)| (start, end)))
}

/// The section's text: markers around the body, every line ended by `eol` (the end marker's
/// only when `closed`).
fn render(body: &[String], eol: &str, closed: bool) -> String {
    let mut out = String::from(START_MARKER);
    out.push_str(eol);
    for line in body {
        out.push_str(&body_line(line));
        out.push_str(eol);
    }
    out.push_str(END_MARKER);
    if closed {
        out.push_str(eol);
    }
    out
}

/// A body line made safe: one line, and never a marker.
fn body_line(line: &str) -> String {
    let flat = line.replace("\r\n", " ").replace(['\r', '\n'], " ");
    let flat = flat.trim_end();
    if marker(flat).is_some() {
        format!("`{}`", flat.trim())
    } else {
        flat.to_owned()
    }
}

/// Whether a `CLAUDE.md` text imports `AGENTS.md` (a line `@AGENTS.md` or `@./AGENTS.md`).
pub(super) fn imports_agents(text: &str) -> bool {
    text.lines()
        .any(|l| matches!(l.trim(), "@AGENTS.md" | "@./AGENTS.md"))
}
