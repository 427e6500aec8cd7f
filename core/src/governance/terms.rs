//! Terms files (`.kapi/terms.yaml`): concepts with their terms per language and status,
//! validated strictly, and turned into the `TermEntry` list in force for one language.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::error::{self, GovernanceError, Problem};
use super::matcher::holds_term;
use super::{Severity, TermEntry, TermException, TermOrigin, TermStatus};
use crate::suggest::is_slug;
use crate::yaml_text::Outline;

/// A whole terms file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermsFile {
    /// Exactly `v1`.
    pub version: String,
    #[serde(default)]
    pub concepts: Vec<Concept>,
}

/// One concept and the words for it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concept {
    /// Unique in the file; kebab-case.
    #[serde(default)]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default)]
    pub terms: Vec<Term>,
}

/// How a term is matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseMode {
    #[default]
    Insensitive,
    Sensitive,
}

/// One word or phrase for a concept, in one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    #[serde(default)]
    pub text: String,
    /// BCP 47 tag (`en`, `en-GB`).
    #[serde(default)]
    pub lang: String,
    pub status: TermStatus,
    #[serde(default)]
    pub case: CaseMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Phrases in which the term is allowed (`ReactJS Day` for a forbidden `ReactJS`), each
    /// holding the term as a word of its own; matched like the term (whole words, its case
    /// policy, any whitespace run as one space).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<String>,
}

impl TermsFile {
    /// Parses and validates a terms file; `path` is how errors name it.
    pub fn parse(text: &str, path: &str) -> Result<TermsFile, GovernanceError> {
        error::parse_validated(text, path, TermsFile::validate)
    }

    /// Every problem: version, empty or repeated concept ids, empty text or lang, the same
    /// text twice for one language, and exceptions that are empty, repeated, the term alone
    /// or without the term in them.
    pub fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        problems.extend(error::version_problem(&self.version));
        let mut ids: HashSet<&str> = HashSet::new();
        let mut seen: BTreeMap<(String, String), String> = BTreeMap::new();
        for (c, concept) in self.concepts.iter().enumerate() {
            let at = format!("concepts[{c}]");
            if concept.id.trim().is_empty() {
                problems.push(
                    Problem::new(format!("{at}.id"), "must not be empty")
                        .with_hint("give every concept a kebab-case `id` such as `sign-in`"),
                );
            } else if !is_slug(&concept.id) {
                problems.push(
                    Problem::new(format!("{at}.id"), format!("`{}` is not kebab-case", concept.id))
                        .with_hint("write concept ids in lower-case letters, digits and hyphens, such as `sign-in`"),
                );
            } else if !ids.insert(&concept.id) {
                problems.push(
                    Problem::new(
                        format!("{at}.id"),
                        format!("duplicate concept id `{}`", concept.id),
                    )
                    .with_hint("give every concept its own `id`, or merge the two concepts"),
                );
            }
            for (t, term) in concept.terms.iter().enumerate() {
                let at = format!("{at}.terms[{t}]");
                if term.text.trim().is_empty() {
                    problems.push(
                        Problem::new(format!("{at}.text"), "must not be empty")
                            .with_hint("give every term its `text`"),
                    );
                    continue;
                }
                if term.lang.trim().is_empty() {
                    problems.push(
                        Problem::new(format!("{at}.lang"), "must not be empty")
                            .with_hint("give every term a BCP 47 `lang` such as `en` or `en-GB`"),
                    );
                    continue;
                }
                // Two case-sensitive spellings (`Larkspur` preferred, `LarkSpur` forbidden)
                // are different terms; any other pair that folds alike is a duplicate.
                let text = if term.case == CaseMode::Sensitive {
                    format!("={}", term.text)
                } else {
                    fold(&term.text)
                };
                let key = (text, term.lang.to_ascii_lowercase());
                if let Some(first) = seen.get(&key) {
                    problems.push(
                        Problem::new(
                            format!("{at}.text"),
                            format!(
                                "`{}` ({}) is already declared at {first}",
                                term.text, term.lang
                            ),
                        )
                        .with_hint("declare each term once per language"),
                    );
                } else {
                    seen.insert(key, format!("{at}.text"));
                }
                exception_problems(term, &at, &mut problems);
            }
        }
        problems
    }

    /// The terms that apply to text in `lang`: those declared for the tag itself or for its
    /// bare language (`en` applies to `en-GB`); an exact-tag term hides the same text declared
    /// for the bare language. Discouraged terms get their replacement resolved. Exceptions
    /// carry no location ([`TermsFile::entries_in`] gives them one).
    pub fn entries_for(&self, lang: &str) -> Vec<TermEntry> {
        self.entries_located(lang, &mut |_, _, _| None)
    }

    /// [`TermsFile::entries_for`] of this file read from `text`, which errors and reports call
    /// `path`: each exception carries where it is declared (`.kapi/terms.yaml:14`).
    pub fn entries_in(&self, lang: &str, text: &str, path: &str) -> Vec<TermEntry> {
        let has_exceptions = self
            .concepts
            .iter()
            .flat_map(|c| &c.terms)
            .any(|t| !t.exceptions.is_empty());
        if !has_exceptions {
            return self.entries_for(lang);
        }
        let outline = Outline::new(text);
        self.entries_located(lang, &mut |c, t, i| {
            outline
                .locate_nearest(&format!("concepts[{c}].terms[{t}].exceptions[{i}]"))
                .map(|(line, _)| format!("{path}:{line}"))
        })
    }

    /// The entries for `lang`; `locate(concept, term, exception)` says where an exception is.
    fn entries_located(
        &self,
        lang: &str,
        locate: &mut dyn FnMut(usize, usize, usize) -> Option<String>,
    ) -> Vec<TermEntry> {
        let wanted = lang.trim().replace('_', "-").to_ascii_lowercase();
        let bare = wanted.split('-').next().unwrap_or("").to_owned();
        let applies = |t: &Term| {
            let l = t.lang.replace('_', "-").to_ascii_lowercase();
            l == wanted || l == bare
        };
        let exact: HashSet<String> = self
            .concepts
            .iter()
            .flat_map(|c| &c.terms)
            .filter(|t| t.lang.replace('_', "-").eq_ignore_ascii_case(&wanted) && wanted != bare)
            .map(|t| fold(&t.text))
            .collect();
        let mut out = Vec::new();
        for (c, concept) in self.concepts.iter().enumerate() {
            for (t, term) in concept.terms.iter().enumerate() {
                if !applies(term) {
                    continue;
                }
                let is_exact = term.lang.replace('_', "-").eq_ignore_ascii_case(&wanted);
                if !is_exact && exact.contains(&fold(&term.text)) {
                    continue;
                }
                let replacement = if term.status.discouraged() {
                    replacement_for(concept, term)
                } else {
                    None
                };
                out.push(TermEntry {
                    text: term.text.clone(),
                    lang: term.lang.clone(),
                    status: term.status,
                    case_sensitive: term.case == CaseMode::Sensitive,
                    replacement,
                    note: term.note.clone().or_else(|| concept.note.clone()),
                    concept: Some(concept.id.clone()),
                    definition: concept.definition.clone(),
                    severity: term.severity,
                    origin: TermOrigin::Terms,
                    exceptions: term
                        .exceptions
                        .iter()
                        .enumerate()
                        .map(|(i, phrase)| TermException {
                            text: phrase.trim().to_owned(),
                            at: locate(c, t, i),
                        })
                        .collect(),
                });
            }
        }
        out
    }
}

/// The problems of a term's `exceptions` (`at` is the term's field path): an empty phrase, the
/// same phrase twice, the term alone (it would allow every use), a phrase that does not hold
/// the term as a word of its own (or, for a term `terms.case` guards, a spelling it reports).
fn exception_problems(term: &Term, at: &str, problems: &mut Vec<Problem>) {
    if term.exceptions.is_empty() {
        return;
    }
    let text = term.text.trim();
    let entry = TermEntry {
        case_sensitive: term.case == CaseMode::Sensitive,
        ..TermEntry::new(text, term.lang.as_str(), term.status)
    };
    let key = |phrase: &str| {
        if entry.case_sensitive {
            phrase.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            fold(phrase)
        }
    };
    let mut seen: HashSet<String> = HashSet::new();
    for (i, phrase) in term.exceptions.iter().enumerate() {
        let field = format!("{at}.exceptions[{i}]");
        let phrase = phrase.trim();
        if phrase.is_empty() {
            problems.push(Problem::new(field, "must not be empty").with_hint(format!(
                "write the phrase in which `{text}` is allowed, such as `{text} Day`, or remove the empty entry"
            )));
            continue;
        }
        let phrase_key = key(phrase);
        if phrase_key == key(text) {
            problems.push(
                Problem::new(
                    field,
                    format!("`{phrase}` is the term itself: it would allow every use of it"),
                )
                .with_hint(format!(
                    "list the longer phrases in which `{text}` is allowed, or change the term's `status`"
                )),
            );
        } else if seen.contains(phrase_key.as_str()) {
            problems.push(
                Problem::new(field, format!("`{phrase}` is listed twice"))
                    .with_hint("list each exception once"),
            );
        } else if !holds_term(&entry, phrase) {
            problems.push(
                Problem::new(
                    field,
                    format!("`{phrase}` does not contain the term `{text}` as a word of its own"),
                )
                .with_hint(format!(
                    "write the whole phrase in which `{text}` is allowed, with the term in it as written (`{text} Day`), or remove the exception"
                )),
            );
        }
        seen.insert(phrase_key);
    }
}

/// The term's own replacement, else the concept's preferred term in the same language (or its
/// bare language), else its first admitted one.
fn replacement_for(concept: &Concept, term: &Term) -> Option<String> {
    if let Some(r) = term
        .replacement
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
    {
        return Some(r.to_owned());
    }
    let lang = term.lang.replace('_', "-").to_ascii_lowercase();
    let bare = lang.split('-').next().unwrap_or("").to_owned();
    let in_lang = |l: &str| {
        let l = l.replace('_', "-").to_ascii_lowercase();
        l == lang || l == bare
    };
    for status in [TermStatus::Preferred, TermStatus::Admitted] {
        let exact = concept
            .terms
            .iter()
            .find(|t| t.status == status && t.lang.eq_ignore_ascii_case(&term.lang));
        let near = concept
            .terms
            .iter()
            .find(|t| t.status == status && in_lang(&t.lang));
        if let Some(t) = exact.or(near) {
            return Some(t.text.clone());
        }
    }
    None
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Hint;

    const DOC: &str = include_str!("../../../testdata/governance/terms/terms.yaml");

    fn parse(text: &str) -> Result<TermsFile, GovernanceError> {
        TermsFile::parse(text, ".kapi/terms.yaml")
    }

    #[test]
    fn case_sensitive_spellings_of_one_word_are_different_terms() {
        let text = "version: v1\nconcepts:\n  - id: name\n    terms:\n      - {text: Larkspur, lang: en, status: preferred, case: sensitive}\n      - {text: LarkSpur, lang: en, status: forbidden, case: sensitive}\n";
        assert!(parse(text).is_ok());
        let twice = text.replace(", case: sensitive}", "}");
        assert!(
            parse(&twice).is_err(),
            "without a case policy they fold alike"
        );
    }

    #[test]
    fn documented_terms_file_parses() {
        let file = parse(DOC).expect("fixture parses");
        assert_eq!(file.concepts.len(), 3);
        assert_eq!(file.concepts[0].terms[3].case, CaseMode::Sensitive);
    }

    #[test]
    fn entries_apply_by_tag_then_bare_language() {
        let file = parse(DOC).expect("fixture parses");
        #[rustfmt::skip]
        let cases: &[(&str, &[&str])] = &[
            ("en", &["sign in", "login", "GitHub", "e-mail", "email"]),
            ("en-GB", &["sign in", "login", "GitHub", "log-in", "e-mail", "email"]),
            ("EN_gb", &["sign in", "login", "GitHub", "log-in", "e-mail", "email"]),
            ("fr", &["connexion", "login"]),
            ("de", &[]),
        ];
        for (lang, want) in cases {
            let got: Vec<String> = file.entries_for(lang).into_iter().map(|e| e.text).collect();
            assert_eq!(got, *want, "{lang}");
        }
    }

    #[test]
    fn replacements_resolve_only_for_discouraged_terms() {
        let file = parse(DOC).expect("fixture parses");
        let en_gb = file.entries_for("en-GB");
        let get = |text: &str, lang: &str| {
            let entries = file.entries_for(lang);
            entries
                .into_iter()
                .find(|e| e.text == text)
                .and_then(|e| e.replacement)
        };
        let cases = [
            ("sign in", "en-GB", None),
            ("login", "en-GB", Some("sign in")), // own replacement
            ("log-in", "en-GB", Some("sign in")), // preferred in the bare language
            ("e-mail", "en-GB", Some("email")),  // first admitted
            ("login", "fr", Some("connexion")),  // preferred in the same language
        ];
        for (text, lang, want) in cases {
            assert_eq!(get(text, lang).as_deref(), want, "{text} ({lang})");
        }
        let entry = &en_gb[0];
        assert_eq!(entry.concept.as_deref(), Some("sign-in"));
        assert_eq!(entry.origin, TermOrigin::Terms);
        assert!(en_gb.iter().any(|e| e.text == "GitHub" && e.case_sensitive));
    }

    #[test]
    fn bad_terms_files_report_every_problem() {
        let text = "version: v2\nconcepts:\n  - id: a\n    terms:\n      - {text: x, lang: en, status: preferred}\n      - {text: X, lang: en, status: admitted}\n  - id: a\n    terms:\n      - {text: '', lang: en, status: preferred}\n  - id: Not_Kebab\n";
        let err = parse(text).expect_err("invalid");
        let fields: Vec<&str> = err.problems().iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "version",
                "concepts[0].terms[1].text",
                "concepts[1].id",
                "concepts[1].terms[0].text",
                "concepts[2].id"
            ]
        );
        assert!(
            err.to_string()
                .starts_with(".kapi/terms.yaml:1:1: version: unsupported version `v2`")
        );
    }

    #[test]
    fn schema_errors_name_the_field() {
        let cases = [
            (
                "version: v1\nconcepts:\n  - id: a\n    terms:\n      - {text: x, lang: en, status: banned}\n",
                "concepts[0].terms[0].status: unknown value `banned`",
            ),
            (
                "version: v1\nconcepts:\n  - id: a\n    term: []\n",
                "concepts[0].term: unknown field",
            ),
            ("concepts: []\n", "version: required field is missing"),
        ];
        for (text, want) in cases {
            let shown = parse(text).expect_err(want).to_string();
            assert!(shown.contains(want), "{shown:?} lacks {want:?}");
        }
    }

    #[test]
    fn exceptions_are_located_where_they_are_declared() {
        let text = "version: v1\nconcepts:\n  - id: react\n    terms:\n      - text: ReactJS\n        lang: en\n        status: forbidden\n        exceptions:\n          - ReactJS Day\n          - \"ReactJS  Conf\"\n      - {text: Vue.js, lang: en, status: forbidden, exceptions: [Vue.js Nation]}\n";
        let file = parse(text).expect("valid");
        let entries = file.entries_in("en", text, ".kapi/terms.yaml");
        let shown: Vec<(&str, Option<&str>)> = entries
            .iter()
            .flat_map(|e| &e.exceptions)
            .map(|x| (x.text.as_str(), x.at.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                ("ReactJS Day", Some(".kapi/terms.yaml:9")),
                ("ReactJS  Conf", Some(".kapi/terms.yaml:10")),
                ("Vue.js Nation", Some(".kapi/terms.yaml:11")),
            ]
        );
        assert!(
            file.entries_for("en")
                .iter()
                .flat_map(|e| &e.exceptions)
                .all(|x| x.at.is_none())
        );
    }

    #[test]
    fn bad_exceptions_are_located_errors_with_their_fix() {
        let text = "version: v1\nconcepts:\n  - id: react\n    terms:\n      - text: ReactJS\n        lang: en\n        status: forbidden\n        exceptions:\n          - ''\n          - React Day\n          - reactjs\n          - ReactJS Day\n          - reactjs   DAY\n          - ReactJSX Day\n  - id: gh\n    terms:\n      - text: GitHub\n        lang: en\n        status: preferred\n        case: sensitive\n        exceptions: [github Inc, Github, GITHUB-Pages, githubbing]\n";
        let err = parse(text).expect_err("invalid");
        let shown: Vec<String> = err
            .problems()
            .iter()
            .map(|p| format!("{}:{} {}", p.line.unwrap_or(0), p.field, p.message))
            .collect();
        assert_eq!(
            shown,
            [
                "9:concepts[0].terms[0].exceptions[0] must not be empty",
                "10:concepts[0].terms[0].exceptions[1] `React Day` does not contain the term `ReactJS` as a word of its own",
                "11:concepts[0].terms[0].exceptions[2] `reactjs` is the term itself: it would allow every use of it",
                "13:concepts[0].terms[0].exceptions[4] `reactjs   DAY` is listed twice",
                "14:concepts[0].terms[0].exceptions[5] `ReactJSX Day` does not contain the term `ReactJS` as a word of its own",
                "21:concepts[1].terms[0].exceptions[2] `GITHUB-Pages` does not contain the term `GitHub` as a word of its own",
                "21:concepts[1].terms[0].exceptions[3] `githubbing` does not contain the term `GitHub` as a word of its own",
            ]
        );
        let hints = err.hints();
        assert!(
            hints.iter().any(|h| h.contains("such as `ReactJS Day`")),
            "{hints:?}"
        );
        // A case-sensitive name's exception may hold it in a spelling `terms.case` reports
        // (`github Inc`, `Github`: not the term itself, which is `GitHub`), even first; one
        // joined into a longer name (`GITHUB-Pages`) is never reported, so allows nothing.
    }
}
