//! `extends: repetition`: an alert where a token repeats itself (`the the`), as Vale's
//! `repetition.go` finds it.
//!
//! The regex is `(tok1|tok2)`, `(?i)` with `ignorecase`. Walking its matches, a match whose
//! trimmed text equals the previous one's (case-folded with `ignorecase`; letters only with
//! `alpha`; never empty) is a repeat; once more than `max` repeats are counted, the span from
//! the previous match to this one is an alert unless it crosses a line or the exceptions
//! match it, and the count starts over. As in Vale, a different token in between does not
//! reset the count. The token fills `%s`.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::Draft;
use super::{Rule, RuleError, pattern};

/// The fields of a `repetition` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Repetition {
    pub tokens: Vec<String>,
    pub max: usize,
    pub ignorecase: bool,
    pub alpha: bool,
    pub vocab: bool,
    pub exceptions: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pattern: Pattern,
    except: Option<Pattern>,
    max: usize,
    ignorecase: bool,
    alpha: bool,
}

impl Repetition {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            tokens: d.strings("tokens")?,
            max: d.count("max")?,
            ignorecase: d.bool("ignorecase", false)?,
            alpha: d.bool("alpha", false)?,
            vocab: d.bool("vocab", true)?,
            exceptions: d.strings("exceptions")?,
        })
    }

    /// The rule's regex, as Vale writes it.
    pub fn regex(&self) -> String {
        let case = if self.ignorecase { "(?i)" } else { "" };
        format!("{case}({})", self.tokens.join("|"))
    }

    pub(crate) fn compile(&self, file: &str, accepted: &[String]) -> Result<Compiled, RuleError> {
        Ok(Compiled {
            pattern: pattern::compile(file, &self.regex())?,
            except: pattern::exceptions(file, &self.exceptions, accepted, self.vocab)?,
            max: self.max,
            ignorecase: self.ignorecase,
            alpha: self.alpha,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str) -> Vec<Draft> {
        let mut out = Vec::new();
        let mut prev = "";
        let mut prev_start = 0usize;
        let mut count = 0usize;
        for m in self.pattern.find_iter(text) {
            let curr = m.as_str().trim();
            let same = if self.ignorecase {
                curr.to_lowercase() == prev.to_lowercase()
            } else {
                curr == prev
            };
            let hit = same && !curr.is_empty() && (!self.alpha || pattern::is_letter(curr));
            if hit {
                count += 1;
            }
            if hit && count > self.max {
                let span = prev_start..m.end();
                let covered = text.get(span.clone()).unwrap_or_default();
                if !covered.contains('\n') && !pattern::excepted(self.except.as_ref(), covered) {
                    let mut draft = Draft::at(rule, text, span);
                    draft.subs = vec![curr.to_owned()];
                    out.push(draft);
                    count = 0;
                }
            }
            prev_start = m.start();
            prev = curr;
        }
        out
    }
}
