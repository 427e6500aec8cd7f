//! gettext PO and POT catalogs: one block per message, its `msgid` as the source edition
//! and its `msgstr` as the target edition of the header's `Language:`.
//!
//! # Blocks and keys
//! Every message but the header (the entry with an empty `msgid` and no `msgctxt`) is a
//! block of role `key`. Its key is the catalog key gettext looks it up by, written readably:
//! the `msgid` text, or `msgctxt|msgid` when the message has a context. Both parts are
//! written with PO escapes (`\n`, `\t`, `\"`, `\\`…) and a `|` inside either part as `\|`,
//! so the only bare `|` is the separator and no two messages share a key by accident; a
//! repeated key (the same message in two `domain` sections) becomes `key#2`.
//!
//! # Editions
//! The source edition holds the `msgid` text; the target edition, named by the header's
//! `Language:` (`zh_CN` as `zh-CN`, `sr@latin` as `sr-Latn`; `target` when the header names
//! none, as in a POT file, or a value that is no BCP 47 tag, as `persian`, which
//! [`header_language`] names for the surfaces to report), holds the `msgstr` text. An empty `msgstr` still gives an (empty)
//! target edition with a hole, so a translation can be written into it. The target's state
//! is `fuzzy` when the `#,` flags say so, else `translated` when some `msgstr` is not empty,
//! else none; the writer writes it back as the `fuzzy` flag (see Writing), so a state of
//! `fuzzy` or `translated` reads back as written (none reads back as `translated` once the
//! `msgstr` has text).
//!
//! A plural message is one [`Switch`](crate::model::Switch) per edition (kind plural, pivot `n`): the source has
//! branches `one` (`msgid`) and `other` (`msgid_plural`); the target has one branch per
//! `msgstr[i]`, named by the CLDR category of `Language:` that the header's own `plural=`
//! formula gives it ([`crate::plurals`]: Russian `nplurals=3` is `one few many`, Django's
//! Russian `nplurals=4` `one few many other`), else `other` for one form, `one other` for
//! two, `form0`, `form1`… past them. Each branch has its own hole (`n:one`, `n:few`). The
//! target switch carries the forms the header asks for and its fault, if any
//! ([`crate::model::Switch::forms`]), for the `plurals` check.
//!
//! # Codes
//! Placeholders are standalone codes chosen by the message's flags: `c-format`,
//! `python-format` (with Django's `%(name)s`), `javascript-format`, `php-format` and other
//! printf-like flags give printf codes; `python-brace-format`, `java-format` and
//! `csharp-format` give brace codes (`{name}`, `{0}`, `{}`); a message with no format flag reads
//! both printf and brace placeholders, and a `no-…-format` flag turns its syntax off. Codes
//! are found by a byte scanner that gives what [`super::inline::placeholders::split`] gives for those two
//! syntaxes, except that a placeholder inside HTML (`<a href="%(url)s">`) is still a code;
//! HTML itself is text: PO strings hold an application's text, not markup of this file.
//! `{{` and `}}` are literal braces. Translator comments (`#`) and extracted comments
//! (`#.`) are the block's notes, one note per kind, lines joined with `\n`.
//!
//! # Strings and the skeleton
//! A string is one or more `"…"` segments on consecutive lines, concatenated, with the C
//! escapes gettext reads undone (`\n`, `\t`, `\r`, `\"`, `\\`, `\a`, `\b`, `\f`, `\v`, octal
//! `\ooo` and hex `\xHH`, these two read as the character of that code). A text run keeps
//! its file offset when the string is one segment with no escape. A hole spans every
//! segment of one `msgid`, `msgid_plural`, `msgstr` or `msgstr[i]`, quotes included;
//! everything else stays in the skeleton byte for byte: keywords, comments and flags,
//! references (`#:`), previous messages (`#|`), obsolete messages (`#~`, never blocks), the
//! header, `domain` lines, blank lines, a BOM and CRLF line endings.
//!
//! # Writing
//! An edited hole is escaped (`\\`, `\"`, `\n`, `\t`, `\r`, `\a`… and `\ooo` for other
//! control characters) and wrapped as msgcat does when the file shows msgcat's wrapping (a
//! string broken at a space, or no line longer than 79 columns): one line when it fits in 79
//! columns after its keyword and holds no inner newline, else `""` and lines of at most 79
//! columns broken after each `\n`, at spaces, after a hyphen between letters, after `/`
//! before a letter and around ideographs (East Asian wide characters count two columns,
//! combining marks none). msgcat follows all of Unicode line breaking, so about 1.6% of
//! the lines of the Django fixtures would break elsewhere; gettext reads both the same.
//! In a file that does not wrap, a string that was one segment stays one line and one
//! broken into segments is broken after each `\n`, keeping whether it began with `""`.
//! Continuation lines reuse the hole's own separator (its line ending), else the file's.
//!
//! A target edition replaced or edited (`block.targets.insert(lang, edition)`) is written as
//! the `msgstr`, an empty one included. A plural message's `msgstr[0]`, `msgstr[1]`… are
//! written from the target switch's branches by name, in the order the reader names them
//! for the header's `Plural-Forms: nplurals=N`; a target whose branches are not exactly those names, or a message whose
//! `msgstr[i]` count is not N, is refused with [`WriteError::PluralForms`] naming the
//! message (a header with no number, as in a POT, takes the message's own count); a
//! switch in a singular message is refused with [`WriteError::Block`]. Adding forms a
//! message lacks is not supported: msgmerge gives it them. The `fuzzy` flag follows
//! the state of an edited target: state `fuzzy` adds it first on the message's first `#,`
//! line (a `#, fuzzy` line before the `#|` lines or keywords when there is none), any other
//! state or none takes it from every `#,` line, dropping a line left empty; the other flags
//! and comments stay as written, and flags already right are copied byte for byte.
//!
//! # Encoding
//! A UTF-16 or UTF-8 BOM decides; else the header's `charset=` through
//! [`Encoding::for_label`] (`windows-1251`, `ISO-8859-1`…), except that a file that is valid
//! UTF-8 with non-ASCII bytes is read as UTF-8 whatever it declares. An unknown label or
//! `CHARSET` (a fresh POT) reads as UTF-8.
//!
//! ```text
//! #. Shown on the button            → notes ["Shown on the button"]
//! #, fuzzy, python-format           → target state fuzzy, printf codes
//! msgctxt "menu"                    → key `menu|Open %(name)s`
//! msgid "Open %(name)s"             → source: "Open " <x id="1/"/>
//! msgstr "Ouvrir %(name)s"          → targets[fr]: "Ouvrir " <x id="1/"/>
//! ```

mod blocks;
mod codes;
mod parser;
mod state;
mod writer;

use std::borrow::Cow;

use super::{
    Capabilities, Encoding, Format, FormatInfo, Hole, HoleKind, Parsed, ReadError, WriteError,
};
use crate::model::Run;
use blocks::read_text;
pub use blocks::{NotALanguage, header_language};
use state::{Plurals, render_flags};

/// What is wrong with a PO file's `Plural-Forms` header ([`crate::plurals::PluralForms`]'s
/// fault) and the file offset of the header, when something is; read from the file's text,
/// so a file with no plural message has its header judged too (as `msgfmt -c` does).
pub fn plural_header_fault(text: &str) -> Option<(String, usize)> {
    blocks::header(text).ok()?.forms()?.fault.clone()
}
use writer::{file_wraps, line_ending, render};

pub const INFO: FormatInfo = FormatInfo {
    id: "po",
    name: "gettext PO",
    extensions: &["po", "pot"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
        comments: false,
    },
};

pub struct Po;

impl Format for Po {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let original = parsed.skeleton.text();
        let document = &parsed.document;
        // Whether the file wraps as msgcat does, and its line ending: found once.
        let mut style: Option<(bool, &str)> = None;
        let mut plurals: Option<Plurals> = None;
        parsed
            .skeleton
            .fill(document, |hole: &Hole, runs: &[Run]| match hole.kind() {
                HoleKind::Runs => {
                    let (wraps, eol) = *style.get_or_insert_with(|| {
                        let wraps = file_wraps(original, &parsed.skeleton.holes);
                        (wraps, line_ending(original))
                    });
                    let mut plain = String::new();
                    super::render_runs(runs, &mut plain, &mut |text, out| out.push_str(text));
                    Ok(render(original, hole.span.clone(), wraps, eol, &plain))
                }
                HoleKind::State => {
                    // The target changed: it must fit the message, and its state gives the
                    // `fuzzy` flag.
                    let Some(edition) = super::hole_edition(document, hole) else {
                        return Ok(original.get(hole.span.clone()).unwrap_or_default().into());
                    };
                    plurals
                        .get_or_insert_with(|| Plurals::new(original, &parsed.skeleton.holes))
                        .check(document, hole, edition)?;
                    let fuzzy = edition.state.as_deref() == Some("fuzzy");
                    Ok(render_flags(original, hole.span.clone(), fuzzy))
                }
                // The reader makes none: every message has a `msgstr`.
                HoleKind::Missing => Ok(original.get(hole.span.clone()).unwrap_or_default().into()),
            })
    }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes the file: a BOM decides, else valid UTF-8 with non-ASCII text is UTF-8, else the
/// header's declared charset, else UTF-8.
fn decode(bytes: &[u8]) -> Result<(Cow<'_, str>, Encoding), ReadError> {
    if let Some(enc) = Encoding::sniff_bom(bytes) {
        return Ok((enc.decode(bytes)?, enc));
    }
    let declared = declared_charset(bytes).and_then(Encoding::for_label);
    match declared {
        Some(enc @ (Encoding::Latin1 | Encoding::Legacy(_))) => {
            let utf8 = !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok();
            if utf8 {
                Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8))
            } else {
                Ok((enc.decode(bytes)?, enc))
            }
        }
        _ => Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8)),
    }
}

/// The `charset=` label of the header (the first message, when its `msgid` is empty), read
/// from the raw bytes: headers are ASCII in every encoding a PO file may declare.
fn declared_charset(bytes: &[u8]) -> Option<&str> {
    let at = find(bytes, b"msgid", 0)?;
    let rest = bytes.get(at + 5..)?;
    let skip = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest.get(skip..skip + 2) != Some(b"\"\"") {
        return None;
    }
    // The header ends at the first blank line (or a line starting another keyword).
    let end = find(bytes, b"\nmsgid", at + 5).unwrap_or(bytes.len());
    let header = bytes.get(at..end)?;
    let start = find(header, b"charset=", 0)? + 8;
    let label = header.get(start..)?;
    let len = label
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')))
        .unwrap_or(label.len());
    std::str::from_utf8(label.get(..len)?).ok()
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let hay = haystack.get(from..)?;
    hay.windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Po, "po") > 0);
    }
}

#[cfg(test)]
mod tests;
