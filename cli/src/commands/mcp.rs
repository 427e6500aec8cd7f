//! `kapi mcp`: the curated MCP server over stdio (`writing` set by default). The global
//! `--project` names the default project; each call may name its own. Exits 0 once the client
//! closes stdin and every request it sent is answered, 2 for an unknown tool set.

use clap::Args;
use kapi_host::mcp::{McpOptions, serve};

use crate::exit::Outcome;
use crate::printer::Printer;

/// Serve kapi to an editor or agent over MCP (stdio)
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Tool sets to serve: writing (default), content, review, translation, all
    #[arg(long, value_name = "SET,…", conflicts_with = "all")]
    pub tools: Option<String>,
    /// Also serve the listing helpers (list_formats, list_profiles, list_collections)
    #[arg(long)]
    pub all_tools: bool,
    /// Serve every set and the listing helpers
    #[arg(long)]
    pub all: bool,
}

pub fn run(args: &McpArgs, app: &kapi_host::App, _: &mut Printer) -> anyhow::Result<Outcome> {
    serve(
        app.env.clone(),
        app.cwd.clone(),
        &McpOptions {
            // A relative `--project` is found from the folder the host started kapi in, up.
            project: app
                .project_flag
                .clone()
                .map(|p| kapi_core::project::discover::resolve(&app.cwd, &p)),
            tools: args.tools.clone(),
            all_tools: args.all_tools,
            all: args.all,
        },
    )?;
    Ok(Outcome::Success)
}
