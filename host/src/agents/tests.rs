//! Wiring the agent hosts: every file `wire` writes follows its host's rules, keeps the
//! person's bytes, refuses what it cannot read, and a second run changes nothing.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::skill_folders::sha256_hex;
use super::*;

fn recipe(targets: bool) -> Recipe {
    let mut r = Recipe::default();
    if targets {
        r.defaults.target_languages = Some(vec!["fr".into()]);
    }
    r
}

fn skill() -> WiringInput {
    WiringInput {
            skill_files: vec![(
                "SKILL.md".into(),
                b"---\nname: kapi\ndescription: \"Use when editing prose: kapi checks it.\"\n---\n# kapi\n\nBody.\n".to_vec(),
            )],
            served: Vec::new(),
            retired: Vec::new(),
        }
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

/// Every file `wire` writes, parsed with its host's rules.
#[test]
fn every_file_written_follows_its_hosts_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let report = wire(root, &recipe(true), &Agents::All, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let args = json!([
        "mcp",
        "--project",
        "kapi.yaml",
        "--tools",
        "writing,translation"
    ]);
    for (rel, key) in [
        (".mcp.json", "mcpServers"),
        (".cursor/mcp.json", "mcpServers"),
        (".kiki/mcp.json", "mcpServers"),
        (".vscode/mcp.json", "servers"),
    ] {
        let v: Value = serde_json::from_str(&read(root, rel)).unwrap();
        let top: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(top, [key], "{rel}");
        let entry = v[key]["kapi"].as_object().unwrap();
        assert_eq!(entry["command"], "kapi", "{rel}");
        assert_eq!(entry["args"], args, "{rel}");
        let fields: BTreeSet<&str> = entry.keys().map(String::as_str).collect();
        if key == "servers" {
            // VS Code requires `type`.
            assert_eq!(entry["type"], "stdio");
            assert_eq!(fields, ["args", "command", "type"].into());
        } else {
            assert_eq!(fields, ["args", "command"].into(), "{rel}");
        }
        // Claude Code names: letters, digits, `-`, `_`.
        assert!(
            "kapi"
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
        );
    }
    // Kiki: only the fields its mcpServers schema knows.
    let kiki: Value = serde_json::from_str(&read(root, ".kiki/mcp.json")).unwrap();
    let allowed = [
        "command",
        "args",
        "env",
        "cwd",
        "startupTimeoutMs",
        "enabled",
        "enabledTools",
        "disabledTools",
    ];
    for k in kiki["mcpServers"]["kapi"].as_object().unwrap().keys() {
        assert!(allowed.contains(&k.as_str()), "{k}");
    }
    // KKSS: an id of lowercase letters, digits and hyphens, up to 32, a letter first, no
    // `__`, not reserved.
    let kkss: Value = serde_json::from_str(&read(root, ".kkss/assistant/mcp.json")).unwrap();
    let servers = kkss["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1);
    let id = servers[0]["id"].as_str().unwrap();
    assert!(id.len() <= 32 && id.starts_with(|c: char| c.is_ascii_lowercase()));
    assert!(
        id.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    );
    assert!(!id.contains("__") && !KKSS_RESERVED_IDS.contains(&id));
    assert_eq!(servers[0]["command"], "kapi");
    assert_eq!(servers[0]["args"], args);
    assert!(servers[0].get("env").is_none());
    // Codex: TOML with only fields RawMcpServerConfig knows, env_vars naming variables.
    let codex: toml_edit::DocumentMut = read(root, ".codex/config.toml").parse().unwrap();
    let t = codex["mcp_servers"]["kapi"].as_table().unwrap();
    let keys: BTreeSet<&str> = t.iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        ["args", "command", "env_vars", "startup_timeout_sec"].into()
    );
    assert_eq!(t["command"].as_str(), Some("kapi"));
    let vars: Vec<&str> = t["env_vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(vars, ROOT_ENV_VARS);
    // Skills: name = folder, [a-z0-9-], no reserved words; description quoted, one line,
    // ≤ 1024; KKSS's header is name and description only.
    for dir in [
        ".claude/skills/kapi",
        ".agents/skills/kapi",
        ".kkss/assistant/skills/kapi",
    ] {
        let text = read(root, &format!("{dir}/SKILL.md"));
        let (front, body) = split_frontmatter(&text).unwrap();
        assert!(body.starts_with("# kapi"), "{dir}");
        let name = front
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap();
        assert_eq!(name, dir.rsplit('/').next().unwrap());
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
        assert!(!name.contains("claude") && !name.contains("anthropic"));
        let desc = front
            .lines()
            .find_map(|l| l.strip_prefix("description: "))
            .unwrap();
        assert!(desc.starts_with('"') && desc.ends_with('"') && desc.len() <= 1024);
        if dir.starts_with(".kkss") {
            assert_eq!(front.lines().count(), 2, "{front}");
        }
    }
    let instructions = read(root, ".kkss/assistant/instructions.md");
    assert!(instructions.starts_with(KKSS_BEGIN));
    assert!(instructions.find(KKSS_END).unwrap() < 800);
    // OpenCode: `mcp.servers.kapi`, one argv, direct tools; its plugin, kapi's own bytes.
    let opencode: Value = serde_json::from_str(&read(root, "opencode.json")).unwrap();
    let entry = &opencode["mcp"]["servers"]["kapi"];
    assert_eq!(
        entry,
        &json!({"type": "local", "command": ["kapi", "mcp", "--project", "kapi.yaml", "--tools",
                "writing,translation"], "codemode": false})
    );
    assert_eq!(
        read(root, hook_entries::OPENCODE_FILE),
        hook_entries::OPENCODE_PLUGIN
    );
}

/// Qwen Code's one settings file takes kapi's server and its hooks in one write; a second run
/// writes nothing.
#[test]
fn qwen_settings_hold_the_server_and_the_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".qwen")).unwrap();
    std::fs::write(
        root.join(".qwen/settings.json"),
        "{\n  // mine\n  \"model\": {\"name\": \"qwen3\"},\n}\n",
    )
    .unwrap();
    let agents = Agents::List(vec![HostId::Qwen]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let text = read(root, ".qwen/settings.json");
    assert!(text.starts_with("{\n  // mine\n"), "{text}");
    let file = jsonc_parser::cst::CstRootNode::parse(&text, &Default::default()).unwrap();
    let v: Value = file.value().and_then(|v| v.to_serde_value()).unwrap();
    assert_eq!(v["mcpServers"]["kapi"]["command"], "kapi");
    for event in ["PreToolUse", "PostToolUse", "Stop"] {
        let command = v["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(command.ends_with("--host qwen"), "{command}");
    }
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "write_file|edit");
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged, "{again:?}");
}

/// Gemini CLI's settings take kapi's server, its hooks (Gemini's events, named, timeouts in
/// ms) and, when the file names none, the context files that load AGENTS.md; a person's own
/// `context.fileName` is theirs.
#[test]
fn gemini_settings_hold_the_server_the_hooks_and_agents_md() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let agents = Agents::List(vec![HostId::Gemini]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let v: Value = serde_json::from_str(&read(root, ".gemini/settings.json")).unwrap();
    assert_eq!(v["mcpServers"]["kapi"]["command"], "kapi");
    assert_eq!(v["context"]["fileName"], json!(["AGENTS.md", "GEMINI.md"]));
    for (event, ms) in [
        ("BeforeTool", 30000),
        ("AfterTool", 120000),
        ("AfterAgent", 300000),
    ] {
        let handler = &v["hooks"][event][0]["hooks"][0];
        assert_eq!(handler["timeout"], ms, "{event}");
        assert!(handler["name"].as_str().unwrap().starts_with("kapi-"));
        assert!(
            handler["command"]
                .as_str()
                .unwrap()
                .ends_with("--host gemini")
        );
    }
    assert_eq!(v["hooks"]["BeforeTool"][0]["matcher"], "write_file|replace");
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged, "{again:?}");
    // A person's own context list stays as it is.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join(".gemini")).unwrap();
    std::fs::write(
        other.path().join(".gemini/settings.json"),
        "{\"context\": {\"fileName\": \"GEMINI.md\"}}\n",
    )
    .unwrap();
    wire(other.path(), &recipe(false), &agents, &skill()).unwrap();
    let v: Value = serde_json::from_str(&read(other.path(), ".gemini/settings.json")).unwrap();
    assert_eq!(v["context"]["fileName"], "GEMINI.md");
}

/// OpenCode's `opencode.json` keeps the person's keys, comments and servers; a server `kapi`
/// written the 1.x way (`mcp.kapi`) is someone's own; a changed plugin is the person's; a
/// second run writes nothing.
#[test]
fn opencode_keeps_the_persons_config_and_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mine = "{\n  // mine\n  \"model\": \"x/y\",\n  \"mcp\": {\"servers\": {\"db\": {\"type\": \"local\", \"command\": [\"db\"]}}},\n}\n";
    std::fs::write(root.join("opencode.json"), mine).unwrap();
    let agents = Agents::List(vec![HostId::OpenCode]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let text = read(root, "opencode.json");
    assert!(
        text.starts_with("{\n  // mine\n  \"model\": \"x/y\","),
        "{text}"
    );
    assert!(text.contains("\"db\""), "{text}");
    assert!(text.contains("\"kapi\""), "{text}");
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged, "{again:?}");
    // The person's plugin of the same name stays, and is named.
    let plugin = root.join(hook_entries::OPENCODE_FILE);
    std::fs::write(&plugin, "export const Mine = async () => ({})\n").unwrap();
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&plugin).unwrap(),
        "export const Mine = async () => ({})\n"
    );
    assert!(
        report.hosts[0].warnings.iter().any(|w| w.contains("kept")),
        "{report:?}"
    );
    // A 1.x-style `mcp.kapi` is someone's own.
    let other = tempfile::tempdir().unwrap();
    let v1 = "{\"mcp\": {\"kapi\": {\"type\": \"local\", \"command\": [\"kapi\", \"mcp\"]}}}\n";
    std::fs::write(other.path().join("opencode.json"), v1).unwrap();
    let report = wire(other.path(), &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(read(other.path(), "opencode.json"), v1);
    assert_eq!(report.hosts[0].kept_entry.as_deref(), Some("opencode.json"));
}

#[test]
fn codex_keeps_comments_layout_and_other_servers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mine = "# my codex settings\nmodel = \"o5\"  # fast\n\n[mcp_servers.other]\ncommand = \"other\" # theirs\n";
    std::fs::create_dir_all(root.join(".codex")).unwrap();
    std::fs::write(root.join(".codex/config.toml"), mine).unwrap();
    let list = Agents::List(vec![HostId::Codex]);
    wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    let text = read(root, ".codex/config.toml");
    assert!(text.starts_with(mine), "{text}");
    assert!(text.contains("[mcp_servers.kapi]\ncommand = \"kapi\"\nargs = [\"mcp\", \"--project\", \"kapi.yaml\"]\nenv_vars = [\"KAPI_PROJECT\", \"KAPI_NO_PROJECT\"]\nstartup_timeout_sec = 30\n"), "{text}");
    // The recipe gains target languages: only the args follow.
    wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
    let text = read(root, ".codex/config.toml");
    assert!(text.starts_with(mine), "{text}");
    assert!(
        text.contains(
            "args = [\"mcp\", \"--project\", \"kapi.yaml\", \"--tools\", \"writing,translation\"]\n"
        ),
        "{text}"
    );
    let again = wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
}

#[test]
fn kkss_block_goes_on_top_and_is_replaced_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
    std::fs::write(
        root.join(".kkss/assistant/instructions.md"),
        "Units are SI.\n",
    )
    .unwrap();
    let list = Agents::List(vec![HostId::Kkss]);
    wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    let text = read(root, ".kkss/assistant/instructions.md");
    assert!(text.starts_with(KKSS_BEGIN), "{text}");
    assert!(
        text.ends_with("<!-- kapi:end -->\n\nUnits are SI.\n"),
        "{text}"
    );
    let again = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
    std::fs::write(
        root.join(".kkss/assistant/instructions.md"),
        "Mine.\n<!-- kapi:begin -->\nold\n",
    )
    .unwrap();
    let refused = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(refused.hosts[0].status, WiringStatus::Refused);
    assert!(
        refused.hosts[0]
            .error
            .as_deref()
            .unwrap()
            .contains("line 2")
    );
}

/// Property 5: the skill folder holds what this binary ships: SKILL.md alone, a reference
/// an earlier kapi copied removed by content, a changed copy and anything else named.
#[test]
fn the_skill_folder_holds_what_this_binary_ships() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let old_reference = b"# edit\n\nAn earlier kapi's reference.\n";
    let served_edit = b"# edit\n\nThis kapi's reference, served by `kapi help edit`.\n";
    let served_react = b"# React\n\nA playbook.\n";
    let mut input = skill();
    input.retired = vec![sha256_hex(old_reference).to_uppercase()];
    input.served = vec![
        ("references/edit.md".into(), served_edit.to_vec()),
        ("references/i18n/react.md".into(), served_react.to_vec()),
    ];
    for skill_dir in [".claude/skills/kapi", ".agents/skills/kapi"] {
        let d = root.join(skill_dir);
        std::fs::create_dir_all(d.join("references/i18n")).unwrap();
        std::fs::write(d.join("SKILL.md"), "stale").unwrap();
        std::fs::write(d.join("references/old.md"), old_reference).unwrap();
        std::fs::write(d.join("references/i18n/react.md"), served_react).unwrap();
        std::fs::write(d.join("notes.md"), "mine").unwrap();
    }
    // The Claude Code copy of the edit reference was changed by someone; the other is
    // this kapi's.
    std::fs::write(
        root.join(".claude/skills/kapi/references/edit.md"),
        "# edit\n\nWith my own notes.\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".agents/skills/kapi/references/edit.md"),
        served_edit,
    )
    .unwrap();
    let list = Agents::List(vec![HostId::ClaudeCode, HostId::Agents]);
    let report = wire(root, &recipe(false), &list, &input).unwrap();
    let claude = &report.hosts[0];
    let agents = &report.hosts[1];
    for (h, skill_dir) in [
        (claude, ".claude/skills/kapi"),
        (agents, ".agents/skills/kapi"),
    ] {
        assert_eq!(h.status, WiringStatus::Wired, "{h:?}");
        assert_eq!(
            std::fs::read(root.join(skill_dir).join("SKILL.md")).unwrap(),
            input.skill_files[0].1
        );
        assert!(!root.join(skill_dir).join("references/i18n").exists());
        assert_eq!(read(root, &format!("{skill_dir}/notes.md")), "mine");
    }
    assert_eq!(
        claude.removed,
        [
            ".claude/skills/kapi/references/i18n/react.md",
            ".claude/skills/kapi/references/old.md"
        ]
    );
    assert_eq!(
        claude.foreign,
        [
            ".claude/skills/kapi/notes.md",
            ".claude/skills/kapi/references/edit.md"
        ]
    );
    assert_eq!(
        read(root, ".claude/skills/kapi/references/edit.md"),
        "# edit\n\nWith my own notes.\n"
    );
    assert_eq!(claude.warnings.len(), 1, "{:?}", claude.warnings);
    assert!(
            claude.warnings[0].starts_with(".claude/skills/kapi/references/edit.md: an earlier kapi copied this reference here and it was changed since")
                && claude.warnings[0].contains("`kapi help edit`"),
            "{:?}",
            claude.warnings
        );
    assert_eq!(
        agents.removed,
        [
            ".agents/skills/kapi/references/edit.md",
            ".agents/skills/kapi/references/i18n/react.md",
            ".agents/skills/kapi/references/old.md"
        ]
    );
    assert_eq!(agents.foreign, [".agents/skills/kapi/notes.md"]);
    assert!(agents.warnings.is_empty(), "{:?}", agents.warnings);
    // Emptied folders went with their last file.
    assert!(!root.join(".agents/skills/kapi/references").exists());
    // Again: nothing written, the foreign files still named.
    let again = wire(root, &recipe(false), &list, &input).unwrap();
    for h in &again.hosts {
        assert_eq!(h.status, WiringStatus::Unchanged, "{h:?}");
        assert!(h.written.is_empty() && h.removed.is_empty());
    }
    assert_eq!(again.hosts[0].foreign.len(), 2);
    assert_eq!(again.hosts[1].foreign.len(), 1);
    // No skill shipped: no skill folder written.
    let bare = tempfile::tempdir().unwrap();
    wire(
        bare.path(),
        &recipe(false),
        &Agents::All,
        &WiringInput::default(),
    )
    .unwrap();
    assert!(!bare.path().join(".claude/skills").exists());
    assert!(!bare.path().join(".agents").exists());
}

/// A JSONC MCP file (comments, trailing commas, four-space indentation) gains kapi's entry
/// in the person's style; every other byte stays.
#[test]
fn a_jsonc_mcp_file_gains_kapis_entry_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let theirs = "// VS Code's MCP servers\n{\n    \"servers\": {\n        \"db\": {\"command\": \"db\"}, // pinned\n    },\n    /* keep */ \"inputs\": [],\n}\n";
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    std::fs::write(root.join(".vscode/mcp.json"), theirs).unwrap();
    let list = Agents::List(vec![HostId::VsCode]);
    let report = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(report.hosts[0].status, WiringStatus::Wired, "{report:?}");
    let kapi = "        \"kapi\": {\n            \"type\": \"stdio\",\n            \"command\": \"kapi\",\n            \"args\": [\"mcp\", \"--project\", \"kapi.yaml\"],\n        },\n";
    let want = theirs.replace("// pinned\n", &format!("// pinned\n{kapi}"));
    assert_eq!(read(root, ".vscode/mcp.json"), want);
    // The recipe gains target languages: only kapi's `args` follow.
    wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
    let tools = want.replace(
        "\"kapi.yaml\"]",
        "\"kapi.yaml\", \"--tools\", \"writing,translation\"]",
    );
    assert_eq!(read(root, ".vscode/mcp.json"), tools);
    let again = wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
    // A new file is pretty JSON.
    let fresh = tempfile::tempdir().unwrap();
    wire(fresh.path(), &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(
        read(fresh.path(), ".vscode/mcp.json"),
        "{\n  \"servers\": {\n    \"kapi\": {\n      \"type\": \"stdio\",\n      \"command\": \"kapi\",\n      \"args\": [\n        \"mcp\",\n        \"--project\",\n        \"kapi.yaml\"\n      ]\n    }\n  }\n}\n"
    );
}

#[test]
fn kkss_servers_in_jsonc_keep_their_layout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let theirs = "{\n\t// lab tools\n\t\"servers\": [\n\t\t{\"id\": \"acme\", \"command\": \"acme\"},\n\t],\n}\n";
    std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
    std::fs::write(root.join(".kkss/assistant/mcp.json"), theirs).unwrap();
    let list = Agents::List(vec![HostId::Kkss]);
    wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    let text = read(root, ".kkss/assistant/mcp.json");
    let kapi = "\t\t{\n\t\t\t\"id\": \"kapi\",\n\t\t\t\"command\": \"kapi\",\n\t\t\t\"args\": [\"mcp\", \"--project\", \"kapi.yaml\"],\n\t\t},\n";
    assert_eq!(
        text,
        theirs.replace("\"acme\"},\n", &format!("\"acme\"}},\n{kapi}"))
    );
    let again = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
}

#[test]
fn a_json_file_kapi_cannot_read_names_line_column_and_fix() {
    for (text, want) in [
        (
            "{\n  \"mcpServers\": {\n    \"x\": 1,\n  ]\n}\n",
            ".mcp.json: line 4, column 3: not valid JSON (unexpected token in object)",
        ),
        (
            "// mine\n{\"mcpServers\": {\n",
            ".mcp.json: line 2, column 16: not valid JSON (the object that opens here is never closed)",
        ),
        (
            "{'mcpServers': {}}",
            ".mcp.json: line 1, column 2: not valid JSON (single-quoted strings are not allowed)",
        ),
        (
            "/* mine */\n  [1]\n",
            ".mcp.json: line 2, column 3: the top level is not a JSON object",
        ),
        (
            "{\n  // c\n  \"mcpServers\": []\n}",
            ".mcp.json: line 3, column 17: `mcpServers` is not an object",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".mcp.json"), text).unwrap();
        let list = Agents::List(vec![HostId::ClaudeCode]);
        let report = wire(dir.path(), &recipe(false), &list, &WiringInput::default()).unwrap();
        let error = report.hosts[0].error.as_deref().unwrap();
        assert!(error.starts_with(want), "{error}");
        assert!(
            error.ends_with("fix it and run `kapi init` again"),
            "{error}"
        );
        assert_eq!(read(dir.path(), ".mcp.json"), text);
    }
}

#[test]
fn a_kapi_entry_someone_else_wrote_in_kkss_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let theirs = "{\"servers\": [{\"id\": \"kapi\", \"command\": \"/opt/other\"}, {\"id\": \"acme\", \"command\": \"acme\"}]}";
    std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
    std::fs::write(root.join(".kkss/assistant/mcp.json"), theirs).unwrap();
    let list = Agents::List(vec![HostId::Kkss]);
    let report = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
    assert_eq!(
        report.hosts[0].kept_entry.as_deref(),
        Some(".kkss/assistant/mcp.json")
    );
    assert_eq!(read(root, ".kkss/assistant/mcp.json"), theirs);
}

#[test]
fn agents_parse() {
    assert_eq!(Agents::parse("all").unwrap(), Agents::All);
    assert_eq!(Agents::parse("none").unwrap(), Agents::None);
    assert_eq!(
        Agents::parse("cursor,codex").unwrap(),
        Agents::List(vec![HostId::Cursor, HostId::Codex])
    );
    let err = Agents::parse("cursor,emacs").unwrap_err();
    assert!(err.to_string().contains("emacs"));
    assert!(kapi_core::Hint::hints(&err)[0].contains("claude-code, cursor, vscode"));
}

/// The hosts whose project MCP file is plain JSON(C) under a documented key: Zed's
/// `context_servers` (with `env`), Amp's one key `amp.mcpServers`, and `mcpServers` for Kiro,
/// Junie, Factory and Roo Code; each gets its skill folder, and a second run writes nothing.
#[test]
fn the_json_hosts_get_their_documented_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let hosts = [
        HostId::Zed,
        HostId::Kiro,
        HostId::Junie,
        HostId::Factory,
        HostId::Amp,
        HostId::Roo,
    ];
    let agents = Agents::List(hosts.to_vec());
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let args = json!(["mcp", "--project", "kapi.yaml"]);
    for (rel, key, skill_dir) in [
        (
            ".zed/settings.json",
            "context_servers",
            ".agents/skills/kapi",
        ),
        (".kiro/settings/mcp.json", "mcpServers", ".kiro/skills/kapi"),
        (".junie/mcp/mcp.json", "mcpServers", ".junie/skills/kapi"),
        (".factory/mcp.json", "mcpServers", ".agents/skills/kapi"),
        (
            ".amp/settings.json",
            "amp.mcpServers",
            ".agents/skills/kapi",
        ),
        (".roo/mcp.json", "mcpServers", ".agents/skills/kapi"),
    ] {
        let v: Value = serde_json::from_str(&read(root, rel)).unwrap();
        let top: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(top, [key], "{rel}");
        let entry = &v[key]["kapi"];
        assert_eq!(entry["command"], "kapi", "{rel}");
        assert_eq!(entry["args"], args, "{rel}");
        assert!(
            root.join(skill_dir).join("SKILL.md").is_file(),
            "{skill_dir}"
        );
    }
    let zed: Value = serde_json::from_str(&read(root, ".zed/settings.json")).unwrap();
    assert_eq!(zed["context_servers"]["kapi"]["env"], json!({}));
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    for h in &again.hosts {
        assert_eq!(h.status, WiringStatus::Unchanged, "{h:?}");
    }
}

/// Zed reads the first rules file of its list, Junie `.junie/AGENTS.md` before `AGENTS.md`: a
/// file that hides AGENTS.md from them is named, with the fix.
#[test]
fn a_rules_file_that_hides_agents_md_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("AGENTS.md"), "# Rules\n").unwrap();
    let agents = Agents::List(vec![HostId::Zed, HostId::Junie]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(
        report.hosts.iter().all(|h| h.warnings.is_empty()),
        "{report:?}"
    );
    std::fs::write(root.join(".cursorrules"), "x\n").unwrap();
    std::fs::create_dir_all(root.join(".junie")).unwrap();
    std::fs::write(root.join(".junie/AGENTS.md"), "x\n").unwrap();
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    let zed = &report.hosts[0].warnings;
    assert!(
        zed.iter()
            .any(|w| w.starts_with(".cursorrules hides AGENTS.md from zed")),
        "{zed:?}"
    );
    let junie = &report.hosts[1].warnings;
    assert!(
        junie
            .iter()
            .any(|w| w.starts_with(".junie/AGENTS.md hides AGENTS.md from junie")),
        "{junie:?}"
    );
}

/// Windsurf's Cascade, Cline and Goose read MCP servers from the person's own settings only:
/// kapi writes no MCP file for them and its next steps give the entry to paste, naming the
/// recipe by its absolute path (they start servers from their own folder).
#[test]
fn a_host_without_a_project_mcp_file_gets_the_entry_to_paste() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let agents = Agents::List(vec![HostId::Windsurf, HostId::Cline, HostId::Goose]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let recipe_path = root.join("kapi.yaml").display().to_string();
    for h in &report.hosts {
        assert!(
            h.written.iter().all(|w| !w.contains("mcp")),
            "{}: {:?}",
            h.host,
            h.written
        );
        assert!(
            h.next_steps[0].contains(&recipe_path),
            "{}: {:?}",
            h.host,
            h.next_steps
        );
    }
    let windsurf = &report.hosts[0];
    assert!(windsurf.next_steps[0].contains("mcp_config.json"));
    assert!(windsurf.written.iter().any(|w| w == ".windsurf/hooks.json"));
    assert!(report.hosts[1].next_steps[0].contains("Configure MCP Servers"));
    assert!(report.hosts[2].next_steps[0].contains("goose configure"));
}

/// Factory's droid: `.factory/hooks.json` holds Claude Code's groups with its events at the top
/// level (droid runs nothing under a `hooks` wrapper), `--host factory`; Kilo Code: `kilo.jsonc`
/// `mcp.kapi` (one argv) and its plugin; Kiro: kapi's own hook file, PreToolUse alone.
#[test]
fn factory_kilo_and_kiro_get_their_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let agents = Agents::List(vec![HostId::Factory, HostId::Kilo, HostId::Kiro]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let droid: Value = serde_json::from_str(&read(root, ".factory/hooks.json")).unwrap();
    let events: Vec<&str> = droid
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(events, ["PreToolUse", "PostToolUse", "Stop"]);
    assert_eq!(droid["PreToolUse"][0]["matcher"], "Edit|Create|ApplyPatch");
    let command = droid["PostToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.ends_with("kapi hook post-edit --host factory"),
        "{command}"
    );

    let kilo: Value = serde_json::from_str(&read(root, "kilo.jsonc")).unwrap();
    assert_eq!(
        kilo["mcp"]["kapi"],
        json!({"type": "local", "command": ["kapi", "mcp", "--project", "kapi.yaml"]})
    );
    assert_eq!(
        read(root, ".kilo/plugin/kapi.js"),
        hook_entries::KILO_PLUGIN
    );
    assert!(hook_entries::KILO_PLUGIN.contains("export default { id: \"kapi\""));

    let kiro: Value = serde_json::from_str(&read(root, ".kiro/hooks/kapi.json")).unwrap();
    assert_eq!(kiro["version"], "v1");
    let hooks = kiro["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0]["trigger"], "PreToolUse");
    assert!(
        hooks[0]["action"]["command"]
            .as_str()
            .unwrap()
            .ends_with("kapi hook pre-edit --host kiro")
    );
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    for h in &again.hosts {
        assert_eq!(h.status, WiringStatus::Unchanged, "{h:?}");
    }

    // A project that keeps `kilo.json` gets kapi's entry there; a hook file someone changed
    // is theirs.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("kilo.json"), "{\"model\": \"x\"}\n").unwrap();
    std::fs::create_dir_all(other.path().join(".kiro/hooks")).unwrap();
    std::fs::write(other.path().join(".kiro/hooks/kapi.json"), "{}\n").unwrap();
    let report = wire(other.path(), &recipe(false), &agents, &skill()).unwrap();
    assert!(!other.path().join("kilo.jsonc").exists());
    let v: Value = serde_json::from_str(&read(other.path(), "kilo.json")).unwrap();
    assert_eq!(v["model"], "x");
    assert_eq!(v["mcp"]["kapi"]["type"], "local");
    let kiro = report.hosts.iter().find(|h| h.host == "kiro").unwrap();
    assert!(
        kiro.warnings
            .iter()
            .any(|w| w.starts_with(".kiro/hooks/kapi.json: kept")),
        "{kiro:?}"
    );
    assert_eq!(read(other.path(), ".kiro/hooks/kapi.json"), "{}\n");
}

/// Crush: a `.crushrc` of kapi's two lines (its server, its PreToolUse hook), appended to the
/// person's; a second run writes nothing; kapi's line follows the recipe's tool sets; a
/// project that keeps `crush.json` (and no crushrc) gets kapi's entry and hook there.
#[test]
fn crush_gets_its_crushrc_lines_or_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join(".crushrc"), "# mine\noption metrics false").unwrap();
    let agents = Agents::List(vec![HostId::Crush]);
    let report = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert!(!report.refused(), "{report:?}");
    let rc = read(root, ".crushrc");
    assert!(rc.starts_with("# mine\noption metrics false\nmcp add kapi --command kapi --args mcp --args --project --args kapi.yaml\nhook add PreToolUse --name kapi-pre-edit --matcher '^(edit|multiedit|write)$' --command 'command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host crush' --timeout 30\n"), "{rc}");
    assert!(root.join(".agents/skills/kapi/SKILL.md").is_file());
    let again = wire(root, &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(again.hosts[0].status, WiringStatus::Unchanged, "{again:?}");
    wire(root, &recipe(true), &agents, &skill()).unwrap();
    let rc = read(root, ".crushrc");
    assert_eq!(rc.matches("mcp add kapi").count(), 1, "{rc}");
    assert!(
        rc.contains("--args kapi.yaml --args --tools --args writing,translation\n"),
        "{rc}"
    );

    // The hook line splits, as Crush's shell reads it, into kapi's guarded command.
    let line = crush::hook_line();
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("set -- {line}; printf '%s\\n' \"$9\"")])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host crush"
    );

    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("crush.json"), "{\"options\": {}}\n").unwrap();
    wire(other.path(), &recipe(false), &agents, &skill()).unwrap();
    assert!(!other.path().join(".crushrc").exists());
    let v: Value = serde_json::from_str(&read(other.path(), "crush.json")).unwrap();
    assert_eq!(
        v["mcp"]["kapi"],
        json!({"type": "stdio", "command": "kapi", "args": ["mcp", "--project", "kapi.yaml"]})
    );
    assert_eq!(v["hooks"]["PreToolUse"][0]["name"], "kapi-pre-edit");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "^(edit|multiedit|write)$"
    );

    // Someone's own `mcp add kapi` line is theirs.
    let theirs = tempfile::tempdir().unwrap();
    std::fs::write(
        theirs.path().join(".crushrc"),
        "mcp add kapi --command /opt/kapi\n",
    )
    .unwrap();
    let report = wire(theirs.path(), &recipe(false), &agents, &skill()).unwrap();
    assert_eq!(report.hosts[0].kept_entry.as_deref(), Some(".crushrc"));
    assert_eq!(
        read(theirs.path(), ".crushrc").matches("mcp add").count(),
        1
    );
}
