//! `kapi schema [NAME]`: the JSON Schemas of kapi's inputs, so a caller can validate what it
//! sends (`change`: a `kapi.change/v1` set, the same schema the MCP `apply_edits` tool takes).

use std::io::{self, Write};

use clap::Args;
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Print the JSON Schema of an input kapi takes
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// `change` (a `kapi.change/v1` change set); no name lists them
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

const SCHEMAS: &[(&str, &str)] = &[(
    "change",
    "kapi.change/v1: a change set for `kapi apply` and MCP `apply_edits`",
)];

#[derive(Serialize)]
#[serde(transparent)]
struct Schema(serde_json::Value);

impl Render for Schema {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &self.0)?;
        writeln!(out)
    }
}

#[derive(Serialize)]
struct List {
    schemas: Vec<Entry>,
}

#[derive(Serialize)]
struct Entry {
    name: &'static str,
    about: &'static str,
}

impl Render for List {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        for e in &self.schemas {
            writeln!(out, "{:<8} {}", e.name, e.about)?;
        }
        Ok(())
    }
}

pub fn run(
    args: &SchemaArgs,
    _: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    match args.name.as_deref() {
        None => printer.emit(&List {
            schemas: SCHEMAS
                .iter()
                .map(|(name, about)| Entry { name, about })
                .collect(),
        })?,
        // The schema is JSON whatever `--json` says.
        Some("change") => printer.emit_as(&Schema(kapi_core::change::schema::change()), true)?,
        Some(other) => {
            return Err(kapi_host::HostError::Usage {
                message: format!("no schema `{other}`"),
                hint: Some(format!(
                    "choose one of: {}",
                    SCHEMAS
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
            .into());
        }
    }
    Ok(Outcome::Success)
}
