//! The store's recorded writes of target editions (who wrote each, when, against which source
//! revision, the text it replaced), indexed per edition: what the review queue and stale read.
//! A `copy_source` record is the scaffold's copy of the source into a key a target file lacked
//! (`kapi translate`/`up`): while it is the text there, the key is missing, not translated.

use std::path::Path;

use kapi_core::model::{Edition, Ref, SOURCE, rev_runs};
use kapi_core::project::layout;
use kapi_core::store::Store;
use serde::Serialize;

use crate::error::HostError;

/// Calls `f` with every applied operation the store recorded and its change set's row, oldest
/// first (no store: none).
pub(crate) fn each_applied(
    root: &Path,
    mut f: impl FnMut(&kapi_core::store::ChangeRow, &serde_json::Value),
) -> Result<(), HostError> {
    let path = root.join(layout::STORE_FILE);
    if !path.exists() {
        return Ok(());
    }
    let store = Store::open(&path)?;
    for row in store.changes()? {
        for recorded in row.operations.as_array().into_iter().flatten() {
            if recorded["status"] == "applied" {
                f(&row, recorded);
            }
        }
    }
    Ok(())
}

/// The store's record of a write of a target edition (or of one branch of it).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Written {
    /// `kind:name` of who wrote it (`tool:pseudo`, `agent:claude`).
    pub by: String,
    /// When it was recorded (RFC 3339).
    pub at: String,
    /// The change set's id in the store.
    pub change: i64,
    /// The plural/select branch it wrote, when it wrote one alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The text it replaced, codes as `<x id/>` tags (`""`: the target was absent or empty;
    /// absent when the store did not record it, as a kapi before this field did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    #[serde(skip)]
    pub(crate) kind: String,
    #[serde(skip)]
    pub(crate) rev: String,
    /// The source's rev the write was made against (absent in a record from before it was
    /// kept, and for a source edition's own write).
    #[serde(skip)]
    pub(crate) source_rev: Option<String>,
    /// The edition as the operation named it.
    #[serde(skip)]
    pub(crate) named: Ref,
    /// The scaffold's copy of the source (`copy_source`), not anyone's translation.
    #[serde(skip)]
    pub(crate) copied: bool,
}

impl Written {
    /// Who wrote it is a tool or an agent, not a person, and it is a translation (a copy of the
    /// source is no draft to review).
    pub(crate) fn drafted(&self) -> bool {
        self.kind != "person" && !self.copied
    }
}

/// Every applied content write the store recorded, oldest first (no store: none).
pub fn writes(root: &Path) -> Result<Vec<Written>, HostError> {
    let mut out = Vec::new();
    each_applied(root, |row, recorded| {
        let op = &recorded["operation"];
        let copied = match op["op"].as_str() {
            Some("set_content" | "replace_text") => false,
            Some(COPY_SOURCE) => true,
            _ => return,
        };
        let (Ok(named), Some(rev)) = (
            serde_json::from_value::<Ref>(op["at"].clone()),
            recorded["rev"].as_str(),
        ) else {
            return;
        };
        out.push(Written {
            by: format!("{}:{}", row.actor_kind, row.actor_name),
            at: row.created_at.clone(),
            change: row.id,
            branch: named.branch.clone(),
            replaced: recorded["before"].as_str().map(str::to_owned),
            kind: row.actor_kind.clone(),
            rev: rev.to_owned(),
            source_rev: recorded["source_rev"].as_str().map(str::to_owned),
            named,
            copied,
        });
    })?;
    Ok(out)
}

/// The store's last write of `edition` (named by `at`, whole) still current, when it was made
/// against a source other than `source` (its recorded `source_rev` differs): the source
/// changed after it was translated. `None` when no current write recorded a source rev.
pub fn written_before_source_changed<'w>(
    writes: &'w Writes,
    at: &Ref,
    target_doc: Option<&str>,
    edition: &Edition,
    source: &Edition,
) -> Option<&'w Written> {
    let now = source.rev();
    current_writes(writes, at, target_doc, edition)
        .into_iter()
        .filter(|w| w.branch.is_none())
        .max_by_key(|w| w.change)
        .filter(|w| w.source_rev.as_deref().is_some_and(|r| r != now))
}

/// The operation a scaffold's copy of the source is recorded as.
pub(crate) const COPY_SOURCE: &str = "copy_source";

/// Whether the store's last write of `edition` (named by `at`, whole) still current is the
/// scaffold's copy of the source: the key is missing, whatever the text says.
pub fn still_a_copy(
    writes: &Writes,
    at: &Ref,
    target_doc: Option<&str>,
    edition: &Edition,
) -> bool {
    current_writes(writes, at, target_doc, edition)
        .into_iter()
        .filter(|w| w.branch.is_none())
        .max_by_key(|w| w.change)
        .is_some_and(|w| w.copied)
}

/// Of the store's last write of `edition` (named by `at`, whole) and of each of its branches,
/// those still current: the text each wrote is the text there now.
pub(crate) fn current_writes<'w>(
    writes: &'w Writes,
    at: &Ref,
    target_doc: Option<&str>,
    edition: &Edition,
) -> Vec<&'w Written> {
    // The last write per branch (`None`: the whole edition).
    let mut last: Vec<(&Option<String>, &Written)> = Vec::new();
    for w in writes.naming(at, target_doc) {
        match last.iter_mut().find(|(b, _)| **b == w.branch) {
            Some(slot) => slot.1 = w,
            None => last.push((&w.branch, w)),
        }
    }
    let now = |branch: &Option<String>| match branch {
        None => Some(edition.rev()),
        Some(path) => edition.branch(path).map(rev_runs),
    };
    last.into_iter()
        .map(|(_, w)| w)
        .filter(|w| now(&w.branch).as_deref() == Some(w.rev.as_str()))
        .collect()
}

/// The store's recorded writes, indexed by the (document, block, edition) each names, so a
/// queue over every edition of a large project looks each up at once.
pub struct Writes {
    pub(crate) all: Vec<Written>,
    index: std::collections::HashMap<(String, String, String), Vec<usize>>,
}

impl Writes {
    pub fn new(all: Vec<Written>) -> Self {
        let mut index: std::collections::HashMap<_, Vec<usize>> = std::collections::HashMap::new();
        for (i, w) in all.iter().enumerate() {
            let key = (
                w.named.doc.clone(),
                w.named.block.clone(),
                w.named.edition.clone(),
            );
            index.entry(key).or_default().push(i);
        }
        Writes { all, index }
    }

    /// The writes that name the edition `at` names (whole or any branch of it), oldest first:
    /// by its source and language, or, `target_doc` given, by the target file's own ref.
    pub(crate) fn naming(&self, at: &Ref, target_doc: Option<&str>) -> Vec<&Written> {
        let mut keys = vec![(at.doc.clone(), at.block.clone(), at.edition.clone())];
        if let Some(t) = target_doc
            && at.edition != SOURCE
        {
            keys.push((t.to_owned(), at.block.clone(), SOURCE.to_owned()));
            keys.push((t.to_owned(), at.block.clone(), at.edition.clone()));
        }
        let mut hits: Vec<usize> = keys
            .iter()
            .filter_map(|k| self.index.get(k))
            .flatten()
            .copied()
            .collect();
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter().map(|i| &self.all[i]).collect()
    }
}
