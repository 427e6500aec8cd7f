//! The plural forms a target edition lacks and its language has, made by an edit: a
//! `set_content` at `count:few` of a Russian target holding only `one` and `other` adds the
//! `few` form (what `plurals.missing` asks for) instead of failing as a branch not found.
//!
//! Only a plural switch its format writes whole from its branches can take a form: an ICU
//! `plural` (its `head` is the file's `{count, plural,`), in any format that holds ICU
//! messages. Android `<item quantity>`, a nested JSON plural object and PO `msgstr[N]` (whose
//! count the file's `Plural-Forms` sets) keep one skeleton place per form, so a form they lack
//! is added in the file. A form the edition lacks reads as empty (its rev is the empty
//! branch's, [`absent_rev`]); it is made from the `other` form (else the last), so the `<x
//! id/>` tags an edit sends are those `other` holds, and is placed in CLDR's order, after any
//! `=N` case, before `other`.

use crate::model::{
    Branch, Edition, FormsOrigin, PLURAL_CATEGORIES, Run, Switch, SwitchKind, first_segment,
    rev_runs,
};

/// The rev of a form the edition lacks: the empty branch's.
pub fn absent_rev() -> String {
    rev_runs(&[])
}

/// Whether `path` names a form `edition` lacks that an edit into `lang` may add: every
/// segment before the last that is absent is one too (a nested path under a new form).
pub fn addable(edition: &Edition, path: &str, lang: &str) -> bool {
    edition.branch(path).is_none() && walk(&edition.runs, path, lang).is_some()
}

/// Adds the forms `path` names that `edition` lacks ([`addable`]); whether it added any.
pub fn add(edition: &mut Edition, path: &str, lang: &str) -> bool {
    if !addable(edition, path, lang) {
        return false;
    }
    add_in(&mut edition.runs, path)
}

/// The paths of the forms each growable plural of `edition` lacks and `lang` needs
/// (`needed`: CLDR's categories an integer or a fraction takes), top-level switches only.
pub fn lacking(edition: &Edition, needed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for run in &edition.runs {
        if let Run::Switch(s) = run
            && growable(s)
        {
            for case in takes(s, needed) {
                if s.branch(case).is_none() {
                    out.push(format!("{}:{case}", s.pivot));
                }
            }
        }
    }
    out
}

/// Fits each growable plural at the top of `edition` (a copy of its source made for a
/// translation into `lang`) to the language: the forms `lang` needs that it lacks are added
/// (from `other`), the categories `lang` never uses are dropped (`one` for Japanese); `=N`
/// cases and `other` stay. Whether it changed anything; a language CLDR does not name is left.
pub fn fit(edition: &mut Edition, lang: &str) -> bool {
    // A language's forms cost a thousand evaluations of its rule: asked only for a plural.
    if !has_growable(edition) {
        return false;
    }
    let Some((needed, all)) = crate::plurals::needed_and_all(lang) else {
        return false;
    };
    let mut changed = false;
    for path in lacking(edition, &needed) {
        changed |= add(edition, &path, lang);
    }
    for run in &mut edition.runs {
        if let Run::Switch(s) = run
            && growable(s)
        {
            let before = s.branches.len();
            s.branches.retain(|b| {
                b.case.starts_with('=') || b.case == "other" || all.contains(&b.case.as_str())
            });
            changed |= s.branches.len() != before;
        }
    }
    changed
}

/// Whether `edition` holds a growable plural at its top ([`growable`]).
pub fn has_growable(edition: &Edition) -> bool {
    edition
        .runs
        .iter()
        .any(|r| matches!(r, Run::Switch(s) if growable(s)))
}

/// A plural its format writes whole from its branches (an ICU message, a Qt numerus
/// translation's `<numerusform>`s), not one whose file keeps a place per form.
pub fn growable(s: &Switch) -> bool {
    s.kind == SwitchKind::Plural
        && match &s.forms {
            None => !s.head.is_empty(),
            Some(forms) => forms.origin == FormsOrigin::QtNumerus,
        }
}

/// The forms a growable plural takes in `lang`: the file's own when it sets them (Qt's rule
/// for a `.ts` file's language), else `needed`, CLDR's.
fn takes<'a>(s: &'a Switch, needed: &'a [&'a str]) -> Vec<&'a str> {
    match &s.forms {
        Some(forms) => forms.cases.iter().map(String::as_str).collect(),
        None => needed.to_vec(),
    }
}

/// Whether the categories of `lang` include `case`.
fn has_category(lang: &str, case: &str) -> bool {
    crate::plurals::categories(lang).is_some_and(|all| all.contains(&case))
}

/// `Some(())` when every segment of `path` either exists or is a form `lang` has that a
/// growable plural lacks.
fn walk(runs: &[Run], path: &str, lang: &str) -> Option<()> {
    if path.is_empty() {
        return Some(());
    }
    let ((pivot, case), rest) = first_segment(path)?;
    let s = runs.iter().find_map(|r| match r {
        Run::Switch(s) if s.pivot == pivot => Some(s),
        _ => None,
    })?;
    match s.branch(case) {
        Some(b) => walk(&b.runs, rest, lang),
        None if growable(s)
            && match &s.forms {
                Some(forms) => forms.cases.iter().any(|c| c == case),
                None => has_category(lang, case),
            } =>
        {
            let model = s.branch("other").or(s.branches.last())?;
            walk(&model.runs, rest, lang)
        }
        None => None,
    }
}

/// Adds the forms `path` names that `runs` lack ([`addable`] said which may be added).
fn add_in(runs: &mut [Run], path: &str) -> bool {
    let Some(((pivot, case), rest)) = first_segment(path) else {
        return false;
    };
    let Some(s) = runs.iter_mut().find_map(|r| match r {
        Run::Switch(s) if s.pivot == pivot => Some(s),
        _ => None,
    }) else {
        return false;
    };
    let mut added = false;
    if s.branch(case).is_none() {
        let Some(model) = s
            .branch("other")
            .or(s.branches.last())
            .map(|b| b.runs.clone())
        else {
            return false;
        };
        let rank = |c: &str| PLURAL_CATEGORIES.iter().position(|p| *p == c);
        let new = rank(case);
        // After every `=N` case and every category before it; before `other`.
        let at = s
            .branches
            .iter()
            .position(|b| match (rank(&b.case), new) {
                (Some(r), Some(n)) => r > n,
                _ => false,
            })
            .unwrap_or(s.branches.len());
        s.branches.insert(at, Branch::new(case, model));
        added = true;
    }
    let Some(branch) = s.branches.iter_mut().find(|b| b.case == case) else {
        return added;
    };
    if rest.is_empty() {
        return added;
    }
    add_in(&mut branch.runs, rest) || added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::inline::icu;

    fn icu_edition(text: &str) -> Edition {
        let syntaxes = crate::formats::inline::placeholders::Syntaxes::ALL;
        let mut ids = crate::formats::inline::placeholders::Ids::default();
        Edition::new(icu::parse(text, None, syntaxes, &mut ids).expect("ICU"))
    }

    fn rendered(e: &Edition) -> String {
        let mut out = String::new();
        icu::render(&e.runs, &mut out);
        out
    }

    #[test]
    fn a_form_russian_needs_is_added_before_other_from_other() {
        let mut e = icu_edition("{count, plural, =0 {none} one {# file} other {# files}}");
        assert!(addable(&e, "count:few", "ru"));
        assert!(!addable(&e, "count:two", "ru"), "Russian has no `two`");
        assert!(!addable(&e, "count:one", "ru"), "present");
        assert!(!addable(&e, "gender:few", "ru"), "no such switch");
        assert_eq!(
            lacking(&e, &["one", "few", "many", "other"]),
            ["count:few", "count:many"]
        );
        assert!(add(&mut e, "count:many", "ru"));
        assert!(add(&mut e, "count:few", "ru"));
        let Run::Switch(s) = &e.runs[0] else {
            panic!("a switch")
        };
        let cases: Vec<&str> = s.branches.iter().map(|b| b.case.as_str()).collect();
        assert_eq!(cases, ["=0", "one", "few", "many", "other"]);
        assert_eq!(e.branch("count:few"), e.branch("count:other"));
        assert_eq!(
            rendered(&e),
            "{count, plural, =0 {none} one {# file} few {# files} many {# files} other {# files}}"
        );
    }

    #[test]
    fn a_copy_fits_its_language_forms_added_and_unused_ones_dropped() {
        let mut e = icu_edition("{count, plural, =0 {none} one {# file} other {# files}}");
        assert!(fit(&mut e, "ja"));
        assert_eq!(rendered(&e), "{count, plural, =0 {none} other {# files}}");
        let mut e = icu_edition("{count, plural, one {# file} other {# files}}");
        assert!(fit(&mut e, "ru"));
        assert_eq!(
            rendered(&e),
            "{count, plural, one {# file} few {# files} many {# files} other {# files}}"
        );
        assert!(!fit(&mut e, "ru"), "fitted already");
        assert!(!fit(&mut e, "not a tag"));
    }

    #[test]
    fn a_form_is_never_added_where_the_file_keeps_a_place_per_form() {
        let mut e = Edition::new(vec![Run::Switch(Box::new(Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "quantity".into(),
            branches: vec![Branch::new("one", vec![]), Branch::new("other", vec![])],
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        }))]);
        assert!(!addable(&e, "quantity:few", "ru"));
        assert!(!add(&mut e, "quantity:few", "ru"));
        assert!(lacking(&e, &["few"]).is_empty());
    }
}
