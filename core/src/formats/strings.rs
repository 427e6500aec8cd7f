//! Apple `.strings` (`en.lproj/Localizable.strings`, Interface Builder's `MainMenu.strings`):
//! `"key" = "value";` pairs, each value a block keyed by its key, read and written back byte
//! for byte in the file's encoding (UTF-16 with a BOM, as Xcode writes them, or UTF-8).
//!
//! # Blocks and keys
//! Each pair is a [`Role::Key`] block keyed by its decoded key (a repeat numbered `k#2`). A
//! key may be quoted or a bare word (`key = "v";`, old-style property lists). The comments
//! right above a pair (`/* … */` and `//` lines, with no pair between) are its notes.
//!
//! # Runs
//! A value reads with its escapes undone (`\"`, `\\`, `\n`, `\t`, `\r`, `\Uxxxx`, and a
//! backslash before a line break); verbatim pieces keep their file offsets. printf
//! placeholders (`%@`, `%1$@`, `%lld`, `%d`, `%%`) are codes a translation keeps.
//!
//! # Writing
//! An edited value is escaped: `"` and `\` with a backslash, a line break as `\n`, a tab as
//! `\t`, other control characters as `\Uxxxx`.
//!
//! # What is refused
//! A compiled `.strings` (a binary property list, `bplist00`: what Xcode copies into a built
//! app) is refused with what to read instead: the source `.strings` file. A malformed pair is
//! refused at its line and column.
use super::inline::placeholders::{Ids, Syntaxes};
use super::output::Output;
use super::properties::Pieces;
use super::{
    Capabilities, Format, FormatInfo, Hole, Keys, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "strings",
    name: "Apple strings",
    extensions: &["strings"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

pub struct AppleStrings;

impl Format for AppleStrings {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        parsed
            .skeleton
            .fill(&parsed.document, |_hole: &Hole, runs: &[Run]| {
                let mut out = String::new();
                super::render_runs(runs, &mut out, &mut |text, out| escape(text, out));
                Ok(out)
            })
    }
}

/// The text of a `.strings` file, refusing a compiled (binary property list) one.
fn decode(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, super::Encoding), ReadError> {
    if bytes.starts_with(b"bplist") {
        return Err(ReadError::Syntax {
            line: 1,
            column: 1,
            message: "this is a compiled .strings file (a binary property list, `bplist00`), \
                      as a built app holds it: read the source .strings file the project \
                      keeps instead (`plutil -convert xml1` shows this one)"
                .into(),
        });
    }
    super::decode_auto(bytes)
}

fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\U{:04X}", c as u32)),
            c => out.push(c),
        }
    }
}

/// A scanner over the text.
struct Scan<'t> {
    text: &'t str,
    at: usize,
}

impl Scan<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn error(&self, at: usize, message: &str) -> ReadError {
        ReadError::syntax_at(self.text, at, message)
    }

    /// Skips white space and comments; returns the comments' texts since the last pair.
    fn trivia(&mut self, notes: &mut Vec<String>) -> Result<(), ReadError> {
        loop {
            while self
                .bytes()
                .get(self.at)
                .is_some_and(|b| b.is_ascii_whitespace())
            {
                self.at += 1;
            }
            let rest = self.text.get(self.at..).unwrap_or_default();
            if let Some(body) = rest.strip_prefix("/*") {
                let end = body.find("*/").ok_or_else(|| {
                    self.error(self.at, "a `/*` comment is never closed with `*/`")
                })?;
                notes.push(body[..end].trim().to_owned());
                self.at += 2 + end + 2;
            } else if let Some(body) = rest.strip_prefix("//") {
                let end = body.find(['\n', '\r']).unwrap_or(body.len());
                notes.push(body[..end].trim().to_owned());
                self.at += 2 + end;
            } else {
                return Ok(());
            }
        }
    }

    /// A quoted string at `at` (its `"`): the content's range, and its decoded pieces.
    fn quoted(&mut self) -> Result<(std::ops::Range<usize>, Pieces), ReadError> {
        let open = self.at;
        self.at += 1;
        let start = self.at;
        let mut pieces = Pieces::default();
        loop {
            let rest = self.text.get(self.at..).unwrap_or_default();
            let Some(i) = rest.find(['"', '\\']) else {
                return Err(self.error(open, "a quoted string is never closed with `\"`"));
            };
            pieces.push_str(&rest[..i], self.at);
            self.at += i;
            if self.bytes()[self.at] == b'"' {
                let end = self.at;
                self.at += 1;
                return Ok((start..end, pieces));
            }
            // A backslash escape.
            let esc = self.at;
            let next = self.text.get(esc + 1..).and_then(|r| r.chars().next());
            let (c, len) = match next {
                Some('n') => ('\n', 2),
                Some('t') => ('\t', 2),
                Some('r') => ('\r', 2),
                Some('U' | 'u') => {
                    let hex = self.text.get(esc + 2..esc + 6).unwrap_or_default();
                    let c = u32::from_str_radix(hex, 16)
                        .ok()
                        .filter(|_| hex.len() == 4)
                        .and_then(char::from_u32)
                        .ok_or_else(|| self.error(esc, "`\\U` takes four hexadecimal digits"))?;
                    (c, 6)
                }
                Some(c) => (c, 1 + c.len_utf8()),
                None => return Err(self.error(open, "a quoted string is never closed with `\"`")),
            };
            pieces.push(c, None);
            self.at = esc + len;
        }
    }

    /// A bare key (a word of letters, digits and `_.-$:/`).
    fn bare(&mut self) -> Option<std::ops::Range<usize>> {
        let start = self.at;
        while self.bytes().get(self.at).is_some_and(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$' | b':' | b'/')
        }) {
            self.at += 1;
        }
        (self.at > start).then_some(start..self.at)
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), ReadError> {
        let mut ignored = Vec::new();
        self.trivia(&mut ignored)?;
        if self.bytes().get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(self.at, what))
        }
    }
}

fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = Keys::new(text.len());
    // A BOM (some files carry two: a tool wrote one before the one it kept).
    let start = text.len() - text.trim_start_matches('\u{feff}').len();
    let mut scan = Scan { text, at: start };
    loop {
        let mut notes = Vec::new();
        scan.trivia(&mut notes)?;
        if scan.at >= text.len() || out.refused() {
            break;
        }
        let key_at = scan.at;
        let key = if scan.bytes()[scan.at] == b'"' {
            let (_, pieces) = scan.quoted()?;
            pieces
                .pieces
                .into_iter()
                .map(|(t, _)| t)
                .collect::<String>()
        } else {
            let range = scan
                .bare()
                .ok_or_else(|| scan.error(scan.at, "expected a key: `\"key\" = \"value\";`"))?;
            text[range].to_owned()
        };
        scan.expect(b'=', "expected `=` after the key: `\"key\" = \"value\";`")?;
        let mut ignored = Vec::new();
        scan.trivia(&mut ignored)?;
        if scan.bytes().get(scan.at) != Some(&b'"') {
            return Err(scan.error(scan.at, "expected a quoted value: `\"key\" = \"value\";`"));
        }
        let (content, pieces) = scan.quoted()?;
        scan.expect(b';', "expected `;` after the value")?;
        let key = keys.key(&key, text, key_at)?;
        let mut ids = Ids::default();
        let runs = pieces.into_runs(Syntaxes::PRINTF, &mut ids);
        if ids.full() {
            out.refuse(ReadError::too_dense(text, content.start));
        }
        let mut block = Block::new(key, Role::Key, runs);
        block.notes = notes.into_iter().filter(|n| !n.is_empty()).collect();
        block.span = key_at..scan.at;
        let index = out.index();
        out.skeleton.hole(content, index, &block.source);
        out.push(text, block);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::conformance;
    use crate::model::Edition;

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&AppleStrings, "strings") > 10);
    }

    /// SwiftGen's playground ships a compiled `.strings` (a binary property list): refused
    /// with what to read instead.
    #[test]
    fn a_compiled_strings_file_is_refused_with_what_to_read() {
        let bytes = include_bytes!(
            "../../../testdata/formats/strings-invalid/swiftgen-playground_Localizable.strings"
        );
        let error = AppleStrings.read(bytes).unwrap_err().to_string();
        assert!(error.contains("compiled .strings file"), "{error}");
        assert!(error.contains("source .strings"), "{error}");
    }

    #[test]
    fn pairs_comments_escapes_and_placeholders() {
        let text = "/* The greeting */\n\"hello\" = \"Hello %@, \\\"you\\\"\";\n// Menu\nkey = \"multi\\\nline\";\n";
        let parsed = AppleStrings.read(text.as_bytes()).unwrap();
        let blocks: Vec<(String, String, Vec<String>)> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.clone(), b.source.plain_text(), b.notes.clone()))
            .collect();
        assert_eq!(
            blocks,
            [
                (
                    "hello".into(),
                    "Hello , \"you\"".into(),
                    vec!["The greeting".to_owned()]
                ),
                ("key".into(), "multi\nline".into(), vec!["Menu".to_owned()]),
            ]
        );
        assert_eq!(AppleStrings.write(&parsed).unwrap(), text.as_bytes());
        let mut edited = parsed.clone();
        edited.document.blocks[1].source = Edition::new(vec![Run::text("a \"b\"\nc")]);
        let out = String::from_utf8(AppleStrings.write(&edited).unwrap()).unwrap();
        assert!(out.contains("key = \"a \\\"b\\\"\\nc\";"), "{out}");
    }

    #[test]
    fn malformed_and_hostile_input_is_refused_or_bounded() {
        for bad in [
            "\"a\" = \"b\"",
            "\"a\" \"b\";",
            "\"a = \"b\";",
            "/* open",
            "= \"b\";",
        ] {
            assert!(AppleStrings.read(bad.as_bytes()).is_err(), "{bad}");
        }
        let many = "\"k\" = \"%@\";\n".repeat(50_000);
        let parsed = AppleStrings.read(many.as_bytes()).unwrap();
        assert_eq!(parsed.document.blocks.len(), 50_000);
        let _ = AppleStrings.read("/*".repeat(50_000).as_bytes());
    }
}
