//! Files kapi derives and can rebuild (the check cache's shards, the hooks' session state):
//! written whole through a temporary file renamed over them, never synced to disk.
//!
//! A reader sees the old bytes or the new ones, never a half-written file. A crash can lose the
//! newest write, which costs a re-check or a forgotten pending edit, never a wrong answer; each
//! reader takes a file it cannot parse as empty. Content a person wrote goes through
//! `kapi_core::change::stage` (synced) instead.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// The derived writes running on their own threads ([`in_background`]).
static PENDING: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Whether [`in_background`] may start a thread: set by a process that outlives its answers
/// (the MCP server). A one-shot command writes in line: a thread would only add its start to
/// the command's time.
static BACKGROUND: AtomicBool = AtomicBool::new(false);

/// Lets [`in_background`] write on its own thread from now on (the MCP server at its start).
pub fn allow_background() {
    BACKGROUND.store(true, Ordering::Relaxed);
}

/// Runs `write` (a derived file's write) on its own thread where the process allows it
/// ([`allow_background`]), so the answer that produced it is not held up by it (an MCP
/// `check_file` after an edit: 12% of the call went to the cache's write); else in line. The
/// writes one process starts run one at a time: each waits for the one before. A process ends
/// them with [`wait`]; one that exits without it can lose the newest write, which costs a
/// re-check, never a wrong answer.
pub fn in_background(write: impl FnOnce() + Send + 'static) {
    if BACKGROUND.load(Ordering::Relaxed) {
        spawn(write);
    } else {
        write();
    }
}

/// Runs `write` on its own thread in any process: a write large enough to be worth the
/// thread's start (a tree's check cache, 64 shards), done while the answer is built and
/// printed. The CLI ends it with [`wait`] before it exits.
pub fn alongside(write: impl FnOnce() + Send + 'static) {
    spawn(write);
}

/// Starts `write` on its own thread, after the writes started before it.
fn spawn(write: impl FnOnce() + Send + 'static) {
    let Ok(mut pending) = PENDING.lock() else {
        return write();
    };
    let before: Vec<JoinHandle<()>> = pending.drain(..).collect();
    let spawned = std::thread::Builder::new()
        .name("kapi-derived".into())
        .spawn(move || {
            for handle in before {
                let _ = handle.join();
            }
            write();
        });
    // A thread that cannot start: the write is lost (a slower next run), never the answer.
    if let Ok(handle) = spawned {
        pending.push(handle);
    }
}

/// Waits for every write [`in_background`] started: the CLI calls it before it exits.
pub fn wait() {
    let pending: Vec<JoinHandle<()>> = match PENDING.lock() {
        Ok(mut pending) => pending.drain(..).collect(),
        Err(_) => return,
    };
    for handle in pending {
        let _ = handle.join();
    }
}

/// Writes `bytes` to `path` whole (its folder must exist).
pub(crate) fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Named as kapi's other temporary files, so a sweep after a crash finds them.
    let mut temp = tempfile::Builder::new()
        .prefix(".")
        .suffix(".kapi-tmp")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(path).map(|_| ()).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_writes_land_in_order_by_the_wait() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("shard.json");
        let landed = std::sync::Arc::new(Mutex::new(Vec::new()));
        for n in 0..5 {
            let (file, landed) = (file.clone(), std::sync::Arc::clone(&landed));
            spawn(move || {
                // The first write is the slowest: the later ones still land after it.
                std::thread::sleep(std::time::Duration::from_millis(if n == 0 {
                    50
                } else {
                    1
                }));
                write(&file, format!("write {n}").as_bytes()).expect("write");
                landed.lock().expect("lock").push(n);
            });
        }
        wait();
        assert_eq!(*landed.lock().expect("lock"), vec![0, 1, 2, 3, 4]);
        assert_eq!(std::fs::read(&file).expect("read"), b"write 4");
    }

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("state.json");
        write(&file, b"one").expect("first");
        write(&file, b"two, longer").expect("second");
        assert_eq!(std::fs::read(&file).expect("read"), b"two, longer");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(write(&dir.path().join("missing/x.json"), b"x").is_err());
    }
}
