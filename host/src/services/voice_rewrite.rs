//! `voice_rewrite`: swaps each discouraged term in a text for the project's replacement,
//! cased like the words it replaces; deterministic, never rephrases, leaves code alone.
//! MCP's `voice_rewrite` and `kapi rewrite`.
//!
//! It changes what `kapi check` would report of the terms, and nothing the check would not:
//! - The same candidates: every match of the term matcher with the variants
//!   ([`TermMatcher::find_each_variant`]), so a `terms.case` variant (`Github`, `Node.JS`) is
//!   fixed to the term as the project writes it (`GitHub`), as its finding suggests, never
//!   re-cased; forbidden, competitor and deprecated terms get their replacement, cased like
//!   the words they replace.
//! - The same exclusions: a term inside a URL, domain, e-mail address or path is not a word
//!   (rewriting it would break it), and what the project allows where the term stands is left
//!   as written, as the check sets it apart: a `kapi-disable…` comment in the text (read with
//!   the format's comment syntax, so JSON and plain text have none; next-line directives cover
//!   the block below them), the recipe's `rules:` exclusions for the text's destination
//!   (`context_path`: a snippet with no destination has none), and the term's
//!   `exceptions:`. Each one left is listed in `unchanged` with what allowed it
//!   (`suppressed_by`, as the check's report names it), never silently skipped;
//!   `TextRequest::no_suppress` rewrites them too.
//!
//! A rewritten text therefore checks clean of everything the rewrite could fix; what it lists
//! as unchanged (no replacement, words split by markup, allowed) is what is left.
//!
//! [`TermMatcher::find_each_variant`]: kapi_core::governance::TermMatcher::find_each_variant

use kapi_core::check::Suppression;
use kapi_core::check::analyzers::terms::{CASE, rule_for};
use kapi_core::check::not_words::Addresses;
use kapi_core::check::suppress::{self, SuppressedBy, SuppressionKind};
use kapi_core::governance::{Governance, TermMatch, TermStatus};
use kapi_core::model::Block;
use kapi_core::text::{LineIndex, Prose};
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
    /// What allows the term where it stands, when the project does: a `kapi-disable…`
    /// comment, the recipe's `rules:`, the term's `exceptions:` (as `kapi check` names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_by: Option<SuppressedBy>,
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

/// Why a term the project allows where it stands was left: what allowed it, and where.
fn allowed_why(by: &SuppressedBy) -> String {
    match (by.kind, &by.path, by.line) {
        (SuppressionKind::Directive, _, Some(line)) => {
            format!("allowed here by `{}` (line {line})", by.text)
        }
        (SuppressionKind::Recipe, Some(path), Some(line)) => {
            format!("allowed here by `{}` ({path}:{line})", by.text)
        }
        (SuppressionKind::Directive | SuppressionKind::Recipe, ..) => {
            format!("allowed here by `{}`", by.text)
        }
        (SuppressionKind::Exception, ..) => format!("allowed here by {}", by.text),
    }
}

/// The swaps and the terms left of a text, gathered a block at a time.
struct Rewriter<'a> {
    gov: &'a Governance,
    /// The name the suppression's directives report under.
    display: &'a str,
    /// What the project allows where the text goes: its directives, the recipe's exclusions.
    suppression: Suppression,
    /// `--no-suppress`: term exceptions are rewritten too.
    no_suppress: bool,
    /// The text's line starts, built when the first directive or match needs them.
    lines: Option<LineIndex>,
    replacements: Vec<Replacement>,
    unchanged: Vec<Unchanged>,
}

impl Rewriter<'_> {
    /// Reads `block` of `source` (every block, in order: directives above a block cover it)
    /// and gathers its swaps and the terms it leaves.
    fn block(&mut self, source: &str, block: &Block) {
        self.suppression.scan(source, &mut self.lines);
        self.suppression.note_block(source, block);
        if !block.translatable {
            return;
        }
        let prose = Prose::from_edition(&block.source);
        let mut found = Vec::new();
        self.gov
            .matcher
            .find_each_variant(&prose.text, |m| found.push(m));
        // A term inside a URL, domain or path is not a word: rewriting it would break it.
        let addresses = if found.is_empty() {
            Addresses::default()
        } else {
            Addresses::scan(&prose.text)
        };
        for m in found {
            if !addresses.hides(&prose.text, &m.range) {
                self.one(source, block, &prose, &m);
            }
        }
    }

    /// One match: swapped, left (with why), or not a term the check reports.
    fn one(&mut self, source: &str, block: &Block, prose: &Prose, m: &TermMatch) {
        let Some(entry) = self.gov.terms.get(m.entry) else {
            return;
        };
        let (rule, replacement) = if m.variant {
            (&CASE, Some(entry.text.trim().to_owned()))
        } else {
            let Some(rule) = rule_for(entry.status) else {
                return;
            };
            (rule, entry.replacement.clone())
        };
        let written = prose.text.get(m.range.clone()).unwrap_or("").to_owned();
        let located = locate(prose, &m.range, source);
        let (start, end) = located.unwrap_or_else(|| {
            let at = prose.file_offset(m.range.start).unwrap_or(block.span.start);
            (at, at)
        });
        let keep = |why: String, suppressed_by: Option<SuppressedBy>| Unchanged {
            text: written.clone(),
            term: entry.text.clone(),
            status: entry.status,
            rule: rule.id.to_owned(),
            start,
            end,
            why,
            suppressed_by,
        };
        // What the project allows where it stands is left, as the check sets it apart.
        let exception = m
            .exception
            .filter(|_| !self.no_suppress)
            .and_then(|i| entry.exceptions.get(i))
            .map(|exception| SuppressedBy {
                kind: SuppressionKind::Exception,
                text: exception.allows(&entry.text),
                path: None,
                line: None,
            });
        let allowed = exception.or_else(|| {
            let line = self
                .lines
                .get_or_insert_with(|| LineIndex::new(source))
                .line(start);
            self.suppression
                .verdict(rule.id, line, Some(&block.key), self.display)
        });
        if let Some(by) = allowed {
            self.unchanged.push(keep(allowed_why(&by), Some(by)));
            return;
        }
        match (replacement, located) {
            (None, _) => self
                .unchanged
                .push(keep("the project gives no replacement".to_owned(), None)),
            (Some(_), None) => self.unchanged.push(keep(
                "its words are not written verbatim in the text (escaped or split by markup)"
                    .to_owned(),
                None,
            )),
            (Some(to), Some((start, end))) => self.replacements.push(Replacement {
                // A variant becomes the term as written; a term its replacement, cased.
                to: if m.variant {
                    to
                } else {
                    cased(
                        &written,
                        &entry.text,
                        &to,
                        sentence_start(&prose.text, m.range.start),
                    )
                },
                from: written.clone(),
                start,
                end,
                rule: rule.id.to_owned(),
            }),
        }
    }
}

/// Rewrites the request's text with the terms bound there.
pub fn voice_rewrite(app: &App, mut request: TextRequest) -> Result<Rewrite, HostError> {
    let scope = scope(app, &request)?;
    let cancel = request.cancel.clone();
    let syntax = suppress::syntax_for(scope.format.info().id);
    let mut rewriter = Rewriter {
        gov: &scope.governance,
        display: &scope.display,
        suppression: Suppression::new(syntax, scope.file_rules.clone(), request.no_suppress),
        no_suppress: request.no_suppress,
        lines: None,
        replacements: Vec::new(),
        unchanged: Vec::new(),
    };
    // A block at a time as the text is read: the document is never held.
    let parsed = read_blocks(&mut request, &scope, &mut |source, block| {
        if !is_set(cancel.as_deref()) {
            rewriter.block(source, &block);
        }
    })?;
    request.not_cancelled()?;
    let Rewriter {
        mut replacements,
        mut unchanged,
        ..
    } = rewriter;
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
    fn what_a_directive_allows_is_left_and_named_unless_nothing_is_suppressed() {
        let fx = Fixture::new();
        let text = "Utilize it. <!-- kapi-disable-line terms -->\n\n\
                    <!-- kapi-disable-next-line terms.forbidden -->\nUtilize\nit, utilize it.\n\n\
                    Then utilize it.\n";
        let r = voice_rewrite(&fx.app(), at(text, Some("docs/a.md"))).unwrap();
        assert_eq!(r.text, text.replace("Then utilize", "Then use"));
        let left: Vec<(usize, Option<usize>, &str)> = r
            .unchanged
            .iter()
            .map(|u| {
                let by = u.suppressed_by.as_ref();
                (u.start, by.and_then(|b| b.line), u.why.as_str())
            })
            .collect();
        assert_eq!(
            left,
            [
                (
                    0,
                    Some(1),
                    "allowed here by `kapi-disable-line terms` (line 1)"
                ),
                (
                    text.find("Utilize\nit").unwrap_or_default(),
                    Some(3),
                    "allowed here by `kapi-disable-next-line terms.forbidden` (line 3)"
                ),
                (
                    text.find("utilize it.\n\n").unwrap_or_default(),
                    Some(3),
                    "allowed here by `kapi-disable-next-line terms.forbidden` (line 3)"
                ),
            ]
        );
        // `--no-suppress` rewrites them all.
        let all = TextRequest {
            no_suppress: true,
            ..at(text, Some("docs/a.md"))
        };
        let r = voice_rewrite(&fx.app(), all).unwrap();
        assert_eq!(r.replacements.len(), 4, "{:?}", r.replacements);
        assert!(r.unchanged.is_empty(), "{:?}", r.unchanged);
        // A format without comments has no directives.
        let json = TextRequest {
            format: Some("json".into()),
            ..at("{\"a\": \"utilize <!-- kapi-disable-line -->\"}", None)
        };
        let r = voice_rewrite(&fx.app(), json).unwrap();
        assert_eq!(r.text, "{\"a\": \"use <!-- kapi-disable-line -->\"}");
    }

    #[test]
    fn a_variant_becomes_the_term_as_the_project_writes_it() {
        let fx = Fixture::new();
        std::fs::write(
            fx.root.join(".kapi/terms.yaml"),
            "version: v1\nconcepts:\n  - id: github\n    terms:\n      - {text: GitHub, lang: en, status: preferred, case: sensitive}\n  - id: npm\n    terms:\n      - {text: npm, lang: en, status: admitted, case: sensitive}\n",
        )
        .unwrap();
        let text = "Github hosts it. Push to GITHUB, not github.io. NPM runs it. Npm is fine.\n";
        let r = voice_rewrite(&fx.app(), at(text, Some("docs/a.md"))).unwrap();
        assert_eq!(
            r.text,
            "GitHub hosts it. Push to GitHub, not github.io. npm runs it. Npm is fine.\n"
        );
        let rules: Vec<&str> = r.replacements.iter().map(|x| x.rule.as_str()).collect();
        assert_eq!(rules, ["terms.case"; 3]);
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
