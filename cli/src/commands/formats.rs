//! `kapi formats`: the file formats this build reads, with what each can do, resolved from
//! each format's declaration without reading a file. Exits 0.
//!
//! `kapi formats describe FORMAT` (or `--path FILE`): one format in full, what it can do and
//! each change operation it takes (the service MCP's `describe_format` calls). A file is
//! judged as `detect` judges it. Exits 0, 1 when no format is named so or reads the file,
//! 2 on bad flags.
//!
//! `kapi formats detect [PATH] [--stdin]`: the format kapi would read a file or a text with
//! and how it knows (the detect service MCP's `detect_format` calls too). `PATH` alone is
//! judged by the project's declarations, its extension and, where formats share it, its first
//! bytes (it need not exist), named from the working folder as every verb's paths are; `-` (or no PATH) reads a text on stdin and judges its content;
//! `PATH --stdin` judges that text as the file `PATH`. Exits 0 when a format reads it, 1 when
//! none does (the result still says so), 2 on bad flags.

use std::io::{self, Write};

use clap::{Args, Subcommand};
use kapi_host::app::Base;
use kapi_host::services::detect_format::{Detected, detect_at, judged};
use kapi_host::services::formats::{Described, FormatList, describe_at};

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Rendered, Style};

/// List the file formats kapi reads and what each can do
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct FormatsArgs {
    #[command(subcommand)]
    pub command: Option<FormatsCommand>,
}

#[derive(Debug, Subcommand)]
pub enum FormatsCommand {
    /// One format in full: what it can do and each change operation it takes
    Describe(DescribeArgs),
    /// The format kapi would read a file or a text with, and how it knows
    Detect(DetectArgs),
}

/// One format in full: what it can do and each change operation it takes
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// A format id, as `kapi formats` lists them (`markdown`, `json`, …)
    #[arg(value_name = "FORMAT", required_unless_present = "path")]
    pub format: Option<String>,
    /// Instead, the format kapi reads this file with (it need not exist)
    #[arg(long, value_name = "FILE", conflicts_with = "format")]
    pub path: Option<String>,
}

/// The format kapi would read a file or a text with, and how it knows
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// A file name or path (it need not exist); `-` reads a text on stdin instead
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Judge the text on stdin as the file PATH (where formats share its extension)
    #[arg(long, requires = "path")]
    pub stdin: bool,
}

pub fn run(
    args: &FormatsArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    match &args.command {
        None => {
            printer.emit(&kapi_host::services::formats::list())?;
            Ok(Outcome::Success)
        }
        Some(FormatsCommand::Describe(args)) => {
            let path = match &args.path {
                Some(path) => Some(from_here(app, path)?),
                None => None,
            };
            let described = describe_at(app, args.format.as_deref(), path.as_ref())?;
            printer.emit(&Rendered(&described, Described::render))?;
            Ok(Outcome::Success)
        }
        Some(FormatsCommand::Detect(args)) => run_detect(args, app, printer),
    }
}

/// A path as the user typed it, resolved once from the working folder as a path a service
/// names inside the project is ([`Base::Project`]; it need not exist, and one outside the
/// project is judged by its name alone).
fn from_here(
    app: &kapi_host::App,
    path: &str,
) -> Result<kapi_host::app::ResolvedPath, kapi_host::HostError> {
    judged(app, Base::Project, path)
}

fn run_detect(
    args: &DetectArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let path = match args.path.as_deref().filter(|p| *p != "-") {
        Some(path) => Some(from_here(app, path)?),
        None => None,
    };
    let content = if path.is_none() || args.stdin {
        Some(crate::input::text(std::path::Path::new("-"), app)?)
    } else {
        None
    };
    let detected = detect_at(app, path.as_ref(), content.as_deref())?;
    let found = detected.format.is_some();
    printer.emit(&Rendered(&detected, Detected::render))?;
    Ok(if found {
        Outcome::Success
    } else {
        Outcome::Error
    })
}

impl Render for FormatList {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{:<11} {:<20} {:<5} {:<6} {:<9} {}",
                "FORMAT", "NAME", "READ", "WRITE", "EDIT", "EXTENSIONS"
            ))
        )?;
        for f in &self.formats {
            let exts: Vec<String> = f.info.extensions.iter().map(|e| format!(".{e}")).collect();
            let edit = match f.edit {
                "no" if f.bilingual => "—  (bilingual: read and checked)",

                "no" => "—",
                other => other,
            };
            let (edit, note) = edit.split_once("  ").unwrap_or((edit, ""));
            writeln!(
                out,
                "{:<11} {:<20} {:<5} {:<6} {:<9} {}{}",
                f.info.id,
                f.info.name,
                if f.reader { "yes" } else { "—" },
                if f.writer { "yes" } else { "—" },
                edit,
                exts.join(" "),
                if note.is_empty() {
                    String::new()
                } else {
                    style.dim(&format!("  {note}"))
                }
            )?;
        }
        writeln!(
            out,
            "{}",
            style.dim(
                "EDIT: faithful = an edit changes only the edited text, byte for byte elsewhere; comment = a source file's comments, rewritten in their own style and kept only when the file still parses"
            )
        )?;
        Ok(())
    }
}
