use std::fmt::Write as _;
use std::path::PathBuf;

use super::*;
use crate::formats::conformance::keys;
use crate::model::Document;
use crate::model::{CodeKind, Edition};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats/json");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    assert!(out.len() >= 20, "fixtures missing");
    out
}

fn read(text: &str) -> Parsed {
    Json.read(text.as_bytes())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Json.write(parsed).unwrap()).unwrap()
}

fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
    let block = parsed
        .document
        .block_mut(key)
        .unwrap_or_else(|| panic!("no block {key}"));
    block.source = Edition::new(vec![Run::text(text)]);
}

/// Text with codes as `<x id="1"/>`, `<x id="/1"/>`, `<x id="1/"/>` and switches as
/// `{id pivot kind|case: …}`.
fn marked(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(code) => {
                let id = match code.kind {
                    CodeKind::Open => code.id.clone(),
                    CodeKind::Close => format!("/{}", code.id),
                    CodeKind::Standalone => format!("{}/", code.id),
                };
                let _ = write!(out, "<x id=\"{id}\"/>");
            }
            Run::Switch(s) => {
                let _ = write!(out, "{{{} {} {}", s.id, s.pivot, s.kind.as_str());
                for b in &s.branches {
                    let _ = write!(out, "|{}: {}", b.case, marked(&b.runs));
                }
                out.push('}');
            }
        }
    }
    out.replace('\r', "\\r").replace('\n', "\\n")
}

fn blocks_table(document: &Document) -> String {
    let mut out = String::new();
    for b in &document.blocks {
        let _ = writeln!(
            out,
            "{} | {} | {} | {}",
            b.key,
            b.role.as_str(),
            b.level,
            marked(&b.source.runs)
        );
    }
    out
}

#[test]
fn every_fixture_round_trips_and_offsets_point_at_their_bytes() {
    for (name, bytes) in fixtures() {
        let parsed = Json.read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
        assert_eq!(Json.write(&parsed).unwrap(), bytes, "{name}");
        let text = parsed.skeleton.text().to_owned();
        fn check(text: &str, runs: &[Run], name: &str) {
            for run in runs {
                match run {
                    Run::Text {
                        text: t,
                        src: Some(at),
                    } => {
                        assert_eq!(&text[*at..*at + t.len()], t, "{name}")
                    }
                    Run::Code(c) if c.src.is_some() => {
                        let at = c.src.unwrap();
                        assert_eq!(&text[at..at + c.data.len()], c.data, "{name}")
                    }
                    Run::Switch(s) => {
                        if let Some(at) = s.src {
                            assert_eq!(&text[at..at + s.head.len()], s.head, "{name}");
                        }
                        for b in &s.branches {
                            check(text, &b.runs, name);
                        }
                    }
                    _ => {}
                }
            }
        }
        for block in &parsed.document.blocks {
            check(&text, &block.source.runs, &name);
        }
    }
}

#[test]
fn rendering_every_value_as_edited_reads_back_the_same_content() {
    for (name, bytes) in fixtures() {
        let mut parsed = Json.read(&bytes).unwrap();
        let before = blocks_table(&parsed.document);
        // Force every hole to render: change each hole's recorded fingerprint.
        for hole in &mut parsed.skeleton.holes {
            hole.original = hole.original.wrapping_add(1);
        }
        let written = Json.write(&parsed).unwrap();
        let again = Json
            .read(&written)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(blocks_table(&again.document), before, "{name}");
    }
}

#[test]
fn keys_are_dot_paths_with_quoted_segments_and_numbered_repeats() {
    let parsed = read(
        r##"{"errors": {"notFound": "Not found", "n": 3, "ok": true, "x": null},
               "list": ["a", 1, {"b": "c"}, ["d"]],
               "a.b": "dotted", "it's": "q", "#1": "h", "": "empty", "7": "digits",
               "dup": "one", "dup": "two", "e": {}, "f": []}"##,
    );
    assert_eq!(
        keys(&parsed),
        [
            "errors.notFound",
            "list.0",
            "list.2.b",
            "list.3.0",
            "'a.b'",
            "'it''s'",
            "'#1'",
            "''",
            "'7'",
            "dup",
            "dup#2",
        ]
    );
    let levels: Vec<u32> = parsed.document.blocks.iter().map(|b| b.level).collect();
    assert_eq!(levels, [1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(keys(&read("\"just text\"")), ["."]);
    assert!(read("[1, true, null, {}]").document.blocks.is_empty());
}

#[test]
fn escapes_are_decoded_and_verbatim_pieces_keep_offsets() {
    let source = r#"{"k": "a\n\"b\" \u00e9\uD83D\uDE00 \uD800 end\/"}"#;
    let parsed = read(source);
    let block = &parsed.document.blocks[0];
    assert_eq!(block.source.plain_text(), "a\n\"b\" é😀 \u{fffd} end/");
    for run in &block.source.runs {
        if let Run::Text {
            text,
            src: Some(at),
        } = run
        {
            assert_eq!(&source[*at..*at + text.len()], text);
        }
    }
    let verbatim: Vec<&str> = block
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Text { text, src: Some(_) } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(verbatim, ["a", "b", " ", " ", " end"]);
    assert_eq!(write(&parsed), source);
}

#[test]
fn an_edit_changes_only_its_value_with_minimal_escaping() {
    let source = "\u{feff}{\r\n  \"a\": \"keep \\u00e9\",\r\n  \"b\": \"old\"\r\n}";
    let mut parsed = read(source);
    set_text(&mut parsed, "b", "new \"q\" \\ é\n\t\u{1} /");
    assert_eq!(
        write(&parsed),
        source.replace("old", "new \\\"q\\\" \\\\ \\u00e9\\n\\t\\u0001 /")
    );
    // `\/` files keep `\/`; ASCII-only files with `\u` escapes keep non-ASCII escaped.
    let mut parsed = read(r#"{"a": "x\/y", "b": "caf\u00E9"}"#);
    set_text(&mut parsed, "b", "http://é😀");
    assert_eq!(
        write(&parsed),
        r#"{"a": "x\/y", "b": "http:\/\/\u00E9\uD83D\uDE00"}"#
    );
}

#[test]
fn latin1_files_are_read_and_written_back_in_latin1() {
    let bytes = b"{\"a\": \"caf\xe9\", \"b\": \"x\"}";
    let mut parsed = Json.read(bytes).unwrap();
    assert_eq!(parsed.skeleton.encoding, Encoding::Latin1);
    assert_eq!(parsed.document.blocks[0].source.plain_text(), "café");
    assert_eq!(Json.write(&parsed).unwrap(), bytes);
    set_text(&mut parsed, "b", "é€");
    assert_eq!(
        Json.write(&parsed).unwrap(),
        b"{\"a\": \"caf\xe9\", \"b\": \"\xe9\\u20ac\"}"
    );
}

#[test]
fn utf16_with_a_bom_round_trips() {
    let text = "\u{feff}{\"a\": \"h\u{e9}llo\"}";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut parsed = Json.read(&bytes).unwrap();
    assert_eq!(Json.write(&parsed).unwrap(), bytes);
    set_text(&mut parsed, "a", "x");
    let want: Vec<u8> = "\u{feff}{\"a\": \"x\"}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(Json.write(&parsed).unwrap(), want);
}

#[test]
fn placeholders_of_every_syntax_are_codes() {
    let parsed =
        read(r#"{"a": "Hi {{name}}, see $t(other.key) and <b>{n}</b> %s %1$d ${x} %{y} &amp;"}"#);
    assert_eq!(
        marked(&parsed.document.blocks[0].source.runs),
        r#"Hi <x id="1/"/>, see <x id="2/"/> and <x id="3"/><x id="4/"/><x id="/3"/> <x id="5/"/> <x id="6/"/> <x id="7/"/> <x id="8/"/> <x id="9/"/>"#
    );
}

#[test]
fn i18next_plural_siblings_read_as_one_switch_with_a_hole_per_branch() {
    let source = r#"{"item_one": "{{count}} item", "other": "x", "item_other": "{{count}} items",
            "rank_ordinal_one": "{{count}}st", "rank_ordinal_other": "{{count}}th",
            "lone_other": "a", "pair_one": "b", "pair_one": "c", "pair_other": "d",
            "nested": {"k_zero": "none", "k_many": "many", "k_other": "some"}}"#;
    let mut parsed = read(source);
    assert_eq!(
        keys(&parsed),
        [
            "item",
            "other",
            "rank_ordinal",
            "lone_other",
            "pair_one",
            "pair_one#2",
            "pair_other",
            "nested.k"
        ]
    );
    assert_eq!(
        marked(&parsed.document.blocks[0].source.runs),
        r#"{1 count plural|one: <x id="1/"/> item|other: <x id="1/"/> items}"#
    );
    assert!(
        marked(&parsed.document.blocks[2].source.runs).starts_with("{1 count selectordinal|one:")
    );
    let holes: Vec<_> = parsed
        .skeleton
        .holes
        .iter()
        .filter(|h| h.block == 0)
        .map(|h| h.branch().unwrap())
        .collect();
    assert_eq!(holes, ["count:one", "count:other"]);
    let block = parsed.document.block_mut("item").unwrap();
    let runs = block.source.branch_mut("count:other").unwrap();
    runs[1] = Run::text(" things");
    assert_eq!(
        write(&parsed),
        source.replace("{{count}} items", "{{count}} things")
    );
}

#[test]
fn a_lone_other_is_a_plural_of_one_form_in_a_file_with_no_one() {
    // Japanese, as i18next writes it: only `_other`, and `{"other": …}` for a nested plural.
    let ja = r#"{"item_other": "{{count}} 項目", "files": {"other": "%(count)s ファイル"}, "title": "題"}"#;
    let mut parsed = read(ja);
    assert_eq!(keys(&parsed), ["item", "files", "title"]);
    assert_eq!(
        marked(&parsed.document.blocks[0].source.runs),
        r#"{1 count plural|other: <x id="1/"/> 項目}"#
    );
    let runs = parsed
        .document
        .block_mut("item")
        .unwrap()
        .source
        .branch_mut("count:other")
        .unwrap();
    runs[1] = Run::text(" 件");
    assert_eq!(write(&parsed), ja.replace("{{count}} 項目", "{{count}} 件"));
    // A file with a `one` anywhere: a lone `_other` is a key of its own.
    let en = r#"{"payment_other": "Other", "nested": {"item_one": "a", "item_other": "b"}}"#;
    assert_eq!(keys(&read(en)), ["payment_other", "nested.item"]);
}

#[test]
fn a_nested_object_of_cldr_categories_is_one_plural_switch() {
    // As Element writes them (element-web `src/i18n/strings/*.json`).
    let source = r#"{"room": {"n_members": {"one": "%(count)s member", "other": "%(count)s members"},
        "mixed": {"one": "a", "other": "b", "label": "c"},
        "lone": {"other": "d"},
        "twice": {"one": "e", "one": "f", "other": "g"},
        "deep": {"one": "h", "other": {"x": "i"}},
        "ru": {"one": "%(count)s участник", "few": "%(count)s участника", "many": "%(count)s участников", "other": "%(count)s участника"}},
        "one": "top", "other": "level"}"#;
    let mut parsed = read(source);
    assert_eq!(
        keys(&parsed),
        [
            "room.n_members",
            "room.mixed.one",
            "room.mixed.other",
            "room.mixed.label",
            "room.lone",
            "room.twice.one",
            "room.twice.one#2",
            "room.twice.other",
            "room.deep.one",
            "room.deep.other.x",
            "room.ru",
            "one",
            "other",
        ]
    );
    let block = &parsed.document.blocks[0];
    assert_eq!(block.level, 1);
    assert_eq!(
        marked(&block.source.runs),
        r#"{1 count plural|one: <x id="1/"/> member|other: <x id="1/"/> members}"#
    );
    let ru = parsed.document.block("room.ru").unwrap();
    let Some(Run::Switch(s)) = ru.source.runs.first() else {
        panic!("room.ru is no switch")
    };
    let cases: Vec<&str> = s.branches.iter().map(|b| b.case.as_str()).collect();
    assert_eq!(cases, ["one", "few", "many", "other"]);
    let runs = parsed
        .document
        .block_mut("room.n_members")
        .unwrap()
        .source
        .branch_mut("count:other")
        .unwrap();
    runs[1] = Run::text(" people");
    assert_eq!(
        write(&parsed),
        source.replace("%(count)s members", "%(count)s people")
    );
}

#[test]
fn icu_messages_are_switches_and_an_edit_requotes() {
    let source = r#"{"m": "It's {count, plural, one {# file '{'x'}'} other {# files}}."}"#;
    let mut parsed = read(source);
    assert_eq!(
        marked(&parsed.document.blocks[0].source.runs),
        r#"It's {1 count plural|one: <x id="1/"/> file {x}|other: <x id="1/"/> files}."#
    );
    let runs = parsed.document.blocks[0]
        .source
        .branch_mut("count:other")
        .unwrap();
    runs[1] = Run::text(" \"files\" {y}");
    assert_eq!(
        write(&parsed),
        r#"{"m": "It's {count, plural, one {# file '{x}'} other {# \"files\" '{y}'}}."}"#
    );
}

#[test]
fn malformed_json_is_an_error_with_its_position() {
    let table: &[(&str, usize, usize, &str)] = &[
        ("", 1, 1, "the file is empty"),
        (
            "{\"a\": \"b\" \"c\": 1}",
            1,
            11,
            "expected `,` or `}` after an object member, found `\"`",
        ),
        ("[1 2]", 1, 4, "expected `,` or `]` after an array item"),
        ("{\"a\" 1}", 1, 6, "expected `:` after an object key"),
        (
            "{a: 1}",
            1,
            2,
            "expected an object key in double quotes, found `a`",
        ),
        ("{\"a\": 1,}", 1, 9, "no trailing comma"),
        ("[1,]", 1, 4, "no trailing comma"),
        ("{\"a\": \"b", 1, 7, "unterminated string"),
        ("{\"a\": \"b\nc\"}", 1, 9, "runs past the end of its line"),
        ("{\"a\": \"\\x\"}", 1, 8, "invalid escape `\\x`"),
        ("{\"a\": \"\\u12G4\"}", 1, 12, "expected four hex digits"),
        ("{\"a\": -}", 1, 8, "invalid number: expected a digit"),
        ("{\"a\": 1.}", 1, 9, "after `.`"),
        ("{\"a\": 1e}", 1, 9, "in the exponent"),
        ("{\"a\": True}", 1, 7, "expected a value"),
        ("{\"a\": 'b'}", 1, 7, "expected a value"),
        ("{}\n{}", 2, 1, "expected the end of the file"),
        ("{\n  \"a\": [\n    1\n  }\n", 4, 3, "expected `,` or `]`"),
    ];
    for (input, line, column, message) in table {
        match Json.read(input.as_bytes()) {
            Err(ReadError::Syntax {
                line: l,
                column: c,
                message: m,
            }) => {
                assert_eq!((l, c), (*line, *column), "{input:?}: {m}");
                assert!(m.contains(message), "{input:?}: {m}");
            }
            other => panic!("{input:?}: {other:?}"),
        }
    }
    assert!(matches!(
        Json.read(b"{\"a\": \"\0\"}"),
        Err(ReadError::Binary { .. })
    ));
}

#[test]
fn a_long_key_repeated_in_many_values_is_refused_before_it_takes_gigabytes() {
    // 20,000 values under a 1 MB key would be 20 GB of keys.
    let long = format!(
        "{{\"{}\": [{}]}}",
        "k".repeat(1024 * 1024),
        vec!["\"\""; 20_000].join(",")
    );
    let err = Json.read(long.as_bytes()).unwrap_err();
    match &err {
        ReadError::TooLarge { at, message } => {
            assert!(at.starts_with("1:"), "{err}");
            assert!(
                message.contains("block keys would outgrow the file"),
                "{err}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The same values under a short key, and a long key over a few values, read.
    let short = format!("{{\"k\": [{}]}}", vec!["\"\""; 20_000].join(","));
    assert_eq!(read(&short).document.blocks.len(), 20_000);
    let few = format!("{{\"{}\": [\"a\", \"b\"]}}", "k".repeat(1024 * 1024));
    assert_eq!(read(&few).document.blocks.len(), 2);
}

#[test]
fn a_plural_group_across_a_chunk_of_entries_and_repeated_keys_read_as_before() {
    // The group's first member is the last entry of a chunk, its second the next chunk's
    // first; `a` repeats at both ends.
    let mut members: Vec<String> = vec!["\"a\": \"first\"".into()];
    members.extend((1..CHUNK - 1).map(|i| format!("\"k{i}\": \"v\"")));
    members.push("\"item_one\": \"{{count}} item\"".into());
    members.push("\"item_other\": \"{{count}} items\"".into());
    members.push("\"a\": \"again\"".into());
    let text = format!("{{{}}}", members.join(",\n"));
    let parsed = read(&text);
    let blocks = &parsed.document.blocks;
    assert_eq!(blocks.len(), CHUNK + 1);
    assert_eq!(blocks[0].key, "a");
    assert_eq!(blocks[CHUNK - 1].key, "item");
    assert!(
        matches!(&blocks[CHUNK - 1].source.runs[..], [Run::Switch(s)] if s.branches.len() == 2)
    );
    assert_eq!(blocks[CHUNK].key, "a#2");
    assert_eq!(Json.write(&parsed).unwrap(), text.as_bytes());
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let deep = "[".repeat(200_000);
    let err = Json.read(deep.as_bytes()).unwrap_err();
    assert_eq!(
        err,
        ReadError::TooDeep {
            line: 1,
            column: 257,
            what: "objects and arrays".into(),
            limit: 256
        }
    );
    assert_eq!(
        err.to_string(),
        "1:257: objects and arrays nest deeper than 256 levels"
    );
    let ok = "[".repeat(256) + "\"x\"" + &"]".repeat(256);
    let parsed = read(&ok);
    assert_eq!(parsed.document.blocks[0].key.matches('.').count(), 255);
    let objects = "{\"a\":".repeat(5000) + "1" + &"}".repeat(5000);
    assert!(Json.read(objects.as_bytes()).is_err());
}

#[test]
fn truncated_and_mangled_input_never_panics() {
    for (_, bytes) in fixtures() {
        for cut in crate::formats::conformance::cuts(bytes.len()) {
            let input = &bytes[..cut];
            if let Ok(mut parsed) = Json.read(input) {
                assert_eq!(Json.write(&parsed).unwrap(), input);
                for block in &mut parsed.document.blocks {
                    block.source.runs.push(Run::text(" \"x\" \\ {y} ' #"));
                }
                let _ = Json.write(&parsed).unwrap();
            }
        }
    }
    for nasty in [
        "\u{feff}",
        "\"",
        "\"\\",
        "\"\\u",
        "\"\\uD800",
        "\"\\uD800\\u",
        "\"\\uD800\\uDC0",
        "{\"",
        "{\"a\"",
        "{\"a\":",
        "[",
        "[\"a\",",
        "-",
        "0.",
        "1e+",
        "tru",
        "{\"a_one\":\"x\",\"a_other\":",
    ] {
        let _ = Json.read(nasty.as_bytes());
    }
}

#[test]
fn sniff_accepts_json_openings() {
    assert!(Json.sniff(b"\xEF\xBB\xBF  {\"a\": 1}"));
    assert!(Json.sniff(b"\n[1]"));
    assert!(!Json.sniff(b"<?xml version"));
}

#[test]
fn reads_blocks_of_the_i18next_and_icu_fixtures() {
    let bytes = include_bytes!("../../../../testdata/formats/json/kapi-i18next.json");
    insta::assert_snapshot!(
        "json_blocks_kapi_i18next",
        blocks_table(&Json.read(bytes).unwrap().document)
    );
    let bytes = include_bytes!("../../../../testdata/formats/json/kapi-icu.json");
    insta::assert_snapshot!(
        "json_blocks_kapi_icu",
        blocks_table(&Json.read(bytes).unwrap().document)
    );
}

#[test]
fn digits_ends_a_run_of_digits_and_refuses_none() {
    let scanner = Scanner::new("12.5e+07x");
    assert_eq!(scanner.digits(0, "").unwrap(), 2);
    assert_eq!(scanner.digits(3, " after `.`").unwrap(), 4);
    assert_eq!(scanner.digits(6, " in the exponent").unwrap(), 8);
    let e = scanner.digits(8, " in the exponent").unwrap_err();
    assert!(
        e.to_string()
            .contains("invalid number: expected a digit in the exponent, found `x`"),
        "{e}"
    );
}
