//! What the three hooks share: the call's context, finding the project that owns a path, the
//! checked-content test, and findings written as a reason an assistant can act on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kapi_core::check::{CheckReport, Finding};
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;
use kapi_core::project::discover::{DiscoverOptions, discover};
use kapi_core::project::layout::{KAPI_DIR, RECIPE_FILE};

use super::Protocol;
use super::payload::{Payload, is_edit_tool};
use super::protocol::Verdict;
use crate::app::{App, relative_to};
use crate::env::Env;
use crate::error::HostError;

/// Findings listed in one reason; the rest are counted.
const MAX_LISTED: usize = 25;

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
    /// The session the state is kept under.
    pub fn session(&self) -> String {
        self.payload
            .session()
            .map(str::to_owned)
            .or_else(|| self.env.session.clone())
            .unwrap_or_else(|| "no-session".to_owned())
    }

    /// The project that owns `start` (a file or folder, existing or not), honouring `-p`,
    /// `KAPI_NO_PROJECT` and `KAPI_PROJECT` as every verb does.
    pub fn project_for(&self, start: &Path) -> Result<Option<Project>, HostError> {
        let mut dir = start.to_path_buf();
        while !dir.is_dir() {
            if !dir.pop() {
                break;
            }
        }
        let base = self.cwd.clone().unwrap_or_else(|| dir.clone());
        let abs = |p: &PathBuf| {
            if p.is_absolute() {
                p.clone()
            } else {
                base.join(p)
            }
        };
        let options = DiscoverOptions {
            flag: self.project_flag.as_ref().map(abs),
            no_project: self.env.no_project,
            env_project: self.env.project.as_ref().map(abs),
            cwd: dir,
        };
        let Some(recipe) = discover(&options)? else {
            return Ok(None);
        };
        Ok(Some(Project::load(&recipe)?))
    }

    /// An App bound to `project`, naming files relative to the session's directory.
    pub fn app(&self, project: &Project) -> App {
        let cwd = self.cwd.clone().unwrap_or_else(|| project.root.clone());
        App::new(self.env.clone(), cwd, Some(project.root.clone()))
    }
}

/// The files the edit names, or the verdict when it names none: nothing to report for a tool
/// that is not an edit tool, else a guard that could not run (an empty path must never pass
/// for "nothing to guard").
pub fn edited_paths(ctx: &Ctx) -> Result<Vec<String>, Verdict> {
    let paths = ctx.payload.edited_paths();
    if !paths.is_empty() {
        return Ok(paths);
    }
    Err(match ctx.payload.tool_name() {
        Some(tool) if !is_edit_tool(tool) => Verdict::Nothing,
        _ => Verdict::CouldNotRun {
            message: "the payload names no file the edit writes (no tool_input.file_path or tool_input.path)".into(),
        },
    })
}

/// A project file kapi checks as content when an edit writes it: not kapi's own files, not
/// excluded, a format kapi reads, and (for data formats) declared by a collection.
pub fn is_content(
    project: &Project,
    collections: &Collections,
    abs: &Path,
) -> Result<bool, HostError> {
    let Some(rel) = relative_to(abs, &project.root) else {
        return Ok(false);
    };
    if rel == RECIPE_FILE || rel == KAPI_DIR || rel.starts_with(&format!("{KAPI_DIR}/")) {
        return Ok(false);
    }
    if collections.is_excluded(&rel) {
        return Ok(false);
    }
    let declared = crate::document::declared_format(Some(project), Some(collections), abs);
    let Some(format) = crate::document::pick(abs, declared.as_deref())? else {
        return Ok(false);
    };
    Ok(declared.is_some() || !crate::check::WALK_SKIPS.contains(&format.info().id))
}

/// The source file a generated translation target comes from, with its language: the first
/// declared source whose item's `target` template names `rel`.
pub fn source_of(
    project: &Project,
    collections: &Collections,
    rel: &str,
) -> Result<Option<(String, String)>, HostError> {
    if !collections.is_target(rel) {
        return Ok(None);
    }
    let declared = collections
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    for file in declared {
        let Some(item) = collections.matches(&file.rel) else {
            continue;
        };
        if let Some((lang, _)) = item
            .target_paths(&file.rel)
            .into_iter()
            .find(|(_, t)| t == rel)
        {
            return Ok(Some((file.rel, lang)));
        }
    }
    Ok(None)
}

/// The findings that fail the report's gate, one line each, at most [`MAX_LISTED`].
pub fn failing_lines(report: &CheckReport) -> Vec<String> {
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
        .map(|f| {
            let at = if f.line == 0 {
                f.path.clone()
            } else {
                format!("{}:{}:{}", f.path, f.line, f.column)
            };
            let mut line = format!("  {at} {} {} {}", f.severity.as_str(), f.rule, f.message);
            if let Some(s) = &f.suggestion {
                line.push_str(&format!("; use `{s}`"));
            }
            line
        })
        .collect();
    if failing.len() > MAX_LISTED {
        lines.push(format!("  … and {} more", failing.len() - MAX_LISTED));
    }
    lines
}

/// Why the gate failed, as the report says it.
pub fn gate_reasons(report: &CheckReport) -> String {
    report.gate.failed.join("; ")
}
