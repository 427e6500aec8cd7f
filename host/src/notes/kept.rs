//! The kept notes: `.kapi/notes.yaml` read and written (sorted, atomically), a suggestion as
//! the note it keeps, and the rules files refreshed from the kept state.

use std::path::Path;

use kapi_core::governance::notes::{KeptNote, NotesFile};
use kapi_core::project::Project;
use kapi_core::store::Suggestion;

use super::NOTES_FILE;
use crate::agents::rules_files::SyncReport;
use crate::app::App;
use crate::error::HostError;

/// The note a suggestion keeps, held at `path` (not yet signed: no `kept_by`, `kept_at`).
pub(super) fn as_note(s: &Suggestion, path: &str) -> KeptNote {
    KeptNote {
        id: s.id.clone(),
        path: path.to_owned(),
        text: s.text.clone(),
        from: s.from.clone(),
        to: s.to.clone(),
        suggest: s.suggest.clone(),
        kept_by: None,
        kept_at: None,
    }
}

/// Reads `.kapi/notes.yaml` (an absent file is no notes).
pub fn read_notes(root: &Path) -> Result<NotesFile, HostError> {
    let path = root.join(NOTES_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(NotesFile::parse(&text, NOTES_FILE)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(NotesFile {
            version: "v1".into(),
            notes: Vec::new(),
        }),
        Err(e) => Err(HostError::io(&path, e)),
    }
}

/// kapi's one atomic write ([`kapi_core::change::stage::write_one`]), its error naming the file.
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<(), HostError> {
    kapi_core::change::stage::write_one(path, text.as_bytes()).map_err(|e| HostError::io(path, e))
}

/// Writes `.kapi/notes.yaml`, its notes sorted by path then id.
pub(super) fn write_notes(root: &Path, notes: &mut NotesFile) -> Result<(), HostError> {
    notes
        .notes
        .sort_by(|a, b| (&a.path, &a.id).cmp(&(&b.path, &b.id)));
    write_atomic(&root.join(NOTES_FILE), &notes.to_text())
}

/// Adds kept notes to `.kapi/notes.yaml` (replacing any with the same id) and refreshes the
/// rules files; returns what the refresh did.
pub fn keep(app: &App, project: &Project, kept: Vec<KeptNote>) -> Result<SyncReport, HostError> {
    let mut notes = read_notes(&project.root)?;
    for k in kept {
        notes.notes.retain(|n| n.id != k.id);
        notes.notes.push(k);
    }
    write_notes(&project.root, &mut notes)?;
    refresh_rules(app, project)
}

/// Rewrites the rules files from the kept state; returns what it did (the files written or
/// removed: [`SyncReport::changed`]).
pub fn refresh_rules(app: &App, project: &Project) -> Result<SyncReport, HostError> {
    let notes = read_notes(&project.root)?;
    crate::agents::rules_files::refresh(app, project, &notes)
}
