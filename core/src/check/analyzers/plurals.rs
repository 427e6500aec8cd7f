//! `plurals`: a translation's plural switch holds exactly the forms its language needs, as
//! `msgfmt -c` holds a PO message to its header's `Plural-Forms` and CLDR defines the rest.
//!
//! The forms a target switch needs are the file's own when it says (PO: `nplurals` forms,
//! [`crate::model::Switch::forms`]), else the CLDR categories of the target language
//! ([`crate::plurals`]); a Qt `.ts` numerus translation's are Qt's rule for its language
//! (`crate::formats::qt::numerus`: Russian `one few many`). A target with no text in any form
//! is untranslated and a `fuzzy` (or Qt `unfinished`) one is a draft (`msgfmt -c` and
//! `lrelease` skip both); exact cases (`=0`) and `select` switches are never
//! judged; an ordinal (`selectordinal`, i18next `_ordinal_`) is held to the language's CLDR
//! ordinal forms (English `one two few other`, French `one other`). A translation whose
//! source's plural has `other` alone is not judged ([`compare_to`]), nor is a language CLDR
//! names no categories for. A form
//! that is present but empty counts as present, as it does for `msgfmt`. A missing form is
//! one the language needs ([`crate::plurals::Rules::needed`]: not French `many`, which only
//! round millions take), an extra one a category the language does not have at all.

use std::collections::HashMap;

use super::placeholders::Mismatch;
use super::rule::declare_rule;
use crate::governance::Severity;
use crate::model::{Edition, Forms, FormsOrigin, Run, Switch, SwitchKind};

declare_rule! {
    /// ## What it flags
    /// A translation's plural without a form its language needs: a PO message with fewer
    /// `msgstr[i]` than its header's `Plural-Forms: nplurals=N`, a Qt `.ts` numerus message
    /// with fewer `<numerusform>`s than Qt's rule for the language, or an Android `<plurals>`,
    /// ICU `plural`, i18next `_one`/`_few`… group, Rails YAML or nested JSON plural without
    /// one of the target language's CLDR categories (Russian: `one`, `few`, `many`, `other`).
    /// CLDR's `many` of French, Spanish, Italian and Portuguese, which only round millions
    /// take, may be there and need not. An ordinal (ICU `selectordinal`, i18next `_ordinal_`
    /// keys) needs the language's ordinal forms (English `one two few other` for 1st, 2nd,
    /// 3rd, 4th). Untranslated, `fuzzy` and Qt `unfinished` targets are skipped. An
    /// ICU plural takes the form by a `set_content` at its branch (`count:few`, listed
    /// `absent` by `kapi inspect`) or from `kapi translate`; a form with a place of its own
    /// in the file (Android, PO, nested JSON, i18next and Rails keys) is added there.
    ///
    /// ## Why it matters
    /// The program picks the form by the number: a missing form shows another form's grammar
    /// ("5 файла" for 5 files) or, for gettext, falls back to the English source. `msgfmt -c`
    /// refuses such a catalog.
    ///
    /// ## Example
    /// A Russian `<plurals name="files">` with `one` and `other` only. Use instead: add
    /// `<item quantity="few">%d файла</item>` and `<item quantity="many">%d файлов</item>`.
    pub MISSING = "plurals.missing", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A translation's plural with a form its language never uses: a PO message with more
    /// `msgstr[i]` than `nplurals`, or a CLDR category the target language does not have
    /// (`zero` or `two` in English, `few` in German). Exact cases (ICU `=0`) are not flagged.
    ///
    /// ## Why it matters
    /// The program never picks that form, so its text is never shown (Android lint calls
    /// it an unused quantity); for PO, `msgfmt -c` refuses the catalog.
    ///
    /// ## Example
    /// An English `<item quantity="zero">No files</item>` Use instead: an ICU `=0` case, or
    /// a separate string for the empty state.
    pub EXTRA = "plurals.extra", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A PO file's `Plural-Forms` header that disagrees with itself: its `plural=` formula
    /// gives a form `nplurals` does not have (`nplurals=2` with a formula that gives 2 for
    /// some n), divides by zero, or does not parse. Reported once per file, at the header.
    ///
    /// ## Why it matters
    /// gettext picks `msgstr[plural(n)]`: a form past `nplurals` does not exist, so the
    /// program shows the untranslated source for those numbers. `msgfmt -c` refuses it.
    ///
    /// ## Example
    /// `nplurals=2; plural=(n%10==1 ? 0 : n%10>=2 && n%10<=4 ? 1 : 2);` Use instead:
    /// `nplurals=3; …`, and give every plural message a `msgstr[2]`.
    pub HEADER = "plurals.header", Severity::Major
}

/// The CLDR categories of each language asked about (needed, and all it has), looked up
/// once per check.
#[derive(Default)]
pub struct Languages(HashMap<String, Option<Needed>>);

type Needed = (Vec<&'static str>, Vec<&'static str>);

impl Languages {
    /// The forms a plural (`ordinal`: a `selectordinal`) in `lang` needs, and all it has.
    fn categories(&mut self, lang: &str, ordinal: bool) -> Option<&Needed> {
        let key = if ordinal {
            format!("{lang}#ordinal")
        } else {
            lang.to_owned()
        };
        self.0
            .entry(key)
            .or_insert_with(|| {
                if ordinal {
                    crate::plurals::ordinal_needed_and_all(lang)
                } else {
                    crate::plurals::needed_and_all(lang)
                }
            })
            .as_ref()
    }
}

/// The header fault a PO target's switches carry, with the file offset of the header.
pub fn header_fault(target: &Edition) -> Option<(String, usize)> {
    target.runs.iter().find_map(|run| match run {
        Run::Switch(s) => s.forms.as_ref().and_then(|f| f.fault.clone()),
        _ => None,
    })
}

/// The plural forms a target into `lang` lacks or has past what it needs.
pub fn compare(target: &Edition, lang: &str, languages: &mut Languages) -> Vec<Mismatch> {
    let mut out = Vec::new();
    // Drafts the program never shows: PO `fuzzy` (msgfmt leaves them out) and Qt
    // `unfinished` (lrelease does).
    if matches!(target.state.as_deref(), Some("fuzzy" | "unfinished")) {
        return out;
    }
    switches(&target.runs, lang, languages, &mut out);
    out
}

/// [`compare`], unless the source's plural has `other` alone: a source written in one form
/// (an English `payment_other` key of a file with no plural, read as a plural of one form)
/// says nothing of the forms its translation needs.
pub fn compare_to(
    source: &Edition,
    target: &Edition,
    lang: &str,
    languages: &mut Languages,
) -> Vec<Mismatch> {
    let one_form = source.runs.iter().any(|run| match run {
        Run::Switch(s) => {
            s.kind == SwitchKind::Plural
                && s.branches
                    .iter()
                    .filter(|b| !b.case.starts_with('='))
                    .all(|b| b.case == "other")
        }
        _ => false,
    });
    if one_form {
        return Vec::new();
    }
    compare(target, lang, languages)
}

fn switches(runs: &[Run], lang: &str, languages: &mut Languages, out: &mut Vec<Mismatch>) {
    for run in runs {
        let Run::Switch(switch) = run else { continue };
        if matches!(switch.kind, SwitchKind::Plural | SwitchKind::Ordinal) {
            judge(switch, lang, languages, out);
        }
        for branch in &switch.branches {
            switches(&branch.runs, lang, languages, out);
        }
    }
}

/// A target held to the forms its file sets, by position: PO's `msgstr[i]`, as many as the
/// header's nplurals; Qt's `<numerusform>`s, as many as Qt's rule for the language.
fn by_position(forms: &Forms, have: &[&str], lang: &str, out: &mut Vec<Mismatch>) {
    let n = forms.cases.len();
    let qt = forms.origin == FormsOrigin::QtNumerus;
    let place = |i: usize| {
        if qt {
            format!("<numerusform> {}", i + 1)
        } else {
            format!("msgstr[{i}]")
        }
    };
    for (i, case) in forms.cases.iter().enumerate().skip(have.len()) {
        let message = if qt {
            format!(
                "the message has {} of the {n} `<numerusform>`s Qt's rule for `{lang}` asks \
                 for: form {} ({case}) is missing; a `set_content` at branch `n:{case}` adds it",
                have.len(),
                i + 1
            )
        } else {
            format!(
                "the message has {} of the {n} forms its header's Plural-Forms asks for: \
                 `msgstr[{i}]` ({case}) is missing",
                have.len()
            )
        };
        out.push(Mismatch {
            rule: &MISSING,
            data: place(i),
            message,
        });
    }
    for (i, case) in have.iter().enumerate().skip(n) {
        let message = if qt {
            format!(
                "the message has a `<numerusform>` {} ({case}), past the {n} forms Qt's rule \
                 for `{lang}` gives",
                i + 1
            )
        } else {
            format!(
                "the message has `msgstr[{i}]` ({case}), past the {n} forms its header's \
                 Plural-Forms gives (nplurals={n})"
            )
        };
        out.push(Mismatch {
            rule: &EXTRA,
            data: place(i),
            message,
        });
    }
}

fn judge(switch: &Switch, lang: &str, languages: &mut Languages, out: &mut Vec<Mismatch>) {
    let untranslated = switch
        .branches
        .iter()
        .all(|b| crate::model::plain_empty(&b.runs));
    if untranslated {
        return;
    }
    let have: Vec<&str> = switch
        .branches
        .iter()
        .map(|b| b.case.as_str())
        .filter(|c| !c.starts_with('='))
        .collect();
    if let Some(forms) = &switch.forms {
        by_position(forms, &have, lang, out);
        return;
    }
    let ordinal = switch.kind == SwitchKind::Ordinal;
    let Some((needed, all)) = languages.categories(lang, ordinal) else {
        return;
    };
    let what = if ordinal { "ordinal" } else { "plural" };
    let list = all.join(", ");
    // An ICU plural takes a form by an edit; a file that keeps a place per form, in the file.
    let add = |case: &str| {
        if crate::change::forms::growable(switch) {
            format!(
                "; `kapi translate` adds it, as does a `set_content` at branch `{}:{case}`",
                switch.pivot
            )
        } else {
            String::new()
        }
    };
    for case in needed {
        if !have.contains(case) {
            out.push(Mismatch {
                rule: &MISSING,
                data: (*case).to_owned(),
                message: format!(
                    "the {what} has no `{case}` form, which `{lang}` needs (CLDR: {list}){}",
                    add(case)
                ),
            });
        }
    }
    for case in &have {
        if !all.contains(case) {
            out.push(Mismatch {
                rule: &EXTRA,
                data: (*case).to_owned(),
                message: format!(
                    "the {what} has a `{case}` form, which `{lang}` never uses (CLDR: {list})"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, Forms};

    fn plural(cases: &[&str], forms: Option<Forms>) -> Edition {
        Edition::new(vec![Run::from(Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches: cases
                .iter()
                .map(|c| Branch::new(*c, vec![Run::text(format!("{c} text"))]))
                .collect(),
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: forms.map(std::sync::Arc::new),
        })])
    }

    #[test]
    fn an_ordinal_is_held_to_the_languages_ordinal_forms() {
        let mut ordinal = plural(&["other"], None);
        if let Some(Run::Switch(s)) = ordinal.runs.first_mut() {
            s.kind = SwitchKind::Ordinal;
        }
        let mut languages = Languages::default();
        // French ordinals: `1er`, `2e`: one, other.
        let found = compare(&ordinal, "fr", &mut languages);
        assert_eq!(rules(&found), ["plurals.missing one"]);
        assert!(
            found[0]
                .message
                .starts_with("the ordinal has no `one` form")
        );
        // Japanese has one ordinal form; English four (1st 2nd 3rd 4th).
        assert!(compare(&ordinal, "ja", &mut languages).is_empty());
        assert_eq!(
            rules(&compare(&ordinal, "en", &mut languages)),
            [
                "plurals.missing one",
                "plurals.missing two",
                "plurals.missing few"
            ]
        );
        // The cardinal rule of the same language is kept apart.
        assert_eq!(
            rules(&compare(&plural(&["other"], None), "fr", &mut languages)),
            ["plurals.missing one"]
        );
        assert!(
            compare(&plural(&["one", "other"], None), "ja", &mut languages)
                .iter()
                .all(|m| m.rule.id == "plurals.extra")
        );
    }

    fn rules(found: &[Mismatch]) -> Vec<String> {
        found
            .iter()
            .map(|m| format!("{} {}", m.rule.id, m.data))
            .collect()
    }

    #[test]
    fn a_target_is_held_to_its_languages_cldr_categories() {
        let mut langs = Languages::default();
        let ru = plural(&["one", "other"], None);
        assert_eq!(
            rules(&compare(&ru, "ru", &mut langs)),
            ["plurals.missing few", "plurals.missing many"]
        );
        let en = plural(&["zero", "one", "other", "=0"], None);
        assert_eq!(
            rules(&compare(&en, "en-GB", &mut langs)),
            ["plurals.extra zero"]
        );
        // French `many` (round millions) may be there and need not.
        let fr = plural(&["one", "other"], None);
        assert!(compare(&fr, "fr", &mut langs).is_empty());
        let fr = plural(&["one", "many", "other"], None);
        assert!(compare(&fr, "fr", &mut langs).is_empty());
        let ja = plural(&["other"], None);
        assert!(compare(&ja, "ja", &mut langs).is_empty());
        // No language to ask about, a draft, an untranslated target: nothing.
        assert!(compare(&ru, "target", &mut langs).is_empty());
        let mut fuzzy = ru.clone();
        fuzzy.state = Some("fuzzy".into());
        assert!(compare(&fuzzy, "ru", &mut langs).is_empty());
        let mut empty = plural(&["one"], None);
        if let Some(Run::Switch(s)) = empty.runs.first_mut() {
            s.branches[0].runs.clear();
        }
        assert!(compare(&empty, "ru", &mut langs).is_empty());
    }

    #[test]
    fn a_po_target_is_held_to_its_headers_nplurals() {
        let mut langs = Languages::default();
        let forms = || Forms {
            cases: vec!["one".into(), "few".into(), "many".into()],
            fault: None,
            origin: crate::model::FormsOrigin::PluralForms,
        };
        let two = plural(&["one", "few"], Some(forms()));
        let found = compare(&two, "ru", &mut langs);
        assert_eq!(rules(&found), ["plurals.missing msgstr[2]"]);
        assert!(found[0].message.contains("(many)"), "{}", found[0].message);
        let four = plural(&["one", "few", "many", "other"], Some(forms()));
        assert_eq!(
            rules(&compare(&four, "ru", &mut langs)),
            ["plurals.extra msgstr[3]"]
        );
        let three = plural(&["one", "few", "many"], Some(forms()));
        assert!(compare(&three, "ru", &mut langs).is_empty());
    }
}
