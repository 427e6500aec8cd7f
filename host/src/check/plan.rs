//! How a file is checked, decided in one place for every entry point: `kapi check PATH`, the
//! project check, `--diff-against`, MCP `check_file`, the hooks and the commit check.
//!
//! A file is either checked as written (the source analyzers; a catalog's translation files
//! and a bilingual file's target editions against it), or it is a translation a collection's
//! `target` template produces: then it is checked only against its source, with
//! `placeholders` and `translation-terms` under its own language's terms, wherever it was
//! named from (named directly, in a folder walk, by a hook, by a change set). A translation
//! whose source file does not exist has nothing to be checked against; the check says so in
//! a note instead of passing it silently.

use std::collections::HashMap;

use kapi_core::project::Project;
use kapi_core::project::collections::Collections;

use crate::error::HostError;

/// What a project file is, for checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Checked as written: the source analyzers, and its translations against it.
    Source,
    /// The `lang` translation of `source` (project-relative), which a `target` template names.
    Translation { source: String, lang: String },
    /// A `target` template's file that no declared source file produces (its source is
    /// missing or excluded): there is nothing to check it against.
    Orphan,
}

/// Answers [`Role`] questions for one project, walking the declared files at most once (and
/// only when a path is a target at all).
pub struct Planner<'a> {
    project: &'a Project,
    collections: &'a Collections,
    /// Target rel → (source rel, language), built on the first target asked about.
    sources: Option<HashMap<String, (String, String)>>,
}

impl<'a> Planner<'a> {
    pub fn new(project: &'a Project, collections: &'a Collections) -> Self {
        Planner {
            project,
            collections,
            sources: None,
        }
    }

    /// The role of the project-relative `rel`.
    pub fn role(&mut self, rel: &str) -> Result<Role, HostError> {
        if !self.collections.is_target(rel) {
            return Ok(Role::Source);
        }
        if self.sources.is_none() {
            self.sources = Some(translations(self.project, self.collections)?);
        }
        Ok(
            match self
                .sources
                .as_ref()
                .and_then(|s| s.get(rel.trim_start_matches("./")))
            {
                Some((source, lang)) => Role::Translation {
                    source: source.clone(),
                    lang: lang.clone(),
                },
                None => Role::Orphan,
            },
        )
    }
}

/// The role of one project-relative path (a single question: see [`Planner`] for many).
pub fn role(project: &Project, collections: &Collections, rel: &str) -> Result<Role, HostError> {
    Planner::new(project, collections).role(rel)
}

/// Every translation file the declared sources' `target` templates name, with its source and
/// language (the first declared source, in path order, wins a file two sources name).
fn translations(
    project: &Project,
    collections: &Collections,
) -> Result<HashMap<String, (String, String)>, HostError> {
    let declared = collections
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    let mut out = HashMap::new();
    for file in declared {
        let Some(item) = collections.matches(&file.rel) else {
            continue;
        };
        for (lang, target) in item.target_paths(&file.rel) {
            out.entry(target)
                .or_insert_with(|| (file.rel.clone(), lang));
        }
    }
    Ok(out)
}
