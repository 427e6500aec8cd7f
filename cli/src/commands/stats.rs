//! `kapi stats [DOC]`: translation progress per catalog and target language (blocks total,
//! translated, missing, stale); `--plan` lists the missing and stale keys to work on. The
//! translation service MCP's `stats` and `up_plan` call too. Exits 0, 1 when the project
//! cannot be read, 2 on bad flags.

use clap::Args;
use kapi_host::services::translation::{Stats, UpPlan, stats, up_plan};

use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

/// Translation progress per catalog and target language
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Only this source document (project-relative) [default: every catalog with a `target`]
    #[arg(value_name = "DOC")]
    pub doc: Option<String>,
    /// List the missing and stale keys of each target file instead (`kapi.up-plan/v1`)
    #[arg(long)]
    pub plan: bool,
    /// With `--plan`: only this target language [default: every one]
    #[arg(long, value_name = "LANG", requires = "plan")]
    pub lang: Option<String>,
}

pub fn run(
    args: &StatsArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    if args.plan {
        let plan = up_plan(app, args.doc.as_deref(), args.lang.as_deref())?;
        printer.emit(&Rendered(&plan, UpPlan::text))?;
    } else {
        printer.emit(&Rendered(&stats(app, args.doc.as_deref())?, Stats::text))?;
    }
    Ok(Outcome::Success)
}
