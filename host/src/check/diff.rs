//! `--diff-against REV`: the blocks each file changed since a git revision, its translations
//! included. Each file's blob at REV is read with `git show` (the `git` binary, so the user's
//! own config and credentials apply); a block is changed when its key is new or its content
//! moved. A changed translation (a catalog's target file, a bilingual file's edition) is
//! checked against its source as it is now; a changed source block whose translation did not
//! change is reported stale (pending work, not a failure).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use kapi_core::formats::Format;
use kapi_core::model::SOURCE;

use super::Job;
use crate::app::relative_to;
use crate::error::HostError;

/// What changed in one job's files.
#[derive(Debug, Default)]
pub(super) struct Changed {
    /// Source blocks whose source edition is new or changed (`None`: every block, the file
    /// is new since REV).
    pub source: Option<HashSet<String>>,
    /// Per language, the blocks whose translation is new or changed.
    pub editions: HashMap<String, HashSet<String>>,
}

impl Changed {
    fn is_empty(&self) -> bool {
        self.source.as_ref().is_some_and(HashSet::is_empty)
            && self.editions.values().all(HashSet::is_empty)
    }
}

/// Each block's revision per edition (`source` and every target language it holds).
pub(crate) type Revs = HashMap<String, HashMap<String, String>>;

/// The jobs whose files changed since `rev`, each with what changed.
pub(super) fn changed(
    app: &crate::app::App,
    rev: &str,
    jobs: &[Job],
) -> Result<HashMap<PathBuf, Changed>, HostError> {
    let top = work_tree(&app.cwd, rev)?;
    let mut out = HashMap::new();
    for job in jobs {
        let mut change = Changed {
            source: Some(HashSet::new()),
            ..Changed::default()
        };
        let mut touched = false;
        if let Some((before, now)) = versions(&top, rev, &job.abs, &job.display, job.format)? {
            touched = true;
            change.source = before.as_ref().map(|b| moved(b, &now, SOURCE));
            // A bilingual file's own editions.
            for editions in now.values() {
                for lang in editions.keys().filter(|l| l.as_str() != SOURCE) {
                    change.editions.entry(lang.clone()).or_default();
                }
            }
            for (lang, keys) in change.editions.iter_mut() {
                *keys = match &before {
                    Some(b) => moved(b, &now, lang),
                    None => now.keys().cloned().collect(),
                };
            }
        }
        for target in &job.targets {
            if let Some((before, now)) =
                versions(&top, rev, &target.abs, &target.display, job.format)?
            {
                touched = true;
                let keys = match &before {
                    Some(b) => moved(b, &now, SOURCE),
                    None => now.keys().cloned().collect(),
                };
                change.editions.insert(target.lang.clone(), keys);
            }
        }
        if touched && !change.is_empty() {
            out.insert(job.abs.clone(), change);
        }
    }
    Ok(out)
}

/// The blocks whose `edition` is new or changed between `before` and `now` (a block that
/// lost the edition is gone, not changed).
fn moved(before: &Revs, now: &Revs, edition: &str) -> HashSet<String> {
    now.iter()
        .filter_map(|(key, editions)| {
            let rev = editions.get(edition)?;
            let was = before.get(key).and_then(|e| e.get(edition));
            (was != Some(rev)).then(|| key.clone())
        })
        .collect()
}

/// A file at `rev` and now, as each block's revisions: `None` when the bytes are the same;
/// `(None, now)` when the file is new since `rev` (or its old bytes no longer read).
fn versions(
    top: &Path,
    rev: &str,
    abs: &Path,
    display: &str,
    format: &dyn Format,
) -> Result<Option<(Option<Revs>, Revs)>, HostError> {
    let canonical = abs.canonicalize().unwrap_or_else(|_| abs.to_path_buf());
    let Some(rel) = relative_to(&canonical, top).or_else(|| relative_to(abs, top)) else {
        return Ok(None);
    };
    let now = std::fs::read(abs).map_err(|e| HostError::io(abs, e))?;
    let before = git(top, &["show", &format!("{rev}:{rel}")]).ok();
    if before.as_deref() == Some(now.as_slice()) {
        return Ok(None);
    }
    let now = revs(format, now).map_err(|source| HostError::Read {
        path: display.into(),
        source,
    })?;
    let before = before.and_then(|bytes| revs(format, bytes).ok());
    Ok(Some((before, now)))
}

/// Each prose block's revisions, by key, read a block at a time: the document is never held
/// (a file dense with markup held 20 times its size whole). The stop hook reads a session's
/// files with it too (`hooks::own`), so both tell a changed block the same way.
pub(crate) fn revs(
    format: &dyn Format,
    bytes: Vec<u8>,
) -> Result<Revs, kapi_core::formats::ReadError> {
    let mut revs = Revs::new();
    format.read_each(bytes, &mut |_, b, _| {
        if !b.translatable {
            return;
        }
        let mut editions = HashMap::from([(SOURCE.to_owned(), b.source.rev())]);
        for (lang, edition) in &b.targets {
            editions.insert(lang.clone(), edition.rev());
        }
        revs.insert(b.key, editions);
    })?;
    Ok(revs)
}

/// The top of the git work tree `cwd` is in, once `rev` is proven a commit in it.
fn work_tree(cwd: &Path, rev: &str) -> Result<PathBuf, HostError> {
    let top = git(cwd, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    git(
        cwd,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| HostError::Git {
        message: format!("`{rev}` is not a revision in this repository"),
    })?;
    Ok(top)
}

/// The bytes of `abs` at the git revision `rev` (`None`: the file did not exist there), as
/// `kapi diff --rev` compares them; refused when the folder is no git work tree or `rev` is
/// no revision in it.
pub(crate) fn blob_at(cwd: &Path, rev: &str, abs: &Path) -> Result<Option<Vec<u8>>, HostError> {
    let top = work_tree(cwd, rev)?;
    let canonical = abs.canonicalize().unwrap_or_else(|_| abs.to_path_buf());
    let Some(rel) = relative_to(&canonical, &top).or_else(|| relative_to(abs, &top)) else {
        return Err(HostError::Git {
            message: format!(
                "`{}` is outside the repository at `{}`",
                abs.display(),
                top.display()
            ),
        });
    };
    Ok(git(&top, &["show", &format!("{rev}:{rel}")]).ok())
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, HostError> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| HostError::Git {
            message: format!("could not run `git`: {e}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(HostError::Git {
            message: stderr.lines().next().unwrap_or("failed").to_owned(),
        });
    }
    Ok(output.stdout)
}
