//! `extends: existence`: an alert for every match of the rule's tokens (Vale's
//! `existence.go`).
//!
//! The regex is Vale's: the non-blank `tokens` joined by `|` in the word template
//! (`(?m)\b(?:…)\b`; `(?m)(?:…)` with `nonword` or no tokens), `raw` joined before it (after
//! it with `append`), `(?i)` in front with `ignorecase`. A match whose trimmed text the
//! `exceptions` (and, with `vocab`, the accepted vocabulary) match anywhere is no alert.
//! One difference: a match of no characters (a rule whose pattern can match nothing) is no
//! alert here; Vale reports it at its place.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::Draft;
use super::{Rule, RuleError, pattern};

/// The fields of an `existence` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Existence {
    pub raw: Vec<String>,
    pub tokens: Vec<String>,
    pub exceptions: Vec<String>,
    pub append: bool,
    pub ignorecase: bool,
    pub nonword: bool,
    /// Whether the accepted vocabulary is an exception too (default true).
    pub vocab: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pattern: Pattern,
    except: Option<Pattern>,
}

impl Existence {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            raw: d.strings("raw")?,
            tokens: d.strings("tokens")?,
            exceptions: d.strings("exceptions")?,
            append: d.bool("append", false)?,
            ignorecase: d.bool("ignorecase", false)?,
            nonword: d.bool("nonword", false)?,
            vocab: d.bool("vocab", true)?,
        })
    }

    /// The rule's regex, as Vale writes it.
    pub fn regex(&self) -> String {
        let tokens: Vec<&str> = self
            .tokens
            .iter()
            .map(String::as_str)
            .filter(|t| !t.trim().is_empty())
            .collect();
        pattern::template(
            &tokens.join("|"),
            self.ignorecase,
            !self.nonword && !self.tokens.is_empty(),
            &self.raw.concat(),
            self.append,
        )
    }

    pub(crate) fn compile(&self, file: &str, accepted: &[String]) -> Result<Compiled, RuleError> {
        Ok(Compiled {
            pattern: pattern::compile(file, &self.regex())?,
            except: pattern::exceptions(file, &self.exceptions, accepted, self.vocab)?,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str) -> Vec<Draft> {
        self.pattern
            .find_iter(text)
            .filter(|m| !m.range().is_empty())
            .filter(|m| !pattern::excepted(self.except.as_ref(), m.as_str().trim()))
            .map(|m| Draft::at(rule, text, m.range()))
            .collect()
    }
}
