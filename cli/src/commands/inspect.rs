//! `kapi inspect`: the blocks of a file as an agent reads them (`kapi.blocks/v1`), and
//! `--verify`: whether writing a file back without an edit gives the bytes read.
//! Exits 0; `--verify` exits 3 when a file would change, 1 when one cannot be read.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::document::Editions;
use kapi_host::inspect::{Blocks, InspectRequest, Record, Verified, inspect, verify};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Show a file's blocks as an assistant reads them, or verify it round-trips
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The file to read (with `--verify`: one or more files)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// Target editions to show beside the source: `fr,de`, or `*` for every one
    #[arg(long, value_name = "LANGS")]
    pub editions: Option<String>,
    /// Most blocks to show; the answer's `next` continues
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Continue from a previous answer's `next`
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
    /// One JSON record per line instead of the text view (`--json` prints one document)
    #[arg(long)]
    pub jsonl: bool,
    /// Read with this format instead of the one the extension names (see `kapi formats`)
    #[arg(long = "as", value_name = "FORMAT")]
    pub format: Option<String>,
    /// Read each file, write it back in memory, and report whether the bytes are identical
    #[arg(long, conflicts_with_all = ["editions", "limit", "cursor", "jsonl"])]
    pub verify: bool,
}

pub fn run(
    args: &InspectArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    if args.verify {
        return run_verify(args, app, printer);
    }
    let [path] = args.paths.as_slice() else {
        return Err(kapi_host::HostError::Usage {
            message: "inspect reads one file at a time".into(),
            hint: Some("run it once per file, or use `--verify` to check several".into()),
        }
        .into());
    };
    let editions = match args.editions.as_deref().map(str::trim) {
        None | Some("") => Editions::Source,
        Some("*") => Editions::All,
        Some(list) => Editions::Some(
            list.split(',')
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty() && l != "source")
                .collect(),
        ),
    };
    let request = InspectRequest {
        path: path.clone(),
        editions,
        limit: args.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        cursor: args.cursor.clone(),
        format: args.format.clone(),
    };
    let blocks = inspect(app, &request)?;
    if args.jsonl && !printer.json {
        let mut lines = String::new();
        for record in &blocks.blocks {
            lines.push_str(&serde_json::to_string(record)?);
            lines.push('\n');
        }
        printer.raw(&lines)?;
    } else {
        printer.emit(&blocks)?;
    }
    Ok(Outcome::Success)
}

/// `kapi.verify/v1`.
#[derive(Debug, Serialize)]
struct Verification {
    schema: &'static str,
    files: Vec<Verified>,
}

fn run_verify(
    args: &InspectArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let files = verify(app, &args.paths, args.format.as_deref());
    let outcome = if files.iter().any(|f| f.status == "unreadable") {
        Outcome::Error
    } else if files.iter().any(|f| f.status == "differs") {
        Outcome::GateNotMet
    } else {
        Outcome::Success
    };
    printer.emit(&Verification {
        schema: "kapi.verify/v1",
        files,
    })?;
    Ok(outcome)
}

impl Render for Verification {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        for file in &self.files {
            let format = file.format.unwrap_or("?");
            match file.status {
                "identical" => writeln!(
                    out,
                    "{}  {}  {} · {} bytes written back identical",
                    style.paint("32", "ok  "),
                    file.path,
                    format,
                    file.bytes.unwrap_or(0)
                )?,
                "differs" => {
                    writeln!(
                        out,
                        "{}  {}  {} · first difference at byte {}",
                        style.paint("31", "DIFF"),
                        file.path,
                        format,
                        file.offset.unwrap_or(0)
                    )?;
                    writeln!(out, "      read:  {:?}", file.read.as_deref().unwrap_or(""))?;
                    writeln!(
                        out,
                        "      wrote: {:?}",
                        file.wrote.as_deref().unwrap_or("")
                    )?;
                }
                _ => writeln!(
                    out,
                    "{}  {}: {}",
                    style.paint("31", "FAIL"),
                    file.path,
                    file.error.as_deref().unwrap_or("cannot be read")
                )?,
            }
            for hint in &file.hints {
                writeln!(out, "      {}", style.dim(&format!("hint: {hint}")))?;
            }
        }
        let identical = self
            .files
            .iter()
            .filter(|f| f.status == "identical")
            .count();
        writeln!(
            out,
            "{identical} of {} files round-trip byte for byte",
            self.files.len()
        )
    }
}

impl Render for Blocks {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        let shown = self.blocks.len();
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{} · {} · {} block{}{}",
                self.doc,
                self.format,
                self.total,
                if self.total == 1 { "" } else { "s" },
                if shown < self.total {
                    format!(", {shown} shown")
                } else {
                    String::new()
                }
            ))
        )?;
        let width = self
            .blocks
            .iter()
            .map(|b| b.at.block.chars().count())
            .max()
            .unwrap_or(3)
            .clamp(3, 40);
        // Readable labels beside structural keys (Markdown), in a column of their own.
        let labels = self
            .blocks
            .iter()
            .filter_map(|b| b.label.as_deref())
            .map(|l| l.chars().count())
            .max()
            .map_or(0, |w| w.min(40));
        for record in &self.blocks {
            render_record(out, style, record, width, labels)?;
        }
        if let Some(next) = &self.next {
            writeln!(
                out,
                "{}",
                style.dim(&format!("more: kapi inspect {} --cursor {next}", self.doc))
            )?;
        }
        Ok(())
    }
}

fn role_label(record: &Record) -> String {
    let role = record.role.as_str();
    if record.level > 0 {
        format!("{role} {}", record.level)
    } else {
        role.to_owned()
    }
}

fn one_line(text: &str) -> String {
    text.replace("\r\n", "↵").replace(['\n', '\r'], "↵")
}

/// One block: key, label (when some block has one, `labels` wide), role and text, then its
/// branches and editions indented under the text.
fn render_record(
    out: &mut dyn Write,
    style: &Style,
    record: &Record,
    key_width: usize,
    labels: usize,
) -> io::Result<()> {
    let key = &record.at.block;
    let pad = key_width.saturating_sub(key.chars().count());
    let text = if record.translatable {
        one_line(&record.text)
    } else {
        style.dim(&one_line(&record.text))
    };
    let label = if labels == 0 {
        String::new()
    } else {
        let label = record.label.as_deref().unwrap_or("");
        let pad = labels.saturating_sub(label.chars().count());
        format!("  {}{}", style.dim(label), " ".repeat(pad))
    };
    writeln!(
        out,
        "{key}{}{label}  {:<12}  {text}",
        " ".repeat(pad),
        role_label(record)
    )?;
    let width = if labels == 0 {
        key_width
    } else {
        key_width + 2 + labels
    };
    for branch in &record.branches {
        writeln!(
            out,
            "{}  {:<12}  {}",
            " ".repeat(width),
            style.dim(&branch.path),
            one_line(&branch.text)
        )?;
    }
    if record.accepts.is_empty()
        && let Some(why) = &record.why
    {
        writeln!(
            out,
            "{}  {}",
            " ".repeat(width),
            style.dim(&format!("read-only: {why}"))
        )?;
    }
    for (lang, edition) in &record.editions {
        let shown = match &edition.text {
            Some(text) => one_line(text),
            None => style.dim(&format!(
                "(missing: {})",
                edition.why.as_deref().unwrap_or("no text")
            )),
        };
        let state = edition
            .state
            .as_deref()
            .map(|s| style.dim(&format!(" [{s}]")))
            .unwrap_or_default();
        writeln!(
            out,
            "{}  {:<12}  {shown}{state}",
            " ".repeat(width),
            style.paint("36", lang)
        )?;
        for branch in &edition.branches {
            writeln!(
                out,
                "{}  {:<12}  {}",
                " ".repeat(width),
                style.dim(&format!("{lang} {}", branch.path)),
                one_line(&branch.text)
            )?;
        }
    }
    Ok(())
}
