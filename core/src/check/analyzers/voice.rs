//! `voice`: the measurable parts of the voice in force. Prohibited patterns and the sentence
//! and paragraph limits are checked per block; required patterns once per document.
//! Every regex was compiled when the governance loaded: nothing compiles here.

use std::ops::Range;

use super::rule::declare_rule;
use crate::check::Sink;
use crate::governance::{Governance, PatternRule, Severity};
use crate::model::Role;
use crate::text::CODE_MARK;

declare_rule! {
    /// ## What it flags
    /// Text matching one of the voice's `style.prohibited_patterns`, in any block. The
    /// message is the pattern's `description`, and the severity its `severity`.
    ///
    /// ## Why it matters
    /// Prohibited patterns capture habits the voice rules out (minimisers such as "simply",
    /// exclamation marks, "click here"), so every writer and every assistant avoids them.
    ///
    /// ## Example
    /// With `(?i)\bsimply\b` prohibited: `Simply run the installer.` Use instead:
    /// `Run the installer.`
    pub PROHIBITED_PATTERN = "voice.prohibited-pattern", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A document in which nothing matches one of the voice's `style.required_patterns`.
    /// The patterns run once over all the document's prose, so the finding has no block
    /// and no line.
    ///
    /// ## Why it matters
    /// Required patterns state what every page must say (where to get support, a licence
    /// line), which is easy to forget on a new page.
    ///
    /// ## Example
    /// With `(?i)support` required, a page that never says where to get help. Use instead:
    /// add `Questions? Contact support at help@example.com.`
    pub REQUIRED_PATTERN = "voice.required-pattern", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A sentence with more words than the voice's `style.constraints.max_sentence_words`.
    /// Sentences end at `.`, `!` or `?` followed by a space or the end of the block, and at
    /// line breaks in headings and list items; an inline code counts as one word.
    ///
    /// ## Why it matters
    /// Long sentences are harder to read, to scan and to translate; readers skim them and
    /// miss the action.
    ///
    /// ## Example
    /// `When you have finished editing the configuration file and saved it you should
    /// restart the service so that the new settings take effect.` Use instead: `Save the
    /// configuration file. Restart the service to apply the new settings.`
    pub SENTENCE_TOO_LONG = "voice.sentence-too-long", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A paragraph with more sentences than the voice's
    /// `style.constraints.max_paragraph_sentences`.
    ///
    /// ## Why it matters
    /// Long paragraphs read as walls of text; splitting them gives each idea its own
    /// place and makes pages easier to scan.
    ///
    /// ## Example
    /// One paragraph of eight sentences covering install, configuration and upgrade.
    /// Use instead: three paragraphs, one per task.
    pub PARAGRAPH_TOO_LONG = "voice.paragraph-too-long", Severity::Minor
}

/// Runs the per-block `voice` rules over one block's prose, pushing hits in prose offsets.
pub fn check_block(gov: &Governance, role: Role, prose: &str, hits: &mut dyn Sink) {
    for rule in &gov.prohibited {
        prohibited(rule, prose, hits);
    }
    let limits = &gov.constraints;
    if limits.max_sentence_words.is_none() && limits.max_paragraph_sentences.is_none() {
        return;
    }
    let split_lines = matches!(role, Role::Heading | Role::ListItem | Role::TableCell);
    let mut sentences = 0usize;
    for_each_sentence(prose, split_lines, |range, words| {
        if words == 0 {
            return;
        }
        sentences += 1;
        if let Some(max) = limits.max_sentence_words
            && words > max as usize
        {
            let mut hit = SENTENCE_TOO_LONG.hit(
                range,
                format!("sentence has {words} words; the limit is {max}"),
            );
            hit.severity = limits.severity;
            hits.push(hit);
        }
    });
    if role == Role::Paragraph
        && let Some(max) = limits.max_paragraph_sentences
        && sentences > max as usize
    {
        let mut hit = PARAGRAPH_TOO_LONG.hit(
            trimmed(prose, 0..prose.len()),
            format!("paragraph has {sentences} sentences; the limit is {max}"),
        );
        hit.severity = limits.severity;
        hits.push(hit);
    }
}

/// Runs the per-document `voice` rules over the document's prose (every translatable
/// block's prose joined with `\n`). Hits have the empty range `0..0`: they sit in no block.
pub fn check_document(gov: &Governance, text: &str, hits: &mut dyn Sink) {
    for rule in &gov.required {
        if rule.regex.is_match(text) {
            continue;
        }
        let pattern = rule.regex.as_str();
        let message = match rule
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            Some(description) => format!("{description} (nothing matches `{pattern}`)"),
            None => format!("nothing matches the required pattern `{pattern}`"),
        };
        let mut hit = REQUIRED_PATTERN.hit(0..0, message);
        hit.severity = rule.severity;
        hits.push(hit);
    }
}

fn prohibited(rule: &PatternRule, prose: &str, hits: &mut dyn Sink) {
    for found in rule.regex.find_iter(prose) {
        if found.is_empty() {
            continue;
        }
        let message = match rule
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            Some(description) => description.to_owned(),
            None => format!("matches `{}`", rule.regex.as_str()),
        };
        let mut hit = PROHIBITED_PATTERN.hit(found.range(), message);
        hit.severity = rule.severity;
        hits.push(hit);
    }
}

/// Counts words as a scan passes over them: whitespace-separated tokens holding a letter, a
/// digit or a code. ASCII bytes are judged without decoding; only a non-ASCII character is
/// decoded.
#[derive(Default)]
struct WordCount {
    count: usize,
    /// The token in hand has been counted.
    counted: bool,
}

impl WordCount {
    fn ascii(&mut self, b: u8) {
        if b.is_ascii_whitespace() || b == 0x0B {
            self.counted = false;
        } else if !self.counted && b.is_ascii_alphanumeric() {
            self.count += 1;
            self.counted = true;
        }
    }

    fn char(&mut self, c: char) {
        if c.is_whitespace() {
            self.counted = false;
        } else if !self.counted && (c.is_alphanumeric() || c == CODE_MARK) {
            self.count += 1;
            self.counted = true;
        }
    }

    /// Passes the character starting at byte `i` of `text`; its length (at least 1).
    fn at(&mut self, text: &str, i: usize) -> usize {
        match text.as_bytes().get(i) {
            Some(&b) if b < 0x80 => {
                self.ascii(b);
                1
            }
            _ => match text.get(i..).and_then(|t| t.chars().next()) {
                Some(c) => {
                    self.char(c);
                    c.len_utf8()
                }
                None => 1,
            },
        }
    }
}

/// Words in a sentence: whitespace-separated tokens holding a letter, a digit or a code.
#[cfg(test)]
pub(crate) fn count_words(sentence: &str) -> usize {
    let mut words = WordCount::default();
    let mut i = 0;
    while i < sentence.len() {
        i += words.at(sentence, i);
    }
    words.count
}

/// `range` without leading and trailing whitespace.
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    let Some(slice) = text.get(range.clone()) else {
        return range;
    };
    let start = range.start + (slice.len() - slice.trim_start().len());
    let end = range.end - (slice.len() - slice.trim_end().len());
    if start >= end {
        range.start..range.start
    } else {
        start..end
    }
}

/// Abbreviations whose full stop ends no sentence.
fn is_abbreviation(text: &str, dot: usize) -> bool {
    let before = text.get(..dot).unwrap_or_default();
    let token = before
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default();
    let token = token.trim_start_matches(|c: char| !c.is_alphanumeric());
    let initial = token.chars().count() == 1 && token.chars().all(char::is_uppercase);
    initial
        || [
            "e.g", "i.e", "vs", "cf", "mr", "mrs", "ms", "dr", "st", "approx", "fig",
        ]
        .iter()
        .any(|a| token.eq_ignore_ascii_case(a))
}

/// Calls `f` with the range of every sentence in `text`, trimmed, empty ones skipped, and its
/// words (as [`WordCount`] counts them): one pass over the text for both.
pub(crate) fn for_each_sentence(
    text: &str,
    split_lines: bool,
    mut f: impl FnMut(Range<usize>, usize),
) {
    let mut start = 0;
    let mut words = WordCount::default();
    // Words before `start`.
    let mut before = 0;
    let mut emit = |range: Range<usize>, count: usize, f: &mut dyn FnMut(Range<usize>, usize)| {
        let range = trimmed(text, range);
        if !range.is_empty() {
            f(range, count - before);
        }
        before = count;
    };
    // Every stop is ASCII but `…` (E2 80 A6): scan bytes and decode only around a stop or a
    // non-ASCII character. A sentence ends before whitespace, so no word spans two.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = match bytes[i] {
            b'\n' if split_lines => {
                words.ascii(b'\n');
                emit(start..i, words.count, &mut f);
                start = i + 1;
                i += 1;
                continue;
            }
            b @ (b'.' | b'!' | b'?') => char::from(b),
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA6) => {
                '\u{2026}'
            }
            _ => {
                i += words.at(text, i);
                continue;
            }
        };
        // Closing quotes and brackets after the stop belong to the sentence (none of them
        // starts or ends a word).
        let mut end = i + c.len_utf8();
        while let Some(next) = text.get(end..).and_then(|t| t.chars().next()) {
            if matches!(
                next,
                '.' | '!' | '?' | '"' | '\'' | ')' | ']' | '\u{2019}' | '\u{201D}' | '\u{00BB}'
            ) {
                end += next.len_utf8();
            } else {
                break;
            }
        }
        let at_boundary = text
            .get(end..)
            .and_then(|t| t.chars().next())
            .is_none_or(char::is_whitespace);
        if at_boundary && !(c == '.' && end == i + 1 && is_abbreviation(text, i)) {
            emit(start..end, words.count, &mut f);
            start = end;
        }
        i = end;
    }
    emit(start..text.len(), words.count, &mut f);
}

#[cfg(test)]
mod tests {

    #[test]
    fn words_are_counted_as_whitespace_tokens_holding_a_letter_digit_or_code() {
        let slow = |s: &str| {
            s.split_whitespace()
                .filter(|t| t.chars().any(|c| c.is_alphanumeric() || c == CODE_MARK))
                .count()
        };
        for text in [
            "",
            "one two  three",
            "don\u{2019}t stop \u{2014} now",
            "caf\u{e9}\u{a0}au lait \u{FFFC} -- ... 42",
            "\u{3000}全角\u{3000}スペース ok",
            "a\u{0B}b\u{0C}c\td\re \u{85}f",
            "\u{FFFC}\u{FFFC} \u{2026} \u{201C}quoted\u{201D}",
        ] {
            assert_eq!(count_words(text), slow(text), "{text:?}");
        }
    }

    use regex::Regex;

    use super::*;
    use crate::governance::Constraints;

    fn pattern(re: &str, description: Option<&str>, severity: Severity) -> PatternRule {
        PatternRule {
            regex: Regex::new(re).unwrap_or_else(|e| panic!("test regex: {e}")),
            description: description.map(str::to_owned),
            severity,
            field: "style.prohibited_patterns[0]".to_owned(),
        }
    }

    fn limits(words: Option<u32>, sentences: Option<u32>) -> Governance {
        let mut gov = Governance::empty();
        gov.constraints = Constraints {
            max_sentence_words: words,
            max_paragraph_sentences: sentences,
            severity: Severity::Minor,
        };
        gov
    }

    type Row = (&'static str, Severity, Range<usize>, String);

    fn block(gov: &Governance, role: Role, prose: &str) -> Vec<Row> {
        let mut hits = Vec::new();
        check_block(gov, role, prose, &mut hits);
        hits.into_iter()
            .map(|h| (h.rule.id, h.severity, h.range, h.message))
            .collect()
    }

    #[test]
    fn prohibited_patterns_report_every_leftmost_match_with_the_rule_severity() {
        let mut gov = Governance::empty();
        gov.prohibited.push(pattern(
            r"(?i)\b(simply|just)\s+(click|run)\b",
            Some("Minimising words"),
            Severity::Minor,
        ));
        gov.prohibited
            .push(pattern(r"!{2,}", None, Severity::Major));
        gov.prohibited
            .push(pattern(r"x*", Some("zero-width"), Severity::Major));
        let rows = block(&gov, Role::Paragraph, "Simply click it!! Then just run.");
        assert_eq!(
            rows,
            vec![
                (
                    "voice.prohibited-pattern",
                    Severity::Minor,
                    0..12,
                    "Minimising words".to_owned()
                ),
                (
                    "voice.prohibited-pattern",
                    Severity::Minor,
                    23..31,
                    "Minimising words".to_owned()
                ),
                (
                    "voice.prohibited-pattern",
                    Severity::Major,
                    15..17,
                    "matches `!{2,}`".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn required_patterns_are_checked_once_over_the_document() {
        let mut gov = Governance::empty();
        gov.required.push(pattern(
            "(?i)support",
            Some("Every page says where to get support"),
            Severity::Minor,
        ));
        gov.required
            .push(pattern(r"(?m)^Licence", None, Severity::Major));
        gov.required
            .push(pattern(r"first\nsecond", None, Severity::Major));
        let mut hits = Vec::new();
        check_document(&gov, "first\nsecond mentions Support", &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].rule.id, "voice.required-pattern");
        assert_eq!(hits[0].severity, Severity::Major);
        assert_eq!(hits[0].range, 0..0);
        assert_eq!(
            hits[0].message,
            "nothing matches the required pattern `(?m)^Licence`"
        );
        let mut hits = Vec::new();
        check_document(&gov, "Licence\nfirst\nsecond", &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            hits[0].message,
            "Every page says where to get support (nothing matches `(?i)support`)"
        );
        assert_eq!(hits[0].severity, Severity::Minor);
    }

    #[test]
    fn a_long_sentence_is_reported_with_its_range_and_count() {
        let gov = limits(Some(5), None);
        let prose = "Short one. This sentence has far too many words in it! Fine again?";
        let rows = block(&gov, Role::Paragraph, prose);
        assert_eq!(
            rows,
            vec![(
                "voice.sentence-too-long",
                Severity::Minor,
                11..54,
                "sentence has 9 words; the limit is 5".to_owned()
            )]
        );
        assert_eq!(
            &prose[11..54],
            "This sentence has far too many words in it!"
        );
    }

    #[test]
    fn constraint_severity_comes_from_the_constraints() {
        let mut gov = limits(Some(2), None);
        gov.constraints.severity = Severity::Major;
        assert_eq!(
            block(&gov, Role::Paragraph, "one two three")[0].1,
            Severity::Major
        );
    }

    #[test]
    fn sentences_split_at_stops_not_abbreviations_or_decimals() {
        let text = "Use e.g. the CLI (v1.2) now. Dr. Smith said \"go!\" Then J. Doe left… OK";
        let mut found = Vec::new();
        for_each_sentence(text, false, |r, _| found.push(text[r].to_owned()));
        assert_eq!(
            found,
            vec![
                "Use e.g. the CLI (v1.2) now.",
                "Dr. Smith said \"go!\"",
                "Then J. Doe left…",
                "OK"
            ]
        );
    }

    #[test]
    fn headings_and_list_items_split_at_line_breaks_paragraphs_do_not() {
        let gov = limits(Some(3), None);
        let text = "one two three\nfour five six";
        assert!(block(&gov, Role::ListItem, text).is_empty());
        assert!(block(&gov, Role::Heading, text).is_empty());
        let rows = block(&gov, Role::Paragraph, text);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].2, 0..text.len());
        assert_eq!(rows[0].3, "sentence has 6 words; the limit is 3");
    }

    #[test]
    fn each_sentence_s_words_are_the_words_counted_in_it() {
        for text in [
            "One two. Three four five! Six? Seven\u{2026} eight",
            "Use e.g. the CLI (v1.2) now. Dr. Smith said \"go!\" Then J. Doe left\u{2026} OK",
            "\u{FFFC} runs. caf\u{e9}\u{a0}au lait.\nnext line \u{3000}\u{5168}\u{89d2}. -- 42.",
            "  . .. ! Trailing  ",
            "",
        ] {
            for split_lines in [false, true] {
                let mut counted = Vec::new();
                for_each_sentence(text, split_lines, |r, words| {
                    counted.push((count_words(&text[r.clone()]), words, r));
                });
                for (expected, words, r) in counted {
                    assert_eq!(words, expected, "{text:?} {r:?} split {split_lines}");
                }
            }
        }
    }

    #[test]
    fn codes_count_as_words_and_punctuation_does_not() {
        assert_eq!(
            count_words("Run \u{FFFC} now \u{2014} \u{FFFC}fast\u{FFFC} - ok"),
            5
        );
    }

    #[test]
    fn a_long_paragraph_is_reported_over_the_whole_paragraph() {
        let gov = limits(None, Some(2));
        let prose = "  One. Two! Three? Four.\n";
        let rows = block(&gov, Role::Paragraph, prose);
        assert_eq!(
            rows,
            vec![(
                "voice.paragraph-too-long",
                Severity::Minor,
                2..24,
                "paragraph has 4 sentences; the limit is 2".to_owned()
            )]
        );
        assert!(
            block(&gov, Role::ListItem, prose).is_empty(),
            "paragraphs only"
        );
        assert!(block(&gov, Role::Paragraph, "One. Two.").is_empty());
    }

    #[test]
    fn fixture_paragraph_breaks_both_limits() {
        let text = include_str!("../../../../testdata/check/voice/long.txt");
        let gov = limits(Some(30), Some(3));
        let rows = block(&gov, Role::Paragraph, text.trim_end());
        let ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            ids,
            vec!["voice.sentence-too-long", "voice.paragraph-too-long"]
        );
        assert_eq!(rows[0].3, "sentence has 41 words; the limit is 30");
        assert_eq!(rows[1].3, "paragraph has 4 sentences; the limit is 3");
    }
}
