//! The languages a translation run may name: `--to` must name language tags the files translate
//! into, else the run is refused before anything is read or written (exit 2), naming the ones
//! it may take, rather than ending with nothing done.
//!
//! A catalog's languages are the recipe's target languages (an item's, a collection's or
//! `defaults.target_languages`); a bilingual file's (PO, XLIFF, Qt, String Catalogs) are those
//! it holds, read only when a named language is none of the recipe's. Tags compare as written,
//! `_` and `-` alike, case aside (`pt_BR` is `pt-BR`).

use std::collections::BTreeSet;

use kapi_core::project::Project;

use super::{TranslateRequest, bilingual};
use crate::app::App;
use crate::error::HostError;
use crate::services::translation::same_tag;

/// Whether `lang` reads as a BCP 47 language tag, `_` read as `-` (`pt_BR`).
pub(super) fn is_tag(lang: &str) -> bool {
    kapi_core::project::locales::is_tag(&lang.replace('_', "-"))
}

/// Every target language the recipe names: `defaults`, each collection's and each item's.
fn declared(project: &Project) -> BTreeSet<String> {
    let recipe = &project.recipe;
    let mut out: BTreeSet<String> = recipe
        .defaults
        .target_languages
        .iter()
        .flatten()
        .cloned()
        .collect();
    for c in &recipe.collections {
        out.extend(c.target_languages.iter().flatten().cloned());
        for item in &c.content {
            out.extend(item.target_languages.iter().flatten().cloned());
        }
    }
    out
}

/// Refuses a request whose `--to` names something that is no language tag, or a language no
/// file in its scope translates into.
pub(super) fn refuse_unknown(
    app: &App,
    project: &Project,
    request: &TranslateRequest,
) -> Result<(), HostError> {
    if let Some(bad) = request.langs.iter().find(|l| !is_tag(l)) {
        return Err(HostError::Usage {
            message: format!("`{bad}` is not a language tag"),
            hint: Some("name target languages as the recipe does: `--to fr,pt-BR`".into()),
        });
    }
    let known = declared(project);
    let unknown = |known: &BTreeSet<String>| -> Vec<String> {
        request
            .langs
            .iter()
            .filter(|l| !known.iter().any(|k| same_tag(k, l)))
            .cloned()
            .collect()
    };
    let mut missing = unknown(&known);
    let mut all = known;
    if !missing.is_empty() {
        let (bilingual_docs, _) = bilingual::split(app, project, &request.docs);
        let every = request.docs.is_empty();
        if every || !bilingual_docs.is_empty() {
            all.extend(bilingual::languages(app, project, &bilingual_docs, every)?);
            missing = unknown(&all);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let list = |v: Vec<String>| {
        v.iter()
            .map(|l| format!("`{l}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let takes = if all.is_empty() {
        "no target language: set `defaults.target_languages` in kapi.yaml".to_owned()
    } else {
        format!("its targets: {}", list(all.into_iter().collect()))
    };
    Err(HostError::Usage {
        message: format!(
            "no file translates into {}: the project takes {takes}",
            list(missing)
        ),
        hint: Some(
            "add the language to a collection's `target_languages` (or `defaults.target_languages`) in kapi.yaml, or name one of its targets".into(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::is_tag;

    #[test]
    fn tags_are_told_from_paths_and_words() {
        for ok in [
            "fr",
            "pt-BR",
            "pt_BR",
            "zh-Hans",
            "sr-Latn-RS",
            "en-XA",
            "qps-ploc",
        ] {
            assert!(is_tag(ok), "{ok}");
        }
        for bad in ["../x", "", "f", "french", "fr/", "fr--BR", "x y"] {
            assert!(!is_tag(bad), "{bad}");
        }
    }
}
