//! Which keys of one catalog in one language a run works on: the missing ones, the stale ones
//! the run may replace, the copies of their source this run's scaffold wrote, and (with
//! `force`) the translations equal to their source.

use std::collections::{HashMap, HashSet};

use kapi_core::model::Block;

use super::{TranslateRequest, replaces_stale};
use crate::services::translation::{LangSurvey, SOURCE_CHANGED, marked_unfinished, translatable};

/// The keys of `s` to translate, in order: missing, stale, unchanged, then the rest of this
/// run's copies (`fresh`: the keys its scaffold added; one whose plural was fitted to the
/// language reads as no copy). `blocks`: the catalog's blocks by key.
pub(super) fn keys<'s>(
    request: &TranslateRequest,
    s: &'s LangSurvey,
    fresh: Option<&'s HashSet<String>>,
    blocks: &HashMap<&str, &Block>,
) -> Vec<&'s String> {
    // Stale keys a person may have written stay, unless the run may replace them.
    let stale = s.stale.iter().filter(|key| {
        fresh.is_some_and(|f| f.contains(*key))
            || replaces_stale(
                request,
                &s.lang,
                blocks
                    .get(key.as_str())
                    .and_then(|b| b.targets.get(&s.lang))
                    .is_some_and(marked_unfinished)
                    || s.stale_why
                        .get(key.as_str())
                        .is_some_and(|why| why.starts_with(SOURCE_CHANGED)),
            )
    });
    // A target equal to its source (`URL`, `Port`) is a translation: redone only when this
    // run's scaffold wrote it, or with `force`.
    let unchanged = s.unchanged.iter().filter(|key| {
        fresh.is_some_and(|f| f.contains(*key)) || replaces_stale(request, &s.lang, false)
    });
    let mut keys: Vec<&String> = s.missing.iter().chain(stale).chain(unchanged).collect();
    if let Some(fresh) = fresh {
        let taken: HashSet<&str> = keys.iter().map(|k| k.as_str()).collect();
        let mut rest: Vec<&String> = fresh
            .iter()
            .filter(|k| !taken.contains(k.as_str()))
            .filter(|k| blocks.get(k.as_str()).is_some_and(|b| translatable(b)))
            .collect();
        rest.sort();
        keys.extend(rest);
    }
    keys
}
