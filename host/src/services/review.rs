//! The `review` set: the review queue (`review_queue`), one queued block in full
//! (`review_block`), and pre-review through `apply_edits` (served by the writing set).
//!
//! The queue holds drafts: target editions a tool or an agent wrote that no person decided.
//! For each catalog the collections declare with a `target` template, and each target
//! language, a translatable block's target edition is a draft when the store's last recorded
//! write of it (of the whole edition, or of one plural branch) is a tool's or an agent's, the
//! text it wrote is still the text the file holds (a hand edit since makes it a person's
//! again), and no person decided the edition at its current revision. A translation no change
//! set wrote (every human one in a catalog kapi never touched) is no draft. `all` widens the
//! queue to what it was before drafts (every undecided target edition, `scope: undecided`).
//! The store records, with each applied content operation, the text it replaced (`before`):
//! a draft shows it, and rejecting a draft writes it back through the change service as one
//! `set_content` of the person's (a draft that filled an absent or empty target is emptied). Decisions are the lines of `.kapi/decisions.jsonl`
//! (`kapi.decision/v1`, only a person's `decide` writes them); a line with outcome `advise`
//! is a person's comment, not a decision. A decision counts for an edition when it names the
//! edition at its current rev, either by the source ref (`{doc: locales/en.json, edition:
//! fr}`) or by the target file's own ref (`{doc: locales/fr.json, edition: source}`), or
//! when every plural branch of it is decided at its own rev.
//!
//! Advice is an agent's pre-review (`decide` with outcome `advise`), which the store keeps
//! with the change set that carried it; it is read from the recorded change sets
//! (`Store::changes`), because `Store::advice_rows` names neither the document nor the
//! edition. Advice is bound to the rev it was given at: the queue shows only the advice for
//! the current rev, `review_block` shows all of it, each marked `current`.

use std::path::Path;

use kapi_core::model::{Block, Edition, Ref, SOURCE, rev_runs};
use kapi_core::projection::{self, CodeInfo};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::translation::{self, Unreadable};
pub use super::writes::{Writes, Written, still_a_copy, writes, written_before_source_changed};
use super::writes::{current_writes, each_applied};
use crate::app::App;
use crate::document::{self, Editions, Hold, Loaded};
use crate::error::HostError;

use kapi_core::project::layout::DECISIONS_FILE;
/// Items `review_queue` returns when no `limit` is given.
const DEFAULT_LIMIT: usize = 50;

/// An edition as a read names it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtParam {
    /// The source document (project-relative)
    pub doc: String,
    /// The block key
    pub block: String,
    /// The target language (or `source`)
    pub edition: String,
    /// One plural/select branch (`count:one`), when reviewing a branch alone
    pub branch: Option<String>,
}

/// One line of `.kapi/decisions.jsonl`.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Decision {
    pub at: Ref,
    pub rev: String,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
}

impl Decision {
    /// A person's decision (not a comment with outcome `advise`).
    fn decides(&self) -> bool {
        let person = self
            .by
            .as_ref()
            .and_then(|b| b["kind"].as_str())
            .is_none_or(|k| k == "person");
        person && self.outcome != "advise"
    }
}

/// Reads the decisions; lines that do not parse as `kapi.decision/v1` are counted, not kept.
pub fn decisions(root: &Path) -> Result<(Vec<Decision>, usize), HostError> {
    let path = root.join(DECISIONS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(HostError::io(&path, e)),
    };
    let (mut out, mut skipped) = (Vec::new(), 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: Option<serde_json::Value> = serde_json::from_str(line).ok();
        match value
            .filter(|v| v["schema"] == "kapi.decision/v1")
            .and_then(|v| serde_json::from_value::<Decision>(v).ok())
        {
            Some(d) => out.push(d),
            None => skipped += 1,
        }
    }
    Ok((out, skipped))
}

/// An agent's pre-review of one edition revision.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Advice {
    #[serde(skip)]
    pub at: Ref,
    pub score: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The rev the advice was given at.
    pub rev: String,
    /// `kind:name` of who gave it.
    pub by: String,
    pub session: String,
    pub recorded_at: String,
    /// Whether it was given at the edition's current rev (set by `review_block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<bool>,
}

/// The advice the store holds, from the recorded change sets (no store: none).
pub fn advice(root: &Path) -> Result<Vec<Advice>, HostError> {
    let mut out = Vec::new();
    each_applied(root, |row, recorded| {
        let op = &recorded["operation"];
        if op["op"] != "decide" || op["outcome"] != "advise" {
            return;
        }
        let Ok(at) = serde_json::from_value::<Ref>(op["at"].clone()) else {
            return;
        };
        let Some(rev) = recorded["rev"].as_str() else {
            return;
        };
        out.push(Advice {
            at,
            score: op["score"].as_u64().unwrap_or(0),
            reasons: op["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect(),
            rev: rev.to_owned(),
            by: format!("{}:{}", row.actor_kind, row.actor_name),
            session: row.session.clone(),
            recorded_at: row.created_at.clone(),
            current: None,
        });
    })?;
    Ok(out)
}

/// The two refs that name one target edition: by its source document and language, and by
/// the target file's own source edition.
fn names(at: &Ref, target_doc: Option<&str>, candidate: &Ref) -> bool {
    if candidate.block != at.block || candidate.branch != at.branch {
        return false;
    }
    (candidate.doc == at.doc && candidate.edition == at.edition)
        || target_doc.is_some_and(|t| {
            at.edition != SOURCE
                && candidate.doc == t
                && (candidate.edition == SOURCE || candidate.edition == at.edition)
        })
}

/// Whether a person decided `edition` (named by `at`, whole) at its current rev.
fn decided(decisions: &[Decision], at: &Ref, target_doc: Option<&str>, edition: &Edition) -> bool {
    let hit = |at: &Ref, rev: &str| {
        decisions
            .iter()
            .any(|d| d.decides() && d.rev == rev && names(at, target_doc, &d.at))
    };
    if hit(at, &edition.rev()) {
        return true;
    }
    let leaves = edition.leaves();
    !leaves.is_empty()
        && leaves.iter().all(|(path, runs)| {
            let branch = Ref {
                branch: Some(path.clone()),
                ..at.clone()
            };
            hit(&branch, &rev_runs(runs))
        })
}

/// One queued target edition.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Item {
    #[serde(rename = "ref")]
    pub at: Ref,
    /// The target edition's rev (`if_match` for a decide).
    pub rev: String,
    /// The file that holds the target edition.
    pub target_doc: String,
    /// The source text, inline codes as `<x id/>` tags.
    pub source: String,
    /// The target text, the same way.
    pub target: String,
    /// The advice given at `rev`.
    pub advice: Vec<Advice>,
    /// The draft's write: who, when, and the text it replaced (absent for an undecided edition
    /// no change set wrote, which only `all` lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<Written>,
}

/// The draft write of `edition` (named by `at`, whole): the latest of its
/// [`current_writes`], when it is a tool's or an agent's. `None`: a person's work.
fn draft<'w>(
    writes: &'w Writes,
    at: &Ref,
    target_doc: Option<&str>,
    edition: &Edition,
) -> Option<&'w Written> {
    current_writes(writes, at, target_doc, edition)
        .into_iter()
        .max_by_key(|w| w.change)
        .filter(|w| w.drafted())
}

/// What `review_queue` lists: drafts (the default) or every undecided edition (`all`), each
/// filter narrowing it.
#[derive(Debug, Clone, Default)]
pub struct QueueRequest {
    pub doc: Option<String>,
    pub lang: Option<String>,
    pub limit: Option<usize>,
    /// Every target edition no person decided, not only drafts.
    pub all: bool,
    /// Only drafts this actor wrote: `kind:name`, a kind (`tool`, `agent`) or a name.
    pub actor: Option<String>,
    /// Only drafts written at or after this time (RFC 3339, or a date: midnight UTC).
    pub since: Option<String>,
}

/// Whether `w` was written by `actor` (`kind:name`, a kind, or a name).
fn by_actor(w: &Written, actor: &str) -> bool {
    let actor = actor.trim();
    match actor.split_once(':') {
        Some(_) => w.by == actor,
        None => w.kind == actor || w.by.split_once(':').is_some_and(|(_, n)| n == actor),
    }
}

/// `--since` read as a time: RFC 3339, or a date (its midnight, UTC).
fn parse_since(since: &str) -> Result<jiff::Timestamp, HostError> {
    let text = since.trim();
    text.parse::<jiff::Timestamp>()
        .or_else(|_| {
            text.parse::<jiff::civil::Date>()
                .map_err(|e| e.to_string())
                .and_then(|d| {
                    format!("{d}T00:00:00Z")
                        .parse::<jiff::Timestamp>()
                        .map_err(|e| e.to_string())
                })
        })
        .map_err(|_| HostError::Usage {
            message: format!("`{since}` is not a time kapi reads for `since`"),
            hint: Some(
                "give a date (`2026-12-01`) or an RFC 3339 time (`2026-12-01T09:30:00Z`)".into(),
            ),
        })
}

/// `kapi.review-queue/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Queue {
    pub schema: &'static str,
    /// `drafts` (what a tool or an agent wrote and no person decided) or `undecided` (`all`:
    /// every target edition no person decided).
    pub scope: &'static str,
    /// Editions awaiting review (all of them, before `limit`).
    pub total: usize,
    pub items: Vec<Item>,
    /// Whether `limit` left some out.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Unreadable>,
    /// Lines of `.kapi/decisions.jsonl` that did not parse.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_decisions: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `review_queue` answer.
pub fn queue(app: &App, request: &QueueRequest) -> Result<Queue, HostError> {
    let since = request.since.as_deref().map(parse_since).transpose()?;
    // A bilingual file `doc` names (a PO or XLIFF file holding its own targets) is read on
    // its own; any other `doc` must be a catalog's source.
    let named = match request.doc.as_deref() {
        Some(d) => bilingual(app, d)?,
        None => None,
    };
    let mut catalogs = match named {
        Some(_) => translation::Catalogs {
            project: app.require_project()?,
            loaded: Vec::new(),
            errors: Vec::new(),
            remark: None,
            writes: Writes::new(Vec::new()),
        },
        None => translation::catalogs(app, request.doc.as_deref(), request.lang.as_deref())?,
    };
    let root = catalogs.project.root.clone();
    let (decisions, skipped) = decisions(&root)?;
    let advice = advice(&root)?;
    let writes = Writes::new(writes(&root)?);
    let mut list = Listing {
        request,
        since,
        decisions: &decisions,
        advice: &advice,
        writes: &writes,
        limit: request.limit.unwrap_or(DEFAULT_LIMIT).max(1),
        items: Vec::new(),
        total: 0,
    };
    for loaded in &catalogs.loaded {
        for target in loaded.targets.iter().filter(|t| t.parsed.is_some()) {
            list.file(loaded, &target.lang, &target.doc, Some(&target.doc));
        }
    }
    // Bilingual files: the one `doc` names, else each one the store recorded a target write
    // in (no catalog's source or translation file), so a tool's PO or XLIFF draft is listed.
    let covered: std::collections::BTreeSet<&str> = catalogs
        .loaded
        .iter()
        .flat_map(|l| {
            std::iter::once(l.doc.as_str()).chain(l.targets.iter().map(|t| t.doc.as_str()))
        })
        .collect();
    let others: Vec<Loaded> = match named {
        Some(loaded) => vec![loaded],
        None if request.doc.is_some() => Vec::new(),
        None => {
            let docs: std::collections::BTreeSet<&str> = writes
                .all
                .iter()
                .filter(|w| w.named.edition != SOURCE && !covered.contains(w.named.doc.as_str()))
                .map(|w| w.named.doc.as_str())
                .collect();
            let mut out = Vec::new();
            for doc in docs {
                match bilingual(app, doc) {
                    Ok(Some(loaded)) => out.push(loaded),
                    // Gone since, or no longer bilingual: nothing of it to review.
                    Ok(None) => {}
                    Err(e) => catalogs.errors.push(Unreadable {
                        doc: doc.to_owned(),
                        error: e.to_string(),
                    }),
                }
            }
            out
        }
    };
    for loaded in &others {
        let mut langs: Vec<&String> = loaded
            .parsed
            .document
            .blocks
            .iter()
            .flat_map(|b| b.targets.keys())
            .collect();
        langs.sort();
        langs.dedup();
        for lang in langs {
            if request.lang.as_deref().is_none_or(|l| l == lang) {
                list.file(loaded, lang, &loaded.doc, None);
            }
        }
    }
    let Listing { items, total, .. } = list;
    if !items.is_empty() && catalogs.loaded.is_empty() {
        // The bilingual files listed: no remark about catalogs is due.
        catalogs.remark = None;
    }
    Ok(Queue {
        schema: "kapi.review-queue/v1",
        scope: if request.all { "undecided" } else { "drafts" },
        truncated: total > items.len(),
        total,
        items,
        errors: catalogs.errors,
        skipped_decisions: skipped,
        remark: catalogs.remark,
    })
}

/// `doc` read whole when it is a bilingual file in the project (its targets its own), else
/// `None` (a catalog's source a `target` template names, a file that does not exist, or
/// another format).
fn bilingual(app: &App, doc: &str) -> Result<Option<Loaded>, HostError> {
    let project = app.require_project()?;
    let path = app.resolve_target(crate::app::Base::Project, Some(&project), Path::new(doc))?;
    let collections = kapi_core::project::collections::Collections::new(&project.recipe)?;
    let templated = path
        .rel()
        .and_then(|rel| collections.matches(rel))
        .is_some_and(|m| m.target.is_some());
    if templated || !path.exists() {
        return Ok(None);
    }
    let loaded =
        document::load_resolved(app, Some(&project), &path, &Editions::All, None, Hold::All)?;
    Ok(loaded
        .format
        .info()
        .capabilities
        .bilingual
        .then_some(loaded))
}

/// The queue being listed: what it is filtered by, and what it holds so far.
struct Listing<'a> {
    request: &'a QueueRequest,
    since: Option<jiff::Timestamp>,
    decisions: &'a [Decision],
    advice: &'a [Advice],
    writes: &'a Writes,
    limit: usize,
    items: Vec<Item>,
    total: usize,
}

impl Listing<'_> {
    /// Whether an edition with the draft write `w` (`None`: no draft) is listed.
    fn wanted(&self, w: Option<&Written>) -> bool {
        let request = self.request;
        match w {
            None => request.all && request.actor.is_none() && self.since.is_none(),
            Some(w) => {
                request.actor.as_deref().is_none_or(|a| by_actor(w, a))
                    && self
                        .since
                        .is_none_or(|t| w.at.parse::<jiff::Timestamp>().is_ok_and(|at| at >= t))
            }
        }
    }

    /// Lists the `lang` editions of `loaded`'s blocks, held in `target_doc` (`other`: that
    /// file when it is not `loaded` itself, so the edition's own ref names it too).
    fn file(&mut self, loaded: &Loaded, lang: &str, target_doc: &str, other: Option<&str>) {
        for block in loaded
            .parsed
            .document
            .blocks
            .iter()
            .filter(|b| translation::translatable(b))
        {
            let Some(edition) = block.targets.get(lang) else {
                continue;
            };
            let at = Ref {
                doc: loaded.doc.clone(),
                block: block.key.clone(),
                edition: lang.to_owned(),
                branch: None,
            };
            if decided(self.decisions, &at, other, edition) {
                continue;
            }
            let written = draft(self.writes, &at, other, edition);
            if !self.wanted(written) {
                continue;
            }
            self.total += 1;
            if self.items.len() >= self.limit {
                continue;
            }
            let rev = edition.rev();
            self.items.push(Item {
                advice: self
                    .advice
                    .iter()
                    .filter(|a| a.rev == rev && names(&at, other, &a.at))
                    .cloned()
                    .collect(),
                at,
                rev,
                target_doc: target_doc.to_owned(),
                source: projection::render(&block.source.runs).0,
                target: projection::render(&edition.runs).0,
                written: written.cloned(),
            });
        }
    }
}

impl Queue {
    pub fn text(&self) -> String {
        let mut out = match &self.remark {
            Some(r) => format!("{r}\n"),
            None => String::new(),
        };
        out.push_str(&format!(
            "{} {} await a person's review{}",
            self.total,
            if self.scope == "drafts" {
                "draft(s) a tool or an agent wrote"
            } else {
                "undecided target edition(s)"
            },
            if self.truncated {
                format!(" (showing {})", self.items.len())
            } else {
                String::new()
            }
        ));
        out.push_str(if self.items.is_empty() { ".\n" } else { ":\n" });
        for i in &self.items {
            let advice: Vec<String> = i
                .advice
                .iter()
                .map(|a| format!("{} by {}", a.score, a.by))
                .collect();
            out.push_str(&format!(
                "- {} {} [{}] {}: {:?} → {:?}{}{}\n",
                i.at.doc,
                i.at.block,
                i.at.edition,
                i.rev,
                i.source,
                i.target,
                i.written
                    .as_ref()
                    .map(|w| format!(" (by {} at {})", w.by, w.at))
                    .unwrap_or_default(),
                if advice.is_empty() {
                    String::new()
                } else {
                    format!(" (advice {})", advice.join(", "))
                }
            ));
        }
        for e in &self.errors {
            out.push_str(&format!("{}: unreadable: {}\n", e.doc, e.error));
        }
        out
    }
}

/// One edition's text as a reviewer reads it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Text {
    pub text: String,
    pub rev: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<CodeInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// A placeholder problem between the source and the target.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Finding {
    pub rule: String,
    pub message: String,
}

/// `kapi.review-item/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ReviewItem {
    pub schema: &'static str,
    #[serde(rename = "ref")]
    pub at: Ref,
    /// The reviewed edition's (or branch's) rev: `if_match` for a decide.
    pub rev: String,
    /// The file that holds the edition.
    pub target_doc: String,
    pub source: Text,
    /// `null` when the source edition itself is reviewed.
    pub target: Option<Text>,
    /// Placeholders the target loses or invents.
    pub findings: Vec<Finding>,
    /// Whether a person decided this edition at its current rev.
    pub decided: bool,
    /// Every decision recorded for the edition, each with `current`.
    pub decisions: Vec<CurrentDecision>,
    /// Every advice recorded for the edition, each with `current`.
    pub advice: Vec<Advice>,
    /// The store's latest write of the text there now: who, when, and the text it replaced
    /// (absent when no change set wrote it: a hand edit, or a file kapi never changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<Written>,
    /// Whether it is a draft: a tool or an agent wrote it and no person decided it.
    pub draft: bool,
    /// Every tool's or agent's write still there (one per plural branch it wrote alone), each
    /// of which `--reject` undoes (a decided one too); empty when the text is a person's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drafts: Vec<Written>,
    pub accepts: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    pub hint: String,
}

fn text_of(runs: &[kapi_core::model::Run], rev: String, state: Option<String>) -> Text {
    let (text, codes) = projection::render(runs);
    Text {
        text,
        rev,
        codes,
        state,
    }
}

/// The runs and rev of `edition`, or of its branch `branch`.
fn part<'e>(
    edition: &'e Edition,
    branch: Option<&str>,
    doc: &str,
    key: &str,
) -> Result<(&'e [kapi_core::model::Run], String), HostError> {
    match branch {
        None => Ok((&edition.runs, edition.rev())),
        Some(path) => match edition.branch(path) {
            Some(runs) => Ok((runs, rev_runs(runs))),
            None => {
                let known: Vec<String> = edition.leaves().into_iter().map(|(p, _)| p).collect();
                Err(HostError::Usage {
                    message: format!("`{doc}` block `{key}` has no branch `{path}`"),
                    hint: Some(if known.is_empty() {
                        "the block has no plural or select branches: leave `branch` out".into()
                    } else {
                        format!("its branches: {}", known.join(", "))
                    }),
                })
            }
        },
    }
}

/// The `review_block` answer.
pub fn review_block(app: &App, at: &AtParam) -> Result<ReviewItem, HostError> {
    let project = app.require_project()?;
    let path = app.resolve_in(&project, Path::new(&at.doc))?;
    let editions = if at.edition == SOURCE {
        Editions::Source
    } else {
        Editions::All
    };
    let loaded = document::load_resolved(app, Some(&project), &path, &editions, None, Hold::All)?;
    let block: &Block =
        loaded
            .parsed
            .document
            .block(&at.block)
            .ok_or_else(|| HostError::Usage {
                message: format!("`{}` has no block `{}`", loaded.doc, at.block),
                hint: Some("`review_queue` or `read_blocks` gives the block keys".into()),
            })?;
    let bilingual = loaded.format.info().capabilities.bilingual;
    let (edition, target_doc) = reviewed_edition(&loaded, block, at)?;
    let (runs, rev) = part(edition, at.branch.as_deref(), &loaded.doc, &at.block)?;
    let (source_runs, source_rev) = if at.edition == SOURCE {
        (runs, rev.clone())
    } else {
        source_part(block, at.branch.as_deref())
    };
    let at_ref = Ref {
        doc: loaded.doc.clone(),
        block: block.key.clone(),
        edition: at.edition.clone(),
        branch: at.branch.clone(),
    };
    let other_doc = (at.edition != SOURCE && !bilingual).then_some(target_doc.as_str());
    let (all_decisions, _) = decisions(&project.root)?;
    let mine: Vec<&Decision> = all_decisions
        .iter()
        .filter(|d| names(&at_ref, other_doc, &d.at))
        .collect();
    let is_decided = match at.branch {
        Some(_) => mine.iter().any(|d| d.decides() && d.rev == rev),
        None => decided(&all_decisions, &at_ref, other_doc, edition),
    };
    let decisions_out = mine.iter().map(|d| with_current(d, &rev)).collect();
    let advice_out: Vec<Advice> = advice(&project.root)?
        .into_iter()
        .filter(|a| names(&at_ref, other_doc, &a.at))
        .map(|mut a| {
            a.current = Some(a.rev == rev);
            a
        })
        .collect();
    let findings = if at.edition == SOURCE {
        Vec::new()
    } else {
        placeholder_findings(block, edition)
    };
    let writes = Writes::new(writes(&project.root)?);
    let written: Vec<Written> = if at.edition == SOURCE {
        Vec::new()
    } else {
        let whole = Ref {
            branch: None,
            ..at_ref.clone()
        };
        current_writes(&writes, &whole, other_doc, edition)
            .into_iter()
            .filter(|w| at.branch.is_none() || w.branch.is_none() || w.branch == at.branch)
            .cloned()
            .collect()
    };
    let drafts: Vec<Written> = written.iter().filter(|w| w.drafted()).cloned().collect();
    let written = written.into_iter().max_by_key(|w| w.change);
    let draft = !is_decided && written.as_ref().is_some_and(Written::drafted);
    let (accepts, why) = accepts(block);
    let at_json = serde_json::to_string(&at_ref).unwrap_or_default();
    let hint = format!(
        "A person decides (outcome establish, reject or withdraw; on the command line `kapi review --doc {} --lang {} --block {} --accept`, or `--reject` to restore the text a draft replaced). An agent may only pre-review: call `apply_edits` with {{\"operations\": [{{\"op\": \"decide\", \"at\": {at_json}, \"if_match\": \"{rev}\", \"outcome\": \"advise\", \"score\": 0-100, \"reasons\": [\"…\"]}}]}}; the advice is bound to this rev.",
        shell_word(&at_ref.doc),
        shell_word(&at_ref.edition),
        shell_word(&at_ref.block)
    );
    let target = (at.edition != SOURCE).then(|| {
        text_of(
            runs,
            rev.clone(),
            edition.state.as_deref().map(str::to_owned),
        )
    });
    Ok(ReviewItem {
        schema: "kapi.review-item/v1",
        at: at_ref,
        rev,
        target_doc,
        source: text_of(source_runs, source_rev, None),
        target,
        findings,
        decided: is_decided,
        decisions: decisions_out,
        advice: advice_out,
        written,
        draft,
        drafts,
        accepts,
        why,
        hint,
    })
}

/// `word` as a shell reads it back: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:@+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// A person's verdict on a draft, as `kapi review --accept|--reject` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A decision, outcome `establish`, at the edition's current rev.
    Accept,
    /// The text each tool's or agent's write still there replaced, written back.
    Reject,
}

/// The change set a person's verdict on the edition `at` names sends (the change service
/// applies it, atomically, as every write): `Accept` a `decide` (outcome `establish`) at its
/// current rev; `Reject` a `set_content` per draft write that restores the text it replaced.
/// Refused for an actor who is not a person; a reject of what is no draft, or of a draft
/// whose replaced text the store lacks, is a usage error naming the way instead.
pub fn verdict(
    app: &App,
    at: &AtParam,
    verdict: Verdict,
) -> Result<kapi_core::change::ChangeSet, HostError> {
    let actor = app.actor();
    if actor.kind == crate::policy::CLAIMED_PERSON {
        let (message, instead) = crate::policy::unknown_sender(&actor);
        return Err(HostError::NotPermitted { message, instead });
    }
    if actor.kind != "person" {
        return Err(HostError::NotPermitted {
            message: format!(
                "`{}:{}` may not decide a translation: accepting or rejecting a draft is a person's",
                actor.kind, actor.name
            ),
            instead: "pre-review it: a `decide` operation with outcome `advise` through `kapi apply` (MCP: apply_edits), and tell the person to run `kapi review`".into(),
        });
    }
    let item = review_block(app, at)?;
    let ops: Vec<serde_json::Value> = match verdict {
        Verdict::Accept => vec![serde_json::json!({
            "op": "decide", "at": item.at, "if_match": item.rev, "outcome": "establish",
        })],
        Verdict::Reject => {
            let what = format!(
                "`{}` block `{}` [{}{}]",
                item.at.doc,
                item.at.block,
                item.at.edition,
                item.at
                    .branch
                    .as_deref()
                    .map(|b| format!(" {b}"))
                    .unwrap_or_default()
            );
            if item.drafts.is_empty() {
                return Err(HostError::Usage {
                    message: format!(
                        "{what} is no draft: no tool or agent wrote the text it holds, so there is nothing to restore"
                    ),
                    hint: Some(
                        "change a person's translation with `kapi apply` (or by hand), or `--accept` it"
                            .into(),
                    ),
                });
            }
            let mut ops = Vec::new();
            for w in &item.drafts {
                let Some(before) = &w.replaced else {
                    return Err(HostError::Usage {
                        message: format!(
                            "{what}: the store did not record the text change {} replaced (it was written before kapi recorded it)",
                            w.change
                        ),
                        hint: Some(
                            "send the text it should hold with `kapi apply` (a `set_content` operation)"
                                .into(),
                        ),
                    });
                };
                ops.push(serde_json::json!({
                    "op": "set_content", "at": w.named, "if_match": w.rev, "content": before,
                }));
            }
            ops
        }
    };
    let set = serde_json::json!({"schema": "kapi.change/v1", "operations": ops});
    kapi_core::change::decode(set.to_string().as_bytes()).map_err(|e| HostError::Internal {
        message: format!("the verdict's change set did not decode: {e}"),
    })
}

/// The edition `at` names in `block`, with the document that holds it: the source, a
/// bilingual file's own edition, or a catalog's translation file's (which must exist and
/// hold the block).
fn reviewed_edition<'b>(
    loaded: &'b Loaded,
    block: &'b Block,
    at: &AtParam,
) -> Result<(&'b Edition, String), HostError> {
    if at.edition == SOURCE {
        return Ok((&block.source, loaded.doc.clone()));
    }
    if loaded.format.info().capabilities.bilingual {
        let e = block
            .targets
            .get(&at.edition)
            .ok_or_else(|| HostError::Usage {
                message: format!(
                    "`{}` block `{}` has no `{}` edition",
                    loaded.doc, at.block, at.edition
                ),
                hint: Some(format!(
                    "its editions: {}",
                    block.targets.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
            })?;
        return Ok((e, loaded.doc.clone()));
    }
    let Some(target) = loaded.targets.iter().find(|t| t.lang == at.edition) else {
        let langs: Vec<&str> = loaded.targets.iter().map(|t| t.lang.as_str()).collect();
        return Err(HostError::Usage {
            message: format!(
                "`{}` is not a target language of `{}`",
                at.edition, loaded.doc
            ),
            hint: Some(if langs.is_empty() {
                "the document's collection item has no `target` template or no target languages"
                    .into()
            } else {
                format!("its target languages: {}", langs.join(", "))
            }),
        });
    };
    let Some(e) = block.targets.get(&at.edition) else {
        return Err(HostError::Usage {
            message: if target.parsed.is_none() {
                format!(
                    "`{}` does not exist yet: there is nothing to review",
                    target.doc
                )
            } else {
                format!(
                    "`{}` has no `{}`: there is nothing to review",
                    target.doc, at.block
                )
            },
            hint: Some("`up_plan` lists what each target language lacks".into()),
        });
    };
    Ok((e, target.doc.clone()))
}

/// The source runs and rev a target edition (or its `branch`) is reviewed against: the
/// source's same branch when it has one, else the whole source.
fn source_part<'b>(
    block: &'b Block,
    branch: Option<&str>,
) -> (&'b [kapi_core::model::Run], String) {
    match branch.and_then(|path| block.source.branch(path)) {
        Some(r) => (r, rev_runs(r)),
        None => (block.source.runs.as_slice(), block.source.rev()),
    }
}

/// A decision as `review_block` shows it: the decision's line, and `current`, whether it
/// was made at the edition's current rev.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CurrentDecision {
    #[serde(flatten)]
    pub decision: Decision,
    pub current: bool,
}

/// `d` as `review_block` shows it at `rev` ([`CurrentDecision`]).
fn with_current(d: &Decision, rev: &str) -> CurrentDecision {
    CurrentDecision {
        decision: d.clone(),
        current: d.rev == rev,
    }
}

/// The placeholder mismatches between a block's source and its target `edition`.
fn placeholder_findings(block: &Block, edition: &Edition) -> Vec<Finding> {
    kapi_core::check::analyzers::placeholders::compare(&block.source, edition)
        .into_iter()
        .map(|m| Finding {
            rule: m.rule.id.to_owned(),
            message: m.message,
        })
        .collect()
}

/// What a block accepts: `decide`, or nothing with why (the file locks it).
fn accepts(block: &Block) -> (Vec<&'static str>, Option<String>) {
    if translation::translatable(block) {
        return (vec!["decide"], None);
    }
    (
        Vec::new(),
        Some(
            block
                .locked
                .clone()
                .unwrap_or_else(|| "the file marks this block as not translatable".into())
                .into(),
        ),
    )
}

impl ReviewItem {
    pub fn text(&self) -> String {
        let mut out = format!(
            "{} {} [{}{}] at {}: {}\nsource: {}\n",
            self.at.doc,
            self.at.block,
            self.at.edition,
            self.at
                .branch
                .as_deref()
                .map(|b| format!(" {b}"))
                .unwrap_or_default(),
            self.rev,
            if self.decided {
                "decided"
            } else if self.draft {
                "a draft awaiting a person's review"
            } else {
                "no person decided it"
            },
            self.source.text
        );
        if let Some(t) = &self.target {
            out.push_str(&format!("target ({}): {}\n", self.target_doc, t.text));
        }
        // The draft writes (a branch each, when they wrote branches alone), else the
        // latest write of a person's text.
        let shown: Vec<&Written> = if self.drafts.is_empty() {
            self.written.iter().collect()
        } else {
            self.drafts.iter().collect()
        };
        for w in shown {
            out.push_str(&format!(
                "written by {} at {} (change {}{})\n",
                w.by,
                w.at,
                w.change,
                w.branch
                    .as_deref()
                    .map(|b| format!(", branch {b}"))
                    .unwrap_or_default()
            ));
            match &w.replaced {
                Some(r) if r.is_empty() => {
                    out.push_str("replaced: nothing (the target was absent or empty)\n")
                }
                Some(r) => out.push_str(&format!("replaced: {r}\n")),
                None => out.push_str("replaced: not recorded\n"),
            }
        }
        for f in &self.findings {
            out.push_str(&format!("finding {}: {}\n", f.rule, f.message));
        }
        for a in self.advice.iter().filter(|a| a.current == Some(true)) {
            out.push_str(&format!(
                "advice {} by {}{}\n",
                a.score,
                a.by,
                if a.reasons.is_empty() {
                    String::new()
                } else {
                    format!(": {}", a.reasons.join("; "))
                }
            ));
        }
        out.push_str(&self.hint);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::translation::tests::{app, shop};

    fn apply(app: &App, ops: serde_json::Value) -> kapi_core::change::result::ChangeResult {
        let set = serde_json::json!({"schema": "kapi.change/v1", "operations": ops});
        let decoded = kapi_core::change::decode(set.to_string().as_bytes()).unwrap();
        crate::apply::apply(
            app,
            &crate::apply::ApplyRequest {
                set: decoded,
                dry_run: false,
            },
        )
        .unwrap()
    }

    /// Every undecided edition (`all`), as the queue was before drafts.
    fn undecided(doc: Option<&str>, lang: Option<&str>, limit: Option<usize>) -> QueueRequest {
        QueueRequest {
            doc: doc.map(str::to_owned),
            lang: lang.map(str::to_owned),
            limit,
            all: true,
            ..QueueRequest::default()
        }
    }

    fn at(block: &str) -> AtParam {
        AtParam {
            doc: "locales/en.json".into(),
            block: block.into(),
            edition: "fr".into(),
            branch: None,
        }
    }

    #[test]
    fn an_actor_filter_takes_a_kind_a_name_or_both_and_since_a_date_or_a_time() {
        let w = Written {
            by: "tool:pseudo".into(),
            at: "2026-12-07T10:00:00Z".into(),
            change: 1,
            branch: None,
            replaced: None,
            kind: "tool".into(),
            rev: "r1".into(),
            source_rev: None,
            named: Ref {
                doc: "en.json".into(),
                block: "a".into(),
                edition: "fr".into(),
                branch: None,
            },
            copied: false,
        };
        assert!(w.drafted());
        for (actor, hit) in [
            ("tool", true),
            ("pseudo", true),
            ("tool:pseudo", true),
            (" tool:pseudo ", true),
            ("agent", false),
            ("agent:pseudo", false),
            ("tool:pseud", false),
        ] {
            assert_eq!(by_actor(&w, actor), hit, "{actor}");
        }
        let day = parse_since("2026-12-07").unwrap();
        assert_eq!(day.to_string(), "2026-12-07T00:00:00Z");
        assert!(parse_since("2026-12-07T09:30:00+02:00").is_ok());
        assert_eq!(shell_word("locales/en.json"), "locales/en.json");
        assert_eq!(shell_word("Open %s"), "'Open %s'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        let e = parse_since("yesterday").err().unwrap();
        assert!(e.to_string().contains("`yesterday` is not a time"), "{e}");
    }

    #[test]
    fn a_locked_block_accepts_nothing_and_says_why() {
        use kapi_core::model::{Role, Run};
        let mut block = Block::new("hello", Role::Paragraph, vec![Run::text("Hello")]);
        assert_eq!(accepts(&block), (vec!["decide"], None));
        block.locked = Some("a brand name".into());
        assert_eq!(
            accepts(&block),
            (Vec::new(), Some("a brand name".to_owned()))
        );
        let (runs, rev) = source_part(&block, None);
        assert_eq!(runs, block.source.runs.as_slice());
        assert_eq!(rev, block.source.rev());
    }

    #[test]
    fn a_decision_shows_whether_it_is_at_the_current_rev() {
        let d = Decision {
            at: Ref {
                doc: "en.json".into(),
                block: "hello".into(),
                edition: "fr".into(),
                branch: None,
            },
            rev: "r1".into(),
            outcome: "establish".into(),
            score: None,
            reasons: Vec::new(),
            by: None,
            decided_at: None,
        };
        let shown = |rev: &str| serde_json::to_value(with_current(&d, rev)).unwrap();
        assert_eq!(shown("r1")["current"], true);
        assert_eq!(shown("r2")["current"], false);
        assert_eq!(shown("r2")["outcome"], "establish");
    }

    #[test]
    fn the_queue_holds_undecided_target_editions_with_their_advice() {
        let dir = shop();
        let root = dir.path();
        let person = app(root, None);
        let q = queue(&person, &undecided(None, None, None)).unwrap();
        // `new` has no French edition; the other three await review.
        let keys: Vec<&str> = q.items.iter().map(|i| i.at.block.as_str()).collect();
        assert_eq!(keys, ["greeting", "bye", "thanks"]);
        assert_eq!(q.total, 3);
        let greeting = &q.items[0];
        assert_eq!(greeting.at.doc, "locales/en.json");
        assert_eq!(greeting.at.edition, "fr");
        assert_eq!(greeting.target_doc, "locales/fr.json");
        assert_eq!(greeting.source, "Hello <x id=\"1/\"/>");
        assert_eq!(greeting.target, "Bonjour <x id=\"1/\"/>");
        assert!(greeting.advice.is_empty());

        // An agent advises on `greeting`; a person establishes `bye`.
        let agent = app(root, Some("agent:claude"));
        let r = apply(
            &agent,
            serde_json::json!([{"op": "decide", "at": greeting.at, "if_match": greeting.rev,
                                "outcome": "advise", "score": 80, "reasons": ["fluent"]}]),
        );
        assert!(!r.refused(), "{r:?}");
        let bye = &q.items[1];
        let r = apply(
            &person,
            serde_json::json!([{"op": "decide", "at": bye.at, "if_match": bye.rev, "outcome": "establish"}]),
        );
        assert!(!r.refused(), "{r:?}");
        let q = queue(
            &person,
            &undecided(Some("locales/en.json"), Some("fr"), None),
        )
        .unwrap();
        let keys: Vec<&str> = q.items.iter().map(|i| i.at.block.as_str()).collect();
        assert_eq!(keys, ["greeting", "thanks"]);
        let advice = &q.items[0].advice;
        assert_eq!(advice.len(), 1);
        assert_eq!(
            (advice[0].score, advice[0].by.as_str()),
            (80, "agent:claude")
        );
        assert_eq!(advice[0].reasons, ["fluent"]);
        assert!(
            q.text().contains("advice 80 by agent:claude"),
            "{}",
            q.text()
        );

        // The limit keeps the total; a changed translation leaves the decision behind.
        let one = queue(&person, &undecided(None, None, Some(1))).unwrap();
        assert_eq!((one.items.len(), one.total, one.truncated), (1, 2, true));
        std::fs::write(
            root.join("locales/fr.json"),
            "{\"greeting\": \"Salut {name}\", \"bye\": \"Au revoir\", \"thanks\": \"Merci\"}",
        )
        .unwrap();
        let q = queue(&person, &undecided(None, None, None)).unwrap();
        let keys: Vec<&str> = q.items.iter().map(|i| i.at.block.as_str()).collect();
        assert_eq!(keys, ["greeting", "bye", "thanks"]);
        assert!(
            q.items[0].advice.is_empty(),
            "advice is bound to the old rev"
        );
    }

    #[test]
    fn a_block_in_full_with_its_decisions_advice_and_findings() {
        let dir = shop();
        let root = dir.path();
        let person = app(root, None);
        let thanks = review_block(&person, &at("thanks")).unwrap();
        assert_eq!(thanks.source.text, "Thanks <x id=\"1/\"/>");
        assert_eq!(
            thanks.target.as_ref().map(|t| t.text.as_str()),
            Some("Merci")
        );
        assert_eq!(thanks.findings.len(), 1, "{:?}", thanks.findings);
        assert!(!thanks.decided && thanks.accepts == ["decide"]);
        assert!(
            thanks.hint.contains("\"outcome\": \"advise\"") && thanks.hint.contains(&thanks.rev)
        );

        let agent = app(root, Some("agent:claude"));
        apply(
            &agent,
            serde_json::json!([{"op": "decide", "at": thanks.at, "if_match": thanks.rev,
                                "outcome": "advise", "score": 20, "reasons": ["lost {name}"]}]),
        );
        apply(
            &person,
            serde_json::json!([{"op": "decide", "at": thanks.at, "if_match": thanks.rev, "outcome": "reject"}]),
        );
        let again = review_block(&person, &at("thanks")).unwrap();
        assert!(again.decided);
        assert_eq!(again.decisions.len(), 1);
        assert_eq!(again.decisions[0].decision.outcome, "reject");
        assert!(again.decisions[0].current);
        assert_eq!(again.advice.len(), 1);
        assert_eq!(again.advice[0].current, Some(true));
        assert!(again.text().contains("decided"));

        // Errors name the fix.
        let e = review_block(&person, &at("nope")).err().unwrap();
        assert!(e.to_string().contains("no block `nope`"), "{e}");
        let e = review_block(&person, &at("new")).err().unwrap();
        assert!(e.to_string().contains("has no `new`"), "{e}");
        let e = review_block(
            &person,
            &AtParam {
                edition: "de".into(),
                ..at("greeting")
            },
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("not a target language"), "{e}");
    }

    #[test]
    fn decisions_by_the_target_files_own_ref_count_and_bad_lines_are_skipped() {
        let dir = shop();
        let root = dir.path();
        let person = app(root, None);
        let greeting = review_block(&person, &at("greeting")).unwrap();
        // The target file read on its own gives the edition the same rev.
        let direct = crate::inspect::inspect(
            &person,
            &crate::inspect::InspectRequest {
                path: person.resolve(None, &root.join("locales/fr.json")).unwrap(),
                editions: Editions::Source,
                limit: None,
                cursor: None,
                format: None,
            },
        )
        .unwrap();
        assert_eq!(direct.blocks[0].rev, greeting.rev);
        let line = serde_json::json!({"schema": "kapi.decision/v1",
            "at": {"doc": "locales/fr.json", "block": "greeting", "edition": "source"},
            "rev": greeting.rev, "outcome": "establish", "by": {"kind": "person", "name": "ana"}});
        std::fs::create_dir_all(root.join(".kapi")).unwrap();
        std::fs::write(
            root.join(DECISIONS_FILE),
            format!("not json\n{line}\n{{\"schema\": \"other\"}}\n"),
        )
        .unwrap();
        let q = queue(&person, &undecided(None, None, None)).unwrap();
        assert!(q.items.iter().all(|i| i.at.block != "greeting"));
        assert_eq!(q.skipped_decisions, 2);
    }
}
