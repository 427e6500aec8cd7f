//! `extends: capitalization`: an alert for a piece (usually a heading) not in the case the
//! rule asks for (Vale's `capitalization.go`, `variables.go`, and the title and sentence
//! converters of its `twine/strcase`).
//!
//! `match` is `$title` (with `style` AP, the default, or Chicago), `$sentence`, `$lower`,
//! `$upper` or a regex the piece must match. For `$title` and `$sentence` the piece is
//! converted, and its words compared with the converted words: a word counts when it equals
//! its converted form, when the exceptions match it, or (title case) when it is all capitals;
//! the piece passes when the counted share reaches `threshold` (default 0.8). In sentence
//! case a first word that is not capitalised fails at once. `exceptions` (and the accepted
//! vocabulary, with `vocab`) keep their own case: as in Vale, whose exception list is sorted
//! and marked case-sensitive in place before the converters see it, each is a regex tried
//! longest first, case-sensitive unless it starts with `(?i)`, and a word it matches anywhere
//! keeps its case; `indicators` are suffixes after which a
//! word may be capitalised (`:`); `prefix` is a regex whose match at the start is left as is.
//! The alert covers the whole piece; `%s` is the piece, then the expected text, which also
//! fills a `replace` action without parameters.
//!
//! One difference: Vale's AP style capitalises `to` before a verb (an infinitive), which it
//! tells with a part-of-speech tagger; this engine has none and keeps `to` lower case, as
//! AP does before a noun. As in Vale, a piece with no words at all fails (0 of 0 is no
//! share).

use regex::Regex;

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::Draft;
use super::{ActionName, Rule, RuleError, pattern};

/// What case a `capitalization` rule asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseMatch {
    Title,
    Sentence,
    Lower,
    Upper,
    /// A regex the text must match.
    Pattern(String),
}

/// The title-case style of `match: $title`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TitleStyle {
    Ap,
    Chicago,
}

/// The fields of a `capitalization` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Capitalization {
    pub case: CaseMatch,
    pub style: TitleStyle,
    pub exceptions: Vec<String>,
    pub indicators: Vec<String>,
    /// The share of words that must be right (0.8 when the file gives 0 or none).
    pub threshold: f64,
    pub vocab: bool,
    pub prefix: String,
}

const SMALL_WORDS: [&str; 23] = [
    "a", "an", "and", "as", "at", "but", "by", "en", "for", "if", "in", "nor", "of", "on", "or",
    "per", "the", "to", "vs", "vs.", "via", "v", "v.",
];
const PREPOSITIONS: [&str; 31] = [
    "with",
    "from",
    "into",
    "during",
    "including",
    "until",
    "against",
    "among",
    "throughout",
    "despite",
    "towards",
    "upon",
    "concerning",
    "about",
    "over",
    "through",
    "before",
    "between",
    "after",
    "since",
    "without",
    "under",
    "within",
    "along",
    "following",
    "across",
    "beyond",
    "around",
    "down",
    "near",
    "above",
];
const WORD: &str = r"[\p{N}\p{L}*]+[^\s]*";

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    case: CaseMatch,
    style: TitleStyle,
    threshold: f64,
    indicators: Vec<String>,
    /// The exceptions as Vale's `exceptRe`.
    except: Option<Pattern>,
    /// Words: the exceptions regex or a word.
    words: Pattern,
    /// The vocabulary (exceptions and accepted terms), each a regex.
    vocab: Vec<Pattern>,
    /// The sentence converter's tokens: a vocabulary term or a word, case-insensitive.
    sentence_words: Pattern,
    prefix: Option<Pattern>,
    pattern: Option<Pattern>,
    number_list: Regex,
    title_split: Regex,
}

impl Capitalization {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        let case = match d.string("match")?.as_str() {
            "$title" => CaseMatch::Title,
            "$sentence" => CaseMatch::Sentence,
            "$lower" => CaseMatch::Lower,
            "$upper" => CaseMatch::Upper,
            other => CaseMatch::Pattern(other.to_owned()),
        };
        let style = if d.string("style")? == "Chicago" {
            TitleStyle::Chicago
        } else {
            TitleStyle::Ap
        };
        let threshold = d.float("threshold")?;
        let threshold = if threshold == 0.0 { 0.8 } else { threshold };
        Ok(Self {
            case,
            style,
            exceptions: d.strings("exceptions")?,
            indicators: d.strings("indicators")?,
            threshold,
            vocab: d.bool("vocab", true)?,
            prefix: d.string("prefix")?,
        })
    }

    pub(crate) fn compile(&self, file: &str, accepted: &[String]) -> Result<Compiled, RuleError> {
        let except = pattern::exceptions(file, &self.exceptions, accepted, self.vocab)?;
        let words = match &except {
            Some(re) => format!("{}|{WORD}", re.as_str()),
            None => WORD.to_owned(),
        };
        // Vale sorts and marks its exceptions in place (`updateExceptions`), so the converters
        // see them longest first and case-sensitive unless they start with `(?i)`.
        let mut vocab_terms: Vec<String> = self.exceptions.clone();
        if self.vocab {
            vocab_terms.extend(accepted.iter().cloned());
        }
        vocab_terms.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let vocab_terms: Vec<String> = vocab_terms
            .into_iter()
            .map(|t| {
                if t.starts_with("(?i)") {
                    t
                } else {
                    format!("(?-i:{t})")
                }
            })
            .collect();
        let sentence_words = if vocab_terms.is_empty() {
            format!("(?i){WORD}")
        } else {
            format!(r"(?i)\b(?:{})\b|{WORD}", vocab_terms.join("|"))
        };
        let vocab = vocab_terms
            .iter()
            .map(|t| pattern::compile(file, t))
            .collect::<Result<Vec<_>, _>>()?;
        let optional = |p: &str| -> Result<Option<Pattern>, RuleError> {
            (!p.is_empty())
                .then(|| pattern::compile(file, p))
                .transpose()
        };
        Ok(Compiled {
            case: self.case.clone(),
            style: self.style,
            threshold: self.threshold,
            indicators: self.indicators.clone(),
            except,
            words: pattern::compile(file, &words)?,
            vocab,
            sentence_words: pattern::compile(file, &sentence_words)?,
            prefix: optional(&self.prefix)?,
            pattern: match &self.case {
                CaseMatch::Pattern(p) => Some(pattern::compile(file, p)?),
                _ => None,
            },
            number_list: pattern::compile_plain(file, r"\d+\.")?,
            title_split: pattern::compile_plain(file, r"[\p{N}\p{L}]+[^\s\-/]*")?,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str) -> Vec<Draft> {
        let (expected, ok) = self.check(text);
        if ok {
            return Vec::new();
        }
        let mut draft = Draft::at(rule, text, 0..text.len());
        if let Some(action) = draft.action.as_mut() {
            let converted = matches!(self.case, CaseMatch::Title | CaseMatch::Sentence);
            if action.name == ActionName::Replace && action.params.is_empty() && converted {
                action.params = vec![expected.clone()];
            }
        }
        draft.subs = vec![text.to_owned(), expected];
        vec![draft]
    }

    fn excepted(&self, s: &str) -> bool {
        pattern::excepted(self.except.as_ref(), s)
    }

    /// The expected text and whether `s` is in the rule's case.
    fn check(&self, s: &str) -> (String, bool) {
        match &self.case {
            CaseMatch::Lower => {
                let e = s.to_lowercase();
                let ok = s == e || self.excepted(s);
                (e, ok)
            }
            CaseMatch::Upper => {
                let e = s.to_uppercase();
                let ok = s == e || self.excepted(s);
                (e, ok)
            }
            CaseMatch::Pattern(p) => {
                let ok = self.pattern.as_ref().is_some_and(|re| re.is_match(s)) || self.excepted(s);
                (p.clone(), ok)
            }
            CaseMatch::Title => {
                let expected = self.title(s);
                let ok = self.share(s, &expected, |w| w == w.to_uppercase());
                (expected, ok == Some(true))
            }
            CaseMatch::Sentence => {
                let expected = self.sentence(s);
                let first_ok = |w: &str| w == go_title(&w.to_lowercase());
                let words: Vec<&str> = self.words.find_iter(s).map(|m| m.as_str()).collect();
                let expected_words: Vec<&str> = self
                    .words
                    .find_iter(&expected)
                    .map(|m| m.as_str())
                    .collect();
                if let (Some(w), Some(e)) = (words.first(), expected_words.first())
                    && w != e
                    && !self.excepted(w)
                    && !first_ok(w)
                {
                    return (expected, false);
                }
                let ok = self.share(s, &expected, |_| false);
                (expected, ok == Some(true))
            }
        }
    }

    /// Whether the share of `s`'s words that are right reaches the threshold; `None` with no
    /// words. A word is right when it is the expected word, excepted, or `also` holds.
    fn share(&self, s: &str, expected: &str, also: impl Fn(&str) -> bool) -> Option<bool> {
        let expected: Vec<&str> = self.words.find_iter(expected).map(|m| m.as_str()).collect();
        let (mut count, mut words) = (0.0f64, 0.0f64);
        for (i, m) in self.words.find_iter(s).enumerate() {
            let w = m.as_str();
            if expected.get(i).is_none_or(|e| *e == w) || self.excepted(w) || also(w) {
                count += 1.0;
            }
            words += 1.0;
        }
        (words > 0.0).then(|| count / words >= self.threshold)
    }

    /// `strcase`'s `inVocab` as Vale calls it: a word some term matches keeps its case.
    fn in_vocab(&self, word: &str) -> Option<String> {
        self.vocab
            .iter()
            .any(|re| re.is_match(word))
            .then(|| word.to_owned())
    }

    fn split_prefix<'a>(&self, s: &'a str) -> (&'a str, &'a str) {
        match self.prefix.as_ref().and_then(|re| re.find(s)) {
            Some(m) if m.start() == 0 => s.split_at(m.end()),
            _ => ("", s),
        }
    }

    /// `strcase`'s title converter.
    fn title(&self, s: &str) -> String {
        let (prefix, s) = self.split_prefix(s);
        let t = sanitize(s);
        let tb = t.as_bytes();
        let at = |i: isize| -> u8 {
            if i >= 0 && (i as usize) < tb.len() {
                tb[i as usize]
            } else {
                tb.first().copied().unwrap_or(0)
            }
        };
        let end = t.len() as isize;
        let mut idx: isize = 0;
        let converted = self
            .title_split
            .replace_all(s, |caps: &regex::Captures<'_>| {
                let m = caps.get(0).map_or("", |m| m.as_str());
                let sm = m.to_lowercase();
                let from = (idx.max(0) as usize).min(t.len());
                let pos = t
                    .get(from..)
                    .and_then(|rest| rest.find(m))
                    .map_or(-1, |p| p as isize)
                    + idx;
                let ext = m.len() as isize;
                idx = pos + ext;
                if let Some(found) = self.in_vocab(m) {
                    return found;
                }
                let bounding = pos == 0 || idx == end;
                let small = !bounding
                    && (SMALL_WORDS.contains(&sm.as_str())
                        || (self.style == TitleStyle::Chicago
                            && PREPOSITIONS.contains(&sm.as_str())));
                let prev = at(pos - 1);
                if small
                    && matches!(prev, b' ' | b'-' | b'/')
                    && at(pos - 2) != b':'
                    && at(pos - 2) != b'-'
                    && (at(pos + ext) != b'-' || prev == b'-')
                {
                    return sm;
                }
                to_title(m, false)
            });
        format!("{prefix}{converted}")
    }

    /// `strcase`'s sentence converter, with Vale's indicators.
    fn sentence(&self, s: &str) -> String {
        let (prefix, s) = self.split_prefix(s);
        let tokens: Vec<&str> = self
            .sentence_words
            .find_iter(s)
            .map(|m| m.as_str())
            .collect();
        let made: Vec<String> = tokens
            .iter()
            .enumerate()
            .map(|(i, token)| {
                if let Some(entry) = self.in_vocab(token) {
                    entry
                } else if i == 0 || self.indicator(tokens[i - 1], i - 1) {
                    to_title(token, true)
                } else {
                    token.to_lowercase()
                }
            })
            .collect();
        format!("{prefix}{}", made.join(" "))
    }

    /// Vale's `wasIndicator`: a word ending in an indicator, or a list number first.
    fn indicator(&self, word: &str, idx: usize) -> bool {
        self.indicators.iter().any(|i| word.ends_with(i.as_str()))
            || (idx == 0 && self.number_list.is_match(word))
    }
}

/// `strcase`'s sanitizer: curly quotes, dashes and the ellipsis as ASCII.
fn sanitize(s: &str) -> String {
    s.replace(['\u{201c}', '\u{201d}'], "\"")
        .replace(['\u{2018}', '\u{2019}'], "'")
        .replace(['\u{2013}', '\u{2014}'], "-")
        .replace('\u{2026}', "...")
}

/// `twine`'s `ToTitle`: the first character upper-cased, the rest lower-cased when `strict`.
fn to_title(m: &str, strict: bool) -> String {
    let mut chars = m.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let rest: String = chars.collect();
    let rest = if strict { rest.to_lowercase() } else { rest };
    first.to_uppercase().chain(rest.chars()).collect()
}

/// Go's `strings.Title`: every letter after a separator upper-cased.
fn go_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_sep = true;
    for c in s.chars() {
        if prev_sep {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_sep = if c.is_ascii() {
            !(c.is_ascii_alphanumeric() || c == '_')
        } else {
            c.is_whitespace()
        };
    }
    out
}
