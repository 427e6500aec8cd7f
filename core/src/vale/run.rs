//! Vale's rules over one document, block by block: each block made into the pieces Vale lints
//! (its scopes), every rule in force run on them, alerts in the block's prose or the file.
//!
//! The pieces are Vale's (`internal/lint/ast.go`): a paragraph (and a front-matter value or a
//! catalog entry, kapi's other prose blocks) is linted as prose, its `paragraph`, each
//! `sentence` and its whole `text`; a heading is one `text.heading.hN` piece, a list item one
//! `text.list`, a table cell one `text.table.cell`, a block quote one `text.blockquote`, each
//! with the file's extension as its last section (`text.list.md`). Code blocks are not
//! linted. A rule scoped `raw` runs on each block's markup as written. What Vale writes over
//! inline code (`*`s) is what the rules see here too (kapi's mark of an inline code becomes
//! `***`), and the matches of `TokenIgnores` are masked the same way, so no rule matches in
//! them while offsets stay the prose's. An alert inside a match of `BlockIgnores` (on the
//! file's text) is dropped. Vale's per-file state (`conditional`, `consistency`, `limit`)
//! holds over the whole document.

use std::ops::Range;

use super::rules::{
    Alert, DocumentCounts, FileState, Level, Outcome, ScopeKind, ScopedText, prose_scopes,
};
use super::styles::RuleSet;
use crate::model::{Block, Role};
use crate::text::CODE_MARK;

/// One alert of a rule in force, with its level there.
#[derive(Debug, Clone)]
pub struct ValeHit {
    pub alert: Alert,
    pub level: Level,
    /// Whether `alert.range` is in the file (a `raw` rule's) rather than the block's prose.
    pub in_file: bool,
}

/// One document's Vale check in progress.
#[derive(Debug)]
pub struct ValeRun<'a> {
    set: &'a RuleSet,
    /// The file's extension as Vale names scopes (`md`), or empty.
    format: String,
    state: FileState,
    /// The file's `BlockIgnores` matches, found at the first block.
    ignored: Option<Vec<Range<usize>>>,
    /// Where the next block's prose starts in the document's prose, blocks laid end to end:
    /// Vale's per-file state keys an alert by its place, which must be the document's.
    base: usize,
    /// What the document rules (`metric`, `readability`) count: Vale's summary and its
    /// structure. None for plain text, which Vale builds no summary for.
    counts: Option<DocumentCounts>,
}

impl<'a> ValeRun<'a> {
    /// A run of `set` over a file whose extension is `format` (without its dot).
    pub fn new(set: &'a RuleSet, format: &str) -> Self {
        Self {
            set,
            format: format.to_owned(),
            state: FileState::default(),
            ignored: None,
            base: 0,
            counts: (format != "txt").then(DocumentCounts::default),
        }
    }

    /// The alerts of one block; `prose` is its prose view's text, `text` the file's.
    pub fn block(&mut self, text: &str, block: &Block, prose: &str) -> Vec<ValeHit> {
        let mut hits = Vec::new();
        if self.set.rules.is_empty() || !block.translatable {
            return hits;
        }
        if self.ignored.is_none() {
            let ranges = self
                .set
                .block_ignores
                .iter()
                .flat_map(|re| re.find_iter(text).map(|m| m.range()))
                .collect();
            self.ignored = Some(ranges);
        }
        let masked = self.mask(prose);
        if let Some(counts) = self.counts.as_mut() {
            let kind = match block.role {
                Role::Heading => ScopeKind::Heading(block.level.clamp(1, 6) as u8),
                Role::ListItem => ScopeKind::List,
                Role::Quote => ScopeKind::Blockquote,
                Role::TableCell => ScopeKind::TableCell,
                _ => ScopeKind::Text,
            };
            counts.add_piece(kind, &masked);
        }
        let base = self.base;
        self.base += prose.len() + 1;
        let format = self.format.clone();
        let format = format.as_str();
        let pieces: Vec<ScopedText<'_>> = match block.role {
            Role::Code | Role::Html => Vec::new(),
            Role::Heading => {
                let level = block.level.clamp(1, 6) as u8;
                vec![ScopedText::new(
                    &masked,
                    ScopeKind::Heading(level),
                    base,
                    format,
                )]
            }
            Role::ListItem => vec![ScopedText::new(&masked, ScopeKind::List, base, format)],
            Role::TableCell => vec![ScopedText::new(&masked, ScopeKind::TableCell, base, format)],
            Role::Quote => vec![ScopedText::new(
                &masked,
                ScopeKind::Blockquote,
                base,
                format,
            )],
            Role::Paragraph | Role::Key | Role::Other => prose_scopes(&masked, base, format),
        };
        let raw = text
            .get(block.span.clone())
            .map(|raw| ScopedText::new(raw, ScopeKind::Raw, block.span.start, format));
        for active in &self.set.rules {
            for piece in &pieces {
                self.collect(active, piece, false, &mut hits);
            }
            if let Some(raw) = &raw {
                self.collect(active, raw, true, &mut hits);
            }
        }
        // The prose pieces' alerts back in the block's prose.
        for hit in hits.iter_mut().filter(|h| !h.in_file) {
            let r = &hit.alert.range;
            hit.alert.range = r.start.saturating_sub(base)..r.end.saturating_sub(base);
        }
        hits
    }

    /// Counts a code block (Vale's `pre`), which is not linted.
    pub fn code_block(&mut self) {
        if let Some(counts) = self.counts.as_mut() {
            counts.add_code_block();
        }
    }

    /// The document rules' alerts (`metric`, `readability`), once the blocks are in: each at
    /// the file's start, as Vale puts them.
    pub fn finish(&mut self) -> Vec<ValeHit> {
        let Some(counts) = self.counts.take() else {
            return Vec::new();
        };
        let metrics = counts.metrics();
        let mut hits = Vec::new();
        for active in self.set.rules.iter().filter(|r| r.rule.is_document_rule()) {
            if let Outcome::Assessed(alerts) = active.rule.run_document(&metrics, &mut self.state) {
                hits.extend(alerts.into_iter().map(|alert| ValeHit {
                    alert,
                    level: active.level,
                    in_file: true,
                }));
            }
        }
        hits
    }

    /// Whether a file range lies in a match of `BlockIgnores`.
    pub fn ignored(&self, range: &Range<usize>) -> bool {
        self.ignored.as_ref().is_some_and(|ignored| {
            ignored
                .iter()
                .any(|i| i.start <= range.start && range.end <= i.end)
        })
    }

    fn collect(
        &mut self,
        active: &super::styles::ActiveRule,
        piece: &ScopedText<'_>,
        in_file: bool,
        hits: &mut Vec<ValeHit>,
    ) {
        if !active.rule.applies_to(piece) {
            return;
        }
        if let Outcome::Assessed(alerts) = active.rule.run(piece, &mut self.state) {
            hits.extend(alerts.into_iter().map(|alert| ValeHit {
                alert,
                level: active.level,
                in_file,
            }));
        }
    }

    /// The prose with inline codes and `TokenIgnores` matches written over with `*`, byte
    /// for byte.
    fn mask(&self, prose: &str) -> String {
        let mut masked = prose.replace(CODE_MARK, "***");
        for re in &self.set.token_ignores {
            let ranges: Vec<Range<usize>> = re.find_iter(&masked).map(|m| m.range()).collect();
            if ranges.is_empty() {
                continue;
            }
            let mut bytes = masked.into_bytes();
            for r in ranges {
                for b in bytes.get_mut(r).into_iter().flatten() {
                    *b = b'*';
                }
            }
            // Whole characters were replaced byte for byte: still UTF-8.
            masked = String::from_utf8_lossy(&bytes).into_owned();
        }
        masked
    }
}
