//! How each host reads a hook's answer: one verdict, rendered as the stdout, stderr and exit
//! code that host documents, so a verdict is never mistaken for a broken hook and back.
//!
//! Qwen Code and Factory answer as Claude Code but give post-edit findings as
//! `additionalContext`; Gemini CLI denies with a top-level `decision`; Kiro denies as KKSS.
//!
//! | verdict | Claude Code, Codex | KKSS | Kiki | Cursor | Windsurf | no host identified |
//! |---|---|---|---|---|---|---|
//! | pre-edit deny | `hookSpecificOutput.permissionDecision:"deny"`, 0 | reason on stderr, 2 | reason on stderr, 2 | `{"permission":"deny","agent_message"}`, 0 | reason on stderr, 2 | stderr, 0 |
//! | post-edit findings | `{"decision":"block","reason"}`, 0 | the reason on stdout (its `modelOutput`), 0 | recorded for the stop hook; nothing, 0 | recorded for the stop hook (afterFileEdit only observes); stderr, 0 | reason on stderr, 2 (the agent sees it) | stderr, 0 |
//! | stop gate not met | `{"decision":"block","reason"}`, 0 | stderr, 0 (TurnEnd only observes) | reason on stderr, 2 | `{"followup_message"}`, 0 | (no stop event) | stderr, 0 |
//! | nothing to report | nothing, 0 | nothing, 0 | nothing, 0 | nothing, 0 | nothing, 0 | nothing, 0 |
//! | could not run, gates did not run, a notice | `{"systemMessage"}` and stderr, 0 | stderr, 0 | stderr, 0 | stderr, 0 | stderr, 0 | stderr, 0 |
//! | a verdict with a notice beside it | the verdict's object with `systemMessage` added, 0 | the verdict, the notice on stderr | the same | the same | the same | the same |
//!
//! A hook never exits 1 or 101 and writes nothing to stdout but the one protocol object (Kiki
//! blocks on any stray `message` key, and KKSS and Kiki fail closed on every other exit code).

use serde_json::json;

use super::{HookName, Protocol};

/// Claude Code caps a hook's output strings at 10,000 characters; kapi stays below.
pub const MAX_REASON_CHARS: usize = 8_000;

/// What a hook concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Evaluated, nothing to report.
    Nothing,
    /// Evaluated, negative: pre-edit denies the edit, post-edit returns findings, stop keeps
    /// the assistant working.
    Negative { reason: String },
    /// The guard could not run (bad payload, broken project, deadline, internal error).
    CouldNotRun { message: String },
    /// Evaluated, but the gates did not run: the cause names why.
    GatesDidNotRun { cause: String },
    /// Evaluated; the verdict is negative but not enforced (a stop kapi no longer blocks):
    /// a warning for the person, no decision.
    Notice { message: String },
    /// A verdict and a notice for the person beside it (a stop that blocks for the session's
    /// own findings and says once that the project has others). On Kiki a stop's stderr
    /// reaches the model with its exit 2, so the stop hook never pairs a notice with a block
    /// there.
    Noted {
        verdict: Box<Verdict>,
        notice: String,
    },
}

/// A hook's whole answer: at most one stdout object, stderr lines, the exit code.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    pub stdout: Option<String>,
    pub stderr: String,
    pub code: u8,
}

impl Reply {
    /// Puts `notes` ahead of the reply's stderr, each a line naming the hook
    /// (`kapi hook stop: note: …`): what the project made kapi say, never a verdict.
    pub fn with_notes(mut self, hook: Option<HookName>, notes: &[String]) -> Reply {
        if notes.is_empty() {
            return self;
        }
        let name = label(hook);
        let mut stderr: String = notes
            .iter()
            .map(|n| format!("{name}: note: {n}\n"))
            .collect();
        stderr.push_str(&self.stderr);
        self.stderr = stderr;
        self
    }
}

/// `text` cut to `max` characters on a character boundary, with a marker when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(20)).collect();
    out.push_str("\n… (output cut)");
    out
}

/// How a warning names the hook: `kapi hook stop`, or `kapi hook` when none was named.
pub fn label(hook: Option<HookName>) -> String {
    hook.map_or("kapi hook".to_owned(), |h| format!("kapi hook {}", h.id()))
}

/// Renders a verdict for a host (`None`: no host identified, the universal safe mode).
pub fn render(verdict: &Verdict, hook: Option<HookName>, host: Option<Protocol>) -> Reply {
    let name = label(hook);
    let warn = |text: &str| -> Reply {
        let text = clip(text, MAX_REASON_CHARS);
        let stdout = host
            .filter(|h| h.answers_in_json())
            .map(|_| json!({ "systemMessage": format!("{name}: {text}") }).to_string());
        Reply {
            stdout,
            stderr: format!("{name}: {text}\n"),
            code: 0,
        }
    };
    match verdict {
        Verdict::Noted { verdict, notice } => {
            let mut reply = render(verdict, hook, host);
            let notice = clip(notice, MAX_REASON_CHARS);
            let message = format!("{name}: {notice}");
            if host.is_some_and(Protocol::answers_in_json) {
                let mut object = reply
                    .stdout
                    .as_deref()
                    .and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok())
                    .filter(serde_json::Value::is_object)
                    .unwrap_or_else(|| json!({}));
                let joined = match object["systemMessage"].as_str() {
                    Some(first) => format!("{first}\n{message}"),
                    None => message.clone(),
                };
                object["systemMessage"] = json!(joined);
                reply.stdout = Some(object.to_string());
            }
            reply.stderr.push_str(&format!("{message}\n"));
            reply
        }
        Verdict::Nothing => Reply::default(),
        Verdict::CouldNotRun { message } => warn(&format!(
            "could not run: {message}; the action was allowed, unchecked"
        )),
        Verdict::GatesDidNotRun { cause } => warn(&format!(
            "the gates did not run: {cause}; nothing was checked"
        )),
        Verdict::Notice { message } => warn(message),
        Verdict::Negative { reason } => negative(
            clip(reason, MAX_REASON_CHARS),
            hook.unwrap_or(HookName::PostEdit),
            host,
            &name,
        ),
    }
}

/// A negative verdict (a denial, findings, a held stop) as `host` reads it for `hook`.
fn negative(reason: String, hook: HookName, host: Option<Protocol>, name: &str) -> Reply {
    match (host, hook) {
        (
            Some(Protocol::ClaudeCode | Protocol::Codex | Protocol::Qwen | Protocol::Factory),
            HookName::PreEdit,
        ) => Reply {
            stdout: Some(
                json!({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }})
                .to_string(),
            ),
            stderr: String::new(),
            code: 0,
        },
        // Gemini CLI and Crush read a denial at the top level only.
        (Some(Protocol::Gemini | Protocol::Crush), HookName::PreEdit) => Reply {
            stdout: Some(json!({"decision": "deny", "reason": reason}).to_string()),
            stderr: String::new(),
            code: 0,
        },
        // Its post-tool `decision` replaces the tool's result: the findings join it.
        (Some(Protocol::Gemini), HookName::PostEdit) => Reply {
            stdout: Some(
                json!({"hookSpecificOutput": {
                    "hookEventName": "AfterTool",
                    "additionalContext": reason,
                }})
                .to_string(),
            ),
            stderr: String::new(),
            code: 0,
        },
        // Qwen Code drops a post-tool `decision: block`: its findings are context the
        // tool's result carries to the model.
        (Some(Protocol::Qwen), HookName::PostEdit) => Reply {
            stdout: Some(
                json!({"additionalContext": reason, "hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "additionalContext": reason,
                }})
                .to_string(),
            ),
            stderr: String::new(),
            code: 0,
        },
        // Cursor: a denial's `agent_message` reaches the model; a stop's `followup_message` is
        // sent as the next user message (capped by the entry's `loop_limit`).
        (Some(Protocol::Cursor), HookName::PreEdit) => Reply {
            stdout: Some(
                json!({"permission": "deny", "agent_message": reason, "user_message": reason})
                    .to_string(),
            ),
            stderr: String::new(),
            code: 0,
        },
        (Some(Protocol::Cursor), HookName::Stop) => Reply {
            stdout: Some(json!({"followup_message": reason}).to_string()),
            stderr: String::new(),
            code: 0,
        },
        // Factory's droid drops a post-tool `decision: block`: findings are context.
        (Some(Protocol::Factory), HookName::PostEdit) => Reply {
            stdout: Some(
                json!({"hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "additionalContext": reason,
                }})
                .to_string(),
            ),
            stderr: String::new(),
            code: 0,
        },
        (Some(p), _) if p.answers_in_json() => Reply {
            stdout: Some(json!({"decision": "block", "reason": reason}).to_string()),
            stderr: String::new(),
            code: 0,
        },
        // Windsurf's Cascade: exit 2 blocks a pre-hook; on a post-hook the agent sees stderr.
        (Some(Protocol::Kkss | Protocol::Kiro), HookName::PreEdit)
        | (Some(Protocol::Kiki), HookName::PreEdit | HookName::Stop)
        | (Some(Protocol::Windsurf), HookName::PreEdit | HookName::PostEdit) => Reply {
            stdout: None,
            stderr: format!("{reason}\n"),
            code: 2,
        },
        (Some(Protocol::Kkss), HookName::PostEdit) => Reply {
            stdout: Some(reason),
            stderr: String::new(),
            code: 0,
        },
        // KKSS's TurnEnd only observes; Kiki's and Cursor's post-edit findings were recorded
        // for the stop hook; no host identified: say it where a person running it sees.
        _ => Reply {
            stdout: None,
            stderr: format!("{name}: {reason}\n"),
            code: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negative() -> Verdict {
        Verdict::Negative {
            reason: "fix it".into(),
        }
    }

    /// Gemini CLI reads a denial at the top level (not Claude's `permissionDecision`), and its
    /// post-tool `decision` would replace the tool's result: findings are `additionalContext`.
    #[test]
    fn gemini_denies_at_the_top_level_and_adds_findings_as_context() {
        let deny = render(&negative(), Some(HookName::PreEdit), Some(Protocol::Gemini));
        assert_eq!(
            deny.stdout.as_deref(),
            Some(r#"{"decision":"deny","reason":"fix it"}"#)
        );
        let post = render(
            &negative(),
            Some(HookName::PostEdit),
            Some(Protocol::Gemini),
        );
        let v: serde_json::Value = serde_json::from_str(post.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "fix it");
        assert!(v.get("decision").is_none(), "{v}");
        let stop = render(&negative(), Some(HookName::Stop), Some(Protocol::Gemini));
        assert_eq!(
            stop.stdout.as_deref(),
            Some(r#"{"decision":"block","reason":"fix it"}"#)
        );
    }

    /// Qwen Code answers as Claude Code, but for post-edit: a post-tool `decision: block` is
    /// dropped there, so the findings go as `additionalContext` (both spellings it reads).
    #[test]
    fn qwen_gets_post_edit_findings_as_additional_context() {
        let post = render(&negative(), Some(HookName::PostEdit), Some(Protocol::Qwen));
        assert_eq!(post.code, 0);
        let v: serde_json::Value = serde_json::from_str(post.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(v["additionalContext"], "fix it");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "fix it");
        assert!(v.get("decision").is_none(), "{v}");
        let deny = render(&negative(), Some(HookName::PreEdit), Some(Protocol::Qwen));
        let v: serde_json::Value = serde_json::from_str(deny.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        let stop = render(&negative(), Some(HookName::Stop), Some(Protocol::Qwen));
        assert_eq!(
            stop.stdout.as_deref(),
            Some(r#"{"decision":"block","reason":"fix it"}"#)
        );
    }

    #[test]
    fn claude_code_carries_every_verdict_in_json_on_exit_0() {
        let deny = render(
            &negative(),
            Some(HookName::PreEdit),
            Some(Protocol::ClaudeCode),
        );
        assert_eq!(deny.code, 0);
        let v: serde_json::Value = serde_json::from_str(deny.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        let block = render(&negative(), Some(HookName::Stop), Some(Protocol::Codex));
        assert_eq!(
            block.stdout.as_deref(),
            Some(r#"{"decision":"block","reason":"fix it"}"#)
        );
        let warn = render(
            &Verdict::CouldNotRun {
                message: "boom".into(),
            },
            Some(HookName::Stop),
            Some(Protocol::ClaudeCode),
        );
        assert!(
            warn.stdout
                .unwrap()
                .starts_with(r#"{"systemMessage":"kapi hook stop: could not run: boom"#)
        );
        assert!(
            warn.stderr
                .starts_with("kapi hook stop: could not run: boom")
        );
        assert_eq!(render(&Verdict::Nothing, None, None), Reply::default());
    }

    #[test]
    fn kkss_and_kiki_deny_with_exit_2_and_never_print_json() {
        for host in [Protocol::Kkss, Protocol::Kiki] {
            let deny = render(&negative(), Some(HookName::PreEdit), Some(host));
            assert_eq!(
                (deny.code, deny.stdout, deny.stderr.as_str()),
                (2, None, "fix it\n")
            );
            let warn = render(
                &Verdict::GatesDidNotRun { cause: "x".into() },
                Some(HookName::Stop),
                Some(host),
            );
            assert_eq!((warn.code, warn.stdout), (0, None));
        }
        let kkss_post = render(&negative(), Some(HookName::PostEdit), Some(Protocol::Kkss));
        assert_eq!(
            (kkss_post.code, kkss_post.stdout.as_deref()),
            (0, Some("fix it"))
        );
        let kkss_stop = render(&negative(), Some(HookName::Stop), Some(Protocol::Kkss));
        assert_eq!((kkss_stop.code, kkss_stop.stdout), (0, None));
        let kiki_stop = render(&negative(), Some(HookName::Stop), Some(Protocol::Kiki));
        assert_eq!(kiki_stop.code, 2);
        let kiki_post = render(&negative(), Some(HookName::PostEdit), Some(Protocol::Kiki));
        assert_eq!((kiki_post.code, kiki_post.stdout), (0, None));
    }

    /// Kiro blocks a PreToolUse with exit 2; Factory's droid reads Claude Code's denial but
    /// post-edit findings as `additionalContext`.
    /// Cursor denies with `permission` and holds a stop with a follow-up message; its
    /// afterFileEdit only observes, so post-edit findings go to stderr and wait for the stop.
    /// Windsurf's Cascade reads exit 2 and stderr, on pre- and post-hooks alike.
    #[test]
    fn cursor_and_windsurf_read_their_own_answers() {
        let deny = render(&negative(), Some(HookName::PreEdit), Some(Protocol::Cursor));
        let v: serde_json::Value = serde_json::from_str(deny.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(
            (deny.code, &v["permission"], &v["agent_message"]),
            (0, &json!("deny"), &json!("fix it"))
        );
        let stop = render(&negative(), Some(HookName::Stop), Some(Protocol::Cursor));
        assert_eq!(
            stop.stdout.as_deref(),
            Some(r#"{"followup_message":"fix it"}"#)
        );
        let post = render(
            &negative(),
            Some(HookName::PostEdit),
            Some(Protocol::Cursor),
        );
        assert_eq!((post.code, post.stdout), (0, None));
        let warn = render(
            &Verdict::CouldNotRun {
                message: "x".into(),
            },
            Some(HookName::Stop),
            Some(Protocol::Cursor),
        );
        assert_eq!((warn.code, warn.stdout), (0, None));
        let crush = render(&negative(), Some(HookName::PreEdit), Some(Protocol::Crush));
        assert_eq!(
            (crush.code, crush.stdout.as_deref()),
            (0, Some(r#"{"decision":"deny","reason":"fix it"}"#))
        );
        let kiro = render(&negative(), Some(HookName::PreEdit), Some(Protocol::Kiro));
        assert_eq!(
            (kiro.code, kiro.stdout, kiro.stderr.as_str()),
            (2, None, "fix it\n")
        );
        let droid = render(
            &negative(),
            Some(HookName::PostEdit),
            Some(Protocol::Factory),
        );
        let v: serde_json::Value = serde_json::from_str(droid.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "fix it");
        assert!(v.get("decision").is_none(), "{v}");
        let droid_deny = render(
            &negative(),
            Some(HookName::PreEdit),
            Some(Protocol::Factory),
        );
        assert!(
            droid_deny
                .stdout
                .unwrap()
                .contains("\"permissionDecision\":\"deny\"")
        );
        for hook in [HookName::PreEdit, HookName::PostEdit] {
            let r = render(&negative(), Some(hook), Some(Protocol::Windsurf));
            assert_eq!((r.code, r.stdout, r.stderr.as_str()), (2, None, "fix it\n"));
        }
    }

    #[test]
    fn a_notice_travels_beside_the_verdict() {
        let noted = |verdict: Verdict| Verdict::Noted {
            verdict: Box::new(verdict),
            notice: "3 others".into(),
        };
        let r = render(
            &noted(negative()),
            Some(HookName::Stop),
            Some(Protocol::ClaudeCode),
        );
        let v: serde_json::Value = serde_json::from_str(r.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(
            (&v["decision"], &v["reason"], &v["systemMessage"]),
            (
                &json!("block"),
                &json!("fix it"),
                &json!("kapi hook stop: 3 others")
            )
        );
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (0, "kapi hook stop: 3 others\n")
        );
        let r = render(
            &noted(Verdict::Nothing),
            Some(HookName::Stop),
            Some(Protocol::Codex),
        );
        assert_eq!(
            r.stdout.as_deref(),
            Some(r#"{"systemMessage":"kapi hook stop: 3 others"}"#)
        );
        let r = render(
            &noted(negative()),
            Some(HookName::Stop),
            Some(Protocol::Kkss),
        );
        assert_eq!(
            (r.code, r.stdout, r.stderr.as_str()),
            (
                0,
                None,
                "kapi hook stop: fix it\nkapi hook stop: 3 others\n"
            )
        );
    }

    #[test]
    fn no_host_is_the_universal_safe_mode() {
        for hook in HookName::ALL {
            let r = render(&negative(), Some(hook), None);
            assert_eq!((r.code, r.stdout), (0, None));
        }
    }

    #[test]
    fn long_reasons_are_clipped_below_the_hosts_cap() {
        let long = "x".repeat(20_000);
        let r = render(
            &Verdict::Negative { reason: long },
            Some(HookName::Stop),
            Some(Protocol::ClaudeCode),
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout.unwrap()).unwrap();
        assert!(v["reason"].as_str().unwrap().chars().count() <= MAX_REASON_CHARS);
    }
}
