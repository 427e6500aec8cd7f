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
    Windsurf,
    Zed,
    Kiro,
    Junie,
    Factory,
    Amp,
    Kilo,
    Roo,
    Cline,
    Goose,
    Crush,
}

impl HostId {
    pub const ALL: [HostId; 22] = [
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
        HostId::Windsurf,
        HostId::Zed,
        HostId::Kiro,
        HostId::Junie,
        HostId::Factory,
        HostId::Amp,
        HostId::Kilo,
        HostId::Roo,
        HostId::Cline,
        HostId::Goose,
        HostId::Crush,
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
            HostId::Windsurf => "windsurf",
            HostId::Zed => "zed",
            HostId::Kiro => "kiro",
            HostId::Junie => "junie",
            HostId::Factory => "factory",
            HostId::Amp => "amp",
            HostId::Kilo => "kilo",
            HostId::Roo => "roo",
            HostId::Cline => "cline",
            HostId::Goose => "goose",
            HostId::Crush => "crush",
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
            HostId::Windsurf => Some(".windsurf"),
            HostId::Zed => Some(".zed"),
            HostId::Kiro => Some(".kiro"),
            HostId::Junie => Some(".junie"),
            HostId::Factory => Some(".factory"),
            HostId::Amp => Some(".amp"),
            HostId::Kilo => Some(".kilo"),
            HostId::Roo => Some(".roo"),
            HostId::Cline => Some(".clinerules"),
            HostId::Goose => Some(".goosehints"),
            HostId::Crush => Some(".crush"),
        }
    }

    pub fn from_id(id: &str) -> Option<HostId> {
        HostId::ALL.into_iter().find(|h| h.id() == id)
    }

    /// What a person still has to do; kapi can never do it for them. A host that reads MCP
    /// servers from the person's own settings only gets the entry to paste, naming the recipe
    /// in `root` by its absolute path (that host starts servers from its own folder).
    pub fn next_steps(self, root: &Path) -> Vec<String> {
        if let Some(steps) = self.personal_steps(root) {
            return steps;
        }
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
            HostId::Zed => &[
                "trust the project in Zed (the ! in the title bar, or `workspace: toggle worktree security`): in Restricted mode it reads neither .zed/settings.json nor starts the server `kapi`",
                "Zed has no hooks: run `kapi check` before you report work done (AGENTS.md says so)",
            ],
            HostId::Kiro => &[
                "trust the workspace in Kiro: it loads .kiro/settings/mcp.json, .kiro/hooks/ and the skill in .kiro/skills/kapi there; approve the server `kapi` when it asks (Kiro reads AGENTS.md beside .kiro/steering/)",
                "kapi's .kiro/hooks/kapi.json refuses an edit of a generated target (PreToolUse, the one Kiro hook that can block); Kiro ignores a PostToolUse hook's output and its Stop cannot block, so run `kapi check` before you report work done",
            ],
            HostId::Junie => &[
                "Junie reads .junie/guidelines.md by default: set Settings ▸ Tools ▸ Junie ▸ Project Settings ▸ Guidelines path to AGENTS.md, where kapi keeps the project's rules",
                "Junie reads the project's .junie/mcp/mcp.json and the skill in .junie/skills/kapi; its only hook starts a session, so run `kapi check` before you report work done",
            ],
            HostId::Factory => &[
                "nothing to approve: droid starts the server in .factory/mcp.json, runs the hooks in .factory/hooks.json (`--no-hooks` turns them off) and lists the skill in .agents/skills/kapi",
                "for `droid exec`, set `\"blockOnMcpLoad\": true` in ~/.factory/settings.json: without it droid does not wait for kapi's server, and its first requests lack kapi's tools",
            ],
            HostId::Amp => &[
                "approve the workspace server `kapi` in Amp (`amp mcp approve kapi`): Amp starts a server from .amp/settings.json only once approved",
                "Amp's hooks are TypeScript plugins (.amp/plugins/); kapi writes none, so run `kapi check` before you report work done (AGENTS.md says so)",
            ],
            HostId::Kilo => &[
                "nothing to approve: Kilo Code (7.x) starts the server in kilo.jsonc and loads .kilo/plugin/kapi.js on its own (pre-edit, post-edit, and a stop when the session goes idle)",
            ],
            HostId::Roo => &[
                "Roo Code (at its end of life) and Zoo Code (its community fork, which reads .roo/ where .zoo/ lacks the file) read .roo/mcp.json and the skill in .agents/skills/kapi; enable the server `kapi` in the MCP panel if it is off",
                "Roo Code has no hooks: run `kapi check` before you report work done (AGENTS.md says so)",
            ],
            HostId::Crush => &[
                "nothing to approve: Crush runs a project's config as trusted code (kapi's server and its PreToolUse hook, in .crushrc, or in the crush.json you keep); Crush has no post-edit or stop hook, so run `kapi check` before you report work done",
            ],
            HostId::Windsurf | HostId::Cline | HostId::Goose => &[],
        };
        steps.iter().map(|s| (*s).to_owned()).collect()
    }

    /// True when the host reads MCP servers from the person's own settings only (Windsurf's
    /// Cascade, Cline, Goose): kapi writes no MCP file for it and prints the entry to paste.
    pub fn mcp_is_personal(self) -> bool {
        matches!(self, HostId::Windsurf | HostId::Cline | HostId::Goose)
    }

    /// The steps of a host with no project MCP file (Windsurf's Cascade, Cline, Goose).
    fn personal_steps(self, root: &Path) -> Option<Vec<String>> {
        let recipe = root.join(super::mcp_entries::PROJECT_ARG);
        let recipe = recipe.display().to_string();
        let entry =
            serde_json::json!({"kapi": {"command": "kapi", "args": ["mcp", "--project", &recipe]}});
        if !self.mcp_is_personal() {
            return None;
        }
        let steps = match self {
            HostId::Windsurf => vec![
                format!(
                    "Windsurf's Cascade reads MCP servers from your own ~/.codeium/windsurf/mcp_config.json only: add {entry} to its `mcpServers` (Cascade panel ▸ MCPs ▸ View raw config) and refresh"
                ),
                "kapi's hooks in .windsurf/hooks.json run in a trusted workspace: pre_write_code refuses an edit of a generated target, post_write_code gives the agent the edited file's findings; Cascade has no stop hook, so run `kapi check` before you report work done".to_owned(),
                "Devin Local (Devin Desktop's default agent) and the Devin CLI read Claude Code's .mcp.json and .claude/settings.json hooks, which kapi writes for Claude Code".to_owned(),
            ],
            HostId::Cline => vec![
                format!(
                    "Cline reads MCP servers from your own settings only: Cline panel ▸ MCP Servers ▸ Configure ▸ Configure MCP Servers, then add {entry} to `mcpServers`"
                ),
                "Cline reads AGENTS.md and the skill in .agents/skills/kapi; kapi writes no Cline hook (a PreToolUse `cancel` would end the whole task), so run `kapi check` before you report work done".to_owned(),
            ],
            HostId::Goose => vec![
                format!(
                    "Goose reads extensions from your own ~/.config/goose/config.yaml only: `goose configure` ▸ Add Extension ▸ Command-line Extension, command `kapi mcp --project {recipe}`; or start one session with `goose session --with-extension \"kapi mcp --project {recipe}\"`"
                ),
                "Goose reads AGENTS.md and the skill in .agents/skills/kapi".to_owned(),
            ],
            _ => return None,
        };
        Some(steps)
    }
}

/// The files Zed reads its rules from, in its order: it reads the first that exists, so one
/// ahead of `AGENTS.md` hides the project's rules from it (zed.dev/docs/ai/instructions).
pub const ZED_RULES_ORDER: [&str; 7] = [
    ".rules",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    "AGENT.md",
    "AGENTS.md",
];

/// A warning when the host reads another file instead of `AGENTS.md`, where kapi keeps the
/// project's rules: Zed reads only the first of [`ZED_RULES_ORDER`], Junie reads
/// `.junie/AGENTS.md` instead of `AGENTS.md`.
pub fn hidden_rules(root: &Path, host: HostId) -> Option<String> {
    let first = match host {
        HostId::Zed => ZED_RULES_ORDER
            .into_iter()
            .find(|f| root.join(f).is_file())
            .filter(|f| *f != "AGENTS.md")?,
        HostId::Junie if root.join(".junie/AGENTS.md").is_file() => ".junie/AGENTS.md",
        _ => return None,
    };
    Some(format!(
        "{first} hides AGENTS.md from {}, so it does not see the rules kapi keeps there: move what {first} says into AGENTS.md, or copy kapi's section of AGENTS.md into {first}",
        host.id()
    ))
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
