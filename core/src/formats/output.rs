//! Where a reader puts each block it ends: kept in the document, its holes in the skeleton
//! ([`super::Format::read`]), or handed over with its holes and dropped
//! ([`super::Format::read_each`]).
//!
//! Readers push through an [`Output`] so that one reader serves every read: a check or a page
//! of blocks then holds the file and one block, never the document. A text format's three
//! reads (`read`, `read_owned`, `read_each`) are `text_reads!` over its decoder and reader.

use std::borrow::Cow;

use super::{Each, Encoding, Hole, Parsed, ReadError, Skeleton};
use crate::model::{Block, Document};

/// A reader's output: the document and skeleton it fills, or the `each` it hands blocks to.
pub struct Output<'e> {
    pub document: Document,
    pub skeleton: Skeleton,
    each: Option<Each<'e>>,
    /// Blocks ended so far, kept or handed over: the index of the block being read.
    ended: usize,
    /// The first block refused ([`super::MAX_CODES`]): no block is kept or handed over after
    /// it, and the read ends with it.
    refused: Option<ReadError>,
}

impl<'e> Output<'e> {
    pub fn new(format: &str, skeleton: Skeleton, each: Option<Each<'e>>) -> Self {
        Output {
            document: Document {
                format: format.into(),
                blocks: Vec::new(),
            },
            skeleton,
            each,
            ended: 0,
            refused: None,
        }
    }

    /// The index the block being read gets (what its holes name).
    pub fn index(&self) -> usize {
        self.ended
    }

    /// Whether blocks are handed over rather than kept (a reader then reserves no room).
    pub fn streams(&self) -> bool {
        self.each.is_some()
    }

    /// Room for `blocks` blocks and their holes, when they are kept ([`Skeleton::reserve`]).
    pub fn reserve(&mut self, blocks: usize) {
        if !self.streams() {
            self.skeleton.reserve(&mut self.document, blocks);
        }
    }

    /// Room for one more block and `holes` holes, at the rate the `read` bytes of a `total`
    /// so far gave them (`make_room`), when blocks are kept.
    pub fn make_room(&mut self, holes: usize, read: usize, total: usize) {
        if !self.streams() {
            super::make_room(&mut self.document.blocks, 1, read, total);
            super::make_room(&mut self.skeleton.holes, holes, read, total);
        }
    }

    /// Refuses the block being read (a reader that stopped taking its content): the read
    /// fails with `error`, unless an earlier block's refusal came first.
    pub fn refuse(&mut self, error: ReadError) {
        self.refused.get_or_insert(error);
    }

    /// Whether a block was refused: the read will fail, so a reader may stop.
    pub fn refused(&self) -> bool {
        self.refused.is_some()
    }

    /// Ends the block being read: keeps it, or hands it over with its holes (`text` is the
    /// decoded text its offsets index). A block with more than [`super::MAX_CODES`] codes
    /// in an edition is refused at its start (a reader may have stopped making its codes
    /// there: it is never kept or handed over), and so is every block after it.
    pub fn push(&mut self, text: &str, block: Block) {
        let index = self.ended;
        self.ended += 1;
        if self.refused.is_some() {
            return;
        }
        let crowded = std::iter::once(&block.source)
            .chain(block.targets.values())
            .any(|e| e.code_count() > super::MAX_CODES);
        if crowded {
            self.refused = Some(ReadError::too_dense(text, block.span.start));
            return;
        }
        let Some(each) = self.each.as_mut() else {
            self.document.blocks.push(block);
            return;
        };
        let holes = &mut self.skeleton.holes;
        if holes.iter().all(|h| h.block == index) {
            each(text, block, holes);
            holes.clear();
        } else {
            // Holes of a block not yet ended stay for it.
            let (mine, later): (Vec<Hole>, Vec<Hole>) =
                holes.drain(..).partition(|h| h.block == index);
            each(text, block, &mine);
            *holes = later;
        }
    }

    /// The document and skeleton read, or the refusal of a block.
    pub fn finish(self) -> Result<Parsed, ReadError> {
        match self.refused {
            Some(refused) => Err(refused),
            None => Ok(Parsed::new(self.document, self.skeleton)),
        }
    }

    /// The document read (its blocks, when kept), or the refusal of a block.
    pub fn into_document(self) -> Result<Document, ReadError> {
        match self.refused {
            Some(refused) => Err(refused),
            None => Ok(self.document),
        }
    }
}

/// Decodes `bytes` and runs `read` over the text, then gives the text back owned: the bytes
/// themselves when they are that text (borrowed by the decoder), so the file is in memory
/// once; else the decoded copy.
fn with_text<R>(
    bytes: Vec<u8>,
    decode: Decode,
    read: impl FnOnce(&str, Encoding) -> Result<R, ReadError>,
) -> Result<(R, String, Encoding), ReadError> {
    let (done, owned, encoding) = {
        let (text, encoding) = decode(&bytes)?;
        let done = read(&text, encoding)?;
        let owned = match text {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(text) if text.len() != bytes.len() => Some(text.to_owned()),
            Cow::Borrowed(_) => None,
        };
        (done, owned, encoding)
    };
    let text = owned.unwrap_or_else(|| {
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    });
    Ok((done, text, encoding))
}

/// What [`read_picked`] holds of a file.
#[derive(Debug)]
pub struct Picked {
    /// The kept blocks and their holes (each hole naming its block's place among them).
    pub parsed: Parsed,
    /// The index in the file of each kept block.
    pub indices: Vec<usize>,
    /// How many blocks the file holds.
    pub total: usize,
}

/// Reads `bytes` keeping only the blocks `keep` accepts (given each block's index in the file),
/// with their holes
/// ([`super::Format::read_each`]): a writer fills those holes and copies the rest of the file
/// as it stands, so an edit of a kept block writes the bytes it would with every block held
/// (the conformance test holds every format to it), and the file costs the blocks edited.
pub fn read_picked(
    format: &dyn super::Format,
    bytes: Vec<u8>,
    keep: &mut dyn FnMut(usize, &Block) -> bool,
) -> Result<Picked, ReadError> {
    let (mut blocks, mut holes, mut indices, mut total) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut parsed = format.read_each(bytes, &mut |_, block, its| {
        if keep(total, &block) {
            holes.extend(its.iter().map(|hole| Hole {
                block: blocks.len(),
                ..hole.clone()
            }));
            blocks.push(block);
            indices.push(total);
        }
        total += 1;
    })?;
    parsed.document.blocks = blocks;
    parsed.skeleton.holes = holes;
    Ok(Picked {
        parsed,
        indices,
        total,
    })
}

/// A text format's reader: decoded text into an [`Output`] (holding, or handing over).
pub(crate) type ReadText =
    for<'e> fn(&str, Skeleton, Option<Each<'e>>) -> Result<Output<'e>, ReadError>;

/// A text format's decoder: the text its `read` reads (borrowed when the bytes are it).
pub(crate) type Decode = for<'b> fn(&'b [u8]) -> Result<(Cow<'b, str>, Encoding), ReadError>;

/// [`super::Format::read`] for a text format: `decode`, then `read` holding every block.
pub(crate) fn read_decoded(
    bytes: &[u8],
    decode: Decode,
    read: ReadText,
) -> Result<Parsed, ReadError> {
    let (text, encoding) = decode(bytes)?;
    read(&text, Skeleton::decoded(&text, encoding), None)?.finish()
}

/// [`super::Format::read_owned`] for a text format: [`read_decoded`], the skeleton taking the
/// bytes as its text when they are that text (the reader is given the text once it is done).
pub(crate) fn owned_decoded(
    bytes: Vec<u8>,
    decode: Decode,
    read: ReadText,
) -> Result<Parsed, ReadError> {
    let (mut parsed, text, _) = with_text(bytes, decode, |text, encoding| {
        read(text, Skeleton::owned(String::new(), encoding), None)?.finish()
    })?;
    parsed.skeleton.original = text;
    Ok(parsed)
}

/// [`super::Format::read_each`] for a text format: `decode`, then `read` handing each block
/// to `each`; the returned skeleton keeps the text (no blocks, no holes).
pub(crate) fn each_decoded(
    bytes: Vec<u8>,
    decode: Decode,
    read: ReadText,
    each: Each<'_>,
) -> Result<Parsed, ReadError> {
    let (document, text, encoding) = with_text(bytes, decode, |text, _| {
        read(text, Skeleton::over(""), Some(each))?.into_document()
    })?;
    Ok(Parsed::new(document, Skeleton::owned(text, encoding)))
}

/// The three reads of a text format (`read`, `read_owned`, `read_each`, inside its
/// `impl Format`) from its decoder and its [`ReadText`] reader.
macro_rules! text_reads {
    ($decode:expr, $read:expr) => {
        fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
            $crate::formats::output::read_decoded(bytes, $decode, $read)
        }

        fn read_owned(&self, bytes: Vec<u8>) -> Result<Parsed, ReadError> {
            $crate::formats::output::owned_decoded(bytes, $decode, $read)
        }

        fn read_each(
            &self,
            bytes: Vec<u8>,
            each: $crate::formats::Each<'_>,
        ) -> Result<Parsed, ReadError> {
            $crate::formats::output::each_decoded(bytes, $decode, $read, each)
        }
    };
}
pub(crate) use text_reads;
