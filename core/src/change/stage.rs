//! The whole-or-nothing write of a change set's documents: every new file is written beside
//! its original as a temporary file and synced first; only then is each renamed over its
//! original, in order. A failure before the renames leaves every document as it was and no
//! temporary file behind; a failure between two renames (the disk, a kill) leaves each
//! document either wholly old or wholly new, and the result names the ones that landed.
//!
//! This is kapi's one atomic write: every file kapi writes (documents, the recipe, terms,
//! notes, rules files, agent wiring, hook state, `init`'s files) goes through [`commit`],
//! [`write_one`] or [`write_new`]. A file keeps its permissions; a new one gets the mode any
//! new file gets (0666 less the umask: 0644 as usual), never a temporary file's 0600. A
//! temporary file a killed writer left beside a file is removed by the next write of it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// One document's new bytes.
#[derive(Debug, Clone)]
pub struct StagedFile {
    /// As the change set names it.
    pub doc: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// A test hook: make the rename of the file at this index fail, as a crash between two
/// documents would (the host sets it only in debug builds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fault {
    pub fail_rename: Option<usize>,
}

/// What a commit wrote.
#[derive(Debug)]
pub struct Committed {
    /// Per staged file, whether its new bytes landed.
    pub landed: Vec<bool>,
    /// The first failure: the file's index and what went wrong.
    pub error: Option<(usize, std::io::Error)>,
}

impl Committed {
    /// Every file landed.
    pub fn complete(&self) -> bool {
        self.error.is_none()
    }
}

/// How every temporary file kapi writes ends: `.NAME.PID.RANDOM.kapi-tmp`, beside NAME.
pub const TEMP_SUFFIX: &str = ".kapi-tmp";

/// Removes what a killed writer left beside `name` in `dir`: its temporary files whose
/// process is gone (best effort; on a system without `/proc`, those older than a day).
fn sweep(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    let me = std::process::id();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|f| f.strip_suffix(TEMP_SUFFIX))
        else {
            continue;
        };
        let Some(pid) = rest.split('.').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != me && !alive(pid, &entry) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether the process that wrote a temporary file may still be writing it.
fn alive(pid: u32, entry: &std::fs::DirEntry) -> bool {
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return proc.join(pid.to_string()).exists();
    }
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    entry
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_none_or(|age| age < day)
}

fn temp_beside(path: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    sweep(dir, &name);
    let existing = std::fs::metadata(path).ok();
    let mut builder = tempfile::Builder::new();
    // The writer's process id in the name, so a later write can tell a dead writer's leftover.
    let prefix = format!(".{name}.{}.", std::process::id());
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    if existing.is_none() {
        // Created with the mode a new file gets (the umask applies), not a temporary's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(meta) = existing {
        // Keep the original's permissions.
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// Writes every staged file: all temporary files first, then the renames.
pub fn commit(files: &[StagedFile], fault: Fault) -> Committed {
    let mut landed = vec![false; files.len()];
    let mut temps = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        match temp_beside(&file.path, &file.bytes) {
            Ok(tmp) => temps.push(tmp),
            // Dropping `temps` deletes every temporary file written so far.
            Err(e) => {
                return Committed {
                    landed,
                    error: Some((i, e)),
                };
            }
        }
    }
    for (i, (tmp, file)) in temps.into_iter().zip(files).enumerate() {
        if fault.fail_rename == Some(i) {
            return Committed {
                landed,
                error: Some((
                    i,
                    std::io::Error::other("injected failure before the rename (test hook)"),
                )),
            };
        }
        match tmp.persist(&file.path) {
            Ok(_) => landed[i] = true,
            Err(e) => {
                return Committed {
                    landed,
                    error: Some((i, e.error)),
                };
            }
        }
        sync_dir(&file.path);
    }
    Committed {
        landed,
        error: None,
    }
}

/// Writes one file whole or not at all (its folder created first): a temporary file beside
/// it, synced, then renamed over it. A hard-linked file is written in place instead, so every
/// name keeps showing the same file.
pub fn write_one(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            file.write_all(bytes)?;
            return file.sync_all();
        }
    }
    let done = commit(
        &[StagedFile {
            doc: path.display().to_string(),
            path: path.to_path_buf(),
            bytes: bytes.to_vec(),
        }],
        Fault::default(),
    );
    match done.error {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Writes a file that must not exist yet, whole or not at all (its folder created first);
/// `AlreadyExists` when it does.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = temp_beside(path, bytes)?;
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    sync_dir(path);
    Ok(())
}

/// Makes a rename durable: syncs the folder that holds `path` (best effort; Unix only).
fn sync_dir(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(f) = std::fs::File::open(dir)
    {
        let _ = f.sync_all();
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod sweep_tests {
    use super::*;

    #[test]
    fn a_dead_writers_temporary_file_is_removed_by_the_next_write() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("a.md");
        std::fs::write(&path, "old").expect("write");
        // No process has id 4194305 (above Linux's pid_max ceiling); ours is alive.
        let dead = dir.path().join(".a.md.4194305.abc123.kapi-tmp");
        let live = dir
            .path()
            .join(format!(".a.md.{}.def456.kapi-tmp", std::process::id()));
        let other = dir.path().join(".b.md.4194305.abc123.kapi-tmp");
        for p in [&dead, &live, &other] {
            std::fs::write(p, "half").expect("write");
        }
        write_one(&path, b"new").expect("write_one");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        assert!(!dead.exists(), "a dead writer's leftover is swept");
        assert!(live.exists(), "a live writer's file is left");
        assert!(
            other.exists(),
            "only the written file's leftovers are swept"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".kapi-tmp"))
            .collect()
    }

    #[test]
    fn every_file_lands_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<StagedFile> = (0..3)
            .map(|i| {
                let path = dir.path().join(format!("{i}.txt"));
                std::fs::write(&path, "old").unwrap();
                StagedFile {
                    doc: format!("{i}.txt"),
                    path,
                    bytes: format!("new {i}").into_bytes(),
                }
            })
            .collect();
        let done = commit(&files, Fault::default());
        assert!(done.complete());
        assert_eq!(done.landed, [true, true, true]);
        for f in &files {
            assert_eq!(std::fs::read(&f.path).unwrap(), f.bytes);
        }
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_failed_rename_reports_what_landed_and_leaves_no_half_file() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<StagedFile> = (0..3)
            .map(|i| {
                let path = dir.path().join(format!("{i}.txt"));
                std::fs::write(&path, "old").unwrap();
                StagedFile {
                    doc: format!("{i}.txt"),
                    path,
                    bytes: b"new".to_vec(),
                }
            })
            .collect();
        let done = commit(
            &files,
            Fault {
                fail_rename: Some(1),
            },
        );
        assert_eq!(done.landed, [true, false, false]);
        assert_eq!(done.error.as_ref().map(|e| e.0), Some(1));
        assert_eq!(std::fs::read(&files[0].path).unwrap(), b"new");
        assert_eq!(std::fs::read(&files[1].path).unwrap(), b"old");
        assert_eq!(std::fs::read(&files[2].path).unwrap(), b"old");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_failed_temporary_write_lands_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("a.txt");
        std::fs::write(&ok, "old").unwrap();
        let files = vec![
            StagedFile {
                doc: "a.txt".into(),
                path: ok.clone(),
                bytes: b"new".to_vec(),
            },
            StagedFile {
                doc: "missing/b.txt".into(),
                path: dir.path().join("missing/b.txt"),
                bytes: b"new".to_vec(),
            },
        ];
        let done = commit(&files, Fault::default());
        assert_eq!(done.landed, [false, false]);
        assert_eq!(std::fs::read(&ok).unwrap(), b"old");
        assert!(leftovers(dir.path()).is_empty());
    }
}
