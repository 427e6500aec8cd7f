//! `check`: which files a check covers, what governs each, the analyzers over all of them on
//! every core, and the gate — one function every surface (CLI, MCP, hooks) calls.
//!
//! Files: named files and folders (folders walked honouring `.gitignore` and the recipe's
//! `exclude`), or with no path inside a project every file the collections declare. Each file
//! is read by the format its collection item names, else by its extension (sniffed when
//! formats share one). A folder walk skips JSON, YAML and XML files no collection declares:
//! those extensions name configuration as often as content; name such a file to check it. `--diff-against REV`
//! reads each file's blob at REV with `git show` (the `git` binary, so the user's own git
//! config and credentials apply) and checks only the blocks whose key is new or whose content
//! changed, whole.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kapi_core::check::{self, CheckInput, CheckReport, Coverage, FailOn, Finding, Gate, Target};
use kapi_core::formats::{self, Format};
use kapi_core::governance::{Governance, load as governance_load};
use kapi_core::project::collections::Collections;
use kapi_core::project::resolve::Resolver;
use kapi_core::project::{Point, Project};

use crate::app::{App, normalize, relative_to};
use crate::document::declared_format;
use crate::error::HostError;

/// What to check and how to gate it.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    /// Files or folders; empty means every file the project declares.
    pub paths: Vec<PathBuf>,
    /// Overrides the recipe's gate.
    pub fail_on: Option<FailOn>,
    /// Overrides the recipe's minimum score.
    pub min_score: Option<u32>,
    /// Apply the project's ship gate (`gates.ship`).
    pub ship: bool,
    /// Check only the blocks changed since this git revision.
    pub diff_against: Option<String>,
}

/// A finished check: the report, and notes meant for stderr (governance fallbacks).
#[derive(Debug)]
pub struct CheckRun {
    pub report: CheckReport,
    pub notes: Vec<String>,
}

/// Receives progress as files finish: `(done, total)`.
pub trait Progress: Sync {
    fn update(&self, done: usize, total: usize);
}

impl Progress for () {
    fn update(&self, _: usize, _: usize) {}
}

/// One file to check.
#[derive(Clone)]
struct Job {
    abs: PathBuf,
    /// As the report names it.
    display: String,
    format: &'static dyn Format,
    /// Governance key (index into the loaded governances).
    governance: usize,
    /// Governance per target language (index into the loaded governances), for the
    /// languages the recipe lists at the file's point.
    target_governance: Vec<(String, usize)>,
    /// A catalog's translation files, from its collection item's `target` template.
    targets: Vec<TargetJob>,
}

/// One translation file of a monolingual catalog.
#[derive(Clone)]
struct TargetJob {
    lang: String,
    abs: PathBuf,
    display: String,
}

/// Runs a check.
pub fn check(
    app: &App,
    request: &CheckRequest,
    progress: &dyn Progress,
) -> Result<CheckRun, HostError> {
    let project = app.project()?;
    if request.ship && project.is_none() {
        return Err(HostError::NoProject {
            searched: app.cwd.clone(),
        });
    }
    let mut notes = Vec::new();
    let collections = match &project {
        Some(p) => Some(Collections::new(&p.recipe)?),
        None => None,
    };
    let files = collect_files(app, project.as_ref(), collections.as_ref(), &request.paths)?;

    // Resolve every file's point and load each distinct governance once.
    let resolver = project.as_ref().map(|p| Resolver::new(p, app.now));
    let mut governances: Vec<Arc<Governance>> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut jobs = Vec::with_capacity(files.len());
    for file in files {
        let point = match (&resolver, &project) {
            (Some(resolver), Some(project)) => {
                let rel = relative_to(&file.abs, &project.root).unwrap_or_default();
                resolver.resolve_path(&rel)
            }
            _ => Point {
                source_language: "en".into(),
                ..Point::default()
            },
        };
        if let Some(fallback) = &point.fallback {
            let note = fallback.note();
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        let mut load = |lang: &str| -> Result<usize, HostError> {
            let key = format!("{}|{lang}", governance_key(&point));
            Ok(match by_key.get(&key) {
                Some(&i) => i,
                None => {
                    let governance = match &project {
                        Some(project) => governance_load::load(&project.root, &point, lang)?,
                        None => Governance::empty(),
                    };
                    governances.push(Arc::new(governance));
                    by_key.insert(key, governances.len() - 1);
                    governances.len() - 1
                }
            })
        };
        let index = load(&point.source_language)?;
        let mut target_governance = Vec::new();
        for lang in &point.target_languages {
            target_governance.push((lang.clone(), load(lang)?));
        }
        let mut targets = Vec::new();
        if let (Some(project), Some(collections)) = (&project, &collections)
            && !file.format.info().capabilities.bilingual
            && let Some(rel) = relative_to(&file.abs, &project.root)
            && let Some(item) = collections.matches(&rel)
        {
            for (lang, target_rel) in item.target_paths(&rel) {
                let abs = normalize(&project.root.join(&target_rel));
                if abs.is_file() {
                    targets.push(TargetJob {
                        display: display_path(app, &abs),
                        lang,
                        abs,
                    });
                }
            }
        }
        jobs.push(Job {
            abs: file.abs,
            display: file.display,
            format: file.format,
            governance: index,
            target_governance,
            targets,
        });
    }

    let changed = match &request.diff_against {
        Some(rev) => Some(changed_files(app, rev, &jobs)?),
        None => None,
    };
    if let Some(changed) = &changed {
        jobs.retain(|job| changed.contains_key(&job.abs));
    }

    let results = run_jobs(&jobs, &governances, changed.as_ref(), progress)?;

    let mut findings: Vec<Finding> = Vec::new();
    let mut coverage = Coverage::default();
    let mut fingerprints = Vec::new();
    let mut blocks = 0;
    let mut ran: Vec<&str> = vec!["hygiene"];
    for (job, result) in jobs.iter().zip(results) {
        let governance = &governances[job.governance];
        blocks += result.blocks;
        findings.extend(result.findings);
        coverage.add(&job.display, &governance.unassessed);
        fingerprints.push(governance.fingerprint.clone());
        if !governance.terms.is_empty() && !ran.contains(&"terms") {
            ran.push("terms");
        }
        if governance.voice.is_some() && !ran.contains(&"voice") {
            ran.push("voice");
        }
        if job.format.info().capabilities.bilingual || !job.targets.is_empty() {
            if !ran.contains(&"placeholders") {
                ran.push("placeholders");
            }
            let terms = !governance.terms.is_empty()
                || job
                    .target_governance
                    .iter()
                    .any(|(_, i)| !governances[*i].terms.is_empty());
            if terms && !ran.contains(&"translation-terms") {
                ran.push("translation-terms");
            }
        }
    }
    coverage.ran = check::ANALYZERS
        .iter()
        .filter(|a| ran.contains(a))
        .map(|a| (*a).to_owned())
        .collect();

    let gate = gate_for(project.as_ref(), request)?;
    let target = Target {
        kind: if request.diff_against.is_some() {
            "diff".into()
        } else if request.paths.is_empty() {
            "project".into()
        } else {
            "files".into()
        },
        paths: request
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        files: jobs.len(),
        blocks,
        diff_against: request.diff_against.clone(),
    };
    let report = CheckReport::build(target, findings, gate, coverage, fingerprints);
    Ok(CheckRun { report, notes })
}

fn governance_key(point: &Point) -> String {
    format!(
        "{:?}|{:?}|{:?}|{}",
        point.voice.as_ref().map(|v| &v.path),
        point.channel,
        point.terms,
        point.source_language
    )
}

/// The gate: flags first, then the recipe's `gates` (or `gates.ship` under `--ship`), then
/// the default (fail on major or worse).
fn gate_for(project: Option<&Project>, request: &CheckRequest) -> Result<Gate, HostError> {
    let mut gate = Gate::default();
    if let Some(project) = project {
        let gates = project.recipe.gates();
        let spec = if request.ship {
            gates.ship
        } else {
            gates.default
        };
        if let Some(fail_on) = spec.fail_on {
            gate.fail_on = fail_on;
        }
        gate.min_score = spec.min_score;
    }
    if let Some(fail_on) = request.fail_on {
        gate.fail_on = fail_on;
    }
    if request.min_score.is_some() {
        gate.min_score = request.min_score;
    }
    Ok(gate)
}

struct FileResult {
    findings: Vec<Finding>,
    blocks: usize,
}

/// A job's index and its outcome.
type Indexed = (usize, Result<FileResult, HostError>);

/// Reads and checks every job on all cores; the first error (in job order) wins.
fn run_jobs(
    jobs: &[Job],
    governances: &[Arc<Governance>],
    changed: Option<&HashMap<PathBuf, Option<HashSet<String>>>>,
    progress: &dyn Progress,
) -> Result<Vec<FileResult>, HostError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let total = jobs.len();
    let mut slots: Vec<Option<Result<FileResult, HostError>>> = Vec::with_capacity(total);
    slots.resize_with(total, || None);
    let per_thread: Vec<Option<Vec<Indexed>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        let only = changed
                            .and_then(|c| c.get(&job.abs))
                            .and_then(|o| o.as_ref());
                        out.push((i, check_file(job, governances, only)));
                        progress.update(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                    }
                    out
                })
            })
            .collect();
        // A worker that panicked checked nothing: that is an error, never an empty pass.
        handles.into_iter().map(|h| h.join().ok()).collect()
    });
    let Some(per_thread) = per_thread.into_iter().collect::<Option<Vec<_>>>() else {
        return Err(HostError::Internal {
            message: "a check worker stopped unexpectedly; no result is reported".into(),
        });
    };
    for (i, result) in per_thread.into_iter().flatten() {
        slots[i] = Some(result);
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.unwrap_or_else(|| {
                Err(HostError::Internal {
                    message: "a file was left unchecked".into(),
                })
            })
        })
        .collect()
}

fn check_file(
    job: &Job,
    governances: &[Arc<Governance>],
    only: Option<&HashSet<String>>,
) -> Result<FileResult, HostError> {
    let governance: &Governance = &governances[job.governance];
    let (_, parsed) = crate::document::parse(&job.abs, &job.display, job.format)?;
    // Offsets index the decoded text the skeleton holds.
    let text = parsed.skeleton.text();
    let input = CheckInput {
        path: &job.display,
        text,
        document: &parsed.document,
        governance,
        only_blocks: only,
    };
    let mut findings = check::check_document(&input);
    findings.extend(check_translations(job, governances, &parsed, only)?);
    if parsed.container.is_some() {
        // A line of a part inside a zip (Word's document.xml) means nothing to a reader of
        // the document: the block key (`body/p#12`) says where.
        for finding in &mut findings {
            finding.line = 0;
            finding.column = 0;
        }
    }
    let blocks = match only {
        Some(keys) => keys.len(),
        None => parsed
            .document
            .blocks
            .iter()
            .filter(|b| b.translatable)
            .count(),
    };
    Ok(FileResult { findings, blocks })
}

/// The `placeholders` and `translation-terms` findings of a file's translations: a bilingual
/// file's own target editions, or a catalog's translation files (findings name the
/// translation file). A language the recipe does not list is checked for placeholders alone.
fn check_translations(
    job: &Job,
    governances: &[Arc<Governance>],
    parsed: &formats::Parsed,
    only: Option<&HashSet<String>>,
) -> Result<Vec<Finding>, HostError> {
    let source_gov: &Governance = &governances[job.governance];
    let empty = Governance::empty();
    let target_gov = |lang: &str| -> &Governance {
        job.target_governance
            .iter()
            .find(|(l, _)| l == lang)
            .map_or(&empty, |(_, i)| &governances[*i])
    };
    let selected = |key: &str| only.is_none_or(|keys| keys.contains(key));
    let mut findings = Vec::new();
    if job.format.info().capabilities.bilingual {
        let mut langs: Vec<&String> = parsed
            .document
            .blocks
            .iter()
            .flat_map(|b| b.targets.keys())
            .collect();
        langs.sort();
        langs.dedup();
        let text = parsed.skeleton.text();
        for lang in langs {
            // Findings point at the target's own text (its first hole), else the block.
            let mut starts: HashMap<usize, usize> = HashMap::new();
            for hole in &parsed.skeleton.holes {
                if hole.edition.as_deref() == Some(lang.as_str()) {
                    let at = starts.entry(hole.block).or_insert(hole.span.start);
                    *at = (*at).min(hole.span.start);
                }
            }
            let pairs = parsed
                .document
                .blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.translatable && selected(&b.key))
                .filter_map(|(i, b)| {
                    let target = b.targets.get(lang)?;
                    Some(check::Pair {
                        key: &b.key,
                        source: &b.source,
                        target,
                        at: starts.get(&i).copied().unwrap_or(b.span.start),
                    })
                })
                .collect();
            findings.extend(check::check_translations(&check::TranslationInput {
                path: &job.display,
                text,
                lang,
                pairs,
                source_governance: source_gov,
                target_governance: target_gov(lang),
            }));
        }
        return Ok(findings);
    }
    for target in &job.targets {
        let (_, translated) = crate::document::parse(&target.abs, &target.display, job.format)?;
        let aligned = kapi_core::model::align(&parsed.document, &translated.document);
        let pairs = parsed
            .document
            .blocks
            .iter()
            .zip(aligned)
            .filter(|(s, _)| s.translatable && selected(&s.key))
            .filter_map(|(source, pair)| {
                let t = translated.document.blocks.get(pair?)?;
                Some(check::Pair {
                    key: &t.key,
                    source: &source.source,
                    target: &t.source,
                    at: t.span.start,
                })
            })
            .collect();
        findings.extend(check::check_translations(&check::TranslationInput {
            path: &target.display,
            text: translated.skeleton.text(),
            lang: &target.lang,
            pairs,
            source_governance: source_gov,
            target_governance: target_gov(&target.lang),
        }));
    }
    Ok(findings)
}

/// Formats whose extensions also name configuration and data files; a folder walk reads them
/// only where a collection declares them.
const WALK_SKIPS: &[&str] = &["json", "yaml", "android"];

/// A file chosen for checking.
struct Chosen {
    abs: PathBuf,
    display: String,
    format: &'static dyn Format,
}

fn collect_files(
    app: &App,
    project: Option<&Project>,
    collections: Option<&Collections>,
    paths: &[PathBuf],
) -> Result<Vec<Chosen>, HostError> {
    let mut chosen: BTreeMap<PathBuf, Chosen> = BTreeMap::new();
    if paths.is_empty() {
        let (Some(project), Some(collections)) = (project, collections) else {
            return Err(HostError::NothingToCheck);
        };
        let declared = collections
            .declared_files(&project.root)
            .map_err(|e| HostError::io(&project.root, e))?;
        if declared.is_empty() {
            return Err(HostError::NoContent);
        }
        for file in declared {
            let format = crate::document::pick(&file.abs, file.format.as_deref())?;
            let Some(format) = format else { continue };
            let display = display_path(app, &file.abs);
            chosen.insert(
                file.abs.clone(),
                Chosen {
                    abs: file.abs,
                    display,
                    format,
                },
            );
        }
        return Ok(chosen.into_values().collect());
    }
    for path in paths {
        let abs = normalize(&app.absolute(path));
        let meta =
            std::fs::metadata(&abs).map_err(|_| HostError::NoSuchPath { path: path.clone() })?;
        if let Some(project) = project
            && !abs.starts_with(&project.root)
        {
            return Err(HostError::OutsideProject {
                path: path.clone(),
                root: project.root.clone(),
            });
        }
        if let Some(project) = project {
            crate::document::stay_inside(path, &abs, &project.root)?;
        }
        if !meta.is_dir() {
            // A file, or a named pipe the caller feeds.
            let declared = declared_format(project, collections, &abs);
            let format = crate::document::pick(&abs, declared.as_deref())?
                .ok_or_else(|| HostError::UnknownFormat { path: path.clone() })?;
            chosen.insert(
                abs.clone(),
                Chosen {
                    display: display_path(app, &abs),
                    abs,
                    format,
                },
            );
            continue;
        }
        let before = chosen.len();
        let mut walk = ignore::WalkBuilder::new(&abs);
        walk.hidden(true)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .parents(true);
        walk.filter_entry(|e| e.file_name() != ".kapi");
        for entry in walk.build() {
            let entry = entry.map_err(|e| HostError::Io {
                path: path.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let file = entry.into_path();
            let Some(format) = walk_format(project, collections, &file)? else {
                continue;
            };
            chosen.insert(
                file.clone(),
                Chosen {
                    display: display_path(app, &file),
                    abs: file,
                    format,
                },
            );
        }
        if chosen.len() == before {
            return Err(HostError::NoFilesMatched {
                paths: format!("`{}`", path.display()),
            });
        }
    }
    Ok(chosen.into_values().collect())
}

/// The format a folder walk checks `abs` with, or `None` when the walk skips it: an excluded
/// file, a translation a `target` template produces (the check of its source reads it, against
/// its own language's terms), a format kapi does not read, and a data format (`package.json`,
/// `kapi.yaml`, any `.xml`) no collection declares. The post-edit hook asks the same question.
pub(crate) fn walk_format(
    project: Option<&Project>,
    collections: Option<&Collections>,
    abs: &Path,
) -> Result<Option<&'static dyn Format>, HostError> {
    let rel = project.and_then(|p| relative_to(abs, &p.root));
    if let (Some(collections), Some(rel)) = (collections, &rel)
        && (collections.is_excluded(rel) || collections.is_target(rel))
    {
        return Ok(None);
    }
    let declared = declared_format(project, collections, abs);
    let Some(format) = crate::document::pick(abs, declared.as_deref())? else {
        return Ok(None);
    };
    let in_collection = collections
        .zip(rel.as_deref())
        .is_some_and(|(collections, rel)| declares(collections, rel));
    if WALK_SKIPS.contains(&format.info().id) && !in_collection {
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

/// A path as reports show it: relative to the working directory (`../README.md` for a file
/// beside it), or absolute when the two share nothing but the root.
pub fn display_path(app: &App, abs: &Path) -> String {
    if let Some(rel) = relative_to(abs, &app.cwd) {
        return rel;
    }
    let cwd: Vec<_> = app.cwd.components().collect();
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

/// For `--diff-against`: the files that changed since `rev`, each with the block keys to
/// check (`None`: every block, the file is new).
fn changed_files(
    app: &App,
    rev: &str,
    jobs: &[Job],
) -> Result<HashMap<PathBuf, Option<HashSet<String>>>, HostError> {
    let top = git(&app.cwd, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    git(
        &app.cwd,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| HostError::Git {
        message: format!("`{rev}` is not a revision in this repository"),
    })?;
    let mut out = HashMap::new();
    for job in jobs {
        let canonical = job.abs.canonicalize().unwrap_or_else(|_| job.abs.clone());
        let Some(rel) = relative_to(&canonical, &top).or_else(|| relative_to(&job.abs, &top))
        else {
            continue;
        };
        let now = std::fs::read(&job.abs).map_err(|e| HostError::io(&job.abs, e))?;
        let before = match git(&top, &["show", &format!("{rev}:{rel}")]) {
            Ok(bytes) => bytes,
            Err(_) => {
                out.insert(job.abs.clone(), None);
                continue;
            }
        };
        if before == now {
            continue;
        }
        let new = job.format.read(&now).map_err(|source| HostError::Read {
            path: job.display.clone().into(),
            source,
        })?;
        let old_revs: HashMap<String, String> = match job.format.read(&before) {
            Ok(old) => old
                .document
                .blocks
                .iter()
                .map(|b| (b.key.clone(), b.source.rev()))
                .collect(),
            Err(_) => HashMap::new(),
        };
        let keys: HashSet<String> = new
            .document
            .blocks
            .iter()
            .filter(|b| b.translatable && old_revs.get(&b.key) != Some(&b.source.rev()))
            .map(|b| b.key.clone())
            .collect();
        if !keys.is_empty() || new.document.blocks.is_empty() {
            out.insert(job.abs.clone(), Some(keys));
        }
    }
    Ok(out)
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, HostError> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| HostError::Git {
            message: format!("could not run `git`: {e}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(HostError::Git {
            message: stderr.lines().next().unwrap_or("failed").to_owned(),
        });
    }
    Ok(output.stdout)
}
