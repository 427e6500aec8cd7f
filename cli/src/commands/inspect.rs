//! `kapi inspect`: the blocks of a file as an agent reads them (`kapi.blocks/v1`), and
//! `--verify`: whether writing a file back without an edit gives the bytes read.
//! Exits 0; `--verify` exits 3 when a file would change, 1 when one cannot be read.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::inspect::{
    Blocks, InspectRequest, Part, Record, Verified, inspect, inspect_each, verify,
};
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
    let editions = crate::input::editions(args.editions.as_deref());
    let request = InspectRequest {
        path: app.resolve(app.project()?.as_ref(), path)?,
        editions,
        limit: args.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        cursor: args.cursor.clone(),
        format: args.format.clone(),
    };
    if request.limit.is_none() && request.cursor.is_none() {
        return run_whole(app, &request, args.jsonl && !printer.json, printer);
    }
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

/// A whole document, printed a record at a time as it is read ([`inspect_each`]): the same
/// text, JSON or JSON lines a held answer prints, without holding the document.
fn run_whole(
    app: &kapi_host::App,
    request: &InspectRequest,
    jsonl: bool,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let (json, style) = (printer.json, printer.style);
    let mut read = Ok(());
    printer.stream(|out| {
        let mut written = Ok(());
        let (mut columns, mut records, mut tail) = ((3, 0), 0usize, String::new());
        read = inspect_each(app, request, &mut |part| {
            if written.is_err() {
                return;
            }
            written = match part {
                Part::Outline(outline) => {
                    columns = columns_of(outline.key_width, outline.label_width);
                    if jsonl {
                        Ok(())
                    } else if json {
                        // The answer as a held one serializes, its blocks written in between.
                        let head = serde_json::to_string(&outline.head).map_err(io::Error::from);
                        head.and_then(|head| {
                            let (before, after) = head
                                .split_once("\"blocks\":[]")
                                .ok_or_else(|| io::Error::other("blocks/v1 without blocks"))?;
                            tail = after.to_owned();
                            write!(out, "{before}\"blocks\":[")
                        })
                    } else {
                        let head = &outline.head;
                        write_head(out, style, head, head.total)
                    }
                }
                Part::Record(record) => {
                    records += 1;
                    if jsonl {
                        serde_json::to_writer(&mut *out, &record)
                            .map_err(io::Error::from)
                            .and_then(|()| writeln!(out))
                    } else if json {
                        let comma = if records > 1 { "," } else { "" };
                        write!(out, "{comma}").and_then(|()| {
                            serde_json::to_writer(&mut *out, &record).map_err(io::Error::from)
                        })
                    } else {
                        render_record(out, &style, &record, columns.0, columns.1)
                    }
                }
            };
        });
        if json && !jsonl && read.is_ok() {
            written = written.and_then(|()| writeln!(out, "]{tail}"));
        }
        written
    })?;
    read?;
    Ok(Outcome::Success)
}

/// The text view's key and label columns for the widest key and label: a key column of 3 to
/// 40 characters, and a label column (up to 40) only when some block has a label.
fn columns_of(key_width: usize, label_width: usize) -> (usize, usize) {
    (key_width.clamp(3, 40), label_width.min(40))
}

/// The text view's first line: the document, its format and how many blocks (of `total`)
/// are shown.
fn write_head(out: &mut dyn Write, style: Style, head: &Blocks, shown: usize) -> io::Result<()> {
    let total = head.total;
    writeln!(
        out,
        "{}",
        style.bold(&format!(
            "{} · {} · {} block{}{}",
            head.doc,
            head.format,
            total,
            if total == 1 { "" } else { "s" },
            if shown < total {
                format!(", {shown} shown")
            } else {
                String::new()
            }
        ))
    )
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
        write_head(out, *style, self, self.blocks.len())?;
        // Readable labels beside structural keys (Markdown), in a column of their own.
        let (width, labels) = columns_of(
            self.blocks
                .iter()
                .map(|b| b.at.block.chars().count())
                .max()
                .unwrap_or(3),
            self.blocks
                .iter()
                .filter_map(|b| b.label.as_deref())
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0),
        );
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
