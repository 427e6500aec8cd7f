//! `kapi check`: run the analyzers over files and apply the project's gate.
//! Exits 0 when the gate holds, 3 when it does not, 1 on an unreadable file or project.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use kapi_core::check::{CheckReport, FailOn};
use kapi_host::check::{CheckRequest, Progress, check};

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Check prose against the project's terms, voice and hygiene rules
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders to check [default: every file the collections declare]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Lowest severity that fails the gate [default: the recipe's `gates.fail_on`, else major]
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOnArg>,
    /// Lowest score that passes [default: the recipe's `gates.min_score`, else none]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub min_score: Option<u32>,
    /// Apply the project's ship gate (`gates.ship` in `kapi.yaml`)
    #[arg(long)]
    pub ship: bool,
    /// Check only the blocks changed since this git revision (whole blocks)
    #[arg(long, value_name = "REV")]
    pub diff_against: Option<String>,
    /// Output format [default: text, or json with `--json`]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Critical,
    Major,
    Minor,
    None,
}

impl From<FailOnArg> for FailOn {
    fn from(arg: FailOnArg) -> Self {
        match arg {
            FailOnArg::Critical => FailOn::Critical,
            FailOnArg::Major => FailOn::Major,
            FailOnArg::Minor => FailOn::Minor,
            FailOnArg::None => FailOn::None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// `path:line:col severity rule message` lines and a summary
    Text,
    /// The `kapi.check/v1` report
    Json,
    /// GitHub Actions workflow annotations
    Github,
    /// SARIF 2.1.0 for code scanning
    Sarif,
}

pub fn run(
    args: &CheckArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let request = CheckRequest {
        paths: args.paths.clone(),
        fail_on: args.fail_on.map(Into::into),
        min_score: args.min_score,
        ship: args.ship,
        diff_against: args.diff_against.clone(),
        cancel: None,
    };
    let bar = Bar::new(!printer.quiet && io::stderr().is_terminal());
    let run = check(app, &request, &bar);
    bar.finish();
    let run = run?;
    for note in &run.notes {
        printer.note(note);
    }
    let report = run.report;
    let format = args.format.unwrap_or(if printer.json {
        FormatArg::Json
    } else {
        FormatArg::Text
    });
    match format {
        FormatArg::Text => printer.emit_as(&report, false)?,
        FormatArg::Json => printer.emit_as(&report, true)?,
        FormatArg::Github => printer.raw(&kapi_core::check::github::render(&report))?,
        FormatArg::Sarif => {
            let mut text = serde_json::to_string_pretty(&kapi_core::check::sarif::render(&report))?;
            text.push('\n');
            printer.raw(&text)?;
        }
    }
    if report.pass {
        return Ok(Outcome::Success);
    }
    if printer.json {
        let reason = report.gate.failed.join("; ");
        let envelope =
            serde_json::json!({"error": format!("gate not met: {reason}"), "code": "gate"});
        let _ = writeln!(io::stderr().lock(), "{envelope}");
    }
    Ok(Outcome::GateNotMet)
}

impl Render for CheckReport {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        for f in &self.findings {
            let location = if f.line == 0 {
                match &f.block {
                    Some(block) => format!("{} [{block}]", f.path),
                    None => f.path.clone(),
                }
            } else {
                format!("{}:{}:{}", f.path, f.line, f.column)
            };
            let severity = match f.severity {
                kapi_core::governance::Severity::Critical => style.paint("31;1", "critical"),
                kapi_core::governance::Severity::Major => style.paint("31", "major"),
                kapi_core::governance::Severity::Minor => style.paint("33", "minor"),
                kapi_core::governance::Severity::Info => style.paint("36", "info"),
            };
            let mut message = f.message.clone();
            if let Some(s) = &f.suggestion {
                message.push_str(&format!("; use `{s}`"));
            }
            writeln!(
                out,
                "{} {severity} {} {message}",
                style.bold(&location),
                style.dim(&f.rule)
            )?;
        }
        for stale in &self.stale {
            writeln!(
                out,
                "{} {} {}",
                style.bold(&format!("{} [{}]", stale.path, stale.block)),
                style.paint("36", "note"),
                format_args!(
                    "changed; {} (stale translation, not a failure)",
                    stale.message
                )
            )?;
        }
        if self.truncated > 0 {
            writeln!(
                out,
                "{}",
                style.dim(&format!(
                    "{} more findings are counted but not shown: a report holds {} (the most severe first)",
                    self.truncated,
                    self.findings.len()
                ))
            )?;
        }
        if !self.coverage.unassessed.is_empty() {
            let items: Vec<String> = self
                .coverage
                .unassessed
                .iter()
                .map(|u| format!("{} ({})", u.guidance, u.value))
                .collect();
            writeln!(
                out,
                "{}",
                style.dim(&format!(
                    "not assessed (no analyzer checks these): {}",
                    items.join(", ")
                ))
            )?;
        }
        let s = &self.summary;
        let files = if self.target.files == 1 {
            "1 file".to_owned()
        } else {
            format!("{} files", self.target.files)
        };
        let findings = if s.findings == 1 {
            "1 finding".to_owned()
        } else {
            format!("{} findings", s.findings)
        };
        let verdict = if self.pass {
            style.paint("32", "gate passed")
        } else {
            style.paint(
                "31;1",
                &format!("gate not met ({})", self.gate.failed.join("; ")),
            )
        };
        writeln!(
            out,
            "{files}, {findings} ({} critical, {} major, {} minor), score {}: {verdict}",
            s.critical, s.major, s.minor, s.score
        )
    }
}

/// A progress bar on stderr, shown only once a check has taken more than a moment.
struct Bar {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
}

impl Bar {
    fn new(enabled: bool) -> Self {
        let bar = enabled.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::hidden(),
            );
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed}")
            {
                bar.set_style(style);
            }
            bar
        });
        Bar {
            bar,
            start: Instant::now(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn update(&self, done: usize, total: usize) {
        let Some(bar) = &self.bar else { return };
        if bar.is_hidden() && self.start.elapsed() > Duration::from_millis(300) && done < total {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    }
}
