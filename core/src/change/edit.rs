//! One content operation on one edition, in memory: the revision guard (`if_match`), the code
//! guard (the `<x id>` projection parsed back against the runs it replaces), and the result.
//!
//! `set_content` replaces an edition's runs, or one branch's when `at.branch` names a plural
//! or select case; a plural form a target lacks and its language has is added by the edit
//! ([`super::forms`]). `replace_text` finds within text runs only, so it can never touch, drop or
//! straddle a code; a phrase broken by a code is not found (use `set_content` for it).
//!
//! `set_content` of the empty text empties a target edition (or branch) whatever codes it
//! held (a source's codes stay guarded): an empty target is untranslated (what `kapi review --reject` restores when a draft filled
//! one), not a translation that lost its placeholders.

use serde::Serialize;

use super::{BLIND, MatchMode, Operation, forms};
use crate::model::{Edition, Run, fingerprint_runs, rev_runs};
use crate::projection::{self, ParseError};

/// What a content operation did to an edition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edited {
    /// The runs changed; `count` is the number of replacements for `replace_text`.
    Applied { count: Option<usize> },
    /// `if_match` holds and the edition already holds the content.
    Unchanged,
    /// The edition (or branch) moved since it was read.
    Stale(Current),
    /// A code or a plural/select would be lost, invented or unbalanced.
    Guard(Guard),
    /// The branch does not exist, or `find` does not occur.
    NotFound(String),
}

/// The edition as it is now, for a sender to rebase on without another read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Current {
    pub rev: String,
    pub text: String,
}

/// Why the code guard refused an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Guard {
    /// `lost`, `invented`, `repeated` or `unbalanced`.
    pub problem: &'static str,
    /// The code's id as the read showed it.
    pub code: String,
    /// `open`/`close`/`standalone`, or `plural`/`select` for a switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The code's native bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    pub message: String,
}

/// The revision and projected text of an edition, or of the branch at `branch`.
pub fn current(edition: &Edition, branch: Option<&str>) -> Option<Current> {
    match branch {
        None => Some(Current {
            rev: edition.rev(),
            text: projection::render(&edition.runs).0,
        }),
        Some(path) => edition.branch(path).map(|runs| Current {
            rev: rev_runs(runs),
            text: projection::render(runs).0,
        }),
    }
}

/// Applies a `set_content` or `replace_text` to `edition`. `read_rev` is the revision the
/// edition (or branch) had before this change set, accepted as well as the current one so
/// that several operations composed from one read can edit the same edition.
pub fn apply(edition: &mut Edition, op: &Operation, read_rev: Option<&str>) -> Edited {
    let (Some(at), Some(if_match)) = (op.at(), op.if_match()) else {
        return Edited::NotFound("not a content operation".into());
    };
    let branch = at.branch.as_deref();
    // A plural form a target lacks and its language has reads as empty, and the edit adds it.
    let lang = (at.edition != crate::model::SOURCE).then_some(at.edition.as_str());
    let absent = match (branch, lang) {
        (Some(path), Some(lang)) => forms::addable(edition, path, lang).then_some((path, lang)),
        _ => None,
    };
    let now = match absent {
        Some(_) => Current {
            rev: forms::absent_rev(),
            text: String::new(),
        },
        None => match current(edition, branch) {
            Some(now) => now,
            None => return Edited::NotFound(missing_branch(edition, branch.unwrap_or(""))),
        },
    };
    if if_match != BLIND && if_match != now.rev && Some(if_match) != read_rev {
        return Edited::Stale(now);
    }
    if let Some((path, lang)) = absent {
        forms::add(edition, path, lang);
    }
    let runs = match branch {
        None => &mut edition.runs,
        Some(path) => match edition.branch_mut(path) {
            Some(runs) => runs,
            None => return Edited::NotFound(missing_branch(edition, path)),
        },
    };
    let before = if absent.is_some() {
        fingerprint_runs(&[])
    } else {
        fingerprint_runs(runs)
    };
    let count = match op {
        Operation::SetContent { content, .. }
            if content.is_empty() && at.edition != crate::model::SOURCE =>
        {
            runs.clear();
            None
        }
        Operation::SetContent { content, .. } => match projection::parse(content, runs) {
            Ok(new) => {
                *runs = new;
                None
            }
            Err(e) => return Edited::Guard(guard(&e, runs)),
        },
        Operation::ReplaceText {
            find,
            replace,
            mode,
            count,
            ..
        } => {
            let mut left = count.unwrap_or(usize::MAX);
            let found = replace_in(runs, find, replace, *mode, &mut left);
            if found == 0 {
                let how = match mode {
                    MatchMode::Literal => "",
                    MatchMode::Word => " as a whole word",
                };
                return Edited::NotFound(format!(
                    "`{find}` does not occur{how} in the text of this edition (a phrase broken by a code is not found: use set_content)"
                ));
            }
            Some(found)
        }
        _ => None,
    };
    if fingerprint_runs(runs) == before {
        Edited::Unchanged
    } else {
        Edited::Applied { count }
    }
}

fn missing_branch(edition: &Edition, path: &str) -> String {
    let leaves: Vec<String> = edition.leaves().into_iter().map(|(p, _)| p).collect();
    if leaves.is_empty() {
        format!("no branch `{path}`: this edition has no plural or select")
    } else {
        format!("no branch `{path}`; branches: {}", leaves.join(", "))
    }
}

fn guard(error: &ParseError, original: &[Run]) -> Guard {
    let id = error.id().to_owned();
    let found = find_code(original, &id);
    let problem = match error {
        ParseError::Unknown { .. } => "invented",
        ParseError::Missing { .. } => "lost",
        ParseError::Repeated { .. } => "repeated",
        ParseError::Unbalanced { .. } => "unbalanced",
    };
    let message = match (&found, error) {
        (Some((kind, _)), ParseError::Missing { .. })
            if kind == "plural" || kind == "select" || kind == "selectordinal" =>
        {
            format!(
                "the {kind} <x id=\"{id}/\"/> would be lost: flat text cannot replace it; edit each branch by its path (`at.branch`, listed under `branches` in the read)"
            )
        }
        (_, ParseError::Unbalanced { .. }) => format!(
            "the pair <x id=\"{id}\"/>…<x id=\"/{id}\"/> would be unbalanced: keep both tags, in order, or drop both"
        ),
        (_, ParseError::Missing { .. }) => format!(
            "the code <x id=\"{id}\"/> would be lost: keep every tag the read showed (a formatting pair may go only whole)"
        ),
        (_, ParseError::Unknown { .. }) => format!(
            "<x id=\"{id}\"/> names no code of this text: an edit cannot invent a code; use only the tags the read showed"
        ),
        (_, ParseError::Repeated { .. }) => {
            format!("the code <x id=\"{id}\"/> appears more than once: keep each tag once")
        }
    };
    Guard {
        problem,
        code: id,
        kind: found.as_ref().map(|(k, _)| k.clone()),
        data: found.map(|(_, d)| d),
        message,
    }
}

/// (kind, native data) of the code or switch with `id` among `runs`.
fn find_code(runs: &[Run], id: &str) -> Option<(String, String)> {
    for run in runs {
        match run {
            Run::Code(code) if code.id == id => {
                let kind = match code.kind {
                    crate::model::CodeKind::Open => "open",
                    crate::model::CodeKind::Close => "close",
                    crate::model::CodeKind::Standalone => "standalone",
                };
                return Some((kind.to_owned(), code.data.clone()));
            }
            Run::Switch(switch) if switch.id == id => {
                return Some((switch.kind.as_str().to_owned(), switch.head.clone()));
            }
            _ => {}
        }
    }
    None
}

/// Replaces `find` in every text run (branches included), at most `left` times.
fn replace_in(
    runs: &mut [Run],
    find: &str,
    replace: &str,
    mode: MatchMode,
    left: &mut usize,
) -> usize {
    let mut total = 0;
    for run in runs.iter_mut() {
        if *left == 0 {
            break;
        }
        match run {
            Run::Text { text, src } => {
                let (new, n) = replace_text(text, find, replace, mode, left);
                if n > 0 {
                    *text = new;
                    *src = None;
                    total += n;
                }
            }
            Run::Switch(switch) => {
                for branch in &mut switch.branches {
                    total += replace_in(&mut branch.runs, find, replace, mode, left);
                }
            }
            Run::Code(_) => {}
        }
    }
    total
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn replace_text(
    text: &str,
    find: &str,
    replace: &str,
    mode: MatchMode,
    left: &mut usize,
) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    let mut last = 0;
    for (start, _) in text.match_indices(find) {
        if *left == 0 {
            break;
        }
        if start < last {
            continue;
        }
        let end = start + find.len();
        if mode == MatchMode::Word {
            let before = text[..start].chars().next_back();
            let after = text[end..].chars().next();
            if before.is_some_and(is_word_char) || after.is_some_and(is_word_char) {
                continue;
            }
        }
        out.push_str(&text[last..start]);
        out.push_str(replace);
        last = end;
        n += 1;
        *left -= 1;
    }
    out.push_str(&text[last..]);
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, Code, CodeKind, Ref, Switch, SwitchKind};

    fn at(branch: Option<&str>) -> Ref {
        Ref {
            doc: "a.md".into(),
            block: "p".into(),
            edition: "source".into(),
            branch: branch.map(str::to_owned),
        }
    }

    fn set(content: &str, if_match: &str) -> Operation {
        Operation::SetContent {
            at: at(None),
            if_match: if_match.into(),
            content: content.into(),
        }
    }

    fn linked() -> Edition {
        Edition::new(vec![
            Run::text("Open the "),
            Code::new("1", CodeKind::Open, "link", "[", false).into(),
            Run::text("dashboard"),
            Code::new("1", CodeKind::Close, "link", "](/d)", false).into(),
            Run::text("."),
        ])
    }

    #[test]
    fn set_content_applies_keeps_codes_and_is_idempotent() {
        let mut e = linked();
        let rev = e.rev();
        let op = set("Open the <x id=\"1\"/>board<x id=\"/1\"/> now.", &rev);
        assert_eq!(apply(&mut e, &op, None), Edited::Applied { count: None });
        assert_ne!(e.rev(), rev);
        // The same content again, with the new rev: unchanged.
        let op = set("Open the <x id=\"1\"/>board<x id=\"/1\"/> now.", &e.rev());
        assert_eq!(apply(&mut e, &op, None), Edited::Unchanged);
        // Resent with the old rev: stale, with the current text.
        match apply(&mut e, &set("x", &rev), None) {
            Edited::Stale(c) => {
                assert_eq!(c.rev, e.rev());
                assert!(c.text.contains("board"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dropped_code_is_a_guard() {
        let mut e = linked();
        let rev = e.rev();
        match apply(&mut e, &set("Open the dashboard.", &rev), None) {
            Edited::Guard(g) => {
                assert_eq!(g.problem, "lost");
                assert_eq!(g.code, "1");
                assert_eq!(g.data.as_deref(), Some("["));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.rev(), rev, "a refused edit changes nothing");
        match apply(&mut e, &set("Hi <x id=\"9/\"/>", &rev), None) {
            Edited::Guard(g) => assert_eq!(g.problem, "invented"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_target_is_untranslated_but_a_source_keeps_its_codes() {
        let mut e = linked();
        let rev = e.rev();
        let mut op = set("", &rev);
        assert!(
            matches!(apply(&mut e, &op, None), Edited::Guard(_)),
            "a source"
        );
        if let Operation::SetContent { at, .. } = &mut op {
            at.edition = "fr".into();
        }
        assert_eq!(apply(&mut e, &op, None), Edited::Applied { count: None });
        assert!(e.runs.is_empty(), "{:?}", e.runs);
    }

    fn plural() -> Edition {
        Edition::new(vec![Run::from(Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("one file")]),
                Branch::new("other", vec![Run::text("many files")]),
            ],
            head: "{count, plural,".into(),
            tail: "}".into(),
            src: None,
            forms: None,
        })])
    }

    #[test]
    fn a_flattened_plural_is_a_guard_and_a_branch_is_edited_by_path() {
        let mut e = plural();
        let rev = e.rev();
        match apply(&mut e, &set("some files", &rev), None) {
            Edited::Guard(g) => {
                assert_eq!(g.problem, "lost");
                assert!(g.message.contains("at.branch"), "{}", g.message);
            }
            other => panic!("{other:?}"),
        }
        let branch_rev = rev_runs(e.branch("count:one").unwrap());
        let op = Operation::SetContent {
            at: at(Some("count:one")),
            if_match: branch_rev,
            content: "a single file".into(),
        };
        assert_eq!(apply(&mut e, &op, None), Edited::Applied { count: None });
        assert_eq!(
            projection::render(e.branch("count:one").unwrap()).0,
            "a single file"
        );
        let op = Operation::SetContent {
            at: at(Some("count:few")),
            if_match: BLIND.into(),
            content: "x".into(),
        };
        assert!(matches!(apply(&mut e, &op, None), Edited::NotFound(m) if m.contains("count:one")));
    }

    #[test]
    fn replace_text_never_touches_codes_and_honours_word_and_count() {
        let mut e = Edition::new(vec![
            Run::text("use the user's utilize; "),
            Code::new("1", CodeKind::Standalone, "placeholder", "{use}", false).into(),
            Run::text(" use"),
        ]);
        let op = |find: &str, mode, count| Operation::ReplaceText {
            at: at(None),
            if_match: BLIND.into(),
            find: find.into(),
            replace: "employ".into(),
            mode,
            count,
        };
        let mut w = e.clone();
        assert_eq!(
            apply(&mut w, &op("use", MatchMode::Word, None), None),
            Edited::Applied { count: Some(2) }
        );
        assert_eq!(
            projection::render(&w.runs).0,
            "employ the user's utilize; <x id=\"1/\"/> employ"
        );
        assert_eq!(
            apply(&mut e, &op("use", MatchMode::Literal, Some(2)), None),
            Edited::Applied { count: Some(2) }
        );
        assert_eq!(
            projection::render(&e.runs).0,
            "employ the employr's utilize; <x id=\"1/\"/> use"
        );
        assert!(matches!(
            apply(&mut e, &op("absent", MatchMode::Literal, None), None),
            Edited::NotFound(_)
        ));
    }

    #[test]
    fn the_read_rev_is_accepted_for_a_second_operation_of_one_set() {
        let mut e = linked();
        let rev = e.rev();
        let op1 = set("Open the <x id=\"1\"/>board<x id=\"/1\"/>.", &rev);
        assert!(matches!(
            apply(&mut e, &op1, Some(&rev)),
            Edited::Applied { .. }
        ));
        let op2 = Operation::ReplaceText {
            at: at(None),
            if_match: rev.clone(),
            find: "Open".into(),
            replace: "See".into(),
            mode: MatchMode::Word,
            count: None,
        };
        assert!(matches!(
            apply(&mut e, &op2, Some(&rev)),
            Edited::Applied { .. }
        ));
        assert!(matches!(apply(&mut e, &op2, None), Edited::Stale(_)));
    }
}
