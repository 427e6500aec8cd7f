//! Reads a String Catalog: a first walk finds the source language and every language, a
//! second reads each key into a block (and its `key/arg` substitution blocks) and hands it on.

use std::collections::HashMap;
use std::ops::Range;

use super::scan::{Cursor, content};
use super::{INFO, MAX_VARIATIONS};
use crate::formats::inline::icu;
use crate::formats::inline::placeholders::{self, Ids, Syntaxes};
use crate::formats::output::Output;
use crate::formats::{Each, Keys, ReadError, Skeleton};
use crate::model::{Block, Branch, Code, CodeKind, Edition, Role, Run, Switch, SwitchKind};

/// One `stringUnit`: its `state` and `value` string tokens.
#[derive(Debug, Default)]
pub(super) struct Unit {
    pub state: Option<Range<usize>>,
    pub value: Option<Range<usize>>,
}

/// What a localization (or a variation's case) holds.
#[derive(Debug)]
pub(super) enum Content {
    Unit(Unit),
    Vary {
        kind: SwitchKind,
        pivot: String,
        at: usize,
        cases: Vec<(String, Content)>,
    },
}

/// A substitution of a localization.
#[derive(Debug)]
pub(super) struct Sub {
    pub name: String,
    pub content: Option<Content>,
    /// `argNum`'s value as written, and `formatSpecifier`'s text.
    pub arg_num: Option<String>,
    pub spec: Option<String>,
}

/// One language of `localizations`.
#[derive(Debug)]
pub(super) struct Loc {
    pub lang: String,
    pub content: Option<Content>,
    pub subs: Vec<Sub>,
}

/// An object's members by name and span (name token to value end), and its span.
#[derive(Debug, Default)]
pub(super) struct Members {
    pub object: Range<usize>,
    pub list: Vec<(String, Range<usize>)>,
}

/// One member of `strings`.
#[derive(Debug, Default)]
struct Entry {
    name: Range<usize>,
    span: Range<usize>,
    comment: Option<String>,
    extraction: Option<String>,
    no_translate: bool,
    locs: Option<(Members, Vec<Loc>)>,
    members: Members,
}

/// Where a missing localization goes ([`super::write`] renders it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// After the member ending here: `,` then the new one.
    After,
    /// Before the member starting here: the new one then `,`.
    Before,
    /// Inside an empty object (`bare`: nothing between its braces).
    Empty { bare: bool },
}

/// A missing localization's place, for the writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Spot {
    pub place: Place,
    /// A new `"localizations"` member holding the new languages (the key has none).
    pub wrap: bool,
    /// The indent of the members at the place, one step of it, the enclosing object's
    /// line's indent, and the file's line end.
    pub indent: String,
    pub step: String,
    pub outer: String,
    pub nl: &'static str,
    /// The key's substitutions, from its source language.
    pub subs: Vec<SubSpec>,
}

/// What a new localization's substitution copies from the source language's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SubSpec {
    pub name: String,
    /// `argNum`'s value as written, and `formatSpecifier`'s text.
    pub arg_num: Option<String>,
    pub spec: Option<String>,
}

/// Languages compare ASCII case-insensitively, then by bytes (`zh-Hans` < `zh-HK`).
pub(super) fn lang_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (x, y) = (a.bytes().map(|c| c.to_ascii_lowercase()), b.bytes());
    x.cmp(y.map(|c| c.to_ascii_lowercase()))
        .then_with(|| a.cmp(b))
}

/// The raw content of a member name token (escapes left as written).
fn raw<'t>(c: &Cursor<'t>, name: &Range<usize>) -> &'t str {
    c.text.get(content(name)).unwrap_or_default()
}

/// The source language and every other language, sorted, from a first walk.
fn survey(text: &str) -> Result<(String, Vec<String>), ReadError> {
    let mut c = Cursor::new(text);
    let mut source = None;
    let mut strings = false;
    let mut langs: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    if c.peek() != Some(b'{') {
        let at = c.pos;
        c.skip(0)?;
        c.end()?;
        return Err(c.error(
            at,
            "the root is not an object: a String Catalog is an object with `sourceLanguage` and `strings`",
        ));
    }
    c.object(0, &mut |c, name| {
        match raw(c, &name) {
            "sourceLanguage" if c.peek() == Some(b'"') => {
                let token = c.string()?;
                source = Some(c.text_of(&token));
            }
            "strings" => {
                strings = true;
                c.object(1, &mut |c, _| {
                    c.object(2, &mut |c, name| {
                        if raw(c, &name) == "localizations" {
                            c.object(3, &mut |c, lang| {
                                let lang = c.text_of(&lang);
                                if seen.insert(lang.clone()) {
                                    langs.push(lang);
                                }
                                c.skip(4).map(|_| ())
                            })?;
                        } else {
                            c.skip(3)?;
                        }
                        Ok(())
                    })
                    .map(|_| ())
                })?;
            }
            _ => {
                c.skip(1)?;
            }
        }
        Ok(())
    })?;
    c.end()?;
    let start = Cursor::new(text).pos;
    if !strings {
        return Err(c.error(start, "the catalog has no `strings` object"));
    }
    let Some(source) = source else {
        return Err(c.error(start, "the catalog has no `sourceLanguage` string"));
    };
    langs.sort_unstable_by(|a, b| lang_cmp(a, b));
    langs.dedup();
    langs.retain(|l| *l != source);
    Ok((source, langs))
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
pub(super) fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let out = Output::new(INFO.id, skeleton, each);
    walk(text, out, None)
}

/// Where every missing localization of `text` goes, by its hole's offset.
pub(super) fn spots(text: &str) -> Result<HashMap<usize, Spot>, ReadError> {
    let mut spots = HashMap::new();
    let mut drop = |_: &str, _: Block, _: &[crate::formats::Hole]| {};
    let out = Output::new(INFO.id, Skeleton::over(""), Some(&mut drop));
    walk(text, out, Some(&mut spots))?;
    Ok(spots)
}

/// The second walk: every key's blocks into `out`; `spots` collects the missing holes'
/// places when given.
fn walk<'e>(
    text: &str,
    out: Output<'e>,
    spots: Option<&mut HashMap<usize, Spot>>,
) -> Result<Output<'e>, ReadError> {
    let (source, langs) = survey(text)?;
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut reader = Reader {
        text,
        out,
        keys: Keys::new(text.len()),
        source,
        langs,
        spots,
        nl,
    };
    let mut c = Cursor::new(text);
    c.object(0, &mut |c, name| {
        if raw(c, &name) != "strings" {
            return c.skip(1).map(|_| ());
        }
        c.object(1, &mut |c, name| {
            let entry = read_entry(c, name)?;
            if !reader.out.refused() {
                reader.build(entry)?;
            }
            Ok(())
        })
        .map(|_| ())
    })?;
    Ok(reader.out)
}

/// A member of `strings`: the cursor at its value.
fn read_entry(c: &mut Cursor<'_>, name: Range<usize>) -> Result<Entry, ReadError> {
    let mut e = Entry {
        name: name.clone(),
        ..Entry::default()
    };
    let mut list = Vec::new();
    let object = c.object(2, &mut |c, member| {
        let n = raw(c, &member);
        match n {
            "comment" | "extractionState" if c.peek() == Some(b'"') => {
                let token = c.string()?;
                let value = Some(c.text_of(&token));
                if n == "comment" {
                    e.comment = value;
                } else {
                    e.extraction = value;
                }
            }
            "shouldTranslate" => {
                let span = c.skip(3)?;
                e.no_translate = c.is_false(&span);
            }
            "localizations" => e.locs = Some(read_locs(c)?),
            _ => {
                c.skip(3)?;
            }
        }
        list.push((n.to_owned(), member.start..c.pos));
        Ok(())
    })?;
    e.span = name.start..object.end;
    e.members = Members { object, list };
    Ok(e)
}

/// `localizations`: its members and each language's content.
fn read_locs(c: &mut Cursor<'_>) -> Result<(Members, Vec<Loc>), ReadError> {
    let mut locs = Vec::new();
    let mut list = Vec::new();
    let object = c.object(3, &mut |c, lang| {
        let lang_text = c.text_of(&lang);
        let (content, subs) = read_loc(c, 4)?;
        list.push((lang_text.clone(), lang.start..c.pos));
        // A repeated language stays in the skeleton: its first is the target.
        if locs.iter().any(|l: &Loc| l.lang == lang_text) {
            return Ok(());
        }
        locs.push(Loc {
            lang: lang_text,
            content,
            subs,
        });
        Ok(())
    })?;
    Ok((Members { object, list }, locs))
}

/// A localization (or a variation's case), `depth` objects deep: a `stringUnit` or
/// `variations`, and `substitutions`.
fn read_loc(c: &mut Cursor<'_>, depth: usize) -> Result<(Option<Content>, Vec<Sub>), ReadError> {
    read_case(c, depth, 0, true)
}

fn read_case(
    c: &mut Cursor<'_>,
    depth: usize,
    nesting: usize,
    subs_allowed: bool,
) -> Result<(Option<Content>, Vec<Sub>), ReadError> {
    let mut unit: Option<(usize, Unit)> = None;
    let mut vary: Option<(usize, Content)> = None;
    let mut subs = Vec::new();
    c.object(depth, &mut |c, name| {
        let at = c.pos;
        match raw(c, &name) {
            "stringUnit" => unit = Some((at, read_unit(c, depth + 1)?)),
            "variations" => vary = Some((at, read_vary(c, depth + 1, nesting + 1)?)),
            "substitutions" if subs_allowed => subs = read_subs(c, depth + 1)?,
            _ => {
                c.skip(depth + 1)?;
            }
        }
        Ok(())
    })?;
    let content = match (unit, vary) {
        (Some(_), Some((at, _))) => {
            return Err(c.error(
                at,
                "`variations` beside a `stringUnit`: a localization holds one or the other",
            ));
        }
        (Some((_, unit)), None) => Some(Content::Unit(unit)),
        (None, Some((_, vary))) => Some(vary),
        (None, None) => None,
    };
    Ok((content, subs))
}

fn read_unit(c: &mut Cursor<'_>, depth: usize) -> Result<Unit, ReadError> {
    let mut unit = Unit::default();
    c.object(depth, &mut |c, name| {
        let n = raw(c, &name);
        if matches!(n, "state" | "value") && c.peek() == Some(b'"') {
            let token = c.string()?;
            if n == "state" {
                unit.state = Some(token);
            } else {
                unit.value = Some(token);
            }
        } else {
            c.skip(depth + 1)?;
        }
        Ok(())
    })?;
    Ok(unit)
}

/// `variations`: one `plural` or `device` object of cases.
fn read_vary(c: &mut Cursor<'_>, depth: usize, nesting: usize) -> Result<Content, ReadError> {
    let at = c.pos;
    if nesting > MAX_VARIATIONS {
        return Err(ReadError::too_deep(
            c.text,
            at,
            "variations",
            MAX_VARIATIONS,
        ));
    }
    let mut found: Option<Content> = None;
    c.object(depth, &mut |c, name| {
        let (kind, pivot) = match raw(c, &name) {
            "plural" => (SwitchKind::Plural, "count"),
            "device" => (SwitchKind::Select, "device"),
            other => {
                return Err(c.error(
                    name.start,
                    format!("variations by `{other}`: kapi reads `plural` and `device` variations"),
                ));
            }
        };
        if found.is_some() {
            return Err(c.error(
                name.start,
                "two kinds of variations side by side: nest one inside the other's cases",
            ));
        }
        let at = c.pos;
        let mut cases = Vec::new();
        c.object(depth + 1, &mut |c, case| {
            let label = c.text_of(&case);
            let (content, _) = read_case(c, depth + 2, nesting, false)?;
            // A repeated case stays in the skeleton: its first is the branch.
            if let Some(content) = content
                && !cases.iter().any(|(l, _)| *l == label)
            {
                cases.push((label, content));
            }
            Ok(())
        })?;
        found = Some(Content::Vary {
            kind,
            pivot: pivot.to_owned(),
            at,
            cases,
        });
        Ok(())
    })?;
    found.ok_or_else(|| c.error(at, "empty `variations`: expected `plural` or `device`"))
}

/// `substitutions`: each name's `argNum`, `formatSpecifier` and `variations`.
fn read_subs(c: &mut Cursor<'_>, depth: usize) -> Result<Vec<Sub>, ReadError> {
    let mut subs = Vec::new();
    c.object(depth, &mut |c, name| {
        let mut sub = Sub {
            name: c.text_of(&name),
            content: None,
            arg_num: None,
            spec: None,
        };
        c.object(depth + 1, &mut |c, member| {
            match raw(c, &member) {
                "variations" => {
                    let mut vary = read_vary(c, depth + 2, 1)?;
                    if let Content::Vary { pivot, .. } = &mut vary {
                        pivot.clone_from(&sub.name);
                    }
                    sub.content = Some(vary);
                }
                "formatSpecifier" if c.peek() == Some(b'"') => {
                    let token = c.string()?;
                    sub.spec = Some(c.text_of(&token));
                }
                "argNum" => {
                    let span = c.skip(depth + 2)?;
                    sub.arg_num = c.text.get(span).map(str::to_owned);
                }
                _ => {
                    c.skip(depth + 2)?;
                }
            }
            Ok(())
        })?;
        subs.push(sub);
        Ok(())
    })?;
    Ok(subs)
}

/// The second walk's state.
struct Reader<'t, 'e, 's> {
    text: &'t str,
    out: Output<'e>,
    keys: Keys,
    source: String,
    /// Every language but the source, sorted by [`lang_cmp`].
    langs: Vec<String>,
    spots: Option<&'s mut HashMap<usize, Spot>>,
    nl: &'static str,
}

/// Bytes charged to the key budget per missing hole (about what it costs).
const MISSING_COST: usize = 48;

impl Reader<'_, '_, '_> {
    /// Builds the blocks of one key and hands them on.
    fn build(&mut self, e: Entry) -> Result<(), ReadError> {
        let text = self.text;
        let c = Cursor::new(text);
        let index = self.out.index();
        let key_text = c.text_of(&e.name);
        let key = self.keys.key(&key_text, text, e.span.start)?;
        let locs: &[Loc] = e.locs.as_ref().map_or(&[], |(_, l)| l.as_slice());
        let source = locs.iter().find(|l| l.lang == self.source);
        let mut ids = Ids::default();
        let runs = match source.and_then(|s| s.content.as_ref()) {
            Some(content) => self.runs(content, index, None, "", &mut ids, &mut Vec::new()),
            None => value_runs(&c, &e.name, &mut ids),
        };
        let mut block = Block::new(key.clone(), Role::Key, runs);
        block.span = e.span.clone();
        block.notes.extend(e.comment.clone());
        if e.extraction.as_deref() == Some("stale") {
            block
                .notes
                .push("extractionState: stale (Xcode no longer finds this key in the code)".into());
        }
        if e.no_translate {
            block.translatable = false;
            block.locked = Some("shouldTranslate: false".into());
        }
        let source_lang = self.source.clone();
        for loc in locs.iter().filter(|l| l.lang != source_lang) {
            let Some(content) = &loc.content else {
                continue;
            };
            let edition = self.target(content, index, &loc.lang);
            block.targets.insert(loc.lang.clone(), edition);
        }
        if block.translatable {
            self.missing(&e, locs, source, index)?;
        }
        self.out.push(text, block);
        self.substitutions(&e, locs, &key)
    }

    /// A target edition with its holes: runs, then a state hole per state read.
    fn target(&mut self, content: &Content, index: usize, lang: &str) -> Edition {
        let mut ids = Ids::default();
        let mut states = Vec::new();
        let runs = self.runs(content, index, Some(lang), "", &mut ids, &mut states);
        let mut edition = Edition::new(runs);
        let c = Cursor::new(self.text);
        let texts: Vec<String> = states.iter().map(|s| c.text_of(s)).collect();
        edition.state = summary(&texts).map(Box::from);
        for state in &states {
            self.out
                .skeleton
                .push_state(content_span(state), index, lang, Some(&edition));
        }
        edition
    }

    /// The runs of `content`, pushing a hole per value (branch `path` below a switch);
    /// the state tokens read go to `states`.
    fn runs(
        &mut self,
        content: &Content,
        index: usize,
        lang: Option<&str>,
        path: &str,
        ids: &mut Ids,
        states: &mut Vec<Range<usize>>,
    ) -> Vec<Run> {
        match content {
            Content::Unit(unit) => {
                states.extend(unit.state.clone());
                let Some(value) = &unit.value else {
                    return Vec::new();
                };
                let runs = value_runs(&Cursor::new(self.text), value, ids);
                let branch = (!path.is_empty()).then_some(path);
                self.out
                    .skeleton
                    .push(content_span(value), index, lang, branch, &runs);
                runs
            }
            Content::Vary {
                kind,
                pivot,
                at,
                cases,
            } => {
                let id = ids.next();
                let mut branches = Vec::with_capacity(cases.len());
                for (case, inner) in cases {
                    let sub_path = if path.is_empty() {
                        format!("{pivot}:{case}")
                    } else {
                        format!("{path}/{pivot}:{case}")
                    };
                    let runs = self.runs(inner, index, lang, &sub_path, ids, states);
                    branches.push(Branch::new(case.clone(), runs));
                }
                vec![Run::Switch(Box::new(Switch {
                    id,
                    kind: *kind,
                    pivot: pivot.clone(),
                    branches,
                    head: String::new(),
                    tail: String::new(),
                    src: Some(*at),
                    forms: None,
                }))]
            }
        }
    }

    /// A missing hole for every language of the file the key lacks.
    fn missing(
        &mut self,
        e: &Entry,
        locs: &[Loc],
        source: Option<&Loc>,
        index: usize,
    ) -> Result<(), ReadError> {
        let mut have: Vec<&str> = locs.iter().map(|l| l.lang.as_str()).collect();
        have.sort_unstable();
        for lang in &self.langs {
            if have.binary_search(&lang.as_str()).is_ok() {
                continue;
            }
            self.keys
                .charge(MISSING_COST + lang.len(), self.text, e.span.start)?;
            let (members, name, wrap) = match &e.locs {
                Some((members, _)) => (members, lang.as_str(), false),
                None => (&e.members, "localizations", true),
            };
            let (at, place) = place(members, name);
            self.out.skeleton.push_missing(at, index, lang);
            if let Some(spots) = self.spots.as_deref_mut() {
                let (indent, step, outer) = indents(self.text, members, &e.members);
                let subs = source.map_or_else(Vec::new, |s| {
                    s.subs
                        .iter()
                        .map(|s| SubSpec {
                            name: s.name.clone(),
                            arg_num: s.arg_num.clone(),
                            spec: s.spec.clone(),
                        })
                        .collect()
                });
                spots.insert(
                    at,
                    Spot {
                        place,
                        wrap,
                        indent,
                        step,
                        outer,
                        nl: self.nl,
                        subs,
                    },
                );
            }
        }
        Ok(())
    }

    /// The `key/arg` blocks of a key's substitutions, in order of first appearance (the
    /// source language's first).
    fn substitutions(&mut self, e: &Entry, locs: &[Loc], key: &str) -> Result<(), ReadError> {
        let mut names: Vec<&str> = Vec::new();
        let ordered = locs
            .iter()
            .filter(|l| l.lang == self.source)
            .chain(locs.iter().filter(|l| l.lang != self.source));
        for loc in ordered.clone() {
            for sub in &loc.subs {
                if sub.content.is_some() && !names.contains(&sub.name.as_str()) {
                    names.push(&sub.name);
                }
            }
        }
        for name in names {
            let index = self.out.index();
            let sub_key = self
                .keys
                .key(&format!("{key}/{name}"), self.text, e.span.start)?;
            let found = |loc| sub_content(loc, name);
            let source = locs.iter().find(|l| l.lang == self.source).and_then(found);
            let runs = match source {
                Some(content) => self.runs(
                    content,
                    index,
                    None,
                    "",
                    &mut Ids::default(),
                    &mut Vec::new(),
                ),
                None => Vec::new(),
            };
            let mut block = Block::new(sub_key, Role::Key, runs);
            block.span = e.span.clone();
            if e.no_translate {
                block.translatable = false;
                block.locked = Some("shouldTranslate: false".into());
            }
            let source_lang = self.source.clone();
            for loc in locs.iter().filter(|l| l.lang != source_lang) {
                if let Some(content) = found(loc) {
                    let edition = self.target(content, index, &loc.lang);
                    block.targets.insert(loc.lang.clone(), edition);
                }
            }
            self.out.push(self.text, block);
        }
        Ok(())
    }
}

/// The content of `loc`'s substitution `name`.
fn sub_content<'l>(loc: &'l Loc, name: &str) -> Option<&'l Content> {
    loc.subs
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.content.as_ref())
}

/// A string token's content span.
fn content_span(token: &Range<usize>) -> Range<usize> {
    content(token)
}

/// The state an edition gets from its variations' states: theirs when they agree, else
/// the one most in need of work.
pub(super) fn summary(states: &[String]) -> Option<String> {
    let rank = |s: &str| match s {
        "new" => 1,
        "needs_review" => 2,
        "stale" => 3,
        "translated" => 4,
        _ => 0,
    };
    let first = states.first()?;
    if states.iter().all(|s| s == first) {
        return Some(first.clone());
    }
    states.iter().min_by_key(|s| rank(s)).cloned()
}

/// Where a member `name` sorts among `members`: after the one before it, before the first
/// when it sorts first, inside the braces of an empty object.
fn place(members: &Members, name: &str) -> (usize, Place) {
    let list = &members.list;
    let next = list
        .iter()
        .position(|(m, _)| lang_cmp(m, name) == std::cmp::Ordering::Greater);
    match (next, list.last()) {
        (Some(0), _) => (list[0].1.start, Place::Before),
        (Some(i), _) => (list[i - 1].1.end, Place::After),
        (None, Some((_, last))) => (last.end, Place::After),
        (None, None) => {
            let inside = members.object.start + 1;
            let bare = members.object.end == inside + 1;
            (inside, Place::Empty { bare })
        }
    }
}

/// The indent of `members` (their first one's line, else their object's line plus a
/// step), one step, and their object's line's indent.
fn indents(text: &str, members: &Members, entry: &Members) -> (String, String, String) {
    let line_indent = |at: usize| -> String {
        let before = text.get(..at).unwrap_or_default();
        let line = before.rfind('\n').map_or(before, |nl| &before[nl + 1..]);
        line.chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    };
    let outer = line_indent(members.object.start);
    let own = members.list.first().and_then(|(_, span)| {
        let before = text.get(..span.start)?;
        let line = &before[before.rfind('\n')? + 1..];
        line.chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| line.to_owned())
    });
    // The step: what the key's members add to its line, else two spaces (Xcode).
    let entry_own = entry.list.first().and_then(|(_, span)| {
        let before = text.get(..span.start)?;
        let line = &before[before.rfind('\n')? + 1..];
        line.chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| line.to_owned())
    });
    let entry_outer = line_indent(entry.object.start);
    let step = entry_own
        .as_deref()
        .and_then(|own| own.strip_prefix(entry_outer.as_str()))
        .filter(|s| !s.is_empty())
        .unwrap_or("  ")
        .to_owned();
    let indent = own.unwrap_or_else(|| format!("{outer}{step}"));
    (indent, step, outer)
}

/// A value's runs: escapes undone, printf placeholders and `%#@arg@` references as codes.
pub(super) fn value_runs(c: &Cursor<'_>, token: &Range<usize>, ids: &mut Ids) -> Vec<Run> {
    let span = content(token);
    let raw = c.text.get(span.clone()).unwrap_or_default();
    if !raw.contains('\\') {
        return split(raw, span.start, ids);
    }
    let (text, pieces) = c.decode(token);
    icu::remap(split(&text, 0, ids), &pieces.unwrap_or_default())
}

/// `text` (at offset `src`) split into text, printf codes and `%#@arg@` references.
fn split(text: &str, src: usize, ids: &mut Ids) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut last = 0;
    let mut at = 0;
    while let Some(found) = text.get(at..).and_then(|rest| rest.find('%')) {
        let start = at + found;
        let Some(len) = variable_len(&text[start..]) else {
            at = start + 1;
            continue;
        };
        if start > last {
            runs.extend(placeholders::split(
                &text[last..start],
                Some(src + last),
                Syntaxes::PRINTF,
                ids,
            ));
        }
        let data = &text[start..start + len];
        let code = Code::new(ids.next(), CodeKind::Standalone, "placeholder", data, false);
        runs.push(Run::from(code.at(src + start)));
        last = start + len;
        at = last;
    }
    if last < text.len() {
        runs.extend(placeholders::split(
            &text[last..],
            Some(src + last),
            Syntaxes::PRINTF,
            ids,
        ));
    }
    runs
}

/// The length of a `%#@name@` (or `%1$#@name@`) reference at the start of `text`.
fn variable_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 1;
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    if at > 1 {
        if bytes.get(at) != Some(&b'$') {
            return None;
        }
        at += 1;
    }
    if bytes.get(at..at + 2) != Some(b"#@") {
        return None;
    }
    at += 2;
    let name = bytes
        .get(at..)?
        .iter()
        .position(|&b| b == b'@' || b.is_ascii_whitespace())?;
    (name > 0 && bytes.get(at + name) == Some(&b'@')).then_some(at + name + 1)
}
