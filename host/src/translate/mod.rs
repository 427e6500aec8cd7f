//! Unattended translation: `kapi translate` and `kapi up` (MCP `translate`, `up` and
//! `pseudo_translate`) fill the missing target editions `up_plan` lists, with a provider the
//! recipe names (`providers:`; `pseudo` is always there). Of the stale ones, a target the file
//! marks unfinished, one whose source changed after kapi wrote it (the store's `source_rev`,
//! `crate::services::translation`), or a copy of its source the scaffold wrote (this run or an
//! earlier one whose provider failed or echoed it: `copies`) is filled; one a person
//! may have written (placeholders differing, or a translation equal to its source: `URL`) only
//! with `force`, never by `pseudo` in a real language. `pseudo` with no language named goes to [`PSEUDO_LOCALES`]. An answer
//! equal to its source does not land (`not_translated`) unless the recipe's
//! `rules.translation.unchanged.allow` lists it; a remote provider's answer is screened
//! first (`screen`).
//!
//! For each catalog and target language: the translation file is made ready to take every
//! key (`scaffold`: written from the source's skeleton when missing); each block to do takes
//! an exact match from the content memory first (its source text, tags included, in that
//! language), else goes to the provider in batches (`run`: a concurrency limit, timeouts,
//! retries with backoff after a 429 or 5xx, a request budget) with the brief for the target
//! path in that language (`kapi context`). Every answer lands through the change service as
//! `tool:<provider>` (`tool:<provider>/<model>` for a provider with a model), so placeholders
//! are guarded and the commit check runs (enforced, or reported when the caller chooses the
//! report gate); the run is recorded as a `translate` operation with that actor, its time,
//! the provider and model and what landed where (`kapi context log`), and each new
//! translation waits in `kapi review` for a person.
//! A block refused or failed is reported and skipped; the rest lands. `--dry-run` writes and
//! sends nothing: it lists the blocks, characters and estimated tokens a run would send.
//!
//! Bilingual files (PO, XLIFF) are translated in place (`bilingual`): the change service gives
//! a unit that lacks its target a copy of its source to replace and marks a tool's target a
//! draft for review (`#, fuzzy`, `needs-review-translation`), which the next run leaves alone.

mod bilingual;
mod copies;
pub mod openai;
mod pick;
pub mod provider;
pub mod pseudo;
mod run;
mod scaffold;
mod screen;
mod targets;

pub use bilingual::po_language_note;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use kapi_core::change::result::{OpStatus, SetStatus};
use kapi_core::change::{ChangeSet, GateMode, Operation, SCHEMA};
use kapi_core::model::Ref;
use kapi_core::project::recipe::providers::ProviderSpec;
use kapi_core::projection;
use serde::Serialize;

use crate::app::{Actor, App};
use crate::apply::{ApplyRequest, apply_as};
use crate::error::HostError;
use crate::services::translation::{Unreadable, catalogs, survey};
use provider::{Batch, Item};
use scaffold::Scaffolded;

/// What to translate.
#[derive(Debug, Clone)]
pub struct TranslateRequest {
    /// Source documents; none: every catalog the collections declare (`kapi up`).
    pub docs: Vec<String>,
    /// Target languages; none: `default_langs`, else each catalog's own.
    pub langs: Vec<String>,
    /// The languages to take when `langs` is empty and the provider is no `pseudo` one (an
    /// MCP server's first target language); a `pseudo` provider takes the pseudo-locales.
    pub default_langs: Vec<String>,
    /// The provider's name in the recipe (`pseudo` needs none); none: the recipe's only one.
    pub provider: Option<String>,
    pub dry_run: bool,
    /// Most requests to send, retries included.
    pub max_requests: Option<usize>,
    pub gate: GateMode,
    /// The first wait before a retry (it doubles).
    pub backoff: Duration,
    /// Replace what a person may have written too: a target equal to its source, or one
    /// whose placeholders differ from the source's (never a draft waiting for review).
    pub force: bool,
    /// Set by [`translate`] when the provider is a `pseudo` one (callers leave it false): with
    /// no `langs`, only pseudo-locales are wanted, and a real language `langs` names takes only
    /// what is missing.
    pub pseudo: bool,
}

/// The pseudo-locales a `pseudo` provider writes to when `--to` names no language: Android's
/// `en-XA` (accents and expansion) and `ar-XB` (right to left).
pub const PSEUDO_LOCALES: &[&str] = &["en-XA", "ar-XB"];

/// Whether `lang` is a pseudo-locale ([`PSEUDO_LOCALES`]; `en_XA` and `en-rXA` alike).
pub fn is_pseudo_locale(lang: &str) -> bool {
    let norm = lang.replace(['_', '-'], "").to_ascii_lowercase();
    PSEUDO_LOCALES.iter().any(|p| {
        let p = p.replace('-', "").to_ascii_lowercase();
        norm == p || norm == format!("{}r{}", &p[..2], &p[2..])
    })
}

/// `kapi.translate/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Translation {
    pub schema: &'static str,
    pub provider: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Who the translations landed as.
    pub actor: String,
    pub dry_run: bool,
    pub documents: Vec<DocLang>,
    /// Requests sent (a dry run: that would be sent).
    pub requests: usize,
    /// Characters of source text and brief sent (or that would be).
    pub characters: usize,
    /// About a quarter of `characters`.
    pub estimated_tokens: usize,
    /// Whether `--max-requests` stopped the run.
    pub budget_spent: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Unreadable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
    /// What the person should know that is no failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Translation {
    /// One line per catalog and language (and one per block skipped), then what was sent.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(remark) = &self.remark {
            out.push_str(remark);
            out.push('\n');
        }
        for d in &self.documents {
            let file = d.file.map(|f| format!(", {f}")).unwrap_or_default();
            let landed = if self.dry_run {
                format!("{} to send", d.todo.saturating_sub(d.from_memory))
            } else {
                format!("{} landed", d.landed)
            };
            out.push_str(&format!(
                "{} → {} ({}{file}): {} to do, {} from memory, {landed}\n",
                d.doc, d.lang, d.target_doc, d.todo, d.from_memory
            ));
            for s in &d.skipped {
                out.push_str(&format!("  {} {}: {}\n", s.status, s.block, s.message));
            }
        }
        for e in &self.errors {
            out.push_str(&format!("error {}: {}\n", e.doc, e.error));
        }
        for note in &self.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        let verb = if self.dry_run { "would send" } else { "sent" };
        out.push_str(&format!(
            "{} {verb} {} request{}, {} characters (about {} tokens){}; as {}\n",
            self.provider,
            self.requests,
            if self.requests == 1 { "" } else { "s" },
            self.characters,
            self.estimated_tokens,
            if self.budget_spent {
                "; the request budget is spent"
            } else {
                ""
            },
            self.actor
        ));
        out
    }
}

/// One catalog in one language.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct DocLang {
    pub doc: String,
    pub lang: String,
    pub target_doc: String,
    /// `created` or `rebuilt` when the translation file was written from the source's
    /// skeleton to take every key, `added` when the keys it lacked were added to it in place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'static str>,
    /// Blocks missing or stale before the run.
    pub todo: usize,
    pub from_memory: usize,
    /// Translations that landed, each an edition or one plural or select branch (a dry
    /// run: none).
    pub landed: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skip>,
}

impl DocLang {
    /// A catalog in a language with nothing counted yet.
    fn new(doc: &str, lang: &str, target_doc: &str, file: Option<&'static str>) -> DocLang {
        DocLang {
            doc: doc.to_owned(),
            lang: lang.to_owned(),
            target_doc: target_doc.to_owned(),
            file,
            todo: 0,
            from_memory: 0,
            landed: 0,
            skipped: Vec::new(),
        }
    }
}

/// A block not translated, and why.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Skip {
    pub block: String,
    /// `failed` (the provider gave no usable answer), `not_sent` (the budget, or a write
    /// that failed), `unsafe` (the answer held a secret, a control or a bidi character its
    /// source does not), `not_translated` (the answer was the source text), or the change
    /// service's refusal (`guard`, `gate_failed`, `stale`,
    /// `unsupported`, …).
    pub status: String,
    pub message: String,
}

/// The provider a request names.
fn spec_for(
    project: &kapi_core::project::Project,
    name: Option<&str>,
) -> Result<ProviderSpec, HostError> {
    let providers = &project.recipe.providers;
    let names = || {
        let mut all: Vec<String> = providers.iter().map(|p| p.name.clone()).collect();
        all.push("pseudo".into());
        all.join(", ")
    };
    match name {
        Some(n) => providers
            .iter()
            .find(|p| p.name == n)
            .cloned()
            .or_else(|| (n == "pseudo").then(ProviderSpec::builtin_pseudo))
            .ok_or_else(|| HostError::Usage {
                message: format!("no provider `{n}` in kapi.yaml"),
                hint: Some(format!("providers: {}", names())),
            }),
        None => match providers.as_slice() {
            [only] => Ok(only.clone()),
            _ => Err(HostError::Usage {
                message: "name the provider to translate with".into(),
                hint: Some(format!(
                    "`--provider NAME` ({}); `providers:` in kapi.yaml declares them",
                    names()
                )),
            }),
        },
    }
}

impl Translation {
    /// The report of a run by `provider` as `tool:<actor_name>`, before anything is done.
    fn empty(provider: &dyn provider::Provider, actor_name: &str, dry_run: bool) -> Self {
        Translation {
            schema: "kapi.translate/v1",
            provider: provider.name().to_owned(),
            model: provider.model().map(str::to_owned),
            actor: format!("tool:{actor_name}"),
            dry_run,
            documents: Vec::new(),
            requests: 0,
            characters: 0,
            estimated_tokens: 0,
            budget_spent: false,
            errors: Vec::new(),
            remark: None,
            notes: Vec::new(),
        }
    }
}

impl Batch {
    /// The characters a batch sends: its brief and its items' texts.
    fn characters(&self) -> usize {
        self.brief.chars().count()
            + self
                .items
                .iter()
                .map(|i| i.text.chars().count())
                .sum::<usize>()
    }
}

/// Translates what `request` names; `progress` is told (done, total) blocks as answers come.
pub fn translate(
    app: &App,
    request: &TranslateRequest,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Translation, HostError> {
    let project = app.require_project()?;
    let spec = spec_for(&project, request.provider.as_deref())?;
    let request = &for_provider(request, &spec);
    // Before anything is read or written: every language named is one a file translates into.
    targets::refuse_unknown(app, &project, request)?;
    let provider = provider_for(&spec)?;
    let actor_name = match provider.model() {
        Some(model) => format!("{}/{model}", provider.name()),
        None => provider.name().to_owned(),
    };
    let mut out = Translation::empty(provider.as_ref(), &actor_name, request.dry_run);
    let added = if request.dry_run {
        Added::new()
    } else {
        prepare_files(app, &project, request, &mut out)?
    };
    let mut copied = Vec::new();
    let work = gather(app, &project, request, &added, &mut copied, &mut out)?;
    // Each catalog and language's batches.
    let per_work: Vec<Vec<Batch>> = work
        .iter()
        .map(|w| batches(std::slice::from_ref(w), spec.batch))
        .collect();
    out.characters = per_work.iter().flatten().map(Batch::characters).sum();
    out.estimated_tokens = out.characters.div_ceil(4);
    if request.dry_run {
        out.requests = per_work.iter().map(Vec::len).sum();
        return Ok(out);
    }
    let total: usize = per_work.iter().flatten().map(|b| b.items.len()).sum();
    let actor = Actor {
        kind: "tool".into(),
        name: actor_name,
        session: app.actor().session,
    };
    // The keys the scaffold added hold their source until a translation lands: recorded
    // before any is sent, so a failed or echoed answer leaves them missing, not translated.
    if let Err(e) = copies::record(app, &project, &actor, &copied) {
        out.notes.push(format!(
            "the keys added to target files could not be recorded in the store ({e}): until they are translated, `stats` counts them translated and the next run leaves them, unless run with `--force`"
        ));
    }
    let screening = Screening {
        remote: provider.remote(),
        key: provider.key().map(str::to_owned),
        unchanged: project
            .recipe
            .allowed(kapi_core::check::analyzers::unchanged::UNCHANGED.id),
    };
    // One catalog and language at a time: its batches sent, then its answers landed, so a
    // write that fails (a full disk) stops the run before the next catalog's requests.
    let mut done = 0;
    let mut stopped: Option<String> = None;
    for (w, batches) in work.iter().zip(&per_work) {
        if stopped.is_none() && app.stop.asked() {
            stopped = Some("the run was stopped".into());
        }
        let answers = match &stopped {
            Some(why) => batches
                .iter()
                .map(|b| {
                    b.items
                        .iter()
                        .map(|_| Err(format!("not sent: {why}")))
                        .collect()
                })
                .collect(),
            None => {
                let sent = run::send(
                    batches,
                    &run::Sending {
                        provider: provider.as_ref(),
                        concurrency: spec.concurrency,
                        retries: spec.retries,
                        budget: request.max_requests,
                        already: out.requests,
                        backoff: request.backoff,
                        progress: &|n| progress(done + n, total),
                    },
                );
                out.requests = sent.requests;
                out.budget_spent |= sent.budget_spent;
                sent.answers
            }
        };
        done += batches.iter().map(|b| b.items.len()).sum::<usize>();
        let failed = land(
            app,
            &actor,
            request.gate,
            std::slice::from_ref(w),
            batches,
            answers,
            &screening,
            &mut out,
        )?;
        if stopped.is_none()
            && let Some(error) = failed
        {
            stopped = Some(format!("a write failed earlier in the run ({error})"));
        }
    }
    // The translations landed: a store that cannot record the run says so, and fails nothing.
    if let Err(e) = record(app, &project, &actor, &out) {
        out.notes.push(format!(
            "the run landed but could not be recorded in the store: {e}"
        ));
    }
    Ok(out)
}

/// The provider `spec` names, with its key from the environment.
fn provider_for(spec: &ProviderSpec) -> Result<Box<dyn provider::Provider>, HostError> {
    provider::for_spec(spec, &crate::env::secret).map_err(|message| HostError::Usage {
        message,
        hint: Some(
            "export the variable in the shell that runs kapi; kapi.yaml never holds a key".into(),
        ),
    })
}

/// `request` as its provider takes it: `pseudo` set for a `pseudo` provider, and the default
/// languages taken when it names none and the provider is no `pseudo` one.
fn for_provider(request: &TranslateRequest, spec: &ProviderSpec) -> TranslateRequest {
    let pseudo = matches!(
        spec.kind,
        kapi_core::project::recipe::providers::ProviderKind::Pseudo { .. }
    );
    let langs = if request.langs.is_empty() && !pseudo {
        request.default_langs.clone()
    } else {
        request.langs.clone()
    };
    TranslateRequest {
        pseudo,
        langs,
        ..request.clone()
    }
}

/// Records the run where `kapi context log` shows it (kind `translate`): the provider, its
/// model, and per catalog and language what landed and what was skipped.
fn record(
    app: &App,
    project: &kapi_core::project::Project,
    actor: &Actor,
    out: &Translation,
) -> Result<(), HostError> {
    let landed: usize = out.documents.iter().map(|d| d.landed).sum();
    if landed == 0 && out.documents.iter().all(|d| d.file.is_none()) {
        return Ok(());
    }
    let handle = crate::notes::open_store(project, app, actor)?;
    let store = crate::app::lock(&handle)?;
    let now = app.timestamp();
    let documents: Vec<serde_json::Value> = out
        .documents
        .iter()
        .filter(|d| d.landed > 0 || d.file.is_some())
        .map(|d| {
            serde_json::json!({"doc": d.doc, "lang": d.lang, "target_doc": d.target_doc,
                               "file": d.file, "landed": d.landed, "skipped": d.skipped.len()})
        })
        .collect();
    store.record_op(&kapi_core::store::NewOp {
        kind: "translate".into(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        session: actor.session.clone(),
        path: None,
        payload: serde_json::json!({"provider": out.provider, "model": out.model,
                                    "requests": out.requests, "documents": documents}),
        status: "applied".into(),
        created_at: now,
    })?;
    Ok(())
}

/// One catalog in one language with blocks to do, and the brief.
struct Work {
    doc: String,
    lang: String,
    source_lang: String,
    brief: String,
    /// For the provider.
    blocks: Vec<Todo>,
    /// Answered by the content memory: each with its text.
    memory: Vec<(Todo, String)>,
    /// Blocks missing or stale.
    todo: usize,
}

/// One edition (or one plural or select branch of it) to translate: the block's key, the
/// branch's path, the source text as the provider sees it, and the rev of the target
/// edition (or branch) the answer replaces.
#[derive(Debug, Clone)]
struct Todo {
    key: String,
    branch: Option<String>,
    item: Item,
    rev: Option<String>,
}

/// The parts of `block` to translate into `lang`: its whole edition, or, when it holds a
/// plural or select, each of the target's branches (a `set_content` reaches one branch at a
/// time), each plural form its language needs that an ICU plural lacks, and the text around
/// them when there is any.
fn todos(
    block: &kapi_core::model::Block,
    lang: &str,
    missing: Option<&kapi_core::model::Edition>,
) -> Vec<Todo> {
    // A target the file lacks is read as `missing` (a bilingual unit's copy of its source).
    let target = block.targets.get(lang).or(missing);
    let leaves = block.source.leaves();
    let whole = |runs: &[kapi_core::model::Run], branch: Option<String>| {
        let rev = match &branch {
            None => target.map(kapi_core::model::Edition::rev),
            Some(path) => target
                .and_then(|t| t.branch(path))
                .map(kapi_core::model::rev_runs),
        };
        let id = match &branch {
            None => block.key.clone(),
            Some(path) => format!("{} [{path}]", block.key),
        };
        Todo {
            key: block.key.clone(),
            item: Item {
                key: id,
                text: projection::render(runs).0,
                source: kapi_core::model::Edition::new(runs.to_vec()),
            },
            branch,
            rev,
        }
    };
    if leaves.is_empty() {
        // A source of one text whose target keeps a form per plural category (a Qt numerus
        // message): each form the target has or its file's rule gives it, from the whole source.
        if let Some(t) = target.filter(|t| !t.leaves().is_empty()) {
            let mut paths: Vec<String> = t.leaves().into_iter().map(|(path, _)| path).collect();
            paths.extend(kapi_core::change::forms::lacking(t, &[]));
            return paths
                .into_iter()
                .map(|path| {
                    let mut todo = whole(&block.source.runs, Some(path));
                    todo.rev
                        .get_or_insert_with(kapi_core::change::forms::absent_rev);
                    todo
                })
                .collect();
        }
        return vec![whole(&block.source.runs, None)];
    }
    let mut out = Vec::new();
    let around = block.source.runs.iter().any(|r| match r {
        kapi_core::model::Run::Text { text, .. } => !text.trim().is_empty(),
        _ => false,
    });
    if around {
        out.push(whole(&block.source.runs, None));
    }
    // Each of the target's own forms (a language may have more plural forms than the
    // source: Bosnian `few`), from the source's form of the same case, else its last (`other`).
    let forms: Vec<String> = match target.map(kapi_core::model::Edition::leaves) {
        Some(target) if !target.is_empty() => target.into_iter().map(|(path, _)| path).collect(),
        _ => leaves.iter().map(|(path, _)| path.clone()).collect(),
    };
    // And each plural form the target's ICU plural lacks and its language needs (Russian
    // `few`, `many` of an English `one`/`other`): the edit adds it.
    // An empty target (`""`) takes its source's plural whole: its forms are the source's.
    // (Blank text alone: a switch is no plain run.)
    let empty = target.filter(|t| kapi_core::model::plain_empty(&t.runs));
    let shape = if empty.is_some() {
        Some(&block.source)
    } else {
        target
    };
    let absent = shape
        .filter(|t| kapi_core::change::forms::has_growable(t))
        .zip(kapi_core::plurals::needed_and_all(lang))
        .map(|(t, (needed, _))| kapi_core::change::forms::lacking(t, &needed))
        .unwrap_or_default();
    for path in forms.into_iter().chain(absent.iter().cloned()) {
        let runs = block
            .source
            .branch(&path)
            .or_else(|| leaves.last().map(|(_, runs)| *runs));
        if let Some(runs) = runs {
            let mut todo = whole(runs, Some(path.clone()));
            if absent.contains(&path) || (empty.is_some() && todo.rev.is_none()) {
                todo.rev = Some(kapi_core::change::forms::absent_rev());
            }
            out.push(todo);
        }
    }
    out
}

/// The plural forms `block`'s `lang` target lacks and its language needs, to add
/// ([`kapi_core::change::forms`]); none for a block without a switch.
fn absent_todos(block: &kapi_core::model::Block, lang: &str) -> Vec<Todo> {
    let has_switch = |e: &kapi_core::model::Edition| {
        e.runs
            .iter()
            .any(|r| matches!(r, kapi_core::model::Run::Switch(_)))
    };
    if !block.targets.get(lang).is_some_and(has_switch) {
        return Vec::new();
    }
    let absent = kapi_core::change::forms::absent_rev();
    todos(block, lang, None)
        .into_iter()
        .filter(|t| t.branch.is_some() && t.rev.as_deref() == Some(absent.as_str()))
        .collect()
}

/// Writes each translation file that is missing or lacks keys, from its source's skeleton.
fn prepare_files(
    app: &App,
    project: &kapi_core::project::Project,
    request: &TranslateRequest,
    out: &mut Translation,
) -> Result<Added, HostError> {
    let mut added = Added::new();
    let (_, template_docs) = bilingual::split(app, project, &request.docs);
    if !request.docs.is_empty() && template_docs.is_empty() {
        return Ok(added);
    }
    for doc in template(request.docs.is_empty(), &template_docs) {
        let catalogs = catalogs(app, doc, None)?;
        for loaded in &catalogs.loaded {
            for target in loaded.targets.iter().filter(|t| wanted(request, &t.lang)) {
                match scaffold::scaffold(loaded, target) {
                    Ok((done, found)) => {
                        scaffold::report(&found, &target.doc, out);
                        let file = match done {
                            Scaffolded::Ready => continue,
                            Scaffolded::Created => "created",
                            Scaffolded::Rebuilt => "rebuilt",
                            Scaffolded::Added => "added",
                        };
                        // The keys the file gained hold a copy of their source: missing, not
                        // a person's translation (the keys it held are as it was read).
                        let held: std::collections::HashSet<&str> = target
                            .parsed
                            .iter()
                            .flat_map(|p| p.document.blocks.iter().map(|b| b.key.as_str()))
                            .collect();
                        added.insert(
                            (loaded.doc.clone(), target.lang.clone()),
                            loaded
                                .parsed
                                .document
                                .blocks
                                .iter()
                                .filter(|b| !held.contains(b.key.as_str()))
                                .map(|b| b.key.clone())
                                .collect(),
                        );
                        out.documents.push(DocLang::new(
                            &loaded.doc,
                            &target.lang,
                            &target.doc,
                            Some(file),
                        ));
                    }
                    Err(error) => out.errors.push(Unreadable {
                        doc: target.doc.clone(),
                        error,
                    }),
                }
            }
        }
    }
    Ok(added)
}

/// Per (source document, language): the keys this run's scaffold wrote as copies of their
/// source.
type Added = HashMap<(String, String), std::collections::HashSet<String>>;

fn wanted(request: &TranslateRequest, lang: &str) -> bool {
    if request.langs.is_empty() {
        return !request.pseudo || is_pseudo_locale(lang);
    }
    // `--to pt_BR` names the recipe's `pt-BR`.
    request
        .langs
        .iter()
        .any(|l| crate::services::translation::same_tag(l, lang))
}

/// Whether a stale target (present, not a draft) is replaced: one the file marks unfinished
/// (XLIFF `new`, `needs-translation`…) or whose source changed after kapi wrote it (`marked`)
/// always, except by `pseudo` in a real language; one with placeholders that differ, or a
/// translated one equal to its source (what a person may have written or decided: `Port`,
/// `URL`), only with `--force`, and never by `pseudo` in a real language.
fn replaces_stale(request: &TranslateRequest, lang: &str, marked: bool) -> bool {
    if request.pseudo && !is_pseudo_locale(lang) {
        return false;
    }
    marked || request.force
}

/// The blocks to do, per catalog and language (catalogs with a `target` template, then
/// bilingual files), with the memory's exact matches set apart.
fn gather(
    app: &App,
    project: &kapi_core::project::Project,
    request: &TranslateRequest,
    added: &Added,
    copied: &mut Vec<copies::Copied>,
    out: &mut Translation,
) -> Result<Vec<Work>, HostError> {
    let memory = memory(app, project);
    let allow = project
        .recipe
        .allowed(kapi_core::check::analyzers::unchanged::UNCHANGED.id);
    let source_lang = project
        .recipe
        .defaults
        .source_language
        .clone()
        .unwrap_or_else(|| "en".into());
    let all = request.docs.is_empty();
    let (bilingual_docs, template_docs) = bilingual::split(app, project, &request.docs);
    let mut work = Vec::new();
    for doc in template(all, &template_docs) {
        let catalogs = catalogs(app, doc, None)?;
        out.errors.extend(catalogs.errors.iter().cloned());
        if out.remark.is_none() {
            out.remark.clone_from(&catalogs.remark);
        }
        // Each catalog's blocks by key, made at its first language.
        let mut by_key: HashMap<&str, HashMap<&str, &kapi_core::model::Block>> = HashMap::new();
        for s in survey(&catalogs)
            .into_iter()
            .filter(|s| wanted(request, &s.lang))
        {
            let Some(loaded) = catalogs.loaded.iter().find(|l| l.doc == s.doc) else {
                continue;
            };
            let fresh = added.get(&(s.doc.clone(), s.lang.clone()));
            let blocks = by_key.entry(loaded.doc.as_str()).or_insert_with(|| {
                let mut map = HashMap::new();
                for b in &loaded.parsed.document.blocks {
                    map.entry(b.key.as_str()).or_insert(b);
                }
                map
            });
            if let Some(fresh) = fresh {
                copies::collect(
                    &s.doc,
                    &s.lang,
                    &s.target_doc,
                    fresh,
                    blocks,
                    &allow,
                    copied,
                );
            }
            let keys = pick::keys(request, &s, fresh, blocks);
            let taken: std::collections::HashSet<&str> = keys.iter().map(|k| k.as_str()).collect();
            // A translation whose ICU plural lacks forms its language needs: only those
            // forms, which adds and replaces nothing.
            let lacking: Vec<Todo> = loaded
                .parsed
                .document
                .blocks
                .iter()
                .filter(|b| b.targets.contains_key(&s.lang) && !taken.contains(b.key.as_str()))
                .filter(|b| crate::services::translation::translatable(b))
                .flat_map(|b| absent_todos(b, &s.lang))
                .collect();
            let mut w = Work {
                doc: s.doc.clone(),
                lang: s.lang.clone(),
                source_lang: source_lang.clone(),
                brief: if keys.is_empty() && lacking.is_empty() {
                    String::new()
                } else {
                    brief(app, &s.target_doc, &s.lang)
                },
                blocks: Vec::new(),
                memory: Vec::new(),
                todo: keys.len(),
            };
            for key in keys {
                if let Some(block) = blocks.get(key.as_str()) {
                    w.blocks.extend(todos(block, &s.lang, None));
                }
            }
            let mut seen: Vec<&str> = lacking.iter().map(|t| t.key.as_str()).collect();
            seen.dedup();
            w.todo += seen.len();
            w.blocks.extend(lacking);
            settle(w, &s.target_doc, &memory, out, &mut work);
        }
    }
    let found = bilingual::gather(
        app,
        project,
        request,
        &bilingual_docs,
        all,
        &source_lang,
        &mut out.errors,
    )?;
    if !found.is_empty() && all {
        // The catalogs' remark (no `target` template) does not hold for bilingual files.
        out.remark = None;
    }
    for w in found {
        let doc = w.doc.clone();
        settle(w, &doc, &memory, out, &mut work);
    }
    Ok(work)
}

/// The template catalogs to read: every one, or the named ones.
fn template(all: bool, named: &[String]) -> Vec<Option<&str>> {
    if all {
        vec![None]
    } else {
        named.iter().map(|d| Some(d.as_str())).collect()
    }
}

/// Sets apart `w`'s memory matches, reports it in `out` (its entry made or updated), and keeps
/// it when it has anything to do.
fn settle(
    mut w: Work,
    target_doc: &str,
    memory: &HashMap<(String, String), String>,
    out: &mut Translation,
    work: &mut Vec<Work>,
) {
    for t in std::mem::take(&mut w.blocks) {
        match memory.get(&(t.item.text.clone(), w.lang.clone())) {
            Some(text) => w.memory.push((t, text.clone())),
            None => w.blocks.push(t),
        }
    }
    let entry = match out
        .documents
        .iter()
        .position(|d| d.doc == w.doc && d.lang == w.lang)
    {
        Some(i) => i,
        None => {
            out.documents
                .push(DocLang::new(&w.doc, &w.lang, target_doc, None));
            out.documents.len() - 1
        }
    };
    out.documents[entry].todo = w.todo;
    out.documents[entry].from_memory = w.memory.len();
    if w.todo > 0 {
        work.push(w);
    }
}

/// The content memory's pairs, by (source text, target language).
fn memory(app: &App, project: &kapi_core::project::Project) -> HashMap<(String, String), String> {
    let path = project.root.join(kapi_core::project::layout::STORE_FILE);
    let mut out = HashMap::new();
    if path.exists()
        && let Ok(handle) = app.store(&path)
        && let Ok(store) = crate::app::lock(&handle)
        && let Ok(rows) = store.memory_rows()
    {
        for (source, lang, target) in rows {
            out.insert((source, lang), target);
        }
    }
    out
}

/// The brief for `target_doc` in `lang`, as `kapi context` gives it (empty when none reads).
fn brief(app: &App, target_doc: &str, lang: &str) -> String {
    let request = crate::context::ContextRequest {
        path: Some(Path::new(target_doc).to_path_buf()),
        profile: None,
        locale: Some(lang.to_owned()),
        limit: Some(25),
    };
    crate::context::context(app, &request)
        .map(|a| a.markdown())
        .unwrap_or_default()
}

/// The provider's batches: each catalog and language's blocks, `size` at a time.
fn batches(work: &[Work], size: usize) -> Vec<Batch> {
    let mut out = Vec::new();
    for w in work {
        for chunk in w.blocks.chunks(size.max(1)) {
            out.push(Batch {
                source_lang: w.source_lang.clone(),
                target_lang: w.lang.clone(),
                brief: w.brief.clone(),
                items: chunk.iter().map(|t| t.item.clone()).collect(),
            });
        }
    }
    out
}

/// Whether the provider's answers are screened ([`screen::refusal`]), and its key.
struct Screening {
    remote: bool,
    key: Option<String>,
    /// The strings a translation may keep as they are (`rules.translation.unchanged.allow`):
    /// a provider's answer equal to such a source lands.
    unchanged: Vec<String>,
}

/// (document, language, block) of an operation, as a skip names it.
type Place = (String, String, String);

/// Each answer as an operation (with where it lands), and each block with no usable answer
/// reported in `out`.
fn operations(
    work: &[Work],
    batches: &[Batch],
    answers: Vec<Vec<provider::Answer>>,
    screen: &Screening,
    out: &mut Translation,
) -> (Vec<Operation>, Vec<Place>) {
    // (document, language, block) of each operation, in order.
    let mut places: Vec<Place> = Vec::new();
    let mut operations = Vec::new();
    let mut answers = answers.into_iter();
    let mut batch = batches.iter();
    for w in work {
        // The memory's answers are the project's own; the provider's are screened.
        let mut texts: Vec<(&Todo, Result<String, String>, bool)> = w
            .memory
            .iter()
            .map(|(todo, text)| (todo, Ok(text.clone()), false))
            .collect();
        let mut todo = w.blocks.iter();
        let mut left = w.blocks.len();
        while left > 0 {
            let (Some(b), Some(a)) = (batch.next(), answers.next()) else {
                break;
            };
            for (answer, t) in a.into_iter().zip(todo.by_ref()) {
                texts.push((t, answer, true));
            }
            left = left.saturating_sub(b.items.len());
        }
        let entry = out
            .documents
            .iter_mut()
            .find(|d| d.doc == w.doc && d.lang == w.lang);
        let mut skipped = Vec::new();
        for (todo, answer, provided) in texts {
            let block = match &todo.branch {
                Some(path) => format!("{} [{path}]", todo.key),
                None => todo.key.clone(),
            };
            if provided
                && screen.remote
                && let Ok(text) = &answer
                && let Some(why) = screen::refusal(&todo.item.text, text, screen.key.as_deref())
            {
                skipped.push(Skip {
                    block,
                    status: "unsafe".into(),
                    message: why,
                });
                continue;
            }
            // The source given back is no translation: it does not land, and the block stays
            // to do for the next run; unless the source is one the recipe allows to stay.
            if provided
                && answer
                    .as_deref()
                    .is_ok_and(|t| t.trim() == todo.item.text.trim())
                && !screen
                    .unchanged
                    .iter()
                    .any(|a| a.trim() == todo.item.text.trim())
            {
                skipped.push(Skip {
                    block,
                    status: "not_translated".into(),
                    message: "the provider answered the source text: not translated (left to do for the next run)".into(),
                });
                continue;
            }
            match (answer, &todo.rev) {
                (Ok(content), Some(rev)) => {
                    operations.push(Operation::SetContent {
                        at: Ref {
                            doc: w.doc.clone(),
                            block: todo.key.clone(),
                            edition: w.lang.clone(),
                            branch: todo.branch.clone(),
                        },
                        if_match: rev.clone(),
                        content,
                    });
                    places.push((w.doc.clone(), w.lang.clone(), block));
                }
                (Ok(_), None) => skipped.push(Skip {
                    block,
                    status: "unsupported".into(),
                    message: match &todo.branch {
                        Some(path) => format!("the translation has no branch `{path}` to write it to (its plural forms differ from the source's)"),
                        None => "the translation file has no place for it yet: kapi could not add its key (see the error for the file)".into(),
                    },
                }),
                (Err(why), _) => skipped.push(Skip {
                    status: if why.starts_with("not sent") { "not_sent" } else { "failed" }.into(),
                    block,
                    message: why,
                }),
            }
        }
        if let Some(entry) = entry {
            entry.skipped.extend(skipped);
        }
    }
    (operations, places)
}

/// Lands every answer as a `set_content` of its target edition, one change set per document
/// (a large run is many small sets, and one document's refusal holds no other back): each set
/// is first computed without writing, the operations the change service refuses are reported
/// and left out, and the rest land whole. The error of a write that failed, if one did.
#[allow(clippy::too_many_arguments)]
fn land(
    app: &App,
    actor: &Actor,
    gate: GateMode,
    work: &[Work],
    batches: &[Batch],
    answers: Vec<Vec<provider::Answer>>,
    screening: &Screening,
    out: &mut Translation,
) -> Result<Option<String>, HostError> {
    let (operations, places) = operations(work, batches, answers, screening, out);
    // A stop asked from here on waits for the set being written to land (or not) whole.
    let _hold = app.stop.hold();
    let mut by_doc: Vec<(String, Vec<Operation>, Vec<Place>)> = Vec::new();
    for (op, place) in operations.into_iter().zip(places) {
        match by_doc.iter_mut().find(|(doc, _, _)| *doc == place.0) {
            Some((_, ops, at)) => {
                ops.push(op);
                at.push(place);
            }
            None => by_doc.push((place.0.clone(), vec![op], vec![place])),
        }
    }
    let mut failed = None;
    for (_, operations, places) in by_doc {
        if let Some(error) = land_one(app, actor, gate, operations, places, out)? {
            failed.get_or_insert(error);
        }
    }
    Ok(failed)
}

/// Reports a skipped block in its catalog's entry.
fn skip(out: &mut Translation, place: Place, status: &str, message: &str) {
    if let Some(d) = out
        .documents
        .iter_mut()
        .find(|d| d.doc == place.0 && d.lang == place.1)
    {
        d.skipped.push(Skip {
            block: place.2,
            status: status.to_owned(),
            message: message.to_owned(),
        });
    }
}

/// Each operation with its refusal when the change service refuses it, tried as a set without
/// writing. A document refused whole for one block it cannot write (a PO message whose
/// `msgstr[]` forms disagree with its header) refuses every operation alike: the set is then
/// halved and each half tried, so the one block is found and the rest still land.
#[allow(clippy::type_complexity)]
fn sort_out(
    app: &App,
    actor: &Actor,
    gate: GateMode,
    pairs: Vec<(Operation, Place)>,
    depth: usize,
) -> Result<Vec<((Operation, Place), Option<(&'static str, String)>)>, HostError> {
    let set = ChangeSet {
        schema: SCHEMA,
        gate,
        operations: pairs.iter().map(|(op, _)| op.clone()).collect(),
    };
    let trial = apply_as(app, actor, &ApplyRequest { set, dry_run: true })?;
    let alike = pairs.len() > 1
        && depth < 24
        && trial.operations.iter().all(|r| {
            r.status == OpStatus::Unsupported
                && Some(&r.message) == trial.operations.first().map(|f| &f.message)
        });
    if alike {
        let mut pairs = pairs;
        let second = pairs.split_off(pairs.len() / 2);
        let mut out = sort_out(app, actor, gate, pairs, depth + 1)?;
        out.extend(sort_out(app, actor, gate, second, depth + 1)?);
        return Ok(out);
    }
    Ok(pairs
        .into_iter()
        .zip(&trial.operations)
        .map(|(pair, r)| {
            let refusal = r
                .status
                .refuses()
                .then(|| (r.status.as_str(), r.message.clone()));
            (pair, refusal)
        })
        .collect())
}

/// One document's operations: tried, the refused ones left out, the rest applied. The error
/// of a write that failed (nothing or not all of it landed), if it did.
fn land_one(
    app: &App,
    actor: &Actor,
    gate: GateMode,
    operations: Vec<Operation>,
    places: Vec<Place>,
    out: &mut Translation,
) -> Result<Option<String>, HostError> {
    let doc = places.first().map(|p| p.0.clone()).unwrap_or_default();
    let set = |operations| ChangeSet {
        schema: SCHEMA,
        gate,
        operations,
    };
    let mut kept = Vec::new();
    let mut kept_places = Vec::new();
    let pairs: Vec<(Operation, Place)> = operations.into_iter().zip(places).collect();
    for (pair, refusal) in sort_out(app, actor, gate, pairs, 0)? {
        match refusal {
            Some((status, message)) => skip(out, pair.1, status, &message),
            None => {
                kept.push(pair.0);
                kept_places.push(pair.1);
            }
        }
    }
    if kept.is_empty() {
        return Ok(None);
    }
    let result = apply_as(
        app,
        actor,
        &ApplyRequest {
            set: set(kept),
            dry_run: false,
        },
    )?;
    for (place, r) in kept_places.into_iter().zip(&result.operations) {
        if matches!(r.status, OpStatus::Applied | OpStatus::Unchanged) {
            if let Some(d) = out
                .documents
                .iter_mut()
                .find(|d| d.doc == place.0 && d.lang == place.1)
            {
                d.landed += 1;
            }
        } else {
            skip(out, place, r.status.as_str(), &r.message);
        }
    }
    let failed = matches!(result.status, SetStatus::Refused | SetStatus::Partial)
        .then(|| result.error.clone())
        .flatten();
    if let Some(error) = result.error {
        out.errors.push(Unreadable { doc, error });
    }
    Ok(failed)
}
