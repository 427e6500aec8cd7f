//! The MCP entry that starts `kapi mcp` for the project, per host: merged into the host's JSON
//! file (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, `.kiki/mcp.json`, KKSS's list,
//! OpenCode's `opencode.json` `mcp.servers`) or Codex's `[mcp_servers.kapi]` in
//! `.codex/config.toml`; an entry someone else wrote is kept.

use std::collections::BTreeSet;
use std::path::Path;

use jsonc_parser::cst::CstInputValue;
use kapi_core::project::Recipe;
use serde_json::{Map, Value, json};

use super::host_files::{Plan, read_existing};
use super::jsonc::{
    JsonFile, cst_value, json_position, json_prop, line_col, prop_value, unreadable, update_fields,
};
use super::{HostId, HostWiring};

pub const SERVER: &str = "kapi";
/// The recipe every entry names, relative to the project root.
pub const PROJECT_ARG: &str = "kapi.yaml";
/// The tool sets an entry asks for when the recipe declares target languages.
pub const TRANSLATION_TOOLS: &str = "writing,translation";
/// The variables kapi resolves its project root from; Codex clears the environment of a stdio
/// server and forwards only these names.
pub const ROOT_ENV_VARS: &[&str] = &[crate::env::KAPI_PROJECT, crate::env::KAPI_NO_PROJECT];
/// Codex's 10 s default is short for a first start; agent-hosts.md §4 asks for 30.
pub const CODEX_STARTUP_TIMEOUT_SEC: i64 = 30;
/// KKSS reads only the first 6,000 characters of `instructions.md`.
/// KKSS reserves these ids for its built-in tool families.
pub const KKSS_RESERVED_IDS: &[&str] = &["cad", "mesh", "kratos", "pdf", "app", "mcp"];

/// The command and arguments every MCP entry carries.
pub fn server_args(recipe: &Recipe) -> Vec<String> {
    let mut args = vec![
        "mcp".to_owned(),
        "--project".to_owned(),
        PROJECT_ARG.to_owned(),
    ];
    if declares_targets(recipe) {
        args.push("--tools".to_owned());
        args.push(TRANSLATION_TOOLS.to_owned());
    }
    args
}

/// True when the recipe declares a target language anywhere.
pub fn declares_targets(recipe: &Recipe) -> bool {
    let some = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
    some(&recipe.defaults.target_languages)
        || recipe.collections.iter().any(|c| {
            some(&c.target_languages) || c.content.iter().any(|i| some(&i.target_languages))
        })
}

/// The entry kapi writes for a host.
fn json_server(host: HostId, args: &[String]) -> Map<String, Value> {
    if host == HostId::Crush {
        return super::crush::json_server(args);
    }
    let mut entry = Map::new();
    if host == HostId::Kilo {
        // Kilo Code 7 (a fork of OpenCode 1.x): `mcp.<name>`, one argv.
        let argv: Vec<&str> = std::iter::once("kapi")
            .chain(args.iter().map(String::as_str))
            .collect();
        entry.insert("type".into(), json!("local"));
        entry.insert("command".into(), json!(argv));
        return entry;
    }
    if host == HostId::OpenCode {
        // OpenCode's `mcp.servers.<name>`: one argv, and MCP tools as the model's own tools
        // (`codemode: false`; its 2.x would hide them behind its `execute` tool).
        let argv: Vec<&str> = std::iter::once("kapi")
            .chain(args.iter().map(String::as_str))
            .collect();
        entry.insert("type".into(), json!("local"));
        entry.insert("command".into(), json!(argv));
        entry.insert("codemode".into(), json!(false));
        return entry;
    }
    match host {
        HostId::VsCode => {
            entry.insert("type".into(), json!("stdio"));
        }
        HostId::Kkss => {
            entry.insert("id".into(), json!(SERVER));
        }
        _ => {}
    }
    entry.insert("command".into(), json!("kapi"));
    entry.insert("args".into(), json!(args));
    if host == HostId::Zed {
        // Zed's documented stdio server: `command`, `args`, `env`.
        entry.insert("env".into(), json!({}));
    }
    entry
}

/// `args` without a `--tools X` pair (and `--tools=X`).
fn without_tools<'a>(args: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if a == "--tools" {
            skip = true;
        } else if !a.starts_with("--tools=") {
            out.push(a);
        }
    }
    out
}

/// True when `entry` is what kapi writes for `host`, but for its tool sets.
fn is_kapis_json(host: HostId, entry: &Value, args: &[String]) -> bool {
    let Some(obj) = entry.as_object() else {
        return false;
    };
    let ours = json_server(host, args);
    let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
    let want: BTreeSet<&str> = ours.keys().map(String::as_str).collect();
    if keys != want {
        return false;
    }
    // The arguments kapi compares without `--tools` (OpenCode, Kilo: the argv after `kapi`).
    let argv = if matches!(host, HostId::OpenCode | HostId::Kilo) {
        "command"
    } else {
        "args"
    };
    for (k, v) in &ours {
        if k == argv {
            let Some(theirs) = obj[k].as_array() else {
                return false;
            };
            let Some(mut theirs) = theirs.iter().map(Value::as_str).collect::<Option<Vec<_>>>()
            else {
                return false;
            };
            if matches!(host, HostId::OpenCode | HostId::Kilo) {
                if theirs.first() != Some(&"kapi") {
                    return false;
                }
                theirs.remove(0);
            }
            if without_tools(theirs) != without_tools(args.iter().map(String::as_str)) {
                return false;
            }
        } else if obj[k] != *v {
            return false;
        }
    }
    true
}

/// Where a host's JSON file keeps its servers: the keys down from the top level (Amp's key
/// is the one name `amp.mcpServers`).
fn servers_path(host: HostId) -> &'static [&'static str] {
    match host {
        HostId::VsCode | HostId::Kkss => &["servers"],
        HostId::OpenCode => &["mcp", "servers"],
        HostId::Kilo | HostId::Crush => &["mcp"],
        HostId::Zed => &["context_servers"],
        HostId::Amp => &["amp.mcpServers"],
        _ => &["mcpServers"],
    }
}

/// Kilo Code's config, `kilo.jsonc` unless the project keeps `kilo.json`.
pub const KILO_FILES: [&str; 2] = ["kilo.jsonc", "kilo.json"];

/// The project MCP file of a host whose file is plain JSON(C) kapi merges into, by the host's
/// documentation; `None` for a host with another shape or none.
pub fn mcp_file(root: &Path, host: HostId) -> Option<String> {
    let rel = match host {
        HostId::ClaudeCode | HostId::Copilot => ".mcp.json",
        HostId::Cursor => ".cursor/mcp.json",
        HostId::VsCode => ".vscode/mcp.json",
        HostId::Kiki => ".kiki/mcp.json",
        HostId::Kkss => ".kkss/assistant/mcp.json",
        HostId::OpenCode => "opencode.json",
        HostId::Qwen => super::hook_entries::QWEN_FILE,
        HostId::Gemini => super::hook_entries::GEMINI_FILE,
        HostId::Zed => ".zed/settings.json",
        HostId::Kiro => ".kiro/settings/mcp.json",
        HostId::Junie => ".junie/mcp/mcp.json",
        HostId::Factory => ".factory/mcp.json",
        HostId::Amp => ".amp/settings.json",
        HostId::Roo => ".roo/mcp.json",
        HostId::Kilo => KILO_FILES
            .into_iter()
            .find(|f| std::fs::symlink_metadata(root.join(f)).is_ok())
            .unwrap_or(KILO_FILES[0]),
        _ => return None,
    };
    Some(rel.to_owned())
}

/// Merges kapi's entry into a host's JSON MCP file in place, keeping every other byte.
pub(super) fn json_entry(
    root: &Path,
    rel: &str,
    host: HostId,
    args: &[String],
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    let existing = read_existing(root, rel)?;
    let text = existing.as_deref().unwrap_or_default();
    let file = JsonFile::parse(rel, existing.as_deref())?;
    let key = servers_path(host)[0];
    let top = file.object(
        rel,
        &format!("the top level is not a JSON object (`{{ \"{key}\": … }}`)"),
    )?;
    let ours = json_server(host, args);
    if host == HostId::Kkss {
        let Some(prop) = json_prop(&top, key) else {
            top.append(
                key,
                CstInputValue::Array(vec![cst_value(&Value::Object(ours))]),
            );
            return push_json(file, rel, plan);
        };
        let Some(list) = prop.value().and_then(|v| v.as_array()) else {
            return Err(unreadable(
                rel,
                json_position(text, &[key]),
                "`servers` is not a list of servers",
            ));
        };
        let found = list.elements().into_iter().find_map(|element| {
            let value = element.to_serde_value()?;
            (value.get("id").and_then(Value::as_str) == Some(SERVER)).then_some((element, value))
        });
        match found {
            Some((element, value)) if is_kapis_json(host, &value, args) => {
                if let Some(object) = element.as_object() {
                    update_fields(&object, &ours);
                }
            }
            Some(_) => wiring.kept_entry = Some(rel.to_owned()),
            None => {
                list.append(cst_value(&Value::Object(ours)));
            }
        }
    } else {
        // The object of servers, `path` keys down from the top (OpenCode: `mcp.servers`);
        // each missing level is created with kapi's entry inside.
        let path = servers_path(host);
        let mut at = top;
        for (depth, key) in path.iter().enumerate() {
            let Some(prop) = json_prop(&at, key) else {
                let mut value = CstInputValue::Object(vec![(
                    SERVER.to_owned(),
                    cst_value(&Value::Object(ours)),
                )]);
                for outer in path[depth + 1..].iter().rev() {
                    value = CstInputValue::Object(vec![((*outer).to_owned(), value)]);
                }
                at.append(key, value);
                return push_json(file, rel, plan);
            };
            let Some(object) = prop.value().and_then(|v| v.as_object()) else {
                let what = if depth + 1 == path.len() {
                    format!(
                        "`{}` is not an object of server names to servers",
                        path.join(".")
                    )
                } else {
                    format!("`{}` is not an object", path[..=depth].join("."))
                };
                return Err(unreadable(rel, json_position(text, &path[..=depth]), &what));
            };
            // A server `kapi` written OpenCode's 1.x way (`mcp.kapi`) is someone's own.
            if host == HostId::OpenCode && depth == 0 && json_prop(&object, SERVER).is_some() {
                wiring.kept_entry = Some(rel.to_owned());
                return Ok(());
            }
            at = object;
        }
        match json_prop(&at, SERVER) {
            Some(prop) => match prop_value(&prop) {
                Some(entry) if is_kapis_json(host, &entry, args) => {
                    if let Some(object) = prop.object_value() {
                        update_fields(&object, &ours);
                    }
                }
                _ => wiring.kept_entry = Some(rel.to_owned()),
            },
            None => {
                at.append(SERVER, cst_value(&Value::Object(ours)));
            }
        }
    }
    push_json(file, rel, plan)
}

/// Plans the write of a merged JSON file, when a byte changed.
fn push_json(file: JsonFile, rel: &str, plan: &mut Plan) -> Result<(), String> {
    if let Some(text) = file.finish(rel)? {
        plan.writes.push((rel.to_owned(), text.into_bytes()));
    }
    Ok(())
}

fn toml_array(items: &[String]) -> toml_edit::Array {
    items.iter().map(String::as_str).collect()
}

/// `[mcp_servers.kapi]` in `.codex/config.toml`, edited in place so comments and layout survive.
pub(super) fn codex_entry(
    root: &Path,
    args: &[String],
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    const REL: &str = ".codex/config.toml";
    let existing = read_existing(root, REL)?;
    let text = existing.clone().unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, col) = line_col(&text, e.span().map_or(0, |s| s.start));
        format!(
            "{REL}: line {line}, column {col}: {}; kapi leaves a file it cannot read alone: fix it and run `kapi init` again",
            e.message()
        )
    })?;
    let env_vars: Vec<String> = ROOT_ENV_VARS.iter().map(|s| (*s).to_owned()).collect();
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| format!("{REL}: `mcp_servers` is not a table; kapi leaves it alone"))?;
    match servers.get_mut(SERVER) {
        None => {
            let mut t = toml_edit::Table::new();
            t.insert("command", toml_edit::value("kapi"));
            t.insert("args", toml_edit::value(toml_array(args)));
            t.insert("env_vars", toml_edit::value(toml_array(&env_vars)));
            t.insert(
                "startup_timeout_sec",
                toml_edit::value(CODEX_STARTUP_TIMEOUT_SEC),
            );
            servers.insert(SERVER, toml_edit::Item::Table(t));
        }
        Some(item) => {
            let ours = item
                .as_table_like_mut()
                .filter(|t| is_kapis_toml(*t, args, &env_vars));
            match ours {
                Some(t) => {
                    // Only the tool sets can differ: replace `args` only when they do.
                    let current: Vec<String> = t
                        .get("args")
                        .and_then(|a| a.as_array())
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    if current != args {
                        let mut array = toml_array(args);
                        if let Some(old) = t.get("args").and_then(|a| a.as_value()) {
                            *array.decor_mut() = toml_edit::Decor::default();
                            let mut value = toml_edit::Value::Array(array);
                            *value.decor_mut() = old.decor().clone();
                            t.insert("args", toml_edit::Item::Value(value));
                        } else {
                            t.insert("args", toml_edit::value(array));
                        }
                    }
                }
                None => wiring.kept_entry = Some(REL.to_owned()),
            }
        }
    }
    let out = doc.to_string();
    if existing.as_deref() == Some(out.as_str()) {
        return Ok(());
    }
    plan.writes.push((REL.to_owned(), out.into_bytes()));
    Ok(())
}

/// True when a Codex table is what kapi writes, but for its tool sets.
fn is_kapis_toml(t: &dyn toml_edit::TableLike, args: &[String], env_vars: &[String]) -> bool {
    let keys: BTreeSet<&str> = t.iter().map(|(k, _)| k).collect();
    let want: BTreeSet<&str> = ["command", "args", "env_vars", "startup_timeout_sec"].into();
    if keys != want {
        return false;
    }
    let strings = |key: &str| -> Option<Vec<String>> {
        t.get(key)?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let theirs = strings("args").unwrap_or_default();
    t.get("command").and_then(|c| c.as_str()) == Some("kapi")
        && t.get("startup_timeout_sec").and_then(|c| c.as_integer())
            == Some(CODEX_STARTUP_TIMEOUT_SEC)
        && strings("env_vars").as_deref() == Some(env_vars)
        && strings("args").is_some()
        && without_tools(theirs.iter().map(String::as_str))
            == without_tools(args.iter().map(String::as_str))
}
