//! `check`: which files a check covers, what governs each, the analyzers over all of them on
//! every core, and the gate — one function every surface (CLI, MCP, hooks) calls.
//!
//! Files: named files and folders (folders walked honouring `.gitignore` and the recipe's
//! `exclude`), or with no path inside a project every file the collections declare. Each file
//! is read by the format its collection item names, else by its extension (sniffed when
//! formats share one). A folder walk skips JSON, YAML and XML files no collection declares:
//! those extensions name configuration as often as content; name such a file to check it.
//! How each file is checked is [`plan::Role`]'s one decision: a translation a `target`
//! template produces is checked against its source (`placeholders`, `translation-terms`)
//! however it was reached, and a source and its named translation are checked once.
//! `--diff-against REV` is `diff`: only the blocks that changed since REV, translations too.

mod allowed;
mod cache;
pub(crate) mod diff;
mod feed;
pub mod plan;
mod run;
mod vale;
mod walk;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use kapi_core::check::{
    self, CheckReport, Coverage, FailOn, FileTally, Findings, Gate, Scoring, Target,
};
use kapi_core::formats::Format;
use kapi_core::governance::{Governance, load as governance_load};
use kapi_core::project::collections::Collections;
use kapi_core::project::resolve::Resolver;
use kapi_core::project::{Point, Project};

use crate::app::{App, ResolvedPath, normalize};
use crate::error::HostError;
use crate::memo::GovernanceKey;

pub(crate) use allowed::recipe_rules;
pub(crate) use walk::{declares, walk_entry};

/// What to check and how to gate it.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    /// Files or folders as a person named them, read from the working folder: the check
    /// resolves each once ([`App::resolve`]). With `resolved` also empty: every file the
    /// project declares.
    pub paths: Vec<PathBuf>,
    /// Files or folders a surface has resolved already (a tool's path read against the
    /// project root, the file a hook's edit names): checked as they are, never resolved again.
    pub resolved: Vec<ResolvedPath>,
    /// Overrides the recipe's gate.
    pub fail_on: Option<FailOn>,
    /// Overrides the recipe's minimum score.
    pub min_score: Option<u32>,
    /// Apply the project's ship gate (`gates.ship`).
    pub ship: bool,
    /// Check only the blocks changed since this git revision.
    pub diff_against: Option<String>,
    /// Check every file, never reusing a cached check of an unchanged one.
    pub no_cache: bool,
    /// Report what the project allows where it stands (directives, term exceptions, the
    /// recipe's `rules:`) as findings, setting nothing apart (`--no-suppress`).
    pub no_suppress: bool,
    /// Set from another thread to stop the check (an MCP client's `notifications/cancelled`):
    /// the check then ends with an error no one reads, and frees its cores.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// A finished check: the report, and notes meant for stderr (governance fallbacks).
#[derive(Debug)]
pub struct CheckRun {
    pub report: CheckReport,
    pub notes: Vec<String>,
    /// How many of the report's findings went to [`Progress::findings`] while it ran (`None`:
    /// the progress streams none). Past [`kapi_core::check::MAX_FINDINGS`] they are the first
    /// in report order; the report's own `findings` hold the most severe.
    pub streamed: Option<usize>,
}

/// Receives progress as files finish: `(done, total)`, and, when it [streams](Self::streams),
/// the findings as they become final.
pub trait Progress: Sync {
    fn update(&self, done: usize, total: usize);

    /// Whether the check hands it findings while it runs ([`Self::findings`]).
    fn streams(&self) -> bool {
        false
    }

    /// Findings in report order (path, line, column, rule), each once, as soon as no file
    /// still to be planned or checked can add one that sorts before them; at most
    /// [`kapi_core::check::MAX_FINDINGS`] in all. Called from the check's workers, one call
    /// at a time.
    fn findings(&self, _findings: &[kapi_core::check::Finding]) {}
}

impl Progress for () {
    fn update(&self, _: usize, _: usize) {}
}

/// One file to check, with the translations checked against it.
#[derive(Clone)]
struct Job {
    abs: PathBuf,
    /// As the report names it.
    display: String,
    format: &'static dyn Format,
    /// Run the source analyzers (hygiene, terms, voice) on the file itself: false when the
    /// job exists only because one of its translations was named without it.
    source_checks: bool,
    /// The governance the file is checked under.
    governance: Arc<Governance>,
    /// Governance per target language, for the languages the recipe lists at the file's
    /// point.
    target_governance: Vec<(String, Arc<Governance>)>,
    /// A catalog's translation files, from its collection item's `target` template.
    targets: Vec<TargetJob>,
    /// The recipe's `rules:` exclusions that cover the file.
    file_rules: Vec<kapi_core::check::suppress::FileRule>,
    /// `translation.unchanged` turned on by the recipe, with its `allow:` strings.
    unchanged: Option<Arc<Vec<String>>>,
    /// The Vale rules in force, when a Vale configuration governs the file.
    vale: Option<vale::FileVale>,
    /// The guidance in force that no analyzer assesses: the governance's, then the Vale
    /// rules'.
    unassessed: Vec<kapi_core::governance::Unassessed>,
}

/// One translation file of a monolingual catalog.
#[derive(Clone)]
struct TargetJob {
    lang: String,
    abs: PathBuf,
    display: String,
    /// The recipe's `rules:` exclusions that cover the translation file.
    file_rules: Vec<kapi_core::check::suppress::FileRule>,
}

/// A file a walk names, as the text tools read it (`kapi cat`, `grep`, `sed`).
pub(crate) struct Named {
    pub abs: PathBuf,
    /// As a `ref.doc` names it: project-relative inside a project, else as displayed.
    pub doc: String,
    pub format: &'static dyn Format,
}

/// The files `paths` name, folders walked as a check walks them (every file the collections
/// declare when `paths` is empty), each a source read with its own format.
pub(crate) fn named_files(
    app: &App,
    project: Option<&Project>,
    paths: &[PathBuf],
) -> Result<Vec<Named>, HostError> {
    let collections = project.map(Project::collections).transpose()?;
    let (files, _) = walk::collect_files(app, project, collections.as_deref(), None, paths, &[])?;
    Ok(files
        .into_iter()
        .map(|c| Named {
            doc: c.rel.unwrap_or_else(|| c.display.clone()),
            abs: c.abs,
            format: c.format,
        })
        .collect())
}

/// A file chosen for checking, and how.
struct Chosen {
    abs: PathBuf,
    /// Project-relative, under a project.
    rel: Option<String>,
    display: String,
    format: &'static dyn Format,
    role: plan::Role,
}

/// A normalized absolute path ordered as [`Path`]'s own order (component by component), but
/// compared as bytes with each separator below every other byte: the same order for a path
/// with no empty, `.` or `..` component, without splitting both into components at every
/// comparison (38% of planning a check of 5,000 files went to `Path::cmp`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PathKey(PathBuf);

impl PathKey {
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let separator = |b: u8| b == b'/' || char::from(b) == std::path::MAIN_SEPARATOR;
        self.0
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .map(move |&b| if separator(b) { 0 } else { b })
    }
}

impl Ord for PathKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.bytes().cmp(other.bytes())
    }
}

impl PartialOrd for PathKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What the check of one source file covers, gathered from every path that reached it.
struct Spec {
    /// Project-relative, under a project.
    rel: Option<String>,
    display: String,
    format: &'static dyn Format,
    source_checks: bool,
    /// The translations to check: `None` every one.
    langs: Option<BTreeSet<String>>,
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
        Some(p) => Some(p.collections()?),
        None => None,
    };
    let mut planner = match (&project, &collections) {
        (Some(p), Some(c)) => Some(plan::Planner::new(p, c)),
        _ => None,
    };
    let mut governances = Governances::default();
    // Outside a project, with no path named, a Vale configuration makes the folder a
    // project: its files the configuration governs are checked, as `vale .` lints them.
    let implicit = project.is_none() && request.paths.is_empty() && request.resolved.is_empty();
    let implicit = implicit && governances.vales.outside(app).is_some();
    let here = [PathBuf::from(".")];
    let (mut files, named) = walk::collect_files(
        app,
        project.as_ref(),
        collections.as_deref(),
        planner.as_mut(),
        if implicit { &here } else { &request.paths },
        &request.resolved,
    )?;
    if implicit {
        files = governed_by_vale(app, &mut governances, &mut notes, files)?;
    }
    let mut specs = specs(app, project.as_ref(), files, &mut notes);
    sources_once(&mut specs);
    let scope = Scope {
        app,
        project: project.as_ref(),
        collections: collections.as_deref(),
        resolver: project.as_ref().map(|p| Resolver::new(p, app.now)),
    };
    let expected = specs.len();
    let mut specs = specs.into_iter();
    // A diff asks git about every file first: its plan is done before the work.
    let (ready, changed) = match &request.diff_against {
        Some(rev) => {
            let mut jobs = specs
                .by_ref()
                .map(|(PathKey(abs), spec)| scope.job(&mut governances, &mut notes, abs, spec))
                .collect::<Result<Vec<Job>, HostError>>()?;
            let changed = diff::changed(app, rev, &jobs)?;
            jobs.retain(|job| changed.contains_key(&job.abs));
            (jobs, Some(changed))
        }
        None => (Vec::new(), None),
    };

    let cache = match &project {
        Some(p) if !request.no_cache && !request.no_suppress && changed.is_none() => {
            // The cache as the last check left it: its write (after that answer) is done.
            crate::derived::wait();
            cache::Cache::open(&p.root)
        }
        _ => None,
    };
    let feed = feed::Feed::new(Some(progress));
    let workers = run::Workers {
        changed: changed.as_ref(),
        cache: cache.as_ref(),
        progress,
        cancel: request.cancel.as_deref(),
        no_suppress: request.no_suppress,
        expected: if changed.is_some() {
            ready.len()
        } else {
            expected
        },
    };
    // Each job goes to the workers as soon as it is planned.
    let results = run::run_jobs(&feed, &workers, || {
        for job in ready {
            feed.push(job);
        }
        for (PathKey(abs), spec) in specs {
            feed.push(scope.job(&mut governances, &mut notes, abs, spec)?);
        }
        Ok(())
    })?;
    let (jobs, streamed) = feed.into_parts();
    let used = save_cache(cache, jobs.len());
    let tally = Tally::of(&jobs, results);
    let gate = gate_for(
        project.as_ref(),
        request.fail_on,
        request.min_score,
        request.ship,
    );
    let target = target(request, named, &jobs, tally.blocks);
    let mut report = CheckReport::build_scored(
        target,
        tally.findings,
        gate,
        tally.coverage,
        tally.fingerprints,
        tally.scoring,
    );
    let mut stale = tally.stale;
    stale.sort_by(|a, b| (&a.path, &a.block, &a.lang).cmp(&(&b.path, &b.block, &b.lang)));
    report.stale = stale;
    report.cache = used;
    Ok(CheckRun {
        report,
        notes,
        streamed,
    })
}

/// The files the Vale configuration found outside a project governs (its styles' own files
/// and those no section matches are left out).
fn governed_by_vale(
    app: &App,
    governances: &mut Governances,
    notes: &mut Vec<String>,
    files: Vec<Chosen>,
) -> Result<Vec<Chosen>, HostError> {
    let Some(config) = governances.vales.outside(app) else {
        return Ok(files);
    };
    let mut kept = Vec::with_capacity(files.len());
    for file in files {
        if governances
            .vales
            .for_file(app, &config, &file.abs, notes)?
            .is_some()
        {
            kept.push(file);
        }
    }
    Ok(kept)
}

/// How the check used the cache, which is written on another core while the report is built
/// and printed (best effort: a cache that cannot be written is a slower next run).
fn save_cache(cache: Option<cache::Cache>, jobs: usize) -> Option<kapi_core::check::CacheUse> {
    let used = cache.as_ref().map(cache::Cache::usage);
    if let Some(cache) = cache {
        if jobs <= 1 {
            // One file (an edit's check): a thread only where the process outlives the answer.
            crate::derived::in_background(move || cache.save());
        } else {
            crate::derived::alongside(move || cache.save());
        }
    }
    used
}

/// The governances a check loads, each distinct one once (keyed by what it is built from
/// and its language).
#[derive(Default)]
struct Governances {
    by_key: HashMap<GovernanceKey, Arc<Governance>>,
    /// The Vale configurations loaded.
    vales: vale::Vales,
}

impl Governances {
    /// The governance at `point` in `lang`, loaded on first use (the empty
    /// governance outside a project); a process loads each once while its files are
    /// unchanged ([`crate::memo`]).
    fn load(
        &mut self,
        project: Option<&Project>,
        point: &Point,
        lang: &str,
    ) -> Result<Arc<Governance>, HostError> {
        let key: GovernanceKey = (
            project.map(|p| p.root.clone()).unwrap_or_default(),
            point.voice.as_ref().map(|v| v.path.clone()),
            point.channel.clone(),
            point.terms.clone(),
            point.source_language.clone(),
            lang.to_owned(),
        );
        if let Some(governance) = self.by_key.get(&key) {
            return Ok(Arc::clone(governance));
        }
        let governance = match project {
            Some(project) => {
                let files: Vec<&Path> = key.1.iter().chain(&key.3).map(PathBuf::as_path).collect();
                crate::memo::governance(key.clone(), &files, || {
                    Ok::<_, HostError>(Arc::new(governance_load::load(&project.root, point, lang)?))
                })?
            }
            None => Arc::new(Governance::empty()),
        };
        self.by_key.insert(key, Arc::clone(&governance));
        Ok(governance)
    }
}

/// What every job of a check is built from: the app, and the project with its collections
/// and its resolver, when one binds the call.
struct Scope<'a> {
    app: &'a App,
    project: Option<&'a Project>,
    collections: Option<&'a Collections>,
    resolver: Option<Resolver<'a>>,
}

impl Scope<'_> {
    /// The job for one source file: its point resolved (a fallback is a note), its governance
    /// and its target languages' loaded, and its translation files that exist.
    fn job(
        &self,
        governances: &mut Governances,
        notes: &mut Vec<String>,
        abs: PathBuf,
        spec: Spec,
    ) -> Result<Job, HostError> {
        let point = match &self.resolver {
            Some(resolver) => resolver.resolve_path(spec.rel.as_deref().unwrap_or_default()),
            None => Point {
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
        let governance = governances.load(self.project, &point, &point.source_language)?;
        let vale_config = match self.project {
            Some(project) => point.vale.as_ref().map(|v| project.root.join(v)),
            None => governances.vales.outside(self.app),
        };
        let vale = match vale_config {
            Some(config) => governances.vales.for_file(self.app, &config, &abs, notes)?,
            None => None,
        };
        let mut unassessed = governance.unassessed.clone();
        if let Some(v) = &vale {
            unassessed.extend(v.unassessed());
        }
        let bilingual = spec.format.info().capabilities.bilingual;
        if spec.format.info().id == "po"
            && let Some(note) = crate::translate::po_language_note(&abs, &spec.display)
            && !notes.contains(&note)
        {
            notes.push(note);
        }
        let targets = match (self.project, self.collections) {
            (Some(project), Some(collections)) if !bilingual => target_jobs(
                self.app,
                project,
                collections,
                spec.rel.as_deref(),
                spec.langs.as_ref(),
            ),
            _ => Vec::new(),
        };
        // Only what the file needs: a language's governance is loaded (its files read, its
        // matcher compiled) when the file holds that language or a translation file does.
        let mut target_governance = Vec::new();
        for lang in &point.target_languages {
            if bilingual || targets.iter().any(|t| &t.lang == lang) {
                let at = governances.load(self.project, &point, lang)?;
                target_governance.push((lang.clone(), at));
            }
        }
        Ok(Job {
            unchanged: self
                .project
                .and_then(|p| {
                    p.recipe
                        .enabled(kapi_core::check::analyzers::unchanged::UNCHANGED.id)
                })
                .map(Arc::new),
            abs,
            file_rules: allowed::recipe_rules(self.project, spec.rel.as_deref()),
            display: spec.display,
            format: spec.format,
            source_checks: spec.source_checks,
            governance,
            target_governance,
            targets,
            vale,
            unassessed,
        })
    }
}

/// The translation files of the monolingual catalog at the project-relative `rel` that exist,
/// from its collection item's `target` template (only the languages in `langs`, when it names
/// some).
fn target_jobs(
    app: &App,
    project: &Project,
    collections: &Collections,
    rel: Option<&str>,
    langs: Option<&BTreeSet<String>>,
) -> Vec<TargetJob> {
    let Some(rel) = rel else {
        return Vec::new();
    };
    let Some(item) = collections.matches(rel) else {
        return Vec::new();
    };
    let mut targets = Vec::new();
    for (lang, target_rel) in item.target_paths(rel) {
        if langs.is_some_and(|l| !l.contains(&lang)) {
            continue;
        }
        let abs = normalize(&project.root.join(&target_rel));
        if abs.is_file() {
            targets.push(TargetJob {
                display: app.display_path(&abs),
                file_rules: allowed::recipe_rules(Some(project), Some(&target_rel)),
                lang,
                abs,
            });
        }
    }
    targets
}

/// What the checked jobs add up to: their findings, stale translations, blocks, the
/// governances' fingerprints and coverage, and which analyzers ran.
struct Tally {
    findings: Findings,
    stale: Vec<kapi_core::check::StaleTranslation>,
    coverage: Coverage,
    fingerprints: Vec<String>,
    blocks: usize,
    /// Each file's words and counts, and what was set apart.
    scoring: Scoring,
}

impl Tally {
    fn of(jobs: &[Arc<Job>], results: Vec<run::FileResult>) -> Self {
        let mut tally = Tally {
            findings: Findings::default(),
            stale: Vec::new(),
            coverage: Coverage::default(),
            fingerprints: Vec::new(),
            blocks: 0,
            scoring: Scoring::default(),
        };
        let mut allowed = allowed::Allowed::default();
        let mut ran: Vec<&str> = Vec::new();
        let mut unassessed: Vec<(&str, &[kapi_core::governance::Unassessed])> = Vec::new();
        for (job, result) in jobs.iter().zip(results) {
            let governance = &job.governance;
            tally.blocks += result.blocks;
            tally
                .scoring
                .files
                .extend(file_tallies(job, &result.findings, &result.words));
            allowed.append(result.allowed);
            tally.findings.append(result.findings);
            tally.stale.extend(result.stale);
            if job.source_checks {
                unassessed.push((&job.display, &job.unassessed));
                tally.fingerprints.push(governance.fingerprint.clone());
                if let Some(v) = &job.vale {
                    tally.fingerprints.push(v.set.fingerprint.clone());
                }
                ran.push("hygiene");
                if !governance.terms.is_empty() {
                    ran.push("terms");
                }
                if governance.voice.is_some() {
                    ran.push("voice");
                }
            }
            let bilingual = job.format.info().capabilities.bilingual;
            if bilingual || !job.targets.is_empty() {
                ran.push("placeholders");
                ran.push("plurals");
                ran.push("translation");
                let mut terms = !governance.terms.is_empty();
                for (lang, g) in &job.target_governance {
                    if bilingual || job.targets.iter().any(|t| &t.lang == lang) {
                        tally.fingerprints.push(g.fingerprint.clone());
                        terms |= !g.terms.is_empty();
                    }
                }
                if terms {
                    ran.push("translation-terms");
                }
            }
        }
        tally.coverage.add_files(unassessed);
        tally.scoring.suppressed = allowed.held;
        tally.scoring.suppressed_count = allowed.count;
        tally.coverage.ran = check::ANALYZERS
            .iter()
            .filter(|a| ran.contains(a))
            .map(|a| (*a).to_owned())
            .collect();
        tally
    }
}

/// The files one job's check names, for their scores: each with the words checked in it and
/// its findings counted by severity (the findings the check let go past its cap count against
/// the job's own file), the source held to its voice's `min_score`.
fn file_tallies(job: &Job, findings: &Findings, words: &[(String, usize)]) -> Vec<FileTally> {
    let mut files: Vec<FileTally> = words
        .iter()
        .map(|(path, words)| FileTally {
            path: path.clone(),
            words: *words,
            ..FileTally::default()
        })
        .collect();
    let (held, dropped) = findings.parts();
    for finding in held {
        let at = match files.iter().position(|f| f.path == finding.path) {
            Some(at) => at,
            None => {
                files.push(FileTally {
                    path: finding.path.clone(),
                    ..FileTally::default()
                });
                files.len() - 1
            }
        };
        files[at].count(finding.severity);
    }
    if let Some(first) = files.first_mut() {
        for (slot, n) in dropped.iter().enumerate() {
            first.counts[slot] += n;
        }
    }
    let voice = job.governance.voice.as_ref();
    if let (Some(min), Some(source)) = (
        voice.and_then(|v| v.min_score),
        job.governance.voice_source.as_ref(),
    ) && let Some(own) = files.iter_mut().find(|f| f.path == job.display)
    {
        own.min_score = Some((min, source.clone()));
    }
    files
}

/// What the report says was checked: a diff, the project, or the files named (`named`, as
/// the findings name files: from the working folder, whichever surface asked).
fn target(request: &CheckRequest, named: Vec<String>, jobs: &[Arc<Job>], blocks: usize) -> Target {
    Target {
        kind: if request.diff_against.is_some() {
            "diff".into()
        } else if request.paths.is_empty() && request.resolved.is_empty() {
            "project".into()
        } else {
            "files".into()
        },
        paths: named,
        files: jobs
            .iter()
            .map(|j| {
                let bilingual = j.format.info().capabilities.bilingual;
                usize::from(j.source_checks || bilingual) + j.targets.len()
            })
            .sum(),
        blocks,
        diff_against: request.diff_against.clone(),
    }
}

/// Gathers the chosen files into one check per source file: a source reached as itself is
/// checked whole with every translation; one reached only through translations of it checks
/// just those. A translation with no source to check it against is a note.
fn specs(
    app: &App,
    project: Option<&Project>,
    files: Vec<Chosen>,
    notes: &mut Vec<String>,
) -> BTreeMap<PathKey, Spec> {
    let mut specs: BTreeMap<PathKey, Spec> = BTreeMap::new();
    for file in files {
        match file.role {
            plan::Role::Source => {
                let spec = specs.entry(PathKey(file.abs)).or_insert(Spec {
                    rel: file.rel,
                    display: file.display,
                    format: file.format,
                    source_checks: true,
                    langs: None,
                });
                spec.source_checks = true;
                spec.langs = None;
            }
            plan::Role::Translation { source, lang } => {
                let Some(project) = project else { continue };
                let abs = normalize(&project.root.join(&source));
                let spec = specs.entry(PathKey(abs.clone())).or_insert_with(|| Spec {
                    rel: Some(source),
                    display: app.display_path(&abs),
                    format: file.format,
                    source_checks: false,
                    langs: Some(BTreeSet::new()),
                });
                if let Some(langs) = &mut spec.langs {
                    langs.insert(lang);
                }
            }
            plan::Role::Orphan => notes.push(format!(
                "{} is a translation a collection's `target` template names, but no declared source file produces it: there is nothing to check it against (is its source missing or excluded?)",
                file.display
            )),
        }
    }
    specs
}

/// A gettext catalog's source (its `msgid`s) checked once, not once per language: of the
/// PO files of one catalog, only its template (`.pot`) runs the source analyzers, else the
/// first language file in path order; the others check their translations alone. A
/// catalog is the files of one gettext domain (`django.pot`, `fr/LC_MESSAGES/django.po`),
/// or, for files named by their language (`po/fr.po`), the folder with its template.
fn sources_once(specs: &mut BTreeMap<PathKey, Spec>) {
    let mut owner: HashMap<String, (bool, PathBuf)> = HashMap::new();
    let mut members: Vec<(PathBuf, Vec<String>)> = Vec::new();
    for (PathKey(abs), spec) in specs.iter() {
        if spec.format.info().id != "po" || !spec.source_checks {
            continue;
        }
        let keys = catalog_keys(abs);
        let template = abs
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pot"));
        for key in &keys {
            let better = match owner.get(key) {
                None => true,
                // A template owns its catalog over any language file.
                Some((was_template, _)) => template && !was_template,
            };
            if better {
                owner.insert(key.clone(), (template, abs.clone()));
            }
        }
        members.push((abs.clone(), keys));
    }
    for (abs, keys) in members {
        let owned_elsewhere = keys
            .iter()
            .any(|k| owner.get(k).is_some_and(|(_, o)| *o != abs));
        if owned_elsewhere && let Some(spec) = specs.get_mut(&PathKey(abs)) {
            spec.source_checks = false;
        }
    }
}

/// The catalogs a PO or POT file belongs to: its domain (`stem:django`), and for a file
/// named by a language (`fr.po`, `pt_BR.po`) or a template, its folder (`dir:po`).
fn catalog_keys(abs: &Path) -> Vec<String> {
    let stem = abs.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let dir = abs
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let template = abs
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pot"));
    let mut keys = Vec::new();
    if template || !looks_like_locale(stem) {
        keys.push(format!("stem:{stem}"));
    }
    if template || looks_like_locale(stem) {
        keys.push(format!("dir:{dir}"));
    }
    keys
}

/// `fr`, `pt_BR`, `zh-Hans`, `sr@latin`: a language code, as PO files named by language are.
fn looks_like_locale(stem: &str) -> bool {
    let (code, _) = stem.split_once('@').unwrap_or((stem, ""));
    let mut parts = code.split(['_', '-']);
    let first = parts.next().unwrap_or_default();
    (2..=3).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_lowercase())
        && parts.all(|p| (2..=4).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// One source file a check of some paths covers ([`covered`]).
pub(crate) struct Covered {
    pub abs: PathBuf,
    /// Project-relative, under a project.
    pub rel: Option<String>,
    pub display: String,
    pub format: &'static dyn Format,
    /// The translations reached: `None` every one (the file was reached as itself), else only
    /// the languages of the translation files named or walked.
    pub langs: Option<BTreeSet<String>>,
}

/// The source files a check of `paths` (resolved already) reads, each once, in path order:
/// the named files and folders walked as a check walks them, a translation reached as its
/// source limited to its language; with no path, every file the collections declare. What
/// `kapi stats` counts. The notes name the translations no source produces.
pub(crate) fn covered(
    app: &App,
    project: Option<&Project>,
    paths: &[ResolvedPath],
) -> Result<(Vec<Covered>, Vec<String>), HostError> {
    let collections = project.map(Project::collections).transpose()?;
    let mut planner = match (project, &collections) {
        (Some(p), Some(c)) => Some(plan::Planner::new(p, c)),
        _ => None,
    };
    let (files, _) = walk::collect_files(
        app,
        project,
        collections.as_deref(),
        planner.as_mut(),
        &[],
        paths,
    )?;
    let mut notes = Vec::new();
    let covered = specs(app, project, files, &mut notes)
        .into_iter()
        .map(|(PathKey(abs), spec)| Covered {
            abs,
            rel: spec.rel,
            display: spec.display,
            format: spec.format,
            langs: spec.langs,
        })
        .collect();
    Ok((covered, notes))
}

/// The gate: flags first, then the recipe's `gates` (or `gates.ship` under `ship`), then
/// the default (fail on major or worse). `kapi check` and every text check take it.
pub(crate) fn gate_for(
    project: Option<&Project>,
    fail_on: Option<FailOn>,
    min_score: Option<u32>,
    ship: bool,
) -> Gate {
    let mut gate = Gate::default();
    if let Some(project) = project {
        let gates = project.recipe.gates();
        let spec = if ship { gates.ship } else { gates.default };
        if let Some(fail_on) = spec.fail_on {
            gate.fail_on = fail_on;
        }
        gate.min_score = spec.min_score;
    }
    if let Some(fail_on) = fail_on {
        gate.fail_on = fail_on;
    }
    if min_score.is_some() {
        gate.min_score = min_score;
    }
    gate
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn path_keys_sort_as_paths_do() {
        let mut paths = [
            "/p/a-b/x.md",
            "/p/a/x.md",
            "/p/a/b/c.md",
            "/p/a/bc.md",
            "/p/a.md",
            "/p/a/b.md",
            "/p/A/x.md",
            "/p/\u{e9}/x.md",
            "/p/a b/x.md",
            "/p/a/b/",
        ]
        .map(PathBuf::from)
        .to_vec();
        let mut keys: Vec<PathKey> = paths.iter().cloned().map(PathKey).collect();
        paths.sort();
        keys.sort();
        let keys: Vec<&Path> = keys.iter().map(|k| k.0.as_path()).collect();
        assert_eq!(keys, paths.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    }

    use super::*;

    #[test]
    fn each_distinct_governance_is_loaded_once() {
        let mut governances = Governances::default();
        let point = Point {
            source_language: "en".into(),
            ..Point::default()
        };
        let en = governances.load(None, &point, "en").expect("en");
        let fr = governances.load(None, &point, "fr").expect("fr");
        assert!(!Arc::ptr_eq(&en, &fr));
        let again = governances.load(None, &point, "en").expect("en again");
        assert!(Arc::ptr_eq(&again, &en));
        let other = Point {
            source_language: "de".into(),
            ..Point::default()
        };
        let another = governances.load(None, &other, "en").expect("another point");
        assert!(!Arc::ptr_eq(&another, &en));
        assert_eq!(governances.by_key.len(), 3);
    }
}
