//! The `translation` set: what each target language lacks or has stale.

use rmcp::tool_router;

use super::server::KapiServer;

#[tool_router(router = translation_tools, vis = "pub(crate)", allow_empty)]
impl KapiServer {}
