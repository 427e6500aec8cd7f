//! `kapi check`: findings, the gate, exit codes, output formats, governance per path.

use serde::Deserialize;

use super::Kapi;

/// The `kapi.check/v1` contract, decoded into the test's own types so a renamed field fails.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    schema: String,
    pass: bool,
    target: Target,
    summary: Summary,
    gate: Gate,
    coverage: Coverage,
    fingerprints: Vec<String>,
    findings: Vec<Finding>,
}
#[derive(Debug, Deserialize)]
struct Target {
    kind: String,
    files: usize,
    blocks: usize,
}
#[derive(Debug, Deserialize)]
struct Summary {
    findings: usize,
    critical: usize,
    major: usize,
    minor: usize,
    score: u32,
}
#[derive(Debug, Deserialize)]
struct Gate {
    fail_on: String,
    passed: bool,
    failed: Vec<String>,
}
#[derive(Debug, Deserialize)]
struct Coverage {
    ran: Vec<String>,
    unassessed: Vec<Unassessed>,
}
#[derive(Debug, Deserialize)]
struct Unassessed {
    guidance: String,
    value: String,
    paths: Vec<String>,
}
#[derive(Debug, Deserialize)]
struct Finding {
    rule: String,
    severity: String,
    path: String,
    line: usize,
    column: usize,
    start: usize,
    end: usize,
    block: Option<String>,
    message: String,
    matched: Option<String>,
    suggestion: Option<String>,
}

fn report(kapi: &Kapi, args: &[&str]) -> (i32, Report) {
    let run = kapi.run(args);
    let report: Report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not a kapi.check/v1 report ({e}):\n{}", run.transcript()));
    (run.code, report)
}

#[test]
fn clean_file_passes_with_exit_0() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains("1 file, 0 findings"),
        "{}",
        run.transcript()
    );
    assert!(run.stdout.contains("gate passed"), "{}", run.transcript());
}

#[test]
fn forbidden_and_deprecated_terms_fail_the_gate_with_exit_3() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/bad.md"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert!(
        run.stdout.contains("docs/bad.md:3:9 major terms.forbidden"),
        "{}",
        run.transcript()
    );
    assert!(
        run.stdout.contains("terms.deprecated"),
        "{}",
        run.transcript()
    );
    assert!(run.stdout.contains("use `use`"), "{}", run.transcript());
    assert!(run.stdout.contains("gate not met"), "{}", run.transcript());
}

#[test]
fn json_report_carries_every_contract_field() {
    let kapi = Kapi::with_project("mini");
    let (code, report) = report(&kapi, &["check", "docs/bad.md", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(report.schema, "kapi.check/v1");
    assert!(!report.pass);
    assert_eq!(report.target.kind, "files");
    assert_eq!(report.target.files, 1);
    assert!(report.target.blocks >= 3);
    assert_eq!(report.gate.fail_on, "major");
    assert!(!report.gate.passed && !report.gate.failed.is_empty());
    assert_eq!(report.coverage.ran, ["hygiene", "terms", "voice"]);
    assert_eq!(report.fingerprints.len(), 1);
    assert!(report.fingerprints[0].starts_with('g'));
    let utilize = report
        .findings
        .iter()
        .find(|f| f.matched.as_deref() == Some("utilize"))
        .expect("utilize is found");
    assert_eq!(utilize.rule, "terms.forbidden");
    assert_eq!(utilize.severity, "major");
    assert_eq!(utilize.path, "docs/bad.md");
    assert_eq!((utilize.line, utilize.column), (3, 9));
    let text = kapi.read("docs/bad.md");
    assert_eq!(&text[utilize.start..utilize.end], "utilize");
    assert!(utilize.block.as_deref().is_some_and(|b| !b.is_empty()));
    assert!(utilize.message.contains("utilize"));
    assert_eq!(utilize.suggestion.as_deref(), Some("use"));
    let summary = &report.summary;
    assert_eq!(summary.findings, report.findings.len());
    assert_eq!(
        summary.score,
        100 - 25 * summary.critical as u32 - 5 * summary.major as u32 - summary.minor as u32
    );
}

#[test]
fn code_blocks_and_inline_code_are_not_prose() {
    let kapi = Kapi::with_project("mini");
    let (_, report) = report(&kapi, &["check", "docs/bad.md", "--json"]);
    let lines: Vec<usize> = report
        .findings
        .iter()
        .filter(|f| f.rule.starts_with("terms."))
        .map(|f| f.line)
        .collect();
    assert!(
        lines.iter().all(|&l| l == 3),
        "only line 3 is prose with terms: {lines:?}"
    );
}

#[test]
fn competitor_name_is_critical_and_scores_25() {
    let kapi = Kapi::with_project("mini");
    let (code, report) = report(&kapi, &["check", "docs/blog/post.md", "--json"]);
    assert_eq!(code, 3);
    let competitor = report
        .findings
        .iter()
        .find(|f| f.rule == "terms.competitor")
        .expect("competitor found");
    assert_eq!(competitor.severity, "critical");
    assert!(report.summary.critical >= 1);
    assert!(report.summary.score <= 75);
}

#[test]
fn fail_on_changes_the_gate() {
    let kapi = Kapi::with_project("mini");
    assert_eq!(
        kapi.run(&["check", "docs/bad.md", "--fail-on", "none"])
            .code,
        0
    );
    assert_eq!(
        kapi.run(&["check", "docs/bad.md", "--fail-on", "critical"])
            .code,
        0
    );
    assert_eq!(
        kapi.run(&["check", "docs/blog/post.md", "--fail-on", "critical"])
            .code,
        3
    );
    let clean = kapi.run(&["check", "docs/clean.md", "--fail-on", "minor"]);
    assert_eq!(clean.code, 0, "{}", clean.transcript());
}

#[test]
fn min_score_fails_a_low_score() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&[
        "check",
        "docs/bad.md",
        "--fail-on",
        "none",
        "--min-score",
        "99",
    ]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert!(
        run.stdout.contains("below the minimum 99"),
        "{}",
        run.transcript()
    );
}

#[test]
fn ship_applies_the_recipes_ship_gate() {
    let kapi = Kapi::with_project("mini");
    // The README has no finding; the ship gate (fail on minor, min score 95) holds.
    assert_eq!(kapi.run(&["check", "--ship", "README.md"]).code, 0);
    // A minor finding passes the default gate and fails the ship gate.
    kapi.write("docs/minor.md", "# Minor\n\nSimply ask support.\n");
    assert_eq!(kapi.run(&["check", "docs/minor.md"]).code, 0);
    let run = kapi.run(&["check", "--ship", "docs/minor.md", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(run.json()["gate"]["fail_on"], "minor");
}

#[test]
fn whole_project_checks_every_declared_file_and_skips_excluded_ones() {
    let kapi = Kapi::with_project("mini");
    let (code, report) = report(&kapi, &["check", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(report.target.kind, "project");
    assert_eq!(
        report.target.files, 5,
        "README and four docs; drafts are excluded"
    );
    assert!(report.findings.iter().all(|f| !f.path.contains("drafts")));
}

#[test]
fn folder_is_walked_honouring_gitignore() {
    let kapi = Kapi::with_project("mini");
    kapi.write(".gitignore", "docs/blog/\n");
    let (_, report) = report(&kapi, &["check", "docs", "--json"]);
    assert!(report.findings.iter().all(|f| !f.path.contains("blog")));
    assert_eq!(report.target.files, 3, "clean, bad, legacy");
}

#[test]
fn a_folder_walk_checks_a_catalog_a_collection_declares_without_a_format() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: cat\ncollections:\n  - path: \"i18n/en.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: s\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: forbidden}\n",
    );
    kapi.write("i18n/en.json", "{\"a\": \"Use the login page\"}\n");
    // An undeclared data file beside it stays configuration, skipped by the walk.
    kapi.write("i18n/config.json", "{\"login\": \"login\"}\n");
    let (code, report) = report(&kapi, &["check", "i18n", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(report.target.files, 1);
    assert!(report.findings.iter().all(|f| f.path.ends_with("en.json")));
}

#[test]
fn a_folder_walk_and_a_project_check_agree_on_the_recipe_and_on_targets() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: login\ndefaults:\n  target_languages: [fr]\ncollections:\n  - path: \"**/*\"\n  - name: app\n    content:\n      - path: \"i18n/en.json\"\n        target: \"i18n/{lang}.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: s\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: forbidden}\n",
    );
    kapi.write("docs/a.md", "# A\n\nFine.\n");
    kapi.write("i18n/en.json", "{\"a\": \"Sign in\"}\n");
    // French text with the English forbidden word: checked against French terms, never as a
    // source file of its own.
    kapi.write("i18n/fr.json", "{\"a\": \"Le login\"}\n");
    let (whole, project) = report(&kapi, &["check", "--json"]);
    let (walked, folder) = report(&kapi, &["check", ".", "--json"]);
    assert_eq!((whole, walked), (0, 0));
    assert_eq!(project.target.files, folder.target.files);
    assert!(
        folder
            .findings
            .iter()
            .all(|f| !f.path.contains("kapi.yaml"))
    );
}

#[test]
fn expired_profile_falls_back_with_a_note_on_stderr() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/legacy/old.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stderr.contains("governance: profile `old` expired"),
        "{}",
        run.transcript()
    );
    let quiet = kapi.run(&["check", "-q", "docs/legacy/old.md"]);
    assert!(quiet.stderr.is_empty(), "{}", quiet.transcript());
}

#[test]
fn required_pattern_missing_is_reported_for_the_document() {
    let kapi = Kapi::with_project("mini");
    kapi.write("docs/nosupport.md", "# Title\n\nA page.\n");
    let (_, report) = report(&kapi, &["check", "docs/nosupport.md", "--json"]);
    let missing = report
        .findings
        .iter()
        .find(|f| f.rule == "voice.required-pattern")
        .expect("required pattern");
    assert_eq!(missing.line, 0);
}

#[test]
fn coverage_lists_guidance_no_analyzer_implements() {
    let kapi = Kapi::with_project("mini");
    let (_, report) = report(&kapi, &["check", "docs/clean.md", "--json"]);
    let emotion = report
        .coverage
        .unassessed
        .iter()
        .find(|u| u.guidance == "tone.emotion")
        .expect("tone.emotion");
    assert_eq!(emotion.value, "warm");
    assert_eq!(emotion.paths, ["docs/clean.md"]);
    let text = kapi.run(&["check", "docs/clean.md"]);
    assert!(
        text.stdout.contains("not assessed"),
        "{}",
        text.transcript()
    );
}

#[test]
fn hygiene_runs_without_a_project() {
    let kapi = Kapi::empty();
    kapi.write("notes.md", "# Notes\n\nThe the end.  Twice.\n");
    let run = kapi.run(&["check", "notes.md", "--json"]);
    assert_eq!(
        run.code,
        0,
        "minor findings pass the default gate: {}",
        run.transcript()
    );
    let report = run.json();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains(&"hygiene.repeated-word"), "{rules:?}");
    assert!(rules.contains(&"hygiene.doubled-space"), "{rules:?}");
    assert_eq!(report["coverage"]["ran"], serde_json::json!(["hygiene"]));
}

#[test]
fn github_format_prints_workflow_annotations() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/bad.md", "--format", "github"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stdout.contains("::error file=docs/bad.md,line=3,col=9"),
        "{}",
        run.transcript()
    );
}

#[test]
fn sarif_format_prints_a_sarif_log() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/bad.md", "--format", "sarif"]);
    assert_eq!(run.code, 3);
    let sarif = run.json();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().any(|r| r["ruleId"] == "terms.forbidden"));
}

#[test]
fn diff_against_checks_only_the_blocks_changed_since_a_revision() {
    let kapi = Kapi::with_project("mini");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(kapi.path())
            .output()
            .expect("git runs");
        assert!(
            status.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&status.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    // An edit to one paragraph of a file that already has a violation elsewhere.
    let bad = kapi
        .read("docs/bad.md")
        .replace("Ask support.", "Ask support or use the whitelist.");
    kapi.write("docs/bad.md", bad);
    let (code, report) = report(&kapi, &["check", "--diff-against", "HEAD", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(report.target.kind, "diff");
    assert_eq!(report.target.files, 1);
    let lines: Vec<usize> = report.findings.iter().map(|f| f.line).collect();
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.matched.as_deref() == Some("whitelist") && f.line == 9),
        "{lines:?}"
    );
    assert!(
        report.findings.iter().all(|f| f.line == 9),
        "only the changed block is checked: {lines:?}"
    );
    let unchanged = kapi.run(&["check", "docs/clean.md", "--diff-against", "HEAD", "--json"]);
    assert_eq!(unchanged.code, 0, "{}", unchanged.transcript());
    assert_eq!(unchanged.json()["target"]["files"], 0);
}

#[test]
fn diff_against_an_unknown_revision_is_an_error() {
    let kapi = Kapi::with_project("mini");
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(kapi.path())
        .output()
        .expect("git init");
    let run = kapi.run(&["check", "--diff-against", "no-such-rev"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("no-such-rev"), "{}", run.transcript());
}

#[test]
fn paths_are_shown_relative_to_the_working_folder() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run_in("docs/blog", &["check", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let paths: Vec<String> = run.json()["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["path"].as_str().map(str::to_owned))
        .collect();
    assert!(paths.contains(&"post.md".to_owned()), "{paths:?}");
    assert!(paths.contains(&"../bad.md".to_owned()), "{paths:?}");
}
