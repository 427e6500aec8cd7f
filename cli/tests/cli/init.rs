//! `kapi init`: a new project from a Markdown tree, and an existing one left as it is.

use super::Kapi;

#[test]
fn init_creates_a_recipe_voice_terms_layout_and_store() {
    let kapi = Kapi::empty();
    kapi.write(
        "docs/guide.md",
        "# Guide\n\nThe tool is fast and you can use it with the rest of this project.\n",
    );
    kapi.write(
        "README.md",
        "# Readme\n\nThis is the readme of the project and you can read it.\n",
    );
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    for file in [
        "kapi.yaml",
        ".kapi/voice.yaml",
        ".kapi/terms.yaml",
        ".kapi/.gitignore",
        ".kapi/work/store.db",
    ] {
        assert!(
            kapi.path().join(file).exists(),
            "{file} missing: {}",
            run.transcript()
        );
    }
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("version: v1"), "{recipe}");
    assert!(recipe.contains("docs/**/*.md"), "{recipe}");
    assert!(recipe.contains("\"*.md\""), "{recipe}");
    assert!(recipe.contains("source_language: en"), "{recipe}");
    assert_eq!(kapi.read(".kapi/.gitignore"), "work/\n");
    // The new project checks right away.
    let mut check = kapi.command(&["check", "--json"]);
    check.env_remove("KAPI_NO_PROJECT");
    let out = check.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn init_detects_a_french_tree() {
    let kapi = Kapi::empty();
    kapi.write(
        "docs/guide.md",
        "# Guide\n\nLe projet est prêt et vous pouvez le lancer dans les dossiers des équipes pour une fois.\n",
    );
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["source_language"], "fr");
}

#[test]
fn init_on_an_existing_project_changes_nothing_it_does_not_own() {
    let kapi = Kapi::with_project("mini");
    let before = (
        kapi.read("kapi.yaml"),
        kapi.read(".kapi/voice.yaml"),
        kapi.read(".kapi/terms.yaml"),
    );
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    assert_eq!(report["existing"], true);
    let kept: Vec<&str> = report["kept"]
        .as_array()
        .expect("kept")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        kept.contains(&"kapi.yaml") && kept.contains(&".kapi/voice.yaml"),
        "{kept:?}"
    );
    assert_eq!(
        before,
        (
            kapi.read("kapi.yaml"),
            kapi.read(".kapi/voice.yaml"),
            kapi.read(".kapi/terms.yaml")
        )
    );
    let text = kapi.run(&["init"]);
    assert!(
        text.stdout.contains("yours, unchanged"),
        "{}",
        text.transcript()
    );
}

#[test]
fn init_on_a_broken_recipe_reports_it_and_writes_nothing() {
    let kapi = Kapi::empty();
    kapi.write("kapi.yaml", "version: v9\n");
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("kapi.yaml"), "{}", run.transcript());
    assert!(!kapi.path().join(".kapi").exists());
}

#[test]
fn store_from_a_newer_kapi_is_refused() {
    let kapi = Kapi::with_project("mini");
    assert_eq!(kapi.run(&["init"]).code, 0);
    let db = kapi.path().join(".kapi/work/store.db");
    let status = std::process::Command::new("python3")
        .args(["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=999'); c.commit()"])
        .arg(&db)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        panic!("python3 with sqlite3 is needed to age the store");
    }
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("newer"), "{}", run.transcript());
}

/// The files `kapi init` creates get the mode any new file gets (0644 under the usual umask
/// 022), not a temporary file's 0600.
#[test]
fn init_creates_files_readable_by_the_team() {
    use std::os::unix::fs::PermissionsExt;
    let kapi = Kapi::empty();
    kapi.write("docs/a.md", "# A\n\nSome text.\n");
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    // What a new file gets here (kapi inherits this process's umask): 0644 under 022.
    let probe = kapi.path().join("probe");
    std::fs::File::create(&probe).expect("probe");
    let new_file = std::fs::metadata(&probe)
        .map(|m| m.permissions().mode() & 0o777)
        .expect("probe mode");
    assert_ne!(
        new_file, 0o600,
        "the probe itself must not look like a temporary file"
    );
    for rel in [
        "kapi.yaml",
        ".kapi/voice.yaml",
        ".kapi/terms.yaml",
        ".kapi/.gitignore",
    ] {
        let mode = std::fs::metadata(kapi.path().join(rel))
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(mode, new_file, "{rel}");
    }
}
