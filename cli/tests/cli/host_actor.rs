//! Who runs a command (issue 16, item 6): an assistant host's own markers in the environment
//! of the commands its agent runs make the actor `agent:<host>` and bind the session to the
//! host's, so a note from the shell and `kapi context log --session this` meet, and a person's
//! verb is refused; a person at a terminal stays `person`, in the shell's session.

use serde_json::Value;

use crate::{Kapi, Run};

fn desk() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", "version: v1\nname: desk\n");
    kapi.write("docs/start.md", "# Start\n\nOpen your workspace.\n");
    kapi
}

fn with(kapi: &Kapi, env: &[(&str, &str)], args: &[&str]) -> Run {
    kapi.run_env(env, args)
}

/// Notes from the host's shell, then the log of "this" session from another command.
fn noted(env: &[(&str, &str)]) -> (Kapi, Vec<Value>, Run) {
    let kapi = desk();
    let note = with(
        &kapi,
        env,
        &[
            "context",
            "note",
            "--path",
            "docs",
            "--text",
            "Say workspace, lower case.",
        ],
    );
    assert_eq!(note.code, 0, "{}", note.transcript());
    let log = with(
        &kapi,
        env,
        &["context", "log", "--session", "this", "--json"],
    );
    assert_eq!(log.code, 0, "{}", log.transcript());
    let entries = log.json()["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let review = with(&kapi, env, &["context", "review"]);
    (kapi, entries, review)
}

fn assert_agent(env: &[(&str, &str)], actor: &str, session: Option<&str>) {
    let (_kapi, entries, review) = noted(env);
    assert_eq!(
        entries.len(),
        1,
        "the session's log lists the note: {entries:?}"
    );
    assert_eq!(entries[0]["actor"], actor, "{entries:?}");
    if let Some(session) = session {
        assert_eq!(entries[0]["session"], session, "{entries:?}");
    }
    assert_eq!(review.code, 3, "a person's verb: {}", review.transcript());
    assert!(review.stderr.contains("is a person's"), "{}", review.stderr);
}

#[test]
fn claude_codes_bash_tool_is_the_agent_in_claude_codes_session() {
    // What Claude Code 2.1 puts in its Bash tool's environment (measured by `make e2e-hosts`).
    assert_agent(
        &[
            ("CLAUDECODE", "1"),
            (
                "CLAUDE_CODE_SESSION_ID",
                "6b1f8a52-0c7e-4d3b-9f4e-2a51c3d7e901",
            ),
            ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
            ("AI_AGENT", "claude-code_2-1-332_agent"),
        ],
        "agent:claude-code",
        Some("claude-code:6b1f8a52-0c7e-4d3b-9f4e-2a51c3d7e901"),
    );
}

#[test]
fn codexs_shell_is_the_agent_in_the_codex_thread() {
    assert_agent(
        &[
            ("CODEX_THREAD_ID", "019a7c3e-5d21-7f40-b8c2-3e9d1a6f0b47"),
            ("CODEX_SESSION_ID", "019a7c3e-5d21-7f40-b8c2-3e9d1a6f0b47"),
            ("CODEX_CI", "1"),
        ],
        "agent:codex",
        Some("codex:019a7c3e-5d21-7f40-b8c2-3e9d1a6f0b47"),
    );
}

#[test]
fn cursor_and_vscode_agents_are_named_by_their_markers() {
    assert_agent(&[("CURSOR_AGENT", "1")], "agent:cursor", None);
    assert_agent(
        &[("CURSOR_EXTENSION_HOST_ROLE", "agent-exec")],
        "agent:cursor",
        None,
    );
    assert_agent(
        &[
            ("COPILOT_AGENT", "1"),
            ("AI_AGENT", "github_copilot_vscode_agent"),
        ],
        "agent:vscode",
        None,
    );
}

#[test]
fn the_copilot_clis_shell_is_the_agent_in_its_session() {
    // What the Copilot CLI 1.0.102 puts in its bash tool's environment (`make e2e-hosts`).
    assert_agent(
        &[
            ("COPILOT_CLI", "1"),
            (
                "COPILOT_AGENT_SESSION_ID",
                "f3d0a2c4-9b1e-4c6f-8a7d-2e5b1c9f0a37",
            ),
        ],
        "agent:copilot",
        Some("copilot:f3d0a2c4-9b1e-4c6f-8a7d-2e5b1c9f0a37"),
    );
}

#[test]
fn qwen_codes_shell_is_the_agent_in_its_session() {
    // What Qwen Code 0.24.4 puts in its shell tool's environment (`make e2e-hosts`).
    assert_agent(
        &[
            ("QWEN_CODE", "1"),
            ("QWEN_CODE_SESSION_ID", "d02395d3-e5db-44e9"),
        ],
        "agent:qwen",
        Some("qwen:d02395d3-e5db-44e9"),
    );
}

#[test]
fn kapi_actor_wins_over_a_hosts_marker() {
    assert_agent(
        &[("CLAUDECODE", "1"), ("KAPI_ACTOR", "agent:reviewer")],
        "agent:reviewer",
        None,
    );
}

#[test]
fn a_person_at_a_terminal_stays_a_person_in_the_shells_session() {
    let (_kapi, entries, review) = noted(&[]);
    assert_eq!(entries.len(), 1, "one shell, one session: {entries:?}");
    assert_eq!(entries[0]["actor"], "person:cli", "{entries:?}");
    assert!(
        entries[0]["session"]
            .as_str()
            .is_some_and(|s| s.starts_with("shell:")),
        "{entries:?}"
    );
    assert_ne!(
        review.code,
        3,
        "a person may review: {}",
        review.transcript()
    );
}

/// `KAPI_ACTOR=person` set where a host's agent runs the command (issue 40, item 4) is refused
/// for a person's verb, saying why: context review, a person's blind write through `kapi
/// apply`, and a review decision. The shell is no security boundary (README, "Who is calling").
#[test]
fn a_person_claimed_in_an_agents_shell_is_refused_for_a_persons_verb() {
    let claim: &[(&str, &str)] = &[("CLAUDECODE", "1"), ("KAPI_ACTOR", "person")];
    let kapi = desk();
    let review = with(&kapi, claim, &["context", "review"]);
    assert_eq!(review.code, 3, "{}", review.transcript());
    assert!(
        review
            .stderr
            .contains("KAPI_ACTOR=person was set in a command claude-code's agent runs"),
        "{}",
        review.stderr
    );
    kapi.write(
        "set.json",
        r#"{"schema": "kapi.change/v1", "operations": [{"op": "set_content",
            "at": {"doc": "docs/start.md", "block": "s1/p", "edition": "source"},
            "if_match": "*", "content": "Open your space."}]}"#,
    );
    let apply = with(&kapi, claim, &["apply", "set.json", "--json"]);
    assert_eq!(apply.code, 3, "{}", apply.transcript());
    assert!(
        apply.stdout.contains("an assistant cannot act as a person"),
        "{}",
        apply.stdout
    );
    assert_eq!(
        kapi.read("docs/start.md"),
        "# Start\n\nOpen your workspace.\n"
    );
    // The same claim at a person's terminal is a person's.
    let apply = with(
        &kapi,
        &[("KAPI_ACTOR", "person")],
        &["apply", "set.json", "--json"],
    );
    assert_eq!(apply.code, 0, "{}", apply.transcript());
}
