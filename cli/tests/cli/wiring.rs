//! `kapi init --agents`: the MCP entries, skill copies and assistant hooks each agent host reads,
//! with the five properties of the seed (project scope, a command and nothing else, the project
//! named relatively, someone else's entry left alone, the skill folder as shipped), a second run
//! that changes no byte, and bad input (a malformed, symlinked or read-only file) refused per
//! host with nothing of that host written.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::Kapi;

const PLAIN_ARGS: [&str; 3] = ["mcp", "--project", "kapi.yaml"];

/// Every file under `dir` outside `.kapi/` (the store records each run), with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".kapi" {
                continue;
            }
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_dir() {
                walk(base, &path, out);
            } else if kind.is_file() {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn host<'a>(run: &'a Value, id: &str) -> &'a Value {
    run["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == id)
        .unwrap_or_else(|| panic!("no {id} in {run}"))
}

fn json_file(kapi: &Kapi, rel: &str) -> Value {
    serde_json::from_str(&kapi.read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn with_docs() -> Kapi {
    let kapi = Kapi::empty();
    kapi.write("docs/guide.md", "# Guide\n\nThe tool is fast.\n");
    kapi
}

/// The MCP entry of every host, by file.
fn entries(kapi: &Kapi) -> Vec<(&'static str, Value)> {
    vec![
        (
            ".mcp.json",
            json_file(kapi, ".mcp.json")["mcpServers"]["kapi"].clone(),
        ),
        (
            ".cursor/mcp.json",
            json_file(kapi, ".cursor/mcp.json")["mcpServers"]["kapi"].clone(),
        ),
        (
            ".vscode/mcp.json",
            json_file(kapi, ".vscode/mcp.json")["servers"]["kapi"].clone(),
        ),
        (
            ".kiki/mcp.json",
            json_file(kapi, ".kiki/mcp.json")["mcpServers"]["kapi"].clone(),
        ),
        (
            ".kkss/assistant/mcp.json",
            json_file(kapi, ".kkss/assistant/mcp.json")["servers"][0].clone(),
        ),
    ]
}

#[test]
fn default_wires_claude_code_and_each_host_whose_folder_the_project_keeps() {
    let kapi = with_docs();
    std::fs::create_dir_all(kapi.path().join(".cursor")).unwrap();
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    let hosts: Vec<&str> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["claude-code", "cursor"]);
    assert!(kapi.path().join(".mcp.json").is_file());
    assert!(kapi.path().join(".cursor/mcp.json").is_file());
    assert!(!kapi.path().join(".vscode").exists());
    assert!(!kapi.path().join(".codex").exists());

    let none = with_docs();
    let run = none.run(&["init", "--agents", "none", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["agents"], json!([]));
    assert!(!none.path().join(".mcp.json").exists());
}

/// Property 1: every path is under the project root; nothing in the home directory.
#[test]
fn every_path_is_under_the_project_root() {
    let home = tempfile::tempdir().unwrap();
    let kapi = with_docs().env("HOME", &home.path().display().to_string());
    let run = kapi.run(&["init", "--agents", "all", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    for h in report["agents"].as_array().unwrap() {
        for file in h["written"].as_array().into_iter().flatten() {
            let file = file.as_str().unwrap();
            assert!(!Path::new(file).is_absolute(), "{file}");
            assert!(!file.split('/').any(|p| p == ".."), "{file}");
            assert!(kapi.path().join(file).is_file(), "{file}");
        }
    }
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

/// Property 2: a command and nothing else (no shell, no environment values, no credential);
/// `--tools writing,translation` only when the recipe declares target languages.
#[test]
fn an_entry_is_a_command_and_nothing_else() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    for (file, entry) in entries(&kapi) {
        let obj = entry
            .as_object()
            .unwrap_or_else(|| panic!("{file}: {entry}"));
        assert_eq!(obj["command"], "kapi", "{file}");
        assert_eq!(obj["args"], json!(PLAIN_ARGS), "{file}");
        for key in obj.keys() {
            assert!(
                ["command", "args", "type", "id"].contains(&key.as_str()),
                "{file}: {key}"
            );
        }
    }
    let codex = kapi.read(".codex/config.toml");
    assert!(!codex.contains("env ="), "{codex}");
    assert!(
        codex.contains("env_vars = [\"KAPI_PROJECT\", \"KAPI_NO_PROJECT\"]"),
        "{codex}"
    );

    // Target languages: every entry asks for the translation tools.
    let recipe = kapi.read("kapi.yaml").replace(
        "  source_language: en\n",
        "  source_language: en\n  target_languages: [fr]\n",
    );
    kapi.write("kapi.yaml", recipe);
    let run = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let with_tools = json!([
        "mcp",
        "--project",
        "kapi.yaml",
        "--tools",
        "writing,translation"
    ]);
    for (file, entry) in entries(&kapi) {
        assert_eq!(entry["args"], with_tools, "{file}");
    }
    assert!(kapi.read(".codex/config.toml").contains(
        "args = [\"mcp\", \"--project\", \"kapi.yaml\", \"--tools\", \"writing,translation\"]"
    ));
}

/// Property 3: the entry names the project, relatively.
#[test]
fn the_entry_names_the_project_relatively() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let root = kapi.path().canonicalize().unwrap().display().to_string();
    let raw = kapi.path().display().to_string();
    for (file, bytes) in snapshot(kapi.path()) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&root) && !text.contains(&raw),
            "{file}: {text}"
        );
    }
    for (file, entry) in entries(&kapi) {
        let args = entry["args"].as_array().unwrap();
        let at = args.iter().position(|a| a == "--project").unwrap();
        assert_eq!(args[at + 1], "kapi.yaml", "{file}");
    }
}

/// Property 4: an entry called `kapi` someone else wrote is read and left alone; one that
/// differs only in `--tools` is kapi's own and follows the recipe. Other keys survive.
#[test]
fn an_entry_someone_else_wrote_is_left_alone() {
    let kapi = with_docs();
    let theirs = "{\n  \"mcpServers\": {\n    \"kapi\": {\"command\": \"npx\", \"args\": [\"kapi-fork\"]}\n  }\n}\n";
    kapi.write(".mcp.json", theirs);
    let ours_with_old_tools = json!({
        "other": 1,
        "mcpServers": {
            "db": {"command": "db-server"},
            "kapi": {"command": "kapi", "args": ["mcp", "--project", "kapi.yaml", "--tools", "writing,translation"]}
        }
    });
    kapi.write(".cursor/mcp.json", ours_with_old_tools.to_string());
    let codex = "[mcp_servers.kapi]\ncommand = \"/opt/kapi\" # mine\nargs = [\"mcp\"]\n";
    kapi.write(".codex/config.toml", codex);
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    assert_eq!(kapi.read(".mcp.json"), theirs);
    assert_eq!(host(&report, "claude-code")["kept_entry"], ".mcp.json");
    assert_eq!(kapi.read(".codex/config.toml"), codex);
    assert_eq!(host(&report, "codex")["kept_entry"], ".codex/config.toml");
    // kapi's own entry follows the recipe (no target languages: no --tools); the rest stays.
    let cursor = json_file(&kapi, ".cursor/mcp.json");
    assert_eq!(cursor["mcpServers"]["kapi"]["args"], json!(PLAIN_ARGS));
    assert_eq!(cursor["other"], 1);
    assert_eq!(cursor["mcpServers"]["db"], json!({"command": "db-server"}));
    assert!(host(&report, "cursor").get("kept_entry").is_none());
    // The human output names the entry it kept.
    let run = kapi.run(&["init"]);
    assert!(
        run.stdout.contains("kept the `kapi` entry in .mcp.json"),
        "{}",
        run.transcript()
    );
}

/// The hook file of each host that runs hooks.
const HOOK_FILES: [(&str, &str); 12] = [
    ("claude-code", ".claude/settings.json"),
    ("codex", ".codex/hooks.json"),
    ("kkss", ".kkss/assistant/hooks.json"),
    ("kiki", ".kiki/hooks.toml"),
    ("opencode", ".opencode/plugins/kapi.js"),
    ("qwen", ".qwen/settings.json"),
    ("gemini", ".gemini/settings.json"),
    ("cursor", ".cursor/hooks.json"),
    ("windsurf", ".windsurf/hooks.json"),
    ("factory", ".factory/hooks.json"),
    ("kilo", ".kilo/plugin/kapi.js"),
    ("kiro", ".kiro/hooks/kapi.json"),
];

#[test]
fn init_twice_changes_no_byte_the_second_time() {
    let kapi = with_docs();
    kapi.write(
        ".codex/config.toml",
        "# mine\nmodel = \"o5\"\n\n[mcp_servers.other]\ncommand = \"x\"\n",
    );
    kapi.write(".kkss/assistant/instructions.md", "Units are SI.\n");
    kapi.write(".vscode/mcp.json", "{\"inputs\": [], \"servers\": {}}");
    // Hook files the person keeps: kapi's entries join theirs.
    kapi.write(
        ".claude/settings.json",
        "{\"model\": \"opus\", \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./guard.sh\"}]}]}}",
    );
    kapi.write(
        ".kkss/assistant/hooks.json",
        "{\"hooks\": [{\"name\": \"audit\", \"event\": \"PostToolUse\", \"command\": \"/opt/audit.sh\"}]}",
    );
    kapi.write(
        ".kiki/hooks.toml",
        "# rules\n[hooks]\nschema_version = 2\n\n[[hooks.rules]]\nid = \"check\"\nevent = \"step.before\"\n",
    );
    let first = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(first.code, 0, "{}", first.transcript());
    let before = snapshot(kapi.path());
    for (_, file) in HOOK_FILES {
        assert!(before.contains_key(file), "{file}");
    }
    let second = kapi.run(&["init", "--agents", "all", "--json"]);
    assert_eq!(second.code, 0, "{}", second.transcript());
    assert_eq!(snapshot(kapi.path()), before);
    for h in second.json()["agents"].as_array().unwrap() {
        assert_eq!(h["status"], "unchanged", "{h}");
    }
}

/// Bad input: a malformed file is refused for its host with the file and position; the other
/// hosts are wired; nothing is half-written.
#[test]
fn a_malformed_file_refuses_only_its_host() {
    let kapi = with_docs();
    // A trailing comma is JSONC, read like VS Code reads it; a bracket that closes nothing is not.
    let broken_json = "{\n  \"mcpServers\": {\n    \"x\": 1,\n  ]\n}\n";
    kapi.write(".mcp.json", broken_json);
    let broken_toml = "model = \"o5\"\n[mcp_servers\n";
    kapi.write(".codex/config.toml", broken_toml);
    kapi.write(".cursor/.keep", "");
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    let claude = host(&report, "claude-code");
    assert_eq!(claude["status"], "refused");
    let error = claude["error"].as_str().unwrap();
    assert!(error.starts_with(".mcp.json: line 4, column 3"), "{error}");
    let codex = host(&report, "codex");
    assert_eq!(codex["status"], "refused");
    let error = codex["error"].as_str().unwrap();
    assert!(
        error.starts_with(".codex/config.toml: line 2, column"),
        "{error}"
    );
    assert_eq!(kapi.read(".mcp.json"), broken_json);
    assert_eq!(kapi.read(".codex/config.toml"), broken_toml);
    assert_eq!(host(&report, "cursor")["status"], "wired");
    assert!(kapi.path().join(".cursor/mcp.json").is_file());
    // The human output says which file and where.
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("refused claude-code: .mcp.json: line 4, column 3"),
        "{}",
        run.transcript()
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_host_folder_is_refused() {
    let kapi = with_docs();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), kapi.path().join(".cursor")).unwrap();
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    let cursor = host(&report, "cursor");
    assert_eq!(cursor["status"], "refused");
    assert!(
        cursor["error"]
            .as_str()
            .unwrap()
            .contains(".cursor is a symlink")
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert_eq!(host(&report, "claude-code")["status"], "wired");
}

#[test]
fn an_unknown_host_is_a_usage_error() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "cursor,emacs"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("`emacs` is not an agent host"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("claude-code, cursor, vscode, codex, agents, kkss, kiki"),
        "{}",
        run.stderr
    );
    assert!(!kapi.path().join("kapi.yaml").exists());
}

/// Windsurf's Cascade, Cline and Goose read MCP servers from the person's own settings only:
/// no MCP file is written for them, and the entry to paste is printed with the recipe's
/// absolute path (they start a server from their own folder); a second run says the server is
/// still the person's to add.
#[test]
fn a_host_without_a_project_mcp_file_prints_the_entry_to_paste() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "windsurf,cline,goose"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    // The harness writes the project's root as `[ROOT]`.
    let recipe = "[ROOT]/kapi.yaml";
    let entry = serde_json::to_string(
        &json!({"kapi": {"command": "kapi", "args": ["mcp", "--project", recipe]}}),
    )
    .unwrap();
    for needle in [
        format!(
            "next (windsurf): Windsurf's Cascade reads MCP servers from your own ~/.codeium/windsurf/mcp_config.json only: add {entry}"
        ),
        format!(
            "next (cline): Cline reads MCP servers from your own settings only: Cline panel ▸ MCP Servers ▸ Configure ▸ Configure MCP Servers, then add {entry}"
        ),
        format!(
            "`goose configure` ▸ Add Extension ▸ Command-line Extension, command `kapi mcp --project {recipe}`"
        ),
    ] {
        assert!(
            run.stdout.contains(&needle),
            "{needle}\n{}",
            run.transcript()
        );
    }
    assert!(kapi.path().join(".windsurf/hooks.json").is_file());
    assert!(!kapi.path().join(".mcp.json").exists());
    let again = kapi.run(&["init", "--agents", "windsurf,cline,goose"]);
    assert!(
        again
            .stdout
            .contains("cline (already wired; its MCP server is yours to add: see next)"),
        "{}",
        again.transcript()
    );
}

/// After wiring, each host's remaining step is printed: kapi can never take it.
#[test]
fn init_prints_the_step_a_person_still_takes_per_host() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    for needle in [
        "next (claude-code): start Claude Code in the project and approve the project MCP server `kapi`",
        "next (codex): trust the project in Codex",
        "next (kkss): trust the project folder in KKSS",
        "next (kkss): in Assistant extensions ▸ kapi ▸ Tools, mark kapi's read-only tools Read-only",
        "next (kiki): trust the workspace in Kiki",
        "next (claude-code): accept Claude Code's workspace-trust dialog: kapi's hooks in .claude/settings.json run only in a trusted workspace",
        "next (codex): trust the project in Codex: it reads .codex/config.toml and .codex/hooks.json only for a trusted project",
        "`[features] codex_hooks = true`",
        "next (kkss): keep `kapi` on the PATH KKSS starts hooks with: a PreToolUse hook that cannot start denies the call (or remove `kapi-pre-edit` from .kkss/assistant/hooks.json)",
        "next (kiki): trust the workspace in Kiki: .kiki/mcp.json and .kiki/hooks.toml are active only in a trusted workspace",
    ] {
        assert!(
            run.stdout.contains(needle),
            "{needle}\n{}",
            run.transcript()
        );
    }
}

/// `--json` names each hook file in `written`; each holds kapi's three hooks for its host.
#[test]
fn init_writes_the_hooks_of_every_host_that_runs_them() {
    let kapi = with_docs();
    let run = kapi.run(&["init", "--agents", "all", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    for (id, file) in HOOK_FILES {
        let written = host(&report, id)["written"].as_array().unwrap();
        assert!(written.iter().any(|w| w == file), "{id}: {written:?}");
    }
    for id in [
        "vscode", "agents", "zed", "junie", "amp", "roo", "cline", "goose",
    ] {
        let written = host(&report, id)["written"].as_array().cloned();
        for w in written.into_iter().flatten() {
            assert!(!w.as_str().unwrap().contains("hooks"), "{id}: {w}");
        }
    }
    for (file, host_id, matcher) in [
        (
            ".claude/settings.json",
            "claude-code",
            "Edit|Write|MultiEdit",
        ),
        (".codex/hooks.json", "codex", "apply_patch|Edit|Write|Bash"),
    ] {
        let hooks = &json_file(&kapi, file)["hooks"];
        for (event, hook, timeout) in [
            ("PreToolUse", "pre-edit", 30),
            ("PostToolUse", "post-edit", 120),
            ("Stop", "stop", 300),
        ] {
            let group = &hooks[event][0];
            assert_eq!(
                group["hooks"][0],
                json!({"type": "command", "command": format!("command -v kapi >/dev/null 2>&1 || exit 0; kapi hook {hook} --host {host_id}"), "timeout": timeout}),
                "{file}"
            );
            if event == "Stop" {
                assert!(group.get("matcher").is_none(), "{file}");
            } else {
                assert_eq!(group["matcher"], matcher, "{file}");
            }
        }
    }
    let kkss = json_file(&kapi, ".kkss/assistant/hooks.json");
    let names: Vec<&str> = kkss["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["kapi-pre-edit", "kapi-post-edit", "kapi-turn-end"]);
    assert_eq!(
        kkss["hooks"][2]["args"],
        json!(["hook", "stop", "--host", "kkss"])
    );
    let kiki = kapi.read(".kiki/hooks.toml");
    assert_eq!(kiki.matches("[[hooks]]").count(), 3, "{kiki}");
    assert!(
        kiki.contains("command = \"command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host kiki\"\ntimeout = 10\n"),
        "{kiki}"
    );
    // The plugin bundle's hooks are the ones init writes for Claude Code.
    let bundle: Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::testdata().join("../packages/kapi-claude-plugin/hooks/hooks.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        bundle["hooks"],
        json_file(&kapi, ".claude/settings.json")["hooks"]
    );
}

/// A hook entry that runs kapi but differs from kapi's is the person's: kept and named.
#[test]
fn a_hook_entry_someone_changed_is_left_alone() {
    let kapi = with_docs();
    let theirs = "{\"hooks\": [{\"name\": \"kapi-pre-edit\", \"event\": \"PreToolUse\", \"match\": \"cad__save_*\", \"command\": \"kapi\", \"args\": [\"hook\", \"pre-edit\", \"--host\", \"kkss\"]}]}";
    kapi.write(".kkss/assistant/hooks.json", theirs);
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let kkss = host(&run.json(), "kkss").clone();
    let warnings = kkss["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("kept the hook `kapi-pre-edit`")),
        "{kkss}"
    );
    let hooks = json_file(&kapi, ".kkss/assistant/hooks.json")["hooks"].clone();
    assert_eq!(hooks.as_array().unwrap().len(), 3);
    assert_eq!(hooks[0]["match"], "cad__save_*");
    let run = kapi.run(&["init"]);
    assert!(
        run.stdout
            .contains("warning: .kkss/assistant/hooks.json: kept the hook `kapi-pre-edit`"),
        "{}",
        run.transcript()
    );
}

/// A malformed hook file refuses its host: the file, line and column, how to fix it; nothing
/// of that host written (its MCP entry and skill neither); the other hosts wired.
#[test]
fn a_malformed_hook_file_refuses_only_its_host() {
    let kapi = with_docs();
    let cases = [
        (
            "claude-code",
            ".claude/settings.json",
            "{\n  \"model\": \"opus\",\n  \"hooks\": [\"no\"]\n}\n",
            ".claude/settings.json: line 3, column 12: `hooks` is not an object",
            ".mcp.json",
        ),
        (
            "codex",
            ".codex/hooks.json",
            "{\"hooks\": {\n}\n",
            ".codex/hooks.json: line 1, column 1: not valid JSON (the object that opens here is never closed)",
            ".codex/config.toml",
        ),
        (
            "kkss",
            ".kkss/assistant/hooks.json",
            "[]",
            ".kkss/assistant/hooks.json: line 1, column 1: the top level is not a JSON object",
            ".kkss/assistant/mcp.json",
        ),
        (
            "kiki",
            ".kiki/hooks.toml",
            "# off for now\nhooks = \"off\"\n",
            ".kiki/hooks.toml: line 2, column 9: `hooks` is neither",
            ".kiki/mcp.json",
        ),
    ];
    for (_, file, text, _, _) in &cases {
        kapi.write(file, text);
    }
    kapi.write(".vscode/.keep", "");
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    for (id, file, text, error, mcp) in &cases {
        let h = host(&report, id);
        assert_eq!(h["status"], "refused", "{h}");
        let message = h["error"].as_str().unwrap();
        assert!(message.starts_with(error), "{message}");
        assert!(
            message.ends_with("fix it and run `kapi init` again"),
            "{message}"
        );
        assert_eq!(kapi.read(file), *text);
        assert!(!kapi.path().join(mcp).exists(), "{mcp}");
    }
    assert!(!kapi.path().join(".claude/skills").exists());
    assert!(!kapi.path().join(".agents").exists());
    assert!(!kapi.path().join(".kkss/assistant/skills").exists());
    assert_eq!(host(&report, "vscode")["status"], "wired");
    assert!(kapi.path().join(".vscode/mcp.json").is_file());
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("refused kiki: .kiki/hooks.toml: line 2, column 9"),
        "{}",
        run.transcript()
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_hook_file_is_refused() {
    let kapi = with_docs();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("settings.json");
    std::fs::write(&target, "{}").unwrap();
    std::fs::create_dir_all(kapi.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&target, kapi.path().join(".claude/settings.json")).unwrap();
    std::fs::create_dir_all(kapi.path().join(".kiki")).unwrap();
    std::os::unix::fs::symlink(&target, kapi.path().join(".kiki/hooks.toml")).unwrap();
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    for (id, file) in [
        ("claude-code", ".claude/settings.json"),
        ("kiki", ".kiki/hooks.toml"),
    ] {
        let h = host(&report, id);
        assert_eq!(h["status"], "refused", "{h}");
        assert!(
            h["error"]
                .as_str()
                .unwrap()
                .contains(&format!("{file} is a symlink")),
            "{h}"
        );
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
    assert!(!kapi.path().join(".mcp.json").exists());
    assert!(!kapi.path().join(".kiki/mcp.json").exists());
}

/// A file the person made read-only is not replaced: its host is refused with the file named,
/// nothing of it written; the other hosts are wired.
#[cfg(unix)]
#[test]
fn a_read_only_file_refuses_its_host_and_nothing_is_half_written() {
    use std::os::unix::fs::PermissionsExt;
    let kapi = with_docs();
    let cursor = "{\"mcpServers\": {\"db\": {\"command\": \"db-server\"}}}";
    kapi.write(".cursor/mcp.json", cursor);
    let kiki = "[[hooks]]\nevent = \"Notification\"\ncommand = \"notify-send done\"\n";
    kapi.write(".kiki/hooks.toml", kiki);
    let read_only = std::fs::Permissions::from_mode(0o444);
    for file in [".cursor/mcp.json", ".kiki/hooks.toml"] {
        std::fs::set_permissions(kapi.path().join(file), read_only.clone()).unwrap();
    }
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    for (id, file) in [("cursor", ".cursor/mcp.json"), ("kiki", ".kiki/hooks.toml")] {
        let h = host(&report, id);
        assert_eq!(h["status"], "refused", "{h}");
        let error = h["error"].as_str().unwrap();
        assert!(
            error.starts_with(&format!("{file} is read-only")),
            "{error}"
        );
        assert!(error.contains(&format!("chmod u+w {file}")), "{error}");
    }
    assert_eq!(kapi.read(".cursor/mcp.json"), cursor);
    assert_eq!(kapi.read(".kiki/hooks.toml"), kiki);
    // Kiki's MCP entry was planned too, and not written.
    assert!(!kapi.path().join(".kiki/mcp.json").exists());
    assert_eq!(host(&report, "claude-code")["status"], "wired");
    assert!(kapi.path().join(".claude/settings.json").is_file());

    // A folder kapi cannot write in: staging fails before anything lands. (Root writes
    // anyway: then there is nothing to check.)
    let kkss = with_docs();
    kkss.write(".kkss/assistant/instructions.md", "Units are SI.\n");
    let folder = kkss.path().join(".kkss/assistant");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = folder.join(".probe");
    if std::fs::write(&probe, "").is_ok() {
        let _ = std::fs::remove_file(&probe);
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        return;
    }
    let run = kkss.run(&["init", "--json"]);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report = run.json();
    let h = host(&report, "kkss");
    assert_eq!(h["status"], "refused", "{h}");
    let error = h["error"].as_str().unwrap();
    assert!(
        error.contains("nothing of this host was written"),
        "{error}"
    );
    assert_eq!(
        kkss.read(".kkss/assistant/instructions.md"),
        "Units are SI.\n"
    );
    let left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["instructions.md"]);
    assert_eq!(host(&report, "claude-code")["status"], "wired");
}

/// The modification time of a file, to the nanosecond: a file kapi did not write keeps it.
fn mtime(kapi: &Kapi, rel: &str) -> std::time::SystemTime {
    std::fs::metadata(kapi.path().join(rel))
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// VS Code's `.vscode/mcp.json` is JSONC: a commented file with trailing commas and the
/// person's indentation (four spaces; tabs with CRLF line ends) gains kapi's entry in that
/// style, every other byte kept, and a second `kapi init` writes nothing.
#[test]
fn a_commented_vscode_file_keeps_every_byte_and_gains_kapis_entry() {
    let four = "// VS Code reads this file as JSONC: comments and trailing commas are fine.\n{\n    \"inputs\": [\n        /* asked once per session */\n        {\"type\": \"promptString\", \"id\": \"token\", \"description\": \"API token\", \"password\": true},\n    ],\n    \"servers\": {\n        // the team database\n        \"db\": {\n            \"type\": \"stdio\",\n            \"command\": \"db-server\", // pinned\n            \"args\": [\"--port\", \"5432\",],\n        },\n    },\n}\n";
    let four_kapi = "        \"kapi\": {\n            \"type\": \"stdio\",\n            \"command\": \"kapi\",\n            \"args\": [\"mcp\", \"--project\", \"kapi.yaml\"],\n        },\n";
    let tabs = "{\r\n\t\"servers\": {\r\n\t\t// mine\r\n\t\t\"db\": {\"command\": \"db-server\"}\r\n\t},\r\n\t\"inputs\": [] // none yet\r\n}";
    let tabs_kapi = "\t\t\"kapi\": {\r\n\t\t\t\"type\": \"stdio\",\r\n\t\t\t\"command\": \"kapi\",\r\n\t\t\t\"args\": [\"mcp\", \"--project\", \"kapi.yaml\"]\r\n\t\t}\r\n";
    for (theirs, after, kapis) in [
        (four, "        },\n", four_kapi),
        (tabs, "\"db-server\"}", tabs_kapi),
    ] {
        let kapi = with_docs();
        kapi.write(".vscode/mcp.json", theirs);
        let run = kapi.run(&["init", "--json"]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        let report = run.json();
        assert_eq!(host(&report, "vscode")["status"], "wired", "{report}");
        // kapi's entry after the person's last server; nothing else changed.
        let want = if theirs == tabs {
            theirs.replace(after, &format!("{after},\r\n{}", kapis.trim_end()))
        } else {
            let at = theirs.find(after).unwrap() + after.len();
            format!("{}{kapis}{}", &theirs[..at], &theirs[at..])
        };
        assert_eq!(kapi.read(".vscode/mcp.json"), want);
        let before = mtime(&kapi, ".vscode/mcp.json");
        let bytes = snapshot(kapi.path());
        let again = kapi.run(&["init", "--json"]);
        assert_eq!(again.code, 0, "{}", again.transcript());
        assert_eq!(host(&again.json(), "vscode")["status"], "unchanged");
        assert_eq!(snapshot(kapi.path()), bytes);
        assert_eq!(mtime(&kapi, ".vscode/mcp.json"), before);
    }
}

/// kapi's own entry in a commented file follows the recipe by its `args` alone: the rest of the
/// file, kapi's entry's other fields and their layout included, stays.
#[test]
fn kapis_own_entry_in_a_commented_file_changes_only_its_args() {
    let kapi = with_docs();
    let theirs = "{\n  // servers for this repo\n  \"mcpServers\": {\n    \"kapi\": {\n      \"command\": \"kapi\", // from PATH\n      \"args\": [\"mcp\", \"--project\", \"kapi.yaml\", \"--tools\", \"writing,translation\"]\n    },\n  },\n}\n";
    kapi.write(".mcp.json", theirs);
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(host(&run.json(), "claude-code").get("kept_entry").is_none());
    assert_eq!(
        kapi.read(".mcp.json"),
        theirs.replace(", \"--tools\", \"writing,translation\"", "")
    );
}

/// `.claude/settings.json` in the person's own layout (three-space indentation, comments,
/// spaces inside braces): kapi's hook groups are merged in, every byte of theirs stays, and a
/// second `kapi init` writes nothing.
#[test]
fn claude_settings_in_a_persons_layout_gain_only_kapis_hooks() {
    let kapi = with_docs();
    let theirs = "{\n   // three spaces, my own layout\n   \"model\": \"opus\",   /* the big one */\n   \"hooks\": {\n      \"PreToolUse\": [\n         { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"./guard.sh\" } ] }\n      ]\n   },\n   \"permissions\": { \"allow\": [ \"Bash(ls)\" ] }\n}\n";
    kapi.write(".claude/settings.json", theirs);
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let group = |indent: &str, matcher: Option<&str>, hook: &str, timeout: u32| {
        let i = |n: usize| format!("{indent}{}", "   ".repeat(n));
        let matcher = matcher.map_or(String::new(), |m| {
            format!("{}\"matcher\": \"{m}\",\n", i(1))
        });
        format!(
            "{}{{\n{matcher}{}\"hooks\": [\n{}{{\n{}\"type\": \"command\",\n{}\"command\": \"command -v kapi >/dev/null 2>&1 || exit 0; kapi hook {hook} --host claude-code\",\n{}\"timeout\": {timeout}\n{}}}\n{}]\n{}}}",
            i(0),
            i(1),
            i(2),
            i(3),
            i(3),
            i(3),
            i(2),
            i(1),
            i(0)
        )
    };
    let edit = Some("Edit|Write|MultiEdit");
    let want = format!(
        "{{\n   // three spaces, my own layout\n   \"model\": \"opus\",   /* the big one */\n   \"hooks\": {{\n      \"PreToolUse\": [\n         {{ \"matcher\": \"Bash\", \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./guard.sh\" }} ] }},\n{}\n      ],\n      \"PostToolUse\": [\n{}\n      ],\n      \"Stop\": [\n{}\n      ]\n   }},\n   \"permissions\": {{ \"allow\": [ \"Bash(ls)\" ] }}\n}}\n",
        group("         ", edit, "pre-edit", 30),
        group("         ", edit, "post-edit", 120),
        group("         ", None, "stop", 300),
    );
    assert_eq!(kapi.read(".claude/settings.json"), want);
    let before = mtime(&kapi, ".claude/settings.json");
    let again = kapi.run(&["init", "--json"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert_eq!(host(&again.json(), "claude-code")["status"], "unchanged");
    assert_eq!(kapi.read(".claude/settings.json"), want);
    assert_eq!(mtime(&kapi, ".claude/settings.json"), before);
}
