//! A catalog's translation file made ready to take every key: written from the source's
//! skeleton when it is missing, or rebuilt from it when it lacks keys, each key holding its
//! translation where the old file had one and a copy of the source text otherwise (which
//! `stats` counts stale until it is translated). A translation file that holds keys the
//! source lacks is never rebuilt: those keys would be lost.

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
}

/// Makes `target` (a translation file of `loaded`) hold every key a translator works on.
pub fn scaffold(loaded: &Loaded, target: &TargetFile) -> Result<Scaffolded, String> {
    let wanted: BTreeSet<&str> = loaded
        .parsed
        .document
        .blocks
        .iter()
        .filter(|b| translatable(b))
        .map(|b| b.key.as_str())
        .collect();
    let outcome = match &target.parsed {
        None => Scaffolded::Created,
        Some(parsed) => {
            let held: BTreeSet<&str> = parsed
                .document
                .blocks
                .iter()
                .map(|b| b.key.as_str())
                .collect();
            if wanted.is_subset(&held) {
                return Ok(Scaffolded::Ready);
            }
            let source: BTreeSet<&str> = loaded
                .parsed
                .document
                .blocks
                .iter()
                .map(|b| b.key.as_str())
                .collect();
            let extra: Vec<&str> = held.difference(&source).copied().take(5).collect();
            if !extra.is_empty() {
                return Err(format!(
                    "`{}` lacks keys of the source and holds keys the source does not ({}): kapi does not rebuild it, which would lose them; add the missing keys to it, or remove the extra ones",
                    target.doc,
                    extra.join(", ")
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
    Ok(outcome)
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
