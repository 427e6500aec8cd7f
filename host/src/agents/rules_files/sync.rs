//! The sync: every candidate rules file read and validated first (a broken section anywhere
//! refuses it all), then each section written or removed, and the files kapi created tracked.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use kapi_core::governance::notes::normal_path;
use kapi_core::project::layout::WORK_DIR;

use kapi_core::project::own_files::{self, holds_only_section};

use super::place::Content;
use super::section::{imports_agents, marker, set_section};
use super::{AGENTS, CLAUDE, CREATED_FILES, Moved, RulesPlan, SyncReport, rules_file};
use crate::app::normalize;
use crate::error::HostError;

/// What to do to one file once every file has been read and validated.
enum Action {
    Write {
        path: PathBuf,
        text: String,
        created: Option<String>,
    },
    Delete {
        path: PathBuf,
        rel: String,
    },
}

/// Writes (or removes) kapi's section in AGENTS.md and CLAUDE.md at the root and in every folder
/// of the plan; removes sections from folders no longer in it.
///
/// Every file is read and validated before any is written: a broken section anywhere refuses
/// the whole sync. A folder (or the root) with an empty body gets no section. A plan folder
/// that does not exist, and a file that is a link out of the project, are skipped.
///
/// A folder `content` covers gets no section, whatever the plan says: a section there is
/// removed, with the file when only kapi's section was in it (kapi's own, whoever created
/// it), and a file there in a folder whose rules the plan moved is named in `skipped`. The
/// report's `moved` names the files that hold each moved folder's rules.
pub fn sync(root: &Path, plan: &RulesPlan, content: &Content) -> Result<SyncReport, HostError> {
    let root_real = std::fs::canonicalize(root).map_err(|e| HostError::io(root, e))?;
    let tracked = read_tracked(root);
    let wanted = wanted_sections(plan);
    let moved: HashMap<&str, &Moved> = plan.moved.iter().map(|m| (m.folder.as_str(), m)).collect();

    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for folder in wanted
        .keys()
        .map(String::as_str)
        .chain(moved.keys().copied())
    {
        candidates.insert(join(folder, AGENTS));
        candidates.insert(join(folder, CLAUDE));
    }
    candidates.extend(tracked.iter().cloned());
    candidates.extend(marked_files(root));

    let mut syncing = Syncing {
        root,
        root_real,
        tracked: &tracked,
        report: SyncReport::default(),
        actions: Vec::new(),
        owners: HashMap::new(),
        planned: HashMap::new(),
    };
    for rel in &candidates {
        let folder = rel.rsplit_once('/').map_or("", |(f, _)| f);
        let body = wanted.get(folder).copied();
        match content.covering(folder) {
            None => syncing.candidate(rel, body, false)?,
            Some(glob) => {
                let why = moved.get(folder).map(|m| {
                    format!(
                        "inside the content collection `{glob}`, where kapi's text would be published; the folder's rules are in {}",
                        join(&m.host, AGENTS)
                    )
                });
                syncing.covered(rel, body, why)?;
            }
        }
    }
    let Syncing {
        mut report,
        actions,
        ..
    } = syncing;
    apply_actions(root, &tracked, actions)?;
    report.moved = plan.moved.iter().map(|m| held_in(m, &report)).collect();
    Ok(report)
}

/// `m` with the files that hold its rules after the sync: its host's pair, as written or
/// found up to date.
fn held_in(m: &Moved, report: &SyncReport) -> Moved {
    let mut m = m.clone();
    m.into = [AGENTS, CLAUDE]
        .into_iter()
        .map(|name| join(&m.host, name))
        .filter(|f| report.written.contains(f) || report.unchanged.contains(f))
        .collect();
    m
}

/// The body each folder's section should hold (`""` for the root): the plan's non-empty ones,
/// for folders inside the project.
fn wanted_sections(plan: &RulesPlan) -> BTreeMap<String, &[String]> {
    let mut wanted: BTreeMap<String, &[String]> = BTreeMap::new();
    if !plan.root.is_empty() {
        wanted.insert(String::new(), &plan.root);
    }
    for (folder, body) in &plan.folders {
        let folder = normal_path(folder);
        if folder.is_empty() || body.is_empty() || folder.split('/').any(|c| c == "..") {
            continue;
        }
        wanted.insert(folder, body);
    }
    wanted
}

/// A sync while its files are read and validated: what it will do, and what it reports.
struct Syncing<'a> {
    root: &'a Path,
    root_real: PathBuf,
    tracked: &'a BTreeSet<String>,
    report: SyncReport,
    actions: Vec<Action>,
    /// Which candidate holds each real file, so a link or a hard link is written once.
    owners: HashMap<String, String>,
    /// The files this sync creates, by path (as named and as resolved).
    planned: HashMap<PathBuf, String>,
}

impl Syncing<'_> {
    /// Notes a file left without a section, when it should have had one.
    fn skip(&mut self, rel: &str, body: Option<&[String]>, why: String) {
        if body.is_some() {
            self.report.skipped.push((rel.to_owned(), why));
        }
    }

    /// Plans a candidate file in a folder a content collection covers: no section, whatever
    /// `body` says; the file goes with its section when only kapi's section was in it. `why`
    /// (the folder had rules of its own) names a file that stays in `skipped`.
    fn covered(
        &mut self,
        rel: &str,
        body: Option<&[String]>,
        why: Option<String>,
    ) -> Result<(), HostError> {
        let why = why.or_else(|| {
            body.map(|_| "inside a content collection, where kapi's text would be published".into())
        });
        self.candidate(rel, None, true)?;
        let stays = std::fs::symlink_metadata(self.root.join(rel)).is_ok()
            && !self.report.deleted.iter().any(|d| d == rel);
        if let Some(why) = why.filter(|_| stays) {
            self.report.skipped.push((rel.to_owned(), why));
        }
        Ok(())
    }

    /// Plans one candidate file: its section set to `body` (None: removed). With `own_goes`, a
    /// file that held only kapi's section goes with it though kapi has no record of creating
    /// it.
    fn candidate(
        &mut self,
        rel: &str,
        body: Option<&[String]>,
        own_goes: bool,
    ) -> Result<(), HostError> {
        let (folder, name) = match rel.rsplit_once('/') {
            Some((f, n)) => (f, n),
            None => ("", rel),
        };
        let abs = self.root.join(rel);
        let meta = match std::fs::symlink_metadata(&abs) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(body) = body {
                    self.create(rel, folder, name, &abs, body)?;
                }
                return Ok(());
            }
            Err(e) => return Err(HostError::io(&abs, e)),
        };
        let Some(real) = self.real_file(rel, &abs, body) else {
            return Ok(());
        };
        let text = match std::fs::read_to_string(&real) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                self.skip(rel, body, "not UTF-8 text".into());
                return Ok(());
            }
            Err(e) => return Err(HostError::io(&abs, e)),
        };
        if name == CLAUDE && imports_agents(&text) {
            return self.imports_agents(rel, real, &abs, &text, body);
        }
        let new = set_section(&text, body).map_err(|e| e.in_file(rel))?;
        if new == text {
            if body.is_some() {
                self.report.unchanged.push(rel.to_owned());
            }
            return Ok(());
        }
        // A section removed from a file kapi created, leaving nothing: the file goes too.
        let created = self.tracked.contains(rel) || (own_goes && holds_only_section(&text));
        let delete = body.is_none() && created && new.trim().is_empty() && meta.is_file();
        if body.is_some() {
            self.report.written.push(rel.to_owned());
        } else {
            self.report.removed.push(rel.to_owned());
            if delete {
                self.report.deleted.push(rel.to_owned());
            }
        }
        self.actions.push(if delete {
            Action::Delete {
                path: abs,
                rel: rel.to_owned(),
            }
        } else {
            Action::Write {
                path: real,
                text: new,
                created: None,
            }
        });
        Ok(())
    }

    /// A file that is not there yet: created with the section, when its folder is a folder
    /// inside the project and no other candidate creates the same file.
    fn create(
        &mut self,
        rel: &str,
        folder: &str,
        name: &str,
        abs: &Path,
        body: &[String],
    ) -> Result<(), HostError> {
        let dir = self.root.join(folder);
        match std::fs::canonicalize(&dir) {
            Ok(real) if !real.starts_with(&self.root_real) => {
                self.skip(
                    rel,
                    Some(body),
                    "the folder leads outside the project".into(),
                );
            }
            Ok(real) if real.is_dir() => {
                let path = real.join(name);
                if let Some(other) = self.planned.get(&path) {
                    let why = format!("the same file as {other}");
                    self.skip(rel, Some(body), why);
                    return Ok(());
                }
                self.planned.insert(normalize(abs), rel.to_owned());
                self.planned.insert(path.clone(), rel.to_owned());
                // A CLAUDE.md beside an AGENTS.md that holds the section imports it: one copy
                // of the rules, which Claude Code reads through the import.
                let agents = join(folder, AGENTS);
                let text = if name == CLAUDE
                    && (self.report.written.contains(&agents)
                        || self.report.unchanged.contains(&agents))
                {
                    format!("{}\n", own_files::CLAUDE_IMPORT)
                } else {
                    set_section("", Some(body)).map_err(|e| e.in_file(rel))?
                };
                self.actions.push(Action::Write {
                    path,
                    text,
                    created: Some(rel.to_owned()),
                });
                self.report.written.push(rel.to_owned());
            }
            _ => self.skip(rel, Some(body), "the folder does not exist".into()),
        }
        Ok(())
    }

    /// The real file behind a candidate that exists, when it is a file inside the project that
    /// no other candidate holds; otherwise the candidate is skipped.
    fn real_file(&mut self, rel: &str, abs: &Path, body: Option<&[String]>) -> Option<PathBuf> {
        let real = match std::fs::canonicalize(abs) {
            Ok(real) => real,
            Err(_) => {
                // A link to a file not there yet: the same file as one this sync creates?
                let target = std::fs::read_link(abs)
                    .ok()
                    .map(|t| normalize(&abs.parent().unwrap_or(self.root).join(t)));
                let why = match target.and_then(|t| self.planned.get(&t)) {
                    Some(other) => format!("the same file as {other}"),
                    None => "a link that leads nowhere".into(),
                };
                self.skip(rel, body, why);
                return None;
            }
        };
        if !real.starts_with(&self.root_real) {
            self.skip(rel, body, "a link that leads outside the project".into());
            return None;
        }
        if !real.is_file() {
            self.skip(rel, body, "not a file".into());
            return None;
        }
        let id = file_id(&real);
        if let Some(other) = self.owners.get(&id) {
            let why = format!("the same file as {other}");
            self.skip(rel, body, why);
            return None;
        }
        self.owners.insert(id, rel.to_owned());
        Some(real)
    }

    /// A `CLAUDE.md` that imports `@AGENTS.md` gets no section: one it holds is removed. The
    /// import kapi created alone (`own_files::CLAUDE_IMPORT`) goes when the folder's rules go.
    fn imports_agents(
        &mut self,
        rel: &str,
        real: PathBuf,
        abs: &Path,
        text: &str,
        body: Option<&[String]>,
    ) -> Result<(), HostError> {
        if body.is_none() && self.tracked.contains(rel) {
            // kapi wrote the import: it goes, and the file with it when nothing else is left.
            let kept: String = text
                .split_inclusive('\n')
                .filter(|l| !own_files::only_the_import(l))
                .collect();
            let kept = kept.trim_end().to_owned();
            self.report.removed.push(rel.to_owned());
            if kept.is_empty() {
                self.report.deleted.push(rel.to_owned());
                self.actions.push(Action::Delete {
                    path: abs.to_path_buf(),
                    rel: rel.to_owned(),
                });
            } else {
                self.actions.push(Action::Write {
                    path: real,
                    text: format!("{kept}\n"),
                    created: None,
                });
            }
            return Ok(());
        }
        let new = set_section(text, None).map_err(|e| e.in_file(rel))?;
        let had = new != text;
        if body.is_some() && !had && own_files::only_the_import(text) {
            // The import alone carries the folder's rules: up to date, not passed over.
            self.report.unchanged.push(rel.to_owned());
        } else if body.is_some() || had {
            self.report
                .skipped
                .push((rel.to_owned(), "imports @AGENTS.md".into()));
        }
        if had {
            self.report.removed.push(rel.to_owned());
            self.actions.push(Action::Write {
                path: real,
                text: new,
                created: None,
            });
        }
        Ok(())
    }
}

/// Carries out the planned writes and deletions, then records the files kapi created.
fn apply_actions(
    root: &Path,
    tracked: &BTreeSet<String>,
    actions: Vec<Action>,
) -> Result<(), HostError> {
    let mut now_tracked = tracked.clone();
    for action in actions {
        match action {
            Action::Write {
                path,
                text,
                created,
            } => {
                write_file(&path, &text)?;
                now_tracked.extend(created);
            }
            Action::Delete { path, rel } => {
                std::fs::remove_file(&path).map_err(|e| HostError::io(&path, e))?;
                now_tracked.remove(&rel);
            }
        }
    }
    now_tracked.retain(|rel| std::fs::symlink_metadata(root.join(rel)).is_ok());
    write_tracked(root, &now_tracked)
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}

/// The files kapi created, from [`CREATED_FILES`]; missing or unreadable is none.
fn read_tracked(root: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(root.join(CREATED_FILES))
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<String>>(&t).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|rel| rules_file(rel))
        .collect()
}

/// Writes [`CREATED_FILES`] when its list changed (none and no file: nothing to write).
fn write_tracked(root: &Path, tracked: &BTreeSet<String>) -> Result<(), HostError> {
    let path = root.join(CREATED_FILES);
    let list: Vec<&String> = tracked.iter().collect();
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&list).map_err(|e| HostError::Internal {
            message: e.to_string()
        })?
    );
    match std::fs::read_to_string(&path) {
        Ok(old) if old == text => return Ok(()),
        Err(_) if tracked.is_empty() => return Ok(()),
        _ => {}
    }
    let dir = root.join(WORK_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| HostError::io(&dir, e))?;
    write_file(&path, &text)
}

/// Every `AGENTS.md` and `CLAUDE.md` under `root` (ignore files honoured, hidden folders
/// skipped) that holds a kapi marker line.
fn marked_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .git_global(false)
        .build();
    for entry in walk.flatten() {
        let name = entry.file_name().to_string_lossy();
        if (name != AGENTS && name != CLAUDE) || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = crate::app::relative_to(entry.path(), root) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        if rules_file(&rel) && text.lines().any(|l| marker(l).is_some()) {
            out.push(rel);
        }
    }
    out
}

/// What identifies a file whatever the path to it (device and inode on Unix).
fn file_id(real: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata(real) {
            return format!("{}:{}", meta.dev(), meta.ino());
        }
    }
    real.display().to_string()
}

/// Writes `text` to `path` atomically, keeping an existing file's permissions (and a
/// hard-linked file's identity): kapi's one write.
fn write_file(path: &Path, text: &str) -> Result<(), HostError> {
    kapi_core::change::stage::write_one(path, text.as_bytes()).map_err(|e| HostError::io(path, e))
}
