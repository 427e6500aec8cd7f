//! The brief with what a project learned (`kapi context PATH`): the kept notes that hold at the
//! path, the wording that stays because a rename was held to a sibling folder, and the pending
//! suggestions, marked as not yet established. (`kapi context search` is tested in
//! `host/src/search.rs` until the verb is wired.)

use kapi_core::project::layout::STORE_FILE;
use kapi_core::store::{NewOp, NewSuggestion, SessionRow, Store};

use super::Kapi;

const RECIPE: &str = "version: v1\nname: notes\n";

const TERMS: &str = "\
version: v1
concepts:
  - id: sign-in
    terms:
      - {text: sign in, lang: en, status: preferred}
      - {text: login, lang: en, status: deprecated}
";

const NOTES: &str = "\
version: v1
notes:
  - id: n7
    text: Product names keep their capitals.
  - id: n9
    path: help
    from: Workspace
    to: Space
    kept_by: person:ana
    kept_at: \"2026-11-29T10:00:00Z\"
";

/// A bound project with terms and kept notes written by hand.
fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write(".kapi/notes.yaml", NOTES);
    kapi
}

/// Records a suggestion through the store, as `kapi context note` does; returns its id.
fn suggest(kapi: &Kapi, path: &str, text: Option<&str>, change: Option<(&str, &str)>) -> String {
    let mut store = Store::open(&kapi.path().join(STORE_FILE)).expect("store opens");
    let at = "2026-11-29T09:00:00Z";
    store
        .touch_session(&SessionRow {
            id: "s-agent".into(),
            actor_kind: "agent".into(),
            actor_name: "test".into(),
            project: None,
            client: None,
            started_at: at.into(),
            last_seen: at.into(),
        })
        .expect("session");
    let noted = store
        .note(
            &NewSuggestion {
                kind: if change.is_some() {
                    "change"
                } else {
                    "observation"
                }
                .into(),
                path: path.into(),
                text: text.map(str::to_owned),
                from: change.map(|c| c.0.to_owned()),
                to: change.map(|c| c.1.to_owned()),
                suggest: None,
                actor_kind: "agent".into(),
                actor_name: "test".into(),
                session: "s-agent".into(),
                at: at.into(),
            },
            NewOp {
                kind: "note".into(),
                actor_kind: "agent".into(),
                actor_name: "test".into(),
                session: "s-agent".into(),
                path: Some(path.into()),
                payload: serde_json::json!({}),
                status: "pending".into(),
                created_at: at.into(),
            },
        )
        .expect("noted");
    noted.suggestion.id
}

/// The project with three pending suggestions (n1–n3): a change in `api` recorded twice with
/// an edit signal, an observation at the root, one in `help`.
fn project_with_pending() -> Kapi {
    let kapi = project();
    let api = suggest(&kapi, "api", None, Some(("Dashboard", "Overview")));
    suggest(&kapi, "api", None, Some(("dashboard", "overview")));
    suggest(&kapi, "", Some("Say \"you\", not \"the user\"."), None);
    suggest(&kapi, "help", Some("Steps are numbered."), None);
    let store = Store::open(&kapi.path().join(STORE_FILE)).expect("store opens");
    let n: i64 = api.trim_start_matches('n').parse().expect("an id");
    store.add_signals(&[n]).expect("signal");
    kapi
}

#[test]
fn brief_outside_a_held_rename_says_the_old_word_stays() {
    let kapi = project_with_pending();
    let run = kapi.run(&["context", "api/x.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!("context_brief_api_with_notes", run.stdout);
}

#[test]
fn brief_inside_a_held_rename_states_its_rule() {
    let kapi = project_with_pending();
    let run = kapi.run(&["context", "help/a.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!("context_brief_help_with_notes", run.stdout);
}

#[test]
fn brief_json_lists_kept_notes_and_pending_suggestions() {
    let kapi = project_with_pending();
    let json = kapi.run(&["context", "api/x.md", "--json"]).json();
    assert_eq!(
        json["kept_notes"],
        serde_json::json!([
            {"id": "n7", "path": "", "line": "Product names keep their capitals."},
            {"id": "n9", "path": "help",
             "line": "\"Workspace\" is correct here; do not rename it to \"Space\"."},
        ])
    );
    assert_eq!(
        json["pending"],
        serde_json::json!([
            {"id": "n2", "path": "", "line": "Say \"you\", not \"the user\".",
             "evidence": 1, "signals": 0},
            {"id": "n1", "path": "api", "line": "Write \"Overview\", not \"Dashboard\".",
             "evidence": 2, "signals": 1},
        ])
    );
}

#[test]
fn brief_with_nothing_learned_has_no_such_fields_or_sections() {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    let run = kapi.run(&["context", "api/x.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let json = run.json();
    assert!(json.get("kept_notes").is_none(), "{json}");
    assert!(json.get("pending").is_none(), "{json}");
    let md = kapi.run(&["context", "api/x.md"]).stdout;
    assert!(!md.contains("## Notes kept"), "{md}");
    assert!(!md.contains("## Pending"), "{md}");
    assert!(
        !kapi.path().join(STORE_FILE).exists(),
        "a brief never creates the store"
    );
}

#[test]
fn a_broken_notes_file_is_a_note_in_the_brief_not_a_failure() {
    let kapi = project();
    kapi.write(".kapi/notes.yaml", "version: v1\nnotes:\n  - id: n1\n");
    let run = kapi.run(&["context", "api/x.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let json = run.json();
    assert!(json.get("kept_notes").is_none(), "{json}");
    let notes: Vec<&str> = json["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("kept notes are left out: .kapi/notes.yaml")),
        "{notes:?}"
    );
}

#[test]
fn a_profile_brief_carries_only_what_holds_project_wide() {
    let kapi = project_with_pending();
    kapi.write(
        "kapi.yaml",
        "version: v1\nprofiles:\n  site:\n    channels: [web]\n",
    );
    let json = kapi.run(&["context", "--profile", "site", "--json"]).json();
    let ids = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|n| n["id"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(ids("kept_notes"), ["n7"]);
    assert_eq!(ids("pending"), ["n2"]);
}
