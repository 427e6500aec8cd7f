//! How many `<numerusform>`s a Qt Linguist translation holds in each language, and which
//! CLDR category each serves: Qt's own table (lupdate and lrelease follow it), not CLDR's.
//!
//! Qt groups languages by rule and gives each rule as a gettext `Plural-Forms` value; the
//! forms are named through [`crate::plurals::PluralForms::names`] as a PO file's are, so a
//! Russian message holds three forms (`one few many`: Qt counts integers, CLDR's `other` is
//! for fractions) and a Turkish one a single form (`other`). A language Qt's table does not
//! list gets no forms of its own: its plurals are held to CLDR's categories instead.

use std::sync::Arc;

use crate::model::{Forms, FormsOrigin};
use crate::plurals::PluralForms;

/// Qt's rules as gettext writes them, with the languages (ISO 639 codes) each serves, in
/// the order Qt looks them up: the first that lists a language is its rule.
const RULES: &[(&str, &[&str])] = &[
    (
        "nplurals=1; plural=0;",
        &[
            "bi", "my", "zh", "dz", "fj", "gn", "hu", "id", "in", "ja", "jv", "ko", "ms", "na",
            "om", "fa", "su", "tt", "th", "bo", "tr", "vi", "yo", "za",
        ],
    ),
    (
        "nplurals=2; plural=(n != 1);",
        &[
            "ab", "aa", "af", "sq", "am", "as", "ay", "az", "ba", "eu", "bn", "bg", "ca", "kw",
            "co", "da", "nl", "en", "eo", "et", "fo", "fi", "fur", "fy", "gl", "ka", "de", "el",
            "kl", "gu", "ha", "he", "iw", "hi", "ia", "ie", "it", "kn", "ks", "kk", "km", "rw",
            "ky", "ku", "lo", "la", "ln", "lb", "mg", "ml", "mr", "mn", "ne", "nso", "nb", "no",
            "nn", "oc", "or", "ps", "pt", "pa", "qu", "rm", "rn", "sn", "sd", "si", "so", "st",
            "es", "sw", "ss", "sv", "tg", "ta", "te", "to", "ts", "tn", "tk", "ug", "ur", "uz",
            "vo", "wo", "xh", "yi", "zu",
        ],
    ),
    (
        "nplurals=2; plural=(n > 1);",
        &["hy", "br", "fr", "fil", "tl", "ti", "wa"],
    ),
    (
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2);",
        &["lv"],
    ),
    (
        "nplurals=2; plural=(n%10==1 && n%100!=11 ? 0 : 1);",
        &["is"],
    ),
    (
        "nplurals=3; plural=(n==1 ? 0 : n==2 ? 1 : 2);",
        &["dv", "iu", "ik", "ga", "gv", "mi", "se", "sm", "sa"],
    ),
    (
        "nplurals=4; plural=(n==1 || n==11) ? 0 : (n==2 || n==12) ? 1 : (n > 2 && n < 20) ? 2 : 3;",
        &["gd"],
    ),
    (
        "nplurals=3; plural=((n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2);",
        &["sk", "cs"],
    ),
    (
        "nplurals=3; plural=(n%100==1 ? 0 : n%100==2 ? 1 : 2);",
        &["mk"],
    ),
    (
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);",
        &["lt"],
    ),
    (
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
        &["bs", "be", "hr", "ru", "sr", "uk"],
    ),
    (
        "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
        &["pl"],
    ),
    (
        "nplurals=3; plural=(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2);",
        &["ro", "mo"],
    ),
    (
        "nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);",
        &["sl"],
    ),
    (
        "nplurals=4; plural=(n==1 ? 0 : (n==0 || (n%100>=1 && n%100<=10)) ? 1 : (n%100>=11 && n%100<=19) ? 2 : 3);",
        &["mt"],
    ),
    (
        "nplurals=5; plural=(n==0 ? 0 : n==1 ? 1 : (n>=2 && n<=5) ? 2 : n==6 ? 3 : 4);",
        &["cy"],
    ),
    (
        "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : (n%100>=3 && n%100<=10) ? 3 : n%100>=11 ? 4 : 5);",
        &["ar"],
    ),
];

/// Qt's rule for a language tag (`pt-BR` takes the French-style rule, other Portuguese the
/// English one, as Qt's table says); `None` for a language it does not list.
pub fn rule(tag: &str) -> Option<&'static str> {
    let mut parts = tag.split(['-', '_']);
    let language = parts.next()?.to_ascii_lowercase();
    if language == "pt" && parts.any(|p| p.eq_ignore_ascii_case("br")) {
        return Some("nplurals=2; plural=(n > 1);");
    }
    RULES
        .iter()
        .find(|(_, langs)| langs.contains(&language.as_str()))
        .map(|(rule, _)| *rule)
}

/// The forms a numerus translation into `tag` holds, each named by the CLDR category it
/// serves; `None` for a language Qt's table does not list.
pub fn forms(tag: &str) -> Option<Arc<Forms>> {
    let rule = PluralForms::parse(rule(tag)?);
    let n = rule.nplurals?;
    Some(Arc::new(Forms {
        cases: rule.names(Some(tag), n),
        fault: None,
        origin: FormsOrigin::QtNumerus,
    }))
}

/// The names of a translation's `count` `<numerusform>`s, first first: the language's forms
/// as far as they go (`forms`), then `form{i}`; without Qt forms for the language, the
/// names CLDR gives `count` forms.
pub fn names(forms: Option<&Forms>, tag: &str, count: usize) -> Vec<String> {
    match forms {
        Some(forms) => (0..count)
            .map(|i| {
                forms
                    .cases
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("form{i}"))
            })
            .collect(),
        None => PluralForms::parse("").names(Some(tag), count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(tag: &str) -> Vec<String> {
        forms(tag).map(|f| f.cases.clone()).unwrap_or_default()
    }

    #[test]
    fn forms_follow_qts_table_named_by_cldr() {
        assert_eq!(cases("ru"), ["one", "few", "many"]);
        assert_eq!(cases("de_DE"), ["one", "other"]);
        assert_eq!(cases("ja"), ["other"]);
        assert_eq!(cases("tr"), ["other"], "Qt gives Turkish one form");
        assert_eq!(cases("ar").len(), 6);
        assert_eq!(cases("fr"), ["one", "other"]);
        assert_eq!(cases("pt-BR"), ["one", "other"]);
        assert_eq!(rule("pt-BR"), Some("nplurals=2; plural=(n > 1);"));
        assert_eq!(rule("pt_PT"), Some("nplurals=2; plural=(n != 1);"));
        assert_eq!(cases("zh_HK"), ["other"]);
        assert!(forms("xx").is_none());
        assert!(forms("").is_none());
    }

    #[test]
    fn names_go_past_the_forms_and_fall_back_to_cldr() {
        let ru = forms("ru");
        assert_eq!(
            names(ru.as_deref(), "ru", 4),
            ["one", "few", "many", "form3"]
        );
        assert_eq!(names(ru.as_deref(), "ru", 1), ["one"]);
        assert_eq!(names(None, "en", 2), ["one", "other"]);
    }
}
