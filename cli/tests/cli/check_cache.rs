//! `kapi check`'s cache: an unchanged file's findings are reused, anything its findings depend
//! on (its bytes, the voice, the terms, the flags) is a miss, `--no-cache` turns it off, and
//! the report says how the run used it.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::Kapi;

/// The report's `cache`, `findings` count and the findings' lines, from `kapi check --json`.
fn check(kapi: &Kapi, args: &[&str]) -> (Value, usize, Vec<String>) {
    let mut all = vec!["check", "--json"];
    all.extend_from_slice(args);
    let run = kapi.run(&all);
    assert!(matches!(run.code, 0 | 3), "{}", run.transcript());
    let report: Value = serde_json::from_str(&run.stdout).expect("a kapi.check/v1 report");
    let findings = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{}:{}:{} {}", f["path"], f["line"], f["column"], f["rule"]))
        .collect();
    let count = report["summary"]["findings"].as_u64().expect("count") as usize;
    (report["cache"].clone(), count, findings)
}

fn used(reused: usize, checked: usize) -> Value {
    serde_json::json!({"reused": reused, "checked": checked})
}

/// Sets a file's modification time a minute back: settled, so its stat alone is trusted.
fn settle(path: &Path) {
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open");
    file.set_modified(SystemTime::now() - Duration::from_secs(60))
        .expect("set mtime");
}

#[test]
fn an_unchanged_file_reuses_its_findings_and_a_changed_one_is_checked() {
    let kapi = Kapi::with_project("mini");
    for file in ["docs/bad.md", "docs/clean.md"] {
        settle(&kapi.path().join(file));
    }
    let (cache, count, first) = check(&kapi, &["docs"]);
    assert_eq!(cache, used(0, 4));
    assert!(count > 0);
    let (cache, again_count, again) = check(&kapi, &["docs"]);
    assert_eq!(cache, used(4, 0), "nothing changed");
    assert_eq!((again_count, &again), (count, &first), "the same findings");

    // The bytes changed: that file alone is checked, and its new slip is found.
    kapi.write(
        "docs/clean.md",
        "A clean page. We utilize the the toolbar.\n",
    );
    let (cache, count_after, after) = check(&kapi, &["docs"]);
    assert_eq!(cache, used(3, 1));
    assert!(count_after > count, "{after:?}");
    assert!(after.iter().any(|f| f.contains("docs/clean.md")));

    // Touched, same bytes: the content decides, and the findings are reused.
    settle(&kapi.path().join("docs/clean.md"));
    let (cache, _, touched) = check(&kapi, &["docs"]);
    assert_eq!(cache, used(4, 0));
    assert_eq!(touched, after);
}

#[test]
fn a_changed_voice_or_terms_file_or_no_cache_checks_every_file() {
    let kapi = Kapi::with_project("mini");
    let (cache, _, _) = check(&kapi, &["docs/bad.md"]);
    assert_eq!(cache, used(0, 1));
    let (cache, _, _) = check(&kapi, &["docs/bad.md"]);
    assert_eq!(cache, used(1, 0));

    // The governance fingerprint is in the key: a new term is a miss, and is found.
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: bar\n    terms:\n      - text: toolbar\n        lang: en\n        status: forbidden\n",
    );
    let run = kapi.run(&["check", "docs/bad.md", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout).expect("report");
    assert_eq!(report["cache"], used(0, 1), "{}", run.transcript());

    // `--no-cache` checks every file and says nothing about a cache.
    let (cache, _, _) = check(&kapi, &["docs/bad.md", "--no-cache"]);
    assert_eq!(cache, Value::Null);
    // Under another working folder the report names the file differently: a miss.
    let run = kapi.run_in("docs", &["check", "bad.md", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout).expect("report");
    assert_eq!(report["cache"], used(0, 1), "{}", run.transcript());
    assert_eq!(report["findings"][0]["path"], "bad.md");
}

#[test]
fn a_broken_cache_or_another_builds_cache_is_never_trusted() {
    let kapi = Kapi::with_project("mini");
    let (_, count, first) = check(&kapi, &["docs/bad.md"]);
    let cache_dir = kapi.path().join(".kapi/work/cache");
    let builds: Vec<_> = std::fs::read_dir(&cache_dir)
        .expect("the cache folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(builds.len(), 1, "{builds:?}");
    // Every shard garbled: read as empty, the file is checked again, the result is the same.
    for shard in std::fs::read_dir(&builds[0]).expect("shards").flatten() {
        std::fs::write(shard.path(), b"{not json").expect("garble");
    }
    let (cache, again_count, again) = check(&kapi, &["docs/bad.md"]);
    assert_eq!(cache, used(0, 1));
    assert_eq!((again_count, again), (count, first));
    // Another kapi's cache is removed, never read.
    let other = cache_dir.join("check-0.0.0-old");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(other.join("00.json"), b"{}").expect("write");
    kapi.write("docs/bad.md", "Changed, so the cache is written.\n");
    check(&kapi, &["docs/bad.md"]);
    assert!(!other.exists(), "another build's cache is removed");
}

#[test]
fn the_text_report_says_when_findings_come_from_the_cache() {
    let kapi = Kapi::with_project("mini");
    let first = kapi.run(&["check", "docs/bad.md"]);
    assert!(!first.stdout.contains("cache"), "{}", first.transcript());
    let again = kapi.run(&["check", "docs/bad.md"]);
    assert!(
        again.stdout.contains(
            "1 of 1 files unchanged since their last check: their findings come from the cache (--no-cache checks every file)"
        ),
        "{}",
        again.transcript()
    );
    assert_eq!(again.code, first.code);
}
