//! Formats: one reader and skeleton writer per file format, each declaring what it can do.
//! A reader returns the document and a skeleton (the original bytes with a hole per edition);
//! the writer fills the holes, copying every untouched one byte for byte.

pub mod markdown;
pub mod plaintext;

use std::ops::Range;
use std::path::Path;

use serde::Serialize;

use crate::error::Hint;
use crate::model::{Document, Edition};

/// What a format can do, as `kapi formats` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// Has a reader and a writer, and is not a bilingual interchange format.
    pub editable: bool,
    /// The writer works from a skeleton, so an edit changes only the edited text.
    pub round_trip: bool,
    /// Can author a document from the content model alone.
    pub generative: bool,
    /// Holds source and target in one file (XLIFF, PO).
    pub bilingual: bool,
}

/// A format's identity: the id used in `kapi.yaml`, its extensions and its capabilities.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FormatInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub capabilities: Capabilities,
}

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
        }
    }
}

impl ReadError {
    /// Decodes `bytes` as UTF-8 text (a UTF-8 BOM is allowed and kept in the skeleton),
    /// refusing binary data and invalid sequences with their position.
    pub fn decode(bytes: &[u8]) -> Result<&str, ReadError> {
        if let Some(offset) = bytes.iter().position(|&b| b == 0) {
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

/// Why a document could not be written back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("block `{key}` cannot be written: {message}")]
    Block { key: String, message: String },
}

/// A hole in the skeleton: the bytes of one block's source edition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    pub span: Range<usize>,
    /// Index of the block in the document.
    pub block: usize,
    /// [`Edition::fingerprint`] of the edition as read, to tell an edited hole from an
    /// untouched one without keeping a copy of every edition.
    pub original: u64,
}

/// The original bytes with a hole per block edition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skeleton {
    pub original: Vec<u8>,
    pub holes: Vec<Hole>,
}

impl Skeleton {
    pub fn over(bytes: &[u8]) -> Self {
        Self {
            original: bytes.to_vec(),
            holes: Vec::new(),
        }
    }

    pub fn hole(&mut self, span: Range<usize>, block: usize, original: &Edition) {
        let original = original.fingerprint();
        self.holes.push(Hole {
            span,
            block,
            original,
        });
    }

    /// Rebuilds the file: untouched holes copy their original bytes; an edited hole is
    /// rendered by `render` (the format's escaping rules). Holes must not overlap.
    pub fn fill(
        &self,
        document: &Document,
        mut render: impl FnMut(&Hole, &Edition) -> Result<String, WriteError>,
    ) -> Result<Vec<u8>, WriteError> {
        let mut holes: Vec<&Hole> = self.holes.iter().collect();
        holes.sort_by_key(|h| h.span.start);
        let mut out = Vec::with_capacity(self.original.len());
        let mut at = 0;
        for hole in holes {
            out.extend_from_slice(&self.original[at..hole.span.start]);
            let current = document.blocks.get(hole.block).map(|b| &b.source);
            match current {
                Some(edition) if edition.fingerprint() != hole.original => {
                    out.extend_from_slice(render(hole, edition)?.as_bytes());
                }
                _ => out.extend_from_slice(&self.original[hole.span.clone()]),
            }
            at = hole.span.end;
        }
        out.extend_from_slice(&self.original[at..]);
        Ok(out)
    }
}

/// A document and the skeleton it was read with.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub document: Document,
    pub skeleton: Skeleton,
}

/// One file format.
pub trait Format: Send + Sync {
    fn info(&self) -> &'static FormatInfo;
    /// Reads `bytes` into blocks. Never panics on malformed input.
    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError>;
    /// Writes the document back through the skeleton.
    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError>;
}

/// Every format this build reads, in the order `kapi formats` lists them.
pub fn all() -> &'static [&'static dyn Format] {
    &[&markdown::Markdown, &plaintext::PlainText]
}

/// The format with this id (`markdown`).
pub fn by_id(id: &str) -> Option<&'static dyn Format> {
    all().iter().copied().find(|f| f.info().id == id)
}

/// The format for a file name, by extension (case-insensitive).
pub fn for_path(path: &Path) -> Option<&'static dyn Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    all()
        .iter()
        .copied()
        .find(|f| f.info().extensions.contains(&ext.as_str()))
}

/// The ids of every format, for error hints.
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|f| f.info().id).collect()
}
