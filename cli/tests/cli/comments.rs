//! Code comments through the binary: `kapi check` reports a comment's findings at the file's
//! line and column, `kapi inspect` lists comments with `set_content`, and `kapi apply` lands
//! a comment edit only when the file still parses and the formatter (where installed) agrees.

use serde_json::{Value, json};

use super::Kapi;
use super::apply::apply;

const RECIPE: &str = "version: v1\nname: code\ndefaults:\n  source_language: en\ncollections:\n  - path: \"src/**/*\"\n";
const TERMS: &str = "version: v1\nconcepts:\n  - id: s\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: forbidden}\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write(
        "src/lib.rs",
        "/// Handles the login flow.\npub fn run() {\n    let s = \"login\"; // the login page\n    // let t = login(s);\n    /* Old note. */\n}\n",
    );
    kapi.write(
        "src/main.go",
        "package main\n\n// Run starts the server.\nfunc Run() {}\n",
    );
    kapi.write("src/app.kt", "// Greets the user.\nfun greet() {}\n");
    kapi
}

fn blocks(kapi: &Kapi, doc: &str) -> Vec<Value> {
    let run = kapi.run(&["inspect", doc, "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    run.json()["blocks"].as_array().expect("blocks").clone()
}

fn rev_of(kapi: &Kapi, doc: &str, key: &str) -> String {
    blocks(kapi, doc)
        .iter()
        .find(|b| b["ref"]["block"] == key)
        .and_then(|b| b["rev"].as_str())
        .unwrap_or_else(|| panic!("no block {key} in {doc}"))
        .to_owned()
}

fn set_content(doc: &str, block: &str, rev: &str, content: &str) -> String {
    json!({
        "schema": "kapi.change/v1",
        "operations": [{"op": "set_content", "at": {"doc": doc, "block": block}, "if_match": rev, "content": content}]
    })
    .to_string()
}

#[test]
fn check_reports_a_comments_findings_at_its_line_and_column_and_skips_code() {
    let kapi = project();
    let run = kapi.run(&["check", "src/lib.rs", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let found: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {}",
                f["path"].as_str().unwrap_or(""),
                f["line"],
                f["column"],
                f["block"].as_str().unwrap_or("")
            )
        })
        .collect();
    // The doc comment's and the trailing comment's `login`; not the string literal's, not
    // the commented-out code's.
    assert_eq!(
        found,
        ["src/lib.rs:1:17 run/doc", "src/lib.rs:3:29 run/comment"]
    );
}

#[test]
fn inspect_lists_comments_with_set_content_and_commented_out_code_read_only() {
    let kapi = project();
    let listed: Vec<(String, String, Value)> = blocks(&kapi, "src/lib.rs")
        .iter()
        .map(|b| {
            (
                b["ref"]["block"].as_str().unwrap_or("").to_owned(),
                b["role"].as_str().unwrap_or("").to_owned(),
                b["accepts"].clone(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                "run/doc".to_owned(),
                "paragraph".to_owned(),
                json!(["set_content", "decide"])
            ),
            (
                "run/comment".to_owned(),
                "paragraph".to_owned(),
                json!(["set_content", "decide"])
            ),
            ("run/comment#2".to_owned(), "code".to_owned(), json!([])),
            (
                "run/comment#3".to_owned(),
                "paragraph".to_owned(),
                json!(["set_content", "decide"])
            ),
        ]
    );
}

#[test]
fn a_comment_edit_lands_rewrapped_and_says_what_verified_it() {
    let kapi = project();
    let rev = rev_of(&kapi, "src/app.kt", "greet/comment");
    let text = "Greets the user by name when the application starts, once per session, in the language the user picked.";
    let run = apply(
        &kapi,
        &set_content("src/app.kt", "greet/comment", &rev, text),
        &["--json"],
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        kapi.read("src/app.kt"),
        "// Greets the user by name when the application starts, once per session, in the language the user\n// picked.\nfun greet() {}\n"
    );
    let doc = &run.json()["documents"][0];
    assert_eq!(doc["comment_write"]["parses"], true, "{doc}");
    assert_eq!(
        doc["comment_write"]["not_verified"], "kapi knows no formatter for Kotlin comments",
        "{doc}"
    );
    // The next read sees the edit under the same key.
    let again = rev_of(&kapi, "src/app.kt", "greet/comment");
    assert_eq!(run.json()["operations"][0]["rev"], again.as_str());
}

#[test]
fn a_comment_edit_that_would_break_the_parse_writes_nothing() {
    let kapi = project();
    let before = kapi.read("src/lib.rs");
    let rev = rev_of(&kapi, "src/lib.rs", "run/comment#3");
    let run = apply(
        &kapi,
        &set_content("src/lib.rs", "run/comment#3", &rev, "Ends */ early."),
        &["--json"],
    );
    assert_eq!(run.code, 3, "{}", run.transcript());
    let op = &run.json()["operations"][0];
    assert_eq!(op["status"], "unsupported", "{op}");
    assert!(
        op["message"]
            .as_str()
            .is_some_and(|m| m.contains("would not parse as Rust comments")),
        "{op}"
    );
    assert_eq!(kapi.read("src/lib.rs"), before);
}

#[cfg(unix)]
#[test]
fn the_formatter_must_agree_and_a_missing_one_is_reported_not_verified() {
    use std::os::unix::fs::PermissionsExt;
    let kapi = project();
    // A stand-in `gofmt` that leaves the file alone unless it says "changed".
    kapi.write(
        "bin/gofmt",
        "#!/bin/sh\nexec /bin/sed 's/changed/CHANGED/'\n",
    );
    let fake = kapi.path().join("bin/gofmt");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let bin = kapi.path().join("bin").display().to_string();
    let go = |content: &str, path: &str| {
        let rev = rev_of(&kapi, "src/main.go", "Run/doc");
        kapi.write(
            "change.json",
            set_content("src/main.go", "Run/doc", &rev, content),
        );
        kapi.run_env(&[("PATH", path)], &["apply", "change.json", "--json"])
    };
    let before = kapi.read("src/main.go");
    let refused = go("Run has changed.", &bin);
    assert_eq!(refused.code, 3, "{}", refused.transcript());
    let op = &refused.json()["operations"][0];
    assert!(
        op["message"]
            .as_str()
            .is_some_and(|m| m.contains("`gofmt` would change")),
        "{op}"
    );
    assert_eq!(kapi.read("src/main.go"), before);

    let agreed = go("Run starts the server on the port it is given.", &bin);
    assert_eq!(agreed.code, 0, "{}", agreed.transcript());
    assert_eq!(
        agreed.json()["documents"][0]["comment_write"]["formatter"],
        "gofmt agrees"
    );

    let missing = go("Run starts the server.", "/nonexistent");
    assert_eq!(missing.code, 0, "{}", missing.transcript());
    assert_eq!(
        missing.json()["documents"][0]["comment_write"]["not_verified"],
        "no formatter is installed (tried `gofmt`)"
    );
}

#[test]
fn a_set_of_comments_and_documents_or_a_replace_text_is_refused_whole() {
    let kapi = project();
    kapi.write("src/notes.md", "# Notes\n\nSome text.\n");
    let rs = rev_of(&kapi, "src/lib.rs", "run/doc");
    let md = blocks(&kapi, "src/notes.md")[1]["rev"]
        .as_str()
        .expect("rev")
        .to_owned();
    let md_key = blocks(&kapi, "src/notes.md")[1]["ref"]["block"]
        .as_str()
        .expect("key")
        .to_owned();
    let mixed = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "set_content", "at": {"doc": "src/lib.rs", "block": "run/doc"}, "if_match": rs, "content": "Handles it."},
        {"op": "set_content", "at": {"doc": "src/notes.md", "block": md_key}, "if_match": md, "content": "Other text."},
    ]});
    let run = apply(&kapi, &mixed.to_string(), &["--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let op = &run.json()["operations"][0];
    assert!(
        op["message"]
            .as_str()
            .is_some_and(|m| m.contains("never both")),
        "{op}"
    );
    assert_eq!(run.json()["operations"][1]["status"], "not_applied");

    let replace = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "replace_text", "at": {"doc": "src/lib.rs", "block": "run/doc"}, "if_match": rs, "find": "login", "replace": "sign in"},
    ]});
    let run = apply(&kapi, &replace.to_string(), &["--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let op = &run.json()["operations"][0];
    assert!(
        op["message"]
            .as_str()
            .is_some_and(|m| m.contains("`set_content` alone")),
        "{op}"
    );
}

#[test]
fn a_comment_edit_is_held_to_the_commit_check_like_any_edit() {
    let kapi = project();
    let before = kapi.read("src/app.kt");
    let rev = rev_of(&kapi, "src/app.kt", "greet/comment");
    let run = apply(
        &kapi,
        &set_content(
            "src/app.kt",
            "greet/comment",
            &rev,
            "Greets the user after login.",
        ),
        &["--json"],
    );
    assert_eq!(run.code, 3, "{}", run.transcript());
    let op = &run.json()["operations"][0];
    assert_eq!(op["status"], "gate_failed", "{op}");
    assert_eq!(op["findings"][0]["rule"], "terms.forbidden", "{op}");
    assert_eq!(kapi.read("src/app.kt"), before);
}
