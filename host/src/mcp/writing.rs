//! The `writing` set: the brief (`context_read`), what the project knows about a word
//! (`context_search`), recording (`context_note`, `context_session_summary`), the check of a
//! saved file (`check_file`), and the edit contract (`read_blocks`, `apply_edits`,
//! `describe_format`). Every tool is the same host function the CLI calls.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, RequestMetaObject};
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, answer, error_result, failure, refusal};
use crate::error::HostError;
use crate::services::formats::{DescribeRequest, describe};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextReadParams {
    /// A project-relative file or folder (omit it to name a `profile`)
    pub path: Option<String>,
    /// A profile declared in kapi.yaml, instead of a path
    pub profile: Option<String>,
    /// `markdown` (default) or `json`
    pub format: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchParams {
    /// The word or phrase
    pub query: String,
    /// Most entries per group (default 25)
    pub limit: Option<usize>,
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteParams {
    /// The folder or file it was seen in; the note applies there and below
    pub path: Option<String>,
    /// What the files do every time: a name as written, a spelling variety, a word chosen over a common alternative
    pub text: Option<String>,
    /// A person's change: the words before
    pub from: Option<String>,
    /// A person's change: the words after
    pub to: Option<String>,
    /// With from/to: the form the note proposes, when it is not `to`
    pub suggest: Option<String>,
    /// Take back a note this session recorded (its id, `n12`)
    pub withdraw: Option<String>,
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectParams {
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckFileParams {
    /// The saved file to check (project-relative, or relative to the server's folder)
    pub path: String,
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadBlocksParams {
    /// The document to read
    pub doc: String,
    /// Only these block keys
    pub blocks: Option<Vec<String>>,
    /// Target editions beside the source: language tags, or `*` for every one
    pub editions: Option<Vec<String>>,
    /// Continue from a previous answer's `next`
    pub cursor: Option<String>,
    /// Most blocks per page (default 100)
    pub limit: Option<usize>,
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DescribeFormatParams {
    /// A format id (`markdown`, `json`, …)
    pub format: Option<String>,
    /// Or a file whose format to describe: its collection's declared format, else its extension, else its first bytes (it need not exist)
    pub path: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project, whose collections may declare the file's format (default: the server's)
    pub project: Option<String>,
}

/// A tool's `path`, resolved once ([`crate::App::resolve_from`]): a relative one from the
/// project's root (else the server's folder), a file that exists, inside the project.
fn resolve(app: &crate::App, path: &str) -> Result<crate::app::ResolvedPath, HostError> {
    let project = app.project()?;
    app.resolve_from(
        crate::app::Base::Root,
        project.as_ref(),
        std::path::Path::new(path),
    )
}

/// A source file's comments are not read or edited as blocks over MCP (design: the agent
/// edits the comment in the file and runs `check_file`): `unsupported`, its message naming
/// the capability `comment`.
fn comment_refusal(doc: &str, abs: &std::path::Path) -> Option<CallToolResult> {
    let info = crate::document::comment_format(abs)?.info();
    Some(error_result(serde_json::json!({
        "error": format!("`{doc}`: {}", crate::apply::comment_refusal(info.name)),
        "code": "unsupported",
        "hints": [format!("edit the comment in `{doc}` with your own tools, then call `check_file` with `path` `{doc}`")],
    })))
}

#[tool_router(router = writing_tools, vis = "pub(crate)")]
impl KapiServer {
    /// The brief for a location: the voice, the terms to use and avoid, the notes kept there and the old names that stay correct. Call it only for a file no section of AGENTS.md/CLAUDE.md covers, or for the full answer.
    #[tool(annotations(read_only_hint = true))]
    async fn context_read(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<ContextReadParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        let format = p.format.as_deref().unwrap_or("markdown");
        if format != "markdown" && format != "json" {
            return failure(HostError::Usage {
                message: format!("`format: {format}`: use `markdown` (the default) or `json`"),
                hint: None,
            });
        }
        if p.path.is_some() == p.profile.is_some() {
            return failure(HostError::Usage {
                message: "name a `path` or a `profile` (one of them)".into(),
                hint: Some("`{\"path\": \"docs/intro.md\"}`".into()),
            });
        }
        let request = crate::context::ContextRequest {
            path: p.path.map(PathBuf::from),
            profile: p.profile,
            ..Default::default()
        };
        match crate::context::context(&app, &request) {
            Ok(a) => {
                let text = (format == "markdown").then(|| a.markdown());
                answer(&a, text)
            }
            Err(e) => failure(e),
        }
    }

    /// What the project knows about a word: term rules in every language with a verdict, the notes kept and the suggestions pending that mention it, and where each is in force.
    #[tool(annotations(read_only_hint = true))]
    async fn context_search(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<SearchParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        match crate::search::search(
            &app,
            &crate::search::SearchRequest {
                query: p.query,
                limit: p.limit,
            },
        ) {
            Ok(a) => {
                let text = a.markdown();
                answer(&a, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// Record, as a suggestion a person reviews, what the files do every time (`text`, with the `path` it was seen in) or a person's change (`from`, `to`, `path`). `withdraw` takes back a note this session recorded.
    #[tool]
    async fn context_note(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<NoteParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        let request = crate::notes::NoteRequest {
            text: p.text,
            from: p.from,
            to: p.to,
            suggest: p.suggest,
            path: p.path.map(PathBuf::from),
            withdraw: p.withdraw,
        };
        match crate::notes::note(&app, &request) {
            Ok(a) => {
                let text = a.message.clone();
                answer(&a, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// What this session recorded and changed: its notes, withdrawals and applied change sets. Call it at the end, after a note.
    #[tool(annotations(read_only_hint = true))]
    async fn context_session_summary(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<ProjectParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        match crate::services::session_summary::session_summary(&app, None) {
            Ok(summary) => answer(&summary, Some(summary.text.clone())),
            Err(e) => failure(e),
        }
    }

    /// Check a saved file against the project's terms, voice and hygiene rules, or a translation file against its source's placeholders and its language's terms (the `kapi check` report for that file).
    #[tool(annotations(read_only_hint = true))]
    async fn check_file(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<CheckFileParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        let path = match resolve(&app, &p.path) {
            Ok(path) => path,
            Err(e) => return failure(e),
        };
        let request = crate::check::CheckRequest {
            resolved: vec![path],
            cancel: super::calls::cancel_flag(),
            ..Default::default()
        };
        match crate::check::check(&app, &request, &()) {
            Ok(mut run) => {
                run.report.hold_at_most(super::server::REPORT_FINDINGS);
                answer(&run.report, None)
            }
            Err(e) => failure(e),
        }
    }

    /// Read a document's blocks as edits name them: each block's ref, rev, text with inline codes as <x id/> tags, codes, plural branches, target editions and the operations it accepts. Paged with cursor/limit.
    #[tool(annotations(read_only_hint = true))]
    async fn read_blocks(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<ReadBlocksParams>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let app = self.app_with(&peer, Some(&meta), p.project.as_deref());
        let editions = match p.editions.as_deref() {
            None | Some([]) => crate::document::Editions::Source,
            Some(list) if list.iter().any(|l| l == "*") => crate::document::Editions::All,
            Some(list) => crate::document::Editions::Some(list.to_vec()),
        };
        let path = match resolve(&app, &p.doc) {
            Ok(path) => path,
            Err(e) => return failure(e),
        };
        if let Some(refused) = comment_refusal(&p.doc, path.abs()) {
            return refused;
        }
        let request = crate::inspect::InspectRequest {
            path,
            editions,
            limit: Some(p.limit.unwrap_or(100)),
            cursor: p.cursor,
            format: None,
        };
        match crate::inspect::inspect(&app, &request) {
            Ok(mut blocks) => {
                if let Some(keys) = &p.blocks {
                    blocks.blocks.retain(|b| keys.contains(&b.at.block));
                }
                answer(&blocks, None)
            }
            Err(e) => failure(e),
        }
    }

    /// Apply a kapi.change/v1 change set whole or not at all: each operation names the ref and rev a read gave. A refused set changes nothing and returns the same result as an error, with the current text on `stale` and what to do instead on `not_permitted`.
    #[tool]
    async fn apply_edits(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<serde_json::Map<String, serde_json::Value>>,
        meta: RequestMetaObject,
    ) -> CallToolResult {
        let mut set = p;
        let project = match set.remove("project") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s),
            Some(_) => {
                return failure(HostError::Usage {
                    message: "`project` must be a string".into(),
                    hint: None,
                });
            }
        };
        if !set.contains_key("schema") {
            set.insert("schema".into(), kapi_core::change::SCHEMA.into());
        }
        let app = self.app_with(&peer, Some(&meta), project.as_deref());
        let bytes = serde_json::to_vec(&serde_json::Value::Object(set)).unwrap_or_default();
        let decoded = match kapi_core::change::decode(&bytes) {
            Ok(s) => s,
            Err(error) => {
                return failure(HostError::ChangeSet {
                    input: "arguments".into(),
                    error: Box::new(error),
                });
            }
        };
        let request = crate::apply::ApplyRequest {
            set: decoded,
            dry_run: false,
        };
        match crate::apply::apply(&app, &request) {
            Ok(result) if result.refused() => refusal(&result),
            Ok(result) => answer(&result, None),
            Err(e) => failure(e),
        }
    }

    /// What a format can do before you edit it: editable, round_trip, generative, bilingual, and which change operations it takes. Name a `format` id or a file `path`.
    #[tool(annotations(read_only_hint = true))]
    async fn describe_format(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<DescribeFormatParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        let request = DescribeRequest {
            format: p.format,
            path: p.path,
        };
        match describe(&app, &request) {
            Ok(described) => {
                let text = described.render();
                answer(&described, Some(text))
            }
            Err(e) => failure(e),
        }
    }
}

/// Sets what the macros cannot: `apply_edits` takes the change-set schema plus `project`, and
/// every tool declares an output schema.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    set_output::<crate::context::ContextAnswer>(router, "context_read", "kapi.context/v1");
    set_output::<crate::search::SearchAnswer>(router, "context_search", "kapi.search/v1");
    set_output::<crate::notes::NoteAnswer>(router, "context_note", "kapi.note/v1");
    set_output::<crate::services::session_summary::SessionSummary>(
        router,
        "context_session_summary",
        "kapi.session-summary/v1",
    );
    set_output::<kapi_core::check::CheckReport>(router, "check_file", "kapi.check/v1");
    set_output::<crate::inspect::Blocks>(router, "read_blocks", "kapi.blocks/v1");
    set_output::<kapi_core::change::result::ChangeResult>(
        router,
        "apply_edits",
        "kapi.change-result/v1",
    );
    set_output::<crate::services::formats::Described>(router, "describe_format", "kapi.format/v1");
    if let Some(route) = router.map.get_mut("apply_edits") {
        let mut schema = kapi_core::change::schema::change();
        if let Some(obj) = schema.as_object_mut() {
            obj.remove("$id");
            obj.remove("$schema");
            if let Some(req) = obj.get_mut("required").and_then(|r| r.as_array_mut()) {
                req.retain(|r| r != "schema");
            }
            if let Some(props) = obj.get_mut("properties").and_then(|p| p.as_object_mut()) {
                props.insert(
                    "project".into(),
                    serde_json::json!({"type": "string", "description": "a kapi.yaml, a project root, or any path inside a project (default: the server's)"}),
                );
            }
        }
        if let Some(obj) = schema.as_object() {
            route.attr.input_schema = Arc::new(obj.clone());
        }
    }
}
