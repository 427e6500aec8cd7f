//! Compiled collections: which recipe item a project-relative path belongs to, what is
//! excluded, and the walk that lists every declared source file (targets and excludes skipped).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use super::layout::{KAPI_DIR, RECIPE_FILE};
use super::recipe::{Recipe, RecipeError, Site};

/// The item a path matched: the first in recipe order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The named collection's name (`None` for a bare entry).
    pub collection: Option<String>,
    pub collection_index: usize,
    pub item_index: usize,
    /// The item's `format`, when it names one.
    pub format: Option<String>,
    /// The item's `target` template, when it has one.
    pub target: Option<String>,
    /// The collection's `base`, which `path` and `target` are relative to.
    pub base: Option<String>,
    /// The source language in force for the item.
    pub source_language: String,
    /// The target languages in force for the item (item, else collection, else defaults),
    /// the source language left out.
    pub target_languages: Vec<String>,
    /// The item's `generated`: kapi writes its target files.
    pub generated: bool,
    /// The collection's `locales:` (tag, code), in recipe order.
    pub locales: Vec<(String, String)>,
}

impl Match {
    /// Each target language with the project-relative path of its translation of `rel`
    /// (a source file this item matched), from the item's `target` template.
    pub fn target_paths(&self, rel: &str) -> Vec<(String, String)> {
        let Some(template) = &self.target else {
            return Vec::new();
        };
        let base = self
            .base
            .as_deref()
            .map(|b| b.trim_start_matches("./").trim_matches('/'))
            .filter(|b| !b.is_empty() && *b != ".");
        let under = match base {
            Some(b) => rel
                .strip_prefix(b)
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(rel),
            None => rel,
        };
        let template = native(template, self.format.as_deref());
        self.target_languages
            .iter()
            .map(|lang| {
                let path = target_path(&template, under, lang, &self.code(lang));
                (lang.clone(), join(base, &path))
            })
            .collect()
    }

    /// The code this item's files use for the tag `lang` (`{locale}`): its collection's
    /// `locales` entry, else Android's qualifier for an `android` item, else the tag.
    pub fn code(&self, lang: &str) -> String {
        super::locales::locale_code(&self.locales, self.format.as_deref(), lang)
    }
}

/// `template` as an item of `format` reads it: in an `android` item `{lang}` is the resource
/// qualifier (`{locale}`), since Android reads no `values-pt-BR` folder.
fn native(template: &str, format: Option<&str>) -> String {
    if format == Some("android") {
        template.replace("{lang}", "{locale}")
    } else {
        template.to_owned()
    }
}

/// Fills a target template for one source path (relative to the collection's base) and one
/// language. Tokens: `{lang}` (the BCP 47 tag), `{locale}` (`code`, what the files use for
/// it), `{lang_underscore}` (the tag with `_`: `pt_BR`); `{relpath}` and `{path}` (the source path); `{dir}` (its
/// folder, empty at the top); `{filename}` (name with extension); `{basename}` and `{name}`
/// (without); `{ext}` (extension without the dot). A template that names a folder (ends in
/// `/`, or its last segment has no dot and no token) gets the source path appended.
pub fn target_path(template: &str, rel: &str, lang: &str, code: &str) -> String {
    let (dir, filename) = match rel.rsplit_once('/') {
        Some((d, f)) => (d, f),
        None => ("", rel),
    };
    let (basename, ext) = match filename.rsplit_once('.') {
        Some((b, e)) if !b.is_empty() => (b, e),
        _ => (filename, ""),
    };
    let last = template
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .replace("{lang}", "")
        .replace("{locale}", "")
        .replace("{lang_underscore}", "");
    let is_dir = template.is_empty()
        || template.ends_with('/')
        || !(last.contains('.') || last.contains('{'));
    let mut out = fill_lang(template, lang, code)
        .replace("{relpath}", rel)
        .replace("{path}", rel)
        .replace("{filename}", filename)
        .replace("{basename}", basename)
        .replace("{name}", basename)
        .replace("{ext}", ext)
        .replace("{dir}", dir);
    if is_dir {
        out = format!("{}/{rel}", out.trim_end_matches('/'));
    }
    let cleaned: Vec<&str> = out
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    cleaned.join("/")
}

/// `template` with its language tokens filled.
fn fill_lang(template: &str, lang: &str, code: &str) -> String {
    template
        .replace("{lang_underscore}", &super::locales::underscore(lang))
        .replace("{locale}", code)
        .replace("{lang}", lang)
}

/// A source file a collection declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredFile {
    /// Project-relative, `/`-separated.
    pub rel: String,
    pub abs: PathBuf,
    pub format: Option<String>,
}

#[derive(Debug)]
struct Entry {
    at: Match,
    /// The full pattern (base folded in), to check which dot-folders it names.
    pattern: String,
}

/// The recipe's collections compiled into glob sets.
#[derive(Debug)]
pub struct Collections {
    entries: Vec<Entry>,
    items: GlobSet,
    exclude: GlobSet,
    targets: GlobSet,
    /// Dot-folder names some pattern names explicitly (walked despite being hidden).
    dot_names: Arc<Vec<String>>,
}

fn compile(pattern: &str, key: &str) -> Result<Glob, RecipeError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| RecipeError::BadGlob {
            at: Box::new(Site {
                file: PathBuf::from(RECIPE_FILE),
                key: key.to_owned(),
                line: None,
                column: None,
            }),
            glob: pattern.to_owned(),
            message: e.kind().to_string(),
        })
}

/// `base` joined onto `path`, both relative to the root.
pub(crate) fn join(base: Option<&str>, path: &str) -> String {
    let path = path.trim_start_matches("./").trim_start_matches('/');
    match base.map(|b| b.trim_start_matches("./").trim_matches('/')) {
        Some(b) if !b.is_empty() && b != "." => format!("{b}/{path}"),
        _ => path.to_owned(),
    }
}

/// Turns a target template into a glob for one language, by the directory-target rule.
fn target_glob(template: &str, lang: &str, code: &str) -> String {
    let mut g = fill_lang(template, lang, code);
    for token in ["{relpath}", "{path}", "{dir}"] {
        g = g.replace(token, "**");
    }
    for token in ["{filename}", "{basename}", "{name}", "{ext}"] {
        g = g.replace(token, "*");
    }
    let last = g.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let is_dir = g.is_empty()
        || g.ends_with('/')
        || !(last.contains('.') || last.contains('*') || last.contains('?') || last.contains('{'));
    if is_dir {
        g = format!("{}/**", g.trim_end_matches('/'));
        g = g.trim_start_matches('/').to_owned();
    }
    g
}

/// Every dot-prefixed segment a pattern names literally.
fn dot_segments(pattern: &str) -> impl Iterator<Item = String> + '_ {
    pattern
        .split(['/', '{', '}', ','])
        .filter(|s| s.starts_with('.') && s.len() > 1 && !s.contains(['*', '?', '[']))
        .map(str::to_owned)
}

/// A wildcard never enters a dot-folder unless the pattern names it.
fn dot_ok(pattern: &str, rel: &str) -> bool {
    let mut parts = rel.split('/');
    parts.next_back();
    parts
        .filter(|p| p.starts_with('.'))
        .all(|p| dot_segments(pattern).any(|d| d == p))
}

const PRUNE_PROBE: &str = "\u{1}kapi-probe\u{1}";

impl Collections {
    /// Compiles the recipe's collections, excludes and target templates.
    pub fn new(recipe: &Recipe) -> Result<Self, RecipeError> {
        let mut entries = Vec::new();
        let mut items = GlobSetBuilder::new();
        let mut targets = GlobSetBuilder::new();
        let mut dot_names = Vec::new();
        let source_default = recipe.defaults.source_language.as_deref().unwrap_or("en");
        for (ci, c) in recipe.collections.iter().enumerate() {
            for (ii, item) in c.content.iter().enumerate() {
                let key = if c.is_bare() {
                    format!("collections[{ci}].path")
                } else {
                    format!("collections[{ci}].content[{ii}].path")
                };
                let pattern = join(c.base.as_deref(), &item.path);
                items.add(compile(&pattern, &key)?);
                dot_names.extend(dot_segments(&pattern));
                let source = item
                    .source_language
                    .as_deref()
                    .or(c.source_language.as_deref())
                    .unwrap_or(source_default);
                let langs: Vec<String> = item
                    .target_languages
                    .as_ref()
                    .or(c.target_languages.as_ref())
                    .or(recipe.defaults.target_languages.as_ref())
                    .into_iter()
                    .flatten()
                    .filter(|l| l.as_str() != source)
                    .cloned()
                    .collect();
                let format = item.format.as_ref().map(|f| f.name.clone());
                if let Some(template) = &item.target {
                    let template = native(template, format.as_deref());
                    for lang in &langs {
                        let code = super::locales::locale_code(&c.locales, format.as_deref(), lang);
                        let g = join(c.base.as_deref(), &target_glob(&template, lang, &code));
                        let tkey = key.replace(".path", ".target");
                        targets.add(compile(&g, &tkey)?);
                    }
                }
                entries.push(Entry {
                    at: Match {
                        collection: c.name.clone(),
                        collection_index: ci,
                        item_index: ii,
                        format,
                        target: item.target.clone(),
                        base: c.base.clone(),
                        source_language: source.to_owned(),
                        target_languages: langs,
                        generated: item.generated,
                        locales: c.locales.clone(),
                    },
                    pattern,
                });
            }
        }
        let mut exclude = GlobSetBuilder::new();
        for (i, pattern) in recipe.defaults.exclude.iter().enumerate() {
            let p = join(None, pattern);
            exclude.add(compile(&p, &format!("defaults.exclude[{i}]"))?);
        }
        dot_names.sort();
        dot_names.dedup();
        dot_names.retain(|d| d != KAPI_DIR && d != ".git");
        let built = |b: GlobSetBuilder, key: &str| {
            b.build().map_err(|e| RecipeError::BadGlob {
                at: Box::new(Site {
                    file: PathBuf::from(RECIPE_FILE),
                    key: key.to_owned(),
                    line: None,
                    column: None,
                }),
                glob: String::new(),
                message: e.to_string(),
            })
        };
        Ok(Collections {
            entries,
            items: built(items, "collections")?,
            exclude: built(exclude, "defaults.exclude")?,
            targets: built(targets, "collections")?,
            dot_names: Arc::new(dot_names),
        })
    }

    /// The first item (collections in order, items in order) whose glob matches `rel`.
    /// Excludes are not consulted.
    pub fn matches(&self, rel: &str) -> Option<Match> {
        let rel = rel.trim_start_matches("./");
        let hits = self.items.matches(rel);
        let has_dot = rel.split('/').rev().skip(1).any(|p| p.starts_with('.'));
        hits.into_iter()
            .find(|&i| !has_dot || dot_ok(&self.entries[i].pattern, rel))
            .map(|i| self.entries[i].at.clone())
    }

    /// The pattern (the collection's `base` folded in) of the item `m` names.
    pub fn pattern(&self, m: &Match) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| {
                e.at.collection_index == m.collection_index && e.at.item_index == m.item_index
            })
            .map(|e| e.pattern.as_str())
    }

    /// True when `defaults.exclude` matches `rel`.
    pub fn is_excluded(&self, rel: &str) -> bool {
        self.exclude.is_match(rel.trim_start_matches("./"))
    }

    /// True when `rel` is a translation a `target` template produces (not a source file).
    pub fn is_target(&self, rel: &str) -> bool {
        self.targets.is_match(rel.trim_start_matches("./"))
    }

    /// Every source file under `root` that an item declares, sorted by `rel`. Honours
    /// `.gitignore`/`.ignore`/`.kapiignore`, skips `.kapi/`, hidden folders no pattern names,
    /// excluded files, target files and kapi's own rules files (an `AGENTS.md` or `CLAUDE.md`
    /// holding only kapi's section: [`super::own_files`]).
    pub fn declared_files(&self, root: &Path) -> Result<Vec<DeclaredFile>, std::io::Error> {
        std::fs::read_dir(root)?;
        let dot_names = Arc::clone(&self.dot_names);
        let exclude = self.exclude.clone();
        let prune_root = root.to_path_buf();
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .hidden(false)
            .require_git(false)
            .git_global(false)
            .add_custom_ignore_filename(".kapiignore")
            .filter_entry(move |entry| {
                if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
                    return true;
                }
                let name = entry.file_name().to_string_lossy();
                if name.starts_with('.') && !dot_names.iter().any(|d| *d == name) {
                    return false;
                }
                let Some(rel) = rel_path(&prune_root, entry.path()) else {
                    return true;
                };
                !(exclude.is_match(format!("{rel}/{PRUNE_PROBE}"))
                    && exclude.is_match(format!("{rel}/{PRUNE_PROBE}/{PRUNE_PROBE}")))
            });
        // Folders are read and each file matched on every core; the sort makes the order
        // the same as a serial walk's.
        let found: Mutex<Vec<DeclaredFile>> = Mutex::new(Vec::new());
        builder.build_parallel().run(|| {
            let mut batch = Batch {
                found: &found,
                mine: Vec::new(),
            };
            Box::new(move |entry| {
                if let Ok(entry) = entry
                    && entry.file_type().is_some_and(|t| t.is_file())
                    && let Some(file) = self.declared(root, entry)
                {
                    batch.mine.push(file);
                }
                ignore::WalkState::Continue
            })
        });
        let mut out = found.into_inner().unwrap_or_else(PoisonError::into_inner);
        out.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(out)
    }
}

impl Collections {
    /// The walked file `entry` as a declared source, when an item declares it.
    fn declared(&self, root: &Path, entry: ignore::DirEntry) -> Option<DeclaredFile> {
        let rel = rel_path(root, entry.path())?;
        if rel == RECIPE_FILE || self.is_excluded(&rel) || self.is_target(&rel) {
            return None;
        }
        let m = self.matches(&rel)?;
        // kapi's own rules file (only kapi's section in it) is never content.
        if super::own_files::is_kapis_own(entry.path()) {
            return None;
        }
        Some(DeclaredFile {
            abs: entry.into_path(),
            format: m.format,
            rel,
        })
    }
}

/// One walker thread's declared files, handed to the shared list when the thread ends.
struct Batch<'a> {
    found: &'a Mutex<Vec<DeclaredFile>>,
    mine: Vec<DeclaredFile>,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(PoisonError::into_inner);
        found.append(&mut self.mine);
    }
}

/// `path` relative to `root`, `/`-separated; `None` when outside or not UTF-8.
pub fn rel_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for c in rel.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(c.as_os_str().to_str()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {

    #[test]
    fn target_templates_fill_per_language() {
        let cases = [
            ("{lang}.json", "en-US.json", "de", "de.json"),
            (
                "{lang}/{relpath}",
                "guide/intro.md",
                "fr",
                "fr/guide/intro.md",
            ),
            (
                "i18n/{lang}",
                "guide/intro.md",
                "fr",
                "i18n/fr/guide/intro.md",
            ),
            ("{dir}/{basename}.{lang}.{ext}", "a/b.md", "ja", "a/b.ja.md"),
            (
                "{basename}_{lang}.properties",
                "Messages.properties",
                "ko",
                "Messages_ko.properties",
            ),
            (
                "../values-{lang}/strings.xml",
                "values/strings.xml",
                "fr",
                "../values-fr/strings.xml",
            ),
        ];
        for (template, rel, lang, want) in cases {
            assert_eq!(target_path(template, rel, lang, lang), want, "{template}");
        }
        assert_eq!(
            target_path(
                "{locale}/{lang_underscore}/{lang}.json",
                "en.json",
                "pt-BR",
                "pt-rBR"
            ),
            "pt-rBR/pt_BR/pt-BR.json"
        );
    }
    use super::*;

    fn recipe(text: &str) -> Recipe {
        Recipe::parse(text, Path::new("kapi.yaml")).unwrap()
    }

    const RECIPE: &str = "\
version: v1
defaults:
  target_languages: [fr, de]
  exclude: [\"**/drafts/**\"]
profiles:
  hb: {channels: [docs, blog]}
collections:
  - path: README.md
  - name: guides
    base: docs
    channel: hb/docs
    content:
      - path: \"blog/*.md\"
        format: markdown
      - path: \"**/*.{md,mdx}\"
  - name: app
    base: app/i18n
    content:
      - path: en.json
        format: json
        target: \"{lang}.json\"
  - name: gh
    content:
      - path: \".github/*.md\"
";

    #[test]
    fn first_match_in_recipe_order_wins_with_base_folded_in() {
        let c = Collections::new(&recipe(RECIPE)).unwrap();
        let m = c.matches("docs/blog/post.md").unwrap();
        assert_eq!(
            (m.collection.as_deref(), m.item_index, m.format.as_deref()),
            (Some("guides"), 0, Some("markdown"))
        );
        let m = c.matches("docs/a/b/c.mdx").unwrap();
        assert_eq!((m.collection_index, m.item_index, m.format), (1, 1, None));
        assert_eq!(c.matches("README.md").unwrap().collection, None);
        assert_eq!(c.matches("blog/post.md"), None);
    }

    #[test]
    fn star_does_not_cross_folders() {
        let c = Collections::new(&recipe(RECIPE)).unwrap();
        assert_eq!(c.matches("docs/blog/2026/post.md").unwrap().item_index, 1);
        assert!(c.matches("app/i18n/sub/en.json").is_none());
    }

    #[test]
    fn wildcards_do_not_enter_dot_folders_unless_named() {
        let c = Collections::new(&recipe(RECIPE)).unwrap();
        assert_eq!(c.matches("docs/.hidden/x.md"), None);
        assert_eq!(
            c.matches(".github/CONTRIBUTING.md")
                .unwrap()
                .collection
                .as_deref(),
            Some("gh")
        );
    }

    #[test]
    fn excludes_and_targets_are_recognised() {
        let c = Collections::new(&recipe(RECIPE)).unwrap();
        assert!(c.is_excluded("docs/drafts/x.md"));
        assert!(!c.is_excluded("docs/x.md"));
        assert!(c.is_target("app/i18n/fr.json"));
        assert!(!c.is_target("app/i18n/en.json"));
    }

    #[test]
    fn target_templates_follow_the_directory_rule() {
        assert_eq!(target_glob("{lang}/{relpath}", "fr", "fr"), "fr/**");
        assert_eq!(target_glob("output/{lang}", "fr", "fr"), "output/fr/**");
        assert_eq!(target_glob("{lang}.json", "fr", "fr"), "fr.json");
        assert_eq!(
            target_glob("{dir}/{name}.{lang}.{ext}", "de", "de"),
            "**/*.de.*"
        );
        assert_eq!(target_glob("{locale}.json", "de", "de-DE"), "de-DE.json");
    }

    #[test]
    fn declared_files_walks_sorted_and_skips_what_it_should() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "README.md",
            "docs/z.md",
            "docs/a.md",
            "docs/blog/p.md",
            "docs/drafts/wip.md",
            "docs/.hidden/x.md",
            "docs/ignored.md",
            "app/i18n/en.json",
            "app/i18n/fr.json",
            ".github/PR.md",
            ".kapi/voice.yaml",
            "other.txt",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "docs/ignored.md\n").unwrap();
        // kapi's own rules file is not content; a person's is.
        let section = "<!-- kapi:rules -->\n- One.\n<!-- /kapi:rules -->\n";
        std::fs::write(root.join("docs/AGENTS.md"), section).unwrap();
        std::fs::write(root.join("docs/CLAUDE.md"), format!("Ours.\n\n{section}")).unwrap();
        let c = Collections::new(&recipe(RECIPE)).unwrap();
        let files = c.declared_files(root).unwrap();
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                ".github/PR.md",
                "README.md",
                "app/i18n/en.json",
                "docs/CLAUDE.md",
                "docs/a.md",
                "docs/blog/p.md",
                "docs/z.md"
            ]
        );
        assert_eq!(files[2].format.as_deref(), Some("json"));
        assert_eq!(files[4].abs, root.join("docs/a.md"));
    }

    #[test]
    fn locales_and_android_qualifiers_name_the_target_files() {
        let text = "version: v1\ndefaults:\n  target_languages: [de, pt-BR, sr-Latn]\ncollections:\n  - name: web\n    locales: {de: de-DE}\n    content:\n      - path: i18n/en-US.json\n        target: \"i18n/{locale}.json\"\n      - path: po/app.pot\n        target: \"po/{lang_underscore}.po\"\n  - name: android\n    base: res\n    content:\n      - path: values/strings.xml\n        format: android\n        target: \"values-{lang}/strings.xml\"\n";
        let c = Collections::new(&recipe(text)).unwrap();
        let paths = |rel: &str| -> Vec<String> {
            let m = c.matches(rel).unwrap();
            m.target_paths(rel).into_iter().map(|(_, p)| p).collect()
        };
        assert_eq!(
            paths("i18n/en-US.json"),
            ["i18n/de-DE.json", "i18n/pt-BR.json", "i18n/sr-Latn.json"]
        );
        assert_eq!(
            paths("po/app.pot"),
            ["po/de.po", "po/pt_BR.po", "po/sr_Latn.po"]
        );
        assert_eq!(
            paths("res/values/strings.xml"),
            [
                "res/values-de/strings.xml",
                "res/values-pt-rBR/strings.xml",
                "res/values-b+sr+Latn/strings.xml"
            ]
        );
        assert!(c.is_target("i18n/de-DE.json"));
        assert!(!c.is_target("i18n/de.json"));
        assert!(c.is_target("res/values-pt-rBR/strings.xml"));
        assert!(c.is_target("res/values-b+sr+Latn/strings.xml"));
    }

    #[test]
    fn bad_glob_is_refused_at_load_naming_the_key() {
        let text = "version: v1\ncollections:\n  - name: g\n    content:\n      - path: \"a/{b\"\n";
        let e = Recipe::parse(text, Path::new("kapi.yaml")).unwrap_err();
        assert_eq!(e.site().unwrap().key, "collections[0].content[0].path");
        assert_eq!(e.site().unwrap().line, Some(5));
    }
}
