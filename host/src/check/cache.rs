//! The check cache: a file unchanged since it was last checked, under the same governance and
//! the same kapi build, reuses that check's findings, so a re-check of a tree costs a stat a file.
//!
//! Where: `.kapi/work/cache/check-<build>/NN.json`, 64 shards by the file's path, so checking
//! one file reads and writes one small shard. `<build>` is kapi's version and the binary's size
//! and modification time: another kapi never reads this one's cache (old folders are removed).
//!
//! An entry is trusted when the file's size, modification time and inode match it, or, when
//! they do not, when the SHA-256 of its bytes does (a `touch`, a checkout of the same bytes).
//! A file modified within two seconds of its check is never trusted by its stat alone (a
//! filesystem's clock may not tell two writes in one tick apart). The key also holds the
//! governance fingerprints, the format, the path as the report names it and what was checked,
//! so a changed voice, terms file, working folder or flag is a miss.
//!
//! Safe under concurrent runs: each shard is written whole to a temporary file and renamed; two
//! runs that race lose an entry at worst (a miss next time), never trust a wrong one. A shard
//! that does not parse is empty. Not cached: a diff (`--diff-against`), a catalog checked with
//! its translation files (their bytes are not in the key), a run that found an error.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use kapi_core::check::{CacheUse, Finding, Findings, Suppressed};
use kapi_core::project::layout::{KAPI_DIR, WORK_DIR};
use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::Job;
use super::allowed::Allowed;
use super::run::FileResult;
use crate::inspect::hex;
use crate::memo::{Stat, now_ns};

const SHARDS: usize = 64;

/// One file's cached check.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// What the findings depend on besides the bytes ([`key_of`]).
    key: String,
    /// The file's stat when it was read.
    stat: Stat,
    /// False when the file changed too close to its check to trust its stat alone.
    stat_trusted: bool,
    /// SHA-256 of the bytes checked, hex.
    digest: String,
    findings: Vec<Finding>,
    dropped: [usize; 4],
    blocks: usize,
    /// What the project allowed where it stands, and how many in all.
    #[serde(default)]
    suppressed: Vec<Suppressed>,
    #[serde(default)]
    suppressed_count: usize,
    /// Words checked per file the findings name.
    #[serde(default)]
    words: Vec<(String, usize)>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Shard {
    entries: HashMap<String, Entry>,
}

/// A check's view of the cache: the shards it read, and the entries it made.
pub(super) struct Cache {
    root: PathBuf,
    dir: PathBuf,
    /// Each shard read on its first lookup (by whichever worker needs it first).
    shards: Vec<OnceLock<Shard>>,
    fresh: Mutex<Vec<(usize, String, Entry)>>,
    reused: AtomicUsize,
    checked: AtomicUsize,
    started_ns: i128,
}

/// What a lookup found.
pub(super) enum Lookup {
    /// The cached check, as the job's result.
    Hit(Box<FileResult>),
    /// Check the file; record it with this stat (taken before the file was read).
    Miss(Option<Stat>),
}

impl Cache {
    /// The cache of the project at `root` for one check (each shard is read when a lookup
    /// first needs it); `None` when the project has no `.kapi/` folder (kapi creates none
    /// just to cache).
    pub(super) fn open(root: &Path) -> Option<Cache> {
        if !root.join(KAPI_DIR).is_dir() {
            return None;
        }
        let dir = root
            .join(WORK_DIR)
            .join("cache")
            .join(format!("check-{}", build_id()));
        Some(Cache {
            root: root.to_path_buf(),
            dir,
            shards: (0..SHARDS).map(|_| OnceLock::new()).collect(),
            fresh: Mutex::new(Vec::new()),
            reused: AtomicUsize::new(0),
            checked: AtomicUsize::new(0),
            started_ns: now_ns(),
        })
    }

    fn shard(&self, i: usize) -> &Shard {
        self.shards[i].get_or_init(|| read_shard(&self.dir.join(shard_name(i))))
    }

    /// The cached result of `job`, when its file and key are unchanged.
    pub(super) fn lookup(&self, job: &Job, key: &str) -> Lookup {
        let stat = Stat::of(&job.abs);
        let entry = self
            .shard(shard_of(&job.abs))
            .entries
            .get(&path_key(&job.abs))
            .filter(|e| e.key == key);
        let (Some(entry), Some(now)) = (entry, stat) else {
            return Lookup::Miss(stat);
        };
        if !(entry.stat_trusted && entry.stat == now) {
            // The stat changed: the bytes decide (read once more on a miss; a miss checks).
            let same_bytes = now.size == entry.stat.size
                && std::fs::read(&job.abs)
                    .is_ok_and(|b| hex(&sha2::Sha256::digest(&b)) == entry.digest);
            if !same_bytes {
                return Lookup::Miss(stat);
            }
            let mut renewed = entry.clone();
            renewed.stat = now;
            renewed.stat_trusted = now.settled(self.started_ns);
            self.remember(&job.abs, renewed);
        }
        self.reused.fetch_add(1, Ordering::Relaxed);
        Lookup::Hit(Box::new(FileResult {
            findings: Findings::from_parts(entry.findings.clone(), entry.dropped),
            stale: Vec::new(),
            blocks: entry.blocks,
            digest: None,
            allowed: Allowed {
                held: entry.suppressed.clone(),
                count: entry.suppressed_count,
            },
            words: entry.words.clone(),
        }))
    }

    /// Records the check of `job` (its file's `stat` before the read, the result).
    pub(super) fn record(&self, job: &Job, key: &str, stat: Option<Stat>, result: &FileResult) {
        self.checked.fetch_add(1, Ordering::Relaxed);
        let (Some(stat), Some(digest)) = (stat, result.digest) else {
            return;
        };
        if !result.stale.is_empty() {
            return;
        }
        let (held, dropped) = result.findings.parts();
        self.remember(
            &job.abs,
            Entry {
                key: key.to_owned(),
                stat,
                stat_trusted: stat.settled(self.started_ns),
                digest: hex(&digest),
                findings: held.to_vec(),
                dropped,
                blocks: result.blocks,
                suppressed: result.allowed.held.clone(),
                suppressed_count: result.allowed.count,
                words: result.words.clone(),
            },
        );
    }

    fn remember(&self, abs: &Path, entry: Entry) {
        if let Ok(mut fresh) = self.fresh.lock() {
            fresh.push((shard_of(abs), path_key(abs), entry));
        }
    }

    /// How the run used the cache.
    pub(super) fn usage(&self) -> CacheUse {
        CacheUse {
            reused: self.reused.load(Ordering::Relaxed),
            checked: self.checked.load(Ordering::Relaxed),
        }
    }

    /// Writes the shards that gained entries, each whole (a temporary file renamed over it),
    /// and removes the caches of other kapi builds. Best effort: a cache that cannot be
    /// written is a slower next run, never a failed check.
    pub(super) fn save(self) {
        let fresh = self.fresh.into_inner().unwrap_or_default();
        if fresh.is_empty() {
            return;
        }
        let mut shards: Vec<Option<Shard>> =
            self.shards.into_iter().map(OnceLock::into_inner).collect();
        let mut touched: Vec<Option<HashSet<String>>> = (0..SHARDS).map(|_| None).collect();
        for (i, path, entry) in fresh {
            touched[i]
                .get_or_insert_with(HashSet::new)
                .insert(path.clone());
            // A shard no lookup read is read now: writing it must keep what it holds.
            shards[i]
                .get_or_insert_with(|| read_shard(&self.dir.join(shard_name(i))))
                .entries
                .insert(path, entry);
        }
        if kapi_core::project::layout::ensure_layout(&self.root).is_err()
            || std::fs::create_dir_all(&self.dir).is_err()
        {
            return;
        }
        for (i, (shard, touched)) in shards.into_iter().zip(touched).enumerate() {
            let (Some(mut shard), Some(touched)) = (shard, touched) else {
                continue;
            };
            // Entries of files that are gone leave with the shard's next write.
            shard
                .entries
                .retain(|path, _| touched.contains(path) || Path::new(path).exists());
            let _ = write_shard(&self.dir, i, &shard);
        }
        // Once a process: a server's every check need not list the cache folder again.
        static SWEPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SWEPT.swap(true, Ordering::Relaxed) {
            remove_other_builds(&self.dir);
        }
    }
}

/// Whether a job's check can be cached: its result depends on its own bytes alone.
pub(super) fn cacheable(job: &Job) -> bool {
    job.targets.is_empty()
}

/// What a job's findings depend on besides its bytes: the format that reads it (a recipe's
/// format `config` is kept verbatim and read by no reader; one that is must join this key),
/// the path the findings name, whether the source analyzers run, and the governance
/// fingerprints of the source and each target language checked.
pub(super) fn key_of(job: &Job, fingerprints: &[&str]) -> String {
    let rules: Vec<String> = job
        .file_rules
        .iter()
        .map(|r| format!("{}@{}:{:?}", r.selector, r.path, r.line))
        .collect();
    format!(
        "{}|{}|{}|{}|{}",
        job.format.info().id,
        job.display,
        job.source_checks,
        fingerprints.join(","),
        rules.join(",")
    )
}

fn path_key(abs: &Path) -> String {
    abs.to_string_lossy().into_owned()
}

fn shard_of(abs: &Path) -> usize {
    let digest = sha2::Sha256::digest(abs.as_os_str().as_encoded_bytes());
    usize::from(digest[0]) % SHARDS
}

fn shard_name(i: usize) -> String {
    format!("{i:02x}.json")
}

fn read_shard(path: &Path) -> Shard {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn write_shard(dir: &Path, i: usize, shard: &Shard) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(shard).map_err(std::io::Error::other)?;
    crate::derived::write(&dir.join(shard_name(i)), &bytes)
}

/// Removes `check-*` folders beside `dir` (other kapi builds' caches).
fn remove_other_builds(dir: &Path) {
    let (Some(parent), Some(mine)) = (dir.parent(), dir.file_name()) else {
        return;
    };
    let Ok(read) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        if name != mine && name.to_string_lossy().starts_with("check-") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// kapi's version and the running binary's size and modification time: a rebuilt kapi of
/// the same version never trusts the last one's findings.
fn build_id() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|exe| Stat::of(&exe))
        .map_or_else(String::new, |s| format!("-{:x}-{:x}", s.size, s.mtime_ns));
    format!("{}{exe}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_named_for_its_index_and_each_path_has_one() {
        assert_eq!(shard_name(0), "00.json");
        assert_eq!(shard_name(63), "3f.json");
        let a = Path::new("/p/docs/a.md");
        assert_eq!(shard_of(a), shard_of(a));
        assert!(shard_of(a) < SHARDS);
    }
}
