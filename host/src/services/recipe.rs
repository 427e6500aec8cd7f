//! The listing helpers `--all-tools` adds: formats (`list_formats`), the recipe's profiles
//! with their validity windows (`list_profiles`) and its collections with the files each
//! declares now (`list_collections`).

use kapi_core::project::collections::Collections;
use kapi_core::project::{Resolver, VoiceBinding};
use serde::Serialize;

use crate::app::App;
use crate::error::HostError;

/// `kapi.profiles/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Profiles {
    pub schema: &'static str,
    /// The instant windows were judged at (RFC 3339).
    pub now: String,
    pub profiles: Vec<ProfileRow>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProfileRow {
    pub name: String,
    pub channels: Vec<ChannelRow>,
    /// The voice file in force under the profile (declared, or the conventional one found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voice: Option<VoiceBinding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termstore: Option<String>,
    /// The terms files in force under the profile, most specific first.
    pub terms: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<String>,
    /// `active`, `upcoming` or `expired` now (a profile without a window is `active`).
    pub state: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ChannelRow {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
}

/// The `list_profiles` answer.
pub fn profiles(app: &App) -> Result<Profiles, HostError> {
    let project = app.require_project()?;
    let resolver = Resolver::new(&project, app.now);
    let windows = resolver.windows();
    let mut rows = Vec::new();
    for p in &project.recipe.profiles {
        let point = resolver.resolve_profile(&p.name)?;
        let window = windows.iter().find(|w| w.profile == p.name);
        rows.push(ProfileRow {
            name: p.name.clone(),
            channels: p
                .channels
                .iter()
                .map(|c| ChannelRow {
                    id: c.id.clone(),
                    concept: c.concept.clone(),
                })
                .collect(),
            voice: point.voice,
            termstore: p.termstore.clone(),
            terms: point.terms_sources,
            valid_from: window.and_then(|w| w.valid_from.clone()),
            valid_to: window.and_then(|w| w.valid_to.clone()),
            state: window.map_or_else(|| "active".to_owned(), |w| w.state.clone()),
        });
    }
    Ok(Profiles {
        schema: "kapi.profiles/v1",
        now: app.now.to_string(),
        profiles: rows,
    })
}

impl Profiles {
    pub fn text(&self) -> String {
        if self.profiles.is_empty() {
            return "The recipe declares no profiles: everything is governed by the project default.".into();
        }
        let mut out = String::new();
        for p in &self.profiles {
            let channels: Vec<&str> = p.channels.iter().map(|c| c.id.as_str()).collect();
            let window = match (&p.valid_from, &p.valid_to) {
                (None, None) => String::new(),
                (f, t) => format!(
                    " [{} – {}]",
                    f.as_deref().unwrap_or("…"),
                    t.as_deref().unwrap_or("…")
                ),
            };
            out.push_str(&format!(
                "{}: {}{}; channels: {}; voice: {}\n",
                p.name,
                p.state,
                window,
                if channels.is_empty() {
                    "none".to_owned()
                } else {
                    channels.join(", ")
                },
                p.voice.as_ref().map_or("none", |v| v.source.as_str()),
            ));
        }
        out
    }
}

/// `kapi.collections/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CollectionList {
    pub schema: &'static str,
    pub collections: Vec<CollectionRow>,
    /// Declared files in all.
    pub files: usize,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CollectionRow {
    /// `null` for a bare entry (`- path: …`).
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_languages: Option<Vec<String>>,
    pub items: Vec<ItemRow>,
    /// Source files the collection declares now (targets and excludes left out).
    pub files: usize,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ItemRow {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_languages: Option<Vec<String>>,
    /// Source files this item declares now (a file counts for the first item it matches).
    pub files: usize,
}

/// The `list_collections` answer.
pub fn collections(app: &App) -> Result<CollectionList, HostError> {
    let project = app.require_project()?;
    let compiled = Collections::new(&project.recipe)?;
    let files = compiled
        .declared_files(&project.root)
        .map_err(|e| HostError::io(&project.root, e))?;
    let mut rows: Vec<CollectionRow> = project
        .recipe
        .collections
        .iter()
        .map(|c| CollectionRow {
            name: c.name.clone(),
            base: c.base.clone(),
            channel: c.channel.as_ref().map(ToString::to_string),
            source_language: c.source_language.clone(),
            target_languages: c.target_languages.clone(),
            items: c
                .content
                .iter()
                .map(|i| ItemRow {
                    path: i.path.clone(),
                    format: i.format.as_ref().map(|f| f.name.clone()),
                    target: i.target.clone(),
                    channel: i.channel.as_ref().map(ToString::to_string),
                    target_languages: i.target_languages.clone(),
                    files: 0,
                })
                .collect(),
            files: 0,
        })
        .collect();
    for file in &files {
        if let Some(m) = compiled.matches(&file.rel)
            && let Some(row) = rows.get_mut(m.collection_index)
        {
            row.files += 1;
            if let Some(item) = row.items.get_mut(m.item_index) {
                item.files += 1;
            }
        }
    }
    Ok(CollectionList {
        schema: "kapi.collections/v1",
        collections: rows,
        files: files.len(),
    })
}

impl CollectionList {
    pub fn text(&self) -> String {
        if self.collections.is_empty() {
            return "The recipe declares no collections: add `collections: [{path: \"docs/**/*.md\"}]` to kapi.yaml.".into();
        }
        let mut out = String::new();
        for c in &self.collections {
            let name = c.name.as_deref().unwrap_or("(bare)");
            out.push_str(&format!("{name}: {} file(s)\n", c.files));
            for i in &c.items {
                out.push_str(&format!("  {}", i.path));
                if let Some(f) = &i.format {
                    out.push_str(&format!(" format {f}"));
                }
                if let Some(t) = &i.target {
                    out.push_str(&format!(" → {t}"));
                }
                if let Some(ch) = i.channel.as_ref().or(c.channel.as_ref()) {
                    out.push_str(&format!(" channel {ch}"));
                }
                out.push_str(&format!(": {} file(s)\n", i.files));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::translation::tests::{RECIPE, app, shop};

    #[test]
    fn collections_count_the_files_they_declare() {
        let dir = shop();
        let list = collections(&app(dir.path(), None)).unwrap();
        assert_eq!(list.collections.len(), 2);
        let bare = &list.collections[0];
        assert_eq!((bare.name.as_deref(), bare.files), (None, 1));
        let app_c = &list.collections[1];
        assert_eq!(app_c.name.as_deref(), Some("app"));
        let item = &app_c.items[0];
        assert_eq!(item.target.as_deref(), Some("locales/{lang}.json"));
        // fr.json is a target, not a declared source.
        assert_eq!((item.files, app_c.files, list.files), (1, 1, 2));
        assert!(
            list.text()
                .contains("locales/en.json → locales/{lang}.json: 1 file(s)")
        );
    }

    #[test]
    fn profiles_report_channels_and_window_state() {
        let dir = shop();
        let recipe = format!(
            "{RECIPE}profiles:\n  docs: {{channels: [web, {{id: app, concept: ui}}]}}\n  old: {{channels: [web], valid_to: 2001-01-01}}\n  next: {{channels: [web], valid_from: 2999-01-01}}\n"
        );
        std::fs::write(dir.path().join("kapi.yaml"), recipe).unwrap();
        let list = profiles(&app(dir.path(), None)).unwrap();
        let states: Vec<(&str, &str)> = list
            .profiles
            .iter()
            .map(|p| (p.name.as_str(), p.state.as_str()))
            .collect();
        assert_eq!(
            states,
            [("docs", "active"), ("old", "expired"), ("next", "upcoming")]
        );
        let docs = &list.profiles[0];
        assert_eq!(docs.channels[1].id, "app");
        assert_eq!(docs.channels[1].concept.as_deref(), Some("ui"));
        assert_eq!(list.profiles[1].valid_to.as_deref(), Some("2001-01-01"));
        assert!(
            list.text().contains("old: expired [… – 2001-01-01]"),
            "{}",
            list.text()
        );
    }

    #[test]
    fn outside_a_project_the_listings_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let env = crate::env::Env {
            no_project: true,
            ..Default::default()
        };
        let app = App::new(env, dir.path().to_path_buf(), None);
        assert!(matches!(profiles(&app), Err(HostError::NoProject { .. })));
        assert!(matches!(
            collections(&app),
            Err(HostError::NoProject { .. })
        ));
    }
}
