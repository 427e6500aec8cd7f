//! The blocks of `document.xml`: each paragraph's pieces grouped into holes, their runs,
//! keys and roles.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use super::package::megabytes;
use super::reader::{DocReader, Element, Piece, wide};
use super::runs::{RunBuilder, State};
use super::styles::{StyleInfo, role};
use super::w_prefix;
use super::{DOCUMENT, INFO};
use crate::formats::output::Output;
use crate::formats::xml;
use crate::formats::{KeyBudget, Parsed, ReadError, Skeleton};
use crate::model::{Block, Run};

pub(super) fn read_document(
    owned: String,
    styles: &HashMap<String, StyleInfo>,
    each: Option<crate::formats::Each<'_>>,
) -> Result<Parsed, ReadError> {
    if owned.len() as u64 > crate::formats::MAX_INPUT_BYTES {
        return Err(ReadError::TooLarge {
            at: DOCUMENT.into(),
            message: format!(
                "the part is {} bytes; kapi reads at most {}",
                owned.len(),
                megabytes(crate::formats::MAX_INPUT_BYTES)
            ),
        });
    }
    let mut parsed = read_blocks(&owned, styles, each)?.finish()?;
    // The skeleton takes the part's text itself: no second copy of it.
    parsed.skeleton.original = owned;
    Ok(parsed)
}

/// The blocks of `document.xml` and a skeleton whose holes index into `text` (the caller
/// hands it the text), or each block handed to `each`.
fn read_blocks<'e>(
    text: &str,
    styles: &HashMap<String, StyleInfo>,
    each: Option<crate::formats::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let w = w_prefix(text);
    let mut reader = DocReader::new(text, w.clone());
    reader.scan()?;
    let mut budget = KeyBudget::new(text.len());

    let pieces = Pieces {
        text,
        pieces: &reader.pieces,
        elements: &reader.elements,
    };
    let count = segments(pieces.pieces).count();

    let skeleton = Skeleton::owned(String::new(), crate::formats::Encoding::Utf8);
    let mut out = Output::new(INFO.id, skeleton, each);
    out.reserve(count);
    let mut previous_end = 0;
    for segment in segments(pieces.pieces) {
        let first = &pieces.pieces[segment.start];
        let last = &pieces.pieces[segment.end - 1];
        let para = &mut reader.paras[first.para as usize];
        para.segments += 1;
        let part = para.segments;
        let next_start = pieces
            .pieces
            .get(segment.end)
            .map_or(text.len(), |next| next.tag as usize);

        let (lead, trail) = pieces.hole_ends(first, last, previous_end, next_start);
        let runs = pieces.runs(&w, segment, lead, trail);
        let hole = lead.unwrap_or(first.tag as usize)..trail.unwrap_or(last.text().end);
        previous_end = hole.end;

        if is_blank(&runs) {
            continue;
        }
        let para = &reader.paras[first.para as usize];
        let mut key = reader.key(para.node);
        if part > 1 {
            key.push_str("/part#");
            key.push_str(&part.to_string());
        }
        budget.charge(key.len(), text, para.span.start)?;
        let (role, level) = role(para, styles);
        let mut block = Block::new(key, role, runs);
        block.level = level;
        block.span = para.span.clone();
        let index = out.index();
        out.skeleton.hole(hole, index, &block.source);
        out.push(text, block);
    }
    Ok(out)
}

/// Segments: maximal runs of consecutive pieces of one paragraph.
fn segments(pieces: &[Piece]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at;
        let para = pieces.get(start)?.para;
        while pieces.get(at).is_some_and(|p| p.para == para) {
            at += 1;
        }
        Some(start..at)
    })
}

/// Whether a block's runs hold no text but blanks.
fn is_blank(runs: &[Run]) -> bool {
    runs.iter().all(|run| match run {
        Run::Text { text, .. } => text.trim().is_empty(),
        _ => true,
    })
}

/// The pieces of `document.xml` with the runs and links they sit in.
struct Pieces<'r> {
    text: &'r str,
    pieces: &'r [Piece],
    elements: &'r [Element],
}

impl Pieces<'_> {
    /// A piece's formatting: its run's flags and its hyperlink.
    fn state(&self, piece: &Piece) -> State {
        State {
            flags: piece
                .run()
                .and_then(|r| self.elements.get(r))
                .map_or(0, |e| e.flags),
            link: piece.link(),
        }
    }

    /// The `<w:rPr>` bytes of a piece's run.
    fn props(&self, piece: &Piece) -> &str {
        piece
            .run()
            .and_then(|r| self.elements.get(r))
            .and_then(|e| self.text.get(wide(&e.props)))
            .unwrap_or_default()
    }

    /// The hyperlink, else the run, a piece sits in.
    fn element(&self, piece: &Piece) -> Option<&Element> {
        piece
            .link()
            .or(piece.run())
            .and_then(|e| self.elements.get(e))
    }

    /// Where the hole of the segment `first..=last` starts and ends when it is extended over
    /// the markup of a formatted first or last piece: `None` keeps the plain bound.
    fn hole_ends(
        &self,
        first: &Piece,
        last: &Piece,
        previous_end: usize,
        next_start: usize,
    ) -> (Option<usize>, Option<usize>) {
        let lead = Some(self.state(first))
            .filter(|s| !s.is_plain())
            .and_then(|_| self.element(first))
            .map(|e| e.span.start as usize)
            .filter(|&start| start >= previous_end && start <= first.tag as usize);
        // A trailing close only pairs with what the hole opened.
        let initial = if lead.is_some() {
            State::default()
        } else {
            self.state(first)
        };
        let trail = Some(self.state(last))
            .filter(|s| !s.is_plain() && *s != initial)
            .and_then(|_| self.element(last))
            .map(|e| e.span.end as usize)
            .filter(|&end| end <= next_start && end >= last.text().end);
        (lead, trail)
    }

    /// The runs of a segment: its pieces' text, the codes between them, and the codes of
    /// the `lead` and `trail` markup the hole takes in.
    fn runs(
        &self,
        w: &str,
        segment: Range<usize>,
        lead: Option<usize>,
        trail: Option<usize>,
    ) -> Vec<Run> {
        let text = self.text;
        let first = &self.pieces[segment.start];
        let last = &self.pieces[segment.end - 1];
        let mut builder = RunBuilder::new(text, w);
        if let Some(start) = lead {
            builder.transition(
                start..first.text().start,
                State::default(),
                self.state(first),
                false,
            );
        }
        for k in segment.clone() {
            let piece = &self.pieces[k];
            if k > segment.start {
                let before = &self.pieces[k - 1];
                builder.transition(
                    before.text().end..piece.text().start,
                    self.state(before),
                    self.state(piece),
                    self.props(before) != self.props(piece),
                );
            }
            let raw = text.get(piece.text()).unwrap_or_default();
            if raw.contains('&') {
                let decoded = xml::unescape(text, raw, piece.text().start)
                    .map(Cow::into_owned)
                    .unwrap_or_default();
                builder.runs.push(Run::text(decoded));
            } else {
                builder.runs.push(Run::text_at(raw, piece.text().start));
            }
        }
        if let Some(end) = trail {
            builder.transition(
                last.text().end..end,
                self.state(last),
                State::default(),
                false,
            );
        }
        let mut runs = builder.finish();
        runs.shrink_to_fit();
        runs
    }
}
