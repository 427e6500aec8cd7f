//! The brief for a location: what governs a path (or a profile named directly), rendered as
//! markdown for people and assistants and as `kapi.context/v1` JSON. The CLI's `kapi context`
//! and the MCP resource `context://PATH` serve the same bytes from this one function.
//!
//! ```json
//! {"schema": "kapi.context/v1", "scope": "project",
//!  "point": {"path": "docs/install.md", "profile": "larkspur", "channel": "docs",
//!            "collection": "guides", "default": false, "ref": "larkspur/docs"},
//!  "voice": {"name": "Larkspur", "source": ".kapi/voice.yaml", "field": "defaults.voice",
//!            "guide": "# Voice Guide: Larkspur\n…"},
//!  "terms": {"use": [{"text": "sign in", …}], "avoid": [{"text": "login", "replacement": "sign in", …}]},
//!  "terms_total": 18, "windows": [{"profile": "classic", "valid_to": "2026-01-01", "state": "expired"}],
//!  "fingerprint": "g…",
//!  "kept_notes": [{"id": "n3", "path": "help", "line": "\"Workspace\" is correct here; do not rename it to \"Space\"."}],
//!  "pending": [{"id": "n4", "path": "docs", "line": "Write \"sign in\".", "evidence": 2, "signals": 1}],
//!  "notes": ["…"]}
//! ```
//!
//! Kept notes come from `.kapi/notes.yaml` (a missing file is none, a broken one a note in the
//! answer); pending suggestions from the store, read only when `.kapi/work/store.db` exists.

use std::path::{Path, PathBuf};

use kapi_core::governance::notes::{KeptNote, NotesFile, applies, normal_path};
use kapi_core::governance::{Governance, TermEntry, load as governance_load};
use kapi_core::project::layout::STORE_FILE;
use kapi_core::project::resolve::{Resolver, Window};
use kapi_core::project::{Point, Project};
use kapi_core::store::{Store, Suggestion, SuggestionFilter};
use serde::Serialize;

use crate::app::{App, Base};
use crate::error::HostError;

/// What to brief.
#[derive(Debug, Clone, Default)]
pub struct ContextRequest {
    pub path: Option<PathBuf>,
    pub profile: Option<String>,
    /// Narrows terms to one language (default: the point's source language).
    pub locale: Option<String>,
    /// Most terms listed in each group (default 25).
    pub limit: Option<usize>,
}

/// The point as the brief reports it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PointView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    pub default: bool,
    #[serde(rename = "ref")]
    pub reference: String,
    pub language: String,
}

/// The voice in force.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct VoiceView {
    pub name: String,
    pub source: String,
    pub field: String,
    /// The full voice guide, markdown.
    pub guide: String,
}

/// Terms to use and to avoid at the point.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct TermsView {
    #[serde(rename = "use")]
    pub use_: Vec<TermEntry>,
    pub avoid: Vec<TermEntry>,
}

/// Where kept notes live, relative to the project root.
pub const NOTES_FILE: &str = kapi_core::project::layout::NOTES_FILE;

/// A kept note as a rule line: the note's id, the path it was kept for, and the line that
/// holds at the location asked about (its rule, or that the old wording stays).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct NoteLine {
    pub id: String,
    pub path: String,
    pub line: String,
}

/// A pending suggestion: recorded, not yet established by a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingLine {
    pub id: String,
    pub path: String,
    pub line: String,
    /// How many times it was recorded.
    pub evidence: i64,
    /// Applied edits that wrote the form it prefers.
    pub signals: i64,
}

/// The brief: `kapi.context/v1`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ContextAnswer {
    /// The surface asking, for the closing line's command or tool.
    #[serde(skip)]
    pub surface: crate::Surface,
    pub schema: &'static str,
    /// `project` (a recipe stands behind the answer) or `none` (no project: hygiene only).
    pub scope: &'static str,
    pub point: PointView,
    pub voice: Option<VoiceView>,
    pub terms: TermsView,
    /// Terms in force before the limit.
    pub terms_total: usize,
    pub windows: Vec<Window>,
    pub fingerprint: String,
    /// Kept notes that hold here: the rules of notes kept for this path or above, then the
    /// wording that stays here because a rename was held to a sibling folder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_notes: Vec<NoteLine>,
    /// Pending suggestions that would apply here: not established, never rules.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingLine>,
    pub notes: Vec<String>,
}

/// Answers what governs a path or a profile.
pub fn context(app: &App, request: &ContextRequest) -> Result<ContextAnswer, HostError> {
    let limit = request.limit.unwrap_or(25);
    let mut notes = Vec::new();
    let Some(project) = app.project()? else {
        return no_project(app, request);
    };
    let resolver = Resolver::new(&project, app.now);
    let point = resolve_point(app, &project, &resolver, request)?;
    let language = request
        .locale
        .clone()
        .unwrap_or_else(|| point.source_language.clone());
    let governance = governance_load::load(&project.root, &point, &language)?;
    if let Some(fallback) = &point.fallback {
        notes.push(fallback.note());
    }
    notes.extend(governance.notes.iter().cloned());
    let voice = match (&governance.voice, &point.voice) {
        (Some(voice), Some(binding)) => Some(VoiceView {
            name: voice.name.clone(),
            source: binding.source.clone(),
            field: binding.field.clone(),
            guide: voice.guide(),
        }),
        _ => {
            notes.push("no voice profile is bound at this point: add `defaults.voice` to `kapi.yaml` or create `.kapi/voice.yaml`".into());
            None
        }
    };
    let (terms, total) = terms_view(&governance, limit, &mut notes);
    // A profile named directly has no location: only what is kept for the whole project.
    let at = point.path.as_deref().map(normal_path).unwrap_or_default();
    let kept = read_kept_notes(&project.root, &mut notes);
    let kept_notes = kept_lines(&kept, &at);
    let pending = pending_here(&project.root, &at, limit, &mut notes);
    Ok(ContextAnswer {
        surface: app.surface,
        schema: "kapi.context/v1",
        scope: "project",
        point: PointView {
            path: point.path.clone(),
            profile: point.profile.clone(),
            channel: point.channel.clone(),
            collection: point.collection.clone(),
            default: point.default,
            reference: point.reference(),
            language,
        },
        voice,
        terms,
        terms_total: total,
        windows: resolver.windows(),
        fingerprint: governance.fingerprint.clone(),
        kept_notes,
        pending,
        notes,
    })
}

/// The brief where no project is: hygiene only (a profile named directly has nothing to name).
fn no_project(app: &App, request: &ContextRequest) -> Result<ContextAnswer, HostError> {
    if request.profile.is_some() {
        return Err(HostError::NoProject {
            searched: app.cwd.clone(),
        });
    }
    let path = request.path.as_ref().map(|p| p.display().to_string());
    let notes = vec!["no kapi project here: only the hygiene rules apply; run `kapi init` to give this folder a voice and terms".to_owned()];
    let empty = Governance::empty();
    Ok(ContextAnswer {
        surface: app.surface,
        schema: "kapi.context/v1",
        scope: "none",
        point: PointView {
            path,
            profile: None,
            channel: None,
            collection: None,
            default: true,
            reference: "default".into(),
            language: request.locale.clone().unwrap_or_else(|| "en".into()),
        },
        voice: None,
        terms: TermsView::default(),
        terms_total: 0,
        windows: Vec::new(),
        fingerprint: empty.fingerprint,
        kept_notes: Vec::new(),
        pending: Vec::new(),
        notes,
    })
}

/// The point the request names: its profile, or the point its path resolves to.
fn resolve_point(
    app: &App,
    project: &Project,
    resolver: &Resolver,
    request: &ContextRequest,
) -> Result<Point, HostError> {
    match (&request.profile, &request.path) {
        (Some(profile), _) => Ok(resolver.resolve_profile(profile)?),
        (None, Some(path)) => {
            let path = app.resolve_target(Base::Project, Some(project), path)?;
            Ok(resolver.resolve_path(path.rel().unwrap_or_default()))
        }
        (None, None) => Err(HostError::Usage {
            message: app.surface.pick(
                "name a PATH or a `--profile`",
                "name a `path` or a `profile`",
            ),
            hint: Some(app.surface.pick(
                "run `kapi context docs/intro.md` or `kapi context --profile NAME`",
                "`{\"path\": \"docs/intro.md\"}` or `{\"profile\": \"NAME\"}`",
            )),
        }),
    }
}

/// The terms in force, ranked, at most `limit` in each group, and how many there are; a note
/// when there are none or some are left out.
fn terms_view(
    governance: &Governance,
    limit: usize,
    notes: &mut Vec<String>,
) -> (TermsView, usize) {
    let mut terms = TermsView::default();
    let mut sorted: Vec<&TermEntry> = governance.terms.iter().collect();
    sorted.sort_by(|a, b| {
        (rank(a), a.text.to_lowercase(), &a.lang).cmp(&(rank(b), b.text.to_lowercase(), &b.lang))
    });
    let total = sorted.len();
    for entry in sorted {
        let group = if entry.status.discouraged() {
            &mut terms.avoid
        } else {
            &mut terms.use_
        };
        if group.len() < limit {
            group.push(entry.clone());
        }
    }
    let shown = terms.avoid.len() + terms.use_.len();
    if total == 0 {
        notes.push("no terms are bound here: add concepts to `.kapi/terms.yaml`".into());
    } else if shown < total {
        notes.push(format!(
            "showing {shown} of {total} terms; ask `kapi context search WORD` for one"
        ));
    }
    (terms, total)
}

/// The pending suggestions that would apply at `at`, shallowest first, at most `limit`.
fn pending_here(root: &Path, at: &str, limit: usize, notes: &mut Vec<String>) -> Vec<PendingLine> {
    let mut pending: Vec<PendingLine> = read_pending(root, notes)
        .iter()
        .filter(|s| applies(&s.path, at))
        .map(PendingLine::from_suggestion)
        .collect();
    pending.sort_by_key(|p| depth(&p.path));
    if pending.len() > limit {
        notes.push(format!(
            "showing {limit} of {} pending suggestions here",
            pending.len()
        ));
        pending.truncate(limit);
    }
    pending
}

/// Reads the kept notes (`.kapi/notes.yaml`): none when the file is missing; a file that does
/// not read or validate adds a remark to `remarks` and counts as none, never a failure.
pub fn read_kept_notes(root: &Path, remarks: &mut Vec<String>) -> NotesFile {
    crate::notes::read_notes(root).unwrap_or_else(|e| {
        remarks.push(format!(
            "kept notes are left out: {}",
            e.to_string().replace('\n', "; ")
        ));
        NotesFile::default()
    })
}

/// The pending suggestions in the project's store, by path then id. The store is opened only
/// when its file exists (a read never creates one); a store that does not open adds a remark.
pub fn read_pending(root: &Path, remarks: &mut Vec<String>) -> Vec<Suggestion> {
    let path = root.join(STORE_FILE);
    if !path.is_file() {
        return Vec::new();
    }
    let filter = SuggestionFilter {
        status: Some("pending".into()),
        session: None,
    };
    match Store::open(&path).and_then(|store| store.suggestions(&filter)) {
        Ok(found) => found,
        Err(e) => {
            remarks.push(format!(
                "pending suggestions are left out: {e}{}",
                std::error::Error::source(&e)
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            ));
            Vec::new()
        }
    }
}

/// The kept-note lines that hold at `path` (project-relative, `""` for the root): the rule of
/// each note kept for the path or a folder above it, root first; then, for each rename
/// (`from` → `to`) held to a folder P that `path` lies outside of but inside P's parent, the
/// line that the old wording stays here — unless a note that applies here renames the same
/// word. The same line is stated once.
pub fn kept_lines(file: &NotesFile, path: &str) -> Vec<NoteLine> {
    let path = normal_path(path);
    let here = file.for_path(&path);
    let mut out: Vec<NoteLine> = here
        .iter()
        .map(|n| NoteLine {
            id: n.id.clone(),
            path: normal_path(&n.path),
            line: n.rule_line(),
        })
        .collect();
    let renamed_here = |from: &str| {
        here.iter().any(|n| {
            n.preferred().is_some()
                && n.from
                    .as_deref()
                    .is_some_and(|f| f.to_lowercase() == from.to_lowercase())
        })
    };
    let mut stays: Vec<(&KeptNote, String)> = Vec::new();
    for note in &file.notes {
        let scope = normal_path(&note.path);
        let (Some(from), Some(line)) = (note.from.as_deref(), note.stays_line()) else {
            continue;
        };
        if scope.is_empty() || applies(&scope, &path) || renamed_here(from) {
            continue;
        }
        let parent = scope.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        if path != parent && applies(parent, &path) {
            stays.push((note, line));
        }
    }
    stays.sort_by_key(|(n, _)| depth(&n.path));
    for (note, line) in stays {
        if out.iter().any(|l| l.line == line) {
            continue;
        }
        out.push(NoteLine {
            id: note.id.clone(),
            path: normal_path(&note.path),
            line,
        });
    }
    out
}

/// How deep a note's path sits: 0 for the root.
fn depth(path: &str) -> usize {
    let path = normal_path(path);
    if path.is_empty() {
        0
    } else {
        path.matches('/').count() + 1
    }
}

impl PendingLine {
    /// A pending suggestion stated as the rule it would be if a person kept it.
    pub fn from_suggestion(s: &Suggestion) -> PendingLine {
        let as_kept = KeptNote {
            id: s.id.clone(),
            path: s.path.clone(),
            text: s.text.clone(),
            from: s.from.clone(),
            to: s.to.clone(),
            suggest: s.suggest.clone(),
            ..KeptNote::default()
        };
        PendingLine {
            id: s.id.clone(),
            path: normal_path(&s.path),
            line: as_kept.rule_line(),
            evidence: s.evidence,
            signals: s.signals,
        }
    }

    /// The markdown list item: `- n4 (suggested, not yet established; 2 notes, 1 edit
    /// signal): Write "Space", not "Workspace".`
    pub fn markdown(&self) -> String {
        let mut standing = plural(self.evidence, "note", "notes");
        if self.signals > 0 {
            standing.push_str(", ");
            standing.push_str(&plural(self.signals, "edit signal", "edit signals"));
        }
        format!(
            "- {} (suggested, not yet established; {standing}): {}\n",
            self.id, self.line
        )
    }
}

impl NoteLine {
    /// The markdown list item as it reads at `at`: a rule kept for here or above, or the
    /// wording that stays because a rename was held elsewhere.
    pub fn markdown(&self, at: &str) -> String {
        let whose = if applies(&self.path, at) {
            if self.path.is_empty() {
                "kept for the whole project".to_owned()
            } else {
                format!("kept for `{}`", self.path)
            }
        } else {
            format!("rename held to `{}`", self.path)
        };
        format!("- {} ({whose}): {}\n", self.id, self.line)
    }
}

fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Appends a markdown section of the context and search answers: `## title`, each item's
/// line (`line` ends it with a newline), a blank line; nothing when `items` is empty.
pub(crate) fn push_section<T>(
    out: &mut String,
    title: &str,
    items: &[T],
    line: impl Fn(&T) -> String,
) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("## {title}\n\n"));
    for item in items {
        out.push_str(&line(item));
    }
    out.push('\n');
}

fn rank(entry: &TermEntry) -> u8 {
    use kapi_core::governance::TermStatus::*;
    match entry.status {
        Competitor => 0,
        Forbidden => 1,
        Deprecated => 2,
        Preferred => 3,
        Admitted => 4,
        Suggested => 5,
    }
}

impl ContextAnswer {
    /// The markdown brief (the bytes `context://PATH` serves).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        self.point_markdown(&mut out);
        self.terms_markdown(&mut out);
        if !self.windows.is_empty() {
            out.push_str("## Governance windows\n\n");
            for w in &self.windows {
                let mut line = format!("- `{}`", w.profile);
                if let Some(from) = &w.valid_from {
                    line.push_str(&format!(" from {from}"));
                }
                if let Some(to) = &w.valid_to {
                    line.push_str(&format!(" until {to}"));
                }
                line.push_str(&format!(" ({})", w.state));
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        self.notes_markdown(&mut out);
        out.push_str(&self.surface.pick(
            "Check your changes with `kapi check PATH`.\n",
            "Check your changes with `check_file`.\n",
        ));
        out
    }

    /// The title, the point, the language and fingerprint, and the voice guide.
    fn point_markdown(&self, out: &mut String) {
        let title = self
            .point
            .path
            .clone()
            .or_else(|| self.point.profile.clone().map(|p| format!("profile {p}")));
        out.push_str(&format!(
            "# Context at {}\n\n",
            title.unwrap_or_else(|| "this project".into())
        ));
        if self.scope == "none" {
            out.push_str("No kapi project governs this location.\n");
        } else if self.point.default {
            out.push_str(
                "This location sits at the project's default point: no profile claims it.\n",
            );
        } else {
            let mut line = format!("Point `{}`", self.point.reference);
            let mut parts = Vec::new();
            if let Some(p) = &self.point.profile {
                parts.push(format!("profile `{p}`"));
            }
            if let Some(c) = &self.point.channel {
                parts.push(format!("channel `{c}`"));
            }
            if let Some(c) = &self.point.collection {
                parts.push(format!("collection `{c}`"));
            }
            if !parts.is_empty() {
                line.push_str(": ");
                line.push_str(&parts.join(", "));
            }
            out.push_str(&line);
            out.push_str(".\n");
        }
        out.push_str(&format!(
            "Language `{}`. Governance fingerprint `{}`.\n",
            self.point.language, self.fingerprint
        ));
        if let Some(voice) = &self.voice {
            out.push_str(&format!(
                "Voice `{}`, bound by `{}` ({}).\n\n",
                voice.name, voice.field, voice.source
            ));
            out.push_str(&demote(&voice.guide));
            if !voice.guide.ends_with('\n') {
                out.push('\n');
            }
        }
        out.push('\n');
    }

    /// The terms to avoid, then the terms to use.
    fn terms_markdown(&self, out: &mut String) {
        if !self.terms.avoid.is_empty() {
            out.push_str("## Terms to avoid\n\n");
            for t in &self.terms.avoid {
                let mut line = format!("- ~~{}~~", t.text);
                if let Some(r) = &t.replacement {
                    line.push_str(&format!(" → say **{r}**"));
                }
                line.push_str(&format!(" ({}, {})", t.lang, t.status.as_str()));
                if let Some(n) = &t.note {
                    line.push_str(&format!(" — {n}"));
                }
                push_exceptions(&mut line, t);
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        if !self.terms.use_.is_empty() {
            out.push_str("## Terms to use\n\n");
            for t in &self.terms.use_ {
                let mut line = format!("- **{}** ({}, {})", t.text, t.lang, t.status.as_str());
                if let Some(n) = t.note.as_ref().or(t.definition.as_ref()) {
                    line.push_str(&format!(" — {n}"));
                }
                if t.case_sensitive {
                    line.push_str(" (case as written)");
                }
                push_exceptions(&mut line, t);
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
    }

    /// The kept notes, the pending suggestions and the answer's own notes.
    fn notes_markdown(&self, out: &mut String) {
        let at = self
            .point
            .path
            .as_deref()
            .map(normal_path)
            .unwrap_or_default();
        push_section(out, "Notes kept for this location", &self.kept_notes, |n| {
            n.markdown(&at)
        });
        push_section(
            out,
            "Pending suggestions (not established)",
            &self.pending,
            PendingLine::markdown,
        );
        push_section(out, "Notes", &self.notes, |n| format!("- {n}\n"));
    }
}

/// `; allowed in `ReactJS Day`, `ReactJS Conf`` after a term line that has exceptions.
fn push_exceptions(line: &mut String, term: &TermEntry) {
    if term.exceptions.is_empty() {
        return;
    }
    let phrases: Vec<String> = term
        .exceptions
        .iter()
        .map(|e| format!("`{}`", e.text))
        .collect();
    line.push_str(&format!("; allowed in {}", phrases.join(", ")));
}

/// Demotes every markdown heading one level, leaving fenced code alone.
fn demote(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len() + 16);
    let mut fenced = false;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_section_writes_a_titled_list_or_nothing() {
        let mut out = String::new();
        push_section(&mut out, "Empty", &[] as &[&str], |n| format!("- {n}\n"));
        assert_eq!(out, "");
        push_section(&mut out, "Notes", &["a", "b"], |n| format!("- {n}\n"));
        assert_eq!(out, "## Notes\n\n- a\n- b\n\n");
    }

    #[test]
    fn demote_adds_one_level_outside_fences() {
        assert_eq!(
            demote("# A\n```\n# not\n```\n## B\n"),
            "## A\n```\n# not\n```\n### B\n"
        );
    }

    fn notes(text: &str) -> NotesFile {
        NotesFile::parse(text, NOTES_FILE).unwrap()
    }

    fn lines(file: &NotesFile, path: &str) -> Vec<(String, String)> {
        kept_lines(file, path)
            .into_iter()
            .map(|l| (l.id, l.line))
            .collect()
    }

    #[test]
    fn a_rename_held_to_a_folder_stays_out_of_its_siblings() {
        let file = notes(
            "version: v1\nnotes:\n  - {id: n1, text: Keep it short.}\n  - {id: n3, path: help, from: Workspace, to: Space}\n  - {id: n4, path: docs/guides, from: login, to: sign in}\n",
        );
        let rule = |id: &str, line: &str| (id.to_owned(), line.to_owned());
        let short = rule("n1", "Keep it short.");
        let space = rule("n3", "Write \"Space\", not \"Workspace\".");
        let stays = rule(
            "n3",
            "\"Workspace\" is correct here; do not rename it to \"Space\".",
        );
        let login = rule("n4", "Write \"sign in\", not \"login\".");
        let login_stays = rule(
            "n4",
            "\"login\" is correct here; do not rename it to \"sign in\".",
        );
        assert_eq!(lines(&file, "help/a.md"), [short.clone(), space]);
        assert_eq!(lines(&file, "api/x.md"), [short.clone(), stays.clone()]);
        assert_eq!(lines(&file, "README.md"), [short.clone(), stays.clone()]);
        // The root holds the folder whose rename it is: no line says the old word stays there.
        assert_eq!(lines(&file, ""), std::slice::from_ref(&short));
        assert_eq!(lines(&file, "helpers/a.md"), [short.clone(), stays.clone()]);
        assert_eq!(
            lines(&file, "docs/api/b.md"),
            [short.clone(), stays.clone(), login_stays]
        );
        assert_eq!(lines(&file, "docs"), [short.clone(), stays.clone()]);
        assert_eq!(lines(&file, "./docs/guides/c.md"), [short, login, stays]);
    }

    #[test]
    fn a_rename_that_also_holds_here_states_no_stays_line() {
        let file = notes(
            "version: v1\nnotes:\n  - {id: n3, path: help, from: Workspace, to: Space}\n  - {id: n7, path: api, from: workspace, to: Area}\n  - {id: n8, path: guide, from: Workspace, to: Space}\n",
        );
        let got = lines(&file, "api/x.md");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "n7");
        // Two folders holding the same rename give their siblings the line once.
        let ids: Vec<String> = lines(&file, "blog/x.md").into_iter().map(|l| l.0).collect();
        assert_eq!(ids, ["n3", "n7"]);
    }
}
