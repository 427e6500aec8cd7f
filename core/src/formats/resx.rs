//! .NET resources (`.resx`, and UWP's `.resw`): each string `<data name="k"><value>` is a
//! block keyed by its name, its `<comment>` the block's note for translators; the XML is
//! scanned by [`super::xml`] and written back byte for byte.
//!
//! # Blocks and keys
//! - `<data name="k">` holding a `<value>` and no `type` or `mimetype` (or the type
//!   `System.String`) is a [`Role::Key`] block keyed `k`; a repeated name is numbered (`k#2`).
//!   Non-string resources (images, sizes, booleans, file references: a `type=` or
//!   `mimetype=`), WinForms designer metadata (names starting `>>`) and `<resheader>`s are
//!   no block; they stay in the skeleton, bytes untouched.
//! - `<comment>` is the block's note, never checked or translated.
//! - An empty `<value/>` is no block; `<value></value>` is an empty block (a translation still
//!   to do).
//!
//! # Runs
//! The text is the value's character data with XML references decoded (`&amp;` reads `&`,
//! at no file offset; verbatim pieces keep theirs). .NET composite format items are codes a
//! translation keeps: `{0}`, `{1,-10}`, `{0:N2}`, `{2,8:C}`; `{{` and `}}` are the escaped
//! braces, text. A value holding markup (a CDATA section or an element) is read as its text
//! content and locked: kapi does not rewrite it.
//!
//! # Writing
//! An edited value is written with `&`, `<` and `>` as references; the rest of the file is
//! copied. The file is UTF-8 (a BOM kept) or UTF-16 with a BOM, or the encoding its XML
//! declaration names, and written back in it.
//!
//! # Satellites
//! A translation is a satellite file: `Strings.fr.resx` beside `Strings.resx`, or UWP's
//! `Strings/fr-FR/Resources.resw`; a collection's `target` template names it
//! (`{dir}/{basename}.{lang}.resx`), and `kapi init` offers it when it finds one.
use std::sync::LazyLock;

use regex::Regex;

use super::inline::placeholders::{self, Ids, Syntaxes};
use super::output::Output;
use super::properties::Pieces;
use super::xml::{self, Token, Tree};
use super::{
    Capabilities, Format, FormatInfo, Hole, Keys, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "resx",
    name: ".NET resources",
    extensions: &["resx", "resw"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// Why a value holding markup takes no edit.
const LOCKED: &str = "the value holds markup (CDATA or an element): edit it in the file";

/// A .NET composite format item: `{index[,alignment][:format]}`.
static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\d+(?:\s*,\s*-?\d+)?(?::[^{}]*)?\}").unwrap_or_else(|_| unreachable!())
});

pub struct Resx;

impl Format for Resx {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(xml::decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write_escaped(parsed)
    }
}

/// Writes each edited value as XML character data (`&`, `<`, `>` as references), the rest of
/// the file as read: .resx's and .stringsdict's writer.
pub(super) fn write_escaped(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    parsed
        .skeleton
        .fill(&parsed.document, |_hole: &Hole, runs: &[Run]| {
            let mut out = String::new();
            super::render_runs(runs, &mut out, &mut |text, out| xml::escape_text(text, out));
            Ok(out)
        })
}

fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = Tree::parse(text)?;
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = Keys::new(text.len());
    let Some(root) = tree.get(0).map(|_| 0) else {
        return Ok(out);
    };
    for data in tree.children(root) {
        if out.refused() {
            break;
        }
        if tree.local(data) != "data" {
            continue;
        }
        let Some(name) = tree.attr(data, "name") else {
            continue;
        };
        let typed = tree
            .attr(data, "type")
            .is_some_and(|t| !t.trim_start().starts_with("System.String"));
        if typed || tree.attr(data, "mimetype").is_some() || name.starts_with(">>") {
            continue;
        }
        let mut value = None;
        let mut notes = Vec::new();
        for child in tree.children(data) {
            match tree.local(child) {
                "value" => value = value.or(Some(child)),
                "comment" => {
                    let note = tree.text_content(child);
                    if !note.trim().is_empty() {
                        notes.push(note);
                    }
                }
                _ => {}
            }
        }
        let Some(element) = value.and_then(|v| tree.get(v)) else {
            continue;
        };
        if element.empty() {
            continue;
        }
        let content = element.content();
        let at = element.span().start;
        let key = keys.key(&name, text, at)?;
        let markup = text
            .get(content.clone())
            .is_some_and(|raw| raw.contains('<'));
        let mut ids = Ids::default();
        let runs = if markup {
            vec![Run::text(
                value.map(|v| tree.text_content(v)).unwrap_or_default(),
            )]
        } else {
            items(value_pieces(text, content.clone())?, &mut ids)
        };
        if ids.full() {
            out.refuse(ReadError::too_dense(text, content.start));
        }
        let mut block = Block::new(key, Role::Key, runs);
        block.notes = notes;
        block.span = tree.get(data).map_or(content.clone(), |d| d.span());
        let index = out.index();
        if markup {
            block.locked = Some(LOCKED.into());
        } else {
            out.skeleton.hole(content, index, &block.source);
        }
        out.push(text, block);
    }
    Ok(out)
}

/// The value's character data, references decoded, verbatim pieces at their offsets.
pub(super) fn value_pieces(
    text: &str,
    content: std::ops::Range<usize>,
) -> Result<Pieces, ReadError> {
    let mut pieces = Pieces::default();
    let mut at = content.start;
    while at < content.end {
        let (token, next) = xml::next_token(text, at, content.end)?;
        if let Token::Text(span) = token {
            let raw = text.get(span.clone()).unwrap_or_default();
            let mut i = 0;
            while let Some(amp) = raw.get(i..).and_then(|r| r.find('&')) {
                pieces.push_str(&raw[i..i + amp], span.start + i);
                let rest = &raw[i + amp..];
                let semi = rest.bytes().take(12).position(|b| b == b';');
                let decoded = semi.and_then(|s| rest.get(1..s)).and_then(xml::reference);
                match (semi, decoded) {
                    (Some(s), Some(c)) => {
                        pieces.push(c, None);
                        i += amp + s + 1;
                    }
                    _ => {
                        xml::check_references(text, rest, span.start + i + amp)?;
                        pieces.push('&', Some(span.start + i + amp));
                        i += amp + 1;
                    }
                }
            }
            pieces.push_str(raw.get(i..).unwrap_or_default(), span.start + i);
        }
        at = next.max(at + 1);
    }
    Ok(pieces)
}

/// Runs of the value's pieces, each composite format item a code (`{{0}}` is the escaped
/// text `{0}`, no item).
fn items(pieces: Pieces, ids: &mut Ids) -> Vec<Run> {
    let runs = pieces.into_runs(Syntaxes::NONE, ids);
    let unescaped =
        |before: &str| (before.len() - before.trim_end_matches('{').len()).is_multiple_of(2);
    placeholders::split_at_matches(runs, &ITEM, ids, unescaped, placeholders::plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::conformance;
    use crate::model::Edition;

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&Resx, "resx") > 10);
    }

    #[test]
    fn strings_are_blocks_and_the_rest_is_skeleton() {
        let text = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<root>\r\n  <resheader name=\"version\"><value>2.0</value></resheader>\r\n  <data name=\"Hello\" xml:space=\"preserve\">\r\n    <value>Hello {0}, you have {1,5:N0} items &amp; more</value>\r\n    <comment>Greeting on the home page.</comment>\r\n  </data>\r\n  <data name=\"Icon\" type=\"System.Drawing.Icon, System.Drawing\" mimetype=\"application/x-microsoft.net.object.bytearray.base64\"><value>AAAB</value></data>\r\n  <data name=\"&gt;&gt;button1.Name\"><value>button1</value></data>\r\n  <data name=\"$this.Text\"><value>Main window</value></data>\r\n  <data name=\"Empty\"><value /></data>\r\n  <data name=\"Braces\"><value>Use {{0}} literally</value></data>\r\n</root>";
        let parsed = Resx.read(text.as_bytes()).unwrap();
        let blocks: Vec<(String, String)> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.clone(), b.source.plain_text()))
            .collect();
        assert_eq!(
            blocks,
            [
                ("Hello".into(), "Hello , you have  items & more".into()),
                ("$this.Text".into(), "Main window".into()),
                ("Braces".into(), "Use {{0}} literally".into()),
            ]
        );
        assert_eq!(
            parsed.document.blocks[0].notes,
            ["Greeting on the home page."]
        );
        assert_eq!(Resx.write(&parsed).unwrap(), text.as_bytes());
        let mut edited = parsed.clone();
        edited.document.blocks[1].source = Edition::new(vec![Run::text("Tom & <Jerry>")]);
        let out = String::from_utf8(Resx.write(&edited).unwrap()).unwrap();
        assert!(
            out.contains("<value>Tom &amp; &lt;Jerry&gt;</value>"),
            "{out}"
        );
    }

    #[test]
    fn hostile_input_is_bounded() {
        let many = format!(
            "<root>{}</root>",
            "<data name=\"a\"><value>{0}</value></data>".repeat(20_000)
        );
        let parsed = Resx.read(many.as_bytes()).unwrap();
        assert_eq!(parsed.document.blocks.len(), 20_000);
        assert_eq!(Resx.write(&parsed).unwrap(), many.as_bytes());
        let dense = format!(
            "<root><data name=\"a\"><value>{}</value></data></root>",
            "{0}".repeat(20_000)
        );
        assert!(Resx.read(dense.as_bytes()).is_err(), "past the code limit");
        assert!(
            Resx.read(b"<root><data name=\"a\"><value>x</data></root>")
                .is_err()
        );
    }
}
