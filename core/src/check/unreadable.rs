//! `read.unreadable`: a file a check was to read and could not (binary, not valid text, a
//! syntax error, no permission, too large). One such file is a finding in the report, not the
//! end of the check: every other file is still checked and the report still printed.

use super::Finding;
use super::analyzers::rule::declare_rule;
use crate::governance::Severity;

declare_rule! {
    /// ## What it flags
    /// A file in the check that kapi could not read: binary content, bytes that are not valid
    /// text, a syntax error its format's reader refuses, no permission to read it, or a file
    /// past kapi's size limit. The message names why and where; the rest of the check goes on.
    ///
    /// ## Why it matters
    /// What kapi cannot read it cannot check: the gate must not pass over it in silence, and one
    /// broken file must not hide the findings of every other one.
    ///
    /// ## Example
    /// `docs/logo.md` holds an image saved under a Markdown name. Use instead: rename it, or
    /// exclude it with `defaults.exclude` in `kapi.yaml`.
    pub UNREADABLE = "read.unreadable", Severity::Critical
}

/// The finding for `path` (as the report names it) that could not be read, and why (`error`,
/// with the fix when there is one).
pub fn finding(path: &str, error: &str, fix: Option<&str>) -> Finding {
    let message = match fix {
        Some(fix) => format!("kapi could not read the file: {error}; {fix}"),
        None => format!("kapi could not read the file: {error}"),
    };
    Finding {
        link: None,
        rule: UNREADABLE.id.to_owned(),
        severity: UNREADABLE.severity,
        path: path.to_owned(),
        line: 0,
        column: 0,
        start: 0,
        end: 0,
        block: None,
        message,
        matched: None,
        suggestion: None,
    }
}
