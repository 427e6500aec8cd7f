//! The analyzers over one edition alone, as the commit check of a change set runs them: the
//! source analyzers (hygiene, terms, voice patterns and constraints) or, for a translation,
//! placeholders, translation terms and the functional checks (`translation.*`, accelerators
//! aside: the edition's file type is not known here) against its source. Whole-document
//! rules do not run.

use serde::Serialize;

use super::Hit;
use super::analyzers::{hygiene, placeholders, terms, translation_terms, voice};
use super::not_words::AddressFilter;
use crate::governance::{Governance, Severity};
use crate::model::{Edition, Role};
use crate::text::Prose;

/// One finding on an edition, located by the text it matched rather than a file position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EditionFinding {
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Whether it fails the gate in force (an advisory finding reports and never refuses).
    pub fails: bool,
    /// Whether the edit introduced it (set by the commit check).
    pub introduced: bool,
}

fn from_hit(prose: &Prose, hit: Hit) -> EditionFinding {
    EditionFinding {
        rule: hit.rule.id.to_owned(),
        severity: hit.severity,
        matched: prose.matched(hit.range),
        message: hit.message,
        suggestion: hit.suggestion,
        fails: false,
        introduced: false,
    }
}

/// Hygiene, terms and the voice's block rules over an authoritative edition (or one in its
/// language).
pub fn source(gov: &Governance, role: Role, edition: &Edition) -> Vec<EditionFinding> {
    let prose = Prose::from_edition(edition);
    // Words inside an address are not words, as `kapi check` reads them.
    let mut hits = AddressFilter::new(&prose.text, Vec::new());
    hygiene::check(&prose.text, &mut hits);
    terms::check(gov, &prose.text, &mut hits);
    voice::check_block(gov, role, &prose.text, &voice::cuts(edition), &mut hits);
    // A match the project allows where it stands (a term's exception) is no finding.
    hits.into_inner()
        .into_iter()
        .filter(|h| h.suppressed_by.is_none())
        .map(|h| from_hit(&prose, h))
        .collect()
}

/// Placeholders, translation terms and functional checks of a translation against its source.
pub fn translation(
    source_gov: &Governance,
    target_gov: &Governance,
    lang: &str,
    source: &Edition,
    target: &Edition,
) -> Vec<EditionFinding> {
    let prose = Prose::from_edition(target);
    let mut out: Vec<EditionFinding> = placeholders::compare(source, target)
        .into_iter()
        .map(|m| EditionFinding {
            rule: m.rule.id.to_owned(),
            severity: m.rule.severity,
            message: m.message,
            matched: Some(m.data),
            suggestion: None,
            fails: false,
            introduced: false,
        })
        .collect();
    for gap in translation_terms::compare(source_gov, target_gov, lang, source, target)
        .into_iter()
        .filter(|gap| gap.suppressed_by.is_none())
    {
        out.push(EditionFinding {
            rule: gap.rule.id.to_owned(),
            severity: gap.severity,
            matched: prose.matched(gap.range),
            message: gap.message,
            suggestion: gap.suggestion,
            fails: false,
            introduced: false,
        });
    }
    // pofilter's functional checks; the file type is not known here, so no accelerators.
    for (m, severity) in super::analyzers::functional::compare(source, target, lang, &[]) {
        out.push(EditionFinding {
            rule: m.rule.id.to_owned(),
            severity,
            message: m.message,
            matched: (!m.data.is_empty()).then_some(m.data),
            suggestion: None,
            fails: false,
            introduced: false,
        });
    }
    out
}
