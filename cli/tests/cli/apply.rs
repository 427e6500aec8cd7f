//! `kapi apply` and `kapi schema` through the binary: every status, every exit code, the
//! actor policy, assets landing where they belong, bad input, a partial write and two
//! processes racing for one document.

use serde_json::{Value, json};

use crate::{Kapi, Run};

pub(crate) const RECIPE: &str = r#"# The shop's recipe.
version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - path: "docs/**/*.md"
  - name: app
    content:
      - path: "locales/en.json"
        target: "locales/{lang}.json"
"#;

pub(crate) const TERMS: &str = "# Terms for the shop.
version: v1
concepts:
  # Plain words first.
  - id: use
    terms:
      - text: use
        lang: en
        status: preferred
      - text: utilize   # never
        lang: en
        status: forbidden
        replacement: use
";

pub(crate) const GUIDE: &str = "# Guide

Open the **dashboard** to start.

We utilize caches here.

```sh
rm -rf build
```
";

/// A bound project: a recipe, a terms file with comments, two Markdown files and a catalog
/// with its French translation.
pub(crate) fn shop() -> Kapi {
    let kapi = Kapi::bound().env("KAPI_SESSION", "s-test");
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write("docs/guide.md", GUIDE);
    kapi.write("docs/notes.md", "# Notes\n\nA second file.\n");
    kapi.write(
        "locales/en.json",
        "{\n  \"greeting\": \"Hello {name}\",\n  \"bye\": \"Goodbye\"\n}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Au revoir\"\n}\n",
    );
    kapi
}

/// The first block of `doc` whose text contains `needle`: (ref, rev, text).
pub(crate) fn block(kapi: &Kapi, doc: &str, needle: &str) -> (Value, String, String) {
    let read = kapi.run(&["inspect", doc, "--json"]);
    assert_eq!(read.code, 0, "{}", read.stderr);
    let blocks = read.json()["blocks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let b = blocks
        .iter()
        .find(|b| b["text"].as_str().is_some_and(|t| t.contains(needle)))
        .unwrap_or_else(|| panic!("no block with `{needle}` in {doc}"));
    (
        b["ref"].clone(),
        b["rev"].as_str().unwrap_or_default().to_owned(),
        b["text"].as_str().unwrap_or_default().to_owned(),
    )
}

pub(crate) fn set(ops: Value) -> String {
    json!({"schema": "kapi.change/v1", "operations": ops}).to_string()
}

pub(crate) fn apply(kapi: &Kapi, set: &str, extra: &[&str]) -> Run {
    kapi.write("change.json", set);
    let mut args = vec!["apply", "change.json"];
    args.extend_from_slice(extra);
    kapi.run(&args)
}

pub(crate) fn statuses(run: &Run) -> Vec<String> {
    run.json()["operations"]
        .as_array()
        .map(|ops| {
            ops.iter()
                .map(|o| o["status"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn temp_files(kapi: &Kapi) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![kapi.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".kapi-tmp") {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

#[test]
fn a_set_applies_a_resend_is_stale_and_the_same_content_is_unchanged() {
    let kapi = shop();
    let (at, rev, text) = block(&kapi, "docs/guide.md", "dashboard");
    assert_eq!(
        text,
        "Open the <x id=\"1\"/>dashboard<x id=\"/1\"/> to start."
    );
    let new = "Open the <x id=\"1\"/>dashboard<x id=\"/1\"/> first.";
    let change = set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": new}]));
    let run = apply(&kapi, &change, &[]);
    insta::assert_snapshot!("apply_applied", run.transcript());
    assert_eq!(run.code, 0);
    assert!(
        kapi.read("docs/guide.md")
            .contains("Open the **dashboard** first.")
    );
    assert!(
        kapi.read("docs/guide.md")
            .contains("We utilize caches here.")
    );

    // Resent after it landed: stale, with the current rev and text; nothing written.
    let before = kapi.read("docs/guide.md");
    let again = apply(&kapi, &change, &["--json"]);
    assert_eq!(again.code, 3, "{}", again.stdout);
    let result = again.json();
    assert_eq!(result["status"], "refused");
    assert_eq!(result["operations"][0]["status"], "stale");
    assert_eq!(result["operations"][0]["current"]["text"], new);
    let (_, now_rev, _) = block(&kapi, "docs/guide.md", "dashboard");
    assert_eq!(result["operations"][0]["current"]["rev"], now_rev.as_str());
    assert_eq!(kapi.read("docs/guide.md"), before);

    // The same content with the current rev: unchanged, exit 0, nothing written.
    let same = set(json!([{"op": "set_content", "at": at, "if_match": now_rev, "content": new}]));
    let run = apply(&kapi, &same, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["status"], "unchanged");
    assert_eq!(statuses(&run), ["unchanged"]);
    assert_eq!(run.json()["documents"], json!([]));
    assert_eq!(kapi.read("docs/guide.md"), before);
}

/// A file its owner made read-only is refused (`not_permitted`, exit 3, nothing written) rather
/// than replaced by the rename an atomic write makes; made writable, the same set lands.
#[cfg(unix)]
#[test]
fn a_read_only_file_is_refused_not_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second file");
    let path = kapi.path().join("docs/notes.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let change =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "A third file."}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(statuses(&run), ["not_permitted"]);
    let message = run.json()["operations"][0]["message"].clone();
    assert!(
        message.as_str().is_some_and(|m| m.contains("read-only")),
        "{message}"
    );
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444, "the file is left as it was");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = apply(&kapi, &change, &[]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA third file.\n");
}

#[test]
fn the_result_carries_actor_fingerprint_documents_and_findings() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/guide.md", "caches");
    // A typo fix in a paragraph with an old violation: the violation is reported and lands.
    let change = set(json!([{"op": "replace_text", "at": at, "if_match": rev,
                              "find": "caches", "replace": "the caches"}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let r = run.json();
    assert_eq!(r["schema"], "kapi.change-result/v1");
    assert_eq!(r["status"], "applied");
    assert_eq!(
        r["actor"],
        json!({"kind": "person", "name": "cli", "session": "s-test"})
    );
    assert!(
        r["fingerprint"]
            .as_str()
            .is_some_and(|f| f.starts_with('g'))
    );
    assert!(r["change"].as_i64().is_some());
    let op = &r["operations"][0];
    assert_eq!(op["count"], 1);
    assert_eq!(op["findings"][0]["rule"], "terms.forbidden");
    assert_eq!(op["findings"][0]["introduced"], false);
    let doc = &r["documents"][0];
    assert_eq!(doc["doc"], "docs/guide.md");
    assert_eq!(doc["written"], true);
    assert!(
        doc["diff"]
            .as_str()
            .is_some_and(|d| d.contains("+We utilize the caches here."))
    );
    assert_ne!(doc["rev_before"], doc["rev_after"]);
    // The change is recorded in the store with the fingerprint.
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    let changes = store.changes().unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].fingerprint.as_deref(), r["fingerprint"].as_str());
    assert_eq!(changes[0].actor_kind, "person");
}

#[test]
fn dry_run_prints_a_diff_per_document_and_writes_nothing() {
    let kapi = shop();
    let (a, ra, _) = block(&kapi, "docs/guide.md", "dashboard");
    let (b, rb, _) = block(&kapi, "docs/notes.md", "second");
    let change = set(json!([
        {"op": "replace_text", "at": a, "if_match": ra, "find": "start", "replace": "begin"},
        {"op": "set_content", "at": b, "if_match": rb, "content": "A third file."}
    ]));
    let guide = kapi.read("docs/guide.md");
    let run = apply(&kapi, &change, &["--dry-run"]);
    insta::assert_snapshot!("apply_dry_run", run.transcript());
    assert_eq!(run.code, 0);
    assert_eq!(kapi.read("docs/guide.md"), guide);
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    assert!(
        !kapi.path().join(".kapi/work/store.db").exists() || {
            let store =
                kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
            store.changes().unwrap().is_empty()
        }
    );
    let json = apply(&kapi, &change, &["--dry-run", "--json"]).json();
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["documents"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["documents"][0]["written"], false);
}

#[test]
fn print_ops_echoes_the_decoded_set_and_stdin_is_read() {
    let kapi = Kapi::empty();
    let lines = "{\"schema\":\"kapi.change/v1\",\"gate\":\"report\"}\n{\"op\":\"replace_text\",\"at\":{\"doc\":\"a.md\",\"block\":\"p\"},\"if_match\":\"*\",\"find\":\"a\",\"replace\":\"b\"}\n";
    let run = kapi.run_stdin(&["apply", "-", "--print-ops"], lines.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("apply_print_ops", run.stdout);
}

#[test]
fn a_refusal_writes_nothing_and_every_other_operation_is_not_applied() {
    let kapi = shop();
    let (a, ra, _) = block(&kapi, "docs/guide.md", "dashboard");
    let (b, rb, _) = block(&kapi, "docs/notes.md", "second");
    let change = set(json!([
        {"op": "set_content", "at": b, "if_match": rb, "content": "A third file."},
        // Drops the close tag of the bold pair.
        {"op": "set_content", "at": a, "if_match": ra, "content": "Open the <x id=\"1\"/>dashboard."},
        {"op": "term", "term": {"text": "cache", "lang": "en", "status": "preferred"}}
    ]));
    let terms = kapi.read(".kapi/terms.yaml");
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3);
    assert_eq!(statuses(&run), ["not_applied", "guard", "not_applied"]);
    let r = run.json();
    assert_eq!(r["operations"][1]["guard"]["code"], "1");
    assert_eq!(r["operations"][1]["guard"]["problem"], "unbalanced");
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    assert_eq!(kapi.read(".kapi/terms.yaml"), terms);
    assert!(temp_files(&kapi).is_empty());
    let text = apply(&kapi, &change, &[]);
    insta::assert_snapshot!("apply_refused", text.transcript());
}

#[test]
fn not_found_and_unsupported_name_what_is_wrong() {
    let kapi = shop();
    kapi.write("src/main.php", "<?php\n// Say hello.\necho 1;\n");
    kapi.write(
        "po/fr.po",
        "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Hello\"\nmsgstr \"Bonjour\"\n",
    );
    let (code_at, code_rev, _) = block(&kapi, "docs/guide.md", "rm -rf");
    let (po_at, po_rev, _) = block(&kapi, "po/fr.po", "Hello");
    let cases = [
        (
            json!({"doc": "docs/guide.md", "block": "nope"}),
            "r0000000000000000".to_owned(),
            "not_found",
            "has no block `nope`",
        ),
        (
            json!({"doc": "docs/missing.md", "block": "p"}),
            "r0000000000000000".to_owned(),
            "not_found",
            "no document",
        ),
        (
            json!({"doc": "docs/guide.md", "block": "s1/p", "edition": "de"}),
            "r0000000000000000".to_owned(),
            "not_found",
            "no `de` edition",
        ),
        (code_at, code_rev, "unsupported", "a code block"),
        (po_at, po_rev, "unsupported", "bilingual interchange format"),
        (
            json!({"doc": "src/main.php", "block": "c"}),
            "r0000000000000000".to_owned(),
            "unsupported",
            "source code",
        ),
    ];
    for (at, rev, status, message) in cases {
        let change = set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "x"}]));
        let run = apply(&kapi, &change, &["--json"]);
        assert_eq!(run.code, 3, "{at}: {}", run.stdout);
        let op = &run.json()["operations"][0];
        assert_eq!(op["status"], status, "{at}: {op}");
        assert!(
            op["message"].as_str().is_some_and(|m| m.contains(message)),
            "{at}: {op}"
        );
    }
}

#[test]
fn a_forbidden_term_introduced_fails_the_gate_unless_a_person_reports() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let mut doc = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "set_content", "at": at, "if_match": rev, "content": "We utilize a second file."}]});
    let run = apply(&kapi, &doc.to_string(), &["--json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    let op = &run.json()["operations"][0];
    assert_eq!(op["status"], "gate_failed");
    assert_eq!(op["findings"][0]["rule"], "terms.forbidden");
    assert_eq!(op["findings"][0]["introduced"], true);
    assert_eq!(op["findings"][0]["matched"], "utilize");
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");

    doc["gate"] = json!("report");
    let as_agent = {
        let mut cmd = kapi.command(&["apply", "change.json", "--json"]);
        kapi.write("change.json", doc.to_string());
        cmd.env("KAPI_ACTOR", "agent:claude");
        let out = cmd.output().expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(as_agent.0, Some(3), "{}", as_agent.1);
    assert!(as_agent.1.contains("\"not_permitted\""), "{}", as_agent.1);
    let tool = {
        let mut cmd = kapi.command(&["apply", "change.json", "--json"]);
        cmd.env("KAPI_ACTOR", "tool:mt");
        cmd.arg("--dry-run");
        cmd.output().expect("runs")
    };
    assert_eq!(tool.status.code(), Some(0), "a tool may choose report");
    let run = apply(&kapi, &doc.to_string(), &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.json()["operations"][0]["findings"][0]["introduced"],
        true
    );
    assert!(
        kapi.read("docs/notes.md")
            .contains("We utilize a second file.")
    );
}

fn run_as(kapi: &Kapi, actor: &str, change: &str) -> (i32, Value) {
    kapi.write("change.json", change);
    let mut cmd = kapi.command(&["apply", "change.json", "--json"]);
    cmd.env("KAPI_ACTOR", actor);
    let out = cmd.output().expect("runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn an_agent_may_edit_and_advise_and_nothing_else() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let refused = [
        json!({"op": "term", "term": {"text": "cache", "lang": "en", "status": "preferred"}}),
        json!({"op": "memory", "pair": {"source": "Save", "target": "Enregistrer", "target_lang": "fr"}}),
        json!({"op": "recipe", "field": "name", "value": "x"}),
        json!({"op": "decide", "at": at, "if_match": rev, "outcome": "establish"}),
        json!({"op": "set_content", "at": at, "if_match": "*", "content": "Blind."}),
    ];
    for op in &refused {
        let (code, r) = run_as(&kapi, "agent:claude", &set(json!([op])));
        assert_eq!(code, 3, "{op}");
        let o = &r["operations"][0];
        assert_eq!(o["status"], "not_permitted", "{op}: {o}");
        assert!(o["instead"].as_str().is_some_and(|s| !s.is_empty()), "{op}");
        assert_eq!(r["actor"]["kind"], "agent");
        assert_eq!(r["actor"]["name"], "claude");
    }
    let (_, r) = run_as(&kapi, "agent:claude", &set(json!([refused[0].clone()])));
    assert!(
        r["operations"][0]["instead"]
            .as_str()
            .unwrap_or_default()
            .contains("kapi context note")
    );
    // Content and advice are the agent's to send.
    let ok = set(json!([
        {"op": "set_content", "at": at, "if_match": rev, "content": "A better second file."},
        {"op": "decide", "at": at, "if_match": rev, "outcome": "advise", "score": 80, "reasons": ["clear"]}
    ]));
    let (code, r) = run_as(&kapi, "agent:claude", &ok);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["operations"][1]["landed"], "store");
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    let advice = store.advice_rows().unwrap();
    assert_eq!(advice.len(), 1);
    // Bound to the revision after the edit it rode with.
    let (_, now, _) = block(&kapi, "docs/notes.md", "better");
    assert_eq!(advice[0], ("s1/p".to_owned(), now, "80".to_owned()));
    assert!(!kapi.path().join(".kapi/decisions.jsonl").exists());
}

#[test]
fn an_unknown_actor_kind_is_refused_every_operation() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let change = set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "x"}]));
    for actor in ["robot:x", "agent:", "persons"] {
        let (code, r) = run_as(&kapi, actor, &change);
        assert_eq!(code, 3, "{actor}");
        assert_eq!(r["operations"][0]["status"], "not_permitted", "{actor}");
    }
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
}

#[test]
fn a_persons_assets_land_in_the_committed_files_and_the_store() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "locales/en.json", "Goodbye");
    let change = set(json!([
        {"op": "term", "term": {"text": "employ", "lang": "en", "status": "deprecated", "replaces": "use", "replacement": "use"}},
        {"op": "memory", "pair": {"source": "Goodbye", "target": "Au revoir", "target_lang": "fr", "status": "reviewed"}},
        {"op": "recipe", "field": "defaults.target_languages", "value": ["fr", "de"]},
        {"op": "decide", "at": at, "if_match": rev, "outcome": "establish"}
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let r = run.json();
    assert_eq!(statuses(&run), ["applied", "applied", "applied", "applied"]);
    assert_eq!(r["operations"][0]["landed"], ".kapi/terms.yaml");
    // The terms file keeps its comments and gains the term in the `use` concept.
    let terms = kapi.read(".kapi/terms.yaml");
    assert!(
        terms
            .starts_with("# Terms for the shop.\nversion: v1\nconcepts:\n  # Plain words first.\n"),
        "{terms}"
    );
    assert!(terms.contains("utilize   # never"), "{terms}");
    assert!(terms.contains("text: employ"), "{terms}");
    assert!(
        !terms.contains("- id: employ"),
        "joined `use`, not a new concept:\n{terms}"
    );
    // The recipe is edited in place: the person's comment and layout stay.
    assert_eq!(
        kapi.read("kapi.yaml"),
        RECIPE.replace("target_languages: [fr]", "target_languages: [fr, de]")
    );
    let decisions = kapi.read(".kapi/decisions.jsonl");
    let line: Value = serde_json::from_str(decisions.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(line["outcome"], "establish");
    assert_eq!(line["rev"], rev.as_str());
    assert_eq!(line["by"]["kind"], "person");
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    assert_eq!(
        store.term_rows().unwrap(),
        [("en".into(), "employ".into(), "deprecated".into())]
    );
    assert_eq!(
        store.memory_rows().unwrap(),
        [("Goodbye".into(), "fr".into(), "Au revoir".into())]
    );
    let ops = store.ops(&Default::default()).unwrap();
    let kinds: Vec<&str> = ops.iter().map(|o| o.kind.as_str()).collect();
    assert_eq!(kinds, ["term", "memory", "recipe", "decide"]);
    assert!(
        ops.iter()
            .all(|o| o.actor_kind == "person" && o.session == "s-test")
    );
    // The same set again changes nothing in the files (the decision is re-recorded only at a
    // new revision: this one is the same, so it is appended as the person asked).
    let again = apply(&kapi, &change, &["--json"]).json();
    assert_eq!(again["operations"][0]["status"], "unchanged");
    assert_eq!(again["operations"][2]["status"], "unchanged");
    assert_eq!(kapi.read(".kapi/terms.yaml"), terms);
}

#[test]
fn asset_operations_need_a_project() {
    let kapi = Kapi::empty();
    let change =
        set(json!([{"op": "memory", "pair": {"source": "a", "target": "b", "target_lang": "fr"}}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3);
    assert_eq!(statuses(&run), ["unsupported"]);
}

#[test]
fn a_target_edition_is_edited_in_its_translation_file() {
    let kapi = shop();
    let read = kapi
        .run(&["inspect", "locales/en.json", "--editions", "fr", "--json"])
        .json();
    let greeting = &read["blocks"][0];
    let fr = &greeting["editions"]["fr"];
    assert_eq!(fr["text"], "Bonjour <x id=\"1/\"/>");
    let at = json!({"doc": "locales/en.json", "block": greeting["ref"]["block"], "edition": "fr"});
    let lost =
        set(json!([{"op": "set_content", "at": at, "if_match": fr["rev"], "content": "Salut"}]));
    let run = apply(&kapi, &lost, &["--json"]);
    assert_eq!(statuses(&run), ["guard"]);
    let ok = set(
        json!([{"op": "set_content", "at": at, "if_match": fr["rev"], "content": "Salut <x id=\"1/\"/>"}]),
    );
    let run = apply(&kapi, &ok, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["documents"][0]["doc"], "locales/fr.json");
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"greeting\": \"Salut {name}\",\n  \"bye\": \"Au revoir\"\n}\n"
    );
    assert!(kapi.read("locales/en.json").contains("Hello {name}"));

    // The translation file named as its own document is the same edition of the source:
    // one file reached both ways in one set is one document, written once with both edits.
    let read = kapi
        .run(&["inspect", "locales/en.json", "--editions", "fr", "--json"])
        .json();
    let fr_rev = read["blocks"][1]["editions"]["fr"]["rev"].clone();
    let (direct, direct_rev, _) = block(&kapi, "locales/fr.json", "Salut");
    let both = set(json!([
        {"op": "set_content", "at": {"doc": "locales/en.json", "block": "bye", "edition": "fr"},
         "if_match": fr_rev, "content": "Salut !"},
        {"op": "set_content", "at": direct, "if_match": direct_rev, "content": "Coucou <x id=\"1/\"/>"}
    ]));
    let run = apply(&kapi, &both, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(statuses(&run), ["applied", "applied"]);
    assert_eq!(run.json()["documents"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"greeting\": \"Coucou {name}\",\n  \"bye\": \"Salut !\"\n}\n"
    );
}

#[test]
fn a_change_set_that_does_not_decode_exits_2_and_writes_nothing() {
    let kapi = shop();
    let good = r#"{"op":"set_content","at":{"doc":"docs/notes.md","block":"s1/p"},"if_match":"*","content":"x"}"#;
    let many = format!("{good}\n").repeat(100_000);
    let cases: Vec<(String, &str)> = vec![
        ("this is not json".into(), "not JSON"),
        (
            r#"{"schema":"kapi.change/v9","operations":[]}"#.into(),
            "unknown schema",
        ),
        (
            r#"{"op":"rename","at":{}}"#.into(),
            "operations[0].op: unknown operation `rename`",
        ),
        (
            format!("{good}\n{}", good.replace("\"content\"", "\"contnet\"")),
            "line 2: operations[1].contnet: unknown field",
        ),
        (
            good.replace("docs/notes.md", "../outside.md"),
            "operations[0].at.doc: `../outside.md` leaves the project",
        ),
        (
            r#"{"schema":"kapi.change/v1","actor":{"kind":"person"},"operations":[]}"#.into(),
            "actor: unknown field",
        ),
        (many, "at most 10000 operations"),
    ];
    for (input, wanted) in cases {
        let run = apply(&kapi, &input, &[]);
        assert_eq!(run.code, 2, "{wanted}: {}", run.stderr);
        assert!(run.stderr.contains(wanted), "{wanted}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    }
    // An absolute path decodes (a read outside a project hands one out), and a project
    // refuses one outside it.
    let outside = apply(
        &kapi,
        &good.replace("docs/notes.md", "/etc/passwd"),
        &["--json"],
    );
    assert_eq!(outside.code, 3, "{}", outside.transcript());
    assert_eq!(statuses(&outside), ["not_permitted"]);
    let envelope = apply(&kapi, "[", &["--json"]);
    assert_eq!(envelope.code, 2);
    assert_eq!(envelope.stderr_json()["code"], "usage");
    let missing = kapi.run(&["apply", "nope.json"]);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(temp_files(&kapi).is_empty());
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_project_is_not_permitted() {
    let kapi = shop();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "# Secret\n\nKeep out.\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        kapi.path().join("docs/link.md"),
    )
    .unwrap();
    let change = set(
        json!([{"op": "set_content", "at": {"doc": "docs/link.md", "block": "secret/p"},
                              "if_match": "*", "content": "Opened."}]),
    );
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(statuses(&run), ["not_permitted"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.md")).unwrap(),
        "# Secret\n\nKeep out.\n"
    );
}

#[test]
fn an_interrupted_write_reports_exactly_which_documents_landed() {
    let kapi = shop().env("KAPI_TEST_FAIL_RENAME", "1");
    let (a, ra, _) = block(&kapi, "docs/guide.md", "dashboard");
    let (b, rb, _) = block(&kapi, "docs/notes.md", "second");
    let change = set(json!([
        {"op": "replace_text", "at": a, "if_match": ra, "find": "start", "replace": "begin"},
        {"op": "set_content", "at": b, "if_match": rb, "content": "A third file."}
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let r = run.json();
    assert_eq!(r["status"], "partial");
    assert_eq!(r["documents"][0]["doc"], "docs/guide.md");
    assert_eq!(r["documents"][0]["written"], true);
    assert_eq!(r["documents"][1]["doc"], "docs/notes.md");
    assert_eq!(r["documents"][1]["written"], false);
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("landed: docs/guide.md"))
    );
    assert_eq!(statuses(&run), ["applied", "not_applied"]);
    // Each file is wholly old or wholly new, and no temporary file is left.
    assert_eq!(
        kapi.read("docs/guide.md"),
        GUIDE.replace("to start", "to begin")
    );
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    assert!(temp_files(&kapi).is_empty());
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    assert_eq!(store.changes().unwrap()[0].status, "partial");
}

#[test]
fn two_processes_on_one_document_one_lands_the_other_is_stale() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    for (name, text) in [
        ("one.json", "First writer."),
        ("two.json", "Second writer."),
    ] {
        kapi.write(
            name,
            set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": text}])),
        );
    }
    let spawn = |name: &str| {
        kapi.command(&["apply", name, "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawns")
    };
    let (one, two) = (spawn("one.json"), spawn("two.json"));
    let outs = [
        one.wait_with_output().unwrap(),
        two.wait_with_output().unwrap(),
    ];
    let mut codes: Vec<i32> = outs.iter().map(|o| o.status.code().unwrap_or(-1)).collect();
    codes.sort_unstable();
    assert_eq!(codes, [0, 3], "exactly one lands");
    let loser = outs.iter().find(|o| o.status.code() == Some(3)).unwrap();
    let r: Value = serde_json::from_slice(&loser.stdout).unwrap();
    assert_eq!(r["operations"][0]["status"], "stale");
    let winner_text = r["operations"][0]["current"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(kapi.read("docs/notes.md").contains(&winner_text));
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    assert_eq!(store.changes().unwrap().len(), 1, "one change recorded");
}

#[test]
fn schema_change_prints_the_json_schema() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["schema", "change"]);
    assert_eq!(run.code, 0);
    let schema = run.json();
    assert_eq!(schema["$id"], "kapi.change/v1");
    let ops: Vec<&str> = schema["properties"]["operations"]["items"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["properties"]["op"]["const"].as_str())
        .collect();
    assert_eq!(
        ops,
        [
            "set_content",
            "replace_text",
            "decide",
            "term",
            "memory",
            "note",
            "recipe"
        ]
    );
    assert!(kapi.run(&["schema"]).stdout.contains("change"));
    assert_eq!(kapi.run(&["schema", "nope"]).code, 2);
}

#[test]
fn help_changes_documents_the_format() {
    let run = Kapi::empty().run(&["help", "changes"]);
    assert_eq!(run.code, 0);
    for word in [
        "set_content",
        "not_permitted",
        "gate_failed",
        "KAPI_ACTOR",
        "--dry-run",
    ] {
        assert!(run.stdout.contains(word), "{word}");
    }
}

/// For every format kapi edits: the `rev` an applied edit reports is the one a fresh
/// `kapi inspect` gives, also when the text it sent spells a placeholder the format reads as
/// an inline code (`{extra}` in a catalog reads back as a code, not as text).
#[test]
fn the_rev_an_edit_reports_is_the_one_a_fresh_read_gives_in_every_editable_format() {
    let docx = std::fs::read(crate::testdata().join("formats/docx/basic.docx"))
        .unwrap_or_else(|e| panic!("basic.docx: {e}"));
    let files: &[(&str, &[u8], &str)] = &[
        ("a.md", b"# Title\n\nSome old text.\n", "Some old"),
        ("a.txt", b"Some old text.\n\nMore.\n", "Some old"),
        (
            "a.html",
            b"<html><body><p>Some old text.</p></body></html>\n",
            "Some old",
        ),
        ("a.json", b"{\"k\": \"Some old text\"}\n", "Some old"),
        ("a.yaml", b"en:\n  k: Some old text\n", "Some old"),
        ("a.properties", b"k=Some old text\n", "Some old"),
        (
            "res/values/strings.xml",
            b"<resources>\n  <string name=\"k\">Some old text</string>\n</resources>\n",
            "Some old",
        ),
        ("a.docx", &docx, ""),
    ];
    let kapi = Kapi::empty();
    for (doc, bytes, needle) in files {
        for content in ["New words, {extra} and %s, 100%", "Plain new words."] {
            kapi.write(doc, bytes);
            let (at, rev, _) = block(&kapi, doc, needle);
            let change =
                set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": content}]));
            let run = apply(&kapi, &change, &["--json"]);
            assert_eq!(run.code, 0, "{doc}: {}", run.stdout);
            let reported = run.json()["operations"][0]["rev"].clone();
            let read = kapi.run(&["inspect", doc, "--json"]).json();
            let fresh = read["blocks"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|b| b["ref"] == at)
                .map(|b| b["rev"].clone());
            assert_eq!(Some(&reported), fresh.as_ref(), "{doc}: {content}");
        }
    }
}

/// A translation file named as its own document is its source's edition in that language:
/// the commit check holds it to `placeholders` against the source, as `kapi check` does.
#[test]
fn an_agent_cannot_land_a_placeholder_the_gate_fails_in_either_form_of_a_translation() {
    let kapi = shop().env("KAPI_ACTOR", "agent:test");
    let before = kapi.read("locales/fr.json");
    let read = kapi
        .run(&["inspect", "locales/en.json", "--editions", "fr", "--json"])
        .json();
    let fr_rev = read["blocks"][0]["editions"]["fr"]["rev"].clone();
    let (direct, direct_rev, _) = block(&kapi, "locales/fr.json", "Bonjour");
    let edits = [
        (
            json!({"doc": "locales/en.json", "block": "greeting", "edition": "fr"}),
            fr_rev,
        ),
        (direct, json!(direct_rev)),
    ];
    for (at, rev) in &edits {
        for content in [
            "Bonjour <x id=\"1/\"/> {extra}",
            "Bonjour <x id=\"1/\"/> %s",
        ] {
            let change =
                set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": content}]));
            let run = apply(&kapi, &change, &["--json"]);
            assert_eq!(run.code, 3, "{at}: {}", run.stdout);
            assert_eq!(statuses(&run), ["gate_failed"], "{at}: {}", run.stdout);
            let findings = &run.json()["operations"][0]["findings"];
            assert_eq!(findings[0]["rule"], "placeholders.extra", "{findings}");
            assert_eq!(kapi.read("locales/fr.json"), before);
        }
    }
    // `kapi check` on the file says the same of what is there now: it passes.
    let check = kapi.run(&["check", "locales/fr.json"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
}

/// An edit the format would read back as something else is refused, nothing written: a blank
/// line in a plain-text paragraph would split it in two. Whitespace around the whole text is
/// the format's, and lands as the format keeps it.
#[test]
fn an_edit_that_would_not_read_back_as_sent_is_refused() {
    let kapi = Kapi::empty();
    kapi.write("a.txt", "Some old text.\n\nMore.\n");
    let (at, rev, _) = block(&kapi, "a.txt", "Some old");
    let split =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "One.\n\nTwo."}]));
    let run = apply(&kapi, &split, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(statuses(&run), ["unsupported"]);
    assert_eq!(kapi.read("a.txt"), "Some old text.\n\nMore.\n");

    kapi.write("a.md", "# T\n\nSome old text.\n");
    let (at, rev, _) = block(&kapi, "a.md", "Some old");
    let padded =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "  New text.  "}]));
    let run = apply(&kapi, &padded, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let (_, fresh, text) = block(&kapi, "a.md", "New text");
    assert_eq!(text, "New text.");
    assert_eq!(run.json()["operations"][0]["rev"], fresh);
}

/// A write that fails before any document landed is `refused` (nothing written, nothing
/// recorded), exit 1: not `partial`.
#[test]
fn a_write_that_fails_before_anything_landed_is_refused_not_partial() {
    let kapi = shop().env("KAPI_TEST_FAIL_RENAME", "0");
    let (a, ra, _) = block(&kapi, "docs/guide.md", "dashboard");
    let change = set(json!([
        {"op": "replace_text", "at": a, "if_match": ra, "find": "start", "replace": "begin"}
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let r = run.json();
    assert_eq!(r["status"], "refused", "{r:#}");
    assert_eq!(r["documents"][0]["written"], false);
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("nothing was written")),
        "{r:#}"
    );
    assert_eq!(statuses(&run), ["not_applied"]);
    assert_eq!(kapi.read("docs/guide.md"), GUIDE);
    assert!(temp_files(&kapi).is_empty());
    let store = kapi_core::store::Store::open(&kapi.path().join(".kapi/work/store.db")).unwrap();
    assert!(store.changes().unwrap().is_empty());
}

/// A recipe field the in-place editor cannot set (here under an anchor) is refused
/// `unsupported`, the set writes nothing, and kapi.yaml keeps every comment: never a whole
/// save that strips them.
#[test]
fn a_recipe_change_kapi_cannot_make_in_place_is_refused_not_saved_whole() {
    let kapi = shop();
    let recipe = RECIPE.replace(
        "defaults:\n  source_language: en\n  target_languages: [fr]\n",
        "defaults: &d\n  source_language: en\n  target_languages: [fr]\n",
    );
    kapi.write("kapi.yaml", &recipe);
    let change = set(json!([
        {"op": "recipe", "field": "defaults.target_languages", "value": ["fr", "de"]}
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(statuses(&run), ["unsupported"]);
    let op = &run.json()["operations"][0];
    assert!(
        op["message"]
            .as_str()
            .is_some_and(|m| m.contains("in place")),
        "{op}"
    );
    assert_eq!(kapi.read("kapi.yaml"), recipe);
}

/// Every write keeps an existing file's mode: an edited document and the terms file alike.
#[test]
fn a_written_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let kapi = shop();
    let mode = |rel: &str| {
        std::fs::metadata(kapi.path().join(rel))
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
    };
    for rel in ["docs/notes.md", ".kapi/terms.yaml"] {
        std::fs::set_permissions(
            kapi.path().join(rel),
            std::fs::Permissions::from_mode(0o640),
        )
        .expect("chmod");
    }
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let change = set(json!([
        {"op": "set_content", "at": at, "if_match": rev, "content": "A third file."},
        {"op": "term", "term": {"text": "employ", "lang": "en", "status": "deprecated", "replaces": "use", "replacement": "use"}}
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(mode("docs/notes.md"), 0o640);
    assert_eq!(mode(".kapi/terms.yaml"), 0o640);
}

/// A temporary file a killed `kapi apply` left beside a document is removed by the next
/// apply of it; one of a process still running is left alone.
#[test]
fn the_next_apply_removes_what_a_killed_one_left() {
    let kapi = shop();
    kapi.write("docs/.notes.md.4194305.a1b2c3.kapi-tmp", "half a write");
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let change =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "A third file."}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(temp_files(&kapi).is_empty(), "{:?}", temp_files(&kapi));
}

/// A file kapi decodes (ISO-8859-1 properties, UTF-16 text) is read back from its written
/// bytes, which are then the bytes that land, in the file's own encoding.
#[test]
fn an_edit_that_would_change_how_a_file_decodes_is_refused() {
    // Latin-1 (a lone 0xE9 is no UTF-8) with one line that is also UTF-8 for `é`: an edit
    // that takes the lone byte out leaves a file the next read decodes as UTF-8, so the
    // other line would read `é` where it read `Ã©`.
    let kapi = shop();
    let before = b"first=Caf\xc3\xa9\nsecond=Caf\xe9 open\n".to_vec();
    kapi.write("docs/labels.properties", &before);
    let (at, rev, _) = block(&kapi, "docs/labels.properties", "open");
    let change = set(json!([{"op": "set_content", "at": at, "if_match": rev,
        "content": "Closed"}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let out = run.json();
    assert_eq!(out["status"], "refused");
    let message = out["operations"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("another encoding than ISO-8859-1"),
        "{message}"
    );
    let after = std::fs::read(kapi.path().join("docs/labels.properties")).unwrap_or_default();
    assert_eq!(after, before);
}

#[test]
fn an_edit_of_a_file_in_another_encoding_lands_in_that_encoding() {
    let kapi = shop();
    kapi.write("docs/labels.properties", b"greeting=Caf\xe9 open\n");
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "Caf\u{e9} open\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    kapi.write("docs/notes.txt", &utf16);
    for (doc, want) in [
        (
            "docs/labels.properties",
            b"greeting=Caf\xe9 shut\n".to_vec(),
        ),
        ("docs/notes.txt", {
            let mut out = vec![0xFF, 0xFE];
            for unit in "Caf\u{e9} shut\n".encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
            out
        }),
    ] {
        let (at, rev, _) = block(&kapi, doc, "open");
        let change = set(json!([{"op": "replace_text", "at": at, "if_match": rev,
            "find": "open", "replace": "shut"}]));
        let run = apply(&kapi, &change, &["--json"]);
        assert_eq!(run.code, 0, "{doc}: {}", run.transcript());
        assert_eq!(run.json()["status"], "applied", "{doc}");
        let written = std::fs::read(kapi.path().join(doc)).unwrap_or_default();
        assert_eq!(written, want, "{doc}");
    }
}

/// The splice path held to the full path through the binary.
#[path = "apply_splice.rs"]
mod splice;
