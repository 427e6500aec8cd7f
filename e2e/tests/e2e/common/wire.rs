//! The JSON shapes the suite reads, as typed structs that deny unknown fields (the contract in
//! the design's §3.5.1 and what the binary prints): a renamed, added or missing field fails.
//!
//! `decode` reads an answer by its `schema` field into [`Answer`]; the harness decodes every
//! structured answer it hands a test through it (`cli_json`, `Out::json`, `Server::tool`), so
//! a shape that drifts fails the test that saw it. A field the binary leaves out when it is
//! empty or absent is `#[serde(default)]`; a field it always writes, even as `null`, is
//! [`nullable`], so leaving it out fails the decode too. The accessors at the end read one
//! field of an untyped answer and fail, naming it, where it is missing or of another type.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A field the binary always writes, maybe as `null`: a plain `Option` would read a missing
/// field as `None`; through this one a missing field fails the decode.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

// ---------------------------------------------------------------------------------------------
// kapi.check/v1

/// `kapi check --json`, `check_file`, `check_text`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    pub schema: String,
    pub pass: bool,
    pub target: Target,
    pub summary: Summary,
    pub gate: Gate,
    pub coverage: Coverage,
    pub fingerprints: Vec<String>,
    pub findings: Vec<Finding>,
    /// Absent when the report holds every finding.
    #[serde(default)]
    pub truncated: u64,
    /// Absent unless `--diff-against` found translations left behind.
    #[serde(default)]
    pub stale: Vec<StaleTranslation>,
    /// How the check cache served the run; absent when it was off.
    #[serde(default)]
    pub cache: Option<CacheUse>,
    /// Files with findings or below their voice's minimum; absent when none.
    #[serde(default)]
    pub files: Vec<FileScore>,
    /// Findings the project allows where they stand; absent when none.
    #[serde(default)]
    pub suppressed: Vec<Suppressed>,
}

/// A check report's score of one file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileScore {
    pub path: String,
    pub words: u64,
    pub findings: u64,
    pub score: u64,
    #[serde(default)]
    pub min_score: Option<u64>,
    #[serde(default)]
    pub voice: Option<String>,
}

/// A finding set apart, with what allowed it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suppressed {
    pub rule: String,
    pub severity: String,
    pub path: String,
    pub line: u64,
    pub column: u64,
    pub start: u64,
    pub end: u64,
    #[serde(deserialize_with = "nullable")]
    pub block: Option<String>,
    pub message: String,
    #[serde(deserialize_with = "nullable")]
    pub matched: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub suggestion: Option<String>,
    pub suppressed_by: SuppressedBy,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuppressedBy {
    pub kind: String,
    pub text: String,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub line: Option<u64>,
}

/// A check report's `cache`: files whose findings were reused, files checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheUse {
    pub reused: u64,
    pub checked: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub kind: String,
    pub paths: Vec<String>,
    pub files: u64,
    pub blocks: u64,
    #[serde(default)]
    pub diff_against: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub findings: u64,
    pub critical: u64,
    pub major: u64,
    pub minor: u64,
    pub info: u64,
    pub score: u64,
    pub suppressed: u64,
    pub words: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    pub fail_on: String,
    #[serde(deserialize_with = "nullable")]
    pub min_score: Option<u64>,
    pub passed: bool,
    pub failed: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    pub ran: Vec<String>,
    pub unassessed: Vec<Unassessed>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unassessed {
    pub guidance: String,
    pub value: String,
    /// Absent when the guidance applied to every file checked.
    #[serde(default)]
    pub paths: Vec<String>,
}

/// One finding of a check report.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub rule: String,
    pub severity: String,
    pub path: String,
    pub line: u64,
    pub column: u64,
    pub start: u64,
    pub end: u64,
    #[serde(deserialize_with = "nullable")]
    pub block: Option<String>,
    pub message: String,
    #[serde(deserialize_with = "nullable")]
    pub matched: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub suggestion: Option<String>,
    /// Present only for a rule that names a page (a Vale rule's `link`).
    #[serde(default)]
    pub link: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaleTranslation {
    pub path: String,
    pub block: String,
    pub lang: String,
    pub target: String,
    pub message: String,
}

// ---------------------------------------------------------------------------------------------
// kapi.blocks/v1

/// `kapi inspect --json`, `read_blocks`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blocks {
    pub schema: String,
    pub doc: String,
    pub format: String,
    pub file_rev: String,
    pub total: u64,
    pub blocks: Vec<Record>,
    #[serde(deserialize_with = "nullable")]
    pub next: Option<String>,
}

/// `{doc, block, edition[, branch]}`: read from an answer, and written back into a change
/// set's `at`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Ref {
    pub doc: String,
    pub block: String,
    pub edition: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// One block's read record.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    #[serde(rename = "ref")]
    pub at: Ref,
    #[serde(default)]
    pub label: Option<String>,
    pub rev: String,
    pub role: String,
    pub level: u64,
    pub translatable: bool,
    pub text: String,
    pub codes: Vec<Code>,
    pub branches: Vec<Branch>,
    pub editions: BTreeMap<String, EditionView>,
    pub accepts: Vec<String>,
    #[serde(default)]
    pub why: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub line: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    pub id: String,
    pub kind: String,
    pub class: String,
    pub data: String,
    pub deletable: bool,
    #[serde(default)]
    pub attrs: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Branch {
    pub path: String,
    pub text: String,
    pub rev: String,
}

/// A target edition beside the source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditionView {
    pub doc: String,
    #[serde(deserialize_with = "nullable")]
    pub text: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub rev: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub codes: Vec<Code>,
    #[serde(default)]
    pub branches: Vec<Branch>,
    pub accepts: Vec<String>,
    #[serde(default)]
    pub why: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// kapi.change-result/v1

/// `kapi apply`, `apply_edits`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeResult {
    pub schema: String,
    pub status: String,
    #[serde(default)]
    pub dry_run: bool,
    pub actor: Actor,
    pub operations: Vec<OpResult>,
    pub documents: Vec<DocResult>,
    #[serde(default)]
    pub fingerprint: Option<String>,
    #[serde(default)]
    pub change: Option<i64>,
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actor {
    pub kind: String,
    pub name: String,
    pub session: String,
}

/// One operation's outcome.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpResult {
    pub index: u64,
    pub op: String,
    pub status: String,
    #[serde(default)]
    pub at: Option<Ref>,
    #[serde(default)]
    pub rev: Option<String>,
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub current: Option<Current>,
    #[serde(default)]
    pub guard: Option<Guard>,
    #[serde(default)]
    pub findings: Vec<EditionFinding>,
    #[serde(default)]
    pub instead: Option<String>,
    #[serde(default)]
    pub landed: Option<String>,
    pub message: String,
}

/// A `stale` operation's edition as it is now.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Current {
    pub rev: String,
    pub text: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guard {
    pub problem: String,
    pub code: String,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub data: Option<String>,
    pub message: String,
}

/// A commit check's finding on an edition.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditionFinding {
    pub rule: String,
    pub severity: String,
    pub message: String,
    #[serde(default)]
    pub matched: Option<String>,
    #[serde(default)]
    pub suggestion: Option<String>,
    pub fails: bool,
    pub introduced: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocResult {
    pub doc: String,
    pub written: bool,
    pub rev_before: String,
    #[serde(default)]
    pub rev_after: Option<String>,
    pub diff: String,
}

// ---------------------------------------------------------------------------------------------
// Errors and MCP's envelope

/// A refusal: the CLI's `--json` error on stderr, an MCP error result's structured content.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorAnswer {
    pub error: String,
    pub code: String,
    #[serde(default)]
    pub hints: Vec<String>,
}

/// A `tools/call` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub content: Vec<Content>,
    #[serde(rename = "structuredContent", default)]
    pub structured: Option<Value>,
    #[serde(rename = "isError")]
    pub is_error: bool,
}

/// One content item of a tool result.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// A structured answer, typed by its `schema` field.
#[derive(Debug, Clone)]
pub enum Answer {
    Check(Box<CheckReport>),
    Blocks(Blocks),
    Change(ChangeResult),
    /// No `schema`, an `error` field: a refusal.
    Error(ErrorAnswer),
    /// Any other shape (another schema, a bare list), left untyped.
    Other,
}

/// Decodes `value` into the struct its `schema` names; a field the struct does not know, or
/// one it needs and does not find, fails the test, naming `ctx`.
pub fn decode(value: &Value, ctx: &str) -> Answer {
    fn typed<T: serde::de::DeserializeOwned>(value: &Value, ctx: &str) -> T {
        T::deserialize(value).unwrap_or_else(|e| {
            panic!(
                "{ctx}: the answer does not decode as {} ({e}): {value:#}",
                std::any::type_name::<T>()
            )
        })
    }
    match value.get("schema").and_then(Value::as_str) {
        Some("kapi.check/v1") => Answer::Check(Box::new(typed(value, ctx))),
        Some("kapi.blocks/v1") => Answer::Blocks(typed(value, ctx)),
        Some("kapi.change-result/v1") => Answer::Change(typed(value, ctx)),
        None if value.get("error").is_some() => Answer::Error(typed(value, ctx)),
        _ => Answer::Other,
    }
}

impl Answer {
    pub fn check(self, ctx: &str) -> CheckReport {
        match self {
            Answer::Check(report) => *report,
            other => panic!("{ctx}: not a kapi.check/v1 report: {other:#?}"),
        }
    }
    pub fn blocks(self, ctx: &str) -> Blocks {
        match self {
            Answer::Blocks(blocks) => blocks,
            other => panic!("{ctx}: not a kapi.blocks/v1 read: {other:#?}"),
        }
    }
    pub fn change(self, ctx: &str) -> ChangeResult {
        match self {
            Answer::Change(result) => result,
            other => panic!("{ctx}: not a kapi.change-result/v1 result: {other:#?}"),
        }
    }
    pub fn error(self, ctx: &str) -> ErrorAnswer {
        match self {
            Answer::Error(error) => error,
            other => panic!("{ctx}: not an error answer: {other:#?}"),
        }
    }
}

/// `text` as JSON, checked against its typed shape ([`decode`]); text that is not JSON, or
/// JSON of a schema that does not decode, fails the test, naming `ctx`.
pub fn parse(text: &str, ctx: &str) -> Value {
    let value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{ctx}: not JSON ({e}): {text:.2000}"));
    decode(&value, ctx);
    value
}

// ---------------------------------------------------------------------------------------------
// Failing accessors for what stays untyped

/// `value[key]` as a string; missing or of another type fails the test, naming the field.
pub fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string field `{key}` in {value:#}"))
}

/// `value[key]` as a number; missing or of another type fails the test, naming the field.
pub fn u64_field(value: &Value, key: &str) -> u64 {
    value
        .get(key)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no number field `{key}` in {value:#}"))
}

/// `value[key]` as an array; missing or of another type fails the test, naming the field.
pub fn array_field<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("no array field `{key}` in {value:#}"))
}

/// `value` as a string; anything else fails the test, naming `what`.
pub fn as_str<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value:#}"))
}
