//! `kapi init`: make a folder a kapi project (recipe, `.kapi/` layout, starter voice and terms,
//! store). On an existing project it adds only what kapi owns and is missing. Exits 0, or 1
//! when nothing could be written or a host was refused (`kapi help init` has the table).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::agents::{Agents, HostId, WiringStatus};
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
    /// Agent hosts to wire: all, none, or a comma list of claude-code, cursor, vscode, codex,
    /// agents, kkss, kiki, opencode, copilot, qwen, gemini [default: Claude Code and each host
    /// whose folder the project keeps]
    #[arg(long, value_name = "LIST", value_parser = parse_agents)]
    pub agents: Option<Agents>,
}

fn parse_agents(text: &str) -> Result<Agents, String> {
    Agents::parse(text).map_err(|e| {
        let hints = kapi_core::Hint::hints(&e);
        match hints.first() {
            Some(hint) => format!("{e}; {hint}"),
            None => e.to_string(),
        }
    })
}

pub fn run(
    args: &InitArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let dir = app.absolute(args.dir.as_deref().unwrap_or(std::path::Path::new(".")));
    let agents = args.agents.clone().unwrap_or_default();
    let report = init(app, &dir, !args.no_rules_files, &agents)?;
    printer.emit(&report)?;
    if report.kapi_not_on_path {
        printer.note(
            "`kapi` is not on PATH: every host entry and hook kapi wrote runs `kapi` from PATH, so none will start; put it there (`make install` in kapi's checkout: `cargo install --locked --path .`)",
        );
    }
    // A refused host is reported with its file and position; the others are wired.
    if report
        .agents
        .iter()
        .any(|h| h.status == WiringStatus::Refused)
    {
        Ok(Outcome::Error)
    } else {
        Ok(Outcome::Success)
    }
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
        for moved in &self.rules_moved {
            writeln!(
                out,
                "  {} {}",
                style.paint("33", "moved  "),
                moved.sentence()
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
            if !self.offered.is_empty() {
                writeln!(
                    out,
                    "source code kapi reads the comments of: {} (offered in kapi.yaml, commented out: uncomment to check them)",
                    self.offered.join(", ")
                )?;
            }
            if !self.catalogs.is_empty() {
                writeln!(
                    out,
                    "translation catalogs: {} (offered in kapi.yaml as collections, commented out: uncomment to check and translate them)",
                    self.catalogs.join(", ")
                )?;
            }
        }
        for host in &self.agents {
            match host.status {
                WiringStatus::Refused => writeln!(
                    out,
                    "  {} {}: {}",
                    style.paint("31", "refused"),
                    host.host,
                    host.error.as_deref().unwrap_or("")
                )?,
                WiringStatus::Wired => {
                    writeln!(out, "  {} {}", style.paint("32", "wired  "), host.host)?;
                    for file in &host.written {
                        writeln!(out, "      wrote {file}")?;
                    }
                    for file in &host.removed {
                        writeln!(out, "      removed {file} (an earlier kapi's copy)")?;
                    }
                }
                WiringStatus::Unchanged => {
                    let personal = HostId::from_id(host.host).is_some_and(HostId::mcp_is_personal);
                    let note = if personal {
                        "already wired; its MCP server is yours to add: see next"
                    } else {
                        "already wired"
                    };
                    writeln!(out, "  {} {} ({note})", style.dim("wired  "), host.host)?
                }
            }
            if let Some(file) = &host.kept_entry {
                writeln!(
                    out,
                    "      kept the `kapi` entry in {file}: someone else wrote it, so kapi leaves it alone"
                )?;
            }
            for file in &host.foreign {
                writeln!(out, "      left {file}: not kapi's, in kapi's skill folder")?;
            }
            for warning in &host.warnings {
                writeln!(out, "      warning: {warning}")?;
            }
        }
        writeln!(
            out,
            "next: edit .kapi/voice.yaml and .kapi/terms.yaml, then run `kapi check`"
        )?;
        for host in &self.agents {
            if host.status == WiringStatus::Refused {
                continue;
            }
            for step in &host.next_steps {
                writeln!(out, "next ({}): {step}", host.host)?;
            }
        }
        Ok(())
    }
}
