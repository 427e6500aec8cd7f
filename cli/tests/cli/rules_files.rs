//! kapi's own rules files through the binary (issue 38, item 10): a folder inside a content
//! collection gets no rules file (its rules go into the root's section, and `kapi init` and
//! `kapi context sync` say so), an earlier kapi's file there is moved on the next sync, and a
//! rules file that holds only kapi's section is never content (not checked, counted or listed)
//! while a person's file around it still is.

use serde_json::Value;

use crate::{Kapi, Run};

/// A docs site: one Markdown collection under `docs/`, a page in two folders, and a kept note
/// for `docs/learn/`.
fn site() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: site\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write("docs/learn/start.md", "# Start\n\nOpen the menu.\n");
    kapi.write("docs/ref/api.md", "# API\n\nEach call has an id.\n");
    kapi.write(
        ".kapi/notes.yaml",
        "version: v1\nnotes:\n- id: n1\n  path: docs/learn\n  text: Steps are numbered.\n  kept_by: person:test\n  kept_at: 2026-01-01T00:00:00Z\n",
    );
    kapi
}

fn person(kapi: &Kapi, args: &[&str]) -> Run {
    kapi.run_env(
        &[("KAPI_ACTOR", "person"), ("KAPI_SESSION", "s-person")],
        args,
    )
}

fn ok(run: Run) -> Run {
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    run
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr))
}

fn exists(kapi: &Kapi, rel: &str) -> bool {
    std::fs::symlink_metadata(kapi.path().join(rel)).is_ok()
}

/// kapi's section as an earlier kapi wrote it into a folder's file.
const OLD_SECTION: &str = "<!-- kapi:rules -->\n## Rules for `docs/learn/` (kapi)\n- Steps are numbered.\nBefore you report work done, run `kapi check <files you changed>`; it is the gate.\n<!-- /kapi:rules -->\n";

#[test]
fn init_writes_no_rules_file_inside_a_collection_and_puts_the_folders_rules_in_the_root() {
    let kapi = site();
    let run = ok(person(&kapi, &["init", "--agents", "none"]));
    for rel in ["docs/learn/AGENTS.md", "docs/learn/CLAUDE.md"] {
        assert!(!exists(&kapi, rel), "{rel} would be published as a page");
    }
    // One copy of the rules: the CLAUDE.md kapi creates imports AGENTS.md (issue 40, item 5).
    assert_eq!(kapi.read("CLAUDE.md"), "@AGENTS.md\n");
    {
        let rel = "AGENTS.md";
        let root = kapi.read(rel);
        assert!(
            root.contains("Under `docs/learn/`:\n- Steps are numbered.\n"),
            "{root}"
        );
        assert!(
            !root.contains("see docs/learn/AGENTS.md"),
            "no pointer to a file that is not there: {root}"
        );
        let last = root.trim_end().lines().nth_back(1).unwrap_or_default();
        assert!(last.contains("kapi check"), "{rel} ends with: {last}");
    }
    // It says where the folder's rules went, and why.
    let said = run
        .stdout
        .lines()
        .find(|l| l.contains("docs/learn/"))
        .unwrap_or_else(|| panic!("no word on docs/learn/: {}", run.stdout));
    assert!(
        said.contains("AGENTS.md") && said.contains("docs/**/*.md"),
        "{said}"
    );
    let init = json(&ok(person(&kapi, &["init", "--agents", "none", "--json"])));
    assert_eq!(init["rules_moved"][0]["folder"], "docs/learn", "{init}");

    // `kapi context sync` keeps it so, and says so too.
    let run = ok(person(&kapi, &["context", "sync", "--files-only"]));
    assert!(
        run.stdout
            .lines()
            .any(|l| l.contains("docs/learn/") && l.contains("AGENTS.md")),
        "{}",
        run.stdout
    );
    assert!(!exists(&kapi, "docs/learn/AGENTS.md"));
    let sync = json(&ok(person(
        &kapi,
        &["context", "sync", "--files-only", "--json"],
    )));
    let moved = &sync["report"]["moved"][0];
    assert_eq!(moved["folder"], "docs/learn", "{sync}");
    assert_eq!(moved["glob"], "docs/**/*.md", "{sync}");
    assert_eq!(
        moved["into"],
        serde_json::json!(["AGENTS.md", "CLAUDE.md"]),
        "{sync}"
    );
}

#[test]
fn an_earlier_kapis_file_inside_a_collection_is_moved_on_the_next_sync() {
    let kapi = site();
    kapi.write("docs/learn/AGENTS.md", OLD_SECTION);
    kapi.write("docs/learn/CLAUDE.md", OLD_SECTION);
    // A person's file inside the collection that an earlier kapi gave a section: the person's
    // text stays, kapi's goes (it would be published with the page).
    kapi.write(
        ".kapi/notes.yaml",
        "version: v1\nnotes:\n- id: n1\n  path: docs/learn\n  text: Steps are numbered.\n- id: n2\n  path: docs/ref\n  text: Calls are named as the API names them.\n",
    );
    kapi.write(
        "docs/ref/AGENTS.md",
        format!("# Reference team\n\nAsk Dana.\n\n{OLD_SECTION}"),
    );
    let run = ok(person(&kapi, &["context", "sync", "--files-only"]));
    assert!(!exists(&kapi, "docs/learn/AGENTS.md"), "{}", run.stdout);
    assert!(!exists(&kapi, "docs/learn/CLAUDE.md"), "{}", run.stdout);
    assert_eq!(
        kapi.read("docs/ref/AGENTS.md"),
        "# Reference team\n\nAsk Dana.\n"
    );
    let root = kapi.read("AGENTS.md");
    assert!(
        root.contains("Under `docs/learn/`:\n- Steps are numbered.\n")
            && root.contains("Under `docs/ref/`:\n- Calls are named as the API names them.\n"),
        "{root}"
    );
    for line in [
        "removed docs/learn/AGENTS.md (kapi created it, and only its section was in it)",
        "removed kapi's section from docs/ref/AGENTS.md",
    ] {
        assert!(
            run.stdout.lines().any(|l| l == line),
            "{line}:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.lines().any(|l| l.starts_with(
            "skipped docs/ref/AGENTS.md: inside the content collection `docs/**/*.md`"
        )),
        "{}",
        run.stdout
    );
    // Nothing half: a second sync finds nothing to do.
    let again = ok(person(
        &kapi,
        &["context", "sync", "--files-only", "--json"],
    ));
    let again = json(&again);
    assert_eq!(again["report"]["written"], serde_json::json!([]), "{again}");
    assert_eq!(again["report"]["removed"], serde_json::json!([]), "{again}");
}

/// What `kapi check`, `kapi stats`, `kapi cat`, `kapi grep` and `kapi context collections`
/// count as content in the project.
fn counted(kapi: &Kapi) -> Vec<(String, Value)> {
    let check = json(&kapi.run(&["check", "--json"]));
    let stats = json(&ok(kapi.run(&["stats", "--json"])));
    let cat = json(&ok(kapi.run(&["cat", "--json"])));
    let cat_r = json(&ok(kapi.run(&["cat", "-r", "docs", "--json"])));
    let grep = json(&kapi.run(&["grep", "--json", "zzz"]));
    let grep_r = json(&kapi.run(&["grep", "-r", "--json", "zzz", "docs"]));
    let collections = json(&ok(kapi.run(&["context", "collections", "--json"])));
    let docs = |v: &Value, key: &str, field: &str| -> Value {
        let mut names: Vec<String> = v[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {v}"))
            .iter()
            .map(|f| f[field].as_str().unwrap_or_default().to_owned())
            .collect();
        names.sort();
        serde_json::json!(names)
    };
    vec![
        (
            "check target.files".into(),
            check["target"]["files"].clone(),
        ),
        ("stats files".into(), docs(&stats, "files", "path")),
        ("cat".into(), docs(&cat, "files", "doc")),
        ("cat -r docs".into(), docs(&cat_r, "files", "doc")),
        ("grep searched".into(), grep["searched"].clone()),
        ("grep -r searched".into(), grep_r["searched"].clone()),
        ("collections files".into(), collections["files"].clone()),
    ]
}

#[test]
fn a_rules_file_holding_only_kapis_section_is_not_content() {
    let kapi = site();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: site\ndefaults:\n  source_language: en\ncollections:\n  - path: \"*.md\"\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write("README.md", "# Site\n\nThe docs.\n");
    // Left by an earlier kapi (or a teammate's): kapi's section alone, in and out of `docs/`.
    kapi.write("docs/x/AGENTS.md", OLD_SECTION);
    kapi.write(
        "docs/x/CLAUDE.md",
        format!("\n{}\n", OLD_SECTION.replace('\n', "\r\n")),
    );
    kapi.write("CLAUDE.md", OLD_SECTION);
    let pages = ["README.md", "docs/learn/start.md", "docs/ref/api.md"];
    let docs_pages = ["docs/learn/start.md", "docs/ref/api.md"];
    let want: Vec<(String, Value)> = vec![
        ("check target.files".into(), serde_json::json!(3)),
        ("stats files".into(), serde_json::json!(pages)),
        ("cat".into(), serde_json::json!(pages)),
        ("cat -r docs".into(), serde_json::json!(docs_pages)),
        ("grep searched".into(), serde_json::json!(3)),
        ("grep -r searched".into(), serde_json::json!(2)),
        ("collections files".into(), serde_json::json!(3)),
    ];
    assert_eq!(counted(&kapi), want);
    // A folder walk skips it too.
    let walk = json(&kapi.run(&["check", "docs", "--json"]));
    assert_eq!(walk["target"]["files"], 2, "{walk}");
}

#[test]
fn a_persons_rules_file_inside_a_collection_is_content() {
    let kapi = site();
    kapi.write(
        "docs/x/AGENTS.md",
        format!("# Team\n\nWe zzz here.\n\n{OLD_SECTION}"),
    );
    let got = counted(&kapi);
    let pages = ["docs/learn/start.md", "docs/ref/api.md", "docs/x/AGENTS.md"];
    assert_eq!(got[0].1, serde_json::json!(3), "{got:?}");
    assert_eq!(got[1].1, serde_json::json!(pages), "{got:?}");
    assert_eq!(got[2].1, serde_json::json!(pages), "{got:?}");
    assert_eq!(got[6].1, serde_json::json!(3), "{got:?}");
    let grep = json(&kapi.run(&["grep", "--json", "zzz"]));
    assert_eq!(grep["count"], 1, "{grep}");
    // kapi's section in it is still never content.
    let numbered = json(&kapi.run(&["grep", "--json", "numbered"]));
    assert_eq!(numbered["count"], 0, "{numbered}");
}
