//! `voice_check`: the voice analyzer's findings alone on a text (`voice.*`), with the
//! guidance no analyzer checks. MCP's `voice_check` and `kapi check --text --only voice`.

use kapi_core::check::{Finding, Summary, Suppressed};
use kapi_core::governance::Unassessed;
use serde::Serialize;

use super::text_scope::{TextRequest, check_read, is_zero, render, scope, settle};
use crate::app::App;
use crate::error::HostError;

/// The voice in force, as a report names it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct VoiceRef {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `kapi.voice-check/v1`: the voice analyzer's findings alone.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct VoiceCheck {
    pub schema: &'static str,
    /// The voice in force; `null` when none is bound (nothing to check against).
    pub voice: Option<VoiceRef>,
    /// No `voice.*` finding fails the gate, and the score meets its minimum when one is set.
    pub pass: bool,
    pub summary: Summary,
    pub findings: Vec<Finding>,
    /// Findings the summary counts that `findings` does not hold (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: usize,
    /// Guidance in force that no analyzer checks: follow it yourself.
    pub unassessed: Vec<Unassessed>,
    /// Findings the project allows where they stand, each with what allowed it (absent when
    /// none; `summary.suppressed` counts every one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<Suppressed>,
    pub notes: Vec<String>,
}

/// Checks the request's text against the voice bound there.
pub fn voice_check(app: &App, mut request: TextRequest) -> Result<VoiceCheck, HostError> {
    let scope = scope(app, &request)?;
    let read = check_read(&mut request, &scope, &|rule| rule.analyzer() == "voice")?;
    let words = read.words;
    let (found, mut held, count) = read.settle(&scope.display, false);
    let (mut summary, pass, findings, truncated) = settle(found, &scope.gate, request.held());
    summary.suppressed = count;
    summary.words = words;
    held.truncate(request.held());
    let gov = &scope.governance;
    let mut notes = scope.notes.clone();
    if gov.voice.is_none() {
        notes.push("no voice profile is bound here: nothing to check the text against; add `defaults.voice` to `kapi.yaml` or create `.kapi/voice.yaml`".into());
    }
    Ok(VoiceCheck {
        schema: "kapi.voice-check/v1",
        voice: gov.voice.as_ref().map(|v| VoiceRef {
            name: v.name.clone(),
            source: gov.voice_source.clone(),
        }),
        pass,
        summary,
        findings,
        truncated,
        unassessed: gov.unassessed.clone(),
        suppressed: held,
        notes,
    })
}

impl VoiceCheck {
    /// The verdict and the voice, the findings, the guidance left to the reader, the notes.
    pub fn render(&self) -> String {
        let mut out = match &self.voice {
            Some(voice) => format!(
                "{} · voice {} · {} finding(s)\n",
                if self.pass { "PASS" } else { "FAIL" },
                voice.name,
                self.summary.findings
            ),
            None => "No voice is bound: nothing was checked.\n".to_owned(),
        };
        render::findings(&mut out, &self.findings);
        render::truncated(&mut out, self.truncated, self.findings.len());
        render::suppressed(&mut out, self.summary.suppressed);
        render::unassessed(
            &mut out,
            (self.unassessed.iter()).map(|u| (u.guidance.as_str(), u.value.as_str())),
        );
        render::notes(&mut out, &self.notes);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::text_scope::tests::{Fixture, at, rules};
    use super::*;

    #[test]
    fn voice_check_gives_the_voice_findings_alone() {
        let fx = Fixture::new();
        let good = voice_check(&fx.app(), at("Utilize it to login.\n", Some("docs/a.md"))).unwrap();
        assert!(good.pass && good.findings.is_empty(), "{good:?}");
        assert_eq!(good.voice.as_ref().map(|v| v.name.as_str()), Some("Test"));
        let bad = voice_check(&fx.app(), at("Simply utilize it.\n", Some("docs/a.md"))).unwrap();
        assert!(!bad.pass);
        assert_eq!(rules(&bad.findings), ["voice.prohibited-pattern"]);
        assert_eq!(bad.summary.major, 1);
        assert!(
            bad.render()
                .starts_with("FAIL · voice Test · 1 finding(s)\n")
        );
    }
}
