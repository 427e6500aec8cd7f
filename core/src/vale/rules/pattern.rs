//! The regular expressions and strings Vale builds for its rules: the token templates, the
//! exceptions, a match's `%s` message, and the small helpers (`IsPhrase`, `ToSentence`, …).
//!
//! Each function mirrors a Vale helper of the same purpose (`makeRegexp`, `updateExceptions`,
//! `matchToken`, `FormatMessage`, `ToSentence`, `CapFirst`, `IsCode`, `IsLetter`); the
//! regexes compile with the `regex` crate under a size limit, and a pattern it rejects
//! (lookaround, backreferences) is a [`RuleError::Regex`] naming the file and the pattern.
//! Vale compiles with `regexp2` in its multi-line mode, whose `\w`, `\b` and `\d` are
//! Unicode's, as the `regex` crate's are: every rule pattern here is multi-line too.

use regex::{Regex, RegexBuilder};

use super::RuleError;
use super::regexp::{Pattern, SIZE_LIMIT};

/// Compiles `pattern` for the rule read from `file`, multi-line as Vale's `CompileStd`
/// compiles every rule pattern (`^` and `$` match at each line), lookaround and backreferences
/// included ([`Pattern`]).
pub(crate) fn compile(file: &str, pattern: &str) -> Result<Pattern, RuleError> {
    Pattern::new(pattern).map_err(|message| RuleError::Regex {
        file: file.to_owned(),
        pattern: pattern.chars().take(400).collect(),
        message,
    })
}

/// Compiles a pattern kapi builds itself (no lookaround), multi-line, with the `regex` crate.
pub(crate) fn compile_plain(file: &str, pattern: &str) -> Result<Regex, RuleError> {
    RegexBuilder::new(pattern)
        .multi_line(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| RuleError::Regex {
            file: file.to_owned(),
            pattern: pattern.chars().take(400).collect(),
            message: e.to_string().lines().last().unwrap_or_default().to_owned(),
        })
}

/// Vale's `makeRegexp`: the word template (`(?m)\b(?:%s)\b`) when `word`, the non-word one
/// (`(?m)(?:%s)`) otherwise, `extra` before it (or after it with `append`), `(?i)` in front
/// with `ignorecase`; `%s` is `alternatives`.
pub(crate) fn template(
    alternatives: &str,
    ignorecase: bool,
    word: bool,
    extra: &str,
    append: bool,
) -> String {
    let body = if word {
        format!(r"(?m)\b(?:{alternatives})\b")
    } else {
        format!("(?m)(?:{alternatives})")
    };
    let mut regex = if append {
        body + extra
    } else {
        format!("{extra}{body}")
    };
    if ignorecase {
        regex.insert_str(0, "(?i)");
    }
    regex
}

/// Vale's `updateExceptions`: the rule's exceptions (and the accepted vocabulary, with
/// `vocab`), longest first, each case-sensitive unless it starts with `(?i)`, as one word
/// regex; `None` when there are none.
pub(crate) fn exceptions(
    file: &str,
    own: &[String],
    accepted: &[String],
    vocab: bool,
) -> Result<Option<Pattern>, RuleError> {
    let mut terms: Vec<&String> = own.iter().collect();
    if vocab {
        terms.extend(accepted);
    }
    if terms.is_empty() {
        return Ok(None);
    }
    terms.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let alternatives = terms
        .iter()
        .map(|t| {
            if t.starts_with("(?i)") {
                (*t).clone()
            } else {
                format!("(?-i:{t})")
            }
        })
        .collect::<Vec<_>>()
        .join("|");
    compile(file, &template(&alternatives, false, true, "", true)).map(Some)
}

/// Vale's `isMatch`: whether the exceptions regex matches anywhere in `s`.
pub(crate) fn excepted(re: Option<&Pattern>, s: &str) -> bool {
    re.is_some_and(|re| re.is_match(s))
}

/// Vale's `IsPhrase`: letters, digits, spaces and hyphens only (a token that is no regex).
pub(crate) fn is_phrase(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_alphabetic() || c.is_numeric() || c == ' ' || c == '-')
}

/// Vale's `matchToken`: whether `observed` is `expected`, read as an anchored regex unless
/// it is a phrase (or does not compile).
#[cfg(test)]
pub(crate) fn match_token(expected: &str, observed: &str) -> bool {
    TokenCache::default().matches(expected, observed)
}

/// The regexes of Vale's `matchToken`, each compiled once.
#[derive(Default)]
pub(crate) struct TokenCache {
    compiled: std::collections::HashMap<String, Option<Regex>>,
}

impl TokenCache {
    /// Vale's `matchToken`.
    pub(crate) fn matches(&mut self, expected: &str, observed: &str) -> bool {
        if is_phrase(expected) {
            return expected == observed;
        }
        let re = self.compiled.entry(expected.to_owned()).or_insert_with(|| {
            RegexBuilder::new(&format!("^(?:{expected})$"))
                .multi_line(true)
                .size_limit(SIZE_LIMIT)
                .build()
                .ok()
        });
        match re {
            Some(re) => re.is_match(observed),
            None => expected == observed,
        }
    }
}

/// Vale's `FormatMessage` and `WhitespaceToSpace`: each `%s` (or `%v`) takes the next of
/// `subs` (an empty string once they run out), `%%` is `%`; line breaks and runs of spaces
/// become one space.
pub(crate) fn format_message(msg: &str, subs: &[&str]) -> String {
    let mut out = String::with_capacity(msg.len() + 16);
    let mut next = subs.iter();
    let mut chars = msg.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('s' | 'v') => {
                chars.next();
                out.push_str(next.next().copied().unwrap_or_default());
            }
            Some('%') => {
                chars.next();
                out.push('%');
            }
            _ => out.push('%'),
        }
    }
    let mut collapsed = String::with_capacity(out.len());
    for c in out.chars() {
        let c = if c == '\n' { ' ' } else { c };
        if !(c == ' ' && collapsed.ends_with(' ')) {
            collapsed.push(c);
        }
    }
    collapsed
}

/// Vale's `ToSentence`: `'a'`, `'a' or 'b'`, `'a', 'b', or 'c'`.
pub(crate) fn to_sentence(words: &[String], conjunction: &str) -> String {
    match words {
        [one] => format!("'{one}'"),
        [a, b] => format!("'{a}' {conjunction} '{b}'"),
        _ => {
            let mut quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
            if let Some(last) = quoted.last_mut() {
                *last = format!("{conjunction} {last}");
            }
            quoted.join(", ")
        }
    }
}

/// Vale's `CapFirst`: the first character upper-cased.
pub(crate) fn cap_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Vale's `IsCode`: only `*` and `@` (what Vale writes over inline code).
pub(crate) fn is_code(s: &str) -> bool {
    s.chars().all(|c| c == '*' || c == '@')
}

/// Vale's `IsLetter`: letters only (true for the empty string).
pub(crate) fn is_letter(s: &str) -> bool {
    s.chars().all(char::is_alphabetic)
}

/// Vale's `convertCaptureGroups`: every capturing group made non-capturing, so a swap key's
/// own groups do not shift the groups that tell which key matched.
pub(crate) fn uncapture(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` first in a class is a literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '(' if !in_class && chars.peek() != Some(&'?') => out.push_str("(?:"),
            _ => out.push(c),
        }
    }
    out
}

/// Vale's `edit`, `remove`, `replace` and `convert` fixes of `matched` (what `%s` after the
/// match is filled with); `suggest` (spellings or a script) is not computed: the match.
pub(crate) fn fixes(action: &super::Action, matched: &str) -> Vec<String> {
    use super::ActionName;
    let p = &action.params;
    match action.name {
        ActionName::Replace => p.clone(),
        ActionName::Remove => vec![String::new()],
        ActionName::Suggest => vec![matched.to_owned()],
        ActionName::Convert => {
            if p.first().is_some_and(|s| s == "simple") {
                vec![simple_case(matched)]
            } else {
                vec![matched.to_owned()]
            }
        }
        ActionName::Edit => edit(p, matched).map_or_else(Vec::new, |s| vec![s.trim().to_owned()]),
    }
}

fn edit(p: &[String], matched: &str) -> Option<String> {
    let param = |i: usize| p.get(i).map(String::as_str);
    let set = |s: &str| -> Vec<char> { s.chars().collect() };
    match (param(0)?, p.len()) {
        ("regex", 3) => {
            let re = RegexBuilder::new(param(1)?)
                .size_limit(SIZE_LIMIT)
                .build()
                .ok()?;
            Some(re.replace_all(matched, param(2)?).into_owned())
        }
        ("trim_right", 2) => Some(matched.trim_end_matches(&set(param(1)?)[..]).to_owned()),
        ("trim_left", 2) => Some(matched.trim_start_matches(&set(param(1)?)[..]).to_owned()),
        ("trim", 2) => Some(matched.trim_matches(&set(param(1)?)[..]).to_owned()),
        ("truncate", 2) => {
            let sep = param(1)?;
            Some(if sep.is_empty() {
                matched.chars().next().map(String::from).unwrap_or_default()
            } else {
                matched.split(sep).next().unwrap_or_default().to_owned()
            })
        }
        ("split", 3) => {
            let index: usize = param(2)?.parse().ok()?;
            let sep = param(1)?;
            matched.split(sep).nth(index).map(str::to_owned)
        }
        ("regex" | "trim_right" | "trim_left" | "trim" | "truncate" | "split", _) => None,
        _ => Some(matched.to_owned()),
    }
}

/// `strcase.Simple`: words split at case changes and non-alphanumerics, lower-cased, spaced.
fn simple_case(s: &str) -> String {
    let mut out = String::new();
    let mut old = ' ';
    for (i, c) in s.chars().enumerate() {
        let alpha = c.is_alphanumeric();
        let boundary = i > 1 && old.is_lowercase() && c.is_uppercase();
        if boundary || !alpha || (c.is_whitespace() && c != ' ') {
            out.push(' ');
        }
        if alpha || c == ' ' {
            out.extend(c.to_lowercase());
        }
        old = c;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_vales() {
        assert_eq!(template("a|b", false, true, "", false), r"(?m)\b(?:a|b)\b");
        assert_eq!(template("a", true, false, "x", false), "(?i)x(?m)(?:a)");
        assert_eq!(template("a", false, true, "x", true), r"(?m)\b(?:a)\bx");
    }

    #[test]
    fn messages_fill_each_percent_s_in_turn() {
        assert_eq!(
            format_message("Use '%s' not '%s'.", &["a", "b"]),
            "Use 'a' not 'b'."
        );
        assert_eq!(format_message("'%s' x", &["a", "b"]), "'a' x");
        assert_eq!(format_message("%s and %s", &["a"]), "a and ");
        assert_eq!(format_message("100%% of\n  it", &[]), "100% of it");
    }

    #[test]
    fn sentences_and_tokens() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(to_sentence(&w(&["a"]), "or"), "'a'");
        assert_eq!(to_sentence(&w(&["a", "b"]), "or"), "'a' or 'b'");
        assert_eq!(to_sentence(&w(&["a", "b", "c"]), "or"), "'a', 'b', or 'c'");
        assert!(match_token("e-mail", "e-mail"));
        assert!(match_token("colou?r", "color"));
        assert!(!match_token("colou?r", "colors"));
        assert_eq!(uncapture(r"(a|b)\(c[(]d(?:e)"), r"(?:a|b)\(c[(]d(?:e)");
    }

    #[test]
    fn edits_follow_vales_fixers() {
        let a = |p: &[&str]| super::super::Action {
            name: super::super::ActionName::Edit,
            params: p.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(fixes(&a(&["truncate", " "]), "the the"), ["the"]);
        assert_eq!(fixes(&a(&["trim_right", "."]), "etc.."), ["etc"]);
        assert_eq!(fixes(&a(&["split", " ", "1"]), "a b"), ["b"]);
        assert_eq!(fixes(&a(&["regex", "(a)", "<$1>"]), "xa"), ["x<a>"]);
        assert!(fixes(&a(&["truncate"]), "x").is_empty());
        assert_eq!(simple_case("fooBar_baz"), "foo bar baz");
    }

    #[test]
    fn a_pattern_no_engine_takes_is_an_error_naming_file_and_pattern() {
        assert!(compile("S/R.yml", "(?<!a)b").is_ok(), "lookbehind");
        let e = compile("S/R.yml", "(?<!a+)b").unwrap_err();
        let RuleError::Regex { file, pattern, .. } = e else {
            panic!("{e:?}")
        };
        assert_eq!((file.as_str(), pattern.as_str()), ("S/R.yml", "(?<!a+)b"));
    }
}
