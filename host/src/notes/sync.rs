//! `kapi context sync`: a person rewrites the rules files, and restores to `.kapi/notes.yaml`
//! the kept notes the store holds and the file lost.

use kapi_core::project::layout;
use kapi_core::store::SuggestionFilter;
use serde::Serialize;

use super::kept::{as_note, read_notes, write_notes};
use super::person_only;
use crate::app::App;
use crate::error::HostError;

/// What `sync` did.
#[derive(Debug, Serialize)]
pub struct Sync {
    pub schema: &'static str,
    pub report: crate::agents::rules_files::SyncReport,
    /// Kept notes the store held that `.kapi/notes.yaml` lacked, written back (not with
    /// `--files-only`).
    pub restored: Vec<String>,
}

/// Rewrites the rules files (and, unless `files_only`, `.kapi/notes.yaml` from the kept
/// state) — a person only.
pub fn sync(app: &App, files_only: bool) -> Result<Sync, HostError> {
    let actor = app.actor();
    person_only(&actor, "sync")?;
    let project = app.require_project()?;
    let mut notes = read_notes(&project.root)?;
    let mut restored = Vec::new();
    let store_path = project.root.join(layout::STORE_FILE);
    if !files_only && store_path.exists() {
        let handle = app.store(&store_path)?;
        let store = crate::app::lock(&handle)?;
        for s in store.suggestions(&SuggestionFilter {
            status: Some("kept".into()),
            session: None,
        })? {
            // A change kept at the root became a term rule, not a note.
            if s.kind == "change" && s.path.is_empty() {
                continue;
            }
            if !notes.notes.iter().any(|n| n.id == s.id) {
                let mut kept = as_note(&s, &s.path);
                kept.kept_by = s.decided_by.clone();
                kept.kept_at = s.decided_at.clone();
                restored.push(s.id.clone());
                notes.notes.push(kept);
            }
        }
        if !restored.is_empty() {
            write_notes(&project.root, &mut notes)?;
        }
    }
    let report = crate::agents::rules_files::refresh(app, &project, &notes)?;
    Ok(Sync {
        schema: "kapi.sync/v1",
        report,
        restored,
    })
}
