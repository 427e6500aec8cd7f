//! `terms.case` (a case-sensitive product name written in another case or punctuation) and a
//! term's `exceptions:` (phrases in which it is allowed), through the binary: `kapi check`,
//! the terms file's errors, `kapi apply` term operations, `kapi context`, `context search`,
//! `kapi rewrite` and `kapi help rules`.

use serde_json::json;

use super::Kapi;
use super::apply::{apply, block, set, statuses};

const RECIPE: &str = "version: v1\nname: names\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n";

/// Product names the project writes one way only.
const NAMES: &str = "\
version: v1
concepts:
  - id: javascript
    terms:
      - {text: JavaScript, lang: en, status: preferred, case: sensitive}
  - id: github
    terms:
      - {text: GitHub, lang: en, status: preferred, case: sensitive}
  - id: node
    terms:
      - text: Node.js
        lang: en
        status: preferred
        case: sensitive
        severity: major
  - id: npm
    terms:
      - {text: npm, lang: en, status: admitted, case: sensitive}
";

const PAGE: &str = "\
# Install Node.JS

Npm comes with NodeJS. Write Javascript, push to Github and run NPM.

- Npm installs packages; javascript and github are wrong here.
- JavaScript, GitHub, Node.js and npm are right, and so are `javascript` and rust-analyzer.

| Tool | Note |
|---|---|
| Npm | the package manager; see npm-run-all and the github.io page |
";

fn names() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", NAMES);
    kapi.write("docs/names.md", PAGE);
    kapi
}

#[test]
fn a_product_name_in_another_case_or_punctuation_is_a_case_finding_with_the_name() {
    let kapi = names();
    insta::assert_snapshot!(kapi.run(&["check", "docs/names.md"]).transcript(), @r"
    exit: 3
    --- stdout ---
    docs/names.md:1:11 major terms.case `Node.JS` is not how this project writes it; use `Node.js`
    docs/names.md:3:16 major terms.case `NodeJS` is not how this project writes it; use `Node.js`
    docs/names.md:3:30 minor terms.case `Javascript` is not how this project writes it; use `JavaScript`
    docs/names.md:3:50 minor terms.case `Github` is not how this project writes it; use `GitHub`
    docs/names.md:3:65 minor terms.case `NPM` is not how this project writes it; use `npm`
    docs/names.md:5:26 minor terms.case `javascript` is not how this project writes it; use `JavaScript`
    docs/names.md:5:41 minor terms.case `github` is not how this project writes it; use `GitHub`
    1 file, 7 findings (0 critical, 2 major, 5 minor), score 85: gate not met (2 findings at major or worse)
    --- stderr ---
    ");
    let report = kapi.run(&["check", "docs/names.md", "--json"]).json();
    let first = &report["findings"][0];
    assert_eq!(
        (&first["rule"], &first["matched"], &first["suggestion"]),
        (&json!("terms.case"), &json!("Node.JS"), &json!("Node.js"))
    );
}

#[test]
fn terms_case_is_explained_by_kapi_help_rules() {
    let run = Kapi::empty().run(&["help", "rules", "terms.case"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    for part in [
        "## What it flags",
        "`NodeJS`",
        "`Java Script`",
        "`rust-analyzer`",
        "`Npm`",
    ] {
        assert!(run.stdout.contains(part), "{part}: {}", run.stdout);
    }
    let list = Kapi::empty().run(&["help", "rules"]);
    assert!(list.stdout.contains("terms.case"), "{}", list.stdout);
}

/// A forbidden name allowed inside two event names.
const REACT: &str = "\
version: v1
concepts:
  - id: react
    terms:
      - text: React
        lang: en
        status: preferred
      - text: ReactJS
        lang: en
        status: forbidden
        replacement: React
        exceptions: [ReactJS Day, ReactJS Conf]
";

fn react(page: &str) -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", REACT);
    kapi.write("docs/events.md", page);
    kapi
}

#[test]
fn a_term_inside_one_of_its_exceptions_is_not_a_finding_and_the_bare_term_still_is() {
    let kapi =
        react("# Events\n\nSee you at ReactJS\nDay and reactjs conf. ReactJS is the old name.\n");
    insta::assert_snapshot!(kapi.run(&["check"]).transcript(), @r"
    exit: 3
    --- stdout ---
    docs/events.md:4:23 major terms.forbidden `ReactJS` is forbidden here; use `React`
    2 findings suppressed where the project allows them (kapi-disable comments, term exceptions, the recipe's `rules:`): `--json` lists each, `--no-suppress` reports them
    1 file, 1 finding (0 critical, 1 major, 0 minor), 2 suppressed, score 95: gate not met (1 finding at major or worse)
    --- stderr ---
    ");
    // Each is listed with the exception that allows it, and `--no-suppress` reports them.
    let report: serde_json::Value =
        serde_json::from_str(&kapi.run(&["check", "--json"]).stdout).unwrap_or_default();
    assert_eq!(report["summary"]["suppressed"], 2, "{report}");
    let by = &report["suppressed"][0]["suppressed_by"];
    assert_eq!(by["kind"], "exception", "{report}");
    assert!(
        by["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("exception `ReactJS Day` of `ReactJS` (.kapi/terms.yaml:"),
        "{report}"
    );
    let all = kapi.run(&["check", "--no-suppress"]);
    assert!(all.stdout.contains("3 findings"), "{}", all.transcript());
    // The rewrite leaves the event names alone too.
    let run = kapi.run(&["rewrite", "docs/events.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("See you at ReactJS\nDay and reactjs conf. React is the old name."),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bad_exception_is_a_located_error_with_its_fix() {
    let kapi = react("Fine.\n");
    kapi.write(
        ".kapi/terms.yaml",
        REACT.replace(
            "[ReactJS Day, ReactJS Conf]",
            "[ReactJS Day, React Conf, '']",
        ),
    );
    insta::assert_snapshot!(kapi.run(&["check"]).transcript(), @r"
    exit: 1
    --- stdout ---
    --- stderr ---
    error: .kapi/terms.yaml:12:9: concepts[0].terms[1].exceptions[1]: `React Conf` does not contain the term `ReactJS` as a word of its own
    .kapi/terms.yaml:12:9: concepts[0].terms[1].exceptions[2]: must not be empty

    hint: write the whole phrase in which `ReactJS` is allowed, with the term in it as written (`ReactJS Day`), or remove the exception
    hint: write the phrase in which `ReactJS` is allowed, such as `ReactJS Day`, or remove the empty entry
    ");
}

#[test]
fn exceptions_survive_term_operations_and_can_be_set_by_one() {
    let kapi = react("See you at ReactJS Day and ReactJS Summit.\n");
    // Another field of the term changes: its exceptions stay.
    let run = apply(
        &kapi,
        &set(json!([{"op": "term", "term": {
            "text": "ReactJS", "lang": "en", "status": "deprecated", "note": "the old name"}}])),
        &["--json"],
    );
    assert_eq!(statuses(&run), ["applied"], "{}", run.transcript());
    let terms = kapi.read(".kapi/terms.yaml");
    assert!(
        terms.contains("        exceptions: [ReactJS Day, ReactJS Conf]\n"),
        "{terms}"
    );
    assert!(terms.contains("        status: deprecated\n"), "{terms}");
    // A term operation sets the list.
    let run = apply(
        &kapi,
        &set(json!([{"op": "term", "term": {
            "text": "ReactJS", "lang": "en", "status": "deprecated",
            "exceptions": ["ReactJS Day", "ReactJS Summit"]}}])),
        &["--json"],
    );
    assert_eq!(statuses(&run), ["applied"], "{}", run.transcript());
    let check = kapi.run(&["check", "--json"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
    // One whose exception lacks the term is refused, naming the fix; nothing is written.
    let before = kapi.read(".kapi/terms.yaml");
    let run = apply(
        &kapi,
        &set(json!([{"op": "term", "term": {
            "text": "ReactJS", "lang": "en", "status": "deprecated", "exceptions": ["React Day"]}}])),
        &["--json"],
    );
    assert_ne!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("`React Day` does not contain the term `ReactJS`")
            || run
                .stderr
                .contains("`React Day` does not contain the term `ReactJS`"),
        "{}",
        run.transcript()
    );
    assert_eq!(kapi.read(".kapi/terms.yaml"), before);
}

#[test]
fn context_and_context_search_show_a_terms_exceptions() {
    let kapi = react("Fine.\n");
    let brief = kapi.run(&["context", "docs/events.md"]);
    assert_eq!(brief.code, 0, "{}", brief.transcript());
    assert!(
        brief
            .stdout
            .contains("- ~~ReactJS~~ → say **React** (en, forbidden); allowed in `ReactJS Day`, `ReactJS Conf`"),
        "{}",
        brief.stdout
    );
    let json = kapi.run(&["context", "docs/events.md", "--json"]).json();
    assert_eq!(
        json["terms"]["avoid"][0]["exceptions"],
        json!([
            {"text": "ReactJS Day", "at": ".kapi/terms.yaml:12"},
            {"text": "ReactJS Conf", "at": ".kapi/terms.yaml:12"}
        ])
    );
    let search = kapi.run(&["context", "search", "reactjs"]);
    assert!(
        search
            .stdout
            .contains("Allowed in `ReactJS Day`, `ReactJS Conf`"),
        "{}",
        search.stdout
    );
    let found = kapi.run(&["context", "search", "reactjs", "--json"]).json();
    let reactjs = found["terms"]
        .as_array()
        .and_then(|terms| terms.iter().find(|t| t["text"] == "ReactJS"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        reactjs["exceptions"],
        json!(["ReactJS Day", "ReactJS Conf"])
    );
}

#[test]
fn an_edit_that_writes_an_exception_passes_the_commit_check_and_the_bare_term_does_not() {
    let kapi = react("# Events\n\nSee you soon.\n");
    let edit = |content: &str| {
        let (at, rev, _) = block(&kapi, "docs/events.md", "See you");
        apply(
            &kapi,
            &set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": content}])),
            &["--json"],
        )
    };
    let run = edit("See you at ReactJS Day.");
    assert_eq!(statuses(&run), ["applied"], "{}", run.transcript());
    let run = edit("ReactJS is the old name.");
    assert_eq!(statuses(&run), ["gate_failed"], "{}", run.transcript());
    assert!(
        kapi.read("docs/events.md")
            .contains("See you at ReactJS Day.")
    );
}
