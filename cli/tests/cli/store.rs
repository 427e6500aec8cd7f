//! The store (`.kapi/work/store.db`) through the binary: concurrent writers all land (each
//! takes the write lock up front, so the busy timeout applies), and a store file that is empty,
//! not a SQLite database, or written by a newer kapi is refused by name and never replaced.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::{Kapi, Run};

const STORE: &str = ".kapi/work/store.db";

fn desk() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", "version: v1\nname: desk\n");
    kapi.write("docs/help/start.md", "# Start\n\nOpen your Workspace.\n");
    kapi
}

fn agent(kapi: &Kapi, session: &str, args: &[&str]) -> Run {
    kapi.run_env(
        &[("KAPI_ACTOR", "agent:test"), ("KAPI_SESSION", session)],
        args,
    )
}

fn note(kapi: &Kapi, text: &str) -> Run {
    agent(
        kapi,
        "s-test",
        &["context", "note", "--path", "docs/help", "--text", text],
    )
}

fn log_entries(kapi: &Kapi) -> Vec<Value> {
    let run = agent(kapi, "s-test", &["context", "log", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()["entries"]
        .as_array()
        .expect("entries is an array")
        .clone()
}

const WRITERS: usize = 8;
const NOTES: usize = 50;

/// 8 processes × 50 notes at once on a project with no store yet: every one exits 0 and the
/// store holds all 400 (before `BEGIN IMMEDIATE`, a few percent failed "database is locked").
#[test]
fn concurrent_notes_from_eight_processes_all_land() {
    let kapi = desk();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let kapi = &kapi;
                scope.spawn(move || {
                    let session = format!("s-writer-{w}");
                    let mut failed = Vec::new();
                    for n in 0..NOTES {
                        let text = format!("writer {w} saw note {n}");
                        let run = agent(
                            kapi,
                            &session,
                            &["context", "note", "--path", "docs/help", "--text", &text],
                        );
                        if run.code != 0 {
                            failed.push(format!(
                                "writer {w} note {n}: exit {}: {}",
                                run.code, run.stderr
                            ));
                        }
                    }
                    failed
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().expect("a writer thread panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} notes failed; first: {}",
        failures.len(),
        WRITERS * NOTES,
        failures[0]
    );
    let entries = log_entries(&kapi);
    let notes: BTreeSet<String> = entries
        .iter()
        .filter(|e| e["kind"] == "note")
        .filter_map(|e| e["evidence"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        notes.len(),
        WRITERS * NOTES,
        "every note is in the log once"
    );
    let suggestions: BTreeSet<&str> = entries
        .iter()
        .filter_map(|e| e["suggestion"].as_str())
        .collect();
    assert_eq!(
        suggestions.len(),
        WRITERS * NOTES,
        "one suggestion per note"
    );
}

/// Records one note, then puts `bytes` where the store was (its WAL gone with it).
fn store_replaced_by(bytes: &[u8]) -> Kapi {
    let kapi = desk();
    let first = note(&kapi, "a note that must not be lost");
    assert_eq!(first.code, 0, "{}", first.stderr);
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(kapi.path().join(format!("{STORE}{side}")));
    }
    kapi.write(STORE, bytes);
    kapi
}

/// Both verbs refuse the file by name with the fix, exit 1, and leave it byte for byte.
fn assert_refused(kapi: &Kapi, what: &str, fix: &str) {
    let before = std::fs::read(kapi.path().join(STORE)).expect("store file");
    for args in [
        &[
            "context",
            "note",
            "--path",
            "docs/help",
            "--text",
            "another",
        ][..],
        &["context", "log"][..],
        &["context", "log", "--json"][..],
    ] {
        let run = agent(kapi, "s-test", args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.transcript());
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.contains("store.db") && run.stderr.contains(what),
            "{args:?}: the error names the file and what is wrong with it:\n{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(fix),
            "{args:?}: the error says how to fix it:\n{}",
            run.stderr
        );
        assert_eq!(
            std::fs::read(kapi.path().join(STORE)).expect("store file"),
            before,
            "{args:?}: the store file is left as it was"
        );
        assert!(
            !kapi.path().join(format!("{STORE}-wal")).exists(),
            "{args:?}: no WAL is started beside a refused store"
        );
    }
}

const RESTORE: &str = "restore it from a backup, or delete it to start a new store";

#[test]
fn an_empty_store_file_is_refused_not_recreated() {
    let kapi = store_replaced_by(b"");
    assert_refused(&kapi, "is empty (0 bytes)", RESTORE);
    assert!(
        agent(&kapi, "s-test", &["context", "log", "--json"])
            .stderr
            .contains(".kapi/notes.yaml"),
        "the hint says kept context survives a new store"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_kept() {
    let kapi = store_replaced_by(&b"this is not a SQLite database, only some text\n".repeat(200));
    assert_refused(&kapi, "is not a SQLite database", RESTORE);
}

#[test]
fn a_store_from_a_newer_kapi_is_refused_and_kept() {
    let kapi = desk();
    let first = note(&kapi, "a note that must not be lost");
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The last connection checkpoints the WAL into the file on close, so the header is on
    // disk: `user_version` is the big-endian u32 at offset 60.
    assert!(!kapi.path().join(format!("{STORE}-wal")).exists());
    let mut bytes = std::fs::read(kapi.path().join(STORE)).expect("store file");
    bytes[60..64].copy_from_slice(&99u32.to_be_bytes());
    kapi.write(STORE, &bytes);
    assert_refused(&kapi, "schema version 99 is newer", "upgrade kapi");
}

#[test]
fn a_missing_store_is_created_and_the_note_recorded() {
    let kapi = desk();
    assert!(!kapi.path().join(STORE).exists());
    let log = agent(&kapi, "s-test", &["context", "log", "--json"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    assert!(
        !kapi.path().join(STORE).exists(),
        "reading the log creates no store"
    );
    let run = note(&kapi, "Writes Workspace with a capital W");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(kapi.path().join(STORE).is_file());
    let entries = log_entries(&kapi);
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries[0]["evidence"]["text"],
        "Writes Workspace with a capital W"
    );
}
