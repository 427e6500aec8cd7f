//! `kapi formats`: the file formats this build reads, with what each can do, resolved from
//! each format's declaration without reading a file. Exits 0.

use std::collections::BTreeMap;
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
    formats: Vec<FormatRow>,
}

/// One format, resolved from its declaration alone (no file is read).
#[derive(Debug, Serialize)]
pub struct FormatRow {
    #[serde(flatten)]
    info: FormatInfo,
    reader: bool,
    writer: bool,
    editable: bool,
    round_trip: bool,
    generative: bool,
    bilingual: bool,
    /// `faithful` (editable through a skeleton), `yes` (editable, rewritten whole) or `no`.
    edit: &'static str,
    /// Each change operation and whether this format takes it: `yes`, or `unsupported`.
    operations: BTreeMap<&'static str, &'static str>,
}

impl FormatRow {
    fn new(info: FormatInfo) -> Self {
        let c = info.capabilities;
        let edit = match (c.editable, c.round_trip) {
            (true, true) => "faithful",
            (true, false) => "yes",
            _ => "no",
        };
        let content = if c.editable { "yes" } else { "unsupported" };
        let operations = BTreeMap::from([
            ("set_content", content),
            ("replace_text", content),
            // A review decision on a target edition never writes the file.
            ("decide", "yes"),
        ]);
        FormatRow {
            info,
            reader: true,
            writer: true,
            editable: c.editable,
            round_trip: c.round_trip,
            generative: c.generative,
            bilingual: c.bilingual,
            edit,
            operations,
        }
    }
}

pub fn run(_: &FormatsArgs, _: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let list = FormatList {
        schema: "kapi.formats/v1",
        formats: formats::all()
            .iter()
            .map(|f| FormatRow::new(*f.info()))
            .collect(),
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
