//! Hints name what the caller can type (issue 16, item 9): over MCP a refusal names the tool
//! and its field (`path`, `project`, `read_blocks`), never a CLI flag or command; the same
//! refusal on the command line still names the flag.

use std::path::Path;

use crate::common::{Bind, PROTOCOL, Server, cli, empty_dir, write_file};
use serde_json::{Value, json};

fn project(root: &Path) {
    write_file(root, "kapi.yaml", "version: v1\nname: hints\n");
    write_file(root, "docs/edit.md", "# Edit\n\nOpen the page to begin.\n");
    write_file(root, "docs/data.bin", "\u{0}\u{1}binary");
}

fn server(dir: &Path, args: &[&str]) -> Server {
    Server::spawn(dir, Bind::Explicit, args)
        .initialize(PROTOCOL)
        .0
}

/// Every string in a tool's answer: its structured content and its text.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// What in `text` only a shell user can type: a long flag, `-p`, or a `kapi` command that has
/// a tool of its own.
fn cli_spelling(text: &str) -> Option<&'static str> {
    let flag = text.char_indices().any(|(i, c)| {
        c == '-'
            && text[i..].starts_with("--")
            && text[i + 2..].starts_with(|c: char| c.is_ascii_lowercase())
    });
    if flag {
        return Some("a `--flag`");
    }
    [
        "`-p",
        "kapi inspect",
        "kapi formats",
        "kapi context log",
        "kapi context search",
        "kapi context note",
        "kapi context docs",
        "`ls`",
    ]
    .into_iter()
    .find(|s| text.contains(s))
}

/// Calls `tool` with `arguments`, expects a refusal, and returns every string it holds after
/// asserting none of them names a CLI flag or command.
fn refusal(server: &mut Server, tool: &str, arguments: Value) -> String {
    let answer = server.tool(tool, arguments.clone());
    let mut all = Vec::new();
    // A tool error's JSON is its text (no structured content): its strings, unescaped.
    let shown = if answer.structured.is_null() {
        serde_json::from_str(&answer.text).unwrap_or(Value::Null)
    } else {
        answer.structured.clone()
    };
    strings(&shown, &mut all);
    all.push(answer.text.clone());
    let refused = answer.is_error
        || answer.structured["operations"]
            .as_array()
            .is_some_and(|ops| ops.iter().any(|op| op["status"] != "applied"));
    assert!(refused, "{tool} {arguments}: not refused: {answer:#?}");
    for s in &all {
        if let Some(what) = cli_spelling(s) {
            panic!(
                "{tool} {arguments}: names {what}, a CLI spelling, over MCP: {s:?}\n{answer:#?}"
            );
        }
    }
    all.join("\n")
}

#[test]
fn a_note_refused_over_mcp_names_the_fields_of_context_note() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let mut s = server(&root, &["--project", "kapi.yaml"]);
    let cases = [
        (json!({"text": "Headings use sentence case"}), "`path`"),
        (json!({"path": "docs"}), "`text`"),
        (json!({"path": "docs", "text": "   "}), "`text`"),
        (json!({"path": "docs", "from": "Log in"}), "`to`"),
        (
            json!({"path": "docs", "from": "Log in", "to": "Log in"}),
            "`from`",
        ),
        (json!({"withdraw": "n-999"}), "context_session_summary"),
    ];
    for (arguments, names) in cases {
        let said = refusal(&mut s, "context_note", arguments.clone());
        assert!(
            said.contains(names),
            "{arguments}: does not name {names}: {said}"
        );
    }
    s.close();
}

#[test]
fn a_read_or_edit_refused_over_mcp_names_the_tool_and_its_field() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let mut s = server(&root, &["--project", "kapi.yaml"]);
    let said = refusal(&mut s, "read_blocks", json!({"doc": "docs"}));
    assert!(said.contains("`path`"), "{said}");
    let said = refusal(&mut s, "read_blocks", json!({"doc": "docs/data.bin"}));
    assert!(
        said.contains("markdown"),
        "names the formats kapi reads: {said}"
    );
    let said = refusal(
        &mut s,
        "apply_edits",
        json!({"operations": [{
            "op": "set_content",
            "at": {"doc": "docs/edit.md", "block": "s9/p1"},
            "if_match": "r0000000000000000",
            "content": "Open the page to start.",
        }]}),
    );
    assert!(said.contains("read_blocks"), "{said}");
    let block = s.first_paragraph("docs/edit.md");
    let blind = json!({"operations": [{
        "op": "set_content", "at": block["ref"], "if_match": "*", "content": "Open it.",
    }]});
    let said = refusal(&mut s, "apply_edits", blind);
    assert!(said.contains("`read_blocks`"), "{said}");
    let term = json!({"operations": [{
        "op": "term", "term": {"text": "Workspace", "lang": "en", "status": "preferred"},
    }]});
    let said = refusal(&mut s, "apply_edits", term);
    assert!(said.contains("`context_note`"), "{said}");
    let said = refusal(&mut s, "context_search", json!({"query": "  "}));
    assert!(said.contains("\"query\""), "{said}");
    let said = refusal(
        &mut s,
        "read_blocks",
        json!({"doc": "docs/edit.md", "project": "nowhere/kapi.yaml"}),
    );
    assert!(said.contains("`project`"), "{said}");
    s.close();
}

#[test]
fn a_brief_over_mcp_closes_with_check_file_not_the_cli() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let mut s = server(&root, &["--project", "kapi.yaml"]);
    for (tool, arguments) in [
        ("context_read", json!({"path": "docs/edit.md"})),
        ("context_search", json!({"query": "page"})),
    ] {
        let text = s.tool(tool, arguments).ok(tool).text;
        assert!(text.contains("`check_file`"), "{tool}: {text}");
        assert!(!text.contains("kapi check"), "{tool}: {text}");
    }
    s.close();
}

#[test]
fn no_project_over_mcp_names_the_project_field() {
    let (_tmp, root) = empty_dir();
    let mut s = server(&root, &[]);
    let said = refusal(
        &mut s,
        "context_note",
        json!({"path": "docs", "text": "Headings use sentence case"}),
    );
    assert!(said.contains("`project`"), "{said}");
    s.close();
}

#[test]
fn the_same_refusals_on_the_command_line_name_the_flags() {
    let (_tmp, root) = empty_dir();
    project(&root);
    let note = cli(
        &root,
        Bind::Discover,
        &["context", "note", "--text", "Headings use sentence case"],
    );
    assert_eq!(note.code, 2, "{}", note.stderr);
    assert!(note.stderr.contains("`--path`"), "{}", note.stderr);
    let outside = empty_dir();
    let none = cli(
        &outside.1,
        Bind::Discover,
        &["context", "note", "--path", ".", "--text", "x y"],
    );
    assert_eq!(none.code, 1, "{}", none.stderr);
    assert!(none.stderr.contains("-p PATH"), "{}", none.stderr);
}

#[test]
fn a_source_files_comments_are_checked_over_mcp_not_read_or_edited_as_blocks() {
    let (_tmp, root) = empty_dir();
    project(&root);
    std::fs::write(
        root.join("docs/lib.rs"),
        "/// Open the page to start.\npub fn run() {}\n",
    )
    .expect("write a source file");
    let mut s = server(&root, &["--project", "kapi.yaml"]);
    let answer = s.tool("read_blocks", json!({"doc": "docs/lib.rs"}));
    assert!(answer.is_error, "{answer:#?}");
    let said: Value = serde_json::from_str(&answer.text).expect("a JSON error");
    assert_eq!(said["code"], "unsupported", "{said}");
    assert!(
        said["error"]
            .as_str()
            .is_some_and(|e| e.contains("capability `comment`")),
        "{said}"
    );
    assert!(
        said["hints"][0]
            .as_str()
            .is_some_and(|h| h.contains("`check_file`")),
        "{said}"
    );
    let said = refusal(
        &mut s,
        "apply_edits",
        json!({"operations": [{
            "op": "set_content",
            "at": {"doc": "docs/lib.rs", "block": "run/doc"},
            "if_match": "r0000000000000000",
            "content": "Open the page.",
        }]}),
    );
    assert!(said.contains("capability `comment`"), "{said}");
    let checked = s.tool("check_file", json!({"path": "docs/lib.rs"}));
    assert!(!checked.is_error, "{checked:#?}");
    assert_eq!(checked.structured["target"]["files"], 1, "{checked:#?}");
    s.close();
}
