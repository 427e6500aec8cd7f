//! The listing helpers `--all-tools` adds: formats, profiles, collections.

use rmcp::tool_router;

use super::server::KapiServer;

#[tool_router(router = listing_tools, vis = "pub(crate)", allow_empty)]
impl KapiServer {}
