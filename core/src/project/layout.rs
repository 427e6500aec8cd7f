//! The `.kapi/` folder layout: the conventional paths inside a project, and `ensure_layout`,
//! which creates the folders and the `.kapi/.gitignore` that keeps machine state out of git.

use std::path::{Path, PathBuf};

/// The recipe's file name.
pub const RECIPE_FILE: &str = "kapi.yaml";
/// The committed project folder.
pub const KAPI_DIR: &str = ".kapi";
/// Machine state, relative to the root (git-ignored).
pub const WORK_DIR: &str = ".kapi/work";
/// The SQLite store, relative to the root.
pub const STORE_FILE: &str = ".kapi/work/store.db";
/// The `.gitignore` kapi writes, relative to the root.
pub const GITIGNORE_FILE: &str = ".kapi/.gitignore";
/// What `.kapi/.gitignore` holds.
pub const GITIGNORE_CONTENT: &str = "work/\n";
/// The default voice, relative to the root.
pub const VOICE_FILE: &str = ".kapi/voice.yaml";
/// The default terms, relative to the root.
pub const TERMS_FILE: &str = ".kapi/terms.yaml";
/// Per-profile files live under `.kapi/profiles/<profile>/`.
pub const PROFILES_DIR: &str = ".kapi/profiles";
/// Kept notes, relative to the root.
pub const NOTES_FILE: &str = ".kapi/notes.yaml";
/// A person's decisions, one JSON line each, relative to the root.
pub const DECISIONS_FILE: &str = ".kapi/decisions.jsonl";
/// The AGENTS.md and CLAUDE.md files kapi created, relative to the root (machine state).
pub const RULES_FILES: &str = ".kapi/work/rules-files.json";
/// The hooks' state, one file per session, relative to the root (machine state).
pub const HOOKS_DIR: &str = ".kapi/work/hooks";

/// A profile's conventional voice file, relative to the root.
pub fn profile_voice_file(profile: &str) -> String {
    format!("{PROFILES_DIR}/{profile}/voice.yaml")
}

/// A profile's conventional terms file, relative to the root.
pub fn profile_terms_file(profile: &str) -> String {
    format!("{PROFILES_DIR}/{profile}/terms.yaml")
}

/// A layout operation failed on `path`.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot create", .path.display())]
pub struct LayoutError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl crate::error::Hint for LayoutError {
    fn hints(&self) -> Vec<String> {
        vec!["check that the project folder is writable".to_owned()]
    }
}

/// Creates `.kapi/`, `.kapi/work/` and `.kapi/.gitignore` (only when missing) under `root`.
/// Returns what it created, in creation order; an existing `.gitignore` is never rewritten.
pub fn ensure_layout(root: &Path) -> Result<Vec<PathBuf>, LayoutError> {
    let mut created = Vec::new();
    for dir in [KAPI_DIR, WORK_DIR] {
        let path = root.join(dir);
        if !path.is_dir() {
            std::fs::create_dir_all(&path).map_err(|source| LayoutError {
                path: path.clone(),
                source,
            })?;
            created.push(path);
        }
    }
    let gitignore = root.join(GITIGNORE_FILE);
    if !gitignore.exists() {
        crate::change::stage::write_one(&gitignore, GITIGNORE_CONTENT.as_bytes()).map_err(
            |source| LayoutError {
                path: gitignore.clone(),
                source,
            },
        )?;
        created.push(gitignore);
    }
    Ok(created)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ensure_layout_creates_folders_and_gitignore_once() {
        let dir = tempfile::tempdir().unwrap();
        let created = ensure_layout(dir.path()).unwrap();
        assert_eq!(created.len(), 3);
        let gi = std::fs::read_to_string(dir.path().join(GITIGNORE_FILE)).unwrap();
        assert_eq!(gi, "work/\n");
        assert!(dir.path().join(WORK_DIR).is_dir());
        assert!(ensure_layout(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn existing_gitignore_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(KAPI_DIR)).unwrap();
        std::fs::write(dir.path().join(GITIGNORE_FILE), "custom\n").unwrap();
        let created = ensure_layout(dir.path()).unwrap();
        assert_eq!(created, vec![dir.path().join(WORK_DIR)]);
        let gi = std::fs::read_to_string(dir.path().join(GITIGNORE_FILE)).unwrap();
        assert_eq!(gi, "custom\n");
    }

    #[test]
    fn unwritable_root_is_an_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, "x").unwrap();
        let e = ensure_layout(&file).unwrap_err();
        assert_eq!(e.path, file.join(KAPI_DIR));
    }
}
