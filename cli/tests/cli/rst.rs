//! reStructuredText (`.rst`, and `.txt` under `format: rst`; issue 41) through the binary:
//! `kapi formats` lists it, `kapi init` offers its trees, `kapi inspect` reads directives,
//! roles and literals as markup, `kapi check` finds a planted term in prose at its own line and
//! column and never in markup, a `..` comment suppresses, and `kapi apply` changes one block
//! (a table's column widening for a longer cell) and leaves every other byte.

use serde_json::{Value, json};

use super::Kapi;

const RECIPE: &str = "version: v1\nname: rst\ndefaults:\n  source_language: en\n  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.rst\"\n  - path: \"legacy/**/*.txt\"\n    format: rst\ngates:\n  fail_on: major\n";
const TERMS: &str = "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}\n";

/// A Sphinx page: a title, a paragraph naming the forbidden word, a role and a literal that
/// name it, a code block and a toctree that name it, a note, a suppressed paragraph, a table.
const PAGE: &str = "Lists\n=====\n\nAdd the host to the whitelist.\n\nSee :ref:`whitelist` and ``whitelist`` for more::\n\n   whitelist = []\n\n.. toctree::\n\n   whitelist\n\n.. note:: The whitelist holds hosts.\n\n.. kapi-disable-next-line terms.forbidden\n\nOur whitelist API keeps its name.\n\n+------+------+\n| Name | Kind |\n+======+======+\n| a    | host |\n+------+------+\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write("docs/lists.rst", PAGE);
    kapi
}

fn blocks(kapi: &Kapi, path: &str) -> Vec<Value> {
    let run = kapi.run(&["inspect", "--json", path]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "rst", "{doc}");
    doc["blocks"].as_array().unwrap().clone()
}

#[test]
fn formats_lists_rst_and_init_offers_its_trees() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let formats = run.json();
    let rst = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "rst")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(rst["extensions"], json!(["rst", "rest"]), "{rst}");
    assert_eq!(rst["capabilities"]["round_trip"], true, "{rst}");
    assert_eq!(rst["capabilities"]["generative"], false, "{rst}");
    kapi.write(
        "docs/guide/intro.rst",
        "Intro\n=====\n\nThe tool is fast.\n",
    );
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("- path: \"docs/**/*.rst\""), "{recipe}");
}

#[test]
fn directives_roles_and_literals_are_markup() {
    let kapi = project();
    let blocks = blocks(&kapi, "docs/lists.rst");
    let read: Vec<(&str, &str, &str)> = blocks
        .iter()
        .map(|b| {
            (
                b["ref"]["block"].as_str().unwrap(),
                b["role"].as_str().unwrap(),
                b["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("s1/h", "heading", "Lists"),
            ("s1/p", "paragraph", "Add the host to the whitelist."),
            (
                "s1/p#2",
                "paragraph",
                "See <x id=\"1/\"/> and <x id=\"2/\"/> for more<x id=\"3/\"/>"
            ),
            ("s1/code", "code", "whitelist = []"),
            ("s1/p#3", "paragraph", "The whitelist holds hosts."),
            ("s1/p#4", "paragraph", "Our whitelist API keeps its name."),
            ("s1/cell", "table-cell", "Name"),
            ("s1/cell#2", "table-cell", "Kind"),
            ("s1/cell#3", "table-cell", "a"),
            ("s1/cell#4", "table-cell", "host"),
        ]
    );
}

#[test]
fn check_finds_prose_at_its_position_never_markup_and_a_comment_suppresses() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "docs/lists.rst"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let at: Vec<(u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    // Line 4 and the note on line 14; the role, the literal, the code block and the toctree
    // are markup; line 18 is suppressed by the comment above it.
    assert_eq!(at, [(4, 21), (14, 15)], "{report}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report}");
}

#[test]
fn apply_changes_one_block_and_a_longer_cell_widens_its_column() {
    let kapi = project();
    let blocks = blocks(&kapi, "docs/lists.rst");
    let find = |key: &str| {
        blocks
            .iter()
            .find(|b| b["ref"]["block"] == key)
            .cloned()
            .unwrap()
    };
    let (note, cell) = (find("s1/p#3"), find("s1/cell#3"));
    let change = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "replace_text", "at": note["ref"], "if_match": note["rev"],
         "find": "whitelist", "replace": "allowlist"},
        {"op": "set_content", "at": cell["ref"], "if_match": cell["rev"],
         "content": "a longer name"}]});
    kapi.write("change.json", change.to_string());
    let run = kapi.run(&["apply", "--json", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let table = "+---------------+------+\n| Name          | Kind |\n+===============+======+\n| a longer name | host |\n+---------------+------+\n";
    let before_table = PAGE.split("+------+").next().unwrap();
    assert_eq!(
        kapi.read("docs/lists.rst"),
        format!(
            "{}{table}",
            before_table.replace("The whitelist holds", "The allowlist holds")
        )
    );
}

#[test]
fn a_txt_item_that_says_format_rst_is_read_as_rst() {
    let kapi = project();
    kapi.write(
        "legacy/intro.txt",
        "Intro\n=====\n\n.. note:: The whitelist is old.\n",
    );
    let blocks = blocks(&kapi, "legacy/intro.txt");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[0]["role"], "heading");
    let run = kapi.run(&["check", "--json", "legacy/intro.txt"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(run.json()["findings"][0]["line"], 4);
}

/// A translation named by the collection's `target` template pairs block by block (a note's
/// text with its translation), and one that lost a substitution the source holds is named by
/// the translation checks (a role is markup, which they do not compare, as a link's).
#[test]
fn a_translation_pairs_by_key_and_a_lost_substitution_is_found() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: t\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: docs\n    content:\n      - path: \"docs/*.rst\"\n        target: \"i18n/{lang}/{filename}\"\n",
    );
    kapi.write(
        "docs/page.rst",
        "Title\n=====\n\n.. note:: See :ref:`install` for |product| first.\n",
    );
    kapi.write(
        "i18n/fr/page.rst",
        "Titre\n=====\n\n.. note:: Voir d'abord l'installation.\n",
    );
    let run = kapi.run(&["inspect", "docs/page.rst", "--json", "--editions", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    let note = &doc["blocks"][1];
    assert_eq!(note["ref"]["block"], "s1/p", "{doc}");
    assert_eq!(note["editions"]["fr"]["doc"], "i18n/fr/page.rst", "{note}");
    assert_eq!(
        note["editions"]["fr"]["text"], "Voir d'abord l'installation.",
        "{note}"
    );
    let check = kapi.run(&["check", "docs/page.rst", "--json"]);
    let report = check.json();
    let lost = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["path"] == "i18n/fr/page.rst"))
        .cloned()
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        lost["rule"]
            .as_str()
            .unwrap_or("")
            .starts_with("placeholders."),
        "{lost}"
    );
}

/// The text tools see reST's prose only: `kapi grep` finds the word where it is prose, at the
/// file's own line and column, never in a role, a literal, a code block or a toctree;
/// `kapi stats` counts the page's words.
#[test]
fn grep_and_stats_see_only_prose() {
    let kapi = project();
    let run = kapi.run(&["grep", "whitelist", "docs/lists.rst"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    docs/lists.rst:4:21: s1/p: Add the host to the whitelist.
    docs/lists.rst:14:15: s1/p#3: The whitelist holds hosts.
    docs/lists.rst:18:5: s1/p#4: Our whitelist API keeps its name.
    ");
    let run = kapi.run(&["stats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.contains("docs/lists.rst"), "{}", run.stdout);
}
