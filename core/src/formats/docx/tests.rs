use std::io::{Cursor, Read, Write};
use std::path::PathBuf;

use zip::write::SimpleFileOptions;
use zip::{ZipArchive, ZipWriter};

use super::package::read_limited;
use super::reader::MAX_TABLE_DEPTH;
use super::*;
use crate::formats::conformance;
use crate::formats::conformance::keys;
use crate::model::Edition;
use crate::model::{Block, CodeKind, Role, Run};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/formats/docx")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        writer
            .start_file(*name, SimpleFileOptions::default())
            .unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

const HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>"#;
const TAIL: &str = "<w:sectPr/></w:body></w:document>";

/// A package whose body is `body`.
fn package(body: &str) -> Vec<u8> {
    let xml = format!("{HEAD}{body}{TAIL}");
    zip_of(&[
        ("[Content_Types].xml", b"<Types/>"),
        (DOCUMENT, xml.as_bytes()),
        ("word/other.xml", b"<other>kept</other>"),
    ])
}

fn read(bytes: &[u8]) -> Parsed {
    Docx.read(bytes)
        .unwrap_or_else(|e| panic!("read failed: {e}"))
}

fn entry_bytes(zip: &[u8], name: &str) -> Vec<u8> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    let mut out = Vec::new();
    archive
        .by_name(name)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn document_xml(zip: &[u8]) -> String {
    String::from_utf8(entry_bytes(zip, DOCUMENT)).unwrap()
}

/// Runs as `text<1:bold>text</1><2:tab/>`.
fn show(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(code) => match code.kind {
                CodeKind::Open => out.push_str(&format!("<{}:{}>", code.id, code.class)),
                CodeKind::Close => out.push_str(&format!("</{}>", code.id)),
                CodeKind::Standalone => {
                    out.push_str(&format!("<{}:{}/>", code.id, code.class));
                }
            },
            Run::Switch(_) => out.push_str("<switch>"),
        }
    }
    out
}

fn block<'a>(parsed: &'a Parsed, key: &str) -> &'a Block {
    parsed
        .document
        .block(key)
        .unwrap_or_else(|| panic!("no block {key}; keys: {:?}", keys(parsed)))
}

fn runs_of(parsed: &Parsed, key: &str) -> String {
    show(&block(parsed, key).source.runs)
}

/// Replaces the text of the `n`th text run of a block.
fn set_text(parsed: &mut Parsed, key: &str, n: usize, text: &str) {
    let block = parsed.document.block_mut(key).unwrap();
    let run = block
        .source
        .runs
        .iter_mut()
        .filter(|r| matches!(r, Run::Text { .. }))
        .nth(n)
        .unwrap();
    *run = Run::text(text);
}

fn write(parsed: &Parsed) -> Vec<u8> {
    Docx.write(parsed)
        .unwrap_or_else(|e| panic!("write failed: {e}"))
}

fn error(bytes: &[u8]) -> String {
    match Docx.read(bytes) {
        Ok(_) => panic!("read should fail"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_fixture_passes_the_conformance_checks() {
    let edited = conformance::run_corpus(&Docx, "docx");
    assert_eq!(edited, conformance::fixtures("docx").len());
}

#[test]
fn headings_paragraphs_and_formatting_of_the_basic_fixture() {
    let parsed = read(&fixture("basic.docx"));
    let got: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.as_str(), b.role, b.level))
        .collect();
    assert_eq!(
        got,
        [
            ("body/p#1", Role::Heading, 0),
            ("body/p#2", Role::Heading, 1),
            ("body/p#3", Role::Paragraph, 0),
            ("body/p#4", Role::Heading, 2),
            ("body/p#5", Role::Paragraph, 0),
            ("body/p#6", Role::Paragraph, 0),
            ("body/p#7", Role::Paragraph, 0),
            ("body/p#8", Role::Paragraph, 0),
            ("body/p#9", Role::Paragraph, 0),
            ("body/p#10", Role::Paragraph, 0),
            ("body/p#12", Role::Heading, 3),
        ]
    );
    assert_eq!(
        block(&parsed, "body/p#1").source.plain_text(),
        "Kapi user guide"
    );
    assert_eq!(
        runs_of(&parsed, "body/p#3"),
        "Install the tool, then run <1:bold>kapi check</1> in your project. It is \
             <2:italic>fast</2> and <3:underline>careful</3>."
    );
    assert_eq!(
        runs_of(&parsed, "body/p#5"),
        "Read the <1:hyperlink>online manual</1> for details."
    );
    assert_eq!(
        runs_of(&parsed, "body/p#6"),
        "Name:<1:tab/>Kapi<2:run/>First line<3:break/>second line"
    );
    assert_eq!(
        block(&parsed, "body/p#7").source.plain_text(),
        "Zkouška češtiny, 日本語のテキスト, emoji 🎉 and “quotes”."
    );
    assert_eq!(
        block(&parsed, "body/p#8").source.plain_text(),
        "Escapes: a < b && c > d, \"double\" and 'single'."
    );
    // A formatted first and last piece: the hole takes in their runs' markup.
    assert_eq!(
        runs_of(&parsed, "body/p#9"),
        "<1:bold>Bold start</1> then plain, ending in <2:italic>italics</2>"
    );
    let first = &block(&parsed, "body/p#9").source.runs[0];
    let Run::Code(code) = first else { panic!() };
    assert!(code.data.starts_with("<w:r>") && code.data.contains("<w:b/>"));
    assert!(code.deletable);
    // A size change is not a named formatting: a standalone `format` code.
    assert_eq!(
        runs_of(&parsed, "body/p#10"),
        "Large <1:format/>and normal text with   several  spaces "
    );
}

#[test]
fn verbatim_text_runs_point_into_document_xml() {
    let parsed = read(&fixture("basic.docx"));
    let text = parsed.skeleton.text();
    for block in &parsed.document.blocks {
        for run in &block.source.runs {
            if let Run::Text {
                text: t,
                src: Some(at),
            } = run
            {
                assert_eq!(&text[*at..*at + t.len()], t);
            }
            if let Run::Code(code) = run {
                let at = code.src.unwrap();
                assert_eq!(&text[at..at + code.data.len()], code.data);
            }
        }
    }
}

#[test]
fn list_levels_come_from_numbering_and_list_styles() {
    let parsed = read(&fixture("lists.docx"));
    let got: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.source.plain_text(), b.role, b.level))
        .collect();
    let want = [
        ("Shopping", Role::Heading, 1),
        ("Fruit", Role::ListItem, 1),
        ("Apples", Role::ListItem, 2),
        ("Green apples", Role::ListItem, 3),
        ("Vegetables", Role::ListItem, 1),
        ("First step", Role::ListItem, 1),
        ("Second step", Role::ListItem, 1),
        ("Numbered through numPr at level three", Role::ListItem, 3),
        ("A closing paragraph.", Role::Paragraph, 0),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(t, r, l)| (t.to_string(), *r, *l))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn table_cells_are_keyed_by_table_row_and_cell() {
    let parsed = read(&fixture("table.docx"));
    assert_eq!(
        keys(&parsed),
        [
            "body/p#1",
            "body/tbl#1/r#1/c#1/p#1",
            "body/tbl#1/r#1/c#2/p#1",
            "body/tbl#1/r#1/c#3/p#1",
            "body/tbl#1/r#2/c#1/p#1",
            "body/tbl#1/r#2/c#2/p#1",
            "body/tbl#1/r#2/c#3/p#1",
            "body/tbl#1/r#3/c#1/p#1",
            "body/tbl#1/r#3/c#2/p#1",
            "body/tbl#1/r#3/c#3/p#1",
            "body/tbl#1/r#3/c#3/p#2",
            "body/tbl#1/r#3/c#3/tbl#1/r#1/c#1/p#1",
            "body/tbl#1/r#3/c#3/tbl#1/r#1/c#2/p#1",
            "body/p#2",
        ]
    );
    let cell = block(&parsed, "body/tbl#1/r#1/c#1/p#1");
    assert_eq!(
        (cell.role, show(&cell.source.runs).as_str()),
        (Role::TableCell, "<1:bold>Item</1>")
    );
    assert_eq!(
        runs_of(&parsed, "body/tbl#1/r#3/c#3/p#1"),
        "<1:bold>Strong</1>"
    );
    assert_eq!(
        block(&parsed, "body/tbl#1/r#2/c#2/p#1").source.plain_text(),
        "3 €"
    );
    assert_eq!(block(&parsed, "body/p#2").role, Role::Paragraph);
}

#[test]
fn fields_bookmarks_and_proofing_marks_are_codes() {
    let parsed = read(&fixture("fields.docx"));
    assert_eq!(
        runs_of(&parsed, "body/p#2"),
        "Page <1:field/>1<2:field/> of the <3:bookmark/>report<4:bookmark/>, speling<5:proof/> mis<6:run/>take."
    );
    let deletable: Vec<bool> = block(&parsed, "body/p#2")
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Code(c) => Some(c.deletable),
            _ => None,
        })
        .collect();
    assert_eq!(deletable, [false, false, false, false, true, true]);
    assert_eq!(
        runs_of(&parsed, "body/p#3"),
        "Mixed <1:bold+italic>bold italic</1> and <2:superscript>super</2> script."
    );
    assert_eq!(
        runs_of(&parsed, "body/p#4"),
        "<1:hyperlink>A link at the start</1> and text after it."
    );
}

#[test]
fn a_write_without_edits_returns_the_same_file() {
    for name in ["basic.docx", "lists.docx", "table.docx", "fields.docx"] {
        let bytes = fixture(name);
        let parsed = read(&bytes);
        assert_eq!(parsed.container.as_deref(), Some(bytes.as_slice()));
        assert_eq!(write(&parsed), bytes, "{name}");
    }
}

#[test]
fn an_edit_inside_a_bold_run_keeps_it_bold_and_copies_other_entries_raw() {
    let bytes = fixture("basic.docx");
    let mut parsed = read(&bytes);
    set_text(&mut parsed, "body/p#3", 1, "kapi lint");
    let written = write(&parsed);
    let again = read(&written);
    assert_eq!(
        runs_of(&again, "body/p#3"),
        "Install the tool, then run <1:bold>kapi lint</1> in your project. It is \
             <2:italic>fast</2> and <3:underline>careful</3>."
    );
    assert!(document_xml(&written).contains("<w:b/></w:rPr><w:t>kapi lint</w:t>"));
    // Every other entry is the same, compressed bytes and metadata, in the same order.
    let mut old = ZipArchive::new(Cursor::new(bytes.as_slice())).unwrap();
    let mut new = ZipArchive::new(Cursor::new(written.as_slice())).unwrap();
    assert_eq!(old.len(), new.len());
    for i in 0..old.len() {
        let mut a = old.by_index_raw(i).unwrap();
        let mut b = new.by_index_raw(i).unwrap();
        assert_eq!(a.name_raw(), b.name_raw());
        if a.name_raw() == DOCUMENT.as_bytes() {
            continue;
        }
        assert_eq!(
            (a.compression(), a.crc32(), a.last_modified()),
            (b.compression(), b.crc32(), b.last_modified())
        );
        let (mut x, mut y) = (Vec::new(), Vec::new());
        a.read_to_end(&mut x).unwrap();
        b.read_to_end(&mut y).unwrap();
        assert_eq!(x, y, "{}", a.name().unwrap());
    }
    for name in [
        "word/styles.xml",
        "docProps/core.xml",
        "[Content_Types].xml",
    ] {
        assert_eq!(entry_bytes(&bytes, name), entry_bytes(&written, name));
    }
    // Only the edited text changed in document.xml.
    let before = document_xml(&bytes);
    assert_eq!(
        document_xml(&written),
        before.replace(">kapi check<", ">kapi lint<")
    );
}

#[test]
fn edited_text_is_escaped_and_keeps_its_spaces_tabs_and_breaks() {
    let bytes =
        package(r#"<w:p><w:r><w:t>Hello</w:t></w:r></w:p><w:p><w:r><w:t>Other</w:t></w:r></w:p>"#);
    let mut parsed = read(&bytes);
    set_text(&mut parsed, "body/p#1", 0, " a < b & c\tnext\r\nline ");
    let written = write(&parsed);
    let xml = document_xml(&written);
    assert!(
            xml.contains(
                r#"<w:p><w:r><w:t xml:space="preserve"> a &lt; b &amp; c</w:t><w:tab/><w:t xml:space="preserve">next</w:t><w:br/><w:t xml:space="preserve">line </w:t></w:r></w:p>"#
            ),
            "{xml}"
        );
    let again = read(&written);
    assert_eq!(
        runs_of(&again, "body/p#1"),
        " a < b & c<1:tab/>next<2:break/>line "
    );
    assert_eq!(
        entry_bytes(&written, "word/other.xml"),
        b"<other>kept</other>"
    );
    // No doubled attribute when the tag has one already.
    let bytes = package(r#"<w:p><w:r><w:t xml:space="preserve"> x </w:t></w:r></w:p>"#);
    let mut parsed = read(&bytes);
    set_text(&mut parsed, "body/p#1", 0, " y ");
    assert!(document_xml(&write(&parsed)).contains(r#"<w:t xml:space="preserve"> y </w:t>"#));
}

#[test]
fn entities_are_decoded_and_written_back_escaped() {
    let bytes = package(
        r#"<w:p><w:r><w:t>Tom &amp; Jerry &#169; &#x263A; &quot;q&quot;</w:t></w:r></w:p>"#,
    );
    let mut parsed = read(&bytes);
    assert_eq!(
        block(&parsed, "body/p#1").source.plain_text(),
        "Tom & Jerry © ☺ \"q\""
    );
    set_text(&mut parsed, "body/p#1", 0, "Tom & Jerry © ☺ \"q\" <x>");
    let again = read(&write(&parsed));
    assert_eq!(
        block(&again, "body/p#1").source.plain_text(),
        "Tom & Jerry © ☺ \"q\" <x>"
    );
}

#[test]
fn deleting_a_pair_is_allowed_but_half_a_hyperlink_is_refused() {
    let bytes = fixture("basic.docx");
    // Both codes of the bold pair go: the text joins the run before it.
    let mut parsed = read(&bytes);
    let runs = &mut parsed.document.block_mut("body/p#3").unwrap().source.runs;
    runs.retain(|r| !matches!(r, Run::Code(c) if c.id == "1"));
    let again = read(&write(&parsed));
    assert_eq!(
        runs_of(&again, "body/p#3"),
        "Install the tool, then run kapi check in your project. It is \
             <1:italic>fast</1> and <2:underline>careful</2>."
    );
    // Only the open code of the hyperlink goes: refused.
    let mut parsed = read(&bytes);
    let runs = &mut parsed.document.block_mut("body/p#5").unwrap().source.runs;
    let open = runs
        .iter()
        .position(|r| matches!(r, Run::Code(c) if c.kind == CodeKind::Open))
        .unwrap();
    runs.remove(open);
    let err = Docx.write(&parsed).unwrap_err().to_string();
    assert!(
        err.contains("body/p#5") && err.contains("unbalanced"),
        "{err}"
    );
}

#[test]
fn a_hyperlink_with_formatted_runs_nests_its_pairs() {
    let bytes = package(
        r#"<w:p><w:hyperlink r:id="rId1"><w:r><w:rPr><w:b/></w:rPr><w:t>bold link</w:t></w:r><w:r><w:t xml:space="preserve"> rest</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> after</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rId2"><w:r><w:t>plain</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t>slanted</w:t></w:r></w:hyperlink></w:p>"#,
    );
    let mut parsed = read(&bytes);
    assert_eq!(
        runs_of(&parsed, "body/p#1"),
        "<1:hyperlink><2:bold>bold link</2> rest</1> after"
    );
    assert_eq!(
        runs_of(&parsed, "body/p#2"),
        "See <1:hyperlink>plain<2:italic>slanted</2></1>"
    );
    let Run::Code(code) = &block(&parsed, "body/p#1").source.runs[0] else {
        panic!()
    };
    assert_eq!(code.data, r#"<w:hyperlink r:id="rId1">"#);
    // The whole link goes: both of its codes and the text inside.
    let runs = &mut parsed.document.block_mut("body/p#2").unwrap().source.runs;
    runs.truncate(1);
    runs.push(Run::text("nothing"));
    let xml = document_xml(&write(&parsed));
    assert!(
        xml.contains(r#"<w:t xml:space="preserve">See nothing</w:t></w:r></w:p>"#),
        "{xml}"
    );
}

#[test]
fn pretty_printed_xml_with_crlf_round_trips_and_edits_in_place() {
    let body = "\r\n  <w:p>\r\n    <w:r>\r\n      <w:t xml:space=\"preserve\">One </w:t>\r\n    </w:r>\r\n    <w:r>\r\n      <w:rPr>\r\n        <w:i/>\r\n      </w:rPr>\r\n      <w:t>two</w:t>\r\n    </w:r>\r\n  </w:p>\r\n  <w:p>\r\n    <w:r>\r\n      <w:t>Three</w:t>\r\n    </w:r>\r\n  </w:p>\r\n";
    let bytes = package(body);
    let mut parsed = read(&bytes);
    assert_eq!(runs_of(&parsed, "body/p#1"), "One <1:italic>two</1>");
    let Run::Code(close) = &block(&parsed, "body/p#1").source.runs[3] else {
        panic!()
    };
    assert_eq!(close.data, "</w:t>\r\n    </w:r>");
    set_text(&mut parsed, "body/p#1", 1, "deux");
    let xml = document_xml(&write(&parsed));
    assert_eq!(
        xml,
        format!("{HEAD}{body}{TAIL}").replace(">two<", ">deux<")
    );
}

#[test]
fn text_moved_before_a_leading_code_gets_a_run_of_its_own() {
    let bytes = fixture("fields.docx");
    let mut parsed = read(&bytes);
    let runs = &mut parsed.document.block_mut("body/p#4").unwrap().source.runs;
    runs.insert(0, Run::text("See: "));
    let written = write(&parsed);
    assert!(
        document_xml(&written)
            .contains(r#"<w:p><w:r><w:t xml:space="preserve">See: </w:t></w:r><w:hyperlink"#)
    );
    let again = read(&written);
    assert_eq!(
        runs_of(&again, "body/p#4"),
        "See: <1:hyperlink>A link at the start</1> and text after it."
    );
}

#[test]
fn characters_xml_cannot_hold_and_switches_are_refused() {
    let bytes = package("<w:p><w:r><w:t>a</w:t></w:r></w:p>");
    let mut parsed = read(&bytes);
    set_text(&mut parsed, "body/p#1", 0, "bell\u{7}");
    let err = Docx.write(&parsed).unwrap_err().to_string();
    assert!(err.contains("body/p#1") && err.contains("XML 1.0"), "{err}");
    let mut parsed = read(&bytes);
    parsed.document.blocks[0].source =
        Edition::new(vec![Run::Switch(Box::new(crate::model::Switch {
            id: "1".into(),
            kind: crate::model::SwitchKind::Plural,
            pivot: "n".into(),
            branches: Vec::new(),
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        }))]);
    assert!(Docx.write(&parsed).is_err());
}

#[test]
fn text_boxes_are_blocks_of_their_own_and_fallbacks_are_skipped() {
    let body = r#"<w:p><w:r><w:t>Before</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent><w:t>After</w:t></w:r></w:p><w:p><w:r><w:t>Next</w:t></w:r></w:p>"#;
    let bytes = package(body);
    let parsed = read(&bytes);
    assert_eq!(
        keys(&parsed),
        [
            "body/p#1",
            "body/p#1/txbx#1/p#1",
            "body/p#1/part#2",
            "body/p#2"
        ]
    );
    // The bold run around the text box cannot take its markup into the hole.
    assert_eq!(runs_of(&parsed, "body/p#1/part#2"), "After");
    for key in keys(&parsed) {
        let mut parsed = read(&bytes);
        set_text(&mut parsed, key, 0, "Zq");
        let again = read(&write(&parsed));
        assert_eq!(block(&again, key).source.plain_text(), "Zq");
        assert_eq!(keys(&again), keys(&parsed));
    }
    let mut parsed = read(&bytes);
    set_text(&mut parsed, "body/p#1/txbx#1/p#1", 0, "Inside");
    let xml = document_xml(&write(&parsed));
    assert_eq!(xml.matches("Inside").count(), 1);
    assert_eq!(
        xml.matches("Boxed").count(),
        1,
        "the fallback copy is left as it was"
    );
}

#[test]
fn styles_xml_names_headings_and_lists_in_any_language() {
    let styles = r#"<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style><w:style w:type="paragraph" w:styleId="Gliederung"><w:name w:val="Gliederung"/><w:pPr><w:outlineLvl w:val="3"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="Aufz"><w:name w:val="Aufz"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="4"/></w:numPr></w:pPr></w:style></w:styles>"#;
    let body = r#"<w:p><w:pPr><w:pStyle w:val="berschrift2"/></w:pPr><w:r><w:t>Titel</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Gliederung"/></w:pPr><w:r><w:t>Teil</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Aufz"/></w:pPr><w:r><w:t>Punkt</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Aufz"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>Kein Punkt</w:t></w:r></w:p><w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Direct</w:t></w:r></w:p>"#;
    let xml = format!("{HEAD}{body}{TAIL}");
    let bytes = zip_of(&[(DOCUMENT, xml.as_bytes()), (STYLES, styles.as_bytes())]);
    let parsed = read(&bytes);
    let got: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.role, b.level))
        .collect();
    assert_eq!(
        got,
        [
            (Role::Heading, 2),
            (Role::Heading, 4),
            (Role::ListItem, 2),
            (Role::Paragraph, 0),
            (Role::Heading, 1)
        ]
    );
}

#[test]
fn a_document_with_another_prefix_for_wordprocessingml_is_read() {
    let xml = r#"<?xml version="1.0"?><x:document xmlns:x="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><x:body><x:p><x:r><x:rPr><x:i/></x:rPr><x:t>Slanted</x:t></x:r><x:r><x:t> plain</x:t></x:r></x:p></x:body></x:document>"#;
    let bytes = zip_of(&[(DOCUMENT, xml.as_bytes())]);
    let mut parsed = read(&bytes);
    assert_eq!(runs_of(&parsed, "body/p#1"), "<1:italic>Slanted</1> plain");
    set_text(&mut parsed, "body/p#1", 1, "  two  ");
    let again = read(&write(&parsed));
    assert_eq!(runs_of(&again, "body/p#1"), "<1:italic>Slanted</1>  two  ");
}

#[test]
fn packages_that_are_not_word_documents_are_refused() {
    let err = error(b"plain text, not a zip");
    assert!(err.contains("not a readable zip archive"), "{err}");
    let bytes = fixture("basic.docx");
    let err = error(&bytes[..bytes.len() / 2]);
    assert!(err.contains("truncated"), "{err}");
    let err = error(&zip_of(&[("word/other.xml", b"<x/>")]));
    assert!(err.contains("has no `word/document.xml`"), "{err}");
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        "<?xml version=\"1.0\"?><w:document/>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    let err = error(&zip_of(&[(DOCUMENT, &utf16)]));
    assert!(err.contains("UTF-16"), "{err}");
    let err = error(&zip_of(&[(
        DOCUMENT,
        b"<?xml version='1.0' encoding='windows-1252'?><w:document/>",
    )]));
    assert!(err.contains("windows-1252"), "{err}");
    let err = error(&zip_of(&[(
        DOCUMENT,
        b"<w:document>\n<w:body>\xff</w:body></w:document>",
    )]));
    assert!(
        err.starts_with("2:9:") && err.contains("not valid UTF-8"),
        "{err}"
    );
    // An oversized part is refused before it is decompressed.
    let big = package(&"<w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(50));
    let err = read_limited(&big, 1000, None).unwrap_err().to_string();
    assert!(
        err.starts_with("word/document.xml: the Word document inflates past 1000 bytes"),
        "{err}"
    );
    assert!(read_limited(&big, 10_000, None).is_ok());
}

#[test]
fn malformed_xml_is_reported_at_its_position() {
    let cases: &[(&str, &str)] = &[
        (
            "<w:document>\n<w:body><w:p></w:r></w:p></w:body></w:document>",
            "2:14: expected `</w:p>` (opened at 2:9), found `</w:r>`",
        ),
        (
            "<w:document>\n<w:body><w:p><w:r><w:t>a &nope; b</w:t></w:r></w:p></w:body></w:document>",
            "2:26: unknown entity `&nope;`",
        ),
        (
            "<w:document>\n<w:body><w:p><w:r><w:t>a<w:b/></w:t></w:r></w:p></w:body></w:document>",
            "2:25: expected `</w:t>`: a `<w:t>` holds text only",
        ),
        (
            "<w:document><w:body>",
            "1:21: `word/document.xml` ends inside `<w:body>` opened at 1:13",
        ),
        (
            "<w:document></w:document></w:body>",
            "1:26: `</w:body>` closes an element",
        ),
        (
            "<w:document><w:body attr=\"x",
            "1:13: a start tag is not closed",
        ),
        ("<w:document><!-- open", "1:13: a comment is never closed"),
    ];
    for (xml, want) in cases {
        let err = error(&zip_of(&[(DOCUMENT, xml.as_bytes())]));
        assert!(
            err.starts_with(want),
            "{xml}\n  got:  {err}\n  want: {want}"
        );
    }
}

#[test]
fn truncated_packages_and_parts_never_panic() {
    for name in ["basic.docx", "fields.docx", "lists.docx", "table.docx"] {
        let bytes = fixture(name);
        for cut in crate::formats::conformance::cuts(bytes.len()) {
            let _ = Docx.read(&bytes[..cut]);
        }
        // A damaged byte in the middle of the archive.
        let step = (bytes.len() / crate::formats::conformance::CUTS).max(1);
        for at in (0..bytes.len()).step_by(step * 3) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x5A;
            if let Ok(parsed) = Docx.read(&damaged) {
                let _ = Docx.write(&parsed);
            }
        }
        let xml = document_xml(&bytes);
        for cut in crate::formats::conformance::cuts(xml.len()) {
            let Some(prefix) = xml.get(..cut) else {
                continue;
            };
            let zip = zip_of(&[(DOCUMENT, prefix.as_bytes())]);
            if let Ok(mut parsed) = Docx.read(&zip) {
                if let Some(block) = parsed.document.blocks.first_mut() {
                    block.source.runs.push(Run::text("x"));
                }
                let _ = Docx.write(&parsed);
            }
        }
    }
}

/// `depth` tables, each in the first cell of the one before, with a paragraph of text in
/// every cell.
fn nested_tables(depth: usize) -> String {
    let mut body = String::new();
    for i in 0..depth {
        body.push_str(&format!(
            "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell {i}</w:t></w:r></w:p>"
        ));
    }
    body.push_str(&"<w:p/></w:tc></w:tr></w:tbl>".repeat(depth));
    body
}

#[test]
fn tables_nested_past_the_limit_are_refused_at_the_table_that_goes_past_it() {
    let parsed = read(&package(&nested_tables(MAX_TABLE_DEPTH)));
    assert_eq!(parsed.document.blocks.len(), MAX_TABLE_DEPTH);
    let deepest = &parsed.document.blocks[MAX_TABLE_DEPTH - 1].key;
    assert_eq!(deepest.matches("tbl#1/r#1/c#1").count(), MAX_TABLE_DEPTH);
    let err = Docx.read(&package(&nested_tables(8000))).unwrap_err();
    let opening = "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell 0</w:t></w:r></w:p>";
    let column = HEAD.lines().nth(1).unwrap().len()
        + MAX_TABLE_DEPTH * opening.len()
        + (0..MAX_TABLE_DEPTH)
            .map(|i| i.to_string().len() - 1)
            .sum::<usize>()
        + 1;
    assert_eq!(
        err,
        ReadError::TooDeep {
            line: 2,
            column,
            what: "tables".into(),
            limit: MAX_TABLE_DEPTH
        }
    );
    assert_eq!(
        err.to_string(),
        format!("2:{column}: tables nest deeper than 64 levels")
    );
}

#[test]
fn elements_nested_past_the_limit_are_refused() {
    let body = format!(
        "{}<w:p><w:r><w:t>deep</w:t></w:r></w:p>{}",
        "<w:sdt><w:sdtContent>".repeat(200),
        "</w:sdtContent></w:sdt>".repeat(200)
    );
    let err = Docx.read(&package(&body)).unwrap_err();
    assert!(
        matches!(&err, ReadError::TooDeep { what, limit: 256, .. } if what == "`word/document.xml` elements"),
        "{err}"
    );
    let ok = body.replace(
        &"<w:sdt><w:sdtContent>".repeat(200),
        &"<w:sdt><w:sdtContent>".repeat(120),
    );
    let ok = ok.replace(
        &"</w:sdtContent></w:sdt>".repeat(200),
        &"</w:sdtContent></w:sdt>".repeat(120),
    );
    assert_eq!(keys(&read(&package(&ok))), ["body/p#1"]);
}

#[test]
fn parts_count_against_one_limit_as_they_inflate() {
    let xml = format!(
        "{HEAD}{}{TAIL}",
        "<w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(50)
    );
    let styles = format!("<w:styles>{}</w:styles>", " ".repeat(2000));
    let zip = zip_of(&[(DOCUMENT, xml.as_bytes()), (STYLES, styles.as_bytes())]);
    assert!(read_limited(&zip, (xml.len() + styles.len()) as u64, None).is_ok());
    let err = read_limited(&zip, (xml.len() + styles.len() - 1) as u64, None).unwrap_err();
    assert!(
        matches!(&err, ReadError::TooLarge { at, .. } if at == STYLES),
        "{err}"
    );
    // A 3 MB part that compresses to a few KB: refused by its declared size, and when the
    // header lies, stopped as it inflates past what it declared.
    let bomb = format!("{HEAD}{}{TAIL}", " ".repeat(3_000_000));
    let mut zip = zip_of(&[(DOCUMENT, bomb.as_bytes())]);
    assert!(zip.len() < 20_000);
    let err = read_limited(&zip, 1_000_000, None).unwrap_err().to_string();
    assert!(
        err.starts_with("word/document.xml: the Word document inflates"),
        "{err}"
    );
    for header in [b"PK\x03\x04", b"PK\x01\x02"] {
        let at = zip.windows(4).position(|w| w == header).unwrap();
        let size = at + if header == b"PK\x03\x04" { 22 } else { 24 };
        zip[size..size + 4].copy_from_slice(&100u32.to_le_bytes());
    }
    let err = read_limited(&zip, 1_000_000, None).unwrap_err().to_string();
    assert!(err.contains("word/document.xml"), "{err}");
}

#[test]
fn paragraphs_and_cells_without_text_keep_their_place_in_the_keys() {
    let body = "<w:p/><w:p><w:r/></w:p><w:p><w:r><w:t>two</w:t></w:r></w:p>\
            <w:tbl><w:tr><w:tc><w:p/></w:tc><w:tc><w:p/><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr>\
            <w:tr><w:tc><w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl></w:tc></w:tr>\
            <w:tr><w:tc><w:p><w:r><w:t>last</w:t></w:r></w:p></w:tc></w:tr></w:tbl>\
            <w:p><w:r><w:t>after</w:t></w:r></w:p>";
    assert_eq!(
        keys(&read(&package(body))),
        [
            "body/p#3",
            "body/tbl#1/r#1/c#2/p#2",
            "body/tbl#1/r#3/c#1/p#1",
            "body/p#4"
        ]
    );
    let loose = zip_of(&[(
        DOCUMENT,
        b"<w:document><w:p/><w:p><w:r><w:t>x</w:t></w:r></w:p></w:document>",
    )]);
    assert_eq!(keys(&read(&loose)), ["p#2"]);
}

#[test]
fn a_list_level_past_u32_reads_without_overflowing() {
    let body = "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"4294967295\"/><w:numId w:val=\"1\"/>\
            </w:numPr></w:pPr><w:r><w:t>deep item</w:t></w:r></w:p>";
    let parsed = read(&package(body));
    assert_eq!(parsed.document.blocks[0].role, Role::ListItem);
    assert_eq!(parsed.document.blocks[0].level, u32::MAX);
}

#[test]
fn the_format_is_registered_for_docx_files() {
    let format = super::super::by_id("docx").unwrap();
    assert_eq!(format.info().name, "Word document");
    assert!(!format.info().capabilities.generative);
    assert!(super::super::for_file(std::path::Path::new("a/Report.DOCX"), &[]).is_some());
    assert!(Docx.sniff(&fixture("basic.docx")));
}
