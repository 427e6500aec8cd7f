//! The governance resolver: for a path (or a profile named directly), which profile, channel,
//! voice, terms, languages and validity fallback hold, at one instant passed in by the host.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::collections::{Collections, Match};
use super::layout::{TERMS_FILE, VOICE_FILE, profile_terms_file, profile_voice_file};
use super::recipe::{Bound, ChannelRef, Profile, RecipeError, Site, VoiceRef};
use super::{Fallback, Point, Project, VoiceBinding};

/// A profile's validity window and its state at the resolver's instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Window {
    pub profile: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<String>,
    /// `active`, `upcoming` or `expired`.
    pub state: String,
}

/// Resolves governance for one project at one instant.
#[derive(Debug)]
pub struct Resolver<'a> {
    project: &'a Project,
    now: jiff::Timestamp,
    collections: Option<Arc<Collections>>,
    /// Whether each conventional file (`.kapi/voice.yaml`, a profile's) exists, looked up
    /// once per resolver: a check of 10,000 files resolves 10,000 points.
    conventional: Mutex<HashMap<String, bool>>,
    /// The point each collection item resolves to (all but its `path`): every file an item
    /// declares resolves the same way at one instant.
    points: Mutex<HashMap<Option<(usize, usize)>, Point>>,
}

enum State {
    Active,
    Upcoming,
    Expired,
}

fn state(p: &Profile, now: jiff::Timestamp) -> State {
    if p.valid_from.as_ref().is_some_and(|b| now < b.at) {
        State::Upcoming
    } else if p.valid_to.as_ref().is_some_and(|b| now >= b.at) {
        State::Expired
    } else {
        State::Active
    }
}

impl<'a> Resolver<'a> {
    /// A resolver at `now`. Globs were checked when the recipe loaded, so compiling them here
    /// cannot fail for a loaded recipe (if it does, no path matches a collection).
    pub fn new(project: &'a Project, now: jiff::Timestamp) -> Self {
        Resolver {
            project,
            now,
            collections: project.collections().ok(),
            conventional: Mutex::new(HashMap::new()),
            points: Mutex::new(HashMap::new()),
        }
    }

    /// The compiled collections, when they compiled.
    pub fn collections(&self) -> Option<&Collections> {
        self.collections.as_deref()
    }

    /// What governs the project-relative path `rel`.
    pub fn resolve_path(&self, rel: &str) -> Point {
        let rel = rel.trim_start_matches("./");
        let m: Option<Match> = self.collections.as_ref().and_then(|c| c.matches(rel));
        let slot = m.as_ref().map(|m| (m.collection_index, m.item_index));
        let known = self.points.lock().ok().and_then(|p| p.get(&slot).cloned());
        if let Some(mut point) = known {
            point.path = Some(rel.to_owned());
            return point;
        }
        let point = self.resolve_item(rel, m.as_ref());
        if let Ok(mut points) = self.points.lock() {
            points.insert(slot, point.clone());
        }
        point
    }

    /// [`Resolver::resolve_path`] for `rel`, which the collections match as `m`.
    fn resolve_item(&self, rel: &str, m: Option<&Match>) -> Point {
        let recipe = &self.project.recipe;
        let (collection, item) = match m {
            Some(m) => {
                let c = recipe.collections.get(m.collection_index);
                (c, c.and_then(|c| c.content.get(m.item_index)))
            }
            None => (None, None),
        };
        let ladder: Vec<&ChannelRef> = [
            item.and_then(|i| i.channel.as_ref()),
            collection.and_then(|c| c.channel.as_ref()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut fallback: Option<Fallback> = None;
        let mut chosen: Option<(&Profile, &ChannelRef)> = None;
        for rung in ladder {
            let Some(profile) = recipe.profile(&rung.profile) else {
                continue;
            };
            let (label, bound): (&str, Option<&Bound>) = match state(profile, self.now) {
                State::Active => {
                    chosen = Some((profile, rung));
                    break;
                }
                State::Upcoming => ("upcoming", profile.valid_from.as_ref()),
                State::Expired => ("expired", profile.valid_to.as_ref()),
            };
            if fallback.is_none() {
                fallback = Some(Fallback {
                    profile: profile.name.clone(),
                    state: label.to_owned(),
                    boundary: bound.map(Bound::render).unwrap_or_default(),
                    governing: String::new(),
                });
            }
        }
        if let Some(f) = &mut fallback {
            f.governing = match chosen {
                Some((_, c)) => c.to_string(),
                None => "the project default".to_owned(),
            };
        }
        let source_language = item
            .and_then(|i| i.source_language.clone())
            .or_else(|| collection.and_then(|c| c.source_language.clone()))
            .or_else(|| recipe.defaults.source_language.clone())
            .unwrap_or_else(|| "en".to_owned());
        let target_languages = item
            .and_then(|i| i.target_languages.clone())
            .or_else(|| collection.and_then(|c| c.target_languages.clone()))
            .or_else(|| recipe.defaults.target_languages.clone())
            .unwrap_or_default();
        let profile = chosen.map(|(p, _)| p);
        let (terms, terms_sources) = self.terms(profile);
        Point {
            path: Some(rel.to_owned()),
            profile: profile.map(|p| p.name.clone()),
            channel: chosen.map(|(_, c)| c.channel.clone()),
            collection: collection.and_then(|c| c.name.clone()),
            default: chosen.is_none(),
            source_language,
            target_languages,
            voice: self.voice(profile),
            terms,
            terms_sources,
            fallback,
            vale: profile
                .and_then(|p| p.vale.clone())
                .or_else(|| recipe.defaults.vale.clone()),
        }
    }

    /// What governs under a profile named directly: as declared (its window is not applied)
    /// and with no fall-through. An undeclared name is an error listing the declared ones.
    pub fn resolve_profile(&self, name: &str) -> Result<Point, RecipeError> {
        let recipe = &self.project.recipe;
        let Some(profile) = recipe.profile(name) else {
            return Err(RecipeError::UndeclaredProfile {
                at: Box::new(Site {
                    file: self.project.recipe_path.clone(),
                    key: "profiles".to_owned(),
                    line: None,
                    column: None,
                }),
                name: name.to_owned(),
                declared: recipe.profiles.iter().map(|p| p.name.clone()).collect(),
            });
        };
        let (terms, terms_sources) = self.terms(Some(profile));
        Ok(Point {
            path: None,
            profile: Some(profile.name.clone()),
            channel: None,
            collection: None,
            default: false,
            source_language: recipe
                .defaults
                .source_language
                .clone()
                .unwrap_or_else(|| "en".to_owned()),
            target_languages: recipe.defaults.target_languages.clone().unwrap_or_default(),
            voice: self.voice(Some(profile)),
            terms,
            terms_sources,
            fallback: None,
            vale: profile
                .vale
                .clone()
                .or_else(|| recipe.defaults.vale.clone()),
        })
    }

    /// The windows of every profile that declares one, with their state now.
    pub fn windows(&self) -> Vec<Window> {
        self.project
            .recipe
            .profiles
            .iter()
            .filter(|p| p.valid_from.is_some() || p.valid_to.is_some())
            .map(|p| Window {
                profile: p.name.clone(),
                valid_from: p.valid_from.as_ref().map(Bound::render),
                valid_to: p.valid_to.as_ref().map(Bound::render),
                state: match state(p, self.now) {
                    State::Active => "active",
                    State::Upcoming => "upcoming",
                    State::Expired => "expired",
                }
                .to_owned(),
            })
            .collect()
    }

    fn root(&self) -> &Path {
        &self.project.root
    }

    /// (absolute path, project-relative name) of a path the recipe names.
    fn named(&self, path: &str) -> (PathBuf, String) {
        let p = Path::new(path);
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root().join(p)
        };
        let source =
            super::collections::rel_path(self.root(), &abs).unwrap_or_else(|| path.to_owned());
        (abs, source)
    }

    fn binding(&self, v: &VoiceRef, field: String) -> VoiceBinding {
        let (path, source) = self.named(v.profile_file.trim_start_matches("./"));
        VoiceBinding {
            path,
            source,
            field,
        }
    }

    fn conventional(&self, rel: &str) -> Option<(PathBuf, String)> {
        let abs = self.root().join(rel);
        let known = self
            .conventional
            .lock()
            .ok()
            .and_then(|m| m.get(rel).copied());
        let exists = known.unwrap_or_else(|| {
            let exists = abs.is_file();
            if let Ok(mut seen) = self.conventional.lock() {
                seen.insert(rel.to_owned(), exists);
            }
            exists
        });
        exists.then(|| (abs, rel.to_owned()))
    }

    fn voice(&self, profile: Option<&Profile>) -> Option<VoiceBinding> {
        if let Some(p) = profile {
            if let Some(v) = &p.voice {
                return Some(self.binding(v, format!("profiles.{}.voice", p.name)));
            }
            let conv = profile_voice_file(&p.name);
            if let Some((path, source)) = self.conventional(&conv) {
                return Some(VoiceBinding {
                    path,
                    source,
                    field: conv,
                });
            }
        }
        if let Some(v) = &self.project.recipe.defaults.voice {
            return Some(self.binding(v, "defaults.voice".to_owned()));
        }
        self.conventional(VOICE_FILE)
            .map(|(path, source)| VoiceBinding {
                path,
                source,
                field: VOICE_FILE.to_owned(),
            })
    }

    fn terms(&self, profile: Option<&Profile>) -> (Vec<PathBuf>, Vec<String>) {
        let mut found: Vec<(PathBuf, String)> = Vec::new();
        if let Some(p) = profile {
            match &p.termstore {
                Some(t) => found.push(self.named(t.trim_start_matches("./"))),
                None => found.extend(self.conventional(&profile_terms_file(&p.name))),
            }
        }
        match &self.project.recipe.defaults.terms_source {
            Some(t) => found.push(self.named(t.trim_start_matches("./"))),
            None => found.extend(self.conventional(TERMS_FILE)),
        }
        let mut paths = Vec::new();
        let mut names = Vec::new();
        for (path, name) in found {
            if !paths.contains(&path) {
                paths.push(path);
                names.push(name);
            }
        }
        (paths, names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hint;
    use crate::project::Recipe;

    const RECIPE: &str = "\
version: v1
defaults:
  source_language: en-US
  target_languages: [de]
  voice: .kapi/voice.yaml
profiles:
  kestrel:
    channels: [docs, app, web]
  classic:
    channels: [web]
    voice: .kapi/profiles/classic/voice.yaml
    termstore: .kapi/profiles/classic/terms.yaml
    valid_to: 2027-01-01
  next:
    channels: [web]
    valid_from: 2027-06-01T12:00:00Z
collections:
  - name: kestrel-docs
    channel: kestrel/docs
    base: docs
    source_language: en-GB
    content:
      - path: \"release-notes/**/*.md\"
        channel: kestrel/web
        target_languages: [fr, es]
      - path: \"**/*.md\"
  - name: classic-site
    channel: classic/web
    content:
      - path: \"classic/**/*.html\"
  - name: future
    channel: kestrel/web
    content:
      - path: \"future/*.md\"
        channel: next/web
      - path: \"old/*.md\"
        channel: classic/web
  - path: \"scratch/**/*.md\"
";

    fn project(files: &[&str]) -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        let recipe = Recipe::parse(RECIPE, Path::new("kapi.yaml")).unwrap();
        let project = Project::new(root.clone(), root.join("kapi.yaml"), recipe);
        (dir, project)
    }

    fn at(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn paths_resolve_by_the_item_collection_default_ladder() {
        let (_d, p) = project(&[]);
        let r = Resolver::new(&p, at("2026-09-01T00:00:00Z"));
        // (path, reference, collection, default, source_language, targets)
        type Case = (
            &'static str,
            &'static str,
            Option<&'static str>,
            bool,
            &'static str,
            &'static [&'static str],
        );
        let cases: &[Case] = &[
            (
                "docs/release-notes/2026/09.md",
                "kestrel/web",
                Some("kestrel-docs"),
                false,
                "en-GB",
                &["fr", "es"],
            ),
            (
                "docs/guides/boarding.md",
                "kestrel/docs",
                Some("kestrel-docs"),
                false,
                "en-GB",
                &["de"],
            ),
            (
                "classic/fares.html",
                "classic/web",
                Some("classic-site"),
                false,
                "en-US",
                &["de"],
            ),
            ("scratch/x.md", "default", None, true, "en-US", &["de"]),
            ("README.md", "default", None, true, "en-US", &["de"]),
        ];
        for (path, reference, collection, default, lang, targets) in cases {
            let point = r.resolve_path(path);
            assert_eq!(point.reference(), *reference, "{path}");
            assert_eq!(point.collection.as_deref(), *collection, "{path}");
            assert_eq!(point.default, *default, "{path}");
            assert_eq!(point.source_language, *lang, "{path}");
            assert_eq!(point.target_languages, *targets, "{path}");
            assert_eq!(point.path.as_deref(), Some(*path));
            assert!(point.fallback.is_none(), "{path}");
        }
    }

    #[test]
    fn windows_apply_at_the_instant_with_exclusive_valid_to() {
        let (_d, p) = project(&[]);
        // (instant, path, reference, fallback note)
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            (
                "2026-12-31T23:59:59Z",
                "classic/a.html",
                "classic/web",
                None,
            ),
            (
                "2027-01-01T00:00:00Z",
                "classic/a.html",
                "default",
                Some(
                    "governance: profile `classic` expired 2027-01-01; governing with the project default",
                ),
            ),
            (
                "2027-01-01T00:00:00Z",
                "old/a.md",
                "kestrel/web",
                Some(
                    "governance: profile `classic` expired 2027-01-01; governing with kestrel/web",
                ),
            ),
            (
                "2027-06-01T11:59:59Z",
                "future/a.md",
                "kestrel/web",
                Some(
                    "governance: profile `next` starts 2027-06-01T12:00:00Z; governing with kestrel/web",
                ),
            ),
            ("2027-06-01T12:00:00Z", "future/a.md", "next/web", None),
        ];
        for (now, path, reference, note) in cases {
            let point = Resolver::new(&p, at(now)).resolve_path(path);
            assert_eq!(point.reference(), *reference, "{now} {path}");
            assert_eq!(
                point.fallback.as_ref().map(Fallback::note).as_deref(),
                *note,
                "{now} {path}"
            );
        }
    }

    #[test]
    fn voice_and_terms_follow_their_ladders() {
        let (_d, p) = project(&[
            ".kapi/voice.yaml",
            ".kapi/terms.yaml",
            ".kapi/profiles/kestrel/voice.yaml",
            ".kapi/profiles/kestrel/terms.yaml",
        ]);
        let r = Resolver::new(&p, at("2026-09-01T00:00:00Z"));
        let docs = r.resolve_path("docs/a.md");
        let v = docs.voice.unwrap();
        assert_eq!(
            (v.source.as_str(), v.field.as_str()),
            (
                ".kapi/profiles/kestrel/voice.yaml",
                ".kapi/profiles/kestrel/voice.yaml"
            )
        );
        assert_eq!(v.path, p.root.join(".kapi/profiles/kestrel/voice.yaml"));
        assert_eq!(
            docs.terms_sources,
            [".kapi/profiles/kestrel/terms.yaml", ".kapi/terms.yaml"]
        );

        let classic = r.resolve_path("classic/a.html");
        let v = classic.voice.unwrap();
        assert_eq!(v.field, "profiles.classic.voice");
        // Explicitly named files are listed even when missing, so the loader reports them.
        assert_eq!(
            classic.terms_sources,
            [".kapi/profiles/classic/terms.yaml", ".kapi/terms.yaml"]
        );

        let plain = r.resolve_path("README.md");
        assert_eq!(plain.voice.unwrap().field, "defaults.voice");
        assert_eq!(plain.terms_sources, [".kapi/terms.yaml"]);
    }

    #[test]
    fn conventional_voice_binds_when_no_recipe_voice_is_set() {
        let (_d, mut p) = project(&[".kapi/voice.yaml"]);
        p.recipe.defaults.voice = None;
        let r = Resolver::new(&p, at("2026-09-01T00:00:00Z"));
        let v = r.resolve_path("README.md").voice.unwrap();
        assert_eq!(
            (v.source.as_str(), v.field.as_str()),
            (".kapi/voice.yaml", ".kapi/voice.yaml")
        );
        p.recipe.defaults.voice = None;
        let (_d2, mut bare) = project(&[]);
        bare.recipe.defaults.voice = None;
        let r = Resolver::new(&bare, at("2026-09-01T00:00:00Z"));
        let point = r.resolve_path("README.md");
        assert!(point.voice.is_none() && point.terms.is_empty());
    }

    #[test]
    fn a_profile_named_directly_ignores_its_window_and_does_not_fall_through() {
        let (_d, p) = project(&[]);
        let r = Resolver::new(&p, at("2030-01-01T00:00:00Z"));
        let point = r.resolve_profile("classic").unwrap();
        assert_eq!(point.reference(), "classic");
        assert!(point.fallback.is_none() && !point.default && point.path.is_none());
        assert_eq!(point.voice.unwrap().field, "profiles.classic.voice");
        let e = r.resolve_profile("clasic").unwrap_err();
        assert!(
            matches!(&e, RecipeError::UndeclaredProfile { declared, .. } if declared.len() == 3)
        );
        assert_eq!(e.hints()[0], "use `classic`");
    }

    #[test]
    fn windows_report_their_state_and_render_bounds() {
        let (_d, p) = project(&[]);
        let w = Resolver::new(&p, at("2027-02-01T00:00:00Z")).windows();
        assert_eq!(
            w,
            [
                Window {
                    profile: "classic".into(),
                    valid_from: None,
                    valid_to: Some("2027-01-01".into()),
                    state: "expired".into()
                },
                Window {
                    profile: "next".into(),
                    valid_from: Some("2027-06-01T12:00:00Z".into()),
                    valid_to: None,
                    state: "upcoming".into()
                },
            ]
        );
    }

    fn fixture(name: &str) -> Project {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata/projects")
            .join(name)
            .join("kapi.yaml");
        Project::load(&path).unwrap()
    }

    #[test]
    fn fixture_project_loads_resolves_and_lists_its_files() {
        let p = fixture("kestrel");
        assert!(p.root.is_absolute() && p.root.ends_with("kestrel"));
        let r = Resolver::new(&p, at("2026-09-01T00:00:00Z"));
        let point = r.resolve_path("docs/release-notes/2026/09.md");
        assert_eq!(point.reference(), "kestrel/web");
        assert_eq!(
            point.voice.unwrap().field,
            ".kapi/profiles/kestrel/voice.yaml"
        );
        let classic = r.resolve_path("classic/fares.html");
        assert_eq!(
            classic.terms_sources,
            [
                ".kapi/profiles/kestrel-classic/terms.yaml",
                ".kapi/terms.yaml"
            ]
        );
        assert_eq!(classic.voice.unwrap().field, "defaults.voice");
        let files = r.collections().unwrap().declared_files(&p.root).unwrap();
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                "app/i18n/en-US.json",
                "classic/fares.html",
                "docs/guides/boarding.md",
                "docs/release-notes/2026/09.md",
                "scratch/notes.md"
            ]
        );
        let gates = p.recipe.gates();
        assert_eq!(gates.ship.min_score, Some(90));
    }

    #[test]
    fn every_fixture_project_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/projects");
        for entry in std::fs::read_dir(dir).unwrap() {
            let recipe = entry.unwrap().path().join("kapi.yaml");
            if recipe.is_file() {
                Project::load(&recipe).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}
