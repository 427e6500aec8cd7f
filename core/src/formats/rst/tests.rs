//! reStructuredText: the corpus (Sphinx's docs and test roots) through the conformance checks,
//! and what each construct reads as.
use super::Rst;
use crate::formats::conformance;
use crate::formats::{Format, Parsed};
use crate::model::{Edition, Role, Run};

fn read(text: &str) -> Parsed {
    Rst.read(text.as_bytes()).unwrap()
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

fn edit(text: &str, key: &str, to: &str) -> Result<String, crate::formats::WriteError> {
    let mut parsed = read(text);
    parsed.document.block_mut(key).unwrap().source = Edition::new(vec![Run::text(to)]);
    Rst.write(&parsed).map(|b| String::from_utf8(b).unwrap())
}

/// Every block of the corpus takes a `set_content` of its own text as a no-op.
#[test]
fn every_block_of_the_corpus_takes_its_own_text_as_a_no_op() {
    let mut tried = 0;
    for path in conformance::fixtures("rst") {
        let bytes = std::fs::read(&path).unwrap();
        tried += conformance::assert_own_text_is_a_no_op(&Rst, &path.display().to_string(), &bytes);
    }
    assert!(tried > 1000, "{tried} blocks");
}

/// Every file of the corpus round-trips byte for byte, takes a one-block edit, and keeps
/// its keys.
#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    assert!(conformance::run_corpus(&Rst, "rst") > 40);
}

/// Every block of the corpus takes a `set_content` of its own text as a no-op, and its
/// prose never holds markup.
#[test]
fn the_corpus_reads_no_markup_as_prose() {
    let mut prose = 0;
    for path in conformance::fixtures("rst") {
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let parsed = Rst.read(&bytes).unwrap();
        let name = path.display();
        for block in &parsed.document.blocks {
            if !block.translatable {
                continue;
            }
            prose += 1;
            let text = block.source.plain_text();
            for needle in [
                ":ref:`",
                ":doc:`",
                "``",
                "\n.. ",
                ":maxdepth:",
                "`_",
                "|version|",
            ] {
                assert!(!text.contains(needle), "{name} {}: {text:?}", block.key);
            }
            assert!(!text.starts_with(".. "), "{name} {}: {text:?}", block.key);
        }
    }
    assert!(prose > 2000, "{prose} prose blocks");
}

#[test]
fn sections_paragraphs_and_lists() {
    let text = "Title\n=====\n\nA *para*\ngoes on.\n\n- one\n- two\n\n  more\n\n1. first\n\nSub\n---\n\nterm : type\n   Its definition.\n\n:param x: The x.\n";
    assert_eq!(
        blocks(text),
        [
            "s1/h heading: Title",
            "s1/p paragraph: A para\ngoes on.",
            "s1/li list-item: one",
            "s1/li#2 list-item: two",
            "s1/li#3 list-item: more",
            "s1/li#4 list-item: first",
            "s2/h heading: Sub",
            "s2/term paragraph: term",
            "s2/def paragraph: Its definition.",
            "s2/field list-item: The x.",
        ]
    );
    let parsed = read(text);
    assert_eq!(parsed.document.blocks[6].level, 2);
    assert_eq!(parsed.document.blocks[1].label.as_deref(), Some("title/p"));
}

#[test]
fn directives_hold_prose_or_code_as_they_say() {
    let text = ".. note:: Mind\n   this.\n\n.. code-block:: python\n   :linenos:\n\n   x = 1\n\n.. toctree::\n   :maxdepth: 2\n\n   intro\n\n.. versionadded:: 2.0\n   Added it.\n\n.. admonition:: My title\n\n   Body.\n\n.. py:function:: f(x)\n\n   Does f.\n\n.. _target:\n\n.. a comment\n   more\n\n.. |sub| replace:: text\n";
    assert_eq!(
        blocks(text),
        [
            "top/p paragraph: Mind\nthis.",
            "top/code code: x = 1",
            "top/p#2 paragraph: Added it.",
            "top/title heading: My title",
            "top/p#3 paragraph: Body.",
            "top/p#4 paragraph: Does f.",
        ]
    );
}

#[test]
fn literal_blocks_footnotes_quotes_and_tables() {
    let text = "Example::\n\n   code here\n\nText ::\n\n   more code\n\n.. [1] A note.\n\nPara.\n\n   A quote.\n\n=====  =====\nA      B\n=====  =====\n\n+-----+-----+\n| x   | y   |\n+-----+-----+\n";
    assert_eq!(
        blocks(text),
        [
            "top/p paragraph: Example",
            "top/code code: code here",
            "top/p#2 paragraph: Text",
            "top/code#2 code: more code",
            "top/footnote paragraph: A note.",
            "top/p#3 paragraph: Para.",
            "top/quote quote: A quote.",
            "top/cell table-cell: A",
            "top/cell#2 table-cell: B",
            "top/cell#3 table-cell: x",
            "top/cell#4 table-cell: y",
        ]
    );
}

#[test]
fn edits_keep_the_shape_of_their_place() {
    let text = "Title\n=====\n\n- item\n  text\n\n+-----+-----+\n| x   | y   |\n+-----+-----+\n";
    assert_eq!(
        edit(text, "s1/h", "A longer title").unwrap(),
        "A longer title\n==============\n\n- item\n  text\n\n+-----+-----+\n| x   | y   |\n+-----+-----+\n"
    );
    assert_eq!(
        edit(text, "s1/li", "new\nlines and *stars*").unwrap(),
        "Title\n=====\n\n- new\n  lines and \\*stars\\*\n\n+-----+-----+\n| x   | y   |\n+-----+-----+\n"
    );
    assert_eq!(
        edit(text, "s1/cell", "ab").unwrap(),
        "Title\n=====\n\n- item\n  text\n\n+-----+-----+\n| ab  | y   |\n+-----+-----+\n"
    );
    // Wider than its column: the column widens on every line of the table.
    assert_eq!(
        edit(text, "s1/cell", "far too wide").unwrap(),
        "Title\n=====\n\n- item\n  text\n\n+--------------+-----+\n| far too wide | y   |\n+--------------+-----+\n"
    );
    let simple = "=====  =====\nA      B\n=====  =====\nx      y\n=====  =====\n";
    let mut parsed = read(simple);
    parsed.document.block_mut("top/cell").unwrap().source = Edition::new(vec![Run::text("Longer")]);
    assert_eq!(
        String::from_utf8(Rst.write(&parsed).unwrap()).unwrap(),
        "======  =====\nLonger  B\n======  =====\nx       y\n======  =====\n"
    );
    let reread = read(&String::from_utf8(Rst.write(&parsed).unwrap()).unwrap());
    assert_eq!(reread.document.blocks.len(), 4);
}

#[test]
fn a_multi_line_cell_is_locked_and_read() {
    let text = "+-----+\n| a   |\n| b   |\n+-----+\n";
    let parsed = read(text);
    let cell = &parsed.document.blocks[0];
    assert_eq!(cell.source.plain_text(), "a\nb");
    assert!(cell.locked.is_some());
    assert!(parsed.skeleton.holes.is_empty());
    assert_eq!(cell.role, Role::TableCell);
}

#[test]
fn hostile_input_is_bounded() {
    let deep: String = (0..300)
        .map(|i| format!("{}- x\n", " ".repeat(i * 2)))
        .collect();
    assert!(
        Rst.read(deep.as_bytes()).is_err(),
        "nesting past the limit is refused"
    );
    for text in [
        "*".repeat(100_000),
        "a\n".repeat(100_000),
        "+-+\n".repeat(10_000),
        ".. note::\n".repeat(10_000),
        "=====  ===\n".repeat(10_000),
        "`".repeat(50_000) + "\n",
    ] {
        if let Ok(parsed) = Rst.read(text.as_bytes()) {
            assert_eq!(Rst.write(&parsed).unwrap(), text.as_bytes());
        }
    }
    for cut in conformance::cuts(4000) {
        let text = std::fs::read_to_string(
            conformance::fixtures("rst")
                .into_iter()
                .find(|p| p.ends_with("sphinx-doc_usage_restructuredtext_basics.rst"))
                .unwrap(),
        )
        .unwrap();
        let cut = cut.min(text.len());
        let mut at = cut;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let part = &text[..at];
        let parsed = Rst.read(part.as_bytes()).unwrap();
        assert_eq!(Rst.write(&parsed).unwrap(), part.as_bytes());
    }
}
