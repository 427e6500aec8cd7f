//! The `content` set: checks and rewrites of text an agent holds (no file needed), each tool
//! an adapter over its service in [`crate::services`] (decode, call, render): `check_text`,
//! `voice_check`, `voice_rewrite`, `term-check`, `detect_format`, `redact`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::server::{KapiServer, REPORT_FINDINGS, answer, failure, respond};
use crate::services::check_text::check_text;
use crate::services::detect_format::{DetectRequest, Detected, detect};
use crate::services::term_check::{TermCheck, term_check};
use crate::services::text_scope::TextRequest;
use crate::services::voice_check::{VoiceCheck, voice_check};
use crate::services::voice_rewrite::{Rewrite, voice_rewrite};

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckTextParams {
    /// The text to check
    pub text: String,
    /// The format id to read it with (`markdown`, `html`, `json`, …); default: the format of `context_path`, else markdown
    pub format: Option<String>,
    /// The intended project-relative destination: binds the voice and terms there without reading the file
    pub context_path: Option<String>,
    /// A profile declared in kapi.yaml, for a snippet with no destination (not with `context_path`)
    pub profile: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

/// `voice_check` and `voice_rewrite` take what `check_text` takes.
pub(crate) type VoiceParams = CheckTextParams;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TermCheckParams {
    /// The text
    pub text: String,
    /// The language whose terms apply (`en`, `en-GB`); default: the source language at the point
    pub lang: Option<String>,
    /// The format id to read it with; default: the format of `context_path`, else markdown
    pub format: Option<String>,
    /// The intended project-relative destination: binds the terms there without reading the file
    pub context_path: Option<String>,
    /// A profile declared in kapi.yaml, for a snippet with no destination (not with `context_path`)
    pub profile: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DetectFormatParams {
    /// A file name or path (it need not exist); its collection's declared format wins
    pub path: Option<String>,
    /// The content, to sniff (alone, or beside `path` when formats share its extension)
    pub content: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedactParams {
    /// The text to mask
    pub text: String,
}

impl From<CheckTextParams> for TextRequest {
    fn from(p: CheckTextParams) -> Self {
        TextRequest {
            text: p.text,
            format: p.format,
            context_path: p.context_path,
            profile: p.profile,
            hold: Some(REPORT_FINDINGS),
            cancel: super::calls::cancel_flag(),
            ..Default::default()
        }
    }
}

impl From<TermCheckParams> for TextRequest {
    fn from(p: TermCheckParams) -> Self {
        TextRequest {
            text: p.text,
            format: p.format,
            context_path: p.context_path,
            profile: p.profile,
            lang: p.lang,
            hold: Some(REPORT_FINDINGS),
            cancel: super::calls::cancel_flag(),
            ..Default::default()
        }
    }
}

#[tool_router(router = content_tools, vis = "pub(crate)")]
impl KapiServer {
    /// Check a draft before it is saved: the `kapi check` report (terms, voice, hygiene) over the text. Pass `context_path`, the intended destination, to hold it to the voice and terms there; or `profile` for a snippet with no destination (not both).
    #[tool(annotations(read_only_hint = true))]
    async fn check_text(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<CheckTextParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match check_text(&app, p.into()) {
            Ok(checked) => answer(&checked.report, Some(checked.render())),
            Err(e) => failure(e),
        }
    }

    /// The voice's findings alone on a text (rules `voice.*`: prohibited and required patterns, sentence and paragraph length), with the guidance no analyzer checks.
    #[tool(annotations(read_only_hint = true))]
    async fn voice_check(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<VoiceParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(voice_check(&app, p.into()), VoiceCheck::render)
    }

    /// Swap each forbidden, competitor or deprecated term in a text for the project's replacement, keeping a leading capital, and each product name in another case (`terms.case`) for the name as the project writes it. Deterministic: never rephrases; terms with no replacement, and those a `kapi-disable…` comment, a term exception or the recipe's `rules:` for `context_path` allows, are listed as unchanged with why. Code and addresses are left alone.
    #[tool(annotations(read_only_hint = true))]
    async fn voice_rewrite(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<VoiceParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(voice_rewrite(&app, p.into()), Rewrite::render)
    }

    /// The terms' findings alone on a text (rules `terms.*`), and every project term found in it with its status (preferred, admitted, deprecated, forbidden, competitor).
    #[tool(name = "term-check", annotations(read_only_hint = true))]
    async fn term_check(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<TermCheckParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(term_check(&app, p.into()), TermCheck::render)
    }

    /// The format kapi would read a file or content with (a collection's declared format, else the extension, else sniffing), and what that format can do.
    #[tool(annotations(read_only_hint = true))]
    async fn detect_format(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<DetectFormatParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        let request = DetectRequest {
            path: p.path,
            content: p.content,
        };
        respond(detect(&app, &request), Detected::render)
    }

    /// Mask emails, phone numbers, API keys and tokens (AWS, GitHub, sk- keys, JWTs, bearer tokens, secrets after key=/token=/secret=) as `[redacted:KIND]`; lists every detector.
    #[tool(annotations(read_only_hint = true))]
    async fn redact(&self, Parameters(p): Parameters<RedactParams>) -> CallToolResult {
        let r = crate::services::redact::redact(&p.text);
        let text = r.render();
        answer(&r, Some(text))
    }
}

/// Sets what the macros cannot: every content tool declares an output schema. server.rs
/// calls it beside `writing::adjust`.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    use super::server::set_output;
    set_output::<kapi_core::check::CheckReport>(router, "check_text", "kapi.check/v1");
    set_output::<VoiceCheck>(router, "voice_check", "kapi.voice-check/v1");
    set_output::<Rewrite>(router, "voice_rewrite", "kapi.voice-rewrite/v1");
    set_output::<TermCheck>(router, "term-check", "kapi.term-check/v1");
    set_output::<Detected>(router, "detect_format", "kapi.detect-format/v1");
    set_output::<crate::services::redact::Redacted>(router, "redact", "kapi.redact/v1");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_router_serves_the_content_set_with_output_schemas() {
        let mut router = KapiServer::content_tools();
        adjust(&mut router);
        let mut names: Vec<String> = router
            .list_all()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        let mut set: Vec<String> = super::super::sets::SETS
            .iter()
            .find(|(n, _)| *n == "content")
            .map(|(_, tools)| tools.iter().map(|t| (*t).to_owned()).collect())
            .unwrap_or_default();
        set.sort();
        assert_eq!(names, set);
        for tool in router.list_all() {
            assert!(tool.output_schema.is_some(), "{}", tool.name);
            let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
            assert_eq!(read_only, Some(true), "{}", tool.name);
        }
    }
}
