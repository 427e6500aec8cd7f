//! Which files a check covers: every file the collections declare, or the named files and
//! folders (walked honouring `.gitignore` and the recipe's `exclude`), each with its format
//! and its [`Role`](super::plan::Role).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kapi_core::formats::Format;
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;

use super::plan::{Planner, Role};
use super::{Chosen, PathKey};
use crate::app::{App, ResolvedPath, relative_to};
use crate::document::declared_format;
use crate::error::HostError;

/// Formats whose extensions also name configuration and data files; a folder walk reads them
/// only where a collection declares them.
const WALK_SKIPS: &[&str] = &["json", "yaml", "android"];

/// The files a check covers, and the named paths as the report shows them: with no path,
/// every file the collections declare; else each named file, and every file a named folder
/// holds. Each named path is resolved once ([`App::resolve`]), and proven inside the project;
/// the `resolved` ones a surface resolved are taken as they are.
pub(super) fn collect_files(
    app: &App,
    project: Option<&Project>,
    collections: Option<&Collections>,
    mut planner: Option<&mut Planner>,
    paths: &[PathBuf],
    resolved: &[ResolvedPath],
) -> Result<(Vec<Chosen>, Vec<String>), HostError> {
    let mut chosen: BTreeMap<PathKey, Chosen> = BTreeMap::new();
    if paths.is_empty() && resolved.is_empty() {
        let (Some(project), Some(collections)) = (project, collections) else {
            return Err(HostError::NothingToCheck);
        };
        return Ok((declared_files(app, project, collections)?, Vec::new()));
    }
    let mut named = Vec::with_capacity(paths.len() + resolved.len());
    let named_here = paths.iter().map(|path| app.resolve(project, path));
    for path in resolved.iter().cloned().map(Ok).chain(named_here) {
        let path = path?;
        let meta = path.meta()?;
        if let Some(e) = HostError::special_file(path.given(), meta) {
            return Err(e);
        }
        if meta.is_dir() {
            walk_folder(
                app,
                project,
                collections,
                planner.as_deref_mut(),
                &path,
                &mut chosen,
            )?;
        } else {
            let role = role_of(path.rel(), planner.as_deref_mut())?;
            let format = match format_for(project, collections, path.abs(), &role)? {
                Some(format) => format,
                None => return Err(crate::document::unknown_format(path.given(), path.abs())),
            };
            chosen.insert(
                PathKey(path.abs().to_path_buf()),
                Chosen {
                    abs: path.abs().to_path_buf(),
                    rel: path.rel().map(str::to_owned),
                    display: path.display().to_owned(),
                    format,
                    role,
                },
            );
        }
        named.push(path.display().to_owned());
    }
    Ok((chosen.into_values().collect(), named))
}

/// Every file the collections declare that a format reads, as a source.
fn declared_files(
    app: &App,
    project: &Project,
    collections: &Collections,
) -> Result<Vec<Chosen>, HostError> {
    let declared = collections
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    if declared.is_empty() {
        return Err(HostError::NoContent);
    }
    let mut chosen: BTreeMap<PathKey, Chosen> = BTreeMap::new();
    for file in declared {
        let format = crate::document::pick(&file.abs, file.format.as_deref())?;
        let Some(format) = format else { continue };
        let display = app.display_path(&file.abs);
        chosen.insert(
            PathKey(file.abs.clone()),
            Chosen {
                abs: file.abs,
                rel: Some(file.rel),
                display,
                format,
                role: Role::Source,
            },
        );
    }
    Ok(chosen.into_values().collect())
}

/// Adds the files a named folder holds that a walk checks ([`walk_entry`]), honouring
/// `.gitignore`; a folder that adds none is an error.
fn walk_folder(
    app: &App,
    project: Option<&Project>,
    collections: Option<&Collections>,
    mut planner: Option<&mut Planner>,
    folder: &ResolvedPath,
    chosen: &mut BTreeMap<PathKey, Chosen>,
) -> Result<(), HostError> {
    let before = chosen.len();
    let mut walk = ignore::WalkBuilder::new(folder.abs());
    walk.hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .parents(true);
    walk.filter_entry(|e| e.file_name() != kapi_core::project::layout::KAPI_DIR);
    for entry in walk.build() {
        let entry = entry.map_err(|e| HostError::Io {
            path: folder.given().to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let file = entry.into_path();
        let Some((format, role)) = walk_entry(project, collections, planner.as_deref_mut(), &file)?
        else {
            continue;
        };
        chosen.insert(
            PathKey(file.clone()),
            Chosen {
                rel: project.and_then(|p| relative_to(&file, &p.root)),
                display: app.display_path(&file),
                abs: file,
                format,
                role,
            },
        );
    }
    if chosen.len() == before {
        return Err(HostError::NoFilesMatched {
            paths: format!("`{}`", folder.given().display()),
        });
    }
    Ok(())
}

/// How the project-relative `rel` is checked: [`Role::Source`] outside a project.
fn role_of(rel: Option<&str>, planner: Option<&mut Planner>) -> Result<Role, HostError> {
    match (rel, planner) {
        (Some(rel), Some(planner)) => planner.role(rel),
        _ => Ok(Role::Source),
    }
}

/// The format `abs` is read with: a translation's is its source's (declared, else by the
/// source's extension), so a target reads as the catalog it translates.
fn format_for(
    project: Option<&Project>,
    collections: Option<&Collections>,
    abs: &Path,
    role: &Role,
) -> Result<Option<&'static dyn Format>, HostError> {
    if let (Role::Translation { source, .. }, Some(project)) = (role, project) {
        let source = project.root.join(source);
        let declared = declared_format(Some(project), collections, &source);
        return crate::document::pick(&source, declared.as_deref());
    }
    let declared = declared_format(project, collections, abs);
    crate::document::pick(abs, declared.as_deref())
}

/// What a folder walk checks `abs` as, or `None` when it skips the file: a source by
/// [`walk_format`]'s rule; a translation (or a target with no source, which the check then
/// names) read with its source's format, unless excluded. The post-edit hook asks the same.
pub(crate) fn walk_entry(
    project: Option<&Project>,
    collections: Option<&Collections>,
    planner: Option<&mut Planner>,
    abs: &Path,
) -> Result<Option<(&'static dyn Format, Role)>, HostError> {
    let rel = project.and_then(|p| relative_to(abs, &p.root));
    let role = role_of(rel.as_deref(), planner)?;
    let format = match role {
        Role::Source => walk_format(project, collections, abs, rel.as_deref())?,
        _ => {
            if collections
                .zip(rel)
                .is_some_and(|(c, rel)| c.is_excluded(&rel))
            {
                return Ok(None);
            }
            format_for(project, collections, abs, &role)?
        }
    };
    Ok(format.map(|f| (f, role)))
}

/// The format a folder walk checks a [`Role::Source`] file `abs` with, or `None` when the walk
/// skips it: an excluded file, a format kapi does not read, a data format (`package.json`,
/// `kapi.yaml`, any `.xml`) or a rules file (`AGENTS.md`, `CLAUDE.md`) no collection declares,
/// and a rules file that holds only kapi's section wherever it is.
fn walk_format(
    project: Option<&Project>,
    collections: Option<&Collections>,
    abs: &Path,
    rel: Option<&str>,
) -> Result<Option<&'static dyn Format>, HostError> {
    if let (Some(collections), Some(rel)) = (collections, rel)
        && collections.is_excluded(rel)
    {
        return Ok(None);
    }
    let declared = declared_format(project, collections, abs);
    let Some(format) = crate::document::pick(abs, declared.as_deref())? else {
        return Ok(None);
    };
    let in_collection = collections
        .zip(rel)
        .is_some_and(|(collections, rel)| declares(collections, rel));
    if WALK_SKIPS.contains(&format.info().id) && !in_collection {
        return Ok(None);
    }
    // An AGENTS.md or CLAUDE.md holds kapi's rules section (never checked): the person's
    // text around it is content only where a collection declares the file, and a file that
    // holds nothing but kapi's section is kapi's own, never content.
    if rel.is_some_and(crate::agents::rules_files::rules_file)
        && (!in_collection || kapi_core::project::own_files::is_kapis_own(abs))
    {
        return Ok(None);
    }
    Ok(Some(format))
}

/// True when the collections declare the project-relative `rel` as a source file: an item
/// matches it, and it is neither the recipe nor a translation a `target` template produces.
pub(crate) fn declares(collections: &Collections, rel: &str) -> bool {
    rel != kapi_core::project::layout::RECIPE_FILE
        && collections.matches(rel).is_some()
        && !collections.is_target(rel)
}
