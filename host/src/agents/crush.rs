//! Crush's project config: its current form, a `.crushrc` of commands in shell syntax (`mcp add
//! kapi --command kapi --args mcp …`, `hook add PreToolUse …`), or the JSON it still reads
//! (`crush.json`, `.crush.json`: `mcp.kapi`, `hooks.PreToolUse`) when the project keeps one and
//! no crushrc, so Crush never merges two files with a warning.
//!
//! Crush runs a PreToolUse hook alone (it has no post-tool or stop event): kapi's refuses an
//! edit of a generated target or of the project's rules, `--host crush`. A line or entry named
//! `kapi` that differs from kapi's is the person's, kept and named; every other byte stays.
//! From Crush's source and docs (`charmbracelet/crush` docs/config, docs/hooks); no Crush
//! binary installs here, so no real Crush has run these files.

use std::path::Path;

use serde_json::{Value, json};

use super::hook_entries::GUARD;
use super::host_files::{Plan, read_existing};
use super::mcp_entries::{self, SERVER};
use super::{HostId, HostWiring};
use crate::hooks::{HookName, Protocol};

/// The crushrc files Crush reads from a project, in the order kapi looks for them.
pub const CRUSHRC_FILES: [&str; 2] = [".crushrc", "crushrc"];
/// The JSON files Crush still reads (deprecated, merged under a crushrc).
pub const CRUSH_JSON_FILES: [&str; 2] = ["crush.json", ".crush.json"];
/// The tools Crush edits files with (a regex on its tool names).
pub const CRUSH_MATCHER: &str = "^(edit|multiedit|write)$";

fn exists(root: &Path, rel: &str) -> bool {
    std::fs::symlink_metadata(root.join(rel)).is_ok()
}

/// The JSON file kapi merges into: one the project keeps, when it keeps no crushrc.
pub fn json_file(root: &Path) -> Option<&'static str> {
    if CRUSHRC_FILES.iter().any(|f| exists(root, f)) {
        return None;
    }
    CRUSH_JSON_FILES.into_iter().find(|f| exists(root, f))
}

/// A word of a crushrc line, single-quoted when the shell would split or expand it.
fn word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./,:=@+".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// kapi's `mcp add` line.
pub fn mcp_line(args: &[String]) -> String {
    let mut line = format!("mcp add {SERVER} --command kapi");
    for a in args {
        line.push_str(" --args ");
        line.push_str(&word(a));
    }
    line
}

/// kapi's `hook add` line.
pub fn hook_line() -> String {
    let hook = HookName::PreEdit;
    format!(
        "hook add PreToolUse --name kapi-pre-edit --matcher {} --command {} --timeout {}",
        word(CRUSH_MATCHER),
        word(&format!("{GUARD}{}", Protocol::Crush.hook_command(hook))),
        Protocol::Crush.timeout_secs(hook)
    )
}

/// A crushrc `mcp add` line without its `--tools` pair.
fn without_tools(line: &str) -> String {
    line.replace(
        &format!(" --args --tools --args {}", mcp_entries::TRANSLATION_TOOLS),
        "",
    )
}

/// Plans Crush's files: the MCP entry and the hook, in the project's JSON or its crushrc.
pub(super) fn plan(
    root: &Path,
    args: &[String],
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    if let Some(rel) = json_file(root) {
        mcp_entries::json_entry(root, rel, HostId::Crush, args, plan, wiring)?;
        return Ok(());
    }
    let rel = CRUSHRC_FILES
        .into_iter()
        .find(|f| exists(root, f))
        .unwrap_or(CRUSHRC_FILES[0]);
    let existing = read_existing(root, rel)?;
    let read = existing.clone().unwrap_or_default();
    let lines: Vec<&str> = read.lines().map(str::trim).collect();
    let mut added = Vec::new();
    let ours = mcp_line(args);
    let prefix = format!("mcp add {SERVER} ");
    let mut text = read.clone();
    match lines.iter().find(|l| l.starts_with(&prefix)) {
        Some(line) if *line == ours => {}
        // kapi's own line but for its tool sets: it follows the recipe.
        Some(line) if without_tools(line) == without_tools(&ours) => {
            text = text.replacen(*line, &ours, 1);
        }
        Some(_) => wiring.kept_entry = Some(rel.to_owned()),
        None => added.push(ours),
    }
    let hook = hook_line();
    match lines
        .iter()
        .find(|l| l.starts_with("hook add ") && l.contains("kapi hook pre-edit"))
    {
        Some(line) if *line == hook => {}
        Some(_) => wiring.warnings.push(format!(
            "{rel}: kept the PreToolUse hook that runs `kapi hook pre-edit`: it differs from kapi's, so it is yours and kapi leaves it alone"
        )),
        None => added.push(hook),
    }
    if added.is_empty() && existing.as_deref() == Some(text.as_str()) {
        return Ok(());
    }
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for line in added {
        out.push_str(&line);
        out.push('\n');
    }
    plan.writes.push((rel.to_owned(), out.into_bytes()));
    Ok(())
}

/// Crush's JSON MCP entry: `type`, `command`, `args`.
pub fn json_server(args: &[String]) -> serde_json::Map<String, Value> {
    let mut entry = serde_json::Map::new();
    entry.insert("type".into(), json!("stdio"));
    entry.insert("command".into(), json!("kapi"));
    entry.insert("args".into(), json!(args));
    entry
}
