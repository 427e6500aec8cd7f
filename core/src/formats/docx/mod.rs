//! Word documents (.docx): the paragraphs of `word/document.xml` inside the zip package,
//! read as blocks whose runs keep Word's run markup as inline codes.
//!
//! # What is read
//! Only `word/document.xml` (the main story: body paragraphs, tables, text boxes). Headers,
//! footers, footnotes, endnotes and comments live in other parts and are not read; they are
//! copied unchanged. The skeleton's text is `document.xml` decoded as UTF-8 (a UTF-16 part
//! or a declared non-UTF-8 encoding is refused); [`Parsed::container`] keeps the zip.
//! `word/styles.xml`, when present, tells which paragraph styles are headings and lists.
//!
//! # Limits
//! The parts read (`document.xml`, then `styles.xml`) count against the 100 MB a file may hold
//! ([`super::MAX_INPUT_BYTES`]) as they inflate, whatever sizes the zip declares: a package
//! whose parts inflate past it is refused, naming the part, as soon as the limit is passed.
//! Elements nest at most 256 deep ([`super::MAX_DEPTH`]) and tables inside tables at most 64
//! deep; a deeper document is refused at the start tag that goes past the limit, with its line
//! and column in `document.xml`. Block keys may add up to four times the part's size plus 16 MB
//! ([`super::KeyBudget`]). Paragraphs, runs and cells without text are counted for the keys but
//! not kept, so markup without text costs no memory beyond the open elements.
//!
//! # Blocks and keys
//! Every `<w:p>` whose `<w:t>` text is not blank is a block. Keys are structural positions,
//! counted over every element of their kind (empty paragraphs included), never text:
//! `body/p#12` (the 12th paragraph of the body), `body/tbl#1/r#2/c#3/p#1` (a paragraph of a
//! table cell; nested tables continue the path), `body/p#4/txbx#1/p#2` (a paragraph of a
//! text box anchored in paragraph 4). Content controls (`w:sdt`) and other wrappers are
//! transparent. Text inside `mc:Fallback` (the legacy copy of a text box) is not read.
//! When a text box's text sits between two pieces of its anchoring paragraph's own text,
//! the paragraph is read as several blocks, `…/p#4`, `…/p#4/part#2`, so no two holes overlap.
//!
//! Roles: a paragraph whose style is a heading (style name `heading N`, style id `HeadingN`,
//! an outline level) is a Heading of level N, and `Title` a Heading of level 0; one with
//! numbering (`<w:numPr>` with a non-zero `numId`, or a list style such as `List Bullet 2`)
//! is a ListItem of level `ilvl + 1` (or the style's number); a paragraph in a `<w:tc>` is a
//! TableCell; anything else a Paragraph.
//!
//! # Runs and codes
//! The text is the content of the paragraph's `<w:t>` elements, entities decoded (a piece
//! without entities is a verbatim slice, `Run::text_at`). Everything between two
//! consecutive pieces, e.g. `</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>`, is one code whose
//! data is those exact bytes, so a code is always "close the text, …, reopen a text":
//! - when the visible formatting changes (bold, italic, underline, strike, superscript,
//!   subscript, or a `<w:hyperlink>`), the code is an Open code (formatting added) or a
//!   Close code (formatting removed) of class `bold`, `italic`, `underline`, `strike`,
//!   `superscript`, `subscript`, `hyperlink` (joined with `+` when several change at once:
//!   `bold+italic`), paired by id; a boundary that removes one formatting and adds another
//!   is split after its leading end tags into a Close and an Open, and a hyperlink opened
//!   or closed together with run formatting is split at its `<w:hyperlink …>` or
//!   `</w:hyperlink>` tag, so the link and the formatting inside it are two nested pairs;
//! - otherwise it is a Standalone code named by what it holds: `field` (`fldChar`,
//!   `instrText`, `fldSimple`), `footnote`, `image`, `comment`, `bookmark`, `revision`,
//!   `break`, `tab`, `symbol`, `hyphen`, `format` (other run properties changed), `proof`
//!   (a proofing mark) or `run` (a bare run split);
//! - a formatting change whose close does not match an open (crossing or partial changes)
//!   is a Standalone code of that class.
//!
//! Fields, footnote references, images, comments, bookmarks and revisions are not
//! deletable; formatting, tabs and breaks are. When the paragraph's first piece is
//! formatted, the hole starts at its `<w:r>` (or `<w:hyperlink>`) so the opening markup is
//! an Open code; likewise a formatted last piece closes with a Close code through its
//! `</w:r>` (or `</w:hyperlink>`). Otherwise the hole starts at the first `<w:t …>` start tag
//! (kept from the file, not a code) and ends where the last piece's text ends.
//!
//! # Writing
//! With no edit, the container is returned unchanged. Otherwise `document.xml` is filled
//! (untouched holes keep their bytes) and the zip is rebuilt: every other entry is copied
//! raw (same compressed bytes and metadata), in the same order, with the archive comment.
//! An edited hole is written as its codes' data and its text escaped (`&`, `<`, `>`); a tab
//! becomes `<w:tab/>` and a line break `<w:br/>` (each ends the `<w:t>` and opens a new one,
//! so they read back as codes), `xml:space="preserve"` is added to a `<w:t>` whose text
//! needs its spaces kept, and text placed where no `<w:t>` is open is wrapped in a plain
//! `<w:r>`. When the codes that closed the last run were deleted (a whole link removed),
//! the writer closes the open `<w:t>` and `<w:r>` itself. It refuses an edit whose codes no
//! longer balance the markup they replaced (an open code kept without its close, codes
//! reordered) and characters XML 1.0 cannot hold.

mod blocks;
mod package;
mod reader;
mod runs;
mod styles;
mod writer;

use std::ops::Range;

use super::xml::{self, Token};
use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, WriteError};
use package::{read_limited, rebuild};
use writer::render;

pub const INFO: FormatInfo = FormatInfo {
    id: "docx",
    name: "Word document",
    extensions: &["docx"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// The part that holds the main story.
const DOCUMENT: &str = "word/document.xml";
/// The part that names paragraph styles.
const STYLES: &str = "word/styles.xml";
/// The WordprocessingML namespaces (transitional and strict).
const W_NAMESPACES: [&str; 2] = [
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
];

pub struct Docx;

impl Format for Docx {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        read_limited(bytes, super::MAX_INPUT_BYTES, None)
    }

    fn read_each(&self, bytes: Vec<u8>, each: super::Each<'_>) -> Result<Parsed, ReadError> {
        read_limited(&bytes, super::MAX_INPUT_BYTES, Some(each))
    }

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let Some(container) = &parsed.container else {
            return Err(WriteError::Container {
                message: "a Word document is written back into the zip it was read from, and \
                          this document has none"
                    .into(),
            });
        };
        if !parsed.skeleton.is_edited(&parsed.document) {
            return Ok(container.clone());
        }
        let original = parsed.skeleton.text();
        let w = w_prefix(original);
        let xml = parsed.skeleton.fill_text(
            parsed.skeleton.original.as_bytes(),
            &parsed.document,
            |hole, runs| render(original, &w, hole, runs, &parsed.document),
        )?;
        rebuild(container, &xml)
    }
}

// ---------------------------------------------------------------------------------------
// XML scanning: thin glue over the shared scanner (`super::xml`)

/// The tokens of an XML text, in order, from [`xml::next_token`]; an error ends them.
struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Result<Token, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() {
            return None;
        }
        match xml::next_token(self.text, self.at, self.text.len()) {
            Ok((token, next)) => {
                self.at = next.max(self.at + 1);
                Some(Ok(token))
            }
            Err(e) => {
                self.at = self.text.len();
                Some(Err(e))
            }
        }
    }
}

/// A start tag (or empty-element tag) of `document.xml`: the whole tag and its name.
struct StartTag {
    span: Range<usize>,
    name: Range<usize>,
}

impl StartTag {
    /// Refuses a name run into what follows it (`<w:t?xml:space="preserve">`): the shared
    /// scanner ends a name at the first byte a name cannot hold and leaves the attributes
    /// for [`xml::attributes`], which `document.xml` reads only where it needs them.
    fn check_name_end(&self, text: &str) -> Result<(), ReadError> {
        match text.as_bytes().get(self.name.end) {
            Some(b) if b.is_ascii_whitespace() || matches!(b, b'/' | b'>') => Ok(()),
            _ => Err(ReadError::syntax_at(
                text,
                self.name.end,
                "expected whitespace before an attribute",
            )),
        }
    }
}

/// The value, as written (not unescaped), of the first attribute of the start tag `span`
/// (whose name ends at `name_end`) that `pick` takes by its qualified name. A malformed
/// attribute ends the search.
fn attr_value<'t>(
    text: &'t str,
    name_end: usize,
    span: &Range<usize>,
    pick: impl Fn(&str) -> bool,
) -> Option<&'t str> {
    xml::attributes(text, name_end, span)
        .map_while(Result::ok)
        .find(|a| text.get(a.name.clone()).is_some_and(&pick))
        .and_then(|a| text.get(a.value))
}

/// The prefix the root element binds to WordprocessingML (`w` in every Word file; empty
/// when it is the default namespace).
fn w_prefix(text: &str) -> String {
    for token in Tokens::new(text) {
        let Ok(token) = token else {
            break;
        };
        let Token::Start { span, name, .. } = token else {
            continue;
        };
        for attr in xml::attributes(text, name.end, &span).map_while(Result::ok) {
            let name = text.get(attr.name).unwrap_or_default();
            let value = text.get(attr.value).unwrap_or_default();
            if W_NAMESPACES.contains(&value) {
                if name == "xmlns" {
                    return String::new();
                }
                if let Some(prefix) = name.strip_prefix("xmlns:") {
                    return prefix.to_owned();
                }
            }
        }
        break;
    }
    "w".into()
}

/// The local name of a WordprocessingML element name (`w:p` → `p`), `None` for another
/// namespace.
fn local<'a>(name: &'a str, w: &str) -> Option<&'a str> {
    if w.is_empty() {
        return (!name.contains(':')).then_some(name);
    }
    name.strip_prefix(w)?.strip_prefix(':')
}

#[cfg(test)]
mod tests;
