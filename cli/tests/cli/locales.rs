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
    // A translation file is not a source: `kapi check` does not check `fr-FR.json` as one.
    let check = kapi.run(&["check", "--json"]);
    let files: Vec<String> = check.json()["files"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["path"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !files
            .iter()
            .any(|f| f.contains("fr-FR") || f.contains("zh-rCN")),
        "{files:?}"
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
