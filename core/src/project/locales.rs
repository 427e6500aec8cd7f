//! Language tags and the codes a collection's files use for them: BCP 47 well-formedness
//! ([`tag_problem`]), Android's resource qualifiers both ways, gettext's `pt_BR`, and the
//! code a target template's `{locale}` takes for a tag ([`locale_code`]).
//!
//! Choices where the issue is silent: a tag is checked for well-formedness (RFC 5646 syntax:
//! language, extlang, script, region, variants, extensions, private use), not against the
//! IANA registry, so a new region or variant needs no kapi release; but a language subtag is
//! two or three letters, as every one the registry holds (RFC 5646's 5–8-letter form has no
//! entry, and is how a word such as `persian` would pass), and a grandfathered irregular tag
//! (`i-klingon`) is not taken. An `android` item's `{locale}` is the resource qualifier
//! when `locales:` names no code (`pt-BR` → `pt-rBR`, `sr-Latn` → `b+sr+Latn`).

/// Why `text` is not a well-formed BCP 47 tag, or `None` when it is one.
pub fn tag_problem(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("it is empty".into());
    }
    if text.len() > 64 {
        return Some("it is longer than 64 characters".into());
    }
    if let Some(bad) = text
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return Some(format!(
            "`{bad}` is not a letter, digit or `-` (write `pt-BR`, not `pt_BR`)"
        ));
    }
    let parts: Vec<&str> = text.split('-').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Some("it has an empty subtag (`--`, or `-` at an end)".into());
    }
    let alpha = |s: &str| s.bytes().all(|b| b.is_ascii_alphabetic());
    let digit = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mut i = 0;
    let lang = parts[0];
    if lang.eq_ignore_ascii_case("x") {
        return private_use(&parts[1..]);
    }
    if !(alpha(lang) && (2..=3).contains(&lang.len())) {
        return Some(format!(
            "`{lang}` is not a language subtag (two or three letters, as `de` or `fil`)"
        ));
    }
    i += 1;
    // Up to three extended language subtags, after a two- or three-letter language.
    let mut ext = 0;
    while ext < 3 && parts.get(i).is_some_and(|p| p.len() == 3 && alpha(p)) {
        i += 1;
        ext += 1;
    }
    if parts.get(i).is_some_and(|p| p.len() == 4 && alpha(p)) {
        i += 1;
    }
    if parts
        .get(i)
        .is_some_and(|p| p.len() == 2 && alpha(p) || p.len() == 3 && digit(p))
    {
        i += 1;
    }
    let variant = |p: &str| {
        p.bytes().all(|b| b.is_ascii_alphanumeric())
            && ((5..=8).contains(&p.len()) || p.len() == 4 && p.as_bytes()[0].is_ascii_digit())
    };
    while parts.get(i).is_some_and(|p| variant(p)) {
        i += 1;
    }
    while let Some(single) = parts.get(i).filter(|p| p.len() == 1) {
        if single.eq_ignore_ascii_case("x") {
            return private_use(&parts[i + 1..]);
        }
        i += 1;
        let start = i;
        while parts.get(i).is_some_and(|p| {
            (2..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric())
        }) {
            i += 1;
        }
        if i == start {
            return Some(format!("the extension `{single}` has no subtag after it"));
        }
    }
    parts.get(i).map(|p| {
        format!(
            "`{p}` is not a script (`Latn`), region (`BR`, `419`) or variant subtag in its place"
        )
    })
}

fn private_use(rest: &[&str]) -> Option<String> {
    if rest.is_empty() {
        return Some("`x` has no private-use subtag after it".into());
    }
    rest.iter()
        .find(|p| p.len() > 8)
        .map(|p| format!("the private-use subtag `{p}` is longer than 8 characters"))
}

/// True when `text` is a well-formed BCP 47 tag.
pub fn is_tag(text: &str) -> bool {
    tag_problem(text).is_none()
}

/// The subtags of `tag` as (language, script, region, the rest), cased as BCP 47 writes them.
fn split(tag: &str) -> (String, Option<String>, Option<String>, Vec<String>) {
    let mut parts = tag.split('-');
    let lang = parts.next().unwrap_or_default().to_ascii_lowercase();
    let mut script = None;
    let mut region = None;
    let mut rest = Vec::new();
    for p in parts {
        if rest.is_empty()
            && script.is_none()
            && region.is_none()
            && p.len() == 4
            && p.bytes().all(|b| b.is_ascii_alphabetic())
        {
            let mut s = p.to_ascii_lowercase();
            s[..1].make_ascii_uppercase();
            script = Some(s);
        } else if rest.is_empty()
            && region.is_none()
            && (p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic())
                || p.len() == 3 && p.bytes().all(|b| b.is_ascii_digit()))
        {
            region = Some(p.to_ascii_uppercase());
        } else {
            rest.push(p.to_owned());
        }
    }
    (lang, script, region, rest)
}

/// Android's resource qualifier for `tag`: `de`, `pt-rBR` for `pt-BR`, and the `b+` form
/// for anything more (`b+sr+Latn`, `b+es+419`).
pub fn android_qualifier(tag: &str) -> String {
    let (lang, script, region, rest) = split(tag);
    match (&script, &region) {
        (None, None) if rest.is_empty() => lang,
        (None, Some(r)) if rest.is_empty() && r.len() == 2 => format!("{lang}-r{r}"),
        _ => {
            let mut out = format!("b+{lang}");
            for p in script.iter().chain(&region).chain(&rest) {
                out.push('+');
                out.push_str(p);
            }
            out
        }
    }
}

/// The BCP 47 tag an Android resource qualifier (`values-` taken off) names: `pt-rBR` is
/// `pt-BR`, `b+sr+Latn` is `sr-Latn`; `None` for a qualifier that is no language (`night`,
/// `v21`, `land`). Qualifiers after the language (`de-rDE-land`) are left off.
pub fn tag_from_android(qualifier: &str) -> Option<String> {
    if let Some(rest) = qualifier.strip_prefix("b+") {
        let tag: Vec<&str> = rest
            .split('-')
            .next()
            .unwrap_or_default()
            .split('+')
            .collect();
        let tag = tag.join("-");
        return is_tag(&tag).then(|| canonical(&tag));
    }
    let mut parts = qualifier.split('-');
    let lang = parts.next()?;
    if !(lang.len() == 2 || lang.len() == 3) || !lang.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    // Android's qualifiers that could read as a language (`mcc`/`mnc` are longer).
    if matches!(lang, "ldrtl" | "ldltr" | "car" | "tv" | "dpi") {
        return None;
    }
    match parts.next() {
        Some(r) if r.len() == 3 && r.starts_with('r') => {
            let region = &r[1..];
            region
                .bytes()
                .all(|b| b.is_ascii_alphabetic())
                .then(|| format!("{lang}-{}", region.to_ascii_uppercase()))
        }
        _ => Some(lang.to_owned()),
    }
}

/// `tag` cased as BCP 47 writes it: `pt-br` → `pt-BR`, `sr-latn` → `sr-Latn`.
pub fn canonical(tag: &str) -> String {
    let (lang, script, region, rest) = split(tag);
    let mut out = lang;
    for p in script.iter().chain(&region).chain(&rest) {
        out.push('-');
        out.push_str(p);
    }
    out
}

/// `tag` with `_` for `-` (`pt_BR`), as gettext, Java and many file names write it.
pub fn underscore(tag: &str) -> String {
    tag.replace('-', "_")
}

/// The code the files of an item use for `tag`: the collection's `locales` entry for it,
/// else for an `android` item the resource qualifier, else the tag itself.
pub fn locale_code(locales: &[(String, String)], format: Option<&str>, tag: &str) -> String {
    if let Some((_, code)) = locales.iter().find(|(t, _)| t == tag) {
        return code.clone();
    }
    if format == Some("android") {
        return android_qualifier(tag);
    }
    tag.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_tags_pass_and_others_say_why() {
        for tag in [
            "de",
            "pt-BR",
            "sr-Latn",
            "zh-Hans-CN",
            "es-419",
            "fil",
            "de-CH-1996",
            "en-US-x-twain",
            "x-pseudo",
            "en-XA",
            "ar-XB",
            "zh-yue-HK",
            "sl-rozaj-biske",
            "en-a-bbb-x-a",
        ] {
            assert!(is_tag(tag), "{tag}: {:?}", tag_problem(tag));
        }
        for (tag, why) in [
            ("persian", "language subtag"),
            ("pt_BR", "`_`"),
            ("", "empty"),
            ("de--DE", "empty subtag"),
            ("de-", "empty subtag"),
            ("en-US-a", "no subtag after"),
            ("e", "language subtag"),
            ("de-DEUTSCH-LAND-ZZZZZZZZZZ", "in its place"),
            ("fr FR", "` `"),
        ] {
            let problem = tag_problem(tag).unwrap_or_default();
            assert!(problem.contains(why), "{tag}: {problem}");
        }
    }

    #[test]
    fn android_qualifiers_both_ways() {
        for (tag, q) in [
            ("de", "de"),
            ("pt-BR", "pt-rBR"),
            ("zh-CN", "zh-rCN"),
            ("sr-Latn", "b+sr+Latn"),
            ("es-419", "b+es+419"),
            ("zh-Hant-TW", "b+zh+Hant+TW"),
        ] {
            assert_eq!(android_qualifier(tag), q, "{tag}");
            assert_eq!(tag_from_android(q).as_deref(), Some(tag), "{q}");
        }
        assert_eq!(tag_from_android("night"), None);
        assert_eq!(tag_from_android("v21"), None);
        assert_eq!(tag_from_android("land"), None);
        assert_eq!(tag_from_android("sw600dp"), None);
        assert_eq!(tag_from_android("de-rDE-land").as_deref(), Some("de-DE"));
        assert_eq!(tag_from_android("fr-night").as_deref(), Some("fr"));
        assert_eq!(
            tag_from_android("b+sr+Latn-night").as_deref(),
            Some("sr-Latn")
        );
    }

    #[test]
    fn codes_come_from_locales_then_the_format() {
        let locales = vec![("de".to_owned(), "de-DE".to_owned())];
        assert_eq!(locale_code(&locales, Some("json"), "de"), "de-DE");
        assert_eq!(locale_code(&locales, Some("json"), "pt-BR"), "pt-BR");
        assert_eq!(locale_code(&locales, Some("android"), "pt-BR"), "pt-rBR");
        assert_eq!(locale_code(&locales, Some("android"), "de"), "de-DE");
        assert_eq!(underscore("pt-BR"), "pt_BR");
        assert_eq!(canonical("PT-br"), "pt-BR");
    }
}
