//! Writes a String Catalog back: edited values escaped in place, changed states rewritten in
//! place, and added targets laid out whole as Xcode writes them.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::STATES;
use super::read::{self, Place, Spot, SubSpec};
use super::scan::Cursor;
use crate::formats::json::{Style, escape_into};
use crate::formats::{Hole, HoleKind, Parsed, WriteError, hole_edition};
use crate::model::{Block, Edition, Run, SwitchKind};

/// How the holes of one write are rendered: the file's style, and what is found once.
struct Writer<'p> {
    parsed: &'p Parsed,
    style: Style,
    /// The state each target read with, by block and language (from its state holes).
    states: OnceCell<HashMap<(usize, &'p str), Option<String>>>,
    /// The languages of the missing holes at each place, by block and offset, in order.
    groups: OnceCell<HashMap<(usize, usize), Vec<&'p str>>>,
    spots: Option<HashMap<usize, Spot>>,
}

pub(super) fn write(parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
    let mut writer = Writer {
        parsed,
        style: Style::of(&parsed.skeleton),
        states: OnceCell::new(),
        groups: OnceCell::new(),
        spots: None,
    };
    parsed
        .skeleton
        .fill(&parsed.document, |hole, runs| writer.hole(hole, runs))
}

impl<'p> Writer<'p> {
    fn key(&self, block: usize) -> String {
        self.parsed
            .document
            .blocks
            .get(block)
            .map_or_else(String::new, |b| b.key.clone())
    }

    fn hole(&mut self, hole: &Hole, runs: &[Run]) -> Result<String, WriteError> {
        match hole.kind() {
            HoleKind::Runs => {
                if runs.iter().any(|r| matches!(r, Run::Switch(_))) {
                    return Err(WriteError::Block {
                        key: self.key(hole.block),
                        message: "the file holds one string here, not a plural or select: \
                                  keep the edition's shape as read"
                            .into(),
                    });
                }
                Ok(self.value(runs))
            }
            HoleKind::State => self.state(hole),
            HoleKind::Missing => self.missing(hole),
        }
    }

    /// Runs as a JSON string's content.
    fn value(&self, runs: &[Run]) -> String {
        let mut value = String::new();
        crate::formats::render_runs(runs, &mut value, &mut |text, out| out.push_str(text));
        self.escape(&value)
    }

    fn escape(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 2);
        escape_into(text, &self.style, &mut out);
        out
    }

    /// A state hole: copied while the edition's state is the one read (each variation
    /// keeps its own), else the new state.
    fn state(&self, hole: &Hole) -> Result<String, WriteError> {
        let text = self.parsed.skeleton.text();
        let held = text.get(hole.span.clone()).unwrap_or_default();
        let edition = hole_edition(&self.parsed.document, hole);
        let Some(now) = edition.and_then(|e| e.state.as_deref()) else {
            return Ok(held.to_owned());
        };
        let states = self.states.get_or_init(|| {
            let mut held: HashMap<(usize, &str), Vec<String>> = HashMap::new();
            for h in &self.parsed.skeleton.holes {
                if let (HoleKind::State, Some(lang)) = (h.kind(), h.language()) {
                    let token = h.span.start.saturating_sub(1)..h.span.end + 1;
                    let state = Cursor::new(text).text_of(&token);
                    held.entry((h.block, lang)).or_default().push(state);
                }
            }
            held.into_iter()
                .map(|(k, v)| (k, read::summary(&v)))
                .collect()
        });
        let lang = hole.language().unwrap_or_default();
        let read = states.get(&(hole.block, lang)).cloned().flatten();
        if read.as_deref() == Some(now) {
            return Ok(held.to_owned());
        }
        check_state(now, &self.key(hole.block))?;
        Ok(self.escape(now))
    }

    /// A missing hole: empty while the block lacks the language; the first hole of a place
    /// whose block has its language writes every new language of that place.
    fn missing(&mut self, hole: &Hole) -> Result<String, WriteError> {
        let parsed = self.parsed;
        let Some(block) = parsed.document.blocks.get(hole.block) else {
            return Ok(String::new());
        };
        let lang = hole.language().unwrap_or_default();
        let groups = self.groups.get_or_init(|| {
            let mut groups: HashMap<(usize, usize), Vec<&str>> = HashMap::new();
            for h in &parsed.skeleton.holes {
                if let (HoleKind::Missing, Some(lang)) = (h.kind(), h.language()) {
                    groups
                        .entry((h.block, h.span.start))
                        .or_default()
                        .push(lang);
                }
            }
            groups
        });
        let present: Vec<&str> = groups
            .get(&(hole.block, hole.span.start))
            .map(|g| {
                g.iter()
                    .copied()
                    .filter(|l| block.targets.contains_key(l))
                    .collect()
            })
            .unwrap_or_default();
        if present.first() != Some(&lang) {
            return Ok(String::new());
        }
        if self.spots.is_none() {
            let found = read::spots(parsed.skeleton.text()).map_err(|e| WriteError::Skeleton {
                message: format!("the file no longer reads: {e}"),
            })?;
            self.spots = Some(found);
        }
        let spot = self
            .spots
            .as_ref()
            .and_then(|s| s.get(&hole.span.start))
            .ok_or_else(|| WriteError::Skeleton {
                message: format!("no place for a new localization at {}", hole.span.start),
            })?;
        self.place(spot, hole.block, block, &present)
    }

    /// The new localizations `langs` of `block`, laid out at `spot`.
    fn place(
        &self,
        spot: &Spot,
        index: usize,
        block: &Block,
        langs: &[&str],
    ) -> Result<String, WriteError> {
        let nl = spot.nl;
        let layout = Layout {
            step: &spot.step,
            nl,
        };
        let ind = &spot.indent;
        let loc_ind = if spot.wrap {
            format!("{ind}{}", spot.step)
        } else {
            ind.clone()
        };
        let mut members = Vec::with_capacity(langs.len());
        for lang in langs {
            let Some(edition) = block.targets.get(lang) else {
                continue;
            };
            let subs = self.subs(spot, index, block, lang);
            let loc = Loc {
                lang,
                key: &block.key,
                edition,
            };
            members.push(self.localization(&loc, &subs, &loc_ind, &layout)?);
        }
        let items = if spot.wrap {
            vec![format!(
                "\"localizations\" : {}",
                layout.object(&members, ind)
            )]
        } else {
            members
        };
        let mut out = String::new();
        match spot.place {
            Place::After => {
                for item in &items {
                    out.push(',');
                    out.push_str(nl);
                    out.push_str(ind);
                    out.push_str(item);
                }
            }
            Place::Before => {
                for item in &items {
                    out.push_str(item);
                    out.push(',');
                    out.push_str(nl);
                    out.push_str(ind);
                }
            }
            Place::Empty { bare } => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(nl);
                    out.push_str(ind);
                    out.push_str(item);
                }
                if bare {
                    out.push_str(nl);
                    out.push_str(&spot.outer);
                }
            }
        }
        Ok(out)
    }

    /// The substitutions a new localization `lang` of `block` takes: each of the key's
    /// substitutions whose `key/arg` block (just after it) has that language.
    fn subs<'b>(
        &'b self,
        spot: &'b Spot,
        index: usize,
        block: &Block,
        lang: &str,
    ) -> Vec<(&'b SubSpec, &'b Edition)> {
        let blocks = &self.parsed.document.blocks;
        let after = blocks.get(index + 1..).unwrap_or_default();
        let mut found = Vec::new();
        for sub in &spot.subs {
            let key = format!("{}/{}", block.key, sub.name);
            if let Some(edition) = after
                .iter()
                .take(spot.subs.len())
                .find(|b| b.key == key)
                .and_then(|b| b.targets.get(lang))
            {
                found.push((sub, edition));
            }
        }
        found
    }

    /// `"lang" : { … }` as Xcode writes it, its lines after the first indented from `ind`.
    fn localization(
        &self,
        loc: &Loc<'_>,
        subs: &[(&SubSpec, &Edition)],
        ind: &str,
        layout: &Layout<'_>,
    ) -> Result<String, WriteError> {
        let (lang, key, edition) = (loc.lang, loc.key, loc.edition);
        let inner = format!("{ind}{}", layout.step);
        let state = edition.state.as_deref().unwrap_or("needs_review");
        let mut members = vec![self.content(&edition.runs, state, &inner, layout, key)?];
        if !subs.is_empty() {
            let deeper = format!("{inner}{}", layout.step);
            let mut list = Vec::new();
            for (
                SubSpec {
                    name,
                    arg_num,
                    spec,
                },
                sub,
            ) in subs
            {
                let state = sub.state.as_deref().unwrap_or(state);
                let mut fields = Vec::new();
                if let Some(n) = arg_num {
                    fields.push(format!("\"argNum\" : {n}"));
                }
                if let Some(spec) = spec {
                    fields.push(format!("\"formatSpecifier\" : \"{}\"", self.escape(spec)));
                }
                let deepest = format!("{deeper}{}", layout.step);
                fields.push(self.content(&sub.runs, state, &deepest, layout, key)?.1);
                fields.sort();
                list.push(format!(
                    "\"{}\" : {}",
                    self.escape(name),
                    layout.object(&fields, &deeper)
                ));
            }
            members.push((
                "substitutions",
                format!("\"substitutions\" : {}", layout.object(&list, &inner)),
            ));
        }
        members.sort_by(|a, b| a.0.cmp(b.0));
        let members: Vec<String> = members.into_iter().map(|m| m.1).collect();
        Ok(format!(
            "\"{}\" : {}",
            self.escape(lang),
            layout.object(&members, ind)
        ))
    }

    /// The member that holds `runs` (on a line indented `ind`): a `stringUnit`, or
    /// `variations` of a plural or device switch.
    fn content(
        &self,
        runs: &[Run],
        state: &str,
        ind: &str,
        layout: &Layout<'_>,
        key: &str,
    ) -> Result<(&'static str, String), WriteError> {
        check_state(state, key)?;
        if let [Run::Switch(switch)] = runs {
            let kind = match (switch.kind, switch.pivot.as_str()) {
                (SwitchKind::Plural, _) => "plural",
                (SwitchKind::Select, "device") => "device",
                _ => {
                    return Err(WriteError::Block {
                        key: key.to_owned(),
                        message: format!(
                            "a {} switch on `{}`: a String Catalog varies by plural or device",
                            switch.kind.as_str(),
                            switch.pivot
                        ),
                    });
                }
            };
            let at_kind = format!("{ind}{}", layout.step);
            let at_case = format!("{at_kind}{}", layout.step);
            let at_inner = format!("{at_case}{}", layout.step);
            let mut branches: Vec<_> = switch.branches.iter().collect();
            branches.sort_by(|a, b| a.case.cmp(&b.case));
            let mut cases = Vec::with_capacity(branches.len());
            for branch in branches {
                let inner = self.content(&branch.runs, state, &at_inner, layout, key)?;
                cases.push(format!(
                    "\"{}\" : {}",
                    self.escape(&branch.case),
                    layout.object(&[inner.1], &at_case)
                ));
            }
            let by = format!("\"{kind}\" : {}", layout.object(&cases, &at_kind));
            return Ok((
                "variations",
                format!("\"variations\" : {}", layout.object(&[by], ind)),
            ));
        }
        if runs.iter().any(|r| matches!(r, Run::Switch(_))) {
            return Err(WriteError::Block {
                key: key.to_owned(),
                message: "text beside a switch: a String Catalog holds a string or variations"
                    .into(),
            });
        }
        let fields = [
            format!("\"state\" : \"{}\"", self.escape(state)),
            format!("\"value\" : \"{}\"", self.value(runs)),
        ];
        Ok((
            "stringUnit",
            format!("\"stringUnit\" : {}", layout.object(&fields, ind)),
        ))
    }
}

/// A new localization: its language, its block's key (for errors), its edition.
struct Loc<'l> {
    lang: &'l str,
    key: &'l str,
    edition: &'l Edition,
}

/// The file's layout: one step of indent and its line end.
struct Layout<'s> {
    step: &'s str,
    nl: &'s str,
}

impl Layout<'_> {
    /// `{`, each member on a line of its own one step in from `ind`, `}` at `ind`.
    fn object(&self, members: &[String], ind: &str) -> String {
        let mut out = String::from("{");
        for (i, member) in members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(self.nl);
            out.push_str(ind);
            out.push_str(self.step);
            out.push_str(member);
        }
        out.push_str(self.nl);
        out.push_str(ind);
        out.push('}');
        out
    }
}

/// Refuses a state a `stringUnit` does not take.
fn check_state(state: &str, key: &str) -> Result<(), WriteError> {
    if STATES.contains(&state) {
        return Ok(());
    }
    Err(WriteError::State {
        key: key.to_owned(),
        state: state.to_owned(),
        allowed: "new, translated, needs_review or stale".into(),
    })
}
