//! Flutter ARB (`.arb`; issue 42) through the binary: `kapi formats` lists it, `kapi init`
//! offers `app_en.arb` with its translations, `kapi inspect` reads each message with its
//! `@key` metadata as notes and its translation beside it, `kapi check` names a dropped
//! placeholder and a missing plural form in the translation's file, and `kapi up` adds a
//! missing message to a translation in the file's own layout.

use serde_json::Value;

use super::Kapi;

const RECIPE: &str = "version: v1\nname: app\ndefaults:\n  source_language: en\n  target_languages: [fr, ru]\ncollections:\n  - name: l10n\n    content:\n      - path: \"lib/l10n/app_en.arb\"\n        target: \"lib/l10n/app_{locale}.arb\"\n";

const EN: &str = "{\n  \"@@locale\": \"en\",\n  \"greeting\": \"Hello {name}\",\n  \"@greeting\": {\n    \"description\": \"Shown on the home page.\",\n    \"placeholders\": {\"name\": {\"type\": \"String\", \"example\": \"Ada\"}}\n  },\n  \"itemCount\": \"{count, plural, one{{count} item} other{{count} items}}\",\n  \"@itemCount\": {\"description\": \"The cart's size.\"},\n  \"bye\": \"Goodbye\"\n}\n";
const FR: &str = "{\n  \"@@locale\": \"fr\",\n  \"greeting\": \"Bonjour\",\n  \"itemCount\": \"{count, plural, one{{count} article} other{{count} articles}}\",\n  \"bye\": \"Au revoir\"\n}\n";
const RU: &str = "{\n  \"@@locale\": \"ru\",\n  \"greeting\": \"Привет, {name}\",\n  \"itemCount\": \"{count, plural, one{{count} товар} other{{count} товаров}}\"\n}\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write("lib/l10n/app_en.arb", EN);
    kapi.write("lib/l10n/app_fr.arb", FR);
    kapi.write("lib/l10n/app_ru.arb", RU);
    kapi
}

#[test]
fn formats_lists_arb_and_init_offers_the_catalog() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let formats = run.json();
    let arb = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "arb")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(arb["extensions"], serde_json::json!(["arb"]), "{arb}");
    kapi.write("lib/l10n/app_en.arb", EN);
    kapi.write("lib/l10n/app_fr.arb", FR);
    kapi.write("README.md", "# App\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("path: \"lib/l10n/app_en.arb\""), "{recipe}");
    assert!(
        recipe.contains("target: \"lib/l10n/app_{locale}.arb\""),
        "{recipe}"
    );
}

#[test]
fn messages_carry_their_metadata_as_notes_and_pair_with_translations() {
    let kapi = project();
    let run = kapi.run(&[
        "inspect",
        "--json",
        "--editions",
        "fr",
        "lib/l10n/app_en.arb",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "arb", "{doc}");
    let blocks = doc["blocks"].as_array().unwrap();
    let keys: Vec<&str> = blocks
        .iter()
        .map(|b| b["ref"]["block"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["greeting", "itemCount", "bye"], "{doc}");
    let greeting = &blocks[0];
    assert_eq!(
        greeting["notes"],
        serde_json::json!(["Shown on the home page.", "{name}: e.g. Ada"]),
        "{greeting}"
    );
    assert_eq!(greeting["editions"]["fr"]["text"], "Bonjour", "{greeting}");
    assert!(
        blocks[1]["branches"]
            .as_array()
            .is_some_and(|b| !b.is_empty()),
        "{}",
        blocks[1]
    );
}

#[test]
fn a_dropped_placeholder_and_a_missing_plural_form_are_found_in_the_translation() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "lib/l10n/app_en.arb"]);
    let report: Value = run.json();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_owned(),
                f["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(
        found.contains(&("lib/l10n/app_fr.arb".into(), "placeholders.missing".into())),
        "{report}"
    );
    assert!(
        found
            .iter()
            .any(|(p, r)| p == "lib/l10n/app_ru.arb" && r.starts_with("plurals.")),
        "{report}"
    );
}

#[test]
fn up_adds_a_missing_message_in_the_files_own_layout() {
    let kapi = project();
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "ru"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let after = kapi.read("lib/l10n/app_ru.arb");
    let parsed: Value = serde_json::from_str(&after).expect("still JSON");
    assert!(parsed["bye"].as_str().is_some(), "{after}");
    assert!(
        after.starts_with(&RU[..RU.find("\"itemCount\"").unwrap()]),
        "{after}"
    );
    assert!(
        parsed.get("@greeting").is_none(),
        "metadata is not copied: {after}"
    );
}
