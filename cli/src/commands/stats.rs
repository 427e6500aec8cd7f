//! `kapi stats [PATH…]`: for each file, whether it reads, its format, and per edition (source
//! and each target language) its blocks, words, characters, inline codes and switches, with
//! each target's translated, missing and stale blocks; sums per format and language
//! (`kapi.stats/v1`, the service MCP's `stats` calls). `--plan` lists the missing and stale
//! keys to work on instead (`kapi.up-plan/v1`, MCP's `up_plan`). Exits 0; 1 when a file does
//! not read (after printing the whole report) or the project cannot be read; 2 on bad flags.

use std::path::PathBuf;

use clap::Args;
use kapi_host::services::stats::{Report, stats};
use kapi_host::services::translation::{UpPlan, up_plan};

use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

/// Per file: whether it reads, blocks, words, codes, and translation progress
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Files or folders to count (folders walked as `kapi check` walks them) [default: every
    /// file the collections declare]; with `--plan`, the one source document to plan
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
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
        let doc = match args.paths.as_slice() {
            [] => None,
            [doc] => Some(doc.to_string_lossy().into_owned()),
            _ => {
                return Err(kapi_host::HostError::Usage {
                    message: "`--plan` plans one source document at a time".into(),
                    hint: Some("name one catalog, or none to plan every one".into()),
                }
                .into());
            }
        };
        let plan = up_plan(app, doc.as_deref(), args.lang.as_deref())?;
        printer.emit(&Rendered(&plan, UpPlan::text))?;
        return Ok(Outcome::Success);
    }
    let project = app.project()?;
    let paths = args
        .paths
        .iter()
        .map(|path| app.resolve(project.as_ref(), path))
        .collect::<Result<Vec<_>, _>>()?;
    let report = stats(app, project.as_ref(), &paths)?;
    printer.emit(&Rendered(&report, Report::text))?;
    Ok(if report.errors.is_empty() {
        Outcome::Success
    } else {
        Outcome::Error
    })
}
