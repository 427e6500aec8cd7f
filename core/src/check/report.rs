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
//!               (`paths` absent: the guidance applied to every file checked)
//!  "findings": [{"rule": "terms.forbidden", "severity": "major", "path": "docs/a.md",
//!                "line": 4, "column": 12, "start": 57, "end": 64, "block": "intro/p",
//!                "message": "`utilize` is forbidden here", "matched": "utilize", "suggestion": "use"}]}
//! ```
//!
//! Past [`super::MAX_FINDINGS`] findings, `findings` holds the most severe and a top-level
//! `"truncated": N` says how many more the summary counts (absent otherwise).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::score::{self, FileScore, FileTally};
use super::suppress::Suppressed;
use super::{Finding, Findings};
use crate::governance::{Severity, Unassessed};

/// The lowest severity that fails a gate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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
        Gate {
            fail_on: FailOn::Major,
            min_score: None,
        }
    }
}

/// The gate and whether it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GateResult {
    pub fail_on: FailOn,
    pub min_score: Option<u32>,
    pub passed: bool,
    /// Why it failed, one reason per tripped threshold; empty when it passed.
    pub failed: Vec<String>,
}

/// Counts by severity and the score: one file's is 100 − 25·critical − 5·major − 1·minor,
/// floored at 0; many files' the mean of theirs weighted by words ([`super::score`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub findings: usize,
    pub critical: usize,
    pub major: usize,
    pub minor: usize,
    pub info: usize,
    pub score: u32,
    /// Findings the project allows where they stand (directives, term exceptions, the
    /// recipe's `rules:`): listed in the report's `suppressed`, not counted above.
    pub suppressed: usize,
    /// Words checked: what weighs each file's score in the whole.
    pub words: usize,
}

impl Summary {
    pub fn of(findings: &[Finding]) -> Self {
        let mut counts = [0; 4];
        for finding in findings {
            counts[match finding.severity {
                Severity::Critical => 0,
                Severity::Major => 1,
                Severity::Minor => 2,
                Severity::Info => 3,
            }] += 1;
        }
        Summary::of_counts(counts)
    }

    /// The summary of findings counted by severity: (critical, major, minor, info).
    pub fn of_counts([critical, major, minor, info]: [usize; 4]) -> Self {
        Summary {
            findings: critical + major + minor + info,
            critical,
            major,
            minor,
            info,
            score: super::score::score_of([critical, major, minor, info]),
            suppressed: 0,
            words: 0,
        }
    }
}

/// What was checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct UnassessedEntry {
    pub guidance: String,
    pub value: String,
    /// The files it applied to; absent when it applied to every file checked (a project's
    /// one voice would otherwise list every path once per piece of guidance).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

/// Which analyzers ran, and which guidance in force none of them implements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Coverage {
    pub ran: Vec<String>,
    pub unassessed: Vec<UnassessedEntry>,
}

impl Coverage {
    /// Adds one file's unassessed guidance, merging entries with the same guidance and value.
    pub fn add(&mut self, path: &str, items: &[Unassessed]) {
        self.add_files([(path, items)]);
    }

    /// [`Coverage::add`] for many files at once, in their order: linear in the files and
    /// their items (a check of 10,000 files must not compare every path with every other).
    /// Files that share one governance share its `items` slice, matched to entries once.
    pub fn add_files<'a>(&mut self, files: impl IntoIterator<Item = (&'a str, &'a [Unassessed])>) {
        let mut index: HashMap<(&str, &str), usize> = HashMap::new();
        let mut known: HashSet<String> = self
            .unassessed
            .iter()
            .flat_map(|e| e.paths.iter().cloned())
            .collect();
        let mut slots: Vec<usize> = Vec::new();
        let mut last: Option<*const Unassessed> = None;
        for (path, items) in files {
            if items.is_empty() {
                continue;
            }
            if last != Some(items.as_ptr()) {
                last = Some(items.as_ptr());
                slots.clear();
                for item in items {
                    let key = (item.guidance.as_str(), item.value.as_str());
                    let at = match index.get(&key) {
                        Some(&at) => at,
                        None => {
                            let at = self
                                .unassessed
                                .iter()
                                .position(|e| e.guidance == item.guidance && e.value == item.value);
                            let at = at.unwrap_or_else(|| {
                                self.unassessed.push(UnassessedEntry {
                                    guidance: item.guidance.clone(),
                                    value: item.value.clone(),
                                    paths: Vec::new(),
                                });
                                self.unassessed.len() - 1
                            });
                            index.insert(key, at);
                            at
                        }
                    };
                    slots.push(at);
                }
                slots.sort_unstable();
                slots.dedup();
            }
            // A path not met before is in no entry: no entry's paths need searching.
            let new = known.insert(path.to_owned());
            for &at in &slots {
                let paths = &mut self.unassessed[at].paths;
                if new || !paths.iter().any(|p| p == path) {
                    paths.push(path.to_owned());
                }
            }
        }
    }
}

/// The whole report. `schema` is always `kapi.check/v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    pub schema: &'static str,
    pub pass: bool,
    pub target: Target,
    pub summary: Summary,
    pub gate: GateResult,
    pub coverage: Coverage,
    /// The governance fingerprints the files were checked under, sorted, deduplicated.
    pub fingerprints: Vec<String>,
    /// The findings held: every one, or past [`super::MAX_FINDINGS`] the most severe first
    /// (see `truncated`).
    pub findings: Vec<Finding>,
    /// How many findings the summary counts that `findings` does not hold (absent when none):
    /// past [`super::MAX_FINDINGS`], a report keeps the most severe and counts the rest.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: usize,
    /// Under `--diff-against`: translations a changed source block left behind. Pending
    /// work, never a failure (the gate ignores them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleTranslation>,
    /// Whether the check cache served the run (absent when it was off: `--no-cache`, a diff,
    /// a text, no project).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
    /// The score of each file with findings or below its voice's `min_score`, by path (a file
    /// not listed scored 100); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileScore>,
    /// Findings the project allows where they stand, each with what allowed it (at most
    /// [`super::suppress::MAX_SUPPRESSED`]; `summary.suppressed` counts every one); absent
    /// when none. `kapi check --no-suppress` reports them as findings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<Suppressed>,
}

/// What a check adds up to beyond its findings: each file's words and counts, and what was
/// suppressed.
#[derive(Debug, Clone, Default)]
pub struct Scoring {
    pub files: Vec<FileTally>,
    pub suppressed: Vec<Suppressed>,
    /// Every finding suppressed, listed or not.
    pub suppressed_count: usize,
}

/// How a run used the check cache: files whose findings it reused (unchanged since they were
/// checked, under the same governance and kapi), and files it checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CacheUse {
    pub reused: usize,
    pub checked: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A source block that changed while its translation into `lang` did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StaleTranslation {
    /// The source file, as the report names it.
    pub path: String,
    pub block: String,
    pub lang: String,
    /// The file that holds (or would hold) the translation: a catalog's target file, or the
    /// bilingual file itself.
    pub target: String,
    pub message: String,
}

impl CheckReport {
    /// Scores and gates every finding, and holds at most [`super::MAX_FINDINGS`] of them (the
    /// most severe first) sorted by path, line, column and rule.
    pub fn build(
        target: Target,
        findings: impl Into<Findings>,
        gate: Gate,
        coverage: Coverage,
        fingerprints: Vec<String>,
    ) -> Self {
        Self::build_scored(
            target,
            findings,
            gate,
            coverage,
            fingerprints,
            Scoring::default(),
        )
    }

    /// [`CheckReport::build`] scoring each file of `scoring` (the whole's score is their
    /// word-weighted mean, and each is held to its voice's minimum) and listing what it
    /// suppressed. With no file, the findings score as one file.
    pub fn build_scored(
        target: Target,
        findings: impl Into<Findings>,
        gate: Gate,
        coverage: Coverage,
        fingerprints: Vec<String>,
        scoring: Scoring,
    ) -> Self {
        let findings: Findings = findings.into();
        let counts = findings.counts();
        let mut coverage = coverage;
        for entry in &mut coverage.unassessed {
            if target.files > 0 && entry.paths.len() >= target.files {
                entry.paths.clear();
            }
        }
        let mut summary = Summary::of_counts(counts);
        if !scoring.files.is_empty() {
            summary.score = score::mean(&scoring.files);
        }
        summary.words = scoring.files.iter().map(|f| f.words).sum();
        summary.suppressed = scoring.suppressed_count;
        let (findings, truncated) = findings.into_sorted();
        let mut failed = Vec::new();
        let failing: usize = [
            Severity::Critical,
            Severity::Major,
            Severity::Minor,
            Severity::Info,
        ]
        .into_iter()
        .zip(counts)
        .filter(|(severity, _)| gate.fail_on.fails(*severity))
        .map(|(_, n)| n)
        .sum();
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
            failed.push(format!(
                "score {} is below the gate's minimum {min}",
                summary.score
            ));
        }
        if let Some(reason) = score::files_below(&scoring.files) {
            failed.push(reason);
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
            gate: GateResult {
                fail_on: gate.fail_on,
                min_score: gate.min_score,
                passed,
                failed,
            },
            coverage,
            fingerprints,
            findings,
            truncated,
            stale: Vec::new(),
            cache: None,
            files: score::listed(&scoring.files),
            suppressed: {
                let mut suppressed = scoring.suppressed;
                suppressed.sort_by(|a, b| super::report_order(&a.finding, &b.finding));
                suppressed
            },
        }
    }
}

impl CheckReport {
    /// Holds at most `cap` findings, the most severe first (a surface whose reader needs
    /// fewer than [`super::MAX_FINDINGS`]), at most `cap` suppressed findings (the first) and
    /// `cap` file scores (the lowest); the summary and the gate are unchanged.
    pub fn hold_at_most(&mut self, cap: usize) {
        // What was set apart and the files' scores are held to the same cap (the summary
        // counts every one); the worst files first.
        if self.suppressed.len() > cap {
            self.suppressed.truncate(cap);
        }
        if self.files.len() > cap {
            self.files
                .sort_by(|a, b| a.score.cmp(&b.score).then_with(|| a.path.cmp(&b.path)));
            self.files.truncate(cap);
            self.files.sort_by(|a, b| a.path.cmp(&b.path));
        }
        if self.findings.len() <= cap {
            return;
        }
        let mut held = Findings::with_cap(usize::MAX);
        held.extend(std::mem::take(&mut self.findings));
        held.hold_at_most(cap);
        let (findings, dropped) = held.into_sorted();
        self.findings = findings;
        self.truncated += dropped;
    }
}

#[cfg(test)]
mod tests {

    fn item(guidance: &str, value: &str) -> Unassessed {
        Unassessed {
            guidance: guidance.into(),
            value: value.into(),
        }
    }

    #[test]
    fn a_held_report_caps_its_suppressed_findings_and_file_scores_too() {
        use crate::check::score::FileTally;
        use crate::check::suppress::{SuppressedBy, SuppressionKind};
        let finding = |line: usize| Finding {
            link: None,
            rule: "terms.forbidden".into(),
            severity: Severity::Major,
            path: format!("f{line:02}.md"),
            line,
            column: 1,
            start: 0,
            end: 0,
            block: None,
            message: String::new(),
            matched: None,
            suggestion: None,
        };
        let by = SuppressedBy {
            kind: SuppressionKind::Directive,
            text: "kapi-disable".into(),
            path: None,
            line: Some(1),
        };
        let scoring = Scoring {
            files: (0..10)
                .map(|i| FileTally {
                    path: format!("f{i:02}.md"),
                    words: 10,
                    counts: [0, 0, i, 0],
                    min_score: None,
                })
                .collect(),
            suppressed: (1..=10)
                .map(|line| crate::check::Suppressed {
                    finding: finding(line),
                    suppressed_by: by.clone(),
                })
                .collect(),
            suppressed_count: 10,
        };
        let mut report = CheckReport::build_scored(
            Target::default(),
            Findings::default(),
            Gate::default(),
            Coverage::default(),
            Vec::new(),
            scoring,
        );
        assert_eq!(report.files.len(), 9, "the clean file is not listed");
        report.hold_at_most(3);
        assert_eq!(report.suppressed.len(), 3);
        assert_eq!(report.summary.suppressed, 10);
        let kept: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            kept,
            ["f07.md", "f08.md", "f09.md"],
            "the lowest scores, by path"
        );
    }

    #[test]
    fn coverage_merges_files_under_each_guidance_once() {
        let shared = vec![item("tone.emotion", "warm"), item("tone.emotion", "warm")];
        let other = vec![item("tone.emotion", "warm"), item("audience", "ops")];
        let mut coverage = Coverage::default();
        coverage.add("a.md", &shared);
        coverage.add_files([
            ("b.md", shared.as_slice()),
            ("a.md", other.as_slice()),
            ("c.md", &[][..]),
            ("d.md", other.as_slice()),
            ("b.md", shared.as_slice()),
        ]);
        let got: Vec<(&str, Vec<&str>)> = coverage
            .unassessed
            .iter()
            .map(|e| {
                (
                    e.value.as_str(),
                    e.paths.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("warm", vec!["a.md", "b.md", "d.md"]),
                ("ops", vec!["a.md", "d.md"])
            ]
        );
    }

    use std::collections::HashSet;

    use std::ops::Range;

    use regex::Regex;

    use super::*;
    use crate::check::{CheckInput, check_document};
    use crate::governance::{Governance, PatternRule};
    use crate::model::{Block, Code, CodeKind, Document, Role, Run};

    type Row = (
        String,
        Severity,
        usize,
        usize,
        usize,
        usize,
        Option<String>,
        Option<String>,
    );

    fn rows(findings: &[Finding]) -> Vec<Row> {
        findings
            .iter()
            .map(|f| {
                (
                    f.rule.clone(),
                    f.severity,
                    f.line,
                    f.column,
                    f.start,
                    f.end,
                    f.block.clone(),
                    f.matched.clone(),
                )
            })
            .collect()
    }

    fn row(
        rule: &str,
        severity: Severity,
        at: (usize, usize),
        range: Range<usize>,
        block: &str,
        matched: &str,
    ) -> Row {
        (
            rule.to_owned(),
            severity,
            at.0,
            at.1,
            range.start,
            range.end,
            Some(block.to_owned()),
            Some(matched.to_owned()),
        )
    }

    fn code(data: &str, src: usize) -> Run {
        Run::Code(Box::new(Code {
            id: "1".into(),
            kind: CodeKind::Standalone,
            class: "code".into(),
            data: data.into(),
            deletable: false,
            attrs: Default::default(),
            src: Some(src),
        }))
    }

    const FILE: &str =
        "# Intro\n\nPlease utilize the the `cfg` file,  now (ok.\n\n```\nthe the\n```\n";

    fn document() -> Document {
        let mut code_block = Block::new("code", Role::Code, vec![Run::text_at("the the\n", 59)]);
        code_block.span = 55..70;
        Document {
            format: "markdown".into(),
            blocks: vec![
                Block::new("intro", Role::Heading, vec![Run::text_at("Intro", 2)]),
                Block::new(
                    "intro/p",
                    Role::Paragraph,
                    vec![
                        Run::text_at("Please utilize the the ", 9),
                        code("`cfg`", 32),
                        Run::text_at(" file,  now (ok.", 37),
                    ],
                ),
                code_block,
            ],
        }
    }

    fn pattern(re: &str, severity: Severity) -> PatternRule {
        PatternRule {
            regex: Regex::new(re).unwrap_or_else(|e| panic!("test regex: {e}")),
            description: None,
            severity,
            field: "style.prohibited_patterns[0]".into(),
        }
    }

    fn check(doc: &Document, gov: &Governance, only: Option<&HashSet<String>>) -> Vec<Finding> {
        check_document(&CheckInput {
            path: "docs/a.md",
            text: FILE,
            document: doc,
            governance: gov,
            only_blocks: only,
            cancel: None,
        })
        .into_vec()
    }

    #[test]
    fn hits_are_located_in_the_file_by_line_column_and_bytes() {
        let doc = document();
        let findings = check(&doc, &Governance::empty(), None);
        assert_eq!(
            rows(&findings),
            vec![
                row(
                    "hygiene.repeated-word",
                    Severity::Minor,
                    (3, 16),
                    24..31,
                    "intro/p",
                    "the the"
                ),
                row(
                    "hygiene.doubled-space",
                    Severity::Minor,
                    (3, 35),
                    43..45,
                    "intro/p",
                    "  "
                ),
                row(
                    "hygiene.unbalanced-bracket",
                    Severity::Minor,
                    (3, 41),
                    49..50,
                    "intro/p",
                    "("
                ),
            ]
        );
        assert!(findings.iter().all(|f| f.path == "docs/a.md"));
        assert_eq!(findings[0].message, "`the` is written twice");
    }

    #[test]
    fn a_match_ending_on_a_code_ends_after_the_code_in_the_file() {
        let doc = document();
        let mut gov = Governance::empty();
        gov.prohibited
            .push(pattern("the \u{FFFC}", Severity::Major));
        let findings = check(&doc, &gov, None);
        let prohibited: Vec<Row> = rows(&findings)
            .into_iter()
            .filter(|r| r.0 == "voice.prohibited-pattern")
            .collect();
        assert_eq!(
            prohibited,
            vec![row(
                "voice.prohibited-pattern",
                Severity::Major,
                (3, 20),
                28..37,
                "intro/p",
                "the `cfg`"
            )]
        );
    }

    #[test]
    fn decoded_text_points_at_the_block_and_matches_the_prose() {
        let mut block = Block::new("p", Role::Paragraph, vec![Run::text("a  b")]);
        block.span = 9..13;
        let doc = Document {
            format: "x".into(),
            blocks: vec![block],
        };
        let findings = check(&doc, &Governance::empty(), None);
        assert_eq!(
            rows(&findings),
            vec![row(
                "hygiene.doubled-space",
                Severity::Minor,
                (3, 1),
                9..9,
                "p",
                "  "
            )]
        );
    }

    #[test]
    fn only_blocks_limit_block_findings_and_document_rules_need_a_checked_block() {
        let doc = document();
        let mut gov = Governance::empty();
        gov.required.push(pattern("(?i)support", Severity::Minor));
        gov.required.push(pattern("Intro\nPlease", Severity::Major));
        let only: HashSet<String> = ["intro".to_owned()].into();
        let findings = check(&doc, &gov, Some(&only));
        assert_eq!(findings.len(), 1, "{findings:#?}");
        let required = &findings[0];
        assert_eq!(
            (
                required.rule.as_str(),
                required.line,
                required.column,
                required.start,
                required.end
            ),
            ("voice.required-pattern", 0, 0, 0, 0)
        );
        assert_eq!(
            (required.block.as_deref(), required.matched.as_deref()),
            (None, None)
        );
        let none: HashSet<String> = ["elsewhere".to_owned()].into();
        assert!(check(&doc, &gov, Some(&none)).is_empty());
    }

    #[test]
    fn a_set_cancel_flag_stops_the_check_before_the_next_block() {
        let doc = document();
        let run = |flag: &std::sync::atomic::AtomicBool| {
            check_document(&CheckInput {
                path: "docs/a.md",
                text: FILE,
                document: &doc,
                governance: &Governance::empty(),
                only_blocks: None,
                cancel: Some(flag),
            })
            .total()
        };
        assert_eq!(run(&std::sync::atomic::AtomicBool::new(true)), 0);
        assert_eq!(run(&std::sync::atomic::AtomicBool::new(false)), 3);
    }

    #[test]
    fn a_report_past_the_cap_holds_the_cap_and_counts_every_finding() {
        // One line of `a a a …`: a repeated word every two words, far past the cap.
        let pairs = crate::check::MAX_FINDINGS + 1_500;
        let text = "a a ".repeat(pairs);
        let block = Block::new("p", Role::Paragraph, vec![Run::text_at(&text, 0)]);
        let doc = Document {
            format: "plaintext".into(),
            blocks: vec![block],
        };
        let found = check_document(&CheckInput {
            path: "long.txt",
            text: &text,
            document: &doc,
            governance: &Governance::empty(),
            only_blocks: None,
            cancel: None,
        });
        assert_eq!(found.total(), pairs);
        let report = CheckReport::build(
            Target::default(),
            found,
            Gate::default(),
            Coverage::default(),
            Vec::new(),
        );
        assert_eq!(
            (report.summary.findings, report.summary.minor),
            (pairs, pairs)
        );
        assert_eq!(report.findings.len(), crate::check::MAX_FINDINGS);
        assert_eq!(report.truncated, 1_500);
        // The first ones are held, in order, and the column of the last is counted right.
        let last = &report.findings[crate::check::MAX_FINDINGS - 1];
        assert_eq!(
            (last.line, last.column, last.start),
            (1, last.start + 1, 4 * (crate::check::MAX_FINDINGS - 1))
        );
        let json = serde_json::to_value(&report).unwrap_or_default();
        assert_eq!(json["truncated"], 1_500);
        let mut fewer = report.clone();
        fewer.hold_at_most(100);
        assert_eq!((fewer.findings.len(), fewer.truncated), (100, pairs - 100));
        assert_eq!(fewer.findings[..], report.findings[..100]);
        assert_eq!(fewer.summary, report.summary);
        let small = CheckReport::build(
            Target::default(),
            Vec::new(),
            Gate::default(),
            Coverage::default(),
            Vec::new(),
        );
        let json = serde_json::to_value(&small).unwrap_or_default();
        assert!(json.get("truncated").is_none(), "{json}");
    }

    /// Needs the real Markdown reader and term matcher.
    #[test]
    fn a_markdown_page_is_checked_end_to_end() {
        use crate::formats::Format as _;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/check/mixed/page.md"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let parsed = match crate::formats::markdown::Markdown.read(text.as_bytes()) {
            Ok(parsed) => parsed,
            Err(e) => panic!("{path}: {e}"),
        };
        let mut gov = crate::check::analyzers::terms::tests::handbook();
        gov.prohibited
            .push(pattern(r"(?i)\bsimply\b", Severity::Minor));
        gov.required.push(pattern("(?i)support", Severity::Minor));
        gov.constraints.max_sentence_words = Some(6);
        let findings = check_document(&CheckInput {
            path: "testdata/check/mixed/page.md",
            text: &text,
            document: &parsed.document,
            governance: &gov,
            only_blocks: None,
            cancel: None,
        })
        .into_vec();
        for finding in findings.iter().filter(|f| f.line > 0) {
            assert_eq!(
                text.get(finding.start..finding.end),
                finding.matched.as_deref(),
                "{finding:?}"
            );
        }
        insta::assert_json_snapshot!(findings);
    }
}
