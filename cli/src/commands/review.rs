//! `kapi review`: the drafts awaiting a person's review (targets a tool or an agent wrote,
//! per the store's record, that no person decided at their current rev), or with `--block`
//! one of them in full: who wrote it, when, and the text it replaced. `--accept` and
//! `--reject` (with `--block`) are a person's verdict, sent as a change set through the change
//! service like every write: a decision (outcome establish), or the replaced text written back.
//! The review service MCP's `review_queue` and `review_block` call too; where the tools default
//! to the project's first target language, the verb covers every language unless `--lang`
//! names one. Exits 0; 1 when the project or the document cannot be read; 2 on bad flags, a bad
//! `--since`, or a `--reject` of what is no draft; 3 when the verdict is refused (an actor who
//! is not a person, a stale rev, the commit check).

use clap::Args;
use kapi_host::services::review::{
    AtParam, Queue, QueueRequest, ReviewItem, Verdict, queue, review_block, verdict,
};

use crate::exit::Outcome;
use crate::printer::{Printer, Rendered};

/// The drafts awaiting a person's review, or one in full; accept or reject one
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Only this source document (project-relative); with `--block`, the block's document
    #[arg(long, value_name = "DOC")]
    pub doc: Option<String>,
    /// Only this target language; with `--block`, the edition to show
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Only drafts this actor wrote: `kind:name` (`tool:pseudo`), a kind (`tool`, `agent`) or a name
    #[arg(long, value_name = "ACTOR", conflicts_with = "block")]
    pub actor: Option<String>,
    /// Only drafts written at or after this time: a date (`2026-12-01`, midnight UTC) or RFC 3339
    #[arg(long, value_name = "TIME", conflicts_with = "block")]
    pub since: Option<String>,
    /// Every target edition no person decided, not only drafts (human translations too)
    #[arg(long, conflicts_with = "block")]
    pub all: bool,
    /// Most items listed [default: 50]; `total` counts them all
    #[arg(long, value_name = "N", conflicts_with = "block")]
    pub limit: Option<usize>,
    /// Show this block in full: source and target text, who wrote it, when, the text it
    /// replaced, findings, decisions and advice
    #[arg(long, value_name = "KEY", requires_all = ["doc", "lang"])]
    pub block: Option<String>,
    /// With `--block`: one plural/select branch (`count:one`)
    #[arg(long, value_name = "BRANCH", requires = "block")]
    pub branch: Option<String>,
    /// With `--block`: accept the draft (a person's decision, outcome establish, at its rev)
    #[arg(long, requires = "block", conflicts_with = "reject")]
    pub accept: bool,
    /// With `--block`: reject the draft, writing back the text it replaced
    #[arg(long, requires = "block")]
    pub reject: bool,
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
            let chosen = match (args.accept, args.reject) {
                (true, _) => Some(Verdict::Accept),
                (_, true) => Some(Verdict::Reject),
                _ => None,
            };
            match chosen {
                Some(v) => {
                    let set = verdict(app, &at, v)?;
                    return super::apply::land(set, false, app, printer);
                }
                None => printer.emit(&Rendered(&review_block(app, &at)?, ReviewItem::text))?,
            }
        }
        (_, doc, lang) => {
            let request = QueueRequest {
                doc: doc.clone(),
                lang: lang.clone(),
                limit: args.limit,
                all: args.all,
                actor: args.actor.clone(),
                since: args.since.clone(),
            };
            printer.emit(&Rendered(&queue(app, &request)?, Queue::text))?;
        }
    }
    Ok(Outcome::Success)
}
