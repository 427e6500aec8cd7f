//! The check of each job on all cores: its source analyzers (when it is checked as written)
//! and its translations against it, a catalog's target files or a bilingual file's editions.
//! A file whose translations, if any, are its own is checked block by block as it is read
//! ([`kapi_core::formats::Format::read_each`]), so its cost is the file's, not its document's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kapi_core::check::{self, DocumentCheck, Finding, Findings, Rule, StaleTranslation};
use kapi_core::formats;
use kapi_core::governance::Governance;

use super::Job;
use super::allowed::{self, Allowed};
use super::cache::{self, Cache, Lookup};
use super::diff::Changed;
use super::feed::Feed;
use crate::error::HostError;

pub(super) struct FileResult {
    pub findings: Findings,
    pub stale: Vec<StaleTranslation>,
    pub blocks: usize,
    /// SHA-256 of the file's bytes as checked (none from the cache).
    pub digest: Option<[u8; 32]>,
    /// What the project allows where it stands, set apart from `findings`.
    pub allowed: Allowed,
    /// Words checked per file the findings name (the source, each translation file).
    pub words: Vec<(String, usize)>,
}

/// What every worker of one check shares besides its jobs.
pub(super) struct Workers<'a> {
    pub changed: Option<&'a HashMap<PathBuf, Changed>>,
    pub cache: Option<&'a Cache>,
    pub progress: &'a dyn super::Progress,
    pub cancel: Option<&'a AtomicBool>,
    /// `--no-suppress`: set nothing apart.
    pub no_suppress: bool,
    /// How many jobs the plan will make at most (the progress bar's length; one: the
    /// per-edit check, run on the calling thread with no thread to start).
    pub expected: usize,
}

/// Checks every job `plan` puts in the feed, on all cores from the first job on: the workers
/// start before the plan, the calling thread plans, then checks with them. The jobs and their
/// results come back in plan order; the first error (in plan order) wins, the plan's before
/// any. A set `cancel` stops the workers before their next file (and each check before its
/// next block).
pub(super) fn run_jobs(
    feed: &Feed,
    workers: &Workers,
    plan: impl FnOnce() -> Result<(), HostError>,
) -> Result<Vec<FileResult>, HostError> {
    let cancelled = || workers.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let done = AtomicUsize::new(0);
    let work = || {
        let mut out = Vec::new();
        while let Some((i, job)) = feed.next() {
            if cancelled() {
                feed.stop();
                break;
            }
            let change = workers.changed.and_then(|c| c.get(&job.abs));
            let result = match workers.cache.filter(|_| cache::cacheable(&job)) {
                Some(cache) => cached(cache, &job, workers.cancel),
                None => check_file(&job, change, workers.cancel, workers.no_suppress),
            };
            // A check of several files reports one it cannot read and goes on (its finding
            // streams with the others); a check of that file alone is refused with its error.
            let result = match result {
                Err(e) if workers.expected > 1 => unreadable(&job.display, e),
                other => other,
            };
            feed.finished(i, result.as_ref().ok().map(|r| &r.findings));
            out.push((i, result));
            let total = workers.expected.max(feed.planned());
            workers
                .progress
                .update(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        }
        out
    };
    // The calling thread plans, then works: one fewer worker to start (none for one file).
    let helpers = if workers.expected <= 1 {
        0
    } else {
        crate::memo::cores()
            .saturating_sub(1)
            .clamp(1, workers.expected - 1)
    };
    let (planned, per_thread) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..helpers).map(|_| scope.spawn(work)).collect();
        // A plan that panicked must still close the feed, or the workers would wait forever.
        let planned =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(plan)).unwrap_or_else(|_| {
                Err(HostError::Internal {
                    message: "planning the check stopped unexpectedly; no result is reported"
                        .into(),
                })
            });
        match &planned {
            Ok(()) => feed.close(),
            Err(_) => feed.stop(),
        }
        let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).ok();
        // A worker that panicked checked nothing: that is an error, never an empty pass.
        let others = handles.into_iter().map(|h| h.join().ok());
        (
            planned,
            std::iter::once(own).chain(others).collect::<Vec<_>>(),
        )
    });
    planned?;
    let Some(per_thread) = per_thread.into_iter().collect::<Option<Vec<_>>>() else {
        return Err(HostError::Internal {
            message: "a check worker stopped unexpectedly; no result is reported".into(),
        });
    };
    if cancelled() {
        return Err(HostError::Internal {
            message: "the check was cancelled; no result is reported".into(),
        });
    }
    let mut slots: Vec<Option<Result<FileResult, HostError>>> = Vec::new();
    slots.resize_with(feed.planned(), || None);
    for (i, result) in per_thread.into_iter().flatten() {
        slots[i] = Some(result);
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.unwrap_or_else(|| {
                Err(HostError::Internal {
                    message: "a file was left unchecked".into(),
                })
            })
        })
        .collect()
}

/// A file a check of several could not read (or one of its translation files): a
/// `read.unreadable` finding in its result, so one broken file never ends the check of the
/// others. Any other error (cancelled, internal) stays one.
fn unreadable(display: &str, error: HostError) -> Result<FileResult, HostError> {
    use kapi_core::error::Hint as _;
    let file_error = matches!(
        error,
        HostError::Read { .. }
            | HostError::Io { .. }
            | HostError::TooLarge { .. }
            | HostError::BadFile { .. }
    );
    if !file_error {
        return Err(error);
    }
    let hints = error.hints();
    let mut findings = Findings::default();
    findings.push(kapi_core::check::unreadable::finding(
        display,
        &error.to_string(),
        hints.first().map(String::as_str),
    ));
    Ok(FileResult {
        findings,
        stale: Vec::new(),
        blocks: 0,
        digest: None,
        allowed: Allowed::default(),
        words: vec![(display.to_owned(), 0)],
    })
}

/// The check of a job's own file: under its governance, with its suppression, and its Vale
/// rules when a Vale configuration governs it.
fn source_check<'j>(
    job: &'j Job,
    only: Option<&'j HashSet<String>>,
    cancel: Option<&'j AtomicBool>,
    keep: &'j dyn Fn(&Rule) -> bool,
    no_suppress: bool,
) -> DocumentCheck<'j> {
    let mut suppression = allowed::for_file(job.format, job.file_rules.clone(), no_suppress);
    if let Some(v) = &job.vale {
        suppression = suppression.with_names(v.set.names.clone());
    }
    let check = DocumentCheck::new(&job.display, &job.governance, only, cancel, keep)
        .with_suppression(suppression);
    match &job.vale {
        Some(v) => check.with_vale(&v.set, &v.format),
        None => check,
    }
}

/// [`check_file`] through the cache: its result when the file is unchanged, else a check
/// that the cache records.
fn cached(cache: &Cache, job: &Job, cancel: Option<&AtomicBool>) -> Result<FileResult, HostError> {
    let mut fingerprints = vec![job.governance.fingerprint.as_str()];
    fingerprints.extend(job.vale.as_ref().map(|v| v.set.fingerprint.as_str()));
    fingerprints.extend(
        job.target_governance
            .iter()
            .map(|(_, g)| g.fingerprint.as_str()),
    );
    let key = cache::key_of(job, &fingerprints);
    match cache.lookup(job, &key) {
        Lookup::Hit(result) => Ok(*result),
        Lookup::Miss(stat) => {
            let result = check_file(job, None, cancel, false)?;
            cache.record(job, &key, stat, &result);
            Ok(result)
        }
    }
}

fn check_file(
    job: &Job,
    change: Option<&Changed>,
    cancel: Option<&AtomicBool>,
    no_suppress: bool,
) -> Result<FileResult, HostError> {
    let bilingual = job.format.info().capabilities.bilingual;
    // Read block by block unless translations are paired across files, or a diff reports
    // a bilingual file's stale translations (for every language any block has).
    if job.targets.is_empty() && (!bilingual || change.is_none()) {
        return check_streamed(job, change, cancel, no_suppress);
    }
    let (read, parsed) = crate::document::parse(&job.abs, &job.display, job.format)?;
    // Offsets index the decoded text the skeleton holds.
    let text = parsed.skeleton.text();
    let only = change.and_then(|c| c.source.as_ref());
    let mut findings = Findings::default();
    let mut blocks = 0;
    let mut words = 0;
    let keep = |_: &Rule| true;
    let suppression = if job.source_checks {
        let mut check = source_check(job, only, cancel, &keep, no_suppress);
        for block in &parsed.document.blocks {
            check.block(text, block);
        }
        let checked = check.finish_checked();
        (findings, words) = (checked.findings, checked.words);
        blocks = match only {
            Some(keys) => keys.len(),
            None => parsed
                .document
                .blocks
                .iter()
                .filter(|b| b.translatable)
                .count(),
        };
        checked.suppression
    } else {
        allowed::scanned(job.format, job.file_rules.clone(), no_suppress, text)
    };
    let mut translations = check_translations(job, &parsed, change, no_suppress)?;
    words += translations.own_words;
    allowed::settle(
        suppression,
        &mut findings,
        std::mem::take(&mut translations.own),
        &job.display,
        // Unused directives are judged only where the file's own analyzers ran on all of it.
        change.is_none() && job.source_checks,
        &mut translations.allowed,
    );
    findings.extend(translations.findings);
    if !job.source_checks {
        blocks = translations.blocks;
    }
    if parsed.container.is_some() {
        unplace(&mut findings);
    }
    let mut per_file = vec![(job.display.clone(), words)];
    per_file.extend(translations.words);
    Ok(FileResult {
        findings,
        stale: translations.stale,
        blocks,
        digest: Some(read.digest),
        allowed: translations.allowed,
        words: per_file,
    })
}

/// [`check_file`] for a file whose translations, if any, are its own (a bilingual file, read
/// with no diff): each block is checked as the format reads it and dropped, so the check
/// holds the file and its findings, never the document.
fn check_streamed(
    job: &Job,
    change: Option<&Changed>,
    cancel: Option<&AtomicBool>,
    no_suppress: bool,
) -> Result<FileResult, HostError> {
    let governance: &Governance = &job.governance;
    let only = change.and_then(|c| c.source.as_ref());
    let keep = |_: &Rule| true;
    let mut source = job
        .source_checks
        .then(|| source_check(job, only, cancel, &keep, no_suppress));
    let bilingual = job.format.info().capabilities.bilingual;
    let empty = Governance::empty();
    let target_gov = |lang: &str| target_governance(job, lang).unwrap_or(&empty);
    // Per language, as the whole read checks them: its pairs' findings and how many.
    let mut languages: BTreeMap<String, (check::TranslationCheck, usize)> = BTreeMap::new();
    let mut translatable = 0;
    let (read, parsed) = crate::document::parse_each(
        &job.abs,
        &job.display,
        job.format,
        &mut |text, block, holes| {
            translatable += usize::from(block.translatable);
            if let Some(check) = source.as_mut() {
                check.block(text, &block);
            }
            if !bilingual || !block.translatable {
                return;
            }
            for (lang, target) in &block.targets {
                // Findings point at the target's own text (its first hole), else the block.
                let at = holes
                    .iter()
                    .filter(|h| h.edition() == Some(lang.as_str()))
                    .map(|h| h.span.start)
                    .min()
                    .unwrap_or(block.span.start);
                let (check, pairs) = languages.entry(lang.clone()).or_insert_with(|| {
                    let mut check = check::TranslationCheck::new(&job.display);
                    check.unchanged = job.unchanged.as_deref().cloned();
                    (check, 0)
                });
                let pair = check::Pair {
                    key: &block.key,
                    source: &block.source,
                    target,
                    at,
                };
                check.pair(text, lang, &pair, governance, target_gov(lang));
                *pairs += 1;
            }
        },
    )?;
    let (mut findings, suppression, mut words) = match source {
        Some(check) => {
            let checked = check.finish_checked();
            (checked.findings, checked.suppression, checked.words)
        }
        None => {
            let rules = job.file_rules.clone();
            let text = parsed.skeleton.text();
            let suppression = allowed::scanned(job.format, rules, no_suppress, text);
            (Findings::default(), suppression, 0)
        }
    };
    let mut paired = 0;
    let mut translated = Vec::new();
    let mut allowed = Allowed::default();
    let header = plural_header(job, parsed.skeleton.text());
    for (lang, (mut check, pairs)) in languages {
        check.plural_header(parsed.skeleton.text(), &lang, header.clone());
        words += check.words();
        let (found, excepted) = check.finish_all();
        translated.extend(found);
        allowed.take(excepted, no_suppress, &mut translated);
        paired += pairs;
    }
    // Unused directives are judged only where the file's own analyzers ran on all of it.
    let whole = change.is_none() && job.source_checks;
    allowed::settle(
        suppression,
        &mut findings,
        translated,
        &job.display,
        whole,
        &mut allowed,
    );
    if parsed.container.is_some() {
        unplace(&mut findings);
    }
    Ok(FileResult {
        findings,
        stale: Vec::new(),
        blocks: match (job.source_checks, only) {
            (true, Some(keys)) => keys.len(),
            (true, None) => translatable,
            (false, _) => paired,
        },
        digest: Some(read.digest),
        allowed,
        words: vec![(job.display.clone(), words)],
    })
}

/// A PO file's `Plural-Forms` fault, read from its text (`None` for any other format).
fn plural_header(job: &Job, text: &str) -> Option<(String, usize)> {
    (job.format.info().id == "po")
        .then(|| kapi_core::formats::po::plural_header_fault(text))
        .flatten()
}

/// The governance a job's translations into `lang` are checked under; `None` for a language
/// the recipe does not list (its translations are checked for placeholders alone).
fn target_governance<'j>(job: &'j Job, lang: &str) -> Option<&'j Governance> {
    job.target_governance
        .iter()
        .find(|(l, _)| l == lang)
        .map(|(_, g)| &**g)
}

/// Drops the lines and columns of a container's findings: a line of a part inside a zip
/// (Word's document.xml) means nothing to a reader of the document; the block key
/// (`body/p#12`) says where.
fn unplace(findings: &mut Findings) {
    for finding in findings {
        finding.line = 0;
        finding.column = 0;
    }
}

/// Which of one language's translations a check covers: every one, or (under
/// `--diff-against`) those whose translation changed, with the changed source blocks whose
/// translation did not, which are reported stale.
struct Selection<'a> {
    check: Option<&'a HashSet<String>>,
    /// Source blocks that changed (`None`: none to report; a new file has nothing stale).
    changed_sources: Option<&'a HashSet<String>>,
}

impl Selection<'_> {
    fn of<'a>(change: Option<&'a Changed>, lang: &str) -> Selection<'a> {
        match change {
            None => Selection {
                check: None,
                changed_sources: None,
            },
            Some(c) => Selection {
                check: Some(c.editions.get(lang).unwrap_or(&NONE)),
                changed_sources: c.source.as_ref(),
            },
        }
    }

    fn checks(&self, key: &str) -> bool {
        self.check.is_none_or(|keys| keys.contains(key))
    }

    /// A source block that changed while its translation did not.
    fn stale(&self, key: &str) -> bool {
        self.changed_sources.is_some_and(|s| s.contains(key)) && !self.checks(key)
    }
}

/// What a language with no changed translation selects.
static NONE: LazyLock<HashSet<String>> = LazyLock::new(HashSet::new);

struct Translations {
    /// Findings of a bilingual file's own editions (settled with the file's suppression).
    own: Vec<Finding>,
    own_words: usize,
    /// Findings of a catalog's translation files, each file's suppression settled.
    findings: Vec<Finding>,
    stale: Vec<StaleTranslation>,
    blocks: usize,
    allowed: Allowed,
    /// Words checked per translation file.
    words: Vec<(String, usize)>,
}

/// The `placeholders` and `translation-terms` findings of a file's translations: a bilingual
/// file's own target editions, or a catalog's translation files (findings name the
/// translation file). A language the recipe does not list is checked for placeholders alone.
fn check_translations(
    job: &Job,
    parsed: &formats::Parsed,
    change: Option<&Changed>,
    no_suppress: bool,
) -> Result<Translations, HostError> {
    let mut out = Translations {
        own: Vec::new(),
        own_words: 0,
        findings: Vec::new(),
        stale: Vec::new(),
        blocks: 0,
        allowed: Allowed::default(),
        words: Vec::new(),
    };
    if job.format.info().capabilities.bilingual {
        let langs: BTreeSet<&String> = parsed
            .document
            .blocks
            .iter()
            .flat_map(|b| b.targets.keys())
            .collect();
        for lang in langs {
            check_own_edition(job, parsed, change, lang, no_suppress, &mut out);
        }
        return Ok(out);
    }
    for target in &job.targets {
        check_target_file(job, parsed, change, target, no_suppress, &mut out)?;
    }
    Ok(out)
}

/// A changed source block's translation reported stale: `target` (the file that holds it)
/// has it but did not update it (`has`), or does not have it yet.
fn stale(path: &str, key: &str, lang: &str, target: &str, has: bool) -> StaleTranslation {
    StaleTranslation {
        path: path.to_owned(),
        block: key.to_owned(),
        lang: lang.to_owned(),
        target: target.to_owned(),
        message: if has {
            format!("its `{lang}` translation in {target} was not updated with it")
        } else {
            format!("{target} has no `{lang}` translation of it yet")
        },
    }
}

/// Checks a bilingual file's own `lang` edition against its source blocks.
fn check_own_edition(
    job: &Job,
    parsed: &formats::Parsed,
    change: Option<&Changed>,
    lang: &str,
    no_suppress: bool,
    out: &mut Translations,
) {
    let empty = Governance::empty();
    let selection = Selection::of(change, lang);
    // Findings point at the target's own text (its first hole), else the block.
    let mut starts: HashMap<usize, usize> = HashMap::new();
    for hole in &parsed.skeleton.holes {
        if hole.edition() == Some(lang) {
            let at = starts.entry(hole.block).or_insert(hole.span.start);
            *at = (*at).min(hole.span.start);
        }
    }
    let mut pairs = Vec::new();
    for (i, b) in parsed.document.blocks.iter().enumerate() {
        if !b.translatable {
            continue;
        }
        if selection.stale(&b.key) {
            out.stale.push(stale(
                &job.display,
                &b.key,
                lang,
                &job.display,
                b.targets.contains_key(lang),
            ));
        }
        let Some(target) = b.targets.get(lang) else {
            continue;
        };
        if selection.checks(&b.key) {
            pairs.push(check::Pair {
                key: &b.key,
                source: &b.source,
                target,
                at: starts.get(&i).copied().unwrap_or(b.span.start),
            });
        }
    }
    out.blocks += pairs.len();
    let (mut found, words, excepted) =
        check::check_translations_counted(&check::TranslationInput {
            path: &job.display,
            text: parsed.skeleton.text(),
            lang,
            pairs,
            source_governance: &job.governance,
            target_governance: target_governance(job, lang).unwrap_or(&empty),
            plural_header: plural_header(job, parsed.skeleton.text()),
            unchanged: job.unchanged.as_deref().map(Vec::as_slice),
        });
    out.allowed.take(excepted, no_suppress, &mut found);
    out.own.extend(found);
    out.own_words += words;
}

/// Checks one of a catalog's translation files against the source blocks it aligns with
/// (findings name the translation file).
fn check_target_file(
    job: &Job,
    parsed: &formats::Parsed,
    change: Option<&Changed>,
    target: &super::TargetJob,
    no_suppress: bool,
    out: &mut Translations,
) -> Result<(), HostError> {
    let empty = Governance::empty();
    let selection = Selection::of(change, &target.lang);
    let (_, translated) = crate::document::parse(&target.abs, &target.display, job.format)?;
    let aligned = kapi_core::model::align(&parsed.document, &translated.document);
    let mut pairs = Vec::new();
    for (source, pair) in parsed.document.blocks.iter().zip(aligned) {
        if !source.translatable {
            continue;
        }
        let translation = pair.and_then(|p| translated.document.blocks.get(p));
        if selection.stale(&source.key) {
            out.stale.push(stale(
                &job.display,
                &source.key,
                &target.lang,
                &target.display,
                translation.is_some(),
            ));
        }
        let Some(t) = translation else { continue };
        if selection.checks(&t.key) {
            pairs.push(check::Pair {
                key: &t.key,
                source: &source.source,
                target: &t.source,
                at: t.span.start,
            });
        }
    }
    out.blocks += pairs.len();
    let text = translated.skeleton.text();
    let (mut found, words, excepted) =
        check::check_translations_counted(&check::TranslationInput {
            path: &target.display,
            text,
            lang: &target.lang,
            pairs,
            source_governance: &job.governance,
            target_governance: target_governance(job, &target.lang).unwrap_or(&empty),
            plural_header: None,
            unchanged: job.unchanged.as_deref().map(Vec::as_slice),
        });
    out.allowed.take(excepted, no_suppress, &mut found);
    let rules = target.file_rules.clone();
    let suppression = allowed::scanned(job.format, rules, no_suppress, text);
    let mut findings = Findings::with_cap(usize::MAX);
    allowed::settle(
        suppression,
        &mut findings,
        found,
        &target.display,
        change.is_none(),
        &mut out.allowed,
    );
    out.findings.extend(findings.into_vec());
    out.words.push((target.display.clone(), words));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_translation_says_whether_the_target_has_one() {
        let updated = stale("en.json", "hello", "fr", "fr.json", true);
        assert_eq!(updated.path, "en.json");
        assert_eq!(updated.target, "fr.json");
        assert_eq!(
            updated.message,
            "its `fr` translation in fr.json was not updated with it"
        );
        let missing = stale("en.json", "hello", "fr", "fr.json", false);
        assert_eq!(missing.message, "fr.json has no `fr` translation of it yet");
    }
}
