//! Writing the change into the text: the line edits that update a term in place (block or flow
//! form), add a term or a concept, and the text of a whole new file.

use super::layout::{
    ConceptAt, Doc, Edit, FIELDS, ItemAt, KeyAt, ListAt, Shape, Span, new_fields, value,
};
use super::lines::{dash_rest, key_at, split_comment};
use super::plan::Target;
use crate::governance::terms::{CaseMode, Concept, Term, TermsFile};
use crate::yaml_text::scalar;

/// The edited text of an existing file.
pub(super) fn edit(
    text: &str,
    original: &TermsFile,
    target: &Target,
    expected: &TermsFile,
) -> Result<String, String> {
    let doc = Doc::new(text);
    let concepts = doc.concepts()?;
    let items: &[Span] = match &concepts {
        ListAt::Block { items, .. } => items,
        _ => &[],
    };
    if items.len() != original.concepts.len() {
        return Err("the concepts list could not be followed".to_owned());
    }
    let shape = doc.shape(items);
    let edits = match target {
        Target::Update { concept, term } => {
            let at = doc.concept(items[*concept])?;
            if at.term_items.len() != original.concepts[*concept].terms.len() {
                return Err("the concept's terms list could not be followed".to_owned());
            }
            let item = at.term_items[*term];
            let old = &original.concepts[*concept].terms[*term];
            let new = &expected.concepts[*concept].terms[*term];
            if item.flow {
                vec![update_flow_item(&doc, item, old, new)?]
            } else {
                update_block_item(&doc, item, old, new)?
            }
        }
        Target::Add { concept } => {
            let at = doc.concept(items[*concept])?;
            if at.term_items.len() != original.concepts[*concept].terms.len() {
                return Err("the concept's terms list could not be followed".to_owned());
            }
            let Some(term) = expected.concepts[*concept].terms.last() else {
                return Err("no term to add".to_owned());
            };
            add_term(&doc, &at, &shape, term)
        }
        Target::NewConcept { .. } => {
            let Some(concept) = expected.concepts.last() else {
                return Err("no concept to add".to_owned());
            };
            add_concept(&doc, &concepts, &shape, concept)
        }
    };
    doc.render(edits)
}

fn update_block_item(doc: &Doc, item: ItemAt, old: &Term, new: &Term) -> Result<Vec<Edit>, String> {
    let (_, rest) = dash_rest(doc.body(item.span.start), item.dash);
    let inline = !rest.is_empty() && !rest.starts_with('#');
    let keys = doc.keys(item.span, item.key_col, inline)?;
    let mut edits = Vec::new();
    let mut appended = Vec::new();
    for name in FIELDS {
        let (was, now) = (value(old, name, false), value(new, name, false));
        if was == now {
            continue;
        }
        match (keys.iter().find(|k| k.name == name), now) {
            (Some(key), Some(_)) if name == "exceptions" => {
                edits.push(exceptions_edit(doc, key, item.key_col, new));
            }
            (Some(key), Some(value)) => {
                let comment = if key.end == key.line {
                    split_comment(key.value).1
                } else {
                    ""
                };
                let prefix = doc.body(key.line).get(..item.key_col).unwrap_or_default();
                edits.push(Edit {
                    from: key.line,
                    to: key.end + 1,
                    lines: vec![format!("{prefix}{name}: {value}{comment}")],
                });
            }
            (Some(key), None) => {
                if key.line == item.span.start {
                    return Err(format!(
                        "line {}: the term's first key cannot be removed in place",
                        key.line + 1
                    ));
                }
                edits.push(Edit {
                    from: key.line,
                    to: key.end + 1,
                    lines: Vec::new(),
                });
            }
            (None, Some(value)) if !(name == "case" && new.case == CaseMode::Insensitive) => {
                appended.push(format!("{}{name}: {value}", " ".repeat(item.key_col)));
            }
            (None, _) => {}
        }
    }
    if !appended.is_empty() {
        let at = item.span.end + 1;
        edits.push(Edit {
            from: at,
            to: at,
            lines: appended,
        });
    }
    Ok(edits)
}

/// The lines of a term's changed `exceptions`: a block list stays a block list (its first
/// item's indentation and the key's comment kept), anything else becomes one flow list line.
fn exceptions_edit(doc: &Doc, key: &KeyAt, key_col: usize, new: &Term) -> Edit {
    let prefix = doc.body(key.line).get(..key_col).unwrap_or_default();
    let (inline, comment) = split_comment(key.value);
    let first_item = (key.line + 1..=key.end).find(|&i| doc.is_content(i));
    let lines = match first_item {
        Some(i) if inline.is_empty() => {
            let body = doc.body(i);
            let dash = body.len() - body.trim_start_matches(' ').len();
            let mut lines = vec![format!("{prefix}exceptions:{comment}")];
            lines.extend(
                new.exceptions
                    .iter()
                    .map(|e| format!("{}- {}", " ".repeat(dash), scalar(e, false))),
            );
            lines
        }
        _ => {
            let comment = if key.end == key.line { comment } else { "" };
            let list = value(new, "exceptions", false).unwrap_or_default();
            vec![format!("{prefix}exceptions: {list}{comment}")]
        }
    };
    Edit {
        from: key.line,
        to: key.end + 1,
        lines,
    }
}

fn update_flow_item(doc: &Doc, item: ItemAt, old: &Term, new: &Term) -> Result<Edit, String> {
    let line = item.span.start;
    let body = doc.body(line);
    let (head, flow) = body.split_at(item.key_col.min(body.len()));
    let found = flow
        .char_indices()
        .filter(|(_, c)| *c == '}')
        .find_map(|(p, _)| {
            let (mapping, rest) = flow.split_at(p + 1);
            let tail = rest.trim_start();
            let ok = tail.is_empty() || (tail.starts_with('#') && tail.len() < rest.len());
            let parsed = serde_yaml::from_str::<serde_yaml::Mapping>(mapping).ok()?;
            ok.then_some((parsed, rest))
        });
    let Some((mapping, rest)) = found else {
        return Err(format!(
            "line {}: the term's flow mapping is not followed",
            line + 1
        ));
    };
    let mut parts = Vec::new();
    let mut written = Vec::new();
    for key in mapping.keys() {
        let Some(name) = key.as_str().filter(|k| FIELDS.contains(k)) else {
            return Err(format!("line {}: an unexpected key", line + 1));
        };
        written.push(name);
        if let Some(value) = value(new, name, true) {
            parts.push(format!("{name}: {value}"));
        }
    }
    for name in FIELDS.iter().filter(|n| !written.contains(n)) {
        let now = value(new, name, true);
        if now == value(old, name, true) || (*name == "case" && new.case == CaseMode::Insensitive) {
            continue;
        }
        if let Some(value) = now {
            parts.push(format!("{name}: {value}"));
        }
    }
    Ok(Edit {
        from: line,
        to: line + 1,
        lines: vec![format!("{head}{{{}}}{rest}", parts.join(", "))],
    })
}

fn add_term(doc: &Doc, at: &ConceptAt, shape: &Shape, term: &Term) -> Vec<Edit> {
    let dash = at.key_col + shape.terms_offset;
    let key_col = dash + shape.term_key_offset;
    match &at.terms {
        ListAt::Block { line, .. } => match at.term_items.last() {
            Some(last) => {
                let lines = if last.flow {
                    vec![format!(
                        "{}- {{{}}}",
                        " ".repeat(last.dash),
                        new_fields(term, true).join(", ")
                    )]
                } else {
                    term_lines(term, last.dash, last.key_col)
                };
                insert(last.span.end + 1, lines)
            }
            None => insert(line + 1, term_lines(term, dash, key_col)),
        },
        ListAt::Empty { line, key_col: col } => {
            let body = doc.body(*line);
            let prefix = body.get(..*col).unwrap_or_default();
            let comment = key_at(body, *col).map_or("", |(_, v)| split_comment(v).1);
            let mut lines = vec![format!("{prefix}terms:{comment}")];
            lines.extend(term_lines(term, dash, key_col));
            vec![Edit {
                from: *line,
                to: line + 1,
                lines,
            }]
        }
        ListAt::Missing => {
            let mut lines = vec![format!("{}terms:", " ".repeat(at.key_col))];
            lines.extend(term_lines(term, dash, key_col));
            insert(at.span.end + 1, lines)
        }
    }
}

fn add_concept(doc: &Doc, concepts: &ListAt, shape: &Shape, concept: &Concept) -> Vec<Edit> {
    let lines = concept_lines(concept, shape);
    match concepts {
        ListAt::Block { items, line } => match items.last() {
            Some(last) => {
                let mut all = Vec::new();
                if shape.blank_between {
                    all.push(String::new());
                }
                all.extend(lines);
                insert(last.end + 1, all)
            }
            None => insert(line + 1, lines),
        },
        ListAt::Empty { line, .. } => {
            let comment = key_at(doc.body(*line), 0).map_or("", |(_, v)| split_comment(v).1);
            let mut all = vec![format!("concepts:{comment}")];
            all.extend(lines);
            vec![Edit {
                from: *line,
                to: line + 1,
                lines: all,
            }]
        }
        ListAt::Missing => {
            let mut all = vec!["concepts:".to_owned()];
            all.extend(lines);
            insert(doc.lines.len(), all)
        }
    }
}

fn insert(at: usize, lines: Vec<String>) -> Vec<Edit> {
    vec![Edit {
        from: at,
        to: at,
        lines,
    }]
}

/// A block term item whose `-` is at `dash` and keys at `key_col`.
fn term_lines(term: &Term, dash: usize, key_col: usize) -> Vec<String> {
    let gap = key_col.saturating_sub(dash + 1).max(1);
    let key_col = dash + 1 + gap;
    new_fields(term, false)
        .into_iter()
        .enumerate()
        .map(|(i, kv)| {
            if i == 0 {
                format!("{}-{}{kv}", " ".repeat(dash), " ".repeat(gap))
            } else {
                format!("{}{kv}", " ".repeat(key_col))
            }
        })
        .collect()
}

/// A new concept item with its one term.
fn concept_lines(concept: &Concept, shape: &Shape) -> Vec<String> {
    let gap = shape.key_offset.saturating_sub(1).max(1);
    let key_col = shape.dash + 1 + gap;
    let pad = " ".repeat(key_col);
    let mut lines = vec![format!(
        "{}-{}id: {}",
        " ".repeat(shape.dash),
        " ".repeat(gap),
        scalar(&concept.id, false)
    )];
    if let Some(definition) = &concept.definition {
        lines.push(format!("{pad}definition: {}", scalar(definition, false)));
    }
    lines.push(format!("{pad}terms:"));
    let dash = key_col + shape.terms_offset;
    for term in &concept.terms {
        lines.extend(term_lines(term, dash, dash + shape.term_key_offset));
    }
    lines
}

/// A whole new file holding `file`'s concepts.
pub(super) fn new_file(file: &TermsFile) -> String {
    let shape = Shape::default();
    let mut lines = vec![format!("version: {}", file.version), "concepts:".to_owned()];
    for concept in &file.concepts {
        lines.extend(concept_lines(concept, &shape));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}
