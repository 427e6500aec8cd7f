//! The asset operations of a change set (term, memory, recipe, decide, note): validated and
//! rendered before anything is written, staged as files of the documents' commit (renamed after
//! them), then recorded in the store with the set's context operations.

use super::*;

/// A shared handle on an open store.
pub(super) type StoreHandle = std::sync::Arc<std::sync::Mutex<kapi_core::store::Store>>;

use kapi_core::project::layout::DECISIONS_FILE;

/// Assets validated and rendered, waiting for the documents to land.
#[derive(Default)]
pub(super) struct Prepared {
    /// New `.kapi/terms.yaml` text (path, text), when a term changed it.
    terms_file: Option<(PathBuf, String)>,
    terms: Vec<TermRow>,
    memory: Vec<MemoryRow>,
    advice: Vec<AdviceRow>,
    /// Lines for `.kapi/decisions.jsonl`.
    decisions: Vec<String>,
    recipe: Option<kapi_core::project::Recipe>,
    /// `kapi.yaml` edited in place (comments and layout kept), when every field could be.
    recipe_text: Option<String>,
    ops: Vec<NewOp>,
    /// Notes a person keeps through the set (op index, the note as a suggestion).
    pub(super) notes: Vec<(usize, NewSuggestion)>,
    pub(super) results: HashMap<usize, OpResult>,
}

/// What preparing one asset operation came to.
#[derive(Debug)]
enum Prepped {
    /// Its result once the set lands (the rows and files it needs are in [`Prepared`]).
    Lands(OpResult),
    /// A refusal of the operation, which refuses the set.
    Refused(OpResult),
    /// Nothing to say: not an asset, or decided elsewhere.
    Nothing,
}

/// One asset operation being prepared: its index, who sends it, the instant, and the
/// evidence its context operation records.
struct AssetOp<'a> {
    index: usize,
    actor: &'a Actor,
    now: &'a str,
    evidence: serde_json::Value,
}

impl AssetOp<'_> {
    /// The context operation this one records (`kind`, at `path`).
    fn op(&self, kind: &str, path: Option<String>) -> NewOp {
        crate::notes::op(self.actor, kind, path, self.evidence.clone(), self.now)
    }

    fn result(&self, name: &'static str, status: OpStatus, message: impl Into<String>) -> OpResult {
        OpResult::new(self.index, name, status, message)
    }
}

/// The recipe as the set's `recipe` operations leave it: the value, and the text of
/// `kapi.yaml` edited field by field in place (a field that cannot be is refused).
struct RecipeDraft {
    recipe: Option<kapi_core::project::Recipe>,
    text: Option<String>,
    changed: bool,
}

impl RecipeDraft {
    fn read(project: Option<&Project>) -> Self {
        RecipeDraft {
            recipe: project.map(|p| p.recipe.clone()),
            text: project.and_then(|p| std::fs::read_to_string(&p.recipe_path).ok()),
            changed: false,
        }
    }

    /// Sets `field` to `value`, in the value and in the text; only an edit in place is
    /// accepted, since a whole save would strip every comment.
    fn set(
        &mut self,
        project: &Project,
        cx: &AssetOp<'_>,
        field: &str,
        value: &serde_json::Value,
        out: &mut Prepared,
    ) -> Prepped {
        let Some(current) = self.recipe.as_ref() else {
            return Prepped::Nothing;
        };
        match recipe_field::set_field(current, &project.recipe_path, field, value) {
            Ok(Some(updated)) => {
                let Some(text) = self
                    .text
                    .as_deref()
                    .and_then(|t| recipe_text::set_in_text(t, field, value))
                else {
                    let mut r = cx.result(
                        "recipe",
                        OpStatus::Unsupported,
                        format!(
                            "kapi cannot set `{field}` in kapi.yaml in place (its layout there: an anchor, a flow or block scalar, a tab, a value that is not a scalar…), and a whole save would lose its comments; nothing was written"
                        ),
                    );
                    r.instead = Some(format!(
                        "edit `{field}` in kapi.yaml by hand, or make that part of the file plain block YAML and send the operation again"
                    ));
                    return Prepped::Refused(r);
                };
                self.recipe = Some(updated);
                self.changed = true;
                self.text = Some(text);
                out.ops
                    .push(cx.op("recipe", Some(layout::RECIPE_FILE.into())));
                let mut r = cx.result("recipe", OpStatus::Applied, format!("`{field}` set"));
                r.landed = Some(layout::RECIPE_FILE.into());
                Prepped::Lands(r)
            }
            Ok(None) => Prepped::Lands(cx.result(
                "recipe",
                OpStatus::Unchanged,
                format!("unchanged: `{field}` already holds that value"),
            )),
            Err(e) => {
                let mut r = cx.result("recipe", OpStatus::Unsupported, e.to_string());
                r.instead = kapi_core::Hint::hints(&e).into_iter().next();
                Prepped::Refused(r)
            }
        }
    }

    /// Hands the recipe to `out` when an operation changed it.
    fn finish(self, out: &mut Prepared) {
        if self.changed {
            out.recipe = self.recipe;
            out.recipe_text = self.text;
        }
    }
}

/// The refusal of a project's operation where there is no project.
fn needs_project(i: usize, op: &Operation) -> OpResult {
    let mut r = OpResult::new(
        i,
        op.name(),
        OpStatus::Unsupported,
        format!(
            "a `{}` operation changes a project; there is none here",
            op.name()
        ),
    );
    r.instead = Some("run it inside a project (`kapi init` creates one)".into());
    r
}

/// The status and message of a term upsert's outcome, with the concept it landed in.
fn upserted(upserted: &Upserted, text: &str, rel: &str) -> (OpStatus, String, String) {
    match upserted {
        Upserted::Unchanged { concept } => (
            OpStatus::Unchanged,
            concept.clone(),
            format!("unchanged: `{text}` is already in `{rel}`"),
        ),
        Upserted::Added { concept } => (
            OpStatus::Applied,
            concept.clone(),
            format!("`{text}` added to concept `{concept}`"),
        ),
        Upserted::Updated { concept } => (
            OpStatus::Applied,
            concept.clone(),
            format!("`{text}` updated in concept `{concept}`"),
        ),
        Upserted::NewConcept { concept } => (
            OpStatus::Applied,
            concept.clone(),
            format!("`{text}` added as new concept `{concept}`"),
        ),
    }
}

/// A `term` operation: the terms file's text with the term upserted (over an earlier term's
/// edit of the same set), and its row.
fn prepare_term(
    project: &Project,
    cx: &AssetOp<'_>,
    term: &terms_edit::TermUpsert,
    out: &mut Prepared,
) -> Result<Prepped, HostError> {
    let rel = project
        .recipe
        .defaults
        .terms_source
        .clone()
        .unwrap_or_else(|| layout::TERMS_FILE.to_owned());
    let path = project.root.join(&rel);
    let current = match &out.terms_file {
        Some((_, text)) => Some(text.clone()),
        None => match std::fs::read_to_string(&path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(HostError::io(&path, e)),
        },
    };
    let (text, outcome) = match terms_edit::upsert(current.as_deref(), &rel, term) {
        Ok(done) => done,
        Err(e) => {
            let mut r = cx.result("term", OpStatus::Unsupported, e.to_string());
            r.instead = kapi_core::Hint::hints(&e).into_iter().next();
            return Ok(Prepped::Refused(r));
        }
    };
    let (status, concept, message) = upserted(&outcome, &term.text, &rel);
    let mut r = cx.result("term", status, message);
    r.landed = Some(rel.clone());
    if status == OpStatus::Applied {
        out.terms.push(TermRow {
            concept,
            text: term.text.clone(),
            lang: term.lang.clone(),
            status: term.status.as_str().to_owned(),
            payload: serde_json::to_value(term).unwrap_or_default(),
        });
        out.ops.push(cx.op("term", Some(rel)));
        out.terms_file = Some((path, text));
    }
    Ok(Prepped::Lands(r))
}

/// A `memory` operation: its pair's row (the source language defaults to the recipe's).
fn prepare_memory(
    project: &Project,
    cx: &AssetOp<'_>,
    pair: &kapi_core::change::MemoryPair,
    out: &mut Prepared,
) -> Prepped {
    let source_lang = pair.source_lang.clone().unwrap_or_else(|| {
        project
            .recipe
            .defaults
            .source_language
            .clone()
            .unwrap_or_else(|| "en".into())
    });
    out.memory.push(MemoryRow {
        source_lang,
        source: pair.source.clone(),
        target_lang: pair.target_lang.clone(),
        target: pair.target.clone(),
        status: pair.status.clone(),
    });
    out.ops.push(cx.op("memory", None));
    let mut r = cx.result(
        "memory",
        OpStatus::Applied,
        "pair added to the content memory",
    );
    r.landed = Some("store".into());
    Prepped::Lands(r)
}

/// A `note` operation: the note as a suggestion a person keeps, when its path exists.
fn prepare_note(
    project: &Project,
    cx: &AssetOp<'_>,
    note: &kapi_core::change::NoteOp,
    out: &mut Prepared,
) -> Prepped {
    let rel = kapi_core::governance::notes::normal_path(&note.path);
    if !project.root.join(&rel).exists() {
        let mut r = cx.result(
            "note",
            OpStatus::NotFound,
            format!("no path `{}` in the project for the note", note.path),
        );
        r.instead = Some("name the folder or file the note applies to".into());
        return Prepped::Refused(r);
    }
    let actor = cx.actor;
    out.notes.push((
        cx.index,
        NewSuggestion {
            kind: if note.from.is_some() {
                "change"
            } else {
                "observation"
            }
            .into(),
            path: rel.clone(),
            text: note.text.clone(),
            from: note.from.clone(),
            to: note.to.clone(),
            suggest: note.suggest.clone(),
            actor_kind: actor.kind.clone(),
            actor_name: actor.name.clone(),
            session: actor.session.clone(),
            at: cx.now.to_owned(),
        },
    ));
    let mut r = cx.result(
        "note",
        OpStatus::Applied,
        format!("kept for `{}`", if rel.is_empty() { "." } else { &rel }),
    );
    r.landed = Some(crate::notes::NOTES_FILE.into());
    Prepped::Lands(r)
}

impl Service<'_> {
    /// Validates and renders every asset operation (nothing is written here).
    pub(super) fn prepare_assets(
        &mut self,
        set: &ChangeSet,
        actor: &Actor,
        results: &mut [Option<OpResult>],
    ) -> Result<Prepared, HostError> {
        let mut out = Prepared::default();
        let now = self.app.timestamp();
        let mut recipe = RecipeDraft::read(self.project.as_ref());
        for (i, op) in set.operations.iter().enumerate() {
            let decide = matches!(op, Operation::Decide { .. });
            if results[i].is_some() && !decide {
                continue;
            }
            let Some(project) = self.project.as_ref() else {
                if !op.is_content() && !decide {
                    results[i] = Some(needs_project(i, op));
                }
                continue;
            };
            let cx = AssetOp {
                index: i,
                actor,
                now: &now,
                evidence: serde_json::json!({
                    "change_set": {"index": i, "operations": set.operations.len()},
                    "operation": op,
                }),
            };
            let prepped = match op {
                Operation::Term { term } => prepare_term(project, &cx, term, &mut out)?,
                Operation::Memory { pair } => prepare_memory(project, &cx, pair, &mut out),
                Operation::Recipe { field, value } => {
                    recipe.set(project, &cx, field, value, &mut out)
                }
                // A decision refused earlier (its revision, the policy) stays refused.
                Operation::Decide { .. } if results[i].is_some() => Prepped::Nothing,
                Operation::Decide {
                    at,
                    outcome,
                    score,
                    reasons,
                    ..
                } => self.prepare_decide(&cx, at, *outcome, *score, reasons, &mut out),
                Operation::Note { note } => prepare_note(project, &cx, note, &mut out),
                Operation::SetContent { .. } | Operation::ReplaceText { .. } => Prepped::Nothing,
            };
            match prepped {
                Prepped::Lands(r) => {
                    out.results.insert(i, r);
                }
                Prepped::Refused(r) => results[i] = Some(r),
                Prepped::Nothing => {}
            }
        }
        recipe.finish(&mut out);
        Ok(out)
    }

    /// A `decide` operation, bound to the edition's revision after the set's edits: a
    /// person's is a line of the decisions file; an agent's `advise` is advice in the store;
    /// anything else says nothing here (the policy refused it).
    fn prepare_decide(
        &mut self,
        cx: &AssetOp<'_>,
        at: &Ref,
        outcome: Outcome,
        score: Option<u8>,
        reasons: &[String],
        out: &mut Prepared,
    ) -> Prepped {
        // The revision after the set's edits.
        let rev = match self.locate(at) {
            Ok(loc) => self.files[loc.file].parsed.document.blocks[loc.block]
                .edition(&loc.edition)
                .and_then(|e| edit::current(e, at.branch.as_deref()))
                .map(|c| c.rev)
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let actor = cx.actor;
        if policy::Kind::of(actor) == Some(policy::Kind::Person) {
            let line = serde_json::json!({
                "schema": "kapi.decision/v1",
                "at": at,
                "rev": rev,
                "outcome": outcome.as_str(),
                "score": score,
                "reasons": reasons,
                "by": {"kind": actor.kind, "name": actor.name},
                "session": actor.session,
                "decided_at": cx.now,
            });
            out.decisions.push(line.to_string());
            out.ops.push(cx.op("decide", Some(at.doc.clone())));
            let mut r = cx.result(
                "decide",
                OpStatus::Applied,
                format!("{} recorded at {rev}", outcome.as_str()),
            );
            r.rev = Some(rev);
            r.landed = Some(DECISIONS_FILE.into());
            Prepped::Lands(r)
        } else if outcome == Outcome::Advise {
            out.advice.push(AdviceRow {
                doc: at.doc.clone(),
                block: at.block.clone(),
                edition: at.edition.clone(),
                branch: at.branch.clone(),
                rev: rev.clone(),
                score: score.unwrap_or(0),
                reasons: reasons.to_vec(),
            });
            out.ops.push(cx.op("advise", Some(at.doc.clone())));
            let mut r = cx.result(
                "decide",
                OpStatus::Applied,
                format!("advice recorded at {rev}; a person decides"),
            );
            r.rev = Some(rev);
            r.landed = Some("store".into());
            Prepped::Lands(r)
        } else {
            Prepped::Nothing
        }
    }

    /// The prepared assets as files of the documents' commit, renamed after them: the terms
    /// file, the recipe (edited in place) and the decisions file with its new lines.
    pub(super) fn asset_files(&self, prepared: &Prepared) -> Result<Vec<StagedFile>, HostError> {
        let Some(project) = &self.project else {
            return Ok(Vec::new());
        };
        let rel = |path: &Path| {
            relative_to(path, &project.root).unwrap_or_else(|| path.display().to_string())
        };
        let mut out = Vec::new();
        let mut push = |path: &Path, bytes: Vec<u8>| -> Result<(), HostError> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| HostError::io(dir, e))?;
            }
            out.push(StagedFile {
                doc: rel(path),
                path: real_path(path),
                bytes,
            });
            Ok(())
        };
        if let Some((path, text)) = &prepared.terms_file {
            push(path, text.as_bytes().to_vec())?;
        }
        // A recipe operation lands only as an edit in place (see `prepare_assets`).
        if let (Some(text), Some(_)) = (&prepared.recipe_text, &prepared.recipe) {
            push(&project.recipe_path, text.as_bytes().to_vec())?;
        }
        if !prepared.decisions.is_empty() {
            let path = project.root.join(DECISIONS_FILE);
            let mut bytes = match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(HostError::io(&path, e)),
            };
            if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            for line in &prepared.decisions {
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
            }
            push(&path, bytes)?;
        }
        Ok(out)
    }

    /// The project's store, opened, migrated and shown writable, before anything is written.
    pub(super) fn writable_store(&self) -> Result<Option<StoreHandle>, HostError> {
        let Some(project) = &self.project else {
            return Ok(None);
        };
        let handle = self.app.store(&project.root.join(layout::STORE_FILE))?;
        crate::app::lock(&handle)?.writable()?;
        Ok(Some(handle))
    }

    /// Records the change, its context operations and its assets in the store (`store`: the
    /// handle shown writable before the first write, when there is one).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &self,
        store: Option<&StoreHandle>,
        actor: &Actor,
        set: &ChangeSet,
        result: &ChangeResult,
        prepared: &Prepared,
        status: &str,
        edits: &[(String, String, String)],
        befores: &std::collections::BTreeMap<usize, String>,
        source_revs: &std::collections::BTreeMap<usize, String>,
    ) -> Result<Option<i64>, HostError> {
        let Some(project) = &self.project else {
            return Ok(None);
        };
        if self.app.env.fail_record {
            return Err(HostError::Internal {
                message: format!(
                    "`{}` could not be written: injected failure (test hook)",
                    layout::STORE_FILE
                ),
            });
        }
        let now = self.app.timestamp();
        let handle = match store {
            Some(h) => h.clone(),
            None => self.app.store(&project.root.join(layout::STORE_FILE))?,
        };
        let mut store = crate::app::lock(&handle)?;
        store.touch_session(&SessionRow {
            id: actor.session.clone(),
            actor_kind: actor.kind.clone(),
            actor_name: actor.name.clone(),
            project: Some(project.root.display().to_string()),
            client: Some(self.app.client_name()),
            started_at: now.clone(),
            last_seen: now.clone(),
        })?;
        let documents: Vec<serde_json::Value> = result
            .documents
            .iter()
            .map(|d| {
                serde_json::json!({"doc": d.doc, "written": d.written,
                                   "rev_before": d.rev_before, "rev_after": d.rev_after})
            })
            .collect();
        let operations: Vec<serde_json::Value> = set
            .operations
            .iter()
            .zip(&result.operations)
            .map(|(op, r)| {
                let mut recorded =
                    serde_json::json!({"operation": op, "status": r.status.as_str(), "rev": r.rev});
                // The text an applied content operation replaced (`kapi review`'s view of a
                // draft, and what `--reject` restores).
                if r.status == OpStatus::Applied
                    && let Some(before) = befores.get(&r.index)
                {
                    recorded["before"] = serde_json::Value::from(before.as_str());
                }
                // The source's rev the translation was written against: a later change of
                // the source makes it stale.
                if r.status == OpStatus::Applied
                    && let Some(rev) = source_revs.get(&r.index)
                {
                    recorded["source_rev"] = serde_json::Value::from(rev.as_str());
                }
                recorded
            })
            .collect();
        let id = store.record_change(&ChangeRecord {
            actor_kind: actor.kind.clone(),
            actor_name: actor.name.clone(),
            session: actor.session.clone(),
            status: status.into(),
            fingerprint: result.fingerprint.clone(),
            operations: serde_json::Value::from(operations),
            documents: serde_json::Value::from(documents),
            created_at: now,
            ops: prepared.ops.clone(),
            terms: prepared.terms.clone(),
            memory: prepared.memory.clone(),
            advice: prepared.advice.clone(),
        })?;
        crate::notes::signal_edits(&store, edits)?;
        Ok(Some(id))
    }

    /// Keeps the notes the set carries: each is recorded as a suggestion (joining a pending
    /// one that says the same) and kept at once, then `.kapi/notes.yaml` and the rules files
    /// are written.
    pub(super) fn keep_notes(
        &self,
        actor: &Actor,
        prepared: &Prepared,
        operations: &mut [OpResult],
    ) -> Result<(), HostError> {
        let Some(project) = &self.project else {
            return Ok(());
        };
        if prepared.notes.is_empty() {
            return Ok(());
        }
        let handle = self.app.store(&project.root.join(layout::STORE_FILE))?;
        let mut store = crate::app::lock(&handle)?;
        let now = self.app.timestamp();
        let by = format!("{}:{}", actor.kind, actor.name);
        let mut kept = Vec::new();
        for (i, s) in &prepared.notes {
            let op = |kind: &str, payload: serde_json::Value| {
                crate::notes::op(actor, kind, Some(s.path.clone()), payload, &now)
            };
            let noted = store.note(s, op("note", serde_json::json!({"kind": s.kind, "text": s.text, "from": s.from, "to": s.to, "suggest": s.suggest, "via": "kapi apply"})))?;
            let id = noted.suggestion.id.clone();
            store.decide_suggestion(
                &id,
                "kept",
                None,
                &by,
                &now,
                &op(
                    "keep",
                    serde_json::json!({"suggestion": id, "via": "kapi apply"}),
                ),
            )?;
            if let Some(r) = operations.iter_mut().find(|r| r.index == *i) {
                r.message = format!("{} as {id}", r.message);
            }
            kept.push(kapi_core::governance::notes::KeptNote {
                id,
                path: s.path.clone(),
                text: s.text.clone(),
                from: s.from.clone(),
                to: s.to.clone(),
                suggest: s.suggest.clone(),
                kept_by: Some(by.clone()),
                kept_at: Some(now.clone()),
            });
        }
        crate::notes::keep(self.app, project, kept)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_upsert_says_what_it_did_and_only_a_change_applies() {
        let (status, concept, message) = upserted(
            &Upserted::Unchanged {
                concept: "sign-in".into(),
            },
            "sign in",
            ".kapi/terms.yaml",
        );
        assert_eq!(status, OpStatus::Unchanged);
        assert_eq!(concept, "sign-in");
        assert_eq!(
            message,
            "unchanged: `sign in` is already in `.kapi/terms.yaml`"
        );
        let (status, _, message) = upserted(
            &Upserted::NewConcept {
                concept: "login".into(),
            },
            "log in",
            ".kapi/terms.yaml",
        );
        assert_eq!(status, OpStatus::Applied);
        assert_eq!(message, "`log in` added as new concept `login`");
    }

    #[test]
    fn a_project_operation_outside_a_project_says_to_make_one() {
        let op = Operation::Recipe {
            field: "defaults.source_language".into(),
            value: serde_json::json!("en"),
        };
        let r = needs_project(2, &op);
        assert_eq!(r.index, 2);
        assert_eq!(r.status, OpStatus::Unsupported);
        assert_eq!(
            r.message,
            "a `recipe` operation changes a project; there is none here"
        );
        assert!(r.instead.is_some_and(|i| i.contains("kapi init")));
    }
}
