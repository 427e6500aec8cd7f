//! `kapi context`: the brief for a location (`kapi context PATH`), and the verbs that grow the
//! project's context. For assistants: the brief, `search`, `note`, `log`. A person's:
//! `review`, `reset`, `sync` (refused for any other actor, exit 3). Exits 0, 1 on a bad
//! project or path, 2 on bad input.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use kapi_host::HostError;
use kapi_host::context::{ContextAnswer, ContextRequest, context};
use kapi_host::notes::{
    self, Log, LogRequest, NoteAnswer, NoteRequest, Reset, Review, ReviewRequest, Sync,
    suggestion_line,
};
use kapi_host::search::{SearchAnswer, SearchRequest, search};
use kapi_host::services::recipe::{CollectionList, Profiles, collections, profiles};
use kapi_host::services::session_summary::session_summary;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Rendered, Style};

/// The brief for a location, and the verbs that grow the project's context
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "For assistants: `kapi context PATH` (the brief), `search`, `note`, `log`.\nA person's: `review`, `reset`, `sync`."
)]
pub struct ContextArgs {
    #[command(subcommand)]
    pub command: Option<ContextCommand>,
    /// A file or folder in the project
    #[arg(value_name = "PATH", required_unless_present = "profile")]
    pub path: Option<PathBuf>,
    /// Brief a profile declared in `kapi.yaml` instead of a path
    #[arg(long, value_name = "NAME", conflicts_with = "path")]
    pub profile: Option<String>,
    /// The language whose terms to list [default: the point's source language]
    #[arg(short, long, value_name = "LANG")]
    pub locale: Option<String>,
    /// Most terms listed in each group
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum ContextCommand {
    /// For assistants: record what the files do every time, or a person's change
    ///
    /// Every note is a suggestion with an id; a person keeps it (`kapi context review`). The
    /// same observation again adds evidence, not a second suggestion. `--withdraw ID` takes
    /// back a note this session recorded.
    Note(NoteArgs),
    /// For assistants: the context operations recorded, with actor, session and evidence
    ///
    /// `--summary`: what a session (this one by default) recorded, withdrew and applied, in
    /// one sentence (`kapi.session-summary/v1`; MCP's `context_session_summary`).
    Log(LogArgs),
    /// For assistants: what the project knows about a word
    ///
    /// Term rules in every language (with a verdict: ok, or what to say instead), the notes
    /// kept and the suggestions pending that mention it, and where each is in force.
    Search(SearchArgs),
    /// A person's: keep, drop or widen pending suggestions
    ///
    /// On a terminal with no flags, asks about each. Otherwise `--keep ID…`, `--drop ID…`,
    /// `--widen ID=PATH`; with none, lists what is pending. A kept note goes to
    /// `.kapi/notes.yaml` (a person's change kept for the whole project becomes a term rule),
    /// and the rules files are refreshed.
    Review(ReviewArgs),
    /// A person's: clear every pending suggestion
    Reset(ResetArgs),
    /// The recipe's profiles: channels, voice, terms, and the validity window's state now
    ///
    /// `kapi.profiles/v1` with `--json`; MCP's `list_profiles`.
    Profiles,
    /// The recipe's collections: each item's path, format, target and how many files it declares
    ///
    /// `kapi.collections/v1` with `--json`; MCP's `list_collections`.
    Collections,
    /// A person's: rewrite the rules files (AGENTS.md, CLAUDE.md) from the kept state
    Sync(SyncArgs),
}

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// What the files do every time: a name as written, a spelling variety, a word chosen
    /// over a common alternative
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// A person's change: the words before
    #[arg(long, value_name = "WORDS", requires = "to")]
    pub from: Option<String>,
    /// A person's change: the words after
    #[arg(long, value_name = "WORDS", requires = "from")]
    pub to: Option<String>,
    /// With `--from`/`--to`: the form the note proposes, when it is not `--to`
    #[arg(long, value_name = "WORDS", requires = "from")]
    pub suggest: Option<String>,
    /// The folder or file it was seen in (the note applies there and below)
    #[arg(long, value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Take back a note this session recorded
    #[arg(long, value_name = "ID", conflicts_with_all = ["text", "from", "to", "suggest", "path"])]
    pub withdraw: Option<String>,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// `this` (this session: `KAPI_SESSION`) or a session id
    #[arg(long, value_name = "this|ID")]
    pub session: Option<String>,
    /// Only operations since: RFC 3339, a date, or an age (`30m`, `2h`, `7d`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only operations of this kind (`note`, `withdraw`, `keep`, `drop`, `widen`, `term`, …)
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Summarise the session instead (this one unless `--session` names another)
    #[arg(long, conflicts_with_all = ["since", "kind"])]
    pub summary: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The word or phrase
    #[arg(value_name = "TERM")]
    pub query: String,
    /// Most entries listed in each group
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Keep these suggestions
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub keep: Vec<String>,
    /// Drop these suggestions
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub drop: Vec<String>,
    /// Keep a suggestion at a parent folder: `n3=docs` (`n3=.` for the whole project)
    #[arg(long, value_name = "ID=PATH", num_args = 1..)]
    pub widen: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Do not ask for confirmation
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Only the rules files (leave `.kapi/notes.yaml` as it is)
    #[arg(long)]
    pub files_only: bool,
}

pub fn run(
    args: &ContextArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    match &args.command {
        Some(ContextCommand::Note(a)) => {
            let answer = notes::note(
                app,
                &NoteRequest {
                    text: a.text.clone(),
                    from: a.from.clone(),
                    to: a.to.clone(),
                    suggest: a.suggest.clone(),
                    path: a.path.clone(),
                    withdraw: a.withdraw.clone(),
                },
            )?;
            printer.emit(&answer)?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Log(a)) if a.summary => {
            let summary = session_summary(app, a.session.as_deref())?;
            printer.emit(&Rendered(&summary, |s| s.text.clone()))?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Profiles) => {
            printer.emit(&Rendered(&profiles(app)?, Profiles::text))?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Collections) => {
            printer.emit(&Rendered(&collections(app)?, CollectionList::text))?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Log(a)) => {
            let log = notes::log(
                app,
                &LogRequest {
                    session: a.session.clone(),
                    since: a.since.clone(),
                    kind: a.kind.clone(),
                },
            )?;
            printer.emit(&log)?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Search(a)) => {
            let answer = search(
                app,
                &SearchRequest {
                    query: a.query.clone(),
                    limit: Some(a.limit),
                },
            )?;
            printer.emit(&answer)?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Review(a)) => review(a, app, printer),
        Some(ContextCommand::Reset(a)) => {
            notes::person_only(&app.actor(), "reset")?;
            let pending = notes::pending(app)?;
            if !a.yes {
                if !io::stdin().is_terminal() {
                    return Err(HostError::Usage {
                        message: format!(
                            "reset clears {} pending suggestion(s); confirm with `--yes`",
                            pending.len()
                        ),
                        hint: Some("`kapi context review` lists them first".into()),
                    }
                    .into());
                }
                if !confirm(&format!("Clear {} pending suggestion(s)?", pending.len()))? {
                    eprintln_quiet(printer, "nothing cleared");
                    return Ok(Outcome::Success);
                }
            }
            let reset = notes::reset(app)?;
            printer.emit(&reset)?;
            Ok(Outcome::Success)
        }
        Some(ContextCommand::Sync(a)) => {
            let sync = notes::sync(app, a.files_only)?;
            printer.emit(&sync)?;
            Ok(Outcome::Success)
        }
        None => {
            let request = ContextRequest {
                path: args.path.clone(),
                profile: args.profile.clone(),
                locale: args.locale.clone(),
                limit: Some(args.limit),
            };
            let answer = context(app, &request)?;
            printer.emit(&answer)?;
            Ok(Outcome::Success)
        }
    }
}

#[allow(clippy::print_stderr)]
fn eprintln_quiet(printer: &Printer, message: &str) {
    if !printer.quiet {
        eprintln!("{message}");
    }
}

#[allow(clippy::print_stderr)]
fn confirm(question: &str) -> io::Result<bool> {
    eprint!("{question} [y/N] ");
    io::stderr().flush()?;
    let mut line = String::new();
    io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

fn review(
    args: &ReviewArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    notes::person_only(&app.actor(), "review")?;
    let mut request = ReviewRequest {
        keep: args.keep.clone(),
        drop: args.drop.clone(),
        widen: Vec::new(),
    };
    for w in &args.widen {
        let Some((id, path)) = w.split_once('=') else {
            return Err(HostError::Usage {
                message: format!("`--widen {w}` needs ID=PATH"),
                hint: Some("`--widen n3=docs` keeps n3 for all of docs/".into()),
            }
            .into());
        };
        request
            .widen
            .push((id.trim().to_owned(), path.trim().to_owned()));
    }
    let none = request.keep.is_empty() && request.drop.is_empty() && request.widen.is_empty();
    if none && io::stdin().is_terminal() && !printer.json {
        request = ask(app)?;
        if request.keep.is_empty() && request.drop.is_empty() && request.widen.is_empty() {
            return Ok(Outcome::Success);
        }
    } else if none {
        let pending = notes::pending(app)?;
        printer.emit(&Review {
            schema: "kapi.review/v1",
            decided: Vec::new(),
            pending,
            rules_files: Vec::new(),
        })?;
        return Ok(Outcome::Success);
    }
    let review = notes::review(app, &request)?;
    printer.emit(&review)?;
    Ok(Outcome::Success)
}

/// Asks about each pending suggestion on the terminal.
#[allow(clippy::print_stderr)]
fn ask(app: &kapi_host::App) -> anyhow::Result<ReviewRequest> {
    let pending = notes::pending(app)?;
    let mut request = ReviewRequest::default();
    if pending.is_empty() {
        eprintln!("nothing is pending");
        return Ok(request);
    }
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut last_path: Option<String> = None;
    for s in &pending {
        if last_path.as_deref() != Some(s.path.as_str()) {
            eprintln!("\n{}", if s.path.is_empty() { "." } else { &s.path });
            last_path = Some(s.path.clone());
        }
        eprintln!(
            "  {} {}  ({} note(s), {} edit signal(s); {}:{})",
            s.id,
            suggestion_line(s),
            s.evidence,
            s.signals,
            s.actor_kind,
            s.actor_name
        );
        loop {
            eprint!("  [k]eep, [d]rop, [w]iden PATH, [s]kip, [q]uit? ");
            io::stderr().flush()?;
            let Some(Ok(line)) = lines.next() else {
                return Ok(request);
            };
            let line = line.trim();
            match line
                .split_once(' ')
                .map_or((line, ""), |(a, b)| (a, b.trim()))
            {
                ("k", _) => request.keep.push(s.id.clone()),
                ("d", _) => request.drop.push(s.id.clone()),
                ("w", path) if !path.is_empty() => {
                    request.widen.push((s.id.clone(), path.to_owned()));
                }
                ("s", _) | ("", _) => {}
                ("q", _) => return Ok(request),
                _ => continue,
            }
            break;
        }
    }
    Ok(request)
}

impl Render for ContextAnswer {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.markdown().as_bytes())
    }
}

impl Render for SearchAnswer {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.markdown().as_bytes())
    }
}

impl Render for NoteAnswer {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        writeln!(out, "{}", self.message)
    }
}

impl Render for Log {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        if self.entries.is_empty() {
            return writeln!(out, "no context operations recorded");
        }
        for e in &self.entries {
            let what = match (
                &e.suggestion,
                e.evidence.get("kind").and_then(|v| v.as_str()),
            ) {
                (Some(id), _) => id.clone(),
                _ => String::new(),
            };
            writeln!(
                out,
                "{}  {:<8} {:<20} {:<24} {:<16} {:<6} {}",
                e.at.get(..19).unwrap_or(&e.at),
                e.kind,
                e.actor,
                e.session,
                e.path
                    .as_deref()
                    .map(|p| if p.is_empty() { "." } else { p })
                    .unwrap_or("-"),
                what,
                e.status
            )?;
        }
        Ok(())
    }
}

fn render_pending(out: &mut dyn Write, pending: &[kapi_core::store::Suggestion]) -> io::Result<()> {
    if pending.is_empty() {
        return writeln!(out, "nothing is pending");
    }
    let mut last: Option<&str> = None;
    for s in pending {
        if last != Some(s.path.as_str()) {
            writeln!(out, "{}", if s.path.is_empty() { "." } else { &s.path })?;
            last = Some(&s.path);
        }
        writeln!(
            out,
            "  {:<5} {}  ({} note(s), {} edit signal(s); {}:{})",
            s.id,
            suggestion_line(s),
            s.evidence,
            s.signals,
            s.actor_kind,
            s.actor_name
        )?;
    }
    Ok(())
}

impl Render for Review {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        for d in &self.decided {
            writeln!(
                out,
                "{} {}{}: {}",
                d.decision,
                d.id,
                if d.path.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", d.path)
                },
                d.line
            )?;
        }
        for f in &self.rules_files {
            writeln!(out, "rules file: {f}")?;
        }
        if !self.decided.is_empty() && !self.pending.is_empty() {
            writeln!(out, "\nstill pending:")?;
        }
        if self.decided.is_empty() || !self.pending.is_empty() {
            render_pending(out, &self.pending)?;
        }
        Ok(())
    }
}

impl Render for Reset {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        writeln!(out, "cleared {} pending suggestion(s)", self.cleared)
    }
}

impl Render for Sync {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        let r = &self.report;
        for p in &r.written {
            writeln!(out, "wrote {p}")?;
        }
        for p in &r.removed {
            if r.deleted.contains(p) {
                writeln!(
                    out,
                    "removed {p} (kapi created it, and only its section was in it)"
                )?;
            } else {
                writeln!(out, "removed kapi's section from {p}")?;
            }
        }
        for (p, why) in &r.skipped {
            writeln!(out, "skipped {p}: {why}")?;
        }
        for moved in &r.moved {
            writeln!(out, "{}", moved.sentence())?;
        }
        for id in &self.restored {
            writeln!(out, "restored {id} to .kapi/notes.yaml")?;
        }
        if r.written.is_empty() && r.removed.is_empty() && self.restored.is_empty() {
            writeln!(
                out,
                "rules files up to date ({} unchanged)",
                r.unchanged.len()
            )?;
        }
        Ok(())
    }
}
