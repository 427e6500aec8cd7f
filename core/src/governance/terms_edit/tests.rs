use super::plan::slug;
use super::*;
use crate::suggest::is_slug;
use crate::yaml_text::scalar;

const PATH: &str = ".kapi/terms.yaml";

/// Comments before, inside and after the concepts; one concept's terms in flow style.
const COMMENTED: &str = "\
# Terms for the handbook.
# Keep this list short.
version: v1
concepts:
  # Signing in
  - id: sign-in
    definition: Entering your account   # the verb
    terms:
      - text: sign in
        lang: en
        status: preferred
      # the old spelling
      - text: login  # noun only
        lang: en
        status: deprecated   # since 2023
        replacement: sign in

      # more to come
  - id: email
    terms:
      - {text: email, lang: en, status: preferred}
      - {text: e-mail, lang: en, status: deprecated}  # hyphen
# end of file
";

fn op(text: &str, lang: &str, status: TermStatus) -> TermUpsert {
    TermUpsert {
        text: text.into(),
        lang: lang.into(),
        status,
        concept: None,
        replaces: None,
        replacement: None,
        note: None,
        case: None,
        severity: None,
        exceptions: None,
        definition: None,
    }
}

fn run(text: Option<&str>, op: &TermUpsert) -> (String, Upserted) {
    upsert(text, PATH, op).unwrap_or_else(|e| panic!("{e}"))
}

fn parse(text: &str) -> TermsFile {
    TermsFile::parse(text, PATH).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The lines of `before` missing from `after`, and the lines `after` adds, by position:
/// the longest common prefix and suffix of lines are left out.
fn diff<'a>(before: &'a str, after: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let a: Vec<&str> = before.split_inclusive('\n').collect();
    let b: Vec<&str> = after.split_inclusive('\n').collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (
        a[head..a.len() - tail].to_vec(),
        b[head..b.len() - tail].to_vec(),
    )
}

#[test]
fn adds_a_term_to_an_existing_concept_keeping_every_comment() {
    let mut add = op("log on", "en", TermStatus::Deprecated);
    add.concept = Some("sign-in".into());
    add.replacement = Some("sign in".into());
    let (text, what) = run(Some(COMMENTED), &add);
    assert_eq!(
        what,
        Upserted::Added {
            concept: "sign-in".into()
        }
    );
    let want = COMMENTED.replace(
            "        replacement: sign in\n",
            "        replacement: sign in\n      - text: log on\n        lang: en\n        status: deprecated\n        replacement: sign in\n",
        );
    assert_eq!(text, want);
    let (removed, added) = diff(COMMENTED, &text);
    assert!(removed.is_empty(), "{removed:?}");
    assert_eq!(added.len(), 4);
}

#[test]
fn adds_a_term_in_the_flow_style_of_its_neighbours() {
    let mut add = op("mail", "en", TermStatus::Admitted);
    add.concept = Some("email".into());
    let (text, what) = run(Some(COMMENTED), &add);
    assert_eq!(what.concept(), "email");
    let want = COMMENTED.replace(
        "  # hyphen\n",
        "  # hyphen\n      - {text: mail, lang: en, status: admitted}\n",
    );
    assert_eq!(text, want);
}

#[test]
fn adds_a_new_concept_after_the_last_one() {
    let mut add = op("Wi-Fi", "en", TermStatus::Preferred);
    add.definition = Some("Wireless networking".into());
    let (text, what) = run(Some(COMMENTED), &add);
    assert_eq!(
        what,
        Upserted::NewConcept {
            concept: "wi-fi".into()
        }
    );
    // The concepts are set apart by a blank line (before the comment that heads one).
    let want = COMMENTED.replace(
            "# end of file\n",
            "\n  - id: wi-fi\n    definition: Wireless networking\n    terms:\n      - text: Wi-Fi\n        lang: en\n        status: preferred\n# end of file\n",
        );
    assert_eq!(text, want);
}

#[test]
fn updating_a_term_rewrites_only_the_changed_lines_of_its_item() {
    // `LOGIN` in `EN` is the `login` term: case-insensitive text, case-insensitive tag.
    let (text, what) = run(Some(COMMENTED), &op("LOGIN", "EN", TermStatus::Forbidden));
    assert_eq!(
        what,
        Upserted::Updated {
            concept: "sign-in".into()
        }
    );
    let (removed, added) = diff(COMMENTED, &text);
    assert_eq!(removed, ["        status: deprecated   # since 2023\n"]);
    assert_eq!(added, ["        status: forbidden   # since 2023\n"]);

    let mut update = op("login", "en", TermStatus::Deprecated);
    update.case = Some(CaseMode::Sensitive);
    update.severity = Some(Severity::Major);
    let (text, _) = run(Some(COMMENTED), &update);
    let (removed, added) = diff(COMMENTED, &text);
    assert!(removed.is_empty());
    assert_eq!(
        added,
        ["        case: sensitive\n", "        severity: major\n"]
    );

    // An empty replacement removes the field.
    let mut clear = op("login", "en", TermStatus::Deprecated);
    clear.replacement = Some(String::new());
    let (text, _) = run(Some(COMMENTED), &clear);
    let (removed, added) = diff(COMMENTED, &text);
    assert_eq!(removed, ["        replacement: sign in\n"]);
    assert!(added.is_empty());
    assert_eq!(parse(&text).concepts[0].terms[1].replacement, None);
}

#[test]
fn updating_a_flow_term_rewrites_its_one_line() {
    let mut update = op("e-mail", "en", TermStatus::Admitted);
    update.note = Some("hyphenated".into());
    let (text, _) = run(Some(COMMENTED), &update);
    let (removed, added) = diff(COMMENTED, &text);
    assert_eq!(
        removed,
        ["      - {text: e-mail, lang: en, status: deprecated}  # hyphen\n"]
    );
    assert_eq!(
        added,
        ["      - {text: e-mail, lang: en, status: admitted, note: hyphenated}  # hyphen\n"]
    );
}

#[test]
fn an_upsert_that_changes_nothing_returns_the_text_unchanged() {
    let cases = [
        (COMMENTED, op("Sign In", "en", TermStatus::Preferred)),
        (COMMENTED, op("e-mail", "en", TermStatus::Deprecated)),
        (
            "version: v1\nconcepts:\n- id: a\n  terms:\n  - text: x\n    lang: en_GB\n    status: preferred",
            op("X", "en-gb", TermStatus::Preferred),
        ),
    ];
    for (file, upsert_op) in cases {
        let (text, what) = run(Some(file), &upsert_op);
        assert!(matches!(what, Upserted::Unchanged { .. }), "{what:?}");
        assert_eq!(text, file);
    }
    let mut same = op("login", "en", TermStatus::Deprecated);
    same.replacement = Some("sign in".into());
    same.case = Some(CaseMode::Insensitive);
    let (text, what) = run(Some(COMMENTED), &same);
    assert_eq!(
        what,
        Upserted::Unchanged {
            concept: "sign-in".into()
        }
    );
    assert_eq!(text, COMMENTED);
}

#[test]
fn crlf_files_stay_crlf() {
    let file = COMMENTED.replace('\n', "\r\n");
    let mut add = op("log on", "en", TermStatus::Deprecated);
    add.replaces = Some("login".into());
    let (text, _) = run(Some(&file), &add);
    let want = COMMENTED
            .replace(
                "        replacement: sign in\n",
                "        replacement: sign in\n      - text: log on\n        lang: en\n        status: deprecated\n",
            )
            .replace('\n', "\r\n");
    assert_eq!(text, want);
    let (text, _) = run(Some(&file), &op("login", "en", TermStatus::Forbidden));
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
    assert!(text.contains("status: forbidden   # since 2023\r\n"));
}

#[test]
fn a_missing_trailing_newline_is_added() {
    let file = "version: v1\nconcepts:\n  - id: a\n    terms:\n      - text: x\n        lang: en\n        status: preferred";
    let (text, _) = run(Some(file), &op("x", "en", TermStatus::Admitted));
    assert_eq!(text, file.replace("preferred", "admitted\n"));
    let (text, _) = run(Some(file), &op("z", "de", TermStatus::Preferred));
    assert!(text.ends_with("status: preferred\n  - id: z\n    terms:\n      - text: z\n        lang: de\n        status: preferred\n"), "{text}");
}

#[test]
fn an_empty_or_missing_concepts_list_gets_a_block_list() {
    let (text, what) = run(
        Some("version: v1\nconcepts: []  # none yet\n"),
        &op("sign in", "en", TermStatus::Preferred),
    );
    assert_eq!(what.concept(), "sign-in");
    assert_eq!(
        text,
        "version: v1\nconcepts:  # none yet\n  - id: sign-in\n    terms:\n      - text: sign in\n        lang: en\n        status: preferred\n"
    );
    let (text, _) = run(
        Some("# Terms\nversion: v1\n"),
        &op("sign in", "en", TermStatus::Preferred),
    );
    assert_eq!(
        text,
        "# Terms\nversion: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - text: sign in\n        lang: en\n        status: preferred\n"
    );
    // `concepts: []` before `version`.
    let (text, _) = run(
        Some("concepts: []\nversion: v1\n"),
        &op("a", "en", TermStatus::Preferred),
    );
    assert!(text.ends_with("status: preferred\nversion: v1\n"), "{text}");
}

#[test]
fn a_concept_without_terms_gets_a_terms_list() {
    let cases = [
        (
            "version: v1\nconcepts:\n  - id: empty\n  - id: other\n",
            "version: v1\nconcepts:\n  - id: empty\n    terms:\n      - text: x\n        lang: en\n        status: preferred\n  - id: other\n",
        ),
        (
            "version: v1\nconcepts:\n  - id: empty\n    terms: []\n",
            "version: v1\nconcepts:\n  - id: empty\n    terms:\n      - text: x\n        lang: en\n        status: preferred\n",
        ),
        (
            // Keys on the line after the dash, items at the key's indentation.
            "version: v1\nconcepts:\n-\n  id: other\n  terms:\n  - text: y\n    lang: en\n    status: preferred\n-\n  id: empty\n",
            "version: v1\nconcepts:\n-\n  id: other\n  terms:\n  - text: y\n    lang: en\n    status: preferred\n-\n  id: empty\n  terms:\n  - text: x\n    lang: en\n    status: preferred\n",
        ),
    ];
    for (file, want) in cases {
        let mut add = op("x", "en", TermStatus::Preferred);
        add.concept = Some("empty".into());
        let (text, what) = run(Some(file), &add);
        assert_eq!(
            what,
            Upserted::Added {
                concept: "empty".into()
            }
        );
        assert_eq!(text, want);
    }
}

#[test]
fn a_missing_file_is_created() {
    let (text, what) = run(None, &op("sign in", "en", TermStatus::Suggested));
    assert_eq!(
        what,
        Upserted::NewConcept {
            concept: "sign-in".into()
        }
    );
    assert_eq!(
        text,
        "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - text: sign in\n        lang: en\n        status: suggested\n"
    );
    let mut full = op("GitHub", "en", TermStatus::Preferred);
    full.concept = Some("code-host".into());
    full.definition = Some("Where the code lives".into());
    full.case = Some(CaseMode::Sensitive);
    full.note = Some("Capital H".into());
    let (text, _) = run(Some("  \n"), &full);
    assert_eq!(
        text,
        "version: v1\nconcepts:\n  - id: code-host\n    definition: Where the code lives\n    terms:\n      - text: GitHub\n        lang: en\n        status: preferred\n        case: sensitive\n        note: Capital H\n"
    );
}

#[test]
fn values_are_quoted_only_when_yaml_needs_it() {
    let mut add = op("Node.js: core", "en", TermStatus::Preferred);
    add.note = Some("yes".into());
    add.replacement = Some("it's #1".into());
    let (text, _) = run(Some(COMMENTED), &add);
    assert!(text.contains("      - text: \"Node.js: core\"\n"), "{text}");
    assert!(text.contains("        note: \"yes\"\n"), "{text}");
    assert!(
        text.contains("        replacement: \"it's #1\"\n"),
        "{text}"
    );
    let term = &parse(&text).concepts[2].terms[0];
    assert_eq!(term.text, "Node.js: core");
    assert_eq!(term.note.as_deref(), Some("yes"));

    #[rustfmt::skip]
        let cases = [
            ("sign in", false, "sign in"),
            ("2FA", false, "2FA"),
            ("it's", false, "it's"),
            ("e-mail", false, "e-mail"),
            ("Zwei-Faktor-Authentifizierung", false, "Zwei-Faktor-Authentifizierung"),
            ("écran", false, "écran"),
            ("yes", false, "\"yes\""),
            ("No", false, "\"No\""),
            ("null", false, "\"null\""),
            ("~", false, "\"~\""),
            ("123", false, "\"123\""),
            ("1.5", false, "\"1.5\""),
            ("0x1F", false, "\"0x1F\""),
            (".inf", false, "\".inf\""),
            ("a: b", false, "\"a: b\""),
            ("a #b", false, "\"a #b\""),
            ("#tag", false, "\"#tag\""),
            ("- item", false, "\"- item\""),
            ("*bold*", false, "\"*bold*\""),
            ("'quoted'", false, "\"'quoted'\""),
            ("say \"hi\"", false, "say \"hi\""),
            ("\"hi\"", false, "\"\\\"hi\\\"\""),
            (" padded", false, "\" padded\""),
            ("two\nlines", false, "\"two\\nlines\""),
            ("key:", false, "\"key:\""),
            ("", false, "\"\""),
            ("a, b", false, "a, b"),
            ("a, b", true, "\"a, b\""),
            ("{x}", true, "\"{x}\""),
            ("sign in", true, "sign in"),
        ];
    for (value, flow, want) in cases {
        let got = scalar(value, flow);
        assert_eq!(got, want, "{value:?}");
        let doc = if flow {
            format!("{{k: {got}}}")
        } else {
            format!("k: {got}")
        };
        let back: serde_yaml::Mapping = serde_yaml::from_str(&doc).expect("reads back");
        assert_eq!(back.get("k").and_then(|v| v.as_str()), Some(value), "{doc}");
    }
}

#[test]
fn replaces_joins_the_concept_of_the_replaced_term_or_id() {
    let mut add = op("log on", "en", TermStatus::Deprecated);
    add.replaces = Some("LOGIN".into());
    let (text, what) = run(Some(COMMENTED), &add);
    assert_eq!(
        what,
        Upserted::Added {
            concept: "sign-in".into()
        }
    );
    assert_eq!(parse(&text).concepts[0].terms[2].text, "log on");

    let mut add = op("se connecter", "fr", TermStatus::Preferred);
    add.replaces = Some("sign-in".into());
    let (_, what) = run(Some(COMMENTED), &add);
    assert_eq!(
        what,
        Upserted::Added {
            concept: "sign-in".into()
        }
    );

    // The concept named wins over `replaces`; an unknown `replaces` makes a new concept.
    let mut add = op("courriel", "fr", TermStatus::Preferred);
    add.concept = Some("email".into());
    add.replaces = Some("login".into());
    assert_eq!(run(Some(COMMENTED), &add).1.concept(), "email");
    let mut add = op("courriel", "fr", TermStatus::Preferred);
    add.replaces = Some("nothing like it".into());
    assert_eq!(
        run(Some(COMMENTED), &add).1,
        Upserted::NewConcept {
            concept: "courriel".into()
        }
    );
}

#[test]
fn matching_respects_case_sensitive_terms_and_languages() {
    let file = "version: v1\nconcepts:\n  - id: product\n    terms:\n      - text: Larkspur\n        lang: en\n        status: preferred\n        case: sensitive\n";
    // The same spelling updates it; another casing is another term.
    let (_, what) = run(Some(file), &op("Larkspur", "en", TermStatus::Admitted));
    assert!(matches!(what, Upserted::Updated { .. }));
    let mut other = op("LarkSpur", "en", TermStatus::Forbidden);
    other.case = Some(CaseMode::Sensitive);
    other.concept = Some("product".into());
    let (text, what) = run(Some(file), &other);
    assert_eq!(
        what,
        Upserted::Added {
            concept: "product".into()
        }
    );
    assert_eq!(parse(&text).concepts[0].terms.len(), 2);
    // Another language is another term too; its new concept gets a unique id.
    let (text, what) = run(Some(file), &op("Larkspur", "fr", TermStatus::Preferred));
    assert_eq!(
        what,
        Upserted::NewConcept {
            concept: "larkspur".into()
        }
    );
    let (_, what) = run(Some(&text), &op("Larkspur!", "de", TermStatus::Preferred));
    assert_eq!(
        what,
        Upserted::NewConcept {
            concept: "larkspur-2".into()
        }
    );
}

#[test]
fn slugs_are_kebab_case() {
    let cases = [
        ("sign in", "sign-in"),
        ("Node.js", "node-js"),
        ("  Wi-Fi  ", "wi-fi"),
        ("two-factor authentication", "two-factor-authentication"),
        (
            "authentification à deux facteurs",
            "authentification-deux-facteurs",
        ),
        ("--C++--", "c"),
        ("à", "term"),
        ("日本語", "term"),
    ];
    for (text, want) in cases {
        assert_eq!(slug(text), want, "{text}");
        assert!(is_slug(&slug(text)));
    }
}

#[test]
fn layouts_that_cannot_be_edited_in_place_are_refused() {
    let add = op("x", "en", TermStatus::Preferred);
    let mut join = op("y", "en", TermStatus::Preferred);
    join.concept = Some("a".into());
    let cases = [
        ("{version: v1, concepts: []}\n", &add),
        ("version: v1\nconcepts: [{id: a, terms: []}]\n", &add),
        ("version: v1\nconcepts:\n  - {id: a, terms: []}\n", &join),
        (
            "version: v1\nconcepts:\n  - id: a\n    terms: [{text: x, lang: de, status: preferred}]\n",
            &join,
        ),
        (
            "version: v1\nconcepts:\n  - id: a\n    definition: &d Shared\n    terms:\n      - text: x\n        lang: en\n        status: admitted\n        note: *d\n",
            &add,
        ),
        ("---\nversion: v1\nconcepts: []\n...\n", &add),
    ];
    for (file, upsert_op) in cases {
        assert!(TermsFile::parse(file, PATH).is_ok(), "{file}");
        match upsert(Some(file), PATH, upsert_op) {
            Err(err @ TermsEditError::Layout { .. }) => {
                let shown = err.to_string();
                assert!(shown.starts_with(PATH), "{shown}");
                assert!(shown.contains("nothing was written"), "{shown}");
                assert!(!err.hints().is_empty());
            }
            other => panic!("{file}: {other:?}"),
        }
    }
    // A concept in flow style can stay as it is when another concept is edited.
    let file = "version: v1\nconcepts:\n  - {id: a, terms: []}\n";
    let (text, _) = run(Some(file), &add);
    assert!(text.starts_with(file), "{text}");
}

#[test]
fn an_edit_that_would_not_read_back_is_refused() {
    // The block scalar's last line looks like a comment: inserting after the last content
    // line would cut it from the note, and the read-back check catches that.
    let file = "version: v1\nconcepts:\n  - id: a\n    terms:\n      - text: x\n        lang: en\n        status: preferred\n        note: |\n          first\n          # second\n";
    assert_eq!(
        parse(file).concepts[0].terms[0].note.as_deref(),
        Some("first\n# second\n")
    );
    let mut add = op("y", "en", TermStatus::Admitted);
    add.concept = Some("a".into());
    let err = upsert(Some(file), PATH, &add).expect_err("refused");
    assert!(matches!(err, TermsEditError::Layout { .. }), "{err:?}");
    assert!(err.to_string().contains("would not read back"), "{err}");
}

#[test]
fn invalid_operations_are_refused() {
    let mut bad_id = op("x", "en", TermStatus::Preferred);
    bad_id.concept = Some("Sign In".into());
    let mut empty_id = op("x", "en", TermStatus::Preferred);
    empty_id.concept = Some(String::new());
    let cases = [
        (op("  ", "en", TermStatus::Preferred), "`text` is empty"),
        (op("x", "", TermStatus::Preferred), "`lang` is empty"),
        (
            op("x", "en GB", TermStatus::Preferred),
            "not a language tag",
        ),
        (bad_id, "`Sign In` is not kebab-case"),
        (empty_id, "is not kebab-case"),
    ];
    for (upsert_op, want) in cases {
        for file in [None, Some(COMMENTED)] {
            match upsert(file, PATH, &upsert_op) {
                Err(err @ TermsEditError::Invalid { .. }) => {
                    let shown = err.to_string();
                    assert!(shown.starts_with(PATH) && shown.contains(want), "{shown}");
                    assert_eq!(err.hints().len(), 1);
                }
                other => panic!("{want}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_broken_existing_file_is_a_parse_error() {
    let cases = [
        "version: v2\nconcepts: []\n",
        "version: v1\nconcepts:\n  - id: a\n    terms:\n      - text: x\n        lang: en\n        status: banned\n",
        "version: v1\nconcepts:\n  - id: [\n",
        "# only a comment\n",
    ];
    for file in cases {
        match upsert(Some(file), PATH, &op("x", "en", TermStatus::Preferred)) {
            Err(err @ TermsEditError::Parse { .. }) => {
                let shown = err.to_string();
                assert!(shown.starts_with(PATH), "{shown}");
                assert!(shown.contains("nothing was written"), "{shown}");
                assert!(err.hints().iter().any(|h| h.contains(PATH)));
            }
            other => panic!("{file}: {other:?}"),
        }
    }
}

#[test]
fn operations_and_outcomes_have_a_stable_json_shape() {
    let json = r#"{"text":"sign in","lang":"en","status":"suggested","replaces":"login"}"#;
    let parsed: TermUpsert = serde_json::from_str(json).expect("parses");
    assert_eq!(parsed.replaces.as_deref(), Some("login"));
    assert_eq!(serde_json::to_string(&parsed).expect("serializes"), json);
    assert!(
        serde_json::from_str::<TermUpsert>(
            r#"{"text":"a","lang":"en","status":"preferred","id":"x"}"#
        )
        .is_err()
    );
    let shown = serde_json::to_string(&Upserted::NewConcept {
        concept: "a".into(),
    })
    .expect("serializes");
    assert_eq!(shown, r#"{"kind":"new_concept","concept":"a"}"#);
}

#[test]
fn every_term_of_the_example_file_can_be_kept_updated_and_joined() {
    let original = parse(EXAMPLE);
    let lines = EXAMPLE.lines().count();
    for (c, concept) in original.concepts.iter().enumerate() {
        for (t, term) in concept.terms.iter().enumerate() {
            let same = op(&term.text, &term.lang, term.status);
            let (text, what) = run(Some(EXAMPLE), &same);
            assert_eq!(
                what,
                Upserted::Unchanged {
                    concept: concept.id.clone()
                }
            );
            assert_eq!(text, EXAMPLE);

            let status = if term.status == TermStatus::Suggested {
                TermStatus::Admitted
            } else {
                TermStatus::Suggested
            };
            let (text, what) = run(Some(EXAMPLE), &op(&term.text, &term.lang, status));
            assert_eq!(
                what,
                Upserted::Updated {
                    concept: concept.id.clone()
                }
            );
            let (removed, added) = diff(EXAMPLE, &text);
            assert_eq!(
                removed,
                [format!("        status: {}\n", term.status.as_str())]
            );
            assert_eq!(added, [format!("        status: {}\n", status.as_str())]);
            let mut want = original.clone();
            want.concepts[c].terms[t].status = status;
            assert_eq!(parse(&text), want);
        }
        let mut add = op(&format!("new word {c}"), "en", TermStatus::Suggested);
        add.concept = Some(concept.id.clone());
        let (text, what) = run(Some(EXAMPLE), &add);
        assert_eq!(
            what,
            Upserted::Added {
                concept: concept.id.clone()
            }
        );
        let (removed, added) = diff(EXAMPLE, &text);
        assert!(removed.is_empty(), "{removed:?}");
        assert_eq!(
            added,
            [
                format!("      - text: new word {c}\n"),
                "        lang: en\n".to_owned(),
                "        status: suggested\n".to_owned(),
            ]
        );
        assert_eq!(text.lines().count(), lines + 3);
    }
    let (text, what) = run(Some(EXAMPLE), &op("Sidebar", "en", TermStatus::Suggested));
    assert_eq!(
        what,
        Upserted::NewConcept {
            concept: "sidebar".into()
        }
    );
    assert_eq!(
        text,
        format!(
            "{EXAMPLE}\n  - id: sidebar\n    terms:\n      - text: Sidebar\n        lang: en\n        status: suggested\n"
        )
    );
}

/// `examples/handbook/.kapi/terms.yaml`, copied.
const EXAMPLE: &str = r#"version: v1
concepts:
  - id: product-name
    definition: The product this handbook documents
    note: Always a capital L and a lower-case s
    terms:
      - text: Larkspur
        lang: en
        status: preferred
        case: sensitive

  - id: sign-in
    definition: Entering your account
    terms:
      - text: sign in
        lang: en
        status: preferred
      - text: sign-in
        lang: en
        status: admitted
        note: As a noun or adjective ("the sign-in page")
      - text: log in
        lang: en
        status: deprecated
        replacement: sign in
      - text: login
        lang: en
        status: deprecated
        replacement: sign in
      - text: se connecter
        lang: fr
        status: preferred
      - text: anmelden
        lang: de
        status: preferred

  - id: sign-out
    definition: Leaving your account on this device
    terms:
      - text: sign out
        lang: en
        status: preferred
      - text: log out
        lang: en
        status: deprecated
        replacement: sign out
      - text: logout
        lang: en
        status: deprecated
        replacement: sign out

  - id: workspace
    definition: The top-level container for a team's pages, members and settings
    terms:
      - text: workspace
        lang: en
        status: preferred
      - text: space
        lang: en
        status: admitted
      - text: espace de travail
        lang: fr
        status: preferred
      - text: Arbeitsbereich
        lang: de
        status: preferred

  - id: page
    definition: One document in a workspace
    terms:
      - text: page
        lang: en
        status: preferred
      - text: note
        lang: en
        status: admitted
      - text: Seite
        lang: de
        status: preferred

  - id: allowlist
    definition: A list of things that are let through
    terms:
      - text: allowlist
        lang: en
        status: preferred
      - text: whitelist
        lang: en
        status: forbidden
        replacement: allowlist

  - id: blocklist
    definition: A list of things that are kept out
    terms:
      - text: blocklist
        lang: en
        status: preferred
      - text: blacklist
        lang: en
        status: forbidden
        replacement: blocklist

  - id: main-branch
    definition: The default branch of a Git repository
    terms:
      - text: main branch
        lang: en
        status: preferred
      - text: master branch
        lang: en
        status: forbidden
        replacement: main branch

  - id: two-factor-authentication
    definition: Signing in with a password and a second proof, such as a code
    terms:
      - text: two-factor authentication
        lang: en
        status: preferred
      - text: 2FA
        lang: en
        status: admitted
        case: sensitive
      - text: two-step verification
        lang: en
        status: deprecated
        replacement: two-factor authentication
      - text: authentification à deux facteurs
        lang: fr
        status: preferred
      - text: Zwei-Faktor-Authentifizierung
        lang: de
        status: preferred

  - id: nodejs
    definition: The JavaScript runtime the SDK runs on
    terms:
      - text: Node.js
        lang: en
        status: preferred
        case: sensitive
      - text: NodeJS
        lang: en
        status: deprecated
        replacement: Node.js

  - id: email
    definition: Electronic mail
    terms:
      - text: email
        lang: en
        status: preferred
      - text: e-mail
        lang: en
        status: deprecated
        replacement: email
      - text: courriel
        lang: fr
        status: preferred

  - id: api-token
    definition: A secret string that lets a script act as a member
    terms:
      - text: API token
        lang: en
        status: preferred
      - text: API key
        lang: en
        status: deprecated
        replacement: API token

  - id: select
    definition: Choosing a control with a mouse, keyboard or touch
    terms:
      - text: select
        lang: en
        status: preferred
      - text: click on
        lang: en
        status: deprecated
        replacement: select

  - id: administrator
    definition: A member who manages a workspace's settings and billing
    terms:
      - text: administrator
        lang: en
        status: preferred
      - text: admin
        lang: en
        status: admitted

  - id: single-sign-on
    definition: Signing in through the company's identity provider
    terms:
      - text: single sign-on
        lang: en
        status: preferred
      - text: SSO
        lang: en
        status: admitted
        case: sensitive

  - id: dark-mode
    definition: The light-on-dark colour scheme
    terms:
      - text: dark mode
        lang: en
        status: preferred
      - text: night mode
        lang: en
        status: deprecated
        replacement: dark mode

  - id: placeholder
    definition: A stand-in value the reader replaces
    terms:
      - text: placeholder
        lang: en
        status: preferred
      - text: dummy
        lang: en
        status: forbidden
        replacement: placeholder

  - id: other-note-apps
    definition: Other note-taking products, which the handbook does not name
    terms:
      - text: Evernote
        lang: en
        status: competitor
      - text: Obsidian
        lang: en
        status: competitor
"#;

/// A term with exceptions as a block list (a comment on its key), one with a flow list.
const EXCEPTIONS: &str = "\
version: v1
concepts:
  - id: react
    terms:
      - text: React
        lang: en
        status: preferred
      - text: ReactJS
        lang: en
        status: forbidden
        exceptions:   # events
          - ReactJS Day
          - \"ReactJS Conf, Paris\"
        note: old name
      - {text: React.js, lang: en, status: forbidden, exceptions: [React.js Summit]}  # flow
";

fn exceptions_of(text: &str, term: usize) -> Vec<String> {
    parse(text).concepts[0].terms[term].exceptions.clone()
}

#[test]
fn exceptions_survive_every_update_of_their_term() {
    let mut update = op("ReactJS", "en", TermStatus::Deprecated);
    update.replacement = Some("React".into());
    let (text, _) = run(Some(EXCEPTIONS), &update);
    let want = EXCEPTIONS
        .replace(
            "status: forbidden\n        exceptions:",
            "status: deprecated\n        exceptions:",
        )
        .replace(
            "        note: old name\n",
            "        note: old name\n        replacement: React\n",
        );
    assert_eq!(text, want);
    assert_eq!(
        exceptions_of(&text, 1),
        ["ReactJS Day", "ReactJS Conf, Paris"]
    );
    let mut flow = op("React.js", "en", TermStatus::Deprecated);
    flow.note = Some("old name".into());
    let (text, _) = run(Some(EXCEPTIONS), &flow);
    let (removed, added) = diff(EXCEPTIONS, &text);
    assert_eq!(
        (removed, added),
        (
            vec![
                "      - {text: React.js, lang: en, status: forbidden, exceptions: [React.js Summit]}  # flow\n"
            ],
            vec![
                "      - {text: React.js, lang: en, status: deprecated, exceptions: [React.js Summit], note: old name}  # flow\n"
            ]
        )
    );
    // Kept from a person's review (a term upsert that names no exceptions): unchanged.
    let (text, what) = run(
        Some(EXCEPTIONS),
        &op("ReactJS", "en", TermStatus::Forbidden),
    );
    assert!(matches!(what, Upserted::Unchanged { .. }), "{what:?}");
    assert_eq!(text, EXCEPTIONS);
}

#[test]
fn an_upsert_sets_replaces_and_clears_exceptions() {
    let with = |text: &str, status, list: &[&str]| {
        let mut o = op(text, "en", status);
        o.exceptions = Some(list.iter().map(|s| (*s).to_owned()).collect());
        o
    };
    // A block list stays a block list, its key's comment kept.
    let (text, _) = run(
        Some(EXCEPTIONS),
        &with(
            "ReactJS",
            TermStatus::Forbidden,
            &["ReactJS Day", "ReactJS: the Conf"],
        ),
    );
    let (removed, added) = diff(EXCEPTIONS, &text);
    assert_eq!(removed, ["          - \"ReactJS Conf, Paris\"\n"]);
    assert_eq!(added, ["          - \"ReactJS: the Conf\"\n"]);
    // A flow list is rewritten in its line; an empty list removes the key.
    let (text, _) = run(
        Some(EXCEPTIONS),
        &with(
            "React.js",
            TermStatus::Forbidden,
            &["React.js Summit", "React.js, Berlin"],
        ),
    );
    assert!(text.contains(
        "      - {text: React.js, lang: en, status: forbidden, exceptions: [React.js Summit, \"React.js, Berlin\"]}  # flow\n"
    ), "{text}");
    let (text, _) = run(
        Some(EXCEPTIONS),
        &with("ReactJS", TermStatus::Forbidden, &[]),
    );
    let (removed, added) = diff(EXCEPTIONS, &text);
    assert_eq!(
        removed,
        [
            "        exceptions:   # events\n",
            "          - ReactJS Day\n",
            "          - \"ReactJS Conf, Paris\"\n"
        ]
    );
    assert!(added.is_empty(), "{added:?}");
    // A new term, and a new key on a term that had none, get a flow list.
    let (text, _) = run(
        Some(EXCEPTIONS),
        &with("React", TermStatus::Preferred, &["React Native"]),
    );
    let (_, added) = diff(EXCEPTIONS, &text);
    assert_eq!(added, ["        exceptions: [React Native]\n"]);
    let (text, _) = run(
        None,
        &with("Vue.js", TermStatus::Forbidden, &["Vue.js Nation"]),
    );
    assert!(
        text.ends_with("        status: forbidden\n        exceptions: [Vue.js Nation]\n"),
        "{text}"
    );
    assert_eq!(
        parse(&text).concepts[0].terms[0].exceptions,
        ["Vue.js Nation"]
    );
    // An exception without the term is refused with the fix; nothing is written.
    let err = upsert(
        Some(EXCEPTIONS),
        PATH,
        &with("ReactJS", TermStatus::Forbidden, &["React Day"]),
    )
    .expect_err("an exception without the term");
    let shown = err.to_string();
    assert!(
        shown.contains("`React Day` does not contain the term `ReactJS`"),
        "{shown}"
    );
    assert!(
        err.hints()[0].contains("`ReactJS Day`"),
        "{:?}",
        err.hints()
    );
}
