//! Mozilla Fluent (`en/app.ftl`): one language's messages, terms and their attributes, each
//! pattern a block read into runs and written back byte for byte through a skeleton.
//!
//! A translation is a sibling file (`en/app.ftl` → `fr/app.ftl`) paired by block key, as
//! JSON, ARB and `.strings` catalogs are.
//!
//! # Blocks and keys
//! - A message's value (`hello = Hello`) is a [`Role::Key`] block keyed by its id (`hello`);
//!   a term's (`-brand = Firefox`) by its id with the dash (`-brand`); each attribute
//!   (`.title = …`) by the entry's id and the attribute's (`hello.title`, `-brand.gender`).
//!   A message with only attributes has no value block. A repeated key is numbered (`k#2`).
//! - The `#` comment right above an entry (no blank line between) is the note of each of
//!   its blocks: context for translators, never prose. `##` group and `###` resource
//!   comments stay in the skeleton, as does a `#` comment that stands alone.
//! - Junk (an entry Fluent cannot parse: `key` without `=`, an unclosed placeable, a select
//!   without a default variant) stays in the skeleton, as Fluent itself skips it, and the
//!   rest of the file is read; it round-trips byte for byte and is no block.
//!
//! # Runs
//! What a pattern means, as Fluent resolves it: the blanks after `=` dropped; a value that
//! starts on the next line and every continuation line stripped of the pattern's common
//! indent; line breaks (a blank line included) read as `\n` whatever the file's line ends;
//! trailing white space dropped. Each line's text is a run at its file offset; a line
//! break is a run of its own (no offset). A placeable (`{ $var }`, `{ -term }`,
//! `{ msg.attr }`, `{ NUMBER($n, minimumFractionDigits: 2) }`, a number or string literal)
//! is a standalone `placeholder` code holding its bytes as written, which a translation
//! keeps; except a string literal of characters that cannot stand as text where they are
//! (`{"{"}`, `{"}"}`, `{"["}`, `{"*"}`, `{"."}`, blanks): that is text, what it means.
//!
//! A placeable whose expression is a select (`{ $count -> [one] … *[other] … }`) is a
//! [`Switch`](crate::model::Switch): pivot the selector's first variable (`count`; a
//! callee or reference when it has none), kind plural when every variant key is a CLDR category or a number (a number
//! key `[0]` is the case `=0`), ordinal for `NUMBER($n, type: "ordinal")`, select
//! otherwise. One branch per variant in file order, its pattern read as above (select
//! expressions nest up to 32 deep). The model has no mark for the default variant: its
//! `*` stays in the branch's native `open` (` *[other] `), so the writer keeps it.
//!
//! # Writing
//! One skeleton hole per pattern, the select expressions in it included: an untouched
//! pattern is copied byte for byte; an edited one is written whole from its runs (codes as
//! their bytes; a switch as its head, each branch's `open`, runs and `close`, its tail),
//! so an edit of one variant rewrites that pattern's other variants too, in canonical form
//! (their meaning unchanged). Per-branch holes would leave the text around a select
//! without one. Text is written so that it reads back the same:
//! - a line break as the file's line end (`\r\n` in a CRLF file) and the pattern's indent
//!   (its continuation lines' indent, else the entry line's plus four spaces); a blank
//!   line without one;
//! - `{` and `}` as `{"{"}` and `{"}"}`; a `\r` as `{"\u000D"}`;
//! - at a line start (a block pattern's first line included) `[`, `*` and `.` as `{"["}`
//!   etc. and leading spaces as `{"  "}`; leading and trailing blanks and line breaks of
//!   the pattern as a literal too (`{" "}`, `{"\u000A"}`); an empty pattern as `{""}`.
//!
//! A CRLF file keeps its line ends, and a BOM stays in the skeleton.
//!
//! # Limits
//! At most [`MAX_CODES`](super::MAX_CODES) codes, switches and branches per block
//! ([`ReadError::TooDense`]), placeables nested at most 32 deep ([`ReadError::TooDeep`]),
//! keys through [`Keys`]'s budget. The scanner is hand-written rather than the
//! `fluent-syntax` crate: its AST has no spans, so the braces, `->`, variant keys and
//! blank lines a byte-exact skeleton needs would be found by scanning again; it also reads
//! CRLF as LF.
mod pattern;
mod write;

#[cfg(test)]
mod tests;

use self::pattern::{Fail, Scan};
use super::output::Output;
use super::{Capabilities, Format, FormatInfo, Keys, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, Role};

pub const INFO: FormatInfo = FormatInfo {
    id: "fluent",
    name: "Fluent",
    extensions: &["ftl"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

pub struct Fluent;

impl Format for Fluent {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(parsed)
    }
}

/// One pattern of an entry: its key's base and what it reads.
struct Field {
    key: String,
    at: usize,
    pattern: pattern::Pattern,
}

fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = Keys::new(text.len());
    let start = text.len() - text.trim_start_matches('\u{feff}').len();
    let mut scan = Scan::new(text, start);
    // The `#` comment read last, while nothing but its own line end follows it.
    let mut note: Option<String> = None;
    loop {
        if scan.blank_lines() > 0 {
            note = None;
        }
        if out.refused() {
            break;
        }
        let entry = scan.at;
        let Some(first) = scan.byte() else { break };
        if first == b'#' {
            match comment(&mut scan) {
                Some((1, content)) => note = Some(content),
                Some(_) => note = None,
                None => {
                    note = None;
                    junk(&mut scan, entry);
                }
            }
            continue;
        }
        scan.begin();
        let fields = match fields(&mut scan) {
            Ok(fields) => fields,
            Err(Fail::Refuse(error)) => return Err(error),
            Err(Fail::Junk) => {
                note = None;
                junk(&mut scan, entry);
                continue;
            }
        };
        scan.eol();
        let notes: Vec<String> = note.take().into_iter().collect();
        for (i, field) in fields.into_iter().enumerate() {
            let key = keys.key(&field.key, text, field.at)?;
            if i > 0 {
                keys.charge(notes.iter().map(String::len).sum(), text, field.at)?;
            }
            let mut block = Block::new(key, Role::Key, field.pattern.runs);
            block.notes.clone_from(&notes);
            block.span = field.at..field.pattern.span.end;
            let index = out.index();
            out.skeleton.hole(field.pattern.span, index, &block.source);
            out.push(text, block);
        }
    }
    Ok(out)
}

/// A comment at `#`: its level and its lines' text joined by `\n`; `None` when its first
/// line is no comment (`#foo`). A line of another level ends it.
fn comment(scan: &mut Scan<'_>) -> Option<(usize, String)> {
    let mut level = 0;
    let mut lines: Vec<&str> = Vec::new();
    loop {
        let line = scan.at;
        let hashes = scan.text[line..].bytes().take_while(|&b| b == b'#').count();
        if hashes == 0 || hashes > 3 || (level != 0 && hashes != level) {
            break;
        }
        let after = line + hashes;
        let eol = scan.eol_at(after) > 0 || after == scan.text.len();
        if !eol && scan.text.as_bytes().get(after) != Some(&b' ') {
            break;
        }
        level = hashes;
        let rest = &scan.text[after..];
        let end = after + memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len());
        let content = scan.text[after..end].trim_end_matches('\r');
        lines.push(content.strip_prefix(' ').unwrap_or(content));
        scan.at = end;
        scan.eol();
        if scan.at == end {
            break;
        }
    }
    (level > 0).then(|| (level, lines.join("\n").trim_end().to_owned()))
}

/// Skips junk from `entry` to the next line that starts an entry (`#`, `-` or a letter).
fn junk(scan: &mut Scan<'_>, entry: usize) {
    let bytes = scan.text.as_bytes();
    let mut at = entry;
    loop {
        let Some(i) = memchr::memchr(b'\n', &bytes[at..]) else {
            scan.at = bytes.len();
            return;
        };
        at += i + 1;
        if bytes
            .get(at)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'-' || b == b'#')
        {
            scan.at = at;
            return;
        }
    }
}

/// A message or term at its id: its value (when it has one) and attributes, in order.
fn fields(scan: &mut Scan<'_>) -> Result<Vec<Field>, Fail> {
    let entry = scan.at;
    let term = scan.byte() == Some(b'-');
    if term {
        scan.at += 1;
    }
    let id = scan.identifier()?;
    let id = &scan.text[entry..id.end];
    scan.blank_inline();
    if scan.byte() != Some(b'=') {
        return Err(Fail::Junk);
    }
    scan.at += 1;
    let mut fields = Vec::new();
    scan.block(entry);
    if let Some(pattern) = scan.pattern()? {
        fields.push(Field {
            key: id.to_owned(),
            at: entry,
            pattern,
        });
    } else if term {
        return Err(Fail::Junk);
    }
    loop {
        scan.blank_inline();
        let save = scan.at;
        if scan.eol_at(scan.at) == 0 {
            break;
        }
        scan.blank();
        if scan.byte() != Some(b'.') {
            scan.at = save;
            break;
        }
        let dot = scan.at;
        match attribute(scan, id)? {
            Some(field) => fields.push(field),
            None => {
                // Fluent ends the entry before an attribute it cannot read: that line is junk.
                scan.at = line_start(scan.text, dot);
                break;
            }
        }
    }
    if fields.is_empty() {
        return Err(Fail::Junk);
    }
    Ok(fields)
}

/// An attribute at its `.`; `None` when it is none (no name, `=` or pattern).
fn attribute(scan: &mut Scan<'_>, id: &str) -> Result<Option<Field>, Fail> {
    let at = scan.at;
    scan.at += 1;
    let Ok(name) = scan.identifier() else {
        return Ok(None);
    };
    let name = &scan.text[name];
    scan.blank_inline();
    if scan.byte() != Some(b'=') {
        return Ok(None);
    }
    scan.at += 1;
    scan.block(at);
    Ok(scan.pattern()?.map(|pattern| Field {
        key: format!("{id}.{name}"),
        at,
        pattern,
    }))
}

/// The start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}
