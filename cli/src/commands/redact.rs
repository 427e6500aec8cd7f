//! `kapi redact [FILE|-]`: masks personal data and secrets (emails, phone numbers, API keys and
//! tokens) as `[redacted:KIND]`, through the redact service MCP's `redact` tool calls too.
//! Stdout is the masked text alone, so it pipes; what was masked goes to stderr. With
//! `--json`, one `kapi.redact/v1` document. Exits 0, 1 when the input cannot be read (or is
//! not UTF-8), 2 on bad flags.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_core::formats::ReadError;
use kapi_host::HostError;
use kapi_host::services::redact::{Redacted, redact};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// The most `kapi redact` reads, as every file read does.
const MAX_BYTES: u64 = 100 * 1024 * 1024;

/// Mask emails, phone numbers, API keys and tokens as `[redacted:KIND]`
#[derive(Debug, Args)]
pub struct RedactArgs {
    /// The text: a file, or `-` (the default) for standard input
    #[arg(value_name = "FILE", default_value = "-")]
    pub input: PathBuf,
}

pub fn run(
    args: &RedactArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let (path, bytes) = read_input(args, app)?;
    let text = ReadError::decode(&bytes).map_err(|source| HostError::Read {
        path: path.clone(),
        source,
    })?;
    let redacted = redact(text);
    let summary = summary(&redacted);
    printer.emit(&Masked(redacted))?;
    if !printer.json {
        printer.note(&summary);
    }
    Ok(Outcome::Success)
}

fn read_input(args: &RedactArgs, app: &kapi_host::App) -> anyhow::Result<(PathBuf, Vec<u8>)> {
    let mut bytes = Vec::new();
    let (path, read) = if args.input.as_os_str() == "-" {
        let path = PathBuf::from("<stdin>");
        let read = io::stdin()
            .lock()
            .take(MAX_BYTES + 1)
            .read_to_end(&mut bytes);
        (path, read)
    } else {
        let file = std::fs::File::open(app.absolute(&args.input)).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                HostError::NoSuchPath {
                    path: args.input.clone(),
                }
            } else {
                HostError::io(&args.input, e)
            }
        })?;
        let read = file.take(MAX_BYTES + 1).read_to_end(&mut bytes);
        (args.input.clone(), read)
    };
    read.map_err(|e| HostError::io(&path, e))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(HostError::TooLarge {
            path,
            size: bytes.len() as u64,
        }
        .into());
    }
    Ok((path, bytes))
}

/// The report: `kapi.redact/v1` as JSON; as text, the masked text alone.
#[derive(Serialize)]
#[serde(transparent)]
struct Masked(Redacted);

impl Render for Masked {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.0.text.as_bytes())
    }
}

/// What was masked, for stderr: `redacted: 1 email, 2 phone`.
fn summary(redacted: &Redacted) -> String {
    match redacted.masked() {
        Some(masked) => format!("redacted: {masked}"),
        None => "nothing to redact".into(),
    }
}
