//! Governance: the voice profiles and terms that hold at a point of a project, loaded from the
//! committed files and compiled for the analyzers (term matcher, regexes, fingerprint).

pub mod error;
pub mod load;
pub mod matcher;
pub mod notes;
pub mod terms;
pub mod terms_edit;
pub mod variants;
pub mod voice;

use regex::Regex;
use serde::{Deserialize, Serialize};

pub use error::{GovernanceError, Problem};
pub use matcher::{TermMatch, TermMatcher};

/// How much a finding weighs. Penalties: critical 25, major 5, minor 1, info 0.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Major,
    #[default]
    Minor,
    Info,
}

impl Severity {
    pub fn penalty(self) -> u32 {
        match self {
            Severity::Critical => 25,
            Severity::Major => 5,
            Severity::Minor => 1,
            Severity::Info => 0,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Major => "major",
            Severity::Minor => "minor",
            Severity::Info => "info",
        }
    }
}

/// A term's standing in the project.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TermStatus {
    Preferred,
    Admitted,
    Deprecated,
    Forbidden,
    Competitor,
    /// Recorded by an assistant, not yet kept by a person: never enforced.
    Suggested,
}

impl TermStatus {
    /// Deprecated, forbidden and competitor terms are to be avoided.
    pub fn discouraged(self) -> bool {
        matches!(
            self,
            TermStatus::Deprecated | TermStatus::Forbidden | TermStatus::Competitor
        )
    }
    pub fn as_str(self) -> &'static str {
        match self {
            TermStatus::Preferred => "preferred",
            TermStatus::Admitted => "admitted",
            TermStatus::Deprecated => "deprecated",
            TermStatus::Forbidden => "forbidden",
            TermStatus::Competitor => "competitor",
            TermStatus::Suggested => "suggested",
        }
    }
}

/// Where a term in force came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TermOrigin {
    /// `.kapi/terms.yaml` (or a profile's termstore).
    Terms,
    /// The voice profile's `vocabulary`.
    Voice,
}

/// One term in force at a point, for one language, ready for the matcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TermEntry {
    pub text: String,
    pub lang: String,
    pub status: TermStatus,
    pub case_sensitive: bool,
    /// What to write instead: the term's own replacement, else its concept's preferred term
    /// in the same language. Set only for discouraged terms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// A severity the rule sets for itself, overriding the status's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    pub origin: TermOrigin,
    /// Phrases in which the term is allowed (`exceptions:` in the terms file): a match inside
    /// one of them is not a finding (the check lists it as suppressed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<TermException>,
}

/// One phrase in which a term is allowed (`ReactJS Day` for a forbidden `ReactJS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TermException {
    /// The phrase as the terms file writes it.
    pub text: String,
    /// Where it is declared, `FILE:LINE` (`.kapi/terms.yaml:14`), when the loader knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl TermException {
    /// What allows a match of `term` inside this phrase, as the check's report names it:
    /// ``exception `ReactJS Day` of `ReactJS` (.kapi/terms.yaml:14)``.
    pub fn allows(&self, term: &str) -> String {
        let mut out = format!("exception `{}` of `{}`", self.text.trim(), term.trim());
        if let Some(at) = &self.at {
            out.push_str(&format!(" ({at})"));
        }
        out
    }
}

impl TermEntry {
    /// A term from the terms files with no replacement, note or severity of its own.
    pub fn new(text: impl Into<String>, lang: impl Into<String>, status: TermStatus) -> Self {
        TermEntry {
            text: text.into(),
            lang: lang.into(),
            status,
            case_sensitive: false,
            replacement: None,
            note: None,
            concept: None,
            definition: None,
            severity: None,
            origin: TermOrigin::Terms,
            exceptions: Vec::new(),
        }
    }
}

/// A compiled `style.prohibited_patterns` or `style.required_patterns` rule.
#[derive(Debug, Clone)]
pub struct PatternRule {
    pub regex: Regex,
    pub description: Option<String>,
    pub severity: Severity,
    /// The field it came from, for messages (`style.prohibited_patterns[0]`).
    pub field: String,
}

/// Measurable limits from `style.constraints`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Constraints {
    /// Longest sentence allowed, in words.
    pub max_sentence_words: Option<u32>,
    /// Most sentences allowed in one paragraph.
    pub max_paragraph_sentences: Option<u32>,
    /// Severity of a broken constraint (default minor).
    pub severity: Severity,
}

/// A piece of guidance in force that no analyzer implements (tone "warm", active voice…):
/// listed in the report's coverage, never silently passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unassessed {
    /// The field that states it (`tone.emotion`).
    pub guidance: String,
    /// What it asks for, as written (`warm`).
    pub value: String,
}

/// Everything that governs one point for one language, compiled for the analyzers.
#[derive(Debug, Clone)]
pub struct Governance {
    /// The voice in force after channel and locale overrides, when one is bound.
    pub voice: Option<voice::VoiceProfile>,
    /// Project-relative path of the voice file, when one is bound.
    pub voice_source: Option<String>,
    /// Terms in force for the language: the terms files and the voice's vocabulary.
    pub terms: Vec<TermEntry>,
    pub matcher: TermMatcher,
    pub prohibited: Vec<PatternRule>,
    pub required: Vec<PatternRule>,
    pub constraints: Constraints,
    /// `g` + 16 hex of SHA-256 over the canonical voice and terms in force.
    pub fingerprint: String,
    pub unassessed: Vec<Unassessed>,
    /// Non-fatal facts worth telling the reader (a voice channel with no override, …).
    pub notes: Vec<String>,
}

impl Governance {
    /// No voice and no terms: hygiene alone applies.
    pub fn empty() -> Self {
        Governance {
            voice: None,
            voice_source: None,
            terms: Vec::new(),
            matcher: TermMatcher::new(&[]),
            prohibited: Vec::new(),
            required: Vec::new(),
            constraints: Constraints::default(),
            fingerprint: load::fingerprint_of(None, &[]),
            unassessed: Vec::new(),
            notes: Vec::new(),
        }
    }
}
