//! Mozilla Fluent (`.ftl`; issue 42) through the binary: `kapi init` offers `i18n/en/*.ftl`
//! with its sibling languages, `kapi inspect` reads messages, terms and attributes with their
//! comments as notes and a select as branches, `kapi check` finds a dropped `{ $user }` and
//! a Russian plural without `few`, `kapi up` adds the messages a translation lacks in the
//! file's layout, and `kapi apply` changes one message and leaves every other byte.

use serde_json::json;

use super::Kapi;

const EN: &str = "### Main window strings\n\n-brand = Filer\n\n# Shown in the title bar.\nwindow-title = { -brand } settings\n    .tooltip = Open the { -brand } settings\n\nfiles-found =\n    { $count ->\n        [one] Found { $count } file\n       *[other] Found { $count } files\n    }\n\nwelcome = Welcome, { $user }!\n\nquit = Quit\n";

const RU: &str = "-brand = Filer\n\nwindow-title = Настройки { -brand }\n\nfiles-found =\n    { $count ->\n        [one] Найден { $count } файл\n       *[other] Найдено файлов\n    }\n\nwelcome = Добро пожаловать!\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - name: app\n    base: i18n/en\n    target_languages: [ru]\n    content:\n      - path: \"*.ftl\"\n        target: \"../{lang}/{relpath}\"\n",
    );
    kapi.write("i18n/en/app.ftl", EN);
    kapi.write("i18n/ru/app.ftl", RU);
    kapi
}

#[test]
fn init_offers_the_locale_folders() {
    let kapi = Kapi::empty();
    kapi.write("i18n/en/app.ftl", EN);
    kapi.write("i18n/ru/app.ftl", RU);
    kapi.write("README.md", "# App\n\nSome text.\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(
        recipe.contains("#    base: \"i18n/en\"\n#    target_languages: [ru]\n#    content:\n#      - path: \"**/*.ftl\"\n#        format: fluent\n#        target: \"../{locale}/{relpath}\""),
        "{recipe}"
    );
}

#[test]
fn inspect_and_check_read_messages_attributes_and_variants() {
    let kapi = project();
    let run = kapi.run(&["inspect", "--json", "--editions", "ru", "i18n/en/app.ftl"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "fluent", "{doc}");
    let keys: Vec<&str> = doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["ref"]["block"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "-brand",
            "window-title",
            "window-title.tooltip",
            "files-found",
            "welcome",
            "quit"
        ],
        "{doc}"
    );
    assert_eq!(
        doc["blocks"][1]["notes"],
        json!(["Shown in the title bar."]),
        "{doc}"
    );
    let paths: Vec<&str> = doc["blocks"][3]["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["count:one", "count:other"], "{doc}");

    let run = kapi.run(&["check", "--json", "i18n/en/app.ftl"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        found
            .iter()
            .any(|(r, m)| r == "placeholders.missing" && m.contains("$user")),
        "{report}"
    );
    assert!(
        found
            .iter()
            .any(|(r, m)| r == "plurals.missing" && m.contains("`few`")),
        "{report}"
    );
}

#[test]
fn up_adds_missing_messages_and_apply_edits_one() {
    let kapi = project();
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "ru"]);
    assert!(run.code == 0 || run.code == 3, "{}", run.transcript());
    let ru = kapi.read("i18n/ru/app.ftl");
    assert!(
        ru.starts_with("-brand = Filer\n\nwindow-title = Настройки { -brand }\n    .tooltip = ["),
        "the attribute goes under its message, indented: {ru}"
    );
    assert!(ru.contains("\nquit = [Qûît~~]\n"), "{ru}");
    let run = kapi.run(&["inspect", "--verify", "i18n/ru/app.ftl"]);
    assert_eq!(run.code, 0, "{}", run.transcript());

    let read = kapi.run(&["inspect", "--json", "i18n/en/app.ftl"]).json();
    let quit = &read["blocks"][5];
    let set = json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
        "at": {"doc": "i18n/en/app.ftl", "block": "quit", "edition": "source"},
        "if_match": quit["rev"], "content": "Quit {the} app\n[now]"}]});
    kapi.write("set.json", set.to_string());
    let run = kapi.run(&["apply", "set.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let en = kapi.read("i18n/en/app.ftl");
    assert_eq!(
        en,
        EN.replace(
            "quit = Quit\n",
            "quit = Quit {\"{\"}the{\"}\"} app\n    {\"[\"}now]\n"
        ),
        "only the edited message changes, its braces and a leading `[` escaped"
    );
}
