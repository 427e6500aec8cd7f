//! `session_summary`: what a session recorded and changed: the notes it recorded and withdrew
//! (its operations in the log) and the change sets it applied, with the documents they wrote.
//! MCP's `context_session_summary` and `kapi context log --summary`.

use serde::Serialize;

use crate::app::App;
use crate::error::HostError;
use crate::notes::{LogEntry, LogRequest, log};

/// `kapi.session-summary/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SessionSummary {
    pub schema: &'static str,
    pub session: String,
    /// The suggestions the session's notes recorded, first seen first.
    pub recorded: Vec<String>,
    pub withdrawn: Vec<String>,
    /// Change sets the session applied.
    pub changes: usize,
    /// The documents those change sets wrote, first written first.
    pub documents: Vec<String>,
    pub entries: Vec<LogEntry>,
    /// One sentence saying all of it.
    pub text: String,
}

/// Summarises `session` (`this`, or `None`: the caller's own; else a session id).
pub fn session_summary(app: &App, session: Option<&str>) -> Result<SessionSummary, HostError> {
    let own = app.actor().session;
    let session = match session {
        None | Some("this") => own.clone(),
        Some(id) => id.to_owned(),
    };
    // The caller's own session is "this session"; another is named.
    let subject = if session == own {
        "This session".to_owned()
    } else {
        format!("Session `{session}`")
    };
    let log = log(
        app,
        &LogRequest {
            session: Some(session.clone()),
            ..Default::default()
        },
    )?;
    let mut recorded = Vec::new();
    let mut withdrawn = Vec::new();
    for e in &log.entries {
        match (e.kind.as_str(), &e.suggestion) {
            ("note", Some(id)) if !recorded.contains(id) => recorded.push(id.clone()),
            ("withdraw", Some(id)) => withdrawn.push(id.clone()),
            _ => {}
        }
    }
    let (changes, documents) = applied(app, &session);
    let text = format!(
        "{subject} recorded {} note(s){}{}, and applied {} change set(s){}. A person reviews the notes with `kapi context review`.",
        recorded.len(),
        listed(" (", &recorded, ")"),
        listed(", withdrew ", &withdrawn, ""),
        changes,
        listed(" to ", &documents, ""),
    );
    Ok(SessionSummary {
        schema: "kapi.session-summary/v1",
        session,
        recorded,
        withdrawn,
        changes,
        documents,
        entries: log.entries,
        text,
    })
}

/// `before` + the items joined + `after`, or nothing when there are none.
fn listed(before: &str, items: &[String], after: &str) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!("{before}{}{after}", items.join(", "))
    }
}

/// How many change sets `session` applied and the documents they wrote. A store that cannot
/// be read counts none: the summary still reports the notes.
fn applied(app: &App, session: &str) -> (usize, Vec<String>) {
    let (mut changes, mut documents) = (0, Vec::new());
    if let Ok(Some(project)) = app.project() {
        let path = project.root.join(kapi_core::project::layout::STORE_FILE);
        if path.exists()
            && let Ok(handle) = app.store(&path)
            && let Ok(store) = crate::app::lock(&handle)
            && let Ok(rows) = store.changes()
        {
            for row in rows.iter().filter(|r| r.session == session) {
                changes += 1;
                for d in row.documents.as_array().into_iter().flatten() {
                    if d["written"] == true
                        && let Some(doc) = d["doc"].as_str()
                        && !documents.iter().any(|x| x == doc)
                    {
                        documents.push(doc.to_owned());
                    }
                }
            }
        }
    }
    (changes, documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_joins_or_says_nothing() {
        assert_eq!(listed(" (", &["n1".into(), "n2".into()], ")"), " (n1, n2)");
        assert_eq!(listed(" to ", &[], ""), "");
    }
}
