//! `kapi hook stop`: the project's ship gates (`kapi check --ship`) and the files this session's
//! edits left failing, keeping the assistant working until they are green — never forever.
//!
//! A stop is not blocked when the host says it already follows a stop-hook continuation
//! (`stop_hook_active`), nor after [`state::MAX_CONSECUTIVE_BLOCKS`] blocks with no new edit, nor
//! after [`state::MAX_SESSION_BLOCKS`] in the session, nor when kapi cannot record its count: the
//! person then gets a warning that the gates are still red instead. On KKSS (whose TurnEnd only
//! observes) the verdict is a report, and no count is kept.

use kapi_core::project::Project;
use kapi_core::project::collections::Collections;

use super::Protocol;
use super::eval::{self, Ctx};
use super::protocol::Verdict;
use super::state;
use crate::app::App;
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
    let collections = match project.collections() {
        Ok(c) => c,
        Err(e) => {
            return Verdict::CouldNotRun {
                message: e.to_string(),
            };
        }
    };
    let session = ctx.session();
    let pending: Vec<(String, u64)> = state::load(&project.root, &session)
        .pending
        .into_iter()
        .map(|(rel, p)| (rel, p.edit))
        .collect();
    let app = ctx.app(&project);

    ctx.phase.set("running the ship gates");
    let (mut sections, did_not_run) = ship_gate(&app);
    let cleared = edited_files(
        ctx,
        &app,
        &project,
        &collections,
        pending,
        did_not_run.is_none(),
        &mut sections,
    );
    let clear = |s: &mut state::SessionState| s.clear(&cleared);

    if sections.is_empty() {
        let _ = state::update(&project.root, &session, |s| {
            clear(s);
            s.stop_blocks = 0;
        });
        return match did_not_run {
            Some(cause) => Verdict::GatesDidNotRun { cause },
            None => Verdict::Nothing,
        };
    }
    let mut report = sections.join("\n\n");
    if let Some(cause) = &did_not_run {
        report.push_str(&format!("\n(the ship gate did not run: {cause})"));
    }

    if matches!(ctx.host, Some(Protocol::Kkss) | None) {
        let _ = state::update(&project.root, &session, clear);
        return Verdict::Negative {
            reason: format!("{report}\n`kapi check --ship` runs the same gates."),
        };
    }
    block_or_let_through(ctx, &project, &session, clear, &report)
}

/// The project's ship gate: a section when it is not met, or why it did not run.
fn ship_gate(app: &App) -> (Vec<String>, Option<String>) {
    let mut sections = Vec::new();
    let mut did_not_run = None;
    let ship = CheckRequest {
        ship: true,
        ..CheckRequest::default()
    };
    match check(app, &ship, &()) {
        Ok(run) if run.report.pass => {}
        Ok(run) => sections.push(format!(
            "The project's ship gate is not met {}",
            eval::failure(&run.report)
        )),
        Err(HostError::NoContent) => {
            did_not_run = Some(
                "the recipe's collections declare no content file, so the ship gate had nothing to check"
                    .to_owned(),
            );
        }
        Err(e) => did_not_run = Some(e.to_string()),
    }
    (sections, did_not_run)
}

/// Files this session's edits left failing that the ship gate does not cover (`gate_ran`: it
/// ran, so it covers the declared ones): a section each. Returns the ones that are gone,
/// covered or passing now, to clear.
fn edited_files(
    ctx: &Ctx,
    app: &App,
    project: &Project,
    collections: &Collections,
    pending: Vec<(String, u64)>,
    gate_ran: bool,
    sections: &mut Vec<String>,
) -> Vec<(String, u64)> {
    let mut cleared = Vec::new();
    for (rel, edit) in pending {
        let abs = project.root.join(&rel);
        let declared = crate::check::declares(collections, &rel) && !collections.is_excluded(&rel);
        if !abs.is_file() || (declared && gate_ran) {
            cleared.push((rel, edit));
            continue;
        }
        ctx.phase.set(format!("checking {rel}"));
        let request = CheckRequest {
            paths: vec![abs.clone()],
            ..CheckRequest::default()
        };
        match check(app, &request, &()) {
            Ok(run) if !run.report.pass => sections.push(format!(
                "{rel}, which this session edited, does not pass {}",
                eval::failure(&run.report)
            )),
            _ => cleared.push((rel, edit)),
        }
    }
    cleared
}

/// Blocks the stop with `report`, unless the loop guard lets it through with a notice: a stop
/// that already follows a continuation, too many blocks in a row or in the session, or a count
/// kapi cannot record.
fn block_or_let_through(
    ctx: &Ctx,
    project: &Project,
    session: &str,
    clear: impl Fn(&mut state::SessionState),
    report: &str,
) -> Verdict {
    let still = |why: &str| Verdict::Notice {
        message: format!(
            "the assistant stopped with the ship gates not met; {why}.\n{report}\nRun `kapi check --ship` to see them."
        ),
    };
    let active = ctx.payload.stop_hook_active();
    // Decided and counted under the state lock, so two stops never both take the last block.
    let decided = state::update(&project.root, session, |s| {
        clear(s);
        if active {
            Err("this stop already follows a stop-hook continuation, so kapi does not block it again".to_owned())
        } else if s.stop_blocks >= state::MAX_CONSECUTIVE_BLOCKS {
            Err(format!(
                "kapi blocked {} stops in a row with no new edit and lets this one through",
                s.stop_blocks
            ))
        } else if s.session_blocks >= state::MAX_SESSION_BLOCKS {
            Err(format!(
                "kapi blocked {} stops in this session and lets the rest through",
                s.session_blocks
            ))
        } else {
            s.stop_blocks += 1;
            s.session_blocks += 1;
            Ok(())
        }
    });
    match decided {
        Ok(Ok(())) => Verdict::Negative {
            reason: format!(
                "{report}\nFix these before you finish, or tell the person which remain and why. `kapi check --ship` runs the same gates."
            ),
        },
        Ok(Err(why)) => still(&why),
        Err(e) => still(&format!(
            "kapi could not record its loop guard ({e}), so it does not block"
        )),
    }
}
