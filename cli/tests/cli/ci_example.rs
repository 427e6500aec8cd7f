//! The GitHub Actions example (`examples/ci/github-actions.yml`) as CI would run it: its
//! install step names this package, and its check step, run by `sh` in the sample project,
//! writes a SARIF 2.1.0 report that holds the sample's findings and exits 3 (the gate not met).

use std::path::Path;

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ci/github-actions.yml");
    std::fs::read_to_string(path).expect("the example is committed")
}

/// The `run:` of the step named `name`.
fn step(workflow: &str, name: &str) -> String {
    let mut lines = workflow
        .lines()
        .skip_while(|l| l.trim() != format!("- name: {name}"));
    lines.next();
    lines
        .map(str::trim)
        .take_while(|l| !l.starts_with("- "))
        .find_map(|l| l.strip_prefix("run: "))
        .unwrap_or_else(|| panic!("no `run:` in the step {name}"))
        .to_owned()
}

#[test]
#[allow(clippy::disallowed_methods)] // the test's own PATH, as `Kapi::command` reads it
fn the_github_actions_example_installs_kapi_and_uploads_a_sarif_report() {
    let workflow = example();
    let install = step(&workflow, "Install kapi");
    assert!(
        install.starts_with("cargo install --locked --git") && install.ends_with(" kapi"),
        "installs the root package `kapi`: {install}"
    );
    assert!(workflow.contains("sarif_file: kapi.sarif"), "{workflow}");
    assert!(workflow.contains("security-events: write"), "{workflow}");

    let check = step(&workflow, "Check");
    let tmp = tempfile::tempdir().expect("temp dir");
    super::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/handbook"),
        tmp.path(),
    );
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kapi"));
    let dir = bin.parent().expect("the binary's folder");
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let out = std::process::Command::new("sh")
        .args(["-c", &check])
        .current_dir(tmp.path())
        .env_clear()
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    assert_eq!(
        out.status.code(),
        Some(3),
        "the sample's planted findings fail the gate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: serde_json::Value = serde_json::from_slice(
        &std::fs::read(tmp.path().join("kapi.sarif")).expect("the step writes kapi.sarif"),
    )
    .expect("kapi.sarif is JSON");
    assert_eq!(sarif["version"], "2.1.0", "{sarif:#}");
    let results = sarif["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!results.is_empty(), "{sarif:#}");
    assert!(
        results.iter().all(
            |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .is_some_and(|u| !u.starts_with('/'))
        ),
        "paths relative to the repository, as code scanning maps them: {sarif:#}"
    );
}
