//! The scaffold's copies of the source, recorded: a key `translate`/`up` added to a target
//! file holds its source's text until a translation lands, and the store says so, so a key a
//! provider failed on (or answered with the source) stays missing and is retried next run.
//!
//! Each copy is one `copy_source` operation in a change set of its own, recorded after the
//! scaffold wrote the files and before any translation is sent: a translation that lands later
//! is a later write of the same edition, and the copy is no longer current. A copy of a source
//! the recipe allows to stay as it is (`translation.unchanged`'s `allow:`), or with no letter
//! in it (`%d`), is not recorded: it is already a translation.

use std::collections::HashSet;

use kapi_core::check::analyzers::unchanged;
use kapi_core::model::{Block, Ref};
use kapi_core::store::ChangeRecord;

use crate::app::App;
use crate::error::HostError;
use crate::services::writes::COPY_SOURCE;

use super::Actor;

/// One key's copy of its source in a target file.
pub(super) struct Copied {
    at: Ref,
    target_doc: String,
    /// The rev of the target edition as the scaffold wrote it.
    rev: String,
    source_rev: String,
}

/// The copies among `fresh` (the keys this run's scaffold added to `target_doc`, the `lang`
/// translation file of `doc`), read back from the file as it now is (`blocks`, by key).
pub(super) fn collect(
    doc: &str,
    lang: &str,
    target_doc: &str,
    fresh: &HashSet<String>,
    blocks: &std::collections::HashMap<&str, &Block>,
    allow: &[String],
    out: &mut Vec<Copied>,
) {
    let mut keys: Vec<&String> = fresh.iter().collect();
    keys.sort();
    for key in keys {
        let Some(block) = blocks.get(key.as_str()) else {
            continue;
        };
        let Some(edition) = block.targets.get(lang) else {
            continue;
        };
        // A copy whose plural was fitted to the language (`forms::fit`) reads as its
        // source by its `other` form.
        let fitted = {
            let text = block.source.plain_text();
            let text = text.trim();
            text.chars().any(char::is_alphabetic)
                && edition.plain_text().trim() == text
                && !allow.iter().any(|a| a.trim() == text)
        };
        if !unchanged::reported(&block.source, edition, allow) && !fitted {
            continue;
        }
        out.push(Copied {
            at: Ref {
                doc: doc.to_owned(),
                block: key.clone(),
                edition: lang.to_owned(),
                branch: None,
            },
            target_doc: target_doc.to_owned(),
            rev: edition.rev(),
            source_rev: block.source.rev(),
        });
    }
}

/// Records `copies` in the store as one change set by `actor`.
pub(super) fn record(
    app: &App,
    project: &kapi_core::project::Project,
    actor: &Actor,
    copies: &[Copied],
) -> Result<(), HostError> {
    if copies.is_empty() {
        return Ok(());
    }
    let handle = crate::notes::open_store(project, app, actor)?;
    let mut store = crate::app::lock(&handle)?;
    let operations: Vec<serde_json::Value> = copies
        .iter()
        .map(|c| {
            serde_json::json!({"operation": {"op": COPY_SOURCE, "at": c.at},
                               "status": "applied", "rev": c.rev, "source_rev": c.source_rev})
        })
        .collect();
    let mut documents: Vec<&str> = copies.iter().map(|c| c.target_doc.as_str()).collect();
    documents.dedup();
    let documents: Vec<serde_json::Value> = documents
        .into_iter()
        .map(|d| serde_json::json!({"doc": d, "written": true}))
        .collect();
    store.record_change(&ChangeRecord {
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        session: actor.session.clone(),
        status: "applied".into(),
        fingerprint: None,
        operations: serde_json::Value::from(operations),
        documents: serde_json::Value::from(documents),
        created_at: app.timestamp(),
        ops: Vec::new(),
        terms: Vec::new(),
        memory: Vec::new(),
        advice: Vec::new(),
    })?;
    Ok(())
}
