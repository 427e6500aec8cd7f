//! The rules files: kapi's one section in the `AGENTS.md` and `CLAUDE.md` an agent reads
//! before any tool call. The root's states what holds everywhere (the voice in a few lines, the
//! words to use and to avoid, the root's kept notes, one line per folder with rules of its
//! own); a pair in each such folder states only what holds there (its kept notes, and the
//! wording that stays as it is next to a rename held for a sibling folder).
//!
//! The section sits between `<!-- kapi:rules -->` and `<!-- /kapi:rules -->`, each on its own
//! line. The person's text around it is never touched; a file with a broken section is refused
//! before anything is written. A file kapi created (tracked in `.kapi/work/rules-files.json`)
//! is removed when its section goes and nothing else is in it. A `CLAUDE.md` that imports
//! `@AGENTS.md`, or is the same file, gets no section, so Claude Code reads the rules once; a
//! `CLAUDE.md` kapi creates beside an `AGENTS.md` that holds the section is that import alone
//! (`@AGENTS.md`), and goes when the folder's rules go.
//!
//! A folder inside a content collection gets no rules file (`place`): docs sites build a page
//! from every Markdown file under their content folder, so a file there would be published.
//! When a collection's glob covers a folder's `AGENTS.md` or `CLAUDE.md` (and
//! `defaults.exclude` does not leave it out), the folder's rules go into the section of the
//! nearest folder above it that has a rules file of its own outside every collection —
//! normally the root — as a group headed "Under `docs/learn/`:". Agents read the root's file in
//! every session (Claude Code loads a nested `CLAUDE.md` only when it reads a file below it;
//! Codex reads each `AGENTS.md` from the root down), so the rules still reach them, named by
//! the folder they hold in. kapi never creates a folder file only to carry another's rules (a
//! folder above a collection, such as Hugo's `content/`, is often the site's content root).
//! A rules file already inside a collection gets no section either, even the person's own
//! (kapi's text would be published with it): a section an earlier kapi wrote there is removed
//! on the next sync, and the file too when only kapi's section was in it, whoever created it.
//! `kapi init` and `kapi context sync` say where each such folder's rules went
//! ([`SyncReport::moved`]). A project whose site does not publish these files keeps folder
//! files by excluding them (`defaults.exclude: ["**/AGENTS.md", "**/CLAUDE.md"]`).

mod place;
mod plan;
mod section;
mod sync;

pub use place::Content;
pub use plan::plan;
pub use section::set_section;
pub use sync::sync;

use std::collections::BTreeMap;

use kapi_core::governance::notes::{NotesFile, normal_path};
use kapi_core::project::Project;

use crate::App;
use crate::error::HostError;

/// The line that opens kapi's section.
pub const START_MARKER: &str = kapi_core::project::own_files::START_MARKER;
/// The line that closes kapi's section.
pub const END_MARKER: &str = kapi_core::project::own_files::END_MARKER;
/// The last line of every section: the gate.
pub const CHECK_LINE: &str =
    "Before you report work done, run `kapi check <files you changed>`; it is the gate.";
/// Most body lines in the root's section (markers excluded).
pub const ROOT_BUDGET: usize = 60;
/// Most body lines in a folder's section (markers excluded).
pub const FOLDER_BUDGET: usize = 25;
/// The files kapi created, relative to the root (machine state, git-ignored).
pub const CREATED_FILES: &str = kapi_core::project::layout::RULES_FILES;

const AGENTS: &str = "AGENTS.md";
const CLAUDE: &str = "CLAUDE.md";
/// Content files larger than this are not scanned for a rename's old word.
const SCAN_LIMIT: u64 = 1024 * 1024;

/// What kapi's sections say, folder by folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RulesPlan {
    /// The root's body lines, without markers.
    pub root: Vec<String>,
    /// Each folder with a rules file of its own (project-relative, `/`-separated, no trailing
    /// slash) and its body lines, without markers.
    pub folders: BTreeMap<String, Vec<String>>,
    /// The folders with rules of their own inside a content collection, whose rules are in
    /// another folder's section (their `into` is empty until a sync fills it).
    pub moved: Vec<Moved>,
}

/// A folder whose rules file a content collection would publish, and where its rules are
/// instead.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Moved {
    /// The folder (project-relative, no trailing slash).
    pub folder: String,
    /// The folder whose section holds its rules (`""`: the root).
    pub host: String,
    /// The collection pattern that covers the folder's rules files.
    pub glob: String,
    /// The rules files that hold its rules after the sync.
    pub into: Vec<String>,
}

/// What a sync did (paths project-relative).
#[derive(Debug, Default, serde::Serialize)]
pub struct SyncReport {
    /// Files whose section was written (created or brought up to date).
    pub written: Vec<String>,
    /// Files whose section already said what the plan says.
    pub unchanged: Vec<String>,
    /// Files whose section was removed (the file itself too when kapi created it and nothing
    /// else was in it).
    pub removed: Vec<String>,
    /// Of `removed`, the files deleted with their section (kapi created them; nothing else was
    /// in them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<String>,
    /// Files left without a section, and why.
    pub skipped: Vec<(String, String)>,
    /// The folders inside a content collection whose rules went into another folder's
    /// section, and where.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<Moved>,
}

impl Moved {
    /// One line for a person: where the folder's rules are, and why.
    pub fn sentence(&self) -> String {
        let into = match self.into.as_slice() {
            [] => "no rules file".to_owned(),
            [one] => one.clone(),
            [first @ .., last] => format!("{} and {last}", first.join(", ")),
        };
        format!(
            "rules for `{}/` are in {into}: the content collection `{}` covers the folder, where a rules file would be published as a page",
            self.folder, self.glob
        )
    }
}

impl SyncReport {
    /// The files written or removed, in that order.
    pub fn changed(&self) -> Vec<String> {
        self.written.iter().chain(&self.removed).cloned().collect()
    }
}

/// Writes the rules files from the kept `notes`: the plan, placed clear of every content
/// collection, then the sync.
pub fn refresh(app: &App, project: &Project, notes: &NotesFile) -> Result<SyncReport, HostError> {
    let content = Content::of(project)?;
    let plan = plan(app, project, notes, &content)?;
    sync(&project.root, &plan, &content)
}

/// A rules file whose markers kapi cannot read; lines are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// A start marker with no end marker before the next start marker or the end of the file.
    #[error(
        "line {line}: kapi's section opens here and is not closed (no `<!-- /kapi:rules -->` before the next section or the end of the file)"
    )]
    Unterminated { line: usize },
    /// A second section after a complete one.
    #[error("lines {first} and {second}: two kapi sections; a file holds one")]
    TwoSections { first: usize, second: usize },
    /// An end marker with no section open.
    #[error("line {line}: `<!-- /kapi:rules -->` closes no section")]
    StrayEnd { line: usize },
}

impl RulesError {
    /// The line to look at first.
    pub fn line(&self) -> usize {
        match self {
            RulesError::Unterminated { line } | RulesError::StrayEnd { line } => *line,
            RulesError::TwoSections { second, .. } => *second,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> String {
        let fix = match self {
            RulesError::Unterminated { .. } => {
                "close the section with a `<!-- /kapi:rules -->` line, or delete its opening line"
            }
            RulesError::TwoSections { .. } => {
                "delete one of the sections, markers included; kapi writes the other again"
            }
            RulesError::StrayEnd { .. } => "delete the stray `<!-- /kapi:rules -->` line",
        };
        format!("{fix}; nothing was written, so run it again once the file is fixed")
    }

    /// The error as the host reports it, naming the file (project-relative).
    pub fn in_file(self, file: &str) -> HostError {
        HostError::BadFile {
            message: format!("`{file}` {self}"),
            hint: self.hint(),
        }
    }
}

impl From<RulesError> for HostError {
    fn from(e: RulesError) -> Self {
        HostError::BadFile {
            message: format!("a rules file, {e}"),
            hint: e.hint(),
        }
    }
}

/// Whether a project-relative path names a rules file kapi may touch.
pub(crate) fn rules_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    (name == AGENTS || name == CLAUDE)
        && normal_path(rel) == rel
        && !rel.split('/').any(|c| c == "..")
}

#[cfg(test)]
mod tests;
