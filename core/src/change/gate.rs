//! The commit gate's rule: a finding the edit introduced is one the edition has more of
//! after the change than before (same rule, same matched text or message), so a violation
//! the edition already had lands beside the edit, and only an introduced failing one refuses.

use std::collections::HashMap;

use crate::check::edition::EditionFinding;

/// Marks each finding of `after` that `before` did not have as introduced. Findings are
/// counted per (rule, matched text or message): with two `utilize` before and three after,
/// the last one is the introduced one.
pub fn mark_introduced(before: &[EditionFinding], after: &mut [EditionFinding]) {
    let key = |f: &EditionFinding| {
        (
            f.rule.clone(),
            f.matched.clone().unwrap_or_else(|| f.message.clone()),
        )
    };
    let mut had: HashMap<(String, String), usize> = HashMap::new();
    for f in before {
        *had.entry(key(f)).or_default() += 1;
    }
    for f in after.iter_mut() {
        match had.get_mut(&key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                f.introduced = false;
            }
            _ => f.introduced = true,
        }
    }
}

/// Whether any finding was introduced and fails the gate.
pub fn refuses(after: &[EditionFinding]) -> bool {
    after.iter().any(|f| f.introduced && f.fails)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::Severity;

    fn f(rule: &str, matched: &str) -> EditionFinding {
        EditionFinding {
            rule: rule.into(),
            severity: Severity::Major,
            message: "m".into(),
            matched: Some(matched.into()),
            suggestion: None,
            fails: true,
            introduced: false,
        }
    }

    #[test]
    fn only_the_extra_occurrence_is_introduced() {
        let before = vec![
            f("terms.forbidden", "utilize"),
            f("terms.forbidden", "utilize"),
        ];
        let mut after = vec![
            f("terms.forbidden", "utilize"),
            f("terms.forbidden", "utilize"),
            f("terms.forbidden", "utilize"),
            f("hygiene.double-space", "  "),
        ];
        mark_introduced(&before, &mut after);
        let introduced: Vec<bool> = after.iter().map(|f| f.introduced).collect();
        assert_eq!(introduced, [false, false, true, true]);
        assert!(refuses(&after));
    }

    #[test]
    fn findings_that_were_already_there_do_not_refuse() {
        let before = vec![f("terms.forbidden", "utilize")];
        let mut after = vec![f("terms.forbidden", "utilize")];
        mark_introduced(&before, &mut after);
        assert!(!refuses(&after));
        let mut advisory = vec![f("terms.avoid", "x")];
        advisory[0].fails = false;
        mark_introduced(&[], &mut advisory);
        assert!(advisory[0].introduced && !refuses(&advisory));
    }
}
