//! `kapi context PATH` / `kapi context --profile NAME`: the brief for a location.
//! Markdown by default, `kapi.context/v1` with `--json`. Exits 0, 1 on a bad project or path.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::context::{ContextAnswer, ContextRequest, context};

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// The brief for a location: the voice, the terms to use and avoid, what governs it
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// A file or folder in the project
    #[arg(value_name = "PATH", required_unless_present = "profile")]
    pub path: Option<PathBuf>,
    /// Brief a profile declared in `kapi.yaml` instead of a path
    #[arg(long, value_name = "NAME", conflicts_with = "path")]
    pub profile: Option<String>,
    /// The language whose terms to list [default: the point's source language]
    #[arg(short, long, value_name = "LANG")]
    pub locale: Option<String>,
    /// Most terms listed in each group
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub limit: usize,
}

pub fn run(
    args: &ContextArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let request = ContextRequest {
        path: args.path.clone(),
        profile: args.profile.clone(),
        locale: args.locale.clone(),
        limit: Some(args.limit),
    };
    let answer = context(app, &request)?;
    printer.emit(&answer)?;
    Ok(Outcome::Success)
}

impl Render for ContextAnswer {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.markdown().as_bytes())
    }
}
