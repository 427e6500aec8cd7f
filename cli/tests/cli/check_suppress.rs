//! Suppression, scores and the words each finding names, through the binary: `kapi-disable…`
//! comments in every format that has comments, `--no-suppress`, unused directives, the SARIF
//! fingerprints and suppressions, the word-weighted score and the voice's `min_score`.

use serde_json::Value;

use super::Kapi;

const RECIPE: &str = "version: v1\nname: sup\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\ngates:\n  fail_on: major\n";
const TERMS: &str = "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}\n";
const VOICE: &str = "name: docs\nstyle:\n  prohibited_patterns:\n    - {regex: '(?i)\\bsimply\\b', description: Minimising words, severity: minor}\n  constraints:\n    max_sentence_words: 12\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write(".kapi/voice.yaml", VOICE);
    kapi
}

fn json(kapi: &Kapi, args: &[&str]) -> (i32, Value) {
    let run = kapi.run(args);
    let value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.transcript()));
    (run.code, value)
}

/// `(rule, line)` of each finding, and of each suppressed finding with its directive's line.
fn lines(report: &Value, field: &str) -> Vec<(String, u64, Option<u64>)> {
    report[field]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|f| {
                    (
                        f["rule"].as_str().unwrap_or_default().to_owned(),
                        f["line"].as_u64().unwrap_or_default(),
                        f["suppressed_by"]["line"].as_u64(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

const PAGE: &str = "# Title

Add it to the whitelist now.

<!-- kapi-disable-next-line terms.forbidden -->
Add it to the whitelist
again, on a wrapped line: whitelist.

Simply do it. <!-- kapi-disable-line voice -->

{/* kapi-disable-next-line terms -- the partner's product name */}
The whitelist API.

```
<!-- kapi-disable -->
```

See `<!-- kapi-disable-line -->` written as code, with the whitelist.

<!-- kapi-disable terms -->
One whitelist here, simply.
<!-- kapi-enable -->

Last whitelist.
";

#[test]
fn directives_in_markdown_set_findings_apart_and_the_report_lists_them() {
    let kapi = project();
    kapi.write("docs/a.md", PAGE);
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3, "{report}");
    assert_eq!(
        lines(&report, "findings"),
        vec![
            ("terms.forbidden".to_owned(), 3, None),
            ("terms.forbidden".to_owned(), 18, None),
            ("voice.prohibited-pattern".to_owned(), 21, None),
            ("terms.forbidden".to_owned(), 24, None),
        ],
        "{report}"
    );
    assert_eq!(
        lines(&report, "suppressed"),
        vec![
            ("terms.forbidden".to_owned(), 6, Some(5)),
            ("terms.forbidden".to_owned(), 7, Some(5)),
            ("voice.prohibited-pattern".to_owned(), 9, Some(9)),
            ("terms.forbidden".to_owned(), 12, Some(11)),
            ("terms.forbidden".to_owned(), 21, Some(20)),
        ],
        "{report}"
    );
    assert_eq!(report["summary"]["suppressed"], 5);
    assert_eq!(report["summary"]["findings"], 4);
    let by = &report["suppressed"][0]["suppressed_by"];
    assert_eq!(by["kind"], "directive");
    assert_eq!(by["text"], "kapi-disable-next-line terms.forbidden");
    assert_eq!(by["path"], "docs/a.md");

    // Every one comes back with `--no-suppress`, and the text says how many were set apart.
    let (_, all) = json(&kapi, &["check", "--json", "--no-suppress"]);
    assert_eq!(all["summary"]["findings"], 9, "{all}");
    assert_eq!(all["summary"]["suppressed"], 0);
    assert!(all.get("suppressed").is_none());
    let text = kapi.run(&["check"]);
    assert!(
        text.stdout
            .contains("5 findings suppressed where the project allows them"),
        "{}",
        text.transcript()
    );
    assert!(
        text.stdout.contains(", 5 suppressed, score"),
        "{}",
        text.stdout
    );
}

#[test]
fn suppressing_the_only_failing_finding_passes_the_gate() {
    let kapi = project();
    kapi.write(
        "docs/a.md",
        "# T\n\n<!-- kapi-disable-next-line terms.forbidden -- vendor API name -->\nCall the whitelist endpoint.\n",
    );
    let run = kapi.run(&["check"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(kapi.run(&["check", "--no-suppress"]).code, 3);
}

#[test]
fn an_unused_or_misspelt_directive_is_reported() {
    let kapi = project();
    kapi.write(
        "docs/a.md",
        "# T\n\n<!-- kapi-disable-next-line voice.sentense-too-long -->\nShort.\n\n<!-- kapi-disable-line -->\nNothing here.\n",
    );
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(
        code, 0,
        "minor findings do not fail the default gate: {report}"
    );
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["message"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        messages,
        vec![
            "`kapi-disable-next-line voice.sentense-too-long` names no rule kapi has: `voice.sentense-too-long` (did you mean `voice.sentence-too-long`?) (`kapi help rules` lists them)",
            "`kapi-disable-line` suppressed nothing: remove it, or move it to the finding it was for",
        ]
    );
    assert_eq!(report["findings"][0]["rule"], "suppress.unused-directive");
    assert_eq!(report["findings"][0]["severity"], "minor");
    assert_eq!(report["findings"][0]["line"], 3);
    // With every directive ignored, none is unused.
    let (_, off) = json(&kapi, &["check", "--json", "--no-suppress"]);
    assert_eq!(off["summary"]["findings"], 0, "{off}");
}

#[test]
fn directives_work_in_every_format_with_comments() {
    let kapi = project();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: sup\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*\"\n  - path: \"src/**/*.rs\"\ngates:\n  fail_on: major\n",
    );
    kapi.write(
        "docs/page.html",
        "<p>The whitelist.</p>\n<!-- kapi-disable-next-line -->\n<p>The whitelist.</p>\n",
    );
    kapi.write(
        "docs/strings.yaml",
        "en:\n  a: The whitelist\n  # kapi-disable-next-line terms\n  b: The whitelist\n  c: The whitelist # kapi-disable-line\n",
    );
    kapi.write(
        "docs/app.properties",
        "a=The whitelist\n! kapi-disable\nb=The whitelist\n",
    );
    kapi.write(
        "docs/messages.po",
        "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n# kapi-disable terms\nmsgid \"The whitelist\"\nmsgstr \"\"\n# kapi-enable\n\nmsgid \"Another whitelist\"\nmsgstr \"\"\n",
    );
    kapi.write(
        "src/lib.rs",
        "/// Reads the whitelist.\npub fn a() {}\n\n// kapi-disable-next-line terms.forbidden\n/// Reads the whitelist too.\npub fn b() {}\n",
    );
    kapi.write(
        "docs/data.json",
        "{\"a\": \"The whitelist <!-- kapi-disable-line -->\"}\n",
    );
    let (_, report) = json(
        &kapi,
        &["check", "--json", "docs", "src/lib.rs", "docs/data.json"],
    );
    let found: Vec<(String, u64)> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == "terms.forbidden")
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("docs/app.properties".to_owned(), 1),
            ("docs/data.json".to_owned(), 1),
            ("docs/messages.po".to_owned(), 10),
            ("docs/page.html".to_owned(), 1),
            ("docs/strings.yaml".to_owned(), 2),
            ("src/lib.rs".to_owned(), 1),
        ],
        "{report}"
    );
    assert_eq!(report["summary"]["suppressed"], 6, "{report}");
}

#[test]
fn a_draft_checked_as_text_honours_its_directives() {
    let kapi = project();
    let draft = "# T\n\n<!-- kapi-disable-next-line -->\nThe whitelist.\n";
    let run = kapi.run_stdin(
        &[
            "check",
            "--text",
            "-",
            "--context-path",
            "docs/new.md",
            "--json",
        ],
        draft.as_bytes(),
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap_or_default();
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(report["summary"]["suppressed"], 1, "{report}");
    assert_eq!(report["suppressed"][0]["suppressed_by"]["line"], 3);
}

#[test]
fn text_github_and_sarif_name_what_matched() {
    let kapi = project();
    kapi.write("docs/a.md", "# T\n\nSimply run it.\n");
    let text = kapi.run(&["check"]);
    assert!(
        text.stdout
            .contains("docs/a.md:3:1 minor voice.prohibited-pattern `Simply`: Minimising words"),
        "{}",
        text.transcript()
    );
    let github = kapi.run(&["check", "--format", "github"]);
    assert!(
        github.stdout.contains("::`Simply`: Minimising words"),
        "{}",
        github.stdout
    );
    let (_, sarif) = json(&kapi, &["check", "--format", "sarif"]);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["message"]["text"], "`Simply`: Minimising words");
}

fn fingerprints(kapi: &Kapi) -> Vec<(String, bool)> {
    let (_, sarif) = json(kapi, &["check", "--format", "sarif"]);
    sarif["runs"][0]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["partialFingerprints"]["kapiFinding/v1"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                r.get("suppressions").is_some(),
            )
        })
        .collect()
}

#[test]
fn sarif_fingerprints_hold_when_lines_move_and_suppressed_results_say_so() {
    let kapi = project();
    let page = "# T\n\nThe whitelist.\n\nAnother whitelist.\n\n<!-- kapi-disable-next-line -->\nA third whitelist.\n";
    kapi.write("docs/a.md", page);
    let before = fingerprints(&kapi);
    assert_eq!(before.len(), 3, "{before:?}");
    assert_eq!(
        before.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
        [false, false, true]
    );
    assert!(before.iter().all(|(f, _)| f.len() == 16));
    assert_ne!(before[0].0, before[1].0, "two occurrences are two alerts");
    kapi.write(
        "docs/a.md",
        page.replace("# T\n", "# T\n\nA new first paragraph.\n\n"),
    );
    assert_eq!(fingerprints(&kapi), before);
}

#[test]
fn a_tree_scores_the_word_weighted_mean_of_its_files() {
    let kapi = project();
    // Thirty pages, each with one major and one minor finding: 94 each, and the tree 94,
    // not 100 - 30 * 6 floored at 0.
    for i in 0..30 {
        kapi.write(
            &format!("docs/p{i}.md"),
            "# Page\n\nAdd it to the whitelist and simply go on.\n",
        );
    }
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(report["summary"]["score"], 94, "{}", report["summary"]);
    assert_eq!(report["files"].as_array().map(Vec::len), Some(30));
    assert_eq!(report["files"][0]["score"], 94);
    let words = report["files"][0]["words"].as_u64().unwrap_or_default();
    assert_eq!(words, 10, "{}", report["files"][0]);
    // A long clean page weighs more than a short bad one.
    let kapi = project();
    kapi.write("docs/bad.md", "# Bad\n\nThe whitelist.\n");
    kapi.write(
        "docs/good.md",
        format!("# Good\n\n{}\n", "Fine words here. ".repeat(60)),
    );
    let (_, report) = json(&kapi, &["check", "--json"]);
    // 99.9, rounded down: a tree scores 100 only when every file does.
    assert_eq!(report["summary"]["score"], 99, "{}", report["summary"]);
    assert_eq!(report["files"][0]["path"], "docs/bad.md");
    assert_eq!(report["files"][0]["score"], 95);
}

#[test]
fn the_voice_s_min_score_gates_the_files_it_governs_and_the_gate_says_which() {
    let kapi = project();
    kapi.write(".kapi/voice.yaml", format!("{VOICE}min_score: 100\n"));
    kapi.write("docs/a.md", "# A\n\nSimply go.\n");
    kapi.write("docs/b.md", "# B\n\nFine.\n");
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3, "{report}");
    assert_eq!(
        report["gate"]["failed"],
        serde_json::json!([
            "docs/a.md scores 99, below the minimum 100 its voice sets (.kapi/voice.yaml)"
        ]),
        "{report}"
    );
    // Lowered to what the files reach, the gate holds; the recipe's minimum is the whole's.
    kapi.write(".kapi/voice.yaml", format!("{VOICE}min_score: 90\n"));
    assert_eq!(kapi.run(&["check"]).code, 0);
    let run = kapi.run(&["check", "--min-score", "100"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stdout
            .contains("score 99 is below the gate's minimum 100"),
        "{}",
        run.stdout
    );
}

/// A profile's voice sets the minimum for the files its channels govern, not for the rest.
#[test]
fn a_profile_s_voice_min_score_gates_only_the_files_it_governs() {
    let kapi = project();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: sup\ndefaults:\n  source_language: en\n  voice: .kapi/voice.yaml\ncollections:\n  - path: \"docs/**/*.md\"\n  - name: blog\n    channel: hb/blog\n    content:\n      - path: \"blog/**/*.md\"\nprofiles:\n  hb:\n    channels: [blog]\n    voice: .kapi/profiles/hb/voice.yaml\ngates:\n  fail_on: critical\n",
    );
    kapi.write(
        ".kapi/profiles/hb/voice.yaml",
        format!("{VOICE}min_score: 100\n"),
    );
    kapi.write("docs/a.md", "# A\n\nSimply go.\n");
    kapi.write("blog/b.md", "# B\n\nFine.\n");
    assert_eq!(kapi.run(&["check"]).code, 0, "the blog post is clean");
    kapi.write("blog/b.md", "# B\n\nSimply go.\n");
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3, "{report}");
    assert_eq!(
        report["gate"]["failed"],
        serde_json::json!([
            "blog/b.md scores 99, below the minimum 100 its voice sets (.kapi/profiles/hb/voice.yaml)"
        ]),
        "docs/a.md scores 99 too, and its voice sets no minimum: {report}"
    );
}

#[test]
fn the_recipe_s_rules_set_a_rule_aside_for_its_paths() {
    let kapi = project();
    kapi.write(
        "kapi.yaml",
        format!("{RECIPE}rules:\n  terms.forbidden:\n    exclude: [\"docs/legacy/**\"]\n  voice:\n    exclude: docs/legacy/old.md\n"),
    );
    kapi.write(
        "docs/legacy/old.md",
        "# Old\n\nSimply add it to the whitelist.\n",
    );
    kapi.write("docs/new.md", "# New\n\nAdd it to the whitelist.\n");
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3, "the new page still fails: {report}");
    assert_eq!(
        lines(&report, "findings"),
        vec![("terms.forbidden".to_owned(), 3, None)],
        "{report}"
    );
    let suppressed = &report["suppressed"];
    assert_eq!(suppressed.as_array().map(Vec::len), Some(2), "{report}");
    let by: Vec<(&str, &str, u64)> = suppressed
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let by = &s["suppressed_by"];
            (
                by["kind"].as_str().unwrap_or_default(),
                by["text"].as_str().unwrap_or_default(),
                by["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        by,
        vec![
            ("recipe", "rules.voice.exclude", 12),
            ("recipe", "rules.terms.forbidden.exclude", 10),
        ]
    );
    // A changed exclusion is a new check, not a cached one.
    kapi.write("kapi.yaml", RECIPE);
    let (_, again) = json(&kapi, &["check", "--json"]);
    assert_eq!(again["summary"]["suppressed"], 0, "{again}");
    assert_eq!(again["summary"]["findings"], 3, "{again}");
    // A draft bound to an excluded path is held to the same.
    kapi.write(
        "kapi.yaml",
        format!("{RECIPE}rules:\n  terms:\n    exclude: [\"docs/legacy/**\"]\n"),
    );
    let run = kapi.run_stdin(
        &[
            "check",
            "--text",
            "-",
            "--context-path",
            "docs/legacy/x.md",
            "--json",
        ],
        b"The whitelist.\n",
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn a_target_term_inside_its_exception_is_set_apart_in_a_translation() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: tr\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: email\n    terms:\n      - {text: e-mail, lang: fr, status: forbidden, replacement: courriel, exceptions: [\"e-mail Pro\"]}\n",
    );
    kapi.write(
        "locales/en.json",
        "{\"a\": \"Send an email\", \"b\": \"Use Mail Pro\"}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\"a\": \"Envoyez un e-mail\", \"b\": \"Utilisez e-mail Pro\"}\n",
    );
    let (code, report) = json(&kapi, &["check", "--json"]);
    assert_eq!(code, 3, "{report}");
    let found: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default(),
                f["block"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(found, vec![("translation-terms.avoid", "a")], "{report}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report}");
    assert_eq!(report["suppressed"][0]["block"], "b");
    assert_eq!(
        report["suppressed"][0]["suppressed_by"]["kind"],
        "exception"
    );
    let (_, all) = json(&kapi, &["check", "--json", "--no-suppress"]);
    assert_eq!(all["summary"]["findings"], 2, "{all}");
}

#[test]
fn checking_a_translation_alone_judges_no_directive_of_its_source() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: tr\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locales/en.yaml\"\n    target: \"locales/{lang}.yaml\"\n",
    );
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write(
        "locales/en.yaml",
        "en:\n  # kapi-disable-next-line terms\n  greeting: Add it to the whitelist.\n",
    );
    kapi.write("locales/fr.yaml", "fr:\n  greeting: Ajoutez-le.\n");
    let (_, whole) = json(&kapi, &["check", "--json", "locales/en.yaml"]);
    assert_eq!(whole["summary"]["suppressed"], 1, "{whole}");
    assert_eq!(whole["summary"]["findings"], 0, "{whole}");
    let (_, alone) = json(&kapi, &["check", "--json", "locales/fr.yaml"]);
    assert_eq!(alone["summary"]["findings"], 0, "{alone}");
}

#[test]
fn the_commit_check_sets_aside_what_the_recipe_s_rules_set_aside() {
    let kapi = project();
    kapi.write(
        "kapi.yaml",
        format!("{RECIPE}rules:\n  terms:\n    exclude: [\"docs/legal/**\"]\n"),
    );
    kapi.write("docs/legal/l.md", "# Legal\n\nThe text.\n");
    kapi.write("docs/a.md", "# A\n\nThe text.\n");
    let set = |kapi: &Kapi, doc: &str| {
        let read = kapi.run(&["inspect", doc, "--json"]);
        let blocks: Value = serde_json::from_str(&read.stdout).unwrap_or_default();
        let block = &blocks["blocks"][1];
        serde_json::json!({"schema": "kapi.change/v1", "operations": [{
            "op": "set_content", "at": block["ref"], "if_match": block["rev"],
            "content": "Add it to the whitelist."}]})
        .to_string()
    };
    let legal = kapi.run_stdin(&["apply", "-"], set(&kapi, "docs/legal/l.md").as_bytes());
    assert_eq!(legal.code, 0, "{}", legal.transcript());
    let other = kapi.run_stdin(&["apply", "-"], set(&kapi, "docs/a.md").as_bytes());
    assert_eq!(other.code, 3, "{}", other.transcript());
    assert!(
        other.stdout.contains("gate_failed"),
        "{}",
        other.transcript()
    );
}
