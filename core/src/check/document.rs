//! One document's check, block by block: every analyzer over each block's prose, each hit
//! located in the file, then the document rules over the prose joined.
//!
//! [`DocumentCheck`] takes the blocks one at a time, so a caller reading a file with
//! [`crate::formats::Format::read_each`] holds one block, never the document (a 45 MB file
//! of short paragraphs is two million blocks); [`super::check_document`] feeds it a document's.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::analyzers::{hygiene, terms, voice};
use super::not_words;
use super::suppress::{SuppressedBy, Suppression, SuppressionKind};
use super::{CheckInput, Each, Finding, Findings, Hit, Rule};
use crate::governance::Governance;
use crate::model::Block;
use crate::text::{CODE_MARK, LineIndex, Prose, push_prose};
use crate::vale::run::{ValeHit, ValeRun};
use crate::vale::styles::RuleSet;

/// The check of one document, fed its blocks in reading order.
///
/// Each translatable block (only those in `only_blocks` when it is set) is read once into its
/// prose view and every block rule runs over it, each hit located as it comes; the document
/// rules then run once, at [`DocumentCheck::finish`], over the prose of every translatable
/// block joined with `\n`, unless `only_blocks` left none of the document's blocks to check. A
/// set `cancel` stops the check before the next block (the document rules then do not run) and
/// drops the hits of the block in hand. Only hits of the rules `keep` accepts become findings.
pub struct DocumentCheck<'a> {
    path: &'a str,
    governance: &'a Governance,
    only_blocks: Option<&'a HashSet<String>>,
    cancel: Option<&'a AtomicBool>,
    keep: &'a dyn Fn(&Rule) -> bool,
    /// Built at the first hit (most files have none): line starts of the text blocks index.
    lines: Option<LineIndex>,
    findings: Findings,
    /// What the project allows where it stands: directives, the recipe's exclusions, term
    /// exceptions; what they set apart.
    suppression: Suppression,
    /// Words in the blocks checked (what weighs the file's score in a project's).
    words: usize,
    joined: String,
    checked_any: bool,
    stopped: bool,
    /// The Vale rules in force, when a Vale configuration governs the file.
    vale: Option<ValeRun<'a>>,
}

impl<'a> DocumentCheck<'a> {
    pub fn new(
        path: &'a str,
        governance: &'a Governance,
        only_blocks: Option<&'a HashSet<String>>,
        cancel: Option<&'a AtomicBool>,
        keep: &'a dyn Fn(&Rule) -> bool,
    ) -> Self {
        DocumentCheck {
            path,
            governance,
            only_blocks,
            cancel,
            keep,
            lines: None,
            findings: Findings::default(),
            suppression: Suppression::default(),
            words: 0,
            joined: String::new(),
            checked_any: false,
            stopped: false,
            vale: None,
        }
    }

    /// Runs the Vale rules of `set` too, over a file whose extension is `format`.
    pub fn with_vale(mut self, set: &'a RuleSet, format: &str) -> Self {
        if !set.rules.is_empty() {
            self.vale = Some(ValeRun::new(set, format));
        }
        self
    }

    /// Sets apart what `suppression` allows (directives in the file's comments, the recipe's
    /// exclusions); without it only term exceptions are set apart.
    pub fn with_suppression(mut self, suppression: Suppression) -> Self {
        self.suppression = suppression;
        self
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Checks the next block; `text` is the file's (decoded) text its span and runs index,
    /// the same for every block of the document.
    pub fn block(&mut self, text: &str, block: &Block) {
        if self.stopped {
            return;
        }
        self.suppression.scan(text, &mut self.lines);
        self.suppression.note_block(text, block);
        if let Some(vale) = self.vale.as_mut()
            && block.role == crate::model::Role::Code
        {
            vale.code_block();
        }
        if !block.translatable {
            return;
        }
        if self.cancelled() {
            self.stopped = true;
            return;
        }
        let document_rules = !self.governance.required.is_empty();
        let selected = self
            .only_blocks
            .is_none_or(|keys| keys.contains(&block.key));
        if !selected {
            if document_rules {
                push_joined(&mut self.joined, |out| push_prose(out, &block.source.runs));
            }
            return;
        }
        self.checked_any = true;
        let prose = Prose::from_edition(&block.source);
        if document_rules {
            push_joined(&mut self.joined, |out| out.push_str(&prose.text));
        }
        let (keep, cancel, path) = (self.keep, self.cancel, self.path);
        let (lines, findings) = (&mut self.lines, &mut self.findings);
        let suppression = &mut self.suppression;
        // The block's addresses, scanned at the first hit they may hide.
        let mut addresses = None;
        // The last hit taken: a rule that reports the same range twice in a row (none does:
        // see `no_rule_reports_a_range_twice`) is reported once.
        let mut last: Option<(&str, Range<usize>)> = None;
        // Cancelled inside a block, the scan of the block in hand finishes (linear) but
        // nothing more is located or held.
        let mut sink = Each(|hit: Hit| {
            // A word that is part of an address is no finding (a term's exception is, but set
            // apart below).
            if !keep(hit.rule)
                || cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                || not_words::hidden(&prose.text, &mut addresses, &hit)
                || repeats(&mut last, hit.rule.id, &hit.range)
            {
                return;
            }
            let lines = lines.get_or_insert_with(|| LineIndex::new(text));
            let placed = place(text, lines, block, &prose, &hit);
            let (start, at) = (placed.0.start, placed.1);
            // What the project allows where it stands is set apart, never a finding.
            if let Some(by) = allowed(suppression, &hit, at.0, &block.key, path) {
                if suppression.has_room() {
                    let finding = finding(text, path, block, &prose, hit, placed);
                    suppression.keep(finding, by);
                } else {
                    suppression.count_only();
                }
                return;
            }
            if findings.would_hold(hit.severity, path, at, hit.rule.id, start) {
                findings.push(finding(text, path, block, &prose, hit, placed));
            } else {
                findings.count(hit.severity);
            }
        });
        self.words += hygiene::check(&prose.text, &mut sink);
        terms::check(self.governance, &prose.text, &mut sink);
        let cuts = voice::cuts(&block.source);
        voice::check_block(self.governance, block.role, &prose.text, &cuts, &mut sink);
        self.vale_block(text, block, &prose);
    }

    /// The Vale rules' alerts in one block, as findings (or set apart, as any finding).
    fn vale_block(&mut self, text: &str, block: &Block, prose: &Prose) {
        let Some(vale) = self.vale.as_mut() else {
            return;
        };
        let hits = vale.block(text, block, &prose.text);
        for hit in hits {
            if self.cancelled() {
                return;
            }
            let lines = self.lines.get_or_insert_with(|| LineIndex::new(text));
            let range = &hit.alert.range;
            let (span, at) = if hit.in_file {
                let span = range.start.min(text.len())..range.end.min(text.len());
                let at = lines.position(text, span.start);
                (span, at)
            } else {
                place_range(text, lines, block, prose, range, false)
            };
            if self.vale.as_ref().is_some_and(|v| v.ignored(&span)) {
                continue;
            }
            let finding = vale_finding(text, self.path, block, hit, span, at);
            if let Some(by) = allowed_id(
                &mut self.suppression,
                &finding.rule,
                at.0,
                &block.key,
                self.path,
            ) {
                if self.suppression.has_room() {
                    self.suppression.keep(finding, by);
                } else {
                    self.suppression.count_only();
                }
                continue;
            }
            let (severity, start) = (finding.severity, finding.start);
            if self
                .findings
                .would_hold(severity, self.path, at, &finding.rule, start)
            {
                self.findings.push(finding);
            } else {
                self.findings.count(severity);
            }
        }
    }

    /// The findings: the blocks', then the document rules' (none when the check was
    /// cancelled). What the project allows is left out ([`DocumentCheck::finish_checked`]
    /// gives it).
    pub fn finish(self) -> Findings {
        self.finish_checked().findings
    }

    /// The findings, what was set apart (its [`Suppression`], which may set apart more of the
    /// file's findings, such as its translations', before it finishes), and the words checked.
    pub fn finish_checked(mut self) -> Checked {
        let gov = self.governance;
        let whole = !self.stopped
            && !gov.required.is_empty()
            && (self.checked_any || self.only_blocks.is_none());
        if whole {
            self.document_rules();
        }
        if !self.stopped {
            self.vale_document();
        }
        Checked {
            findings: self.findings,
            suppression: self.suppression,
            words: self.words,
        }
    }

    /// The Vale document rules' alerts (`metric`, `readability`), at the file's start.
    fn vale_document(&mut self) {
        let Some(vale) = self.vale.as_mut() else {
            return;
        };
        for hit in vale.finish() {
            let mut finding = vale_finding_at_start(self.path, hit);
            if let Some(by) = self.suppression.verdict(&finding.rule, 1, None, self.path) {
                finding.block = None;
                self.suppression.keep(finding, by);
            } else {
                self.findings.push(finding);
            }
        }
    }

    /// The document rules, once over the prose joined.
    fn document_rules(&mut self) {
        let mut hits = Vec::new();
        voice::check_document(self.governance, &self.joined, &mut hits);
        for hit in hits.into_iter().filter(|h| (self.keep)(h.rule)) {
            let rule = hit.rule;
            let finding = Finding {
                link: None,
                rule: hit.rule.id.to_owned(),
                severity: hit.severity,
                path: self.path.to_owned(),
                line: 0,
                column: 0,
                start: 0,
                end: 0,
                block: None,
                message: hit.message,
                matched: None,
                suggestion: hit.suggestion,
            };
            match self.suppression.verdict(rule.id, 0, None, self.path) {
                Some(by) => self.suppression.keep(finding, by),
                None => self.findings.push(finding),
            }
        }
    }
}

/// A document's check, finished: its findings, its suppression and the words it read.
#[derive(Debug)]
pub struct Checked {
    pub findings: Findings,
    pub suppression: Suppression,
    pub words: usize,
}

/// What allows `hit` where it stands (line `line` of block `key`), if anything: a term's
/// exception, else the recipe or a directive. Nothing under `--no-suppress`.
fn allowed(
    suppression: &mut Suppression,
    hit: &Hit,
    line: usize,
    key: &str,
    path: &str,
) -> Option<SuppressedBy> {
    if suppression.is_off() {
        return None;
    }
    if let Some(text) = &hit.suppressed_by {
        return Some(SuppressedBy {
            kind: SuppressionKind::Exception,
            text: text.clone(),
            path: None,
            line: None,
        });
    }
    allowed_id(suppression, hit.rule.id, line, key, path)
}

/// What allows a finding of the rule `id` at `line` of block `key`: the recipe or a directive.
fn allowed_id(
    suppression: &mut Suppression,
    id: &str,
    line: usize,
    key: &str,
    path: &str,
) -> Option<SuppressedBy> {
    if suppression.is_off() {
        return None;
    }
    suppression.verdict(id, line, Some(key), path)
}

/// A Vale document rule's alert as a finding at the file's start (line 1, column 1, as Vale
/// puts it).
fn vale_finding_at_start(path: &str, hit: ValeHit) -> Finding {
    let alert = hit.alert;
    Finding {
        rule: alert.rule_id,
        severity: crate::vale::severity(hit.level),
        path: path.to_owned(),
        line: 1,
        column: 1,
        start: 0,
        end: 0,
        block: None,
        suggestion: None,
        message: alert.message,
        matched: None,
        link: (!alert.link.is_empty()).then_some(alert.link),
    }
}

/// A Vale alert as a finding: the rule's id, its level as a severity (`error` major,
/// `warning` minor, `suggestion` info), Vale's message and the rule's `link`.
fn vale_finding(
    text: &str,
    path: &str,
    block: &Block,
    hit: ValeHit,
    span: Range<usize>,
    (line, column): (usize, usize),
) -> Finding {
    let alert = hit.alert;
    let matched = match text.get(span.clone()) {
        Some(slice) if !slice.is_empty() => Some(slice.to_owned()),
        _ => (!alert.matched.is_empty()).then(|| alert.matched.clone()),
    };
    Finding {
        rule: alert.rule_id,
        severity: crate::vale::severity(hit.level),
        path: path.to_owned(),
        line,
        column,
        start: span.start,
        end: span.end,
        block: Some(block.key.clone()),
        suggestion: crate::vale::suggestion(&alert.message, alert.action.as_ref()),
        message: alert.message,
        matched,
        link: (!alert.link.is_empty()).then_some(alert.link),
    }
}

/// Runs every analyzer over a document's blocks ([`DocumentCheck`]).
pub(crate) fn run_analyzers(input: &CheckInput<'_>, keep: &dyn Fn(&Rule) -> bool) -> Findings {
    let mut check = DocumentCheck::new(
        input.path,
        input.governance,
        input.only_blocks,
        input.cancel,
        keep,
    );
    for block in &input.document.blocks {
        check.block(input.text, block);
    }
    check.finish()
}

/// Whether a hit of `rule` at `range` repeats the hit before it (held in `last`).
fn repeats<'r>(
    last: &mut Option<(&'r str, Range<usize>)>,
    rule: &'r str,
    range: &Range<usize>,
) -> bool {
    if last
        .as_ref()
        .is_some_and(|(r, at)| *r == rule && at == range)
    {
        return true;
    }
    *last = Some((rule, range.clone()));
    false
}

/// Appends one block's prose to the document's joined prose, `\n` between blocks.
fn push_joined(joined: &mut String, push: impl FnOnce(&mut String)) {
    if !joined.is_empty() {
        joined.push('\n');
    }
    push(joined);
}

/// Where a block hit sits in the file: its byte range, and the line and column of its start.
/// A sentence or a paragraph takes the emphasis and link markup around it with it.
fn place(
    text: &str,
    lines: &LineIndex,
    block: &Block,
    prose: &Prose,
    hit: &Hit,
) -> (Range<usize>, (usize, usize)) {
    let whole = [&voice::SENTENCE_TOO_LONG, &voice::PARAGRAPH_TOO_LONG]
        .iter()
        .any(|rule| rule.id == hit.rule.id);
    place_range(text, lines, block, prose, &hit.range, whole)
}

/// Where a range of a block's prose sits in the file: its byte range (widened over the
/// emphasis and link markup around it when `whole`), and the line and column of its start.
fn place_range(
    text: &str,
    lines: &LineIndex,
    block: &Block,
    prose: &Prose,
    range: &Range<usize>,
    whole: bool,
) -> (Range<usize>, (usize, usize)) {
    let mapped = prose.file_offset(range.start).zip(prose.file_end(range));
    let (start, end) = match mapped {
        Some((start, end)) if start <= end && end <= text.len() => {
            let span = if whole {
                prose.widen(start..end)
            } else {
                start..end
            };
            (span.start, span.end.min(text.len()))
        }
        _ => {
            // Decoded text (escapes undone) has no exact place in the file: point at the block.
            let at = prose
                .file_offset(range.start)
                .unwrap_or(block.span.start)
                .min(text.len());
            (at, at)
        }
    };
    (start..end, lines.position(text, start))
}

/// Turns a block hit, placed by [`place`], into a finding.
fn finding(
    text: &str,
    path: &str,
    block: &Block,
    prose: &Prose,
    hit: Hit,
    (span, (line, column)): (Range<usize>, (usize, usize)),
) -> Finding {
    let range = hit.range;
    let matched = if range.is_empty() {
        None
    } else {
        match text.get(span.clone()) {
            Some(slice) if !slice.is_empty() => Some(slice.to_owned()),
            _ => prose
                .text
                .get(range.clone())
                .map(|s| s.replace(CODE_MARK, "")),
        }
    };
    Finding {
        link: None,
        rule: hit.rule.id.to_owned(),
        severity: hit.severity,
        path: path.to_owned(),
        line,
        column,
        start: span.start,
        end: span.end,
        block: Some(block.key.clone()),
        message: hit.message,
        matched,
        suggestion: hit.suggestion,
    }
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use crate::check::{CheckInput, Finding, check_document};
    use crate::formats::Format as _;
    use crate::governance::{
        Governance, PatternRule, Severity, TermEntry, TermMatcher, TermStatus,
    };

    /// The findings of a Markdown page, each as `rule matched` (the file's bytes it covers).
    fn check(page: &str, gov: &Governance) -> Vec<String> {
        findings(page, gov)
            .iter()
            .map(|f| {
                let bytes = page.get(f.start..f.end).unwrap_or_default();
                assert_eq!(f.matched.as_deref(), Some(bytes), "{f:?}");
                format!("{} {bytes}", f.rule)
            })
            .collect()
    }

    fn findings(page: &str, gov: &Governance) -> Vec<Finding> {
        let parsed = match crate::formats::markdown::Markdown.read(page.as_bytes()) {
            Ok(parsed) => parsed,
            Err(e) => panic!("{e}"),
        };
        check_document(&CheckInput {
            path: "a.md",
            text: page,
            document: &parsed.document,
            governance: gov,
            only_blocks: None,
            cancel: None,
        })
        .into_vec()
    }

    fn governance(forbidden: &[&str], prohibited: &[&str]) -> Governance {
        let terms: Vec<TermEntry> = forbidden
            .iter()
            .map(|t| TermEntry::new(*t, "en", TermStatus::Forbidden))
            .collect();
        let mut gov = Governance::empty();
        gov.matcher = TermMatcher::new(&terms);
        gov.terms = terms;
        for re in prohibited {
            gov.prohibited.push(PatternRule {
                regex: Regex::new(re).unwrap_or_else(|e| panic!("{e}")),
                description: None,
                severity: Severity::Major,
                field: "style.prohibited_patterns[0]".into(),
            });
        }
        gov
    }

    #[test]
    fn a_sentence_ends_inside_emphasis_and_links_and_maps_back_to_the_file() {
        let mut gov = governance(&[], &[]);
        gov.constraints.max_sentence_words = Some(5);
        let page = "**Open the settings first.** Then pick a theme.\n\n\
                    Read [the guide first.](https://example.com) Then come back.\n\n\
                    - A hard-wrapped list item that goes on\n  past the line end.\n";
        assert_eq!(
            check(page, &gov),
            ["voice.sentence-too-long A hard-wrapped list item that goes on\n  past the line end."]
        );
    }

    #[test]
    fn a_link_s_markup_is_no_bracket_and_emphasis_does_not_break_a_repeated_word() {
        let gov = governance(&[], &[]);
        let page = "Open the **the** [dashboard](https://example.com/Rust_(lang).\n";
        assert_eq!(check(page, &gov), ["hygiene.repeated-word the **the"]);
    }

    #[test]
    fn terms_and_patterns_inside_addresses_are_not_findings() {
        let gov = governance(&["whitelist"], &[r"(?i)\bwhitelist\b", "http://"]);
        let page = "See https://example.com/whitelist-guide, legacy.whitelist.org, \
                    ops@whitelist.io, @whitelist, `x` src/whitelist/config.yaml and \
                    ./whitelist.sh.\n\nAdd it to the whitelist/blacklist at http://x.io.\n";
        assert_eq!(
            check(page, &gov),
            [
                "terms.forbidden whitelist",
                "voice.prohibited-pattern whitelist",
                "voice.prohibited-pattern http://",
            ]
        );
    }

    #[test]
    fn no_rule_reports_a_range_twice() {
        let gov = governance(
            &["whitelist", "white list"],
            &[
                r"(?i)\bwhitelist\b",
                r"(?i)whitelist|blacklist",
                "“",
                r#"""#,
            ],
        );
        let page = "Click “Save to continue. Click \"Save to continue.\n\n\
                    The whitelist and the the (list [x] `y`.\n";
        let found: Vec<(String, usize, usize)> = findings(page, &gov)
            .into_iter()
            .map(|f| (f.rule, f.start, f.end))
            .collect();
        // The mixed quotation pair is one finding; every other rule hits once.
        assert!(found.len() >= 7, "{found:#?}");
        let mut unique = found.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(found.len(), unique.len(), "{found:#?}");
    }
}
