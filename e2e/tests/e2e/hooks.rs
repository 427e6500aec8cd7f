//! A host simulator for `kapi hook`: for each host (Claude Code, Codex, KKSS, Kiki), real-shaped
//! payloads go to the built binary (`KAPI_BIN`) and its exit code and output are read exactly as
//! that host reads them — Claude Code's JSON-on-exit-0 rules, KKSS's fail-closed PreToolUse and
//! observe-only PostToolUse/TurnEnd, Kiki's strict protocol detection that blocks on a stray
//! `message` key. Every case runs twice: with `--host` as `kapi init` writes it, and without,
//! the host told from the payload.
//!
//! Cases: clean edit, failing edit, generated target, no project, no payload, garbage payload,
//! huge payload, missing file, timeout, a stop loop, gates that did not run, a panic, bad
//! arguments, and the universal safe mode; and the stop hook holding a session to its own work
//! (issue 38 item 9): a session that edits nothing in a project with pre-existing failures, one
//! that introduces a finding, a pre-existing finding in a block it did not add to, a person's
//! uncommitted change from before the session, a change made through a shell, the same findings
//! twice, and kapi's own rules file.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Bind, TIMEOUT, cleared, command, kapi_bin};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The project the hooks run in

/// A project with a forbidden term, a clean and a failing page, and a catalog whose `fr` file
/// its `target` template generates.
pub(crate) fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &str)] = &[
        (
            "kapi.yaml",
            "version: v1\nname: sim\ndefaults:\n  source_language: en\n  target_languages: [fr]\n  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.md\"\n  - name: app\n    content:\n      - path: \"i18n/en.json\"\n        target: \"i18n/{lang}.json\"\ngates:\n  fail_on: major\n",
        ),
        (
            ".kapi/terms.yaml",
            "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - text: sign in\n        lang: en\n        status: preferred\n      - text: login\n        lang: en\n        status: forbidden\n        replacement: sign in\n",
        ),
        ("docs/good.md", "# Guide\n\nUse the sign in page.\n"),
        ("docs/bad.md", "# Bad\n\nUse the login page.\n"),
        ("i18n/en.json", "{\"hello\": \"Hello\"}\n"),
        ("i18n/fr.json", "{\"hello\": \"Bonjour\"}\n"),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Marks the `i18n` item `generated: true`: kapi writes its targets, so a hand edit of one is
/// refused (unmarked, `i18n/fr.json` is a person's translation, edited like any file).
pub(crate) fn generated(dir: &Path) {
    let recipe = dir.join("kapi.yaml");
    let text = std::fs::read_to_string(&recipe).unwrap().replace(
        "target: \"i18n/{lang}.json\"\n",
        "target: \"i18n/{lang}.json\"\n        generated: true\n",
    );
    assert!(text.contains("generated: true"), "{text}");
    std::fs::write(recipe, text).unwrap();
}

/// Makes `docs/bad.md` pass, as an assistant's fix would.
fn fix(dir: &Path) {
    std::fs::write(dir.join("docs/bad.md"), "# Bad\n\nUse the sign in page.\n").unwrap();
}

// ---------------------------------------------------------------------------------------------
// Hosts: the payloads each sends, and how each reads a hook's answer

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    ClaudeCode,
    Codex,
    Kkss,
    Kiki,
}

const HOSTS: [Host; 4] = [Host::ClaudeCode, Host::Codex, Host::Kkss, Host::Kiki];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    PreEdit,
    PostEdit,
    Stop,
}

impl Event {
    fn hook(self) -> &'static str {
        match self {
            Event::PreEdit => "pre-edit",
            Event::PostEdit => "post-edit",
            Event::Stop => "stop",
        }
    }
}

impl Host {
    fn id(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Kkss => "kkss",
            Host::Kiki => "kiki",
        }
    }

    /// The payload this host sends for `event` on `file` (project-relative) in `cwd`.
    fn payload(self, event: Event, cwd: &Path, file: &str, stop_hook_active: bool) -> Value {
        let abs = cwd.join(file).display().to_string();
        let cwd_s = cwd.display().to_string();
        match self {
            Host::ClaudeCode => {
                let mut p = json!({
                    "session_id": "cc-session-1",
                    "transcript_path": "/home/u/.claude/projects/x/cc-session-1.jsonl",
                    "cwd": cwd_s,
                    "permission_mode": "default",
                });
                match event {
                    Event::PreEdit | Event::PostEdit => {
                        p["hook_event_name"] = json!(if event == Event::PreEdit {
                            "PreToolUse"
                        } else {
                            "PostToolUse"
                        });
                        p["tool_name"] = json!("Edit");
                        p["tool_use_id"] = json!("toolu_01");
                        p["tool_input"] =
                            json!({"file_path": abs, "old_string": "a", "new_string": "b"});
                        if event == Event::PostEdit {
                            p["tool_response"] = json!({"filePath": abs, "success": true});
                        }
                    }
                    Event::Stop => {
                        p["hook_event_name"] = json!("Stop");
                        p["stop_hook_active"] = json!(stop_hook_active);
                        p["last_assistant_message"] = json!("Done.");
                    }
                }
                p
            }
            Host::Codex => {
                let mut p = json!({
                    "session_id": "codex-session-1",
                    "turn_id": "turn-7",
                    "transcript_path": null,
                    "cwd": cwd_s,
                    "model": "gpt-5-codex",
                });
                match event {
                    Event::PreEdit | Event::PostEdit => {
                        p["hook_event_name"] = json!(if event == Event::PreEdit {
                            "PreToolUse"
                        } else {
                            "PostToolUse"
                        });
                        p["tool_name"] = json!("apply_patch");
                        p["tool_input"] = json!({"command": format!(
                            "*** Begin Patch\n*** Update File: {file}\n@@\n-old\n+new\n*** End Patch\n"
                        )});
                    }
                    Event::Stop => {
                        p["hook_event_name"] = json!("Stop");
                        p["stop_hook_active"] = json!(stop_hook_active);
                    }
                }
                p
            }
            Host::Kkss => {
                let files = json!({"projectRoot": cwd_s, "cad": null, "mesh": null});
                match event {
                    Event::PreEdit => {
                        json!({"event": "PreToolUse", "source": "chat", "conversationId": "conv-1",
                        "tool": "files__write_file", "args": {"path": file, "content": "x"}, "files": files})
                    }
                    Event::PostEdit => {
                        json!({"event": "PostToolUse", "source": "chat", "conversationId": "conv-1",
                        "tool": "files__write_file", "args": {"path": file, "content": "x"},
                        "result": {"ok": true, "text": "written"}, "files": files})
                    }
                    Event::Stop => {
                        json!({"event": "TurnEnd", "source": "chat", "conversationId": "conv-1",
                        "outcome": "done", "files": files})
                    }
                }
            }
            Host::Kiki => {
                let mut p = json!({
                    "session_id": "kiki-session-1",
                    "session_title": "Fix the docs",
                    "client_type": "kimi_code_cli",
                    "cwd": cwd_s,
                });
                match event {
                    Event::PreEdit | Event::PostEdit => {
                        p["hook_event_name"] = json!(if event == Event::PreEdit {
                            "PreToolUse"
                        } else {
                            "PostToolUse"
                        });
                        p["tool_name"] = json!("Write");
                        p["tool_input"] = json!({"path": file, "content": "x"});
                    }
                    Event::Stop => p["hook_event_name"] = json!("Stop"),
                }
                p
            }
        }
    }

    /// What this host makes of a hook's answer to `event`.
    fn read(self, event: Event, answer: &Answer) -> Seen {
        match self {
            Host::ClaudeCode | Host::Codex => claude_reads(event, answer),
            Host::Kkss => kkss_reads(event, answer),
            Host::Kiki => kiki_reads(event, answer),
        }
    }
}

/// The hook process's answer.
#[derive(Debug)]
pub(crate) struct Answer {
    /// `None`: killed by a signal, or still running when the host's timeout hit.
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// What the host does with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// The action goes ahead; nobody is told anything.
    Allow,
    /// The action goes ahead and the person sees a warning (Claude Code's `systemMessage`).
    Warn(String),
    /// The edit is refused; the model gets the reason.
    Deny(String),
    /// The reason reaches the model beside the tool's result.
    Feedback(String),
    /// The assistant keeps working, told why.
    Continue(String),
    /// The host reads a broken hook: a hook error notice (Claude Code) or a fail-closed deny
    /// (KKSS PreToolUse, Kiki's blocking events). kapi must never cause this.
    Broken(String),
}

fn claude_reads(event: Event, a: &Answer) -> Seen {
    let Some(code) = a.code else {
        return Seen::Broken("killed or timed out".into());
    };
    match code {
        0 => {}
        2 => {
            return match event {
                Event::PreEdit => Seen::Deny(a.stderr.clone()),
                Event::PostEdit => Seen::Feedback(a.stderr.clone()),
                Event::Stop => Seen::Continue(a.stderr.clone()),
            };
        }
        other => return Seen::Broken(format!("non-blocking hook error, exit {other}")),
    }
    let out = a.stdout.trim();
    if out.is_empty() {
        return Seen::Allow;
    }
    if !out.starts_with('{') {
        return Seen::Broken(format!("stray stdout (goes to the debug log): {out}"));
    }
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        return Seen::Broken(format!("invalid JSON on stdout: {out}"));
    };
    let obj = v.as_object().unwrap();
    for key in obj.keys() {
        let allowed = ["decision", "reason", "systemMessage", "hookSpecificOutput"];
        if !allowed.contains(&key.as_str()) {
            return Seen::Broken(format!("unexpected field `{key}`"));
        }
    }
    if let Some(hso) = obj.get("hookSpecificOutput") {
        assert_eq!(
            event,
            Event::PreEdit,
            "hookSpecificOutput outside PreToolUse"
        );
        assert_eq!(hso["hookEventName"], "PreToolUse");
        return match hso["permissionDecision"].as_str() {
            Some("deny") => {
                Seen::Deny(hso["permissionDecisionReason"].as_str().unwrap().to_owned())
            }
            other => Seen::Broken(format!("permissionDecision {other:?}")),
        };
    }
    if let Some(decision) = obj.get("decision") {
        assert_eq!(decision, "block");
        let Some(reason) = obj.get("reason").and_then(Value::as_str) else {
            return Seen::Broken("block without the required reason".into());
        };
        return match event {
            Event::PreEdit => Seen::Broken("deprecated top-level decision on PreToolUse".into()),
            Event::PostEdit => Seen::Feedback(reason.to_owned()),
            Event::Stop => Seen::Continue(reason.to_owned()),
        };
    }
    match obj.get("systemMessage").and_then(Value::as_str) {
        Some(m) => Seen::Warn(m.to_owned()),
        None => Seen::Broken(format!("an object with no field the host acts on: {out}")),
    }
}

fn kkss_reads(event: Event, a: &Answer) -> Seen {
    match event {
        // PreToolUse fails closed: a timeout, a crash, or any code but 0, 2 and 3 denies.
        Event::PreEdit => match a.code {
            Some(0) => Seen::Allow,
            Some(2) => Seen::Deny(a.stderr.clone()),
            Some(3) => Seen::Broken("asked the person (kapi never asks)".into()),
            other => Seen::Broken(format!("fail-closed deny: the hook failed ({other:?})")),
        },
        // PostToolUse observes; with `modelOutput` what it prints joins the tool result.
        Event::PostEdit => match a.code {
            Some(0) if a.stdout.trim().is_empty() => Seen::Allow,
            Some(0) => Seen::Feedback(a.stdout.clone()),
            other => Seen::Broken(format!("logged as a failing hook ({other:?})")),
        },
        // TurnEnd observes; its output reaches nobody but the log.
        Event::Stop => match a.code {
            Some(0) => Seen::Allow,
            other => Seen::Broken(format!("logged as a failing hook ({other:?})")),
        },
    }
}

/// Kiki's protocol detection on exit-0 stdout: JSON with a `message` or `hookSpecificOutput`
/// key anywhere (or malformed text naming one) is a protocol attempt that must be strict.
fn kiki_protocol_attempt(stdout: &str) -> bool {
    fn walk(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                m.contains_key("message")
                    || m.contains_key("hookSpecificOutput")
                    || m.values().any(walk)
            }
            Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(v) => walk(&v),
        Err(_) => stdout.contains("\"message\"") || stdout.contains("hookSpecificOutput"),
    }
}

fn kiki_reads(event: Event, a: &Answer) -> Seen {
    let blocking = matches!(event, Event::PreEdit | Event::Stop);
    if !blocking {
        // PostToolUse is observation only: nothing the hook returns changes anything.
        return match a.code {
            Some(0) if a.stdout.trim().is_empty() => Seen::Allow,
            Some(0) => Seen::Broken(format!("stdout on an observing event: {}", a.stdout)),
            other => Seen::Broken(format!("a failing observer ({other:?})")),
        };
    }
    match a.code {
        Some(0) => {
            if kiki_protocol_attempt(&a.stdout) {
                Seen::Broken(format!(
                    "blocked: a loose protocol attempt on stdout: {}",
                    a.stdout
                ))
            } else if !a.stdout.trim().is_empty() {
                Seen::Broken(format!(
                    "stdout appended to the model's context: {}",
                    a.stdout
                ))
            } else {
                Seen::Allow
            }
        }
        Some(2) => match event {
            Event::PreEdit => Seen::Deny(a.stderr.clone()),
            _ => Seen::Continue(a.stderr.clone()),
        },
        other => Seen::Broken(format!("fail-closed block: the hook failed ({other:?})")),
    }
}

// ---------------------------------------------------------------------------------------------
// Running a hook as a host does

/// How stdin is fed.
pub(crate) enum Feed {
    /// The payload, then EOF.
    Bytes(Vec<u8>),
    /// `/dev/null`: nothing piped in, as a person running it by hand.
    Nothing,
    /// A prefix, then stdin stays open past the hook's deadline.
    Stall(Vec<u8>),
}

/// The host's own timeout for a hook: past it, the hook's answer is lost.
const HOST_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) fn run_hook(
    dir: &Path,
    hook: &str,
    host: Option<Host>,
    extra: &[&str],
    envs: &[(&str, &str)],
    feed: Feed,
) -> Answer {
    let mut cmd = command(dir, Bind::Discover);
    cmd.arg("hook").arg(hook);
    if let Some(h) = host {
        cmd.args(["--host", h.id()]);
    }
    cmd.args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    match &feed {
        Feed::Nothing => {
            cmd.stdin(Stdio::null());
        }
        _ => {
            cmd.stdin(Stdio::piped());
        }
    }
    let mut child = cmd.spawn().expect("start kapi");
    let writer = child.stdin.take().map(|mut stdin| {
        let (bytes, stall) = match feed {
            Feed::Bytes(b) => (b, false),
            Feed::Stall(b) => (b, true),
            Feed::Nothing => (Vec::new(), false),
        };
        std::thread::spawn(move || {
            // The hook may stop reading early (a huge payload): a broken pipe here is fine.
            let _ = stdin.write_all(&bytes);
            if stall {
                std::thread::sleep(Duration::from_secs(5));
            }
            drop(stdin);
        })
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > HOST_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    drop(writer);
    Answer {
        code,
        stdout,
        stderr,
    }
}

/// Runs `event` for `host` on `file`, as init writes it (`--host`) or sniffed.
fn fire(
    dir: &Path,
    host: Host,
    flag: bool,
    event: Event,
    file: &str,
    stop_hook_active: bool,
) -> (Seen, Answer) {
    let payload = host.payload(event, dir, file, stop_hook_active);
    let answer = run_hook(
        dir,
        event.hook(),
        flag.then_some(host),
        &[],
        &[],
        Feed::Bytes(payload.to_string().into_bytes()),
    );
    (host.read(event, &answer), answer)
}

/// Every run ends 0 or in the host's verdict code, never 1, 101 or by a signal.
fn assert_never_broken(seen: &Seen, answer: &Answer, what: &str) {
    assert!(
        !matches!(seen, Seen::Broken(_)),
        "{what}: the host reads a broken hook: {seen:?}\n{answer:?}"
    );
    assert!(
        matches!(answer.code, Some(0 | 2)),
        "{what}: exit {:?}\n{answer:?}",
        answer.code
    );
}

/// The warning a fail-open answer leaves: a `systemMessage` where the host shows one, and
/// always on stderr, naming the hook.
fn assert_warned(host: Host, seen: &Seen, answer: &Answer, hook: &str, needle: &str, what: &str) {
    assert_never_broken(seen, answer, what);
    assert!(
        answer.stderr.contains(&format!("kapi hook {hook}")) && answer.stderr.contains(needle),
        "{what}: stderr should name the hook and say `{needle}`: {answer:?}"
    );
    match host {
        Host::ClaudeCode | Host::Codex => match seen {
            Seen::Warn(m) => assert!(m.contains(needle), "{what}: {m}"),
            other => panic!("{what}: expected a systemMessage, got {other:?}"),
        },
        Host::Kkss | Host::Kiki => {
            assert_eq!(seen, &Seen::Allow, "{what}");
            assert!(answer.stdout.is_empty(), "{what}: {answer:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cases, per host

#[test]
fn a_clean_edit_is_nothing_to_report() {
    for host in HOSTS {
        for flag in [true, false] {
            let p = project();
            for event in [Event::PreEdit, Event::PostEdit] {
                let (seen, answer) = fire(p.path(), host, flag, event, "docs/good.md", false);
                let what = format!("{host:?} flag={flag} {event:?}");
                assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
                assert!(
                    answer.stdout.is_empty() && answer.code == Some(0),
                    "{what}: {answer:?}"
                );
            }
        }
    }
}

#[test]
fn a_failing_edit_hands_the_finding_back() {
    for host in HOSTS {
        for flag in [true, false] {
            let p = project();
            let what = format!("{host:?} flag={flag}");
            let (seen, answer) = fire(p.path(), host, flag, Event::PostEdit, "docs/bad.md", false);
            assert_never_broken(&seen, &answer, &what);
            match host {
                Host::ClaudeCode | Host::Codex | Host::Kkss => match &seen {
                    Seen::Feedback(reason) => {
                        assert!(reason.contains("docs/bad.md:3:9"), "{what}: {reason}");
                        assert!(reason.contains("terms.forbidden"), "{what}: {reason}");
                        assert!(reason.contains("use `sign in`"), "{what}: {reason}");
                    }
                    other => panic!("{what}: expected feedback, got {other:?}"),
                },
                // Kiki's PostToolUse only observes: the finding waits for its stop hook.
                Host::Kiki => {
                    assert_eq!(seen, Seen::Allow, "{what}");
                    let state = p.path().join(".kapi/work/hooks/kiki-session-1.json");
                    let state = std::fs::read_to_string(&state).expect("post-edit recorded state");
                    assert!(state.contains("docs/bad.md"), "{state}");
                    let (seen, _) = fire(p.path(), host, flag, Event::Stop, "", false);
                    match seen {
                        Seen::Continue(reason) => {
                            assert!(reason.contains("docs/bad.md"), "{reason}")
                        }
                        other => panic!("{what}: Kiki's stop should continue, got {other:?}"),
                    }
                }
            }
        }
    }
}

/// A CLAUDE.md or AGENTS.md no collection declares holds kapi's rules section: the person's
/// text around it is not content, so an edit to it is nothing to report (issue 16, item 5);
/// the same file declared, or named to `kapi check`, is checked.
#[test]
fn an_undeclared_rules_file_is_nothing_to_report() {
    for host in HOSTS {
        let p = project();
        let rules =
            "Use the login page.\n\n<!-- kapi:rules -->\nAvoid login.\n<!-- /kapi:rules -->\n";
        std::fs::write(p.path().join("CLAUDE.md"), rules).unwrap();
        std::fs::create_dir_all(p.path().join("docs/api")).unwrap();
        std::fs::write(p.path().join("docs/api/AGENTS.md"), rules).unwrap();
        let what = format!("{host:?}");
        let (seen, answer) = fire(p.path(), host, true, Event::PostEdit, "CLAUDE.md", false);
        assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
        // docs/api/AGENTS.md is declared (`docs/**/*.md`): the person's line is checked.
        let (seen, answer) = fire(
            p.path(),
            host,
            true,
            Event::PostEdit,
            "docs/api/AGENTS.md",
            false,
        );
        assert_never_broken(&seen, &answer, &what);
        if host != Host::Kiki {
            assert!(
                matches!(&seen, Seen::Feedback(r) if r.contains("docs/api/AGENTS.md:1")),
                "{what}: {seen:?}"
            );
        }
    }
    let p = project();
    std::fs::write(p.path().join("CLAUDE.md"), "Use the login page.\n").unwrap();
    let walk = command(p.path(), Bind::Discover)
        .args(["check", "."])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&walk.stdout);
    assert!(!out.contains("CLAUDE.md"), "a folder walk skips it: {out}");
    let named = command(p.path(), Bind::Discover)
        .args(["check", "CLAUDE.md"])
        .output()
        .unwrap();
    assert_eq!(
        named.status.code(),
        Some(3),
        "named, it is checked: {named:?}"
    );
}

#[test]
fn a_generated_target_is_refused_naming_its_source_and_the_kapi_route() {
    for host in HOSTS {
        for flag in [true, false] {
            let p = project();
            generated(p.path());
            let what = format!("{host:?} flag={flag}");
            let (seen, answer) = fire(p.path(), host, flag, Event::PreEdit, "i18n/fr.json", false);
            assert_never_broken(&seen, &answer, &what);
            match seen {
                Seen::Deny(reason) => {
                    assert!(
                        reason.contains("i18n/fr.json is generated"),
                        "{what}: {reason}"
                    );
                    assert!(reason.contains("i18n/en.json"), "{what}: {reason}");
                    assert!(reason.contains("kapi apply"), "{what}: {reason}");
                    assert!(reason.contains("--editions fr"), "{what}: {reason}");
                }
                other => panic!("{what}: expected a deny, got {other:?}"),
            }
            // The source itself is the person's to edit.
            let (seen, _) = fire(p.path(), host, flag, Event::PreEdit, "i18n/en.json", false);
            assert_eq!(seen, Seen::Allow, "{what}");
        }
    }
}

/// The project's rules are a person's (issue 40, item 4): an assistant's direct edit of
/// `kapi.yaml` or a file under `.kapi/` is refused, naming the route (`kapi context note`, or
/// ask the person), through a link too; and a `..` after a link is resolved as the system
/// resolves it, so `docs/up/../i18n/fr.json` with `docs/up -> ../i18n` is the generated target.
#[test]
fn the_projects_rules_are_a_persons_and_a_dotdot_after_a_link_is_resolved() {
    for host in HOSTS {
        let p = project();
        generated(p.path());
        let what = format!("{host:?}");
        for file in [
            "kapi.yaml",
            ".kapi/terms.yaml",
            ".kapi/notes.yaml",
            ".kapi/voice.yaml",
        ] {
            let (seen, answer) = fire(p.path(), host, true, Event::PreEdit, file, false);
            assert_never_broken(&seen, &answer, &what);
            assert!(
                matches!(&seen, Seen::Deny(r) if r.contains(file) && r.contains("kapi context note")),
                "{what} {file}: {seen:?}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(".kapi/terms.yaml", p.path().join("words.yaml")).unwrap();
            let (seen, answer) = fire(p.path(), host, true, Event::PreEdit, "words.yaml", false);
            assert!(
                matches!(&seen, Seen::Deny(r) if r.contains("words.yaml (a link to .kapi/terms.yaml)")),
                "{what} via a link: {seen:?} {answer:?}"
            );
            std::os::unix::fs::symlink("../i18n", p.path().join("docs/up")).unwrap();
            let (seen, answer) = fire(
                p.path(),
                host,
                true,
                Event::PreEdit,
                "docs/up/../i18n/fr.json",
                false,
            );
            assert!(
                matches!(&seen, Seen::Deny(r) if r.contains("is generated")),
                "{what} `..` after a link: {seen:?} {answer:?}"
            );
        }
        // Everything else stays the assistant's to edit.
        let (seen, answer) = fire(p.path(), host, true, Event::PreEdit, "docs/good.md", false);
        assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
    }
}

/// A translation a person wrote (its collection item not marked `generated`) is editable:
/// an assistant asked to fix a German string edits the file, and the pre-edit hook lets it
/// (issue 39 item 8), through a link too; the same file marked `generated: true` is refused.
#[test]
fn a_human_translation_is_editable_and_a_generated_one_is_not() {
    for host in HOSTS {
        for flag in [true, false] {
            let p = project();
            let what = format!("{host:?} flag={flag}");
            let (seen, answer) = fire(p.path(), host, flag, Event::PreEdit, "i18n/fr.json", false);
            assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
            #[cfg(unix)]
            {
                std::os::unix::fs::symlink("i18n/fr.json", p.path().join("notes.json")).unwrap();
                let (seen, answer) =
                    fire(p.path(), host, flag, Event::PreEdit, "notes.json", false);
                assert_eq!(seen, Seen::Allow, "{what} via a link: {answer:?}");
            }
            generated(p.path());
            let (seen, answer) = fire(p.path(), host, flag, Event::PreEdit, "i18n/fr.json", false);
            assert_never_broken(&seen, &answer, &what);
            assert!(
                matches!(&seen, Seen::Deny(r) if r.contains("generated: true")),
                "{what}: {seen:?}"
            );
        }
    }
}

/// A link to a generated target is that target: an edit through the link writes the target,
/// so it is refused like an edit of the target, for a link to the file and through a linked
/// folder, and for a target that does not exist yet.
#[cfg(unix)]
#[test]
fn an_edit_through_a_link_to_a_generated_target_is_refused() {
    let links = [
        ("notes.json", "i18n/fr.json"),
        ("lang", "i18n"),
        ("later.json", "i18n/de.json"),
    ];
    for host in HOSTS {
        for flag in [true, false] {
            let p = project();
            std::fs::write(
                p.path().join("kapi.yaml"),
                std::fs::read_to_string(p.path().join("kapi.yaml"))
                    .unwrap()
                    .replace("target_languages: [fr]", "target_languages: [fr, de]"),
            )
            .unwrap();
            generated(p.path());
            for (link, to) in links {
                std::os::unix::fs::symlink(to, p.path().join(link)).unwrap();
            }
            for (file, target) in [
                ("notes.json", "i18n/fr.json"),
                ("lang/fr.json", "i18n/fr.json"),
                ("later.json", "i18n/de.json"),
            ] {
                let what = format!("{host:?} flag={flag} {file}");
                let (seen, answer) = fire(p.path(), host, flag, Event::PreEdit, file, false);
                assert_never_broken(&seen, &answer, &what);
                match seen {
                    Seen::Deny(reason) => {
                        assert!(reason.contains(target), "{what}: {reason}");
                        assert!(reason.contains("is generated"), "{what}: {reason}");
                        assert!(reason.contains("i18n/en.json"), "{what}: {reason}");
                    }
                    other => panic!("{what}: expected a deny, got {other:?}\n{answer:?}"),
                }
            }
        }
    }
}

/// A file reached through a link out of the project lives outside it: the hooks find the
/// project from where the file really is, so an edit of it is nothing to report (no warning),
/// as an edit outside the project is, whether or not its path by name is one the project
/// declares (`docs/**/*.md` through `docs/shared`) or not (`vendor/lib.rs`).
#[cfg(unix)]
#[test]
fn an_edit_through_a_link_out_of_the_project_is_nothing_to_report() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("lib.rs"), "fn main() {}\n").unwrap();
    std::fs::write(outside.path().join("guide.md"), "Use the login page.\n").unwrap();
    for host in HOSTS {
        let p = project();
        std::os::unix::fs::symlink(outside.path(), p.path().join("vendor")).unwrap();
        std::os::unix::fs::symlink(outside.path(), p.path().join("docs/shared")).unwrap();
        for file in ["vendor/lib.rs", "docs/shared/guide.md"] {
            for event in [Event::PreEdit, Event::PostEdit] {
                let what = format!("{host:?} {event:?} {file}");
                let (seen, answer) = fire(p.path(), host, true, event, file, false);
                assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
                assert!(answer.stderr.is_empty(), "{what}: no warning: {answer:?}");
            }
        }
        // The same text inside the project fails post-edit: the project's gate holds there.
        // (Kiki allows and says it on stderr; the others answer with feedback.)
        let (seen, answer) = fire(p.path(), host, true, Event::PostEdit, "docs/bad.md", false);
        let said = format!("{seen:?} {}", answer.stderr);
        assert!(
            said.contains("does not pass"),
            "{host:?} docs/bad.md: {said}"
        );
    }
}

#[test]
fn no_project_is_nothing_to_report() {
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(plain.path().join("notes.md"), "Use the login page.\n").unwrap();
    for host in HOSTS {
        for flag in [true, false] {
            for event in [Event::PreEdit, Event::PostEdit, Event::Stop] {
                let (seen, answer) = fire(plain.path(), host, flag, event, "notes.md", false);
                let what = format!("{host:?} flag={flag} {event:?}");
                assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
                assert!(
                    answer.stderr.is_empty(),
                    "{what}: no warning outside a project: {answer:?}"
                );
            }
        }
    }
}

#[test]
fn no_payload_is_nothing_to_report_silently() {
    let p = project();
    for host in HOSTS {
        for event in [Event::PreEdit, Event::PostEdit, Event::Stop] {
            let answer = run_hook(p.path(), event.hook(), Some(host), &[], &[], Feed::Nothing);
            let what = format!("{host:?} {event:?}");
            assert_eq!(host.read(event, &answer), Seen::Allow, "{what}");
            assert_eq!(answer.code, Some(0), "{what}");
            assert!(
                answer.stdout.is_empty() && answer.stderr.is_empty(),
                "{what}: {answer:?}"
            );
        }
    }
}

#[test]
fn a_garbage_payload_could_not_run_and_says_so() {
    let p = project();
    for host in HOSTS {
        for event in [Event::PreEdit, Event::PostEdit, Event::Stop] {
            for garbage in [
                &b"not json at all"[..],
                b"{\"cwd\": ",
                b"[1,2,3]",
                b"\xff\xfe\x00",
                b"   \n",
            ] {
                let answer = run_hook(
                    p.path(),
                    event.hook(),
                    Some(host),
                    &[],
                    &[],
                    Feed::Bytes(garbage.to_vec()),
                );
                let seen = host.read(event, &answer);
                let what = format!("{host:?} {event:?} {:?}", String::from_utf8_lossy(garbage));
                assert_warned(host, &seen, &answer, event.hook(), "could not run", &what);
            }
        }
    }
}

#[test]
fn a_huge_payload_is_not_read_past_its_bound() {
    let p = project();
    // 33 MiB: more than the 32 MiB kapi reads.
    let mut huge = b"{\"cwd\": \"".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 33 * 1024 * 1024));
    huge.extend(b"\"}");
    for host in HOSTS {
        let answer = run_hook(
            p.path(),
            "post-edit",
            Some(host),
            &[],
            &[],
            Feed::Bytes(huge.clone()),
        );
        let seen = host.read(Event::PostEdit, &answer);
        assert_warned(
            host,
            &seen,
            &answer,
            "post-edit",
            "over 32 MiB",
            &format!("{host:?}"),
        );
    }
}

#[test]
fn a_missing_file_could_not_run() {
    for host in HOSTS {
        let p = project();
        let (seen, answer) = fire(p.path(), host, true, Event::PostEdit, "docs/gone.md", false);
        assert_warned(
            host,
            &seen,
            &answer,
            "post-edit",
            "does not exist",
            &format!("{host:?}"),
        );
    }
}

#[test]
fn a_payload_that_never_ends_meets_the_deadline_and_allows() {
    let p = project();
    for host in HOSTS {
        for event in [Event::PreEdit, Event::Stop] {
            let answer = run_hook(
                p.path(),
                event.hook(),
                Some(host),
                &["--deadline-ms", "300"],
                &[],
                Feed::Stall(b"{\"cwd\": \"/".to_vec()),
            );
            let seen = host.read(event, &answer);
            assert_warned(
                host,
                &seen,
                &answer,
                event.hook(),
                "deadline",
                &format!("{host:?} {event:?}"),
            );
        }
    }
}

#[test]
fn a_stop_loop_ends() {
    for host in HOSTS {
        let p = project();
        let what = format!("{host:?}");
        // The session's edit leaves docs/bad.md failing: with no git and no copy from before
        // it, the whole file is the session's.
        let (_, _) = fire(p.path(), host, true, Event::PostEdit, "docs/bad.md", false);
        let stop = |active: bool| fire(p.path(), host, true, Event::Stop, "", active);
        // A change no edit hook sees (a shell's): the same finding, elsewhere.
        let move_it = |n: usize| {
            std::fs::write(
                p.path().join("docs/bad.md"),
                format!("# Bad\n\n{}Use the login page.\n", "Now. ".repeat(n)),
            )
            .unwrap();
        };
        match host {
            Host::ClaudeCode => {
                let (first, _) = stop(false);
                assert!(
                    matches!(&first, Seen::Continue(r) if r.contains("docs/bad.md")),
                    "{first:?}"
                );
                // The continuation's stop carries stop_hook_active: never blocked again.
                let (second, answer) = stop(true);
                assert!(
                    matches!(&second, Seen::Warn(m) if m.contains("docs/bad.md")),
                    "{second:?}"
                );
                assert!(answer.stderr.contains("kapi hook stop"), "{answer:?}");
            }
            Host::Codex | Host::Kiki => {
                // No flag the hook can trust: kapi's own count, 2 in a row with no new edit
                // (the findings moving each time, or kapi would not block twice for them).
                for i in 0..2 {
                    move_it(i);
                    let (seen, _) = stop(false);
                    assert!(
                        matches!(&seen, Seen::Continue(r) if r.contains("docs/bad.md")),
                        "{what} #{i}: {seen:?}"
                    );
                }
                move_it(2);
                let (third, answer) = stop(false);
                assert_never_broken(&third, &answer, &what);
                assert!(
                    !matches!(third, Seen::Continue(_)),
                    "{what}: a third block: {third:?}"
                );
                assert!(
                    answer.stderr.contains("2 stops in a row"),
                    "{what}: {answer:?}"
                );
                // A new edit starts the count again; the fix makes the stop clean.
                let (_, _) = fire(p.path(), host, true, Event::PostEdit, "docs/good.md", false);
                let (again, _) = stop(false);
                assert!(
                    matches!(again, Seen::Continue(_)),
                    "{what}: after an edit: {again:?}"
                );
                fix(p.path());
                let (clean, answer) = stop(false);
                assert_eq!(clean, Seen::Allow, "{what}: {answer:?}");
                assert!(!answer.stderr.contains("docs/bad.md"), "{what}: {answer:?}");
            }
            Host::Kkss => {
                // TurnEnd only observes: a report on stderr, never a loop.
                for _ in 0..3 {
                    let (seen, answer) = stop(false);
                    assert_eq!(seen, Seen::Allow, "{answer:?}");
                    assert!(answer.stderr.contains("docs/bad.md"), "{answer:?}");
                }
            }
        }
    }
}

#[test]
fn the_session_block_cap_holds_even_with_edits_between() {
    let p = project();
    let mut blocks = 0;
    for _ in 0..12 {
        // The session's own edit of a failing file, each round.
        let (_, _) = fire(
            p.path(),
            Host::Codex,
            true,
            Event::PostEdit,
            "docs/bad.md",
            false,
        );
        let (seen, answer) = fire(p.path(), Host::Codex, true, Event::Stop, "", false);
        assert_never_broken(&seen, &answer, "codex");
        if matches!(seen, Seen::Continue(_)) {
            blocks += 1;
        }
    }
    assert_eq!(blocks, 8, "at most 8 stop blocks in one session");
}

#[test]
fn gates_that_did_not_run_say_why() {
    for host in HOSTS {
        let p = project();
        // Collections that match nothing: the ship gate has nothing to check.
        std::fs::write(
            p.path().join("kapi.yaml"),
            "version: v1\nname: sim\ncollections:\n  - path: \"nothing/**/*.md\"\n",
        )
        .unwrap();
        let (seen, answer) = fire(p.path(), host, true, Event::Stop, "", false);
        assert_warned(
            host,
            &seen,
            &answer,
            "stop",
            "the gates did not run",
            &format!("{host:?}"),
        );
        assert!(
            answer.stderr.contains("declare no content file"),
            "{answer:?}"
        );
    }
}

#[test]
fn a_broken_recipe_could_not_run() {
    for host in HOSTS {
        let p = project();
        std::fs::write(p.path().join("kapi.yaml"), "version: v1\ncollections: [\n").unwrap();
        for event in [Event::PreEdit, Event::PostEdit, Event::Stop] {
            let (seen, answer) = fire(p.path(), host, true, event, "docs/bad.md", false);
            assert_warned(
                host,
                &seen,
                &answer,
                event.hook(),
                "kapi.yaml",
                &format!("{host:?} {event:?}"),
            );
        }
    }
}

#[test]
fn a_panic_allows_and_warns() {
    let p = project();
    for host in HOSTS {
        for event in [Event::PreEdit, Event::Stop] {
            let payload = host.payload(event, p.path(), "i18n/fr.json", false);
            let answer = run_hook(
                p.path(),
                event.hook(),
                Some(host),
                &[],
                &[("KAPI_TEST_HOOK_PANIC", "1")],
                Feed::Bytes(payload.to_string().into_bytes()),
            );
            let seen = host.read(event, &answer);
            if cfg!(debug_assertions) {
                assert_warned(
                    host,
                    &seen,
                    &answer,
                    event.hook(),
                    "internal error",
                    &format!("{host:?} {event:?}"),
                );
            } else {
                assert_never_broken(&seen, &answer, "release build ignores the test hook");
            }
        }
    }
}

#[test]
fn bad_arguments_never_exit_with_a_usage_error() {
    let p = project();
    let payload = Host::Kiki.payload(Event::PreEdit, p.path(), "docs/good.md", false);
    for args in [
        &["hook"][..],
        &["hook", "sideways"],
        &["hook", "pre-edit", "--host"],
        &["hook", "pre-edit", "--host", "emacs"],
        &["hook", "pre-edit", "--frobnicate", "--deadline-ms", "soon"],
    ] {
        let out = command(p.path(), Bind::Discover)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                // A hook with no name answers without reading: a broken pipe is fine.
                let _ = c
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(payload.to_string().as_bytes());
                c.wait_with_output()
            })
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    // A bare `kapi` (a host that dropped the arguments) is not a usage error either.
    let bare = command(p.path(), Bind::Discover)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(0));
}

#[test]
fn with_no_host_told_the_answer_is_the_universal_safe_mode() {
    let p = project();
    generated(p.path());
    // A payload no host's fields identify, on a generated target and a failing file.
    for (event, file) in [
        (Event::PreEdit, "i18n/fr.json"),
        (Event::PostEdit, "docs/bad.md"),
        (Event::Stop, ""),
    ] {
        let payload = json!({"cwd": p.path(), "tool_name": "Write", "tool_input": {"file_path": p.path().join(file)}});
        let answer = run_hook(
            p.path(),
            event.hook(),
            None,
            &[],
            &[],
            Feed::Bytes(payload.to_string().into_bytes()),
        );
        assert_eq!(answer.code, Some(0), "{event:?}: {answer:?}");
        assert!(answer.stdout.is_empty(), "{event:?}: {answer:?}");
        assert!(
            !answer.stderr.is_empty(),
            "{event:?}: the verdict is still on stderr"
        );
    }
}

#[test]
fn a_closed_stdout_loses_the_text_never_the_exit_code() {
    let p = project();
    generated(p.path());
    let payload = Host::ClaudeCode.payload(Event::PreEdit, p.path(), "i18n/fr.json", false);
    let mut child = command(p.path(), Bind::Discover)
        .args(["hook", "pre-edit", "--host", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// The hooks `kapi init` writes, run the way each host runs them

/// Runs a hook command as its host would: through `sh -c` (Claude Code, Codex, Kiki) or
/// directly (KKSS), with `path` as PATH, in `dir`.
pub(crate) fn run_configured(
    dir: &Path,
    program: &str,
    args: &[String],
    path: &str,
    body: &[u8],
) -> Answer {
    let mut child = cleared(program, dir)
        .args(args)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the hook command");
    // The guard may exit before reading anything (no kapi on PATH): a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(body);
    let out = child.wait_with_output().unwrap();
    Answer {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Each host's configured command for `event`, as (program, args).
fn configured(dir: &Path, host: Host, event: Event) -> Option<(String, Vec<String>)> {
    let sh = |cmd: &str| Some(("sh".to_owned(), vec!["-c".to_owned(), cmd.to_owned()]));
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).unwrap();
    match host {
        Host::ClaudeCode | Host::Codex => {
            let rel = if host == Host::ClaudeCode {
                ".claude/settings.json"
            } else {
                ".codex/hooks.json"
            };
            let v: Value = serde_json::from_str(&read(rel)).unwrap();
            let name = match event {
                Event::PreEdit => "PreToolUse",
                Event::PostEdit => "PostToolUse",
                Event::Stop => "Stop",
            };
            let cmd = v["hooks"][name][0]["hooks"][0]["command"]
                .as_str()?
                .to_owned();
            sh(&cmd)
        }
        Host::Kkss => {
            let v: Value = serde_json::from_str(&read(".kkss/assistant/hooks.json")).unwrap();
            let name = match event {
                Event::PreEdit => "kapi-pre-edit",
                Event::PostEdit => "kapi-post-edit",
                Event::Stop => "kapi-turn-end",
            };
            let entry = v["hooks"].as_array()?.iter().find(|e| e["name"] == name)?;
            let args = entry["args"]
                .as_array()?
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect();
            Some((entry["command"].as_str()?.to_owned(), args))
        }
        Host::Kiki => {
            let text = read(".kiki/hooks.toml");
            let wanted = match event {
                Event::PreEdit => "PreToolUse",
                Event::PostEdit => "PostToolUse",
                Event::Stop => "Stop",
            };
            // `[[hooks]]` tables of `key = "value"` lines, as kapi writes them.
            let mut current_event = String::new();
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("event = ") {
                    current_event = v.trim_matches('"').to_owned();
                }
                if let Some(v) = line.strip_prefix("command = ")
                    && current_event == wanted
                {
                    let cmd: String = serde_json::from_str(v).unwrap();
                    return sh(&cmd);
                }
            }
            None
        }
    }
}

/// A project with generated targets, wired by `kapi init --agents <agents>`, and a PATH with
/// kapi on it (a folder holding a `kapi` link to the binary under test; the folder lives as
/// long as the returned guard).
pub(crate) fn wired(agents: &str) -> (tempfile::TempDir, tempfile::TempDir, String) {
    let p = project();
    generated(p.path());
    let init = command(p.path(), Bind::Discover)
        .args(["init", "--agents", agents, "--no-rules-files"])
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(kapi_bin(), bin.path().join("kapi")).unwrap();
    let with = format!("{}:/usr/bin:/bin", bin.path().display());
    (p, bin, with)
}

#[test]
fn the_hooks_init_writes_run_as_written() {
    // PATH with kapi on it, and without.
    let (p, _bin, with) = wired("all");
    let without = "/usr/bin:/bin".to_owned();
    for host in HOSTS {
        for (event, file) in [
            (Event::PreEdit, "i18n/fr.json"),
            (Event::PostEdit, "docs/bad.md"),
            (Event::Stop, ""),
        ] {
            let what = format!("{host:?} {event:?}");
            let (program, args) =
                configured(p.path(), host, event).unwrap_or_else(|| panic!("{what}: not wired"));
            let body = host
                .payload(event, p.path(), file, false)
                .to_string()
                .into_bytes();
            let answer = run_configured(p.path(), &program, &args, &with, &body);
            let seen = host.read(event, &answer);
            assert_never_broken(&seen, &answer, &what);
            let acted = match (host, event) {
                (Host::Kiki, Event::PostEdit) | (Host::Kkss, Event::Stop) => seen == Seen::Allow,
                (_, Event::PreEdit) => matches!(seen, Seen::Deny(_)),
                (_, Event::PostEdit) => matches!(seen, Seen::Feedback(_)),
                (_, Event::Stop) => matches!(seen, Seen::Continue(_)),
            };
            assert!(acted, "{what}: {seen:?}\n{answer:?}");
            // The guard of every entry a shell runs (Claude Code, Codex, Kiki; issue 40 item
            // 3): with no kapi on PATH it does nothing, no error and no blocked edit. KKSS
            // starts `kapi` itself, with no shell (its entry says why).
            if host != Host::Kkss {
                let answer = run_configured(p.path(), &program, &args, &without, &body);
                assert_eq!(
                    host.read(event, &answer),
                    Seen::Allow,
                    "{what} without kapi: {answer:?}"
                );
                assert_eq!(answer.code, Some(0), "{what} without kapi: {answer:?}");
                assert!(
                    answer.stdout.is_empty() && answer.stderr.is_empty(),
                    "{what} without kapi says nothing: {answer:?}"
                );
            }
        }
    }
}

/// The signals a host (or a person, or the system) may send a hook, as `kill -s` names them,
/// with their Linux numbers (to see in `/proc` when the hook catches one).
const SIGNALS: [(&str, u32); 12] = [
    ("TERM", 15),
    ("INT", 2),
    ("HUP", 1),
    ("QUIT", 3),
    ("USR1", 10),
    ("USR2", 12),
    ("ALRM", 14),
    ("VTALRM", 26),
    ("PROF", 27),
    ("XCPU", 24),
    ("XFSZ", 25),
    ("IO", 29),
];

/// The line a debug build's hook writes to stderr once its signal handlers are in, asked
/// for with `KAPI_TEST_HOOK_READY` (a signal before it would end the hook the default way).
const READY: &str = "kapi hook: ready\n";

/// Starts `hook` for `host` with half a payload on a stdin that stays open, so the hook
/// waits; once it says it is ready ([`READY`], never a fixed pause: a hook not ready within
/// [`TIMEOUT`] fails the test), sends it `kill -s NAME` and reads the answer (its stderr
/// without the readiness line).
fn signal_a_waiting_hook(
    dir: &Path,
    hook: &str,
    host: Host,
    (name, number): (&str, u32),
) -> Answer {
    let mut child = command(dir, Bind::Discover)
        .env("KAPI_TEST_HOOK_READY", "1")
        .args(["hook", hook, "--host", host.id()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"cwd\": ").unwrap();
    let mut out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let err_reader = std::thread::spawn(move || {
        let mut err = std::io::BufReader::new(err);
        let mut first = String::new();
        let _ = std::io::BufRead::read_line(&mut err, &mut first);
        let _ = ready_tx.send(first == READY);
        let mut s = if first == READY { String::new() } else { first };
        let _ = err.read_to_string(&mut s);
        s
    });
    let ready = ready_rx.recv_timeout(TIMEOUT);
    if ready != Ok(true) {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "{hook} ({host:?}) did not say {READY:?} within {TIMEOUT:?} (signal {name}, {number}): {ready:?}; stderr: {:?}",
            err_reader.join()
        );
    }
    let sent = Command::new("kill")
        .args(["-s", name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -s {name}");
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    Answer {
        code,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// Every hook for every host, sent `signal` while it waits for its payload, survives it and
/// answers "could not run" in its host's protocol: exit 0, a stderr line naming the hook and
/// the signal, and for Claude Code and Codex a `systemMessage` saying the same.
fn a_signal_is_could_not_run(signal: (&'static str, u32)) {
    let p = project();
    let dir = p.path().to_path_buf();
    let runs: Vec<_> = HOSTS
        .into_iter()
        .flat_map(|host| [Event::PreEdit, Event::PostEdit, Event::Stop].map(|e| (host, e)))
        .map(|(host, event)| {
            let dir = dir.clone();
            let answer =
                std::thread::spawn(move || signal_a_waiting_hook(&dir, event.hook(), host, signal));
            (host, event, answer)
        })
        .collect();
    let needle = format!("SIG{}", signal.0);
    for (host, event, answer) in runs {
        let answer = answer.join().unwrap();
        let what = format!("SIG{} to {host:?} {event:?}", signal.0);
        assert_eq!(answer.code, Some(0), "{what}: {answer:?}");
        let seen = host.read(event, &answer);
        assert_warned(host, &seen, &answer, event.hook(), &needle, &what);
        assert!(
            answer.stderr.contains("could not run"),
            "{what}: {answer:?}"
        );
    }
}

#[test]
fn sigterm_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[0]);
}

#[test]
fn sigint_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[1]);
}

#[test]
fn sighup_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[2]);
}

#[test]
fn sigquit_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[3]);
}

#[test]
fn sigusr1_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[4]);
}

#[test]
fn sigusr2_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[5]);
}

#[test]
fn sigalrm_is_could_not_run() {
    a_signal_is_could_not_run(SIGNALS[6]);
}

/// The rest a process can catch whose default action ends it.
#[test]
fn every_other_terminating_signal_is_could_not_run() {
    for signal in &SIGNALS[7..] {
        a_signal_is_could_not_run(*signal);
    }
}

#[test]
fn a_payload_with_no_cwd_is_never_guessed_where_the_host_does_not_promise_one() {
    let p = project();
    // Claude Code always sends `cwd`: without it, kapi says so rather than walk up from
    // wherever the process started.
    let mut payload = Host::ClaudeCode.payload(Event::Stop, p.path(), "", false);
    payload.as_object_mut().unwrap().remove("cwd");
    let answer = run_hook(
        p.path(),
        "stop",
        Some(Host::ClaudeCode),
        &[],
        &[],
        Feed::Bytes(payload.to_string().into_bytes()),
    );
    let seen = Host::ClaudeCode.read(Event::Stop, &answer);
    assert_warned(
        Host::ClaudeCode,
        &seen,
        &answer,
        "stop",
        "no cwd",
        "claude-code",
    );
    // Kiki runs its hooks in the project folder, as its documentation says.
    let mut payload = Host::Kiki.payload(Event::Stop, p.path(), "", false);
    payload.as_object_mut().unwrap().remove("cwd");
    let answer = run_hook(
        p.path(),
        "stop",
        Some(Host::Kiki),
        &[],
        &[],
        Feed::Bytes(payload.to_string().into_bytes()),
    );
    let seen = Host::Kiki.read(Event::Stop, &answer);
    assert_eq!(seen, Seen::Allow, "{answer:?}");
    assert!(
        answer.stderr.contains("the project's ship gate is not met"),
        "{answer:?}"
    );
}

#[test]
fn a_catalog_a_collection_declares_is_checked_after_an_edit() {
    for host in [Host::ClaudeCode, Host::Codex, Host::Kkss] {
        let p = project();
        std::fs::write(
            p.path().join("i18n/en.json"),
            "{\"hello\": \"Use the login page\"}\n",
        )
        .unwrap();
        let (seen, answer) = fire(p.path(), host, true, Event::PostEdit, "i18n/en.json", false);
        match seen {
            Seen::Feedback(reason) => assert!(reason.contains("i18n/en.json:1:"), "{reason}"),
            other => panic!("{host:?}: expected feedback, got {other:?}\n{answer:?}"),
        }
    }
}

#[test]
fn a_patch_that_deletes_a_file_is_nothing_to_check_and_a_move_checks_the_new_path() {
    let p = project();
    let codex = |patch: &str| {
        let body = json!({"session_id": "c", "turn_id": "t", "cwd": p.path(), "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch", "tool_input": {"command": patch}});
        let answer = run_hook(
            p.path(),
            "post-edit",
            Some(Host::Codex),
            &[],
            &[],
            Feed::Bytes(body.to_string().into_bytes()),
        );
        (Host::Codex.read(Event::PostEdit, &answer), answer)
    };
    let (seen, answer) = codex("*** Begin Patch\n*** Delete File: docs/gone.md\n*** End Patch\n");
    assert_eq!(seen, Seen::Allow, "{answer:?}");
    assert!(
        answer.stderr.is_empty(),
        "no false warning for a deleted file: {answer:?}"
    );
    // docs/old.md was moved to docs/bad.md (which fails): the new path is checked.
    let (seen, answer) = codex(
        "*** Begin Patch\n*** Update File: docs/old.md\n*** Move to: docs/bad.md\n@@\n-a\n+b\n*** End Patch\n",
    );
    assert!(
        matches!(&seen, Seen::Feedback(r) if r.contains("docs/bad.md")),
        "{seen:?} {answer:?}"
    );
}

/// Codex's shell tool with `apply_patch` in a heredoc, its command an argument array (issue
/// 40, item 7): the patch's files are guarded and checked as `apply_patch`'s are; a shell
/// command with no patch is nothing to guard.
#[test]
fn a_shell_payload_whose_command_is_an_argument_array_is_read_for_its_patch() {
    let p = project();
    generated(p.path());
    let codex = |event: Event, command: serde_json::Value| {
        let name = if event == Event::PreEdit {
            "PreToolUse"
        } else {
            "PostToolUse"
        };
        let body = json!({"session_id": "c", "turn_id": "t", "cwd": p.path(), "hook_event_name": name,
            "tool_name": "Bash", "tool_input": {"command": command}});
        let answer = run_hook(
            p.path(),
            event.hook(),
            Some(Host::Codex),
            &[],
            &[],
            Feed::Bytes(body.to_string().into_bytes()),
        );
        (Host::Codex.read(event, &answer), answer)
    };
    let heredoc = |file: &str| {
        json!([
            "bash",
            "-lc",
            format!(
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {file}\n@@\n-old\n+new\n*** End Patch\nEOF\n"
            )
        ])
    };
    let (seen, answer) = codex(Event::PreEdit, heredoc("i18n/fr.json"));
    assert!(
        matches!(&seen, Seen::Deny(r) if r.contains("i18n/fr.json is generated")),
        "{seen:?} {answer:?}"
    );
    std::fs::write(p.path().join("docs/bad.md"), "Use the login page.\n").unwrap();
    let (seen, answer) = codex(Event::PostEdit, heredoc("docs/bad.md"));
    assert!(
        matches!(&seen, Seen::Feedback(r) if r.contains("docs/bad.md")),
        "{seen:?} {answer:?}"
    );
    for event in [Event::PreEdit, Event::PostEdit] {
        let (seen, answer) = codex(event, json!(["ls", "-l", "i18n/fr.json"]));
        assert_eq!(seen, Seen::Allow, "{event:?}: {answer:?}");
    }
}

#[test]
fn a_tool_that_only_reads_is_nothing_to_report_even_on_a_target() {
    let p = project();
    for event in [Event::PreEdit, Event::PostEdit] {
        let body = json!({"session_id": "s", "transcript_path": "/t", "hook_event_name": "PreToolUse",
            "cwd": p.path(), "tool_name": "Read", "tool_input": {"file_path": p.path().join("i18n/fr.json")}});
        let answer = run_hook(
            p.path(),
            event.hook(),
            Some(Host::ClaudeCode),
            &[],
            &[],
            Feed::Bytes(body.to_string().into_bytes()),
        );
        assert_eq!(
            Host::ClaudeCode.read(event, &answer),
            Seen::Allow,
            "{event:?}: {answer:?}"
        );
    }
}

#[test]
fn parallel_edits_each_leave_their_record_for_the_stop_hook() {
    let p = project();
    let files: Vec<String> = (0..8).map(|i| format!("notes/n{i}.md")).collect();
    for f in &files {
        let path = p.path().join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "Use the login page.\n").unwrap();
    }
    std::thread::scope(|scope| {
        for f in &files {
            let dir = p.path();
            scope.spawn(move || {
                let (seen, answer) = fire(dir, Host::Kiki, true, Event::PostEdit, f, false);
                assert_eq!(seen, Seen::Allow, "{answer:?}");
            });
        }
    });
    let state =
        std::fs::read_to_string(p.path().join(".kapi/work/hooks/kiki-session-1.json")).unwrap();
    for f in &files {
        assert!(state.contains(f.as_str()), "{f} lost: {state}");
    }
    // Kiki's stop names every file that still fails.
    let (seen, _) = fire(p.path(), Host::Kiki, true, Event::Stop, "", false);
    match seen {
        Seen::Continue(reason) => {
            for f in &files {
                assert!(reason.contains(f.as_str()), "{f}: {reason}");
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_inherited_kapi_project_never_gates_an_unrelated_folder() {
    let p = project();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("notes.md"), "Use the login page.\n").unwrap();
    let root = p.path().display().to_string();
    for (event, file) in [(Event::Stop, ""), (Event::PostEdit, "notes.md")] {
        let body = Host::Kiki.payload(event, other.path(), file, false);
        let answer = run_hook(
            other.path(),
            event.hook(),
            Some(Host::Kiki),
            &[],
            &[("KAPI_PROJECT", &root)],
            Feed::Bytes(body.to_string().into_bytes()),
        );
        assert_eq!(
            Host::Kiki.read(event, &answer),
            Seen::Allow,
            "{event:?}: {answer:?}"
        );
        assert!(answer.stderr.is_empty(), "{event:?}: {answer:?}");
    }
    // A stale one (naming nothing) never switches the hooks off inside a real project.
    generated(p.path());
    let body = Host::Kiki.payload(Event::PreEdit, p.path(), "i18n/fr.json", false);
    let answer = run_hook(
        p.path(),
        "pre-edit",
        Some(Host::Kiki),
        &[],
        &[("KAPI_PROJECT", "/nonexistent/kapi.yaml")],
        Feed::Bytes(body.to_string().into_bytes()),
    );
    assert!(
        matches!(Host::Kiki.read(Event::PreEdit, &answer), Seen::Deny(_)),
        "{answer:?}"
    );
    // Inside the project it names, it binds as usual: the project's gate is read.
    let body = Host::Kiki.payload(Event::Stop, p.path(), "", false);
    let answer = run_hook(
        p.path(),
        "stop",
        Some(Host::Kiki),
        &[],
        &[("KAPI_PROJECT", &root)],
        Feed::Bytes(body.to_string().into_bytes()),
    );
    assert!(
        answer.stderr.contains("the project's ship gate is not met"),
        "{answer:?}"
    );
}

#[test]
fn a_declared_file_kapi_cannot_read_is_nothing_to_report() {
    let p = project();
    std::fs::write(
        p.path().join("kapi.yaml"),
        "version: v1\nname: sim\ncollections:\n  - path: \"**/*\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.path().join("site")).unwrap();
    std::fs::write(p.path().join("site/run.py"), "print('login')\n").unwrap();
    std::fs::write(p.path().join("site/logo.png"), [0x89, b'P', b'N', b'G']).unwrap();
    for file in ["site/run.py", "site/logo.png"] {
        for host in [Host::ClaudeCode, Host::Kiki] {
            let (seen, answer) = fire(p.path(), host, true, Event::PostEdit, file, false);
            assert_eq!(seen, Seen::Allow, "{file} {host:?}: {answer:?}");
            assert!(answer.stderr.is_empty(), "{file} {host:?}: {answer:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The stop hook holds a session to its own work (issue 38, item 9)

/// `git ARGS` in `dir`, with no user or system configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=e2e",
            "-c",
            "user.email=e2e@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`project`] committed to git, as a person's repository is before a session starts: its
/// `docs/bad.md` fails the gate (a pre-existing finding), and `docs/mixed.md` has one in its
/// first paragraph and none in its second.
fn committed() -> tempfile::TempDir {
    let p = project();
    std::fs::write(
        p.path().join("docs/mixed.md"),
        "# Mixed\n\nUse the login page.\n\nA second paragraph.\n",
    )
    .unwrap();
    std::fs::write(p.path().join(".kapi/.gitignore"), "work/\n").unwrap();
    git(p.path(), &["init", "-q"]);
    git(p.path(), &["add", "-A"]);
    git(p.path(), &["commit", "-q", "-m", "before the session"]);
    p
}

/// An edit tool's write of `text` to `file`, with the hooks the host runs around it:
/// pre-edit, the write, post-edit.
fn edit(dir: &Path, host: Host, file: &str, text: &str) {
    let what = format!("{host:?} edit of {file}");
    let (seen, answer) = fire(dir, host, true, Event::PreEdit, file, false);
    assert_eq!(seen, Seen::Allow, "{what}: pre-edit: {answer:?}");
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let (seen, answer) = fire(dir, host, true, Event::PostEdit, file, false);
    assert_never_broken(&seen, &answer, &what);
}

/// The stop hook as the host runs it at the end of a turn.
fn stop(dir: &Path, host: Host) -> (Seen, Answer) {
    let (seen, answer) = fire(dir, host, true, Event::Stop, "", false);
    assert_never_broken(&seen, &answer, &format!("{host:?} stop"));
    (seen, answer)
}

/// The stop held the session to `needle` (a finding of its own) and named nothing in
/// `absent`: the host keeps the assistant working (KKSS, whose turn end only observes: the
/// report on stderr).
fn assert_held(
    host: Host,
    seen: &Seen,
    answer: &Answer,
    needle: &str,
    absent: &[&str],
    what: &str,
) {
    let said = match (host, seen) {
        (Host::Kkss, Seen::Allow) => answer.stderr.clone(),
        (Host::Kkss, other) => panic!("{what}: KKSS's turn end never blocks: {other:?}"),
        (_, Seen::Continue(reason)) => reason.clone(),
        (_, other) => panic!("{what}: expected the stop to be held, got {other:?}\n{answer:?}"),
    };
    assert!(
        said.contains(needle),
        "{what}: should name `{needle}`: {said}"
    );
    for a in absent {
        assert!(!said.contains(a), "{what}: should not name `{a}`: {said}");
    }
}

/// The stop was let through, and whatever it said names no finding's place (`file:line`):
/// nothing it says holds the session to work that is not its own.
fn assert_let_through(host: Host, seen: &Seen, answer: &Answer, what: &str) {
    assert!(
        matches!(seen, Seen::Allow | Seen::Warn(_)),
        "{what}: the stop should not be held: {seen:?}\n{answer:?}"
    );
    let said = format!("{seen:?} {}", answer.stderr);
    for place in ["docs/bad.md:3:", "docs/mixed.md:3:", "docs/good.md:3:"] {
        assert!(!said.contains(place), "{what}: names {place}: {said}");
    }
    if matches!(host, Host::Kkss | Host::Kiki) {
        assert!(answer.stdout.is_empty(), "{what}: {answer:?}");
    }
}

/// The project's failures the session did not introduce, said once without blocking: a
/// `systemMessage` (Claude Code, Codex) or stderr (KKSS, Kiki), short, naming the count and
/// `kapi check --ship`.
fn assert_summary(host: Host, seen: &Seen, answer: &Answer, what: &str) {
    assert_let_through(host, seen, answer, what);
    let said = match (host, seen) {
        (Host::ClaudeCode | Host::Codex, Seen::Warn(m)) => m.clone(),
        (Host::ClaudeCode | Host::Codex, other) => {
            panic!("{what}: expected a systemMessage, got {other:?}\n{answer:?}")
        }
        _ => answer.stderr.clone(),
    };
    assert!(
        said.contains("not this session's") && said.contains("kapi check --ship"),
        "{what}: {said}"
    );
    assert!(said.lines().count() <= 3, "{what}: short: {said}");
}

/// Nothing at all: no decision, no message, nothing on stderr.
fn assert_silent(seen: &Seen, answer: &Answer, what: &str) {
    assert_eq!(seen, &Seen::Allow, "{what}: {answer:?}");
    assert!(
        answer.stdout.is_empty() && answer.stderr.is_empty(),
        "{what}: {answer:?}"
    );
}

#[test]
fn a_session_that_edits_nothing_is_not_blocked_by_what_was_there() {
    for host in HOSTS {
        for git in [true, false] {
            for flag in [true, false] {
                let p = if git { committed() } else { project() };
                let what = format!("{host:?} git={git} flag={flag}");
                let (seen, answer) = fire(p.path(), host, flag, Event::Stop, "", false);
                assert_summary(host, &seen, &answer, &what);
                // docs/bad.md's `login`, and docs/mixed.md's in the repository.
                let count = if git {
                    "2 failing findings"
                } else {
                    "1 failing finding"
                };
                assert!(
                    format!("{seen:?} {}", answer.stderr).contains(count),
                    "{what}: the count: {seen:?} {answer:?}"
                );
                // Said once: the same failures are not repeated at the next stop.
                let (seen, answer) = fire(p.path(), host, flag, Event::Stop, "", false);
                assert_silent(&seen, &answer, &format!("{what}, again"));
                // `kapi check --ship` stays the whole project's gate.
                let ship = command(p.path(), Bind::Discover)
                    .args(["check", "--ship"])
                    .output()
                    .unwrap();
                assert_eq!(ship.status.code(), Some(3), "{what}: {ship:?}");
            }
        }
    }
}

#[test]
fn a_forbidden_term_the_session_introduces_blocks_naming_only_it() {
    for host in HOSTS {
        for git in [true, false] {
            let p = if git { committed() } else { project() };
            let what = format!("{host:?} git={git}");
            edit(
                p.path(),
                host,
                "docs/good.md",
                "# Guide\n\nUse the sign in page.\n\nThen open the login form.\n",
            );
            let (seen, answer) = stop(p.path(), host);
            assert_held(
                host,
                &seen,
                &answer,
                "docs/good.md:5:15",
                &["docs/bad.md", "docs/mixed.md"],
                &what,
            );
            assert!(
                format!("{seen:?} {}", answer.stderr).contains("terms.forbidden"),
                "{what}: {seen:?} {answer:?}"
            );
            // Fixed: the stop lets the session go.
            edit(
                p.path(),
                host,
                "docs/good.md",
                "# Guide\n\nUse the sign in page.\n\nThen open the sign in form.\n",
            );
            let (seen, answer) = stop(p.path(), host);
            assert_let_through(host, &seen, &answer, &format!("{what}, fixed"));
        }
    }
}

#[test]
fn a_pre_existing_finding_in_a_block_the_session_did_not_add_it_to_does_not_block() {
    for host in HOSTS {
        let p = committed();
        let what = format!("{host:?}");
        // Another block of the file with a pre-existing finding.
        edit(
            p.path(),
            host,
            "docs/mixed.md",
            "# Mixed\n\nUse the login page.\n\nA second paragraph, longer now.\n",
        );
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &format!("{what}: another block"));
        // The block with the finding, changed, keeping it: it was there before.
        edit(
            p.path(),
            host,
            "docs/mixed.md",
            "# Mixed\n\nUse the login page today.\n\nA second paragraph, longer now.\n",
        );
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &format!("{what}: the same block"));
        // A second `login` in that block is the session's own.
        edit(
            p.path(),
            host,
            "docs/mixed.md",
            "# Mixed\n\nUse the login page today, or the login link.\n\nA second paragraph, longer now.\n",
        );
        let (seen, answer) = stop(p.path(), host);
        assert_held(
            host,
            &seen,
            &answer,
            "docs/mixed.md:3:",
            &["docs/bad.md"],
            &format!("{what}: a second login"),
        );
    }
}

#[test]
fn an_old_unused_directive_in_a_file_the_session_edits_does_not_block() {
    for host in HOSTS {
        let p = project();
        // A ship gate that fails on minor findings, and a committed file with a directive that
        // suppresses nothing (a `suppress.unused-directive`, minor, there before the session).
        let recipe = std::fs::read_to_string(p.path().join("kapi.yaml")).unwrap();
        std::fs::write(
            p.path().join("kapi.yaml"),
            format!("{recipe}  ship:\n    fail_on: minor\n"),
        )
        .unwrap();
        let page =
            "# Page\n\n<!-- kapi-disable-next-line terms -->\nAll clean here.\n\nA paragraph.\n";
        std::fs::write(p.path().join("docs/page.md"), page).unwrap();
        std::fs::write(p.path().join(".kapi/.gitignore"), "work/\n").unwrap();
        git(p.path(), &["init", "-q"]);
        git(p.path(), &["add", "-A"]);
        git(p.path(), &["commit", "-q", "-m", "before the session"]);
        let what = format!("{host:?}");
        edit(
            p.path(),
            host,
            "docs/page.md",
            &page.replace("A paragraph.", "A longer paragraph."),
        );
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &format!("{what}: an old directive"));
    }
}

#[test]
fn an_uncommitted_change_made_before_the_session_does_not_block() {
    for host in HOSTS {
        let p = committed();
        let what = format!("{host:?}");
        // The person's own work in progress, before the session starts.
        std::fs::write(
            p.path().join("docs/good.md"),
            "# Guide\n\nUse the login page.\n",
        )
        .unwrap();
        std::fs::write(p.path().join("docs/draft.md"), "# Draft\n\nA login page.\n").unwrap();
        // The session edits another block of that file, and another file.
        edit(
            p.path(),
            host,
            "docs/good.md",
            "# A better guide\n\nUse the login page.\n",
        );
        edit(p.path(), host, "docs/other.md", "# Other\n\nAll fine.\n");
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &what);
        let said = format!("{seen:?} {}", answer.stderr);
        assert!(!said.contains("docs/draft.md"), "{what}: {said}");
    }
}

#[test]
fn a_change_made_through_the_shell_during_the_session_blocks() {
    for host in HOSTS {
        let p = committed();
        let what = format!("{host:?}");
        // The session's first turn only answers; its stop is its first hook.
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &format!("{what}: first turn"));
        // The next turn changes files with a shell command (`sed -i`, a script), which no
        // edit hook sees: a changed file and a new one.
        std::fs::write(
            p.path().join("docs/good.md"),
            "# Guide\n\nUse the login page.\n",
        )
        .unwrap();
        std::fs::write(
            p.path().join("docs/new.md"),
            "# New\n\nOpen the login form.\n",
        )
        .unwrap();
        let (seen, answer) = stop(p.path(), host);
        assert_held(
            host,
            &seen,
            &answer,
            "docs/good.md:3:",
            &["docs/bad.md", "docs/mixed.md"],
            &what,
        );
        assert_held(host, &seen, &answer, "docs/new.md:3:", &[], &what);
    }
}

#[test]
fn the_same_unchanged_findings_never_block_twice() {
    for host in HOSTS {
        let p = committed();
        let what = format!("{host:?}");
        edit(
            p.path(),
            host,
            "docs/good.md",
            "# Guide\n\nUse the login page.\n",
        );
        let (seen, answer) = stop(p.path(), host);
        assert_held(
            host,
            &seen,
            &answer,
            "docs/good.md:3:",
            &["docs/bad.md"],
            &what,
        );
        // Stopped again with nothing edited and the same findings: let through, with a notice.
        let (seen, answer) = stop(p.path(), host);
        match host {
            Host::Kkss => assert_held(host, &seen, &answer, "docs/good.md:3:", &[], &what),
            Host::ClaudeCode | Host::Codex => assert!(
                matches!(&seen, Seen::Warn(m) if m.contains("does not block twice") && m.contains("docs/good.md:3:")),
                "{what}: {seen:?}"
            ),
            Host::Kiki => {
                assert_eq!(seen, Seen::Allow, "{what}: {answer:?}");
                assert!(
                    answer.stderr.contains("does not block twice"),
                    "{what}: {answer:?}"
                );
            }
        }
        // An edit since (that leaves the finding) is new work: held again.
        edit(
            p.path(),
            host,
            "docs/good.md",
            "# Guide, edited\n\nUse the login page.\n",
        );
        let (seen, answer) = stop(p.path(), host);
        assert_held(host, &seen, &answer, "docs/good.md:3:", &[], &what);
    }
}

#[test]
fn kapis_own_rules_file_written_during_the_session_never_blocks() {
    for host in HOSTS {
        let p = committed();
        let what = format!("{host:?}");
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &format!("{what}: first turn"));
        // `kapi context sync` run by the session writes a rules file into a declared folder.
        std::fs::create_dir_all(p.path().join("docs/api")).unwrap();
        std::fs::write(
            p.path().join("docs/api/AGENTS.md"),
            "<!-- kapi:rules -->\n## kapi\n\n- Never write login: write sign in.\n<!-- /kapi:rules -->\n",
        )
        .unwrap();
        let (seen, answer) = stop(p.path(), host);
        assert_let_through(host, &seen, &answer, &what);
        assert!(
            !format!("{seen:?} {}", answer.stderr).contains("AGENTS.md"),
            "{what}: {seen:?} {answer:?}"
        );
    }
}
