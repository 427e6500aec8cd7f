//! The one term matcher every surface uses: whole-word, Unicode-aware, case-folding and
//! whitespace-tolerant, longest match first, with byte offsets into the original text.
//!
//! Terms are compiled once into Aho-Corasick automata over a folded, whitespace-normalised form;
//! each text is normalised the same way with a map from every normalised byte back to the
//! original, so offsets stay right when folding changes byte length (`İ` → `i̇`). All candidate
//! matches are collected (overlapping), those failing a word boundary are dropped, then the
//! longest at each position wins, left to right, without overlap.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use unicode_segmentation::GraphemeCursor;

use super::TermEntry;

/// One match of a term in a text: the entry's index and the byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermMatch {
    pub entry: usize,
    pub range: std::ops::Range<usize>,
}

/// One side of the matcher (case-insensitive or case-sensitive terms).
#[derive(Debug, Clone)]
struct Side {
    automaton: AhoCorasick,
    /// For each automaton pattern, the entries that share it.
    entries: Vec<Vec<usize>>,
}

/// Term entries compiled for fast, repeated search.
#[derive(Debug, Clone, Default)]
pub struct TermMatcher {
    folded: Option<Side>,
    exact: Option<Side>,
    /// Per entry: whether its first and last characters need a word boundary.
    edges: Vec<(bool, bool)>,
    /// Per entry: case-sensitive (wins a tie on the same span).
    sensitive: Vec<bool>,
}

impl TermMatcher {
    /// Compiles the entries; `TermMatch::entry` indexes this slice. Empty terms never match.
    pub fn new(entries: &[TermEntry]) -> Self {
        let mut folded_patterns: Vec<String> = Vec::new();
        let mut folded_entries: Vec<Vec<usize>> = Vec::new();
        let mut exact_patterns: Vec<String> = Vec::new();
        let mut exact_entries: Vec<Vec<usize>> = Vec::new();
        let mut edges = Vec::with_capacity(entries.len());
        let mut sensitive = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let trimmed = entry.text.trim();
            edges.push((
                trimmed.chars().next().is_some_and(spaced_word),
                trimmed.chars().next_back().is_some_and(spaced_word),
            ));
            sensitive.push(entry.case_sensitive);
            let pattern = normalize(trimmed, !entry.case_sensitive).text;
            if pattern.is_empty() {
                continue;
            }
            let (patterns, owners) = if entry.case_sensitive {
                (&mut exact_patterns, &mut exact_entries)
            } else {
                (&mut folded_patterns, &mut folded_entries)
            };
            match patterns.iter().position(|p| *p == pattern) {
                Some(at) => owners[at].push(index),
                None => {
                    patterns.push(pattern);
                    owners.push(vec![index]);
                }
            }
        }
        TermMatcher {
            folded: build(folded_patterns, folded_entries),
            exact: build(exact_patterns, exact_entries),
            edges,
            sensitive,
        }
    }

    /// True when no term can match.
    pub fn is_empty(&self) -> bool {
        self.folded.is_none() && self.exact.is_none()
    }

    /// Every match in `text`, left to right, non-overlapping, longest first at a position.
    pub fn find(&self, text: &str) -> Vec<TermMatch> {
        if self.is_empty() || text.is_empty() {
            return Vec::new();
        }
        // (start, end, entry)
        let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
        for (side, fold) in [(&self.folded, true), (&self.exact, false)] {
            let Some(side) = side else { continue };
            let hay = normalize(text, fold);
            for m in side.automaton.find_overlapping_iter(hay.text.as_str()) {
                let (s, e) = (m.start(), m.end());
                // A match must cover whole source characters, not part of a folded expansion.
                if s > 0 && hay.start(s - 1) == hay.start(s) {
                    continue;
                }
                if e < hay.len() && hay.start(e) == hay.start(e - 1) {
                    continue;
                }
                let (start, end) = (hay.start(s), hay.end(e - 1));
                for &entry in &side.entries[m.pattern().as_usize()] {
                    if self.bounded(text, start, end, entry) {
                        candidates.push((start, end, entry));
                    }
                }
            }
        }
        candidates.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then((b.1 - b.0).cmp(&(a.1 - a.0)))
                .then(self.sensitive[b.2].cmp(&self.sensitive[a.2]))
                .then(a.2.cmp(&b.2))
        });
        let mut out = Vec::new();
        let mut last_end = 0;
        for (start, end, entry) in candidates {
            if start < last_end {
                continue;
            }
            out.push(TermMatch {
                entry,
                range: start..end,
            });
            last_end = end;
        }
        out
    }

    /// Whether the match `start..end` for `entry` sits on word (and grapheme) boundaries.
    fn bounded(&self, text: &str, start: usize, end: usize, entry: usize) -> bool {
        if !grapheme_boundary(text, start) || !grapheme_boundary(text, end) {
            return false;
        }
        let (lead, trail) = self.edges.get(entry).copied().unwrap_or((false, false));
        if lead && text[..start].chars().next_back().is_some_and(spaced_word) {
            return false;
        }
        if trail && text[end..].chars().next().is_some_and(spaced_word) {
            return false;
        }
        true
    }
}

fn build(patterns: Vec<String>, entries: Vec<Vec<usize>>) -> Option<Side> {
    if patterns.is_empty() {
        return None;
    }
    let automaton = AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .build(&patterns)
        .ok()?;
    Some(Side { automaton, entries })
}

/// A normalised copy of a text with, for every byte, the original range of its source.
/// `map` is `None` when the copy is byte-for-byte aligned with the original (ASCII text with
/// no whitespace run longer than one character: the common case), which spares two maps of
/// a word per byte on every block.
struct Normalized {
    text: String,
    map: Option<(Vec<usize>, Vec<usize>)>,
}

impl Normalized {
    /// Start of the original range of output byte `i`.
    fn start(&self, i: usize) -> usize {
        self.map.as_ref().map_or(i, |(starts, _)| starts[i])
    }
    /// End of the original range of output byte `i`.
    fn end(&self, i: usize) -> usize {
        self.map.as_ref().map_or(i + 1, |(_, ends)| ends[i])
    }
    fn len(&self) -> usize {
        self.text.len()
    }
}

/// Collapses every whitespace run to one space and, when `fold`, lowercases (with final sigma
/// folded to sigma). Each output byte records the original byte range it came from.
fn normalize(text: &str, fold: bool) -> Normalized {
    if let Some(aligned) = normalize_aligned(text, fold) {
        return aligned;
    }
    let mut text_out = String::with_capacity(text.len());
    let mut starts = Vec::with_capacity(text.len());
    let mut ends = Vec::with_capacity(text.len());
    let mut out = Slow {
        text: &mut text_out,
        starts: &mut starts,
        ends: &mut ends,
    };
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() {
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if !next.is_whitespace() {
                    break;
                }
                end = next_at + next.len_utf8();
                chars.next();
            }
            push(&mut out, ' ', at, end);
            continue;
        }
        let end = at + c.len_utf8();
        if fold && !c.is_ascii() {
            for lower in c.to_lowercase() {
                push(&mut out, if lower == 'ς' { 'σ' } else { lower }, at, end);
            }
        } else if fold {
            push(&mut out, c.to_ascii_lowercase(), at, end);
        } else {
            push(&mut out, c, at, end);
        }
    }
    Normalized {
        text: text_out,
        map: Some((starts, ends)),
    }
}

/// The fast path: when no whitespace run is longer than one character, every whitespace is
/// ASCII and folding keeps each character's UTF-8 length, the copy is byte-aligned with the
/// original and needs no map. `None` sends the text down the general path.
fn normalize_aligned(text: &str, fold: bool) -> Option<Normalized> {
    if text.is_ascii() {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut previous_space = false;
        for &b in bytes {
            if char::from(b).is_whitespace() {
                if previous_space {
                    return None;
                }
                previous_space = true;
                out.push(b' ');
            } else {
                previous_space = false;
                out.push(if fold { b.to_ascii_lowercase() } else { b });
            }
        }
        // ASCII in, ASCII out.
        let text = String::from_utf8(out).ok()?;
        return Some(Normalized { text, map: None });
    }
    let mut out = String::with_capacity(text.len());
    let mut previous_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if previous_space || !c.is_ascii() {
                return None;
            }
            previous_space = true;
            out.push(' ');
            continue;
        }
        previous_space = false;
        if !fold {
            out.push(c);
        } else if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            let mut lower = c.to_lowercase();
            let (Some(first), None) = (lower.next(), lower.next()) else {
                return None;
            };
            let first = if first == 'ς' { 'σ' } else { first };
            if first.len_utf8() != c.len_utf8() {
                return None;
            }
            out.push(first);
        }
    }
    Some(Normalized {
        text: out,
        map: None,
    })
}

/// The output of the general (mapped) normalisation.
struct Slow<'a> {
    text: &'a mut String,
    starts: &'a mut Vec<usize>,
    ends: &'a mut Vec<usize>,
}

fn push(out: &mut Slow<'_>, c: char, start: usize, end: usize) {
    out.text.push(c);
    for _ in 0..c.len_utf8() {
        out.starts.push(start);
        out.ends.push(end);
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
/// Myanmar and Khmer.
fn spaceless(c: char) -> bool {
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
    use super::*;
    use crate::governance::TermStatus;

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
                range: 9..14
            }]
        );
        assert_eq!(&text[9..14], "login");
    }

    #[test]
    fn empty_matcher_finds_nothing() {
        assert!(TermMatcher::new(&[]).find("anything").is_empty());
        assert!(TermMatcher::default().find("anything").is_empty());
    }
}
