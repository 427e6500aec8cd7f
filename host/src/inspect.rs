//! The read leg: one `kapi.blocks/v1` record per block, shared by `kapi inspect` and the MCP
//! `read_blocks` tool, and `--verify` (does a no-op write give the bytes read?).
//!
//! A record names its edition by `ref` (`{doc, block, edition}`), guards it by `rev`, shows
//! its text with inline codes as `<x id="…"/>` tags and lists each code beside it; `label`
//! is the block's readable name beside a structural key (Markdown's `install/p#2` for
//! `s3/p#2`), when the format has one. Other editions (targets) come in `editions`, each
//! with its own rev and `accepts`. `accepts` is what an edit may do to that edition: nothing
//! for a bilingual interchange file (edit the source where it is authored), a block the file
//! marks untranslatable, code, or a target a catalog lacks (kapi does not insert keys yet)
//! — and `why` says which. Pages: `limit` blocks from `cursor` (`<index>@<file rev>`); a
//! cursor from another version of the file is refused so a caller never stitches two
//! versions together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kapi_core::formats::Format;
use kapi_core::model::{Block, Edition, Ref, Role, SOURCE, rev_runs};
use kapi_core::project::Project;
use kapi_core::projection::{self, CodeInfo};
use serde::Serialize;

use crate::app::{App, ResolvedPath};
use crate::document::{self, Editions, Loaded};
use crate::error::HostError;

/// What to read.
#[derive(Debug, Clone)]
pub struct InspectRequest {
    /// The file, resolved once at the surface ([`App::resolve`] on the command line,
    /// [`App::resolve_from`] from the project's root over MCP).
    pub path: ResolvedPath,
    pub editions: Editions,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    /// A format id that overrides detection.
    pub format: Option<String>,
}

/// `kapi.blocks/v1`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Blocks {
    pub schema: &'static str,
    pub doc: String,
    pub format: &'static str,
    /// `f` + 16 hex of SHA-256 over the file's bytes.
    pub file_rev: String,
    /// Blocks in the document (all pages).
    pub total: usize,
    pub blocks: Vec<Record>,
    /// The cursor of the next page; `null` on the last.
    pub next: Option<String>,
}

/// One block's read record.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Record {
    #[serde(rename = "ref")]
    pub at: Ref,
    /// A readable name beside a structural key (Markdown's `install/p#2` for `s3/p#2`);
    /// an edit names the block by `ref.block`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub rev: String,
    pub role: Role,
    pub level: u32,
    pub translatable: bool,
    pub text: String,
    pub codes: Vec<CodeInfo>,
    pub branches: Vec<BranchView>,
    pub editions: BTreeMap<String, EditionView>,
    pub accepts: Vec<&'static str>,
    /// Why `accepts` is empty, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// 1-based line of the block in the file, when the format knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// One leaf branch of a switch.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BranchView {
    pub path: String,
    pub text: String,
    pub rev: String,
    /// A plural form the target's language needs and its ICU plural lacks (`plurals.missing`):
    /// its text is empty, and a `set_content` at its path (with this `rev`) adds it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub absent: bool,
}

/// A target edition beside the source.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EditionView {
    /// The document that holds this edition (a target file, or the same bilingual file).
    pub doc: String,
    /// `null` when the target lacks the block.
    pub text: Option<String>,
    pub rev: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<CodeInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<BranchView>,
    pub accepts: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Reads a document's blocks.
pub fn inspect(app: &App, request: &InspectRequest) -> Result<Blocks, HostError> {
    // The page is known before the read (a cursor's rev is checked after it), so only the
    // page's blocks are kept.
    let start = match &request.cursor {
        None => 0,
        // A malformed cursor is refused after the read, as a stale one is.
        Some(cursor) => cursor_index(cursor).unwrap_or(0),
    };
    let window = match request.limit {
        Some(limit) => start..start.saturating_add(limit.max(1)),
        None => start..usize::MAX,
    };
    let project = app.project()?;
    let loaded = load(
        app,
        project.as_ref(),
        request,
        document::Hold::Window(&window),
    )?;
    let file_rev = loaded.read.rev();
    if let Some(cursor) = &request.cursor {
        parse_cursor(cursor, &file_rev)?;
    }
    let total = loaded.total;
    let end = window.end.min(total);
    let text = loaded.parsed.skeleton.text();
    let lines = kapi_core::text::LineIndex::new(text);
    let held = &loaded.parsed.document.blocks;
    let at = |i: usize| i.saturating_sub(loaded.first).min(held.len());
    let blocks = held[at(start)..at(end).max(at(start))]
        .iter()
        .map(|block| record(&loaded, block, text, &lines))
        .collect();
    let next = (end < total).then(|| format!("{end}@{file_rev}"));
    Ok(Blocks {
        schema: "kapi.blocks/v1",
        doc: loaded.doc.clone(),
        format: loaded.format.info().id,
        file_rev,
        total,
        blocks,
        next,
    })
}

/// What a whole document's read gives ahead of its records, for a view that prints each
/// record as it is made: the answer without its blocks (`total` counted), and the widest
/// block key and label, in characters.
#[derive(Debug)]
pub struct Outline {
    pub head: Blocks,
    pub key_width: usize,
    pub label_width: usize,
}

/// What [`inspect_each`] hands its caller, in order: the outline, then each record.
#[derive(Debug)]
pub enum Part<'o> {
    Outline(&'o Outline),
    Record(Box<Record>),
}

/// A file this large is read twice by [`inspect_each`] rather than held: a document's blocks
/// and records are up to about 20 times its file (the Python docs' highlighted listings, a
/// code per 12 bytes), so a smaller one costs at most about 10 MB held.
const HELD_BELOW: u64 = 512 << 10;

/// A whole document's records (`request`'s `limit` and `cursor` are not read), handed to
/// `each` in order as they are made, after the [`Outline`]. A file from 512 KB is read
/// twice, to count and measure its blocks and then for the records, so it costs the file and
/// one block, never the document (a source paired with target files is still held whole);
/// one that changed between the two reads is an error after its records.
pub fn inspect_each(
    app: &App,
    request: &InspectRequest,
    each: &mut dyn FnMut(Part<'_>),
) -> Result<(), HostError> {
    let small = request.path.meta().is_ok_and(|m| m.len() < HELD_BELOW);
    if small {
        let whole = InspectRequest {
            limit: None,
            cursor: None,
            ..request.clone()
        };
        hand_over(inspect(app, &whole)?, each);
        return Ok(());
    }
    let (mut key_width, mut label_width) = (0, 0);
    let mut measure = |_, block: Block| {
        key_width = key_width.max(block.key.chars().count());
        let label = block.label.as_deref().map_or(0, |l| l.chars().count());
        label_width = label_width.max(label);
    };
    // One project for both reads.
    let project = app.project()?;
    let first = load(
        app,
        project.as_ref(),
        request,
        document::Hold::Each(&mut measure),
    )?;
    let text = first.parsed.skeleton.text();
    let lines = kapi_core::text::LineIndex::new(text);
    let mut head = Blocks {
        schema: "kapi.blocks/v1",
        doc: first.doc.clone(),
        format: first.format.info().id,
        file_rev: first.read.rev(),
        total: first.total,
        blocks: Vec::new(),
        next: None,
    };
    if !first.streamed {
        // Held whole (target files pair with it).
        let held = first.parsed.document.blocks.iter();
        head.blocks = held.map(|b| record(&first, b, text, &lines)).collect();
        hand_over(head, each);
        return Ok(());
    }
    each(Part::Outline(&Outline {
        head,
        key_width,
        label_width,
    }));
    let mut made =
        |_, block: Block| each(Part::Record(Box::new(record(&first, &block, text, &lines))));
    let second = load(
        app,
        project.as_ref(),
        request,
        document::Hold::Each(&mut made),
    )?;
    if second.read.digest != first.read.digest {
        return Err(HostError::Io {
            path: request.path.given().to_path_buf(),
            source: std::io::Error::other("the file changed while it was read; read it again"),
        });
    }
    Ok(())
}

/// Reads the request's file in `project`, the one the call binds
/// ([`document::load_resolved`]).
fn load(
    app: &App,
    project: Option<&Project>,
    request: &InspectRequest,
    hold: document::Hold<'_>,
) -> Result<Loaded, HostError> {
    document::load_resolved(
        app,
        project,
        &request.path,
        &request.editions,
        request.format.as_deref(),
        hold,
    )
}

/// Hands a held answer's outline, then its records, to `each`.
fn hand_over(mut blocks: Blocks, each: &mut dyn FnMut(Part<'_>)) {
    let records = std::mem::take(&mut blocks.blocks);
    let widest = |of: &dyn Fn(&Record) -> usize| records.iter().map(of).max().unwrap_or(0);
    let key_width = widest(&|r| r.at.block.chars().count());
    let label_width = widest(&|r| r.label.as_deref().map_or(0, |l| l.chars().count()));
    each(Part::Outline(&Outline {
        head: blocks,
        key_width,
        label_width,
    }));
    records
        .into_iter()
        .for_each(|r| each(Part::Record(Box::new(r))));
}

/// A file's rev from the SHA-256 of its bytes: `f` and the first 8 bytes in hex.
pub fn rev_of_digest(digest: &[u8; 32]) -> String {
    format!("f{}", hex(&digest[..8]))
}

/// `bytes` in lower-case hex, two digits a byte.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// The block index a cursor names, its rev unchecked ([`parse_cursor`] checks it).
fn cursor_index(cursor: &str) -> Result<usize, HostError> {
    parse_cursor(cursor, cursor.split_once('@').map_or("", |(_, rev)| rev))
}

fn parse_cursor(cursor: &str, file_rev: &str) -> Result<usize, HostError> {
    let Some((index, rev)) = cursor.split_once('@') else {
        return Err(HostError::Usage {
            message: format!("`{cursor}` is not a cursor kapi handed out"),
            hint: Some("pass the `next` value of a previous page, or no cursor to start".into()),
        });
    };
    let index: usize = index.parse().map_err(|_| HostError::Usage {
        message: format!("`{cursor}` is not a cursor kapi handed out"),
        hint: Some("pass the `next` value of a previous page, or no cursor to start".into()),
    })?;
    if rev != file_rev {
        return Err(HostError::StaleCursor {
            cursor: cursor.to_owned(),
        });
    }
    Ok(index)
}

fn record(
    loaded: &Loaded,
    block: &Block,
    text: &str,
    lines: &kapi_core::text::LineIndex,
) -> Record {
    let info = loaded.format.info();
    let (source_text, codes) = projection::render(&block.source.runs);
    let (mut accepts, why) = source_accepts(loaded.format, block);
    if loaded.in_project && !accepts.is_empty() {
        accepts.push("decide");
    }
    let mut editions = BTreeMap::new();
    if info.capabilities.bilingual {
        for (lang, edition) in &block.targets {
            editions.insert(
                lang.clone(),
                view(
                    &loaded.doc,
                    Some(lang),
                    edition,
                    bilingual_target(loaded, block),
                ),
            );
        }
    } else {
        for target in &loaded.targets {
            let accepts_target = target_accepts(loaded, block, target.parsed.is_some());
            match block.targets.get(&target.lang) {
                Some(edition) => {
                    editions.insert(
                        target.lang.clone(),
                        view(&target.doc, Some(&target.lang), edition, accepts_target),
                    );
                }
                None => {
                    let why = if target.parsed.is_none() {
                        format!("`{}` does not exist yet", target.doc)
                    } else {
                        format!(
                            "`{}` has no `{}`: `kapi translate` and `kapi up` add it",
                            target.doc, block.key
                        )
                    };
                    editions.insert(
                        target.lang.clone(),
                        EditionView {
                            doc: target.doc.clone(),
                            text: None,
                            rev: None,
                            state: None,
                            codes: Vec::new(),
                            branches: Vec::new(),
                            accepts: Vec::new(),
                            why: Some(why),
                        },
                    );
                }
            }
        }
    }
    // A part inside a container (Word's document.xml) has no line a reader could use.
    let line = (loaded.parsed.container.is_none() && (block.span.start > 0 || block.span.end > 0))
        .then(|| lines.line(block.span.start.min(text.len())));
    Record {
        at: Ref {
            doc: loaded.doc.clone(),
            block: block.key.clone(),
            edition: SOURCE.to_owned(),
            branch: None,
        },
        label: block.label.as_deref().map(str::to_owned),
        rev: block.source.rev(),
        role: block.role,
        level: block.level,
        translatable: block.translatable,
        text: source_text,
        codes,
        branches: branches(&block.source, None),
        editions,
        why: accepts.is_empty().then_some(why).flatten(),
        accepts,
        notes: block.notes.clone(),
        line,
    }
}

/// (accepts, why) for the source edition.
fn source_accepts(format: &dyn Format, block: &Block) -> (Vec<&'static str>, Option<String>) {
    let info = format.info();
    if info.capabilities.bilingual {
        return (
            Vec::new(),
            Some(format!(
                "{} is a bilingual interchange format: kapi reads and checks it, edit the source where it is authored",
                info.name
            )),
        );
    }
    if info.capabilities.comments {
        // Rewritten whole through the comment write path (`kapi apply`; MCP's `read_blocks`
        // refuses a source file before it gets here).
        return match &block.locked {
            Some(reason) => (Vec::new(), Some(reason.to_string())),
            None => (vec!["set_content"], None),
        };
    }
    if !info.capabilities.editable {
        return (
            Vec::new(),
            Some(format!("kapi does not write {} files", info.name)),
        );
    }
    if let Some(reason) = &block.locked {
        return (Vec::new(), Some(reason.to_string()));
    }
    if !block.translatable {
        let why = match block.role {
            Role::Code => "a code block: not prose".to_owned(),
            _ => "the file marks this block as not translatable".to_owned(),
        };
        return (Vec::new(), Some(why));
    }
    (vec!["set_content", "replace_text"], None)
}

/// (accepts, why) for a target edition of a bilingual file: edited in place, marked a draft
/// needing review when no person edits it (PO `fuzzy`, XLIFF `needs-review-translation`).
fn bilingual_target(loaded: &Loaded, block: &Block) -> (Vec<&'static str>, Option<String>) {
    if let Some(reason) = &block.locked {
        return (Vec::new(), Some(reason.to_string()));
    }
    if !block.translatable {
        return (
            Vec::new(),
            Some("the file marks this block as not translatable".to_owned()),
        );
    }
    let mut accepts = vec!["set_content", "replace_text"];
    if loaded.in_project {
        accepts.push("decide");
    }
    (accepts, None)
}

fn target_accepts(
    loaded: &Loaded,
    block: &Block,
    exists: bool,
) -> (Vec<&'static str>, Option<String>) {
    let (mut accepts, why) = source_accepts(loaded.format, block);
    if accepts.is_empty() || !exists {
        return (accepts, why);
    }
    if loaded.in_project {
        accepts.push("decide");
    }
    (accepts, None)
}

fn view(
    doc: &str,
    lang: Option<&str>,
    edition: &Edition,
    (accepts, why): (Vec<&'static str>, Option<String>),
) -> EditionView {
    let (text, codes) = projection::render(&edition.runs);
    EditionView {
        doc: doc.to_owned(),
        text: Some(text),
        rev: Some(edition.rev()),
        state: edition.state.as_deref().map(str::to_owned),
        codes,
        branches: branches(edition, lang),
        why: if accepts.contains(&"set_content") {
            None
        } else {
            why
        },
        accepts,
    }
}

/// `edition`'s leaf branches, then (a target in `lang`) the plural forms it lacks and the
/// language needs, which an edit adds ([`kapi_core::change::forms`]).
fn branches(edition: &Edition, lang: Option<&str>) -> Vec<BranchView> {
    let mut out: Vec<BranchView> = edition
        .leaves()
        .into_iter()
        .map(|(path, runs)| BranchView {
            text: projection::render_text(runs),
            rev: rev_runs(runs),
            path,
            absent: false,
        })
        .collect();
    let needed = lang
        .filter(|_| kapi_core::change::forms::has_growable(edition))
        .and_then(kapi_core::plurals::needed_and_all);
    if let Some((needed, _)) = needed {
        for path in kapi_core::change::forms::lacking(edition, &needed) {
            out.push(BranchView {
                path,
                text: String::new(),
                rev: kapi_core::change::forms::absent_rev(),
                absent: true,
            });
        }
    }
    out
}

/// One file's `--verify` answer.
#[derive(Debug, Clone, Serialize)]
pub struct Verified {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// `identical`, `differs` or `unreadable`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
    /// The first differing byte offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// A few bytes around `offset`, as read and as written (lossy UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrote: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

/// Reads each file, writes it back in memory and compares the bytes.
pub fn verify(app: &App, paths: &[PathBuf], format: Option<&str>) -> Vec<Verified> {
    paths
        .iter()
        .map(|path| verify_one(app, path, format))
        .collect()
}

fn verify_one(app: &App, path: &Path, format_id: Option<&str>) -> Verified {
    let display = path.display().to_string();
    let failed = |error: HostError| Verified {
        path: display.clone(),
        format: None,
        status: "unreadable",
        bytes: None,
        offset: None,
        read: None,
        wrote: None,
        hints: kapi_core::Hint::hints(&error),
        error: Some(error.to_string()),
    };
    let loaded = match document::load(app, path, &Editions::Source, format_id) {
        Ok(loaded) => loaded,
        Err(error) => return failed(error),
    };
    let written = match loaded.format.write(&loaded.parsed) {
        Ok(written) => written,
        Err(error) => {
            return Verified {
                format: Some(loaded.format.info().id),
                ..failed(HostError::Internal {
                    message: format!("writing `{display}` back failed: {error}"),
                })
            };
        }
    };
    let base = Verified {
        path: display.clone(),
        format: Some(loaded.format.info().id),
        status: "identical",
        bytes: Some(loaded.read.len),
        offset: None,
        read: None,
        wrote: None,
        error: None,
        hints: Vec::new(),
    };
    if loaded.read.same(&written) {
        return base;
    }
    // The bytes as read, again, to show where the two part.
    let bytes = match document::read_bytes(&loaded.abs, &display) {
        Ok(bytes) if loaded.read.same(&bytes) => bytes,
        // Changed (or gone) since it was read: what differs would describe other bytes.
        Ok(_) | Err(_) => {
            return Verified {
                format: Some(loaded.format.info().id),
                ..failed(HostError::Usage {
                    message: format!("`{display}` changed while kapi verified it"),
                    hint: Some("run `kapi inspect --verify` again once nothing writes it".into()),
                })
            };
        }
    };
    let at = written
        .iter()
        .zip(&bytes)
        .position(|(a, b)| a != b)
        .unwrap_or(written.len().min(bytes.len()));
    let around = |bytes: &[u8]| {
        let from = at.saturating_sub(16);
        let to = (at + 16).min(bytes.len());
        String::from_utf8_lossy(bytes.get(from..to).unwrap_or_default()).into_owned()
    };
    Verified {
        status: "differs",
        offset: Some(at),
        read: Some(around(&bytes)),
        wrote: Some(around(&written)),
        hints: vec![
            "do not edit this file through kapi: its writer would change bytes no edit named; report it with the file"
                .to_owned(),
        ],
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_spells_each_byte_in_two_digits_and_a_rev_takes_eight_bytes() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        let mut digest = [0u8; 32];
        digest[0] = 0xab;
        digest[7] = 0x01;
        digest[8] = 0xff;
        assert_eq!(rev_of_digest(&digest), "fab00000000000001");
    }
}
