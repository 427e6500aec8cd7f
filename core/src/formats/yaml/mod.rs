//! YAML catalogs (Rails i18n, Symfony translations, app config): every string value is a
//! block keyed by its path of mapping keys, read by a hand-written scanner with exact spans.
//!
//! # Blocks and keys
//! Every string scalar is one block of role `key`. Its key is the dot path of the mapping
//! keys above it (`activerecord.errors.messages.blank`); a sequence item adds its 0-based
//! index (`date.day_names.0`, `date.day_names.1`). In a key segment a `.`, a `#` and a
//! backslash are escaped with a backslash (`"a.b": x` is `a\.b`), so a path is unambiguous
//! and no segment ends in something that reads as a [`KeyDeduper`](crate::model::KeyDeduper) suffix. A plain key is
//! used as written (`1`, `true`); a flow collection used as a key is its source text.
//! Repeats (a duplicate key, a later document of a `---` stream) are numbered
//! `key#2`. The level is the path depth minus one. Comment lines just above a key whose
//! value is a block (a string or a plural map) are that block's notes.
//!
//! Rails layout: when a document's only root key is a language tag (`en`, `fr`, `pt-BR`,
//! `zh-CN`, `sr-Latn`) holding a mapping, the tag is not part of the keys, so `en.yml` and
//! `fr.yml` read with the same keys; the `en:` line stays in the skeleton.
//!
//! Strings are plain, single- and double-quoted scalars (one line or several), literal `|`
//! and folded `>` block scalars (any chomping and indentation indicator), in block or flow
//! collections, tagged `!!str`/`!` or untagged. Not blocks: aliases (`*a`, the anchored
//! value is the block), plain scalars that resolve to null (`~`, `null`, empty), booleans
//! (`true false yes no on off`), numbers, dates and Ruby symbols (`:day`), and any scalar
//! with another tag.
//!
//! Rails plural maps: a mapping whose keys are all CLDR categories (`zero one two few many
//! other`), with `other` among them and a string under each, is ONE block at the mapping's
//! path whose source is a plural switch (pivot `count`) with one branch per key in file
//! order, and one skeleton hole per branch (`count:one`, `count:other`).
//!
//! # Codes
//! Placeholders and markup become inline codes through [`placeholders::split`](crate::formats::inline::placeholders::split): Ruby
//! `%{x}` and `%<x>s`, `{{x}}`, `{x}`, printf (`%s`, `%1$d`, `%d` of a date format) and
//! HTML tags and entities. Text runs carry file offsets when the value is a verbatim slice
//! of the file (one-line plain, or quoted without escapes).
//!
//! # Skeleton and writing
//! A hole is the whole scalar as written: quotes included, and for a block scalar its
//! header (`|-2 # comment`) and content lines (a `|+` scalar also holds its trailing blank
//! lines, but not the last line break). Everything else (comments, anchors, tags, keys,
//! document markers, directives, a BOM, CRLF line endings, blank lines) is skeleton and
//! copied byte for byte. An edited value is written in its original style when it can
//! be: plain stays plain unless it would need quoting (leading or trailing space, `: `,
//! ` #`, an indicator first, flow indicators inside a flow collection, a line break, or a
//! word that would read as null, a boolean or a number); single quotes double a `'`;
//! literal and folded scalars keep their indentation and comment and take the chomping the
//! new text needs. Every rendering is read back with this scanner, and when it would not
//! give the same text, or the style cannot hold it, the value is written double-quoted on
//! one line with `\"`, `\\` and escapes for control characters and line breaks.
//!
//! The scanner follows YAML 1.2 where libyaml keeps 1.1 rules: a plain scalar may start
//! with `:` inside a flow collection (`order: [:day, :month]`, which Rails files hold).
//! Block scalars follow libyaml's indentation rules.
//!
//! Malformed YAML (an unterminated quote or flow collection, a tab used for indentation,
//! a line indented to no level, `key: value: x`) is a [`ReadError`] at its line and column.
//! Collections nest at most 100 deep ([`ReadError::TooDeep`]: the scanner recurses), and
//! block keys may add up to four times the file's size plus 16 MB ([`super::KeyBudget`]: a long key
//! repeats in the key of every value under it).
//!
//! ```yaml
//! en:                       # Rails root: not part of the keys
//!   greeting: Hello %{name} # `greeting`: "Hello ", code %{name}
//!   inbox:                  # `inbox`: one block, a plural switch
//!     one: 1 message        #   branch count:one
//!     other: "%{count} messages"
//!   days: [Mon, Tue]        # `days.0`, `days.1`
//! ```

mod blocks;
mod flow;
mod scalars;
mod scanner;
mod tree;
mod write;

use std::collections::{HashMap, HashSet};

use super::inline::placeholders::Syntaxes;
use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, WriteError};
use blocks::read_text;
use scanner::{Harvest, Parser};
#[cfg(test)]
use tree::Node;
use tree::Scalar;
use write::{first_line_ending, render};

pub const INFO: FormatInfo = FormatInfo {
    id: "yaml",
    name: "YAML",
    extensions: &["yaml", "yml"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// The placeholder syntaxes of YAML catalogs: Rails, i18next-style and ICU-style
/// arguments, printf and HTML.
const SYNTAXES: Syntaxes = Syntaxes {
    brace: true,
    double_brace: true,
    printf: true,
    dollar: false,
    ruby: true,
    html: true,
};

/// Deepest nesting of collections the scanner follows before refusing the file: below the
/// other readers' [`super::MAX_DEPTH`], because this scanner recurses (100 levels stay far
/// inside a 2 MB thread stack in a debug build; the deepest real catalog seen nests 6).
const MAX_DEPTH: usize = 100;

pub struct Yaml;

impl Format for Yaml {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let text = parsed.skeleton.text();
        let newline = first_line_ending(text);
        // The styles of the edited scalars, read again only when some hole was edited (and
        // only theirs are kept: a catalog's every scalar would outweigh the file).
        let mut scalars: Option<HashMap<usize, Scalar>> = None;
        parsed.skeleton.fill(&parsed.document, |hole, runs| {
            if scalars.is_none() {
                let edited: HashSet<usize> = parsed
                    .skeleton
                    .holes
                    .iter()
                    .filter(|h| {
                        super::hole_runs(&parsed.document, h)
                            .is_some_and(|r| crate::model::fingerprint_runs(r) != h.original)
                    })
                    .map(|h| h.span.start)
                    .collect();
                scalars = Some(scalars_at(text, edited).map_err(|e| WriteError::Skeleton {
                    message: format!("the original YAML no longer reads: {e}"),
                })?);
            }
            let scalar = scalars
                .as_ref()
                .and_then(|map| map.get(&hole.span.start))
                .ok_or_else(|| WriteError::Skeleton {
                    message: format!("no scalar starts at byte {}", hole.span.start),
                })?;
            let mut value = String::new();
            super::render_runs(runs, &mut value, &mut |t, out| out.push_str(t));
            Ok(render(&value, scalar, text, newline))
        })
    }
}

/// Reads every document of a YAML stream.
#[cfg(test)]
fn parse(text: &str) -> Result<Vec<Node<'_>>, ReadError> {
    Parser::over(text)?.stream()
}

/// The scalars of a YAML stream that start at `wanted` offsets, read without keeping its tree:
/// each collection hands its scalars over as it ends and is kept empty (the writer needs the
/// edited scalars' styles, and a catalog's tree is three times the file).
fn scalars_at(text: &str, wanted: HashSet<usize>) -> Result<HashMap<usize, Scalar<'_>>, ReadError> {
    let mut parser = Parser::over(text)?;
    parser.harvest = Some(Harvest {
        wanted,
        found: HashMap::new(),
    });
    let docs = parser.stream()?;
    let mut harvest = parser.harvest.take().unwrap_or_default();
    for doc in docs {
        harvest.take(doc);
    }
    Ok(harvest.found)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Yaml, "yaml") > 0);
    }
}
