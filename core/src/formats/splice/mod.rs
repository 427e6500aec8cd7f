//! Edits that touch only what they change: find one block's span in a file without building
//! the whole document, and splice the new text into the original bytes.
//!
//! A format here finds the blocks an edit names by key with one scan that builds no other
//! block, and proves that what it found is what the full reader reads (else it answers `None`
//! and the caller reads the file whole): `json`.

pub mod json;
