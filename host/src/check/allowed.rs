//! What the project allows where it stands, for each file a check reads: the file's
//! [`Suppression`] (its comments' directives, the recipe's `rules:` exclusions for its path,
//! none under `--no-suppress`), settled once every finding of the file is in.
//!
//! A file's directives cover the findings that name it: a source file's own and, for a
//! bilingual file, its translations'; a catalog's translation file is read for its own
//! directives. Unused directives are reported only when the check saw the whole file with
//! every rule and held every finding (no `--diff-against`, no cap reached).

use kapi_core::check::suppress::{self, FileRule};
use kapi_core::check::{Finding, Findings, Suppressed, Suppression};
use kapi_core::formats::Format;
use kapi_core::project::Project;
use kapi_core::text::LineIndex;

/// What one check of a file set apart: listed (up to the report's cap) and counted.
#[derive(Debug, Default, Clone)]
pub(super) struct Allowed {
    pub held: Vec<Suppressed>,
    pub count: usize,
}

impl Allowed {
    /// Takes the findings a term's `exceptions:` set apart (back among `findings` under
    /// `--no-suppress`).
    pub(super) fn take(
        &mut self,
        excepted: Vec<Suppressed>,
        off: bool,
        findings: &mut Vec<Finding>,
    ) {
        if off {
            findings.extend(excepted.into_iter().map(|s| s.finding));
            return;
        }
        self.append(Allowed {
            count: excepted.len(),
            held: excepted,
        });
    }

    pub(super) fn append(&mut self, other: Allowed) {
        self.count += other.count;
        let room = suppress::MAX_SUPPRESSED.saturating_sub(self.held.len());
        self.held.extend(other.held.into_iter().take(room));
    }
}

/// A file's suppression, before it is read: `format`'s comment syntax and the recipe's
/// exclusions for the file; nothing set apart when `off` (`--no-suppress`).
pub(super) fn for_file(format: &dyn Format, rules: Vec<FileRule>, off: bool) -> Suppression {
    Suppression::new(suppress::syntax_for(format.info().id), rules, off)
}

/// The same, with the directives of `text` (a file the check reads whole) read at once.
pub(super) fn scanned(
    format: &dyn Format,
    rules: Vec<FileRule>,
    off: bool,
    text: &str,
) -> Suppression {
    let mut suppression = for_file(format, rules, off);
    let mut lines: Option<LineIndex> = None;
    suppression.scan(text, &mut lines);
    suppression
}

/// The recipe's `rules:` exclusions that cover the project-relative `rel`.
pub(crate) fn recipe_rules(project: Option<&Project>, rel: Option<&str>) -> Vec<FileRule> {
    let (Some(project), Some(rel)) = (project, rel) else {
        return Vec::new();
    };
    project
        .recipe
        .rule_exclusions()
        .iter()
        .filter(|rule| rule.matches(rel))
        .map(|rule| FileRule {
            selector: rule.rule.clone(),
            text: format!("rules.{}.exclude", rule.rule),
            path: kapi_core::project::layout::RECIPE_FILE.to_owned(),
            line: rule.line,
        })
        .collect()
}

/// Finishes a file's suppression: `extra` (findings of the same file from other checks, such
/// as its translations') set apart where allowed and the rest added to `findings`; unused
/// directives reported when `whole` and no finding was let go. What was set apart goes to
/// `allowed`.
pub(super) fn settle(
    mut suppression: Suppression,
    findings: &mut Findings,
    extra: Vec<Finding>,
    path: &str,
    whole: bool,
    allowed: &mut Allowed,
) {
    let kept = suppression.filter(extra);
    findings.extend(kept);
    let held_all = findings.parts().1 == [0; 4];
    let outcome = suppression.finish(path, whole && held_all);
    findings.extend(outcome.unused);
    allowed.append(Allowed {
        held: outcome.held,
        count: outcome.count,
    });
}
