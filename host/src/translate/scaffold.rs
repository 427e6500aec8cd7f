//! A catalog's translation file made ready to take every key: written from the source's
//! skeleton when it is missing (or holds no key at all), else each key it lacks added in
//! place, at the source's position and in the file's own layout, holding a copy of the source
//! text (which `stats` counts missing until it is translated: `super::copies`; Android, JSON, YAML, properties:
//! [`kapi_core::formats::add_keys`]). Keys the file holds and the source lacks are orphans:
//! kept, and named, never a reason to refuse the file. A format kapi cannot add keys to is
//! rebuilt from the source's skeleton when that loses nothing (no orphans), else refused.

use std::collections::BTreeSet;

use kapi_core::model::{Edition, Run};

use crate::document::{Loaded, TargetFile};
use crate::services::translation::translatable;

/// What making the file ready did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaffolded {
    /// It held every key already.
    Ready,
    /// It did not exist and was written.
    Created,
    /// It lacked keys and was rebuilt from the source's skeleton.
    Rebuilt,
    /// It lacked keys and they were added to it in place.
    Added,
}

/// What making a file ready found besides: its orphans and the keys that found no place.
#[derive(Debug, Default)]
pub struct Found {
    /// Keys the translation file holds and the source lacks, in the file's order.
    pub orphans: Vec<String>,
    /// Keys kapi could not add (their parent object is not in the file), in source order.
    pub unplaced: Vec<String>,
}

/// Makes `target` (a translation file of `loaded`) hold every key a translator works on.
pub fn scaffold(loaded: &Loaded, target: &TargetFile) -> Result<(Scaffolded, Found), String> {
    let wanted: Vec<&str> = loaded
        .parsed
        .document
        .blocks
        .iter()
        .filter(|b| translatable(b))
        .map(|b| b.key.as_str())
        .collect();
    let mut found = Found::default();
    let outcome = match &target.parsed {
        None => Scaffolded::Created,
        Some(parsed) => {
            let held: BTreeSet<&str> = parsed
                .document
                .blocks
                .iter()
                .map(|b| b.key.as_str())
                .collect();
            let source: BTreeSet<&str> = loaded
                .parsed
                .document
                .blocks
                .iter()
                .map(|b| b.key.as_str())
                .collect();
            found.orphans = parsed
                .document
                .blocks
                .iter()
                .map(|b| b.key.as_str())
                .filter(|k| !source.contains(k))
                .map(str::to_owned)
                .collect();
            let missing: Vec<&str> = wanted
                .iter()
                .copied()
                .filter(|k| !held.contains(k))
                .collect();
            if missing.is_empty() {
                return Ok((Scaffolded::Ready, found));
            }
            let id = loaded.format.info().id;
            if !held.is_empty() && kapi_core::formats::add_keys::supported(id) {
                return add_in_place(loaded, target, parsed, &missing, found);
            }
            if !found.orphans.is_empty() {
                return Err(format!(
                    "`{}` lacks keys of the source and holds keys the source does not ({}): kapi adds keys in place only to Android, JSON, YAML and properties files, and rebuilding this one would lose them; add the missing keys to it",
                    target.doc,
                    found
                        .orphans
                        .iter()
                        .take(5)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Scaffolded::Rebuilt
        }
    };
    let mut parsed = loaded.parsed.clone();
    for block in &mut parsed.document.blocks {
        if let Some(edition) = block
            .targets
            .get(&target.lang)
            .filter(|_| target.parsed.is_some())
        {
            block.source = unplaced(edition);
        } else {
            // A copy's ICU plural takes the forms of the target's language (`few`, `many` for
            // Russian; no `one` for Japanese).
            kapi_core::change::forms::fit(&mut block.source, &target.lang);
        }
        block.targets.clear();
    }
    let bytes = loaded.format.write(&parsed).map_err(|e| {
        format!(
            "`{}` cannot be written from its source's skeleton: {e}",
            target.doc
        )
    })?;
    kapi_core::change::stage::write_one(&target.abs, &bytes)
        .map_err(|e| format!("`{}` cannot be written: {e}", target.doc))?;
    Ok((outcome, found))
}

/// Adds the `missing` keys to the existing `target` (read as `parsed`) in place.
fn add_in_place(
    loaded: &Loaded,
    target: &TargetFile,
    parsed: &kapi_core::formats::Parsed,
    missing: &[&str],
    mut found: Found,
) -> Result<(Scaffolded, Found), String> {
    let utf8 = |path: &std::path::Path, doc: &str| {
        let bytes = std::fs::read(path).map_err(|e| format!("`{doc}` cannot be read: {e}"))?;
        String::from_utf8(bytes).map_err(|_| {
            format!("`{doc}` is not UTF-8: kapi adds keys only to UTF-8 files; add the missing keys to it")
        })
    };
    let source_text = utf8(&loaded.abs, &loaded.doc)?;
    let target_text = utf8(&target.abs, &target.doc)?;
    let added = kapi_core::formats::add_keys::add_keys(
        loaded.format,
        &source_text,
        &loaded.parsed.document,
        &target_text,
        &parsed.document,
        missing,
    )
    .map_err(|e| format!("`{}`: kapi cannot add the keys it lacks: {e}", target.doc))?;
    found.unplaced = added.unplaced;
    if added.added.is_empty() {
        return Ok((Scaffolded::Ready, found));
    }
    kapi_core::change::stage::write_one(&target.abs, &added.bytes)
        .map_err(|e| format!("`{}` cannot be written: {e}", target.doc))?;
    Ok((Scaffolded::Added, found))
}

/// `edition`'s content with no file offsets (they point into another file) and no state.
fn unplaced(edition: &Edition) -> Edition {
    fn strip(runs: &[Run]) -> Vec<Run> {
        runs.iter()
            .map(|run| match run {
                Run::Text { text, .. } => Run::text(text.clone()),
                Run::Code(code) => {
                    let mut code = code.clone();
                    code.src = None;
                    Run::Code(code)
                }
                Run::Switch(switch) => {
                    let mut switch = switch.clone();
                    switch.src = None;
                    for branch in &mut switch.branches {
                        branch.runs = strip(&branch.runs);
                    }
                    Run::Switch(switch)
                }
            })
            .collect()
    }
    Edition::new(strip(&edition.runs))
}

/// Names `found`'s orphans and unplaced keys of the translation file `doc` in `out`: orphans
/// as a note (they are kept), unplaced keys as an error (they stay untranslated).
pub(super) fn report(found: &Found, doc: &str, out: &mut super::Translation) {
    let list = |keys: &[String]| {
        let shown: Vec<&str> = keys.iter().take(5).map(String::as_str).collect();
        let more = keys.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("{}{more}", shown.join(", "))
    };
    if !found.orphans.is_empty() {
        out.notes.push(format!(
            "`{doc}` holds {} key{} its source lacks (orphans, kept): {}",
            found.orphans.len(),
            if found.orphans.len() == 1 { "" } else { "s" },
            list(&found.orphans)
        ));
    }
    if !found.unplaced.is_empty() {
        out.errors.push(crate::services::translation::Unreadable {
            doc: doc.to_owned(),
            error: format!(
                "kapi cannot add {} to it: the object or array holding {} is not in the file (or holds no text kapi reads to place {} by); add it, then run again",
                list(&found.unplaced),
                if found.unplaced.len() == 1 { "it" } else { "them" },
                if found.unplaced.len() == 1 { "it" } else { "them" }
            ),
        });
    }
}
