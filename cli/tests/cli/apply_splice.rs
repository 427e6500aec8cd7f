//! `kapi apply` of JSON catalog edits through the binary, which takes the splice path, held
//! to the full path (`kapi_host::apply::apply_unspliced`, in this process) on a copy of the
//! same project: the same result JSON, the same exit code, the same file.

use kapi_core::formats::Format;
use kapi_core::formats::json::Json;
use serde_json::{Value, json};

use super::{RECIPE, TERMS, apply, set};
use crate::Kapi;

/// A catalog with a BOM, CRLF, nesting, escapes, an ICU plural, placeholders and markup, a
/// duplicate key and an i18next plural group.
const CATALOG: &str = "\u{feff}{\r\n  \"greeting\": \"Hello {name}, \\\"welcome\\\"\",\r\n  \"menu\": {\"open\": \"Open the <b>file</b>\", \"note\": \"\\\"greeting\\\": not a key\", \"list\": [\"first %s\", \"second\"]},\r\n  \"days\": \"{n, plural, one {# day} other {# days}}\",\r\n  \"dup\": \"one\", \"dup\": \"two\",\r\n  \"item_one\": \"{{count}} item\", \"item_other\": \"{{count}} items\",\r\n  \"bye\": \"Goodbye and sign in again.\"\r\n}\r\n";

fn project() -> Kapi {
    let kapi = Kapi::bound().env("KAPI_SESSION", "s-test");
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write("locales/en.json", CATALOG);
    kapi.write("locales/fr.json", "{\"greeting\": \"Bonjour {name}\"}\n");
    kapi
}

fn rev(key: &str) -> String {
    let parsed = Json.read(CATALOG.as_bytes()).expect("the catalog");
    parsed.document.block(key).expect("the block").source.rev()
}

fn at(block: &str) -> Value {
    json!({"doc": "locales/en.json", "block": block, "edition": "source"})
}

fn edit(block: &str, content: &str) -> Value {
    json!({"op": "set_content", "at": at(block), "if_match": rev(block), "content": content})
}

/// Applies `ops` with the binary to one project and with the full path to another: the same
/// result, exit code and file. Returns the binary's result.
fn same_as_full_path(ops: Value, extra: &[&str], code: i32) -> Value {
    let (spliced, full) = (project(), project());
    let change = set(ops);
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let run = apply(&spliced, &change, &args);
    assert_eq!(run.code, code, "{}\n{}", run.stdout, run.stderr);
    let got = run.json();
    let app = kapi_host::App::new(
        kapi_host::env::Env::default(),
        full.path().to_path_buf(),
        Some(full.path().to_path_buf()),
    );
    let actor = kapi_host::app::Actor {
        kind: got["actor"]["kind"].as_str().unwrap_or_default().into(),
        name: got["actor"]["name"].as_str().unwrap_or_default().into(),
        session: got["actor"]["session"].as_str().unwrap_or_default().into(),
    };
    let request = kapi_host::apply::ApplyRequest {
        set: kapi_core::change::decode(change.as_bytes()).expect("a set"),
        dry_run: extra.contains(&"--dry-run"),
    };
    let want = kapi_host::apply::apply_unspliced(&app, &actor, &request).expect("the full path");
    assert_eq!(got, serde_json::to_value(&want).expect("json"));
    assert_eq!(
        std::fs::read(spliced.path().join("locales/en.json")).expect("spliced"),
        std::fs::read(full.path().join("locales/en.json")).expect("full"),
    );
    got
}

#[test]
fn a_catalog_edit_through_the_binary_is_the_full_paths_edit() {
    let applied = same_as_full_path(json!([edit("bye", "Goodbye, sign in again.")]), &[], 0);
    assert_eq!(applied["status"], "applied");
    let written = same_as_full_path(
        json!([edit(
            "greeting",
            "Hi <x id=\"1/\"/>, \"quoted\" \\ and\nnew / é 😀"
        )]),
        &[],
        0,
    );
    assert_eq!(written["documents"][0]["written"], true);
    same_as_full_path(
        json!([
            edit("menu.open", "Open the <x id=\"1\"/>folder<x id=\"/1\"/>"),
            edit("menu.list.0", "first <x id=\"1/\"/> one")
        ]),
        &[],
        0,
    );
    same_as_full_path(
        json!([{"op": "replace_text", "at": at("menu.note"), "if_match": rev("menu.note"), "find": "not", "replace": "never"}]),
        &[],
        0,
    );
    let dry = same_as_full_path(json!([edit("bye", "See you.")]), &["--dry-run"], 0);
    assert!(
        dry["documents"][0]["diff"]
            .as_str()
            .is_some_and(|d| d.contains("+  \"bye\": \"See you.\"")),
        "{dry:#}"
    );
    same_as_full_path(json!([edit("bye", "Goodbye and sign in again.")]), &[], 0);
}

#[test]
fn a_refused_catalog_edit_through_the_binary_is_the_full_paths_refusal() {
    // The commit check, the code guard, a stale rev: refused alike, exit 3, nothing written.
    for (ops, status) in [
        (json!([edit("bye", "We utilize caches.")]), "gate_failed"),
        (json!([edit("greeting", "Hello there")]), "guard"),
        (
            json!([{"op": "set_content", "at": at("bye"), "if_match": "r0000000000000000", "content": "x"}]),
            "stale",
        ),
    ] {
        let result = same_as_full_path(ops, &[], 3);
        assert_eq!(result["operations"][0]["status"], status, "{result:#}");
    }
    // What the splice leaves to the full path: a duplicate key, a plural group, a missing key.
    same_as_full_path(json!([edit("dup", "uno")]), &[], 0);
    same_as_full_path(
        json!([{"op": "set_content", "at": at("item"), "if_match": rev("item"), "content": "x"}]),
        &[],
        3,
    );
    same_as_full_path(
        json!([{"op": "set_content", "at": at("nope"), "if_match": "*", "content": "x"}]),
        &[],
        3,
    );
}
