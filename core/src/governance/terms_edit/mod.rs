//! Edits the text of a terms file (`.kapi/terms.yaml`) to add or update one term while keeping
//! the person's formatting and comments: only the lines that must change are written, and the
//! result is read back and compared with the intended file before it is returned.

use serde::{Deserialize, Serialize};

use super::terms::{CaseMode, Concept, Term, TermsFile};
use super::{GovernanceError, Severity, TermStatus};
use crate::error::Hint;
use crate::suggest::is_slug;
use crate::yaml_text::scalar;

/// One term to add or update (the `term` operation of a kapi change set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermUpsert {
    pub text: String,
    pub lang: String,
    pub status: TermStatus,
    /// The concept id to join or create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    /// An existing term's text (any language) or concept id whose concept this term joins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// Set when given; an empty string removes the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// Set when given; an empty string removes the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<CaseMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Only used when a new concept is created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

/// What [`upsert`] did, naming the concept the term belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Upserted {
    /// The term was already there as asked; the text is returned unchanged.
    Unchanged { concept: String },
    /// The term was added to an existing concept.
    Added { concept: String },
    /// An existing term was changed.
    Updated { concept: String },
    /// A new concept was created for the term.
    NewConcept { concept: String },
}

impl Upserted {
    /// The id of the concept the term belongs to.
    pub fn concept(&self) -> &str {
        match self {
            Upserted::Unchanged { concept }
            | Upserted::Added { concept }
            | Upserted::Updated { concept }
            | Upserted::NewConcept { concept } => concept,
        }
    }
}

/// Why a term could not be recorded. Nothing is written in any case.
#[derive(Debug, thiserror::Error)]
pub enum TermsEditError {
    /// The operation itself is invalid (empty text or lang, a concept id that is not
    /// kebab-case, or a change that would leave the file invalid).
    #[error("{path}: cannot record the term: {problem}; {fix}")]
    Invalid {
        path: String,
        problem: String,
        fix: String,
    },
    /// The existing file does not parse or validate.
    #[error(
        "{source}\n{path}: fix the terms file first, then record the term again; nothing was written"
    )]
    Parse {
        path: String,
        #[source]
        source: GovernanceError,
    },
    /// The file's layout cannot be edited in place (flow style, anchors, …).
    #[error(
        "{path}: cannot edit the file in place ({reason}); nothing was written: add the term by hand, or rewrite the file in block style (one `key: value` per line)"
    )]
    Layout { path: String, reason: String },
}

impl TermsEditError {
    fn invalid(path: &str, problem: impl Into<String>, fix: impl Into<String>) -> Self {
        TermsEditError::Invalid {
            path: path.to_owned(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    fn layout(path: &str, reason: impl Into<String>) -> Self {
        TermsEditError::Layout {
            path: path.to_owned(),
            reason: reason.into(),
        }
    }
}

impl Hint for TermsEditError {
    fn hints(&self) -> Vec<String> {
        match self {
            TermsEditError::Invalid { fix, .. } => vec![fix.clone()],
            TermsEditError::Parse { path, source } => {
                let mut hints = source.hints();
                hints.push(format!("fix `{path}`, then record the term again"));
                hints
            }
            TermsEditError::Layout { path, .. } => vec![format!(
                "add the term to `{path}` by hand, or rewrite the file in block style (one `key: value` per line, no anchors) and try again"
            )],
        }
    }
}

/// Adds or updates one term in a terms file's text. `text` is the current file (`None` when it
/// does not exist yet); `path` is how errors name it. Returns the new file text (equal to the
/// input when `Unchanged`) and what happened.
pub fn upsert(
    text: Option<&str>,
    path: &str,
    op: &TermUpsert,
) -> Result<(String, Upserted), TermsEditError> {
    let want = Want::from_op(op, path)?;
    let existing = text.filter(|t| !t.trim().is_empty());
    let original = match existing {
        Some(t) => TermsFile::parse(t, path).map_err(|source| TermsEditError::Parse {
            path: path.to_owned(),
            source,
        })?,
        None => TermsFile {
            version: "v1".to_owned(),
            concepts: Vec::new(),
        },
    };
    let target = resolve(&original, &want);
    let mut expected = original.clone();
    let concept = apply(&mut expected, &target, &want);
    if expected == original {
        let unchanged = text.unwrap_or_default().to_owned();
        return Ok((unchanged, Upserted::Unchanged { concept }));
    }
    let problems = expected.validate();
    if let Some(first) = problems.first() {
        let problem = problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        let fix = first
            .hint
            .clone()
            .unwrap_or_else(|| "change the term so the file stays valid".to_owned());
        return Err(TermsEditError::invalid(path, problem, fix));
    }
    let edited = match existing {
        None => Ok(new_file(&expected)),
        Some(t) => edit(t, &original, &target, &expected),
    }
    .map_err(|reason| TermsEditError::layout(path, reason))?;
    match TermsFile::parse(&edited, path) {
        Ok(back) if back == expected => {}
        _ => {
            return Err(TermsEditError::layout(
                path,
                "the edited text would not read back as the intended terms",
            ));
        }
    }
    let outcome = match target {
        Target::Update { .. } => Upserted::Updated { concept },
        Target::Add { .. } => Upserted::Added { concept },
        Target::NewConcept { .. } => Upserted::NewConcept { concept },
    };
    Ok((edited, outcome))
}

// ---------------------------------------------------------------------------------------------
// The change, on the parsed file.

/// The operation, checked and trimmed. `Some(None)` clears a field.
struct Want {
    text: String,
    lang: String,
    status: TermStatus,
    concept: Option<String>,
    replaces: Option<String>,
    replacement: Option<Option<String>>,
    note: Option<Option<String>>,
    case: Option<CaseMode>,
    severity: Option<Severity>,
    definition: Option<String>,
}

impl Want {
    fn from_op(op: &TermUpsert, path: &str) -> Result<Want, TermsEditError> {
        let text = op.text.trim();
        if text.is_empty() {
            return Err(TermsEditError::invalid(
                path,
                "the term's `text` is empty",
                "give the term its text",
            ));
        }
        let lang = op.lang.trim();
        if lang.is_empty() {
            return Err(TermsEditError::invalid(
                path,
                "the term's `lang` is empty",
                "give the term a BCP 47 `lang` such as `en` or `en-GB`",
            ));
        }
        if !lang
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(TermsEditError::invalid(
                path,
                format!("`{lang}` is not a language tag"),
                "give the term a BCP 47 `lang` such as `en` or `en-GB`",
            ));
        }
        let concept = match op.concept.as_deref().map(str::trim) {
            Some(id) if !is_slug(id) => {
                return Err(TermsEditError::invalid(
                    path,
                    format!("concept id `{id}` is not kebab-case"),
                    "write the concept id in lower-case letters, digits and hyphens, such as `sign-in`",
                ));
            }
            other => other.map(str::to_owned),
        };
        let present = |s: &Option<String>| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let clearable = |s: &Option<String>| {
            s.as_deref().map(|s| {
                let s = s.trim();
                (!s.is_empty()).then(|| s.to_owned())
            })
        };
        Ok(Want {
            text: text.to_owned(),
            lang: lang.to_owned(),
            status: op.status,
            concept,
            replaces: present(&op.replaces),
            replacement: clearable(&op.replacement),
            note: clearable(&op.note),
            case: op.case,
            severity: op.severity,
            definition: present(&op.definition),
        })
    }

    fn new_term(&self) -> Term {
        Term {
            text: self.text.clone(),
            lang: self.lang.clone(),
            status: self.status,
            case: self.case.unwrap_or_default(),
            note: self.note.clone().flatten(),
            replacement: self.replacement.clone().flatten(),
            severity: self.severity,
        }
    }
}

/// Where the term goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Update { concept: usize, term: usize },
    Add { concept: usize },
    NewConcept { id: String },
}

fn resolve(file: &TermsFile, want: &Want) -> Target {
    let lang = norm_lang(&want.lang);
    let same_lang: Vec<(usize, usize, &Term)> = file
        .concepts
        .iter()
        .enumerate()
        .flat_map(|(c, concept)| {
            concept
                .terms
                .iter()
                .enumerate()
                .map(move |(t, term)| (c, t, term))
        })
        .filter(|(_, _, t)| norm_lang(&t.lang) == lang)
        .collect();
    let exact = same_lang
        .iter()
        .find(|(_, _, t)| t.text.trim() == want.text);
    // A case-sensitive term only ever matches its own spelling.
    let alike = || {
        same_lang.iter().find(|(_, _, t)| {
            want.case != Some(CaseMode::Sensitive)
                && t.case == CaseMode::Insensitive
                && fold(&t.text) == fold(&want.text)
        })
    };
    if let Some(&(concept, term, _)) = exact.or_else(alike) {
        return Target::Update { concept, term };
    }
    if let Some(id) = &want.concept
        && let Some(concept) = file.concepts.iter().position(|c| &c.id == id)
    {
        return Target::Add { concept };
    }
    if let Some(replaces) = &want.replaces {
        let by_term = file
            .concepts
            .iter()
            .position(|c| c.terms.iter().any(|t| fold(&t.text) == fold(replaces)));
        let by_id = || file.concepts.iter().position(|c| &c.id == replaces);
        if let Some(concept) = by_term.or_else(by_id) {
            return Target::Add { concept };
        }
    }
    let id = match &want.concept {
        Some(id) => id.clone(),
        None => unique_id(file, &slug(&want.text)),
    };
    Target::NewConcept { id }
}

/// Applies the change to `file`; returns the concept's id.
fn apply(file: &mut TermsFile, target: &Target, want: &Want) -> String {
    match target {
        Target::Update { concept, term } => {
            let c = &mut file.concepts[*concept];
            let t = &mut c.terms[*term];
            t.status = want.status;
            if let Some(replacement) = &want.replacement {
                t.replacement.clone_from(replacement);
            }
            if let Some(note) = &want.note {
                t.note.clone_from(note);
            }
            if let Some(case) = want.case {
                t.case = case;
            }
            if want.severity.is_some() {
                t.severity = want.severity;
            }
            c.id.clone()
        }
        Target::Add { concept } => {
            let c = &mut file.concepts[*concept];
            c.terms.push(want.new_term());
            c.id.clone()
        }
        Target::NewConcept { id } => {
            file.concepts.push(Concept {
                id: id.clone(),
                definition: want.definition.clone(),
                terms: vec![want.new_term()],
                ..Concept::default()
            });
            id.clone()
        }
    }
}

fn norm_lang(lang: &str) -> String {
    lang.trim().replace('_', "-").to_ascii_lowercase()
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A kebab-case id from a term's text ([`crate::suggest::slug`]); `term` when nothing is left.
fn slug(text: &str) -> String {
    let slug = crate::suggest::slug(text);
    if slug.is_empty() {
        "term".to_owned()
    } else {
        slug
    }
}

fn unique_id(file: &TermsFile, base: &str) -> String {
    let taken = |id: &str| file.concepts.iter().any(|c| c.id == id);
    if !taken(base) {
        return base.to_owned();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken(id))
        .unwrap_or_else(|| base.to_owned())
}

// ---------------------------------------------------------------------------------------------
// The text.

/// The fields of a term item, in the order kapi writes them.
const FIELDS: [&str; 7] = [
    "text",
    "lang",
    "status",
    "case",
    "note",
    "replacement",
    "severity",
];

/// A term's field as written (`None` when absent).
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

/// The fields a new term is written with: `case` only when sensitive.
fn new_fields(term: &Term, flow: bool) -> Vec<String> {
    FIELDS
        .iter()
        .filter(|name| !(**name == "case" && term.case == CaseMode::Insensitive))
        .filter_map(|name| field(term, name).map(|v| format!("{name}: {}", scalar(&v, flow))))
        .collect()
}

/// The file as lines, each with its own line ending.
struct Doc<'a> {
    bom: &'a str,
    lines: Vec<(&'a str, &'a str)>,
    /// The ending new lines get: the file's first one, else `\n`.
    eol: &'static str,
}

/// Replace `lines[from..to]` with `lines` (an insertion when `from == to`).
struct Edit {
    from: usize,
    to: usize,
    lines: Vec<String>,
}

/// A list item: its first line and its last content line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

/// A list under a key (`concepts:`, `terms:`).
enum ListAt {
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
struct ConceptAt {
    /// Column of the item's `-`.
    dash: usize,
    /// Column of the concept's keys.
    key_col: usize,
    span: Span,
    terms: ListAt,
    term_items: Vec<ItemAt>,
}

/// One term item.
#[derive(Debug, Clone, Copy)]
struct ItemAt {
    span: Span,
    dash: usize,
    /// Column of the keys (of `{` for a flow mapping).
    key_col: usize,
    /// Written as one line `- {text: …, lang: …}`.
    flow: bool,
}

/// A `key: value` and the lines its value takes.
struct KeyAt<'a> {
    name: String,
    line: usize,
    /// Last content line of the value.
    end: usize,
    /// What follows the `:` on the key's line.
    value: &'a str,
}

/// Indentation offsets new items are written with.
struct Shape {
    /// Column of a concept item's `-`.
    dash: usize,
    /// From the concept's `-` to its keys.
    key_offset: usize,
    /// From the concept's keys to the `-` of its terms.
    terms_offset: usize,
    /// From a term's `-` to its keys.
    term_key_offset: usize,
    /// Concepts are separated by a blank line.
    blank_between: bool,
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

const ANCHORS: &str = "anchors, aliases and tags (`&`, `*`, `!`) are not edited in place";

impl<'a> Doc<'a> {
    fn new(text: &'a str) -> Self {
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

    fn body(&self, i: usize) -> &'a str {
        self.lines.get(i).map_or("", |l| l.0)
    }

    fn is_content(&self, i: usize) -> bool {
        let t = self.body(i).trim();
        !t.is_empty() && !t.starts_with('#')
    }

    /// The text with `edits` applied, every line ended.
    fn render(&self, mut edits: Vec<Edit>) -> Result<String, String> {
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
    fn concepts(&self) -> Result<ListAt, String> {
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
    fn concept(&self, span: Span) -> Result<ConceptAt, String> {
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
    fn key_col(&self, span: Span, after: usize, rest: &str) -> Result<usize, String> {
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
    fn keys(&self, span: Span, key_col: usize, inline: bool) -> Result<Vec<KeyAt<'a>>, String> {
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
    fn shape(&self, items: &[Span]) -> Shape {
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

/// The edited text of an existing file.
fn edit(
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
        let (was, now) = (field(old, name), field(new, name));
        if was == now {
            continue;
        }
        match (keys.iter().find(|k| k.name == name), now) {
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
                    lines: vec![format!(
                        "{prefix}{name}: {}{comment}",
                        scalar(&value, false)
                    )],
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
                appended.push(format!(
                    "{}{name}: {}",
                    " ".repeat(item.key_col),
                    scalar(&value, false)
                ));
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
        if let Some(value) = field(new, name) {
            parts.push(format!("{name}: {}", scalar(&value, true)));
        }
    }
    for name in FIELDS.iter().filter(|n| !written.contains(n)) {
        let now = field(new, name);
        if now == field(old, name) || (*name == "case" && new.case == CaseMode::Insensitive) {
            continue;
        }
        if let Some(value) = now {
            parts.push(format!("{name}: {}", scalar(&value, true)));
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
fn new_file(file: &TermsFile) -> String {
    let shape = Shape::default();
    let mut lines = vec![format!("version: {}", file.version), "concepts:".to_owned()];
    for concept in &file.concepts {
        lines.extend(concept_lines(concept, &shape));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

// ---------------------------------------------------------------------------------------------
// Line reading helpers.

fn indent(body: &str) -> usize {
    body.len() - body.trim_start_matches(' ').len()
}

/// `body` has a list item's `-` at column `col`.
fn is_dash(body: &str, col: usize) -> bool {
    body.get(col..)
        .and_then(|s| s.strip_prefix('-'))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// The column after `- ` and what follows it.
fn dash_rest(body: &str, dash: usize) -> (usize, &str) {
    let after = body.get(dash + 1..).unwrap_or_default();
    let rest = after.trim_start_matches([' ', '\t']);
    (body.len() - rest.len(), rest)
}

fn is_marker(body: &str, marker: &str) -> bool {
    body.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

fn rest_is_blank(rest: &str) -> bool {
    let t = rest.trim();
    t.is_empty() || t.starts_with('#')
}

/// The key at column `col` and the text after its `:`.
fn key_at(body: &str, col: usize) -> Option<(String, &str)> {
    let s = body.get(col..)?;
    let after_colon = |rest: &'_ str| -> bool { rest.is_empty() || rest.starts_with([' ', '\t']) };
    if let Some(quote) = s.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &s[1..];
        let end = inner.find(quote)?;
        let key = &inner[..end];
        let rest = inner[end + 1..].strip_prefix(':')?;
        if key.contains('\\') || !after_colon(rest) {
            return None;
        }
        return Some((key.to_owned(), rest));
    }
    for (i, c) in s.char_indices() {
        if c == ':' {
            let rest = &s[i + 1..];
            if !after_colon(rest) {
                return None;
            }
            let key = &s[..i];
            let ok = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            return ok.then(|| (key.to_owned(), rest));
        }
        if !(c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return None;
        }
    }
    None
}

/// Refuses values this editor does not follow: anchors, aliases and tags.
fn check_value(value: &str, line: usize) -> Result<(), String> {
    if value.trim_start().starts_with(['&', '*', '!']) {
        return Err(format!("line {line}: {ANCHORS}"));
    }
    Ok(())
}

/// Splits the text after a `key:` into the value and a trailing comment (with the blanks
/// before its `#`). A quoted value that does not end on its line has no comment.
fn split_comment(rest: &str) -> (&str, &str) {
    let bytes = rest.as_bytes();
    let start = rest.len() - rest.trim_start().len();
    let mut i = start;
    match bytes.get(i) {
        Some(b'"') => {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return (rest.trim(), ""),
                    Some(b'\\') => i += 2,
                    Some(b'"') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        }
        Some(b'\'') => {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return (rest.trim(), ""),
                    Some(b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                    Some(b'\'') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        }
        _ => {}
    }
    for j in i..bytes.len() {
        if bytes[j] == b'#' && (j == start || matches!(bytes[j - 1], b' ' | b'\t')) {
            let mut c = j;
            while c > 0 && matches!(bytes[c - 1], b' ' | b'\t') {
                c -= 1;
            }
            return (rest[..c].trim(), &rest[c..]);
        }
    }
    (rest.trim(), "")
}

#[cfg(test)]
mod tests;
