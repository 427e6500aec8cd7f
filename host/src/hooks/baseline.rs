//! The working tree as a session found it, and what the session changed since: which files are
//! its own, and how each looked before it — what the stop hook holds a session to.
//!
//! **The baseline.** The session's first hook event (pre-edit, post-edit or stop, whichever
//! comes first) records which files differ from git's HEAD (`git status`: changed, added, or
//! untracked and not ignored; kapi's own `.kapi/` files aside), each by size, modification time
//! and content hash: the person's work in progress, which is not the session's. A baseline
//! records at most [`MAX_DIRTY`] files and hashes at most [`MAX_HASHED`] bytes (past that, a
//! file is known by size and time), so a tree with a huge untracked folder costs a bounded first
//! hook. Outside git there is no baseline to take: only the files an edit hook saw are the
//! session's.
//!
//! **The session's files** are every file post-edit checked for it, and every file the working
//! tree changed since the baseline (through a shell, a script, a commit): dirty or committed
//! since the baseline's HEAD, and not as the baseline found it. A stop that is the session's
//! first hook takes the baseline itself: a turn that only changed files through a shell before
//! any edit hook ran is read as the person's work (kapi has no earlier event to tell them
//! apart).
//!
//! **Before the session.** Pre-edit keeps a copy of a file the session's first edit of it is
//! about to write when the file is someone's work in progress the session has not changed
//! (dirty in the baseline, and still as the baseline found it), or, outside git, any file, in
//! `.kapi/work/hooks/<session>.before/` (files up to [`MAX_KEPT`]). A file is compared with
//! that copy, else with the baseline's HEAD as `--diff-against HEAD` reads it (a file the
//! session changed through a shell that was already dirty is compared with HEAD, so the
//! person's earlier changes in the blocks it touched count as the session's), else it is new:
//! every block of it is the session's.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::UNIX_EPOCH;

use kapi_core::project::layout::KAPI_DIR;
use sha2::{Digest, Sha256};

use super::state::{self, Baseline, SessionState, Sig};

/// Files a baseline records at most.
pub const MAX_DIRTY: usize = 20_000;
/// Bytes a baseline reads to hash, in all.
pub const MAX_HASHED: u64 = 256 * 1024 * 1024;
/// The largest file kapi hashes or keeps a copy of.
pub const MAX_KEPT: u64 = 16 * 1024 * 1024;

/// The git work tree a project is in: `git` run in the project's root, paths read as
/// project-relative.
pub struct Git {
    root: PathBuf,
    /// The project root's path from the top of the work tree, with a trailing `/` (empty at the
    /// top).
    prefix: String,
}

impl Git {
    /// The work tree `root` is in; `None` outside git, or when `git` does not run.
    pub fn open(root: &Path) -> Option<Git> {
        let top = run(root, &["rev-parse", "--show-toplevel"])?;
        let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
        let real_top = top.canonicalize().unwrap_or(top);
        let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let inside = real_root.strip_prefix(&real_top).ok()?;
        let mut prefix = inside.to_string_lossy().replace('\\', "/");
        if !prefix.is_empty() {
            prefix.push('/');
        }
        Some(Git {
            root: root.to_path_buf(),
            prefix,
        })
    }

    fn run(&self, args: &[&str]) -> Option<Vec<u8>> {
        run(&self.root, args)
    }

    /// The commit HEAD names; `None` before the first commit.
    pub fn head(&self) -> Option<String> {
        let out = self.run(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?;
        Some(String::from_utf8_lossy(&out).trim().to_owned()).filter(|h| !h.is_empty())
    }

    /// The project's files that differ from HEAD: changed, added, or untracked and not
    /// ignored (a file deleted is not listed: nothing of it is left to check).
    pub fn dirty(&self) -> Option<Vec<String>> {
        let out = self.run(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
            "--",
            ".",
        ])?;
        Some(
            out.split(|b| *b == 0)
                .filter(|entry| entry.len() > 3)
                .filter(|entry| entry[0] != b'D' && entry[1] != b'D')
                .filter_map(|entry| self.project_rel(&entry[3..]))
                .collect(),
        )
    }

    /// The project's files the commits from `base` to `head` changed (every file `head` holds
    /// when there was no commit at `base`).
    pub fn committed_since(&self, base: Option<&str>, head: Option<&str>) -> Vec<String> {
        let out = match (base, head) {
            (Some(base), Some(head)) if base != head => self.run(&[
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                base,
                head,
                "--",
                ".",
            ]),
            (None, Some(head)) => self.run(&[
                "ls-tree",
                "-r",
                "-z",
                "--full-name",
                "--name-only",
                head,
                "--",
                ".",
            ]),
            _ => None,
        };
        out.unwrap_or_default()
            .split(|b| *b == 0)
            .filter_map(|path| self.project_rel(path))
            .collect()
    }

    /// The bytes of the project-relative `rel` at `rev` (`None`: no such file there).
    pub fn show(&self, rev: &str, rel: &str) -> Option<Vec<u8>> {
        self.run(&["cat-file", "blob", &format!("{rev}:{}{rel}", self.prefix)])
    }

    /// A path from the top of the work tree as project-relative: `None` outside the project,
    /// in `.kapi/`, or empty.
    fn project_rel(&self, path: &[u8]) -> Option<String> {
        let path = String::from_utf8_lossy(path);
        let rel = path.strip_prefix(self.prefix.as_str())?;
        let kapi = rel == KAPI_DIR || rel.starts_with(&format!("{KAPI_DIR}/"));
        (!rel.is_empty() && !kapi).then(|| rel.to_owned())
    }
}

/// `git ARGS` in `dir`: its stdout, `None` when it fails. Optional locks are off, so a status
/// never rewrites the index a person's own git may be using.
fn run(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .args(["-c", "core.quotepath=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// The working tree as it is now: what a session's first hook records.
pub fn take(root: &Path) -> Baseline {
    let Some(git) = Git::open(root) else {
        return Baseline::default();
    };
    let Some(dirty) = git.dirty() else {
        return Baseline::default();
    };
    let mut baseline = Baseline {
        git: true,
        head: git.head(),
        ..Baseline::default()
    };
    let mut budget = MAX_HASHED;
    for rel in dirty {
        if baseline.dirty.len() >= MAX_DIRTY {
            baseline.truncated = true;
            break;
        }
        let abs = root.join(&rel);
        let Some(mut sig) = stat(&abs) else {
            continue;
        };
        if sig.len <= budget.min(MAX_KEPT) {
            sig.hash = hash_file(&abs);
            budget -= sig.len;
        }
        baseline.dirty.insert(rel, sig);
    }
    baseline
}

/// The session's state, its baseline taken now when it has none (this is the session's first
/// hook), and whether it was: a baseline taken by a stop has nothing changed since it.
pub fn ensure(root: &Path, session: &str) -> (SessionState, Baseline, bool) {
    let mut state = state::load(root, session);
    if let Some(baseline) = &state.baseline {
        return (state.clone(), baseline.clone(), false);
    }
    let taken = take(root);
    // Another hook of the session may have taken one meanwhile: the first one kept wins.
    let baseline = state::update(root, session, |s| {
        s.baseline.get_or_insert_with(|| taken.clone()).clone()
    })
    .unwrap_or(taken);
    state.baseline = Some(baseline.clone());
    (state, baseline, true)
}

/// The files that are the session's own: every file an edit hook saw, and every project file
/// the working tree changed since `baseline`, in path order. `fresh`: the baseline was taken by
/// this call's own hook, so nothing changed since it.
pub fn own_files(
    git: Option<&Git>,
    root: &Path,
    baseline: &Baseline,
    touched: &BTreeSet<String>,
    fresh: bool,
) -> BTreeSet<String> {
    let mut files = touched.clone();
    let Some(git) = git.filter(|_| baseline.git && !fresh) else {
        return files;
    };
    let mut candidates = git.dirty().unwrap_or_default();
    candidates.extend(git.committed_since(baseline.head.as_deref(), git.head().as_deref()));
    for rel in candidates {
        if files.contains(&rel) {
            continue;
        }
        let abs = root.join(&rel);
        if !abs.is_file() {
            continue;
        }
        let own = match baseline.dirty.get(&rel) {
            Some(was) => !same(&abs, was),
            None => !baseline.truncated,
        };
        if own {
            files.insert(rel);
        }
    }
    files
}

/// A file as it was before the session.
#[derive(Debug)]
pub enum Before {
    Bytes(Vec<u8>),
    /// There was no such file (or no earlier version kapi can read): every block is new.
    Absent,
}

/// `rel` as it was before the session: the copy pre-edit kept, else the baseline's HEAD, else
/// absent.
pub fn before(
    git: Option<&Git>,
    root: &Path,
    session: &str,
    state: &SessionState,
    baseline: &Baseline,
    rel: &str,
) -> Before {
    match state.before.get(rel) {
        Some(None) => return Before::Absent,
        Some(Some(hash)) => {
            if let Ok(bytes) = std::fs::read(state::kept_path(root, session, hash)) {
                return Before::Bytes(bytes);
            }
        }
        None => {}
    }
    let at_head = match (git, &baseline.head) {
        (Some(git), Some(head)) if baseline.git => git.show(head, rel),
        _ => None,
    };
    at_head.map_or(Before::Absent, Before::Bytes)
}

/// Called by pre-edit before an edit writes `rel`: the baseline when this is the session's
/// first hook, and a copy of the file when the edit is about to change someone's work in
/// progress (see the module docs). Best effort: nothing here decides the edit.
pub fn before_edit(root: &Path, session: &str, rel: &str, abs: &Path) {
    let (state, baseline, _) = ensure(root, session);
    if state.before.contains_key(rel) || state.touched.contains(rel) {
        return;
    }
    let entry = if !abs.exists() {
        // A new file: under git, HEAD says so already.
        if baseline.git {
            return;
        }
        None
    } else {
        let unchanged = match baseline.dirty.get(rel) {
            Some(was) => same(abs, was),
            None => !baseline.git,
        };
        if !unchanged {
            return;
        }
        match keep(root, session, abs) {
            Some(hash) => Some(hash),
            None => return,
        }
    };
    let _ = state::update(root, session, |s| {
        s.before.entry(rel.to_owned()).or_insert(entry);
    });
}

/// Copies `abs` into the session's kept copies; its hash, or `None` when it cannot (too
/// large, unreadable).
fn keep(root: &Path, session: &str, abs: &Path) -> Option<String> {
    let bytes = read_bounded(abs)?;
    let hash = hex(&Sha256::digest(&bytes));
    let path = state::kept_path(root, session, &hash);
    if !path.exists() {
        std::fs::create_dir_all(path.parent()?).ok()?;
        crate::derived::write(&path, &bytes).ok()?;
    }
    Some(hash)
}

/// A regular file's size and modification time.
fn stat(abs: &Path) -> Option<Sig> {
    let meta = std::fs::metadata(abs).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    Some(Sig {
        len: meta.len(),
        mtime,
        hash: None,
    })
}

/// Whether `abs` is still what `was` describes: the same size and time, or the same size and
/// content.
fn same(abs: &Path, was: &Sig) -> bool {
    let Some(now) = stat(abs) else {
        return false;
    };
    if now.len != was.len {
        return false;
    }
    if now.mtime == was.mtime && now.mtime != 0 {
        return true;
    }
    was.hash.is_some() && hash_file(abs) == was.hash
}

fn hash_file(abs: &Path) -> Option<String> {
    read_bounded(abs).map(|bytes| hex(&Sha256::digest(&bytes)))
}

/// A file's bytes, up to [`MAX_KEPT`]: `None` past it or when it cannot be read.
fn read_bounded(abs: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(abs).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_KEPT + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_KEPT).then_some(bytes)
}

fn hex(digest: &[u8]) -> String {
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git ARGS` in `dir` with no user or system configuration.
    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A repository whose project is its `site/` folder, one commit in.
    fn repo() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        write(&top, "site/kapi.yaml", "version: v1\n");
        write(&top, "site/docs/a.md", "A.\n");
        write(&top, "site/docs/b.md", "B.\n");
        write(&top, "other/c.md", "C.\n");
        git(&top, &["init", "-q"]);
        git(&top, &["add", "-A"]);
        git(&top, &["commit", "-q", "-m", "one"]);
        (dir, top.join("site"))
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_session_owns_what_changed_since_its_start_not_what_was_dirty_before() {
        let (_dir, root) = repo();
        // The person's work in progress, and kapi's own state.
        write(&root, "docs/a.md", "A, being edited.\n");
        write(&root, "docs/draft.md", "Draft.\n");
        write(&root, ".kapi/work/hooks/s.json", "{}");
        write(&root, "../other/c.md", "C changed outside the project.\n");
        let baseline = take(&root);
        assert!(baseline.git && baseline.head.is_some());
        assert_eq!(
            baseline.dirty.keys().cloned().collect::<BTreeSet<_>>(),
            set(&["docs/a.md", "docs/draft.md"])
        );
        let tree = Git::open(&root).unwrap();
        let own = |touched: &[&str]| own_files(Some(&tree), &root, &baseline, &set(touched), false);
        assert_eq!(own(&[]), set(&[]));
        // Through a shell: a clean file changed, a new file, the draft changed again, and the
        // same bytes written over the person's file (a new time, the same content).
        write(&root, "docs/b.md", "B, by the session.\n");
        write(&root, "docs/new.md", "New.\n");
        write(&root, "docs/draft.md", "Draft, by the session.\n");
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(&root, "docs/a.md", "A, being edited.\n");
        assert_eq!(
            own(&["docs/x.md"]),
            set(&["docs/b.md", "docs/draft.md", "docs/new.md", "docs/x.md"])
        );
        // Committed by the session: still its own.
        git(&root, &["add", "docs/b.md"]);
        git(&root, &["commit", "-q", "-m", "two"]);
        assert!(own(&[]).contains("docs/b.md"));
        // A stop that took the baseline itself has nothing changed since.
        assert_eq!(
            own_files(Some(&tree), &root, &baseline, &set(&["t.md"]), true),
            set(&["t.md"])
        );
    }

    #[test]
    fn before_the_session_is_the_kept_copy_else_head_else_absent() {
        let (_dir, root) = repo();
        write(&root, "docs/a.md", "A, the person's.\n");
        let git = Git::open(&root).unwrap();
        // Pre-edit of the person's dirty file keeps it; of a clean one, HEAD says it.
        before_edit(&root, "s", "docs/a.md", &root.join("docs/a.md"));
        before_edit(&root, "s", "docs/b.md", &root.join("docs/b.md"));
        before_edit(&root, "s", "docs/new.md", &root.join("docs/new.md"));
        let (state, baseline, fresh) = ensure(&root, "s");
        assert!(!fresh);
        assert_eq!(
            state.before.keys().cloned().collect::<Vec<_>>(),
            ["docs/a.md"]
        );
        write(&root, "docs/a.md", "A, the session's.\n");
        let was = |rel: &str| match before(Some(&git), &root, "s", &state, &baseline, rel) {
            Before::Bytes(b) => Some(String::from_utf8(b).unwrap()),
            Before::Absent => None,
        };
        assert_eq!(was("docs/a.md").as_deref(), Some("A, the person's.\n"));
        assert_eq!(was("docs/b.md").as_deref(), Some("B.\n"));
        assert_eq!(was("docs/new.md"), None);
        // A second edit keeps nothing new: the file is the session's now.
        before_edit(&root, "s", "docs/a.md", &root.join("docs/a.md"));
        assert_eq!(
            was("docs/a.md").as_deref(),
            Some("A, the person's.\n"),
            "the first copy stays"
        );
    }

    #[test]
    fn outside_git_pre_edit_keeps_every_first_edit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root, "docs/a.md", "A.\n");
        before_edit(&root, "s", "docs/a.md", &root.join("docs/a.md"));
        before_edit(&root, "s", "docs/new.md", &root.join("docs/new.md"));
        let (state, baseline, _) = ensure(&root, "s");
        assert!(!baseline.git);
        assert!(matches!(state.before.get("docs/new.md"), Some(None)));
        write(&root, "docs/a.md", "A, edited.\n");
        assert!(matches!(
            before(None, &root, "s", &state, &baseline, "docs/a.md"),
            Before::Bytes(b) if b == b"A.\n"
        ));
        assert_eq!(
            own_files(None, &root, &baseline, &set(&["docs/a.md"]), false),
            set(&["docs/a.md"])
        );
    }
}
