//! The engine's surface: a piece of scoped text in, alerts (or the reason a rule is not
//! assessed) out, with the per-file state Vale keeps between pieces.
//!
//! The caller splits a document into pieces the way Vale does (a heading, a list item or a
//! table cell is one `text.…` piece; a paragraph is a `paragraph`, its `sentence`s and a
//! `text` piece, which [`prose_scopes`] makes) and runs each compiled rule on each piece,
//! keeping one [`FileState`] per file. Ranges are byte offsets in the file: the piece's
//! `offset` plus the match's place in the piece. The document rules (`metric`,
//! `readability`) run once per file instead, on its [`Metrics`]
//! ([`CompiledRule::run_document`]).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::metric::{Metrics, go_fixed};
use super::scope::Scope;
use super::{
    Action, Check, Level, Rule, RuleError, capitalization, conditional, consistency, existence,
    metric, occurrence, pattern, readability, repetition, substitution, unassessed,
};

/// The kind of a piece of text, as Vale scopes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// A paragraph's whole text (Vale's `text` block of prose), or a whole plain-text file.
    Text,
    /// A paragraph.
    Paragraph,
    /// A sentence of a paragraph.
    Sentence,
    /// A heading of level 1 to 6 (`text.heading.h1`).
    Heading(u8),
    /// A list item (`text.list`).
    List,
    /// A table's header cell (`text.table.header`).
    TableHeader,
    /// A table's cell (`text.table.cell`).
    TableCell,
    /// A table's caption (`text.table.caption`).
    TableCaption,
    /// A block quote (`text.blockquote`).
    Blockquote,
    /// A figure's caption (`text.figure.caption`).
    FigureCaption,
    /// An image's alternative text (`text.attr.alt`).
    Alt,
    /// The document's prose in one piece: paragraphs, list items and quotes (`summary`).
    Summary,
    /// The file's markup as written (`raw`).
    Raw,
}

impl ScopeKind {
    fn sections(self) -> &'static [&'static str] {
        match self {
            Self::Text => &["text"],
            Self::Paragraph => &["paragraph"],
            Self::Sentence => &["sentence"],
            Self::Heading(1) => &["text", "heading", "h1"],
            Self::Heading(2) => &["text", "heading", "h2"],
            Self::Heading(3) => &["text", "heading", "h3"],
            Self::Heading(4) => &["text", "heading", "h4"],
            Self::Heading(5) => &["text", "heading", "h5"],
            Self::Heading(_) => &["text", "heading", "h6"],
            Self::List => &["text", "list"],
            Self::TableHeader => &["text", "table", "header"],
            Self::TableCell => &["text", "table", "cell"],
            Self::TableCaption => &["text", "table", "caption"],
            Self::Blockquote => &["text", "blockquote"],
            Self::FigureCaption => &["text", "figure", "caption"],
            Self::Alt => &["text", "attr", "alt"],
            Self::Summary => &["summary"],
            Self::Raw => &["raw"],
        }
    }
}

/// A piece of a file's text with its kind and its byte offset in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopedText<'a> {
    pub text: &'a str,
    pub kind: ScopeKind,
    /// The byte offset of `text` in the file.
    pub offset: usize,
    /// The file's format as Vale names it in scopes (`md`, `rst`, `adoc`, …), or empty.
    pub format: &'a str,
}

impl<'a> ScopedText<'a> {
    pub fn new(text: &'a str, kind: ScopeKind, offset: usize, format: &'a str) -> Self {
        Self {
            text,
            kind,
            offset,
            format,
        }
    }

    fn sections(&self) -> Vec<&str> {
        let mut s = self.kind.sections().to_vec();
        if !self.format.is_empty() {
            s.push(self.format);
        }
        s
    }
}

/// The sentences of a paragraph's prose, as `voice.sentence-too-long` finds them (kapi's
/// splitter, not Vale's: see the module notes), each a `sentence` piece.
pub fn sentence_scopes<'a>(paragraph: &ScopedText<'a>) -> Vec<ScopedText<'a>> {
    let mut out = Vec::new();
    crate::check::sentences::for_each_sentence(paragraph.text, |range, _| {
        if let Some(text) = paragraph.text.get(range.clone()) {
            out.push(ScopedText::new(
                text,
                ScopeKind::Sentence,
                paragraph.offset + range.start,
                paragraph.format,
            ));
        }
    });
    out
}

/// The pieces Vale makes of a block of prose (its `doNLP`): each paragraph (the text split
/// after each blank line), each sentence, and the whole as a `text` piece.
pub fn prose_scopes<'a>(text: &'a str, offset: usize, format: &'a str) -> Vec<ScopedText<'a>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive("\n\n") {
        out.push(ScopedText::new(
            piece,
            ScopeKind::Paragraph,
            offset + start,
            format,
        ));
        start += piece.len();
    }
    let whole = ScopedText::new(text, ScopeKind::Text, offset, format);
    out.extend(sentence_scopes(&whole));
    out.push(whole);
    out
}

/// One alert of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// `Style.Rule`.
    pub rule_id: String,
    pub level: Level,
    /// The rule's message with its `%s` filled.
    pub message: String,
    /// The rule's description with its `%s` filled.
    pub description: String,
    pub link: String,
    /// The text the alert is about.
    pub matched: String,
    /// Its byte range in the file.
    pub range: Range<usize>,
    /// The fix, with the parameters the rule computed (a substitution's replacements).
    pub action: Option<Action>,
}

/// What running a rule on a piece of text gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The rule ran: its alerts (none when the piece is out of its scope).
    Assessed(Vec<Alert>),
    /// The rule's kind is not assessed by this engine; the reason says why.
    Unassessed { rule_id: String, reason: String },
}

impl Outcome {
    /// The alerts; none when unassessed.
    pub fn alerts(&self) -> &[Alert] {
        match self {
            Self::Assessed(a) => a,
            Self::Unassessed { .. } => &[],
        }
    }
}

/// What Vale keeps per file while it lints: the definitions and spellings seen so far
/// (`conditional`, `consistency`), the places already reported and the alerts counted for
/// `limit`. One per file; start a new one for the next file.
#[derive(Debug, Default, Clone)]
pub struct FileState {
    pub(crate) sequences: HashSet<String>,
    seen: HashSet<(String, usize)>,
    counts: HashMap<String, usize>,
}

/// An alert as a kind finds it: its place in the piece, what fills the message's `%s`, and
/// the action (with computed parameters) when it differs from the rule's.
pub(crate) struct Draft {
    pub(crate) range: Range<usize>,
    pub(crate) subs: Vec<String>,
    pub(crate) action: Option<Action>,
    /// A message other than the rule's (a substitution rewrites `'%s'` quoting).
    pub(crate) message: Option<String>,
}

impl Draft {
    /// Vale's `makeAlert`: the match fills the first `%s`, the fix (with an action) the next.
    pub(crate) fn at(rule: &Rule, text: &str, range: Range<usize>) -> Self {
        let matched = text.get(range.clone()).unwrap_or_default().to_owned();
        let mut subs = vec![matched.clone()];
        if let Some(action) = &rule.action {
            let fixed = pattern::fixes(action, &matched);
            subs.push(match fixed.as_slice() {
                [] => matched,
                [one] => one.clone(),
                many => pattern::to_sentence(many, "or"),
            });
        }
        Self {
            range,
            subs,
            action: rule.action.clone(),
            message: None,
        }
    }
}

#[derive(Debug, Clone)]
enum Matcher {
    Existence(existence::Compiled),
    Substitution(Box<substitution::Compiled>),
    Occurrence(occurrence::Compiled),
    Repetition(repetition::Compiled),
    Consistency(consistency::Compiled),
    Conditional(conditional::Compiled),
    Capitalization(Box<capitalization::Compiled>),
    Metric(Box<metric::Compiled>),
    Readability(readability::Compiled),
    Unassessed(String),
}

/// A rule with its regexes built, ready to run.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    pub rule: Rule,
    scope: Scope,
    matcher: Matcher,
}

impl CompiledRule {
    /// Builds the rule's regexes; `accepted` is the project's accepted vocabulary (Vale's
    /// `Vocab` accept list), an exception to every rule whose `vocab` is on.
    pub fn compile(rule: Rule, accepted: &[String]) -> Result<Self, RuleError> {
        let f = rule.file.as_str();
        let matcher = match &rule.check {
            Check::Existence(c) => Matcher::Existence(c.compile(f, accepted)?),
            Check::Substitution(c) => Matcher::Substitution(Box::new(c.compile(f, accepted)?)),
            Check::Occurrence(c) => Matcher::Occurrence(c.compile(f)?),
            Check::Repetition(c) => Matcher::Repetition(c.compile(f, accepted)?),
            Check::Consistency(c) => Matcher::Consistency(c.compile(f, &rule.id)?),
            Check::Conditional(c) => Matcher::Conditional(c.compile(f, accepted)?),
            Check::Capitalization(c) => Matcher::Capitalization(Box::new(c.compile(f, accepted)?)),
            Check::Metric(c) => Matcher::Metric(Box::new(c.compile(f)?)),
            Check::Readability(c) => Matcher::Readability(c.compile(f)?),
            Check::Spelling(_) => Matcher::Unassessed(unassessed::SPELLING.to_owned()),
            Check::Sequence(_) => Matcher::Unassessed(unassessed::SEQUENCE.to_owned()),
            Check::Script(_) => Matcher::Unassessed(unassessed::SCRIPT.to_owned()),
        };
        let scope = Scope::new(&rule.scope);
        Ok(Self {
            rule,
            scope,
            matcher,
        })
    }

    /// Why the rule is not assessed, for a kind this engine does not assess.
    pub fn unassessed_reason(&self) -> Option<String> {
        match &self.matcher {
            Matcher::Unassessed(reason) => Some(reason.clone()),
            _ => None,
        }
    }

    /// Whether the rule runs on pieces of this kind and format.
    pub fn applies_to(&self, piece: &ScopedText<'_>) -> bool {
        self.scope.matches(&piece.sections())
    }

    /// Whether the rule runs once per document on its summary ([`run_document`]:
    /// `metric`, `readability`) rather than on pieces ([`run`]).
    ///
    /// [`run_document`]: Self::run_document
    /// [`run`]: Self::run
    pub fn is_document_rule(&self) -> bool {
        matches!(self.matcher, Matcher::Metric(_) | Matcher::Readability(_))
    }

    /// Runs the rule on one piece of a file: its alerts, none when the piece is out of the
    /// rule's scope; for a kind this engine does not assess, `Unassessed` on every piece. A
    /// document rule gives no alerts here: it runs once per file through
    /// [`run_document`](Self::run_document).
    pub fn run(&self, piece: &ScopedText<'_>, state: &mut FileState) -> Outcome {
        if let Matcher::Unassessed(reason) = &self.matcher {
            return self.unassessed(reason.clone());
        }
        if self.is_document_rule() || !self.applies_to(piece) {
            return Outcome::Assessed(Vec::new());
        }
        let (rule, text) = (&self.rule, piece.text);
        let drafts = match &self.matcher {
            Matcher::Existence(c) => c.run(rule, text),
            Matcher::Substitution(c) => c.run(rule, text),
            Matcher::Occurrence(c) => c.run(rule, text),
            Matcher::Repetition(c) => c.run(rule, text),
            Matcher::Consistency(c) => c.run(rule, text, state),
            Matcher::Conditional(c) => c.run(rule, text, state),
            Matcher::Capitalization(c) => c.run(rule, text),
            Matcher::Metric(_) | Matcher::Readability(_) | Matcher::Unassessed(_) => Vec::new(),
        };
        Outcome::Assessed(
            drafts
                .into_iter()
                .filter_map(|d| self.finish(piece, d, state))
                .collect(),
        )
    }

    /// Runs a document rule (`metric`, `readability`) on one file's metrics (see
    /// [`DocumentCounts`](super::DocumentCounts)): at most one alert, at the file's start
    /// (range `0..0`), its `%s` the value as Vale prints it (`%.2f`). A document with no words
    /// gives none. A rule that runs on pieces gives none here; a kind this engine does not
    /// assess gives `Unassessed`, and so does a formula that fails on this document.
    pub fn run_document(&self, metrics: &Metrics, state: &mut FileState) -> Outcome {
        let value = match &self.matcher {
            Matcher::Unassessed(reason) => return self.unassessed(reason.clone()),
            Matcher::Metric(c) => match c.evaluate(metrics) {
                Ok(value) => value,
                Err(why) => {
                    return self.unassessed(format!(
                        "the metric rule fails on this document: {why} (Vale stops with an error)"
                    ));
                }
            },
            Matcher::Readability(c) => c.over(&metrics.text),
            _ => None,
        };
        let Some(value) = value else {
            return Outcome::Assessed(Vec::new());
        };
        let shown = go_fixed(value, 2);
        let draft = Draft {
            range: 0..0,
            subs: vec![shown],
            action: None,
            message: None,
        };
        let whole = ScopedText::new("", ScopeKind::Summary, 0, "");
        Outcome::Assessed(self.finish(&whole, draft, state).into_iter().collect())
    }

    fn unassessed(&self, reason: String) -> Outcome {
        Outcome::Unassessed {
            rule_id: self.rule.id.clone(),
            reason,
        }
    }

    /// The alert of a draft, unless its place was reported already or the limit is reached
    /// (Vale's `AddAlert`).
    fn finish(&self, piece: &ScopedText<'_>, d: Draft, state: &mut FileState) -> Option<Alert> {
        let rule = &self.rule;
        let start = piece.offset + d.range.start;
        if !state.seen.insert((rule.id.clone(), start)) {
            return None;
        }
        if rule.limit > 0 {
            let count = state.counts.entry(rule.id.clone()).or_default();
            if *count >= rule.limit {
                return None;
            }
            *count += 1;
        }
        let subs: Vec<&str> = d.subs.iter().map(String::as_str).collect();
        let message = d.message.as_deref().unwrap_or(&rule.message);
        Some(Alert {
            rule_id: rule.id.clone(),
            level: rule.level,
            message: pattern::format_message(message, &subs),
            description: pattern::format_message(&rule.description, &subs),
            link: rule.link.clone(),
            matched: piece
                .text
                .get(d.range.clone())
                .unwrap_or_default()
                .to_owned(),
            range: start..piece.offset + d.range.end,
            action: d.action,
        })
    }
}
