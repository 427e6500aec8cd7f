//! `kapi formats`: the file formats this build reads, with what each can do, resolved from
//! each format's declaration without reading a file. Exits 0.

use std::io::{self, Write};

use clap::Args;
use kapi_host::formats::FormatList;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// List the file formats kapi reads and what each can do
#[derive(Debug, Args)]
pub struct FormatsArgs {}

pub fn run(_: &FormatsArgs, _: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let list = kapi_host::formats::list();
    printer.emit(&list)?;
    Ok(Outcome::Success)
}

impl Render for FormatList {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{:<11} {:<18} {:<5} {:<6} {:<9} {}",
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
                "{:<11} {:<18} {:<5} {:<6} {:<9} {}{}",
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
                "EDIT: faithful = an edit changes only the edited text, byte for byte elsewhere"
            )
        )?;
        Ok(())
    }
}
