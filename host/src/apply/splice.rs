//! The splice path of a change set: a JSON catalog edited only by `set_content`/`replace_text`
//! on its source is opened by finding the named values alone and read back by them alone.
//!
//! It is an optimisation of the full read, never a second behaviour: a document is spliced
//! only when every operation naming it is a source `set_content` or `replace_text`
//! ([`eligible`]), its format is JSON as [`crate::document`] would pick it, and
//! [`kapi_core::formats::splice::json::locate`] proves the blocks it finds are the full
//! reader's (each key names one string value, the file is strict UTF-8 JSON within the
//! reader's limits). The blocks, holes, revisions, render, diff, commit check, write and
//! record are then the full path's own; the read back after the render is the values alone
//! ([`verify`]) unless it cannot be proved, when the file is read back whole. Anything else
//! (another format, a duplicate key, a plural group, a target edition, a decision on the
//! document) takes the full path from the start, so the result and the file are the same.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use kapi_core::change::{ChangeSet, Operation};
use kapi_core::formats::splice::json;
use kapi_core::model::SOURCE;

use super::stage::{ReadBack, read_back};
use super::{Doc, File, Loc, Service, real_path};
use crate::app::ResolvedPath;

/// The docs a splice may open: those every operation of `set` naming them is a
/// `set_content` or `replace_text` of their source edition.
pub(super) fn eligible(set: &ChangeSet) -> BTreeSet<String> {
    let mut yes = BTreeSet::new();
    let mut no = BTreeSet::new();
    for op in &set.operations {
        let Some(at) = op.at() else { continue };
        let content = matches!(
            op,
            Operation::SetContent { .. } | Operation::ReplaceText { .. }
        );
        if content && at.edition == SOURCE {
            yes.insert(at.doc.clone());
        } else {
            no.insert(at.doc.clone());
        }
    }
    yes.retain(|doc| !no.contains(doc));
    yes
}

impl Service<'_> {
    /// Opens `doc` (at `path`, admitted) by the splice, holding the blocks the set names as the
    /// full read would hold them; `None` when the splice may not or cannot prove it, and the
    /// document is read whole.
    pub(super) fn open_spliced(&mut self, doc: &str, path: &ResolvedPath) -> Option<usize> {
        if !self.splice.as_ref()?.contains(doc) || self.translations.contains_key(doc) {
            return None;
        }
        let keys = self.blocks.get(doc)?;
        // The format as the full read picks it: the collection's, else the extension's.
        let collections = match &self.project {
            Some(p) => Some(p.collections().ok()?),
            None => None,
        };
        let declared = collections
            .as_ref()
            .zip(path.rel())
            .and_then(|(c, rel)| crate::document::declared_at(c, rel));
        let format = crate::document::pick(path.abs(), declared.as_deref()).ok()??;
        if format.info().id != kapi_core::formats::json::INFO.id {
            return None;
        }
        let meta = path.meta().ok()?;
        if !meta.is_file() {
            return None;
        }
        let name = path.doc();
        let bytes = read_whole(path.abs())?;
        let (read, prefixes) = Prefixes::of(&bytes);
        let located = json::locate(json::utf8(bytes)?, keys)?;
        let in_project = self.project.is_some();
        let file = self.files.len();
        self.files.push(File {
            doc: if in_project { name } else { doc.to_owned() },
            real: real_path(path.abs()),
            abs: path.abs().to_path_buf(),
            format,
            read,
            parsed: located.parsed,
            picked: None,
            spliced: Some(located.key_bytes),
            prefixes: Some(prefixes),
            originals: BTreeMap::new(),
            target_of: None,
        });
        self.doc_list.push(Doc {
            file,
            targets: BTreeMap::new(),
            in_project,
        });
        Some(self.doc_list.len() - 1)
    }
}

/// The bytes of the file at `abs`, read in one call sized by its length (the open file's, so
/// no growing reads); `None` where [`crate::document::read_bytes`] might not give them (an
/// error, or a file past [`crate::document::MAX_FILE_BYTES`]), which the full path reports.
fn read_whole(abs: &std::path::Path) -> Option<Vec<u8>> {
    let mut file = std::fs::File::open(abs).ok()?;
    let len = file.metadata().ok()?.len();
    if len > crate::document::MAX_FILE_BYTES {
        return None;
    }
    // Room for one byte more: a file that grew since is still read to its end, then refused.
    let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?.checked_add(1)?);
    file.read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= crate::document::MAX_FILE_BYTES).then_some(bytes)
}

/// A verified read back: each edited edition and the bytes, or the refusal of the file.
type Verified = Result<(ReadBack, Vec<u8>), String>;

/// The read back of a spliced file (`fi`) after its render (`bytes`): each edited edition read
/// from its value alone, as [`super::stage`]'s whole read back would give it, or the refusal
/// that read back gives. The bytes come back (`Err`) when the file is no spliced one or the
/// values alone cannot prove it (a block now too dense, say): then the file is read whole.
pub(super) fn verify(
    file: &File,
    fi: usize,
    bytes: Vec<u8>,
    touched: &BTreeMap<Loc, Vec<usize>>,
) -> Result<Verified, Vec<u8>> {
    let Some(key_bytes) = file.spliced else {
        return Err(bytes);
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(bytes);
    };
    let Some(blocks) = json::reread(text, &file.parsed, key_bytes) else {
        return Err(bytes);
    };
    let name = file.format.info().name;
    let mut out = Vec::new();
    for loc in touched.keys().filter(|l| l.file == fi) {
        let was = file.parsed.document.blocks.get(loc.block);
        match read_back(name, loc, was, blocks.get(loc.block)) {
            Ok(Some(edition)) => out.push((loc.clone(), edition)),
            Ok(None) => {}
            Err(message) => return Ok(Err(message)),
        }
    }
    // The bytes are UTF-8 text the JSON reader takes as they are: the whole read back would
    // hand the same bytes back (its encoding check passes by construction).
    Ok(Ok((out, bytes)))
}

mod hash;
pub(super) use hash::Prefixes;

#[cfg(test)]
mod tests;
