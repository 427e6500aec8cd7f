//! What governs a text no file holds yet, and how it is read: the request every text service
//! takes (`check_text`, `voice_check`, `voice_rewrite`, `term_check`), its `Scope`, and the
//! block-at-a-time read and check they share.
//!
//! A text is bound at `context_path`, the intended project-relative destination (never read;
//! resolved once, [`crate::App::resolve_target`]: it need not exist, and one outside the
//! project is refused), or under an explicit `profile` for an unscoped snippet (never both), else at the project's
//! default point, else, outside a project, to hygiene alone.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kapi_core::check::suppress::{self, FileRule};
use kapi_core::check::{
    DocumentCheck, FailOn, Finding, Findings, Gate, Rule, Summary, Suppressed, Suppression,
};
use kapi_core::formats::{self, Format, Parsed};
use kapi_core::governance::{Governance, Severity, load as governance_load};
use kapi_core::model::Block;
use kapi_core::project::Project;
use kapi_core::project::resolve::Resolver;
use kapi_core::text::Prose;

use crate::app::{App, Base};
use crate::error::HostError;

/// The seed's words for a `context_path` and a `profile` named together.
pub const BOTH_SCOPES: &str = "Explicit profile overrides belong to unscoped snippet checks and cannot be combined with context_path";

/// The name findings carry when the text has no destination.
pub const SNIPPET: &str = "-";

/// A text and what to hold it to. Every field but `text` is optional.
#[derive(Debug, Default)]
pub struct TextRequest {
    pub text: String,
    /// The format id to read it with; default: the format of `context_path`, else markdown.
    pub format: Option<String>,
    /// The intended project-relative destination: binds the voice and terms there.
    pub context_path: Option<String>,
    /// A profile declared in `kapi.yaml`, for a snippet with no destination.
    pub profile: Option<String>,
    /// The language whose terms apply (`term_check`); default: the point's source language.
    pub lang: Option<String>,
    /// Overrides the gate's lowest failing severity (else the recipe's `gates`).
    pub fail_on: Option<FailOn>,
    /// Overrides the gate's lowest passing score.
    pub min_score: Option<u32>,
    /// The recipe's ship gate (`gates.ship`) instead of its default.
    pub ship: bool,
    /// The most findings (and terms) a report lists, the most severe first; `None`: as many
    /// as a check holds ([`kapi_core::check::MAX_FINDINGS`]).
    pub hold: Option<usize>,
    /// Set from another thread to stop the read between blocks.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Report what `kapi-disable` comments, term exceptions and the recipe's `rules:` allow
    /// as findings (`--no-suppress`).
    pub no_suppress: bool,
}

impl TextRequest {
    /// The most a report lists.
    pub(crate) fn held(&self) -> usize {
        self.hold.unwrap_or(usize::MAX)
    }

    /// Whether the caller asked to stop.
    pub(crate) fn cancelled(&self) -> bool {
        is_set(self.cancel.as_deref())
    }

    /// The error a cancelled request ends with (no client reads it).
    pub(crate) fn not_cancelled(&self) -> Result<(), HostError> {
        if self.cancelled() {
            return Err(HostError::Internal {
                message: "the call was cancelled".into(),
            });
        }
        Ok(())
    }
}

/// What governs a text: the point's governance and language, the reader, the name findings
/// carry and the gate.
pub(crate) struct Scope {
    pub governance: Governance,
    pub lang: String,
    pub format: &'static dyn Format,
    /// The name findings carry: the destination, project-relative, or `-`.
    pub display: String,
    /// The destination as given, for the report's target.
    pub context_path: Option<String>,
    pub gate: Gate,
    pub notes: Vec<String>,
    /// The recipe's `rules:` exclusions that cover the destination.
    pub file_rules: Vec<FileRule>,
}

/// Whether a cancel flag is set (read inside a block callback, where the request is lent).
pub(crate) fn is_set(flag: Option<&AtomicBool>) -> bool {
    flag.is_some_and(|c| c.load(Ordering::Relaxed))
}

fn given(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// Resolves what governs the request's text: `context_path` binds the destination's point
/// (never read), `profile` names a profile, neither takes the project's default point;
/// outside a project hygiene alone applies, and naming a destination or a profile there is
/// an error.
pub(crate) fn scope(app: &App, request: &TextRequest) -> Result<Scope, HostError> {
    let context_path = given(request.context_path.as_deref());
    let profile = given(request.profile.as_deref());
    if context_path.is_some() && profile.is_some() {
        return Err(HostError::Usage {
            message: BOTH_SCOPES.into(),
            hint: Some(
                "name the destination (`context_path`) alone; `profile` is for a snippet with no destination".into(),
            ),
        });
    }
    if request.text.len() as u64 > crate::document::MAX_FILE_BYTES {
        return Err(HostError::TooLarge {
            path: PathBuf::from(context_path.unwrap_or(SNIPPET)),
            size: request.text.len() as u64,
        });
    }
    let by_id = |id: &str, field: &str| {
        formats::by_id(id).ok_or_else(|| HostError::UnknownFormatId {
            format: id.to_owned(),
            field: field.to_owned(),
        })
    };
    let explicit = given(request.format.as_deref())
        .map(|id| by_id(id, "format"))
        .transpose()?;
    let markdown = || formats::by_id("markdown");
    let lang = given(request.lang.as_deref());
    let Some(project) = app.project()? else {
        if context_path.is_some() || profile.is_some() {
            // A destination or a profile asks for governance: no project, none to bind.
            return Err(HostError::NoProject {
                searched: app
                    .project_flag
                    .as_ref()
                    .map_or_else(|| app.cwd.clone(), |p| app.absolute(p)),
            });
        }
        return Ok(Scope {
            governance: Governance::empty(),
            lang: lang.unwrap_or("en").to_owned(),
            format: explicit.or_else(markdown).ok_or_else(no_markdown)?,
            display: SNIPPET.into(),
            context_path: None,
            gate: crate::check::gate_for(None, request.fail_on, request.min_score, request.ship),
            notes: vec![
                "no kapi project here: only the hygiene rules apply; name a `project` or run `kapi init` for a voice and terms".into(),
            ],
            file_rules: Vec::new(),
        });
    };
    let resolver = Resolver::new(&project, app.now);
    let mut notes = Vec::new();
    let (point, display, format) = match (context_path, profile) {
        (Some(path), _) => {
            let (abs, rel) = destination(app, &project, path)?;
            let point = resolver.resolve_path(&rel);
            let declared = resolver
                .collections()
                .and_then(|c| crate::document::declared_at(c, &rel));
            let format = match (explicit, declared) {
                (Some(f), _) => Some(f),
                (None, Some(id)) => Some(by_id(&id, "collections")?),
                (None, None) => formats::for_file(&abs, request.text.as_bytes()),
            };
            (point, rel, format)
        }
        (None, Some(name)) => (resolver.resolve_profile(name)?, SNIPPET.into(), explicit),
        (None, None) => {
            notes.push("no `context_path` or `profile`: the project's default voice and terms apply; name the destination to bind its own".into());
            (resolver.resolve_path(""), SNIPPET.into(), explicit)
        }
    };
    let format = format.or_else(markdown).ok_or_else(no_markdown)?;
    if let Some(fallback) = &point.fallback {
        notes.push(fallback.note());
    }
    let lang = lang.map_or_else(|| point.source_language.clone(), str::to_owned);
    let governance = governance_load::load(&project.root, &point, &lang)?;
    notes.extend(governance.notes.iter().cloned());
    let gate = crate::check::gate_for(
        Some(&project),
        request.fail_on,
        request.min_score,
        request.ship,
    );
    let file_rules = match context_path {
        Some(_) => crate::check::recipe_rules(Some(&project), Some(&display)),
        None => Vec::new(),
    };
    Ok(Scope {
        governance,
        lang,
        format,
        display,
        context_path: context_path.map(str::to_owned),
        gate,
        notes,
        file_rules,
    })
}

fn no_markdown() -> HostError {
    HostError::Internal {
        message: "this build has no markdown reader".into(),
    }
}

/// The destination, resolved once ([`App::resolve_target`]: the text is not written yet):
/// a relative path is read against the project root; a path outside the project (or led out
/// by a symlink) is an error naming it as given. Absolute and project-relative.
fn destination(app: &App, project: &Project, path: &str) -> Result<(PathBuf, String), HostError> {
    let resolved = app.resolve_target(Base::Root, Some(project), Path::new(path))?;
    let rel = resolved.rel().unwrap_or_default().to_owned();
    Ok((resolved.abs().to_path_buf(), rel))
}

/// Reads the text and runs the analyzers over it a block at a time, as `kapi check` reads a
/// file, keeping the findings of the rules `keep` accepts; with how many blocks are prose.
/// The text is taken, and the document is never held: 8 MB of HTML dense with markup (the
/// Python docs' highlighted listings) held 154 MB whole. The cancel flag stops the analyzers
/// between blocks.
pub(crate) fn check_read(
    request: &mut TextRequest,
    scope: &Scope,
    keep: &dyn Fn(&Rule) -> bool,
) -> Result<Read, HostError> {
    let cancel = request.cancel.clone();
    let mut check = scope.document_check(request, cancel.as_deref(), keep);
    let mut prose = 0;
    read_blocks(request, scope, &mut |text, block| {
        prose += usize::from(block.translatable);
        check.block(text, &block);
    })?;
    request.not_cancelled()?;
    let checked = check.finish_checked();
    Ok(Read {
        findings: checked.findings,
        prose,
        words: checked.words,
        suppression: checked.suppression,
    })
}

/// A text's check, read: its findings, how many blocks are prose, the words checked, and its
/// suppression (to [`Read::settle`]).
pub(crate) struct Read {
    pub findings: Findings,
    pub prose: usize,
    pub words: usize,
    pub suppression: Suppression,
}

impl Read {
    /// The findings with the unused directives added when `every_rule` ran, and what was set
    /// apart (listed, and counted).
    pub(crate) fn settle(
        self,
        display: &str,
        every_rule: bool,
    ) -> (Findings, Vec<Suppressed>, usize) {
        let mut findings = self.findings;
        let held_all = findings.parts().1 == [0; 4];
        let outcome = self.suppression.finish(display, every_rule && held_all);
        findings.extend(outcome.unused);
        (findings, outcome.held, outcome.count)
    }
}

impl Scope {
    /// The check of the text: its analyzers (those `keep` accepts), what the project allows
    /// where it goes (the format's comments, the recipe's `rules:` for the destination).
    pub(crate) fn document_check<'a>(
        &'a self,
        request: &TextRequest,
        cancel: Option<&'a AtomicBool>,
        keep: &'a dyn Fn(&Rule) -> bool,
    ) -> DocumentCheck<'a> {
        let syntax = suppress::syntax_for(self.format.info().id);
        let suppression = Suppression::new(syntax, self.file_rules.clone(), request.no_suppress);
        DocumentCheck::new(&self.display, &self.governance, None, cancel, keep)
            .with_suppression(suppression)
    }
}

/// Reads the request's text with the scope's format a block at a time
/// ([`Format::read_each`]), handing `each` every block with the text its offsets index: the
/// text is taken, and the document never held (the returned read keeps the text, no blocks).
pub(crate) fn read_blocks(
    request: &mut TextRequest,
    scope: &Scope,
    each: &mut dyn FnMut(&str, Block),
) -> Result<Parsed, HostError> {
    scope
        .format
        .read_each(
            std::mem::take(&mut request.text).into_bytes(),
            &mut |text, block, _| each(text, block),
        )
        .map_err(|source| HostError::Read {
            path: PathBuf::from(&scope.display),
            source,
        })
}

/// The summary of every finding, whether the gate passes them (no finding at `fail_on` or
/// worse, and the score at least `min_score` when one is set), and those held (most severe
/// first past `hold`) with how many were let go.
pub(crate) fn settle(
    mut found: Findings,
    gate: &Gate,
    hold: usize,
) -> (Summary, bool, Vec<Finding>, usize) {
    found.hold_at_most(hold);
    let summary = Summary::of_counts(found.counts());
    let pass = ![
        (summary.critical, Severity::Critical),
        (summary.major, Severity::Major),
        (summary.minor, Severity::Minor),
        (summary.info, Severity::Info),
    ]
    .iter()
    .any(|&(n, severity)| n > 0 && gate.fail_on.fails(severity))
        && gate.min_score.is_none_or(|min| summary.score >= min);
    let (held, truncated) = found.into_sorted();
    (summary, pass, held, truncated)
}

/// A match in a block's prose located in the text, when its words are there verbatim.
pub(crate) fn locate(prose: &Prose, range: &Range<usize>, text: &str) -> Option<(usize, usize)> {
    let written = prose.text.get(range.clone())?;
    let last = written.chars().next_back()?;
    let start = prose.file_offset(range.start)?;
    let end = prose.file_offset(range.end - last.len_utf8())? + last.len_utf8();
    (text.get(start..end)? == written).then_some((start, end))
}

/// The text renderings the text services share: findings, the count past those listed,
/// the guidance no analyzer checks, notes.
pub(crate) mod render {
    use kapi_core::check::Finding;

    /// One `- ` item per finding, [`Finding::line`] after it.
    pub fn findings(out: &mut String, findings: &[Finding]) {
        for f in findings {
            out.push_str(&format!("- {}\n", f.line()));
        }
    }

    /// The line that says a report holds fewer findings than it counts.
    pub fn truncated(out: &mut String, truncated: usize, held: usize) {
        if truncated > 0 {
            out.push_str(&format!(
                "… and {truncated} more finding(s), counted above but not listed: a report holds {held} (the most severe first)\n"
            ));
        }
    }

    /// The line that says how many findings the project allows where they stand.
    pub fn suppressed(out: &mut String, suppressed: usize) {
        if suppressed > 0 {
            out.push_str(&format!(
                "{suppressed} finding(s) suppressed where the project allows them (kapi-disable comments, term exceptions, the recipe's `rules:`): not counted above\n"
            ));
        }
    }

    /// The guidance no analyzer checks, as `(guidance, value)` pairs.
    pub fn unassessed<'a>(out: &mut String, unassessed: impl Iterator<Item = (&'a str, &'a str)>) {
        let items: Vec<String> = unassessed.map(|(g, v)| format!("{g} = {v}")).collect();
        if !items.is_empty() {
            out.push_str(&format!(
                "Not assessed (follow it yourself): {}\n",
                items.join("; ")
            ));
        }
    }

    pub fn notes(out: &mut String, notes: &[String]) {
        for n in notes {
            out.push_str(&format!("Note: {n}\n"));
        }
    }
}

pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A project with a voice (one prohibited pattern, a forbidden and a competitor word) and
    /// terms (`login` deprecated for `sign in`), its docs under `web/docs`.
    pub struct Fixture {
        _dir: tempfile::TempDir,
        pub root: PathBuf,
    }

    impl Fixture {
        pub fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            let write = |rel: &str, text: &str| {
                let path = root.join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            };
            write(
                "kapi.yaml",
                "version: v1\nname: t\ndefaults:\n  source_language: en\n  voice: .kapi/voice.yaml\n  terms_source: .kapi/terms.yaml\ncollections:\n  - name: docs\n    base: docs\n    channel: web/docs\n    content:\n      - path: \"**/*.md\"\nprofiles:\n  web:\n    channels: [docs]\n",
            );
            write(
                ".kapi/voice.yaml",
                "name: Test\nstyle:\n  prohibited_patterns:\n    - regex: '(?i)\\bsimply\\b'\n      description: No minimisers\n      severity: major\nvocabulary:\n  forbidden:\n    - term: utilize\n      replacement: use\n  competitor:\n    - term: Confluence\n",
            );
            write(
                ".kapi/terms.yaml",
                "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: deprecated, replacement: sign in}\n",
            );
            Fixture { _dir: dir, root }
        }

        pub fn app(&self) -> App {
            App::new(
                crate::env::Env::default(),
                self.root.clone(),
                Some(self.root.clone()),
            )
        }
    }

    pub fn rules(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    /// A text bound at `context_path`.
    pub fn at(text: &str, context_path: Option<&str>) -> TextRequest {
        TextRequest {
            text: text.into(),
            context_path: context_path.map(str::to_owned),
            ..Default::default()
        }
    }

    #[test]
    fn a_cancelled_request_reads_no_further() {
        let fx = Fixture::new();
        let flag = Arc::new(AtomicBool::new(true));
        let mut request = TextRequest {
            cancel: Some(flag),
            ..at("Simply.\n", None)
        };
        let scope = scope(&fx.app(), &request).unwrap();
        let e = check_read(&mut request, &scope, &|_| true).err();
        assert!(matches!(e, Some(HostError::Internal { .. })), "{e:?}");
    }

    #[test]
    fn the_gate_flags_override_the_recipe() {
        let fx = Fixture::new();
        let request = TextRequest {
            fail_on: Some(FailOn::Minor),
            min_score: Some(90),
            ..at("x", None)
        };
        let scope = scope(&fx.app(), &request).unwrap();
        assert_eq!(scope.gate.fail_on, FailOn::Minor);
        assert_eq!(scope.gate.min_score, Some(90));
    }
}
