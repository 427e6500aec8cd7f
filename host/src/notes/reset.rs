//! `kapi context reset`: a person clears every pending suggestion at once.

use serde::Serialize;

use super::{op, open_store, person_only};
use crate::app::App;
use crate::error::HostError;

/// What `reset` did.
#[derive(Debug, Clone, Serialize)]
pub struct Reset {
    pub schema: &'static str,
    pub cleared: usize,
}

/// Clears every pending suggestion (a person only; the CLI asks first).
pub fn reset(app: &App) -> Result<Reset, HostError> {
    let actor = app.actor();
    person_only(&actor, "reset")?;
    let project = app.require_project()?;
    let handle = open_store(&project, app, &actor)?;
    let mut store = crate::app::lock(&handle)?;
    let now = app.timestamp();
    let cleared = store.clear_pending(
        &format!("{}:{}", actor.kind, actor.name),
        &now,
        &op(&actor, "reset", None, serde_json::json!({}), &now),
    )?;
    Ok(Reset {
        schema: "kapi.reset/v1",
        cleared,
    })
}
