use std::fmt::Write as _;
use std::path::PathBuf;

use super::*;
use crate::model::Document;
use crate::text::{CODE_MARK, Prose};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats/markdown");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_some_and(|e| e != "snap") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    assert!(out.len() >= 10, "fixtures missing");
    out
}

fn read(text: &str) -> Parsed {
    Markdown.read(text.as_bytes()).unwrap()
}

#[test]
fn kapis_rules_section_is_kapis_and_the_text_around_it_the_persons() {
    let text = "# Agents\n\nOur own words.\n\n<!-- kapi:rules -->\n## kapi\n\n- Never write utilize.\n<!-- /kapi:rules -->\n\nMore of ours.\n";
    let parsed = read(text);
    let prose: Vec<(String, bool, bool)> = parsed
        .document
        .blocks
        .iter()
        .filter(|b| b.role != Role::Html)
        .map(|b| (b.source.plain_text(), b.translatable, b.locked.is_some()))
        .collect();
    assert_eq!(
        prose,
        [
            ("Agents".to_owned(), true, false),
            ("Our own words.".to_owned(), true, false),
            ("kapi".to_owned(), false, true),
            ("Never write utilize.".to_owned(), false, true),
            ("More of ours.".to_owned(), true, false),
        ]
    );
    assert_eq!(write(&parsed), text);
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Markdown.write(parsed).unwrap()).unwrap()
}

fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
    let block = parsed
        .document
        .block_mut(key)
        .unwrap_or_else(|| panic!("no block {key}"));
    block.source = Edition::new(vec![Run::text(text)]);
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
        let label = b
            .label
            .as_deref()
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}{label} | {} | {} | {} | {}",
            b.key,
            b.role.as_str(),
            b.level,
            b.translatable,
            marked(&b.source)
        );
    }
    out
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    for (name, bytes) in fixtures() {
        let parsed = Markdown
            .read(&bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
        assert_eq!(Markdown.write(&parsed).unwrap(), bytes, "{name}");
    }
}

#[test]
fn every_text_run_is_a_verbatim_slice_and_holes_do_not_overlap() {
    for (name, bytes) in fixtures() {
        let parsed = Markdown.read(&bytes).unwrap();
        for block in &parsed.document.blocks {
            for run in &block.source.runs {
                match run {
                    Run::Text {
                        text,
                        src: Some(at),
                    } => {
                        assert_eq!(
                            &bytes[*at..*at + text.len()],
                            text.as_bytes(),
                            "{name} {}",
                            block.key
                        );
                    }
                    Run::Code(code)
                        if let Code {
                            data,
                            src: Some(at),
                            ..
                        } = &**code =>
                    {
                        assert_eq!(
                            &bytes[*at..*at + data.len()],
                            data.as_bytes(),
                            "{name} {}",
                            block.key
                        );
                    }
                    _ => {}
                }
            }
        }
        let mut holes: Vec<_> = parsed
            .skeleton
            .holes
            .iter()
            .map(|h| h.span.clone())
            .collect();
        holes.sort_by_key(|h| h.start);
        for pair in holes.windows(2) {
            assert!(pair[0].end <= pair[1].start, "{name}: {pair:?}");
        }
    }
}

#[test]
fn rendering_an_unchanged_edition_gives_back_its_bytes_where_nothing_was_escaped() {
    // Re-rendering every block as if edited must read back to the same runs text.
    for (name, bytes) in fixtures() {
        let parsed = Markdown.read(&bytes).unwrap();
        let text = std::str::from_utf8(&bytes).unwrap();
        for hole in &parsed.skeleton.holes {
            let block = &parsed.document.blocks[hole.block];
            let rendered = render(text, hole, block.role, &block.source.runs);
            let held = &text[hole.span.clone()];
            if !held.contains('\\') && !held.contains(['\n', '\r']) && block.role != Role::Key {
                let plain = block.source.plain_text();
                if !plain.contains([
                    '*', '_', '`', '[', ']', '<', '#', '>', '-', '+', '=', '~', '&', '|',
                ]) && !plain.starts_with(|c: char| c.is_ascii_digit())
                {
                    assert_eq!(rendered, held, "{name} {}", block.key);
                }
            }
        }
    }
}

#[test]
fn an_edit_changes_only_its_own_bytes() {
    let source = "# Intro\n\nFirst *one*\nline two.\n\nSecond para.\n";
    let mut parsed = read(source);
    set_text(&mut parsed, "s1/p#2", "Changed 2 * 3 and a_b and *this*.");
    assert_eq!(
        write(&parsed),
        "# Intro\n\nFirst *one*\nline two.\n\nChanged 2 * 3 and a_b and \\*this\\*.\n"
    );
}

#[test]
fn edited_text_keeps_codes_and_the_continuation_indent() {
    let source = "- item **bold** text\n  more\n- other\n\n> quoted\n> text\n";
    let mut parsed = read(source);
    let block = parsed.document.block_mut("top/li").unwrap();
    let mut runs = block.source.runs.clone();
    runs[0] = Run::text("Item ");
    block.source = Edition::new(runs);
    let block = parsed.document.block_mut("top/quote").unwrap();
    block.source = Edition::new(vec![Run::text("# new\n1. quoted\n\nagain")]);
    assert_eq!(
        write(&parsed),
        "- Item **bold** text\n  more\n- other\n\n> \\# new\n> 1\\. quoted\n> again\n"
    );
    let again = read(&write(&parsed));
    assert_eq!(
        again
            .document
            .block("top/quote")
            .unwrap()
            .source
            .plain_text(),
        "# new\n1. quoted\nagain"
    );
}

/// (key, label) of every block.
fn keys_and_labels(parsed: &Parsed) -> Vec<(String, Option<String>)> {
    parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.clone(), b.label.as_deref().map(str::to_owned)))
        .collect()
}

/// Every Markdown file the tests know: the fixtures and the benchmark's Rust book.
/// The fixtures and every tenth chapter of the Rust book in `bench/data` (sorted, so always the
/// same ones): a debug build reads the whole book twice in some 40 s; the rest of it is the
/// benchmark's and the fuzz target's.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out = fixtures();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/data/rust-book");
    let mut stack = vec![root];
    let mut book = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                book.push(path);
            }
        }
    }
    book.sort();
    assert!(
        book.len() > 400,
        "the Rust book in bench/data has {} chapters",
        book.len()
    );
    for path in book.into_iter().step_by(10) {
        let bytes = std::fs::read(&path).unwrap();
        out.push((path.display().to_string(), bytes));
    }
    out
}

#[test]
fn reading_in_pieces_gives_what_a_whole_read_gives() {
    let mut inputs = corpus();
    for tricky in [
        "- a\n- b\n\nAfter the list.\n\n1. one\n\n2. two\n\nAfter.\n",
        "```\ncode\n\nstill code\n```\n\nAfter the fence.\n\n    indented\n\n    more\n\nText.\n",
        "<pre>\nx\n\ny\n</pre>\n\nAfter.\n\n<div>\n```\n</div>\n\n```\ncode\n\nZ\n```\n\nEnd.\n",
        "> quote\n\n> again\n\nPlain.\n\nPara\n---\n\n# H\n\nText *a\n\nb* c.\n",
        "---\ntitle: T\n\n---\n\nBody.\n\n---\n\nAfter a rule.\n\n| a | b |\n|---|---|\n| c | d |\n\nX.\n",
        "\u{feff}# Title\r\n\r\nOne.\r\n\r\nTwo.\r\n",
        // Lists cut between items, or kept whole where a cut would change them.
        "- a\n- b\n- c\n\n- d\n",
        "- a\n- b\n- c\n\nAfter.\n",
        "1. a\n2. b\n3) c\n* d\n+ e\n- f\n",
        "- a\n  - nested\n  - more\n- b\n  continued\nlazy\n- c\n\nPara.\n",
        "- a\n- b\n\n  a second paragraph of b\n- c\n",
        "- a\r- b\r\r- c\r- d\r",
        "- a\r\n- b\r\n  \r\n- c\r\n",
        "- a\n- ```\n  code\n\n  more\n  ```\n- c\n",
        "- a\n- b\n# H\n- c\n- d\n\n- e\n",
        "- a\n- b\n***\n- c\n- d\n\n\tindented\n",
        "- a\n- b\n> quote\n- c\n\n> more\n",
        "10. a\n11. b\n12. c\n\n13. d\n",
        "- [ ] task\n- [x] done\n- plain\n",
        // Loose by a blank line before the cut, with no paragraph straight in an item.
        "- # A\n\n- b\n",
        "- ```\n  x\n  ```\n\n- b\n- c\n",
        "- - x\n\n- b\n",
        "- | a |\n  |---|\n\n- b\n",
        "- a\n- # b\n\x0c\n- c\n",
        "- a\n- b\n\x0b\n- c\n",
        // Link references across pieces: before and after their definitions, of every
        // kind, in another case and spacing, images, definitions in quotes and lists,
        // titles on the next line, undefined labels, and a label defined twice.
        "See [a] and [b][] and [text][A].\n\n[a]: /one\n\nMore [a].\n\n[b]: /two 'T'\n",
        "[Foo   Bar]: /fb\n\nA [foo bar] and ![FOO BAR] and [ÄÖ].\n\n[äö]: /u\n",
        "> [q]: /quoted\n\n- [l]: /listed\n\nUse [q] and [l] and [missing].\n",
        "[t]: /url\n\"title on the next line\"\n\nUse [t].\n\n[u]:\n/next-line\n\n[u]\n",
        "[d]: /first\n\nUse [d].\n\n[d]: /second\n\nAgain [d].\n",
        "[[a]] and [a [a]](/x) and [![a]][a].\n\n[a]: /a\n",
        "```\n[c]: /in-code\n```\n\nNot a link: [c].\n",
        // Metadata blocks (found in review): one read whole that a window took for a
        // definition, in a quote and a list item, after a non-ASCII space, closed by `\r`.
        "---\n[a]: /x\n\nb\n\nc\n\nd\n\ne\n\n---\n\n[a]\n",
        "a\n\n> ---\n> b\n\nc\n\n---\n",
        "a\n\n* ---\n  b\n\nc\n\n---\n",
        "a\n\n> ---\n> [a]: /x\n\nc\n\n---\n\n[a]\n",
        "a\n\n---\n\u{a0}\n\nb\n\nc\n\nd\n\ne\n\n---\n",
        "a\n\n---\nb\n\nc\n\nd\n\ne\n\n---\rz\n",
        "a\n\n---\t\x0c\r\nb\n\nc\n\n...  \n",
        // pulldown-cmark scans a fence's info string and an indented code block's lines
        // to the next `\n`, past bare `\r` line ends (fuzz).
        "```\r\r`",
        "a\n\n```\r\r`\n\nb\n",
        "-\t\x00\n-\t\t%\r\r>\n\n-",
        // Tables cut between rows: short and long rows, escaped pipes, code spans, rows
        // that end the table, references across pieces, a table inside a list.
        "| a | b |\n|---|:-:|\n| c | d |\n| e |\n  f | g | h\n\nEnd.\n",
        "a | b\n--|--\n`c|d` | e\\|f\n*g | h*\n> i\n| j |\n",
        "| [a] |\n|---|\n| [b] |\n| [a] |\n| x\n- y\n\n[a]: /a\n[b]: /b \"t\"\n",
        "- | a |\n  |---|\n  | b |\n  | c |\n",
        "| a |\n|---|\n| b |\n---\n| c |\n|\n| d |\n",
        "Para\n| a |\n|---|\n| b |\n| c |\n",
    ] {
        inputs.push((tricky.to_owned(), tricky.as_bytes().to_vec()));
    }
    let mut cut = 0;
    for (name, bytes) in &inputs {
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        let whole = read_in_pieces(text, None, Skeleton::over(text), None).finish();
        let pieces = read_in_pieces(text, Some(1), Skeleton::over(text), None).finish();
        let (Ok(whole), Ok(pieces)) = (whole, pieces) else {
            panic!("{name}: refused");
        };
        assert_eq!(pieces.document, whole.document, "{name}");
        assert_eq!(pieces.skeleton, whole.skeleton, "{name}");
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        cut += plan(&text[bom..], 1).unwrap().cuts.len();
    }
    assert!(cut > 1000, "{cut} cuts");
    // Link references reach across the file: a piece's reference to a definition in
    // another resolves from the plan's definitions; a label defined twice, or references
    // that spend much of pulldown-cmark's expansion budget, read the file whole.
    assert_eq!(plan("[a]\n\ntext\n\n[a]: /url\n", 1).unwrap().cuts, [5]);
    assert!(
        plan("[a]: /1\n\ntext\n\n[A]: /2\n", 1)
            .unwrap()
            .cuts
            .is_empty()
    );
    // A 2,000-byte destination used `uses` times in each of `paragraphs` paragraphs.
    let costly = |uses: usize, paragraphs: usize| {
        let paragraph = format!("Use{}.\n\n", " [a]".repeat(uses));
        format!(
            "[a]: /{}\n\n{}",
            "x".repeat(2_000),
            paragraph.repeat(paragraphs)
        )
    };
    assert!(!plan(&costly(1, 10), 1).unwrap().cuts.is_empty());
    // Past the whole file's budget (max(its length, 100,000) / 2), past a piece's.
    assert!(plan(&costly(1, 30), 1).unwrap().cuts.is_empty());
    assert!(plan(&costly(30, 1), 1).unwrap().cuts.is_empty());
    let costly = costly(10, 40);
    for text in [costly.as_str(), &costly.repeat(2)] {
        let whole = read_in_pieces(text, None, Skeleton::over(text), None)
            .finish()
            .unwrap();
        let pieces = read_in_pieces(text, Some(1), Skeleton::over(text), None)
            .finish()
            .unwrap();
        assert_eq!(pieces.document, whole.document);
    }
    assert_eq!(plan("a\n\nb\n\n- c\n- d\n", 1).unwrap().cuts, [3, 10]);
    // A tight list is cut before each item but its first; one a blank line makes loose,
    // before or after the cut, is not.
    assert_eq!(plan("- a\n- b\n- c\n\nEnd.\n", 1).unwrap().cuts, [4, 8, 13]);
    assert_eq!(
        plan("- a\n- b\n- c\n\n- d\n", 1).unwrap().cuts,
        Vec::<usize>::new()
    );
    assert_eq!(
        plan("- a\n\n- b\n- c\n", 1).unwrap().cuts,
        Vec::<usize>::new()
    );
    // A loose list is cut where both parts keep a blank line between two of their items:
    // before `c` (blank lines before `b` and before `d`), and so on every other item.
    assert_eq!(plan("- a\n\n- b\n\n- c\n\n- d\n", 1).unwrap().cuts, [10]);
    // A block quote is cut before a paragraph that follows one of its blank lines.
    assert_eq!(plan("> a\n>\n> b\n>\n> c\n", 1).unwrap().cuts, [6, 12]);
    // A table is cut before each row but its first, each piece read after its head.
    let table = "| a | b |\n|---|:-:|\n| c | d |\n| e |\n  f | g | h\n\nEnd.\n";
    let planned = plan(table, 1).unwrap();
    assert_eq!(planned.cuts, [30, 36, 49]);
    assert_eq!(planned.heads.get(&30), Some(&(0..20)));
    assert_eq!(planned.heads.get(&36), Some(&(0..20)));
    assert_eq!(planned.heads.get(&49), None);
    // pulldown-cmark fills at most 2^18 empty cells into a table's short rows, then ends
    // the table; a piece's parser counts afresh, so a cut table whose empty cells reach
    // 2^17 is read whole, and reads as the whole file does past the limit.
    let short = |rows: usize| format!("| a | b | c |\n|---|---|---|\n{}", "|x\n".repeat(rows));
    assert!(!plan(&short(60_000), 1).unwrap().cuts.is_empty());
    let past = short(140_000);
    assert!(plan(&past, 1).unwrap().cuts.is_empty());
    let whole = read_in_pieces(&past, None, Skeleton::over(&past), None).finish();
    let pieces = read_in_pieces(&past, Some(1), Skeleton::over(&past), None).finish();
    assert_eq!(pieces.unwrap().document, whole.unwrap().document);
    let loose = "- a\n\n- b\n\n- c\n\n- d\n\n- e\n\n- f\n\nEnd.\n";
    assert_eq!(plan(loose, 1).unwrap().cuts, [10, 20, 30]);
    // Not where a part would hold no blank line between items: a gap that is not blank
    // before the next item or two back.
    assert_eq!(
        plan("- a\n\n- b\n\n- c\n- d\n", 1).unwrap().cuts,
        Vec::<usize>::new()
    );
    assert_eq!(
        plan("- a\n- b\n\n- c\n\n- d\n", 1).unwrap().cuts,
        Vec::<usize>::new()
    );
    for text in [
        loose,
        "- a\n\n- b\n\n- c\n\n- d\n",
        "1. a\n\n2. b\n\n3. c\n\n   more\n\n4. d\n\n5. e\n",
        "- a\n\n- b\n  - x\n  - y\n\n- c\n\n- d\n\n- e\n",
        "- a\n\n- b\n\n- c\n\n- d\n\n   \n- e\n\n> q\n",
        // Block quotes cut between their paragraphs.
        "> a\n>\n> b\n>\n> c\n",
        "> a\n> b\n>\n> c\n>  \n>d\nlazy\n>\n> - x\n>\n> e\n\nEnd.\n",
        "> a\n>\n>     code\n>\n> b\n>\n> > nested\n>\n> c\n",
        "> ```\n> x\n>\n> y\n> ```\n>\n> z\n",
        // A blank line inside a fence left open to its item's end is no gap.
        "- a\n  ```\n  x\n\n- b\n\n- c\n\n- d\n",
        "- a\n\n- b\n  ```\n  x\n\n- c\n\n- d\n\n- e\n",
        "- a\n\n- b\n  <pre>\n\n- c\n\n- d\n\n- e\n",
    ] {
        assert!(pieces_agree(text), "{text:?}");
    }
    // A `---` line a window ends before the closing line of: the metadata block it opens
    // reaches across the windows, so the file is read whole, and counted to its end.
    let far = format!(
        "Intro.\n\n---\nBy the team\n\n{}---\n",
        "Open.\n\n".repeat(50)
    );
    let planned = plan(&far, 4).unwrap();
    assert!(planned.cuts.is_empty(), "{:?}", planned.cuts);
    let whole = read_in_pieces(&far, None, Skeleton::over(&far), None)
        .finish()
        .unwrap();
    let pieces = read_in_pieces(&far, Some(4), Skeleton::over(&far), None)
        .finish()
        .unwrap();
    assert_eq!(pieces.document, whole.document);
    let linked = format!("{}[a]: /url\n", "Open.\n\n".repeat(50));
    assert!(plan(&linked, 4).unwrap().blocks >= 50);
    let text = "See [a].\n\nMore.\n\n[a]: /url\n";
    let linked = read_in_pieces(text, Some(1), Skeleton::over(text), None)
        .finish()
        .unwrap();
    assert!(
        linked.document.blocks[0]
            .source
            .runs
            .iter()
            .any(|r| matches!(r, Run::Code(c) if c.class == "link"))
    );
}

#[test]
fn keys_name_a_section_by_its_heading_ordinal_and_labels_by_its_words() {
    let source = "Intro text.\n\n## Install\n\nRun it.\n\nThen this.\n\n## Use\n\n- one\n- two\n";
    let got = keys_and_labels(&read(source));
    let want = [
        ("top/p", None),
        ("s1/h", Some("install/h")),
        ("s1/p", Some("install/p")),
        ("s1/p#2", Some("install/p#2")),
        ("s2/h", Some("use/h")),
        ("s2/li", Some("use/li")),
        ("s2/li#2", Some("use/li#2")),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(k, l)| (k.to_string(), l.map(str::to_owned)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn keys_survive_an_edit_of_a_block_and_of_the_heading_above_it() {
    let source = "Intro text.\n\n## Install\n\nRun it.\n\nThen this.\n\n## Use\n\n- one\n- two\n";
    let parsed = read(source);
    let keys: Vec<_> = keys_and_labels(&parsed)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let mut edited = parsed.clone();
    set_text(&mut edited, "s1/h", "Setting up");
    set_text(&mut edited, "s1/p", "Run it now, with *care* and `care`.");
    set_text(&mut edited, "top/p", "New intro\nover two lines.");
    let reread = read(&write(&edited));
    let again: Vec<_> = keys_and_labels(&reread);
    assert_eq!(
        again.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        keys
    );
    let p = reread.document.block("s1/p").unwrap();
    assert_eq!(p.source.plain_text(), "Run it now, with *care* and `care`.");
    // The label follows the heading's new words; the key does not.
    assert_eq!(p.label.as_deref(), Some("setting-up/p"));
    assert_eq!(
        reread.document.block("s2/li#2").unwrap().label.as_deref(),
        Some("use/li#2")
    );
}

#[test]
fn a_new_heading_shifts_the_sections_after_it_only() {
    let before = read("# A\n\nOne.\n\n# B\n\nTwo.\n");
    let after = read("# A\n\nOne.\n\n# New\n\nInserted.\n\n# B\n\nTwo.\n");
    assert_eq!(
        before.document.block("s1/p").unwrap().source.plain_text(),
        after.document.block("s1/p").unwrap().source.plain_text()
    );
    // `s2/p` now names other text: its rev differs, so an edit read before is `stale`.
    let (old, new) = (
        before.document.block("s2/p").unwrap(),
        after.document.block("s2/p").unwrap(),
    );
    assert_ne!(old.source.rev(), new.source.rev());
    assert_eq!(
        after.document.block("s3/p").unwrap().source.plain_text(),
        "Two."
    );
}

#[test]
fn every_heading_starts_a_section_even_an_empty_or_repeated_one() {
    // Two headings with the same words are two sections; a heading with no text is no
    // block but still a section, so emptying a heading moves no other key.
    let got = keys_and_labels(&read(
        "Top.\n\n# Top\n\nA.\n\n# Top\n\nB.\n\n#\n\nC.\n\n# --\n\nD.\n",
    ));
    let want = [
        ("top/p", None),
        ("s1/h", Some("top/h")),
        ("s1/p", Some("top/p#2")),
        ("s2/h", Some("top/h#2")),
        ("s2/p", Some("top/p#3")),
        ("s3/p", Some("section/p")),
        ("s4/h", Some("section/h")),
        ("s4/p", Some("section/p#2")),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(k, l)| (k.to_string(), l.map(str::to_owned)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_translation_with_other_headings_and_an_extra_paragraph_aligns_by_section() {
    let source = read("# Install\n\nRun it.\n\n# Use\n\nOpen it.\n");
    let target = read("# Installer\n\nLancez-le.\n\nUne note.\n\n# Utiliser\n\nOuvrez-le.\n");
    let pairs = crate::model::align(&source.document, &target.document);
    let texts: Vec<Option<String>> = pairs
        .iter()
        .map(|p| p.map(|i| target.document.blocks[i].source.plain_text()))
        .collect();
    assert_eq!(
        texts,
        [
            Some("Installer".to_owned()),
            Some("Lancez-le.".to_owned()),
            Some("Utiliser".to_owned()),
            Some("Ouvrez-le.".to_owned())
        ]
    );
}

#[test]
fn code_is_not_prose() {
    let source = "Run `cargo test` now.\n\n```sh\ncargo test\n```\n\n    indented\n";
    let parsed = read(source);
    let p = parsed.document.block("top/p").unwrap();
    let prose = Prose::from_edition(&p.source);
    assert_eq!(prose.text, format!("Run {CODE_MARK} now."));
    assert_eq!(
        prose.file_offset(prose.text.find("now").unwrap()),
        Some(source.find("now").unwrap())
    );
    for key in ["top/code", "top/code#2"] {
        let code = parsed.document.block(key).unwrap();
        assert_eq!(code.role, Role::Code);
        assert!(!code.translatable);
    }
}

#[test]
fn escapes_and_entities_read_as_text_and_codes() {
    let source = "A \\*star\\* and AT&amp;T.\n";
    let parsed = read(source);
    let p = parsed.document.block("top/p").unwrap();
    assert_eq!(marked(&p.source), "A *star* and AT<x id=\"1/\"/>T.");
    assert_eq!(write(&parsed), source);
}

#[test]
fn table_cells_are_blocks() {
    let source = "| Name | Notes |\n|---|---|\n| `x` | a \\| b |\n";
    let mut parsed = read(source);
    let cells: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.as_str(), b.role))
        .collect();
    assert_eq!(
        cells,
        [
            ("top/cell", Role::TableCell),
            ("top/cell#2", Role::TableCell),
            ("top/cell#3", Role::TableCell),
            ("top/cell#4", Role::TableCell)
        ]
    );
    set_text(&mut parsed, "top/cell#4", "c | d\ne");
    assert_eq!(
        write(&parsed),
        "| Name | Notes |\n|---|---|\n| `x` | c \\| d e |\n"
    );
}

#[test]
fn front_matter_title_is_a_block_and_the_rest_is_untouched() {
    let source = "---\ntitle: Hello world # note\ntags: [a, b]\ndescription: \"Quoted: yes\"\nsummary: |\n  block\n---\n\n# Hi\n";
    let mut parsed = read(source);
    let keys: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.as_str())
        .collect();
    assert_eq!(keys, ["front/title", "front/description", "s1/h"]);
    assert_eq!(parsed.document.blocks[0].role, Role::Key);
    assert_eq!(parsed.document.blocks[0].source.plain_text(), "Hello world");
    set_text(&mut parsed, "front/title", "Bonjour: monde");
    set_text(&mut parsed, "front/description", "Say \"hi\"");
    let out = write(&parsed);
    assert_eq!(
        out,
        source
            .replace("Hello world", "\"Bonjour: monde\"")
            .replace("Quoted: yes", "Say \\\"hi\\\"")
    );
    let again = read(&out);
    assert_eq!(
        again
            .document
            .block("front/title")
            .unwrap()
            .source
            .plain_text(),
        "Bonjour: monde"
    );
}

#[test]
fn front_matter_values_are_written_as_yaml_and_this_reader_read_them_back() {
    let source = "---\ntitle: Hello\n---\n\n# Hi\n";
    // Each reads back as a text block: YAML would take `yes` and `12` for another type,
    // `Say "hi"` and `a\tb` need quotes this reader reads.
    for text in [
        "2024 roadmap",
        "yes",
        "12",
        "a: b",
        "Say \"hi\"",
        "a\tb",
        "it's",
    ] {
        let mut parsed = read(source);
        set_text(&mut parsed, "front/title", text);
        let out = write(&parsed);
        let again = read(&out);
        let block = again
            .document
            .block("front/title")
            .unwrap_or_else(|| panic!("the title is still a block in {out:?}"));
        assert_eq!(block.source.plain_text(), text, "{out:?}");
        let front = out.split("---\n").nth(1).unwrap_or_default();
        let yaml: serde_yaml::Mapping = serde_yaml::from_str(front).expect("front matter");
        assert_eq!(
            yaml.get("title").and_then(|v| v.as_str()),
            Some(text),
            "{out:?}"
        );
    }
    // Both quotes and a control character: YAML's escapes, still valid YAML.
    let mut parsed = read(source);
    set_text(&mut parsed, "front/title", "it's \"x\"\u{7}");
    let out = write(&parsed);
    let front = out.split("---\n").nth(1).unwrap_or_default();
    let yaml: serde_yaml::Mapping = serde_yaml::from_str(front).expect("front matter");
    assert_eq!(
        yaml.get("title").and_then(|v| v.as_str()),
        Some("it's \"x\"\u{7}")
    );
}

#[test]
fn crlf_files_keep_crlf() {
    let source = "# T\r\n\r\nOne\r\ntwo\r\n\r\n- a\r\n";
    let mut parsed = read(source);
    assert_eq!(write(&parsed), source);
    set_text(&mut parsed, "s1/p", "Uno\ndos");
    set_text(&mut parsed, "s1/li", "b\nc");
    assert_eq!(
        write(&parsed),
        "# T\r\n\r\nUno\r\ndos\r\n\r\n- b\r\n  c\r\n"
    );
}

#[test]
fn list_items_and_quotes_have_roles_and_levels() {
    let source = "- one\n  - two\n\n    para\n> - q\n>\n> quoted\n";
    let parsed = read(source);
    let got: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.as_str(), b.role, b.level))
        .collect();
    assert_eq!(
        got,
        [
            ("top/li", Role::ListItem, 1),
            ("top/li#2", Role::ListItem, 2),
            ("top/li#3", Role::ListItem, 2),
            ("top/li#4", Role::ListItem, 1),
            ("top/quote", Role::Quote, 1),
        ]
    );
}

#[test]
fn a_tight_item_that_opens_with_emphasis_or_a_link_is_one_block() {
    let source = "- **Paths**: Once a module is\n  part of it.\n- _Note_ then text\n- [Link](u) and more\n- `code` first\n";
    let mut parsed = read(source);
    let got: Vec<(String, String)> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.clone(), marked(&b.source)))
        .collect();
    let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["top/li", "top/li#2", "top/li#3", "top/li#4"],
        "{got:?}"
    );
    assert!(
        got[0].1.contains("Paths") && got[0].1.contains("Once a module"),
        "{got:?}"
    );
    // An edit of the item's text keeps its emphasis and writes nothing else.
    let block = parsed
        .document
        .block_mut("top/li#2")
        .expect("the second item");
    for run in &mut block.source.runs {
        if let Run::Text { text, .. } = run
            && text.as_str() == " then text"
        {
            *text = " then other text".into();
        }
    }
    assert_eq!(
        write(&parsed),
        source.replace("_Note_ then text", "_Note_ then other text")
    );
}

#[test]
fn malformed_and_truncated_input_never_panics() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in fixtures() {
        for cut in [
            1,
            7,
            64,
            333,
            1000,
            bytes.len() / 2,
            bytes.len().saturating_sub(3),
        ] {
            inputs.push(bytes[..cut.min(bytes.len())].to_vec());
        }
        let garbled: Vec<u8> = bytes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if i % 17 == 0 {
                    b"*_[`<&\\|>#\n"[i % 11]
                } else {
                    b
                }
            })
            .collect();
        inputs.push(garbled);
    }
    for nasty in [
        "[[[[[[[[[[",
        "*****a*****",
        "---\ntitle: \"x\n---\n",
        "\u{feff}---\ntitle: a\n---\n",
        "&;\\",
        "\r\r\n\r",
    ] {
        inputs.push(nasty.as_bytes().to_vec());
    }
    inputs.push("*a ".repeat(5000).into_bytes());
    for input in inputs {
        if let Ok(mut parsed) = Markdown.read(&input) {
            assert_eq!(Markdown.write(&parsed).unwrap(), input);
            for block in &mut parsed.document.blocks {
                block.source.runs.push(Run::text(" *edited* \\ <a> 1. #"));
            }
            let _ = Markdown.write(&parsed).unwrap();
        }
    }
    assert!(Markdown.read(b"a\0b").is_err());
    assert!(Markdown.read(b"\xff\xfe").is_err());
}

#[test]
fn reads_blocks_of_a_fixture() {
    let bytes = include_bytes!("../../../../testdata/formats/markdown/tldr-en-tar.md");
    let parsed = Markdown.read(bytes).unwrap();
    insta::assert_snapshot!(
        "markdown_blocks_tldr_en_tar",
        blocks_table(&parsed.document)
    );
}

#[test]
fn reads_blocks_of_a_sample_with_every_construct() {
    let bytes = include_bytes!("../../../../testdata/formats/markdown/kapi-sample.md");
    let parsed = Markdown.read(bytes).unwrap();
    insta::assert_snapshot!(
        "markdown_blocks_kapi_sample",
        blocks_table(&parsed.document)
    );
}

#[test]
fn rendering_every_block_as_edited_reads_back_to_the_same_content() {
    for (name, bytes) in fixtures() {
        let parsed = Markdown.read(&bytes).unwrap();
        let text = std::str::from_utf8(&bytes).unwrap();
        let mut holes: Vec<&Hole> = parsed.skeleton.holes.iter().collect();
        holes.sort_by_key(|h| h.span.start);
        let (mut out, mut at) = (String::new(), 0);
        for hole in holes {
            out.push_str(&text[at..hole.span.start]);
            let block = &parsed.document.blocks[hole.block];
            out.push_str(&render(text, hole, block.role, &block.source.runs));
            at = hole.span.end;
        }
        out.push_str(&text[at..]);
        let again = read(&out);
        let table = |d: &Document| blocks_table(d);
        assert_eq!(table(&again.document), table(&parsed.document), "{name}");
    }
}

#[test]
fn an_edited_atx_heading_stays_one_line() {
    let mut parsed = read("## Old title ##\n\nText.\n");
    set_text(&mut parsed, "s1/h", "New\ntitle #");
    assert_eq!(write(&parsed), "## New title \\# ##\n\nText.\n");
}

/// A long line makes a whole read count codes in chunks first; a chunk from inside a
/// table or a metadata block reads lines as one paragraph that the whole read splits
/// into cells, or reads as no block: such a range is not refused by the count, only by
/// the read, block by block.
#[test]
fn a_long_line_refuses_only_a_block_a_whole_read_refuses() {
    let long = format!("{}\n\n", "x".repeat(40_000));
    let refused = |text: &str| {
        let out = read_in_pieces(text, None, Skeleton::over(text), None);
        matches!(out.finish(), Err(ReadError::TooDense { .. }))
    };
    // 10,000 rows of two emphasised cells, in a table at the margin and in a quote.
    let rows = "| *a* | *b* |\n".repeat(10_000);
    assert!(!refused(&format!("{long}| a | b |\n|---|---|\n{rows}")));
    let quoted = "> | *a* | *b* |\n".repeat(10_000);
    assert!(!refused(&format!(
        "{long}> | a | b |\n> |---|---|\n{quoted}"
    )));
    // Front matter of 12,000 emphasised words, which a whole read reads as no prose.
    let front = format!("---\nk: {}\n---\n\n", "*a* ".repeat(12_000));
    assert!(!refused(&format!("{front}{long}")));
    // One paragraph, and one cell, of 12,000 emphasised words are refused.
    let dense = "*a* ".repeat(12_000);
    assert!(refused(&format!("{long}{dense}\n")));
    assert!(refused(&format!("{long}| a |\n|---|\n| {dense} |\n")));
    // A table or front matter elsewhere leaves a dense paragraph after it counted: the
    // count refuses it before pulldown-cmark builds its tree.
    let counted = |text: &str| {
        dense_block(text, 0..text.len(), LONG_LINE, last_metadata_close(text)).is_some()
    };
    for text in [
        format!("| a |\n|---|\n| b |\n\n{long}{dense}\n"),
        format!("---\nk: v\n---\n\n{long}{dense}\n"),
        format!("{long}| a |\n|---|\n\n{dense}\n"),
    ] {
        assert!(refused(&text), "{}", &text[..12]);
        assert!(counted(&text), "counted {}", &text[..12]);
    }
    assert!(!counted(&format!("{long}| a | b |\n|---|---|\n{rows}")));
}
