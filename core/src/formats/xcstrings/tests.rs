use super::*;
use crate::formats::xliff::tests::shape;
use crate::formats::{HoleKind, conformance};
use crate::model::{Edition, Run, SwitchKind};

const SIMPLE: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "Hello %@" : {
      "comment" : "Greeting",
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hallo %@"
          }
        },
        "fr" : {
          "stringUnit" : {
            "state" : "needs_review",
            "value" : "Salut \"%@\"\n"
          }
        }
      }
    },
    "Plain" : {
      "localizations" : {
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Plain text"
          }
        }
      }
    },
    "Skip" : {
      "extractionState" : "stale",
      "shouldTranslate" : false
    }
  },
  "version" : "1.0"
}"#;

const PLURAL: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "%lld files" : {
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
              "few" : {
                "stringUnit" : {
                  "state" : "new",
                  "value" : "%lld файла"
                }
              },
              "one" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "%lld файл"
                }
              }
            }
          }
        }
      }
    },
    "Tap" : {
      "localizations" : {
        "en" : {
          "variations" : {
            "device" : {
              "iphone" : {
                "variations" : {
                  "plural" : {
                    "one" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Tap %lld time"
                      }
                    },
                    "other" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Tap %lld times"
                      }
                    }
                  }
                }
              },
              "mac" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "Click"
                }
              }
            }
          }
        }
      }
    }
  },
  "version" : "1.0"
}"#;

const SUBSTITUTIONS: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "%lld of %lld" : {
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "%#@done@ von %lld"
          },
          "substitutions" : {
            "done" : {
              "argNum" : 1,
              "formatSpecifier" : "lld",
              "variations" : {
                "plural" : {
                  "one" : {
                    "stringUnit" : {
                      "state" : "translated",
                      "value" : "%lld Datei"
                    }
                  },
                  "other" : {
                    "stringUnit" : {
                      "state" : "translated",
                      "value" : "%lld Dateien"
                    }
                  }
                }
              }
            }
          }
        },
        "en" : {
          "stringUnit" : {
            "state" : "new",
            "value" : "%#@done@ of %lld"
          },
          "substitutions" : {
            "done" : {
              "argNum" : 1,
              "formatSpecifier" : "lld",
              "variations" : {
                "plural" : {
                  "one" : {
                    "stringUnit" : {
                      "state" : "new",
                      "value" : "%lld file"
                    }
                  },
                  "other" : {
                    "stringUnit" : {
                      "state" : "new",
                      "value" : "%lld files"
                    }
                  }
                }
              }
            }
          }
        }
      }
    },
    "Other" : {
      "localizations" : {
        "fr" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Autre"
          }
        }
      }
    }
  },
  "version" : "1.0"
}"#;

fn read(text: &str) -> Parsed {
    XcStrings
        .read(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(XcStrings.write(parsed).unwrap()).unwrap()
}

fn edition(runs: Vec<Run>, state: &str) -> Edition {
    let mut e = Edition::new(runs);
    e.state = Some(state.into());
    e
}

/// The switch an edition is.
fn switch(runs: &[Run]) -> &crate::model::Switch {
    match runs {
        [Run::Switch(s)] => s,
        other => panic!("no switch: {other:?}"),
    }
}

#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    assert!(conformance::run_corpus(&XcStrings, "xcstrings") >= 1);
}

#[test]
fn keys_notes_editions_and_states() {
    let parsed = read(SIMPLE);
    assert_eq!(conformance::keys(&parsed), ["Hello %@", "Plain", "Skip"]);
    let hello = &parsed.document.blocks[0];
    assert_eq!(hello.notes, ["Greeting"]);
    assert_eq!(shape(&hello.source.runs), "Hello [s1!:%@]");
    assert_eq!(shape(&hello.targets["de"].runs), "Hallo [s1!:%@]");
    assert_eq!(hello.targets["de"].state.as_deref(), Some("translated"));
    assert_eq!(shape(&hello.targets["fr"].runs), "Salut \"[s1!:%@]\"\n");
    assert_eq!(hello.targets["fr"].state.as_deref(), Some("needs_review"));
    // The key is its own source: no hole for it.
    assert!(
        parsed
            .skeleton
            .holes
            .iter()
            .all(|h| h.block != 0 || h.language().is_some())
    );
    let plain = &parsed.document.blocks[1];
    assert_eq!(plain.source.plain_text(), "Plain text");
    assert!(plain.targets.is_empty());
    let skip = &parsed.document.blocks[2];
    assert!(!skip.translatable);
    assert_eq!(skip.locked.as_deref(), Some("shouldTranslate: false"));
    assert!(skip.notes[0].contains("stale"), "{:?}", skip.notes);
    // State holes cover the state strings' content.
    let states: Vec<&str> = parsed
        .skeleton
        .holes
        .iter()
        .filter(|h| h.kind() == HoleKind::State)
        .map(|h| &SIMPLE[h.span.clone()])
        .collect();
    assert_eq!(states, ["translated", "needs_review"]);
    // Missing: `Plain` lacks de and fr; `Skip` takes none.
    let missing: Vec<(usize, &str)> = parsed
        .skeleton
        .holes
        .iter()
        .filter(|h| h.kind() == HoleKind::Missing)
        .map(|h| (h.block, h.language().unwrap()))
        .collect();
    assert_eq!(missing, [(1, "de"), (1, "fr")]);
}

#[test]
fn a_no_op_write_gives_the_same_bytes() {
    for text in [SIMPLE, PLURAL, SUBSTITUTIONS] {
        assert_eq!(write(&read(text)), text);
    }
    // A repeated language or case: the first is read, the rest stay in the skeleton.
    let unit = |v: &str| format!("{{\"stringUnit\":{{\"state\":\"new\",\"value\":\"{v}\"}}}}");
    let text = format!(
        "{{\"sourceLanguage\":\"en\",\"strings\":{{\"a\":{{\"localizations\":{{\"fr\":{},\"fr\":{},\"de\":{{\"variations\":{{\"plural\":{{\"one\":{},\"one\":{}}}}}}}}}}}}}}}",
        unit("x"),
        unit("y"),
        unit("p"),
        unit("q")
    );
    let parsed = read(&text);
    let block = &parsed.document.blocks[0];
    assert_eq!(block.targets["fr"].plain_text(), "x");
    assert_eq!(
        block.targets["de"].branch("count:one").map(shape),
        Some("p".into())
    );
    assert_eq!(write(&parsed), text);
}

#[test]
fn missing_targets_are_written_in_their_sorted_place() {
    let mut parsed = read(SIMPLE);
    let plain = &mut parsed.document.blocks[1];
    plain.targets.insert(
        "fr".into(),
        edition(vec![Run::text("Simple")], "needs_review"),
    );
    plain.targets.insert(
        "de".into(),
        edition(vec![Run::text("Schlicht \"x\"")], "needs_review"),
    );
    let out = write(&parsed);
    let expected = SIMPLE.replace(
        r#"      "localizations" : {
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Plain text"
          }
        }
      }"#,
        r#"      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "needs_review",
            "value" : "Schlicht \"x\""
          }
        },
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Plain text"
          }
        },
        "fr" : {
          "stringUnit" : {
            "state" : "needs_review",
            "value" : "Simple"
          }
        }
      }"#,
    );
    assert_eq!(out, expected);
    let again = read(&out);
    assert_eq!(again.document.blocks[1].targets.len(), 2);
    assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
}

#[test]
fn a_missing_target_opens_localizations_in_a_key_without_them() {
    let text = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Bare\" : {\n      \"comment\" : \"c\"\n    },\n    \"Empty\" : {},\n    \"Last\" : {\n      \"shouldTranslate\" : true\n    },\n    \"X\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"X\"\n          }\n        },\n        \"fr\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"X\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}\n";
    let mut parsed = read(text);
    for block in &mut parsed.document.blocks[..3] {
        for lang in ["de", "fr"] {
            block
                .targets
                .insert(lang.into(), edition(vec![Run::text(lang)], "needs_review"));
        }
    }
    let out = write(&parsed);
    let loc = |ind: &str| {
        let unit = |lang: &str| {
            format!(
                "{ind}  \"{lang}\" : {{\n{ind}    \"stringUnit\" : {{\n{ind}      \"state\" : \"needs_review\",\n{ind}      \"value\" : \"{lang}\"\n{ind}    }}\n{ind}  }}"
            )
        };
        format!(
            "\"localizations\" : {{\n{},\n{}\n{ind}}}",
            unit("de"),
            unit("fr")
        )
    };
    let ind = "      ";
    assert!(
        out.contains(&format!(
            "\"Bare\" : {{\n      \"comment\" : \"c\",\n{ind}{}\n    }},",
            loc(ind)
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("\"Empty\" : {{\n{ind}{}\n    }},", loc(ind))),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "\"Last\" : {{\n{ind}{},\n      \"shouldTranslate\" : true\n    }},",
            loc(ind)
        )),
        "{out}"
    );
    let again = read(&out);
    for block in &again.document.blocks {
        assert_eq!(block.targets.len(), 2, "{}", block.key);
    }
    assert_eq!(write(&again), out);
}

#[test]
fn plural_and_device_variations_are_switches() {
    let parsed = read(PLURAL);
    let files = &parsed.document.blocks[0];
    let source = switch(&files.source.runs);
    assert_eq!(
        (source.kind, source.pivot.as_str()),
        (SwitchKind::Plural, "count")
    );
    let cases: Vec<&str> = source.branches.iter().map(|b| b.case.as_str()).collect();
    assert_eq!(cases, ["one", "other"]);
    let ru = &files.targets["ru"];
    assert_eq!(
        ru.state.as_deref(),
        Some("new"),
        "mixed states: the least done"
    );
    let ru_cases: Vec<&str> = switch(&ru.runs)
        .branches
        .iter()
        .map(|b| b.case.as_str())
        .collect();
    assert_eq!(ru_cases, ["few", "one"]);
    let branches: Vec<(Option<&str>, Option<&str>)> = parsed
        .skeleton
        .holes
        .iter()
        .filter(|h| h.block == 0 && h.kind() == HoleKind::Runs)
        .map(|h| (h.edition(), h.branch()))
        .collect();
    assert_eq!(
        branches,
        [
            (None, Some("count:one")),
            (None, Some("count:other")),
            (Some("ru"), Some("count:few")),
            (Some("ru"), Some("count:one")),
        ]
    );
    let tap = &parsed.document.blocks[1];
    let device = switch(&tap.source.runs);
    assert_eq!(
        (device.kind, device.pivot.as_str()),
        (SwitchKind::Select, "device")
    );
    let iphone = switch(&device.branches[0].runs);
    assert_eq!(iphone.pivot, "count");
    assert_eq!(
        tap.source.branch("device:iphone/count:other").map(shape),
        Some("Tap [s4!:%lld] times".to_owned())
    );
    assert_eq!(
        tap.source.branch("device:mac").map(shape),
        Some("Click".to_owned())
    );
}

#[test]
fn an_edited_branch_changes_only_its_value_and_reads_back() {
    let mut parsed = read(PLURAL);
    let ru = parsed.document.blocks[0].targets.get_mut("ru").unwrap();
    *ru.branch_mut("count:few").unwrap() = vec![Run::text("мало \"x\"")];
    let out = write(&parsed);
    assert_eq!(
        out,
        PLURAL.replace("\"%lld файла\"", "\"мало \\\"x\\\"\""),
        "the states stay as they were"
    );
    let again = read(&out);
    assert_eq!(
        again.document.blocks[0].targets["ru"]
            .branch("count:few")
            .map(shape),
        Some("мало \"x\"".to_owned())
    );
}

#[test]
fn a_state_change_is_written_in_place() {
    let mut parsed = read(SIMPLE);
    parsed.document.blocks[0]
        .targets
        .get_mut("fr")
        .unwrap()
        .state = Some("translated".into());
    let out = write(&parsed);
    let expected = SIMPLE.replacen(
        "\"state\" : \"needs_review\"",
        "\"state\" : \"translated\"",
        1,
    );
    assert_eq!(out, expected);
    // Every variation takes a changed state.
    let mut parsed = read(PLURAL);
    parsed.document.blocks[0]
        .targets
        .get_mut("ru")
        .unwrap()
        .state = Some("needs_review".into());
    let out = write(&parsed);
    assert_eq!(out.matches("needs_review").count(), 2, "{out}");
}

#[test]
fn an_unknown_state_is_refused() {
    let mut parsed = read(SIMPLE);
    parsed.document.blocks[0]
        .targets
        .get_mut("fr")
        .unwrap()
        .state = Some("final".into());
    assert!(matches!(
        XcStrings.write(&parsed),
        Err(WriteError::State { ref state, .. }) if state == "final"
    ));
    let mut parsed = read(SIMPLE);
    parsed.document.blocks[1]
        .targets
        .insert("de".into(), edition(vec![Run::text("x")], "signed-off"));
    assert!(matches!(
        XcStrings.write(&parsed),
        Err(WriteError::State { .. })
    ));
}

#[test]
fn an_edit_is_escaped_as_xcode_does() {
    let mut parsed = read(SIMPLE);
    parsed.document.blocks[1].source.runs = vec![Run::text("a \"b\" \\ c\n\té / ü")];
    let out = write(&parsed);
    assert!(
        out.contains(r#""value" : "a \"b\" \\ c\n\té / ü""#),
        "{out}"
    );
    let again = read(&out);
    assert_eq!(
        again.document.blocks[1].source.plain_text(),
        "a \"b\" \\ c\n\té / ü"
    );
    // Re-reading gives the runs written, and writing them again the same bytes.
    assert_eq!(write(&again), out);
}

#[test]
fn a_plural_target_is_written_as_variations() {
    let mut parsed = read(SUBSTITUTIONS);
    let other = &mut parsed.document.blocks[2];
    assert_eq!(other.key, "Other");
    let mut runs = read(PLURAL).document.blocks[0].source.runs.clone();
    if let Run::Switch(s) = &mut runs[0] {
        s.branches.reverse();
    }
    other
        .targets
        .insert("de".into(), edition(runs, "needs_review"));
    let out = write(&parsed);
    assert!(
        out.contains(
            r#""de" : {
          "variations" : {
            "plural" : {
              "one" : {
                "stringUnit" : {
                  "state" : "needs_review",
                  "value" : "%lld file"
                }
              },
              "other" : {
                "stringUnit" : {
                  "state" : "needs_review",
                  "value" : "%lld files"
                }
              }
            }
          }
        },
        "fr" : {"#
        ),
        "{out}"
    );
    let again = read(&out);
    assert_eq!(
        again.document.blocks[2].targets["de"]
            .branch("count:one")
            .map(shape),
        Some("[s2!:%lld] file".to_owned())
    );
}

#[test]
fn substitutions_are_blocks_of_their_own() {
    let parsed = read(SUBSTITUTIONS);
    assert_eq!(
        conformance::keys(&parsed),
        ["%lld of %lld", "%lld of %lld/done", "Other"]
    );
    let main = &parsed.document.blocks[0];
    assert_eq!(shape(&main.source.runs), "[s1!:%#@done@] of [s2!:%lld]");
    let done = &parsed.document.blocks[1];
    let s = switch(&done.source.runs);
    assert_eq!((s.kind, s.pivot.as_str()), (SwitchKind::Plural, "done"));
    assert_eq!(
        done.targets["de"].branch("done:other").map(shape),
        Some("[s3!:%lld] Dateien".into())
    );
    // A new language of the key writes the substitution's edition beside its value.
    let mut parsed = parsed;
    parsed.document.blocks[0].targets.insert(
        "fr".into(),
        edition(
            read(SUBSTITUTIONS).document.blocks[0].source.runs.clone(),
            "needs_review",
        ),
    );
    let mut sub = read(SUBSTITUTIONS).document.blocks[1].source.clone();
    sub.state = Some("needs_review".into());
    parsed.document.blocks[1].targets.insert("fr".into(), sub);
    let out = write(&parsed);
    let again = read(&out);
    assert_eq!(
        shape(&again.document.blocks[0].targets["fr"].runs),
        "[s1!:%#@done@] of [s2!:%lld]"
    );
    assert_eq!(
        again.document.blocks[1].targets["fr"]
            .branch("done:one")
            .map(shape),
        Some("[s2!:%lld] file".into())
    );
    assert!(out.contains("\"argNum\" : 1,\n              \"formatSpecifier\" : \"lld\",\n              \"variations\" : {"), "{out}");
}

#[test]
fn malformed_files_are_refused_with_a_position() {
    let cases = [
        (
            "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {,}\n}",
            3,
            "member name",
        ),
        ("[1, 2]", 1, "root is not an object"),
        ("{\"sourceLanguage\" : \"en\"}", 1, "no `strings`"),
        ("{\"strings\" : {}}", 1, "no `sourceLanguage`"),
        (
            "{\"sourceLanguage\" : \"en\", \"strings\" : {\"a\" : {\"localizations\" : {\"en\" : {\"variations\" : {\"width\" : {}}}}}}}",
            1,
            "`width`",
        ),
        (
            "{\"sourceLanguage\" : \"en\", \"strings\" : {\"a\" : {},}}",
            1,
            "trailing comma",
        ),
        (
            "{\"sourceLanguage\" : \"en\", \"strings\" : {\"a\" : 1}}",
            1,
            "expected an object",
        ),
        (
            "{\"sourceLanguage\" : \"en\", \"strings\" : {\"a\\x\" : {}}}",
            1,
            "escape",
        ),
    ];
    for (text, line, says) in cases {
        match XcStrings.read(text.as_bytes()) {
            Err(ReadError::Syntax {
                line: l, message, ..
            }) => {
                assert_eq!(l, line, "{text}: {message}");
                assert!(message.contains(says), "{text}: {message}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn hostile_input_is_bounded() {
    use std::time::Instant;
    // Deep nesting inside a key is refused, not recursed into.
    let deep = format!(
        "{{\"sourceLanguage\":\"en\",\"strings\":{{\"a\":{{\"x\":{}{}}}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(matches!(
        XcStrings.read(deep.as_bytes()),
        Err(ReadError::TooDeep { .. })
    ));
    // Many keys each in a language of its own would ask for keys × languages holes: the
    // budget refuses it.
    let start = Instant::now();
    let mut many = String::from("{\"sourceLanguage\":\"en\",\"strings\":{");
    for i in 0..20_000 {
        if i > 0 {
            many.push(',');
        }
        many.push_str(&format!(
            "\"k{i}\":{{\"localizations\":{{\"l{i}\":{{\"stringUnit\":{{\"state\":\"new\",\"value\":\"v\"}}}}}}}}"
        ));
    }
    many.push_str("}}");
    assert!(matches!(
        XcStrings.read(many.as_bytes()),
        Err(ReadError::TooLarge { .. })
    ));
    // A big file of plural keys, long escaped values and skipped members reads in linear time.
    let mut big = String::from("{\"sourceLanguage\":\"en\",\"strings\":{");
    for i in 0..5_000 {
        if i > 0 {
            big.push(',');
        }
        big.push_str(&format!(
            "\"k{i}\":{{\"x\":[1,2.5e3,true,null,{{}}],\"localizations\":{{\"de\":{{\"variations\":{{\"plural\":{{\"one\":{{\"stringUnit\":{{\"state\":\"new\",\"value\":\"{}\"}}}},\"other\":{{\"stringUnit\":{{\"state\":\"new\",\"value\":\"%lld \\u00e9\"}}}}}}}}}}}}}}",
            "a\\n%@".repeat(50)
        ));
    }
    big.push_str("}}");
    let parsed = XcStrings.read(big.as_bytes()).unwrap();
    assert_eq!(parsed.document.blocks.len(), 5_000);
    assert_eq!(XcStrings.write(&parsed).unwrap(), big.as_bytes());
    // A value dense with placeholders past MAX_CODES is refused.
    let dense = format!(
        "{{\"sourceLanguage\":\"en\",\"strings\":{{\"a\":{{\"localizations\":{{\"en\":{{\"stringUnit\":{{\"state\":\"new\",\"value\":\"{}\"}}}}}}}}}}}}",
        "%@".repeat(crate::formats::MAX_CODES + 5)
    );
    assert!(matches!(
        XcStrings.read(dense.as_bytes()),
        Err(ReadError::TooDense { .. })
    ));
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}
