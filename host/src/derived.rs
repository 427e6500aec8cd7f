//! Files kapi derives and can rebuild (the check cache's shards, the hooks' session state):
//! written whole through a temporary file renamed over them, never synced to disk.
//!
//! A reader sees the old bytes or the new ones, never a half-written file. A crash can lose the
//! newest write, which costs a re-check or a forgotten pending edit, never a wrong answer; each
//! reader takes a file it cannot parse as empty. Content a person wrote goes through
//! `kapi_core::change::stage` (synced) instead.

use std::io::Write;
use std::path::Path;

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
