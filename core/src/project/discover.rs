//! Project discovery: which `kapi.yaml` binds, from the `-p` flag, `KAPI_NO_PROJECT`,
//! `KAPI_PROJECT` (values passed in by the host) or a walk up from the working directory.
//!
//! A relative `-p`/`KAPI_PROJECT` means what a committed host entry means by it: it is looked
//! for from the working folder, then each parent, up to the first folder where it exists,
//! never past a folder holding `.git` or onto another file system. So `kapi mcp --project
//! kapi.yaml`, started by a host in `docs/api`, binds the repository's `kapi.yaml`. A named
//! path that does not exist yet (the page an agent is about to create) binds the project its
//! nearest existing folder is in; a missing `kapi.yaml` itself is an error.

use std::path::{Path, PathBuf};

use super::layout::{KAPI_DIR, RECIPE_FILE};

/// What discovery looks at. The host fills it from flags and the environment.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// `-p/--project`: a recipe file, a root folder, or any path inside a project.
    pub flag: Option<PathBuf>,
    /// A non-empty `KAPI_NO_PROJECT`.
    pub no_project: bool,
    /// `KAPI_PROJECT` (same forms as the flag).
    pub env_project: Option<PathBuf>,
    /// The working directory (or the file being acted on).
    pub cwd: PathBuf,
}

/// Where the project path came from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env,
    Cwd,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Origin::Flag => "`--project`",
            Origin::Env => "`KAPI_PROJECT`",
            Origin::Cwd => "the working directory",
        })
    }
}

/// Why no project could be bound.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("{}: no such file or folder (from {origin})", .path.display())]
    NotFound { path: PathBuf, origin: Origin },
    #[error("{}: no `kapi.yaml` here or in any parent folder (from {origin})", .path.display())]
    NoProject { path: PathBuf, origin: Origin },
    #[error("{}: `.kapi/` has no `kapi.yaml` beside it", .dir.display())]
    StateWithoutRecipe { dir: PathBuf },
    #[error("{}: cannot resolve the path", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl crate::error::Hint for DiscoverError {
    fn hints(&self) -> Vec<String> {
        match self {
            DiscoverError::NotFound { .. } | DiscoverError::NoProject { .. } => vec![
                "run `kapi init` to create a project, or pass `-p PATH` to name one".to_owned(),
            ],
            DiscoverError::StateWithoutRecipe { dir } => vec![format!(
                "run `kapi init` in `{}` to write the recipe, or remove the stray `.kapi/`",
                dir.display()
            )],
            DiscoverError::Io { .. } => vec!["check the path's permissions".to_owned()],
        }
    }
}

/// The absolute recipe path that binds, or `None` when discovery is off or nothing is found
/// by the walk from `cwd`.
pub fn discover(opts: &DiscoverOptions) -> Result<Option<PathBuf>, DiscoverError> {
    if let Some(flag) = &opts.flag {
        return explicit(&resolve(&opts.cwd, flag), Origin::Flag).map(Some);
    }
    if opts.no_project {
        return Ok(None);
    }
    if let Some(env) = opts
        .env_project
        .as_ref()
        .filter(|p| !p.as_os_str().is_empty())
    {
        return explicit(&resolve(&opts.cwd, env), Origin::Env).map(Some);
    }
    let cwd = std::fs::canonicalize(&opts.cwd)
        .or_else(|_| std::path::absolute(&opts.cwd))
        .unwrap_or_else(|_| opts.cwd.clone());
    walk(&cwd)
}

/// A named project path made absolute: as is when absolute, else found from `cwd` up (see
/// the module doc); `cwd.join(path)` when no folder holds it.
pub fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        return std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    }
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let device = folder_device(&cwd);
    for dir in cwd.ancestors() {
        if device.is_some() && folder_device(dir) != device {
            break;
        }
        let joined = dir.join(path);
        if joined.exists() {
            return std::fs::canonicalize(&joined).unwrap_or(joined);
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    cwd.join(path)
}

/// The file system a folder is on (Unix), to stop a walk at its boundary.
fn folder_device(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir).ok().map(|m| m.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// A named path that does not exist: the project of its nearest existing folder, unless it
/// names a recipe.
fn missing(path: &Path, origin: Origin) -> Result<PathBuf, DiscoverError> {
    let not_found = || DiscoverError::NotFound {
        path: path.to_path_buf(),
        origin,
    };
    if path.file_name().is_some_and(|n| n == RECIPE_FILE) {
        return Err(not_found());
    }
    let Some(parent) = path.ancestors().skip(1).find(|a| a.is_dir()) else {
        return Err(not_found());
    };
    walk(parent)?.ok_or_else(not_found)
}

/// A named path: a recipe file (any name), a root, or a path inside a project.
fn explicit(path: &Path, origin: Origin) -> Result<PathBuf, DiscoverError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return missing(path, origin);
    };
    if meta.is_file() {
        let looks_like_recipe = path.extension().is_some_and(|e| e == "yaml" || e == "yml")
            && path
                .file_name()
                .is_some_and(|n| n == RECIPE_FILE || !inside_project(path));
        if looks_like_recipe {
            return Ok(path.to_path_buf());
        }
    }
    match walk(path)? {
        Some(recipe) => Ok(recipe),
        None => Err(DiscoverError::NoProject {
            path: path.to_path_buf(),
            origin,
        }),
    }
}

/// True when a parent folder of `path` holds a recipe (so a `.yaml` file there is content).
fn inside_project(path: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .any(|d| d.join(RECIPE_FILE).is_file())
}

/// Walks up from `start` (its parent when it is a file) for a regular `kapi.yaml`.
fn walk(start: &Path) -> Result<Option<PathBuf>, DiscoverError> {
    let mut dir = if start.is_file() {
        start.parent()
    } else {
        Some(start)
    };
    while let Some(d) = dir {
        let recipe = d.join(RECIPE_FILE);
        if recipe.is_file() {
            return Ok(Some(recipe));
        }
        if d.join(KAPI_DIR).is_dir() {
            return Err(DiscoverError::StateWithoutRecipe {
                dir: d.to_path_buf(),
            });
        }
        dir = d.parent();
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hint;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("proj");
        std::fs::create_dir_all(root.join("docs/deep")).unwrap();
        std::fs::write(root.join("kapi.yaml"), "version: v1\n").unwrap();
        std::fs::write(root.join("docs/deep/a.md"), "# A\n").unwrap();
        (dir, root)
    }

    fn opts(cwd: &Path) -> DiscoverOptions {
        DiscoverOptions {
            cwd: cwd.to_path_buf(),
            ..DiscoverOptions::default()
        }
    }

    #[test]
    fn walk_from_a_nested_folder_finds_the_recipe() {
        let (_t, root) = project();
        let found = discover(&opts(&root.join("docs/deep"))).unwrap();
        assert_eq!(found, Some(root.join("kapi.yaml")));
    }

    #[test]
    fn flag_accepts_a_recipe_a_root_or_a_path_inside() {
        let (_t, root) = project();
        let outside = root.parent().unwrap().to_path_buf();
        for flag in [
            root.join("kapi.yaml"),
            root.clone(),
            root.join("docs/deep/a.md"),
        ] {
            let o = DiscoverOptions {
                flag: Some(flag.clone()),
                no_project: true,
                ..opts(&outside)
            };
            assert_eq!(
                discover(&o).unwrap(),
                Some(root.join("kapi.yaml")),
                "{flag:?}"
            );
        }
        let o = DiscoverOptions {
            flag: Some("proj/docs".into()),
            ..opts(&outside)
        };
        assert_eq!(discover(&o).unwrap(), Some(root.join("kapi.yaml")));
    }

    #[test]
    fn flag_may_name_a_recipe_with_another_file_name() {
        let (_t, root) = project();
        let other = root.parent().unwrap().join("alt.yaml");
        std::fs::write(&other, "version: v1\n").unwrap();
        let o = DiscoverOptions {
            flag: Some(other.clone()),
            ..opts(&root)
        };
        assert_eq!(discover(&o).unwrap(), Some(other));
    }

    #[test]
    fn no_project_disables_the_walk_and_the_env() {
        let (_t, root) = project();
        let o = DiscoverOptions {
            no_project: true,
            env_project: Some(root.clone()),
            ..opts(&root)
        };
        assert_eq!(discover(&o).unwrap(), None);
    }

    #[test]
    fn env_project_wins_over_the_walk() {
        let (_t, root) = project();
        let elsewhere = tempfile::tempdir().unwrap();
        let o = DiscoverOptions {
            env_project: Some(root.clone()),
            ..opts(elsewhere.path())
        };
        assert_eq!(discover(&o).unwrap(), Some(root.join("kapi.yaml")));
    }

    #[test]
    fn missing_flag_path_is_a_typed_error_naming_it() {
        let (_t, root) = project();
        let outside = root.parent().unwrap().to_path_buf();
        for flag in [root.join("docs/kapi.yaml"), outside.join("nope/new.md")] {
            let o = DiscoverOptions {
                flag: Some(flag.clone()),
                ..opts(&root)
            };
            let e = discover(&o).unwrap_err();
            assert!(
                matches!(&e, DiscoverError::NotFound { path, origin: Origin::Flag } if *path == flag),
                "{e:?}"
            );
            assert!(e.hints()[0].contains("kapi init"));
        }
    }

    #[test]
    fn a_file_not_written_yet_binds_the_project_of_its_nearest_folder() {
        let (_t, root) = project();
        let outside = root.parent().unwrap().to_path_buf();
        for flag in [root.join("docs/new/page.md"), root.join("nope")] {
            let o = DiscoverOptions {
                flag: Some(flag.clone()),
                ..opts(&outside)
            };
            assert_eq!(
                discover(&o).unwrap(),
                Some(root.join("kapi.yaml")),
                "{flag:?}"
            );
        }
    }

    #[test]
    fn a_relative_flag_is_looked_for_up_to_the_repository_root() {
        let (_t, root) = project();
        let sub = root.join("docs/deep");
        let o = |flag: &str, cwd: &Path| DiscoverOptions {
            flag: Some(flag.into()),
            ..opts(cwd)
        };
        // From a subfolder, `kapi.yaml` is the project's, as a committed host entry means it.
        assert_eq!(
            discover(&o("kapi.yaml", &sub)).unwrap(),
            Some(root.join("kapi.yaml"))
        );
        // A nearer folder holding the path wins.
        std::fs::write(sub.join("kapi.yaml"), "version: v1\n").unwrap();
        assert_eq!(
            discover(&o("kapi.yaml", &sub)).unwrap(),
            Some(sub.join("kapi.yaml"))
        );
        std::fs::remove_file(sub.join("kapi.yaml")).unwrap();
        // Never past a repository's root.
        let repo = root.join("docs");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let e = discover(&o("kapi.yaml", &sub)).unwrap_err();
        assert!(matches!(e, DiscoverError::NotFound { .. }), "{e:?}");
    }

    #[test]
    fn env_path_without_a_project_is_an_error() {
        let empty = tempfile::tempdir().unwrap();
        let o = DiscoverOptions {
            env_project: Some(empty.path().into()),
            ..opts(empty.path())
        };
        assert!(matches!(
            discover(&o),
            Err(DiscoverError::NoProject {
                origin: Origin::Env,
                ..
            })
        ));
    }

    #[test]
    fn state_folder_without_recipe_stops_the_walk() {
        let (_t, root) = project();
        let inner = root.join("docs");
        std::fs::create_dir(inner.join(".kapi")).unwrap();
        let e = discover(&opts(&inner.join("deep"))).unwrap_err();
        assert!(matches!(e, DiscoverError::StateWithoutRecipe { dir } if dir == inner));
    }

    #[test]
    fn a_folder_named_kapi_yaml_is_not_a_recipe() {
        let (_t, root) = project();
        let sub = root.join("docs/deep/sub");
        std::fs::create_dir_all(sub.join("kapi.yaml")).unwrap();
        assert_eq!(discover(&opts(&sub)).unwrap(), Some(root.join("kapi.yaml")));
    }
}
