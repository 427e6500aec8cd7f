//! reStructuredText (`.rst`, and reST in `.txt` when a collection says `format: rst`): read by
//! kapi's own block scanner into the Markdown-like model, written back through a skeleton.
//!
//! # Why a scanner of kapi's own
//! No crate gives the byte positions a skeleton writer needs: `rst_parser` (rust-rst) and
//! `docutils-core` build trees without positions, and `tree-sitter-rst` has no tables and
//! leaves directive bodies unparsed. The scanner follows docutils' rules for the constructs
//! real documentation uses (module `blocks`, `tables`, `inline`); it costs no dependency but
//! `unicode-width` (a table's columns are display columns, as docutils measures them).
//!
//! # Blocks and keys
//! Keys are by position, as Markdown's: `top/<kind>` before the first title, `s<n>/h` for the
//! n-th title and `s<n>/<kind>` (`s3/p#2`) for the blocks of its section, each with a label
//! from the title's words (`install/p#2`) ([`super::sections`]). The kinds:
//! - `h`: a section title (underlined, or over- and underlined), role heading, its level the
//!   order in which its adornment style first appears, as docutils assigns levels;
//! - `p`: a paragraph (in a directive's content too: an admonition's, a figure's caption, a
//!   domain object's description); `quote`: a block quote's;
//! - `li`: a bullet, enumerated or option list item's paragraphs; `field`: a field list
//!   body's (`:param x: …`), the field name left out; `term` and `def`: a definition list's;
//!   `footnote`: a footnote's or citation's; `line`: one line of a line block;
//! - `cell`: a grid or simple table's cell, in reading order;
//! - `title`: the title a directive takes as its argument (`admonition`, `topic`, `rubric`,
//!   `table`, `dropdown`…), role heading;
//! - `code`: a literal block (after `::`), a doctest block, a code directive's content
//!   (`code-block`, `math`, `raw`, `csv-table`…), not translatable.
//!
//! Comments, hyperlink targets, substitution definitions, directive arguments that are code
//! (a signature, a path), options, and the content of `toctree`, `index`, `image`,
//! `literalinclude` and the like are no block. A directive kapi does not know holds prose.
//!
//! # Runs
//! Every text run is a verbatim slice of the file, so findings point at the file's own line
//! and column; markup is codes (module `inline`). A paragraph's closing `::` (the literal
//! block's marker, shown as `:` after a word) is a code an edit keeps, so an edited paragraph
//! still introduces its literal block.
//!
//! # Writing
//! Untouched blocks copy their bytes. An edited block is rendered from its runs: a line break
//! becomes the block's line ending and the indentation of its first line's text (so a list
//! item's, a field's or an admonition's text stays in its body), consecutive breaks one;
//! text that would read as markup is escaped with a backslash (`*`, `` ` ``, `|` and `_` where
//! they would start or end markup, a backslash, a line that would start a list, a field,
//! an explicit markup block or an adornment, and a closing `::`). A title is written with its
//! over- and underline lengthened to the new title's width. A table cell on one line is
//! padded to its column's width; an edit wider than the column widens the column on every line
//! of the table (module `widen`; the last column of a simple table has no edge). A cell over
//! several lines is locked.
//!
//! # Capabilities
//! editable and round_trip: an edit rewrites only its block's bytes. Not generative: a reST
//! file is the author's structure (titles, directives, tables), which the content model does
//! not hold, so kapi edits a file and never authors one.
mod blocks;
mod inline;
mod tables;
#[cfg(test)]
mod tests;
mod widen;
mod write;

use super::output::Output;
use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, Skeleton, WriteError};

pub const INFO: FormatInfo = FormatInfo {
    id: "rst",
    name: "reStructuredText",
    extensions: &["rst", "rest"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

pub struct Rst;

impl Format for Rst {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(parsed)
    }

    /// A table cell's edit may widen its table: the table's lines.
    fn extent(&self, text: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
        widen::table_extent(text, span.clone()).unwrap_or(span)
    }
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let out = Output::new(INFO.id, skeleton, each);
    blocks::Reader::new(text, out).read()
}
