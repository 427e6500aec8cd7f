//! Variants of a case-sensitive product name (`terms.case`): the spellings of a preferred or
//! admitted term with `case: sensitive` that differ from it only in case or in the joiners
//! between its parts, and the rules that say when such a spelling is reported.
//!
//! What "differs only in case or punctuation" covers, decided on real documentation (the
//! Rust book, the Tauri docs):
//! - **Case**, anywhere: `Javascript`, `javascript`, `JAVASCRIPT`, `Github`, `NPM`, `MacOS`.
//! - **Joiners between the term's parts**: a `.` or `-` between two letters or digits of the
//!   term may be dropped or swapped (`NodeJS`, `Node-JS`, `node.js` for `Node.js`; `WiFi`
//!   for `Wi-Fi`), and one may be put where the case changes inside a word (`Git-Hub`,
//!   `Java-Script`, `Mac-OS`). Parts are split at every `.`/`-` between letters or digits and
//!   at every lower-to-upper change (`Git|Hub`, `mac|OS`, `Node|js`).
//! - **Not spaces.** A space never appears or disappears: `Java Script`, `Git Hub` and
//!   `Mac OS` are not reported, because the same split reads as ordinary words far more
//!   often than as the product (`open SSL connections` for `OpenSSL`, `type script` for
//!   `TypeScript`, `open API keys` for `OpenAPI`). A term's own spaces match any whitespace
//!   run, as every term's do.
//! - **Nothing else**: other characters (`+`, `#`, a leading `.` as in `.NET`) must be as
//!   written; only their letters' case may differ (`c++` for `C++`).
//!
//! When a spelling found in the text is reported (the matcher has already found it as whole
//! words, and a term declared for the same words wins over it):
//! - Not when it is the term as written (whitespace runs aside).
//! - Not when it is part of a longer name: a `.` or `-` joins it to a letter or digit on
//!   either side (`rust-analyzer` for `Rust`, `github.io` for `GitHub`, `npm-run-all`,
//!   `macos-latest`), or a `.`, `@` or `#` stands right before it (`~/.cargo`, `@github`,
//!   `#typescript`). Such names are identifiers, packages, folders, handles and hosts,
//!   written as their owners write them, and `Javascript-based` is missed rather than
//!   `rust-analyzer` flagged.
//! - A one-word name (`Rust`, `Cargo`, `Vue`) written all in lower case is reported like any
//!   other variant: a project that declares the name case-sensitive writes it one way, and
//!   on real docs a lower-case `rust` or `cargo` in prose is the name miswritten (the whole
//!   Rust book has one that is not: `7878 is _rust_ typed on a telephone`, which a
//!   `kapi-disable-line` comment or an exception settles). A command belongs in code.
//! - Not, for a term whose letters are all lower case (`npm`), when it is capitalised at its
//!   first letter alone at the start of a sentence: at the start of the text (a block: a
//!   paragraph, heading, list item or table cell) or after `.`, `!`, `?`, `:` or `…`, with
//!   spaces, quotes, brackets, emphasis and codes between. `Npm` starts a sentence well;
//!   `NPM` there is still reported, and so is `MacOS` (a term that mixes cases is written
//!   as it is even first in a sentence, as `iPhone` is).
//! - Not when it is in capitals between two words in capitals (`HELLO FROM TAURI PLUGIN`,
//!   a heading set in capitals): that is how the text is set, not how the name is spelt.
//!
//! There are at most 81 spellings a term (three joiners in up to four places); a term with
//! more parts gets the uniform ones (no joiner, all `.`, all `-`) and its own.

use std::ops::Range;

use crate::text::CODE_MARK;

/// How a case-sensitive term is written, for telling its variants apart from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spelling {
    /// The term as written (trimmed).
    text: Box<str>,
    /// Every letter is lower case (`npm`): capitalised first in a sentence, it is no variant.
    lower: bool,
}

/// Joiners a spelling may have between two parts.
const JOINERS: [&str; 3] = ["", ".", "-"];

/// Places between parts that get every joiner; past this, only the uniform spellings.
const MAX_GAPS: usize = 4;

impl Spelling {
    pub(crate) fn new(text: &str) -> Self {
        Spelling {
            text: text.into(),
            lower: text.chars().any(char::is_alphabetic) && !text.chars().any(char::is_uppercase),
        }
    }

    /// Whether the spelling found at `range` of `text` is reported (the rules in the module
    /// docs). `sentence_starts` off, a capitalised lower-case term is a variant anywhere.
    pub(crate) fn reports(&self, text: &str, range: Range<usize>, sentence_starts: bool) -> bool {
        let Some(written) = text.get(range.clone()) else {
            return false;
        };
        if same_words(written, &self.text) || joined(text, range.clone()) {
            return false;
        }
        if capitals(written) && capitals_around(text, range.clone()) {
            return false;
        }
        !(sentence_starts
            && self.lower
            && capitalised(written, &self.text)
            && sentence_start(text, range.start))
    }
}

/// The spellings of `term` that differ from it only in the joiners between its parts (the
/// term itself among them); the matcher folds their case.
pub(crate) fn spellings(term: &str) -> Vec<String> {
    let chars: Vec<char> = term.chars().collect();
    let mut parts: Vec<String> = vec![String::new()];
    for (i, &c) in chars.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let between =
            previous.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric);
        if matches!(c, '.' | '-') && between {
            parts.push(String::new());
            continue;
        }
        if previous.is_some_and(char::is_lowercase) && c.is_uppercase() {
            parts.push(String::new());
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    let gaps = parts.len() - 1;
    let mut out = vec![term.to_owned()];
    let mut push = |joiners: &[&str]| {
        let mut spelling = String::with_capacity(term.len() + gaps);
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                spelling.push_str(joiners.get(i - 1).copied().unwrap_or(""));
            }
            spelling.push_str(part);
        }
        if !out.contains(&spelling) {
            out.push(spelling);
        }
    };
    if gaps <= MAX_GAPS {
        let combos = JOINERS.len().pow(u32::try_from(gaps).unwrap_or(0));
        for mut n in 0..combos {
            let mut joiners = Vec::with_capacity(gaps);
            for _ in 0..gaps {
                joiners.push(JOINERS[n % JOINERS.len()]);
                n /= JOINERS.len();
            }
            push(&joiners);
        }
    } else {
        for joiner in JOINERS {
            push(&vec![joiner; gaps]);
        }
    }
    out
}

/// Letters, every one upper case.
fn capitals(word: &str) -> bool {
    word.chars().any(char::is_alphabetic) && !word.chars().any(char::is_lowercase)
}

/// Longest word [`capitals_around`] reads on either side.
const NEIGHBOUR: usize = 64;

/// The words right before and after `range` (spaces between) are both in capitals, of two
/// letters or more: text set in capitals (`HELLO FROM TAURI PLUGIN`).
fn capitals_around(text: &str, range: Range<usize>) -> bool {
    let before = text.get(..range.start).unwrap_or_default();
    let after = text.get(range.end..).unwrap_or_default();
    let word_before: String = before
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric())
        .take(NEIGHBOUR)
        .collect();
    let word_after: String = after
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .take(NEIGHBOUR)
        .collect();
    let shouted =
        |word: &str| word.chars().filter(|c| c.is_alphabetic()).count() >= 2 && capitals(word);
    before.len() > before.trim_end().len()
        && after.len() > after.trim_start().len()
        && shouted(&word_before)
        && shouted(&word_after)
}

/// The same words, whitespace runs aside.
fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// `written` is `term` with its first letter upper case and nothing else changed.
fn capitalised(written: &str, term: &str) -> bool {
    let (mut w, mut t) = (written.chars(), term.chars());
    let (Some(first), Some(term_first)) = (w.next(), t.next()) else {
        return false;
    };
    let mut upper = term_first.to_uppercase();
    upper.next() == Some(first) && upper.next().is_none() && same_words(w.as_str(), t.as_str())
}

/// Part of a longer name: a `.` or `-` joins it to a letter or digit on either side, or a
/// `.`, `@` or `#` stands right before it (`.cargo`, `@github`, `#typescript`).
fn joined(text: &str, range: Range<usize>) -> bool {
    let mut before = text.get(..range.start).unwrap_or_default().chars().rev();
    let (b1, b2) = (before.next(), before.next());
    if matches!(b1, Some('.' | '@' | '#')) {
        return true;
    }
    let mut after = text.get(range.end..).unwrap_or_default().chars();
    let (a1, a2) = (after.next(), after.next());
    let joins = |joiner: Option<char>, beyond: Option<char>| {
        matches!(joiner, Some('.' | '-')) && beyond.is_some_and(char::is_alphanumeric)
    };
    joins(b1, b2) || joins(a1, a2)
}

/// Nothing but spaces, quotes, brackets, emphasis and codes stand between `at` and the start
/// of the text or a sentence end (`.`, `!`, `?`, `:`, `…`).
fn sentence_start(text: &str, at: usize) -> bool {
    for c in text.get(..at).unwrap_or_default().chars().rev() {
        if c.is_whitespace()
            || c == CODE_MARK
            || matches!(
                c,
                '"' | '\''
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '«'
                    | '»'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '*'
                    | '_'
                    | '¡'
                    | '¿'
            )
        {
            continue;
        }
        return matches!(c, '.' | '!' | '?' | ':' | '…');
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_vary_the_joiners_between_parts() {
        let cases: &[(&str, &[&str])] = &[
            ("npm", &["npm"]),
            ("GitHub", &["GitHub", "Git.Hub", "Git-Hub"]),
            ("Node.js", &["Node.js", "Nodejs", "Node-js"]),
            ("macOS", &["macOS", "mac.OS", "mac-OS"]),
            ("Wi-Fi", &["Wi-Fi", "WiFi", "Wi.Fi"]),
            (
                "GitHub Actions",
                &["GitHub Actions", "Git.Hub Actions", "Git-Hub Actions"],
            ),
            ("C++", &["C++"]),
            (".NET", &[".NET"]),
        ];
        for (term, want) in cases {
            let mut got = spellings(term);
            let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{term}");
        }
        // Two places: every joiner in each; past four, the uniform ones and the term's own.
        assert_eq!(spellings("JavaScript.Next").len(), 9);
        assert_eq!(spellings("JavaScriptNodeJsGitHub").len(), 3);
        assert_eq!(spellings("Java.ScriptNodeJsGitHub").len(), 4);
    }

    #[test]
    fn a_spelling_is_reported_unless_the_rules_say_otherwise() {
        let npm = Spelling::new("npm");
        let github = Spelling::new("GitHub");
        let rust = Spelling::new("Rust");
        let reports = |s: &Spelling, text: &str, word: &str| {
            let at = text.find(word).expect("word in text");
            s.reports(text, at..at + word.len(), true)
        };
        #[rustfmt::skip]
        let cases: &[(&Spelling, &str, &str, bool)] = &[
            (&github, "on GitHub today", "GitHub", false),
            (&github, "on Github today", "Github", true),
            (&github, "on github today", "github", true),
            (&github, "see rust-lang.github.io", "github", false),
            (&github, "the x-github tool", "github", false),
            (&github, "ping @github now", "github", false),
            (&github, "Github. Then", "Github", true),
            (&github, "(Github's) page", "Github", true),
            (&npm, "Npm installs it.", "Npm", false),
            (&npm, "It works. Npm installs it.", "Npm", false),
            (&npm, "Note: **Npm** installs it.", "Npm", false),
            (&npm, "\u{fffc}Npm\u{fffc} installs it.", "Npm", false),
            (&npm, "“Npm” is short", "Npm", false),
            (&npm, "Use Npm here", "Npm", true),
            (&npm, "NPM installs it.", "NPM", true),
            (&npm, "It works. NPM installs it.", "NPM", true),
            (&npm, "see npm-run-all", "npm", false),
            (&npm, "in ~/.npm today", "npm", false),
            (&npm, "join #NPM today", "NPM", false),
            (&rust, "Install rust with rustup", "rust", true),
            (&rust, "the rust-analyzer server", "rust", false),
            (&rust, "RUST is loud", "RUST", true),
            (&rust, "rUst is odd", "rUst", true),
            (&npm, "SAY HELLO FROM NPM TODAY", "NPM", false),
            (&npm, "the NPM CLI", "NPM", true),
            (&npm, "NPM CLI", "NPM", true),
        ];
        for (spelling, text, word, want) in cases {
            assert_eq!(reports(spelling, text, word), *want, "{text:?} {word}");
        }
        let mac = Spelling::new("macOS");
        assert!(
            reports(&mac, "MacOS is here.", "MacOS"),
            "a mixed-case term first in a sentence"
        );
        assert!(
            npm.reports("Npm", 0..3, false),
            "no sentence rule when asked"
        );
        let node = Spelling::new("Node.js");
        assert!(
            reports(&node, "on node.js today", "node.js"),
            "not one word of letters"
        );
        assert!(reports(
            &Spelling::new("JavaScript"),
            "use javascript",
            "javascript"
        ));
    }
}
