//! Change records and the assets a change set lands in the store (terms, memory pairs, an
//! agent's advice), written in one immediate transaction with the set's context operations,
//! so the ledger never holds half a change set.

use rusqlite::params;
use serde::Serialize;

use super::{NewOp, Store, StoreError, insert_op, json_text, json_value};

/// A term as the store mirrors `.kapi/terms.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TermRow {
    pub concept: String,
    pub text: String,
    pub lang: String,
    pub status: String,
    /// The whole term as JSON (replacement, note, case, severity).
    pub payload: serde_json::Value,
}

/// A content-memory pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryRow {
    pub source_lang: String,
    pub source: String,
    pub target_lang: String,
    pub target: String,
    pub status: Option<String>,
}

/// An agent's (or a tool's) pre-review, bound to the revision it read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdviceRow {
    pub doc: String,
    pub block: String,
    pub edition: String,
    pub branch: Option<String>,
    pub rev: String,
    pub score: u8,
    pub reasons: Vec<String>,
}

/// Everything one applied change set records.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRecord {
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    /// `applied` or `partial`.
    pub status: String,
    pub fingerprint: Option<String>,
    /// Each operation as `{operation, status, rev}`, with `before` (the text an applied
    /// content operation replaced, as agents read it) for `kapi review`.
    pub operations: serde_json::Value,
    pub documents: serde_json::Value,
    /// RFC 3339.
    pub created_at: String,
    /// Context operations to append (one per asset operation).
    pub ops: Vec<NewOp>,
    pub terms: Vec<TermRow>,
    pub memory: Vec<MemoryRow>,
    pub advice: Vec<AdviceRow>,
}

/// A recorded change set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeRow {
    pub id: i64,
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    pub status: String,
    pub fingerprint: Option<String>,
    pub operations: serde_json::Value,
    pub documents: serde_json::Value,
    pub created_at: String,
}

impl Store {
    /// Records a change set and what it landed, all or nothing. The session must exist.
    pub fn record_change(&mut self, rec: &ChangeRecord) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let sql = |source| StoreError::sqlite(&path, source);
        let json = |v: &serde_json::Value| json_text(&path, v);
        let tx = self.write_tx()?;
        tx.execute(
            "INSERT INTO changes (actor_kind, actor_name, session, status, fingerprint, operations, documents, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                rec.actor_kind,
                rec.actor_name,
                rec.session,
                rec.status,
                rec.fingerprint,
                json(&rec.operations)?,
                json(&rec.documents)?,
                rec.created_at
            ],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        for op in &rec.ops {
            insert_op(&tx, &path, op)?;
        }
        for t in &rec.terms {
            tx.execute(
                "INSERT INTO terms (concept, text, lang, status, payload, change_id, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(lang, text) DO UPDATE SET
                   concept = excluded.concept, status = excluded.status,
                   payload = excluded.payload, change_id = excluded.change_id,
                   updated_at = excluded.updated_at",
                params![
                    t.concept,
                    t.text,
                    t.lang,
                    t.status,
                    json(&t.payload)?,
                    id,
                    rec.created_at
                ],
            )
            .map_err(sql)?;
        }
        for m in &rec.memory {
            tx.execute(
                "INSERT INTO memory (source_lang, source, target_lang, target, status, actor_kind, actor_name, change_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT(source_lang, source, target_lang, target) DO UPDATE SET
                   status = COALESCE(excluded.status, memory.status)",
                params![
                    m.source_lang,
                    m.source,
                    m.target_lang,
                    m.target,
                    m.status,
                    rec.actor_kind,
                    rec.actor_name,
                    id,
                    rec.created_at
                ],
            )
            .map_err(sql)?;
        }
        for a in &rec.advice {
            let reasons = serde_json::Value::from(a.reasons.clone());
            tx.execute(
                "INSERT INTO advice (doc, block, edition, branch, rev, score, reasons, actor_kind, actor_name, session, change_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    a.doc,
                    a.block,
                    a.edition,
                    a.branch,
                    a.rev,
                    a.score,
                    json(&reasons)?,
                    rec.actor_kind,
                    rec.actor_name,
                    rec.session,
                    id,
                    rec.created_at
                ],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }

    /// Recorded change sets, oldest first.
    pub fn changes(&self) -> Result<Vec<ChangeRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, actor_kind, actor_name, session, status, fingerprint, operations, documents, created_at
                 FROM changes ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, String>(8)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, actor_kind, actor_name, session, status, fingerprint, ops, docs, created_at) =
                row.map_err(|e| self.sql(e))?;
            let parse = |t: &str| json_value(&self.path, t);
            out.push(ChangeRow {
                id,
                actor_kind,
                actor_name,
                session,
                status,
                fingerprint,
                operations: parse(&ops)?,
                documents: parse(&docs)?,
                created_at,
            });
        }
        Ok(out)
    }

    /// Terms the store holds: (lang, text, status).
    pub fn term_rows(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        self.strings3("SELECT lang, text, status FROM terms ORDER BY id")
    }

    /// Memory pairs: (source, target_lang, target).
    pub fn memory_rows(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        self.strings3("SELECT source, target_lang, target FROM memory ORDER BY id")
    }

    /// Advice: (block, rev, score as text).
    pub fn advice_rows(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        self.strings3("SELECT block, rev, CAST(score AS TEXT) FROM advice ORDER BY id")
    }

    fn strings3(&self, query: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        let mut stmt = self.conn.prepare(query).map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SessionRow;

    #[test]
    fn a_change_and_its_assets_are_recorded_together() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        let at = "2026-01-01T00:00:00Z".to_owned();
        store
            .touch_session(&SessionRow {
                id: "s1".into(),
                actor_kind: "person".into(),
                actor_name: "ana".into(),
                project: None,
                client: None,
                started_at: at.clone(),
                last_seen: at.clone(),
            })
            .unwrap();
        let mut rec = ChangeRecord {
            actor_kind: "person".into(),
            actor_name: "ana".into(),
            session: "s1".into(),
            status: "applied".into(),
            fingerprint: Some("g0".into()),
            operations: serde_json::json!([{"op": "term"}]),
            documents: serde_json::json!([]),
            created_at: at.clone(),
            ops: vec![NewOp {
                kind: "term".into(),
                actor_kind: "person".into(),
                actor_name: "ana".into(),
                session: "s1".into(),
                path: None,
                payload: serde_json::json!({"text": "sign in"}),
                status: "kept".into(),
                created_at: at.clone(),
            }],
            terms: vec![TermRow {
                concept: "sign-in".into(),
                text: "sign in".into(),
                lang: "en".into(),
                status: "preferred".into(),
                payload: serde_json::json!({}),
            }],
            memory: vec![MemoryRow {
                source_lang: "en".into(),
                source: "Save".into(),
                target_lang: "fr".into(),
                target: "Enregistrer".into(),
                status: None,
            }],
            advice: Vec::new(),
        };
        let id = store.record_change(&rec).unwrap();
        assert_eq!(store.changes().unwrap()[0].id, id);
        assert_eq!(store.term_rows().unwrap().len(), 1);
        // The same term again updates the row; a session that does not exist fails whole.
        rec.terms[0].status = "admitted".into();
        store.record_change(&rec).unwrap();
        assert_eq!(store.term_rows().unwrap()[0].2, "admitted");
        rec.session = "nobody".into();
        assert!(store.record_change(&rec).is_err());
        assert_eq!(
            store.changes().unwrap().len(),
            2,
            "nothing of the failed set stays"
        );
    }
}
