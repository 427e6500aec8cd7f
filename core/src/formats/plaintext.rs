//! Plain text: one block per paragraph, a run of non-blank lines between blank lines
//! (a blank line is empty or holds only spaces and tabs).
//!
//! Blocks are paragraphs with keys `p`, `p#2`, … in reading order. A paragraph's text is
//! one verbatim slice of the file, its inner line endings (`\n`, `\r\n` or `\r`) included;
//! its hole ends before its last line ending. A BOM, blank lines and every line ending
//! stay in the skeleton, so a no-op write is byte-identical. An edited paragraph is written
//! with its own line ending (the first one inside it, else the one ending it, else the
//! file's first one): every `\n`, `\r\n` or `\r` in the new text becomes that ending.
use super::lines::line_ending;
use super::output::Output;
use super::{Capabilities, Format, FormatInfo, Hole, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, KeyDeduper, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "text",
    name: "Plain text",
    extensions: &["txt", "text"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: true,
        bilingual: false,
        comments: false,
    },
};

pub struct PlainText;

impl Format for PlainText {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let original = parsed.skeleton.text();
        let fallback = line_ending(original).unwrap_or("\n");
        parsed
            .skeleton
            .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
                let held = original.get(hole.span.clone()).unwrap_or_default();
                // The paragraph's own ending: inside it, else the one that ends it.
                let after = original.get(hole.span.end..).unwrap_or_default();
                let newline = line_ending(held)
                    .or_else(|| line_ending(after).filter(|_| after.starts_with(['\n', '\r'])))
                    .unwrap_or(fallback);
                let mut out = String::new();
                super::render_runs(runs, &mut out, &mut |text, out| {
                    push_with_endings(text, newline, out)
                });
                Ok(out)
            })
    }
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each paragraph to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let mut out = Output::new(INFO.id, skeleton, each);
    // Paragraphs are separated by blank lines: at most one per two lines.
    if !out.streams() {
        let breaks = text.bytes().filter(|&b| b == b'\n').count();
        out.reserve(breaks / 2 + 1);
    }
    let mut keys = KeyDeduper::default();
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    // The open paragraph: where it starts and where its last non-blank line ends.
    let mut paragraph: Option<(usize, usize)> = None;
    let mut close = |out: &mut Output<'e>, (from, to): (usize, usize)| {
        let slice = text.get(from..to).unwrap_or_default();
        let mut block = Block::new(
            keys.key("p"),
            Role::Paragraph,
            vec![Run::text_at(slice, from)],
        );
        block.span = from..to;
        let index = out.index();
        out.skeleton.hole(from..to, index, &block.source);
        out.push(text, block);
    };
    for (line_start, content_end) in lines(text, start) {
        let line = text.get(line_start..content_end).unwrap_or_default();
        if line.trim_matches([' ', '\t']).is_empty() {
            if let Some(span) = paragraph.take() {
                close(&mut out, span);
            }
        } else {
            paragraph = Some((paragraph.map_or(line_start, |(from, _)| from), content_end));
        }
    }
    if let Some(span) = paragraph {
        close(&mut out, span);
    }
    Ok(out)
}

/// Each line as (start, end of content), line endings `\n`, `\r\n` and `\r`.
fn lines(text: &str, start: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let line_start = at;
        let rest = bytes.get(at..).unwrap_or_default();
        match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                let end = at + i;
                at = if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') {
                    end + 2
                } else {
                    end + 1
                };
                Some((line_start, end))
            }
            None => {
                at = bytes.len();
                Some((line_start, bytes.len()))
            }
        }
    })
}

/// Appends `text` with each of its line endings replaced by `newline`.
fn push_with_endings(text: &str, newline: &str, out: &mut String) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str(newline);
            }
            '\n' => out.push_str(newline),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::text::Prose;

    fn dir(sub: &str) -> Vec<(String, Vec<u8>)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata/formats/text")
            .join(sub);
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_file() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
        out.sort();
        assert!(!out.is_empty(), "fixtures missing in {}", dir.display());
        out
    }

    fn read(text: &str) -> Parsed {
        PlainText.read(text.as_bytes()).unwrap()
    }

    fn write(parsed: &Parsed) -> String {
        String::from_utf8(PlainText.write(parsed).unwrap()).unwrap()
    }

    fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
        parsed.document.block_mut(key).unwrap().source =
            crate::model::Edition::new(vec![Run::text(text)]);
    }

    #[test]
    fn every_fixture_round_trips_byte_for_byte() {
        for (name, bytes) in dir("") {
            let parsed = PlainText
                .read(&bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
            assert_eq!(PlainText.write(&parsed).unwrap(), bytes, "{name}");
            for block in &parsed.document.blocks {
                let Some(Run::Text {
                    text,
                    src: Some(at),
                }) = block.source.runs.first()
                else {
                    panic!("{name}")
                };
                assert_eq!(&bytes[*at..*at + text.len()], text.as_bytes(), "{name}");
            }
        }
    }

    #[test]
    fn utf16_files_with_a_bom_are_read_and_written_back_as_utf16() {
        for (name, bytes) in dir("utf16") {
            let parsed = PlainText
                .read(&bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_ne!(
                parsed.skeleton.encoding,
                super::super::Encoding::Utf8,
                "{name}"
            );
            assert!(!parsed.document.blocks.is_empty(), "{name}");
        }
        assert!(PlainText.read(b"a\0b").is_err());
    }

    #[test]
    fn paragraphs_are_blocks_with_deduped_keys() {
        let parsed = read("\u{feff}One\nline two\n\n  \nTwo\r\n\r\nThree");
        let got: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.as_str(), b.role, b.source.plain_text()))
            .collect();
        assert_eq!(
            got,
            [
                ("p", Role::Paragraph, "One\nline two".to_owned()),
                ("p#2", Role::Paragraph, "Two".to_owned()),
                ("p#3", Role::Paragraph, "Three".to_owned()),
            ]
        );
        let prose = Prose::from_edition(&parsed.document.blocks[0].source);
        assert_eq!(
            prose.file_offset(prose.text.find("two").unwrap()),
            Some(3 + 9)
        );
    }

    #[test]
    fn an_edit_changes_only_its_own_bytes_and_keeps_its_line_ending() {
        let source = "\u{feff}First\r\npara\r\n\r\nSecond\rpara\r\rThird\n";
        let mut parsed = read(source);
        set_text(&mut parsed, "p#2", "Deux\nlignes\r\nici");
        assert_eq!(
            write(&parsed),
            "\u{feff}First\r\npara\r\n\r\nDeux\rlignes\rici\r\rThird\n"
        );
        let mut parsed = read(source);
        set_text(&mut parsed, "p#3", "a\r\nb");
        assert_eq!(write(&parsed), source.replace("Third", "a\nb"));
        let mut parsed = read("Only\r\n");
        set_text(&mut parsed, "p", "x\ny");
        assert_eq!(write(&parsed), "x\r\ny\r\n");
    }

    #[test]
    fn keys_are_stable_when_another_paragraph_is_edited() {
        let source = "a\n\nb\n\nc\n";
        let mut parsed = read(source);
        set_text(&mut parsed, "p#2", "changed\ntext");
        let again = read(&write(&parsed));
        let keys: Vec<_> = again
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(keys, ["p", "p#2", "p#3"]);
        assert_eq!(
            again.document.block("p#3").unwrap().source.plain_text(),
            "c"
        );
    }

    #[test]
    fn malformed_and_truncated_input_never_panics() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for (_, bytes) in dir("").into_iter().chain(dir("utf16")) {
            for cut in [
                1,
                2,
                3,
                5,
                100,
                bytes.len() / 2,
                bytes.len().saturating_sub(1),
            ] {
                inputs.push(bytes[..cut.min(bytes.len())].to_vec());
            }
        }
        for nasty in ["", "\r", "\n", "\r\n\r", " \t", "\u{feff}", "\u{feff}\r\n"] {
            inputs.push(nasty.as_bytes().to_vec());
        }
        for input in inputs {
            if let Ok(mut parsed) = PlainText.read(&input) {
                assert_eq!(PlainText.write(&parsed).unwrap(), input);
                for block in &mut parsed.document.blocks {
                    block.source.runs.push(Run::text("\r\nx\r"));
                }
                let _ = PlainText.write(&parsed).unwrap();
            }
        }
    }
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::PlainText, "text") > 0);
    }
}
