//! The sample project end to end, through the built binary only (`KAPI_BIN`, default
//! `target/debug/kapi`): `kapi check` reports exactly the violations `EXPECTED.md` plants.

use std::collections::BTreeSet;

use crate::common::{Bind, command, copy_dir, wire, workspace};

/// `(path, line, column, rule)` for each row of EXPECTED.md's findings table.
fn expected(markdown: &str) -> BTreeSet<(String, usize, usize, String)> {
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | # | file | line:col | text | rule | ...
        if cells.len() < 7 || cells[1].parse::<usize>().is_err() {
            continue;
        }
        let path = cells[2].trim_matches('`').to_owned();
        let (l, c) = cells[3]
            .split_whitespace()
            .find_map(|w| {
                let w = w.trim_matches(|c: char| c == '(' || c == ')');
                let (l, c) = w.split_once(':')?;
                Some((l.parse::<usize>().ok()?, c.parse::<usize>().ok()?))
            })
            .unwrap_or((0, 0));
        out.insert((path, l, c, cells[5].trim_matches('`').to_owned()));
    }
    out
}

#[test]
fn sample_project_reports_exactly_its_planted_violations() {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&workspace().join("examples/handbook"), dir.path());
    let want =
        expected(&std::fs::read_to_string(dir.path().join("EXPECTED.md")).expect("EXPECTED.md"));
    assert!(
        want.len() >= 8,
        "EXPECTED.md lists the planted violations: {want:?}"
    );

    let out = command(dir.path(), Bind::Discover)
        .args(["check", "--json"])
        .output()
        .expect("kapi runs (set KAPI_BIN or build target/debug/kapi)");
    assert_eq!(
        out.status.code(),
        Some(3),
        "the gate fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ctx = "kapi check --json";
    let report = wire::parse(&String::from_utf8_lossy(&out.stdout), ctx);
    let report = wire::decode(&report, ctx).check(ctx);
    let got: BTreeSet<(String, usize, usize, String)> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                f.line as usize,
                f.column as usize,
                f.rule.clone(),
            )
        })
        .collect();
    assert_eq!(got, want, "findings differ from EXPECTED.md");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expired"),
        "the expired profile's fallback is noted: {stderr}"
    );
}

#[test]
fn clean_pages_of_the_sample_pass_every_gate() {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&workspace().join("examples/handbook"), dir.path());
    for args in [
        &["check", "docs/install.md", "README.md"][..],
        &["check", "--ship", "docs/install.md", "README.md"][..],
    ] {
        let out = command(dir.path(), Bind::Discover)
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
