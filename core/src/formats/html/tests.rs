use std::fmt::Write as _;

use super::reader::LET_GO;
use super::*;
use crate::formats::{Hole, conformance};
use crate::model::{CodeKind, Document, Edition, Role, Run};

fn read(text: &str) -> Parsed {
    Html.read(text.as_bytes()).unwrap()
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Html.write(parsed).unwrap()).unwrap()
}

/// A file far longer than the reader holds at once (it lets go of read tokens and their
/// attributes every [`LET_GO`]) reads as its parts read alone, streamed or not.
#[test]
fn a_long_file_reads_as_its_parts_do() {
    let part = |i: usize| {
        format!(
            "<p title=\"Tip {i}\">Hello <b>world</b> {i}</p>\n<img alt=\"Logo {i}\">\n\
                 <div translate=\"no\">Skip {i}</div>\n<ul><li>One {i}</li><li>Two</li></ul>\n"
        )
    };
    let view = |parsed: &Parsed| -> Vec<(Role, String, bool)> {
        parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.role, b.source.plain_text(), b.translatable))
            .collect()
    };
    let (mut whole, mut expected) = (String::new(), Vec::new());
    for i in 0..3_000 {
        whole.push_str(&part(i));
        expected.extend(view(&read(&part(i))));
    }
    let parsed = read(&whole);
    assert!(expected.len() > 3 * LET_GO, "{}", expected.len());
    assert_eq!(view(&parsed), expected);
    let mut streamed = Vec::new();
    Html.read_each(whole.clone().into_bytes(), &mut |_, b, _| {
        streamed.push((b.role, b.source.plain_text(), b.translatable));
    })
    .unwrap();
    assert_eq!(streamed, expected);
    assert_eq!(write(&parsed), whole);
}

/// Text with codes as `<x id="1"/>` (open), `<x id="/1"/>` (close), `<x id="1/"/>`.
fn marked(edition: &Edition) -> String {
    let mut out = String::new();
    for run in &edition.runs {
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
            Run::Switch(_) => out.push_str("<switch/>"),
        }
    }
    out.replace('\r', "\\r").replace('\n', "\\n")
}

fn blocks_table(document: &Document) -> String {
    let mut out = String::new();
    for b in &document.blocks {
        let _ = writeln!(
            out,
            "{} | {} | {} | {} | {}",
            b.key,
            b.role.as_str(),
            b.level,
            b.translatable,
            marked(&b.source)
        );
    }
    out
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    conformance::fixtures("html")
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path.display().to_string(), bytes)
        })
        .collect()
}

fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
    let block = parsed
        .document
        .block_mut(key)
        .unwrap_or_else(|| panic!("no block {key}"));
    block.source = Edition::new(vec![Run::text(text)]);
}

/// Marks every hole as edited (its recorded fingerprint no longer matches), so every
/// hole is rendered from its runs: the content is the same.
fn touch_all(parsed: &mut Parsed) {
    for hole in &mut parsed.skeleton.holes {
        hole.original = hole.original.wrapping_add(1);
    }
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    for (name, bytes) in fixtures() {
        let parsed = Html.read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
        assert_eq!(Html.write(&parsed).unwrap(), bytes, "{name}");
    }
}

#[test]
fn rendering_every_block_again_gives_back_the_same_bytes() {
    for (name, bytes) in fixtures() {
        let mut parsed = Html.read(&bytes).unwrap();
        touch_all(&mut parsed);
        assert!(parsed.skeleton.is_edited(&parsed.document), "{name}");
        let written = Html.write(&parsed).unwrap();
        if written != bytes {
            let at = written
                .iter()
                .zip(&bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let show = |b: &[u8]| {
                String::from_utf8_lossy(&b[at.saturating_sub(60)..(at + 60).min(b.len())])
                    .into_owned()
            };
            panic!(
                "{name}: differs at {at}\n{:?}\n{:?}",
                show(&bytes),
                show(&written)
            );
        }
    }
}

#[test]
fn editing_every_block_reads_back_with_the_same_keys() {
    const ADDED: &str = " <b> & a&amp;b \"q\" 'a' Zq";
    for (name, bytes) in fixtures() {
        let mut parsed = Html.read(&bytes).unwrap();
        for block in &mut parsed.document.blocks {
            block.source.runs.push(Run::text(ADDED));
        }
        let written = Html.write(&parsed).unwrap();
        let again = Html
            .read(&written)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let keys = |p: &Parsed| -> Vec<String> {
            p.document.blocks.iter().map(|b| b.key.clone()).collect()
        };
        assert_eq!(keys(&again), keys(&parsed), "{name}");
        for block in &again.document.blocks {
            let plain = block.source.plain_text();
            assert!(
                // What was escaped (`&amp;` for the `&` of `a&amp;b`, `&lt;`, a
                // quote in an attribute) reads back as an entity code.
                plain.ends_with(" Zq") && plain.contains(" & aamp;b "),
                "{name}: {} reads {plain:?}",
                block.key
            );
        }
    }
}

#[test]
fn holes_are_disjoint_or_attributes_inside_a_tag_code() {
    for (name, bytes) in fixtures() {
        let parsed = Html.read(&bytes).unwrap();
        let text = parsed.skeleton.text();
        let mut holes: Vec<&Hole> = parsed.skeleton.holes.iter().collect();
        holes.sort_by_key(|h| h.span.start);
        let mut end = 0;
        let mut outer: Option<&Hole> = None;
        for hole in holes {
            if hole.span.start < end {
                let outer = outer.unwrap();
                let block = &parsed.document.blocks[hole.block];
                assert!(block.key.contains("/@"), "{name}: {} overlaps", block.key);
                let inside = parsed.document.blocks[outer.block].source.runs.iter().any(|r| {
                        matches!(r, Run::Code(c) if c.src.is_some_and(|s| s <= hole.span.start && hole.span.end <= s + c.data.len()))
                    });
                assert!(inside, "{name}: {} is not inside a code", block.key);
            } else {
                end = hole.span.end;
                outer = Some(hole);
            }
            // Text runs are verbatim slices at their offsets.
            for run in &parsed.document.blocks[hole.block].source.runs {
                match run {
                    Run::Text {
                        text: t,
                        src: Some(s),
                    } => {
                        assert_eq!(&text[*s..*s + t.len()], t, "{name}")
                    }
                    Run::Code(c) => {
                        let s = c.src.unwrap();
                        assert_eq!(&text[s..s + c.data.len()], c.data, "{name}")
                    }
                    _ => panic!("{name}: a run without its offset"),
                }
            }
        }
    }
}

#[test]
fn blocks_roles_levels_and_keys() {
    let html = concat!(
        "<!DOCTYPE html>\n<html><head><title>The &amp; title</title>\n",
        "<meta name=\"description\" content=\"About us\">\n",
        "<style>p { color: red }</style><script>var x = '<p>no</p>';</script></head>\n",
        "<body>\n<h2>Intro</h2>\n<p>One <b>two</b> three.<p>Second\n",
        "<ul><li>A<ul><li>B</li></ul></li><li>C</ul>\n",
        "<table><tr><th>H<td>D</table>\n",
        "<blockquote><p>Q</p></blockquote>\n",
        "<pre>code  here</pre>\n<p><code>only code</code></p>\n",
        "<section id=\"install\"><p>In section</p><p>Again</p></section>\n",
        "<div>Loose <!-- note --> text<div>inner</div>tail</div>\n",
        "<p translate=\"no\">Brand</p><p>Use <span translate=\"no\">Kapi <b>X</b></span> now</p>\n",
        "<form><label>Name</label><button>Send</button><select><option>One<option>Two</select>",
        "<input type=submit value=Go placeholder='Type here'></form>\n",
        "</body></html>\n",
    );
    let parsed = read(html);
    let table = blocks_table(&parsed.document);
    assert_eq!(
        table,
        concat!(
            "html/head/title | other | 0 | true | The <x id=\"1/\"/> title\n",
            "html/head/meta/@content | key | 0 | true | About us\n",
            "html/body/h2 | heading | 2 | true | Intro\n",
            "html/body/p | paragraph | 0 | true | One <x id=\"1\"/>two<x id=\"/1\"/> three.\n",
            "html/body/p#2 | paragraph | 0 | true | Second\n",
            "html/body/ul/li | list-item | 1 | true | A\n",
            "html/body/ul/li/ul/li | list-item | 2 | true | B\n",
            "html/body/ul/li#2 | list-item | 1 | true | C\n",
            "html/body/table/tr/th | table-cell | 0 | true | H\n",
            "html/body/table/tr/td | table-cell | 0 | true | D\n",
            "html/body/blockquote/p | quote | 1 | true | Q\n",
            "html/body/pre | code | 0 | false | code  here\n",
            "html/body/p#3 | code | 0 | false | <x id=\"1\"/>only code<x id=\"/1\"/>\n",
            "section[install]/p | paragraph | 0 | true | In section\n",
            "section[install]/p#2 | paragraph | 0 | true | Again\n",
            "html/body/div | paragraph | 0 | true | Loose <x id=\"1/\"/> text\n",
            "html/body/div/div | paragraph | 0 | true | inner\n",
            "html/body/div#2 | paragraph | 0 | true | tail\n",
            "html/body/p#4 | paragraph | 0 | false | Brand\n",
            "html/body/p#5 | paragraph | 0 | true | Use <x id=\"1/\"/> now\n",
            "html/body/form/label | other | 0 | true | Name\n",
            "html/body/form/button | other | 0 | true | Send\n",
            "html/body/form/select/option | other | 0 | true | One\n",
            "html/body/form/select/option#2 | other | 0 | true | Two\n",
            "html/body/form/input/@value | other | 0 | true | Go\n",
            "html/body/form/input/@placeholder | other | 0 | true | Type here\n",
        )
    );
    let brand = parsed.document.block("html/body/p#4").unwrap();
    assert_eq!(brand.locked.as_deref(), Some("translate=\"no\""));
    assert_eq!(write(&parsed), html);
}

#[test]
fn inline_codes_keep_their_bytes_and_links_their_href() {
    let parsed = read(
        "<p>Read <a href=\"/g?a=1&amp;b=2\" class=x>the guide</a>&nbsp;now.<br/>Then&#8217;s <img src=a.png alt=\"A cat\"> </i>it.</p>",
    );
    let block = parsed.document.block("p").unwrap();
    let codes: Vec<(CodeKind, &str, &str, bool)> = block
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Code(c) => Some((c.kind, c.class.as_str(), c.data.as_str(), c.deletable)),
            _ => None,
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            (
                CodeKind::Open,
                "link",
                "<a href=\"/g?a=1&amp;b=2\" class=x>",
                false
            ),
            (CodeKind::Close, "link", "</a>", false),
            (CodeKind::Standalone, "entity", "&nbsp;", true),
            (CodeKind::Standalone, "break", "<br/>", true),
            (CodeKind::Standalone, "entity", "&#8217;", true),
            (
                CodeKind::Standalone,
                "image",
                "<img src=a.png alt=\"A cat\">",
                false
            ),
            (CodeKind::Standalone, "i", "</i>", false),
        ]
    );
    let Run::Code(link) = &block.source.runs[1] else {
        panic!()
    };
    assert_eq!(
        link.attrs.get("href").map(String::as_str),
        Some("/g?a=1&amp;b=2")
    );
    assert_eq!(
        marked(&block.source),
        "Read <x id=\"1\"/>the guide<x id=\"/1\"/><x id=\"2/\"/>now.<x id=\"3/\"/>Then<x id=\"4/\"/>s <x id=\"5/\"/> <x id=\"6/\"/>it."
    );
    assert_eq!(
        parsed
            .document
            .block("p/img/@alt")
            .unwrap()
            .source
            .plain_text(),
        "A cat"
    );
}

#[test]
fn an_edited_paragraph_escapes_and_keeps_its_entities() {
    let mut parsed = read("<p>Tom &amp; Jerry&nbsp;<b>run</b></p>\n");
    let block = parsed.document.block_mut("p").unwrap();
    block.source.runs[0] = Run::text("Tim & Tam <3 <b> &copy; x");
    assert_eq!(
        write(&parsed),
        "<p>Tim & Tam <3 &lt;b> &amp;copy; x&amp; Jerry&nbsp;<b>run</b></p>\n"
    );
}

#[test]
fn attribute_edits_escape_their_quotes_and_quote_bare_values() {
    let mut parsed =
        read("<img alt='It is' title=Short><input placeholder=\"Say &quot;hi&quot;\">");
    set_text(&mut parsed, "img/@alt", "It's");
    set_text(&mut parsed, "img/@title", "Now two words");
    set_text(&mut parsed, "input/@placeholder", "Say \"yo\" & go");
    assert_eq!(
        write(&parsed),
        "<img alt='It&#39;s' title=\"Now two words\"><input placeholder=\"Say &quot;yo&quot; & go\">"
    );
    let again = read(&write(&parsed));
    assert_eq!(
        again
            .document
            .block("img/@title")
            .unwrap()
            .source
            .plain_text(),
        "Now two words"
    );
}

#[test]
fn an_attribute_inside_a_paragraph_and_the_paragraph_edit_apart_and_together() {
    let html = "<p>See <img src=\"c.png\" alt=\"A cat\"> here.</p>";
    let mut parsed = read(html);
    set_text(&mut parsed, "p/img/@alt", "A dog");
    assert_eq!(
        write(&parsed),
        "<p>See <img src=\"c.png\" alt=\"A dog\"> here.</p>"
    );
    // Both: the paragraph's image code carries the new alt.
    let block = parsed.document.block_mut("p").unwrap();
    block.source.runs[0] = Run::text("Look at ");
    assert_eq!(
        write(&parsed),
        "<p>Look at <img src=\"c.png\" alt=\"A dog\"> here.</p>"
    );
    // The paragraph alone.
    let mut parsed = read(html);
    let block = parsed.document.block_mut("p").unwrap();
    block.source.runs[2] = Run::text(" there.");
    assert_eq!(
        write(&parsed),
        "<p>See <img src=\"c.png\" alt=\"A cat\"> there.</p>"
    );
}

#[test]
fn a_changed_href_rewrites_the_link_tag() {
    let mut parsed = read("<p><a class=x href='/old'>Go</a> and <a>bare</a></p>");
    let block = parsed.document.block_mut("p").unwrap();
    for run in &mut block.source.runs {
        if let Run::Code(c) = run
            && c.kind == CodeKind::Open
        {
            c.attrs.insert("href".into(), "/new's".into());
        }
    }
    assert_eq!(
        write(&parsed),
        "<p><a class=x href='/new&#39;s'>Go</a> and <a href=\"/new's\">bare</a></p>"
    );
}

#[test]
fn broken_markup_reads_and_round_trips() {
    for html in [
        "<p>Unclosed <b>bold <i>and</b> italic</p>",
        "<div><p>a<p>b</div></span></p>",
        "a < b && c <3 <></> <!> <? x",
        "<p title=\"unterminated>text</p>",
        "<p>text<!-- unterminated comment",
        "<script>never closed <p>x</p>",
        "<title>a <b> title",
        "<p a=1 b='2' c d = \"4\" /x>y</p>",
        "<table><td>cell<tr><td>two</table>",
        "\u{feff}<p>bom</p>",
        "<p>&#xZZ; &unknown &#99999999999; &;</p>",
        "<p>x</p><",
        "<![CDATA[ <p>x</p> ]]>text",
        "</p>stray end</div>",
    ] {
        let parsed = read(html);
        assert_eq!(write(&parsed), html, "{html}");
        let _ = conformance::assert_edits_one_block(&Html, html, html.as_bytes());
    }
    let parsed = read("<p>Unclosed <b>bold <i>and</b> italic</p>");
    assert_eq!(
        marked(&parsed.document.blocks[0].source),
        "Unclosed <x id=\"1\"/>bold <x id=\"2/\"/>and<x id=\"/1\"/> italic"
    );
    let parsed = read("<script>never closed <p>x</p>");
    assert!(parsed.document.blocks.is_empty());
}

#[test]
fn encodings_are_sniffed_and_written_back() {
    // windows-1252 from a meta: 0x92 is a right single quote.
    let bytes = b"<meta charset=windows-1252><p>It\x92s</p>".to_vec();
    let mut parsed = Html.read(&bytes).unwrap();
    assert_eq!(
        parsed.document.block("p").unwrap().source.plain_text(),
        "It\u{2019}s"
    );
    assert_eq!(Html.write(&parsed).unwrap(), bytes);
    set_text(&mut parsed, "p", "It\u{2019}s \u{e9}t\u{e9}");
    assert_eq!(
        Html.write(&parsed).unwrap(),
        b"<meta charset=windows-1252><p>It\x92s \xe9t\xe9</p>"
    );
    // http-equiv and an XML declaration.
    let bytes = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"></head><p>caf\xe9</p>";
    let parsed = Html.read(bytes).unwrap();
    assert_eq!(parsed.skeleton.encoding, Encoding::Latin1);
    assert_eq!(parsed.document.blocks[0].source.plain_text(), "caf\u{e9}");
    let bytes = b"<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<html><p>caf\xe9</p></html>";
    assert_eq!(
        Html.read(bytes).unwrap().skeleton.encoding,
        Encoding::Latin1
    );
    // A UTF-16 label in ASCII bytes means UTF-8.
    let bytes = "<meta charset=utf-16><p>caf\u{e9}</p>".as_bytes();
    assert_eq!(Html.read(bytes).unwrap().skeleton.encoding, Encoding::Utf8);
    // UTF-16 LE with a BOM.
    let text = "\u{feff}<p>\u{df}=s</p>";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut parsed = Html.read(&bytes).unwrap();
    assert_eq!(parsed.skeleton.encoding, Encoding::Utf16Le);
    set_text(&mut parsed, "p", "\u{fc}");
    let written = Html.write(&parsed).unwrap();
    let expected: Vec<u8> = "\u{feff}<p>\u{fc}</p>"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(written, expected);
}

#[test]
fn undecodable_input_is_an_error_with_its_position() {
    let err = Html.read(b"<p>ok</p>\n<p>ca\xff</p>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "2:6: the file is not valid UTF-8 (byte 15)"
    );
    let err = Html.read(b"<p>a\0</p>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "the file looks binary (a NUL byte at offset 4)"
    );
    let err = Html.read(b"\xff\xfe<\x00p\x00>").unwrap_err();
    assert!(err.to_string().contains("not valid UTF-16"), "{err}");
    let err = Html
        .read(b"<meta charset=shift_jis>\n\n<p>\x81</p>")
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("3:4: the file is not valid Shift_JIS"),
        "{err}"
    );
    // A label no encoding has falls back to UTF-8.
    assert!(Html.read(b"<meta charset=bogus><p>x</p>").is_ok());
}

#[test]
fn malformed_and_truncated_input_never_panics() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in fixtures() {
        // Every construct of a page's head and first markup, then three ends deep in it.
        let cuts = (0..bytes.len().min(6000)).step_by(6000 / crate::formats::conformance::CUTS);
        for cut in cuts.chain([bytes.len() / 3, bytes.len() / 2, bytes.len() - 1]) {
            inputs.push(bytes[..cut].to_vec());
        }
        let garbled: Vec<u8> = bytes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if i % 13 == 0 {
                    b"<>&;/\"'=!-?#x "[i % 14]
                } else {
                    b
                }
            })
            .collect();
        inputs.push(garbled);
    }
    inputs.push("<".repeat(10_000).into_bytes());
    inputs.push("<div>x".repeat(5_000).into_bytes());
    inputs.push("<a b=\"".repeat(5_000).into_bytes());
    inputs.push("<p>&#".repeat(5_000).into_bytes());
    // Shapes that would be quadratic in a naive scanner, large enough that one is caught with
    // no timing asserted: read linearly they take about a second in a debug build; quadratic,
    // some 10^10 steps, far past nextest's slow-timeout (`.config/nextest.toml`), which ends
    // and fails the test.
    let n = 100_000;
    inputs.push("<a<a".repeat(n).into_bytes());
    inputs.push(format!("{}{}", "<div>x".repeat(n), "<body>y".repeat(n)).into_bytes());
    inputs.push(format!("<p>{}{}", "<div>".repeat(n), "</p>x".repeat(n)).into_bytes());
    inputs.push(format!("<p>{}{}", "<b>".repeat(n), "</i>x".repeat(n)).into_bytes());
    inputs.push(format!("<ul>{}", "<li><div>x".repeat(n)).into_bytes());
    for input in inputs {
        if let Ok(mut parsed) = Html.read(&input) {
            assert_eq!(Html.write(&parsed).unwrap(), input);
            for block in &mut parsed.document.blocks {
                block.source.runs.push(Run::text(" <edited> & \"'"));
            }
            let _ = Html.write(&parsed).unwrap();
        }
    }
}
