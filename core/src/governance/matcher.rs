//! The one term matcher every surface uses: whole-word, Unicode-aware, case-folding and
//! whitespace-tolerant, longest match first, with byte offsets into the original text.
//!
//! Terms are compiled once (on the first search) into Aho-Corasick automata over a folded,
//! whitespace-normalised form; each text is normalised the same way with a map from every
//! normalised byte back to the original, so offsets stay right when folding changes byte
//! length (`İ` → `i̇`). Candidate matches (overlapping) that fail a word boundary are
//! dropped, then the longest at each position wins, left to right, without overlap.
//!
//! Two more kinds of pattern ride in the same automata, so neither costs a pass of its own:
//! - **Variants** ([`super::variants`]): the spellings of a case-sensitive preferred or
//!   admitted term that differ from it only in case or joiners (`Javascript`, `NodeJS` for
//!   `JavaScript`, `Node.js`), folded. [`TermMatcher::find_each_variant`] hands them on
//!   (`TermMatch::variant`); [`TermMatcher::find_each`] never does. A variant competes like
//!   any term (the longest match wins, so `node.JS` is one variant, not a `JS` inside it),
//!   and on the very same span a declared term wins over it (a forbidden `Github` reports as
//!   forbidden, with its own replacement).
//! - **Exceptions**: a term's `exceptions:` phrases, matched like the term (its side of the
//!   matcher, whole words). They never compete: a match that stands inside an occurrence of
//!   one of its own entry's exceptions carries it (`TermMatch::exception`).
//!
//! Cost: linear in the text, and memory bounded by the longest pattern, not the matches.
//! Candidates stream from both automata in the order they end; every candidate starting
//! before the point no future one can start before (the furthest scan back the longest
//! pattern allows) is settled and handed on, so a text with a million matches never holds
//! them all ([`TermMatcher::find_each`]). Exception occurrences settle with them: one that
//! starts before that point is folded into the furthest end each entry's exceptions reach,
//! so a match asks one map, never a list. The byte map, needed only when normalising moves
//! bytes, is one `u32` per byte (a text is at most 100 MB).

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use unicode_segmentation::GraphemeCursor;

use super::variants::{self, Spelling};
use super::{TermEntry, TermStatus};

/// One match of a term in a text: the entry's index and the byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermMatch {
    pub entry: usize,
    pub range: std::ops::Range<usize>,
    /// A spelling of the entry that differs from it only in case or joiners (`terms.case`);
    /// only [`TermMatcher::find_each_variant`] hands these on.
    pub variant: bool,
    /// The entry's exception phrase (an index into its `exceptions`) this match stands
    /// inside: the project allows the term there.
    pub exception: Option<usize>,
}

/// What an automaton pattern stands for.
#[derive(Debug, Clone)]
enum Kind {
    /// The entry's own text.
    Term,
    /// The entry's variants, with the spelling they are told apart from.
    Variant(Spelling),
    /// The entry's exception phrase of this index.
    Exception(usize),
}

/// One thing a pattern can be a match of, with the word boundaries its edges need.
#[derive(Debug, Clone)]
struct Target {
    entry: usize,
    kind: Kind,
    /// Whether its first and last characters need a word boundary.
    lead: bool,
    trail: bool,
    /// Case-sensitive (wins a tie on the same span).
    sensitive: bool,
}

/// One side of the matcher (case-insensitive or case-sensitive patterns). Its automaton is
/// built on the first search: a check answered by the cache, which needs only the
/// governance's fingerprint, never compiles it.
#[derive(Debug, Clone)]
struct Side {
    patterns: Vec<String>,
    automaton: OnceLock<Option<AhoCorasick>>,
    /// For each automaton pattern, the targets that share it.
    targets: Vec<Vec<usize>>,
    /// The longest pattern, in bytes of the normalised text.
    longest: usize,
    /// Every pattern stands for variants alone: a search without variants skips the side.
    variants_only: bool,
}

/// A candidate match: (start, end, target) in the original text.
type Candidate = (usize, usize, usize);

/// An exception phrase's occurrence: (start, end, entry, exception index).
type Allowance = (usize, usize, usize, usize);

/// How many candidates wait before the settled ones are handed on (doubled while a window
/// of unsettled candidates is larger: many terms sharing a long stretch of text).
const SETTLE_EVERY: usize = 1024;

/// Term entries compiled for fast, repeated search.
#[derive(Debug, Clone, Default)]
pub struct TermMatcher {
    folded: Option<Side>,
    exact: Option<Side>,
    /// The first `entries.len()` targets are the entries' own texts, in order; variants and
    /// exceptions follow.
    targets: Vec<Target>,
}

/// The patterns of one side as they are compiled.
#[derive(Default)]
struct Patterns {
    patterns: Vec<String>,
    targets: Vec<Vec<usize>>,
    /// Where each pattern is, for a pattern given again by another target.
    index: HashMap<String, usize>,
}

impl Patterns {
    fn add(&mut self, pattern: String, target: usize) {
        if pattern.is_empty() {
            return;
        }
        match self.index.get(&pattern) {
            Some(&at) => self.targets[at].push(target),
            None => {
                self.index.insert(pattern.clone(), self.patterns.len());
                self.patterns.push(pattern);
                self.targets.push(vec![target]);
            }
        }
    }
}

/// Whether a text's first and last characters need a word boundary.
fn edges(text: &str) -> (bool, bool) {
    (
        text.chars().next().is_some_and(spaced_word),
        text.chars().next_back().is_some_and(spaced_word),
    )
}

impl TermMatcher {
    /// Compiles the entries; `TermMatch::entry` indexes this slice. Empty terms never match.
    pub fn new(entries: &[TermEntry]) -> Self {
        let mut folded = Patterns::default();
        let mut exact = Patterns::default();
        let mut targets: Vec<Target> = Vec::with_capacity(entries.len());
        // Each phrase a target: a term, or an exception, matched with the term's case.
        let mut add = |targets: &mut Vec<Target>, index: usize, kind: Kind, phrase: &str| {
            let sensitive = entries[index].case_sensitive;
            let (lead, trail) = edges(phrase);
            let target = targets.len();
            targets.push(Target {
                entry: index,
                kind,
                lead,
                trail,
                sensitive,
            });
            let side = if sensitive { &mut exact } else { &mut folded };
            side.add(normalize(phrase, !sensitive).text, target);
        };
        for (index, entry) in entries.iter().enumerate() {
            add(&mut targets, index, Kind::Term, entry.text.trim());
        }
        for (index, entry) in entries.iter().enumerate() {
            for (k, exception) in entry.exceptions.iter().enumerate() {
                add(
                    &mut targets,
                    index,
                    Kind::Exception(k),
                    exception.text.trim(),
                );
            }
        }
        // Variants: other spellings of a term, matched whatever their case.
        for (index, entry) in entries.iter().enumerate() {
            let trimmed = entry.text.trim();
            if has_variants(entry) && !trimmed.is_empty() {
                let (lead, trail) = edges(trimmed);
                let target = targets.len();
                targets.push(Target {
                    entry: index,
                    kind: Kind::Variant(Spelling::new(trimmed)),
                    lead,
                    trail,
                    sensitive: false,
                });
                for spelling in variants::spellings(trimmed) {
                    folded.add(normalize(&spelling, true).text, target);
                }
            }
        }
        TermMatcher {
            folded: build(folded, &targets),
            exact: build(exact, &targets),
            targets,
        }
    }

    /// True when no term can match.
    pub fn is_empty(&self) -> bool {
        self.folded.is_none() && self.exact.is_none()
    }

    /// Every match in `text`, left to right, non-overlapping, longest first at a position.
    pub fn find(&self, text: &str) -> Vec<TermMatch> {
        let mut out = Vec::new();
        self.find_each(text, |m| out.push(m));
        out
    }

    /// [`TermMatcher::find`], handing each match to `emit` as soon as it is settled (in
    /// order), without holding every match.
    pub fn find_each(&self, text: &str, emit: impl FnMut(TermMatch)) {
        self.scan(text, Scan::TERMS, emit);
    }

    /// [`TermMatcher::find_each`], with the variants of case-sensitive preferred and admitted
    /// terms among the matches (`TermMatch::variant`; [`super::variants`] says which).
    pub fn find_each_variant(&self, text: &str, emit: impl FnMut(TermMatch)) {
        self.scan(text, Scan::VARIANTS, emit);
    }

    fn scan(&self, text: &str, how: Scan, mut emit: impl FnMut(TermMatch)) {
        // Offsets are kept as `u32` in the byte map: longer texts (never read: a file is at
        // most 100 MB) are not matched.
        if self.is_empty() || text.is_empty() || u32::try_from(text.len()).is_err() {
            return;
        }
        let wanted = |side: &Side| how.variants || !side.variants_only;
        let folded = self
            .folded
            .as_ref()
            .filter(|side| wanted(side))
            .map(|side| (side, normalize(text, true)));
        let exact = self
            .exact
            .as_ref()
            .filter(|side| wanted(side))
            .map(|side| (side, normalize(text, false)));
        let mut streams: Vec<_> = [folded.as_ref(), exact.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|(side, hay)| {
                let matches = side
                    .automaton()?
                    .find_overlapping_iter(hay.text.as_str())
                    .peekable();
                Some((*side, hay, matches))
            })
            .collect();
        let mut window = Window::default();
        let mut settle_at = SETTLE_EVERY;
        loop {
            // The stream whose next match ends first, in the original text.
            let next = streams
                .iter_mut()
                .enumerate()
                .filter_map(|(i, (_, hay, matches))| {
                    matches.peek().map(|m| (hay.end(m.end() - 1), i))
                })
                .min();
            let Some((_, i)) = next else { break };
            let (side, hay, matches) = &mut streams[i];
            let Some(m) = matches.next() else { break };
            let (s, e) = (m.start(), m.end());
            // A match must cover whole source characters, not part of a folded expansion.
            if s > 0 && hay.start(s - 1) == hay.start(s) {
                continue;
            }
            if e < hay.len() && hay.start(e) == hay.start(e - 1) {
                continue;
            }
            let (start, end) = (hay.start(s), hay.end(e - 1));
            for &target in &side.targets[m.pattern().as_usize()] {
                self.candidate(text, start, end, target, how, &mut window);
            }
            if window.held() >= settle_at {
                // No match still to come starts before the longest pattern's reach back from
                // where each stream's next match ends.
                let frontier = streams
                    .iter_mut()
                    .filter_map(|(side, hay, matches)| {
                        matches.peek().map(|m| {
                            hay.start(m.end().saturating_sub(side.longest).min(hay.len() - 1))
                        })
                    })
                    .min()
                    .unwrap_or(usize::MAX);
                self.settle(&mut window, frontier, &mut emit);
                settle_at = (window.held() * 2).max(SETTLE_EVERY);
            }
        }
        self.settle(&mut window, usize::MAX, &mut emit);
    }

    /// Takes one automaton match of `target` at `start..end` into the window, if it holds
    /// there (word boundaries; for a variant, the rules of [`super::variants`]).
    fn candidate(
        &self,
        text: &str,
        start: usize,
        end: usize,
        target: usize,
        how: Scan,
        window: &mut Window,
    ) {
        let Some(t) = self.targets.get(target) else {
            return;
        };
        match &t.kind {
            Kind::Variant(_) if !how.variants => {}
            _ if !bounded(text, start, end, t) => {}
            Kind::Term => window.pending.push((start, end, target)),
            Kind::Variant(spelling) => {
                if spelling.reports(text, start..end, how.sentence_starts) {
                    window.pending.push((start, end, target));
                }
            }
            Kind::Exception(index) => window.allowances.push((start, end, t.entry, *index)),
        }
    }

    /// Hands on, in order, the winners among the candidates that start before `frontier`
    /// (all the candidates that will ever start there are in the window), each with the
    /// exception it stands inside, keeping the rest.
    fn settle(&self, window: &mut Window, frontier: usize, emit: &mut impl FnMut(TermMatch)) {
        let targets = &self.targets;
        let variant = |t: usize| matches!(targets[t].kind, Kind::Variant(_));
        window.pending.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then((b.1 - b.0).cmp(&(a.1 - a.0)))
                .then(variant(a.2).cmp(&variant(b.2)))
                .then(targets[b.2].sensitive.cmp(&targets[a.2].sensitive))
                .then(a.2.cmp(&b.2))
        });
        window.allowances.sort_unstable_by_key(|a| a.0);
        let settled = window.pending.partition_point(|c| c.0 < frontier);
        let mut allowed = 0;
        let Window {
            pending,
            allowances,
            reach,
            last_end,
        } = window;
        for (start, end, target) in pending.drain(..settled) {
            if start < *last_end {
                continue;
            }
            while let Some(&a) = allowances.get(allowed).filter(|a| a.0 <= start) {
                reach_further(reach, a);
                allowed += 1;
            }
            let entry = targets[target].entry;
            let exception = reach
                .get(&entry)
                .filter(|(reach_end, _)| *reach_end >= end)
                .map(|&(_, index)| index);
            emit(TermMatch {
                entry,
                range: start..end,
                variant: variant(target),
                exception,
            });
            *last_end = end;
        }
        // Every match still to come starts at or after the frontier: an occurrence that
        // starts before it serves them through `reach` alone.
        while let Some(&a) = allowances.get(allowed).filter(|a| a.0 < frontier) {
            reach_further(reach, a);
            allowed += 1;
        }
        allowances.drain(..allowed);
    }
}

/// What a search hands on.
#[derive(Debug, Clone, Copy)]
struct Scan {
    variants: bool,
    /// A lower-case term capitalised at the start of a sentence is not a variant (a check);
    /// off, it is one (whether a phrase holds the term at all).
    sentence_starts: bool,
}

impl Scan {
    const TERMS: Scan = Scan {
        variants: false,
        sentence_starts: true,
    };
    const VARIANTS: Scan = Scan {
        variants: true,
        sentence_starts: true,
    };
}

/// The candidates and exception occurrences not yet settled, and what settling keeps.
#[derive(Default)]
struct Window {
    pending: Vec<Candidate>,
    allowances: Vec<Allowance>,
    /// Per entry, the furthest end (and its exception) of the entry's exception occurrences
    /// that start at or before the matches still to settle.
    reach: HashMap<usize, (usize, usize)>,
    /// Where the last match handed on ends.
    last_end: usize,
}

impl Window {
    fn held(&self) -> usize {
        self.pending.len() + self.allowances.len()
    }
}

fn reach_further(reach: &mut HashMap<usize, (usize, usize)>, (_, end, entry, index): Allowance) {
    let furthest = reach.entry(entry).or_insert((end, index));
    if end > furthest.0 {
        *furthest = (end, index);
    }
}

/// Whether the term `entry` guards its spelling (`terms.case`): a case-sensitive preferred or
/// admitted term.
fn has_variants(entry: &TermEntry) -> bool {
    entry.case_sensitive && matches!(entry.status, TermStatus::Preferred | TermStatus::Admitted)
}

/// Whether `phrase` holds `entry` as a word of its own: as written (in the term's case
/// policy), or, for a term with variants, in a spelling the case rule reports anywhere but
/// at the start of a sentence. What validates a term's `exceptions`.
pub(crate) fn holds_term(entry: &TermEntry, phrase: &str) -> bool {
    let bare = TermEntry {
        exceptions: Vec::new(),
        ..entry.clone()
    };
    let matcher = TermMatcher::new(std::slice::from_ref(&bare));
    let mut found = false;
    let how = Scan {
        variants: true,
        sentence_starts: false,
    };
    matcher.scan(phrase, how, |_| found = true);
    found
}

/// Whether the match `start..end` sits on word (and grapheme) boundaries for `target`.
fn bounded(text: &str, start: usize, end: usize, target: &Target) -> bool {
    if !grapheme_boundary(text, start) || !grapheme_boundary(text, end) {
        return false;
    }
    if target.lead && text[..start].chars().next_back().is_some_and(spaced_word) {
        return false;
    }
    if target.trail && text[end..].chars().next().is_some_and(spaced_word) {
        return false;
    }
    true
}

fn build(patterns: Patterns, targets: &[Target]) -> Option<Side> {
    if patterns.patterns.is_empty() {
        return None;
    }
    let longest = patterns.patterns.iter().map(String::len).max().unwrap_or(0);
    let variants_only = patterns.targets.iter().flatten().all(|&t| {
        targets
            .get(t)
            .is_some_and(|t| matches!(t.kind, Kind::Variant(_)))
    });
    Some(Side {
        patterns: patterns.patterns,
        automaton: OnceLock::new(),
        targets: patterns.targets,
        longest,
        variants_only,
    })
}

impl Side {
    /// The automaton over the side's patterns, built on first use (`None` if it cannot be).
    fn automaton(&self) -> Option<&AhoCorasick> {
        self.automaton
            .get_or_init(|| {
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .build(&self.patterns)
                    .ok()
            })
            .as_ref()
    }
}

/// A normalised copy of a text with, for every byte, the start of the original range it came
/// from (each character, or each whitespace run, is one range; the ranges follow each other,
/// so a range ends where the next begins). `map` is `None` when the copy is byte-for-byte
/// aligned with the original (ASCII text with no whitespace run longer than one character:
/// the common case), which spares a map of the text's size on every block.
struct Normalized {
    text: String,
    map: Option<Vec<u32>>,
    /// The original text's length.
    original: usize,
}

impl Normalized {
    /// Start of the original range of output byte `i`.
    fn start(&self, i: usize) -> usize {
        self.map.as_ref().map_or(i, |starts| starts[i] as usize)
    }
    /// End of the original range of output byte `i`: the start of the next range.
    fn end(&self, i: usize) -> usize {
        let Some(starts) = &self.map else {
            return i + 1;
        };
        starts[i + 1..]
            .iter()
            .find(|&&s| s != starts[i])
            .map_or(self.original, |&s| s as usize)
    }
    fn len(&self) -> usize {
        self.text.len()
    }
}

/// Collapses every whitespace run to one space and, when `fold`, lowercases (with final sigma
/// folded to sigma). Each output byte records where its original range starts.
fn normalize(text: &str, fold: bool) -> Normalized {
    if let Some(aligned) = normalize_aligned(text, fold) {
        return aligned;
    }
    if text.is_ascii() {
        return normalize_ascii(text, fold);
    }
    normalize_chars(text, fold)
}

/// The general path, character by character.
fn normalize_chars(text: &str, fold: bool) -> Normalized {
    let mut text_out = String::with_capacity(text.len());
    let mut starts = Vec::with_capacity(text.len());
    let mut out = Slow {
        text: &mut text_out,
        starts: &mut starts,
    };
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() {
            while chars.peek().is_some_and(|&(_, next)| next.is_whitespace()) {
                chars.next();
            }
            push(&mut out, ' ', at);
            continue;
        }
        if fold && !c.is_ascii() {
            for lower in c.to_lowercase() {
                push(&mut out, if lower == 'ς' { 'σ' } else { lower }, at);
            }
        } else if fold {
            push(&mut out, c.to_ascii_lowercase(), at);
        } else {
            push(&mut out, c, at);
        }
    }
    Normalized {
        text: text_out,
        map: Some(starts),
        original: text.len(),
    }
}

/// Each ASCII byte as the normalised copy holds it: whitespace as a space, and (`FOLD`)
/// letters lowercased.
static ASCII_FOLD: [u8; 128] = ascii_table(true);
static ASCII_KEEP: [u8; 128] = ascii_table(false);

const fn ascii_table(fold: bool) -> [u8; 128] {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = match b {
            b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => b' ',
            _ if fold => b.to_ascii_lowercase(),
            _ => b,
        };
        i += 1;
    }
    table
}

/// The general path for an ASCII text (a whitespace run somewhere: a Markdown list item's
/// indented continuation line): byte by byte, one map entry a byte, no character decoded.
fn normalize_ascii(text: &str, fold: bool) -> Normalized {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut starts = Vec::with_capacity(bytes.len());
    let table = if fold { &ASCII_FOLD } else { &ASCII_KEEP };
    let mut previous_space = false;
    for (at, &b) in bytes.iter().enumerate() {
        let mapped = table[usize::from(b & 0x7F)];
        let space = mapped == b' ';
        if space && previous_space {
            continue;
        }
        previous_space = space;
        out.push(mapped);
        starts.push(u32::try_from(at).unwrap_or(u32::MAX));
    }
    Normalized {
        // ASCII in, ASCII out.
        text: String::from_utf8(out).unwrap_or_default(),
        map: Some(starts),
        original: text.len(),
    }
}

/// The fast path: when no whitespace run is longer than one character, every whitespace is
/// ASCII and folding keeps each character's UTF-8 length, the copy is byte-aligned with the
/// original and needs no map. `None` sends the text down the general path.
fn normalize_aligned(text: &str, fold: bool) -> Option<Normalized> {
    if text.is_ascii() {
        // One pass through a table (each byte folded, each whitespace byte made a space); a
        // run of two whitespace bytes (two spaces in the copy) sends the text down the general
        // path.
        let table = if fold { &ASCII_FOLD } else { &ASCII_KEEP };
        let out: Vec<u8> = text.bytes().map(|b| table[usize::from(b & 0x7F)]).collect();
        if memchr::memmem::find(&out, b"  ").is_some() {
            return None;
        }
        // ASCII in, ASCII out.
        let out = String::from_utf8(out).ok()?;
        return Some(Normalized {
            text: out,
            map: None,
            original: text.len(),
        });
    }
    // ASCII bytes through the table, each non-ASCII character decoded.
    let table = if fold { &ASCII_FOLD } else { &ASCII_KEEP };
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut previous_space = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii() {
            let mapped = table[usize::from(b)];
            let space = mapped == b' ';
            if space && previous_space {
                return None;
            }
            previous_space = space;
            out.push(mapped);
            i += 1;
            continue;
        }
        let c = text.get(i..)?.chars().next()?;
        // Non-ASCII whitespace takes the general path.
        if c.is_whitespace() {
            return None;
        }
        previous_space = false;
        let len = c.len_utf8();
        let lowered = if fold {
            let mut lower = c.to_lowercase();
            let (Some(first), None) = (lower.next(), lower.next()) else {
                return None;
            };
            if first == 'ς' { 'σ' } else { first }
        } else {
            c
        };
        if lowered.len_utf8() != len {
            return None;
        }
        let mut buf = [0u8; 4];
        out.extend_from_slice(lowered.encode_utf8(&mut buf).as_bytes());
        i += len;
    }
    Some(Normalized {
        text: String::from_utf8(out).ok()?,
        map: None,
        original: text.len(),
    })
}

/// The output of the general (mapped) normalisation.
struct Slow<'a> {
    text: &'a mut String,
    starts: &'a mut Vec<u32>,
}

/// Pushes `c`, from the original range starting at `start` (the caller checked that every
/// offset fits a `u32`).
fn push(out: &mut Slow<'_>, c: char, start: usize) {
    out.text.push(c);
    let start = u32::try_from(start).unwrap_or(u32::MAX);
    for _ in 0..c.len_utf8() {
        out.starts.push(start);
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A word character of a script written with spaces: a term edge of this kind needs a word
/// boundary, and a neighbour of this kind continues the word (so blocks the match).
fn spaced_word(c: char) -> bool {
    is_word(c) && !spaceless(c)
}

/// Scripts written without spaces between words: Han, Hiragana, Katakana, Thai, Lao, Tibetan,
/// Myanmar and Khmer. Also where an address ends in such text
/// ([`crate::check::not_words`]).
pub(crate) fn spaceless(c: char) -> bool {
    matches!(u32::from(c),
        0x0E00..=0x0EFF        // Thai, Lao
        | 0x0F00..=0x0FFF      // Tibetan
        | 0x1000..=0x109F      // Myanmar
        | 0x1780..=0x17FF      // Khmer
        | 0x19E0..=0x19FF      // Khmer symbols
        | 0x2E80..=0x2FDF      // CJK radicals
        | 0x3005..=0x3007      // ideographic iteration and zero
        | 0x3021..=0x3029
        | 0x3038..=0x303B
        | 0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF      // Katakana extensions
        | 0x3400..=0x4DBF      // CJK extension A
        | 0x4E00..=0x9FFF      // CJK unified
        | 0xA9E0..=0xA9FF      // Myanmar extended B
        | 0xAA60..=0xAA7F      // Myanmar extended A
        | 0xF900..=0xFAFF      // CJK compatibility
        | 0xFF66..=0xFF9F      // halfwidth Katakana
        | 0x20000..=0x323AF    // CJK extensions B…H
    )
}

fn grapheme_boundary(text: &str, at: usize) -> bool {
    if at == 0 || at >= text.len() {
        return true;
    }
    GraphemeCursor::new(at, text.len(), true)
        .is_boundary(text, 0)
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {

    #[test]
    fn ascii_text_is_folded_in_place_and_whitespace_runs_take_the_general_path() {
        for text in ["Sign In", "a\tb\nc\u{0B}d\u{0C}e\rf g", "", "MiXeD-case_42"] {
            let expected: String = text
                .chars()
                .map(|c| {
                    if c.is_whitespace() {
                        ' '
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect();
            let folded = normalize_aligned(text, true).expect("aligned");
            assert_eq!(
                (folded.text.as_str(), folded.map.is_none()),
                (expected.as_str(), true)
            );
            let kept = normalize_aligned(text, false).expect("aligned");
            let spaced: String = text
                .chars()
                .map(|c| if c.is_whitespace() { ' ' } else { c })
                .collect();
            assert_eq!(kept.text, spaced);
        }
        assert!(normalize_aligned("two  spaces", true).is_none());
        assert!(normalize_aligned("line\r\nend", false).is_none());
        assert_eq!(normalize("two \n spaces", true).text, "two spaces");
    }

    #[test]
    fn the_aligned_path_copies_as_the_character_path_does() {
        for text in [
            "Caf\u{e9} \u{c9}T\u{c9} d\u{e9}j\u{e0}",
            "\u{3a3}\u{39f}\u{3a6}\u{39f}\u{3a3} \u{3c3}\u{3bf}\u{3c6}\u{3bf}\u{3c2}",
            "\u{201c}quoted\u{201d}\tand\n\u{2014} em",
            "\u{4e2d}\u{6587}\u{1F600}x",
        ] {
            for fold in [true, false] {
                let aligned = normalize_aligned(text, fold).expect("aligned");
                assert_eq!(aligned.map, None);
                assert_eq!(
                    aligned.text,
                    normalize_chars(text, fold).text,
                    "{text:?} {fold}"
                );
            }
        }
        // Non-ASCII whitespace, a run, and a lowercase of another length: the general path.
        assert!(normalize_aligned("a\u{a0}b", true).is_none());
        assert!(normalize_aligned("\u{e9}  b", false).is_none());
        assert!(normalize_aligned("\u{130}", true).is_none());
    }

    #[test]
    fn the_ascii_general_path_maps_as_the_character_path_does() {
        for text in [
            "two  spaces",
            "  Lead\r\n\tand TRAIL  ",
            "a \u{0B}\u{0C} b\n\n\nC",
            " ",
            "x",
        ] {
            for fold in [true, false] {
                let (bytes, chars) = (normalize_ascii(text, fold), normalize_chars(text, fold));
                assert_eq!(
                    (&bytes.text, &bytes.map, bytes.original),
                    (&chars.text, &chars.map, chars.original),
                    "{text:?} fold {fold}"
                );
            }
        }
    }

    use super::*;
    use crate::governance::TermStatus;

    fn exception(text: &str) -> crate::governance::TermException {
        crate::governance::TermException {
            text: text.to_owned(),
            at: None,
        }
    }

    fn entry(text: &str, case_sensitive: bool) -> TermEntry {
        TermEntry {
            case_sensitive,
            ..TermEntry::new(text, "en", TermStatus::Forbidden)
        }
    }

    /// Runs `find` and returns (matched original text, entry index) pairs.
    fn run(terms: &[(&str, bool)], text: &str) -> Vec<(String, usize)> {
        let entries: Vec<TermEntry> = terms.iter().map(|(t, s)| entry(t, *s)).collect();
        TermMatcher::new(&entries)
            .find(text)
            .into_iter()
            .map(|m| (text[m.range].to_owned(), m.entry))
            .collect()
    }

    /// (case name, terms with case-sensitivity, text, expected (matched text, entry)).
    type Case<'a> = (
        &'a str,
        &'a [(&'a str, bool)],
        &'a str,
        &'a [(&'a str, usize)],
    );

    #[test]
    fn matches_follow_the_one_matching_rule() {
        #[rustfmt::skip]
        let cases: &[Case] = &[
            ("case-insensitive by default", &[("login", false)], "Please LogIn now", &[("LogIn", 0)]),
            ("inflection is not matched", &[("utilize", false)], "It utilizes and utilized", &[]),
            ("whole word only", &[("use", false)], "reuse user use", &[("use", 0)]),
            ("underscore blocks a match", &[("mooring", false)], "mooring_id and mooring", &[("mooring", 0)]),
            ("digits are word characters", &[("v2", false)], "v2 v22 2v2", &[("v2", 0)]),
            ("multi-word across spaces", &[("sign in", false)], "sign   in", &[("sign   in", 0)]),
            ("multi-word across newline", &[("sign in", false)], "sign\n\t in", &[("sign\n\t in", 0)]),
            ("punctuated term C++", &[("C++", false)], "use C++, or c++11", &[("C++", 0), ("c++", 0)]),
            ("punctuated term Node.js", &[("Node.js", false)], "on node.js.", &[("node.js", 0)]),
            ("hyphenated term", &[("sign-in", false)], "the sign-in page", &[("sign-in", 0)]),
            ("placeholder term", &[("{count}", false)], "x{count}y", &[("{count}", 0)]),
            ("punctuation edges", &[("login", false)], "(login), \"login\".", &[("login", 0), ("login", 0)]),
            ("longest wins", &[("sign", false), ("sign in", false)], "sign in", &[("sign in", 1)]),
            ("inner match suppressed", &[("mooring", false), ("mooring_id", false)], "a mooring_id", &[("mooring_id", 1)]),
            ("overlap keeps the leftmost", &[("sign in", false), ("in place", false)], "sign in place", &[("sign in", 0)]),
            ("failing long candidate keeps shorter", &[("log", false), ("log ina", false)], "log inat", &[("log", 0)]),
            ("case-sensitive term", &[("GitHub", true)], "GitHub github GITHUB", &[("GitHub", 0)]),
            ("sensitive wins a tie", &[("github", false), ("GitHub", true)], "GitHub Github", &[("GitHub", 1), ("Github", 0)]),
            ("CJK without boundaries", &[("登录", false)], "请登录账户", &[("登录", 0)]),
            ("Japanese Katakana", &[("ログイン", false)], "ログインする", &[("ログイン", 0)]),
            ("Thai without boundaries", &[("เข้าสู่ระบบ", false)], "กรุณาเข้าสู่ระบบก่อน", &[("เข้าสู่ระบบ", 0)]),
            ("Latin next to kana", &[("API", false)], "このAPIは", &[("API", 0)]),
            ("Korean uses boundaries", &[("로그인", false)], "로그인하다 로그인", &[("로그인", 0)]),
            ("German sharp s keeps offsets", &[("straße", false)], "STRAẞE und Straße", &[("STRAẞE", 0), ("Straße", 0)]),
            ("dotted capital I keeps offsets", &[("login", false)], "İİ login", &[("login", 0)]),
            ("dotted capital I term", &[("İstanbul", false)], "in İSTANBUL", &[("İSTANBUL", 0)]),
            ("final sigma folds", &[("λόγος", false)], "ΛΌΓΟΣ", &[("ΛΌΓΟΣ", 0)]),
            ("accented letter is a word char", &[("caf", false)], "café caf", &[("caf", 0)]),
            ("combining mark blocks", &[("cafe", false)], "cafe\u{301} x", &[]),
            ("empty term never matches", &[("", false), ("  ", false)], "anything", &[]),
        ];
        let mut failures = Vec::new();
        for (name, terms, text, want) in cases {
            let want: Vec<(String, usize)> =
                want.iter().map(|(t, e)| ((*t).to_owned(), *e)).collect();
            let got = run(terms, text);
            if got != want {
                failures.push(format!("{name}: got {got:?}, want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn offsets_are_byte_offsets_into_the_original_text() {
        let m = TermMatcher::new(&[entry("login", false)]);
        let text = "İİ ẞ login";
        let found = m.find(text);
        assert_eq!(
            found,
            vec![TermMatch {
                entry: 0,
                range: 9..14,
                variant: false,
                exception: None,
            }]
        );
        assert_eq!(&text[9..14], "login");
    }

    #[test]
    fn matches_settled_in_windows_are_the_matches_of_each_part() {
        // Far more candidates than one settling window, folded and exact sides, overlapping
        // terms, collapsed whitespace and folds that move bytes: the whole text gives each
        // part's matches, shifted.
        let entries = [
            entry("sign", false),
            entry("sign in", false),
            entry("in place", false),
            entry("github", false),
            entry("GitHub", true),
            entry("login", false),
            entry("straße", false),
        ];
        let m = TermMatcher::new(&entries);
        let part = "Sign in place, sign   in to GitHub github İİ LOGIN STRAẞE sign\n in. | ";
        let one: Vec<TermMatch> = m.find(part);
        assert_eq!(one.len(), 7, "{one:?}");
        let times = 3 * SETTLE_EVERY;
        let whole = m.find(&part.repeat(times));
        let mut expected = Vec::new();
        for i in 0..times {
            expected.extend(one.iter().map(|t| TermMatch {
                entry: t.entry,
                variant: t.variant,
                exception: t.exception,
                range: t.range.start + i * part.len()..t.range.end + i * part.len(),
            }));
        }
        assert_eq!(whole, expected);
    }

    #[test]
    fn variants_and_exceptions_settled_in_windows_are_those_of_each_part() {
        // As above, with variants (folded, competing with the terms) and exception phrases
        // (never competing): whole text and each part agree on both.
        let mut react = entry("ReactJS", false);
        react.exceptions = vec![
            exception("ReactJS Day"),
            exception("the ReactJS   Day Pass"),
        ];
        let mut github = entry("GitHub", true);
        github.status = TermStatus::Preferred;
        github.exceptions = vec![exception("GITHUB INC")];
        let mut node = entry("Node.js", true);
        node.status = TermStatus::Admitted;
        let entries = [react, github, node, entry("js", false)];
        let m = TermMatcher::new(&entries);
        let part = "ReactJS Day, reactjs; the reactjs day pass. Github, GITHUB INC, GitHub,                     node.JS NodeJS Node.js js rust-github; ";
        let mut one = Vec::new();
        m.find_each_variant(part, |t| one.push(t));
        let shown: Vec<(&str, bool, Option<usize>)> = one
            .iter()
            .map(|t| (&part[t.range.clone()], t.variant, t.exception))
            .collect();
        assert_eq!(
            shown,
            [
                ("ReactJS", false, Some(0)),
                ("reactjs", false, None),
                ("reactjs", false, Some(1)),
                ("Github", true, None),
                ("GITHUB", true, Some(0)),
                ("GitHub", false, None),
                ("node.JS", true, None),
                ("NodeJS", true, None),
                ("Node.js", false, None),
                ("js", false, None),
            ]
        );
        let times = 3 * SETTLE_EVERY;
        let mut whole = Vec::new();
        m.find_each_variant(&part.repeat(times), |t| whole.push(t));
        let mut expected = Vec::new();
        for i in 0..times {
            expected.extend(one.iter().map(|t| TermMatch {
                range: t.range.start + i * part.len()..t.range.end + i * part.len(),
                ..t.clone()
            }));
        }
        assert_eq!(whole, expected);
        // Without variants: the terms alone, as before.
        let plain: Vec<&str> = m
            .find(part)
            .iter()
            .map(|t| &part[t.range.clone()])
            .collect();
        assert_eq!(
            plain,
            [
                "ReactJS", "reactjs", "reactjs", "GitHub", "JS", "Node.js", "js"
            ]
        );
    }

    #[test]
    fn a_side_of_variants_alone_is_not_scanned_without_them() {
        let mut npm = entry("npm", true);
        npm.status = TermStatus::Preferred;
        let m = TermMatcher::new(&[npm]);
        assert!(m.folded.as_ref().is_some_and(|side| side.variants_only));
        assert!(m.find("NPM and npm").iter().all(|t| !t.variant));
        let mut variants = Vec::new();
        m.find_each_variant("NPM and npm", |t| variants.push(t.range));
        assert_eq!(variants, [0..3, 8..11]);
    }

    #[test]
    fn empty_matcher_finds_nothing() {
        assert!(TermMatcher::new(&[]).find("anything").is_empty());
        assert!(TermMatcher::default().find("anything").is_empty());
    }
}
