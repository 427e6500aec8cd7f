//! A rule's compiled regular expression: the `regex` crate's, linear in its input, whenever it
//! takes the pattern; else `fancy-regex`'s, for the lookaround and backreferences Vale's
//! `regexp2` engine has and `regex` lacks.
//!
//! `fancy-regex` hands every part of a pattern without those features to `regex` and
//! backtracks only around them, under a backtrack limit: a match that would pass it ends the
//! search (the text after it is not searched), so no pattern runs unbounded. A rule's patterns
//! come from the project's own style files, not from the text checked.

use std::ops::Range;

use regex::RegexBuilder;

/// The compiled size a rule's regex may take (a hostile token list is an error, not memory).
pub(crate) const SIZE_LIMIT: usize = 64 << 20;

/// How many backtracking steps one search may take (`fancy-regex`'s default is 1,000,000).
const BACKTRACK_LIMIT: usize = 1_000_000;

/// A compiled rule pattern.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    Plain(regex::Regex),
    Fancy(Box<fancy_regex::Regex>),
}

/// One match: its range in the searched text and the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found<'t> {
    text: &'t str,
    start: usize,
    end: usize,
}

impl<'t> Found<'t> {
    pub(crate) fn as_str(&self) -> &'t str {
        self.text.get(self.start..self.end).unwrap_or_default()
    }
    pub(crate) fn range(&self) -> Range<usize> {
        self.start..self.end
    }
    pub(crate) fn start(&self) -> usize {
        self.start
    }
    pub(crate) fn end(&self) -> usize {
        self.end
    }
}

/// The groups of one match (group 0 is the whole match).
#[derive(Debug, Clone)]
pub(crate) struct Groups<'t, 'p> {
    text: &'t str,
    groups: Vec<Option<Range<usize>>>,
    pattern: &'p Pattern,
}

impl<'t> Groups<'t, '_> {
    /// Every group in order, `None` for one that did not take part.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Option<Found<'t>>> + '_ {
        self.groups.iter().map(|g| self.found(g.as_ref()))
    }

    /// Group `i`.
    pub(crate) fn get(&self, i: usize) -> Option<Found<'t>> {
        self.found(self.groups.get(i)?.as_ref())
    }

    /// The group named `name`.
    pub(crate) fn name(&self, name: &str) -> Option<Found<'t>> {
        let i = self.pattern.group_index(name)?;
        self.get(i)
    }

    fn found(&self, range: Option<&Range<usize>>) -> Option<Found<'t>> {
        range.map(|r| Found {
            text: self.text,
            start: r.start,
            end: r.end,
        })
    }
}

impl Pattern {
    /// Compiles `pattern` multi-line (as Vale's `CompileStd`: `^` and `$` at each line):
    /// with `regex` when it can, else with `fancy-regex`; the error is `regex`'s when neither
    /// takes it and the pattern uses no feature only `fancy-regex` has.
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        let plain = RegexBuilder::new(pattern)
            .multi_line(true)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build();
        let error = match plain {
            Ok(re) => return Ok(Self::Plain(re)),
            Err(e) => e.to_string().lines().last().unwrap_or_default().to_owned(),
        };
        let fancy = fancy_regex::RegexBuilder::new(&format!("(?m){pattern}"))
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(SIZE_LIMIT)
            .delegate_dfa_size_limit(SIZE_LIMIT)
            .build();
        match fancy {
            Ok(re) => Ok(Self::Fancy(Box::new(re))),
            Err(fancy) if error.contains("look-around") || error.contains("backreference") => {
                Err(fancy.to_string())
            }
            Err(_) => Err(error),
        }
    }

    /// Whether it matches anywhere in `text` (a search past the backtrack limit: no).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Plain(re) => re.is_match(text),
            Self::Fancy(re) => re.is_match(text).unwrap_or(false),
        }
    }

    /// The first match in `text`.
    pub(crate) fn find<'a>(&'a self, text: &'a str) -> Option<Found<'a>> {
        self.find_iter(text).next()
    }

    /// Every match in `text`, left to right, not overlapping.
    pub(crate) fn find_iter<'a>(
        &'a self,
        text: &'a str,
    ) -> Box<dyn Iterator<Item = Found<'a>> + 'a> {
        let found = move |start, end| Found { text, start, end };
        match self {
            Self::Plain(re) => Box::new(re.find_iter(text).map(move |m| found(m.start(), m.end()))),
            Self::Fancy(re) => Box::new(
                re.find_iter(text)
                    .map_while(Result::ok)
                    .map(move |m| found(m.start(), m.end())),
            ),
        }
    }

    /// Every match in `text` with its groups.
    pub(crate) fn captures_iter<'t>(&self, text: &'t str) -> Vec<Groups<'t, '_>> {
        match self {
            Self::Plain(re) => re
                .captures_iter(text)
                .map(|caps| Groups {
                    text,
                    groups: caps.iter().map(|g| g.map(|m| m.range())).collect(),
                    pattern: self,
                })
                .collect(),
            Self::Fancy(re) => re
                .captures_iter(text)
                .map_while(Result::ok)
                .map(|caps| Groups {
                    text,
                    groups: caps.iter().map(|g| g.map(|m| m.range())).collect(),
                    pattern: self,
                })
                .collect(),
        }
    }

    /// `text` with every match replaced by `replacement`, where `${N}` (or `$N`) is group N
    /// and `$$` a dollar sign, as the `regex` crate expands it.
    pub(crate) fn replace_all(&self, text: &str, replacement: &str) -> String {
        if let Self::Plain(re) = self {
            return re.replace_all(text, replacement).into_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for groups in self.captures_iter(text) {
            let Some(whole) = groups.get(0) else { continue };
            out.push_str(text.get(last..whole.start()).unwrap_or_default());
            expand(&groups, replacement, &mut out);
            last = whole.end();
        }
        out.push_str(text.get(last..).unwrap_or_default());
        out
    }

    /// The pattern as compiled (with `fancy-regex`'s `(?m)` in front).
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Plain(re) => re.as_str(),
            Self::Fancy(re) => re.as_str().strip_prefix("(?m)").unwrap_or(re.as_str()),
        }
    }

    fn group_index(&self, name: &str) -> Option<usize> {
        match self {
            Self::Plain(re) => re.capture_names().position(|n| n == Some(name)),
            Self::Fancy(re) => re.capture_names().position(|n| n == Some(name)),
        }
    }
}

/// Appends `replacement` with its group references (`${N}`, `$N`, `$$`) filled from `groups`.
fn expand(groups: &Groups<'_, '_>, replacement: &str, out: &mut String) {
    let mut rest = replacement;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        let (name, tail) = match after.strip_prefix('{').and_then(|a| a.split_once('}')) {
            Some((name, tail)) => (name, tail),
            None => {
                let end = after
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() {
            out.push('$');
        } else {
            let group = match name.parse::<usize>() {
                Ok(i) => groups.get(i),
                Err(_) => groups.name(name),
            };
            out.push_str(group.map(|g| g.as_str()).unwrap_or_default());
        }
        rest = tail;
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_patterns_stay_linear_and_lookaround_goes_fancy() {
        let plain = Pattern::new(r"\bfoo\b").expect("plain");
        assert!(matches!(plain, Pattern::Plain(_)));
        let fancy = Pattern::new(r"(?<!un)clear\b").expect("fancy");
        assert!(matches!(fancy, Pattern::Fancy(_)));
        let found: Vec<&str> = fancy
            .find_iter("clear, unclear, clear")
            .map(|m| m.as_str())
            .collect();
        assert_eq!(found, ["clear", "clear"]);
        let back = Pattern::new(r"\b(\w+) \1\b").expect("backreference");
        let groups = back.captures_iter("the the end");
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].get(1).map(|m| m.as_str()), Some("the"));
        assert!(Pattern::new("(unclosed").is_err());
        assert!(
            Pattern::new("(?<!a+)b").is_err(),
            "variable-length lookbehind"
        );
    }

    #[test]
    fn replacement_references_expand_in_both_engines() {
        for p in [r"(\w+)ise\b", r"(\w+)ise\b(?!-)"] {
            let re = Pattern::new(p).expect(p);
            assert_eq!(
                re.replace_all("organise it", "${1}ize $$"),
                "organize $ it",
                "{p}"
            );
        }
    }

    #[test]
    fn multi_line_anchors_and_named_groups_work_in_both_engines() {
        for p in [r"^(?P<w>\w+)$", r"^(?P<w>\w+)$(?!x)"] {
            let re = Pattern::new(p).expect(p);
            let all: Vec<String> = re
                .captures_iter("a\nb")
                .iter()
                .filter_map(|c| c.name("w").map(|m| m.as_str().to_owned()))
                .collect();
            assert_eq!(all, ["a", "b"], "{p}");
        }
    }

    #[test]
    fn catastrophic_backtracking_ends_at_the_limit() {
        let re = Pattern::new(r"(a+)+\1b").expect("compiles");
        let text = "a".repeat(40);
        assert!(!re.is_match(&text));
        assert_eq!(re.find_iter(&text).count(), 0);
    }
}
