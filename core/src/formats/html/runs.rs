//! A segment's runs: text, and codes for its tags (paired open and close, or standalone),
//! character references, comments and `translate="no"` elements; an attribute value's runs.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::elements::{CODE_INLINE, FORMATTING, INLINE_VOID, one_of, tag_class};
use super::lexer::{Kind, Token, entity_end, slice};
use super::reader::Reader;
use crate::formats::inline::placeholders::Ids;
use crate::model::{Code, CodeKind, Run};

impl Reader<'_, '_> {
    /// The runs of a segment's content clipped to `hole`, and whether all its prose lies
    /// inside code elements.
    pub(super) fn runs(&self, content: &[Token], hole: Range<usize>) -> (Vec<Run>, bool) {
        let text = self.text;
        let partner = pair_tags(content);
        let mut out = InlineRuns {
            ids: Ids::default(),
            close_ids: BTreeMap::new(),
            runs: Vec::with_capacity(content.len()),
            code_depth: 0,
            prose_outside_code: false,
        };
        let mut i = 0;
        while i < content.len() {
            let t = &content[i];
            let span = t.span.start.max(hole.start)..t.span.end.min(hole.end);
            let data = slice(text, &span);
            let name = &*t.name;
            let mut next = i + 1;
            match t.kind {
                Kind::Text => out.text(data, span.start),
                Kind::Entity => out.standalone("entity", data, true, span.start),
                Kind::Comment => out.standalone("comment", data, false, span.start),
                Kind::Decl => out.standalone("markup", data, false, span.start),
                Kind::Raw => out.standalone(name, data, false, span.start),
                Kind::Start => match partner[i] {
                    Some(close) if self.translate_no(t) == Some(true) => {
                        let whole = t.span.start..content[close].span.end;
                        out.standalone("notranslate", slice(text, &whole), false, whole.start);
                        next = close + 1;
                    }
                    Some(close) => {
                        let href = if name == "a" {
                            self.attr(t, "href")
                        } else {
                            None
                        };
                        out.open(close, name, data, href, span.start);
                    }
                    None => {
                        let deletable = one_of(name, FORMATTING);
                        out.standalone(tag_class(name), data, deletable, span.start);
                    }
                },
                Kind::End => out.close(i, name, data, span.start),
            }
            i = next;
        }
        (out.runs, !out.prose_outside_code)
    }
}

/// Pairs the tags of a segment's content: `partner[i]` is the index of the tag that
/// opens or closes the one at `i`, when it has one (an end tag closes the innermost open
/// tag of its name, and the tags left open inside it stay unpaired).
fn pair_tags(content: &[Token]) -> Vec<Option<usize>> {
    let mut partner: Vec<Option<usize>> = vec![None; content.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (i, t) in content.iter().enumerate() {
        match t.kind {
            Kind::Start if !t.self_closing && !one_of(&t.name, INLINE_VOID) => {
                open.push(i);
                *counts.entry(&*t.name).or_default() += 1;
            }
            Kind::End if counts.get(&*t.name).is_some_and(|&n| n > 0) => {
                if let Some(at) = open.iter().rposition(|&o| content[o].name == t.name) {
                    let o = open[at];
                    for &closed in &open[at..] {
                        if let Some(n) = counts.get_mut(&*content[closed].name) {
                            *n = n.saturating_sub(1);
                        }
                    }
                    open.truncate(at);
                    partner[o] = Some(i);
                    partner[i] = Some(o);
                }
            }
            _ => {}
        }
    }
    partner
}

/// A segment's runs as they are made.
struct InlineRuns {
    ids: Ids,
    /// The code ids of paired open tags, by the index of their end tag.
    close_ids: BTreeMap<usize, String>,
    runs: Vec<Run>,
    /// How many code elements (`code`, `kbd`…) are open.
    code_depth: usize,
    prose_outside_code: bool,
}

impl InlineRuns {
    fn text(&mut self, data: &str, at: usize) {
        if !data.is_empty() {
            if self.code_depth == 0 && !data.trim().is_empty() {
                self.prose_outside_code = true;
            }
            self.runs.push(Run::text_at(data, at));
        }
    }

    fn standalone(&mut self, class: &str, data: &str, deletable: bool, at: usize) {
        let id = self.ids.next();
        self.runs
            .push(code(id, CodeKind::Standalone, class, data, deletable, at));
    }

    /// A start tag closed by the tag at index `close`; a link keeps its `href`.
    fn open(&mut self, close: usize, name: &str, data: &str, href: Option<&str>, at: usize) {
        let id = self.ids.next();
        self.close_ids.insert(close, id.clone());
        let mut c = code(
            id,
            CodeKind::Open,
            tag_class(name),
            data,
            one_of(name, FORMATTING),
            at,
        );
        if let Run::Code(c) = &mut c
            && let Some(href) = href
        {
            c.attrs.insert("href".into(), href.into());
        }
        if one_of(name, CODE_INLINE) {
            self.code_depth += 1;
        }
        self.runs.push(c);
    }

    /// The end tag at index `i`: the close of its start tag's code, or standalone.
    fn close(&mut self, i: usize, name: &str, data: &str, at: usize) {
        match self.close_ids.remove(&i) {
            Some(id) => {
                if one_of(name, CODE_INLINE) {
                    self.code_depth = self.code_depth.saturating_sub(1);
                }
                self.runs.push(code(
                    id,
                    CodeKind::Close,
                    tag_class(name),
                    data,
                    one_of(name, FORMATTING),
                    at,
                ));
            }
            None => self.standalone(tag_class(name), data, false, at),
        }
    }
}

fn code(id: String, kind: CodeKind, class: &str, data: &str, deletable: bool, src: usize) -> Run {
    Run::Code(Box::new(
        Code::new(id, kind, class, data, deletable).at(src),
    ))
}

/// An attribute value's runs: text and references.
pub(super) fn value_runs(text: &str, value: Range<usize>) -> Vec<Run> {
    let b = text.as_bytes();
    let mut ids = Ids::default();
    let mut runs = Vec::new();
    let mut i = value.start;
    let mut from = value.start;
    while let Some(off) = b
        .get(i..value.end)
        .and_then(|r| r.iter().position(|&c| c == b'&'))
    {
        i += off;
        match entity_end(b, i).filter(|&e| e <= value.end) {
            Some(end) => {
                if i > from {
                    runs.push(Run::text_at(slice(text, &(from..i)), from));
                }
                runs.push(code(
                    ids.next(),
                    CodeKind::Standalone,
                    "entity",
                    slice(text, &(i..end)),
                    true,
                    i,
                ));
                i = end;
                from = end;
            }
            None => i += 1,
        }
    }
    if value.end > from {
        runs.push(Run::text_at(slice(text, &(from..value.end)), from));
    }
    runs
}
