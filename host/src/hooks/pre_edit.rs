//! `kapi hook pre-edit`: refuses a direct hand-edit of a file the project generates as a
//! translation target (a collection item's `target` template), naming its source and the kapi
//! command that changes that language instead. Every other edit is nothing to report.

use kapi_core::project::collections::Collections;

use super::eval::{self, Ctx};
use super::protocol::Verdict;
use crate::app::relative_to;
use crate::check::plan::Role;

pub fn evaluate(ctx: &Ctx) -> Verdict {
    let paths = match eval::guarded_paths(ctx, true) {
        Ok(paths) => paths,
        Err(verdict) => return verdict,
    };
    let mut denials = Vec::new();
    for path in &paths {
        let abs = match ctx.absolute(path) {
            Ok(abs) => abs,
            Err(message) => return Verdict::CouldNotRun { message },
        };
        ctx.phase
            .set(format!("finding the project of {}", abs.display()));
        let project = match ctx.project_for(&abs) {
            Ok(Some(p)) => p,
            Ok(None) => continue,
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        };
        let Some(rel) = relative_to(&abs, &project.root) else {
            continue;
        };
        let collections = match Collections::new(&project.recipe) {
            Ok(c) => c,
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        };
        ctx.phase.set(format!("finding the source of {rel}"));
        match crate::check::plan::role(&project, &collections, &rel) {
            Ok(Role::Translation { source, lang }) => denials.push(format!(
                "{rel} is generated: it is the `{lang}` translation of {source} (its collection's `target` template), so kapi refuses a direct edit. Change the `{lang}` edition through kapi instead: `kapi inspect {source} --editions {lang}`, then `kapi apply` a change set whose operations name `\"edition\": \"{lang}\"` (MCP: read_blocks, then apply_edits)."
            )),
            Ok(Role::Source | Role::Orphan) => {}
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        }
    }
    if denials.is_empty() {
        Verdict::Nothing
    } else {
        Verdict::Negative {
            reason: denials.join("\n"),
        }
    }
}
