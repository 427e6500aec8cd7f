//! Loading governance for a point: read the bound voice and terms files, resolve the voice for
//! the channel and language, merge the terms, and compile matcher, patterns and fingerprint.

use std::collections::HashSet;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::{GovernanceError, Problem};
use super::terms::TermsFile;
use super::voice::{TermRule, VoiceProfile};
use super::{
    Constraints, Governance, PatternRule, Severity, TermEntry, TermMatcher, TermOrigin, TermStatus,
};
use crate::project::Point;

/// Terms files kapi looks for by convention; a missing one is skipped, not an error.
const CONVENTIONAL_TERMS: [&str; 2] = [crate::project::layout::TERMS_FILE, "terms.yaml"];

/// Everything that governs `point` for text in `lang`.
///
/// Terms files are read most specific first; for the same text and language the first wins,
/// then the voice's forbidden, competitor and preferred vocabulary join unless already declared.
pub fn load(root: &Path, point: &Point, lang: &str) -> Result<Governance, GovernanceError> {
    let mut notes = Vec::new();
    let (voice, voice_source) = match &point.voice {
        Some(binding) => {
            let display = if binding.source.is_empty() {
                shown(root, &binding.path)
            } else {
                binding.source.clone()
            };
            let text = read(&binding.path, &display, Some(&binding.field))?;
            let profile = VoiceProfile::parse(&text, &display)?;
            if let Some(channel) = &point.channel
                && !profile.channels.contains_key(channel)
                && !profile.channels.is_empty()
            {
                notes.push(format!(
                    "voice `{}` has no override for channel `{channel}`; its base tone and style apply",
                    profile.name
                ));
            }
            (
                Some(profile.resolve(point.channel.as_deref(), Some(lang))),
                Some(display),
            )
        }
        None => (None, None),
    };

    let mut terms: Vec<TermEntry> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for (i, path) in point.terms.iter().enumerate() {
        let display = point
            .terms_sources
            .get(i)
            .cloned()
            .unwrap_or_else(|| shown(root, path));
        if !path.exists() && is_conventional(&display) {
            continue;
        }
        let text = read(path, &display, None)?;
        let file = TermsFile::parse(&text, &display)?;
        for entry in file.entries_in(lang, &text, &display) {
            if seen.insert(key(&entry)) {
                terms.push(entry);
            }
        }
    }

    if let Some(v) = &voice {
        let lists: [(&[TermRule], TermStatus); 3] = [
            (&v.vocabulary.forbidden, TermStatus::Forbidden),
            (&v.vocabulary.competitor, TermStatus::Competitor),
            (&v.vocabulary.preferred, TermStatus::Preferred),
        ];
        for (rules, status) in lists {
            for rule in rules {
                let entry = voice_entry(rule, status, lang);
                if seen.insert(key(&entry)) {
                    terms.push(entry);
                }
            }
        }
    }

    let (prohibited, required, constraints) = match &voice {
        Some(v) => compile(v, voice_source.as_deref().unwrap_or(""))?,
        None => (Vec::new(), Vec::new(), Constraints::default()),
    };
    Ok(Governance {
        matcher: TermMatcher::new(&terms),
        fingerprint: fingerprint_of(voice.as_ref(), &terms),
        unassessed: voice
            .as_ref()
            .map(VoiceProfile::unassessed)
            .unwrap_or_default(),
        voice,
        voice_source,
        terms,
        prohibited,
        required,
        constraints,
        notes,
    })
}

/// Reads and validates one voice file.
pub fn load_voice(path: &Path) -> Result<VoiceProfile, GovernanceError> {
    let display = path.display().to_string();
    VoiceProfile::parse(&read(path, &display, None)?, &display)
}

/// Reads and validates one terms file.
pub fn load_terms(path: &Path) -> Result<TermsFile, GovernanceError> {
    let display = path.display().to_string();
    TermsFile::parse(&read(path, &display, None)?, &display)
}

/// `g` + 16 hex of SHA-256 over the resolved voice and the terms in force (sorted), so the
/// same governance always gives the same fingerprint whatever the order of the files.
pub fn fingerprint_of(voice: Option<&VoiceProfile>, terms: &[TermEntry]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"kapi.governance/v1\n");
    let voice_json = voice
        .and_then(|v| serde_json::to_string(v).ok())
        .unwrap_or_else(|| "null".to_owned());
    hasher.update(voice_json.as_bytes());
    hasher.update(b"\n");
    let mut lines: Vec<String> = terms
        .iter()
        .filter_map(|t| serde_json::to_string(t).ok())
        .collect();
    lines.sort();
    for line in lines {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    let digest = hasher.finalize();
    let mut out = String::from("g");
    for byte in digest.iter().take(8) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

type Compiled = (Vec<PatternRule>, Vec<PatternRule>, Constraints);

fn compile(voice: &VoiceProfile, file: &str) -> Result<Compiled, GovernanceError> {
    let mut problems = Vec::new();
    let mut rules = |list: &str, specs: &[super::voice::PatternSpec]| -> Vec<PatternRule> {
        let mut out = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let field = format!("style.{list}[{i}]");
            match regex::Regex::new(&spec.regex) {
                Ok(regex) => out.push(PatternRule {
                    regex,
                    description: spec.description.clone(),
                    severity: spec.severity.unwrap_or(Severity::Major),
                    field,
                }),
                Err(e) => problems.push(Problem::new(
                    format!("{field}.regex"),
                    format!("invalid regex: {e}"),
                )),
            }
        }
        out
    };
    let prohibited = rules("prohibited_patterns", &voice.style.prohibited_patterns);
    let required = rules("required_patterns", &voice.style.required_patterns);
    if !problems.is_empty() {
        return Err(GovernanceError::Invalid {
            file: file.to_owned(),
            problems,
        });
    }
    let constraints = match &voice.style.constraints {
        Some(c) => Constraints {
            max_sentence_words: c.max_sentence_words,
            max_paragraph_sentences: c.max_paragraph_sentences,
            severity: c.severity.unwrap_or(Severity::Minor),
        },
        None => Constraints::default(),
    };
    Ok((prohibited, required, constraints))
}

fn voice_entry(rule: &TermRule, status: TermStatus, lang: &str) -> TermEntry {
    TermEntry {
        text: rule.term.trim().to_owned(),
        lang: lang.to_owned(),
        status,
        case_sensitive: false,
        replacement: if status.discouraged() {
            rule.replacement.clone()
        } else {
            None
        },
        note: rule.note.clone(),
        concept: None,
        definition: None,
        severity: rule.severity,
        origin: TermOrigin::Voice,
        exceptions: Vec::new(),
    }
}

/// Same text (folded unless case-sensitive) and same language means the same term.
fn key(entry: &TermEntry) -> (String, String) {
    let text = entry.text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = if entry.case_sensitive {
        format!("={text}")
    } else {
        text.to_lowercase()
    };
    (text, entry.lang.to_ascii_lowercase())
}

fn is_conventional(display: &str) -> bool {
    let display = display.replace('\\', "/");
    CONVENTIONAL_TERMS.contains(&display.as_str())
        || (display
            .strip_prefix(crate::project::layout::PROFILES_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
            && display.ends_with("/terms.yaml"))
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn read(path: &Path, display: &str, field: Option<&str>) -> Result<String, GovernanceError> {
    std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            GovernanceError::NotFound {
                file: display.to_owned(),
                field: field.map(str::to_owned),
            }
        } else {
            GovernanceError::Unreadable {
                file: display.to_owned(),
                source,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::project::VoiceBinding;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/governance")
    }

    fn point(voice: Option<&str>, terms: &[&str], channel: Option<&str>) -> Point {
        let root = fixtures();
        Point {
            channel: channel.map(str::to_owned),
            voice: voice.map(|v| VoiceBinding {
                path: root.join(v),
                source: v.to_owned(),
                field: "defaults.voice".to_owned(),
            }),
            terms: terms.iter().map(|t| root.join(t)).collect(),
            terms_sources: terms.iter().map(|t| (*t).to_owned()).collect(),
            ..Point::default()
        }
    }

    #[test]
    fn load_merges_voice_and_terms_for_a_language() {
        let p = point(
            Some("voice/full.yaml"),
            &["terms/profile.yaml", "terms/terms.yaml"],
            Some("blog"),
        );
        let g = load(&fixtures(), &p, "en").expect("loads");
        let texts: Vec<(&str, TermStatus, TermOrigin)> = g
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.status, t.origin))
            .collect();
        assert_eq!(
            texts,
            [
                ("Login", TermStatus::Forbidden, TermOrigin::Terms),
                ("sign in", TermStatus::Preferred, TermOrigin::Terms),
                ("GitHub", TermStatus::Preferred, TermOrigin::Terms),
                ("e-mail", TermStatus::Deprecated, TermOrigin::Terms),
                ("email", TermStatus::Admitted, TermOrigin::Terms),
                ("utilize", TermStatus::Forbidden, TermOrigin::Voice),
                ("Confluence", TermStatus::Competitor, TermOrigin::Voice),
            ]
        );
        assert_eq!(
            g.voice.as_ref().and_then(|v| v.channel.as_deref()),
            Some("blog")
        );
        assert_eq!(g.voice_source.as_deref(), Some("voice/full.yaml"));
        assert_eq!(g.prohibited.len(), 1);
        assert_eq!(g.prohibited[0].severity, Severity::Minor);
        assert_eq!(g.prohibited[0].field, "style.prohibited_patterns[0]");
        assert_eq!(g.required.len(), 1);
        assert_eq!(g.constraints.max_sentence_words, Some(30));
        assert!(
            g.unassessed
                .iter()
                .any(|u| u.guidance == "tone.formality" && u.value == "casual")
        );
        let found = g.matcher.find("Please login to utilize Confluence");
        let hits: Vec<&str> = found
            .iter()
            .map(|m| g.terms[m.entry].text.as_str())
            .collect();
        assert_eq!(hits, ["Login", "utilize", "Confluence"]);
        assert!(g.fingerprint.starts_with('g') && g.fingerprint.len() == 17);
    }

    #[test]
    fn missing_named_file_is_an_error_and_conventional_one_is_skipped() {
        let p = point(None, &["terms/nope.yaml"], None);
        let err = load(&fixtures(), &p, "en").expect_err("missing");
        assert_eq!(err.to_string(), "terms/nope.yaml: file not found");
        let p = point(Some("voice/nope.yaml"), &[], None);
        let err = load(&fixtures(), &p, "en").expect_err("missing");
        assert!(crate::Hint::hints(&err)[0].contains("`defaults.voice`"));
        let mut p = point(None, &[], None);
        p.terms = vec![fixtures().join("absent/.kapi/terms.yaml")];
        p.terms_sources = vec![".kapi/terms.yaml".to_owned()];
        let g = load(&fixtures(), &p, "en").expect("skipped");
        assert!(g.terms.is_empty());
        assert_eq!(g.fingerprint, Governance::empty().fingerprint);
    }

    #[test]
    fn fingerprint_ignores_order_and_sees_changes() {
        let g = load(&fixtures(), &point(None, &["terms/terms.yaml"], None), "en").expect("loads");
        let mut reversed = g.terms.clone();
        reversed.reverse();
        assert_eq!(
            fingerprint_of(None, &g.terms),
            fingerprint_of(None, &reversed)
        );
        assert_ne!(
            fingerprint_of(None, &g.terms),
            fingerprint_of(None, &g.terms[1..])
        );
        let voice = load_voice(&fixtures().join("voice/full.yaml")).expect("loads");
        assert_ne!(
            fingerprint_of(Some(&voice), &g.terms),
            fingerprint_of(None, &g.terms)
        );
        assert_eq!(fingerprint_of(None, &[]), fingerprint_of(None, &[]));
    }

    #[test]
    fn load_terms_and_load_voice_read_single_files() {
        assert!(load_terms(&fixtures().join("terms/terms.yaml")).is_ok());
        let err = load_voice(&fixtures().join("voice/bad.yaml")).expect_err("invalid");
        let shown = err.to_string();
        assert!(
            shown.contains("bad.yaml:5:7: style.prohibited_patterns[0].regex: invalid regex"),
            "{shown}"
        );
    }
}
