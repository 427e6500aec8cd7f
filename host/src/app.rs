//! `App`: what every verb and surface starts from — the environment, the working directory,
//! the `-p` flag, the instant governance resolves at, and the project those resolve to —
//! and [`ResolvedPath`], a user's path resolved once against it: the one place a path a
//! person or a tool named is made project-relative and proven inside the project (paths kapi
//! builds itself, a walk's entries, a target template's, are normalized where they are built).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kapi_core::project::Project;
use kapi_core::project::discover::{DiscoverOptions, discover};
use kapi_core::store::Store;

use crate::env::Env;
use crate::error::HostError;

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Actor {
    /// `person`, `agent` or `tool`.
    pub kind: String,
    pub name: String,
    pub session: String,
}

/// Open stores, one handle per project root, shared by every `App` cloned from the same pool
/// (the MCP server keeps one pool for its whole life; the handles close when it ends).
#[derive(Debug, Clone, Default)]
pub struct Stores(Arc<Mutex<HashMap<PathBuf, Arc<Mutex<Store>>>>>);

/// A store in use; dereferences to the [`Store`].
pub type StoreGuard<'a> = std::sync::MutexGuard<'a, Store>;

impl Stores {
    /// The store at `path`, opened (and migrated) on first use.
    pub fn get(&self, path: &Path) -> Result<Arc<Mutex<Store>>, HostError> {
        let poisoned = || HostError::Internal {
            message: "the store cache was left inconsistent by an earlier failure".into(),
        };
        let mut map = self.0.lock().map_err(|_| poisoned())?;
        if let Some(store) = map.get(path) {
            return Ok(store.clone());
        }
        let store = Arc::new(Mutex::new(Store::open(path)?));
        map.insert(path.to_path_buf(), store.clone());
        Ok(store)
    }
}

/// Locks a store handle.
pub fn lock(store: &Mutex<Store>) -> Result<StoreGuard<'_>, HostError> {
    store.lock().map_err(|_| HostError::Internal {
        message: "a store handle was left inconsistent by an earlier failure".into(),
    })
}

/// A stop asked from outside (Ctrl-C, SIGTERM) that a write in progress holds off: while a
/// [`Hold`] lives, asking only sets the flag, and the write ends between two files and reports
/// what landed; with none, the asker may end the process at once.
#[derive(Debug, Default)]
pub struct Stop {
    asked: std::sync::atomic::AtomicBool,
    holds: std::sync::atomic::AtomicUsize,
}

/// Holds a [`Stop`] off while it lives.
#[derive(Debug)]
pub struct Hold<'a>(&'a Stop);

impl Stop {
    pub const fn new() -> Self {
        Stop {
            asked: std::sync::atomic::AtomicBool::new(false),
            holds: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Asks to stop; `true` when a hold is in place (the asker must let the holder finish).
    pub fn ask(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.asked.store(true, SeqCst);
        self.holds.load(SeqCst) > 0
    }

    /// Whether a stop was asked.
    pub fn asked(&self) -> bool {
        self.asked.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The flag a write polls.
    pub fn flag(&self) -> &std::sync::atomic::AtomicBool {
        &self.asked
    }

    /// Holds a stop off until the returned guard drops.
    pub fn hold(&self) -> Hold<'_> {
        self.holds.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Hold(self)
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        self.0
            .holds
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// No one ever asks this one to stop.
static NEVER: Stop = Stop::new();

/// The per-process runtime.
#[derive(Debug)]
pub struct App {
    pub env: Env,
    pub cwd: PathBuf,
    /// `-p/--project`.
    pub project_flag: Option<PathBuf>,
    /// Governance resolves at one instant per process, taken at start-up.
    pub now: jiff::Timestamp,
    session: String,
    /// The client the session runs in, as its row in the store records it: an MCP client's
    /// own name; `None` on the command line ([`App::client_name`] says `kapi-cli`).
    pub client: Option<String>,
    /// Open stores (shared with the Apps of the same server).
    pub stores: Stores,
    /// What a signal sets (the CLI's); a write stops between two files once it is.
    pub stop: &'static Stop,
    /// The surface the call came through, for the flags or fields its hints name.
    pub surface: crate::Surface,
    /// A recipe key kapi does not read is an error (`--strict`, `KAPI_STRICT`), not a warning.
    /// Off unless the surface turns it on: a hook never refuses for it.
    pub strict: bool,
}

impl App {
    pub fn new(env: Env, cwd: PathBuf, project_flag: Option<PathBuf>) -> Self {
        let now = jiff::Timestamp::now();
        // `KAPI_SESSION`, else the assistant host's own session, else the shell kapi runs in
        // (so a note and `kapi context log --session this` from one shell meet), else this
        // process.
        let session = env
            .session
            .clone()
            .or_else(|| env.host_agent.as_ref().and_then(|h| h.session.clone()))
            .or_else(|| env.parent.as_ref().map(|p| format!("shell:{p}")))
            .unwrap_or_else(|| format!("s-{}-{}", now.as_millisecond(), std::process::id()));
        App {
            env,
            cwd,
            project_flag,
            now,
            session,
            client: None,
            stores: Stores::default(),
            stop: &NEVER,
            surface: crate::Surface::Cli,
            strict: false,
        }
    }

    /// The client a session row names: the MCP client's name, else `kapi-cli`.
    pub fn client_name(&self) -> String {
        self.client.clone().unwrap_or_else(|| "kapi-cli".into())
    }

    /// The store at `path` (`<root>/.kapi/work/store.db`), from this App's pool.
    pub fn store(&self, path: &Path) -> Result<Arc<Mutex<Store>>, HostError> {
        self.stores.get(path)
    }

    /// The project the call binds to, if any: `-p`, then `KAPI_NO_PROJECT`, then
    /// `KAPI_PROJECT`, then a walk up from the working directory.
    pub fn project(&self) -> Result<Option<Project>, HostError> {
        let options = DiscoverOptions {
            // A relative one is found from the working folder up (`discover::resolve`).
            flag: self.project_flag.clone(),
            no_project: self.env.no_project,
            env_project: self.env.project.clone(),
            cwd: self.cwd.clone(),
        };
        let Some(recipe) = discover(&options)? else {
            return Ok(None);
        };
        let project = load_project(recipe)?;
        self.vet(&project)?;
        Ok(Some(project))
    }

    /// What the recipe's keys that kapi does not read mean for this call: under
    /// [`App::strict`], an error naming them (exit 2); else a warning each
    /// ([`crate::notices::warn_once`]: once a process). The recipe is named as this call names
    /// files (`kapi.yaml`, `../kapi.yaml`).
    pub fn vet(&self, project: &Project) -> Result<(), HostError> {
        let unknown = project.recipe.unknown_keys();
        if unknown.is_empty() {
            return Ok(());
        }
        let shown = std::path::PathBuf::from(self.display_path(&project.recipe_path));
        let keys: Vec<_> = unknown
            .iter()
            .map(|k| {
                let mut k = k.clone();
                k.at.file.clone_from(&shown);
                k
            })
            .collect();
        if self.strict {
            return Err(kapi_core::project::RecipeError::UnknownKeys { keys }.into());
        }
        for key in &keys {
            crate::notices::warn_once(&key.to_string());
        }
        Ok(())
    }

    /// The project, or an error saying none was found.
    pub fn require_project(&self) -> Result<Project, HostError> {
        self.project()?.ok_or_else(|| HostError::NoProject {
            searched: self.cwd.clone(),
        })
    }

    /// `path` made absolute against the working directory.
    pub fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        }
    }

    /// The caller as the command line sees it: `KAPI_ACTOR` (`kind` or `kind:name`), else the
    /// assistant host whose agent runs the command (`agent:claude-code`, from the host's own
    /// marker in the environment), default a person named `cli`. A kind kapi does not know is kept as written, so the change
    /// policy refuses it every operation rather than treating it as a person.
    pub fn actor(&self) -> Actor {
        let raw = self
            .env
            .actor
            .clone()
            .or_else(|| {
                self.env
                    .host_agent
                    .as_ref()
                    .map(|h| format!("agent:{}", h.host))
            })
            .unwrap_or_else(|| "person".into());
        let (mut kind, mut name) = match raw.split_once(':') {
            Some((k, n)) => (k.trim().to_owned(), n.trim().to_owned()),
            None => (raw.trim().to_owned(), "cli".to_owned()),
        };
        // A person's claim made where a host's agent runs the command (its marker is in the
        // environment) is no person's: refused as such (`policy::CLAIMED_PERSON`).
        if kind == "person"
            && let Some(host) = &self.env.host_agent
        {
            kind = crate::policy::CLAIMED_PERSON.to_owned();
            name.clone_from(&host.host);
        }
        Actor {
            kind,
            name,
            session: self.session.clone(),
        }
    }

    /// What a relative path is read against ([`Base`]); `project` is the one the call binds.
    fn base_dir(&self, base: Base, project: Option<&Project>) -> PathBuf {
        match (base, project) {
            (Base::Project, Some(project)) if !self.cwd.starts_with(&project.root) => {
                project.root.clone()
            }
            (Base::Root, Some(project)) => project.root.clone(),
            _ => self.cwd.clone(),
        }
    }

    /// A path the user named (`kapi check PATH`, `kapi inspect FILE`), resolved once: a
    /// relative one against the working folder. See [`ResolvedPath`] for what it proves.
    pub fn resolve(
        &self,
        project: Option<&Project>,
        path: &Path,
    ) -> Result<ResolvedPath, HostError> {
        self.resolve_from(Base::WorkingFolder, project, path)
    }

    /// [`App::resolve`] for a path a service names inside `project` (a `ref.doc`): a relative
    /// one against the working folder when it is inside the project, else against the root.
    pub fn resolve_in(&self, project: &Project, path: &Path) -> Result<ResolvedPath, HostError> {
        self.resolve_from(Base::Project, Some(project), path)
    }

    /// [`App::resolve`] with a relative path read against `base`: a path that exists.
    pub fn resolve_from(
        &self,
        base: Base,
        project: Option<&Project>,
        path: &Path,
    ) -> Result<ResolvedPath, HostError> {
        self.resolve_against(base, project, path, Need::Exists)
    }

    /// A path that need not exist yet, resolved once as [`App::resolve_from`] resolves one
    /// (the text of `check_text`'s `path` not written yet, a file `detect_format` names, the
    /// file a hook's edit is about to create): proven inside the project by its path, and
    /// through every link of the part of it that exists; [`ResolvedPath::meta`] says whether
    /// it exists.
    pub fn resolve_target(
        &self,
        base: Base,
        project: Option<&Project>,
        path: &Path,
    ) -> Result<ResolvedPath, HostError> {
        self.resolve_against(base, project, path, Need::Nothing)
    }

    /// A path judged by its name alone (`kapi formats detect`, `detect_format`): read against
    /// `base` as [`App::resolve_target`] reads it under `project`, but proven neither inside
    /// the project nor to exist; project-relative when its path is inside the project.
    pub fn resolve_name(&self, base: Base, project: Option<&Project>, path: &Path) -> ResolvedPath {
        let abs = normalize(&self.base_dir(base, project).join(path));
        ResolvedPath {
            display: self.display_path(&abs),
            given: path.to_path_buf(),
            rel: project.and_then(|p| relative_to(&abs, &p.root)),
            meta: std::fs::metadata(&abs).ok(),
            abs,
        }
    }

    /// The one constructor of [`ResolvedPath`], the one mechanism every other one shares: the
    /// path read against `base` and normalized; then, under a project, proven inside it by its
    /// path ([`HostError::OutsideProject`], whether or not it exists: the policy answer comes
    /// first); then proven to exist when `need` says so ([`HostError::NoSuchPath`]); then,
    /// under a project, proven inside through every link of what exists
    /// ([`HostError::LeavesProject`]).
    fn resolve_against(
        &self,
        base: Base,
        project: Option<&Project>,
        path: &Path,
        need: Need,
    ) -> Result<ResolvedPath, HostError> {
        let abs = normalize(&self.base_dir(base, project).join(path));
        let rel =
            match project {
                Some(project) => Some(relative_to(&abs, &project.root).ok_or_else(|| {
                    HostError::OutsideProject {
                        path: path.to_path_buf(),
                        root: project.root.clone(),
                    }
                })?),
                None => None,
            };
        let meta = match (std::fs::metadata(&abs), need) {
            (Ok(meta), _) => Some(meta),
            (Err(_), Need::Nothing) => None,
            (Err(_), Need::Exists) => {
                return Err(HostError::NoSuchPath {
                    path: path.to_path_buf(),
                });
            }
        };
        if let Some(project) = project {
            // What exists of it: the path, else its nearest folder that does.
            let existing = abs
                .ancestors()
                .find(|a| a.starts_with(&project.root) && std::fs::symlink_metadata(a).is_ok());
            if let Some(existing) = existing {
                crate::document::stay_inside(path, existing, &project.root)?;
            }
        }
        Ok(ResolvedPath {
            display: self.display_path(&abs),
            given: path.to_path_buf(),
            abs,
            rel,
            meta,
        })
    }

    /// A path as reports show it: relative to the working directory (`../README.md` for a
    /// file beside it), `.` for the working directory itself, or absolute when the two share
    /// nothing but the root.
    pub fn display_path(&self, abs: &Path) -> String {
        if let Some(rel) = relative_to(abs, &self.cwd) {
            return if rel.is_empty() { ".".into() } else { rel };
        }
        let cwd: Vec<_> = self.cwd.components().collect();
        let target: Vec<_> = abs.components().collect();
        let common = cwd.iter().zip(&target).take_while(|(a, b)| a == b).count();
        if common <= 1 {
            return abs.display().to_string();
        }
        let mut parts: Vec<String> = vec!["..".to_owned(); cwd.len() - common];
        parts.extend(
            target[common..]
                .iter()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        );
        parts.join("/")
    }

    /// The current instant as RFC 3339, for records.
    pub fn timestamp(&self) -> String {
        jiff::Timestamp::now().to_string()
    }
}

/// What a relative path a user names is read against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The working folder: a path typed in a shell (`kapi check PATH`, `kapi inspect FILE`).
    WorkingFolder,
    /// The working folder when it is inside the project, else the project's root: a path a
    /// service names inside the project (a `ref.doc`, a note's `path`, `context_read`'s).
    Project,
    /// The project's root, else the working folder: a tool's `path` over MCP, whose caller
    /// has no working folder of its own.
    Root,
}

/// Whether a resolved path must exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Exists,
    Nothing,
}

/// A path a user named, resolved once at the surface ([`App::resolve`], [`App::resolve_in`],
/// [`App::resolve_from`] and, for one that need not exist yet, [`App::resolve_target`] are
/// its only constructors, all one mechanism): absolute and normalized and — when a project
/// binds the call — proven inside it by its path (whether or not it exists) and through every
/// link of what exists, with its project-relative form; proven to exist unless it came from
/// [`App::resolve_target`]. Every layer after the surface takes this, never the raw path.
#[derive(Debug, Clone)]
pub struct ResolvedPath {
    given: PathBuf,
    abs: PathBuf,
    rel: Option<String>,
    display: String,
    meta: Option<std::fs::Metadata>,
}

impl ResolvedPath {
    /// The path as the user named it (errors name it so).
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// Absolute, normalized (links not resolved).
    pub fn abs(&self) -> &Path {
        &self.abs
    }

    /// Project-relative with `/` separators (`""` for the root), under a project.
    pub fn rel(&self) -> Option<&str> {
        self.rel.as_deref()
    }

    /// As reports show it: from the working folder ([`App::display_path`]).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// What the file system said of it when it was resolved; [`HostError::NoSuchPath`] (naming
    /// it as given) when it did not exist (only a [`App::resolve_target`] path may not).
    pub fn meta(&self) -> Result<&std::fs::Metadata, HostError> {
        self.meta.as_ref().ok_or_else(|| HostError::NoSuchPath {
            path: self.given.clone(),
        })
    }

    /// Whether it existed when it was resolved.
    pub fn exists(&self) -> bool {
        self.meta.is_some()
    }

    /// As a `ref.doc` names it: project-relative inside a project, else as given.
    pub fn doc(&self) -> String {
        self.rel
            .clone()
            .unwrap_or_else(|| self.given.display().to_string())
    }
}

/// `path` relative to `base` with `/` separators, when it lies under `base`.
pub fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    let mut out = String::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    Some(out)
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The project whose recipe is `recipe`, loaded once a process while the recipe is unchanged
/// ([`crate::memo`]: an MCP server's calls, a hook that finds the project and then checks in it).
pub(crate) fn load_project(recipe: PathBuf) -> Result<Project, HostError> {
    let recipe = std::path::absolute(&recipe).unwrap_or(recipe);
    Ok(crate::memo::project(&recipe, || {
        let project = Project::load(&recipe)?;
        // Compiled before it is kept, so every clone shares the glob sets (a bad glob is
        // reported where the collections are used).
        let _ = project.collections();
        Ok::<_, kapi_core::project::RecipeError>(project)
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(cwd: &Path) -> App {
        App::new(Env::default(), cwd.to_path_buf(), None)
    }

    #[test]
    fn a_path_resolves_once_with_its_relative_and_display_forms() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("docs")).expect("mkdir");
        std::fs::write(root.join("README.md"), "# R\n").expect("write");
        std::fs::write(root.join("kapi.yaml"), "version: v1\n").expect("recipe");
        let project = Project::load(&root.join("kapi.yaml")).expect("project");
        let app = app(&root.join("docs"));
        let path = app
            .resolve(Some(&project), Path::new("../docs/./../README.md"))
            .expect("inside");
        assert_eq!(path.abs(), root.join("README.md"));
        assert_eq!(path.rel(), Some("README.md"));
        assert_eq!(path.display(), "../README.md");
        assert_eq!(path.doc(), "README.md");
        assert_eq!(path.given(), Path::new("../docs/./../README.md"));
        assert!(path.meta().is_ok_and(|m| m.is_file()));
        // From the working folder inside the project, else from the root.
        let from_root = App::new(Env::default(), std::env::temp_dir(), None)
            .resolve_in(&project, Path::new("README.md"))
            .expect("from the root");
        assert_eq!(from_root.rel(), Some("README.md"));
    }

    #[test]
    fn a_path_outside_the_project_is_refused_as_outside_whether_or_not_it_exists() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::write(root.join("kapi.yaml"), "version: v1\n").expect("recipe");
        let project = Project::load(&root.join("kapi.yaml")).expect("project");
        let app = app(&root);
        // The policy answer comes first: a missing file outside is outside, not missing.
        for base in [Base::WorkingFolder, Base::Project, Base::Root] {
            assert!(matches!(
                app.resolve_from(base, Some(&project), Path::new("../nope.md")),
                Err(HostError::OutsideProject { .. })
            ));
            assert!(matches!(
                app.resolve_target(base, Some(&project), Path::new("../nope.md")),
                Err(HostError::OutsideProject { .. })
            ));
        }
        assert!(matches!(
            app.resolve(Some(&project), Path::new("nope.md")),
            Err(HostError::NoSuchPath { .. })
        ));
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("x.md"), "x").expect("write");
        assert!(matches!(
            app.resolve(Some(&project), &outside.path().join("x.md")),
            Err(HostError::OutsideProject { .. })
        ));
        // With no project there is no boundary.
        let free = app
            .resolve(None, &outside.path().join("x.md"))
            .expect("free");
        assert_eq!(free.rel(), None);
        assert_eq!(
            free.doc(),
            outside.path().join("x.md").display().to_string()
        );
    }

    #[test]
    fn a_target_need_not_exist_but_stays_inside_through_its_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("docs")).expect("mkdir");
        std::fs::write(root.join("kapi.yaml"), "version: v1\n").expect("recipe");
        let project = Project::load(&root.join("kapi.yaml")).expect("project");
        let app = app(&root.join("docs"));
        let new = app
            .resolve_target(Base::Project, Some(&project), Path::new("new/page.md"))
            .expect("a target");
        assert!(!new.exists());
        assert_eq!(new.rel(), Some("docs/new/page.md"));
        assert!(matches!(new.meta(), Err(HostError::NoSuchPath { .. })));
        // A relative tool path reads from the root.
        let tool = app
            .resolve_target(Base::Root, Some(&project), Path::new("page.md"))
            .expect("from the root");
        assert_eq!(tool.rel(), Some("page.md"));
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().expect("outside");
            std::os::unix::fs::symlink(outside.path(), root.join("out")).expect("link");
            assert!(matches!(
                app.resolve_target(Base::Root, Some(&project), Path::new("out/new.md")),
                Err(HostError::LeavesProject { .. })
            ));
        }
    }
}
