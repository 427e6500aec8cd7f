//! The `translation` set: `stats`, `up_plan`, `translate` and `up` (and `pseudo_translate`
//! with `--all-tools`), adapters over [`crate::services::stats`] (what each file holds, per
//! edition), [`crate::services::translation`] (what each target language lacks or has
//! stale) and [`crate::translate`] (filling it with a provider).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, answer, failure};
use crate::app::{Base, ResolvedPath};
use crate::error::HostError;
use crate::services::stats::stats;
use crate::services::translation::up_plan;
use crate::translate::{TranslateRequest, translate};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatsParams {
    /// Files or folders (project-relative; a folder counts each file in it a check reads); default every file the collections declare
    pub paths: Option<Vec<String>>,
    /// One more path, as `paths` takes them (the field this tool took before `paths`)
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

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TranslateParams {
    /// Source documents (project-relative catalogs a collection declares with a `target` template); none: every catalog (as `up`)
    pub paths: Option<Vec<String>>,
    /// Target languages (default: the server project's first target language; with the `pseudo` provider, the pseudo-locales `en-XA` and `ar-XB`)
    pub to: Option<Vec<String>>,
    /// The provider's name in kapi.yaml (`providers:`; `pseudo` is built in); default the recipe's only one
    pub provider: Option<String>,
    /// List what would be sent (blocks, characters, estimated tokens); write and send nothing
    pub dry_run: Option<bool>,
    /// Most requests to send, retries included
    pub max_requests: Option<usize>,
    /// Replace what a person may have written too: a target equal to its source, or one whose placeholders differ (never a draft waiting for review, never by `pseudo` in a real language)
    pub force: Option<bool>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

impl KapiServer {
    fn run_translate(
        &self,
        peer: &Peer<RoleServer>,
        p: TranslateParams,
        provider: Option<String>,
    ) -> CallToolResult {
        let app = self.app(peer, p.project.as_deref());
        // With no `to`, the server project's first target language; a `pseudo` provider
        // takes the pseudo-locales instead (`TranslateRequest::default_langs`).
        let default_langs = p
            .project
            .is_none()
            .then(|| self.default_lang())
            .flatten()
            .map(str::to_owned)
            .into_iter()
            .collect();
        let request = TranslateRequest {
            docs: p.paths.unwrap_or_default(),
            langs: p.to.unwrap_or_default(),
            default_langs,
            provider: provider.or(p.provider),
            dry_run: p.dry_run.unwrap_or(false),
            max_requests: p.max_requests,
            gate: kapi_core::change::GateMode::Enforce,
            backoff: std::time::Duration::from_millis(500),
            force: p.force.unwrap_or(false),
            pseudo: false,
        };
        match translate(&app, &request, &|_, _| {}) {
            Ok(t) => {
                let text = t.text();
                answer(&t, Some(text))
            }
            Err(e) => failure(e),
        }
    }
}

#[tool_router(router = translation_tools, vis = "pub(crate)")]
impl KapiServer {
    /// For each file: whether it reads (else the error with its line and column), its format, and per edition (source and each target language) its blocks, words, characters, inline codes and plural/select switches, with how many blocks each target has translated, missing (target file, key or text absent) and stale (an untranslated copy, placeholders that differ, or marked fuzzy); sums per format, per language and in total.
    #[tool(annotations(read_only_hint = true))]
    async fn stats(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<StatsParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        let named = p.paths.iter().flatten().chain(p.doc.iter());
        let report = app.project().and_then(|project| {
            let paths = named
                .map(|path| {
                    app.resolve_from(Base::Root, project.as_ref(), std::path::Path::new(path))
                })
                .collect::<Result<Vec<ResolvedPath>, HostError>>()?;
            stats(&app, project.as_ref(), &paths)
        });
        match report {
            Ok(s) => {
                let text = s.text();
                answer(&s, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// Fill the missing and stale translations of these catalogs with a provider: the translation file is written from the source's skeleton when missing, exact matches come from the content memory, the rest go to the provider with the brief for the path, and each lands through the change service as `tool:<provider>` (placeholders guarded, the commit check run); refused or failed blocks are listed, the rest land.
    #[tool]
    async fn translate(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<TranslateParams>,
    ) -> CallToolResult {
        self.run_translate(&peer, p, None)
    }

    /// `translate` over every catalog the collections declare (`up_plan`'s list).
    #[tool]
    async fn up(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<TranslateParams>,
    ) -> CallToolResult {
        let p = TranslateParams { paths: None, ..p };
        self.run_translate(&peer, p, None)
    }

    /// `translate` with the built-in `pseudo` provider: accented, lengthened, bracketed text with every placeholder kept, to find hard-coded strings and truncation before real translation.
    #[tool]
    async fn pseudo_translate(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<TranslateParams>,
    ) -> CallToolResult {
        self.run_translate(&peer, p, Some("pseudo".into()))
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

/// Declares the output schemas of `stats`, `up_plan`, `translate`, `up` and
/// `pseudo_translate`.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    use crate::services::stats::Report;
    use crate::services::translation::UpPlan;
    set_output::<Report>(router, "stats", "kapi.stats/v1");
    set_output::<UpPlan>(router, "up_plan", "kapi.up-plan/v1");
    for tool in ["translate", "up", "pseudo_translate"] {
        set_output::<crate::translate::Translation>(router, tool, "kapi.translate/v1");
    }
}
