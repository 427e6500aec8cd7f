//! The hook entries per host: the canonical Claude Code file follows the protocol, and each
//! merge keeps the person's keys, groups, entries and bytes.

use super::*;

fn merged(m: Result<Merged, String>) -> (String, Vec<String>) {
    let m = m.unwrap();
    (m.text.expect("a change"), m.kept)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// One source of truth: the canonical file is what the code builds from
/// `Protocol::hook_command` and `timeout_secs`, key order included.
#[test]
fn the_canonical_claude_code_file_follows_the_protocol() {
    let file = json(CLAUDE_CODE_HOOKS);
    let keys: Vec<&str> = file
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["description", "hooks"]);
    assert!(file["description"].as_str().unwrap().starts_with("kapi's"));
    let built = claude_style_hooks(Protocol::ClaudeCode, CLAUDE_CODE_MATCHER);
    assert_eq!(
        serde_json::to_string(&file["hooks"]).unwrap(),
        serde_json::to_string(&built).unwrap()
    );
    for hook in HookName::ALL {
        let group = &file["hooks"][claude_event(hook)][0];
        let handler = &group["hooks"][0];
        assert_eq!(handler["type"], "command");
        assert_eq!(
            handler["command"],
            guarded_command(Protocol::ClaudeCode, hook)
        );
        assert_eq!(handler["timeout"], Protocol::ClaudeCode.timeout_secs(hook));
        assert_eq!(group.get("matcher").is_some(), hook != HookName::Stop);
    }
    // The pretty text a person reads, ending in a newline.
    let mut pretty = serde_json::to_string_pretty(&file).unwrap();
    pretty.push('\n');
    assert_eq!(pretty, CLAUDE_CODE_HOOKS);
}

#[test]
fn the_plugin_bundle_carries_the_canonical_file_verbatim() {
    let copy = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packages/kapi-claude-plugin/hooks/hooks.json");
    let copy = std::fs::read_to_string(copy).expect("run `make plugin-bundle`");
    assert!(
        copy == CLAUDE_CODE_HOOKS,
        "packages/kapi-claude-plugin/hooks/hooks.json differs from host/hooks/claude-code.json: run `make plugin-bundle`"
    );
}

#[test]
fn claude_code_keeps_every_setting_and_group_in_order() {
    let theirs = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}"#;
    let (text, kept) = merged(merge_claude_code(CLAUDE_CODE_FILE, Some(theirs)));
    assert!(kept.is_empty());
    let doc = json(&text);
    let top: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["model", "hooks", "permissions"]);
    let events: Vec<&str> = doc["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        events,
        ["PreToolUse", "Notification", "PostToolUse", "Stop"]
    );
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(
        pre[1]["hooks"][0]["command"],
        "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host claude-code"
    );
    assert_eq!(doc["permissions"], json(r#"{"allow": ["Bash(ls)"]}"#));
    // Again: nothing to write.
    let again = merge_claude_code(CLAUDE_CODE_FILE, Some(&text)).unwrap();
    assert_eq!(again.text, None);
    // A new file holds only the hooks.
    let (fresh, _) = merged(merge_claude_code(CLAUDE_CODE_FILE, None));
    assert_eq!(
        json(&fresh),
        json!({"hooks": json(CLAUDE_CODE_HOOKS)["hooks"]})
    );
}

/// Comments, trailing commas and the person's layout stay: kapi's groups join in their
/// indentation, and nothing else moves.
#[test]
fn claude_code_settings_in_jsonc_keep_every_byte() {
    let theirs = "{\n\t// mine\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}, /* ping */\n\t\t],\n\t},\n}\n";
    let (text, kept) = merged(merge_claude_code(CLAUDE_CODE_FILE, Some(theirs)));
    assert!(kept.is_empty());
    let stop = "\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"command -v kapi >/dev/null 2>&1 || exit 0; kapi hook stop --host claude-code\",\n\t\t\t\t\t\t\"timeout\": 300,\n\t\t\t\t\t},\n\t\t\t\t],\n\t\t\t},\n";
    assert!(
            text.starts_with(&format!(
                "{{\n\t// mine\n\t\"hooks\": {{\n\t\t\"Stop\": [\n\t\t\t{{\"hooks\": [{{\"type\": \"command\", \"command\": \"notify\"}}]}}, /* ping */\n{stop}\t\t],\n\t\t\"PreToolUse\": [\n"
            )),
            "{text}"
        );
    assert!(text.ends_with("\t\t],\n\t},\n}\n"), "{text}");
    assert_eq!(
        merge_claude_code(CLAUDE_CODE_FILE, Some(&text))
            .unwrap()
            .text,
        None
    );
}

#[test]
fn kkss_hooks_in_jsonc_keep_every_byte() {
    let theirs = "{\"hooks\": [ // the lab's\n  {\"name\": \"audit\", \"event\": \"PostToolUse\", \"command\": \"/opt/audit.sh\"},\n]}";
    let (text, _) = merged(merge_kkss(KKSS_FILE, Some(theirs)));
    assert!(
            text.starts_with("{\"hooks\": [ // the lab's\n  {\"name\": \"audit\", \"event\": \"PostToolUse\", \"command\": \"/opt/audit.sh\"},\n"),
            "{text}"
        );
    assert!(text.ends_with("},\n]}"), "{text}");
    assert_eq!(text.matches("\"name\": \"kapi-").count(), 3, "{text}");
    assert_eq!(merge_kkss(KKSS_FILE, Some(&text)).unwrap().text, None);
}

#[test]
fn a_claude_style_kapi_hook_that_differs_is_the_persons() {
    let theirs = r#"{"hooks": {"PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "kapi hook post-edit --host claude-code", "timeout": 60}]}
        ]}}"#;
    let (text, kept) = merged(merge_claude_code(CLAUDE_CODE_FILE, Some(theirs)));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].contains("PostToolUse") && kept[0].contains("kapi hook post-edit"));
    let doc = json(&text);
    let post = doc["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 1);
    assert_eq!(post[0]["hooks"][0]["timeout"], 60);
    assert_eq!(doc["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
    assert_eq!(doc["hooks"]["Stop"].as_array().unwrap().len(), 1);
    // Exec form counts too.
    let exec = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/kapi", "args": ["hook", "stop"]}]}]}}"#;
    let (text, kept) = merged(merge_codex(CODEX_FILE, Some(exec)));
    assert_eq!(kept.len(), 1);
    assert_eq!(json(&text)["hooks"]["Stop"].as_array().unwrap().len(), 1);
}

#[test]
fn codex_gets_the_claude_compatible_shape_with_its_own_tools() {
    let (text, kept) = merged(merge_codex(CODEX_FILE, None));
    assert!(kept.is_empty());
    let doc = json(&text);
    for hook in HookName::ALL {
        let group = &doc["hooks"][claude_event(hook)][0];
        if hook == HookName::Stop {
            assert!(group.get("matcher").is_none());
        } else {
            assert_eq!(group["matcher"], "apply_patch|Edit|Write|Bash");
        }
        assert_eq!(
            group["hooks"][0],
            json!({
                "type": "command",
                "command": format!(
                    "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook {} --host codex",
                    hook.id()
                ),
                "timeout": Protocol::Codex.timeout_secs(hook),
            })
        );
    }
    assert_eq!(merge_codex(CODEX_FILE, Some(&text)).unwrap().text, None);
}

#[test]
fn the_groups_an_earlier_kapi_wrote_for_codex_take_the_matcher_of_now() {
    let (now, _) = merged(merge_codex(CODEX_FILE, None));
    // Its matcher then, and its command before kapi guarded it.
    let then = now
        .replace("apply_patch|Edit|Write|Bash", "apply_patch|Edit|Write")
        .replace(GUARD, "");
    assert_ne!(then, now);
    let (text, kept) = merged(merge_codex(CODEX_FILE, Some(&then)));
    assert!(
        kept.is_empty(),
        "an earlier kapi's group is not the person's: {kept:?}"
    );
    let doc = json(&text);
    for hook in HookName::ALL.into_iter().filter(|h| *h != HookName::Stop) {
        let groups = doc["hooks"][claude_event(hook)].as_array().unwrap();
        assert_eq!(groups.len(), 1, "replaced, not added: {text}");
        assert_eq!(groups[0]["matcher"], "apply_patch|Edit|Write|Bash");
    }
    assert_eq!(
        doc["hooks"]["Stop"][0]["hooks"][0]["command"],
        guarded_command(Protocol::Codex, HookName::Stop)
    );
    // And Claude Code's, written before the guard.
    let (now, _) = merged(merge_claude_code(CLAUDE_CODE_FILE, None));
    let then = now.replace(GUARD, "");
    let (text, kept) = merged(merge_claude_code(CLAUDE_CODE_FILE, Some(&then)));
    assert!(kept.is_empty(), "{kept:?}");
    assert_eq!(json(&text), json(&now));
}

/// KKSS's rules for a hooks.json entry (host document, "Lifecycle hooks").
fn assert_kkss_valid(doc: &Value) {
    let entries = doc["hooks"].as_array().unwrap();
    let mut names = std::collections::BTreeSet::new();
    for e in entries {
        let name = e["name"].as_str().unwrap();
        assert!(
            name.len() <= 32
                && name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{name}"
        );
        assert!(names.insert(name), "duplicate {name}");
        let event = e["event"].as_str().unwrap();
        assert!(
            ["PreToolUse", "PostToolUse", "UserPromptSubmit", "TurnEnd"].contains(&event),
            "{event}"
        );
        let tool_event = event == "PreToolUse" || event == "PostToolUse";
        assert!(e.get("match").is_none() || tool_event, "{e}");
        assert!(
            e.get("modelOutput").is_none() || event == "PostToolUse",
            "{e}"
        );
        if let Some(t) = e.get("timeoutMs") {
            let t = t.as_u64().unwrap();
            assert!((100..=60_000).contains(&t), "{e}");
        }
        // Run directly, no shell: a program and its arguments, nothing to expand.
        let command = e["command"].as_str().unwrap();
        assert!(!command.contains(' ') && !command.contains('$'), "{e}");
        for k in e.as_object().unwrap().keys() {
            assert!(
                [
                    "name",
                    "event",
                    "match",
                    "command",
                    "args",
                    "timeoutMs",
                    "modelOutput"
                ]
                .contains(&k.as_str()),
                "{k}"
            );
        }
    }
}

#[test]
fn kkss_appends_kapis_entries_after_the_persons() {
    let (fresh, _) = merged(merge_kkss(KKSS_FILE, None));
    let doc = json(&fresh);
    assert_kkss_valid(&doc);
    assert_eq!(
        doc["hooks"],
        json!([
            {"name":"kapi-pre-edit","event":"PreToolUse","match":"*__write_file","command":"kapi","args":["hook","pre-edit","--host","kkss"],"timeoutMs":10000},
            {"name":"kapi-post-edit","event":"PostToolUse","match":"*__write_file","command":"kapi","args":["hook","post-edit","--host","kkss"],"timeoutMs":30000,"modelOutput":true},
            {"name":"kapi-turn-end","event":"TurnEnd","command":"kapi","args":["hook","stop","--host","kkss"],"timeoutMs":60000}
        ])
    );
    let theirs = r#"{"hooks": [
  {"name": "audit", "event": "PostToolUse", "command": "/opt/lab/audit.sh", "timeoutMs": 5000},
  {"name": "kapi-pre-edit", "event": "PreToolUse", "match": "cad__save_*", "command": "kapi", "args": ["hook", "pre-edit", "--host", "kkss"], "timeoutMs": 10000}
], "other": true}"#;
    let (text, kept) = merged(merge_kkss(KKSS_FILE, Some(theirs)));
    let doc = json(&text);
    assert_kkss_valid(&doc);
    let names: Vec<&str> = doc["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["audit", "kapi-pre-edit", "kapi-post-edit", "kapi-turn-end"]
    );
    assert_eq!(doc["hooks"][1]["match"], "cad__save_*");
    assert_eq!(doc["other"], true);
    assert_eq!(kept.len(), 1);
    assert!(kept[0].contains("`kapi-pre-edit`"), "{kept:?}");
    let again = merge_kkss(KKSS_FILE, Some(&text)).unwrap();
    assert_eq!(again.text, None);
    assert_eq!(again.kept.len(), 1);
}

/// Kiki's rules for a legacy hook (host document, "Legacy command hooks").
fn assert_kiki_valid(text: &str) {
    const EVENTS: &[&str] = &[
        "UserPromptSubmit",
        "UserPromptQueued",
        "PreToolUse",
        "Stop",
        "TurnStarted",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "PermissionResult",
        "SessionStart",
        "SessionEnd",
        "SessionHeartbeat",
        "SubagentStart",
        "SubagentStop",
        "TaskStarted",
        "StopFailure",
        "Interrupt",
        "PreCompact",
        "PostCompact",
        "Notification",
    ];
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let hooks = &doc["hooks"];
    let list = if let Some(list) = hooks.as_array_of_tables() {
        list
    } else {
        // A v2 document: the legacy commands under [[hooks.legacy]], never a [[hooks]] too.
        let table = hooks.as_table().unwrap();
        table["legacy"].as_array_of_tables().unwrap()
    };
    for t in list {
        for (k, _) in t.iter() {
            assert!(
                ["event", "matcher", "command", "timeout"].contains(&k),
                "{k}"
            );
        }
        assert!(EVENTS.contains(&t["event"].as_str().unwrap()));
        assert!(t["command"].as_str().is_some());
        if let Some(timeout) = t.get("timeout") {
            assert!((1..=600).contains(&timeout.as_integer().unwrap()));
        }
        let kapis = t["command"].as_str().unwrap().contains("kapi hook");
        if let Some(m) = t.get("matcher").filter(|_| kapis) {
            // kapi's: a plain alternation of tool names, anchored (`^(A|B)$`), a regex
            // in every dialect.
            let m = m.as_str().unwrap();
            let inner = m.strip_prefix("^(").and_then(|m| m.strip_suffix(")$"));
            let inner = inner.unwrap_or(m);
            assert!(
                inner
                    .split('|')
                    .all(|n| !n.is_empty()
                        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
                "{m}"
            );
        }
    }
}

const KIKI_V1: &str = r#"[[hooks]]
event = "PreToolUse"
matcher = "^(Write|Edit)$"
command = "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host kiki"
timeout = 10

[[hooks]]
event = "PostToolUse"
matcher = "^(Write|Edit)$"
command = "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook post-edit --host kiki"
timeout = 60

[[hooks]]
event = "Stop"
command = "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook stop --host kiki"
timeout = 120
"#;

#[test]
fn kiki_writes_legacy_hooks_in_a_new_file() {
    let (text, kept) = merged(merge_kiki(KIKI_FILE, None));
    assert!(kept.is_empty());
    assert_eq!(text, KIKI_V1);
    assert_kiki_valid(&text);
    assert_eq!(merge_kiki(KIKI_FILE, Some(&text)).unwrap().text, None);
}

#[test]
fn kiki_appends_to_the_persons_legacy_hooks_keeping_comments() {
    let theirs = "# my hooks\n[[hooks]]\nevent = \"Notification\"  # when done\nmatcher = \"task\\\\.completed\"\ncommand = \"notify-send done\"\n";
    let (text, kept) = merged(merge_kiki(KIKI_FILE, Some(theirs)));
    assert!(kept.is_empty());
    assert_eq!(text, format!("{theirs}\n{KIKI_V1}"));
    assert_kiki_valid(&text);
    assert_eq!(merge_kiki(KIKI_FILE, Some(&text)).unwrap().text, None);
}

#[test]
fn kiki_v2_gets_hooks_legacy() {
    let theirs = "# rules\n[hooks]\nschema_version = 2\n\n[[hooks.rules]]\nid = \"evidence-check\"\nevent = \"step.before\"\n\n[hooks.rules.action]\ntype = \"inject\"\ntext = \"Check.\"\n";
    let (text, kept) = merged(merge_kiki(KIKI_FILE, Some(theirs)));
    assert!(kept.is_empty());
    assert!(text.starts_with(theirs), "{text}");
    assert!(!text.contains("[[hooks]]"), "{text}");
    assert_eq!(text.matches("[[hooks.legacy]]").count(), 3, "{text}");
    assert_kiki_valid(&text);
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    assert_eq!(doc["hooks"]["schema_version"].as_integer(), Some(2));
    assert_eq!(doc["hooks"]["rules"].as_array_of_tables().unwrap().len(), 1);
    assert_eq!(merge_kiki(KIKI_FILE, Some(&text)).unwrap().text, None);
}

#[test]
fn a_kiki_kapi_hook_that_differs_is_the_persons() {
    let theirs =
        "[[hooks]]\nevent = \"Stop\"\ncommand = \"kapi hook stop --host kiki\"\ntimeout = 30\n";
    let (text, kept) = merged(merge_kiki(KIKI_FILE, Some(theirs)));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].contains("kapi hook stop --host kiki"));
    assert!(text.starts_with(theirs));
    assert_eq!(text.matches("hook stop").count(), 1, "{text}");
    assert_eq!(text.matches("[[hooks]]").count(), 3, "{text}");
    assert_kiki_valid(&text);
}

#[test]
fn a_file_kapi_cannot_read_is_refused_with_line_and_column() {
    let cases: &[(&str, Merge, &str, &str)] = &[
        (
            CLAUDE_CODE_FILE,
            merge_claude_code,
            "{\n  \"hooks\": {,\n}",
            "line 2, column 13: not valid JSON",
        ),
        (
            CLAUDE_CODE_FILE,
            merge_claude_code,
            "\n  [1, 2]\n",
            "line 2, column 3: the top level is not a JSON object",
        ),
        (
            CLAUDE_CODE_FILE,
            merge_claude_code,
            "{\"model\": \"x\",\n \"hooks\": [\"no\"]}",
            "line 2, column 11: `hooks` is not an object",
        ),
        (
            CODEX_FILE,
            merge_codex,
            "{\"hooks\": {\n  \"Stop\": {\"hooks\": []}}}",
            "line 2, column 11: `hooks.Stop` is not a list",
        ),
        (
            KKSS_FILE,
            merge_kkss,
            "{\"hooks\": {\"name\": \"x\"}}",
            "line 1, column 11: `hooks` is not a list",
        ),
        (
            KIKI_FILE,
            merge_kiki,
            "[[hooks]]\nevent = \n",
            "line 2, column",
        ),
        (
            KIKI_FILE,
            merge_kiki,
            "# x\nhooks = \"off\"\n",
            "line 2, column 9: `hooks` is neither",
        ),
        (
            KIKI_FILE,
            merge_kiki,
            "[hooks]\nschema_version = 2\nlegacy = 3\n",
            "line 3, column 10: `hooks.legacy` is not a list",
        ),
    ];
    for (rel, merge, text, want) in cases {
        let err = merge(rel, Some(text)).unwrap_err();
        assert!(err.starts_with(&format!("{rel}: {want}")), "{err}");
        assert!(err.ends_with("fix it and run `kapi init` again"), "{err}");
    }
}

#[test]
fn json_position_finds_a_nested_value() {
    let text = "{\"a\": \"}\\\"{\", \"b\": [1, {\"c\": 2}],\n  \"hooks\": {\"Stop\": 7}}";
    assert_eq!(json_position(text, &[]), Some((1, 1)));
    assert_eq!(json_position(text, &["b"]), Some((1, 20)));
    assert_eq!(json_position(text, &["hooks", "Stop"]), Some((2, 21)));
    assert_eq!(json_position(text, &["missing"]), None);
    // Comments and trailing commas count as the text they are; a repeated key is read last.
    let jsonc = "// {\n{\"b\": 1, /* \"b\": */ \"b\": [2,],\n}";
    assert_eq!(json_position(jsonc, &[]), Some((2, 1)));
    assert_eq!(json_position(jsonc, &["b"]), Some((2, 26)));
}

#[test]
fn hooks_member_adds_a_missing_member_and_refuses_one_of_another_type() {
    let what = "`hooks` is not a list";
    let (file, list) = hooks_member(
        "h.json",
        Some("{\"a\": 1}"),
        &json!([]),
        CstNode::as_array,
        what,
    )
    .unwrap();
    assert!(list.elements().is_empty());
    assert_eq!(
        json(&file.finish("h.json").unwrap().unwrap()),
        json!({"a": 1, "hooks": []})
    );
    let (_, hooks) = hooks_member(
        "h.json",
        Some("{\"hooks\": {}, \"hooks\": {\"Stop\": []}}"),
        &json!({}),
        CstNode::as_object,
        what,
    )
    .unwrap();
    assert_eq!(
        hooks.properties().len(),
        1,
        "the last `hooks` is the one read"
    );
    let err = hooks_member(
        "h.json",
        Some("{\n  \"hooks\": 3\n}"),
        &json!([]),
        CstNode::as_array,
        what,
    )
    .map(|_| ())
    .unwrap_err();
    assert!(
        err.contains("h.json: line 2, column 12") && err.contains(what),
        "{err}"
    );
}

#[test]
fn execs_kapi_hook_reads_the_exec_form_only() {
    let hook = HookName::Stop;
    let id = hook.id();
    assert!(execs_kapi_hook(
        &json!({"command": "/usr/bin/kapi", "args": ["hook", id, "--x"]}),
        hook
    ));
    assert!(!execs_kapi_hook(
        &json!({"command": "kapi", "args": ["hook"]}),
        hook
    ));
    assert!(!execs_kapi_hook(
        &json!({"command": "other", "args": ["hook", id]}),
        hook
    ));
    assert!(!execs_kapi_hook(
        &json!({"command": format!("kapi hook {id}")}),
        hook
    ));
}

/// Cursor's `.cursor/hooks.json`: `version` 1, kapi's preToolUse on `Write`, afterFileEdit and
/// stop with kapi's own stop cap as its `loop_limit`; a person's entries and bytes stay, and a
/// kapi entry they changed is theirs.
#[test]
fn cursor_hooks_are_flat_entries_with_a_loop_limit() {
    let (text, kept) = merged(merge_cursor(CURSOR_FILE, None));
    assert!(kept.is_empty());
    let v = json(&text);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["version", "hooks"]);
    assert_eq!(v["version"], 1);
    let pre = &v["hooks"]["preToolUse"][0];
    assert_eq!(pre["matcher"], "Write");
    assert_eq!(
        pre["command"],
        "command -v kapi >/dev/null 2>&1 || exit 0; kapi hook pre-edit --host cursor"
    );
    assert_eq!(
        v["hooks"]["afterFileEdit"][0]["command"],
        guarded_command(Protocol::Cursor, HookName::PostEdit)
    );
    assert_eq!(
        v["hooks"]["stop"][0]["loop_limit"],
        crate::hooks::state::MAX_CONSECUTIVE_BLOCKS
    );
    assert!(
        merge_cursor(CURSOR_FILE, Some(&text))
            .unwrap()
            .text
            .is_none()
    );

    let theirs = "{\n  // team hooks\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{ \"command\": \"./fmt.sh\" }],\n    \"stop\": [{ \"command\": \"kapi hook stop --host cursor\" }],\n  },\n}\n";
    let (text, kept) = merged(merge_cursor(CURSOR_FILE, Some(theirs)));
    assert!(
        text.starts_with("{\n  // team hooks\n  \"version\": 1,\n"),
        "{text}"
    );
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].contains("stop"), "{kept:?}");
    let file = jsonc_parser::cst::CstRootNode::parse(&text, &Default::default()).unwrap();
    let v: Value = file.value().and_then(|v| v.to_serde_value()).unwrap();
    assert_eq!(v["hooks"]["afterFileEdit"][0]["command"], "./fmt.sh");
    assert_eq!(
        v["hooks"]["afterFileEdit"][1]["command"],
        guarded_command(Protocol::Cursor, HookName::PostEdit)
    );
    assert_eq!(v["hooks"]["stop"].as_array().unwrap().len(), 1);
    let bad = merge_cursor(CURSOR_FILE, Some("{\"hooks\": {\"stop\": {}}}")).unwrap_err();
    assert!(bad.contains("`hooks.stop` is not a list"), "{bad}");
}

/// Windsurf's Cascade: pre_write_code and post_write_code, no stop event, no matcher.
#[test]
fn windsurf_hooks_are_pre_and_post_write_code() {
    let (text, _) = merged(merge_windsurf(WINDSURF_FILE, None));
    let v = json(&text);
    let events: Vec<&str> = v["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(events, ["pre_write_code", "post_write_code"]);
    assert_eq!(
        v["hooks"]["pre_write_code"][0],
        json!({"command": guarded_command(Protocol::Windsurf, HookName::PreEdit), "show_output": true})
    );
    assert!(v.get("version").is_none());
    assert!(
        merge_windsurf(WINDSURF_FILE, Some(&text))
            .unwrap()
            .text
            .is_none()
    );
}
