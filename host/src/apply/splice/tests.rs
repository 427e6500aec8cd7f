//! The splice held to the full path: for each change set, the same result (as JSON) and the
//! same file, applied once each way to two copies of one project; and the splice taken
//! exactly where it may be.

use std::path::Path;

use kapi_core::formats::Format;
use serde_json::{Value, json};

use super::*;
use crate::app::{Actor, App};
use crate::apply::{ApplyRequest, apply_as, apply_unspliced};

/// A catalog with a BOM, CRLF, nesting, escapes, ICU, placeholders, a duplicate key and a
/// plural group, in a project whose voice forbids `utilize`.
const CATALOG: &str = "\u{feff}{\r\n  \"title\": \"Say \\\"hi\\\" to {name}\",\r\n  \"menu\": {\"open\": \"Open the <b>file</b>\", \"note\": \"\\\"open\\\": not a key\", \"list\": [\"first %s\", \"second\"]},\r\n  \"days\": \"{n, plural, one {# day} other {# days}}\",\r\n  \"dup\": \"one\", \"dup\": \"two\",\r\n  \"item_one\": \"{{count}} item\", \"item_other\": \"{{count}} items\",\r\n  \"plain\": \"Sign in to begin.\", \"unicode\": \"caf\\u00e9 \\ud83d\\ude00\"\r\n}\r\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "kapi.yaml",
        "version: v1\nname: t\ndefaults:\n  voice: .kapi/voice.yaml\ncollections:\n  - path: \"locales/*.json\"\n  - path: \"docs/*.md\"\n",
    );
    write(
        ".kapi/voice.yaml",
        "name: t\nvocabulary:\n  forbidden:\n    - term: utilize\n      replacement: use\n      severity: major\n",
    );
    write("locales/en.json", CATALOG);
    write("docs/a.md", "# A\n\nSign in to begin.\n");
    dir
}

fn app(root: &Path) -> App {
    App::new(
        crate::env::Env::default(),
        root.to_path_buf(),
        Some(root.to_path_buf()),
    )
}

fn person() -> Actor {
    Actor {
        kind: "person".into(),
        name: "t".into(),
        session: "s".into(),
    }
}

/// The rev of a block of the catalog as the full reader reads it.
fn rev(key: &str) -> String {
    let parsed = kapi_core::formats::json::Json
        .read(CATALOG.as_bytes())
        .expect("the catalog");
    parsed.document.block(key).expect("the block").source.rev()
}

fn at(block: &str) -> Value {
    json!({"doc": "locales/en.json", "block": block, "edition": "source"})
}

fn set_content(block: &str, content: &str) -> Value {
    json!({"op": "set_content", "at": at(block), "if_match": rev(block), "content": content})
}

fn request(operations: Value, dry_run: bool) -> ApplyRequest {
    let set = json!({"schema": "kapi.change/v1", "operations": operations});
    ApplyRequest {
        set: kapi_core::change::decode(set.to_string().as_bytes()).expect("a change set"),
        dry_run,
    }
}

/// Whether the catalog is opened by the splice for `request`.
fn spliced(request: &ApplyRequest) -> bool {
    let dir = project();
    let app = app(dir.path());
    let project = app.project().expect("the project");
    let mut svc = Service::new(&app, project, dir.path().to_path_buf());
    svc.splice = Some(eligible(&request.set));
    for at in request.set.operations.iter().filter_map(Operation::at) {
        svc.blocks
            .entry(at.doc.clone())
            .or_default()
            .insert(at.block.clone());
    }
    match svc.open("locales/en.json") {
        Ok(d) => svc.files[svc.doc_list[d].file].spliced.is_some(),
        Err(_) => false,
    }
}

/// Applies `request` both ways to two copies of the project: the same result and files.
fn same_both_ways(request: &ApplyRequest) -> Value {
    let (a, b) = (project(), project());
    let actor = person();
    let spliced = apply_as(&app(a.path()), &actor, request).expect("the splice path");
    let full = apply_unspliced(&app(b.path()), &actor, request).expect("the full path");
    let (spliced, full) = (
        serde_json::to_value(&spliced).expect("json"),
        serde_json::to_value(&full).expect("json"),
    );
    assert_eq!(spliced, full);
    for rel in ["locales/en.json", "docs/a.md"] {
        assert_eq!(
            std::fs::read(a.path().join(rel)).expect("a"),
            std::fs::read(b.path().join(rel)).expect("b"),
            "{rel}"
        );
    }
    spliced
}

#[test]
fn each_set_gives_the_full_paths_result_and_file() {
    let quote = "Say \"hello\" \\ to <x id=\"1/\"/>\nnow / é 😀";
    let cases: Vec<(Value, bool, &str)> = vec![
        // (operations, taken by the splice, expected status)
        (
            json!([set_content("plain", "Sign in to start.")]),
            true,
            "applied",
        ),
        (json!([set_content("title", quote)]), true, "applied"),
        (
            json!([set_content(
                "menu.open",
                "Open the <x id=\"1\"/>folder<x id=\"/1\"/>"
            )]),
            true,
            "applied",
        ),
        (
            json!([set_content("menu.list.0", "first <x id=\"1/\"/> item")]),
            true,
            "applied",
        ),
        (
            json!([set_content("unicode", "tea \\u00e9")]),
            true,
            "applied",
        ),
        (
            json!([set_content("plain", "Utilize the app.")]),
            true,
            "refused",
        ),
        (
            json!([set_content("title", "No placeholder")]),
            true,
            "refused",
        ),
        (
            json!([set_content("plain", "Sign in to begin.")]),
            true,
            "unchanged",
        ),
        (
            json!([set_content("plain", "A literal {extra} here.")]),
            true,
            "applied",
        ),
        (
            json!([{"op": "set_content", "at": at("plain"), "if_match": "r0000000000000000", "content": "x"}]),
            true,
            "refused",
        ),
        (
            json!([{"op": "replace_text", "at": at("menu.note"), "if_match": rev("menu.note"), "find": "not", "replace": "never"}]),
            true,
            "applied",
        ),
        (
            json!([{"op": "set_content", "at": {"doc": "locales/en.json", "block": "days", "edition": "source", "branch": "n:one"},
                 "if_match": kapi_core::model::rev_runs(kapi_core::formats::json::Json.read(CATALOG.as_bytes()).expect("c").document.block("days").expect("d").source.branch("n:one").expect("b")),
                 "content": "<x id=\"1/\"/> single day"}]),
            true,
            "applied",
        ),
        (
            json!([
                set_content("plain", "Sign in first."),
                set_content("menu.open", "Open the <x id=\"1\"/>doc<x id=\"/1\"/>")
            ]),
            true,
            "applied",
        ),
        (
            json!([
                set_content("plain", "Sign in first."),
                set_content("title", "Greet <x id=\"1/\"/>")
            ]),
            true,
            "applied",
        ),
        // The full path: a duplicate key, a plural group, a missing key, a decision.
        (json!([set_content("dup", "uno")]), false, "applied"),
        (
            json!([{"op": "set_content", "at": at("item"), "if_match": rev("item"), "content": "x"}]),
            false,
            "refused",
        ),
        (
            json!([{"op": "set_content", "at": at("nope"), "if_match": "*", "content": "x"}]),
            false,
            "refused",
        ),
        (
            json!([set_content("plain", "Sign in now."),
                {"op": "decide", "at": at("title"), "if_match": rev("title"), "outcome": "advise", "score": 80, "reasons": ["ok"]}]),
            false,
            "applied",
        ),
    ];
    for (n, (operations, splice, status)) in cases.into_iter().enumerate() {
        for dry_run in [false, true] {
            let request = request(operations.clone(), dry_run);
            assert_eq!(spliced(&request), splice, "case {n}");
            let result = same_both_ways(&request);
            assert_eq!(result["status"], status, "case {n}: {result:#}");
        }
    }
}

#[test]
fn a_second_edit_of_one_value_takes_the_first_ones_rev() {
    let dir = project();
    let actor = person();
    let first = request(json!([set_content("plain", "Sign in to start.")]), false);
    let result = apply_as(&app(dir.path()), &actor, &first).expect("applied");
    let rev = result.operations[0].rev.clone().expect("a rev");
    let full = kapi_core::formats::json::Json
        .read(&std::fs::read(dir.path().join("locales/en.json")).expect("the file"))
        .expect("reads");
    assert_eq!(
        full.document.block("plain").expect("plain").source.rev(),
        rev
    );
    let again = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "set_content", "at": at("plain"), "if_match": rev, "content": "Sign in."}]});
    let again = ApplyRequest {
        set: kapi_core::change::decode(again.to_string().as_bytes()).expect("a set"),
        dry_run: false,
    };
    let result = apply_as(&app(dir.path()), &actor, &again).expect("applied");
    assert_eq!(result.status, kapi_core::change::result::SetStatus::Applied);
}
