//! Addresses in prose, which are not words: URLs, domains, e-mail addresses, @handles and file
//! paths. A term or a prohibited pattern matched inside one is not a finding.
//!
//! A forbidden `whitelist` inside `https://example.com/whitelist-guide`,
//! `legacy.whitelist.org`, `ops@whitelist.io`, `@whitelist`, `src/whitelist/config.yaml` or
//! `./whitelist.sh` names a place, not a thing the writer chose to call that: renaming it
//! would break the link. The same word in a sentence still is a finding, and so is
//! `whitelist/blacklist` (one slash between words is prose, as in `and/or`).
//!
//! [`Addresses::scan`] finds the address tokens of a block's prose in one pass. A token is a
//! run of text between whitespace and codes, without the punctuation around it (brackets,
//! quotes, emphasis marks, and a sentence's closing `.`, `,`, `:` or `?`: `Visit
//! example.com.` holds `example.com`). A character of a script written without spaces
//! (Han, kana, Thai, Lao, Tibetan, Myanmar, Khmer: the term matcher's `spaceless`) or CJK
//! punctuation (`、。「」（）：`, full- and half-width forms) ends a token too: in such text a
//! run between spaces is a whole sentence or paragraph, and one `Vue.js` in it would make it
//! all an address (`Vue.jsではホワイトリストを使います。` holds `Vue.js`, and its
//! `ホワイトリスト` is a word). The choice this makes: an address written with such
//! characters ends at the first of them, so a bare URL with a raw Japanese path in prose
//! (`https://ja.wikipedia.org/wiki/ホワイトリスト`) keeps its ASCII part and its Japanese words
//! are words (a link's target in Markdown, HTML or a code is never prose, and a
//! percent-encoded path is ASCII). Real text in those scripts puts punctuation or a space
//! after a bare URL (`https://docs.rs/regex。`), and writes names such as `Node.js` or
//! `getmonero.org` right against its words. It is an address when it holds:
//! - a URL: a scheme and `://` (`https://…`), `mailto:`, or a leading `www.`;
//! - an `@` before a word character: an e-mail address or a handle (`@whitelist`, `@org/pkg`);
//! - a path: a leading `/`, `./`, `../` or `~/`, or two or more `/` (`src/a/b`);
//! - a repository, `owner/name`, when a name holds an identifier's `-`, `_` or digit
//!   (`rust-lang/book`) or the next word is `repository` or `repo` (`the vuejs/core
//!   repository`);
//! - a dotted name: a `.` between two word characters (`legacy.whitelist.org`, `config.yaml`,
//!   `Node.js`, `v1.2`), or a leading `.` before one (`.gitignore`).
//!
//! A hit is hidden ([`Addresses::hides`]) when it lies inside one token, holds none of the
//! structural characters `.`, `/`, `@`, `:` itself, and the token has one outside it. So a term
//! that is the whole token, or spans its dots, still matches (`Node.js`, and `Node.js` in
//! `Node.js's`), and a prohibited `http://` pattern still fires. [`AddressFilter`] applies
//! this to the rules it concerns ([`reach`]): every `terms` rule, `voice.prohibited-pattern`,
//! and `hygiene.unbalanced-bracket` (`Rust_(language` in a URL); `hygiene.repeated-word` is
//! dropped when either of its words is hidden. The scan runs at most once a block, at its
//! first such hit, and allocates nothing for a block with no `.`, `/` or `@`.

use std::ops::Range;

use super::{Hit, Rule, Sink};
use crate::governance::matcher::spaceless;
use crate::text::CODE_MARK;

/// The characters that make a token an address, and that a hidden hit never holds.
const STRUCTURAL: [char; 4] = ['.', '/', '@', ':'];

/// The address tokens of one text, in order.
#[derive(Debug, Default, Clone)]
pub struct Addresses {
    spans: Vec<Range<usize>>,
}

impl Addresses {
    /// Finds the address tokens of `text`, in one pass; nothing is allocated when `text` has
    /// no `.`, `/` or `@`.
    pub fn scan(text: &str) -> Addresses {
        let mut spans = Vec::new();
        if memchr::memchr3(b'.', b'/', b'@', text.as_bytes()).is_none() {
            return Addresses { spans };
        }
        let mut start = None;
        for (i, c) in text.char_indices() {
            match (splits(c), start) {
                (true, Some(from)) => {
                    push_address(text, from..i, &mut spans);
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(from) = start {
            push_address(text, from..text.len(), &mut spans);
        }
        Addresses { spans }
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The address tokens, in order.
    pub fn spans(&self) -> &[Range<usize>] {
        &self.spans
    }

    /// Whether a hit at `range` of `text` (the text scanned) lies inside an address as a part
    /// of it: inside one token, with no structural character of its own, and the token has
    /// one outside it.
    pub fn hides(&self, text: &str, range: &Range<usize>) -> bool {
        let Some(token) = self
            .spans
            .partition_point(|s| s.start <= range.start)
            .checked_sub(1)
            .and_then(|i| self.spans.get(i))
        else {
            return false;
        };
        if range.end > token.end || range.is_empty() {
            return false;
        }
        let structural = |r: Range<usize>| text.get(r).is_some_and(|s| s.contains(STRUCTURAL));
        !structural(range.clone())
            && (structural(token.start..range.start) || structural(range.end..token.end))
    }
}

/// Whether `c` ends a token: whitespace, a code, a character of a script written without
/// spaces, or CJK punctuation.
fn splits(c: char) -> bool {
    c.is_whitespace() || c == CODE_MARK || (!c.is_ascii() && (spaceless(c) || cjk_punctuation(c)))
}

/// CJK symbols and punctuation (`、。「」〜`), vertical and compatibility forms (`︐︰`), and
/// full- and half-width forms (`（），：！？｡｢`): none is part of an address.
fn cjk_punctuation(c: char) -> bool {
    matches!(u32::from(c),
        0x3000..=0x303F        // CJK symbols and punctuation
        | 0xFE10..=0xFE1F      // vertical forms
        | 0xFE30..=0xFE4F      // CJK compatibility forms
        | 0xFF00..=0xFF65      // full-width forms, half-width CJK punctuation
    )
}

/// Pushes the span of the token at `chunk` of `text` (whitespace and codes around it) when it
/// is an address, without the punctuation around it.
fn push_address(text: &str, chunk: Range<usize>, spans: &mut Vec<Range<usize>>) {
    let Some(raw) = text.get(chunk.clone()) else {
        return;
    };
    if !raw.contains(['.', '/', '@']) {
        return;
    }
    let lead = |c: char| {
        matches!(
            c,
            '(' | '[' | '{' | '<' | '"' | '\'' | '*' | '_' | '\u{201C}' | '\u{2018}' | '\u{00AB}'
        )
    };
    let trail = |c: char| {
        matches!(
            c,
            ')' | ']'
                | '}'
                | '>'
                | '"'
                | '\''
                | '*'
                | '_'
                | '~'
                | ','
                | ';'
                | ':'
                | '.'
                | '!'
                | '?'
                | '\u{201D}'
                | '\u{2019}'
                | '\u{00BB}'
                | '\u{2026}'
        )
    };
    let token = raw.trim_start_matches(lead).trim_end_matches(trail);
    if token.is_empty() || !(is_address(token) || is_repository(token, &text[chunk.end..])) {
        return;
    }
    let start = chunk.start + (raw.len() - raw.trim_start_matches(lead).len());
    spans.push(start..start + token.len());
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a token (punctuation around it trimmed) is a URL, an e-mail address or handle, a
/// path or a dotted name.
fn is_address(token: &str) -> bool {
    let lower_starts = |prefix: &str| {
        token
            .get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    let url = token.find("://").is_some_and(|at| {
        at > 0
            && token[..at]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    }) || lower_starts("www.")
        || lower_starts("mailto:");
    let handle = token
        .match_indices('@')
        .any(|(at, _)| token[at + 1..].chars().next().is_some_and(is_word));
    let path = ["/", "./", "../", "~/"].iter().any(|p| {
        token
            .strip_prefix(p)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| is_word(c) || c == '.')
    }) || token.matches('/').nth(1).is_some();
    url || handle || path || is_dotted(token)
}

/// A repository as code hosts name one, `owner/name`: one slash between two names, when a name
/// holds an identifier's `-`, `_` or digit (`rust-lang/book`, `vuejs/core` is not enough) or
/// the next word says so (`the vuejs/core repository`). `and/or` and `whitelist/blacklist` stay
/// prose.
fn is_repository(token: &str, after: &str) -> bool {
    let Some((owner, name)) = token.split_once('/') else {
        return false;
    };
    let named =
        |part: &str| !part.is_empty() && part.chars().all(|c| is_word(c) || matches!(c, '-' | '.'));
    if !named(owner) || !named(name) || name.contains('/') {
        return false;
    }
    let identifier = |part: &str| {
        part.chars()
            .any(|c| c == '-' || c == '_' || c.is_ascii_digit())
    };
    let next = after
        .trim_start_matches(|c: char| !c.is_whitespace() && !c.is_alphanumeric())
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_ascii_lowercase();
    identifier(owner)
        || identifier(name)
        || matches!(
            next.as_str(),
            "repository" | "repositories" | "repo" | "repos"
        )
}

/// A `.` between two word characters, or a leading `.` before one.
fn is_dotted(token: &str) -> bool {
    let mut previous: Option<char> = None;
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '.' && previous.is_none_or(is_word) && chars.peek().copied().is_some_and(is_word) {
            return true;
        }
        previous = Some(c);
    }
    false
}

/// How addresses hide a rule's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Not at all.
    None,
    /// A hit inside an address ([`Addresses::hides`]).
    Whole,
    /// A hit whose first or last word is inside one (a word written twice: `com com` after
    /// `example.com`).
    Ends,
}

/// How addresses hide `rule`'s hits: every `terms` rule, `voice.prohibited-pattern` and
/// `hygiene.unbalanced-bracket` whole, `hygiene.repeated-word` by its words.
pub fn reach(rule: &Rule) -> Reach {
    match rule.id {
        "voice.prohibited-pattern" | "hygiene.unbalanced-bracket" => Reach::Whole,
        "hygiene.repeated-word" => Reach::Ends,
        _ if rule.analyzer() == "terms" => Reach::Whole,
        _ => Reach::None,
    }
}

/// Whether `hit` (in offsets of `text`) is hidden by the addresses of `text`, scanned into
/// `addresses` the first time a hit needs them.
pub fn hidden(text: &str, addresses: &mut Option<Addresses>, hit: &Hit) -> bool {
    let reach = reach(hit.rule);
    if reach == Reach::None {
        return false;
    }
    let addresses = addresses.get_or_insert_with(|| Addresses::scan(text));
    if addresses.is_empty() {
        return false;
    }
    let range = &hit.range;
    match reach {
        Reach::Whole => addresses.hides(text, range),
        Reach::Ends => {
            let Some(matched) = text.get(range.clone()) else {
                return false;
            };
            let first = matched.find(char::is_whitespace).unwrap_or(matched.len());
            let last = matched.rfind(char::is_whitespace).map_or(0, |at| {
                at + matched[at..].chars().next().map_or(1, char::len_utf8)
            });
            addresses.hides(text, &(range.start..range.start + first))
                || addresses.hides(text, &(range.start + last..range.end))
        }
        Reach::None => false,
    }
}

/// A [`Sink`] that drops the hits the addresses of `text` hide and passes the rest on.
pub struct AddressFilter<'t, S> {
    text: &'t str,
    addresses: Option<Addresses>,
    inner: S,
}

impl<'t, S: Sink> AddressFilter<'t, S> {
    pub fn new(text: &'t str, inner: S) -> Self {
        AddressFilter {
            text,
            addresses: None,
            inner,
        }
    }

    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S: Sink> Sink for AddressFilter<'_, S> {
    fn push(&mut self, hit: Hit) {
        if !hidden(self.text, &mut self.addresses, &hit) {
            self.inner.push(hit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<&str> {
        Addresses::scan(text)
            .spans()
            .iter()
            .map(|r| &text[r.clone()])
            .collect()
    }

    /// Whether the first `word` in `text` is hidden.
    fn hides(text: &str, word: &str) -> bool {
        let at = text
            .find(word)
            .unwrap_or_else(|| panic!("{word} in {text}"));
        Addresses::scan(text).hides(text, &(at..at + word.len()))
    }

    #[test]
    fn each_address_class_is_one_token_without_the_punctuation_around_it() {
        assert_eq!(
            tokens(
                "See (https://example.com/whitelist-guide), www.Whitelist.org, legacy.whitelist.org. \
                 Mail ops@whitelist.io or @whitelist: edit src/whitelist/config.yaml, ./whitelist.sh, \
                 ../up, ~/home, /etc/hosts and .gitignore; \"Node.js's\" v1.2.0 mailto:ops"
            ),
            [
                "https://example.com/whitelist-guide",
                "www.Whitelist.org",
                "legacy.whitelist.org",
                "ops@whitelist.io",
                "@whitelist",
                "src/whitelist/config.yaml",
                "./whitelist.sh",
                "../up",
                "~/home",
                "/etc/hosts",
                ".gitignore",
                "Node.js's",
                "v1.2.0",
            ]
        );
    }

    #[test]
    fn a_repository_is_an_address_and_a_pair_of_words_is_not() {
        assert_eq!(tokens("see the vuejs/core repository."), ["vuejs/core"]);
        assert_eq!(tokens("clone rust-lang/book now"), ["rust-lang/book"]);
        assert_eq!(tokens("in the facebook/react repo"), ["facebook/react"]);
        assert_eq!(tokens("run python3/pip here"), ["python3/pip"]);
        assert!(tokens("use whitelist/blacklist or and/or, the client/server model").is_empty());
        assert!(tokens("the read/write repository lock").len() == 1);
    }

    #[test]
    fn prose_with_slashes_dots_and_at_signs_is_not_an_address() {
        assert!(
            tokens("Use whitelist/blacklist and/or this. End. Then... @ a / b e-mail: x . y 3 . 4")
                .is_empty()
        );
        assert!(Addresses::scan("no structural characters here").is_empty());
    }

    #[test]
    fn an_address_in_text_written_without_spaces_ends_where_the_script_starts() {
        assert_eq!(tokens("Vue.jsではホワイトリストを使います。"), ["Vue.js"]);
        assert_eq!(
            tokens(
                "設定はconfig.yamlに書き、v3.2のホワイトリストはhttps://example.com/whitelistで見ます。"
            ),
            ["config.yaml", "v3.2", "https://example.com/whitelist"]
        );
        assert_eq!(
            tokens("详见https://docs.rs/regex。问getmonero.org了（@whitelist）"),
            ["https://docs.rs/regex", "getmonero.org", "@whitelist"]
        );
        assert_eq!(tokens("ใช้ไวท์ลิสต์กับv3.2ของระบบ"), ["v3.2"]);
        // A raw Japanese path ends the URL: its Japanese words are words.
        assert_eq!(
            tokens("詳しくはhttps://example.com/ホワイトリスト/を参照"),
            ["https://example.com/"]
        );
        // Spaced scripts are not cut: an accented path or domain is one address.
        assert_eq!(
            tokens("voir docs/café/guide.md et münchen.de/whitelist"),
            ["docs/café/guide.md", "münchen.de/whitelist"]
        );
        for (text, word) in [
            ("Vue.jsではホワイトリストを使います。", "ホワイトリスト"),
            ("Vue.jsのコンポーネントを使います。", "コンポーネント"),
            ("请在config.yaml里设置白名单。", "白名单"),
            ("ใช้ไวท์ลิสต์กับv3.2ของระบบ", "ไวท์ลิสต์"),
        ] {
            assert!(!hides(text, word), "{text}");
        }
        assert!(hides("見るhttps://example.com/whitelistで", "whitelist"));
    }

    #[test]
    fn a_hit_inside_an_address_is_hidden_and_in_a_sentence_it_is_not() {
        for text in [
            "https://example.com/whitelist-guide",
            "legacy.whitelist.org",
            "ops@whitelist.io",
            "ask @whitelist now",
            "src/whitelist/config.yaml",
            "./whitelist.sh",
            "Visit whitelist.org.",
        ] {
            assert!(hides(text, "whitelist"), "{text}");
        }
        for text in [
            "Add it to the whitelist.",
            "whitelist/blacklist",
            "the whitelist, or http://x.io",
            "(whitelist)",
        ] {
            assert!(!hides(text, "whitelist"), "{text}");
        }
    }

    #[test]
    fn a_term_that_is_the_address_or_spans_its_structure_still_matches() {
        assert!(!hides("Install Node.js today", "Node.js"));
        assert!(!hides("Node.js's runtime", "Node.js"));
        assert!(!hides("see http://example.com", "http://"));
        assert!(!hides("see http://example.com", "http:"));
        // A part without structure is hidden.
        assert!(hides("Node.js's runtime", "js"));
    }

    #[test]
    fn rules_are_hidden_by_their_reach() {
        use crate::check::analyzers::{hygiene, terms, voice};
        let text = "Visit example.com com or the (https://en.wikipedia.org/wiki/Rust_(lang page.";
        let mut addresses = None;
        let at = |s: &str| {
            let i = text.find(s).unwrap_or_default();
            i..i + s.len()
        };
        let hit = |rule: &'static Rule, range| rule.hit(range, "");
        assert!(hidden(
            text,
            &mut addresses,
            &hit(&hygiene::REPEATED_WORD, at("com com"))
        ));
        assert!(hidden(
            text,
            &mut addresses,
            &hit(&hygiene::UNBALANCED_BRACKET, at("(lang"))
        ));
        assert!(!hidden(
            text,
            &mut addresses,
            &hit(&hygiene::UNBALANCED_BRACKET, at("(https"))
        ));
        assert!(hidden(
            text,
            &mut addresses,
            &hit(&terms::FORBIDDEN, at("wikipedia"))
        ));
        assert!(!hidden(
            text,
            &mut addresses,
            &hit(&voice::PROHIBITED_PATTERN, at("wiki/"))
        ));
        assert!(hidden(
            text,
            &mut addresses,
            &hit(&voice::PROHIBITED_PATTERN, at("Rust"))
        ));
        assert!(!hidden(
            text,
            &mut addresses,
            &hit(&voice::SENTENCE_TOO_LONG, at("Rust"))
        ));
        assert!(!hidden(
            text,
            &mut addresses,
            &hit(&terms::FORBIDDEN, at("Visit"))
        ));
    }

    #[test]
    fn the_scan_is_linear_on_hostile_text() {
        for piece in ["a.", "/", "@a", "a/b/", ". ", "\u{FFFC}.", "あa.", "。/"] {
            let text = piece.repeat(300_000);
            let found = Addresses::scan(&text);
            let _ = found.hides(&text, &(1..2));
        }
    }
}
