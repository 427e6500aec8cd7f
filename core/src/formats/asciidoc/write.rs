//! Writing AsciiDoc back: untouched blocks copy their bytes; an edited block is rendered from
//! its runs, and its text is escaped where it would read as markup. Rather than a list of
//! characters to escape (a backslash Asciidoctor does not take is printed), the rendered block
//! is read again with the inline reader, and a backslash goes before each piece of markup that
//! starts in the new text, until the block reads back as written.
use super::blocks::{Delimited, delimiter_of, list_item, starts_block};
use super::inline;
use crate::formats::lines::{line_ending, width};
use crate::formats::spans::{Piece, flatten};
use crate::formats::{Hole, Parsed, WriteError};
use crate::model::{Role, Run};

/// The most times a block is read again to escape what its new text made markup.
const MAX_ROUNDS: usize = 64;

pub fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let original = parsed.skeleton.text();
    let fallback = line_ending(original).unwrap_or("\n");
    parsed
        .skeleton
        .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
            let Some(block) = parsed.document.blocks.get(hole.block) else {
                return Err(WriteError::Skeleton {
                    message: format!("hole {:?} names no block", hole.span),
                });
            };
            let held = original.get(hole.span.clone()).unwrap_or_default();
            let after = original.get(hole.span.end..).unwrap_or_default();
            let newline = line_ending(held)
                .or_else(|| line_ending(after).filter(|_| after.starts_with(['\n', '\r'])))
                .unwrap_or(fallback);
            let kind = block
                .key
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .split('#')
                .next()
                .unwrap_or_default();
            Ok(match (block.role, kind) {
                (Role::Code, _) => {
                    let mut out = String::new();
                    crate::formats::render_runs(runs, &mut out, &mut |t, out| out.push_str(t));
                    out
                }
                (Role::Heading, "h") => title(held, &prose(runs, "", " ", None), newline),
                (Role::Heading, _) => prose(runs, "", " ", None),
                (Role::TableCell, _) => prose(
                    runs,
                    &prefix(held),
                    newline,
                    Some(table_separator(original, hole.span.start)),
                ),
                _ => prose(runs, &prefix(held), newline, None),
            })
        })
}

/// The indentation of a block's second line, which an edit's new lines take; none when the
/// block had one line.
fn prefix(held: &str) -> String {
    let Some(at) = held.find('\n') else {
        return String::new();
    };
    held[at + 1..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The cell separator of the table holding offset `at` (`|`, or `!` in a nested table): the
/// first character of the closest table delimiter line above it.
fn table_separator(original: &str, at: usize) -> char {
    let before = original.get(..at).unwrap_or_default();
    for line in before.lines().rev() {
        if let Some(Delimited::Table) = delimiter_of(line) {
            return line.chars().next().unwrap_or('|');
        }
    }
    '|'
}

/// A title: on one line (`== Title`), or over an underline as wide as the new title.
fn title(held: &str, text: &str, newline: &str) -> String {
    let mut lines = held.lines();
    match (lines.next(), lines.next()) {
        (Some(_), Some(under)) => {
            let c = under.chars().next().unwrap_or('=');
            let rule: String = std::iter::repeat_n(c, width(text).max(2)).collect();
            format!("{text}{newline}{rule}")
        }
        _ => text.to_owned(),
    }
}

/// Runs as AsciiDoc prose: codes as written, line breaks as `newline` and `prefix` (a blank
/// line would end the block, so consecutive breaks are one), `{empty}` before a new line that
/// would start a block of its own, a `separator` in a table cell escaped, and a backslash
/// before markup the new text would make.
fn prose(runs: &[Run], prefix: &str, newline: &str, separator: Option<char>) -> String {
    // The text to write, each byte marked text (true) or markup (false).
    let mut out = String::new();
    let mut mask: Vec<bool> = Vec::new();
    let push = |out: &mut String, mask: &mut Vec<bool>, s: &str, is_text: bool| {
        out.push_str(s);
        mask.extend(std::iter::repeat_n(is_text, s.len()));
    };
    let chars = flatten(runs);
    let mut line_start = true;
    let mut i = 0;
    while i < chars.len() {
        let (c, is_text) = chars[i];
        if is_text && (c == '\n' || c == '\r') {
            while chars
                .get(i)
                .is_some_and(|&(c, t)| t && matches!(c, '\n' | '\r' | ' ' | '\t'))
            {
                i += 1;
            }
            if i < chars.len() {
                while out.ends_with([' ', '\t']) && mask.last() == Some(&true) {
                    out.pop();
                    mask.pop();
                }
                push(&mut out, &mut mask, newline, false);
                push(&mut out, &mut mask, prefix, false);
                line_start = true;
            }
            continue;
        }
        if line_start && is_text {
            let line: String = chars[i..]
                .iter()
                .take_while(|(c, _)| *c != '\n' && *c != '\r')
                .map(|(c, _)| *c)
                .collect();
            if starts_block(&line) || list_item(line.trim_start()).is_some() {
                push(&mut out, &mut mask, "{empty}", false);
            }
        }
        line_start = false;
        if !is_text
            && i > 0
            && chars[i - 1].1
            && chars[i - 1].0.is_alphanumeric()
            && opens_macro(&chars[i..])
        {
            // A macro or cross reference opens only after a non-word character: where new
            // text runs into one, a space goes between, so the code stays a code.
            push(&mut out, &mut mask, " ", false);
        }
        if is_text && Some(c) == separator {
            push(&mut out, &mut mask, "\\", false);
        }
        let mut buf = [0u8; 4];
        push(&mut out, &mut mask, c.encode_utf8(&mut buf), is_text);
        i += 1;
    }
    escape_markup(out, mask)
}

/// Whether the markup starting at `chars` is an inline macro (`image:…[…]`, `https://…`) or
/// a cross reference (`<<…>>`).
fn opens_macro(chars: &[(char, bool)]) -> bool {
    let code: String = chars
        .iter()
        .take_while(|(_, t)| !t)
        .take(40)
        .map(|(c, _)| *c)
        .collect();
    if code.starts_with("<<") {
        return true;
    }
    let name = code
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
        .count();
    name > 0 && code[name..].starts_with(':')
}

/// Puts a backslash before each piece of markup that starts in new text, reading the block
/// again until none does (or [`MAX_ROUNDS`] times).
fn escape_markup(mut out: String, mut mask: Vec<bool>) -> String {
    for _ in 0..MAX_ROUNDS {
        let made = inline::pieces(&out)
            .into_iter()
            .find_map(|piece| match piece {
                Piece::Code { from, class, .. }
                    if class != "break" && mask.get(from) == Some(&true) =>
                {
                    Some(from)
                }
                _ => None,
            });
        let Some(at) = made else {
            break;
        };
        out.insert(at, '\\');
        mask.insert(at, false);
        // The escaped character is markup now: it is read as the escaped text.
        if let Some(m) = mask.get_mut(at + 1) {
            *m = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> String {
        prose(&[Run::text(t)], "", "\n", None)
    }

    #[test]
    fn new_text_is_escaped_only_where_it_would_be_markup() {
        assert_eq!(p("2 * 3 and snake_case"), "2 * 3 and snake_case");
        assert_eq!(p("a *b* c"), r"a \*b* c");
        assert_eq!(p("use {name} here"), r"use \{name} here");
        assert_eq!(p("one\n\n* two"), "one\n{empty}* two");
        assert_eq!(p("see https://x.org now"), r"see \https://x.org now");
        assert_eq!(prose(&[Run::text("a|b")], "", "\n", Some('|')), r"a\|b");
    }

    #[test]
    fn titles_keep_their_underline_as_wide_as_the_text() {
        assert_eq!(
            title("Title\n=====", "A longer title", "\n"),
            "A longer title\n=============="
        );
        assert_eq!(title("Title", "New", "\n"), "New");
    }
}
