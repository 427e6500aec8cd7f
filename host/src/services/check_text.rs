//! `check_text`: the `kapi.check/v1` report over a text no file holds yet, bound where it
//! will be saved ([`super::text_scope`]). MCP's `check_text` and `kapi check --text`.

use kapi_core::check::{self, CheckReport, Coverage, FileTally, Scoring, Target};

use super::text_scope::{TextRequest, check_read, render, scope};
use crate::app::App;
use crate::error::HostError;

/// The report, and notes for the reader (stderr on the CLI, the text on MCP).
#[derive(Debug)]
pub struct TextCheck {
    pub report: CheckReport,
    pub notes: Vec<String>,
}

/// Checks the request's text with every analyzer, as `kapi check` checks a file.
pub fn check_text(app: &App, mut request: TextRequest) -> Result<TextCheck, HostError> {
    let scope = scope(app, &request)?;
    let read = check_read(&mut request, &scope, &|_| true)?;
    let (prose, words) = (read.prose, read.words);
    let (found, suppressed, suppressed_count) = read.settle(&scope.display, true);
    let gov = &scope.governance;
    let mut coverage = Coverage::default();
    coverage.add(&scope.display, &gov.unassessed);
    let mut ran = vec!["hygiene"];
    if !gov.terms.is_empty() {
        ran.push("terms");
    }
    if gov.voice.is_some() {
        ran.push("voice");
    }
    coverage.ran = check::ANALYZERS
        .iter()
        .filter(|a| ran.contains(a))
        .map(|a| (*a).to_owned())
        .collect();
    let target = Target {
        kind: "text".into(),
        paths: scope.context_path.iter().cloned().collect(),
        files: 1,
        blocks: prose,
        diff_against: None,
    };
    let mut notes = scope.notes.clone();
    if scope.format.info().capabilities.bilingual {
        notes.push(format!(
            "a {} text is checked on its source editions; save it and check the file (`check_file`, or `kapi check FILE`) to check its translations too",
            scope.format.info().name
        ));
    }
    let mut file = FileTally {
        path: scope.display.clone(),
        words,
        counts: found.counts(),
        min_score: None,
    };
    if let (Some(min), Some(source)) = (
        gov.voice.as_ref().and_then(|v| v.min_score),
        gov.voice_source.as_ref(),
    ) {
        file.min_score = Some((min, source.clone()));
    }
    let scoring = Scoring {
        files: vec![file],
        suppressed,
        suppressed_count,
    };
    let mut report = CheckReport::build_scored(
        target,
        found,
        scope.gate,
        coverage,
        vec![gov.fingerprint.clone()],
        scoring,
    );
    report.hold_at_most(request.held());
    Ok(TextCheck { report, notes })
}

impl TextCheck {
    /// The text MCP answers with: the verdict, the findings, what ran, the notes.
    pub fn render(&self) -> String {
        let report = &self.report;
        let s = &report.summary;
        let mut out = format!(
            "{} · score {} · {} finding(s): {} critical, {} major, {} minor, {} info\n",
            if report.pass { "PASS" } else { "FAIL" },
            s.score,
            s.findings,
            s.critical,
            s.major,
            s.minor,
            s.info
        );
        for reason in &report.gate.failed {
            out.push_str(&format!("Gate: {reason}\n"));
        }
        render::findings(&mut out, &report.findings);
        render::truncated(&mut out, report.truncated, report.findings.len());
        render::suppressed(&mut out, report.summary.suppressed);
        out.push_str(&format!("Ran: {}\n", report.coverage.ran.join(", ")));
        render::unassessed(
            &mut out,
            (report.coverage.unassessed.iter()).map(|u| (u.guidance.as_str(), u.value.as_str())),
        );
        render::notes(&mut out, &self.notes);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::text_scope::tests::{Fixture, at, rules};
    use super::super::text_scope::{BOTH_SCOPES, SNIPPET};
    use super::*;

    #[test]
    fn check_text_binds_the_destination_and_reports_like_kapi_check() {
        let fx = Fixture::new();
        let app = fx.app();
        let good = check_text(
            &app,
            at("Select **Save** to sign in.\n", Some("docs/guide.md")),
        )
        .unwrap()
        .report;
        assert!(good.pass, "{good:?}");
        assert!(good.findings.is_empty());
        assert_eq!(good.schema, "kapi.check/v1");
        assert_eq!(good.target.paths, ["docs/guide.md"]);
        assert_eq!(good.coverage.ran, ["hygiene", "terms", "voice"]);

        let bad = check_text(
            &app,
            at(
                "# Guide\n\nSimply utilize Confluence to login.\n",
                Some("docs/guide.md"),
            ),
        )
        .unwrap()
        .report;
        assert!(!bad.pass);
        assert_eq!(
            rules(&bad.findings),
            [
                "voice.prohibited-pattern",
                "terms.forbidden",
                "terms.competitor",
                "terms.deprecated"
            ]
        );
        let forbidden = &bad.findings[1];
        assert_eq!(forbidden.path, "docs/guide.md");
        assert_eq!((forbidden.line, forbidden.column), (3, 8));
        assert_eq!(forbidden.suggestion.as_deref(), Some("use"));

        let held = check_text(
            &app,
            TextRequest {
                hold: Some(1),
                ..at("Simply utilize Confluence.\n", None)
            },
        )
        .unwrap()
        .report;
        assert_eq!((held.findings.len(), held.truncated), (1, 2));
        assert_eq!(
            held.summary.findings, 3,
            "the summary counts what is not listed"
        );
    }

    #[test]
    fn check_text_refuses_a_profile_with_a_context_path_and_a_path_outside() {
        let fx = Fixture::new();
        let app = fx.app();
        let both = TextRequest {
            profile: Some("web".into()),
            ..at("Hello.", Some("docs/a.md"))
        };
        let e = check_text(&app, both).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Usage);
        assert!(e.to_string().contains(BOTH_SCOPES), "{e}");

        let e = check_text(&app, at("Hello.", Some("../elsewhere/a.md"))).unwrap_err();
        assert!(matches!(e, HostError::OutsideProject { .. }), "{e}");
        assert!(e.to_string().contains("../elsewhere/a.md"), "{e}");

        let unknown = TextRequest {
            profile: Some("nope".into()),
            ..at("Hello.", None)
        };
        let e = check_text(&app, unknown).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn check_text_with_a_profile_or_no_project() {
        let fx = Fixture::new();
        let by_profile = TextRequest {
            profile: Some("web".into()),
            ..at("Please login.\n", None)
        };
        let report = check_text(&fx.app(), by_profile).unwrap().report;
        assert_eq!(rules(&report.findings), ["terms.deprecated"]);
        assert_eq!(report.findings[0].path, SNIPPET);

        // Outside a project: hygiene alone, and a destination is refused.
        let empty = tempfile::tempdir().unwrap();
        let env = crate::env::Env {
            no_project: true,
            ..Default::default()
        };
        let app = App::new(env, empty.path().to_path_buf(), None);
        let TextCheck { report, notes } = check_text(&app, at("Please login.\n", None)).unwrap();
        assert!(report.pass && report.findings.is_empty());
        assert_eq!(report.coverage.ran, ["hygiene"]);
        assert!(notes[0].contains("no kapi project"), "{notes:?}");
        let e = check_text(&app, at("x", Some("docs/a.md"))).unwrap_err();
        assert!(matches!(e, HostError::NoProject { .. }), "{e}");
    }

    #[test]
    fn check_text_reads_with_the_format_named() {
        let fx = Fixture::new();
        let json = TextRequest {
            format: Some("json".into()),
            ..at("{\"title\": \"Please login\"}", None)
        };
        let report = check_text(&fx.app(), json).unwrap().report;
        assert_eq!(rules(&report.findings), ["terms.deprecated"]);
        assert_eq!(report.findings[0].block.as_deref(), Some("title"));
        let bad = TextRequest {
            format: Some("nope".into()),
            ..at("x", None)
        };
        let e = check_text(&fx.app(), bad).unwrap_err();
        assert!(matches!(e, HostError::UnknownFormatId { .. }), "{e}");
        let broken = TextRequest {
            format: Some("json".into()),
            ..at("{\"a\": ", None)
        };
        assert!(matches!(
            check_text(&fx.app(), broken),
            Err(HostError::Read { .. })
        ));
    }
}
