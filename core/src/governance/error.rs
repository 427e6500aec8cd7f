//! Errors from reading voice and terms files: each names the file, the line and column when
//! known, and the field path, and offers its fix through `Hint`.

use std::fmt;

use crate::error::Hint;
use crate::suggest::closest;
use crate::yaml_text::Outline;

/// One problem in a governance file, located by its field path (`style.prohibited_patterns[0].regex`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field path; empty for the document itself.
    pub field: String,
    pub message: String,
    /// 1-based line and column of the field, when it could be found.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The fix, as an imperative without a full stop.
    pub hint: Option<String>,
}

impl Problem {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            field: field.into(),
            message: message.into(),
            line: None,
            column: None,
            hint: None,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Renders `FILE:LINE:COL: FIELD: MESSAGE` (location parts omitted when unknown).
    pub fn render(&self, file: &str) -> String {
        let mut out = file.to_owned();
        if let Some(line) = self.line {
            out.push_str(&format!(":{line}"));
            if let Some(column) = self.column {
                out.push_str(&format!(":{column}"));
            }
        }
        out.push_str(": ");
        if !self.field.is_empty() {
            out.push_str(&self.field);
            out.push_str(": ");
        }
        out.push_str(&self.message);
        out
    }
}

/// Why governance could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum GovernanceError {
    /// A voice or terms file the project names does not exist.
    #[error("{file}: file not found")]
    NotFound {
        file: String,
        /// The recipe field that names it (`defaults.voice`), when known.
        field: Option<String>,
    },
    /// The file exists but could not be read (permissions, not UTF-8…).
    #[error("{file}: cannot read the file")]
    Unreadable {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The file is not well-formed YAML.
    #[error("{}", location(file, *line, *column, message))]
    Syntax {
        file: String,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    /// The file is YAML but breaks the schema: every problem found, each with its field path.
    #[error("{}", render_problems(file, problems))]
    Invalid {
        file: String,
        problems: Vec<Problem>,
    },
}

fn location(file: &str, line: Option<usize>, column: Option<usize>, message: &str) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}: {message}"),
        (Some(l), None) => format!("{file}:{l}: {message}"),
        _ => format!("{file}: {message}"),
    }
}

fn render_problems(file: &str, problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.render(file)).collect();
    lines.join("\n")
}

impl GovernanceError {
    /// The file the error is about, as the caller named it.
    pub fn file(&self) -> &str {
        match self {
            GovernanceError::NotFound { file, .. }
            | GovernanceError::Unreadable { file, .. }
            | GovernanceError::Syntax { file, .. }
            | GovernanceError::Invalid { file, .. } => file,
        }
    }

    /// The problems of an `Invalid` error (empty otherwise).
    pub fn problems(&self) -> &[Problem] {
        match self {
            GovernanceError::Invalid { problems, .. } => problems,
            _ => &[],
        }
    }
}

impl Hint for GovernanceError {
    fn hints(&self) -> Vec<String> {
        match self {
            GovernanceError::NotFound {
                file,
                field: Some(field),
            } => {
                vec![format!(
                    "create `{file}`, or change `{field}` in `kapi.yaml`"
                )]
            }
            GovernanceError::NotFound { file, field: None } => {
                vec![format!("create `{file}`, or stop naming it in `kapi.yaml`")]
            }
            GovernanceError::Unreadable { .. } => Vec::new(),
            GovernanceError::Syntax {
                line: Some(line), ..
            } => {
                vec![format!(
                    "check the indentation and quoting on line {line} and the line before it"
                )]
            }
            GovernanceError::Syntax { .. } => vec!["check that the file is valid YAML".to_owned()],
            GovernanceError::Invalid { problems, .. } => {
                let mut hints: Vec<String> = Vec::new();
                for hint in problems.iter().filter_map(|p| p.hint.clone()) {
                    if !hints.contains(&hint) {
                        hints.push(hint);
                    }
                }
                hints
            }
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

/// Turns a YAML decoding error into a `GovernanceError`: schema errors (unknown field, missing
/// field, bad value) become an `Invalid` problem with its field path; the rest are `Syntax`.
/// Decodes a governance file and validates it: YAML errors carry the parser's position, and
/// every validation problem is located by its field path in `text`.
pub(crate) fn parse_validated<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &str,
    validate: impl FnOnce(&T) -> Vec<Problem>,
) -> Result<T, GovernanceError> {
    let value: T = serde_yaml::from_str(text).map_err(|e| from_yaml(path, &e))?;
    let mut problems = validate(&value);
    if problems.is_empty() {
        return Ok(value);
    }
    let outline = Outline::new(text);
    for p in &mut problems {
        if let Some((line, column)) = outline.locate_nearest(&p.field) {
            p.line = Some(line);
            p.column = Some(column);
        }
    }
    Err(GovernanceError::Invalid {
        file: path.to_owned(),
        problems,
    })
}

pub(crate) fn from_yaml(file: &str, err: &serde_yaml::Error) -> GovernanceError {
    let loc = err.location();
    let (line, column) = match &loc {
        Some(l) => (Some(l.line()), Some(l.column())),
        None => (None, None),
    };
    let mut text = err.to_string();
    if let Some(l) = &loc {
        let suffix = format!(" at line {} column {}", l.line(), l.column());
        if let Some(stripped) = text.strip_suffix(&suffix) {
            text = stripped.to_owned();
        }
    }
    match schema_problem(&text) {
        Some(mut problem) => {
            problem.line = line;
            problem.column = column;
            GovernanceError::Invalid {
                file: file.to_owned(),
                problems: vec![problem],
            }
        }
        None => GovernanceError::Syntax {
            file: file.to_owned(),
            line,
            column,
            message: text,
        },
    }
}

const SERDE_PHRASES: [&str; 7] = [
    "unknown field",
    "missing field",
    "unknown variant",
    "invalid type",
    "invalid value",
    "invalid length",
    "duplicate field",
];

/// Reads `PATH: MESSAGE` (or a bare `MESSAGE` at the root) from a serde message.
fn schema_problem(text: &str) -> Option<Problem> {
    let (path, message) = if SERDE_PHRASES.iter().any(|p| text.starts_with(p)) {
        ("", text)
    } else {
        let (path, rest) = text.split_once(": ")?;
        if !SERDE_PHRASES.iter().any(|p| rest.starts_with(p)) {
            return None;
        }
        (path, rest)
    };
    let quoted = backticked(message);
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    if message.starts_with("unknown field") {
        let name = quoted.first().cloned().unwrap_or_default();
        let expected = &quoted[1.min(quoted.len())..];
        let mut problem = Problem::new(join(&name), "unknown field");
        if let Some(best) = closest(&name, expected) {
            problem = problem.with_hint(format!("did you mean `{best}`?"));
        } else if !expected.is_empty() {
            problem = problem.with_hint(format!("use one of {}", list(expected)));
        }
        return Some(problem);
    }
    if message.starts_with("missing field") {
        let name = quoted.first().cloned().unwrap_or_default();
        return Some(
            Problem::new(join(&name), "required field is missing")
                .with_hint(format!("add `{name}`")),
        );
    }
    if message.starts_with("unknown variant") {
        let value = quoted.first().cloned().unwrap_or_default();
        let expected = &quoted[1.min(quoted.len())..];
        let mut problem = Problem::new(path, format!("unknown value `{value}`"));
        if !expected.is_empty() {
            let hint = match closest(&value, expected) {
                Some(best) => format!("did you mean `{best}`? valid values: {}", list(expected)),
                None => format!("use one of {}", list(expected)),
            };
            problem = problem.with_hint(hint);
        }
        return Some(problem);
    }
    Some(Problem::new(path, message))
}

fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

pub(crate) fn list(values: &[impl AsRef<str>]) -> String {
    values
        .iter()
        .map(|v| format!("`{}`", v.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The problem with a governance file's `version` (notes, terms) when it is not `v1`, the
/// only version this kapi reads; none when it is.
pub(crate) fn version_problem(version: &str) -> Option<Problem> {
    (version != "v1").then(|| {
        Problem::new("version", format!("unsupported version `{version}`"))
            .with_hint("set `version: v1`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_v1_is_a_version_without_a_problem() {
        assert_eq!(version_problem("v1"), None);
        let p = version_problem("v2").unwrap();
        assert_eq!(
            (p.field.as_str(), p.message.as_str(), p.hint.as_deref()),
            (
                "version",
                "unsupported version `v2`",
                Some("set `version: v1`")
            )
        );
    }

    #[test]
    fn invalid_error_renders_location_first() {
        let mut p = Problem::new(
            "style.prohibited_patterns[0].regex",
            "invalid regex: unclosed group",
        );
        p.line = Some(12);
        p.column = Some(7);
        let err = GovernanceError::Invalid {
            file: ".kapi/voice.yaml".into(),
            problems: vec![p],
        };
        assert_eq!(
            err.to_string(),
            ".kapi/voice.yaml:12:7: style.prohibited_patterns[0].regex: invalid regex: unclosed group"
        );
    }
}
