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
    /// A tag: name and `<`, `</` or `/>`.
    Tag(String, &'static str),
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
            Token::Tag(name, "</") => format!("</{name}>"),
            Token::Tag(name, "/>") => format!("<{name}/>"),
            Token::Tag(name, _) => format!("<{name}>"),
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
    for run in runs {
        match run {
            Run::Text { .. } => {}
            Run::Code(code) => {
                if let Some(token) = token_of(&code.class, code.kind, &code.data, position) {
                    out.push((token, code.data.clone()));
                }
            }
            Run::Switch(switch) => {
                out.push((Token::Named(switch.pivot.clone()), switch.pivot.clone()));
                for branch in &switch.branches {
                    let mut p = *position;
                    collect(&branch.runs, &mut p, out);
                }
            }
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
        return Some(Token::Tag(name, shape));
    }
    let _ = class;
    None
}

/// printf conversions that take the same argument type compare equal (`%i` is `%d`).
fn family(conv: char) -> char {
    match conv {
        'd' | 'i' | 'u' => 'd',
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => 'f',
        'x' | 'X' | 'o' => 'x',
        'r' | 's' => 's',
        other => other,
    }
}

/// Compares a target edition with its source. Each mismatch is reported once per token.
pub fn compare(source: &Edition, target: &Edition) -> Vec<Mismatch> {
    if target.runs.is_empty() {
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
    let mut out = Vec::new();
    for (token, (n, data)) in &s {
        let have = t.get(token).map_or(0, |(m, _)| *m);
        let short = if plural { have == 0 } else { have < *n };
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
        let over = if plural { have == 0 } else { *n > have };
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
                "Lisez le <a href=\"y\">guide</a>",
            ),
            ("%i items", "%d éléments"),
        ];
        for (s, t) in table {
            assert_eq!(rules(s, t), Vec::<&str>::new(), "{s} / {t}");
        }
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
            ("{a} and {a}", "{a} et", &["placeholders.missing"]),
        ];
        for (s, t, want) in table {
            assert_eq!(rules(s, t), *want, "{s} / {t}");
        }
    }
}
