//! The recipe's keys through the binary: a key kapi does not read is named on stderr once per
//! run with its position and the closest key, refused under `--strict` (exit 2), kept when
//! kapi saves the recipe; and `rules:`, the paths a rule does not apply to, read strictly.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};

use super::Kapi;

/// `mini` with `defaults.languages` (meant: `defaults.target_languages`) at line 5, column 3.
fn misspelled() -> Kapi {
    let kapi = Kapi::with_project("mini");
    let recipe = kapi.read("kapi.yaml").replace(
        "  source_language: en\n",
        "  source_language: en\n  languages: [fr, de]\n",
    );
    kapi.write("kapi.yaml", recipe);
    kapi
}

const NOTE: &str = "warning: kapi.yaml:5:3: `defaults.languages` is not a key kapi reads, so it does nothing; did you mean `defaults.target_languages`?\n";

#[test]
fn an_unknown_key_is_named_once_with_its_position_and_the_closest_key() {
    let kapi = misspelled();
    let before = Kapi::with_project("mini").run(&["check", "docs/clean.md"]);
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, before.code, "{}", run.transcript());
    assert_eq!(run.stdout, before.stdout);
    assert_eq!(run.stderr, NOTE, "{}", run.transcript());
    // Every file of the project: still once a run.
    let all = kapi.run(&["check"]);
    assert_eq!(
        all.stderr.matches("`defaults.languages`").count(),
        1,
        "{}",
        all.transcript()
    );
    // Another verb says it too.
    let context = kapi.run(&["context", "docs/clean.md"]);
    assert_eq!(context.code, 0, "{}", context.transcript());
    assert!(context.stderr.starts_with(NOTE), "{}", context.transcript());
    // From a subfolder, the recipe is named from there.
    let sub = kapi.run_in("docs", &["check", "clean.md"]);
    assert!(
        sub.stderr
            .starts_with("warning: ../kapi.yaml:5:3: `defaults.languages`"),
        "{}",
        sub.transcript()
    );
    // `--quiet` says nothing but results.
    let quiet = kapi.run(&["check", "docs/clean.md", "--quiet"]);
    assert_eq!(quiet.stderr, "", "{}", quiet.transcript());
}

#[test]
fn under_json_the_note_is_a_json_line_on_stderr() {
    let kapi = misspelled();
    let run = kapi.run(&["--json", "check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["schema"], "kapi.check/v1");
    let note: Value = serde_json::from_str(run.stderr.trim_end()).expect("one JSON line");
    assert_eq!(
        note,
        json!({"note": "kapi.yaml:5:3: `defaults.languages` is not a key kapi reads, so it does nothing; did you mean `defaults.target_languages`?"})
    );
}

#[test]
fn strict_refuses_an_unknown_key_with_exit_2() {
    let kapi = misspelled();
    let run = kapi.run(&["--strict", "check", "docs/clean.md"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(run.stdout, "");
    insta::assert_snapshot!(run.stderr, @r"
    error: kapi.yaml:5:3: `defaults.languages` is not a key kapi reads

    hint: did you mean `defaults.target_languages`?
    hint: rename or remove the key; without `--strict` kapi names it and goes on
    ");
    let json = kapi.run(&["check", "docs/clean.md", "--json", "--strict"]);
    assert_eq!(json.code, 2, "{}", json.transcript());
    let envelope = json.stderr_json();
    assert_eq!(envelope["code"], "usage");
    assert_eq!(
        envelope["error"],
        "kapi.yaml:5:3: `defaults.languages` is not a key kapi reads"
    );
    assert_eq!(
        envelope["hints"][0],
        "did you mean `defaults.target_languages`?"
    );
    // `KAPI_STRICT` says the same for every command a CI job runs; nothing is written first.
    let env = kapi.run_env(&[("KAPI_STRICT", "1")], &["context", "docs/clean.md"]);
    assert_eq!(env.code, 2, "{}", env.transcript());
    // A recipe kapi reads whole passes, and `x-` keys are the person's own.
    let clean = Kapi::with_project("mini");
    assert!(clean.read("kapi.yaml").contains("x-team: writers"));
    let run = clean.run(&["--strict", "check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.stderr, "");
}

#[test]
fn several_unknown_keys_are_each_named_and_strict_counts_the_rest() {
    let kapi = Kapi::with_project("mini");
    let recipe = kapi
        .read("kapi.yaml")
        .replace(
            "gates:\n  fail_on: major\n",
            "gates:\n  fail_on: major\n  minscore: 80\n",
        )
        .replace("collections:\n", "colections: []\ncollections:\n")
        .replace(
            "    channel: mini/docs\n",
            "    channel: mini/docs\n    format: markdown\n",
        );
    kapi.write("kapi.yaml", &recipe);
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stderr, @r"
    warning: kapi.yaml:7:1: `colections` is not a key kapi reads, so it does nothing; did you mean `collections`?
    warning: kapi.yaml:11:5: `collections[0].format` does nothing on a named collection; give each item under `content` its own `format`
    warning: kapi.yaml:27:3: `gates.minscore` is not a key kapi reads, so it does nothing; did you mean `gates.min_score`?
    ");
    let strict = kapi.run(&["--strict", "check", "docs/clean.md"]);
    assert_eq!(strict.code, 2, "{}", strict.transcript());
    assert!(
        strict
            .stderr
            .starts_with("error: kapi.yaml:7:1: `colections` is not a key kapi reads (and 2 more: `collections[0].format`, `gates.minscore`)\n"),
        "{}",
        strict.transcript()
    );
}

#[test]
fn a_saved_recipe_keeps_the_unknown_key() {
    let kapi = misspelled();
    let rules = "rules:\n  terms:\n    exclude: [\"docs/legal/**\"]\n";
    kapi.write("kapi.yaml", format!("{}{rules}", kapi.read("kapi.yaml")));
    let set = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "recipe", "field": "gates.min_score", "value": 70}
    ]});
    kapi.write("change.json", set.to_string());
    let run = kapi.run(&["apply", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stderr.starts_with(NOTE), "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("  languages: [fr, de]\n"), "{recipe}");
    assert!(recipe.contains("min_score: 70"), "{recipe}");
    assert!(recipe.ends_with(rules), "{recipe}");
}

#[test]
fn init_under_strict_writes_nothing_for_an_unknown_key() {
    let kapi = misspelled();
    let run = kapi.run(&["--strict", "init", "--no-rules-files"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(!kapi.path().join(".kapi/work").exists(), "nothing written");
    let run = kapi.run(&["init", "--no-rules-files"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stderr.starts_with(NOTE), "{}", run.transcript());
}

/// `mini` with `rules:` appended.
fn with_rules(rules: &str) -> Kapi {
    let kapi = Kapi::with_project("mini");
    let recipe = format!("{}rules:\n{rules}", kapi.read("kapi.yaml"));
    kapi.write("kapi.yaml", recipe);
    kapi
}

#[test]
fn rules_names_a_rule_or_an_analyzer_and_a_mistyped_one_is_an_error() {
    let ok = with_rules(
        "  voice.sentence-too-long:\n    exclude: [\"docs/legacy/**\", CHANGELOG.md]\n  terms:\n    exclude: docs/legal/**\n",
    );
    let run = ok.run(&["--strict", "check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.stderr, "");
    let bad = with_rules("  voice.sentence-to-long:\n    exclude: [\"docs/**\"]\n");
    let run = bad.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    insta::assert_snapshot!(run.stderr.replace("[ROOT]/", ""), @r"
    error: kapi.yaml:30:3: `voice.sentence-to-long` in `rules` is neither a rule nor an analyzer

    hint: did you mean `voice.sentence-too-long`?
    hint: `kapi help rules` lists every rule; an analyzer's name (`terms`) takes in all of its rules
    ");
    let run =
        with_rules("  hygiene:\n    exclude: [\"docs/{a\"]\n").run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("kapi.yaml:31:5: invalid glob `docs/{a` in `rules.hygiene.exclude[0]`"),
        "{}",
        run.transcript()
    );
}

#[test]
fn an_unknown_key_under_a_rule_is_named() {
    let kapi = with_rules("  terms:\n    exlude: [\"docs/legal/**\"]\n");
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "warning: kapi.yaml:31:5: `rules.terms.exlude` is not a key kapi reads, so it does nothing; did you mean `rules.terms.exclude`?\n"
    );
}

/// Claude Code's `PostToolUse` payload for an edit of `docs/clean.md` in `kapi`'s folder.
fn post_edit(kapi: &Kapi) -> String {
    let root = kapi.path().canonicalize().expect("root");
    let file = root.join("docs/clean.md").display().to_string();
    json!({
        "session_id": "cc-1", "cwd": root.display().to_string(),
        "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"},
        "tool_response": {"filePath": file, "success": true}
    })
    .to_string()
}

#[test]
fn a_hook_notes_the_unknown_key_and_keeps_its_protocol() {
    let args = ["hook", "post-edit", "--host", "claude-code"];
    let clean = Kapi::with_project("mini");
    let plain = clean.run_stdin(&args, post_edit(&clean).as_bytes());
    // Even `KAPI_STRICT` never turns the recipe's keys into a hook's block or failure.
    let kapi = misspelled().env("KAPI_STRICT", "1");
    let run = kapi.run_stdin(&args, post_edit(&kapi).as_bytes());
    assert_eq!(run.code, plain.code, "{}", run.transcript());
    assert_eq!(run.stdout, plain.stdout);
    assert_eq!(
        run.stderr,
        format!(
            "kapi hook post-edit: note: {}{}",
            NOTE.trim_start_matches("warning: "),
            plain.stderr
        )
    );
}

#[test]
fn an_mcp_server_says_it_once_in_its_log() {
    let kapi = misspelled();
    let mut child = kapi
        .command(&["mcp", "--project", "kapi.yaml"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kapi mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").expect("sent");
        stdin.flush().expect("flushed");
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let init = lines.next().expect("an answer").expect("a line");
    assert!(init.contains("\"id\":1"), "{init}");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    for id in [2, 3] {
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "check_file", "arguments": {"path": "docs/clean.md"}}}),
        );
        let answer: Value =
            serde_json::from_str(&lines.next().expect("an answer").expect("a line")).expect("JSON");
        assert_eq!(answer["id"], id);
        assert_ne!(answer["result"]["isError"], true, "{answer}");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("the server ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches("`defaults.languages` is not a key kapi reads")
            .count(),
        1,
        "{stderr}"
    );
}
