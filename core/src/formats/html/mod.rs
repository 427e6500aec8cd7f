//! HTML: web pages and fragments read with a tolerant hand-written byte scanner, so broken
//! markup still reads and every byte of the file keeps its place.
//!
//! # Blocks
//! The text between two block-level tags is one segment; a segment holding some prose is a
//! block. Its role comes from the innermost open block-level element: `h1`–`h6` are headings
//! (level 1–6), `li` a list item (level = how many lists it sits in), `td`/`th` table cells,
//! `blockquote` (and paragraphs inside one) quotes, `pre` code (not translatable), `title`,
//! `button`, `label`, `option`, `legend`, `summary` and `textarea` are `other`, and everything
//! else (`p`, `div`, `section`, `body`, `dt`, `dd`, `caption`, `figcaption`…) a paragraph. A
//! segment whose prose all sits inside `code`, `kbd`, `samp` or `tt` is code too. Open elements
//! are tracked on a stack with HTML's implied end tags (`<p>a<p>b`, `<li>` after `<li>`, cells
//! and rows), and stray end tags are ignored. A `<` that starts no markup is text; a tag or
//! comment the file ends inside runs to the end of the file, as browsers read it. Nothing in
//! the markup is an error: only bytes that are not text in the file's encoding are, and two
//! limits that keep any file linear: block elements left open more than 256 deep
//! ([`super::MAX_DEPTH`], refused with [`ReadError::TooDeep`] at the start tag that goes past
//! it; implied end tags close most before that), and block keys that add up to more than four
//! times the file's size plus 16 MB ([`super::KeyBudget`]). Open `translate="no"` inline
//! elements are tracked 256 deep.
//!
//! Translatable attribute values are blocks of their own (role `other`, `key` for
//! `<meta>`): `alt`, `title`, `placeholder`, `aria-label`, `label`, `summary`, the `value`
//! of submit, reset and button inputs, and the `content` of `<meta name="description">`
//! (also `keywords`, `og:title`, `og:description`, `twitter:title`,
//! `twitter:description`). An attribute on an inline tag inside a paragraph is a hole
//! nested in the paragraph's hole; the writer fills both.
//!
//! Elements with `translate="no"` (or class `notranslate`), and what they hold, give
//! blocks that are not translatable and are locked; their attributes are not read. Inside
//! a paragraph such an inline element is one standalone code holding all of it.
//!
//! # Keys
//! A key is the element path of the segment's container, from the root or from the innermost
//! element with an `id`, which anchors the path as `name[id]`: `html/head/title`,
//! `html/body/div/p#2`, `section[install]/ul/li#3`. Attribute blocks add the element and the
//! attribute: `html/body/p/img/@alt`. Paths keep at most 24 segments (the innermost ones).
//! Repeats are numbered by [`crate::model::KeyDeduper`]. Keys never come from the text.
//!
//! # Runs
//! Text runs are verbatim slices of the file. Inline elements (`b`, `i`, `em`, `strong`,
//! `a`, `span`, `code`, `sup`, `sub`, `small`, `abbr`, `q`, `u`, `s`, `mark`, `font`, and
//! unknown elements) are open/close codes whose data is the tag as written; a link keeps
//! its `href` (as written) in the code's attrs, and the writer rewrites the tag when an
//! edit changes it. Tags that do not pair up inside the segment, void elements (`br`,
//! `img`, `input`, `wbr`), character references (`&amp;`, `&nbsp;`, `&#8217;`, class
//! `entity`, as written), comments and `script`/`style` elements inside the text are
//! standalone codes. Whitespace, comments and scripts at a segment's edges stay in the
//! skeleton, as do the doctype, processing instructions, `script`, `style` and every
//! tag between blocks.
//!
//! # Encoding
//! A BOM decides (UTF-8, UTF-16 LE/BE); else a `<meta charset>`, a `<meta http-equiv=
//! "Content-Type" content="…; charset=…">` or an XML declaration in the first 4 KB (UTF-16
//! named there means UTF-8, as browsers read it); else UTF-8. The writer encodes back to
//! the same encoding.
//!
//! # Writing
//! Untouched holes copy their bytes. Edited text escapes `&` as `&amp;` where it would
//! start a character reference and `<` as `&lt;` where it could start markup; `>` needs
//! no escape in text. An edited attribute value also escapes the quote it sits in
//! (`&quot;`, `&#39;`); an unquoted value that no longer fits unquoted gets double quotes.
//! Such escapes read back as entity codes, not as the literal characters.
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::output::Output;
use super::placeholders::Ids;
use super::{
    Capabilities, Encoding, Format, FormatInfo, Hole, Keys, Parsed, ReadError, Skeleton,
    WriteError, hole_runs,
};
use crate::model::{Block, Code, CodeKind, Document, Role, Run, fingerprint_runs};

pub const INFO: FormatInfo = FormatInfo {
    id: "html",
    name: "HTML",
    extensions: &["html", "htm", "xhtml"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
    },
};

/// Attributes whose value is prose, on any element.
const PROSE_ATTRS: &[&str] = &[
    "alt",
    "title",
    "placeholder",
    "aria-label",
    "label",
    "summary",
];

/// `<meta name=…>` values whose `content` is prose.
const META_NAMES: &[&str] = &[
    "description",
    "keywords",
    "og:title",
    "og:description",
    "twitter:title",
    "twitter:description",
];

/// Elements whose content is raw text (no tags, no references): skipped whole.
const RAW: &[&str] = &["script", "style", "xmp", "iframe", "noembed", "plaintext"];

/// Elements whose content is text and references but no tags.
const RCDATA: &[&str] = &["title", "textarea"];

/// Inline elements with no content.
const INLINE_VOID: &[&str] = &["br", "img", "input", "wbr", "embed", "keygen", "image"];

/// Block-level elements with no content.
const BLOCK_VOID: &[&str] = &[
    "hr", "meta", "link", "base", "col", "area", "param", "source", "track", "basefont", "bgsound",
    "frame", "isindex",
];

/// Elements that end a segment (besides [`BLOCK_VOID`]); every other element is inline.
const BLOCKS: &[&str] = &[
    "html",
    "head",
    "body",
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
    "colgroup",
    "blockquote",
    "pre",
    "listing",
    "address",
    "article",
    "aside",
    "footer",
    "header",
    "nav",
    "section",
    "main",
    "figure",
    "figcaption",
    "form",
    "fieldset",
    "legend",
    "menu",
    "dir",
    "details",
    "summary",
    "dialog",
    "center",
    "frameset",
    "noframes",
    "object",
    "applet",
    "map",
    "select",
    "optgroup",
    "option",
    "datalist",
    "textarea",
    "button",
    "label",
    "title",
    "noscript",
    "template",
    "canvas",
    "video",
    "audio",
    "picture",
    "svg",
    "math",
    "hgroup",
    "search",
    "output",
    "progress",
    "meter",
    "marquee",
];

/// Block starts that close an open `p`.
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dd",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "ul",
];

/// Inline formatting an edit may drop as a pair.
const FORMATTING: &[&str] = &[
    "b", "i", "u", "s", "em", "strong", "small", "big", "sup", "sub", "mark", "font", "span", "tt",
    "code", "q", "abbr", "acronym", "cite", "dfn", "kbd", "samp", "var", "del", "ins", "strike",
    "bdi", "bdo", "nobr", "blink", "time", "data", "br", "wbr",
];

/// Inline elements whose content is code, not prose.
const CODE_INLINE: &[&str] = &["code", "kbd", "samp", "tt"];

/// The longest key path, in elements.
const MAX_PATH: usize = 24;

/// The deepest nesting of open block elements (and of open `translate="no"` inline ones).
const MAX_DEPTH: usize = super::MAX_DEPTH;

/// How deep into the open elements an implied end tag looks.
const MAX_SCAN: usize = 64;

pub struct Html;

impl Format for Html {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write(parsed)
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// Decodes the file: BOM, then a declaration in the first 4 KB, then UTF-8.
fn decode(bytes: &[u8]) -> Result<(Cow<'_, str>, Encoding), ReadError> {
    if let Some(encoding) = Encoding::sniff_bom(bytes) {
        return Ok((encoding.decode(bytes)?, encoding));
    }
    let encoding = declared(bytes).unwrap_or(Encoding::Utf8);
    Ok((encoding.decode(bytes)?, encoding))
}

/// The encoding a `<meta>` or an XML declaration in the first 4 KB names.
fn declared(bytes: &[u8]) -> Option<Encoding> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let label = declared_label(&head)?;
    match Encoding::for_label(&label)? {
        // A UTF-16 label in bytes that read as ASCII is a mistake: browsers use UTF-8.
        Encoding::Utf16Le | Encoding::Utf16Be => Some(Encoding::Utf8),
        encoding => Some(encoding),
    }
}

fn declared_label(head: &str) -> Option<String> {
    let b = head.as_bytes();
    if head.starts_with("<?xml") {
        let end = head.find("?>").unwrap_or(head.len());
        let decl = head.get(..end).unwrap_or_default();
        if let Some(at) = decl.find("encoding") {
            let rest = decl.get(at + "encoding".len()..).unwrap_or_default();
            let rest = rest.trim_start().strip_prefix('=')?.trim_start();
            let quote = rest.chars().next()?;
            let inner = rest.get(1..)?;
            let label = inner.split(quote).next()?;
            return Some(label.to_owned());
        }
    }
    let mut lexer = Lexer::new(head);
    let mut at = 0;
    while let Some(found) = b.get(at..).and_then(|rest| {
        rest.windows(5)
            .position(|w| w.eq_ignore_ascii_case(b"<meta"))
    }) {
        let start = at + found;
        at = start + 5;
        let Some((token, _)) = lexer.parse_tag(start) else {
            continue;
        };
        let attr = |name: &str| -> Option<&str> {
            lexer.attrs[token.attrs.clone()]
                .iter()
                .find(|a| slice(head, &a.name).eq_ignore_ascii_case(name))
                .and_then(|a| a.value.as_ref())
                .map(|v| slice(head, v))
        };
        if let Some(charset) = attr("charset") {
            return Some(charset.trim().to_owned());
        }
        let equiv =
            attr("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("content-type"));
        if equiv && let Some(content) = attr("content") {
            let lower = content.to_ascii_lowercase();
            if let Some(i) = lower.find("charset") {
                let rest = content.get(i + "charset".len()..).unwrap_or_default();
                let rest = rest.trim_start().strip_prefix('=')?.trim_start();
                let rest = rest.trim_start_matches(['"', '\'']);
                let label: String = rest
                    .chars()
                    .take_while(|c| !matches!(c, ';' | '"' | '\'') && !c.is_whitespace())
                    .collect();
                return Some(label);
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    /// A character reference: `&amp;`, `&#8217;`, `&#x2014;`.
    Entity,
    /// `<!-- … -->` and `<![CDATA[ … ]]>`.
    Comment,
    /// `<!DOCTYPE …>`, `<?…>`, bogus `<!…>` and `</…>` that are no end tag.
    Decl,
    Start,
    End,
    /// A raw-text element (`script`, `style`…): start tag, content and end tag in one.
    Raw,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    span: Range<usize>,
    /// The tag name, lowercased (start, end and raw tokens); empty otherwise.
    name: String,
    /// The token's attributes: a range of [`Lexer::attrs`].
    attrs: Range<usize>,
    self_closing: bool,
}

#[derive(Debug, Clone)]
struct Attr {
    name: Range<usize>,
    /// The value without its quotes.
    value: Option<Range<usize>>,
}

fn slice<'a>(text: &'a str, range: &Range<usize>) -> &'a str {
    text.get(range.clone()).unwrap_or_default()
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

/// The end of the character reference starting at `i` (an `&`), when there is one.
fn entity_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    match *b.get(j)? {
        b'#' => {
            j += 1;
            let hex = matches!(b.get(j), Some(b'x' | b'X'));
            if hex {
                j += 1;
            }
            let from = j;
            while let Some(&c) = b.get(j) {
                let digit = if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                };
                if !digit || j - from >= 8 {
                    break;
                }
                j += 1;
            }
            if j == from {
                return None;
            }
        }
        c if c.is_ascii_alphabetic() => {
            while let Some(&c) = b.get(j) {
                if !c.is_ascii_alphanumeric() || j - i > 40 {
                    break;
                }
                j += 1;
            }
        }
        _ => return None,
    }
    (b.get(j) == Some(&b';')).then_some(j + 1)
}

struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    tokens: Vec<Token>,
    attrs: Vec<Attr>,
    /// Attributes handed on before `attrs[0]` ([`Lexer::hand_attrs`]): a token's `attrs`
    /// counts from the first attribute of the file.
    attrs_base: usize,
    /// Where [`Lexer::step`] goes on: the next byte to look at, the start of the text
    /// not yet a token, and whether the end was reached.
    pos: usize,
    text_from: usize,
    ended: bool,
    /// For `>`, `"` and `'`: the lowest offset a search failed from; none lies at or after.
    missing: [usize; 3],
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            b: text.as_bytes(),
            tokens: Vec::new(),
            attrs: Vec::new(),
            attrs_base: 0,
            pos: 0,
            text_from: 0,
            ended: false,
            missing: [usize::MAX; 3],
        }
    }

    /// Moves the attributes lexed so far to `to` (a reader's, which holds them while their
    /// tokens are in hand).
    fn hand_attrs(&mut self, to: &mut Vec<Attr>) {
        self.attrs_base += self.attrs.len();
        to.append(&mut self.attrs);
    }

    /// The next `byte` (one of `>`, `"`, `'`) at or after `from`, remembering failures so
    /// repeated searches stay linear.
    fn find(&mut self, from: usize, byte: u8) -> Option<usize> {
        let slot = match byte {
            b'>' => 0,
            b'"' => 1,
            _ => 2,
        };
        let limit = self.missing[slot].min(self.b.len());
        if from >= limit {
            return None;
        }
        match self.b.get(from..limit)?.iter().position(|&c| c == byte) {
            Some(i) => Some(from + i),
            None => {
                self.missing[slot] = from;
                None
            }
        }
    }

    fn token(&mut self, kind: Kind, span: Range<usize>) {
        self.tokens.push(Token {
            kind,
            span,
            name: String::new(),
            attrs: 0..0,
            self_closing: false,
        });
    }

    fn text(&mut self, from: usize, to: usize) {
        if to > from {
            self.token(Kind::Text, from..to);
        }
    }

    /// Text and references (no tags) in `from..to`.
    fn text_and_entities(&mut self, from: usize, to: usize) {
        let mut i = from;
        let mut text_from = from;
        while let Some(off) = self
            .b
            .get(i..to)
            .and_then(|r| r.iter().position(|&c| c == b'&'))
        {
            i += off;
            match entity_end(self.b, i).filter(|&e| e <= to) {
                Some(end) => {
                    self.text(text_from, i);
                    self.token(Kind::Entity, i..end);
                    i = end;
                    text_from = end;
                }
                None => i += 1,
            }
        }
        self.text(text_from, to);
    }

    fn run(&mut self, start: usize) {
        self.begin(start);
        while self.step() {}
    }

    /// Starts lexing at `start` (past a BOM).
    fn begin(&mut self, start: usize) {
        self.pos = start;
        self.text_from = start;
    }

    /// Lexes on until at least one more token is pushed or the text ends; false once the
    /// text has ended and nothing more was pushed.
    fn step(&mut self) -> bool {
        let before = self.tokens.len();
        while self.tokens.len() == before {
            let found = self
                .b
                .get(self.pos..)
                .and_then(|r| r.iter().position(|&c| c == b'<' || c == b'&'));
            let Some(off) = found else {
                if !self.ended {
                    self.ended = true;
                    self.text(self.text_from, self.b.len());
                }
                return self.tokens.len() > before;
            };
            let i = self.pos + off;
            if self.b.get(i) == Some(&b'&') {
                match entity_end(self.b, i) {
                    Some(end) => {
                        self.text(self.text_from, i);
                        self.token(Kind::Entity, i..end);
                        self.pos = end;
                        self.text_from = end;
                    }
                    None => self.pos = i + 1,
                }
                continue;
            }
            match self.markup(i, self.text_from) {
                Some(end) => {
                    self.pos = end;
                    self.text_from = end;
                }
                None => self.pos = i + 1,
            }
        }
        true
    }

    /// Recognises the markup at `i` (a `<`), pushing the text before it and its tokens;
    /// `None` when the `<` is text.
    fn markup(&mut self, i: usize, text_from: usize) -> Option<usize> {
        let b = self.b;
        let len = b.len();
        let rest = b.get(i..)?;
        let next = rest.get(1).copied();
        if rest.starts_with(b"<!--") {
            let body = i + 4;
            let end = if b.get(body) == Some(&b'>') {
                body + 1
            } else if b.get(body..body + 2) == Some(b"->") {
                body + 2
            } else {
                find_seq(b, body, b"-->").map_or(len, |e| e + 3)
            };
            self.text(text_from, i);
            self.token(Kind::Comment, i..end);
            return Some(end);
        }
        if rest.starts_with(b"<![CDATA[") {
            let end = find_seq(b, i + 9, b"]]>").map_or(len, |e| e + 3);
            self.text(text_from, i);
            self.token(Kind::Comment, i..end);
            return Some(end);
        }
        match next {
            Some(b'!' | b'?') => {
                let end = self.find(i + 2, b'>').map_or(len, |e| e + 1);
                self.text(text_from, i);
                self.token(Kind::Decl, i..end);
                Some(end)
            }
            Some(b'/') => match rest.get(2).copied() {
                Some(c) if c.is_ascii_alphabetic() => {
                    let name_end = (i + 2..len)
                        .find(|&j| {
                            b.get(j)
                                .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
                        })
                        .unwrap_or(len);
                    self.text(text_from, i);
                    let Some(gt) = self.find(name_end, b'>') else {
                        // The file ends inside the tag: the rest is markup.
                        self.token(Kind::Decl, i..len);
                        return Some(len);
                    };
                    let name = slice(self.text, &(i + 2..name_end)).to_ascii_lowercase();
                    self.tokens.push(Token {
                        kind: Kind::End,
                        span: i..gt + 1,
                        name,
                        attrs: 0..0,
                        self_closing: false,
                    });
                    Some(gt + 1)
                }
                Some(b'>') => {
                    self.text(text_from, i);
                    self.token(Kind::Decl, i..i + 3);
                    Some(i + 3)
                }
                Some(_) => {
                    let end = self.find(i + 2, b'>').map_or(len, |e| e + 1);
                    self.text(text_from, i);
                    self.token(Kind::Decl, i..end);
                    Some(end)
                }
                None => None,
            },
            Some(c) if c.is_ascii_alphabetic() => {
                let mark = self.attrs.len();
                self.text(text_from, i);
                let Some((token, end)) = self.parse_tag(i) else {
                    // The file ends inside the tag: the rest is markup.
                    self.attrs.truncate(mark);
                    self.token(Kind::Decl, i..len);
                    return Some(len);
                };
                let name = token.name.clone();
                if !token.self_closing && RAW.contains(&name.as_str()) {
                    let close = if name == "plaintext" {
                        None
                    } else {
                        find_end_tag(b, end, &name)
                    };
                    let stop = match close {
                        Some(at) => self.find(at, b'>').map_or(len, |e| e + 1),
                        None => len,
                    };
                    self.tokens.push(Token {
                        kind: Kind::Raw,
                        span: i..stop,
                        ..token
                    });
                    return Some(stop);
                }
                self.tokens.push(token);
                if !self.tokens.last().is_some_and(|t| t.self_closing)
                    && RCDATA.contains(&name.as_str())
                {
                    let Some(at) = find_end_tag(b, end, &name) else {
                        self.text_and_entities(end, len);
                        return Some(len);
                    };
                    self.text_and_entities(end, at);
                    let Some(gt) = self.find(at, b'>') else {
                        self.token(Kind::Decl, at..len);
                        return Some(len);
                    };
                    self.tokens.push(Token {
                        kind: Kind::End,
                        span: at..gt + 1,
                        name,
                        attrs: 0..0,
                        self_closing: false,
                    });
                    return Some(gt + 1);
                }
                Some(end)
            }
            _ => None,
        }
    }

    /// A start tag at `i` (`<` and a letter): the token and the offset after its `>`;
    /// `None` when the file ends inside it. Attributes are pushed to `self.attrs`.
    fn parse_tag(&mut self, i: usize) -> Option<(Token, usize)> {
        let b = self.b;
        let len = b.len();
        let mut j = i + 1;
        while j < len && !is_space(b[j]) && b[j] != b'/' && b[j] != b'>' {
            j += 1;
        }
        let name = slice(self.text, &(i + 1..j)).to_ascii_lowercase();
        let first = self.attrs_base + self.attrs.len();
        let mut last_end = j;
        loop {
            while j < len && (is_space(b[j]) || b[j] == b'/') {
                j += 1;
            }
            let c = *b.get(j)?;
            if c == b'>' {
                let self_closing = j > last_end && b.get(j - 1) == Some(&b'/');
                let token = Token {
                    kind: Kind::Start,
                    span: i..j + 1,
                    name,
                    attrs: first..self.attrs_base + self.attrs.len(),
                    self_closing,
                };
                return Some((token, j + 1));
            }
            let name_start = j;
            j += 1;
            while j < len && !is_space(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
                j += 1;
            }
            let name_end = j;
            last_end = j;
            let mut k = j;
            while k < len && is_space(b[k]) {
                k += 1;
            }
            let mut value = None;
            if b.get(k) == Some(&b'=') {
                k += 1;
                while k < len && is_space(b[k]) {
                    k += 1;
                }
                match b.get(k).copied() {
                    Some(q @ (b'"' | b'\'')) => {
                        let close = self.find(k + 1, q)?;
                        value = Some(k + 1..close);
                        j = close + 1;
                    }
                    Some(_) => {
                        let from = k;
                        while k < len && !is_space(b[k]) && b[k] != b'>' {
                            k += 1;
                        }
                        value = Some(from..k);
                        j = k;
                    }
                    None => return None,
                }
                last_end = j;
            }
            self.attrs.push(Attr {
                name: name_start..name_end,
                value,
            });
        }
    }
}

/// The offset of `needle` at or after `from`.
fn find_seq(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The offset of `</name` (any case, followed by a space, `/`, `>` or the end) at or
/// after `from`.
fn find_end_tag(b: &[u8], from: usize, name: &str) -> Option<usize> {
    let mut at = from;
    while let Some(p) = find_seq(b, at, b"</") {
        let name_at = p + 2;
        let after = name_at + name.len();
        if b.get(name_at..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && b.get(after)
                .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
        {
            return Some(p);
        }
        at = p + 2;
    }
    None
}

// ---------------------------------------------------------------------------------------
// Reading

/// An open block-level element.
#[derive(Debug, Clone)]
struct Open {
    name: String,
    /// Its `id`, made fit for a key, when it has one.
    anchor: Option<String>,
    /// Whether `translate="no"` is in effect.
    no: bool,
    /// How many `pre`, lists and block quotes are open, this element included.
    pre: u32,
    lists: u32,
    quotes: u32,
}

/// An attribute block waiting for its segment's block, so blocks stay in reading order.
struct Pending {
    key: String,
    role: Role,
    locked: bool,
    span: Range<usize>,
    hole: Range<usize>,
    runs: Vec<Run>,
}

struct Reader<'a, 'e> {
    text: &'a str,
    attrs: Vec<Attr>,
    stack: Vec<Open>,
    /// How many elements of each name are open.
    open_names: HashMap<String, usize>,
    out: Output<'e>,
    keys: Keys,
    pending: Vec<Pending>,
    /// Names of open inline `translate="no"` elements in the current segment.
    inline_no: Vec<String>,
    /// The index in the file's tokens of the segment's first token.
    seg_start: usize,
    /// The index in the file's tokens of the lexer's first held token (those before it
    /// are read and let go).
    base: usize,
    /// The index of `attrs[0]` among the file's attributes.
    attrs_base: usize,
    /// The first limit the file went past; reading stops there.
    error: Option<ReadError>,
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lexer = Lexer::new(text);
    let out = Output::new(INFO.id, skeleton, each);
    // A document kept whole is sized once, from all the tokens (a block per segment between
    // block tags, and per attribute, at most); one streamed is lexed as it is read, so only
    // the segment in hand's tokens are held.
    let bound = if out.streams() {
        lexer.begin(start);
        0
    } else {
        lexer.run(start);
        lexer
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, Kind::Start | Kind::End) && is_block(&t.name))
            .count()
            + lexer.attrs.len()
            + 1
    };
    let mut reader = Reader {
        text,
        attrs: Vec::new(),
        attrs_base: 0,
        base: 0,
        stack: Vec::new(),
        open_names: HashMap::new(),
        out,
        keys: Keys::new(text.len()),
        pending: Vec::new(),
        inline_no: Vec::new(),
        seg_start: 0,
        error: None,
    };
    reader.out.reserve(bound);
    reader.run(&mut lexer);
    if let Some(error) = reader.error {
        return Err(error);
    }
    Ok(reader.out)
}

/// The most tokens one segment (what lies between two block tags) holds, whatever they
/// become: tags inside a `translate="no"` element (one code whole), comments, or markup
/// with no prose around it (no block). A segment with prose is refused at more than
/// [`super::MAX_CODES`] tags and entities outside such elements, its block's codes; either
/// is refused with [`ReadError::TooDense`] before the reader holds more.
const SEGMENT_TOKENS: usize = 8 * super::MAX_CODES;

/// How many read tokens the reader lets go of at once.
const LET_GO: usize = 4096;

fn is_block(name: &str) -> bool {
    BLOCKS.contains(&name) || BLOCK_VOID.contains(&name)
}

/// A token that belongs to a segment's content (rather than its edges).
fn is_content(text: &str, token: &Token) -> bool {
    match token.kind {
        Kind::Text => !slice(text, &token.span).trim().is_empty(),
        Kind::Entity | Kind::Start | Kind::End => true,
        Kind::Comment | Kind::Decl | Kind::Raw => false,
    }
}

/// The class a tag's code gets.
fn tag_class(name: &str) -> &str {
    match name {
        "a" => "link",
        "img" | "image" => "image",
        "br" => "break",
        _ => name,
    }
}

/// An `id` value fit for a key: letters, digits, `-`, `_`, `.`, `:`; at most 64 chars.
fn anchor(id: &str) -> Option<String> {
    let id: String = id
        .trim()
        .chars()
        .take(64)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':') {
                c
            } else {
                '-'
            }
        })
        .collect();
    (!id.is_empty()).then_some(id)
}

impl<'a> Reader<'a, '_> {
    /// A held token's attributes.
    fn attrs_of(&self, token: &Token) -> Option<&[Attr]> {
        if token.attrs.is_empty() {
            return Some(&[]);
        }
        let from = token.attrs.start.checked_sub(self.attrs_base)?;
        self.attrs.get(from..from + token.attrs.len())
    }

    fn attr(&self, token: &Token, name: &str) -> Option<&'a str> {
        let text = self.text;
        self.attrs_of(token)?
            .iter()
            .find(|a| slice(text, &a.name).eq_ignore_ascii_case(name))
            .map(|a| a.value.as_ref().map_or("", |v| slice(text, v)))
    }

    /// `Some(true)` for `translate="no"` or class `notranslate`, `Some(false)` for
    /// `translate="yes"`, `None` to inherit.
    fn translate_no(&self, token: &Token) -> Option<bool> {
        if let Some(value) = self.attr(token, "translate") {
            let value = value.trim();
            if value.eq_ignore_ascii_case("no") {
                return Some(true);
            }
            if value.is_empty() || value.eq_ignore_ascii_case("yes") {
                return Some(false);
            }
        }
        self.attr(token, "class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|w| w == "notranslate"))
            .then_some(true)
    }

    fn run(&mut self, lexer: &mut Lexer<'a>) {
        let mut k = 0;
        // The segment counted (its first token), its codes, and whether it holds prose.
        let mut counted = (0usize, 0usize, false);
        loop {
            if self.error.is_some() {
                return;
            }
            if k - self.base >= lexer.tokens.len() && !lexer.step() {
                break;
            }
            lexer.hand_attrs(&mut self.attrs);
            let outside_no = self.inline_no.is_empty();
            self.step(&lexer.tokens, k);
            k += 1;
            // A segment's tags and entities become its block's codes (a `translate="no"`
            // element one code whole): past what a block may hold, or past what a segment
            // may hold in tokens, it is refused before more are held.
            if self.seg_start != counted.0 {
                counted = (self.seg_start, 0, false);
            } else if let Some(token) = lexer.tokens.get(k - 1 - self.base) {
                match token.kind {
                    Kind::Start | Kind::End | Kind::Entity if outside_no => counted.1 += 1,
                    Kind::Text if outside_no => counted.2 |= is_content(self.text, token),
                    _ => {}
                }
            }
            let (_, codes, prose) = counted;
            if prose && codes > super::MAX_CODES || k - self.seg_start > SEGMENT_TOKENS {
                let at = lexer.tokens.get(self.seg_start - self.base);
                self.error = Some(ReadError::too_dense(
                    self.text,
                    at.map_or(0, |t| t.span.start),
                ));
                return;
            }
            // Streamed, the tokens before the segment are done with, and the attributes before
            // theirs. (Read whole, the lexer holds every token already: letting go would only
            // shift the rest of the file, again and again.)
            if self.out.streams() && self.seg_start - self.base >= LET_GO {
                lexer.tokens.drain(..self.seg_start - self.base);
                self.base = self.seg_start;
                let held = self.attrs_base + self.attrs.len();
                let from = lexer
                    .tokens
                    .iter()
                    .find(|t| !t.attrs.is_empty())
                    .map_or(held, |t| t.attrs.start);
                self.attrs
                    .drain(..from.saturating_sub(self.attrs_base).min(self.attrs.len()));
                self.attrs_base = from.max(self.attrs_base);
            }
        }
        self.flush(&lexer.tokens, k);
    }

    /// Reads the token at index `k` of the file's, `tokens` holding those from `self.base`.
    fn step(&mut self, tokens: &[Token], k: usize) {
        let Some(token) = tokens.get(k - self.base) else {
            return;
        };
        {
            match token.kind {
                Kind::Start if is_block(&token.name) => {
                    self.flush(tokens, k);
                    let pushed = self.open_block(token);
                    let element = if pushed { None } else { Some(token) };
                    self.attribute_blocks(token, element, true);
                    self.seg_start = k + 1;
                }
                Kind::End if is_block(&token.name) => {
                    self.flush(tokens, k);
                    if self.open_names.get(&token.name).is_some_and(|&n| n > 0)
                        && let Some(at) = self.stack.iter().rposition(|o| o.name == token.name)
                    {
                        self.truncate(at);
                    }
                    self.seg_start = k + 1;
                }
                Kind::Start => {
                    let no = self.translate_no(token) == Some(true);
                    let void = token.self_closing || INLINE_VOID.contains(&token.name.as_str());
                    if !no && self.inline_no.is_empty() {
                        self.attribute_blocks(token, Some(token), false);
                    }
                    // Bounded like the block stack, so an end tag's search stays short.
                    if no && !void && self.inline_no.len() < MAX_DEPTH {
                        self.inline_no.push(token.name.clone());
                    }
                }
                Kind::End => {
                    if let Some(at) = self.inline_no.iter().rposition(|n| *n == token.name) {
                        self.inline_no.truncate(at);
                    }
                }
                _ => {}
            }
        }
    }

    /// Closes what a new block element implies, then opens it unless it is void or
    /// self-closed; returns whether it was pushed.
    fn open_block(&mut self, token: &Token) -> bool {
        let name = token.name.as_str();
        // Looks no deeper than MAX_SCAN elements, so deep broken nesting stays linear.
        let pop_to = |reader: &mut Self, targets: &[&str], bounds: &[&str]| {
            let len = reader.stack.len();
            for at in (len.saturating_sub(MAX_SCAN)..len).rev() {
                let n = reader.stack[at].name.as_str();
                if targets.contains(&n) {
                    reader.truncate(at);
                    return;
                }
                if bounds.contains(&n) {
                    return;
                }
            }
        };
        match name {
            "li" => pop_to(self, &["li"], &["ul", "ol", "menu", "dir", "table"]),
            "dt" | "dd" => pop_to(self, &["dt", "dd"], &["dl", "table"]),
            "td" | "th" => pop_to(self, &["td", "th"], &["tr", "table"]),
            "tr" => pop_to(self, &["tr"], &["table", "thead", "tbody", "tfoot"]),
            "thead" | "tbody" | "tfoot" => pop_to(self, &["thead", "tbody", "tfoot"], &["table"]),
            "option" => pop_to(self, &["option"], &["select", "datalist", "optgroup"]),
            "optgroup" => pop_to(self, &["option", "optgroup"], &["select"]),
            "body" => pop_to(self, &["head"], &["html"]),
            _ => {}
        }
        if let Some(top) = self.stack.last() {
            let heading = |n: &str| matches!(n, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
            if (top.name == "p" && CLOSES_P.contains(&name))
                || (heading(&top.name) && heading(name))
            {
                self.truncate(self.stack.len() - 1);
            }
        }
        if token.self_closing || BLOCK_VOID.contains(&name) {
            return false;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.error.get_or_insert(ReadError::too_deep(
                self.text,
                token.span.start,
                "block elements",
                MAX_DEPTH,
            ));
            return false;
        }
        let parent = self.stack.last();
        let inherited = parent.is_some_and(|o| o.no);
        let depth = |f: fn(&Open) -> u32, names: &[&str]| {
            parent.map_or(0, f) + u32::from(names.contains(&name))
        };
        let open = Open {
            name: token.name.clone(),
            anchor: self.attr(token, "id").and_then(anchor),
            no: self.translate_no(token).unwrap_or(inherited),
            pre: depth(|o| o.pre, &["pre", "listing"]),
            lists: depth(|o| o.lists, &["ul", "ol", "menu", "dir"]),
            quotes: depth(|o| o.quotes, &["blockquote"]),
        };
        *self.open_names.entry(open.name.clone()).or_default() += 1;
        self.stack.push(open);
        true
    }

    /// Closes the open elements from `at` up.
    fn truncate(&mut self, at: usize) {
        for open in self.stack.drain(at..) {
            if let Some(n) = self.open_names.get_mut(&open.name) {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// The element path of the stack, plus `element` when given.
    fn path(&self, element: Option<&Token>) -> String {
        let own = element.map(|t| (t.name.as_str(), self.attr(t, "id").and_then(anchor)));
        // Innermost first, up to the anchor or MAX_PATH elements: linear in neither the
        // depth nor the file.
        let mut segments: Vec<(&str, Option<&str>)> = Vec::new();
        let inner = own.as_ref().map(|(name, id)| (*name, id.as_deref()));
        let outer = self
            .stack
            .iter()
            .rev()
            .map(|o| (o.name.as_str(), o.anchor.as_deref()));
        for segment in inner.into_iter().chain(outer) {
            segments.push(segment);
            if segment.1.is_some() || segments.len() == MAX_PATH {
                break;
            }
        }
        let mut path = String::new();
        for (i, (name, id)) in segments.iter().rev().enumerate() {
            if i > 0 {
                path.push('/');
            }
            path.push_str(name);
            if i == 0
                && let Some(id) = id
            {
                path.push('[');
                path.push_str(id);
                path.push(']');
            }
        }
        path
    }

    /// Blocks for the translatable attributes of a start tag (`element` when it is not on
    /// the stack); `now` pushes them at once, else they wait for the segment's block.
    fn attribute_blocks(&mut self, token: &Token, element: Option<&Token>, now: bool) {
        let name = token.name.as_str();
        let Some(attrs) = self.attrs_of(token) else {
            return;
        };
        let text = self.text;
        let is = |attr: &Attr, names: &[&str]| {
            let n = slice(text, &attr.name);
            names.iter().any(|m| m.eq_ignore_ascii_case(n))
        };
        let candidate = |attr: &Attr| {
            is(attr, PROSE_ATTRS)
                || (name == "meta" && is(attr, &["content"]))
                || (name == "input" && is(attr, &["value"]))
        };
        if !attrs.iter().any(candidate)
            || self.stack.last().is_some_and(|o| o.no)
            || self.translate_no(token) == Some(true)
        {
            return;
        }
        let meta = name == "meta"
            && self
                .attr(token, "name")
                .or_else(|| self.attr(token, "property"))
                .is_some_and(|n| META_NAMES.iter().any(|m| m.eq_ignore_ascii_case(n.trim())));
        let button = name == "input"
            && self.attr(token, "type").is_some_and(|t| {
                ["submit", "reset", "button"]
                    .iter()
                    .any(|b| b.eq_ignore_ascii_case(t.trim()))
            });
        let mut found = Vec::new();
        for attr in attrs {
            let prose = is(attr, PROSE_ATTRS)
                || (meta && is(attr, &["content"]))
                || (button && is(attr, &["value"]));
            let Some(value) = attr.value.clone() else {
                continue;
            };
            if !prose || slice(text, &value).trim().is_empty() {
                continue;
            }
            found.push((slice(text, &attr.name).to_ascii_lowercase(), value));
        }
        if found.is_empty() {
            return;
        }
        let path = self.path(element);
        for (attr_name, value) in found {
            let runs = value_runs(self.text, value.clone());
            let pending = Pending {
                key: format!("{path}/@{attr_name}"),
                role: if meta { Role::Key } else { Role::Other },
                locked: false,
                span: token.span.clone(),
                hole: value,
                runs,
            };
            if now {
                self.push_pending(pending);
            } else {
                self.pending.push(pending);
            }
        }
    }

    /// A unique key for `base`; past the key budget, the error is kept and reading stops.
    fn key(&mut self, base: &str, at: usize) -> String {
        match self.keys.key(base, self.text, at) {
            Ok(key) => key,
            Err(e) => {
                self.error.get_or_insert(e);
                String::new()
            }
        }
    }

    fn push_pending(&mut self, p: Pending) {
        let key = self.key(&p.key, p.span.start);
        let mut block = Block::new(key, p.role, p.runs);
        if p.locked {
            block.translatable = false;
            block.locked = Some("translate=\"no\"".into());
        }
        block.span = p.span;
        let index = self.out.index();
        self.out.skeleton.hole(p.hole, index, &block.source);
        self.out.push(self.text, block);
    }

    /// Role and level of a segment in the innermost open block.
    fn role(&self) -> (Role, u32) {
        let Some(open) = self.stack.last() else {
            return (Role::Paragraph, 0);
        };
        if open.pre > 0 {
            return (Role::Code, 0);
        }
        let top = open.name.as_str();
        match top {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = top.get(1..).and_then(|n| n.parse().ok()).unwrap_or(1);
                (Role::Heading, level)
            }
            "li" => (Role::ListItem, open.lists.max(1)),
            "td" | "th" => (Role::TableCell, 0),
            "title" | "button" | "label" | "option" | "optgroup" | "legend" | "summary"
            | "textarea" | "select" => (Role::Other, 0),
            _ => match open.quotes {
                0 => (Role::Paragraph, 0),
                depth => (Role::Quote, depth),
            },
        }
    }

    /// Ends the segment before token `end`: a block when it holds prose, then the
    /// attribute blocks of its tags.
    /// Ends the segment at the file's token `end` (`tokens` holding those from `self.base`).
    fn flush(&mut self, tokens: &[Token], end: usize) {
        let (from, to) = (
            self.seg_start.saturating_sub(self.base),
            end.saturating_sub(self.base),
        );
        let seg = tokens.get(from..to).unwrap_or_default();
        let text = self.text;
        let first = seg.iter().position(|t| is_content(text, t));
        let last = seg.iter().rposition(|t| is_content(text, t));
        if let (Some(first), Some(last)) = (first, last)
            && let Some(content) = seg.get(first..=last)
            && content
                .iter()
                .any(|t| t.kind == Kind::Text && !slice(text, &t.span).trim().is_empty())
        {
            self.segment_block(content);
        }
        for p in std::mem::take(&mut self.pending) {
            self.push_pending(p);
        }
        self.inline_no.clear();
    }

    fn segment_block(&mut self, content: &[Token]) {
        let text = self.text;
        let (Some(head), Some(tail)) = (content.first(), content.last()) else {
            return;
        };
        let start = if head.kind == Kind::Text {
            let t = slice(text, &head.span);
            head.span.start + (t.len() - t.trim_start().len())
        } else {
            head.span.start
        };
        let end = if tail.kind == Kind::Text {
            tail.span.start + slice(text, &tail.span).trim_end().len()
        } else {
            tail.span.end
        };
        let (runs, all_code) = self.runs(content, start..end);
        // Prose that sat only inside `translate="no"` elements leaves nothing to read.
        if !runs
            .iter()
            .any(|r| matches!(r, Run::Text { text, .. } if !text.trim().is_empty()))
        {
            return;
        }
        let (mut role, mut level) = self.role();
        if all_code {
            (role, level) = (Role::Code, 0);
        }
        let no = self.stack.last().is_some_and(|o| o.no);
        let path = self.path(None);
        let key = self.key(if path.is_empty() { "text" } else { &path }, start);
        let mut block = Block::new(key, role, runs);
        block.level = level;
        block.translatable = role != Role::Code && !no;
        if no {
            block.locked = Some("translate=\"no\"".into());
        }
        block.span = start..end;
        let index = self.out.index();
        self.out.skeleton.hole(start..end, index, &block.source);
        self.out.push(self.text, block);
    }

    /// The runs of a segment's content clipped to `hole`, and whether all its prose lies
    /// inside code elements.
    fn runs(&self, content: &[Token], hole: Range<usize>) -> (Vec<Run>, bool) {
        let text = self.text;
        // Pair tags: partner[i] is the index of the matching open or close.
        let mut partner: Vec<Option<usize>> = vec![None; content.len()];
        let mut open: Vec<usize> = Vec::new();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for (i, t) in content.iter().enumerate() {
            match t.kind {
                Kind::Start if !t.self_closing && !INLINE_VOID.contains(&t.name.as_str()) => {
                    open.push(i);
                    *counts.entry(t.name.as_str()).or_default() += 1;
                }
                Kind::End if counts.get(t.name.as_str()).is_some_and(|&n| n > 0) => {
                    if let Some(at) = open.iter().rposition(|&o| content[o].name == t.name) {
                        let o = open[at];
                        for &closed in &open[at..] {
                            if let Some(n) = counts.get_mut(content[closed].name.as_str()) {
                                *n = n.saturating_sub(1);
                            }
                        }
                        open.truncate(at);
                        partner[o] = Some(i);
                        partner[i] = Some(o);
                    }
                }
                _ => {}
            }
        }
        let mut ids = Ids::default();
        let mut close_ids: BTreeMap<usize, String> = BTreeMap::new();
        let mut runs = Vec::with_capacity(content.len());
        let mut code_depth = 0usize;
        let mut prose_outside_code = false;
        let mut i = 0;
        while i < content.len() {
            let t = &content[i];
            let span = t.span.start.max(hole.start)..t.span.end.min(hole.end);
            let data = slice(text, &span);
            let name = t.name.as_str();
            let mut next = i + 1;
            match t.kind {
                Kind::Text => {
                    if !data.is_empty() {
                        if code_depth == 0 && !data.trim().is_empty() {
                            prose_outside_code = true;
                        }
                        runs.push(Run::text_at(data, span.start));
                    }
                }
                Kind::Entity => runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    "entity",
                    data,
                    true,
                    span.start,
                )),
                Kind::Comment => runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    "comment",
                    data,
                    false,
                    span.start,
                )),
                Kind::Decl => runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    "markup",
                    data,
                    false,
                    span.start,
                )),
                Kind::Raw => runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    name,
                    data,
                    false,
                    span.start,
                )),
                Kind::Start => match partner[i] {
                    Some(close) if self.translate_no(t) == Some(true) => {
                        let whole = t.span.start..content[close].span.end;
                        runs.push(code(
                            ids.next(),
                            CodeKind::Standalone,
                            "notranslate",
                            slice(text, &whole),
                            false,
                            whole.start,
                        ));
                        next = close + 1;
                    }
                    Some(close) => {
                        let id = ids.next();
                        close_ids.insert(close, id.clone());
                        let mut c = code(
                            id,
                            CodeKind::Open,
                            tag_class(name),
                            data,
                            FORMATTING.contains(&name),
                            span.start,
                        );
                        if name == "a"
                            && let Run::Code(c) = &mut c
                            && let Some(href) = self.attr(t, "href")
                        {
                            c.attrs.insert("href".into(), href.into());
                        }
                        if CODE_INLINE.contains(&name) {
                            code_depth += 1;
                        }
                        runs.push(c);
                    }
                    None => {
                        let deletable = FORMATTING.contains(&name);
                        runs.push(code(
                            ids.next(),
                            CodeKind::Standalone,
                            tag_class(name),
                            data,
                            deletable,
                            span.start,
                        ));
                    }
                },
                Kind::End => match close_ids.remove(&i) {
                    Some(id) => {
                        if CODE_INLINE.contains(&name) {
                            code_depth = code_depth.saturating_sub(1);
                        }
                        runs.push(code(
                            id,
                            CodeKind::Close,
                            tag_class(name),
                            data,
                            FORMATTING.contains(&name),
                            span.start,
                        ));
                    }
                    None => runs.push(code(
                        ids.next(),
                        CodeKind::Standalone,
                        tag_class(name),
                        data,
                        false,
                        span.start,
                    )),
                },
            }
            i = next;
        }
        (runs, !prose_outside_code)
    }
}

fn code(id: String, kind: CodeKind, class: &str, data: &str, deletable: bool, src: usize) -> Run {
    Run::Code(Box::new(
        Code::new(id, kind, class, data, deletable).at(src),
    ))
}

/// An attribute value's runs: text and references.
fn value_runs(text: &str, value: Range<usize>) -> Vec<Run> {
    let b = text.as_bytes();
    let mut ids = Ids::default();
    let mut runs = Vec::new();
    let mut i = value.start;
    let mut from = value.start;
    while let Some(off) = b
        .get(i..value.end)
        .and_then(|r| r.iter().position(|&c| c == b'&'))
    {
        i += off;
        match entity_end(b, i).filter(|&e| e <= value.end) {
            Some(end) => {
                if i > from {
                    runs.push(Run::text_at(slice(text, &(from..i)), from));
                }
                runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    "entity",
                    slice(text, &(i..end)),
                    true,
                    i,
                ));
                i = end;
                from = end;
            }
            None => i += 1,
        }
    }
    if value.end > from {
        runs.push(Run::text_at(slice(text, &(from..value.end)), from));
    }
    runs
}

// ---------------------------------------------------------------------------------------
// Writing

/// Where a hole's text sits, which decides its escaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Text,
    /// An attribute value in these quotes.
    Quoted(char),
    /// An attribute value without quotes.
    Bare,
}

fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let skeleton = &parsed.skeleton;
    let original = skeleton.text();
    let mut holes: Vec<&Hole> = skeleton.holes.iter().collect();
    holes.sort_by(|a, b| {
        a.span
            .start
            .cmp(&b.span.start)
            .then(b.span.end.cmp(&a.span.end))
    });
    let writer = Writer {
        document: &parsed.document,
        original,
    };
    let mut out = String::with_capacity(original.len());
    let mut at = 0;
    let mut i = 0;
    while let Some(&top) = holes.get(i) {
        let mut j = i + 1;
        while holes
            .get(j)
            .is_some_and(|h| h.span.start >= top.span.start && h.span.end <= top.span.end)
        {
            j += 1;
        }
        let Some(before) = original.get(at..top.span.start) else {
            return Err(WriteError::Skeleton {
                message: format!("hole {:?} overlaps the one before it", top.span),
            });
        };
        out.push_str(before);
        writer.hole(top, holes.get(i + 1..j).unwrap_or_default(), &mut out)?;
        at = top.span.end;
        i = j;
    }
    out.push_str(original.get(at..).unwrap_or_default());
    skeleton.encode(out.into_bytes())
}

struct Writer<'a> {
    document: &'a Document,
    original: &'a str,
}

impl Writer<'_> {
    fn edited(&self, hole: &Hole) -> Option<&[Run]> {
        hole_runs(self.document, hole).filter(|runs| fingerprint_runs(runs) != hole.original)
    }

    fn context(&self, hole: &Hole) -> Context {
        let attribute = self
            .document
            .blocks
            .get(hole.block)
            .is_some_and(|b| b.key.contains("/@"));
        if !attribute {
            return Context::Text;
        }
        let b = self.original.as_bytes();
        let before = hole
            .span
            .start
            .checked_sub(1)
            .and_then(|i| b.get(i))
            .copied();
        match before {
            Some(q @ (b'"' | b'\'')) if b.get(hole.span.end) == Some(&q) => {
                Context::Quoted(char::from(q))
            }
            _ => Context::Bare,
        }
    }

    /// Writes a top-level hole and the holes nested in it (attributes of its tags).
    fn hole(&self, top: &Hole, nested: &[&Hole], out: &mut String) -> Result<(), WriteError> {
        let held = |span: &Range<usize>| {
            self.original
                .get(span.clone())
                .ok_or_else(|| WriteError::Skeleton {
                    message: format!("hole {span:?} lies outside the file"),
                })
        };
        match self.edited(top) {
            None => {
                let mut at = top.span.start;
                for hole in nested {
                    if hole.span.start < at {
                        continue;
                    }
                    out.push_str(held(&(at..hole.span.start))?);
                    match self.edited(hole) {
                        Some(runs) => self.render(hole, runs, &[], out),
                        None => out.push_str(held(&hole.span)?),
                    }
                    at = hole.span.end;
                }
                out.push_str(held(&(at..top.span.end))?);
            }
            Some(runs) => self.render(top, runs, nested, out),
        }
        Ok(())
    }

    /// Renders edited runs with the hole's escaping; a code read from the file gets the
    /// edited attribute holes inside it and its changed attrs.
    fn render(&self, hole: &Hole, runs: &[Run], nested: &[&Hole], out: &mut String) {
        let context = self.context(hole);
        let mut value = String::new();
        self.render_runs(runs, nested, context, &mut value);
        if context == Context::Bare
            && (value.is_empty()
                || value
                    .bytes()
                    .any(|c| is_space(c) || matches!(c, b'"' | b'\'' | b'=' | b'<' | b'>' | b'`')))
        {
            out.push('"');
            out.push_str(&value.replace('"', "&quot;"));
            out.push('"');
        } else {
            out.push_str(&value);
        }
    }

    fn render_runs(&self, runs: &[Run], nested: &[&Hole], context: Context, out: &mut String) {
        let mut pending = String::new();
        for run in runs {
            match run {
                Run::Text { text, .. } => pending.push_str(text),
                Run::Code(code) => {
                    escape(&pending, context, out);
                    pending.clear();
                    self.render_code(code, nested, out);
                }
                Run::Switch(switch) => {
                    escape(&pending, context, out);
                    pending.clear();
                    out.push_str(&switch.head);
                    for branch in &switch.branches {
                        out.push_str(&branch.open);
                        self.render_runs(&branch.runs, nested, context, out);
                        out.push_str(&branch.close);
                    }
                    out.push_str(&switch.tail);
                }
            }
        }
        escape(&pending, context, out);
    }

    fn render_code(&self, code: &Code, nested: &[&Hole], out: &mut String) {
        let mut data = Cow::Borrowed(code.data.as_str());
        if let Some(src) = code.src
            && self.original.get(src..src + code.data.len()) == Some(code.data.as_str())
        {
            let inside: Vec<&&Hole> = nested
                .iter()
                .filter(|h| h.span.start >= src && h.span.end <= src + code.data.len())
                .collect();
            if inside.iter().any(|h| self.edited(h).is_some()) {
                let mut filled = String::new();
                let mut at = src;
                for hole in inside {
                    if hole.span.start < at {
                        continue;
                    }
                    filled.push_str(self.original.get(at..hole.span.start).unwrap_or_default());
                    match self.edited(hole) {
                        Some(runs) => self.render(hole, runs, &[], &mut filled),
                        None => filled
                            .push_str(self.original.get(hole.span.clone()).unwrap_or_default()),
                    }
                    at = hole.span.end;
                }
                filled.push_str(
                    self.original
                        .get(at..src + code.data.len())
                        .unwrap_or_default(),
                );
                data = Cow::Owned(filled);
            }
        }
        if !code.attrs.is_empty() {
            data = Cow::Owned(with_attrs(&data, &code.attrs));
        }
        out.push_str(&data);
    }
}

/// Escapes edited text for its context.
fn escape(text: &str, context: Context, out: &mut String) {
    let b = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '&' if entity_end(b, i).is_some() => out.push_str("&amp;"),
            '<' if context == Context::Text
                && b.get(i + 1)
                    .is_none_or(|n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')) =>
            {
                out.push_str("&lt;")
            }
            '"' if context == Context::Quoted('"') => out.push_str("&quot;"),
            '\'' if context == Context::Quoted('\'') => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
}

/// A start tag with its attributes set to `attrs` (values as written), changing only the
/// values that differ and adding missing ones before the tag's end.
fn with_attrs(tag: &str, attrs: &BTreeMap<String, String>) -> String {
    let mut lexer = Lexer::new(tag);
    if !tag.starts_with('<') || !tag.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) {
        return tag.to_owned();
    }
    let Some((token, end)) = lexer.parse_tag(0) else {
        return tag.to_owned();
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (name, value) in attrs {
        let found = lexer.attrs[token.attrs.clone()]
            .iter()
            .find(|a| slice(tag, &a.name).eq_ignore_ascii_case(name));
        match found {
            Some(Attr {
                value: Some(span), ..
            }) if slice(tag, span) == value => {}
            Some(Attr {
                value: Some(span), ..
            }) => {
                let b = tag.as_bytes();
                let quoted = span
                    .start
                    .checked_sub(1)
                    .and_then(|i| b.get(i))
                    .is_some_and(|q| matches!(q, b'"' | b'\''));
                let new = if quoted {
                    let q = b.get(span.start - 1).copied().unwrap_or(b'"');
                    if q == b'"' {
                        value.replace('"', "&quot;")
                    } else {
                        value.replace('\'', "&#39;")
                    }
                } else {
                    format!("\"{}\"", value.replace('"', "&quot;"))
                };
                edits.push((span.clone(), new));
            }
            Some(Attr {
                name: n,
                value: None,
            }) => {
                edits.push((
                    n.end..n.end,
                    format!("=\"{}\"", value.replace('"', "&quot;")),
                ));
            }
            None => {
                let close = if token.self_closing { end - 2 } else { end - 1 };
                let mut at = close;
                while at > 0 && tag.as_bytes().get(at - 1).is_some_and(|&c| is_space(c)) {
                    at -= 1;
                }
                edits.push((
                    at..at,
                    format!(" {name}=\"{}\"", value.replace('"', "&quot;")),
                ));
            }
        }
    }
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(tag.len() + 16);
    let mut at = 0;
    for (span, new) in edits {
        if span.start < at {
            continue;
        }
        out.push_str(tag.get(at..span.start).unwrap_or_default());
        out.push_str(&new);
        at = span.end;
    }
    out.push_str(tag.get(at..).unwrap_or_default());
    out
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Html, "html") > 0);
    }
}

#[cfg(test)]
mod tests;
