//! translate-toolkit's own cases for each check (`tests/translate/filters/checks/`), with the
//! verdict pofilter gives, and kapi's choices where it differs.

use super::*;
use crate::model::{Branch, SwitchKind};

fn ed(text: &str) -> Edition {
    Edition::new(vec![Run::text(text)])
}

fn rules_in(lang: &str, markers: &[char], source: &str, target: &str) -> Vec<&'static str> {
    compare(&ed(source), &ed(target), lang, markers)
        .iter()
        .map(|(m, _)| m.rule.id)
        .collect()
}

fn rules(source: &str, target: &str) -> Vec<&'static str> {
    rules_in("xx", &[], source, target)
}

fn passes(rule: &Rule, lang: &str, source: &str, target: &str) -> bool {
    !rules_in(lang, &['&'], source, target).contains(&rule.id)
}

#[test]
fn end_punctuation_follows_pofilter_across_languages() {
    let e = &END_PUNCTUATION;
    assert!(passes(e, "xx", "Question?", "Correct?"));
    assert!(!passes(e, "xx", " Question?", "Wrong ?"));
    assert!(!passes(
        e,
        "xx",
        "Exit change recording mode?\n\n",
        "Phuma esimeni sekugucula kubhalisa.\n\n"
    ));
    assert!(passes(
        e,
        "xx",
        "A nickname that identifies this publishing site (e.g.: 'MySite')",
        "Vito ro duvulela leri tirhisiwaka ku kuma sayiti leri ro kandziyisa (xik.: 'Sayiti ra Mina')"
    ));
    assert!(!passes(e, "xx", "Question", "Wrong\u{2026}"));
    assert!(passes(
        e,
        "xx",
        "Pseudo-elements can't be negated '%1$S'.",
        "Pseudo-elemente kan nie '%1$S' ontken word nie."
    ));
    assert!(passes(
        e,
        "zh",
        "To activate your account, follow this link:\n",
        "要啟用戶口，請瀏覽這個鏈結：\n"
    ));
    assert!(passes(e, "zh", "Saved.", "已保存。"));
    assert!(passes(e, "ja", "Saved.", "保存しました。"));
    assert!(!passes(e, "ja", "Saved.", "保存しました"));
    assert!(passes(
        e,
        "vi",
        "Do you want to delete the XX dialog?",
        "Bạn có muốn xoá hộp thoại XX không?"
    ));
    assert!(passes(e, "fr", "Header:", "En-tête :"));
    assert!(passes(e, "fr", "Header:", "En-tête\u{a0}:"));
    assert!(!passes(e, "fr", "Header:", "En-tête:"));
    assert!(passes(e, "el", "Why?", "Γιατί;"));
    assert!(passes(e, "km", "In this version.", "នៅ\u{a0}។"));
    assert!(passes(e, "de", "Open…", "Öffnen…"));
    assert!(!passes(e, "de", "Open…", "Öffnen"));
}

#[test]
fn start_punctuation_knows_spanish_inverted_marks() {
    let s = &START_PUNCTUATION;
    assert!(passes(
        s,
        "es",
        "Do you want to reload the file?",
        "¿Quiere recargar el archivo?"
    ));
    assert!(!passes(
        s,
        "es",
        "Do you want to reload the file?",
        "Quiere recargar el archivo?"
    ));
    assert!(passes(s, "af", "A human?", "'n Mens?"));
    assert!(passes(s, "xx", "(optional)", "(facultatif)"));
    assert!(!passes(s, "xx", "(optional)", "facultatif)"));
    // A placeholder moved from the start is masked (pofilter reads `%` as punctuation).
    let runs = |text: &str| {
        crate::formats::inline::placeholders::split(
            text,
            None,
            crate::formats::inline::placeholders::Syntaxes::PRINTF,
            &mut crate::formats::inline::placeholders::Ids::default(),
        )
    };
    let got = compare(
        &Edition::new(runs("%s files")),
        &Edition::new(runs("Fichiers : %s")),
        "fr",
        &[],
    );
    assert!(got.iter().all(|(m, _)| m.rule.id != s.id), "{got:?}");
}

#[test]
fn brackets_whitespace_spacing_and_newlines() {
    assert_eq!(rules("N number(s)", "N getal(le)"), Vec::<&str>::new());
    assert_eq!(
        rules("For {sic} numbers", "Vier getalle"),
        ["translation.brackets"]
    );
    assert!(passes(&BRACKETS, "xx", "{[(", "[({"));
    assert!(!passes(&BRACKETS, "xx", "Size (MB)", "Taille (Mo"));
    assert_eq!(rules("A setence. ", "I'm correct. "), Vec::<&str>::new());
    assert!(!passes(
        &END_WHITESPACE,
        "xx",
        "A setence. ",
        "'I'm incorrect."
    ));
    assert!(passes(
        &END_WHITESPACE,
        "zh",
        "Init. Limit: ",
        "起始时间限制："
    ));
    assert_eq!(
        rules(
            "Sentence.  Another sentence.",
            "Sin. Missing the double space."
        ),
        ["translation.double-space"]
    );
    assert_eq!(rules("Correct\r\n", "Korrek\r\n"), Vec::<&str>::new());
    for (s, t) in [
        ("A file\n", "'n Leer"),
        ("A file", "'n Leer\n"),
        ("A file\n", "'n Leer\r\n"),
        ("One two\n", "Een\ntwee"),
        ("\nOne two", "Een\ntwee"),
    ] {
        assert!(
            rules(s, t).contains(&"translation.newlines"),
            "{s:?} {t:?}: {:?}",
            rules(s, t)
        );
    }
    assert_eq!(rules(" of", "sur"), ["translation.start-whitespace"]);
}

#[test]
fn escapes_numbers_urls_and_emails() {
    assert!(rules("A double quote \\\"", "Double quote").contains(&"translation.escapes"));
    assert!(
        !rules("An escaped newline \\n", "Escaped newline \\n").contains(&"translation.escapes")
    );
    assert!(rules("An escaped newline \\n", "Escaped newline \n").contains(&"translation.escapes"));
    let n = &NUMBERS;
    assert!(!passes(n, "xx", "180° turn", "360 turn"));
    assert!(passes(n, "xx", "180~ turn", "180 turn"));
    assert!(passes(n, "xx", "12.34.56", "12.34.56"));
    assert!(!passes(n, "xx", "R57.60", "R57,60"));
    assert!(passes(
        n,
        "xx",
        "40-bit RC2 encryption with RSA and an MD5",
        "Umbhalo ocashile i-RC2 onamabhithi angu-40 one-RSA ne-MD5"
    ));
    // Native digits count, in the translation too.
    assert!(passes(
        n,
        "ar",
        "Tags are limited to 25 characters",
        "أقصى طول للوسم ٢٥ حرفًا"
    ));
    assert!(passes(n, "bn", "Version 3", "সংস্কৰণ ৩"));
    assert!(!passes(
        n,
        "xx",
        "Use 8 characters",
        "Utilisez 6 caractères"
    ));
    assert!(!passes(
        &URLS,
        "xx",
        "See https://example.com/help",
        "Voir https://exemple.com/aide"
    ));
    assert!(passes(
        &URLS,
        "xx",
        "See http://a.org and www.b.org",
        "Voir www.b.org et http://a.org"
    ));
    assert!(!passes(
        &EMAILS,
        "xx",
        "Write to help@example.com",
        "Écrivez à aide@exemple.com"
    ));
}

#[test]
fn accelerators_by_marker_and_language() {
    let a = |lang: &str, s: &str, t: &str| {
        rules_in(lang, &['_', '&'], s, t).contains(&"translation.accelerators")
    };
    assert!(!a("fr", "_Open", "_Ouvrir"));
    assert!(a("fr", "_Open", "Ouvrir"));
    assert!(a("fr", "Open", "_Ouvrir"));
    assert!(a("fr", "_Open", "_Ou_vrir"));
    assert!(!a("fr", "&File", "&Fichier"));
    // `é` is a French accelerator letter; `ß` is none for German (no list: it decomposes?
    // no, but `ä` does).
    assert!(!a("fr", "&Edit", "&Édition"));
    assert!(a("de", "&Edit", "&Ändern"));
    assert!(!a("de", "&Edit", "Ä&ndern"));
    // Nepali ignores accelerators, as translate-toolkit has it.
    assert!(!a("ne", "&File", "फाइल"));
    // No marker, no check (JSON, Android).
    assert!(!rules("_Open", "Ouvrir").contains(&"translation.accelerators"));
    assert_eq!(
        accelerator_markers("locale/fr/LC_MESSAGES/django.po"),
        ['_', '&']
    );
    assert_eq!(
        accelerator_markers("res/values-fr/strings.xml"),
        [] as [char; 0]
    );
    assert_eq!(accelerator_markers("i18n/Messages_fr.properties"), ['&']);
}

#[test]
fn long_and_short() {
    assert_eq!(rules("X", "Fermer la fenêtre"), ["translation.too-long"]);
    assert_eq!(
        rules("Delete the selected files", "S"),
        ["translation.too-short"]
    );
    assert!(rules("Delete the selected files now", "Supprimer").is_empty());
}

#[test]
fn untranslated_and_blank_targets_are_not_checked() {
    assert!(rules("Open file…\n", "").is_empty());
    assert!(rules("Open file…\n", "   ").is_empty());
}

#[test]
fn plural_forms_pair_by_category_and_report_each_rule_once() {
    let switch = |branches: Vec<(&str, &str)>| {
        Edition::new(vec![Run::Switch(Box::new(Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "n".into(),
            branches: branches
                .into_iter()
                .map(|(c, t)| Branch::new(c, vec![Run::text(t)]))
                .collect(),
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        }))])
    };
    let source = switch(vec![("one", "%d file."), ("other", "%d files.")]);
    let target = switch(vec![
        ("one", "%d файл"),
        ("few", "%d файла"),
        ("many", "%d файлов"),
    ]);
    let got: Vec<&str> = compare(&source, &target, "ru", &[])
        .iter()
        .map(|(m, _)| m.rule.id)
        .collect();
    assert_eq!(got, ["translation.end-punctuation"]);
    let fine = switch(vec![
        ("one", "%d файл."),
        ("few", "%d файла."),
        ("many", ""),
    ]);
    assert!(compare(&source, &fine, "ru", &[]).is_empty());
}

/// Where kapi reads real catalogs more precisely than pofilter (measured on Django's PO
/// files, `bench/RESULTS.md`).
#[test]
fn kapi_s_precision_choices() {
    // `&amp;` is a character reference, not an accelerator on `a`.
    assert!(
        !rules_in("fr", &['&'], "Topics &amp; how-to’s", "Sujets et guides")
            .contains(&"translation.accelerators")
    );
    // Quotation marks are each language's own.
    assert!(passes(
        &START_PUNCTUATION,
        "ru",
        "“Name” is not valid.",
        "Значение «Name» недопустимо."
    ));
    // A full-width bracket is a bracket; a pair the translation adds is its own.
    assert!(passes(
        &BRACKETS,
        "ja",
        "Date (with time)",
        "日付（時刻付き）"
    ));
    assert!(passes(&BRACKETS, "fr", "English", "Anglais (US)"));
    assert!(!passes(&BRACKETS, "fr", "English", "Anglais (US"));
    // An abbreviation's period, and full-width marks.
    assert!(passes(&END_PUNCTUATION, "fr", "Jan.", "janv"));
    assert!(passes(&END_PUNCTUATION, "ja", "Jan.", "1月"));
    assert!(!passes(&END_PUNCTUATION, "fr", "Saved.", "Enregistré"));
    assert!(passes(
        &END_PUNCTUATION,
        "ja",
        "It worked!",
        "成功しました！"
    ));
    // One ideograph is a word.
    assert!(passes(&TOO_SHORT, "zh", "Yes", "是"));
    // A line break at an end is what `msgfmt -c` refuses (major); one more inside is minor.
    let severity = |s: &str, t: &str| {
        compare(&ed(s), &ed(t), "fr", &[])
            .into_iter()
            .find(|(m, _)| m.rule.id == NEWLINES.id)
            .map(|(_, severity)| severity)
    };
    assert_eq!(severity("Done.\n", "Fini."), Some(Severity::Major));
    assert_eq!(severity("One. Two.", "Un.\nDeux."), Some(Severity::Minor));
    assert_eq!(severity("One. Two.", "Un. Deux."), None);
}

/// Inputs that a scan from each mark to the end would make quadratic: each stays linear
/// (a quadratic check of these 100,000 characters takes minutes; this runs in seconds in a
/// debug build).
#[test]
fn long_texts_of_marks_are_checked_in_linear_time() {
    let n = 100_000;
    let started = std::time::Instant::now();
    for (source, target) in [
        ("“".repeat(n), "“".repeat(n - 1)),
        ("\"a".repeat(n / 2), "'b".repeat(n / 2)),
        ("&amp;".repeat(n / 5), "&a".repeat(n / 2)),
        (
            (0..n / 8).map(|i| format!("{i} ")).collect(),
            "1 ".repeat(n / 2),
        ),
        ("http://a.b ".repeat(n / 11), "http://c.d ".repeat(n / 11)),
        ("x@y.z ".repeat(n / 6), "x@y.w ".repeat(n / 6)),
    ] {
        for lang in ["fr", "es", "zh", "de"] {
            compare(&ed(&source), &ed(&target), lang, &['_', '&']);
        }
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_plural_suffix_in_a_one_text_source_is_no_bracket_its_forms_must_keep() {
    assert_eq!(
        super::drop_plural_suffixes("%n file(s) (all)"),
        "%n file (all)"
    );
    assert_eq!(super::drop_plural_suffixes("Datei(en) (x"), "Datei (x");
    assert_eq!(super::drop_plural_suffixes("f(x) ((a)"), "f ((a)");
    let source = Edition::new(vec![Run::text("%n contact(s)")]);
    let switch = Switch {
        id: "1".into(),
        kind: crate::model::SwitchKind::Plural,
        pivot: "n".into(),
        branches: vec![
            crate::model::Branch::new("one", vec![Run::text("%n контакт")]),
            crate::model::Branch::new("few", vec![Run::text("%n контакта")]),
        ],
        head: String::new(),
        tail: String::new(),
        src: None,
        forms: None,
    };
    let target = Edition::new(vec![Run::Switch(Box::new(switch))]);
    let found = super::compare(&source, &target, "ru", &[]);
    assert!(found.is_empty(), "{found:?}");
    let plain = Edition::new(vec![Run::text("%n контакт")]);
    let found = super::compare(&source, &plain, "ru", &[]);
    assert_eq!(
        found.len(),
        1,
        "a plain translation keeps its brackets: {found:?}"
    );
}

#[test]
fn a_url_ends_before_its_sentences_punctuation_and_script() {
    let source = "Read more here: https://docs.rs/regex.";
    for target in [
        "더 알고 싶다면 https://docs.rs/regex를 방문하세요.",
        "更多資訊： https://docs.rs/regex。",
        "Mehr unter https://docs.rs/regex.",
    ] {
        assert!(
            !rules(source, target).contains(&"translation.urls"),
            "{target}"
        );
    }
    assert!(rules(source, "Mehr unter https://docs.rs/regexp.").contains(&"translation.urls"));
}
