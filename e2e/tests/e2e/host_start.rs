//! kapi as the real hosts start it (issue 16, items 1-3): a host starts `kapi mcp --project
//! kapi.yaml` in the session's folder, which may be a subfolder; a call may name the page an
//! agent is about to create as its project; outside a project, a ref `read_blocks` hands out
//! is accepted back unchanged by `apply_edits`.

use std::path::Path;

use crate::common::{Bind, PROTOCOL, Server, cli, empty_dir, read_file, write_file};
use serde_json::{Value, json};

const TERMS: &str = "version: v1
concepts:
  - id: use
    terms:
      - text: use
        lang: en
        status: preferred
      - text: utilize
        lang: en
        status: forbidden
        replacement: use
";

fn project(root: &Path) {
    write_file(
        root,
        "kapi.yaml",
        "version: v1\nname: start\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    write_file(root, ".kapi/terms.yaml", TERMS);
    write_file(root, "docs/api/page.md", "# Page\n\nWe utilize the API.\n");
}

fn rules(findings: &Value) -> Vec<String> {
    findings["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_server_started_in_a_subfolder_with_a_relative_project_binds_the_repository() {
    let (_tmp, root) = empty_dir();
    project(&root);
    std::fs::create_dir_all(root.join(".git")).expect("a repository");
    let sub = root.join("docs/api");
    // As Claude Code and Codex start the committed entry: in the session's folder.
    let mut server = Server::spawn(&sub, Bind::Discover, &["--project", "kapi.yaml"])
        .initialize(PROTOCOL)
        .0;
    let checked = server
        .tool("check_file", json!({"path": "docs/api/page.md"}))
        .ok("check_file answers");
    assert_eq!(
        checked.structured["pass"], false,
        "{:#}",
        checked.structured
    );
    assert!(
        rules(&checked.structured)
            .iter()
            .any(|r| r.starts_with("terms.")),
        "{:#}",
        checked.structured
    );
    // The CLI means the same by a relative `-p`.
    let out = cli(
        &sub,
        Bind::Explicit,
        &["check", "-p", "kapi.yaml", "page.md"],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
}

#[test]
fn a_call_naming_a_relative_project_finds_it_from_the_servers_folder_up() {
    let (_tmp, root) = empty_dir();
    project(&root);
    std::fs::create_dir_all(root.join(".git")).expect("a repository");
    // Started with no project of its own, in a subfolder; the call names `kapi.yaml`.
    let mut server = Server::spawn(&root.join("docs/api"), Bind::Explicit, &[])
        .initialize(PROTOCOL)
        .0;
    let checked = server
        .tool(
            "check_file",
            json!({"path": "docs/api/page.md", "project": "kapi.yaml"}),
        )
        .ok("check_file binds the repository's kapi.yaml");
    assert!(
        rules(&checked.structured)
            .iter()
            .any(|r| r.starts_with("terms.")),
        "{:#}",
        checked.structured
    );
}

#[test]
fn a_call_may_name_the_page_it_is_about_to_create_as_its_project() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let (_elsewhere, elsewhere) = empty_dir();
    let mut server = Server::start(&elsewhere, &[]);
    let page = root.join("docs/guides/new-page.md");
    let read = server
        .tool(
            "context_read",
            json!({"path": "docs/guides/new-page.md", "project": page.display().to_string()}),
        )
        .ok("the page's project binds");
    assert!(
        read.text.contains("utilize"),
        "the project's terms reach the call: {}",
        read.text
    );
}

#[test]
fn outside_a_project_a_ref_read_blocks_hands_out_is_accepted_back() {
    let (_tmp, dir) = empty_dir();
    write_file(&dir, "notes/a.md", "# A\n\nSome text here.\n");
    let (_elsewhere, elsewhere) = empty_dir();
    let mut server = Server::start(&elsewhere, &[]);
    let doc = dir.join("notes/a.md").display().to_string();
    let block = server.first_paragraph(&doc);
    let applied = server
        .tool(
            "apply_edits",
            json!({"operations": [{
                "op": "set_content", "at": block["ref"], "if_match": block["rev"],
                "content": "Other text here."
            }]}),
        )
        .ok("apply_edits takes the ref back");
    assert_eq!(
        applied.structured["status"], "applied",
        "{:#}",
        applied.structured
    );
    assert_eq!(read_file(&dir, "notes/a.md"), "# A\n\nOther text here.\n");
}
