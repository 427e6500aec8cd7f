//! `kapi rewrite [FILE|-]`: swaps each forbidden, competitor or deprecated term in a text for
//! the project's replacement, cased like the words it replaces, and each `terms.case` variant
//! for the name as written; never rephrases, leaves code alone, and leaves what the check sets
//! apart (directives, exceptions, the recipe's `rules:`). The voice-rewrite service MCP's
//! `voice_rewrite` calls too. Stdout is the rewritten
//! text alone, so it pipes; what was swapped and left goes to stderr. With `--json`, one
//! `kapi.voice-rewrite/v1` document. Exits 0, 1 when the input or project cannot be read (or
//! `--as` names no format), 2 on bad flags (a destination and a profile together).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use kapi_host::services::text_scope::TextRequest;
use kapi_host::services::voice_rewrite::{Rewrite, voice_rewrite};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// Swap discouraged terms in a text for the project's replacements
#[derive(Debug, Args)]
pub struct RewriteArgs {
    /// The text: a file, or `-` (the default) for standard input
    #[arg(value_name = "FILE", default_value = "-")]
    pub input: PathBuf,
    /// Where it will be saved, project-relative (binds the terms there; never read) [default: FILE's own path, when FILE is in the project]
    #[arg(long, value_name = "PATH")]
    pub context_path: Option<String>,
    /// A profile from `kapi.yaml`, for a snippet with no destination
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// The format id to read it with [default: the destination's, else markdown]
    #[arg(long = "as", value_name = "FORMAT")]
    pub read_as: Option<String>,
}

pub fn run(
    args: &RewriteArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    // A project file rewritten by name is held to what governs it where it is, as the check
    // holds it: its own path is the destination unless one (or a profile) is named.
    let own_path = match (&args.context_path, &args.profile) {
        (None, None) if args.input.as_os_str() != "-" => app
            .project()
            .ok()
            .flatten()
            .and_then(|project| app.resolve(Some(&project), &args.input).ok())
            .and_then(|path| path.rel().map(str::to_owned)),
        _ => None,
    };
    let request = TextRequest {
        text: crate::input::text(&args.input, app)?,
        format: args.read_as.clone(),
        context_path: args.context_path.clone().or(own_path),
        profile: args.profile.clone(),
        ..Default::default()
    };
    let rewrite = voice_rewrite(app, request)?;
    printer.emit(&Rewritten(&rewrite))?;
    if !printer.json {
        printer.note(rewrite.render_changes().trim_end());
    }
    Ok(Outcome::Success)
}

/// The report: `kapi.voice-rewrite/v1` as JSON; as text, the rewritten text alone.
#[derive(Serialize)]
#[serde(transparent)]
struct Rewritten<'a>(&'a Rewrite);

impl Render for Rewritten<'_> {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.0.text.as_bytes())
    }
}
