//! The growing-context loop through the built binary (`KAPI_BIN`, default
//! `target/debug/kapi`): an agent notes two observations and a person's change, tries to keep
//! one (refused), a person reviews (keep one, drop one, widen one), the root's rules file
//! (no file inside the `docs/` collection) and the brief show what was kept for the right
//! folders, `kapi context log --session this` shows the
//! agent's session, and `kapi context sync --files-only` is idempotent.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::wire::{self, array_field, str_field};
use crate::common::{Bind, command};
use serde_json::Value;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs kapi in `dir`, bound to the project there, as `actor` in `session`.
fn kapi(dir: &Path, actor: &str, session: &str, args: &[&str]) -> Out {
    let out = command(dir, Bind::Discover)
        .args(args)
        .env("KAPI_ACTOR", actor)
        .env("KAPI_SESSION", session)
        .output()
        .expect("the kapi binary runs (build it first: cargo build --bin kapi)");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn agent(dir: &Path, args: &[&str]) -> Out {
    kapi(dir, "agent:test", "s-agent", args)
}

fn person(dir: &Path, args: &[&str]) -> Out {
    kapi(dir, "person:ana", "s-ana", args)
}

fn ok(out: &Out, what: &str) -> String {
    assert_eq!(
        out.code, 0,
        "{what}: exit {}\n{}\n{}",
        out.code, out.stdout, out.stderr
    );
    out.stdout.clone()
}

/// Standard output of a run that succeeded, as JSON checked against its typed shape.
fn json(out: &Out, what: &str) -> Value {
    let value = serde_json::from_str(&ok(out, what)).unwrap_or_else(|e| panic!("{what}: {e}"));
    wire::decode(&value, what);
    value
}

/// Every file under `dir` but kapi's machine state, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
            if rel.starts_with(".kapi/work") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.insert(rel, bytes);
            }
        }
    }
    out
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_growing_context_loop() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "docs/help/start.md",
        "# Start\n\nOpen your Workspace to begin.\n",
    );
    write(
        "docs/api/calls.md",
        "# Calls\n\nEach Workspace has an id.\n",
    );
    write("docs/guide/intro.md", "# Intro\n\nWelcome to the guide.\n");
    // The person's own AGENTS.md text must survive every write byte for byte.
    write("AGENTS.md", "# Our agents\n\nBe kind.\n");
    ok(&person(dir, &["init"]), "init");
    let agents = read(dir, "AGENTS.md");
    assert!(agents.starts_with("# Our agents\n\nBe kind.\n"), "{agents}");
    assert!(
        agents.contains("<!-- kapi:rules -->") && agents.contains("kapi check"),
        "{agents}"
    );

    // The agent notes two observations and a person's change.
    let n1 = json(
        &agent(
            dir,
            &[
                "context",
                "note",
                "--path",
                "docs/api/calls.md",
                "--text",
                "Endpoint names keep \"Workspace\"",
                "--json",
            ],
        ),
        "note 1",
    );
    let n2 = json(
        &agent(
            dir,
            &[
                "context",
                "note",
                "--path",
                "docs/guide",
                "--text",
                "Headings use title case",
                "--json",
            ],
        ),
        "note 2",
    );
    let n3 = json(
        &agent(
            dir,
            &[
                "context",
                "note",
                "--path",
                "docs/help",
                "--from",
                "Workspace",
                "--to",
                "Space",
                "--json",
            ],
        ),
        "note 3",
    );
    let id = |v: &Value| str_field(&v["suggestion"], "id").to_owned();
    let (n1, n2, n3) = (id(&n1), id(&n2), id(&n3));

    // It tries to keep one: refused, nothing changes.
    let before = tree(dir);
    let refused = agent(dir, &["context", "review", "--keep", &n3]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("kapi context review"),
        "{}",
        refused.stderr
    );
    assert_eq!(tree(dir), before, "a refused keep changes nothing");

    // A person reviews: keep the change (held for docs/help), drop one, widen one.
    let widen = format!("{n1}=docs/api");
    ok(
        &person(
            dir,
            &[
                "context", "review", "--keep", &n3, "--drop", &n2, "--widen", &widen,
            ],
        ),
        "review",
    );

    // The rules files: `docs/` is a content collection (`docs/**/*.md`), so no rules file is
    // written inside it (a docs site would publish it); each folder's rules are in the root's
    // section under its name, and the person's text there is kept.
    for rel in [
        "docs/help/AGENTS.md",
        "docs/help/CLAUDE.md",
        "docs/api/AGENTS.md",
        "docs/guide/AGENTS.md",
    ] {
        assert!(!dir.join(rel).exists(), "{rel} is inside the collection");
    }
    let root = read(dir, "AGENTS.md");
    assert!(root.starts_with("# Our agents\n\nBe kind.\n"), "{root}");
    let under = |folder: &str| -> String {
        let head = format!("Under `{folder}/`:\n");
        let at = root
            .find(&head)
            .unwrap_or_else(|| panic!("no rules for {folder} in:\n{root}"));
        root[at + head.len()..]
            .lines()
            .take_while(|l| l.starts_with("- "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let help = under("docs/help");
    assert!(
        help.contains("Write \"Space\", not \"Workspace\"."),
        "{help}"
    );
    let api = under("docs/api");
    assert!(api.contains("Endpoint names keep \"Workspace\""), "{api}");
    assert!(
        api.contains("\"Workspace\" is correct here; do not rename it to \"Space\"."),
        "{api}"
    );
    assert!(
        !root.contains("docs/guide"),
        "the dropped note writes nothing: {root}"
    );
    // One copy of the rules: the CLAUDE.md kapi created imports AGENTS.md.
    assert_eq!(read(dir, "CLAUDE.md"), "@AGENTS.md\n");
    {
        let rel = "AGENTS.md";
        let text = read(dir, rel);
        let section = text
            .split("<!-- kapi:rules -->")
            .nth(1)
            .and_then(|s| s.split("<!-- /kapi:rules -->").next())
            .unwrap_or_else(|| panic!("{rel} has no kapi section:\n{text}"));
        let last = section.trim_end().lines().last().unwrap_or_default();
        assert!(last.contains("kapi check"), "{rel} ends with: {last}");
    }

    // The brief shows the kept notes where they apply, and the stays line beside the rename.
    let brief_api = ok(&agent(dir, &["context", "docs/api/calls.md"]), "brief api");
    assert!(
        brief_api.contains("Endpoint names keep \"Workspace\""),
        "{brief_api}"
    );
    assert!(
        brief_api.contains("do not rename it to \"Space\""),
        "{brief_api}"
    );
    let brief_help = ok(
        &agent(dir, &["context", "docs/help/start.md"]),
        "brief help",
    );
    assert!(
        brief_help.contains("Write \"Space\", not \"Workspace\"."),
        "{brief_help}"
    );
    assert!(!brief_help.contains("Endpoint names"), "{brief_help}");

    // The log shows the agent's session.
    let log = json(
        &agent(dir, &["context", "log", "--session", "this", "--json"]),
        "log",
    );
    let entries = array_field(&log, "entries");
    assert_eq!(entries.len(), 3, "{log}");
    assert!(
        entries
            .iter()
            .all(|e| e["session"] == "s-agent" && e["actor"] == "agent:test")
    );
    let statuses: Vec<&str> = entries.iter().map(|e| str_field(e, "status")).collect();
    assert_eq!(statuses, ["kept", "dropped", "kept"], "{log}");

    // Sync is idempotent: a second run changes no byte.
    ok(&person(dir, &["context", "sync", "--files-only"]), "sync 1");
    let once = tree(dir);
    ok(&person(dir, &["context", "sync", "--files-only"]), "sync 2");
    assert_eq!(tree(dir), once, "a second sync changes no byte");
}
