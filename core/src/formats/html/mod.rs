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

mod elements;
mod lexer;
mod markup;
mod reader;
mod runs;
mod write;

use std::borrow::Cow;

use super::{Capabilities, Encoding, Format, FormatInfo, Parsed, ReadError, WriteError};
use lexer::{Lexer, slice};
use reader::read_text;
use write::write;

pub const INFO: FormatInfo = FormatInfo {
    id: "html",
    name: "HTML",
    extensions: &["html", "htm", "xhtml"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

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

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Html, "html") > 0);
    }
}

#[cfg(test)]
mod tests;
