//! `placeholders`: a translation keeps the source's variables and markup. Modelled on the
//! checks translators already trust: gettext's `msgfmt -c` (format directives match in number
//! and type; positional `%1$s` may reorder) and translate-toolkit's `pofilter` tests
//! `variables`, `printf` and `xmltags`.
//!
//! Compared as multisets of normalised placeholders: printf by (argument position, conversion
//! family) with sequential directives numbered in order, so `%s … %d` matches `%2$d … %1$s`
//! reversed; Python `%(name)s` by name and conversion; `{name}`, `{{ name }}`, `${name}`,
//! `%{name}` by name, whitespace ignored; `%%` not a variable. Tags by element name, open and
//! close apart. In a plural, a target branch may drop a variable the source uses (Russian
//! `one` also covers 21, so translators write the number out or not), but never add one the
//! source never uses; a variable every source branch uses must appear in some target branch.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::rule::declare_rule;
use crate::governance::Severity;
use crate::model::{CodeKind, Edition, Run};

declare_rule! {
    /// ## What it flags
    /// A variable of the source (`{name}`, `%1$s`, `%(count)d`, `{{user}}`) missing from the
    /// translation.
    ///
    /// ## Why it matters
    /// The program fills variables in at run time: a translation without one drops
    /// information, and with printf-style strings it can crash the program when arguments and
    /// directives disagree (`msgfmt -c` refuses such a catalog).
    ///
    /// ## Example
    /// Source `Delete {count} files?`, translation `Supprimer les fichiers ?` Use instead:
    /// `Supprimer {count} fichiers ?`
    pub MISSING = "placeholders.missing", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A variable in the translation that the source does not have (a misspelt `{nmae}`, a
    /// `%d` where the source had `%s`).
    ///
    /// ## Why it matters
    /// The program has no value for it: the reader sees `{nmae}` verbatim, or a printf call
    /// reads an argument that is not there.
    ///
    /// ## Example
    /// Source `Hello, {name}`, translation `Bonjour, {nom}` Use instead: `Bonjour, {name}`
    pub EXTRA = "placeholders.extra", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// Markup tags (`<b>`, `</a>`, `<br/>`) the source and translation do not share, compared
    /// by element name.
    ///
    /// ## Why it matters
    /// A lost closing tag breaks the rendered page; a lost link drops the reader's way on. A
    /// translation may reorder tags, not lose or invent them.
    ///
    /// ## Example
    /// Source `Read the <a>guide</a>`, translation `Lisez le guide` Use instead:
    /// `Lisez le <a>guide</a>`
    pub TAGS = "placeholders.tags", Severity::Minor
}

/// A placeholder reduced to what must match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Token {
    /// printf: argument position and conversion family (`s`, `d`, `f`, `c`, `p`, `@`…).
    Printf(u32, char),
    /// A named variable.
    Named(String),
    /// A tag: name, `<`, `</` or `/>`, and its attributes (`name=value`, sorted; the value
    /// of an attribute meant for translation, such as `alt` or `title`, as `*`).
    Tag(String, &'static str, String),
}

impl Token {
    pub fn is_tag(&self) -> bool {
        matches!(self, Token::Tag(..))
    }

    /// How the token reads in a message.
    pub fn show(&self) -> String {
        match self {
            Token::Printf(pos, conv) => format!("%{pos}${conv}"),
            Token::Named(name) => format!("{{{name}}}"),
            Token::Tag(name, "</", _) => format!("</{name}>"),
            Token::Tag(name, "/>", _) => format!("<{name}/>"),
            Token::Tag(name, _, _) => format!("<{name}>"),
        }
    }
}

/// A problem found between a source and its translation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub rule: &'static super::Rule,
    /// The native form as written where it was found (source for missing, target for extra).
    pub data: String,
    pub message: String,
}

/// The tokens of runs (recursing into every branch), each with its native data.
fn tokens(runs: &[Run], out: &mut Vec<(Token, String)>) {
    let mut position = 0;
    collect(runs, &mut position, out);
}

fn collect(runs: &[Run], position: &mut u32, out: &mut Vec<(Token, String)>) {
    // Formats that keep markup as text (gettext, properties) have tags in their text, maybe
    // with a variable inside (`<a href="%(url)s">`): scan the text with variables put back.
    let mut scan = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => scan.push_str(text),
            Run::Code(code) => match token_of(&code.class, code.kind, &code.data, position) {
                Some(token) => {
                    if token.is_tag() {
                        scan.push('\0');
                    } else {
                        scan.push_str(&code.data);
                    }
                    out.push((token, code.data.clone()));
                }
                None => scan.push('\0'),
            },
            Run::Switch(switch) => {
                scan_tags(&scan, out);
                scan.clear();
                out.push((Token::Named(switch.pivot.clone()), switch.pivot.clone()));
                // An empty form is untranslated, not wrong.
                for branch in switch.branches.iter().filter(|b| !b.runs.is_empty()) {
                    let mut p = *position;
                    collect(&branch.runs, &mut p, out);
                }
            }
        }
    }
    scan_tags(&scan, out);
}

/// Tags written as text.
fn scan_tags(text: &str, out: &mut Vec<(Token, String)>) {
    if !text.contains('<') {
        return;
    }
    let mut unused = 0;
    for m in TEXT_TAG.find_iter(text) {
        let data = m.as_str();
        let kind = if data.ends_with("/>") {
            CodeKind::Standalone
        } else {
            CodeKind::Open
        };
        if let Some(token) = token_of("tag", kind, data, &mut unused) {
            out.push((token, data.to_owned()));
        }
    }
}

/// Normalises one code; `None` for codes that are not variables or tags (formatting,
/// entities, `%%`).
pub fn token_of(class: &str, kind: CodeKind, data: &str, position: &mut u32) -> Option<Token> {
    let data = data.trim();
    if data == "%%" {
        return None;
    }
    if let Some(rest) = data.strip_prefix("%(") {
        let (name, spec) = rest.split_once(')')?;
        let conv = spec.chars().last().map_or('s', family);
        return Some(Token::Named(format!("{name}:{conv}")));
    }
    if data.starts_with('%') && !data.starts_with("%{") && !data.starts_with("%<") {
        let body = &data[1..];
        let conv = body.chars().last().map_or('s', family);
        let explicit = body
            .split_once('$')
            .and_then(|(n, _)| n.parse::<u32>().ok());
        let pos = match explicit {
            Some(n) => n,
            None => {
                *position += 1;
                *position
            }
        };
        return Some(Token::Printf(pos, conv));
    }
    if let Some(inner) = data
        .strip_prefix("{{")
        .and_then(|d| d.strip_suffix("}}"))
        .or_else(|| data.strip_prefix("${").and_then(|d| d.strip_suffix('}')))
        .or_else(|| data.strip_prefix("%{").and_then(|d| d.strip_suffix('}')))
        .or_else(|| data.strip_prefix('{').and_then(|d| d.strip_suffix('}')))
    {
        let name: String = inner
            .trim_start_matches('-')
            .split(',')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        return (!name.is_empty()).then_some(Token::Named(name));
    }
    if let Some(rest) = data.strip_prefix("%<") {
        let name = rest.split('>').next().unwrap_or("");
        return Some(Token::Named(name.to_owned()));
    }
    if data.starts_with("$t(") {
        return Some(Token::Named(data.to_owned()));
    }
    if data.starts_with('<') && !data.starts_with("<!--") {
        let inner = data.trim_start_matches('<');
        let (closing, inner) = match inner.strip_prefix('/') {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let name: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            return None;
        }
        let shape = if closing {
            "</"
        } else if data.ends_with("/>") || kind == CodeKind::Standalone {
            "/>"
        } else {
            "<"
        };
        return Some(Token::Tag(name, shape, attributes(data)));
    }
    let _ = class;
    None
}

/// Attributes a translation may change (the words of `alt`, `title`…), as pofilter's
/// `xmltags` allows.
const TRANSLATABLE_ATTRIBUTES: &[&str] = &[
    "alt",
    "title",
    "placeholder",
    "aria-label",
    "summary",
    "label",
    "abbr",
    "standby",
];

static TEXT_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"</?[A-Za-z][A-Za-z0-9_:-]*(?:\s+[^<>]*?)?\s*/?>"#)
        .unwrap_or_else(|e| unreachable!("tag pattern: {e}"))
});

static ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z_:][A-Za-z0-9_:.-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)"#)
        .unwrap_or_else(|e| unreachable!("attribute pattern: {e}"))
});

/// A tag's attributes, normalised: `name=value` sorted, translatable values as `*`.
fn attributes(tag: &str) -> String {
    let mut attrs: Vec<String> = ATTRIBUTE
        .captures_iter(tag)
        .filter_map(|c| {
            let name = c.get(1)?.as_str().to_ascii_lowercase();
            let value = c.get(2)?.as_str().trim_matches(['"', '\'']);
            Some(if TRANSLATABLE_ATTRIBUTES.contains(&name.as_str()) {
                format!("{name}=*")
            } else {
                format!("{name}={value}")
            })
        })
        .collect();
    attrs.sort();
    attrs.join(" ")
}

/// printf conversions that take the same argument type compare equal (`%i` is `%d`).
fn family(conv: char) -> char {
    match conv {
        'd' | 'i' | 'u' => 'd',
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => 'f',
        'x' | 'X' | 'o' => 'x',
        's' => 's',
        other => other,
    }
}

/// Compares a target edition with its source. Each mismatch is reported once per token.
pub fn compare(source: &Edition, target: &Edition) -> Vec<Mismatch> {
    // An untranslated target (no text in any form) is missing, not wrong.
    if target.runs.is_empty()
        || target.leaves().iter().all(|(_, runs)| runs.is_empty())
            && target.runs.iter().all(|r| matches!(r, Run::Switch(_)))
    {
        return Vec::new();
    }
    let mut src = Vec::new();
    tokens(&source.runs, &mut src);
    let mut tgt = Vec::new();
    tokens(&target.runs, &mut tgt);
    let plural = source
        .runs
        .iter()
        .chain(&target.runs)
        .any(|r| matches!(r, Run::Switch(_)));
    let count = |list: &[(Token, String)]| {
        let mut map: BTreeMap<Token, (usize, String)> = BTreeMap::new();
        for (token, data) in list {
            let entry = map.entry(token.clone()).or_insert((0, data.clone()));
            entry.0 += 1;
        }
        map
    };
    let (s, t) = (count(&src), count(&tgt));
    // A name may be used fewer or more times in a translation (`{name}` once where the
    // source says it twice); printf directives and tags are counted.
    let counted = |token: &Token| !matches!(token, Token::Named(_));
    let mut out = Vec::new();
    for (token, (n, data)) in &s {
        let have = t.get(token).map_or(0, |(m, _)| *m);
        let short = if plural || !counted(token) {
            have == 0
        } else {
            have < *n
        };
        if short {
            let rule = if token.is_tag() { &TAGS } else { &MISSING };
            out.push(Mismatch {
                rule,
                data: data.clone(),
                message: format!("the translation lacks `{data}`, which the source has"),
            });
        }
    }
    for (token, (n, data)) in &t {
        let have = s.get(token).map_or(0, |(m, _)| *m);
        let over = if plural || !counted(token) {
            have == 0
        } else {
            *n > have
        };
        if over {
            let rule = if token.is_tag() { &TAGS } else { &EXTRA };
            out.push(Mismatch {
                rule,
                data: data.clone(),
                message: format!("the translation has `{data}`, which the source does not"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::placeholders::{Ids, Syntaxes, split};

    fn ed(text: &str) -> Edition {
        Edition::new(split(text, None, Syntaxes::ALL, &mut Ids::default()))
    }

    fn rules(source: &str, target: &str) -> Vec<&'static str> {
        compare(&ed(source), &ed(target))
            .iter()
            .map(|m| m.rule.id)
            .collect()
    }

    #[test]
    fn matching_translations_pass() {
        let table = [
            ("Delete {count} files?", "Supprimer {count} fichiers ?"),
            ("%s of %d", "%2$d sur %1$s"),
            ("%(name)s left", "%(name)s est parti"),
            ("Hi {{ user }}", "Salut {{user}}"),
            ("100%% done", "fini à 100 %"),
            (
                "Read the <a href=\"x\">guide</a>",
                "Lisez le <a href=\"x\">guide</a>",
            ),
            (
                "<img src=\"a.png\" alt=\"A cat\">",
                "<img alt=\"Un chat\" src=\"a.png\">",
            ),
            ("%i items", "%d éléments"),
            ("Hi %(name)s and %(name)s", "Salut %(name)s"),
        ];
        for (s, t) in table {
            assert_eq!(rules(s, t), Vec::<&str>::new(), "{s} / {t}");
        }
    }

    #[test]
    fn tags_written_as_text_count_and_empty_targets_are_untranslated() {
        let text = |t: &str| Edition::new(vec![Run::text(t)]);
        let got = compare(&text("Read <b>this</b>"), &text("Lisez ceci"));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(compare(&text("Hello {name}"), &Edition::new(vec![])).is_empty());
    }

    #[test]
    fn mismatches_name_their_rule() {
        let table: &[(&str, &str, &[&str])] = &[
            (
                "Delete {count} files?",
                "Supprimer les fichiers ?",
                &["placeholders.missing"],
            ),
            (
                "Hello, {name}",
                "Bonjour, {nom}",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "%s files",
                "%d fichiers",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "Read the <b>guide</b>",
                "Lisez le guide",
                &["placeholders.tags", "placeholders.tags"],
            ),
            ("%s and %s", "%s et", &["placeholders.missing"]),
            (
                "Delete %(items)s",
                "Scrios %(items)r roghnaithe",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "Save",
                "<text_to_translate>Enregistrer",
                &["placeholders.tags"],
            ),
            ("{a} and {a}", "{a} et {b}", &["placeholders.extra"]),
            (
                "See <a href=\"/x\">this</a>",
                "Voir <a href=\\\"/x\\\">ceci</a>",
                &["placeholders.tags", "placeholders.tags"],
            ),
        ];
        for (s, t, want) in table {
            assert_eq!(rules(s, t), *want, "{s} / {t}");
        }
    }
}
