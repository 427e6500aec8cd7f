//! `terms`: words the project's terms and voice vocabulary tell writers to avoid, and product
//! names written in another case or punctuation than the project writes them. Every match
//! of the governance's term matcher in a block's prose becomes a hit by the term's status
//! (preferred, admitted and suggested terms give nothing), and every variant of a
//! case-sensitive preferred or admitted term a `terms.case` hit (what a variant is:
//! `governance/variants.rs`).
//!
//! A match inside one of its term's `exceptions:` phrases is still pushed, with
//! `suppressed_by` naming the exception and where it is declared, so the report can count
//! and list it; it is never a finding.

use super::rule::{Rule, declare_rule};
use crate::check::{Hit, Sink};
use crate::governance::{Governance, Severity, TermEntry, TermMatch, TermStatus};

declare_rule! {
    /// ## What it flags
    /// A term the project forbids (`status: forbidden` in `.kapi/terms.yaml`, or the voice's
    /// `vocabulary.forbidden`), matched as a whole word, except inside a phrase its
    /// `exceptions:` allow (`ReactJS Day` for a forbidden `ReactJS`). A URL, domain, e-mail
    /// address, `@handle` or file path is no word: a forbidden `whitelist` inside
    /// `https://example.com/whitelist-guide` or `legacy.whitelist.org` is not flagged; the same
    /// word in a sentence is.
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
    /// `vocabulary.competitor`), matched as a whole word, except inside a phrase its
    /// `exceptions:` allow, or inside a URL, domain, e-mail address, `@handle` or file path.
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
    /// concept's preferred term; not inside a phrase its `exceptions:` allow, nor inside a
    /// URL, domain, e-mail address, `@handle` or file path.
    ///
    /// ## Why it matters
    /// Two names for one thing make readers wonder whether they are two things, and make
    /// search and translation inconsistent.
    ///
    /// ## Example
    /// `Enter your login details.` Use instead: `Enter your sign-in details.`
    pub DEPRECATED = "terms.deprecated", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A product name written in another case or punctuation than the project writes it: a
    /// preferred or admitted term with `case: sensitive` in `.kapi/terms.yaml` (`JavaScript`,
    /// `GitHub`, `Node.js`, `npm`) found as `Javascript`, `github`, `NodeJS`, `Node.JS` or
    /// `NPM`. Case may differ anywhere; a `.` or `-` between the term's parts may be dropped,
    /// swapped or put where its case changes (`Git-Hub`); spaces may not (`Java Script` is
    /// not flagged). Not flagged: the name inside a longer one (`rust-analyzer`, `github.io`,
    /// `npm-run-all`, `~/.cargo`, `@github`, `#typescript`); an all-lower-case term (`npm`)
    /// capitalised at the start of a
    /// sentence, heading, list item or table cell (`Npm`; `NPM` is still flagged); a name in
    /// capitals between words in capitals. A term declared for the same spelling (a
    /// forbidden `Github`) reports as itself instead. The term's own `severity` replaces the
    /// default; a phrase in the term's `exceptions:` allows it.
    ///
    /// ## Why it matters
    /// A name is part of a brand and of what readers search for; a misspelt one looks careless
    /// and may name something else (`Node.JS`, `Github`).
    ///
    /// ## Example
    /// `Install Node.JS and push to Github.` Use instead: `Install Node.js and push to GitHub.`
    pub CASE = "terms.case", Severity::Minor
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
    gov.matcher.find_each_variant(prose, |found| {
        if let Some(entry) = gov.terms.get(found.entry) {
            push_match(entry, &found, prose, hits);
        }
    });
}

/// Pushes the hit one match of `entry` in `prose` gives, if it reports: under the term's
/// status, or `terms.case` for a variant; suppressed when it stands inside an exception.
fn push_match(entry: &TermEntry, found: &TermMatch, prose: &str, hits: &mut dyn Sink) {
    let rule = if found.variant {
        &CASE
    } else {
        let Some(rule) = rule_for(entry.status) else {
            return;
        };
        rule
    };
    let Some(written) = prose.get(found.range.clone()) else {
        return;
    };
    let suggestion = if found.variant {
        Some(entry.text.trim().to_owned())
    } else {
        entry.replacement.clone()
    };
    hits.push(Hit {
        rule,
        severity: entry.severity.unwrap_or(rule.severity),
        range: found.range.clone(),
        message: message(entry, found.variant, written),
        suggestion,
        suppressed_by: found
            .exception
            .and_then(|i| entry.exceptions.get(i))
            .map(|exception| exception.allows(&entry.text)),
    });
}

fn message(entry: &TermEntry, variant: bool, written: &str) -> String {
    // A multi-word term may be matched across a line break: name it on one line.
    let mut shown = String::with_capacity(written.len());
    for (i, word) in written.split_whitespace().enumerate() {
        if i > 0 {
            shown.push(' ');
        }
        shown.push_str(word);
    }
    let mut message = match entry.status {
        _ if variant => format!("`{shown}` is not how this project writes it"),
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
    use std::ops::Range;

    use super::*;
    use crate::governance::TermMatcher;

    fn entry(text: &str, status: TermStatus) -> TermEntry {
        TermEntry::new(text, "en", status)
    }

    /// A plain match of entry 0 (the tests pass the entry itself).
    fn plain(range: Range<usize>) -> TermMatch {
        TermMatch {
            entry: 0,
            range,
            variant: false,
            exception: None,
        }
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
        push_match(&gov.terms[0], &plain(0..7), prose, &mut hits);
        push_match(&gov.terms[1], &plain(8..18), prose, &mut hits);
        push_match(&gov.terms[2], &plain(22..27), prose, &mut hits);
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
        push_match(&gov.terms[3], &plain(0..7), prose, &mut hits);
        push_match(&gov.terms[4], &plain(9..15), prose, &mut hits);
        push_match(&gov.terms[5], &plain(17..27), prose, &mut hits);
        push_match(&gov.terms[6], &plain(29..37), prose, &mut hits);
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
        push_match(&gov.terms[7], &plain(4..20), prose, &mut hits);
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

    fn sensitive(text: &str, status: TermStatus) -> TermEntry {
        TermEntry {
            case_sensitive: true,
            ..entry(text, status)
        }
    }

    fn found(gov: &Governance, prose: &str) -> Vec<Row> {
        let mut hits = Vec::new();
        check(gov, prose, &mut hits);
        rows(hits)
    }

    #[test]
    fn a_variant_of_a_case_sensitive_name_is_a_case_hit_with_the_name() {
        let mut node = sensitive("Node.js", TermStatus::Preferred);
        node.severity = Some(Severity::Major);
        let gov = governance(vec![
            sensitive("JavaScript", TermStatus::Preferred),
            node,
            sensitive("npm", TermStatus::Admitted),
            sensitive("GitHub", TermStatus::Forbidden),
        ]);
        let prose = "Npm runs Javascript on NodeJS. JavaScript, Node.js and npm are right; NPM and Github are not.";
        let got = found(&gov, prose);
        let case = |written: &str, severity, suggestion: &str| {
            let at = prose.find(written).expect("in prose");
            (
                "terms.case",
                severity,
                at..at + written.len(),
                format!("`{written}` is not how this project writes it"),
                Some(suggestion.to_owned()),
            )
        };
        assert_eq!(
            got,
            vec![
                case("Javascript", Severity::Minor, "JavaScript"),
                case("NodeJS", Severity::Major, "Node.js"),
                case("NPM", Severity::Minor, "npm"),
            ],
            "a forbidden case-sensitive term has no variants; `Npm` starts the sentence"
        );
    }

    #[test]
    fn a_declared_term_wins_over_a_variant_on_the_same_words() {
        let mut github = sensitive("Github", TermStatus::Forbidden);
        github.replacement = Some("GitHub".to_owned());
        let gov = governance(vec![sensitive("GitHub", TermStatus::Preferred), github]);
        let got = found(&gov, "Push to Github, then github.");
        let ids: Vec<(&str, Range<usize>)> = got.iter().map(|r| (r.0, r.2.clone())).collect();
        assert_eq!(
            ids,
            vec![("terms.forbidden", 8..14), ("terms.case", 21..27)]
        );
    }

    #[test]
    fn a_match_inside_an_exception_is_suppressed_and_names_it() {
        let mut react = entry("ReactJS", TermStatus::Forbidden);
        react.replacement = Some("React".to_owned());
        react.exceptions = vec![crate::governance::TermException {
            text: "ReactJS Day".to_owned(),
            at: Some(".kapi/terms.yaml:14".to_owned()),
        }];
        let gov = governance(vec![react]);
        let prose = "Meet us at reactjs   day. ReactJS is old.";
        let mut hits = Vec::new();
        check(&gov, prose, &mut hits);
        let got: Vec<(Range<usize>, Option<&str>)> = hits
            .iter()
            .map(|h| (h.range.clone(), h.suppressed_by.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    11..18,
                    Some("exception `ReactJS Day` of `ReactJS` (.kapi/terms.yaml:14)")
                ),
                (26..33, None),
            ]
        );
    }
}
