//! Qt Linguist `.ts` files (issue 42) through the binary: `kapi init` tells them from
//! TypeScript by their `<TS>` root and offers them as catalogs, `kapi check` finds a broken
//! `%1` and a numerus message short of the forms Qt's rule gives the language, `kapi up`
//! fills missing and unfinished translations in place (every `<numerusform>`) marked
//! `type="unfinished"`, and a person's edit clears the mark and adds a form.

use serde_json::json;

use super::Kapi;

const RU: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<!DOCTYPE TS>
<TS version=\"2.1\" language=\"ru_RU\">
<context>
    <name>MainWindow</name>
    <message>
        <location filename=\"../MainWindow.cpp\" line=\"185\"/>
        <source>Remove %1?</source>
        <translation>Удалить 1%?</translation>
    </message>
    <message numerus=\"yes\">
        <source>%n file(s)</source>
        <translation type=\"unfinished\">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus=\"yes\">
        <source>%n contact(s)</source>
        <translation>
            <numerusform>%n контакт</numerusform>
            <numerusform>%n контакта</numerusform>
        </translation>
    </message>
    <message>
        <source>Quit</source>
        <extracomment>File menu</extracomment>
    </message>
</context>
</TS>
";

const TYPESCRIPT: &str =
    "// Opens the file the user picked.\nexport function open(path: string): void {}\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"translations/*.ts\"\n    format: qt\n  - path: \"src/**/*.ts\"\n",
    );
    kapi.write("translations/app_ru.ts", RU);
    // TypeScript where the Qt files are: no catalog of the collection declared `qt`.
    kapi.write("translations/util.ts", TYPESCRIPT);
    kapi.write("src/util.ts", TYPESCRIPT);
    kapi
}

#[test]
fn init_tells_qt_files_from_typescript() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    let formats = run.json();
    let qt = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "qt")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(qt["extensions"], json!(["ts"]), "{qt}");
    assert_eq!(qt["bilingual"], true, "{qt}");
    kapi.write("translations/app_ru.ts", RU);
    kapi.write("src/util.ts", TYPESCRIPT);
    kapi.write("README.md", "# App\n\nSome text.\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(
        recipe.contains("#  - path: \"translations/*.ts\"\n#    format: qt\n"),
        "{recipe}"
    );
    assert!(recipe.contains("#  - path: \"src/**/*.ts\""), "{recipe}");
    assert!(
        !recipe.contains("src/**/*.ts\"\n#    format: qt"),
        "{recipe}"
    );
}

#[test]
fn check_finds_a_broken_argument_and_a_missing_numerus_form() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "translations/app_ru.ts"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let rules: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect();
    assert!(rules.contains(&"placeholders.missing".into()), "{report}");
    assert!(rules.contains(&"plurals.missing".into()), "{report}");
    assert!(
        !rules.contains(&"translation.brackets".into()),
        "`(s)` is what the forms replace: {report}"
    );
    let plural = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "plurals.missing")
        .cloned()
        .unwrap();
    assert!(
        plural["message"]
            .as_str()
            .unwrap()
            .contains("form 3 (many) is missing"),
        "{plural}"
    );
    // TypeScript is read as TypeScript (its comments), never as a Qt file; the one in the
    // Qt collection's folder is no file of that collection.
    let run = kapi.run(&["inspect", "--json", "src/util.ts"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["format"], "typescript", "{}", run.stdout);
    let run = kapi.run(&["check", "--json"]);
    assert_eq!(run.json()["target"]["files"], 2, "{}", run.transcript());
}

#[test]
fn up_fills_every_form_in_place_and_a_person_finishes_the_drafts() {
    let kapi = project();
    let read = kapi.run(&[
        "inspect",
        "--json",
        "--editions",
        "ru-RU",
        "translations/app_ru.ts",
    ]);
    assert_eq!(read.code, 0, "{}", read.transcript());
    let doc = read.json();
    let keys: Vec<&str> = doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["ref"]["block"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "MainWindow/Remove %1?",
            "MainWindow/%n file(s)",
            "MainWindow/%n contact(s)",
            "MainWindow/Quit"
        ],
        "{doc}"
    );
    assert_eq!(doc["blocks"][3]["notes"], json!(["File menu"]), "{doc}");

    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "ru-RU"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let ts = kapi.read("translations/app_ru.ts");
    assert!(
        ts.contains("<source>%n file(s)</source>\n        <translation type=\"unfinished\">\n            <numerusform>[%n fîlé(s)~~]</numerusform>\n            <numerusform>[%n fîlé(s)~~]</numerusform>\n            <numerusform>[%n fîlé(s)~~]</numerusform>\n        </translation>"),
        "{ts}"
    );
    assert!(
        ts.contains("<extracomment>File menu</extracomment>\n        <translation type=\"unfinished\">[Qûît~~]</translation>\n    </message>"),
        "{ts}"
    );
    assert!(
        ts.contains("<translation>Удалить 1%?</translation>"),
        "a person's translation stays: {ts}"
    );
    let again = kapi.run(&["up", "--provider", "pseudo", "--to", "ru-RU"]);
    assert!(
        again.stdout.contains("sent 0 requests"),
        "a draft waits for review: {}",
        again.stdout
    );

    // A person's edit of the draft clears `unfinished`; one at `n:many` adds the third form.
    let read = kapi
        .run(&[
            "inspect",
            "--json",
            "--editions",
            "ru-RU",
            "translations/app_ru.ts",
        ])
        .json();
    let quit = &read["blocks"][3]["editions"]["ru-RU"];
    let contacts = &read["blocks"][2]["editions"]["ru-RU"];
    let many = contacts["branches"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["path"] == "n:many"))
        .cloned()
        .unwrap_or_else(|| panic!("{contacts}"));
    assert_eq!(many["absent"], true, "{contacts}");
    let set = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "set_content",
         "at": {"doc": "translations/app_ru.ts", "block": "MainWindow/Quit", "edition": "ru-RU"},
         "if_match": quit["rev"], "content": "Выход"},
        {"op": "set_content",
         "at": {"doc": "translations/app_ru.ts", "block": "MainWindow/%n contact(s)",
                "edition": "ru-RU", "branch": "n:many"},
         "if_match": many["rev"], "content": "<x id=\"1/\"/> контактов"}]});
    kapi.write("set.json", set.to_string());
    let run = kapi.run(&["apply", "set.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let ts = kapi.read("translations/app_ru.ts");
    assert!(ts.contains("<translation>Выход</translation>"), "{ts}");
    assert!(
        ts.contains("<translation>\n            <numerusform>%n контакт</numerusform>\n            <numerusform>%n контакта</numerusform>\n            <numerusform>%n контактов</numerusform>\n        </translation>"),
        "{ts}"
    );
    let run = kapi.run(&["check", "--json", "translations/app_ru.ts"]);
    assert!(!run.stdout.contains("plurals.missing"), "{}", run.stdout);
}
