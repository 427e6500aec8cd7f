//! `kapi check`: run the analyzers over files and apply the project's gate (`--text`: over a
//! text no file holds yet, [`super::check_text`]). Exits 0 when the gate holds, 3 when it
//! does not, 1 on an unreadable file or project. Text findings are printed while the check
//! runs, each as soon as no file still to check can sort before it (the `--json` order).

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use kapi_core::check::{CheckReport, FailOn, Finding};
use kapi_core::governance::Severity;
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
    /// Check every file: never reuse the findings of a file unchanged since its last check
    #[arg(long)]
    pub no_cache: bool,
    /// Report what `kapi-disable` comments, term exceptions and the recipe's `rules:` allow as findings
    #[arg(long)]
    pub no_suppress: bool,
    /// Output format [default: text, or json with `--json`]; text prints findings while files are checked, by path
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
    /// Check a draft no file holds yet: a file holding it, or `-` for standard input
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["paths", "diff_against"])]
    pub text: Option<PathBuf>,
    /// With `--text`: where it will be saved, project-relative (binds the voice and terms there; never read)
    #[arg(long, value_name = "PATH", requires = "text")]
    pub context_path: Option<String>,
    /// With `--text`: a profile from `kapi.yaml`, for a snippet with no destination
    #[arg(long, value_name = "NAME", requires = "text")]
    pub profile: Option<String>,
    /// With `--text`: the format id to read it with [default: the destination's, else markdown]
    #[arg(long = "as", value_name = "FORMAT", requires = "text")]
    pub read_as: Option<String>,
    /// With `--text`: one analyzer's findings alone (`voice`, or `terms` with every term found)
    #[arg(long, value_enum, value_name = "ANALYZER", requires = "text")]
    pub only: Option<OnlyArg>,
    /// With `--only terms`: the language whose terms apply [default: the source language]
    #[arg(long, value_name = "LANG", requires = "only")]
    pub lang: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnlyArg {
    /// The voice's findings (`kapi.voice-check/v1`)
    Voice,
    /// The terms' findings and every term found (`kapi.term-check/v1`)
    Terms,
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
    /// `path:line:col:rule:message` per finding, as Vale's `--output=line`
    Line,
}

pub fn run(
    args: &CheckArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    if let Some(input) = &args.text {
        return super::check_text::run(args, input, app, printer);
    }
    let request = CheckRequest {
        paths: args.paths.clone(),
        fail_on: args.fail_on.map(Into::into),
        min_score: args.min_score,
        ship: args.ship,
        diff_against: args.diff_against.clone(),
        cancel: None,
        resolved: Vec::new(),
        no_cache: args.no_cache,
        no_suppress: args.no_suppress,
    };
    let format = args.format.unwrap_or(if printer.json {
        FormatArg::Json
    } else {
        FormatArg::Text
    });
    // Text findings are printed as their files finish (in the report's order).
    let watch = Watch {
        bar: Bar::new(!printer.quiet && io::stderr().is_terminal()),
        live: (format == FormatArg::Text).then(|| printer.live()),
    };
    let run = check(app, &request, &watch);
    watch.bar.finish();
    let printed = watch.live.map(crate::printer::Live::finish).transpose();
    let run = run?;
    printed?;
    for note in &run.notes {
        printer.note(note);
    }
    match run.streamed {
        Some(shown) if format == FormatArg::Text => {
            let report = &run.report;
            let style = printer.style;
            printer.stream(|out| render_after(report, out, &style, Shown::First(shown)))?;
            gated(report.pass, &report.gate.failed, printer)
        }
        _ => emit_report(&run.report, Some(format), printer),
    }
}

/// Prints a `kapi.check/v1` report in the format asked for and exits by its gate (the JSON
/// error envelope on stderr when it fails under `--json`).
pub(crate) fn emit_report(
    report: &CheckReport,
    format: Option<FormatArg>,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let format = format.unwrap_or(if printer.json {
        FormatArg::Json
    } else {
        FormatArg::Text
    });
    match format {
        FormatArg::Text => printer.emit_as(report, false)?,
        FormatArg::Json => printer.emit_as(report, true)?,
        FormatArg::Github => printer.raw(&kapi_core::check::render::github::render(report))?,
        FormatArg::Line => printer.raw(&kapi_core::check::render::line::render(report))?,
        FormatArg::Sarif => {
            let mut text =
                serde_json::to_string_pretty(&kapi_core::check::render::sarif::render(report))?;
            text.push('\n');
            printer.raw(&text)?;
        }
    }
    gated(report.pass, &report.gate.failed, printer)
}

/// Exit 0 when a check passed; else 3, with the JSON error envelope on stderr under `--json`.
pub(crate) fn gated(pass: bool, failed: &[String], printer: &Printer) -> anyhow::Result<Outcome> {
    if pass {
        return Ok(Outcome::Success);
    }
    if printer.json {
        let reason = failed.join("; ");
        let envelope =
            serde_json::json!({"error": format!("gate not met: {reason}"), "code": "gate"});
        let _ = writeln!(io::stderr().lock(), "{envelope}");
    }
    Ok(Outcome::GateNotMet)
}

impl Render for CheckReport {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        for f in &self.findings {
            finding_line(out, f, style)?;
        }
        render_after(self, out, style, Shown::Held)
    }
}

/// One finding's text line: `Finding::line`, painted (the same words as every other text
/// output).
fn finding_line(out: &mut dyn Write, f: &Finding, style: &Style) -> io::Result<()> {
    let severity = match f.severity {
        Severity::Critical => style.paint("31;1", "critical"),
        Severity::Major => style.paint("31", "major"),
        Severity::Minor => style.paint("33", "minor"),
        Severity::Info => style.paint("36", "info"),
    };
    writeln!(
        out,
        "{} {severity} {} {}",
        style.bold(&f.location()),
        style.dim(&f.rule),
        f.advice()
    )
}

/// Which findings the text showed before [`render_after`].
#[derive(Clone, Copy)]
enum Shown {
    /// The report's own (the most severe, past the cap).
    Held,
    /// The first this many, in report order, printed as their files finished.
    First(usize),
}

/// The text after a report's findings: stale translations, what was not shown, coverage,
/// the cache's use and the summary line.
fn render_after(
    report: &CheckReport,
    out: &mut dyn Write,
    style: &Style,
    shown: Shown,
) -> io::Result<()> {
    for stale in &report.stale {
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
    let hidden = match shown {
        Shown::Held => report.truncated,
        Shown::First(n) => report.summary.findings.saturating_sub(n),
    };
    if hidden > 0 {
        let which = match shown {
            Shown::Held => format!(
                "a report holds {} (the most severe first)",
                report.findings.len()
            ),
            Shown::First(n) => format!(
                "the text shows the first {n} by path (`--json` holds the {} most severe)",
                report.findings.len()
            ),
        };
        writeln!(
            out,
            "{}",
            style.dim(&format!(
                "{hidden} more findings are counted but not shown: {which}"
            ))
        )?;
    }
    if !report.coverage.unassessed.is_empty() {
        let items: Vec<String> = report
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
    let suppressed = report.summary.suppressed;
    if suppressed > 0 {
        let noun = if suppressed == 1 {
            "finding"
        } else {
            "findings"
        };
        writeln!(
            out,
            "{}",
            style.dim(&format!(
                "{suppressed} {noun} suppressed where the project allows them (kapi-disable comments, term exceptions, the recipe's `rules:`): `--json` lists each, `--no-suppress` reports them"
            ))
        )?;
    }
    if let Some(cache) = report.cache.filter(|c| c.reused > 0) {
        writeln!(
            out,
            "{}",
            style.dim(&format!(
                "{} of {} files unchanged since their last check: their findings come from the cache (--no-cache checks every file)",
                cache.reused,
                cache.reused + cache.checked
            ))
        )?;
    }
    let s = &report.summary;
    let files = if report.target.files == 1 {
        "1 file".to_owned()
    } else {
        format!("{} files", report.target.files)
    };
    let findings = if s.findings == 1 {
        "1 finding".to_owned()
    } else {
        format!("{} findings", s.findings)
    };
    let suppressed = match s.suppressed {
        0 => String::new(),
        n => format!(", {n} suppressed"),
    };
    let verdict = if report.pass {
        style.paint("32", "gate passed")
    } else {
        style.paint(
            "31;1",
            &format!("gate not met ({})", report.gate.failed.join("; ")),
        )
    };
    writeln!(
        out,
        "{files}, {findings} ({} critical, {} major, {} minor){suppressed}, score {}: {verdict}",
        s.critical, s.major, s.minor, s.score
    )
}

/// What a check reports to while it runs: the progress bar, and the text findings printed as
/// their files finish.
struct Watch {
    bar: Bar,
    live: Option<crate::printer::Live>,
}

impl Progress for Watch {
    fn update(&self, done: usize, total: usize) {
        self.bar.update(done, total);
    }

    fn streams(&self) -> bool {
        self.live.is_some()
    }

    fn findings(&self, findings: &[Finding]) {
        let Some(live) = &self.live else { return };
        // The bar steps aside while lines are printed, and comes back after.
        self.bar.suspend(|| {
            live.write(|out, style| {
                for f in findings {
                    finding_line(out, f, style)?;
                }
                Ok(())
            });
        });
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

    /// Runs `print` with the bar off the screen.
    fn suspend(&self, print: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
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
