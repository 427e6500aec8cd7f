//! `translation-terms`: where the source uses a concept's term, the translation uses that
//! concept's term in the target language (`.kapi/terms.yaml` concepts with per-language
//! terms), and never a term the target language forbids for it.
//!
//! The source's matches come from the source-language matcher; the target's terms from the
//! target-language governance. A concept with no preferred or admitted term in the target
//! language is not checked (nothing to expect). Matching is the term matcher's (whole words,
//! case folding by the term's own `case_sensitive`).

use super::rule::declare_rule;
use crate::check::not_words::Addresses;
use crate::governance::TermMatch;
use crate::governance::{Governance, Severity, TermStatus};
use crate::model::Edition;
use crate::text::Prose;

declare_rule! {
    /// ## What it flags
    /// A translation that does not use the project's term for a concept the source names:
    /// the source says `sign in` (concept `sign-in`), and the French translation has none of
    /// the concept's French terms (`se connecter`).
    ///
    /// ## Why it matters
    /// Terms are decided once per language so a product reads the same everywhere; a
    /// translator who picks a synonym splits one thing into two for readers and for search.
    ///
    /// ## Example
    /// Source `Sign in to continue.`, translation `Identifiez-vous pour continuer.`
    /// Use instead: `Il faut se connecter pour continuer.` (`se connecter` is the French term)
    pub MISSING = "translation-terms.missing", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A term the target language forbids or deprecates (`status: forbidden|deprecated` for
    /// that language in `.kapi/terms.yaml`) in a translation.
    ///
    /// ## Why it matters
    /// The project decided against that word in that language; the replacement says which
    /// to write.
    ///
    /// ## Example
    /// With `login` forbidden in French: `Entrez votre login.` Use instead:
    /// `Entrez votre identifiant.`
    pub AVOID = "translation-terms.avoid", Severity::Major
}

/// A term problem in a translation, in offsets of the target's prose view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermGap {
    pub rule: &'static crate::check::Rule,
    pub severity: Severity,
    /// Byte range in the target's prose view (empty for a missing term).
    pub range: std::ops::Range<usize>,
    pub message: String,
    pub suggestion: Option<String>,
    /// Set when the target-language term stands inside one of its `exceptions:`: what allows
    /// it (the check lists it as suppressed, never as a finding).
    pub suppressed_by: Option<String>,
}

/// Checks one target edition against its source.
pub fn compare(
    source_gov: &Governance,
    target_gov: &Governance,
    lang: &str,
    source: &Edition,
    target: &Edition,
) -> Vec<TermGap> {
    let mut out = Vec::new();
    if target.runs.is_empty() || (source_gov.terms.is_empty() && target_gov.terms.is_empty()) {
        return out;
    }
    let source_prose = Prose::from_edition(source);
    let target_prose = Prose::from_edition(target);
    // A term inside an address (a URL, a domain, a path) is not a word of either text.
    let words = |prose: &Prose, found: Vec<TermMatch>| -> Vec<TermMatch> {
        if found.is_empty() {
            return found;
        }
        let addresses = Addresses::scan(&prose.text);
        found
            .into_iter()
            .filter(|f| !addresses.hides(&prose.text, &f.range))
            .collect()
    };
    let found_target = words(&target_prose, target_gov.matcher.find(&target_prose.text));
    // Forbidden or deprecated target-language terms.
    for found in &found_target {
        let Some(entry) = target_gov.terms.get(found.entry) else {
            continue;
        };
        if !matches!(entry.status, TermStatus::Forbidden | TermStatus::Deprecated) {
            continue;
        }
        let written = target_prose
            .text
            .get(found.range.clone())
            .unwrap_or_default();
        let suppressed_by = found
            .exception
            .and_then(|i| entry.exceptions.get(i))
            .map(|e| e.allows(&entry.text));
        out.push(TermGap {
            rule: &AVOID,
            severity: entry.severity.unwrap_or(AVOID.severity),
            range: found.range.clone(),
            message: format!("`{written}` is to be avoided in {lang}"),
            suggestion: entry.replacement.clone(),
            suppressed_by,
        });
    }
    // Concepts the source names: the translation should use one of their target terms.
    let mut seen = std::collections::HashSet::new();
    for found in words(&source_prose, source_gov.matcher.find(&source_prose.text)) {
        let Some(entry) = source_gov.terms.get(found.entry) else {
            continue;
        };
        let Some(concept) = entry.concept.as_deref() else {
            continue;
        };
        if !matches!(entry.status, TermStatus::Preferred | TermStatus::Admitted)
            || !seen.insert(concept)
        {
            continue;
        }
        let wanted: Vec<&str> = target_gov
            .terms
            .iter()
            .filter(|t| {
                t.concept.as_deref() == Some(concept)
                    && matches!(t.status, TermStatus::Preferred | TermStatus::Admitted)
            })
            .map(|t| t.text.as_str())
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let used = found_target.iter().any(|f| {
            target_gov
                .terms
                .get(f.entry)
                .is_some_and(|t| t.concept.as_deref() == Some(concept))
        });
        if !used {
            let source_text = source_prose
                .text
                .get(found.range.clone())
                .unwrap_or_default();
            out.push(TermGap {
                rule: &MISSING,
                severity: MISSING.severity,
                range: 0..0,
                message: format!(
                    "the source says `{source_text}` ({concept}); the {lang} translation uses none of {}",
                    wanted
                        .iter()
                        .map(|w| format!("`{w}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                suggestion: wanted.first().map(|w| (*w).to_owned()),
                suppressed_by: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::{TermEntry, TermMatcher};
    use crate::model::Run;

    fn gov(terms: Vec<TermEntry>) -> Governance {
        let mut g = Governance::empty();
        g.matcher = TermMatcher::new(&terms);
        g.terms = terms;
        g
    }

    fn term(text: &str, lang: &str, status: TermStatus, concept: &str) -> TermEntry {
        let mut t = TermEntry::new(text, lang, status);
        t.concept = Some(concept.to_owned());
        t
    }

    fn ed(text: &str) -> Edition {
        Edition::new(vec![Run::text(text)])
    }

    #[test]
    fn a_translation_without_the_concepts_term_is_flagged() {
        let en = gov(vec![term(
            "sign in",
            "en",
            TermStatus::Preferred,
            "sign-in",
        )]);
        let mut login = term("login", "fr", TermStatus::Forbidden, "sign-in");
        login.replacement = Some("identifiant".into());
        let fr = gov(vec![
            term("se connecter", "fr", TermStatus::Preferred, "sign-in"),
            login,
        ]);
        let source = ed("Sign in to continue.");
        let ok = compare(
            &en,
            &fr,
            "fr",
            &source,
            &ed("Il faut se connecter pour continuer."),
        );
        assert!(ok.is_empty(), "{ok:?}");
        let gaps = compare(
            &en,
            &fr,
            "fr",
            &source,
            &ed("Identifiez-vous pour continuer."),
        );
        assert_eq!(gaps.len(), 1);
        assert_eq!(gaps[0].rule.id, "translation-terms.missing");
        assert_eq!(gaps[0].suggestion.as_deref(), Some("se connecter"));
        let bad = compare(&en, &fr, "fr", &source, &ed("Entrez votre login."));
        let ids: Vec<_> = bad.iter().map(|g| g.rule.id).collect();
        assert!(ids.contains(&"translation-terms.avoid"), "{ids:?}");
    }

    #[test]
    fn a_japanese_term_next_to_an_address_is_used_and_avoided() {
        let en = gov(vec![term(
            "component",
            "en",
            TermStatus::Preferred,
            "component",
        )]);
        let mut old = term("コンポ", "ja", TermStatus::Forbidden, "component");
        old.replacement = Some("コンポーネント".into());
        let ja = gov(vec![
            term("コンポーネント", "ja", TermStatus::Preferred, "component"),
            old,
        ]);
        let source = ed("Use the component in Vue.js.");
        let used = compare(
            &en,
            &ja,
            "ja",
            &source,
            &ed("Vue.jsのコンポーネントを使います。"),
        );
        assert!(used.is_empty(), "{used:?}");
        let avoided = compare(&en, &ja, "ja", &source, &ed("Vue.jsのコンポを使います。"));
        let ids: Vec<_> = avoided.iter().map(|g| g.rule.id).collect();
        assert_eq!(ids, ["translation-terms.avoid"], "{avoided:?}");
    }

    #[test]
    fn a_concept_with_no_target_term_is_not_checked() {
        let en = gov(vec![term(
            "sign in",
            "en",
            TermStatus::Preferred,
            "sign-in",
        )]);
        let fr = gov(vec![]);
        assert!(compare(&en, &fr, "fr", &ed("Sign in"), &ed("Connexion")).is_empty());
    }
}
