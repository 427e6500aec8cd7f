//! Vale's `--output=line` shape: one `path:line:column:rule:message` line per finding, so the
//! scripts and editor integrations written for Vale read kapi's findings unchanged.
//!
//! ```text
//! docs/a.md:4:12:terms.forbidden:`utilize` is forbidden here (use instead: use); use `use`
//! ```
//!
//! Only findings are printed (no summary, no stale translations), as Vale prints only alerts;
//! the exit code still follows the gate. A line break in a message is printed as a space, so a
//! finding is always one line. A finding about the whole file (no position) is at `0:0`.

use std::fmt::Write as _;

use crate::check::report::CheckReport;

/// Renders the report's findings as Vale's line output.
pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        let advice = finding.advice().replace(['\r', '\n'], " ");
        let _ = writeln!(
            out,
            "{}:{}:{}:{}:{advice}",
            finding.path, finding.line, finding.column, finding.rule
        );
    }
    out
}
