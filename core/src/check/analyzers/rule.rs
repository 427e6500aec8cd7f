//! Rules: each declared once with its id, default severity and explanation (its doc comment),
//! so `kapi help rules` and rustdoc print the same text.

use std::ops::Range;

use crate::check::Hit;
use crate::governance::Severity;

/// A rule an analyzer reports under.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// `analyzer.kebab-name`.
    pub id: &'static str,
    pub severity: Severity,
    /// What it flags, why it matters, an example: markdown.
    pub explanation: &'static str,
}

impl Rule {
    /// The analyzer the rule belongs to (`terms` for `terms.forbidden`).
    pub fn analyzer(&self) -> &'static str {
        self.id
            .split_once('.')
            .map_or(self.id, |(analyzer, _)| analyzer)
    }

    /// The explanation as markdown, with the one space `///` leaves on each line removed.
    pub fn help(&self) -> String {
        let mut out = String::with_capacity(self.explanation.len());
        for line in self.explanation.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }

    /// A hit under this rule at its default severity, with no suggestion.
    pub fn hit(&'static self, range: Range<usize>, message: impl Into<String>) -> Hit {
        Hit {
            rule: self,
            severity: self.severity,
            range,
            message: message.into(),
            suggestion: None,
            suppressed_by: None,
        }
    }

    /// The first paragraph under `## What it flags`, on one line: what the rule flags.
    pub fn summary(&self) -> String {
        let mut lines = self.explanation.lines().map(str::trim);
        for line in lines.by_ref() {
            if line.eq_ignore_ascii_case("## What it flags") {
                break;
            }
        }
        let mut summary = String::new();
        for line in lines.skip_while(|line| line.is_empty()) {
            if line.is_empty() || line.starts_with('#') {
                break;
            }
            if !summary.is_empty() {
                summary.push(' ');
            }
            summary.push_str(line);
        }
        if summary.is_empty() {
            summary.push_str(self.id);
        }
        summary
    }
}

/// Declares a `Rule` whose explanation (printed by `kapi help`) is its own doc comment.
/// Each captured line keeps the space after `///`; [`Rule::help`] strips one.
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])* $vis:vis $name:ident = $id:literal, $severity:expr) => {
        $(#[doc = $doc])*
        $vis static $name: $crate::check::Rule = $crate::check::Rule {
            id: $id,
            severity: $severity,
            explanation: concat!($($doc, "\n"),*),
        };
    };
}
pub(crate) use declare_rule;

use super::{hygiene, terms, voice};

static ALL: &[&Rule] = &[
    &hygiene::REPEATED_WORD,
    &hygiene::DOUBLED_SPACE,
    &hygiene::UNBALANCED_BRACKET,
    &hygiene::UNBALANCED_QUOTE,
    &terms::FORBIDDEN,
    &terms::COMPETITOR,
    &terms::DEPRECATED,
    &terms::CASE,
    &voice::PROHIBITED_PATTERN,
    &voice::REQUIRED_PATTERN,
    &voice::SENTENCE_TOO_LONG,
    &voice::PARAGRAPH_TOO_LONG,
    &super::placeholders::MISSING,
    &super::placeholders::EXTRA,
    &super::placeholders::TAGS,
    &super::plurals::MISSING,
    &super::plurals::EXTRA,
    &super::plurals::HEADER,
    &super::translation_terms::MISSING,
    &super::translation_terms::AVOID,
    &super::functional::NEWLINES,
    &super::functional::ESCAPES,
    &super::functional::NUMBERS,
    &super::functional::URLS,
    &super::functional::EMAILS,
    &super::functional::ACCELERATORS,
    &super::functional::BRACKETS,
    &super::functional::START_WHITESPACE,
    &super::functional::END_WHITESPACE,
    &super::functional::START_PUNCTUATION,
    &super::functional::END_PUNCTUATION,
    &super::functional::DOUBLE_SPACE,
    &super::functional::TOO_LONG,
    &super::functional::TOO_SHORT,
    &super::unchanged::UNCHANGED,
    &crate::check::suppress::UNUSED_DIRECTIVE,
    &crate::check::unreadable::UNREADABLE,
];

/// Every rule, grouped by analyzer in the order the analyzers run.
pub fn all() -> &'static [&'static Rule] {
    ALL
}

/// The rule with this id (`terms.forbidden`).
pub fn find(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|rule| rule.id == id)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::check::ANALYZERS;

    fn is_kebab(s: &str) -> bool {
        !s.is_empty()
            && !s.starts_with('-')
            && !s.ends_with('-')
            && !s.contains("--")
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    }

    #[test]
    fn rule_ids_are_unique_and_name_a_known_analyzer() {
        let mut seen = HashSet::new();
        for rule in all() {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            let (analyzer, name) = rule.id.split_once('.').unwrap_or(("", ""));
            assert!(
                ANALYZERS.contains(&analyzer),
                "{}: unknown analyzer",
                rule.id
            );
            assert!(is_kebab(name), "{}: not `analyzer.kebab-name`", rule.id);
            assert_eq!(rule.analyzer(), analyzer);
        }
    }

    #[test]
    fn every_explanation_has_the_three_sections() {
        for rule in all() {
            let help = rule.help();
            let flags = help.find("## What it flags\n");
            let why = help.find("## Why it matters\n");
            let example = help.find("## Example\n");
            assert!(
                matches!((flags, why, example), (Some(a), Some(b), Some(c)) if a < b && b < c),
                "{}: explanation needs What it flags / Why it matters / Example, in order",
                rule.id
            );
            let example_text = help.get(example.unwrap_or_default()..).unwrap_or_default();
            assert!(
                example_text.contains("Use instead"),
                "{}: the example needs a `Use instead`",
                rule.id
            );
            assert_ne!(
                rule.summary(),
                rule.id,
                "{}: `What it flags` is empty",
                rule.id
            );
        }
    }

    #[test]
    fn find_returns_the_declared_rule() {
        assert_eq!(
            find("terms.forbidden").map(|r| r.severity),
            Some(Severity::Major)
        );
        assert_eq!(
            find("hygiene.doubled-space")
                .map(|r| r.summary())
                .as_deref(),
            Some(
                "Two or more spaces between words inside a line. Indentation, spaces before a line \
                 break and spaces next to a code are left alone."
            )
        );
        assert!(find("terms.nope").is_none());
    }

    #[test]
    fn help_strips_the_doc_comment_space() {
        let help = hygiene::REPEATED_WORD.help();
        assert!(help.starts_with("## What it flags\n"), "{help}");
    }
}
