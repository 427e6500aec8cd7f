//! What the hooks remember within one assistant session, in `.kapi/work/hooks/<session>.json`:
//! the working tree as the session found it, the files its edits touched (and, beside the state,
//! copies of files as they were before its first edit of them), and the stop hook's memory of
//! what it blocked and reported.
//!
//! The count is kapi's own loop guard for hosts without `stop_hook_active` or a cap of their
//! own: a stop is blocked at most [`MAX_CONSECUTIVE_BLOCKS`] times in a row with no new edit,
//! and at most [`MAX_SESSION_BLOCKS`] times in a session whatever happens. State older than a
//! week is pruned whenever state is written, and with it the session's kept copies. A state
//! file kapi cannot read starts afresh (an older kapi's fields are ignored).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Consecutive stop blocks with no new edit between them.
pub const MAX_CONSECUTIVE_BLOCKS: u32 = 2;
/// Stop blocks in one session, edits or not: never forever.
pub const MAX_SESSION_BLOCKS: u32 = 8;
const PRUNE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);
/// A temporary file a hook ended before renaming (its deadline, a signal) is this old at most.
const STALE_TEMP: Duration = Duration::from_secs(600);
const LOCK: &str = ".lock";
/// The folder beside a session's state that holds its kept copies.
const KEPT_SUFFIX: &str = ".before";

/// One session's hook state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// Stop blocks since the last edit.
    #[serde(default)]
    pub stop_blocks: u32,
    /// Stop blocks in the session.
    #[serde(default)]
    pub session_blocks: u32,
    /// Edits post-edit has recorded in the session.
    #[serde(default)]
    pub edits: u64,
    /// The working tree as the session's first hook found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// Every project-relative file post-edit checked in the session: the session's own, whatever
    /// the working tree says.
    #[serde(default)]
    pub touched: BTreeSet<String>,
    /// Files as pre-edit found them before the session's first edit of them: the hash naming
    /// the kept copy ([`kept_path`]), or `None` for a file that did not exist yet.
    #[serde(default)]
    pub before: BTreeMap<String, Option<String>>,
    /// The findings of the last stop kapi blocked, and the edit count then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_block: Option<LastBlock>,
    /// The digest of the project's other failures the stop last reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<String>,
}

/// The working tree as a session's first hook found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// Whether the project is in a git work tree.
    #[serde(default)]
    pub git: bool,
    /// The commit HEAD named (`None`: no git, or no commit yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Every file that differed from HEAD (changed, added, or untracked and not ignored), by
    /// project-relative path: a person's work in progress, not the session's.
    #[serde(default)]
    pub dirty: BTreeMap<String, Sig>,
    /// More files differed than kapi records: a file it did not record is the session's only
    /// when an edit hook saw it.
    #[serde(default)]
    pub truncated: bool,
}

/// What a file was: its size and modification time, and its content's hash when kapi read it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sig {
    pub len: u64,
    /// Nanoseconds since the Unix epoch (0 when the system does not say).
    pub mtime: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// The stop kapi last blocked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastBlock {
    /// The digest of the findings it blocked for.
    pub findings: String,
    /// [`SessionState::edits`] then.
    pub edits: u64,
}

impl SessionState {
    /// Records an edit of `rel`: the file is the session's, and a new edit starts the
    /// consecutive stop-block count again.
    pub fn record_edit(&mut self, rel: &str) {
        self.edits += 1;
        self.stop_blocks = 0;
        self.touched.insert(rel.to_owned());
    }
}

/// The state file of `session` under `root`.
pub fn path(root: &Path, session: &str) -> PathBuf {
    root.join(kapi_core::project::layout::HOOKS_DIR)
        .join(format!("{}.json", file_key(session)))
}

/// The copy of a file as it was before the session's first edit of it, named by its hash.
pub fn kept_path(root: &Path, session: &str, hash: &str) -> PathBuf {
    root.join(kapi_core::project::layout::HOOKS_DIR)
        .join(format!("{}{KEPT_SUFFIX}", file_key(session)))
        .join(hash)
}

/// A session id as a file name: kept when it is plain, else a readable prefix and a hash.
fn file_key(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= 80
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !session.starts_with('.');
    if plain {
        return session.to_owned();
    }
    let prefix: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(24)
        .collect();
    let hash: String = Sha256::digest(session.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{prefix}-{hash}")
}

/// Reads a session's state; a missing or unreadable file is a fresh state.
pub fn load(root: &Path, session: &str) -> SessionState {
    std::fs::read(path(root, session))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Loads, changes and saves a session's state under the hooks folder's lock, so hooks running
/// side by side (parallel edits, a stop during an edit) never lose each other's records. The
/// lock is an advisory file lock the OS releases when the process ends, however it ends.
pub fn update<T>(
    root: &Path,
    session: &str,
    change: impl FnOnce(&mut SessionState) -> T,
) -> Result<T, String> {
    let file = path(root, session);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let lock_path = dir.join(LOCK);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let mut state = load(root, session);
    let out = change(&mut state);
    save(root, session, &state)?;
    drop(lock);
    Ok(out)
}

/// Writes a session's state atomically and prunes week-old state files (callers hold the lock:
/// use [`update`]).
fn save(root: &Path, session: &str, state: &SessionState) -> Result<(), String> {
    let file = path(root, session);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let bytes = serde_json::to_vec_pretty(state).map_err(|e| e.to_string())?;
    // Derived state: never synced (a crash can only forget a pending edit).
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    crate::derived::write(&file, &bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    prune(&dir, &file);
    Ok(())
}

fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let older = |entry: &std::fs::DirEntry, limit: Duration| {
        entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > limit)
    };
    let mut kept_dirs = Vec::new();
    for entry in entries.flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let limit = if let Some(key) = name.strip_suffix(KEPT_SUFFIX) {
            // A session's kept copies go with its state (after the state's own pruning).
            kept_dirs.push((entry, format!("{key}.json")));
            continue;
        } else if name.ends_with(".kapi-tmp") {
            STALE_TEMP
        } else if name.ends_with(".json") {
            PRUNE_AFTER
        } else {
            continue;
        };
        if p != keep && older(&entry, limit) {
            let _ = std::fs::remove_file(p);
        }
    }
    for (entry, state) in kept_dirs {
        // Written after its state is: a folder with no state beside it for ten minutes is
        // a pruned session's.
        if !dir.join(state).exists() && older(&entry, STALE_TEMP) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_a_broken_file_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SessionState {
            stop_blocks: 1,
            ..SessionState::default()
        };
        s.record_edit("docs/a.md");
        let copy = s.clone();
        update(dir.path(), "abc-1", |state| *state = copy).unwrap();
        assert_eq!(load(dir.path(), "abc-1"), s);
        std::fs::write(path(dir.path(), "abc-1"), "{not json").unwrap();
        assert_eq!(load(dir.path(), "abc-1"), SessionState::default());
        assert_eq!(load(dir.path(), "other"), SessionState::default());
    }

    #[test]
    fn parallel_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for i in 0..16 {
                let root = dir.path();
                scope.spawn(move || {
                    update(root, "s", |state| {
                        state.record_edit(&format!("f{i}.md"));
                    })
                    .unwrap();
                });
            }
        });
        assert_eq!(load(dir.path(), "s").touched.len(), 16);
    }

    #[test]
    fn an_older_kapis_state_loads_and_kept_copies_go_with_their_state() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(kapi_core::project::layout::HOOKS_DIR)).unwrap();
        std::fs::write(
            path(root, "old"),
            r#"{"stop_blocks": 1, "pending": {"a.md": {"reason": "x", "edit": 1}}}"#,
        )
        .unwrap();
        assert_eq!(load(root, "old").stop_blocks, 1);
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let kept = |session: &str| {
            let file = kept_path(root, session, "h");
            let folder = file.parent().unwrap().to_path_buf();
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(&file, "x").unwrap();
            std::fs::File::open(&folder)
                .unwrap()
                .set_modified(hour_ago)
                .unwrap();
            file
        };
        let (gone, stays) = (kept("gone"), kept("old"));
        update(root, "new", |_| ()).unwrap();
        assert!(!gone.exists() && !gone.parent().unwrap().exists());
        assert!(stays.exists());
    }

    #[test]
    fn session_ids_never_leave_the_state_folder() {
        let dir = Path::new("/p");
        for id in ["../../etc/passwd", "a/b", ".hidden", "", &"x".repeat(500)] {
            let p = path(dir, id);
            assert_eq!(p.parent(), Some(Path::new("/p/.kapi/work/hooks")), "{id}");
        }
        assert_eq!(file_key("sess_01.x"), "sess_01.x");
    }
}
