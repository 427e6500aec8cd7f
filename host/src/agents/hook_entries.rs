//! The hook entries `kapi init` writes per host, merged into what the person keeps there
//! (`design/background/agent-hosts.md` §1.3, §1.4, §2.3, §5):
//!
//! - Claude Code: the `hooks` of `.claude/settings.json`, from the canonical
//!   `host/hooks/claude-code.json` (also the plugin bundle's `hooks/hooks.json`);
//! - Codex: `.codex/hooks.json`, the same Claude-compatible shape with `--host codex`;
//! - KKSS: kapi's named entries in the `hooks` list of `.kkss/assistant/hooks.json`;
//! - Gemini CLI and Qwen Code: the `hooks` of their settings files; Factory: `.factory/hooks.json`,
//!   Claude Code's groups with the events at the top level;
//! - Cursor and Windsurf: flat lists of entries ([`flat`]);
//! - OpenCode, Kilo Code and Kiro: a file kapi owns whole (a plugin, a hook file);
//! - Kiki: legacy command hooks in `.kiki/hooks.toml` (`[[hooks]]`, or `[[hooks.legacy]]` in a
//!   v2 document), edited in place so comments and layout stay.
//!
//! Every other key, group and entry the file holds is kept, in its order. The JSON files are
//! read as JSONC and edited in place (`jsonc::JsonFile`): kapi's groups and entries
//! are appended in the file's own indentation, and every other byte (comments, trailing commas,
//! the person's layout) stays; a file that needs nothing is not written. An entry that runs a
//! kapi hook but differs from what kapi writes is the person's now: read, left alone and named
//! in a warning. A file kapi cannot read (bad JSON or TOML, a value of the wrong type) refuses
//! the host with the file, its line and column, and how to fix it.

use std::path::Path;

use jsonc_parser::cst::CstNode;
use serde_json::{Map, Value, json};

pub mod flat;

pub use flat::{
    CURSOR_FILE, CURSOR_MATCHER, WINDSURF_FILE, flat_entry, flat_event, merge_crush, merge_cursor,
    merge_windsurf,
};

use super::host_files::read_existing;
use super::jsonc::{JsonFile, cst_value, json_position, json_prop, line_col, unreadable};
use super::{HostId, HostWiring};
use crate::hooks::{HookName, Protocol};

/// kapi's Claude Code hooks, in the plugin-bundle format: `{"description", "hooks"}`.
pub const CLAUDE_CODE_HOOKS: &str = include_str!("../../hooks/claude-code.json");

/// The tools Claude Code edits files with.
pub const CLAUDE_CODE_MATCHER: &str = "Edit|Write|MultiEdit";
/// The tools Codex edits files with: `apply_patch`, and its shell tool (`Bash` in a hook's
/// payload), which runs `apply_patch` in a heredoc for some models; a shell command that
/// carries no patch is nothing to guard (`crate::hooks::eval::guarded_paths`).
pub const CODEX_MATCHER: &str = "apply_patch|Edit|Write|Bash";
/// The tools Gemini CLI edits files with (a regex).
pub const GEMINI_MATCHER: &str = "write_file|replace";
/// Gemini CLI's project settings: its MCP servers, its hooks and the context files it loads.
pub const GEMINI_FILE: &str = ".gemini/settings.json";
/// The tools Qwen Code edits files with (its own names; a regex).
pub const QWEN_MATCHER: &str = "write_file|edit";
/// Qwen Code's project settings: its MCP servers and its hooks (Claude Code's format).
pub const QWEN_FILE: &str = ".qwen/settings.json";
/// The tools Factory's droid edits files with (`Edit`, `Create`, and `ApplyPatch` where the
/// model is offered it).
pub const FACTORY_MATCHER: &str = "Edit|Create|ApplyPatch";
/// Factory's project hooks: its events at the top level.
pub const FACTORY_FILE: &str = ".factory/hooks.json";
/// KKSS's edit tools are not documented: a glob on the full tool name the person may change.
pub const KKSS_MATCH: &str = "*__write_file";
/// The tools Kiki edits files with (a regex).
pub const KIKI_MATCHER: &str = "^(Write|Edit)$";

pub const CLAUDE_CODE_FILE: &str = ".claude/settings.json";
pub const CODEX_FILE: &str = ".codex/hooks.json";
pub const KKSS_FILE: &str = ".kkss/assistant/hooks.json";
pub const KIKI_FILE: &str = ".kiki/hooks.toml";

/// The event a hook runs on, in the Claude-compatible protocols (Claude Code, Codex, Kiki).
pub fn claude_event(hook: HookName) -> &'static str {
    match hook {
        HookName::PreEdit => "PreToolUse",
        HookName::PostEdit => "PostToolUse",
        HookName::Stop => "Stop",
    }
}

/// The event a hook runs on for a host of Claude Code's file shape: Gemini CLI names its own
/// (`BeforeTool`, `AfterTool`, `AfterAgent`).
pub fn event_for(protocol: Protocol, hook: HookName) -> &'static str {
    match (protocol, hook) {
        (Protocol::Gemini, HookName::PreEdit) => "BeforeTool",
        (Protocol::Gemini, HookName::PostEdit) => "AfterTool",
        (Protocol::Gemini, HookName::Stop) => "AfterAgent",
        _ => claude_event(hook),
    }
}

/// The event a hook runs on in KKSS (the end of a turn is `TurnEnd`).
pub fn kkss_event(hook: HookName) -> &'static str {
    match hook {
        HookName::PreEdit => "PreToolUse",
        HookName::PostEdit => "PostToolUse",
        HookName::Stop => "TurnEnd",
    }
}

/// The name of kapi's KKSS entry for a hook.
pub fn kkss_name(hook: HookName) -> &'static str {
    match hook {
        HookName::PreEdit => "kapi-pre-edit",
        HookName::PostEdit => "kapi-post-edit",
        HookName::Stop => "kapi-turn-end",
    }
}

/// Plans the hook file of `host` (none for a host kapi writes no hooks for):
/// its new bytes go to `writes` when they differ from the file's.
pub(crate) fn plan(
    root: &Path,
    host: HostId,
    writes: &mut Vec<(String, Vec<u8>)>,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    let (rel, merge): (&str, Merge) = match host {
        // The Copilot CLI runs Claude Code's hooks (its "VS Code compatible" mode: Claude's
        // payload and answers); a `.github/hooks` file too would run each hook twice.
        HostId::ClaudeCode | HostId::Copilot => (CLAUDE_CODE_FILE, merge_claude_code),
        HostId::Codex => (CODEX_FILE, merge_codex),
        HostId::Kkss => (KKSS_FILE, merge_kkss),
        HostId::Kiki => (KIKI_FILE, merge_kiki),
        HostId::OpenCode => (OPENCODE_FILE, merge_opencode),
        HostId::Qwen => (QWEN_FILE, merge_qwen),
        HostId::Gemini => (GEMINI_FILE, merge_gemini),
        HostId::Cursor => (CURSOR_FILE, merge_cursor),
        HostId::Windsurf => (WINDSURF_FILE, merge_windsurf),
        HostId::Factory => (FACTORY_FILE, merge_factory),
        HostId::Kilo => (KILO_FILE, merge_kilo),
        HostId::Kiro => (KIRO_FILE, merge_kiro),
        // Crush's crushrc takes kapi's hook line with its server (`agents::crush`); its JSON,
        // when the project keeps one, the entry.
        HostId::Crush => match super::crush::json_file(root) {
            Some(rel) => (rel, merge_crush),
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    // A file this host's plan writes already (Qwen Code's settings hold its MCP entry too) is
    // merged as it will be, not as it was.
    let existing = match writes.iter().position(|(r, _)| r == rel) {
        Some(i) => Some(
            String::from_utf8(writes.remove(i).1)
                .map_err(|_| format!("{rel}: kapi's own text is not UTF-8"))?,
        ),
        None => read_existing(root, rel)?,
    };
    let merged = merge(rel, existing.as_deref())?;
    wiring.warnings.extend(merged.kept);
    if let Some(text) = merged.text {
        writes.push((rel.to_owned(), text.into_bytes()));
    }
    Ok(())
}

/// kapi's OpenCode plugin (`opencode-ai` 1.x plugin API): OpenCode has no hook file, so its
/// hooks are a plugin that runs `kapi hook pre-edit|post-edit`, written whole.
pub const OPENCODE_PLUGIN: &str = include_str!("../../hooks/opencode.js");
/// Where OpenCode loads a project's plugins from.
pub const OPENCODE_FILE: &str = ".opencode/plugins/kapi.js";

/// kapi's Kilo Code plugin (Kilo 7.x, a fork of OpenCode): OpenCode's, with Kilo's default
/// export and a stop hook on `session.idle` (Kilo's `run` waits for the turn it starts).
pub const KILO_PLUGIN: &str = include_str!("../../hooks/kilo.js");
/// Where Kilo Code loads a project's plugins from.
pub const KILO_FILE: &str = ".kilo/plugin/kapi.js";
/// kapi's Kiro hook file: a PreToolUse command hook, the one Kiro lets block.
pub const KIRO_FILE: &str = ".kiro/hooks/kapi.json";
/// The tools Kiro writes files with (its built-in `write`, alias `fs_write`, and
/// `str_replace`; a regex).
pub const KIRO_MATCHER: &str = "fs_write|fsWrite|write|str_replace";

/// kapi's Kiro hook file (CLI 3.x and IDE 1.x, `"version": "v1"`), pretty JSON.
pub fn kiro_hooks() -> String {
    let hook = HookName::PreEdit;
    let file = json!({
        "version": "v1",
        "hooks": [{
            "name": kkss_name(hook),
            "description": "kapi refuses an edit of a translation kapi generates, or of the project's rules",
            "trigger": "PreToolUse",
            "matcher": KIRO_MATCHER,
            "action": {"type": "command", "command": guarded_command(Protocol::Kiro, hook)},
            "timeout": Protocol::Kiro.timeout_secs(hook),
            "enabled": true,
        }],
    });
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// kapi's OpenCode plugin, written whole.
pub fn merge_opencode(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    Ok(merge_whole(
        rel,
        existing,
        OPENCODE_PLUGIN,
        "kapi's OpenCode plugin",
    ))
}

/// kapi's Kilo Code plugin, written whole.
pub fn merge_kilo(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    Ok(merge_whole(
        rel,
        existing,
        KILO_PLUGIN,
        "kapi's Kilo Code plugin",
    ))
}

/// kapi's Kiro hook file, written whole.
pub fn merge_kiro(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    Ok(merge_whole(
        rel,
        existing,
        &kiro_hooks(),
        "kapi's Kiro hook file",
    ))
}

/// A file kapi owns whole (a plugin, its own hook file): written when missing; a file that
/// differs is the person's (edited, or another file of that name), left alone and named.
fn merge_whole(rel: &str, existing: Option<&str>, ours: &str, what: &str) -> Merged {
    match existing {
        None => Merged {
            text: Some(ours.to_owned()),
            kept: Vec::new(),
        },
        Some(text) if text == ours => Merged {
            text: None,
            kept: Vec::new(),
        },
        Some(_) => Merged {
            text: None,
            kept: vec![format!(
                "{rel}: kept: it differs from {what}, so it is yours and kapi leaves it alone (remove it and run `kapi init` for kapi's)"
            )],
        },
    }
}

/// Merges kapi's entries into a hook file's text (`None`: no file yet), named `rel`.
pub type Merge = fn(&str, Option<&str>) -> Result<Merged, String>;

/// A hook file after kapi's entries are merged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The new text; `None` when the file already holds what kapi writes.
    pub text: Option<String>,
    /// A warning per entry that runs a kapi hook but is the person's, left alone.
    pub kept: Vec<String>,
}

/// The matcher groups kapi writes for a Claude-compatible host (Claude Code, Codex): per event,
/// one group with one command handler.
pub fn claude_style_hooks(protocol: Protocol, matcher: &str) -> Value {
    let mut hooks = Map::new();
    for hook in HookName::ALL {
        let mut group = Map::new();
        if hook != HookName::Stop {
            group.insert("matcher".into(), json!(matcher));
        }
        let handler = if protocol == Protocol::Gemini {
            // Gemini CLI names each hook and counts its timeout in milliseconds.
            json!({
                "type": "command",
                "name": kkss_name(hook),
                "command": guarded_command(protocol, hook),
                "timeout": protocol.timeout_secs(hook) * 1000,
            })
        } else {
            json!({
                "type": "command",
                "command": guarded_command(protocol, hook),
                "timeout": protocol.timeout_secs(hook),
            })
        };
        group.insert("hooks".into(), json!([handler]));
        hooks.insert(event_for(protocol, hook).into(), json!([group]));
    }
    Value::Object(hooks)
}

/// The `hooks` of the canonical Claude Code file.
fn claude_code_hooks() -> Result<Value, String> {
    let file: Value = serde_json::from_str(CLAUDE_CODE_HOOKS)
        .map_err(|e| format!("kapi's built-in Claude Code hooks are not JSON: {e}"))?;
    file.get("hooks")
        .filter(|h| h.is_object())
        .cloned()
        .ok_or_else(|| "kapi's built-in Claude Code hooks have no `hooks` object".to_owned())
}

/// `.claude/settings.json`: the canonical file's groups merged into the person's settings.
pub fn merge_claude_code(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_claude_style(rel, existing, Protocol::ClaudeCode, &claude_code_hooks()?)
}

/// `.codex/hooks.json`: the Claude-compatible groups with Codex's edit tools.
pub fn merge_codex(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_claude_style(
        rel,
        existing,
        Protocol::Codex,
        &claude_style_hooks(Protocol::Codex, CODEX_MATCHER),
    )
}

/// Merges kapi's Qwen Code hooks (Claude Code's format, its own tool names, `--host qwen`) into
/// `.qwen/settings.json`.
pub fn merge_qwen(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_claude_style(
        rel,
        existing,
        Protocol::Qwen,
        &claude_style_hooks(Protocol::Qwen, QWEN_MATCHER),
    )
}

/// Merges kapi's Gemini CLI hooks (`BeforeTool`, `AfterTool`, `AfterAgent`, `--host gemini`)
/// into `.gemini/settings.json`, and, when the file names no context files, asks Gemini to load
/// `AGENTS.md` beside its `GEMINI.md` (`context.fileName`), where the project's rules are: a
/// list the person set is theirs, left alone.
pub fn merge_gemini(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    let merged = merge_claude_style(
        rel,
        existing,
        Protocol::Gemini,
        &claude_style_hooks(Protocol::Gemini, GEMINI_MATCHER),
    )?;
    let text = merged.text.as_deref().or(existing);
    let file = JsonFile::parse(rel, text)?;
    let top = file.object(rel, "the top level is not a JSON object")?;
    match json_prop(&top, "context")
        .and_then(|p| p.value())
        .and_then(|v| v.as_object())
    {
        Some(context) if json_prop(&context, "fileName").is_none() => {
            context.append("fileName", cst_value(&json!(["AGENTS.md", "GEMINI.md"])));
        }
        Some(_) => {}
        None if json_prop(&top, "context").is_none() => {
            top.append(
                "context",
                cst_value(&json!({"fileName": ["AGENTS.md", "GEMINI.md"]})),
            );
        }
        None => {}
    }
    let text = match (file.finish(rel)?, merged.text) {
        (Some(text), _) => Some(text),
        (None, text) => text,
    };
    Ok(Merged {
        text,
        kept: merged.kept,
    })
}

/// True when a hook handler or entry runs kapi's `hook` (as a shell line or in exec form).
fn runs_kapi_hook(handler: &Value, hook: HookName) -> bool {
    let shell = format!("kapi hook {}", hook.id());
    let command = handler.get("command").and_then(Value::as_str);
    command.is_some_and(|c| c.contains(&shell)) || execs_kapi_hook(handler, hook)
}

/// True when an exec-form entry runs kapi's `hook`: its `command` is `kapi` (or a path to
/// it) and its `args` begin `hook <id>`.
fn execs_kapi_hook(entry: &Value, hook: HookName) -> bool {
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(is_kapi_program)
        && args.starts_with(&["hook", hook.id()])
}

/// `kapi`, or a path to it.
fn is_kapi_program(command: &str) -> bool {
    let name = command.rsplit(['/', '\\']).next().unwrap_or(command);
    name == "kapi" || name == "kapi.exe"
}

/// Opens a JSON hooks file for merging: the file and its top-level `hooks` member, added as
/// `empty` when missing and read by `read`; `what` says what it should be when it is not.
fn hooks_member<T>(
    rel: &str,
    existing: Option<&str>,
    empty: &Value,
    read: impl Fn(&CstNode) -> Option<T>,
    what: &str,
) -> Result<(JsonFile, T), String> {
    let file = JsonFile::parse(rel, existing)?;
    let top = file.object(
        rel,
        "the top level is not a JSON object (`{ \"hooks\": … }`)",
    )?;
    if json_prop(&top, "hooks").is_none() {
        top.append("hooks", cst_value(empty));
    }
    let member = json_prop(&top, "hooks")
        .and_then(|prop| prop.value())
        .and_then(|v| read(&v));
    let Some(member) = member else {
        let text = existing.unwrap_or_default();
        return Err(unreadable(rel, json_position(text, &["hooks"]), what));
    };
    Ok((file, member))
}

/// Merges kapi's groups (`ours`: event → `[group]`) into a Claude-compatible hooks file, in
/// place: a group is appended to its event's list, every other byte stays.
fn merge_claude_style(
    rel: &str,
    existing: Option<&str>,
    protocol: Protocol,
    ours: &Value,
) -> Result<Merged, String> {
    let (file, hooks) = hooks_member(
        rel,
        existing,
        &json!({}),
        CstNode::as_object,
        "`hooks` is not an object of event names to lists of matcher groups",
    )?;
    let kept = merge_groups(rel, existing, &hooks, true, protocol, ours)?;
    Ok(Merged {
        text: file.finish(rel)?,
        kept,
    })
}

/// `.factory/hooks.json`: Claude Code's groups with droid's edit tools and `--host factory`,
/// its events the file's top-level keys (droid ignores a `hooks` wrapper there, with a
/// warning, and runs nothing: measured with droid 0.215.0).
pub fn merge_factory(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    let file = JsonFile::parse(rel, existing)?;
    let top = file.object(
        rel,
        "the top level is not a JSON object of event names (`{ \"PreToolUse\": … }`)",
    )?;
    let ours = claude_style_hooks(Protocol::Factory, FACTORY_MATCHER);
    let kept = merge_groups(rel, existing, &top, false, Protocol::Factory, &ours)?;
    Ok(Merged {
        text: file.finish(rel)?,
        kept,
    })
}

/// Merges kapi's groups into `hooks`, the object of event names in `rel` (`wrapped`: the
/// top-level `hooks` member; else the top level itself); returns a warning per kapi hook the
/// person changed.
fn merge_groups(
    rel: &str,
    existing: Option<&str>,
    hooks: &jsonc_parser::cst::CstObject,
    wrapped: bool,
    protocol: Protocol,
    ours: &Value,
) -> Result<Vec<String>, String> {
    let text = existing.unwrap_or_default();
    let prefix = if wrapped { "hooks." } else { "" };
    let mut kept = Vec::new();
    for hook in HookName::ALL {
        let event = event_for(protocol, hook);
        let Some(group) = ours.get(event).and_then(|g| g.get(0)) else {
            return Err(format!(
                "kapi's {} hooks have no `{event}` group",
                protocol.id()
            ));
        };
        let Some(prop) = json_prop(hooks, event) else {
            hooks.append(event, cst_value(&json!([group])));
            continue;
        };
        let Some(list) = prop.value().and_then(|v| v.as_array()) else {
            let path: Vec<&str> = if wrapped {
                vec!["hooks", event]
            } else {
                vec![event]
            };
            return Err(unreadable(
                rel,
                json_position(text, &path),
                &format!("`{prefix}{event}` is not a list of matcher groups"),
            ));
        };
        let groups: Vec<Value> = list
            .elements()
            .iter()
            .filter_map(|g| g.to_serde_value())
            .collect();
        if groups.contains(group) {
            continue;
        }
        // A group an earlier kapi wrote (its matcher then) becomes kapi's group now.
        let earlier = list.elements().into_iter().find(|g| {
            g.to_serde_value()
                .is_some_and(|v| earlier_group(&v, group, protocol))
        });
        if let Some(object) = earlier.and_then(|g| g.as_object()) {
            object.replace_with(cst_value(group));
            continue;
        }
        let theirs = groups.iter().any(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|h| runs_kapi_hook(h, hook)))
        });
        if theirs {
            kept.push(format!(
                "{rel}: kept the {event} hook that runs `kapi hook {}`: it differs from kapi's, so it is yours and kapi leaves it alone",
                hook.id()
            ));
        } else {
            list.append(cst_value(group));
        }
    }
    Ok(kept)
}

/// The matchers an earlier kapi wrote into a host's groups, for [`earlier_group`].
const EARLIER_MATCHERS: &[(Protocol, &str)] = &[(Protocol::Codex, "apply_patch|Edit|Write")];

/// Whether `found` is `ours` as an earlier kapi wrote it: the same group under a matcher
/// [`EARLIER_MATCHERS`] names, or its command without the [`GUARD`] (before kapi guarded it).
fn earlier_group(found: &Value, ours: &Value, protocol: Protocol) -> bool {
    let matchers = EARLIER_MATCHERS
        .iter()
        .filter(|(p, _)| *p == protocol)
        .map(|(_, m)| Some(*m))
        .chain([None]);
    let command = ours.pointer("/hooks/0/command").and_then(Value::as_str);
    let bare = command.and_then(|c| c.strip_prefix(GUARD));
    matchers.into_iter().any(|matcher| {
        [command, bare].into_iter().flatten().any(|cmd| {
            let mut then = ours.clone();
            if let (Some(m), Some(matcher)) = (then.get_mut("matcher"), matcher) {
                *m = json!(matcher);
            }
            if let Some(c) = then.pointer_mut("/hooks/0/command") {
                *c = json!(cmd);
            }
            *found == then && found != ours
        })
    })
}

/// kapi's KKSS entry for a hook. `match` only on tool events, `modelOutput` only on
/// PostToolUse: KKSS drops an entry with a field its event does not allow.
///
/// The command is `kapi` itself, with no `sh -c` guard like Kiki's: KKSS starts a hook without
/// a shell, and a desktop host may run on Windows, where a missing `sh` would make every
/// PreToolUse hook fail to start, which KKSS reads as a deny. A bare `kapi` works wherever
/// kapi is on the PATH KKSS passes; `kapi init`'s next step for KKSS says to keep it there.
pub fn kkss_entry(hook: HookName) -> Value {
    let protocol = Protocol::Kkss;
    let mut entry = Map::new();
    entry.insert("name".into(), json!(kkss_name(hook)));
    entry.insert("event".into(), json!(kkss_event(hook)));
    if hook != HookName::Stop {
        entry.insert("match".into(), json!(KKSS_MATCH));
    }
    entry.insert("command".into(), json!("kapi"));
    entry.insert("args".into(), json!(protocol.hook_args(hook)));
    entry.insert(
        "timeoutMs".into(),
        json!(protocol.timeout_secs(hook) * 1000),
    );
    if hook == HookName::PostEdit {
        entry.insert("modelOutput".into(), json!(true));
    }
    Value::Object(entry)
}

/// True when a KKSS entry carries kapi's name for `hook` or runs kapi's `hook`.
fn is_about_kkss_hook(entry: &Value, hook: HookName) -> bool {
    entry.get("name").and_then(Value::as_str) == Some(kkss_name(hook))
        || execs_kapi_hook(entry, hook)
}

/// `.kkss/assistant/hooks.json`: kapi's entries appended to the person's, theirs kept in order
/// and every other byte as it was.
pub fn merge_kkss(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    let (file, list) = hooks_member(
        rel,
        existing,
        &json!([]),
        CstNode::as_array,
        "`hooks` is not a list of hook entries",
    )?;
    let mut kept = Vec::new();
    let mut entries: Vec<Value> = list
        .elements()
        .iter()
        .filter_map(|e| e.to_serde_value())
        .collect();
    for hook in HookName::ALL {
        let ours = kkss_entry(hook);
        if entries.contains(&ours) {
            continue;
        }
        if let Some(theirs) = entries.iter().find(|e| is_about_kkss_hook(e, hook)) {
            let name = theirs
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("(unnamed)");
            kept.push(format!(
                "{rel}: kept the hook `{name}`: it differs from kapi's `{}` (its `match`, say), so it is yours and kapi leaves it alone",
                kkss_name(hook)
            ));
        } else {
            list.append(cst_value(&ours));
            entries.push(ours);
        }
    }
    Ok(Merged {
        text: file.finish(rel)?,
        kept,
    })
}

/// What every hook command kapi writes for a host that runs it through a shell starts with: a
/// teammate without `kapi` on PATH gets nothing from the hook, no error in the host and no
/// blocked edit (Kiki reads a 127 as a deny; Claude Code and Codex show it as a hook error).
pub const GUARD: &str = "command -v kapi >/dev/null 2>&1 || exit 0; ";

/// `protocol`'s command for `hook`, run through the host's shell, [`GUARD`]ed.
pub fn guarded_command(protocol: Protocol, hook: HookName) -> String {
    format!("{GUARD}{}", protocol.hook_command(hook))
}

/// The command kapi's Kiki entry runs: through Kiki's shell, guarded so a missing `kapi` allows
/// (a 127 would fail closed and block every edit and every stop).
pub fn kiki_command(hook: HookName) -> String {
    guarded_command(Protocol::Kiki, hook)
}

/// kapi's Kiki entry for a hook: the four fields a legacy hook allows, in order.
pub fn kiki_entry(hook: HookName) -> Vec<(&'static str, toml_edit::Value)> {
    let mut fields = vec![("event", claude_event(hook).into())];
    if hook != HookName::Stop {
        fields.push(("matcher", KIKI_MATCHER.into()));
    }
    fields.push(("command", kiki_command(hook).into()));
    let timeout = i64::try_from(Protocol::Kiki.timeout_secs(hook)).unwrap_or(i64::MAX);
    fields.push(("timeout", timeout.into()));
    fields
}

/// True when a Kiki table holds exactly kapi's entry for `hook`.
fn is_kiki_entry(t: &dyn toml_edit::TableLike, hook: HookName) -> bool {
    let ours = kiki_entry(hook);
    t.len() == ours.len()
        && ours.iter().all(
            |(k, v)| match (t.get(k).and_then(toml_edit::Item::as_value), v) {
                (Some(toml_edit::Value::String(a)), toml_edit::Value::String(b)) => {
                    a.value() == b.value()
                }
                (Some(toml_edit::Value::Integer(a)), toml_edit::Value::Integer(b)) => {
                    a.value() == b.value()
                }
                _ => false,
            },
        )
}

/// True when a Kiki table runs kapi's `hook` for Kiki.
fn runs_kiki_hook(t: &dyn toml_edit::TableLike, hook: HookName) -> bool {
    let shell = Protocol::Kiki.hook_command(hook);
    t.get("command")
        .and_then(|c| c.as_str())
        .is_some_and(|c| c.contains(&shell))
}

/// A list of legacy hook tables: `[[hooks]]` or an inline `hooks = [{…}]`.
enum KikiList<'a> {
    Tables(&'a mut toml_edit::ArrayOfTables),
    Inline(&'a mut toml_edit::Array),
}

impl KikiList<'_> {
    fn entries(&self) -> Vec<&dyn toml_edit::TableLike> {
        match self {
            KikiList::Tables(a) => a.iter().map(|t| t as &dyn toml_edit::TableLike).collect(),
            KikiList::Inline(a) => a
                .iter()
                .filter_map(|v| v.as_inline_table())
                .map(|t| t as &dyn toml_edit::TableLike)
                .collect(),
        }
    }

    fn push(&mut self, fields: Vec<(&'static str, toml_edit::Value)>) {
        match self {
            KikiList::Tables(a) => {
                let mut t = toml_edit::Table::new();
                for (k, v) in fields {
                    t.insert(k, toml_edit::Item::Value(v));
                }
                a.push(t);
            }
            KikiList::Inline(a) => {
                let mut t = toml_edit::InlineTable::new();
                for (k, v) in fields {
                    t.insert(k, v);
                }
                a.push(t);
            }
        }
    }
}

/// The list an item holds (`None` becomes an empty one: inline inside an inline table).
fn kiki_list<'a>(
    item: &'a mut toml_edit::Item,
    inline: bool,
    rel: &str,
    key: &str,
    at: Option<(usize, usize)>,
) -> Result<KikiList<'a>, String> {
    if item.is_none() {
        *item = if inline {
            toml_edit::Item::Value(toml_edit::Value::Array(toml_edit::Array::new()))
        } else {
            toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new())
        };
    }
    match item {
        toml_edit::Item::ArrayOfTables(a) => Ok(KikiList::Tables(a)),
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => Ok(KikiList::Inline(a)),
        _ if key == "hooks" => Err(unreadable(
            rel,
            at,
            "`hooks` is neither a list of [[hooks]] tables (legacy commands) nor a [hooks] table (a v2 document)",
        )),
        _ => Err(unreadable(
            rel,
            at,
            &format!("`{key}` is not a list of [[{key}]] tables (legacy commands)"),
        )),
    }
}

/// `.kiki/hooks.toml`: kapi's legacy command hooks appended with `toml_edit`, keeping comments
/// and layout. A legacy file (absent, or `hooks` an array of tables) gets `[[hooks]]`; a v2
/// document (a `[hooks]` table) gets `[[hooks.legacy]]`: TOML cannot hold both.
pub fn merge_kiki(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    let text = existing.unwrap_or_default();
    let parsed = toml_edit::Document::parse(text).map_err(|e| {
        let at = line_col(text, e.span().map_or(0, |s| s.start));
        unreadable(
            rel,
            Some(at),
            &format!("not valid TOML ({})", e.message().trim_end()),
        )
    })?;
    let at = |item: Option<&toml_edit::Item>| -> Option<(usize, usize)> {
        let span = item?.span()?;
        Some(line_col(text, span.start))
    };
    let hooks_at = at(parsed.get("hooks"));
    let legacy_at = at(parsed
        .get("hooks")
        .and_then(toml_edit::Item::as_table_like)
        .and_then(|h| h.get("legacy")));
    let mut doc = parsed.into_mut();
    let v2 = doc.get("hooks").is_some_and(toml_edit::Item::is_table_like);
    let inline_v2 = matches!(
        doc.get("hooks"),
        Some(toml_edit::Item::Value(toml_edit::Value::InlineTable(_)))
    );
    let (mut list, key) = if v2 {
        let Some(table) = doc
            .get_mut("hooks")
            .and_then(toml_edit::Item::as_table_like_mut)
        else {
            return Err(unreadable(rel, hooks_at, "`hooks` is not a table"));
        };
        let legacy = table.entry("legacy").or_insert(toml_edit::Item::None);
        (
            kiki_list(legacy, inline_v2, rel, "hooks.legacy", legacy_at)?,
            "hooks.legacy",
        )
    } else {
        let hooks = doc.entry("hooks").or_insert(toml_edit::Item::None);
        (kiki_list(hooks, false, rel, "hooks", hooks_at)?, "hooks")
    };
    let mut kept = Vec::new();
    let mut changed = false;
    for hook in HookName::ALL {
        let entries = list.entries();
        if entries.iter().any(|t| is_kiki_entry(*t, hook)) {
            continue;
        }
        if entries.iter().any(|t| runs_kiki_hook(*t, hook)) {
            kept.push(format!(
                "{rel}: kept the [[{key}]] entry that runs `{}`: it differs from kapi's, so it is yours and kapi leaves it alone",
                Protocol::Kiki.hook_command(hook)
            ));
        } else {
            list.push(kiki_entry(hook));
            changed = true;
        }
    }
    if !changed {
        return Ok(Merged { text: None, kept });
    }
    Ok(Merged {
        text: Some(doc.to_string()),
        kept,
    })
}

#[cfg(test)]
mod tests;
