//! `kapi check --text FILE|-`: a draft checked before it is saved, bound where it will be
//! (`--context-path`) or to a profile (`--profile`); `--only voice|terms` narrows it to one
//! analyzer. The same services as MCP's `check_text`, `voice_check` and `term-check`, so the
//! JSON is the tool's structured result byte for byte.
//!
//! Up to 10,000 findings are listed, the rest counted (MCP holds 1,000); the whole report's
//! notes go to stderr, an `--only` report's are part of it (stdout), printed as MCP's text or
//! as JSON, `--format` winning over `--json` (`--format github|sarif` takes the whole report
//! only). Exits 0 when
//! the gate holds, 3 when it does not, 1 when the input or project cannot be read (or `--as`
//! names no format), 2 on bad flags (a destination and a profile together).

use std::path::Path;

use kapi_host::HostError;
use kapi_host::services::check_text::check_text;
use kapi_host::services::term_check::{TermCheck, term_check};
use kapi_host::services::text_scope::TextRequest;
use kapi_host::services::voice_check::{VoiceCheck, voice_check};

use super::check::{CheckArgs, FormatArg, OnlyArg, emit_report, gated};
use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

pub fn run(
    args: &CheckArgs,
    input: &Path,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    if args.only.is_some()
        && matches!(
            args.format,
            Some(FormatArg::Github | FormatArg::Sarif | FormatArg::Line)
        )
    {
        return Err(HostError::Usage {
            message:
                "`--only` prints text or JSON: `--format github|sarif|line` takes the whole report"
                    .into(),
            hint: Some("drop `--only`, or use `--format json`".into()),
        }
        .into());
    }
    if args.lang.is_some() && args.only != Some(OnlyArg::Terms) {
        return Err(HostError::Usage {
            message: "`--lang` chooses the terms of `--only terms`".into(),
            hint: Some("add `--only terms`".into()),
        }
        .into());
    }
    let request = TextRequest {
        text: crate::input::text(input, app)?,
        format: args.read_as.clone(),
        context_path: args.context_path.clone(),
        profile: args.profile.clone(),
        lang: args.lang.clone(),
        fail_on: args.fail_on.map(Into::into),
        min_score: args.min_score,
        ship: args.ship,
        hold: None,
        cancel: None,
        no_suppress: args.no_suppress,
    };
    // As for the whole report: `--format` wins over `--json`.
    let json = match args.format {
        Some(FormatArg::Json) => true,
        Some(_) => false,
        None => printer.json,
    };
    match args.only {
        None => {
            let checked = check_text(app, request)?;
            for note in &checked.notes {
                printer.note(note);
            }
            emit_report(&checked.report, args.format, printer)
        }
        Some(OnlyArg::Voice) => {
            let report = voice_check(app, request)?;
            printer.emit_as(&Rendered(&report, VoiceCheck::render), json)?;
            gated(report.pass, &[held("voice")], printer)
        }
        Some(OnlyArg::Terms) => {
            let report = term_check(app, request)?;
            printer.emit_as(&Rendered(&report, TermCheck::render), json)?;
            gated(report.pass, &[held("terms")], printer)
        }
    }
}

/// Why an `--only` report did not pass: the service counts it, the recipe may set the minimum.
fn held(analyzer: &str) -> String {
    format!("a {analyzer} finding at the gate's severity, or a score below its minimum")
}
