//! The translation catalogs `kapi init` finds, each offered as a collection (commented out in
//! the new recipe, as source code is) with its target template, languages and `locales`.
//!
//! What is found, from the project-relative paths of the files walked: Android `res/values/
//! strings.xml` with its `values-<qualifier>` siblings; JSON and YAML locale files (`en.json`
//! beside `fr.json`, `pt_BR.json`) and locale folders (`locales/en/*.json` beside
//! `locales/fr/`); Java properties bundles (`Messages.properties` beside
//! `Messages_fr.properties`); Flutter ARB files (`app_en.arb` beside `app_fr.arb`); PO/POT
//! and XLIFF files, which hold their translations
//! themselves (one glob per top folder). Choices: a file name or folder counts as a locale
//! when it reads as a BCP 47 tag once `_` is `-` (`pt_BR`, `zh-Hans`); the source is the one
//! in the project's source language (or its base language, `en` for `en-US`); a group needs
//! a source and at least one translation; a code that differs from its tag gets a `locales`
//! entry. At most [`MAX_OFFERS`] collections are offered.

use std::collections::{BTreeMap, BTreeSet};

use kapi_core::project::locales;

/// The most catalog collections offered: a screenful.
pub const MAX_OFFERS: usize = 12;

/// One offered collection: a short description (the report's) and its recipe lines (each
/// indented as an entry under `collections:`, not yet commented out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub summary: String,
    pub lines: Vec<String>,
}

/// The tag a file or folder name stands for (`pt_BR` → `pt-BR`), when it is one.
fn tag_of(code: &str) -> Option<String> {
    let tag = code.replace('_', "-");
    locales::is_tag(&tag).then(|| locales::canonical(&tag))
}

/// True when `tag` is in the source language `source` (`en-US` for `en`).
fn is_source(tag: &str, source: &str) -> bool {
    tag.eq_ignore_ascii_case(source)
        || tag
            .split('-')
            .next()
            .is_some_and(|base| base.eq_ignore_ascii_case(source))
}

/// `1 translation`, `2 translations`.
fn translations(n: usize) -> String {
    format!("{n} translation{}", if n == 1 { "" } else { "s" })
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A collection's name from a path (`app/src/main/res` → `app-res`), unique among `taken`.
fn name(path: &str, kind: &str, taken: &mut BTreeSet<String>) -> String {
    let first = path.split('/').next().unwrap_or_default();
    let base = kapi_core::suggest::slug(&format!("{first} {kind}"));
    let base = if base.is_empty() {
        kind.to_owned()
    } else {
        base
    };
    let mut out = base.clone();
    let mut n = 2;
    while !taken.insert(out.clone()) {
        out = format!("{base}-{n}");
        n += 1;
    }
    out
}

/// The `target_languages` and `locales` lines for (tag, code) pairs, sorted by tag.
fn language_lines(pairs: &BTreeMap<String, String>, out: &mut Vec<String>) {
    let tags: Vec<&str> = pairs.keys().map(String::as_str).collect();
    out.push(format!("    target_languages: [{}]", tags.join(", ")));
    let mapped: Vec<String> = pairs
        .iter()
        .filter(|(tag, code)| tag != code)
        .map(|(tag, code)| format!("{tag}: {code}"))
        .collect();
    if !mapped.is_empty() {
        out.push(format!("    locales: {{{}}}", mapped.join(", ")));
    }
}

/// The catalogs among `rels` (project-relative, `/`-separated) in the source language
/// `source`, as collections to offer.
pub fn find(rels: &[String], source: &str) -> Vec<Offer> {
    let mut offers = Vec::new();
    let mut taken = BTreeSet::new();
    let set: BTreeSet<&str> = rels.iter().map(String::as_str).collect();
    android(&set, &mut taken, &mut offers);
    locale_files(rels, source, &mut taken, &mut offers);
    arb_files(rels, source, &mut taken, &mut offers);
    locale_folders(rels, source, &mut taken, &mut offers);
    properties(rels, &set, &mut taken, &mut offers);
    resx_satellites(rels, &set, &mut taken, &mut offers);
    lproj(rels, source, &mut taken, &mut offers);
    bilingual(rels, &mut offers);
    offers.truncate(MAX_OFFERS);
    offers
}

/// `res/values/strings.xml` with its `values-<qualifier>/strings.xml` siblings.
fn android(set: &BTreeSet<&str>, taken: &mut BTreeSet<String>, offers: &mut Vec<Offer>) {
    for rel in set {
        let res = match rel.strip_suffix("/values/strings.xml") {
            Some(res) => res,
            None if *rel == "values/strings.xml" => "",
            None => continue,
        };
        let prefix = if res.is_empty() {
            String::new()
        } else {
            format!("{res}/")
        };
        let mut pairs = BTreeMap::new();
        for other in set.range(format!("{prefix}values-").as_str()..) {
            let Some(rest) = other.strip_prefix(&format!("{prefix}values-")) else {
                break;
            };
            if let Some(q) = rest.strip_suffix("/strings.xml")
                && !q.contains('/')
                && let Some(tag) = locales::tag_from_android(q)
                && locales::android_qualifier(&tag) == q
            {
                pairs.insert(tag.clone(), tag);
            }
        }
        let mut lines = vec![format!(
            "  - name: {}",
            name(
                if res.is_empty() { "android" } else { res },
                "android",
                taken
            )
        )];
        if !res.is_empty() {
            lines.push(format!("    base: {}", quote(res)));
        }
        if !pairs.is_empty() {
            // Android's qualifiers are the template's own: no `locales` needed.
            let tags: Vec<&str> = pairs.keys().map(String::as_str).collect();
            lines.push(format!("    target_languages: [{}]", tags.join(", ")));
        }
        lines.extend([
            "    content:".to_owned(),
            "      - path: values/strings.xml".to_owned(),
            "        format: android".to_owned(),
            "        target: \"values-{lang}/strings.xml\"".to_owned(),
        ]);
        offers.push(Offer {
            summary: format!(
                "{prefix}values/strings.xml (Android, {})",
                translations(pairs.len())
            ),
            lines,
        });
    }
}

/// Takes the source language's code out of a group's (tag → code) `pairs`; `None` when the
/// group has no source file or nothing beside it to translate into.
fn take_source(pairs: &mut BTreeMap<String, String>, source: &str) -> Option<String> {
    let src = pairs.keys().find(|t| is_source(t, source)).cloned()?;
    let code = pairs.remove(&src)?;
    (!pairs.is_empty()).then_some(code)
}

/// `dir/en.json` beside `dir/fr.json`, `dir/pt_BR.json` (and YAML alike).
fn locale_files(
    rels: &[String],
    source: &str,
    taken: &mut BTreeSet<String>,
    offers: &mut Vec<Offer>,
) {
    // (dir, ext) → (tag → code)
    let mut groups: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for rel in rels {
        let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let Some((stem, ext)) = file.rsplit_once('.') else {
            continue;
        };
        if !matches!(ext, "json" | "yml" | "yaml") {
            continue;
        }
        if let Some(tag) = tag_of(stem) {
            groups
                .entry((dir.to_owned(), ext.to_owned()))
                .or_default()
                .insert(tag, stem.to_owned());
        }
    }
    for ((dir, ext), mut pairs) in groups {
        let Some(src_code) = take_source(&mut pairs, source) else {
            continue;
        };
        let format = if ext == "json" { "json" } else { "yaml" };
        let at = |f: &str| {
            if dir.is_empty() {
                f.to_owned()
            } else {
                format!("{dir}/{f}")
            }
        };
        let mut lines = vec![format!("  - name: {}", name(&at(""), format, taken))];
        language_lines(&pairs, &mut lines);
        lines.extend([
            "    content:".to_owned(),
            format!("      - path: {}", quote(&at(&format!("{src_code}.{ext}")))),
            format!("        format: {format}"),
            format!(
                "        target: {}",
                quote(&at(&format!("{{locale}}.{ext}")))
            ),
        ]);
        offers.push(Offer {
            summary: format!(
                "{} ({})",
                at(&format!("{src_code}.{ext}")),
                translations(pairs.len())
            ),
            lines,
        });
    }
}

/// Flutter's `lib/l10n/app_en.arb` beside `app_fr.arb`, `app_en_GB.arb`: the name before the
/// first `_` that leaves a locale code.
fn arb_files(rels: &[String], source: &str, taken: &mut BTreeSet<String>, offers: &mut Vec<Offer>) {
    // (dir, prefix) → (tag → code)
    let mut groups: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for rel in rels {
        let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let Some(stem) = file.strip_suffix(".arb") else {
            continue;
        };
        let split = stem
            .match_indices('_')
            .map(|(i, _)| (&stem[..i], &stem[i + 1..]))
            .find(|(_, code)| tag_of(code).is_some());
        if let Some((prefix, code)) = split
            && let Some(tag) = tag_of(code)
        {
            groups
                .entry((dir.to_owned(), prefix.to_owned()))
                .or_default()
                .insert(tag, code.to_owned());
        }
    }
    for ((dir, prefix), mut pairs) in groups {
        let Some(src_code) = take_source(&mut pairs, source) else {
            continue;
        };
        let at = |f: &str| {
            if dir.is_empty() {
                f.to_owned()
            } else {
                format!("{dir}/{f}")
            }
        };
        let source_file = at(&format!("{prefix}_{src_code}.arb"));
        let mut lines = vec![format!("  - name: {}", name(&at(""), "arb", taken))];
        language_lines(&pairs, &mut lines);
        lines.extend([
            "    content:".to_owned(),
            format!("      - path: {}", quote(&source_file)),
            format!(
                "        target: {}",
                quote(&at(&format!("{prefix}_{{locale}}.arb")))
            ),
        ]);
        offers.push(Offer {
            summary: format!("{source_file} ({})", translations(pairs.len())),
            lines,
        });
    }
}

/// `locales/en/*.json` beside `locales/fr/` (i18next, Docusaurus), JSON or YAML; Fluent's
/// `i18n/en/app.ftl` beside `i18n/fr/` (Firefox, Czkawka) and UWP's `Strings/en-US/*.resw` too.
fn locale_folders(
    rels: &[String],
    source: &str,
    taken: &mut BTreeSet<String>,
    offers: &mut Vec<Offer>,
) {
    // (parent, ext) → (tag → code)
    let mut groups: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for rel in rels {
        let Some((_, ext)) = rel.rsplit_once('.') else {
            continue;
        };
        if !matches!(ext, "json" | "yml" | "yaml" | "resw" | "ftl") {
            continue;
        }
        let parts: Vec<&str> = rel.split('/').collect();
        // The nearest folder named as a locale, with a file under it.
        for i in (0..parts.len().saturating_sub(1)).rev() {
            if let Some(tag) = tag_of(parts[i]) {
                let parent = parts[..i].join("/");
                groups
                    .entry((parent, ext.to_owned()))
                    .or_default()
                    .insert(tag, parts[i].to_owned());
                break;
            }
        }
    }
    for ((parent, ext), mut pairs) in groups {
        let Some(src_code) = take_source(&mut pairs, source) else {
            continue;
        };
        let format = match ext.as_str() {
            "json" => "json",
            "resw" => "resx",
            "ftl" => "fluent",
            _ => "yaml",
        };
        let base = if parent.is_empty() {
            src_code.clone()
        } else {
            format!("{parent}/{src_code}")
        };
        let mut lines = vec![
            format!("  - name: {}", name(&base, format, taken)),
            format!("    base: {}", quote(&base)),
        ];
        language_lines(&pairs, &mut lines);
        lines.extend([
            "    content:".to_owned(),
            format!("      - path: \"**/*.{ext}\""),
            format!("        format: {format}"),
            "        target: \"../{locale}/{relpath}\"".to_owned(),
        ]);
        offers.push(Offer {
            summary: format!("{base}/**/*.{ext} ({})", translations(pairs.len())),
            lines,
        });
    }
}

/// Apple's `en.lproj/Localizable.strings` beside `fr.lproj/`, `pt-BR.lproj/`: one collection
/// per parent folder, its `.strings` and `.stringsdict` files under the source language's
/// `.lproj`.
fn lproj(rels: &[String], source: &str, taken: &mut BTreeSet<String>, offers: &mut Vec<Offer>) {
    // parent → (tag → code)
    let mut groups: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for rel in rels {
        if !rel.ends_with(".strings") && !rel.ends_with(".stringsdict") {
            continue;
        }
        let mut parts: Vec<&str> = rel.split('/').collect();
        parts.pop();
        let Some(folder) = parts.pop() else {
            continue;
        };
        if let Some(code) = folder.strip_suffix(".lproj")
            && let Some(tag) = tag_of(code)
        {
            groups
                .entry(parts.join("/"))
                .or_default()
                .insert(tag, code.to_owned());
        }
    }
    for (parent, mut pairs) in groups {
        let Some(src_code) = take_source(&mut pairs, source) else {
            continue;
        };
        let base = if parent.is_empty() {
            format!("{src_code}.lproj")
        } else {
            format!("{parent}/{src_code}.lproj")
        };
        let mut lines = vec![
            format!("  - name: {}", name(&base, "strings", taken)),
            format!("    base: {}", quote(&base)),
        ];
        language_lines(&pairs, &mut lines);
        lines.extend([
            "    content:".to_owned(),
            "      - path: \"*.{strings,stringsdict}\"".to_owned(),
            "        target: \"../{locale}.lproj/{relpath}\"".to_owned(),
        ]);
        offers.push(Offer {
            summary: format!("{base}/*.strings ({})", translations(pairs.len())),
            lines,
        });
    }
}

/// .NET's `Strings.resx` beside its satellites `Strings.fr.resx`, `Strings.ar-SA.resx`.
fn resx_satellites(
    rels: &[String],
    set: &BTreeSet<&str>,
    taken: &mut BTreeSet<String>,
    offers: &mut Vec<Offer>,
) {
    for rel in rels {
        let Some(stem) = rel.strip_suffix(".resx") else {
            continue;
        };
        if stem
            .rsplit_once('.')
            .is_some_and(|(_, code)| tag_of(code).is_some())
        {
            continue;
        }
        let prefix = format!("{stem}.");
        let mut pairs = BTreeMap::new();
        for other in set.range(prefix.as_str()..) {
            let Some(rest) = other.strip_prefix(&prefix) else {
                break;
            };
            if let Some(code) = rest.strip_suffix(".resx")
                && !code.contains(['/', '.'])
                && let Some(tag) = tag_of(code)
            {
                pairs.insert(tag, code.to_owned());
            }
        }
        if pairs.is_empty() {
            continue;
        }
        let mut lines = vec![format!("  - name: {}", name(stem, "resx", taken))];
        language_lines(&pairs, &mut lines);
        lines.extend([
            "    content:".to_owned(),
            format!("      - path: {}", quote(rel)),
            "        target: \"{dir}/{basename}.{locale}.resx\"".to_owned(),
        ]);
        offers.push(Offer {
            summary: format!("{rel} ({})", translations(pairs.len())),
            lines,
        });
    }
}

/// `Messages.properties` beside `Messages_fr.properties`.
fn properties(
    rels: &[String],
    set: &BTreeSet<&str>,
    taken: &mut BTreeSet<String>,
    offers: &mut Vec<Offer>,
) {
    for rel in rels {
        let Some(stem) = rel.strip_suffix(".properties") else {
            continue;
        };
        let prefix = format!("{stem}_");
        let mut tags = BTreeSet::new();
        for other in set.range(prefix.as_str()..) {
            let Some(code) = other
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".properties"))
            else {
                if other.starts_with(&prefix) {
                    continue;
                }
                break;
            };
            if !code.contains('/')
                && let Some(tag) = tag_of(code)
                && locales::underscore(&tag) == code
            {
                tags.insert(tag);
            }
        }
        if tags.is_empty() || tag_of(stem.rsplit('_').next().unwrap_or_default()).is_some() {
            continue;
        }
        let tags: Vec<String> = tags.into_iter().collect();
        let lines = vec![
            format!("  - name: {}", name(stem, "properties", taken)),
            format!("    target_languages: [{}]", tags.join(", ")),
            "    content:".to_owned(),
            format!("      - path: {}", quote(rel)),
            "        target: \"{dir}/{basename}_{lang_underscore}.properties\"".to_owned(),
        ];
        offers.push(Offer {
            summary: format!("{rel} ({})", translations(tags.len())),
            lines,
        });
    }
}

/// PO/POT, XLIFF and String Catalog (`.xcstrings`) files, which hold their translations: one
/// glob per top folder and kind.
/// Qt Linguist `.ts` files (the caller lists only those with a `<TS>` root, not TypeScript)
/// get one glob per folder that holds them, declared `format: qt`, so TypeScript elsewhere
/// is never taken for them.
fn bilingual(rels: &[String], offers: &mut Vec<Offer>) {
    let mut globs = BTreeSet::new();
    for rel in rels {
        let Some((_, ext)) = rel.rsplit_once('.') else {
            continue;
        };
        let (exts, format) = match ext {
            "po" | "pot" => ("{po,pot}", None),
            "xlf" | "xliff" => ("{xlf,xliff}", None),
            "xcstrings" => ("xcstrings", None),
            "ts" => ("ts", Some("qt")),
            _ => continue,
        };
        let glob = match (format, rel.split_once('/')) {
            (Some(_), _) => match rel.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/*.{exts}"),
                None => format!("*.{exts}"),
            },
            (None, Some((top, _))) => format!("{top}/**/*.{exts}"),
            (None, None) => format!("*.{exts}"),
        };
        globs.insert((glob, format));
    }
    for (glob, format) in globs {
        let mut lines = vec![format!("  - path: {}", quote(&glob))];
        if let Some(format) = format {
            lines.push(format!("    format: {format}"));
        }
        offers.push(Offer {
            summary: format!("{glob} (translations in the files)"),
            lines,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn finds_each_layout_with_its_template_and_languages() {
        let found = find(
            &rels(&[
                "app/src/main/res/values/strings.xml",
                "app/src/main/res/values-pt-rBR/strings.xml",
                "app/src/main/res/values-b+sr+Latn/strings.xml",
                "app/src/main/res/values-night/strings.xml",
                "i18n/en.json",
                "i18n/pt_BR.json",
                "i18n/fr.json",
                "i18n/package.json",
                "public/locales/en/common.json",
                "public/locales/de/common.json",
                "src/Messages.properties",
                "src/Messages_zh_CN.properties",
                "locale/fr/LC_MESSAGES/django.po",
                "locale/django.pot",
                "notes.json",
            ]),
            "en",
        );
        let text: Vec<String> = found.iter().map(|o| o.lines.join("\n")).collect();
        assert_eq!(found.len(), 5, "{text:#?}");
        assert!(
            text[0].contains("base: \"app/src/main/res\"\n    target_languages: [pt-BR, sr-Latn]"),
            "{}",
            text[0]
        );
        assert!(text[0].contains("target: \"values-{lang}/strings.xml\""));
        assert!(
            text[1].contains("target_languages: [fr, pt-BR]\n    locales: {pt-BR: pt_BR}"),
            "{}",
            text[1]
        );
        assert!(
            text[1].contains("path: \"i18n/en.json\"")
                && text[1].contains("target: \"i18n/{locale}.json\"")
        );
        assert!(
            text[2].contains("base: \"public/locales/en\"")
                && text[2].contains("target: \"../{locale}/{relpath}\""),
            "{}",
            text[2]
        );
        assert!(
            text[3].contains("target_languages: [zh-CN]")
                && text[3].contains("{dir}/{basename}_{lang_underscore}.properties"),
            "{}",
            text[3]
        );
        assert_eq!(text[4], "  - path: \"locale/**/*.{po,pot}\"");
    }

    #[test]
    fn lproj_folders_are_offered() {
        let offers = find(
            &rels(&[
                "App/en.lproj/Localizable.strings",
                "App/fr.lproj/Localizable.strings",
                "App/zh-Hans.lproj/Localizable.strings",
                "App/Base.lproj/Main.storyboard",
            ]),
            "en",
        );
        let text = offers[0].lines.join("\n");
        assert!(text.contains("base: \"App/en.lproj\""), "{text}");
        assert!(
            text.contains("target: \"../{locale}.lproj/{relpath}\""),
            "{text}"
        );
        assert!(text.contains("[fr, zh-Hans]"), "{text}");
    }

    #[test]
    fn resx_satellites_and_resw_folders_are_offered() {
        let offers = find(
            &rels(&[
                "src/Strings.resx",
                "src/Strings.ar-SA.resx",
                "src/Strings.ja-JP.resx",
                "Strings/en-US/Resources.resw",
                "Strings/de-DE/Resources.resw",
            ]),
            "en",
        );
        let text: Vec<String> = offers.iter().map(|o| o.lines.join("\n")).collect();
        assert!(
            text.iter().any(|t| t.contains("path: \"src/Strings.resx\"")
                && t.contains("target: \"{dir}/{basename}.{locale}.resx\"")
                && t.contains("[ar-SA, ja-JP]")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("base: \"Strings/en-US\"") && t.contains("format: resx")),
            "{text:?}"
        );
    }

    #[test]
    fn flutter_arb_files_are_offered_with_their_locale_codes() {
        let offers = find(
            &rels(&[
                "lib/l10n/app_en.arb",
                "lib/l10n/app_fr.arb",
                "lib/l10n/app_zh_Hant.arb",
            ]),
            "en",
        );
        assert_eq!(offers.len(), 1, "{offers:?}");
        let text = offers[0].lines.join("\n");
        assert!(text.contains("path: \"lib/l10n/app_en.arb\""), "{text}");
        assert!(
            text.contains("target: \"lib/l10n/app_{locale}.arb\""),
            "{text}"
        );
        assert!(text.contains("zh-Hant: zh_Hant"), "{text}");
    }

    #[test]
    fn a_group_without_a_source_or_a_translation_is_not_offered() {
        assert!(find(&rels(&["i18n/fr.json", "i18n/de.json"]), "en").is_empty());
        assert!(find(&rels(&["i18n/en.json"]), "en").is_empty());
        assert!(find(&rels(&["a/Messages.properties"]), "en").is_empty());
    }
}
