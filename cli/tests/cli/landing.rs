//! The order of landing (issue 15) through the binary: a store that cannot record refuses
//! before anything is written; after a document landed, an asset, the record or a signal
//! that fails turns the result `partial`, naming what landed, never an error with no result;
//! a folder swapped for a link while sets apply never lets a write out of the project.

use serde_json::{Value, json};

use crate::apply::{GUIDE, TERMS, apply, block, set, shop, statuses, temp_files};
use crate::{Kapi, Run};

const STORE: &str = ".kapi/work/store.db";

/// A set that edits the guide and adds a term (one document, one asset).
fn doc_and_term(kapi: &Kapi) -> String {
    let (a, ra, _) = block(kapi, "docs/guide.md", "dashboard");
    set(json!([
        {"op": "replace_text", "at": a, "if_match": ra, "find": "start", "replace": "begin"},
        {"op": "term", "term": {"text": "employ", "lang": "en", "status": "deprecated", "replacement": "use"}}
    ]))
}

fn changes(kapi: &Kapi) -> Vec<String> {
    kapi_core::store::Store::open(&kapi.path().join(STORE))
        .expect("store opens")
        .changes()
        .expect("changes")
        .into_iter()
        .map(|c| c.status)
        .collect()
}

/// A store kapi cannot record in refuses the set before the first document: exit 1, a
/// `refused` result whose `error` names the store, every file as it was.
fn assert_refused_before_writing(kapi: &Kapi, change: &str, what: &str) {
    let run = apply(kapi, change, &["--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let r = run.json();
    assert_eq!(r["status"], "refused", "{r:#}");
    let error = r["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("store.db") && error.contains(what) && error.contains("nothing was written"),
        "{r:#}"
    );
    assert_eq!(statuses(&run), ["not_applied", "not_applied"]);
    assert_eq!(r["documents"][0]["written"], false, "{r:#}");
    assert_eq!(kapi.read("docs/guide.md"), GUIDE);
    assert_eq!(kapi.read(".kapi/terms.yaml"), TERMS);
    assert!(temp_files(kapi).is_empty());
}

#[test]
fn a_store_of_a_newer_kapi_refuses_the_set_before_any_document_is_written() {
    let kapi = shop();
    let change = doc_and_term(&kapi);
    // A store a newer kapi migrated: schema version far ahead.
    drop(kapi_core::store::Store::open(&kapi.path().join(STORE)).expect("store"));
    let conn = rusqlite::Connection::open(kapi.path().join(STORE)).expect("sqlite");
    conn.pragma_update(None, "user_version", 999).expect("bump");
    drop(conn);
    assert_refused_before_writing(&kapi, &change, "newer");
}

#[test]
fn a_damaged_store_refuses_the_set_before_any_document_is_written() {
    let kapi = shop();
    let change = doc_and_term(&kapi);
    kapi.write(
        STORE,
        b"this is not a database, it is a note someone left".as_slice(),
    );
    assert_refused_before_writing(&kapi, &change, "not a SQLite");
}

/// Another writer holds the store's write lock past the busy timeout (as a hung process
/// would; a read-only file or folder fails the same probe): refused before writing.
#[test]
fn a_store_kapi_cannot_lock_refuses_the_set_before_any_document_is_written() {
    let kapi = shop();
    let change = doc_and_term(&kapi);
    drop(kapi_core::store::Store::open(&kapi.path().join(STORE)).expect("store"));
    let conn = rusqlite::Connection::open(kapi.path().join(STORE)).expect("sqlite");
    conn.execute_batch("BEGIN IMMEDIATE").expect("lock");
    assert_refused_before_writing(&kapi, &change, "locked");
    conn.execute_batch("ROLLBACK").expect("unlock");
}

#[test]
fn an_asset_that_fails_after_the_documents_landed_is_a_partial_result() {
    // File 0 is the guide, file 1 the terms file: its rename fails.
    let kapi = shop().env("KAPI_TEST_FAIL_RENAME", "1");
    let change = doc_and_term(&kapi);
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let r = run.json();
    assert_eq!(r["status"], "partial", "{r:#}");
    assert_eq!(r["documents"][0]["doc"], "docs/guide.md");
    assert_eq!(r["documents"][0]["written"], true, "{r:#}");
    let error = r["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("every document landed (docs/guide.md), but not .kapi/terms.yaml"),
        "{r:#}"
    );
    assert_eq!(statuses(&run), ["applied", "not_applied"]);
    assert_eq!(
        kapi.read("docs/guide.md"),
        GUIDE.replace("to start", "to begin")
    );
    assert_eq!(kapi.read(".kapi/terms.yaml"), TERMS);
    assert!(temp_files(&kapi).is_empty());
    assert_eq!(changes(&kapi), ["partial"]);
    // Text output says the same.
    let again = shop().env("KAPI_TEST_FAIL_RENAME", "1");
    let change = doc_and_term(&again);
    let text = apply(&again, &change, &[]);
    assert_eq!(text.code, 1, "{}", text.transcript());
    assert!(text.stdout.contains("partial"), "{}", text.transcript());
}

#[test]
fn a_record_that_fails_after_the_files_landed_is_a_partial_result_not_an_error() {
    let kapi = shop().env("KAPI_TEST_FAIL_RECORD", "1");
    let change = doc_and_term(&kapi);
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let r = run.json();
    assert_eq!(r["status"], "partial", "{r:#}");
    assert_eq!(r["documents"][0]["written"], true, "{r:#}");
    let error = r["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("every document and asset landed, but the change was not recorded"),
        "{r:#}"
    );
    // What landed is reported as landed.
    assert_eq!(statuses(&run), ["applied", "applied"]);
    assert_eq!(
        kapi.read("docs/guide.md"),
        GUIDE.replace("to start", "to begin")
    );
    assert!(kapi.read(".kapi/terms.yaml").contains("text: employ"));
    assert!(changes(&kapi).is_empty());
}

/// Three documents; the write pauses before the second rename until a signal arrives.
fn signalled(signal: &str) -> (Kapi, Run) {
    let kapi = shop().env("KAPI_TEST_PAUSE_RENAME", "1");
    kapi.write("docs/third.md", "# Third\n\nA third file.\n");
    let mut ops = Vec::new();
    for (doc, needle) in [
        ("docs/guide.md", "dashboard"),
        ("docs/notes.md", "second"),
        ("docs/third.md", "third"),
    ] {
        let (at, rev, _) = block(&kapi, doc, needle);
        ops.push(json!({"op": "replace_text", "at": at, "if_match": rev, "find": "file", "replace": "page"}));
    }
    ops[0] = {
        let (at, rev, _) = block(&kapi, "docs/guide.md", "dashboard");
        json!({"op": "replace_text", "at": at, "if_match": rev, "find": "start", "replace": "begin"})
    };
    kapi.write("change.json", set(Value::from(ops)));
    let child = kapi
        .command(&["apply", "change.json", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    // Wait until the first document landed (the write is then paused before the second).
    let guide = kapi.path().join("docs/guide.md");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(&guide).is_ok_and(|t| t == GUIDE) {
        assert!(
            std::time::Instant::now() < until,
            "the first document never landed"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let out = child.wait_with_output().expect("kapi finishes");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (kapi, run)
}

fn assert_interrupted_partial(kapi: &Kapi, run: &Run) {
    assert_eq!(run.code, 130, "{}", run.transcript());
    let r = run.json();
    assert_eq!(r["status"], "partial", "{r:#}");
    let written: Vec<bool> = r["documents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["written"] == true)
        .collect();
    assert_eq!(written, [true, false, false], "{r:#}");
    assert!(
        r["error"].as_str().is_some_and(
            |e| e.contains("stopped by a signal") && e.contains("landed: docs/guide.md")
        ),
        "{r:#}"
    );
    assert_eq!(statuses(run), ["applied", "not_applied", "not_applied"]);
    assert_eq!(
        kapi.read("docs/guide.md"),
        GUIDE.replace("to start", "to begin")
    );
    assert_eq!(kapi.read("docs/notes.md"), "# Notes\n\nA second file.\n");
    assert_eq!(kapi.read("docs/third.md"), "# Third\n\nA third file.\n");
    assert!(temp_files(kapi).is_empty(), "{:?}", temp_files(kapi));
    assert_eq!(changes(kapi), ["partial"]);
}

#[cfg(unix)]
#[test]
fn sigterm_between_two_documents_prints_what_landed_and_exits_130() {
    let (kapi, run) = signalled("TERM");
    assert_interrupted_partial(&kapi, &run);
}

#[cfg(unix)]
#[test]
fn sigint_between_two_documents_prints_what_landed_and_exits_130() {
    let (kapi, run) = signalled("INT");
    assert_interrupted_partial(&kapi, &run);
}

/// A folder swapped for a link to a folder outside, over and over while sets apply: every
/// apply either lands inside the project or is refused, and nothing outside ever changes.
#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_while_applying_never_lets_a_write_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let kapi = Kapi::bound().env("KAPI_SESSION", "s-race");
    kapi.write("kapi.yaml", "version: v1\nname: race\n");
    kapi.write("docs/a.md", "# A\n\nSome text here.\n");
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("a.md"), "# A\n\nSome text here.\n").expect("decoy");
    let (at, _, _) = block(&kapi, "docs/a.md", "Some text");
    let docs = kapi.path().join("docs");
    let real = kapi.path().join("docs.real");
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            // docs ⇄ link to outside, as fast as it goes.
            while !stop.load(Ordering::SeqCst) {
                if std::fs::rename(&docs, &real).is_ok() {
                    let _ = std::os::unix::fs::symlink(outside.path(), &docs);
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&docs);
                    let _ = std::fs::rename(&real, &docs);
                }
                std::thread::yield_now();
            }
        });
        for i in 0..60 {
            let change = set(json!([
                {"op": "set_content", "at": at, "if_match": "*", "content": format!("Edit number {i}.")}
            ]));
            let run = apply(&kapi, &change, &["--json"]);
            assert!(
                [0, 1, 3].contains(&run.code),
                "an apply ends in a result: {}",
                run.transcript()
            );
        }
        stop.store(true, Ordering::SeqCst);
    });
    let names: Vec<String> = std::fs::read_dir(outside.path())
        .expect("outside")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["a.md"], "nothing is created outside the project");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("a.md")).expect("decoy"),
        "# A\n\nSome text here.\n",
        "nothing outside the project is written"
    );
    assert!(temp_files(&kapi).is_empty());
}
