use super::*;
use crate::formats::conformance;
use crate::model::Edition;

fn read(text: &str) -> Parsed {
    QtTs.read(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(QtTs.write(parsed).unwrap()).unwrap()
}

const FILE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<!DOCTYPE TS>
<TS version=\"2.1\" language=\"ru_RU\">
<context>
    <name>MainWindow</name>
    <message>
        <location filename=\"../main.cpp\" line=\"12\"/>
        <source>&amp;Open %1 of %L2</source>
        <extracomment>File menu</extracomment>
        <translation>&amp;Открыть %1 из %L2</translation>
    </message>
    <message>
        <source>Open</source>
        <comment>verb</comment>
        <translation type=\"unfinished\"></translation>
    </message>
    <message numerus=\"yes\">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n файл</numerusform>
            <numerusform>%n файла</numerusform>
        </translation>
    </message>
    <message id=\"gone.id\">
        <source>Old &lt;b&gt;bold&lt;/b&gt;</source>
        <translation type=\"vanished\">Старый</translation>
    </message>
    <message>
        <source>No target</source>
    </message>
</context>
</TS>
";

#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    assert!(conformance::run_corpus(&QtTs, "qt") >= 10);
}

#[test]
fn messages_are_blocks_keyed_by_context_source_and_comment() {
    let parsed = read(FILE);
    let keys: Vec<&str> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "MainWindow/&Open %1 of %L2",
            "MainWindow/Open/verb",
            "MainWindow/%n file(s)",
            "gone.id",
            "MainWindow/No target",
        ]
    );
    let first = &parsed.document.blocks[0];
    assert_eq!(first.notes, ["File menu"]);
    assert_eq!(first.source.plain_text(), "&Open  of ");
    assert_eq!(first.targets["ru-RU"].plain_text(), "&Открыть  из ");
    assert_eq!(first.targets["ru-RU"].state, None);
    assert_eq!(parsed.document.blocks[1].notes, ["verb"]);
    assert_eq!(
        parsed.document.blocks[1].targets["ru-RU"].state.as_deref(),
        Some("unfinished")
    );
    let gone = &parsed.document.blocks[3];
    assert!(!gone.translatable && gone.locked.is_some());
    assert_eq!(
        gone.source.plain_text(),
        "Old bold",
        "rich text tags are codes"
    );
    assert!(parsed.document.blocks[4].targets.is_empty());
    assert_eq!(QtTs.write(&parsed).unwrap(), FILE.as_bytes());
}

#[test]
fn a_numerus_translation_is_a_plural_switch_held_to_qts_forms() {
    let parsed = read(FILE);
    let target = &parsed.document.blocks[2].targets["ru-RU"];
    let [Run::Switch(switch)] = target.runs.as_slice() else {
        panic!("{target:?}");
    };
    let cases: Vec<&str> = switch.branches.iter().map(|b| b.case.as_str()).collect();
    assert_eq!(cases, ["one", "few"]);
    assert_eq!(
        switch.forms.as_ref().map(|f| f.cases.clone()),
        Some(vec!["one".into(), "few".into(), "many".into()])
    );
    let mut edited = parsed.clone();
    let mut forms = switch.clone();
    forms
        .branches
        .push(Branch::new("many", vec![Run::text("%n файлов <ok>")]));
    edited.document.blocks[2]
        .targets
        .insert("ru-RU".into(), Edition::new(vec![Run::Switch(forms)]));
    let out = write(&edited);
    assert!(
        out.contains("<translation>\n            <numerusform>%n файл</numerusform>\n            <numerusform>%n файла</numerusform>\n            <numerusform>%n файлов &lt;ok&gt;</numerusform>\n        </translation>"),
        "{out}"
    );
    let again = read(&out);
    let texts = |e: &Edition| {
        e.leaves()
            .into_iter()
            .map(|(path, runs)| (path, crate::projection::render(runs).0))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        texts(&again.document.blocks[2].targets["ru-RU"]),
        [
            ("n:one".to_owned(), "<x id=\"1/\"/> файл".to_owned()),
            ("n:few".to_owned(), "<x id=\"1/\"/> файла".to_owned()),
            ("n:many".to_owned(), "<x id=\"1/\"/> файлов <ok>".to_owned()),
        ]
    );
}

#[test]
fn a_plain_text_fills_every_form_and_a_state_is_written_in_place() {
    let parsed = read(FILE);
    let mut edited = parsed.clone();
    let mut draft = Edition::new(vec![Run::text("%n файлов")]);
    draft.state = Some("unfinished".into());
    edited.document.blocks[2]
        .targets
        .insert("ru-RU".into(), draft);
    let mut done = Edition::new(vec![Run::text("Открыть")]);
    done.state = None;
    edited.document.blocks[1]
        .targets
        .insert("ru-RU".into(), done);
    let out = write(&edited);
    assert!(out.contains("<translation>Открыть</translation>"), "{out}");
    assert!(
        out.contains("<translation type=\"unfinished\">\n            <numerusform>%n файлов</numerusform>\n            <numerusform>%n файлов</numerusform>\n            <numerusform>%n файлов</numerusform>\n        </translation>"),
        "{out}"
    );
    let mut bad = parsed.clone();
    let mut odd = Edition::new(vec![Run::text("x")]);
    odd.state = Some("fuzzy".into());
    bad.document.blocks[1].targets.insert("ru-RU".into(), odd);
    let e = QtTs.write(&bad).unwrap_err();
    assert!(
        e.to_string().contains("unfinished, vanished, obsolete"),
        "{e}"
    );
}

#[test]
fn a_missing_translation_is_added_after_the_source() {
    let parsed = read(FILE);
    let mut edited = parsed.clone();
    let mut draft = Edition::new(vec![Run::text("Нет & цели")]);
    draft.state = Some("unfinished".into());
    edited.document.blocks[4]
        .targets
        .insert("ru-RU".into(), draft);
    let out = write(&edited);
    assert!(
        out.contains("<source>No target</source>\n        <translation type=\"unfinished\">Нет &amp; цели</translation>\n    </message>"),
        "{out}"
    );
    assert_eq!(read(&out).document.blocks.len(), 5);
}

#[test]
fn typescript_is_not_a_ts_file_and_the_language_falls_back() {
    assert!(is_ts(FILE.as_bytes()));
    assert!(is_ts(b"\xef\xbb\xbf<TS version=\"2.1\"></TS>"));
    assert!(!is_ts(b"const x: number = 1; // <TS>"));
    assert!(!is_ts(b"<xliff version=\"1.2\"/>"));
    let ts = std::path::Path::new("app/main.ts");
    let picked = crate::formats::for_file(ts, FILE.as_bytes()).map(|f| f.info().id);
    assert_eq!(picked, Some("qt"));
    let picked = crate::formats::for_file(ts, b"export const a = 1;\n").map(|f| f.info().id);
    assert_eq!(picked, Some("typescript"));
    assert_eq!(language(Some("templates")), "target");
    assert_eq!(language(Some("tl_PH")), "tl-PH");
    assert_eq!(language(Some("zh-cn")), "zh-cn");
    assert_eq!(language(None), "target");
    let e = QtTs.read(b"<xliff/>").map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("expected `<TS>`"), "{e}");
    let e = QtTs
        .read(b"<TS><context><message><translation/></message></context></TS>")
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("no `<source>`"), "{e}");
}

#[test]
fn hostile_input_is_bounded() {
    let many = format!(
        "<TS language=\"de\"><context><name>c</name>{}</context></TS>",
        "<message><source>%1</source><translation>%1</translation></message>".repeat(20_000)
    );
    let parsed = QtTs.read(many.as_bytes()).unwrap();
    assert_eq!(parsed.document.blocks.len(), 20_000);
    assert_eq!(QtTs.write(&parsed).unwrap(), many.as_bytes());
    let dense = format!(
        "<TS><context><message><source>{}</source></message></context></TS>",
        "%1".repeat(20_000)
    );
    assert!(QtTs.read(dense.as_bytes()).is_err(), "past the code limit");
    let deep = format!("<TS>{}{}</TS>", "<a>".repeat(300), "</a>".repeat(300));
    assert!(QtTs.read(deep.as_bytes()).is_err(), "past the depth limit");
}
