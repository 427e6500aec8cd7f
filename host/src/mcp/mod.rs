//! `kapi mcp`: the curated MCP server over stdio (crate rmcp). Tools come in sets
//! ([`sets`]); every tool is registered, then each one no selected set lists is removed, so
//! the tool list is fixed at startup. A per-call `project` changes what governs a call, never
//! which tools exist. The transport stamps every change set and note as an agent named by the
//! client's `clientInfo.name`, in one session per server process, whose row in the project's
//! store every request moves forward (`server::Presence`). Tool calls run
//! concurrently, each on a thread of its own, and `notifications/cancelled` stops one
//! (`calls`). When the client closes stdin, the server answers every request it received,
//! then exits 0 (`stdio`: the wait, and its bound).

pub mod instructions;
pub mod sets;

mod calls;
mod content;
mod listing;
mod review;
mod server;
mod stdio;
mod translation;
mod writing;

use std::path::PathBuf;

pub use server::KapiServer;

use crate::env::Env;
use crate::error::HostError;

/// How `kapi mcp` was started.
#[derive(Debug, Clone, Default)]
pub struct McpOptions {
    /// `--project PATH`: the default project for calls that name none.
    pub project: Option<PathBuf>,
    /// `--tools SET,…` (default `writing`).
    pub tools: Option<String>,
    /// `--all-tools`: add the listing helpers.
    pub all_tools: bool,
    /// `--all`: every set and the helpers.
    pub all: bool,
}

/// Serves MCP on stdin/stdout until the client closes stdin and every request received is
/// answered.
pub fn serve(env: Env, cwd: PathBuf, options: &McpOptions) -> Result<(), HostError> {
    let selection = sets::select(options.tools.as_deref(), options.all_tools, options.all)
        .map_err(|message| HostError::Usage {
            message,
            hint: Some("`kapi mcp --tools writing,content`, or `--all`".into()),
        })?;
    let server = KapiServer::new(env, cwd, options.project.clone(), selection);
    // The server outlives each answer: the check cache is written after the answer is sent
    // (the CLI waits for that write before it exits).
    crate::derived::allow_background();
    let calls = std::sync::Arc::clone(&server.base.calls);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| HostError::Internal {
            message: format!("cannot start the MCP runtime: {e}"),
        })?;
    runtime.block_on(async move {
        use rmcp::ServiceExt;
        let service = match server::Presence(server).serve(stdio::Stdio::new()).await {
            Ok(service) => service,
            // A client that leaves before initializing ends the session, not in failure.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => {
                return Err(HostError::Internal {
                    message: format!("MCP initialization failed: {e}"),
                });
            }
        };
        // Stdin closed and every request received was answered, or the transport stopped
        // waiting for the rest (stdout gone, or nothing answered for its bound).
        let stopped = service.waiting().await;
        // Stop the calls still running, if any. Dropping the runtime then waits for their
        // threads (a write in progress finishes).
        calls.cancel_all();
        stopped.map_err(|e| HostError::Internal {
            message: format!("MCP server stopped: {e}"),
        })?;
        Ok(())
    })
}
