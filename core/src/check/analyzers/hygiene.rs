//! `hygiene`: slips any text can have whatever governs it (a word written twice, two spaces,
//! an unclosed bracket or quote). Runs on every translatable block's source prose as a reader
//! sees it ([`crate::text::Prose`]): emphasis and link markup gone (a link's `[` and `](url)`
//! are no brackets), each standalone inline code one [`CODE_MARK`], so no rule reads or
//! matches across a code. A bracket or a repeated word inside a URL or path is not a finding
//! ([`crate::check::not_words`]).

use std::ops::Range;

use super::rule::declare_rule;
use crate::check::Sink;
use crate::governance::Severity;
use crate::text::CODE_MARK;

declare_rule! {
    /// ## What it flags
    /// The same word twice in a row, ignoring case, with only spaces or a line break between:
    /// "the the". A code between the two words breaks the pair; emphasis does not
    /// (`the **the**`). A word of a URL, domain or path is not a word here
    /// (`example.com com`), and an all-capitals word beside its lower-case self names
    /// something (`Bitwise AND and assignment`).
    ///
    /// ## Why it matters
    /// It is nearly always left over from an edit. "had had" and "that that" are fine.
    ///
    /// ## Example
    /// `Open the the dashboard.` Use instead: `Open the dashboard.`
    pub REPEATED_WORD = "hygiene.repeated-word", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// Two or more spaces between words inside a line. Indentation, spaces before a line
    /// break and spaces next to a code are left alone.
    ///
    /// ## Why it matters
    /// Doubled spaces are invisible in review, show up in rendered output and translation
    /// memories, and make search for a phrase miss.
    ///
    /// ## Example
    /// `Save the  file.` Use instead: `Save the file.`
    pub DOUBLED_SPACE = "hygiene.doubled-space", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A `(`, `[` or `{` that is never closed, or a `)`, `]` or `}` that closes nothing, in
    /// one block. Text inside codes is not read (nor a link's own `[` and `](url)`), a bracket
    /// inside a URL or path (`…/wiki/Rust_(language`) is part of it, and list enumerators
    /// such as `1)` or `a)` are fine.
    ///
    /// ## Why it matters
    /// An unbalanced bracket is usually a truncated aside or a broken edit, and it confuses
    /// both readers and translation tools.
    ///
    /// ## Example
    /// `Run the installer (it takes a minute.` Use instead: `Run the installer (it takes a minute).`
    pub UNBALANCED_BRACKET = "hygiene.unbalanced-bracket", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// An odd number of straight double quotes (`"`) in a block, or a curly `“` with no `”`
    /// (or the reverse). A quotation opened one way and closed the other (`“Save"`, `"Save”`)
    /// is one finding over the pair. Single quotes are not checked, because apostrophes look
    /// the same. A `"` that is the character itself is no quotation: a text that is only `"`
    /// (a quote character a catalog offers), a shortcut's key (`Ctrl+"`), `'"'`.
    ///
    /// ## Why it matters
    /// An unclosed quote leaves the reader unsure where the quotation ends, and often means
    /// an edit cut a sentence short.
    ///
    /// ## Example
    /// `Click "Save to continue.` Use instead: `Click "Save" to continue.`
    pub UNBALANCED_QUOTE = "hygiene.unbalanced-quote", Severity::Minor
}

/// Runs the `hygiene` rules over one block's prose, pushing hits in prose offsets. Gives the
/// words the prose holds, as [`word_count`] counts them (counted in the same pass over the
/// words, so a check that weighs a score by words reads them once).
pub fn check(prose: &str, hits: &mut dyn Sink) -> usize {
    let words = repeated_words(prose, hits);
    doubled_spaces(prose, hits);
    brackets(prose, hits);
    quotes(prose, hits);
    words
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Characters that join two word characters into one word (`don't`, `well-known`).
fn is_joiner(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '-' | '\u{2010}' | '\u{2011}')
}

/// The words of a text, as byte ranges: runs of letters, digits and `_`, with apostrophes and
/// hyphens kept inside a word. A [`CODE_MARK`] is never part of a word.
pub(crate) fn words(text: &str) -> Words<'_> {
    Words {
        text,
        pos: 0,
        wide: false,
    }
}

/// How many words `text` holds, as the hygiene rules find them (runs of letters, digits and
/// `_`, with `'` and `-` inside a word; an inline code's mark is none), except that each Han
/// ideograph and kana counts as a word of its own (Chinese and Japanese write no spaces between words; a
/// run of them is as many words as characters, as word processors count them). What
/// `kapi stats` reports.
pub fn word_count(text: &str) -> usize {
    words(text)
        .map(|range| word_weight(text.get(range).unwrap_or_default()))
        .sum()
}

/// How many words one word of [`words`] counts for: one, or as many as its Han ideographs and
/// kana (and one more for any other letters in it).
#[inline]
fn word_weight(word: &str) -> usize {
    if word.is_ascii() {
        return 1;
    }
    let east_asian = word.chars().filter(|c| is_east_asian(*c)).count();
    let other = word.chars().any(|c| is_word_char(c) && !is_east_asian(c));
    east_asian + usize::from(other || east_asian == 0)
}

/// Han ideographs, hiragana and katakana: scripts written without spaces between words.
fn is_east_asian(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // half-width katakana
        | '\u{20000}'..='\u{3134F}') // extensions B to G
}

pub(crate) struct Words<'a> {
    text: &'a str,
    pos: usize,
    /// Whether the last word given may hold a non-ASCII character (its weight then needs
    /// reading: [`word_weight`]); `false` means it is ASCII.
    wide: bool,
}

/// ASCII bytes that are word characters (letters, digits, `_`), for the scans' tight loops.
static ASCII_WORD: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether byte `b` is an ASCII word character (`false` for every non-ASCII byte).
fn ascii_word(b: u8) -> bool {
    ASCII_WORD.get(usize::from(b)).copied().unwrap_or(false)
}

impl Iterator for Words<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let text = self.text;
        let bytes = text.as_bytes();
        // Find the first word character: ASCII bytes in a tight loop, a non-ASCII character
        // decoded.
        let mut i = self.pos;
        self.wide = false;
        let start = loop {
            let b = *bytes.get(i)?;
            if b < 0x80 {
                if ascii_word(b) {
                    break i;
                }
                i += 1;
            } else {
                let c = text.get(i..)?.chars().next()?;
                if is_word_char(c) {
                    self.wide = true;
                    break i;
                }
                i += c.len_utf8();
            }
        };
        // Extend over word characters and joiners followed by a word character.
        let mut end = start;
        let mut i = start;
        loop {
            while bytes.get(i).copied().is_some_and(ascii_word) {
                i += 1;
            }
            end = end.max(i);
            let Some(&b) = bytes.get(i) else { break };
            let (c, len) = if b < 0x80 {
                (char::from(b), 1)
            } else {
                self.wide = true;
                match text.get(i..).and_then(|t| t.chars().next()) {
                    Some(c) => (c, c.len_utf8()),
                    None => break,
                }
            };
            if is_word_char(c) {
                end = i + len;
            } else if !(is_joiner(c)
                && text
                    .get(i + len..)
                    .and_then(|t| t.chars().next())
                    .is_some_and(is_word_char))
            {
                break;
            }
            i += len;
        }
        self.pos = end;
        Some(start..end)
    }
}

/// Whether two spellings of one word could be one slip: anything but an all-capitals word
/// beside a spelling that is not, which names something (`Bitwise AND and assignment`, `OR or`).
fn same_shape(first: &str, second: &str) -> bool {
    let shouted = |w: &str| {
        w.chars().filter(|c| c.is_alphabetic()).count() > 1 && !w.chars().any(char::is_lowercase)
    };
    shouted(first) == shouted(second)
}

fn same_ignoring_case(a: &str, b: &str) -> bool {
    // Most word pairs differ at their first letter: two ASCII letters decide at once (an
    // ASCII letter lowercases to an ASCII letter).
    if let (Some(&x), Some(&y)) = (a.as_bytes().first(), b.as_bytes().first())
        && x.is_ascii()
        && y.is_ascii()
        && !x.eq_ignore_ascii_case(&y)
    {
        return false;
    }
    if a.len() == b.len() && a.eq_ignore_ascii_case(b) {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return false;
    }
    // Most word pairs differ at once: compare the first characters before the whole words.
    let first = |w: &str| w.chars().next().map(char::to_lowercase);
    if let (Some(x), Some(y)) = (first(a), first(b))
        && !x.eq(y)
    {
        return false;
    }
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// Repeats that are grammatical English.
fn is_grammatical_pair(word: &str) -> bool {
    ["had", "that"]
        .iter()
        .any(|ok| word.eq_ignore_ascii_case(ok))
}

/// Reports words written twice; gives the words' count ([`word_count`]).
fn repeated_words(text: &str, hits: &mut dyn Sink) -> usize {
    let mut previous: Option<Range<usize>> = None;
    let mut count = 0;
    let mut all = words(text);
    while let Some(word) = all.next() {
        count += if all.wide {
            word_weight(text.get(word.clone()).unwrap_or_default())
        } else {
            1
        };
        if let Some(prev) = previous.take()
            && let (Some(first), Some(gap), Some(second)) = (
                text.get(prev.clone()),
                text.get(prev.end..word.start),
                text.get(word.clone()),
            )
            && same_ignoring_case(first, second)
            && same_shape(first, second)
            && !gap.is_empty()
            && gap.chars().all(char::is_whitespace)
            && first.chars().any(char::is_alphabetic)
            && !is_grammatical_pair(first)
        {
            let mut hit =
                REPEATED_WORD.hit(prev.start..word.end, format!("`{second}` is written twice"));
            hit.suggestion = Some(first.to_owned());
            hits.push(hit);
            // `the the the` is one slip, reported once; the next pair starts fresh.
            continue;
        }
        previous = Some(word);
    }
    count
}

fn doubled_spaces(text: &str, hits: &mut dyn Sink) {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Each run of spaces starts at a pair the searcher finds (a run holds one pair or more).
    for start in memchr::memmem::find_iter(bytes, b"  ") {
        if start < i {
            continue;
        }
        i = start;
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        let count = i - start;
        let before = text.get(..start).and_then(|s| s.chars().next_back());
        let after = text.get(i..).and_then(|s| s.chars().next());
        let between_words =
            |c: Option<char>| c.is_some_and(|c| !c.is_whitespace() && c != CODE_MARK);
        if between_words(before) && between_words(after) {
            // No suggestion: "use ` `" helps nobody; the message says what to do.
            hits.push(
                DOUBLED_SPACE.hit(start..i, format!("{count} spaces between words; keep one")),
            );
        }
    }
}

fn opener_of(close: char) -> char {
    match close {
        ')' => '(',
        ']' => '[',
        _ => '{',
    }
}

fn closer_of(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// `:)`, `:-(`, `;)`: a bracket that is part of an emoticon.
fn is_emoticon(text: &str, at: usize) -> bool {
    let mut back = text.get(..at).unwrap_or_default().chars().rev();
    match back.next() {
        Some(':' | ';') => true,
        Some('-') => matches!(back.next(), Some(':' | ';')),
        _ => false,
    }
}

/// A list enumerator closing at `at`: `1)`, `12)`, `a)`, `iv)` after a space or line start.
fn is_enumerator(text: &str, at: usize) -> bool {
    // An enumerator is at most 4 bytes: look back 5, never to the start of a long token (a
    // scan per `)` to the last space made a line of `)` quadratic).
    let before = text.get(..at).unwrap_or_default();
    let mut from = before.len().saturating_sub(5);
    while !before.is_char_boundary(from) {
        from -= 1;
    }
    let tail = &before[from..];
    if from > 0 && !tail.contains(char::is_whitespace) {
        return false;
    }
    let token = tail.rsplit(char::is_whitespace).next().unwrap_or_default();
    let digits = !token.is_empty() && token.len() <= 3 && token.bytes().all(|b| b.is_ascii_digit());
    let letter = token.len() == 1 && token.bytes().all(|b| b.is_ascii_alphabetic());
    let roman = matches!(
        token,
        "ii" | "iii" | "iv" | "vi" | "vii" | "viii" | "ix" | "xi" | "xii"
    );
    digits || letter || roman
}

/// The slot of an opening bracket in [`brackets`]' counts.
fn slot(open: char) -> usize {
    match open {
        '(' => 0,
        '[' => 1,
        _ => 2,
    }
}

fn brackets(text: &str, hits: &mut dyn Sink) {
    let bytes = text.as_bytes();
    if memchr::memchr3(b'(', b'[', b'{', bytes).is_none()
        && memchr::memchr3(b')', b']', b'}', bytes).is_none()
    {
        return;
    }
    let mut open: Vec<(char, usize)> = Vec::new();
    // How many of each opener `open` holds: a closer with none to match skips the search
    // down the stack (which made `((((…]]]]` quadratic).
    let mut counts = [0usize; 3];
    let unclosed = |c: char, at: usize| {
        UNBALANCED_BRACKET.hit(
            at..at + c.len_utf8(),
            format!("`{c}` is never closed by `{}`", closer_of(c)),
        )
    };
    // Brackets are ASCII, and an ASCII byte never occurs inside a UTF-8 sequence: scan bytes.
    for (i, &b) in bytes.iter().enumerate() {
        let c = char::from(b);
        match c {
            '(' if is_emoticon(text, i) => {}
            '(' | '[' | '{' => {
                open.push((c, i));
                counts[slot(c)] += 1;
            }
            ')' | ']' | '}' => {
                let opener = opener_of(c);
                if open.last().is_some_and(|&(o, _)| o == opener) {
                    open.pop();
                    counts[slot(opener)] -= 1;
                } else if c == ')' && (is_enumerator(text, i) || is_emoticon(text, i)) {
                    // `1)` and `:)` close nothing and need nothing.
                } else if counts[slot(opener)] > 0
                    && let Some(pos) = open.iter().rposition(|&(o, _)| o == opener)
                {
                    for (o, at) in open.drain(pos + 1..) {
                        counts[slot(o)] -= 1;
                        hits.push(unclosed(o, at));
                    }
                    open.pop();
                    counts[slot(opener)] -= 1;
                } else {
                    hits.push(
                        UNBALANCED_BRACKET.hit(i..i + 1, format!("`{c}` closes no `{opener}`")),
                    );
                }
            }
            _ => {}
        }
    }
    for (o, at) in open {
        hits.push(unclosed(o, at));
    }
}

/// Whether the `"` at `i` is a shortcut's key: after a modifier and `+` (`Ctrl+"`,
/// `Shift+"`), not after a word that ends in `+` (`C++"`).
fn shortcut_key(bytes: &[u8], i: usize) -> bool {
    const MODIFIERS: &[&str] = &[
        "ctrl", "control", "shift", "alt", "option", "opt", "cmd", "command", "meta", "super",
        "win",
    ];
    let Some(before) = i.checked_sub(1).and_then(|p| bytes.get(..p)) else {
        return false;
    };
    if bytes.get(i - 1) != Some(&b'+') {
        return false;
    }
    let word_start = before
        .iter()
        .rposition(|b| !b.is_ascii_alphabetic())
        .map_or(0, |p| p + 1);
    let word = &before[word_start..];
    MODIFIERS
        .iter()
        .any(|m| word.eq_ignore_ascii_case(m.as_bytes()))
}

fn quotes(text: &str, hits: &mut dyn Sink) {
    let mut straight = 0usize;
    let mut last_straight = 0usize;
    // Open curly quotes: `“`, or German `„` (closed by `“` or `”`).
    let mut open: Vec<(char, usize)> = Vec::new();
    // `”` that closed no `“`.
    let mut stray: Vec<usize> = Vec::new();
    // Scan bytes: `"` is ASCII and the curly quotes all start `E2 80`, so no decoding is needed.
    let bytes = text.as_bytes();
    for i in memchr::memchr2_iter(b'"', 0xE2, bytes) {
        let c = match bytes[i] {
            b'"' => '"',
            0xE2 if bytes.get(i + 1) == Some(&0x80) => match bytes.get(i + 2) {
                Some(0x9E) => '\u{201E}',
                Some(0x9C) => '\u{201C}',
                Some(0x9D) => '\u{201D}',
                _ => continue,
            },
            _ => continue,
        };
        match c {
            // The character itself, not a quotation: a text that is only `"` (a quote
            // character to pick), a shortcut's key (`Ctrl+"`), one in single quotes (`'"'`).
            '"' if text.trim() == "\""
                || shortcut_key(bytes, i)
                || (i.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'\'')
                    && bytes.get(i + 1) == Some(&b'\'')) => {}
            '"' => {
                straight += 1;
                last_straight = i;
            }
            '\u{201E}' => open.push((c, i)),
            '\u{201C}' => {
                if open.last().is_some_and(|&(o, _)| o == '\u{201E}') {
                    open.pop();
                } else {
                    open.push((c, i));
                }
            }
            '\u{201D}' if open.pop().is_none() => stray.push(i),
            _ => {}
        }
    }
    // One quotation opened one way and closed the other (`“Save"`, `"Save”`) is one slip,
    // reported once over the pair.
    if straight % 2 == 1 {
        let curly_open = open.last().copied().filter(|&(_, at)| at < last_straight);
        let curly_close = stray.first().copied().filter(|&at| at > last_straight);
        if let Some((c, at)) = curly_open {
            open.pop();
            straight = 0;
            hits.push(UNBALANCED_QUOTE.hit(
                at..last_straight + 1,
                format!("`{c}` is closed by a straight `\"`: write both quotes the same way"),
            ));
        } else if let Some(at) = curly_close {
            stray.remove(0);
            straight = 0;
            hits.push(UNBALANCED_QUOTE.hit(
                last_straight..at + '\u{201D}'.len_utf8(),
                "a straight `\"` is closed by `”`: write both quotes the same way",
            ));
        }
    }
    for at in stray {
        hits.push(UNBALANCED_QUOTE.hit(at..at + '\u{201D}'.len_utf8(), "`”` closes no `“`"));
    }
    if straight % 2 == 1 {
        hits.push(UNBALANCED_QUOTE.hit(
            last_straight..last_straight + 1,
            format!("odd number of straight double quotes ({straight}): one is never closed"),
        ));
    }
    for (c, at) in open {
        hits.push(UNBALANCED_QUOTE.hit(at..at + c.len_utf8(), format!("`{c}` is never closed")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (rule, severity, range, message) of every hit, in prose order.
    fn run(text: &str) -> Vec<(&'static str, Severity, Range<usize>, String)> {
        let mut hits = Vec::new();
        check(text, &mut hits);
        hits.sort_by_key(|h| (h.range.start, h.rule.id));
        hits.into_iter()
            .map(|h| (h.rule.id, h.severity, h.range, h.message))
            .collect()
    }

    fn ids(text: &str) -> Vec<&'static str> {
        run(text).into_iter().map(|h| h.0).collect()
    }

    #[test]
    fn a_quotation_opened_one_way_and_closed_the_other_is_one_finding() {
        let text = "Click “Save\" to go.";
        let hits = run(text);
        let rows: Vec<(&str, &str)> = hits
            .iter()
            .map(|h| (&text[h.2.clone()], h.3.as_str()))
            .collect();
        assert_eq!(
            rows,
            vec![(
                "“Save\"",
                "`“` is closed by a straight `\"`: write both quotes the same way"
            )]
        );
        let hits = run("Say \"Quit” now.");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(
            hits[0].3,
            "a straight `\"` is closed by `”`: write both quotes the same way"
        );
        // A straight quote, then a curly one opened and never closed: two strays.
        assert_eq!(run("A \"B and a “C").len(), 2);
    }

    #[test]
    fn repeated_word_is_flagged_across_case_and_line_break() {
        let hits = run("Open the The\ndashboard.");
        assert_eq!(
            hits,
            vec![(
                "hygiene.repeated-word",
                Severity::Minor,
                5..12,
                "`The` is written twice".to_owned()
            )]
        );
        let mut raw = Vec::new();
        check("the  the", &mut raw);
        let repeated = raw.iter().find(|h| h.rule.id == "hygiene.repeated-word");
        assert_eq!(repeated.and_then(|h| h.suggestion.as_deref()), Some("the"));
    }

    #[test]
    fn grammatical_repeats_and_codes_between_words_are_fine() {
        assert!(ids("She had had enough; I know that that works.").is_empty());
        assert!(ids("Set the \u{FFFC} the value.").is_empty());
        assert!(ids("Set the\u{FFFC}the value.").is_empty());
        assert!(ids("It is 4 4 wide, the, the end.").is_empty());
        assert!(ids("a well-known known issue, don't don").is_empty());
        assert!(ids("Bitwise AND and assignment, OR or XOR.").is_empty());
        assert_eq!(ids("THE THE end"), vec!["hygiene.repeated-word"]);
    }

    #[test]
    fn a_triple_is_one_slip() {
        assert_eq!(ids("the the the end"), vec!["hygiene.repeated-word"]);
    }

    #[test]
    fn repeated_non_ascii_words_are_flagged() {
        let hits = run("Öffnen Sie die Die Datei");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].2, 12..19);
    }

    #[test]
    fn doubled_space_between_words_is_flagged_with_its_range() {
        let hits = run("Save the   file.");
        assert_eq!(
            hits,
            vec![(
                "hygiene.doubled-space",
                Severity::Minor,
                8..11,
                "3 spaces between words; keep one".to_owned()
            )]
        );
        assert_eq!(ids("End.  Next"), vec!["hygiene.doubled-space"]);
    }

    #[test]
    fn indentation_line_ends_and_codes_are_not_doubled_spaces() {
        assert!(ids("  Indented\n    more text").is_empty());
        assert!(ids("hard break  \nnext line").is_empty());
        assert!(ids("before  \u{FFFC}  after").is_empty());
        assert!(ids("tab\t\tseparated").is_empty());
        assert!(ids("one space only").is_empty());
    }

    #[test]
    fn unbalanced_brackets_name_the_bracket() {
        let hits = run("Run it (it takes a minute.");
        assert_eq!(
            hits,
            vec![(
                "hygiene.unbalanced-bracket",
                Severity::Minor,
                7..8,
                "`(` is never closed by `)`".to_owned()
            )]
        );
        let hits = run("done] now");
        assert_eq!(hits[0].2, 4..5);
        assert_eq!(hits[0].3, "`]` closes no `[`");
    }

    #[test]
    fn a_quote_that_is_the_character_itself_is_no_quotation() {
        for text in [
            "\"",
            " \" ",
            "Press Ctrl+\" to copy.",
            "Type '\"' to quote.",
        ] {
            assert!(run(text).is_empty(), "{text}: {:?}", run(text));
        }
        assert_eq!(run("Click \"Save to go.")[0].0, "hygiene.unbalanced-quote");
        assert!(run("Check the \"Desktop development with C++\" option.").is_empty());
        assert_eq!(run("Use C++\" here.")[0].0, "hygiene.unbalanced-quote");
        assert_eq!(run("\"\"\"")[0].0, "hygiene.unbalanced-quote");
    }

    #[test]
    fn nested_and_interleaved_brackets() {
        assert!(ids("f(a[1], {b: (c)}) and [x (y) z]").is_empty());
        // `[` is cut off by the `)` that closes the outer `(`.
        let hits = run("(see [the docs)");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].2, 5..6);
        assert_eq!(hits[0].3, "`[` is never closed by `]`");
    }

    #[test]
    fn enumerators_emoticons_and_codes_do_not_unbalance() {
        assert!(ids("1) Install\n2) Run\na) first, b) second, iv) fourth").is_empty());
        assert!(ids("Nice :) and sad :-( too").is_empty());
        assert!(ids("Call \u{FFFC} then \u{FFFC}.").is_empty());
        assert!(ids("(see step 1)").is_empty());
        assert_eq!(ids("word) here"), vec!["hygiene.unbalanced-bracket"]);
    }

    #[test]
    fn enumerators_look_back_a_few_bytes_and_unmatched_closers_skip_the_stack() {
        assert!(ids("1)").is_empty());
        assert!(ids("see 12) and é iv)").is_empty());
        assert_eq!(ids("longword)"), vec!["hygiene.unbalanced-bracket"]);
        assert_eq!(ids("ééé)"), vec!["hygiene.unbalanced-bracket"]);
        let hits = run("((((]]]]");
        let messages: Vec<&str> = hits.iter().map(|h| h.3.as_str()).collect();
        assert_eq!(
            messages,
            [
                "`(` is never closed by `)`",
                "`(` is never closed by `)`",
                "`(` is never closed by `)`",
                "`(` is never closed by `)`",
                "`]` closes no `[`",
                "`]` closes no `[`",
                "`]` closes no `[`",
                "`]` closes no `[`",
            ]
        );
        // A closer finds its opener under others, which it reports unclosed.
        let hits = run("[ ( { ]");
        assert_eq!(hits.len(), 2, "{hits:?}");
    }

    #[test]
    fn odd_straight_quotes_are_flagged_at_the_last_one() {
        let hits = run("Click \"Save to \"continue\".");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].0, "hygiene.unbalanced-quote");
        assert_eq!(hits[0].2, 24..25);
        assert_eq!(
            hits[0].3,
            "odd number of straight double quotes (3): one is never closed"
        );
        assert!(ids("Click \"Save\" and \"Cancel\".").is_empty());
    }

    #[test]
    fn curly_quotes_must_pair_and_apostrophes_are_ignored() {
        assert!(ids("Say “hello” and it’s fine, isn't it, ‘ok’ 'x").is_empty());
        assert!(ids("German „Anführungszeichen“ sind gut").is_empty());
        let hits = run("Say “hello and “bye”");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].2, 4..7);
        assert_eq!(hits[0].3, "`“` is never closed");
        let hits = run("bye” now");
        assert_eq!(hits[0].3, "`”` closes no `“`");
        assert_eq!(hits[0].2, 3..6);
    }

    #[test]
    fn words_keep_apostrophes_and_hyphens_inside() {
        let text = "don't well-known -x y' \u{FFFC}z";
        let found: Vec<&str> = words(text).filter_map(|r| text.get(r)).collect();
        assert_eq!(found, vec!["don't", "well-known", "x", "y", "z"]);
    }

    /// Words found character by character: what [`words`]' byte loops must agree with.
    fn reference_words(text: &str) -> Vec<Range<usize>> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
        let word = |i: usize| chars.get(i).is_some_and(|&(_, c)| is_word_char(c));
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if !word(i) {
                i += 1;
                continue;
            }
            let start = i;
            let mut last = i;
            i += 1;
            while i < chars.len() {
                if word(i) {
                    last = i;
                } else if !(is_joiner(chars[i].1) && word(i + 1)) {
                    break;
                }
                i += 1;
            }
            out.push(end_of(start)..end_of(last + 1));
            i = last + 1;
        }
        out
    }

    #[test]
    fn word_count_counts_words_and_each_east_asian_character() {
        assert_eq!(word_count("Don't stop the well-known  show."), 5);
        assert_eq!(word_count("Open \u{FFFC}dashboard\u{FFFC} now"), 3);
        assert_eq!(
            word_count("\u{4e2d}\u{6587}\u{5b57} and \u{3072}\u{3089}"),
            6
        );
        assert_eq!(word_count("  ... -- "), 0);
    }

    #[test]
    fn the_check_counts_the_words_it_reads() {
        for text in [
            "Don't stop the the well-known  show (now.",
            "Open \u{FFFC}dashboard\u{FFFC} now",
            "\u{4e2d}\u{6587}\u{5b57} and \u{3072}\u{3089}x caf\u{e9}",
            "  ... -- ",
        ] {
            let mut hits = Vec::new();
            assert_eq!(check(text, &mut hits), word_count(text), "{text}");
        }
    }

    #[test]
    fn words_agree_with_a_character_by_character_scan() {
        let pieces = [
            "a",
            "Z",
            "_",
            "9",
            "'",
            "-",
            "\u{2019}",
            "\u{2011}",
            " ",
            "\n",
            "\u{e9}",
            "\u{FFFC}",
            "\u{4e2d}",
            "(",
            ".",
            "\u{1F600}",
            "--",
            "''",
        ];
        // Every string of up to four pieces.
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for text in &texts {
                for piece in pieces {
                    longer.push(format!("{text}{piece}"));
                }
            }
            texts.extend(longer);
            texts.sort();
            texts.dedup();
        }
        for text in &texts {
            assert_eq!(
                words(text).collect::<Vec<_>>(),
                reference_words(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn clean_fixture_has_no_hits() {
        assert_eq!(
            ids(include_str!("../../../../testdata/check/hygiene/clean.txt")),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn fixture_has_one_hit_per_rule() {
        let text = include_str!("../../../../testdata/check/hygiene/slips.txt");
        let mut found = ids(text);
        found.dedup();
        assert_eq!(
            found,
            vec![
                "hygiene.repeated-word",
                "hygiene.doubled-space",
                "hygiene.unbalanced-bracket",
                "hygiene.unbalanced-quote"
            ]
        );
    }
}
