//! One change set being applied, one method per phase in the order the module docs of
//! [`super`] give: policy, content, stage, decisions, commit check, assets, settle, write
//! (with the record). Each phase reads what the earlier ones left and marks refusals.

use std::collections::{BTreeMap, BTreeSet};

use kapi_core::change::Operation;
use kapi_core::change::RESULT_SCHEMA;
use kapi_core::change::result::{
    ActorStamp, ChangeResult, DocResult, OpResult, OpStatus, SetStatus,
};
use kapi_core::change::stage::{self, Fault, StagedFile};

use super::assets::Prepared;
use super::{
    ApplyRequest, Loc, Service, Staged, any_refused, append_error, combine, describe, doc_landed,
    nothing_landed, op_is_document, real_path, refusal,
};
use crate::app::Actor;
use crate::error::HostError;
use crate::policy;

/// A set in progress: the service holding the documents read, each operation's result as
/// the phases decide it, and what the later phases need.
pub(super) struct Run<'a> {
    svc: Service<'a>,
    actor: &'a Actor,
    request: &'a ApplyRequest,
    results: Vec<Option<OpResult>>,
    /// Which operations changed which edition, for the commit check and the signals.
    touched: BTreeMap<Loc, Vec<usize>>,
    staged: Vec<Staged>,
    fingerprints: BTreeSet<String>,
    prepared: Prepared,
}

/// What [`Run::settle`] leaves: a result to return as it is (refused, or a dry run), or one
/// to write, with the operations' results.
pub(super) enum Settled {
    Done(ChangeResult),
    Write(ChangeResult, Vec<OpResult>),
}

/// The files of one commit: the documents first (`docs` of them), then the assets.
struct CommitFiles {
    all: Vec<StagedFile>,
    docs: usize,
}

/// The error of a commit that stopped after some files landed: at a document (`at_document`:
/// no document after it and no asset was written), or at an asset once every document had.
fn partial_error(what: &str, at_document: bool, landed: &[&str], lost_assets: &[&str]) -> String {
    if at_document {
        format!(
            "{what}; landed: {} (no document after it and no asset was written)",
            landed.join(", ")
        )
    } else {
        format!(
            "{what}; every document landed ({}), but not {}",
            landed.join(", "),
            lost_assets.join(", ")
        )
    }
}

impl<'a> Run<'a> {
    pub(super) fn new(mut svc: Service<'a>, actor: &'a Actor, request: &'a ApplyRequest) -> Self {
        svc.draft = actor.kind != "person";
        Run {
            svc,
            actor,
            request,
            results: vec![None; request.set.operations.len()],
            touched: BTreeMap::new(),
            staged: Vec::new(),
            fingerprints: BTreeSet::new(),
            prepared: Prepared::default(),
        }
    }

    fn refused(&self) -> bool {
        any_refused(&self.results)
    }

    /// Phase 1, the actor's policy: an operation the actor may not send is `not_permitted`.
    pub(super) fn policy(&mut self) {
        let set = &self.request.set;
        for (i, op) in set.operations.iter().enumerate() {
            if let Some(r) = policy::check(self.actor, op, set.gate, self.svc.app.surface) {
                let mut res = OpResult::new(i, op.name(), OpStatus::NotPermitted, r.message);
                res.at = op.at().cloned();
                res.instead = Some(r.instead);
                self.results[i] = Some(res);
            }
        }
    }

    /// Phase 2, content operations, in memory, in the set's order. A translation file named as its
    /// own document is that language's edition of its source (check::plan), so it is opened through
    /// the source and held to the translation analyzers like any other translation.
    pub(super) fn content(&mut self) -> Result<(), HostError> {
        let set = &self.request.set;
        let svc = &mut self.svc;
        svc.plan_translations(set)?;
        if let Some(docs) = svc.splice.as_mut() {
            *docs = super::splice::eligible(set);
        }
        for op in &set.operations {
            let Some(at) = op.at() else { continue };
            svc.blocks
                .entry(at.doc.clone())
                .or_default()
                .insert(at.block.clone());
            if at.edition != kapi_core::model::SOURCE {
                svc.langs
                    .entry(at.doc.clone())
                    .or_default()
                    .insert(at.edition.clone());
            }
            if let Some((source, lang)) = svc.translations.get(&at.doc) {
                svc.langs
                    .entry(source.clone())
                    .or_default()
                    .insert(lang.clone());
            }
        }
        // Comments and documents in one set: the comment edits are refused.
        let root = svc.root.clone();
        let comment_doc = |doc: &str| crate::document::comment_format(&root.join(doc)).is_some();
        let docs: Vec<bool> = set
            .operations
            .iter()
            .filter(|op| op.is_content())
            .filter_map(|op| op.at().map(|at| comment_doc(&at.doc)))
            .collect();
        svc.mixed = docs.contains(&true) && docs.contains(&false);
        for (i, op) in set.operations.iter().enumerate() {
            if self.results[i].is_some() || !op.is_content() {
                continue;
            }
            let Some(at) = op.at() else { continue };
            let res = match svc.content(op, at) {
                Ok((loc, res)) => {
                    if res.status == OpStatus::Applied {
                        self.touched.entry(loc).or_default().push(i);
                    }
                    res
                }
                Err(r) => refusal(i, op, r),
            };
            self.results[i] = Some(OpResult { index: i, ..res });
        }
        Ok(())
    }

    /// Phase 3, every changed document rendered (staged) and read back: an edit lands as the next
    /// read will see it (text that spells a placeholder reads back as that placeholder), and the
    /// decisions, the commit check and the revs the result reports all use what was read.
    pub(super) fn stage(&mut self) {
        if !self.refused() {
            self.staged = self
                .svc
                .stage(&self.request.set, &self.touched, &mut self.results);
        }
    }

    /// Phase 4, decisions: each located and bound to its edition's revision after the edits.
    pub(super) fn decisions(&mut self) {
        for (i, op) in self.request.set.operations.iter().enumerate() {
            if self.results[i].is_some() {
                continue;
            }
            if let Operation::Decide { at, if_match, .. } = op
                && let Err(r) = self.svc.decide(at, if_match)
            {
                self.results[i] = Some(refusal(i, op, r));
            }
        }
    }

    /// Phase 5, the commit check on every changed edition, when nothing is refused yet.
    pub(super) fn commit_check(&mut self) -> Result<(), HostError> {
        if !self.refused() {
            self.svc.commit_check(
                &self.request.set,
                &self.touched,
                &mut self.results,
                &mut self.fingerprints,
            )?;
        }
        Ok(())
    }

    /// Phase 6, assets, prepared (validated) before anything is written, when nothing is refused.
    pub(super) fn assets(&mut self) -> Result<(), HostError> {
        if !self.refused() {
            self.prepared =
                self.svc
                    .prepare_assets(&self.request.set, self.actor, &mut self.results)?;
        }
        Ok(())
    }

    /// Phase 7, every operation answered: one refusal makes every other `not_applied` and the set
    /// refused, writing nothing and listing no revision after; a dry run ends here too.
    pub(super) fn settle(&mut self) -> Settled {
        let set = &self.request.set;
        let refused_any = self.refused();
        if refused_any {
            // A refused set writes nothing and lists no document.
            self.staged.clear();
        }
        for (i, op) in set.operations.iter().enumerate() {
            match &mut self.results[i] {
                Some(r) if refused_any && !r.status.refuses() => {
                    r.status = OpStatus::NotApplied;
                    r.message = "not applied: another operation was refused".into();
                    r.rev = None;
                }
                Some(_) => {}
                None => {
                    let mut r = if refused_any {
                        OpResult::new(
                            i,
                            op.name(),
                            OpStatus::NotApplied,
                            "not applied: another operation was refused",
                        )
                    } else {
                        self.prepared.results.remove(&i).unwrap_or_else(|| {
                            OpResult::new(i, op.name(), OpStatus::Applied, "applied")
                        })
                    };
                    r.at = op.at().cloned();
                    self.results[i] = Some(r);
                }
            }
        }
        let mut operations: Vec<OpResult> = std::mem::take(&mut self.results)
            .into_iter()
            .flatten()
            .collect();
        for op in &mut operations {
            if op.status.refuses() || op.status == OpStatus::NotApplied {
                op.rev = None;
            }
        }
        // Documents: a diff per changed file.
        let documents = self
            .staged
            .iter_mut()
            .map(|staged| {
                let file = &self.svc.files[staged.file];
                DocResult {
                    doc: file.doc.clone(),
                    written: false,
                    rev_before: file.read.rev(),
                    rev_after: Some(staged.rev.clone()),
                    diff: std::mem::take(&mut staged.diff),
                    comment_write: staged.comment.take(),
                }
            })
            .collect();
        let mut result = ChangeResult {
            schema: RESULT_SCHEMA,
            status: SetStatus::Applied,
            dry_run: self.request.dry_run,
            actor: ActorStamp {
                kind: self.actor.kind.clone(),
                name: self.actor.name.clone(),
                session: self.actor.session.clone(),
            },
            operations: Vec::new(),
            documents,
            fingerprint: combine(&self.fingerprints),
            change: None,
            error: None,
        };
        if refused_any {
            for d in &mut result.documents {
                d.rev_after = None;
            }
            result.status = SetStatus::Refused;
            result.operations = operations;
            return Settled::Done(result);
        }
        if operations.iter().all(|o| o.status == OpStatus::Unchanged) {
            result.status = SetStatus::Unchanged;
        }
        if self.request.dry_run {
            result.operations = operations;
            return Settled::Done(result);
        }
        Settled::Write(result, operations)
    }

    /// Phase 8, the write. Everything that can fail is checked or staged before the first document
    /// is written: the store opened, migrated and writable (when the change is recorded), and every
    /// asset rendered as a file of the same commit, renamed after the documents. Once a file
    /// landed, a failure is a `partial` result naming what landed.
    pub(super) fn write(
        mut self,
        mut result: ChangeResult,
        operations: Vec<OpResult>,
    ) -> ChangeResult {
        let all_unchanged = result.status == SetStatus::Unchanged;
        let recorded = self.svc.project.is_some() && !all_unchanged;
        let store = if recorded {
            match self.svc.writable_store() {
                Ok(store) => store,
                Err(e) => {
                    return nothing_landed(
                        result,
                        operations,
                        format!("{}; nothing was written", describe(&e)),
                        "not applied: the change could not be recorded, so nothing was written",
                    );
                }
            }
        } else {
            None
        };
        let files = match self.commit_files() {
            Ok(files) => files,
            Err(e) => {
                return nothing_landed(
                    result,
                    operations,
                    format!("{}; nothing was written", describe(&e)),
                    "not applied: an asset could not be read, so nothing was written",
                );
            }
        };
        let committed = self.commit(&files.all);
        for (d, landed) in result.documents.iter_mut().zip(&committed.landed) {
            d.written = *landed;
            if !*landed {
                d.rev_after = None;
            }
        }
        if let Some((i, e)) = &committed.error {
            return self.interrupted(result, operations, &files, &committed, (*i, e), store);
        }
        result.operations = operations;
        if recorded {
            self.record(store.as_ref(), &mut result);
        }
        result
    }

    /// The files of the commit: the rendered documents (their bytes move here, so a document
    /// is not held twice), then the assets.
    fn commit_files(&mut self) -> Result<CommitFiles, HostError> {
        let svc = &self.svc;
        let mut all: Vec<StagedFile> = std::mem::take(&mut self.staged)
            .into_iter()
            .map(|s| StagedFile {
                doc: svc.files[s.file].doc.clone(),
                path: svc.files[s.file].real.clone(),
                bytes: s.bytes,
            })
            .collect();
        let docs = all.len();
        all.extend(svc.asset_files(&self.prepared)?);
        Ok(CommitFiles { all, docs })
    }

    /// Writes the files as one commit. In a project, every folder is walked from its real root
    /// without following a link.
    fn commit(&self, files: &[StagedFile]) -> stage::Committed {
        let svc = &self.svc;
        let real_root = svc.project.as_ref().map(|_| real_path(&svc.root));
        let app = svc.app;
        stage::commit(
            files,
            &stage::Control {
                within: real_root.as_deref(),
                fault: Fault {
                    fail_rename: app.env.fail_rename,
                    pause_rename: app.env.pause_rename,
                },
                stop: Some(app.stop.flag()),
            },
        )
    }

    /// A commit that stopped at file `failed` (a failed rename, or a signal): refused when
    /// nothing landed; else a `partial` result naming what landed, each operation whose file
    /// was not written marked `not_applied`, and recorded as such.
    fn interrupted(
        &self,
        mut result: ChangeResult,
        mut operations: Vec<OpResult>,
        files: &CommitFiles,
        committed: &stage::Committed,
        (i, e): (usize, &std::io::Error),
        store: Option<super::assets::StoreHandle>,
    ) -> ChangeResult {
        let svc = &self.svc;
        let set = &self.request.set;
        let what = if committed.interrupted() {
            format!(
                "stopped by a signal before `{}` was written",
                files.all[i].doc
            )
        } else {
            format!("writing `{}` failed: {e}", files.all[i].doc)
        };
        if !committed.landed.iter().any(|l| *l) {
            // Nothing landed: the set is refused, not partial, and no change to record.
            return nothing_landed(
                result,
                operations,
                format!("{what}; nothing was written"),
                "not applied: the write failed before any document landed",
            );
        }
        let n_docs = files.docs;
        let documents = &files.all[..n_docs];
        let landed_docs: Vec<&str> = documents
            .iter()
            .zip(&committed.landed)
            .filter(|(_, l)| **l)
            .map(|(f, _)| f.doc.as_str())
            .collect();
        let lost_assets: Vec<&str> = files.all[i.max(n_docs)..]
            .iter()
            .map(|f| f.doc.as_str())
            .collect();
        result.status = SetStatus::Partial;
        result.error = Some(partial_error(&what, i < n_docs, &landed_docs, &lost_assets));
        for op in &mut operations {
            let doc_lost = op
                .at
                .as_ref()
                .is_some_and(|at| !doc_landed(svc, documents, &committed.landed, at));
            let asset_lost = op
                .landed
                .as_deref()
                .is_some_and(|l| lost_assets.contains(&l))
                || (!op_is_document(&set.operations[op.index]) && i < n_docs);
            if op.status == OpStatus::Applied && (doc_lost || asset_lost) {
                op.status = OpStatus::NotApplied;
                op.message = "not applied: the write was interrupted before it landed".into();
                op.rev = None;
            }
        }
        result.operations = operations;
        if let Err(e) = svc.record(
            store.as_ref(),
            self.actor,
            set,
            &result,
            &Prepared::default(),
            "partial",
            &[],
            &svc.befores(set, &self.touched),
            &svc.source_revs(set, &self.touched),
        ) {
            append_error(
                &mut result,
                &format!("the partial change was not recorded: {}", describe(&e)),
            );
        }
        result
    }

    /// Phase 9, the record (with each edit as an agent signal for the suggestions that prefer what
    /// it wrote), then kept notes and the rules files. The documents and assets have landed: a
    /// failure here is a `partial` result that says what did not happen.
    fn record(&self, store: Option<&super::assets::StoreHandle>, result: &mut ChangeResult) {
        let svc = &self.svc;
        let edits = svc.edits(&self.touched);
        let befores = svc.befores(&self.request.set, &self.touched);
        let recorded = svc.record(
            store,
            self.actor,
            &self.request.set,
            result,
            &self.prepared,
            "applied",
            &edits,
            &befores,
            &svc.source_revs(&self.request.set, &self.touched),
        );
        match recorded {
            Ok(id) => {
                result.change = id;
                if let Err(e) = svc.keep_notes(self.actor, &self.prepared, &mut result.operations) {
                    result.status = SetStatus::Partial;
                    append_error(
                        result,
                        &format!(
                            "every document and asset landed and the change is recorded, but the notes were not kept: {}",
                            describe(&e)
                        ),
                    );
                    for (i, _) in &self.prepared.notes {
                        if let Some(r) = result.operations.iter_mut().find(|r| r.index == *i) {
                            r.status = OpStatus::NotApplied;
                            r.message = "not applied: the note could not be kept".into();
                        }
                    }
                }
            }
            Err(e) => {
                result.status = SetStatus::Partial;
                append_error(
                    result,
                    &format!(
                        "every document and asset landed, but the change was not recorded: {}",
                        describe(&e)
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use kapi_core::formats::Format;
    use serde_json::{Value, json};

    use super::*;
    use crate::app::App;

    const PAGE: &str = "# A\n\nSign in to begin.\n";

    /// A project with one page and a voice that forbids `utilize`, and an app bound to it.
    fn project() -> (tempfile::TempDir, App) {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write(
            "kapi.yaml",
            "version: v1\nname: t\ndefaults:\n  voice: .kapi/voice.yaml\ncollections:\n  - path: \"docs/**/*.md\"\n",
        );
        write(
            ".kapi/voice.yaml",
            "name: t\nvocabulary:\n  forbidden:\n    - term: utilize\n      replacement: use\n      severity: major\n",
        );
        write("docs/a.md", PAGE);
        let app = App::new(crate::env::Env::default(), root.clone(), Some(root));
        (dir, app)
    }

    fn rev(root: &Path) -> String {
        let text = std::fs::read(root.join("docs/a.md")).expect("the page");
        let parsed = kapi_core::formats::markdown::Markdown
            .read(&text)
            .expect("markdown");
        parsed
            .document
            .block("s1/p")
            .expect("the paragraph")
            .source
            .rev()
    }

    fn set(operations: Value, dry_run: bool) -> ApplyRequest {
        let set = json!({"schema": "kapi.change/v1", "operations": operations});
        ApplyRequest {
            set: kapi_core::change::decode(set.to_string().as_bytes()).expect("a change set"),
            dry_run,
        }
    }

    fn edit(content: &str, if_match: &str) -> Value {
        json!({"op": "set_content", "at": {"doc": "docs/a.md", "block": "s1/p", "edition": "source"},
               "if_match": if_match, "content": content})
    }

    fn person() -> Actor {
        Actor {
            kind: "person".into(),
            name: "t".into(),
            session: "s".into(),
        }
    }

    fn start<'a>(app: &'a App, actor: &'a Actor, request: &'a ApplyRequest) -> Run<'a> {
        let project = app.project().expect("the project").expect("a project");
        let root = project.root.clone();
        Run::new(Service::new(app, Some(project), root), actor, request)
    }

    /// Every phase up to the write.
    fn through_settle<'a>(
        app: &'a App,
        actor: &'a Actor,
        request: &'a ApplyRequest,
    ) -> (Settled, Run<'a>) {
        let mut run = start(app, actor, request);
        run.policy();
        run.content().expect("content");
        run.stage();
        run.decisions();
        run.commit_check().expect("check");
        run.assets().expect("assets");
        (run.settle(), run)
    }

    fn status(run: &Run<'_>, i: usize) -> Option<OpStatus> {
        run.results[i].as_ref().map(|r| r.status)
    }

    #[test]
    fn a_partial_error_names_what_landed_and_what_did_not() {
        assert_eq!(
            partial_error(
                "writing `b.md` failed: boom",
                true,
                &["a.md"],
                &[".kapi/terms.yaml"]
            ),
            "writing `b.md` failed: boom; landed: a.md (no document after it and no asset was written)"
        );
        assert_eq!(
            partial_error(
                "writing `.kapi/terms.yaml` failed: boom",
                false,
                &["a.md", "b.md"],
                &[".kapi/terms.yaml", ".kapi/decisions.jsonl"]
            ),
            "writing `.kapi/terms.yaml` failed: boom; every document landed (a.md, b.md), but not .kapi/terms.yaml, .kapi/decisions.jsonl"
        );
    }

    #[test]
    fn the_policy_refuses_what_the_actor_may_not_send() {
        let (_dir, app) = project();
        let agent = Actor {
            kind: "agent".into(),
            ..person()
        };
        // A blind write (`if_match: "*"`) is a person's only.
        let request = set(json!([edit("Sign in to start.", "*")]), false);
        let mut refused = start(&app, &agent, &request);
        refused.policy();
        assert_eq!(status(&refused, 0), Some(OpStatus::NotPermitted));
        let actor = person();
        let mut allowed = start(&app, &actor, &request);
        allowed.policy();
        assert_eq!(status(&allowed, 0), None);
    }

    #[test]
    fn content_applies_in_memory_and_refuses_a_stale_revision() {
        let (dir, app) = project();
        let actor = person();
        let good = set(json!([edit("Sign in to start.", &rev(dir.path()))]), false);
        let mut run = start(&app, &actor, &good);
        run.content().expect("content");
        assert_eq!(status(&run, 0), Some(OpStatus::Applied));
        assert_eq!(run.touched.len(), 1);
        // Nothing is written by the content phase.
        assert_eq!(
            std::fs::read_to_string(dir.path().join("docs/a.md"))
                .ok()
                .as_deref(),
            Some(PAGE)
        );

        let stale = set(
            json!([edit("Sign in to start.", "r0000000000000000")]),
            false,
        );
        let mut run = start(&app, &actor, &stale);
        run.content().expect("content");
        assert_eq!(status(&run, 0), Some(OpStatus::Stale));
        assert!(run.touched.is_empty());
    }

    #[test]
    fn stage_renders_the_edit_and_the_commit_check_refuses_what_it_introduces() {
        let (dir, app) = project();
        let actor = person();
        let request = set(json!([edit("Utilize the app.", &rev(dir.path()))]), false);
        let mut run = start(&app, &actor, &request);
        run.content().expect("content");
        run.stage();
        assert_eq!(run.staged.len(), 1);
        let staged = String::from_utf8_lossy(&run.staged[0].bytes).into_owned();
        assert!(staged.contains("Utilize the app."), "{staged}");
        run.decisions();
        run.commit_check().expect("the check runs");
        assert_eq!(status(&run, 0), Some(OpStatus::GateFailed));
        run.assets().expect("assets");
        let Settled::Done(result) = run.settle() else {
            panic!("a refused set is done at settle");
        };
        assert_eq!(result.status, SetStatus::Refused);
        assert!(
            result.documents.is_empty(),
            "a refused set lists no document"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("docs/a.md"))
                .ok()
                .as_deref(),
            Some(PAGE)
        );
    }

    #[test]
    fn settle_ends_a_dry_run_and_write_lands_and_records_the_rest() {
        let (dir, app) = project();
        let actor = person();
        let r = rev(dir.path());
        let dry = set(json!([edit("Sign in to start.", &r)]), true);
        let (settled, _) = through_settle(&app, &actor, &dry);
        let Settled::Done(result) = settled else {
            panic!("a dry run is done at settle");
        };
        assert!(result.dry_run && result.documents[0].diff.contains("+Sign in to start."));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("docs/a.md"))
                .ok()
                .as_deref(),
            Some(PAGE)
        );

        let real = set(json!([edit("Sign in to start.", &r)]), false);
        let (settled, run) = through_settle(&app, &actor, &real);
        let Settled::Write(result, operations) = settled else {
            panic!("an applied set is written");
        };
        let result = run.write(result, operations);
        assert_eq!(result.status, SetStatus::Applied, "{:?}", result.error);
        assert!(result.documents[0].written);
        assert!(result.change.is_some(), "the change is recorded");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("docs/a.md"))
                .ok()
                .as_deref(),
            Some("# A\n\nSign in to start.\n")
        );
    }
}
