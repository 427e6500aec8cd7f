//! `extends: occurrence`: an alert when a piece holds more than `max` or fewer than `min`
//! matches of `token` (Vale's `occurrence.go`).
//!
//! The regex is `(?:token)`, `(?i)` with `ignorecase`. The count fills `%s`. The alert is at
//! the first match that is neither blank nor Vale's mark for inline code (only `*` and `@`);
//! with none, no alert. With no match at all (below `min`), the alert is at the piece's
//! start, with no text: Vale puts it on the piece's first line.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::Draft;
use super::{Rule, RuleError, pattern};

/// The fields of an `occurrence` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Occurrence {
    pub token: String,
    /// 0 for no maximum.
    pub max: usize,
    /// 0 for no minimum.
    pub min: usize,
    pub ignorecase: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pattern: Pattern,
    max: usize,
    min: usize,
}

impl Occurrence {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            token: d.string("token")?,
            max: d.count("max")?,
            min: d.count("min")?,
            ignorecase: d.bool("ignorecase", false)?,
        })
    }

    /// The rule's regex, as Vale writes it.
    pub fn regex(&self) -> String {
        let case = if self.ignorecase { "(?i)" } else { "" };
        format!("{case}(?:{})", self.token)
    }

    pub(crate) fn compile(&self, file: &str) -> Result<Compiled, RuleError> {
        Ok(Compiled {
            pattern: pattern::compile(file, &self.regex())?,
            max: self.max,
            min: self.min,
        })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str) -> Vec<Draft> {
        let mut count = 0usize;
        let mut first = None;
        for m in self.pattern.find_iter(text) {
            count += 1;
            let s = m.as_str();
            if first.is_none() && !s.trim().is_empty() && !pattern::is_code(s) {
                first = Some(m.range());
            }
        }
        let over = self.max > 0 && count > self.max;
        let under = self.min > 0 && count < self.min;
        if !(over || under) {
            return Vec::new();
        }
        let mut draft = if count == 0 {
            Draft::at(rule, text, 0..0)
        } else {
            match first {
                Some(range) => Draft::at(rule, text, range),
                None => return Vec::new(),
            }
        };
        draft.subs = vec![count.to_string()];
        vec![draft]
    }
}
