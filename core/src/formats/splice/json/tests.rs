//! The splice locator held to the full JSON reader: every block it finds is the reader's
//! (key, level, span, runs with their offsets, rev, hole), and it answers `None` wherever the
//! reader could number, group or refuse otherwise.

use std::collections::BTreeSet;

use super::*;
use crate::formats::json::Json;
use crate::formats::output::read_picked;
use crate::formats::{Format, conformance};

fn keys(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|k| (*k).to_owned()).collect()
}

/// Locates `keys` and asserts the answer is the full reader's picked read, blocks and holes.
fn same_as_reader(text: &str, keys: &BTreeSet<String>) -> Located {
    let located = locate(text.to_owned(), keys).unwrap_or_else(|| panic!("{keys:?} not located"));
    let picked = read_picked(&Json, text.as_bytes().to_vec(), &mut |_, b| {
        keys.contains(&b.key)
    })
    .expect("the reader reads it");
    assert_eq!(located.parsed.document, picked.parsed.document, "{keys:?}");
    assert_eq!(located.parsed.skeleton, picked.parsed.skeleton, "{keys:?}");
    for (a, b) in located
        .parsed
        .document
        .blocks
        .iter()
        .zip(&picked.parsed.document.blocks)
    {
        assert_eq!(a.source.rev(), b.source.rev());
    }
    located
}

const HOSTILE: &str = "\u{feff}{\r\n  \"title\": \"Say \\\"title\\\": {name}\",\r\n  \"nested\": {\"title\": \"deep \\u00e9\\ud83d\\ude00 <b>x</b>\", \"list\": [\"a\", {\"b\": \"%s and %1$d\"}, 3, true, null, -1.5e3]},\r\n  \"a.b\": \"dotted {n, plural, one {# day} other {# days}}\",\r\n  \"0\": \"digits\", \"\": \"empty key\", \"it's\": \"quote\", \"x#2\": \"hash\",\r\n  \"esc\\\"aped\": \"key with an escape\", \"empty\": \"\", \"slash\": \"a\\/b\\n\\t\"\r\n}\r\n";

#[test]
fn every_key_of_a_hostile_file_is_the_readers_block() {
    let parsed = Json.read(HOSTILE.as_bytes()).expect("reads");
    assert!(parsed.document.blocks.len() >= 12);
    for block in &parsed.document.blocks {
        same_as_reader(HOSTILE, &keys(&[&block.key]));
    }
    // Several at once, in file order.
    let all: BTreeSet<String> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.clone())
        .collect();
    let located = same_as_reader(HOSTILE, &all);
    assert_eq!(located.parsed.document.blocks.len(), all.len());
}

#[test]
fn every_key_of_the_corpus_is_the_readers_block() {
    let mut checked = 0;
    for path in conformance::fixtures("json") {
        let bytes = std::fs::read(&path).expect("a fixture");
        let Some(text) = utf8(bytes.clone()) else {
            continue;
        };
        let Ok(parsed) = Json.read(&bytes) else {
            assert!(locate(text, &keys(&["a"])).is_none(), "{}", path.display());
            continue;
        };
        for block in parsed.document.blocks.iter().step_by(7) {
            let wanted = keys(&[&block.key]);
            match locate(text.clone(), &wanted) {
                Some(_) => {
                    same_as_reader(&text, &wanted);
                    checked += 1;
                }
                // Only where the reader numbers or groups the key, or the value is long.
                None => assert!(
                    block.key.contains('#')
                        || matches!(block.source.runs.first(), Some(Run::Switch(_)))
                        || block.span.len() > LONGEST_SIBLING
                        || parsed
                            .document
                            .blocks
                            .iter()
                            .any(|b| b.key == format!("{}#2", block.key)),
                    "{}: `{}` not located",
                    path.display(),
                    block.key
                ),
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn a_key_that_appears_inside_a_string_value_is_not_taken_for_the_member() {
    let text = r#"{"note": "\"title\": \"fake\"", "title": "real", "x": "title"}"#;
    let located = same_as_reader(text, &keys(&["title"]));
    assert_eq!(
        located.parsed.document.blocks[0].source.plain_text(),
        "real"
    );
}

#[test]
fn duplicate_keys_fall_back() {
    assert!(locate(r#"{"a": "1", "a": "2"}"#.into(), &keys(&["a"])).is_none());
    assert!(
        locate(
            r#"{"a": {"b": "1"}, "a": {"b": "2"}}"#.into(),
            &keys(&["a.b"])
        )
        .is_none()
    );
    // The second is `a#2` to the reader: never located.
    assert!(locate(r#"{"a": "1", "a": "2"}"#.into(), &keys(&["a#2"])).is_none());
    // A duplicate elsewhere does not matter.
    same_as_reader(r#"{"a": "1", "b": "2", "b": "3"}"#, &keys(&["a"]));
    // Same member name under other parents is another key.
    same_as_reader(r#"{"a": {"b": "1"}, "c": {"b": "2"}}"#, &keys(&["a.b"]));
}

#[test]
fn plural_siblings_and_their_group_keys_fall_back() {
    let text = r#"{"item_one": "one", "item_other": "many", "item": "plain", "x_one": "lone"}"#;
    assert!(locate(text.into(), &keys(&["item"])).is_none());
    assert!(locate(text.into(), &keys(&["item_one"])).is_none());
    assert!(locate(text.into(), &keys(&["x_one"])).is_none());
    let ordinal = r#"{"place_ordinal_one": "st", "place_ordinal": "x"}"#;
    assert!(locate(ordinal.into(), &keys(&["place_ordinal"])).is_none());
    // A nested plural object's members, and the object's key.
    let nested = r#"{"items": {"one": "1 item", "other": "%(count)s items"}, "a": {"b": "x"}}"#;
    assert!(locate(nested.into(), &keys(&["items.one"])).is_none());
    assert!(locate(nested.into(), &keys(&["items"])).is_none());
    same_as_reader(nested, &keys(&["a.b"]));
    // A sibling elsewhere does not matter.
    same_as_reader(
        r#"{"a": {"item_one": "1", "item_other": "2"}, "item": "x"}"#,
        &keys(&["item"]),
    );
}

#[test]
fn a_missing_key_a_non_string_or_a_non_canonical_key_falls_back() {
    let text = r#"{"a": {"b": 1}, "c": ["x"], "0": "zero", "d": "y"}"#;
    for key in [
        "z", "a", "a.b", "c", "c.1", "'d'", "0", ".", "", "c.00", "a..b",
    ] {
        assert!(locate(text.into(), &keys(&[key])).is_none(), "{key}");
    }
    same_as_reader(text, &keys(&["c.0"]));
    same_as_reader(text, &keys(&["'0'"]));
    // One of several keys missing: the whole answer is `None`.
    assert!(locate(text.into(), &keys(&["d", "z"])).is_none());
}

#[test]
fn malformed_or_unusual_files_fall_back() {
    for text in [
        r#"{"a": "x",}"#,
        r#"{"a": "x" "b": "y"}"#,
        r#"{"a": "x"} trailing"#,
        r#"{"a": "x", "b": 01}"#,
        r#"{"a": "x", "b": "bad \q escape"}"#,
        r#"{"a": "x", "b": "\u12"}"#,
        "{\"a\": \"x\", \"b\": \"tab\tinside\"}",
        r#"{"a": "x", "b": tru}"#,
        r#"{"a": "x", "b": -}"#,
        r#"{"a": "x""#,
        r#"["a"]"#,
        "",
    ] {
        assert!(locate(text.into(), &keys(&["a"])).is_none(), "{text}");
    }
    let deep = format!(
        "{{\"a\": \"x\", \"b\": {}1{}}}",
        "[".repeat(300),
        "]".repeat(300)
    );
    assert!(locate(deep, &keys(&["a"])).is_none());
    let long = format!("{{\"a\": \"x\", \"b\": \"{}\"}}", "%%".repeat(LONGEST));
    assert!(locate(long, &keys(&["a"])).is_none());
    assert!(utf8(b"{\"a\": \"\0\"}".to_vec()).is_none());
    assert!(utf8(b"{\"a\": \"\xe9\"}".to_vec()).is_none());
}

/// Edits each located block through the JSON writer and reads it back: the splice's read back
/// is the full reader's read of the written text.
#[test]
fn a_read_back_is_the_readers_read_of_what_was_written() {
    let parsed = Json.read(HOSTILE.as_bytes()).expect("reads");
    let all: BTreeSet<String> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.clone())
        .collect();
    let mut located = same_as_reader(HOSTILE, &all);
    let texts = [
        "plain",
        "",
        "with \"quotes\" and \\ and \n and /",
        "é 😀 {name}",
        "<b>x</b> %s",
    ];
    for (i, block) in located.parsed.document.blocks.iter_mut().enumerate() {
        if i % 2 == 0 {
            block.source = crate::model::Edition::new(vec![Run::text(texts[i % texts.len()])]);
        }
    }
    let bytes = Json.write(&located.parsed).expect("writes");
    let new = String::from_utf8(bytes.clone()).expect("UTF-8");
    let back = reread(&new, &located.parsed, located.key_bytes).expect("read back");
    let full = Json.read(&bytes).expect("the reader reads it");
    for block in &back {
        let theirs = full.document.block(&block.key).expect("the block");
        assert_eq!(block, theirs);
    }
    assert_eq!(back.len(), all.len());
}

#[test]
fn the_splice_writes_what_the_json_writer_writes_in_each_style() {
    for text in [
        HOSTILE,
        "{\"a\": \"x\", \"b\": \"a\\/b\"}",
        "{\"a\": \"x\", \"b\": \"caf\\u00E9\"}",
        "{\"a\": \"x\", \"b\": \"caf\\u00e9 \\\\u00FF\"}",
        "{\"a\": \"x\", \"b\": \"caf\u{e9}\\u00e9\"}",
    ] {
        let wanted = keys(&["a"]);
        let Some(mut located) = locate(text.to_owned(), &wanted) else {
            continue;
        };
        let mut full = read_picked(&Json, text.as_bytes().to_vec(), &mut |_, b| {
            wanted.contains(&b.key)
        })
        .expect("reads")
        .parsed;
        let edit = crate::model::Edition::new(vec![Run::text("é 😀 / \" \\ \u{1} \u{2028}")]);
        located.parsed.document.blocks[0].source = edit.clone();
        full.document.blocks[0].source = edit;
        assert_eq!(
            write(&located.parsed).expect("splice"),
            Json.write(&full).expect("json"),
            "{text}"
        );
    }
}

#[test]
fn escapes_read_as_the_reader_reads_them() {
    // A lone surrogate, a pair split by text, escaped keys and a key that is all escapes.
    let text =
        r#"{"a": "lone \ud83d here", "b": "\ud83d x \ude00", "\u0063": "key c", "d\"e": "\/\b\f"}"#;
    let parsed = Json.read(text.as_bytes()).expect("reads");
    for block in &parsed.document.blocks {
        same_as_reader(text, &keys(&[&block.key]));
    }
    assert!(parsed.document.block("c").is_some());
}
