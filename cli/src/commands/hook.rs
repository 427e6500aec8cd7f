//! `kapi hook post-edit|stop|pre-edit`: the assistant hooks, run by a host (Claude Code, Codex,
//! KKSS, Kiki) around its edit tools and at the end of a turn. Parsed leniently, never by clap.
//!
//! `main.rs` routes every `kapi … hook …` command line here before clap sees it (clap's exit 2
//! on a bad flag would read as a deny); the clap definition below exists for `kapi hook --help`
//! and `kapi help hook`. Whatever happens — a bad flag, a panic, a signal, a broken pipe, a
//! payload that never ends — the process ends the way [`kapi_host::hooks`] decides, exit 0 or the
//! host's verdict code, never 1 or 101.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};

use clap::Args;
use kapi_host::hooks::{Interrupt, Invocation, Stdin, protocol::Reply};

use crate::exit::Outcome;
use crate::printer::Printer;

/// Run one assistant hook: the host pipes its event JSON in and reads the verdict back
#[derive(Debug, Args)]
pub struct HookArgs {
    /// `post-edit` (check the file an edit wrote), `stop` (before the turn ends: what the
    /// session changed must pass), or `pre-edit` (refuse hand-edits of generated translation
    /// targets)
    #[arg(value_name = "HOOK")]
    pub hook: String,
    /// The host whose protocol to speak: claude-code, codex, kkss or kiki [default: told by
    /// the payload; none: exit 0, nothing on stdout]
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Answer within this many milliseconds [default: 60% of the timeout `kapi init` writes]
    #[arg(long, value_name = "MS")]
    pub deadline_ms: Option<u64>,
}

/// Reached only through clap, which `main` bypasses for hooks; kept so the two agree.
pub fn run(_: &HookArgs, _: &kapi_host::App, _: &mut Printer) -> anyhow::Result<Outcome> {
    let args: Vec<OsString> = std::env::args_os().collect();
    #[allow(clippy::exit)]
    std::process::exit(i32::from(main(&args)));
}

/// True when a command line is a hook call (`kapi [-p X] hook …`) that is not asking for help.
/// Help is `kapi hook --help`, or `-h`/`--help` anywhere when a person types it at a terminal;
/// a host's hook line that carries one stays a hook call, so nothing but the protocol object
/// ever reaches a host's stdout.
pub fn is_hook_call(args: &[OsString]) -> bool {
    let args: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let is_help = |a: &str| a == "-h" || a == "--help";
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-p" | "--project" | "--color" => i += 2,
            a if is_help(a) => return false,
            a if a.starts_with('-') => i += 1,
            "hook" => {
                let rest = &args[i + 1..];
                let asks_help = rest.first().is_some_and(|a| is_help(a))
                    || (rest.iter().any(|a| is_help(a)) && std::io::stdin().is_terminal());
                return !asks_help;
            }
            _ => return false,
        }
    }
    false
}

/// Runs a hook from the whole command line and returns the exit code; prints the reply.
pub fn main(args: &[OsString]) -> u8 {
    // A panic never reaches the default hook's message or exit 101: the worker catches its
    // own, and this catches the rest.
    std::panic::set_hook(Box::new(|_| {}));
    // Caught first, before anything can take long: a signal that arrives before the hook is
    // under way waits in the queue, and is answered like one that arrives later.
    let signals = Signals::catch();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let args: Vec<String> = args
            .iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let inv = Invocation::parse(&args);
        let env = kapi_host::env::Env::read();
        if env.hook_ready {
            // The handlers went in above: a signal from now on is answered in the protocol.
            let _ = std::io::stderr().write_all(b"kapi hook: ready\n");
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        let stdin = if stdin_is_device() {
            Stdin::Device
        } else {
            Stdin::Stream(Box::new(std::io::stdin()))
        };
        let reply = kapi_host::hooks::run_interruptible(&inv, env, cwd, stdin, |stop| {
            signals.forward(stop)
        });
        // What the project's files made the host say (a recipe key kapi does not read): a
        // note ahead of the reply's own text, never a verdict (a hook is never strict).
        reply.with_notes(inv.hook, &kapi_host::notices::take())
    }));
    let reply = result.unwrap_or_else(|_| Reply {
        stdout: None,
        stderr:
            "kapi hook: internal error before it could answer; the action was allowed, unchecked\n"
                .into(),
        code: 0,
    });
    // A closed pipe on either side loses the text, never the exit code.
    if !reply.stderr.is_empty() {
        let _ = std::io::stderr().write_all(reply.stderr.as_bytes());
    }
    if let Some(out) = &reply.stdout {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.write_all(b"\n");
        let _ = stdout.flush();
    }
    reply.code
}

/// A terminal or a character device (`/dev/null`): the command was run by hand, nothing piped.
fn stdin_is_device() -> bool {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        stdin
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(std::fs::File::from)
            .and_then(|f| f.metadata().ok())
            .is_some_and(|m| m.file_type().is_char_device())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The signals a hook answers instead of dying by: every one sent to end a process, or whose
/// default action would end one (SIGKILL cannot be caught, SIGSTOP only pauses, SIGPIPE the
/// Rust runtime already ignores; the faults a process causes itself are not caught). Each ends
/// the hook with a could-not-run verdict in its host's protocol (docs/hooks.md, "Failing open").
#[cfg(unix)]
const SIGNALS: &[std::ffi::c_int] = {
    use signal_hook::consts::signal::*;
    &[
        SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
        SIGXFSZ, SIGIO,
    ]
};

/// Signals held back on this thread (the only one when a hook starts) until dropped, when the
/// mask it found is put back and whatever arrived meanwhile is delivered.
#[cfg(unix)]
struct Held(Option<libc::sigset_t>);

#[cfg(unix)]
impl Held {
    fn back(signals: &[std::ffi::c_int]) -> Held {
        // SAFETY: `sigset_t` is plain data that `sigemptyset` initialises; the calls only
        // read and write the two sets on this stack and this thread's signal mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut before: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&raw mut set);
            for &signal in signals {
                libc::sigaddset(&raw mut set, signal);
            }
            let blocked = libc::pthread_sigmask(libc::SIG_BLOCK, &raw const set, &raw mut before);
            Held((blocked == 0).then_some(before))
        }
    }
}

#[cfg(unix)]
impl Drop for Held {
    fn drop(&mut self) {
        if let Some(before) = self.0.take() {
            // SAFETY: puts back the mask `back` read; no other memory is touched.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &raw const before, std::ptr::null_mut());
            }
        }
    }
}

/// The hook's signal handling, caught from the start of the process and forwarded to the
/// running hook once it is under way.
struct Signals {
    #[cfg(unix)]
    caught: Option<signal_hook::iterator::Signals>,
}

impl Signals {
    /// The signals are blocked while their handlers go in: signal-hook installs each
    /// process handler before the handler can see where to deliver, and a signal in between
    /// was lost (the hook then sat out its whole deadline; an e2e test caught it under load).
    /// Blocked, it waits pending and arrives, queued, the moment the mask is lifted.
    #[cfg(unix)]
    fn catch() -> Signals {
        let held = Held::back(SIGNALS);
        let caught = signal_hook::iterator::Signals::new(SIGNALS).ok();
        drop(held);
        Signals { caught }
    }

    #[cfg(not(unix))]
    fn catch() -> Signals {
        Signals {}
    }

    /// Hands each signal to the hook, by name, on a thread of its own that lives as long as
    /// the process: a signal after the answer was given is caught and changes nothing.
    #[cfg(unix)]
    fn forward(self, stop: Interrupt) {
        let Some(mut caught) = self.caught else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("kapi-hook-signals".into())
            .spawn(move || {
                for signal in caught.forever() {
                    let name = signal_hook::low_level::signal_name(signal)
                        .map_or_else(|| format!("signal {signal}"), str::to_owned);
                    stop.stop(&name);
                }
            });
    }

    /// Elsewhere Ctrl-C (and the console's close) is what a process can catch.
    #[cfg(not(unix))]
    fn forward(self, stop: Interrupt) {
        let _ = ctrlc::set_handler(move || {
            stop.stop("Ctrl-C");
        });
    }
}
