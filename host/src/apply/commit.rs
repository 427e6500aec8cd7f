//! The commit check of a change set: every changed edition's deterministic findings before and
//! after, what the edit introduced marked, and an operation refused for a failing one it did.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kapi_core::change::result::{OpResult, OpStatus};
use kapi_core::change::{ChangeSet, GateMode, gate};
use kapi_core::check::FailOn;
use kapi_core::check::edition::{self as edition_check, EditionFinding};
use kapi_core::governance::{Governance, load as governance_load};
use kapi_core::model::SOURCE;
use kapi_core::project::Point;
use kapi_core::project::resolve::Resolver;

use super::{Loc, Service};
use crate::app::relative_to;
use crate::error::HostError;

/// What the commit check works out once per file.
struct FileCheck {
    /// The project-relative path governance resolves at, and its point.
    rel: String,
    point: Point,
    /// The rules the recipe sets aside for the file.
    aside: Vec<kapi_core::check::suppress::FileRule>,
}

impl Service<'_> {
    /// The project-relative path governance resolves at for a file (its source document's).
    fn governance_rel(&self, fi: usize) -> String {
        let file = &self.files[fi];
        let source = file.target_of.as_ref().map_or(fi, |(_, s)| *s);
        let abs = &self.files[source].abs;
        relative_to(abs, &self.root).unwrap_or_default()
    }

    fn point(&self, rel: &str) -> Point {
        match &self.project {
            Some(p) => Resolver::new(p, self.app.now).resolve_path(rel),
            None => Point {
                source_language: "en".into(),
                ..Point::default()
            },
        }
    }

    fn governance(&self, point: &Point, lang: &str) -> Result<Governance, HostError> {
        Ok(match &self.project {
            Some(p) => governance_load::load(&p.root, point, lang)?,
            None => Governance::empty(),
        })
    }

    fn fail_on(&self) -> FailOn {
        self.project
            .as_ref()
            .and_then(|p| p.recipe.gates().default.fail_on)
            .unwrap_or(FailOn::Major)
    }

    /// The rules the recipe's `rules:` set aside for file `fi`, as `kapi check` sets them
    /// apart (the commit check reports findings, not what is allowed).
    fn aside(&self, fi: usize) -> Vec<kapi_core::check::suppress::FileRule> {
        let own = relative_to(&self.files[fi].abs, &self.root).unwrap_or_default();
        crate::check::recipe_rules(self.project.as_ref(), Some(&own))
    }

    /// Runs the deterministic analyzers before and after on every changed edition. What each
    /// file shares (its governance point, the rules set aside, a translation file's source
    /// blocks: [`Service::source_of`]) is worked out once per file, so a set of many edits in one large file
    /// costs the file once, not once per edit.
    pub(super) fn commit_check(
        &mut self,
        set: &ChangeSet,
        touched: &BTreeMap<Loc, Vec<usize>>,
        results: &mut [Option<OpResult>],
        fingerprints: &mut BTreeSet<String>,
    ) -> Result<(), HostError> {
        let fail_on = self.fail_on();
        let mut cache: HashMap<(String, String), std::rc::Rc<Governance>> = HashMap::new();
        // Per file: its governance path and point, and the rules set aside.
        let mut per_file: HashMap<usize, FileCheck> = HashMap::new();
        for (loc, ops) in touched {
            let source_index = self.source_of(loc.file, loc.block);
            let fc: &FileCheck = per_file.entry(loc.file).or_insert_with(|| {
                let rel = self.governance_rel(loc.file);
                FileCheck {
                    aside: self.aside(loc.file),
                    point: self.point(&rel),
                    rel,
                }
            });
            let mut gov = |lang: &str| -> Result<std::rc::Rc<Governance>, HostError> {
                let key = (fc.rel.clone(), lang.to_owned());
                if let Some(g) = cache.get(&key) {
                    return Ok(std::rc::Rc::clone(g));
                }
                let g = std::rc::Rc::new(self.governance(&fc.point, lang)?);
                cache.insert(key, std::rc::Rc::clone(&g));
                Ok(g)
            };
            let point = &fc.point;
            let file = &self.files[loc.file];
            let block = &file.parsed.document.blocks[loc.block];
            let Some(after_edition) = block.edition(&loc.edition) else {
                continue;
            };
            let Some(before_edition) = file
                .originals
                .get(&loc.block)
                .and_then(|b| b.editions.get(&loc.edition))
            else {
                continue;
            };
            let (mut before, mut after);
            match &file.target_of {
                // A bilingual file's target (PO `msgstr`, XLIFF `<target>`) is a translation of
                // the unit's source beside it: held to the translation analyzers as a catalog's
                // translation file is, never to the source's.
                None if loc.edition != SOURCE => {
                    let src_gov = gov(&point.source_language)?;
                    let tgt_gov = gov(&loc.edition)?;
                    fingerprints.insert(tgt_gov.fingerprint.clone());
                    let source = &block.source;
                    before = edition_check::translation(
                        &src_gov,
                        &tgt_gov,
                        &loc.edition,
                        source,
                        before_edition,
                    );
                    after = edition_check::translation(
                        &src_gov,
                        &tgt_gov,
                        &loc.edition,
                        source,
                        after_edition,
                    );
                }
                None => {
                    let g = gov(&point.source_language)?;
                    fingerprints.insert(g.fingerprint.clone());
                    before = edition_check::source(&g, block.role, before_edition);
                    after = edition_check::source(&g, block.role, after_edition);
                }
                Some((lang, source_file)) => {
                    let src_gov = gov(&point.source_language)?;
                    let tgt_gov = gov(lang)?;
                    fingerprints.insert(tgt_gov.fingerprint.clone());
                    // The source block this translation sits beside, before and after.
                    let source = &self.files[*source_file];
                    let Some(si) = source_index else {
                        continue;
                    };
                    let src_after = &source.parsed.document.blocks[si].source;
                    let src_before = source
                        .originals
                        .get(&si)
                        .and_then(|b| b.editions.get(SOURCE))
                        .unwrap_or(src_after);
                    before = edition_check::translation(
                        &src_gov,
                        &tgt_gov,
                        lang,
                        src_before,
                        before_edition,
                    );
                    after = edition_check::translation(
                        &src_gov,
                        &tgt_gov,
                        lang,
                        src_after,
                        after_edition,
                    );
                }
            }
            set_aside(&fc.aside, &mut before);
            set_aside(&fc.aside, &mut after);
            for f in before.iter_mut().chain(after.iter_mut()) {
                f.fails = fail_on.fails(f.severity);
            }
            gate::mark_introduced(&before, &mut after);
            let refuse = gate::refuses(&after) && set.gate == GateMode::Enforce;
            record_verdict(&after, refuse, ops, results);
        }
        Ok(())
    }
}

/// Drops the findings of the rules `aside` names (a rule's id, or its analyzer's).
fn set_aside(aside: &[kapi_core::check::suppress::FileRule], findings: &mut Vec<EditionFinding>) {
    if aside.is_empty() {
        return;
    }
    findings.retain(|f| {
        let analyzer = f.rule.split_once('.').map_or(f.rule.as_str(), |(a, _)| a);
        !aside
            .iter()
            .any(|r| r.selector == f.rule || r.selector == analyzer)
    });
}

/// Gives each of `ops` its findings after the edit, or refuses it (`refuse`) naming the
/// failing findings the edit introduced.
fn record_verdict(
    after: &[EditionFinding],
    refuse: bool,
    ops: &[usize],
    results: &mut [Option<OpResult>],
) {
    for &i in ops {
        let Some(r) = results[i].as_mut() else {
            continue;
        };
        if refuse {
            let introduced: Vec<EditionFinding> = after
                .iter()
                .filter(|f| f.introduced && f.fails)
                .cloned()
                .collect();
            r.status = OpStatus::GateFailed;
            r.message = format!(
                "the edit introduces {} failing finding{}: {}",
                introduced.len(),
                if introduced.len() == 1 { "" } else { "s" },
                introduced
                    .iter()
                    .map(|f| f.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            r.instead = Some(
                "revise the text so it introduces no failing finding (the findings say what to write instead)"
                    .into(),
            );
            r.findings = introduced;
        } else {
            r.findings = after.to_vec();
        }
    }
}
