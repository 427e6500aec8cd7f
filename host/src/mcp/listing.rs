//! The listing helpers `--all-tools` adds: formats (`list_formats`), the recipe's profiles
//! (`list_profiles`) and collections (`list_collections`), adapters over
//! [`crate::services::formats`] and [`crate::services::recipe`].

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, answer, failure};
use crate::services::recipe::{collections, profiles};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListParams {
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[tool_router(router = listing_tools, vis = "pub(crate)")]
impl KapiServer {
    /// The formats this build reads, with what each can do: editable, round_trip, generative, bilingual, and the change operations it takes.
    #[tool(annotations(read_only_hint = true))]
    async fn list_formats(&self) -> CallToolResult {
        let list = crate::services::formats::list();
        let ids: Vec<String> = list
            .formats
            .iter()
            .map(|f| format!("{} ({})", f.info.id, f.edit))
            .collect();
        let text = format!(
            "{} formats (edit: faithful, yes or no): {}",
            ids.len(),
            ids.join(", ")
        );
        answer(&list, Some(text))
    }

    /// The recipe's profiles: channels, voice, terms, termstore, and the validity window with its state now (active, upcoming or expired).
    #[tool(annotations(read_only_hint = true))]
    async fn list_profiles(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<ListParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match profiles(&app) {
            Ok(list) => {
                let text = list.text();
                answer(&list, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// The recipe's collections: each item's path, format, target template and channel, and how many source files each declares now.
    #[tool(annotations(read_only_hint = true))]
    async fn list_collections(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<ListParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match collections(&app) {
            Ok(list) => {
                let text = list.text();
                answer(&list, Some(text))
            }
            Err(e) => failure(e),
        }
    }
}

/// Declares the output schemas of the listing helpers.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    set_output::<crate::services::formats::FormatList>(router, "list_formats", "kapi.formats/v1");
    set_output::<crate::services::recipe::Profiles>(router, "list_profiles", "kapi.profiles/v1");
    set_output::<crate::services::recipe::CollectionList>(
        router,
        "list_collections",
        "kapi.collections/v1",
    );
}
