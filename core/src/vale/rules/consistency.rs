//! `extends: consistency`: an alert once a file has used both spellings of an `either` pair
//! (Vale's `consistency.go`).
//!
//! Each pair is one regex, `(?P<a>first)|(?P<b>second)` in the word template (`nonword`
//! drops the `\b`s), `(?i)` with `ignorecase`. Every match marks its side as seen in the
//! file ([`FileState`](super::FileState)); when a piece matches a pair and both sides have
//! been seen, the alert is at the last group matched in the piece, with its text in `%s`.
//! As in Vale, each later piece that matches the pair alerts again.

use super::regexp::Pattern;

use super::decode::Decoder;
use super::engine::{Draft, FileState};
use super::{Rule, RuleError, pattern};

/// The fields of a `consistency` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Consistency {
    /// `either`: pairs of spellings of which a file should use one.
    pub either: Vec<(String, String)>,
    pub nonword: bool,
    pub ignorecase: bool,
}

#[derive(Debug, Clone)]
struct Step {
    pattern: Pattern,
    /// The file-state keys of the pair's two sides.
    keys: [String; 2],
}

#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    steps: Vec<Step>,
}

impl Consistency {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            either: d.string_map("either")?,
            nonword: d.bool("nonword", false)?,
            ignorecase: d.bool("ignorecase", false)?,
        })
    }

    pub(crate) fn compile(&self, file: &str, id: &str) -> Result<Compiled, RuleError> {
        let mut steps = Vec::new();
        for (i, (a, b)) in self.either.iter().enumerate() {
            let pair = format!("(?P<kapi_a>{a})|(?P<kapi_b>{b})");
            let regex = pattern::template(&pair, self.ignorecase, !self.nonword, "", true);
            steps.push(Step {
                pattern: pattern::compile(file, &regex)?,
                keys: [
                    format!("consistency\u{0}{id}\u{0}{i}a"),
                    format!("consistency\u{0}{id}\u{0}{i}b"),
                ],
            });
        }
        Ok(Compiled { steps })
    }
}

impl Compiled {
    pub(crate) fn run(&self, rule: &Rule, text: &str, state: &mut FileState) -> Vec<Draft> {
        let mut out = Vec::new();
        for step in &self.steps {
            let mut last = None;
            for caps in step.pattern.captures_iter(text) {
                for (name, key) in ["kapi_a", "kapi_b"].iter().zip(&step.keys) {
                    if caps.name(name).is_some() {
                        state.sequences.insert(key.clone());
                    }
                }
                last = caps.iter().skip(1).flatten().last().map(|m| m.range());
            }
            let both = step.keys.iter().all(|k| state.sequences.contains(k));
            if let (Some(range), true) = (last, both) {
                out.push(Draft::at(rule, text, range));
            }
        }
        out
    }
}
