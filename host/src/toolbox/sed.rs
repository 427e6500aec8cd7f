//! `kapi sed` (`ksed`): a substitution, `s/FROM/TO/FLAGS`, compiled into a `kapi.change/v1`
//! change set of `replace_text` operations guarded by each block's rev, so a substitution
//! lands through the change service like any other edit (and is refused like one).
//!
//! FROM is a Rust regular expression (ERE-like: `(`, `|`, `+` need no backslash); TO may use
//! `&` (the match) and `\1`…`\9` (groups), `\&` and `\\` for themselves, `\n` for a newline.
//! The delimiter is the character after `s`; `\` before it makes it literal. FLAGS: `g`
//! every match, `i`/`I` case-insensitive, `N` only the N-th match (with `g`, the N-th and
//! after). The unit is a block's readable prose ([`kapi_core::readable`]), not a line of the
//! file: `^` and `$` anchor to the block, and without `g` only its first match changes.
//!
//! A match must lie in text alone: one that takes in an inline code (a placeholder, a
//! link's markup) is not replaced and is reported in `skipped`; one across touching runs of
//! text (a wrapped line in Markdown) is replaced. An empty match (`s/^/> /`) replaces
//! nothing: `replace_text` finds text, and a block's prose has no lines to prefix. The operations are the
//! plainest that give exactly the substituted text, each tried on the edition in memory:
//! one `replace_text` per distinct (match, replacement) with a `count`, else one per text
//! run replacing the run's whole text (each while there are at most 32), else (an edition
//! with no plural or select) one `set_content` of the substituted text with its codes kept.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

use kapi_core::change::edit::{self, Edited};
use kapi_core::change::{ChangeSet, GateMode, MAX_OPERATIONS, MatchMode, Operation, SCHEMA};
use kapi_core::model::{Edition, Ref, Run, SOURCE};
use kapi_core::projection;
use kapi_core::readable::{Readable, text_at_mut};
use regex::{Captures, Regex};
use serde::Serialize;

use crate::app::App;
use crate::document::Editions;
use crate::error::HostError;

/// A parsed `s/FROM/TO/FLAGS`.
#[derive(Debug, Clone)]
pub struct Script {
    regex: Regex,
    to: Vec<Piece>,
    global: bool,
    nth: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Group(usize),
}

fn usage(message: String) -> HostError {
    HostError::Usage {
        message,
        hint: Some("write the substitution as `s/FROM/TO/` with flags `g`, `i` or a number after the last `/`, e.g. `s/colour/color/g`".into()),
    }
}

impl Script {
    pub fn parse(script: &str) -> Result<Script, HostError> {
        let mut chars = script.chars();
        if chars.next() != Some('s') {
            return Err(usage(format!(
                "`{script}` is not a substitution: it must start with `s`"
            )));
        }
        let delim = chars
            .next()
            .filter(|c| !c.is_alphanumeric() && *c != '\\' && *c != '\n' && *c != ' ')
            .ok_or_else(|| usage(format!("`{script}` has no delimiter after `s`")))?;
        let rest: String = chars.collect();
        let parts = split(&rest, delim);
        let [from, to, flags] = parts.as_slice() else {
            return Err(usage(format!(
                "`{script}` needs three `{delim}`: `s{delim}FROM{delim}TO{delim}FLAGS`"
            )));
        };
        let special = "\\^$.|?*+()[]{}".contains(delim);
        let from = if special {
            from.clone()
        } else {
            from.replace(&format!("\\{delim}"), &delim.to_string())
        };
        let (mut global, mut ignore_case, mut nth) = (false, false, None);
        let mut digits = String::new();
        for c in flags.chars() {
            match c {
                'g' => global = true,
                'i' | 'I' => ignore_case = true,
                '0'..='9' => digits.push(c),
                other => {
                    return Err(usage(format!(
                        "`{other}` is not a flag ksed knows in `{script}`"
                    )));
                }
            }
        }
        if !digits.is_empty() {
            nth = Some(
                digits
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        usage(format!("`{digits}` in `{script}` must be a number from 1"))
                    })?,
            );
        }
        if from.is_empty() {
            return Err(usage(format!("`{script}` has nothing to find")));
        }
        let regex = regex::RegexBuilder::new(&from)
            .case_insensitive(ignore_case)
            .size_limit(1 << 24)
            .build()
            .map_err(|e| usage(format!("`{from}` is not a regular expression: {e}")))?;
        let to = replacement(to, delim, regex.captures_len())?;
        Ok(Script {
            regex,
            to,
            global,
            nth,
        })
    }

    fn expand(&self, caps: &Captures<'_>) -> String {
        let mut out = String::new();
        for piece in &self.to {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Group(g) => out.push_str(caps.get(*g).map_or("", |m| m.as_str())),
            }
        }
        out
    }

    /// Whether the `n`-th match (1-based) is replaced, and whether to look past it.
    fn takes(&self, n: usize) -> (bool, bool) {
        match (self.global, self.nth) {
            (true, None) => (true, true),
            (true, Some(k)) => (n >= k, true),
            (false, Some(k)) => (n == k, n < k),
            (false, None) => (n == 1, false),
        }
    }
}

/// `text` split at each `delim` not after a `\` (the `\` kept for the parts to read).
fn split(text: &str, delim: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut escaped = false;
    for c in text.chars() {
        let part = parts
            .last_mut()
            .unwrap_or_else(|| unreachable!("never empty"));
        if escaped {
            part.push('\\');
            part.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delim {
            parts.push(String::new());
        } else {
            part.push(c);
        }
    }
    if escaped && let Some(part) = parts.last_mut() {
        part.push('\\');
    }
    parts
}

/// TO as text and group references.
fn replacement(to: &str, delim: char, groups: usize) -> Result<Vec<Piece>, HostError> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = to.chars();
    let flush = |text: &mut String, pieces: &mut Vec<Piece>| {
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(text)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '&' => {
                flush(&mut text, &mut pieces);
                pieces.push(Piece::Group(0));
            }
            '\\' => match chars.next() {
                Some(d @ '1'..='9') => {
                    let g = d as usize - '0' as usize;
                    if g >= groups {
                        return Err(usage(format!(
                            "`\\{g}` in `{to}` names a group FROM does not have"
                        )));
                    }
                    flush(&mut text, &mut pieces);
                    pieces.push(Piece::Group(g));
                }
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some(c) if c == delim || c == '&' || c == '\\' => text.push(c),
                Some(c) => {
                    text.push('\\');
                    text.push(c);
                }
                None => text.push('\\'),
            },
            c => text.push(c),
        }
    }
    flush(&mut text, &mut pieces);
    Ok(pieces)
}

/// What to substitute, where.
#[derive(Debug, Clone)]
pub struct SedRequest {
    pub script: String,
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
}

/// The most matches left alone a compile names (all are counted).
pub const MAX_SKIPPED: usize = 100;

/// A match left alone.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    #[serde(rename = "ref")]
    pub at: Ref,
    #[serde(rename = "match")]
    pub matched: String,
    pub why: String,
}

/// A substitution compiled: the change set, and what it leaves alone.
#[derive(Debug)]
pub struct Compiled {
    pub set: ChangeSet,
    /// How many matches the set replaces.
    pub replaced: usize,
    /// The first [`MAX_SKIPPED`] matches left alone.
    pub skipped: Vec<Skipped>,
    /// How many matches were left alone.
    pub skipped_count: usize,
    /// How many files were read.
    pub searched: usize,
}

impl Compiled {
    fn skip(&mut self, skipped: Skipped) {
        self.skipped_count += 1;
        if self.skipped.len() < MAX_SKIPPED {
            self.skipped.push(skipped);
        }
    }
}

/// Compiles `request.script` over the named files into one change set.
pub fn compile(app: &App, request: &SedRequest) -> Result<Compiled, HostError> {
    let script = Script::parse(&request.script)?;
    let project = app.project()?;
    let files = super::files(
        app,
        project.as_ref(),
        &request.paths,
        request.recursive,
        "edit",
    )?;
    let mut out = Compiled {
        set: ChangeSet {
            schema: SCHEMA,
            gate: GateMode::Enforce,
            operations: Vec::new(),
        },
        replaced: 0,
        skipped: Vec::new(),
        skipped_count: 0,
        searched: files.len(),
    };
    for file in &files {
        let loaded = super::load(app, project.as_ref(), file, &Editions::Source)?;
        for block in loaded
            .parsed
            .document
            .blocks
            .iter()
            .filter(|b| super::prose(b))
        {
            let at = Ref {
                doc: loaded.doc.clone(),
                block: block.key.clone(),
                edition: SOURCE.into(),
                branch: None,
            };
            let edition = substitute(&script, &block.source, &at, &mut out)?;
            if let Some(ops) = edition {
                out.set.operations.extend(ops);
            }
        }
    }
    if out.set.operations.len() > MAX_OPERATIONS {
        return Err(HostError::Usage {
            message: format!(
                "the substitution makes {} operations; a change set holds at most {MAX_OPERATIONS}",
                out.set.operations.len()
            ),
            hint: Some("name fewer files at a time".into()),
        });
    }
    Ok(out)
}

/// The operations that substitute in one edition, `None` when nothing changes.
fn substitute(
    script: &Script,
    edition: &Edition,
    at: &Ref,
    out: &mut Compiled,
) -> Result<Option<Vec<Operation>>, HostError> {
    let view = Readable::of(edition);
    let mut hits: Vec<(Range<usize>, String)> = Vec::new();
    let mut n = 0;
    for caps in script.regex.captures_iter(&view.text) {
        let Some(m) = caps.get(0).filter(|m| !m.is_empty()) else {
            continue;
        };
        n += 1;
        let (take, more) = script.takes(n);
        if take {
            let range = m.range();
            if !view.clear(&range) {
                out.skip(Skipped {
                    at: at.clone(),
                    matched: m.as_str().replace(kapi_core::readable::MARK, "…"),
                    why: "the match takes in an inline code (markup or a placeholder): change it with `kapi apply` (`set_content`)".into(),
                });
            } else {
                let to = script.expand(&caps);
                if to != m.as_str() {
                    hits.push((range, to));
                }
            }
        }
        if !more {
            break;
        }
    }
    if hits.is_empty() {
        return Ok(None);
    }
    let expected = substituted(&view, edition, &hits);
    let rev = edition.rev();
    // The plainest operations first, each tier only while it stays small (every one is tried
    // on the edition in memory, which costs the edition's length a operation).
    let single = hits.iter().all(|(range, _)| view.locate(range).is_some());
    let tiers = [
        single
            .then(|| by_match(&view, &hits, edition, at, &rev))
            .flatten(),
        by_run(edition, &expected, at, &rev),
        whole(&expected, at, &rev),
    ];
    for ops in tiers.into_iter().flatten() {
        if gives(edition, &ops, &rev, &expected) {
            out.replaced += hits.len();
            return Ok(Some(ops));
        }
    }
    for (range, _) in &hits {
        out.skip(Skipped {
            at: at.clone(),
            matched: view.text[range.clone()].to_owned(),
            why: "no change set of this edition's text gives the substituted text (a plural or select holds it): change it with `kapi apply`".into(),
        });
    }
    Ok(None)
}

/// `edition` with each hit (a range of the view in one text run, and its replacement)
/// replaced: each run rebuilt once, however many hits it holds.
fn substituted(view: &Readable, edition: &Edition, hits: &[(Range<usize>, String)]) -> Edition {
    // Each hit as edits of the runs it covers: its replacement in the first, the covered text
    // of the others removed; then each run rebuilt once with its edits in order.
    let mut edits: BTreeMap<&[usize], Vec<(Range<usize>, &str)>> = BTreeMap::new();
    for (range, to) in hits {
        for (k, (path, within)) in view.spans(range).into_iter().enumerate() {
            let text = if k == 0 { to.as_str() } else { "" };
            edits
                .entry(path.as_slice())
                .or_default()
                .push((within, text));
        }
    }
    let mut expected = edition.clone();
    for (path, mut pieces) in edits {
        pieces.sort_by_key(|(within, _)| within.start);
        if let Some(text) = text_at_mut(&mut expected.runs, path) {
            let mut new = String::with_capacity(text.len());
            let mut last = 0;
            for (within, to) in pieces {
                new.push_str(text.get(last..within.start).unwrap_or_default());
                new.push_str(to);
                last = within.end.max(last);
            }
            new.push_str(text.get(last..).unwrap_or_default());
            *text = new;
        }
    }
    expected
}

/// The most `replace_text` operations a tier may make for one edition: each is tried on the
/// whole edition, so more would cost its length squared; past it, the next tier.
const MAX_TRIED: usize = 32;

/// Whether `ops`, applied in order to `edition`, give `expected`.
fn gives(edition: &Edition, ops: &[Operation], rev: &str, expected: &Edition) -> bool {
    let mut trial = edition.clone();
    ops.iter().all(|op| {
        matches!(
            edit::apply(&mut trial, op, Some(rev)),
            Edited::Applied { .. }
        )
    }) && trial.fingerprint() == expected.fingerprint()
}

fn replace(at: &Ref, rev: &str, find: &str, to: &str, count: Option<usize>) -> Operation {
    Operation::ReplaceText {
        at: at.clone(),
        if_match: rev.to_owned(),
        find: find.to_owned(),
        replace: to.to_owned(),
        mode: MatchMode::Literal,
        count,
    }
}

/// One `replace_text` per distinct (match, replacement), in order of first appearance, with
/// the count of its matches (none when it replaces every occurrence).
fn by_match(
    view: &Readable,
    hits: &[(Range<usize>, String)],
    edition: &Edition,
    at: &Ref,
    rev: &str,
) -> Option<Vec<Operation>> {
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (range, to) in hits {
        let key = (&view.text[range.clone()], to.as_str());
        let count = counts.entry(key).or_insert(0);
        if *count == 0 {
            order.push(key);
        }
        *count += 1;
    }
    if order.len() > MAX_TRIED {
        return None;
    }
    let ops = order
        .into_iter()
        .map(|(find, to)| {
            let count = counts.get(&(find, to)).copied().unwrap_or(1);
            let every = occurrences(&edition.runs, find) == count;
            replace(at, rev, find, to, (!every).then_some(count))
        })
        .collect();
    Some(ops)
}

/// How many times `find` occurs (apart) in the text runs, branches included.
fn occurrences(runs: &[Run], find: &str) -> usize {
    runs.iter()
        .map(|run| match run {
            Run::Text { text, .. } => text.matches(find).count(),
            Run::Switch(s) => s.branches.iter().map(|b| occurrences(&b.runs, find)).sum(),
            Run::Code(_) => 0,
        })
        .sum()
}

/// One `replace_text` per text run that changed, its whole text for its new text.
fn by_run(edition: &Edition, expected: &Edition, at: &Ref, rev: &str) -> Option<Vec<Operation>> {
    let mut ops = Vec::new();
    changed_runs(&edition.runs, &expected.runs, &mut |old, new| {
        ops.push(replace(at, rev, old, new, Some(1)));
    });
    (!ops.is_empty()
        && ops
            .iter()
            .all(|op| matches!(op, Operation::ReplaceText { find, .. } if !find.is_empty())))
    .then_some(ops)
}

fn changed_runs(old: &[Run], new: &[Run], each: &mut dyn FnMut(&str, &str)) {
    for (a, b) in old.iter().zip(new) {
        match (a, b) {
            (Run::Text { text: x, .. }, Run::Text { text: y, .. }) if x != y => each(x, y),
            (Run::Switch(x), Run::Switch(y)) => {
                for (p, q) in x.branches.iter().zip(&y.branches) {
                    changed_runs(&p.runs, &q.runs, each);
                }
            }
            _ => {}
        }
    }
}

/// One `set_content` of the whole substituted text, when the edition has no switch (whose
/// branches `set_content` reaches one at a time).
fn whole(expected: &Edition, at: &Ref, rev: &str) -> Option<Vec<Operation>> {
    if expected.runs.iter().any(|r| matches!(r, Run::Switch(_))) {
        return None;
    }
    Some(vec![Operation::SetContent {
        at: at.clone(),
        if_match: rev.to_owned(),
        content: projection::render(&expected.runs).0,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(script: &str, text: &str) -> String {
        let script = Script::parse(script).unwrap();
        let view = Readable::of(&Edition::new(vec![Run::text(text)]));
        let mut n = 0;
        let mut out = text.to_owned();
        let mut hits = Vec::new();
        for caps in script.regex.captures_iter(&view.text) {
            n += 1;
            let (take, more) = script.takes(n);
            if take {
                hits.push((caps.get(0).unwrap().range(), script.expand(&caps)));
            }
            if !more {
                break;
            }
        }
        for (r, to) in hits.iter().rev() {
            out.replace_range(r.clone(), to);
        }
        out
    }

    #[test]
    fn scripts_parse_as_sed_reads_them() {
        assert_eq!(sub("s/a/b/", "a a a"), "b a a");
        assert_eq!(sub("s/a/b/g", "a a a"), "b b b");
        assert_eq!(sub("s/a/b/2", "a a a"), "a b a");
        assert_eq!(sub("s/a/b/2g", "a a a"), "a b b");
        assert_eq!(sub("s/A/b/gi", "a A"), "b b");
        assert_eq!(
            sub(r"s/(\w+) (\w+)/\2 \1 [&]/", "hello world"),
            "world hello [hello world]"
        );
        assert_eq!(sub(r"s|/usr|/opt\|x|", "/usr/bin"), "/opt|x/bin");
        assert_eq!(sub(r"s/x/a\/b\&/", "x"), "a/b&");
    }

    #[test]
    fn any_script_parses_or_is_refused_and_never_panics() {
        // A fixed xorshift stream over the characters a script is made of, multi-byte ones too.
        let alphabet: Vec<char> = "s/|#\\&()[]{}*+?^$.gGiI0123456789 \nabcé€😀"
            .chars()
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut script = String::from("s");
            for _ in 0..(state % 24) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                script.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            if let Ok(parsed) = Script::parse(&script) {
                let edition = Edition::new(vec![Run::text("abc é€ a/b (x) 123")]);
                let view = Readable::of(&edition);
                for caps in parsed.regex.captures_iter(&view.text).take(50) {
                    let _ = parsed.expand(&caps);
                }
            }
        }
    }

    #[test]
    fn bad_scripts_are_usage_errors() {
        for bad in [
            "", "y/a/b/", "s", "s/a/b", "s/a/b/q", "s//b/", "s/(/b/", r"s/a/\1/", "s/a/b/0",
        ] {
            let err = Script::parse(bad).unwrap_err();
            assert!(matches!(err, HostError::Usage { .. }), "{bad}: {err}");
        }
    }
}
