//! Edits that touch only what they change: find one block's span in a file without building
//! the whole document, and splice the new text into the original bytes.
