//! The server: its state (one per process), the per-call `App` (project, actor, session),
//! tool results and their output schemas (each derived from the report type the answer is
//! written from, [`set_output`]), instructions and the `context://` resources. Each tool call
//! runs on a thread of its own, cancellable ([`super::calls`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    RequestMetaObject, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler, tool_handler};
use serde::Serialize;

use super::sets::Selection;
use crate::app::App;
use crate::env::Env;
use crate::error::HostError;

/// What every call shares: the environment, the default project, the session.
#[derive(Debug)]
pub(crate) struct Base {
    pub env: Env,
    pub cwd: PathBuf,
    pub project: Option<PathBuf>,
    /// Minted once per server process.
    pub session: String,
    pub selection: Selection,
    /// The project's first target language, the default where a tool takes a language.
    pub default_lang: Option<String>,
    /// One store handle per project root, for the server's life.
    pub stores: crate::app::Stores,
    /// The tool calls running and waiting.
    pub calls: Arc<super::calls::Calls>,
    /// The server's project root, once a request found it: every request moves the session's
    /// row there ([`Presence`]) without loading the recipe again.
    pub home: std::sync::OnceLock<PathBuf>,
}

/// The MCP server.
#[derive(Clone)]
pub struct KapiServer {
    pub(crate) tool_router: Arc<ToolRouter<Self>>,
    pub(crate) base: Arc<Base>,
}

impl KapiServer {
    /// A server serving `selection`'s tools.
    pub fn new(env: Env, cwd: PathBuf, project: Option<PathBuf>, selection: Selection) -> Self {
        let now = jiff::Timestamp::now();
        // `KAPI_SESSION`, else the host's own session when it hands one to the servers it
        // starts (Claude Code's `CLAUDE_CODE_SESSION_ID`: then the agent's MCP calls and the
        // notes its shell records meet in one session), else one per server process.
        let session = env
            .session
            .clone()
            .or_else(|| env.host_agent.as_ref().and_then(|h| h.session.clone()))
            .unwrap_or_else(|| format!("s-mcp-{}-{}", now.as_millisecond(), std::process::id()));
        // In project mode, the sets narrow to tools whose source the recipe declares: no
        // translation tools for a recipe without target languages.
        let startup = App::new(env.clone(), cwd.clone(), project.clone());
        let mut selection = selection;
        let mut default_lang = None;
        if let Ok(Some(p)) = startup.project() {
            let langs = p
                .recipe
                .defaults
                .target_languages
                .clone()
                .unwrap_or_default();
            default_lang = langs.first().cloned();
            if langs.is_empty() {
                for tool in ["stats", "up_plan", "translate", "up", "pseudo_translate"] {
                    selection.tools.remove(tool);
                }
            }
        }
        let mut router = Self::writing_tools()
            + Self::content_tools()
            + Self::review_tools()
            + Self::translation_tools()
            + Self::listing_tools();
        let all: Vec<String> = router
            .list_all()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        for name in all {
            if !selection.tools.contains(name.as_str()) {
                router.remove_route(&name);
            }
        }
        super::writing::adjust(&mut router);
        super::content::adjust(&mut router);
        super::review::adjust(&mut router);
        super::translation::adjust(&mut router);
        super::listing::adjust(&mut router);
        KapiServer {
            tool_router: Arc::new(router),
            base: Arc::new(Base {
                env,
                cwd,
                project,
                session,
                selection,
                default_lang,
                stores: crate::app::Stores::default(),
                calls: Arc::default(),
                home: std::sync::OnceLock::new(),
            }),
        }
    }

    /// The language a tool uses when the call names none: the project's first target
    /// language (server start-up's project).
    pub(crate) fn default_lang(&self) -> Option<&str> {
        self.base.default_lang.as_deref()
    }

    /// The names of the tools served.
    pub fn tool_names(&self) -> Vec<String> {
        self.tool_router
            .list_all()
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    }

    /// The `App` one call runs in: the call's `project` (else the server's), the actor an
    /// agent named by the client, and the server's session.
    pub(crate) fn app(&self, peer: &Peer<RoleServer>, project: Option<&str>) -> App {
        self.app_with(peer, None, project)
    }

    /// [`Self::app`], also reading the client's name from the request's `_meta` (the
    /// 2026-07-28 lifecycle has no `initialize`: the name arrives with each request). A call
    /// that names its own project moves the session's row there too; the server's project had
    /// its row moved when the request arrived ([`Presence`]).
    pub(crate) fn app_with(
        &self,
        peer: &Peer<RoleServer>,
        meta: Option<&RequestMetaObject>,
        project: Option<&str>,
    ) -> App {
        let client = client_name(peer, meta);
        let named = project.is_some_and(|p| !p.trim().is_empty());
        let app = self.app_as(&client, project);
        if named {
            self.touch(&app, &client);
        }
        app
    }

    /// The `App` for `client` in `project` (else the server's).
    fn app_as(&self, client: &str, project: Option<&str>) -> App {
        let mut env = self.base.env.clone();
        env.actor = Some(format!("agent:{client}"));
        env.session = Some(self.base.session.clone());
        let flag = match project {
            Some(p) if !p.trim().is_empty() => {
                let path = Path::new(p);
                // `KAPI_NO_PROJECT` is honoured only when no project is named.
                env.no_project = false;
                // A relative one is found as `--project` is: from the server's folder, then
                // each parent (`discover::resolve`), so `kapi.yaml` from a subfolder binds.
                Some(kapi_core::project::discover::resolve(&self.base.cwd, path))
            }
            _ => self.base.project.clone(),
        };
        if flag.is_some() {
            env.no_project = false;
        }
        let mut app = App::new(env, self.base.cwd.clone(), flag);
        // `kapi mcp --strict` (or `KAPI_STRICT`): every call refuses a recipe key kapi does not
        // read; else the server's log names each once.
        app.strict = self.base.env.strict;
        app.stores = self.base.stores.clone();
        app.surface = crate::Surface::Mcp;
        app.client = Some(client.to_owned());
        app
    }

    /// A request arrived: moves the session's row forward in the server's project.
    fn seen(&self, peer: &Peer<RoleServer>, meta: &RequestMetaObject) {
        let client = client_name(peer, Some(meta));
        let home = match self.base.home.get() {
            Some(root) => root.clone(),
            None => match self.app_as(&client, None).project() {
                Ok(Some(project)) => self.base.home.get_or_init(|| project.root).clone(),
                _ => return,
            },
        };
        self.touch_root(&home, &client);
    }

    /// Moves this session's row forward in the app's project store (the session says it is
    /// here while it only reads). Best effort: a store that cannot be opened is not the call's
    /// failure, and a project without a store gets none from this (its first write makes it).
    fn touch(&self, app: &App, client: &str) {
        if let Ok(Some(project)) = app.project() {
            self.touch_root(&project.root, client);
        }
    }

    /// [`Self::touch`] in the project at `root`.
    fn touch_root(&self, root: &Path, client: &str) {
        let path = root.join(kapi_core::project::layout::STORE_FILE);
        if !path.exists() {
            return;
        }
        if let Ok(handle) = self.base.stores.get(&path)
            && let Ok(store) = crate::app::lock(&handle)
        {
            let now = jiff::Timestamp::now().to_string();
            let _ = store.touch_session(&kapi_core::store::SessionRow {
                id: self.base.session.clone(),
                actor_kind: "agent".into(),
                actor_name: client.to_owned(),
                project: Some(root.display().to_string()),
                client: Some(client.to_owned()),
                started_at: now.clone(),
                last_seen: now,
            });
        }
    }
}

/// The client's own name: from `initialize` (`clientInfo.name`), else the request's `_meta`
/// (the 2026-07-28 lifecycle), else `mcp-client`.
fn client_name(peer: &Peer<RoleServer>, meta: Option<&RequestMetaObject>) -> String {
    peer.peer_info()
        .map(|info| info.client_info.name.clone())
        .or_else(|| meta.and_then(|m| m.client_info()).map(|i| i.name))
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "mcp-client".into())
}

/// The server as it is served: the receiving middleware of S-03. Every request the client
/// sends — `initialize`, `ping` and `tools/list` as much as a tool call — first moves the
/// session's row forward in the server's project store, so a session that only reads still
/// says it is here; then [`KapiServer`] handles it, and a `Method not found` it answers names
/// the method (`method not found: prompts/list`). Notifications are not requests and move
/// nothing.
#[derive(Clone)]
pub struct Presence(pub KapiServer);

impl rmcp::Service<RoleServer> for Presence {
    async fn handle_request(
        &self,
        request: rmcp::model::ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ServerResult, McpError> {
        let server = self.0.clone();
        let (peer, meta) = (context.peer.clone(), context.meta.clone());
        // Off the runtime's only thread: the store may wait for another process's write.
        let _ = tokio::task::spawn_blocking(move || server.seen(&peer, &meta)).await;
        let method = request.method().to_owned();
        // rmcp answers a method this server does not serve (`prompts/list`, a `ping` in the
        // 2026-07-28 lifecycle) with the method's bare name.
        rmcp::Service::handle_request(&self.0, request, context)
            .await
            .map_err(|error| {
                if error.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND {
                    super::stdio::method_not_found(&method)
                } else {
                    error
                }
            })
    }

    async fn handle_notification(
        &self,
        notification: rmcp::model::ClientNotification,
        context: rmcp::service::NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        rmcp::Service::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        rmcp::Service::supported_protocol_versions(&self.0)
    }
}

impl KapiServer {
    /// Whether a tool declares itself read-only (`readOnlyHint`): any other may write.
    fn read_only(&self, name: &str) -> bool {
        self.tool_router
            .map
            .get(name)
            .and_then(|route| route.attr.annotations.as_ref())
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false)
    }

    /// Runs one tool call on a blocking-pool thread once a slot (and, for a tool that writes,
    /// the writers' lock) is free, with a cancel flag that the request's cancellation sets.
    /// A call cancelled while it waits never starts; rmcp drops whatever it answers then.
    async fn run_call(
        &self,
        name: &str,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, McpError> {
        let ct = context.ct.clone();
        let stopped = || McpError::internal_error("the call was cancelled", None);
        let calls = &self.base.calls;
        let slot = tokio::select! {
            slot = Arc::clone(&calls.slots).acquire_owned() => slot.map_err(|_| stopped())?,
            () = ct.cancelled() => return Err(stopped()),
        };
        let writing = if self.read_only(name) {
            None
        } else {
            tokio::select! {
                guard = Arc::clone(&calls.writer).lock_owned() => Some(guard),
                () = ct.cancelled() => return Err(stopped()),
            }
        };
        let running = calls.start();
        let flag = Arc::clone(&running.flag);
        let watch = tokio::spawn({
            let flag = Arc::clone(&flag);
            let ct = ct.clone();
            async move {
                ct.cancelled().await;
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let server = self.clone();
        let runtime = tokio::runtime::Handle::current();
        let joined = tokio::task::spawn_blocking(move || {
            let _held = (slot, writing, running);
            super::calls::with_flag(flag, || {
                runtime.block_on(async {
                    let call = rmcp::handler::server::tool::ToolCallContext::new(
                        &server, request, context,
                    );
                    server.tool_router.call(call).await
                })
            })
        })
        .await;
        watch.abort();
        match joined {
            Ok(response) => response,
            Err(e) => Err(McpError::internal_error(
                format!("{name} stopped unexpectedly: {e}"),
                None,
            )),
        }
    }
}

/// A tool's answer: its JSON as structured content, and `text` for clients that read only
/// text (the JSON itself when `text` is `None`).
pub(crate) fn answer<T: Serialize>(value: &T, text: Option<String>) -> CallToolResult {
    match serde_json::to_value(value) {
        // With a text of its own, the JSON is not also rendered as text (a large report
        // would be serialised once more only to be replaced).
        Ok(v) => match text {
            Some(text) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(v);
                r
            }
            None => CallToolResult::structured(v),
        },
        Err(e) => failure_message(&format!("cannot encode the answer: {e}"), "error"),
    }
}

/// A host function's outcome as a tool result: its JSON with `render`'s text, or the error.
pub(crate) fn respond<T: Serialize>(
    result: Result<T, HostError>,
    render: impl FnOnce(&T) -> String,
) -> CallToolResult {
    match result {
        Ok(value) => {
            let text = render(&value);
            answer(&value, Some(text))
        }
        Err(e) => failure(e),
    }
}

/// A refusal that carries the same structured result as a success (`isError: true`).
pub(crate) fn refusal<T: Serialize>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(v) => CallToolResult::structured_error(v),
        Err(e) => failure_message(&format!("cannot encode the answer: {e}"), "error"),
    }
}

fn failure_message(message: &str, code: &str) -> CallToolResult {
    error_result(serde_json::json!({"error": message, "code": code}))
}

/// A tool error (`isError: true`): its `{"error", "code", "hints"}` as JSON text, and no
/// `structuredContent`. A client may validate structured content against the tool's declared
/// output schema in an error result too (the TypeScript SDK's `callTool` does whenever it is
/// present); an error shape there would be refused as a protocol error and the model would
/// never read the message and its fix. A refusal that carries the tool's own report
/// ([`refusal`]) is structured, since it conforms.
pub(crate) fn error_result(error: serde_json::Value) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_string())])
}

/// A host error as a tool error naming what went wrong and the fix.
pub(crate) fn failure(error: HostError) -> CallToolResult {
    let code = match error.kind() {
        crate::error::ErrorKind::Usage => "usage",
        crate::error::ErrorKind::Operational => "error",
        crate::error::ErrorKind::Refused => "not_permitted",
    };
    let hints = error.hints_on(crate::Surface::Mcp);
    error_result(
        serde_json::json!({"error": error.message_on(crate::Surface::Mcp), "code": code, "hints": hints}),
    )
}

/// Splits `context://…?a=b&c=d` into its path and query pairs (percent-decoded).
fn parse_uri(uri: &str) -> Option<(String, Vec<(String, String)>)> {
    let rest = uri.strip_prefix("context://")?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    Some((decode(path), pairs))
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The most findings a tool's report holds (`kapi check` holds
/// [`kapi_core::check::MAX_FINDINGS`]): an agent reads every one, and a thousand is already
/// more than it can act on before it fixes the cause; the summary counts them all and
/// `truncated` says how many more there are. It also keeps the answer's size (a JSON value and
/// its text) at a few MB however large the text checked.
pub(crate) const REPORT_FINDINGS: usize = 1_000;

/// The largest arguments a call takes. The stdio transport refuses a line over 16 MiB whole
/// (`Invalid request`, and keeps serving), so every tool, `apply_edits` included, refuses well
/// below it with a tool error that says what to send instead.
pub const MAX_ARGUMENT_BYTES: usize = 8 * 1024 * 1024;

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Each argument's name and JSON type (`integer` for a whole number).
fn shape(args: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, &'static str)> {
    args.iter()
        .map(|(name, value)| {
            let kind = match value {
                serde_json::Value::Null => "null",
                serde_json::Value::Bool(_) => "boolean",
                serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
                serde_json::Value::Number(_) => "number",
                serde_json::Value::String(_) => "string",
                serde_json::Value::Array(_) => "array",
                serde_json::Value::Object(_) => "object",
            };
            (name.clone(), kind)
        })
        .collect()
}

/// The first argument whose JSON type the tool's input schema does not take, or that the
/// schema does not know: what a "failed to deserialize parameters" error is about.
fn mistyped(
    schema: &serde_json::Map<String, serde_json::Value>,
    args: &[(String, &'static str)],
) -> Option<String> {
    let props = schema.get("properties").and_then(|p| p.as_object());
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    for name in &required {
        if !args.iter().any(|(arg, _)| arg == name) {
            return Some(format!("`{name}` is missing"));
        }
    }
    for (name, actual) in args.iter().map(|(name, kind)| (name, *kind)) {
        let Some(prop) = props.and_then(|p| p.get(name)) else {
            return Some(format!("`{name}` is not an argument of this tool"));
        };
        let types: Vec<&str> = match prop.get("type") {
            Some(serde_json::Value::String(t)) => vec![t.as_str()],
            Some(serde_json::Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str()).collect(),
            _ => continue,
        };
        let fits = types
            .iter()
            .any(|t| *t == actual || (*t == "number" && actual == "integer"));
        if !fits {
            return Some(format!(
                "`{name}` must be {}, not {actual}",
                types.join(" or ")
            ));
        }
    }
    None
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for KapiServer {
    /// Routes a call; an argument error also names the argument (rmcp's message does not).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, McpError> {
        let name = request.name.to_string();
        // rmcp's own answer says "tool not found" without the name.
        if !self.tool_router.map.contains_key(name.as_str()) {
            return Err(McpError::invalid_params(
                format!("tool not found: {name}"),
                None,
            ));
        }
        let limit = MAX_ARGUMENT_BYTES;
        // Measured and typed without a copy of the arguments (a text may be megabytes).
        let size = request.arguments.as_ref().map_or(2, |args| {
            let mut counter = Counter(0);
            serde_json::to_writer(&mut counter, args).map_or(0, |()| counter.0)
        });
        let shape = request.arguments.as_ref().map(shape).unwrap_or_default();
        if size > limit {
            return Ok(error_result(serde_json::json!({
                "error": format!("{name}: the arguments are {size} bytes; a call takes at most {limit}"),
                "code": "usage",
                "hints": ["send less at once: a file's path instead of its text, or several calls"],
            }))
            .into());
        }
        let response = self.run_call(&name, request, context).await?;
        let rmcp::model::CallToolResponse::Complete(mut result) = response else {
            return Ok(response);
        };
        let is_argument_error = result.is_error == Some(true)
            && result
                .content
                .first()
                .and_then(|c| c.as_text())
                .is_some_and(|t| t.text.starts_with("failed to deserialize parameters"));
        if is_argument_error
            && let Some(route) = self.tool_router.map.get(name.as_str())
            && let Some(what) = mistyped(&route.attr.input_schema, &shape)
        {
            let detail = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .map(|t| t.text.clone())
                .unwrap_or_default();
            let message = format!("{name}: {what} ({detail})");
            result = error_result(serde_json::json!({"error": message, "code": "usage"}));
        }
        Ok(result.into())
    }

    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder().enable_tools();
        let caps = if self.base.selection.resources {
            caps.enable_resources().build()
        } else {
            caps.build()
        };
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("kapi", env!("CARGO_PKG_VERSION")))
            .with_instructions(super::instructions::text(&self.base.selection.tools))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        if !self.base.selection.resources {
            return Ok(ListResourceTemplatesResult::with_all_items(Vec::new()));
        }
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("context://{+path}{?format,project}", "context")
                .with_mime_type("text/markdown"),
            ResourceTemplate::new(
                "context://profile/{name}{?format,project}",
                "context-profile",
            )
            .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let not_found = |message: String| {
            McpError::resource_not_found(message, Some(serde_json::json!({"uri": request.uri})))
        };
        if !self.base.selection.resources {
            return Err(not_found("this server serves no resources".into()));
        }
        let Some((path, query)) = parse_uri(&request.uri) else {
            return Err(not_found(format!(
                "`{}` is not a context:// URI: use context://PATH or context://profile/NAME",
                request.uri
            )));
        };
        let get = |k: &str| {
            query
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        let format = get("format").unwrap_or_else(|| "markdown".into());
        if format != "markdown" && format != "json" {
            return Err(McpError::invalid_params(
                format!("`format={format}`: use `markdown` (the default) or `json`"),
                Some(serde_json::json!({"uri": request.uri})),
            ));
        }
        let app = self.app(&context.peer, get("project").as_deref());
        let req = match path.strip_prefix("profile/") {
            Some(name) => crate::context::ContextRequest {
                profile: Some(name.to_owned()),
                ..Default::default()
            },
            None => crate::context::ContextRequest {
                path: Some(PathBuf::from(if path.is_empty() { "." } else { &path })),
                ..Default::default()
            },
        };
        let answer = crate::context::context(&app, &req).map_err(|e| {
            McpError::invalid_params(e.to_string(), Some(serde_json::json!({"uri": request.uri})))
        })?;
        let (body, mime) = if format == "json" {
            (
                serde_json::to_string(&answer).unwrap_or_default(),
                "application/json",
            )
        } else {
            (answer.markdown(), "text/markdown")
        };
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(body, request.uri).with_mime_type(mime),
        ])
        .into())
    }
}

/// A tool's output schema: the JSON schema of `T` as serde writes it (draft 2020-12, the
/// settings rmcp uses for a tool's declared output, [`schema_for_output`]), with the
/// result's `schema` id pinned (`const`, required), so a client validating
/// `structuredContent` tells one answer kind from another and knows every field past it.
/// The types' doc comments are left out ([`undocumented`]): they are written for the code's
/// reader, and the fields are documented under `docs/` by the id.
pub(crate) fn output_schema<T: schemars::JsonSchema + 'static>(
    schema: &str,
) -> Arc<serde_json::Map<String, serde_json::Value>> {
    let mut object = schema_for_output::<T>().as_ref().clone();
    undocumented(&mut object);
    object.insert(
        "description".into(),
        format!("a `{schema}` document").into(),
    );
    let properties = object
        .entry("properties")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    if let Some(properties) = properties.as_object_mut() {
        properties.insert(
            "schema".into(),
            serde_json::json!({"type": "string", "const": schema}),
        );
    }
    let required = object
        .entry("required")
        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let Some(required) = required.as_array_mut()
        && !required.iter().any(|r| r == "schema")
    {
        required.insert(0, "schema".into());
    }
    Arc::new(object)
}

/// Removes every `description` from a schema and its subschemas (a property named
/// `description` stays: the names under `properties` and `$defs` are not keywords).
fn undocumented(schema: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::Value;
    schema.remove("description");
    for (keyword, value) in schema.iter_mut() {
        match (keyword.as_str(), value) {
            // Values, not schemas.
            ("const" | "enum" | "default" | "examples", _) => {}
            ("properties" | "$defs" | "patternProperties", Value::Object(named)) => {
                for sub in named.values_mut() {
                    if let Value::Object(sub) = sub {
                        undocumented(sub);
                    }
                }
            }
            (_, Value::Object(sub)) => undocumented(sub),
            (_, Value::Array(subs)) => {
                for sub in subs {
                    if let Value::Object(sub) = sub {
                        undocumented(sub);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Declares `name`'s output schema: `T`'s, its `schema` id pinned ([`output_schema`]). A
/// tool the selection removed is skipped.
pub(crate) fn set_output<T: schemars::JsonSchema + 'static>(
    router: &mut ToolRouter<KapiServer>,
    name: &str,
    schema: &str,
) {
    if let Some(route) = router.map.get_mut(name) {
        route.attr.output_schema = Some(output_schema::<T>(schema));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No placeholder left: every tool `kapi mcp --all` serves declares an output schema that
    /// pins its id and describes the fields past it.
    #[test]
    fn every_tool_of_all_declares_a_real_output_schema() {
        let dir = tempfile::tempdir().expect("temp dir");
        let env = Env {
            no_project: true,
            ..Default::default()
        };
        let selection = super::super::sets::select(None, false, true).expect("--all");
        let server = KapiServer::new(env, dir.path().to_path_buf(), None, selection);
        let tools = server.tool_router.list_all();
        assert!(tools.len() >= 17, "{} tools", tools.len());
        for tool in tools {
            let name = &tool.name;
            let schema = tool
                .output_schema
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no output schema"));
            let id = &schema["properties"]["schema"];
            assert!(
                id["const"].as_str().is_some_and(|s| s.starts_with("kapi.")),
                "{name}: {id}"
            );
            let required = schema["required"].as_array();
            assert!(
                required.is_some_and(|r| r.iter().any(|f| f == "schema")),
                "{name}: `schema` is not required"
            );
            let fields = schema["properties"].as_object().map_or(0, |p| p.len());
            assert!(fields > 1, "{name}: nothing past `schema` is described");
        }
    }

    #[test]
    fn undocumented_keeps_a_property_named_description() {
        let mut schema = serde_json::json!({
            "description": "the type",
            "properties": {"description": {"type": "string", "description": "its field"}},
            "$defs": {"A": {"description": "a", "oneOf": [{"const": "x", "description": "x"}]}}
        });
        if let Some(object) = schema.as_object_mut() {
            undocumented(object);
        }
        assert_eq!(
            schema,
            serde_json::json!({
                "properties": {"description": {"type": "string"}},
                "$defs": {"A": {"oneOf": [{"const": "x"}]}}
            })
        );
    }
}
