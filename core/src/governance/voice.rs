//! Voice profiles (`.kapi/voice.yaml`): the strict schema, its validation, channel and locale
//! resolution, the rendered guide, and the guidance no analyzer can check.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::Severity;
use super::error::{self, GovernanceError, Problem};

macro_rules! choice {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }
        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }
    };
}

choice!(
    /// `tone.formality`.
    Formality { Casual => "casual", Neutral => "neutral", Formal => "formal", Technical => "technical" }
);
choice!(
    /// `tone.emotion`.
    Emotion { Warm => "warm", Neutral => "neutral", Authoritative => "authoritative" }
);
choice!(
    /// `tone.humor`.
    Humor { None => "none", Light => "light", Frequent => "frequent" }
);
choice!(
    /// `style.sentence_length`.
    SentenceLength { Short => "short", Medium => "medium", Varied => "varied" }
);
choice!(
    /// `style.person_pov`.
    PersonPov { FirstPlural => "first_plural", Second => "second", Third => "third" }
);
choice!(
    /// `style.contractions`.
    Contractions { Always => "always", Sometimes => "sometimes", Never => "never" }
);
choice!(
    /// `examples[].category`.
    ExampleCategory { Tone => "tone", Style => "style", Vocabulary => "vocabulary" }
);

/// A voice profile as written, or (after `resolve`) as in force at a channel and locale.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceProfile {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Tone::is_empty")]
    pub tone: Tone,
    #[serde(default, skip_serializing_if = "Style::is_empty")]
    pub style: Style,
    #[serde(default, skip_serializing_if = "Vocabulary::is_empty")]
    pub vocabulary: Vocabulary,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Example>,
    /// Per channel slug: tone and/or style that replace the base ones wholesale.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub channels: BTreeMap<String, ChannelOverride>,
    /// Per BCP 47 tag (or bare language): adjustments for text in that language.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub locales: BTreeMap<String, LocaleOverride>,
    /// The compliance bar, 0 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<u32>,
    /// Set by `resolve`: the channel whose override applied (never read from the file).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Set by `resolve`: the `locales` key that applied (never read from the file).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// Set by `resolve`: the applied locale's `notes` (never read from the file).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub locale_notes: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tone {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub personality: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formality: Option<Formality>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotion: Option<Emotion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub humor: Option<Humor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guidelines: Option<String>,
}

impl Tone {
    pub fn is_empty(&self) -> bool {
        *self == Tone::default()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Style {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_voice: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence_length: Option<SentenceLength>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_pov: Option<PersonPov>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contractions: Option<Contractions>,
    /// Checked in every block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prohibited_patterns: Vec<PatternSpec>,
    /// Checked once per document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_patterns: Vec<PatternSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<ConstraintSpec>,
}

impl Style {
    pub fn is_empty(&self) -> bool {
        *self == Style::default()
    }
}

/// A `prohibited_patterns` or `required_patterns` rule as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternSpec {
    #[serde(default)]
    pub regex: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
}

/// `style.constraints` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sentence_words: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_paragraph_sentences: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// Guidance only.
    #[serde(
        default,
        alias = "preferred_terms",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub preferred: Vec<TermRule>,
    /// `terms.forbidden`, default major.
    #[serde(
        default,
        alias = "forbidden_terms",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub forbidden: Vec<TermRule>,
    /// `terms.competitor`, default critical.
    #[serde(
        default,
        alias = "competitor_terms",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub competitor: Vec<TermRule>,
}

impl Vocabulary {
    pub fn is_empty(&self) -> bool {
        self.preferred.is_empty() && self.forbidden.is_empty() && self.competitor.is_empty()
    }
}

/// One vocabulary rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermRule {
    #[serde(default)]
    pub term: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    #[serde(default)]
    pub before: String,
    #[serde(default)]
    pub after: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<ExampleCategory>,
}

/// `channels.<slug>`: each part given replaces the base one wholesale.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<Tone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Style>,
}

/// `locales.<tag>`: scalars overwrite the base; `vocabulary` is appended to preferred terms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocaleOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formality: Option<Formality>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub humor: Option<Humor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_pov: Option<PersonPov>,
    #[serde(
        default,
        alias = "cultural_notes",
        skip_serializing_if = "Option::is_none"
    )]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vocabulary: Vec<TermRule>,
}

impl VoiceProfile {
    /// Parses and validates a voice file; `path` is how errors name it.
    pub fn parse(text: &str, path: &str) -> Result<VoiceProfile, GovernanceError> {
        error::parse_validated(text, path, VoiceProfile::validate)
    }

    /// Every problem the schema cannot express: empty name or terms, bad regexes, examples
    /// without before or after, `min_score` above 100. Field paths, no locations.
    pub fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if self.name.trim().is_empty() {
            problems
                .push(Problem::new("name", "must not be empty").with_hint("give the voice a name"));
        }
        validate_style(&self.style, "style", &mut problems);
        for (list, rules) in [
            ("preferred", &self.vocabulary.preferred),
            ("forbidden", &self.vocabulary.forbidden),
            ("competitor", &self.vocabulary.competitor),
        ] {
            validate_rules(rules, &format!("vocabulary.{list}"), &mut problems);
        }
        for (i, example) in self.examples.iter().enumerate() {
            for (part, value) in [("before", &example.before), ("after", &example.after)] {
                if value.trim().is_empty() {
                    problems.push(
                        Problem::new(format!("examples[{i}].{part}"), "must not be empty")
                            .with_hint("give every example both `before` and `after`"),
                    );
                }
            }
        }
        for (slug, channel) in &self.channels {
            if let Some(style) = &channel.style {
                validate_style(style, &format!("channels.{slug}.style"), &mut problems);
            }
        }
        for (tag, locale) in &self.locales {
            validate_rules(
                &locale.vocabulary,
                &format!("locales.{tag}.vocabulary"),
                &mut problems,
            );
        }
        if let Some(score) = self.min_score
            && score > 100
        {
            problems.push(
                Problem::new(
                    "min_score",
                    format!("must be between 0 and 100, found {score}"),
                )
                .with_hint("set `min_score` between 0 and 100"),
            );
        }
        problems
    }

    /// The profile in force at a channel and for a language: the channel's `tone`/`style`
    /// replace the base wholesale, then the locale (exact tag, else bare language) overwrites
    /// scalars and appends its vocabulary to the preferred terms. `channels` and `locales` are
    /// emptied; `channel`, `locale` and `locale_notes` record what applied.
    pub fn resolve(&self, channel: Option<&str>, locale: Option<&str>) -> VoiceProfile {
        let mut out = self.clone();
        out.channels = BTreeMap::new();
        out.locales = BTreeMap::new();
        out.channel = None;
        out.locale = None;
        out.locale_notes = None;
        if let Some(slug) = channel
            && let Some(over) = self.channels.get(slug)
        {
            if let Some(tone) = &over.tone {
                out.tone = tone.clone();
            }
            if let Some(style) = &over.style {
                out.style = style.clone();
            }
            out.channel = Some(slug.to_owned());
        }
        if let Some(tag) = locale
            && let Some((key, over)) = self.locale_for(tag)
        {
            if let Some(f) = over.formality {
                out.tone.formality = Some(f);
            }
            if let Some(h) = over.humor {
                out.tone.humor = Some(h);
            }
            if let Some(p) = over.person_pov {
                out.style.person_pov = Some(p);
            }
            out.vocabulary
                .preferred
                .extend(over.vocabulary.iter().cloned());
            out.locale = Some(key.to_owned());
            out.locale_notes.clone_from(&over.notes);
        }
        out
    }

    /// The `locales` entry for a tag: exact, then case- and separator-insensitive, then the
    /// bare language (`de` for `de-AT`).
    pub fn locale_for(&self, tag: &str) -> Option<(&str, &LocaleOverride)> {
        if let Some((k, v)) = self.locales.get_key_value(tag) {
            return Some((k, v));
        }
        let norm = |t: &str| t.replace('_', "-").to_ascii_lowercase();
        let wanted = norm(tag);
        let bare = wanted.split('-').next().unwrap_or("").to_owned();
        let find = |w: &str| self.locales.iter().find(|(k, _)| norm(k) == w);
        find(&wanted)
            .or_else(|| find(&bare))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The deterministic markdown guide (`kapi voice guide`, `kapi context`, prompts).
    pub fn guide(&self) -> String {
        let mut out = format!("# Voice Guide: {}\n", self.name);
        if let Some(d) = self
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            let _ = write!(out, "\n{d}\n");
        }
        section(&mut out, "## Tone", &self.guide_tone());
        section(&mut out, "## Style Rules", &self.guide_style());
        self.guide_vocabulary(&mut out);
        self.guide_examples(&mut out);
        out
    }

    /// The guide's `## Tone` lines: tone settings, then the locale's notes.
    fn guide_tone(&self) -> Vec<String> {
        let t = &self.tone;
        let mut tone = Vec::new();
        if !t.personality.is_empty() {
            tone.push(format!("Personality: {}", t.personality.join(", ")));
        }
        if let Some(v) = t.formality {
            tone.push(format!("Formality: {}", v.as_str()));
        }
        if let Some(v) = t.emotion {
            tone.push(format!("Emotion: {}", v.as_str()));
        }
        if let Some(v) = t.humor {
            tone.push(format!("Humor: {}", v.as_str()));
        }
        if let Some(v) = t
            .guidelines
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            tone.push(format!("Guidelines: {v}"));
        }
        if let Some(v) = self
            .locale_notes
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            tone.push(format!("Locale notes: {v}"));
        }
        tone
    }

    /// The guide's `## Style Rules` lines: style settings, patterns and constraints.
    fn guide_style(&self) -> Vec<String> {
        let s = &self.style;
        let mut style = Vec::new();
        if s.active_voice == Some(true) {
            style.push("Use the active voice".to_owned());
        }
        if let Some(v) = s.sentence_length {
            style.push(format!("Sentence length: {}", v.as_str()));
        }
        if let Some(v) = s.person_pov {
            let pov = match v {
                PersonPov::FirstPlural => "first person plural (we)",
                PersonPov::Second => "second person (you)",
                PersonPov::Third => "third person",
            };
            style.push(format!("Point of view: {pov}"));
        }
        if let Some(v) = s.contractions {
            style.push(format!("Contractions: {}", v.as_str()));
        }
        for p in &s.prohibited_patterns {
            style.push(format!(
                "Avoid: {} ({})",
                pattern_label(p),
                p.severity.unwrap_or(Severity::Major).as_str()
            ));
        }
        for p in &s.required_patterns {
            style.push(format!(
                "Required in every document: {} ({})",
                pattern_label(p),
                p.severity.unwrap_or(Severity::Major).as_str()
            ));
        }
        if let Some(c) = &s.constraints {
            let sev = c.severity.unwrap_or(Severity::Minor).as_str();
            if let Some(n) = c.max_sentence_words {
                style.push(format!("Sentences of at most {n} words ({sev})"));
            }
            if let Some(n) = c.max_paragraph_sentences {
                style.push(format!("Paragraphs of at most {n} sentences ({sev})"));
            }
        }
        style
    }

    /// The guide's `## Vocabulary` section (preferred, forbidden, competitor), when any is set.
    fn guide_vocabulary(&self, out: &mut String) {
        let v = &self.vocabulary;
        if v.is_empty() {
            return;
        }
        out.push_str("\n## Vocabulary\n");
        let preferred: Vec<String> = v
            .preferred
            .iter()
            .map(|r| with_note(format!("**{}**", r.term), r))
            .collect();
        section(out, "### Preferred", &preferred);
        let avoid = |rules: &[TermRule]| -> Vec<String> {
            rules
                .iter()
                .map(|r| {
                    let mut line = format!("~~{}~~", r.term);
                    if let Some(x) = r.replacement.as_deref().filter(|x| !x.trim().is_empty()) {
                        let _ = write!(line, " → use **{x}**");
                    }
                    with_note(line, r)
                })
                .collect()
        };
        section(out, "### Forbidden", &avoid(&v.forbidden));
        section(out, "### Competitor terms to avoid", &avoid(&v.competitor));
    }

    /// The guide's numbered `## Examples` (before, after, why), when any is given.
    fn guide_examples(&self, out: &mut String) {
        if self.examples.is_empty() {
            return;
        }
        out.push_str("\n## Examples\n\n");
        for (i, e) in self.examples.iter().enumerate() {
            let _ = write!(out, "{}. ", i + 1);
            if let Some(c) = e.category {
                let _ = write!(out, "({}) ", c.as_str());
            }
            let _ = writeln!(out, "Before: \"{}\"", one_line(&e.before));
            let _ = writeln!(out, "   After: \"{}\"", one_line(&e.after));
            if let Some(x) = e.explanation.as_deref().filter(|x| !x.trim().is_empty()) {
                let _ = writeln!(out, "   Why: {}", one_line(x));
            }
        }
    }

    /// Every piece of guidance in force that no analyzer checks, in a fixed order; only what is
    /// set. Patterns, constraints and forbidden/competitor vocabulary are checked, so absent.
    pub fn unassessed(&self) -> Vec<super::Unassessed> {
        let mut out = Vec::new();
        let mut add = |guidance: &str, value: String| {
            out.push(super::Unassessed {
                guidance: guidance.to_owned(),
                value,
            });
        };
        let t = &self.tone;
        if !t.personality.is_empty() {
            add("tone.personality", t.personality.join(", "));
        }
        if let Some(v) = t.formality {
            add("tone.formality", v.as_str().to_owned());
        }
        if let Some(v) = t.emotion {
            add("tone.emotion", v.as_str().to_owned());
        }
        if let Some(v) = t.humor {
            add("tone.humor", v.as_str().to_owned());
        }
        if let Some(v) = t
            .guidelines
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            add("tone.guidelines", v.to_owned());
        }
        let s = &self.style;
        if let Some(v) = s.active_voice {
            add("style.active_voice", v.to_string());
        }
        if let Some(v) = s.sentence_length {
            add("style.sentence_length", v.as_str().to_owned());
        }
        if let Some(v) = s.person_pov {
            add("style.person_pov", v.as_str().to_owned());
        }
        if let Some(v) = s.contractions {
            add("style.contractions", v.as_str().to_owned());
        }
        let preferred = &self.vocabulary.preferred;
        if !preferred.is_empty() {
            let value = if preferred.len() <= 10 {
                preferred
                    .iter()
                    .map(|r| r.term.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                format!("{} terms", preferred.len())
            };
            add("vocabulary.preferred", value);
        }
        if !self.examples.is_empty() {
            let n = self.examples.len();
            add(
                "examples",
                format!("{n} example{}", if n == 1 { "" } else { "s" }),
            );
        }
        if let (Some(tag), Some(notes)) = (&self.locale, &self.locale_notes) {
            add(&format!("locales.{tag}.notes"), notes.trim().to_owned());
        }
        out
    }
}

fn validate_style(style: &Style, at: &str, problems: &mut Vec<Problem>) {
    for (list, specs) in [
        ("prohibited_patterns", &style.prohibited_patterns),
        ("required_patterns", &style.required_patterns),
    ] {
        for (i, spec) in specs.iter().enumerate() {
            let field = format!("{at}.{list}[{i}].regex");
            if spec.regex.is_empty() {
                problems.push(
                    Problem::new(field, "must not be empty")
                        .with_hint("give every pattern a `regex`"),
                );
            } else if let Err(e) = regex::Regex::new(&spec.regex) {
                problems.push(
                    Problem::new(field, format!("invalid regex: {}", regex_message(&e))).with_hint(
                        "fix the regex (Rust `regex` syntax; quote it with single quotes in YAML)",
                    ),
                );
            }
        }
    }
}

fn validate_rules(rules: &[TermRule], at: &str, problems: &mut Vec<Problem>) {
    for (i, rule) in rules.iter().enumerate() {
        if rule.term.trim().is_empty() {
            problems.push(
                Problem::new(format!("{at}[{i}].term"), "must not be empty")
                    .with_hint("give every vocabulary rule a `term`"),
            );
        }
    }
}

/// The last line of a regex error (the part that says what is wrong), lower-cased first letter.
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let last = last.strip_prefix("error: ").unwrap_or(last);
    last.to_owned()
}

fn pattern_label(p: &PatternSpec) -> String {
    match p
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(d) => d.to_owned(),
        None => format!("`{}`", p.regex),
    }
}

fn with_note(mut line: String, rule: &TermRule) -> String {
    if let Some(n) = rule
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        let _ = write!(line, " — {n}");
    }
    line
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn section(out: &mut String, heading: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = write!(out, "\n{heading}\n\n");
    for line in lines {
        let _ = writeln!(out, "- {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = include_str!("../../../testdata/governance/voice/full.yaml");

    fn parse(text: &str) -> Result<VoiceProfile, GovernanceError> {
        VoiceProfile::parse(text, ".kapi/voice.yaml")
    }

    #[test]
    fn full_documented_profile_parses() {
        let v = parse(FULL).expect("fixture parses");
        assert_eq!(v.name, "Handbook");
        assert_eq!(v.tone.formality, Some(Formality::Neutral));
        assert_eq!(v.style.prohibited_patterns.len(), 1);
        assert_eq!(
            v.vocabulary.forbidden[0].replacement.as_deref(),
            Some("use")
        );
        assert_eq!(v.min_score, Some(80));
    }

    #[test]
    fn legacy_vocabulary_keys_are_aliases() {
        let v = parse("name: x\nvocabulary:\n  preferred_terms: [{term: a}]\n  forbidden_terms: [{term: b}]\n  competitor_terms: [{term: c}]\n")
            .expect("parses");
        assert_eq!(v.vocabulary.preferred[0].term, "a");
        assert_eq!(v.vocabulary.forbidden[0].term, "b");
        assert_eq!(v.vocabulary.competitor[0].term, "c");
    }

    #[test]
    fn bad_files_are_refused_with_field_and_location() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str)] = &[
            ("name: x\nstyle:\n  prohibited_pattern: []\n", ".kapi/voice.yaml:3:3: style.prohibited_pattern: unknown field", "did you mean `prohibited_patterns`?"),
            ("name: x\ntone:\n  formality: formall\n", ".kapi/voice.yaml:3:14: tone.formality: unknown value `formall`", "did you mean `formal`?"),
            ("description: no name\n", ".kapi/voice.yaml:1:1: name: required field is missing", "add `name`"),
            ("name: x\nstyle:\n  prohibited_patterns:\n    - regex: 'a'\n    - regex: '(a'\n", ".kapi/voice.yaml:5:7: style.prohibited_patterns[1].regex: invalid regex: unclosed group", "fix the regex"),
            ("name: x\nvocabulary:\n  forbidden:\n    - term: ''\n", ".kapi/voice.yaml:4:7: vocabulary.forbidden[0].term: must not be empty", "give every"),
            ("name: x\nexamples:\n  - before: a\n", ".kapi/voice.yaml:3:3: examples[0].after: must not be empty", "give every example"),
            ("name: x\nmin_score: 101\n", ".kapi/voice.yaml:2:1: min_score: must be between 0 and 100, found 101", "set `min_score`"),
            ("name: x\nstyle: [\n", ".kapi/voice.yaml:2:8: style: invalid type: sequence", ""),
            ("name: 'x\n", ".kapi/voice.yaml:", "check"),
        ];
        for (text, message, hint) in cases {
            let err = parse(text).expect_err(message);
            let shown = err.to_string();
            assert!(
                shown.starts_with(message),
                "{shown:?} should start with {message:?}"
            );
            let hints = crate::Hint::hints(&err).join("\n");
            assert!(hints.contains(hint), "{hints:?} should contain {hint:?}");
        }
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let err = parse("name: ''\nexamples:\n  - {}\nmin_score: 200\n").expect_err("invalid");
        let fields: Vec<&str> = err.problems().iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "name",
                "examples[0].before",
                "examples[0].after",
                "min_score"
            ]
        );
    }

    #[test]
    fn channel_replaces_tone_and_locale_adjusts_it() {
        let v = parse(FULL).expect("parses");
        let cases = [
            (
                None,
                None,
                Some(Formality::Neutral),
                Some(Emotion::Warm),
                None,
                1,
            ),
            (
                Some("blog"),
                None,
                Some(Formality::Casual),
                Some(Emotion::Warm),
                None,
                1,
            ),
            (
                Some("docs"),
                None,
                Some(Formality::Neutral),
                Some(Emotion::Warm),
                None,
                1,
            ),
            (
                None,
                Some("de"),
                Some(Formality::Formal),
                Some(Emotion::Warm),
                Some("de"),
                2,
            ),
            (
                None,
                Some("de-AT"),
                Some(Formality::Formal),
                Some(Emotion::Warm),
                Some("de"),
                2,
            ),
            (
                Some("blog"),
                Some("de_at"),
                Some(Formality::Formal),
                Some(Emotion::Warm),
                Some("de"),
                2,
            ),
            (
                None,
                Some("fr"),
                Some(Formality::Neutral),
                Some(Emotion::Warm),
                None,
                1,
            ),
        ];
        for (channel, locale, formality, emotion, applied, preferred) in cases {
            let r = v.resolve(channel, locale);
            let what = format!("{channel:?} {locale:?}");
            assert_eq!(r.tone.formality, formality, "{what}");
            assert_eq!(r.tone.emotion, emotion, "{what}");
            assert_eq!(r.locale.as_deref(), applied, "{what}");
            assert_eq!(r.vocabulary.preferred.len(), preferred, "{what}");
            assert!(r.channels.is_empty() && r.locales.is_empty(), "{what}");
        }
        let blog = v.resolve(Some("blog"), None);
        assert_eq!(
            blog.tone.personality,
            Vec::<String>::new(),
            "tone is replaced wholesale"
        );
        assert_eq!(
            blog.style, v.style,
            "style is kept when the channel does not set it"
        );
    }

    #[test]
    fn guide_renders_every_section_deterministically() {
        let v = parse(FULL).expect("parses");
        let guide = v.guide();
        assert_eq!(guide, v.guide());
        for needle in [
            "# Voice Guide: Handbook\n\nHow we write the handbook.\n",
            "## Tone\n\n- Personality: direct, warm\n- Formality: neutral\n",
            "## Style Rules\n\n- Use the active voice\n",
            "- Avoid: Minimising words (minor)\n",
            "- Required in every document: Every page says where to get support (minor)\n",
            "- Sentences of at most 30 words (minor)\n",
            "### Preferred\n\n- **sign in** — Two words as a verb\n",
            "### Forbidden\n\n- ~~utilize~~ → use **use** — Plain words\n",
            "### Competitor terms to avoid\n\n- ~~Confluence~~\n",
            "## Examples\n\n1. (style) Before: \"Simply click the button!!\"\n   After: \"Select **Save**.\"\n   Why: Action first, no minimisers\n",
        ] {
            assert!(guide.contains(needle), "guide lacks {needle:?}:\n{guide}");
        }
        let minimal = parse("name: Bare\n").expect("parses").guide();
        assert_eq!(minimal, "# Voice Guide: Bare\n");
    }

    #[test]
    fn unassessed_lists_only_guidance_that_is_set_and_unchecked() {
        let v = parse(FULL).expect("parses").resolve(None, Some("de"));
        let got: Vec<(String, String)> = v
            .unassessed()
            .into_iter()
            .map(|u| (u.guidance, u.value))
            .collect();
        let want = [
            ("tone.personality", "direct, warm"),
            ("tone.formality", "formal"),
            ("tone.emotion", "warm"),
            ("tone.humor", "none"),
            ("tone.guidelines", "Lead with the action."),
            ("style.active_voice", "true"),
            ("style.sentence_length", "short"),
            ("style.person_pov", "second"),
            ("style.contractions", "sometimes"),
            ("vocabulary.preferred", "sign in, Anmelden"),
            ("examples", "1 example"),
            ("locales.de.notes", "Use \"Sie\"."),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(got, want);
        assert!(
            parse("name: Bare\n")
                .expect("parses")
                .unassessed()
                .is_empty()
        );
    }
}
