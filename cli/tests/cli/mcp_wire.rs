//! `kapi mcp` on the wire, as a hostile client drives it: every line is written at once and
//! stdin closed right after the last one, then stdout is read to its end. What the server
//! answered before it exited is all there is: no test waits on a clock.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use super::apply::{block, shop};
use crate::Kapi;

/// What one session wrote: every stdout line as JSON, the exit code and stderr.
struct Session {
    messages: Vec<Value>,
    code: i32,
    stderr: String,
}

impl Session {
    /// The answer to `id` (a result or an error); fails the test when there is none.
    fn answer(&self, id: &Value) -> &Value {
        self.messages
            .iter()
            .find(|m| &m["id"] == id && (m.get("result").is_some() || m.get("error").is_some()))
            .unwrap_or_else(|| panic!("no answer to {id}; stderr:\n{}", self.stderr))
    }

    /// The answers without an `id` member.
    fn unaddressed(&self) -> Vec<&Value> {
        self.messages
            .iter()
            .filter(|m| m.get("id").is_none())
            .collect()
    }
}

fn initialize() -> Vec<Vec<u8>> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"}}})
        .to_string()
        .into_bytes(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            .to_string()
            .into_bytes(),
    ]
}

fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn call(id: u64, tool: &str, arguments: Value) -> Vec<u8> {
    request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

/// Runs `kapi mcp` in `kapi`'s folder: `lines` written on a thread of their own, each with its
/// `\n` (the last one too when `last_newline`), stdin closed after the last; stdout read here
/// until the server closes it.
fn session(kapi: &Kapi, lines: Vec<Vec<u8>>, last_newline: bool) -> Session {
    let mut command = kapi.command(&["mcp"]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("the kapi binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let count = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            let end: &[u8] = if i + 1 < count || last_newline {
                b"\n"
            } else {
                b""
            };
            // A server that stopped reading is the assertion's business, not the writer's.
            if stdin
                .write_all(&line)
                .and_then(|()| stdin.write_all(end))
                .is_err()
            {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut messages = Vec::new();
    for line in stdout.split(b'\n') {
        let line = line.expect("stdout reads");
        let message = serde_json::from_slice::<Value>(&line).unwrap_or_else(|e| {
            panic!(
                "stdout carries a line that is not JSON ({e}): {:.300}",
                String::from_utf8_lossy(&line)
            )
        });
        messages.push(message);
    }
    writer.join().expect("the writer thread");
    let code = child.wait().expect("kapi exits").code().unwrap_or(-1);
    let stderr = errors.join().expect("the stderr thread");
    Session {
        messages,
        code,
        stderr,
    }
}

/// An error answer is the JSON-RPC 2.0 envelope, and nothing else: `jsonrpc`, the `id` when
/// there is one, and an `error` with an integer `code` and a string `message`.
fn assert_envelope(message: &Value, code: i64) -> &str {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    let members: Vec<&String> = message
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert!(
        members
            .iter()
            .all(|k| ["jsonrpc", "id", "error"].contains(&k.as_str())),
        "{message}"
    );
    assert_eq!(message["error"]["code"], code, "{message}");
    message["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message: {message}"))
}

/// 16 MiB and one byte more: a line over the server's limit however it is cut.
fn over_the_limit() -> String {
    "x".repeat(16 * 1024 * 1024 + 1)
}

/// A line over 16 MiB is answered `Invalid request` naming the limit, to its id when the
/// line starts with it (as clients write a request), else with no id; the lines after it
/// are served. It was dropped unanswered.
#[test]
fn a_line_over_the_limit_is_answered_and_the_next_line_served() {
    let kapi = Kapi::empty();
    let huge = over_the_limit();
    let mut lines = initialize();
    lines.push(call(41, "describe_format", json!({"format": huge})));
    lines.push(request(42, "ping", json!({})));
    // The id after the params, past what is searched: answered with no id.
    let late = json!({"jsonrpc": "2.0", "method": "tools/call",
        "params": {"name": "describe_format", "arguments": {"format": huge}}, "id": 43});
    lines.push(late.to_string().into_bytes());
    lines.push(call(44, "describe_format", json!({"format": "markdown"})));
    drop(huge);
    let session = session(&kapi, lines, true);
    assert_eq!(session.code, 0, "{}", session.stderr);
    let text = assert_envelope(session.answer(&json!(41)), -32600);
    assert!(
        text.contains("16 MiB") && text.contains("16777216"),
        "{text}"
    );
    assert!(session.answer(&json!(42)).get("result").is_some());
    let unaddressed = session.unaddressed();
    assert_eq!(unaddressed.len(), 1, "{unaddressed:?}");
    let text = assert_envelope(unaddressed[0], -32600);
    assert!(text.contains("16 MiB"), "{text}");
    let format = &session.answer(&json!(44))["result"]["structuredContent"];
    assert_eq!(format["id"], "markdown", "{format}");
}

/// A request of a method the server does not serve is `-32601` naming the method: one MCP
/// does not define (before `initialize` too), one the server sends rather than serves, one
/// MCP defines that this server has no capability for. The message was the bare name.
#[test]
fn an_unknown_method_is_named_in_its_error() {
    let kapi = Kapi::empty();
    let mut lines = vec![request(90, "foo/bar", json!({}))];
    lines.extend(initialize());
    lines.push(request(91, "foo/bar", json!({"x": 1})));
    lines.push(request(92, "roots/list", json!({})));
    lines.push(request(93, "prompts/list", json!({})));
    lines.push(request(94, "ping", json!({})));
    let session = session(&kapi, lines, true);
    assert_eq!(session.code, 0, "{}", session.stderr);
    for (id, method) in [
        (90, "foo/bar"),
        (91, "foo/bar"),
        (92, "roots/list"),
        (93, "prompts/list"),
    ] {
        let text = assert_envelope(session.answer(&json!(id)), -32601);
        assert_eq!(text, format!("method not found: {method}"), "{id}");
    }
    assert!(session.answer(&json!(94)).get("result").is_some());
}

/// Before `initialize`, a notification or a response the client sends is dropped and a request
/// refused with the envelope, and the session goes on: `initialize` after them is answered,
/// and so is every request after it (rmcp alone ended the session on the first of them).
#[test]
fn messages_before_initialize_do_not_end_the_session() {
    let kapi = Kapi::empty();
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            .to_string()
            .into_bytes(),
        json!({"jsonrpc": "2.0", "id": 70, "result": {}})
            .to_string()
            .into_bytes(),
        request(71, "tools/list", json!({})),
        request(72, "ping", json!({})),
    ];
    lines.extend(initialize());
    lines.push(request(73, "tools/list", json!({})));
    let session = session(&kapi, lines, true);
    assert_eq!(session.code, 0, "{}", session.stderr);
    for id in [71, 72] {
        let text = assert_envelope(session.answer(&json!(id)), -32600);
        assert_eq!(
            text,
            "the session is not initialized: send `initialize` first"
        );
    }
    assert!(session.answer(&json!(0)).get("result").is_some());
    let tools = &session.answer(&json!(73))["result"]["tools"];
    assert!(tools.as_array().is_some_and(|t| !t.is_empty()), "{tools}");
    assert!(
        session.messages.iter().all(|m| m["id"] != json!(70)),
        "a response is never answered"
    );
}

/// Every error the server writes is the JSON-RPC envelope, on a line of its own, whatever
/// the client sent: not JSON, JSON that is no message, params that do not fit, an unknown
/// tool, a line over the limit; and the server answers a call after them all.
#[test]
fn every_error_is_the_json_rpc_envelope() {
    let kapi = Kapi::empty();
    let mut lines = initialize();
    for garbage in [
        "this is not json",
        "{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\":",
        "[1, 2, 3]",
        "{}",
        "\u{feff}",
    ] {
        lines.push(garbage.as_bytes().to_vec());
    }
    lines.push(b"\xff\xfe not utf-8".to_vec());
    lines.push(request(10, "tools/call", json!({"name": 7})));
    lines.push(request(11, "resources/read", json!([])));
    lines.push(call(12, "no_such_tool", json!({})));
    lines.push(call(13, "describe_format", json!({"format": 7})));
    lines.push(
        json!({"jsonrpc": "1.0", "id": 14, "method": "ping"})
            .to_string()
            .into_bytes(),
    );
    lines.push(call(
        15,
        "describe_format",
        json!({"format": over_the_limit()}),
    ));
    lines.push(request(16, "nope", json!({})));
    lines.push(call(17, "describe_format", json!({"format": "markdown"})));
    let session = session(&kapi, lines, true);
    assert_eq!(session.code, 0, "{}", session.stderr);
    let errors: Vec<&Value> = session
        .messages
        .iter()
        .filter(|m| m.get("error").is_some())
        .collect();
    // Four garbage lines (a line that is only a BOM is blank, and not answered), the bytes
    // that are no UTF-8, and ids 10 to 16 but 13.
    assert_eq!(errors.len(), 4 + 1 + 6, "{errors:#?}");
    for error in &errors {
        let code = error["error"]["code"].as_i64().unwrap_or_default();
        assert!((-32700..=-32600).contains(&code), "{error}");
        assert_envelope(error, code);
    }
    for (id, code) in [
        (10, -32602),
        (11, -32602),
        (12, -32602),
        (14, -32600),
        (15, -32600),
        (16, -32601),
    ] {
        assert_envelope(session.answer(&json!(id)), code);
    }
    assert_eq!(
        session.answer(&json!(16))["error"]["message"],
        "method not found: nope"
    );
    assert_eq!(
        session.answer(&json!(12))["error"]["message"],
        "tool not found: no_such_tool"
    );
    // A mistyped argument is a tool error (the call ran), which the model reads.
    assert_eq!(
        session.answer(&json!(13))["result"]["isError"],
        true,
        "{}",
        session.answer(&json!(13))
    );
    let format = &session.answer(&json!(17))["result"]["structuredContent"];
    assert_eq!(format["id"], "markdown", "{format}");
}

/// The hostile client's pipeline: 300 `check_file` calls with large answers (each file its
/// own, so each call checks it: 600 findings, 280 KB), an `apply_edits` after them, then
/// stdin closed at once. Every one is answered before the server exits 0, and the change set
/// lands. The server used to end its session 5 seconds after stdin closed, cancelling what
/// was left: on 2 cores, a debug build left about half of the 300 unanswered, and the change
/// set, waiting its turn, was dropped. (Where the 300 take less than 5 seconds, that end
/// passed this test too.)
#[test]
fn every_request_received_before_stdin_closes_is_answered() {
    let kapi = shop();
    let page = format!(
        "# Long\n\n{}",
        "We utilize caches here, and utilize them often.\n\n".repeat(300)
    );
    let calls = 300;
    for id in 1..=calls {
        kapi.write(&format!("docs/many/p{id}.md"), &page);
    }
    let (at, rev, _) = block(&kapi, "docs/notes.md", "second");
    let mut lines = initialize();
    for id in 1..=calls {
        lines.push(call(
            id,
            "check_file",
            json!({"path": format!("docs/many/p{id}.md")}),
        ));
    }
    let edit = calls + 1;
    lines.push(call(
        edit,
        "apply_edits",
        json!({"operations": [{"op": "set_content", "at": at, "if_match": rev,
            "content": "A second file, edited."}]}),
    ));
    let session = session(&kapi, lines, true);
    assert_eq!(session.code, 0, "{}", session.stderr);
    let unanswered: Vec<u64> = (1..=calls)
        .filter(|id| {
            !session
                .messages
                .iter()
                .any(|m| m["id"] == *id && m.get("result").is_some())
        })
        .collect();
    assert!(
        unanswered.is_empty(),
        "{} of {calls} calls unanswered: {unanswered:?}",
        unanswered.len()
    );
    let report = &session.answer(&json!(1))["result"]["structuredContent"];
    assert_eq!(report["schema"], "kapi.check/v1", "{report:.300}");
    let findings = report["findings"].as_array().map_or(0, Vec::len);
    assert!(
        findings >= 300,
        "{findings} findings: the answers are large"
    );
    let applied = &session.answer(&json!(edit))["result"];
    assert_eq!(
        applied["structuredContent"]["status"], "applied",
        "{applied:#}"
    );
    assert_eq!(
        kapi.read("docs/notes.md"),
        "# Notes\n\nA second file, edited.\n"
    );
}

/// An `apply_edits` sent last, with no `\n` after it, stdin closed right after it, on a server
/// with calls still to answer: applied and answered. One sent before it that cannot land (its
/// rev is not the block's) is refused and answered.
#[test]
fn an_apply_edits_sent_just_before_stdin_closes_is_applied_or_refused() {
    let kapi = shop();
    let (at, rev, _) = block(&kapi, "docs/guide.md", "caches");
    let set = |rev: &str| {
        json!({"operations": [{"op": "replace_text", "at": at, "if_match": rev,
            "find": "utilize", "replace": "use"}]})
    };
    let mut lines = initialize();
    lines.push(call(1, "check_file", json!({"path": "docs/guide.md"})));
    lines.push(call(2, "apply_edits", set("r0000000000000000")));
    lines.push(call(3, "apply_edits", set(&rev)));
    let session = session(&kapi, lines, false);
    assert_eq!(session.code, 0, "{}", session.stderr);
    assert!(session.answer(&json!(1)).get("result").is_some());
    let refused = &session.answer(&json!(2))["result"];
    assert_eq!(refused["isError"], true, "{refused:#}");
    assert_eq!(
        refused["structuredContent"]["status"], "refused",
        "{refused:#}"
    );
    let applied = &session.answer(&json!(3))["result"];
    assert_eq!(
        applied["structuredContent"]["status"], "applied",
        "{applied:#}"
    );
    assert!(
        kapi.read("docs/guide.md").contains("We use caches here."),
        "{}",
        kapi.read("docs/guide.md")
    );
}
