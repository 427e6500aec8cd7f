//! The `review` set: the review queue, one queued block, and pre-review through `apply_edits`.

use rmcp::tool_router;

use super::server::KapiServer;

#[tool_router(router = review_tools, vis = "pub(crate)", allow_empty)]
impl KapiServer {}
