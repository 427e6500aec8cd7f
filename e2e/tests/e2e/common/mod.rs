//! The harness every module of the conformance suite shares: the built `kapi` binary
//! (`KAPI_BIN`, default `target/debug/kapi`) run in a cleared environment (`command`), as a CLI
//! (`cli`, `cli_json`, `cli_with` for standard input and extra variables) and as an MCP server
//! over stdio spoken to in raw newline-delimited JSON-RPC (`Server`). Every wait has a
//! timeout, so a hung process fails the test instead of blocking CI.

#![allow(dead_code)]

pub mod schema;
pub mod wire;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use wire::Answer;

/// The longest a test waits for one answer, or for the server to exit.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The client name every test introduces itself with: the agent the server records.
pub const CLIENT: &str = "e2e-agent";

pub const PROTOCOL: &str = "2025-06-18";

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies the folder `from` to `to`, leaving out `work/` folders (a project's `.kapi/work`
/// holds what a run made, not the fixture).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            if entry.file_name() != "work" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[allow(clippy::disallowed_methods)]
pub fn kapi_bin() -> PathBuf {
    match std::env::var_os("KAPI_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => workspace().join("target/debug/kapi"),
    }
}

/// How a process finds its project.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    /// `KAPI_NO_PROJECT=1`: only an explicit `--project` / per-call `project` binds one.
    Explicit,
    /// `KAPI_NO_PROJECT` unset: the project is found from the working folder.
    Discover,
}

/// What a run keeps of the test's own environment, when set: where programs are found, a home
/// folder, a temporary folder. Everything else is cleared; a test that needs a variable passes it.
const KEPT: [&str; 3] = ["PATH", "HOME", "TMPDIR"];

/// `program` in `dir` with the environment cleared but for [`KEPT`], and `NO_COLOR=1`. The
/// variant of [`command`] for what starts kapi itself (the hook command a host runs through
/// `sh -c`, with the `PATH` the test chooses): every kapi process an e2e test starts begins
/// here, so nothing in the test's shell (an assistant host's markers, `KAPI_*`) reaches it.
#[allow(clippy::disallowed_methods)]
pub fn cleared(program: impl AsRef<OsStr>, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir).env_clear();
    for name in KEPT {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    cmd.env("NO_COLOR", "1");
    cmd
}

/// A kapi command in `dir` with a cleared environment ([`cleared`]), bound as `bind` says.
pub fn command(dir: &Path, bind: Bind) -> Command {
    let mut cmd = cleared(kapi_bin(), dir);
    if bind == Bind::Explicit {
        cmd.env("KAPI_NO_PROJECT", "1");
    }
    cmd
}

/// Waits for `child` to exit, at most [`TIMEOUT`]; kills it and fails the test otherwise.
pub fn wait(child: &mut Child, ctx: &str) -> i32 {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.code().unwrap_or(-1),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{ctx}: kapi did not exit within {TIMEOUT:?}");
            }
            Err(e) => panic!("{ctx}: waiting for kapi: {e}"),
        }
    }
}

/// Drains a pipe on a thread into a shared string as it arrives (a server's stderr, for
/// failure messages while it still runs).
pub fn drain(mut pipe: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let out = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&out);
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            if let Ok(mut s) = sink.lock() {
                s.push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        }
    });
    out
}

/// Reads a pipe to its end on a thread.
pub fn read_all(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

// ---------------------------------------------------------------------------------------------
// The CLI

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `kapi ARGS` in `dir`.
pub fn cli(dir: &Path, bind: Bind, args: &[&str]) -> Out {
    cli_with(dir, bind, &[], args, None)
}

/// `kapi ARGS` in `dir` with the variables `env` set and `stdin` on standard input (closed
/// at once when `None`).
pub fn cli_with(
    dir: &Path,
    bind: Bind,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: Option<&str>,
) -> Out {
    let mut cmd = command(dir, bind);
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .expect("the kapi binary runs (build it first: cargo build --bin kapi)");
    let writer = child.stdin.take().map(|mut pipe| {
        let input = stdin.unwrap_or_default().as_bytes().to_vec();
        // The process may answer before reading it all: a broken pipe here is fine.
        thread::spawn(move || {
            let _ = pipe.write_all(&input);
        })
    });
    let stdout = read_all(child.stdout.take().expect("stdout"));
    let stderr = read_all(child.stderr.take().expect("stderr"));
    let code = wait(&mut child, &format!("kapi {}", args.join(" ")));
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Out {
        code,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

impl Out {
    /// Standard output as JSON, checked against its typed shape ([`wire::decode`]); anything
    /// else fails the test, naming `ctx`.
    pub fn json(&self, ctx: &str) -> Value {
        let value = serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "{ctx}: stdout is not JSON ({e}), exit {}\nstdout: {}\nstderr: {}",
                self.code, self.stdout, self.stderr
            )
        });
        wire::decode(&value, ctx);
        value
    }

    /// Standard output decoded by its `schema` ([`wire::decode`]).
    pub fn answer(&self, ctx: &str) -> Answer {
        wire::decode(&self.json(ctx), ctx)
    }
}

/// `kapi ARGS --json` in `dir`: the JSON it prints (any exit code), checked against its typed
/// shape ([`wire::decode`]).
pub fn cli_json(dir: &Path, args: &[&str]) -> Value {
    cli(dir, Bind::Discover, args).json(&format!("kapi {}", args.join(" ")))
}

// ---------------------------------------------------------------------------------------------
// The MCP client

/// A running `kapi mcp`, spoken to in raw JSON-RPC lines.
pub struct Server {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
    pub stderr: Arc<Mutex<String>>,
    pub next: u64,
    pub ctx: String,
    /// Each tool's `outputSchema`, from the first `tools/list` [`Server::tool`] asked for.
    pub output_schemas: Option<std::collections::BTreeMap<String, Value>>,
}

/// What a `tools/call` returned: its envelope decoded as [`wire::ToolCall`], its structured
/// content as JSON and typed by its `schema` ([`wire::decode`]).
#[derive(Debug)]
pub struct ToolResult {
    pub is_error: bool,
    pub structured: Value,
    pub answer: Answer,
    pub text: String,
    pub ctx: String,
}

impl ToolResult {
    /// The structured answer as a `kapi.check/v1` report; another shape fails the test.
    pub fn check(&self) -> wire::CheckReport {
        self.answer.clone().check(&self.ctx)
    }
    /// The structured answer as a `kapi.blocks/v1` read; another shape fails the test.
    pub fn blocks(&self) -> wire::Blocks {
        self.answer.clone().blocks(&self.ctx)
    }
    /// The structured answer as a `kapi.change-result/v1`; another shape fails the test.
    pub fn change(&self) -> wire::ChangeResult {
        self.answer.clone().change(&self.ctx)
    }
    /// The structured answer as an error; another shape fails the test.
    pub fn error(&self) -> wire::ErrorAnswer {
        self.answer.clone().error(&self.ctx)
    }

    pub fn ok(self, ctx: &str) -> Self {
        assert!(!self.is_error, "{ctx}: an error result: {self:#?}");
        self
    }
    pub fn err(self, ctx: &str) -> Self {
        assert!(self.is_error, "{ctx}: not an error result: {self:#?}");
        self
    }
}

impl Server {
    /// Spawns `kapi mcp ARGS` in `dir`; no message sent yet.
    pub fn spawn(dir: &Path, bind: Bind, args: &[&str]) -> Server {
        Server::spawn_env(dir, bind, args, &[])
    }

    /// [`Server::spawn`] with extra environment variables (test hooks).
    pub fn spawn_env(dir: &Path, bind: Bind, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut child = command(dir, bind)
            .envs(env.iter().copied())
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the kapi binary runs (build it first: cargo build --bin kapi)");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = drain(child.stderr.take().expect("stderr"));
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next: 1,
            ctx: format!("kapi mcp {}", args.join(" ")),
            output_schemas: None,
        }
    }

    /// Spawns, initializes as [`CLIENT`] with `version` and confirms; the `initialize` result.
    pub fn start_with(dir: &Path, bind: Bind, args: &[&str], version: &str) -> (Server, Value) {
        Server::spawn(dir, bind, args).initialize(version)
    }

    /// Initializes a spawned server as [`CLIENT`] with `version` and confirms.
    pub fn initialize(self, version: &str) -> (Server, Value) {
        let mut server = self;
        let init = server.result(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": CLIENT, "version": "1.0.0"}
            }),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (server, init)
    }

    /// A server bound to nothing but what `args` names (`KAPI_NO_PROJECT=1`).
    pub fn start(dir: &Path, args: &[&str]) -> Server {
        Server::start_with(dir, Bind::Explicit, args, PROTOCOL).0
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn send_raw(&mut self, line: &str) {
        let ctx = self.ctx.clone();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("{ctx}: writing to the server: {e}"));
    }

    pub fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// Sends a request; the raw response line and its JSON (with `result` or `error`).
    pub fn request_raw(&mut self, method: &str, params: Value) -> (String, Value) {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(id, method)
    }

    /// Reads lines until the response to `id`, skipping notifications (and answers to
    /// anything else, such as a parse error for a garbage line).
    pub fn answer(&mut self, id: u64, method: &str) -> (String, Value) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "{}: no answer to {method} (id {id}) within {TIMEOUT:?}\nstderr: {}",
                    self.ctx,
                    self.stderr()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "{}: the server closed stdout before answering {method} (id {id})\nstderr: {}",
                    self.ctx,
                    self.stderr()
                ),
            };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!(
                    "{}: stdout carries a line that is not JSON-RPC ({e}): {line}",
                    self.ctx
                )
            });
            if message["id"] == json!(id)
                && (message.get("result").is_some() || message.get("error").is_some())
            {
                return (line, message);
            }
        }
    }

    /// The next line the server writes, as JSON.
    pub fn next_message(&mut self) -> Value {
        let line = self.lines.recv_timeout(TIMEOUT).unwrap_or_else(|e| {
            panic!(
                "{}: no line within {TIMEOUT:?} ({e:?})\nstderr: {}",
                self.ctx,
                self.stderr()
            )
        });
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("{}: not JSON-RPC ({e}): {line}", self.ctx))
    }

    /// Sends every request before reading any answer; the answers in request order.
    pub fn pipeline(&mut self, requests: &[(&str, Value)]) -> Vec<Value> {
        let first = self.next;
        for (method, params) in requests {
            let id = self.next;
            self.next += 1;
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        }
        let mut answers: Vec<Option<Value>> = vec![None; requests.len()];
        let deadline = Instant::now() + TIMEOUT;
        while answers.iter().any(Option::is_none) {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|e| {
                panic!(
                    "{}: pipelined answers missing ({e:?})\nstderr: {}",
                    self.ctx,
                    self.stderr()
                )
            });
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{}: not JSON-RPC ({e}): {line}", self.ctx));
            let slot = message["id"]
                .as_u64()
                .and_then(|id| id.checked_sub(first))
                .and_then(|i| usize::try_from(i).ok());
            if let Some(i) = slot
                && i < answers.len()
                && (message.get("result").is_some() || message.get("error").is_some())
            {
                assert!(answers[i].is_none(), "{}: answered twice: {line}", self.ctx);
                answers[i] = Some(message);
            }
        }
        answers.into_iter().flatten().collect()
    }

    /// A request's response message (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_raw(method, params).1
    }

    /// A request's `result`; a JSON-RPC error fails the test.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let message = self.request(method, params);
        match message.get("result") {
            Some(result) => result.clone(),
            None => panic!(
                "{}: {method} answered an error: {message:#}\nstderr: {}",
                self.ctx,
                self.stderr()
            ),
        }
    }

    /// `tools/call NAME ARGUMENTS`. Its `structuredContent` is checked against the
    /// `outputSchema` `tools/list` declares for the tool ([`schema::validate`]): every
    /// success, and a refusal that carries the tool's own answer (`apply_edits`).
    pub fn tool(&mut self, name: &str, arguments: Value) -> ToolResult {
        let result = self.result("tools/call", json!({"name": name, "arguments": arguments}));
        let ctx = format!("{}: tools/call {name}", self.ctx);
        self.conforms(name, &result, &ctx);
        let call = wire::ToolCall::deserialize(&result).unwrap_or_else(|e| {
            panic!("{ctx}: the result does not decode as a tool result ({e}): {result:#}")
        });
        let text = call
            .content
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let structured = call.structured.unwrap_or(Value::Null);
        // A tool error is its JSON as text and no structured content (docs/mcp.md): the
        // answer is read from the text; a refusal with a report of its own is structured.
        let answered = if structured.is_null() && call.is_error {
            serde_json::from_str(&text).unwrap_or_else(|e| {
                panic!("{ctx}: an error result whose text is not its JSON ({e}): {text}")
            })
        } else {
            structured.clone()
        };
        ToolResult {
            is_error: call.is_error,
            answer: wire::decode(&answered, &ctx),
            structured,
            text,
            ctx,
        }
    }

    /// `tool`'s `structuredContent` in `result` against its declared `outputSchema`: a tool
    /// that answers structured content declares one, and every structured answer conforms to
    /// it, an error result's too (a client that validates would refuse it otherwise), so a
    /// tool error carries no structured content at all.
    fn conforms(&mut self, tool: &str, result: &Value, ctx: &str) {
        let Some(structured) = result.get("structuredContent") else {
            return;
        };
        if self.output_schemas.is_none() {
            let schemas = self
                .tools()
                .into_iter()
                .filter_map(|t| {
                    let name = t.get("name")?.as_str()?.to_owned();
                    Some((name, t.get("outputSchema")?.clone()))
                })
                .collect();
            self.output_schemas = Some(schemas);
        }
        let Some(declared) = self.output_schemas.as_ref().and_then(|s| s.get(tool)) else {
            panic!("{ctx}: answers structured content, but tools/list declares no outputSchema");
        };
        if let Err(errors) = schema::validate(declared, structured) {
            panic!(
                "{ctx}: structuredContent does not conform to the declared outputSchema:\n  {}\n\
                 content: {structured:#}",
                errors.join("\n  ")
            );
        }
    }

    /// The first paragraph `read_blocks` lists for `doc`.
    pub fn first_paragraph(&mut self, doc: &str) -> Value {
        let read = self
            .tool("read_blocks", json!({"doc": doc}))
            .ok("read_blocks");
        wire::array_field(&read.structured, "blocks")
            .iter()
            .find(|b| b["role"] == "paragraph")
            .cloned()
            .unwrap_or_else(|| panic!("no paragraph in {:#}", read.structured))
    }

    /// The served tools, sorted by name.
    pub fn tools(&mut self) -> Vec<Value> {
        let listed = self.result("tools/list", json!({}));
        let mut tools = wire::array_field(&listed, "tools").to_vec();
        tools.sort_by(|a, b| wire::str_field(a, "name").cmp(wire::str_field(b, "name")));
        tools
    }

    pub fn tool_names(&mut self) -> Vec<String> {
        self.tools()
            .iter()
            .map(|t| wire::str_field(t, "name").to_owned())
            .collect()
    }

    /// `resources/read URI`: the first content's text.
    pub fn read(&mut self, uri: &str) -> String {
        let result = self.result("resources/read", json!({"uri": uri}));
        let content = &result["contents"][0];
        assert_eq!(content["uri"], uri, "{}: {result:#}", self.ctx);
        content["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: {uri} has no text: {result:#}", self.ctx))
            .to_owned()
    }

    /// Closes stdin (the client goes away); the server's exit code.
    pub fn close(mut self) -> i32 {
        drop(self.stdin.take());
        let ctx = self.ctx.clone();
        wait(&mut self.child, &ctx)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// An empty temporary folder (no project here or above it).
/// Writes `rel` under `root`, with its folders; a failure names the file.
pub fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{rel}: {e}"));
}

/// Reads `rel` under `root`; a failure names the file.
pub fn read_file(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn empty_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = tmp.path().canonicalize().expect("canonical temp dir");
    (tmp, path)
}
