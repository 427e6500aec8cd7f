//! `extends: readability`: the mean of Vale's grade levels over a document's summary
//! (`readability.go`), and the counts it and `metric` share (jdkato/twine's `summarize`).
//!
//! The counts are twine's (v0.10.1, the version Vale v3 uses): the summary is split into
//! paragraphs at each `\n\n`, each paragraph into sentences by the Punkt tokenizer of
//! neurosnap/sentences (v1.0.7, with twine's English changes), each sentence into words by
//! `(?:[A-Z]\.){2,}|[\p{N}\p{L}']+`, and each word's syllables counted by twine's rules
//! (its exceptions, prefixes, suffixes and vowel patterns). Long words have more than six
//! bytes, polysyllabic ones more than two syllables, complex ones more than two without an
//! `es`, `ed` or `ing` ending; characters are the letters and digits of the words.
//!
//! Where this differs from Vale:
//!
//! - Punkt here has the English model's abbreviations, collocations and sentence starters
//!   but not its orthographic table (20,366 words and the cases they were seen in): every
//!   word is taken as unseen. Only a period after an abbreviation, an initial or a number
//!   that is followed by a capitalized word can split differently (Vale splits
//!   `Dr. Smith`-like pairs the same way, and may split an initial such as `B. The` where
//!   this does not).
//! - Lower-casing is Rust's, which differs from Go's for a few letters (`İ`, final `Σ`).
//! - A `metrics` entry that is not one of Vale's five names, or no entry, is an error here;
//!   Vale accepts it, leaves the rule's own scope in place, and divides by every entry.

use std::sync::LazyLock;

use regex::Regex;

use super::RuleError;
use super::decode::Decoder;

/// The grade levels Vale's `readability` rules name, in the order Vale adds them.
pub const GRADES: [&str; 5] = [
    "SMOG",
    "Gunning Fog",
    "Coleman-Liau",
    "Flesch-Kincaid",
    "Automated Readability",
];

/// The fields of a `readability` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Readability {
    pub metrics: Vec<String>,
    pub grade: f64,
}

/// A readability rule ready to run: which of [`GRADES`] it adds, what it divides by.
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    used: [bool; 5],
    divisor: f64,
    grade: f64,
}

impl Readability {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            metrics: d.strings("metrics")?,
            grade: d.float("grade")?,
        })
    }

    pub(crate) fn compile(&self, file: &str) -> Result<Compiled, RuleError> {
        let bad = |what: String| RuleError::Field {
            file: file.to_owned(),
            key: "metrics".to_owned(),
            expected: format!("one or more of {} ({what})", GRADES.join(", ")),
        };
        if self.metrics.is_empty() {
            return Err(bad("none given".to_owned()));
        }
        if let Some(unknown) = self.metrics.iter().find(|m| !GRADES.contains(&m.as_str())) {
            return Err(bad(format!("'{unknown}' is not one of them")));
        }
        Ok(Compiled {
            used: GRADES.map(|g| self.metrics.iter().any(|m| m == g)),
            divisor: self.metrics.len() as f64,
            grade: self.grade,
        })
    }
}

impl Compiled {
    /// The mean grade of the document when it is over the rule's `grade` (Vale's `Run`): each
    /// named grade once, divided by the number of entries. No words give NaN: no alert.
    pub(crate) fn over(&self, stats: &TextStats) -> Option<f64> {
        let grades = [
            stats.smog(),
            stats.gunning_fog(),
            stats.coleman_liau(),
            stats.flesch_kincaid(),
            stats.automated_readability(),
        ];
        let mut grade = 0.0;
        for (used, g) in self.used.iter().zip(grades) {
            if *used {
                grade += g;
            }
        }
        grade /= self.divisor;
        (grade > self.grade).then_some(grade)
    }
}

/// twine's counts of a text (`summarize.Document`), as floats the way twine keeps them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TextStats {
    pub characters: f64,
    pub complex_words: f64,
    /// The pieces of the text between `\n\n`s (one more than Vale's `paragraphs`).
    pub paragraphs: f64,
    pub polysyllabic_words: f64,
    pub sentences: f64,
    pub syllables: f64,
    pub words: f64,
    pub long_words: f64,
}

impl TextStats {
    /// Counts `text` as twine's `NewDocument` does.
    pub fn of(text: &str) -> Self {
        let mut s = Self::default();
        for paragraph in text.split("\n\n") {
            for sentence in sentences(paragraph) {
                s.sentences += 1.0;
                for word in WORD.find_iter(sentence) {
                    s.add_word(word.as_str());
                }
            }
            s.paragraphs += 1.0;
        }
        s
    }

    fn add_word(&mut self, word: &str) {
        // The word pattern leaves only letters, digits, `'` and (in `U.S.`) periods.
        self.characters += word.chars().filter(|c| !matches!(c, '\'' | '.')).count() as f64;
        if word.len() > 6 {
            self.long_words += 1.0;
        }
        let n = syllables(word);
        self.syllables += n as f64;
        if n > 2 {
            self.polysyllabic_words += 1.0;
        }
        let suffixed = ["es", "ed", "ing"].iter().any(|s| word.ends_with(s));
        if n.saturating_sub(usize::from(suffixed)) > 2 {
            self.complex_words += 1.0;
        }
        self.words += 1.0;
    }

    // The grades, with twine's formulas and order of operations.

    fn flesch_kincaid(&self) -> f64 {
        let x = 0.39 * self.words / self.sentences;
        let y = 11.8 * self.syllables / self.words;
        x + y - 15.59
    }

    fn gunning_fog(&self) -> f64 {
        let x = self.words / self.sentences;
        let y = self.complex_words / self.words;
        0.4 * (x + 100.0 * y)
    }

    fn smog(&self) -> f64 {
        1.0430 * (self.polysyllabic_words * 30.0 / self.sentences).sqrt() + 3.1291
    }

    fn automated_readability(&self) -> f64 {
        let x = 4.71 * (self.characters / self.words);
        let y = 0.5 * (self.words / self.sentences);
        x + y - 21.43
    }

    fn coleman_liau(&self) -> f64 {
        let x = 0.0588 * (self.characters / self.words) * 100.0;
        let y = 0.296 * (self.sentences / self.words) * 100.0;
        x - y - 15.8
    }
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("{pattern}: {e}"))
}

static WORD: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:[A-Z]\.){2,}|[\p{N}\p{L}']+"));

// ---- sentences: Punkt as twine configures it ----

/// The English model's abbreviations, with the four twine adds (`gov`, `mt`, `no`, `sgt`).
/// Sorted, for binary search.
const ABBREVIATIONS: [&str; 160] = [
    ". . ", "a.a", "a.c", "a.d", "a.g", "a.h", "a.m", "a.m.e", "a.s", "a.t", "adm", "ala", "ariz",
    "aug", "ave", "b.f", "b.v", "bros", "c", "c.i.t", "c.o.m.b", "c.v", "calif", "chg", "cie",
    "co", "col", "colo", "conn", "corp", "cos", "ct", "d", "d.c", "d.h", "d.w", "dec", "dr", "e",
    "e.f", "e.h", "e.l", "e.m", "f", "f.g", "f.j", "feb", "fla", "fri", "ft", "g", "g.d", "g.f",
    "g.k", "ga", "gen", "gov", "h", "h.c", "h.f", "h.m", "i.m.s", "ill", "inc", "j.b", "j.c",
    "j.j", "j.k", "j.p", "j.r", "jan", "jr", "k", "kan", "ky", "l", "l.a", "l.f", "l.p", "lt",
    "ltd", "m", "m.b.a", "m.d.c", "m.j", "maj", "messrs", "mg", "mich", "minn", "mr", "mrs", "ms",
    "mt", "n", "n.c", "n.d", "n.h", "n.j", "n.m", "n.v", "n.y", "nev", "no", "nov", "oct", "ok",
    "okla", "ore", "p", "p.a.m", "p.m", "pa", "ph.d", "prof", "r", "r.a", "r.h", "r.i", "r.j",
    "r.k", "r.t", "rep", "reps", "s", "s.a", "s.a.y", "s.c", "s.g", "s.p.a", "s.s", "sen", "sep",
    "sept", "sgt", "sr", "st", "sw", "t", "t.j", "tenn", "tues", "u.k", "u.n", "u.s", "u.s.a",
    "u.s.s.r", "v", "va", "vs", "vt", "w", "w.c", "w.r", "w.va", "w.w", "wash", "wed", "wis", "yr",
];

/// The English model's collocations (`type,next type`), sorted.
const COLLOCATIONS: [&str; 37] = [
    "##number##,abreast",
    "##number##,aes",
    "##number##,business",
    "##number##,cbot",
    "##number##,colgate",
    "##number##,commodities",
    "##number##,cooper",
    "##number##,corrections",
    "##number##,credit",
    "##number##,dividend",
    "##number##,financing",
    "##number##,genentech",
    "##number##,henley",
    "##number##,insider",
    "##number##,international",
    "##number##,leisure",
    "##number##,letters",
    "##number##,notable",
    "##number##,pay-fone",
    "##number##,pegasus",
    "##number##,pepper",
    "##number##,review",
    "##number##,rj",
    "##number##,wedgestone",
    "##number##,who",
    "##number##,zimmer",
    "b,edelman",
    "b,levine",
    "b,smith",
    "b,stewart",
    "b,wigton",
    "i,magnin",
    "i,toussie",
    "j,aron",
    "j,fialka",
    "j,walter",
    "o,ludcke",
];

/// The English model's frequent sentence starters, sorted.
const STARTERS: [&str; 39] = [
    "according",
    "although",
    "among",
    "both",
    "but",
    "despite",
    "even",
    "he",
    "however",
    "i",
    "if",
    "in",
    "indeed",
    "instead",
    "it",
    "many",
    "meanwhile",
    "moreover",
    "most",
    "nevertheless",
    "nonetheless",
    "nor",
    "sales",
    "separately",
    "similarly",
    "since",
    "so",
    "some",
    "the",
    "there",
    "these",
    "they",
    "this",
    "though",
    "thus",
    "under",
    "when",
    "while",
    "yet",
];

static NUMERIC: LazyLock<Regex> = LazyLock::new(|| regex(r"-?[.,]?[0-9][0-9,.\-]*\.?$"));
static ABBREVIATED: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:[0-9A-Za-z_]\.)+[0-9A-Za-z_]*\."));
static ELLIPSIS_LIKE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:\.[\t\n\x0C\r ]?){2,}\."));

fn is_abbreviation(s: &str) -> bool {
    ABBREVIATIONS.binary_search(&s).is_ok()
}

fn is_starter(s: &str) -> bool {
    STARTERS.binary_search(&s).is_ok()
}

/// One word of Punkt's, with what the annotations decide about it.
struct Token<'a> {
    tok: &'a str,
    /// The byte offset just after it in the paragraph.
    end: usize,
    sent_break: bool,
    abbr: bool,
}

impl Token<'_> {
    /// Punkt's `Type`: lower-cased, a trailing number as `##number##`, commas dropped.
    fn kind(&self) -> String {
        let typ = NUMERIC
            .replace_all(&self.tok.to_lowercase(), "##number##")
            .into_owned();
        if typ.len() == 1 {
            typ
        } else {
            typ.replace(',', "")
        }
    }

    fn kind_no_period(&self) -> String {
        let mut typ = self.kind();
        if typ.len() > 1 && typ.ends_with('.') {
            typ.pop();
        }
        typ
    }

    fn kind_no_sent_period(&self) -> String {
        if self.sent_break {
            self.kind_no_period()
        } else {
            self.kind()
        }
    }

    fn first_upper(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_uppercase)
    }

    fn first_lower(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_lowercase)
    }

    fn period_final(&self) -> bool {
        self.tok.ends_with('.') || self.tok.ends_with('。')
    }

    fn initial(&self) -> bool {
        let b = self.tok.as_bytes();
        b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b'.'
    }

    /// twine's `HasSentEndChars`.
    fn sent_end_chars(&self) -> bool {
        const ENDERS: [&str; 16] = [
            ".\"", ".)", ".’", ".”", "?", "?\"", "?'", "?)", "?’", "?”", "!", "!\"", "!'", "!)",
            "!’", "!”",
        ];
        const PARENS: [&str; 7] = [".[", ".(", ".\"", "?[", "?(", "![", "!("];
        (ENDERS.iter().any(|e| self.tok.ends_with(e)) && !self.tok.contains("Yahoo!"))
            || PARENS.iter().any(|p| self.tok.contains(p))
    }

    /// Punkt's orthographic heuristic with no orthographic data: 0 (not a sentence start)
    /// for punctuation or a lower-case word, -1 (unknown) otherwise.
    fn orthographic(&self) -> i8 {
        let punct = self.tok.chars().count() == 1 && ";:,.!?；：，。！？".contains(self.tok);
        if punct || self.first_lower() { 0 } else { -1 }
    }
}

/// The sentences Punkt finds in one paragraph, trimmed (twine's `Segment`).
fn sentences(text: &str) -> Vec<&str> {
    let mut tokens = words(text);
    for t in &mut tokens {
        type_annotation(t);
    }
    for i in 1..tokens.len() {
        if let [one, two] = &mut tokens[i - 1..=i] {
            token_annotation(one, two);
        }
    }
    for i in 1..tokens.len() {
        if let [one, two] = &mut tokens[i - 1..=i] {
            multi_punct_annotation(one, two);
        }
    }
    // twine: a last token with a newline and a space is a mislabeled break.
    if let Some(last) = tokens.last_mut()
        && last.tok.contains('\n')
        && last.tok.contains(' ')
    {
        last.sent_break = false;
    }
    let mut out = Vec::new();
    let mut last = 0;
    for t in tokens.iter().filter(|t| t.sent_break) {
        out.push(text.get(last..t.end).unwrap_or_default().trim());
        last = t.end;
    }
    if last != text.len() {
        out.push(text.get(last..).unwrap_or_default().trim());
    }
    out
}

/// Punkt's word tokenizer in its period-context mode: the words with sentence punctuation
/// and the word after each; the whole text as one token when there is none.
fn words(text: &str) -> Vec<Token<'_>> {
    let len = text.len();
    let mut tokens = Vec::new();
    if len == 0 {
        return tokens;
    }
    let (mut last_space, mut next_word) = (0, false);
    for (i, c) in text.char_indices() {
        let cjk = matches!(c, '。' | '；' | '！' | '？');
        // Go's loop compares the byte index of a character with the last byte: a text that
        // ends in a multi-byte character never gets its last word.
        if !c.is_whitespace() && !cjk && i != len - 1 {
            continue;
        }
        let i = if cjk { i + c.len_utf8() } else { i };
        let cursor = if i == len - 1 { len } else { i };
        let word = text.get(last_space..cursor).unwrap_or_default().trim();
        if word.is_empty() {
            continue;
        }
        let punct = word.contains(['.', '!', '?', '。', '！', '？']);
        if !punct && !next_word {
            last_space = cursor;
            continue;
        }
        tokens.push(Token {
            tok: word,
            end: cursor,
            sent_break: false,
            abbr: false,
        });
        last_space = cursor;
        next_word = punct;
    }
    if tokens.is_empty() {
        tokens.push(Token {
            tok: text,
            end: len,
            sent_break: false,
            abbr: false,
        });
    }
    tokens
}

/// Punkt's first pass: `?` and `!` endings break, a known abbreviation does not, any other
/// final period does.
fn type_annotation(t: &mut Token<'_>) {
    if t.sent_end_chars() {
        t.sent_break = true;
    } else if t.period_final() && !t.tok.ends_with("..") {
        // Go cuts the token's bytes at its character count less one.
        let cut = t.tok.chars().count().saturating_sub(1);
        let bytes = t.tok.as_bytes().get(..cut).unwrap_or_default();
        let no_period = String::from_utf8_lossy(bytes).to_lowercase();
        let last = no_period.rsplit('-').next().unwrap_or_default();
        if is_abbreviation(&no_period) || is_abbreviation(last) {
            t.abbr = true;
        } else {
            t.sent_break = true;
        }
    }
}

/// Punkt's token-based pass (collocations, sentence starters, initials and ordinals).
fn token_annotation(one: &mut Token<'_>, two: &mut Token<'_>) {
    if !one.period_final() {
        return;
    }
    let typ = one.kind_no_period();
    let next = two.kind_no_sent_period();
    let initial = one.initial();
    if COLLOCATIONS
        .binary_search(&format!("{typ},{next}").as_str())
        .is_ok()
    {
        one.sent_break = false;
        one.abbr = true;
        return;
    }
    if (one.abbr || one.tok.ends_with("..")) && !initial && two.first_upper() && is_starter(&next) {
        one.sent_break = true;
        return;
    }
    if one.tok == "." && two.tok == "." {
        one.sent_break = false;
        two.sent_break = false;
        return;
    }
    if initial || typ == "##number##" {
        let ortho = two.orthographic();
        // With no orthographic data every word is unseen in lower case, so an initial
        // before a capitalized word is always taken as an abbreviation.
        if ortho == 0 || (initial && two.first_upper()) {
            one.sent_break = false;
            one.abbr = true;
        }
    }
}

/// twine's extra pass (`multiPunctWordAnnotation`): ellipses, quotes and parentheses before
/// a lower-case word, and abbreviations such as `U.S.`.
fn multi_punct_annotation(one: &mut Token<'_>, two: &mut Token<'_>) {
    if one.tok.ends_with('.') && two.tok == "." {
        one.sent_break = false;
        two.sent_break = false;
        return;
    }
    let non_break = one.tok.ends_with('.') && !one.sent_break;
    let ellipsis = ELLIPSIS_LIKE.is_match(one.tok);
    let internal = one.sent_break && one.tok.ends_with([')', '’', '”', '"', '\'']);
    let mut next = None;
    if non_break || ellipsis || internal {
        let typ = two.kind_no_sent_period();
        let starter = is_starter(&typ);
        next = Some(typ);
        if ellipsis && (two.first_upper() || starter) {
            one.sent_break = true;
            return;
        }
        if internal && two.first_lower() && !starter {
            one.sent_break = false;
            return;
        }
        // Vale also breaks a non-breaking period before a capitalized word seen in lower
        // case; with no orthographic data no word has been.
    }
    if !ABBREVIATED.is_match(one.tok) || one.initial() {
        return;
    }
    one.abbr = true;
    one.sent_break = false;
    let next = next.unwrap_or_else(|| two.kind_no_sent_period());
    if two.first_upper() && is_starter(&next) {
        one.sent_break = true;
    }
}

// ---- syllables: twine's counter ----

/// The syllables of one word, as twine counts them.
pub fn syllables(word: &str) -> usize {
    let length = word.chars().count();
    if length < 1 {
        return 0;
    } else if length < 3 {
        return 1;
    }
    let word = word.to_lowercase();
    if let Ok(i) = CORNER_CASES.binary_search_by(|(w, _)| w.cmp(&word.as_str())) {
        return CORNER_CASES[i].1;
    }
    let (text, prefix) = clear(&word, &PREFIXES, |w, a| w.strip_prefix(a));
    let (text, suffix) = clear(text, &SUFFIXES, |w, a| w.strip_suffix(a));
    let count = |re: &Regex| re.find_iter(text).count() as isize;
    let mut n = (prefix + suffix) as isize + count(&SYLLABLE[0]);
    n -= count(&SYLLABLE[1]) + count(&SYLLABLE[2]);
    n += SYLLABLE[3..].iter().map(count).sum::<isize>();
    usize::try_from(n).ok().filter(|n| *n >= 1).unwrap_or(1)
}

/// twine's `clearPart`: the first affix of the first group that has one is cut; the count it
/// adds is the group's distance from the end.
fn clear<'a>(
    word: &'a str,
    groups: &[&[&str]],
    strip: impl Fn(&'a str, &str) -> Option<&'a str>,
) -> (&'a str, usize) {
    for (i, group) in groups.iter().enumerate() {
        if let Some(rest) = group.iter().find_map(|a| strip(word, a)) {
            return (rest, groups.len() - i);
        }
    }
    (word, 0)
}

const PREFIXES: [&[&str]; 2] = [
    &[
        "above", "anti", "ante", "counter", "hyper", "afore", "agri", "infra", "intra", "inter",
        "over", "semi", "ultra", "under", "extra", "dia", "micro", "mega", "kilo", "pico", "nano",
        "macro",
    ],
    &[
        "un", "fore", "ware", "none", "non", "out", "post", "sub", "pre", "pro", "dis", "side",
    ],
];

const SUFFIXES: [&[&str]; 3] = [
    &["ology", "ologist", "onomy", "onomist"],
    &["fully", "berry", "woman", "women"],
    &[
        "ly", "less", "some", "ful", "er", "ers", "ness", "cian", "cians", "ment", "ments", "ette",
        "ettes", "ville", "villes", "ships", "ship", "side", "sides", "port", "ports", "shire",
        "shires", "tion", "tioned",
    ],
];

/// twine's exceptions, sorted.
const CORNER_CASES: [(&str, usize); 51] = [
    ("abalone", 4),
    ("abare", 3),
    ("abbruzzese", 4),
    ("abed", 2),
    ("aborigine", 5),
    ("aborigines", 5),
    ("abruzzese", 4),
    ("acreage", 3),
    ("adame", 3),
    ("adieu", 2),
    ("adobe", 3),
    ("anemone", 4),
    ("apache", 3),
    ("aphrodite", 4),
    ("apostrophe", 4),
    ("ariadne", 4),
    ("cafe", 2),
    ("cafes", 2),
    ("calliope", 4),
    ("catastrophe", 4),
    ("chile", 2),
    ("chloe", 2),
    ("circe", 2),
    ("coyote", 3),
    ("daphne", 2),
    ("epitome", 4),
    ("eurydice", 4),
    ("euterpe", 3),
    ("facsimile", 4),
    ("forever", 3),
    ("gethsemane", 4),
    ("guacamole", 4),
    ("hermione", 4),
    ("hyperbole", 4),
    ("jesse", 2),
    ("jukebox", 2),
    ("karate", 3),
    ("machete", 3),
    ("maybe", 2),
    ("penelope", 4),
    ("people", 2),
    ("persephone", 4),
    ("phoebe", 2),
    ("recipe", 3),
    ("sesame", 3),
    ("shoreline", 2),
    ("simile", 3),
    ("syncope", 3),
    ("tamale", 3),
    ("yosemite", 4),
    ("zoe", 2),
];

/// twine's patterns: vowel groups (added), two monosyllabic patterns (subtracted) and four
/// double-syllabic ones (added).
static SYLLABLE: LazyLock<[Regex; 7]> = LazyLock::new(|| {
    let mono_ed = "b|c|ch|dg|f|g|gh|gn|k|l|lch|ll|lv|m|mm|n|nc|ng|nch|nn|p|r|rc|rn|rs|rv|s|sc|sk|\
                   sl|squ|ss|th|v|y|z";
    let mono_es = "b|ch|d|f|gh|gn|k|l|lch|ll|lv|m|mm|n|nch|nn|p|r|rn|rs|rv|s|sc|sk|sl|squ|ss|st|\
                   t|th|v|y";
    let mono_e = "b|c|ch|d|dg|f|g|gh|gn|k|l|ll|lv|m|mm|n|nc|ng|nn|p|r|rc|rn|rs|rv|s|sc|sk|sl|\
                  squ|ss|st|t|th|v|y|z";
    [
        regex("[aeiouy]+"),
        regex(&format!(
            "cia(l|$)|tia|cius|cious|[^aeiou]giu|[aeiouy][^aeiouy]ion|iou|sia$|eous$|[oa]gue$|\
             .[^aeiuoycgltdb]{{2,}}ed$|.ely$|^jua|uai|eau|^busi$|([aeiouy]({mono_ed})ed$)|\
             ([aeiouy]({mono_es})es$)"
        )),
        regex(&format!("[aeiouy]({mono_e})e$")),
        regex(
            "(?:[^aeiouy]ie(r|st|t)|[aeiouym]bl|eo|ism|asm|thm|dnt|uity|dea|gean|oa|ua|eings?|\
             [aeiouy]sh?e[rsd])$",
        ),
        regex("[^gq]ua[^auieo]|[aeiou]{3}|^(ia|mc|coa[dglx].)"),
        regex("[^aeiou]y[ae]|[^l]lien|riet|dien|iu|io|ii|uen|real|iell|eo[^aeiou]|[aeiou]y[aeiou]"),
        regex("[^s]ia"),
    ]
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sorted_for_binary_search() {
        assert!(ABBREVIATIONS.is_sorted());
        assert!(COLLOCATIONS.is_sorted());
        assert!(STARTERS.is_sorted());
        assert!(CORNER_CASES.is_sorted_by_key(|(w, _)| *w));
    }

    #[test]
    fn syllables_are_twines() {
        let cases = [
            ("", 0),
            ("a", 1),
            ("on", 1),
            ("the", 1),
            ("cat", 1),
            ("people", 2),
            ("Maybe", 2),
            ("readability", 5),
            ("beautiful", 3),
            ("syllable", 3),
            ("international", 5),
            ("under", 2),
            ("developed", 3),
            ("consultant", 3),
            ("newspapers", 3),
            ("communicators", 5),
            ("equivalent", 4),
            ("ology", 3),
            ("shoreline", 2),
            ("created", 2),
            ("table", 2),
            ("1940s", 1),
            ("it's", 1),
        ];
        for (word, n) in cases {
            assert_eq!(syllables(word), n, "{word}");
        }
    }

    #[test]
    fn punkt_splits_at_sentence_ends_and_keeps_abbreviations() {
        assert_eq!(
            sentences("Hello there. How are you? Fine!"),
            ["Hello there.", "How are you?", "Fine!"]
        );
        // `dr` is a known abbreviation; `e.g.` looks like one.
        assert_eq!(
            sentences("Ask Dr. Smith now. Use e.g. tools here."),
            ["Ask Dr. Smith now.", "Use e.g. tools here."]
        );
        // A sentence starter after an abbreviation breaks.
        assert_eq!(
            sentences("He works at Acme Inc. The rest is history."),
            ["He works at Acme Inc.", "The rest is history."]
        );
        // A number before a lower-case word is not an end; an initial is not one either.
        assert_eq!(
            sentences("Chapter 3. and on. By J. Smith."),
            ["Chapter 3. and on.", "By J. Smith."]
        );
        // Quotes and parentheses end sentences; an ellipsis before a lower-case word does not.
        assert_eq!(
            sentences("He said \"stop.\" Then left... and came back."),
            ["He said \"stop.\"", "Then left... and came back."]
        );
        assert_eq!(sentences("no punctuation here"), ["no punctuation here"]);
        assert_eq!(sentences(" \n "), [""]);
        assert!(sentences("").is_empty());
    }

    #[test]
    fn counts_of_a_small_text_by_hand() {
        // Paragraphs: 2 pieces plus the empty one after the last `\n\n`.
        let s = TextStats::of("The cat sat. It was happy!\n\nReadability matters.\n\n");
        assert_eq!(s.paragraphs, 3.0);
        assert_eq!(s.sentences, 3.0);
        assert_eq!(s.words, 8.0);
        // the 1, cat 1, sat 1, it 1, was 1, happy 2, readability 5, matters 2.
        assert_eq!(s.syllables, 14.0);
        assert_eq!(s.polysyllabic_words, 1.0);
        assert_eq!(s.complex_words, 1.0);
        // Readability, matters. (7 bytes or more.)
        assert_eq!(s.long_words, 2.0);
        assert_eq!(s.characters, 3.0 + 3.0 + 3.0 + 2.0 + 3.0 + 5.0 + 11.0 + 7.0);
    }

    #[test]
    fn no_words_no_grade() {
        let rule = Readability {
            metrics: vec!["Flesch-Kincaid".into(), "SMOG".into()],
            grade: -100.0,
        };
        let c = rule.compile("f").unwrap();
        assert_eq!(c.over(&TextStats::of("")), None);
        assert_eq!(c.over(&TextStats::of("...\n\n")), None);
        assert!(c.over(&TextStats::of("Words here.")).is_some());
    }

    #[test]
    fn unknown_or_no_metrics_are_errors_naming_the_file() {
        for metrics in [vec!["LIX".to_owned()], vec![]] {
            let e = Readability {
                metrics,
                grade: 8.0,
            }
            .compile("S/R.yml")
            .unwrap_err();
            assert!(
                matches!(&e, RuleError::Field { file, key, .. } if file == "S/R.yml" && key == "metrics"),
                "{e:?}"
            );
        }
    }
}
