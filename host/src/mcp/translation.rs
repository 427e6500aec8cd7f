//! The `translation` set: `stats` and `up_plan`, adapters over
//! [`crate::services::translation`] (what each target language lacks or has stale).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, answer, failure};
use crate::services::translation::{stats, up_plan};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatsParams {
    /// Only this source document (project-relative); default every catalog with a `target` template
    pub doc: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpPlanParams {
    /// Only this source document (project-relative)
    pub doc: Option<String>,
    /// Only this target language (default: the server project's first target language)
    pub lang: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[tool_router(router = translation_tools, vis = "pub(crate)")]
impl KapiServer {
    /// Translation progress per catalog and target language: blocks total, translated, missing (target file or key absent) and stale (an untranslated copy of the source, or placeholders that differ from the source's).
    #[tool(annotations(read_only_hint = true))]
    async fn stats(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<StatsParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match stats(&app, p.doc.as_deref()) {
            Ok(s) => {
                let text = s.text();
                answer(&s, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// What each target language lacks or has stale, per catalog: the missing and stale block keys of each target file, with why each stale one is stale, and a one-line summary.
    #[tool(annotations(read_only_hint = true))]
    async fn up_plan(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<UpPlanParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match up_plan(
            &app,
            p.doc.as_deref(),
            p.lang
                .as_deref()
                .or(p.project.is_none().then(|| self.default_lang()).flatten()),
        ) {
            Ok(plan) => {
                let text = plan.text();
                answer(&plan, Some(text))
            }
            Err(e) => failure(e),
        }
    }
}

/// Declares the output schemas of `stats` and `up_plan`.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    use crate::services::translation::{Stats, UpPlan};
    set_output::<Stats>(router, "stats", "kapi.translation-stats/v1");
    set_output::<UpPlan>(router, "up_plan", "kapi.up-plan/v1");
}
