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

use std::ops::Range;

use serde::Serialize;

use super::{CheckInput, Finding, Hit, hygiene, terms, voice};
use crate::governance::{Severity, Unassessed};
use crate::model::{Block, Edition, Run};
use crate::text::{CODE_MARK, LineIndex, Prose};

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
        Gate {
            fail_on: FailOn::Major,
            min_score: None,
        }
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
        let mut summary = Summary {
            findings: findings.len(),
            ..Summary::default()
        };
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
            match self
                .unassessed
                .iter_mut()
                .find(|e| e.guidance == item.guidance && e.value == item.value)
            {
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
    /// Under `--diff-against`: translations a changed source block left behind. Pending
    /// work, never a failure (the gate ignores them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleTranslation>,
}

/// A source block that changed while its translation into `lang` did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    /// Sorts the findings by path, line, column and rule, then scores and gates them.
    pub fn build(
        target: Target,
        mut findings: Vec<Finding>,
        gate: Gate,
        coverage: Coverage,
        fingerprints: Vec<String>,
    ) -> Self {
        findings.sort_by(|a, b| {
            (a.path.as_str(), a.line, a.column, a.rule.as_str()).cmp(&(
                b.path.as_str(),
                b.line,
                b.column,
                b.rule.as_str(),
            ))
        });
        let summary = Summary::of(&findings);
        let mut failed = Vec::new();
        let failing = findings
            .iter()
            .filter(|f| gate.fail_on.fails(f.severity))
            .count();
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
                "score {} is below the minimum {min}",
                summary.score
            ));
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
            stale: Vec::new(),
        }
    }
}

/// Runs every analyzer over one document and locates the hits in the file.
///
/// Each translatable block (only those in `only_blocks` when it is set) is read once into its
/// prose view and every block rule runs over it; the document rules then run once over the
/// prose of every translatable block joined with `\n`, unless `only_blocks` leaves none of
/// the document's blocks to check. Findings come back sorted by line, column and rule.
pub(crate) fn run_analyzers(input: &CheckInput<'_>) -> Vec<Finding> {
    let gov = input.governance;
    let document_rules = !gov.required.is_empty();
    let mut lines: Option<LineIndex> = None;
    let mut findings = Vec::new();
    let mut hits: Vec<Hit> = Vec::new();
    let mut joined = String::new();
    let mut checked_any = false;
    for block in &input.document.blocks {
        if !block.translatable {
            continue;
        }
        let selected = input
            .only_blocks
            .is_none_or(|keys| keys.contains(&block.key));
        if !selected {
            if document_rules {
                push_joined(&mut joined, |out| push_prose(out, &block.source));
            }
            continue;
        }
        checked_any = true;
        let prose = Prose::from_edition(&block.source);
        if document_rules {
            push_joined(&mut joined, |out| out.push_str(&prose.text));
        }
        hygiene::check(&prose.text, &mut hits);
        terms::check(gov, &prose.text, &mut hits);
        voice::check_block(gov, block.role, &prose.text, &mut hits);
        if hits.is_empty() {
            continue;
        }
        let lines = lines.get_or_insert_with(|| LineIndex::new(input.text));
        for hit in hits.drain(..) {
            findings.push(locate(input, lines, block, &prose, hit));
        }
    }
    if document_rules && (checked_any || input.only_blocks.is_none()) {
        voice::check_document(gov, &joined, &mut hits);
        for hit in hits.drain(..) {
            findings.push(Finding {
                rule: hit.rule.id.to_owned(),
                severity: hit.severity,
                path: input.path.to_owned(),
                line: 0,
                column: 0,
                start: 0,
                end: 0,
                block: None,
                message: hit.message,
                matched: None,
                suggestion: hit.suggestion,
            });
        }
    }
    findings.sort_by(|a, b| {
        (a.line, a.column, a.rule.as_str(), a.start).cmp(&(
            b.line,
            b.column,
            b.rule.as_str(),
            b.start,
        ))
    });
    findings
}

/// Appends one block's prose to the document's joined prose, `\n` between blocks.
fn push_joined(joined: &mut String, push: impl FnOnce(&mut String)) {
    if !joined.is_empty() {
        joined.push('\n');
    }
    push(joined);
}

/// Appends an edition's prose view (codes as [`CODE_MARK`]) without building a [`Prose`].
fn push_prose(out: &mut String, edition: &Edition) {
    push_prose_runs(out, &edition.runs);
}

/// The same view [`Prose::from_edition`] builds: a switch is a mark, then each branch's
/// prose and a mark.
fn push_prose_runs(out: &mut String, runs: &[Run]) {
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(_) => out.push(CODE_MARK),
            Run::Switch(switch) => {
                out.push(CODE_MARK);
                for branch in &switch.branches {
                    push_prose_runs(out, &branch.runs);
                    out.push(CODE_MARK);
                }
            }
        }
    }
}

/// Turns a block hit into a finding located in the file.
fn locate(
    input: &CheckInput<'_>,
    lines: &LineIndex,
    block: &Block,
    prose: &Prose,
    hit: Hit,
) -> Finding {
    let range = hit.range;
    let mapped = prose
        .file_offset(range.start)
        .zip(file_end(block, prose, &range));
    let (start, end) = match mapped {
        Some((start, end)) if start <= end && end <= input.text.len() => (start, end),
        _ => {
            // Decoded text (escapes undone) has no exact place in the file: point at the block.
            let at = prose
                .file_offset(range.start)
                .unwrap_or(block.span.start)
                .min(input.text.len());
            (at, at)
        }
    };
    let matched = if range.is_empty() {
        None
    } else {
        match input.text.get(start..end) {
            Some(slice) if !slice.is_empty() => Some(slice.to_owned()),
            _ => prose
                .text
                .get(range.clone())
                .map(|s| s.replace(CODE_MARK, "")),
        }
    };
    let (line, column) = lines.position(input.text, start);
    Finding {
        rule: hit.rule.id.to_owned(),
        severity: hit.severity,
        path: input.path.to_owned(),
        line,
        column,
        start,
        end,
        block: Some(block.key.clone()),
        message: hit.message,
        matched,
        suggestion: hit.suggestion,
    }
}

/// The file offset just past the last character of `range` in the prose view.
fn file_end(block: &Block, prose: &Prose, range: &Range<usize>) -> Option<usize> {
    let before = prose.text.get(..range.end)?;
    let last = match before.chars().next_back() {
        Some(last) if !range.is_empty() => last,
        _ => return prose.file_offset(range.start),
    };
    let last_at = range.end - last.len_utf8();
    if last != CODE_MARK {
        return prose.file_offset(last_at).map(|at| at + last.len_utf8());
    }
    // The range ends on a code: its end in the file is past the code's own bytes.
    let mut at = 0;
    for run in &block.source.runs {
        match run {
            Run::Text { text, .. } => at += text.len(),
            Run::Code(code) => {
                if at == last_at {
                    return code.src.map(|src| src + code.data.len());
                }
                at += CODE_MARK.len_utf8();
            }
            Run::Switch(_) => break,
        }
        if at > last_at {
            break;
        }
    }
    prose.file_offset(range.end)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use regex::Regex;

    use super::*;
    use crate::check::check_document;
    use crate::governance::{Governance, PatternRule};
    use crate::model::{Code, CodeKind, Document, Role};

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
        })
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
        let mut gov = crate::check::terms::tests::handbook();
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
        });
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
