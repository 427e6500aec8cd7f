//! A JSON file's string values in chunks, so that the build, which walks them in order, frees
//! those it passed: a catalog's entries and its blocks are never all in memory at once.
use super::Entry;

#[derive(Default)]
pub(super) struct Entries {
    chunks: Vec<Vec<Entry>>,
    len: usize,
    /// Chunks before this one are freed.
    freed: usize,
}

/// Entries per chunk.
pub(super) const CHUNK: usize = 1 << 14;

impl Entries {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn push(&mut self, entry: Entry) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(entry),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(entry);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    pub(super) fn get(&self, index: usize) -> Option<&Entry> {
        self.chunks.get(index / CHUNK)?.get(index % CHUNK)
    }

    pub(super) fn get_mut(&mut self, index: usize) -> Option<&mut Entry> {
        self.chunks.get_mut(index / CHUNK)?.get_mut(index % CHUNK)
    }

    /// Frees the chunks that hold only entries before `index`.
    pub(super) fn free_before(&mut self, index: usize) {
        while self.freed < index / CHUNK {
            if let Some(chunk) = self.chunks.get_mut(self.freed) {
                *chunk = Vec::new();
            }
            self.freed += 1;
        }
    }

    /// Every entry, in order, taken out.
    pub(super) fn into_all(self) -> impl Iterator<Item = Entry> {
        self.chunks.into_iter().flatten()
    }
}
