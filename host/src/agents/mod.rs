//! `kapi init` wires agent hosts up: per host, the MCP entry that starts `kapi mcp` for this
//! project, the skill's SKILL.md and, where the host runs them, the assistant hooks that call
//! `kapi hook pre-edit|post-edit|stop --host <host>` (Claude Code's `.claude/settings.json`,
//! Codex's `.codex/hooks.json`, KKSS's, Kiki's, Gemini CLI's, Qwen Code's, Cursor's, Windsurf's,
//! Factory's and Kiro's files, OpenCode's and Kilo Code's plugins; [`hook_entries`]), in
//! exactly the format each host documents (`design/background/agent-hosts.md`,
//! `agent-hosts-2026.md`). A host that reads MCP servers from the person's own settings only
//! (Windsurf's Cascade, Cline, Goose) gets no MCP file: its next steps give the entry to paste.
//!
//! Five properties hold for everything written:
//! - every path is under the project root (a symlinked host folder is refused);
//! - an entry is a command and nothing else: `kapi`, `mcp`, `--project kapi.yaml` and, when the
//!   recipe declares target languages, `--tools writing,translation` (no shell, no environment
//!   values, no credential);
//! - the project is named relatively, so the committed file works on every machine;
//! - an entry called `kapi` someone else wrote is read and left alone (one that differs from
//!   kapi's only in `--tools` is kapi's own and follows the recipe);
//! - the skill folder holds what this binary ships: `SKILL.md` alone, refreshed. Its references
//!   are served by `kapi help <topic>` (the plugin bundle carries the files), so a file an
//!   earlier kapi copied beside it (the content of a shipped reference, or its sha256 in the
//!   closed retired list) is removed, with the folders it empties; anything else is left and
//!   named, and a reference copy someone changed gets a warning naming its `kapi help` topic.
//!
//! A hook entry is a command too, `kapi hook <name> --host <host>` with the host's timeout
//! (Kiki runs it through its shell, so a `command -v kapi` guard lets a missing binary allow),
//! merged into the person's file with every other key, group and entry kept; a hook entry that
//! differs from kapi's is read and left alone, and named in a warning.
//!
//! Every JSON file kapi merges into (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`,
//! `.kiki/mcp.json`, `.kkss/assistant/mcp.json`, and the hook files `.claude/settings.json`,
//! `.codex/hooks.json`, `.kkss/assistant/hooks.json`) is read as JSONC, JSON with comments and
//! trailing commas as VS Code documents `.vscode/mcp.json`, and edited through its concrete
//! syntax tree (`jsonc::JsonFile`, on the `jsonc-parser` crate): only kapi's entry is inserted (in the
//! file's own indentation, line endings and comma style) or its changed fields replaced, and
//! every other byte (comments, trailing commas, key order, layout) is written back as it was
//! read. A new file is pretty JSON. A file that is not JSON or JSONC is refused with its line,
//! column and the fix.
//!
//! Each host is planned in full before anything is written, and a host whose file is malformed,
//! whose folder is a symlink, whose file is read-only or whose write fails is refused on its
//! own, with nothing of it written (its files are staged beside their originals before any is
//! replaced): the other hosts are still wired. A file whose bytes would not change is not
//! written, so a second run changes nothing.

pub mod crush;
pub mod hook_entries;
mod host_files;
pub mod hosts;
pub mod jsonc;
pub mod kkss_instructions;
pub mod mcp_entries;
pub mod rules_files;
pub mod skill_folders;
pub mod skills;

use std::path::Path;

use kapi_core::project::Recipe;
use serde::Serialize;

use crate::error::HostError;
use host_files::Plan;

pub use hosts::{Agents, HostId, valid_ids};
pub use kkss_instructions::{KKSS_BEGIN, KKSS_END, KKSS_INSTRUCTIONS_WINDOW};
pub use mcp_entries::{
    CODEX_STARTUP_TIMEOUT_SEC, KKSS_RESERVED_IDS, PROJECT_ARG, ROOT_ENV_VARS, SERVER,
    TRANSLATION_TOOLS, declares_targets, server_args,
};
pub use skill_folders::{kkss_skill, split_frontmatter};

/// What `wire` takes besides the recipe: the skill this binary ships.
#[derive(Debug, Clone, Default)]
pub struct WiringInput {
    /// The files a skill folder holds, relative to it: `SKILL.md` alone. Empty: no skill
    /// folder is written.
    pub skill_files: Vec<(String, Vec<u8>)>,
    /// The files shipped beside SKILL.md that `kapi help <topic>` serves instead of a copy
    /// (`references/edit.md`, …): an earlier kapi copied them into each skill folder, and a
    /// file there with the content of one of them is removed.
    pub served: Vec<(String, Vec<u8>)>,
    /// sha256 (lowercase hex) of files earlier kapi versions copied into a skill folder.
    pub retired: Vec<String>,
}

/// What wiring did, host by host.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WiringReport {
    pub hosts: Vec<HostWiring>,
}

impl WiringReport {
    /// True when some host was refused.
    pub fn refused(&self) -> bool {
        self.hosts.iter().any(|h| h.status == WiringStatus::Refused)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WiringStatus {
    /// Some file was written or removed.
    Wired,
    /// Everything was already as kapi writes it.
    Unchanged,
    /// Nothing was written for this host (see `error`).
    Refused,
}

/// One host's wiring.
#[derive(Debug, Clone, Serialize)]
pub struct HostWiring {
    pub host: &'static str,
    pub status: WiringStatus,
    /// Files written, relative to the root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub written: Vec<String>,
    /// Files an earlier kapi left in a skill folder, removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Files in kapi's skill folder kapi did not put there, left in place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign: Vec<String>,
    /// A `kapi` entry someone else wrote, left alone: the file that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_entry: Option<String>,
    /// Anything else worth saying (e.g. kapi's KKSS block beyond the 6,000-character window).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why the host was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a person still has to do.
    pub next_steps: Vec<String>,
}

/// Wires each host `agents` names in the project at `root` (absolute).
pub fn wire(
    root: &Path,
    recipe: &Recipe,
    agents: &Agents,
    input: &WiringInput,
) -> Result<WiringReport, HostError> {
    let args = server_args(recipe);
    let mut report = WiringReport::default();
    for host in agents.resolve(root) {
        let mut wiring = HostWiring {
            host: host.id(),
            status: WiringStatus::Unchanged,
            written: Vec::new(),
            removed: Vec::new(),
            foreign: Vec::new(),
            kept_entry: None,
            warnings: Vec::new(),
            error: None,
            next_steps: host.next_steps(root),
        };
        match plan_host(root, host, &args, input, &mut wiring).and_then(|plan| {
            plan.apply(root, &mut wiring)?;
            Ok(())
        }) {
            Ok(()) => {
                if !wiring.written.is_empty() || !wiring.removed.is_empty() {
                    wiring.status = WiringStatus::Wired;
                }
            }
            Err(e) => {
                wiring.status = WiringStatus::Refused;
                wiring.error = Some(e);
            }
        }
        report.hosts.push(wiring);
    }
    Ok(report)
}

fn plan_host(
    root: &Path,
    host: HostId,
    args: &[String],
    input: &WiringInput,
    wiring: &mut HostWiring,
) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let skill_dirs: &[&str] = match host {
        HostId::ClaudeCode => &[".claude/skills/kapi"],
        // Codex and Kiki read the cross-client folder.
        HostId::Codex
        | HostId::Agents
        | HostId::Kiki
        | HostId::OpenCode
        | HostId::Copilot
        | HostId::Qwen
        | HostId::Gemini
        | HostId::Windsurf
        | HostId::Zed
        | HostId::Amp
        | HostId::Kilo
        | HostId::Cline
        | HostId::Goose
        | HostId::Factory
        | HostId::Roo
        | HostId::Crush
        | HostId::Cursor => &[".agents/skills/kapi"],
        HostId::Kkss => &[".kkss/assistant/skills/kapi"],
        HostId::Kiro => &[".kiro/skills/kapi"],
        HostId::Junie => &[".junie/skills/kapi"],
        HostId::VsCode => &[],
    };
    match host {
        HostId::Codex => mcp_entries::codex_entry(root, args, &mut plan, wiring)?,
        HostId::Crush => crush::plan(root, args, &mut plan, wiring)?,
        // The Copilot CLI reads Claude Code's `.mcp.json` (and its hooks); Qwen Code's and
        // Gemini CLI's one settings file holds their servers and (below) their hooks.
        _ => {
            if let Some(rel) = mcp_entries::mcp_file(root, host) {
                mcp_entries::json_entry(root, &rel, host, args, &mut plan, wiring)?;
            }
            // No project MCP file (Windsurf's Cascade, Cline, Goose): the next steps give the
            // entry to paste.
        }
    }
    if host == HostId::Kkss {
        kkss_instructions::kkss_instructions(root, &mut plan, wiring)?;
    }
    if let Some(warning) = hosts::hidden_rules(root, host) {
        wiring.warnings.push(warning);
    }
    hook_entries::plan(root, host, &mut plan.writes, wiring)?;
    if !input.skill_files.is_empty() {
        for dir in skill_dirs {
            skill_folders::skill_dir(root, dir, host == HostId::Kkss, input, &mut plan, wiring)?;
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests;
