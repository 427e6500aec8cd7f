//! `kapi grep` (`kgrep`): a pattern searched in the prose of blocks across formats
//! (`kapi.grep/v1`). Exits as grep does: 0 a match, 1 none, 2 trouble (bad pattern or flags,
//! a folder without `-r`, a file that cannot be read — the others are still searched).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::toolbox::grep::{Grep, GrepRequest, Matching, grep};

use super::toolbox::trouble;
use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Search the prose of blocks across formats
#[derive(Debug, Args)]
pub struct GrepArgs {
    /// A regular expression (Rust `regex` syntax), or a fixed string with `-F`
    #[arg(value_name = "PATTERN")]
    pub pattern: String,
    /// Files to search [default: every file the project's collections declare]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Search every file a named folder holds
    #[arg(short = 'r', short_alias = 'R', long)]
    pub recursive: bool,
    /// Ignore case
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Match whole words only
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// The pattern is a fixed string, not a regular expression
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Print only the names of files with a match
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,
    /// Search these target editions too: `fr,de`, or `*` for every one
    #[arg(long, value_name = "LANGS")]
    pub editions: Option<String>,
}

pub fn run(
    args: &GrepArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    let request = GrepRequest {
        pattern: args.pattern.clone(),
        matching: Matching {
            fixed: args.fixed_strings,
            ignore_case: args.ignore_case,
            word: args.word_regexp,
        },
        paths: args.paths.clone(),
        recursive: args.recursive,
        editions: crate::input::editions(args.editions.as_deref()),
    };
    let found = match grep(app, &request) {
        Ok(found) => found,
        Err(e) => return Ok(trouble(e.into(), printer)),
    };
    if args.files_with_matches && !printer.json {
        let mut names = String::new();
        for file in &found.files {
            names.push_str(file);
            names.push('\n');
        }
        printer.raw(&names)?;
    } else {
        printer.emit(&found)?;
    }
    if found.count > found.matches.len() && !args.files_with_matches {
        printer.note(&format!(
            "{} matches; the first {} are listed",
            found.count,
            found.matches.len()
        ));
    }
    for error in &found.errors {
        printer.note(&format!("kapi grep: {}: {}", error.doc, error.error));
    }
    Ok(if !found.errors.is_empty() {
        Outcome::Usage
    } else if found.count == 0 {
        Outcome::Error
    } else {
        Outcome::Success
    })
}

impl Render for Grep {
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()> {
        for m in &self.matches {
            let doc = m.file.as_deref().unwrap_or(&m.at.doc);
            let place = match (m.line, m.column) {
                (Some(line), Some(column)) => format!("{doc}:{line}:{column}"),
                _ => doc.to_owned(),
            };
            let edition = if m.at.edition == "source" {
                String::new()
            } else {
                format!(" [{}]", m.at.edition)
            };
            let (before, hit, after) = match (
                m.text.get(..m.span.start),
                m.text.get(m.span.clone()),
                m.text.get(m.span.end..),
            ) {
                (Some(b), Some(h), Some(a)) => (b, h, a),
                _ => (m.text.as_str(), "", ""),
            };
            writeln!(
                out,
                "{}: {}{edition}: {before}{}{after}",
                style.paint("35", &place),
                style.paint("36", &m.at.block),
                style.paint("31;1", hit)
            )?;
        }
        Ok(())
    }
}
