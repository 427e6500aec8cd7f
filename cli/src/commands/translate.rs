//! `kapi translate PATH… --to LANG` and `kapi up`: the missing and stale translations filled
//! by a provider and landed through the change service as `tool:<provider>`
//! (`kapi.translate/v1`). Exits 0 when every block to do landed (or a dry run), 3 when the
//! change service refused some (the rest landed), 1 when a provider failed some or the budget
//! stopped the run, 2 on bad flags or an unknown provider.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use clap::Args;
use kapi_core::change::GateMode;
use kapi_host::translate::{TranslateRequest, Translation, translate};

use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

/// Fill missing and stale translations with a provider
#[derive(Debug, Args)]
pub struct TranslateArgs {
    /// Source documents (catalogs a collection declares with a `target` template)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub how: HowArgs,
}

/// Fill every declared catalog's missing and stale translations with a provider
#[derive(Debug, Args)]
pub struct UpArgs {
    #[command(flatten)]
    pub how: HowArgs,
}

#[derive(Debug, Args)]
pub struct HowArgs {
    /// Target languages, `fr,de` [default: each catalog's]
    #[arg(long, value_name = "LANGS", value_delimiter = ',')]
    pub to: Vec<String>,
    /// The provider's name in kapi.yaml (`pseudo` is built in) [default: the only one]
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// List what would be sent (blocks, characters, estimated tokens); write and send nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Most requests to send, retries included
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_requests: Option<u64>,
    /// `report`: an introduced finding is reported and lands (a tool's choice); default `enforce`
    #[arg(long, value_name = "GATE", value_parser = ["enforce", "report"], default_value = "enforce")]
    pub gate: String,
    /// Also replace a translation a person may have written: one equal to its source, or whose placeholders differ (never a draft; `pseudo` never in a real language)
    #[arg(long)]
    pub force: bool,
}

pub fn run_translate(
    args: &TranslateArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    run(args.paths.clone(), &args.how, app, printer)
}

pub fn run_up(
    args: &UpArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    run(Vec::new(), &args.how, app, printer)
}

fn run(
    docs: Vec<String>,
    how: &HowArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let request = TranslateRequest {
        docs,
        langs: how
            .to
            .iter()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
        default_langs: Vec::new(),
        provider: how.provider.clone(),
        dry_run: how.dry_run,
        max_requests: how
            .max_requests
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        gate: if how.gate == "report" {
            GateMode::Report
        } else {
            GateMode::Enforce
        },
        backoff: Duration::from_millis(500),
        force: how.force,
        pseudo: false,
    };
    let bar = !printer.quiet && !printer.json && io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if bar {
            let _ = write!(io::stderr().lock(), "\rtranslating {done}/{total} blocks");
        }
    };
    // No hold while requests run: Ctrl-C ends the run at once (the files written so far are
    // whole). The service holds a stop off while the answers land.
    let result = translate(app, &request, &progress)?;
    if bar {
        let _ = writeln!(io::stderr().lock());
    }
    printer.emit(&Rendered(&result, Translation::text))?;
    if app.stop.asked() {
        return Ok(Outcome::Interrupted);
    }
    let skipped = |refused: bool| {
        result.documents.iter().flat_map(|d| &d.skipped).any(|s| {
            let failed = s.status == "failed" || s.status == "not_sent";
            failed != refused
        })
    };
    Ok(
        if skipped(false) || result.budget_spent || !result.errors.is_empty() {
            Outcome::Error
        } else if skipped(true) {
            Outcome::GateNotMet
        } else {
            Outcome::Success
        },
    )
}
