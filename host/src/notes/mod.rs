//! Context that grows: notes assistants record (`kapi context note`), the log of context
//! operations, and a person's review (keep, drop, widen), reset and sync. One function per
//! verb, shared by the CLI and (later) MCP.
//!
//! Choices where the design is silent:
//! - A note's path must exist in the project (a typo would scope a note to nothing); it is
//!   stored project-relative, `/`-separated, the root as empty.
//! - A note holds at most [`MAX_NOTE_CHARS`] characters per field; a longer one is refused, not
//!   cut, so nothing is recorded that the assistant did not write.
//! - Widening moves a note to a parent folder (or the root) and keeps it there.
//! - Keeping a person's change (`from` → `to`) held at the root makes it a term rule in the
//!   terms file (`to`, or `suggest`, preferred; `from` deprecated with it as the replacement);
//!   held to a folder, it stays a note for that folder, so the rename does not spread.
//! - A review decides every id it names or none: an unknown or already decided id refuses the
//!   whole call.

mod kept;
mod log;
mod note;
mod reset;
mod review;
mod sync;

use kapi_core::project::{Project, layout};
use kapi_core::store::{NewOp, SessionRow, Store};

use crate::app::{Actor, App};
use crate::error::HostError;
use crate::policy::Kind;

pub use kept::{keep, read_notes, refresh_rules};
pub use log::{Log, LogEntry, LogRequest, log};
pub use note::{NoteAnswer, NoteRequest, note, signal_edits};
pub use reset::{Reset, reset};
pub use review::{Decided, Review, ReviewRequest, pending, review, suggestion_line};
pub use sync::{Sync, sync};

/// The longest note field kapi records, in characters.
pub const MAX_NOTE_CHARS: usize = 500;
/// Where kept notes live.
pub use crate::context::NOTES_FILE;

fn usage(message: impl Into<String>, hint: impl Into<String>) -> HostError {
    HostError::Usage {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

/// Refuses a sender kapi does not know; the verbs for assistants are open to every known kind.
fn known(actor: &Actor) -> Result<Kind, HostError> {
    Kind::of(actor).ok_or_else(|| {
        let (message, instead) = crate::policy::unknown_sender(actor);
        HostError::NotPermitted { message, instead }
    })
}

/// Refuses anyone but a person, before anything changes, naming the person's command.
pub fn person_only(actor: &Actor, verb: &str) -> Result<(), HostError> {
    match known(actor)? {
        Kind::Person => Ok(()),
        _ => Err(HostError::NotPermitted {
            message: format!(
                "`kapi context {verb}` is a person's: an {} cannot {verb} context",
                actor.kind
            ),
            instead: format!(
                "tell the person to run `kapi context {verb}`; record what you noticed with `kapi context note`"
            ),
        }),
    }
}

/// The project's store, opened with `actor`'s session row touched (a context operation names
/// its session).
pub(crate) fn open_store(
    project: &Project,
    app: &App,
    actor: &Actor,
) -> Result<std::sync::Arc<std::sync::Mutex<Store>>, HostError> {
    let handle = app.store(&project.root.join(layout::STORE_FILE))?;
    let store = crate::app::lock(&handle)?;
    let now = app.timestamp();
    store.touch_session(&SessionRow {
        id: actor.session.clone(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        project: Some(project.root.display().to_string()),
        // An MCP session's note keeps the client's name on the row.
        client: Some(app.client_name()),
        started_at: now.clone(),
        last_seen: now,
    })?;
    drop(store);
    Ok(handle)
}

pub(crate) fn op(
    actor: &Actor,
    kind: &str,
    path: Option<String>,
    payload: serde_json::Value,
    at: &str,
) -> NewOp {
    NewOp {
        kind: kind.into(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        session: actor.session.clone(),
        path,
        payload,
        status: "applied".into(),
        created_at: at.to_owned(),
    }
}

fn shown(rel: &str) -> &str {
    if rel.is_empty() { "." } else { rel }
}
