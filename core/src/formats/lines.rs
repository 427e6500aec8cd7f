//! The lines of a docs-as-code file (reStructuredText, AsciiDoc), computed where they are read
//! (never held as a list, so a file of millions of short lines costs no memory per line), the
//! stretch of lines a construct's body covers, and the line endings and columns a writer keeps.

/// The first line ending in `text`.
pub fn line_ending(text: &str) -> Option<&'static str> {
    let at = text.find(['\n', '\r'])?;
    Some(match text.as_bytes().get(at..) {
        Some([b'\r', b'\n', ..]) => "\r\n",
        Some([b'\r', ..]) => "\r",
        _ => "\n",
    })
}

/// Columns a tab advances to, as docutils expands tabs.
const TAB: usize = 8;

/// One line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Where the line starts (for a body's first line, where its content starts: after a
    /// list marker or a directive's `::`).
    pub start: usize,
    /// Where its content starts, after the indentation.
    pub content: usize,
    /// Where its content ends: before the line ending.
    pub end: usize,
    /// Where the next line starts.
    pub next: usize,
    /// The column its content starts at.
    pub indent: usize,
}

impl Line {
    /// Whether the line holds only spaces and tabs.
    pub fn blank(&self) -> bool {
        self.content == self.end
    }

    /// Where the line's content ends, its trailing spaces left out.
    pub fn end_trimmed(&self, text: &str) -> usize {
        self.content + self.text(text).trim_end().len()
    }

    /// The line's content: after its indentation, before its line ending.
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.content..self.end).unwrap_or_default()
    }
}

/// The line starting at byte `at` of `text`, whose first byte sits at column `column`; `None`
/// at the end of the text.
pub fn line_at(text: &str, at: usize, column: usize) -> Option<Line> {
    let bytes = text.as_bytes();
    if at >= bytes.len() {
        return None;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let (end, next) = match memchr::memchr2(b'\n', b'\r', rest) {
        Some(i) => {
            let end = at + i;
            let next = if rest.get(i) == Some(&b'\r') && rest.get(i + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            (end, next)
        }
        None => (bytes.len(), bytes.len()),
    };
    let mut content = at;
    let mut indent = column;
    while content < end {
        match bytes.get(content) {
            Some(b' ') => indent += 1,
            Some(b'\t') => indent = (indent / TAB + 1) * TAB,
            // A form feed or vertical tab counts as a space, as docutils reads it.
            Some(0x0b | 0x0c) => indent += 1,
            _ => break,
        }
        content += 1;
    }
    Some(Line {
        start: at,
        content,
        end,
        next,
        indent,
    })
}

/// The column of byte `at` on its line, counting from the line's start at `line_start`.
pub fn column_of(text: &str, line_start: usize, at: usize) -> usize {
    let mut column = 0;
    for c in text.get(line_start..at).unwrap_or_default().chars() {
        column = match c {
            '\t' => (column / TAB + 1) * TAB,
            c => {
                column
                    + unicode_width::UnicodeWidthChar::width(c)
                        .unwrap_or(0)
                        .max(1)
            }
        };
    }
    column
}

/// The width of `s` in columns, as a table's borders measure it (an East Asian wide
/// character takes two).
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// A stretch of lines a construct reads: its first line (maybe starting mid-line, after a
/// marker) and the lines after it up to `end`. `indent` is the column its lines are measured
/// from: a line indented further is nested, one indented less ends the body.
#[derive(Debug, Clone, Copy)]
pub struct Body {
    pub first: Option<Line>,
    /// Where the lines after `first` start.
    pub from: usize,
    /// Where the body ends (exclusive: the start of the first line past it).
    pub end: usize,
    pub indent: usize,
}

impl Body {
    /// The lines of the body in order.
    pub fn lines<'t>(&self, text: &'t str) -> Lines<'t> {
        Lines {
            text,
            first: self.first,
            at: self.from,
            end: self.end,
        }
    }
}

/// The lines of a [`Body`].
#[derive(Debug, Clone)]
pub struct Lines<'t> {
    text: &'t str,
    first: Option<Line>,
    at: usize,
    end: usize,
}

impl Lines<'_> {
    /// The next line without taking it.
    pub fn peek(&self) -> Option<Line> {
        self.clone().next()
    }

    /// The line after the next one, without taking either.
    pub fn peek2(&self) -> Option<Line> {
        let mut ahead = self.clone();
        ahead.next();
        ahead.next()
    }

    /// Where the next line starts (the body's end when none is left).
    pub fn offset(&self) -> usize {
        match self.first {
            Some(first) => first.start,
            None => self.at.min(self.end),
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        if self.at >= self.end {
            return None;
        }
        let line = line_at(self.text, self.at, 0)?;
        self.at = line.next;
        Some(line)
    }
}

/// The lines after `lines`' current one that belong to a construct whose own line sits at
/// column `outer`: blank lines and lines indented past `outer`, up to the first line indented
/// no further (trailing blank lines are left out). Returns the body of those lines, measured
/// from the least indented of them, and leaves `lines` after it.
pub fn indented<'t>(
    text: &'t str,
    lines: &mut Lines<'t>,
    first: Option<Line>,
    outer: usize,
) -> Body {
    let from = lines.offset();
    let mut end = from;
    let mut least = usize::MAX;
    while let Some(line) = lines.peek() {
        if !line.blank() {
            if line.indent <= outer {
                break;
            }
            least = least.min(line.indent);
            end = line.next;
        }
        lines.next();
    }
    // Leave the trailing blank lines to the caller, who reads them as blank.
    *lines = Lines {
        text,
        first: None,
        at: end,
        end: lines.end.max(end),
    };
    let indent = match first {
        Some(first) if least == usize::MAX => first.indent,
        _ => least,
    };
    Body {
        first,
        from,
        end,
        indent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_know_their_indent_and_endings() {
        let text = "a\r\n  b\n\tc\rd";
        let first = line_at(text, 0, 0).unwrap();
        assert_eq!((first.end, first.next, first.indent), (1, 3, 0));
        let second = line_at(text, 3, 0).unwrap();
        assert_eq!((second.content, second.indent), (5, 2));
        let third = line_at(text, 7, 0).unwrap();
        assert_eq!((third.indent, third.next), (8, 10));
        assert_eq!(line_at(text, 10, 0).unwrap().end, 11);
        assert!(line_at(text, 11, 0).is_none());
        assert_eq!(width("日本"), 4);
        assert_eq!(column_of("\tx", 0, 1), 8);
    }

    #[test]
    fn an_indented_body_ends_at_the_first_line_indented_no_further() {
        let text = "- a\n\n  b\n    c\n\nd\n";
        let body = Body {
            first: None,
            from: 0,
            end: text.len(),
            indent: 0,
        };
        let mut lines = body.lines(text);
        let first = lines.next().unwrap();
        let inner = indented(text, &mut lines, None, first.indent);
        assert_eq!(inner.indent, 2);
        assert_eq!(&text[inner.from..inner.end], "\n  b\n    c\n");
        assert_eq!(lines.find(|l| !l.blank()).unwrap().text(text), "d");
    }
}
