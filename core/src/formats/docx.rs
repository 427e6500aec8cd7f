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

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Cursor, Read, Write};
use std::ops::Range;

use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::output::Output;
use super::xml::{self, Token};
use super::{
    Capabilities, Format, FormatInfo, Hole, KeyBudget, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Code, CodeKind, Document, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "docx",
    name: "Word document",
    extensions: &["docx"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
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

/// A read error about the package rather than a position in a part.
fn package_error(message: impl Into<String>) -> ReadError {
    ReadError::Syntax {
        line: 1,
        column: 1,
        message: message.into(),
    }
}

fn read_limited(
    bytes: &[u8],
    limit: u64,
    each: Option<super::Each<'_>>,
) -> Result<Parsed, ReadError> {
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        package_error(format!(
            "not a Word document: the file is not a readable zip archive (truncated or \
             damaged?): {e}"
        ))
    })?;
    // One budget for every part read: what has inflated so far counts against the rest.
    let mut budget = Inflated { limit, used: 0 };
    let xml = budget.part(&mut archive, DOCUMENT)?.ok_or_else(|| {
        package_error(format!(
            "not a Word document: the zip archive has no `{DOCUMENT}`"
        ))
    })?;
    let styles = budget
        .part(&mut archive, STYLES)?
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map(|text| read_styles(&text))
        .unwrap_or_default();
    let text = decode_part(xml)?;
    let mut parsed = read_document(text, &styles, each)?;
    parsed.container = Some(bytes.to_vec());
    Ok(parsed)
}

/// The inflated bytes the parts read so far take, against one limit for the package.
struct Inflated {
    limit: u64,
    used: u64,
}

impl Inflated {
    /// The decompressed bytes of the entry `name`, `None` when the archive has none. The
    /// declared size is never trusted: the part is read through the bytes left of the limit
    /// (plus one, to tell a part that fits from one that goes past), so an inflation bomb
    /// stops as soon as it passes the limit.
    fn part(
        &mut self,
        archive: &mut ZipArchive<Cursor<&[u8]>>,
        name: &str,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let file = match archive.by_name(name) {
            Ok(file) => file,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(package_error(format!("cannot open `{name}`: {e}"))),
        };
        let left = self.limit.saturating_sub(self.used);
        let too_big = || ReadError::TooLarge {
            at: name.to_owned(),
            message: format!(
                "the Word document inflates past {}: kapi reads at most {} of a file, \
                 counting a zip's parts as they inflate",
                megabytes(self.limit),
                megabytes(self.limit)
            ),
        };
        if file.size() > left {
            return Err(too_big());
        }
        // The declared size is a hint for the buffer only (it is at most `left`).
        let mut out = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0));
        file.take(left + 1)
            .read_to_end(&mut out)
            .map_err(|e| package_error(format!("cannot decompress `{name}`: {e}")))?;
        if out.len() as u64 > left {
            return Err(too_big());
        }
        self.used += out.len() as u64;
        Ok(Some(out))
    }
}

/// `n` bytes for a message: `100 MB`, or `1000 bytes` below a megabyte.
fn megabytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MB", n / (1024 * 1024))
    } else {
        format!("{n} bytes")
    }
}

/// `document.xml` as UTF-8 text (the bytes themselves, not a copy); other encodings are
/// refused.
fn decode_part(bytes: Vec<u8>) -> Result<String, ReadError> {
    let utf16 = bytes.starts_with(&[0xFF, 0xFE])
        || bytes.starts_with(&[0xFE, 0xFF])
        || bytes.first() == Some(&0)
        || bytes.get(1) == Some(&0);
    if utf16 {
        return Err(package_error(format!(
            "`{DOCUMENT}` is UTF-16; kapi reads Word documents whose XML is UTF-8 (save the \
             document again from Word)"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
        ReadError::syntax_at(
            before,
            at,
            format!("`{DOCUMENT}` is not valid UTF-8 (byte {at})"),
        )
    })?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Some(label) = xml::declared_encoding(body.as_bytes())
        && !matches!(label.to_ascii_lowercase().as_str(), "utf-8" | "utf8")
    {
        return Err(package_error(format!(
            "`{DOCUMENT}` declares the encoding {label:?}; kapi reads Word documents whose XML \
             is UTF-8"
        )));
    }
    Ok(text)
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

// ---------------------------------------------------------------------------------------
// Styles

/// What a paragraph style says about its paragraphs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct StyleInfo {
    heading: Option<u32>,
    list: Option<u32>,
}

/// Paragraph styles by id, from `styles.xml`; a malformed part gives what was read so far.
fn read_styles(text: &str) -> HashMap<String, StyleInfo> {
    let w = w_prefix(text);
    let style_id = format!("{w}:styleId");
    let w_val = format!("{w}:val");
    let mut styles = HashMap::new();
    let mut current: Option<(String, StyleInfo, bool)> = None;
    for token in Tokens::new(text) {
        let Ok(token) = token else {
            break;
        };
        let (span, name, kind) = match token {
            Token::Start { span, name, empty } => (span, name, Some(empty)),
            Token::End { span, name } => (span, name, None),
            _ => continue,
        };
        let Some(local_name) = local(text.get(name.clone()).unwrap_or_default(), &w) else {
            continue;
        };
        let attr = |want: &str| attr_value(text, name.end, &span, |n| n == want);
        match (kind, local_name) {
            (Some(false), "style") => {
                current = attr(&style_id)
                    .or_else(|| attr("styleId"))
                    .map(|id| (id.to_owned(), StyleInfo::default(), false));
            }
            (None, "style") => {
                if let Some((id, info, _)) = current.take() {
                    styles.insert(id, info);
                }
            }
            (Some(_), _) => {
                let Some((_, info, numbered)) = current.as_mut() else {
                    continue;
                };
                let val = attr(&w_val).or_else(|| attr("val"));
                match local_name {
                    "name" => {
                        let lower = val.unwrap_or_default().to_ascii_lowercase();
                        if lower == "title" {
                            info.heading = Some(0);
                        } else if let Some(n) = lower.strip_prefix("heading ") {
                            info.heading = n.trim().parse().ok().or(info.heading);
                        } else if let Some(level) = list_style_level(&lower) {
                            info.list = Some(level);
                        }
                    }
                    "outlineLvl" => {
                        if let Some(level) = val.and_then(|v| v.parse::<u32>().ok())
                            && level < 9
                            && info.heading.is_none()
                        {
                            info.heading = Some(level + 1);
                        }
                    }
                    "numPr" => {
                        *numbered = true;
                        info.list = info.list.or(Some(1));
                    }
                    "ilvl" if *numbered => {
                        if let Some(level) = val.and_then(|v| v.parse::<u32>().ok()) {
                            info.list = Some(level.saturating_add(1));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    styles
}

/// The level a list style's name or id gives: `list bullet 2` / `ListNumber3` → 2 / 3,
/// `List Bullet` → 1.
fn list_style_level(style: &str) -> Option<u32> {
    let lower: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let rest = lower
        .strip_prefix("listbullet")
        .or_else(|| lower.strip_prefix("listnumber"))?;
    if rest.is_empty() {
        Some(1)
    } else {
        rest.parse().ok()
    }
}

/// The heading level a style id gives without `styles.xml`: `Heading2` → 2, `Title` → 0.
fn heading_style_level(style: &str) -> Option<u32> {
    let lower = style.to_ascii_lowercase();
    if lower == "title" {
        return Some(0);
    }
    lower
        .strip_prefix("heading")
        .and_then(|n| n.trim().parse().ok())
}

// ---------------------------------------------------------------------------------------
// Reading document.xml

const BOLD: u8 = 1;
const ITALIC: u8 = 2;
const UNDERLINE: u8 = 4;
const STRIKE: u8 = 8;
const SUPERSCRIPT: u8 = 16;
const SUBSCRIPT: u8 = 32;
const LINK: u8 = 64;

/// Class names of the formatting flags, in the order they are joined.
const FLAG_NAMES: [(u8, &str); 7] = [
    (LINK, "hyperlink"),
    (BOLD, "bold"),
    (ITALIC, "italic"),
    (UNDERLINE, "underline"),
    (STRIKE, "strike"),
    (SUPERSCRIPT, "superscript"),
    (SUBSCRIPT, "subscript"),
];

fn flag_class(flags: u8) -> String {
    let mut class = String::new();
    for (flag, name) in FLAG_NAMES {
        if flags & flag != 0 {
            if !class.is_empty() {
                class.push('+');
            }
            class.push_str(name);
        }
    }
    class
}

/// One step of a key: `body`, `tbl#2`, `r#1`, `c#3`, `p#4`, `txbx#1` (`txbx` for a text box
/// outside any paragraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    Body,
    Table,
    Row,
    Cell,
    Para,
    TextBox,
}

/// No node, element or paragraph.
const NONE: u32 = u32::MAX;

/// A node of the key tree. A key is written out only for a paragraph that becomes a block,
/// by walking its nodes up, so an empty paragraph or cell costs a few bytes and not a copy
/// of its path (a path grows with the nesting).
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    seg: Seg,
    n: u32,
}

#[derive(Debug)]
struct Container {
    node: u32,
    paragraphs: u32,
    tables: u32,
    cell: bool,
}

#[derive(Debug)]
struct Para {
    node: u32,
    span: Range<usize>,
    style: Option<String>,
    ilvl: Option<u32>,
    /// `Some(true)` for a non-zero `numId`, `Some(false)` for `numId` 0 (numbering off).
    numbered: Option<bool>,
    outline: Option<u32>,
    cell: bool,
    text_boxes: u32,
    segments: u32,
}

/// A `<w:r>` or `<w:hyperlink>`: where it starts and ends, and a run's formatting. Offsets
/// are `u32`: a part is at most [`super::MAX_INPUT_BYTES`].
#[derive(Debug, Clone)]
struct Element {
    span: Range<u32>,
    flags: u8,
    /// The `<w:rPr>` bytes of a run.
    props: Range<u32>,
}

/// The content of one `<w:t>`.
#[derive(Debug)]
struct Piece {
    para: u32,
    /// Where the `<w:t …>` start tag begins.
    tag: u32,
    text: Range<u32>,
    /// The innermost run and hyperlink, [`NONE`] when there is none.
    run: u32,
    link: u32,
}

impl Piece {
    fn text(&self) -> Range<usize> {
        wide(&self.text)
    }
    fn run(&self) -> Option<usize> {
        (self.run != NONE).then_some(self.run as usize)
    }
    fn link(&self) -> Option<usize> {
        (self.link != NONE).then_some(self.link as usize)
    }
}

fn wide(range: &Range<u32>) -> Range<usize> {
    range.start as usize..range.end as usize
}

/// An offset into a part, which is at most [`super::MAX_INPUT_BYTES`] long.
fn narrow(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(NONE - 1)
}

/// Tables inside tables kapi reads in a Word document; each adds three elements
/// (`w:tbl`, `w:tr`, `w:tc`), so this stays below [`super::MAX_DEPTH`] elements.
const MAX_TABLE_DEPTH: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Other,
    Container(usize),
    Table(usize),
    Row(usize),
    Para(usize),
    ParaProps(usize),
    NumProps(usize),
    Run(usize),
    RunProps(usize),
    Link(usize),
    /// `mc:Fallback`: read for well-formedness only.
    Skip,
}

/// An open element: its name, where its start tag begins, its frame, and how many pieces
/// had been read when it opened (to tell one that holds none).
struct Open {
    name: Range<usize>,
    start: usize,
    frame: Frame,
    pieces: usize,
}

struct DocReader<'a> {
    text: &'a str,
    w: String,
    nodes: Vec<Node>,
    containers: Vec<Container>,
    /// Tables and rows: node and count of rows or cells.
    tables: Vec<(u32, u32)>,
    rows: Vec<(u32, u32)>,
    paras: Vec<Para>,
    /// Paragraphs outside any container, counted for their keys.
    loose_paras: u32,
    elements: Vec<Element>,
    pieces: Vec<Piece>,
    stack: Vec<Open>,
    /// Open `w:tbl` elements.
    open_tables: usize,
    skip: usize,
}

fn is_on(val: Option<&str>) -> bool {
    !matches!(val, Some("0" | "false" | "off" | "none"))
}

impl<'a> DocReader<'a> {
    fn new(text: &'a str, w: String) -> Self {
        Self {
            text,
            w,
            nodes: Vec::new(),
            containers: Vec::new(),
            tables: Vec::new(),
            rows: Vec::new(),
            paras: Vec::new(),
            loose_paras: 0,
            elements: Vec::new(),
            pieces: Vec::new(),
            stack: Vec::new(),
            open_tables: 0,
            skip: 0,
        }
    }

    fn innermost(&self, pick: impl Fn(Frame) -> Option<usize>) -> Option<usize> {
        self.stack.iter().rev().find_map(|open| pick(open.frame))
    }

    /// The innermost frame chosen by `pick` inside the innermost paragraph.
    fn in_paragraph(&self, pick: impl Fn(Frame) -> Option<usize>) -> Option<usize> {
        for open in self.stack.iter().rev() {
            if let Frame::Para(_) = open.frame {
                return None;
            }
            if let Some(found) = pick(open.frame) {
                return Some(found);
            }
        }
        None
    }

    fn node(&mut self, parent: u32, seg: Seg, n: u32) -> u32 {
        self.nodes.push(Node { parent, seg, n });
        narrow(self.nodes.len() - 1)
    }

    /// The key of `node`: its segments from the root, joined with `/`.
    fn key(&self, node: u32) -> String {
        let mut chain = Vec::new();
        let mut at = node;
        while let Some(n) = self.nodes.get(at as usize) {
            chain.push(*n);
            at = n.parent;
        }
        let mut key = String::new();
        for n in chain.iter().rev() {
            if !key.is_empty() {
                key.push('/');
            }
            let name = match n.seg {
                Seg::Body => "body",
                Seg::Table => "tbl",
                Seg::Row => "r",
                Seg::Cell => "c",
                Seg::Para => "p",
                Seg::TextBox => "txbx",
            };
            key.push_str(name);
            if n.seg != Seg::Body && n.n > 0 {
                key.push('#');
                key.push_str(&n.n.to_string());
            }
        }
        key
    }

    /// The `w:val` attribute of a property element, as written.
    fn val(&self, tag: &StartTag) -> Option<&'a str> {
        attr_value(self.text, tag.name.end, &tag.span, |n| {
            local(n, &self.w) == Some("val") || n == "val"
        })
    }

    /// The frame a start tag opens, and its side effects on counters and properties.
    fn open(&mut self, name: &str, tag: &StartTag) -> Frame {
        if self.skip > 0 {
            return Frame::Other;
        }
        if name.ends_with(":Fallback") {
            return Frame::Skip;
        }
        let Some(local) = local(name, &self.w) else {
            return Frame::Other;
        };
        let parent = self.stack.last().map_or(Frame::Other, |open| open.frame);
        let span = narrow(tag.span.start)..narrow(tag.span.end);
        match local {
            "body" => {
                let node = self.node(NONE, Seg::Body, 0);
                self.container(node, false)
            }
            "tbl" => {
                let Some(c) = self.innermost(|f| match f {
                    Frame::Container(c) => Some(c),
                    _ => None,
                }) else {
                    return Frame::Other;
                };
                self.containers[c].tables += 1;
                let (parent, n) = (self.containers[c].node, self.containers[c].tables);
                let node = self.node(parent, Seg::Table, n);
                self.tables.push((node, 0));
                Frame::Table(self.tables.len() - 1)
            }
            "tr" => match parent {
                Frame::Table(t) => self.row(t),
                _ => self.row_in_wrapper(),
            },
            "tc" => {
                let Some(r) = self.innermost(|f| match f {
                    Frame::Row(r) => Some(r),
                    _ => None,
                }) else {
                    return Frame::Other;
                };
                self.rows[r].1 += 1;
                let (parent, n) = self.rows[r];
                let node = self.node(parent, Seg::Cell, n);
                self.container(node, true)
            }
            "txbxContent" => {
                let node = match self.innermost(|f| match f {
                    Frame::Para(p) => Some(p),
                    _ => None,
                }) {
                    Some(p) => {
                        self.paras[p].text_boxes += 1;
                        let (parent, n) = (self.paras[p].node, self.paras[p].text_boxes);
                        self.node(parent, Seg::TextBox, n)
                    }
                    None => self.node(NONE, Seg::TextBox, 0),
                };
                self.container(node, false)
            }
            "p" => {
                let (node, cell) = match self.innermost(|f| match f {
                    Frame::Container(c) => Some(c),
                    _ => None,
                }) {
                    Some(c) => {
                        self.containers[c].paragraphs += 1;
                        let container = &self.containers[c];
                        let (parent, n, cell) =
                            (container.node, container.paragraphs, container.cell);
                        (self.node(parent, Seg::Para, n), cell)
                    }
                    None => {
                        self.loose_paras += 1;
                        (self.node(NONE, Seg::Para, self.loose_paras), false)
                    }
                };
                self.paras.push(Para {
                    node,
                    span: tag.span.start..tag.span.end,
                    style: None,
                    ilvl: None,
                    numbered: None,
                    outline: None,
                    cell,
                    text_boxes: 0,
                    segments: 0,
                });
                Frame::Para(self.paras.len() - 1)
            }
            "pPr" => match parent {
                Frame::Para(p) => Frame::ParaProps(p),
                _ => Frame::Other,
            },
            "numPr" => match parent {
                Frame::ParaProps(p) => Frame::NumProps(p),
                _ => Frame::Other,
            },
            "r" => {
                self.elements.push(Element {
                    span,
                    flags: 0,
                    props: 0..0,
                });
                Frame::Run(self.elements.len() - 1)
            }
            "rPr" => match parent {
                Frame::Run(r) => {
                    self.elements[r].props.start = span.start;
                    Frame::RunProps(r)
                }
                _ => Frame::Other,
            },
            "hyperlink" => {
                self.elements.push(Element {
                    span,
                    flags: LINK,
                    props: 0..0,
                });
                Frame::Link(self.elements.len() - 1)
            }
            _ => {
                self.property(local, tag, parent);
                Frame::Other
            }
        }
    }

    /// A `w:tr` of table `t`.
    fn row(&mut self, t: usize) -> Frame {
        self.tables[t].1 += 1;
        let (parent, n) = self.tables[t];
        let node = self.node(parent, Seg::Row, n);
        self.rows.push((node, 0));
        Frame::Row(self.rows.len() - 1)
    }

    /// A `w:tr` under a wrapper (`w:sdt`, `w:customXml`) inside a table.
    fn row_in_wrapper(&mut self) -> Frame {
        let Some(t) = self.innermost(|f| match f {
            Frame::Table(t) => Some(t),
            _ => None,
        }) else {
            return Frame::Other;
        };
        self.row(t)
    }

    fn container(&mut self, node: u32, cell: bool) -> Frame {
        self.containers.push(Container {
            node,
            paragraphs: 0,
            tables: 0,
            cell,
        });
        Frame::Container(self.containers.len() - 1)
    }

    /// A property element (start or empty) inside a paragraph's or run's properties.
    fn property(&mut self, local: &str, tag: &StartTag, parent: Frame) {
        if !matches!(
            parent,
            Frame::ParaProps(_) | Frame::NumProps(_) | Frame::RunProps(_)
        ) {
            return;
        }
        let val = self.val(tag);
        match parent {
            Frame::ParaProps(p) => match local {
                "pStyle" => self.paras[p].style = val.map(str::to_owned),
                "outlineLvl" => {
                    self.paras[p].outline = val.and_then(|v| v.parse().ok()).filter(|&l| l < 9);
                }
                _ => {}
            },
            Frame::NumProps(p) => match local {
                "ilvl" => self.paras[p].ilvl = val.and_then(|v| v.parse().ok()),
                "numId" => self.paras[p].numbered = Some(val.is_some_and(|v| v != "0")),
                _ => {}
            },
            Frame::RunProps(r) => {
                let flag = match local {
                    "b" => BOLD,
                    "i" => ITALIC,
                    "u" => UNDERLINE,
                    "strike" | "dstrike" => STRIKE,
                    "vertAlign" => match val {
                        Some("superscript") => SUPERSCRIPT,
                        Some("subscript") => SUBSCRIPT,
                        _ => 0,
                    },
                    "rStyle" => match val {
                        Some("Strong") => BOLD,
                        Some("Emphasis") => ITALIC,
                        _ => 0,
                    },
                    _ => 0,
                };
                let element = &mut self.elements[r];
                if local == "vertAlign" || local == "rStyle" || is_on(val) {
                    element.flags |= flag;
                } else {
                    element.flags &= !flag;
                }
            }
            _ => {}
        }
    }

    /// Drops `node` when it is the last one: nothing below it was kept.
    fn drop_node(&mut self, node: u32) {
        if node as usize + 1 == self.nodes.len() {
            self.nodes.pop();
        }
    }

    /// Ends `frame` at `end`. A paragraph, run or link that holds no text, and a table, row
    /// or cell left with nothing kept below it, is dropped when it is the last of its kind:
    /// only the counters its parent keeps remember it, so markup without text costs no
    /// memory beyond the open elements.
    fn close(&mut self, frame: Frame, end: usize, pieces_at_open: usize) {
        let empty = self.pieces.len() == pieces_at_open;
        match frame {
            Frame::Para(p) => {
                self.paras[p].span.end = end;
                if empty && p + 1 == self.paras.len() {
                    let node = self.paras[p].node;
                    self.paras.pop();
                    self.drop_node(node);
                }
            }
            Frame::Run(r) | Frame::Link(r) => {
                self.elements[r].span.end = narrow(end);
                if empty && r + 1 == self.elements.len() {
                    self.elements.pop();
                }
            }
            Frame::RunProps(r) => self.elements[r].props.end = narrow(end),
            Frame::Skip => self.skip = self.skip.saturating_sub(1),
            Frame::Container(c) => {
                let node = self.containers[c].node;
                if empty && c + 1 == self.containers.len() {
                    self.containers.pop();
                    self.drop_node(node);
                }
            }
            Frame::Table(t) => {
                self.open_tables = self.open_tables.saturating_sub(1);
                let node = self.tables[t].0;
                if empty && t + 1 == self.tables.len() && node as usize + 1 == self.nodes.len() {
                    self.tables.pop();
                    self.drop_node(node);
                }
            }
            Frame::Row(r) => {
                let node = self.rows[r].0;
                if empty && r + 1 == self.rows.len() && node as usize + 1 == self.nodes.len() {
                    self.rows.pop();
                    self.drop_node(node);
                }
            }
            _ => {}
        }
    }

    /// Refuses nesting past [`super::MAX_DEPTH`] elements or [`MAX_TABLE_DEPTH`] tables, at
    /// the start tag that goes past it.
    fn deeper(&self, frame: Frame, at: usize) -> Result<(), ReadError> {
        if self.stack.len() >= super::MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                at,
                &format!("`{DOCUMENT}` elements"),
                super::MAX_DEPTH,
            ));
        }
        if matches!(frame, Frame::Table(_)) && self.open_tables >= MAX_TABLE_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                at,
                "tables",
                MAX_TABLE_DEPTH,
            ));
        }
        Ok(())
    }

    fn scan(&mut self) -> Result<(), ReadError> {
        let text = self.text;
        let mut tokens = Tokens::new(text);
        while let Some(token) = tokens.next() {
            match token? {
                Token::Start { span, name, empty } => {
                    let tag = StartTag { span, name };
                    tag.check_name_end(text)?;
                    let name = text.get(tag.name.clone()).unwrap_or_default();
                    let pieces = self.pieces.len();
                    let frame = self.open(name, &tag);
                    if empty {
                        // `<w:p/>` counts like `<w:p></w:p>`: keys are positions.
                        if frame != Frame::Skip {
                            self.close(frame, tag.span.end, pieces);
                        }
                        continue;
                    }
                    if frame == Frame::Skip {
                        self.skip += 1;
                    }
                    if self.skip == 0 && local(name, &self.w) == Some("t") {
                        self.text_piece(&mut tokens, &tag)?;
                        continue;
                    }
                    self.deeper(frame, tag.span.start)?;
                    if matches!(frame, Frame::Table(_)) {
                        self.open_tables += 1;
                    }
                    self.stack.push(Open {
                        name: tag.name,
                        start: tag.span.start,
                        frame,
                        pieces,
                    });
                }
                Token::End { span, name } => {
                    let name = text.get(name).unwrap_or_default();
                    let Some(open) = self.stack.pop() else {
                        return Err(ReadError::syntax_at(
                            text,
                            span.start,
                            format!("`</{name}>` closes an element that was never opened"),
                        ));
                    };
                    let open_name = text.get(open.name).unwrap_or_default();
                    if open_name != name {
                        return Err(ReadError::syntax_at(
                            text,
                            span.start,
                            format!(
                                "expected `</{open_name}>` (opened at {}), found `</{name}>`",
                                position(text, open.start)
                            ),
                        ));
                    }
                    self.close(open.frame, span.end, open.pieces);
                }
                Token::Text(_)
                | Token::CData { .. }
                | Token::Comment(_)
                | Token::Pi(_)
                | Token::Doctype(_) => {}
            }
        }
        if let Some(open) = self.stack.last() {
            return Err(ReadError::syntax_at(
                text,
                text.len(),
                format!(
                    "`{DOCUMENT}` ends inside `<{}>` opened at {}",
                    text.get(open.name.clone()).unwrap_or_default(),
                    position(text, open.start)
                ),
            ));
        }
        Ok(())
    }

    /// Reads a `<w:t>`'s content and its end tag.
    fn text_piece(&mut self, tokens: &mut Tokens<'_>, tag: &StartTag) -> Result<(), ReadError> {
        let text = self.text;
        let start = tag.span.end;
        // The content is character data up to the next `<`, which must be the end tag.
        let (end, close) = match tokens.next().transpose()? {
            Some(Token::Text(span)) => (span.end, tokens.next().transpose()?),
            other => (start, other),
        };
        let name = text.get(tag.name.clone()).unwrap_or_default();
        match close {
            Some(Token::End { name: close, .. }) if text.get(close.clone()) == Some(name) => {}
            _ => {
                return Err(ReadError::syntax_at(
                    text,
                    end,
                    format!("expected `</{name}>`: a `<{name}>` holds text only"),
                ));
            }
        }
        let raw = text.get(start..end).unwrap_or_default();
        xml::check_references(text, raw, start)?;
        let Some(para) = self.innermost(|f| match f {
            Frame::Para(p) => Some(p),
            _ => None,
        }) else {
            return Ok(());
        };
        if raw.is_empty() {
            return Ok(());
        }
        let run = self.in_paragraph(|f| match f {
            Frame::Run(r) => Some(r),
            _ => None,
        });
        let link = self.in_paragraph(|f| match f {
            Frame::Link(l) => Some(l),
            _ => None,
        });
        self.pieces.push(Piece {
            para: narrow(para),
            tag: narrow(tag.span.start),
            text: narrow(start)..narrow(end),
            run: run.map_or(NONE, narrow),
            link: link.map_or(NONE, narrow),
        });
        Ok(())
    }
}

/// `line:column` of a byte offset, for messages.
fn position(text: &str, offset: usize) -> String {
    match ReadError::syntax_at(text, offset, "") {
        ReadError::Syntax { line, column, .. } => format!("{line}:{column}"),
        _ => offset.to_string(),
    }
}

/// The formatting state of a piece: run flags and the hyperlink it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct State {
    flags: u8,
    link: Option<usize>,
}

impl State {
    fn is_plain(self) -> bool {
        self.flags == 0 && self.link.is_none()
    }
}

/// What a transition from one state to the next removes and adds.
fn change(from: State, to: State) -> (u8, u8) {
    let mut removed = from.flags & !to.flags;
    let mut added = to.flags & !from.flags;
    if from.link.is_some() && from.link != to.link {
        removed |= LINK;
    }
    if to.link.is_some() && to.link != from.link {
        added |= LINK;
    }
    (removed, added)
}

/// Builds one block's runs: codes between pieces, paired by formatting.
struct RunBuilder<'a> {
    text: &'a str,
    w: &'a str,
    runs: Vec<Run>,
    next_id: u32,
    /// Open codes not yet closed: run index, flags.
    open: Vec<(usize, u8)>,
}

impl RunBuilder<'_> {
    fn id(&mut self) -> String {
        self.next_id += 1;
        self.next_id.to_string()
    }

    /// A code over `range`; a standalone code without a class is named by its content.
    fn code(
        &mut self,
        kind: CodeKind,
        class: Option<String>,
        range: Range<usize>,
        id: String,
        props_differ: bool,
    ) {
        let data = self.text.get(range.clone()).unwrap_or_default();
        let (named, deletable) = inspect(data, self.w, kind, props_differ);
        let class = class.unwrap_or_else(|| named.to_owned());
        self.runs.push(Run::Code(Box::new(
            Code::new(id, kind, class, data, deletable).at(range.start),
        )));
    }

    /// The codes for the bytes `range` between two states.
    fn transition(&mut self, range: Range<usize>, from: State, to: State, props_differ: bool) {
        let (removed, added) = change(from, to);
        match (removed, added) {
            (0, 0) => {
                let id = self.id();
                self.code(CodeKind::Standalone, None, range, id, props_differ);
            }
            (0, added) => self.open_side(added, range),
            (removed, 0) => self.close_side(removed, range),
            (removed, added) => {
                let data = self.text.get(range.clone()).unwrap_or_default();
                let split = leading_end_tags(data);
                if split == 0 || split >= data.len() {
                    let id = self.id();
                    self.orphan(removed);
                    self.code(CodeKind::Standalone, Some("format".into()), range, id, true);
                } else {
                    self.close_side(removed, range.start..range.start + split);
                    self.open_side(added, range.start + split..range.end);
                }
            }
        }
    }

    /// Opens `added`: a hyperlink and run formatting opened together are two codes, the
    /// `<w:hyperlink …>` tag and the run's markup.
    fn open_side(&mut self, added: u8, range: Range<usize>) {
        if added & LINK != 0 && added != LINK {
            let data = self.text.get(range.clone()).unwrap_or_default();
            let open = format!("<{}", qualified(self.w, "hyperlink"));
            let tag_end = data.find(&open).and_then(|at| {
                let rest = data.get(at + open.len()..)?;
                if !rest.starts_with([' ', '\t', '\r', '\n', '>']) {
                    return None;
                }
                Some(at + open.len() + rest.find('>')? + 1)
            });
            if let Some(end) = tag_end.filter(|&end| end < data.len()) {
                self.open_code(LINK, range.start..range.start + end);
                self.open_code(added & !LINK, range.start + end..range.end);
                return;
            }
        }
        self.open_code(added, range);
    }

    /// Closes `removed`: run formatting and a hyperlink closed together are two codes,
    /// the run's end and `</w:hyperlink>` with what follows it.
    fn close_side(&mut self, removed: u8, range: Range<usize>) {
        if removed & LINK != 0 && removed != LINK {
            let data = self.text.get(range.clone()).unwrap_or_default();
            let close = format!("</{}>", qualified(self.w, "hyperlink"));
            if let Some(at) = data.find(&close).filter(|&at| at > 0) {
                self.close_code(removed & !LINK, range.start..range.start + at);
                self.close_code(LINK, range.start + at..range.end);
                return;
            }
        }
        self.close_code(removed, range);
    }

    fn open_code(&mut self, flags: u8, range: Range<usize>) {
        let id = self.id();
        self.code(CodeKind::Open, Some(flag_class(flags)), range, id, false);
        self.open.push((self.runs.len() - 1, flags));
    }

    fn close_code(&mut self, flags: u8, range: Range<usize>) {
        match self.open.iter().rposition(|&(_, f)| f == flags) {
            Some(at) => {
                let (index, _) = self.open.remove(at);
                let id = match self.runs.get(index) {
                    Some(Run::Code(code)) => code.id.clone(),
                    _ => self.id(),
                };
                self.code(CodeKind::Close, Some(flag_class(flags)), range, id, false);
            }
            None => {
                self.orphan(flags);
                let id = self.id();
                self.code(
                    CodeKind::Standalone,
                    Some(flag_class(flags)),
                    range,
                    id,
                    false,
                );
            }
        }
    }

    /// Open codes whose formatting ends without a matching close become standalone.
    fn orphan(&mut self, flags: u8) {
        let runs = &mut self.runs;
        self.open.retain(|&(index, f)| {
            if f & flags == 0 {
                return true;
            }
            if let Some(Run::Code(code)) = runs.get_mut(index) {
                code.kind = CodeKind::Standalone;
            }
            false
        });
    }

    fn finish(mut self) -> Vec<Run> {
        self.orphan(u8::MAX);
        self.runs
    }
}

/// How many bytes of `data` are end tags (with blanks between them) at its start.
fn leading_end_tags(data: &str) -> usize {
    let mut split = 0;
    loop {
        let blanks = data
            .get(split..)
            .unwrap_or_default()
            .bytes()
            .take_while(u8::is_ascii_whitespace)
            .count();
        match xml::next_token(data, split + blanks, data.len()) {
            Ok((Token::End { .. }, next)) => split = next,
            _ => return split,
        }
    }
}

/// The local names of the elements a code's data opens, closes or holds.
fn code_elements<'a>(data: &'a str, w: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    Tokens::new(data)
        .map_while(Result::ok)
        .filter_map(move |token| {
            let (Token::Start { name, .. } | Token::End { name, .. }) = token else {
                return None;
            };
            let name = data.get(name)?;
            Some(local(name, w).unwrap_or(name))
        })
}

/// Classes of standalone codes, most telling first, and whether each may be deleted.
const CLASSES: &[(&[&str], &str)] = &[
    (&["fldChar", "instrText", "fldSimple", "fldData"], "field"),
    (&["footnoteReference", "endnoteReference"], "footnote"),
    (&["drawing", "pict", "object"], "image"),
    (
        &["commentRangeStart", "commentRangeEnd", "commentReference"],
        "comment",
    ),
    (&["bookmarkStart", "bookmarkEnd"], "bookmark"),
    (&["ins", "del", "moveFrom", "moveTo"], "revision"),
    (&["br", "cr"], "break"),
    (&["tab", "ptab"], "tab"),
    (&["sym"], "symbol"),
    (&["noBreakHyphen", "softHyphen"], "hyphen"),
];

/// Classes whose codes an edit must keep.
const KEPT: [&str; 6] = [
    "field", "footnote", "image", "comment", "bookmark", "revision",
];

/// What a code's data holds: its standalone class (from [`CLASSES`], else `format` when
/// the run properties around it differ, `proof`, or `run`) and whether it may be deleted.
fn inspect(data: &str, w: &str, kind: CodeKind, props_differ: bool) -> (&'static str, bool) {
    let mut best: Option<usize> = None;
    let mut proof = false;
    let mut link = false;
    for name in code_elements(data, w) {
        match name {
            "proofErr" => proof = true,
            "hyperlink" => link = true,
            "r" | "t" | "rPr" => {}
            _ => {
                if let Some(rank) = CLASSES.iter().position(|(names, _)| names.contains(&name)) {
                    best = Some(best.map_or(rank, |b| b.min(rank)));
                }
            }
        }
    }
    let class = match best {
        Some(rank) => CLASSES[rank].1,
        None if props_differ => "format",
        None if proof => "proof",
        None => "run",
    };
    let kept = best.is_some_and(|rank| KEPT.contains(&CLASSES[rank].1));
    let structural = kind == CodeKind::Standalone && link;
    (class, !(kept || structural))
}

fn read_document(
    owned: String,
    styles: &HashMap<String, StyleInfo>,
    each: Option<super::Each<'_>>,
) -> Result<Parsed, ReadError> {
    if owned.len() as u64 > super::MAX_INPUT_BYTES {
        return Err(ReadError::TooLarge {
            at: DOCUMENT.into(),
            message: format!(
                "the part is {} bytes; kapi reads at most {}",
                owned.len(),
                megabytes(super::MAX_INPUT_BYTES)
            ),
        });
    }
    let mut parsed = read_blocks(&owned, styles, each)?.finish()?;
    // The skeleton takes the part's text itself: no second copy of it.
    parsed.skeleton.original = owned;
    Ok(parsed)
}

/// The blocks of `document.xml` and a skeleton whose holes index into `text` (the caller
/// hands it the text), or each block handed to `each`.
fn read_blocks<'e>(
    text: &str,
    styles: &HashMap<String, StyleInfo>,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let w = w_prefix(text);
    let mut reader = DocReader::new(text, w.clone());
    reader.scan()?;
    let mut budget = KeyBudget::new(text.len());

    let pieces = &reader.pieces;
    let elements = &reader.elements;
    let state = |piece: &Piece| State {
        flags: piece
            .run()
            .and_then(|r| elements.get(r))
            .map_or(0, |e| e.flags),
        link: piece.link(),
    };
    let props = |piece: &Piece| {
        piece
            .run()
            .and_then(|r| elements.get(r))
            .and_then(|e| text.get(wide(&e.props)))
            .unwrap_or_default()
    };
    // Segments: maximal runs of consecutive pieces of one paragraph.
    let segments = {
        let mut at = 0;
        std::iter::from_fn(move || {
            let start = at;
            let para = pieces.get(start)?.para;
            while pieces.get(at).is_some_and(|p| p.para == para) {
                at += 1;
            }
            Some(start..at)
        })
    };
    let count = segments.clone().count();

    let skeleton = Skeleton::owned(String::new(), super::Encoding::Utf8);
    let mut out = Output::new(INFO.id, skeleton, each);
    out.reserve(count);
    let mut previous_end = 0;
    for segment in segments {
        let first = &pieces[segment.start];
        let last = &pieces[segment.end - 1];
        let para = &mut reader.paras[first.para as usize];
        para.segments += 1;
        let part = para.segments;
        let next_start = pieces
            .get(segment.end)
            .map_or(text.len(), |next| next.tag as usize);

        // Extend the hole over the markup of a formatted first or last piece.
        let element = |piece: &Piece| piece.link().or(piece.run()).and_then(|e| elements.get(e));
        let lead = Some(state(first))
            .filter(|s| !s.is_plain())
            .and_then(|_| element(first))
            .map(|e| e.span.start as usize)
            .filter(|&start| start >= previous_end && start <= first.tag as usize);
        // A trailing close only pairs with what the hole opened.
        let initial = if lead.is_some() {
            State::default()
        } else {
            state(first)
        };
        let trail = Some(state(last))
            .filter(|s| !s.is_plain() && *s != initial)
            .and_then(|_| element(last))
            .map(|e| e.span.end as usize)
            .filter(|&end| end <= next_start && end >= last.text().end);

        let mut builder = RunBuilder {
            text,
            w: &w,
            runs: Vec::new(),
            next_id: 0,
            open: Vec::new(),
        };
        if let Some(start) = lead {
            builder.transition(
                start..first.text().start,
                State::default(),
                state(first),
                false,
            );
        }
        for k in segment.clone() {
            let piece = &pieces[k];
            if k > segment.start {
                let before = &pieces[k - 1];
                builder.transition(
                    before.text().end..piece.text().start,
                    state(before),
                    state(piece),
                    props(before) != props(piece),
                );
            }
            let raw = text.get(piece.text()).unwrap_or_default();
            if raw.contains('&') {
                let decoded = xml::unescape(text, raw, piece.text().start)
                    .map(Cow::into_owned)
                    .unwrap_or_default();
                builder.runs.push(Run::text(decoded));
            } else {
                builder.runs.push(Run::text_at(raw, piece.text().start));
            }
        }
        if let Some(end) = trail {
            builder.transition(last.text().end..end, state(last), State::default(), false);
        }
        let mut runs = builder.finish();
        runs.shrink_to_fit();
        let hole = lead.unwrap_or(first.tag as usize)..trail.unwrap_or(last.text().end);
        previous_end = hole.end;

        let blank = runs.iter().all(|run| match run {
            Run::Text { text, .. } => text.trim().is_empty(),
            _ => true,
        });
        if blank {
            continue;
        }
        let para = &reader.paras[first.para as usize];
        let mut key = reader.key(para.node);
        if part > 1 {
            key.push_str("/part#");
            key.push_str(&part.to_string());
        }
        budget.charge(key.len(), text, para.span.start)?;
        let (role, level) = role(para, styles);
        let mut block = Block::new(key, role, runs);
        block.level = level;
        block.span = para.span.clone();
        let index = out.index();
        out.skeleton.hole(hole, index, &block.source);
        out.push(text, block);
    }
    Ok(out)
}

/// A paragraph's role and level: heading, then list, then table cell.
fn role(para: &Para, styles: &HashMap<String, StyleInfo>) -> (Role, u32) {
    let style = para.style.as_deref();
    let info = style.and_then(|s| styles.get(s)).copied();
    let heading = para
        .outline
        .map(|o| o + 1)
        .or(info.and_then(|i| i.heading))
        .or_else(|| style.and_then(heading_style_level));
    if let Some(level) = heading {
        return (Role::Heading, level);
    }
    let list = match para.numbered {
        Some(true) => Some(para.ilvl.unwrap_or(0).saturating_add(1)),
        Some(false) => None,
        None => info
            .and_then(|i| i.list)
            .or_else(|| style.and_then(list_style_level)),
    };
    if let Some(level) = list {
        return (Role::ListItem, level);
    }
    if para.cell {
        return (Role::TableCell, 0);
    }
    (Role::Paragraph, 0)
}

// ---------------------------------------------------------------------------------------
// Writing

/// The length of a `<w:t …>` start tag at the start of `s`, if there is one.
fn text_tag_len(s: &str, w: &str) -> Option<usize> {
    let open = if w.is_empty() {
        "<t".to_owned()
    } else {
        format!("<{w}:t")
    };
    let rest = s.strip_prefix(open.as_str())?;
    if !rest.starts_with([' ', '\t', '\r', '\n', '>']) {
        return None;
    }
    let end = s.find('>')?;
    (!s[..end].ends_with('/')).then_some(end + 1)
}

/// Whether `s` ends with a `<w:t …>` start tag (an open text the next text goes into).
fn ends_in_text(s: &str, w: &str) -> bool {
    s.rfind('<')
        .and_then(|lt| s.get(lt..))
        .and_then(|tail| text_tag_len(tail, w).map(|len| len == tail.len()))
        .unwrap_or(false)
}

fn needs_preserve(text: &str) -> bool {
    text.starts_with(char::is_whitespace)
        || text.ends_with(char::is_whitespace)
        || text.contains("  ")
        || text.contains(['\t', '\n', '\r'])
}

/// Adds `xml:space="preserve"` to the `<w:t>` start tag that ends `out`, unless it has an
/// `xml:space` already.
fn ensure_preserve(out: &mut String) {
    let Some(lt) = out.rfind('<') else {
        return;
    };
    if out[lt..].contains("xml:space") {
        return;
    }
    if out.ends_with('>') {
        out.pop();
        out.push_str(" xml:space=\"preserve\">");
    }
}

/// Whether XML 1.0 can hold `c` in character data.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `w:name`, or `name` when WordprocessingML is the default namespace.
fn qualified(w: &str, name: &str) -> String {
    if w.is_empty() {
        name.to_owned()
    } else {
        format!("{w}:{name}")
    }
}

/// Writes text into the open `<w:t>`: escapes, tabs and line breaks as elements.
fn write_text(text: &str, w: &str, out: &mut String) {
    let t = qualified(w, "t");
    let mut previous = '\0';
    let mut at = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '\t' | '\n' | '\r') {
            xml::escape_text(text.get(at..i).unwrap_or_default(), out);
            at = i + 1;
            match c {
                '\t' => out.push_str(&format!(
                    "</{t}><{tab}/><{t} xml:space=\"preserve\">",
                    tab = qualified(w, "tab")
                )),
                '\n' if previous == '\r' => {}
                _ => out.push_str(&format!(
                    "</{t}><{br}/><{t} xml:space=\"preserve\">",
                    br = qualified(w, "br")
                )),
            }
        }
        previous = c;
    }
    xml::escape_text(text.get(at..).unwrap_or_default(), out);
}

fn render(
    original: &str,
    w: &str,
    hole: &Hole,
    runs: &[Run],
    document: &Document,
) -> Result<String, WriteError> {
    let key = document
        .blocks
        .get(hole.block)
        .map_or_else(String::new, |b| b.key.clone());
    let fail = |message: String| WriteError::Block {
        key: key.clone(),
        message,
    };
    let held = original
        .get(hole.span.clone())
        .ok_or_else(|| fail("the hole lies outside document.xml".into()))?;
    let w_tag = |name: &str| qualified(w, name);
    let mut out = String::with_capacity(held.len() + 32);
    let mut inside = false;
    if let Some(len) = text_tag_len(held, w) {
        out.push_str(&held[..len]);
        inside = true;
    }
    let mut pending = String::new();
    let flush = |out: &mut String, pending: &mut String, inside: bool| {
        if pending.is_empty() {
            return Ok(());
        }
        if let Some(c) = pending.chars().find(|&c| !xml_char(c)) {
            return Err(fail(format!(
                "{c:?} cannot be written in a Word document (XML 1.0 has no such character)"
            )));
        }
        if inside {
            if needs_preserve(pending) {
                ensure_preserve(out);
            }
            write_text(pending, w, out);
        } else {
            out.push_str(&format!(
                "<{r}><{t} xml:space=\"preserve\">",
                r = w_tag("r"),
                t = w_tag("t")
            ));
            write_text(pending, w, out);
            out.push_str(&format!("</{t}></{r}>", r = w_tag("r"), t = w_tag("t")));
        }
        pending.clear();
        Ok(())
    };
    for run in runs {
        match run {
            Run::Text { text, .. } => pending.push_str(text),
            Run::Code(code) => {
                flush(&mut out, &mut pending, inside)?;
                out.push_str(&code.data);
                inside = ends_in_text(&code.data, w);
            }
            Run::Switch(_) => {
                return Err(fail(
                    "a Word paragraph cannot hold a plural or select switch".into(),
                ));
            }
        }
    }
    flush(&mut out, &mut pending, inside)?;
    // End where the hole ended: inside the last `<w:t>`, or after a run's markup (when the
    // codes that closed it were deleted with what they held).
    let t = w_tag("t");
    let expected = balance(held);
    let end_inside = expected
        .as_ref()
        .is_some_and(|(_, open)| open.last() == Some(&t.as_str()));
    if inside && !end_inside {
        out.push_str(&format!("</{t}></{r}>", r = w_tag("r")));
    } else if !inside && end_inside {
        out.push_str(&format!("<{r}><{t}>", r = w_tag("r")));
    }
    if expected != balance(&out) {
        return Err(fail(
            "the edit leaves Word's markup unbalanced: keep each open code with its close \
             code, in order, and keep the codes that are not deletable"
                .into(),
        ));
    }
    Ok(out)
}

/// What a fragment of XML does to the element stack: the elements it closes that it did
/// not open, and those it leaves open; `None` when it closes the wrong element.
fn balance(fragment: &str) -> Option<(Vec<&str>, Vec<&str>)> {
    let mut closes = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    for token in Tokens::new(fragment) {
        match token.ok()? {
            Token::Start {
                name, empty: false, ..
            } => open.push(fragment.get(name)?),
            Token::End { name, .. } => {
                let name = fragment.get(name)?;
                match open.last() {
                    Some(&top) if top == name => {
                        open.pop();
                    }
                    Some(_) => return None,
                    None => closes.push(name),
                }
            }
            _ => {}
        }
    }
    Some((closes, open))
}

fn container_error(e: impl std::fmt::Display) -> WriteError {
    WriteError::Container {
        message: format!("cannot rebuild the Word document's zip: {e}"),
    }
}

/// The zip again, with `document.xml` replaced and every other entry copied raw.
fn rebuild(container: &[u8], xml: &[u8]) -> Result<Vec<u8>, WriteError> {
    let mut archive = ZipArchive::new(Cursor::new(container)).map_err(container_error)?;
    let mut writer = ZipWriter::new(Cursor::new(Vec::with_capacity(
        container.len() + xml.len() / 4,
    )));
    writer
        .set_raw_comment(archive.comment().into())
        .map_err(container_error)?;
    for index in 0..archive.len() {
        let file = archive.by_index_raw(index).map_err(container_error)?;
        if file.name_raw() != DOCUMENT.as_bytes() {
            writer.raw_copy_file(file).map_err(container_error)?;
            continue;
        }
        let method = match file.compression() {
            CompressionMethod::Stored => CompressionMethod::Stored,
            _ => CompressionMethod::Deflated,
        };
        let mut options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(xml.len() as u64 >= u64::from(u32::MAX));
        if let Some(time) = file.last_modified() {
            options = options.last_modified_time(time);
        }
        if let Some(mode) = file.unix_mode() {
            options = options.unix_permissions(mode);
        }
        drop(file);
        writer
            .start_file(DOCUMENT, options)
            .map_err(container_error)?;
        writer.write_all(xml).map_err(container_error)?;
    }
    let cursor = writer.finish().map_err(container_error)?;
    Ok(cursor.into_inner())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::formats::conformance;
    use crate::model::Edition;

    fn fixture(name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata/formats/docx")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            writer
                .start_file(*name, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    const HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>"#;
    const TAIL: &str = "<w:sectPr/></w:body></w:document>";

    /// A package whose body is `body`.
    fn package(body: &str) -> Vec<u8> {
        let xml = format!("{HEAD}{body}{TAIL}");
        zip_of(&[
            ("[Content_Types].xml", b"<Types/>"),
            (DOCUMENT, xml.as_bytes()),
            ("word/other.xml", b"<other>kept</other>"),
        ])
    }

    fn read(bytes: &[u8]) -> Parsed {
        Docx.read(bytes)
            .unwrap_or_else(|e| panic!("read failed: {e}"))
    }

    fn entry_bytes(zip: &[u8], name: &str) -> Vec<u8> {
        let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
        let mut out = Vec::new();
        archive
            .by_name(name)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn document_xml(zip: &[u8]) -> String {
        String::from_utf8(entry_bytes(zip, DOCUMENT)).unwrap()
    }

    /// Runs as `text<1:bold>text</1><2:tab/>`.
    fn show(runs: &[Run]) -> String {
        let mut out = String::new();
        for run in runs {
            match run {
                Run::Text { text, .. } => out.push_str(text),
                Run::Code(code) => match code.kind {
                    CodeKind::Open => out.push_str(&format!("<{}:{}>", code.id, code.class)),
                    CodeKind::Close => out.push_str(&format!("</{}>", code.id)),
                    CodeKind::Standalone => {
                        out.push_str(&format!("<{}:{}/>", code.id, code.class));
                    }
                },
                Run::Switch(_) => out.push_str("<switch>"),
            }
        }
        out
    }

    fn block<'a>(parsed: &'a Parsed, key: &str) -> &'a Block {
        parsed
            .document
            .block(key)
            .unwrap_or_else(|| panic!("no block {key}; keys: {:?}", keys(parsed)))
    }

    fn keys(parsed: &Parsed) -> Vec<&str> {
        parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect()
    }

    fn runs_of(parsed: &Parsed, key: &str) -> String {
        show(&block(parsed, key).source.runs)
    }

    /// Replaces the text of the `n`th text run of a block.
    fn set_text(parsed: &mut Parsed, key: &str, n: usize, text: &str) {
        let block = parsed.document.block_mut(key).unwrap();
        let run = block
            .source
            .runs
            .iter_mut()
            .filter(|r| matches!(r, Run::Text { .. }))
            .nth(n)
            .unwrap();
        *run = Run::text(text);
    }

    fn write(parsed: &Parsed) -> Vec<u8> {
        Docx.write(parsed)
            .unwrap_or_else(|e| panic!("write failed: {e}"))
    }

    fn error(bytes: &[u8]) -> String {
        match Docx.read(bytes) {
            Ok(_) => panic!("read should fail"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn every_fixture_passes_the_conformance_checks() {
        let edited = conformance::run_corpus(&Docx, "docx");
        assert_eq!(edited, conformance::fixtures("docx").len());
    }

    #[test]
    fn headings_paragraphs_and_formatting_of_the_basic_fixture() {
        let parsed = read(&fixture("basic.docx"));
        let got: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.key.as_str(), b.role, b.level))
            .collect();
        assert_eq!(
            got,
            [
                ("body/p#1", Role::Heading, 0),
                ("body/p#2", Role::Heading, 1),
                ("body/p#3", Role::Paragraph, 0),
                ("body/p#4", Role::Heading, 2),
                ("body/p#5", Role::Paragraph, 0),
                ("body/p#6", Role::Paragraph, 0),
                ("body/p#7", Role::Paragraph, 0),
                ("body/p#8", Role::Paragraph, 0),
                ("body/p#9", Role::Paragraph, 0),
                ("body/p#10", Role::Paragraph, 0),
                ("body/p#12", Role::Heading, 3),
            ]
        );
        assert_eq!(
            block(&parsed, "body/p#1").source.plain_text(),
            "Kapi user guide"
        );
        assert_eq!(
            runs_of(&parsed, "body/p#3"),
            "Install the tool, then run <1:bold>kapi check</1> in your project. It is \
             <2:italic>fast</2> and <3:underline>careful</3>."
        );
        assert_eq!(
            runs_of(&parsed, "body/p#5"),
            "Read the <1:hyperlink>online manual</1> for details."
        );
        assert_eq!(
            runs_of(&parsed, "body/p#6"),
            "Name:<1:tab/>Kapi<2:run/>First line<3:break/>second line"
        );
        assert_eq!(
            block(&parsed, "body/p#7").source.plain_text(),
            "Zkouška češtiny, 日本語のテキスト, emoji 🎉 and “quotes”."
        );
        assert_eq!(
            block(&parsed, "body/p#8").source.plain_text(),
            "Escapes: a < b && c > d, \"double\" and 'single'."
        );
        // A formatted first and last piece: the hole takes in their runs' markup.
        assert_eq!(
            runs_of(&parsed, "body/p#9"),
            "<1:bold>Bold start</1> then plain, ending in <2:italic>italics</2>"
        );
        let first = &block(&parsed, "body/p#9").source.runs[0];
        let Run::Code(code) = first else { panic!() };
        assert!(code.data.starts_with("<w:r>") && code.data.contains("<w:b/>"));
        assert!(code.deletable);
        // A size change is not a named formatting: a standalone `format` code.
        assert_eq!(
            runs_of(&parsed, "body/p#10"),
            "Large <1:format/>and normal text with   several  spaces "
        );
    }

    #[test]
    fn verbatim_text_runs_point_into_document_xml() {
        let parsed = read(&fixture("basic.docx"));
        let text = parsed.skeleton.text();
        for block in &parsed.document.blocks {
            for run in &block.source.runs {
                if let Run::Text {
                    text: t,
                    src: Some(at),
                } = run
                {
                    assert_eq!(&text[*at..*at + t.len()], t);
                }
                if let Run::Code(code) = run {
                    let at = code.src.unwrap();
                    assert_eq!(&text[at..at + code.data.len()], code.data);
                }
            }
        }
    }

    #[test]
    fn list_levels_come_from_numbering_and_list_styles() {
        let parsed = read(&fixture("lists.docx"));
        let got: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.source.plain_text(), b.role, b.level))
            .collect();
        let want = [
            ("Shopping", Role::Heading, 1),
            ("Fruit", Role::ListItem, 1),
            ("Apples", Role::ListItem, 2),
            ("Green apples", Role::ListItem, 3),
            ("Vegetables", Role::ListItem, 1),
            ("First step", Role::ListItem, 1),
            ("Second step", Role::ListItem, 1),
            ("Numbered through numPr at level three", Role::ListItem, 3),
            ("A closing paragraph.", Role::Paragraph, 0),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(t, r, l)| (t.to_string(), *r, *l))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn table_cells_are_keyed_by_table_row_and_cell() {
        let parsed = read(&fixture("table.docx"));
        assert_eq!(
            keys(&parsed),
            [
                "body/p#1",
                "body/tbl#1/r#1/c#1/p#1",
                "body/tbl#1/r#1/c#2/p#1",
                "body/tbl#1/r#1/c#3/p#1",
                "body/tbl#1/r#2/c#1/p#1",
                "body/tbl#1/r#2/c#2/p#1",
                "body/tbl#1/r#2/c#3/p#1",
                "body/tbl#1/r#3/c#1/p#1",
                "body/tbl#1/r#3/c#2/p#1",
                "body/tbl#1/r#3/c#3/p#1",
                "body/tbl#1/r#3/c#3/p#2",
                "body/tbl#1/r#3/c#3/tbl#1/r#1/c#1/p#1",
                "body/tbl#1/r#3/c#3/tbl#1/r#1/c#2/p#1",
                "body/p#2",
            ]
        );
        let cell = block(&parsed, "body/tbl#1/r#1/c#1/p#1");
        assert_eq!(
            (cell.role, show(&cell.source.runs).as_str()),
            (Role::TableCell, "<1:bold>Item</1>")
        );
        assert_eq!(
            runs_of(&parsed, "body/tbl#1/r#3/c#3/p#1"),
            "<1:bold>Strong</1>"
        );
        assert_eq!(
            block(&parsed, "body/tbl#1/r#2/c#2/p#1").source.plain_text(),
            "3 €"
        );
        assert_eq!(block(&parsed, "body/p#2").role, Role::Paragraph);
    }

    #[test]
    fn fields_bookmarks_and_proofing_marks_are_codes() {
        let parsed = read(&fixture("fields.docx"));
        assert_eq!(
            runs_of(&parsed, "body/p#2"),
            "Page <1:field/>1<2:field/> of the <3:bookmark/>report<4:bookmark/>, speling<5:proof/> mis<6:run/>take."
        );
        let deletable: Vec<bool> = block(&parsed, "body/p#2")
            .source
            .runs
            .iter()
            .filter_map(|r| match r {
                Run::Code(c) => Some(c.deletable),
                _ => None,
            })
            .collect();
        assert_eq!(deletable, [false, false, false, false, true, true]);
        assert_eq!(
            runs_of(&parsed, "body/p#3"),
            "Mixed <1:bold+italic>bold italic</1> and <2:superscript>super</2> script."
        );
        assert_eq!(
            runs_of(&parsed, "body/p#4"),
            "<1:hyperlink>A link at the start</1> and text after it."
        );
    }

    #[test]
    fn a_write_without_edits_returns_the_same_file() {
        for name in ["basic.docx", "lists.docx", "table.docx", "fields.docx"] {
            let bytes = fixture(name);
            let parsed = read(&bytes);
            assert_eq!(parsed.container.as_deref(), Some(bytes.as_slice()));
            assert_eq!(write(&parsed), bytes, "{name}");
        }
    }

    #[test]
    fn an_edit_inside_a_bold_run_keeps_it_bold_and_copies_other_entries_raw() {
        let bytes = fixture("basic.docx");
        let mut parsed = read(&bytes);
        set_text(&mut parsed, "body/p#3", 1, "kapi lint");
        let written = write(&parsed);
        let again = read(&written);
        assert_eq!(
            runs_of(&again, "body/p#3"),
            "Install the tool, then run <1:bold>kapi lint</1> in your project. It is \
             <2:italic>fast</2> and <3:underline>careful</3>."
        );
        assert!(document_xml(&written).contains("<w:b/></w:rPr><w:t>kapi lint</w:t>"));
        // Every other entry is the same, compressed bytes and metadata, in the same order.
        let mut old = ZipArchive::new(Cursor::new(bytes.as_slice())).unwrap();
        let mut new = ZipArchive::new(Cursor::new(written.as_slice())).unwrap();
        assert_eq!(old.len(), new.len());
        for i in 0..old.len() {
            let mut a = old.by_index_raw(i).unwrap();
            let mut b = new.by_index_raw(i).unwrap();
            assert_eq!(a.name_raw(), b.name_raw());
            if a.name_raw() == DOCUMENT.as_bytes() {
                continue;
            }
            assert_eq!(
                (a.compression(), a.crc32(), a.last_modified()),
                (b.compression(), b.crc32(), b.last_modified())
            );
            let (mut x, mut y) = (Vec::new(), Vec::new());
            a.read_to_end(&mut x).unwrap();
            b.read_to_end(&mut y).unwrap();
            assert_eq!(x, y, "{}", a.name().unwrap());
        }
        for name in [
            "word/styles.xml",
            "docProps/core.xml",
            "[Content_Types].xml",
        ] {
            assert_eq!(entry_bytes(&bytes, name), entry_bytes(&written, name));
        }
        // Only the edited text changed in document.xml.
        let before = document_xml(&bytes);
        assert_eq!(
            document_xml(&written),
            before.replace(">kapi check<", ">kapi lint<")
        );
    }

    #[test]
    fn edited_text_is_escaped_and_keeps_its_spaces_tabs_and_breaks() {
        let bytes = package(
            r#"<w:p><w:r><w:t>Hello</w:t></w:r></w:p><w:p><w:r><w:t>Other</w:t></w:r></w:p>"#,
        );
        let mut parsed = read(&bytes);
        set_text(&mut parsed, "body/p#1", 0, " a < b & c\tnext\r\nline ");
        let written = write(&parsed);
        let xml = document_xml(&written);
        assert!(
            xml.contains(
                r#"<w:p><w:r><w:t xml:space="preserve"> a &lt; b &amp; c</w:t><w:tab/><w:t xml:space="preserve">next</w:t><w:br/><w:t xml:space="preserve">line </w:t></w:r></w:p>"#
            ),
            "{xml}"
        );
        let again = read(&written);
        assert_eq!(
            runs_of(&again, "body/p#1"),
            " a < b & c<1:tab/>next<2:break/>line "
        );
        assert_eq!(
            entry_bytes(&written, "word/other.xml"),
            b"<other>kept</other>"
        );
        // No doubled attribute when the tag has one already.
        let bytes = package(r#"<w:p><w:r><w:t xml:space="preserve"> x </w:t></w:r></w:p>"#);
        let mut parsed = read(&bytes);
        set_text(&mut parsed, "body/p#1", 0, " y ");
        assert!(document_xml(&write(&parsed)).contains(r#"<w:t xml:space="preserve"> y </w:t>"#));
    }

    #[test]
    fn entities_are_decoded_and_written_back_escaped() {
        let bytes = package(
            r#"<w:p><w:r><w:t>Tom &amp; Jerry &#169; &#x263A; &quot;q&quot;</w:t></w:r></w:p>"#,
        );
        let mut parsed = read(&bytes);
        assert_eq!(
            block(&parsed, "body/p#1").source.plain_text(),
            "Tom & Jerry © ☺ \"q\""
        );
        set_text(&mut parsed, "body/p#1", 0, "Tom & Jerry © ☺ \"q\" <x>");
        let again = read(&write(&parsed));
        assert_eq!(
            block(&again, "body/p#1").source.plain_text(),
            "Tom & Jerry © ☺ \"q\" <x>"
        );
    }

    #[test]
    fn deleting_a_pair_is_allowed_but_half_a_hyperlink_is_refused() {
        let bytes = fixture("basic.docx");
        // Both codes of the bold pair go: the text joins the run before it.
        let mut parsed = read(&bytes);
        let runs = &mut parsed.document.block_mut("body/p#3").unwrap().source.runs;
        runs.retain(|r| !matches!(r, Run::Code(c) if c.id == "1"));
        let again = read(&write(&parsed));
        assert_eq!(
            runs_of(&again, "body/p#3"),
            "Install the tool, then run kapi check in your project. It is \
             <1:italic>fast</1> and <2:underline>careful</2>."
        );
        // Only the open code of the hyperlink goes: refused.
        let mut parsed = read(&bytes);
        let runs = &mut parsed.document.block_mut("body/p#5").unwrap().source.runs;
        let open = runs
            .iter()
            .position(|r| matches!(r, Run::Code(c) if c.kind == CodeKind::Open))
            .unwrap();
        runs.remove(open);
        let err = Docx.write(&parsed).unwrap_err().to_string();
        assert!(
            err.contains("body/p#5") && err.contains("unbalanced"),
            "{err}"
        );
    }

    #[test]
    fn a_hyperlink_with_formatted_runs_nests_its_pairs() {
        let bytes = package(
            r#"<w:p><w:hyperlink r:id="rId1"><w:r><w:rPr><w:b/></w:rPr><w:t>bold link</w:t></w:r><w:r><w:t xml:space="preserve"> rest</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> after</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rId2"><w:r><w:t>plain</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t>slanted</w:t></w:r></w:hyperlink></w:p>"#,
        );
        let mut parsed = read(&bytes);
        assert_eq!(
            runs_of(&parsed, "body/p#1"),
            "<1:hyperlink><2:bold>bold link</2> rest</1> after"
        );
        assert_eq!(
            runs_of(&parsed, "body/p#2"),
            "See <1:hyperlink>plain<2:italic>slanted</2></1>"
        );
        let Run::Code(code) = &block(&parsed, "body/p#1").source.runs[0] else {
            panic!()
        };
        assert_eq!(code.data, r#"<w:hyperlink r:id="rId1">"#);
        // The whole link goes: both of its codes and the text inside.
        let runs = &mut parsed.document.block_mut("body/p#2").unwrap().source.runs;
        runs.truncate(1);
        runs.push(Run::text("nothing"));
        let xml = document_xml(&write(&parsed));
        assert!(
            xml.contains(r#"<w:t xml:space="preserve">See nothing</w:t></w:r></w:p>"#),
            "{xml}"
        );
    }

    #[test]
    fn pretty_printed_xml_with_crlf_round_trips_and_edits_in_place() {
        let body = "\r\n  <w:p>\r\n    <w:r>\r\n      <w:t xml:space=\"preserve\">One </w:t>\r\n    </w:r>\r\n    <w:r>\r\n      <w:rPr>\r\n        <w:i/>\r\n      </w:rPr>\r\n      <w:t>two</w:t>\r\n    </w:r>\r\n  </w:p>\r\n  <w:p>\r\n    <w:r>\r\n      <w:t>Three</w:t>\r\n    </w:r>\r\n  </w:p>\r\n";
        let bytes = package(body);
        let mut parsed = read(&bytes);
        assert_eq!(runs_of(&parsed, "body/p#1"), "One <1:italic>two</1>");
        let Run::Code(close) = &block(&parsed, "body/p#1").source.runs[3] else {
            panic!()
        };
        assert_eq!(close.data, "</w:t>\r\n    </w:r>");
        set_text(&mut parsed, "body/p#1", 1, "deux");
        let xml = document_xml(&write(&parsed));
        assert_eq!(
            xml,
            format!("{HEAD}{body}{TAIL}").replace(">two<", ">deux<")
        );
    }

    #[test]
    fn text_moved_before_a_leading_code_gets_a_run_of_its_own() {
        let bytes = fixture("fields.docx");
        let mut parsed = read(&bytes);
        let runs = &mut parsed.document.block_mut("body/p#4").unwrap().source.runs;
        runs.insert(0, Run::text("See: "));
        let written = write(&parsed);
        assert!(
            document_xml(&written)
                .contains(r#"<w:p><w:r><w:t xml:space="preserve">See: </w:t></w:r><w:hyperlink"#)
        );
        let again = read(&written);
        assert_eq!(
            runs_of(&again, "body/p#4"),
            "See: <1:hyperlink>A link at the start</1> and text after it."
        );
    }

    #[test]
    fn characters_xml_cannot_hold_and_switches_are_refused() {
        let bytes = package("<w:p><w:r><w:t>a</w:t></w:r></w:p>");
        let mut parsed = read(&bytes);
        set_text(&mut parsed, "body/p#1", 0, "bell\u{7}");
        let err = Docx.write(&parsed).unwrap_err().to_string();
        assert!(err.contains("body/p#1") && err.contains("XML 1.0"), "{err}");
        let mut parsed = read(&bytes);
        parsed.document.blocks[0].source =
            Edition::new(vec![Run::Switch(Box::new(crate::model::Switch {
                id: "1".into(),
                kind: crate::model::SwitchKind::Plural,
                pivot: "n".into(),
                branches: Vec::new(),
                head: String::new(),
                tail: String::new(),
                src: None,
            }))]);
        assert!(Docx.write(&parsed).is_err());
    }

    #[test]
    fn text_boxes_are_blocks_of_their_own_and_fallbacks_are_skipped() {
        let body = r#"<w:p><w:r><w:t>Before</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent><w:t>After</w:t></w:r></w:p><w:p><w:r><w:t>Next</w:t></w:r></w:p>"#;
        let bytes = package(body);
        let parsed = read(&bytes);
        assert_eq!(
            keys(&parsed),
            [
                "body/p#1",
                "body/p#1/txbx#1/p#1",
                "body/p#1/part#2",
                "body/p#2"
            ]
        );
        // The bold run around the text box cannot take its markup into the hole.
        assert_eq!(runs_of(&parsed, "body/p#1/part#2"), "After");
        for key in keys(&parsed) {
            let mut parsed = read(&bytes);
            set_text(&mut parsed, key, 0, "Zq");
            let again = read(&write(&parsed));
            assert_eq!(block(&again, key).source.plain_text(), "Zq");
            assert_eq!(keys(&again), keys(&parsed));
        }
        let mut parsed = read(&bytes);
        set_text(&mut parsed, "body/p#1/txbx#1/p#1", 0, "Inside");
        let xml = document_xml(&write(&parsed));
        assert_eq!(xml.matches("Inside").count(), 1);
        assert_eq!(
            xml.matches("Boxed").count(),
            1,
            "the fallback copy is left as it was"
        );
    }

    #[test]
    fn styles_xml_names_headings_and_lists_in_any_language() {
        let styles = r#"<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style><w:style w:type="paragraph" w:styleId="Gliederung"><w:name w:val="Gliederung"/><w:pPr><w:outlineLvl w:val="3"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="Aufz"><w:name w:val="Aufz"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="4"/></w:numPr></w:pPr></w:style></w:styles>"#;
        let body = r#"<w:p><w:pPr><w:pStyle w:val="berschrift2"/></w:pPr><w:r><w:t>Titel</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Gliederung"/></w:pPr><w:r><w:t>Teil</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Aufz"/></w:pPr><w:r><w:t>Punkt</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Aufz"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>Kein Punkt</w:t></w:r></w:p><w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Direct</w:t></w:r></w:p>"#;
        let xml = format!("{HEAD}{body}{TAIL}");
        let bytes = zip_of(&[(DOCUMENT, xml.as_bytes()), (STYLES, styles.as_bytes())]);
        let parsed = read(&bytes);
        let got: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| (b.role, b.level))
            .collect();
        assert_eq!(
            got,
            [
                (Role::Heading, 2),
                (Role::Heading, 4),
                (Role::ListItem, 2),
                (Role::Paragraph, 0),
                (Role::Heading, 1)
            ]
        );
    }

    #[test]
    fn a_document_with_another_prefix_for_wordprocessingml_is_read() {
        let xml = r#"<?xml version="1.0"?><x:document xmlns:x="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><x:body><x:p><x:r><x:rPr><x:i/></x:rPr><x:t>Slanted</x:t></x:r><x:r><x:t> plain</x:t></x:r></x:p></x:body></x:document>"#;
        let bytes = zip_of(&[(DOCUMENT, xml.as_bytes())]);
        let mut parsed = read(&bytes);
        assert_eq!(runs_of(&parsed, "body/p#1"), "<1:italic>Slanted</1> plain");
        set_text(&mut parsed, "body/p#1", 1, "  two  ");
        let again = read(&write(&parsed));
        assert_eq!(runs_of(&again, "body/p#1"), "<1:italic>Slanted</1>  two  ");
    }

    #[test]
    fn packages_that_are_not_word_documents_are_refused() {
        let err = error(b"plain text, not a zip");
        assert!(err.contains("not a readable zip archive"), "{err}");
        let bytes = fixture("basic.docx");
        let err = error(&bytes[..bytes.len() / 2]);
        assert!(err.contains("truncated"), "{err}");
        let err = error(&zip_of(&[("word/other.xml", b"<x/>")]));
        assert!(err.contains("has no `word/document.xml`"), "{err}");
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(
            "<?xml version=\"1.0\"?><w:document/>"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        let err = error(&zip_of(&[(DOCUMENT, &utf16)]));
        assert!(err.contains("UTF-16"), "{err}");
        let err = error(&zip_of(&[(
            DOCUMENT,
            b"<?xml version='1.0' encoding='windows-1252'?><w:document/>",
        )]));
        assert!(err.contains("windows-1252"), "{err}");
        let err = error(&zip_of(&[(
            DOCUMENT,
            b"<w:document>\n<w:body>\xff</w:body></w:document>",
        )]));
        assert!(
            err.starts_with("2:9:") && err.contains("not valid UTF-8"),
            "{err}"
        );
        // An oversized part is refused before it is decompressed.
        let big = package(&"<w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(50));
        let err = read_limited(&big, 1000, None).unwrap_err().to_string();
        assert!(
            err.starts_with("word/document.xml: the Word document inflates past 1000 bytes"),
            "{err}"
        );
        assert!(read_limited(&big, 10_000, None).is_ok());
    }

    #[test]
    fn malformed_xml_is_reported_at_its_position() {
        let cases: &[(&str, &str)] = &[
            (
                "<w:document>\n<w:body><w:p></w:r></w:p></w:body></w:document>",
                "2:14: expected `</w:p>` (opened at 2:9), found `</w:r>`",
            ),
            (
                "<w:document>\n<w:body><w:p><w:r><w:t>a &nope; b</w:t></w:r></w:p></w:body></w:document>",
                "2:26: unknown entity `&nope;`",
            ),
            (
                "<w:document>\n<w:body><w:p><w:r><w:t>a<w:b/></w:t></w:r></w:p></w:body></w:document>",
                "2:25: expected `</w:t>`: a `<w:t>` holds text only",
            ),
            (
                "<w:document><w:body>",
                "1:21: `word/document.xml` ends inside `<w:body>` opened at 1:13",
            ),
            (
                "<w:document></w:document></w:body>",
                "1:26: `</w:body>` closes an element",
            ),
            (
                "<w:document><w:body attr=\"x",
                "1:13: a start tag is not closed",
            ),
            ("<w:document><!-- open", "1:13: a comment is never closed"),
        ];
        for (xml, want) in cases {
            let err = error(&zip_of(&[(DOCUMENT, xml.as_bytes())]));
            assert!(
                err.starts_with(want),
                "{xml}\n  got:  {err}\n  want: {want}"
            );
        }
    }

    #[test]
    fn truncated_packages_and_parts_never_panic() {
        for name in ["basic.docx", "fields.docx", "lists.docx", "table.docx"] {
            let bytes = fixture(name);
            let step = (bytes.len() / 150).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                let _ = Docx.read(&bytes[..cut]);
            }
            // A damaged byte in the middle of the archive.
            for at in (0..bytes.len()).step_by(step * 3) {
                let mut damaged = bytes.clone();
                damaged[at] ^= 0x5A;
                if let Ok(parsed) = Docx.read(&damaged) {
                    let _ = Docx.write(&parsed);
                }
            }
            let xml = document_xml(&bytes);
            let step = (xml.len() / 200).max(1);
            for cut in (0..xml.len()).step_by(step) {
                let Some(prefix) = xml.get(..cut) else {
                    continue;
                };
                let zip = zip_of(&[(DOCUMENT, prefix.as_bytes())]);
                if let Ok(mut parsed) = Docx.read(&zip) {
                    if let Some(block) = parsed.document.blocks.first_mut() {
                        block.source.runs.push(Run::text("x"));
                    }
                    let _ = Docx.write(&parsed);
                }
            }
        }
    }

    /// `depth` tables, each in the first cell of the one before, with a paragraph of text in
    /// every cell.
    fn nested_tables(depth: usize) -> String {
        let mut body = String::new();
        for i in 0..depth {
            body.push_str(&format!(
                "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell {i}</w:t></w:r></w:p>"
            ));
        }
        body.push_str(&"<w:p/></w:tc></w:tr></w:tbl>".repeat(depth));
        body
    }

    #[test]
    fn tables_nested_past_the_limit_are_refused_at_the_table_that_goes_past_it() {
        let parsed = read(&package(&nested_tables(MAX_TABLE_DEPTH)));
        assert_eq!(parsed.document.blocks.len(), MAX_TABLE_DEPTH);
        let deepest = &parsed.document.blocks[MAX_TABLE_DEPTH - 1].key;
        assert_eq!(deepest.matches("tbl#1/r#1/c#1").count(), MAX_TABLE_DEPTH);
        let err = Docx.read(&package(&nested_tables(8000))).unwrap_err();
        let opening = "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell 0</w:t></w:r></w:p>";
        let column = HEAD.lines().nth(1).unwrap().len()
            + MAX_TABLE_DEPTH * opening.len()
            + (0..MAX_TABLE_DEPTH)
                .map(|i| i.to_string().len() - 1)
                .sum::<usize>()
            + 1;
        assert_eq!(
            err,
            ReadError::TooDeep {
                line: 2,
                column,
                what: "tables".into(),
                limit: MAX_TABLE_DEPTH
            }
        );
        assert_eq!(
            err.to_string(),
            format!("2:{column}: tables nest deeper than 64 levels")
        );
    }

    #[test]
    fn elements_nested_past_the_limit_are_refused() {
        let body = format!(
            "{}<w:p><w:r><w:t>deep</w:t></w:r></w:p>{}",
            "<w:sdt><w:sdtContent>".repeat(200),
            "</w:sdtContent></w:sdt>".repeat(200)
        );
        let err = Docx.read(&package(&body)).unwrap_err();
        assert!(
            matches!(&err, ReadError::TooDeep { what, limit: 256, .. } if what == "`word/document.xml` elements"),
            "{err}"
        );
        let ok = body.replace(
            &"<w:sdt><w:sdtContent>".repeat(200),
            &"<w:sdt><w:sdtContent>".repeat(120),
        );
        let ok = ok.replace(
            &"</w:sdtContent></w:sdt>".repeat(200),
            &"</w:sdtContent></w:sdt>".repeat(120),
        );
        assert_eq!(keys(&read(&package(&ok))), ["body/p#1"]);
    }

    #[test]
    fn parts_count_against_one_limit_as_they_inflate() {
        let xml = format!(
            "{HEAD}{}{TAIL}",
            "<w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(50)
        );
        let styles = format!("<w:styles>{}</w:styles>", " ".repeat(2000));
        let zip = zip_of(&[(DOCUMENT, xml.as_bytes()), (STYLES, styles.as_bytes())]);
        assert!(read_limited(&zip, (xml.len() + styles.len()) as u64, None).is_ok());
        let err = read_limited(&zip, (xml.len() + styles.len() - 1) as u64, None).unwrap_err();
        assert!(
            matches!(&err, ReadError::TooLarge { at, .. } if at == STYLES),
            "{err}"
        );
        // A 3 MB part that compresses to a few KB: refused by its declared size, and when the
        // header lies, stopped as it inflates past what it declared.
        let bomb = format!("{HEAD}{}{TAIL}", " ".repeat(3_000_000));
        let mut zip = zip_of(&[(DOCUMENT, bomb.as_bytes())]);
        assert!(zip.len() < 20_000);
        let err = read_limited(&zip, 1_000_000, None).unwrap_err().to_string();
        assert!(
            err.starts_with("word/document.xml: the Word document inflates"),
            "{err}"
        );
        for header in [b"PK\x03\x04", b"PK\x01\x02"] {
            let at = zip.windows(4).position(|w| w == header).unwrap();
            let size = at + if header == b"PK\x03\x04" { 22 } else { 24 };
            zip[size..size + 4].copy_from_slice(&100u32.to_le_bytes());
        }
        let err = read_limited(&zip, 1_000_000, None).unwrap_err().to_string();
        assert!(err.contains("word/document.xml"), "{err}");
    }

    #[test]
    fn paragraphs_and_cells_without_text_keep_their_place_in_the_keys() {
        let body = "<w:p/><w:p><w:r/></w:p><w:p><w:r><w:t>two</w:t></w:r></w:p>\
            <w:tbl><w:tr><w:tc><w:p/></w:tc><w:tc><w:p/><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr>\
            <w:tr><w:tc><w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl></w:tc></w:tr>\
            <w:tr><w:tc><w:p><w:r><w:t>last</w:t></w:r></w:p></w:tc></w:tr></w:tbl>\
            <w:p><w:r><w:t>after</w:t></w:r></w:p>";
        assert_eq!(
            keys(&read(&package(body))),
            [
                "body/p#3",
                "body/tbl#1/r#1/c#2/p#2",
                "body/tbl#1/r#3/c#1/p#1",
                "body/p#4"
            ]
        );
        let loose = zip_of(&[(
            DOCUMENT,
            b"<w:document><w:p/><w:p><w:r><w:t>x</w:t></w:r></w:p></w:document>",
        )]);
        assert_eq!(keys(&read(&loose)), ["p#2"]);
    }

    #[test]
    fn a_list_level_past_u32_reads_without_overflowing() {
        let body = "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"4294967295\"/><w:numId w:val=\"1\"/>\
            </w:numPr></w:pPr><w:r><w:t>deep item</w:t></w:r></w:p>";
        let parsed = read(&package(body));
        assert_eq!(parsed.document.blocks[0].role, Role::ListItem);
        assert_eq!(parsed.document.blocks[0].level, u32::MAX);
    }

    #[test]
    fn the_format_is_registered_for_docx_files() {
        let format = super::super::by_id("docx").unwrap();
        assert_eq!(format.info().name, "Word document");
        assert!(!format.info().capabilities.generative);
        assert!(super::super::for_file(std::path::Path::new("a/Report.DOCX"), &[]).is_some());
        assert!(Docx.sniff(&fixture("basic.docx")));
    }
}
