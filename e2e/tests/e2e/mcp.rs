//! The CLI/MCP conformance suite: the real `kapi mcp` binary (`KAPI_BIN`, default
//! `target/debug/kapi`) driven over stdio with raw newline-delimited JSON-RPC, the way an
//! editor or agent drives it, against isolated temporary projects.
//!
//! It covers `initialize` (both protocol versions, the instructions), the tool surface per
//! set (golden snapshots of `tools/list` and `resources/templates/list`, the token budget,
//! the set table), parity with `kapi check`, `kapi inspect` and `kapi context` on the same
//! input, the edit contract as an agent drives it, notes and sessions, the per-call
//! `project`, and bad input (unknown tools, wrong arguments, escaping paths, garbage,
//! a client that goes away).
//!
//! Every read from the server has a timeout, so a hung server fails the test instead of
//! blocking CI. `KAPI_NO_PROJECT=1` is set for every process except where a test means the
//! project to be found from the working folder (the parity tests, which run the server the
//! way an editor does, in the project, and the CLI the way a person does).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::wire::{self, array_field, str_field};
use crate::common::{Bind, CLIENT, PROTOCOL, Server, cli, cli_json, empty_dir};

// ---------------------------------------------------------------------------------------------
// Fixtures

const RECIPE: &str = r#"version: v1
name: {name}
defaults:
  source_language: en
  target_languages: [fr]
  voice: .kapi/voice.yaml
  terms_source: .kapi/terms.yaml
collections:
  - path: "docs/**/*.md"
  - path: "locale/*.po"
gates:
  fail_on: major
"#;

const VOICE: &str = r#"name: {name}
description: How {name} writes.
style:
  prohibited_patterns:
    - regex: '!{2,}'
      description: Stacked exclamation marks
      severity: minor
vocabulary:
  forbidden:
    - term: {forbidden}
      replacement: use
      note: Plain words
"#;

const TERMS: &str = r#"version: v1
concepts:
  - id: sign-in
    definition: Entering your account
    terms:
      - text: sign in
        lang: en
        status: preferred
      - text: log in
        lang: en
        status: deprecated
        replacement: sign in
"#;

/// A gettext catalog translating one message with a placeholder into French as `msgstr`.
const CATALOG: &str = r#"msgid ""
msgstr ""
"Language: fr\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgid "Delete {count} files?"
msgstr "{msgstr}"
"#;

/// A temporary kapi project: a voice forbidding `forbidden`, a term rule (`log in` is
/// deprecated for `sign in`), a French target and a catalog, and a few documents.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new(name: &str, forbidden: &str) -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        let p = Project { _tmp: tmp, root };
        p.write("kapi.yaml", &RECIPE.replace("{name}", name));
        p.write(
            ".kapi/voice.yaml",
            &VOICE
                .replace("{name}", name)
                .replace("{forbidden}", forbidden),
        );
        p.write(".kapi/terms.yaml", TERMS);
        p.write(
            "docs/good.md",
            "# Start\n\nSign in, then open the page to begin.\n",
        );
        p.write(
            "docs/bad.md",
            "# Start\n\nLog in, then utilize the page!!\n\nWe leverage search.\n",
        );
        p.write("docs/edit.md", "# Edit\n\nOpen the page to begin.\n");
        let catalog = |msgstr: &str| CATALOG.replace("{msgstr}", msgstr);
        p.write("locale/fr.po", &catalog("Supprimer {count} fichiers ?"));
        p.write("locale/fr-bad.po", &catalog("Supprimer les fichiers ?"));
        p
    }

    fn write(&self, rel: &str, text: &str) {
        crate::common::write_file(&self.root, rel, text);
    }

    fn read(&self, rel: &str) -> String {
        crate::common::read_file(&self.root, rel)
    }

    fn path(&self) -> &str {
        self.root.to_str().expect("a UTF-8 temp path")
    }
}

/// The rules of each finding of a `kapi.check/v1` report (decoded typed, so a renamed field
/// fails): `rule matched`, or `rule ` for a finding that matched no text (`matched: null`).
fn findings(report: &Value) -> Vec<String> {
    let report = wire::decode(report, "a check report").check("a check report");
    report
        .findings
        .iter()
        .map(|f| match &f.matched {
            Some(matched) => format!("{} {matched}", f.rule),
            None => format!("{} ", f.rule),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// initialize

/// The tool sets kapi promises (README, `kapi mcp --help`), written here and not read from
/// the server's own table, so the server is held to the contract.
const SETS: &[(&str, &[&str])] = &[
    (
        "writing",
        &[
            "context_read",
            "context_search",
            "context_note",
            "context_session_summary",
            "check_file",
            "read_blocks",
            "apply_edits",
            "describe_format",
        ],
    ),
    (
        "content",
        &[
            "check_text",
            "voice_check",
            "voice_rewrite",
            "term-check",
            "detect_format",
            "redact",
        ],
    ),
    ("review", &["review_queue", "review_block", "apply_edits"]),
    ("translation", &["stats", "up_plan", "translate", "up"]),
];

/// The listing helpers `--all-tools` (and `--all`) add, and `pseudo_translate`.
const HELPERS: &[&str] = &[
    "list_formats",
    "list_profiles",
    "list_collections",
    "pseudo_translate",
];

/// Every tool name of the sets, helpers included.
fn table_tools() -> BTreeSet<&'static str> {
    SETS.iter()
        .flat_map(|(_, tools)| tools.iter().copied())
        .chain(HELPERS.iter().copied())
        .collect()
}

/// Whether `text` names `tool` as a word of its own.
fn names(text: &str, tool: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(tool).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(word)
            && !text[at + tool.len()..].chars().next().is_some_and(word)
    })
}

#[test]
fn initialize_echoes_both_protocol_versions_with_instructions_naming_only_served_tools() {
    let (_tmp, dir) = empty_dir();
    let known = table_tools();
    for version in ["2025-06-18", "2025-11-25"] {
        for args in [
            &["--tools", "writing"][..],
            &["--tools", "content"],
            &["--all"],
        ] {
            let ctx = format!("{version} kapi mcp {}", args.join(" "));
            let (mut server, init) = Server::start_with(&dir, Bind::Explicit, args, version);
            assert_eq!(init["protocolVersion"], version, "{ctx}: {init:#}");
            assert_eq!(init["serverInfo"]["name"], "kapi", "{ctx}: {init:#}");
            assert!(init["capabilities"]["tools"].is_object(), "{ctx}: {init:#}");
            let text = str_field(&init, "instructions");
            let words = text.split_whitespace().count();
            assert!(
                (1..160).contains(&words),
                "{ctx}: {words} words of instructions: {text}"
            );
            let served: BTreeSet<String> = server.tool_names().into_iter().collect();
            for tool in &known {
                if names(text, tool) {
                    assert!(
                        served.contains(*tool),
                        "{ctx}: the instructions name `{tool}`, which this server does not \
                         serve: {text}"
                    );
                }
            }
            if served.contains("context_note") {
                for habit in [
                    "context_read",
                    "context_note",
                    "withdraw",
                    "check_file",
                    "context_session_summary",
                    "AGENTS.md",
                    "CLAUDE.md",
                ] {
                    assert!(text.contains(habit), "{ctx}: no `{habit}` in: {text}");
                }
            }
            assert_eq!(server.close(), 0, "{ctx}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The tool surface

const SET_ARGS: &[(&str, &[&str])] = &[
    ("writing", &["--tools", "writing"]),
    ("content", &["--tools", "content"]),
    ("review", &["--tools", "review"]),
    ("translation", &["--tools", "translation"]),
    ("all", &["--all"]),
];

/// Each set's whole surface (every tool's name, description, input and output schemas and
/// annotations, and the resource templates) is a reviewed golden file under
/// `tests/e2e/snapshots/`. A change to a set's tools fails here until the new snapshot is
/// reviewed: `INSTA_UPDATE=always make e2e` (or `cargo insta review`), then read the diff.
#[test]
fn tools_and_resource_templates_per_set_match_the_golden_snapshots() {
    let (_tmp, dir) = empty_dir();
    for (set, args) in SET_ARGS {
        let mut server = Server::start(&dir, args);
        let tools = server.tools();
        let templates = server.request("resources/templates/list", json!({}));
        let surface = json!({
            "tools": tools,
            "resources/templates/list": templates.get("result").or(templates.get("error")),
        });
        insta::assert_json_snapshot!(format!("tools_list_{set}"), surface);
        assert_eq!(server.close(), 0, "{set}");
    }
}

/// What a host hands its model of the writing set (each tool's name, description, input
/// schema and annotations) stays under 4,000 tokens. The output schemas are not part of it:
/// a host validates `structuredContent` with them and does not send them to the model. They
/// have a budget of their own, so a report type's growth is seen here.
#[test]
fn the_writing_set_tool_list_fits_its_token_budget() {
    let (_tmp, dir) = empty_dir();
    let mut server = Server::start(&dir, &[]);
    let (line, mut message) = server.request_raw("tools/list", json!({}));
    let mut outputs = 0;
    let mut count = 0;
    if let Some(tools) = message["result"]["tools"].as_array_mut() {
        count = tools.len();
        for tool in tools {
            if let Some(schema) = tool.as_object_mut().and_then(|t| t.remove("outputSchema")) {
                outputs += schema.to_string().len();
            }
        }
    }
    assert!(count >= 8, "the writing set serves {count} tools: {line}");
    let model = message.to_string().len();
    assert!(
        model / 4 < 4_000,
        "the writing set's tools/list, less its output schemas, is {} tokens ({model} bytes / 4)",
        model / 4
    );
    assert!(
        outputs / 4 < 6_000,
        "the writing set's output schemas are {} tokens ({outputs} bytes / 4)",
        outputs / 4
    );
}

#[test]
fn every_served_tool_belongs_to_a_set_and_an_unknown_set_fails_startup() {
    let (_tmp, dir) = empty_dir();
    let known = table_tools();
    let mut server = Server::start(&dir, &["--all"]);
    let all = server.tool_names();
    let stray: Vec<&String> = all.iter().filter(|t| !known.contains(t.as_str())).collect();
    assert!(stray.is_empty(), "tools in no set of the table: {stray:?}");
    assert_eq!(server.close(), 0);

    assert_eq!(
        all.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        known,
        "--all serves every tool of every set and the helpers"
    );
    // Each set serves what the table lists for it, and nothing else.
    for (set, args) in SET_ARGS.iter().filter(|(s, _)| *s != "all") {
        let listed: BTreeSet<&str> = SETS
            .iter()
            .find(|(name, _)| name == set)
            .map(|(_, tools)| tools.iter().copied().collect())
            .unwrap_or_else(|| panic!("{set} is a set of the table"));
        let mut server = Server::start(&dir, args);
        let served = server.tool_names();
        assert_eq!(
            served.iter().map(String::as_str).collect::<BTreeSet<_>>(),
            listed,
            "--tools {set}"
        );
        assert_eq!(server.close(), 0, "{set}");
    }
    let mut server = Server::start(&dir, &["--all-tools"]);
    let served: BTreeSet<String> = server.tool_names().into_iter().collect();
    for helper in HELPERS {
        assert!(served.contains(*helper), "--all-tools serves {helper}");
    }
    assert_eq!(server.close(), 0, "--all-tools");

    let out = cli(&dir, Bind::Explicit, &["mcp", "--tools", "nope"]);
    assert_ne!(out.code, 0, "--tools nope starts: {}", out.stdout);
    assert!(out.stdout.is_empty(), "stdout: {}", out.stdout);
    for set in ["nope", "writing", "content", "review", "translation", "all"] {
        assert!(
            out.stderr.contains(set),
            "`{set}` is not in --tools nope's error: {}",
            out.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Parity with the CLI

/// A check report with `target.paths` made project-relative: it echoes the path as given,
/// which the tool resolves against the project root and the CLI takes as typed.
fn relative_targets(mut report: Value, root: &Path) -> Value {
    if let Some(paths) = report["target"]["paths"].as_array_mut() {
        for p in paths {
            if let Some(s) = p.as_str() {
                let rel = Path::new(s)
                    .strip_prefix(root)
                    .map(|r| r.display().to_string())
                    .unwrap_or_else(|_| s.to_owned());
                *p = Value::String(rel);
            }
        }
    }
    report
}

#[test]
fn check_file_reports_what_kapi_check_reports() {
    let p = Project::new("alpha", "utilize");
    // The server as an editor starts it: in the project, found from the working folder.
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for (file, passes) in [
        ("docs/good.md", true),
        ("docs/bad.md", false),
        ("locale/fr.po", true),
        ("locale/fr-bad.po", false),
    ] {
        let mut cli = cli_json(&p.root, &["check", file, "--json"]);
        let tool = server.tool("check_file", json!({"path": file})).ok(file);
        assert_eq!(tool.structured["schema"], "kapi.check/v1", "{file}");
        // One cache behind both: the tool reuses the check the command just made.
        let mut answer = relative_targets(tool.structured.clone(), &p.root);
        let cached = answer.as_object_mut().and_then(|o| o.remove("cache"));
        let checked = cli.as_object_mut().and_then(|o| o.remove("cache"));
        assert_eq!(checked, Some(json!({"reused": 0, "checked": 1})), "{file}");
        assert_eq!(cached, Some(json!({"reused": 1, "checked": 0})), "{file}");
        assert_eq!(
            answer, cli,
            "{file}: check_file differs from kapi check --json"
        );
        assert_eq!(cli["pass"], passes, "{file}: {cli:#}");
        let found = findings(&cli);
        assert_eq!(found.is_empty(), passes, "{file}: {found:?}");
        let text: Value = serde_json::from_str(&tool.text)
            .unwrap_or_else(|e| panic!("{file}: the text rendering is not the JSON ({e})"));
        assert_eq!(text, tool.structured, "{file}: text and structured content");
    }
    // The failing fixtures fail for what they plant, across every analyzer.
    let bad = cli_json(&p.root, &["check", "docs/bad.md", "--json"]);
    let found = findings(&bad);
    for rule in [
        "terms.forbidden utilize",
        "terms.deprecated Log in",
        "voice.prohibited-pattern !!",
    ] {
        assert!(
            found.iter().any(|f| f == rule),
            "docs/bad.md: no `{rule}` in {found:?}"
        );
    }
    let po = cli_json(&p.root, &["check", "locale/fr-bad.po", "--json"]);
    assert!(
        findings(&po)
            .iter()
            .any(|f| f.starts_with("placeholders.missing")),
        "the catalog's translation checks ran: {po:#}"
    );
}

#[test]
fn read_blocks_returns_what_kapi_inspect_returns() {
    let p = Project::new("alpha", "utilize");
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for file in ["docs/bad.md", "docs/good.md"] {
        let cli = cli_json(&p.root, &["inspect", file, "--json"]);
        let tool = server.tool("read_blocks", json!({"doc": file})).ok(file);
        assert_eq!(tool.structured, cli, "{file}: read_blocks and kapi inspect");
        assert!(
            cli["blocks"].as_array().is_some_and(|b| b.len() >= 2),
            "{file}: {cli:#}"
        );
    }
    // A bilingual catalog with its French edition beside the source.
    let cli = cli_json(
        &p.root,
        &["inspect", "locale/fr-bad.po", "--editions", "fr", "--json"],
    );
    let tool = server
        .tool(
            "read_blocks",
            json!({"doc": "locale/fr-bad.po", "editions": ["fr"]}),
        )
        .ok("catalog");
    assert_eq!(tool.structured, cli, "the catalog with --editions fr");
    assert_eq!(
        cli["blocks"][0]["editions"]["fr"]["text"], "Supprimer les fichiers ?",
        "{cli:#}"
    );
    // The placeholders reach the agent as written (no HTML escaping).
    let (line, _) = server.request_raw(
        "tools/call",
        json!({"name": "read_blocks", "arguments": {"doc": "locale/fr.po"}}),
    );
    assert!(
        line.contains(r#"<x id=\"1/\"/>"#),
        "placeholders escaped: {line}"
    );
}

#[test]
fn the_context_resource_and_context_read_answer_what_kapi_context_prints() {
    let p = Project::new("alpha", "utilize");
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for path in ["docs/bad.md", "docs", "locale/fr.po"] {
        let markdown = cli(&p.root, Bind::Discover, &["context", path]);
        assert_eq!(markdown.code, 0, "kapi context {path}: {}", markdown.stderr);
        assert!(
            markdown.stdout.contains("utilize"),
            "{path}: {}",
            markdown.stdout
        );
        // The same brief, closing with the surface's own way to check (`check_file`).
        let over_mcp = markdown.stdout.replace(
            "Check your changes with `kapi check PATH`.",
            "Check your changes with `check_file`.",
        );
        assert_ne!(
            over_mcp, markdown.stdout,
            "{path}: the CLI closes with kapi check"
        );
        let resource = server.read(&format!("context://{path}"));
        assert_eq!(resource, over_mcp, "context://{path}");

        let json_cli = cli_json(&p.root, &["context", path, "--json"]);
        let json_resource = server.read(&format!("context://{path}?format=json"));
        let json_resource: Value = serde_json::from_str(&json_resource)
            .unwrap_or_else(|e| panic!("context://{path}?format=json is not JSON: {e}"));
        assert_eq!(json_resource, json_cli, "context://{path}?format=json");

        let tool = server
            .tool("context_read", json!({"path": path}))
            .ok("context_read");
        assert_eq!(tool.text, over_mcp, "context_read {path}");
        assert_eq!(tool.structured, json_cli, "context_read {path} structured");
        let tool = server
            .tool("context_read", json!({"path": path, "format": "json"}))
            .ok("context_read json");
        assert_eq!(tool.structured, json_cli, "context_read {path} format json");
    }
}

/// reStructuredText and AsciiDoc over MCP (issue 41): `describe_format` says what each takes,
/// `read_blocks` reads what `kapi inspect` reads, and `apply_edits` changes one block and
/// leaves every other byte (a directive and an include kept).
#[test]
fn rst_and_asciidoc_are_read_and_edited_over_mcp() {
    let p = Project::new("alpha", "utilize");
    let files = [
        (
            "docs/guide.rst",
            "rst",
            "Guide\n=====\n\n.. note:: Open the page to begin.\n\n.. toctree::\n\n   intro\n",
        ),
        (
            "docs/guide.adoc",
            "asciidoc",
            "= Guide\n\nNOTE: Open the page to begin.\n\ninclude::partial$intro.adoc[]\n",
        ),
    ];
    for (file, _, text) in files {
        std::fs::write(p.root.join(file), text).expect("write the page");
    }
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for (file, id, text) in files {
        let described = server.tool("describe_format", json!({"format": id})).ok(id);
        assert_eq!(described.structured["id"], id, "{:#}", described.structured);
        assert_eq!(
            described.structured["round_trip"], true,
            "{:#}",
            described.structured
        );
        assert_eq!(
            described.structured["edit"], "faithful",
            "{:#}",
            described.structured
        );
        let cli = cli_json(&p.root, &["inspect", file, "--json"]);
        let read = server.tool("read_blocks", json!({"doc": file})).ok(file);
        assert_eq!(read.structured, cli, "{file}: read_blocks and kapi inspect");
        let block = read.structured["blocks"]
            .as_array()
            .and_then(|b| b.iter().find(|b| b["role"] == "paragraph"))
            .cloned()
            .unwrap_or_else(|| panic!("{file}: no paragraph in {:#}", read.structured));
        assert_eq!(block["text"], "Open the page to begin.", "{file}");
        let set = json!({"operations": [{
            "op": "replace_text", "at": block["ref"], "if_match": block["rev"],
            "find": "begin", "replace": "start",
        }]});
        let applied = server.tool("apply_edits", set).ok(file);
        assert_eq!(applied.change().status, "applied", "{file}");
        let want = text.replace("to begin.", "to start.");
        assert_eq!(
            std::fs::read_to_string(p.root.join(file)).expect("read"),
            want,
            "{file}"
        );
    }
}

/// The catalog formats of issue 42 over MCP: `read_blocks` reads what `kapi inspect` reads; a
/// Fluent message is edited in place; an agent's edit of a finished translation in a Qt `.ts`
/// file or a String Catalog lands marked a draft for review (`type="unfinished"`,
/// `needs_review`), every other byte kept.
#[test]
fn catalog_formats_are_read_and_edited_over_mcp() {
    let p = Project::new("alpha", "utilize");
    let ftl = "# Shown on the button.\nsave = Save { $name }\n";
    let ts = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\" language=\"de\">\n<context>\n    <name>Main</name>\n    <message>\n        <source>Open %1</source>\n        <translation>%1 auf</translation>\n    </message>\n</context>\n</TS>\n";
    let catalog = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Open %@\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"%@ auf\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}\n";
    for (file, text) in [
        ("docs/app.ftl", ftl),
        ("docs/app_de.ts", ts),
        ("docs/Localizable.xcstrings", catalog),
    ] {
        std::fs::write(p.root.join(file), text).expect("write the catalog");
    }
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &[], PROTOCOL);
    for (file, id) in [
        ("docs/app.ftl", "fluent"),
        ("docs/app_de.ts", "qt"),
        ("docs/Localizable.xcstrings", "xcstrings"),
    ] {
        let cli = cli_json(&p.root, &["inspect", file, "--editions", "*", "--json"]);
        let read = server
            .tool("read_blocks", json!({"doc": file, "editions": ["*"]}))
            .ok(file);
        assert_eq!(read.structured, cli, "{file}: read_blocks and kapi inspect");
        assert_eq!(read.structured["format"], id, "{file}");
    }

    let read = server
        .tool("read_blocks", json!({"doc": "docs/app.ftl"}))
        .ok("fluent");
    let save = &read.structured["blocks"][0];
    assert_eq!(save["notes"], json!(["Shown on the button."]));
    let set = json!({"operations": [{
        "op": "replace_text", "at": save["ref"], "if_match": save["rev"],
        "find": "Save", "replace": "Keep",
    }]});
    let applied = server.tool("apply_edits", set).ok("fluent edit");
    assert_eq!(applied.change().status, "applied");
    assert_eq!(p.read("docs/app.ftl"), ftl.replace("Save {", "Keep {"));

    for (file, lang, content, want) in [
        (
            "docs/app_de.ts",
            "de",
            "<x id=\"1/\"/> öffnen",
            "<translation type=\"unfinished\">%1 öffnen</translation>",
        ),
        (
            "docs/Localizable.xcstrings",
            "de",
            "<x id=\"1/\"/> öffnen",
            "\"state\" : \"needs_review\",\n            \"value\" : \"%@ öffnen\"",
        ),
    ] {
        let read = server
            .tool("read_blocks", json!({"doc": file, "editions": [lang]}))
            .ok(file);
        let block = &read.structured["blocks"][0];
        let edition = &block["editions"][lang];
        let mut at = block["ref"].clone();
        at["edition"] = json!(lang);
        let set = json!({"operations": [{
            "op": "set_content", "at": at, "if_match": edition["rev"], "content": content,
        }]});
        let applied = server.tool("apply_edits", set).ok(file);
        assert_eq!(applied.change().status, "applied", "{file}");
        let written = p.read(file);
        assert!(written.contains(want), "{file}: {written}");
    }
}

// ---------------------------------------------------------------------------------------------
// The edit contract, notes and sessions

#[test]
fn the_edit_contract_as_an_agent_drives_it() {
    let p = Project::new("alpha", "utilize");
    let (_tmp, elsewhere) = empty_dir();
    let mut server = Server::start(&elsewhere, &["--project", p.path()]);

    let read = server
        .tool("read_blocks", json!({"doc": "docs/edit.md"}))
        .ok("read_blocks");
    let block = read.structured["blocks"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["role"] == "paragraph"))
        .cloned()
        .unwrap_or_else(|| panic!("no paragraph in {:#}", read.structured));
    assert_eq!(block["text"], "Open the page to begin.");
    let set = json!({"operations": [{
        "op": "set_content",
        "at": block["ref"],
        "if_match": block["rev"],
        "content": "Open the page to start.",
    }]});

    let applied = server.tool("apply_edits", set.clone()).ok("apply");
    let result = applied.change();
    assert_eq!(result.status, "applied", "{result:#?}");
    assert_eq!(
        p.read("docs/edit.md"),
        "# Edit\n\nOpen the page to start.\n",
        "the file changed"
    );
    assert_eq!(result.actor.kind, "agent", "{result:#?}");
    assert_eq!(result.actor.name, CLIENT, "{result:#?}");
    let session = result.actor.session.as_str();
    assert!(!session.is_empty(), "{result:#?}");

    // The same set again: refused whole as stale, with the text the block holds now.
    let before = p.read("docs/edit.md");
    let stale = server.tool("apply_edits", set).err("the same set again");
    let result = stale.change();
    assert_eq!(result.status, "refused", "{result:#?}");
    let op = &result.operations[0];
    assert_eq!(op.status, "stale", "{result:#?}");
    assert_eq!(
        op.current.as_ref().map(|c| c.text.as_str()),
        Some("Open the page to start."),
        "{result:#?}"
    );
    assert_eq!(
        p.read("docs/edit.md"),
        before,
        "a refused set writes nothing"
    );

    // An agent's decision other than advise: not permitted.
    let heading = &read.structured["blocks"][0];
    let decide = server
        .tool(
            "apply_edits",
            json!({"operations": [{
                "op": "decide",
                "at": heading["ref"],
                "if_match": heading["rev"],
                "outcome": "establish",
            }]}),
        )
        .err("decide establish");
    let result = decide.change();
    assert_eq!(result.status, "refused", "{result:#?}");
    assert_eq!(result.operations[0].status, "not_permitted", "{result:#?}");
    assert_eq!(
        p.read("docs/edit.md"),
        before,
        "a refused set writes nothing"
    );

    // The session's summary counts the applied change, in the same session.
    let summary = server
        .tool("context_session_summary", json!({}))
        .ok("summary");
    let s = &summary.structured;
    assert_eq!(s["session"], session, "{s:#}");
    assert_eq!(s["changes"], 1, "{s:#}");
    assert_eq!(s["documents"], json!(["docs/edit.md"]), "{s:#}");
    assert_eq!(server.close(), 0);
}

#[test]
fn notes_are_the_agents_in_one_session_per_server_process() {
    let p = Project::new("alpha", "utilize");
    let (_tmp, elsewhere) = empty_dir();
    let note = |server: &mut Server, path: &str, text: &str| {
        let r = server
            .tool("context_note", json!({"path": path, "text": text}))
            .ok("context_note");
        let s = &r.structured;
        assert_eq!(s["status"], "recorded", "{s:#}");
        assert_eq!(s["suggestion"]["actor_kind"], "agent", "{s:#}");
        assert_eq!(s["suggestion"]["actor_name"], CLIENT, "{s:#}");
        (
            str_field(&s["suggestion"], "id").to_owned(),
            str_field(&s["suggestion"], "session").to_owned(),
        )
    };

    let mut first = Server::start(&elsewhere, &["--project", p.path()]);
    let (n1, s1) = note(&mut first, "docs", "Headings use sentence case");
    let (n2, s2) = note(
        &mut first,
        "docs/good.md",
        "The product name is spelled Larkspur",
    );
    assert!(
        !s1.is_empty() && s1 == s2,
        "one session per server: {s1} {s2}"
    );
    let summary = first
        .tool("context_session_summary", json!({}))
        .ok("summary");
    let s = &summary.structured;
    assert_eq!(s["session"], s1.as_str(), "{s:#}");
    assert_eq!(s["recorded"], json!([n1, n2]), "{s:#}");
    let entries = array_field(s, "entries");
    assert_eq!(entries.len(), 2, "{s:#}");
    for e in entries {
        assert_eq!(e["actor"], format!("agent:{CLIENT}"), "{s:#}");
        assert_eq!(e["session"], s1.as_str(), "{s:#}");
    }
    assert!(summary.text.contains(&n1), "{}", summary.text);
    assert_eq!(first.close(), 0);

    // The CLI's log reads the same actor and session.
    let log = cli_json(&p.root, &["context", "log", "--json"]);
    let actors: Vec<(&str, &str)> = array_field(&log, "entries")
        .iter()
        .map(|e| (str_field(e, "actor"), str_field(e, "session")))
        .collect();
    let agent = format!("agent:{CLIENT}");
    assert_eq!(
        actors,
        [(agent.as_str(), s1.as_str()), (agent.as_str(), s1.as_str())],
        "{log:#}"
    );

    // Another server process is another session.
    let mut second = Server::start(&elsewhere, &["--project", p.path()]);
    let (_, s3) = note(&mut second, "docs", "Lists end without a full stop");
    assert_ne!(s3, s1, "two server processes share a session");
    let summary = second
        .tool("context_session_summary", json!({}))
        .ok("summary 2");
    assert_eq!(
        summary.structured["recorded"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(second.close(), 0);
}

// ---------------------------------------------------------------------------------------------
// The project is an argument of the call

#[test]
fn a_per_call_project_brings_its_own_governance_without_disturbing_the_default() {
    let alpha = Project::new("alpha", "utilize");
    let beta = Project::new("beta", "leverage");
    let (_tmp, elsewhere) = empty_dir();
    let mut server = Server::start(&elsewhere, &["--project", alpha.path()]);
    let check = |server: &mut Server, project: Option<&str>| {
        let mut args = json!({"path": "docs/bad.md"});
        if let Some(project) = project {
            args["project"] = json!(project);
        }
        let r = server.tool("check_file", args).ok("check_file");
        findings(&r.structured)
    };
    for round in 0..2 {
        for (project, forbidden, allowed) in [
            (None, "utilize", "leverage"),
            (Some(beta.path()), "leverage", "utilize"),
            (Some(alpha.path()), "utilize", "leverage"),
            (Some(beta.path()), "leverage", "utilize"),
            (None, "utilize", "leverage"),
        ] {
            let found = check(&mut server, project);
            let ctx = format!("round {round}, project {project:?}: {found:?}");
            assert!(
                found
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(&format!("terms.forbidden {forbidden}"))),
                "{ctx}"
            );
            assert!(
                !found.iter().any(|f| f.contains(allowed)),
                "{ctx}: another project's rule leaked in"
            );
        }
    }
    // Pipelined: every request sent before any answer is read; each gets its own project's.
    let requests: Vec<(&str, Value)> = (0..6)
        .map(|i| {
            let project = if i % 2 == 0 {
                alpha.path()
            } else {
                beta.path()
            };
            (
                "tools/call",
                json!({"name": "check_file",
                       "arguments": {"path": "docs/bad.md", "project": project}}),
            )
        })
        .collect();
    for (i, answer) in server.pipeline(&requests).iter().enumerate() {
        let found = findings(&answer["result"]["structuredContent"]);
        let (forbidden, allowed) = if i % 2 == 0 {
            ("utilize", "leverage")
        } else {
            ("leverage", "utilize")
        };
        assert!(
            found.contains(&format!("terms.forbidden {forbidden}")),
            "pipelined {i}: {found:?}"
        );
        assert!(
            !found.iter().any(|f| f.contains(allowed)),
            "pipelined {i}: {found:?}"
        );
    }

    // An edit names its project too, and lands only there.
    let read = server
        .tool(
            "read_blocks",
            json!({"doc": "docs/edit.md", "project": beta.path()}),
        )
        .ok("read_blocks beta");
    let block = &read.structured["blocks"][1];
    server
        .tool(
            "apply_edits",
            json!({"project": beta.path(), "operations": [{
                "op": "set_content", "at": block["ref"], "if_match": block["rev"],
                "content": "Open the beta page.",
            }]}),
        )
        .ok("apply_edits beta");
    assert_eq!(beta.read("docs/edit.md"), "# Edit\n\nOpen the beta page.\n");
    assert_eq!(
        alpha.read("docs/edit.md"),
        "# Edit\n\nOpen the page to begin.\n"
    );

    // The resource takes the project too.
    let brief = server.read(&format!("context://docs/bad.md?project={}", beta.path()));
    assert!(
        brief.contains("leverage") && !brief.contains("utilize"),
        "{brief}"
    );
    let brief = server.read("context://docs/bad.md");
    assert!(
        brief.contains("utilize") && !brief.contains("leverage"),
        "{brief}"
    );

    // A `project` that holds no project: an error naming the path.
    let (_none, nowhere) = empty_dir();
    let nowhere = nowhere.to_str().expect("UTF-8 path");
    let r = server
        .tool(
            "check_file",
            json!({"path": "docs/bad.md", "project": nowhere}),
        )
        .err("a project path with no project");
    assert!(r.text.contains(nowhere), "{}", r.text);
    let r = server
        .tool("context_read", json!({"path": "docs", "project": nowhere}))
        .err("context_read with no project");
    assert!(r.text.contains(nowhere), "{}", r.text);
    // …and the server still serves the default afterwards.
    let found = check(&mut server, None);
    assert!(
        found.contains(&"terms.forbidden utilize".to_owned()),
        "after the error: {found:?}"
    );
    assert_eq!(server.close(), 0);
}

// ---------------------------------------------------------------------------------------------
// Bad input

#[test]
fn an_unknown_tool_is_a_json_rpc_error() {
    let (_tmp, dir) = empty_dir();
    let mut server = Server::start(&dir, &[]);
    let message = server.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(message.get("result").is_none(), "{message:#}");
    assert!(message["error"]["code"].is_i64(), "{message:#}");
    // A tool of a set this server does not serve is unknown too.
    let message = server.request(
        "tools/call",
        json!({"name": "list_formats", "arguments": {}}),
    );
    assert!(message["error"]["code"].is_i64(), "{message:#}");
    assert_eq!(server.close(), 0);
}

/// A tool error or a JSON-RPC error, as text.
fn error_text(server: &mut Server, tool: &str, arguments: Value) -> String {
    let message = server.request("tools/call", json!({"name": tool, "arguments": arguments}));
    if let Some(error) = message.get("error") {
        return error.to_string();
    }
    let result = &message["result"];
    assert_eq!(
        result["isError"], true,
        "{tool} {arguments}: not an error: {message:#}"
    );
    result.to_string()
}

#[test]
fn a_missing_argument_is_an_error_naming_it() {
    let p = Project::new("alpha", "utilize");
    let mut server = Server::start(&p.root, &["--project", p.path()]);
    for (tool, arguments, name) in [
        ("check_file", json!({}), "path"),
        ("read_blocks", json!({"limit": 3}), "doc"),
        ("context_search", json!({}), "query"),
        ("apply_edits", json!({}), "operations"),
    ] {
        let text = error_text(&mut server, tool, arguments);
        assert!(
            text.contains(name),
            "{tool}: the error does not name `{name}`: {text}"
        );
    }
    assert_eq!(server.close(), 0);
}

#[test]
fn a_wrong_typed_argument_is_an_error_naming_it() {
    let p = Project::new("alpha", "utilize");
    let mut server = Server::start(&p.root, &["--project", p.path()]);
    let mut unnamed = Vec::new();
    for (tool, arguments, name) in [
        ("check_file", json!({"path": 5}), "path"),
        (
            "read_blocks",
            json!({"doc": "docs/good.md", "limit": "ten"}),
            "limit",
        ),
        ("context_search", json!({"query": ["a"]}), "query"),
        (
            "check_file",
            json!({"path": "docs/good.md", "project": 7}),
            "project",
        ),
        ("apply_edits", json!({"operations": "all"}), "operations"),
        (
            "apply_edits",
            json!({"operations": [], "project": 7}),
            "project",
        ),
    ] {
        let text = error_text(&mut server, tool, arguments.clone());
        if !text.contains(name) {
            unnamed.push(format!("{tool} {arguments}: {text}"));
        }
    }
    assert!(
        unnamed.is_empty(),
        "errors that do not name the argument:\n{}",
        unnamed.join("\n")
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn a_path_escaping_the_project_is_an_error() {
    let p = Project::new("alpha", "utilize");
    let (_tmp, outside) = empty_dir();
    std::fs::write(outside.join("x.md"), "# X\n\nUtilize it.\n").expect("write");
    let abs = outside.join("x.md").display().to_string();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("x.md"), p.root.join("docs/link.md")).expect("symlink");
    let mut server = Server::start(&outside, &["--project", p.path()]);
    // `../<the other folder>/x.md`: a file that exists, reached by climbing out.
    let up = format!(
        "../{}/x.md",
        outside
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 folder name")
    );
    assert!(p.root.join(&up).exists(), "{up}");
    let mut cases = vec![
        ("check_file", json!({"path": up})),
        ("check_file", json!({"path": abs})),
        ("read_blocks", json!({"doc": up})),
        ("read_blocks", json!({"doc": abs})),
        ("context_read", json!({"path": up})),
        ("context_note", json!({"path": up, "text": "Outside"})),
        (
            "apply_edits",
            json!({"operations": [{"op": "set_content",
                "at": {"doc": up, "block": "x/p"},
                "if_match": "r0000000000000000", "content": "Y"}]}),
        ),
    ];
    if cfg!(unix) {
        cases.push(("check_file", json!({"path": "docs/link.md"})));
        cases.push(("read_blocks", json!({"doc": "docs/link.md"})));
    }
    for (tool, arguments) in cases {
        let text = error_text(&mut server, tool, arguments.clone());
        assert!(
            text.contains("outside") || text.contains("leaves the project"),
            "{tool} {arguments}: {text}"
        );
    }
    for uri in [format!("context://{up}"), format!("context://{abs}")] {
        let message = server.request("resources/read", json!({"uri": uri}));
        assert!(message["error"]["code"].is_i64(), "{uri}: {message:#}");
    }
    // A path that climbs out to nothing is an error too.
    error_text(
        &mut server,
        "check_file",
        json!({"path": "../nothing-here.md"}),
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("x.md")).expect("read"),
        "# X\n\nUtilize it.\n",
        "nothing outside the project changed"
    );
    assert_eq!(server.close(), 0);
}

/// A file outside the project that does not exist is refused as outside the project, never
/// as missing: the policy answer comes first, whether or not the file is there (every tool
/// that takes a path, in each set).
/// A tool's path is read against the project's root, also when it leads outside the project
/// and `detect_format`/`describe_format` judge it by its name alone: from a server started
/// two folders away, `../shared/x.json` is the file beside the project, not one beside the
/// server's folder.
#[test]
fn detect_format_reads_a_path_outside_the_project_against_its_root() {
    let p = Project::new("alpha", "utilize");
    let (_tmp, dir) = empty_dir();
    let away = dir.join("a/b");
    std::fs::create_dir_all(&away).expect("a folder away");
    let beside = p
        .root
        .parent()
        .expect("the project has a parent")
        .join("shared/x.json");
    let mut server = Server::start(&away, &["--project", p.path(), "--tools", "content"]);
    let detected = server
        .tool("detect_format", json!({"path": "../shared/x.json"}))
        .ok("detect_format")
        .structured;
    assert_eq!(
        str_field(&detected, "path"),
        beside.display().to_string(),
        "{detected}"
    );
    assert_eq!(server.close(), 0);
}

/// `check_file` resolves its path once, against the project root, and hands the check that
/// resolved path: a named pipe is refused naming it as the caller did (`docs/pipe.md`), not
/// as an absolute path a second resolution would have made of it.
#[test]
#[cfg(unix)]
fn check_file_names_a_refused_path_as_the_caller_gave_it() {
    let p = Project::new("alpha", "utilize");
    let pipe = p.root.join("docs/pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut server = Server::start(&p.root, &["--project", p.path()]);
    let text = error_text(&mut server, "check_file", json!({"path": "docs/pipe.md"}));
    assert!(
        text.contains("`docs/pipe.md` is not a regular file (it is a named pipe)"),
        "{text}"
    );
    let root = p.root.display().to_string();
    assert!(!text.contains(&root), "names the absolute path: {text}");
    assert_eq!(server.close(), 0);
}

#[test]
fn a_missing_file_outside_the_project_is_refused_as_outside() {
    let p = Project::new("alpha", "utilize");
    let (_tmp, outside) = empty_dir();
    let abs = outside.join("gone.md").display().to_string();
    let up = "../kapi-no-such-folder/gone.md";
    assert!(!p.root.join(up).exists(), "{up}");
    let apply = |doc: &str| {
        json!({"operations": [{"op": "set_content", "at": {"doc": doc, "block": "x/p"},
            "if_match": "r0000000000000000", "content": "Y"}]})
    };
    let sets = [
        (
            "writing",
            vec![
                ("check_file", json!({"path": up})),
                ("check_file", json!({"path": abs})),
                ("read_blocks", json!({"doc": up})),
                ("read_blocks", json!({"doc": abs})),
                ("context_read", json!({"path": up})),
                ("context_note", json!({"path": up, "text": "Outside"})),
                // (A `..` in a doc is refused as the set decodes.)
                ("apply_edits", apply(&abs)),
            ],
        ),
        (
            "review",
            vec![(
                "review_block",
                json!({"at": {"doc": up, "block": "x", "edition": "fr"}}),
            )],
        ),
        (
            "content",
            vec![("check_text", json!({"text": "Hello.", "context_path": up}))],
        ),
        ("translation", vec![("stats", json!({"doc": up}))]),
    ];
    for (set, cases) in sets {
        let mut server = Server::start(&p.root, &["--project", p.path(), "--tools", set]);
        for (tool, arguments) in cases {
            let text = error_text(&mut server, tool, arguments.clone());
            assert!(
                text.contains("outside the project"),
                "{tool} {arguments}: {text}"
            );
            assert!(
                !text.contains("no such file") && !text.contains("no document"),
                "{tool} {arguments}: {text}"
            );
        }
        assert_eq!(server.close(), 0);
    }
}

#[test]
fn garbage_between_requests_leaves_the_server_serving() {
    let (_tmp, dir) = empty_dir();
    let mut server = Server::start(&dir, &[]);
    let before = server.tool_names();
    for garbage in [
        "this is not json",
        "{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\":",
        "[1, 2, 3]",
        "{\"jsonrpc\": \"1.0\", \"id\": \"x\"}",
        "{}",
    ] {
        server.send_raw(garbage);
        assert_eq!(server.tool_names(), before, "after `{garbage}`");
    }
    let r = server
        .tool("describe_format", json!({"format": "markdown"}))
        .ok("describe_format after garbage");
    assert_eq!(r.structured["id"], "markdown", "{:#}", r.structured);
    assert_eq!(server.close(), 0);
}

/// A line that is no message is answered as JSON-RPC 2.0 says: not JSON `Parse error`
/// (-32700), a request MCP defines with params that do not fit it `Invalid params` (-32602),
/// other JSON `Invalid request` (-32600); to the line's id when it has one, else with no id.
#[test]
fn a_line_that_is_no_message_is_answered_with_its_json_rpc_error() {
    let (_tmp, dir) = empty_dir();
    let mut server = Server::start(&dir, &[]);
    let roots = "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"roots/list\"}";
    for (line, code, id) in [
        (roots, -32601, json!(7)),
        ("this is not json", -32700, Value::Null),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\":",
            -32700,
            Value::Null,
        ),
        ("[1, 2, 3]", -32600, Value::Null),
        (
            "{\"jsonrpc\": \"1.0\", \"id\": \"x\", \"method\": \"ping\"}",
            -32600,
            json!("x"),
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": {\"name\": 7}}",
            -32602,
            json!(5),
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"resources/read\", \"params\": []}",
            -32602,
            json!(6),
        ),
    ] {
        server.send_raw(line);
        let answer = server.next_message();
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        // No readable id: rmcp leaves the member out (JSON-RPC writes null).
        assert_eq!(
            answer.get("id").cloned().unwrap_or(Value::Null),
            id,
            "{line}: {answer}"
        );
        assert_eq!(
            answer.get("id").is_some(),
            !id.is_null(),
            "{line}: {answer}"
        );
    }
    let r = server
        .tool("describe_format", json!({"format": "markdown"}))
        .ok("describe_format after the refusals");
    assert_eq!(r.structured["id"], "markdown", "{:#}", r.structured);
    assert_eq!(server.close(), 0);
}

/// `kapi redact` and MCP's `redact` are one service: the same `kapi.redact/v1` for the same
/// text. The CLI prints the masked text alone on stdout (so it pipes) and what it masked on
/// stderr; input that is not UTF-8, or a file that is not there, exits 1.
#[test]
fn kapi_redact_and_the_redact_tool_give_the_same_report() {
    let (_tmp, dir) = empty_dir();
    let text =
        "Mail ana@example.org or call +44 20 7946 0958.\nkey sk-proj-abc123def456ghi789jkl0\n";
    std::fs::write(dir.join("notes.txt"), text).expect("write");
    let cli_report = cli_json(&dir, &["redact", "--json", "notes.txt"]);
    let mut server = Server::start(&dir, &["--tools", "content"]);
    let tool = server.tool("redact", json!({"text": text})).ok("redact");
    assert_eq!(server.close(), 0);
    assert_eq!(
        cli_report, tool.structured,
        "kapi redact --json vs the redact tool"
    );
    assert_eq!(cli_report["schema"], "kapi.redact/v1");
    let kinds: Vec<&str> = cli_report["redactions"]
        .as_array()
        .expect("redactions")
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["email", "phone", "secret_key"]);

    let out = crate::common::cli_with(&dir, Bind::Explicit, &[], &["redact"], Some(text));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "Mail [redacted:email] or call [redacted:phone].\nkey [redacted:secret_key]\n"
    );
    assert_eq!(out.stderr, "redacted: 1 email, 1 phone, 1 secret_key\n");
    let out = crate::common::cli_with(
        &dir,
        Bind::Explicit,
        &[],
        &["redact", "-"],
        Some("Plain words.\n"),
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, "Plain words.\n"));
    assert_eq!(out.stderr, "nothing to redact\n");

    std::fs::write(dir.join("latin1.txt"), b"caf\xe9\n").expect("write");
    let out = cli(&dir, Bind::Explicit, &["redact", "latin1.txt"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("latin1.txt:1:4"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    let out = cli(&dir, Bind::Explicit, &["redact", "missing.txt"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("missing.txt"), "{}", out.stderr);
}

/// `kapi formats detect` and MCP's `detect_format` are one service: the same
/// `kapi.detect-format/v1` for a path, a text, or both; the verb exits 1 when no format reads
/// it.
#[test]
fn kapi_formats_detect_and_the_detect_format_tool_give_the_same_report() {
    let (_tmp, dir) = empty_dir();
    let xliff = "<xliff version=\"2.0\"></xliff>\n";
    // The tool's arguments; the verb's, its stdin, its exit code; the format found.
    type Case<'a> = (Value, &'a [&'a str], Option<&'a str>, i32, &'a str);
    let cases: [Case; 4] = [
        (
            json!({"path": "docs/a.md"}),
            &["docs/a.md"],
            None,
            0,
            "markdown",
        ),
        (
            json!({"content": "{\"a\": 1}\n"}),
            &["-"],
            Some("{\"a\": 1}\n"),
            0,
            "json",
        ),
        (
            json!({"path": "x.xlf", "content": xliff}),
            &["x.xlf", "--stdin"],
            Some(xliff),
            0,
            "xliff2",
        ),
        (json!({"path": "a.exe"}), &["a.exe"], None, 1, ""),
    ];
    let mut server = Server::start(&dir, &["--tools", "content"]);
    for (arguments, args, stdin, code, id) in cases {
        let tool = server
            .tool("detect_format", arguments.clone())
            .ok("detect_format");
        let mut argv = vec!["formats", "detect", "--json"];
        argv.extend_from_slice(args);
        let out = crate::common::cli_with(&dir, Bind::Explicit, &[], &argv, stdin);
        assert_eq!(out.code, code, "{argv:?}: {}", out.stderr);
        let report = out.json(&format!("{argv:?}"));
        assert_eq!(
            report, tool.structured,
            "{argv:?} vs detect_format {arguments}"
        );
        assert_eq!(report["schema"], "kapi.detect-format/v1");
        // `format` is `null` where nothing was detected (the empty id above).
        let found = match report.get("format") {
            Some(Value::Null) => "",
            Some(format) => str_field(format, "id"),
            None => panic!("{argv:?}: no `format` field in {report:#}"),
        };
        assert_eq!(found, id, "{argv:?}");
    }
    assert_eq!(server.close(), 0);
}

#[test]
fn a_client_that_closes_stdin_ends_the_server_with_exit_0() {
    let p = Project::new("alpha", "utilize");
    // Idle.
    let server = Server::start(&p.root, &["--project", p.path()]);
    assert_eq!(server.close(), 0, "idle");
    // Mid-call: a request sent, stdin closed before its answer is read.
    let mut server = Server::start(&p.root, &["--project", p.path()]);
    server.send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "check_file", "arguments": {"path": "docs/bad.md"}}}));
    assert_eq!(server.close(), 0, "mid-call");
}

#[test]
fn a_client_that_closes_stdin_before_initializing_ends_the_server_with_exit_0() {
    let (_tmp, dir) = empty_dir();
    let server = Server::spawn(&dir, Bind::Explicit, &[]);
    let stderr = server.stderr.clone();
    let code = server.close();
    let stderr = stderr.lock().map(|s| s.clone()).unwrap_or_default();
    assert_eq!(code, 0, "stderr: {stderr}");
}

#[test]
fn every_content_check_tool_has_a_passing_and_a_failing_text() {
    let p = Project::new("alpha", "utilize");
    let mut server = Server::start(&p.root, &["--project", p.path(), "--tools", "content"]);
    let good = "Sign in, then open the page to begin.\n";
    let bad = "Log in, then utilize the page!!\n";
    for tool in ["check_text", "voice_check", "term-check"] {
        let pass = server
            .tool(tool, json!({"text": good, "context_path": "docs/new.md"}))
            .ok(tool);
        let count = |v: &Value| v["findings"].as_array().map_or(0, Vec::len);
        assert_eq!(
            count(&pass.structured),
            0,
            "{tool} on a good text: {}",
            pass.text
        );
        let fail = server
            .tool(tool, json!({"text": bad, "context_path": "docs/new.md"}))
            .ok(tool);
        assert!(
            count(&fail.structured) > 0,
            "{tool} on a bad text: {}",
            fail.text
        );
        if tool != "voice_check" {
            // The bad text's forbidden term fails the gate; the voice's own finding is minor.
            assert_eq!(fail.structured["pass"], false, "{tool}: {}", fail.text);
        }
    }
    // The CLI reports the same findings for the same text saved at that path.
    p.write("docs/new.md", bad);
    let cli = cli_json(&p.root, &["check", "docs/new.md", "--json"]);
    let mcp = server
        .tool(
            "check_text",
            json!({"text": bad, "context_path": "docs/new.md"}),
        )
        .ok("check_text");
    assert_eq!(findings(&mcp.structured), findings(&cli));
    let both = server.tool(
        "check_text",
        json!({"text": bad, "context_path": "docs/new.md", "profile": "alpha"}),
    );
    assert!(
        both.err("context_path and profile")
            .text
            .contains("context_path")
    );
    let rewrite = server
        .tool(
            "voice_rewrite",
            json!({"text": "We utilize caches.", "context_path": "docs/new.md"}),
        )
        .ok("voice_rewrite");
    assert!(
        !str_field(&rewrite.structured, "text").contains("utilize"),
        "{}",
        rewrite.text
    );
    let redacted = server
        .tool(
            "redact",
            json!({"text": "Mail ana@example.com, key AKIAIOSFODNN7EXAMPLE."}),
        )
        .ok("redact");
    let text = str_field(&redacted.structured, "text");
    assert!(
        !text.contains("ana@example.com") && !text.contains("AKIA"),
        "{text}"
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn the_2026_07_28_lifecycle_names_the_agent_from_each_requests_meta() {
    let p = Project::new("alpha", "utilize");
    let mut server = Server::spawn(&p.root, Bind::Explicit, &["--project", p.path()]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "future-agent", "version": "9"}
    });
    let discover = server.request("server/discover", json!({"_meta": meta}));
    assert!(
        discover.get("result").is_some(),
        "server/discover: {discover}"
    );
    let note = server.result(
        "tools/call",
        json!({"name": "context_note", "_meta": meta,
               "arguments": {"path": "docs", "text": "Headings use sentence case"}}),
    );
    assert_eq!(note["isError"], false, "{note}");
    assert_eq!(
        note["structuredContent"]["suggestion"]["actor_name"],
        "future-agent"
    );
    assert_eq!(
        note["structuredContent"]["suggestion"]["actor_kind"],
        "agent"
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn an_oversized_call_is_refused_and_the_server_keeps_serving() {
    let p = Project::new("alpha", "utilize");
    let mut server = Server::start(&p.root, &["--project", p.path()]);
    let huge = "x".repeat(9 * 1024 * 1024);
    let refused = server
        .tool("context_search", json!({"query": huge}))
        .err("oversized");
    assert!(refused.text.contains("at most"), "{}", refused.text);
    // A line over the transport's 16 MiB is refused whole, to its id, naming the limit; the
    // server keeps serving.
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":999,\"method\":\"tools/call\",\"params\":{{\"name\":\"context_search\",\"arguments\":{{\"query\":\"{}\"}}}}}}",
        "x".repeat(17 * 1024 * 1024)
    );
    server.send_raw(&line);
    let (_, refused) = server.answer(999, "the line over 16 MiB");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("16 MiB")),
        "{refused}"
    );
    server
        .tool("check_file", json!({"path": "docs/good.md"}))
        .ok("the next call");
    assert_eq!(server.close(), 0);
}

// ---------------------------------------------------------------------------------------------
// Concurrency and cancellation (issue 15, item 7)

/// A text whose check takes a while in any build: 4 MB of a word the voice forbids, so every
/// word is a finding and every pair a repeated word.
fn slow_text() -> String {
    "utilize ".repeat(500_000)
}

/// Sends a request without waiting; its id.
fn send_request(server: &mut Server, method: &str, params: Value) -> u64 {
    let id = server.next;
    server.next += 1;
    server.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    id
}

/// The ids of the responses read until every one of `until` has answered, in arrival order.
fn responses_until(server: &mut Server, until: &[u64]) -> Vec<u64> {
    let deadline = std::time::Instant::now() + crate::common::TIMEOUT;
    let mut seen = Vec::new();
    while !until.iter().all(|id| seen.contains(id)) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = server.lines.recv_timeout(left).unwrap_or_else(|e| {
            panic!(
                "{}: waiting for {until:?}, answered {seen:?} ({e:?})\nstderr: {}",
                server.ctx,
                server.stderr()
            )
        });
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("{}: not JSON-RPC ({e}): {line:.300}", server.ctx));
        if let Some(id) = message["id"].as_u64()
            && (message.get("result").is_some() || message.get("error").is_some())
        {
            seen.push(id);
        }
    }
    seen
}

#[test]
fn a_slow_check_text_holds_back_neither_a_ping_nor_a_fast_call() {
    let p = Project::new("slow", "utilize");
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &["--all"], PROTOCOL);
    let slow = send_request(
        &mut server,
        "tools/call",
        json!({"name": "check_text", "arguments": {"text": slow_text()}}),
    );
    let fast = send_request(
        &mut server,
        "tools/call",
        json!({"name": "check_text", "arguments": {"text": "Sign in to begin.\n"}}),
    );
    let ping = send_request(&mut server, "ping", json!({}));
    let order = responses_until(&mut server, &[slow, fast, ping]);
    assert_eq!(order.last(), Some(&slow), "answered in the order {order:?}");
    assert!(order.contains(&fast) && order.contains(&ping), "{order:?}");
    assert_eq!(server.close(), 0);
}

#[test]
fn a_cancelled_check_text_is_never_answered_and_the_server_keeps_serving() {
    let p = Project::new("cancel", "utilize");
    let (mut server, _) = Server::start_with(&p.root, Bind::Discover, &["--all"], PROTOCOL);
    let slow = send_request(
        &mut server,
        "tools/call",
        json!({"name": "check_text", "arguments": {"text": slow_text()}}),
    );
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": slow, "reason": "the user moved on"}}),
    );
    let ping = send_request(&mut server, "ping", json!({}));
    let order = responses_until(&mut server, &[ping]);
    assert!(
        !order.contains(&slow),
        "the cancelled call answered: {order:?}"
    );
    // A notice for a request already answered, or never made, is ignored.
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": ping}}),
    );
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 4242}}),
    );
    // A short extra window for a late answer, then the server still serves calls.
    let late = std::time::Instant::now() + std::time::Duration::from_millis(500);
    while let Some(left) = late.checked_duration_since(std::time::Instant::now()) {
        match server.lines.recv_timeout(left) {
            Ok(line) => {
                let message: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line:.300}"));
                assert_ne!(
                    message["id"],
                    json!(slow),
                    "the cancelled call answered: {line:.300}"
                );
            }
            Err(_) => break,
        }
    }
    server
        .tool("check_file", json!({"path": "docs/good.md"}))
        .ok("a call after the cancelled one");
    assert!(server.request("ping", json!({})).get("result").is_some());
    assert_eq!(server.close(), 0);
}
