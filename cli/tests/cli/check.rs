//! `kapi check`: findings, the gate, exit codes, output formats, governance per path.

use serde::Deserialize;
use serde_json::{Value, json};

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
    cache: Option<CacheUse>,
    /// Files with findings, each with its words and score.
    #[serde(default)]
    files: Vec<Value>,
    /// Findings set apart where the project allows them.
    #[serde(default)]
    suppressed: Vec<Value>,
}
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct CacheUse {
    reused: usize,
    checked: usize,
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
    #[serde(default)]
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
    assert_eq!(report.files.len(), 1, "the file with findings, scored");
    assert_eq!(report.files[0]["path"], "docs/bad.md");
    assert!(report.suppressed.is_empty());
    assert!(report.fingerprints[0].starts_with('g'));
    let fresh = CacheUse {
        reused: 0,
        checked: 1,
    };
    assert_eq!(report.cache, Some(fresh));
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
        run.stdout
            .contains("score 89 is below the gate's minimum 99"),
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
    // Under --json, stderr carries JSON only: the note is a `{"note"}` line.
    let json = kapi.run(&["check", "--json", "docs/legacy/old.md"]);
    assert_eq!(json.code, 0, "{}", json.transcript());
    let lines: Vec<Value> = json
        .stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(
        lines.iter().any(|l| l["note"]
            .as_str()
            .is_some_and(|n| n.contains("governance: profile `old` expired"))),
        "{}",
        json.stderr
    );
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
    assert!(
        emotion.paths.is_empty(),
        "one file checked, so every file: no paths"
    );
    // Over the project: guidance that applies to some files names them, to every file none.
    let (_, whole) = self::report(&kapi, &["check", "--json"]);
    let paths = |guidance: &str, value: &str| {
        whole
            .coverage
            .unassessed
            .iter()
            .find(|u| u.guidance == guidance && u.value == value)
            .map(|u| u.paths.clone())
            .unwrap_or_else(|| panic!("{guidance} {value}"))
    };
    assert_eq!(paths("tone.formality", "casual"), ["docs/blog/post.md"]);
    assert_eq!(paths("style.active_voice", "true"), Vec::<String>::new());
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

/// One file kapi cannot read is a `read.unreadable` finding: the other files are checked and
/// the report printed, in text and JSON, and the gate fails.
#[test]
fn an_unreadable_file_is_a_finding_and_the_rest_is_checked() {
    let kapi = Kapi::with_project("mini");
    kapi.write(
        "docs/logo.md",
        b"# Logo\n\n\x00\x01\x02 not text\n".as_slice(),
    );
    let run = kapi.run(&["check", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let unreadable: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["rule"] == "read.unreadable")
        .collect();
    assert_eq!(unreadable.len(), 1, "{report}");
    assert_eq!(unreadable[0]["path"], "docs/logo.md");
    assert_eq!(unreadable[0]["severity"], "critical");
    assert!(
        unreadable[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("binary") && m.contains("defaults.exclude")),
        "{report}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == "docs/bad.md" && f["rule"] == "terms.forbidden"),
        "the other files are checked: {report}"
    );
    let text = kapi.run(&["check"]);
    assert_eq!(text.code, 3);
    assert!(
        text.stdout
            .contains("docs/logo.md critical read.unreadable"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("docs/bad.md:"), "{}", text.stdout);
}

/// Vale's `--output=line` shape, a finding a line, exit by the gate; refused beside `--only`.
#[test]
fn line_format_prints_vales_line_output() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["check", "docs/bad.md", "--format", "line"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(!lines.is_empty(), "{}", run.transcript());
    for line in &lines {
        let parts: Vec<&str> = line.splitn(5, ':').collect();
        assert_eq!(parts.len(), 5, "{line}");
        assert_eq!(parts[0], "docs/bad.md", "{line}");
        assert!(parts[1].parse::<usize>().is_ok() && parts[2].parse::<usize>().is_ok());
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("docs/bad.md:3:9:terms.forbidden:")),
        "{}",
        run.stdout
    );
    let clean = kapi.run(&["check", "docs/clean.md", "--format", "line"]);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""));
    let only = kapi.run_stdin(
        &[
            "check", "--text", "-", "--only", "terms", "--format", "line",
        ],
        b"Use the whitelist.",
    );
    assert_eq!(only.code, 2, "{}", only.transcript());
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
    let git = |args: &[&str]| git(&kapi, args);
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

#[test]
fn the_target_names_the_paths_as_given_from_the_working_folder() {
    let kapi = Kapi::with_project("mini");
    let paths = |run: &super::Run| -> Vec<String> {
        run.json()["target"]["paths"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect()
    };
    let here = kapi.run(&["check", ".", "--json"]);
    assert_eq!(paths(&here), ["."], "{}", here.transcript());
    let sub = kapi.run_in("docs/blog", &["check", ".", "..", "--json"]);
    assert_eq!(paths(&sub), [".", ".."], "{}", sub.transcript());
}

/// Runs git in the project with a throwaway identity; fails the test when git does.
pub(super) fn git(kapi: &Kapi, args: &[&str]) {
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
}

/// A catalog with two translations, French dropping `{name}`.
fn catalog() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: cat\ndefaults:\n  source_language: en\n  target_languages: [fr, de]\ncollections:\n  - path: \"docs/**/*.md\"\n  - name: app\n    content:\n      - path: locales/en.json\n        target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: s\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: forbidden}\n",
    );
    kapi.write("docs/a.md", "# A\n\nFine.\n");
    kapi.write(
        "locales/en.json",
        "{\"greeting\": \"Hello, {name}!\", \"bye\": \"Goodbye\"}\n",
    );
    // French with the English forbidden word: a translation is never held to English terms.
    kapi.write(
        "locales/fr.json",
        "{\"greeting\": \"Bonjour, le login !\", \"bye\": \"Au revoir\"}\n",
    );
    kapi.write(
        "locales/de.json",
        "{\"greeting\": \"Hallo, {name}!\", \"bye\": \"Tschüss\"}\n",
    );
    kapi
}

/// The findings as `(rule, path, block)`.
fn keys(report: &Value) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["path"].as_str().unwrap_or_default().to_owned(),
                f["block"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_translation_is_checked_against_its_source_however_it_is_named() {
    let kapi = catalog();
    let want = vec![(
        "placeholders.missing".to_owned(),
        "locales/fr.json".to_owned(),
        "greeting".to_owned(),
    )];
    for args in [
        &["check", "--json"][..],
        &["check", "locales/fr.json", "--json"],
        &["check", "locales/en.json", "--json"],
        &["check", "locales", "--json"],
        &["check", "locales/fr.json", "locales/en.json", "--json"],
    ] {
        let run = kapi.run(args);
        assert_eq!(run.code, 3, "{args:?}: {}", run.transcript());
        assert_eq!(keys(&run.json()), want, "{args:?}");
    }
    // Named alone, a translation meets only the translation analyzers.
    let run = kapi.run(&["check", "locales/fr.json", "--json"]);
    assert_eq!(
        run.json()["coverage"]["ran"],
        json!([
            "placeholders",
            "plurals",
            "translation-terms",
            "translation"
        ])
    );
    let de = kapi.run(&["check", "locales/de.json"]);
    assert_eq!(de.code, 0, "{}", de.transcript());
    // A target file no declared source produces has nothing to be checked against.
    std::fs::remove_file(kapi.path().join("locales/en.json")).expect("remove");
    let orphan = kapi.run(&["check", "locales/fr.json"]);
    assert_eq!(orphan.code, 0, "{}", orphan.transcript());
    assert!(
        orphan.stderr.contains("nothing to check it against"),
        "{}",
        orphan.transcript()
    );
}

#[test]
fn diff_against_checks_changed_translations_and_notes_stale_ones() {
    let kapi = catalog();
    kapi.write(
        "locales/fr.json",
        "{\"greeting\": \"Bonjour, {name} !\", \"bye\": \"Au revoir\"}\n",
    );
    git(&kapi, &["init", "-q"]);
    git(&kapi, &["add", "-A"]);
    git(&kapi, &["commit", "-q", "-m", "base"]);
    let clean = kapi.run(&["check", "--diff-against", "HEAD", "--json"]);
    assert_eq!(clean.code, 0, "{}", clean.transcript());
    assert_eq!(clean.json()["target"]["files"], 0);

    // A translation that loses its placeholder fails, whichever way the diff is asked for.
    kapi.write(
        "locales/fr.json",
        "{\"greeting\": \"Bonjour !\", \"bye\": \"Au revoir\"}\n",
    );
    for args in [
        &["check", "--diff-against", "HEAD", "--json"][..],
        &[
            "check",
            "locales/fr.json",
            "--diff-against",
            "HEAD",
            "--json",
        ],
    ] {
        let run = kapi.run(args);
        assert_eq!(run.code, 3, "{args:?}: {}", run.transcript());
        assert_eq!(
            keys(&run.json()),
            [(
                "placeholders.missing".to_owned(),
                "locales/fr.json".to_owned(),
                "greeting".to_owned()
            )],
            "{args:?}"
        );
    }
    git(&kapi, &["checkout", "-q", "locales/fr.json"]);

    // A changed source block leaves its translations stale: a note, not a failure.
    kapi.write(
        "locales/en.json",
        "{\"greeting\": \"Hello there, {name}!\", \"bye\": \"Goodbye\"}\n",
    );
    let run = kapi.run(&["check", "--diff-against", "HEAD", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report = run.json();
    assert_eq!(report["findings"], json!([]));
    let stale: Vec<(String, String, String)> = report["stale"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            (
                s["block"].as_str().unwrap_or_default().to_owned(),
                s["lang"].as_str().unwrap_or_default().to_owned(),
                s["target"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        stale,
        [
            ("greeting".into(), "de".into(), "locales/de.json".into()),
            ("greeting".into(), "fr".into(), "locales/fr.json".into())
        ]
    );
    let text = kapi.run(&["check", "--diff-against", "HEAD"]);
    assert_eq!(text.code, 0);
    assert!(
        text.stdout
            .contains("locales/en.json [greeting] note changed; its `fr` translation"),
        "{}",
        text.stdout
    );
    // Updating the translation with its source leaves nothing stale.
    kapi.write(
        "locales/fr.json",
        "{\"greeting\": \"Salut, {name} !\", \"bye\": \"Au revoir\"}\n",
    );
    let run = kapi.run(&["check", "--diff-against", "HEAD", "--json"]);
    let langs: Vec<String> = run.json()["stale"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["lang"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(langs, ["de"]);
}

#[test]
fn an_android_xml_that_is_not_strings_is_no_formats_file() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ncollections:\n  - path: \"res/**/*.xml\"\n",
    );
    let vector = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<vector xmlns:android=\"http://schemas.android.com/apk/res/android\" android:width=\"24dp\"/>\n";
    kapi.write("res/drawable/ic.xml", vector);
    kapi.write("res/layout/main.xml", "<LinearLayout/>\n");
    kapi.write(
        "res/values/strings.xml",
        "<resources>\n  <string name=\"a\">Hi</string>\n</resources>\n",
    );
    for verb in ["check", "inspect"] {
        let run = kapi.run(&[verb, "res/drawable/ic.xml"]);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert!(
            run.stderr
                .contains("no format reads this file: an Android `<vector>` resource, not strings"),
            "{}",
            run.transcript()
        );
        assert!(!run.stderr.contains("fix the syntax"), "{}", run.stderr);
    }
    // The project check and a folder walk read the strings and skip the rest silently.
    for args in [&["check", "--json"][..], &["check", "res", "--json"]] {
        let run = kapi.run(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.transcript());
        assert_eq!(run.json()["target"]["files"], 1, "{args:?}");
        assert!(run.stderr.is_empty(), "{}", run.stderr);
    }
}
