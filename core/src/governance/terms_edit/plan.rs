//! What an upsert changes in the parsed terms file: the operation checked and trimmed
//! ([`Want`]), where the term goes ([`Target`]: an update, an addition, a new concept), and
//! that change applied to the file's model.

use super::TermUpsert;
use super::TermsEditError;
use crate::governance::terms::{CaseMode, Concept, Term, TermsFile};
use crate::governance::{Severity, TermStatus};
use crate::suggest::is_slug;

/// The operation, checked and trimmed. `Some(None)` clears a field.
pub(super) struct Want {
    text: String,
    lang: String,
    status: TermStatus,
    concept: Option<String>,
    replaces: Option<String>,
    replacement: Option<Option<String>>,
    note: Option<Option<String>>,
    case: Option<CaseMode>,
    severity: Option<Severity>,
    exceptions: Option<Vec<String>>,
    definition: Option<String>,
}

impl Want {
    pub(super) fn from_op(op: &TermUpsert, path: &str) -> Result<Want, TermsEditError> {
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
            exceptions: op
                .exceptions
                .as_ref()
                .map(|list| list.iter().map(|e| e.trim().to_owned()).collect()),
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
            exceptions: self.exceptions.clone().unwrap_or_default(),
        }
    }
}

/// Where the term goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    Update { concept: usize, term: usize },
    Add { concept: usize },
    NewConcept { id: String },
}

pub(super) fn resolve(file: &TermsFile, want: &Want) -> Target {
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
pub(super) fn apply(file: &mut TermsFile, target: &Target, want: &Want) -> String {
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
            if let Some(exceptions) = &want.exceptions {
                t.exceptions.clone_from(exceptions);
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
pub(super) fn slug(text: &str) -> String {
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
