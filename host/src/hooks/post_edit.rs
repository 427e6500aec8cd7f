//! `kapi hook post-edit`: the writing check on the file an edit wrote, so the assistant fixes
//! it before it reports done; the file is recorded as the session's for the stop hook (which,
//! on Kiki, is the only way its findings reach the model).
//!
//! A file outside any project, kapi's own files, an excluded file and a format kapi does not
//! read are nothing to report. A file the edit named that is not there is a guard that could not
//! run (it warns). A catalog's translation target is checked through its source, which checks
//! every translation beside it.

use std::path::Path;

use super::eval::{self, Ctx};
use super::protocol::Verdict;
use super::state;
use crate::app::Base;
use crate::check::{CheckRequest, check};
use crate::error::HostError;

enum Outcome {
    Skip,
    Pass,
    Fail(String),
    DidNotRun(String),
    CouldNot(String),
}

pub fn evaluate(ctx: &Ctx) -> Verdict {
    let paths = match eval::guarded_paths(ctx, false) {
        Ok(paths) => paths,
        Err(verdict) => return verdict,
    };
    let mut fails = Vec::new();
    let mut did_not_run = Vec::new();
    let mut could_not = Vec::new();
    for path in &paths {
        let abs = match ctx.absolute(path) {
            Ok(abs) => abs,
            Err(message) => {
                could_not.push(message);
                continue;
            }
        };
        match check_one(ctx, &abs) {
            Outcome::Skip | Outcome::Pass => {}
            Outcome::Fail(reason) => fails.push(reason),
            Outcome::DidNotRun(cause) => did_not_run.push(cause),
            Outcome::CouldNot(message) => could_not.push(message),
        }
    }
    if !fails.is_empty() {
        let mut reason = fails.join("\n\n");
        for cause in did_not_run.iter().chain(&could_not) {
            reason.push_str(&format!("\n(also: {cause})"));
        }
        return Verdict::Negative { reason };
    }
    if !did_not_run.is_empty() {
        return Verdict::GatesDidNotRun {
            cause: did_not_run.join("; "),
        };
    }
    if !could_not.is_empty() {
        return Verdict::CouldNotRun {
            message: could_not.join("; "),
        };
    }
    Verdict::Nothing
}

fn check_one(ctx: &Ctx, abs: &Path) -> Outcome {
    ctx.phase
        .set(format!("finding the project of {}", abs.display()));
    let project = match ctx.project_for(abs) {
        Ok(Some(p)) => p,
        Ok(None) => return Outcome::Skip,
        Err(e) => return Outcome::CouldNot(e.to_string()),
    };
    let app = ctx.app(&project);
    // Resolved once, whether or not the edit left it there: outside the project is nothing
    // to report.
    let path = match app.resolve_target(Base::WorkingFolder, Some(&project), abs) {
        Ok(path) => path,
        Err(HostError::OutsideProject { .. }) => return Outcome::Skip,
        Err(e) => return Outcome::DidNotRun(e.to_string()),
    };
    let rel = path.rel().unwrap_or_default().to_owned();
    let collections = match project.collections() {
        Ok(c) => c,
        Err(e) => return Outcome::CouldNot(e.to_string()),
    };
    if !path.exists() {
        return Outcome::CouldNot(format!("{rel}, the file the edit names, does not exist"));
    }
    // A translation target is checked against its source: `check` decides how (check::plan).
    match eval::is_content(&project, &collections, &path) {
        Ok(true) => {}
        Ok(false) => return Outcome::Skip,
        Err(e) => return Outcome::CouldNot(e.to_string()),
    }
    ctx.phase.set(format!("checking {rel}"));
    let shown = path.display().to_owned();
    let request = CheckRequest {
        resolved: vec![path],
        ..CheckRequest::default()
    };
    let outcome = match check(&app, &request, &()) {
        Ok(run) if run.report.pass => Outcome::Pass,
        Ok(run) => Outcome::Fail(format!(
            "kapi check: {shown} does not pass the project's gate {}\nFix these in {shown} before you report done; `kapi check {shown}` runs the same check, and `kapi context {shown}` gives the voice and terms that apply.",
            eval::failure(&run.report)
        )),
        Err(e) => Outcome::DidNotRun(format!("{rel}: {e}")),
    };
    record(ctx, &project.root, &rel);
    outcome
}

/// Records the file as the session's for the stop hook, and a new edit (which resets the
/// consecutive stop-block count); the session's baseline too when this is its first hook
/// ([`super::baseline`]: the file just edited is the session's whatever the baseline says).
fn record(ctx: &Ctx, root: &Path, rel: &str) {
    // Recording is best effort: the verdict above stands without it.
    let session = ctx.session();
    let first = state::update(root, &session, |s| {
        s.record_edit(rel);
        s.baseline.is_none()
    });
    if first == Ok(true) {
        let taken = super::baseline::take(root);
        let _ = state::update(root, &session, |s| {
            s.baseline.get_or_insert(taken);
        });
    }
}
