//! `kapi context log`: the context operations the store recorded, filtered by session, time
//! and kind, each note with its suggestion's status now.

use kapi_core::project::layout;
use kapi_core::store::{OpFilter, OpRow};
use serde::Serialize;

use super::usage;
use crate::app::App;
use crate::error::HostError;

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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
