//! The plan: what the root's section and each folder's say — the voice in a few lines, the
//! words to use and to avoid, the kept notes where they hold, the wording that stays next to a
//! rename held for a sibling — each fitted to its line budget.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kapi_core::governance::load as governance_load;
use kapi_core::governance::notes::{KeptNote, NotesFile, applies, normal_path};
use kapi_core::governance::{Governance, TermStatus};
use kapi_core::project::{Collections, Project, Resolver};

use super::place::{Content, hosts};
use super::{AGENTS, CHECK_LINE, CLAUDE, FOLDER_BUDGET, ROOT_BUDGET, RulesPlan, SCAN_LIMIT};
use crate::App;
use crate::error::HostError;

/// Composes the plan from the project's governance at the root point and the kept notes.
///
/// A section over its budget ([`ROOT_BUDGET`], [`FOLDER_BUDGET`]) loses lines from the end of
/// its lowest-ranked groups first, and says what it left out. At the root: words to use go
/// first, then the folder lines, the words to avoid, the notes, and the voice last. In a folder:
/// the lines on wording that stays, then the notes on files, then the folder's own notes.
///
/// A folder that `content` covers gets no section of its own: its section's lines (within its
/// budget) go into its host's (`place`) as a group headed "Under `F/`:",
/// ranked after the host's own notes and before its words to avoid; the host's budget grows
/// by those lines, at most twice over. The root's folder line points at the file that holds a
/// folder's rules, and names no folder whose rules are in the root's own section.
pub fn plan(
    app: &App,
    project: &Project,
    notes: &NotesFile,
    content: &Content,
) -> Result<RulesPlan, HostError> {
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

    let moved = hosts(folders.keys(), content);
    let mut hosted: BTreeMap<String, Vec<Group>> = BTreeMap::new();
    for (folder, m) in &moved {
        let own = folder_body(folder, &folders[folder], Vec::new());
        hosted
            .entry(m.host.clone())
            .or_default()
            .push(Group::under(folder, own));
    }
    let mut plan = RulesPlan::default();
    for (folder, lines) in &folders {
        if !moved.contains_key(folder) {
            let guests = hosted.remove(folder).unwrap_or_default();
            plan.folders
                .insert(folder.clone(), folder_body(folder, lines, guests));
        }
    }

    root_notes.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let pointers: Vec<String> = folders
        .keys()
        .filter_map(|f| match moved.get(f) {
            None => Some(format!("- `{f}/`: see {f}/{AGENTS}")),
            Some(m) if m.host.is_empty() => None,
            Some(m) => Some(format!("- `{f}/`: see {}/{AGENTS}", m.host)),
        })
        .collect();
    let mut groups = vec![
        Group::new(
            None,
            voice_lines(&governance),
            10,
            ("voice line", "voice lines"),
        ),
        Group::new(
            Some("Words to use:"),
            words_to_use(&governance),
            2,
            ("word to use", "words to use"),
        ),
        Group::new(
            Some("Words to avoid:"),
            words_to_avoid(&governance),
            6,
            ("word to avoid", "words to avoid"),
        ),
        Group::new(
            Some("Notes a person kept:"),
            dedup(root_notes.into_iter().map(|(_, _, l)| l).collect()),
            8,
            ("note", "notes"),
        ),
        Group::new(
            Some("Folders with rules of their own:"),
            pointers,
            4,
            ("folder line", "folder lines"),
        ),
    ];
    let guests = hosted.remove("").unwrap_or_default();
    let budget = hosting_budget(ROOT_BUDGET, &guests);
    groups.extend(guests);
    plan.root = fit(
        "## Project rules (kapi)".to_owned(),
        groups,
        budget,
        "`kapi context PATH` gives the rest for the file you work on",
    );
    plan.moved = moved.into_values().collect();
    Ok(plan)
}

/// A folder's section: its notes, its notes on files, the wording that stays, and the groups
/// of the folders whose rules it holds, within [`FOLDER_BUDGET`] (grown by theirs).
fn folder_body(folder: &str, lines: &FolderLines, guests: Vec<Group>) -> Vec<String> {
    let mut file_notes = lines.file_notes.clone();
    file_notes.sort_by(|a, b| a.0.cmp(&b.0));
    let budget = hosting_budget(FOLDER_BUDGET, &guests);
    let mut groups = vec![
        Group::new(None, dedup(lines.notes.clone()), 8, ("note", "notes")),
        Group::new(
            None,
            file_notes.into_iter().map(|(_, l)| l).collect(),
            4,
            ("note on a file", "notes on files"),
        ),
        Group::new(
            None,
            lines.stays.clone(),
            2,
            ("line on wording that stays", "lines on wording that stays"),
        ),
    ];
    groups.extend(guests);
    let heading = format!("## Rules for `{folder}/` (kapi)");
    let rest = format!("`kapi context {folder}/` gives the rest");
    fit(heading, groups, budget, &rest)
}

/// A section's budget grown by the lines of the folders it holds the rules of, at most twice
/// over.
fn hosting_budget(budget: usize, guests: &[Group]) -> usize {
    budget + guests.iter().map(Group::lines).sum::<usize>().min(budget)
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
pub(super) fn sibling_of(rel: &str, parent: &str, held: &str) -> Option<String> {
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
pub(super) fn contains_word(text: &str, word: &str) -> bool {
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
    noun: (String, String),
}

impl Group {
    fn new(header: Option<&str>, items: Vec<String>, keep: u8, noun: (&str, &str)) -> Self {
        Group {
            header: header.map(str::to_owned),
            items,
            keep,
            noun: (noun.0.to_owned(), noun.1.to_owned()),
        }
    }

    /// The rules of `folder`, whose own section `body` (heading first, the `kapi check` line
    /// last) is held in another folder's: its lines under "Under `folder/`:". It ranks after
    /// the host's own notes and before every other group the host may leave out.
    fn under(folder: &str, body: Vec<String>) -> Self {
        let items = body
            .into_iter()
            .skip(1)
            .filter(|l| l != CHECK_LINE)
            .collect();
        Group {
            header: Some(format!("Under `{folder}/`:")),
            items,
            keep: 7,
            noun: (
                format!("line for `{folder}/`"),
                format!("lines for `{folder}/`"),
            ),
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
            .map(|(g, n)| format!("{n} {}", if *n == 1 { &g.noun.0 } else { &g.noun.1 }))
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
