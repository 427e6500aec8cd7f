//! `kapi formats`: the file formats this build reads, with what each can do. Exits 0.

use std::io::{self, Write};

use clap::Args;
use kapi_core::formats::{self, FormatInfo};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// List the file formats kapi reads and what each can do
#[derive(Debug, Args)]
pub struct FormatsArgs {}

/// `kapi.formats/v1`.
#[derive(Debug, Serialize)]
pub struct FormatList {
    schema: &'static str,
    formats: Vec<FormatInfo>,
}

pub fn run(_: &FormatsArgs, _: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let list = FormatList {
        schema: "kapi.formats/v1",
        formats: formats::all().iter().map(|f| *f.info()).collect(),
    };
    printer.emit(&list)?;
    Ok(Outcome::Success)
}

impl Render for FormatList {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{:<12} {:<14} {:<22} {}",
                "ID", "NAME", "EXTENSIONS", "EDIT"
            ))
        )?;
        for f in &self.formats {
            let exts: Vec<String> = f.extensions.iter().map(|e| format!(".{e}")).collect();
            let edit = if f.capabilities.editable {
                "yes"
            } else {
                "read-only"
            };
            writeln!(
                out,
                "{:<12} {:<14} {:<22} {edit}",
                f.id,
                f.name,
                exts.join(" ")
            )?;
        }
        Ok(())
    }
}
