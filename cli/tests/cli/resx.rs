//! .NET resources (`.resx`, `.resw`; issue 42) through the binary: `kapi formats` lists them,
//! `kapi init` offers `Strings.resx` with its satellites, `kapi inspect` reads each string with
//! its comment as a note and its satellite's translation beside it (images and designer
//! metadata no block), `kapi check` names a dropped composite format item in the satellite,
//! and `kapi apply` changes one value and leaves every other byte.

use serde_json::json;

use super::Kapi;

const RECIPE: &str = "version: v1\nname: app\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: strings\n    content:\n      - path: \"src/Strings.resx\"\n        target: \"{dir}/{basename}.{lang}.resx\"\n";

const EN: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<root>\r\n  <resheader name=\"version\">\r\n    <value>2.0</value>\r\n  </resheader>\r\n  <data name=\"Greeting\" xml:space=\"preserve\">\r\n    <value>Hello {0}, you have {1:N0} new messages</value>\r\n    <comment>{0} is the user's name.</comment>\r\n  </data>\r\n  <data name=\"Logo\" type=\"System.Drawing.Bitmap, System.Drawing\" mimetype=\"application/x-microsoft.net.object.bytearray.base64\">\r\n    <value>iVBORw0KGgo=</value>\r\n  </data>\r\n  <data name=\"Save\" xml:space=\"preserve\">\r\n    <value>Save &amp; close</value>\r\n  </data>\r\n</root>";
const FR: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<root>\r\n  <data name=\"Greeting\" xml:space=\"preserve\">\r\n    <value>Bonjour, vous avez {1:N0} nouveaux messages</value>\r\n  </data>\r\n  <data name=\"Save\" xml:space=\"preserve\">\r\n    <value>Enregistrer et fermer</value>\r\n  </data>\r\n</root>";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write("src/Strings.resx", EN);
    kapi.write("src/Strings.fr.resx", FR);
    kapi
}

#[test]
fn formats_lists_resx_and_init_offers_the_satellites() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let formats = run.json();
    let resx = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "resx")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(resx["extensions"], json!(["resx", "resw"]), "{resx}");
    kapi.write("src/Strings.resx", EN);
    kapi.write("src/Strings.fr.resx", FR);
    kapi.write("README.md", "# App\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("path: \"src/Strings.resx\""), "{recipe}");
    assert!(
        recipe.contains("target: \"{dir}/{basename}.{locale}.resx\""),
        "{recipe}"
    );
}

#[test]
fn strings_carry_their_comment_and_pair_with_the_satellite() {
    let kapi = project();
    let run = kapi.run(&["inspect", "--json", "--editions", "fr", "src/Strings.resx"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "resx", "{doc}");
    let blocks = doc["blocks"].as_array().unwrap();
    let keys: Vec<&str> = blocks
        .iter()
        .map(|b| b["ref"]["block"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["Greeting", "Save"], "the bitmap is no block: {doc}");
    assert_eq!(
        blocks[0]["notes"],
        json!(["{0} is the user's name."]),
        "{doc}"
    );
    assert_eq!(blocks[1]["text"], "Save & close", "{doc}");
    assert_eq!(
        blocks[1]["editions"]["fr"]["text"], "Enregistrer et fermer",
        "{doc}"
    );
}

#[test]
fn a_dropped_format_item_is_found_in_the_satellite() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "src/Strings.resx"]);
    let report = run.json();
    let found = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["path"] == "src/Strings.fr.resx" && f["rule"] == "placeholders.missing");
    assert!(found, "{report}");
}

#[test]
fn apply_changes_one_value_and_every_other_byte_stays() {
    let kapi = project();
    let run = kapi.run(&["inspect", "--json", "src/Strings.resx"]);
    let doc = run.json();
    let save = doc["blocks"][1].clone();
    let change = json!({"schema": "kapi.change/v1", "operations": [{
        "op": "set_content", "at": save["ref"], "if_match": save["rev"],
        "content": "Save <and> close"}]});
    kapi.write("change.json", change.to_string());
    let run = kapi.run(&["apply", "--json", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        kapi.read("src/Strings.resx"),
        EN.replace("Save &amp; close", "Save &lt;and&gt; close")
    );
}

/// `kapi up` makes a satellite hold every string of the neutral file: a missing one is
/// written (the satellite rebuilt from the neutral file's skeleton, as nothing is lost), its
/// human translation kept.
#[test]
fn up_fills_a_satellite_and_keeps_its_translations() {
    let kapi = project();
    let lacking = FR.replace(
        "  <data name=\"Save\" xml:space=\"preserve\">\r\n    <value>Enregistrer et fermer</value>\r\n  </data>\r\n",
        "",
    );
    kapi.write("src/Strings.fr.resx", &lacking);
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let after = kapi.read("src/Strings.fr.resx");
    assert!(after.contains("<data name=\"Save\""), "{after}");
    assert!(
        after.contains("Bonjour, vous avez {1:N0} nouveaux messages"),
        "{after}"
    );
    let run = kapi.run(&["inspect", "--verify", "src/Strings.fr.resx"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
}
