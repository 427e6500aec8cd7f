//! Writing an edited YAML value: in the scalar's own style (plain, quoted, literal or
//! folded) when that reads back as the same text, else double-quoted on one line.

use super::scanner::Parser;
use super::tree::{Chomp, Scalar, Style, slice};
use crate::yaml_text::{plain_ok, printable, quote, resolves_to_non_string};

pub(super) fn first_line_ending(text: &str) -> &'static str {
    match text.find(['\n', '\r']).map(|at| &text.as_bytes()[at..]) {
        Some([b'\r', b'\n', ..]) => "\r\n",
        Some([b'\r', ..]) => "\r",
        _ => "\n",
    }
}

/// Renders `value` for the hole of `scalar`: in its style when that reads back as the
/// same text, else double-quoted.
pub(super) fn render(value: &str, scalar: &Scalar, text: &str, newline: &str) -> String {
    let newline = scalar
        .block
        .as_ref()
        .and_then(|_| {
            let held = slice(text, scalar.span.start, scalar.span.end);
            held.contains("\r\n").then_some("\r\n")
        })
        .unwrap_or(newline);
    let styled = match scalar.style {
        Style::Plain if plain_ok(value, scalar.flow) => Some(value.to_owned()),
        Style::Single if single_ok(value) => Some(format!("'{}'", value.replace('\'', "''"))),
        Style::Literal | Style::Folded => block_render(value, scalar, text, newline),
        _ => None,
    };
    if let Some(out) = styled
        && reads_back(&out, scalar, value, newline)
    {
        return out;
    }
    let mut out = quote(value);
    if let Some(info) = &scalar.block {
        let tail = slice(text, info.tail.start, info.tail.end);
        if tail.contains('#') {
            out.push_str(tail);
        }
    }
    out
}

/// Whether `rendered` reads back as `value` in the scalar's context.
pub(super) fn reads_back(rendered: &str, scalar: &Scalar, value: &str, newline: &str) -> bool {
    let probe;
    let source = match &scalar.block {
        Some(info) if !info.eof => {
            probe = format!("{rendered}{newline}");
            probe.as_str()
        }
        _ => rendered,
    };
    let mut parser = Parser::new(source);
    parser.start = 0;
    let got = match scalar.style {
        Style::Plain => parser
            .plain(-1, scalar.flow)
            .ok()
            .filter(|s| s.span.end == rendered.len() && !resolves_to_non_string(&s.value)),
        Style::Single | Style::Double => parser
            .quoted(scalar.flow)
            .ok()
            .filter(|s| s.span.end == rendered.len()),
        Style::Literal | Style::Folded => {
            let parent = scalar.block.as_ref().map_or(-1, |b| b.parent);
            parser.block_scalar(parent, None).ok()
        }
    };
    got.is_some_and(|s| s.value == value)
}

pub(super) fn single_ok(v: &str) -> bool {
    v.chars().all(printable)
}

/// `value` as a literal or folded scalar with the original's indentation and header
/// comment; `None` when the style cannot hold it here.
pub(super) fn block_render(
    value: &str,
    scalar: &Scalar,
    text: &str,
    newline: &str,
) -> Option<String> {
    let info = scalar.block.as_ref()?;
    if value
        .chars()
        .any(|c| c != '\n' && c != '\t' && !printable(c))
    {
        return None;
    }
    let body = value.trim_end_matches('\n');
    let trail = value.len() - body.len();
    if body.is_empty() {
        return None;
    }
    let chomp = match trail {
        0 => Chomp::Strip,
        1 => Chomp::Clip,
        _ => Chomp::Keep,
    };
    if chomp == Chomp::Keep && info.chomp != Chomp::Keep && info.trailing_empty {
        return None;
    }
    let first = body.split('\n').find(|l| !l.is_empty())?;
    let indicator = first.starts_with(' ') || info.explicit;
    let base = usize::try_from(info.parent).unwrap_or(0);
    let m = info.indent.checked_sub(base)?;
    if indicator && !(1..=9).contains(&m) {
        return None;
    }
    let mut out = String::with_capacity(value.len() * 2 + 8);
    out.push(if scalar.style == Style::Folded {
        '>'
    } else {
        '|'
    });
    if indicator {
        out.push_str(&m.to_string());
    }
    match chomp {
        Chomp::Strip => out.push('-'),
        Chomp::Keep => out.push('+'),
        Chomp::Clip => {}
    }
    out.push_str(slice(text, info.tail.start, info.tail.end));
    let pad = " ".repeat(info.indent);
    if scalar.style == Style::Literal {
        for line in body.split('\n') {
            out.push_str(newline);
            if !line.is_empty() {
                out.push_str(&pad);
                out.push_str(line);
            }
        }
    } else {
        // libyaml's folded writer, without wrapping: a line break between two lines that
        // start with no blank is written as an empty line.
        out.push_str(newline);
        let mut breaks = true;
        let mut leading_blank = true;
        for (i, c) in body.char_indices() {
            if c == '\n' {
                if !breaks && !leading_blank {
                    let rest = body.get(i..).unwrap_or_default().trim_start_matches('\n');
                    if rest.starts_with(|c: char| c != ' ' && c != '\t') {
                        out.push_str(newline);
                    }
                }
                out.push_str(newline);
                breaks = true;
            } else {
                if breaks {
                    out.push_str(&pad);
                    leading_blank = c == ' ' || c == '\t';
                }
                out.push(c);
                breaks = false;
            }
        }
    }
    if chomp == Chomp::Keep {
        for _ in 1..trail {
            out.push_str(newline);
        }
    }
    if info.eof && chomp != Chomp::Strip {
        out.push_str(newline);
    }
    Some(out)
}
