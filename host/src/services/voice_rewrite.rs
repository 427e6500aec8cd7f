//! `voice_rewrite`: swaps each discouraged term in a text for the project's replacement,
//! cased like the words it replaces; deterministic, never rephrases, leaves code alone.
//! MCP's `voice_rewrite` and `kapi rewrite`.

use kapi_core::check::analyzers::terms::rule_for;
use kapi_core::check::not_words::Addresses;
use kapi_core::governance::TermStatus;
use kapi_core::text::Prose;
use serde::Serialize;

use super::text_scope::{TextRequest, is_set, locate, read_blocks, render, scope};
use crate::app::App;
use crate::error::HostError;

/// One swap made, in offsets of the text given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Replacement {
    pub from: String,
    pub to: String,
    pub start: usize,
    pub end: usize,
    pub rule: String,
}

/// A discouraged term left as it was, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unchanged {
    /// As written in the text.
    pub text: String,
    /// The term as the project declares it.
    pub term: String,
    pub status: TermStatus,
    pub rule: String,
    pub start: usize,
    pub end: usize,
    pub why: String,
}

/// `kapi.voice-rewrite/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Rewrite {
    pub schema: &'static str,
    pub text: String,
    pub replacements: Vec<Replacement>,
    pub unchanged: Vec<Unchanged>,
    pub notes: Vec<String>,
}

/// The replacement cased like the words it replaces: written in capitals, in capitals;
/// capitalised where the term is not (a sentence start, or a lower-case term written with a
/// capital), capitalised; else as the project writes it (so a proper noun keeps its capital).
fn cased(written: &str, term: &str, replacement: &str, sentence_start: bool) -> String {
    let letters: Vec<char> = written.chars().filter(|c| c.is_alphabetic()).collect();
    let term_upper = term
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(char::is_uppercase);
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) && !term_upper {
        return replacement.to_uppercase();
    }
    let first_upper = written.chars().next().is_some_and(char::is_uppercase);
    let term_first_upper = term.trim().chars().next().is_some_and(char::is_uppercase);
    if first_upper && (!term_first_upper || sentence_start) {
        let mut chars = replacement.chars();
        return match chars.next() {
            Some(c) => c.to_uppercase().chain(chars).collect(),
            None => String::new(),
        };
    }
    replacement.to_owned()
}

/// Whether a match starting at `at` in `prose` begins a sentence.
fn sentence_start(prose: &str, at: usize) -> bool {
    let before = prose.get(..at).unwrap_or("").trim_end();
    before.is_empty() || before.ends_with(['.', '!', '?'])
}

/// Rewrites the request's text with the terms bound there.
pub fn voice_rewrite(app: &App, mut request: TextRequest) -> Result<Rewrite, HostError> {
    let scope = scope(app, &request)?;
    let gov = &scope.governance;
    let cancel = request.cancel.clone();
    let mut replacements: Vec<Replacement> = Vec::new();
    let mut unchanged = Vec::new();
    // A block at a time as the text is read: the document is never held.
    let parsed = read_blocks(&mut request, &scope, &mut |source, block| {
        if !block.translatable || is_set(cancel.as_deref()) {
            return;
        }
        let prose = Prose::from_edition(&block.source);
        let found = gov.matcher.find(&prose.text);
        // A term inside a URL, domain or path is not a word: rewriting it would break it.
        let addresses = if found.is_empty() {
            Addresses::default()
        } else {
            Addresses::scan(&prose.text)
        };
        for m in found {
            if addresses.hides(&prose.text, &m.range) {
                continue;
            }
            let Some(entry) = gov.terms.get(m.entry) else {
                continue;
            };
            let Some(rule) = rule_for(entry.status) else {
                continue;
            };
            // Inside one of the term's exceptions (`ReactJS Day`) the project allows it.
            if m.exception.is_some() {
                continue;
            }
            let written = prose.text.get(m.range.clone()).unwrap_or("").to_owned();
            let located = locate(&prose, &m.range, source);
            let (start, end) = located.unwrap_or_else(|| {
                let at = prose.file_offset(m.range.start).unwrap_or(block.span.start);
                (at, at)
            });
            let keep = |why: &str| Unchanged {
                text: written.clone(),
                term: entry.text.clone(),
                status: entry.status,
                rule: rule.id.to_owned(),
                start,
                end,
                why: why.to_owned(),
            };
            match (&entry.replacement, located) {
                (None, _) => unchanged.push(keep("the project gives no replacement")),
                (Some(_), None) => unchanged.push(keep(
                    "its words are not written verbatim in the text (escaped or split by markup)",
                )),
                (Some(r), Some((start, end))) => replacements.push(Replacement {
                    to: cased(
                        &written,
                        &entry.text,
                        r,
                        sentence_start(&prose.text, m.range.start),
                    ),
                    from: written.clone(),
                    start,
                    end,
                    rule: rule.id.to_owned(),
                }),
            }
        }
    })?;
    request.not_cancelled()?;
    let source = parsed.skeleton.text();
    replacements.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    let mut kept = Vec::with_capacity(replacements.len());
    for r in replacements {
        if r.start < at {
            continue;
        }
        out.push_str(&source[at..r.start]);
        out.push_str(&r.to);
        at = r.end;
        kept.push(r);
    }
    out.push_str(&source[at..]);
    unchanged.sort_by_key(|u| u.start);
    Ok(Rewrite {
        schema: "kapi.voice-rewrite/v1",
        text: out,
        replacements: kept,
        unchanged,
        notes: scope.notes,
    })
}

impl Rewrite {
    /// What was swapped and what was left, one line each, and the notes: what a person reads
    /// beside the rewritten text.
    pub fn render_changes(&self) -> String {
        let mut out = format!("{} replacement(s)", self.replacements.len());
        if !self.replacements.is_empty() {
            let list: Vec<String> = self
                .replacements
                .iter()
                .map(|x| format!("`{}` → `{}`", x.from, x.to))
                .collect();
            out.push_str(&format!(": {}", list.join(", ")));
        }
        out.push('\n');
        for u in &self.unchanged {
            out.push_str(&format!(
                "Left as written: `{}` ({}, {}): {}\n",
                u.text,
                u.status.as_str(),
                u.rule,
                u.why
            ));
        }
        render::notes(&mut out, &self.notes);
        out
    }

    /// The rewritten text, a blank line, then [`Rewrite::render_changes`] (MCP's text).
    pub fn render(&self) -> String {
        let mut out = self.text.clone();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.render_changes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::text_scope::tests::{Fixture, at};
    use super::*;

    #[test]
    fn voice_rewrite_swaps_terms_keeping_the_capital_and_leaves_code_alone() {
        let fx = Fixture::new();
        let text = "Utilize the CLI, then utilize it to login. Run `utilize()` in Confluence.\n";
        let r = voice_rewrite(&fx.app(), at(text, Some("docs/a.md"))).unwrap();
        assert_eq!(
            r.text,
            "Use the CLI, then use it to sign in. Run `utilize()` in Confluence.\n"
        );
        let swaps: Vec<(&str, &str, &str)> = r
            .replacements
            .iter()
            .map(|x| (x.from.as_str(), x.to.as_str(), x.rule.as_str()))
            .collect();
        assert_eq!(
            swaps,
            [
                ("Utilize", "Use", "terms.forbidden"),
                ("utilize", "use", "terms.forbidden"),
                ("login", "sign in", "terms.deprecated"),
            ]
        );
        assert_eq!(
            &text[r.replacements[0].start..r.replacements[0].end],
            "Utilize"
        );
        assert_eq!(r.unchanged.len(), 1);
        assert_eq!(r.unchanged[0].text, "Confluence");
        assert_eq!(r.unchanged[0].status, TermStatus::Competitor);
        assert!(
            r.render()
                .starts_with(&format!("{}\n3 replacement(s): `Utilize` → `Use`", r.text))
        );

        let same = voice_rewrite(&fx.app(), at("Select **Save**.\n", Some("docs/a.md"))).unwrap();
        assert_eq!(same.text, "Select **Save**.\n");
        assert!(same.replacements.is_empty() && same.unchanged.is_empty());
    }

    #[test]
    fn a_term_inside_an_address_is_not_rewritten() {
        let fx = Fixture::new();
        let text = "Read https://example.com/utilize-guide or ./utilize.sh, then utilize it.\n";
        let r = voice_rewrite(&fx.app(), at(text, Some("docs/a.md"))).unwrap();
        assert_eq!(
            r.text,
            "Read https://example.com/utilize-guide or ./utilize.sh, then use it.\n"
        );
        assert!(r.unchanged.is_empty(), "{:?}", r.unchanged);
    }

    #[test]
    fn cased_keeps_the_first_letter_and_proper_nouns() {
        assert_eq!(cased("Utilize", "utilize", "use", true), "Use");
        assert_eq!(cased("utilize", "utilize", "use", false), "use");
        assert_eq!(cased("UTILIZE", "utilize", "use", false), "USE");
        assert_eq!(cased("login", "login", "Larkspur ID", false), "Larkspur ID");
        // A capitalised term mid-sentence is a name: the replacement stays as written.
        assert_eq!(cased("Confluence", "Confluence", "wiki", false), "wiki");
        assert_eq!(cased("Confluence", "Confluence", "wiki", true), "Wiki");
        assert!(sentence_start("Done. ", 6) && !sentence_start("Run it ", 7));
    }
}
