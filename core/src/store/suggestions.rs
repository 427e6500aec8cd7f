//! Suggestions: what assistants (and people) record with `kapi context note`, one row per
//! distinct pending observation. The same observation again adds evidence rather than a row;
//! a person keeps, drops or widens each; the recording session may withdraw its own.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::{NewOp, Store, StoreError, insert_op};

/// A suggestion to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSuggestion {
    /// `observation` or `change`.
    pub kind: String,
    pub path: String,
    pub text: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub suggest: Option<String>,
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    /// RFC 3339.
    pub at: String,
}

impl NewSuggestion {
    /// What makes two notes the same observation: kind, path and words, case and spacing
    /// folded.
    pub fn key(&self) -> String {
        let fold = |s: &Option<String>| {
            s.as_deref()
                .map(|t| {
                    t.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .to_lowercase()
                })
                .unwrap_or_default()
        };
        format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.kind,
            self.path,
            fold(&self.text),
            fold(&self.from),
            fold(&self.to),
            fold(&self.suggest)
        )
    }
}

/// A recorded suggestion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Suggestion {
    /// `n` and the row number.
    pub id: String,
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggest: Option<String>,
    /// `pending`, `kept`, `dropped`, `withdrawn` or `cleared`.
    pub status: String,
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    /// How many times it was recorded.
    pub evidence: i64,
    /// Applied edits that wrote the form it prefers.
    pub signals: i64,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
}

/// What `note` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Noted {
    pub suggestion: Suggestion,
    /// False when the same pending observation was already there (evidence added).
    pub new: bool,
}

/// Which suggestions to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuggestionFilter {
    pub status: Option<String>,
    pub session: Option<String>,
}

/// The number in an id (`n12` → 12).
pub fn parse_id(id: &str) -> Option<i64> {
    id.trim().strip_prefix('n')?.parse().ok()
}

const COLUMNS: &str = "id, kind, path, text, from_text, to_text, suggest, status, actor_kind, actor_name, session, evidence, signals, created_at, updated_at, decided_by, decided_at";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Suggestion> {
    Ok(Suggestion {
        id: format!("n{}", r.get::<_, i64>(0)?),
        kind: r.get(1)?,
        path: r.get(2)?,
        text: r.get(3)?,
        from: r.get(4)?,
        to: r.get(5)?,
        suggest: r.get(6)?,
        status: r.get(7)?,
        actor_kind: r.get(8)?,
        actor_name: r.get(9)?,
        session: r.get(10)?,
        evidence: r.get(11)?,
        signals: r.get(12)?,
        created_at: r.get(13)?,
        updated_at: r.get(14)?,
        decided_by: r.get(15)?,
        decided_at: r.get(16)?,
    })
}

impl Store {
    /// Records a note: a new pending suggestion, or evidence on the pending one with the same
    /// key. `op` (its payload gains the suggestion's id) is appended in the same transaction.
    pub fn note(&mut self, s: &NewSuggestion, mut op: NewOp) -> Result<Noted, StoreError> {
        let path = self.path.clone();
        let sql = |source| StoreError::sqlite(&path, source);
        let key = s.key();
        let tx = self.write_tx()?;
        let existing: Option<i64> = tx
            .query_row(
                "SELECT id FROM suggestions WHERE key = ?1 AND status = 'pending'",
                [&key],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql)?;
        let (id, new) = match existing {
            Some(id) => {
                tx.execute(
                    "UPDATE suggestions SET evidence = evidence + 1, updated_at = ?2 WHERE id = ?1",
                    params![id, s.at],
                )
                .map_err(sql)?;
                (id, false)
            }
            None => {
                tx.execute(
                    "INSERT INTO suggestions (kind, path, text, from_text, to_text, suggest, key, status, actor_kind, actor_name, session, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?9, ?10, ?11, ?11)",
                    params![s.kind, s.path, s.text, s.from, s.to, s.suggest, key, s.actor_kind, s.actor_name, s.session, s.at],
                )
                .map_err(sql)?;
                (tx.last_insert_rowid(), true)
            }
        };
        if let serde_json::Value::Object(map) = &mut op.payload {
            map.insert("suggestion".into(), format!("n{id}").into());
            map.insert("new".into(), new.into());
        }
        insert_op(&tx, &path, &op)?;
        let suggestion = tx
            .query_row(
                &format!("SELECT {COLUMNS} FROM suggestions WHERE id = ?1"),
                [id],
                row,
            )
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(Noted { suggestion, new })
    }

    /// One suggestion by id (`n12`).
    pub fn suggestion(&self, id: &str) -> Result<Option<Suggestion>, StoreError> {
        let Some(n) = parse_id(id) else {
            return Ok(None);
        };
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM suggestions WHERE id = ?1"),
                [n],
                row,
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Suggestions matching `filter`, by path then id.
    pub fn suggestions(&self, filter: &SuggestionFilter) -> Result<Vec<Suggestion>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM suggestions
                 WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR session = ?2)
                 ORDER BY path, id"
            ))
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![filter.status, filter.session], row)
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.sql(e))
    }

    /// Moves a pending suggestion to `status` (and `path`, for a widen), recording `op`, in one
    /// transaction. Returns false when it was not pending (nothing changes then).
    pub fn decide_suggestion(
        &mut self,
        id: &str,
        status: &str,
        path: Option<&str>,
        by: &str,
        at: &str,
        op: &NewOp,
    ) -> Result<bool, StoreError> {
        let Some(n) = parse_id(id) else {
            return Ok(false);
        };
        let spath = self.path.clone();
        let sql = |source| StoreError::sqlite(&spath, source);
        let tx = self.write_tx()?;
        let changed = tx
            .execute(
                "UPDATE suggestions SET status = ?2, path = COALESCE(?3, path), decided_by = ?4, decided_at = ?5, updated_at = ?5
                 WHERE id = ?1 AND status = 'pending'",
                params![n, status, path, by, at],
            )
            .map_err(sql)?;
        if changed == 0 {
            return Ok(false);
        }
        insert_op(&tx, &spath, op)?;
        tx.commit().map_err(sql)?;
        Ok(true)
    }

    /// Moves a pending suggestion's scope (a widen before a keep) without deciding it.
    pub fn move_suggestion(&self, id: &str, path: &str) -> Result<bool, StoreError> {
        let Some(n) = parse_id(id) else {
            return Ok(false);
        };
        let changed = self
            .conn
            .execute(
                "UPDATE suggestions SET path = ?2 WHERE id = ?1 AND status = 'pending'",
                params![n, path],
            )
            .map_err(|e| self.sql(e))?;
        Ok(changed > 0)
    }

    /// Adds one agent signal to each pending suggestion in `ids`, all in one immediate
    /// transaction.
    pub fn add_signals(&self, ids: &[i64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        // `&self` (callers share the handle): no transaction can be open on it here, since
        // every transaction this store opens ends within the method that opened it.
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )
        .map_err(|e| self.sql(e))?;
        for id in ids {
            tx.execute(
                "UPDATE suggestions SET signals = signals + 1 WHERE id = ?1 AND status = 'pending'",
                [id],
            )
            .map_err(|e| self.sql(e))?;
        }
        tx.commit().map_err(|e| self.sql(e))
    }

    /// Clears every pending suggestion (`kapi context reset`); returns how many.
    pub fn clear_pending(&mut self, by: &str, at: &str, op: &NewOp) -> Result<usize, StoreError> {
        let spath = self.path.clone();
        let sql = |source| StoreError::sqlite(&spath, source);
        let tx = self.write_tx()?;
        let n = tx
            .execute(
                "UPDATE suggestions SET status = 'cleared', decided_by = ?1, decided_at = ?2, updated_at = ?2 WHERE status = 'pending'",
                params![by, at],
            )
            .map_err(sql)?;
        insert_op(&tx, &spath, op)?;
        tx.commit().map_err(sql)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SessionRow;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        for id in ["s1", "s2"] {
            store
                .touch_session(&SessionRow {
                    id: id.into(),
                    actor_kind: "agent".into(),
                    actor_name: "t".into(),
                    project: None,
                    client: None,
                    started_at: "t".into(),
                    last_seen: "t".into(),
                })
                .unwrap();
        }
        (dir, store)
    }

    fn note(text: &str, session: &str) -> (NewSuggestion, NewOp) {
        (
            NewSuggestion {
                kind: "observation".into(),
                path: "help".into(),
                text: Some(text.into()),
                from: None,
                to: None,
                suggest: None,
                actor_kind: "agent".into(),
                actor_name: "t".into(),
                session: session.into(),
                at: "2026-01-01T00:00:00Z".into(),
            },
            NewOp {
                kind: "note".into(),
                actor_kind: "agent".into(),
                actor_name: "t".into(),
                session: session.into(),
                path: Some("help".into()),
                payload: serde_json::json!({}),
                status: "pending".into(),
                created_at: "2026-01-01T00:00:00Z".into(),
            },
        )
    }

    #[test]
    fn the_same_observation_adds_evidence_and_decisions_happen_once() {
        let (_dir, mut store) = store();
        let (s, op) = note("Writes  Workspace", "s1");
        let first = store.note(&s, op.clone()).unwrap();
        assert!(first.new);
        let (s2, op2) = note("writes workspace", "s2");
        let second = store.note(&s2, op2).unwrap();
        assert!(!second.new);
        assert_eq!(second.suggestion.id, first.suggestion.id);
        assert_eq!(second.suggestion.evidence, 2);
        let id = first.suggestion.id.clone();
        assert!(
            store
                .decide_suggestion(&id, "kept", None, "person:a", "t", &op)
                .unwrap()
        );
        assert!(
            !store
                .decide_suggestion(&id, "dropped", None, "person:a", "t", &op)
                .unwrap()
        );
        // Once kept, the same observation starts a new pending suggestion.
        assert!(store.note(&s, op).unwrap().new);
        let pending = store
            .suggestions(&SuggestionFilter {
                status: Some("pending".into()),
                session: None,
            })
            .unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!(store.ops(&Default::default()).unwrap().len(), 4);
    }
}
