//! The brief for a location: what governs a path (or a profile named directly), rendered as
//! markdown for people and assistants and as `kapi.context/v1` JSON. The CLI's `kapi context`
//! and the MCP resource `context://PATH` serve the same bytes from this one function.
//!
//! ```json
//! {"schema": "kapi.context/v1", "scope": "project",
//!  "point": {"path": "docs/install.md", "profile": "larkspur", "channel": "docs",
//!            "collection": "guides", "default": false, "ref": "larkspur/docs"},
//!  "voice": {"name": "Larkspur", "source": ".kapi/voice.yaml", "field": "defaults.voice",
//!            "guide": "# Voice Guide: Larkspur\n…"},
//!  "terms": {"use": [{"text": "sign in", …}], "avoid": [{"text": "login", "replacement": "sign in", …}]},
//!  "terms_total": 18, "windows": [{"profile": "classic", "valid_to": "2026-01-01", "state": "expired"}],
//!  "fingerprint": "g…", "notes": ["…"]}
//! ```

use std::path::PathBuf;

use kapi_core::governance::{Governance, TermEntry, load as governance_load};
use kapi_core::project::Project;
use kapi_core::project::resolve::{Resolver, Window};
use serde::Serialize;

use crate::app::{App, normalize, relative_to};
use crate::error::HostError;

/// What to brief.
#[derive(Debug, Clone, Default)]
pub struct ContextRequest {
    pub path: Option<PathBuf>,
    pub profile: Option<String>,
    /// Narrows terms to one language (default: the point's source language).
    pub locale: Option<String>,
    /// Most terms listed in each group (default 25).
    pub limit: Option<usize>,
}

/// The point as the brief reports it.
#[derive(Debug, Clone, Serialize)]
pub struct PointView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    pub default: bool,
    #[serde(rename = "ref")]
    pub reference: String,
    pub language: String,
}

/// The voice in force.
#[derive(Debug, Clone, Serialize)]
pub struct VoiceView {
    pub name: String,
    pub source: String,
    pub field: String,
    /// The full voice guide, markdown.
    pub guide: String,
}

/// Terms to use and to avoid at the point.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TermsView {
    #[serde(rename = "use")]
    pub use_: Vec<TermEntry>,
    pub avoid: Vec<TermEntry>,
}

/// The brief: `kapi.context/v1`.
#[derive(Debug, Clone, Serialize)]
pub struct ContextAnswer {
    pub schema: &'static str,
    /// `project` (a recipe stands behind the answer) or `none` (no project: hygiene only).
    pub scope: &'static str,
    pub point: PointView,
    pub voice: Option<VoiceView>,
    pub terms: TermsView,
    /// Terms in force before the limit.
    pub terms_total: usize,
    pub windows: Vec<Window>,
    pub fingerprint: String,
    pub notes: Vec<String>,
}

/// Answers what governs a path or a profile.
pub fn context(app: &App, request: &ContextRequest) -> Result<ContextAnswer, HostError> {
    let project = app.project()?;
    let limit = request.limit.unwrap_or(25);
    let mut notes = Vec::new();
    let Some(project) = project else {
        if request.profile.is_some() {
            return Err(HostError::NoProject {
                searched: app.cwd.clone(),
            });
        }
        let path = request.path.as_ref().map(|p| p.display().to_string());
        notes.push("no kapi project here: only the hygiene rules apply; run `kapi init` to give this folder a voice and terms".to_owned());
        let empty = Governance::empty();
        return Ok(ContextAnswer {
            schema: "kapi.context/v1",
            scope: "none",
            point: PointView {
                path,
                profile: None,
                channel: None,
                collection: None,
                default: true,
                reference: "default".into(),
                language: request.locale.clone().unwrap_or_else(|| "en".into()),
            },
            voice: None,
            terms: TermsView::default(),
            terms_total: 0,
            windows: Vec::new(),
            fingerprint: empty.fingerprint,
            notes,
        });
    };
    let resolver = Resolver::new(&project, app.now);
    let point = match (&request.profile, &request.path) {
        (Some(profile), _) => resolver.resolve_profile(profile)?,
        (None, Some(path)) => {
            let rel = project_relative(app, &project, path)?;
            resolver.resolve_path(&rel)
        }
        (None, None) => {
            return Err(HostError::Usage {
                message: "name a PATH or a `--profile`".into(),
                hint: Some(
                    "run `kapi context docs/intro.md` or `kapi context --profile NAME`".into(),
                ),
            });
        }
    };
    let language = request
        .locale
        .clone()
        .unwrap_or_else(|| point.source_language.clone());
    let governance = governance_load::load(&project.root, &point, &language)?;
    if let Some(fallback) = &point.fallback {
        notes.push(fallback.note());
    }
    notes.extend(governance.notes.iter().cloned());
    let voice = match (&governance.voice, &point.voice) {
        (Some(voice), Some(binding)) => Some(VoiceView {
            name: voice.name.clone(),
            source: binding.source.clone(),
            field: binding.field.clone(),
            guide: voice.guide(),
        }),
        _ => {
            notes.push("no voice profile is bound at this point: add `defaults.voice` to `kapi.yaml` or create `.kapi/voice.yaml`".into());
            None
        }
    };
    let mut terms = TermsView::default();
    let mut sorted: Vec<&TermEntry> = governance.terms.iter().collect();
    sorted.sort_by(|a, b| {
        (rank(a), a.text.to_lowercase(), &a.lang).cmp(&(rank(b), b.text.to_lowercase(), &b.lang))
    });
    let total = sorted.len();
    for entry in sorted {
        let group = if entry.status.discouraged() {
            &mut terms.avoid
        } else {
            &mut terms.use_
        };
        if group.len() < limit {
            group.push(entry.clone());
        }
    }
    let shown = terms.avoid.len() + terms.use_.len();
    if total == 0 {
        notes.push("no terms are bound here: add concepts to `.kapi/terms.yaml`".into());
    } else if shown < total {
        notes.push(format!(
            "showing {shown} of {total} terms; ask `kapi context search WORD` for one"
        ));
    }
    Ok(ContextAnswer {
        schema: "kapi.context/v1",
        scope: "project",
        point: PointView {
            path: point.path.clone(),
            profile: point.profile.clone(),
            channel: point.channel.clone(),
            collection: point.collection.clone(),
            default: point.default,
            reference: point.reference(),
            language,
        },
        voice,
        terms,
        terms_total: total,
        windows: resolver.windows(),
        fingerprint: governance.fingerprint.clone(),
        notes,
    })
}

fn rank(entry: &TermEntry) -> u8 {
    use kapi_core::governance::TermStatus::*;
    match entry.status {
        Competitor => 0,
        Forbidden => 1,
        Deprecated => 2,
        Preferred => 3,
        Admitted => 4,
        Suggested => 5,
    }
}

/// A path named by the caller, relative to the project root: read against the working
/// directory when that is inside the project, else against the root. Outside is refused.
fn project_relative(
    app: &App,
    project: &Project,
    path: &std::path::Path,
) -> Result<String, HostError> {
    let base = if app.cwd.starts_with(&project.root) {
        app.cwd.clone()
    } else {
        project.root.clone()
    };
    let abs = normalize(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    });
    relative_to(&abs, &project.root).ok_or_else(|| HostError::OutsideProject {
        path: path.to_path_buf(),
        root: project.root.clone(),
    })
}

impl ContextAnswer {
    /// The markdown brief (the bytes `context://PATH` serves).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let title = self
            .point
            .path
            .clone()
            .or_else(|| self.point.profile.clone().map(|p| format!("profile {p}")));
        out.push_str(&format!(
            "# Context at {}\n\n",
            title.unwrap_or_else(|| "this project".into())
        ));
        if self.scope == "none" {
            out.push_str("No kapi project governs this location.\n");
        } else if self.point.default {
            out.push_str(
                "This location sits at the project's default point: no profile claims it.\n",
            );
        } else {
            let mut line = format!("Point `{}`", self.point.reference);
            let mut parts = Vec::new();
            if let Some(p) = &self.point.profile {
                parts.push(format!("profile `{p}`"));
            }
            if let Some(c) = &self.point.channel {
                parts.push(format!("channel `{c}`"));
            }
            if let Some(c) = &self.point.collection {
                parts.push(format!("collection `{c}`"));
            }
            if !parts.is_empty() {
                line.push_str(": ");
                line.push_str(&parts.join(", "));
            }
            out.push_str(&line);
            out.push_str(".\n");
        }
        out.push_str(&format!(
            "Language `{}`. Governance fingerprint `{}`.\n",
            self.point.language, self.fingerprint
        ));
        if let Some(voice) = &self.voice {
            out.push_str(&format!(
                "Voice `{}`, bound by `{}` ({}).\n\n",
                voice.name, voice.field, voice.source
            ));
            out.push_str(&demote(&voice.guide));
            if !voice.guide.ends_with('\n') {
                out.push('\n');
            }
        }
        out.push('\n');
        if !self.terms.avoid.is_empty() {
            out.push_str("## Terms to avoid\n\n");
            for t in &self.terms.avoid {
                let mut line = format!("- ~~{}~~", t.text);
                if let Some(r) = &t.replacement {
                    line.push_str(&format!(" → say **{r}**"));
                }
                line.push_str(&format!(" ({}, {})", t.lang, t.status.as_str()));
                if let Some(n) = &t.note {
                    line.push_str(&format!(" — {n}"));
                }
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        if !self.terms.use_.is_empty() {
            out.push_str("## Terms to use\n\n");
            for t in &self.terms.use_ {
                let mut line = format!("- **{}** ({}, {})", t.text, t.lang, t.status.as_str());
                if let Some(n) = t.note.as_ref().or(t.definition.as_ref()) {
                    line.push_str(&format!(" — {n}"));
                }
                if t.case_sensitive {
                    line.push_str(" (case as written)");
                }
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        if !self.windows.is_empty() {
            out.push_str("## Governance windows\n\n");
            for w in &self.windows {
                let mut line = format!("- `{}`", w.profile);
                if let Some(from) = &w.valid_from {
                    line.push_str(&format!(" from {from}"));
                }
                if let Some(to) = &w.valid_to {
                    line.push_str(&format!(" until {to}"));
                }
                line.push_str(&format!(" ({})", w.state));
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("## Notes\n\n");
            for n in &self.notes {
                out.push_str(&format!("- {n}\n"));
            }
            out.push('\n');
        }
        out.push_str("Check your changes with `kapi check PATH`.\n");
        out
    }
}

/// Demotes every markdown heading one level, leaving fenced code alone.
fn demote(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len() + 16);
    let mut fenced = false;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demote_adds_one_level_outside_fences() {
        assert_eq!(
            demote("# A\n```\n# not\n```\n## B\n"),
            "## A\n```\n# not\n```\n### B\n"
        );
    }
}
