//! AsciiDoc (`.adoc`, `.asciidoc`, `.asc`; issue 41) through the binary: `kapi formats` lists
//! it, `kapi init` offers its trees, `kapi inspect` reads attributes, preprocessor lines,
//! macros and listings as markup, `kapi check` finds a planted term in prose at its own line
//! and column and never in markup, a `//` comment suppresses, and `kapi apply` changes one
//! block and leaves every other byte.

use serde_json::{Value, json};

use super::Kapi;

const RECIPE: &str = "version: v1\nname: adoc\ndefaults:\n  source_language: en\n  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.adoc\"\ngates:\n  fail_on: major\n";
const TERMS: &str = "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}\n";

/// An Antora page: a title and header, a paragraph naming the forbidden word, an attribute,
/// a macro, monospace and a listing that name it, an admonition, a suppressed paragraph, an
/// include, a table.
const PAGE: &str = "= Lists\n:whitelist: on\n\nAdd the host to the whitelist.\n\nSee {whitelist}, kbd:[whitelist] and `whitelist` for more.\n\n[source,yaml]\n----\nwhitelist: []\n----\n\nNOTE: The whitelist holds hosts.\n\n// kapi-disable-next-line terms.forbidden\nOur whitelist API keeps its name.\n\ninclude::partial$whitelist.adoc[]\n\n|===\n| Name | Kind\n\n| a\n| host\n|===\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write("docs/lists.adoc", PAGE);
    kapi
}

fn blocks(kapi: &Kapi, path: &str) -> Vec<Value> {
    let run = kapi.run(&["inspect", "--json", path]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "asciidoc", "{doc}");
    doc["blocks"].as_array().unwrap().clone()
}

#[test]
fn formats_lists_asciidoc_and_init_offers_its_trees() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let formats = run.json();
    let adoc = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "asciidoc")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(
        adoc["extensions"],
        json!(["adoc", "asciidoc", "asc"]),
        "{adoc}"
    );
    assert_eq!(adoc["capabilities"]["round_trip"], true, "{adoc}");
    kapi.write(
        "docs/modules/ROOT/pages/intro.adoc",
        "= Intro\n\nThe tool is fast.\n",
    );
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("- path: \"docs/**/*.adoc\""), "{recipe}");
}

#[test]
fn attributes_macros_listings_and_includes_are_markup() {
    let kapi = project();
    let blocks = blocks(&kapi, "docs/lists.adoc");
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
                "See <x id=\"1/\"/>, <x id=\"2/\"/> and <x id=\"3/\"/> for more."
            ),
            ("s1/code", "code", "whitelist: []"),
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
    let run = kapi.run(&["check", "--json", "docs/lists.adoc"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let at: Vec<(u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    // Line 4 and the admonition on line 13; the attribute, the macro, the monospace, the
    // listing and the include are markup; line 16 is suppressed by the comment above it.
    assert_eq!(at, [(4, 21), (13, 11)], "{report}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report}");
}

#[test]
fn apply_changes_one_block_and_every_other_byte_stays() {
    let kapi = project();
    let blocks = blocks(&kapi, "docs/lists.adoc");
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
         "content": "a | b"}]});
    kapi.write("change.json", change.to_string());
    let run = kapi.run(&["apply", "--json", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        kapi.read("docs/lists.adoc"),
        PAGE.replace("The whitelist holds", "The allowlist holds")
            .replace("| a\n", "| a \\| b\n")
    );
}

/// A translation named by the collection's `target` template pairs block by block, and one
/// that lost an attribute reference the source holds is named by the translation checks.
#[test]
fn a_translation_pairs_by_key_and_a_lost_attribute_is_found() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: t\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: docs\n    content:\n      - path: \"docs/*.adoc\"\n        target: \"i18n/{lang}/{filename}\"\n",
    );
    kapi.write(
        "docs/page.adoc",
        "= Title\n\nNOTE: Install {product} first.\n",
    );
    kapi.write(
        "i18n/fr/page.adoc",
        "= Titre\n\nNOTE: Installez d'abord le produit.\n",
    );
    let run = kapi.run(&["inspect", "docs/page.adoc", "--json", "--editions", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    let note = &doc["blocks"][1];
    assert_eq!(note["ref"]["block"], "s1/p", "{doc}");
    assert_eq!(note["editions"]["fr"]["doc"], "i18n/fr/page.adoc", "{note}");
    assert_eq!(
        note["editions"]["fr"]["text"], "Installez d'abord le produit.",
        "{note}"
    );
    let check = kapi.run(&["check", "docs/page.adoc", "--json"]);
    let report = check.json();
    let lost = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["path"] == "i18n/fr/page.adoc"))
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

/// The text tools see AsciiDoc's prose only: `kapi grep` finds the word where it is prose, at
/// the file's own line and column, never in an attribute, a macro, monospace, a listing or an
/// include; `kapi stats` counts the page's words.
#[test]
fn grep_and_stats_see_only_prose() {
    let kapi = project();
    let run = kapi.run(&["grep", "whitelist", "docs/lists.adoc"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    docs/lists.adoc:4:21: s1/p: Add the host to the whitelist.
    docs/lists.adoc:13:11: s1/p#3: The whitelist holds hosts.
    docs/lists.adoc:16:5: s1/p#4: Our whitelist API keeps its name.
    ");
    let run = kapi.run(&["stats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.contains("docs/lists.adoc"), "{}", run.stdout);
}
