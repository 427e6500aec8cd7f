//! The `content` set: checks and rewrites of text an agent holds (no file needed).

use rmcp::tool_router;

use super::server::KapiServer;

#[tool_router(router = content_tools, vis = "pub(crate)", allow_empty)]
impl KapiServer {}
