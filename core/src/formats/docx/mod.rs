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
mod tests;
