//! `kapi cat` (`kcat`): the readable prose of each block with its ref (`kapi.cat/v1`). Exits
//! 0; 1 when a file cannot be read, 2 on bad flags or a folder without `-r`.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::toolbox::cat::{Cat, CatRequest, cat};

use super::toolbox::one_line;
use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Print the prose of each block with its ref
#[derive(Debug, Args)]
pub struct CatArgs {
    /// Files to print [default: every file the project's collections declare]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Print every file a named folder holds
    #[arg(short = 'r', short_alias = 'R', long)]
    pub recursive: bool,
    /// Target editions to print under each block: `fr,de`, or `*` for every one
    #[arg(long, value_name = "LANGS")]
    pub editions: Option<String>,
}

pub fn run(args: &CatArgs, app: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let request = CatRequest {
        paths: args.paths.clone(),
        recursive: args.recursive,
        editions: crate::input::editions(args.editions.as_deref()),
    };
    printer.emit(&cat(app, &request)?)?;
    Ok(Outcome::Success)
}

impl Render for Cat {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        for file in &self.files {
            let width = file
                .blocks
                .iter()
                .map(|b| b.at.block.chars().count())
                .max()
                .unwrap_or(0)
                .min(40);
            let place_of = |line: Option<usize>| match line {
                Some(line) => format!("{}:{line}", file.doc),
                None => file.doc.clone(),
            };
            let places = file
                .blocks
                .iter()
                .map(|b| place_of(b.line).chars().count())
                .max()
                .unwrap_or(0);
            for block in &file.blocks {
                let mut place = place_of(block.line);
                place.push_str(&" ".repeat(places.saturating_sub(place.chars().count())));
                let key = &block.at.block;
                let pad = " ".repeat(width.saturating_sub(key.chars().count()));
                writeln!(
                    out,
                    "{}  {}{pad}  {}",
                    style.dim(&place),
                    style.paint("36", key),
                    one_line(&block.text)
                )?;
                for (lang, text) in &block.editions {
                    let text = match text {
                        Some(text) => one_line(text),
                        None => style.dim("(missing)"),
                    };
                    let indent = " ".repeat(place.chars().count() + 2);
                    let pad = " ".repeat(width.saturating_sub(lang.chars().count()));
                    writeln!(out, "{indent}{}{pad}  {text}", style.paint("33", lang))?;
                }
            }
        }
        Ok(())
    }
}
