//! `init`: makes a folder a kapi project — a recipe that declares the Markdown trees it finds
//! and the source language it detects, a starter voice, empty terms, the `.kapi/` layout and
//! the store. On an existing project it writes only what kapi owns and is missing, and says
//! what it kept.

use std::collections::BTreeSet;
use std::path::Path;

use kapi_core::project::layout;
use kapi_core::store::{NewOp, SessionRow};
use serde::Serialize;

use crate::agents::{Agents, WiringInput};
use crate::app::{App, relative_to};
use crate::error::HostError;

/// What `kapi init` did, file by file.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    pub schema: &'static str,
    pub root: String,
    /// True when a `kapi.yaml` was already there.
    pub existing: bool,
    /// Files and folders created, relative to the root.
    pub created: Vec<String>,
    /// Files left as they were, relative to the root.
    pub kept: Vec<String>,
    /// The globs the new recipe declares (empty for an existing project).
    pub collections: Vec<String>,
    /// Source code found whose comments kapi reads: a glob per top folder and language, in
    /// the new recipe as commented-out collections to turn on (`src/**/*.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub offered: Vec<String>,
    /// Translation catalogs found (Android, JSON/YAML locale files and folders, properties
    /// bundles, PO/POT, XLIFF): each in the new recipe as a commented-out collection with its
    /// target template, languages and `locales` (`locales/en.json (2 translations)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub catalogs: Vec<String>,
    pub source_language: Option<String>,
    /// Rules files (AGENTS.md, CLAUDE.md) written or removed, relative to the root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules_files: Vec<String>,
    /// Folders with rules of their own inside a content collection, which get no rules file
    /// (it would be published): where their rules went instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules_moved: Vec<crate::agents::rules_files::Moved>,
    /// The agent hosts wired, each with the step a person still has to take.
    pub agents: Vec<crate::agents::HostWiring>,
    /// No `kapi` on PATH: every entry init wrote runs `kapi` from PATH, so none would start.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub kapi_not_on_path: bool,
}

/// Initializes the folder `dir` (absolute).
/// With `rules_files`, writes the project's rules into AGENTS.md and CLAUDE.md sections; then
/// wires the agent hosts `agents` names (see [`crate::agents`]), with SKILL.md alone in each
/// skill folder and the references left to `kapi help <topic>`.
pub fn init(
    app: &App,
    dir: &Path,
    rules_files: bool,
    agents: &Agents,
) -> Result<InitReport, HostError> {
    std::fs::create_dir_all(dir).map_err(|e| HostError::io(dir, e))?;
    let root = dir.canonicalize().map_err(|e| HostError::io(dir, e))?;
    let recipe = root.join("kapi.yaml");
    let mut report = InitReport {
        schema: "kapi.init/v1",
        root: root.display().to_string(),
        existing: recipe.exists(),
        created: Vec::new(),
        kept: Vec::new(),
        collections: Vec::new(),
        offered: Vec::new(),
        catalogs: Vec::new(),
        source_language: None,
        rules_files: Vec::new(),
        rules_moved: Vec::new(),
        agents: Vec::new(),
        kapi_not_on_path: !crate::env::on_path(app.env.path.as_deref(), "kapi"),
    };
    write_recipe(app, &root, &recipe, &mut report)?;
    write_layout(&root, &mut report)?;
    record_init(app, &root, &mut report)?;
    report.created.sort();
    report.created.dedup();
    report.kept.sort();
    let project = kapi_core::project::Project::load(&recipe)?;
    if rules_files {
        let rules = crate::notes::refresh_rules(app, &project)?;
        report.rules_files = rules.changed();
        report.rules_moved = rules.moved;
    }
    let skill = skill_input();
    report.agents = crate::agents::wire(&root, &project.recipe, agents, &skill)?.hosts;
    // The PATH note matters only where an entry stands (written now, or already there).
    report.kapi_not_on_path &= report
        .agents
        .iter()
        .any(|h| h.status != crate::agents::WiringStatus::Refused);
    Ok(report)
}

/// Validates an existing recipe (a broken one is reported, nothing written) or writes a new one
/// declaring the Markdown trees and the source language found under `root`.
fn write_recipe(
    app: &App,
    root: &Path,
    recipe: &Path,
    report: &mut InitReport,
) -> Result<(), HostError> {
    if report.existing {
        // Validate before touching anything: a broken recipe is reported, nothing written (nor
        // under `--strict`, one with a key kapi does not read; else each is named).
        app.vet(&kapi_core::project::Project::load(recipe)?)?;
        report.kept.push("kapi.yaml".into());
    } else {
        let (globs, offered, language, catalog_files) = detect(root);
        let catalogs = crate::init_catalogs::find(&catalog_files, &language);
        let name = slug(
            root.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        write_new(
            recipe,
            &recipe_text(&name, &globs, &offered, &catalogs, &language),
        )?;
        report.created.push("kapi.yaml".into());
        report.collections = globs;
        report.offered = offered;
        report.catalogs = catalogs.into_iter().map(|c| c.summary).collect();
        report.source_language = Some(language);
    }
    Ok(())
}

/// The `.kapi/` layout, and for a new project the starter voice and empty terms (an existing
/// project's own files are kept).
fn write_layout(root: &Path, report: &mut InitReport) -> Result<(), HostError> {
    for created in layout::ensure_layout(root).map_err(|e| HostError::io(e.path, e.source))? {
        report
            .created
            .push(relative_to(&created, root).unwrap_or_else(|| created.display().to_string()));
    }
    let name = report_name(root);
    for (file, text) in [
        (layout::VOICE_FILE, starter_voice(&name)),
        (layout::TERMS_FILE, STARTER_TERMS.to_owned()),
    ] {
        let path = root.join(file);
        if path.exists() {
            report.kept.push(file.to_owned());
        } else if !report.existing {
            write_new(&path, &text)?;
            report.created.push(file.to_owned());
        }
    }
    Ok(())
}

/// Opens (or creates) the store, touches the session and records the `init` operation.
fn record_init(app: &App, root: &Path, report: &mut InitReport) -> Result<(), HostError> {
    let store_path = root.join(layout::STORE_FILE);
    let store_existed = store_path.exists();
    let handle = app.store(&store_path)?;
    let store = crate::app::lock(&handle)?;
    let actor = app.actor();
    let now = app.timestamp();
    store.touch_session(&SessionRow {
        id: actor.session.clone(),
        actor_kind: actor.kind.clone(),
        actor_name: actor.name.clone(),
        project: Some(root.display().to_string()),
        client: Some("kapi-cli".into()),
        started_at: now.clone(),
        last_seen: now.clone(),
    })?;
    store.record_op(&NewOp {
        kind: "init".into(),
        actor_kind: actor.kind,
        actor_name: actor.name,
        session: actor.session,
        path: None,
        payload: serde_json::json!({"created": report.created, "kept": report.kept}),
        status: "applied".into(),
        created_at: now,
    })?;
    if !store_existed {
        report.created.push(layout::STORE_FILE.to_owned());
    }
    Ok(())
}

/// The skill as wiring takes it. SKILL.md alone goes into each skill folder; the references
/// beside it in `skills/kapi/` are served by `kapi help <topic>` (the plugin bundle carries
/// them), so a copy an earlier kapi left there is removed when it is one of them or in the
/// closed retired list.
fn skill_input() -> WiringInput {
    let mut retired = Vec::new();
    let mut skill_files = Vec::new();
    let mut served = Vec::new();
    for (path, bytes) in crate::agents::skills::files() {
        if path == "retired.sha256" {
            retired = String::from_utf8_lossy(bytes)
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .filter_map(|l| l.split_whitespace().next())
                .map(str::to_owned)
                .collect();
        } else if path == "SKILL.md" {
            skill_files.push((path.to_owned(), bytes.to_vec()));
        } else {
            served.push((path.to_owned(), bytes.to_vec()));
        }
    }
    WiringInput {
        skill_files,
        served,
        retired,
    }
}

fn report_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into())
}

/// Writes a file that must not exist yet, atomically (kapi's one write).
fn write_new(path: &Path, text: &str) -> Result<(), HostError> {
    kapi_core::change::stage::write_new(path, text.as_bytes()).map_err(|e| HostError::io(path, e))
}

/// The most catalog files `detect` lists for [`crate::init_catalogs::find`].
const MAX_CATALOG_FILES: usize = 20_000;

/// Finds the docs trees (one glob per top-level folder holding Markdown, MDX,
/// reStructuredText or AsciiDoc, plus the root's own files), the source code whose comments kapi reads (one glob per top-level folder and
/// language), the files that may be translation catalogs (by extension), and guesses the
/// source language from the words the Markdown uses most.
fn detect(root: &Path) -> (Vec<String>, Vec<String>, String, Vec<String>) {
    let mut catalogs: Vec<String> = Vec::new();
    // Folders (or the root, "") holding docs, with the extension: `md`, `mdx`, `rst`, `adoc`.
    let mut tops: BTreeSet<(String, &'static str)> = BTreeSet::new();
    let mut code: BTreeSet<(String, String)> = BTreeSet::new();
    let mut sample = String::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .max_depth(Some(12))
        .build();
    for entry in walk.flatten() {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let md_ext = match ext.as_str() {
            "md" | "markdown" => Some("md"),
            "mdx" => Some("mdx"),
            "rst" => Some("rst"),
            "adoc" => Some("adoc"),
            _ => None,
        };
        let is_md = md_ext.is_some();
        if (matches!(
            ext.as_str(),
            "json"
                | "yml"
                | "yaml"
                | "xml"
                | "properties"
                | "po"
                | "pot"
                | "xlf"
                | "xliff"
                | "arb"
                | "resx"
                | "resw"
                | "strings"
                | "stringsdict"
                | "xcstrings"
                | "ftl"
        ) || (ext == "ts" && crate::document::is_qt_ts(path)))
            && catalogs.len() < MAX_CATALOG_FILES
            && let Some(rel) = relative_to(path, root)
            && !rel.split('/').next().is_some_and(|top| {
                rel.contains('/')
                    && matches!(top, "node_modules" | "target" | "vendor" | "dist" | "build")
            })
        {
            catalogs.push(rel);
        }
        let is_code = crate::document::comment_format(path).is_some();
        // kapi's own rules file (only its section in it) is not the project's Markdown.
        if (!is_md && !is_code) || kapi_core::project::own_files::is_kapis_own(path) {
            continue;
        }
        let Some(rel) = relative_to(path, root) else {
            continue;
        };
        let top = match rel.split_once('/') {
            Some((top, _))
                if !matches!(top, "node_modules" | "target" | "vendor" | "dist" | "build") =>
            {
                Some(top.to_owned())
            }
            Some(_) => continue,
            None => None,
        };
        if is_code {
            let glob = match &top {
                Some(top) => format!("{top}/**/*.{ext}"),
                None => format!("*.{ext}"),
            };
            code.insert((top.unwrap_or_default(), glob));
            continue;
        }
        tops.insert((top.unwrap_or_default(), md_ext.unwrap_or("md")));
        if sample.len() < 200_000
            && let Ok(text) = std::fs::read_to_string(path)
        {
            sample.push_str(&text);
            sample.push('\n');
        }
    }
    // The root's own files first (`*.md`), then each folder's tree (`docs/**/*.mdx`).
    let globs: Vec<String> = tops
        .into_iter()
        .map(|(top, ext)| {
            if top.is_empty() {
                format!("*.{ext}")
            } else {
                format!("{top}/**/*.{ext}")
            }
        })
        .collect();
    // At most a screenful: the folders with code, each language once.
    let offered = code.into_iter().map(|(_, glob)| glob).take(12).collect();
    catalogs.sort();
    (globs, offered, detect_language(&sample), catalogs)
}

/// The language whose most common words appear most often in `text`; `en` when unsure.
pub fn detect_language(text: &str) -> String {
    /// The ten most common short words of each language, space-separated.
    const WORDS: &[(&str, &str)] = &[
        ("en", "the and is to of you with this that for"),
        ("fr", "le la les et est des une vous pour dans"),
        ("de", "der die und ist das nicht mit sie ein für"),
        ("es", "el los las que es una para por con del"),
        ("it", "il che di è per una gli della non sono"),
        ("pt", "o os que é uma para com não dos você"),
        ("nl", "de het een en van is dat niet je voor"),
    ];
    let mut counts = vec![0usize; WORDS.len()];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(50_000)
    {
        let lower = word.to_lowercase();
        for (i, (_, list)) in WORDS.iter().enumerate() {
            if list.split(' ').any(|w| w == lower) {
                counts[i] += 1;
            }
        }
    }
    let (best, count) = counts
        .iter()
        .enumerate()
        .max_by_key(|(_, c)| **c)
        .map_or((0, 0), |(i, c)| (i, *c));
    if count < 5 {
        "en".into()
    } else {
        WORDS[best].0.into()
    }
}

/// The project's name from its folder's ([`kapi_core::suggest::slug`]); `project` when
/// nothing is left.
fn slug(name: String) -> String {
    let slug = kapi_core::suggest::slug(&name);
    if slug.is_empty() {
        "project".into()
    } else {
        slug
    }
}

fn recipe_text(
    name: &str,
    globs: &[String],
    offered: &[String],
    catalogs: &[crate::init_catalogs::Offer],
    language: &str,
) -> String {
    let mut out = String::new();
    out.push_str("# kapi project recipe: `kapi help files` documents every key.\n");
    out.push_str("version: v1\n");
    out.push_str(&format!("name: {name}\n"));
    out.push_str("defaults:\n");
    out.push_str(&format!("  source_language: {language}\n"));
    out.push_str(&format!("  voice: {}\n", layout::VOICE_FILE));
    out.push_str(&format!("  terms_source: {}\n", layout::TERMS_FILE));
    if globs.is_empty() {
        out.push_str("# No Markdown found yet: add what kapi should check, e.g.\n#   - path: \"docs/**/*.md\"\ncollections: []\n");
    } else {
        out.push_str("collections:\n");
        for glob in globs {
            out.push_str(&format!("  - path: \"{glob}\"\n"));
        }
    }
    if !offered.is_empty() {
        out.push_str(if globs.is_empty() {
            "# Source code kapi reads the comments of: to check them too, list these under\n# `collections:` in place of `[]`.\n"
        } else {
            "# Source code kapi reads the comments of: uncomment a line to check them too.\n"
        });
        for glob in offered {
            out.push_str(&format!("#  - path: \"{glob}\"\n"));
        }
    }
    if !catalogs.is_empty() {
        out.push_str(if globs.is_empty() {
            "# Translation catalogs kapi found: to check and translate them, list these under\n# `collections:` in place of `[]` (take the `#` off each line). `kapi help files`\n# documents `target`, `locales` and the template's `{lang}`, `{locale}`.\n"
        } else {
            "# Translation catalogs kapi found: take the `#` off a collection's lines to check and\n# translate it. `kapi help files` documents `target`, `locales` and the template's\n# `{lang}`, `{locale}`.\n"
        });
        for offer in catalogs {
            for line in &offer.lines {
                out.push('#');
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.push_str("gates:\n  fail_on: major\n");
    out
}

fn starter_voice(name: &str) -> String {
    STARTER_VOICE.replace("{name}", name)
}

const STARTER_VOICE: &str = r#"# The voice kapi checks prose against: `kapi help files` documents every field.
name: {name}
description: How we write. Say who reads us and what they need.
tone:
  formality: neutral
style:
  active_voice: true
  person_pov: second
  prohibited_patterns:
    - regex: '!{2,}'
      description: Stacked exclamation marks
      severity: minor
  constraints:
    max_sentence_words: 35
vocabulary:
  forbidden: []
  competitor: []
"#;

const STARTER_TERMS: &str =
    "# Terms kapi enforces: `kapi help files` documents the format.\nversion: v1\nconcepts: []\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_english_and_french() {
        assert_eq!(
            detect_language("The tool is fast and you can use it with the rest of this."),
            "en"
        );
        assert_eq!(
            detect_language(
                "Le projet est prêt et vous pouvez le lancer dans les dossiers des équipes pour une fois."
            ),
            "fr"
        );
        assert_eq!(detect_language(""), "en");
    }

    #[test]
    fn slugs_folder_names() {
        assert_eq!(slug("My Docs_2".into()), "my-docs-2");
        assert_eq!(slug("***".into()), "project");
    }
}
