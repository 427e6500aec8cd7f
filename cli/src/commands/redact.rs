//! `kapi redact [FILE|-]`: masks personal data and secrets (emails, phone numbers, API keys and
//! tokens) as `[redacted:KIND]`, through the redact service MCP's `redact` tool calls too.
//! Stdout is the masked text alone, so it pipes; what was masked goes to stderr. With
//! `--json`, one `kapi.redact/v1` document. Exits 0, 1 when the input cannot be read (or is
//! not UTF-8), 2 on bad flags.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::services::redact::{Redacted, redact};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

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
    let text = crate::input::text(&args.input, app)?;
    let redacted = redact(&text);
    let summary = summary(&redacted);
    printer.emit(&Masked(redacted))?;
    if !printer.json {
        printer.note(&summary);
    }
    Ok(Outcome::Success)
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
