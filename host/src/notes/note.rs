//! `kapi context note`: what an assistant records (an observation, or a person's change) as a
//! pending suggestion, its withdrawal by the same session, and the signals applied edits add.

use std::path::PathBuf;

use kapi_core::governance::notes::normal_path;
use kapi_core::project::Project;
use kapi_core::store::{NewSuggestion, Store, Suggestion, SuggestionFilter};
use serde::Serialize;

use super::{MAX_NOTE_CHARS, known, op, open_store, shown, usage};
use crate::Surface;
use crate::app::{Actor, App};
use crate::error::HostError;

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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NoteAnswer {
    pub schema: &'static str,
    /// `recorded` (a new suggestion), `evidence` (the same observation again) or `withdrawn`.
    pub status: &'static str,
    pub suggestion: Suggestion,
    pub message: String,
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
    // Inside the project (whether or not it exists), then a path that exists.
    let rel = normal_path(app.resolve_in(&project, path)?.rel().unwrap_or_default());
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
