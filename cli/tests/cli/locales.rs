//! Locale codes and catalogs through the binary (issue 39 items 6, 7 and 11), on real
//! catalogs in `testdata/locales/` (LineageOS Recorder's Android strings, Docusaurus JSON,
//! Django PO): a collection's `locales:` names the files its codes use, Android's qualifiers
//! are read natively, a PO `Language:` that is no tag is named, and a recipe tag that is no
//! tag is refused where it stands.

use serde_json::Value;

use super::{Kapi, copy_dir, testdata};

/// A project with the JSON catalogs (`fr-FR.json`, `zh-Hans.json`), the Android strings
/// (`values-zh-rCN`, `values-fa`) and `recipe` as its `kapi.yaml`.
fn project(recipe: &str) -> Kapi {
    let kapi = Kapi::bound();
    let from = testdata().join("locales");
    copy_dir(&from.join("json"), &kapi.path().join("i18n"));
    copy_dir(&from.join("android"), &kapi.path().join("res"));
    kapi.write("kapi.yaml", recipe);
    kapi
}

const RECIPE: &str = "\
version: v1
defaults:
  source_language: en
  target_languages: [fr, zh-CN, fa]
collections:
  - name: web
    locales: {fr: fr-FR, zh-CN: zh-Hans}
    content:
      - path: i18n/en.json
        format: json
        target: \"i18n/{locale}.json\"
  - name: android
    base: res
    content:
      - path: values/strings.xml
        format: android
        target: \"values-{lang}/strings.xml\"
";

/// (target_doc, exists, translated) of each edition of `path` in `kapi stats --json`, by
/// language.
fn editions(stats: &Value, path: &str) -> Vec<(String, String, bool, u64)> {
    let file = stats["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {stats}"));
    file["editions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["edition"] != "source")
        .map(|e| {
            (
                e["lang"].as_str().unwrap_or_default().to_owned(),
                e["target_doc"].as_str().unwrap_or_default().to_owned(),
                e["exists"].as_bool().unwrap_or_default(),
                e["translated"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn locales_and_android_qualifiers_name_the_files_that_exist() {
    let kapi = project(RECIPE);
    let run = kapi.run(&["stats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let stats = run.json();
    let web = editions(&stats, "i18n/en.json");
    assert_eq!(web[0].0, "fr");
    assert_eq!((web[0].1.as_str(), web[0].2), ("i18n/fr-FR.json", true));
    assert!(web[0].3 > 50, "{web:?}");
    assert_eq!((web[1].1.as_str(), web[1].2), ("i18n/zh-Hans.json", true));
    assert_eq!((web[2].1.as_str(), web[2].2), ("i18n/fa.json", false));
    let android = editions(&stats, "res/values/strings.xml");
    // `values-{lang}` in an android item is Android's qualifier: `zh-CN` is `values-zh-rCN`.
    assert_eq!(
        (android[1].1.as_str(), android[1].2),
        ("res/values-zh-rCN/strings.xml", true)
    );
    assert!(android[1].3 > 40, "{android:?}");
    // A translation file is not a source: `kapi check` holds `fr-FR.json` and `values-zh-rCN`
    // to their sources (the translation analyzers), never to a source's rules.
    let check = kapi.run(&["check", "--json"]);
    let as_sources: Vec<String> = check.json()["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|f| {
                    let path = f["path"].as_str().unwrap_or_default();
                    let rule = f["rule"].as_str().unwrap_or_default();
                    (path.contains("fr-FR") || path.contains("zh-"))
                        && ["hygiene.", "terms.", "voice."]
                            .iter()
                            .any(|source_rule| rule.starts_with(source_rule))
                })
                .map(|f| format!("{} {}", f["path"], f["rule"]))
                .collect()
        })
        .unwrap_or_default();
    assert!(as_sources.is_empty(), "{as_sources:?}");
    assert!(
        check.json()["coverage"]["ran"]
            .as_array()
            .is_some_and(|ran| ran.iter().any(|a| a == "translation")),
        "{}",
        check.transcript()
    );
}

#[test]
fn lang_underscore_names_gettext_style_files() {
    let kapi = project(
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [zh-CN]\ncollections:\n  - name: web\n    content:\n      - path: i18n/en.json\n        format: json\n        target: \"i18n/{lang_underscore}.json\"\n",
    );
    std::fs::rename(
        kapi.path().join("i18n/zh-Hans.json"),
        kapi.path().join("i18n/zh_CN.json"),
    )
    .unwrap();
    let stats = kapi.run(&["stats", "--json"]).json();
    let web = editions(&stats, "i18n/en.json");
    assert_eq!((web[0].1.as_str(), web[0].2), ("i18n/zh_CN.json", true));
}

#[test]
fn a_locale_that_is_no_tag_is_refused_where_it_stands() {
    let kapi = project(&RECIPE.replace("zh-CN: zh-Hans", "zh_CN: zh-Hans"));
    let run = kapi.run(&["check", "i18n"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("kapi.yaml:7:5: `zh_CN` in `locales` is not a BCP 47 language tag"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("write `pt-BR`, not `pt_BR`"),
        "{}",
        run.stderr
    );
    let run = kapi.run(&["stats"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    // A code that is a path is refused too.
    let kapi = project(&RECIPE.replace("zh-CN: zh-Hans", "zh-CN: ../zh"));
    let run = kapi.run(&["stats", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("no code a file name can hold"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_po_language_that_is_no_tag_is_named_not_invented() {
    let kapi = Kapi::bound();
    let po = std::fs::read_to_string(testdata().join("locales/po/fr.po")).unwrap();
    let po = po.replace("\"Language: fr\\n\"", "\"Language: persian\\n\"");
    assert!(po.contains("Language: persian"));
    kapi.write("po/fa.po", &po);
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"po/*.po\"\n",
    );
    let check = kapi.run(&["check", "po/fa.po"]);
    assert!(
        check.stderr.contains(
            "po/fa.po:23: `Language: persian` is not a language tag: kapi reads its translations as language `target`"
        ),
        "{}",
        check.transcript()
    );
    let stats = kapi.run(&["stats", "--json"]).json();
    assert!(
        stats["notes"]
            .to_string()
            .contains("po/fa.po:23: `Language: persian` is not a language tag"),
        "{stats}"
    );
    let langs: Vec<&str> = stats["languages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["lang"].as_str())
        .collect();
    assert!(!langs.contains(&"persian"), "{langs:?}");
    let run = kapi.run(&["translate", "po/fa.po", "--provider", "pseudo"]);
    assert!(
        run.stdout
            .contains("error po/fa.po: po/fa.po:23: `Language: persian`"),
        "{}",
        run.transcript()
    );
    assert_eq!(
        kapi.read("po/fa.po"),
        po,
        "nothing is translated into an invented language"
    );
}

/// `text` with the first line holding `needle` taken out, and that line.
fn take_line(text: &str, needle: &str) -> (String, String) {
    let mut out = String::new();
    let mut taken = String::new();
    for line in text.split_inclusive('\n') {
        if taken.is_empty() && line.contains(needle) {
            taken = line.to_owned();
        } else {
            out.push_str(line);
        }
    }
    (out, taken)
}

#[test]
fn a_key_missing_from_an_android_target_is_added_in_place_and_orphans_are_kept() {
    let kapi = project(RECIPE);
    let zh = "res/values-zh-rCN/strings.xml";
    let original = kapi.read(zh);
    // The target lacks `stop` and holds a key the source does not.
    let (lacking, stop) = take_line(&original, "name=\"stop\"");
    assert!(stop.contains("停止") || !stop.is_empty(), "{stop}");
    let before = lacking.replace(
        "</resources>",
        "    <string name=\"old_gone\">旧</string>\n</resources>",
    );
    kapi.write(zh, &before);
    let dry = kapi.run(&[
        "up",
        "--provider",
        "pseudo",
        "--to",
        "zh-CN",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.transcript());
    let plan = dry.json();
    let doc = plan["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["doc"] == "res/values/strings.xml")
        .unwrap();
    assert_eq!(
        doc["todo"], 1,
        "the missing key is counted, not paired by position: {doc}"
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "zh-CN"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("(res/values-zh-rCN/strings.xml, added): 1 to do, 0 from memory, 1 landed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("holds 1 key its source lacks (orphans, kept): old_gone"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("no place for it"), "{}", run.stdout);
    let after = kapi.read(zh);
    let (rest, added) = take_line(&after, "name=\"stop\"");
    assert_eq!(rest, before, "every other byte is kept");
    assert_eq!(added, "    <string name=\"stop\">[Stöþ~~]</string>\n");
    // At the source's position: after `share_selected`, as in `values/strings.xml`.
    let at = after.find("name=\"stop\"").unwrap();
    let prev = after.find("name=\"share_selected\"").unwrap();
    assert!(prev < at && after[prev..at].lines().count() == 2, "{after}");
    let check = kapi.run(&["check", "res"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
}

#[test]
fn json_and_properties_targets_take_missing_keys_in_their_own_layout() {
    let kapi = project(RECIPE);
    let from = testdata().join("locales");
    copy_dir(&from.join("properties"), &kapi.path().join("props"));
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: web\n    locales: {fr: fr-FR}\n    content:\n      - path: i18n/en.json\n        format: json\n        target: \"i18n/{locale}.json\"\n  - name: java\n    content:\n      - path: props/ValidationMessages.properties\n        target: \"props/ValidationMessages_{lang_underscore}.properties\"\n",
    );
    let json = "i18n/fr-FR.json";
    let (lacking, copy) = take_line(&kapi.read(json), "\"theme.CodeBlock.copy\":");
    assert!(!copy.is_empty());
    let json_before = lacking.replace("\n}", ",\n  \"theme.old.gone\": \"Vieux\"\n}");
    kapi.write(json, &json_before);
    let props = "props/ValidationMessages_fr.properties";
    let (props_before, decimal) = take_line(&kapi.read(props), "DecimalMax.message");
    assert!(!decimal.is_empty());
    kapi.write(props, &props_before);
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains("(i18n/fr-FR.json, added)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("(props/ValidationMessages_fr.properties, added): 1 to do"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("orphans, kept): 'theme.old.gone'"),
        "{}",
        run.stdout
    );
    let after = kapi.read(json);
    let copied = after
        .find("\"theme.CodeBlock.copied\": \"Copié\",\n")
        .unwrap();
    let copy = after
        .find("  \"theme.CodeBlock.copy\": \"[Çöþý~~]\",\n")
        .unwrap();
    assert!(copied < copy, "{after}");
    assert!(
        after.ends_with("  \"theme.old.gone\": \"Vieux\"\n}\n"),
        "{after}"
    );
    serde_json::from_str::<Value>(&after).expect("still JSON");
    let after = kapi.read(props);
    let (rest, added) = take_line(&after, "DecimalMax.message");
    assert_eq!(rest, props_before, "every other byte is kept");
    assert!(
        added.starts_with("javax.validation.constraints.DecimalMax.message  = ["),
        "{added}"
    );
    let prev = after.find("AssertTrue.message").unwrap();
    assert!(prev < after.find("DecimalMax.message").unwrap());
}

#[test]
fn a_yaml_target_takes_missing_keys_and_names_those_with_no_place() {
    let kapi = Kapi::bound();
    let from = testdata().join("locales/yaml");
    copy_dir(&from, &kapi.path().join("config"));
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: rails\n    content:\n      - path: config/en.yml\n        target: \"config/{lang}.yml\"\n",
    );
    let fr = kapi.read("config/fr.yml");
    // `datetime.prompts.minute` lacks its line; `support.array` loses its whole mapping.
    let (lacking, minute) = take_line(&fr, "      minute: Minute");
    assert!(!minute.is_empty());
    let start = lacking.find("  support:\n").unwrap();
    let end = lacking[start..]
        .find("  time:\n")
        .map(|i| start + i)
        .unwrap();
    let before = format!("{}{}", &lacking[..start], &lacking[end..]);
    // `activerecord.errors.messages` then holds only deeper keys in the target.
    let (before, invalid) = take_line(&before, "record_invalid:");
    assert!(!invalid.is_empty());
    kapi.write("config/fr.yml", &before);
    // The keys with no place are an error of the run (exit 1); the rest land.
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "fr", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let out = run.json();
    assert_eq!(out["documents"][0]["file"], "added", "{out}");
    let errors = out["errors"].to_string();
    assert!(
        errors.contains("kapi cannot add") && errors.contains("support.array.last_word_connector"),
        "{errors}"
    );
    let after = kapi.read("config/fr.yml");
    assert!(
        after.contains("      second: Seconde\n      minute: \"[Mîñûté~~]\"\n      hour: Heure\n"),
        "{after}"
    );
    assert!(!after.contains("  support:"), "{after}");
    assert!(
        after.contains("      messages:\n        record_invalid: '[Vålîðåtîöñ fåîléð: %{errors}~~~~~]'\n        restrict_dependent_destroy:\n"),
        "{after}"
    );
}

#[test]
fn init_offers_the_catalogs_it_finds_and_each_reads_its_translations_once_uncommented() {
    let kapi = Kapi::empty();
    let from = testdata().join("locales");
    copy_dir(&from.join("android"), &kapi.path().join("app/src/main/res"));
    copy_dir(&from.join("properties"), &kapi.path().join("props"));
    copy_dir(&from.join("po"), &kapi.path().join("locale"));
    kapi.write(
        "README.md",
        "# App\n\nThe app is fast and you can use it with the rest of this.\n",
    );
    let json = |name: &str| std::fs::read(from.join("json").join(name)).unwrap();
    kapi.write("i18n/en.json", json("en.json"));
    kapi.write("i18n/fr-FR.json", json("fr-FR.json"));
    kapi.write("i18n/zh_Hans.json", json("zh-Hans.json"));
    kapi.write("public/locales/en/common.json", json("en.json"));
    kapi.write("public/locales/de/common.json", json("fr-FR.json"));
    let run = kapi.run(&["init", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        run.json()["catalogs"],
        serde_json::json!([
            "app/src/main/res/values/strings.xml (Android, 2 translations)",
            "i18n/en.json (2 translations)",
            "public/locales/en/**/*.json (1 translation)",
            "props/ValidationMessages.properties (1 translation)",
            "locale/**/*.{po,pot} (translations in the files)"
        ])
    );
    let recipe = kapi.read("kapi.yaml");
    assert!(
        recipe.contains("#    locales: {zh-Hans: zh_Hans}\n"),
        "{recipe}"
    );
    assert!(
        recipe.contains("#        target: \"values-{lang}/strings.xml\"\n"),
        "{recipe}"
    );
    // Offered, not declared: until uncommented only the Markdown is content.
    let mut stats = kapi.command(&["stats", "--json"]);
    stats.env_remove("KAPI_NO_PROJECT");
    let out: Value = serde_json::from_slice(&stats.output().unwrap().stdout).unwrap();
    assert_eq!(out["totals"]["files"], 1, "{out}");
    kapi.write("kapi.yaml", recipe.replace("\n#  ", "\n  "));
    let mut stats = kapi.command(&["stats", "--json"]);
    stats.env_remove("KAPI_NO_PROJECT");
    let out: Value = serde_json::from_slice(&stats.output().unwrap().stdout).unwrap();
    let mut found = Vec::new();
    for file in out["files"].as_array().unwrap() {
        for e in file["editions"].as_array().unwrap().iter().skip(1) {
            if e["target_doc"].is_string() {
                assert_eq!(e["exists"], true, "{e}");
                assert!(e["translated"].as_u64().unwrap() > 0, "{e}");
                found.push(e["target_doc"].as_str().unwrap().to_owned());
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        [
            "app/src/main/res/values-fa/strings.xml",
            "app/src/main/res/values-zh-rCN/strings.xml",
            "i18n/fr-FR.json",
            "i18n/zh_Hans.json",
            "props/ValidationMessages_fr.properties",
            "public/locales/de/common.json"
        ]
    );
}
