//! The change contract: `kapi.change/v1` change sets (decoded strictly, with the operation's
//! index and field in every error), edits of one edition in memory, the commit gate's
//! "introduced" rule, the whole-or-nothing multi-file write, and `kapi.change-result/v1`.
//!
//! The service that strings these together lives in the host (it resolves projects, the
//! actor's policy and governance); everything here is pure, apart from [`stage::commit`],
//! which writes the staged files.

pub mod decode;
pub mod edit;
pub mod forms;
pub mod gate;
pub mod result;
pub mod schema;
pub mod stage;

use serde::Serialize;

use crate::governance::terms_edit::TermUpsert;
use crate::model::Ref;

pub use decode::{DecodeError, MAX_OPERATIONS, decode};

/// The schema id of a change set.
pub const SCHEMA: &str = "kapi.change/v1";
/// The schema id of a change set's result.
pub const RESULT_SCHEMA: &str = "kapi.change-result/v1";

/// A decoded change set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeSet {
    pub schema: &'static str,
    /// `enforce` (default): an introduced failing finding refuses the set; `report`: it is
    /// reported and lands (a person's or a tool's choice).
    pub gate: GateMode,
    pub operations: Vec<Operation>,
}

/// How the commit check's findings are held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GateMode {
    #[default]
    Enforce,
    Report,
}

/// How `replace_text` matches `find`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// Every occurrence, wherever it is.
    #[default]
    Literal,
    /// Only where no letter, digit or `_` touches it on either side.
    Word,
}

/// A review outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Establish,
    Reject,
    Withdraw,
    Advise,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Establish => "establish",
            Outcome::Reject => "reject",
            Outcome::Withdraw => "withdraw",
            Outcome::Advise => "advise",
        }
    }
}

/// A content-memory pair: a source text and its translation into one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryPair {
    pub source: String,
    pub target: String,
    /// Default: the project's source language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_lang: Option<String>,
    pub target_lang: String,
    /// `reviewed`, `signed-off`, or none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A note to keep: `text`, or `from` and `to` (with `suggest`), at `path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteOp {
    /// Project-relative folder or file (`.` for the whole project).
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggest: Option<String>,
}

/// One operation of a change set.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    /// Replaces an edition's (or one branch's) text, given in the `<x id>` projection.
    SetContent {
        at: Ref,
        if_match: String,
        content: String,
    },
    /// Finds and replaces within an edition's text runs (never inside or across a code).
    ReplaceText {
        at: Ref,
        if_match: String,
        find: String,
        replace: String,
        #[serde(rename = "match")]
        mode: MatchMode,
        /// Replace at most this many occurrences, first first.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<usize>,
    },
    /// A review outcome on the edition revision that was read.
    Decide {
        at: Ref,
        if_match: String,
        outcome: Outcome,
        #[serde(skip_serializing_if = "Option::is_none")]
        score: Option<u8>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        reasons: Vec<String>,
    },
    /// A term (any word rule) for `.kapi/terms.yaml`.
    Term { term: TermUpsert },
    /// A content-memory pair.
    Memory { pair: MemoryPair },
    /// A context note a person keeps directly (the refresh path): an observation or a
    /// person's change, scoped to a path.
    Note { note: NoteOp },
    /// One allowlisted recipe field ([`decode::RECIPE_FIELDS`]).
    Recipe {
        field: String,
        value: serde_json::Value,
    },
}

impl Operation {
    /// The `op` name.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::SetContent { .. } => "set_content",
            Operation::ReplaceText { .. } => "replace_text",
            Operation::Decide { .. } => "decide",
            Operation::Term { .. } => "term",
            Operation::Memory { .. } => "memory",
            Operation::Note { .. } => "note",
            Operation::Recipe { .. } => "recipe",
        }
    }

    /// The edition it names, for content and decide operations.
    pub fn at(&self) -> Option<&Ref> {
        match self {
            Operation::SetContent { at, .. }
            | Operation::ReplaceText { at, .. }
            | Operation::Decide { at, .. } => Some(at),
            _ => None,
        }
    }

    /// The revision it was read at, for content and decide operations.
    pub fn if_match(&self) -> Option<&str> {
        match self {
            Operation::SetContent { if_match, .. }
            | Operation::ReplaceText { if_match, .. }
            | Operation::Decide { if_match, .. } => Some(if_match),
            _ => None,
        }
    }

    /// Whether it edits content (`set_content`, `replace_text`).
    pub fn is_content(&self) -> bool {
        matches!(
            self,
            Operation::SetContent { .. } | Operation::ReplaceText { .. }
        )
    }
}

/// `if_match` that writes over whatever the edition holds (a person's choice only).
pub const BLIND: &str = "*";
