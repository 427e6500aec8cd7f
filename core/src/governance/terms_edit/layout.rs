//! Reading the terms file's text for an edit: its lines ([`Doc`]), where each concept, term and
//! key sits, and the indentation new items are written with ([`Shape`]).

use super::lines::{
    check_value, dash_rest, indent, is_dash, is_marker, key_at, rest_is_blank, split_comment,
};
use crate::governance::terms::{CaseMode, Term};
use crate::yaml_text::scalar;

/// The fields of a term item, in the order kapi writes them.
pub(super) const FIELDS: [&str; 8] = [
    "text",
    "lang",
    "status",
    "case",
    "note",
    "replacement",
    "severity",
    "exceptions",
];

/// A term's scalar field as written (`None` when absent, or not a scalar).
fn field(term: &Term, name: &str) -> Option<String> {
    match name {
        "text" => Some(term.text.clone()),
        "lang" => Some(term.lang.clone()),
        "status" => Some(term.status.as_str().to_owned()),
        "case" => Some(
            match term.case {
                CaseMode::Insensitive => "insensitive",
                CaseMode::Sensitive => "sensitive",
            }
            .to_owned(),
        ),
        "note" => term.note.clone(),
        "replacement" => term.replacement.clone(),
        "severity" => term.severity.map(|s| s.as_str().to_owned()),
        _ => None,
    }
}

/// A term's field as its YAML value is written (`None` when absent): a scalar quoted as a
/// flow mapping (`flow`) or a block one needs it, the exceptions as a flow sequence
/// (`[ReactJS Day, "ReactJS Conf, Paris"]`).
pub(super) fn value(term: &Term, name: &str, flow: bool) -> Option<String> {
    if name == "exceptions" {
        return (!term.exceptions.is_empty()).then(|| {
            let items: Vec<String> = term.exceptions.iter().map(|e| scalar(e, true)).collect();
            format!("[{}]", items.join(", "))
        });
    }
    field(term, name).map(|v| scalar(&v, flow))
}

/// The fields a new term is written with: `case` only when sensitive.
pub(super) fn new_fields(term: &Term, flow: bool) -> Vec<String> {
    FIELDS
        .iter()
        .filter(|name| !(**name == "case" && term.case == CaseMode::Insensitive))
        .filter_map(|name| value(term, name, flow).map(|v| format!("{name}: {v}")))
        .collect()
}

/// The file as lines, each with its own line ending.
pub(super) struct Doc<'a> {
    pub(super) bom: &'a str,
    pub(super) lines: Vec<(&'a str, &'a str)>,
    /// The ending new lines get: the file's first one, else `\n`.
    pub(super) eol: &'static str,
}

/// Replace `lines[from..to]` with `lines` (an insertion when `from == to`).
pub(super) struct Edit {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) lines: Vec<String>,
}

/// A list item: its first line and its last content line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
}

/// A list under a key (`concepts:`, `terms:`).
pub(super) enum ListAt {
    Missing,
    /// `key: []` on this line; the key starts at the column.
    Empty {
        line: usize,
        key_col: usize,
    },
    /// `key:` on this line, the items below it.
    Block {
        line: usize,
        items: Vec<Span>,
    },
}

/// One concept item.
pub(super) struct ConceptAt {
    /// Column of the item's `-`.
    pub(super) dash: usize,
    /// Column of the concept's keys.
    pub(super) key_col: usize,
    pub(super) span: Span,
    pub(super) terms: ListAt,
    pub(super) term_items: Vec<ItemAt>,
}

/// One term item.
#[derive(Debug, Clone, Copy)]
pub(super) struct ItemAt {
    pub(super) span: Span,
    pub(super) dash: usize,
    /// Column of the keys (of `{` for a flow mapping).
    pub(super) key_col: usize,
    /// Written as one line `- {text: …, lang: …}`.
    pub(super) flow: bool,
}

/// A `key: value` and the lines its value takes.
pub(super) struct KeyAt<'a> {
    pub(super) name: String,
    pub(super) line: usize,
    /// Last content line of the value.
    pub(super) end: usize,
    /// What follows the `:` on the key's line.
    pub(super) value: &'a str,
}

/// Indentation offsets new items are written with.
pub(super) struct Shape {
    /// Column of a concept item's `-`.
    pub(super) dash: usize,
    /// From the concept's `-` to its keys.
    pub(super) key_offset: usize,
    /// From the concept's keys to the `-` of its terms.
    pub(super) terms_offset: usize,
    /// From a term's `-` to its keys.
    pub(super) term_key_offset: usize,
    /// Concepts are separated by a blank line.
    pub(super) blank_between: bool,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            dash: 2,
            key_offset: 2,
            terms_offset: 2,
            term_key_offset: 2,
            blank_between: false,
        }
    }
}

pub(super) const ANCHORS: &str =
    "anchors, aliases and tags (`&`, `*`, `!`) are not edited in place";

impl<'a> Doc<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let (bom, rest) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (&text[..text.len() - rest.len()], rest),
            None => ("", text),
        };
        let lines: Vec<(&str, &str)> = rest
            .split_inclusive('\n')
            .map(|raw| {
                if let Some(body) = raw.strip_suffix("\r\n") {
                    (body, "\r\n")
                } else if let Some(body) = raw.strip_suffix('\n') {
                    (body, "\n")
                } else {
                    (raw, "")
                }
            })
            .collect();
        let eol = match lines.iter().find(|(_, e)| !e.is_empty()) {
            Some((_, "\r\n")) => "\r\n",
            _ => "\n",
        };
        Doc { bom, lines, eol }
    }

    pub(super) fn body(&self, i: usize) -> &'a str {
        self.lines.get(i).map_or("", |l| l.0)
    }

    pub(super) fn is_content(&self, i: usize) -> bool {
        let t = self.body(i).trim();
        !t.is_empty() && !t.starts_with('#')
    }

    /// The text with `edits` applied, every line ended.
    pub(super) fn render(&self, mut edits: Vec<Edit>) -> Result<String, String> {
        edits.sort_by_key(|e| (e.from, e.to));
        let mut out = String::from(self.bom);
        let mut next = 0;
        let push_original = |out: &mut String, i: usize| {
            let (body, eol) = self.lines[i];
            out.push_str(body);
            out.push_str(if eol.is_empty() { self.eol } else { eol });
        };
        for edit in edits {
            if edit.from < next || edit.to < edit.from || edit.to > self.lines.len() {
                return Err("two edits overlap".to_owned());
            }
            for i in next..edit.from {
                push_original(&mut out, i);
            }
            for line in edit.lines {
                out.push_str(&line);
                out.push_str(self.eol);
            }
            next = edit.to;
        }
        for i in next..self.lines.len() {
            push_original(&mut out, i);
        }
        Ok(out)
    }

    /// The `concepts` list.
    pub(super) fn concepts(&self) -> Result<ListAt, String> {
        let mut seen = false;
        let mut at = None;
        for i in 0..self.lines.len() {
            if !self.is_content(i) {
                continue;
            }
            let body = self.body(i);
            let n = i + 1;
            if is_marker(body, "---") {
                if seen || !rest_is_blank(&body[3..]) {
                    return Err(format!(
                        "line {n}: the file holds more than one YAML document"
                    ));
                }
                continue;
            }
            if is_marker(body, "...") || body.starts_with('%') {
                return Err(format!(
                    "line {n}: YAML directives and document markers are not edited in place"
                ));
            }
            seen = true;
            if indent(body) > 0 || is_dash(body, 0) {
                continue;
            }
            if body.starts_with(['{', '[']) {
                return Err("the file is written in flow style".to_owned());
            }
            let Some((key, value)) = key_at(body, 0) else {
                return Err(format!("line {n} is not a `key: value` line"));
            };
            check_value(value, n)?;
            if key == "concepts" {
                at = Some((i, value));
            }
        }
        let Some((line, value)) = at else {
            return Ok(ListAt::Missing);
        };
        match split_comment(value).0 {
            "" => {}
            "[]" => return Ok(ListAt::Empty { line, key_col: 0 }),
            _ => return Err("`concepts` is not written as a block list".to_owned()),
        }
        let mut items: Vec<Span> = Vec::new();
        let mut dash = None;
        for i in line + 1..self.lines.len() {
            if !self.is_content(i) {
                continue;
            }
            let body = self.body(i);
            let ind = indent(body);
            let is_item = is_dash(body, ind);
            if ind == 0 && !is_item {
                break;
            }
            match dash {
                None if is_item => dash = Some(ind),
                None => return Err(format!("line {}: expected a concept item", i + 1)),
                Some(d) if ind < d || (ind == d && !is_item) => {
                    return Err(format!("line {}: the concepts list is not followed", i + 1));
                }
                Some(_) => {}
            }
            match items.last_mut() {
                Some(last) if Some(ind) != dash || !is_item => last.end = i,
                _ => items.push(Span { start: i, end: i }),
            }
        }
        Ok(ListAt::Block { line, items })
    }

    /// One concept item and its terms.
    pub(super) fn concept(&self, span: Span) -> Result<ConceptAt, String> {
        let first = self.body(span.start);
        let dash = indent(first);
        let n = span.start + 1;
        let (after, rest) = dash_rest(first, dash);
        if rest.starts_with(['{', '[']) {
            return Err(format!("line {n}: the concept is written in flow style"));
        }
        let key_col = self.key_col(span, after, rest)?;
        let keys = self.keys(span, key_col, !rest.is_empty() && !rest.starts_with('#'))?;
        let Some(terms) = keys.iter().find(|k| k.name == "terms") else {
            return Ok(ConceptAt {
                dash,
                key_col,
                span,
                terms: ListAt::Missing,
                term_items: Vec::new(),
            });
        };
        match split_comment(terms.value).0 {
            "" => {}
            "[]" => {
                return Ok(ConceptAt {
                    dash,
                    key_col,
                    span,
                    terms: ListAt::Empty {
                        line: terms.line,
                        key_col,
                    },
                    term_items: Vec::new(),
                });
            }
            _ => {
                return Err(format!(
                    "line {}: the terms are not written as a block list",
                    terms.line + 1
                ));
            }
        }
        let mut items: Vec<Span> = Vec::new();
        let mut term_dash = None;
        for i in terms.line + 1..=terms.end {
            if !self.is_content(i) {
                continue;
            }
            let body = self.body(i);
            let ind = indent(body);
            let is_item = is_dash(body, ind);
            match term_dash {
                None if is_item => term_dash = Some(ind),
                Some(d) if ind > d || (ind == d && is_item) => {}
                _ => return Err(format!("line {}: the terms list is not followed", i + 1)),
            }
            match items.last_mut() {
                Some(last) if Some(ind) != term_dash => last.end = i,
                _ => items.push(Span { start: i, end: i }),
            }
        }
        let mut term_items = Vec::new();
        for item in &items {
            let body = self.body(item.start);
            let d = indent(body);
            let (after, rest) = dash_rest(body, d);
            let n = item.start + 1;
            let flow = rest.starts_with('{');
            if flow && item.end != item.start {
                return Err(format!(
                    "line {n}: a term's flow mapping spans several lines"
                ));
            }
            if rest.starts_with(['[', '-', '&', '*', '!', '|', '>']) {
                return Err(format!(
                    "line {n}: the term is not a mapping of `key: value` lines"
                ));
            }
            let key_col = if flow {
                after
            } else {
                self.key_col(*item, after, rest)?
            };
            term_items.push(ItemAt {
                span: *item,
                dash: d,
                key_col,
                flow,
            });
        }
        Ok(ConceptAt {
            dash,
            key_col,
            span,
            terms: ListAt::Block {
                line: terms.line,
                items,
            },
            term_items,
        })
    }

    /// The column of an item's keys: after `- ` on its first line, else the indentation of
    /// its next content line.
    pub(super) fn key_col(&self, span: Span, after: usize, rest: &str) -> Result<usize, String> {
        if !rest.is_empty() && !rest.starts_with('#') {
            return Ok(after);
        }
        let dash = indent(self.body(span.start));
        (span.start + 1..=span.end)
            .find(|&i| self.is_content(i))
            .map(|i| indent(self.body(i)))
            .filter(|&col| col > dash)
            .ok_or_else(|| format!("line {}: an empty list item", span.start + 1))
    }

    /// The keys of a mapping item whose keys start at `key_col` (the first on the item's `-`
    /// line when `inline`).
    pub(super) fn keys(
        &self,
        span: Span,
        key_col: usize,
        inline: bool,
    ) -> Result<Vec<KeyAt<'a>>, String> {
        let mut keys: Vec<KeyAt> = Vec::new();
        for i in span.start..=span.end {
            if !self.is_content(i) {
                continue;
            }
            let body = self.body(i);
            let ind = indent(body);
            let is_key = if i == span.start {
                inline
            } else if ind < key_col {
                return Err(format!("line {}: the indentation is not followed", i + 1));
            } else {
                ind == key_col && !is_dash(body, ind)
            };
            if is_key {
                let Some((name, value)) = key_at(body, key_col) else {
                    return Err(format!("line {} is not a `key: value` line", i + 1));
                };
                check_value(value, i + 1)?;
                keys.push(KeyAt {
                    name,
                    line: i,
                    end: i,
                    value,
                });
            } else if let Some(last) = keys.last_mut() {
                last.end = i;
            }
        }
        Ok(keys)
    }

    /// How new concepts and terms are indented, read from the first concepts that show it.
    pub(super) fn shape(&self, items: &[Span]) -> Shape {
        let mut shape = Shape::default();
        if let Some(Ok(first)) = items.first().map(|s| self.concept(*s)) {
            shape.dash = first.dash;
            shape.key_offset = first.key_col - first.dash;
        }
        for span in items {
            let Ok(concept) = self.concept(*span) else {
                continue;
            };
            if let Some(item) = concept.term_items.iter().find(|t| !t.flow)
                && item.dash >= concept.key_col
            {
                shape.terms_offset = item.dash - concept.key_col;
                shape.term_key_offset = item.key_col - item.dash;
                break;
            }
        }
        if let Some(last) = items.last().filter(|_| items.len() > 1) {
            let mut i = last.start;
            while i > 0 && self.body(i - 1).trim_start().starts_with('#') {
                i -= 1;
            }
            shape.blank_between = i > 0 && self.body(i - 1).trim().is_empty();
        }
        shape
    }
}
