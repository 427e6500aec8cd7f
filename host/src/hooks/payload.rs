//! The JSON a host pipes into a hook, read leniently: which host sent it (sniffed when `--host`
//! does not say), the session, the working directory, the files an edit names, the loop flag.
//!
//! Field names by host (agent-hosts.md §1.4, §5): Claude Code and Codex send `session_id`,
//! `cwd`, `tool_name`, `tool_input.file_path` (Codex's `apply_patch` carries a patch in
//! `tool_input.command`) and, on Stop, `stop_hook_active`; Kiki sends `client_type`,
//! `session_title`, `cwd` and `tool_input.path`; KKSS sends `conversationId`, the tool's parsed
//! `args` and `files.projectRoot`. Every field is optional here: a missing one is the caller's
//! to judge, never a panic.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Protocol;

/// A host's payload, as kapi uses it.
#[derive(Debug, Clone, Default)]
pub struct Payload {
    pub raw: Value,
}

impl Payload {
    /// Parses the bytes a host piped in; the error says why they are not a JSON object.
    pub fn parse(bytes: &[u8]) -> Result<Payload, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            format!(
                "the payload is not UTF-8 (byte {}); no decision was made",
                e.valid_up_to()
            )
        })?;
        let raw: Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "the payload is not JSON (line {}, column {}: {e})",
                e.line(),
                e.column()
            )
        })?;
        if !raw.is_object() {
            return Err("the payload is JSON but not an object".into());
        }
        Ok(Payload { raw })
    }

    fn str_at(&self, path: &[&str]) -> Option<&str> {
        let mut at = &self.raw;
        for key in path {
            at = at.get(key)?;
        }
        at.as_str().filter(|s| !s.is_empty())
    }

    /// Which host sent this, from the fields only one host sends; `None` when nothing says.
    pub fn sniff(&self) -> Option<Protocol> {
        let has = |k: &str| self.raw.get(k).is_some();
        if has("client_type") || has("session_title") {
            Some(Protocol::Kiki)
        } else if has("conversationId") || self.raw.get("files").is_some_and(Value::is_object) {
            Some(Protocol::Kkss)
        } else if has("turn_id") {
            Some(Protocol::Codex)
        } else if has("transcript_path") && has("hook_event_name") {
            Some(Protocol::ClaudeCode)
        } else {
            None
        }
    }

    /// The session (or conversation) the hook runs in.
    pub fn session(&self) -> Option<&str> {
        self.str_at(&["session_id"])
            .or_else(|| self.str_at(&["conversationId"]))
    }

    /// The session's working directory: `cwd`, else KKSS's `files.projectRoot`.
    pub fn cwd(&self) -> Option<PathBuf> {
        self.str_at(&["cwd"])
            .or_else(|| self.str_at(&["files", "projectRoot"]))
            .map(PathBuf::from)
    }

    /// The tool the event is about.
    pub fn tool_name(&self) -> Option<&str> {
        self.str_at(&["tool_name"])
            .or_else(|| self.str_at(&["tool"]))
            .or_else(|| self.str_at(&["tool", "name"]))
    }

    /// True when this stop follows a stop-hook continuation (Claude Code, Codex).
    pub fn stop_hook_active(&self) -> bool {
        self.raw
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The files an edit tool names: `file_path` or `path` (or `notebook_path`) in
    /// `tool_input` or KKSS's `args`, or every file an `apply_patch` patch touches.
    pub fn edited_paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        for input in ["tool_input", "args", "input"] {
            let Some(input) = self.raw.get(input).filter(|v| v.is_object()) else {
                continue;
            };
            for key in ["file_path", "path", "notebook_path", "filePath"] {
                if let Some(p) = input.get(key).and_then(Value::as_str)
                    && !p.is_empty()
                    && !out.iter().any(|o| o == p)
                {
                    out.push(p.to_owned());
                }
            }
            for key in ["command", "patch", "input"] {
                if let Some(text) = input.get(key).and_then(Value::as_str) {
                    for p in patch_paths(text) {
                        if !out.contains(&p) {
                            out.push(p);
                        }
                    }
                }
            }
        }
        out
    }
}

/// True when a tool name reads as one that writes files (`Edit`, `Write`, `MultiEdit`,
/// `apply_patch`, KKSS's `*__write_file`, …).
pub fn is_edit_tool(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["edit", "write", "patch"].iter().any(|w| lower.contains(w))
}

/// The files a Codex `apply_patch` patch adds, updates, deletes or moves to.
pub fn patch_paths(text: &str) -> Vec<String> {
    if !text.contains("*** Begin Patch") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        for prefix in [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ] {
            if let Some(p) = line.strip_prefix(prefix) {
                let p = p.trim();
                if !p.is_empty() && !out.iter().any(|o| o == p) {
                    out.push(p.to_owned());
                }
            }
        }
    }
    out
}

/// `path` made absolute against `cwd`, with `.` and `..` folded lexically (Windows
/// separators turned to `/` first, as Claude Code sends them there).
pub fn resolve(path: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    let path = if cfg!(windows) {
        PathBuf::from(path)
    } else {
        PathBuf::from(path.replace('\\', "/"))
    };
    let abs = if path.is_absolute() {
        path
    } else {
        cwd?.join(path)
    };
    Some(crate::app::normalize(&abs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(v: Value) -> Payload {
        Payload::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn sniffs_each_host_from_its_own_fields() {
        let kiki = payload(serde_json::json!({"client_type": "kimi_code_cli", "cwd": "/p"}));
        assert_eq!(kiki.sniff(), Some(Protocol::Kiki));
        let kkss =
            payload(serde_json::json!({"conversationId": "c1", "files": {"projectRoot": "/p"}}));
        assert_eq!(kkss.sniff(), Some(Protocol::Kkss));
        assert_eq!(kkss.cwd(), Some(PathBuf::from("/p")));
        let codex = payload(
            serde_json::json!({"turn_id": "t", "transcript_path": "/t", "hook_event_name": "Stop"}),
        );
        assert_eq!(codex.sniff(), Some(Protocol::Codex));
        let claude =
            payload(serde_json::json!({"transcript_path": "/t", "hook_event_name": "Stop"}));
        assert_eq!(claude.sniff(), Some(Protocol::ClaudeCode));
        assert_eq!(payload(serde_json::json!({"cwd": "/p"})).sniff(), None);
    }

    #[test]
    fn finds_the_edited_file_in_every_shape() {
        let claude = payload(serde_json::json!({"tool_input": {"file_path": "/p/a.md"}}));
        assert_eq!(claude.edited_paths(), ["/p/a.md"]);
        let kiki = payload(serde_json::json!({"tool_input": {"path": "a.md"}}));
        assert_eq!(kiki.edited_paths(), ["a.md"]);
        let kkss = payload(serde_json::json!({"args": {"path": "docs/b.md"}}));
        assert_eq!(kkss.edited_paths(), ["docs/b.md"]);
        let codex = payload(
            serde_json::json!({"tool_name": "apply_patch", "tool_input": {"command":
            "*** Begin Patch\n*** Update File: docs/a.md\n@@\n-x\n+y\n*** Add File: docs/n.md\n+z\n*** End Patch\n"}}),
        );
        assert_eq!(codex.edited_paths(), ["docs/a.md", "docs/n.md"]);
        let bash = payload(serde_json::json!({"tool_input": {"command": "ls -l"}}));
        assert!(bash.edited_paths().is_empty());
    }

    #[test]
    fn refuses_what_is_not_a_json_object_with_the_reason() {
        assert!(Payload::parse(b"{oops").unwrap_err().contains("line 1"));
        assert!(
            Payload::parse(b"[1]")
                .unwrap_err()
                .contains("not an object")
        );
        assert!(Payload::parse(&[0xff, 0xfe]).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn resolves_relative_paths_against_the_cwd_only() {
        assert_eq!(
            resolve("docs/../a.md", Some(Path::new("/p"))),
            Some(PathBuf::from("/p/a.md"))
        );
        assert_eq!(resolve("a.md", None), None);
        assert_eq!(resolve("/x/a.md", None), Some(PathBuf::from("/x/a.md")));
    }
}
