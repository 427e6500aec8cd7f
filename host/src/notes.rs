//! Context that grows: notes assistants record (`kapi context note`), the log of context
//! operations, and a person's review (keep, drop, widen), reset and sync. One function per
//! verb, shared by the CLI and (later) MCP.
//!
//! Choices where the design is silent:
//! - A note's path must exist in the project (a typo would scope a note to nothing); it is
//!   stored project-relative, `/`-separated, the root as empty.
//! - A note holds at most [`MAX_NOTE_CHARS`] characters per field; a longer one is refused, not
//!   cut, so nothing is recorded that the assistant did not write.
//! - Widening moves a note to a parent folder (or the root) and keeps it there.
//! - Keeping a person's change (`from` → `to`) held at the root makes it a term rule in the
//!   terms file (`to`, or `suggest`, preferred; `from` deprecated with it as the replacement);
//!   held to a folder, it stays a note for that folder, so the rename does not spread.
//! - A review decides every id it names or none: an unknown or already decided id refuses the
//!   whole call.

use std::path::{Path, PathBuf};

use kapi_core::governance::TermStatus;
use kapi_core::governance::notes::{KeptNote, NotesFile, normal_path};
use kapi_core::governance::terms_edit::{self, TermUpsert};
use kapi_core::project::{Project, layout};
use kapi_core::store::{
    NewOp, NewSuggestion, OpFilter, OpRow, SessionRow, Store, Suggestion, SuggestionFilter,
};
use serde::Serialize;

use crate::Surface;
use crate::app::{Actor, App};
use crate::error::HostError;
use crate::policy::Kind;

/// The longest note field kapi records, in characters.
pub const MAX_NOTE_CHARS: usize = 500;
/// Where kept notes live.
pub use crate::context::NOTES_FILE;

/// `kapi context note`.
#[derive(Debug, Clone, Default)]
pub struct NoteRequest {
    pub text: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub suggest: Option<String>,
    pub path: Option<PathBuf>,
    /// Take back this note (same session only).
    pub withdraw: Option<String>,
}

/// What a note call did.
#[derive(Debug, Clone, Serialize)]
pub struct NoteAnswer {
    pub schema: &'static str,
    /// `recorded` (a new suggestion), `evidence` (the same observation again) or `withdrawn`.
    pub status: &'static str,
    pub suggestion: Suggestion,
    pub message: String,
}

fn usage(message: impl Into<String>, hint: impl Into<String>) -> HostError {
    HostError::Usage {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

/// Refuses a sender kapi does not know; the verbs for assistants are open to every known kind.
fn known(actor: &Actor) -> Result<Kind, HostError> {
    Kind::of(actor).ok_or_else(|| HostError::NotPermitted {
        message: format!(
            "the sender `{}:{}` is not a person, an agent or a tool",
            actor.kind, actor.name
        ),
        instead: "set KAPI_ACTOR to `person`, `agent:NAME` or `tool:NAME`".into(),
    })
}

/// Refuses anyone but a person, before anything changes, naming the person's command.
pub fn person_only(actor: &Actor, verb: &str) -> Result<(), HostError> {
    match known(actor)? {
        Kind::Person => Ok(()),
        _ => Err(HostError::NotPermitted {
            message: format!(
                "`kapi context {verb}` is a person's: an {} cannot {verb} context",
                actor.kind
            ),
            instead: format!(
                "tell the person to run `kapi context {verb}`; record what you noticed with `kapi context note`"
            ),
        }),
    }
}

fn open_store(
    project: &Project,
    app: &App,
    actor: &Actor,
) -> Result<std::sync::Arc<std::sync::Mutex<Store>>, HostError> {
    let handle = app.store(&project.root.join(layout::STORE_FILE))?;
    let store = crate::app::lock(&handle)?;
    let now = app.timestamp();
    store.touch_session(&SessionRow {
        id: actor.session.clone(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        project: Some(project.root.display().to_string()),
        // An MCP session's note keeps the client's name on the row.
        client: Some(app.client_name()),
        started_at: now.clone(),
        last_seen: now,
    })?;
    drop(store);
    Ok(handle)
}

pub(crate) fn op(
    actor: &Actor,
    kind: &str,
    path: Option<String>,
    payload: serde_json::Value,
    at: &str,
) -> NewOp {
    NewOp {
        kind: kind.into(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        session: actor.session.clone(),
        path,
        payload,
        status: "applied".into(),
        created_at: at.to_owned(),
    }
}

fn field(
    surface: Surface,
    name: &str,
    value: &Option<String>,
) -> Result<Option<String>, HostError> {
    let Some(v) = value else { return Ok(None) };
    let v = v.trim();
    if v.is_empty() {
        return Err(usage(
            format!("{} is empty", surface.field(name)),
            format!(
                "say what the files do, in a sentence ({} \"Writes 'Workspace', never 'Space'\")",
                surface.field("text")
            ),
        ));
    }
    let n = v.chars().count();
    if n > MAX_NOTE_CHARS {
        return Err(usage(
            format!(
                "{} has {n} characters; a note holds at most {MAX_NOTE_CHARS}",
                surface.field(name)
            ),
            "record one observation per note, in a sentence",
        ));
    }
    Ok(Some(v.to_owned()))
}

/// Records a note, or withdraws one the same session recorded.
pub fn note(app: &App, request: &NoteRequest) -> Result<NoteAnswer, HostError> {
    let actor = app.actor();
    known(&actor)?;
    let project = app.require_project()?;
    if let Some(id) = &request.withdraw {
        return withdraw(app, &project, &actor, id);
    }
    let s = app.surface;
    let Some(path) = &request.path else {
        return Err(usage(
            format!(
                "a note needs {}: the folder or file it was seen in",
                s.field("path")
            ),
            s.pick(
                "a note applies there and below: `kapi context note --path docs/help --text …`",
                "a note applies there and below: `{\"path\": \"docs/help\", \"text\": …}`",
            ),
        ));
    };
    let rel = normal_path(&app.project_relative(&project, path)?);
    if !project.root.join(&rel).exists() {
        return Err(HostError::NoSuchPath { path: path.clone() });
    }
    let text = field(s, "text", &request.text)?;
    let from = field(s, "from", &request.from)?;
    let to = field(s, "to", &request.to)?;
    let suggest = field(s, "suggest", &request.suggest)?;
    let (f_from, f_to, f_text) = (s.field("from"), s.field("to"), s.field("text"));
    let kind = match (&text, &from, &to) {
        (_, Some(f), Some(t)) => {
            if f == t {
                return Err(usage(
                    format!("{f_from} and {f_to} are the same"),
                    format!(
                        "record what the person changed: the words before ({f_from}) and after ({f_to})"
                    ),
                ));
            }
            "change"
        }
        (_, Some(_), None) | (_, None, Some(_)) => {
            return Err(usage(
                format!("a person's change needs both {f_from} and {f_to}"),
                s.pick(
                    "`kapi context note --path help --from Workspace --to Space`",
                    "`{\"path\": \"help\", \"from\": \"Workspace\", \"to\": \"Space\"}`",
                ),
            ));
        }
        (Some(_), None, None) => {
            if suggest.is_some() {
                return Err(usage(
                    format!("{} goes with {f_from} and {f_to}", s.field("suggest")),
                    "name the change the suggestion is about",
                ));
            }
            "observation"
        }
        (None, None, None) => {
            return Err(usage(
                format!("a note needs {f_text}, or {f_from} and {f_to}"),
                format!(
                    "{f_text} for what the files do every time; {f_from}/{f_to} for a person's change"
                ),
            ));
        }
    };
    let now = app.timestamp();
    let handle = open_store(&project, app, &actor)?;
    let mut store = crate::app::lock(&handle)?;
    let suggestion = NewSuggestion {
        kind: kind.into(),
        path: rel.clone(),
        text: text.clone(),
        from: from.clone(),
        to: to.clone(),
        suggest: suggest.clone(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        session: actor.session.clone(),
        at: now.clone(),
    };
    let payload =
        serde_json::json!({"kind": kind, "text": text, "from": from, "to": to, "suggest": suggest});
    let noted = store.note(
        &suggestion,
        op(&actor, "note", Some(rel.clone()), payload, &now),
    )?;
    let id = noted.suggestion.id.clone();
    Ok(NoteAnswer {
        schema: "kapi.note/v1",
        status: if noted.new { "recorded" } else { "evidence" },
        message: if noted.new {
            format!(
                "recorded {id} for `{}` as a suggestion; a person reviews it (`kapi context review`)",
                shown(&rel)
            )
        } else {
            format!(
                "{id} already says this; added evidence ({} notes now)",
                noted.suggestion.evidence
            )
        },
        suggestion: noted.suggestion,
    })
}

fn shown(rel: &str) -> &str {
    if rel.is_empty() { "." } else { rel }
}

fn withdraw(
    app: &App,
    project: &Project,
    actor: &Actor,
    id: &str,
) -> Result<NoteAnswer, HostError> {
    let handle = open_store(project, app, actor)?;
    let mut store = crate::app::lock(&handle)?;
    let Some(found) = store.suggestion(id)? else {
        return Err(usage(
            format!("no note `{id}`"),
            app.surface.pick(
                "`kapi context log --session this` lists what this session recorded",
                "`context_session_summary` lists what this session recorded",
            ),
        ));
    };
    if found.session != actor.session {
        return Err(HostError::NotPermitted {
            message: format!(
                "{id} was recorded by another session ({}:{}, {}); a note is withdrawn only by the session that recorded it",
                found.actor_kind, found.actor_name, found.session
            ),
            instead: "record what you noticed with a new note; a person drops the other in `kapi context review`".into(),
        });
    }
    if found.status != "pending" {
        return Err(usage(
            format!("{id} is already {}; nothing changed", found.status),
            "only a pending note can be withdrawn",
        ));
    }
    let now = app.timestamp();
    let payload = serde_json::json!({"suggestion": id});
    let done = store.decide_suggestion(
        id,
        "withdrawn",
        None,
        &format!("{}:{}", actor.kind, actor.name),
        &now,
        &op(actor, "withdraw", Some(found.path.clone()), payload, &now),
    )?;
    if !done {
        return Err(usage(
            format!("{id} is no longer pending; nothing changed"),
            "read it again with `kapi context log`",
        ));
    }
    let suggestion = store.suggestion(id)?.unwrap_or(found);
    Ok(NoteAnswer {
        schema: "kapi.note/v1",
        status: "withdrawn",
        message: format!("withdrew {id}"),
        suggestion,
    })
}

/// `kapi context log`.
#[derive(Debug, Clone, Default)]
pub struct LogRequest {
    /// `this` (the calling session) or a session id.
    pub session: Option<String>,
    /// RFC 3339, a date (`2026-11-29`), or an age (`30m`, `2h`, `7d`).
    pub since: Option<String>,
    pub kind: Option<String>,
}

/// One logged operation.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub id: i64,
    pub kind: String,
    pub actor: String,
    pub session: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The suggestion it concerns, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// What was recorded (the operation's payload).
    pub evidence: serde_json::Value,
    /// The operation's status; for a note, its suggestion's status now.
    pub status: String,
    pub at: String,
}

/// The log.
#[derive(Debug, Clone, Serialize)]
pub struct Log {
    pub schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub entries: Vec<LogEntry>,
}

fn since(app: &App, raw: &str) -> Result<String, HostError> {
    let raw = raw.trim();
    if let Ok(ts) = raw.parse::<jiff::Timestamp>() {
        return Ok(ts.to_string());
    }
    if raw.parse::<jiff::civil::Date>().is_ok()
        && let Ok(ts) = format!("{raw}T00:00:00Z").parse::<jiff::Timestamp>()
    {
        return Ok(ts.to_string());
    }
    let (num, unit) = raw.split_at(raw.len().saturating_sub(1));
    let secs: Option<i64> = num.parse::<i64>().ok().and_then(|n| match unit {
        "m" => Some(n * 60),
        "h" => Some(n * 3600),
        "d" => Some(n * 86400),
        _ => None,
    });
    match secs.and_then(|s| app.now.checked_sub(jiff::SignedDuration::from_secs(s)).ok()) {
        Some(ts) => Ok(ts.to_string()),
        None => Err(usage(
            format!("`--since {raw}` is not a time"),
            "give an RFC 3339 time, a date (2026-11-29) or an age (30m, 2h, 7d)",
        )),
    }
}

/// Lists context operations, oldest first.
pub fn log(app: &App, request: &LogRequest) -> Result<Log, HostError> {
    let actor = app.actor();
    let project = app.require_project()?;
    let session = match request.session.as_deref() {
        Some("this") => Some(actor.session.clone()),
        other => other.map(str::to_owned),
    };
    let filter = OpFilter {
        session: session.clone(),
        kind: request.kind.clone(),
        since: match &request.since {
            Some(s) => Some(since(app, s)?),
            None => None,
        },
    };
    let path = project.root.join(layout::STORE_FILE);
    if !path.exists() {
        return Ok(Log {
            schema: "kapi.context-log/v1",
            session,
            entries: Vec::new(),
        });
    }
    let handle = app.store(&path)?;
    let store = crate::app::lock(&handle)?;
    let ops: Vec<OpRow> = store.ops(&filter)?;
    let mut entries = Vec::with_capacity(ops.len());
    for row in ops {
        let suggestion = row
            .payload
            .get("suggestion")
            .and_then(|v| v.as_str())
            .map(str::to_owned);
        let status = match (&suggestion, row.kind.as_str()) {
            (Some(id), "note") => store
                .suggestion(id)?
                .map_or(row.status.clone(), |s| s.status),
            _ => row.status.clone(),
        };
        entries.push(LogEntry {
            id: row.id,
            kind: row.kind,
            actor: format!("{}:{}", row.actor_kind, row.actor_name),
            session: row.session,
            path: row.path,
            suggestion,
            evidence: row.payload,
            status,
            at: row.created_at,
        });
    }
    Ok(Log {
        schema: "kapi.context-log/v1",
        session,
        entries,
    })
}

/// `kapi context review` decisions.
#[derive(Debug, Clone, Default)]
pub struct ReviewRequest {
    pub keep: Vec<String>,
    pub drop: Vec<String>,
    /// (id, path): keep the note at a parent folder.
    pub widen: Vec<(String, String)>,
}

/// One decision made.
#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    pub id: String,
    /// `kept`, `dropped` or `widened`.
    pub decision: &'static str,
    pub path: String,
    /// Where it landed: `.kapi/notes.yaml` or the terms file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<String>,
    pub line: String,
}

/// What a review did, and what is still pending.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub schema: &'static str,
    pub decided: Vec<Decided>,
    pub pending: Vec<Suggestion>,
    /// Rules files written (after a keep).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules_files: Vec<String>,
}

/// The line a suggestion would give as a rule.
pub fn suggestion_line(s: &Suggestion) -> String {
    as_note(s, &s.path).rule_line()
}

fn as_note(s: &Suggestion, path: &str) -> KeptNote {
    KeptNote {
        id: s.id.clone(),
        path: path.to_owned(),
        text: s.text.clone(),
        from: s.from.clone(),
        to: s.to.clone(),
        suggest: s.suggest.clone(),
        kept_by: None,
        kept_at: None,
    }
}

/// The pending suggestions, grouped by path (for a review listing).
pub fn pending(app: &App) -> Result<Vec<Suggestion>, HostError> {
    let project = app.require_project()?;
    let path = project.root.join(layout::STORE_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let handle = app.store(&path)?;
    let store = crate::app::lock(&handle)?;
    Ok(store.suggestions(&SuggestionFilter {
        status: Some("pending".into()),
        session: None,
    })?)
}

/// Reads `.kapi/notes.yaml` (an absent file is no notes).
pub fn read_notes(root: &Path) -> Result<NotesFile, HostError> {
    let path = root.join(NOTES_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(NotesFile::parse(&text, NOTES_FILE)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(NotesFile {
            version: "v1".into(),
            notes: Vec::new(),
        }),
        Err(e) => Err(HostError::io(&path, e)),
    }
}

/// kapi's one atomic write ([`kapi_core::change::stage::write_one`]), its error naming the file.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), HostError> {
    kapi_core::change::stage::write_one(path, text.as_bytes()).map_err(|e| HostError::io(path, e))
}

/// Keeps, drops and widens suggestions (a person only). Every id is checked before anything
/// changes; kept notes land in `.kapi/notes.yaml` (or, for a change held at the root, the
/// terms file), and the rules files are refreshed after a keep.
pub fn review(app: &App, request: &ReviewRequest) -> Result<Review, HostError> {
    let actor = app.actor();
    person_only(&actor, "review")?;
    let project = app.require_project()?;
    let handle = open_store(&project, app, &actor)?;
    let mut store = crate::app::lock(&handle)?;
    // Check every id first: known, pending, named once; a widen goes to a parent.
    let mut seen = std::collections::HashSet::new();
    let mut plan: Vec<(Suggestion, &'static str, String)> = Vec::new();
    let named = request
        .keep
        .iter()
        .map(|id| (id.clone(), "kept", None))
        .chain(request.drop.iter().map(|id| (id.clone(), "dropped", None)))
        .chain(
            request
                .widen
                .iter()
                .map(|(id, p)| (id.clone(), "widened", Some(p.clone()))),
        );
    for (id, decision, widen) in named {
        let Some(s) = store.suggestion(&id)? else {
            return Err(usage(
                format!("no suggestion `{id}`; nothing changed"),
                "`kapi context review` lists the pending ones",
            ));
        };
        if !seen.insert(s.id.clone()) {
            return Err(usage(
                format!("{id} is named twice; nothing changed"),
                "decide each suggestion once",
            ));
        }
        if s.status != "pending" {
            return Err(usage(
                format!(
                    "{id} was already {}{}; nothing changed",
                    s.status,
                    s.decided_at
                        .as_deref()
                        .map(|at| format!(" ({at})"))
                        .unwrap_or_default()
                ),
                "`kapi context review` lists the pending ones",
            ));
        }
        let path = match widen {
            Some(p) => {
                let wider = normal_path(&app.project_relative(&project, Path::new(&p))?);
                if !kapi_core::governance::notes::applies(&wider, &s.path) || wider == s.path {
                    return Err(usage(
                        format!(
                            "`{p}` is not a folder above `{}`; nothing changed",
                            shown(&s.path)
                        ),
                        "widen a note to a parent folder, or to `.` for the whole project",
                    ));
                }
                wider
            }
            None => s.path.clone(),
        };
        plan.push((s, decision, path));
    }
    let now = app.timestamp();
    let by = format!("{}:{}", actor.kind, actor.name);
    let mut notes = read_notes(&project.root)?;
    let mut terms_text: Option<(PathBuf, String, String)> = None;
    let mut decided = Vec::new();
    // Render every kept note first, so a terms file that cannot take one refuses the review.
    for (s, decision, path) in &plan {
        if *decision == "dropped" {
            continue;
        }
        let mut kept = as_note(s, path);
        kept.kept_by = Some(by.clone());
        kept.kept_at = Some(now.clone());
        let line = kept.rule_line();
        let landed = if s.kind == "change" && path.is_empty() {
            let rel = project
                .recipe
                .defaults
                .terms_source
                .clone()
                .unwrap_or_else(|| layout::TERMS_FILE.to_owned());
            let abs = project.root.join(&rel);
            let mut text = match &terms_text {
                Some((_, _, t)) => Some(t.clone()),
                None => match std::fs::read_to_string(&abs) {
                    Ok(t) => Some(t),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(HostError::io(&abs, e)),
                },
            };
            let lang = project
                .recipe
                .defaults
                .source_language
                .clone()
                .unwrap_or_else(|| "en".into());
            let preferred = kept.preferred().unwrap_or_default().to_owned();
            let from = s.from.clone().unwrap_or_default();
            for term in [
                TermUpsert {
                    text: preferred.clone(),
                    lang: lang.clone(),
                    status: TermStatus::Preferred,
                    concept: None,
                    replaces: Some(from.clone()),
                    replacement: None,
                    note: None,
                    case: None,
                    severity: None,
                    definition: None,
                },
                TermUpsert {
                    text: from.clone(),
                    lang: lang.clone(),
                    status: TermStatus::Deprecated,
                    concept: None,
                    replaces: Some(preferred.clone()),
                    replacement: Some(preferred.clone()),
                    note: s.text.clone(),
                    case: None,
                    severity: None,
                    definition: None,
                },
            ] {
                let (next, _) = terms_edit::upsert(text.as_deref(), &rel, &term).map_err(|e| {
                    usage(
                        format!("{}: {e}; nothing changed", s.id),
                        "fix the terms file, or keep the note for a folder instead of the root",
                    )
                })?;
                text = Some(next);
            }
            terms_text = Some((abs, rel.clone(), text.unwrap_or_default()));
            rel
        } else {
            notes.notes.retain(|n| n.id != kept.id);
            notes.notes.push(kept);
            NOTES_FILE.to_owned()
        };
        decided.push(Decided {
            id: s.id.clone(),
            decision,
            path: path.clone(),
            landed: Some(landed),
            line,
        });
    }
    // Write the committed files, then record the decisions.
    let kept_any = !decided.is_empty();
    if let Some((abs, _, text)) = &terms_text {
        write_atomic(abs, text)?;
    }
    if decided
        .iter()
        .any(|d| d.landed.as_deref() == Some(NOTES_FILE))
    {
        notes
            .notes
            .sort_by(|a, b| (&a.path, &a.id).cmp(&(&b.path, &b.id)));
        write_atomic(&project.root.join(NOTES_FILE), &notes.to_text())?;
    }
    for (s, decision, path) in &plan {
        let status = if *decision == "dropped" {
            "dropped"
        } else {
            "kept"
        };
        let payload = serde_json::json!({"suggestion": s.id, "decision": decision, "path": path});
        let kind = match *decision {
            "dropped" => "drop",
            "widened" => "widen",
            _ => "keep",
        };
        let widened = (*decision == "widened").then_some(path.as_str());
        store.decide_suggestion(
            &s.id,
            status,
            widened,
            &by,
            &now,
            &op(&actor, kind, Some(path.clone()), payload, &now),
        )?;
        if *decision == "dropped" {
            decided.push(Decided {
                id: s.id.clone(),
                decision,
                path: path.clone(),
                landed: None,
                line: suggestion_line(s),
            });
        }
    }
    let rules_files = if kept_any {
        refresh_rules(app, &project)?
    } else {
        Vec::new()
    };
    let pending = store.suggestions(&SuggestionFilter {
        status: Some("pending".into()),
        session: None,
    })?;
    Ok(Review {
        schema: "kapi.review/v1",
        decided,
        pending,
        rules_files,
    })
}

/// Adds kept notes to `.kapi/notes.yaml` (replacing any with the same id) and refreshes the
/// rules files; returns the rules files written or removed.
pub fn keep(app: &App, project: &Project, kept: Vec<KeptNote>) -> Result<Vec<String>, HostError> {
    let mut notes = read_notes(&project.root)?;
    for k in kept {
        notes.notes.retain(|n| n.id != k.id);
        notes.notes.push(k);
    }
    notes
        .notes
        .sort_by(|a, b| (&a.path, &a.id).cmp(&(&b.path, &b.id)));
    write_atomic(&project.root.join(NOTES_FILE), &notes.to_text())?;
    refresh_rules(app, project)
}

/// Rewrites the rules files from the kept state; returns the files written or removed.
pub fn refresh_rules(app: &App, project: &Project) -> Result<Vec<String>, HostError> {
    let notes = read_notes(&project.root)?;
    let plan = crate::rules::plan(app, project, &notes)?;
    let report = crate::rules::sync(&project.root, &plan)?;
    Ok(report.written.into_iter().chain(report.removed).collect())
}

/// What `reset` did.
#[derive(Debug, Clone, Serialize)]
pub struct Reset {
    pub schema: &'static str,
    pub cleared: usize,
}

/// Clears every pending suggestion (a person only; the CLI asks first).
pub fn reset(app: &App) -> Result<Reset, HostError> {
    let actor = app.actor();
    person_only(&actor, "reset")?;
    let project = app.require_project()?;
    let handle = open_store(&project, app, &actor)?;
    let mut store = crate::app::lock(&handle)?;
    let now = app.timestamp();
    let cleared = store.clear_pending(
        &format!("{}:{}", actor.kind, actor.name),
        &now,
        &op(&actor, "reset", None, serde_json::json!({}), &now),
    )?;
    Ok(Reset {
        schema: "kapi.reset/v1",
        cleared,
    })
}

/// What `sync` did.
#[derive(Debug, Serialize)]
pub struct Sync {
    pub schema: &'static str,
    pub report: crate::rules::SyncReport,
    /// Kept notes the store held that `.kapi/notes.yaml` lacked, written back (not with
    /// `--files-only`).
    pub restored: Vec<String>,
}

/// Rewrites the rules files (and, unless `files_only`, `.kapi/notes.yaml` from the kept
/// state) — a person only.
pub fn sync(app: &App, files_only: bool) -> Result<Sync, HostError> {
    let actor = app.actor();
    person_only(&actor, "sync")?;
    let project = app.require_project()?;
    let mut notes = read_notes(&project.root)?;
    let mut restored = Vec::new();
    let store_path = project.root.join(layout::STORE_FILE);
    if !files_only && store_path.exists() {
        let handle = app.store(&store_path)?;
        let store = crate::app::lock(&handle)?;
        for s in store.suggestions(&SuggestionFilter {
            status: Some("kept".into()),
            session: None,
        })? {
            // A change kept at the root became a term rule, not a note.
            if s.kind == "change" && s.path.is_empty() {
                continue;
            }
            if !notes.notes.iter().any(|n| n.id == s.id) {
                let mut kept = as_note(&s, &s.path);
                kept.kept_by = s.decided_by.clone();
                kept.kept_at = s.decided_at.clone();
                restored.push(s.id.clone());
                notes.notes.push(kept);
            }
        }
        if !restored.is_empty() {
            notes
                .notes
                .sort_by(|a, b| (&a.path, &a.id).cmp(&(&b.path, &b.id)));
            write_atomic(&project.root.join(NOTES_FILE), &notes.to_text())?;
        }
    }
    let plan = crate::rules::plan(app, &project, &notes)?;
    let report = crate::rules::sync(&project.root, &plan)?;
    Ok(Sync {
        schema: "kapi.sync/v1",
        report,
        restored,
    })
}

/// Adds an agent signal to each pending change suggestion whose preferred form an applied
/// edit wrote (more of it after than before) at a path it applies to.
pub fn signal_edits(store: &Store, edits: &[(String, String, String)]) -> Result<(), HostError> {
    if edits.is_empty() {
        return Ok(());
    }
    let pending = store.suggestions(&SuggestionFilter {
        status: Some("pending".into()),
        session: None,
    })?;
    let mut ids = Vec::new();
    for s in &pending {
        let Some(form) = s.suggest.as_deref().or(s.to.as_deref()) else {
            continue;
        };
        let hit = edits.iter().any(|(doc, before, after)| {
            kapi_core::governance::notes::applies(&s.path, doc)
                && after.matches(form).count() > before.matches(form).count()
        });
        if hit && let Some(n) = kapi_core::store::parse_suggestion_id(&s.id) {
            ids.push(n);
        }
    }
    Ok(store.add_signals(&ids)?)
}
