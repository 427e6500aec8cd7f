//! The agent hosts kapi wires (`--agents`): their ids, the folder that selects each by default,
//! and the steps a person still takes in each.

use std::path::Path;

use crate::error::HostError;

/// An agent host kapi can wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HostId {
    ClaudeCode,
    Cursor,
    VsCode,
    Codex,
    Agents,
    Kkss,
    Kiki,
    OpenCode,
    Copilot,
    Qwen,
    Gemini,
}

impl HostId {
    pub const ALL: [HostId; 11] = [
        HostId::ClaudeCode,
        HostId::Cursor,
        HostId::VsCode,
        HostId::Codex,
        HostId::Agents,
        HostId::Kkss,
        HostId::Kiki,
        HostId::OpenCode,
        HostId::Copilot,
        HostId::Qwen,
        HostId::Gemini,
    ];

    /// The id `--agents` takes.
    pub fn id(self) -> &'static str {
        match self {
            HostId::ClaudeCode => "claude-code",
            HostId::Cursor => "cursor",
            HostId::VsCode => "vscode",
            HostId::Codex => "codex",
            HostId::Agents => "agents",
            HostId::Kkss => "kkss",
            HostId::Kiki => "kiki",
            HostId::OpenCode => "opencode",
            HostId::Copilot => "copilot",
            HostId::Qwen => "qwen",
            HostId::Gemini => "gemini",
        }
    }

    /// The folder whose presence wires the host by default (none: always wired).
    pub fn folder(self) -> Option<&'static str> {
        match self {
            HostId::ClaudeCode => None,
            HostId::Cursor => Some(".cursor"),
            HostId::VsCode => Some(".vscode"),
            HostId::Codex => Some(".codex"),
            HostId::Agents => Some(".agents"),
            HostId::Kkss => Some(".kkss"),
            HostId::Kiki => Some(".kiki"),
            HostId::OpenCode => Some(".opencode"),
            HostId::Copilot => Some(".github/copilot-instructions.md"),
            HostId::Qwen => Some(".qwen"),
            HostId::Gemini => Some(".gemini"),
        }
    }

    pub fn from_id(id: &str) -> Option<HostId> {
        HostId::ALL.into_iter().find(|h| h.id() == id)
    }

    /// What a person still has to do; kapi can never do it for them.
    pub fn next_steps(self) -> Vec<String> {
        let steps: &[&str] = match self {
            HostId::ClaudeCode => &[
                "start Claude Code in the project and approve the project MCP server `kapi` from .mcp.json when it asks (`claude mcp reset-project-choices` asks again)",
                "accept Claude Code's workspace-trust dialog: kapi's hooks in .claude/settings.json run only in a trusted workspace",
            ],
            HostId::Cursor => {
                &["enable the project server `kapi` in Cursor Settings ▸ MCP (.cursor/mcp.json)"]
            }
            HostId::VsCode => &[
                "trust the workspace in VS Code and start the server `kapi` from .vscode/mcp.json when Copilot asks",
            ],
            HostId::Codex => &[
                "trust the project in Codex: it reads .codex/config.toml and .codex/hooks.json only for a trusted project",
                "keep hooks enabled in Codex and review kapi's hooks in .codex/hooks.json when it asks (on Codex before 0.124, set `[features] codex_hooks = true` in ~/.codex/config.toml)",
            ],
            HostId::Agents => &[
                "nothing: clients that read .agents/skills (Codex, Kiki) find the skill on their own",
            ],
            HostId::Kkss => &[
                "trust the project folder in KKSS (Assistant extensions: the server shows yellow until you do)",
                "in Assistant extensions ▸ kapi ▸ Tools, mark kapi's read-only tools Read-only; every other tool asks each time",
                "keep `kapi` on the PATH KKSS starts hooks with: a PreToolUse hook that cannot start denies the call (or remove `kapi-pre-edit` from .kkss/assistant/hooks.json)",
            ],
            HostId::Kiki => &[
                "trust the workspace in Kiki: .kiki/mcp.json and .kiki/hooks.toml are active only in a trusted workspace",
            ],
            HostId::Copilot => &[
                "trust the project folder in the Copilot CLI (its prompt, or `copilot --trust-folder`): it loads .mcp.json and the hooks in .claude/settings.json only in a trusted folder",
                "to give the model kapi's MCP instructions, start it with `--allow-all-mcp-server-instructions`",
            ],
            HostId::Gemini => &[
                "trust the project folder in Gemini CLI (its prompt, or `GEMINI_CLI_TRUST_WORKSPACE=true` headless; `--skip-trust` drops the project's .gemini/settings.json): it loads kapi's server and hooks only in a trusted folder",
            ],
            HostId::Qwen => &[
                "nothing to approve by default: Qwen Code loads the project's .qwen/settings.json (kapi's server and hooks); with `security.folderTrust.enabled` on, trust the project folder",
            ],
            HostId::OpenCode => &[
                "nothing to approve: OpenCode (opencode-ai 1.x) starts the project's opencode.json servers and loads .opencode/plugins/kapi.js on its own; it has no stop hook, so run `kapi check` before you report work done (AGENTS.md says so)",
            ],
        };
        steps.iter().map(|s| (*s).to_owned()).collect()
    }
}

/// Which hosts `--agents` names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Agents {
    /// No flag: Claude Code, plus each host whose folder the project already keeps.
    #[default]
    Detect,
    All,
    None,
    List(Vec<HostId>),
}

impl Agents {
    /// Parses `all`, `none` or a comma list of host ids; an unknown id names the valid ones.
    pub fn parse(text: &str) -> Result<Agents, HostError> {
        let trimmed = text.trim();
        match trimmed {
            "all" => return Ok(Agents::All),
            "none" => return Ok(Agents::None),
            _ => {}
        }
        let mut hosts = Vec::new();
        for part in trimmed.split(',').map(str::trim) {
            match HostId::from_id(part) {
                Some(h) => {
                    if !hosts.contains(&h) {
                        hosts.push(h);
                    }
                }
                None => {
                    return Err(HostError::Usage {
                        message: format!("`{part}` is not an agent host kapi wires"),
                        hint: Some(format!(
                            "use all, none, or a comma list of: {}",
                            valid_ids()
                        )),
                    });
                }
            }
        }
        Ok(Agents::List(hosts))
    }

    /// The hosts to wire in `root`, in a fixed order.
    pub fn resolve(&self, root: &Path) -> Vec<HostId> {
        let mut hosts: Vec<HostId> = match self {
            Agents::All => HostId::ALL.to_vec(),
            Agents::None => Vec::new(),
            Agents::List(list) => list.clone(),
            Agents::Detect => HostId::ALL
                .into_iter()
                .filter(|h| match h.folder() {
                    None => true,
                    // symlink_metadata: a symlinked folder is detected, then refused.
                    Some(dir) => std::fs::symlink_metadata(root.join(dir)).is_ok(),
                })
                .collect(),
        };
        hosts.sort();
        hosts.dedup();
        hosts
    }
}

/// `claude-code, cursor, …`.
pub fn valid_ids() -> String {
    HostId::ALL.map(HostId::id).join(", ")
}
