//! `kapi check`'s text findings are printed as their files finish, in the report's order:
//! the lines are exactly the `--json` report's findings, whatever order the files finish in.

use serde_json::Value;

use super::Kapi;

/// A project whose file names sort differently as paths and as text (`a-b/` and `a/`), with
/// a catalog whose translation files sort on both sides of their source (`de`, `en`, `fr`),
/// and enough files that both cores check some.
fn tree() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: stream\ndefaults:\n  source_language: en\n  target_languages: [de, fr]\ncollections:\n  - path: \"docs/**/*.md\"\n  - name: app\n    content:\n      - path: locales/en.json\n        target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: s\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: forbidden}\n",
    );
    for dir in ["a", "a-b", "a b", "a/b", "ab", "b"] {
        for n in 0..12 {
            let text = format!("# Page {n}\n\nUse login here.\n\nThen login {n} again.\n");
            kapi.write(&format!("docs/{dir}/p{n}.md"), text);
        }
    }
    kapi.write("docs/a.md", "# A\n\nA login.\n");
    kapi.write(
        "locales/en.json",
        "{\"greeting\": \"Hello, {name}! Please login.\", \"bye\": \"Goodbye, {name}\"}\n",
    );
    kapi.write(
        "locales/de.json",
        "{\"greeting\": \"Hallo!\", \"bye\": \"Tschüss\"}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\"greeting\": \"Bonjour !\", \"bye\": \"Au revoir, {name}\"}\n",
    );
    kapi
}

/// `path:line:col severity rule` of each finding, as the text prints it.
fn from_json(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {} {}",
                f["path"].as_str().expect("path"),
                f["line"],
                f["column"],
                f["severity"].as_str().expect("severity"),
                f["rule"].as_str().expect("rule"),
            )
        })
        .collect()
}

/// The text's first `want.len()` lines, each cut to the length of the `want` line at the
/// same place (a path may hold spaces: the text is not split on them); the lines after them
/// (notes and the summary) must not name a checked file.
fn from_text(stdout: &str, want: &[String]) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let (findings, rest) = lines.split_at(want.len().min(lines.len()));
    for line in rest {
        assert!(
            !line.starts_with("docs/") && !line.starts_with("locales/"),
            "a finding after the report's last: {line}\n{stdout}"
        );
    }
    findings
        .iter()
        .zip(want)
        .map(|(l, w)| l.get(..w.len()).unwrap_or(l).to_owned())
        .collect()
}

#[test]
fn text_findings_stream_in_the_order_of_the_json_report() {
    let kapi = tree();
    for args in [
        &["check", "--no-cache"][..],
        &["check"],
        &["check"],
        &["check", "docs", "locales/fr.json", "locales/de.json"],
    ] {
        let json_args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        let json = kapi.run(&json_args);
        assert_eq!(json.code, 3, "{}", json.transcript());
        let report = json.json();
        let want = from_json(&report);
        assert!(want.len() > 140, "{}", want.len());
        assert!(want.iter().any(|l| l.starts_with("locales/de.json")));
        assert!(want.iter().any(|l| l.starts_with("locales/fr.json")));
        let whole = args.len() < 3;
        assert_eq!(whole, want.iter().any(|l| l.starts_with("locales/en.json")));
        let text = kapi.run(args);
        assert_eq!(text.code, 3, "{}", text.transcript());
        assert_eq!(from_text(&text.stdout, &want), want, "{args:?}");
        let last = text.stdout.lines().last().expect("summary");
        assert!(
            last.starts_with(&format!(
                "{} files, {} findings",
                report["target"]["files"],
                want.len()
            )),
            "{last}"
        );
    }
}

/// A file that cannot be read streams as a `read.unreadable` finding in its place, and the
/// check goes on past it to the summary (issue 45: one unreadable file does not end it).
#[test]
fn a_file_that_cannot_be_read_is_a_finding_in_the_streamed_check() {
    let kapi = tree();
    kapi.write(
        "docs/a/p3.md",
        b"# Broken\n\n\xff\xfe not UTF-8\n".as_slice(),
    );
    let run = kapi.run(&["check"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("docs/a/p3.md critical read.unreadable kapi could not read the file"),
        "{}",
        run.transcript()
    );
    assert!(run.stdout.contains("docs/b/"), "{}", run.transcript());
    assert!(run.stdout.contains("files, "), "{}", run.transcript());
}
