//! GitHub Actions output: one workflow command per finding, so findings show as annotations
//! on the pull request, a `::notice` per stale translation, and a closing `::notice::` with
//! the verdict.
//!
//! ```text
//! ::error file=docs/a.md,line=4,col=12,endLine=4,endColumn=19,title=terms.forbidden::`utilize` is forbidden here (use instead: use)
//! ::notice::kapi check: FAIL, score 94/100, 2 findings (0 critical, 1 major, 1 minor, 0 info); 1 finding at major or worse
//! ```

use std::fmt::Write as _;

use crate::check::report::CheckReport;
use crate::governance::Severity;

/// Renders the report as GitHub Actions workflow commands, one line each.
pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        let command = match finding.severity {
            Severity::Critical | Severity::Major => "error",
            Severity::Minor => "warning",
            Severity::Info => "notice",
        };
        let mut properties = vec![format!("file={}", escape_property(&finding.path))];
        if finding.line > 0 {
            properties.push(format!("line={}", finding.line));
            properties.push(format!("col={}", finding.column));
            if let Some(matched) = finding.matched.as_deref().filter(|m| !m.is_empty()) {
                // The end, from the text as written: lines it spans, characters on the last.
                let breaks = matched.matches('\n').count();
                let last = matched
                    .rsplit('\n')
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .count();
                let (end_line, end_column) = if breaks == 0 {
                    (finding.line, finding.column + last)
                } else {
                    (finding.line + breaks, last + 1)
                };
                properties.push(format!("endLine={end_line}"));
                properties.push(format!("endColumn={end_column}"));
            }
        }
        properties.push(format!("title={}", escape_property(&finding.rule)));
        // The location is the command's own; the words are every text output's.
        let _ = writeln!(
            out,
            "::{command} {}::{}",
            properties.join(","),
            escape_data(&finding.advice())
        );
    }
    // A translation a changed source block left behind: pending work, a notice.
    for stale in &report.stale {
        let _ = writeln!(
            out,
            "::notice file={},title=stale translation::{}",
            escape_property(&stale.path),
            escape_data(&format!("`{}` changed; {}", stale.block, stale.message))
        );
    }
    let summary = &report.summary;
    let noun = if summary.findings == 1 {
        "finding"
    } else {
        "findings"
    };
    let mut verdict = format!(
        "kapi check: {}, score {}/100, {} {noun} ({} critical, {} major, {} minor, {} info)",
        if report.pass { "PASS" } else { "FAIL" },
        summary.score,
        summary.findings,
        summary.critical,
        summary.major,
        summary.minor,
        summary.info,
    );
    if report.truncated > 0 {
        let _ = write!(
            verdict,
            "; {} more not annotated (the report holds {})",
            report.truncated,
            report.findings.len()
        );
    }
    for reason in &report.gate.failed {
        let _ = write!(verdict, "; {reason}");
    }
    let _ = writeln!(out, "::notice::{}", escape_data(&verdict));
    out
}

/// Escapes a command's message (`%`, CR, LF), as `@actions/core` does.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes a command's property value: the message escapes plus `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::check::Finding;
    use crate::check::report::{Coverage, Gate, Target};

    /// A small report: one finding per severity, one with no location, awkward characters.
    pub(crate) fn sample() -> CheckReport {
        let finding =
            |rule: &str, severity, line, column, start, end, matched: Option<&str>| Finding {
                link: None,
                rule: rule.to_owned(),
                severity,
                path: "docs/a, b.md".to_owned(),
                line,
                column,
                start,
                end,
                block: (line > 0).then(|| "intro/p".to_owned()),
                message: format!("{rule}: 100% sure\nsecond line"),
                matched: matched.map(str::to_owned),
                suggestion: None,
            };
        let mut forbidden = finding(
            "terms.forbidden",
            Severity::Major,
            4,
            12,
            57,
            64,
            Some("utilize"),
        );
        forbidden.message = "`utilize` is forbidden here: Plain words".to_owned();
        forbidden.suggestion = Some("use".to_owned());
        let findings = vec![
            forbidden,
            finding(
                "terms.competitor",
                Severity::Critical,
                2,
                1,
                10,
                20,
                Some("Confluence"),
            ),
            finding(
                "hygiene.repeated-word",
                Severity::Minor,
                7,
                3,
                90,
                102,
                Some("the\r\n  the"),
            ),
            finding("voice.required-pattern", Severity::Info, 0, 0, 0, 0, None),
        ];
        let target = Target {
            kind: "files".into(),
            paths: vec!["docs".into()],
            files: 1,
            blocks: 3,
            diff_against: None,
        };
        CheckReport::build(
            target,
            findings,
            Gate::default(),
            Coverage::default(),
            vec![],
        )
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;

    #[test]
    fn findings_become_workflow_commands_with_escaped_values() {
        insta::assert_snapshot!(render(&tests::sample()));
    }

    #[test]
    fn a_stale_translation_is_a_notice_and_never_fails() {
        let mut report = tests::sample();
        report.stale.push(crate::check::StaleTranslation {
            path: "locales/en.json".into(),
            block: "greeting".into(),
            lang: "fr".into(),
            target: "locales/fr.json".into(),
            message: "its `fr` translation in locales/fr.json was not updated with it".into(),
        });
        let out = render(&report);
        assert!(out.contains("::notice file=locales/en.json,title=stale translation::`greeting` changed; its `fr` translation in locales/fr.json was not updated with it\n"), "{out}");
    }

    #[test]
    fn a_truncated_report_says_how_many_findings_are_not_annotated() {
        let mut report = tests::sample();
        report.truncated = 7;
        let out = render(&report);
        assert!(
            out.contains("; 7 more not annotated (the report holds 4)"),
            "{out}"
        );
        assert!(!render(&tests::sample()).contains("not annotated"));
    }

    #[test]
    fn escapes_follow_the_actions_toolkit() {
        assert_eq!(escape_data("50%\r\nok: a,b"), "50%25%0D%0Aok: a,b");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
