//! Projects: the `kapi.yaml` recipe, discovery, the `.kapi/` layout, collections and the
//! governance resolver that answers which profile, channel, voice and terms hold at a path.

pub mod collections;
pub mod discover;
pub mod layout;
pub mod locales;
pub mod own_files;
pub mod recipe;
pub mod recipe_field;
pub mod recipe_text;
pub mod resolve;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde::Serialize;

pub use collections::{Collections, DeclaredFile, Match};
pub use discover::{DiscoverError, DiscoverOptions, discover};
pub use layout::ensure_layout;
pub use recipe::{Recipe, RecipeError};
pub use resolve::{Resolver, Window};

/// A loaded project: its root folder, the recipe file and the parsed recipe.
#[derive(Debug, Clone)]
pub struct Project {
    /// Absolute folder holding `kapi.yaml`.
    pub root: PathBuf,
    /// Absolute path of the recipe file.
    pub recipe_path: PathBuf,
    pub recipe: Recipe,
    /// The recipe's collections, compiled on first use ([`Project::collections`]) and shared
    /// by every clone made after.
    compiled: OnceLock<Arc<Collections>>,
}

impl Project {
    /// Loads the recipe at `recipe_path`; the root is its folder, made absolute.
    pub fn load(recipe_path: &std::path::Path) -> Result<Project, RecipeError> {
        let recipe_path = std::path::absolute(recipe_path).map_err(|source| RecipeError::Read {
            path: recipe_path.to_path_buf(),
            source,
        })?;
        let recipe = Recipe::load(&recipe_path)?;
        let root = recipe_path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        Ok(Project::new(root, recipe_path, recipe))
    }

    /// A project of an already parsed recipe.
    pub fn new(root: PathBuf, recipe_path: PathBuf, recipe: Recipe) -> Project {
        Project {
            root,
            recipe_path,
            recipe,
            compiled: OnceLock::new(),
        }
    }

    /// The recipe's collections compiled into glob sets, once per loaded project (a clone
    /// shares them): a change to `recipe` after the first call is not seen by this project.
    pub fn collections(&self) -> Result<Arc<Collections>, RecipeError> {
        if let Some(compiled) = self.compiled.get() {
            return Ok(Arc::clone(compiled));
        }
        let compiled = Arc::new(Collections::new(&self.recipe)?);
        Ok(Arc::clone(self.compiled.get_or_init(|| compiled)))
    }
}

/// A voice file bound at a point, and the recipe field that bound it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VoiceBinding {
    /// Absolute path of the voice file.
    #[serde(skip)]
    pub path: PathBuf,
    /// The path as the project names it (relative to the root, `/`-separated).
    pub source: String,
    /// The recipe line to edit to change it (`defaults.voice`, `profiles.docs.voice`), or the
    /// conventional file that was found (`.kapi/voice.yaml`).
    pub field: String,
}

/// A profile skipped because its validity window excludes the instant of resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fallback {
    pub profile: String,
    /// `expired` or `upcoming`.
    pub state: String,
    /// The window bound that excluded it (`2027-01-01`).
    pub boundary: String,
    /// What governs instead (`project default` or `profile/channel`).
    pub governing: String,
}

impl Fallback {
    /// The one-line note printed on stderr once per run.
    pub fn note(&self) -> String {
        let verb = if self.state == "expired" {
            "expired"
        } else {
            "starts"
        };
        format!(
            "governance: profile `{}` {} {}; governing with {}",
            self.profile, verb, self.boundary, self.governing
        )
    }
}

/// What governs one path (or one profile named directly): the resolver's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Point {
    /// Project-relative path, `/`-separated, when the point is a path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    /// True when a recipe resolved and the path fell through to the project default.
    pub default: bool,
    /// The source language at this point (item, then collection, then `defaults`, then `en`).
    pub source_language: String,
    /// Target languages at this point.
    pub target_languages: Vec<String>,
    /// The voice in force, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voice: Option<VoiceBinding>,
    /// Terms files in force, most specific first (each existing file is read).
    #[serde(skip)]
    pub terms: Vec<PathBuf>,
    /// Project-relative names of `terms`.
    pub terms_sources: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
    /// The Vale configuration in force (`profiles.<p>.vale`, else `defaults.vale`), relative to
    /// the project root, as the recipe writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vale: Option<String>,
}

impl Point {
    /// `profile/channel`, `profile`, or `default`.
    pub fn reference(&self) -> String {
        match (&self.profile, &self.channel) {
            (Some(p), Some(c)) => format!("{p}/{c}"),
            (Some(p), None) => p.clone(),
            _ => "default".to_owned(),
        }
    }
}
