//! Rules: each declared once with its id, default severity and explanation (its doc comment),
//! so `kapi help rules` and rustdoc print the same text.

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
