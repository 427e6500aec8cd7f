//! The `review` set: the review queue (`review_queue`) and one queued block in full
//! (`review_block`), adapters over [`crate::services::review`]; pre-review goes through
//! `apply_edits` (served by the writing set).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, answer, failure};
use crate::services::review::{AtParam, QueueRequest, queue, review_block};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueueParams {
    /// Only this source document (project-relative)
    pub doc: Option<String>,
    /// Only this target language (default: the server project's first target language)
    pub lang: Option<String>,
    /// Most items to return (default 50); `total` counts them all
    pub limit: Option<usize>,
    /// Every target edition no person decided, not only drafts (what a tool or an agent wrote)
    pub all: Option<bool>,
    /// Only drafts this actor wrote: `kind:name` (`tool:pseudo`), a kind (`tool`, `agent`) or a name
    pub actor: Option<String>,
    /// Only drafts written at or after this time: a date (`2026-12-01`) or RFC 3339
    pub since: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BlockParams {
    /// The edition to review, as `review_queue` gave it in `ref`
    pub at: AtParam,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[tool_router(router = review_tools, vis = "pub(crate)")]
impl KapiServer {
    /// The drafts awaiting a person's review: for each catalog and target language, the target editions a tool or an agent wrote (the store's record) that no person has decided at their current rev, with the source and target text, who wrote each, when, the text it replaced, and the agents' advice at that rev; `all` lists every undecided edition, `actor` and `since` narrow it. Paged by `limit`; `total` counts all.
    #[tool(annotations(read_only_hint = true))]
    async fn review_queue(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<QueueParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        let request = QueueRequest {
            doc: p.doc,
            lang: p.lang.or(p
                .project
                .is_none()
                .then(|| self.default_lang())
                .flatten()
                .map(str::to_owned)),
            limit: p.limit,
            all: p.all.unwrap_or(false),
            actor: p.actor,
            since: p.since,
        };
        match queue(&app, &request) {
            Ok(q) => {
                let text = q.text();
                answer(&q, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// One edition in full for review: source and target text with codes, placeholder findings, every decision and advice recorded for it, whether a person decided it at its current rev, and how to pre-review it (an agent may only `advise`, through `apply_edits` with `if_match` = rev).
    #[tool(annotations(read_only_hint = true))]
    async fn review_block(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<BlockParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match review_block(&app, &p.at) {
            Ok(item) => {
                let text = item.text();
                answer(&item, Some(text))
            }
            Err(e) => failure(e),
        }
    }
}

/// Declares the output schemas of `review_queue` and `review_block`.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    use crate::services::review::{Queue, ReviewItem};
    set_output::<Queue>(router, "review_queue", "kapi.review-queue/v1");
    set_output::<ReviewItem>(router, "review_block", "kapi.review-item/v1");
}
