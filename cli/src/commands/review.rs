//! `kapi review`: the target editions awaiting a person's review (each catalog and target
//! language, the blocks whose translation exists and no person decided at its current rev),
//! or with `--block` one of them in full. The review service MCP's `review_queue` and
//! `review_block` call too; where the tools default to the project's first target language,
//! the verb covers every language unless `--lang` names one. Exits 0, 1 when the project or
//! the document cannot be read, 2 on bad flags.

use clap::Args;
use kapi_host::services::review::{AtParam, Queue, ReviewItem, queue, review_block};

use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

/// The translations awaiting a person's review, or one in full
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Only this source document (project-relative); with `--block`, the block's document
    #[arg(long, value_name = "DOC")]
    pub doc: Option<String>,
    /// Only this target language; with `--block`, the edition to show
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Most items listed [default: 50]; `total` counts them all
    #[arg(long, value_name = "N", conflicts_with = "block")]
    pub limit: Option<usize>,
    /// Show this block in full: source and target text, findings, decisions and advice
    #[arg(long, value_name = "KEY", requires_all = ["doc", "lang"])]
    pub block: Option<String>,
    /// With `--block`: one plural/select branch (`count:one`)
    #[arg(long, value_name = "BRANCH", requires = "block")]
    pub branch: Option<String>,
}

pub fn run(
    args: &ReviewArgs,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    // clap requires `--doc` and `--lang` with `--block`.
    match (&args.block, &args.doc, &args.lang) {
        (Some(block), Some(doc), Some(lang)) => {
            let at = AtParam {
                doc: doc.clone(),
                block: block.clone(),
                edition: lang.clone(),
                branch: args.branch.clone(),
            };
            printer.emit(&Rendered(&review_block(app, &at)?, ReviewItem::text))?;
        }
        (_, doc, lang) => {
            let queue = queue(app, doc.as_deref(), lang.as_deref(), args.limit)?;
            printer.emit(&Rendered(&queue, Queue::text))?;
        }
    }
    Ok(Outcome::Success)
}
