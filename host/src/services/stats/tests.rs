use std::path::Path;

use super::*;
use crate::env::Env;
use crate::services::translation::tests::app;

const RECIPE: &str = "version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr, de]
collections:
  - path: \"docs/**/*.md\"
  - name: app
    content:
      - path: \"locales/en.json\"
        target: \"locales/{lang}.json\"
  - path: \"po/*.po\"
  - path: \"xliff/*.xlf\"
";

const GUIDE: &str =
    "# Guide\n\nOpen the [dashboard](/dash) for **{name}**.\n\n```sh\nkapi check\n```\n\n- one\n";

const EN: &str = r#"{
  "greeting": "Hello {name}",
  "bye": "Goodbye",
  "thanks": "Thanks {name}",
  "new": "New",
  "items": "{count, plural, one {# item} other {# items}}",
  "empty": "Empty"
}
"#;

/// `greeting` and `items` translated, `bye` a copy, `thanks` a lost placeholder, `new`
/// absent, `empty` empty.
const FR: &str = r#"{
  "greeting": "Bonjour {name}",
  "bye": "Goodbye",
  "thanks": "Merci",
  "items": "{count, plural, one {# article} other {# articles}}",
  "empty": ""
}
"#;

/// `Open` translated, `Close` empty, `Save` fuzzy.
const PO: &str = "msgid \"\"\nmsgstr \"Language: fr\\n\"\n\nmsgid \"Open\"\nmsgstr \"Ouvrir\"\n\nmsgid \"Close\"\nmsgstr \"\"\n\n#, fuzzy\nmsgid \"Save\"\nmsgstr \"Sauver\"\n";

/// Unit `a` translated, `b` without a `<target>`.
const XLIFF: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="x">
    <body>
      <trans-unit id="a"><source>Open the file</source><target>Datei öffnen</target></trans-unit>
      <trans-unit id="b"><source>Close it</source></trans-unit>
    </body>
  </file>
</xliff>
"#;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("kapi.yaml", RECIPE),
        ("docs/guide.md", GUIDE),
        ("locales/en.json", EN),
        ("locales/fr.json", FR),
        ("po/fr.po", PO),
        ("xliff/de.xlf", XLIFF),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// `stats` of `paths` as the command line resolves them, from the project root.
fn run(app: &App, paths: &[&str]) -> Result<Report, HostError> {
    let project = app.project()?;
    let resolved = paths
        .iter()
        .map(|p| app.resolve(project.as_ref(), Path::new(p)))
        .collect::<Result<Vec<_>, _>>()?;
    stats(app, project.as_ref(), &resolved)
}

fn file<'a>(report: &'a Report, path: &str) -> &'a FileStats {
    report
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path} in {:?}", report.files))
}

fn edition<'a>(file: &'a FileStats, name: &str) -> &'a EditionStats {
    file.editions
        .iter()
        .find(|e| e.edition == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", file.editions))
}

fn progress(e: &EditionStats) -> (Option<usize>, Option<usize>, Option<usize>, Option<usize>) {
    (e.total, e.translated, e.missing, e.stale)
}

#[test]
fn the_project_form_counts_every_declared_file_and_its_editions() {
    let dir = project();
    let report = run(&app(dir.path(), None), &[]).unwrap();
    assert_eq!(report.schema, "kapi.stats/v1");
    let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "docs/guide.md",
            "locales/en.json",
            "po/fr.po",
            "xliff/de.xlf"
        ]
    );
    assert!(report.errors.is_empty() && report.remark.is_none());
    // Markdown: heading, paragraph, code block, list item; the code block is no prose.
    let guide = file(&report, "docs/guide.md");
    let c = &guide.counts;
    assert_eq!((c.blocks, c.translatable), (4, 3));
    // Guide / Open the dashboard for / one; `{name}` is a code, not a word.
    assert_eq!((c.words, c.characters), (6, 32));
    assert_eq!(
        (c.codes, c.switches),
        (3, 0),
        "a link and bold pair, {{name}}"
    );
    assert_eq!(guide.editions.len(), 1, "no target template");
    assert_eq!(guide.editions[0].lang.as_deref(), Some("en"));
}

#[test]
fn a_catalog_counts_its_plural_and_its_target_files() {
    let dir = project();
    let report = run(&app(dir.path(), None), &["locales/en.json"]).unwrap();
    let en = file(&report, "locales/en.json");
    let c = &en.counts;
    assert_eq!((c.blocks, c.translatable, c.words), (6, 6, 7));
    assert_eq!(
        (c.codes, c.switches),
        (4, 1),
        "{{name}} twice, # in each branch"
    );
    let fr = edition(en, "fr");
    assert_eq!(fr.target_doc.as_deref(), Some("locales/fr.json"));
    assert_eq!(fr.exists, Some(true));
    // A translated plural is translated; an empty value is missing; a copy of the source is
    // a translation (never stale for that alone).
    assert_eq!(progress(fr), (Some(6), Some(3), Some(2), Some(1)));
    assert_eq!((fr.counts.blocks, fr.counts.switches), (5, 1));
    let de = edition(en, "de");
    assert_eq!(de.exists, Some(false));
    assert_eq!(progress(de), (Some(6), Some(0), Some(6), Some(0)));
    let langs: Vec<(&str, usize, usize)> = report
        .languages
        .iter()
        .map(|l| (l.lang.as_str(), l.translated, l.missing))
        .collect();
    assert_eq!(langs, [("fr", 3, 2), ("de", 0, 6)]);
    let text = report.text();
    assert!(
        text.contains("6 blocks, 7 words, 39 chars, 4 codes, 1 switch; fr 3/6 translated, 2 missing, 1 stale; de 0/6 translated, 6 missing, 0 stale (locales/de.json absent)"),
        "{text}"
    );
}

#[test]
fn a_bilingual_file_counts_its_own_targets() {
    let dir = project();
    let report = run(&app(dir.path(), None), &["po/fr.po", "xliff/de.xlf"]).unwrap();
    let po = file(&report, "po/fr.po");
    assert_eq!(po.format, "po");
    // `Open` translated, `Close` empty (missing), `Save` fuzzy (stale).
    assert_eq!(
        progress(edition(po, "fr")),
        (Some(3), Some(1), Some(1), Some(1))
    );
    assert_eq!(edition(po, "fr").target_doc, None);
    let xlf = file(&report, "xliff/de.xlf");
    // A unit with no `<target>` is missing though it has no edition to count.
    let de = edition(xlf, "de");
    assert_eq!(progress(de), (Some(2), Some(1), Some(1), Some(0)));
    assert_eq!((de.counts.blocks, de.counts.words), (1, 2));
    assert_eq!(report.formats.len(), 2);
    assert_eq!(report.totals.files, 2);
}

#[test]
fn a_folder_sums_per_format_and_a_named_translation_counts_as_its_source() {
    let dir = project();
    std::fs::write(dir.path().join("docs/more.md"), "Two words.\n").unwrap();
    let app = app(dir.path(), None);
    let report = run(&app, &["docs", "locales"]).unwrap();
    let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["docs/guide.md", "docs/more.md", "locales/en.json"]);
    let md = &report.formats[0];
    assert_eq!(
        (md.format, md.sum.files, md.sum.counts.words),
        ("markdown", 2, 8)
    );
    assert_eq!(report.totals.files, 3);
    assert_eq!(report.totals.counts.words, 15);
    assert!(
        report.text().contains("\nmarkdown  2 files, "),
        "{}",
        report.text()
    );
    // The French file named alone: its source, in French only.
    let fr = run(&app, &["locales/fr.json"]).unwrap();
    let en = file(&fr, "locales/en.json");
    let names: Vec<&str> = en.editions.iter().map(|e| e.edition.as_str()).collect();
    assert_eq!(names, ["source", "fr"]);
}

#[test]
fn a_file_that_does_not_read_is_an_entry_with_its_position() {
    let dir = project();
    std::fs::write(
        dir.path().join("locales/en.json"),
        "{\n  \"a\": \"A\",\n  \"b\" \"B\"\n}\n",
    )
    .unwrap();
    let report = run(&app(dir.path(), None), &[]).unwrap();
    let en = file(&report, "locales/en.json");
    assert!(!en.parses);
    let error = en.error.as_ref().unwrap();
    assert_eq!((error.line, error.column), (Some(3), Some(7)), "{error:?}");
    assert!(!error.message.starts_with("3:"), "{}", error.message);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.totals.unreadable, 1);
    // The other files are still counted.
    assert!(file(&report, "docs/guide.md").parses);
    let text = report.text();
    assert!(
        text.contains(&format!("locales/en.json:3:7: {}\n", error.message)),
        "{text}"
    );
}

#[test]
fn a_translation_file_that_does_not_read_is_its_editions_error() {
    let dir = project();
    std::fs::write(dir.path().join("locales/de.json"), "{\"greeting\": }").unwrap();
    let report = run(&app(dir.path(), None), &["locales/en.json"]).unwrap();
    let en = file(&report, "locales/en.json");
    assert!(en.parses);
    let de = edition(en, "de");
    let error = de.error.as_ref().unwrap();
    assert_eq!(error.doc, "locales/de.json");
    assert_eq!((error.line, error.column), (Some(1), Some(14)), "{error:?}");
    assert_eq!(de.total, None);
    // French is still surveyed, and the language sums leave German out.
    assert_eq!(edition(en, "fr").translated, Some(3));
    assert_eq!(report.languages.len(), 1);
    assert_eq!(report.errors.len(), 1);
    assert!(
        report.text().contains("\nlocales/de.json:1:14: "),
        "{}",
        report.text()
    );
}

#[test]
fn a_binary_file_is_placed_by_its_nul_byte() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"one\ntwo\x00three").unwrap();
    let report = run(&bare(dir.path()), &["notes.txt"]).unwrap();
    let error = report.files[0].error.as_ref().unwrap();
    assert_eq!((error.line, error.column), (Some(2), Some(4)), "{error:?}");
}

/// An App bound to no project.
fn bare(root: &Path) -> App {
    let env = Env {
        no_project: true,
        ..Env::default()
    };
    App::new(env, root.to_path_buf(), None)
}

#[test]
fn without_a_project_files_stand_alone_and_a_bare_call_needs_a_project() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guide.md"), GUIDE).unwrap();
    std::fs::write(dir.path().join("fr.po"), PO).unwrap();
    let app = bare(dir.path());
    let report = run(&app, &["guide.md", "fr.po"]).unwrap();
    let guide = file(&report, "guide.md");
    assert_eq!(guide.editions.len(), 1);
    assert_eq!(guide.editions[0].lang, None);
    assert_eq!(edition(file(&report, "fr.po"), "fr").translated, Some(1));
    assert!(report.remark.is_none());
    assert!(matches!(run(&app, &[]), Err(HostError::NoProject { .. })));
    assert!(matches!(
        run(&app, &["gone.md"]),
        Err(HostError::NoSuchPath { .. })
    ));
}

#[test]
fn without_target_languages_the_report_says_why() {
    let dir = project();
    std::fs::write(
        dir.path().join("kapi.yaml"),
        RECIPE.replace("  target_languages: [fr, de]\n", ""),
    )
    .unwrap();
    let report = run(&app(dir.path(), None), &["docs"]).unwrap();
    assert!(
        report
            .remark
            .as_deref()
            .is_some_and(|r| r.contains("target_languages")),
        "{:?}",
        report.remark
    );
}
