//! A comment's lines with their markers stripped, and an edited comment written back in the
//! style it was read in: the same markers, indentation, `*` column and closing line, its
//! prose wrapped at the width its own lines used (or the language's usual width when they
//! never wrapped); an example or a doc tag stays whole. An untouched comment is copied byte
//! for byte.

use std::ops::Range;

use super::comments::{Comment, Shape};
use super::langs::Lang;
use super::prose::Line;
use crate::formats::{Hole, Parsed, WriteError};
use crate::model::Run;

/// The lines of `comment` in `text`, markers stripped.
pub fn lines<'t>(text: &'t str, comment: &Comment) -> Vec<Line<'t>> {
    let span = comment.span.clone();
    match comment.shape {
        Shape::Line(marker) => physical(text, span)
            .map(|(at, line)| {
                let lead = line.len() - line.trim_start().len();
                let body = &line[lead..];
                let strip = if body.starts_with(marker) {
                    marker.len()
                } else {
                    0
                };
                let rest = &body[strip..];
                let space = usize::from(rest.starts_with(' '));
                Line {
                    at: at + lead + strip + space,
                    text: rest[space..].trim_end(),
                }
            })
            .collect(),
        Shape::Block(open, close) => {
            let raw = text.get(span.clone()).unwrap_or_default();
            let inner_end = if raw.ends_with(close) && raw.len() >= open.len() + close.len() {
                span.end - close.len()
            } else {
                span.end
            };
            inner(text, span.start + open.len()..inner_end, true)
        }
        Shape::Docstring => {
            let raw = text.get(span.clone()).unwrap_or_default();
            let (open, close) = quotes(raw);
            inner(text, span.start + open..span.end - close, false)
        }
    }
}

/// The lines inside a block comment or docstring: each without its indentation (and, in a
/// block comment, a leading `*`), the first as it follows the opener.
fn inner(text: &str, range: Range<usize>, stars: bool) -> Vec<Line<'_>> {
    physical(text, range)
        .enumerate()
        .map(|(i, (at, line))| {
            let lead = if i == 0 {
                usize::from(line.starts_with(' '))
            } else {
                line.len() - line.trim_start().len()
            };
            let mut body = &line[lead..];
            let mut skip = lead;
            if stars && i > 0 && body.starts_with('*') && !body.starts_with("*/") {
                body = &body[1..];
                skip += 1;
                if body.starts_with(' ') {
                    body = &body[1..];
                    skip += 1;
                }
            }
            Line {
                at: at + skip,
                text: body.trim_end(),
            }
        })
        .collect()
}

/// Each line of `text[range]` as (its start, its text without the line ending).
fn physical(text: &str, range: Range<usize>) -> impl Iterator<Item = (usize, &str)> {
    let slice = text.get(range.clone()).unwrap_or_default();
    let mut at = range.start;
    slice.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches(['\n', '\r']))
    })
}

/// The byte lengths of a docstring's opening (prefix and quotes) and closing quotes.
fn quotes(raw: &str) -> (usize, usize) {
    let prefix = raw.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    let rest = &raw[prefix..];
    let quote = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
        3
    } else {
        usize::from(rest.starts_with(['"', '\'']))
    };
    let close = if raw.len() >= prefix + 2 * quote {
        quote
    } else {
        0
    };
    (prefix + quote, close)
}

/// Writes `parsed` back: untouched comments as they were, edited ones re-rendered.
pub fn write(lang: &Lang, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let text = parsed.skeleton.text();
    parsed
        .skeleton
        .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
            render(lang, text, hole, runs)
        })
}

/// An edited comment, in the style of the one at `hole`.
fn render(lang: &Lang, text: &str, hole: &Hole, runs: &[Run]) -> Result<String, WriteError> {
    let held = text.get(hole.span.clone()).unwrap_or_default();
    let line_start = text[..hole.span.start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..hole.span.start];
    let trailing = !before.bytes().all(|b| b == b' ' || b == b'\t');
    let indent: String = if trailing {
        " ".repeat(before.chars().count())
    } else {
        before.to_owned()
    };
    let newline = if held.contains("\r\n") || text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let paragraphs = paragraphs(runs);
    let Some(style) = Style::of(lang, held, &indent) else {
        return Err(WriteError::Block {
            key: hole.block.to_string(),
            message: "the comment's markers are not the language's".into(),
        });
    };
    let longest = held
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                before.chars().count() + l.chars().count()
            } else {
                l.chars().count()
            }
        })
        .max()
        .unwrap_or(0);
    let wrapped_before = held.lines().count() > 1;
    // A comment that wrapped its lines (a long line, then more) keeps its width.
    let width = if wrapped_before && longest >= 60 {
        longest
    } else {
        lang.width.max(longest)
    };
    Ok(style.render(&indent, &paragraphs, width, newline, trailing))
}

/// One piece of a paragraph: a word, or a code kept whole.
enum Piece<'r> {
    Word(&'r str),
    /// A code; one holding line breaks (an example) stands on its own lines.
    Code(&'r str),
}

/// The runs as paragraphs of pieces (a blank line in the text separates paragraphs).
fn paragraphs(runs: &[Run]) -> Vec<Vec<Piece<'_>>> {
    let mut out: Vec<Vec<Piece<'_>>> = vec![Vec::new()];
    for run in runs {
        match run {
            Run::Text { text, .. } => {
                let mut parts = text.split("\n\n").peekable();
                while let Some(part) = parts.next() {
                    if let Some(last) = out.last_mut() {
                        last.extend(part.split_whitespace().map(Piece::Word));
                    }
                    if parts.peek().is_some() {
                        out.push(Vec::new());
                    }
                }
            }
            Run::Code(code) => {
                if let Some(last) = out.last_mut() {
                    last.push(Piece::Code(&code.data));
                }
            }
            Run::Switch(_) => {}
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// How a comment is laid out, read off the comment as it stands.
struct Style {
    /// The first line's opener with the space after it (`/// `, `/** `, `"""`).
    first: String,
    /// Each later line's lead after the indentation (`/// `, ` * `, ``).
    lead: String,
    /// The closer, if any (` */`, `"""`), and whether it stands on its own line.
    close: Option<(String, bool)>,
    /// The opener stands alone on the first line (`/**` then a line break).
    open_alone: bool,
}

impl Style {
    /// The style of the comment `held`, whose first line stands after `indent`.
    fn of(lang: &Lang, held: &str, indent: &str) -> Option<Style> {
        let lines: Vec<&str> = held.lines().collect();
        let first = *lines.first()?;
        for &marker in lang.line {
            if first.starts_with(marker) && !lang.block.iter().any(|(o, _)| first.starts_with(o)) {
                let spaced = first[marker.len()..].starts_with(' ');
                let lead = if spaced {
                    format!("{marker} ")
                } else {
                    marker.to_owned()
                };
                return Some(Style {
                    first: lead.clone(),
                    lead,
                    close: None,
                    open_alone: false,
                });
            }
        }
        for &(open, close) in lang.block {
            if first.starts_with(open) {
                let open_alone = first.trim_end() == open && lines.len() > 1;
                let second = lines.get(1).map(|l| l.trim_start());
                let lead = match second {
                    Some(l) if l.starts_with('*') && !l.starts_with("*/") => {
                        // Align the star under the opener's.
                        let star_col = open.find('*').unwrap_or(1);
                        format!("{}* ", " ".repeat(star_col))
                    }
                    _ => body_lead(&lines[1..], indent, close)
                        .unwrap_or_else(|| " ".repeat(open.len() + 1)),
                };
                let last = lines.last().map(|l| l.trim()).unwrap_or_default();
                let close_alone = lines.len() > 1 && last == close;
                let closer = if close_alone {
                    format!("{}{close}", " ".repeat(open.find('*').unwrap_or(1)))
                } else {
                    format!(" {close}")
                };
                return Some(Style {
                    first: if open_alone {
                        open.to_owned()
                    } else {
                        format!("{open} ")
                    },
                    lead,
                    close: Some((closer, close_alone)),
                    open_alone,
                });
            }
        }
        // A docstring.
        let (open, close) = quotes(held);
        if open == 0 {
            return None;
        }
        let opener = &held[..open];
        let closer = &held[held.len() - close..];
        let open_alone = first.trim_end() == opener && lines.len() > 1;
        let close_alone = lines.len() > 1 && lines.last().is_some_and(|l| l.trim() == closer);
        Some(Style {
            first: opener.to_owned(),
            lead: String::new(),
            close: Some((closer.to_owned(), close_alone)),
            open_alone,
        })
    }

    fn render(
        &self,
        indent: &str,
        paragraphs: &[Vec<Piece<'_>>],
        width: usize,
        newline: &str,
        one_line: bool,
    ) -> String {
        let mut lines: Vec<String> = Vec::new();
        let lead_width = indent.chars().count() + self.lead.chars().count();
        let room_after = |lead: usize| {
            if one_line {
                usize::MAX
            } else {
                width.saturating_sub(lead).max(20)
            }
        };
        let room = room_after(lead_width);
        // The first line starts with the opener, which may be wider than the later lead.
        let first_room = if self.open_alone {
            room
        } else {
            room_after(indent.chars().count() + self.first.chars().count())
        };
        for (p, paragraph) in paragraphs.iter().enumerate() {
            if p > 0 {
                lines.push(String::new());
            }
            let mut line = String::new();
            for piece in paragraph {
                let (text, alone) = match piece {
                    Piece::Word(w) => (*w, false),
                    Piece::Code(c) => (*c, c.contains('\n')),
                };
                if alone {
                    if !line.is_empty() {
                        lines.push(std::mem::take(&mut line));
                    }
                    lines.extend(text.split('\n').map(str::to_owned));
                    continue;
                }
                let room = if lines.is_empty() { first_room } else { room };
                if !line.is_empty() && line.chars().count() + 1 + text.chars().count() > room {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(text);
            }
            if !line.is_empty() {
                lines.push(line);
            }
        }
        let mut out = String::new();
        let mut first = true;
        let mut push = |out: &mut String, lead: &str, body: &str| {
            if !first {
                out.push_str(newline);
                out.push_str(indent);
            }
            first = false;
            let piece = format!("{lead}{body}");
            out.push_str(if body.is_empty() {
                piece.trim_end()
            } else {
                &piece
            });
        };
        if self.open_alone {
            push(&mut out, &self.first, "");
        }
        for (i, line) in lines.iter().enumerate() {
            let lead = if i == 0 && !self.open_alone {
                &self.first
            } else {
                &self.lead
            };
            push(&mut out, lead, line);
        }
        if let Some((close, alone)) = &self.close {
            if *alone {
                push(&mut out, "", close.trim_end());
            } else {
                out.push_str(close);
            }
        }
        out
    }
}

/// The whitespace a block comment's lines without a `*` stand at past the comment's
/// indentation, read off its first body line (neither blank nor the closer alone); `None`
/// when that line stands left of the indentation, or there is none.
fn body_lead(lines: &[&str], indent: &str, close: &str) -> Option<String> {
    let line = lines
        .iter()
        .find(|l| !l.trim().is_empty() && l.trim() != close)?;
    let space = &line[..line.len() - line.trim_start().len()];
    space.strip_prefix(indent).map(str::to_owned)
}
