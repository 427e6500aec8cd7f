//! The `content` set: checks and rewrites of text an agent holds (no file needed).
//!
//! Every text tool binds the governance a saved file would meet: at `context_path`, the
//! intended project-relative destination (the destination is never read), or under an
//! explicit `profile` for an unscoped snippet (never both), else the project's default
//! point, else, outside a project, hygiene alone. `check_text` gives the `kapi check --json`
//! report; `voice_check` and `term-check` its `voice.*` and `terms.*` findings; `voice_rewrite`
//! swaps discouraged terms for their replacements and never rephrases; `detect_format` names
//! the reader kapi would use; `redact` masks personal data and secrets (the redact service,
//! `crate::services::redact`, which `kapi redact` calls too).

use std::path::{Path, PathBuf};

use kapi_core::check::{
    self, CheckReport, Coverage, DocumentCheck, Finding, Findings, Gate, Rule, Summary, Target,
    terms::rule_for,
};
use kapi_core::formats::{self, Format, Parsed};
use kapi_core::governance::{Governance, TermStatus, Unassessed, load as governance_load};
use kapi_core::project::Project;
use kapi_core::project::resolve::Resolver;
use kapi_core::text::{LineIndex, Prose};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::server::{KapiServer, REPORT_FINDINGS, answer, failure, respond};
use crate::app::{App, normalize, relative_to};
use crate::error::HostError;
use crate::services::detect_format::{DetectRequest, Detected, detect};

/// The seed's words for a `context_path` and a `profile` named together.
const BOTH_SCOPES: &str = "Explicit profile overrides belong to unscoped snippet checks and cannot be combined with context_path";

/// The name findings carry when the text has no destination.
const SNIPPET: &str = "-";

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckTextParams {
    /// The text to check
    pub text: String,
    /// The format id to read it with (`markdown`, `html`, `json`, …); default: the format of `context_path`, else markdown
    pub format: Option<String>,
    /// The intended project-relative destination: binds the voice and terms there without reading the file
    pub context_path: Option<String>,
    /// A profile declared in kapi.yaml, for a snippet with no destination (not with `context_path`)
    pub profile: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

/// `voice_check` and `voice_rewrite` take what `check_text` takes.
pub(crate) type VoiceParams = CheckTextParams;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TermCheckParams {
    /// The text
    pub text: String,
    /// The language whose terms apply (`en`, `en-GB`); default: the source language at the point
    pub lang: Option<String>,
    /// The format id to read it with; default: the format of `context_path`, else markdown
    pub format: Option<String>,
    /// The intended project-relative destination: binds the terms there without reading the file
    pub context_path: Option<String>,
    /// A profile declared in kapi.yaml, for a snippet with no destination (not with `context_path`)
    pub profile: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DetectFormatParams {
    /// A file name or path (it need not exist); its collection's declared format wins
    pub path: Option<String>,
    /// The content, to sniff (alone, or beside `path` when formats share its extension)
    pub content: Option<String>,
    /// A kapi.yaml, a project root, or any path inside a project (default: the server's)
    pub project: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedactParams {
    /// The text to mask
    pub text: String,
}

// ---------------------------------------------------------------------------------------
// Scope: the governance a text is held to.

/// What governs a text: the project, the point's governance and language, the reader, the
/// name findings carry and the gate.
struct Scope {
    governance: Governance,
    lang: String,
    format: &'static dyn Format,
    /// The name findings carry: the destination, project-relative, or `-`.
    display: String,
    /// The destination as given, for the report's target.
    context_path: Option<String>,
    gate: Gate,
    notes: Vec<String>,
}

/// What a caller names to scope a text.
#[derive(Default)]
struct ScopeArgs<'a> {
    format: Option<&'a str>,
    context_path: Option<&'a str>,
    profile: Option<&'a str>,
    lang: Option<&'a str>,
}

fn given(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// Resolves what governs `text`: `context_path` binds the destination's point (never read),
/// `profile` names a profile, neither takes the project's default point; outside a project
/// hygiene alone applies, and naming a destination or a profile there is an error.
fn scope(app: &App, text: &str, args: &ScopeArgs<'_>) -> Result<Scope, HostError> {
    let (context_path, profile) = (given(args.context_path), given(args.profile));
    if context_path.is_some() && profile.is_some() {
        return Err(HostError::Usage {
            message: BOTH_SCOPES.into(),
            hint: Some(
                "name the destination (`context_path`) alone; `profile` is for a snippet with no destination".into(),
            ),
        });
    }
    if text.len() as u64 > crate::document::MAX_FILE_BYTES {
        return Err(HostError::TooLarge {
            path: PathBuf::from(context_path.unwrap_or(SNIPPET)),
            size: text.len() as u64,
        });
    }
    let explicit = match given(args.format) {
        Some(id) => Some(
            formats::by_id(id).ok_or_else(|| HostError::UnknownFormatId {
                format: id.to_owned(),
                field: "format".to_owned(),
            })?,
        ),
        None => None,
    };
    let markdown = || formats::by_id("markdown");
    let project = app.project()?;
    let Some(project) = project else {
        if context_path.is_some() || profile.is_some() {
            // A destination or a profile asks for governance: no project, none to bind.
            return Err(HostError::NoProject {
                searched: app
                    .project_flag
                    .as_ref()
                    .map_or_else(|| app.cwd.clone(), |p| app.absolute(p)),
            });
        }
        let format = explicit.or_else(markdown).ok_or_else(no_markdown)?;
        return Ok(Scope {
            governance: Governance::empty(),
            lang: given(args.lang).unwrap_or("en").to_owned(),
            format,
            display: SNIPPET.into(),
            context_path: None,
            gate: Gate::default(),
            notes: vec![
                "no kapi project here: only the hygiene rules apply; name a `project` or run `kapi init` for a voice and terms".into(),
            ],
        });
    };
    let resolver = Resolver::new(&project, app.now);
    let mut notes = Vec::new();
    let (point, display, format) = match (context_path, profile) {
        (Some(path), _) => {
            let (abs, rel) = destination(&project, path)?;
            let point = resolver.resolve_path(&rel);
            let declared =
                crate::document::declared_format(Some(&project), resolver.collections(), &abs);
            let format = match (explicit, declared) {
                (Some(f), _) => Some(f),
                (None, Some(id)) => {
                    Some(
                        formats::by_id(&id).ok_or_else(|| HostError::UnknownFormatId {
                            format: id.clone(),
                            field: "collections".to_owned(),
                        })?,
                    )
                }
                (None, None) => formats::for_file(&abs, text.as_bytes()),
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
    let lang = given(args.lang).map_or_else(|| point.source_language.clone(), str::to_owned);
    let governance = governance_load::load(&project.root, &point, &lang)?;
    notes.extend(governance.notes.iter().cloned());
    Ok(Scope {
        governance,
        lang,
        format,
        display,
        context_path: context_path.map(str::to_owned),
        gate: gate_of(&project),
        notes,
    })
}

fn no_markdown() -> HostError {
    HostError::Internal {
        message: "this build has no markdown reader".into(),
    }
}

/// The destination made absolute and project-relative: relative paths are read against the
/// project root; a path outside the project (or led out by a symlink) is an error naming it.
fn destination(project: &Project, path: &str) -> Result<(PathBuf, String), HostError> {
    let named = Path::new(path);
    let abs = normalize(&if named.is_absolute() {
        named.to_path_buf()
    } else {
        project.root.join(named)
    });
    let Some(rel) = relative_to(&abs, &project.root) else {
        return Err(HostError::OutsideProject {
            path: named.to_path_buf(),
            root: project.root.clone(),
        });
    };
    crate::document::stay_inside(named, &abs, &project.root)?;
    Ok((abs, rel))
}

/// The project's default gate (`gates`), as `kapi check` applies it without flags.
fn gate_of(project: &Project) -> Gate {
    let spec = project.recipe.gates().default;
    let mut gate = Gate::default();
    if let Some(fail_on) = spec.fail_on {
        gate.fail_on = fail_on;
    }
    gate.min_score = spec.min_score;
    gate
}

/// Reads the text and runs the analyzers over it a block at a time, as `kapi check` reads a
/// file, keeping the findings of the rules `keep` accepts; with how many blocks are prose.
/// The text is taken, and the document is never held: 8 MB of HTML dense with markup (the
/// Python docs' highlighted listings) held 154 MB whole. The call's cancel flag stops the
/// analyzers between blocks.
fn check_read(
    text: &mut String,
    scope: &Scope,
    keep: &dyn Fn(&Rule) -> bool,
) -> Result<(Findings, usize), HostError> {
    let cancel = super::calls::cancel_flag();
    let mut check = DocumentCheck::new(
        &scope.display,
        &scope.governance,
        None,
        cancel.as_deref(),
        keep,
    );
    let mut prose = 0;
    read_blocks(text, scope, &mut |text, block| {
        prose += usize::from(block.translatable);
        check.block(text, &block);
    })?;
    not_cancelled()?;
    Ok((check.finish(), prose))
}

/// Reads the text with the scope's format a block at a time ([`Format::read_each`]),
/// handing `each` every block with the text its offsets index: the text is taken, and the
/// document never held (the returned read keeps the text, no blocks).
fn read_blocks(
    text: &mut String,
    scope: &Scope,
    each: &mut dyn FnMut(&str, kapi_core::model::Block),
) -> Result<Parsed, HostError> {
    scope
        .format
        .read_each(std::mem::take(text).into_bytes(), &mut |text, block, _| {
            each(text, block)
        })
        .map_err(|source| HostError::Read {
            path: PathBuf::from(&scope.display),
            source,
        })
}

/// The error a cancelled call answers (no client reads it: the server drops it).
fn not_cancelled() -> Result<(), HostError> {
    if super::calls::cancelled() {
        return Err(HostError::Internal {
            message: "the call was cancelled".into(),
        });
    }
    Ok(())
}

/// The summary of every finding, whether the gate passes them, and those held (most severe
/// first past [`REPORT_FINDINGS`]) with how many were let go.
fn settle(mut found: Findings, gate: &Gate) -> (Summary, bool, Vec<Finding>, usize) {
    found.hold_at_most(REPORT_FINDINGS);
    let summary = Summary::of_counts(found.counts());
    let pass = ![
        (summary.critical, kapi_core::governance::Severity::Critical),
        (summary.major, kapi_core::governance::Severity::Major),
        (summary.minor, kapi_core::governance::Severity::Minor),
        (summary.info, kapi_core::governance::Severity::Info),
    ]
    .iter()
    .any(|&(n, severity)| n > 0 && gate.fail_on.fails(severity));
    let (held, truncated) = found.into_sorted();
    (summary, pass, held, truncated)
}

// ---------------------------------------------------------------------------------------
// check_text

/// The `kapi.check/v1` report over a text, and notes for the reader.
fn run_check_text(
    app: &App,
    p: &mut CheckTextParams,
) -> Result<(CheckReport, Vec<String>), HostError> {
    let scope = scope(
        app,
        &p.text,
        &ScopeArgs {
            format: p.format.as_deref(),
            context_path: p.context_path.as_deref(),
            profile: p.profile.as_deref(),
            lang: None,
        },
    )?;
    let (found, prose) = check_read(&mut p.text, &scope, &|_| true)?;
    let gov = &scope.governance;
    let mut coverage = Coverage::default();
    coverage.add(&scope.display, &gov.unassessed);
    let mut ran = vec!["hygiene"];
    if !gov.terms.is_empty() {
        ran.push("terms");
    }
    if gov.voice.is_some() {
        ran.push("voice");
    }
    coverage.ran = check::ANALYZERS
        .iter()
        .filter(|a| ran.contains(a))
        .map(|a| (*a).to_owned())
        .collect();
    let target = Target {
        kind: "text".into(),
        paths: scope.context_path.iter().cloned().collect(),
        files: 1,
        blocks: prose,
        diff_against: None,
    };
    let mut notes = scope.notes.clone();
    if scope.format.info().capabilities.bilingual {
        notes.push(format!(
            "a {} text is checked on its source editions; save it and run `check_file` to check its translations too",
            scope.format.info().name
        ));
    }
    let mut report = CheckReport::build(
        target,
        found,
        scope.gate,
        coverage,
        vec![gov.fingerprint.clone()],
    );
    report.hold_at_most(REPORT_FINDINGS);
    Ok((report, notes))
}

fn render_findings(out: &mut String, findings: &[Finding]) {
    for f in findings {
        let at = if f.line == 0 {
            String::new()
        } else {
            format!("{}:{} ", f.line, f.column)
        };
        out.push_str(&format!(
            "- {at}{} ({}): {}",
            f.rule,
            f.severity.as_str(),
            f.message
        ));
        if let Some(s) = &f.suggestion {
            out.push_str(&format!(" → use `{s}`"));
        }
        out.push('\n');
    }
}

/// The line that says a report holds fewer findings than it counts.
fn render_truncated(out: &mut String, truncated: usize, held: usize) {
    if truncated > 0 {
        out.push_str(&format!(
            "… and {truncated} more finding(s), counted above but not listed: a report holds {held} (the most severe first)\n"
        ));
    }
}

fn render_notes(out: &mut String, notes: &[String]) {
    for n in notes {
        out.push_str(&format!("Note: {n}\n"));
    }
}

fn render_check(report: &CheckReport, notes: &[String]) -> String {
    let s = &report.summary;
    let mut out = format!(
        "{} · score {} · {} finding(s): {} critical, {} major, {} minor, {} info\n",
        if report.pass { "PASS" } else { "FAIL" },
        s.score,
        s.findings,
        s.critical,
        s.major,
        s.minor,
        s.info
    );
    for reason in &report.gate.failed {
        out.push_str(&format!("Gate: {reason}\n"));
    }
    render_findings(&mut out, &report.findings);
    render_truncated(&mut out, report.truncated, report.findings.len());
    out.push_str(&format!("Ran: {}\n", report.coverage.ran.join(", ")));
    if !report.coverage.unassessed.is_empty() {
        let items: Vec<String> = report
            .coverage
            .unassessed
            .iter()
            .map(|u| format!("{} = {}", u.guidance, u.value))
            .collect();
        out.push_str(&format!(
            "Not assessed (follow it yourself): {}\n",
            items.join("; ")
        ));
    }
    render_notes(&mut out, notes);
    out
}

// ---------------------------------------------------------------------------------------
// voice_check

/// The voice in force, as a report names it.
#[derive(Debug, Serialize)]
struct VoiceRef {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

/// `kapi.voice-check/v1`: the voice analyzer's findings alone.
#[derive(Debug, Serialize)]
struct VoiceCheck {
    schema: &'static str,
    /// The voice in force; `null` when none is bound (nothing to check against).
    voice: Option<VoiceRef>,
    /// No `voice.*` finding fails the project's gate.
    pass: bool,
    summary: Summary,
    findings: Vec<Finding>,
    /// Findings the summary counts that `findings` does not hold (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    truncated: usize,
    /// Guidance in force that no analyzer checks: follow it yourself.
    unassessed: Vec<Unassessed>,
    notes: Vec<String>,
}

fn run_voice_check(app: &App, p: &mut VoiceParams) -> Result<VoiceCheck, HostError> {
    let scope = scope(
        app,
        &p.text,
        &ScopeArgs {
            format: p.format.as_deref(),
            context_path: p.context_path.as_deref(),
            profile: p.profile.as_deref(),
            lang: None,
        },
    )?;
    let (found, _) = check_read(&mut p.text, &scope, &|rule| rule.analyzer() == "voice")?;
    let (summary, pass, found, truncated) = settle(found, &scope.gate);
    let gov = &scope.governance;
    let mut notes = scope.notes.clone();
    if gov.voice.is_none() {
        notes.push("no voice profile is bound here: nothing to check the text against; add `defaults.voice` to `kapi.yaml` or create `.kapi/voice.yaml`".into());
    }
    Ok(VoiceCheck {
        schema: "kapi.voice-check/v1",
        voice: gov.voice.as_ref().map(|v| VoiceRef {
            name: v.name.clone(),
            source: gov.voice_source.clone(),
        }),
        pass,
        summary,
        findings: found,
        truncated,
        unassessed: gov.unassessed.clone(),
        notes,
    })
}

fn render_voice(v: &VoiceCheck) -> String {
    let mut out = match &v.voice {
        Some(voice) => format!(
            "{} · voice {} · {} finding(s)\n",
            if v.pass { "PASS" } else { "FAIL" },
            voice.name,
            v.summary.findings
        ),
        None => "No voice is bound: nothing was checked.\n".to_owned(),
    };
    render_findings(&mut out, &v.findings);
    render_truncated(&mut out, v.truncated, v.findings.len());
    if !v.unassessed.is_empty() {
        let items: Vec<String> = v
            .unassessed
            .iter()
            .map(|u| format!("{} = {}", u.guidance, u.value))
            .collect();
        out.push_str(&format!(
            "Not assessed (follow it yourself): {}\n",
            items.join("; ")
        ));
    }
    render_notes(&mut out, &v.notes);
    out
}

// ---------------------------------------------------------------------------------------
// voice_rewrite

/// One swap `voice_rewrite` made, in offsets of the text it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Replacement {
    from: String,
    to: String,
    start: usize,
    end: usize,
    rule: String,
}

/// A discouraged term left as it was, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Unchanged {
    /// As written in the text.
    text: String,
    /// The term as the project declares it.
    term: String,
    status: TermStatus,
    rule: String,
    start: usize,
    end: usize,
    why: String,
}

/// `kapi.voice-rewrite/v1`.
#[derive(Debug, Serialize)]
struct Rewrite {
    schema: &'static str,
    text: String,
    replacements: Vec<Replacement>,
    unchanged: Vec<Unchanged>,
    notes: Vec<String>,
}

/// A match in a block's prose located in the text, when its words are there verbatim.
fn locate(prose: &Prose, range: &std::ops::Range<usize>, text: &str) -> Option<(usize, usize)> {
    let written = prose.text.get(range.clone())?;
    let last = written.chars().next_back()?;
    let start = prose.file_offset(range.start)?;
    let end = prose.file_offset(range.end - last.len_utf8())? + last.len_utf8();
    (text.get(start..end)? == written).then_some((start, end))
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

fn run_voice_rewrite(app: &App, p: &mut VoiceParams) -> Result<Rewrite, HostError> {
    let scope = scope(
        app,
        &p.text,
        &ScopeArgs {
            format: p.format.as_deref(),
            context_path: p.context_path.as_deref(),
            profile: p.profile.as_deref(),
            lang: None,
        },
    )?;
    let gov = &scope.governance;
    let mut replacements: Vec<Replacement> = Vec::new();
    let mut unchanged = Vec::new();
    // A block at a time as the text is read: the document is never held.
    let parsed = read_blocks(&mut p.text, &scope, &mut |source, block| {
        if !block.translatable || super::calls::cancelled() {
            return;
        }
        let prose = Prose::from_edition(&block.source);
        for m in gov.matcher.find(&prose.text) {
            let Some(entry) = gov.terms.get(m.entry) else {
                continue;
            };
            let Some(rule) = rule_for(entry.status) else {
                continue;
            };
            let written_prose = prose.text.get(m.range.clone()).unwrap_or("").to_owned();
            let located = locate(&prose, &m.range, source);
            let (start, end) = located.unwrap_or_else(|| {
                let at = prose.file_offset(m.range.start).unwrap_or(block.span.start);
                (at, at)
            });
            let keep = |why: &str| Unchanged {
                text: written_prose.clone(),
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
                    from: written_prose.clone(),
                    to: cased(
                        &written_prose,
                        &entry.text,
                        r,
                        sentence_start(&prose.text, m.range.start),
                    ),
                    start,
                    end,
                    rule: rule.id.to_owned(),
                }),
            }
        }
    })?;
    not_cancelled()?;
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

fn render_rewrite(r: &Rewrite) -> String {
    let mut out = r.text.clone();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("\n{} replacement(s)", r.replacements.len()));
    if !r.replacements.is_empty() {
        let list: Vec<String> = r
            .replacements
            .iter()
            .map(|x| format!("`{}` → `{}`", x.from, x.to))
            .collect();
        out.push_str(&format!(": {}", list.join(", ")));
    }
    out.push('\n');
    for u in &r.unchanged {
        out.push_str(&format!(
            "Left as written: `{}` ({}, {}): {}\n",
            u.text,
            u.status.as_str(),
            u.rule,
            u.why
        ));
    }
    render_notes(&mut out, &r.notes);
    out
}

// ---------------------------------------------------------------------------------------
// term-check

/// One term of the project found in the text, whatever its status.
#[derive(Debug, Clone, Serialize)]
struct FoundTerm {
    /// As written in the text.
    text: String,
    /// The term as the project declares it.
    term: String,
    status: TermStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    concept: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    line: usize,
    column: usize,
    start: usize,
    end: usize,
    block: String,
}

/// `kapi.term-check/v1`: the terms analyzer's findings and every term found.
#[derive(Debug, Serialize)]
struct TermCheck {
    schema: &'static str,
    lang: String,
    /// No `terms.*` finding fails the project's gate.
    pass: bool,
    summary: Summary,
    findings: Vec<Finding>,
    /// Findings the summary counts that `findings` does not hold (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    truncated: usize,
    /// The terms found, the first [`REPORT_FINDINGS`] in the text.
    terms: Vec<FoundTerm>,
    /// Terms found past the first [`REPORT_FINDINGS`], counted and not listed (absent when
    /// none).
    #[serde(skip_serializing_if = "is_zero")]
    terms_truncated: usize,
    notes: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn run_term_check(app: &App, p: &mut TermCheckParams) -> Result<TermCheck, HostError> {
    let scope = scope(
        app,
        &p.text,
        &ScopeArgs {
            format: p.format.as_deref(),
            context_path: p.context_path.as_deref(),
            profile: p.profile.as_deref(),
            lang: p.lang.as_deref(),
        },
    )?;
    let gov = &scope.governance;
    let cancel = super::calls::cancel_flag();
    let keep = |rule: &Rule| rule.analyzer() == "terms";
    let mut check = DocumentCheck::new(&scope.display, gov, None, cancel.as_deref(), &keep);
    let mut lines = None;
    let mut terms = Vec::new();
    let mut terms_truncated = 0;
    // A block at a time as the text is read: the document is never held.
    read_blocks(&mut p.text, &scope, &mut |source, block| {
        check.block(source, &block);
        if !block.translatable || super::calls::cancelled() {
            return;
        }
        let lines = lines.get_or_insert_with(|| LineIndex::new(source));
        let prose = Prose::from_edition(&block.source);
        gov.matcher.find_each(&prose.text, |m| {
            if terms.len() >= REPORT_FINDINGS {
                terms_truncated += 1;
                return;
            }
            let Some(entry) = gov.terms.get(m.entry) else {
                return;
            };
            let (start, end) = locate(&prose, &m.range, source).unwrap_or_else(|| {
                let at = prose.file_offset(m.range.start).unwrap_or(block.span.start);
                (at, at)
            });
            let (line, column) = lines.position(source, start);
            terms.push(FoundTerm {
                text: prose.text.get(m.range.clone()).unwrap_or("").to_owned(),
                term: entry.text.clone(),
                status: entry.status,
                concept: entry.concept.clone(),
                replacement: entry.replacement.clone(),
                note: entry.note.clone(),
                line,
                column,
                start,
                end,
                block: block.key.clone(),
            });
        });
    })?;
    not_cancelled()?;
    let (summary, pass, found, truncated) = settle(check.finish(), &scope.gate);
    terms.sort_by_key(|t| t.start);
    let mut notes = scope.notes.clone();
    if gov.terms.is_empty() {
        notes.push(format!(
            "no terms are in force here for `{}`: nothing to check against",
            scope.lang
        ));
    }
    Ok(TermCheck {
        schema: "kapi.term-check/v1",
        lang: scope.lang,
        pass,
        summary,
        findings: found,
        truncated,
        terms,
        terms_truncated,
        notes,
    })
}

fn render_terms(t: &TermCheck) -> String {
    let mut out = format!(
        "{} · {} · {} finding(s), {} term(s) found\n",
        if t.pass { "PASS" } else { "FAIL" },
        t.lang,
        t.summary.findings,
        t.terms.len() + t.terms_truncated
    );
    render_findings(&mut out, &t.findings);
    render_truncated(&mut out, t.truncated, t.findings.len());
    for term in &t.terms {
        out.push_str(&format!(
            "- `{}` {}:{} is {}",
            term.text,
            term.line,
            term.column,
            term.status.as_str()
        ));
        if let Some(r) = &term.replacement {
            out.push_str(&format!(" (use `{r}`)"));
        }
        out.push('\n');
    }
    if t.terms_truncated > 0 {
        out.push_str(&format!(
            "… and {} more term(s) found, not listed\n",
            t.terms_truncated
        ));
    }
    render_notes(&mut out, &t.notes);
    out
}

// ---------------------------------------------------------------------------------------
// The tools.

#[tool_router(router = content_tools, vis = "pub(crate)")]
impl KapiServer {
    /// Check a draft before it is saved: the `kapi check` report (terms, voice, hygiene) over the text. Pass `context_path`, the intended destination, to hold it to the voice and terms there; or `profile` for a snippet with no destination (not both).
    #[tool(annotations(read_only_hint = true))]
    async fn check_text(
        &self,
        peer: Peer<RoleServer>,
        Parameters(mut p): Parameters<CheckTextParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        match run_check_text(&app, &mut p) {
            Ok((report, notes)) => {
                let text = render_check(&report, &notes);
                answer(&report, Some(text))
            }
            Err(e) => failure(e),
        }
    }

    /// The voice's findings alone on a text (rules `voice.*`: prohibited and required patterns, sentence and paragraph length), with the guidance no analyzer checks.
    #[tool(annotations(read_only_hint = true))]
    async fn voice_check(
        &self,
        peer: Peer<RoleServer>,
        Parameters(mut p): Parameters<VoiceParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(run_voice_check(&app, &mut p), render_voice)
    }

    /// Swap each forbidden, competitor or deprecated term in a text for the project's replacement, keeping a leading capital. Deterministic: never rephrases; terms with no replacement are listed as unchanged. Code is left alone.
    #[tool(annotations(read_only_hint = true))]
    async fn voice_rewrite(
        &self,
        peer: Peer<RoleServer>,
        Parameters(mut p): Parameters<VoiceParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(run_voice_rewrite(&app, &mut p), render_rewrite)
    }

    /// The terms' findings alone on a text (rules `terms.*`), and every project term found in it with its status (preferred, admitted, deprecated, forbidden, competitor).
    #[tool(name = "term-check", annotations(read_only_hint = true))]
    async fn term_check(
        &self,
        peer: Peer<RoleServer>,
        Parameters(mut p): Parameters<TermCheckParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        respond(run_term_check(&app, &mut p), render_terms)
    }

    /// The format kapi would read a file or content with (a collection's declared format, else the extension, else sniffing), and what that format can do.
    #[tool(annotations(read_only_hint = true))]
    async fn detect_format(
        &self,
        peer: Peer<RoleServer>,
        Parameters(p): Parameters<DetectFormatParams>,
    ) -> CallToolResult {
        let app = self.app(&peer, p.project.as_deref());
        let request = DetectRequest {
            path: p.path,
            content: p.content,
        };
        respond(detect(&app, &request), Detected::render)
    }

    /// Mask emails, phone numbers, API keys and tokens (AWS, GitHub, sk- keys, JWTs, bearer tokens, secrets after key=/token=/secret=) as `[redacted:KIND]`; lists every detector.
    #[tool(annotations(read_only_hint = true))]
    async fn redact(&self, Parameters(p): Parameters<RedactParams>) -> CallToolResult {
        let r = crate::services::redact::redact(&p.text);
        let text = r.render();
        answer(&r, Some(text))
    }
}

/// Sets what the macros cannot: every content tool declares an output schema. server.rs
/// calls it beside `writing::adjust`.
pub(crate) fn adjust(router: &mut ToolRouter<KapiServer>) {
    let outputs = [
        ("check_text", "kapi.check/v1"),
        ("voice_check", "kapi.voice-check/v1"),
        ("voice_rewrite", "kapi.voice-rewrite/v1"),
        ("term-check", "kapi.term-check/v1"),
        ("detect_format", "kapi.detect-format/v1"),
        ("redact", "kapi.redact/v1"),
    ];
    super::server::set_outputs(router, &outputs);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project with a voice (one prohibited pattern, a forbidden and a competitor word) and
    /// terms (`login` deprecated for `sign in`), its docs under `web/docs`.
    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
    }

    impl Fixture {
        fn new() -> Self {
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

        fn app(&self) -> App {
            App::new(
                crate::env::Env::default(),
                self.root.clone(),
                Some(self.root.clone()),
            )
        }
    }

    fn rules(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    fn text_params(text: &str, context_path: Option<&str>) -> CheckTextParams {
        CheckTextParams {
            text: text.into(),
            context_path: context_path.map(str::to_owned),
            ..Default::default()
        }
    }

    #[test]
    fn check_text_binds_the_destination_and_reports_like_kapi_check() {
        let fx = Fixture::new();
        let app = fx.app();
        let (good, _) = run_check_text(
            &app,
            &mut text_params("Select **Save** to sign in.\n", Some("docs/guide.md")),
        )
        .unwrap();
        assert!(good.pass, "{good:?}");
        assert!(good.findings.is_empty());
        assert_eq!(good.schema, "kapi.check/v1");
        assert_eq!(good.target.paths, ["docs/guide.md"]);
        assert_eq!(good.coverage.ran, ["hygiene", "terms", "voice"]);

        let (bad, _) = run_check_text(
            &app,
            &mut text_params(
                "# Guide\n\nSimply utilize Confluence to login.\n",
                Some("docs/guide.md"),
            ),
        )
        .unwrap();
        assert!(!bad.pass);
        assert_eq!(
            rules(&bad.findings),
            [
                "voice.prohibited-pattern",
                "terms.forbidden",
                "terms.competitor",
                "terms.deprecated"
            ]
        );
        let forbidden = &bad.findings[1];
        assert_eq!(forbidden.path, "docs/guide.md");
        assert_eq!((forbidden.line, forbidden.column), (3, 8));
        assert_eq!(forbidden.suggestion.as_deref(), Some("use"));
    }

    #[test]
    fn check_text_refuses_a_profile_with_a_context_path_and_a_path_outside() {
        let fx = Fixture::new();
        let app = fx.app();
        let mut both = CheckTextParams {
            profile: Some("web".into()),
            ..text_params("Hello.", Some("docs/a.md"))
        };
        let e = run_check_text(&app, &mut both).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Usage);
        assert!(e.to_string().contains(BOTH_SCOPES), "{e}");

        let e = run_check_text(&app, &mut text_params("Hello.", Some("../elsewhere/a.md")))
            .unwrap_err();
        assert!(matches!(e, HostError::OutsideProject { .. }), "{e}");
        assert!(e.to_string().contains("../elsewhere/a.md"), "{e}");

        let mut unknown = CheckTextParams {
            profile: Some("nope".into()),
            ..text_params("Hello.", None)
        };
        let e = run_check_text(&app, &mut unknown).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn check_text_with_a_profile_or_no_project() {
        let fx = Fixture::new();
        let mut by_profile = CheckTextParams {
            profile: Some("web".into()),
            ..text_params("Please login.\n", None)
        };
        let (report, _) = run_check_text(&fx.app(), &mut by_profile).unwrap();
        assert_eq!(rules(&report.findings), ["terms.deprecated"]);
        assert_eq!(report.findings[0].path, SNIPPET);

        // Outside a project: hygiene alone, and a destination is refused.
        let empty = tempfile::tempdir().unwrap();
        let env = crate::env::Env {
            no_project: true,
            ..Default::default()
        };
        let app = App::new(env, empty.path().to_path_buf(), None);
        let (report, notes) =
            run_check_text(&app, &mut text_params("Please login.\n", None)).unwrap();
        assert!(report.pass && report.findings.is_empty());
        assert_eq!(report.coverage.ran, ["hygiene"]);
        assert!(notes[0].contains("no kapi project"), "{notes:?}");
        let e = run_check_text(&app, &mut text_params("x", Some("docs/a.md"))).unwrap_err();
        assert!(matches!(e, HostError::NoProject { .. }), "{e}");
    }

    #[test]
    fn check_text_reads_with_the_format_named() {
        let fx = Fixture::new();
        let mut json = CheckTextParams {
            format: Some("json".into()),
            ..text_params("{\"title\": \"Please login\"}", None)
        };
        let (report, _) = run_check_text(&fx.app(), &mut json).unwrap();
        assert_eq!(rules(&report.findings), ["terms.deprecated"]);
        assert_eq!(report.findings[0].block.as_deref(), Some("title"));
        let mut bad = CheckTextParams {
            format: Some("nope".into()),
            ..text_params("x", None)
        };
        let e = run_check_text(&fx.app(), &mut bad).unwrap_err();
        assert!(matches!(e, HostError::UnknownFormatId { .. }), "{e}");
        let mut broken = CheckTextParams {
            format: Some("json".into()),
            ..text_params("{\"a\": ", None)
        };
        assert!(matches!(
            run_check_text(&fx.app(), &mut broken),
            Err(HostError::Read { .. })
        ));
    }

    fn voice(text: &str) -> VoiceParams {
        VoiceParams {
            text: text.into(),
            context_path: Some("docs/a.md".into()),
            ..Default::default()
        }
    }

    #[test]
    fn voice_check_gives_the_voice_findings_alone() {
        let fx = Fixture::new();
        let good = run_voice_check(&fx.app(), &mut voice("Utilize it to login.\n")).unwrap();
        assert!(good.pass && good.findings.is_empty(), "{good:?}");
        assert_eq!(good.voice.as_ref().map(|v| v.name.as_str()), Some("Test"));
        let bad = run_voice_check(&fx.app(), &mut voice("Simply utilize it.\n")).unwrap();
        assert!(!bad.pass);
        assert_eq!(rules(&bad.findings), ["voice.prohibited-pattern"]);
        assert_eq!(bad.summary.major, 1);
    }

    #[test]
    fn voice_rewrite_swaps_terms_keeping_the_capital_and_leaves_code_alone() {
        let fx = Fixture::new();
        let text = "Utilize the CLI, then utilize it to login. Run `utilize()` in Confluence.\n";
        let r = run_voice_rewrite(&fx.app(), &mut voice(text)).unwrap();
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

        let same = run_voice_rewrite(&fx.app(), &mut voice("Select **Save**.\n")).unwrap();
        assert_eq!(same.text, "Select **Save**.\n");
        assert!(same.replacements.is_empty() && same.unchanged.is_empty());
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

    fn terms(text: &str) -> TermCheckParams {
        TermCheckParams {
            text: text.into(),
            context_path: Some("docs/a.md".into()),
            ..Default::default()
        }
    }

    #[test]
    fn term_check_gives_the_terms_findings_and_every_term_found() {
        let fx = Fixture::new();
        let good = run_term_check(&fx.app(), &mut terms("Simply sign in.\n")).unwrap();
        assert!(good.pass && good.findings.is_empty(), "{good:?}");
        assert_eq!(good.lang, "en");
        assert_eq!(good.terms.len(), 1);
        assert_eq!(good.terms[0].status, TermStatus::Preferred);
        assert_eq!((good.terms[0].start, good.terms[0].end), (7, 14));

        let bad = run_term_check(&fx.app(), &mut terms("Please login, then sign in.\n")).unwrap();
        // A deprecated term is minor: the default gate (major) still passes.
        assert!(bad.pass && bad.summary.minor == 1);
        assert_eq!(rules(&bad.findings), ["terms.deprecated"]);
        let found: Vec<(&str, TermStatus)> = bad
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.status))
            .collect();
        assert_eq!(
            found,
            [
                ("login", TermStatus::Deprecated),
                ("sign in", TermStatus::Preferred)
            ]
        );
        assert_eq!(bad.terms[0].replacement.as_deref(), Some("sign in"));

        // A language with no terms of its own: nothing found, and the note says so.
        let mut fr = TermCheckParams {
            lang: Some("fr".into()),
            context_path: None,
            ..terms("Please login.\n")
        };
        let none = run_term_check(&fx.app(), &mut fr).unwrap();
        assert_eq!(none.lang, "fr");
        assert!(none.findings.iter().all(|f| f.rule != "terms.deprecated"));
        assert!(none.terms.iter().all(|t| t.text != "login"));
    }

    #[test]
    fn the_router_serves_the_content_set_with_output_schemas() {
        let mut router = KapiServer::content_tools();
        adjust(&mut router);
        let mut names: Vec<String> = router
            .list_all()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        let mut set: Vec<String> = super::super::sets::SETS
            .iter()
            .find(|(n, _)| *n == "content")
            .map(|(_, tools)| tools.iter().map(|t| (*t).to_owned()).collect())
            .unwrap_or_default();
        set.sort();
        assert_eq!(names, set);
        for tool in router.list_all() {
            assert!(tool.output_schema.is_some(), "{}", tool.name);
            let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
            assert_eq!(read_only, Some(true), "{}", tool.name);
        }
    }
}
