//! `terms`: words the project's terms and voice vocabulary tell writers to avoid. Every match
//! of the governance's term matcher in a block's prose becomes a hit by the term's status;
//! preferred, admitted and suggested terms give nothing.

use std::ops::Range;

use super::rule::{Rule, declare_rule};
use crate::check::{Hit, Sink};
use crate::governance::{Governance, Severity, TermEntry, TermStatus};

declare_rule! {
    /// ## What it flags
    /// A term the project forbids (`status: forbidden` in `.kapi/terms.yaml`, or the voice's
    /// `vocabulary.forbidden`), matched as a whole word.
    ///
    /// ## Why it matters
    /// Forbidden terms are decisions the project already made: jargon, unverifiable claims,
    /// words that mean something else to your readers. The replacement says what to write.
    ///
    /// ## Example
    /// `Utilize the CLI to deploy.` Use instead: `Use the CLI to deploy.`
    pub FORBIDDEN = "terms.forbidden", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A competitor's product or company name (`status: competitor`, or the voice's
    /// `vocabulary.competitor`), matched as a whole word.
    ///
    /// ## Why it matters
    /// Naming a competitor in your own documentation advertises it, can raise legal
    /// questions, and usually means text was copied from somewhere else.
    ///
    /// ## Example
    /// `Export your Confluence pages.` Use instead: `Export your wiki pages.`
    pub COMPETITOR = "terms.competitor", Severity::Critical
}

declare_rule! {
    /// ## What it flags
    /// A deprecated term (`status: deprecated`): one still understood but replaced by the
    /// concept's preferred term.
    ///
    /// ## Why it matters
    /// Two names for one thing make readers wonder whether they are two things, and make
    /// search and translation inconsistent.
    ///
    /// ## Example
    /// `Enter your login details.` Use instead: `Enter your sign-in details.`
    pub DEPRECATED = "terms.deprecated", Severity::Minor
}

/// The rule a term's status reports under, when it reports at all.
pub fn rule_for(status: TermStatus) -> Option<&'static Rule> {
    match status {
        TermStatus::Forbidden => Some(&FORBIDDEN),
        TermStatus::Competitor => Some(&COMPETITOR),
        TermStatus::Deprecated => Some(&DEPRECATED),
        TermStatus::Preferred | TermStatus::Admitted | TermStatus::Suggested => None,
    }
}

/// Runs the `terms` rules over one block's prose, pushing hits in prose offsets.
pub fn check(gov: &Governance, prose: &str, hits: &mut dyn Sink) {
    if gov.terms.is_empty() {
        return;
    }
    gov.matcher.find_each(prose, |found| {
        if let Some(entry) = gov.terms.get(found.entry) {
            push_match(entry, found.range, prose, hits);
        }
    });
}

/// Pushes the hit one match of `entry` at `range` of `prose` gives, if its status reports.
fn push_match(entry: &TermEntry, range: Range<usize>, prose: &str, hits: &mut dyn Sink) {
    let Some(rule) = rule_for(entry.status) else {
        return;
    };
    let Some(written) = prose.get(range.clone()) else {
        return;
    };
    hits.push(Hit {
        rule,
        severity: entry.severity.unwrap_or(rule.severity),
        range,
        message: message(entry, written),
        suggestion: entry.replacement.clone(),
        suppressed_by: None,
    });
}

fn message(entry: &TermEntry, written: &str) -> String {
    // A multi-word term may be matched across a line break: name it on one line.
    let mut shown = String::with_capacity(written.len());
    for (i, word) in written.split_whitespace().enumerate() {
        if i > 0 {
            shown.push(' ');
        }
        shown.push_str(word);
    }
    let mut message = match entry.status {
        TermStatus::Competitor => format!("`{shown}` is a competitor's name"),
        TermStatus::Deprecated => format!("`{shown}` is deprecated"),
        _ => format!("`{shown}` is forbidden here"),
    };
    if let Some(note) = entry
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        message.push_str(": ");
        message.push_str(note);
    }
    message
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::governance::TermMatcher;

    fn entry(text: &str, status: TermStatus) -> TermEntry {
        TermEntry::new(text, "en", status)
    }

    fn governance(terms: Vec<TermEntry>) -> Governance {
        let mut gov = Governance::empty();
        gov.matcher = TermMatcher::new(&terms);
        gov.terms = terms;
        gov
    }

    /// The terms the tests (and `report.rs`'s tests) check against.
    pub(crate) fn handbook() -> Governance {
        let mut utilize = entry("utilize", TermStatus::Forbidden);
        utilize.replacement = Some("use".to_owned());
        utilize.note = Some("Plain words".to_owned());
        let mut login = entry("login", TermStatus::Deprecated);
        login.replacement = Some("sign in".to_owned());
        let mut leverage = entry("leverage", TermStatus::Forbidden);
        leverage.severity = Some(Severity::Critical);
        governance(vec![
            utilize,
            entry("Confluence", TermStatus::Competitor),
            login,
            entry("sign in", TermStatus::Preferred),
            entry("log on", TermStatus::Admitted),
            entry("frobnicate", TermStatus::Suggested),
            leverage,
            entry("single sign-on", TermStatus::Forbidden),
        ])
    }

    type Row = (&'static str, Severity, Range<usize>, String, Option<String>);

    fn rows(hits: Vec<Hit>) -> Vec<Row> {
        hits.into_iter()
            .map(|h| (h.rule.id, h.severity, h.range, h.message, h.suggestion))
            .collect()
    }

    #[test]
    fn each_status_reports_under_its_rule_with_its_message() {
        let gov = handbook();
        let prose = "Utilize Confluence to login.";
        let mut hits = Vec::new();
        push_match(&gov.terms[0], 0..7, prose, &mut hits);
        push_match(&gov.terms[1], 8..18, prose, &mut hits);
        push_match(&gov.terms[2], 22..27, prose, &mut hits);
        assert_eq!(
            rows(hits),
            vec![
                (
                    "terms.forbidden",
                    Severity::Major,
                    0..7,
                    "`Utilize` is forbidden here: Plain words".to_owned(),
                    Some("use".to_owned())
                ),
                (
                    "terms.competitor",
                    Severity::Critical,
                    8..18,
                    "`Confluence` is a competitor's name".to_owned(),
                    None
                ),
                (
                    "terms.deprecated",
                    Severity::Minor,
                    22..27,
                    "`login` is deprecated".to_owned(),
                    Some("sign in".to_owned())
                ),
            ]
        );
    }

    #[test]
    fn guidance_statuses_give_nothing_and_an_entry_severity_overrides() {
        let gov = handbook();
        let prose = "sign in, log on, frobnicate, leverage";
        let mut hits = Vec::new();
        push_match(&gov.terms[3], 0..7, prose, &mut hits);
        push_match(&gov.terms[4], 9..15, prose, &mut hits);
        push_match(&gov.terms[5], 17..27, prose, &mut hits);
        push_match(&gov.terms[6], 29..37, prose, &mut hits);
        assert_eq!(
            rows(hits),
            vec![(
                "terms.forbidden",
                Severity::Critical,
                29..37,
                "`leverage` is forbidden here".to_owned(),
                None
            )]
        );
    }

    #[test]
    fn a_term_across_a_line_break_is_named_on_one_line() {
        let gov = handbook();
        let prose = "Use single\n  sign-on now";
        let mut hits = Vec::new();
        push_match(&gov.terms[7], 4..20, prose, &mut hits);
        assert_eq!(hits[0].message, "`single sign-on` is forbidden here");
    }

    #[test]
    fn no_terms_no_work() {
        let mut hits = Vec::new();
        check(&Governance::empty(), "utilize everything", &mut hits);
        assert!(hits.is_empty());
    }

    /// Needs the real term matcher (`governance/matcher.rs`).
    #[test]
    fn matcher_hits_become_hits_by_status() {
        let gov = handbook();
        let prose = "Please utilize Confluence to login, then sign in. Leverage it.";
        let mut hits = Vec::new();
        check(&gov, prose, &mut hits);
        assert_eq!(
            rows(hits),
            vec![
                (
                    "terms.forbidden",
                    Severity::Major,
                    7..14,
                    "`utilize` is forbidden here: Plain words".to_owned(),
                    Some("use".to_owned())
                ),
                (
                    "terms.competitor",
                    Severity::Critical,
                    15..25,
                    "`Confluence` is a competitor's name".to_owned(),
                    None
                ),
                (
                    "terms.deprecated",
                    Severity::Minor,
                    29..34,
                    "`login` is deprecated".to_owned(),
                    Some("sign in".to_owned())
                ),
                (
                    "terms.forbidden",
                    Severity::Critical,
                    50..58,
                    "`Leverage` is forbidden here".to_owned(),
                    None
                ),
            ]
        );
    }
}
