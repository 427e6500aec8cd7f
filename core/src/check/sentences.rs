//! Sentences and their words in a block's prose, as `voice.sentence-too-long` and
//! `voice.paragraph-too-long` count them: one linear pass that finds each sentence end and
//! counts the words between.
//!
//! The ends are the sentence breaks of Unicode's UAX #29 (rules SB6 to SB11, as the
//! `unicode-segmentation` crate computes them; a test holds this scan to the crate on every
//! short string of an alphabet of letters, digits, stops, quotes, brackets and spaces), with
//! what writers of documentation expect on top:
//!
//! - A line break is a space: a hard-wrapped paragraph, list item or heading is one run of
//!   sentences (UAX #29 ends a sentence at every line break).
//! - A stop ends a sentence only before whitespace (or the end): `config.yaml`, `v1.2.0`,
//!   `example.com/a.b`, `?q=1` and `Yahoo!` never break, and neither does `end.Next`. The
//!   exception is the CJK full stops (`。！？｡．`), written with no space after them.
//! - `.` (and `...`) ends a sentence only when the first letter after it is not lower case
//!   (UAX #29's SB8): `e.g. the`, `etc. and` go on. `…` is read the same way (UAX #29 does
//!   not count it as a stop).
//! - `!` and `?` end a sentence before anything (UAX #29's SB11), except when a closing quote
//!   or bracket follows them and the next word is lower case: a quotation's own stop
//!   (`“Where’s the -> Operator?” in Chapter 5`, `“Stop!” she said`).
//! - Abbreviations do not end a sentence before a capital either: `e.g.`, `i.e.`, `vs.`,
//!   `cf.`, `viz.`, `approx.`, `fig.` (any case), `Mr.`, `Mrs.`, `Ms.`, `Dr.`, `St.`,
//!   `Prof.`, `Jr.`, `Sr.` (capitalised), a single capital initial (`J. Doe`, `John F.
//!   Kennedy`: first, or after a capitalised word or another initial; after a lower-case
//!   word a capital is a name of its own, `module A. Notice`, and its stop ends a sentence)
//!   and dotted capitals (`U.S.`, `U.K.`). `etc.` is not among them: before a capital it nearly always
//!   ends its sentence (`…, and so on, etc. Then`). `in the U.S. Then` therefore reads as
//!   one sentence: the price of `U.S. Army` reading as one.
//! - Codes: a code is one opaque mark ([`CODE_MARK`]) and no sentence ends inside one. After
//!   a stop, marks that follow it at once (`Done.[^1] Next`, a footnote; `end.<br>`) belong
//!   to the sentence that ends, which ends after them; a mark right after the stop's
//!   whitespace starts a sentence (`Run it. `cargo run` builds it.` is two: a code has no
//!   case to read, and inline code often opens a sentence in technical prose), unless an
//!   abbreviation comes before it (`e.g. `x``).
//!
//! Words are whitespace-separated tokens holding a letter, a digit or a code, as before: a
//! code counts as one word. A sentence that ends with no whitespace after it (a CJK stop)
//! starts a new word.
//!
//! Bounded: each stop looks back at most `LOOK_BACK` bytes (for an abbreviation) and ahead
//! at most `LOOK_AHEAD` characters (for the first letter after it), so the pass is linear.
//! (The crate's own segmenter looks ahead without bound at every space after a stop, which
//! makes `end.` followed by a long run of spaces quadratic, and reads about 5 MB/s: it runs
//! in the tests, never on input.)

use std::ops::Range;

use crate::text::CODE_MARK;

/// How far back a stop looks for the abbreviation it may end, in bytes.
const LOOK_BACK: usize = 16;

/// How many characters after a stop's whitespace are read for the first letter.
const LOOK_AHEAD: usize = 64;

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

    /// Passes every character of `text`.
    fn pass(&mut self, text: &str) {
        for c in text.chars() {
            self.char(c);
        }
    }
}

/// Words in a sentence: whitespace-separated tokens holding a letter, a digit or a code.
#[cfg(test)]
pub(crate) fn count_words(sentence: &str) -> usize {
    let mut words = WordCount::default();
    words.pass(sentence);
    words.count
}

/// What a stop character is, in UAX #29's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `.` and its look-alikes (ATerm), and `…`: ends a sentence only before a letter that is
    /// not lower case.
    Full,
    /// `!`, `?` and the other sentence terminals (STerm): ends a sentence before anything.
    Terminal,
}

/// The stop `c` is, if it is one, and whether it ends a sentence with no space after it.
fn stop_of(c: char) -> Option<(Stop, bool)> {
    Some(match c {
        '.' | '\u{2024}' | '\u{FE52}' | '\u{2026}' => (Stop::Full, false),
        '\u{FF0E}' => (Stop::Full, true),
        '\u{3002}' | '\u{FF01}' | '\u{FF1F}' | '\u{FF61}' => (Stop::Terminal, true),
        '!' | '?' | '\u{203C}' | '\u{203D}' | '\u{2047}' | '\u{2048}' | '\u{2049}' | '\u{061F}'
        | '\u{06D4}' | '\u{0964}' | '\u{0965}' | '\u{0589}' | '\u{1362}' | '\u{1367}'
        | '\u{1368}' | '\u{104A}' | '\u{104B}' | '\u{FE56}' | '\u{FE57}' => (Stop::Terminal, false),
        _ => return None,
    })
}

/// Quotes and brackets, which UAX #29 lets follow a stop inside its sentence (Close).
fn is_close(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '\u{00AB}'
            | '\u{00BB}'
            | '\u{2018}'..='\u{201F}'
            | '\u{2039}'
            | '\u{203A}'
            | '\u{2045}'
            | '\u{2046}'
            | '\u{3008}'..='\u{3011}'
            | '\u{3014}'..='\u{301B}'
            | '\u{301D}'..='\u{301F}'
            | '\u{FF08}'
            | '\u{FF09}'
            | '\u{FF3B}'
            | '\u{FF3D}'
            | '\u{FF5B}'
            | '\u{FF5D}'
            | '\u{FF5F}'..='\u{FF63}'
    )
}

/// Commas, dashes, colons and semicolons (SContinue): after a stop and its spaces, the
/// sentence goes on (`Node.js v20. - Released` is one).
fn is_continue(c: char) -> bool {
    matches!(
        c,
        ',' | '-'
            | ':'
            | ';'
            | '\u{055D}'
            | '\u{060C}'
            | '\u{060D}'
            | '\u{07F8}'
            | '\u{1802}'
            | '\u{1808}'
            | '\u{2013}'
            | '\u{2014}'
            | '\u{3001}'
            | '\u{FE10}'
            | '\u{FE11}'
            | '\u{FE13}'
            | '\u{FE31}'
            | '\u{FE32}'
            | '\u{FE50}'
            | '\u{FE51}'
            | '\u{FE55}'
            | '\u{FE58}'
            | '\u{FE63}'
            | '\u{FF0C}'
            | '\u{FF0D}'
            | '\u{FF1A}'
            | '\u{FF1B}'
            | '\u{FF64}'
    )
}

/// Whether the text from `at` (past a stop and its whitespace) starts a new sentence after a
/// full stop: the first letter within `LOOK_AHEAD` characters is not lower case (UAX #29's
/// SB8, which reads past digits, spaces and punctuation), or a code comes first.
fn starts_sentence(text: &str, at: usize) -> bool {
    for c in text.get(at..).unwrap_or_default().chars().take(LOOK_AHEAD) {
        if c == CODE_MARK || stop_of(c).is_some() {
            return true;
        }
        if c.is_lowercase() {
            return false;
        }
        if c.is_alphabetic() {
            return true;
        }
    }
    true
}

/// Whether the full stop at `dot` ends an abbreviation that does not end a sentence.
fn is_abbreviation(text: &str, dot: usize) -> bool {
    let mut from = dot.saturating_sub(LOOK_BACK);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text.get(from..dot).unwrap_or_default();
    let token = match before.rfind(|c: char| c.is_whitespace() || c == CODE_MARK) {
        Some(at) => &before[at..],
        None if from == 0 => before,
        // A token longer than any abbreviation.
        None => return false,
    };
    let token_at = before.len() - token.len();
    let token = token.trim_start_matches(|c: char| !c.is_alphanumeric());
    let mut chars = token.chars();
    let (first, rest) = (chars.next(), chars.as_str());
    // A single capital is an initial in a name (`J. Doe`, `John F. Kennedy`): first in the
    // text, after a capitalised word or after another initial; after a lower-case word it is a
    // name of its own (`module A. Notice`, `type T. The`), and its stop can end a sentence.
    let initial = first.is_some_and(char::is_uppercase)
        && rest.is_empty()
        && before[..token_at]
            .split_whitespace()
            .next_back()
            .and_then(|word| {
                word.trim_start_matches(|c: char| !c.is_alphanumeric())
                    .chars()
                    .next()
            })
            .is_none_or(|c| c.is_uppercase() || !c.is_alphabetic())
        || first.is_some_and(char::is_uppercase) && rest.is_empty() && initial_follows(text, dot);
    let dotted_capitals = token.len() > 1
        && token
            .split('.')
            .all(|part| part.chars().count() == 1 && part.chars().all(char::is_uppercase));
    initial
        || dotted_capitals
        || ["e.g", "i.e", "vs", "cf", "viz", "approx", "fig"]
            .iter()
            .any(|a| token.eq_ignore_ascii_case(a))
        || ["Mr", "Mrs", "Ms", "Dr", "St", "Prof", "Jr", "Sr"].contains(&token)
}

/// Whether another initial follows the stop at `dot` (`J. R. R. Tolkien`).
fn initial_follows(text: &str, dot: usize) -> bool {
    let after = text.get(dot + 1..).unwrap_or_default().trim_start();
    let mut chars = after.chars();
    matches!((chars.next(), chars.next()), (Some(c), Some('.')) if c.is_uppercase())
}

/// A stop in the text and what follows it, as [`for_each_sentence`] judges it.
struct Ending {
    /// Where the sentence would end: past the stops, the quotes and brackets after them and
    /// any marks right after those.
    end: usize,
    /// Whether it does end there.
    breaks: bool,
}

/// Judges the stop at `at` (a stop character starts there).
fn ending(text: &str, at: usize) -> Ending {
    let rest = text.get(at..).unwrap_or_default();
    let mut chars = rest.char_indices().peekable();
    // The stops (`...`, `?!`): the last decides.
    let (mut stop, mut unspaced, mut stops) = (Stop::Full, false, 0usize);
    while let Some(&(_, c)) = chars.peek() {
        match stop_of(c) {
            Some((s, u)) => (stop, unspaced, stops) = (s, u, stops + 1),
            None => break,
        }
        chars.next();
    }
    let (mut marks, mut closed) = (false, false);
    while let Some(&(_, c)) = chars.peek() {
        if c == CODE_MARK {
            marks = true;
        } else if is_close(c) {
            closed = true;
        } else {
            break;
        }
        chars.next();
    }
    let end = at + chars.peek().map_or(rest.len(), |&(i, _)| i);
    let mut next = end;
    let mut spaced = false;
    while let Some(&(i, c)) = chars.peek() {
        if !c.is_whitespace() {
            next = at + i;
            break;
        }
        spaced = true;
        next = at + i + c.len_utf8();
        chars.next();
    }
    let Some(&(_, first)) = chars.peek() else {
        return Ending { end, breaks: true };
    };
    let separated = spaced || marks;
    let breaks = (separated || unspaced)
        && !is_continue(first)
        && stop_of(first).is_none()
        && match stop {
            // `“Where’s the -> Operator?” in Chapter 5`: a quotation's own stop.
            Stop::Terminal => !closed || starts_sentence(text, next),
            Stop::Full if separated => {
                let single_dot = stops == 1 && rest.starts_with('.');
                !(single_dot && is_abbreviation(text, at)) && starts_sentence(text, next)
            }
            // A CJK full stop with a letter right after it: UAX #29's SB6 (`．1`) and SB7
            // (`a．B`) keep the sentence going, as for `.`.
            Stop::Full => {
                let after_letter = text
                    .get(..at)
                    .and_then(|t| t.chars().next_back())
                    .is_some_and(|c| c.is_uppercase() || c.is_lowercase());
                let glued = !closed
                    && (first.is_numeric() || (stops == 1 && after_letter && first.is_uppercase()));
                !glued && starts_sentence(text, next)
            }
        };
    Ending { end, breaks }
}

/// Calls `f` with the range of every sentence in `text`, trimmed, empty ones skipped, and its
/// words (as [`count_words`] counts them): one pass over the text for both.
pub(crate) fn for_each_sentence(text: &str, mut f: impl FnMut(Range<usize>, usize)) {
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
    // Every ASCII stop is `.`, `!` or `?`: scan bytes, and decode only a non-ASCII character.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !matches!(b, b'.' | b'!' | b'?') {
                words.ascii(b);
                i += 1;
                continue;
            }
        } else {
            let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else {
                i += 1;
                continue;
            };
            if stop_of(c).is_none() {
                words.char(c);
                i += c.len_utf8();
                continue;
            }
        }
        let Ending { end, breaks } = ending(text, i);
        words.pass(text.get(i..end).unwrap_or_default());
        if breaks {
            emit(start..end, words.count, &mut f);
            start = end;
            // A sentence that ends with no space after it: the next starts a new word.
            words.counted = false;
        }
        i = end;
    }
    emit(start..text.len(), words.count, &mut f);
}

/// `range` without leading and trailing whitespace.
pub(crate) fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn sentences(text: &str) -> Vec<&str> {
        let mut found = Vec::new();
        for_each_sentence(text, |r, _| found.push(&text[r]));
        found
    }

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
        assert_eq!(
            count_words("Run \u{FFFC} now \u{2014} \u{FFFC}fast\u{FFFC} - ok"),
            5,
            "codes count as words and punctuation does not"
        );
    }

    #[test]
    fn each_sentence_s_words_are_the_words_counted_in_it() {
        for text in [
            "One two. Three four five! Six? Seven\u{2026} eight",
            "Use e.g. the CLI (v1.2) now. Dr. Smith said \"go!\" Then J. Doe left\u{2026} OK",
            "\u{FFFC} runs. caf\u{e9}\u{a0}au lait.\nnext line \u{3000}\u{5168}\u{89d2}. -- 42.",
            "  . .. ! Trailing  ",
            "我爱你。你好！好吗？ok Done.\u{FFFC}Next one.\u{FFFC} \u{FFFC} More.",
            "",
        ] {
            let mut counted = Vec::new();
            for_each_sentence(text, |r, words| {
                counted.push((count_words(&text[r.clone()]), words, r));
            });
            for (expected, words, r) in counted {
                assert_eq!(words, expected, "{text:?} {r:?}");
            }
        }
    }

    #[test]
    fn stops_end_sentences_before_whitespace_and_a_capital() {
        assert_eq!(
            sentences("Open the settings first. Then pick a theme."),
            ["Open the settings first.", "Then pick a theme."]
        );
        assert_eq!(
            sentences("Really? yes! \"Quoted.\" (Aside.) Next"),
            ["Really?", "yes!", "\"Quoted.\"", "(Aside.)", "Next"]
        );
        // A quotation's own stop before a lower-case word.
        assert_eq!(
            sentences(
                "See \u{201C}Where\u{2019}s the Operator?\u{201D}\u{FFFC} in Chapter 5. \u{201C}Stop!\u{201D} She left."
            ),
            [
                "See \u{201C}Where\u{2019}s the Operator?\u{201D}\u{FFFC} in Chapter 5.",
                "\u{201C}Stop!\u{201D}",
                "She left."
            ]
        );
        // A full stop before a lower-case word goes on (UAX #29 SB8), as do a comma or dash.
        assert_eq!(
            sentences("It is done. then more"),
            ["It is done. then more"]
        );
        assert_eq!(sentences("Rust 1.0. - Released"), ["Rust 1.0. - Released"]);
        assert_eq!(
            sentences("It was 1999. 3 people came. (See it.)"),
            ["It was 1999. 3 people came.", "(See it.)"]
        );
    }

    #[test]
    fn abbreviations_and_initials_do_not_end_a_sentence() {
        assert_eq!(
            sentences(
                "Use e.g. Rust or i.e. Go. Mr. Smith and Dr. Who met. Rust vs. Go, cf. Fig. 3."
            ),
            [
                "Use e.g. Rust or i.e. Go.",
                "Mr. Smith and Dr. Who met.",
                "Rust vs. Go, cf. Fig. 3."
            ]
        );
        assert_eq!(
            sentences("If module A is in module B, B is the parent of module A. Notice it."),
            [
                "If module A is in module B, B is the parent of module A.",
                "Notice it."
            ]
        );
        assert_eq!(
            sentences("John F. Kennedy and J. R. R. Tolkien met. Then type T. The end."),
            [
                "John F. Kennedy and J. R. R. Tolkien met.",
                "Then type T.",
                "The end."
            ]
        );
        assert_eq!(
            sentences("The U.S. Army and the U.K. Navy. J. Doe left. E.g. This."),
            [
                "The U.S. Army and the U.K. Navy.",
                "J. Doe left.",
                "E.g. This."
            ]
        );
        // `etc.` before a capital ends its sentence; before a lower-case word it does not.
        assert_eq!(
            sentences("Apples, pears, etc. Then plums, etc. and figs."),
            ["Apples, pears, etc.", "Then plums, etc. and figs."]
        );
        // Capitalised titles only: `10 ms. The` ends a sentence.
        assert_eq!(
            sentences("It took 10 ms. The end."),
            ["It took 10 ms.", "The end."]
        );
    }

    #[test]
    fn decimals_versions_file_names_and_urls_never_break() {
        assert_eq!(
            sentences(
                "Pi is 3.14 and v1.2.0 ships. Edit config.yaml. Then visit example.com/a.b now."
            ),
            [
                "Pi is 3.14 and v1.2.0 ships.",
                "Edit config.yaml.",
                "Then visit example.com/a.b now."
            ]
        );
        assert_eq!(
            sentences("See https://x.com/search?q=1&A=2 and Yahoo!Mail. Stop.Next thing."),
            [
                "See https://x.com/search?q=1&A=2 and Yahoo!Mail.",
                "Stop.Next thing."
            ]
        );
    }

    #[test]
    fn ellipses_end_a_sentence_only_before_a_capital() {
        assert_eq!(
            sentences("Wait... Then go. Wait... and go. Hold\u{2026} Now. Hold\u{2026} on."),
            [
                "Wait...",
                "Then go.",
                "Wait... and go.",
                "Hold\u{2026}",
                "Now.",
                "Hold\u{2026} on."
            ]
        );
    }

    #[test]
    fn cjk_full_stops_end_sentences_with_no_space_after_them() {
        assert_eq!(
            sentences("我爱你。你好！好吗？ok「引用。」次"),
            ["我爱你。", "你好！", "好吗？", "ok「引用。」", "次"]
        );
        assert_eq!(sentences("これは、テスト。"), ["これは、テスト。"]);
    }

    #[test]
    fn a_line_break_is_a_space() {
        assert_eq!(
            sentences("A hard-wrapped sentence\ngoes on here. And a\nsecond one"),
            [
                "A hard-wrapped sentence\ngoes on here.",
                "And a\nsecond one"
            ]
        );
        assert_eq!(sentences("e.g.\nThe next line"), ["e.g.\nThe next line"]);
        assert_eq!(sentences("Done.\nnext"), ["Done.\nnext"]);
    }

    #[test]
    fn codes_are_opaque_and_marks_after_a_stop_stay_with_its_sentence() {
        // Inline code opens a sentence.
        assert_eq!(
            sentences("Run it. \u{FFFC} is a macro."),
            ["Run it.", "\u{FFFC} is a macro."]
        );
        // A footnote or a line break right after the stop ends with the sentence.
        assert_eq!(
            sentences("Done.\u{FFFC} Next one.\u{FFFC}Then more.\u{FFFC}and on."),
            [
                "Done.\u{FFFC}",
                "Next one.\u{FFFC}",
                "Then more.\u{FFFC}and on."
            ]
        );
        // An abbreviation before a code goes on; no stop inside a code.
        assert_eq!(
            sentences("Use e.g. \u{FFFC} here."),
            ["Use e.g. \u{FFFC} here."]
        );
        assert_eq!(sentences("\u{FFFC}.\u{FFFC} x"), ["\u{FFFC}.\u{FFFC} x"]);
    }

    /// UAX #29's sentences of `text` as the crate finds them, with line breaks read as spaces
    /// and a break kept only where [`for_each_sentence`] allows one (after whitespace, or after
    /// a CJK full stop and its quotes): trimmed, empty ones dropped.
    fn uax(text: &str) -> Vec<String> {
        let spaced = text.replace('\n', " ");
        let mut out: Vec<String> = Vec::new();
        let mut start = 0;
        for (at, _) in spaced.split_sentence_bound_indices().skip(1) {
            let before = &spaced[..at];
            let unspaced = before
                .trim_end_matches(is_close)
                .chars()
                .next_back()
                .and_then(stop_of)
                .is_some_and(|(_, unspaced)| unspaced);
            // A quotation's own `!` or `?` before a lower-case word.
            let closed = before.trim_end();
            let quoted = closed.trim_end_matches(is_close);
            let quotation = quoted.len() < closed.len()
                && quoted
                    .chars()
                    .next_back()
                    .and_then(stop_of)
                    .is_some_and(|(stop, _)| stop == Stop::Terminal)
                && !starts_sentence(&spaced, at);
            if (before.ends_with(char::is_whitespace) || unspaced) && !quotation {
                out.push(text[start..at].trim().to_owned());
                start = at;
            }
        }
        out.push(text[start..].trim().to_owned());
        out.retain(|s| !s.is_empty());
        out
    }

    #[test]
    fn sentence_ends_agree_with_the_unicode_segmentation_crate() {
        // Pieces with no abbreviation among them (no one-letter token), no code and no `…`,
        // where this scan adds to UAX #29.
        let pieces = [
            "ab", "Cd", "\u{e9}a", "\u{c9}a", "\u{4e2d}", "12", " ", "\n", ".", "!", "?", "\"",
            ")", "(", ",", "\u{3002}", "\u{FF01}", "\u{2019}", "-", "\u{300D}", "\u{FF0E}",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for text in &texts {
                for piece in pieces {
                    longer.push(format!("{text}{piece}"));
                }
            }
            texts = longer;
            for text in &texts {
                let ours: Vec<String> = sentences(text).into_iter().map(str::to_owned).collect();
                assert_eq!(ours, uax(text), "{text:?}");
            }
        }
    }

    #[test]
    fn sentences_cover_the_text_in_order_and_count_their_own_words() {
        let pieces = [
            "ab", "J", "e.g", "etc", "Cd", " ", "\n", ".", "!", "?", "\u{2026}", "\u{FFFC}", ")",
            "\u{201D}", "\u{3002}", "12", "\u{4e2d}", ",",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            for text in &texts {
                let mut end = 0;
                for_each_sentence(text, |r, words| {
                    assert!(r.start >= end && r.start < r.end, "{text:?} {r:?}");
                    assert!(text[end..r.start].trim().is_empty(), "{text:?} {r:?}");
                    assert_eq!(words, count_words(&text[r.clone()]), "{text:?} {r:?}");
                    end = r.end;
                });
                assert!(text[end..].trim().is_empty(), "{text:?}");
            }
        }
    }

    #[test]
    fn a_long_run_after_a_stop_is_read_in_linear_time() {
        // The crate's segmenter is quadratic here; this scan looks a bounded way ahead.
        for tail in [" ", ")", "\u{FFFC}", "1 ", ". "] {
            let text = format!("end.{}x", tail.repeat(200_000));
            let mut n = 0;
            for_each_sentence(&text, |_, _| n += 1);
            assert!(n >= 1);
        }
    }
}
