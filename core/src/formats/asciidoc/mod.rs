//! AsciiDoc (`.adoc`, `.asciidoc`, `.asc`): read by kapi's own block scanner into the
//! Markdown-like model, written back through a skeleton.
//!
//! # Why a scanner of kapi's own
//! `asciidoc-parser` and `acdc-parser` keep positions, but both parse a preprocessed text:
//! includes and conditionals resolved, the final newline dropped, offsets in the preprocessed
//! text. A skeleton writer needs the file's own bytes, every `ifdef::` line and the lines of an
//! untaken branch included, so kapi reads the file as it stands (module `blocks`, `inline`),
//! at no dependency. Preprocessor lines are markup kapi keeps and never resolves: a file's
//! included text is checked in the file it lives in.
//!
//! # Blocks and keys
//! Keys are by position, as Markdown's and reStructuredText's: `top/<kind>` before the first
//! title, `s<n>/h` for the n-th title (the document title `= Title` is the first), and
//! `s<n>/<kind>` (`s3/p#2`) for the blocks of its section, each with a label from the title's
//! words (`install/p#2`). The kinds: `h` (a section title, its level by its `=` marks), `p` (a
//! paragraph, an admonition paragraph's text after `NOTE: `, and the paragraphs of an example,
//! sidebar, open or admonition block), `quote` (a quote block's, a verse), `li` (a list item's
//! text and the paragraphs attached to it with `+`), `term` and `def` (a description list's),
//! `title` (a block title `.Title`, role heading), `cell` (a table cell), `code` (listing,
//! literal, passthrough and fenced blocks, an indented literal paragraph, a block styled
//! `source`/`listing`/`literal`, a CSV table; not translatable).
//!
//! # Runs
//! Every text run is a verbatim slice of the file, so findings point at the file's own line and
//! column. Inline markup is codes (module `inline`): formatting pairs around prose, monospace,
//! passthroughs, attribute references (`{name}`), inline macros (`kbd:[…]`, `image:…[]`),
//! anchors, URLs; a link's, cross reference's and footnote's text is prose between codes.
//!
//! # Writing
//! Untouched blocks copy their bytes. An edited block is rendered from its runs (module
//! `write`): a line break becomes the block's line ending and its second line's indentation,
//! consecutive breaks one; a new line that would start a block (a list marker, `.Title`,
//! `[attrs]`, a delimiter, `NOTE: `, `//`) starts with `{empty}`; markup the new text would
//! make is escaped with a backslash, found by reading the block again; a table cell's `|` is
//! escaped; a two-line title's underline takes the new title's width. Table cells are not
//! padded: AsciiDoc's cells have no fixed width.
//!
//! # Capabilities
//! editable and round_trip: an edit rewrites only its block's bytes. Not generative: a file's
//! structure (sections, blocks, attributes, includes) is the author's, which the content model
//! does not hold.
mod blocks;
mod inline;
#[cfg(test)]
mod tests;
mod write;

use super::output::Output;
use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, Skeleton, WriteError};

pub const INFO: FormatInfo = FormatInfo {
    id: "asciidoc",
    name: "AsciiDoc",
    extensions: &["adoc", "asciidoc", "asc"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

pub struct AsciiDoc;

impl Format for AsciiDoc {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(parsed)
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
