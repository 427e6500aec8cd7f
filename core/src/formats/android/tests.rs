use super::*;
use crate::model::{Document, Edition};

fn read(text: &str) -> Parsed {
    Android.read(text.as_bytes()).unwrap()
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Android.write(parsed).unwrap()).unwrap()
}

fn wrap(inner: &str) -> String {
    format!("<resources>\n    {inner}\n</resources>\n")
}

/// Runs as text with codes as `<x id/>` tags.
fn shown(runs: &[Run]) -> String {
    let mut text = String::new();
    for run in runs {
        match run {
            Run::Text { text: t, .. } => text.push_str(t),
            Run::Code(c) => text.push_str(&match c.kind {
                CodeKind::Open => format!("<x id=\"{}\"/>", c.id),
                CodeKind::Close => format!("<x id=\"/{}\"/>", c.id),
                CodeKind::Standalone => format!("<x id=\"{}/\"/>", c.id),
            }),
            Run::Switch(s) => {
                for b in &s.branches {
                    text.push_str(&format!("[{}:{}: {}]", s.pivot, b.case, shown(&b.runs)));
                }
            }
        }
    }
    text
}

fn blocks_table(document: &Document) -> String {
    let mut out = String::new();
    for block in &document.blocks {
        out.push_str(&format!(
            "{} | {} | {} | {} | {} | {}\n",
            block.key,
            block.level,
            block.translatable,
            block.locked.as_deref().unwrap_or(""),
            block.notes.join(" / "),
            shown(&block.source.runs).replace('\n', "\\n")
        ));
    }
    out
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    super::super::conformance::fixtures("android")
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

fn value(inner: &str) -> String {
    let parsed = read(&wrap(inner));
    parsed.document.blocks[0].source.plain_text()
}

#[test]
fn escapes_quotes_and_whitespace_read_as_aapt2_reads_them() {
    let table: &[(&str, &str)] = &[
        (r#"<string name="a">plain</string>"#, "plain"),
        (
            r#"<string name="a">  lead and   inner  </string>"#,
            "lead and inner",
        ),
        (
            r#"<string name="a">it\'s \"x\" \\ \@ \? \q</string>"#,
            "it's \"x\" \\ @ ? q",
        ),
        (
            r#"<string name="a">a\nb\tc\u00e9\u0020</string>"#,
            "a\nb\tcé ",
        ),
        (r#"<string name="a">\uD83D\uDE00</string>"#, "😀"),
        (
            r#"<string name="a">"  kept   it's  "</string>"#,
            "  kept   it's  ",
        ),
        (
            r#"<string name="a">a &amp; b &lt;c&gt; &#39;d&#x27; &quot;e</string>"#,
            "a & b <c> 'd' e",
        ),
        (r#"<string name="a">x&#10;&#32;y</string>"#, "x y"),
        (
            r#"<string name="a">line\n
            next</string>"#,
            "line\n next",
        ),
        (
            r#"<string name="a"><![CDATA[<b>x</b> & \'y\']]></string>"#,
            "<b>x</b> & 'y'",
        ),
        (r#"<string name="a"> <b> bold </b> </string>"#, "bold"),
        (r#"<string name="a">a <b> b</b></string>"#, "a b"),
        (r#"<string name="a">\u12</string>"#, "u12"),
        (r#"<string name="a">end\</string>"#, "end\\"),
        (r#"<string name="a"/>"#, ""),
    ];
    for (inner, want) in table {
        assert_eq!(value(inner), *want, "{inner}");
        let source = wrap(inner);
        assert_eq!(write(&read(&source)), source, "{inner}");
    }
}

#[test]
fn markup_printf_and_quotes_are_codes() {
    let parsed = read(&wrap(
        r#"<string name="a">"Hi" <b>%1$s</b> <xliff:g id="n">%2$d</xliff:g><br/><!-- c --> 5%%</string>"#,
    ));
    assert_eq!(
        shown(&parsed.document.blocks[0].source.runs),
        r#"<x id="1/"/>Hi<x id="2/"/> <x id="3"/><x id="4/"/><x id="/3"/> <x id="5"/><x id="6/"/><x id="/5"/><x id="7/"/><x id="8/"/> 5<x id="9/"/>"#
    );
    let codes: Vec<(String, bool)> = parsed.document.blocks[0]
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Code(c) => Some((c.class.clone(), c.deletable)),
            _ => None,
        })
        .collect();
    let want = [
        ("quote", false),
        ("quote", false),
        ("tag", true),
        ("printf", false),
        ("tag", true),
        ("xliff", false),
        ("printf", false),
        ("xliff", false),
        ("tag", false),
        ("comment", true),
        ("printf", false),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(c, d)| (c.to_string(), *d)).collect();
    assert_eq!(codes, want);
}

#[test]
fn verbatim_pieces_carry_their_offsets() {
    let source = wrap(r#"<string name="a">you\'re &amp; me</string>"#);
    let parsed = read(&source);
    let got: Vec<(String, Option<usize>)> = parsed.document.blocks[0]
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Text { text, src } => Some((text.clone(), *src)),
            _ => None,
        })
        .collect();
    let start = source.find("you").unwrap();
    assert_eq!(
        got,
        [
            ("you".to_owned(), Some(start)),
            ("'re ".to_owned(), Some(start + 4)),
            ("&".to_owned(), None),
            (" me".to_owned(), Some(start + 13)),
        ]
    );
}

#[test]
fn reads_blocks_of_a_sample_with_every_construct() {
    let bytes = include_bytes!("../../../../testdata/formats/android/kapi-sample-strings.xml");
    let parsed = Android.read(bytes).unwrap();
    insta::assert_snapshot!("android_blocks_kapi_sample", blocks_table(&parsed.document));
    let files = parsed.document.block("files").unwrap();
    let branches: Vec<_> = parsed
        .skeleton
        .holes
        .iter()
        .filter(|h| parsed.document.blocks[h.block].key == "files")
        .map(|h| h.branch().unwrap())
        .collect();
    assert_eq!(branches, ["quantity:one", "quantity:other"]);
    assert_eq!(
        files.source.branch("quantity:one").map(|r| r.len()),
        Some(2)
    );
}

#[test]
fn an_edit_is_escaped_the_android_way_and_reads_back() {
    let table: &[(&str, &str, &str)] = &[
        (
            r#"<string name="a">x</string>"#,
            "it's \"so\" & <b> \\ ok",
            r#"<string name="a">it\'s \"so\" &amp; &lt;b> \\ ok</string>"#,
        ),
        (
            r#"<string name="a">x</string>"#,
            "@home?",
            r#"<string name="a">\@home?</string>"#,
        ),
        (
            r#"<string name="a">x</string>"#,
            "?x",
            r#"<string name="a">\?x</string>"#,
        ),
        (
            r#"<string name="a">x</string>"#,
            " two  spaces \n",
            r#"<string name="a">\u0020two \u0020spaces \n</string>"#,
        ),
        (
            r#"<string name="a">x</string>"#,
            "tab\tand\u{1}",
            r#"<string name="a">tab\tand\u0001</string>"#,
        ),
        (
            r#"<string name="a">x</string>"#,
            "a]]>b",
            r#"<string name="a">a]]&gt;b</string>"#,
        ),
        (
            r#"<string name="a"/>"#,
            "new",
            r#"<string name="a">new</string>"#,
        ),
        (r#"<string name="a" />"#, "", r#"<string name="a" />"#),
    ];
    for (inner, text, want) in table {
        let mut parsed = read(&wrap(inner));
        parsed.document.blocks[0].source = Edition::new(vec![Run::text(*text)]);
        let written = write(&parsed);
        assert_eq!(written, wrap(want), "{text:?}");
        let again = read(&written);
        assert_eq!(
            again.document.blocks[0].source.plain_text(),
            *text,
            "{text:?}"
        );
    }
}

#[test]
fn an_edit_inside_quotes_cdata_and_markup_keeps_them() {
    let source = wrap(r#"<string name="a">"x  y" <![CDATA[<i>z</i>]]> <b>w</b></string>"#);
    let mut parsed = read(&source);
    let runs = &mut parsed.document.blocks[0].source.runs;
    for run in runs.iter_mut() {
        if let Run::Text { text, src } = run {
            *text = text
                .replace('x', "it's  ")
                .replace('z', "a&b ]]>")
                .replace('w', "v ");
            *src = None;
        }
    }
    let expected: Vec<String> = runs
        .iter()
        .map(|r| match r {
            Run::Text { text, .. } => text.clone(),
            Run::Code(c) => c.data.clone(),
            Run::Switch(_) => String::new(),
        })
        .collect();
    let written = write(&parsed);
    assert_eq!(
        written,
        wrap(
            r#"<string name="a">"it\'s    y" <![CDATA[<i>a&b ]]\u003E</i>]]> <b>v\u0020</b></string>"#
        )
    );
    let again = read(&written);
    let got: Vec<String> = again.document.blocks[0]
        .source
        .runs
        .iter()
        .map(|r| match r {
            Run::Text { text, .. } => text.clone(),
            Run::Code(c) => c.data.clone(),
            Run::Switch(_) => String::new(),
        })
        .collect();
    assert_eq!(got.concat(), expected.concat());
}

#[test]
fn a_plural_branch_edit_changes_only_its_item() {
    let source = wrap(
        "<plurals name=\"n\">\n        <item quantity=\"one\">%d day</item>\n        <item quantity=\"other\">%d days</item>\n    </plurals>",
    );
    let mut parsed = read(&source);
    let block = parsed.document.block_mut("n").unwrap();
    let runs = block.source.branch_mut("quantity:other").unwrap();
    runs[1] = Run::text(" jours");
    assert_eq!(write(&parsed), source.replace(" days", " jours"));
}

#[test]
fn a_declared_legacy_encoding_is_read_and_written_back() {
    let bytes = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<resources><string name=\"a\">caf\xe9</string></resources>";
    let mut parsed = Android.read(bytes).unwrap();
    assert_eq!(parsed.document.blocks[0].source.plain_text(), "caf\u{e9}");
    assert_eq!(Android.write(&parsed).unwrap(), bytes);
    parsed.document.blocks[0].source = Edition::new(vec![Run::text("th\u{e9} \u{2603}😀")]);
    let written = Android.write(&parsed).unwrap();
    assert!(written.ends_with(b">th\xe9 \\u2603\\uD83D\\uDE00</string></resources>"));
    let again = Android.read(&written).unwrap();
    assert_eq!(
        again.document.blocks[0].source.plain_text(),
        "th\u{e9} \u{2603}😀"
    );
}

#[test]
fn a_non_strings_resource_is_foreign_and_says_what_it_is() {
    let table: &[(&[u8], Option<&str>)] = &[
        (
            b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<vector xmlns:android=\"x\"/>",
            Some("an Android `<vector>` resource, not strings"),
        ),
        (
            b"<LinearLayout xmlns:android=\"x\">",
            Some("an Android `<LinearLayout>` resource, not strings"),
        ),
        (
            b"<androidx.constraintlayout.widget.ConstraintLayout>",
            Some(
                "an Android `<androidx.constraintlayout.widget.ConstraintLayout>` resource, not strings",
            ),
        ),
        (
            b"<manifest package=\"a\">",
            Some("the Android manifest (`<manifest>`), not strings"),
        ),
        (
            b"<project>",
            Some(
                "an XML file whose root element is `<project>`, not Android strings (`<resources>`)",
            ),
        ),
        (b"<resources>", None),
        (b"<!-- only a comment", None),
        (b"not xml at all", None),
        (b"", None),
        (b"<", None),
    ];
    for (head, want) in table {
        assert_eq!(Android.foreign(head).as_deref(), *want, "{head:?}");
    }
}

#[test]
fn the_root_scan_never_panics_on_generated_heads() {
    // Every prefix of prolog-heavy heads, and bytes from a fixed LCG: never a panic, and
    // a head the sniff takes is never foreign.
    let seeds: &[&[u8]] = &[
        b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE r>\n<resources a=\"b\">",
        b"\xff\xfe<\0v\0e\0c\0t\0o\0r\0>\0",
        b"\xfe\xff\0<\0m\0a\0n\0i\0f\0e\0s\0t\0>",
        b"<?<!--<!DOCTYPE<<<>>>",
    ];
    let mut heads: Vec<Vec<u8>> = Vec::new();
    for seed in seeds {
        for end in 0..=seed.len() {
            heads.push(seed[..end].to_vec());
        }
    }
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let alphabet = b"<>?!-/ \n\r\tresourcvtDOCTYPE\xff\xfe\xef\xbb\xbf\0a.:";
    for _ in 0..2_000 {
        let len = (state >> 58) as usize;
        let mut head = Vec::with_capacity(len);
        for _ in 0..len {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            head.push(alphabet[(state >> 33) as usize % alphabet.len()]);
        }
        heads.push(head);
    }
    for head in &heads {
        let sniffed = Android.sniff(head);
        let foreign = Android.foreign(head);
        assert!(!(sniffed && foreign.is_some()), "{head:?}");
    }
}

#[test]
fn sniff_finds_resources_roots_only() {
    let yes: &[&[u8]] = &[
        b"<resources>",
        b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->\n<resources xmlns:x=\"y\">",
        b"<!DOCTYPE resources>\n<resources/>",
        b"\xff\xfe<\0r\0e\0s\0o\0u\0r\0c\0e\0s\0>\0",
    ];
    for head in yes {
        assert!(Android.sniff(head), "{head:?}");
    }
    let no: &[&[u8]] = &[
        b"<manifest>",
        b"<resourcesX>",
        b"<!-- <resources> never closed",
        b"<?xml version=\"1.0\"?><project>",
        b"",
    ];
    for head in no {
        assert!(!Android.sniff(head), "{head:?}");
    }
}

#[test]
fn malformed_xml_is_an_error_with_its_position() {
    let table: &[(&str, &str)] = &[
        (
            "<resources>\n  <string name=\"a\">x</strin>\n</resources>",
            "2:21: `</strin>` closes `<string>` (opened at 2:3): expected `</string>`",
        ),
        (
            "<resources>\n  <string name=\"a\">x",
            "2:3: `<string>` is never closed: expected `</string>` before the end of the file",
        ),
        (
            "<resources>\n  <string name=\"a\">a &nbsp; b</string></resources>",
            "2:22: unknown entity `&nbsp;`: expected `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a character reference",
        ),
        (
            "<resources>\n  <string name=\"a\">a &#X41; b</string></resources>",
            "2:22: unknown entity `&#X41;`: expected `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a character reference",
        ),
        (
            "<resources>\n  <string name=\"a\">a &#0; b</string></resources>",
            "2:22: unknown entity `&#0;`: expected `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a character reference",
        ),
        (
            "<resources>\n  <string name=\"a\">a & b</string></resources>",
            "2:22: `&` starts no entity: write `&amp;` for a literal `&`",
        ),
        (
            "<resources>\n  <!-- open\n</resources>",
            "2:3: a comment is never closed: expected `-->`",
        ),
        (
            "<resources><string name=\"a><![CDATA[x</string></resources>",
            "1:25: the value of the attribute `name` is never closed",
        ),
        (
            "<resources><string name=\"a\"",
            "1:12: a start tag is not closed: expected `>` or `/>`",
        ),
        (
            "<resources><string name=\"a\"><![CDATA[x</string></resources>",
            "1:29: a CDATA section is never closed: expected `]]>`",
        ),
        (
            "<resources><string name=a>x</string></resources>",
            "1:25: expected a quoted attribute value",
        ),
        (
            "<manifest/>",
            "1:1: the root element is `<manifest>`: expected `<resources>`",
        ),
        (
            "<resources/>\n<extra/>",
            "2:1: a second root element: a document has one",
        ),
        (
            "",
            "1:1: expected the root element `<resources>`, found the end of the file",
        ),
        (
            "<resources>\n<plurals name=\"p\"><item>x</item></plurals></resources>",
            "2:19: an `<item>` of `<plurals>` has no `quantity`: expected one of zero, one, two, few, many, other",
        ),
        (
            "<resources><b>x</i></b></resources>",
            "1:16: `</i>` closes `<b>` (opened at 1:12): expected `</b>`",
        ),
    ];
    for (source, want) in table {
        let err = Android.read(source.as_bytes()).unwrap_err();
        assert_eq!(err.to_string(), *want, "{source}");
    }
}

#[test]
fn rendering_every_value_as_edited_reads_back_the_same() {
    for (name, bytes) in fixtures() {
        let mut parsed = Android.read(&bytes).unwrap();
        for block in &mut parsed.document.blocks {
            // An extra empty run forces a render of every hole, same content.
            match block.source.runs.first_mut() {
                Some(Run::Switch(switch)) => {
                    for branch in &mut switch.branches {
                        branch.runs.push(Run::text(""));
                    }
                }
                _ => block.source.runs.push(Run::text("")),
            }
        }
        let written = Android.write(&parsed).unwrap();
        let again = Android
            .read(&written)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let strip = |d: &Document| {
            let mut d = d.clone();
            for block in &mut d.blocks {
                merge_texts(&mut block.source.runs);
            }
            blocks_table(&d)
        };
        assert_eq!(
            strip(&again.document),
            strip(&Android.read(&bytes).unwrap().document),
            "{name}"
        );
    }
}

/// Joins adjacent text runs (a rendered value reads back with fewer pieces).
fn merge_texts(runs: &mut Vec<Run>) {
    let mut out: Vec<Run> = Vec::new();
    for run in runs.drain(..) {
        match (out.last_mut(), run) {
            (Some(Run::Text { text, .. }), Run::Text { text: t, .. }) => text.push_str(&t),
            (_, Run::Switch(mut s)) => {
                for b in &mut s.branches {
                    merge_texts(&mut b.runs);
                }
                out.push(Run::Switch(s));
            }
            (_, Run::Text { text, .. }) if text.is_empty() => {}
            (_, run) => out.push(run),
        }
    }
    *runs = out;
}

#[test]
fn truncated_and_garbled_input_never_panics() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in fixtures() {
        for cut in crate::formats::conformance::cuts(bytes.len()) {
            inputs.push(bytes[..cut].to_vec());
        }
        inputs.push(
            bytes
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    if i % 29 == 0 {
                        b"<>&\\\"'/ ;"[i % 9]
                    } else {
                        b
                    }
                })
                .collect(),
        );
    }
    for nasty in [
        "<",
        "<resources",
        "<resources><",
        "<resources><string name=\"a\">\\u",
        "<resources><string name=\"a\">&#xD800;</string></resources>",
        "<resources><string name='a'>\\uD800</string></resources>",
    ] {
        inputs.push(nasty.as_bytes().to_vec());
    }
    for input in inputs {
        let _ = Android.sniff(&input);
        if let Ok(mut parsed) = Android.read(&input) {
            assert_eq!(Android.write(&parsed).unwrap(), input);
            for block in &mut parsed.document.blocks {
                block.source.runs.push(Run::text(" '\"<&]]> \\ @ \n"));
            }
            let written = Android.write(&parsed).unwrap();
            Android.read(&written).unwrap();
        }
    }
}

#[test]
fn add_text_extends_the_last_text_item_or_opens_one() {
    let mut decoder = Decoder::new("ab");
    decoder.add_text(|p| p.push('a', Some(0)));
    decoder.add_text(|p| p.push_str("b", 1));
    decoder.items.push(Item::Code(
        crate::model::Code::new("1", crate::model::CodeKind::Standalone, "x", "<x/>", true),
        None,
    ));
    decoder.add_text(|p| p.push('c', None));
    let texts: Vec<_> = decoder
        .items
        .iter()
        .map(|item| match item {
            Item::Text(p) => p.pieces.clone(),
            Item::Code(..) => Vec::new(),
        })
        .collect();
    assert_eq!(
        texts,
        [
            vec![("ab".to_owned(), Some(0))],
            Vec::new(),
            vec![("c".to_owned(), None)]
        ]
    );
}
