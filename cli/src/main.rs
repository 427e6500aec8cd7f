//! The `kapi` binary: parses the command line, runs one verb, renders its result or error,
//! and exits with the code `exit.rs` maps it to. All work happens in `kapi-host`.

mod commands;
mod exit;
mod input;
mod printer;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

use crate::exit::Outcome;
use crate::printer::{Printer, Style};

/// kapi: the project's own context — terms, voice and rules — for the assistants and people
/// who write its prose.
#[derive(Debug, Parser)]
#[command(
    name = "kapi",
    version,
    disable_help_subcommand = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Print results as JSON on stdout (errors as a JSON envelope on stderr)
    #[arg(long, global = true)]
    pub json: bool,
    /// The project: a `kapi.yaml`, a project folder, or any path inside a project (a relative one
    /// is found from the working folder, then each parent, up to a `.git` folder)
    #[arg(short = 'p', long, global = true, value_name = "PATH")]
    pub project: Option<PathBuf>,
    /// Print only results: no notes or progress on stderr
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// When to colour output [`NO_COLOR` turns `auto` off]
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,
    /// Refuse a recipe key kapi does not read (exit 2) instead of naming it on stderr
    /// [`KAPI_STRICT` sets it]
    #[arg(long, global = true)]
    pub strict: bool,
    #[command(subcommand)]
    pub command: Option<commands::Command>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// mimalloc: reading a file builds many small strings (runs, codes, keys); the system
/// allocator spent a third of a catalog read in malloc and free, and format throughput is
/// about 1.5 times the system allocator's. Built with `no_thp`: with transparent huge pages
/// its arenas tripled the peak RSS of a check (65 MB instead of 18 MB on the Rust book).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What Ctrl-C and SIGTERM ask (see `kapi_host::app::Stop`).
static STOP: kapi_host::app::Stop = kapi_host::app::Stop::new();

// mimalloc's own C API (linked with the allocator; the Rust crate binds it only behind a
// feature that adds a dependency): options are read on each use, so one may be set at any time.
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mimalloc.h` (the same index in v2 and v3).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// How long freed memory waits before it goes back to the system, in ms.
const PURGE_DELAY_MS: std::ffi::c_long = 3;

/// Freed memory goes back to the system after 3 ms, not 10 (mimalloc's default): a large
/// buffer let go (a file's text, a request's line) is followed at once by large
/// allocations of other sizes, and with 10 ms the peak counted both (an 8 MB `check_text`
/// over MCP peaked at 72 MB; 54 MB at 3 ms, 50 MB at 0). Not at once: a file read a block at
/// a time frees and refills the same pages for each block, and purging them at once made
/// every refill a page fault (20 MB of Markdown dense with inline markup: 9.5 s at 0 ms,
/// 6.8 s at 3 ms, the same peak). The Rust book checks as fast.
fn purge_soon() {
    // SAFETY: sets an allocator option; mimalloc allows it at any time, from any thread.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

fn main() -> ExitCode {
    purge_soon();
    let args = commands::toolbox::alias(std::env::args_os().collect());
    if commands::hook::is_hook_call(&args) {
        let code = commands::hook::main(&args);
        kapi_host::derived::wait();
        // Ends lingering work (a stdin read that never finishes) with the hook's answer.
        #[allow(clippy::exit)]
        std::process::exit(i32::from(code));
    }
    let _ = ctrlc::set_handler(|| {
        // Every write kapi makes is atomic (temp file + rename), so stopping here loses nothing.
        // A change set's write holds the stop off: it ends between two files and prints what
        // landed (`kapi apply` then exits 130).
        if !STOP.ask() {
            #[allow(clippy::exit)]
            std::process::exit(i32::from(Outcome::Interrupted.code()));
        }
    });
    let json_requested = args.iter().any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(clap_error(&err, json_requested).code()),
    };
    let outcome = run(&cli);
    // The derived files (the check cache) a command left writing in the background.
    kapi_host::derived::wait();
    ExitCode::from(outcome.code())
}

fn run(cli: &Cli) -> Outcome {
    let mut env = kapi_host::env::Env::read();
    env.strict |= cli.strict;
    let color = match cli.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => !env.no_color && std::io::stdout().is_terminal(),
    };
    let mut printer = Printer::new(cli.json, cli.quiet, Style { color });
    install_warnings(cli, color && std::io::stderr().is_terminal());
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            return report(
                &anyhow::anyhow!("cannot read the working directory: {e}"),
                cli.json,
                color,
            );
        }
    };
    let strict = env.strict;
    let mut app = kapi_host::App::new(env, cwd, cli.project.clone());
    app.stop = &STOP;
    app.strict = strict;
    let Some(command) = &cli.command else {
        // Not a usage error: a host that ignores a hook's arguments runs a bare `kapi`, and exit
        // 2 would read as a deny there (agent-hosts.md §4).
        let _ = commands::help::print_overview(&mut printer);
        return Outcome::Success;
    };
    match commands::run(command, &app, &mut printer) {
        Ok(outcome) => outcome,
        Err(err) => report(&err, cli.json, color && std::io::stderr().is_terminal()),
    }
}

/// Where the host's warnings about the project's files go (a recipe key kapi does not read,
/// said once a run; `kapi mcp`'s log): `warning: …` on stderr, a `{"note": …}` line under
/// `--json` (the notes' convention), nothing under `--quiet`.
fn install_warnings(cli: &Cli, color: bool) {
    let (json, quiet) = (cli.json, cli.quiet);
    kapi_host::notices::install(move |text| {
        if quiet {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        let _ = if json {
            writeln!(stderr, "{}", serde_json::json!({ "note": text }))
        } else {
            writeln!(
                stderr,
                "{} {text}",
                Style { color }.paint("33;1", "warning:")
            )
        };
    });
}

/// Renders an error on stderr, as text or as the JSON envelope, and returns its outcome.
pub(crate) fn report(err: &anyhow::Error, json: bool, color: bool) -> Outcome {
    let outcome = exit::outcome_for(err);
    let hints = kapi_host::hints_for(err);
    let mut stderr = std::io::stderr().lock();
    if json {
        let envelope =
            serde_json::json!({"error": err.to_string(), "code": outcome.name(), "hints": hints});
        let _ = writeln!(stderr, "{envelope}");
    } else {
        let style = Style { color };
        let _ = writeln!(stderr, "{} {err}", style.paint("31;1", "error:"));
        for cause in err.chain().skip(1) {
            let text = cause.to_string();
            if !err.to_string().contains(&text) {
                let _ = writeln!(stderr, "  caused by: {text}");
            }
        }
        if !hints.is_empty() {
            let _ = writeln!(stderr);
            for hint in hints {
                let _ = writeln!(stderr, "{} {hint}", style.paint("36;1", "hint:"));
            }
        }
    }
    outcome
}

/// Clap's own errors: help and version print and succeed; everything else is a usage error.
fn clap_error(err: &clap::Error, json: bool) -> Outcome {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            Outcome::Success
        }
        _ if json => {
            let message = err.render().to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("usage error")
                .trim_start_matches("error: ")
                .to_owned();
            let envelope = serde_json::json!({"error": first, "code": "usage", "hints": ["run `kapi help` for usage"]});
            let _ = writeln!(std::io::stderr().lock(), "{envelope}");
            Outcome::Usage
        }
        _ => {
            let _ = err.print();
            Outcome::Usage
        }
    }
}
