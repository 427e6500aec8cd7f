//! The whole-or-nothing write of a change set's documents: every new file is written beside
//! its original as a temporary file and synced first; only then is each renamed over its
//! original, in order. A failure before the renames leaves every document as it was and no
//! temporary file behind; a failure between two renames (the disk, a signal) leaves each
//! document either wholly old or wholly new, and the result names the ones that landed.
//!
//! This is kapi's one atomic write: every file kapi writes (documents, the recipe, terms,
//! notes, rules files, agent wiring, hook state, `init`'s files) goes through [`commit`],
//! [`write_one`] or [`write_new`]. A file keeps its permissions; a new one gets the mode any
//! new file gets (0666 less the umask: 0644 as usual), never a temporary file's 0600. A
//! temporary file a killed writer left beside a file is removed by the next write of it.
//!
//! Writes go through folder handles (Unix): the folder of each file is opened once, and the
//! temporary file is created, synced and renamed inside that handle, so a folder renamed or
//! replaced while kapi writes can never redirect the write. Under [`Control::within`] (the
//! project's real root), every folder from the root down is opened one name at a time without
//! following a symbolic link (`O_NOFOLLOW | O_DIRECTORY`), and a file that became a link is
//! refused: a folder swapped for a link to somewhere else while `kapi apply` runs makes the
//! write fail, never land outside the project. Between two renames, [`Control::stop`] (a
//! signal's flag) ends the commit: what landed stays, the rest is removed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// One document's new bytes.
#[derive(Debug, Clone)]
pub struct StagedFile {
    /// As the change set names it.
    pub doc: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Test hooks (the host sets them only in debug builds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fault {
    /// Make the rename of the file at this index fail, as a full disk between two documents
    /// would.
    pub fail_rename: Option<usize>,
    /// Before the rename of the file at this index, wait (up to 30 s) for the stop flag, so a
    /// test can deliver a signal between two documents.
    pub pause_rename: Option<usize>,
}

/// How a commit is held in.
#[derive(Debug, Clone, Copy, Default)]
pub struct Control<'a> {
    /// The real folder every file lies beneath (a project's root): each folder below it is
    /// opened without following a symbolic link. `None`: a file's folder is opened by path.
    pub within: Option<&'a Path>,
    pub fault: Fault,
    /// Set from outside (a signal): no rename starts once it is.
    pub stop: Option<&'a AtomicBool>,
}

/// What a commit wrote.
#[derive(Debug)]
pub struct Committed {
    /// Per staged file, whether its new bytes landed.
    pub landed: Vec<bool>,
    /// The first failure: the file's index and what went wrong. A stop is
    /// `ErrorKind::Interrupted`.
    pub error: Option<(usize, std::io::Error)>,
}

impl Committed {
    /// Every file landed.
    pub fn complete(&self) -> bool {
        self.error.is_none()
    }

    /// The commit was stopped from outside.
    pub fn interrupted(&self) -> bool {
        matches!(&self.error, Some((_, e)) if e.kind() == std::io::ErrorKind::Interrupted)
    }
}

/// How every temporary file kapi writes ends: `.NAME.PID.RANDOM.kapi-tmp`, beside NAME.
pub const TEMP_SUFFIX: &str = ".kapi-tmp";

/// Writes every staged file: all temporary files first, then the renames.
pub fn commit(files: &[StagedFile], control: &Control<'_>) -> Committed {
    let mut landed = vec![false; files.len()];
    let stopped = || control.stop.is_some_and(|s| s.load(Ordering::SeqCst));
    let interrupted = || {
        std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "stopped by a signal before it was renamed into place",
        )
    };
    let mut temps: Vec<Temp> = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        if stopped() {
            return Committed {
                landed,
                error: Some((i, interrupted())),
            };
        }
        match Temp::write(&file.path, &file.bytes, control.within) {
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
    for (i, tmp) in temps.into_iter().enumerate() {
        if control.fault.pause_rename == Some(i) {
            let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while !stopped() && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        if stopped() {
            return Committed {
                landed,
                error: Some((i, interrupted())),
            };
        }
        if control.fault.fail_rename == Some(i) {
            return Committed {
                landed,
                error: Some((
                    i,
                    std::io::Error::other("injected failure before the rename (test hook)"),
                )),
            };
        }
        match tmp.persist(false) {
            Ok(()) => landed[i] = true,
            Err(e) => {
                return Committed {
                    landed,
                    error: Some((i, e)),
                };
            }
        }
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
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::MetadataExt;
        if meta.is_file() && meta.nlink() > 1 {
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
        &Control::default(),
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
    Temp::write(path, bytes, None)?.persist(true)
}

/// The name a path ends in, as a temporary file's name carries it.
fn file_name(path: &Path) -> std::io::Result<&std::ffi::OsStr> {
    path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{}` names no file", path.display()),
        )
    })
}

/// A temporary file's name: `.NAME.PID.RANDOM.kapi-tmp`.
fn temp_name(name: &std::ffi::OsStr, attempt: u32) -> std::ffi::OsString {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let mut out = std::ffi::OsString::from(".");
    out.push(name);
    out.push(format!(
        ".{}.{:012x}{TEMP_SUFFIX}",
        std::process::id(),
        h.finish() & 0xffff_ffff_ffff
    ));
    out
}

/// Whether a temporary file's name is a leftover of `name` by a process that is gone.
fn dead_leftover(
    entry: &str,
    name: &str,
    me: u32,
    modified: impl Fn() -> Option<std::time::SystemTime>,
) -> bool {
    let prefix = format!(".{name}.");
    let Some(rest) = entry
        .strip_prefix(&prefix)
        .and_then(|f| f.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let Some(pid) = rest.split('.').next().and_then(|p| p.parse::<u32>().ok()) else {
        return false;
    };
    pid != me && !alive(pid, modified)
}

/// Whether the process that wrote a temporary file may still be writing it (on a system
/// without `/proc`, a file younger than a day may be).
fn alive(pid: u32, modified: impl Fn() -> Option<std::time::SystemTime>) -> bool {
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return proc.join(pid.to_string()).exists();
    }
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    modified()
        .and_then(|t| t.elapsed().ok())
        .is_none_or(|age| age < day)
}

#[cfg(unix)]
use unix::Temp;

/// Temporary files through folder handles.
#[cfg(unix)]
mod unix {
    use std::ffi::{OsStr, OsString};
    use std::os::fd::OwnedFd;
    use std::path::{Component, Path};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::{dead_leftover, file_name, temp_name};

    /// A synced temporary file beside its destination, removed unless persisted.
    pub(super) struct Temp {
        dir: OwnedFd,
        name: OsString,
        tmp: OsString,
        done: bool,
    }

    impl Temp {
        /// Writes `bytes` to a temporary file in `path`'s folder, with the mode `path` has
        /// (or a new file's).
        pub(super) fn write(
            path: &Path,
            bytes: &[u8],
            within: Option<&Path>,
        ) -> std::io::Result<Temp> {
            let name = file_name(path)?.to_owned();
            let dir = open_folder(path, within)?;
            sweep(&dir, &name);
            let follow = if within.is_some() {
                AtFlags::SYMLINK_NOFOLLOW
            } else {
                AtFlags::empty()
            };
            let mode = match rustix::fs::statat(&dir, name.as_os_str(), follow) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => {
                    return Err(std::io::Error::other(format!(
                        "`{}` became a symbolic link after it was read; kapi writes only the file it read",
                        path.display()
                    )));
                }
                Ok(st) => Some(st.st_mode & 0o7777),
                Err(Errno::NOENT) => None,
                Err(e) => return Err(e.into()),
            };
            let mut attempt = 0;
            let (fd, tmp) = loop {
                let tmp = temp_name(&name, attempt);
                let flags = OFlags::WRONLY
                    | OFlags::CREATE
                    | OFlags::EXCL
                    | OFlags::NOFOLLOW
                    | OFlags::CLOEXEC;
                // 0666: the umask makes it a new file's usual mode; an existing file's is set below.
                match rustix::fs::openat(&dir, tmp.as_os_str(), flags, Mode::from_raw_mode(0o666)) {
                    Ok(fd) => break (fd, tmp),
                    Err(Errno::EXIST) if attempt < 16 => attempt += 1,
                    Err(e) => return Err(e.into()),
                }
            };
            let temp = Temp {
                dir,
                name,
                tmp,
                done: false,
            };
            let mut file = std::fs::File::from(fd);
            std::io::Write::write_all(&mut file, bytes)?;
            if let Some(mode) = mode {
                rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
            }
            file.sync_all()?;
            Ok(temp)
        }

        /// Renames the temporary file over its destination (`noclobber`: only if none
        /// exists, else `AlreadyExists`), then syncs the folder.
        pub(super) fn persist(mut self, noclobber: bool) -> std::io::Result<()> {
            if noclobber {
                rustix::fs::linkat(
                    &self.dir,
                    self.tmp.as_os_str(),
                    &self.dir,
                    self.name.as_os_str(),
                    AtFlags::empty(),
                )?;
            } else {
                rustix::fs::renameat(
                    &self.dir,
                    self.tmp.as_os_str(),
                    &self.dir,
                    self.name.as_os_str(),
                )?;
                self.done = true;
            }
            let _ = rustix::fs::fsync(&self.dir);
            Ok(())
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            if !self.done {
                let _ = rustix::fs::unlinkat(&self.dir, self.tmp.as_os_str(), AtFlags::empty());
            }
        }
    }

    /// Opens the folder `path` lies in; under `within`, one name at a time from it without
    /// following a symbolic link.
    fn open_folder(path: &Path, within: Option<&Path>) -> std::io::Result<OwnedFd> {
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let parent = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let Some(root) = within else {
            return Ok(rustix::fs::open(parent, dir_flags, Mode::empty())?);
        };
        let outside = || {
            std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "`{}` is outside `{}`; nothing is written there",
                    path.display(),
                    root.display()
                ),
            )
        };
        let rel = parent.strip_prefix(root).map_err(|_| outside())?;
        let mut fd = rustix::fs::open(root, dir_flags, Mode::empty())?;
        let mut walked = root.to_path_buf();
        for component in rel.components() {
            let name: &OsStr = match component {
                Component::Normal(name) => name,
                Component::CurDir => continue,
                _ => return Err(outside()),
            };
            walked.push(name);
            fd = rustix::fs::openat(&fd, name, dir_flags | OFlags::NOFOLLOW, Mode::empty())
                .map_err(|e| match e {
                    Errno::LOOP | Errno::NOTDIR => std::io::Error::other(format!(
                        "`{}` is no longer a folder (a symbolic link or a file took its place); nothing is written through it",
                        walked.display()
                    )),
                    e => e.into(),
                })?;
        }
        Ok(fd)
    }

    /// Removes what a killed writer left beside `name` in `dir` (best effort).
    fn sweep(dir: &OwnedFd, name: &OsStr) {
        let (Some(name), Ok(entries)) = (name.to_str(), rustix::fs::Dir::read_from(dir)) else {
            return;
        };
        let me = std::process::id();
        for entry in entries.flatten() {
            let file = entry.file_name();
            let Ok(entry_name) = file.to_str() else {
                continue;
            };
            let modified = || {
                rustix::fs::statat(dir, file, AtFlags::SYMLINK_NOFOLLOW)
                    .ok()
                    .and_then(|st| u64::try_from(st.st_mtime).ok())
                    .map(|s| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s))
            };
            if dead_leftover(entry_name, name, me, modified) {
                let _ = rustix::fs::unlinkat(dir, file, AtFlags::empty());
            }
        }
    }
}

#[cfg(not(unix))]
use portable::Temp;

/// Temporary files by path, where there are no folder handles.
#[cfg(not(unix))]
mod portable {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    pub(super) struct Temp {
        tmp: tempfile::NamedTempFile,
        path: PathBuf,
    }

    impl Temp {
        pub(super) fn write(path: &Path, bytes: &[u8], _: Option<&Path>) -> std::io::Result<Temp> {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let name = super::file_name(path)?.to_string_lossy().into_owned();
            let prefix = format!(".{name}.{}.", std::process::id());
            let mut tmp = tempfile::Builder::new()
                .prefix(&prefix)
                .suffix(super::TEMP_SUFFIX)
                .tempfile_in(dir)?;
            tmp.write_all(bytes)?;
            if let Ok(meta) = std::fs::metadata(path) {
                std::fs::set_permissions(tmp.path(), meta.permissions())?;
            }
            tmp.as_file().sync_all()?;
            Ok(Temp {
                tmp,
                path: path.to_path_buf(),
            })
        }

        pub(super) fn persist(self, noclobber: bool) -> std::io::Result<()> {
            if noclobber {
                self.tmp
                    .persist_noclobber(&self.path)
                    .map_err(|e| e.error)?;
            } else {
                self.tmp.persist(&self.path).map_err(|e| e.error)?;
            }
            Ok(())
        }
    }
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
        let done = commit(&files, &Control::default());
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
            &Control {
                fault: Fault {
                    fail_rename: Some(1),
                    ..Fault::default()
                },
                ..Control::default()
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
        let done = commit(&files, &Control::default());
        assert_eq!(done.landed, [false, false]);
        assert_eq!(std::fs::read(&ok).unwrap(), b"old");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("a.md"), "outside").unwrap();
        std::fs::write(root.join("docs/a.md"), "old").unwrap();
        std::fs::rename(root.join("docs"), root.join("docs.real")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("docs")).unwrap();
        let files = vec![StagedFile {
            doc: "docs/a.md".into(),
            path: root.join("docs/a.md"),
            bytes: b"new".to_vec(),
        }];
        let done = commit(
            &files,
            &Control {
                within: Some(&root),
                ..Control::default()
            },
        );
        let message = done
            .error
            .as_ref()
            .map(|e| e.1.to_string())
            .unwrap_or_default();
        assert!(message.contains("no longer a folder"), "{message}");
        assert_eq!(done.landed, [false]);
        assert_eq!(std::fs::read(outside.join("a.md")).unwrap(), b"outside");
        assert!(leftovers(&outside).is_empty());
        // Without the walk, the same write follows the link.
        assert!(commit(&files, &Control::default()).complete());
        assert_eq!(std::fs::read(outside.join("a.md")).unwrap(), b"new");
    }

    #[test]
    fn a_stop_between_renames_keeps_what_landed_and_removes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<StagedFile> = (0..2)
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
        let stop = AtomicBool::new(true);
        let done = commit(
            &files,
            &Control {
                stop: Some(&stop),
                ..Control::default()
            },
        );
        assert!(done.interrupted());
        assert_eq!(done.landed, [false, false]);
        assert!(leftovers(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_file_keeps_its_mode_and_a_new_one_gets_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.sh");
        std::fs::write(&kept, "old").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o751)).unwrap();
        write_one(&kept, b"new").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&kept), 0o751);
        let fresh = dir.path().join("fresh.txt");
        write_new(&fresh, b"x").unwrap();
        assert_ne!(mode(&fresh), 0o600, "not a temporary file's mode");
        assert_eq!(mode(&fresh) & 0o022, 0, "the umask applies");
        assert_eq!(
            write_new(&fresh, b"y").map_err(|e| e.kind()),
            Err(std::io::ErrorKind::AlreadyExists)
        );
        assert!(leftovers(dir.path()).is_empty());
    }
}
