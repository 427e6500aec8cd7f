//! Apple String Catalogs (`.xcstrings`; issue 42) through the binary: every language in the
//! one file is an edition; `kapi init` offers the catalog, `kapi check` finds a dropped `%@`
//! and a Russian plural short of `few`, `kapi up` fills each language a key lacks in place
//! (Xcode's layout, valid JSON) marked `needs_review`, and a person's edit marks it
//! `translated`.

use serde_json::json;

use super::Kapi;

const CATALOG: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "Hello %@" : {
      "comment" : "Greeting on the home screen",
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hallo"
          }
        },
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hello %@"
          }
        }
      }
    },
    "Quit" : {
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Beenden"
          }
        }
      }
    },
    "files" : {
      "localizations" : {
        "en" : {
          "variations" : {
            "plural" : {
              "one" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "%lld file"
                }
              },
              "other" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "%lld files"
                }
              }
            }
          }
        },
        "ru" : {
          "variations" : {
            "plural" : {
              "one" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "%lld файл"
                }
              },
              "other" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "%lld файла"
                }
              }
            }
          }
        }
      }
    }
  },
  "version" : "1.0"
}
"#;

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"App/*.xcstrings\"\n",
    );
    kapi.write("App/Localizable.xcstrings", CATALOG);
    kapi
}

#[test]
fn init_offers_the_catalog_and_check_reads_every_language() {
    let kapi = Kapi::empty();
    kapi.write("App/Localizable.xcstrings", CATALOG);
    kapi.write("README.md", "# App\n\nSome text.\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(
        recipe.contains("#  - path: \"App/**/*.xcstrings\""),
        "{recipe}"
    );

    let kapi = project();
    let read = kapi.run(&[
        "inspect",
        "--json",
        "--editions",
        "*",
        "App/Localizable.xcstrings",
    ]);
    assert_eq!(read.code, 0, "{}", read.transcript());
    let doc = read.json();
    assert_eq!(doc["format"], "xcstrings", "{doc}");
    assert_eq!(
        doc["blocks"][0]["notes"],
        json!(["Greeting on the home screen"])
    );
    assert_eq!(
        doc["blocks"][1]["text"], "Quit",
        "a key with no source text is its own"
    );
    let run = kapi.run(&["check", "--json"]);
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
            .any(|(r, m)| r == "placeholders.missing" && m.contains("%@") && m.contains("(de)")),
        "{report}"
    );
    assert!(
        found
            .iter()
            .any(|(r, m)| r == "plurals.missing" && m.contains("`few`") && m.contains("(ru)")),
        "{report}"
    );
}

#[test]
fn up_fills_each_language_in_place_and_a_person_decides() {
    let kapi = project();
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "de"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let written = kapi.read("App/Localizable.xcstrings");
    let parsed: serde_json::Value = serde_json::from_str(&written).expect("valid JSON");
    let de = &parsed["strings"]["files"]["localizations"]["de"];
    assert_eq!(
        de["variations"]["plural"]["other"]["stringUnit"]["state"], "needs_review",
        "{written}"
    );
    assert!(
        de["variations"]["plural"]["one"]["stringUnit"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("%lld")),
        "{written}"
    );
    assert!(
        written.contains("        },\n        \"en\" : {\n          \"variations\" : {")
            || written.contains("      \"localizations\" : {\n        \"de\" : {"),
        "Xcode's layout: {written}"
    );
    // The person's `Hallo` (no `%@`) is a translation, left alone without `force`.
    assert_eq!(
        parsed["strings"]["Hello %@"]["localizations"]["de"]["stringUnit"]["value"],
        "Hallo"
    );
    let again = kapi.run(&["up", "--provider", "pseudo", "--to", "de"]);
    assert!(again.stdout.contains("sent 0 requests"), "{}", again.stdout);

    let read = kapi
        .run(&[
            "inspect",
            "--json",
            "--editions",
            "de",
            "App/Localizable.xcstrings",
        ])
        .json();
    let files = read["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["ref"]["block"] == "files")
        .cloned()
        .unwrap();
    let de = &files["editions"]["de"];
    assert_eq!(de["state"], "needs_review", "{de}");
    let other = de["branches"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["path"] == "count:other"))
        .cloned()
        .unwrap_or_else(|| panic!("{de}"));
    // The form's `%lld`, as the read names it.
    let text = other["text"].as_str().unwrap_or_default();
    let tag = text
        .find("<x ")
        .and_then(|at| text[at..].find("/>").map(|end| &text[at..at + end + 2]))
        .unwrap_or_else(|| panic!("{other}"));
    let set = json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
        "at": {"doc": "App/Localizable.xcstrings", "block": "files", "edition": "de",
               "branch": "count:other"},
        "if_match": other["rev"], "content": format!("{tag} Dateien")}]});
    kapi.write("set.json", set.to_string());
    let run = kapi.run(&["apply", "set.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let parsed: serde_json::Value =
        serde_json::from_str(&kapi.read("App/Localizable.xcstrings")).expect("valid JSON");
    let other = &parsed["strings"]["files"]["localizations"]["de"]["variations"]["plural"]["other"];
    assert_eq!(other["stringUnit"]["value"], "%lld Dateien");
    assert_eq!(other["stringUnit"]["state"], "translated");
}
