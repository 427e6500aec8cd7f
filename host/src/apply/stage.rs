//! The stage phase: every changed file rendered and read back, so an edit lands as the next
//! read sees it; a spliced file ([`super::splice`]) is read back by its values alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use kapi_core::change::ChangeSet;
use kapi_core::change::edit;
use kapi_core::change::result::{OpResult, OpStatus};
use kapi_core::formats::Parsed;
use kapi_core::model::{Block, Edition};

use super::diff::diff;
use super::{File, Loc, Service, refusal, refused};

impl Service<'_> {
    /// Renders every changed file and reads it back (see [`verify`]): each edited edition is
    /// replaced by the edition as read back, and each applied operation's `rev` is the one the
    /// next read reports. A file that cannot be written, or whose edit would not read back as
    /// sent, refuses every operation on it.
    pub(super) fn stage(
        &mut self,
        set: &ChangeSet,
        touched: &BTreeMap<Loc, Vec<usize>>,
        results: &mut [Option<OpResult>],
    ) -> Vec<Staged> {
        let mut staged = Vec::new();
        let mut paths: BTreeSet<PathBuf> = BTreeSet::new();
        let refuse_file = |results: &mut [Option<OpResult>], fi: usize, message: &str| {
            for (loc, ops) in touched {
                if loc.file == fi {
                    for &i in ops {
                        let r = refused(OpStatus::Unsupported, message.to_owned());
                        results[i] = Some(refusal(i, &set.operations[i], r));
                    }
                }
            }
        };
        for fi in 0..self.files.len() {
            let file = &self.files[fi];
            if file.originals.is_empty() {
                continue;
            }
            if !paths.insert(file.abs.clone()) {
                // One file reached two ways (as a document and as another's target edition):
                // two stagings of it would lose one's edits.
                let message = format!(
                    "`{}` is edited both as a document and as a target edition in this set; send one form",
                    file.doc
                );
                refuse_file(results, fi, &message);
                continue;
            }
            // A spliced file is rendered by the splice: the JSON writer's bytes, its style
            // read with `memchr`.
            let rendered = if file.spliced.is_some() {
                kapi_core::formats::splice::json::write(&file.parsed)
            } else {
                file.format.write(&file.parsed)
            };
            let bytes = match rendered {
                Ok(bytes) => bytes,
                Err(e) => {
                    let message = format!("`{}` cannot be written: {e}", file.doc);
                    refuse_file(results, fi, &message);
                    continue;
                }
            };
            // Hashed once: the no-op test, the read back's hand-back and the result's rev. A
            // spliced file's from the hash state before its first changed byte.
            let written = match &file.prefixes {
                Some(prefixes) => {
                    let old = file.parsed.skeleton.text().as_bytes();
                    prefixes.read_of(&bytes, super::diff::common_prefix(old, &bytes))
                }
                None => crate::document::FileRead::of(&bytes),
            };
            if written == file.read {
                continue;
            }
            // A source file's comment edit: it must still parse, and the formatter agree.
            let comment = match super::comment::lang_of(file.format.info().id) {
                Some(lang) => {
                    let before = file.parsed.skeleton.text();
                    match super::comment::verify(lang, &file.doc, &file.abs, before, &bytes) {
                        Ok(verified) => Some(verified),
                        Err(message) => {
                            refuse_file(results, fi, &message);
                            continue;
                        }
                    }
                }
                None => None,
            };
            // The diff now, then the file's text as read goes: the read back holds the
            // written bytes and its own tree, not the first text beside them.
            let diff = diff(file, &bytes);
            drop(std::mem::take(&mut self.files[fi].parsed.skeleton.original));
            let file = &self.files[fi];
            match verify(file, fi, bytes, &written, touched) {
                Ok((revs, bytes)) => {
                    for (loc, edition) in revs {
                        for &i in touched.get(&loc).into_iter().flatten() {
                            if let Some(r) = results[i].as_mut() {
                                let branch =
                                    set.operations[i].at().and_then(|a| a.branch.as_deref());
                                r.rev = edit::current(&edition, branch).map(|c| c.rev);
                            }
                        }
                        if let Some(now) = self.files[fi]
                            .parsed
                            .document
                            .blocks
                            .get_mut(loc.block)
                            .and_then(|b| b.edition_mut(&loc.edition))
                        {
                            *now = edition;
                        }
                    }
                    staged.push(Staged {
                        file: fi,
                        bytes,
                        rev: written.rev(),
                        diff,
                        comment,
                    });
                }
                Err(message) => refuse_file(results, fi, &message),
            }
        }
        staged
    }
}

/// Reads `bytes` back with the file's format: every edited edition must read back as the
/// block it was (same key) with the content it was given, in the same projection or the same
/// native text (literal text that spells a placeholder reads back as that placeholder), give
/// or take whitespace around it. An edit that would read back otherwise (a blank line that
/// splits a paragraph in two) is refused, so a result never claims what did not land.
/// Returns each edited edition as read back.
///
/// Takes the written bytes and hands them back: the read back takes them as its text (no copy
/// beside them), and they are the file's bytes again after it (the container, the text of a
/// file read as UTF-8, or that text encoded as the file was). `file`'s own text is gone by
/// then (see [`Service::stage`]). Bytes that do not come back the same (the SHA-256 of what
/// was written is the test) are bytes the next read would decode otherwise: a Latin-1 file
/// whose edit leaves it valid UTF-8 reads back as UTF-8, its other accented letters changed.
/// That refuses the file.
fn verify(
    file: &File,
    fi: usize,
    bytes: Vec<u8>,
    written: &crate::document::FileRead,
    touched: &BTreeMap<Loc, Vec<usize>>,
) -> Result<(ReadBack, Vec<u8>), String> {
    // A spliced file reads back by its values; where that cannot be proved, whole.
    let bytes = match super::splice::verify(file, fi, bytes, touched) {
        Ok(done) => return done,
        Err(bytes) => bytes,
    };
    let (revs, read) = verify_read(file, fi, bytes, touched)?;
    let encoding = file.parsed.skeleton.encoding;
    let Parsed {
        skeleton,
        container,
        ..
    } = read;
    let again = match container {
        Some(bytes) => Some(bytes),
        None if encoding == kapi_core::formats::Encoding::Utf8 => {
            Some(skeleton.original.into_bytes())
        }
        None => encoding.encode(&skeleton.original).ok(),
    };
    match again.filter(|b| written.same(b)) {
        Some(bytes) => Ok((revs, bytes)),
        None => Err(format!(
            "after this edit `{}` would read back in another encoding than {} (its other text would change); nothing was written",
            file.doc,
            encoding.name()
        )),
    }
}

/// A changed file, rendered and read back: its bytes, their rev, and the diff from the file
/// as read.
pub(super) struct Staged {
    pub(super) file: usize,
    pub(super) bytes: Vec<u8>,
    pub(super) rev: String,
    pub(super) diff: String,
    /// What the comment write path verified, for a source file.
    pub(super) comment: Option<kapi_core::change::result::CommentWrite>,
}

/// Each edited edition as the written file reads it back.
pub(super) type ReadBack = Vec<(Loc, Edition)>;

/// [`verify`]'s read back: each edited edition as read, and the read (its text, no blocks).
fn verify_read(
    file: &File,
    fi: usize,
    bytes: Vec<u8>,
    touched: &BTreeMap<Loc, Vec<usize>>,
) -> Result<(ReadBack, Parsed), String> {
    let name = file.format.info().name;
    // Read back keeping the edited blocks alone: the file is not held as a second document
    // beside the first. The file index of a held block (the same unless only the set's
    // blocks are held); a spliced file's blocks are held by key, which the splice proved
    // names one block of the file:
    let in_file = |block: usize| {
        file.picked
            .as_ref()
            .map_or(Some(block), |p| p.get(block).copied())
    };
    let mine = || touched.keys().filter(|l| l.file == fi);
    let edited: BTreeSet<usize> = mine().filter_map(|l| in_file(l.block)).collect();
    let keys: BTreeSet<&str> = mine()
        .filter_map(|l| file.parsed.document.blocks.get(l.block))
        .map(|b| b.key.as_str())
        .collect();
    let keyed = file.spliced.is_some();
    let picked = kapi_core::formats::output::read_picked(file.format, bytes, &mut |i, b| {
        if keyed {
            keys.contains(b.key.as_str())
        } else {
            edited.contains(&i)
        }
    })
    .map_err(|e| {
        format!(
            "the {name} writer would produce a file kapi cannot read back ({e}); nothing was written"
        )
    })?;
    let mut parsed = picked.parsed;
    let blocks = std::mem::take(&mut parsed.document.blocks);
    let (by_key, reread): (BTreeMap<String, Block>, BTreeMap<usize, Block>) = if keyed {
        let by_key = blocks.into_iter().map(|b| (b.key.clone(), b)).collect();
        (by_key, BTreeMap::new())
    } else {
        (
            BTreeMap::new(),
            picked.indices.into_iter().zip(blocks).collect(),
        )
    };
    let mut out = Vec::new();
    for loc in mine() {
        let was = file.parsed.document.blocks.get(loc.block);
        let is = if keyed {
            was.and_then(|w| by_key.get(&w.key))
        } else {
            in_file(loc.block).and_then(|i| reread.get(&i))
        };
        if let Some(back) = read_back(name, loc, was, is)? {
            out.push((loc.clone(), back));
        }
    }
    Ok((out, parsed))
}

/// The edition at `loc` as read back (`is`), when it is the block it was (`was`) with the
/// content it was given, in the same projection or the same native text, give or take
/// whitespace around it; `None` when either is gone.
pub(super) fn read_back(
    name: &str,
    loc: &Loc,
    was: Option<&Block>,
    is: Option<&Block>,
) -> Result<Option<Edition>, String> {
    let (Some(now), Some(back)) = (
        was.and_then(|b| b.edition(&loc.edition)),
        is.and_then(|b| b.edition(&loc.edition)),
    ) else {
        return Ok(None);
    };
    let key = |b: Option<&Block>| b.map(|b| b.key.clone());
    if key(was) != key(is) {
        return Err(format!(
            "the edit would change the {name} document's structure (block `{}` would not read back as itself); nothing was written",
            key(was).unwrap_or_default()
        ));
    }
    let sent = kapi_core::projection::render(&now.runs).0;
    let read = kapi_core::projection::render(&back.runs).0;
    // Whitespace around the whole text is the format's (Markdown and plain text keep none).
    if sent != read && native(&now.runs).trim() != native(&back.runs).trim() {
        return Err(format!(
            "the {name} writer cannot represent this edit faithfully: it would read back as {read:?}; nothing was written"
        ));
    }
    Ok(Some(back.clone()))
}

/// Runs as their native text, unescaped: text, each code's data, each switch as written.
fn native(runs: &[kapi_core::model::Run]) -> String {
    let mut out = String::new();
    kapi_core::formats::render_runs(runs, &mut out, &mut |text, out| out.push_str(text));
    out
}
