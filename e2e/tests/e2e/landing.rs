//! The order of landing over MCP (issue 15): `apply_edits` answers with the change result
//! whenever a file landed, whatever failed after it (`partial`, with `isError` as the CLI's
//! exit 1), and a store that cannot record refuses before anything is written.

use std::path::Path;

use crate::common::{Bind, PROTOCOL, Server, empty_dir, read_file, write_file};
use serde_json::{Value, json};

const DOC: &str = "# Edit\n\nOpen the page to begin.\n";

fn project(root: &Path) {
    write_file(root, "kapi.yaml", "version: v1\nname: landing\n");
    write_file(root, "docs/edit.md", DOC);
}

fn server(root: &Path, env: &[(&str, &str)]) -> Server {
    let root = root.display().to_string();
    Server::spawn_env(
        Path::new("/"),
        Bind::Explicit,
        &["--project", root.as_str()],
        env,
    )
    .initialize(PROTOCOL)
    .0
}

/// The paragraph of docs/edit.md set to "Open the page to start.".
fn edit(server: &mut Server) -> Value {
    let block = server.first_paragraph("docs/edit.md");
    json!({"operations": [{
        "op": "set_content",
        "at": block["ref"],
        "if_match": block["rev"],
        "content": "Open the page to start.",
    }]})
}

#[test]
fn a_record_that_fails_after_the_document_landed_answers_partial_with_the_result() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let mut server = server(&root, &[("KAPI_TEST_FAIL_RECORD", "1")]);
    let set = edit(&mut server);
    let answer = server.tool("apply_edits", set).err("apply_edits");
    let r = &answer.structured;
    assert_eq!(r["schema"], "kapi.change-result/v1", "{r:#}");
    assert_eq!(r["status"], "partial", "{r:#}");
    assert_eq!(r["operations"][0]["status"], "applied", "{r:#}");
    assert_eq!(r["documents"][0]["written"], true, "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("the change was not recorded")),
        "{r:#}"
    );
    assert_eq!(
        read_file(&root, "docs/edit.md"),
        "# Edit\n\nOpen the page to start.\n"
    );
}

#[test]
fn a_damaged_store_refuses_apply_edits_before_the_document_is_written() {
    let (_tmp, root) = empty_dir();
    project(&root);
    write_file(
        &root,
        ".kapi/work/store.db",
        "not a database at all, a stray note",
    );
    let mut server = server(&root, &[]);
    let set = edit(&mut server);
    let answer = server.tool("apply_edits", set).err("apply_edits");
    let r = &answer.structured;
    assert_eq!(r["status"], "refused", "{r:#}");
    assert_eq!(r["operations"][0]["status"], "not_applied", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("store.db") && e.contains("nothing was written")),
        "{r:#}"
    );
    assert_eq!(read_file(&root, "docs/edit.md"), DOC);
}
