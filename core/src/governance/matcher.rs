//! The term matcher (placeholder until the governance work lands).
use super::TermEntry;

/// One match of a term in a text: the entry's index and the byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermMatch {
    pub entry: usize,
    pub range: std::ops::Range<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct TermMatcher {
    terms: Vec<String>,
}

impl TermMatcher {
    pub fn new(entries: &[TermEntry]) -> Self {
        TermMatcher { terms: entries.iter().map(|e| e.text.clone()).collect() }
    }
    pub fn find(&self, text: &str) -> Vec<TermMatch> {
        let _ = (text, &self.terms);
        Vec::new()
    }
}
