//! `kapi context search TERM`: what the project knows about a word — the term rules in every
//! language of every terms file and voice the project binds, the kept notes and pending
//! suggestions that mention it, and where it is in force. Markdown leads with a verdict per
//! term ("ok" or "avoid: say X"); JSON is `kapi.search/v1`.
//!
//! ```json
//! {"schema": "kapi.search/v1", "scope": "project", "query": "login",
//!  "terms": [{"text": "login", "lang": "en", "status": "deprecated", "concept": "sign-in",
//!             "replacement": "sign in", "source": ".kapi/terms.yaml",
//!             "verdict": "avoid: say \"sign in\""}],
//!  "terms_total": 1,
//!  "notes": [{"id": "n3", "path": "help", "line": "Write \"sign in\", not \"login\"."}],
//!  "pending": [{"id": "n4", "path": "docs", "line": "…", "evidence": 2, "signals": 0}],
//!  "in_force": [{"path": "", "how": "terms file `.kapi/terms.yaml` (`defaults.terms_source`)"}],
//!  "notes_text": ["…"]}
//! ```
//!
//! A term matches when the whole query (case and spacing folded) is part of its text, or its
//! text stands as whole words inside the query; a concept one of whose terms matches brings
//! every term it has, in every language, so the verdict names what to say instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kapi_core::governance::notes::KeptNote;
use kapi_core::governance::terms::{CaseMode, TermsFile};
use kapi_core::governance::voice::{TermRule, VoiceProfile};
use kapi_core::governance::{TermEntry, TermStatus};
use kapi_core::project::Project;
use kapi_core::project::layout::{TERMS_FILE, VOICE_FILE, profile_terms_file, profile_voice_file};
use kapi_core::store::Suggestion;
use serde::Serialize;

use crate::app::App;
use crate::context::{NoteLine, PendingLine, push_section, read_kept_notes, read_pending};
use crate::error::HostError;

/// What to search for.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    /// Most entries listed in each group (default 25).
    pub limit: Option<usize>,
}

/// One term rule that matched, with the verdict for writing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchTerm {
    pub text: String,
    /// BCP 47 tag; `*` for a voice's base vocabulary, which holds in every language.
    pub lang: String,
    pub status: TermStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    /// What to write instead (discouraged terms only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Written exactly so (`case: sensitive`): for a preferred or admitted term, `kapi check`
    /// reports its other spellings (`terms.case`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub case_sensitive: bool,
    /// Phrases in which the term is allowed (`exceptions:`), as the terms file writes them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<String>,
    /// The terms file or voice file that declares it, project-relative.
    pub source: String,
    /// `ok`, `avoid: say "X"`, `avoid` (no replacement known), or `not established` (a
    /// suggested term no person kept).
    pub verdict: String,
}

/// Where what was found is in force: at a path (`""` = the whole project) or under a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct InForce {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Which file and field declares it (or which kept note).
    pub how: String,
}

/// The answer: `kapi.search/v1`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SearchAnswer {
    /// The surface asking, for the closing line's command or tool.
    #[serde(skip)]
    pub surface: crate::Surface,
    pub schema: &'static str,
    /// `project`, or `none` when no project binds the call.
    pub scope: &'static str,
    pub query: String,
    pub terms: Vec<SearchTerm>,
    /// Terms that matched before the limit.
    pub terms_total: usize,
    /// Kept notes that mention the word.
    pub notes: Vec<NoteLine>,
    /// Pending suggestions that mention it (not established).
    pub pending: Vec<PendingLine>,
    pub in_force: Vec<InForce>,
    /// Remarks: nothing found, a file that did not read, a list cut short.
    pub notes_text: Vec<String>,
}

/// How one file is bound: for the whole project (`defaults`) or for a profile.
#[derive(Debug, Clone)]
struct Binding {
    profile: Option<String>,
    field: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Terms,
    Voice,
}

/// A terms or voice file the project binds, once however many bindings name it.
#[derive(Debug)]
struct Source {
    kind: Kind,
    path: PathBuf,
    shown: String,
    /// Found by convention: a missing file is no error.
    conventional: bool,
    bindings: Vec<Binding>,
}

/// A match with its rank: 0 the text is the query, 1 it contains it or stands in it, 2 it
/// came with its concept (or is a rule's replacement).
struct Found {
    rank: u8,
    term: SearchTerm,
    source: usize,
}

/// Searches what the project knows about `request.query`.
pub fn search(app: &App, request: &SearchRequest) -> Result<SearchAnswer, HostError> {
    let query = request
        .query
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if query.is_empty() {
        return Err(HostError::Usage {
            message: "name a word to search for".into(),
            hint: Some(app.surface.pick(
                "run `kapi context search Workspace`",
                "`{\"query\": \"Workspace\"}`",
            )),
        });
    }
    let limit = request.limit.unwrap_or(25);
    let mut answer = SearchAnswer {
        surface: app.surface,
        schema: "kapi.search/v1",
        scope: "none",
        query: query.clone(),
        terms: Vec::new(),
        terms_total: 0,
        notes: Vec::new(),
        pending: Vec::new(),
        in_force: Vec::new(),
        notes_text: Vec::new(),
    };
    let Some(project) = app.project()? else {
        answer.notes_text.push(
            "no kapi project here: there are no terms or notes to search; run `kapi init` to give this folder a voice and terms".into(),
        );
        return Ok(answer);
    };
    answer.scope = "project";
    let q = fold(&query);
    let sources = sources(&project);
    let mut found = find_terms(&sources, &q, &mut answer.notes_text);
    found.sort_by_key(|f| f.rank);
    answer.terms_total = found.len();
    let mut used: Vec<usize> = Vec::new();
    for f in &found {
        if !used.contains(&f.source) {
            used.push(f.source);
        }
    }
    used.sort_unstable();
    answer.terms = found.into_iter().take(limit).map(|f| f.term).collect();
    for index in used {
        answer.in_force.extend(in_force(&sources[index]));
    }
    let notes_total = add_kept_notes(&mut answer, &project.root, &q, limit);
    let pending_total = add_pending(&mut answer, &project.root, &q, limit);
    let remarks = &mut answer.notes_text;
    for (what, shown, total) in [
        ("terms", answer.terms.len(), answer.terms_total),
        ("kept notes", answer.notes.len(), notes_total),
        ("pending suggestions", answer.pending.len(), pending_total),
    ] {
        if shown < total {
            remarks.push(format!("showing {shown} of {total} {what}"));
        }
    }
    if answer.terms_total == 0 && notes_total == 0 && pending_total == 0 {
        remarks.push(format!(
            "the project knows nothing about \"{query}\": no term, kept note or pending suggestion mentions it"
        ));
    }
    Ok(answer)
}

/// The term rules of every source that match the folded query `q`, unsorted; a source that
/// cannot be read or parsed is a remark (a conventional one that is missing, nothing).
fn find_terms(sources: &[Source], q: &str, remarks: &mut Vec<String>) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let text = match std::fs::read_to_string(&source.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && source.conventional => continue,
            Err(e) => {
                let field = source
                    .bindings
                    .first()
                    .map(|b| format!(" (`{}`)", b.field))
                    .unwrap_or_default();
                remarks.push(format!(
                    "`{}`{field} cannot be read ({e}); it is left out",
                    source.shown
                ));
                continue;
            }
        };
        let terms = match source.kind {
            Kind::Terms => TermsFile::parse(&text, &source.shown).map(|f| terms_hits(&f, q)),
            Kind::Voice => VoiceProfile::parse(&text, &source.shown).map(|v| voice_hits(&v, q)),
        };
        match terms {
            Ok(terms) => found.extend(terms.into_iter().map(|(rank, mut term)| {
                term.source = source.shown.clone();
                Found {
                    rank,
                    term,
                    source: index,
                }
            })),
            Err(e) => remarks.push(format!(
                "`{}` is left out: {}",
                source.shown,
                e.to_string().replace('\n', "; ")
            )),
        }
    }
    found
}

/// Where a source that matched is in force: one entry per binding that names it.
fn in_force(source: &Source) -> Vec<InForce> {
    let what = match source.kind {
        Kind::Terms => "terms file",
        Kind::Voice => "voice",
    };
    source
        .bindings
        .iter()
        .map(|b| InForce {
            path: b.profile.is_none().then(String::new),
            profile: b.profile.clone(),
            how: if b.field == source.shown {
                format!("{what} `{}` (by convention)", source.shown)
            } else {
                format!("{what} `{}` (`{}`)", source.shown, b.field)
            },
        })
        .collect()
}

/// Adds the kept notes that mention `q` (at most `limit`, each also where it is in force);
/// returns how many mention it.
fn add_kept_notes(answer: &mut SearchAnswer, root: &Path, q: &str, limit: usize) -> usize {
    let kept = read_kept_notes(root, &mut answer.notes_text);
    let notes: Vec<&KeptNote> = kept.notes.iter().filter(|n| mentions_kept(n, q)).collect();
    for n in &notes {
        answer.in_force.push(InForce {
            path: Some(kapi_core::governance::notes::normal_path(&n.path)),
            profile: None,
            how: format!("kept note {}", n.id),
        });
    }
    let total = notes.len();
    answer.notes = notes
        .into_iter()
        .take(limit)
        .map(|n| NoteLine {
            id: n.id.clone(),
            path: kapi_core::governance::notes::normal_path(&n.path),
            line: n.rule_line(),
        })
        .collect();
    total
}

/// Adds the pending suggestions that mention `q` (at most `limit`); returns how many do.
fn add_pending(answer: &mut SearchAnswer, root: &Path, q: &str, limit: usize) -> usize {
    let pending: Vec<PendingLine> = read_pending(root, &mut answer.notes_text)
        .iter()
        .filter(|s| mentions_pending(s, q))
        .map(PendingLine::from_suggestion)
        .collect();
    let total = pending.len();
    answer.pending = pending.into_iter().take(limit).collect();
    total
}

/// Every terms file and voice the project binds: the defaults', then each profile's, each
/// file once with every binding that names it.
fn sources(project: &Project) -> Vec<Source> {
    let recipe = &project.recipe;
    let root = &project.root;
    let mut out: Vec<Source> = Vec::new();
    let mut add = |kind: Kind, named: Option<&str>, conventional: &str, binding: Binding| {
        let (rel, conv, field) = match named {
            Some(n) => (n.trim_start_matches("./").to_owned(), false, binding.field),
            None => (conventional.to_owned(), true, conventional.to_owned()),
        };
        let binding = Binding {
            profile: binding.profile,
            field,
        };
        let path = if Path::new(&rel).is_absolute() {
            PathBuf::from(&rel)
        } else {
            root.join(&rel)
        };
        if let Some(s) = out.iter_mut().find(|s| s.kind == kind && s.path == path) {
            s.conventional &= conv;
            s.bindings.push(binding);
            return;
        }
        let shown = crate::app::relative_to(&path, root).unwrap_or(rel);
        out.push(Source {
            kind,
            path,
            shown,
            conventional: conv,
            bindings: vec![binding],
        });
    };
    let everywhere = |field: &str| Binding {
        profile: None,
        field: field.to_owned(),
    };
    add(
        Kind::Terms,
        recipe.defaults.terms_source.as_deref(),
        TERMS_FILE,
        everywhere("defaults.terms_source"),
    );
    for p in &recipe.profiles {
        add(
            Kind::Terms,
            p.termstore.as_deref(),
            &profile_terms_file(&p.name),
            Binding {
                profile: Some(p.name.clone()),
                field: format!("profiles.{}.termstore", p.name),
            },
        );
    }
    add(
        Kind::Voice,
        recipe
            .defaults
            .voice
            .as_ref()
            .map(|v| v.profile_file.as_str()),
        VOICE_FILE,
        everywhere("defaults.voice"),
    );
    for p in &recipe.profiles {
        add(
            Kind::Voice,
            p.voice.as_ref().map(|v| v.profile_file.as_str()),
            &profile_voice_file(&p.name),
            Binding {
                profile: Some(p.name.clone()),
                field: format!("profiles.{}.voice", p.name),
            },
        );
    }
    out
}

/// The terms of every concept one of whose terms matches, in every language, with the
/// replacement each discouraged one resolves to.
fn terms_hits(file: &TermsFile, q: &str) -> Vec<(u8, SearchTerm)> {
    let mut langs: Vec<&str> = Vec::new();
    for t in file.concepts.iter().flat_map(|c| &c.terms) {
        if !langs.contains(&t.lang.as_str()) {
            langs.push(&t.lang);
        }
    }
    // Each term as it is in force for its own language tag, replacement resolved.
    let mut entries: HashMap<(String, String, String), TermEntry> = HashMap::new();
    for lang in langs {
        for e in file.entries_for(lang) {
            if e.lang == lang {
                let key = (
                    e.concept.clone().unwrap_or_default(),
                    e.lang.clone(),
                    e.text.clone(),
                );
                entries.entry(key).or_insert(e);
            }
        }
    }
    let mut out = Vec::new();
    for concept in &file.concepts {
        if !concept.terms.iter().any(|t| hit(q, &t.text).is_some()) {
            continue;
        }
        for t in &concept.terms {
            let key = (concept.id.clone(), t.lang.clone(), t.text.clone());
            let (replacement, note) = match entries.get(&key) {
                Some(e) => (e.replacement.clone(), e.note.clone()),
                None => (t.replacement.clone(), t.note.clone()),
            };
            out.push((
                hit(q, &t.text).unwrap_or(2),
                SearchTerm {
                    verdict: verdict(t.status, replacement.as_deref()),
                    text: t.text.clone(),
                    lang: t.lang.clone(),
                    status: t.status,
                    concept: Some(concept.id.clone()),
                    replacement,
                    definition: concept.definition.clone(),
                    note,
                    case_sensitive: t.case == CaseMode::Sensitive,
                    exceptions: t.exceptions.iter().map(|e| e.trim().to_owned()).collect(),
                    source: String::new(),
                },
            ));
        }
    }
    out
}

/// The voice's vocabulary rules whose term (or replacement) matches: the base lists hold in
/// every language (`*`), a locale's vocabulary in its language.
fn voice_hits(voice: &VoiceProfile, q: &str) -> Vec<(u8, SearchTerm)> {
    let mut out = Vec::new();
    let mut rules: Vec<(&TermRule, TermStatus, &str)> = Vec::new();
    for (list, status) in [
        (&voice.vocabulary.forbidden, TermStatus::Forbidden),
        (&voice.vocabulary.competitor, TermStatus::Competitor),
        (&voice.vocabulary.preferred, TermStatus::Preferred),
    ] {
        rules.extend(list.iter().map(|r| (r, status, "*")));
    }
    for (tag, over) in &voice.locales {
        rules.extend(
            over.vocabulary
                .iter()
                .map(|r| (r, TermStatus::Preferred, tag.as_str())),
        );
    }
    for (rule, status, lang) in rules {
        let replacement = if status.discouraged() {
            rule.replacement.clone()
        } else {
            None
        };
        let rank = hit(q, &rule.term)
            .or_else(|| replacement.as_deref().and_then(|r| hit(q, r)).map(|_| 2));
        let Some(rank) = rank else { continue };
        out.push((
            rank,
            SearchTerm {
                verdict: verdict(status, replacement.as_deref()),
                text: rule.term.trim().to_owned(),
                lang: lang.to_owned(),
                status,
                concept: None,
                replacement,
                definition: None,
                note: rule.note.clone(),
                case_sensitive: false,
                exceptions: Vec::new(),
                source: String::new(),
            },
        ));
    }
    out
}

fn verdict(status: TermStatus, replacement: Option<&str>) -> String {
    if status.discouraged() {
        match replacement {
            Some(r) => format!("avoid: say \"{r}\""),
            None => "avoid".to_owned(),
        }
    } else if status == TermStatus::Suggested {
        "not established".to_owned()
    } else {
        "ok".to_owned()
    }
}

/// `` `a`, `b` ``.
fn backticked(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Case and spacing folded.
fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// How `text` matches the folded query `q`: 0 it is the query, 1 it contains the query or
/// stands as whole words inside it, none otherwise.
fn hit(q: &str, text: &str) -> Option<u8> {
    let t = fold(text);
    if t.is_empty() {
        None
    } else if t == q {
        Some(0)
    } else if t.contains(q) || contains_words(q, &t) {
        Some(1)
    } else {
        None
    }
}

/// Whether `needle` occurs in `hay` with no letter or digit either side.
fn contains_words(hay: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    hay.match_indices(needle).any(|(at, _)| {
        !word(hay[..at].chars().next_back()) && !word(hay[at + needle.len()..].chars().next())
    })
}

/// Whether a note mentions the query: its text contains it, or its `from`, `to` or `suggest`
/// matches as a term would.
fn mentions(q: &str, text: Option<&str>, forms: [Option<&str>; 3]) -> bool {
    text.is_some_and(|t| fold(t).contains(q))
        || forms.into_iter().flatten().any(|f| hit(q, f).is_some())
}

fn mentions_kept(n: &KeptNote, q: &str) -> bool {
    mentions(
        q,
        n.text.as_deref(),
        [n.from.as_deref(), n.to.as_deref(), n.suggest.as_deref()],
    )
}

fn mentions_pending(s: &Suggestion, q: &str) -> bool {
    mentions(
        q,
        s.text.as_deref(),
        [s.from.as_deref(), s.to.as_deref(), s.suggest.as_deref()],
    )
}

impl SearchAnswer {
    /// The markdown answer: a verdict per term first, then notes, pending suggestions, where
    /// it is in force, and remarks.
    pub fn markdown(&self) -> String {
        let mut out = format!("# What the project knows about \"{}\"\n\n", self.query);
        if self.terms.is_empty() {
            out.push_str("No term rule matches.\n\n");
        } else {
            for t in &self.terms {
                let lang = if t.lang == "*" {
                    "any language"
                } else {
                    t.lang.as_str()
                };
                let mut line = format!("- **{}** ({lang}): {}", t.text, t.verdict);
                let mut about = vec![t.status.as_str().to_owned()];
                if let Some(c) = &t.concept {
                    about.push(format!("concept `{c}`"));
                }
                if t.case_sensitive {
                    about.push("case as written".to_owned());
                }
                about.push(format!("`{}`", t.source));
                line.push_str(&format!(" — {}", about.join(", ")));
                if let Some(n) = t.note.as_ref().or(t.definition.as_ref()) {
                    line.push_str(&format!(". {}", n.trim()));
                }
                if !t.exceptions.is_empty() {
                    line.push_str(&format!(". Allowed in {}", backticked(&t.exceptions)));
                }
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        push_section(&mut out, "Notes kept", &self.notes, |n| {
            let whose = if n.path.is_empty() {
                "kept for the whole project".to_owned()
            } else {
                format!("kept for `{}`", n.path)
            };
            format!("- {} ({whose}): {}\n", n.id, n.line)
        });
        push_section(
            &mut out,
            "Pending suggestions (not established)",
            &self.pending,
            PendingLine::markdown,
        );
        push_section(&mut out, "In force", &self.in_force, |f| {
            let at = match (&f.profile, &f.path) {
                (Some(p), _) => format!("profile `{p}`"),
                (None, Some(p)) if !p.is_empty() => format!("`{p}` and below"),
                _ => "the whole project".to_owned(),
            };
            format!("- {at}: {}\n", f.how)
        });
        push_section(&mut out, "Notes", &self.notes_text, |n| format!("- {n}\n"));
        out.push_str(&self.surface.pick(
            "Check your changes with `kapi check PATH`.\n",
            "Check your changes with `check_file`.\n",
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use kapi_core::store::{NewOp, NewSuggestion, SessionRow, Store};

    use super::*;
    use crate::env::Env;

    const TERMS: &str = "\
version: v1
concepts:
  - id: sign-in
    definition: Entering your account
    terms:
      - {text: sign in, lang: en, status: preferred}
      - {text: login, lang: en, status: deprecated}
      - {text: connexion, lang: fr, status: preferred}
      - {text: login, lang: fr, status: forbidden}
  - id: space
    terms:
      - {text: Space, lang: en, status: preferred}
      - {text: Workspace, lang: en, status: deprecated, replacement: Space}
";

    const CLASSIC_TERMS: &str = "\
version: v1
concepts:
  - id: sign-in
    terms:
      - {text: log on, lang: en, status: preferred}
      - {text: login, lang: en, status: admitted}
";

    const VOICE: &str = "\
name: Mini
vocabulary:
  forbidden:
    - {term: utilize, replacement: use}
";

    const NOTES: &str = "\
version: v1
notes:
  - id: n3
    path: help
    from: Workspace
    to: Space
  - id: n5
    text: Product names keep their capitals.
";

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    /// A project with default terms and voice, and a `classic` profile with its own termstore.
    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        write(
            &root,
            "kapi.yaml",
            "version: v1\ndefaults:\n  voice: .kapi/voice.yaml\nprofiles:\n  classic:\n    channels: [web]\n    termstore: .kapi/profiles/classic/terms.yaml\n",
        );
        write(&root, ".kapi/terms.yaml", TERMS);
        write(&root, ".kapi/profiles/classic/terms.yaml", CLASSIC_TERMS);
        write(&root, ".kapi/voice.yaml", VOICE);
        (dir, root)
    }

    fn app(root: &Path) -> App {
        App::new(Env::default(), root.to_path_buf(), Some(root.to_path_buf()))
    }

    fn ask(root: &Path, query: &str) -> SearchAnswer {
        search(
            &app(root),
            &SearchRequest {
                query: query.into(),
                limit: None,
            },
        )
        .unwrap()
    }

    /// Records a pending suggestion through the store, as `kapi context note` does.
    fn suggest(root: &Path, path: &str, text: Option<&str>, from: Option<&str>, to: Option<&str>) {
        let mut store = Store::open(&root.join(kapi_core::project::layout::STORE_FILE)).unwrap();
        let at = "2026-11-29T10:00:00Z";
        store
            .touch_session(&SessionRow {
                id: "s1".into(),
                actor_kind: "agent".into(),
                actor_name: "test".into(),
                project: None,
                client: None,
                started_at: at.into(),
                last_seen: at.into(),
            })
            .unwrap();
        let kind = if from.is_some() {
            "change"
        } else {
            "observation"
        };
        store
            .note(
                &NewSuggestion {
                    kind: kind.into(),
                    path: path.into(),
                    text: text.map(str::to_owned),
                    from: from.map(str::to_owned),
                    to: to.map(str::to_owned),
                    suggest: None,
                    actor_kind: "agent".into(),
                    actor_name: "test".into(),
                    session: "s1".into(),
                    at: at.into(),
                },
                NewOp {
                    kind: "note".into(),
                    actor_kind: "agent".into(),
                    actor_name: "test".into(),
                    session: "s1".into(),
                    path: Some(path.into()),
                    payload: serde_json::json!({}),
                    status: "pending".into(),
                    created_at: at.into(),
                },
            )
            .unwrap();
    }

    #[test]
    fn a_source_is_in_force_once_per_binding() {
        let source = Source {
            kind: Kind::Terms,
            path: PathBuf::from("/p/.kapi/terms.yaml"),
            shown: ".kapi/terms.yaml".into(),
            conventional: true,
            bindings: vec![
                Binding {
                    profile: None,
                    field: ".kapi/terms.yaml".into(),
                },
                Binding {
                    profile: Some("docs".into()),
                    field: "profiles.docs.terms".into(),
                },
            ],
        };
        let in_force = in_force(&source);
        assert_eq!(
            in_force,
            vec![
                InForce {
                    path: Some(String::new()),
                    profile: None,
                    how: "terms file `.kapi/terms.yaml` (by convention)".into(),
                },
                InForce {
                    path: None,
                    profile: Some("docs".into()),
                    how: "terms file `.kapi/terms.yaml` (`profiles.docs.terms`)".into(),
                },
            ]
        );
    }

    #[test]
    fn a_term_is_found_in_every_language_with_a_verdict_each() {
        let (_dir, root) = project();
        let a = ask(&root, "LOGIN");
        let got: Vec<(&str, &str, &str, &str)> = a
            .terms
            .iter()
            .map(|t| {
                (
                    t.text.as_str(),
                    t.lang.as_str(),
                    t.verdict.as_str(),
                    t.source.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("login", "en", "avoid: say \"sign in\"", ".kapi/terms.yaml"),
                (
                    "login",
                    "fr",
                    "avoid: say \"connexion\"",
                    ".kapi/terms.yaml"
                ),
                ("login", "en", "ok", ".kapi/profiles/classic/terms.yaml"),
                ("sign in", "en", "ok", ".kapi/terms.yaml"),
                ("connexion", "fr", "ok", ".kapi/terms.yaml"),
                ("log on", "en", "ok", ".kapi/profiles/classic/terms.yaml"),
            ]
        );
        assert_eq!(a.terms_total, 6);
        assert_eq!(a.terms[0].concept.as_deref(), Some("sign-in"));
        assert_eq!(
            a.terms[0].definition.as_deref(),
            Some("Entering your account")
        );
        assert_eq!(
            a.in_force,
            [
                InForce {
                    path: Some(String::new()),
                    profile: None,
                    how: "terms file `.kapi/terms.yaml` (by convention)".into()
                },
                InForce {
                    path: None,
                    profile: Some("classic".into()),
                    how: "terms file `.kapi/profiles/classic/terms.yaml` (`profiles.classic.termstore`)"
                        .into()
                },
            ]
        );
        assert!(a.notes.is_empty() && a.pending.is_empty());
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["schema"], "kapi.search/v1");
        assert_eq!(json["terms"][1]["status"], "forbidden");
        assert_eq!(json["terms"][0]["replacement"], "sign in");
        assert_eq!(
            a.markdown(),
            "\
# What the project knows about \"LOGIN\"

- **login** (en): avoid: say \"sign in\" — deprecated, concept `sign-in`, `.kapi/terms.yaml`. Entering your account
- **login** (fr): avoid: say \"connexion\" — forbidden, concept `sign-in`, `.kapi/terms.yaml`. Entering your account
- **login** (en): ok — admitted, concept `sign-in`, `.kapi/profiles/classic/terms.yaml`
- **sign in** (en): ok — preferred, concept `sign-in`, `.kapi/terms.yaml`. Entering your account
- **connexion** (fr): ok — preferred, concept `sign-in`, `.kapi/terms.yaml`. Entering your account
- **log on** (en): ok — preferred, concept `sign-in`, `.kapi/profiles/classic/terms.yaml`

## In force

- the whole project: terms file `.kapi/terms.yaml` (by convention)
- profile `classic`: terms file `.kapi/profiles/classic/terms.yaml` (`profiles.classic.termstore`)

Check your changes with `kapi check PATH`.
"
        );
    }

    #[test]
    fn a_discouraged_term_says_what_to_write_instead() {
        let (_dir, root) = project();
        let a = ask(&root, "utilize");
        assert_eq!(a.terms.len(), 1);
        let t = &a.terms[0];
        assert_eq!(
            (t.lang.as_str(), t.status, t.verdict.as_str()),
            ("*", TermStatus::Forbidden, "avoid: say \"use\"")
        );
        assert_eq!(
            a.in_force[0].how,
            "voice `.kapi/voice.yaml` (`defaults.voice`)"
        );
        // The word inside a longer query is found too, and its concept comes with it.
        let a = ask(&root, "open the  Workspace settings");
        let verdicts: Vec<(&str, &str)> = a
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.verdict.as_str()))
            .collect();
        assert_eq!(
            verdicts,
            [("Workspace", "avoid: say \"Space\""), ("Space", "ok")]
        );
        // A word that only contains a term is not a mention of it.
        assert!(ask(&root, "spaceship").terms.is_empty());
    }

    #[test]
    fn kept_notes_and_pending_suggestions_that_mention_the_word() {
        let (_dir, root) = project();
        write(&root, ".kapi/notes.yaml", NOTES);
        suggest(&root, "docs", None, Some("Workspace"), Some("Space"));
        suggest(&root, "docs", None, Some("Workspace"), Some("Space"));
        suggest(&root, "", Some("Write sign in as two words."), None, None);
        let a = ask(&root, "workspace");
        assert_eq!(
            a.notes,
            [NoteLine {
                id: "n3".into(),
                path: "help".into(),
                line: "Write \"Space\", not \"Workspace\".".into()
            }]
        );
        assert_eq!(a.pending.len(), 1);
        assert_eq!((a.pending[0].id.as_str(), a.pending[0].evidence), ("n1", 2));
        assert!(a.in_force.contains(&InForce {
            path: Some("help".into()),
            profile: None,
            how: "kept note n3".into()
        }));
        assert_eq!(
            a.markdown(),
            "\
# What the project knows about \"workspace\"

- **Workspace** (en): avoid: say \"Space\" — deprecated, concept `space`, `.kapi/terms.yaml`
- **Space** (en): ok — preferred, concept `space`, `.kapi/terms.yaml`

## Notes kept

- n3 (kept for `help`): Write \"Space\", not \"Workspace\".

## Pending suggestions (not established)

- n1 (suggested, not yet established; 2 notes): Write \"Space\", not \"Workspace\".

## In force

- the whole project: terms file `.kapi/terms.yaml` (by convention)
- `help` and below: kept note n3

Check your changes with `kapi check PATH`.
"
        );
        let a = ask(&root, "two words");
        assert!(a.terms.is_empty());
        assert_eq!(a.pending[0].line, "Write sign in as two words.");
    }

    #[test]
    fn a_broken_notes_file_is_a_remark_and_nothing_found_says_so() {
        let (_dir, root) = project();
        write(&root, ".kapi/notes.yaml", "version: v2\n");
        let a = ask(&root, "zebra");
        assert!(a.terms.is_empty() && a.notes.is_empty());
        assert!(
            a.notes_text[0].starts_with("kept notes are left out: .kapi/notes.yaml"),
            "{:?}",
            a.notes_text
        );
        assert!(a.notes_text[1].contains("knows nothing about \"zebra\""));
        assert!(
            !root.join(kapi_core::project::layout::STORE_FILE).exists(),
            "a search never creates the store"
        );
    }

    #[test]
    fn an_empty_query_is_a_usage_error() {
        let (_dir, root) = project();
        let err = search(
            &app(&root),
            &SearchRequest {
                query: "  ".into(),
                limit: None,
            },
        )
        .unwrap_err();
        assert!(matches!(err, HostError::Usage { .. }), "{err}");
        assert_eq!(err.kind(), crate::ErrorKind::Usage);
    }

    #[test]
    fn without_a_project_there_are_no_terms_and_a_remark_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env {
            no_project: true,
            ..Env::default()
        };
        let a = search(
            &App::new(env, dir.path().to_path_buf(), None),
            &SearchRequest {
                query: "login".into(),
                limit: None,
            },
        )
        .unwrap();
        assert_eq!(a.scope, "none");
        assert!(a.terms.is_empty() && a.in_force.is_empty());
        assert!(a.notes_text[0].starts_with("no kapi project here"));
        assert!(a.markdown().contains("No term rule matches."));
    }
}
