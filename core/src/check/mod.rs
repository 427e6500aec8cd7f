//! Checks: the deterministic analyzers (one per file), their findings, the score and the gate.
//! `check_document` runs every analyzer over one read document under the governance in force.

pub mod github;
pub mod hygiene;
pub mod report;
pub mod rule;
pub mod sarif;
pub mod terms;
pub mod voice;

use std::collections::HashSet;
use std::ops::Range;

use serde::Serialize;

use crate::governance::{Governance, Severity};
use crate::model::Document;

pub use report::{CheckReport, Coverage, FailOn, Gate, GateResult, Summary, Target};
pub use rule::Rule;

/// The analyzers `kapi check` runs, in order.
pub const ANALYZERS: &[&str] = &["hygiene", "terms", "voice"];

/// What an analyzer found in one block's prose, in offsets of the prose view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: &'static Rule,
    pub severity: Severity,
    /// Byte range in [`crate::text::Prose::text`].
    pub range: Range<usize>,
    pub message: String,
    pub suggestion: Option<String>,
}

/// One finding, located in its file. Field names are the `kapi.check/v1` contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable rule id, `analyzer.kebab-name` (`terms.forbidden`).
    pub rule: String,
    pub severity: Severity,
    /// The file, as the report names it (relative to the working directory or project).
    pub path: String,
    /// 1-based line and column (characters) of the start; 0 for a finding with no location.
    pub line: usize,
    pub column: usize,
    /// Byte range in the file.
    pub start: usize,
    pub end: usize,
    /// The block key, when the finding sits in one block.
    pub block: Option<String>,
    pub message: String,
    /// The text that matched, as written.
    pub matched: Option<String>,
    pub suggestion: Option<String>,
}

/// One document to check.
pub struct CheckInput<'a> {
    /// The path findings carry.
    pub path: &'a str,
    /// The file's text (for line and column).
    pub text: &'a str,
    pub document: &'a Document,
    pub governance: &'a Governance,
    /// When set, only these block keys are checked (`--diff-against`).
    pub only_blocks: Option<&'a HashSet<String>>,
}

/// Runs every analyzer over a document, returning findings sorted by line and column.
pub fn check_document(input: &CheckInput<'_>) -> Vec<Finding> {
    report::run_analyzers(input)
}
