//! Checks: the deterministic analyzers ([`analyzers`], one per file), their findings, the score
//! and the gate, and the report's renderings for other tools ([`render`]).
//! `check_document` runs every analyzer over one read document under the governance in force.
//!
//! Cost: a check is linear in its input. Analyzers hand each hit to a [`Sink`] as they find
//! it, the report locates it at once (line and column from an index, never by counting the
//! line from its start) and holds at most [`MAX_FINDINGS`] ([`Findings`]), so neither a block
//! of a million slips nor one long line costs more than its size. A caller may stop a check
//! from another thread with [`CheckInput::cancel`]; it is polled between blocks and hits.

pub mod analyzers;
pub mod document;
pub mod edition;
pub mod findings;
pub mod not_words;
pub mod render;
pub mod report;
pub mod score;
pub mod sentences;
pub mod suppress;
pub mod unreadable;

use std::collections::HashSet;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::governance::{Governance, Severity};
use crate::model::{Document, Edition};
use analyzers::{functional, placeholders, plurals, translation_terms};

pub use analyzers::rule::Rule;
pub use document::{Checked, DocumentCheck};
pub use findings::{Findings, MAX_FINDINGS, report_order};
pub use report::{
    CacheUse, CheckReport, Coverage, FailOn, Gate, GateResult, Scoring, StaleTranslation, Summary,
    Target,
};
pub use score::{FileScore, FileTally};
pub use suppress::{Suppressed, SuppressedBy, Suppression};

/// The analyzers `kapi check` runs, in order.
pub const ANALYZERS: &[&str] = &[
    "hygiene",
    "terms",
    "voice",
    "placeholders",
    "plurals",
    "translation-terms",
    "translation",
    "suppress",
    "read",
];

/// What an analyzer found in one block's prose, in offsets of the prose view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: &'static Rule,
    pub severity: Severity,
    /// Byte range in [`crate::text::Prose::text`].
    pub range: Range<usize>,
    pub message: String,
    pub suggestion: Option<String>,
    /// Set when the project allows this match where it stands (a term's `exceptions:`): what
    /// allows it, as the report names it. The check counts and lists such a hit as suppressed,
    /// never as a finding.
    pub suppressed_by: Option<String>,
}

/// Where an analyzer puts its hits: a `Vec<Hit>`, or [`Each`], a function that takes each as
/// it comes (the report, so a block with a million hits never holds them all at once).
pub trait Sink {
    fn push(&mut self, hit: Hit);
}

impl Sink for Vec<Hit> {
    fn push(&mut self, hit: Hit) {
        Vec::push(self, hit);
    }
}

/// A [`Sink`] that calls a function with each hit.
pub struct Each<F>(pub F);

impl<F: FnMut(Hit)> Sink for Each<F> {
    fn push(&mut self, hit: Hit) {
        (self.0)(hit);
    }
}

/// How many characters of what matched a text output quotes.
pub const QUOTE_CHARS: usize = 48;

/// One finding, located in its file. Field names are the `kapi.check/v1` contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Where the rule is documented, for a rule that names a page (a Vale rule's `link`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Finding {
    /// Where it is, as every text output names it: `path:line:column`, or for a finding with
    /// no location `path [block]` (or the path alone).
    pub fn location(&self) -> String {
        match (self.line, &self.block) {
            (0, Some(block)) => format!("{} [{block}]", self.path),
            (0, None) => self.path.clone(),
            (line, _) => format!("{}:{line}:{}", self.path, self.column),
        }
    }

    /// The message and, when there is one, what to write instead: ``…; use `sign in` ``.
    /// When the message does not already quote what matched, that comes first:
    /// ``` `simply`: Minimising words ```.
    pub fn advice(&self) -> String {
        let mut advice = match self.quote() {
            Some(quote) => format!("`{quote}`: {}", self.message),
            None => self.message.clone(),
        };
        if let Some(s) = &self.suggestion {
            advice.push_str(&format!("; use `{s}`"));
        }
        advice
    }

    /// What matched, as the text outputs quote it: on one line, cut to
    /// [`QUOTE_CHARS`] characters with `…`; none when nothing matched or the message quotes it.
    pub fn quote(&self) -> Option<String> {
        let matched = self.matched.as_deref()?;
        let mut one_line = String::with_capacity(matched.len().min(4 * QUOTE_CHARS));
        for (i, word) in matched.split_whitespace().enumerate() {
            if i > 0 {
                one_line.push(' ');
            }
            one_line.push_str(word);
            if one_line.len() > 4 * QUOTE_CHARS {
                break;
            }
        }
        if one_line.is_empty() || self.message.contains(&format!("`{one_line}`")) {
            return None;
        }
        if one_line.chars().count() > QUOTE_CHARS {
            let cut: String = one_line.chars().take(QUOTE_CHARS - 1).collect();
            // At a word's end when one is in the second half.
            let cut = match cut.rfind(' ') {
                Some(space) if space > cut.len() / 2 => &cut[..space],
                _ => cut.as_str(),
            };
            one_line = format!("{}…", cut.trim_end());
        }
        Some(one_line)
    }

    /// A stable identity for the finding that survives its lines moving: a hash of its rule,
    /// its file, what it matched (or its message), and `occurrence`, which one of the file's
    /// findings with that rule and match it is (0 for the first). Code scanning keeps an
    /// alert's identity by it (SARIF `partialFingerprints`).
    pub fn fingerprint(&self, occurrence: usize) -> String {
        use sha2::Digest;
        let what = self.matched.as_deref().unwrap_or(&self.message);
        let words: Vec<&str> = what.split_whitespace().collect();
        let mut hash = sha2::Sha256::new();
        for part in [self.rule.as_str(), self.path.as_str(), &words.join(" ")] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.update(occurrence.to_le_bytes());
        hash.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The one line every text output gives a finding (the CLI's text, the hook's reason,
    /// MCP's text answers): `location severity rule advice`. The CLI adds colour only.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {}",
            self.location(),
            self.severity.as_str(),
            self.rule,
            self.advice()
        )
    }
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
    /// Set from another thread to stop the check: polled before each block and at each hit
    /// (a cancelled check stops locating and holding hits at once), and the check then
    /// returns what it found so far (the caller that set it discards that).
    pub cancel: Option<&'a AtomicBool>,
}

/// Runs every analyzer over a document: its findings (at most [`MAX_FINDINGS`] held, every
/// one counted).
pub fn check_document(input: &CheckInput<'_>) -> Findings {
    document::run_analyzers(input, &|_| true)
}

/// [`check_document`] keeping only the findings of the rules `keep` accepts (before the cap,
/// so a flood of other findings never pushes them out).
pub fn check_document_where(input: &CheckInput<'_>, keep: &dyn Fn(&Rule) -> bool) -> Findings {
    document::run_analyzers(input, keep)
}

/// One translation to check against its source.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    pub key: &'a str,
    pub source: &'a Edition,
    pub target: &'a Edition,
    /// File offset findings on this target point at (its block, or its own hole).
    pub at: usize,
}

/// The translations of one file into one language.
pub struct TranslationInput<'a> {
    /// The file findings name: the target file of a catalog, the bilingual file itself.
    pub path: &'a str,
    /// That file's text (for line and column).
    pub text: &'a str,
    pub lang: &'a str,
    pub pairs: Vec<Pair<'a>>,
    pub source_governance: &'a Governance,
    pub target_governance: &'a Governance,
    /// The file's own `Plural-Forms` fault, when it has a header that has one (a PO file:
    /// [`crate::formats::po::plural_header_fault`]).
    pub plural_header: Option<(String, usize)>,
    /// `translation.unchanged` turned on (the recipe's `enable: true`), with its `allow:`
    /// strings; `None`: off.
    pub unchanged: Option<&'a [String]>,
}

/// Runs `placeholders`, `translation-terms` and `translation` over each pair, sorted like
/// [`check_document`]'s findings.
pub fn check_translations(input: &TranslationInput<'_>) -> Vec<Finding> {
    check_translations_counted(input).0
}

/// [`check_translations`], with the words of the translations checked and the findings a term's
/// `exceptions:` allow (set apart, never findings).
pub fn check_translations_counted(
    input: &TranslationInput<'_>,
) -> (Vec<Finding>, usize, Vec<Suppressed>) {
    let mut check = TranslationCheck::new(input.path);
    check.unchanged = input.unchanged.map(<[String]>::to_vec);
    for pair in &input.pairs {
        check.pair(
            input.text,
            input.lang,
            pair,
            input.source_governance,
            input.target_governance,
        );
    }
    check.plural_header(input.text, input.lang, input.plural_header.clone());
    let words = check.words();
    let (findings, excepted) = check.finish_all();
    (findings, words, excepted)
}

/// [`check_translations`] fed one pair at a time (a bilingual file read block by block).
pub struct TranslationCheck<'a> {
    /// The file findings name.
    path: &'a str,
    /// Built at the first finding: line starts of the text the pairs' offsets index.
    lines: Option<crate::text::LineIndex>,
    findings: Vec<Finding>,
    /// Target-language terms inside one of their `exceptions:`, set apart.
    excepted: Vec<Suppressed>,
    /// Words in the translations checked.
    words: usize,
    /// The accelerator markers of the file's type ([`functional::accelerator_markers`]).
    markers: &'static [char],
    /// The plural categories of each target language, and whether the file's plural header
    /// fault is reported (once per file).
    plurals: plurals::Languages,
    header_reported: bool,
    /// `translation.unchanged` on, with the strings it allows; `None`: off (its default).
    pub unchanged: Option<Vec<String>>,
}

impl<'a> TranslationCheck<'a> {
    pub fn new(path: &'a str) -> Self {
        TranslationCheck {
            path,
            lines: None,
            findings: Vec::new(),
            excepted: Vec::new(),
            words: 0,
            markers: functional::accelerator_markers(path),
            plurals: plurals::Languages::default(),
            header_reported: false,
            unchanged: None,
        }
    }

    /// Words in the translations checked so far (what weighs the file's score).
    pub fn words(&self) -> usize {
        self.words
    }

    /// Checks one translation into `lang`; `text` is the file's text its offsets index.
    pub fn pair(
        &mut self,
        text: &str,
        lang: &str,
        pair: &Pair<'_>,
        source_governance: &Governance,
        target_governance: &Governance,
    ) {
        let lines = &mut self.lines;
        let prose = crate::text::Prose::from_edition(pair.target);
        self.words += analyzers::hygiene::word_count(&prose.text);
        let path = self.path;
        let locate = |rule: &'static Rule,
                      severity: Severity,
                      range: Range<usize>,
                      message: String,
                      matched: Option<String>,
                      suggestion: Option<String>| {
            let start = if range.is_empty() {
                pair.at
            } else {
                prose.file_offset(range.start).unwrap_or(pair.at)
            }
            .min(text.len());
            let end = if range.is_empty() {
                start
            } else {
                prose
                    .file_end(&range)
                    .filter(|&e| e >= start && e <= text.len())
                    .unwrap_or(start)
            };
            let (line, column) = lines
                .get_or_insert_with(|| crate::text::LineIndex::new(text))
                .position(text, start);
            Finding {
                link: None,
                rule: rule.id.to_owned(),
                severity,
                path: path.to_owned(),
                line,
                column,
                start,
                end,
                block: Some(pair.key.to_owned()),
                message: format!("{} ({})", message, lang),
                matched,
                suggestion,
            }
        };
        let mut locate = locate;
        for m in placeholders::compare(pair.source, pair.target) {
            let finding = locate(m.rule, m.rule.severity, 0..0, m.message, Some(m.data), None);
            self.findings.push(finding);
        }
        if let Some(allow) = &self.unchanged
            && analyzers::unchanged::reported(pair.source, pair.target, allow)
        {
            let rule = &analyzers::unchanged::UNCHANGED;
            let message = "the translation is its source's text, unchanged; translate it, or add the string to `rules.translation.unchanged.allow` in kapi.yaml".to_owned();
            let finding = locate(rule, rule.severity, 0..0, message, None, None);
            self.findings.push(finding);
        }
        for m in plurals::compare_to(pair.source, pair.target, lang, &mut self.plurals) {
            let finding = locate(m.rule, m.rule.severity, 0..0, m.message, Some(m.data), None);
            self.findings.push(finding);
        }

        for (m, severity) in functional::compare(pair.source, pair.target, lang, self.markers) {
            let matched = (!m.data.is_empty()).then_some(m.data);
            let finding = locate(m.rule, severity, 0..0, m.message, matched, None);
            self.findings.push(finding);
        }
        for gap in translation_terms::compare(
            source_governance,
            target_governance,
            lang,
            pair.source,
            pair.target,
        ) {
            let matched = prose.matched(gap.range.clone());
            let allowed = gap.suppressed_by;
            let finding = locate(
                gap.rule,
                gap.severity,
                gap.range,
                gap.message,
                matched,
                gap.suggestion,
            );
            match allowed {
                Some(text) => self.excepted.push(Suppressed {
                    finding,
                    suppressed_by: SuppressedBy {
                        kind: suppress::SuppressionKind::Exception,
                        text,
                        path: None,
                        line: None,
                    },
                }),
                None => self.findings.push(finding),
            }
        }
        self.plural_header(text, lang, plurals::header_fault(pair.target));
    }

    /// Reports a PO file's `Plural-Forms` fault (`plurals.header`) at the header, once per
    /// file: `fault` is what [`crate::formats::po::plural_header_fault`] or a target's switch
    /// says, `text` the file's text.
    pub fn plural_header(&mut self, text: &str, lang: &str, fault: Option<(String, usize)>) {
        let Some((fault, at)) = fault else { return };
        if self.header_reported {
            return;
        }
        self.header_reported = true;
        let at = at.min(text.len());
        let (line, column) = self
            .lines
            .get_or_insert_with(|| crate::text::LineIndex::new(text))
            .position(text, at);
        self.findings.push(Finding {
            link: None,
            rule: plurals::HEADER.id.to_owned(),
            severity: plurals::HEADER.severity,
            path: self.path.to_owned(),
            line,
            column,
            start: at,
            end: at,
            block: None,
            message: format!("the Plural-Forms header: {fault} ({lang})"),
            matched: None,
            suggestion: None,
        });
    }

    /// The findings, sorted like [`check_document`]'s.
    pub fn finish(self) -> Vec<Finding> {
        self.finish_all().0
    }

    /// The findings, sorted like [`check_document`]'s, and those a term's `exceptions:` set
    /// apart.
    pub fn finish_all(mut self) -> (Vec<Finding>, Vec<Suppressed>) {
        self.findings.sort_by(|a, b| {
            (a.line, a.column, a.rule.as_str()).cmp(&(b.line, b.column, b.rule.as_str()))
        });
        (self.findings, self.excepted)
    }
}

#[cfg(test)]
mod finding_line_tests {
    use super::*;

    #[test]
    fn a_finding_reads_as_one_line_with_or_without_a_location() {
        let mut f = Finding {
            link: None,
            rule: "terms.forbidden".into(),
            severity: Severity::Major,
            path: "docs/a.md".into(),
            line: 3,
            column: 7,
            start: 20,
            end: 27,
            block: Some("s1/p".into()),
            message: "`utilize` is forbidden here".into(),
            matched: Some("utilize".into()),
            suggestion: Some("use".into()),
        };
        assert_eq!(
            f.line(),
            "docs/a.md:3:7 major terms.forbidden `utilize` is forbidden here; use `use`"
        );
        f.line = 0;
        f.suggestion = None;
        assert_eq!(f.location(), "docs/a.md [s1/p]");
        assert_eq!(f.advice(), "`utilize` is forbidden here");
        f.block = None;
        assert_eq!(f.location(), "docs/a.md");
    }
}
