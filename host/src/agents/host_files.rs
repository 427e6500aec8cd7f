//! One host's files: paths checked to stay inside the project (no symlink on the way), read
//! when they exist, then written whole or not at all, with the removals after.

use std::path::{Component, Path, PathBuf};

use kapi_core::change::stage::{self, StagedFile};

use super::HostWiring;

/// Files to write and files to remove, relative to the root, decided before any is touched.
#[derive(Default)]
pub(super) struct Plan {
    pub(super) writes: Vec<(String, Vec<u8>)>,
    pub(super) removes: Vec<String>,
}

impl Plan {
    /// Writes the host's changed files whole or not at all: a file the person made read-only
    /// refuses the host before anything is written, and every new file is staged beside its
    /// original before any replaces one. Then the removals.
    pub(super) fn apply(self, root: &Path, wiring: &mut HostWiring) -> Result<(), String> {
        let mut staged = Vec::new();
        for (rel, bytes) in self.writes {
            let path = root.join(&rel);
            if std::fs::read(&path).ok().as_deref() == Some(&bytes[..]) {
                continue;
            }
            if std::fs::metadata(&path).is_ok_and(|m| m.permissions().readonly()) {
                return Err(format!(
                    "{rel} is read-only; kapi does not replace a file you made read-only, so nothing of this host was written: make it writable (`chmod u+w {rel}`) and run `kapi init` again"
                ));
            }
            staged.push(StagedFile {
                doc: rel,
                path,
                bytes,
            });
        }
        const NOTHING: &str =
            "nothing of this host was written: make its folder writable and run `kapi init` again";
        let mut created = Vec::new();
        if let Err(e) = create_parents(root, &staged, &mut created) {
            remove_dirs(&created);
            return Err(format!("{e}; {NOTHING}"));
        }
        let done = stage::commit(&staged, &stage::Control::default());
        for (file, landed) in staged.iter().zip(&done.landed) {
            if *landed {
                wiring.written.push(file.doc.clone());
            }
        }
        if let Some((i, e)) = done.error {
            let rel = &staged[i].doc;
            if done.landed.iter().any(|l| *l) {
                return Err(format!("{rel}: {e}"));
            }
            remove_dirs(&created);
            return Err(format!("{rel}: {e}; {NOTHING}"));
        }
        for rel in self.removes {
            let path = root.join(&rel);
            std::fs::remove_file(&path).map_err(|e| format!("{rel}: {e}"))?;
            // An emptied subfolder (`references/i18n/`, then `references/`) goes with its last
            // file; the skill folder itself keeps SKILL.md, so the walk stops there.
            for dir in path.ancestors().skip(1) {
                if dir == root || std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
            wiring.removed.push(rel);
        }
        Ok(())
    }
}

/// Creates the folders the staged files go in, recording the ones that did not exist (outer
/// first) in `created`, so a failed write can take them away again.
fn create_parents(
    root: &Path,
    staged: &[StagedFile],
    created: &mut Vec<PathBuf>,
) -> Result<(), String> {
    for file in staged {
        let Some(parent) = file.path.parent() else {
            continue;
        };
        let mut missing: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|d| *d != root && std::fs::symlink_metadata(d).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        for dir in missing {
            std::fs::create_dir(&dir).map_err(|e| {
                let shown = dir.strip_prefix(root).unwrap_or(&dir);
                format!("{}: {e}", shown.display())
            })?;
            created.push(dir);
        }
    }
    Ok(())
}

/// Removes the folders `create_parents` made, inner first (each only if still empty).
fn remove_dirs(created: &[PathBuf]) {
    for dir in created.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Refuses a path that leads through a symlink, or anything but plain folders and files.
pub(super) fn check_path(root: &Path, rel: &str) -> Result<(), String> {
    let mut at = root.to_path_buf();
    let mut shown = PathBuf::new();
    for part in Path::new(rel).components() {
        let Component::Normal(name) = part else {
            return Err(format!("{rel}: not a path under the project"));
        };
        at.push(name);
        shown.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symlink; kapi writes host configuration only inside the project, so it leaves this host alone",
                    shown.display()
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("{}: {e}", shown.display())),
        }
    }
    Ok(())
}

/// Reads a file that may not exist yet, refusing a symlink on the way.
pub(super) fn read_existing(root: &Path, rel: &str) -> Result<Option<String>, String> {
    check_path(root, rel)?;
    match std::fs::read(root.join(rel)) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{rel}: not UTF-8 text; kapi leaves it alone")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{rel}: {e}")),
    }
}
