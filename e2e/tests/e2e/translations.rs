//! The gate tells the truth about translations (issue 14): a translation target (a
//! catalog's `target` file such as `locales/de.json`, or the target editions of a bilingual
//! PO or XLIFF file) that drops or invents a placeholder is reported the same way by every
//! entry point, and refused by the commit check of `kapi apply` and MCP `apply_edits`.
//!
//! - Entry points, on one broken translation: `kapi check` in the project, `kapi check` on
//!   the target, on its source and on the folder holding it, MCP `check_file` on the target
//!   and on the source, `kapi check --diff-against HEAD` after the target was broken in a git
//!   working tree, and `kapi hook post-edit --host claude-code` after a Claude Code `Write`.
//!   Their `placeholders.*` findings (rule, project-relative path, block, line and column)
//!   must be one set. A target named directly gets only the translation analyzers.
//! - `--diff-against`: a changed target is checked against the source as it is now; a changed
//!   source block whose translations did not change is stale translation work, not a failure.
//! - The commit check: an agent's edit of a translation edition that drops `{name}` or types
//!   a literal `{extra}` is refused and writes nothing; a clean one lands, and its result's
//!   `rev` is the rev the next read returns.
//! - The conformance fixtures under `testdata/conformance/<kind>/` (JSON, YAML, Java
//!   properties and Android catalogs with `target` templates; PO, XLIFF 1.2 and XLIFF 2.0
//!   bilingual files), each a project with a passing `fr` and a failing `de` translation,
//!   driven through `kapi check --json` (project, source, each target) and MCP `check_file`.
//!
//! Every project is a fresh copy in a temporary folder; the fixtures are never touched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::wire::{self, Finding, array_field, str_field};
use crate::common::{Bind, PROTOCOL, Server, cli, cli_with, workspace};

// ---------------------------------------------------------------------------------------------
// Projects

/// A copy of `testdata/conformance/<kind>` in a temporary folder: a kapi project.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn copy(kind: &str) -> Project {
        let from = workspace().join("testdata/conformance").join(kind);
        assert!(
            from.join("kapi.yaml").is_file(),
            "{}: no conformance fixture",
            from.display()
        );
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        copy_tree(&from, &root);
        Project { _tmp: tmp, root }
    }

    fn write(&self, rel: &str, text: &str) {
        crate::common::write_file(&self.root, rel, text);
    }

    fn read(&self, rel: &str) -> String {
        crate::common::read_file(&self.root, rel)
    }

    fn bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn path(&self) -> &str {
        self.root.to_str().expect("a UTF-8 temp path")
    }

    /// `kapi ARGS --json` in the project, found from the working folder: exit code and report.
    fn check(&self, args: &[&str]) -> (i32, Value) {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        all.push("--json");
        let out = cli(&self.root, Bind::Discover, &all);
        let ctx = format!("kapi {}", all.join(" "));
        let report = out.json(&ctx);
        assert_eq!(report["schema"], "kapi.check/v1", "{ctx}: {report:#}");
        (out.code, report)
    }

    /// `git ARGS` in the project, with no user or system configuration.
    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=e2e",
                "-c",
                "user.email=e2e@example.com",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A git repository whose HEAD holds the project as it is now.
    fn commit_all(&self, message: &str) {
        if !self.root.join(".git").exists() {
            self.git(&["init", "-q"]);
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading reports

/// A finding as the entry points are compared: rule, project-relative path, block key.
type Found = (String, String, String);

fn all_findings(report: &Value) -> Vec<Finding> {
    wire::decode(report, "a check report")
        .check("a check report")
        .findings
}

/// The `placeholders.*` findings of a report, with the path made project-relative (an MCP
/// report or a hook may name it absolutely).
fn placeholders(report: &Value, root: &Path) -> BTreeSet<Found> {
    all_findings(report)
        .into_iter()
        .filter(|f| f.rule.starts_with("placeholders."))
        .map(|f| {
            // `block` is always written (the decode checks it): `null` for a finding in no
            // one block, read as no key.
            let block = f.block.as_deref().map_or_else(String::new, str::to_owned);
            (f.rule.clone(), relative(&f.path, root), block)
        })
        .collect()
}

/// The `placeholders.*` findings as `rule path:line:column`, the way a hook's text names them.
fn placeholder_lines(report: &Value, root: &Path) -> BTreeSet<String> {
    all_findings(report)
        .into_iter()
        .filter(|f| f.rule.starts_with("placeholders."))
        .map(|f| {
            format!(
                "{} {}:{}:{}",
                f.rule,
                relative(&f.path, root),
                f.line,
                f.column
            )
        })
        .collect()
}

/// [`placeholder_lines`] of the findings that fail the report's gate (`gate.fail_on`): what a
/// hook hands back.
fn failing_lines(report: &Value, root: &Path) -> BTreeSet<String> {
    const ORDER: [&str; 4] = ["info", "minor", "major", "critical"];
    let rank = |s: &str| ORDER.iter().position(|o| *o == s);
    let bar = rank(
        &wire::decode(report, "a check report")
            .check("a check report")
            .gate
            .fail_on,
    );
    let mut failing = report.clone();
    if let Some(findings) = failing["findings"].as_array_mut() {
        findings.retain(|f| {
            let severity = rank(str_field(f, "severity"));
            bar.is_some_and(|bar| severity.is_some_and(|s| s >= bar))
        });
    }
    placeholder_lines(&failing, root)
}

fn relative(path: &str, root: &Path) -> String {
    Path::new(path)
        .strip_prefix(root)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

fn missing(path: &str, blocks: &[&str]) -> BTreeSet<Found> {
    blocks
        .iter()
        .map(|b| ("placeholders.missing".into(), path.into(), (*b).into()))
        .collect()
}

/// Every string anywhere in `value`.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// The analyzers that compare a translation with its source.
const TRANSLATION_ANALYZERS: &[&str] = &[
    "placeholders",
    "plurals",
    "translation-terms",
    "translation",
];

/// A report on a target alone ran only translation analyzers and found nothing else.
fn assert_translation_only(report: &Value, ctx: &str) {
    let ran: Vec<&str> = report["coverage"]["ran"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !ran.is_empty(),
        "{ctx}: no analyzer ran on the target: {report:#}"
    );
    for analyzer in &ran {
        assert!(
            TRANSLATION_ANALYZERS.contains(analyzer),
            "{ctx}: `{analyzer}` ran on a translation target (only {TRANSLATION_ANALYZERS:?} \
             should): {report:#}"
        );
    }
    for f in all_findings(report) {
        let rule = f.rule.as_str();
        assert!(
            TRANSLATION_ANALYZERS
                .iter()
                .any(|a| rule.starts_with(&format!("{a}."))),
            "{ctx}: a `{rule}` finding on a translation target: {f:#?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The hook and the commit check

/// `kapi hook post-edit --host claude-code` after a Claude Code `Write` of `rel`: what the
/// hook hands back to the model (the `reason` of a block), `None` when it allows silently.
fn post_edit(p: &Project, rel: &str) -> Option<String> {
    let payload = json!({
        "session_id": "s1",
        "transcript_path": "/tmp/t",
        "cwd": p.path(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": p.root.join(rel).display().to_string()},
    });
    claude_code_hook(p, "post-edit", &payload)
}

/// `kapi hook stop --host claude-code` as Claude Code runs it when the assistant would end
/// its turn: the `reason` of a block, `None` when it lets the turn end.
fn stop(p: &Project) -> Option<String> {
    let payload = json!({
        "session_id": "s1",
        "transcript_path": "/tmp/t",
        "cwd": p.path(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    });
    claude_code_hook(p, "stop", &payload)
}

/// Runs one kapi hook with a Claude Code payload: exit 0, and stdout empty (allow) or a
/// `{"decision": "block", "reason"}` whose reason is returned.
fn claude_code_hook(p: &Project, hook: &str, payload: &Value) -> Option<String> {
    let out = cli_with(
        &p.root,
        Bind::Discover,
        &[],
        &["hook", hook, "--host", "claude-code"],
        Some(&payload.to_string()),
    );
    let ctx = format!("kapi hook {hook}");
    assert_eq!(
        out.code, 0,
        "{ctx}: Claude Code reads JSON on exit 0\n{}",
        out.stderr
    );
    let stdout = out.stdout.trim();
    if stdout.is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{ctx}: stdout is not JSON ({e}): {stdout}"));
    assert_eq!(answer["decision"], "block", "{ctx}: {answer:#}");
    Some(
        answer["reason"]
            .as_str()
            .unwrap_or_else(|| panic!("{ctx}: a block without a reason: {answer:#}"))
            .to_owned(),
    )
}

/// The `rule path:line:column` of every placeholders finding a hook's text lists (its lines
/// read `path:line:column severity rule message`).
fn hook_lines(reason: &str) -> BTreeSet<String> {
    reason
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let at = words.next()?;
            let _severity = words.next()?;
            let rule = words.next()?;
            rule.starts_with("placeholders.")
                .then(|| format!("{rule} {at}"))
        })
        .collect()
}

/// The fr edition of `block` in `kapi inspect locales/en.json --editions fr --json`.
fn fr_edition(p: &Project, block: &str) -> Value {
    edition_of(p, "locales/en.json", block, "fr")
}

/// The `lang` edition of `block` in `kapi inspect DOC --editions LANG --json`.
fn edition_of(p: &Project, doc: &str, block: &str, lang: &str) -> Value {
    let out = cli(
        &p.root,
        Bind::Discover,
        &["inspect", doc, "--editions", lang, "--json"],
    );
    assert_eq!(out.code, 0, "inspect {doc}: {}", out.stderr);
    let read = out.json("inspect");
    array_field(&read, "blocks")
        .iter()
        .find(|b| b["ref"]["block"] == block)
        .map(|b| b["editions"][lang].clone())
        .unwrap_or_else(|| panic!("no block `{block}` in {read:#}"))
}

fn edit_fr(block: &str, rev: &Value, content: &str) -> Value {
    edit_edition("locales/en.json", block, "fr", rev, content)
}

fn edit_edition(doc: &str, block: &str, lang: &str, rev: &Value, content: &str) -> Value {
    json!({"schema": "kapi.change/v1", "operations": [{
        "op": "set_content",
        "at": {"doc": doc, "block": block, "edition": lang},
        "if_match": rev,
        "content": content,
    }]})
}

/// Who sends the change sets of [`commit_check`].
enum Via {
    /// `kapi apply - --json` with `KAPI_ACTOR=agent:e2e`.
    Cli,
    /// MCP `apply_edits` on a server started in the project.
    Mcp(Box<Server>),
}

impl Via {
    /// The change-result and, for the CLI, the exit code (MCP: 3 for an error result, else 0).
    fn apply(&mut self, p: &Project, set: &Value, ctx: &str) -> (i32, Value) {
        match self {
            Via::Cli => {
                let out = cli_with(
                    &p.root,
                    Bind::Discover,
                    &[("KAPI_ACTOR", "agent:e2e")],
                    &["apply", "-", "--json"],
                    Some(&set.to_string()),
                );
                let result = out.json(ctx);
                (out.code, result)
            }
            Via::Mcp(server) => {
                let mut args = set.clone();
                if let Some(o) = args.as_object_mut() {
                    o.remove("schema");
                }
                let r = server.tool("apply_edits", args);
                (if r.is_error { 3 } else { 0 }, r.structured)
            }
        }
    }
}

fn statuses(result: &Value) -> Vec<&str> {
    array_field(result, "operations")
        .iter()
        .map(|o| str_field(o, "status"))
        .collect()
}

/// The three edits of part 3 on the fr edition of `greeting` (`Bonjour {name}, bon retour !`).
fn commit_check(p: &Project, mut via: Via, who: &str) {
    let fr = "locales/fr.json";
    let before = p.bytes(fr);
    let edition = fr_edition(p, "greeting");
    let text = edition["text"].as_str().expect("fr text").to_owned();
    assert_eq!(
        text, "Bonjour <x id=\"1/\"/>, bon retour !",
        "{who}: the fr edition as read"
    );
    assert_eq!(edition["doc"], fr, "{who}: {edition:#}");

    // 1. `{name}` dropped. The code guard sees the tag go before the gate runs; either
    //    refusal is the contract's (see the report of issue 14): what matters is that it is
    //    refused and nothing is written.
    let ctx = format!("{who}: fr greeting without {{name}}");
    let (code, result) = via.apply(
        p,
        &edit_fr("greeting", &edition["rev"], "Bonjour, bon retour !"),
        &ctx,
    );
    assert_eq!(
        result["schema"], "kapi.change-result/v1",
        "{ctx}: {result:#}"
    );
    assert_eq!(result["status"], "refused", "{ctx}: {result:#}");
    let s = statuses(&result);
    assert!(
        s == ["gate_failed"] || s == ["guard"],
        "{ctx}: refused gate_failed (or guard, the code guard being first): {result:#}"
    );
    assert_eq!(code, 3, "{ctx}: exit code for {result:#}");
    assert!(p.bytes(fr) == before, "{ctx}: {fr} changed");

    // 2. A literal `{extra}` typed as text: no tag is invented, but the file would hold a
    //    placeholder the source does not have.
    let ctx = format!("{who}: fr greeting with a literal {{extra}}");
    let invented = format!("{text} {{extra}}");
    let (code, result) = via.apply(p, &edit_fr("greeting", &edition["rev"], &invented), &ctx);
    assert_eq!(
        result["schema"], "kapi.change-result/v1",
        "{ctx}: {result:#}"
    );
    assert_eq!(statuses(&result), ["gate_failed"], "{ctx}: {result:#}");
    assert_eq!(result["status"], "refused", "{ctx}: {result:#}");
    assert_eq!(code, 3, "{ctx}: exit code for {result:#}");
    let introduced: Vec<&str> = result["operations"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["introduced"] == true)
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(
        introduced.iter().any(|r| r.starts_with("placeholders.")),
        "{ctx}: the introduced placeholders finding is not carried: {result:#}"
    );
    assert!(p.bytes(fr) == before, "{ctx}: {fr} changed");

    // 3. A clean translation edit lands; its rev is the rev the next read returns.
    let ctx = format!("{who}: a clean fr greeting");
    let clean = "Salut <x id=\"1/\"/>, bon retour !";
    let (code, result) = via.apply(p, &edit_fr("greeting", &edition["rev"], clean), &ctx);
    assert_eq!(statuses(&result), ["applied"], "{ctx}: {result:#}");
    assert_eq!(result["status"], "applied", "{ctx}: {result:#}");
    assert_eq!(code, 0, "{ctx}: exit code for {result:#}");
    assert!(
        p.read(fr).contains("\"Salut {name}, bon retour !\""),
        "{ctx}: {}",
        p.read(fr)
    );
    let after = fr_edition(p, "greeting");
    assert_eq!(after["text"], clean, "{ctx}: {after:#}");
    assert_eq!(
        result["operations"][0]["rev"], after["rev"],
        "{ctx}: the result's rev is the rev a fresh read returns: {result:#}"
    );
    if let Via::Mcp(server) = via {
        assert_eq!(server.close(), 0, "{who}");
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Every entry point, one broken translation

/// The JSON conformance project with a voice that an English rule would apply to French
/// typography (a space before `!`, as `bon retour !` has): a target checked against the
/// source language would be flagged; a translation target is not.
fn json_project() -> Project {
    let p = Project::copy("json");
    p.write(
        ".kapi/voice.yaml",
        "name: en\ndescription: How the app writes in English.\nstyle:\n  prohibited_patterns:\n    - regex: '\\s!'\n      description: No space before an exclamation mark\n      severity: major\n",
    );
    let recipe = p.read("kapi.yaml").replace(
        "  target_languages: [fr, de]\n",
        "  target_languages: [fr, de]\n  voice: .kapi/voice.yaml\n",
    );
    assert!(recipe.contains("voice: .kapi/voice.yaml"), "{recipe}");
    p.write("kapi.yaml", &recipe);
    p
}

/// `locales/de.json` as it should be: `greeting` keeps `{name}`.
const DE_GOOD: &str = r#"{
  "greeting": "Hallo {name}, willkommen zurück!",
  "inbox": {
    "unread": "Sie haben {{count}} ungelesene Nachrichten",
    "empty": "Ihr Posteingang ist leer"
  },
  "theme.blog.post.readingTime": "{readingTime} Min. Lesezeit"
}
"#;

#[test]
fn every_entry_point_reports_the_same_broken_translation() {
    let p = json_project();
    // The good state committed, then the target broken in the working tree (the fixture's
    // de.json drops `{name}` from `greeting`).
    let broken = p.read("locales/de.json");
    p.write("locales/de.json", DE_GOOD);
    p.commit_all("good translations");
    p.write("locales/de.json", &broken);

    let expected = missing("locales/de.json", &["greeting"]);
    let mut seen: Vec<(String, BTreeSet<Found>, BTreeSet<String>)> = Vec::new();
    let mut failures = Vec::new();

    let cli_cases: &[(&str, &[&str])] = &[
        ("kapi check", &[]),
        ("kapi check locales/de.json", &["locales/de.json"]),
        ("kapi check locales/en.json", &["locales/en.json"]),
        ("kapi check locales", &["locales"]),
        (
            "kapi check --diff-against HEAD",
            &["--diff-against", "HEAD"],
        ),
    ];
    for (name, args) in cli_cases {
        let (code, report) = p.check(args);
        let found = placeholders(&report, &p.root);
        if found != expected || code != 3 || report["pass"] != false {
            failures.push(format!(
                "{name}: exit {code}, pass {}, placeholders findings {found:?}",
                report["pass"]
            ));
        }
        seen.push((
            (*name).to_owned(),
            found,
            placeholder_lines(&report, &p.root),
        ));
        if *name == "kapi check locales/de.json" {
            assert_translation_only(&report, name);
        }
    }

    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for file in ["locales/de.json", "locales/en.json"] {
        let name = format!("check_file {file}");
        let r = server.tool("check_file", json!({"path": file})).ok(&name);
        let found = placeholders(&r.structured, &p.root);
        if found != expected || r.structured["pass"] != false {
            failures.push(format!(
                "{name}: pass {}, placeholders findings {found:?}",
                r.structured["pass"]
            ));
        }
        seen.push((name, found, placeholder_lines(&r.structured, &p.root)));
    }
    assert_eq!(server.close(), 0);

    // The post-edit hook after the assistant wrote the target, then the stop hook.
    let hook = post_edit(&p, "locales/de.json");
    let hook = hook.as_deref().map(hook_lines).unwrap_or_default();
    let stopped = stop(&p);
    let stopped = stopped.as_deref().map(hook_lines).unwrap_or_default();

    // Every entry point agrees with the project-wide check, line and column included.
    let (_, project_set, project_lines) = seen[0].clone();
    for (name, found, lines) in &seen[1..] {
        if *found != project_set || *lines != project_lines {
            failures.push(format!(
                "{name} differs from kapi check: {found:?} {lines:?} vs {project_set:?} \
                 {project_lines:?}"
            ));
        }
    }
    let (_, project) = p.check(&[]);
    let failing = failing_lines(&project, &p.root);
    if hook != failing {
        failures.push(format!(
            "kapi hook post-edit locales/de.json hands back {hook:?}, kapi check's failing \
             findings are {failing:?}"
        ));
    }
    if stopped != failing {
        failures.push(format!(
            "kapi hook stop hands back {stopped:?}, kapi check's failing findings are \
             {failing:?}"
        ));
    }
    assert!(
        failures.is_empty(),
        "entry points that do not report the dropped {{name}} as `kapi check` does \
         (expected {expected:?}):\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_target_named_directly_gets_only_the_translation_analyzers() {
    let p = json_project();
    // The passing French target breaks the English voice (`bon retour !`), which is not its
    // to follow: nothing to report.
    let (code, report) = p.check(&["locales/fr.json"]);
    assert_translation_only(&report, "kapi check locales/fr.json");
    assert_eq!(report["pass"], true, "{report:#}");
    assert_eq!(code, 0, "{report:#}");
    assert!(all_findings(&report).is_empty(), "{report:#}");
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    let r = server
        .tool("check_file", json!({"path": "locales/fr.json"}))
        .ok("check_file locales/fr.json");
    assert_translation_only(&r.structured, "check_file locales/fr.json");
    assert!(all_findings(&r.structured).is_empty(), "{:#}", r.structured);
    assert_eq!(server.close(), 0);
    // The hook says nothing about it either.
    assert_eq!(
        post_edit(&p, "locales/fr.json"),
        None,
        "post-edit locales/fr.json"
    );
    // The source still gets the voice: the pattern is live.
    p.write(
        "locales/en.json",
        &p.read("locales/en.json")
            .replace("welcome back!", "welcome back !"),
    );
    let (code, report) = p.check(&["locales/en.json"]);
    assert!(
        all_findings(&report)
            .iter()
            .any(|f| f.rule == "voice.prohibited-pattern" && f.path == "locales/en.json"),
        "the voice checks the source: {report:#}"
    );
    assert_eq!(code, 3, "{report:#}");
}

// ---------------------------------------------------------------------------------------------
// 2. --diff-against

#[test]
fn diff_against_checks_a_changed_target_against_the_source_as_it_is_now() {
    let p = json_project();
    p.write("locales/de.json", DE_GOOD);
    p.commit_all("good translations");
    // The source renames `{name}` to `{user}`; fr follows, de only rewords its greeting.
    p.write(
        "locales/en.json",
        &p.read("locales/en.json")
            .replace("Hello {name}", "Hello {user}"),
    );
    p.write(
        "locales/fr.json",
        &p.read("locales/fr.json")
            .replace("Bonjour {name}", "Bonjour {user}"),
    );
    p.write(
        "locales/de.json",
        &DE_GOOD.replace(
            "Hallo {name}, willkommen zurück!",
            "Hallo {name}, schön, dass Sie da sind!",
        ),
    );
    let (code, report) = p.check(&["--diff-against", "HEAD"]);
    let found = placeholders(&report, &p.root);
    let expected: BTreeSet<Found> = [
        ("placeholders.missing", "locales/de.json", "greeting"),
        ("placeholders.extra", "locales/de.json", "greeting"),
    ]
    .iter()
    .map(|(r, p, b)| ((*r).to_owned(), (*p).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(
        found, expected,
        "de's changed greeting against the source's `{{user}}`: {report:#}"
    );
    assert_eq!(report["pass"], false, "{report:#}");
    assert_eq!(code, 3, "{report:#}");
}

#[test]
fn diff_against_reports_only_the_translation_blocks_that_changed() {
    let p = json_project();
    // HEAD already holds de's broken greeting; only fr changes since: one block reworded
    // cleanly, one losing `{readingTime}` (its key has dots, so the block key quotes it).
    p.commit_all("de broken since before");
    p.write(
        "locales/fr.json",
        &p.read("locales/fr.json")
            .replace("Votre boîte de réception est vide", "Rien dans votre boîte")
            .replace(
                "{readingTime} min de lecture",
                "Quelques minutes de lecture",
            ),
    );
    let (code, report) = p.check(&["--diff-against", "HEAD"]);
    assert_eq!(
        placeholders(&report, &p.root),
        missing("locales/fr.json", &["'theme.blog.post.readingTime'"]),
        "only fr's changed block, not de's unchanged one: {report:#}"
    );
    assert_eq!(code, 3, "{report:#}");
    // The project check still sees both.
    let (_, report) = p.check(&[]);
    let both: BTreeSet<Found> = missing("locales/fr.json", &["'theme.blog.post.readingTime'"])
        .into_iter()
        .chain(missing("locales/de.json", &["greeting"]))
        .collect();
    assert_eq!(placeholders(&report, &p.root), both, "{report:#}");
}

#[test]
fn a_changed_source_block_with_unchanged_translations_is_a_note_not_a_failure() {
    let p = json_project();
    p.write("locales/de.json", DE_GOOD);
    p.commit_all("good translations");
    p.write(
        "locales/en.json",
        &p.read("locales/en.json")
            .replace("Your inbox is empty", "Nothing in your inbox yet"),
    );
    let (code, report) = p.check(&["--diff-against", "HEAD"]);
    assert!(all_findings(&report).is_empty(), "{report:#}");
    assert_eq!(report["pass"], true, "{report:#}");
    assert_eq!(report["gate"]["passed"], true, "{report:#}");
    assert_eq!(code, 0, "{report:#}");
    for field in ["notes", "stale"] {
        if let Some(notes) = report.get(field) {
            let texts = strings(notes);
            for (lang, target) in [("fr", "locales/fr.json"), ("de", "locales/de.json")] {
                assert!(
                    texts.iter().any(|s| *s == lang || s.contains(target)),
                    "`{field}` does not name the `{lang}` translation: {report:#}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. The commit check

#[test]
fn an_agent_cannot_land_a_translation_edit_that_drops_or_invents_a_placeholder_from_the_cli() {
    let p = Project::copy("json");
    commit_check(&p, Via::Cli, "kapi apply (agent:e2e)");
}

#[test]
fn an_agent_cannot_land_a_translation_edit_that_drops_or_invents_a_placeholder_over_mcp() {
    let p = Project::copy("json");
    let server = Server::start(&p.root, &["--project", p.path()]);
    commit_check(&p, Via::Mcp(Box::new(server)), "apply_edits");
}

/// Part 3 on every catalog format: a placeholder of the format's own syntax typed as text
/// into the `fr` edition would read back as a placeholder the source does not have. Either
/// the commit check refuses it (`gate_failed`, nothing written) or the writer kept it literal
/// (it lands and reads back as text, no code invented); never a file that reads back with
/// an invented placeholder. A clean edit lands with the rev a fresh read returns.
#[test]
fn a_literal_placeholder_typed_into_any_catalogs_translation_is_gated() {
    let cases = [
        ("json", "greeting", "{extra}"),
        ("yaml", "greeting", "%{extra}"),
        ("properties", "welcome", "{1}"),
        ("android", "saved_to", "%3$s"),
    ];
    let mut failures = Vec::new();
    for (dir, block, literal) in cases {
        let kind = KINDS.iter().find(|k| k.dir == dir).expect("a kind");
        let source = kind.source.expect("a catalog");
        let p = Project::copy(dir);
        let ctx = format!("{dir}: fr `{block}` + a literal `{literal}`");
        let edition = edition_of(&p, source, block, "fr");
        let text = edition["text"].as_str().expect("fr text").to_owned();
        let codes = text.matches("<x id=").count();
        assert!(
            codes > 0,
            "{ctx}: the fr edition has no placeholder: {edition:#}"
        );
        let before = p.bytes(kind.pass);
        let set = edit_edition(
            source,
            block,
            "fr",
            &edition["rev"],
            &format!("{text} {literal}"),
        );
        let (code, result) = Via::Cli.apply(&p, &set, &ctx);
        match statuses(&result).as_slice() {
            ["gate_failed"] => {
                if code != 3 || result["status"] != "refused" {
                    failures.push(format!("{ctx}: gate_failed with exit {code}: {result}"));
                }
                if p.bytes(kind.pass) != before {
                    failures.push(format!("{ctx}: refused, yet {} changed", kind.pass));
                }
            }
            ["applied"] => {
                let after = edition_of(&p, source, block, "fr");
                let now = str_field(&after, "text");
                if now.matches("<x id=").count() != codes || !now.contains(literal) {
                    failures.push(format!(
                        "{ctx}: applied, and {} reads back as `{now}` (a placeholder invented \
                         past the gate)",
                        kind.pass
                    ));
                }
                continue;
            }
            other => failures.push(format!("{ctx}: {other:?}: {result}")),
        }
        // A clean edit of the same edition: applied, with the rev a fresh read returns.
        let ctx = format!("{dir}: a clean fr `{block}`");
        let clean = format!("« {text} »");
        let set = edit_edition(source, block, "fr", &edition["rev"], &clean);
        let (code, result) = Via::Cli.apply(&p, &set, &ctx);
        if statuses(&result) != ["applied"] || code != 0 {
            failures.push(format!("{ctx}: exit {code}: {result}"));
            continue;
        }
        let after = edition_of(&p, source, block, "fr");
        if after["text"] != clean.as_str() || after["rev"] != result["operations"][0]["rev"] {
            failures.push(format!(
                "{ctx}: read back {after}, the result's rev {}",
                result["operations"][0]["rev"]
            ));
        }
        let (_, report) = p.check(&[kind.pass]);
        if !placeholders(&report, &p.root).is_empty() {
            failures.push(format!("{ctx}: the landed edit fails the check: {report}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// 4. The conformance fixtures, one per kind

/// One conformance project: its source (a catalog's) and its two translations.
struct Kind {
    dir: &'static str,
    /// The catalog source whose collection item names the targets; `None` for a bilingual
    /// file, which is its own source.
    source: Option<&'static str>,
    /// The passing translation.
    pass: &'static str,
    /// The failing translation, and the blocks whose placeholder it drops.
    fail: &'static str,
    missing: &'static [&'static str],
    /// Blocks of the failing translation that drop an inline code (XLIFF `<x/>`, `<ph/>`):
    /// some `placeholders.*` finding must name them; which rule is the analyzer's call.
    codes: &'static [&'static str],
    /// What mends the failing translation: (as the fixture has it, as it should be).
    fixes: &'static [(&'static str, &'static str)],
}

const KINDS: &[Kind] = &[
    Kind {
        dir: "json",
        source: Some("locales/en.json"),
        pass: "locales/fr.json",
        fail: "locales/de.json",
        missing: &["greeting"],
        codes: &[],
        fixes: &[(
            r#""Hallo, willkommen zurück!""#,
            r#""Hallo {name}, willkommen zurück!""#,
        )],
    },
    Kind {
        dir: "yaml",
        source: Some("config/locales/en.yml"),
        pass: "config/locales/fr.yml",
        fail: "config/locales/de.yml",
        missing: &["greeting"],
        codes: &[],
        fixes: &[(
            "greeting: Hallo, willkommen zurück!",
            "greeting: Hallo %{name}, willkommen zurück!",
        )],
    },
    Kind {
        dir: "properties",
        source: Some("src/main/resources/messages.properties"),
        pass: "src/main/resources/messages_fr.properties",
        fail: "src/main/resources/messages_de.properties",
        missing: &["planet"],
        codes: &[],
        fixes: &[("auf dem Planeten.", "auf dem Planeten {0}.")],
    },
    Kind {
        dir: "android",
        source: Some("app/src/main/res/values/strings.xml"),
        pass: "app/src/main/res/values-fr/strings.xml",
        fail: "app/src/main/res/values-de/strings.xml",
        missing: &["sound_notification_message"],
        codes: &[],
        fixes: &[("Audiolänge:</string>", "Audiolänge: %1$s</string>")],
    },
    Kind {
        dir: "po",
        source: None,
        pass: "locale/fr.po",
        fail: "locale/de.po",
        missing: &["Deleted %s from the list."],
        codes: &[],
        fixes: &[(
            r#"msgstr "Aus der Liste gelöscht.""#,
            r#"msgstr "%s aus der Liste gelöscht.""#,
        )],
    },
    Kind {
        dir: "xliff12",
        source: None,
        pass: "xliff/fr.xlf",
        fail: "xliff/de.xlf",
        missing: &["deleted"],
        codes: &["break"],
        fixes: &[
            ("%d Dateien gelöscht.", "%d Dateien aus {0} gelöscht."),
            (
                "Erste Zeile zweite Zeile",
                r#"Erste Zeile<x id="2"/>zweite Zeile"#,
            ),
        ],
    },
    Kind {
        dir: "xliff20",
        source: None,
        pass: "xliff/fr.xlf",
        fail: "xliff/de.xlf",
        missing: &["results"],
        codes: &["welcome"],
        fixes: &[
            (
                "<target>Willkommen!</target>",
                r#"<target>Willkommen, <ph id="1" disp="{user}"/>!</target>"#,
            ),
            (
                "<target>Ergebnisse gefunden</target>",
                "<target>%s Ergebnisse gefunden</target>",
            ),
        ],
    },
];

/// Every block of `doc` has an edition in `lang`, read from `file`: the fixture pairs as
/// meant, so a passing target is not passing for having been read as nothing.
fn assert_paired(p: &Project, doc: &str, lang: &str, file: &str, ctx: &str) {
    let out = cli(
        &p.root,
        Bind::Discover,
        &["inspect", doc, "--editions", lang, "--json"],
    );
    assert_eq!(out.code, 0, "{ctx}: inspect {doc}: {}", out.stderr);
    let read = out.json(ctx);
    let blocks = array_field(&read, "blocks");
    assert!(blocks.len() >= 3, "{ctx}: {read:#}");
    for b in blocks {
        let edition = &b["editions"][lang];
        assert!(
            edition["text"].is_string(),
            "{ctx}: block {} has no `{lang}` edition: {read:#}",
            b["ref"]["block"]
        );
        assert_eq!(edition["doc"], file, "{ctx}: {read:#}");
    }
}

/// Checks one kind; the ways it falls short, each a line.
fn conformance(kind: &Kind) -> Vec<String> {
    let p = Project::copy(kind.dir);
    let mut failures = Vec::new();
    let expected = missing(kind.fail, kind.missing);
    let judge = |name: &str, report: &Value, code: Option<i32>, failing: bool| -> Vec<String> {
        let mut out = Vec::new();
        let found = placeholders(report, &p.root);
        let ctx = format!("{}: {name}", kind.dir);
        if failing {
            let missing_found: BTreeSet<Found> = found
                .iter()
                .filter(|f| f.0 == "placeholders.missing")
                .cloned()
                .collect();
            if missing_found != expected {
                out.push(format!(
                    "{ctx}: placeholders.missing {missing_found:?}, expected {expected:?}"
                ));
            }
            for f in &found {
                let named = f.1 == kind.fail
                    && (kind.missing.contains(&f.2.as_str()) || kind.codes.contains(&f.2.as_str()));
                if !named {
                    out.push(format!("{ctx}: an unexpected finding {f:?}"));
                }
            }
            for block in kind.codes {
                if !found.iter().any(|f| f.1 == kind.fail && f.2 == *block) {
                    out.push(format!(
                        "{ctx}: no placeholders finding on {}'s block `{block}` (it drops an \
                         inline code): {found:?}",
                        kind.fail
                    ));
                }
            }
            if report["pass"] != false || code.is_some_and(|c| c != 3) {
                out.push(format!(
                    "{ctx}: passes (pass {}, exit {code:?}) with a dropped placeholder",
                    report["pass"]
                ));
            }
        } else {
            if !found.is_empty() {
                out.push(format!(
                    "{ctx}: placeholders findings {found:?} on a passing translation"
                ));
            }
            if report["pass"] != true || code.is_some_and(|c| c != 0) {
                out.push(format!(
                    "{ctx}: does not pass (pass {}, exit {code:?}): {report}",
                    report["pass"]
                ));
            }
        }
        out
    };

    match kind.source {
        Some(source) => {
            assert_paired(&p, source, "fr", kind.pass, kind.dir);
            assert_paired(&p, source, "de", kind.fail, kind.dir);
        }
        None => {
            assert_paired(&p, kind.pass, "fr", kind.pass, kind.dir);
            assert_paired(&p, kind.fail, "de", kind.fail, kind.dir);
        }
    }

    // The CLI: the project, the source, each translation.
    let (code, report) = p.check(&[]);
    failures.extend(judge("kapi check", &report, Some(code), true));
    if let Some(source) = kind.source {
        let (code, report) = p.check(&[source]);
        failures.extend(judge(
            &format!("kapi check {source}"),
            &report,
            Some(code),
            true,
        ));
    }
    for (file, failing) in [(kind.pass, false), (kind.fail, true)] {
        let (code, report) = p.check(&[file]);
        failures.extend(judge(
            &format!("kapi check {file}"),
            &report,
            Some(code),
            failing,
        ));
        if kind.source.is_some() {
            let ctx = format!("{}: kapi check {file}", kind.dir);
            let ran: Vec<&str> = report["coverage"]["ran"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if ran.iter().any(|a| !TRANSLATION_ANALYZERS.contains(a)) {
                failures.push(format!(
                    "{ctx}: non-translation analyzers ran on a target: {ran:?}"
                ));
            }
        }
    }

    // MCP check_file on the same files.
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    let mut files: Vec<(&str, bool)> = vec![(kind.pass, false), (kind.fail, true)];
    if let Some(source) = kind.source {
        files.push((source, true));
    }
    for (file, failing) in files {
        let name = format!("check_file {file}");
        let r = server.tool("check_file", json!({"path": file}));
        if r.is_error {
            failures.push(format!("{}: {name} is an error: {}", kind.dir, r.text));
            continue;
        }
        failures.extend(judge(&name, &r.structured, None, failing));
    }
    assert_eq!(server.close(), 0, "{}", kind.dir);

    // The post-edit hook after a Claude Code `Write` of each translation: what it hands back
    // is what fails the project check in that file (a hook lists only what fails the gate).
    let (_, project) = p.check(&[]);
    let lines = failing_lines(&project, &p.root);
    match post_edit(&p, kind.fail) {
        None => failures.push(format!(
            "{}: kapi hook post-edit {} allows silently; kapi check reports {lines:?}",
            kind.dir, kind.fail
        )),
        Some(reason) => {
            let hook = hook_lines(&reason);
            if hook != lines {
                failures.push(format!(
                    "{}: kapi hook post-edit {} hands back {hook:?}, kapi check's failing \
                     findings are {lines:?}\n{reason}",
                    kind.dir, kind.fail
                ));
            }
        }
    }
    if let Some(reason) = post_edit(&p, kind.pass) {
        failures.push(format!(
            "{}: kapi hook post-edit {} on a passing translation: {reason}",
            kind.dir, kind.pass
        ));
    }

    // `--diff-against HEAD`, the mended translation committed and broken again since.
    let broken = p.read(kind.fail);
    let mut mended = broken.clone();
    for (from, to) in kind.fixes {
        assert!(
            mended.contains(from),
            "{}: `{from}` is not in {}",
            kind.dir,
            kind.fail
        );
        mended = mended.replacen(from, to, 1);
    }
    p.write(kind.fail, &mended);
    let (code, report) = p.check(&[]);
    let left = placeholders(&report, &p.root);
    assert!(
        left.is_empty() && code == 0,
        "{}: the mended {} still fails (exit {code}): {left:?}",
        kind.dir,
        kind.fail
    );
    p.commit_all("mended translations");
    p.write(kind.fail, &broken);
    let (code, report) = p.check(&["--diff-against", "HEAD"]);
    failures.extend(judge(
        "kapi check --diff-against HEAD",
        &report,
        Some(code),
        true,
    ));
    failures
}

#[test]
fn every_kind_of_translation_passes_and_fails_where_it_should() {
    let mut failures = Vec::new();
    for kind in KINDS {
        failures.extend(conformance(kind));
    }
    assert!(
        failures.is_empty(),
        "conformance fixtures not reported as they should be:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_conformance_fixture_is_a_kind_the_table_checks() {
    let dir = workspace().join("testdata/conformance");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    let table: BTreeSet<String> = KINDS.iter().map(|k| k.dir.to_owned()).collect();
    assert_eq!(on_disk, table, "testdata/conformance/ and KINDS");
    for kind in KINDS {
        for file in [kind.pass, kind.fail] {
            assert!(
                dir.join(kind.dir).join(file).is_file(),
                "{}/{file}",
                kind.dir
            );
        }
        assert!(
            !kind.missing.is_empty(),
            "{}: a failing translation drops a placeholder",
            kind.dir
        );
    }
}

#[test]
fn the_post_edit_hook_checks_the_comments_of_a_source_file_the_assistant_wrote() {
    let p = json_project();
    let recipe = p.read("kapi.yaml").replace(
        "collections:\n",
        "collections:\n  - path: \"src/**/*.rs\"\n",
    );
    assert!(recipe.contains("src/**/*.rs"), "{recipe}");
    p.write("kapi.yaml", &recipe);
    p.write("src/lib.rs", "/// Welcome back !\npub fn greet() {}\n");
    let hook = post_edit(&p, "src/lib.rs").expect("the hook hands the finding back");
    assert!(hook.contains("src/lib.rs:1:17"), "{hook}");
    p.write("src/lib.rs", "/// Welcome back!\npub fn greet() {}\n");
    assert_eq!(post_edit(&p, "src/lib.rs"), None);
}
