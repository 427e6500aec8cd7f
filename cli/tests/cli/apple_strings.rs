//! Apple `.strings` (issue 42) through the binary: `kapi formats` lists it, `kapi init`
//! offers `en.lproj` with its sibling `.lproj` folders, `kapi inspect` reads a UTF-16 file's
//! pairs with their comments as notes and the translation beside each, `kapi check` names a
//! dropped `%@` in the translation, `kapi apply` edits one value and the file stays UTF-16,
//! and a compiled `.strings` is refused with what to read instead.

use serde_json::json;

use super::Kapi;

const RECIPE: &str = "version: v1\nname: app\ndefaults:\n  source_language: en\n  target_languages: [fr, ru]\ncollections:\n  - name: strings\n    base: \"App/en.lproj\"\n    content:\n      - path: \"*.strings\"\n        target: \"../{lang}.lproj/{relpath}\"\n      - path: \"*.stringsdict\"\n        target: \"../{lang}.lproj/{relpath}\"\n";

const EN: &str =
    "/* Shown when a file is saved */\n\"saved\" = \"Saved %@\";\n\n\"quit\" = \"Quit\";\n";
const FR: &str = "\"saved\" = \"Enregistré\";\n\n\"quit\" = \"Quitter\";\n";

/// `text` as UTF-16LE with a BOM, as Xcode writes `.strings`.
fn utf16(text: &str) -> Vec<u8> {
    let mut out = vec![0xff, 0xfe];
    for unit in text.encode_utf16() {
        out.extend(unit.to_le_bytes());
    }
    out
}

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write("App/en.lproj/Localizable.strings", utf16(EN));
    kapi.write("App/fr.lproj/Localizable.strings", utf16(FR));
    kapi
}

#[test]
fn formats_lists_strings_and_init_offers_the_lproj_folders() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    let formats = run.json();
    assert!(
        formats["formats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "strings" && f["extensions"] == json!(["strings"])),
        "{formats}"
    );
    kapi.write("App/en.lproj/Localizable.strings", utf16(EN));
    kapi.write("App/fr.lproj/Localizable.strings", utf16(FR));
    kapi.write("README.md", "# App\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("base: \"App/en.lproj\""), "{recipe}");
    assert!(
        recipe.contains("target: \"../{locale}.lproj/{relpath}\""),
        "{recipe}"
    );
}

#[test]
fn pairs_carry_their_comment_and_their_translation() {
    let kapi = project();
    let run = kapi.run(&[
        "inspect",
        "--json",
        "--editions",
        "fr",
        "App/en.lproj/Localizable.strings",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "strings", "{doc}");
    let saved = &doc["blocks"][0];
    assert_eq!(saved["ref"]["block"], "saved", "{doc}");
    assert_eq!(
        saved["notes"],
        json!(["Shown when a file is saved"]),
        "{doc}"
    );
    assert_eq!(saved["text"], "Saved <x id=\"1/\"/>", "{doc}");
    assert_eq!(saved["editions"]["fr"]["text"], "Enregistré", "{doc}");
}

#[test]
fn a_dropped_placeholder_is_found_and_an_edit_keeps_utf16() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "App/en.lproj/Localizable.strings"]);
    let report = run.json();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "App/fr.lproj/Localizable.strings"
                && f["rule"] == "placeholders.missing"),
        "{report}"
    );
    let run = kapi.run(&["inspect", "--json", "App/en.lproj/Localizable.strings"]);
    let quit = run.json()["blocks"][1].clone();
    let change = json!({"schema": "kapi.change/v1", "operations": [{
        "op": "set_content", "at": quit["ref"], "if_match": quit["rev"],
        "content": "Quit \"now\""}]});
    kapi.write("change.json", change.to_string());
    let run = kapi.run(&["apply", "--json", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let bytes = std::fs::read(kapi.path().join("App/en.lproj/Localizable.strings")).unwrap();
    assert_eq!(
        bytes,
        utf16(&EN.replace("\"Quit\";", "\"Quit \\\"now\\\"\";"))
    );
}

#[test]
fn a_compiled_strings_file_is_refused_with_what_to_read() {
    let kapi = Kapi::empty();
    kapi.write("Localizable.strings", b"bplist00\xd1\x01\x02");
    let run = kapi.run(&["check", "Localizable.strings"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("compiled .strings file"),
        "{}",
        run.stderr
    );
}

const DICT_EN: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>%d files</key>\n\t<dict>\n\t\t<key>NSStringLocalizedFormatKey</key>\n\t\t<string>%#@files@</string>\n\t\t<key>files</key>\n\t\t<dict>\n\t\t\t<key>NSStringFormatSpecTypeKey</key>\n\t\t\t<string>NSStringPluralRuleType</string>\n\t\t\t<key>NSStringFormatValueTypeKey</key>\n\t\t\t<string>d</string>\n\t\t\t<key>one</key>\n\t\t\t<string>%d file</string>\n\t\t\t<key>other</key>\n\t\t\t<string>%d files</string>\n\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n";

/// A `.stringsdict`'s plural variable is one block of branches, paired with its translation;
/// a Russian translation that gives only `one` and `other` lacks `few` and `many`.
#[test]
fn a_stringsdict_plural_is_one_block_and_a_missing_form_is_found() {
    let kapi = project();
    kapi.write("App/en.lproj/Localizable.stringsdict", DICT_EN);
    let ru = DICT_EN
        .replace("<string>%d file</string>", "<string>%d файл</string>")
        .replace("<string>%d files</string>", "<string>%d файлов</string>");
    kapi.write("App/ru.lproj/Localizable.stringsdict", &ru);
    let run = kapi.run(&[
        "inspect",
        "--json",
        "--editions",
        "ru",
        "App/en.lproj/Localizable.stringsdict",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "stringsdict", "{doc}");
    let plural = &doc["blocks"][1];
    assert_eq!(plural["ref"]["block"], "%d files/files", "{doc}");
    assert!(
        plural["branches"].as_array().is_some_and(|b| b.len() == 2),
        "{plural}"
    );
    let run = kapi.run(&["check", "--json", "App/en.lproj/Localizable.stringsdict"]);
    let report = run.json();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "App/ru.lproj/Localizable.stringsdict"
                && f["rule"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("plurals."))),
        "{report}"
    );
}
