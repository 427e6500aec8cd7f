//! `kapi hook pre-edit`: refuses a direct hand-edit of a file kapi generates (a translation
//! target of a collection item marked `generated: true`), naming its source and the kapi
//! command that changes that language instead, and of the project's rules (its `kapi.yaml` and
//! every file under `.kapi/`: voice, terms, notes, decisions), which are a person's, naming the
//! route (`kapi context note`, or ask the person). Every other edit is nothing to report. A
//! path is judged as the system resolves it: through links, and a `..` after a link from the
//! link's target.
//!
//! A target of an item not marked `generated` is a person's translation: an assistant asked
//! to fix a German string edits it like any other file (the post-edit hook checks it against
//! its source), so it is allowed and noted for the stop hook like source content.
//!
//! Before an edit it allows, it also notes for the stop hook how things were before the
//! session (best effort, never part of the verdict): the session's baseline at its first hook,
//! and a copy of a file someone else was editing that the session's first edit of it is about
//! to change ([`super::baseline`]).

use std::path::{Path, PathBuf};

use super::eval::{self, Ctx};
use super::protocol::Verdict;
use crate::app::Base;
use crate::check::plan::Role;

pub fn evaluate(ctx: &Ctx) -> Verdict {
    let paths = match eval::guarded_paths(ctx, true) {
        Ok(paths) => paths,
        Err(verdict) => return verdict,
    };
    let mut denials = Vec::new();
    for path in &paths {
        let folded = match ctx.absolute(path) {
            Ok(abs) => abs,
            Err(message) => return Verdict::CouldNotRun { message },
        };
        // The file the edit really writes: a link to a generated target is that target, and a
        // `..` after a link leaves the link's target (`docs/selfloop/../fr.json` with
        // `selfloop -> .` is `fr.json`), as the system resolves it, not as the text folds.
        let raw = ctx.joined(path).unwrap_or_else(|| folded.clone());
        let unlinked = given_file(&raw).or_else(|| given_file(&folded));
        let abs = resolve(&raw).or_else(|| resolve(&folded)).unwrap_or(folded);
        ctx.phase
            .set(format!("finding the project of {}", abs.display()));
        let project = match ctx.project_for(&abs) {
            Ok(Some(p)) => p,
            Ok(None) => continue,
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        };
        // The project's rules are a person's: its recipe and `.kapi/`.
        if let Some(what) = rules_file(&project, &abs) {
            let named = if unlinked.as_ref() == Some(&abs) {
                what.clone()
            } else {
                format!("{path} (a link to {what})")
            };
            denials.push(format!(
                "{named} holds the project's rules, which are a person's to change: kapi refuses an assistant's direct edit of kapi.yaml and of .kapi/ (voice, terms, notes, decisions). Record what you noticed with `kapi context note --path <folder> --text \"…\"` (MCP: context_note) for a person to review, or ask the person to make the change."
            ));
            continue;
        }
        // The file the edit writes, resolved once (it need not exist yet): one outside the
        // project is none of its business.
        let Ok(target) =
            ctx.app(&project)
                .resolve_target(Base::WorkingFolder, Some(&project), &abs)
        else {
            continue;
        };
        let rel = target.rel().unwrap_or_default().to_owned();
        // Named as the edit names it, and what it resolves to when that is a link.
        let named = if unlinked.as_ref() == Some(&abs) {
            rel.clone()
        } else {
            format!("{path} (a link to {rel})")
        };
        let collections = match project.collections() {
            Ok(c) => c,
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        };
        ctx.phase.set(format!("finding the source of {rel}"));
        let role = crate::check::plan::role(&project, &collections, &rel);
        match role {
            Ok(Role::Translation { source, lang })
                if collections.matches(&source).is_some_and(|m| m.generated) =>
            {
                denials.push(format!(
                "{named} is generated: kapi writes it as the `{lang}` translation of {source} (its collection item says `generated: true` in kapi.yaml), so kapi refuses a direct edit. Change the `{lang}` edition through kapi instead: `kapi inspect {source} --editions {lang}`, then `kapi apply` a change set whose operations name `\"edition\": \"{lang}\"` (MCP: read_blocks, then apply_edits)."
                ));
            }
            Ok(Role::Source | Role::Orphan | Role::Translation { .. }) => {
                let content = !target.exists()
                    || eval::is_content(&project, &collections, &target).unwrap_or(false);
                if content {
                    ctx.phase.set(format!("noting {rel} as it was"));
                    super::baseline::before_edit(&project.root, &ctx.session(), &rel, target.abs());
                }
            }
            Err(e) => {
                return Verdict::CouldNotRun {
                    message: e.to_string(),
                };
            }
        }
    }
    if denials.is_empty() {
        Verdict::Nothing
    } else {
        Verdict::Negative {
            reason: denials.join("\n"),
        }
    }
}

/// The project-relative name of `abs` (resolved) when it is one of the project's rules files:
/// its recipe, or a file under `.kapi/`.
fn rules_file(project: &kapi_core::project::Project, abs: &Path) -> Option<String> {
    let root = resolve(&project.root)?;
    let recipe = resolve(&project.recipe_path).unwrap_or_else(|| project.recipe_path.clone());
    let rel = abs.strip_prefix(&root).ok()?;
    if abs == recipe {
        return Some(rel.display().to_string());
    }
    let kapi_dir = Path::new(kapi_core::project::layout::KAPI_DIR);
    rel.starts_with(kapi_dir).then(|| rel.display().to_string())
}

/// `abs` with every symbolic link resolved: the file an edit of `abs` writes. A file that
/// does not exist yet resolves through its folder, and a link to a file that does not exist
/// yet through the link. `None`: a loop of links, or nothing left to resolve.
fn resolve(abs: &Path) -> Option<PathBuf> {
    let mut path = abs.to_path_buf();
    // Linux's own limit on links followed in one lookup.
    for _ in 0..40 {
        if let Ok(real) = path.canonicalize() {
            return Some(real);
        }
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent()?.join(target),
            Err(_) => {
                let name = path.file_name()?;
                return Some(resolve(path.parent()?)?.join(name));
            }
        }
    }
    None
}

/// `abs` with its folder resolved but not the file itself: equal to [`resolve`]'s answer
/// unless the file is a link.
fn given_file(abs: &Path) -> Option<PathBuf> {
    Some(resolve(abs.parent()?)?.join(abs.file_name()?))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_resolves_to_what_an_edit_writes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("locales")).unwrap();
        std::fs::write(root.join("locales/fr.json"), "{}").unwrap();
        std::os::unix::fs::symlink("locales/fr.json", root.join("notes.json")).unwrap();
        std::os::unix::fs::symlink("locales/de.json", root.join("dangling.json")).unwrap();
        std::os::unix::fs::symlink("locales", root.join("l")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        let r = |p: &str| resolve(&root.join(p));
        assert_eq!(r("notes.json"), Some(root.join("locales/fr.json")));
        assert_eq!(r("dangling.json"), Some(root.join("locales/de.json")));
        assert_eq!(r("l/it.json"), Some(root.join("locales/it.json")));
        assert_eq!(r("new/deeper.json"), Some(root.join("new/deeper.json")));
        assert_eq!(r("loop"), None);
    }
}
