//! Vale's `--output=line` shape: one `path:line:column:rule:message` line per finding, so the
//! scripts and editor integrations written for Vale read kapi's findings unchanged.
//!
//! ```text
//! docs/a.md:4:12:terms.forbidden:`utilize` is forbidden here (use instead: use); use `use`
//! ```
//!
//! Only findings are printed (no summary, no stale translations), as Vale prints only alerts,
//! in Vale's order: by file, then line, then column; the exit code still follows the gate. A
//! Vale rule's finding prints Vale's message as it is; kapi's own rules print their advice
//! (the message, what matched and what to write instead). A line break in a message is printed as a space, so a
//! finding is always one line. A finding about the whole file (no position) is at `0:0`.

use std::fmt::Write as _;

use crate::check::report::CheckReport;

/// Renders the report's findings as Vale's line output.
pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    let mut findings: Vec<&crate::check::Finding> = report.findings.iter().collect();
    findings.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    for finding in findings {
        let text = match crate::check::analyzers::rule::find(&finding.rule) {
            Some(_) => finding.advice(),
            None => finding.message.clone(),
        };
        let advice = text.replace(['\r', '\n'], " ");
        let _ = writeln!(
            out,
            "{}:{}:{}:{}:{advice}",
            finding.path, finding.line, finding.column, finding.rule
        );
    }
    out
}
