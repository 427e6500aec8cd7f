//! `kapi init`: make a folder a kapi project (recipe, `.kapi/` layout, starter voice and terms,
//! store). On an existing project it adds only what kapi owns and is missing. Exits 0 or 1.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::init::{InitReport, init};

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Make this folder a kapi project: recipe, starter voice, terms and store
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to initialize [default: the current folder]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Do not write the project's rules into AGENTS.md and CLAUDE.md
    #[arg(long)]
    pub no_rules_files: bool,
}

pub fn run(
    args: &InitArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let dir = app.absolute(args.dir.as_deref().unwrap_or(std::path::Path::new(".")));
    let report = init(app, &dir, !args.no_rules_files)?;
    printer.emit(&report)?;
    Ok(Outcome::Success)
}

impl Render for InitReport {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        if self.existing {
            writeln!(
                out,
                "kapi project at {} (existing recipe kept as it is)",
                self.root
            )?;
        } else {
            writeln!(out, "kapi project created at {}", self.root)?;
        }
        for file in &self.created {
            writeln!(out, "  {} {file}", style.paint("32", "created"))?;
        }
        for file in &self.rules_files {
            writeln!(
                out,
                "  {} {file} (kapi's rules section)",
                style.paint("32", "rules  ")
            )?;
        }
        for file in &self.kept {
            writeln!(out, "  {} {file} (yours, unchanged)", style.dim("kept   "))?;
        }
        if let Some(lang) = &self.source_language {
            writeln!(out, "source language: {lang}")?;
        }
        if !self.existing {
            if self.collections.is_empty() {
                writeln!(
                    out,
                    "no Markdown found: declare content under `collections` in kapi.yaml"
                )?;
            } else {
                writeln!(out, "collections: {}", self.collections.join(", "))?;
            }
        }
        writeln!(
            out,
            "next: edit .kapi/voice.yaml and .kapi/terms.yaml, then run `kapi check`"
        )
    }
}
