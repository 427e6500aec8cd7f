//! Plural completeness through the binary: a PO message holds the forms its header's
//! `Plural-Forms` asks for (as `msgfmt -c`), Android `<plurals>` and nested JSON plurals the
//! CLDR categories of their language, on real catalogs from `testdata/plurals/`.

use super::Kapi;

const RU_PO: &str = include_str!("../../../testdata/plurals/django-conf-ru-django.po");
const FR_PO: &str = include_str!("../../../testdata/plurals/django-conf-fr-django.po");
const EN_XML: &str = include_str!("../../../testdata/plurals/android/values/strings.xml");
const RU_XML: &str = include_str!("../../../testdata/plurals/android/values-ru/strings.xml");
const EN_JSON: &str = include_str!("../../../testdata/plurals/json/en_EN.json");
const RU_JSON: &str = include_str!("../../../testdata/plurals/json/ru.json");
const ELEMENT_EN: &str = include_str!("../../../testdata/plurals/json/element-en_EN.json");
const ELEMENT_RU: &str = include_str!("../../../testdata/plurals/json/element-ru.json");

/// The `plurals.*` findings of a `kapi check --json` run, as `rule block` lines, and its
/// exit code.
fn plural_findings(kapi: &Kapi, args: &[&str]) -> (i32, Vec<String>, serde_json::Value) {
    let run = kapi.run(args);
    assert!(
        run.code == 0 || run.code == 3,
        "kapi check failed:\n{}",
        run.transcript()
    );
    let report = run.json();
    let mut out = Vec::new();
    for f in report["findings"].as_array().expect("findings") {
        let rule = f["rule"].as_str().unwrap_or_default();
        if rule.starts_with("plurals.") {
            out.push(format!("{rule} {}", f["block"].as_str().unwrap_or("-")));
        }
    }
    (run.code, out, report)
}

#[test]
fn a_russian_po_message_missing_msgstr_2_is_plurals_missing() {
    let kapi = Kapi::empty();
    kapi.write("ru.po", RU_PO);
    let (_, found, _) = plural_findings(&kapi, &["check", "ru.po", "--json"]);
    assert!(
        found.is_empty(),
        "Django's Russian catalog is complete: {found:?}"
    );

    // Drop the `msgstr[2]` and `msgstr[3]` of the first plural message (its last two forms,
    // continuation lines included; the parser wants forms in order).
    let at = RU_PO.find("msgstr[2] ").expect("a third form");
    let end = at + RU_PO[at..].find("\n\n").expect("the message's end") + 1;
    assert!(RU_PO[at..end].contains("msgstr[3] "));
    let broken = format!("{}{}", &RU_PO[..at], &RU_PO[end..]);
    kapi.write("ru.po", &broken);
    let (code, found, report) = plural_findings(&kapi, &["check", "ru.po", "--json"]);
    assert_eq!(code, 3, "a missing form is major: the gate fails");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().all(|f| f.starts_with("plurals.missing ")),
        "{found:?}"
    );
    let finding = report["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["rule"] == "plurals.missing"))
        .expect("the finding");
    let message = finding["message"].as_str().unwrap_or_default();
    assert!(message.contains("`msgstr[2]` (many)"), "{message}");
    assert!(message.contains("has 2 of the 4 forms"), "{message}");
    assert_eq!(finding["severity"], "major");
}

#[test]
fn forms_past_nplurals_are_plurals_extra_as_msgfmt_refuses_them() {
    // Django's French catalog says nplurals=2, yet some messages carry three forms.
    let kapi = Kapi::empty();
    kapi.write("fr.po", FR_PO);
    let (_, found, report) = plural_findings(&kapi, &["check", "fr.po", "--json"]);
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|f| f.starts_with("plurals.extra ")),
        "{found:?}"
    );
    let minor = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "plurals.extra")
        .all(|f| f["severity"] == "minor");
    assert!(minor);
}

#[test]
fn a_plural_forms_header_that_disagrees_with_itself_is_reported_once() {
    let kapi = Kapi::empty();
    kapi.write("ru.po", RU_PO.replacen("nplurals=4;", "nplurals=2;", 1));
    let (code, found, report) = plural_findings(&kapi, &["check", "ru.po", "--json"]);
    assert_eq!(code, 3);
    let headers: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "plurals.header")
        .collect();
    assert_eq!(headers.len(), 1, "{found:?}");
    let message = headers[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("nplurals=2 but its formula gives form 2"),
        "{message}"
    );
    // It points at the header, the file's first message.
    assert!(headers[0]["line"].as_u64().unwrap_or(0) < 20);
    // And each message's forms past nplurals=2 are extra.
    assert!(found.iter().any(|f| f.starts_with("plurals.extra ")));

    // A file with no plural message has its header judged too, as `msgfmt -c` does.
    let header_end = RU_PO.find("\n\n").expect("the header") + 2;
    let singular = format!(
        "{}msgid \"Yes\"\nmsgstr \"Да\"\n",
        RU_PO[..header_end].replacen("nplurals=4;", "nplurals=2;", 1)
    );
    kapi.write("ru.po", &singular);
    let (code, found, _) = plural_findings(&kapi, &["check", "ru.po", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(found, ["plurals.header -"]);
}

fn catalog_project(source: &str, target: &str) -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        format!(
            "version: v1\nname: plurals\ndefaults:\n  source_language: en\n  target_languages: [ru]\ncollections:\n  - path: \"{source}\"\n    target: \"{target}\"\n"
        ),
    );
    kapi
}

#[test]
fn an_android_plurals_missing_few_is_plurals_missing() {
    let kapi = catalog_project("res/values/strings.xml", "res/values-{lang}/strings.xml");
    kapi.write("res/values/strings.xml", EN_XML);
    kapi.write("res/values-ru/strings.xml", RU_XML);
    let (_, found, _) = plural_findings(&kapi, &["check", "--json"]);
    assert!(
        found.is_empty(),
        "Simple Calendar's Russian plurals are complete: {found:?}"
    );

    let broken = RU_XML.replacen(
        "        <item quantity=\"few\">В течение следующих %d дней</item>\n",
        "",
        1,
    );
    assert_ne!(broken, RU_XML);
    kapi.write("res/values-ru/strings.xml", &broken);
    let (code, found, report) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(found, ["plurals.missing within_the_next_days"]);
    let f = &report["findings"].as_array().expect("findings")[0];
    let message = report["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["rule"] == "plurals.missing"))
        .and_then(|f| f["message"].as_str())
        .unwrap_or_default();
    assert!(message.contains("no `few` form"), "{message} {f}");
}

#[test]
fn a_nested_json_plural_is_one_switch_paired_by_category() {
    let kapi = catalog_project("i18n/en_EN.json", "i18n/{lang}.json");
    kapi.write("i18n/en_EN.json", EN_JSON);
    kapi.write("i18n/ru.json", RU_JSON);
    let run = kapi.run(&["check", "--json"]);
    let (_, found, report) = plural_findings(&kapi, &["check", "--json"]);
    // The Russian `one` carries the number the English `one` spells out: no placeholder
    // finding; the missing `many` of `n_rooms` is the one finding.
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(
        !rules.iter().any(|r| r.starts_with("placeholders.")),
        "{}",
        run.transcript()
    );
    assert_eq!(found, ["plurals.missing room_list.n_rooms"]);
}

#[test]
fn elements_russian_plurals_without_few_and_many_are_plurals_missing() {
    // Element's Russian catalog as shipped: `one` and `other` only.
    let kapi = catalog_project("i18n/en_EN.json", "i18n/{lang}.json");
    kapi.write("i18n/en_EN.json", ELEMENT_EN);
    kapi.write("i18n/ru.json", ELEMENT_RU);
    let (code, found, report) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(
        found,
        [
            "plurals.missing a11y.n_unread_messages",
            "plurals.missing a11y.n_unread_messages",
            "plurals.missing a11y.n_unread_messages_mentions",
            "plurals.missing a11y.n_unread_messages_mentions",
        ]
    );
    let matched: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "plurals.missing")
        .filter_map(|f| f["matched"].as_str())
        .collect();
    assert_eq!(matched, ["few", "many", "few", "many"]);
}

#[test]
fn icu_i18next_and_rails_plurals_are_held_to_cldr() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: plurals\ndefaults:\n  source_language: en\n  target_languages: [ru]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n  - path: \"config/locales/en.yml\"\n    target: \"config/locales/{lang}.yml\"\n",
    );
    kapi.write(
        "locales/en.json",
        r#"{"files": "{count, plural, one {# file} other {# files}}",
 "item_one": "{{count}} item", "item_other": "{{count}} items",
 "zero_en": "{n, plural, =0 {none} one {# row} other {# rows}}"}"#,
    );
    kapi.write(
        "locales/ru.json",
        r#"{"files": "{count, plural, one {# файл} few {# файла} other {# файлов}}",
 "item_one": "{{count}} предмет", "item_few": "{{count}} предмета", "item_many": "{{count}} предметов", "item_other": "{{count}} предмета",
 "zero_en": "{n, plural, =0 {нет} one {# строка} few {# строки} many {# строк} other {# строки}}"}"#,
    );
    kapi.write(
        "config/locales/en.yml",
        "en:\n  inbox:\n    one: \"%{count} message\"\n    other: \"%{count} messages\"\n",
    );
    kapi.write(
        "config/locales/ru.yml",
        "ru:\n  inbox:\n    one: \"%{count} сообщение\"\n    other: \"%{count} сообщений\"\n    two: \"%{count} сообщения\"\n",
    );
    let (code, found, _) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!(code, 3);
    let mut found = found;
    found.sort();
    assert_eq!(
        found,
        [
            "plurals.extra inbox",
            "plurals.missing files",
            "plurals.missing inbox",
            "plurals.missing inbox",
        ]
    );
}

/// The `ru` branches of `block` as `kapi inspect` shows them: (path, rev, absent).
fn ru_branches(kapi: &Kapi, doc: &str, block: &str) -> Vec<(String, String, bool)> {
    let read = kapi
        .run(&["inspect", doc, "--editions", "ru", "--json"])
        .json();
    let blocks = read["blocks"].as_array().cloned().unwrap_or_default();
    let b = blocks
        .iter()
        .find(|b| b["ref"]["block"] == block)
        .unwrap_or_else(|| panic!("no {block}: {read:#}"));
    b["editions"]["ru"]["branches"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap_or_default().to_owned(),
                v["rev"].as_str().unwrap_or_default().to_owned(),
                v["absent"] == true,
            )
        })
        .collect()
}

/// An ICU plural takes the forms its language needs: `kapi translate` into Russian writes
/// `one`, `few`, `many` and `other` from an English `one`/`other`, and adds the forms an existing
/// Russian plural lacks without touching the others; an agent adds one with a `set_content`
/// at the branch `kapi inspect` lists as absent. A file that keeps a place per form (Android)
/// takes no form by an edit.
#[test]
fn an_icu_plural_takes_the_forms_its_language_needs() {
    let kapi = catalog_project("locales/en.json", "locales/{lang}.json");
    kapi.write(
        "locales/en.json",
        "{\"files\": \"{count, plural, one {# file} other {# files}}\",\n \"rows\": \"{n, plural, one {# row} other {# rows}}\"}\n",
    );
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "ru",
        "--provider",
        "pseudo",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let ru = kapi.read("locales/ru.json");
    assert!(
        ru.contains("{count, plural, one {[# fîlé~~]} few {[# fîlés~~]} many {[# fîlés~~]} other {[# fîlés~~]}}"),
        "{ru}"
    );
    let (_, found, _) = plural_findings(&kapi, &["check", "--json"]);
    assert!(found.is_empty(), "{found:?}");

    // An empty value (`""`, what i18next-parser writes) takes its source's plural whole.
    kapi.write("locales/ru.json", "{\"files\": \"\",\n \"rows\": \"\"}\n");
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "ru",
        "--provider",
        "pseudo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["documents"][0]["landed"], 8, "{}", run.stdout);
    let ru = kapi.read("locales/ru.json");
    assert!(
        ru.contains("\"files\": \"{count, plural, one {[# fîlé~~]} few {[# fîlés~~]} many {[# fîlés~~]} other {[# fîlés~~]}}\""),
        "{ru}"
    );

    // A person's Russian plural lacking `few` and `many`: only those are added.
    let person = "{\"files\": \"{count, plural, one {# файл} other {# файлов}}\",\n \"rows\": \"{n, plural, one {# строка} other {# строк}}\"}\n";
    kapi.write("locales/ru.json", person);
    let (code, found, report) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!((code, found.len()), (3, 4), "{found:?}");
    assert!(
        report
            .to_string()
            .contains("a `set_content` at branch `count:few`"),
        "{report:#}"
    );
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "ru",
        "--provider",
        "pseudo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["documents"][0]["todo"], 2, "{}", run.stdout);
    assert_eq!(
        kapi.read("locales/ru.json"),
        "{\"files\": \"{count, plural, one {# файл} few {[# fîlés~~]} many {[# fîlés~~]} other {# файлов}}\",\n \"rows\": \"{n, plural, one {# строка} few {[# röws~~]} many {[# röws~~]} other {# строк}}\"}\n"
    );

    // An agent adds a form at the branch `kapi inspect` lists as absent, with its rev.
    kapi.write("locales/ru.json", person);
    let branches = ru_branches(&kapi, "locales/en.json", "files");
    let few = branches
        .iter()
        .find(|(path, _, _)| path == "count:few")
        .unwrap_or_else(|| panic!("{branches:?}"));
    assert!(few.2, "listed absent: {branches:?}");
    let set = |rev: &str| {
        serde_json::json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
            "at": {"doc": "locales/en.json", "block": "files", "edition": "ru", "branch": "count:few"},
            "if_match": rev, "content": "<x id=\"1/\"/> файла"}]})
        .to_string()
    };
    kapi.write("set.json", set("r0000000000000000"));
    let run = kapi.run(&["apply", "set.json", "--json"]);
    assert_eq!(run.code, 3, "a stale rev is refused: {}", run.transcript());
    assert_eq!(kapi.read("locales/ru.json"), person);
    kapi.write("set.json", set(&few.1));
    let run = kapi.run(&["apply", "set.json", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        kapi.read("locales/ru.json")
            .contains("{count, plural, one {# файл} few {# файла} other {# файлов}}"),
        "{}",
        kapi.read("locales/ru.json")
    );

    // Android keeps an `<item>` per form: no form is added by an edit.
    let kapi = catalog_project("res/values/strings.xml", "res/values-{lang}/strings.xml");
    kapi.write("res/values/strings.xml", EN_XML);
    let broken = RU_XML.replacen(
        "        <item quantity=\"few\">В течение следующих %d дней</item>\n",
        "",
        1,
    );
    kapi.write("res/values-ru/strings.xml", &broken);
    let branches = ru_branches(&kapi, "res/values/strings.xml", "within_the_next_days");
    assert!(branches.iter().all(|b| !b.2), "{branches:?}");
    kapi.write(
        "set.json",
        serde_json::json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
            "at": {"doc": "res/values/strings.xml", "block": "within_the_next_days", "edition": "ru", "branch": "quantity:few"},
            "if_match": "*", "content": "x"}]})
        .to_string(),
    );
    let run = kapi.run(&["apply", "set.json", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(
        run.json()["operations"][0]["status"],
        "not_found",
        "{}",
        run.stdout
    );
    assert_eq!(kapi.read("res/values-ru/strings.xml"), broken);
}

/// A language with one form (Japanese) writes a plural as `other` alone: a lone i18next
/// `_other` key and a nested `{"other": …}` object are its plurals, paired with the English
/// `one`/`other`, complete, and a Japanese file written from the English source takes no `one`
/// in its ICU plurals. In a file that has a `one` anywhere, a lone `_other` is a key.
#[test]
fn a_japanese_plural_is_other_alone() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: ja\ndefaults:\n  source_language: en\n  target_languages: [ja, fr]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        "locales/en.json",
        "{\"files\": {\"one\": \"%(count)s file\", \"other\": \"%(count)s files\"},\n \"item_one\": \"{{count}} item\", \"item_other\": \"{{count}} items\",\n \"msg\": \"{n, plural, one {# row} other {# rows}}\"}\n",
    );
    let ja = "{\"files\": {\"other\": \"%(count)s ファイル\"},\n \"item_other\": \"{{count}} 項目\",\n \"msg\": \"{n, plural, other {# 行}}\"}\n";
    kapi.write("locales/ja.json", ja);
    let plan = kapi
        .run(&["stats", "--plan", "--lang", "ja", "--json"])
        .json();
    assert_eq!(plan["plan"], serde_json::json!([]), "{plan:#}");
    let (_, found, _) = plural_findings(&kapi, &["check", "locales/ja.json", "--json"]);
    assert!(found.is_empty(), "{found:?}");
    // Written from the English source: the ICU plural takes Japanese's one form.
    std::fs::remove_file(kapi.path().join("locales/ja.json")).expect("removed");
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "ja",
        "--provider",
        "pseudo",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let ja = kapi.read("locales/ja.json");
    assert!(
        ja.contains("\"msg\": \"{n, plural, other {[# röws~~]}}\""),
        "{ja}"
    );

    // An English file with no plural: `payment_other` is a key, and French pairs with it.
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: fr\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        "locales/en.json",
        "{\"payment_other\": \"Other\", \"title\": \"Pay\"}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\"payment_other\": \"Autre\", \"title\": \"Payer\"}\n",
    );
    let (code, found, _) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
    let plan = kapi
        .run(&["stats", "--plan", "--lang", "fr", "--json"])
        .json();
    assert_eq!(plan["plan"], serde_json::json!([]), "{plan:#}");
}

/// An ordinal is held to the language's ordinal forms: French `1er`, `2e` needs `one` and
/// `other`, whether written as an ICU `selectordinal` or as i18next `_ordinal_` keys.
#[test]
fn an_ordinal_is_held_to_the_languages_ordinal_forms() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: ordinals\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        "locales/en.json",
        "{\"rank\": \"{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}\",\n \"place_ordinal_one\": \"{{count}}st\", \"place_ordinal_two\": \"{{count}}nd\", \"place_ordinal_few\": \"{{count}}rd\", \"place_ordinal_other\": \"{{count}}th\"}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\"rank\": \"{n, selectordinal, other {#e}}\",\n \"place_ordinal_other\": \"{{count}}e\"}\n",
    );
    let (code, mut found, report) = plural_findings(&kapi, &["check", "--json"]);
    found.sort();
    assert_eq!(code, 3);
    assert_eq!(
        found,
        ["plurals.missing place_ordinal", "plurals.missing rank"]
    );
    assert!(
        report.to_string().contains("the ordinal has no `one` form"),
        "{report:#}"
    );
    kapi.write(
        "locales/fr.json",
        "{\"rank\": \"{n, selectordinal, one {#er} other {#e}}\",\n \"place_ordinal_one\": \"{{count}}er\", \"place_ordinal_other\": \"{{count}}e\"}\n",
    );
    let (code, found, _) = plural_findings(&kapi, &["check", "--json"]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
}
