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
//! `@AGENTS.md`, or is the same file, gets no section, so Claude Code reads the rules once.

mod plan;
mod section;
mod sync;

pub use plan::plan;
pub use section::set_section;
pub use sync::sync;

use std::collections::BTreeMap;

use kapi_core::governance::notes::normal_path;

use crate::error::HostError;

/// The line that opens kapi's section.
pub const START_MARKER: &str = "<!-- kapi:rules -->";
/// The line that closes kapi's section.
pub const END_MARKER: &str = "<!-- /kapi:rules -->";
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
    /// Each folder with rules of its own (project-relative, `/`-separated, no trailing slash)
    /// and its body lines, without markers.
    pub folders: BTreeMap<String, Vec<String>>,
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
