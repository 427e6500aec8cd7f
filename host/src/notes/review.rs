//! `kapi context review`: a person keeps, drops and widens pending suggestions — every id
//! checked first, kept notes landed in `.kapi/notes.yaml` or the terms file, then recorded.

use std::path::{Path, PathBuf};

use kapi_core::governance::TermStatus;
use kapi_core::governance::notes::{KeptNote, NotesFile, normal_path};
use kapi_core::governance::terms_edit::{self, TermUpsert};
use kapi_core::project::{Project, layout};
use kapi_core::store::{Store, Suggestion, SuggestionFilter};
use serde::Serialize;

use super::kept::{as_note, read_notes, refresh_rules, write_atomic, write_notes};
use super::{NOTES_FILE, op, open_store, person_only, shown, usage};
use crate::app::{Actor, App, Base};
use crate::error::HostError;

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

/// Keeps, drops and widens suggestions (a person only). Every id is checked before anything
/// changes; kept notes land in `.kapi/notes.yaml` (or, for a change held at the root, the
/// terms file), and the rules files are refreshed after a keep.
pub fn review(app: &App, request: &ReviewRequest) -> Result<Review, HostError> {
    let actor = app.actor();
    person_only(&actor, "review")?;
    let project = app.require_project()?;
    let handle = open_store(&project, app, &actor)?;
    let mut store = crate::app::lock(&handle)?;
    let plan = check_named(app, &project, &store, request)?;
    let now = app.timestamp();
    let by = format!("{}:{}", actor.kind, actor.name);
    let mut landing = land_kept(&project, &plan, &by, &now)?;
    // Write the committed files, then record the decisions.
    let kept_any = !landing.decided.is_empty();
    write_landing(&project, &mut landing)?;
    let mut decided = landing.decided;
    record_decisions(&mut store, &actor, &plan, &by, &now, &mut decided)?;
    let rules_files = if kept_any {
        refresh_rules(app, &project)?.changed()
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

/// One suggestion a review decides: `kept`, `dropped` or `widened`, and the path it holds at.
struct Planned {
    suggestion: Suggestion,
    decision: &'static str,
    path: String,
}

/// Checks every id the request names, before anything changes: known, pending, named once; a
/// widen goes to a parent folder.
fn check_named(
    app: &App,
    project: &Project,
    store: &Store,
    request: &ReviewRequest,
) -> Result<Vec<Planned>, HostError> {
    let mut seen = std::collections::HashSet::new();
    let mut plan = Vec::new();
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
            Some(p) => widened_to(app, project, &s, &p)?,
            None => s.path.clone(),
        };
        plan.push(Planned {
            suggestion: s,
            decision,
            path,
        });
    }
    Ok(plan)
}

/// The folder `p` names, project-relative, when it lies above the suggestion's path.
fn widened_to(app: &App, project: &Project, s: &Suggestion, p: &str) -> Result<String, HostError> {
    let wider = app.resolve_target(Base::Project, Some(project), Path::new(p))?;
    let wider = normal_path(wider.rel().unwrap_or_default());
    if !kapi_core::governance::notes::applies(&wider, &s.path) || wider == s.path {
        return Err(usage(
            format!(
                "`{p}` is not a folder above `{}`; nothing changed",
                shown(&s.path)
            ),
            "widen a note to a parent folder, or to `.` for the whole project",
        ));
    }
    Ok(wider)
}

/// The kept notes rendered into the files they land in, before any is written.
struct Landing {
    /// `.kapi/notes.yaml` with the kept notes in it.
    notes: NotesFile,
    /// The terms file (absolute path, new text) when a change was kept at the root.
    terms: Option<(PathBuf, String)>,
    /// One decision per kept or widened suggestion, in the plan's order.
    decided: Vec<Decided>,
}

/// Renders every kept note first, so a terms file that cannot take one refuses the review.
fn land_kept(
    project: &Project,
    plan: &[Planned],
    by: &str,
    now: &str,
) -> Result<Landing, HostError> {
    let mut landing = Landing {
        notes: read_notes(&project.root)?,
        terms: None,
        decided: Vec::new(),
    };
    for p in plan {
        if p.decision == "dropped" {
            continue;
        }
        let s = &p.suggestion;
        let mut kept = as_note(s, &p.path);
        kept.kept_by = Some(by.to_owned());
        kept.kept_at = Some(now.to_owned());
        let line = kept.rule_line();
        let landed = if s.kind == "change" && p.path.is_empty() {
            as_term_rules(project, s, &kept, &mut landing.terms)?
        } else {
            landing.notes.notes.retain(|n| n.id != kept.id);
            landing.notes.notes.push(kept);
            NOTES_FILE.to_owned()
        };
        landing.decided.push(Decided {
            id: s.id.clone(),
            decision: p.decision,
            path: p.path.clone(),
            landed: Some(landed),
            line,
        });
    }
    Ok(landing)
}

/// A change kept at the root as two term rules in the terms file (`terms`: its text so far,
/// read on first use): the preferred form, and the old one deprecated with it as the
/// replacement. Returns the terms file, project-relative.
fn as_term_rules(
    project: &Project,
    s: &Suggestion,
    kept: &KeptNote,
    terms: &mut Option<(PathBuf, String)>,
) -> Result<String, HostError> {
    let defaults = &project.recipe.defaults;
    let rel = defaults
        .terms_source
        .clone()
        .unwrap_or_else(|| layout::TERMS_FILE.to_owned());
    let abs = project.root.join(&rel);
    let mut text = match terms {
        Some((_, t)) => Some(t.clone()),
        None => match std::fs::read_to_string(&abs) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(HostError::io(&abs, e)),
        },
    };
    let lang = defaults
        .source_language
        .clone()
        .unwrap_or_else(|| "en".into());
    let preferred = kept.preferred().unwrap_or_default().to_owned();
    let from = s.from.clone().unwrap_or_default();
    let rule = |text: String, status, replaces: &str, replacement, note| TermUpsert {
        text,
        lang: lang.clone(),
        status,
        concept: None,
        replaces: Some(replaces.to_owned()),
        replacement,
        note,
        case: None,
        severity: None,
        exceptions: None,
        definition: None,
    };
    for term in [
        rule(preferred.clone(), TermStatus::Preferred, &from, None, None),
        rule(
            from.clone(),
            TermStatus::Deprecated,
            &preferred,
            Some(preferred.clone()),
            s.text.clone(),
        ),
    ] {
        let (next, _) = terms_edit::upsert(text.as_deref(), &rel, &term).map_err(|e| {
            usage(
                format!("{}: {e}; nothing changed", s.id),
                "fix the terms file, or keep the note for a folder instead of the root",
            )
        })?;
        text = Some(next);
    }
    *terms = Some((abs, text.unwrap_or_default()));
    Ok(rel)
}

/// Writes the files the kept notes landed in: the terms file, then `.kapi/notes.yaml` when a
/// note landed there.
fn write_landing(project: &Project, landing: &mut Landing) -> Result<(), HostError> {
    if let Some((abs, text)) = &landing.terms {
        write_atomic(abs, text)?;
    }
    if landing
        .decided
        .iter()
        .any(|d| d.landed.as_deref() == Some(NOTES_FILE))
    {
        write_notes(&project.root, &mut landing.notes)?;
    }
    Ok(())
}

/// Records each decision in the store (with its operation), and adds a dropped one to
/// `decided`.
fn record_decisions(
    store: &mut Store,
    actor: &Actor,
    plan: &[Planned],
    by: &str,
    now: &str,
    decided: &mut Vec<Decided>,
) -> Result<(), HostError> {
    for p in plan {
        let (s, decision, path) = (&p.suggestion, p.decision, &p.path);
        let status = if decision == "dropped" {
            "dropped"
        } else {
            "kept"
        };
        let payload = serde_json::json!({"suggestion": s.id, "decision": decision, "path": path});
        let kind = match decision {
            "dropped" => "drop",
            "widened" => "widen",
            _ => "keep",
        };
        let widened = (decision == "widened").then_some(path.as_str());
        store.decide_suggestion(
            &s.id,
            status,
            widened,
            by,
            now,
            &op(actor, kind, Some(path.clone()), payload, now),
        )?;
        if decision == "dropped" {
            decided.push(Decided {
                id: s.id.clone(),
                decision,
                path: path.clone(),
                landed: None,
                line: suggestion_line(s),
            });
        }
    }
    Ok(())
}
