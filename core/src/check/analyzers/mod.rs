//! The analyzers, one per file, and [`rule`], the table of every rule they report under.
//! Each reads one block's prose (or a translation beside its source) and hands its hits to a
//! [`crate::check::Sink`]; none locates, counts or scores: the check around them does.

pub mod functional;
pub mod hygiene;
pub mod placeholders;
pub mod plurals;
pub mod rule;
pub mod terms;
pub mod translation_terms;
pub mod unchanged;
pub mod voice;
