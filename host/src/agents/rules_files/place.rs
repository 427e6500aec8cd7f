//! Where a folder's rules go: in its own rules files, unless a content collection covers them
//! (a docs site would publish them as a page); then in the nearest folder above it that has
//! rules files of its own outside every collection, else the root.

use std::collections::BTreeMap;
use std::sync::Arc;

use kapi_core::project::{Collections, Project};

use super::{AGENTS, CLAUDE, Moved};
use crate::error::HostError;

/// The project's content collections, as the rules files see them: which folders' rules files
/// a collection would take as content.
#[derive(Debug, Clone, Default)]
pub struct Content {
    collections: Option<Arc<Collections>>,
}

impl Content {
    /// The collections of `project`'s recipe.
    pub fn of(project: &Project) -> Result<Self, HostError> {
        Ok(Content {
            collections: Some(project.collections()?),
        })
    }

    /// No collections: every folder may hold rules files.
    pub fn none() -> Self {
        Content::default()
    }

    /// The pattern of the collection that takes `folder`'s `AGENTS.md` or `CLAUDE.md` as a
    /// source file (not excluded, not a translation a `target` template produces); `None` for
    /// the root, which always holds the project's rules.
    pub fn covering(&self, folder: &str) -> Option<String> {
        let collections = self.collections.as_deref()?;
        if folder.is_empty() {
            return None;
        }
        [AGENTS, CLAUDE].into_iter().find_map(|name| {
            let rel = format!("{folder}/{name}");
            if collections.is_excluded(&rel) || collections.is_target(&rel) {
                return None;
            }
            let m = collections.matches(&rel)?;
            Some(collections.pattern(&m).unwrap_or(&rel).to_owned())
        })
    }
}

/// For each of `folders` (those with rules of their own) that a collection covers: the folder
/// whose section takes its rules instead — the nearest folder above it among `folders` that no
/// collection covers, else the root (`""`). Sorted by folder.
pub(super) fn hosts<'a>(
    folders: impl Iterator<Item = &'a String> + Clone,
    content: &Content,
) -> BTreeMap<String, Moved> {
    let mut out = BTreeMap::new();
    for folder in folders.clone() {
        let Some(glob) = content.covering(folder) else {
            continue;
        };
        let mut host = String::new();
        let mut up = folder.as_str();
        while let Some((parent, _)) = up.rsplit_once('/') {
            if folders.clone().any(|f| f == parent) && content.covering(parent).is_none() {
                host = parent.to_owned();
                break;
            }
            up = parent;
        }
        out.insert(
            folder.clone(),
            Moved {
                folder: folder.clone(),
                host,
                glob,
                into: Vec::new(),
            },
        );
    }
    out
}
