//! `stats`: for each file, whether it reads, its format, and what it holds per edition, the
//! source and each target language: blocks, words, characters, inline codes and plural or
//! select switches, and for a target how many blocks are translated, missing or stale.
//! `kapi stats [PATH…]` and MCP `stats` are this one function (`kapi.stats/v1`).
//!
//! # Which files
//! Named files and folders are read as `kapi check` reads them (the check's walk):
//! a folder is walked honouring `.gitignore`, hidden files and the recipe's `exclude`, and
//! skips JSON, YAML and XML files no collection declares; a translation a `target` template
//! produces (`locales/fr.json`), named or walked, is counted as its source file in that
//! language, so a source and its translations are one entry. With no path, every file the
//! collections declare (a project is required then). Outside a project each file stands
//! alone: its source edition, and a bilingual file's own target editions.
//!
//! # What is counted
//! - `blocks`: every block the format reads; `translatable`: those a translator works on
//!   ([`translatable`]: not a code block, not locked).
//! - `words`, `characters`, `codes`, `switches` count the translatable blocks' prose, every
//!   branch of a plural or select included (what a translator translates). Words are counted
//!   as the checks find them ([`word_count`]: letters and digits with `'` and `-` inside a
//!   word; each Han ideograph and kana is a word). Characters are the text's Unicode scalar
//!   values, inline codes excluded. An inline code is counted once: a pair (`**`…`**`, `<b>`…
//!   `</b>`) is one code, as the projection lists it. Switches are counted at every depth.
//! - A target edition counts the same over the blocks that have one, and adds `total`
//!   (translatable source blocks), `translated`, `missing` and `stale`, by
//!   [`translation::standing`] (the one definition `up_plan` uses): missing when the target
//!   file, the key or its text is absent; stale when it copies the source, its placeholders
//!   differ, or a bilingual file marks it unfinished (`fuzzy`, `needs-translation`…).
//! - A monolingual catalog's targets are the files its collection item's `target` template
//!   names (through the same [`translation::survey_target`] as `up_plan`); a bilingual file's
//!   (XLIFF, PO) are the target languages its blocks carry.
//!
//! # Files that do not read
//! A file (or a target file) a format cannot read is still an entry: `parses: false` and an
//! `error` with its message and, when the reader knows it, its 1-based line and column (a
//! NUL byte's offset is turned into one); every such error is also in `errors`. The CLI then
//! exits 1 after printing the whole report. A path that does not exist, is outside the
//! project, or that no format reads is refused as `kapi check` refuses it.
//!
//! # Sums
//! `formats` sums the files per format (a folder sums per format), `languages` the target
//! editions per language, `totals` everything. The text form prints one line per file, then
//! the sums when there is more than one file.

use std::collections::BTreeMap;
use std::path::Path;

use kapi_core::check::analyzers::hygiene::word_count;
use kapi_core::formats::ReadError;
use kapi_core::model::{Block, CodeKind, Edition, Run};
use kapi_core::project::Project;
use kapi_core::text::Prose;
use serde::Serialize;

use super::review::Writes;
use super::translation::{self, LangSurvey, Standing, translatable};
use crate::app::{App, ResolvedPath};
use crate::check::Covered;
use crate::document;
use crate::error::HostError;

mod render;

/// `kapi.stats/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    pub schema: &'static str,
    /// One entry per source file, in path order.
    pub files: Vec<FileStats>,
    /// Sums per format, in the order the formats first appear.
    pub formats: Vec<FormatSum>,
    /// Sums per target language over the files' target editions.
    pub languages: Vec<Counts>,
    pub totals: Sum,
    /// Every file and target file that did not read, with where.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Failure>,
    /// Translations reached with no source to count them against.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why there are no target editions (or no files), when the recipe says why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// One file.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FileStats {
    /// Project-relative inside a project, else as the path reads from the working folder.
    pub path: String,
    /// The format that read it (`markdown`, `json`, `po`…).
    pub format: &'static str,
    /// Whether the format read it; when not, `error` says where and why.
    pub parses: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    /// The source edition's counts (as `editions[0]`).
    #[serde(flatten)]
    pub counts: TextCounts,
    /// `source` first, then each target language.
    pub editions: Vec<EditionStats>,
}

/// What one edition's text holds.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct TextCounts {
    /// Blocks read (for a target: blocks that have this edition).
    pub blocks: usize,
    /// Of those, the ones a translator works on (not code, not locked).
    pub translatable: usize,
    /// Words of the translatable blocks' prose, every plural or select branch included.
    pub words: usize,
    /// Characters of that prose, inline codes excluded.
    pub characters: usize,
    /// Inline codes (a pair counted once).
    pub codes: usize,
    /// Plural and select switches, nested ones included.
    pub switches: usize,
}

impl TextCounts {
    fn add(&mut self, other: &TextCounts) {
        self.blocks += other.blocks;
        self.translatable += other.translatable;
        self.words += other.words;
        self.characters += other.characters;
        self.codes += other.codes;
        self.switches += other.switches;
    }

    /// Counts one block's `edition` in.
    fn count(&mut self, block: &Block, edition: &Edition) {
        self.blocks += 1;
        if !translatable(block) {
            return;
        }
        self.translatable += 1;
        self.words += word_count(&Prose::from_edition(edition).text);
        tally_runs(&edition.runs, self);
    }
}

/// Characters, codes and switches of `runs`, branches included.
fn tally_runs(runs: &[Run], counts: &mut TextCounts) {
    for run in runs {
        match run {
            Run::Text { text, .. } => counts.characters += text.chars().count(),
            Run::Code(code) => counts.codes += usize::from(code.kind != CodeKind::Close),
            Run::Switch(switch) => {
                counts.switches += 1;
                for branch in &switch.branches {
                    tally_runs(&branch.runs, counts);
                }
            }
        }
    }
}

/// One edition of a file: `source`, or a target language.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct EditionStats {
    /// `source`, or the target's language tag.
    pub edition: String,
    /// The language: the source language the recipe sets for the file (none outside a
    /// project), or the target's.
    pub lang: Option<String>,
    /// A monolingual catalog's translation file (project-relative).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_doc: Option<String>,
    /// Whether that file exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    #[serde(flatten)]
    pub counts: TextCounts,
    /// For a target: the translatable source blocks (`translated` + `missing` + `stale`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translated: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<usize>,
    /// The target file did not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
}

impl EditionStats {
    fn new(edition: &str, lang: Option<String>) -> Self {
        EditionStats {
            edition: edition.to_owned(),
            lang,
            target_doc: None,
            exists: None,
            counts: TextCounts::default(),
            total: None,
            translated: None,
            missing: None,
            stale: None,
            error: None,
        }
    }
}

/// Why a file did not read, and where (1-based), when the reader knows.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Failure {
    /// The file, as `path` or `target_doc` names it.
    pub doc: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// Sums over files: `formats`' rows and `totals`.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Sum {
    pub files: usize,
    /// Of those, the files that did not read (counted as nothing else).
    pub unreadable: usize,
    #[serde(flatten)]
    pub counts: TextCounts,
}

impl Sum {
    fn add(&mut self, file: &FileStats) {
        self.files += 1;
        self.unreadable += usize::from(!file.parses);
        self.counts.add(&file.counts);
    }
}

/// One format's sum.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FormatSum {
    pub format: &'static str,
    #[serde(flatten)]
    pub sum: Sum,
}

/// One target language's progress.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Counts {
    pub lang: String,
    pub total: usize,
    pub translated: usize,
    pub missing: usize,
    pub stale: usize,
}

/// The `stats` answer for `paths` (resolved by the surface: [`App::resolve`] on the command
/// line, [`App::resolve_from`] the project root over MCP); none: every file the collections
/// declare, which needs a project.
pub fn stats(
    app: &App,
    project: Option<&Project>,
    paths: &[ResolvedPath],
) -> Result<Report, HostError> {
    if paths.is_empty() && project.is_none() {
        return Err(HostError::NoProject {
            searched: app.cwd.clone(),
        });
    }
    let (covered, mut notes) = match crate::check::covered(app, project, paths) {
        Err(HostError::NoContent) => (Vec::new(), Vec::new()),
        other => other?,
    };
    // A PO file whose `Language:` is no tag: its translations count as language `target`.
    notes.extend(
        covered
            .iter()
            .filter(|c| c.format.info().id == "po")
            .filter_map(|c| crate::translate::po_language_note(&c.abs, &c.display)),
    );
    let writes = LazyWrites {
        root: project.map(|p| p.root.as_path()),
        writes: std::cell::OnceCell::new(),
    };
    let files: Vec<FileStats> = covered
        .iter()
        .map(|c| file_stats(project, c, &writes))
        .collect();
    let remark = remark(project, &files);
    Ok(summed(files, notes, remark))
}

/// Why the report has no target editions (or no files), when the recipe can say.
fn remark(project: Option<&Project>, files: &[FileStats]) -> Option<String> {
    let project = project?;
    if files.is_empty() {
        return Some(
            "the project declares no content: add a collection to kapi.yaml, e.g. `- path: \"docs/**/*.md\"`, or name files"
                .into(),
        );
    }
    if files.iter().any(|f| f.editions.len() > 1) {
        return None;
    }
    if !translation::has_target_languages(project) {
        return Some(
            "the recipe names no target languages: set `defaults.target_languages` in kapi.yaml (e.g. `[fr, de]`)"
                .into(),
        );
    }
    let templated = project
        .recipe
        .collections
        .iter()
        .any(|c| c.content.iter().any(|i| i.target.is_some()));
    (!templated).then(|| {
        "no collection item has a `target` template, so kapi knows no translation files: add one, e.g. `target: \"locales/{lang}.json\"`"
            .into()
    })
}

/// The report around `files`: the sums, and every error in one list.
fn summed(files: Vec<FileStats>, notes: Vec<String>, remark: Option<String>) -> Report {
    let mut formats: Vec<FormatSum> = Vec::new();
    let mut languages: Vec<Counts> = Vec::new();
    let mut totals = Sum::default();
    let mut errors = Vec::new();
    for file in &files {
        totals.add(file);
        match formats.iter_mut().find(|f| f.format == file.format) {
            Some(row) => row.sum.add(file),
            None => {
                let mut sum = Sum::default();
                sum.add(file);
                formats.push(FormatSum {
                    format: file.format,
                    sum,
                });
            }
        }
        errors.extend(file.error.iter().cloned());
        for edition in file.editions.iter().skip(1) {
            errors.extend(edition.error.iter().cloned());
            let Some(total) = edition.total else { continue };
            let lang = edition.edition.clone();
            let row = match languages.iter().position(|c| c.lang == lang) {
                Some(i) => &mut languages[i],
                None => {
                    languages.push(Counts {
                        lang,
                        ..Counts::default()
                    });
                    languages.last_mut().expect("just pushed")
                }
            };
            row.total += total;
            row.translated += edition.translated.unwrap_or(0);
            row.missing += edition.missing.unwrap_or(0);
            row.stale += edition.stale.unwrap_or(0);
        }
    }
    Report {
        schema: "kapi.stats/v1",
        files,
        formats,
        languages,
        totals,
        errors,
        notes,
        remark,
    }
}

/// One file's entry: read, counted, its targets surveyed; a file that does not read is an
/// entry with its error.
/// The store's recorded writes (a target kapi wrote whose source changed since is stale), read
/// once per report at the first translation that asks; an unreadable store records nothing.
struct LazyWrites<'p> {
    root: Option<&'p Path>,
    writes: std::cell::OnceCell<Writes>,
}

impl LazyWrites<'_> {
    fn get(&self) -> &Writes {
        self.writes.get_or_init(|| {
            Writes::new(
                self.root
                    .and_then(|root| crate::services::review::writes(root).ok())
                    .unwrap_or_default(),
            )
        })
    }
}

fn file_stats(project: Option<&Project>, file: &Covered, writes: &LazyWrites<'_>) -> FileStats {
    let path = file.rel.clone().unwrap_or_else(|| file.display.clone());
    let collections = project.and_then(|p| p.collections().ok());
    let item = collections
        .as_ref()
        .zip(file.rel.as_deref())
        .and_then(|(c, rel)| c.matches(rel));
    let source_lang = match &item {
        Some(item) => Some(item.source_language.clone()),
        None => project.and_then(|p| p.recipe.defaults.source_language.clone()),
    };
    let bilingual = file.format.info().capabilities.bilingual;
    // A bilingual file's target in the source's own language is no translation of it.
    let own = source_lang.clone().unwrap_or_else(|| "en".into());
    let wants = |lang: &str| {
        file.langs.as_ref().is_none_or(|l| l.contains(lang))
            && !(bilingual && translation::same_tag(lang, &own))
    };
    let targets: Vec<(String, String)> = match (&item, &file.rel) {
        (Some(item), Some(rel)) if !bilingual && item.target.is_some() => item
            .target_paths(rel)
            .into_iter()
            .filter(|(lang, _)| wants(lang))
            .collect(),
        _ => Vec::new(),
    };
    let mut entry = FileStats {
        path: path.clone(),
        format: file.format.info().id,
        parses: true,
        error: None,
        counts: TextCounts::default(),
        editions: Vec::new(),
    };
    let read = match (project, targets.is_empty()) {
        (Some(project), false) => with_targets(project, file, &path, targets, writes),
        (_, _) => streamed(file, &path, &wants, writes),
    };
    match read {
        Ok((source, targets)) => {
            entry.counts = source.clone();
            entry.editions.push(EditionStats {
                counts: source,
                ..EditionStats::new(kapi_core::model::SOURCE, source_lang)
            });
            entry.editions.extend(targets);
        }
        Err(e) => {
            entry.parses = false;
            entry.error = Some(failure(&path, &file.abs, &e));
        }
    }
    entry
}

/// A file with no target files, read a block at a time (never held whole): its source
/// counts, and a bilingual file's own target editions that `wants` keeps.
fn streamed(
    file: &Covered,
    path: &str,
    wants: &dyn Fn(&str) -> bool,
    writes: &LazyWrites<'_>,
) -> Result<(TextCounts, Vec<EditionStats>), HostError> {
    let mut source = TextCounts::default();
    let mut langs: BTreeMap<String, (TextCounts, usize, usize)> = BTreeMap::new();
    document::parse_each(&file.abs, path, file.format, &mut |_, block, _| {
        source.count(&block, &block.source);
        for (lang, edition) in block.targets.iter().filter(|(l, _)| wants(l)) {
            let (counts, translated, stale) = langs.entry(lang.clone()).or_default();
            counts.count(&block, edition);
            if translatable(&block) {
                let mut standing = translation::standing(&block.source, Some(edition));
                if standing == Standing::Translated
                    && let Some(why) =
                        translation::source_changed(writes.get(), path, &block, lang, path, edition)
                {
                    standing = Standing::Stale(why);
                }
                match standing {
                    Standing::Translated => *translated += 1,
                    Standing::Stale(_) => *stale += 1,
                    Standing::Missing => {}
                }
            }
        }
    })?;
    let total = source.translatable;
    let targets = langs
        .into_iter()
        .map(|(lang, (counts, translated, stale))| EditionStats {
            counts,
            total: Some(total),
            translated: Some(translated),
            // A block without this language's edition is as missing as an empty one.
            missing: Some(total.saturating_sub(translated + stale)),
            stale: Some(stale),
            ..EditionStats::new(&lang, Some(lang.clone()))
        })
        .collect();
    Ok((source, targets))
}

/// A monolingual catalog with its translation files (`targets`: language, project-relative
/// path), each surveyed as `up_plan` surveys it; a translation file that does not read is its
/// edition's error, and the others are still counted.
fn with_targets(
    project: &Project,
    file: &Covered,
    path: &str,
    targets: Vec<(String, String)>,
    writes: &LazyWrites<'_>,
) -> Result<(TextCounts, Vec<EditionStats>), HostError> {
    let (_, mut parsed) = document::parse(&file.abs, path, file.format)?;
    let mut source = TextCounts::default();
    for block in &parsed.document.blocks {
        source.count(block, &block.source);
    }
    let mut editions = Vec::new();
    for (lang, target_rel) in targets {
        let mut edition = EditionStats::new(&lang, Some(lang.clone()));
        edition.target_doc = Some(target_rel.clone());
        let target = match document::read_target(project, lang.clone(), target_rel, file.format) {
            Ok(target) => target,
            Err(e) => {
                let abs = project
                    .root
                    .join(edition.target_doc.as_deref().unwrap_or_default());
                edition.exists = Some(true);
                edition.error = Some(failure(
                    edition.target_doc.as_deref().unwrap_or_default(),
                    &abs,
                    &e,
                ));
                editions.push(edition);
                continue;
            }
        };
        if let Some(target_parsed) = &target.parsed {
            document::join_target(&mut parsed, &lang, target_parsed);
        }
        let survey: LangSurvey =
            translation::survey_target(path, &parsed.document.blocks, &target, Some(writes.get()));
        for block in &parsed.document.blocks {
            if let Some(e) = block.targets.get(&lang) {
                edition.counts.count(block, e);
            }
        }
        edition.target_doc = Some(survey.target_doc);
        edition.exists = Some(survey.exists);
        edition.total = Some(survey.total);
        edition.translated = Some(survey.translated);
        edition.missing = Some(survey.missing.len());
        edition.stale = Some(survey.stale.len());
        editions.push(edition);
    }
    Ok((source, editions))
}

/// `error` as a [`Failure`] of the file `doc` (at `abs`): a read error's position apart from
/// its message.
fn failure(doc: &str, abs: &Path, error: &HostError) -> Failure {
    let (message, at) = match error {
        HostError::Read { source, .. } => located(source, abs),
        other => (other.to_string(), None),
    };
    Failure {
        doc: doc.to_owned(),
        message,
        line: at.map(|(line, _)| line),
        column: at.map(|(_, column)| column),
    }
}

/// A read error's message without its `line:column: ` prefix, and that position.
fn located(error: &ReadError, abs: &Path) -> (String, Option<(usize, usize)>) {
    let at = match error {
        ReadError::NotUtf8 { line, column, .. }
        | ReadError::Syntax { line, column, .. }
        | ReadError::TooDeep { line, column, .. }
        | ReadError::TooDense { line, column, .. } => Some((*line, *column)),
        ReadError::Binary { offset } => byte_position(abs, *offset),
        ReadError::TooLarge { at, .. } => at
            .split_once(':')
            .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?))),
    };
    let text = error.to_string();
    let message = match (at, error) {
        (Some((line, column)), _) => text
            .strip_prefix(&format!("{line}:{column}: "))
            .map_or_else(|| text.clone(), str::to_owned),
        (None, _) => text,
    };
    (message, at)
}

/// The line and column of byte `offset` of the file at `abs` (a NUL byte's, which the read
/// names by offset alone): lines counted by `\n`, the column in bytes.
fn byte_position(abs: &Path, offset: usize) -> Option<(usize, usize)> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(abs)
        .ok()?
        .take(offset as u64)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.iter().filter(|b| **b == b'\n').count() + 1;
    let start = head.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    Some((line, head.len() - start + 1))
}

#[cfg(test)]
mod tests;
