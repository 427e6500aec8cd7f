//! translate-toolkit's functional checks (`translation.*`) through the binary, their
//! precision on real Django catalogs, and a gettext source problem reported once per
//! catalog (on its `.pot`, else its first language file), not once per language.

use super::{Kapi, testdata};

const HEADER: &str = "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Language: fr\\n\"\n\n";

/// The `translation.*` findings of a report, as `(block, rule, severity)`, sorted.
fn functional(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|r| r.starts_with("translation."))
        })
        .map(|f| {
            (
                f["block"].as_str().unwrap_or_default().to_owned(),
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["severity"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn triple(block: &str, rule: &str, severity: &str) -> (String, String, String) {
    (block.to_owned(), rule.to_owned(), severity.to_owned())
}

#[test]
fn a_po_file_s_functional_slips_are_findings_with_their_severities() {
    let kapi = Kapi::empty();
    kapi.write(
        "fr.po",
        format!(
            "{HEADER}msgid \"Done.\\n\"\nmsgstr \"Terminé.\"\n\n\
             msgid \"Open file…\"\nmsgstr \"Ouvrir un fichier\"\n\n\
             msgid \"_Quit\"\nmsgstr \"Quitter\"\n\n\
             msgid \"See https://example.com/help\"\nmsgstr \"Voir https://exemple.com/aide\"\n\n\
             msgid \"Use at least 8 characters\"\nmsgstr \"Utilisez au moins 6 caractères\"\n\n\
             msgid \"Size (in MB)\"\nmsgstr \"Taille (en Mo\"\n\n\
             msgid \"Password: \"\nmsgstr \"Mot de passe :\"\n\n\
             msgid \"Name:\"\nmsgstr \"Nom :\"\n"
        ),
    );
    let run = kapi.run(&["check", "fr.po", "--json"]);
    // A line break lost at the end is major (what `msgfmt -c` refuses): the gate fails.
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(
        functional(&run.json()),
        [
            triple("Done.\\n", "translation.newlines", "major"),
            triple("Open file…", "translation.end-punctuation", "info"),
            triple("Password: ", "translation.end-whitespace", "minor"),
            triple("See https://example.com/help", "translation.urls", "minor"),
            triple("Size (in MB)", "translation.brackets", "minor"),
            triple("Use at least 8 characters", "translation.numbers", "minor"),
            triple("_Quit", "translation.accelerators", "minor"),
        ]
    );
    // The text output names the rule and the language.
    let text = kapi.run(&["check", "fr.po"]);
    assert!(
        text.stdout.contains(
            "minor translation.accelerators the translation lacks the source's accelerator `_` (fr)"
        ),
        "{}",
        text.transcript()
    );
}

#[test]
fn a_translation_that_keeps_its_source_s_form_passes() {
    let kapi = Kapi::empty();
    kapi.write(
        "fr.po",
        format!(
            "{HEADER}msgid \"Done.\\n\"\nmsgstr \"Terminé.\\n\"\n\n\
             msgid \"Open file…\"\nmsgstr \"Ouvrir un fichier…\"\n\n\
             msgid \"_Quit\"\nmsgstr \"_Quitter\"\n\n\
             msgid \"Name:\"\nmsgstr \"Nom :\"\n\n\
             msgid \"Really?\"\nmsgstr \"Vraiment ?\"\n\n\
             msgid \"Topics &amp; how-to’s\"\nmsgstr \"Sujets et guides\"\n\n\
             msgid \"Untranslated.\"\nmsgstr \"\"\n"
        ),
    );
    let run = kapi.run(&["check", "fr.po", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(functional(&run.json()), []);
    assert!(
        run.json()["coverage"]["ran"]
            .as_array()
            .is_some_and(|r| r.iter().any(|a| a == "translation")),
        "{}",
        run.stdout
    );
}

/// Django's own French and Chinese catalogs (570 messages): no functional finding at the
/// gate's severity, and few at minor (each a real slip: a trailing space, a changed link).
#[test]
fn real_django_catalogs_keep_functional_findings_rare() {
    let kapi = Kapi::empty();
    for name in ["django-admin-fr-django.po", "django-conf-zh_Hans-django.po"] {
        let text = std::fs::read(testdata().join("realdocs/po").join(name)).expect("a catalog");
        kapi.write(name, text);
    }
    let run = kapi.run(&[
        "check",
        "django-admin-fr-django.po",
        "django-conf-zh_Hans-django.po",
        "--json",
    ]);
    assert!(run.code == 0 || run.code == 3, "{}", run.transcript());
    let found = functional(&run.json());
    let at = |severity: &str| found.iter().filter(|f| f.2 == severity).count();
    assert_eq!(at("critical") + at("major"), 0, "{found:#?}");
    assert!(at("minor") <= 8, "{found:#?}");
    assert!(!found.is_empty(), "the checks ran");
}

const TYPO_POT: &str = "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Delete the the file\"\nmsgstr \"\"\n";

fn typo_po(lang: &str, text: &str) -> String {
    format!(
        "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Language: {lang}\\n\"\n\nmsgid \"Delete the the file\"\nmsgstr \"{text}\"\n"
    )
}

/// The files a report's `hygiene.repeated-word` findings name.
fn typo_paths(kapi: &Kapi) -> Vec<String> {
    let run = kapi.run(&["check", "--json"]);
    assert!(run.code == 0 || run.code == 3, "{}", run.transcript());
    let report = run.json();
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "hygiene.repeated-word")
        .map(|f| f["path"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_source_problem_is_reported_once_on_the_catalog_s_template() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ncollections:\n  - path: \"locale/**/*.po*\"\n",
    );
    kapi.write("locale/django.pot", TYPO_POT);
    kapi.write(
        "locale/de/LC_MESSAGES/django.po",
        typo_po("de", "Die Datei löschen"),
    );
    kapi.write(
        "locale/fr/LC_MESSAGES/django.po",
        typo_po("fr", "Supprimer le fichier"),
    );
    assert_eq!(typo_paths(&kapi), ["locale/django.pot"]);
    // A language file checked alone still reports its source.
    let run = kapi.run(&["check", "locale/fr/LC_MESSAGES/django.po", "--json"]);
    let report = run.json();
    assert!(
        report["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["rule"] == "hygiene.repeated-word")),
        "{}",
        run.stdout
    );
    // And the report counts every file it checked.
    let all = kapi.run(&["check", "--json"]).json();
    assert_eq!(all["target"]["files"], 3, "{all}");
}

#[test]
fn without_a_template_a_source_problem_is_reported_on_the_first_language_file() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ncollections:\n  - path: \"locale/**/*.po\"\n",
    );
    kapi.write(
        "locale/de/LC_MESSAGES/django.po",
        typo_po("de", "Die Datei löschen"),
    );
    kapi.write(
        "locale/fr/LC_MESSAGES/django.po",
        typo_po("fr", "Supprimer le fichier"),
    );
    assert_eq!(typo_paths(&kapi), ["locale/de/LC_MESSAGES/django.po"]);
}

#[test]
fn po_files_named_by_language_share_their_folder_s_template() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ncollections:\n  - path: \"po/*\"\n",
    );
    kapi.write("po/app.pot", TYPO_POT);
    kapi.write("po/de.po", typo_po("de", "Die Datei löschen"));
    kapi.write("po/pt_BR.po", typo_po("pt-BR", "Excluir o arquivo"));
    assert_eq!(typo_paths(&kapi), ["po/app.pot"]);
    // Another domain is another catalog: its own source is checked.
    kapi.write("po/other/errors.po", typo_po("fr", "Supprimer le fichier"));
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: app\ncollections:\n  - path: \"po/**/*\"\n",
    );
    assert_eq!(typo_paths(&kapi), ["po/app.pot", "po/other/errors.po"]);
}

/// The commit check holds an edit of a translation to the functional checks too: a lost
/// final line break (what `msgfmt -c` refuses) is refused, nothing written.
#[test]
fn an_edit_that_loses_a_final_line_break_is_refused() {
    use super::apply::{apply, set, shop, statuses};
    use serde_json::json;
    let kapi = shop().env("KAPI_ACTOR", "agent:test");
    kapi.write("locales/en.json", "{\n  \"done\": \"Done.\\n\"\n}\n");
    kapi.write("locales/fr.json", "{\n  \"done\": \"Fini.\\n\"\n}\n");
    let before = kapi.read("locales/fr.json");
    let read = kapi
        .run(&["inspect", "locales/en.json", "--editions", "fr", "--json"])
        .json();
    let rev = read["blocks"][0]["editions"]["fr"]["rev"].clone();
    let at = json!({"doc": "locales/en.json", "block": "done", "edition": "fr"});
    let change =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "Terminé."}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(statuses(&run), ["gate_failed"], "{}", run.stdout);
    let findings = &run.json()["operations"][0]["findings"];
    assert_eq!(findings[0]["rule"], "translation.newlines", "{findings}");
    assert_eq!(kapi.read("locales/fr.json"), before);
    // With its line break the edit lands.
    let change =
        set(json!([{"op": "set_content", "at": at, "if_match": rev, "content": "Terminé.\n"}]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
}
