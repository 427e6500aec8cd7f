//! What one process reuses while the files it came from are unchanged: the loaded recipe and
//! each governance, so an MCP server's calls load a project and compile its matcher once.
//!
//! Each entry holds the stat (size, modification time, inode) of every file it was read from,
//! and is used again only while every one is the same and was last modified over two seconds
//! before it was loaded (a filesystem's clock may not tell two writes in one tick apart). A
//! file that was missing must still be missing. At most [`MAX_ENTRIES`] of each are kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, SystemTime};

use kapi_core::governance::Governance;
use kapi_core::project::Project;

/// The most entries of each kind kept; past it, all are let go.
const MAX_ENTRIES: usize = 64;

/// The cores this process may use, asked once (the standard library reads the cgroup files
/// on every call: 5% of an MCP `check_file`).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A modification this recent is never trusted by its stat alone.
pub(crate) const RACY: Duration = Duration::from_secs(2);

/// A file's stat, as a cached thing compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stat {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
}

impl Stat {
    /// The stat of `path`, `None` when it cannot be read (missing).
    pub(crate) fn of(path: &Path) -> Option<Stat> {
        let meta = std::fs::metadata(path).ok()?;
        let mtime = meta.modified().ok()?;
        let mtime_ns = match mtime.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => i128::try_from(d.as_nanos()).unwrap_or(i128::MAX),
            Err(e) => -i128::try_from(e.duration().as_nanos()).unwrap_or(i128::MAX),
        };
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stat {
            size: meta.len(),
            mtime_ns,
            inode,
        })
    }

    /// Whether it was last modified long enough before `now_ns` to be trusted by stat alone.
    pub(crate) fn settled(&self, now_ns: i128) -> bool {
        now_ns - self.mtime_ns > i128::try_from(RACY.as_nanos()).unwrap_or(i128::MAX)
    }
}

/// Now, in nanoseconds since the epoch.
pub(crate) fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// The stats of `paths` now, `None` when any present one is too recent to trust.
fn stamp(paths: &[&Path]) -> Option<Stamp> {
    let now = now_ns();
    let stats: Stamp = paths.iter().map(|p| Stat::of(p)).collect();
    stats
        .iter()
        .flatten()
        .all(|s| s.settled(now))
        .then_some(stats)
}

/// The stats of the files a value was read from (`None`: missing), in order.
type Stamp = Vec<Option<Stat>>;

struct Memo<K, V> {
    entries: Mutex<HashMap<K, (Stamp, V)>>,
}

impl<K: std::hash::Hash + Eq, V: Clone> Memo<K, V> {
    fn new() -> Self {
        Memo {
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The value kept for `key` while `paths` are unchanged, else `load`'s (kept when
    /// `paths` are settled).
    fn get_or_load<E>(
        &self,
        key: K,
        paths: &[&Path],
        load: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        let stamp = stamp(paths);
        if let Some(stamp) = &stamp
            && let Ok(entries) = self.entries.lock()
            && let Some((kept, value)) = entries.get(&key)
            && kept == stamp
        {
            return Ok(value.clone());
        }
        let value = load()?;
        if let Some(stamp) = stamp
            && let Ok(mut entries) = self.entries.lock()
        {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(key, (stamp, value.clone()));
        }
        Ok(value)
    }
}

static PROJECTS: LazyLock<Memo<PathBuf, Project>> = LazyLock::new(Memo::new);

/// What a governance is built from: the project root, the voice file, the channel, the terms
/// files, the language of the source at the point, and the language governed.
pub(crate) type GovernanceKey = (
    PathBuf,
    Option<PathBuf>,
    Option<String>,
    Vec<PathBuf>,
    String,
    String,
);

static GOVERNANCES: LazyLock<Memo<GovernanceKey, Arc<Governance>>> = LazyLock::new(Memo::new);

/// The project whose recipe is `recipe` ([`Project::load`]), loaded once while it is unchanged.
pub(crate) fn project<E>(
    recipe: &Path,
    load: impl FnOnce() -> Result<Project, E>,
) -> Result<Project, E> {
    PROJECTS.get_or_load(recipe.to_path_buf(), &[recipe], load)
}

/// The governance for `key`, read from `files`, loaded once while they are unchanged.
pub(crate) fn governance<E>(
    key: GovernanceKey,
    files: &[&Path],
    load: impl FnOnce() -> Result<Arc<Governance>, E>,
) -> Result<Arc<Governance>, E> {
    GOVERNANCES.get_or_load(key, files, load)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_reused_until_a_file_it_came_from_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, "one").expect("write");
        let old = SystemTime::now() - Duration::from_secs(60);
        let set_old = |path: &Path| {
            let f = std::fs::File::options()
                .write(true)
                .open(path)
                .expect("open");
            f.set_modified(old).expect("set mtime");
        };
        set_old(&file);
        let memo: Memo<u8, u32> = Memo::new();
        let load = |n: u32| move || Ok::<u32, ()>(n);
        assert_eq!(memo.get_or_load(1, &[&file], load(1)), Ok(1));
        assert_eq!(memo.get_or_load(1, &[&file], load(2)), Ok(1), "reused");
        std::fs::write(&file, "three").expect("write");
        set_old(&file);
        assert_eq!(
            memo.get_or_load(1, &[&file], load(3)),
            Ok(3),
            "size changed"
        );
        // A file modified just now is read again on every call until it settles.
        std::fs::write(&file, "four!").expect("write");
        assert_eq!(memo.get_or_load(1, &[&file], load(4)), Ok(4));
        assert_eq!(memo.get_or_load(1, &[&file], load(5)), Ok(5));
        // A file that was missing and appears is a change.
        let missing = dir.path().join("b.yaml");
        assert_eq!(memo.get_or_load(2, &[&missing], load(6)), Ok(6));
        assert_eq!(memo.get_or_load(2, &[&missing], load(7)), Ok(6));
        std::fs::write(&missing, "b").expect("write");
        set_old(&missing);
        assert_eq!(memo.get_or_load(2, &[&missing], load(8)), Ok(8));
    }
}
