//! The `translation` set: what each target language lacks or has stale.
//!
//! `up_plan` and the review queue walk the catalogs the collections declare: every source file
//! (`Collections::declared_files`) whose collection item has a `target` template and target
//! languages, read with its translation files (`crate::document::load`). Only blocks a
//! translator works on count: translatable and not locked. For each such block and target
//! language the target edition is:
//!
//! - **missing** when the target file does not exist, lacks the block's key, or holds no text
//!   there while the source does (an empty value or `msgstr`), or still holds the copy of its
//!   source that `translate`/`up` put there when it added the key (the store records each such
//!   copy, `copy_source`; a provider that failed or answered the source leaves it, and the key
//!   is retried on the next run);
//! - **stale** when it exists but is not a translation of the current source: its source
//!   changed after it was translated, a bilingual file marks it unfinished (gettext `fuzzy`,
//!   XLIFF `new`, `initial`, `needs-translation`…), or its placeholders differ from the
//!   source's (`kapi_core::check::analyzers::placeholders::compare`: a variable lost or
//!   invented, a tag lost). "Its source changed" is read from the store's record of the
//!   translation: each content write kapi applies (`kapi apply`, `translate`, `up`, MCP
//!   `apply_edits`) records the rev of the source it was written against (`source_rev`), and
//!   when the last write of a target is still the text there and its source's rev has moved
//!   since, the target is stale (a catalog's translation file here, a bilingual file's own
//!   targets in `translate::bilingual` and `stats`; a write of one plural branch alone is not
//!   read). A translation kapi never wrote has no record and is judged by the file alone (git
//!   history is not read: it costs a `git log` per file and says nothing of which source
//!   wording a translation followed);
//! - never stale because it equals its source: `Port`, `URL`, `OPML` and a French
//!   `Attention` are translations. A target equal to its source is listed in `unchanged`
//!   (what `translate --force` may redo, and the opt-in rule `translation.unchanged` reports);
//! - **translated** otherwise.
//!
//! A bilingual file's target in the source's own language (an English PO file of an English
//! project, [`same_tag`]) is no translation of itself: not surveyed, counted or filled.
//!
//! `total` = `translated` + `missing` + `stale`. `up_plan` lists the keys to work on;
//! [`crate::services::stats`] counts them per file and language (with the same
//! [`survey_target`], and [`standing`] for a bilingual file's own targets). A recipe without
//! target languages gets an empty answer with a remark.

use std::collections::BTreeMap;
use std::path::Path;

use kapi_core::check::analyzers::placeholders;
use kapi_core::model::{Block, Edition, Run};
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;
use kapi_core::projection;
use serde::Serialize;

use crate::app::{App, Base};
use crate::document::{self, Editions, Loaded, TargetFile};
use crate::error::HostError;
use crate::services::review::{self, Writes};

/// A declared document that could not be read; the others are still answered.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Unreadable {
    pub doc: String,
    pub error: String,
}

/// The catalogs a call covers, read with their target files.
pub struct Catalogs {
    pub project: Project,
    pub loaded: Vec<Loaded>,
    pub errors: Vec<Unreadable>,
    /// Why the answer is empty, when the recipe or the filters leave nothing to look at.
    pub remark: Option<String>,
    /// The store's recorded writes: what tells a translation whose source changed since.
    pub writes: Writes,
}

/// Whether a translator works on `block`: translatable and not locked.
pub fn translatable(block: &Block) -> bool {
    block.translatable && block.locked.is_none()
}

/// Whether the recipe names a target language anywhere (defaults, a collection, an item).
pub(crate) fn has_target_languages(project: &Project) -> bool {
    let some = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
    let recipe = &project.recipe;
    some(&recipe.defaults.target_languages)
        || recipe.collections.iter().any(|c| {
            some(&c.target_languages) || c.content.iter().any(|i| some(&i.target_languages))
        })
}

/// Reads the catalogs the collections declare (source files whose item has a `target`
/// template and target languages), each with its target files: all of them, or only `doc`
/// (a source document) and only `lang`.
pub fn catalogs(app: &App, doc: Option<&str>, lang: Option<&str>) -> Result<Catalogs, HostError> {
    let project = app.require_project()?;
    let mut out = Catalogs {
        loaded: Vec::new(),
        errors: Vec::new(),
        remark: None,
        writes: Writes::new(Vec::new()),
        project,
    };
    if !has_target_languages(&out.project) {
        out.remark = Some(
            "the recipe names no target languages: set `defaults.target_languages` in kapi.yaml (e.g. `[fr, de]`)"
                .into(),
        );
        return Ok(out);
    }
    out.writes = Writes::new(review::writes(&out.project.root)?);
    let collections = Collections::new(&out.project.recipe)?;
    let wanted = match doc.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => {
            // Resolved once; a document not written yet is named as one no collection holds.
            let path = app.resolve_target(Base::Project, Some(&out.project), Path::new(d))?;
            let rel = path.rel().unwrap_or_default().to_owned();
            if collections.is_target(&rel) {
                return Err(HostError::Usage {
                    message: format!("`{rel}` is a translation a `target` template produces"),
                    hint: Some("name its source document (`locales/en.json`, not `locales/fr.json`); `list_collections` shows the templates".into()),
                });
            }
            Some(rel)
        }
        None => None,
    };
    let files = collections
        .declared_files(&out.project.root)
        .map_err(|e| HostError::io(&out.project.root, e))?;
    let (mut templated, mut in_lang) = (false, false);
    for file in files {
        if wanted.as_ref().is_some_and(|w| *w != file.rel) {
            continue;
        }
        let Some(item) = collections.matches(&file.rel) else {
            continue;
        };
        if item.target.is_none() || item.target_languages.is_empty() {
            continue;
        }
        templated = true;
        let editions = match lang {
            Some(l) if !item.target_languages.iter().any(|t| t == l) => continue,
            Some(l) => Editions::Some(vec![l.to_owned()]),
            None => Editions::All,
        };
        in_lang = true;
        match document::load(app, &file.abs, &editions, None) {
            Ok(loaded) => out.loaded.push(loaded),
            Err(e) => out.errors.push(Unreadable {
                doc: file.rel.clone(),
                error: e.to_string(),
            }),
        }
    }
    if let Some(rel) = &wanted
        && !templated
    {
        return Err(HostError::Usage {
            message: format!(
                "`{rel}` is not a source document the collections declare with a `target` template"
            ),
            hint: Some(
                "`list_collections` shows each item's path and target template; `stats` without `doc` covers them all"
                    .into(),
            ),
        });
    }
    if !templated {
        out.remark = Some(
            "no collection item has a `target` template, so kapi knows no translation files: add one, e.g. `target: \"locales/{lang}.json\"`"
                .into(),
        );
    } else if !in_lang && let Some(l) = lang {
        out.remark = Some(format!(
            "no catalog translates into `{l}`; the recipe's target languages are set per item, collection or `defaults.target_languages`"
        ));
    }
    Ok(out)
}

/// Where one block stands in one target language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// The target file, the key or the target text is absent.
    Missing,
    /// Present but not a translation of the current source; why.
    Stale(String),
    Translated,
}

/// States a bilingual file gives a target that is not (or no longer) a translation of its
/// source: gettext's `fuzzy` (msgmerge marks an entry whose source changed), XLIFF 1.2's
/// `new` and `needs-translation|adaptation|l10n`, XLIFF 2.0's `initial`, Qt's `unfinished`
/// (lupdate marks a new message or one whose source changed), an Apple String Catalog's
/// `new` and `needs_review`.
const UNFINISHED: &[&str] = &[
    "fuzzy",
    "unfinished",
    "needs_review",
    "new",
    "initial",
    "needs-translation",
    "needs-adaptation",
    "needs-l10n",
];

/// Whether two language tags name one language as written (`en_US` is `en-US`, case aside):
/// a bilingual file's target in its source's language (an English PO file of an English
/// project) is not a translation of itself, and is neither counted nor filled.
pub fn same_tag(a: &str, b: &str) -> bool {
    a.replace('_', "-")
        .eq_ignore_ascii_case(&b.replace('_', "-"))
}

/// Whether a bilingual file marks `target` unfinished (`UNFINISHED`: `fuzzy`, XLIFF `new`,
/// `needs-translation`…): a machine's or the file's own word, not a person's translation.
pub fn marked_unfinished(target: &Edition) -> bool {
    target
        .state
        .as_deref()
        .is_some_and(|s| UNFINISHED.contains(&s))
}

/// Whether runs hold any text but whitespace, a switch's branches included (codes alone are
/// no text).
fn has_text(runs: &[Run]) -> bool {
    runs.iter().any(|run| match run {
        Run::Text { text, .. } => !text.trim().is_empty(),
        Run::Code(_) => false,
        Run::Switch(switch) => switch.branches.iter().any(|b| has_text(&b.runs)),
    })
}

/// An edition's text as agents read it, and each plural or select branch's by its path (a
/// switch alone renders as one code): what tells a copy of the source from a translation.
fn every_text(edition: &Edition) -> String {
    let mut text = projection::render(&edition.runs).0;
    for (path, runs) in edition.leaves() {
        text.push('\n');
        text.push_str(&path);
        text.push('\t');
        text.push_str(&projection::render(runs).0);
    }
    text
}

/// Whether `target` holds its source's text (every plural or select branch too): a copy, or
/// a translation that is the same word (`URL`, `Port`). Never stale for that alone.
pub fn same_as_source(source: &Edition, target: &Edition) -> bool {
    has_text(&source.runs) && every_text(source) == every_text(target)
}

/// Why `target` is not a translation of `source`, if it is not: placeholders that differ.
pub fn stale_because(source: &Edition, target: &Edition) -> Option<String> {
    let mismatches = placeholders::compare(source, target);
    if mismatches.is_empty() {
        return None;
    }
    let messages: Vec<String> = mismatches.into_iter().map(|m| m.message).collect();
    Some(format!("placeholders: {}", messages.join("; ")))
}

/// Where a block whose source edition is `source` stands in a language whose edition is
/// `target` (`None`: absent). Missing also when the target holds no text and the source
/// does (an empty `msgstr`, a `""` value); stale when a bilingual file marks it unfinished
/// (`fuzzy`, `needs-translation`…) or [`stale_because`] says so.
pub fn standing(source: &Edition, target: Option<&Edition>) -> Standing {
    let Some(target) = target else {
        return Standing::Missing;
    };
    if !has_text(&target.runs) && has_text(&source.runs) {
        return Standing::Missing;
    }
    if let Some(state) = target.state.as_deref().filter(|s| UNFINISHED.contains(s)) {
        return Standing::Stale(format!("the file marks it `{state}`"));
    }
    match stale_because(source, target) {
        Some(why) => Standing::Stale(why),
        None => Standing::Translated,
    }
}

/// How a `stale_why` starts for a target whose source changed after it was translated: truly
/// stale, what `translate` and `up` refill without `--force`.
pub const SOURCE_CHANGED: &str = "its source changed after it was translated";

/// Why `edition` (`block`'s `lang` edition, held in `target_doc`) is stale by the store's
/// record: its last recorded write is still there and was made against a source rev other
/// than the current one.
pub fn source_changed(
    writes: &Writes,
    doc: &str,
    block: &Block,
    lang: &str,
    target_doc: &str,
    edition: &Edition,
) -> Option<String> {
    let at = edition_ref(doc, block, lang);
    let other = (target_doc != doc).then_some(target_doc);
    review::written_before_source_changed(writes, &at, other, edition, &block.source)
        .map(|w| format!("{SOURCE_CHANGED} (written by {} at {})", w.by, w.at))
}

/// The whole `lang` edition of `block` in the source document `doc`.
fn edition_ref(doc: &str, block: &Block, lang: &str) -> kapi_core::model::Ref {
    kapi_core::model::Ref {
        doc: doc.to_owned(),
        block: block.key.clone(),
        edition: lang.to_owned(),
        branch: None,
    }
}

/// One document in one target language.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LangSurvey {
    pub doc: String,
    pub lang: String,
    pub target_doc: String,
    /// Whether the target file exists.
    pub exists: bool,
    pub total: usize,
    pub translated: usize,
    pub missing: Vec<String>,
    pub stale: Vec<String>,
    /// Why each stale key is stale.
    pub stale_why: BTreeMap<String, String>,
    /// Translated keys whose target is the source's text (`URL`, `Port`): counted
    /// translated, never stale; what `translate --force` may redo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchanged: Vec<String>,
}

/// Every catalog in every target language the call covers.
pub fn survey(catalogs: &Catalogs) -> Vec<LangSurvey> {
    catalogs
        .loaded
        .iter()
        .flat_map(|loaded| {
            loaded.targets.iter().map(|target| {
                survey_target(
                    &loaded.doc,
                    &loaded.parsed.document.blocks,
                    target,
                    Some(&catalogs.writes),
                )
            })
        })
        .collect()
}

/// The source document `doc`'s `blocks` (with `target` joined to them,
/// [`document::join_target`]) in `target`'s language: the blocks a translator works on
/// ([`translatable`]), each translated, missing or stale ([`standing`], then
/// [`source_changed`] with the store's `writes`).
pub fn survey_target(
    doc: &str,
    blocks: &[Block],
    target: &TargetFile,
    writes: Option<&Writes>,
) -> LangSurvey {
    let mut s = LangSurvey {
        doc: doc.to_owned(),
        lang: target.lang.clone(),
        target_doc: target.doc.clone(),
        exists: target.parsed.is_some(),
        total: 0,
        translated: 0,
        missing: Vec::new(),
        stale: Vec::new(),
        stale_why: BTreeMap::new(),
        unchanged: Vec::new(),
    };
    for block in blocks.iter().filter(|b| translatable(b)) {
        s.total += 1;
        let edition = target
            .parsed
            .as_ref()
            .and_then(|_| block.targets.get(&target.lang));
        let mut standing = standing(&block.source, edition);
        if standing == Standing::Translated
            && let (Some(writes), Some(edition)) = (writes, edition)
        {
            let at = edition_ref(doc, block, &target.lang);
            let other = (target.doc != doc).then_some(target.doc.as_str());
            if review::still_a_copy(writes, &at, other, edition) {
                standing = Standing::Missing;
            } else if let Some(why) =
                source_changed(writes, doc, block, &target.lang, &target.doc, edition)
            {
                standing = Standing::Stale(why);
            }
        }
        match standing {
            Standing::Missing => s.missing.push(block.key.clone()),
            Standing::Stale(why) => {
                s.stale.push(block.key.clone());
                s.stale_why.insert(block.key.clone(), why);
            }
            Standing::Translated => {
                s.translated += 1;
                if edition.is_some_and(|e| same_as_source(&block.source, e)) {
                    s.unchanged.push(block.key.clone());
                }
            }
        }
    }
    s
}

/// `kapi.up-plan/v1`: what each target language lacks or has stale.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct UpPlan {
    pub schema: &'static str,
    /// Only the (document, language) pairs with something to do.
    pub plan: Vec<LangSurvey>,
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Unreadable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// The `up_plan` answer.
pub fn up_plan(app: &App, doc: Option<&str>, lang: Option<&str>) -> Result<UpPlan, HostError> {
    let catalogs = catalogs(app, doc, lang)?;
    let surveyed = survey(&catalogs);
    let looked = surveyed.len();
    let plan: Vec<LangSurvey> = surveyed
        .into_iter()
        .filter(|s| !s.missing.is_empty() || !s.stale.is_empty())
        .collect();
    let summary = summary(&plan, looked, catalogs.remark.as_deref());
    Ok(UpPlan {
        schema: "kapi.up-plan/v1",
        plan,
        summary,
        errors: catalogs.errors,
        remark: catalogs.remark,
    })
}

impl UpPlan {
    /// The summary, then one line per (document, language) with its missing and stale keys.
    pub fn text(&self) -> String {
        let mut text = self.summary.clone();
        for s in &self.plan {
            text.push_str(&format!(
                "\n{} → {} ({}): missing [{}], stale [{}]",
                s.doc,
                s.lang,
                s.target_doc,
                s.missing.join(", "),
                s.stale.join(", ")
            ));
        }
        text
    }
}

fn summary(plan: &[LangSurvey], looked: usize, remark: Option<&str>) -> String {
    if let Some(remark) = remark {
        return format!("Nothing to plan: {remark}.");
    }
    if plan.is_empty() {
        return format!("All {looked} target edition set(s) are complete and none is stale.");
    }
    let mut per_lang: Vec<(String, usize, usize, usize)> = Vec::new();
    for s in plan {
        match per_lang.iter_mut().find(|(l, ..)| *l == s.lang) {
            Some((_, m, st, docs)) => {
                *m += s.missing.len();
                *st += s.stale.len();
                *docs += 1;
            }
            None => per_lang.push((s.lang.clone(), s.missing.len(), s.stale.len(), 1)),
        }
    }
    let parts: Vec<String> = per_lang
        .iter()
        .map(|(l, m, st, docs)| format!("{l}: {m} missing, {st} stale in {docs} document(s)"))
        .collect();
    format!("To bring up to date: {}.", parts.join("; "))
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::env::Env;

    pub const RECIPE: &str = "version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - path: \"docs/**/*.md\"
  - name: app
    content:
      - path: \"locales/en.json\"
        target: \"locales/{lang}.json\"
";

    /// A project with a JSON catalog and its French translation: `greeting` translated,
    /// `bye` equal to its source, `thanks` with a lost placeholder, `new` absent.
    pub fn shop() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("kapi.yaml"), RECIPE).unwrap();
        std::fs::create_dir_all(root.join("locales")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/notes.md"), "# Notes\n\nA file.\n").unwrap();
        std::fs::write(
            root.join("locales/en.json"),
            "{\n  \"greeting\": \"Hello {name}\",\n  \"bye\": \"Goodbye\",\n  \"thanks\": \"Thanks {name}\",\n  \"new\": \"New\"\n}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("locales/fr.json"),
            "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Goodbye\",\n  \"thanks\": \"Merci\"\n}\n",
        )
        .unwrap();
        dir
    }

    pub fn app(root: &Path, actor: Option<&str>) -> App {
        let env = Env {
            actor: actor.map(str::to_owned),
            session: Some("s-test".into()),
            ..Env::default()
        };
        App::new(env, root.to_path_buf(), Some(root.to_path_buf()))
    }

    #[test]
    fn the_plan_lists_keys_and_says_why_each_is_stale() {
        let dir = shop();
        let app = app(dir.path(), None);
        let plan = up_plan(&app, Some("locales/en.json"), None).unwrap();
        assert_eq!(plan.plan.len(), 1);
        let fr = &plan.plan[0];
        assert_eq!(fr.missing, ["new"]);
        // `bye` equal to its source is a translation, listed unchanged, never stale.
        assert_eq!(fr.stale, ["thanks"]);
        assert_eq!(fr.unchanged, ["bye"]);
        assert!(
            fr.stale_why["thanks"].starts_with("placeholders:"),
            "{:?}",
            fr.stale_why
        );
        assert!(
            plan.summary.contains("fr: 1 missing, 1 stale"),
            "{}",
            plan.summary
        );
        // A language no catalog has, and a translation named instead of its source.
        let none = up_plan(&app, None, Some("de")).unwrap();
        assert!(none.plan.is_empty() && none.remark.is_some_and(|r| r.contains("`de`")));
        let e = up_plan(&app, Some("locales/fr.json"), None).err().unwrap();
        assert!(e.to_string().contains("translation"), "{e}");
        let e = up_plan(&app, Some("docs/notes.md"), None).err().unwrap();
        assert!(e.to_string().contains("target"), "{e}");
    }

    #[test]
    fn a_missing_target_file_makes_every_key_missing() {
        let dir = shop();
        std::fs::remove_file(dir.path().join("locales/fr.json")).unwrap();
        let plan = up_plan(&app(dir.path(), None), None, None).unwrap();
        assert_eq!(plan.plan[0].missing.len(), 4);
        assert!(!plan.plan[0].exists);
        // Translating everything leaves nothing to plan.
        std::fs::write(
            dir.path().join("locales/fr.json"),
            "{\"greeting\": \"Bonjour {name}\", \"bye\": \"Au revoir\", \"thanks\": \"Merci {name}\", \"new\": \"Nouveau\"}",
        )
        .unwrap();
        let plan = up_plan(&app(dir.path(), None), None, None).unwrap();
        assert!(plan.plan.is_empty(), "{:?}", plan.plan);
        assert!(plan.summary.contains("complete"), "{}", plan.summary);
    }

    #[test]
    fn without_target_languages_the_answer_is_empty_with_a_remark() {
        let dir = shop();
        std::fs::write(
            dir.path().join("kapi.yaml"),
            RECIPE.replace("  target_languages: [fr]\n", ""),
        )
        .unwrap();
        let app = app(dir.path(), None);
        let plan = up_plan(&app, None, None).unwrap();
        assert!(plan.plan.is_empty() && plan.summary.starts_with("Nothing to plan"));
    }
}
