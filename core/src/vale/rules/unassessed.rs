//! The kinds this engine parses and does not assess: `spelling`, `sequence` and `script`.
//! Their fields are read (a file Vale loads loads here) and running one gives an
//! [`Outcome::Unassessed`](super::Outcome) with the reason below.

use serde_yaml::Value;

use super::RuleError;
use super::decode::Decoder;

pub(crate) const SPELLING: &str = "spelling rules are not assessed yet: they need a Hunspell dictionary and its filters, which the engine does not load";
pub(crate) const SEQUENCE: &str = "sequence rules are not assessed: they match part-of-speech tags, and kapi has no part-of-speech tagger";
pub(crate) const SCRIPT: &str = "script rules are not assessed: they run Tengo scripts, and kapi runs no scripts from style packages";

/// The fields of a `spelling` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spelling {
    pub filters: Vec<String>,
    pub ignore: Vec<String>,
    pub exceptions: Vec<String>,
    pub dictionaries: Vec<String>,
    pub aff: String,
    pub dic: String,
    pub dicpath: String,
    pub threshold: usize,
    pub custom: bool,
    pub append: bool,
}

impl Spelling {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            filters: d.strings("filters")?,
            ignore: d.strings("ignore")?,
            exceptions: d.strings("exceptions")?,
            dictionaries: d.strings("dictionaries")?,
            aff: d.string("aff")?,
            dic: d.string("dic")?,
            dicpath: d.string("dicpath")?,
            threshold: d.count("threshold")?,
            custom: d.bool("custom", false)?,
            append: d.bool("append", false)?,
        })
    }
}

/// The fields of a `sequence` rule: its tokens kept as written (pattern, tag, skip, negate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    pub tokens: Vec<Value>,
    pub ignorecase: bool,
}

impl Sequence {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        let tokens = match d.value("tokens") {
            None => Vec::new(),
            Some(Value::Sequence(items)) => items,
            Some(other) => vec![other],
        };
        Ok(Self {
            tokens,
            ignorecase: d.bool("ignorecase", false)?,
        })
    }
}

/// The fields of a `script` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    pub script: String,
}

impl Script {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            script: d.string("script")?,
        })
    }
}
