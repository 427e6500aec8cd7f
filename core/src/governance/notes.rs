//! Kept context notes (`.kapi/notes.yaml`): what a person kept from the suggestions assistants
//! recorded, each scoped to a path (a note applies there and below). kapi writes the file on
//! review; the brief, the rules files and `kapi context search` read it.
//!
//! ```yaml
//! version: v1
//! notes:
//!   - id: n3
//!     path: help
//!     from: Workspace
//!     to: Space
//!     kept_by: person:ana
//!     kept_at: "2026-11-29T10:00:00Z"
//! ```

use serde::{Deserialize, Serialize};

use super::error::{self, GovernanceError, Problem};

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotesFile {
    /// Exactly `v1`.
    pub version: String,
    #[serde(default)]
    pub notes: Vec<KeptNote>,
}

/// One kept note: an observation (`text`) or a person's change (`from` → `to`, with the form
/// it proposes in `suggest`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptNote {
    /// `n` and the suggestion's number (`n3`).
    pub id: String,
    /// Project-relative folder or file, `/`-separated, no trailing slash; empty for the root.
    #[serde(default)]
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_at: Option<String>,
}

/// A path as notes store it: `/`-separated, no `./`, no leading or trailing slash; the root is
/// empty.
pub fn normal_path(path: &str) -> String {
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    parts.join("/")
}

/// Whether a note at `scope` applies to `path` (there or below).
pub fn applies(scope: &str, path: &str) -> bool {
    let scope = normal_path(scope);
    let path = normal_path(path);
    scope.is_empty()
        || path == scope
        || (path.len() > scope.len()
            && path.starts_with(&scope)
            && path.as_bytes()[scope.len()] == b'/')
}

impl KeptNote {
    /// The form a change note proposes: `suggest`, else `to`.
    pub fn preferred(&self) -> Option<&str> {
        self.suggest.as_deref().or(self.to.as_deref())
    }

    /// The rule as a rules file and the brief state it where the note applies.
    pub fn rule_line(&self) -> String {
        match (&self.from, self.preferred(), &self.text) {
            (Some(from), Some(to), text) => {
                let mut line = format!("Write \"{to}\", not \"{from}\".");
                if let Some(t) = text {
                    line.push(' ');
                    line.push_str(t.trim());
                }
                line
            }
            (_, _, Some(text)) => text.trim().to_owned(),
            (Some(from), None, None) => {
                format!("\"{from}\" was changed here; ask before writing it.")
            }
            (None, Some(to), None) => format!("Write \"{to}\"."),
            (None, None, None) => String::new(),
        }
    }

    /// For a rename held to one folder: the line elsewhere, that the old wording stays.
    pub fn stays_line(&self) -> Option<String> {
        let (from, to) = (self.from.as_deref()?, self.preferred()?);
        Some(format!(
            "\"{from}\" is correct here; do not rename it to \"{to}\"."
        ))
    }
}

impl NotesFile {
    /// Parses and validates a notes file; `path` is how errors name it.
    pub fn parse(text: &str, path: &str) -> Result<NotesFile, GovernanceError> {
        error::parse_validated(text, path, NotesFile::validate)
    }

    /// Every problem: the version, a note with no id or nothing to say, a repeated id.
    pub fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        problems.extend(error::version_problem(&self.version));
        let mut seen = std::collections::HashSet::new();
        for (i, note) in self.notes.iter().enumerate() {
            let at = format!("notes[{i}]");
            if note.id.trim().is_empty() {
                problems.push(Problem::new(format!("{at}.id"), "must not be empty"));
            } else if !seen.insert(note.id.as_str()) {
                problems.push(Problem::new(
                    format!("{at}.id"),
                    format!("duplicate note id `{}`", note.id),
                ));
            }
            if note.rule_line().is_empty() {
                problems.push(
                    Problem::new(at, "says nothing")
                        .with_hint("give the note a `text`, or `from` and `to`"),
                );
            }
        }
        problems
    }

    /// The file's text, as kapi writes it.
    pub fn to_text(&self) -> String {
        let body = serde_yaml::to_string(self).unwrap_or_default();
        format!(
            "# Context notes a person kept (`kapi context review`); each applies at its path and below.\n{body}"
        )
    }

    /// The notes that apply at `path`, root first.
    pub fn for_path<'a>(&'a self, path: &str) -> Vec<&'a KeptNote> {
        let mut out: Vec<&KeptNote> = self
            .notes
            .iter()
            .filter(|n| applies(&n.path, path))
            .collect();
        out.sort_by_key(|n| n.path.matches('/').count() + usize::from(!n.path.is_empty()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_applies_there_and_below_only() {
        assert!(applies("", "docs/a.md"));
        assert!(applies("help", "help"));
        assert!(applies("help/", "./help/a.md"));
        assert!(!applies("help", "helpers/a.md"));
        assert!(!applies("help/a.md", "help"));
    }

    #[test]
    fn lines_and_round_trip() {
        let rename = KeptNote {
            id: "n1".into(),
            path: "help".into(),
            from: Some("Workspace".into()),
            to: Some("Space".into()),
            ..KeptNote::default()
        };
        assert_eq!(rename.rule_line(), "Write \"Space\", not \"Workspace\".");
        assert_eq!(
            rename.stays_line().unwrap(),
            "\"Workspace\" is correct here; do not rename it to \"Space\"."
        );
        let file = NotesFile {
            version: "v1".into(),
            notes: vec![rename],
        };
        let text = file.to_text();
        assert_eq!(NotesFile::parse(&text, "notes.yaml").unwrap(), file);
        assert!(NotesFile::parse("version: v1\nnotes:\n  - id: n1\n", "n").is_err());
    }
}
