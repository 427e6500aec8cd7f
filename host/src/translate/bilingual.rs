//! The work a bilingual file holds (PO, XLIFF: source and targets in one file): for each
//! language the file translates into, every unit whose target is missing (absent or empty)
//! or stale, read from the file itself. A missing target's rev is its source's: the change
//! service gives such a unit a copy of its source to replace. A PO entry marked `fuzzy` with
//! text is a draft waiting for a person's review (the change service marks a tool's or an
//! agent's translation so): it is left to the review, not sent again.

use std::path::Path;

use kapi_core::model::Edition;
use kapi_core::project::Project;

use super::{TranslateRequest, Work, replaces_stale, todos, wanted};
use crate::app::App;
use crate::document::{self, Editions};
use crate::error::HostError;
use crate::services::review::Writes;
use crate::services::translation::{
    SOURCE_CHANGED, Standing, Unreadable, marked_unfinished, same_as_source, same_tag,
    source_changed, standing, translatable,
};

/// A note naming a PO file whose header's `Language:` is no language tag (`persian`), with
/// its line and the fix; `None` when it names one, or none, or the file cannot be read. Only
/// the file's first 64 KiB are read: the header is its first message.
pub fn po_language_note(abs: &Path, display: &str) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(abs)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let bad = kapi_core::formats::po::header_language(&text)?;
    Some(format!(
        "{display}:{}: `Language: {}` is not a language tag: kapi reads its translations as language `target` and translates none of them; write the BCP 47 tag or gettext locale (`fa`, `pt_BR`)",
        bad.line, bad.value
    ))
}

/// The named documents split in two: bilingual files, and the rest (catalogs with a `target`
/// template), each as named.
pub(super) fn split(app: &App, project: &Project, docs: &[String]) -> (Vec<String>, Vec<String>) {
    let collections = project.collections().ok();
    docs.iter().cloned().partition(|d| {
        let abs = app.absolute(Path::new(d));
        let declared = document::declared_format(Some(project), collections.as_deref(), &abs);
        document::pick(&abs, declared.as_deref())
            .ok()
            .flatten()
            .is_some_and(|f| f.info().capabilities.bilingual)
    })
}

/// The languages the bilingual files in a request's scope translate into (the `named` ones, or
/// every declared one when `all`), as their files name them; an unreadable file adds none.
pub(super) fn languages(
    app: &App,
    project: &Project,
    named: &[String],
    all: bool,
) -> Result<std::collections::BTreeSet<String>, HostError> {
    let mut out = std::collections::BTreeSet::new();
    for (_, abs) in files(app, project, named, all)? {
        if let Ok(loaded) = document::load(app, &abs, &Editions::All, None) {
            for block in &loaded.parsed.document.blocks {
                out.extend(block.targets.keys().cloned());
            }
        }
    }
    Ok(out)
}

/// Every bilingual file the collections declare, or the `named` ones, as (rel, abs).
fn files(
    app: &App,
    project: &Project,
    named: &[String],
    all: bool,
) -> Result<Vec<(String, std::path::PathBuf)>, HostError> {
    if !all {
        return named
            .iter()
            .map(|d| {
                let path = app.resolve(Some(project), Path::new(d))?;
                Ok((path.doc(), path.abs().to_path_buf()))
            })
            .collect();
    }
    let collections = project.collections()?;
    let declared = collections
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    Ok(declared
        .into_iter()
        .filter(|f| {
            document::pick(&f.abs, f.format.as_deref())
                .ok()
                .flatten()
                .is_some_and(|fmt| fmt.info().capabilities.bilingual)
        })
        .map(|f| (f.rel, f.abs))
        .collect())
}

/// The work in bilingual files: the `named` ones, or every declared one when `all`.
pub(super) fn gather(
    app: &App,
    project: &Project,
    request: &TranslateRequest,
    named: &[String],
    all: bool,
    source_lang: &str,
    errors: &mut Vec<Unreadable>,
) -> Result<Vec<Work>, HostError> {
    let mut work = Vec::new();
    // The store's recorded writes: a target kapi wrote whose source changed since is stale.
    let mut writes = None;
    for (rel, abs) in files(app, project, named, all)? {
        let loaded = match document::load(app, &abs, &Editions::All, None) {
            Ok(loaded) => loaded,
            Err(e) => {
                errors.push(Unreadable {
                    doc: rel,
                    error: e.to_string(),
                });
                continue;
            }
        };
        if loaded.format.info().id == "po"
            && let Some(note) = po_language_note(&abs, &rel)
        {
            errors.push(Unreadable {
                doc: rel,
                error: note,
            });
            continue;
        }
        let mut langs: Vec<String> = loaded
            .parsed
            .document
            .blocks
            .iter()
            .flat_map(|b| b.targets.keys().cloned())
            .collect();
        langs.sort();
        langs.dedup();
        // A target in the source's own language (an English PO file) is no translation.
        for lang in langs
            .into_iter()
            .filter(|l| wanted(request, l) && !same_tag(l, source_lang))
        {
            let mut w = Work {
                doc: loaded.doc.clone(),
                lang: lang.clone(),
                source_lang: source_lang.to_owned(),
                brief: super::brief(app, &loaded.doc, &lang),
                blocks: Vec::new(),
                memory: Vec::new(),
                todo: 0,
            };
            for block in loaded
                .parsed
                .document
                .blocks
                .iter()
                .filter(|b| translatable(b))
            {
                let target = block.targets.get(&lang);
                // A draft the file marks for review (PO `fuzzy`, Qt `unfinished`, a String
                // Catalog's `needs_review`) with text: left to the review, not sent again.
                let draft = target.is_some_and(|t| {
                    marked_unfinished(t)
                        && t.state.as_deref() == crate::apply::draft_state(loaded.format.info().id)
                        && !kapi_core::model::plain_empty(&t.runs)
                });
                let writes = writes.get_or_insert_with(|| {
                    Writes::new(crate::services::review::writes(&project.root).unwrap_or_default())
                });
                let mut standing = standing(&block.source, target);
                if standing == Standing::Translated
                    && let Some(t) = target
                    && let Some(why) =
                        source_changed(writes, &loaded.doc, block, &lang, &loaded.doc, t)
                {
                    standing = Standing::Stale(why);
                }
                let source_moved =
                    matches!(&standing, Standing::Stale(w) if w.starts_with(SOURCE_CHANGED));
                match standing {
                    // A target equal to its source is a translation (`URL`), redone only
                    // with `force`.
                    Standing::Translated
                        if !(target.is_some_and(|t| same_as_source(&block.source, t))
                            && replaces_stale(request, &lang, false)) =>
                    {
                        continue;
                    }
                    Standing::Stale(_) if draft => continue,
                    // A target a person may have written (equal to its source, or with
                    // placeholders that differ) stays unless the run may replace it.
                    Standing::Stale(_)
                        if !replaces_stale(
                            request,
                            &lang,
                            target.is_some_and(marked_unfinished) || source_moved,
                        ) =>
                    {
                        continue;
                    }
                    _ => {}
                }
                w.todo += 1;
                let copy = Edition::new(block.source.runs.clone());
                w.blocks.extend(todos(block, &lang, Some(&copy)));
            }
            work.push(w);
        }
    }
    Ok(work)
}
