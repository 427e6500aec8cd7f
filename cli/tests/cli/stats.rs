//! `kapi stats`: per file whether it reads, its counts per edition, the sums, `--json`
//! (`kapi.stats/v1`), exit 1 with the position of a file that does not read, and `--plan`.

use serde::Deserialize;

use super::Kapi;

/// The `kapi.stats/v1` contract, decoded into the test's own types so a renamed or an added
/// field fails here.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    schema: String,
    files: Vec<File>,
    formats: Vec<FormatSum>,
    languages: Vec<Counts>,
    totals: Sum,
    #[serde(default)]
    errors: Vec<Failure>,
    #[serde(default)]
    notes: Vec<String>,
    remark: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    path: String,
    format: String,
    parses: bool,
    error: Option<Failure>,
    #[serde(flatten)]
    counts: TextCounts,
    editions: Vec<Edition>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
struct TextCounts {
    blocks: usize,
    translatable: usize,
    words: usize,
    characters: usize,
    codes: usize,
    switches: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Edition {
    edition: String,
    lang: Option<String>,
    target_doc: Option<String>,
    exists: Option<bool>,
    #[serde(flatten)]
    counts: TextCounts,
    total: Option<usize>,
    translated: Option<usize>,
    missing: Option<usize>,
    stale: Option<usize>,
    error: Option<Failure>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct Failure {
    doc: String,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
}

#[derive(Debug, Deserialize)]
struct FormatSum {
    format: String,
    #[serde(flatten)]
    sum: Sum,
}

#[derive(Debug, Deserialize)]
struct Sum {
    files: usize,
    unreadable: usize,
    #[serde(flatten)]
    counts: TextCounts,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Counts {
    lang: String,
    total: usize,
    translated: usize,
    missing: usize,
    stale: usize,
}

const RECIPE: &str = "version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - path: \"docs/**/*.md\"
  - name: app
    content:
      - path: \"locales/en.json\"
        target: \"locales/{lang}.json\"
  - path: \"po/*.po\"
";

const GUIDE: &str =
    "# Guide\n\nOpen the [dashboard](/dash) for **{name}**.\n\n```sh\nkapi check\n```\n\n- one\n";

const EN: &str = "{\n  \"greeting\": \"Hello {name}\",\n  \"bye\": \"Goodbye\",\n  \"new\": \"New\",\n  \"items\": \"{count, plural, one {# item} other {# items}}\"\n}\n";

/// `greeting` and `items` translated, `bye` an untranslated copy, `new` absent.
const FR: &str = "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Goodbye\",\n  \"items\": \"{count, plural, one {# article} other {# articles}}\"\n}\n";

/// `Open` translated, `Close` empty, `Save` fuzzy.
const PO: &str = "msgid \"\"\nmsgstr \"Language: fr\\n\"\n\nmsgid \"Open\"\nmsgstr \"Ouvrir\"\n\nmsgid \"Close\"\nmsgstr \"\"\n\n#, fuzzy\nmsgid \"Save\"\nmsgstr \"Sauver\"\n";

fn shop() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write("docs/guide.md", GUIDE);
    kapi.write("locales/en.json", EN);
    kapi.write("locales/fr.json", FR);
    kapi.write("po/fr.po", PO);
    kapi
}

fn report(kapi: &Kapi, args: &[&str], code: i32) -> Report {
    let run = kapi.run(args);
    assert_eq!(run.code, code, "{}", run.transcript());
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn file<'a>(report: &'a Report, path: &str) -> &'a File {
    report
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path}: {report:?}"))
}

#[test]
fn the_project_form_prints_a_line_per_file_then_the_sums() {
    let kapi = shop();
    let run = kapi.run(&["stats"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!("stats_project", run.transcript());
}

#[test]
fn the_json_report_counts_codes_switches_and_progress_per_edition() {
    let kapi = shop();
    let report = report(&kapi, &["stats", "--json"], 0);
    assert_eq!(report.schema, "kapi.stats/v1");
    assert!(report.errors.is_empty() && report.notes.is_empty() && report.remark.is_none());
    let guide = file(&report, "docs/guide.md");
    assert_eq!((guide.format.as_str(), guide.parses), ("markdown", true));
    assert!(guide.error.is_none());
    assert_eq!(
        guide.counts,
        TextCounts {
            blocks: 4,
            translatable: 3,
            words: 6,
            characters: 32,
            codes: 3,
            switches: 0
        }
    );
    let en = file(&report, "locales/en.json");
    assert_eq!((en.counts.codes, en.counts.switches), (3, 1));
    let [source, fr] = en.editions.as_slice() else {
        panic!("{:?}", en.editions)
    };
    assert_eq!(
        (source.edition.as_str(), source.lang.as_deref()),
        ("source", Some("en"))
    );
    assert_eq!(source.counts, en.counts);
    assert_eq!(source.total, None);
    assert_eq!(fr.target_doc.as_deref(), Some("locales/fr.json"));
    assert_eq!(fr.exists, Some(true));
    assert!(fr.error.is_none());
    assert_eq!(
        (fr.total, fr.translated, fr.missing, fr.stale),
        (Some(4), Some(3), Some(1), Some(0)),
        "a target equal to its source (`bye`) is a translation"
    );
    let po = file(&report, "po/fr.po");
    let fr = &po.editions[1];
    assert_eq!(
        (fr.edition.as_str(), fr.target_doc.as_deref()),
        ("fr", None)
    );
    assert_eq!(
        (fr.translated, fr.missing, fr.stale),
        (Some(1), Some(1), Some(1))
    );
    let languages: Vec<(&str, usize, usize, usize, usize)> = report
        .languages
        .iter()
        .map(|c| (c.lang.as_str(), c.total, c.translated, c.missing, c.stale))
        .collect();
    assert_eq!(languages, [("fr", 7, 4, 2, 1)]);
    let formats: Vec<(&str, usize)> = report
        .formats
        .iter()
        .map(|f| (f.format.as_str(), f.sum.files))
        .collect();
    assert_eq!(formats, [("markdown", 1), ("json", 1), ("po", 1)]);
    assert_eq!((report.totals.files, report.totals.unreadable), (3, 0));
    assert_eq!(report.totals.counts.blocks, 4 + 4 + 3);
}

#[test]
fn a_folder_sums_per_format() {
    let kapi = shop();
    kapi.write("docs/more/notes.md", "Two words.\n");
    kapi.write("docs/.hidden.md", "Never counted.\n");
    let report = report(&kapi, &["stats", "--json", "docs"], 0);
    let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["docs/guide.md", "docs/more/notes.md"]);
    let [markdown] = report.formats.as_slice() else {
        panic!("{:?}", report.formats)
    };
    assert_eq!(
        (markdown.format.as_str(), markdown.sum.files),
        ("markdown", 2)
    );
    assert_eq!(markdown.sum.unreadable, 0);
    assert_eq!(markdown.sum.counts.words, 8);
    let text = kapi.run(&["stats", "docs"]);
    insta::assert_snapshot!("stats_folder", text.transcript());
}

#[test]
fn a_file_that_does_not_read_exits_1_with_its_position() {
    let kapi = shop();
    kapi.write("locales/en.json", "{\n  \"a\": \"A\",\n  \"b\" \"B\"\n}\n");
    let run = kapi.run(&["stats"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout.contains("\nlocales/en.json:3:7: "),
        "{}",
        run.transcript()
    );
    // The report is whole: the files that read are still counted.
    assert!(run.stdout.contains("docs/guide.md "), "{}", run.stdout);
    let report = report(&kapi, &["stats", "--json"], 1);
    let en = file(&report, "locales/en.json");
    assert!(!en.parses);
    let error = en.error.as_ref().expect("an error");
    assert_eq!(
        (error.doc.as_str(), error.line, error.column),
        ("locales/en.json", Some(3), Some(7))
    );
    assert_eq!(report.errors, std::slice::from_ref(error));
    assert_eq!(report.totals.unreadable, 1);
    assert!(file(&report, "docs/guide.md").parses);
}

#[test]
fn a_translation_file_that_does_not_read_exits_1_naming_it() {
    let kapi = shop();
    kapi.write("locales/fr.json", "{\"greeting\": }");
    let run = kapi.run(&["stats", "locales/en.json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    insta::assert_snapshot!("stats_broken_translation", run.transcript());
    let report = report(&kapi, &["stats", "--json", "locales/en.json"], 1);
    let en = file(&report, "locales/en.json");
    assert!(en.parses);
    let error = en.editions[1].error.as_ref().expect("an error");
    assert_eq!(
        (error.doc.as_str(), error.line, error.column),
        ("locales/fr.json", Some(1), Some(14))
    );
}

#[test]
fn files_outside_a_project_stand_alone() {
    let kapi = Kapi::empty();
    kapi.write("guide.md", GUIDE);
    kapi.write("fr.po", PO);
    let report = report(&kapi, &["stats", "--json", "guide.md", "fr.po"], 0);
    let guide = file(&report, "guide.md");
    assert_eq!(guide.editions.len(), 1);
    assert_eq!(guide.editions[0].lang, None);
    assert_eq!(file(&report, "fr.po").editions[1].translated, Some(1));
    // No path and no project: nothing to count (exit 1, as every project verb).
    let bare = kapi.run(&["stats"]);
    assert_eq!(bare.code, 1, "{}", bare.transcript());
    // A path that is not there is refused as `kapi check` refuses it.
    let gone = kapi.run(&["stats", "gone.md"]);
    assert_eq!(gone.code, 1, "{}", gone.transcript());
    assert!(
        gone.stderr.contains("`gone.md`: no such file"),
        "{}",
        gone.transcript()
    );
}

#[test]
fn plan_still_lists_the_keys_to_work_on() {
    let kapi = shop();
    let run = kapi.run(&["stats", "--plan", "locales/en.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("locales/en.json → fr (locales/fr.json): missing [new], stale []"),
        "{}",
        run.transcript()
    );
    let json = kapi.run(&["stats", "--plan", "--lang", "fr", "--json"]);
    assert_eq!(json.json()["schema"], "kapi.up-plan/v1", "{}", json.stdout);
    let two = kapi.run(&["stats", "--plan", "locales/en.json", "docs"]);
    assert_eq!(two.code, 2, "{}", two.transcript());
    let lang_alone = kapi.run(&["stats", "--lang", "fr"]);
    assert_eq!(lang_alone.code, 2, "{}", lang_alone.transcript());
}
