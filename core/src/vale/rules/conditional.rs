//! `extends: conditional`: an alert for a match of `first` that no match of `second` has
//! defined earlier in the file (Vale's `conditional.go`), such as an acronym used before it
//! is spelled out.
//!
//! As in Vale, both patterns compile as written (`ignorecase` is read and not applied). In
//! each piece, the groups that `second` captures are first added to the file's definitions
//! ([`FileState`](super::FileState)); then each match of `first` that is not a definition
//! and that the exceptions do not match is an alert, with its text in `%s`.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::{Draft, FileState};
use super::{Rule, RuleError, pattern};

/// The fields of a `conditional` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conditional {
    pub first: String,
    pub second: String,
    pub exceptions: Vec<String>,
    pub ignorecase: bool,
    pub vocab: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    first: Pattern,
    second: Pattern,
    except: Option<Pattern>,
}

impl Conditional {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            first: d.string("first")?,
            second: d.string("second")?,
            exceptions: d.strings("exceptions")?,
            ignorecase: d.bool("ignorecase", false)?,
            vocab: d.bool("vocab", true)?,
        })
    }

    pub(crate) fn compile(&self, file: &str, accepted: &[String]) -> Result<Compiled, RuleError> {
        Ok(Compiled {
            except: pattern::exceptions(file, &self.exceptions, accepted, self.vocab)?,
            second: pattern::compile(file, &self.second)?,
            first: pattern::compile(file, &self.first)?,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str, state: &mut FileState) -> Vec<Draft> {
        for caps in self.second.captures_iter(text) {
            for group in caps.iter().skip(1).flatten() {
                if !group.as_str().is_empty() {
                    state.sequences.insert(group.as_str().to_owned());
                }
            }
        }
        self.first
            .find_iter(text)
            .filter(|m| {
                !state.sequences.contains(m.as_str())
                    && !pattern::excepted(self.except.as_ref(), m.as_str())
            })
            .map(|m| Draft::at(rule, text, m.range()))
            .collect()
    }
}
