//! AsciiDoc: the corpus (Spring Boot's and Asciidoctor's docs) through the conformance
//! checks, and what each construct reads as.
use super::AsciiDoc;
use crate::formats::conformance;
use crate::formats::{Format, Parsed};
use crate::model::{Edition, Run};

fn read(text: &str) -> Parsed {
    AsciiDoc.read(text.as_bytes()).unwrap()
}

/// Each block as `key role: text`.
fn blocks(text: &str) -> Vec<String> {
    read(text)
        .document
        .blocks
        .iter()
        .map(|b| format!("{} {}: {}", b.key, b.role.as_str(), b.source.plain_text()))
        .collect()
}

fn edit(text: &str, key: &str, to: &str) -> String {
    let mut parsed = read(text);
    parsed.document.block_mut(key).unwrap().source = Edition::new(vec![Run::text(to)]);
    String::from_utf8(AsciiDoc.write(&parsed).unwrap()).unwrap()
}

/// Every block of the corpus takes a `set_content` of its own text as a no-op.
#[test]
fn every_block_of_the_corpus_takes_its_own_text_as_a_no_op() {
    let mut tried = 0;
    for path in conformance::fixtures("asciidoc") {
        let bytes = std::fs::read(&path).unwrap();
        tried +=
            conformance::assert_own_text_is_a_no_op(&AsciiDoc, &path.display().to_string(), &bytes);
    }
    assert!(tried > 1000, "{tried} blocks");
}

/// Every file of the corpus round-trips byte for byte, takes a one-block edit, and keeps
/// its keys.
#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    assert!(conformance::run_corpus(&AsciiDoc, "asciidoc") > 40);
}

/// No prose block of the corpus holds markup: attribute entries, block attributes,
/// delimiters, preprocessor lines, macros.
#[test]
fn the_corpus_reads_no_markup_as_prose() {
    let mut prose = 0;
    for path in conformance::fixtures("asciidoc") {
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let parsed = AsciiDoc.read(&bytes).unwrap();
        let name = path.display();
        for block in &parsed.document.blocks {
            if !block.translatable {
                continue;
            }
            prose += 1;
            let text = block.source.plain_text();
            for needle in [
                "include::",
                "ifdef::",
                "endif::",
                "\n----",
                "[source",
                "xref:",
                "{version}",
                "kbd:[",
            ] {
                assert!(!text.contains(needle), "{name} {}: {text:?}", block.key);
            }
            assert!(
                !text.starts_with(":") && !text.starts_with("[["),
                "{name} {}: {text:?}",
                block.key
            );
        }
    }
    assert!(prose > 1500, "{prose} prose blocks");
}

#[test]
fn sections_paragraphs_lists_and_blocks() {
    let text = "= Doc\nAuthor <a@b.c>\n:toc:\n\nPreamble *text*.\n\nNOTE: Mind this.\n\n== One\n\n.A title\n* item one\n** nested\n+\nattached para\n\nterm:: its definition\n\n[source,java]\n----\nint x;\n----\n\n[NOTE]\n====\nInside note.\n====\n\n____\nA quote.\n____\n\n|===\n|a |b\n2+|c\n|===\n\n// a comment\ninclude::x.adoc[]\n\n  literal text\n";
    assert_eq!(
        blocks(text),
        [
            "s1/h heading: Doc",
            "s1/p paragraph: Preamble text.",
            "s1/p#2 paragraph: Mind this.",
            "s2/h heading: One",
            "s2/title heading: A title",
            "s2/li list-item: item one",
            "s2/li#2 list-item: nested",
            "s2/li#3 list-item: attached para",
            "s2/term paragraph: term",
            "s2/def list-item: its definition",
            "s2/code code: int x;",
            "s2/p paragraph: Inside note.",
            "s2/quote quote: A quote.",
            "s2/cell table-cell: a",
            "s2/cell#2 table-cell: b",
            "s2/cell#3 table-cell: c",
            "s2/code#2 code: literal text",
        ]
    );
}

/// A preprocessor line inside a paragraph's lines is no part of its text: it splits the
/// paragraph, and stays as it stands.
#[test]
fn a_conditional_inside_a_paragraph_is_no_prose() {
    let text = "First line.\nifdef::backend-html5[]\nOnly in HTML.\nendif::[]\nLast line.\n";
    assert_eq!(
        blocks(text),
        [
            "top/p paragraph: First line.",
            "top/p#2 paragraph: Only in HTML.",
            "top/p#3 paragraph: Last line."
        ]
    );
}

#[test]
fn edits_keep_the_shape_of_their_place() {
    let text = "Title\n=====\n\n* item\n\n|===\n|a |b\n|===\n";
    assert_eq!(
        edit(text, "s1/h", "A longer title"),
        "A longer title\n==============\n\n* item\n\n|===\n|a |b\n|===\n"
    );
    assert_eq!(
        edit(text, "s1/li", "new *text*\n- not a list"),
        "Title\n=====\n\n* new \\*text*\n{empty}- not a list\n\n|===\n|a |b\n|===\n"
    );
    assert_eq!(
        edit(text, "s1/cell", "x|y"),
        "Title\n=====\n\n* item\n\n|===\n|x\\|y |b\n|===\n"
    );
    let again = read(&edit(text, "s1/li", "new *text*\n- not a list"));
    assert_eq!(again.document.blocks.len(), 4);
}

#[test]
fn hostile_input_is_bounded() {
    let unclosed = "====\n".repeat(300);
    let _ = AsciiDoc.read(unclosed.as_bytes());
    let nested: String = (4..300).map(|n| "=".repeat(n) + "\n").collect();
    let closing: String = (4..300).rev().map(|n| "=".repeat(n) + "\n").collect();
    let text = format!("{nested}text\n{closing}");
    assert!(
        AsciiDoc.read(text.as_bytes()).is_err(),
        "nesting past the limit is refused"
    );
    for text in [
        "*".repeat(100_000),
        "a\n".repeat(100_000),
        "|===\n".to_owned() + &"|".repeat(100_000),
        "----\n".repeat(10_000),
        "* a\n+\n".repeat(10_000),
        "`".repeat(50_000) + "\n",
    ] {
        if let Ok(parsed) = AsciiDoc.read(text.as_bytes()) {
            assert_eq!(AsciiDoc.write(&parsed).unwrap(), text.as_bytes());
        }
    }
}
