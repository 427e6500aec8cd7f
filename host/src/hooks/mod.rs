//! `kapi hook post-edit|stop|pre-edit`: the assistant hooks that drive kapi from inside a host's
//! loop, one protocol adapter per host, failing open (seed s-03, "Three hooks").
//!
//! A guard that cannot evaluate never blocks, and a guard that never ran never looks like one
//! that passed: every path ends in one [`protocol::Verdict`], rendered the way the host reads it
//! (see [`protocol`]). The host comes from `--host` (written by `kapi init`), else from the
//! payload's fields, else the universal safe mode (exit 0, nothing on stdout). The evaluation
//! runs on its own thread under a deadline (60% of the timeout `kapi init` writes for that hook
//! and host, or `--deadline-ms`), with panics caught: a payload that never ends, a project that
//! takes too long, a bug, a signal ([`run_interruptible`]) — each is "could not run", exit 0. No payload at all (stdin is a
//! terminal or `/dev/null`) and "no kapi project here" are nothing to report, silently.
//!
//! Cursor runs Claude Code's hooks beside its own: a Claude Code hook under Cursor
//! (`CURSOR_VERSION` set) does nothing when the project's `.cursor/hooks.json` runs kapi's, so
//! an edit is checked once and a stop held once.
//!
//! Arguments are read leniently, never by clap: an unknown flag is ignored with a note on
//! stderr, and a missing or unknown hook name is "could not run", because clap's exit 2 reads
//! as a deny to Claude Code, KKSS and Kiki.

pub mod baseline;
pub mod eval;
pub mod own;
pub mod payload;
pub mod post_edit;
pub mod pre_edit;
pub mod protocol;
pub mod state;
pub mod stop;

use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use crate::env::Env;
use eval::{Ctx, Phase};
use payload::Payload;
use protocol::{Reply, Verdict, render};

/// The largest payload kapi reads (a `Write` payload carries the whole file).
pub const MAX_PAYLOAD_BYTES: u64 = 32 * 1024 * 1024;

/// The three hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookName {
    /// After an edit tool wrote a file: the writing check on that file.
    PostEdit,
    /// When the assistant is about to end its turn: the failing findings the session
    /// introduced, and the project's ship gate said once.
    Stop,
    /// Before an edit tool writes a file: refuses hand-edits of the translation targets kapi generates (`generated: true`).
    PreEdit,
}

impl HookName {
    pub const ALL: [HookName; 3] = [HookName::PreEdit, HookName::PostEdit, HookName::Stop];

    pub fn id(self) -> &'static str {
        match self {
            HookName::PostEdit => "post-edit",
            HookName::Stop => "stop",
            HookName::PreEdit => "pre-edit",
        }
    }

    pub fn from_id(id: &str) -> Option<HookName> {
        HookName::ALL.into_iter().find(|h| h.id() == id)
    }
}

/// The hook protocols kapi speaks: how a host hands a hook its payload and reads its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    ClaudeCode,
    Codex,
    Kkss,
    Kiki,
    /// Qwen Code: Claude Code's payload and answers, but a post-edit `decision: block` is
    /// dropped, so its findings go as `additionalContext` (measured with the real CLI).
    Qwen,
    /// Gemini CLI: `BeforeTool`/`AfterTool`/`AfterAgent`; a denial is a top-level `decision`
    /// (it ignores Claude's `permissionDecision`), post-edit findings are `additionalContext`.
    Gemini,
    /// Cursor: `.cursor/hooks.json` (preToolUse, afterFileEdit, stop); a denial is
    /// `permission: deny`, a held stop a `followup_message`; afterFileEdit only observes, so its
    /// findings wait for the stop.
    Cursor,
    /// Windsurf's Cascade: `.windsurf/hooks.json` (pre_write_code, post_write_code); exit 2
    /// with the reason on stderr blocks a pre-hook and reaches the agent from a post-hook; no
    /// stop event.
    Windsurf,
    /// Factory's droid: Claude Code's payload and answers, but a post-edit `decision: block`
    /// is dropped (measured with droid 0.215.0), so its findings go as `additionalContext`.
    Factory,
    /// Kiro: `.kiro/hooks/*.json` command hooks; only a PreToolUse hook can block (exit 2, the
    /// reason on stderr for the model); its PostToolUse output is ignored and its Stop cannot
    /// block, so kapi wires pre-edit alone.
    Kiro,
    /// Crush: a PreToolUse hook alone; a denial is its own `{"decision":"deny","reason"}`.
    Crush,
}

impl Protocol {
    pub const ALL: [Protocol; 11] = [
        Protocol::ClaudeCode,
        Protocol::Codex,
        Protocol::Kkss,
        Protocol::Kiki,
        Protocol::Qwen,
        Protocol::Gemini,
        Protocol::Cursor,
        Protocol::Windsurf,
        Protocol::Factory,
        Protocol::Kiro,
        Protocol::Crush,
    ];

    /// The value of `--host`.
    pub fn id(self) -> &'static str {
        match self {
            Protocol::ClaudeCode => "claude-code",
            Protocol::Codex => "codex",
            Protocol::Kkss => "kkss",
            Protocol::Kiki => "kiki",
            Protocol::Qwen => "qwen",
            Protocol::Gemini => "gemini",
            Protocol::Cursor => "cursor",
            Protocol::Windsurf => "windsurf",
            Protocol::Factory => "factory",
            Protocol::Kiro => "kiro",
            Protocol::Crush => "crush",
        }
    }

    pub fn from_id(id: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.id() == id)
    }

    /// Whether the host reads Claude Code's answers: JSON on stdout, exit 0 (Claude Code, Codex,
    /// Qwen Code, Gemini CLI, Factory), each with its own spelling of a denial and of findings.
    pub fn answers_in_json(self) -> bool {
        matches!(
            self,
            Protocol::ClaudeCode
                | Protocol::Codex
                | Protocol::Qwen
                | Protocol::Gemini
                | Protocol::Factory
        )
    }

    /// The timeout, in seconds, `kapi init` writes for a hook on this host. The hook's own
    /// deadline is 60% of it, so kapi answers before the host gives up on it.
    pub fn timeout_secs(self, hook: HookName) -> u64 {
        match (self, hook) {
            (Protocol::Kkss | Protocol::Kiki, HookName::PreEdit) => 10,
            (Protocol::Kkss, HookName::PostEdit) => 30,
            (Protocol::Kkss, HookName::Stop) => 60,
            (Protocol::Kiki, HookName::PostEdit) => 60,
            (Protocol::Kiki, HookName::Stop) => 120,
            // The hosts that answer in JSON, Claude Code's way.
            (_, HookName::PreEdit) => 30,
            (_, HookName::PostEdit) => 120,
            (_, HookName::Stop) => 300,
        }
    }

    /// The argument list after the binary: `hook <name> --host <id>`.
    pub fn hook_args(self, hook: HookName) -> [&'static str; 4] {
        ["hook", hook.id(), "--host", self.id()]
    }

    /// The whole command as a shell line: `kapi hook <name> --host <id>`.
    pub fn hook_command(self, hook: HookName) -> String {
        format!("kapi {}", self.hook_args(hook).join(" "))
    }
}

/// `kapi hook …` as the command line gave it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    pub hook: Option<HookName>,
    /// The hook name as given, when it is not one kapi knows.
    pub unknown_hook: Option<String>,
    pub host: Option<Protocol>,
    /// `--host` as given, when it names no host kapi speaks.
    pub unknown_host: Option<String>,
    /// `-p/--project`.
    pub project: Option<PathBuf>,
    /// `--deadline-ms`.
    pub deadline: Option<Duration>,
    /// Arguments kapi did not understand (ignored, named on stderr).
    pub ignored: Vec<String>,
}

impl Invocation {
    /// Reads the arguments after the program name; never fails.
    pub fn parse(args: &[String]) -> Invocation {
        let mut inv = Invocation::default();
        let mut seen_hook = false;
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
                _ => (arg, None),
            };
            let value = |i: &mut usize| -> Option<String> {
                if inline.is_some() {
                    return inline.clone();
                }
                *i += 1;
                args.get(*i).cloned()
            };
            match flag {
                "--host" => match value(&mut i) {
                    Some(v) => match Protocol::from_id(&v) {
                        Some(p) => inv.host = Some(p),
                        None => inv.unknown_host = Some(v),
                    },
                    None => inv.ignored.push(arg.to_owned()),
                },
                "-p" | "--project" => inv.project = value(&mut i).map(PathBuf::from),
                "--deadline-ms" => match value(&mut i).and_then(|v| v.parse::<u64>().ok()) {
                    Some(ms) => inv.deadline = Some(Duration::from_millis(ms.max(1))),
                    None => inv.ignored.push(arg.to_owned()),
                },
                "hook" if !seen_hook => seen_hook = true,
                _ if arg.starts_with('-') => inv.ignored.push(arg.to_owned()),
                _ if seen_hook && inv.hook.is_none() && inv.unknown_hook.is_none() => {
                    match HookName::from_id(arg) {
                        Some(h) => inv.hook = Some(h),
                        None => inv.unknown_hook = Some(arg.to_owned()),
                    }
                }
                _ => inv.ignored.push(arg.to_owned()),
            }
            i += 1;
        }
        inv
    }

    /// 60% of the timeout `kapi init` writes for this hook and host; with no host, the
    /// shortest any host gets.
    pub fn deadline(&self) -> Duration {
        if let Some(d) = self.deadline {
            return d;
        }
        let hook = self.hook.unwrap_or(HookName::PreEdit);
        let secs = match self.host {
            Some(p) => p.timeout_secs(hook),
            None => Protocol::ALL
                .iter()
                .map(|p| p.timeout_secs(hook))
                .min()
                .unwrap_or(10),
        };
        Duration::from_millis(secs * 600)
    }
}

/// Where the payload comes from.
pub enum Stdin {
    /// A terminal or a character device (`/dev/null`): run by hand, nothing piped in.
    Device,
    /// A pipe or file.
    Stream(Box<dyn Read + Send>),
}

/// Stops a running hook from outside, as a signal does: the hook answers "could not run",
/// naming what stopped it, in its host's protocol. Sending after the hook answered does nothing.
#[derive(Clone)]
pub struct Interrupt(mpsc::Sender<Message>);

impl Interrupt {
    /// Stops the hook with `cause` (`SIGTERM`); false once the hook has answered.
    pub fn stop(&self, cause: &str) -> bool {
        self.0.send(Message::Stopped(cause.to_owned())).is_ok()
    }
}

/// Runs a hook under its deadline and renders the answer for the host; never fails.
pub fn run(inv: &Invocation, env: Env, process_cwd: PathBuf, stdin: Stdin) -> Reply {
    run_interruptible(inv, env, process_cwd, stdin, |_| {})
}

/// [`run`], handing `interrupts` an [`Interrupt`] before the evaluation starts (the process's
/// signal handling forwards each signal there).
pub fn run_interruptible(
    inv: &Invocation,
    env: Env,
    process_cwd: PathBuf,
    stdin: Stdin,
    interrupts: impl FnOnce(Interrupt),
) -> Reply {
    let deadline = inv.deadline();
    let end = std::time::Instant::now() + deadline;
    let phase = Phase::default();
    phase.set("reading the payload");
    let (tx, rx) = mpsc::channel();
    interrupts(Interrupt(tx.clone()));
    let worker = {
        let inv = inv.clone();
        let phase = phase.clone();
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("kapi-hook".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    evaluate(&inv, &env, process_cwd, stdin, &phase, &tx)
                }));
                let _ = tx.send(match result {
                    Ok(answer) => Message::Done(answer.0, answer.1),
                    Err(panic) => Message::Panicked(panic_text(panic.as_ref())),
                });
            })
    };
    let mut host = inv.host;
    let mut notes = Vec::new();
    if let Some(h) = &inv.unknown_host {
        notes.push(format!(
            "`--host {h}` names no host kapi speaks ({}); reading the payload to tell",
            Protocol::ALL.map(Protocol::id).join(", ")
        ));
    }
    if !inv.ignored.is_empty() {
        notes.push(format!("ignored arguments: {}", inv.ignored.join(" ")));
    }
    let verdict = match worker {
        Err(e) => Verdict::CouldNotRun {
            message: format!("cannot start its worker thread: {e}"),
        },
        Ok(_) => loop {
            // One deadline for the whole hook: a message on the way never restarts it.
            let left = end.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(Message::Host(h)) => host = host.or(h),
                Ok(Message::Done(verdict, h)) => {
                    host = host.or(h);
                    break verdict;
                }
                Ok(Message::Stopped(cause)) => {
                    break Verdict::CouldNotRun {
                        message: format!(
                            "stopped by a signal ({cause}) before it answered (it was {})",
                            phase.get()
                        ),
                    };
                }
                Ok(Message::Panicked(text)) => {
                    break Verdict::CouldNotRun {
                        message: format!("internal error ({text}); please report it"),
                    };
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    break Verdict::CouldNotRun {
                        message: format!(
                            "it did not finish within its {} ms deadline (it was {}), which stays below the host's timeout",
                            deadline.as_millis(),
                            phase.get()
                        ),
                    };
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break Verdict::CouldNotRun {
                        message: "its worker ended without an answer".into(),
                    };
                }
            }
        },
    };
    render(&verdict, inv.hook, host).with_notes(inv.hook, &notes)
}

enum Message {
    /// The host, once the payload tells it.
    Host(Option<Protocol>),
    Done(Verdict, Option<Protocol>),
    Panicked(String),
    /// Stopped from outside (a signal, named).
    Stopped(String),
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

fn evaluate(
    inv: &Invocation,
    env: &Env,
    process_cwd: PathBuf,
    stdin: Stdin,
    phase: &Phase,
    tx: &mpsc::Sender<Message>,
) -> (Verdict, Option<Protocol>) {
    let Some(hook) = inv.hook else {
        let message = match &inv.unknown_hook {
            Some(h) => format!("`{h}` is not a kapi hook (post-edit, stop, pre-edit)"),
            None => "no hook named (post-edit, stop or pre-edit)".to_owned(),
        };
        return (Verdict::CouldNotRun { message }, inv.host);
    };
    let mut stream = match stdin {
        Stdin::Device => return (Verdict::Nothing, inv.host),
        Stdin::Stream(s) => s,
    };
    let mut bytes = Vec::new();
    if let Err(e) = stream
        .by_ref()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
    {
        let message = format!("cannot read the payload on stdin: {e}");
        return (Verdict::CouldNotRun { message }, inv.host);
    }
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        let message = format!(
            "the payload is over {} MiB, more than any edit's",
            MAX_PAYLOAD_BYTES / (1024 * 1024)
        );
        return (Verdict::CouldNotRun { message }, inv.host);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        let message = "stdin was closed with no payload on it".to_owned();
        return (Verdict::CouldNotRun { message }, inv.host);
    }
    let payload = match Payload::parse(&bytes) {
        Ok(p) => p,
        Err(message) => return (Verdict::CouldNotRun { message }, inv.host),
    };
    let host = inv.host.or_else(|| payload.sniff());
    let _ = tx.send(Message::Host(host));
    if env.hook_panic {
        panic!("KAPI_TEST_HOOK_PANIC is set");
    }
    // Kiki and KKSS document that a hook runs in the session's project folder, so their
    // process directory is a real answer; anywhere else a missing `cwd` is a zero value, and
    // walking up from wherever the process started would guard the wrong project.
    let cwd = payload
        .cwd()
        .or_else(|| env.host_project_dir.clone())
        .or_else(|| matches!(host, Some(Protocol::Kiki | Protocol::Kkss)).then_some(process_cwd));
    if host == Some(Protocol::ClaudeCode) && env.in_cursor && cursor_runs_kapi(cwd.as_deref()) {
        return (Verdict::Nothing, host);
    }
    let ctx = Ctx {
        env,
        payload: &payload,
        host,
        cwd,
        project_flag: inv.project.clone(),
        phase,
    };
    let verdict = match hook {
        HookName::PostEdit => post_edit::evaluate(&ctx),
        HookName::Stop => stop::evaluate(&ctx),
        HookName::PreEdit => pre_edit::evaluate(&ctx),
    };
    (verdict, host)
}

/// Whether the project's `.cursor/hooks.json` runs kapi's Cursor hooks: Cursor also runs
/// Claude Code's (`.claude/settings.json`, on by default), and a Claude Code hook that Cursor
/// runs then stands aside, so an edit is checked once and a stop held once.
/// The file is looked for in the session's folder and each parent (the first found decides).
fn cursor_runs_kapi(cwd: Option<&std::path::Path>) -> bool {
    let Some(dir) = cwd else { return false };
    dir.ancestors()
        .map(|d| d.join(crate::agents::hook_entries::CURSOR_FILE))
        .find(|f| f.is_file())
        .and_then(|f| std::fs::read_to_string(f).ok())
        .is_some_and(|text| text.contains("--host cursor"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn arguments_are_read_leniently() {
        let inv = Invocation::parse(&args("hook post-edit --host claude-code --frobnicate"));
        assert_eq!(inv.hook, Some(HookName::PostEdit));
        assert_eq!(inv.host, Some(Protocol::ClaudeCode));
        assert_eq!(inv.ignored, ["--frobnicate"]);
        let inv = Invocation::parse(&args(
            "-p kapi.yaml hook stop --host=kiki --deadline-ms 500",
        ));
        assert_eq!(inv.hook, Some(HookName::Stop));
        assert_eq!(inv.host, Some(Protocol::Kiki));
        assert_eq!(inv.project, Some(PathBuf::from("kapi.yaml")));
        assert_eq!(inv.deadline(), Duration::from_millis(500));
        let inv = Invocation::parse(&args("hook wat --host cursorx"));
        assert_eq!(inv.hook, None);
        assert_eq!(inv.unknown_hook.as_deref(), Some("wat"));
        assert_eq!(inv.unknown_host.as_deref(), Some("cursorx"));
        assert_eq!(Invocation::parse(&args("hook")).hook, None);
    }

    #[test]
    fn the_deadline_stays_below_the_timeout_init_writes() {
        for host in Protocol::ALL {
            for hook in HookName::ALL {
                let inv = Invocation {
                    hook: Some(hook),
                    host: Some(host),
                    ..Invocation::default()
                };
                assert!(inv.deadline() < Duration::from_secs(host.timeout_secs(hook)));
            }
        }
        let unknown = Invocation {
            hook: Some(HookName::PreEdit),
            ..Invocation::default()
        };
        assert_eq!(unknown.deadline(), Duration::from_secs(6));
    }

    #[test]
    fn a_terminal_is_nothing_to_report_and_garbage_could_not_run() {
        let inv = Invocation::parse(&args("hook stop --host claude-code"));
        let reply = run(&inv, Env::default(), PathBuf::from("/"), Stdin::Device);
        assert_eq!(reply, Reply::default());
        let garbage = Stdin::Stream(Box::new(std::io::Cursor::new(b"{not json".to_vec())));
        let reply = run(&inv, Env::default(), PathBuf::from("/"), garbage);
        assert_eq!(reply.code, 0);
        assert!(reply.stdout.unwrap().contains("systemMessage"));
        assert!(reply.stderr.contains("kapi hook stop: could not run"));
    }

    /// A reader that never ends, as a host's stdin left open.
    struct Open;
    impl Read for Open {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(0)
        }
    }

    #[test]
    fn an_interrupt_is_could_not_run_in_the_hosts_protocol() {
        for host in Protocol::ALL {
            let inv = Invocation::parse(&args(&format!("hook pre-edit --host {}", host.id())));
            let reply = run_interruptible(
                &inv,
                Env::default(),
                PathBuf::from("/"),
                Stdin::Stream(Box::new(Open)),
                |stop| {
                    assert!(stop.stop("SIGUSR1"));
                },
            );
            assert_eq!(reply.code, 0, "{host:?}");
            assert!(
                reply.stderr.starts_with(
                    "kapi hook pre-edit: could not run: stopped by a signal (SIGUSR1) before it answered (it was reading the payload)"
                ),
                "{host:?}: {reply:?}"
            );
            let json = host.answers_in_json();
            assert_eq!(
                reply
                    .stdout
                    .as_deref()
                    .is_some_and(|o| o.contains("\"systemMessage\"") && o.contains("SIGUSR1")),
                json,
                "{host:?}: {reply:?}"
            );
        }
    }
}
