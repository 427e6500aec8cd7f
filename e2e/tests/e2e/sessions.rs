//! The session row (S-03: "an agent is at work"), read from `.kapi/work/store.db` while the
//! real `kapi mcp` runs: it opens at `initialize` with the client's own name, every request
//! moves it forward (`tools/list` and `ping` too), a note keeps the client's name on it, the
//! 2026-07-28 lifecycle names the client from `_meta`, and a row that stopped moving ages out
//! on the next write (deleted when nothing references it, else ended).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::common::{Bind, CLIENT, PROTOCOL, Server, empty_dir, write_file};

const RECIPE: &str = "version: v1\nname: here\ncollections:\n  - path: \"docs/**/*.md\"\n";

/// A project, with its store when `store` is set: made as kapi makes one, by a person's note
/// from the shell in a session of its own (the server's row is told apart by its id).
fn project(store: bool) -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = empty_dir();
    write_file(&root, "kapi.yaml", RECIPE);
    write_file(&root, "docs/a.md", "# A\n\nSign in to begin.\n");
    if store {
        let noted = crate::common::cli_with(
            &root,
            Bind::Discover,
            &[("KAPI_SESSION", "setup")],
            &[
                "context",
                "note",
                "--path",
                "docs",
                "--text",
                "Short sentences",
            ],
            None,
        );
        assert_eq!(
            noted.code, 0,
            "the note that makes the store: {}",
            noted.stderr
        );
        assert!(store_path(&root).exists(), "a note makes the store");
    }
    (tmp, root)
}

/// `kapi mcp --project ROOT` with `env` set, initialized as [`CLIENT`].
fn started(root: &Path, env: &[(&str, &str)]) -> Server {
    let root = root.display().to_string();
    Server::spawn_env(Path::new("/"), Bind::Explicit, &["--project", &root], env)
        .initialize(PROTOCOL)
        .0
}

/// Where the store lives: part of the contract the desktop reads it by.
fn store_path(root: &Path) -> PathBuf {
    root.join(".kapi/work/store.db")
}

/// One `sessions` row as the desktop reads it.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    id: String,
    actor_kind: String,
    actor_name: String,
    project: Option<String>,
    client: Option<String>,
    started_at: String,
    last_seen: String,
    ended_at: Option<String>,
}

/// Every row of the store's `sessions` table, by id.
fn rows(root: &Path) -> Vec<Row> {
    let conn = rusqlite::Connection::open_with_flags(
        store_path(root),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("the store opens");
    let mut stmt = conn
        .prepare(
            "SELECT id, actor_kind, actor_name, project, client, started_at, last_seen, ended_at
             FROM sessions ORDER BY id",
        )
        .expect("the sessions table");
    stmt.query_map([], |r| {
        Ok(Row {
            id: r.get(0)?,
            actor_kind: r.get(1)?,
            actor_name: r.get(2)?,
            project: r.get(3)?,
            client: r.get(4)?,
            started_at: r.get(5)?,
            last_seen: r.get(6)?,
            ended_at: r.get(7)?,
        })
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

/// The server's own row (its session id starts `s-mcp-`); fails unless there is one.
fn server_row(root: &Path) -> Row {
    let all = rows(root);
    let mine: Vec<&Row> = all.iter().filter(|r| r.id.starts_with("s-mcp-")).collect();
    assert_eq!(mine.len(), 1, "one row for the server's session: {all:#?}");
    mine[0].clone()
}

/// Whether RFC 3339 `b` is after `a` (compared as instants, not strings).
fn after(a: &str, b: &str) -> bool {
    let conn = rusqlite::Connection::open_in_memory().expect("memory");
    conn.query_row("SELECT julianday(?2) > julianday(?1)", [a, b], |r| {
        r.get::<_, bool>(0)
    })
    .expect("timestamps")
}

/// Long enough for the next timestamp to be a later instant (`julianday` keeps milliseconds).
fn tick() {
    std::thread::sleep(Duration::from_millis(30));
}

#[test]
fn the_session_row_opens_at_initialize_with_the_clients_name() {
    let (_tmp, root) = project(true);
    let server = started(&root, &[]);
    // No tool call yet.
    let row = server_row(&root);
    assert_eq!(row.client.as_deref(), Some(CLIENT), "{row:#?}");
    assert_eq!(row.actor_kind, "agent", "{row:#?}");
    assert_eq!(row.actor_name, CLIENT, "{row:#?}");
    assert_eq!(
        row.project.as_deref(),
        Some(root.display().to_string().as_str())
    );
    assert_eq!(row.started_at, row.last_seen, "{row:#?}");
    assert_eq!(row.ended_at, None, "{row:#?}");
    assert_eq!(server.close(), 0);
}

#[test]
fn tools_list_and_ping_move_the_session_row_forward() {
    let (_tmp, root) = project(true);
    let mut server = started(&root, &[]);
    let opened = server_row(&root);

    tick();
    assert!(!server.tools().is_empty());
    let listed = server_row(&root);
    assert!(
        after(&opened.last_seen, &listed.last_seen),
        "tools/list moves last_seen: {opened:#?} then {listed:#?}"
    );

    tick();
    let pong = server.request("ping", json!({}));
    assert!(pong.get("result").is_some(), "{pong}");
    let pinged = server_row(&root);
    assert!(
        after(&listed.last_seen, &pinged.last_seen),
        "ping moves last_seen: {listed:#?} then {pinged:#?}"
    );
    assert_eq!(pinged.started_at, opened.started_at);
    assert_eq!(pinged.client.as_deref(), Some(CLIENT));
    assert_eq!(server.close(), 0);
}

#[test]
fn a_note_keeps_the_mcp_clients_name_on_the_session_row() {
    let note = |server: &mut Server| {
        server
            .tool(
                "context_note",
                json!({"path": "docs", "text": "Headings use sentence case"}),
            )
            .ok("context_note");
    };
    // A store from the start: the row opened at `initialize`, then the note.
    let (_tmp, root) = project(true);
    let mut server = started(&root, &[]);
    note(&mut server);
    let row = server_row(&root);
    assert_eq!(row.client.as_deref(), Some(CLIENT), "{row:#?}");
    tick();
    server.tools();
    assert_eq!(server_row(&root).client.as_deref(), Some(CLIENT));
    assert_eq!(server.close(), 0);

    // No store until the note makes it: the note's own touch opens the row.
    let (_tmp, root) = project(false);
    let mut server = started(&root, &[]);
    assert!(!store_path(&root).exists(), "reading makes no store");
    note(&mut server);
    let row = server_row(&root);
    assert_eq!(row.client.as_deref(), Some(CLIENT), "{row:#?}");
    assert_eq!(server.close(), 0);
}

#[test]
fn an_edit_that_makes_the_store_names_the_mcp_client_on_the_session_row() {
    let (_tmp, root) = project(false);
    let mut server = started(&root, &[]);
    let block = server.first_paragraph("docs/a.md");
    server
        .tool(
            "apply_edits",
            json!({"operations": [{
                "op": "set_content",
                "at": block["ref"],
                "if_match": block["rev"],
                "content": "Sign in to start.",
            }]}),
        )
        .ok("apply_edits");
    let row = server_row(&root);
    assert_eq!(row.client.as_deref(), Some(CLIENT), "{row:#?}");
    assert_eq!(server.close(), 0);
}

#[test]
fn the_2026_07_28_session_row_names_the_client_from_each_requests_meta() {
    let (_tmp, root) = project(true);
    let mut server = Server::spawn(
        &root,
        Bind::Explicit,
        &["--project", &root.display().to_string()],
    );
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "future-agent", "version": "9"}
    });
    let listed = server.request("tools/list", json!({"_meta": meta}));
    assert!(listed.get("result").is_some(), "{listed}");
    let row = server_row(&root);
    assert_eq!(row.client.as_deref(), Some("future-agent"), "{row:#?}");
    assert_eq!(row.actor_name, "future-agent", "{row:#?}");
    tick();
    let again = server.request("tools/list", json!({"_meta": meta}));
    assert!(again.get("result").is_some(), "{again}");
    let later = server_row(&root);
    assert!(
        after(&row.last_seen, &later.last_seen),
        "{row:#?} then {later:#?}"
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn a_stale_session_row_ages_out_on_the_next_write() {
    let (_tmp, root) = project(true);
    {
        // Two sessions last seen long ago: one that only read, one the ledger names.
        let conn = rusqlite::Connection::open(store_path(&root)).expect("the store");
        for id in ["gone-reader", "gone-writer"] {
            conn.execute(
                "INSERT INTO sessions (id, actor_kind, actor_name, project, client, started_at, last_seen)
                 VALUES (?1, 'agent', 'old', NULL, 'old-client', '2020-01-01T00:00:00Z', '2020-01-01T01:00:00Z')",
                [id],
            )
            .expect("a stale session");
        }
        conn.execute(
            "INSERT INTO context_ops (kind, actor_kind, actor_name, session, path, payload, status, created_at)
             VALUES ('note', 'agent', 'old', 'gone-writer', 'docs', '{}', 'applied', '2020-01-01T00:30:00Z')",
            [],
        )
        .expect("an operation");
    }
    let server = started(&root, &[]);
    let all = rows(&root);
    let ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
    assert!(
        !ids.contains(&"gone-reader"),
        "a row nothing names is deleted: {all:#?}"
    );
    let writer = all
        .iter()
        .find(|r| r.id == "gone-writer")
        .unwrap_or_else(|| panic!("a row the ledger names is kept: {all:#?}"));
    assert_eq!(
        writer.ended_at.as_deref(),
        Some("2020-01-01T01:00:00Z"),
        "it ended when it was last seen: {writer:#?}"
    );
    assert_eq!(server_row(&root).ended_at, None);
    assert_eq!(server.close(), 0);
}

#[test]
fn under_claude_code_the_server_and_the_shell_share_the_hosts_session() {
    let (_tmp, root) = project(true);
    let host = [("CLAUDECODE", "1"), ("CLAUDE_CODE_SESSION_ID", "c0ffee-42")];
    let mut server = started(&root, &host);
    let noted = server
        .tool(
            "context_note",
            json!({"path": "docs", "text": "Headings use sentence case"}),
        )
        .ok("context_note");
    let session = "claude-code:c0ffee-42";
    assert_eq!(
        noted.structured["suggestion"]["session"], session,
        "{:#}",
        noted.structured
    );
    assert_eq!(server.close(), 0);
    // The assistant's shell, in the same Claude Code session, records under the same id.
    let shell = crate::common::cli_with(
        &root,
        Bind::Discover,
        &host,
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Lists use sentence case",
        ],
        None,
    );
    assert_eq!(shell.code, 0, "{}", shell.stderr);
    let log = crate::common::cli_with(
        &root,
        Bind::Discover,
        &host,
        &["context", "log", "--session", "this", "--json"],
        None,
    );
    assert_eq!(log.code, 0, "{}", log.stderr);
    let entries = log.json("the log's JSON");
    let notes = crate::common::wire::array_field(&entries, "entries")
        .iter()
        .filter(|e| e["kind"] == "note" && e["session"] == session)
        .count();
    assert_eq!(notes, 2, "both notes in the host's session: {entries:#}");
    assert!(
        rows(&root)
            .iter()
            .any(|r| r.id == session && r.client.as_deref() == Some(CLIENT))
    );
}
