//! The change service: applies a `kapi.change/v1` set whole or not at all, for every surface.
//!
//! Order (design §3.5): the actor's policy; every content operation applied in memory, in the
//! set's order, each guarded by its revision and the code guard; the commit check on every
//! changed edition (before and after, refusing only a failing finding the edit introduced);
//! assets prepared (terms text, recipe, decisions) so a bad one refuses before anything is
//! written; every document rendered and read back (staged). Then, before the first write, the
//! store is opened, migrated and shown writable. The documents and then the assets are one
//! commit (temporary files, then renames, walking each folder from the project's real root
//! without following a link), then one store transaction records the change, its context
//! operations and the governance fingerprint. One refusal anywhere writes nothing and marks
//! every other operation `not_applied`; once a file landed, every failure (an asset, the
//! record, a signal between two renames) is a `partial` result naming what landed.
//!
//! Choices where the design is silent:
//! - A set runs under an exclusive lock (`.kapi/work/apply.lock` in a project, a lock file in
//!   the temporary folder outside one), so two `kapi apply` on one document serialise: the
//!   second reads what the first wrote and is refused `stale`.
//! - Several operations of one set may edit one edition: each may send the revision that was
//!   read before the set, or the one an earlier operation left.
//! - `decide` needs a project (decisions live in it) and may review any edition that exists,
//!   bilingual targets included; it binds to the edition's revision after the set's edits.
//! - A path no format reads is `unsupported`; one with a source-code extension kapi does not
//!   read comments in says so.
//! - A source file's comment takes `set_content` alone, through the comment write path
//!   (`comment.rs`): on the command line only (over MCP it is refused `unsupported`, capability
//!   `comment`), and never in a set that also edits documents.
//! - A bilingual file (PO, XLIFF) takes edits of its targets, never of its source (authored
//!   elsewhere). An empty target starts as its source, so an edit's `<x id>` tags are its
//!   source's; a unit that lacks its target, in a file that translates into that language,
//!   takes a copy of its source (whose rev is the source's). A target an agent or a tool
//!   writes is marked a draft for a person's review: PO `fuzzy`, XLIFF 1.2
//!   `needs-review-translation`, XLIFF 2.0 `translated`; a person's edit of a target so
//!   marked unmarks it (PO `fuzzy` goes, XLIFF 1.2 becomes `translated`), since a person's
//!   text is no draft (`kapi review --reject` writes a draft's replaced text back this way).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use kapi_core::change::edit::{self, Edited};
use kapi_core::change::result::{ChangeResult, OpResult, OpStatus, SetStatus};
use kapi_core::change::stage::StagedFile;
use kapi_core::change::{ChangeSet, Operation, Outcome};
use kapi_core::formats::{Format, Parsed};
use kapi_core::governance::terms_edit::{self, Upserted};
use kapi_core::model::{Edition, Ref, SOURCE, align, rev_runs};
use kapi_core::project::{Project, layout, recipe_field, recipe_text};
use kapi_core::store::{
    AdviceRow, ChangeRecord, MemoryRow, NewOp, NewSuggestion, SessionRow, TermRow,
};

use crate::app::{Actor, App, Base, ResolvedPath, relative_to};
use crate::check::plan::{Planner, Role};
use crate::document::{Editions, Hold, Loaded};
use crate::error::HostError;
use crate::policy;

mod assets;
mod comment;
mod commit;
mod diff;
mod run;
mod seed;
mod splice;
mod stage;

pub use diff::unified_diff;
pub(crate) use seed::draft_state;
use seed::{decided_state, seed};
use stage::Staged;

/// A change set to apply.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    pub set: ChangeSet,
    /// Compute, check and diff; write nothing.
    pub dry_run: bool,
}

/// Extensions of source code in languages whose comments kapi does not read (the ones it
/// reads are formats: `kapi_core::formats::code`).
const CODE_EXTENSIONS: &[&str] = &["php", "scala", "dart", "m", "mm"];

/// One physical file the set may write.
struct File {
    doc: String,
    abs: PathBuf,
    /// `abs` with every link resolved, as read: what the write walks to without following one.
    real: PathBuf,
    format: &'static dyn Format,
    /// The file's rev and length as read.
    read: crate::document::FileRead,
    parsed: Parsed,
    /// When `parsed` holds only the blocks the set names: each one's index in the file.
    picked: Option<Vec<usize>>,
    /// Set when the splice found the blocks ([`splice`]): the key bytes its values charge.
    spliced: Option<usize>,
    /// A spliced file's hash states as read, so its render hashes from its first edit.
    prefixes: Option<splice::Prefixes>,
    /// Block index → its editions before the set (taken at the first edit).
    originals: BTreeMap<usize, Block0>,
    /// Set for a catalog's translation file: its language and the source document's index.
    target_of: Option<(String, usize)>,
}

/// A block's editions as they were before the set.
#[derive(Clone)]
struct Block0 {
    editions: BTreeMap<String, Edition>,
}

/// A catalog target: the file's index when it exists, its doc name, and the alignment
/// (source block index → target block index).
type Target = (Option<usize>, String, Vec<Option<usize>>);

/// What an `at.doc` opened.
struct Doc {
    /// The source document's file index.
    file: usize,
    /// Catalog targets: language → (file index if the file exists, its doc name, source block
    /// index → target block index).
    targets: BTreeMap<String, Target>,
    in_project: bool,
}

/// An edition located in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Loc {
    file: usize,
    block: usize,
    /// The edition's name inside that file (`source`, or a bilingual file's language).
    edition: String,
}

/// A refusal of one operation.
struct Refused {
    status: OpStatus,
    message: String,
    instead: Option<String>,
}

fn refused(status: OpStatus, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
        instead: None,
    }
}

struct Service<'a> {
    app: &'a App,
    project: Option<Project>,
    root: PathBuf,
    files: Vec<File>,
    docs: HashMap<String, Result<usize, Refused>>,
    doc_list: Vec<Doc>,
    /// Languages the set names per doc (to load only those target files).
    langs: HashMap<String, BTreeSet<String>>,
    /// The blocks the set names per doc: a doc with no target edition to pair holds only
    /// those ([`crate::document::Hold::Keys`]), so an edit of a large file costs the file.
    blocks: HashMap<String, BTreeSet<String>>,
    /// Docs that are a catalog's translation files: doc → (source doc, language).
    translations: HashMap<String, (String, String)>,
    /// Per file index: each block key's index ([`Service::block_index`]).
    key_index: HashMap<usize, HashMap<String, usize>>,
    /// Per (bilingual file index, language): whether any unit has a target in it.
    translates_into: HashMap<(usize, String), bool>,
    /// Per catalog translation file index: each of its blocks' source block index
    /// ([`Service::source_of`]).
    sources: HashMap<usize, Vec<Option<usize>>>,
    /// The docs the splice may open ([`splice`]); `None` reads every document whole.
    splice: Option<BTreeSet<String>>,
    /// The set's content operations name both source files (comments) and documents: the
    /// comment edits are refused.
    mixed: bool,
    /// The actor is no person: a translation it writes into a bilingual file is marked a draft
    /// that needs review ([`draft_state`]).
    draft: bool,
}

impl<'a> Service<'a> {
    /// A service with nothing read yet, for the project (or the folder) at `root`.
    fn new(app: &'a App, project: Option<Project>, root: PathBuf) -> Self {
        Service {
            app,
            project,
            root,
            files: Vec::new(),
            docs: HashMap::new(),
            doc_list: Vec::new(),
            langs: HashMap::new(),
            blocks: HashMap::new(),
            translations: HashMap::new(),
            key_index: HashMap::new(),
            translates_into: HashMap::new(),
            sources: HashMap::new(),
            splice: Some(BTreeSet::new()),
            mixed: false,
            draft: false,
        }
    }
}

/// Applies a change set as the app's actor.
pub fn apply(app: &App, request: &ApplyRequest) -> Result<ChangeResult, HostError> {
    let actor = app.actor();
    apply_as(app, &actor, request)
}

/// Applies a change set as `actor` (the MCP server stamps its client here): under the set's
/// lock, each phase of `run::Run` in order.
pub fn apply_as(
    app: &App,
    actor: &Actor,
    request: &ApplyRequest,
) -> Result<ChangeResult, HostError> {
    apply_with(app, actor, request, true)
}

/// [`apply_as`] reading every document whole (no splice): what the splice is held to.
pub fn apply_unspliced(
    app: &App,
    actor: &Actor,
    request: &ApplyRequest,
) -> Result<ChangeResult, HostError> {
    apply_with(app, actor, request, false)
}

fn apply_with(
    app: &App,
    actor: &Actor,
    request: &ApplyRequest,
    splice: bool,
) -> Result<ChangeResult, HostError> {
    let project = app.project()?;
    let root = project
        .as_ref()
        .map_or_else(|| app.cwd.clone(), |p| p.root.clone());
    let _lock = lock(&root, project.is_some())?;
    let mut service = Service::new(app, project, root);
    if !splice {
        service.splice = None;
    }
    let mut run = run::Run::new(service, actor, request);
    run.policy();
    run.content()?;
    run.stage();
    run.decisions();
    run.commit_check()?;
    run.assets()?;
    match run.settle() {
        run::Settled::Done(result) => Ok(result),
        run::Settled::Write(result, operations) => Ok(run.write(result, operations)),
    }
}

/// The result of a set whose write failed before anything landed: refused, with `error`.
fn nothing_landed(
    mut result: ChangeResult,
    mut operations: Vec<OpResult>,
    error: String,
    message: &str,
) -> ChangeResult {
    result.status = SetStatus::Refused;
    result.error = Some(error);
    for op in &mut operations {
        if op.status == OpStatus::Applied {
            op.status = OpStatus::NotApplied;
            op.message = message.into();
            op.rev = None;
        }
    }
    for d in &mut result.documents {
        d.written = false;
        d.rev_after = None;
    }
    result.operations = operations;
    result
}

/// An error with its causes and the fix, as one sentence for a result's `error`.
fn describe(e: &HostError) -> String {
    use kapi_core::Hint;
    let mut out = e.to_string();
    let mut last = out.clone();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if text != last && !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        last = text;
        source = cause.source();
    }
    for hint in e.hints() {
        out.push_str("; ");
        out.push_str(&hint);
    }
    out
}

/// Adds a sentence to the result's `error`.
fn append_error(result: &mut ChangeResult, text: &str) {
    result.error = Some(match result.error.take() {
        Some(e) => format!("{e}; {text}"),
        None => text.to_owned(),
    });
}

fn op_is_document(op: &Operation) -> bool {
    op.is_content()
}

fn doc_landed(svc: &Service<'_>, files: &[StagedFile], landed: &[bool], at: &Ref) -> bool {
    let Some(Ok(d)) = svc.docs.get(&at.doc) else {
        return true;
    };
    let doc = &svc.doc_list[*d];
    let file = if at.edition == SOURCE {
        Some(doc.file)
    } else {
        doc.targets.get(&at.edition).and_then(|t| t.0)
    };
    let Some(fi) = file else { return true };
    let abs = &svc.files[fi].real;
    files
        .iter()
        .zip(landed)
        .find(|(f, _)| &f.path == abs)
        .is_none_or(|(_, l)| *l)
}

/// `path` with every link resolved (itself when it cannot be).
fn real_path(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `path` has a source-code extension ([`CODE_EXTENSIONS`]).
fn is_code(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    CODE_EXTENSIONS.contains(&ext.as_str())
}

/// Why a source file's comment takes no operation of a change set over MCP.
pub(crate) fn comment_refusal(name: &str) -> String {
    format!(
        "{name} in source code are read and checked, and over MCP a change set does not edit \
         them (capability `comment`): edit the comment in the file, then call `check_file` on it"
    )
}

fn any_refused(results: &[Option<OpResult>]) -> bool {
    results.iter().flatten().any(|r| r.status.refuses())
}

fn refusal(i: usize, op: &Operation, r: Refused) -> OpResult {
    let mut res = OpResult::new(i, op.name(), r.status, r.message);
    res.at = op.at().cloned();
    res.instead = r.instead;
    res
}

/// One fingerprint, or `g` + 16 hex over several distinct ones in sorted order.
fn combine(fingerprints: &BTreeSet<String>) -> Option<String> {
    use sha2::{Digest, Sha256};
    match fingerprints.len() {
        0 => None,
        1 => fingerprints.iter().next().cloned(),
        _ => {
            let mut h = Sha256::new();
            h.update(b"kapi.governance-overlay/v1\n");
            for f in fingerprints {
                h.update(f.as_bytes());
                h.update(b"\n");
            }
            let digest = h.finalize();
            Some(format!(
                "g{}",
                digest[..8]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            ))
        }
    }
}

/// Whether a content operation may edit `block`'s edition at `loc`: what the format writes, a
/// comment's whole text, a block not locked and translatable.
fn admit_content(
    op: &Operation,
    at: &Ref,
    info: &kapi_core::formats::FormatInfo,
    block: &kapi_core::model::Block,
    loc: &Loc,
) -> Result<(), Refused> {
    let bilingual_target = info.capabilities.bilingual && loc.edition != SOURCE;
    if info.capabilities.bilingual && loc.edition == SOURCE {
        return Err(refused(
            OpStatus::Unsupported,
            format!(
                "{} is a bilingual interchange format: its source is edited where it is authored; a target edition takes edits",
                info.name
            ),
        ));
    }
    if info.capabilities.comments && !matches!(op, Operation::SetContent { .. }) {
        return Err(refused(
            OpStatus::Unsupported,
            format!(
                "a comment takes `set_content` alone: send the comment's whole new text \
                 ({} are rewritten through the comment write path)",
                info.name
            ),
        ));
    }
    if !info.capabilities.editable && !info.capabilities.comments && !bilingual_target {
        return Err(refused(
            OpStatus::Unsupported,
            format!("kapi does not write {} files", info.name),
        ));
    }
    if let Some(reason) = &block.locked {
        return Err(refused(OpStatus::Unsupported, reason.clone()));
    }
    if !block.translatable {
        let what = if block.role == kapi_core::model::Role::Code {
            "a code block, not prose"
        } else {
            "marked not translatable by the file"
        };
        return Err(refused(
            OpStatus::Unsupported,
            format!("`{}` is {what}: it takes no edit", at.block),
        ));
    }
    Ok(())
}

/// Takes the apply lock for `root`; released when dropped.
fn lock(root: &Path, in_project: bool) -> Result<std::fs::File, HostError> {
    let path = if in_project {
        let dir = root.join(layout::WORK_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| HostError::io(&dir, e))?;
        dir.join("apply.lock")
    } else {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(root.to_string_lossy().as_bytes());
        let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        std::env::temp_dir().join(format!("kapi-apply-{name}.lock"))
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| HostError::io(&path, e))?;
    file.lock().map_err(|e| HostError::io(&path, e))?;
    Ok(file)
}

impl Service<'_> {
    /// Opens `at.doc` (once per set).
    fn open(&mut self, doc: &str) -> Result<usize, Refused> {
        if let Some(r) = self.docs.get(doc) {
            return match r {
                Ok(i) => Ok(*i),
                Err(r) => Err(Refused {
                    status: r.status,
                    message: r.message.clone(),
                    instead: r.instead.clone(),
                }),
            };
        }
        let opened = self.open_uncached(doc);
        let out = match &opened {
            Ok(i) => Ok(*i),
            Err(r) => Err(Refused {
                status: r.status,
                message: r.message.clone(),
                instead: r.instead.clone(),
            }),
        };
        self.docs.insert(doc.to_owned(), opened);
        out
    }

    /// Finds the docs the set names that are a catalog's translation files.
    fn plan_translations(&mut self, set: &ChangeSet) -> Result<(), HostError> {
        let Some(project) = &self.project else {
            return Ok(());
        };
        let collections = project.collections()?;
        let mut planner = Planner::new(project, &collections);
        // Each doc is asked once, however many operations name it.
        let mut asked: BTreeSet<&str> = BTreeSet::new();
        for at in set.operations.iter().filter_map(Operation::at) {
            if !asked.insert(at.doc.as_str()) || self.translations.contains_key(&at.doc) {
                continue;
            }
            // A doc outside the project (or gone through a link) is not a translation: its
            // admission refuses it.
            let Ok(path) = self
                .app
                .resolve_target(Base::Root, Some(project), Path::new(&at.doc))
            else {
                continue;
            };
            let Some(rel) = path.rel() else { continue };
            if let Role::Translation { source, lang } = planner.role(rel)? {
                self.translations.insert(at.doc.clone(), (source, lang));
            }
        }
        Ok(())
    }

    fn open_uncached(&mut self, doc: &str) -> Result<usize, Refused> {
        if let Some(d) = self.open_as_translation(doc)? {
            return Ok(d);
        }
        let path = self.admit(doc)?;
        let langs: Vec<String> = self
            .langs
            .get(doc)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default();
        if langs.is_empty()
            && let Some(d) = self.open_spliced(doc, &path)
        {
            return Ok(d);
        }
        let no_keys = BTreeSet::new();
        let (editions, hold) = if langs.is_empty() {
            let keys = self.blocks.get(doc).unwrap_or(&no_keys);
            (Editions::Source, Hold::Keys(keys))
        } else {
            (Editions::Some(langs), Hold::All)
        };
        let loaded = crate::document::load_resolved(
            self.app,
            self.project.as_ref(),
            &path,
            &editions,
            None,
            hold,
        )
        .map_err(|e| self.load_refusal(doc, path.abs(), e))?;
        Ok(self.hold_loaded(doc, loaded))
    }

    /// A catalog's translation file the set names, opened as its source's `lang` edition: the
    /// same file, reached through the source, so the commit check holds it to the translation
    /// analyzers. `None` when `doc` is no such file, or the source has no file for `lang`.
    fn open_as_translation(&mut self, doc: &str) -> Result<Option<usize>, Refused> {
        let Some((source, lang)) = self.translations.get(doc).cloned() else {
            return Ok(None);
        };
        let d = self.open(&source)?;
        let Some((Some(file), _, _)) = self.doc_list[d].targets.get(&lang) else {
            return Ok(None);
        };
        let file = *file;
        self.doc_list.push(Doc {
            file,
            targets: BTreeMap::new(),
            in_project: self.doc_list[d].in_project,
        });
        Ok(Some(self.doc_list.len() - 1))
    }

    /// The file `doc` names, when the set may open it: inside the project (by its path and
    /// through every link), then a file that exists, resolved once from the project's root
    /// ([`App::resolve_from`]): a doc outside the project is refused as outside whether or not
    /// it exists. Outside a project there is no boundary: a file is named as `read_blocks`
    /// named it (absolute), and accepted back unchanged.
    fn admit(&self, doc: &str) -> Result<ResolvedPath, Refused> {
        let no_document = || refused(OpStatus::NotFound, format!("no document `{doc}`"));
        let path = match self
            .app
            .resolve_from(Base::Root, self.project.as_ref(), Path::new(doc))
        {
            Ok(path) => path,
            Err(HostError::OutsideProject { .. }) => {
                return Err(refused(
                    OpStatus::NotPermitted,
                    format!("`{doc}` is outside the project"),
                ));
            }
            Err(HostError::LeavesProject { target, .. }) => {
                return Err(Refused {
                    status: OpStatus::NotPermitted,
                    message: format!(
                        "`{doc}` leads outside the project (to `{}`)",
                        target.display()
                    ),
                    instead: Some("edit the file where it lives, inside its own project".into()),
                });
            }
            Err(_) => return Err(no_document()),
        };
        if !path.meta().is_ok_and(std::fs::Metadata::is_file) {
            return Err(no_document());
        }
        // A file its owner made read-only is not replaced (a rename would).
        if path.meta().is_ok_and(|m| m.permissions().readonly()) {
            return Err(Refused {
                status: OpStatus::NotPermitted,
                message: format!(
                    "`{doc}` is read-only: kapi does not replace a file its owner made read-only"
                ),
                instead: Some(format!(
                    "make it writable (`chmod u+w {doc}`) if it is meant to be edited"
                )),
            });
        }
        Ok(path)
    }

    /// Why the document `doc` (at `abs`) could not be read, as a refusal of the operation.
    fn load_refusal(&self, doc: &str, abs: &Path, e: HostError) -> Refused {
        match e {
            HostError::UnknownFormat { .. } if is_code(abs) => refused(
                OpStatus::Unsupported,
                format!(
                    "`{doc}` is source code in a language whose comments kapi does not read ({})",
                    self.app.surface.pick(
                        "`kapi formats` lists those it does",
                        crate::services::formats::reads()
                    )
                ),
            ),
            HostError::UnknownFormat { .. } => refused(
                OpStatus::Unsupported,
                format!(
                    "no format reads `{doc}` ({})",
                    self.app.surface.pick(
                        "`kapi formats` lists them",
                        crate::services::formats::reads()
                    )
                ),
            ),
            e @ (HostError::Read { .. } | HostError::TooLarge { .. }) => {
                refused(OpStatus::Unsupported, e.to_string())
            }
            e @ (HostError::LeavesProject { .. } | HostError::OutsideProject { .. }) => {
                refused(OpStatus::NotPermitted, e.to_string())
            }
            e => refused(OpStatus::NotFound, e.to_string()),
        }
    }

    /// Keeps a loaded document as the set's files (the source, then each target file that
    /// exists) and one more doc; returns the doc's index.
    fn hold_loaded(&mut self, doc: &str, loaded: Loaded) -> usize {
        let file = self.files.len();
        let mut targets = BTreeMap::new();
        let mut target_files = Vec::new();
        for t in loaded.targets {
            let (index, alignment) = match t.parsed {
                Some(parsed) => {
                    let alignment = align(&loaded.parsed.document, &parsed.document);
                    let read = t
                        .read
                        .clone()
                        .unwrap_or_else(|| crate::document::FileRead::of(&[]));
                    target_files.push(File {
                        doc: t.doc.clone(),
                        real: real_path(&t.abs),
                        abs: t.abs.clone(),
                        format: loaded.format,
                        read,
                        parsed,
                        picked: None,
                        spliced: None,
                        prefixes: None,
                        originals: BTreeMap::new(),
                        target_of: Some((t.lang.clone(), file)),
                    });
                    (Some(file + target_files.len()), alignment)
                }
                None => (None, Vec::new()),
            };
            targets.insert(t.lang, (index, t.doc, alignment));
        }
        let mut parsed = loaded.parsed;
        // Joined target editions are copies; edits go to the target files themselves.
        if !loaded.format.info().capabilities.bilingual {
            for block in &mut parsed.document.blocks {
                block.targets.clear();
            }
        }
        self.files.push(File {
            // Outside a project, documents are named as the set names them.
            doc: if loaded.in_project {
                loaded.doc
            } else {
                doc.to_owned()
            },
            real: real_path(&loaded.abs),
            abs: loaded.abs,
            format: loaded.format,
            read: loaded.read,
            parsed,
            picked: loaded.picked,
            spliced: None,
            prefixes: None,
            originals: BTreeMap::new(),
            target_of: None,
        });
        self.files.extend(target_files);
        self.doc_list.push(Doc {
            file,
            targets,
            in_project: loaded.in_project,
        });
        self.doc_list.len() - 1
    }

    /// The index of the block keyed `key` in file `fi` (the first, when keys repeat): a map
    /// made at the first look-up, so a set of many edits in one file costs the file once.
    fn block_index(&mut self, fi: usize, key: &str) -> Option<usize> {
        let blocks = &self.files.get(fi)?.parsed.document.blocks;
        let index = self.key_index.entry(fi).or_insert_with(|| {
            let mut map = HashMap::with_capacity(blocks.len());
            for (i, b) in blocks.iter().enumerate() {
                map.entry(b.key.clone()).or_insert(i);
            }
            map
        });
        index.get(key).copied()
    }

    /// The source block a block of a catalog's translation file `fi` sits beside (its index
    /// in the source file): the alignment is made once per file, not once per edit.
    fn source_of(&mut self, fi: usize, block: usize) -> Option<usize> {
        let file = self.files.get(fi)?;
        let (_, source_file) = file.target_of.as_ref()?;
        let source = self.files.get(*source_file)?;
        let back = self.sources.entry(fi).or_insert_with(|| {
            let mut back = vec![None; file.parsed.document.blocks.len()];
            for (si, ti) in align(&source.parsed.document, &file.parsed.document)
                .into_iter()
                .enumerate()
            {
                if let Some(slot) = ti.and_then(|ti| back.get_mut(ti))
                    && slot.is_none()
                {
                    *slot = Some(si);
                }
            }
            back
        });
        back.get(block).copied().flatten()
    }

    /// Locates the edition `at` names.
    fn locate(&mut self, at: &Ref) -> Result<Loc, Refused> {
        self.locate_as(at, false)
    }

    /// [`Service::locate`]; with `add`, a unit of a bilingual file that lacks its target in a
    /// language the file translates into takes one, a copy of its source (a content edit).
    fn locate_as(&mut self, at: &Ref, add: bool) -> Result<Loc, Refused> {
        let d = self.open(&at.doc)?;
        let doc = &self.doc_list[d];
        let source = &self.files[doc.file];
        let info = source.format.info();
        if info.capabilities.comments {
            if self.app.surface == crate::Surface::Mcp {
                return Err(refused(OpStatus::Unsupported, comment_refusal(info.name)));
            }
            if self.mixed {
                return Err(refused(
                    OpStatus::Unsupported,
                    "a change set edits code comments or documents, never both (a comment is \
                     rewritten through its language's comment layer, not a format's writer): \
                     send the comment edits in a set of their own"
                        .to_owned(),
                ));
            }
        }
        let file_index = doc.file;
        let Some(block) = self.block_index(file_index, &at.block) else {
            return Err(Refused {
                status: OpStatus::NotFound,
                message: format!("`{}` has no block `{}`", at.doc, at.block),
                instead: Some(format!(
                    "read the document again ({}) and use a `ref` it lists",
                    self.app.surface.pick(
                        format!("`kapi inspect {} --json`", at.doc),
                        format!("`read_blocks` with `path` `{}`", at.doc)
                    )
                )),
            });
        };
        let doc = &self.doc_list[d];
        let source = &self.files[doc.file];
        if at.edition == SOURCE {
            return Ok(Loc {
                file: doc.file,
                block,
                edition: SOURCE.into(),
            });
        }
        if source.format.info().capabilities.bilingual {
            // A unit without its target, in a file that translates into that language, takes
            // one: a copy of its source, which the edit then replaces (the writer adds it).
            let fi = doc.file;
            let blocks = &mut self.files[fi].parsed.document.blocks;
            // Whether the file translates into the language is asked only for a unit that
            // lacks it, and once per file and language (a scan of every block).
            if add && !blocks[block].targets.contains_key(&at.edition) {
                let into = *self
                    .translates_into
                    .entry((fi, at.edition.clone()))
                    .or_insert_with(|| blocks.iter().any(|b| b.targets.contains_key(&at.edition)));
                if into {
                    let copy = Edition::new(blocks[block].source.runs.clone());
                    blocks[block].targets.insert(at.edition.clone(), copy);
                }
            }
            let blocks = &self.files[fi].parsed.document.blocks;
            return if blocks[block].targets.contains_key(&at.edition) {
                Ok(Loc {
                    file: fi,
                    block,
                    edition: at.edition.clone(),
                })
            } else {
                Err(refused(
                    OpStatus::NotFound,
                    format!(
                        "`{}` has no `{}` edition of `{}`",
                        at.doc, at.edition, at.block
                    ),
                ))
            };
        }
        let Some((index, target_doc, alignment)) = doc.targets.get(&at.edition) else {
            let known: Vec<&str> = doc.targets.keys().map(String::as_str).collect();
            return Err(refused(
                OpStatus::NotFound,
                if known.is_empty() {
                    format!(
                        "`{}` has no `{}` edition: no collection names a `target` file for it",
                        at.doc, at.edition
                    )
                } else {
                    format!(
                        "`{}` has no `{}` edition; editions: source, {}",
                        at.doc,
                        at.edition,
                        known.join(", ")
                    )
                },
            ));
        };
        let Some(index) = index else {
            return Err(refused(
                OpStatus::NotFound,
                format!(
                    "`{target_doc}` does not exist yet: `kapi translate` or `kapi up` writes it from its source"
                ),
            ));
        };
        let Some(target_block) = alignment.get(block).copied().flatten() else {
            return Err(refused(
                OpStatus::NotFound,
                format!(
                    "`{target_doc}` has no `{}`: `kapi translate` or `kapi up` adds it, holding its source, for an edit to replace",
                    at.block
                ),
            ));
        };
        Ok(Loc {
            file: *index,
            block: target_block,
            edition: SOURCE.into(),
        })
    }

    /// The source edition beside `loc` when it is an empty edition (or empty branch) of a
    /// catalog's translation file, to seed it from.
    fn empty_target_source(&mut self, loc: &Loc, branch: Option<&str>) -> Option<Edition> {
        let file = self.files.get(loc.file)?;
        let (_, source_file) = file.target_of.as_ref()?;
        let source_file = *source_file;
        let edition = file
            .parsed
            .document
            .blocks
            .get(loc.block)?
            .edition(&loc.edition)?;
        let empty = match branch {
            None => kapi_core::model::plain_empty(&edition.runs),
            // A branch of an empty value with no switch reads as empty too.
            Some(path) => match edition.branch(path) {
                Some(runs) => kapi_core::model::plain_empty(runs),
                None => kapi_core::model::plain_empty(&edition.runs),
            },
        };
        if !empty {
            return None;
        }
        let si = self.source_of(loc.file, loc.block)?;
        Some(
            self.files[source_file]
                .parsed
                .document
                .blocks
                .get(si)?
                .source
                .clone(),
        )
    }

    /// Applies one content operation in memory.
    fn content(&mut self, op: &Operation, at: &Ref) -> Result<(Loc, OpResult), Refused> {
        let loc = self.locate_as(at, true)?;
        // An empty value of a catalog's translation file (`""`, what i18next-parser writes)
        // starts as its source, as a bilingual file's empty target does.
        let catalog_source = self.empty_target_source(&loc, at.branch.as_deref());
        let file = &mut self.files[loc.file];
        let info = file.format.info();
        let bilingual_target = info.capabilities.bilingual && loc.edition != SOURCE;
        admit_content(op, at, info, &file.parsed.document.blocks[loc.block], &loc)?;
        let original = file
            .originals
            .get(&loc.block)
            .and_then(|b| b.editions.get(&loc.edition))
            .cloned();
        // A branch of an empty target reads as empty (`seed` gives it its source's runs).
        let read_rev = original.as_ref().and_then(|e| match &at.branch {
            None => Some(e.rev()),
            Some(path) => e
                .branch(path)
                .map(rev_runs)
                .or_else(|| kapi_core::model::plain_empty(&e.runs).then(|| rev_runs(&[]))),
        });
        let source = file.parsed.document.blocks[loc.block].source.clone();
        let draft = self.draft.then(|| draft_state(info.id)).flatten();
        let Some(edition) = file.parsed.document.blocks[loc.block].edition_mut(&loc.edition) else {
            return Err(refused(OpStatus::NotFound, "the edition is gone"));
        };
        let before = edition.clone();
        // An empty target (a PO `msgstr ""`, a JSON `""`) starts as its source, so the `<x id>`
        // tags an edit sends are its source's; the rev read stays the empty one's.
        let mut read_rev = read_rev;
        if bilingual_target {
            seed(edition, &source, at.branch.as_deref(), &mut read_rev);
        } else if let Some(source) = &catalog_source {
            seed(edition, source, at.branch.as_deref(), &mut read_rev);
        }
        let mut outcome = edit::apply(edition, op, read_rev.as_deref());
        // The seeded source given back fills the empty target all the same (an allowed
        // `URL` a provider answers as is): a change of the file, not "unchanged".
        if matches!(outcome, Edited::Unchanged) && edition.rev() != before.rev() {
            outcome = Edited::Applied { count: None };
        }
        if bilingual_target && matches!(outcome, Edited::Applied { .. }) {
            match draft {
                Some(state) => edition.state = Some(state.into()),
                // A person's text is no draft: the mark a draft carries goes (a rejected
                // draft's text written back reads as it did).
                None if !self.draft => {
                    if let Some(state) = decided_state(info.id, edition.state.as_deref()) {
                        edition.state = state.map(Into::into);
                    }
                }
                None => {}
            }
        }
        if !matches!(outcome, Edited::Applied { .. }) {
            *edition = before.clone();
        }
        let mut res = OpResult::new(0, op.name(), OpStatus::Applied, "applied");
        res.at = Some(at.clone());
        match outcome {
            Edited::Applied { count } => {
                res.count = count;
                res.rev = edit::current(edition, at.branch.as_deref()).map(|c| c.rev);
                if let Some(n) = count {
                    res.message = format!("applied: {n} replaced");
                }
                file.originals
                    .entry(loc.block)
                    .or_insert_with(|| Block0 {
                        editions: BTreeMap::new(),
                    })
                    .editions
                    .entry(loc.edition.clone())
                    .or_insert(before);
            }
            Edited::Unchanged => {
                res.status = OpStatus::Unchanged;
                res.rev = edit::current(edition, at.branch.as_deref()).map(|c| c.rev);
                res.message = "unchanged: the edition already holds this content".into();
            }
            Edited::Stale(current) => {
                res.status = OpStatus::Stale;
                res.message = format!(
                    "the edition moved since it was read (now {}); rebase on `current` and send its rev",
                    current.rev
                );
                res.current = Some(current);
            }
            Edited::Guard(g) => {
                res.status = OpStatus::Guard;
                res.message = g.message.clone();
                res.guard = Some(g);
            }
            Edited::NotFound(message) => {
                res.status = OpStatus::NotFound;
                res.message = message;
            }
        }
        Ok((loc, res))
    }

    /// Checks a decision's edition and revision; returns the revision it binds to.
    fn decide(&mut self, at: &Ref, if_match: &str) -> Result<String, Refused> {
        let loc = self.locate(at)?;
        let d = match self.docs.get(&at.doc) {
            Some(Ok(d)) => *d,
            _ => return Err(refused(OpStatus::NotFound, "the document is gone")),
        };
        if !self.doc_list[d].in_project {
            return Err(Refused {
                status: OpStatus::Unsupported,
                message: "a decision is recorded in a project; this document is in none".into(),
                instead: Some("run `kapi init` in the project's root first".into()),
            });
        }
        let file = &self.files[loc.file];
        let block = &file.parsed.document.blocks[loc.block];
        let Some(edition) = block.edition(&loc.edition) else {
            return Err(refused(OpStatus::NotFound, "the edition is gone"));
        };
        let Some(now) = edit::current(edition, at.branch.as_deref()) else {
            return Err(refused(
                OpStatus::NotFound,
                format!("no branch `{}`", at.branch.as_deref().unwrap_or("")),
            ));
        };
        let read = file
            .originals
            .get(&loc.block)
            .and_then(|b| b.editions.get(&loc.edition))
            .and_then(|e| edit::current(e, at.branch.as_deref()))
            .map(|c| c.rev);
        if if_match != kapi_core::change::BLIND
            && if_match != now.rev
            && Some(if_match) != read.as_deref()
        {
            return Err(Refused {
                status: OpStatus::Stale,
                message: format!(
                    "the edition moved since it was read (now {}); read it again before deciding",
                    now.rev
                ),
                instead: None,
            });
        }
        Ok(now.rev)
    }

    /// Each applied content operation's text before the set (its edition's, or its branch's
    /// when it names one), as agents read it: what `kapi review` shows a draft replaced and
    /// what `--reject` restores. An edition the set created replaced the empty text.
    fn befores(
        &self,
        set: &kapi_core::change::ChangeSet,
        touched: &BTreeMap<Loc, Vec<usize>>,
    ) -> BTreeMap<usize, String> {
        let mut out = BTreeMap::new();
        for (loc, ops) in touched {
            let original = self.files[loc.file]
                .originals
                .get(&loc.block)
                .and_then(|b| b.editions.get(&loc.edition));
            for &i in ops {
                let branch = set
                    .operations
                    .get(i)
                    .and_then(|op| op.at())
                    .and_then(|at| at.branch.as_deref());
                let runs = original.and_then(|e| match branch {
                    None => Some(e.runs.as_slice()),
                    Some(path) => e.branch(path),
                });
                out.insert(
                    i,
                    runs.map(kapi_core::projection::render_text)
                        .unwrap_or_default(),
                );
            }
        }
        out
    }

    /// Each applied operation on a translation's rev of its source edition as the set leaves it
    /// (a bilingual file's language edition, or a catalog translation file's block): what the
    /// store records as `source_rev`, so a later change of the source shows the translation
    /// stale (`crate::services::translation`).
    fn source_revs(
        &self,
        set: &kapi_core::change::ChangeSet,
        touched: &BTreeMap<Loc, Vec<usize>>,
    ) -> BTreeMap<usize, String> {
        let mut out = BTreeMap::new();
        for (loc, ops) in touched {
            let Some(file) = self.files.get(loc.file) else {
                continue;
            };
            let Some(block) = file.parsed.document.blocks.get(loc.block) else {
                continue;
            };
            let source = if loc.edition != SOURCE {
                Some(&block.source)
            } else if let Some((_, si)) = &file.target_of {
                let blocks = self.files.get(*si).map(|f| &f.parsed.document.blocks);
                let aligned = self
                    .sources
                    .get(&loc.file)
                    .and_then(|back| back.get(loc.block).copied().flatten());
                blocks.and_then(|blocks| {
                    aligned
                        .and_then(|i| blocks.get(i))
                        .or_else(|| blocks.iter().find(|b| b.key == block.key))
                        .map(|b| &b.source)
                })
            } else {
                None
            };
            let Some(source) = source else { continue };
            for &i in ops {
                if set.operations.get(i).is_some_and(|op| op.at().is_some()) {
                    out.insert(i, source.rev());
                }
            }
        }
        out
    }

    /// Every edited edition as (document, text before, text after), for agent signals.
    fn edits(&self, touched: &BTreeMap<Loc, Vec<usize>>) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for loc in touched.keys() {
            let file = &self.files[loc.file];
            let (Some(before), Some(after)) = (
                file.originals
                    .get(&loc.block)
                    .and_then(|b| b.editions.get(&loc.edition)),
                file.parsed
                    .document
                    .blocks
                    .get(loc.block)
                    .and_then(|b| b.edition(&loc.edition)),
            ) else {
                continue;
            };
            let doc = relative_to(&file.abs, &self.root).unwrap_or_else(|| file.doc.clone());
            out.push((doc, before.plain_text(), after.plain_text()));
        }
        out
    }
}
