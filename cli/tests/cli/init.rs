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

/// The folders `kapi init --agents all` writes the skill into.
const SKILL_DIRS: [&str; 5] = [
    ".claude/skills/kapi",
    ".agents/skills/kapi",
    ".kkss/assistant/skills/kapi",
    ".kiro/skills/kapi",
    ".junie/skills/kapi",
];

/// Every file under `dir` (relative to it, `/`-separated), sorted.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    fn walk(base: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if let Ok(rel) = path.strip_prefix(base) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The reference files the skill ships beside SKILL.md (`references/edit.md`, …).
fn shipped_references() -> Vec<String> {
    let skill = crate::testdata().join("../skills/kapi");
    files_under(&skill)
        .into_iter()
        .filter(|f| f.starts_with("references/"))
        .collect()
}

/// `kapi init` writes SKILL.md alone into each skill folder; every topic SKILL.md names and
/// every reference the skill ships is served by `kapi help <topic>` instead.
#[test]
fn init_writes_skill_md_alone_and_kapi_help_serves_every_reference() {
    let kapi = Kapi::empty();
    kapi.write("docs/guide.md", "# Guide\n\nThe tool is fast.\n");
    let run = kapi.run(&["init", "--agents", "all", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    for dir in SKILL_DIRS {
        assert_eq!(files_under(&kapi.path().join(dir)), ["SKILL.md"], "{dir}");
    }
    let written: Vec<String> = run.json()["agents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["written"].as_array().cloned().unwrap_or_default())
        .filter_map(|w| w.as_str().map(str::to_owned))
        .filter(|w| w.contains("/skills/"))
        .collect();
    assert_eq!(written.len(), SKILL_DIRS.len(), "{written:?}");
    // Each `kapi help TOPIC` the written SKILL.md names is a topic kapi serves.
    let skill = kapi.read(".claude/skills/kapi/SKILL.md");
    let named: Vec<&str> = skill
        .split("`kapi help ")
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert!(named.contains(&"edit"), "{named:?}");
    for topic in &named {
        let help = kapi.run(&["help", topic]);
        assert_eq!(help.code, 0, "kapi help {topic}: {}", help.transcript());
        assert!(
            help.stdout.len() > 200,
            "kapi help {topic}: {}",
            help.stdout
        );
    }
    // Every shipped reference, by its topic: `references/i18n/react.md` is `i18n/react`, a data
    // file keeps its name.
    let references = shipped_references();
    assert_eq!(references.len(), 22, "{references:?}");
    let skill_dir = crate::testdata().join("../skills/kapi");
    for file in references {
        let name = file.strip_prefix("references/").unwrap();
        let topic = name.strip_suffix(".md").unwrap_or(name);
        let help = kapi.run(&["help", topic]);
        assert_eq!(help.code, 0, "kapi help {topic}: {}", help.transcript());
        let text = std::fs::read_to_string(skill_dir.join(&file)).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            help.stdout.contains(first),
            "kapi help {topic}: {}",
            help.stdout
        );
    }
}

/// A project an earlier kapi initialised holds a copy of every reference in each skill folder:
/// `kapi init` removes each copy it recognises by content, and keeps (and names) one a person
/// changed.
#[test]
fn init_removes_references_an_earlier_kapi_copied_and_keeps_a_changed_one() {
    let kapi = Kapi::empty();
    kapi.write("docs/guide.md", "# Guide\n\nThe tool is fast.\n");
    let skill = crate::testdata().join("../skills/kapi");
    let references = shipped_references();
    for dir in SKILL_DIRS {
        for file in references.iter().chain(&["SKILL.md".to_owned()]) {
            kapi.write(
                &format!("{dir}/{file}"),
                std::fs::read(skill.join(file)).unwrap(),
            );
        }
    }
    let changed = ".claude/skills/kapi/references/edit.md";
    let mut mine = kapi.read(changed);
    mine.push_str("\nOur team always runs `kapi check` twice.\n");
    kapi.write(changed, &mine);
    let run = kapi.run(&["init", "--agents", "all", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    let hosts = report["agents"].as_array().unwrap();
    let list = |key: &str| -> Vec<String> {
        let mut out: Vec<String> = hosts
            .iter()
            .flat_map(|h| h[key].as_array().cloned().unwrap_or_default())
            .filter_map(|w| w.as_str().map(str::to_owned))
            .collect();
        out.sort();
        out
    };
    let mut want: Vec<String> = SKILL_DIRS
        .iter()
        .flat_map(|dir| references.iter().map(move |f| format!("{dir}/{f}")))
        .filter(|f| f != changed)
        .collect();
    want.sort();
    assert_eq!(list("removed"), want);
    assert_eq!(want.len(), SKILL_DIRS.len() * references.len() - 1);
    assert_eq!(list("foreign"), [changed]);
    assert_eq!(kapi.read(changed), mine);
    let warnings = list("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(changed) && w.contains("`kapi help edit`")),
        "{warnings:?}"
    );
    assert_eq!(
        files_under(&kapi.path().join(".claude/skills/kapi")),
        ["SKILL.md", "references/edit.md"]
    );
    for dir in &SKILL_DIRS[1..] {
        assert_eq!(files_under(&kapi.path().join(dir)), ["SKILL.md"], "{dir}");
        assert!(!kapi.path().join(dir).join("references").exists(), "{dir}");
    }
    // Again: nothing to remove, the changed copy still named.
    let again = kapi.run(&["init", "--agents", "all"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert!(!again.stdout.contains("removed "), "{}", again.stdout);
    assert!(
        again.stdout.contains(&format!("left {changed}")),
        "{}",
        again.transcript()
    );
    assert!(
        again.stdout.contains(&format!(
            "warning: {changed}: an earlier kapi copied this reference here"
        )),
        "{}",
        again.transcript()
    );
}

/// Every entry `kapi init` writes runs `kapi` from PATH: without one there, init says so.
#[test]
fn init_says_plainly_when_kapi_is_not_on_path() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(!run.stderr.contains("not on PATH"), "{}", run.stderr);
    let bare = Kapi::empty();
    let out = bare
        .command(&["init", "--json"])
        .env("PATH", "/nonexistent")
        .output()
        .expect("kapi starts");
    assert_eq!(out.status.code(), Some(0));
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stdout["kapi_not_on_path"], true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`kapi` is not on PATH") && stderr.contains("make install"),
        "{stderr}"
    );
    // Every host refused: no entry stands, so PATH is not the problem to report.
    let refused = Kapi::empty();
    refused.write(".mcp.json", "{ not json");
    let out = refused
        .command(&["init", "--agents", "claude-code", "--json"])
        .env("PATH", "/nonexistent")
        .output()
        .expect("kapi starts");
    assert_eq!(out.status.code(), Some(1));
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stdout["agents"][0]["status"], "refused", "{stdout}");
    assert!(stdout.get("kapi_not_on_path").is_none(), "{stdout}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not on PATH"));
}

/// A rules file whose kapi section is not closed: exit 1 (an unreadable file, not a usage
/// error), the file and line named, the file left as it was.
#[test]
fn an_unterminated_rules_section_is_exit_1_and_the_file_is_left_alone() {
    let kapi = Kapi::empty();
    kapi.write(
        "AGENTS.md",
        "# Agents\n\n<!-- kapi:rules -->\nhalf a section\n",
    );
    let run = kapi.run(&["init"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("`AGENTS.md` line 3") && run.stderr.contains("not closed"),
        "{}",
        run.stderr
    );
    assert_eq!(
        kapi.read("AGENTS.md"),
        "# Agents\n\n<!-- kapi:rules -->\nhalf a section\n"
    );
}

const FORBID_UTILIZE: &str = "version: v1
concepts:
  - id: use
    terms:
      - text: use
        lang: en
        status: preferred
      - text: utilize
        lang: en
        status: forbidden
        replacement: use
";

/// kapi's rules sections quote the words to avoid: they are kapi's, never checked, so a fresh
/// project passes its own gate; the person's text around them is checked as ever.
#[test]
fn kapi_passes_its_own_gate_on_the_rules_sections_it_writes() {
    let kapi = Kapi::bound();
    kapi.write("README.md", "# Guide\n\nUse the app.\n");
    assert_eq!(kapi.run(&["init"]).code, 0);
    kapi.write(".kapi/terms.yaml", FORBID_UTILIZE);
    let sync = kapi.run(&["context", "sync"]);
    assert_eq!(sync.code, 0, "{}", sync.transcript());
    assert!(
        kapi.read("AGENTS.md").contains("utilize"),
        "the section quotes it"
    );
    let check = kapi.run(&["check", "--json"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
    // The person's own words beside the section are theirs to answer for.
    let agents = kapi.read("AGENTS.md");
    kapi.write("AGENTS.md", format!("We utilize caches.\n\n{agents}"));
    let check = kapi.run(&["check", "--json"]);
    assert_eq!(check.code, 3, "{}", check.transcript());
    let findings = check.json()["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["path"], "AGENTS.md");
    assert_eq!(findings[0]["line"], 1);
}

#[test]
fn init_offers_the_source_code_whose_comments_it_reads() {
    let kapi = Kapi::empty();
    kapi.write("docs/guide.md", "# Guide\n\nThe tool is fast.\n");
    kapi.write(
        "src/lib.rs",
        "/// Handles the login flow.\npub fn run() {}\n",
    );
    kapi.write("scripts/build.sh", "#!/bin/sh\n# Builds it.\nmake\n");
    kapi.write("target/debug/x.rs", "// built, not ours\n");
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    assert_eq!(
        report["offered"],
        serde_json::json!(["scripts/**/*.sh", "src/**/*.rs"])
    );
    assert_eq!(report["collections"], serde_json::json!(["docs/**/*.md"]));
    // Offered, not declared: the new project checks its Markdown alone until a line is
    // uncommented; then the comments are checked too.
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("#  - path: \"src/**/*.rs\"\n"), "{recipe}");
    let check = |kapi: &Kapi| {
        let mut check = kapi.command(&["check", "--json"]);
        check.env_remove("KAPI_NO_PROJECT");
        let out = check.output().expect("runs");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("a report")
    };
    assert_eq!(check(&kapi)["target"]["files"], 1);
    kapi.write("kapi.yaml", recipe.replace("#  - path", "  - path"));
    assert_eq!(check(&kapi)["target"]["files"], 3);
}
