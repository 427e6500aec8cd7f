//! XLIFF 1.2 (and 1.0/1.1) bilingual files: one block per `<trans-unit>`, its `<source>` as
//! the source edition and its `<target>` as the edition of the file's `target-language`.
//!
//! Choices:
//! - **Blocks**: every `<trans-unit>` of the XLIFF namespace (any prefix: `<xlf:trans-unit>`
//!   reads the same), role `key`, in document order, nested `<group>`s included. A unit
//!   inside a `<bin-unit>` is read like any other; the binary itself stays in the skeleton.
//!   `translate="no"` on the unit (or inherited from a `<group>`) gives `translatable: false`
//!   and `locked: translate="no"`.
//! - **Keys**: the unit's `id` (else its `resname`, else `trans-unit`). When the file holds
//!   several `<file>` elements, the key is `{original}/{id}` (`original` of the enclosing
//!   `<file>`, else `file{N}`). Repeats get `#2`, `#3` ([`crate::model::KeyDeduper`]).
//! - **Limits**: elements nest at most 256 deep ([`super::MAX_DEPTH`], refused with
//!   [`ReadError::TooDeep`] at the start tag that goes past it); block keys may add up to four
//!   times the file's size plus 16 MB ([`super::KeyBudget`]: a long `original` repeats in every
//!   unit's key). A `<file>`'s and a `<group>`'s attributes are read once, not per unit.
//! - **Editions**: `<source>` is the source; `<target>` is `targets[lang]` with `lang` the
//!   `<file target-language>`, else `target`; its `state` attribute is `Edition.state`,
//!   verbatim. A unit with no `<target>` element has no target edition; one can be added
//!   (see Writing).
//!   `<note>` texts go to `block.notes`. A segmented unit (`<seg-source>` with
//!   `<mrk mtype="seg">`) is read as its whole `<source>`; the `<seg-source>`, every
//!   `<alt-trans>` and everything else outside `<source>`/`<target>` stay in the skeleton.
//!   A unit without `<source>`, or with a second `<source>` or `<target>`, is refused.
//! - **Codes**: `<g>` and `<mrk>` are paired (the start tag opens, the end tag closes; a
//!   `<mrk mtype="seg|protected">` is not deletable, other pairs are); `<x/>`, `<ph>…</ph>`,
//!   `<it>…</it>`, comments and processing instructions are standalone codes whose data is
//!   the whole element; `<bpt>…</bpt>`/`<ept>…</ept>` and `<bx/>`/`<ex/>` pair by `rid`
//!   (else `id`) and stand alone when unmatched. Code ids are `1`, `2`, … per edition
//!   ([`placeholders::Ids`]); the XLIFF `id` is kept in `attrs["id"]`. Inside text, `{0}`
//!   and printf placeholders (`%s`, `%1$d`) are standalone codes too.
//! - **Text**: entities and character references are decoded; CDATA content is text.
//!   Whitespace and line endings are kept as written (no `xml:space` folding). A run keeps
//!   its file offset only when it is a verbatim slice of the file.
//! - **Writing**: only edited editions are re-rendered: text escaped (`&amp;`, `&lt;`,
//!   `&gt;`), codes as their data. An edited empty `<target/>` becomes
//!   `<target>…</target>`. A target added to a unit that had none
//!   (`block.targets.insert(lang, edition)`) is written as a `<target>` right after the
//!   `</source>` (after the `</seg-source>` of a segmented unit, as the schema orders
//!   them), with the source's prefix, on a line of its own indented as the `<source>` when
//!   that is on one, and `state="…"` when the edition has a state. A target's changed state
//!   rewrites its `state` attribute in place (same quotes), adds it after the element name,
//!   or drops it when the state is taken away; an unchanged one is copied. A state must be
//!   one of XLIFF 1.2's (`new`, `needs-translation`, `needs-review-translation`,
//!   `translated`, `final`, `signed-off`… or an `x-` one), else the write is refused with
//!   [`WriteError::State`]. Everything else (declaration, encoding, BOM, namespaces,
//!   comments, CDATA of untouched editions, attribute order, whitespace) is copied.
//!
//! - **Sniffing**: the root `<xliff>`'s `version` (anything but `2.x`), else its namespace,
//!   tells this format from [`super::xliff2`]; a head with no visible root is left to this
//!   reader. Reading an XLIFF 2 file here is refused with a message naming `xliff2`.
//!
//! `<trans-unit id="4"><source>Hi <g id="1">you</g> {0}</source></trans-unit>` reads as
//! block `4`, source `Hi <x id="1"/>you<x id="/1"/> <x id="2/"/>`.

use std::collections::HashMap;

use super::inline::placeholders::{self, Ids, Syntaxes};
use super::output::Output;
use super::xml::{self, Token, Tree};
use super::{
    Capabilities, Format, FormatInfo, Hole, HoleKind, Keys, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Code, CodeKind, Edition, Role, Run};

pub const INFO: FormatInfo = FormatInfo {
    id: "xliff",
    name: "XLIFF 1.2",
    extensions: &["xlf", "xliff"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
        comments: false,
    },
};

pub struct Xliff;

impl Format for Xliff {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(xml::decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write(parsed, Version::V1)
    }

    fn sniff(&self, head: &[u8]) -> bool {
        // A head that shows no `<xliff>` root is left to this reader, whose errors say why.
        xml::xliff_major(head) != Some(2)
    }
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each unit to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = parse_tree(text, 1)?;
    let root = tree.root;
    let ns = tree.prefix(root);
    let is = |i: usize, local: &str| named(&tree, i, ns, local);
    let files: Vec<usize> = tree.children(root).filter(|&i| is(i, "file")).collect();
    let several = files.len() > 1;
    let mut out = Output::new(INFO.id, skeleton, each);
    let units = (0..tree.elements.len())
        .filter(|&i| is(i, "trans-unit"))
        .count();
    out.reserve(units);
    let mut keys = Keys::new(text.len());
    // What each `<file>` gives its units, and each element's `translate`, read once: a
    // `<file>` or `<group>` with many units is otherwise read again for every one.
    let mut per_file: HashMap<usize, (String, String)> = HashMap::new();
    let mut translates = HashMap::new();
    let no_file = (String::new(), "target".to_owned());
    for unit in 0..tree.elements.len() {
        if !is(unit, "trans-unit") {
            continue;
        }
        // A `<trans-unit>` inside another unit (markup inside a `<source>`) is that
        // unit's content, not a unit of its own: reading it would overlap the two.
        if ancestor(&tree, unit, |i| is(i, "trans-unit")).is_some() {
            continue;
        }
        let file = ancestor(&tree, unit, |i| is(i, "file"));
        let UnitParts {
            source,
            seg_source,
            target,
            notes,
        } = unit_parts(&tree, unit, &is)?;
        let id = tree
            .attr(unit, "id")
            .or_else(|| tree.attr(unit, "resname"))
            .map_or_else(|| "trans-unit".to_owned(), |id| id.into_owned());
        let (name, lang) = match file {
            Some(file) => &*per_file
                .entry(file)
                .or_insert_with(|| file_names(&tree, file, &files)),
            None => &no_file,
        };
        let lang = lang.clone();
        let base = match file {
            Some(_) if several => format!("{name}/{id}"),
            _ => id,
        };
        let translate = inherited(
            &tree,
            unit,
            |i| is(i, "trans-unit") || is(i, "group"),
            &mut translates,
        );
        let key = keys.key(&base, text, tree.get(unit).map_or(0, |e| e.open().start))?;
        let found = Found {
            key,
            element: unit,
            source,
            target,
            state: target.and_then(|t| tree.attr(t, "state")),
            state_on: target,
            after: seg_source.unwrap_or(source),
            notes,
            translate,
        };
        push_found(&mut out, &tree, &lang, &classify, found);
    }
    Ok(out)
}

/// One block as both XLIFF readers find it: its key, the element it spans (a 1.2
/// `<trans-unit>`, a 2 `<segment>`), its `<source>`, `<target>` and the target's `state`.
pub(super) struct Found<'t> {
    pub key: String,
    pub element: usize,
    pub source: usize,
    pub target: Option<usize>,
    pub state: Option<std::borrow::Cow<'t, str>>,
    /// The element whose start tag records the target's state (1.2: the `<target>`, none
    /// without one; 2: the `<segment>`).
    pub state_on: Option<usize>,
    /// The element after which a missing `<target>` is written (the `<source>`, or a 1.2
    /// `<seg-source>`).
    pub after: usize,
    pub notes: Vec<String>,
    /// The `translate` in force (`no` locks the block).
    pub translate: Option<String>,
}

/// Reads `found` into a block, with the skeleton's holes for its source and its target (the
/// target filed under `lang`), and pushes it to `out`.
pub(super) fn push_found(
    out: &mut Output<'_>,
    tree: &Tree,
    lang: &str,
    classify: &dyn Fn(&Tree, usize) -> Inline,
    found: Found<'_>,
) {
    let index = out.index();
    let runs = read_inline(tree, found.source, classify);
    let mut block = Block::new(found.key, Role::Key, runs);
    block.notes = found.notes;
    block.span = tree.get(found.element).map_or(0..0, xml::Element::span);
    if found.translate.as_deref() == Some("no") {
        block.translatable = false;
        block.locked = Some("translate=\"no\"".into());
    }
    out.skeleton
        .hole(edition_span(tree, found.source), index, &block.source);
    let edition = found.target.map(|target| {
        let mut edition = Edition::new(read_inline(tree, target, classify));
        edition.state = found.state.map(|s| Box::from(s.as_ref()));
        edition
    });
    // The state hole first: on an empty `<target/>` it starts where the content's does.
    if let Some(on) = found.state_on {
        let span = state_span(tree, on, "state");
        out.skeleton.push_state(span, index, lang, edition.as_ref());
    }
    match (found.target, edition) {
        (Some(target), Some(edition)) => {
            out.skeleton.push(
                edition_span(tree, target),
                index,
                Some(lang),
                None,
                &edition.runs,
            );
            block.targets.insert(lang.to_owned(), edition);
        }
        _ => {
            let at = tree.get(found.after).map_or(0, |e| e.span().end);
            out.skeleton.push_missing(at, index, lang);
        }
    }
    out.push(tree.text, block);
}

/// Where `element`'s start tag records a state: its attribute `attr` (`state`; Qt's `type`)
/// with the whitespace before it, else the empty span after its name (where one would go).
pub(super) fn state_span(tree: &Tree, element: usize, attr: &str) -> std::ops::Range<usize> {
    let Some(e) = tree.get(element) else {
        return 0..0;
    };
    let name_end = e.name().end;
    let found = xml::attributes(tree.text, name_end, &e.open())
        .map_while(Result::ok)
        .find(|a| tree.text.get(a.name.clone()) == Some(attr));
    match found {
        Some(attr) => {
            let before = tree.text.get(name_end..attr.name.start).unwrap_or_default();
            let spaces = before.len() - before.trim_end().len();
            attr.name.start - spaces..attr.value.end + 1
        }
        None => name_end..name_end,
    }
}

/// A `<trans-unit>`'s `<source>`, `<seg-source>`, `<target>` and the text of its notes.
struct UnitParts {
    source: usize,
    seg_source: Option<usize>,
    target: Option<usize>,
    notes: Vec<String>,
}

/// The parts of `unit` among its children (`is` tells an element by local name in the
/// document's namespace); a unit holds one `<source>` and at most one `<target>`.
fn unit_parts(
    tree: &Tree,
    unit: usize,
    is: &dyn Fn(usize, &str) -> bool,
) -> Result<UnitParts, ReadError> {
    let mut source = None;
    let mut seg_source = None;
    let mut target = None;
    let mut notes = Vec::new();
    for child in tree.children(unit) {
        if is(child, "source") {
            if source.is_some() {
                return Err(at(
                    tree,
                    child,
                    "a second `<source>` in a `<trans-unit>`: a unit holds one",
                ));
            }
            source = Some(child);
        } else if is(child, "target") {
            if target.is_some() {
                return Err(at(
                    tree,
                    child,
                    "a second `<target>` in a `<trans-unit>`: a unit holds one",
                ));
            }
            target = Some(child);
        } else if is(child, "note") {
            notes.push(tree.text_content(child));
        } else if is(child, "seg-source") {
            seg_source.get_or_insert(child);
        }
    }
    let Some(source) = source else {
        return Err(at(
            tree,
            unit,
            "a `<trans-unit>` has no `<source>`: expected one",
        ));
    };
    Ok(UnitParts {
        source,
        seg_source,
        target,
        notes,
    })
}

/// What a `<file>` gives its units: its name in their keys (`original`, else `fileN` by
/// its place among `files`) and the target language (`target` when it names none).
fn file_names(tree: &Tree, file: usize, files: &[usize]) -> (String, String) {
    let name = tree.attr(file, "original").map_or_else(
        || format!("file{}", files.binary_search(&file).unwrap_or(0) + 1),
        |o| o.into_owned(),
    );
    (name, target_language(tree, file, "target-language"))
}

/// The target language `attr` of `element` names, trimmed; `target` when it names none
/// (XLIFF 1.2's `<file target-language>`, XLIFF 2's `<xliff trgLang>`).
pub(super) fn target_language(tree: &Tree, element: usize, attr: &str) -> String {
    tree.attr(element, attr)
        .filter(|l| !l.trim().is_empty())
        .map_or_else(|| "target".to_owned(), |l| l.trim().to_owned())
}

/// Parses `text` as an XLIFF document of version `major` (1 or 2): another root or version
/// is refused, naming the format that reads it.
pub(super) fn parse_tree(text: &str, major: u8) -> Result<Tree<'_>, ReadError> {
    let tree = Tree::parse(text)?;
    expect_root(&tree, major)?;
    Ok(tree)
}

/// Refuses a document whose root is not `<xliff>` of this major version.
fn expect_root(tree: &Tree, major: u8) -> Result<(), ReadError> {
    if tree.local(tree.root) != "xliff" {
        return Err(at(
            tree,
            tree.root,
            format!(
                "the root element is `<{}>`: expected `<xliff>`",
                tree.qname(tree.root)
            ),
        ));
    }
    let tag = tree
        .get(tree.root)
        .and_then(|e| tree.text.get(e.open()))
        .unwrap_or_default();
    let found = xml::xliff_major(tag.as_bytes()).unwrap_or(1);
    if found == major {
        return Ok(());
    }
    let (version, id) = if found == 2 {
        ("2", super::xliff2::INFO.id)
    } else {
        ("1.2", INFO.id)
    };
    Err(at(
        tree,
        tree.root,
        format!("the file is XLIFF {version}: read it with format `{id}`"),
    ))
}

/// A syntax error at the start of element `index`.
pub(super) fn at(tree: &Tree, index: usize, message: impl Into<String>) -> ReadError {
    let offset = tree.get(index).map_or(0, |e| e.open().start);
    ReadError::syntax_at(tree.text, offset, message)
}

/// The nearest ancestor (not the element itself) that `want` accepts.
pub(super) fn ancestor(tree: &Tree, index: usize, want: impl Fn(usize) -> bool) -> Option<usize> {
    let mut current = tree.get(index)?.parent();
    while let Some(i) = current {
        if want(i) {
            return Some(i);
        }
        current = tree.get(i)?.parent();
    }
    None
}

/// The `translate` value on the element or its nearest ancestor that `scope` accepts and
/// that carries one.
/// `seen` keeps each element's own value, so a `<group>` over many units is read once.
pub(super) fn inherited(
    tree: &Tree,
    index: usize,
    scope: impl Fn(usize) -> bool,
    seen: &mut HashMap<usize, Option<String>>,
) -> Option<String> {
    let mut current = Some(index);
    while let Some(i) = current {
        if scope(i) {
            let own = seen
                .entry(i)
                .or_insert_with(|| tree.attr(i, "translate").map(|v| v.trim().to_owned()));
            if let Some(value) = own {
                return Some(value.clone());
            }
        }
        current = tree.get(i)?.parent();
    }
    None
}

/// Where an edition's content sits: between the tags, or the `/>` of an empty element
/// (which the writer turns into `>…</name>` when the edition gains content).
pub(super) fn edition_span(tree: &Tree, index: usize) -> std::ops::Range<usize> {
    match tree.get(index) {
        Some(e) if e.empty() => e.open().end.saturating_sub(2)..e.open().end,
        Some(e) => e.content(),
        None => 0..0,
    }
}

/// What an inline element is, for [`read_inline`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Inline {
    /// Content is text: the start tag opens a pair, the end tag closes it (an empty tag
    /// stands alone).
    Pair { deletable: bool },
    /// The whole element is one standalone code.
    Standalone,
    /// The whole element opens a pair closed by a later [`Inline::Finish`] with this key.
    Begin { key: String, deletable: bool },
    /// The whole element closes the pair a [`Inline::Begin`] with this key opened.
    Finish { key: String },
}

/// printf and brace placeholders in XLIFF text.
const SYNTAXES: Syntaxes = Syntaxes {
    brace: true,
    printf: true,
    ..Syntaxes::NONE
};

/// XLIFF 1.2 inline elements.
/// Whether element `i` is `ns:local` (`local` alone for an empty `ns`, or `:local`): what
/// comparing its prefix and local name says, without splitting its name at every ask.
pub(super) fn named(tree: &Tree, i: usize, ns: &str, local: &str) -> bool {
    let q = tree.qname(i).as_bytes();
    if ns.is_empty() {
        return q == local.as_bytes() || q.strip_prefix(b":") == Some(local.as_bytes());
    }
    q.len() == ns.len() + 1 + local.len()
        && q.starts_with(ns.as_bytes())
        && q.get(ns.len()) == Some(&b':')
        && q.ends_with(local.as_bytes())
}

fn classify(tree: &Tree, index: usize) -> Inline {
    if tree.prefix(index) != tree.prefix(tree.root) {
        return Inline::Standalone;
    }
    let link = || {
        tree.attr(index, "rid")
            .or_else(|| tree.attr(index, "id"))
            .unwrap_or_default()
            .into_owned()
    };
    match tree.local(index) {
        "g" => Inline::Pair { deletable: true },
        "mrk" => {
            let mtype = tree.attr(index, "mtype").unwrap_or_default();
            Inline::Pair {
                deletable: !matches!(mtype.as_ref(), "seg" | "protected"),
            }
        }
        "bx" => Inline::Begin {
            key: format!("bx:{}", link()),
            deletable: true,
        },
        "ex" => Inline::Finish {
            key: format!("bx:{}", link()),
        },
        "bpt" => Inline::Begin {
            key: format!("bpt:{}", link()),
            deletable: true,
        },
        "ept" => Inline::Finish {
            key: format!("bpt:{}", link()),
        },
        _ => Inline::Standalone,
    }
}

/// Text waiting to be split into runs: one verbatim slice keeps its offset.
#[derive(Default)]
struct Pending {
    text: String,
    src: Option<usize>,
}

impl Pending {
    fn push(&mut self, piece: &str, verbatim_at: Option<usize>) {
        if piece.is_empty() {
            return;
        }
        self.src = if self.text.is_empty() {
            verbatim_at
        } else {
            None
        };
        self.text.push_str(piece);
    }

    fn flush(&mut self, runs: &mut Vec<Run>, ids: &mut Ids, syntaxes: Syntaxes) {
        if self.text.is_empty() {
            return;
        }
        if placeholders::may_hold_code(&self.text) {
            runs.extend(placeholders::split(&self.text, self.src, syntaxes, ids));
            self.text.clear();
        } else {
            runs.push(Run::Text {
                text: std::mem::take(&mut self.text),
                src: self.src,
            });
        }
        self.src = None;
    }
}

fn code_at(
    tree: &Tree,
    index: usize,
    id: String,
    kind: CodeKind,
    data: std::ops::Range<usize>,
    deletable: bool,
) -> Code {
    let mut code = Code::new(
        id,
        kind,
        tree.local(index),
        tree.text.get(data.clone()).unwrap_or_default(),
        deletable,
    )
    .at(data.start);
    if let Some(xliff_id) = tree.attr(index, "id") {
        code.attrs.insert("id".into(), xliff_id.into_owned());
    }
    code
}

/// The runs of a `<source>`/`<target>` element's content, inline elements judged by
/// `classify`, brace and printf placeholders codes. The tree is well-formed, so the walk
/// never fails.
pub(super) fn read_inline(
    tree: &Tree,
    element: usize,
    classify: &dyn Fn(&Tree, usize) -> Inline,
) -> Vec<Run> {
    read_inline_with(tree, element, classify, SYNTAXES)
}

/// [`read_inline`] with the placeholder `syntaxes` of another format (Qt's `.ts`).
pub(super) fn read_inline_with(
    tree: &Tree,
    element: usize,
    classify: &dyn Fn(&Tree, usize) -> Inline,
    syntaxes: Syntaxes,
) -> Vec<Run> {
    let text = tree.text;
    let Some(range) = tree.get(element).map(xml::Element::content) else {
        return Vec::new();
    };
    let mut reader = InlineReader {
        tree,
        classify,
        runs: Vec::new(),
        ids: Ids::default(),
        pending: Pending::default(),
        syntaxes,
        open: Vec::new(),
        begins: HashMap::new(),
        next_element: element + 1,
    };
    let mut at = range.start;
    while at < range.end && !reader.ids.full() {
        let Ok((token, next)) = xml::next_token(text, at, range.end) else {
            break;
        };
        let mut after = next;
        match token {
            Token::Text(span) => {
                let raw = text.get(span.clone()).unwrap_or_default();
                match xml::unescape(text, raw, span.start) {
                    Ok(std::borrow::Cow::Borrowed(raw)) => {
                        reader.pending.push(raw, Some(span.start));
                    }
                    Ok(std::borrow::Cow::Owned(decoded)) => reader.pending.push(&decoded, None),
                    Err(_) => reader.pending.push(raw, None),
                }
            }
            Token::CData { inner, .. } => {
                reader.pending.push(
                    text.get(inner.clone()).unwrap_or_default(),
                    Some(inner.start),
                );
            }
            Token::Comment(_) | Token::Pi(_) | Token::Doctype(_) => reader.markup(&token),
            Token::Start { span, empty, .. } => match reader.start(span, empty) {
                Some(Some(end)) => after = end,
                Some(None) => {}
                None => break,
            },
            Token::End { span, .. } => reader.end(span),
        }
        at = after.max(at + 1);
    }
    reader.flush();
    reader.runs
}

/// The state of [`read_inline`]: the runs so far, the text not yet split, and the codes
/// waiting for their close.
struct InlineReader<'r, 't> {
    tree: &'r Tree<'t>,
    classify: &'r dyn Fn(&Tree, usize) -> Inline,
    runs: Vec<Run>,
    ids: Ids,
    pending: Pending,
    syntaxes: Syntaxes,
    /// Open pairs: (code id, deletable).
    open: Vec<(String, bool)>,
    /// Begins waiting for their finish, by key, latest last: (run index, deletable).
    begins: HashMap<String, Vec<(usize, bool)>>,
    /// The index of the element the next start tag opens.
    next_element: usize,
}

impl InlineReader<'_, '_> {
    fn flush(&mut self) {
        self.pending
            .flush(&mut self.runs, &mut self.ids, self.syntaxes);
    }

    fn push_code(&mut self, code: Code) {
        self.runs.push(Run::Code(Box::new(code)));
    }

    /// A standalone code holding the whole element `index`, whose span is `whole`.
    fn standalone(&mut self, index: usize, whole: std::ops::Range<usize>) -> Code {
        let id = self.ids.next();
        code_at(self.tree, index, id, CodeKind::Standalone, whole, false)
    }

    /// A comment, processing instruction or declaration: a standalone code.
    fn markup(&mut self, token: &Token) {
        self.flush();
        let class = if matches!(token, Token::Comment(_)) {
            "comment"
        } else {
            "pi"
        };
        let span = token.span();
        let data = self.tree.text.get(span.clone()).unwrap_or_default();
        let code = Code::new(self.ids.next(), CodeKind::Standalone, class, data, false);
        self.push_code(code.at(span.start));
    }

    /// A start tag: an open code, or a code for the whole element. Gives where the walk
    /// goes on (`Some(None)` after the tag, `Some(Some(end))` after the element), `None`
    /// when the tree has no such element.
    fn start(&mut self, span: std::ops::Range<usize>, empty: bool) -> Option<Option<usize>> {
        self.flush();
        let tree = self.tree;
        let index = self.next_element;
        let el = tree.get(index)?;
        let whole = el.span();
        match (self.classify)(tree, index) {
            Inline::Pair { deletable } if !empty => {
                let id = self.ids.next();
                let code = code_at(tree, index, id.clone(), CodeKind::Open, span, deletable);
                self.push_code(code);
                self.open.push((id, deletable));
                self.next_element = index + 1;
                return Some(None);
            }
            Inline::Pair { .. } | Inline::Standalone => {
                let code = self.standalone(index, whole.clone());
                self.push_code(code);
            }
            Inline::Begin { key, deletable } => {
                self.begins
                    .entry(key)
                    .or_default()
                    .push((self.runs.len(), deletable));
                let code = self.standalone(index, whole.clone());
                self.push_code(code);
            }
            Inline::Finish { key } => {
                let code = self.finish(index, whole.clone(), &key);
                self.push_code(code);
            }
        }
        self.next_element = el.subtree_end();
        Some(Some(whole.end))
    }

    /// The element that finishes the pair a begin with `key` opened: that begin becomes
    /// its Open code and this its Close, or it stands alone when no begin waits.
    fn finish(&mut self, index: usize, whole: std::ops::Range<usize>, key: &str) -> Code {
        let matched = self.begins.get_mut(key).and_then(Vec::pop);
        match matched {
            Some((run, deletable)) => match self.runs.get_mut(run) {
                Some(Run::Code(begin)) => {
                    begin.kind = CodeKind::Open;
                    begin.deletable = deletable;
                    let id = begin.id.clone();
                    code_at(self.tree, index, id, CodeKind::Close, whole, deletable)
                }
                _ => self.standalone(index, whole),
            },
            None => self.standalone(index, whole),
        }
    }

    /// An end tag: it closes the innermost open pair, or stands alone.
    fn end(&mut self, span: std::ops::Range<usize>) {
        self.flush();
        let (id, kind, deletable) = match self.open.pop() {
            Some((id, deletable)) => (id, CodeKind::Close, deletable),
            None => (self.ids.next(), CodeKind::Standalone, false),
        };
        let data = self.tree.text.get(span.clone()).unwrap_or_default();
        // The class of a close code is its element's local name.
        let name = data.trim_start_matches("</").trim_end_matches('>').trim();
        let local = name.rsplit(':').next().unwrap_or(name);
        self.push_code(Code::new(id, kind, local, data, deletable).at(span.start));
    }
}

/// What the XLIFF versions write differently: where a target's state goes (1.2 on the
/// `<target>`, 2 on the `<segment>`) and which states they take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    V1,
    V2,
}

/// XLIFF 1.2's `state` values; `x-…` ones are the file's own.
const STATES_1: &[&str] = &[
    "final",
    "needs-adaptation",
    "needs-l10n",
    "needs-review-adaptation",
    "needs-review-l10n",
    "needs-review-translation",
    "needs-translation",
    "new",
    "signed-off",
    "translated",
];

/// XLIFF 2's `<segment state>` values.
const STATES_2: &[&str] = &["initial", "translated", "reviewed", "final"];

impl Version {
    /// Refuses a state this version has no value for.
    fn check_state(self, state: &str, key: &str) -> Result<(), WriteError> {
        let (known, allowed) = match self {
            Version::V1 => (
                STATES_1.contains(&state) || state.starts_with("x-"),
                format!("{} or an `x-` state", STATES_1.join(", ")),
            ),
            Version::V2 => (STATES_2.contains(&state), STATES_2.join(", ")),
        };
        if known {
            return Ok(());
        }
        Err(WriteError::State {
            key: key.to_owned(),
            state: state.to_owned(),
            allowed,
        })
    }
}

/// Fills the skeleton: an edited edition is written with its text escaped and its codes as
/// their data; a changed state is written where `version` records it; a target the file
/// lacks is written after the unit's `</source>`.
pub(super) fn write(parsed: &Parsed, version: Version) -> Result<Vec<u8>, WriteError> {
    let original = parsed.skeleton.text();
    let document = &parsed.document;
    // Where each block's source content starts, for the style of a missing target: found
    // once, the first time one is written.
    let mut sources: Option<HashMap<usize, usize>> = None;
    parsed.skeleton.fill(document, |hole, runs| {
        let edition = super::hole_edition(document, hole);
        let key = || {
            document
                .blocks
                .get(hole.block)
                .map_or_else(String::new, |b| b.key.clone())
        };
        let state = edition.and_then(|e| e.state.as_deref());
        match hole.kind() {
            HoleKind::Runs => Ok(render(original, hole, runs)),
            HoleKind::State => render_state(original, hole.span.clone(), state, "state", |s| {
                version.check_state(s, &key())
            }),
            HoleKind::Missing => {
                let sources = sources.get_or_insert_with(|| source_starts(&parsed.skeleton.holes));
                let source = sources.get(&hole.block).copied();
                let state = match version {
                    Version::V1 => state,
                    Version::V2 => None,
                };
                if let Some(state) = state {
                    version.check_state(state, &key())?;
                }
                Ok(render_missing(
                    original,
                    hole.span.start,
                    source,
                    state,
                    runs,
                ))
            }
        }
    })
}

/// Where each block's source content (its source hole) starts.
fn source_starts(holes: &[Hole]) -> HashMap<usize, usize> {
    holes
        .iter()
        .filter(|h| h.kind() == HoleKind::Runs && h.language().is_none() && h.branch().is_none())
        .map(|h| (h.block, h.span.start))
        .collect()
}

/// The state attribute `attr` in place of `span` (a `state="…"` with the whitespace before
/// it, or the empty span after a tag's name): copied when it records `state` already, else
/// rewritten with the same quotes (once `check` allows the state), added, or dropped when
/// there is no state.
pub(super) fn render_state(
    original: &str,
    span: std::ops::Range<usize>,
    state: Option<&str>,
    attr: &str,
    check: impl Fn(&str) -> Result<(), WriteError>,
) -> Result<String, WriteError> {
    let held = original.get(span.clone()).unwrap_or_default();
    // The value as written: after `=`, between its quotes.
    let value = held.find('=').and_then(|eq| {
        let rest = held.get(eq + 1..)?;
        let open = rest.find(['"', '\''])?;
        let quote = rest.get(open..open + 1)?;
        let start = eq + 1 + open + 1;
        let end = held.get(start..)?.find(quote)? + start;
        Some(start..end)
    });
    let read = value.as_ref().map(|v| {
        let raw = held.get(v.clone()).unwrap_or_default();
        xml::unescape(original, raw, span.start + v.start)
            .map_or_else(|_| raw.to_owned(), std::borrow::Cow::into_owned)
    });
    if read.as_deref() == state {
        return Ok(held.to_owned());
    }
    let Some(state) = state else {
        return Ok(String::new());
    };
    check(state)?;
    let mut escaped = String::new();
    escape_attr(state, &mut escaped);
    Ok(match value {
        Some(v) => format!(
            "{}{escaped}{}",
            held.get(..v.start).unwrap_or_default(),
            held.get(v.end..).unwrap_or_default()
        ),
        None => format!(" {attr}=\"{escaped}\""),
    })
}

/// Escapes an attribute value for double quotes: `&`, `<`, `>` and `"`.
pub(super) fn escape_attr(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => {
                let mut buf = [0u8; 4];
                xml::escape_text(c.encode_utf8(&mut buf), out);
            }
        }
    }
}

/// A target the file lacked, written at `at` (right after the `</source>`): in the
/// source's style when `source` (where its content starts) shows it: the same prefix
/// (`<xlf:target>`), and on a line of its own indented like the `<source>` when that is on
/// one. `state` goes on the element (XLIFF 1.2).
fn render_missing(
    original: &str,
    at: usize,
    source: Option<usize>,
    state: Option<&str>,
    runs: &[Run],
) -> String {
    let before = original.get(..source.unwrap_or(at)).unwrap_or_default();
    let (lt, tag) = match source.and_then(|_| before.rfind('<')) {
        Some(lt) => (lt, before.get(lt + 1..).unwrap_or_default()),
        None => (before.len(), ""),
    };
    let name = tag
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
        .and_then(|end| tag.get(..end))
        .unwrap_or(tag);
    let prefix = name.rsplit_once(':').map_or("", |(p, _)| p);
    // The whitespace before `<source`, from its last line break: the line and indent.
    let lead = before.get(..lt).unwrap_or_default();
    let spaces = &lead[lead.trim_end().len()..];
    let sep = match spaces.rfind('\n') {
        Some(nl) if spaces.get(..nl).is_some_and(|s| s.ends_with('\r')) => &spaces[nl - 1..],
        Some(nl) => &spaces[nl..],
        None => "",
    };
    let name = if prefix.is_empty() {
        "target".to_owned()
    } else {
        format!("{prefix}:target")
    };
    let mut out = String::with_capacity(sep.len() + 2 * name.len() + 32);
    out.push_str(sep);
    out.push('<');
    out.push_str(&name);
    if let Some(state) = state {
        out.push_str(" state=\"");
        escape_attr(state, &mut out);
        out.push('"');
    }
    out.push('>');
    super::render_runs(runs, &mut out, &mut |text, out| xml::escape_text(text, out));
    out.push_str("</");
    out.push_str(&name);
    out.push('>');
    out
}

/// An edition's content in place of `hole`.
pub(super) fn render(original: &str, hole: &Hole, runs: &[Run]) -> String {
    let mut content = String::new();
    super::render_runs(runs, &mut content, &mut |text, out| {
        xml::escape_text(text, out)
    });
    let bytes = original.as_bytes();
    let empty_tag = hole.span.start > 0 && bytes.get(hole.span.start - 1) != Some(&b'>');
    if !empty_tag {
        return content;
    }
    if content.is_empty() {
        return original.get(hole.span.clone()).unwrap_or("/>").to_owned();
    }
    // `<target …/>` gains content: `<target …>content</target>`.
    let before = original.get(..hole.span.start).unwrap_or_default();
    let name = before
        .rfind('<')
        .and_then(|lt| before.get(lt + 1..))
        .map(|tag| {
            let end = tag
                .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
                .unwrap_or(tag.len());
            tag.get(..end).unwrap_or_default()
        })
        .unwrap_or("target");
    format!(">{content}</{name}>")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::formats::conformance;
    use crate::model::Document;

    fn read(text: &str) -> Parsed {
        Xliff
            .read(text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn parse_tree_takes_its_version_and_target_language_falls_back() {
        let v2 = "<xliff version=\"2.0\" trgLang=\" fr \"/>";
        let tree = parse_tree(v2, 2).unwrap();
        assert_eq!(target_language(&tree, tree.root, "trgLang"), "fr");
        assert_eq!(
            target_language(&tree, tree.root, "target-language"),
            "target"
        );
        let e = parse_tree(v2, 1).map(|_| ()).unwrap_err();
        assert!(
            e.to_string().contains("read it with format `xliff2`"),
            "{e}"
        );
        let e = parse_tree("<doc/>", 1).map(|_| ()).unwrap_err();
        assert!(e.to_string().contains("expected `<xliff>`"), "{e}");
    }

    #[test]
    fn push_found_fills_the_block_and_both_holes() {
        let text = "<u><source>Hi <g id=\"1\">you</g></source><target/></u>";
        let tree = Tree::parse(text).unwrap();
        let (source, target) = (1, 3);
        assert_eq!(
            (tree.local(source), tree.local(target)),
            ("source", "target")
        );
        let mut out = Output::new(INFO.id, Skeleton::over(text), None);
        let found = Found {
            key: "u".into(),
            element: tree.root,
            source,
            target: Some(target),
            state: Some("final".into()),
            state_on: Some(target),
            after: source,
            notes: vec!["N".into()],
            translate: Some("no".into()),
        };
        push_found(&mut out, &tree, "fr", &classify, found);
        let block = &out.document.blocks[0];
        assert_eq!(
            (block.key.as_str(), shape(&block.source.runs)),
            ("u", "Hi [o1:<g id=\"1\">]you[c1:</g>]".to_owned())
        );
        assert_eq!(
            (block.notes.clone(), block.span.clone()),
            (vec!["N".to_owned()], 0..text.len())
        );
        assert!(!block.translatable && block.locked.is_some());
        assert_eq!(block.targets["fr"].state.as_deref(), Some("final"));
        let spans: Vec<_> = out.skeleton.holes.iter().map(|h| h.span.clone()).collect();
        let target_at = text.find("/>").unwrap();
        let source_at = text.find("Hi").unwrap();
        let source_end = text.find("</source>").unwrap();
        assert_eq!(
            spans,
            [
                source_at..source_end,
                target_at..target_at,
                target_at..target_at + 2
            ]
        );
        assert_eq!(
            out.skeleton.holes[1].kind(),
            crate::formats::HoleKind::State
        );
    }

    /// The runs as a compact string: text, `{kind id: data}` codes.
    pub(crate) fn shape(runs: &[Run]) -> String {
        let mut out = String::new();
        for run in runs {
            match run {
                Run::Text { text, .. } => out.push_str(text),
                Run::Code(c) => {
                    let kind = match c.kind {
                        CodeKind::Open => "o",
                        CodeKind::Close => "c",
                        CodeKind::Standalone => "s",
                    };
                    let del = if c.deletable { "" } else { "!" };
                    out.push_str(&format!("[{kind}{}{del}:{}]", c.id, c.data));
                }
                Run::Switch(_) => out.push_str("[switch]"),
            }
        }
        out
    }

    /// One line per block: key, translatable, source, then each target with its state.
    pub(crate) fn blocks_table(document: &Document) -> String {
        let mut out = String::new();
        for b in &document.blocks {
            out.push_str(&format!(
                "{} | {} | {}",
                b.key,
                b.translatable,
                shape(&b.source.runs)
            ));
            for (lang, target) in &b.targets {
                out.push_str(&format!(" || {lang}"));
                if let Some(state) = &target.state {
                    out.push_str(&format!(" ({state})"));
                }
                out.push_str(&format!(": {}", shape(&target.runs)));
            }
            for note in &b.notes {
                out.push_str(&format!(" // {note}"));
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn reads_blocks_of_fixtures() {
        for name in [
            "okapi-xlifftest.xlf",
            "okapi-JMP-11-Test01.xlf",
            "okapi-Typo3Draft.xlf",
            "okapi-qualitycheck-Test01.xlf",
        ] {
            let path = conformance::fixtures("xliff")
                .into_iter()
                .find(|p| p.ends_with(name))
                .unwrap();
            let parsed = Xliff.read(&std::fs::read(path).unwrap()).unwrap();
            insta::assert_snapshot!(
                format!("xliff_blocks_{name}"),
                blocks_table(&parsed.document)
            );
        }
    }

    fn unit(body: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n<file original=\"a\" source-language=\"en\" target-language=\"fr\"><body>\n{body}\n</body></file></xliff>\n"
        )
    }

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&Xliff, "xliff") > 0);
    }

    #[test]
    fn inline_elements_become_codes_with_ids_per_edition() {
        let table: &[(&str, &str)] = &[
            ("a <g id=\"5\">b</g> c", "a [o1:<g id=\"5\">]b[c1:</g>] c"),
            ("x<x id=\"1\"/>y", "x[s1!:<x id=\"1\"/>]y"),
            (
                "<bpt id=\"1\">&lt;b></bpt>B<ept id=\"1\">&lt;/b></ept>",
                "[o1:<bpt id=\"1\">&lt;b></bpt>]B[c1:<ept id=\"1\">&lt;/b></ept>]",
            ),
            (
                "<bx id=\"1\" rid=\"r\"/>t<ex id=\"2\" rid=\"r\"/>",
                "[o1:<bx id=\"1\" rid=\"r\"/>]t[c1:<ex id=\"2\" rid=\"r\"/>]",
            ),
            (
                "<ept id=\"9\">x</ept> left",
                "[s1!:<ept id=\"9\">x</ept>] left",
            ),
            (
                "<ph id='1'>a<sub>b</sub></ph>.",
                "[s1!:<ph id='1'>a<sub>b</sub></ph>].",
            ),
            (
                "<it id='1' pos='open'>[b]</it>",
                "[s1!:<it id='1' pos='open'>[b]</it>]",
            ),
            (
                "<mrk mtype=\"seg\" mid=\"1\">S.</mrk> <mrk mtype=\"term\">T</mrk>",
                "[o1!:<mrk mtype=\"seg\" mid=\"1\">]S.[c1!:</mrk>] [o2:<mrk mtype=\"term\">]T[c2:</mrk>]",
            ),
            (
                "Version {0}: %s &amp; <!--c-->",
                "Version [s1!:{0}]: [s2!:%s] & [s3!:<!--c-->]",
            ),
            ("<g id=\"0\"/>t", "[s1!:<g id=\"0\"/>]t"),
            (
                "<g id='1'><g id='2'>n</g></g>",
                "[o1:<g id='1'>][o2:<g id='2'>]n[c2:</g>][c1:</g>]",
            ),
        ];
        for (source, want) in table {
            let parsed = read(&unit(&format!(
                "<trans-unit id=\"u\"><source>{source}</source></trans-unit>"
            )));
            assert_eq!(
                shape(&parsed.document.blocks[0].source.runs),
                *want,
                "{source}"
            );
        }
        let parsed = read(&unit(
            "<trans-unit id=\"u\"><source>a <g id=\"5\">b</g></source></trans-unit>",
        ));
        match &parsed.document.blocks[0].source.runs[1] {
            Run::Code(c) => assert_eq!(c.attrs.get("id").map(String::as_str), Some("5")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn units_read_as_blocks_with_targets_state_notes_and_locks() {
        let parsed = read(&unit(concat!(
            "<trans-unit id=\"1\"><source>One</source><target state=\"translated\">Un</target>",
            "<note>n1</note><note from=\"x\">n &amp; 2</note></trans-unit>\n",
            "<group translate=\"no\"><trans-unit id=\"2\"><source>Two</source></trans-unit></group>\n",
            "<trans-unit id=\"1\"><source>Again</source><alt-trans><target>Alt</target></alt-trans></trans-unit>",
        )));
        let blocks = &parsed.document.blocks;
        let keys: Vec<_> = blocks.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys, ["1", "2", "1#2"]);
        let fr = &blocks[0].targets["fr"];
        assert_eq!(
            (fr.plain_text().as_str(), fr.state.as_deref()),
            ("Un", Some("translated"))
        );
        assert_eq!(blocks[0].notes, ["n1", "n & 2"]);
        assert!(!blocks[1].translatable && blocks[1].locked.is_some());
        assert!(blocks[2].targets.is_empty(), "alt-trans is not an edition");
    }

    #[test]
    fn several_files_prefix_keys_with_their_original() {
        let text = "<xliff version=\"1.2\"><file original=\"a.po\"><body><trans-unit id=\"1\"><source>A</source></trans-unit></body></file>\
                    <file><body><trans-unit id=\"1\"><source>B</source><target>b</target></trans-unit></body></file></xliff>";
        let parsed = read(text);
        let keys: Vec<_> = parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(keys, ["a.po/1", "file2/1"]);
        assert!(parsed.document.blocks[1].targets.contains_key("target"));
    }

    #[test]
    fn an_edited_target_is_escaped_and_reads_back() {
        let text = unit(
            "<trans-unit id=\"1\"><source>A &amp; B</source><target>x <g id=\"1\">y</g></target></trans-unit>",
        );
        let mut parsed = read(&text);
        let target = parsed.document.blocks[0].targets.get_mut("fr").unwrap();
        target.runs[0] = Run::text("<1> & \"q\" ");
        let written = String::from_utf8(Xliff.write(&parsed).unwrap()).unwrap();
        assert!(
            written.contains("<target>&lt;1&gt; &amp; \"q\" <g id=\"1\">y</g></target>"),
            "{written}"
        );
        let again = read(&written);
        assert_eq!(
            again.document.blocks[0].targets["fr"].plain_text(),
            "<1> & \"q\" y"
        );
        assert_eq!(again.document.blocks[0].source.plain_text(), "A & B");
    }

    #[test]
    fn an_empty_target_element_gains_content_when_edited() {
        let text =
            unit("<trans-unit id=\"1\"><source>A</source><target state=\"new\" /></trans-unit>");
        let mut parsed = read(&text);
        assert_eq!(Xliff.write(&parsed).unwrap(), text.as_bytes());
        parsed.document.blocks[0]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("Un")];
        let written = String::from_utf8(Xliff.write(&parsed).unwrap()).unwrap();
        assert!(
            written.contains("<target state=\"new\" >Un</target>"),
            "{written}"
        );
        assert_eq!(
            read(&written).document.blocks[0].targets["fr"].plain_text(),
            "Un"
        );
    }

    #[test]
    fn a_unit_without_target_has_no_target_edition_but_a_place_for_one() {
        let parsed = read(&unit(
            "<trans-unit id=\"1\"><source>A</source></trans-unit>",
        ));
        assert!(parsed.document.blocks[0].targets.is_empty());
        let kinds: Vec<_> = parsed.skeleton.holes.iter().map(Hole::kind).collect();
        assert_eq!(kinds, [HoleKind::Runs, HoleKind::Missing]);
        let missing = &parsed.skeleton.holes[1];
        assert_eq!(missing.edition(), Some("fr"));
        let end = parsed.skeleton.text().find("</source>").unwrap() + "</source>".len();
        assert_eq!(missing.span, end..end);
    }

    #[test]
    fn cdata_and_entities_read_as_text_and_offsets_only_for_verbatim_text() {
        let text = unit(
            "<trans-unit id=\"1\"><source>plain</source><target>a<![CDATA[<b> & c]]></target></trans-unit>",
        );
        let parsed = read(&text);
        let block = &parsed.document.blocks[0];
        match &block.source.runs[0] {
            Run::Text {
                text: t,
                src: Some(at),
            } => assert_eq!(&text[*at..*at + t.len()], "plain"),
            other => panic!("{other:?}"),
        }
        assert_eq!(block.targets["fr"].plain_text(), "a<b> & c");
    }

    #[test]
    fn malformed_files_are_refused_with_positions() {
        let table: &[(&str, &str)] = &[
            (
                "<xliff><file><body><trans-unit id='1'><source>a</trans-unit>",
                "1:48: `</trans-unit>` closes `<source>` (opened at 1:39)",
            ),
            ("<xliff>\n<file>\n<body>", "3:1: `<body>` is never closed"),
            (
                "<xliff><file><body><trans-unit id='1'><source>&bad;</source></trans-unit></body></file></xliff>",
                "1:47: unknown entity `&bad;`",
            ),
            (
                "<xliff><file><body><trans-unit id='1'><target>a</target></trans-unit></body></file></xliff>",
                "1:20: a `<trans-unit>` has no `<source>`",
            ),
            (
                "<resources/>",
                "1:1: the root element is `<resources>`: expected `<xliff>`",
            ),
        ];
        for (text, want) in table {
            let got = Xliff
                .read(text.as_bytes())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(got.starts_with(want), "{text}: {got}");
        }
    }

    #[test]
    fn truncated_and_edited_fixtures_never_panic() {
        for path in conformance::fixtures("xliff") {
            let bytes = std::fs::read(&path).unwrap();
            for cut in conformance::cuts(bytes.len()) {
                if let Ok(mut parsed) = Xliff.read(&bytes[..cut]) {
                    for block in &mut parsed.document.blocks {
                        block.source.runs.push(Run::text(" <&> "));
                        for target in block.targets.values_mut() {
                            target.runs.push(Run::text("]]> &"));
                        }
                    }
                    let written = Xliff.write(&parsed).unwrap();
                    Xliff.read(&written).unwrap();
                }
            }
        }
    }

    #[test]
    fn every_fixture_sniffs_as_xliff_1() {
        for path in conformance::fixtures("xliff") {
            let bytes = std::fs::read(&path).unwrap();
            let head = &bytes[..bytes.len().min(4096)];
            assert!(Xliff.sniff(head), "{}", path.display());
            let found = crate::formats::for_file(&path, head).map(|f| f.info().id);
            assert_eq!(found, Some("xliff"), "{}", path.display());
        }
    }

    #[test]
    fn legacy_encodings_and_boms_round_trip() {
        let bytes = b"<?xml version=\"1.0\" encoding=\"windows-1252\"?>\r\n<xliff version=\"1.2\"><file target-language=\"fr\"><body><trans-unit id=\"1\"><source>caf\xe9</source><target>\x80</target></trans-unit></body></file></xliff>\r\n";
        let mut parsed = Xliff.read(bytes).unwrap();
        assert_eq!(parsed.document.blocks[0].source.plain_text(), "café");
        assert_eq!(Xliff.write(&parsed).unwrap(), bytes);
        parsed.document.blocks[0]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("été €")];
        let written = Xliff.write(&parsed).unwrap();
        assert!(written.windows(5).any(|w| w == b"\xe9t\xe9 \x80"));
    }

    /// Writes `parsed`, reads it back and asserts every target reads as it was written;
    /// a no-op write of the re-read gives the same bytes.
    pub(crate) fn written_and_read_back(format: &dyn Format, parsed: &Parsed) -> String {
        let out = format.write(parsed).unwrap_or_else(|e| panic!("{e}"));
        let again = format.read(&out).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            blocks_table(&again.document),
            blocks_table(&parsed.document),
            "{text}"
        );
        assert_eq!(format.write(&again).unwrap(), text.as_bytes());
        text
    }

    /// A target as `kapi translate` makes one: the source's runs with new text.
    pub(crate) fn draft(parsed: &Parsed, index: usize, text: &str, state: Option<&str>) -> Edition {
        let mut runs = parsed.document.blocks[index].source.runs.clone();
        if let Some(Run::Text { text: t, src }) = runs.first_mut() {
            *t = text.to_owned();
            *src = None;
        }
        Edition {
            runs,
            state: state.map(Box::from),
        }
    }

    #[test]
    fn a_target_added_to_a_unit_goes_after_its_source_in_the_files_style() {
        let text = concat!(
            "<?xml version=\"1.0\"?>\r\n<x:xliff version=\"1.2\" xmlns:x=\"urn:oasis:names:tc:xliff:document:1.2\">\r\n",
            " <x:file original=\"a\" source-language=\"en\" target-language=\"fr\"><x:body>\r\n",
            "    <x:trans-unit id=\"1\">\r\n      <x:source>Hello <x:g id=\"1\">you</x:g> &amp; {0}</x:source>\r\n      <x:note>n</x:note>\r\n    </x:trans-unit>\r\n",
            "    <x:trans-unit id=\"2\"><x:source>Bye</x:source></x:trans-unit>\r\n",
            "    <x:trans-unit id=\"3\">\r\n\t\t<x:source>A. B.</x:source>\r\n\t\t<x:seg-source><x:mrk mtype=\"seg\" mid=\"1\">A.</x:mrk> <x:mrk mtype=\"seg\" mid=\"2\">B.</x:mrk></x:seg-source>\r\n    </x:trans-unit>\r\n",
            "    <x:trans-unit id=\"4\"><x:source/></x:trans-unit>\r\n",
            " </x:body></x:file>\r\n</x:xliff>\r\n",
        );
        let mut parsed = read(text);
        let first = draft(&parsed, 0, "Bonjour ", Some("needs-review-translation"));
        let second = draft(&parsed, 1, "Au revoir <&>", Some("translated"));
        let third = draft(&parsed, 2, "A. B.", None);
        let fourth = Edition::new(vec![Run::text("vide")]);
        for (i, edition) in [first, second, third, fourth].into_iter().enumerate() {
            parsed.document.blocks[i]
                .targets
                .insert("fr".into(), edition);
        }
        let out = written_and_read_back(&Xliff, &parsed);
        assert!(out.contains("</x:source>\r\n      <x:target state=\"needs-review-translation\">Bonjour <x:g id=\"1\">you</x:g> &amp; {0}</x:target>\r\n      <x:note>"), "{out}");
        assert!(out.contains("<x:source>Bye</x:source><x:target state=\"translated\">Au revoir &lt;&amp;&gt;</x:target></x:trans-unit>"), "{out}");
        assert!(
            out.contains(
                "</x:seg-source>\r\n\t\t<x:target>A. B.</x:target>\r\n    </x:trans-unit>"
            ),
            "{out}"
        );
        assert!(
            out.contains("<x:source/><x:target>vide</x:target>"),
            "{out}"
        );
        // Untouched units stay byte for byte: only the inserted elements differ.
        let inserted: usize = [
            "\r\n      <x:target state=\"needs-review-translation\">Bonjour <x:g id=\"1\">you</x:g> &amp; {0}</x:target>",
            "<x:target state=\"translated\">Au revoir &lt;&amp;&gt;</x:target>",
            "\r\n\t\t<x:target>A. B.</x:target>",
            "<x:target>vide</x:target>",
        ]
        .iter()
        .map(|s| s.len())
        .sum();
        assert_eq!(out.len(), text.len() + inserted);
    }

    #[test]
    fn a_targets_state_attribute_is_changed_added_or_dropped() {
        let text = unit(concat!(
            "<trans-unit id=\"1\"><source>A</source><target state=\"new\" xml:lang=\"fr\">a</target></trans-unit>\n",
            "<trans-unit id=\"2\"><source>B</source><target>b</target></trans-unit>\n",
            "<trans-unit id=\"3\"><source>C</source><target  state = 'translated'>c</target></trans-unit>\n",
            "<trans-unit id=\"4\"><source>D</source><target/></trans-unit>\n",
            "<trans-unit id=\"5\"><source>E</source><target state=\"final\">e</target></trans-unit>",
        ));
        let mut parsed = read(&text);
        let states = [
            Some("translated"),
            Some("needs-review-translation"),
            Some("x-mine&\"yours\""),
            Some("signed-off"),
            None,
        ];
        for (block, state) in parsed.document.blocks.iter_mut().zip(states) {
            block.targets.get_mut("fr").unwrap().state = state.map(Box::from);
        }
        parsed.document.blocks[3]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("d")];
        let out = written_and_read_back(&Xliff, &parsed);
        for want in [
            "<target state=\"translated\" xml:lang=\"fr\">a</target>",
            "<target state=\"needs-review-translation\">b</target>",
            "<target  state = 'x-mine&amp;&quot;yours&quot;'>c</target>",
            "<target state=\"signed-off\">d</target>",
            "<source>E</source><target>e</target>",
        ] {
            assert!(out.contains(want), "{want}\n{out}");
        }
        // The state unchanged and the text edited: the attribute stays as written.
        let mut parsed = read(&text);
        parsed.document.blocks[2]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("C!")];
        let out = written_and_read_back(&Xliff, &parsed);
        assert_eq!(out, text.replace(">c</target>", ">C!</target>"));
    }

    #[test]
    fn a_state_xliff_has_no_value_for_is_refused_by_name() {
        let text = unit(concat!(
            "<trans-unit id=\"1\"><source>A</source><target>a</target></trans-unit>\n",
            "<trans-unit id=\"2\"><source>B</source></trans-unit>",
        ));
        for (index, state) in [(0, "fuzzy"), (1, "reviewed")] {
            let mut parsed = read(&text);
            let edition = draft(&parsed, index, "x", Some(state));
            parsed.document.blocks[index]
                .targets
                .insert("fr".into(), edition);
            let e = Xliff.write(&parsed).unwrap_err();
            let key = (index + 1).to_string();
            assert!(
                matches!(&e, WriteError::State { key: k, state: s, .. } if *k == key && s == state),
                "{e:?}"
            );
            assert!(e.to_string().contains("needs-review-translation"), "{e}");
        }
    }

    #[test]
    fn targets_added_to_many_units_write_in_linear_time() {
        let mut body = String::new();
        for i in 0..20_000 {
            body.push_str(&format!(
                "  <trans-unit id=\"{i}\">\n    <source>Text {i}</source>\n  </trans-unit>\n"
            ));
        }
        let mut parsed = read(&unit(&body));
        for i in 0..parsed.document.blocks.len() {
            let edition = draft(&parsed, i, "Texte ", Some("translated"));
            parsed.document.blocks[i]
                .targets
                .insert("fr".into(), edition);
        }
        let started = std::time::Instant::now();
        let out = String::from_utf8(Xliff.write(&parsed).unwrap()).unwrap();
        assert!(started.elapsed().as_secs() < 20);
        assert_eq!(
            out.matches("\n    <target state=\"translated\">Texte ")
                .count(),
            20_000
        );
    }
}
