//! What the three hooks share: the call's context, finding the project that owns a path, the
//! checked-content test, and findings written as a reason an assistant can act on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kapi_core::check::{CheckReport, Finding};
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;
use kapi_core::project::discover::{DiscoverOptions, discover};
use kapi_core::project::layout::KAPI_DIR;

use super::Protocol;
use super::payload::{Payload, is_edit_tool};
use super::protocol::Verdict;
use crate::app::{App, ResolvedPath};
use crate::check::plan::{Planner, Role};
use crate::env::Env;
use crate::error::HostError;

/// Findings listed in one reason; the rest are counted.
pub(crate) const MAX_LISTED: usize = 25;

/// What the hook is doing now, for the message a deadline leaves.
#[derive(Debug, Clone, Default)]
pub struct Phase(Arc<Mutex<String>>);

impl Phase {
    pub fn set(&self, what: impl Into<String>) {
        if let Ok(mut p) = self.0.lock() {
            *p = what.into();
        }
    }

    pub fn get(&self) -> String {
        self.0.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// One hook call.
pub struct Ctx<'a> {
    pub env: &'a Env,
    pub payload: &'a Payload,
    /// The host whose protocol the answer follows (`None`: universal safe mode).
    pub host: Option<Protocol>,
    /// The session's working directory: the payload's, else the host's project variable.
    pub cwd: Option<PathBuf>,
    /// `-p/--project`, when the hook command names one.
    pub project_flag: Option<PathBuf>,
    pub phase: &'a Phase,
}

impl Ctx<'_> {
    /// `path` as the payload names it, made absolute against the session's directory.
    pub fn absolute(&self, path: &str) -> Result<PathBuf, String> {
        super::payload::resolve(path, self.cwd.as_deref()).ok_or_else(|| {
            format!("`{path}` is relative and the payload names no cwd to resolve it against")
        })
    }

    /// `path` joined to the payload's cwd as it is written, `..` unfolded (the system resolves
    /// a `..` after a link from the link's target); `None` when it is relative with no cwd.
    pub fn joined(&self, path: &str) -> Option<PathBuf> {
        let path = if cfg!(windows) {
            PathBuf::from(path)
        } else {
            PathBuf::from(path.replace('\\', "/"))
        };
        if path.is_absolute() {
            Some(path)
        } else {
            Some(self.cwd.as_deref()?.join(path))
        }
    }

    /// The session the state is kept under.
    pub fn session(&self) -> String {
        self.payload
            .session()
            .map(str::to_owned)
            .or_else(|| self.env.session.clone())
            .unwrap_or_else(|| "no-session".to_owned())
    }

    /// The project that owns `start` (a file or folder, existing or not): `KAPI_NO_PROJECT`
    /// disables it, `-p` and `KAPI_PROJECT` name it when `start` is inside it, else the walk up.
    pub fn project_for(&self, start: &Path) -> Result<Option<Project>, HostError> {
        let mut dir = start.to_path_buf();
        while !dir.is_dir() {
            if !dir.pop() {
                break;
            }
        }
        let base = self.cwd.clone().unwrap_or_else(|| dir.clone());
        let abs = |p: &PathBuf| kapi_core::project::discover::resolve(&base, p);
        let dir = crate::app::normalize(&dir);
        let options = DiscoverOptions {
            flag: self.project_flag.as_ref().map(abs),
            no_project: self.env.no_project,
            env_project: self.env.project.as_ref().map(abs),
            cwd: dir.clone(),
        };
        // `-p` or `KAPI_PROJECT` binds the hook only where the edit or the session is inside
        // that project: a variable the host inherited (stale, or naming another project) must
        // neither gate an unrelated folder nor switch the hooks off in this one.
        let named = options.flag.is_some() || options.env_project.is_some();
        let inside = |recipe: &PathBuf| {
            recipe.parent().is_some_and(|root| {
                dir.starts_with(root) || dir.canonicalize().is_ok_and(|real| real.starts_with(root))
            })
        };
        let found = match discover(&options) {
            Ok(Some(recipe)) if !named || inside(&recipe) => Some(recipe),
            Ok(None) if !named => None,
            Err(e) if !named => return Err(e.into()),
            _ => discover(&DiscoverOptions {
                flag: None,
                env_project: None,
                ..options
            })?,
        };
        let Some(recipe) = found else {
            return Ok(None);
        };
        Ok(Some(crate::app::load_project(recipe)?))
    }

    /// An App bound to `project`, naming files relative to the session's directory.
    pub fn app(&self, project: &Project) -> App {
        let cwd = self.cwd.clone().unwrap_or_else(|| project.root.clone());
        App::new(self.env.clone(), cwd, Some(project.root.clone()))
    }
}

/// The files a hook guards (`touched`: pre-edit's every file the edit names, or post-edit's
/// files that hold its result), or the verdict when there is nothing to guard: a tool that is
/// not an edit tool is nothing to report (a matcher wider than kapi's) unless its command
/// carries an `apply_patch` patch (Codex's shell tool with a heredoc); an edit tool that names
/// no file could not be guarded (an empty path must never pass for "nothing to guard").
pub fn guarded_paths(ctx: &Ctx, touched: bool) -> Result<Vec<String>, Verdict> {
    if let Some(tool) = ctx.payload.tool_name()
        && !is_edit_tool(tool)
        && ctx.payload.touched_paths().is_empty()
    {
        return Err(Verdict::Nothing);
    }
    let paths = if touched {
        ctx.payload.touched_paths()
    } else {
        ctx.payload.edited_paths()
    };
    if !paths.is_empty() {
        return Ok(paths);
    }
    if !touched && !ctx.payload.touched_paths().is_empty() {
        // A patch that only deletes files leaves nothing to check.
        return Err(Verdict::Nothing);
    }
    Err(Verdict::CouldNotRun {
        message:
            "the payload names no file the edit writes (no tool_input.file_path or tool_input.path)"
                .into(),
    })
}

/// A project file kapi checks when an edit writes it: not kapi's own files; a translation a
/// `target` template produces (checked against its source); or one a folder walk would check
/// (declared, or a format kapi reads that is not a data format).
pub fn is_content(
    project: &Project,
    collections: &Collections,
    path: &ResolvedPath,
) -> Result<bool, HostError> {
    let Some(rel) = path.rel() else {
        return Ok(false);
    };
    if rel == KAPI_DIR || rel.starts_with(&format!("{KAPI_DIR}/")) {
        return Ok(false);
    }
    // A target with no source is nothing an edit hook reports (the check would only note it).
    let mut planner = Planner::new(project, collections);
    Ok(crate::check::walk_entry(
        Some(project),
        Some(collections),
        Some(&mut planner),
        path.abs(),
    )?
    .is_some_and(|(_, role)| role != Role::Orphan))
}

/// A failed report as a reason reads it: `(why the gate failed):` and the findings that fail
/// it, one line each.
pub fn failure(report: &CheckReport) -> String {
    format!(
        "({}):\n{}",
        report.gate.failed.join("; "),
        failing_lines(report).join("\n")
    )
}

/// The findings that fail the report's gate, one line each, at most [`MAX_LISTED`].
fn failing_lines(report: &CheckReport) -> Vec<String> {
    let mut failing: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| report.gate.fail_on.fails(f.severity))
        .collect();
    if failing.is_empty() {
        // The gate failed on its minimum score: every finding counts.
        failing = report.findings.iter().collect();
    }
    let mut lines: Vec<String> = failing
        .iter()
        .take(MAX_LISTED)
        .map(|f| format!("  {}", f.line()))
        .collect();
    if failing.len() > MAX_LISTED {
        lines.push(format!("  … and {} more", failing.len() - MAX_LISTED));
    }
    lines
}
