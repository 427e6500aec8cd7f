//! Vale's inline comment directives (`<!-- vale off -->`...): the parser of a comment's text
//! and the state they leave at a point of the document.
//!
//! The grammar is Vale's on the trimmed text inside the comment, single spaces around `=`:
//! `vale off`, `vale on`, `vale Style.Rule = YES|NO`, `vale Style.Rule["a", "b"] = YES|NO`,
//! `vale Style = YES|NO`, `vale style = A`, `vale styles = A, B`.

use std::collections::HashMap;

/// One directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `vale off`: no rule runs until `vale on`.
    Off,
    /// `vale on`.
    On,
    /// `vale Style.Rule = YES|NO`.
    Rule { rule: String, enabled: bool },
    /// `vale Style.Rule["a", "b"] = YES|NO`: only these matched texts of the rule.
    Matches {
        rule: String,
        matches: Vec<String>,
        enabled: bool,
    },
    /// `vale Style = YES|NO`: every rule of a style.
    Style { style: String, enabled: bool },
    /// `vale style = A` or `vale styles = A, B`: only these styles run.
    SetStyles(Vec<String>),
    /// Starts with `vale ` but is none of the above (kept as written, for a notice).
    Unrecognized(String),
}

/// The directive in a comment's text, or `None` when the comment is not one.
pub fn parse_directive(comment: &str) -> Option<Directive> {
    let text = comment.trim();
    let rest = text.strip_prefix("vale ")?;
    match rest {
        "off" => return Some(Directive::Off),
        "on" => return Some(Directive::On),
        _ => {}
    }
    let unrecognized = || Some(Directive::Unrecognized(text.to_owned()));
    let Some((lhs, rhs)) = rest.rsplit_once(" = ") else {
        return unrecognized();
    };
    if lhs == "style" || lhs == "styles" {
        let styles = super::ini::split_list(rhs);
        if styles.is_empty() {
            return unrecognized();
        }
        return Some(Directive::SetStyles(styles));
    }
    let enabled = match rhs {
        "YES" => true,
        "NO" => false,
        _ => return unrecognized(),
    };
    if lhs.is_empty() || lhs.contains(char::is_whitespace) && !lhs.contains('[') {
        return unrecognized();
    }
    if let Some(open) = lhs.find('[') {
        let (rule, list) = (&lhs[..open], &lhs[open..]);
        let Some(inner) = list.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            return unrecognized();
        };
        let Some(matches) = quoted_list(inner) else {
            return unrecognized();
        };
        if !is_rule_id(rule) {
            return unrecognized();
        }
        return Some(Directive::Matches {
            rule: rule.to_owned(),
            matches,
            enabled,
        });
    }
    if lhs.contains('.') {
        if !is_rule_id(lhs) {
            return unrecognized();
        }
        return Some(Directive::Rule {
            rule: lhs.to_owned(),
            enabled,
        });
    }
    Some(Directive::Style {
        style: lhs.to_owned(),
        enabled,
    })
}

fn is_rule_id(id: &str) -> bool {
    id.split_once('.')
        .is_some_and(|(s, r)| !s.is_empty() && !r.is_empty() && !id.contains(char::is_whitespace))
}

/// `"a", "b"`: double-quoted strings separated by commas (a `\"` inside is a quote).
fn quoted_list(inner: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = inner.trim().chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.next()? != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' if chars.peek() == Some(&'"') => {
                    item.push('"');
                    chars.next();
                }
                '"' => break,
                c => item.push(c),
            }
        }
        out.push(item);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => return Some(out),
            Some(',') => {}
            Some(_) => return None,
        }
    }
}

/// The state the directives before a point leave: what Vale's `File.Comments` holds there.
/// Walking a document in order, [`DirectiveState::apply`] each directive met: constant time
/// per directive and per question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectiveState {
    /// `vale off` is in force.
    pub off: bool,
    /// Rules set by `vale Style.Rule = YES|NO`: rule → on.
    pub rules: HashMap<String, bool>,
    /// Matched texts set by `vale Style.Rule["..."] = YES|NO`: (rule, text) → on.
    pub matches: HashMap<(String, String), bool>,
    /// Styles set by `vale Style = YES|NO`: style → on.
    pub styles: HashMap<String, bool>,
    /// The styles of the latest `vale styles = ...`, when one is in force.
    pub only_styles: Option<Vec<String>>,
}

impl DirectiveState {
    /// Applies one directive.
    pub fn apply(&mut self, directive: &Directive) {
        match directive {
            Directive::Off => self.off = true,
            Directive::On => self.off = false,
            Directive::Rule { rule, enabled } => {
                self.rules.insert(rule.clone(), *enabled);
            }
            Directive::Matches {
                rule,
                matches,
                enabled,
            } => {
                for text in matches {
                    self.matches.insert((rule.clone(), text.clone()), *enabled);
                }
            }
            Directive::Style { style, enabled } => {
                self.styles.insert(style.clone(), *enabled);
            }
            Directive::SetStyles(styles) => self.only_styles = Some(styles.clone()),
            Directive::Unrecognized(_) => {}
        }
    }

    /// The state at byte `offset` of directives given as (byte offset, directive) in document
    /// order: every directive at or before `offset` applies.
    pub fn at(directives: &[(usize, Directive)], offset: usize) -> DirectiveState {
        let mut state = DirectiveState::default();
        for (_, directive) in directives.iter().take_while(|(at, _)| *at <= offset) {
            state.apply(directive);
        }
        state
    }

    /// What the comments say of `rule` (`Style.Rule`): `Some(false)` off, `Some(true)` on even
    /// outside the configured styles, `None` as the configuration says. `vale off` wins, then
    /// the rule's own setting, then its style's, then `vale styles = ...`.
    pub fn rule_override(&self, rule: &str) -> Option<bool> {
        if self.off {
            return Some(false);
        }
        if let Some(on) = self.rules.get(rule) {
            return Some(*on);
        }
        let style = rule.split_once('.').map_or(rule, |(s, _)| s);
        if let Some(on) = self.styles.get(style) {
            return Some(*on);
        }
        self.only_styles
            .as_ref()
            .map(|only| only.iter().any(|s| s == style))
    }

    /// Whether the comments turn `rule` off here.
    pub fn disables(&self, rule: &str) -> bool {
        self.rule_override(rule) == Some(false)
    }

    /// Whether the comments turn off this matched text of `rule` here.
    pub fn disables_match(&self, rule: &str, text: &str) -> bool {
        self.disables(rule) || self.matches.get(&(rule.to_owned(), text.to_owned())) == Some(&false)
    }
}

/// Whether `rule` is off at byte `offset` by the directives (byte offset, directive) given in
/// document order.
pub fn disabled_at(directives: &[(usize, Directive)], rule: &str, offset: usize) -> bool {
    DirectiveState::at(directives, offset).disables(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(rule: &str, enabled: bool) -> Directive {
        Directive::Rule {
            rule: rule.to_owned(),
            enabled,
        }
    }

    #[test]
    fn vale_grammar() {
        assert_eq!(parse_directive(" vale off "), Some(Directive::Off));
        assert_eq!(parse_directive("vale on"), Some(Directive::On));
        assert_eq!(
            parse_directive("vale Microsoft.Passive = NO"),
            Some(rule("Microsoft.Passive", false))
        );
        assert_eq!(
            parse_directive("vale demo.Ending-Preposition = YES"),
            Some(rule("demo.Ending-Preposition", true))
        );
        assert_eq!(
            parse_directive(r#"vale Style.Redundancy["ACT test", "OTHER"] = NO"#),
            Some(Directive::Matches {
                rule: "Style.Redundancy".to_owned(),
                matches: vec!["ACT test".to_owned(), "OTHER".to_owned()],
                enabled: false,
            })
        );
        assert_eq!(
            parse_directive("vale Google = NO"),
            Some(Directive::Style {
                style: "Google".to_owned(),
                enabled: false
            })
        );
        assert_eq!(
            parse_directive("vale styles = A, B"),
            Some(Directive::SetStyles(vec!["A".to_owned(), "B".to_owned()]))
        );
        assert_eq!(
            parse_directive("vale style = A"),
            Some(Directive::SetStyles(vec!["A".to_owned()]))
        );
    }

    #[test]
    fn not_vale_grammar() {
        assert_eq!(parse_directive("a plain comment"), None);
        assert_eq!(parse_directive("valeoff"), None);
        for text in [
            "vale A.B = NO, C.D = NO",
            "vale A.B=NO",
            "vale A.B = no",
            "vale Off",
            "vale A.B[\"x\" = NO",
            "vale A.B[x] = NO",
            "vale .B = NO",
        ] {
            assert!(
                matches!(parse_directive(text), Some(Directive::Unrecognized(_))),
                "{text}"
            );
        }
    }

    #[test]
    fn state_at_an_offset() {
        let directives = vec![
            (10, Directive::Off),
            (20, Directive::On),
            (30, rule("A.B", false)),
            (40, rule("A.B", true)),
            (
                50,
                Directive::Style {
                    style: "A".to_owned(),
                    enabled: false,
                },
            ),
            (60, rule("A.C", true)),
            (70, Directive::SetStyles(vec!["Z".to_owned()])),
        ];
        assert!(!disabled_at(&directives, "A.B", 5));
        assert!(disabled_at(&directives, "A.B", 15));
        assert!(disabled_at(&directives, "X.Y", 15));
        assert!(!disabled_at(&directives, "A.B", 25));
        assert!(disabled_at(&directives, "A.B", 35));
        assert!(!disabled_at(&directives, "A.B", 45));
        // The rule's own `YES` at 40 outranks the style's `NO` at 50.
        assert!(!disabled_at(&directives, "A.B", 55));
        assert!(disabled_at(&directives, "A.D", 55));
        assert!(!disabled_at(&directives, "A.C", 65));
        assert!(disabled_at(&directives, "Q.R", 75));
        let state = DirectiveState::at(&directives, 75);
        assert_eq!(state.rule_override("Z.R"), Some(true));
    }

    #[test]
    fn matched_texts() {
        let directives = vec![(
            0,
            parse_directive(r#"vale S.R["ACT test"] = NO"#).expect("a directive"),
        )];
        let state = DirectiveState::at(&directives, 10);
        assert!(state.disables_match("S.R", "ACT test"));
        assert!(!state.disables_match("S.R", "other"));
        assert!(!state.disables("S.R"));
    }
}
