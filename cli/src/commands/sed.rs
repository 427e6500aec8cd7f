//! `kapi sed` (`ksed`): `s/FROM/TO/FLAGS` over the prose of blocks, compiled into a
//! `kapi.change/v1` change set of `replace_text` operations guarded by each block's rev.
//! `--print-ops` prints the set (for `kapi apply`); without it the set goes through the change
//! service as `kapi apply` sends it, so a substitution that would drop a placeholder or break
//! a term rule is refused like any other edit; `-n` prints the diff and writes nothing.
//! Exits as `kapi apply`: 0 applied, unchanged or nothing matched, 3 refused, 2 a bad script
//! or flags, 1 on I/O.

use std::path::PathBuf;

use clap::Args;
use kapi_host::toolbox::sed::{SedRequest, compile};

use super::apply::Decoded;
use crate::exit::Outcome;
use crate::printer::Printer;

/// Substitute in the prose of blocks, through the change service
#[derive(Debug, Args)]
pub struct SedArgs {
    /// The substitution: `s/FROM/TO/` with flags `g` (every match in a block), `i`, or N
    #[arg(value_name = "SCRIPT")]
    pub script: String,
    /// Files to edit [default: every file the project's collections declare]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Edit every file a named folder holds
    #[arg(short = 'r', short_alias = 'R', long)]
    pub recursive: bool,
    /// Print the change set the substitution compiles to, and change nothing
    #[arg(long)]
    pub print_ops: bool,
    /// A dry run: print a unified diff per file and write nothing (not sed's "no print")
    #[arg(short = 'n', long, conflicts_with = "print_ops")]
    pub dry_run: bool,
    /// Accepted for sed's sake and changes nothing: ksed always edits in place
    #[arg(short = 'i', long = "in-place", hide = true)]
    pub in_place: bool,
    /// Accepted for sed's sake and changes nothing: FROM is always an extended expression
    #[arg(short = 'E', hide = true)]
    pub extended: bool,
}

pub fn run(args: &SedArgs, app: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let compiled = compile(
        app,
        &SedRequest {
            script: args.script.clone(),
            paths: args.paths.clone(),
            recursive: args.recursive,
        },
    )?;
    for skipped in &compiled.skipped {
        printer.note(&format!(
            "left alone in {} {}: `{}`: {}",
            skipped.at.doc, skipped.at.block, skipped.matched, skipped.why
        ));
    }
    if compiled.skipped_count > compiled.skipped.len() {
        printer.note(&format!(
            "and {} more matches left alone",
            compiled.skipped_count - compiled.skipped.len()
        ));
    }
    if args.print_ops {
        printer.emit(&Decoded(compiled.set))?;
        return Ok(Outcome::Success);
    }
    if compiled.set.operations.is_empty() {
        let files = format!(
            "{} file{}",
            compiled.searched,
            if compiled.searched == 1 { "" } else { "s" }
        );
        printer.note(&if compiled.skipped_count > 0 {
            format!(
                "nothing to change: every match in the prose of {files} was left alone ({})",
                compiled.skipped_count
            )
        } else {
            format!("nothing to change: no match in the prose of {files}")
        });
        return Ok(Outcome::Success);
    }
    super::apply::land(compiled.set, args.dry_run, app, printer)
}
