//! `kapi diff` (`kdiff`): two files, or a file against a git revision (`--rev`), compared
//! block by block (`kapi.diff/v1`). Exits as diff does: 0 the same, 1 different, 2 trouble.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::toolbox::diff::{Diff, DiffRequest, diff};

use super::toolbox::{one_line, trouble};
use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Compare two files block by block: added, removed and changed prose, by key
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Two files (A B), or one with `--rev`
    #[arg(value_name = "PATH", required = true, num_args = 1..=2)]
    pub paths: Vec<PathBuf>,
    /// Compare the file with its version at this git revision (`HEAD`, a branch, a commit)
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
}

pub fn run(
    args: &DiffArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let request = match (args.paths.as_slice(), &args.rev) {
        ([a, b], None) => DiffRequest::Files(a.clone(), b.clone()),
        ([path], Some(rev)) => DiffRequest::Rev(rev.clone(), path.clone()),
        _ => {
            let err = kapi_host::HostError::Usage {
                message: "kapi diff compares two files, or one file with `--rev REV`".into(),
                hint: Some(
                    "`kapi diff old.md new.md`, or `kapi diff --rev HEAD docs/intro.md`".into(),
                ),
            };
            return Ok(trouble(err.into(), printer));
        }
    };
    let compared = match diff(app, &request) {
        Ok(compared) => compared,
        Err(e) => return Ok(trouble(e.into(), printer)),
    };
    printer.emit(&compared)?;
    Ok(if compared.changes.is_empty() {
        Outcome::Success
    } else {
        Outcome::Error
    })
}

impl Render for Diff {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        if self.changes.is_empty() {
            return Ok(());
        }
        writeln!(out, "{}", style.bold(&format!("--- {}", self.a)))?;
        writeln!(out, "{}", style.bold(&format!("+++ {}", self.b)))?;
        for c in &self.changes {
            let lines = match (c.line_a, c.line_b) {
                (Some(a), Some(b)) => format!(" (line {a} → {b})"),
                (Some(a), None) => format!(" (line {a})"),
                (None, Some(b)) => format!(" (line {b})"),
                (None, None) => String::new(),
            };
            let was = c
                .was
                .as_deref()
                .map(|w| format!(" (was {w})"))
                .unwrap_or_default();
            writeln!(
                out,
                "{} {}{was}{}",
                style.bold(c.change),
                style.paint("36", &c.block),
                style.dim(&lines)
            )?;
            if let Some(old) = &c.old {
                writeln!(
                    out,
                    "  {}",
                    style.paint("31", &format!("- {}", one_line(old)))
                )?;
            }
            if let Some(new) = &c.new {
                writeln!(
                    out,
                    "  {}",
                    style.paint("32", &format!("+ {}", one_line(new)))
                )?;
            }
        }
        Ok(())
    }
}
