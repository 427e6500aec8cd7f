//! The failing findings a session introduced in one of its files: in the blocks it changed,
//! the findings each did not have before it, counted as the commit check counts them.
//!
//! The file now is what `kapi check FILE` reports (a translation checked against its source, a
//! bilingual file's editions too), read from the ship gate's report when that covers the file. A block is changed when its content (every edition's
//! revision, as `--diff-against` reads it) is not among the blocks the file had before the
//! session: a block that only moved is not changed, and a new or reworded one is. A changed
//! block is compared with the block of the same key when that one changed too (an edit in
//! place), else with every changed block that is gone, pooled (a paragraph inserted above shifts
//! the keys below it). Within that, a finding is the session's when the block has more of it
//! (same rule, same matched text, or message) than it had: with two `utilize` before and three
//! after, one is. The file's own findings (a voice's required pattern, with no block) count when
//! any block changed. Findings a translation analyzer makes have no counterpart before (the
//! earlier version is read for its source findings alone), so in a changed block every one is
//! the session's, as `--diff-against` checks a changed translation whole. A file with no
//! earlier version is changed whole.

use std::collections::{HashMap, HashSet};

use kapi_core::check::suppress;
use kapi_core::check::{CheckReport, DocumentCheck, FailOn, Finding, Rule, Suppression};
use kapi_core::governance::load as governance_load;
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;
use kapi_core::project::resolve::Resolver;

use super::baseline::Before;
use crate::app::{App, ResolvedPath};
use crate::check::diff::{Revs, revs};
use crate::check::{CheckRequest, check};
use crate::error::HostError;

/// The bucket of changed blocks whose key is gone or new, compared together.
const POOL: &str = "\u{0}pool";

/// The failing findings (at `fail_on` or worse) the session introduced in `path`, in report
/// order. `ship`: the project's ship gate report, whose findings are the file's when the
/// collections declare it and the report holds every finding (else the file is checked).
pub fn introduced(
    app: &App,
    project: &Project,
    collections: &Collections,
    path: &ResolvedPath,
    before: Before,
    fail_on: FailOn,
    ship: Option<&CheckReport>,
) -> Result<Vec<Finding>, HostError> {
    let rel = path.rel().unwrap_or_default();
    let declared = crate::document::declared_at(collections, rel);
    let Some(format) = crate::document::pick(path.abs(), declared.as_deref())? else {
        return Ok(Vec::new());
    };
    let mine = |f: &Finding| f.path == path.display();
    let covered = crate::check::declares(collections, rel) && !collections.is_excluded(rel);
    let after: Vec<Finding> = match ship.filter(|r| covered && r.truncated == 0) {
        Some(report) => report
            .findings
            .iter()
            .filter(|f| mine(f))
            .cloned()
            .collect(),
        None => {
            let request = CheckRequest {
                resolved: vec![path.clone()],
                ..CheckRequest::default()
            };
            let run = check(app, &request, &())?;
            run.report.findings.into_iter().filter(mine).collect()
        }
    };
    if !after.iter().any(|f| fail_on.fails(f.severity)) {
        return Ok(Vec::new());
    }
    let read_error = |source| HostError::Read {
        path: path.display().into(),
        source,
    };
    let now = revs(
        format,
        crate::document::read_bytes(path.abs(), path.display())?,
    )
    .map_err(read_error)?;
    // An earlier version that no longer reads as the format is no version to compare with.
    let earlier = match before {
        Before::Bytes(bytes) => earlier(app, project, rel, path.display(), format, bytes),
        Before::Absent => None,
    };
    let (was, had) = match &earlier {
        Some((revs, findings)) => (Some(revs), findings.as_slice()),
        None => (None, &[][..]),
    };
    Ok(compare(&now, was, had, after, fail_on))
}

/// An earlier version of the file: its blocks' revisions and its source findings, under the
/// governance at its path.
fn earlier(
    app: &App,
    project: &Project,
    rel: &str,
    display: &str,
    format: &'static dyn kapi_core::formats::Format,
    bytes: Vec<u8>,
) -> Option<(Revs, Vec<Finding>)> {
    let point = Resolver::new(project, app.now).resolve_path(rel);
    let governance = governance_load::load(&project.root, &point, &point.source_language).ok()?;
    let keep = |_: &Rule| true;
    // Set apart as the check of the file now sets apart, so a directive or a `rules:` entry
    // reads the same before and after (an old unused directive is no new finding).
    let suppression = Suppression::new(
        suppress::syntax_for(format.info().id),
        crate::check::recipe_rules(Some(project), Some(rel)),
        false,
    );
    let mut check =
        DocumentCheck::new(display, &governance, None, None, &keep).with_suppression(suppression);
    format
        .read_each(bytes.clone(), &mut |text, block, _| {
            check.block(text, &block)
        })
        .ok()?;
    let checked = check.finish_checked();
    let mut findings = checked.findings;
    findings.extend(checked.suppression.finish(display, true).unused);
    let (findings, _) = findings.into_sorted();
    Some((revs(format, bytes).ok()?, findings))
}

/// What a finding is counted as: its rule and what it matched (else its message).
fn key(f: &Finding) -> (&str, &str) {
    (
        f.rule.as_str(),
        f.matched.as_deref().unwrap_or(f.message.as_str()),
    )
}

/// A block's content, every edition's revision.
fn content(editions: &HashMap<String, String>) -> String {
    let mut pairs: Vec<(&String, &String)> = editions.iter().collect();
    pairs.sort();
    pairs
        .into_iter()
        .map(|(lang, rev)| format!("{lang}={rev}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The failing findings of `after` the changed blocks did not have before (see the module
/// docs); `was`: the file's blocks before, `None` when it had none.
fn compare(
    now: &Revs,
    was: Option<&Revs>,
    had: &[Finding],
    after: Vec<Finding>,
    fail_on: FailOn,
) -> Vec<Finding> {
    let fails = |f: &Finding| fail_on.fails(f.severity);
    let Some(was) = was else {
        return after.into_iter().filter(fails).collect();
    };
    let was_content: HashSet<String> = was.values().map(content).collect();
    let now_content: HashSet<String> = now.values().map(content).collect();
    let changed_now: HashSet<&str> = now
        .iter()
        .filter(|(_, e)| !was_content.contains(&content(e)))
        .map(|(k, _)| k.as_str())
        .collect();
    let changed_was: HashSet<&str> = was
        .iter()
        .filter(|(_, e)| !now_content.contains(&content(e)))
        .map(|(k, _)| k.as_str())
        .collect();
    let any = !changed_now.is_empty() || !changed_was.is_empty();
    // The bucket a finding is compared in: its block's, the pool, the file's (""), or none
    // (an unchanged block).
    let bucket = |f: &Finding, mine: &HashSet<&str>, other: &HashSet<&str>| -> Option<String> {
        match f.block.as_deref() {
            Some(block) if now.contains_key(block) || was.contains_key(block) => {
                if !mine.contains(block) {
                    None
                } else if other.contains(block) {
                    Some(block.to_owned())
                } else {
                    Some(POOL.to_owned())
                }
            }
            _ => any.then(String::new),
        }
    };
    let mut counts: HashMap<(String, (&str, &str)), usize> = HashMap::new();
    for f in had {
        if let Some(b) = bucket(f, &changed_was, &changed_now) {
            *counts.entry((b, key(f))).or_default() += 1;
        }
    }
    let mut introduced = Vec::new();
    for f in &after {
        let Some(b) = bucket(f, &changed_now, &changed_was) else {
            continue;
        };
        match counts.get_mut(&(b, key(f))) {
            Some(n) if *n > 0 => *n -= 1,
            _ if fails(f) => introduced.push(f.clone()),
            _ => {}
        }
    }
    introduced
}

#[cfg(test)]
mod tests {
    use super::*;
    use kapi_core::governance::Severity;

    fn finding(block: &str, matched: &str) -> Finding {
        Finding {
            link: None,
            rule: "terms.forbidden".into(),
            severity: Severity::Major,
            path: "docs/a.md".into(),
            line: 1,
            column: 1,
            start: 0,
            end: 0,
            block: Some(block.into()),
            message: "m".into(),
            matched: Some(matched.into()),
            suggestion: None,
        }
    }

    fn revs_of(blocks: &[(&str, &str)]) -> Revs {
        blocks
            .iter()
            .map(|(k, rev)| {
                (
                    (*k).to_owned(),
                    HashMap::from([("source".to_owned(), (*rev).to_owned())]),
                )
            })
            .collect()
    }

    fn blocks(found: &[Finding]) -> Vec<&str> {
        found.iter().filter_map(|f| f.block.as_deref()).collect()
    }

    #[test]
    fn only_what_a_changed_block_did_not_have_is_the_sessions() {
        let was = revs_of(&[("p#1", "r1"), ("p#2", "r2"), ("p#3", "r3")]);
        let now = revs_of(&[("p#1", "r1"), ("p#2", "r2b"), ("p#3", "r3b")]);
        let had = [finding("p#1", "login"), finding("p#2", "login")];
        let after = vec![
            // p#1 unchanged: its finding is not looked at.
            finding("p#1", "login"),
            // p#2 changed, keeping its `login` and adding a second.
            finding("p#2", "login"),
            finding("p#2", "login"),
            // p#3 changed, a new finding.
            finding("p#3", "utilize"),
        ];
        let found = compare(&now, Some(&was), &had, after, FailOn::Major);
        assert_eq!(blocks(&found), ["p#2", "p#3"]);
    }

    #[test]
    fn shifted_keys_are_compared_by_content_and_pooled() {
        // A paragraph inserted above: p#1 is new, the old p#1 and p#2 moved to p#2 and p#3,
        // and the old p#2 was reworded on the way, keeping its `login`.
        let was = revs_of(&[("p#1", "a"), ("p#2", "b")]);
        let now = revs_of(&[("p#1", "new"), ("p#2", "a"), ("p#3", "b2")]);
        let had = [finding("p#2", "login")];
        let after = vec![finding("p#2", "x"), finding("p#3", "login")];
        assert!(compare(&now, Some(&was), &had, after, FailOn::Major).is_empty());
        // With no earlier version, every failing finding is the session's.
        let after = vec![finding("p#2", "x"), finding("p#3", "login")];
        assert_eq!(compare(&now, None, &[], after, FailOn::Major).len(), 2);
    }

    #[test]
    fn findings_below_the_gate_never_count() {
        let was = revs_of(&[("p#1", "a")]);
        let now = revs_of(&[("p#1", "b")]);
        let mut minor = finding("p#1", "simply");
        minor.severity = Severity::Minor;
        assert!(compare(&now, Some(&was), &[], vec![minor.clone()], FailOn::Major).is_empty());
        assert_eq!(
            compare(&now, Some(&was), &[], vec![minor], FailOn::Minor).len(),
            1
        );
    }
}
