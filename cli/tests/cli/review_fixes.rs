//! Three fixes a review found, through the binary: an address in text written without spaces
//! (Japanese, Chinese, Thai) ends where the script starts, so it no longer hides the terms of
//! the paragraph around it; of two prohibited patterns on the same words the more severe
//! reports them; and `kapi rewrite` leaves what the check allows (`kapi-disable…` comments,
//! the recipe's `rules:`, a term's `exceptions:`) and fixes `terms.case` variants.

use serde_json::Value;

use super::Kapi;

/// A Japanese project that forbids `ホワイトリスト` (`許可リスト` instead).
fn japanese() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: ja\ndefaults:\n  source_language: ja\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allowlist\n    terms:\n      - {text: ホワイトリスト, lang: ja, status: forbidden, replacement: 許可リスト}\n",
    );
    kapi
}

/// `(rule, line, matched)` of each finding of a `--json` report.
fn findings(report: &Value) -> Vec<(String, u64, String)> {
    report["findings"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|f| {
                    (
                        f["rule"].as_str().unwrap_or_default().to_owned(),
                        f["line"].as_u64().unwrap_or_default(),
                        f["matched"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_address_in_japanese_text_does_not_hide_the_terms_around_it() {
    let kapi = japanese();
    kapi.write(
        "docs/a.md",
        "Vue.jsではホワイトリストを使います。\n\n\
         設定はconfig.yamlに書き、ホワイトリストはhttps://example.com/whitelistで見ます。\n\n\
         詳しくはhttps://example.com/ホワイトリスト/を参照。\n",
    );
    let run = kapi.run(&["check", "--json"]);
    let forbidden = |line: u64| {
        (
            "terms.forbidden".to_owned(),
            line,
            "ホワイトリスト".to_owned(),
        )
    };
    assert_eq!(
        findings(&run.json()),
        [forbidden(1), forbidden(3), forbidden(5)],
        "{}",
        run.transcript()
    );
    // The rewrite swaps them too, and leaves the addresses as written.
    let run = kapi.run(&["rewrite", "docs/a.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        run.stdout,
        "Vue.jsでは許可リストを使います。\n\n\
         設定はconfig.yamlに書き、許可リストはhttps://example.com/whitelistで見ます。\n\n\
         詳しくはhttps://example.com/許可リスト/を参照。\n"
    );
}

#[test]
fn an_address_in_thai_or_chinese_text_ends_where_the_script_starts() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: th\ndefaults:\n  source_language: th\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allowlist\n    terms:\n      - {text: ไวท์ลิสต์, lang: th, status: forbidden, replacement: รายการที่อนุญาต}\n",
    );
    kapi.write("docs/a.md", "ใช้ไวท์ลิสต์กับv3.2ของระบบ\n");
    let run = kapi.run(&["check", "--json"]);
    assert_eq!(
        findings(&run.json()),
        [("terms.forbidden".to_owned(), 1, "ไวท์ลิสต์".to_owned())],
        "{}",
        run.transcript()
    );
}

#[test]
fn a_translation_next_to_an_address_in_japanese_uses_its_term() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ndefaults:\n  source_language: en\n  target_languages: [ja]\ncollections:\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: component\n    terms:\n      - {text: component, lang: en, status: preferred}\n      - {text: コンポーネント, lang: ja, status: preferred}\n",
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"use\": \"Use the component in Vue.js.\",\n  \"other\": \"Use the component.\"\n}\n",
    );
    kapi.write(
        "locales/ja.json",
        "{\n  \"use\": \"Vue.jsのコンポーネントを使います。\",\n  \"other\": \"部品を使います。\"\n}\n",
    );
    let run = kapi.run(&["check", "--json"]);
    let missing: Vec<u64> = findings(&run.json())
        .into_iter()
        .filter(|(rule, ..)| rule == "translation-terms.missing")
        .map(|(_, line, _)| line)
        .collect();
    // Only the translation that has no `コンポーネント`.
    assert_eq!(missing, [3], "{}", run.transcript());
}

#[test]
fn of_two_prohibited_patterns_on_the_same_words_the_more_severe_reports_them() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: v\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\ngates:\n  fail_on: critical\n",
    );
    kapi.write(
        ".kapi/voice.yaml",
        "name: docs\nstyle:\n  prohibited_patterns:\n    - {regex: '(?i)\\bsimply\\b', description: Minimising words, severity: minor}\n    - {regex: '(?i)\\b(simply|obviously)\\b', description: Talks down to the reader, severity: critical}\n",
    );
    kapi.write("docs/a.md", "Simply run it.\n");
    let run = kapi.run(&["check", "--json"]);
    assert_eq!(
        run.code,
        3,
        "the critical pattern fails the gate: {}",
        run.transcript()
    );
    let report = run.json();
    let found = &report["findings"][0];
    assert_eq!(found["severity"], "critical", "{}", run.stdout);
    assert_eq!(found["matched"], "Simply");
    let message = found["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Talks down to the reader"), "{message}");
    assert!(message.contains("Minimising words"), "{message}");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(1));
}

/// A project that forbids `whitelist`, writes `GitHub` one way, allows `ReactJS Day`, and sets
/// the terms aside under `docs/legal/`.
fn rewriting() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: rw\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\nrules:\n  terms.forbidden:\n    exclude: [\"docs/legal/**\"]\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}\n  - id: github\n    terms:\n      - {text: GitHub, lang: en, status: preferred, case: sensitive}\n  - id: react\n    terms:\n      - {text: ReactJS, lang: en, status: deprecated, replacement: React, exceptions: [ReactJS Day]}\n",
    );
    kapi
}

const DIRECTIVES: &str = "Add it to the whitelist.

<!-- kapi-disable-next-line terms.forbidden -->
Add it to the whitelist
on a wrapped line: whitelist.

The whitelist stays. <!-- kapi-disable-line terms -->

<!-- kapi-disable terms -->
Keep the whitelist here.

And here: whitelist.
<!-- kapi-enable terms -->

See you at ReactJS Day, not ReactJS. Push to Github and github.com.

<!-- kapi-disable-next-line terms.forbidden -->
Push the whitelist to github.
";

#[test]
fn rewrite_leaves_what_a_directive_allows_and_fixes_a_name_to_its_case() {
    let kapi = rewriting();
    kapi.write("docs/a.md", DIRECTIVES);
    let run = kapi.run(&["rewrite", "docs/a.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        run.stdout,
        DIRECTIVES
            .replacen("to the whitelist.\n", "to the allowlist.\n", 1)
            .replace("not ReactJS.", "not React.")
            .replace("to Github and", "to GitHub and")
            .replace("to github.\n", "to GitHub.\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "Left as written: `whitelist` (forbidden, terms.forbidden): allowed here by `kapi-disable-next-line terms.forbidden` (line 3)"
        ),
        "{}",
        run.stderr
    );
    // What the check reports is what the rewrite fixes: the rewritten text has no finding,
    // and the check sets apart what the rewrite left.
    kapi.write("docs/b.md", &run.stdout);
    let check = kapi.run(&["check", "docs/b.md", "--json"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
    assert!(findings(&check.json()).is_empty(), "{}", check.stdout);

    // `--json` says what allowed each term left as written.
    let run = kapi.run(&["rewrite", "docs/a.md", "--json"]);
    let rewrite = run.json();
    let left: Vec<(&str, &str)> = rewrite["unchanged"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| Some((u["text"].as_str()?, u["suppressed_by"]["kind"].as_str()?)))
        .collect();
    assert_eq!(
        left,
        [
            ("whitelist", "directive"),
            ("whitelist", "directive"),
            ("whitelist", "directive"),
            ("whitelist", "directive"),
            ("whitelist", "directive"),
            ("ReactJS", "exception"),
            ("whitelist", "directive"),
        ],
        "{}",
        run.stdout
    );
    let cases: Vec<(&str, &str, &str)> = rewrite["replacements"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| Some((r["from"].as_str()?, r["to"].as_str()?, r["rule"].as_str()?)))
        .collect();
    assert_eq!(
        cases,
        [
            ("whitelist", "allowlist", "terms.forbidden"),
            ("ReactJS", "React", "terms.deprecated"),
            ("Github", "GitHub", "terms.case"),
            ("github", "GitHub", "terms.case"),
        ]
    );
}

#[test]
fn rewrite_leaves_what_the_recipe_sets_aside_where_the_text_goes() {
    let kapi = rewriting();
    let text = "Add it to the whitelist on Github.\n";
    let legal = kapi.run_stdin(
        &["rewrite", "--context-path", "docs/legal/terms.md"],
        text.as_bytes(),
    );
    assert_eq!(legal.code, 0, "{}", legal.transcript());
    assert_eq!(legal.stdout, "Add it to the whitelist on GitHub.\n");
    assert!(
        legal
            .stderr
            .contains("allowed here by `rules.terms.forbidden.exclude`"),
        "{}",
        legal.stderr
    );
    let guide = kapi.run_stdin(
        &["rewrite", "--context-path", "docs/guide.md"],
        text.as_bytes(),
    );
    assert_eq!(guide.stdout, "Add it to the allowlist on GitHub.\n");
}

#[test]
fn a_project_file_rewritten_by_name_is_held_to_what_governs_it_where_it_is() {
    let kapi = rewriting();
    let text = "Add it to the whitelist on Github.\n";
    kapi.write("docs/legal/terms.md", text);
    kapi.write("docs/guide.md", text);
    let legal = kapi.run(&["rewrite", "docs/legal/terms.md"]);
    assert_eq!(legal.code, 0, "{}", legal.transcript());
    assert_eq!(legal.stdout, "Add it to the whitelist on GitHub.\n");
    let guide = kapi.run(&["rewrite", "docs/guide.md"]);
    assert_eq!(guide.stdout, "Add it to the allowlist on GitHub.\n");
    // A destination named wins over the file's own path.
    let named = kapi.run(&[
        "rewrite",
        "docs/legal/terms.md",
        "--context-path",
        "docs/guide.md",
    ]);
    assert_eq!(named.stdout, "Add it to the allowlist on GitHub.\n");
}
