//! Qt Linguist `.ts` translation files: bilingual like XLIFF, one block per `<message>`, its
//! `<source>` the source edition and its `<translation>` the edition of the file's language.
//!
//! Choices:
//! - **Telling it from TypeScript**: `.ts` is also TypeScript, whose comments kapi reads. A
//!   `.ts` file is this format when its first bytes show an XML `<TS>` root element (a BOM,
//!   the declaration and `<!DOCTYPE TS>` may come first, [`is_ts`]); any other `.ts` file is
//!   TypeScript. Detection, `kapi init` and collections all ask [`super::for_file`], which
//!   sniffs in registry order, this format before TypeScript.
//! - **Blocks and keys**: every `<message>`, role `key`, in document order. Its key is the
//!   message's `id` when it has one (`qsTrId`), else `{context}/{source}` (the `<name>` of
//!   the enclosing `<context>` and the source text), with `/{comment}` when the message has a
//!   disambiguating `<comment>`: what Qt itself tells messages apart by. Repeats get `#2`.
//! - **Notes**: the `<comment>` (disambiguation), `<extracomment>` (the developer's comment
//!   for translators) and `<translatorcomment>` texts, in that order: context, not prose.
//!   `<location>`, `<oldsource>`, `<oldcomment>` and `<userdata>` stay in the skeleton.
//! - **Editions**: the `<translation>` is `targets[lang]` with `lang` the `<TS language>`
//!   (`de_DE` is `de-DE`), else `target` when it names no language (a template's
//!   `language="templates"` or none). Its `type` is [`crate::model::Edition::state`]:
//!   `unfinished` (not yet translated or the source changed: lupdate's word, and the draft
//!   mark a tool's or an agent's translation gets), `vanished` or `obsolete` (the message is
//!   gone from the code: the block is not translatable and is locked); no `type` is a
//!   finished translation. A message with no `<translation>` has no target edition; one can
//!   be added.
//! - **Plurals**: a `numerus="yes"` message's translation is a plural switch (pivot `n`)
//!   with one branch per `<numerusform>`, named by the CLDR category each serves under Qt's
//!   rule for the language ([`numerus`]: Russian `one few many`, Japanese `other`), and the
//!   switch records those forms ([`crate::model::Forms`]), so the `plurals` analyzer reports
//!   a translation with fewer forms than Qt asks for. Its source is one text, as Qt keeps it.
//! - **Runs**: entities and character references are decoded; `<byte value>` elements are
//!   codes. Qt's `%1`…`%99`, `%L1` and `%n` arguments and HTML tags of rich text are codes a
//!   translation keeps.
//! - **Writing**: only edited editions are re-rendered, text escaped. A numerus translation
//!   is written whole from its switch, one `<numerusform>` per branch laid out as the file
//!   lays them; a plain text written to a numerus message fills each form the language
//!   takes. A `type` change rewrites the attribute in place, adds it or drops it; a state
//!   other than `unfinished`, `vanished` and `obsolete` is refused. A translation added to
//!   a message that had none goes after the source and comments, indented as the source.
//!   Everything else is copied byte for byte.
//! - **Limits**: as every XML reader ([`super::xml`]): 256 levels of nesting, the key
//!   budget, [`super::MAX_CODES`] codes in a block.

pub mod numerus;
mod write;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::inline::placeholders::{self, Ids, Syntaxes};
use super::output::Output;
use super::xliff::{self, Inline};
use super::xml::{self, Tree};
use super::{Capabilities, Format, FormatInfo, Keys, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, Branch, Edition, Forms, Role, Run, Switch, SwitchKind};

pub const INFO: FormatInfo = FormatInfo {
    id: "qt",
    name: "Qt Linguist TS",
    extensions: &["ts"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
        comments: false,
    },
};

/// The states a `<translation type>` takes.
pub const STATES: &[&str] = &["unfinished", "vanished", "obsolete"];

pub struct QtTs;

impl Format for QtTs {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(xml::decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(parsed)
    }

    fn sniff(&self, head: &[u8]) -> bool {
        is_ts(head)
    }
}

/// Whether a file's first bytes show a Qt Linguist `<TS>` root element.
pub fn is_ts(head: &[u8]) -> bool {
    xml::sniff_root(head).is_some_and(|(name, _)| name == "TS")
}

/// HTML tags of rich text (`<b>`, `<br/>`) are codes; Qt's own arguments are split after.
const SYNTAXES: Syntaxes = Syntaxes {
    html: true,
    ..Syntaxes::NONE
};

/// Qt's arguments: `%1` to `%99`, `%L1`, `%n` and `%Ln`.
static ARG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"%L?(?:[1-9][0-9]?|n)").unwrap_or_else(|_| unreachable!()));

/// Every element inside a `<source>` or `<translation>` (`<byte>`, `<lengthvariant>`) is
/// one code.
fn classify(_: &Tree, _: usize) -> Inline {
    Inline::Standalone
}

/// What a `<message>` holds.
#[derive(Default)]
struct Parts {
    source: Option<usize>,
    translation: Option<usize>,
    /// The last of `<source>`, `<oldsource>`, `<comment>`, `<oldcomment>`,
    /// `<extracomment>`, `<translatorcomment>`: a missing translation goes after it.
    after: Option<usize>,
    comment: Option<String>,
    notes: Vec<String>,
}

fn parts(tree: &Tree, message: usize) -> Result<Parts, ReadError> {
    let mut parts = Parts::default();
    for child in tree.children(message) {
        let local = tree.local(child);
        match local {
            "source" | "translation" => {
                let slot = if local == "source" {
                    &mut parts.source
                } else {
                    &mut parts.translation
                };
                if slot.is_some() {
                    return Err(xliff::at(
                        tree,
                        child,
                        format!("a second `<{local}>` in a `<message>`: a message holds one"),
                    ));
                }
                *slot = Some(child);
            }
            "comment" | "extracomment" | "translatorcomment" => {
                let text = tree.text_content(child);
                if local == "comment" {
                    parts.comment = Some(text.clone());
                }
                if !text.trim().is_empty() {
                    parts.notes.push(text);
                }
            }
            _ => {}
        }
        if matches!(
            local,
            "source"
                | "oldsource"
                | "comment"
                | "oldcomment"
                | "extracomment"
                | "translatorcomment"
        ) {
            parts.after = Some(child);
        }
    }
    Ok(parts)
}

/// The language tag a `<TS language>` value names (`de_DE` → `de-DE`); `target` when it
/// names none (`templates`, empty).
pub fn language(value: Option<&str>) -> String {
    let tag = value.map(str::trim).unwrap_or_default().replace('_', "-");
    if crate::project::locales::is_tag(&tag) {
        tag
    } else {
        "target".to_owned()
    }
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each message to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = Tree::parse(text)?;
    if tree.qname(tree.root) != "TS" {
        return Err(xliff::at(
            &tree,
            tree.root,
            format!(
                "the root element is `<{}>`: expected `<TS>` (a Qt Linguist file)",
                tree.qname(tree.root)
            ),
        ));
    }
    let lang = language(tree.attr(tree.root, "language").as_deref());
    let forms = numerus::forms(&lang);
    let mut out = Output::new(INFO.id, skeleton, each);
    let messages = (0..tree.elements.len())
        .filter(|&i| tree.local(i) == "message")
        .count();
    out.reserve(messages);
    let mut keys = Keys::new(text.len());
    // Each context's name, read once.
    let mut contexts: HashMap<usize, String> = HashMap::new();
    for message in 0..tree.elements.len() {
        if tree.local(message) != "message"
            || xliff::ancestor(&tree, message, |i| tree.local(i) == "message").is_some()
        {
            continue;
        }
        let context = xliff::ancestor(&tree, message, |i| tree.local(i) == "context");
        let context = match context {
            Some(c) => contexts
                .entry(c)
                .or_insert_with(|| {
                    tree.children(c)
                        .find(|&n| tree.local(n) == "name")
                        .map(|n| tree.text_content(n))
                        .unwrap_or_default()
                })
                .clone(),
            None => String::new(),
        };
        let found = parts(&tree, message)?;
        let Some(source) = found.source else {
            return Err(xliff::at(
                &tree,
                message,
                "a `<message>` has no `<source>`: expected one",
            ));
        };
        let base = match tree.attr(message, "id").filter(|id| !id.trim().is_empty()) {
            Some(id) => id.into_owned(),
            None => {
                let mut base = format!("{context}/{}", tree.text_content(source));
                if let Some(comment) = found.comment.as_deref().filter(|c| !c.is_empty()) {
                    base.push('/');
                    base.push_str(comment);
                }
                base
            }
        };
        let at = tree.get(message).map_or(0, |e| e.open().start);
        let key = keys.key(&base, text, at)?;
        let numerus = tree.attr(message, "numerus").as_deref() == Some("yes");
        let message = Message {
            key,
            element: message,
            source,
            after: found.after.unwrap_or(source),
            translation: found.translation,
            notes: found.notes,
            numerus,
        };
        push(&mut out, &tree, &lang, forms.as_ref(), message);
    }
    Ok(out)
}

/// One `<message>` as read.
struct Message {
    key: String,
    element: usize,
    source: usize,
    after: usize,
    translation: Option<usize>,
    notes: Vec<String>,
    numerus: bool,
}

/// Reads `message` into a block with its holes and pushes it to `out`.
fn push(out: &mut Output<'_>, tree: &Tree, lang: &str, forms: Option<&Arc<Forms>>, m: Message) {
    let index = out.index();
    let mut block = Block::new(m.key, Role::Key, inline(tree, m.source));
    block.notes = m.notes;
    block.span = tree.get(m.element).map_or(0..0, xml::Element::span);
    out.skeleton
        .hole(xliff::edition_span(tree, m.source), index, &block.source);
    let Some(translation) = m.translation else {
        let at = tree.get(m.after).map_or(0, |e| e.span().end);
        out.skeleton.push_missing(at, index, lang);
        out.push(tree.text, block);
        return;
    };
    let runs = if m.numerus {
        vec![numerus_switch(tree, translation, lang, forms)]
    } else {
        inline(tree, translation)
    };
    let mut edition = Edition::new(runs);
    let state = tree.attr(translation, "type").map(|t| t.trim().to_owned());
    if let Some(gone) = state
        .as_deref()
        .filter(|s| matches!(*s, "vanished" | "obsolete"))
    {
        block.translatable = false;
        block.locked =
            Some(format!("type=\"{gone}\": the message is no longer in the code").into());
    }
    edition.state = state.filter(|s| !s.is_empty()).map(Box::from);
    let span = xliff::state_span(tree, translation, "type");
    out.skeleton.push_state(span, index, lang, Some(&edition));
    out.skeleton.push(
        xliff::edition_span(tree, translation),
        index,
        Some(lang),
        None,
        &edition.runs,
    );
    block.targets.insert(lang.to_owned(), edition);
    out.push(tree.text, block);
}

/// A numerus translation as a plural switch: a branch per `<numerusform>` (text directly
/// in the `<translation>`, which Qt does not write, is left out).
fn numerus_switch(tree: &Tree, translation: usize, lang: &str, forms: Option<&Arc<Forms>>) -> Run {
    let elements: Vec<usize> = tree
        .children(translation)
        .filter(|&c| tree.local(c) == "numerusform")
        .collect();
    let names = numerus::names(forms.map(Arc::as_ref), lang, elements.len());
    let branches = elements
        .iter()
        .zip(names)
        .map(|(&form, name)| Branch::new(name, inline(tree, form)))
        .collect();
    Run::Switch(Box::new(Switch {
        id: Ids::default().next(),
        kind: SwitchKind::Plural,
        pivot: "n".into(),
        branches,
        head: String::new(),
        tail: String::new(),
        src: tree.get(translation).map(|e| e.open().start),
        forms: forms.cloned(),
    }))
}

/// The runs of an element's content: text, `<byte>` codes, HTML tags and Qt arguments.
fn inline(tree: &Tree, element: usize) -> Vec<Run> {
    let runs = xliff::read_inline_with(tree, element, &classify, SYNTAXES);
    let mut ids = Ids::after(&runs);
    placeholders::split_at_matches(runs, &ARG, &mut ids, |_| true, placeholders::plain)
}

#[cfg(test)]
mod tests;
