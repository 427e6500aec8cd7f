//! Formats: one reader and skeleton writer per file format, each declaring what it can do.
//! A reader returns the document and a skeleton (the original text with a hole per edition
//! or branch); the writer fills the holes, copying every untouched one byte for byte.
//! A caller that needs no document (a check, a page of blocks) reads with
//! [`Format::read_each`] instead and holds one block at a time.

pub mod add_keys;
pub mod android;
pub mod asciidoc;
pub mod code;
#[cfg(test)]
pub mod conformance;
pub mod docs_blocks;
pub mod docx;
pub mod fluent;
pub mod html;
pub mod inline;
pub mod json;
pub mod lines;
pub mod markdown;
pub mod output;
pub mod plaintext;
pub mod po;
pub mod properties;
pub mod qt;
pub mod resx;
pub mod rst;
pub mod sections;
pub mod spans;
pub mod splice;
pub mod strings;
pub mod stringsdict;
pub mod xcstrings;
pub mod xliff;
pub mod xliff2;
pub mod xml;
pub mod yaml;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::error::Hint;
use crate::model::{Block, Document, Edition, KeyDeduper, Run, fingerprint_runs};

/// What a format can do, as `kapi formats` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Capabilities {
    /// Has a reader and a writer, and is not a bilingual interchange format.
    pub editable: bool,
    /// The writer works from a skeleton, so an edit changes only the edited text.
    pub round_trip: bool,
    /// Can author a document from the content model alone.
    pub generative: bool,
    /// Holds source and target in one file (XLIFF, PO).
    pub bilingual: bool,
    /// A source file whose comments are its content: read and checked, edited only through
    /// the comment write path (`kapi apply`), never read or edited as blocks over MCP.
    pub comments: bool,
}

/// A format's identity: the id used in `kapi.yaml`, its extensions and its capabilities.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct FormatInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub capabilities: Capabilities,
}

/// The largest input a reader takes: a file's bytes, and for a container (a .docx zip) the
/// inflated bytes of every part it reads, counted as they inflate. The host refuses a larger
/// file before reading it.
pub const MAX_INPUT_BYTES: u64 = 100 * 1024 * 1024;

/// The deepest nesting a reader follows (elements inside elements, objects and arrays inside
/// each other, tables inside tables). Real files stay far below it (the deepest in the test
/// corpus is 16); a deeper file is refused with [`ReadError::TooDeep`] at the element that
/// goes past it, so no input costs more than linear time and memory. YAML, whose reader
/// recurses, stops at 100 (see `yaml`), and ICU messages at 32 (see `icu`).
pub const MAX_DEPTH: usize = 256;

/// The most inline codes (and switches) one block's edition holds, its branches' included.
/// The most in the test corpus is 417 (a highlighted code listing in HTML); each code costs
/// a reader a few hundred bytes, so a block of 2 MB dense with markup held 100 to 280 times
/// its size. A block past it is refused with [`ReadError::TooDense`] at its start, and a
/// reader stops making its codes there, so no block costs more than a few MB.
pub const MAX_CODES: usize = 10_000;

/// Why a file could not be read. Positions are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("{line}:{column}: the file is not valid UTF-8 (byte {offset})")]
    NotUtf8 {
        offset: usize,
        line: usize,
        column: usize,
    },
    #[error("the file looks binary (a NUL byte at offset {offset})")]
    Binary { offset: usize },
    #[error("{line}:{column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// Nesting past [`MAX_DEPTH`] (or a format's own limit), at the element that goes past it.
    #[error("{line}:{column}: {what} nest deeper than {limit} levels")]
    TooDeep {
        line: usize,
        column: usize,
        /// What nests, plural: `elements`, `objects and arrays`, `tables`.
        what: String,
        limit: usize,
    },
    /// A block with more than [`MAX_CODES`] inline codes, at the block's start.
    #[error(
        "{line}:{column}: the block here holds more than {limit} inline codes (placeholders, tags, markup)"
    )]
    TooDense {
        line: usize,
        column: usize,
        limit: usize,
    },
    /// Input past a size limit: a container part that inflates past [`MAX_INPUT_BYTES`], or
    /// block keys that would outgrow the file ([`KeyBudget`]). `at` is where: a part name, or
    /// `line:column`.
    #[error("{at}: {message}")]
    TooLarge { at: String, message: String },
}

impl Hint for ReadError {
    fn hints(&self) -> Vec<String> {
        match self {
            ReadError::NotUtf8 { .. } => {
                vec![
                    "save the file as UTF-8, or exclude it with `defaults.exclude` in `kapi.yaml`"
                        .into(),
                ]
            }
            ReadError::Binary { .. } => {
                vec![
                    "exclude it with `defaults.exclude` in `kapi.yaml`, or name a text file".into(),
                ]
            }
            ReadError::Syntax { .. } => vec!["fix the syntax at that position".into()],
            ReadError::TooDeep { what, limit, .. } => vec![format!(
                "kapi reads {what} nested up to {limit} levels deep: flatten the nesting at that \
                 position, or exclude the file with `defaults.exclude` in `kapi.yaml`"
            )],
            ReadError::TooDense { limit, .. } => vec![format!(
                "kapi reads up to {limit} inline codes in one block: split the block that \
                 starts at that position into smaller ones, or exclude the file with \
                 `defaults.exclude` in `kapi.yaml`"
            )],
            ReadError::TooLarge { .. } => {
                vec!["split the file, or exclude it with `defaults.exclude` in `kapi.yaml`".into()]
            }
        }
    }
}

impl ReadError {
    /// Bytes that are not text in `encoding` at byte `offset`; `before` is the text
    /// decoded up to there, for the line and column.
    pub fn not_text(before: &str, offset: usize, encoding: &str) -> ReadError {
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ReadError::Syntax {
            line,
            column,
            message: format!("the file is not valid {encoding} (byte {offset})"),
        }
    }

    /// A syntax error at byte `offset` of `text`, with its line and column.
    pub fn syntax_at(text: &str, offset: usize, message: impl Into<String>) -> ReadError {
        let offset = offset.min(text.len());
        let mut at = offset;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ReadError::Syntax {
            line,
            column,
            message: message.into(),
        }
    }

    /// Nesting past `limit` at byte `offset` of `text`, with its line and column.
    pub fn too_deep(text: &str, offset: usize, what: &str, limit: usize) -> ReadError {
        match ReadError::syntax_at(text, offset, "") {
            ReadError::Syntax { line, column, .. } => ReadError::TooDeep {
                line,
                column,
                what: what.to_owned(),
                limit,
            },
            other => other,
        }
    }

    /// A block past [`MAX_CODES`] starting at byte `offset` of `text`.
    pub fn too_dense(text: &str, offset: usize) -> ReadError {
        match ReadError::syntax_at(text, offset, "") {
            ReadError::Syntax { line, column, .. } => ReadError::TooDense {
                line,
                column,
                limit: MAX_CODES,
            },
            other => other,
        }
    }

    /// Decodes `bytes` as UTF-8 text (a UTF-8 BOM is allowed and kept in the skeleton),
    /// refusing binary data and invalid sequences with their position.
    pub fn decode(bytes: &[u8]) -> Result<&str, ReadError> {
        // `contains` on bytes is a vectorised search; the position only when there is one.
        if bytes.contains(&0) {
            let offset = bytes.iter().position(|&b| b == 0).unwrap_or(0);
            return Err(ReadError::Binary { offset });
        }
        std::str::from_utf8(bytes).map_err(|e| {
            let offset = e.valid_up_to();
            let before = String::from_utf8_lossy(&bytes[..offset]);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            ReadError::NotUtf8 {
                offset,
                line,
                column,
            }
        })
    }
}

/// What the block keys of one file may add up to beyond [`KEY_BYTES_PER_BYTE`] times its size.
pub const KEY_SLACK_BYTES: usize = 16 * 1024 * 1024;

/// Bytes of block keys allowed per byte of the file. Real files stay below 2 (a deep Rails
/// YAML file's keys run about 1.7 times its size, a documentation page's element paths about
/// 1.5); the limit is there to stop keys that grow with the square of the file.
pub const KEY_BYTES_PER_BYTE: usize = 4;

/// The bytes the block keys of one file may take: [`KEY_BYTES_PER_BYTE`] times the file's size
/// plus [`KEY_SLACK_BYTES`].
/// A key is a path (`menu.items.2.label`, `body/tbl#1/r#2/c#1/p#1`), so a long key with many
/// values under it repeats its bytes once per value: a 1 MB file could ask for gigabytes.
/// Readers charge each key as they make it and refuse the file past the budget.
#[derive(Debug, Clone)]
pub struct KeyBudget {
    left: usize,
}

impl KeyBudget {
    /// The budget for an input of `len` bytes.
    pub fn new(len: usize) -> Self {
        Self {
            left: len
                .saturating_mul(KEY_BYTES_PER_BYTE)
                .saturating_add(KEY_SLACK_BYTES),
        }
    }

    /// Takes `len` bytes of key; past the budget, the error names the position `offset` in
    /// `text` (the value whose key it is).
    pub fn charge(&mut self, len: usize, text: &str, offset: usize) -> Result<(), ReadError> {
        if self.take(len) {
            Ok(())
        } else {
            Err(self.refusal(text, offset))
        }
    }

    /// Takes `len` bytes of key; `false` past the budget (then [`KeyBudget::refusal`] says so).
    pub fn take(&mut self, len: usize) -> bool {
        match self.left.checked_sub(len) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }

    /// The error [`KeyBudget::charge`] gives, for a reader that counts on its own.
    pub fn refusal(&self, text: &str, offset: usize) -> ReadError {
        let at = match ReadError::syntax_at(text, offset, "") {
            ReadError::Syntax { line, column, .. } => format!("{line}:{column}"),
            _ => offset.to_string(),
        };
        ReadError::TooLarge {
            at,
            message: format!(
                "the block keys would outgrow the file: each value's key repeats the keys \
                 above it, and here they pass {} times the file's size plus {} MB (a long key \
                 or note shared by many values, or deep nesting)",
                KEY_BYTES_PER_BYTE,
                KEY_SLACK_BYTES / (1024 * 1024)
            ),
        }
    }
}

/// Block keys made unique ([`KeyDeduper`]: the second `a` is `a#2`) and charged to a
/// [`KeyBudget`].
#[derive(Debug)]
pub struct Keys {
    dedupe: KeyDeduper,
    budget: KeyBudget,
}

impl Keys {
    /// Keys for an input of `len` bytes.
    pub fn new(len: usize) -> Self {
        Self {
            dedupe: KeyDeduper::default(),
            budget: KeyBudget::new(len),
        }
    }

    /// The key for `base`, numbered when it repeats; past the budget, an error at `offset`
    /// of `text` (the block's position).
    pub fn key(&mut self, base: &str, text: &str, offset: usize) -> Result<String, ReadError> {
        self.budget.charge(base.len(), text, offset)?;
        Ok(self.dedupe.key(base))
    }

    /// Charges `len` bytes a reader repeats in every block of a group (a unit's notes in
    /// each of its segments) to the same budget.
    pub fn charge(&mut self, len: usize, text: &str, offset: usize) -> Result<(), ReadError> {
        self.budget.charge(len, text, offset)
    }
}

/// Why a document could not be written back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("block `{key}` cannot be written: {message}")]
    Block { key: String, message: String },
    #[error("the file's encoding ({encoding:?}) cannot hold {character:?}")]
    Unencodable { character: char, encoding: Encoding },
    #[error("the skeleton does not fit the document: {message}")]
    Skeleton { message: String },
    #[error("{message}")]
    Container { message: String },
    /// A plural message whose target does not hold the forms the file takes: PO's
    /// `msgstr[0]`, `msgstr[1]`… follow the header's `Plural-Forms: nplurals=N`, each form a
    /// branch of the target's plural switch. `expected` are the branch names in `msgstr[i]`
    /// order; `found` the target's (empty when it is no plural switch); `in_file` how many
    /// `msgstr[i]` the message holds.
    #[error(
        "block `{key}` cannot be written: {}",
        plural_forms_message(.expected, .found, *.in_file)
    )]
    PluralForms {
        key: String,
        expected: Vec<String>,
        found: Vec<String>,
        in_file: usize,
    },
    /// A target state the format has no place for (XLIFF 2 `<segment state>` takes
    /// `initial`, `translated`, `reviewed` or `final`).
    #[error(
        "block `{key}` cannot be written: the state `{state}` is not one the file records; expected {allowed}"
    )]
    State {
        key: String,
        state: String,
        allowed: String,
    },
}

/// What [`WriteError::PluralForms`] says.
fn plural_forms_message(expected: &[String], found: &[String], in_file: usize) -> String {
    let n = expected.len();
    if in_file != n {
        return format!(
            "the message holds {in_file} `msgstr[i]` forms but the header's Plural-Forms \
             gives nplurals={n}: give it {n} forms (msgmerge does) before writing a translation"
        );
    }
    let expected = expected.join(", ");
    if found.is_empty() {
        return format!(
            "the target is not a plural switch; this message takes the forms {expected} \
             (`msgstr[0]` to `msgstr[{}]`)",
            n.saturating_sub(1)
        );
    }
    format!(
        "the target's plural forms are {}, but the header's Plural-Forms (nplurals={n}) \
         gives {expected} (`msgstr[0]` to `msgstr[{}]`)",
        found.join(", "),
        n.saturating_sub(1)
    )
}

/// What a hole holds ([`Hole::kind`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HoleKind {
    /// The runs of an edition, or of one branch of it: every format's holes.
    #[default]
    Runs,
    /// Where a bilingual file records a target's state (an XLIFF `state` attribute, PO's
    /// `#,` flags lines) or where it would. Its fingerprint is the whole edition's
    /// ([`Edition::fingerprint`]: runs and state), so it is edited whenever the edition is,
    /// and its writer renders it from [`Edition::state`], copying it when the state is the
    /// one the file records. Untouched while the block has no such edition.
    State,
    /// Where a target the file lacks would go (an empty span after an XLIFF `</source>`):
    /// untouched while the block has no such edition, rendered whole (element, state and
    /// runs) once it has one.
    Missing,
}

/// The `original` of a hole whose edition the file lacks: never compared (a
/// [`HoleKind::Missing`] hole is edited when the edition exists, a state hole of an absent
/// edition likewise).
const ABSENT: u64 = 0;

/// A hole in the skeleton: the bytes of one block edition, or of one branch of it, or where
/// a target's state is recorded ([`HoleKind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    /// Byte range in [`Skeleton::original`] (the decoded text).
    pub span: Range<usize>,
    /// Index of the block in the document.
    pub block: usize,
    /// The edition and branch names ([`Hole::edition`], [`Hole::branch`]), when either is
    /// set: one pointer, shared between the holes of one skeleton that repeat them (a hole is
    /// 40 bytes, one per block edition).
    name: Option<Arc<HoleName>>,
    /// [`fingerprint_runs`] of the content as read (for a [`HoleKind::State`] hole, the
    /// edition's [`Edition::fingerprint`]), to tell an edited hole from an untouched one
    /// without keeping a copy of every edition.
    pub original: u64,
}

/// What names a hole beside its block: the target language, the branch, what it holds.
#[derive(Debug, PartialEq, Eq)]
struct HoleName {
    edition: Option<Box<str>>,
    branch: Option<Box<str>>,
    kind: HoleKind,
}

impl Hole {
    /// The target language whose runs fill the hole (a [`HoleKind::Missing`] hole's
    /// included); `None` for the source edition and for a [`HoleKind::State`] hole, which
    /// holds no text ([`Hole::language`] names its edition).
    pub fn edition(&self) -> Option<&str> {
        self.name
            .as_ref()
            .filter(|n| n.kind != HoleKind::State)
            .and_then(|n| n.edition.as_deref())
    }

    /// The target language of the hole's edition, whatever it holds; `None` for the source.
    pub fn language(&self) -> Option<&str> {
        self.name.as_ref().and_then(|n| n.edition.as_deref())
    }

    /// What the hole holds.
    pub fn kind(&self) -> HoleKind {
        self.name.as_ref().map_or(HoleKind::Runs, |n| n.kind)
    }

    /// The branch path (`count:one`) when the hole holds one form of a switch that the
    /// format stores apart (PO `msgstr[1]`, an Android `<item quantity>`).
    pub fn branch(&self) -> Option<&str> {
        self.name.as_ref().and_then(|n| n.branch.as_deref())
    }
}

/// How a file's bytes encode its text. Readers decode to UTF-8; the writer encodes back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8; a BOM stays in the text as U+FEFF.
    #[default]
    Utf8,
    /// UTF-16 little-endian; the BOM stays in the text as U+FEFF.
    Utf16Le,
    /// UTF-16 big-endian; the BOM stays in the text as U+FEFF.
    Utf16Be,
    /// ISO-8859-1: one byte per character, U+0000 to U+00FF.
    Latin1,
    /// A legacy encoding a file declares (a PO header's `charset=windows-1251`, an HTML
    /// `<meta charset>`), through encoding_rs. Refused on read when a byte does not map,
    /// so decoding and encoding back give the same bytes.
    Legacy(&'static encoding_rs::Encoding),
}

impl Encoding {
    /// The encoding's name, as a person reads it (`ISO-8859-1`, `windows-1251`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
            Encoding::Latin1 => "ISO-8859-1",
            Encoding::Legacy(e) => e.name(),
        }
    }

    /// Decodes `bytes` to text. UTF-16 without a BOM is never guessed here.
    pub fn decode(self, bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, ReadError> {
        use std::borrow::Cow;
        match self {
            Encoding::Utf8 => ReadError::decode(bytes).map(Cow::Borrowed),
            Encoding::Latin1 => Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())),
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let le = self == Encoding::Utf16Le;
                if bytes.len() % 2 == 1 {
                    return Err(ReadError::not_text(
                        "",
                        bytes.len() - 1,
                        "UTF-16: an odd number of bytes",
                    ));
                }
                let units = bytes.chunks_exact(2).map(|pair| match pair {
                    [a, b] if le => u16::from_le_bytes([*a, *b]),
                    [a, b] => u16::from_be_bytes([*a, *b]),
                    _ => 0xFFFF,
                });
                let mut text = String::with_capacity(bytes.len() / 2);
                let mut unit = 0;
                for decoded in char::decode_utf16(units) {
                    match decoded {
                        Ok(c) => {
                            unit += c.len_utf16();
                            text.push(c);
                        }
                        Err(_) => {
                            return Err(ReadError::not_text(&text, unit * 2, "UTF-16"));
                        }
                    }
                }
                Ok(Cow::Owned(text))
            }
            Encoding::Legacy(enc) => {
                let (text, had_errors) = enc.decode_without_bom_handling(bytes);
                if had_errors {
                    let at = text.find('\u{fffd}').unwrap_or(0);
                    return Err(ReadError::not_text(&text[..at], at, enc.name()));
                }
                Ok(text)
            }
        }
    }

    /// The encoding for a declared label (`UTF-8`, `ISO-8859-1`, `windows-1251`, `CP1251`);
    /// `None` for a label no encoding has. ISO-8859-1 is read as itself, not windows-1252.
    pub fn for_label(label: &str) -> Option<Encoding> {
        let label = label.trim();
        let lower = label.to_ascii_lowercase();
        match lower.as_str() {
            "utf-8" | "utf8" | "us-ascii" | "ascii" | "charset" => return Some(Encoding::Utf8),
            "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" => {
                return Some(Encoding::Latin1);
            }
            _ => {}
        }
        let label = lower
            .strip_prefix("cp")
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .map_or(lower.clone(), |n| format!("windows-{n}"));
        let enc = encoding_rs::Encoding::for_label(label.as_bytes())?;
        if enc == encoding_rs::UTF_8 {
            Some(Encoding::Utf8)
        } else if enc == encoding_rs::UTF_16LE {
            Some(Encoding::Utf16Le)
        } else if enc == encoding_rs::UTF_16BE {
            Some(Encoding::Utf16Be)
        } else {
            Some(Encoding::Legacy(enc))
        }
    }

    /// Encodes `text` back; `None` names the first character the encoding cannot hold.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, char> {
        match self {
            Encoding::Utf8 => Ok(text.as_bytes().to_vec()),
            Encoding::Latin1 => text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).map_err(|_| c))
                .collect(),
            Encoding::Utf16Le => Ok(text.encode_utf16().flat_map(u16::to_le_bytes).collect()),
            Encoding::Utf16Be => Ok(text.encode_utf16().flat_map(u16::to_be_bytes).collect()),
            Encoding::Legacy(enc) => {
                let (bytes, _, had_errors) = enc.encode(text);
                if had_errors {
                    let c = text
                        .chars()
                        .find(|c| enc.encode(&c.to_string()).2)
                        .unwrap_or('\u{fffd}');
                    return Err(c);
                }
                Ok(bytes.into_owned())
            }
        }
    }

    /// The encoding a byte-order mark announces, if any.
    pub fn sniff_bom(bytes: &[u8]) -> Option<Encoding> {
        match bytes {
            [0xEF, 0xBB, 0xBF, ..] => Some(Encoding::Utf8),
            [0xFF, 0xFE, ..] => Some(Encoding::Utf16Le),
            [0xFE, 0xFF, ..] => Some(Encoding::Utf16Be),
            _ => None,
        }
    }
}

/// Decodes a text file: UTF-16 when a BOM says so, else UTF-8 (BOM or not).
pub fn decode_auto(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, Encoding), ReadError> {
    match Encoding::sniff_bom(bytes) {
        Some(enc @ (Encoding::Utf16Le | Encoding::Utf16Be)) => Ok((enc.decode(bytes)?, enc)),
        _ => Ok((Encoding::Utf8.decode(bytes)?, Encoding::Utf8)),
    }
}

/// Where [`Format::read_each`] hands each block, with the decoded text its offsets index and
/// the block's holes (their `block` is its index in reading order).
pub type Each<'a> = &'a mut dyn FnMut(&str, Block, &[Hole]);

/// Hands a read's blocks to `each` in order and drops its holes: [`Format::read_each`] for a
/// reader that keeps the document while it reads.
pub(crate) fn hand_over(mut parsed: Parsed, each: Each<'_>) -> Parsed {
    let blocks = std::mem::take(&mut parsed.document.blocks);
    let mut holes = std::mem::take(&mut parsed.skeleton.holes);
    // A block's holes are together (a stable sort keeps their order), blocks in order.
    holes.sort_by_key(|h| h.block);
    let text = parsed.skeleton.text();
    let mut rest = &holes[..];
    for (index, block) in blocks.into_iter().enumerate() {
        let skip = rest.iter().take_while(|h| h.block < index).count();
        let mine = rest[skip..].iter().take_while(|h| h.block == index).count();
        let (these, tail) = rest[skip..].split_at(mine);
        each(text, block, these);
        rest = tail;
    }
    parsed
}

/// Makes room for `need` more items in `items`, filled while reading a file of `total` bytes
/// of which `read` are read: as many as the rest of the file holds at the rate so far, so a
/// uniform file's vector ends about the size it needs. Never more than doubling (what a push
/// would take) and only for items already read, so no count taken ahead of the read (which
/// hostile text could inflate) reserves anything.
pub(crate) fn make_room<T>(items: &mut Vec<T>, need: usize, read: usize, total: usize) {
    if items.capacity() - items.len() >= need {
        return;
    }
    let len = items.len();
    let expected = len.saturating_mul(total) / read.max(1);
    let least = len / 8 + 16;
    let more = expected
        .saturating_sub(len)
        .clamp(least, len.max(least))
        .max(need);
    items.reserve_exact(more);
}

#[cfg(test)]
mod make_room_tests {
    use super::make_room;

    #[test]
    fn room_follows_the_rate_read_and_never_more_than_doubles() {
        let mut v: Vec<u8> = Vec::new();
        for len in 0..40 {
            v.truncate(0);
            v.shrink_to_fit();
            v.resize(len, 0);
            v.shrink_to_fit();
            // A tenth of the file read: expect ten times as many, but at most double.
            make_room(&mut v, 1, 10, 100);
            assert!(v.capacity() > len, "{len}");
            assert!(
                v.capacity() <= 2 * len.max(16 + len / 8) + 1,
                "{len}: {}",
                v.capacity()
            );
        }
        let mut v = vec![0u8; 1000];
        v.shrink_to_fit();
        make_room(&mut v, 1, 900, 1000);
        assert!(
            v.capacity() < 1200,
            "the rest of the file holds about 111 more"
        );
        let mut v = vec![0u8; 100];
        make_room(&mut v, 1, 1, usize::MAX);
        assert!(v.capacity() <= 200, "a huge estimate still only doubles");
    }
}

/// The original text with a hole per block edition (or branch).
#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    /// The file's text as UTF-8 (decoded from [`Skeleton::encoding`]); every offset in the
    /// document (holes, block spans, run `src`) indexes into it.
    pub original: String,
    /// How the file encodes `original`; the writer encodes back with it.
    pub encoding: Encoding,
    pub holes: Vec<Hole>,
    /// Edition and branch names already handed to a hole, shared by the holes that repeat
    /// them (a handful per file).
    names: Vec<Arc<HoleName>>,
}

/// Equal text, encoding and holes (the name cache is left out).
impl PartialEq for Skeleton {
    fn eq(&self, other: &Self) -> bool {
        self.original == other.original
            && self.encoding == other.encoding
            && self.holes == other.holes
    }
}

impl Eq for Skeleton {}

impl Skeleton {
    /// A skeleton over UTF-8 text.
    pub fn over(text: &str) -> Self {
        Self::decoded(text, Encoding::Utf8)
    }

    /// A skeleton over text decoded from `encoding`.
    pub fn decoded(text: &str, encoding: Encoding) -> Self {
        Self {
            original: text.to_owned(),
            encoding,
            holes: Vec::new(),
            names: Vec::new(),
        }
    }

    /// A skeleton over text the reader owns already (no copy).
    pub fn owned(text: String, encoding: Encoding) -> Self {
        Self {
            original: text,
            encoding,
            holes: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Room for `blocks` blocks in `document` and their holes here, without the doubling
    /// that growing one block at a time does (a `Block` is 168 bytes): `blocks` is a cheap
    /// upper bound a reader counts first (lines, start tags); room never touched costs no
    /// memory.
    pub fn reserve(&mut self, document: &mut Document, blocks: usize) {
        document.blocks.reserve_exact(blocks);
        self.holes.reserve_exact(blocks);
    }

    /// The text the offsets index into.
    pub fn text(&self) -> &str {
        &self.original
    }

    /// The names of a hole as a shared value: the one already handed out when a hole had
    /// them; `None` for a source edition read whole.
    fn intern(
        &mut self,
        edition: Option<&str>,
        branch: Option<&str>,
        kind: HoleKind,
    ) -> Option<Arc<HoleName>> {
        if edition.is_none() && branch.is_none() && kind == HoleKind::Runs {
            return None;
        }
        if let Some(known) = self.names.iter().rev().find(|n| {
            n.edition.as_deref() == edition && n.branch.as_deref() == branch && n.kind == kind
        }) {
            return Some(Arc::clone(known));
        }
        let shared = Arc::new(HoleName {
            edition: edition.map(Box::from),
            branch: branch.map(Box::from),
            kind,
        });
        // Bounded so a file with many distinct branch names stays linear.
        if self.names.len() < 64 {
            self.names.push(Arc::clone(&shared));
        }
        Some(shared)
    }

    /// A hole for a block's source edition.
    pub fn hole(&mut self, span: Range<usize>, block: usize, original: &Edition) {
        self.push(span, block, None, None, &original.runs);
    }

    /// A hole for any edition (`edition` = a target language) or one branch of it.
    pub fn push(
        &mut self,
        span: Range<usize>,
        block: usize,
        edition: Option<&str>,
        branch: Option<&str>,
        runs: &[Run],
    ) {
        let hole = Hole {
            span,
            block,
            name: self.intern(edition, branch, HoleKind::Runs),
            original: fingerprint_runs(runs),
        };
        self.holes.push(hole);
    }

    /// A [`HoleKind::State`] hole for the target `lang` of a block: `span` holds the state as
    /// the file records it, or is empty where it would go; `edition` is the target as read
    /// (`None` when the block has none).
    pub fn push_state(
        &mut self,
        span: Range<usize>,
        block: usize,
        lang: &str,
        edition: Option<&Edition>,
    ) {
        let hole = Hole {
            span,
            block,
            name: self.intern(Some(lang), None, HoleKind::State),
            original: edition.map_or(ABSENT, Edition::fingerprint),
        };
        self.holes.push(hole);
    }

    /// A [`HoleKind::Missing`] hole: the empty span `at` where the target `lang` of a block
    /// that has none would be written.
    pub fn push_missing(&mut self, at: usize, block: usize, lang: &str) {
        let hole = Hole {
            span: at..at,
            block,
            name: self.intern(Some(lang), None, HoleKind::Missing),
            original: ABSENT,
        };
        self.holes.push(hole);
    }

    /// Takes each hole's content as it is now as the content read (after a reader post-processes
    /// runs, such as splitting placeholders out of text).
    pub fn refresh(&mut self, document: &Document) {
        for hole in &mut self.holes {
            match hole.kind() {
                HoleKind::Runs => {
                    if let Some(runs) = hole_runs(document, hole) {
                        hole.original = fingerprint_runs(runs);
                    }
                }
                HoleKind::State => {
                    if let Some(edition) = hole_edition(document, hole) {
                        hole.original = edition.fingerprint();
                    }
                }
                HoleKind::Missing => {}
            }
        }
    }

    /// True when some hole's content differs from what was read.
    pub fn is_edited(&self, document: &Document) -> bool {
        self.holes
            .iter()
            .any(|hole| edited_runs(document, hole).is_some())
    }

    /// Rebuilds the file: untouched holes copy their original bytes; an edited hole is
    /// rendered by `render` (the format's escaping rules) from its current runs (a
    /// [`HoleKind::State`] or [`HoleKind::Missing`] hole gets its edition's runs, and
    /// `render` finds the edition with [`hole_edition`]). Holes must not overlap; an empty
    /// hole at the start of another is pushed before it. The result is encoded back to the file's encoding.
    pub fn fill(
        &self,
        document: &Document,
        render: impl FnMut(&Hole, &[Run]) -> Result<String, WriteError>,
    ) -> Result<Vec<u8>, WriteError> {
        let text = self.fill_text(self.original.as_bytes(), document, render)?;
        self.encode(text)
    }

    /// [`Skeleton::fill`] over other text (a container's part), without encoding.
    pub fn fill_text(
        &self,
        original: &[u8],
        document: &Document,
        mut render: impl FnMut(&Hole, &[Run]) -> Result<String, WriteError>,
    ) -> Result<Vec<u8>, WriteError> {
        let mut holes: Vec<&Hole> = self.holes.iter().collect();
        holes.sort_by_key(|h| h.span.start);
        let mut out = Vec::with_capacity(original.len());
        let mut at = 0;
        for hole in holes {
            let (Some(before), Some(held)) = (
                original.get(at..hole.span.start),
                original.get(hole.span.clone()),
            ) else {
                return Err(WriteError::Skeleton {
                    message: format!("hole {:?} lies outside the file", hole.span),
                });
            };
            out.extend_from_slice(before);
            match edited_runs(document, hole) {
                Some(runs) => {
                    let rendered = render(hole, runs)?;
                    // Room for the rest of the file too, exactly: an edit that lengthens a
                    // 100 MB file by a byte must not double the buffer.
                    if out.capacity() - out.len() < rendered.len() + original.len() - hole.span.end
                    {
                        out.reserve_exact(rendered.len() + original.len() - hole.span.end);
                    }
                    out.extend_from_slice(rendered.as_bytes());
                }
                _ => out.extend_from_slice(held),
            }
            at = hole.span.end;
        }
        out.extend_from_slice(original.get(at..).unwrap_or_default());
        Ok(out)
    }

    /// Encodes filled text back to the file's encoding.
    pub fn encode(&self, text: Vec<u8>) -> Result<Vec<u8>, WriteError> {
        if self.encoding == Encoding::Utf8 {
            return Ok(text);
        }
        let text = String::from_utf8(text).map_err(|_| WriteError::Skeleton {
            message: "the filled text is not UTF-8".into(),
        })?;
        self.encoding
            .encode(&text)
            .map_err(|c| WriteError::Unencodable {
                character: c,
                encoding: self.encoding,
            })
    }
}

/// The current runs a hole stands for, if the block, edition and branch still exist; `None`
/// for a hole that holds no runs of its own ([`HoleKind::State`], [`HoleKind::Missing`]).
pub fn hole_runs<'a>(document: &'a Document, hole: &Hole) -> Option<&'a [Run]> {
    if hole.kind() != HoleKind::Runs {
        return None;
    }
    hole_edition(document, hole)?.branch(hole.branch().unwrap_or(""))
}

/// The edition a hole belongs to (whatever it holds), if the block and edition exist.
pub fn hole_edition<'a>(document: &'a Document, hole: &Hole) -> Option<&'a Edition> {
    let block = document.blocks.get(hole.block)?;
    match hole.language() {
        None => Some(&block.source),
        Some(lang) => block.targets.get(lang),
    }
}

/// The runs to render in place of `hole` when it is edited: a runs hole's when they differ
/// from what was read; a state hole's edition's when the edition (runs or state) does; a
/// missing target's once the block has it. `None` when the hole is untouched.
fn edited_runs<'a>(document: &'a Document, hole: &Hole) -> Option<&'a [Run]> {
    match hole.kind() {
        HoleKind::Runs => {
            hole_runs(document, hole).filter(|runs| fingerprint_runs(runs) != hole.original)
        }
        HoleKind::State => hole_edition(document, hole)
            .filter(|e| e.fingerprint() != hole.original)
            .map(|e| e.runs.as_slice()),
        HoleKind::Missing => hole_edition(document, hole).map(|e| e.runs.as_slice()),
    }
}

/// Writes runs in their native form: text through `text` (the format's escaping), codes as
/// their data, switches as head, each branch's open, runs and close, then tail.
pub fn render_runs(runs: &[Run], out: &mut String, text: &mut impl FnMut(&str, &mut String)) {
    for run in runs {
        match run {
            Run::Text { text: t, .. } => text(t, out),
            Run::Code(code) => out.push_str(&code.data),
            Run::Switch(switch) => {
                out.push_str(&switch.head);
                for branch in &switch.branches {
                    out.push_str(&branch.open);
                    render_runs(&branch.runs, out, text);
                    out.push_str(&branch.close);
                }
                out.push_str(&switch.tail);
            }
        }
    }
}

/// A document and the skeleton it was read with.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub document: Document,
    pub skeleton: Skeleton,
    /// The file's raw bytes when the skeleton is one part inside a container (a .docx
    /// zip); the writer rebuilds the container around the filled part.
    pub container: Option<Vec<u8>>,
}

impl Parsed {
    pub fn new(document: Document, skeleton: Skeleton) -> Self {
        Self {
            document,
            skeleton,
            container: None,
        }
    }
}

/// One file format.
pub trait Format: Send + Sync {
    fn info(&self) -> &'static FormatInfo;
    /// Reads `bytes` into blocks. Never panics on malformed input.
    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError>;
    /// [`Format::read`], taking the bytes: a text format keeps them as the skeleton's text
    /// rather than a copy, so the file is in memory once while it is read. The same result
    /// as `read`, always (the conformance test holds every format to it).
    fn read_owned(&self, bytes: Vec<u8>) -> Result<Parsed, ReadError> {
        self.read(&bytes)
    }
    /// [`Format::read_owned`], handing each block to `each` as the read ends it (with the
    /// decoded text its span and runs index) instead of keeping it: a check or a page of
    /// blocks holds one block at a time, not the document. Returns the read without its
    /// blocks and holes (the skeleton keeps the text). `each` gets the blocks `read` reads,
    /// in order (the conformance test holds every format to it). This default reads the
    /// document first; a format whose reader ends blocks one by one streams them.
    fn read_each(&self, bytes: Vec<u8>, each: Each<'_>) -> Result<Parsed, ReadError> {
        Ok(hand_over(self.read_owned(bytes)?, each))
    }
    /// Writes the document back through the skeleton.
    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError>;
    /// The bytes of `text` an edit of the hole at `span` may rewrite: the hole itself, or
    /// more where the format keeps a structure around it in shape (a reStructuredText table
    /// widens a column for a cell's longer text). The conformance test holds every edit to it.
    fn extent(&self, text: &str, span: Range<usize>) -> Range<usize> {
        let _ = text;
        span
    }
    /// Whether a file with one of this format's extensions is this format, judged from its
    /// first bytes (up to 4 KB): how `.xlf` tells XLIFF 1.2 from 2.0 and `.xml` finds an
    /// Android resource file. Formats that own their extensions answer true.
    fn sniff(&self, head: &[u8]) -> bool {
        let _ = head;
        true
    }
    /// Why a file with one of this format's extensions is some other kind of file (an Android
    /// `<vector>` drawable in a `.xml`), judged from its first bytes; `None` when it may be
    /// this format's (a malformed one included: its read says what is wrong, and where).
    /// Formats that own their extensions answer `None`.
    fn foreign(&self, head: &[u8]) -> Option<String> {
        let _ = head;
        None
    }
}

/// Every format this build reads, in the order `kapi formats` lists them.
static ALL: [&dyn Format; 36] = [
    &markdown::Markdown,
    &markdown::Mdx,
    &rst::Rst,
    &asciidoc::AsciiDoc,
    &plaintext::PlainText,
    &html::Html,
    &json::Json,
    &json::Arb,
    &yaml::Yaml,
    &properties::Properties,
    &android::Android,
    &resx::Resx,
    &strings::AppleStrings,
    &stringsdict::StringsDict,
    &xcstrings::XcStrings,
    &fluent::Fluent,
    &po::Po,
    &xliff::Xliff,
    &xliff2::Xliff2,
    &qt::QtTs,
    &docx::Docx,
    &code::langs::RUST,
    &code::langs::PYTHON,
    &code::langs::JAVASCRIPT,
    &code::langs::TYPESCRIPT,
    &code::langs::TSX,
    &code::langs::GO,
    &code::langs::JAVA,
    &code::langs::C,
    &code::langs::CPP,
    &code::langs::CSHARP,
    &code::langs::KOTLIN,
    &code::langs::SWIFT,
    &code::langs::RUBY,
    &code::langs::SHELL,
    &code::langs::TOML,
];

/// Every format this build reads, in the order `kapi formats` lists them.
pub fn all() -> &'static [&'static dyn Format] {
    &ALL
}

/// The format with this id (`markdown`).
pub fn by_id(id: &str) -> Option<&'static dyn Format> {
    all().iter().copied().find(|f| f.info().id == id)
}

/// The formats that own `path`'s extension (any case), in registry order; none when it has
/// no extension.
pub fn by_extension(path: &Path) -> impl Iterator<Item = &'static dyn Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    all().iter().copied().filter(move |f| {
        ext.as_deref()
            .is_some_and(|e| f.info().extensions.contains(&e))
    })
}

/// The comment format that reads `path`, whose first bytes are `head`: source code whose
/// comments kapi reads. A `.ts` file is TypeScript unless `head` shows a Qt Linguist `<TS>`
/// root ([`for_file`]).
pub fn comment_format(path: &Path, head: &[u8]) -> Option<&'static dyn Format> {
    for_file(path, head).filter(|f| f.info().capabilities.comments)
}

/// The format for a file, by extension and then by [`Format::sniff`] over its first bytes
/// when several formats share the extension.
pub fn for_file(path: &Path, head: &[u8]) -> Option<&'static dyn Format> {
    let head = &head[..head.len().min(4096)];
    by_extension(path).find(|f| f.sniff(head))
}

/// The ids of every format, for error hints.
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|f| f.info().id).collect()
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    /// Every input a fuzzer ever crashed on (`testdata/fuzz/<format>/`), read by its format:
    /// never a panic, and when the read succeeds a no-op write gives the same bytes.
    #[test]
    fn fuzz_crashes_stay_fixed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/fuzz");
        let mut seen = 0;
        for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            let id = dir.file_name().to_string_lossy().into_owned();
            let format = by_id(&id).unwrap_or_else(|| panic!("testdata/fuzz/{id}: no such format"));
            for file in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let bytes = std::fs::read(file.path()).unwrap_or_default();
                if let Ok(parsed) = format.read(&bytes) {
                    let written = format.write(&parsed);
                    assert_eq!(
                        written.as_deref(),
                        Ok(bytes.as_slice()),
                        "{}",
                        file.path().display()
                    );
                }
                seen += 1;
            }
        }
        assert!(seen > 0);
    }

    /// Found by `fuzz/fuzz_targets/text.rs`: a trailing odd byte read as U+FFFF and was
    /// written back as two bytes.
    #[test]
    fn utf16_with_an_odd_byte_is_refused() {
        let mut bytes = vec![0xff, 0xfe, 0xff, 0xfe, 0x4c, 0xdb, 0x4c, 0xdc, 0x9c, 0x9c];
        bytes.extend([0xff; 117]);
        bytes.extend([0x9c, 0xff]);
        assert!(bytes.len() % 2 == 1);
        assert!(Encoding::Utf16Le.decode(&bytes).is_err());
        assert!(plaintext::PlainText.read(&bytes).is_err());
        let even = [0xff, 0xfe, 0x41, 0x00, 0x3d, 0xd8, 0x00, 0xde];
        let text = Encoding::Utf16Le.decode(&even).map(|t| t.into_owned());
        assert_eq!(text.as_deref(), Ok("\u{feff}A\u{1f600}"));
        assert_eq!(
            Encoding::Utf16Le.encode("\u{feff}A\u{1f600}"),
            Ok(even.to_vec())
        );
        let lone = [0xff, 0xfe, 0x3d, 0xd8, 0x41, 0x00];
        assert!(Encoding::Utf16Le.decode(&lone).is_err());
    }
}
