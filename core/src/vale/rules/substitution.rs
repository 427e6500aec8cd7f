//! `extends: substitution`: an alert for every match of a `swap` key whose text is not
//! already its replacement (Vale's `substitution.go`).
//!
//! As Vale builds it: the keys, longest first (ties in the file's order; Go's map order is
//! random), each made non-capturing inside and wrapped in one group, joined by `|` in the
//! word template (`nonword` drops the `\b`s), `(?i)` with `ignorecase`. The group that
//! matched names the key; its replacement (capitalised when `capitalize` is on and the
//! match starts with a capital; `$1` filled from the key's own groups, read as `regexp2`
//! reads it: `$1ed` is group 1 then `ed`) is the expected text.
//! A match equal to it (compared as an anchored regex unless it is a plain phrase) or
//! excepted is no alert. The message's first `%s` is the replacement, the second the match;
//! with `action: replace` and no parameters, the parameters are the replacement's
//! `|`-separated options and the first `%s` lists them quoted (`'a' or 'b'`), the message's
//! own quotes around that `%s` dropped.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::Draft;
use super::{ActionName, Rule, RuleError, pattern};

/// The fields of a `substitution` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Substitution {
    /// `swap`: pattern → replacement, in the file's order.
    pub swap: Vec<(String, String)>,
    pub exceptions: Vec<String>,
    pub ignorecase: bool,
    pub nonword: bool,
    pub vocab: bool,
    pub capitalize: bool,
    /// `pos` (deprecated in Vale, read and not used).
    pub pos: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pattern: Pattern,
    except: Option<Pattern>,
    /// Per group: the key (as written) and its replacement.
    keys: Vec<(String, String)>,
    /// Per group: the key as a regex, when its replacement refers to its groups (`$1`).
    key_regexes: Vec<Option<Pattern>>,
    capitalize: bool,
}

impl Substitution {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            swap: d.string_map("swap")?,
            exceptions: d.strings("exceptions")?,
            ignorecase: d.bool("ignorecase", false)?,
            nonword: d.bool("nonword", false)?,
            vocab: d.bool("vocab", true)?,
            capitalize: d.bool("capitalize", false)?,
            pos: d.string("pos")?,
        })
    }

    fn keys(&self) -> Vec<(String, String)> {
        let mut keys = self.swap.clone();
        keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        keys
    }

    /// The rule's regex, as Vale writes it.
    pub fn regex(&self) -> String {
        let alternatives = self
            .keys()
            .iter()
            .map(|(k, _)| format!("({})", pattern::uncapture(k)))
            .collect::<Vec<_>>()
            .join("|");
        pattern::template(&alternatives, self.ignorecase, !self.nonword, "", true)
    }

    pub(crate) fn compile(&self, file: &str, accepted: &[String]) -> Result<Compiled, RuleError> {
        Ok(Compiled {
            pattern: pattern::compile(file, &self.regex())?,
            except: pattern::exceptions(file, &self.exceptions, accepted, self.vocab)?,
            key_regexes: self
                .keys()
                .iter()
                .map(|(key, replacement)| {
                    if !has_group_reference(replacement) {
                        return Ok(None);
                    }
                    let case = if self.ignorecase { "(?i)" } else { "" };
                    pattern::compile(file, &format!("{case}{key}")).map(Some)
                })
                .collect::<Result<Vec<_>, _>>()?,
            keys: self.keys(),
            capitalize: self.capitalize,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str) -> Vec<Draft> {
        let mut out = Vec::new();
        // Each expected text compiles once per run, however often it is compared.
        let mut tokens = pattern::TokenCache::default();
        for caps in self.pattern.captures_iter(text) {
            for (i, group) in caps.iter().enumerate().skip(1) {
                let Some(group) = group else { continue };
                let observed = group.as_str().trim();
                let Some(mut expected) = self.expected(i - 1, observed) else {
                    continue;
                };
                if tokens.matches(&expected, observed)
                    || pattern::excepted(self.except.as_ref(), observed)
                {
                    continue;
                }
                let mut draft = Draft::at(rule, text, group.range());
                if let Some(action) = draft.action.as_mut()
                    && action.name == ActionName::Replace
                    && action.params.is_empty()
                {
                    action.params = expected.split('|').map(str::to_owned).collect();
                    if self.capitalize && observed == pattern::cap_first(observed) {
                        action.params = action
                            .params
                            .iter()
                            .map(|p| pattern::cap_first(p))
                            .collect();
                    }
                    expected = pattern::to_sentence(&action.params, "or");
                    draft.message = Some(unquote(&rule.message));
                }
                draft.subs = vec![expected, observed.to_owned()];
                out.push(draft);
            }
        }
        out
    }

    /// Vale's `subMsg`: the replacement of key `index` for `observed`.
    fn expected(&self, index: usize, observed: &str) -> Option<String> {
        let (_, replacement) = self.keys.get(index)?;
        let mut expected = replacement.clone();
        if self.capitalize && observed == pattern::cap_first(observed) {
            expected = pattern::cap_first(&expected);
        }
        match self.key_regexes.get(index) {
            Some(Some(re)) => Some(re.replace_all(observed, dotnet_references(&expected).as_str())),
            _ => Some(expected),
        }
    }
}

/// `$1ed` as `regexp2` (.NET) reads it, group 1 then `ed`: `${1}ed` for the `regex` crate,
/// which would read a group named `1ed`.
fn dotnet_references(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push_str("${");
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                out.push(d);
            }
            out.push('}');
        } else {
            out.push(c);
        }
    }
    out
}

fn has_group_reference(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(2).any(|w| w[0] == b'$' && w[1].is_ascii_digit())
}

/// Vale's `convertMessage`: with two `'%s'` (or two `"%s"`), the first loses its quotes.
fn unquote(message: &str) -> String {
    let mut s = message.to_owned();
    for spec in ["'%s'", "\"%s\""] {
        if s.matches(spec).count() == 2 {
            s = s.replacen(spec, "%s", 1);
        }
    }
    s
}
