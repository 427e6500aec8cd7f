//! `kapi.change-result/v1`: the set's status, the actor it was stamped with, one entry per
//! operation (in the set's order), one per document, and the governance fingerprint.
//!
//! ```json
//! {"schema": "kapi.change-result/v1", "status": "refused",
//!  "actor": {"kind": "agent", "name": "claude-code", "session": "s-…"},
//!  "operations": [{"index": 0, "op": "set_content", "status": "stale",
//!                  "current": {"rev": "r…", "text": "…"}, "message": "…"}],
//!  "documents": [{"doc": "docs/intro.md", "written": false, "diff": "…"}],
//!  "fingerprint": "g…"}
//! ```

use serde::Serialize;

use super::edit::{Current, Guard};
use crate::check::edition::EditionFinding;
use crate::model::Ref;

/// The set as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SetStatus {
    /// Every operation applied or was already in place, and everything was written (or, under
    /// `dry_run`, would be).
    Applied,
    /// Nothing to do: every operation was already in place.
    Unchanged,
    /// An operation was refused; nothing was written.
    Refused,
    /// The write was interrupted between documents: `documents[].written` says which landed.
    Partial,
}

/// One operation's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OpStatus {
    Applied,
    Unchanged,
    Stale,
    Guard,
    NotFound,
    Unsupported,
    NotPermitted,
    GateFailed,
    NotApplied,
}

impl OpStatus {
    /// Whether this status refuses the set.
    pub fn refuses(self) -> bool {
        !matches!(
            self,
            OpStatus::Applied | OpStatus::Unchanged | OpStatus::NotApplied
        )
    }
    pub fn as_str(self) -> &'static str {
        match self {
            OpStatus::Applied => "applied",
            OpStatus::Unchanged => "unchanged",
            OpStatus::Stale => "stale",
            OpStatus::Guard => "guard",
            OpStatus::NotFound => "not_found",
            OpStatus::Unsupported => "unsupported",
            OpStatus::NotPermitted => "not_permitted",
            OpStatus::GateFailed => "gate_failed",
            OpStatus::NotApplied => "not_applied",
        }
    }
}

/// Who the set was applied as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ActorStamp {
    /// `person`, `agent` or `tool` (or what the transport named, when it is none of those).
    pub kind: String,
    pub name: String,
    pub session: String,
}

/// One operation's entry.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OpResult {
    pub index: usize,
    pub op: &'static str,
    pub status: OpStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Ref>,
    /// The edition's revision after the change (applied, unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// `replace_text`: how many occurrences were replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// `stale`: the edition as it is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<Current>,
    /// `guard`: the code that would be lost, invented, repeated or unbalanced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<Guard>,
    /// The commit check's findings on the changed edition (`gate_failed`: the introduced
    /// failing ones; otherwise every finding after the change, each marked `introduced`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<EditionFinding>,
    /// `not_permitted` (and some refusals): what to do instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instead: Option<String>,
    /// Where an asset landed (`.kapi/terms.yaml`, `store`, `kapi.yaml`, `.kapi/decisions.jsonl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<String>,
    pub message: String,
}

impl OpResult {
    pub fn new(
        index: usize,
        op: &'static str,
        status: OpStatus,
        message: impl Into<String>,
    ) -> Self {
        OpResult {
            index,
            op,
            status,
            at: None,
            rev: None,
            count: None,
            current: None,
            guard: None,
            findings: Vec::new(),
            instead: None,
            landed: None,
            message: message.into(),
        }
    }
}

/// One document the set touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DocResult {
    pub doc: String,
    pub written: bool,
    /// `f` + 16 hex of the file's bytes before and after.
    pub rev_before: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rev_after: Option<String>,
    /// A unified diff of the file's text (empty for a binary container such as .docx, whose
    /// changes the operations describe).
    pub diff: String,
    /// A source file's comment edit: what the comment write path verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment_write: Option<CommentWrite>,
}

/// What the comment write path verified of an edited source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CommentWrite {
    /// The file parses after the edit with no syntax error it did not have before.
    pub parses: bool,
    /// The formatter that agreed with the edited file (`rustfmt agrees`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formatter: Option<String>,
    /// Why no formatter verified the edit (none installed, the file was not formatted before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_verified: Option<String>,
}

/// The whole result.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ChangeResult {
    pub schema: &'static str,
    pub status: SetStatus,
    /// Computed and checked, nothing written (`--dry-run`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    pub actor: ActorStamp,
    pub operations: Vec<OpResult>,
    pub documents: Vec<DocResult>,
    /// The governance the commit check resolved: one fingerprint, or one over several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// The change record's id in the project store, when one was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<i64>,
    /// Why the write stopped (`partial`), naming the document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ChangeResult {
    /// Whether any operation was refused (exit 3).
    pub fn refused(&self) -> bool {
        matches!(self.status, SetStatus::Refused | SetStatus::Partial)
    }
}
