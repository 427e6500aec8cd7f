//! Edits the text of a terms file (`.kapi/terms.yaml`) to add or update one term while keeping
//! the person's formatting and comments: only the lines that must change are written, and the
//! result is read back and compared with the intended file before it is returned.

mod layout;
mod lines;
mod plan;
mod write;

use serde::{Deserialize, Serialize};

use super::terms::{CaseMode, TermsFile};
use super::{GovernanceError, Severity, TermStatus};
use crate::error::Hint;
use plan::{Target, Want, apply, resolve};
use write::{edit, new_file};

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
    /// Phrases in which the term is allowed; set when given (the whole list), an empty list
    /// removes the field. Left out, the term's exceptions stay as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exceptions: Option<Vec<String>>,
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

#[cfg(test)]
mod tests;
