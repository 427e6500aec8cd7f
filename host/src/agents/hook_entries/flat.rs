//! The hook files whose events hold flat lists of entries, one command each: Cursor's
//! `.cursor/hooks.json` (`{"version": 1, "hooks": {"preToolUse": [{…}]}}`), Windsurf's
//! `.windsurf/hooks.json` (`{"hooks": {"pre_write_code": [{…}]}}`) and Crush's JSON
//! (`{"hooks": {"PreToolUse": [{"name", "matcher", "command", "timeout"}]}}`).
//!
//! kapi's entry is appended to its event's list, in the file's own layout; an entry that runs
//! the same kapi hook but differs (its matcher, its timeout) is the person's, kept and named.
//! Cursor's entries: `preToolUse` on its `Write` tool (the deny), `afterFileEdit` (which only
//! observes: its findings wait for the stop) and `stop` with a `loop_limit` of kapi's own
//! stop cap, so Cursor never sends more follow-ups than kapi would block stops. Windsurf's
//! Cascade has no stop event and no matcher: `pre_write_code` and `post_write_code`, each with
//! `show_output` so the person sees what the agent was told.

use jsonc_parser::cst::CstNode;
use serde_json::{Value, json};

use super::{GUARD, Merged, hooks_member, runs_kapi_hook};
use crate::agents::jsonc::{cst_value, json_position, json_prop, unreadable};
use crate::hooks::state::MAX_CONSECUTIVE_BLOCKS;
use crate::hooks::{HookName, Protocol};

/// Cursor's project hooks.
pub const CURSOR_FILE: &str = ".cursor/hooks.json";
/// Windsurf's (Cascade's) workspace hooks.
pub const WINDSURF_FILE: &str = ".windsurf/hooks.json";
/// The tool Cursor's agent writes files with (its docs map Claude Code's `Edit` to it).
pub const CURSOR_MATCHER: &str = "Write";

/// The event a hook runs on in a flat-list host, `None` where the host has none.
pub fn flat_event(protocol: Protocol, hook: HookName) -> Option<&'static str> {
    match (protocol, hook) {
        (Protocol::Cursor, HookName::PreEdit) => Some("preToolUse"),
        (Protocol::Cursor, HookName::PostEdit) => Some("afterFileEdit"),
        (Protocol::Cursor, HookName::Stop) => Some("stop"),
        (Protocol::Windsurf, HookName::PreEdit) => Some("pre_write_code"),
        (Protocol::Windsurf, HookName::PostEdit) => Some("post_write_code"),
        (Protocol::Crush, HookName::PreEdit) => Some("PreToolUse"),
        _ => None,
    }
}

/// kapi's entry for `hook` in a flat-list host's file.
pub fn flat_entry(protocol: Protocol, hook: HookName) -> Value {
    let command = format!("{GUARD}{}", protocol.hook_command(hook));
    match (protocol, hook) {
        (Protocol::Cursor, HookName::PreEdit) => json!({
            "command": command,
            "matcher": CURSOR_MATCHER,
            "timeout": protocol.timeout_secs(hook),
        }),
        (Protocol::Cursor, HookName::Stop) => json!({
            "command": command,
            "timeout": protocol.timeout_secs(hook),
            "loop_limit": MAX_CONSECUTIVE_BLOCKS,
        }),
        (Protocol::Crush, _) => json!({
            "name": "kapi-pre-edit",
            "matcher": crate::agents::crush::CRUSH_MATCHER,
            "command": command,
            "timeout": protocol.timeout_secs(hook),
        }),
        (Protocol::Cursor, _) => json!({
            "command": command,
            "timeout": protocol.timeout_secs(hook),
        }),
        _ => json!({"command": command, "show_output": true}),
    }
}

/// `.cursor/hooks.json`: kapi's three entries, and `"version": 1` when the file names none.
pub fn merge_cursor(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_flat(rel, existing, Protocol::Cursor)
}

/// Crush's JSON (`crush.json`, `.crush.json`): kapi's PreToolUse entry.
pub fn merge_crush(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_flat(rel, existing, Protocol::Crush)
}

/// `.windsurf/hooks.json`: kapi's pre- and post-write entries.
pub fn merge_windsurf(rel: &str, existing: Option<&str>) -> Result<Merged, String> {
    merge_flat(rel, existing, Protocol::Windsurf)
}

fn merge_flat(rel: &str, existing: Option<&str>, protocol: Protocol) -> Result<Merged, String> {
    let text = existing.unwrap_or_default();
    let (file, hooks) = hooks_member(
        rel,
        existing,
        &json!({}),
        CstNode::as_object,
        "`hooks` is not an object of event names to lists of hook entries",
    )?;
    if protocol == Protocol::Cursor {
        let top = file.object(rel, "the top level is not a JSON object")?;
        if json_prop(&top, "version").is_none() {
            top.insert(0, "version", cst_value(&json!(1)));
        }
    }
    let mut kept = Vec::new();
    for hook in HookName::ALL {
        let Some(event) = flat_event(protocol, hook) else {
            continue;
        };
        let ours = flat_entry(protocol, hook);
        let Some(prop) = json_prop(&hooks, event) else {
            hooks.append(event, cst_value(&json!([ours])));
            continue;
        };
        let Some(list) = prop.value().and_then(|v| v.as_array()) else {
            return Err(unreadable(
                rel,
                json_position(text, &["hooks", event]),
                &format!("`hooks.{event}` is not a list of hook entries"),
            ));
        };
        let entries: Vec<Value> = list
            .elements()
            .iter()
            .filter_map(|e| e.to_serde_value())
            .collect();
        if entries.contains(&ours) {
            continue;
        }
        if entries.iter().any(|e| runs_kapi_hook(e, hook)) {
            kept.push(format!(
                "{rel}: kept the {event} entry that runs `kapi hook {}`: it differs from kapi's, so it is yours and kapi leaves it alone",
                hook.id()
            ));
        } else {
            list.append(cst_value(&ours));
        }
    }
    Ok(Merged {
        text: file.finish(rel)?,
        kept,
    })
}
