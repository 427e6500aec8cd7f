//! `term_check`: the terms analyzer's findings alone on a text (`terms.*`), and every project
//! term found in it with its status. MCP's `term-check` and `kapi check --text --only terms`.

use kapi_core::check::not_words::Addresses;
use kapi_core::check::{Finding, Rule, Summary, Suppressed};
use kapi_core::governance::TermStatus;
use kapi_core::text::{LineIndex, Prose};
use serde::Serialize;

use super::text_scope::{TextRequest, is_set, is_zero, locate, read_blocks, render, scope, settle};
use crate::app::App;
use crate::error::HostError;

/// One term of the project found in the text, whatever its status.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FoundTerm {
    /// As written in the text.
    pub text: String,
    /// The term as the project declares it.
    pub term: String,
    pub status: TermStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub line: usize,
    pub column: usize,
    pub start: usize,
    pub end: usize,
    pub block: String,
}

/// `kapi.term-check/v1`: the terms analyzer's findings and every term found.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TermCheck {
    pub schema: &'static str,
    pub lang: String,
    /// No `terms.*` finding fails the gate, and the score meets its minimum when one is set.
    pub pass: bool,
    pub summary: Summary,
    pub findings: Vec<Finding>,
    /// Findings the summary counts that `findings` does not hold (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: usize,
    /// The terms found, the first the request holds in the text.
    pub terms: Vec<FoundTerm>,
    /// Terms found past those listed, counted (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub terms_truncated: usize,
    /// Findings the project allows where they stand, each with what allowed it (absent when
    /// none; `summary.suppressed` counts every one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<Suppressed>,
    pub notes: Vec<String>,
}

/// Checks the request's text against the terms in force for its language.
pub fn term_check(app: &App, mut request: TextRequest) -> Result<TermCheck, HostError> {
    let scope = scope(app, &request)?;
    let gov = &scope.governance;
    let cancel = request.cancel.clone();
    let hold = request.held();
    let keep = |rule: &Rule| rule.analyzer() == "terms";
    let mut check = scope.document_check(&request, cancel.as_deref(), &keep);
    let mut lines = None;
    let mut terms = Vec::new();
    let mut terms_truncated = 0;
    // A block at a time as the text is read: the document is never held.
    read_blocks(&mut request, &scope, &mut |source, block| {
        check.block(source, &block);
        if !block.translatable || is_set(cancel.as_deref()) {
            return;
        }
        let lines = lines.get_or_insert_with(|| LineIndex::new(source));
        let prose = Prose::from_edition(&block.source);
        // A term inside a URL, domain or path is not a word (nor a finding): not listed.
        let mut addresses = None;
        gov.matcher.find_each(&prose.text, |m| {
            if addresses
                .get_or_insert_with(|| Addresses::scan(&prose.text))
                .hides(&prose.text, &m.range)
            {
                return;
            }
            if terms.len() >= hold {
                terms_truncated += 1;
                return;
            }
            let Some(entry) = gov.terms.get(m.entry) else {
                return;
            };
            let (start, end) = locate(&prose, &m.range, source).unwrap_or_else(|| {
                let at = prose.file_offset(m.range.start).unwrap_or(block.span.start);
                (at, at)
            });
            let (line, column) = lines.position(source, start);
            terms.push(FoundTerm {
                text: prose.text.get(m.range.clone()).unwrap_or("").to_owned(),
                term: entry.text.clone(),
                status: entry.status,
                concept: entry.concept.clone(),
                replacement: entry.replacement.clone(),
                note: entry.note.clone(),
                line,
                column,
                start,
                end,
                block: block.key.clone(),
            });
        });
    })?;
    request.not_cancelled()?;
    let checked = check.finish_checked();
    let words = checked.words;
    let mut allowed = checked.suppression.finish(&scope.display, false);
    let (mut summary, pass, findings, truncated) = settle(checked.findings, &scope.gate, hold);
    summary.suppressed = allowed.count;
    summary.words = words;
    allowed.held.truncate(hold);
    terms.sort_by_key(|t| t.start);
    let mut notes = scope.notes.clone();
    if gov.terms.is_empty() {
        notes.push(format!(
            "no terms are in force here for `{}`: nothing to check against",
            scope.lang
        ));
    }
    Ok(TermCheck {
        schema: "kapi.term-check/v1",
        lang: scope.lang,
        pass,
        summary,
        findings,
        truncated,
        terms,
        terms_truncated,
        suppressed: allowed.held,
        notes,
    })
}

impl TermCheck {
    /// The verdict, the findings, each term found with its status, the notes.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{} · {} · {} finding(s), {} term(s) found\n",
            if self.pass { "PASS" } else { "FAIL" },
            self.lang,
            self.summary.findings,
            self.terms.len() + self.terms_truncated
        );
        render::findings(&mut out, &self.findings);
        render::truncated(&mut out, self.truncated, self.findings.len());
        render::suppressed(&mut out, self.summary.suppressed);
        for term in &self.terms {
            out.push_str(&format!(
                "- `{}` {}:{} is {}",
                term.text,
                term.line,
                term.column,
                term.status.as_str()
            ));
            if let Some(r) = &term.replacement {
                out.push_str(&format!(" (use `{r}`)"));
            }
            out.push('\n');
        }
        if self.terms_truncated > 0 {
            out.push_str(&format!(
                "… and {} more term(s) found, not listed\n",
                self.terms_truncated
            ));
        }
        render::notes(&mut out, &self.notes);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::text_scope::tests::{Fixture, at, rules};
    use super::*;

    fn terms(text: &str) -> TextRequest {
        at(text, Some("docs/a.md"))
    }

    #[test]
    fn a_term_inside_an_address_is_neither_found_nor_a_finding() {
        let fx = Fixture::new();
        let text = "See https://example.com/login and login.example.com, then login.\n";
        let report = term_check(&fx.app(), terms(text)).unwrap();
        assert_eq!(rules(&report.findings), ["terms.deprecated"]);
        let found: Vec<usize> = report.terms.iter().map(|t| t.start).collect();
        assert_eq!(found, [text.rfind("login").unwrap_or_default()]);
    }

    #[test]
    fn term_check_gives_the_terms_findings_and_every_term_found() {
        let fx = Fixture::new();
        let good = term_check(&fx.app(), terms("Simply sign in.\n")).unwrap();
        assert!(good.pass && good.findings.is_empty(), "{good:?}");
        assert_eq!(good.lang, "en");
        assert_eq!(good.terms.len(), 1);
        assert_eq!(good.terms[0].status, TermStatus::Preferred);
        assert_eq!((good.terms[0].start, good.terms[0].end), (7, 14));

        let bad = term_check(&fx.app(), terms("Please login, then sign in.\n")).unwrap();
        // A deprecated term is minor: the default gate (major) still passes.
        assert!(bad.pass && bad.summary.minor == 1);
        assert_eq!(rules(&bad.findings), ["terms.deprecated"]);
        let found: Vec<(&str, TermStatus)> = bad
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.status))
            .collect();
        assert_eq!(
            found,
            [
                ("login", TermStatus::Deprecated),
                ("sign in", TermStatus::Preferred)
            ]
        );
        assert_eq!(bad.terms[0].replacement.as_deref(), Some("sign in"));
        assert!(
            bad.render()
                .contains("- `login` 1:8 is deprecated (use `sign in`)\n")
        );

        let held = term_check(
            &fx.app(),
            TextRequest {
                hold: Some(1),
                ..terms("login, login, sign in\n")
            },
        )
        .unwrap();
        assert_eq!((held.terms.len(), held.terms_truncated), (1, 2));

        // A language with no terms of its own: nothing found, and the note says so.
        let fr = TextRequest {
            lang: Some("fr".into()),
            context_path: None,
            ..terms("Please login.\n")
        };
        let none = term_check(&fx.app(), fr).unwrap();
        assert_eq!(none.lang, "fr");
        assert!(none.findings.iter().all(|f| f.rule != "terms.deprecated"));
        assert!(none.terms.iter().all(|t| t.text != "login"));
    }
}
