//! `kapi context note|log|review|reset|sync` through the binary: suggestions and evidence,
//! withdrawal by the recording session only, the person-only verbs refused for an agent (exit
//! 3, nothing changed), kept notes landing in `.kapi/notes.yaml` (or the terms file), edit
//! signals, and the refresh path through `kapi apply`.

use serde_json::Value;

use crate::{Kapi, Run};

const RECIPE: &str = "version: v1
name: desk
defaults:
  source_language: en
collections:
  - path: \"docs/**/*.md\"
";

fn desk() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(
        ".kapi/terms.yaml",
        "# Our words.\nversion: v1\nconcepts:\n  - id: use\n    terms:\n      - text: use\n        lang: en\n        status: preferred\n",
    );
    kapi.write(
        "docs/help/start.md",
        "# Start\n\nOpen your Workspace to begin.\n",
    );
    kapi.write(
        "docs/api/calls.md",
        "# Calls\n\nEach Workspace has an id.\n",
    );
    kapi.write("docs/guide/intro.md", "# Intro\n\nWelcome.\n");
    kapi
}

fn as_actor(kapi: &Kapi, actor: &str, session: &str, args: &[&str]) -> Run {
    let mut cmd = kapi.command(args);
    cmd.env("KAPI_ACTOR", actor).env("KAPI_SESSION", session);
    let out = cmd.output().expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn agent(kapi: &Kapi, args: &[&str]) -> Run {
    as_actor(kapi, "agent:test", "s-agent", args)
}

fn person(kapi: &Kapi, args: &[&str]) -> Run {
    as_actor(kapi, "person", "s-person", args)
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr))
}

#[test]
fn a_note_is_a_suggestion_and_the_same_observation_adds_evidence() {
    let kapi = desk();
    let first = agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--text",
            "Writes \"Workspace\" with a capital W",
            "--json",
        ],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let first = json(&first);
    assert_eq!(first["status"], "recorded");
    assert_eq!(first["suggestion"]["id"], "n1");
    assert_eq!(first["suggestion"]["status"], "pending");
    assert_eq!(first["suggestion"]["path"], "docs/help");
    let again = json(&agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help/",
            "--text",
            "writes  \"Workspace\" with a capital W",
            "--json",
        ],
    ));
    assert_eq!(again["status"], "evidence");
    assert_eq!(again["suggestion"]["id"], "n1");
    assert_eq!(again["suggestion"]["evidence"], 2);
    let change = json(&agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--from",
            "Workspace",
            "--to",
            "Space",
            "--json",
        ],
    ));
    assert_eq!(change["suggestion"]["id"], "n2");
    assert_eq!(change["suggestion"]["kind"], "change");
}

#[test]
fn bad_notes_are_refused_and_record_nothing() {
    let kapi = desk();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["context", "note", "--text", "x"], 2, "needs `--path`"),
        (
            &["context", "note", "--path", "../elsewhere", "--text", "x"],
            1,
            "outside",
        ),
        (
            &["context", "note", "--path", "docs/nope", "--text", "x"],
            1,
            "docs/nope",
        ),
        (
            &["context", "note", "--path", "docs", "--text", "  "],
            2,
            "is empty",
        ),
        (&["context", "note", "--path", "docs"], 2, "needs `--text`"),
        (
            &["context", "note", "--path", "docs", "--from", "a"],
            2,
            "--to",
        ),
        (
            &[
                "context", "note", "--path", "docs", "--from", "a", "--to", "a",
            ],
            2,
            "the same",
        ),
        (&["context", "note", "--withdraw", "n9"], 2, "no note `n9`"),
    ];
    for (args, code, wanted) in cases {
        let run = agent(&kapi, args);
        assert_eq!(run.code, *code, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(wanted), "{args:?}: {}", run.stderr);
    }
    let huge = "x".repeat(501);
    let run = agent(
        &kapi,
        &["context", "note", "--path", "docs", "--text", &huge],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("at most 500"), "{}", run.stderr);
    let unknown = as_actor(
        &kapi,
        "robot:x",
        "s",
        &["context", "note", "--path", "docs", "--text", "x"],
    );
    assert_eq!(unknown.code, 3, "{}", unknown.stderr);
    let log = json(&person(&kapi, &["context", "log", "--json"]));
    assert_eq!(
        log["entries"],
        serde_json::json!([]),
        "nothing was recorded"
    );
}

#[test]
fn only_the_recording_session_withdraws_a_note() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Uses sentence case in headings",
        ],
    );
    let other = as_actor(
        &kapi,
        "agent:test",
        "s-other",
        &["context", "note", "--withdraw", "n1"],
    );
    assert_eq!(other.code, 3, "{}", other.stderr);
    assert!(other.stderr.contains("another session"), "{}", other.stderr);
    let by_person = person(&kapi, &["context", "note", "--withdraw", "n1"]);
    assert_eq!(by_person.code, 3);
    let mine = json(&agent(
        &kapi,
        &["context", "note", "--withdraw", "n1", "--json"],
    ));
    assert_eq!(mine["status"], "withdrawn");
    let again = agent(&kapi, &["context", "note", "--withdraw", "n1"]);
    assert_eq!(again.code, 2);
    assert!(
        again.stderr.contains("already withdrawn"),
        "{}",
        again.stderr
    );
}

#[test]
fn the_log_lists_operations_by_session_with_actor_and_evidence() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/api",
            "--text",
            "Endpoint names keep Workspace",
        ],
    );
    as_actor(
        &kapi,
        "agent:other",
        "s-other",
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Oxford commas",
        ],
    );
    let mine = json(&agent(
        &kapi,
        &["context", "log", "--session", "this", "--json"],
    ));
    assert_eq!(mine["session"], "s-agent");
    let entries = mine["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["actor"], "agent:test");
    assert_eq!(entries[0]["path"], "docs/api");
    assert_eq!(entries[0]["suggestion"], "n1");
    assert_eq!(entries[0]["status"], "pending");
    assert_eq!(
        entries[0]["evidence"]["text"],
        "Endpoint names keep Workspace"
    );
    let all = json(&person(
        &kapi,
        &[
            "context", "log", "--kind", "note", "--since", "1d", "--json",
        ],
    ));
    assert_eq!(all["entries"].as_array().map(Vec::len), Some(2));
    let none = json(&person(
        &kapi,
        &["context", "log", "--since", "2999-01-01", "--json"],
    ));
    assert_eq!(none["entries"].as_array().map(Vec::len), Some(0));
    assert_eq!(
        person(&kapi, &["context", "log", "--since", "soon"]).code,
        2
    );
    let text = agent(&kapi, &["context", "log", "--session", "this"]);
    assert!(
        text.stdout.contains("agent:test") && text.stdout.contains("n1"),
        "{}",
        text.stdout
    );
    let own = agent(&kapi, &["context", "log", "--summary"]);
    assert!(
        own.stdout
            .starts_with("This session recorded 1 note(s) (n1)"),
        "{}",
        own.transcript()
    );
    let other = agent(
        &kapi,
        &["context", "log", "--summary", "--session", "s-other"],
    );
    assert!(
        other
            .stdout
            .starts_with("Session `s-other` recorded 1 note(s) (n2)"),
        "{}",
        other.transcript()
    );
}

#[test]
fn review_reset_and_sync_are_a_persons() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Oxford commas",
        ],
    );
    for args in [
        &["context", "review", "--keep", "n1"][..],
        &["context", "review"][..],
        &["context", "reset", "--yes"][..],
        &["context", "sync"][..],
        &["context", "sync", "--files-only"][..],
    ] {
        let run = agent(&kapi, args);
        assert_eq!(run.code, 3, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is a person's"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&format!("kapi context {}", args[1])),
            "{}",
            run.stderr
        );
    }
    assert!(!kapi.path().join(".kapi/notes.yaml").exists());
    let pending = json(&person(&kapi, &["context", "review", "--json"]));
    assert_eq!(
        pending["pending"][0]["status"], "pending",
        "nothing changed"
    );
}

#[test]
fn a_person_keeps_drops_and_widens() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--text",
            "Steps start with a verb",
        ],
    );
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/api",
            "--text",
            "Writes HTTP verbs in capitals",
        ],
    );
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help/start.md",
            "--text",
            "Short lines",
        ],
    );
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--from",
            "Workspace",
            "--to",
            "Space",
        ],
    );
    let listing = person(&kapi, &["context", "review"]);
    assert_eq!(listing.code, 0);
    assert!(
        listing.stdout.contains("n1") && listing.stdout.contains("docs/help"),
        "{}",
        listing.stdout
    );
    let run = person(
        &kapi,
        &[
            "context", "review", "--keep", "n1", "n4", "--drop", "n2", "--widen", "n3=docs",
            "--json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let review = json(&run);
    let decided: Vec<(String, String)> = review["decided"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().to_owned(),
                d["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        decided.contains(&("n3".into(), "widened".into())),
        "{decided:?}"
    );
    assert!(
        decided.contains(&("n2".into(), "dropped".into())),
        "{decided:?}"
    );
    let notes = kapi.read(".kapi/notes.yaml");
    assert!(
        notes.contains("id: n1") && notes.contains("path: docs/help"),
        "{notes}"
    );
    assert!(
        notes.contains("id: n3") && notes.contains("path: docs\n"),
        "{notes}"
    );
    assert!(
        notes.contains("from: Workspace"),
        "a rename held for a folder stays a note:\n{notes}"
    );
    assert!(!notes.contains("n2"), "{notes}");
    assert!(!kapi.read(".kapi/terms.yaml").contains("Space"));
    // Already decided, unknown, or a widen that is not a parent: refused, nothing changed.
    for (args, wanted) in [
        (&["context", "review", "--keep", "n1"][..], "already kept"),
        (
            &["context", "review", "--drop", "n7"][..],
            "no suggestion `n7`",
        ),
    ] {
        let run = person(&kapi, args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(wanted), "{}", run.stderr);
    }
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--text",
            "Numbered steps",
        ],
    );
    let bad = person(&kapi, &["context", "review", "--widen", "n5=docs/api"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("not a folder above"), "{}", bad.stderr);
    assert_eq!(
        kapi.read(".kapi/notes.yaml"),
        notes,
        "a refused review changes nothing"
    );
}

#[test]
fn a_change_kept_for_the_whole_project_becomes_a_term_rule() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context", "note", "--path", ".", "--from", "utilize", "--to", "use",
        ],
    );
    agent(
        &kapi,
        &[
            "context", "note", "--path", ".", "--from", "log in", "--to", "sign in",
        ],
    );
    let run = person(&kapi, &["context", "review", "--keep", "n1", "n2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let terms = kapi.read(".kapi/terms.yaml");
    assert!(terms.starts_with("# Our words.\n"), "{terms}");
    assert!(
        terms.contains("text: utilize") && terms.contains("status: deprecated"),
        "{terms}"
    );
    assert!(terms.contains("text: sign in"), "{terms}");
    // `kapi check` now holds the files to it.
    kapi.write("docs/guide/intro.md", "# Intro\n\nWe utilize caches.\n");
    let check = person(&kapi, &["check", "docs/guide/intro.md", "--json"]);
    assert!(
        check.stdout.contains("terms.deprecated"),
        "{}",
        check.stdout
    );
}

#[test]
fn reset_asks_or_takes_yes() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Oxford commas",
        ],
    );
    let run = person(&kapi, &["context", "reset"]);
    assert_eq!(run.code, 2, "no terminal and no --yes: {}", run.stderr);
    assert!(run.stderr.contains("--yes"));
    let run = json(&person(&kapi, &["context", "reset", "--yes", "--json"]));
    assert_eq!(run["cleared"], 1);
    let pending = json(&person(&kapi, &["context", "review", "--json"]));
    assert_eq!(pending["pending"], serde_json::json!([]));
}

#[test]
fn an_edit_that_writes_the_preferred_form_adds_a_signal() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--from",
            "Workspace",
            "--to",
            "Space",
        ],
    );
    let read = person(&kapi, &["inspect", "docs/help/start.md", "--json"]);
    let blocks: Value = json(&read);
    let block = blocks["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["text"].as_str().is_some_and(|t| t.contains("Workspace")))
        .unwrap()
        .clone();
    let set = serde_json::json!({"schema": "kapi.change/v1", "operations": [
        {"op": "set_content", "at": block["ref"], "if_match": block["rev"], "content": "Open your Space to begin."}]});
    kapi.write("set.json", set.to_string());
    let applied = agent(&kapi, &["apply", "set.json"]);
    assert_eq!(applied.code, 0, "{}", applied.stdout);
    let pending = json(&person(&kapi, &["context", "review", "--json"]));
    assert_eq!(pending["pending"][0]["signals"], 1);
    let text = person(&kapi, &["context", "review"]);
    assert!(text.stdout.contains("1 edit signal"), "{}", text.stdout);
}

#[test]
fn a_person_approves_a_prepared_refresh_in_one_step() {
    let kapi = desk();
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/api",
            "--text",
            "Endpoint names keep Workspace",
        ],
    );
    kapi.write(
        "refresh.jsonl",
        "{\"op\":\"term\",\"term\":{\"text\":\"endpoint\",\"lang\":\"en\",\"status\":\"preferred\"}}\n{\"op\":\"note\",\"note\":{\"path\":\"docs/api\",\"text\":\"Endpoint names keep Workspace\"}}\n",
    );
    let refused = agent(&kapi, &["apply", "refresh.jsonl", "--json"]);
    assert_eq!(refused.code, 3);
    assert!(refused.stdout.contains("not_permitted"));
    let run = person(&kapi, &["apply", "refresh.jsonl", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let notes = kapi.read(".kapi/notes.yaml");
    assert!(
        notes.contains("id: n1") && notes.contains("Endpoint names keep Workspace"),
        "{notes}"
    );
    assert!(kapi.read(".kapi/terms.yaml").contains("text: endpoint"));
    // The agent's pending suggestion was the same note: it is now kept, not pending.
    let pending = json(&person(&kapi, &["context", "review", "--json"]));
    assert_eq!(pending["pending"], serde_json::json!([]));
}

#[test]
fn search_tells_what_the_project_knows_about_a_word() {
    let kapi = desk();
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: space\n    terms:\n      - text: Space\n        lang: en\n        status: preferred\n      - text: Workspace\n        lang: en\n        status: deprecated\n      - text: Espace\n        lang: fr\n        status: preferred\n",
    );
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/api",
            "--text",
            "Endpoint names keep Workspace",
        ],
    );
    agent(
        &kapi,
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--from",
            "Workspace",
            "--to",
            "Space",
        ],
    );
    person(&kapi, &["context", "review", "--keep", "n1"]);
    let run = agent(&kapi, &["context", "search", "Workspace"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("context_search_workspace", run.stdout);
    let answer = json(&agent(&kapi, &["context", "search", "workspace", "--json"]));
    assert_eq!(answer["schema"], "kapi.search/v1");
    let langs: Vec<&str> = answer["terms"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["lang"].as_str())
        .collect();
    assert!(langs.contains(&"fr") && langs.contains(&"en"), "{langs:?}");
    assert_eq!(answer["notes"][0]["id"], "n1");
    assert_eq!(answer["pending"][0]["id"], "n2");
    assert_eq!(agent(&kapi, &["context", "search", " "]).code, 2);
}

#[test]
fn init_writes_the_rules_files_unless_told_not_to() {
    let kapi = Kapi::bound();
    kapi.write("docs/a.md", "# A\n\nText.\n");
    kapi.write("CLAUDE.md", "@AGENTS.md\n");
    let run = person(&kapi, &["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json(&run)["rules_files"], serde_json::json!(["AGENTS.md"]));
    let agents = kapi.read("AGENTS.md");
    assert!(agents.starts_with("<!-- kapi:rules -->\n"), "{agents}");
    assert!(agents.contains("kapi check"), "{agents}");
    assert_eq!(kapi.read("CLAUDE.md"), "@AGENTS.md\n", "one copy per agent");
    let sync = json(&person(
        &kapi,
        &["context", "sync", "--files-only", "--json"],
    ));
    assert_eq!(sync["report"]["written"], serde_json::json!([]), "{sync}");

    let bare = Kapi::bound();
    bare.write("docs/a.md", "# A\n");
    let run = person(&bare, &["init", "--no-rules-files"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!bare.path().join("AGENTS.md").exists());
    assert!(!bare.path().join("CLAUDE.md").exists());
}

#[test]
fn sync_says_it_removed_a_section_not_the_file_the_person_keeps() {
    let kapi = desk();
    // A section for a folder the project no longer gives rules (found by its markers).
    kapi.write(
        "docs/api/CLAUDE.md",
        "Mine.\n\n<!-- kapi:rules -->\nold rules\n<!-- /kapi:rules -->\n",
    );
    let run = person(&kapi, &["context", "sync", "--files-only"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .lines()
            .any(|l| l == "removed kapi's section from docs/api/CLAUDE.md"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout
            .lines()
            .any(|l| l == "removed docs/api/CLAUDE.md"),
        "{}",
        run.stdout
    );
    assert_eq!(kapi.read("docs/api/CLAUDE.md"), "Mine.\n");
}

#[test]
fn a_broken_rules_file_is_refused_with_its_line_and_nothing_changes() {
    let kapi = desk();
    kapi.write("AGENTS.md", "# Ours\n\n<!-- kapi:rules -->\nold rules\n");
    kapi.write("docs/help/AGENTS.md", "Keep this.\n");
    let run = person(&kapi, &["context", "sync", "--files-only"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("AGENTS.md") && run.stderr.contains("line 3"),
        "{}",
        run.stderr
    );
    assert_eq!(
        kapi.read("AGENTS.md"),
        "# Ours\n\n<!-- kapi:rules -->\nold rules\n"
    );
    kapi.write("AGENTS.md", "# Ours\n<!-- /kapi:rules -->\n");
    let run = person(&kapi, &["context", "sync", "--files-only"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    kapi.write("AGENTS.md", "# Ours\n\nBe kind.\n");
    let run = person(&kapi, &["context", "sync", "--files-only"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let agents = kapi.read("AGENTS.md");
    assert!(agents.starts_with("# Ours\n\nBe kind.\n"), "{agents}");
    assert_eq!(
        kapi.read("docs/help/AGENTS.md"),
        "Keep this.\n",
        "no rules of its own: untouched"
    );
}
