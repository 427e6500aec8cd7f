//! The SHA-256 of a spliced file as read and as written, sharing the bytes both start with:
//! the hash state is kept every [`STEP`] bytes of the read, and the written bytes are hashed
//! from the last kept state before their first difference (an edit's bytes, and what follows).

use sha2::{Digest, Sha256};

use crate::document::FileRead;

/// Bytes between two kept states: a multiple of SHA-256's 64-byte block, so each kept state
/// holds no partial block, and few enough states (80 for 5 MB) to keep them all.
const STEP: usize = 64 * 1024;

/// The hash states of a file's bytes as read, after every [`STEP`] bytes.
pub(in crate::apply) struct Prefixes {
    /// `states[i]`: the state after the first `i * STEP` bytes (`states[0]`, the empty state).
    states: Vec<Sha256>,
}

impl Prefixes {
    /// Hashes `bytes` (the file as read): what [`FileRead::of`] gives, and the kept states.
    pub(in crate::apply) fn of(bytes: &[u8]) -> (FileRead, Prefixes) {
        let mut states = Vec::with_capacity(bytes.len() / STEP + 1);
        let mut state = Sha256::new();
        states.push(state.clone());
        let mut chunks = bytes.chunks_exact(STEP);
        for chunk in &mut chunks {
            state.update(chunk);
            states.push(state.clone());
        }
        state.update(chunks.remainder());
        let read = FileRead {
            len: bytes.len(),
            digest: state.finalize().into(),
        };
        (read, Prefixes { states })
    }

    /// What [`FileRead::of`] gives for `bytes`, whose first `same` bytes are those of the file
    /// as read (a `same` past either length is taken as the shorter length).
    pub(in crate::apply) fn read_of(&self, bytes: &[u8], same: usize) -> FileRead {
        let kept = self.states.len().saturating_sub(1) * STEP;
        let from = same.min(bytes.len()).min(kept) / STEP;
        let (mut state, rest) = match (self.states.get(from), bytes.get(from * STEP..)) {
            (Some(state), Some(rest)) => (state.clone(), rest),
            _ => (Sha256::new(), bytes),
        };
        state.update(rest);
        FileRead {
            len: bytes.len(),
            digest: state.finalize().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic bytes (a linear congruential generator), `len` of them.
    fn bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 56) as u8
            })
            .collect()
    }

    fn common_prefix(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    #[test]
    fn the_read_hash_is_the_plain_hash() {
        for len in [
            0,
            1,
            63,
            64,
            STEP - 1,
            STEP,
            STEP + 1,
            3 * STEP,
            3 * STEP + 17,
        ] {
            let old = bytes(len, len as u64);
            let (read, prefixes) = Prefixes::of(&old);
            assert_eq!(read, FileRead::of(&old), "{len}");
            assert_eq!(prefixes.read_of(&old, len), FileRead::of(&old), "{len}");
        }
    }

    #[test]
    fn a_prefix_shared_hash_equals_the_plain_hash() {
        let len = 3 * STEP + 100;
        let old = bytes(len, 7);
        let (_, prefixes) = Prefixes::of(&old);
        // An edit at the start, on and around a kept state, in the middle and at the end:
        // a byte replaced, bytes inserted, bytes removed, the tail cut or extended.
        let mut cases = Vec::new();
        for at in [0, 1, STEP - 1, STEP, STEP + 1, 2 * STEP + 5, len - 1, len] {
            let mut replaced = old.clone();
            if let Some(b) = replaced.get_mut(at) {
                *b ^= 0xff;
            }
            cases.push(replaced);
            let mut inserted = old.clone();
            inserted.splice(at..at, *b"an edit");
            cases.push(inserted);
            let mut removed = old.clone();
            removed.drain(at..(at + 9).min(len));
            cases.push(removed);
            cases.push(old[..at].to_vec());
            cases.push([&old[..at], &bytes(STEP + 3, at as u64)].concat());
        }
        for (i, new) in cases.iter().enumerate() {
            let same = common_prefix(&old, new);
            assert_eq!(prefixes.read_of(new, same), FileRead::of(new), "case {i}");
            // A `same` short of the true one is still right (hashed from further back).
            assert_eq!(
                prefixes.read_of(new, same / 2),
                FileRead::of(new),
                "case {i}"
            );
        }
        assert_eq!(prefixes.read_of(&[], 0), FileRead::of(&[]));
    }
}
