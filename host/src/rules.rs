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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use kapi_core::governance::load as governance_load;
use kapi_core::governance::notes::{KeptNote, NotesFile, applies, normal_path};
use kapi_core::governance::{Governance, TermStatus};
use kapi_core::project::layout::WORK_DIR;
use kapi_core::project::{Collections, Project, Resolver};

use crate::App;
use crate::app::normalize;
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

// ---------------------------------------------------------------------------------------------
// One file's text.

/// One file's new text with kapi's section set to `body` (None: section removed); Err names the
/// line of a bad marker.
///
/// Everything outside the section is kept byte for byte. A new section goes at the end of an
/// existing text after one blank line (an empty text becomes just the section); removing a
/// section that ends the text also removes the one blank line before it, so adding then
/// removing gives back the original text. The text's line ending (CRLF or LF) is kept.
pub fn set_section(text: &str, body: Option<&[String]>) -> Result<String, RulesError> {
    let eol = line_ending(text);
    let span = find_section(text)?;
    let out = match (span, body) {
        (Some((start, end)), Some(body)) => {
            let closed = text[..end].ends_with('\n');
            format!(
                "{}{}{}",
                &text[..start],
                render(body, eol, closed),
                &text[end..]
            )
        }
        (Some((start, end)), None) => {
            let mut before = &text[..start];
            let after = &text[end..];
            if after.is_empty() {
                if before.ends_with("\r\n\r\n") {
                    before = &before[..before.len() - 2];
                } else if before.ends_with("\n\n") {
                    before = &before[..before.len() - 1];
                }
            }
            format!("{before}{after}")
        }
        (None, Some(body)) if text.is_empty() => render(body, eol, true),
        (None, Some(body)) => {
            let gap = if text.ends_with('\n') {
                eol.to_owned()
            } else {
                format!("{eol}{eol}")
            };
            format!("{text}{gap}{}", render(body, eol, true))
        }
        (None, None) => text.to_owned(),
    };
    Ok(out)
}

/// The text's line ending: that of its first line, LF when it has none.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Whether a line (with or without its ending) is a marker.
fn marker(line: &str) -> Option<bool> {
    match line.trim() {
        START_MARKER => Some(true),
        END_MARKER => Some(false),
        _ => None,
    }
}

/// The byte span of the one section (start of its start marker line, end of its end marker
/// line including the line ending), or the marker error.
fn find_section(text: &str) -> Result<Option<(usize, usize)>, RulesError> {
    let mut open: Option<(usize, usize)> = None;
    let mut found: Option<(usize, usize, usize)> = None;
    let mut pos = 0;
    let mut number = 0;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        number += 1;
        match marker(&text[pos..end]) {
            Some(true) => {
                if let Some((line, _)) = open {
                    return Err(RulesError::Unterminated { line });
                }
                if let Some((first, _, _)) = found {
                    return Err(RulesError::TwoSections {
                        first,
                        second: number,
                    });
                }
                open = Some((number, pos));
            }
            Some(false) => match open.take() {
                Some((line, start)) => found = Some((line, start, end)),
                None => return Err(RulesError::StrayEnd { line: number }),
            },
            None => {}
        }
        pos = end;
    }
    if let Some((line, _)) = open {
        return Err(RulesError::Unterminated { line });
    }
    Ok(found.map(|(_, start, end)| (start, end)))
}

/// The section's text: markers around the body, every line ended by `eol` (the end marker's
/// only when `closed`).
fn render(body: &[String], eol: &str, closed: bool) -> String {
    let mut out = String::from(START_MARKER);
    out.push_str(eol);
    for line in body {
        out.push_str(&body_line(line));
        out.push_str(eol);
    }
    out.push_str(END_MARKER);
    if closed {
        out.push_str(eol);
    }
    out
}

/// A body line made safe: one line, and never a marker.
fn body_line(line: &str) -> String {
    let flat = line.replace("\r\n", " ").replace(['\r', '\n'], " ");
    let flat = flat.trim_end();
    if marker(flat).is_some() {
        format!("`{}`", flat.trim())
    } else {
        flat.to_owned()
    }
}

/// Whether a `CLAUDE.md` text imports `AGENTS.md` (a line `@AGENTS.md` or `@./AGENTS.md`).
fn imports_agents(text: &str) -> bool {
    text.lines()
        .any(|l| matches!(l.trim(), "@AGENTS.md" | "@./AGENTS.md"))
}

// ---------------------------------------------------------------------------------------------
// The plan.

/// Composes the plan from the project's governance at the root point and the kept notes.
///
/// A section over its budget ([`ROOT_BUDGET`], [`FOLDER_BUDGET`]) loses lines from the end of
/// its lowest-ranked groups first, and says what it left out. At the root: words to use go
/// first, then the folder lines, the words to avoid, the notes, and the voice last. In a folder:
/// the lines on wording that stays, then the notes on files, then the folder's own notes.
pub fn plan(app: &App, project: &Project, notes: &NotesFile) -> Result<RulesPlan, HostError> {
    let resolver = Resolver::new(project, app.now);
    let point = resolver.resolve_path("");
    let governance = governance_load::load(&project.root, &point, &point.source_language)?;
    let placed = place(&project.root, notes);

    let mut folders: BTreeMap<String, FolderLines> = BTreeMap::new();
    let mut root_notes = Vec::new();
    for p in &placed {
        let line = match &p.file {
            Some(file) => format!("- In `{file}`: {}", one_line(&p.note.rule_line())),
            None => format!("- {}", one_line(&p.note.rule_line())),
        };
        if p.folder.is_empty() {
            root_notes.push((p.file.is_some(), p.file.clone(), line));
            continue;
        }
        let entry = folders.entry(p.folder.clone()).or_default();
        match &p.file {
            Some(file) => entry.file_notes.push((file.clone(), line)),
            None => entry.notes.push(line),
        }
    }
    for (folder, line) in stays_lines(project, notes, &placed)? {
        let entry = folders.entry(folder).or_default();
        if !entry.stays.contains(&line) {
            entry.stays.push(line);
        }
    }

    let mut plan = RulesPlan::default();
    for (folder, lines) in &folders {
        let mut file_notes = lines.file_notes.clone();
        file_notes.sort_by(|a, b| a.0.cmp(&b.0));
        let groups = vec![
            Group::new(None, dedup(lines.notes.clone()), 3, ("note", "notes")),
            Group::new(
                None,
                file_notes.into_iter().map(|(_, l)| l).collect(),
                2,
                ("note on a file", "notes on files"),
            ),
            Group::new(
                None,
                lines.stays.clone(),
                1,
                ("line on wording that stays", "lines on wording that stays"),
            ),
        ];
        let heading = format!("## Rules for `{folder}/` (kapi)");
        let rest = format!("`kapi context {folder}/` gives the rest");
        let body = fit(heading, groups, FOLDER_BUDGET, &rest);
        plan.folders.insert(folder.clone(), body);
    }

    root_notes.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let pointers: Vec<String> = plan
        .folders
        .keys()
        .map(|f| format!("- `{f}/`: see {f}/{AGENTS}"))
        .collect();
    let groups = vec![
        Group::new(
            None,
            voice_lines(&governance),
            5,
            ("voice line", "voice lines"),
        ),
        Group::new(
            Some("Words to use:"),
            words_to_use(&governance),
            1,
            ("word to use", "words to use"),
        ),
        Group::new(
            Some("Words to avoid:"),
            words_to_avoid(&governance),
            3,
            ("word to avoid", "words to avoid"),
        ),
        Group::new(
            Some("Notes a person kept:"),
            dedup(root_notes.into_iter().map(|(_, _, l)| l).collect()),
            4,
            ("note", "notes"),
        ),
        Group::new(
            Some("Folders with rules of their own:"),
            pointers,
            2,
            ("folder line", "folder lines"),
        ),
    ];
    plan.root = fit(
        "## Project rules (kapi)".to_owned(),
        groups,
        ROOT_BUDGET,
        "`kapi context PATH` gives the rest for the file you work on",
    );
    Ok(plan)
}

/// A folder's lines before the budget.
#[derive(Debug, Default)]
struct FolderLines {
    notes: Vec<String>,
    /// (file name, line).
    file_notes: Vec<(String, String)>,
    stays: Vec<String>,
}

/// A kept note and where its section is.
#[derive(Debug)]
struct Placed<'a> {
    note: &'a KeptNote,
    /// The folder whose section states it (`""` for the root).
    folder: String,
    /// The file it is held to, by name inside `folder`, when it is a file's.
    file: Option<String>,
    /// The note's own path, normalized.
    path: String,
}

/// Where each kept note goes: a folder's note in that folder, a file's in the file's folder.
/// Notes that say nothing or lead out of the project are left out.
fn place<'a>(root: &Path, notes: &'a NotesFile) -> Vec<Placed<'a>> {
    let mut out = Vec::new();
    for note in &notes.notes {
        let path = normal_path(&note.path);
        if path.split('/').any(|c| c == "..") || note.rule_line().trim().is_empty() {
            continue;
        }
        let abs = root.join(&path);
        let is_file = !path.is_empty()
            && (abs.is_file()
                || (!abs.is_dir() && path.rsplit('/').next().is_some_and(|n| n.contains('.'))));
        let (folder, file) = if is_file {
            match path.rsplit_once('/') {
                Some((dir, name)) => (dir.to_owned(), Some(name.to_owned())),
                None => (String::new(), Some(path.clone())),
            }
        } else {
            (path.clone(), None)
        };
        out.push(Placed {
            note,
            folder,
            file,
            path,
        });
    }
    out
}

/// One check for a rename held to a folder: its siblings that contain the old word.
struct Rename<'a> {
    /// The held folder's parent (`""` at the top).
    parent: String,
    /// The held folder's own name.
    held: String,
    from: &'a str,
    line: String,
}

/// For each kept change note held to a folder other than the root: each sibling folder whose
/// declared content files contain the old word (whole word, case-sensitive) gets the line
/// that it stays. A sibling where a note with the same old word applies gets none.
fn stays_lines(
    project: &Project,
    notes: &NotesFile,
    placed: &[Placed<'_>],
) -> Result<Vec<(String, String)>, HostError> {
    let renames: Vec<Rename<'_>> = placed
        .iter()
        .filter(|p| p.file.is_none() && !p.folder.is_empty())
        .filter_map(|p| {
            let from = p.note.from.as_deref().filter(|f| !f.trim().is_empty())?;
            let line = format!("- {}", one_line(&p.note.stays_line()?));
            let (parent, held) = match p.path.rsplit_once('/') {
                Some((parent, held)) => (parent.to_owned(), held.to_owned()),
                None => (String::new(), p.path.clone()),
            };
            Some(Rename {
                parent,
                held,
                from,
                line,
            })
        })
        .collect();
    if renames.is_empty() {
        return Ok(Vec::new());
    }
    let collections = Collections::new(&project.recipe)?;
    let files = collections
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    let mut hits: BTreeSet<(usize, String)> = BTreeSet::new();
    for file in files {
        // The rules files themselves state the old word; they are not content.
        let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
        if name == AGENTS || name == CLAUDE {
            continue;
        }
        let mut text: Option<Option<String>> = None;
        for (i, r) in renames.iter().enumerate() {
            let Some(sibling) = sibling_of(&file.rel, &r.parent, &r.held) else {
                continue;
            };
            if hits.contains(&(i, sibling.clone())) {
                continue;
            }
            let content = text.get_or_insert_with(|| read_small(&file.abs));
            if content.as_deref().is_some_and(|t| contains_word(t, r.from)) {
                hits.insert((i, sibling));
            }
        }
    }
    let mut out = Vec::new();
    for (i, sibling) in hits {
        let r = &renames[i];
        let same_rule_here = notes
            .notes
            .iter()
            .any(|n| n.from.as_deref() == Some(r.from) && applies(&n.path, &sibling));
        if !same_rule_here {
            out.push((sibling, r.line.clone()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The sibling folder of `parent/held` that holds `rel` (inside a subfolder of `parent` other
/// than `held`).
fn sibling_of(rel: &str, parent: &str, held: &str) -> Option<String> {
    let inside = if parent.is_empty() {
        rel
    } else {
        rel.strip_prefix(parent)?.strip_prefix('/')?
    };
    let (name, _) = inside.split_once('/')?;
    if name == held || name.is_empty() {
        return None;
    }
    Some(if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}/{name}")
    })
}

/// A content file's text, when it is UTF-8 and at most [`SCAN_LIMIT`] bytes.
fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > SCAN_LIMIT {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Whether `word` occurs in `text` with no letter, digit or underscore right before or after.
fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The voice in a few lines: name, tone, style, the measurable limits and the patterns
/// `kapi check` flags.
fn voice_lines(governance: &Governance) -> Vec<String> {
    let Some(voice) = &governance.voice else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut name = format!("- Voice: {}.", one_line(&voice.name));
    if let Some(d) = voice
        .description
        .as_deref()
        .map(one_line)
        .filter(|d| !d.is_empty())
    {
        name.push(' ');
        name.push_str(&d);
    }
    out.push(name);
    let t = &voice.tone;
    let mut tone = Vec::new();
    if !t.personality.is_empty() {
        tone.push(t.personality.join(", "));
    }
    if let Some(v) = t.formality {
        tone.push(format!("{} formality", v.as_str()));
    }
    if let Some(v) = t.emotion {
        tone.push(format!("{} emotion", v.as_str()));
    }
    if let Some(v) = t.humor {
        tone.push(format!("{} humor", v.as_str()));
    }
    if !tone.is_empty() {
        out.push(format!("- Tone: {}.", one_line(&tone.join("; "))));
    }
    if let Some(g) = t
        .guidelines
        .as_deref()
        .map(one_line)
        .filter(|g| !g.is_empty())
    {
        out.push(format!("- {g}"));
    }
    let s = &voice.style;
    let mut style = Vec::new();
    if s.active_voice == Some(true) {
        style.push("active voice".to_owned());
    }
    if let Some(v) = s.sentence_length {
        style.push(format!("{} sentences", v.as_str()));
    }
    if let Some(v) = s.person_pov {
        use kapi_core::governance::voice::PersonPov;
        style.push(
            match v {
                PersonPov::FirstPlural => "first person plural (we)",
                PersonPov::Second => "second person (you)",
                PersonPov::Third => "third person",
            }
            .to_owned(),
        );
    }
    if let Some(v) = s.contractions {
        style.push(format!("contractions {}", v.as_str()));
    }
    if !style.is_empty() {
        out.push(format!("- Style: {}.", style.join("; ")));
    }
    let c = &governance.constraints;
    let mut limits = Vec::new();
    if let Some(n) = c.max_sentence_words {
        limits.push(format!("sentences of at most {n} words"));
    }
    if let Some(n) = c.max_paragraph_sentences {
        limits.push(format!("paragraphs of at most {n} sentences"));
    }
    if !limits.is_empty() {
        let joined = limits.join("; ");
        let mut chars = joined.chars();
        let first: String = chars
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default();
        out.push(format!("- {first}{}.", chars.as_str()));
    }
    for p in &governance.prohibited {
        out.push(format!("- Flagged by `kapi check`: {}", pattern_text(p)));
    }
    for p in &governance.required {
        out.push(format!("- Required in every document: {}", pattern_text(p)));
    }
    out
}

fn pattern_text(p: &kapi_core::governance::PatternRule) -> String {
    match p
        .description
        .as_deref()
        .map(one_line)
        .filter(|d| !d.is_empty())
    {
        Some(d) if d.ends_with(['.', '!', '?']) => d,
        Some(d) => format!("{d}."),
        None => format!("text matching `{}`.", p.regex.as_str()),
    }
}

/// Preferred terms in the source language, sorted, once each.
fn words_to_use(governance: &Governance) -> Vec<String> {
    let mut terms: Vec<&str> = governance
        .terms
        .iter()
        .filter(|t| t.status == TermStatus::Preferred)
        .map(|t| t.text.as_str())
        .collect();
    terms.sort_by(|a, b| (a.to_lowercase(), *a).cmp(&(b.to_lowercase(), *b)));
    terms.dedup();
    terms
        .into_iter()
        .map(|t| format!("- \"{}\"", one_line(t)))
        .collect()
}

/// Discouraged terms in the source language with what to write instead, sorted, once each.
fn words_to_avoid(governance: &Governance) -> Vec<String> {
    let mut terms: Vec<(&str, Option<&str>)> = governance
        .terms
        .iter()
        .filter(|t| t.status.discouraged())
        .map(|t| {
            (
                t.text.as_str(),
                t.replacement.as_deref().filter(|r| !r.trim().is_empty()),
            )
        })
        .collect();
    terms.sort_by(|a, b| (a.0.to_lowercase(), a.0).cmp(&(b.0.to_lowercase(), b.0)));
    terms.dedup_by(|a, b| a.0 == b.0);
    terms
        .into_iter()
        .map(|(text, replacement)| match replacement {
            Some(r) => format!("- \"{}\" → \"{}\"", one_line(text), one_line(r)),
            None => format!("- \"{}\"", one_line(text)),
        })
        .collect()
}

/// Whitespace runs (line breaks included) as one space, trimmed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn dedup(lines: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    lines
        .into_iter()
        .filter(|l| seen.insert(l.clone()))
        .collect()
}

/// Lines of one kind in a section, with the rank they keep their place by.
struct Group {
    header: Option<String>,
    items: Vec<String>,
    /// Higher keeps its lines longer when the budget is short.
    keep: u8,
    /// How the left-out line names its lines (one, many).
    noun: (&'static str, &'static str),
}

impl Group {
    fn new(
        header: Option<&str>,
        items: Vec<String>,
        keep: u8,
        noun: (&'static str, &'static str),
    ) -> Self {
        Group {
            header: header.map(str::to_owned),
            items,
            keep,
            noun,
        }
    }

    fn lines(&self) -> usize {
        if self.items.is_empty() {
            0
        } else {
            self.items.len() + usize::from(self.header.is_some())
        }
    }
}

/// The body within `budget` lines: the heading, the groups in order, and the `kapi check`
/// line. When they do not fit, lines go from the end of the groups that keep least first, and
/// one line says what was left out and where the rest is.
fn fit(heading: String, mut groups: Vec<Group>, budget: usize, rest: &str) -> Vec<String> {
    let used = |groups: &[Group]| groups.iter().map(Group::lines).sum::<usize>();
    let mut left_out = None;
    if 2 + used(&groups) > budget {
        let room = budget.saturating_sub(3);
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&i| groups[i].keep);
        let mut dropped = vec![0usize; groups.len()];
        for i in order {
            while used(&groups) > room && groups[i].items.pop().is_some() {
                dropped[i] += 1;
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .zip(&dropped)
            .filter(|(_, n)| **n > 0)
            .map(|(g, n)| format!("{n} {}", if *n == 1 { g.noun.0 } else { g.noun.1 }))
            .collect();
        left_out = Some(format!(
            "- Left out to keep this short: {}; {rest}.",
            parts.join(", ")
        ));
    }
    let mut out = vec![heading];
    for g in groups.into_iter().filter(|g| !g.items.is_empty()) {
        out.extend(g.header);
        out.extend(g.items);
    }
    out.extend(left_out);
    out.push(CHECK_LINE.to_owned());
    out
}

// ---------------------------------------------------------------------------------------------
// Sync.

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
pub fn sync(root: &Path, plan: &RulesPlan) -> Result<SyncReport, HostError> {
    let root_real = std::fs::canonicalize(root).map_err(|e| HostError::io(root, e))?;
    let tracked = read_tracked(root);
    let wanted = wanted_sections(plan);

    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for folder in wanted.keys() {
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
        syncing.candidate(rel, wanted.get(folder).copied())?;
    }
    let Syncing {
        report, actions, ..
    } = syncing;
    apply_actions(root, &tracked, actions)?;
    Ok(report)
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

    /// Plans one candidate file: its section set to `body` (None: removed).
    fn candidate(&mut self, rel: &String, body: Option<&[String]>) -> Result<(), HostError> {
        let (folder, name) = match rel.rsplit_once('/') {
            Some((f, n)) => (f, n),
            None => ("", rel.as_str()),
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
            return self.imports_agents(rel, real, &text, body);
        }
        let new = set_section(&text, body).map_err(|e| e.in_file(rel))?;
        if new == text {
            if body.is_some() {
                self.report.unchanged.push(rel.clone());
            }
            return Ok(());
        }
        // A section removed from a file kapi created, leaving nothing: the file goes too.
        let delete =
            body.is_none() && self.tracked.contains(rel) && new.trim().is_empty() && meta.is_file();
        if body.is_some() {
            self.report.written.push(rel.clone());
        } else {
            self.report.removed.push(rel.clone());
            if delete {
                self.report.deleted.push(rel.clone());
            }
        }
        self.actions.push(if delete {
            Action::Delete {
                path: abs,
                rel: rel.clone(),
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
        rel: &String,
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
                self.planned.insert(normalize(abs), rel.clone());
                self.planned.insert(path.clone(), rel.clone());
                self.actions.push(Action::Write {
                    path,
                    text: set_section("", Some(body)).map_err(|e| e.in_file(rel))?,
                    created: Some(rel.clone()),
                });
                self.report.written.push(rel.clone());
            }
            _ => self.skip(rel, Some(body), "the folder does not exist".into()),
        }
        Ok(())
    }

    /// The real file behind a candidate that exists, when it is a file inside the project that
    /// no other candidate holds; otherwise the candidate is skipped.
    fn real_file(&mut self, rel: &String, abs: &Path, body: Option<&[String]>) -> Option<PathBuf> {
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
        self.owners.insert(id, rel.clone());
        Some(real)
    }

    /// A `CLAUDE.md` that imports `@AGENTS.md` gets no section: one it holds is removed.
    fn imports_agents(
        &mut self,
        rel: &String,
        real: PathBuf,
        text: &str,
        body: Option<&[String]>,
    ) -> Result<(), HostError> {
        let new = set_section(text, None).map_err(|e| e.in_file(rel))?;
        let had = new != text;
        if body.is_some() || had {
            self.report
                .skipped
                .push((rel.clone(), "imports @AGENTS.md".into()));
        }
        if had {
            self.report.removed.push(rel.clone());
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

/// Whether a project-relative path names a rules file kapi may touch.
pub(crate) fn rules_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    (name == AGENTS || name == CLAUDE)
        && normal_path(rel) == rel
        && !rel.split('/').any(|c| c == "..")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn body(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| (*l).to_owned()).collect()
    }

    const SECTION: &str = "<!-- kapi:rules -->\nA\nB\n<!-- /kapi:rules -->\n";

    #[test]
    fn new_text_is_just_the_section() {
        assert_eq!(set_section("", Some(&body(&["A", "B"]))).unwrap(), SECTION);
        assert_eq!(set_section("", None).unwrap(), "");
    }

    #[test]
    fn person_text_is_kept_byte_for_byte() {
        let mine = "# Mine\n\nHello.\n";
        let added = set_section(mine, Some(&body(&["A", "B"]))).unwrap();
        assert_eq!(added, format!("{mine}\n{SECTION}"));
        let replaced = set_section(&added, Some(&body(&["C"]))).unwrap();
        assert_eq!(
            replaced,
            format!("{mine}\n<!-- kapi:rules -->\nC\n<!-- /kapi:rules -->\n")
        );
        assert_eq!(set_section(&replaced, None).unwrap(), mine);

        // No final line break: one is added before the blank line.
        let bare = set_section("Mine", Some(&body(&["A", "B"]))).unwrap();
        assert_eq!(bare, format!("Mine\n\n{SECTION}"));
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let mine = "# Mine\r\n\r\nHello.\r\n";
        let added = set_section(mine, Some(&body(&["A"]))).unwrap();
        assert_eq!(
            added,
            "# Mine\r\n\r\nHello.\r\n\r\n<!-- kapi:rules -->\r\nA\r\n<!-- /kapi:rules -->\r\n"
        );
        let replaced = set_section(&added, Some(&body(&["B", "C"]))).unwrap();
        assert!(replaced.starts_with(mine));
        assert_eq!(
            replaced.matches('\n').count(),
            replaced.matches("\r\n").count()
        );
        assert_eq!(set_section(&replaced, None).unwrap(), mine);
    }

    #[test]
    fn a_section_between_person_text_is_replaced_and_removed_in_place() {
        let text = "Top\n<!-- kapi:rules -->\nold\n<!-- /kapi:rules -->\nBottom\n";
        assert_eq!(
            set_section(text, Some(&body(&["new", "er"]))).unwrap(),
            "Top\n<!-- kapi:rules -->\nnew\ner\n<!-- /kapi:rules -->\nBottom\n"
        );
        assert_eq!(set_section(text, None).unwrap(), "Top\nBottom\n");
        // A section with no line break after its end marker keeps having none.
        let open_end = "Top\n\n<!-- kapi:rules -->\nold\n<!-- /kapi:rules -->";
        assert_eq!(
            set_section(open_end, Some(&body(&["x"]))).unwrap(),
            "Top\n\n<!-- kapi:rules -->\nx\n<!-- /kapi:rules -->"
        );
        assert_eq!(set_section(open_end, None).unwrap(), "Top\n");
    }

    #[test]
    fn a_body_line_cannot_break_the_section() {
        let text = set_section("", Some(&body(&["two\nlines", " <!-- /kapi:rules --> "]))).unwrap();
        assert_eq!(
            text,
            "<!-- kapi:rules -->\ntwo lines\n`<!-- /kapi:rules -->`\n<!-- /kapi:rules -->\n"
        );
        assert_eq!(set_section(&text, None).unwrap(), "");
    }

    #[test]
    fn broken_markers_are_refused_with_their_lines() {
        let unterminated = "a\nb\n<!-- kapi:rules -->\nrule\n";
        assert_eq!(
            set_section(unterminated, Some(&body(&["x"]))),
            Err(RulesError::Unterminated { line: 3 })
        );
        assert_eq!(
            set_section(unterminated, None),
            Err(RulesError::Unterminated { line: 3 })
        );
        let nested = "<!-- kapi:rules -->\n<!-- kapi:rules -->\n<!-- /kapi:rules -->\n";
        assert_eq!(
            set_section(nested, None),
            Err(RulesError::Unterminated { line: 1 })
        );
        let two = format!("{SECTION}\nmine\n{SECTION}");
        assert_eq!(
            set_section(&two, Some(&body(&["x"]))),
            Err(RulesError::TwoSections {
                first: 1,
                second: 7
            })
        );
        let stray = "mine\n\n  <!-- /kapi:rules -->\n";
        assert_eq!(
            set_section(stray, Some(&body(&["x"]))),
            Err(RulesError::StrayEnd { line: 3 })
        );
        let stray_after = format!("{SECTION}<!-- /kapi:rules -->\n");
        assert_eq!(
            set_section(&stray_after, None),
            Err(RulesError::StrayEnd { line: 5 })
        );
        let host = RulesError::Unterminated { line: 3 }.in_file("help/AGENTS.md");
        let message = host.to_string();
        assert!(
            message.contains("help/AGENTS.md") && message.contains("line 3"),
            "{message}"
        );
        assert_eq!(host.kind(), crate::ErrorKind::Operational);
    }

    #[test]
    fn words_match_whole() {
        assert!(contains_word("Our Workspace API", "Workspace"));
        assert!(contains_word("Workspace", "Workspace"));
        assert!(!contains_word("Workspaces hold pages", "Workspace"));
        assert!(!contains_word("MyWorkspace", "Workspace"));
        assert!(!contains_word("workspace", "Workspace"));
        assert!(contains_word("the (Workspace).", "Workspace"));
    }

    #[test]
    fn siblings_share_the_parent() {
        assert_eq!(sibling_of("api/a.md", "", "help"), Some("api".into()));
        assert_eq!(sibling_of("help/a.md", "", "help"), None);
        assert_eq!(sibling_of("top.md", "", "help"), None);
        assert_eq!(
            sibling_of("docs/api/v1/a.md", "docs", "help"),
            Some("docs/api".into())
        );
        assert_eq!(sibling_of("docs/a.md", "docs", "help"), None);
        assert_eq!(sibling_of("other/api/a.md", "docs", "help"), None);
    }

    // --- On a project -----------------------------------------------------------------------

    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
    }

    impl Fixture {
        fn new(terms: &str) -> Self {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().to_path_buf();
            let f = Fixture { _dir: dir, root };
            f.write(
                "kapi.yaml",
                "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"**/*.md\"\n",
            );
            f.write(".kapi/terms.yaml", terms);
            f
        }

        fn write(&self, rel: &str, text: &str) {
            let path = self.root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }

        fn read(&self, rel: &str) -> String {
            std::fs::read_to_string(self.root.join(rel)).unwrap()
        }

        fn exists(&self, rel: &str) -> bool {
            std::fs::symlink_metadata(self.root.join(rel)).is_ok()
        }

        fn plan(&self, notes: &[KeptNote]) -> RulesPlan {
            let app = App::new(
                crate::env::Env {
                    no_project: false,
                    ..Default::default()
                },
                self.root.clone(),
                Some(self.root.clone()),
            );
            let project = app.require_project().unwrap();
            let notes = NotesFile {
                version: "v1".into(),
                notes: notes.to_vec(),
            };
            plan(&app, &project, &notes).unwrap()
        }

        /// Every file's bytes under the root, `.kapi/work` included.
        fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
            let mut out = BTreeMap::new();
            for entry in ignore::WalkBuilder::new(&self.root)
                .standard_filters(false)
                .build()
                .flatten()
            {
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    let rel = crate::app::relative_to(entry.path(), &self.root).unwrap();
                    out.insert(rel, std::fs::read(entry.path()).unwrap());
                }
            }
            out
        }
    }

    const TERMS: &str = "\
version: v1
concepts:
  - id: sign-in
    terms:
      - text: sign in
        lang: en
        status: preferred
      - text: log in
        lang: en
        status: deprecated
        replacement: sign in
";

    fn note(id: &str, path: &str, text: &str) -> KeptNote {
        KeptNote {
            id: id.into(),
            path: path.into(),
            text: Some(text.into()),
            ..KeptNote::default()
        }
    }

    fn rename(id: &str, path: &str, from: &str, to: &str) -> KeptNote {
        KeptNote {
            id: id.into(),
            path: path.into(),
            from: Some(from.into()),
            to: Some(to.into()),
            ..KeptNote::default()
        }
    }

    fn simple_plan(folders: &[(&str, &[&str])]) -> RulesPlan {
        RulesPlan {
            root: body(&["## Project rules (kapi)", CHECK_LINE]),
            folders: folders
                .iter()
                .map(|(f, lines)| ((*f).to_owned(), body(lines)))
                .collect(),
        }
    }

    #[test]
    fn plan_states_terms_notes_and_folders() {
        let f = Fixture::new(TERMS);
        f.write("help/a.md", "Help.\n");
        f.write("docs/a.md", "Docs.\n");
        f.write("README.md", "Read me.\n");
        let plan = f.plan(&[
            note("n1", "", "Product names are written as the UI shows them."),
            note("n2", "help", "Steps are numbered."),
            note("n3", "docs/a.md", "British spelling."),
            note("n4", "README.md", "Keep it short."),
        ]);
        assert_eq!(
            plan.root,
            body(&[
                "## Project rules (kapi)",
                "Words to use:",
                "- \"sign in\"",
                "Words to avoid:",
                "- \"log in\" → \"sign in\"",
                "Notes a person kept:",
                "- Product names are written as the UI shows them.",
                "- In `README.md`: Keep it short.",
                "Folders with rules of their own:",
                "- `docs/`: see docs/AGENTS.md",
                "- `help/`: see help/AGENTS.md",
                CHECK_LINE,
            ])
        );
        assert_eq!(
            plan.folders["help"],
            body(&[
                "## Rules for `help/` (kapi)",
                "- Steps are numbered.",
                CHECK_LINE
            ])
        );
        assert_eq!(
            plan.folders["docs"],
            body(&[
                "## Rules for `docs/` (kapi)",
                "- In `a.md`: British spelling.",
                CHECK_LINE
            ])
        );
        assert_eq!(plan.folders.len(), 2);
    }

    #[test]
    fn plan_states_the_voice_in_a_few_lines() {
        let f = Fixture::new(TERMS);
        f.write(
            ".kapi/voice.yaml",
            "name: Larkspur\ntone:\n  personality: [direct, warm]\n  formality: neutral\nstyle:\n  prohibited_patterns:\n    - regex: '!{2,}'\n      description: Stacked exclamation marks\n  constraints:\n    max_sentence_words: 30\n",
        );
        let plan = f.plan(&[]);
        let voice: Vec<&str> = plan.root[1..5].iter().map(String::as_str).collect();
        assert_eq!(
            voice,
            [
                "- Voice: Larkspur.",
                "- Tone: direct, warm; neutral formality.",
                "- Sentences of at most 30 words.",
                "- Flagged by `kapi check`: Stacked exclamation marks.",
            ]
        );
    }

    #[test]
    fn a_rename_held_for_a_folder_stays_in_siblings_that_use_the_word() {
        let f = Fixture::new(TERMS);
        f.write("help/a.md", "Open the Workspace menu.\n");
        f.write("api/b.md", "The Workspace API lists pages.\n");
        f.write("guide/c.md", "Workspaces hold pages.\n");
        f.write("other/d.md", "Nothing to see.\n");
        f.write("notes.md", "Workspace at the top is not in a folder.\n");
        let plan = f.plan(&[rename("n1", "help", "Workspace", "Space")]);
        assert_eq!(
            plan.folders["help"],
            body(&[
                "## Rules for `help/` (kapi)",
                "- Write \"Space\", not \"Workspace\".",
                CHECK_LINE
            ])
        );
        assert_eq!(
            plan.folders["api"],
            body(&[
                "## Rules for `api/` (kapi)",
                "- \"Workspace\" is correct here; do not rename it to \"Space\".",
                CHECK_LINE
            ])
        );
        assert!(!plan.folders.contains_key("guide"), "{plan:?}");
        assert!(!plan.folders.contains_key("other"));
        assert_eq!(plan.folders.len(), 2);
        assert!(
            plan.root
                .contains(&"- `api/`: see api/AGENTS.md".to_owned())
        );
        // The rules files kapi writes are not content: once api stops using the word, its
        // line goes, though api/AGENTS.md still says "Workspace".
        sync(&f.root, &plan).unwrap();
        assert!(
            f.read("api/AGENTS.md")
                .contains("\"Workspace\" is correct here")
        );
        f.write("api/b.md", "The Space API lists pages.\n");
        let later = f.plan(&[rename("n1", "help", "Workspace", "Space")]);
        assert!(!later.folders.contains_key("api"), "{later:?}");
        f.write("api/b.md", "The Workspace API lists pages.\n");
        // The same rename held for api too: no line saying the word stays there.
        let both = f.plan(&[
            rename("n1", "help", "Workspace", "Space"),
            rename("n2", "api", "Workspace", "Space"),
        ]);
        assert!(
            !both.folders["api"]
                .iter()
                .any(|l| l.contains("is correct here"))
        );
    }

    #[test]
    fn budgets_hold_with_a_line_saying_what_was_left_out() {
        let mut terms = String::from("version: v1\nconcepts:\n");
        for i in 0..80 {
            terms.push_str(&format!(
                "  - id: c{i:02}\n    terms:\n      - text: word{i:02}\n        lang: en\n        status: preferred\n"
            ));
        }
        let f = Fixture::new(&terms);
        std::fs::create_dir_all(f.root.join("help")).unwrap();
        let notes: Vec<KeptNote> = (0..40)
            .map(|i| note(&format!("n{i}"), "help", &format!("Rule {i:02}.")))
            .collect();
        let mut all = notes.clone();
        all.push(note("r1", "", "A root rule."));
        let plan = f.plan(&all);

        assert_eq!(plan.root.len(), ROOT_BUDGET);
        assert_eq!(plan.root.last().unwrap(), CHECK_LINE);
        let left = &plan.root[ROOT_BUDGET - 2];
        assert!(
            left.contains("words to use") && left.contains("`kapi context PATH`"),
            "{left}"
        );
        // What ranks higher is kept whole.
        assert!(plan.root.contains(&"- A root rule.".to_owned()));
        assert!(
            plan.root
                .contains(&"- `help/`: see help/AGENTS.md".to_owned())
        );
        assert!(plan.root.contains(&"- \"word00\"".to_owned()));
        assert!(!plan.root.contains(&"- \"word79\"".to_owned()));

        let help = &plan.folders["help"];
        assert_eq!(help.len(), FOLDER_BUDGET);
        assert_eq!(help.last().unwrap(), CHECK_LINE);
        assert_eq!(
            help[FOLDER_BUDGET - 2],
            "- Left out to keep this short: 18 notes; `kapi context help/` gives the rest."
        );
        assert_eq!(help[1], "- Rule 00.");

        // Written through sync, the section's body is the budget.
        sync(&f.root, &plan).unwrap();
        let text = f.read("help/AGENTS.md");
        assert_eq!(text.lines().count(), FOLDER_BUDGET + 2);
    }

    #[test]
    fn sync_writes_root_and_folders_and_a_second_sync_changes_nothing() {
        let f = Fixture::new(TERMS);
        f.write("help/a.md", "Help.\n");
        f.write("AGENTS.md", "# How we work\r\n\r\nBe kind.\r\n");
        let plan = f.plan(&[note("n2", "help", "Steps are numbered.")]);
        let first = sync(&f.root, &plan).unwrap();
        assert_eq!(
            first.written,
            ["AGENTS.md", "CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]
        );
        assert!(first.unchanged.is_empty() && first.removed.is_empty() && first.skipped.is_empty());

        let agents = f.read("AGENTS.md");
        assert!(agents.starts_with("# How we work\r\n\r\nBe kind.\r\n\r\n<!-- kapi:rules -->\r\n"));
        assert!(agents.ends_with(&format!("{CHECK_LINE}\r\n<!-- /kapi:rules -->\r\n")));
        assert_eq!(
            f.read("help/CLAUDE.md"),
            format!(
                "<!-- kapi:rules -->\n## Rules for `help/` (kapi)\n- Steps are numbered.\n{CHECK_LINE}\n<!-- /kapi:rules -->\n"
            )
        );
        let created: Vec<String> = serde_json::from_str(&f.read(CREATED_FILES)).unwrap();
        assert_eq!(created, ["CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]);

        let before = f.snapshot();
        let second = sync(&f.root, &plan).unwrap();
        assert!(second.written.is_empty(), "{second:?}");
        assert_eq!(
            second.unchanged,
            ["AGENTS.md", "CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]
        );
        assert_eq!(f.snapshot(), before);
    }

    #[test]
    fn a_dropped_folder_loses_its_section_and_only_kapis_empty_files() {
        let f = Fixture::new(TERMS);
        f.write("help/CLAUDE.md", "# Mine\n");
        f.write("docs/AGENTS.md", "");
        f.write("docs/CLAUDE.md", "");
        std::fs::create_dir_all(f.root.join("api")).unwrap();
        let plan = simple_plan(&[
            ("help", &["## help", CHECK_LINE]),
            ("docs", &["## docs", CHECK_LINE]),
            ("api", &["## api", CHECK_LINE]),
        ]);
        sync(&f.root, &plan).unwrap();
        assert!(
            f.read("help/CLAUDE.md")
                .starts_with("# Mine\n\n<!-- kapi:rules -->\n")
        );
        // The person adds to a file kapi created.
        let api = f.read("api/CLAUDE.md");
        f.write("api/CLAUDE.md", &format!("Mine too.\n\n{api}"));

        let report = sync(&f.root, &simple_plan(&[])).unwrap();
        assert_eq!(
            report.removed,
            [
                "api/AGENTS.md",
                "api/CLAUDE.md",
                "docs/AGENTS.md",
                "docs/CLAUDE.md",
                "help/AGENTS.md",
                "help/CLAUDE.md"
            ]
        );
        assert!(
            !f.exists("help/AGENTS.md"),
            "kapi created it and nothing else is in it"
        );
        assert_eq!(f.read("help/CLAUDE.md"), "# Mine\n");
        assert!(!f.exists("api/AGENTS.md"));
        assert_eq!(f.read("api/CLAUDE.md"), "Mine too.\n");
        // The person created these; emptied of the section, they stay.
        assert_eq!(f.read("docs/AGENTS.md"), "");
        assert_eq!(f.read("docs/CLAUDE.md"), "");
        let created: Vec<String> = serde_json::from_str(&f.read(CREATED_FILES)).unwrap();
        assert_eq!(created, ["AGENTS.md", "CLAUDE.md", "api/CLAUDE.md"]);
        assert!(f.exists("AGENTS.md") && f.exists("CLAUDE.md"));

        // Found by their markers with no record of them (a fresh clone): still removed.
        f.write("docs/AGENTS.md", &format!("Docs.\n\n{SECTION}"));
        let report = sync(&f.root, &simple_plan(&[])).unwrap();
        assert_eq!(report.removed, ["docs/AGENTS.md"]);
        assert_eq!(f.read("docs/AGENTS.md"), "Docs.\n");
    }

    #[test]
    fn a_claude_md_importing_agents_md_gets_no_section() {
        let f = Fixture::new(TERMS);
        f.write(
            "CLAUDE.md",
            &format!("  @AGENTS.md \nMore of mine.\n\n{SECTION}"),
        );
        f.write("help/CLAUDE.md", "@./AGENTS.md\n");
        let plan = simple_plan(&[("help", &["## help", CHECK_LINE])]);
        let report = sync(&f.root, &plan).unwrap();
        assert_eq!(
            report.skipped,
            [
                ("CLAUDE.md".to_owned(), "imports @AGENTS.md".to_owned()),
                ("help/CLAUDE.md".to_owned(), "imports @AGENTS.md".to_owned())
            ]
        );
        assert_eq!(report.removed, ["CLAUDE.md"]);
        assert_eq!(report.written, ["AGENTS.md", "help/AGENTS.md"]);
        assert_eq!(f.read("CLAUDE.md"), "  @AGENTS.md \nMore of mine.\n");
        assert_eq!(f.read("help/CLAUDE.md"), "@./AGENTS.md\n");
        assert!(f.read("AGENTS.md").contains(START_MARKER));
    }

    #[cfg(unix)]
    #[test]
    fn a_claude_md_that_is_agents_md_gets_no_section() {
        let f = Fixture::new(TERMS);
        f.write("AGENTS.md", "# Ours\n");
        std::os::unix::fs::symlink("AGENTS.md", f.root.join("CLAUDE.md")).unwrap();
        // A link to an AGENTS.md this sync creates.
        std::fs::create_dir_all(f.root.join("help")).unwrap();
        std::os::unix::fs::symlink("AGENTS.md", f.root.join("help/CLAUDE.md")).unwrap();
        // A hard link.
        f.write("docs/AGENTS.md", "# Docs\n");
        std::fs::hard_link(f.root.join("docs/AGENTS.md"), f.root.join("docs/CLAUDE.md")).unwrap();
        let plan = simple_plan(&[
            ("help", &["## help", CHECK_LINE]),
            ("docs", &["## docs", CHECK_LINE]),
        ]);
        let report = sync(&f.root, &plan).unwrap();
        assert_eq!(
            report.skipped,
            [
                (
                    "CLAUDE.md".to_owned(),
                    "the same file as AGENTS.md".to_owned()
                ),
                (
                    "docs/CLAUDE.md".to_owned(),
                    "the same file as docs/AGENTS.md".to_owned()
                ),
                (
                    "help/CLAUDE.md".to_owned(),
                    "the same file as help/AGENTS.md".to_owned()
                ),
            ]
        );
        assert_eq!(
            report.written,
            ["AGENTS.md", "docs/AGENTS.md", "help/AGENTS.md"]
        );
        let meta = std::fs::symlink_metadata(f.root.join("CLAUDE.md")).unwrap();
        assert!(meta.file_type().is_symlink(), "the link is still a link");
        let text = f.read("AGENTS.md");
        assert!(text.starts_with("# Ours\n\n<!-- kapi:rules -->\n"));
        assert_eq!(text.matches(START_MARKER).count(), 1);
        assert_eq!(f.read("docs/CLAUDE.md").matches(START_MARKER).count(), 1);
        assert_eq!(f.read("help/CLAUDE.md").matches(START_MARKER).count(), 1);
        // And again: nothing to do.
        let again = sync(&f.root, &plan).unwrap();
        assert!(again.written.is_empty(), "{again:?}");
    }

    #[test]
    fn a_broken_file_anywhere_refuses_the_whole_sync() {
        let f = Fixture::new(TERMS);
        f.write("help/AGENTS.md", "Mine.\n<!-- kapi:rules -->\nhalf\n");
        let plan = simple_plan(&[("help", &["## help", CHECK_LINE])]);
        let before = f.snapshot();
        let err = sync(&f.root, &plan).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("help/AGENTS.md") && message.contains("line 2"),
            "{message}"
        );
        assert!(!f.exists("AGENTS.md"), "nothing written before the refusal");
        assert_eq!(f.snapshot(), before);

        // A stray end marker in a file outside the plan refuses it too.
        f.write("help/AGENTS.md", "Mine.\n");
        f.write("old/CLAUDE.md", "<!-- /kapi:rules -->\n");
        let err = sync(&f.root, &plan).unwrap_err().to_string();
        assert!(
            err.contains("old/CLAUDE.md") && err.contains("line 1"),
            "{err}"
        );
        assert!(!f.exists("AGENTS.md"));
    }

    #[test]
    fn a_folder_that_does_not_exist_is_skipped() {
        let f = Fixture::new(TERMS);
        let plan = simple_plan(&[("gone", &["## gone", CHECK_LINE])]);
        let report = sync(&f.root, &plan).unwrap();
        assert_eq!(report.written, ["AGENTS.md", "CLAUDE.md"]);
        assert_eq!(
            report.skipped,
            [
                (
                    "gone/AGENTS.md".to_owned(),
                    "the folder does not exist".to_owned()
                ),
                (
                    "gone/CLAUDE.md".to_owned(),
                    "the folder does not exist".to_owned()
                )
            ]
        );
        assert!(!f.exists("gone"));
    }
}
