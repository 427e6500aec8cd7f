//! The conformance suite of the two surfaces: every MCP tool has a command (`docs/mcp.md`'s
//! table, checked against what `kapi mcp --all` serves), and each pair the table marks
//! `compared` gives the same JSON for the same input on a copy of the Kestrel fixture
//! project. Only the binary is driven: `kapi mcp` over stdio and `kapi … --json`.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::wire::str_field;
use crate::common::{Bind, PROTOCOL, Server, cli_with, copy_dir, workspace};

/// The session both surfaces run in, so the session summary names the same one.
const SESSION: &str = "parity-session";

/// A draft with a forbidden word, a minimiser and a term, for the text tools.
const DRAFT: &str = "# Boarding\n\nSimply utilize the app to login.\n";

/// One pair: the tool and its arguments; the command's arguments and its standard input.
struct Pair {
    tool: &'static str,
    arguments: Value,
    command: &'static [&'static str],
    stdin: Option<&'static str>,
}

fn pairs() -> Vec<Pair> {
    let text = |tool, extra: Value, command| {
        let mut arguments = json!({"text": DRAFT, "context_path": "docs/guides/new.md"});
        if let (Some(a), Some(e)) = (arguments.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        Pair {
            tool,
            arguments,
            command,
            stdin: Some(DRAFT),
        }
    };
    let plain = |tool, arguments, command| Pair {
        tool,
        arguments,
        command,
        stdin: None,
    };
    vec![
        text(
            "check_text",
            json!({}),
            &[
                "check",
                "--text",
                "-",
                "--context-path",
                "docs/guides/new.md",
            ],
        ),
        text(
            "voice_check",
            json!({}),
            &[
                "check",
                "--text",
                "-",
                "--context-path",
                "docs/guides/new.md",
                "--only",
                "voice",
            ],
        ),
        text(
            "term-check",
            json!({}),
            &[
                "check",
                "--text",
                "-",
                "--context-path",
                "docs/guides/new.md",
                "--only",
                "terms",
            ],
        ),
        text(
            "voice_rewrite",
            json!({}),
            &["rewrite", "-", "--context-path", "docs/guides/new.md"],
        ),
        plain(
            "detect_format",
            json!({"path": "app/i18n/en-US.json"}),
            &["formats", "detect", "app/i18n/en-US.json"],
        ),
        Pair {
            tool: "redact",
            arguments: json!({"text": "Mail ana@example.org\n"}),
            command: &["redact", "-"],
            stdin: Some("Mail ana@example.org\n"),
        },
        plain(
            "context_read",
            json!({"path": "docs/guides/boarding.md", "format": "json"}),
            &["context", "docs/guides/boarding.md"],
        ),
        plain(
            "context_search",
            json!({"query": "board"}),
            &["context", "search", "board"],
        ),
        plain(
            "context_session_summary",
            json!({}),
            &["context", "log", "--summary"],
        ),
        plain(
            "check_file",
            json!({"path": "docs/guides/boarding.md"}),
            &["check", "docs/guides/boarding.md"],
        ),
        plain("stats", json!({}), &["stats"]),
        plain(
            "stats",
            json!({"paths": ["docs", "app/i18n/en-US.json"]}),
            &["stats", "docs", "app/i18n/en-US.json"],
        ),
        plain(
            "stats",
            json!({"doc": "app/i18n/de.json"}),
            &["stats", "app/i18n/de.json"],
        ),
        plain(
            "up_plan",
            json!({"lang": "es"}),
            &["stats", "--plan", "--lang", "es"],
        ),
        plain(
            "review_queue",
            json!({"lang": "de"}),
            &["review", "--lang", "de"],
        ),
        plain(
            "review_queue",
            json!({"lang": "de", "all": true, "limit": 3}),
            &["review", "--lang", "de", "--all", "--limit", "3"],
        ),
        plain(
            "review_queue",
            json!({"lang": "de", "actor": "tool", "since": "2026-01-01"}),
            &[
                "review",
                "--lang",
                "de",
                "--actor",
                "tool",
                "--since",
                "2026-01-01",
            ],
        ),
        plain(
            "review_block",
            json!({"at": {"doc": "app/i18n/en-US.json", "block": "hello", "edition": "de"}}),
            &[
                "review",
                "--doc",
                "app/i18n/en-US.json",
                "--lang",
                "de",
                "--block",
                "hello",
            ],
        ),
        plain("list_formats", json!({}), &["formats"]),
        plain(
            "describe_format",
            json!({"format": "po"}),
            &["formats", "describe", "po"],
        ),
        plain(
            "describe_format",
            json!({"path": "app/i18n/en-US.json"}),
            &["formats", "describe", "--path", "app/i18n/en-US.json"],
        ),
        plain("list_profiles", json!({}), &["context", "profiles"]),
        plain("list_collections", json!({}), &["context", "collections"]),
    ]
}

/// The table's rows: `(tool, parity)`, the tool without its backticks.
fn table() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(workspace().join("docs/mcp.md")).expect("docs/mcp.md");
    doc.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
            let tool = cells.first()?.strip_prefix("| `")?.strip_suffix('`')?;
            let parity = cells.last()?.strip_suffix(" |")?;
            Some((tool.to_owned(), parity.to_owned()))
        })
        .collect()
}

/// A copy of the Kestrel fixture under `tmp`, given a voice (a minimiser prohibited,
/// `utilize` forbidden) and a term (`login` deprecated for `sign in`), so the text tools
/// have findings to agree on.
fn kestrel(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("kestrel");
    copy_dir(&workspace().join("testdata/projects/kestrel"), &dir);
    let write = |rel: &str, text: &str| std::fs::write(dir.join(rel), text).expect("write");
    write(
        ".kapi/voice.yaml",
        "name: Kestrel\nstyle:\n  prohibited_patterns:\n    - regex: '(?i)\\bsimply\\b'\n      description: No minimisers\n      severity: major\nvocabulary:\n  forbidden:\n    - term: utilize\n      replacement: use\n",
    );
    write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - {text: sign in, lang: en-US, status: preferred}\n      - {text: login, lang: en-US, status: deprecated, replacement: sign in}\n",
    );
    dir
}

/// What may differ between two runs of the same answer: the instant a listing was judged at.
/// An answer without what differs between two runs by design: the clock (`now`), and how
/// the check cache served the run (`cache`: the second of two checks reuses the first's).
fn settled(mut value: Value) -> Value {
    if let Some(o) = value.as_object_mut() {
        o.remove("now");
        o.remove("cache");
    }
    value
}

#[test]
fn every_tool_has_a_command_in_the_parity_table() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mut server, _) =
        Server::spawn(tmp.path(), Bind::Explicit, &["--all"]).initialize(PROTOCOL);
    let served: BTreeSet<String> = server.tool_names().into_iter().collect();
    assert_eq!(server.close(), 0);
    let rows = table();
    let listed: BTreeSet<String> = rows.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(
        listed, served,
        "docs/mcp.md's table against `kapi mcp --all`"
    );
    let compared: BTreeSet<String> = rows
        .iter()
        .filter(|(_, p)| p == "compared")
        .map(|(t, _)| t.clone())
        .collect();
    let run: BTreeSet<String> = pairs().iter().map(|p| p.tool.to_owned()).collect();
    assert_eq!(
        compared, run,
        "each `compared` row is a pair this suite runs"
    );
}

#[test]
fn each_tool_and_its_command_give_the_same_json() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = kestrel(tmp.path());
    let env = [("KAPI_SESSION", SESSION)];
    let (mut server, _) =
        Server::spawn_env(&dir, Bind::Discover, &["--all"], &env).initialize(PROTOCOL);
    // Each tool's declared output schema pins the id its answers carry.
    let declared: std::collections::BTreeMap<String, Value> = server
        .tools()
        .into_iter()
        .filter_map(|t| {
            let name = t["name"].as_str()?.to_owned();
            Some((
                name,
                t["outputSchema"]["properties"]["schema"]["const"].clone(),
            ))
        })
        .collect();
    for pair in pairs() {
        let tool = server.tool(pair.tool, pair.arguments.clone());
        assert!(!tool.is_error, "{}: {tool:#?}", pair.tool);
        assert_eq!(
            declared.get(pair.tool),
            Some(&tool.structured["schema"]),
            "{}: the output schema's id against the answer's",
            pair.tool
        );
        let mut command = pair.command.to_vec();
        command.push("--json");
        let out = cli_with(&dir, Bind::Discover, &env, &command, pair.stdin);
        let ctx = format!("kapi {}", command.join(" "));
        assert!(out.code == 0 || out.code == 3, "{ctx}: {}", out.stderr);
        assert_eq!(
            settled(out.json(&ctx)),
            settled(tool.structured),
            "{ctx} against the {} tool",
            pair.tool
        );
    }
    assert_eq!(server.close(), 0);
}

/// Every tool `kapi mcp --all` serves answers at least once, and (as every call through
/// [`Server::tool`] is) its `structuredContent` conforms to the `outputSchema` tools/list
/// declared for it: the pairs above, then the three tools no command pairs (`read_blocks`,
/// `apply_edits`, `context_note`), on the Kestrel copy.
#[test]
fn every_tool_answers_as_its_output_schema_declares() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = kestrel(tmp.path());
    let env = [("KAPI_SESSION", SESSION)];
    let (mut server, _) =
        Server::spawn_env(&dir, Bind::Discover, &["--all"], &env).initialize(PROTOCOL);
    let served: BTreeSet<String> = server.tool_names().into_iter().collect();
    let mut answered = BTreeSet::new();
    let mut call = |server: &mut Server, tool: &str, arguments: Value| {
        let answer = server.tool(tool, arguments).ok(tool);
        answered.insert(tool.to_owned());
        answer
    };
    for pair in pairs() {
        call(&mut server, pair.tool, pair.arguments.clone());
    }
    let doc = "docs/guides/boarding.md";
    let read = call(&mut server, "read_blocks", json!({"doc": doc}));
    let block = read.structured["blocks"][0].clone();
    let applied = call(
        &mut server,
        "apply_edits",
        json!({"operations": [{
            "op": "set_content", "at": block["ref"], "if_match": block["rev"],
            "content": "Boarding the shuttle"
        }]}),
    );
    assert_eq!(
        applied.structured["status"], "applied",
        "{:#}",
        applied.structured
    );
    call(
        &mut server,
        "context_note",
        json!({"path": "docs", "text": "Gates are written as words"}),
    );
    // After a note and a change, the summary has entries to describe.
    call(&mut server, "context_session_summary", json!({}));
    // An agent's advice and a person's decision, so `review_block` lists one of each.
    let hello = json!({"at": {"doc": "app/i18n/en-US.json", "block": "hello", "edition": "de"}});
    let item = call(&mut server, "review_block", hello.clone());
    let (at, rev) = (&item.structured["ref"], &item.structured["rev"]);
    call(
        &mut server,
        "apply_edits",
        json!({"operations": [{"op": "decide", "at": at, "if_match": rev,
                               "outcome": "advise", "score": 80, "reasons": ["clear"]}]}),
    );
    let decide = json!({"schema": "kapi.change/v1", "operations": [
        {"op": "decide", "at": at, "if_match": rev, "outcome": "establish"}]});
    let person = [("KAPI_ACTOR", "person:ana")];
    let out = cli_with(
        &dir,
        Bind::Discover,
        &person,
        &["apply", "-", "--json"],
        Some(&decide.to_string()),
    );
    assert_eq!(out.code, 0, "a decision: {}{}", out.stdout, out.stderr);
    let item = call(&mut server, "review_block", hello);
    for listed in ["decisions", "advice"] {
        let count = item.structured[listed].as_array().map_or(0, Vec::len);
        assert_eq!(count, 1, "{listed}: {:#}", item.structured);
    }
    // Translation: a dry run of each, then pseudo-localization written for real, as a tool.
    let catalog = json!({"paths": ["app/i18n/en-US.json"], "provider": "pseudo", "dry_run": true});
    call(&mut server, "translate", catalog);
    call(
        &mut server,
        "up",
        json!({"provider": "pseudo", "dry_run": true}),
    );
    let pseudo = call(&mut server, "pseudo_translate", json!({"to": ["es"]}));
    assert_eq!(
        pseudo.structured["actor"], "tool:pseudo",
        "{:#}",
        pseudo.structured
    );
    let es = std::fs::read_to_string(dir.join("app/i18n/es.json")).expect("es.json written");
    assert!(es.contains("[Héllö~~]"), "{es}");
    assert_eq!(answered, served, "tools answered against tools served");
    assert_eq!(server.close(), 0);
}

/// The new commands' refusals and exit codes: a failing text exits 3, bad flag pairs 2, no
/// project 1; `kapi rewrite` prints the text alone and what it swapped on stderr.
#[test]
fn the_text_and_translation_commands_refuse_with_their_codes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = kestrel(tmp.path());
    let run = |args: &[&str], stdin: Option<&str>| cli_with(&dir, Bind::Discover, &[], args, stdin);
    let cases: [(&[&str], i32, &str); 10] = [
        (
            &["check", "--text", "-", "--context-path", "docs/a.md"],
            0,
            "",
        ),
        (&["check", "--text", "-", "--lang", "de"], 2, "--only"),
        (
            &[
                "check", "--text", "-", "--only", "voice", "--format", "sarif",
            ],
            2,
            "--only",
        ),
        (
            &[
                "check",
                "--text",
                "-",
                "--context-path",
                "docs/a.md",
                "--profile",
                "kestrel",
            ],
            2,
            "cannot be combined with context_path",
        ),
        (&["check", "--text", "-", "--as", "nope"], 1, "nope"),
        (
            &["check", "--text", "-", "--context-path", "../out.md"],
            1,
            "../out.md",
        ),
        (&["review", "--block", "hello"], 2, "--doc"),
        (&["formats", "describe", "nope"], 1, "`nope`"),
        (&["formats", "describe", "--path", "a.zzz"], 1, "a.zzz"),
        (&["formats", "describe"], 2, "FORMAT"),
    ];
    for (args, code, says) in cases {
        let out = run(args, Some("Board the bus.\n"));
        assert_eq!(out.code, code, "kapi {}: {}", args.join(" "), out.stderr);
        assert!(
            out.stderr.contains(says),
            "kapi {}: {}",
            args.join(" "),
            out.stderr
        );
    }
    let failing = run(&["check", "--text", "-", "--fail-on", "minor"], Some(DRAFT));
    assert_eq!(failing.code, 3, "{}", failing.stderr);
    // `--only` reports take the whole gate: a score below `--min-score` fails them too.
    for only in ["voice", "terms"] {
        let base = [
            "check",
            "--text",
            "-",
            "--context-path",
            "scratch/new.md",
            "--only",
            only,
            "--fail-on",
            "critical",
        ];
        let held = run(&base, Some(DRAFT));
        assert_eq!(held.code, 0, "--only {only}: {}", held.stderr);
        let strict = run(&[&base[..], &["--min-score", "100"]].concat(), Some(DRAFT));
        assert_eq!(
            strict.code, 3,
            "--only {only} --min-score 100: {}",
            strict.stderr
        );
        // `--format` wins over `--json`, as for the whole report.
        let text = run(
            &[&base[..], &["--json", "--format", "text"]].concat(),
            Some(DRAFT),
        );
        assert!(
            text.stdout.starts_with("PASS · "),
            "--only {only}: {}",
            text.stdout
        );
    }
    let rewrite = run(
        &["rewrite", "--context-path", "docs/guides/new.md"],
        Some(DRAFT),
    );
    assert_eq!(rewrite.code, 0, "{}", rewrite.stderr);
    let swapped = cli_with(
        &dir,
        Bind::Discover,
        &[],
        &["rewrite", "--json", "--context-path", "docs/guides/new.md"],
        Some(DRAFT),
    )
    .json("kapi rewrite --json");
    assert_eq!(rewrite.stdout, str_field(&swapped, "text"));
    assert!(
        rewrite.stderr.contains("replacement(s)"),
        "{}",
        rewrite.stderr
    );
    let empty = tempfile::tempdir().expect("temp dir");
    for args in [&["stats"][..], &["review"], &["context", "profiles"]] {
        let out = cli_with(empty.path(), Bind::Explicit, &[], args, None);
        assert_eq!(out.code, 1, "kapi {}: {}", args.join(" "), out.stderr);
    }
    // No project: the hygiene rules alone, under the gate the flags set.
    let sloppy = Some("Very very good.\n");
    let loose = cli_with(
        empty.path(),
        Bind::Explicit,
        &[],
        &["check", "--text", "-"],
        sloppy,
    );
    assert_eq!(loose.code, 0, "{}", loose.stderr);
    for flags in [&["--fail-on", "minor"][..], &["--min-score", "100"]] {
        let args = [&["check", "--text", "-"][..], flags].concat();
        let out = cli_with(empty.path(), Bind::Explicit, &[], &args, sloppy);
        assert_eq!(out.code, 3, "kapi {}: {}", args.join(" "), out.stderr);
    }
}
