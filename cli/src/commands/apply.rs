//! `kapi apply FILE|-`: applies a `kapi.change/v1` change set whole or not at all, as the
//! actor `KAPI_ACTOR` names. Exits 0 applied or unchanged, 3 when an operation is refused,
//! 2 when the set does not decode, 1 on I/O (a `partial` write included), 130 when a signal
//! stopped it (after printing what landed).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_core::change::decode::MAX_BYTES;
use kapi_core::change::result::{ChangeResult, OpStatus, SetStatus};
use kapi_core::change::{ChangeSet, decode};
use kapi_host::HostError;
use kapi_host::apply::{ApplyRequest, apply};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Apply a change set (`kapi.change/v1`) whole or not at all
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The change set: a file, or `-` for standard input
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// Compute and check the set, print a unified diff per document, write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the decoded change set (as one `kapi.change/v1` document) and apply nothing
    #[arg(long, conflicts_with = "dry_run")]
    pub print_ops: bool,
}

pub fn run(
    args: &ApplyArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let (name, bytes) = read_input(args, app)?;
    let set = decode(&bytes).map_err(|error| HostError::ChangeSet {
        input: name.clone(),
        error: Box::new(error),
    })?;
    if args.print_ops {
        printer.emit(&Decoded(set))?;
        return Ok(Outcome::Success);
    }
    land(set, args.dry_run, app, printer)
}

/// Hands `set` to the change service, prints what landed, and maps it to an exit code (the
/// path `kapi sed` takes too).
pub(crate) fn land(
    set: ChangeSet,
    dry_run: bool,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    // A signal from here on is held off: the write ends between two files, and the result
    // says what landed before kapi exits 130.
    let hold = app.stop.hold();
    let result = apply(app, &ApplyRequest { set, dry_run })?;
    printer.emit(&Applied(&result))?;
    drop(hold);
    if app.stop.asked() {
        return Ok(Outcome::Interrupted);
    }
    Ok(match result.status {
        SetStatus::Applied | SetStatus::Unchanged => Outcome::Success,
        // A write that failed before any document landed is an I/O error, not a refusal.
        SetStatus::Refused if result.error.is_some() => Outcome::Error,
        SetStatus::Refused => Outcome::GateNotMet,
        SetStatus::Partial => Outcome::Error,
    })
}

/// The set's bytes (the decoder refuses one past its cap), and its name in messages.
fn read_input(args: &ApplyArgs, app: &kapi_host::App) -> anyhow::Result<(String, Vec<u8>)> {
    let (name, bytes) = crate::input::read(&args.input, app, MAX_BYTES as u64)?;
    let name = if args.input.as_os_str() == "-" {
        "<stdin>".into()
    } else {
        format!("`{}`", name.display())
    };
    Ok((name, bytes))
}

/// `--print-ops`: the decoded set.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Decoded(pub(crate) ChangeSet);

impl Render for Decoded {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &self.0)?;
        writeln!(out)
    }
}

#[derive(Serialize)]
#[serde(transparent)]
struct Applied<'a>(&'a ChangeResult);

impl Render for Applied<'_> {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        let r = self.0;
        for op in &r.operations {
            let status = op.status.as_str();
            let painted = match op.status {
                OpStatus::Applied => style.paint("32", status),
                OpStatus::Unchanged | OpStatus::NotApplied => style.dim(status),
                _ => style.paint("31;1", status),
            };
            let pad = " ".repeat(14usize.saturating_sub(status.len()));
            let place = op
                .at
                .as_ref()
                .map(|at| {
                    let mut s = format!(" {} {} ({}", at.doc, at.block, at.edition);
                    if let Some(b) = &at.branch {
                        s.push_str(&format!(" {b}"));
                    }
                    s.push(')');
                    s
                })
                .unwrap_or_default();
            writeln!(out, "{painted}{pad}#{} {}{place}", op.index, op.op)?;
            if op.status != OpStatus::Applied || op.count.is_some() || op.landed.is_some() {
                writeln!(out, "  {}", op.message)?;
            }
            if let Some(current) = &op.current {
                writeln!(
                    out,
                    "  current {}: {}",
                    current.rev,
                    current.text.replace('\n', "\n    ")
                )?;
            }
            for f in &op.findings {
                let mark = if f.introduced {
                    "introduced"
                } else {
                    "already there"
                };
                writeln!(
                    out,
                    "  {} {} ({mark}): {}",
                    f.severity.as_str(),
                    f.rule,
                    f.message
                )?;
            }
            if let Some(instead) = &op.instead {
                writeln!(out, "  {} {instead}", style.paint("36;1", "instead:"))?;
            }
        }
        if r.dry_run {
            for d in &r.documents {
                if d.diff.is_empty() {
                    writeln!(out, "{} changes (no text diff for this format)", d.doc)?;
                } else {
                    out.write_all(d.diff.as_bytes())?;
                }
            }
        }
        let n = r.operations.len();
        let written: Vec<&str> = r
            .documents
            .iter()
            .filter(|d| d.written)
            .map(|d| d.doc.as_str())
            .collect();
        let summary = match r.status {
            SetStatus::Refused if r.error.is_some() => {
                format!("refused: {}", r.error.as_deref().unwrap_or_default())
            }
            SetStatus::Refused => {
                let k = r.operations.iter().filter(|o| o.status.refuses()).count();
                format!("refused: {k} of {n} operations; nothing was written")
            }
            SetStatus::Partial => format!(
                "partial: {}",
                r.error.as_deref().unwrap_or("the write was interrupted")
            ),
            SetStatus::Unchanged => format!("unchanged: all {n} operations were already in place"),
            SetStatus::Applied if r.dry_run => format!(
                "dry run: {n} operations would apply to {} documents; nothing was written",
                r.documents.len()
            ),
            SetStatus::Applied => {
                if written.is_empty() {
                    format!("applied {n} operations")
                } else {
                    format!("applied {n} operations; wrote {}", written.join(", "))
                }
            }
        };
        writeln!(out, "{}", style.bold(&summary))
    }
}
