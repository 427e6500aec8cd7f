//! The SQLite store (`.kapi/work/store.db`): the ledger of sessions, context operations,
//! suggestions and change records, in WAL mode with numbered migrations.
//!
//! Opening: a missing store is created whole (built beside it, then linked into place, so no
//! process ever sees half a store). An existing file is never replaced: one that is empty
//! (0 bytes), not a SQLite database, damaged, a database without kapi's tables, or written by a
//! newer kapi is refused with an error naming the file and the fix, and left byte for byte.
//!
//! Writing: every write takes the write lock up front (`BEGIN IMMEDIATE`, or one autocommit
//! statement), so concurrent writers wait on the 5 s busy timeout instead of failing at once
//! with "database is locked" (a deferred transaction that upgrades its read lock cannot wait).
//!
//! Sessions: a row in `sessions` says someone is at work in the project — the session id its
//! operations are recorded under, the project, the client (`kapi-cli`, or an MCP client's own
//! name), when it opened and when it was last seen. [`Store::touch_session`] opens the row or
//! moves `last_seen` forward; the client first recorded stays (a later touch only fills one
//! that is missing), so a note an MCP session records keeps the client's name. Nothing is
//! cleaned up when a process exits: a row that stops moving ages out on the next write. Every
//! write touches its session first, and that touch sweeps, in the same transaction, every
//! other open row not seen for [`SESSION_IDLE`] (30 minutes, measured from the toucher's
//! `last_seen`): a row nothing references (no context operation, change, advice or suggestion)
//! is deleted; one the ledger references is kept, as the record of who did what, and marked
//! ended (`ended_at` = its `last_seen`). A later touch of an ended id reopens it (`ended_at`
//! back to NULL, `started_at` kept); the touched row itself is never swept. At work means
//! `ended_at IS NULL` and seen within [`SESSION_IDLE`] ([`Store::sessions_at_work`]), so a
//! reader need not wait for a write to stop showing a row that stopped moving.

use std::path::{Path, PathBuf};

use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};
use serde::Serialize;

mod changes;
mod suggestions;
pub use changes::{AdviceRow, ChangeRecord, ChangeRow, MemoryRow, TermRow};
pub use suggestions::{
    NewSuggestion, Noted, Suggestion, SuggestionFilter, parse_id as parse_suggestion_id,
};

/// The schema, one step per entry; the store's version is the number of steps applied.
const MIGRATIONS: &[&str] = &[
    // 1: sessions and context operations.
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        project TEXT,
        client TEXT,
        started_at TEXT NOT NULL,
        last_seen TEXT NOT NULL
    );
    CREATE TABLE context_ops (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        session TEXT NOT NULL REFERENCES sessions(id),
        path TEXT,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX context_ops_session ON context_ops(session);
    CREATE INDEX context_ops_status ON context_ops(status);",
    // 2: change records, and the assets change sets land (terms, memory, agents' advice).
    "CREATE TABLE changes (
        id INTEGER PRIMARY KEY,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        session TEXT NOT NULL REFERENCES sessions(id),
        status TEXT NOT NULL,
        fingerprint TEXT,
        operations TEXT NOT NULL,
        documents TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE terms (
        id INTEGER PRIMARY KEY,
        concept TEXT NOT NULL,
        text TEXT NOT NULL,
        lang TEXT NOT NULL,
        status TEXT NOT NULL,
        payload TEXT NOT NULL,
        change_id INTEGER REFERENCES changes(id),
        updated_at TEXT NOT NULL,
        UNIQUE (lang, text)
    );
    CREATE TABLE memory (
        id INTEGER PRIMARY KEY,
        source_lang TEXT NOT NULL,
        source TEXT NOT NULL,
        target_lang TEXT NOT NULL,
        target TEXT NOT NULL,
        status TEXT,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        change_id INTEGER REFERENCES changes(id),
        created_at TEXT NOT NULL,
        UNIQUE (source_lang, source, target_lang, target)
    );
    CREATE TABLE advice (
        id INTEGER PRIMARY KEY,
        doc TEXT NOT NULL,
        block TEXT NOT NULL,
        edition TEXT NOT NULL,
        branch TEXT,
        rev TEXT NOT NULL,
        score INTEGER NOT NULL,
        reasons TEXT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        session TEXT NOT NULL REFERENCES sessions(id),
        change_id INTEGER REFERENCES changes(id),
        created_at TEXT NOT NULL
    );
    CREATE INDEX advice_at ON advice(doc, block, edition);",
    // 3: suggestions assistants record (notes), one row per distinct pending observation.
    "CREATE TABLE suggestions (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        path TEXT NOT NULL,
        text TEXT,
        from_text TEXT,
        to_text TEXT,
        suggest TEXT,
        key TEXT NOT NULL,
        status TEXT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        session TEXT NOT NULL REFERENCES sessions(id),
        evidence INTEGER NOT NULL DEFAULT 1,
        signals INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT
    );
    CREATE UNIQUE INDEX suggestions_pending_key ON suggestions(key) WHERE status = 'pending';
    CREATE INDEX suggestions_status ON suggestions(status);",
    // 4: sessions age out: a referenced row that stopped moving is ended, not deleted.
    "ALTER TABLE sessions ADD COLUMN ended_at TEXT;
    CREATE INDEX sessions_open ON sessions(last_seen) WHERE ended_at IS NULL;",
];

/// How long a session may go unseen before it ages out: the next write ends it (see the
/// module docs). An MCP session is seen on every request, a command-line one on every write.
pub const SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The tables whose rows name a session (`REFERENCES sessions(id)`): a session one of them
/// names is ended when it ages out, never deleted.
const SESSION_REFERENCES: &[&str] = &["context_ops", "changes", "advice", "suggestions"];

/// An open session other than `?1` last seen more than `?3` days before `?2`.
const STALE: &str = "id <> ?1 AND ended_at IS NULL AND julianday(last_seen) < julianday(?2) - ?3";

/// The schema version this binary writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// How long a writer waits for another process's write lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(5000);

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Applies the pending migrations in one immediate transaction (re-reading the version under
/// the write lock, in case another process migrated meanwhile).
fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: u32 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if current < SCHEMA_VERSION {
        for step in MIGRATIONS.iter().skip(current as usize) {
            tx.execute_batch(step)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    tx.commit()
}

/// Refuses an existing file that cannot be a store, before SQLite opens it (SQLite takes a
/// file shorter than a page for an empty database and would write over it).
fn check_file(path: &Path, meta: &std::fs::Metadata) -> Result<(), StoreError> {
    let refuse = |what: &str| StoreError::NotAStore {
        path: path.to_path_buf(),
        what: what.to_owned(),
    };
    if !meta.is_file() {
        return Err(refuse("is not a regular file"));
    }
    if meta.len() == 0 {
        return Err(StoreError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        let mut n = 0;
        while n < head.len() {
            match f.read(&mut head[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    });
    match read {
        Ok(n) if n < head.len() || &head != SQLITE_MAGIC => Err(refuse("is not a SQLite database")),
        Ok(_) if meta.len() < 512 => Err(refuse("is a truncated SQLite database")),
        Ok(_) => Ok(()),
        Err(source) => Err(StoreError::File {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Creates a new store at `path`: built and migrated in a file beside it, then hard-linked
/// into place, which fails rather than replaces when another process created one first (that
/// one is used). No process ever opens a half-made store.
fn create(path: &Path) -> Result<(), StoreError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store.db".to_owned());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()));
    let built = build(&tmp).map_err(|source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    });
    let linked = built.and_then(|()| match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // A file system without hard links: rename, unless a store appeared meanwhile.
        Err(_) if !path.exists() => {
            std::fs::rename(&tmp, path).map_err(|source| StoreError::File {
                path: path.to_path_buf(),
                source,
            })
        }
        Err(_) => Ok(()),
    });
    for side in ["", "-journal", "-wal", "-shm"] {
        let mut file = tmp.clone().into_os_string();
        file.push(side);
        let _ = std::fs::remove_file(file);
    }
    linked?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Best effort: the new name survives a crash.
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// A complete store in `tmp`: every migration, then WAL mode (recorded in the file's header).
/// Closing the only connection leaves no WAL beside it.
fn build(tmp: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(tmp)?;
    migrate(&mut conn)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.close().map_err(|(_, e)| e)
}

/// A store operation failed on `path`.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: cannot create the store's folder", .path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: store error", .path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{}: the file is empty (0 bytes) but a store was expected", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: the file {what} but a store was expected", .path.display())]
    NotAStore {
        path: PathBuf,
        /// What the file is instead ("is not a SQLite database", ...).
        what: String,
    },
    #[error("{}: cannot read or create the store file", .path.display())]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: store schema version {found} is newer than this kapi supports ({supported})", .path.display())]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("{}: operation payload is not valid JSON", .path.display())]
    Payload {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// What survives a new store (the hints say so before anyone deletes one).
const KEPT: &str = "kept context lives in `.kapi/notes.yaml` and person decisions in `.kapi/decisions.jsonl`; both survive a new store";

impl StoreError {
    /// A SQLite failure on `path`; one that shows the file is not a (sound) database says so.
    fn sqlite(path: &Path, source: rusqlite::Error) -> StoreError {
        let what = match source.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => "is not a SQLite database".to_owned(),
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                format!("is a damaged SQLite database ({source})")
            }
            _ => {
                return StoreError::Sqlite {
                    path: path.to_path_buf(),
                    source,
                };
            }
        };
        StoreError::NotAStore {
            path: path.to_path_buf(),
            what,
        }
    }
}

impl crate::error::Hint for StoreError {
    fn hints(&self) -> Vec<String> {
        match self {
            StoreError::TooNew { .. } => vec![
                "upgrade kapi; this store was written by a newer version".to_owned(),
                format!("kapi leaves the file as it is; {KEPT}"),
            ],
            StoreError::Empty { .. } | StoreError::NotAStore { .. } => vec![format!(
                "restore it from a backup, or delete it to start a new store; kapi never replaces it ({KEPT})"
            )],
            StoreError::CreateDir { .. } | StoreError::File { .. } => {
                vec!["check that the project folder is readable and writable".to_owned()]
            }
            StoreError::Sqlite { source, .. }
                if source.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) =>
            {
                vec!["make `.kapi/work/store.db` and its folder writable for this user".to_owned()]
            }
            StoreError::Sqlite { .. } => vec![
                "close other kapi processes using the store, or delete `.kapi/work/store.db` (it holds no person's decision)"
                    .to_owned(),
            ],
            StoreError::Payload { .. } => vec!["pass a JSON value as the payload".to_owned()],
        }
    }
}

/// A session row (an agent or a person at work in a project).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub actor_kind: String,
    pub actor_name: String,
    pub project: Option<String>,
    pub client: Option<String>,
    /// RFC 3339.
    pub started_at: String,
    /// RFC 3339.
    pub last_seen: String,
}

/// A [`SessionRow`] from `SELECT id, actor_kind, actor_name, project, client, started_at,
/// last_seen`.
fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        id: r.get(0)?,
        actor_kind: r.get(1)?,
        actor_name: r.get(2)?,
        project: r.get(3)?,
        client: r.get(4)?,
        started_at: r.get(5)?,
        last_seen: r.get(6)?,
    })
}

/// A context operation to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOp {
    pub kind: String,
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    pub path: Option<String>,
    pub payload: serde_json::Value,
    pub status: String,
    /// RFC 3339.
    pub created_at: String,
}

/// Appends `op` to `context_ops` through `conn` (the store's connection or an open
/// transaction), its payload as JSON text; returns the new row's id.
fn insert_op(conn: &Connection, path: &Path, op: &NewOp) -> Result<i64, StoreError> {
    let payload = json_text(path, &op.payload)?;
    conn.execute(
        "INSERT INTO context_ops (kind, actor_kind, actor_name, session, path, payload, status, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![op.kind, op.actor_kind, op.actor_name, op.session, op.path, payload, op.status, op.created_at],
    )
    .map_err(|e| StoreError::sqlite(path, e))?;
    Ok(conn.last_insert_rowid())
}

/// A value as the text a JSON column holds (payloads, operations, documents, reasons);
/// `path` names the store in the error.
fn json_text(path: &Path, value: &serde_json::Value) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|source| StoreError::Payload {
        path: path.to_path_buf(),
        source,
    })
}

/// A JSON column's text read back as a value; `path` names the store when the text is not
/// JSON.
fn json_value(path: &Path, text: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::Payload {
        path: path.to_path_buf(),
        source,
    })
}

/// A recorded context operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpRow {
    pub id: i64,
    pub kind: String,
    pub actor_kind: String,
    pub actor_name: String,
    pub session: String,
    pub path: Option<String>,
    pub payload: serde_json::Value,
    pub status: String,
    pub created_at: String,
}

/// Which operations to list; `None` fields do not filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpFilter {
    pub session: Option<String>,
    pub kind: Option<String>,
    /// RFC 3339; operations created at or after it.
    pub since: Option<String>,
}

/// An open store.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the store at `path`, creating it when no file is there, and applies pending
    /// migrations in one immediate transaction. An existing file that is not a kapi store this
    /// binary can read (empty, not SQLite, damaged, foreign, newer) is refused and left untouched.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(path)?,
            Err(source) => {
                return Err(StoreError::File {
                    path: path.to_path_buf(),
                    source,
                });
            }
            Ok(meta) => check_file(path, &meta)?,
        }
        let sql = |source| StoreError::sqlite(path, source);
        // Never SQLITE_OPEN_CREATE: a file that vanished since is an error, not a new store.
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let found: u32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found == 0 {
            let objects: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(sql)?;
            if objects > 0 {
                return Err(StoreError::NotAStore {
                    path: path.to_path_buf(),
                    what: "is a SQLite database without kapi's tables".to_owned(),
                });
            }
        }
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .map_err(sql)?;
        if !mode.eq_ignore_ascii_case("wal") {
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(sql)?;
        }
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql)?;
        if found < SCHEMA_VERSION {
            migrate(&mut conn).map_err(sql)?;
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::sqlite(&self.path, source)
    }

    /// A transaction holding the write lock from its first statement, so a busy store is
    /// waited for (the busy timeout) rather than failing when a read lock cannot upgrade.
    fn write_tx(&mut self) -> Result<Transaction<'_>, StoreError> {
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| StoreError::sqlite(&self.path, e))
    }

    /// Whether a change can be recorded: takes the write lock (waiting for a busy store) and
    /// lets it go. A read-only file or folder, or a lock never released, fails here, before a
    /// caller writes what the record would describe.
    /// The lock alone is not enough (SQLite grants it on a read-only file): a table is
    /// created and rolled back, which a read-only file, folder or journal refuses.
    pub fn writable(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        tx.execute_batch("CREATE TABLE kapi_write_probe (x INTEGER)")
            .map_err(|e| StoreError::sqlite(&path, e))?;
        tx.rollback().map_err(|e| StoreError::sqlite(&path, e))
    }

    /// The schema version recorded in the file.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.sql(e))
    }

    /// Inserts the session, or moves `last_seen` of an existing one (and reopens it when it
    /// had aged out); `started_at` is kept from the first touch, and so is the first client
    /// recorded (a later `client` only fills a missing one; `project` is the latest given). In
    /// the same transaction, every other open session not seen for [`SESSION_IDLE`] before
    /// `s.last_seen` ages out: deleted when nothing references it, else marked ended.
    pub fn touch_session(&self, s: &SessionRow) -> Result<(), StoreError> {
        let sql = |e| self.sql(e);
        // `&self`: the callers hold a shared store; the transaction still writes up front.
        let tx =
            Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate).map_err(sql)?;
        let idle = SESSION_IDLE.as_secs_f64() / 86_400.0;
        let unreferenced: String = SESSION_REFERENCES
            .iter()
            .map(|t| format!(" AND NOT EXISTS (SELECT 1 FROM {t} WHERE {t}.session = sessions.id)"))
            .collect();
        tx.execute(
            &format!("DELETE FROM sessions WHERE {STALE}{unreferenced}"),
            params![s.id, s.last_seen, idle],
        )
        .map_err(sql)?;
        tx.execute(
            &format!("UPDATE sessions SET ended_at = last_seen WHERE {STALE}"),
            params![s.id, s.last_seen, idle],
        )
        .map_err(sql)?;
        tx.execute(
            "INSERT INTO sessions (id, actor_kind, actor_name, project, client, started_at, last_seen)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(id) DO UPDATE SET
               last_seen = excluded.last_seen,
               ended_at = NULL,
               project = COALESCE(excluded.project, sessions.project),
               client = COALESCE(sessions.client, excluded.client)",
            params![s.id, s.actor_kind, s.actor_name, s.project, s.client, s.started_at, s.last_seen],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)
    }

    /// The sessions at work at `now` (RFC 3339): open and seen within [`SESSION_IDLE`], the
    /// most recently seen first.
    pub fn sessions_at_work(&self, now: &str) -> Result<Vec<SessionRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, actor_kind, actor_name, project, client, started_at, last_seen
                 FROM sessions
                 WHERE ended_at IS NULL AND julianday(last_seen) >= julianday(?1) - ?2
                 ORDER BY last_seen DESC, id",
            )
            .map_err(|e| self.sql(e))?;
        let idle = SESSION_IDLE.as_secs_f64() / 86_400.0;
        let rows = stmt
            .query_map(params![now, idle], session_row)
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    /// A session by id.
    pub fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, actor_kind, actor_name, project, client, started_at, last_seen
                 FROM sessions WHERE id = ?1",
                [id],
                session_row,
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Records an operation; its session must exist. Returns the new id.
    pub fn record_op(&self, op: &NewOp) -> Result<i64, StoreError> {
        insert_op(&self.conn, &self.path, op)
    }

    /// Operations matching `filter`, oldest first.
    pub fn ops(&self, filter: &OpFilter) -> Result<Vec<OpRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, actor_kind, actor_name, session, path, payload, status, created_at
                 FROM context_ops
                 WHERE (?1 IS NULL OR session = ?1)
                   AND (?2 IS NULL OR kind = ?2)
                   AND (?3 IS NULL OR created_at >= ?3)
                 ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![filter.session, filter.kind, filter.since], |r| {
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
            let (id, kind, actor_kind, actor_name, session, path, payload, status, created_at) =
                row.map_err(|e| self.sql(e))?;
            let payload = json_value(&self.path, &payload)?;
            out.push(OpRow {
                id,
                kind,
                actor_kind,
                actor_name,
                session,
                path,
                payload,
                status,
                created_at,
            });
        }
        Ok(out)
    }

    /// Sets an operation's status; returns whether it existed.
    pub fn set_op_status(&self, id: i64, status: &str) -> Result<bool, StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE context_ops SET status = ?2 WHERE id = ?1",
                params![id, status],
            )
            .map_err(|e| self.sql(e))?;
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hint;

    fn session(id: &str, seen: &str) -> SessionRow {
        SessionRow {
            id: id.into(),
            actor_kind: "agent".into(),
            actor_name: "claude".into(),
            project: Some("/p".into()),
            client: None,
            started_at: "2026-01-01T00:00:00Z".into(),
            last_seen: seen.into(),
        }
    }

    fn op(session: &str, kind: &str, at: &str) -> NewOp {
        NewOp {
            kind: kind.into(),
            actor_kind: "agent".into(),
            actor_name: "claude".into(),
            session: session.into(),
            path: Some("docs/a.md".into()),
            payload: serde_json::json!({"note": "use sign in", "n": 1}),
            status: "open".into(),
            created_at: at.into(),
        }
    }

    #[test]
    fn insert_op_appends_through_a_connection_or_a_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        let path = store.path.clone();
        let first = insert_op(
            &store.conn,
            &path,
            &op("s1", "note", "2026-01-01T00:00:01Z"),
        );
        let tx = store.write_tx().unwrap();
        let second = insert_op(&tx, &path, &op("s1", "keep", "2026-01-01T00:00:02Z")).unwrap();
        tx.commit().unwrap();
        assert_eq!(second, first.unwrap() + 1);
        let rows = store.ops(&OpFilter::default()).unwrap();
        let kinds: Vec<_> = rows.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(kinds, ["note", "keep"]);
        assert_eq!(rows[1].payload, op("s1", "keep", "").payload);
    }

    #[test]
    fn json_columns_round_trip_and_bad_text_names_the_store() {
        let path = Path::new("/p/store.db");
        let value = serde_json::json!({"a": [1, "two"]});
        let text = json_text(path, &value).unwrap();
        assert_eq!(json_value(path, &text).unwrap(), value);
        let err = json_value(path, "{not json").unwrap_err();
        assert!(
            matches!(err, StoreError::Payload { ref path, .. } if path == Path::new("/p/store.db"))
        );
    }

    #[test]
    fn open_creates_the_folder_and_applies_migrations_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".kapi/work/store.db");
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        drop(store);
        let again = Store::open(&path).unwrap();
        assert_eq!(again.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(
            again.session("s1").unwrap().is_some(),
            "reopen must not recreate tables"
        );
    }

    #[test]
    fn wal_and_foreign_keys_are_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        let mode: String = store
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = store
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
        let timeout: i64 = store
            .conn
            .pragma_query_value(None, "busy_timeout", |r| r.get(0))
            .unwrap();
        assert_eq!(timeout, 5000);
        assert!(
            store
                .record_op(&op("missing", "note", "2026-01-01T00:00:00Z"))
                .is_err()
        );
    }

    #[test]
    fn too_new_store_is_refused_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
                .unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let e = Store::open(&path).unwrap_err();
        assert!(
            matches!(&e, StoreError::TooNew { found, supported, .. } if *found == SCHEMA_VERSION + 1 && *supported == SCHEMA_VERSION)
        );
        assert_eq!(
            e.hints()[0],
            "upgrade kapi; this store was written by a newer version"
        );
        assert!(e.to_string().starts_with(&path.display().to_string()));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(!dir.path().join("store.db-wal").exists());
    }

    /// Opening `bytes` as a store is refused with `what`, and the file stays as it was.
    fn refused(bytes: &[u8], what: &str) -> StoreError {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        std::fs::write(&path, bytes).unwrap();
        let e = Store::open(&path).unwrap_err();
        assert!(
            e.to_string().starts_with(&path.display().to_string()),
            "{e}"
        );
        assert!(e.to_string().contains(what), "{e}");
        assert!(e.hints()[0].starts_with("restore it from a backup, or delete it"));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{what}: left untouched"
        );
        assert!(!dir.path().join("store.db-wal").exists());
        e
    }

    #[test]
    fn files_that_are_not_a_store_are_refused_and_left_untouched() {
        assert!(matches!(
            refused(b"", "is empty (0 bytes)"),
            StoreError::Empty { .. }
        ));
        refused(b"hello", "is not a SQLite database");
        refused(&[b'x'; 8192], "is not a SQLite database");
        // SQLite takes a file shorter than a page for an empty database and writes over it.
        refused(
            b"SQLite format 3\0and then nothing",
            "is a truncated SQLite database",
        );
        let mut damaged = Vec::from(&b"SQLite format 3\0"[..]);
        damaged.resize(8192, 0xff);
        // A SQLite header over bytes that are not pages.
        assert!(matches!(
            refused(&damaged, "SQLite database"),
            StoreError::NotAStore { .. }
        ));
        // Someone else's database: SQLite, version 0, tables that are not kapi's.
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("foreign.db");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY);")
            .unwrap();
        refused(&std::fs::read(&foreign).unwrap(), "without kapi's tables");
        // A folder where the file should be.
        std::fs::create_dir(dir.path().join("store.db")).unwrap();
        let e = Store::open(&dir.path().join("store.db")).unwrap_err();
        assert!(e.to_string().contains("is not a regular file"), "{e}");
    }

    #[test]
    fn a_missing_store_is_created_whole_by_racing_openers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".kapi/work/store.db");
        std::thread::scope(|scope| {
            let openers: Vec<_> = (0..8)
                .map(|i| {
                    let path = &path;
                    scope.spawn(move || {
                        let store = Store::open(path).unwrap();
                        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
                        store
                            .touch_session(&session(&format!("s{i}"), "2026-01-01T00:00:00Z"))
                            .unwrap();
                    })
                })
                .collect();
            for o in openers {
                o.join().unwrap();
            }
        });
        let store = Store::open(&path).unwrap();
        for i in 0..8 {
            assert!(store.session(&format!("s{i}")).unwrap().is_some());
        }
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".new-"))
            .collect();
        assert!(names.is_empty(), "no build file is left: {names:?}");
    }

    #[test]
    fn writers_on_separate_connections_wait_for_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        Store::open(&path)
            .unwrap()
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        std::thread::scope(|scope| {
            let writers: Vec<_> = (0..4)
                .map(|w| {
                    let path = &path;
                    scope.spawn(move || {
                        let mut store = Store::open(path).unwrap();
                        for n in 0..25 {
                            let s = suggestions::NewSuggestion {
                                kind: "observation".into(),
                                path: "docs".into(),
                                text: Some(format!("writer {w} note {n}")),
                                from: None,
                                to: None,
                                suggest: None,
                                actor_kind: "agent".into(),
                                actor_name: "t".into(),
                                session: "s1".into(),
                                at: "2026-01-01T00:00:00Z".into(),
                            };
                            store
                                .note(&s, op("s1", "note", "2026-01-01T00:00:00Z"))
                                .unwrap();
                        }
                    })
                })
                .collect();
            for w in writers {
                w.join().unwrap();
            }
        });
        let store = Store::open(&path).unwrap();
        assert_eq!(store.ops(&OpFilter::default()).unwrap().len(), 100);
    }

    #[test]
    fn touch_session_moves_last_seen_and_keeps_started_at() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        let mut later = session("s1", "2026-01-02T00:00:00Z");
        later.started_at = "2026-01-02T00:00:00Z".into();
        later.client = Some("mcp".into());
        store.touch_session(&later).unwrap();
        let row = store.session("s1").unwrap().unwrap();
        assert_eq!(row.started_at, "2026-01-01T00:00:00Z");
        assert_eq!(row.last_seen, "2026-01-02T00:00:00Z");
        assert_eq!(row.client.as_deref(), Some("mcp"));
    }

    /// `id`'s `ended_at`, `None` for an open row, `Err` for none.
    fn ended_at(store: &Store, id: &str) -> rusqlite::Result<Option<String>> {
        store
            .conn
            .query_row("SELECT ended_at FROM sessions WHERE id = ?1", [id], |r| {
                r.get(0)
            })
    }

    #[test]
    fn the_first_client_recorded_stays() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        let mut mcp = session("s1", "2026-01-01T00:00:00Z");
        mcp.client = Some("claude-code".into());
        store.touch_session(&mcp).unwrap();
        // A note or a change set from the same session stamps the command line's name.
        let mut note = session("s1", "2026-01-01T00:01:00Z");
        note.client = Some("kapi-cli".into());
        store.touch_session(&note).unwrap();
        let row = store.session("s1").unwrap().unwrap();
        assert_eq!(row.client.as_deref(), Some("claude-code"));
        assert_eq!(row.last_seen, "2026-01-01T00:01:00Z");
    }

    #[test]
    fn a_stale_session_ages_out_on_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        // Gone for 45 minutes: one that only read, one the ledger names; one seen 25 minutes ago.
        store
            .touch_session(&session("reader", "2026-01-01T10:00:00Z"))
            .unwrap();
        store
            .touch_session(&session("writer", "2026-01-01T10:00:00.5Z"))
            .unwrap();
        store
            .record_op(&op("writer", "note", "2026-01-01T10:00:00Z"))
            .unwrap();
        store
            .touch_session(&session("recent", "2026-01-01T10:20:00Z"))
            .unwrap();
        let now = "2026-01-01T10:45:00.123456789Z";
        assert_eq!(
            store
                .sessions_at_work(now)
                .unwrap()
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>(),
            ["recent"],
            "a reader does not wait for a write"
        );
        assert_eq!(ended_at(&store, "reader"), Ok(None), "nothing wrote yet");

        store.touch_session(&session("next", now)).unwrap();
        assert_eq!(
            ended_at(&store, "reader"),
            Err(rusqlite::Error::QueryReturnedNoRows),
            "a row nothing references is deleted"
        );
        assert_eq!(
            ended_at(&store, "writer").unwrap().as_deref(),
            Some("2026-01-01T10:00:00.5Z"),
            "a row the ledger names ends when it was last seen"
        );
        assert!(store.session("writer").unwrap().is_some());
        assert_eq!(store.ops(&OpFilter::default()).unwrap().len(), 1);
        assert_eq!(ended_at(&store, "recent"), Ok(None));
        let at_work: Vec<String> = store
            .sessions_at_work(now)
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(at_work, ["next", "recent"]);

        // The ended one comes back: reopened, its start kept.
        let mut back = session("writer", "2026-01-01T12:00:00Z");
        back.started_at = "2026-01-01T12:00:00Z".into();
        store.touch_session(&back).unwrap();
        assert_eq!(ended_at(&store, "writer"), Ok(None));
        let row = store.session("writer").unwrap().unwrap();
        assert_eq!(row.started_at, "2026-01-01T00:00:00Z");
        assert_eq!(row.last_seen, "2026-01-01T12:00:00Z");
    }

    #[test]
    fn a_session_idle_but_touched_again_is_never_swept_by_its_own_touch() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        store
            .touch_session(&session("s1", "2026-01-02T00:00:00Z"))
            .unwrap();
        let row = store.session("s1").unwrap().unwrap();
        assert_eq!(
            row.started_at, "2026-01-01T00:00:00Z",
            "not deleted and made anew"
        );
        assert_eq!(ended_at(&store, "s1"), Ok(None));
    }

    #[test]
    fn every_table_naming_a_session_keeps_it_from_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        let tables: Vec<String> = store
            .conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut naming: Vec<String> = Vec::new();
        for t in &tables {
            let refs: Vec<String> = store
                .conn
                .prepare("SELECT \"table\" FROM pragma_foreign_key_list(?1)")
                .unwrap()
                .query_map([t], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            if refs.iter().any(|r| r == "sessions") {
                naming.push(t.clone());
            }
        }
        let mut listed: Vec<String> = SESSION_REFERENCES.iter().map(|t| t.to_string()).collect();
        listed.sort();
        assert_eq!(naming, listed);
    }

    #[test]
    fn a_store_from_before_aging_out_is_migrated_and_its_rows_age_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        {
            let mut conn = Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            for step in &MIGRATIONS[..3] {
                tx.execute_batch(step).unwrap();
            }
            tx.pragma_update(None, "user_version", 3).unwrap();
            tx.execute(
                "INSERT INTO sessions (id, actor_kind, actor_name, project, client, started_at, last_seen)
                 VALUES ('old', 'agent', 'claude', '/p', 'kapi-cli', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')",
                [],
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert_eq!(ended_at(&store, "old"), Ok(None));
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        assert!(store.session("old").unwrap().is_none());
    }

    #[test]
    fn ops_round_trip_and_filter() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.db")).unwrap();
        store
            .touch_session(&session("s1", "2026-01-01T00:00:00Z"))
            .unwrap();
        store
            .touch_session(&session("s2", "2026-01-01T00:00:00Z"))
            .unwrap();
        let a = op("s1", "note", "2026-01-01T10:00:00Z");
        let id = store.record_op(&a).unwrap();
        store
            .record_op(&op("s1", "review", "2026-01-02T10:00:00Z"))
            .unwrap();
        store
            .record_op(&op("s2", "note", "2026-01-03T10:00:00Z"))
            .unwrap();
        let all = store.ops(&OpFilter::default()).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].id, id);
        assert_eq!(all[0].payload, a.payload);
        assert_eq!(all[0].path.as_deref(), Some("docs/a.md"));
        let f = |session: Option<&str>, kind: Option<&str>, since: Option<&str>| OpFilter {
            session: session.map(Into::into),
            kind: kind.map(Into::into),
            since: since.map(Into::into),
        };
        assert_eq!(store.ops(&f(Some("s1"), None, None)).unwrap().len(), 2);
        assert_eq!(store.ops(&f(None, Some("note"), None)).unwrap().len(), 2);
        assert_eq!(
            store.ops(&f(Some("s1"), Some("note"), None)).unwrap().len(),
            1
        );
        assert_eq!(
            store
                .ops(&f(None, None, Some("2026-01-02T00:00:00Z")))
                .unwrap()
                .len(),
            2
        );
        assert!(store.set_op_status(id, "kept").unwrap());
        assert_eq!(store.ops(&f(None, None, None)).unwrap()[0].status, "kept");
    }
}
