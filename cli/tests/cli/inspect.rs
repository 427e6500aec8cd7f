//! `kapi inspect` and `kapi formats`: the read records, editions, paging, `--verify`, and
//! every refusal with its exit code.

use serde::Deserialize;

use super::Kapi;

/// The `kapi.blocks/v1` contract, decoded into the test's own types so a renamed field fails.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Blocks {
    schema: String,
    doc: String,
    format: String,
    file_rev: String,
    total: usize,
    blocks: Vec<Record>,
    next: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    #[serde(rename = "ref")]
    at: Ref,
    /// Markdown's readable name beside its positional key.
    label: Option<String>,
    rev: String,
    role: String,
    level: u32,
    translatable: bool,
    text: String,
    codes: Vec<serde_json::Value>,
    branches: Vec<serde_json::Value>,
    editions: std::collections::BTreeMap<String, serde_json::Value>,
    accepts: Vec<String>,
    why: Option<String>,
    #[serde(default)]
    notes: Vec<String>,
    line: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ref {
    doc: String,
    block: String,
    edition: String,
    branch: Option<String>,
}

const GUIDE: &str = "# Guide\n\nOpen the [dashboard](/dash) for **{name}**.\n\n```sh\nkapi check\n```\n\n- one\n  - nested\n";

fn blocks(kapi: &Kapi, args: &[&str]) -> Blocks {
    let run = kapi.run(args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn the_json_document_carries_refs_revs_codes_and_accepts() {
    let kapi = Kapi::empty();
    kapi.write("guide.md", GUIDE);
    let doc = blocks(&kapi, &["inspect", "guide.md", "--json"]);
    assert_eq!(doc.schema, "kapi.blocks/v1");
    assert_eq!(
        (doc.doc.as_str(), doc.format.as_str()),
        ("guide.md", "markdown")
    );
    assert!(doc.file_rev.starts_with('f') && doc.file_rev.len() == 17);
    assert_eq!(doc.total, doc.blocks.len());
    assert_eq!(doc.next, None);
    let p = doc
        .blocks
        .iter()
        .find(|b| b.role == "paragraph")
        .expect("a paragraph");
    assert_eq!(p.at.edition, "source");
    assert_eq!(p.at.doc, "guide.md");
    assert_eq!(
        (p.at.block.as_str(), p.label.as_deref()),
        ("s1/p", Some("guide/p"))
    );
    assert!(p.at.branch.is_none());
    assert!(p.rev.starts_with('r') && p.rev.len() == 17);
    assert!(
        p.text.contains("<x id=\"1\"/>dashboard<x id=\"/1\"/>"),
        "{}",
        p.text
    );
    assert!(!p.codes.is_empty());
    assert_eq!(p.accepts, ["set_content", "replace_text"]);
    assert_eq!(p.line, Some(3));
    let code = doc
        .blocks
        .iter()
        .find(|b| b.role == "code")
        .expect("a code block");
    assert!(!code.translatable);
    assert!(code.accepts.is_empty());
    assert!(
        code.why.as_deref().is_some_and(|w| w.contains("code")),
        "{:?}",
        code.why
    );
    let nested = doc
        .blocks
        .iter()
        .find(|b| b.text == "nested")
        .expect("nested item");
    assert_eq!((nested.role.as_str(), nested.level), ("list-item", 2));
    assert!(
        doc.blocks
            .iter()
            .all(|b| b.branches.is_empty() && b.editions.is_empty() && b.notes.is_empty())
    );
}

#[test]
fn jsonl_prints_one_record_per_line_and_the_text_view_is_aligned() {
    let kapi = Kapi::empty();
    kapi.write("guide.md", GUIDE);
    let run = kapi.run(&["inspect", "guide.md", "--jsonl"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines.len() >= 4);
    for line in &lines {
        let record: Record = serde_json::from_str(line).expect("a record per line");
        assert_eq!(record.at.doc, "guide.md");
    }
    let text = kapi.run(&["inspect", "guide.md"]);
    insta::assert_snapshot!("inspect_text_view", text.transcript());
}

#[test]
fn pages_follow_the_cursor_and_a_stale_cursor_is_refused() {
    let kapi = Kapi::empty();
    kapi.write("guide.md", GUIDE);
    let first = blocks(&kapi, &["inspect", "guide.md", "--json", "--limit", "2"]);
    assert_eq!(first.blocks.len(), 2);
    let next = first.next.clone().expect("a next page");
    let second = blocks(
        &kapi,
        &[
            "inspect", "guide.md", "--json", "--limit", "2", "--cursor", &next,
        ],
    );
    assert_ne!(first.blocks[0].at.block, second.blocks[0].at.block);
    let mut keys = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec!["inspect", "guide.md", "--json", "--limit", "1"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let page = blocks(&kapi, &args);
        keys.extend(page.blocks.into_iter().map(|b| b.at.block));
        match page.next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    assert_eq!(keys.len(), first.total);
    // The file changes: the old cursor is refused, exit 1, with the fix.
    kapi.write("guide.md", format!("{GUIDE}\nMore.\n"));
    let stale = kapi.run(&["inspect", "guide.md", "--limit", "2", "--cursor", &next]);
    assert_eq!(stale.code, 1, "{}", stale.transcript());
    assert!(
        stale.stderr.contains("another version of the file"),
        "{}",
        stale.stderr
    );
    assert!(
        stale.stderr.contains("without `--cursor`"),
        "{}",
        stale.stderr
    );
    let junk = kapi.run(&["inspect", "guide.md", "--cursor", "nonsense"]);
    assert_eq!(junk.code, 2, "{}", junk.transcript());
    // The file is read before the cursor is judged: a missing file is what is wrong first.
    let missing = kapi.run(&["inspect", "missing.md", "--cursor", "nonsense"]);
    assert_eq!(missing.code, 1, "{}", missing.transcript());
    assert!(
        missing.stderr.contains("no such file"),
        "{}",
        missing.stderr
    );
}

#[test]
fn refusals_name_the_problem_and_exit_as_documented() {
    let kapi = Kapi::empty();
    kapi.write("bad.txt", [0x66, 0x6f, 0xff, 0x6f]);
    kapi.write("notes.unknownext", "hello");
    kapi.write("dir/a.md", "# A\n");
    let cases: &[(&[&str], i32, &str)] = &[
        (&["inspect", "missing.md"], 1, "no such file"),
        (&["inspect", "bad.txt"], 1, "not valid UTF-8"),
        (
            &["inspect", "notes.unknownext"],
            1,
            "no format reads this file",
        ),
        (&["inspect", "dir"], 2, "is a folder"),
        (
            &["inspect", "dir/a.md", "dir/a.md"],
            2,
            "one file at a time",
        ),
        (
            &["inspect", "dir/a.md", "--as", "nope"],
            1,
            "not a format this build reads",
        ),
        (&["inspect", "dir/a.md", "--limit", "0"], 2, "0"),
        (
            &["inspect", "--verify", "dir/a.md", "--limit", "3"],
            2,
            "cannot be used with",
        ),
        (&["inspect"], 2, "PATH"),
    ];
    for (args, code, needle) in cases {
        let run = kapi.run(args);
        assert_eq!(run.code, *code, "{args:?}\n{}", run.transcript());
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
    // `--as` reads a file whose extension names no format.
    let read = kapi.run(&["inspect", "notes.unknownext", "--as", "text", "--json"]);
    assert_eq!(read.code, 0, "{}", read.transcript());
}

#[test]
fn verify_reports_identical_files_and_exits_1_when_one_cannot_be_read() {
    let kapi = Kapi::empty();
    kapi.write("a.md", GUIDE);
    kapi.write("b.txt", "one\r\n\r\ntwo\r\n");
    let ok = kapi.run(&["inspect", "--verify", "a.md", "b.txt"]);
    assert_eq!(ok.code, 0, "{}", ok.transcript());
    assert!(
        ok.stdout.contains("2 of 2 files round-trip byte for byte"),
        "{}",
        ok.stdout
    );
    let json = kapi.run(&["inspect", "--verify", "a.md", "missing.md", "--json"]);
    assert_eq!(json.code, 1, "{}", json.transcript());
    let v = json.json();
    assert_eq!(v["schema"], "kapi.verify/v1");
    assert_eq!(v["files"][0]["status"], "identical");
    assert_eq!(v["files"][1]["status"], "unreadable");
    assert!(
        v["files"][1]["error"]
            .as_str()
            .unwrap_or("")
            .contains("no such file")
    );
}

#[test]
fn a_symlink_out_of_the_project_is_refused() {
    let kapi = Kapi::with_project("mini");
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("secret.md"), "# Secret\n").expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            kapi.path().join("docs/link.md"),
        )
        .expect("symlink");
        let run = kapi.run(&["inspect", "docs/link.md"]);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert!(
            run.stderr.contains("leads outside the project"),
            "{}",
            run.stderr
        );
        let check = kapi.run(&["check", "docs/link.md"]);
        assert_eq!(check.code, 1, "{}", check.transcript());
    }
}

#[test]
fn target_editions_come_from_the_collection_template() {
    let kapi = Kapi::with_project("mini");
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: t\ndefaults:\n  source_language: en\n  target_languages: [fr, de]\ncollections:\n  - name: docs\n    content:\n      - path: \"docs/*.md\"\n        target: \"i18n/{lang}/{filename}\"\n",
    );
    kapi.write(
        "docs/page.md",
        "# Title\n\nHello {name}, see <b>this</b>.\n",
    );
    kapi.write(
        "i18n/fr/page.md",
        "# Titre\n\nBonjour, voyez <b>ceci</b>.\n",
    );
    let doc = blocks(
        &kapi,
        &["inspect", "docs/page.md", "--json", "--editions", "*"],
    );
    let p = doc
        .blocks
        .iter()
        .find(|b| b.role == "paragraph")
        .expect("paragraph");
    let fr = &p.editions["fr"];
    assert_eq!(fr["doc"], "i18n/fr/page.md");
    assert!(
        fr["text"].as_str().unwrap_or("").starts_with("Bonjour"),
        "{fr}"
    );
    assert!(fr["rev"].as_str().unwrap_or("").starts_with('r'));
    assert_eq!(
        fr["accepts"],
        serde_json::json!(["set_content", "replace_text", "decide"])
    );
    let de = &p.editions["de"];
    assert!(de["text"].is_null());
    assert!(
        de["why"]
            .as_str()
            .unwrap_or("")
            .contains("does not exist yet"),
        "{de}"
    );
    let only_fr = blocks(
        &kapi,
        &["inspect", "docs/page.md", "--json", "--editions", "fr"],
    );
    assert!(
        only_fr
            .blocks
            .iter()
            .all(|b| !b.editions.contains_key("de"))
    );
    let none = blocks(&kapi, &["inspect", "docs/page.md", "--json"]);
    assert!(none.blocks.iter().all(|b| b.editions.is_empty()));
    // The translation lost `{name}`: the placeholders analyzer names the French file.
    let check = kapi.run(&["check", "docs/page.md", "--json"]);
    let report = check.json();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|x| x["rule"].as_str()).collect())
        .unwrap_or_default();
    assert!(rules.contains(&"placeholders.missing"), "{}", check.stdout);
    let finding = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["rule"] == "placeholders.missing"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(finding["path"], "i18n/fr/page.md");
    assert_eq!(check.code, 3, "{}", check.transcript());
    assert!(
        report["coverage"]["ran"]
            .as_array()
            .is_some_and(|r| r.iter().any(|a| a == "placeholders"))
    );
}

#[test]
fn formats_lists_every_format_with_its_edit_column_and_flags() {
    let kapi = Kapi::empty();
    let text = kapi.run(&["formats"]);
    assert_eq!(text.code, 0);
    insta::assert_snapshot!("formats_text", text.stdout);
    let json = kapi.run(&["formats", "--json"]).json();
    assert_eq!(json["schema"], "kapi.formats/v1");
    for f in json["formats"].as_array().expect("formats") {
        for flag in [
            "editable",
            "round_trip",
            "generative",
            "bilingual",
            "comments",
            "reader",
            "writer",
        ] {
            assert!(f[flag].is_boolean(), "{} lacks {flag}", f["id"]);
        }
        let editable = f["editable"].as_bool().unwrap_or(false);
        let comments = f["comments"].as_bool().unwrap_or(false);
        let want = match (editable, comments) {
            (true, _) => "yes",
            (false, true) => "comment",
            (false, false) => "unsupported",
        };
        assert_eq!(f["operations"]["set_content"], want, "{}", f["id"]);
        if f["bilingual"].as_bool().unwrap_or(false) {
            assert!(!editable, "{} is bilingual yet editable", f["id"]);
        }
    }
}

#[test]
fn malformed_files_are_refused_with_their_position_and_exit_1() {
    let kapi = Kapi::empty();
    let cases: &[(&str, &[u8], &str)] = &[
        ("bad.yaml", b"a: 'unterminated\nb: c\n", "bad.yaml:"),
        ("bad.xlf", b"<?xml version=\"1.0\"?>\n<xliff version=\"1.2\"><file><body>\n<trans-unit id=\"1\"><source>x</trans-unit>\n", "bad.xlf:"),
        ("bad.po", b"msgid \"a\"\nmsgstr \"unterminated\n", "bad.po:2:"),
        ("bad.docx", b"PK\x03\x04 truncated", "bad.docx"),
        ("strings.xml", b"<?xml version=\"1.0\"?>\n<resources>\n<string name=\"a\">x</resources>\n", "strings.xml:"),
        ("bad.properties", b"key=\\uZZZZ\n", "bad.properties:1:"),
        ("bad.md", [0x23, 0x20, 0xff, 0x0a].as_slice(), "not valid UTF-8"),
    ];
    for (name, bytes, needle) in cases {
        kapi.write(name, bytes);
        let before = std::fs::read(kapi.path().join(name)).expect("written");
        for args in [vec!["inspect", name], vec!["check", name]] {
            let run = kapi.run(&args);
            assert_eq!(run.code, 1, "{args:?}\n{}", run.transcript());
            assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
            assert!(run.stderr.contains("hint:"), "{args:?}: {}", run.stderr);
        }
        let verify = kapi.run(&["inspect", "--verify", name]);
        assert_eq!(verify.code, 1, "{}", verify.transcript());
        assert_eq!(
            std::fs::read(kapi.path().join(name)).expect("still there"),
            before,
            "{name} changed"
        );
    }
}

#[test]
fn a_bilingual_file_is_checked_source_against_target() {
    let kapi = Kapi::empty();
    kapi.write(
        "fr.po",
        "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n#, python-format\nmsgid \"Delete %(count)s files?\"\nmsgstr \"Supprimer les fichiers ?\"\n\nmsgid \"Hello {name}\"\nmsgstr \"Bonjour {name}\"\n",
    );
    let run = kapi.run(&["check", "fr.po", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let missing: Vec<_> = findings
        .iter()
        .filter(|f| f["rule"] == "placeholders.missing")
        .collect();
    assert_eq!(missing.len(), 1, "{}", run.stdout);
    assert_eq!(missing[0]["line"], 8, "the msgstr line");
    assert_eq!(missing[0]["matched"], "%(count)s");
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("(fr)")
    );
    // The editions show in inspect; the source is read-only and says why.
    let doc = blocks(&kapi, &["inspect", "fr.po", "--json", "--editions", "*"]);
    let first = &doc.blocks[0];
    assert!(first.accepts.is_empty());
    assert!(first.why.as_deref().unwrap_or("").contains("bilingual"));
    assert_eq!(first.editions["fr"]["text"], "Supprimer les fichiers ?");
    assert_eq!(first.editions["fr"]["state"], "translated");
    let xlf = "<?xml version=\"1.0\"?>\n<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" original=\"a\"><body>\n<trans-unit id=\"u1\"><source>Open <g id=\"1\">the file</g> {0}</source><target state=\"translated\">Datei öffnen</target></trans-unit>\n</body></file></xliff>\n";
    kapi.write("de.xlf", xlf);
    let run = kapi.run(&["check", "de.xlf", "--json"]);
    let rules: Vec<String> = run.json()["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|x| x["rule"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        rules.contains(&"placeholders.missing".to_owned()),
        "{rules:?}"
    );
    assert!(rules.contains(&"placeholders.tags".to_owned()), "{rules:?}");
}

#[test]
fn a_translation_uses_the_concepts_term_in_its_language() {
    let kapi = Kapi::with_project("mini");
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: t\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: docs\n    content:\n      - path: \"docs/*.md\"\n        target: \"i18n/{lang}\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: se connecter, lang: fr, status: preferred}\n      - {text: login, lang: fr, status: forbidden, replacement: identifiant}\n",
    );
    kapi.write("docs/a.md", "Sign in to continue.\n\nSign in again.\n");
    kapi.write(
        "i18n/fr/docs/a.md",
        "Identifiez-vous pour continuer.\n\nIl faut se connecter avec votre login.\n",
    );
    let run = kapi.run(&["check", "docs/a.md", "--json"]);
    let report = run.json();
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let rules: Vec<(&str, u64)> = findings
        .iter()
        .filter_map(|f| Some((f["rule"].as_str()?, f["line"].as_u64()?)))
        .collect();
    assert!(
        rules.contains(&("translation-terms.missing", 1)),
        "{}",
        run.stdout
    );
    assert!(
        rules.contains(&("translation-terms.avoid", 3)),
        "{}",
        run.stdout
    );
    assert!(
        !rules.contains(&("translation-terms.missing", 3)),
        "{}",
        run.stdout
    );
    let avoid = findings
        .iter()
        .find(|f| f["rule"] == "translation-terms.avoid")
        .cloned()
        .unwrap_or_default();
    assert_eq!(avoid["path"], "i18n/fr/docs/a.md");
    assert_eq!(avoid["matched"], "login");
    assert_eq!(avoid["suggestion"], "identifiant");
    assert_eq!(run.code, 3, "{}", run.transcript());
}

#[test]
fn a_word_document_is_read_checked_and_verified() {
    let kapi = Kapi::empty();
    let bytes = std::fs::read(super::testdata().join("formats/docx/basic.docx")).expect("fixture");
    kapi.write("guide.docx", &bytes);
    let doc = blocks(&kapi, &["inspect", "guide.docx", "--json"]);
    assert_eq!(doc.format, "docx");
    assert!(
        doc.blocks
            .iter()
            .any(|b| b.role == "heading" && b.level == 1)
    );
    assert!(doc.blocks.iter().all(|b| b.at.block.starts_with("body/")));
    let run = kapi.run(&["check", "guide.docx"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("guide.docx [body/p#10] minor hygiene.doubled-space"),
        "{}",
        run.stdout
    );
    let verify = kapi.run(&["inspect", "--verify", "guide.docx"]);
    assert_eq!(verify.code, 0, "{}", verify.transcript());
}
