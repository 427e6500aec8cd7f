//! Every environment variable kapi reads, as documented constants, read in one place.
//! `core` never reads the environment; the host reads it here and passes values down.

/// A path to a recipe, a project root, or any path inside a project.
pub const KAPI_PROJECT: &str = "KAPI_PROJECT";
/// When set and non-empty, no project is discovered (tests and nested builds set it).
pub const KAPI_NO_PROJECT: &str = "KAPI_NO_PROJECT";
/// The session id operations are recorded under (default: one per process).
pub const KAPI_SESSION: &str = "KAPI_SESSION";
/// Who is calling from the command line: `person` (default), `agent` or `tool`, optionally
/// with a name (`agent:claude-code`).
pub const KAPI_ACTOR: &str = "KAPI_ACTOR";
/// Test hook, honoured by debug builds only: the index of the document whose rename a
/// change set's write fails, as a crash between two documents would.
pub const KAPI_TEST_FAIL_RENAME: &str = "KAPI_TEST_FAIL_RENAME";
/// Test hook, honoured by debug builds only: the index of the file whose rename a change
/// set's write waits before (up to 30 s) until a signal asks kapi to stop.
pub const KAPI_TEST_PAUSE_RENAME: &str = "KAPI_TEST_PAUSE_RENAME";
/// Test hook, honoured by debug builds only: non-empty makes recording a change set in the
/// store fail after its files landed, as a full disk would.
pub const KAPI_TEST_FAIL_RECORD: &str = "KAPI_TEST_FAIL_RECORD";
/// Test hook, honoured by debug builds only: non-empty makes `kapi hook` panic mid-evaluation,
/// to prove a panic still ends in the fail-open answer.
pub const KAPI_TEST_HOOK_PANIC: &str = "KAPI_TEST_HOOK_PANIC";
/// Test hook, honoured by debug builds only: non-empty makes `kapi hook` write the line
/// `kapi hook: ready` to stderr once its signal handlers are in, so a test signals it then
/// and not after a guessed pause.
pub const KAPI_TEST_HOOK_READY: &str = "KAPI_TEST_HOOK_READY";
/// Claude Code's project root, exported to its hook processes; a hook whose payload names no
/// `cwd` resolves against it.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// KKSS's project folder, exported to its hook processes (same use).
pub const KKSS_PROJECT_ROOT: &str = "KKSS_PROJECT_ROOT";
/// Set by Cursor for every hook it runs, its own and Claude Code's (`.claude/settings.json`).
pub const CURSOR_VERSION: &str = "CURSOR_VERSION";
/// When set and non-empty, a recipe key kapi does not read is an error (exit 2), as with
/// `--strict`, for every command (a CI job sets it once); a hook never refuses for it.
pub const KAPI_STRICT: &str = "KAPI_STRICT";
/// When set and non-empty, no colour is written (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";

/// What the assistant hosts put in the environment of the commands their agent runs (measured
/// against the real CLIs by `make e2e-hosts`, and from each host's documentation): a command
/// with one of these and no `KAPI_ACTOR` runs as `agent:<host>`, in the host's session when
/// the host exposes one. Checked in this order; the first present wins.
///
/// Some hosts have none, by their documents: KKSS gives its assistant no shell
/// (every tool is an MCP server or a command KKSS starts with a minimal environment, so its
/// notes arrive over MCP, named by the client), and Kiki documents no variable on the shell
/// commands its agent runs (its hook payloads carry `session_id`, but nothing reaches a later
/// command). There, and in any other host, an assistant sets `KAPI_ACTOR=agent:<host>`; the
/// skill says so. A host without a session variable is bound to the shell's session.
pub const HOST_MARKERS: &[HostMarker] = &[
    // Claude Code's Bash tool: `CLAUDECODE=1`, the session's uuid.
    HostMarker {
        host: "claude-code",
        marker: "CLAUDECODE",
        session: Some("CLAUDE_CODE_SESSION_ID"),
    },
    // Codex's shell tool: the thread id (also `CODEX_SESSION_ID`).
    HostMarker {
        host: "codex",
        marker: "CODEX_THREAD_ID",
        session: Some("CODEX_THREAD_ID"),
    },
    HostMarker {
        host: "codex",
        marker: "CODEX_SESSION_ID",
        session: Some("CODEX_SESSION_ID"),
    },
    // Cursor's agent CLI, and its IDE agent's terminal.
    HostMarker {
        host: "cursor",
        marker: "CURSOR_AGENT",
        session: None,
    },
    HostMarker {
        host: "cursor",
        marker: "CURSOR_EXTENSION_HOST_ROLE",
        session: None,
    },
    // VS Code's Copilot agent.
    HostMarker {
        host: "vscode",
        marker: "COPILOT_AGENT",
        session: None,
    },
    // The Copilot CLI's shell tool: `COPILOT_CLI=1` and the session id (measured by `make
    // e2e-hosts`).
    HostMarker {
        host: "copilot",
        marker: "COPILOT_CLI",
        session: Some("COPILOT_AGENT_SESSION_ID"),
    },
    // Qwen Code's shell tool (measured by `make e2e-hosts`).
    HostMarker {
        host: "qwen",
        marker: "QWEN_CODE",
        session: Some("QWEN_CODE_SESSION_ID"),
    },
    // Goose's developer shell (`GOOSE_TERMINAL=1`, in its source).
    HostMarker {
        host: "goose",
        marker: "GOOSE_TERMINAL",
        session: None,
    },
    // The terminals Cline starts in VS Code (`CLINE_ACTIVE=true`, in its source).
    HostMarker {
        host: "cline",
        marker: "CLINE_ACTIVE",
        session: None,
    },
];

/// The shared convention some hosts follow (`AI_AGENT=claude-code_2-1-332_agent`,
/// `AI_AGENT=github_copilot_vscode_agent`): an agent, named by what leads the value.
pub const AI_AGENT: &str = "AI_AGENT";

/// One host's marker variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostMarker {
    /// The actor name kapi records (`agent:<host>`).
    pub host: &'static str,
    /// Present and non-empty in the environment of the host's agent commands.
    pub marker: &'static str,
    /// The variable holding the host's session id, when the host exposes one.
    pub session: Option<&'static str>,
}

/// An assistant host found in the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAgent {
    pub host: String,
    /// The host's session id, prefixed with the host (`claude-code:…`).
    pub session: Option<String>,
}

/// Every variable with its meaning, for `kapi help environment`.
pub const ALL: &[(&str, &str)] = &[
    (
        KAPI_PROJECT,
        "a recipe, a project root or any path inside a project to bind (a relative one is found from the working folder, then each parent)",
    ),
    (
        KAPI_NO_PROJECT,
        "non-empty: never discover a project (tests set it)",
    ),
    (
        KAPI_SESSION,
        "the session id operations are recorded under (default: the host's session, else the shell kapi runs in)",
    ),
    (
        KAPI_ACTOR,
        "`person` (default), `agent` or `tool`, optionally `kind:name`; unset, an assistant host's marker makes it `agent:<host>`; `person` beside a host's marker is refused for a person's verb (the shell is no security boundary: README)",
    ),
    (
        "CLAUDECODE, CLAUDE_CODE_SESSION_ID",
        "set by Claude Code for its agent's commands: the actor is `agent:claude-code`, the session Claude Code's",
    ),
    (
        "CODEX_THREAD_ID, CODEX_SESSION_ID",
        "set by Codex for its agent's commands: the actor is `agent:codex`, the session the Codex thread",
    ),
    (
        "CURSOR_AGENT, CURSOR_EXTENSION_HOST_ROLE",
        "set by Cursor's agent: the actor is `agent:cursor`",
    ),
    (
        "COPILOT_CLI, COPILOT_AGENT_SESSION_ID",
        "set by the Copilot CLI for its agent's commands: the actor is `agent:copilot`, the session the Copilot CLI's",
    ),
    (
        "QWEN_CODE, QWEN_CODE_SESSION_ID",
        "set by Qwen Code for its agent's commands: the actor is `agent:qwen`, the session Qwen Code's",
    ),
    (
        "COPILOT_AGENT",
        "set by VS Code's Copilot agent: the actor is `agent:vscode`",
    ),
    (
        "GOOSE_TERMINAL",
        "set by Goose's shell tool: the actor is `agent:goose`",
    ),
    (
        "CLINE_ACTIVE",
        "set in the terminals Cline starts: the actor is `agent:cline`",
    ),
    (
        AI_AGENT,
        "the shared agent marker (`claude-code_…`, `github_copilot_…`): the actor is `agent:<what leads it>`",
    ),
    (
        KAPI_STRICT,
        "non-empty: a recipe key kapi does not read is an error (exit 2), as with `--strict`; hooks only note it",
    ),
    (NO_COLOR, "non-empty: no colour in output"),
    (
        CLAUDE_PROJECT_DIR,
        "set by Claude Code for hooks: the folder `kapi hook` resolves against when the payload has no cwd",
    ),
    (
        KKSS_PROJECT_ROOT,
        "set by KKSS for hooks: the folder `kapi hook` resolves against when the payload has no cwd",
    ),
    (
        CURSOR_VERSION,
        "set by Cursor for hooks: a Claude Code hook Cursor runs stands aside when the project's .cursor/hooks.json runs kapi's own",
    ),
];

/// The environment as kapi uses it, read once at start-up.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub project: Option<std::path::PathBuf>,
    pub no_project: bool,
    pub session: Option<String>,
    pub actor: Option<String>,
    pub no_color: bool,
    /// [`KAPI_STRICT`], or the command line's `--strict`: the surface sets [`crate::App::strict`]
    /// from it (the command line and `kapi mcp`; never a hook).
    pub strict: bool,
    /// [`KAPI_TEST_FAIL_RENAME`] (debug builds only).
    pub fail_rename: Option<usize>,
    /// [`KAPI_TEST_PAUSE_RENAME`] (debug builds only).
    pub pause_rename: Option<usize>,
    /// [`KAPI_TEST_FAIL_RECORD`] (debug builds only).
    pub fail_record: bool,
    /// [`KAPI_TEST_HOOK_PANIC`] (debug builds only).
    pub hook_panic: bool,
    /// [`KAPI_TEST_HOOK_READY`] (debug builds only).
    pub hook_ready: bool,
    /// `PATH`, to tell whether the `kapi` every host entry runs can be found.
    pub path: Option<std::ffi::OsString>,
    /// The assistant host whose agent runs this command ([`HOST_MARKERS`], [`AI_AGENT`]).
    pub host_agent: Option<HostAgent>,
    /// The process that started kapi (a shell at a terminal), as `PID-STARTTIME`, so the
    /// commands one shell runs share a session.
    pub parent: Option<String>,
    /// [`CLAUDE_PROJECT_DIR`], else [`KKSS_PROJECT_ROOT`]: a hook host's project folder.
    pub host_project_dir: Option<std::path::PathBuf>,
    /// [`CURSOR_VERSION`] is set: Cursor runs this hook.
    pub in_cursor: bool,
}

/// The value of the environment variable a provider's recipe entry names for its key
/// (`api_key_env`): read when a request is made, never stored, never printed.
#[allow(clippy::disallowed_methods)]
pub fn secret(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Env {
    /// The one place kapi reads the environment.
    #[allow(clippy::disallowed_methods)]
    pub fn read() -> Self {
        let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Env {
            project: non_empty(KAPI_PROJECT).map(Into::into),
            no_project: non_empty(KAPI_NO_PROJECT).is_some(),
            session: non_empty(KAPI_SESSION).map(|v| v.to_string_lossy().into_owned()),
            actor: non_empty(KAPI_ACTOR).map(|v| v.to_string_lossy().into_owned()),
            no_color: non_empty(NO_COLOR).is_some(),
            strict: non_empty(KAPI_STRICT).is_some(),
            fail_rename: if cfg!(debug_assertions) {
                non_empty(KAPI_TEST_FAIL_RENAME).and_then(|v| v.to_str()?.parse().ok())
            } else {
                None
            },
            pause_rename: if cfg!(debug_assertions) {
                non_empty(KAPI_TEST_PAUSE_RENAME).and_then(|v| v.to_str()?.parse().ok())
            } else {
                None
            },
            fail_record: cfg!(debug_assertions) && non_empty(KAPI_TEST_FAIL_RECORD).is_some(),
            hook_panic: cfg!(debug_assertions) && non_empty(KAPI_TEST_HOOK_PANIC).is_some(),
            hook_ready: cfg!(debug_assertions) && non_empty(KAPI_TEST_HOOK_READY).is_some(),
            path: non_empty("PATH"),
            host_agent: host_agent(&|name| {
                non_empty(name).map(|v| v.to_string_lossy().into_owned())
            }),
            parent: parent_process(),
            host_project_dir: non_empty(CLAUDE_PROJECT_DIR)
                .or_else(|| non_empty(KKSS_PROJECT_ROOT))
                .map(Into::into),
            in_cursor: non_empty(CURSOR_VERSION).is_some(),
        }
    }
}

/// Whether an executable `name` is in one of `path`'s folders.
pub fn on_path(path: Option<&std::ffi::OsStr>, name: &str) -> bool {
    let Some(path) = path else { return false };
    std::env::split_paths(path).any(|dir| {
        let file = dir.join(name);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(&file)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            file.with_extension("exe").is_file() || file.is_file()
        }
    })
}

/// The host whose agent runs this command, from what `var` reads (non-empty values only).
pub fn host_agent(var: &dyn Fn(&str) -> Option<String>) -> Option<HostAgent> {
    for m in HOST_MARKERS {
        if var(m.marker).is_some() {
            return Some(HostAgent {
                host: m.host.to_owned(),
                session: m.session.and_then(var).map(|id| format!("{}:{id}", m.host)),
            });
        }
    }
    let value = var(AI_AGENT)?;
    let lead: String = value
        .split(['_', ' ', '/'])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect::<String>()
        .to_ascii_lowercase();
    let host = match lead.as_str() {
        "" => return None,
        "github" => "vscode".to_owned(),
        _ => lead,
    };
    Some(HostAgent {
        host,
        session: None,
    })
}

/// The parent process as `PID-STARTTIME` (Linux `/proc`; elsewhere the pid alone).
fn parent_process() -> Option<String> {
    #[cfg(unix)]
    {
        let ppid = std::os::unix::process::parent_id();
        let start = std::fs::read_to_string(format!("/proc/{ppid}/stat"))
            .ok()
            .and_then(|stat| {
                // Field 22 (start time) counts from after the `)` that ends the command name.
                let rest = stat.rsplit_once(')')?.1;
                rest.split_whitespace().nth(19).map(str::to_owned)
            });
        Some(match start {
            Some(t) => format!("{ppid}-{t}"),
            None => ppid.to_string(),
        })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(pairs: &[(&str, &str)]) -> Option<HostAgent> {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        host_agent(&|name| map.get(name).cloned().filter(|v| !v.is_empty()))
    }

    #[test]
    fn each_hosts_real_markers_name_it() {
        let claude = reading(&[
            ("CLAUDECODE", "1"),
            ("CLAUDE_CODE_SESSION_ID", "7f3a"),
            ("AI_AGENT", "claude-code_2-1-332_agent"),
        ]);
        assert_eq!(
            claude,
            Some(HostAgent {
                host: "claude-code".into(),
                session: Some("claude-code:7f3a".into())
            })
        );
        let codex = reading(&[("CODEX_THREAD_ID", "019a"), ("CODEX_SESSION_ID", "019a")]);
        assert_eq!(codex.and_then(|h| h.session), Some("codex:019a".into()));
        assert_eq!(
            reading(&[("CURSOR_AGENT", "1")]).map(|h| h.host),
            Some("cursor".into())
        );
        let copilot = reading(&[("COPILOT_CLI", "1"), ("COPILOT_AGENT_SESSION_ID", "f3d0")]);
        assert_eq!(copilot.and_then(|h| h.session), Some("copilot:f3d0".into()));
        assert_eq!(
            reading(&[("AI_AGENT", "github_copilot_vscode_agent")]).map(|h| h.host),
            Some("vscode".into())
        );
        assert_eq!(
            reading(&[("AI_AGENT", "claude-code_2-1-332_agent")]).map(|h| h.host),
            Some("claude-code".into())
        );
        assert_eq!(
            reading(&[("GOOSE_TERMINAL", "1")]).map(|h| h.host),
            Some("goose".into())
        );
        assert_eq!(
            reading(&[("CLINE_ACTIVE", "true")]).map(|h| h.host),
            Some("cline".into())
        );
        assert_eq!(reading(&[("TERM", "xterm")]), None, "a person's shell");
        assert_eq!(reading(&[("CLAUDECODE", "")]), None, "empty is absent");
    }
}
