//! `kapi hook stop`: holds a session to its own work — it blocks the stop for the failing
//! findings the session introduced in what it changed, says once that the project has others,
//! and never blocks forever.
//!
//! **What blocks.** The session's files ([`super::baseline`]: what post-edit checked for it, and
//! what the working tree changed since its first hook), each compared with how it was before the
//! session ([`super::own`]): only a failing finding the session introduced in a block it changed
//! blocks, as the commit check refuses only a finding an edit introduced. "Failing" is the ship
//! gate's `fail_on` (`gates.ship`, else the default gate), the threshold `kapi check --ship`
//! holds the project to; a minimum score gates the project, never one session's blocks. kapi's
//! own files (`.kapi/`, its rules sections) are never the session's to fix.
//!
//! **The rest of the project.** The ship gate still runs over the whole project (the check cache
//! answers for every file unchanged since the last check, so this costs little past the first
//! stop). When it fails by findings the session did not introduce, the stop says so once, as a
//! message that does not block (a `systemMessage` for Claude Code and Codex, stderr elsewhere): a
//! count and `kapi check --ship`, never the list. It is said again only when that set changes
//! (its digest is kept in the session's state). On Kiki, whose stop reads stderr as the reason
//! the model gets, it waits while the stop blocks, for the next stop kapi lets through.
//!
//! **Never twice, never forever.** A stop whose blocking findings are exactly those kapi blocked
//! the last stop for, with no edit post-edit saw since, is let through with a notice. Beside it
//! stays the loop guard: a stop is not blocked when the host says it already follows a
//! stop-hook continuation (`stop_hook_active`), nor after [`state::MAX_CONSECUTIVE_BLOCKS`]
//! blocks with no new edit, nor after [`state::MAX_SESSION_BLOCKS`] in the session, nor when kapi
//! cannot record its count: the person then gets a warning instead. On KKSS (whose TurnEnd only
//! observes) the verdict is a report, and no count is kept.

use std::collections::HashSet;

use kapi_core::check::{CheckReport, FailOn, Finding};
use kapi_core::governance::Severity;
use kapi_core::project::Project;
use sha2::{Digest, Sha256};

use super::Protocol;
use super::baseline::{self, Git};
use super::eval::{self, Ctx};
use super::own;
use super::protocol::Verdict;
use super::state;
use crate::app::{App, Base};
use crate::check::{CheckRequest, check};
use crate::error::HostError;

pub fn evaluate(ctx: &Ctx) -> Verdict {
    let Some(cwd) = ctx.cwd.clone() else {
        return Verdict::CouldNotRun {
            message:
                "the payload names no cwd, so kapi cannot tell which project the session works in"
                    .into(),
        };
    };
    ctx.phase.set("finding the project");
    let project = match ctx.project_for(&cwd) {
        Ok(Some(p)) => p,
        Ok(None) => return Verdict::Nothing,
        Err(e) => {
            return Verdict::CouldNotRun {
                message: e.to_string(),
            };
        }
    };
    let app = ctx.app(&project);
    let fail_on = crate::check::gate_for(Some(&project), None, None, true).fail_on;
    ctx.phase.set("running the ship gate");
    let ship = ship_gate(&app);
    ctx.phase.set("finding what this session changed");
    let session = ctx.session();
    let own = match own_findings(ctx, &app, &project, &session, fail_on, ship.as_ref().ok()) {
        Ok(own) => own,
        Err(e) => {
            return Verdict::CouldNotRun {
                message: e.to_string(),
            };
        }
    };
    let summary = match &ship {
        Ok(report) => summary(report, &own.findings, fail_on),
        Err(_) => None,
    };
    let stop = Stop {
        ctx,
        project: &project,
        session: &session,
        own,
        summary,
        did_not_run: ship.err(),
    };
    stop.decide()
}

/// What the session's files hold that it introduced, and the files kapi could not check.
struct Own {
    findings: Vec<Finding>,
    could_not: Vec<String>,
}

/// The failing findings the session introduced in its files, in report order.
fn own_findings(
    ctx: &Ctx,
    app: &App,
    project: &Project,
    session: &str,
    fail_on: FailOn,
    ship: Option<&CheckReport>,
) -> Result<Own, HostError> {
    let collections = project.collections()?;
    let root = &project.root;
    let (state, baseline, fresh) = baseline::ensure(root, session);
    let git = baseline.git.then(|| Git::open(root)).flatten();
    let files = baseline::own_files(git.as_ref(), root, &baseline, &state.touched, fresh);
    let mut own = Own {
        findings: Vec::new(),
        could_not: Vec::new(),
    };
    for rel in files {
        let Ok(path) = app.resolve_target(Base::Root, Some(project), &root.join(&rel)) else {
            continue;
        };
        if !path.abs().is_file() {
            continue;
        }
        match eval::is_content(project, &collections, &path) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                own.could_not.push(format!("{rel}: {e}"));
                continue;
            }
        }
        ctx.phase
            .set(format!("checking what this session changed in {rel}"));
        let before = baseline::before(git.as_ref(), root, session, &state, &baseline, &rel);
        match own::introduced(app, project, &collections, &path, before, fail_on, ship) {
            Ok(found) => own.findings.extend(found),
            Err(e) => own.could_not.push(format!("{rel}: {e}")),
        }
    }
    own.findings
        .sort_by(kapi_core::check::findings::report_order);
    Ok(own)
}

/// The project's ship gate: its report, or why it did not run.
fn ship_gate(app: &App) -> Result<CheckReport, String> {
    let ship = CheckRequest {
        ship: true,
        ..CheckRequest::default()
    };
    match check(app, &ship, &()) {
        Ok(run) => Ok(run.report),
        Err(HostError::NoContent) => Err(
            "the recipe's collections declare no content file, so the ship gate had nothing to check"
                .to_owned(),
        ),
        Err(e) => Err(e.to_string()),
    }
}

/// The project's failures that are not the session's, as one message: `(digest, message)`, or
/// `None` when the ship gate holds or fails only by the session's own findings.
fn summary(report: &CheckReport, own: &[Finding], fail_on: FailOn) -> Option<(String, String)> {
    if report.pass {
        return None;
    }
    let s = &report.summary;
    let total: usize = [
        (s.critical, Severity::Critical),
        (s.major, Severity::Major),
        (s.minor, Severity::Minor),
        (s.info, Severity::Info),
    ]
    .iter()
    .filter(|(_, severity)| fail_on.fails(*severity))
    .map(|(n, _)| n)
    .sum();
    let place = |f: &Finding| (f.path.clone(), f.line, f.column, f.rule.clone());
    let mine: HashSet<_> = own.iter().map(place).collect();
    let failing: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| fail_on.fails(f.severity))
        .collect();
    let others: Vec<&Finding> = failing
        .iter()
        .copied()
        .filter(|f| !mine.contains(&place(f)))
        .collect();
    let count = total.saturating_sub(failing.len() - others.len());
    // A minimum missed: the gate's for the whole, or a voice's for a file it governs.
    let score_failed = report.gate.min_score.is_some_and(|min| s.score < min)
        || report
            .files
            .iter()
            .any(|f| f.min_score.is_some_and(|min| f.score < min));
    if count == 0 && !score_failed {
        return None;
    }
    // The set, not where it sits: an edit above a finding moves its line, not the finding.
    let mut ids: Vec<String> = others
        .iter()
        .map(|f| {
            format!(
                "{}\u{0}{}\u{0}{}",
                f.path,
                f.rule,
                f.matched.as_deref().unwrap_or(&f.message)
            )
        })
        .collect();
    ids.sort();
    ids.push(format!("{count} {}", s.score));
    let reasons = report.gate.failed.join("; ");
    let message = if count == 0 {
        format!(
            "the project's ship gate is not met ({reasons}). It does not hold this stop; `kapi check --ship` shows why."
        )
    } else {
        let (noun, are) = if count == 1 {
            ("finding", "is")
        } else {
            ("findings", "are")
        };
        format!(
            "the project's ship gate is not met ({reasons}): {count} failing {noun} {are} not this session's (there before it, or outside what it changed), so {} not hold this stop. `kapi check --ship` lists them.",
            if count == 1 { "it does" } else { "they do" }
        )
    };
    Some((digest(&ids), message))
}

fn digest(items: &[String]) -> String {
    let mut hash = Sha256::new();
    for item in items {
        hash.update(item.as_bytes());
        hash.update([0xff]);
    }
    hash.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One stop's evidence, and the decision it leads to.
struct Stop<'a, 'c> {
    ctx: &'a Ctx<'c>,
    project: &'a Project,
    session: &'a str,
    own: Own,
    /// The project's other failures: `(digest, message)`.
    summary: Option<(String, String)>,
    /// Why the ship gate did not run.
    did_not_run: Option<String>,
}

impl Stop<'_, '_> {
    fn decide(self) -> Verdict {
        let kkss = matches!(self.ctx.host, Some(Protocol::Kkss) | None);
        if self.own.findings.is_empty() {
            return self.let_through();
        }
        let reason = self.reason();
        if kkss {
            // A report (TurnEnd only observes), with the rest of the project beside it.
            let summary = self.new_summary();
            let _ = state::update(&self.project.root, self.session, |s| {
                self.remember(s, summary.as_ref());
            });
            let verdict = Verdict::Negative { reason };
            return match summary {
                Some((_, notice)) => Verdict::Noted {
                    verdict: Box::new(verdict),
                    notice,
                },
                None => verdict,
            };
        }
        self.block_or_let_through(reason)
    }

    /// The session's own findings pass: nothing blocks; the project's other failures are said
    /// once, and a ship gate that did not run or a file kapi could not check is a warning.
    fn let_through(self) -> Verdict {
        let summary = self.new_summary();
        let _ = state::update(&self.project.root, self.session, |s| {
            s.stop_blocks = 0;
            s.last_block = None;
            self.remember(s, summary.as_ref());
        });
        let mut causes = self.could_not();
        if let Some(cause) = &self.did_not_run {
            causes.insert(0, cause.clone());
        }
        match (summary, causes.is_empty()) {
            (Some((_, message)), true) => Verdict::Notice { message },
            (Some((_, message)), false) => Verdict::Noted {
                verdict: Box::new(Verdict::GatesDidNotRun {
                    cause: causes.join("; "),
                }),
                notice: message,
            },
            (None, false) => Verdict::GatesDidNotRun {
                cause: causes.join("; "),
            },
            (None, true) => Verdict::Nothing,
        }
    }

    /// Records what the session was told: `told`, the summary said now; with none to say
    /// (the ship gate holds, or fails only by the session's own findings), the record is
    /// dropped, so failures that come back are said again.
    fn remember(&self, s: &mut state::SessionState, told: Option<&(String, String)>) {
        if let Some((digest, _)) = told {
            s.reported = Some(digest.clone());
        } else if self.summary.is_none() && self.did_not_run.is_none() {
            s.reported = None;
        }
    }

    /// The summary when it says something the session was not told yet.
    fn new_summary(&self) -> Option<(String, String)> {
        let told = state::load(&self.project.root, self.session).reported;
        self.summary
            .clone()
            .filter(|(digest, _)| told.as_ref() != Some(digest))
    }

    fn could_not(&self) -> Vec<String> {
        self.own
            .could_not
            .iter()
            .map(|c| format!("kapi could not check what this session changed in {c}"))
            .collect()
    }

    /// The reason an assistant reads: its findings, one line each, and what to do.
    fn reason(&self) -> String {
        let found = &self.own.findings;
        let noun = if found.len() == 1 {
            "finding"
        } else {
            "findings"
        };
        let mut reason = format!(
            "This session's changes introduced {} failing {noun}:\n{}",
            found.len(),
            lines(found)
        );
        for cause in self.could_not() {
            reason.push_str(&format!("\n(also: {cause})"));
        }
        if let Some(cause) = &self.did_not_run {
            reason.push_str(&format!("\n(the ship gate did not run: {cause})"));
        }
        reason.push_str(
            "\nFix these before you finish, or tell the person which remain and why. Findings that were there before the session do not hold it; `kapi check --ship` lists the project's.",
        );
        reason
    }

    /// Blocks the stop, unless the session was already blocked for these same findings with no
    /// edit since, or the loop guard lets it through: a stop that already follows a
    /// continuation, too many blocks in a row or in the session, or a count kapi cannot record.
    fn block_or_let_through(self, reason: String) -> Verdict {
        let found = digest(
            &self
                .own
                .findings
                .iter()
                .map(|f| format!("{}\u{0}{}", f.location(), f.rule))
                .collect::<Vec<_>>(),
        );
        let summary = self.new_summary();
        // Kiki hands a blocking stop's stderr to the model: the summary waits for a stop kapi
        // lets through.
        let summary_with_block = summary
            .clone()
            .filter(|_| self.ctx.host != Some(Protocol::Kiki));
        let active = self.ctx.payload.stop_hook_active();
        // Decided and counted under the state lock, so two stops never both take the last block.
        let decided = state::update(&self.project.root, self.session, |s| {
            let same = s
                .last_block
                .as_ref()
                .is_some_and(|last| last.findings == found && last.edits == s.edits);
            let why = if active {
                Some("this stop already follows a stop-hook continuation, so kapi does not block it again".to_owned())
            } else if same {
                Some("kapi blocked the last stop for these same findings, with no edit since, and does not block twice for them".to_owned())
            } else if s.stop_blocks >= state::MAX_CONSECUTIVE_BLOCKS {
                Some(format!(
                    "kapi blocked {} stops in a row with no new edit and lets this one through",
                    s.stop_blocks
                ))
            } else if s.session_blocks >= state::MAX_SESSION_BLOCKS {
                Some(format!(
                    "kapi blocked {} stops in this session and lets the rest through",
                    s.session_blocks
                ))
            } else {
                None
            };
            let told = if why.is_some() {
                &summary
            } else {
                &summary_with_block
            };
            // A summary held back (Kiki, blocking) is neither said nor dropped.
            if told.is_some() || summary.is_none() {
                self.remember(s, told.as_ref());
            }
            match why {
                Some(why) => Err(why),
                None => {
                    s.stop_blocks += 1;
                    s.session_blocks += 1;
                    s.last_block = Some(state::LastBlock {
                        findings: found.clone(),
                        edits: s.edits,
                    });
                    Ok(())
                }
            }
        });
        let still = |why: &str| {
            let mut message = format!(
                "the assistant stopped with failing findings this session introduced; {why}.\n{}\nRun `kapi check` on these files to see them.",
                lines(&self.own.findings)
            );
            if let Some((_, notice)) = &summary {
                message.push('\n');
                message.push_str(notice);
            }
            Verdict::Notice { message }
        };
        match decided {
            Ok(Ok(())) => {
                let verdict = Verdict::Negative { reason };
                match summary_with_block {
                    Some((_, notice)) => Verdict::Noted {
                        verdict: Box::new(verdict),
                        notice,
                    },
                    None => verdict,
                }
            }
            Ok(Err(why)) => still(&why),
            Err(e) => still(&format!(
                "kapi could not record its loop guard ({e}), so it does not block"
            )),
        }
    }
}

/// Findings one line each, at most [`eval::MAX_LISTED`].
fn lines(found: &[Finding]) -> String {
    let mut lines: Vec<String> = found
        .iter()
        .take(eval::MAX_LISTED)
        .map(|f| format!("  {}", f.line()))
        .collect();
    if found.len() > eval::MAX_LISTED {
        lines.push(format!("  … and {} more", found.len() - eval::MAX_LISTED));
    }
    lines.join("\n")
}
