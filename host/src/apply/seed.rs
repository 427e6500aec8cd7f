//! A target edition as an edit starts it: an empty bilingual target seeded with its source's
//! runs, and the draft marks a bilingual format records for a tool's text or clears for a person's.

use kapi_core::model::Edition;

/// An empty target of a bilingual file (a PO `msgstr ""`, an empty `msgstr[1]`) takes its
/// source's runs (the branch of the same case, else the source's last), so the `<x id>` tags
/// an edit sends are its source's; the rev read stays the empty one's. An empty target with
/// no switch that an edit names a branch of takes its source's runs whole.
pub(super) fn seed(
    edition: &mut Edition,
    source: &Edition,
    branch: Option<&str>,
    read_rev: &mut Option<String>,
) {
    use kapi_core::model::{plain_empty, rev_runs};
    match branch {
        None if plain_empty(&edition.runs) => {
            read_rev.get_or_insert_with(|| edition.rev());
            edition.runs = source.runs.clone();
        }
        // A branch of an empty target (a JSON `""` whose source is an ICU plural): the
        // target takes its source's runs whole, and the branch read as empty.
        Some(path) if plain_empty(&edition.runs) && source.branch(path).is_some() => {
            read_rev.get_or_insert_with(|| rev_runs(&[]));
            edition.runs = source.runs.clone();
        }
        Some(path) => {
            // A source of one text (a Qt numerus message's) seeds each form whole.
            let leaves = source.leaves();
            let from = source
                .branch(path)
                .map(<[_]>::to_vec)
                .or_else(|| leaves.last().map(|(_, runs)| runs.to_vec()))
                .or_else(|| leaves.is_empty().then(|| source.runs.clone()));
            if let (Some(runs), Some(from)) = (edition.branch_mut(path), from)
                && plain_empty(runs)
            {
                read_rev.get_or_insert_with(|| rev_runs(runs));
                *runs = from;
            }
        }
        None => {}
    }
}

/// The state a bilingual format records for a machine's or an agent's translation: a draft
/// that needs a person's review (PO `fuzzy`, XLIFF 1.2 `needs-review-translation`, XLIFF 2.0
/// `translated`, which a review moves to `reviewed`, Qt `unfinished`, an Apple String
/// Catalog's `needs_review`).
pub(crate) fn draft_state(format: &str) -> Option<&'static str> {
    match format {
        "po" => Some("fuzzy"),
        "xliff" => Some("needs-review-translation"),
        "xliff2" => Some("translated"),
        "qt" => Some("unfinished"),
        "xcstrings" => Some("needs_review"),
        _ => None,
    }
}

/// The state a person's edit leaves on a bilingual target marked as a draft (`Some`: the new
/// state; `None`: leave it): PO `fuzzy` goes, XLIFF 1.2 `needs-review-translation` becomes
/// `translated`, Qt's `unfinished` goes (a finished translation has no `type`), a String
/// Catalog's `needs_review` becomes `translated`. XLIFF 2.0's draft mark (`translated`) is a
/// person's state too.
pub(super) fn decided_state(format: &str, state: Option<&str>) -> Option<Option<String>> {
    match (format, state) {
        ("po", Some("fuzzy")) | ("qt", Some("unfinished")) => Some(None),
        ("xliff", Some("needs-review-translation")) | ("xcstrings", Some("needs_review")) => {
            Some(Some("translated".into()))
        }
        _ => None,
    }
}
