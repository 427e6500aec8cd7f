//! `kapi hook` as Cursor and Windsurf's Cascade run it (issue 40): their documented payloads go
//! to the built binary, and its answer is read as each host reads it. Cursor
//! (cursor.com/docs/hooks): preToolUse reads `permission: deny` and gives the model its
//! `agent_message`; afterFileEdit only observes; stop sends a non-empty `followup_message` as the
//! next user message, at most `loop_limit` times; exit 2 blocks and any other exit fails open.
//! Cascade (docs.windsurf.com/windsurf/cascade/hooks): exit 2 blocks a pre-hook and shows the
//! agent stderr on a post-hook; any other exit goes on. Cursor also runs Claude Code's hooks
//! from `.claude/settings.json`: kapi's stand aside when `.cursor/hooks.json` runs its own.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Bind, command};
use crate::hooks::{Answer, Feed, generated, project, run_configured, run_hook, wired};

/// What Cursor or Cascade does with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Allow,
    Deny(String),
    Feedback(String),
    Continue(String),
    /// A hook the host reads as failed (fail-open, logged): kapi must never cause this.
    Broken(String),
}

const CURSOR_VERSION: &str = "2.4.21";

fn cursor_payload(event: &str, dir: &Path, file: &str, loop_count: u64) -> Value {
    let abs = dir.join(file).display().to_string();
    let mut p = json!({
        "conversation_id": "cur-conv-1",
        "generation_id": "gen-1",
        "model": "claude-sonnet",
        "hook_event_name": event,
        "cursor_version": CURSOR_VERSION,
        "workspace_roots": [dir.display().to_string()],
        "user_email": null,
        "transcript_path": null,
    });
    match event {
        "preToolUse" => {
            p["tool_name"] = json!("Write");
            p["tool_input"] = json!({"file_path": abs, "contents": "x"});
            p["tool_use_id"] = json!("tool-1");
            p["cwd"] = json!(dir.display().to_string());
        }
        "afterFileEdit" => {
            p["file_path"] = json!(abs);
            p["edits"] = json!([{"old_string": "a", "new_string": "b"}]);
        }
        _ => {
            p["status"] = json!("completed");
            p["loop_count"] = json!(loop_count);
        }
    }
    p
}

fn cursor_reads(event: &str, a: &Answer) -> Seen {
    match a.code {
        Some(0) => {}
        Some(2) if event != "afterFileEdit" => return Seen::Deny(a.stderr.clone()),
        other => return Seen::Broken(format!("hook failed, fail-open: {other:?}")),
    }
    let out = a.stdout.trim();
    if out.is_empty() {
        return Seen::Allow;
    }
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        return Seen::Broken(format!("not JSON: {out}"));
    };
    match event {
        "preToolUse" => match v["permission"].as_str() {
            Some("deny") => Seen::Deny(v["agent_message"].as_str().unwrap_or("").to_owned()),
            Some("allow") => Seen::Allow,
            other => Seen::Broken(format!("permission {other:?}")),
        },
        "stop" => match v["followup_message"].as_str() {
            Some(m) if !m.is_empty() => Seen::Continue(m.to_owned()),
            _ => Seen::Allow,
        },
        _ => Seen::Broken(format!("output on an observing event: {out}")),
    }
}

fn cursor(dir: &Path, hook: &str, flag: bool, payload: &Value, envs: &[(&str, &str)]) -> Seen {
    let event = payload["hook_event_name"].as_str().unwrap().to_owned();
    let extra: &[&str] = if flag { &["--host", "cursor"] } else { &[] };
    let answer = run_hook(
        dir,
        hook,
        None,
        extra,
        envs,
        Feed::Bytes(payload.to_string().into_bytes()),
    );
    cursor_reads(&event, &answer)
}

#[test]
fn cursor_denies_a_generated_target_and_holds_the_stop_with_a_follow_up() {
    for flag in [true, false] {
        let p = project();
        generated(p.path());
        let what = format!("flag={flag}");
        let pre = cursor_payload("preToolUse", p.path(), "i18n/fr.json", 0);
        match cursor(p.path(), "pre-edit", flag, &pre, &[]) {
            Seen::Deny(reason) => {
                assert!(
                    reason.contains("i18n/fr.json is generated"),
                    "{what}: {reason}"
                );
                assert!(reason.contains("kapi apply"), "{what}: {reason}");
            }
            other => panic!("{what}: expected a deny, got {other:?}"),
        }
        let source = cursor_payload("preToolUse", p.path(), "i18n/en.json", 0);
        assert_eq!(
            cursor(p.path(), "pre-edit", flag, &source, &[]),
            Seen::Allow
        );

        // afterFileEdit only observes: the finding is recorded, and the stop carries it.
        let edit = cursor_payload("afterFileEdit", p.path(), "docs/bad.md", 0);
        assert_eq!(
            cursor(p.path(), "post-edit", flag, &edit, &[]),
            Seen::Allow,
            "{what}"
        );
        let state = p.path().join(".kapi/work/hooks/cur-conv-1.json");
        let state = std::fs::read_to_string(&state).expect("post-edit recorded state");
        assert!(state.contains("docs/bad.md"), "{what}: {state}");
        let stop = cursor_payload("stop", p.path(), "", 0);
        match cursor(p.path(), "stop", flag, &stop, &[]) {
            Seen::Continue(m) => {
                assert!(m.contains("docs/bad.md"), "{what}: {m}");
                assert!(m.contains("terms.forbidden"), "{what}: {m}");
            }
            other => panic!("{what}: expected a follow-up, got {other:?}"),
        }
        // The stop that follows kapi's follow-up (`loop_count` 1) is let through.
        let again = cursor_payload("stop", p.path(), "", 1);
        assert_eq!(
            cursor(p.path(), "stop", flag, &again, &[]),
            Seen::Allow,
            "{what}"
        );
    }
}

/// A payload that starts with a UTF-8 byte-order mark (as a Windows host or PowerShell pipes
/// it) is read as the JSON after it: the same decision as without it.
#[test]
fn a_payload_after_a_byte_order_mark_is_read_as_json() {
    let p = project();
    generated(p.path());
    let pre = cursor_payload("preToolUse", p.path(), "i18n/fr.json", 0);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(pre.to_string().into_bytes());
    let answer = run_hook(
        p.path(),
        "pre-edit",
        None,
        &["--host", "cursor"],
        &[],
        Feed::Bytes(bytes),
    );
    match cursor_reads("preToolUse", &answer) {
        Seen::Deny(reason) => assert!(reason.contains("i18n/fr.json is generated"), "{reason}"),
        other => panic!("expected a deny, got {other:?}: {}", answer.stderr),
    }
}

/// Cursor's stop holds a session to its own work: a session that edited nothing is let
/// through past the project's old findings; one that introduced a finding gets a follow-up
/// naming only it; the same unchanged findings never hold a later stop again.
#[test]
fn cursor_holds_a_session_to_its_own_work() {
    let p = project();
    let stop = cursor_payload("stop", p.path(), "", 0);
    assert_eq!(
        cursor(p.path(), "stop", true, &stop, &[]),
        Seen::Allow,
        "docs/bad.md failed before the session: not its work"
    );
    std::fs::write(
        p.path().join("docs/good.md"),
        "# Guide\n\nUse the login page.\n",
    )
    .unwrap();
    let edit = cursor_payload("afterFileEdit", p.path(), "docs/good.md", 0);
    assert_eq!(cursor(p.path(), "post-edit", true, &edit, &[]), Seen::Allow);
    match cursor(p.path(), "stop", true, &stop, &[]) {
        Seen::Continue(m) => {
            assert!(m.contains("docs/good.md"), "{m}");
            assert!(!m.contains("docs/bad.md"), "only the session's own: {m}");
        }
        other => panic!("expected a follow-up, got {other:?}"),
    }
    assert_eq!(
        cursor(p.path(), "stop", true, &stop, &[]),
        Seen::Allow,
        "the same unchanged findings do not hold the stop twice"
    );
}

/// Cursor runs Claude Code's hooks too (on by default): kapi's Claude Code hook stands aside
/// when `.cursor/hooks.json` runs kapi's Cursor hooks, and acts when it does not.
#[test]
fn claude_codes_hook_under_cursor_stands_aside_for_kapis_cursor_hook() {
    let p = project();
    generated(p.path());
    let claude = json!({
        "session_id": "cur-conv-2",
        "transcript_path": null,
        "hook_event_name": "PreToolUse",
        "cwd": p.path().display().to_string(),
        "tool_name": "Edit",
        "tool_input": {"file_path": p.path().join("i18n/fr.json").display().to_string()},
    });
    let in_cursor = [("CURSOR_VERSION", CURSOR_VERSION)];
    let run = |envs: &[(&str, &str)]| {
        run_hook(
            p.path(),
            "pre-edit",
            None,
            &["--host", "claude-code"],
            envs,
            Feed::Bytes(claude.to_string().into_bytes()),
        )
    };
    let denies = |a: &Answer| a.stdout.contains("\"permissionDecision\":\"deny\"");
    let alone = run(&in_cursor);
    assert!(
        denies(&alone),
        "no Cursor hooks yet: Claude Code's acts: {alone:?}"
    );
    let init = command(p.path(), Bind::Discover)
        .args(["init", "--agents", "claude-code,cursor", "--no-rules-files"])
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let aside = run(&in_cursor);
    assert_eq!(
        (aside.code, aside.stdout.as_str(), aside.stderr.as_str()),
        (Some(0), "", ""),
        "{aside:?}"
    );
    // Outside Cursor, Claude Code's hook is Claude Code's.
    assert!(denies(&run(&[])), "outside Cursor it acts");
}

fn cascade_payload(action: &str, dir: &Path, file: &str) -> Value {
    json!({
        "agent_action_name": action,
        "trajectory_id": "traj-1",
        "execution_id": "exec-1",
        "timestamp": "2026-12-07T17:00:00Z",
        "tool_info": {
            "file_path": dir.join(file).display().to_string(),
            "edits": [{"old_string": "a", "new_string": "b"}],
        },
    })
}

fn cascade_reads(action: &str, a: &Answer) -> Seen {
    match (a.code, action) {
        (Some(0), _) => Seen::Allow,
        (Some(2), "pre_write_code") => Seen::Deny(a.stderr.clone()),
        (Some(2), _) => Seen::Feedback(a.stderr.clone()),
        (other, _) => Seen::Broken(format!("error, the action proceeds: {other:?}")),
    }
}

#[test]
fn cascade_blocks_a_generated_target_and_shows_the_agent_an_edits_findings() {
    for flag in [true, false] {
        let p = project();
        generated(p.path());
        let what = format!("flag={flag}");
        let extra: &[&str] = if flag { &["--host", "windsurf"] } else { &[] };
        let fire = |hook: &str, action: &str, file: &str| {
            let payload = cascade_payload(action, p.path(), file);
            let answer = run_hook(
                p.path(),
                hook,
                None,
                extra,
                &[],
                Feed::Bytes(payload.to_string().into_bytes()),
            );
            cascade_reads(action, &answer)
        };
        match fire("pre-edit", "pre_write_code", "i18n/fr.json") {
            Seen::Deny(r) => assert!(r.contains("i18n/fr.json is generated"), "{what}: {r}"),
            other => panic!("{what}: expected a deny, got {other:?}"),
        }
        assert_eq!(
            fire("pre-edit", "pre_write_code", "docs/bad.md"),
            Seen::Allow
        );
        match fire("post-edit", "post_write_code", "docs/bad.md") {
            Seen::Feedback(r) => assert!(r.contains("docs/bad.md:3:9"), "{what}: {r}"),
            other => panic!("{what}: expected findings, got {other:?}"),
        }
        assert_eq!(
            fire("post-edit", "post_write_code", "docs/good.md"),
            Seen::Allow
        );
    }
}

/// The entries `kapi init` writes into `.cursor/hooks.json` and `.windsurf/hooks.json`, run as
/// the hosts run them (through a shell, in the project root): they act with kapi on PATH and
/// do nothing, silently, without it.
#[test]
fn the_cursor_and_windsurf_hooks_init_writes_run_as_written() {
    let (p, _bin, with) = wired("cursor,windsurf");
    let read = |rel: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p.path().join(rel)).unwrap()).unwrap()
    };
    let cursor_file = read(".cursor/hooks.json");
    let windsurf_file = read(".windsurf/hooks.json");
    let cases: [(&Value, &str, &str, Value); 5] = [
        (
            &cursor_file,
            "preToolUse",
            "deny",
            cursor_payload("preToolUse", p.path(), "i18n/fr.json", 0),
        ),
        (
            &cursor_file,
            "afterFileEdit",
            "allow",
            cursor_payload("afterFileEdit", p.path(), "docs/bad.md", 0),
        ),
        (
            &cursor_file,
            "stop",
            "continue",
            cursor_payload("stop", p.path(), "", 0),
        ),
        (
            &windsurf_file,
            "pre_write_code",
            "deny",
            cascade_payload("pre_write_code", p.path(), "i18n/fr.json"),
        ),
        (
            &windsurf_file,
            "post_write_code",
            "feedback",
            cascade_payload("post_write_code", p.path(), "docs/bad.md"),
        ),
    ];
    for (file, event, want, payload) in cases {
        let cmd = file["hooks"][event][0]["command"]
            .as_str()
            .unwrap()
            .to_owned();
        let args = vec!["-c".to_owned(), cmd];
        let body = payload.to_string().into_bytes();
        let answer = run_configured(p.path(), "sh", &args, &with, &body);
        let seen = if event.contains('_') {
            cascade_reads(event, &answer)
        } else {
            cursor_reads(event, &answer)
        };
        let acted = match want {
            "deny" => matches!(seen, Seen::Deny(_)),
            "continue" => matches!(seen, Seen::Continue(_)),
            "feedback" => matches!(seen, Seen::Feedback(_)),
            _ => seen == Seen::Allow,
        };
        assert!(acted, "{event}: {seen:?}\n{answer:?}");
        let answer = run_configured(p.path(), "sh", &args, "/usr/bin:/bin", &body);
        assert_eq!(
            (answer.code, answer.stdout.as_str(), answer.stderr.as_str()),
            (Some(0), "", ""),
            "{event} without kapi: {answer:?}"
        );
    }
}

/// Kiro (kiro.dev/docs/cli/hooks): a PreToolUse command hook gets `hook_event_name`, `cwd`,
/// `tool_name` and `tool_input`, and blocks with exit 2, its stderr returned to the model;
/// any other exit is a warning and the tool runs.
#[test]
fn kiro_blocks_a_generated_target_with_exit_2() {
    let p = project();
    generated(p.path());
    let payload = |file: &str| {
        json!({
            "hook_event_name": "preToolUse",
            "cwd": p.path().display().to_string(),
            "session_id": "kiro-1",
            "tool_name": "fs_write",
            "tool_input": {"command": "create", "path": p.path().join(file).display().to_string(), "file_text": "x"},
        })
    };
    let fire = |file: &str| {
        run_hook(
            p.path(),
            "pre-edit",
            None,
            &["--host", "kiro"],
            &[],
            Feed::Bytes(payload(file).to_string().into_bytes()),
        )
    };
    let denied = fire("i18n/fr.json");
    assert_eq!(denied.code, Some(2), "{denied:?}");
    assert!(denied.stdout.is_empty(), "{denied:?}");
    assert!(
        denied.stderr.contains("i18n/fr.json is generated"),
        "{denied:?}"
    );
    let allowed = fire("docs/good.md");
    assert_eq!(
        (
            allowed.code,
            allowed.stdout.as_str(),
            allowed.stderr.as_str()
        ),
        (Some(0), "", "")
    );
}

/// Crush (docs/hooks): a PreToolUse hook gets `event` (not `hook_event_name`), `session_id`,
/// `cwd`, `tool_name` and `tool_input.file_path`, and refuses with `{"decision":"deny",
/// "reason"}` on exit 0 (or exit 2); any other exit is logged and the tool runs.
#[test]
fn crush_denies_a_generated_target_in_its_own_json() {
    let p = project();
    generated(p.path());
    let fire = |file: &str| {
        let payload = json!({
            "event": "PreToolUse",
            "session_id": "crush-1",
            "cwd": p.path().display().to_string(),
            "tool_name": "edit",
            "tool_input": {"file_path": p.path().join(file).display().to_string(), "old_string": "a", "new_string": "b"},
        });
        run_hook(
            p.path(),
            "pre-edit",
            None,
            &["--host", "crush"],
            &[],
            Feed::Bytes(payload.to_string().into_bytes()),
        )
    };
    let denied = fire("i18n/fr.json");
    assert_eq!(denied.code, Some(0), "{denied:?}");
    let v: Value = serde_json::from_str(&denied.stdout).unwrap();
    assert_eq!(v["decision"], "deny");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("i18n/fr.json is generated"),
        "{v}"
    );
    let allowed = fire("docs/good.md");
    assert_eq!(
        (allowed.code, allowed.stdout.as_str()),
        (Some(0), ""),
        "{allowed:?}"
    );
}
