//! A rule's `scope`: which pieces of a document it runs on, checked and matched as Vale
//! does (`internal/check/scope.go`).
//!
//! A scope is a list of alternatives; each alternative is parts joined by `&`, each part a
//! dotted selector (`heading.h1`, `table.cell`), negated by a leading `~`. A part matches a
//! piece of text when all its sections are among the piece's sections (`heading` matches
//! `text.heading.h2.md`); a negated part matches when they are not, and never matches `raw`
//! or `summary`. Vale no longer accepts the inline scopes `code`, `link`, `strong` and
//! `emphasis` (it asks for `raw`), and neither does this.

use super::RuleError;

/// The first sections Vale accepts.
/// (`figure.caption` is in Vale's list, but its check reads the first section only, so
/// Vale rejects it: so does this.)
const ALLOWED: [&str; 11] = [
    "text",
    "heading",
    "table",
    "list",
    "paragraph",
    "sentence",
    "alt",
    "title",
    "blockquote",
    "summary",
    "raw",
];

const INLINE: [&str; 4] = ["code", "link", "strong", "emphasis"];

/// Vale's `checkScopes`: an error for a scope it would reject.
pub(crate) fn check(file: &str, scopes: &[String]) -> Result<(), RuleError> {
    for scope in scopes {
        if scope.contains('&') {
            continue;
        }
        let base = scope.trim_start_matches('~');
        let first = base.split('.').next().unwrap_or_default();
        let reason = if INLINE.contains(&first) {
            format!("scope '{first}' is no longer supported; use 'raw' instead")
        } else if !ALLOWED.contains(&first) {
            format!("not a valid scope; must be one of {}", ALLOWED.join(", "))
        } else {
            continue;
        };
        return Err(RuleError::Scope {
            file: file.to_owned(),
            scope: scope.clone(),
            reason,
        });
    }
    Ok(())
}

#[derive(Debug, Clone)]
struct Part {
    sections: Vec<String>,
    negated: bool,
}

/// A rule's scopes, ready to match.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    alternatives: Vec<Vec<Part>>,
}

impl Scope {
    pub(crate) fn new(scopes: &[String]) -> Self {
        let alternatives = scopes
            .iter()
            .map(|alt| {
                alt.split('&')
                    .map(|part| {
                        let part = part.trim();
                        let negated = part.starts_with('~');
                        let sections = part
                            .trim_start_matches('~')
                            .split('.')
                            .map(|s| s.trim().to_owned())
                            .collect();
                        Part { sections, negated }
                    })
                    .collect()
            })
            .collect();
        Self { alternatives }
    }

    /// Whether a piece of text with these sections (`["text", "heading", "h1", "md"]`) is in
    /// scope.
    pub(crate) fn matches(&self, target: &[&str]) -> bool {
        let contains = |part: &Part| part.sections.iter().all(|s| target.contains(&s.as_str()));
        self.alternatives.iter().any(|parts| {
            parts.iter().all(|part| {
                let has = contains(part);
                if part.negated && !has {
                    !(target.contains(&"raw") || target.contains(&"summary"))
                } else {
                    part.negated != has
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(s: &[&str]) -> Scope {
        Scope::new(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn selectors_match_as_vales() {
        let h = ["text", "heading", "h2", "md"];
        assert!(scope(&["heading"]).matches(&h));
        assert!(scope(&["heading.h2"]).matches(&h));
        assert!(!scope(&["heading.h1"]).matches(&h));
        assert!(scope(&["text"]).matches(&h));
        assert!(!scope(&["sentence"]).matches(&h));
        assert!(scope(&["~heading"]).matches(&["sentence", "md"]));
        assert!(!scope(&["~heading"]).matches(&h));
        assert!(!scope(&["~heading"]).matches(&["raw", "md"]));
        assert!(scope(&["text.md"]).matches(&["text", "md"]));
        assert!(!scope(&["text.md"]).matches(&["text", "rst"]));
        assert!(scope(&["sentence", "heading"]).matches(&h));
        assert!(scope(&["text&~list"]).matches(&h));
        assert!(!scope(&["text&~list"]).matches(&["text", "list", "md"]));
    }

    #[test]
    fn inline_and_unknown_scopes_are_errors() {
        let s = |v: &str| vec![v.to_owned()];
        assert!(check("f", &s("code")).is_err());
        assert!(check("f", &s("bogus")).is_err());
        assert!(check("f", &s("~table.cell")).is_ok());
        assert!(check("f", &s("heading.h3")).is_ok());
    }
}
