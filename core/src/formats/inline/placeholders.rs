//! Placeholders and inline tags inside a string value, split out as inline codes so an edit
//! cannot lose them: `{name}`, `{0}`, `{}` (Python's auto-numbered field), `{{name}}`, `%s`,
//! `%1$d`, `%S` (Mozilla's string), `%(name)s`, `${x}`, `%{x}`, `$t(key)` and HTML tags
//! (`<b>` … `</b>` paired, `<br/>` standalone).
//!
//! What stays text: `{}` inside `{{}}` (escaped braces), `{ }`, a lone `%` or `$`, and a
//! word in angle brackets that only looks like a tag in prose ("Returns `<Error>` when it
//! fails", "Type `<username>`": see [`ProseTags::lookalike`]).
//!
//! Each format picks the syntaxes its files use ([`Syntaxes`]); every code is not deletable
//! except HTML formatting tags, which an edit may drop as a pair. Ids come from an [`Ids`]
//! counter shared by every code and switch of one edition.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Code, CodeKind, Run};

/// Which placeholder syntaxes a format's strings use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntaxes {
    /// `{name}`, `{0}`, `{0,number}` (ICU/Java MessageFormat simple arguments).
    pub brace: bool,
    /// `{{name}}`, `{{ name }}` (i18next, Handlebars, Angular) and i18next `$t(key)`.
    pub double_brace: bool,
    /// printf: `%s`, `%1$d`, `%.2f`, `%@`, `%%`, and Python `%(name)s`.
    pub printf: bool,
    /// `${x}` (JavaScript templates, shell).
    pub dollar: bool,
    /// Ruby: `%{x}` and `%<x>s`.
    pub ruby: bool,
    /// HTML/XML tags and character references written in the string (`<b>`, `&amp;`).
    pub html: bool,
}

impl Syntaxes {
    /// Everything: for catalogs whose library is unknown (JSON, YAML).
    pub const ALL: Syntaxes = Syntaxes {
        brace: true,
        double_brace: true,
        printf: true,
        dollar: true,
        ruby: true,
        html: true,
    };
    pub const NONE: Syntaxes = Syntaxes {
        brace: false,
        double_brace: false,
        printf: false,
        dollar: false,
        ruby: false,
        html: false,
    };
    /// printf only (gettext c-format, Android, iOS).
    pub const PRINTF: Syntaxes = Syntaxes {
        printf: true,
        ..Syntaxes::NONE
    };
}

/// Hands out code ids `1`, `2`, … within one edition (or one branch scope), and counts
/// them: a reader stops making codes once [`Ids::full`] (the block is then refused).
#[derive(Debug, Default, Clone)]
pub struct Ids {
    next: u32,
    /// Ids handed out, and codes already there for [`Ids::after`]: never more than the
    /// codes and switches the edition ends up with, so a full count is a refused block.
    issued: usize,
}

impl Ids {
    /// Ids that continue after every numeric id already in `runs`.
    pub fn after(runs: &[Run]) -> Self {
        let next = runs
            .iter()
            .filter_map(|r| match r {
                Run::Code(c) => c.id.parse::<u32>().ok(),
                Run::Switch(s) => s.id.parse::<u32>().ok(),
                Run::Text { .. } => None,
            })
            .max()
            .unwrap_or(0);
        let issued = runs
            .iter()
            .filter(|r| !matches!(r, Run::Text { .. }))
            .count();
        Ids { next, issued }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> String {
        self.next += 1;
        self.issued += 1;
        self.next.to_string()
    }

    /// Marks the edition full: a reader that stopped for a reason of its own (too many ICU
    /// branches to read) leaves its block to be refused, as [`Ids::full`] tells.
    pub fn fill(&mut self) {
        self.issued = self.issued.max(crate::formats::MAX_CODES + 1);
    }

    /// More ids handed out than one edition may hold codes ([`crate::formats::MAX_CODES`]): the reader
    /// may stop making codes for this block, which [`crate::formats::output::Output::push`] refuses.
    pub fn full(&self) -> bool {
        self.issued > crate::formats::MAX_CODES
    }
}

/// What a match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Placeholder,
    Printf,
    TagOpen,
    TagClose,
    TagSelf,
    Entity,
}

static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<double>\{\{-?\s*[^{}\s][^{}]*?\s*\}\})",
        r"|(?P<t>\$t\([^()]*\))",
        r"|(?P<dollar>\$\{[^{}]+\})",
        r"|(?P<ruby>%\{[A-Za-z_][A-Za-z0-9_]*\}|%<[A-Za-z_][A-Za-z0-9_]*>[-+ 0#]*\d*(?:\.\d+)?[a-zA-Z])",
        r"|(?P<pyname>%\([A-Za-z_][A-Za-z0-9_.]*\)[-+0#]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa])",
        r"|(?P<printf>%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?[diouxXeEfFgGaAcspn@S]|%%)",
        r"|(?P<brace>\{\}|\{\s*[A-Za-z0-9_][A-Za-z0-9_.\-]*\s*(?:,\s*[A-Za-z]+\s*(?:,[^{}]*)?)?\})",
        r"|(?P<close></[A-Za-z][A-Za-z0-9:\-]*\s*>)",
        r"|(?P<tag><[A-Za-z][A-Za-z0-9:\-]*(?:\s+[^<>]*?)?\s*(?P<selfclose>/)?>)",
        r"|(?P<entity>&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);)",
    ))
    .unwrap_or_else(|e| unreachable!("placeholder pattern: {e}"))
});

/// HTML elements that never take a closing tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Whether `text` holds a byte a code starts with (`{`, `%`, `$`, `<`, `&`): a text without
/// one is a single text run. Two vectorised searches, not a loop over the bytes.
pub fn may_hold_code(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr3(b'{', b'%', b'$', bytes).is_some()
        || memchr::memchr2(b'<', b'&', bytes).is_some()
}

/// Cuts every text run of `runs` at the matches of a format's own placeholder `pattern` (.NET's
/// `{0}`, Apple's `%#@name@`, Qt's `%1`): each match `keep` accepts (given the text before it)
/// is a standalone `placeholder` code, and each piece of text between goes through `between`
/// (its text and file offset when verbatim; a plain text run, or a further split). Codes are
/// kept; past the code limit the rest is text.
pub fn split_at_matches(
    runs: Vec<Run>,
    pattern: &Regex,
    ids: &mut Ids,
    keep: impl Fn(&str) -> bool,
    mut between: impl FnMut(&str, Option<usize>, &mut Ids) -> Vec<Run>,
) -> Vec<Run> {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let Run::Text { text, src } = run else {
            out.push(run);
            continue;
        };
        let mut last = 0;
        for found in pattern.find_iter(&text) {
            if ids.full() {
                break;
            }
            if !keep(&text[..found.start()]) {
                continue;
            }
            if found.start() > last {
                out.extend(between(
                    &text[last..found.start()],
                    src.map(|s| s + last),
                    ids,
                ));
            }
            let mut code = code(
                ids.next(),
                CodeKind::Standalone,
                "placeholder",
                found.as_str(),
                false,
            );
            code.src = src.map(|s| s + found.start());
            out.push(Run::from(code));
            last = found.end();
        }
        if last < text.len() {
            out.extend(between(&text[last..], src.map(|s| s + last), ids));
        }
    }
    out
}

/// A plain text run of `text` (at file offset `src` when verbatim): [`split_at_matches`]'s
/// `between` when the text between needs no further split.
pub fn plain(text: &str, src: Option<usize>, _: &mut Ids) -> Vec<Run> {
    vec![text_run(text, src)]
}

/// Splits every text run of `runs` (codes kept, ids continuing after theirs).
pub fn split_runs(runs: Vec<Run>, syntaxes: Syntaxes) -> Vec<Run> {
    if !runs
        .iter()
        .any(|r| matches!(r, Run::Text { text, .. } if may_hold_code(text)))
    {
        return runs;
    }
    let mut ids = Ids::after(&runs);
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        match run {
            Run::Text { text, src } => out.extend(split(&text, src, syntaxes, &mut ids)),
            other => out.push(other),
        }
    }
    out
}

/// Splits `text` into text runs and codes. `src` is the file offset of `text` when it is a
/// verbatim slice of the file (offsets of the pieces follow from it).
pub fn split(text: &str, src: Option<usize>, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
    let mut runs = Vec::new();
    if syntaxes == Syntaxes::NONE || !may_hold_code(text) {
        if !text.is_empty() {
            runs.push(text_run(text, src));
        }
        return runs;
    }
    // (run index, tag name) of each open tag waiting for its close.
    let mut open: Vec<(usize, String)> = Vec::new();
    // How many of `open` have each name: a close tag no open one matches is told without a
    // search, so a text of many unmatched closes stays linear.
    let mut open_names: HashMap<String, usize> = HashMap::new();
    let mut prose = ProseTags::new(text);
    let mut at = 0;
    for whole in PATTERN.find_iter(text) {
        let found = match group_of(whole.as_str()) {
            Group::Double => syntaxes.double_brace.then_some(Found::Placeholder),
            Group::Dollar => syntaxes.dollar.then_some(Found::Placeholder),
            Group::Ruby => syntaxes.ruby.then_some(Found::Placeholder),
            Group::Printf => syntaxes.printf.then_some(Found::Printf),
            // `{}` inside `{{}}` is two literal braces around nothing.
            Group::Brace if whole.as_str() == "{}" && escaped_braces(text, whole.range()) => None,
            Group::Brace => syntaxes.brace.then_some(Found::Placeholder),
            Group::Close => syntaxes.html.then_some(Found::TagClose),
            Group::Tag { selfclose } => {
                let name = tag_name(whole.as_str());
                let void = VOID.contains(&name.to_ascii_lowercase().as_str());
                if !selfclose && prose.lookalike(whole.range(), whole.as_str()) {
                    None
                } else {
                    syntaxes.html.then_some(if selfclose || void {
                        Found::TagSelf
                    } else {
                        Found::TagOpen
                    })
                }
            }
            Group::Entity => syntaxes.html.then_some(Found::Entity),
        };
        let Some(found) = found else { continue };
        if whole.start() > at {
            runs.push(text_run(&text[at..whole.start()], src.map(|s| s + at)));
        }
        let data = whole.as_str();
        let code_src = src.map(|s| s + whole.start());
        let code = match found {
            Found::Placeholder => {
                code(ids.next(), CodeKind::Standalone, "placeholder", data, false)
            }
            Found::Printf => code(ids.next(), CodeKind::Standalone, "printf", data, false),
            Found::Entity => code(ids.next(), CodeKind::Standalone, "entity", data, false),
            Found::TagSelf => code(ids.next(), CodeKind::Standalone, "tag", data, false),
            Found::TagOpen => {
                let name = tag_name(data).to_ascii_lowercase();
                *open_names.entry(name.clone()).or_default() += 1;
                open.push((runs.len(), name));
                code(ids.next(), CodeKind::Open, "tag", data, true)
            }
            Found::TagClose => {
                let name = tag_name(data).to_ascii_lowercase();
                let found = if open_names.get(&name).is_some_and(|&n| n > 0) {
                    open.iter().rposition(|(_, n)| *n == name)
                } else {
                    None
                };
                match found {
                    Some(pos) => {
                        // Tags opened inside and never closed stand alone.
                        for (index, inner) in open.drain(pos + 1..) {
                            if let Some(n) = open_names.get_mut(&inner) {
                                *n = n.saturating_sub(1);
                            }
                            demote(&mut runs[index]);
                        }
                        let (index, _) = open.remove(pos);
                        if let Some(n) = open_names.get_mut(&name) {
                            *n = n.saturating_sub(1);
                        }
                        let id = match &runs[index] {
                            Run::Code(c) => c.id.clone(),
                            _ => ids.next(),
                        };
                        code(id, CodeKind::Close, "tag", data, true)
                    }
                    None => code(ids.next(), CodeKind::Standalone, "tag", data, false),
                }
            }
        };
        runs.push(Run::Code(Box::new(Code {
            src: code_src,
            ..code
        })));
        at = whole.end();
        if ids.full() {
            // The block is refused when it ends; what is left is not worth its codes.
            break;
        }
    }
    for (index, _) in open {
        demote(&mut runs[index]);
    }
    if at < text.len() {
        runs.push(text_run(&text[at..], src.map(|s| s + at)));
    }
    runs
}

/// Which alternative of [`PATTERN`] a match is (`double` and `t` as one, `pyname` and
/// `printf` as one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Double,
    Dollar,
    Ruby,
    Printf,
    Brace,
    Close,
    Tag { selfclose: bool },
    Entity,
}

/// The alternative that matched, told from the match's first bytes: no two alternatives
/// can match at one position with the same opening (`{{` is never `brace`, which wants a
/// space or a word character after `{`; `%(`, `%{`, `%<` are never `printf`), and a tag's
/// lazy attributes leave a final `/` to `selfclose`. Much cheaper than capture groups,
/// which take the regex's slow engine.
fn group_of(whole: &str) -> Group {
    match whole.as_bytes() {
        [b'{', b'{', ..] => Group::Double,
        [b'{', ..] => Group::Brace,
        [b'$', b't', ..] => Group::Double,
        [b'$', ..] => Group::Dollar,
        [b'%', b'{' | b'<', ..] => Group::Ruby,
        [b'%', ..] => Group::Printf,
        [b'<', b'/', ..] => Group::Close,
        [b'<', ..] => Group::Tag {
            selfclose: whole.ends_with("/>"),
        },
        _ => Group::Entity,
    }
}

/// Whether the `{}` at `range` of `text` sits in `{{}}` (a brace escaped twice).
fn escaped_braces(text: &str, range: std::ops::Range<usize>) -> bool {
    let bytes = text.as_bytes();
    range.start.checked_sub(1).and_then(|i| bytes.get(i)) == Some(&b'{')
        || bytes.get(range.end) == Some(&b'}')
}

/// HTML elements (and XLIFF inline elements), lowercase and sorted: a `<name>` of one of
/// these is markup even when it is never closed.
const ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "big",
    "blockquote",
    "body",
    "bpt",
    "br",
    "button",
    "bx",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "ec",
    "em",
    "embed",
    "ept",
    "ex",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "g",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "it",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "math",
    "menu",
    "meta",
    "meter",
    "mrk",
    "nav",
    "nobr",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "pc",
    "ph",
    "picture",
    "pre",
    "progress",
    "q",
    "qt",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "sc",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "sm",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "x",
];

/// Tells the tags of one text that only look like markup in prose ([`ProseTags::lookalike`]).
/// Where each name is last closed is found once, at the first tag that asks.
#[derive(Debug)]
pub struct ProseTags<'a> {
    text: &'a str,
    /// Lowercase element name → start of its last closing tag in `text`.
    last_close: Option<HashMap<String, usize>>,
}

impl<'a> ProseTags<'a> {
    pub fn new(text: &'a str) -> Self {
        ProseTags {
            text,
            last_close: None,
        }
    }

    /// Whether the opening tag `tag` at `range` of the text only looks like markup in
    /// prose, as `<Error>` in "Returns `<Error>` when it fails", `<username>` in "Type
    /// `<username>`." or `<original entry>`: bare words (one space apart; no attribute with
    /// a value, no `/>`, no namespace) whose first is not an HTML
    /// or XLIFF inline element, that stands as a word (no letter or digit touches it on
    /// either side) and that the text never closes after it. Such text stays text: it is a
    /// word the translator translates, not a code an edit must keep. A `<name>` that is
    /// closed later (`<term>…</term>`), has attributes, stands alone (`<icon/>`) or runs
    /// into a word (`<note>Save`) is markup whatever its name.
    pub fn lookalike(&mut self, range: std::ops::Range<usize>, tag: &str) -> bool {
        let text = self.text;
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        if word(text.get(..range.start).and_then(|t| t.chars().next_back()))
            || word(text.get(range.end..).and_then(|t| t.chars().next()))
        {
            return false;
        }
        let Some(name) = tag
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix('>'))
            .map(str::trim_end)
        else {
            return false;
        };
        // Several bare words (`<original entry>`, `<not supported>`) read as one: no `=`, no
        // quote, no `/`, so no attribute an element could carry; the first word names it.
        let mut words = name.split(' ');
        let name = words.next().unwrap_or_default();
        let bare = |w: &str| {
            w.starts_with(|c: char| c.is_ascii_alphabetic())
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        };
        if !bare(name) || !words.all(bare) {
            return false;
        }
        let lower = name.to_ascii_lowercase();
        if ELEMENTS.binary_search(&lower.as_str()).is_ok() {
            return false;
        }
        let closes = self.last_close.get_or_insert_with(|| last_closes(text));
        closes.get(&lower).is_none_or(|&at| at < range.end)
    }
}

/// Every closing tag `</name>` of `text` (space before `>` allowed): the start of the last
/// one of each lowercase name.
fn last_closes(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for m in CLOSE_TAG.find_iter(text) {
        let name = m
            .as_str()
            .trim_start_matches("</")
            .trim_end_matches('>')
            .trim_end()
            .to_ascii_lowercase();
        out.insert(name, m.start());
    }
    out
}

static CLOSE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"</[A-Za-z][A-Za-z0-9_-]*\s*>")
        .unwrap_or_else(|e| unreachable!("closing tag pattern: {e}"))
});

fn text_run(text: &str, src: Option<usize>) -> Run {
    Run::Text {
        text: text.to_owned(),
        src,
    }
}

fn code(id: String, kind: CodeKind, class: &str, data: &str, deletable: bool) -> Code {
    Code::new(id, kind, class, data, deletable)
}

/// An open tag with no close is a standalone code an edit must keep.
fn demote(run: &mut Run) {
    if let Run::Code(code) = run {
        code.kind = CodeKind::Standalone;
        code.deletable = false;
    }
}

fn tag_name(tag: &str) -> &str {
    let inner = tag.trim_start_matches('<').trim_start_matches('/');
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '-'))
        .unwrap_or(inner.len());
    &inner[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The group [`group_of`] names is the capture group the pattern sets, over every line
    /// of every fixture and some edge cases.
    #[test]
    fn groups_from_openings_match_capture_groups() {
        fn captured(text: &str) -> Vec<(String, Group)> {
            PATTERN
                .captures_iter(text)
                .filter_map(|caps| {
                    let whole = caps.get(0)?.as_str().to_owned();
                    let group = if caps.name("double").is_some() || caps.name("t").is_some() {
                        Group::Double
                    } else if caps.name("dollar").is_some() {
                        Group::Dollar
                    } else if caps.name("ruby").is_some() {
                        Group::Ruby
                    } else if caps.name("pyname").is_some() || caps.name("printf").is_some() {
                        Group::Printf
                    } else if caps.name("brace").is_some() {
                        Group::Brace
                    } else if caps.name("close").is_some() {
                        Group::Close
                    } else if caps.name("tag").is_some() {
                        Group::Tag {
                            selfclose: caps.name("selfclose").is_some(),
                        }
                    } else {
                        Group::Entity
                    };
                    Some((whole, group))
                })
                .collect()
        }
        let mut lines: Vec<String> = [
            "{{x}} {x} {{ x } {x}} %{a} %<a>5.2f %(n)s %s %% %1$d ${a} $t(k) $x",
            "<br/> <br /> <a href=x/> <a b=/ > <b>x</b> </i > &amp; &#12; &#x1F; <a/ > {{-a}}",
            "{ 0 , number , #} {a.b-c} %{ %< %( <1> &; {{}} ${} %<a> %ll %hhd %.*f %-5s",
        ]
        .map(str::to_owned)
        .to_vec();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats");
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    lines.extend(text.lines().map(str::to_owned));
                }
            }
        }
        assert!(lines.len() > 1000);
        for line in &lines {
            let found: Vec<(String, Group)> = PATTERN
                .find_iter(line)
                .map(|m| (m.as_str().to_owned(), group_of(m.as_str())))
                .collect();
            assert_eq!(found, captured(line), "{line}");
        }
    }

    fn shape(text: &str, syntaxes: Syntaxes) -> Vec<String> {
        split(text, Some(0), syntaxes, &mut Ids::default())
            .into_iter()
            .map(|run| match run {
                Run::Text { text, .. } => format!("t:{text}"),
                Run::Code(c) => format!("{:?}{}:{}", c.kind, c.id, c.data),
                Run::Switch(_) => "switch".into(),
            })
            .collect()
    }

    #[test]
    fn every_syntax_becomes_a_code() {
        let table: &[(&str, &[&str])] = &[
            ("Hi {name}!", &["t:Hi ", "Standalone1:{name}", "t:!"]),
            ("{{count}} items", &["Standalone1:{{count}}", "t: items"]),
            (
                "%1$s of %2$d",
                &["Standalone1:%1$s", "t: of ", "Standalone2:%2$d"],
            ),
            ("%(name)s left", &["Standalone1:%(name)s", "t: left"]),
            ("Hi ${user}", &["t:Hi ", "Standalone1:${user}"]),
            ("Hi %{user}", &["t:Hi ", "Standalone1:%{user}"]),
            ("100%% sure", &["t:100", "Standalone1:%%", "t: sure"]),
            (
                "a <b>bold</b> b",
                &["t:a ", "Open1:<b>", "t:bold", "Close1:</b>", "t: b"],
            ),
            ("line<br/>next", &["t:line", "Standalone1:<br/>", "t:next"]),
            ("x <br> y", &["t:x ", "Standalone1:<br>", "t: y"]),
            (
                "Tom &amp; Jerry",
                &["t:Tom ", "Standalone1:&amp;", "t: Jerry"],
            ),
            ("{0,number} files", &["Standalone1:{0,number}", "t: files"]),
            ("{} of {}", &["Standalone1:{}", "t: of ", "Standalone2:{}"]),
            ("Open %S now", &["t:Open ", "Standalone1:%S", "t: now"]),
            ("%1$S and", &["Standalone1:%1$S", "t: and"]),
            // Tag-like words that are markup: closed, with attributes, self-closing, or
            // running into a word.
            (
                "the <term>cache</term>",
                &["t:the ", "Open1:<term>", "t:cache", "Close1:</term>"],
            ),
            (
                "<Error code=\"1\"> x",
                &["Standalone1:<Error code=\"1\">", "t: x"],
            ),
            (
                "press <icon/> now",
                &["t:press ", "Standalone1:<icon/>", "t: now"],
            ),
            ("<note>Save", &["Standalone1:<note>", "t:Save"]),
            ("<b> bold", &["Standalone1:<b>", "t: bold"]),
            // Closed after the first, not after the last.
            (
                "<Foo> a </Foo> b <Foo>",
                &["Open1:<Foo>", "t: a ", "Close1:</Foo>", "t: b <Foo>"],
            ),
        ];
        for (text, want) in table {
            assert_eq!(shape(text, Syntaxes::ALL), *want, "{text}");
        }
    }

    #[test]
    fn prose_that_only_looks_like_a_placeholder_stays_text() {
        for text in [
            "50% off",
            "1 < 2 and 3 > 2",
            "a {b c} d",
            "costs $5",
            "{ }",
            "100 %",
            "{{}}",
            "a {{}} b",
            "Returns <Error> when it fails",
            "Press <Enter> to continue",
            "<Error>",
            "Type <username>.",
            "(<Error>)",
        ] {
            assert_eq!(
                shape(text, Syntaxes::ALL),
                vec![format!("t:{text}")],
                "{text}"
            );
        }
    }

    #[test]
    fn closing_tags_that_match_no_open_one_stand_alone_and_nested_ones_pair() {
        // Every close is checked against the names open, not searched for: 4,900 unmatched
        // closes after 4,900 opens read in one pass (a block holds at most 10,000 codes).
        let n = 4_900;
        let text = format!("{}x{}", "<b>".repeat(n), "</i>".repeat(n));
        let runs = split(&text, Some(0), Syntaxes::ALL, &mut Ids::default());
        assert_eq!(runs.len(), 2 * n + 1);
        assert!(runs.iter().all(|r| match r {
            Run::Code(c) => c.kind == CodeKind::Standalone,
            Run::Text { text, .. } => text == "x",
            Run::Switch(_) => false,
        }));
        assert_eq!(
            shape("<b><i>a</b> <i>c</i>", Syntaxes::ALL),
            [
                "Open1:<b>",
                "Standalone2:<i>",
                "t:a",
                "Close1:</b>",
                "t: ",
                "Open3:<i>",
                "t:c",
                "Close3:</i>"
            ]
        );
    }

    #[test]
    fn splitting_stops_once_a_block_holds_more_codes_than_it_may() {
        let mut ids = Ids::default();
        let runs = split(&"{a} ".repeat(20_000), Some(0), Syntaxes::ALL, &mut ids);
        let codes = runs.iter().filter(|r| matches!(r, Run::Code(_))).count();
        assert_eq!(codes, crate::formats::MAX_CODES + 1);
        assert!(ids.full());
        // Ids that continue after codes count those codes.
        let mut ids = Ids::default();
        let at_limit = split(&"{a} ".repeat(10_000), Some(0), Syntaxes::ALL, &mut ids);
        assert!(!ids.full());
        assert!(!Ids::after(&at_limit).full());
        let mut after = Ids::after(&at_limit);
        after.next();
        assert!(after.full());
    }

    #[test]
    fn the_element_list_is_sorted_for_binary_search() {
        assert!(ELEMENTS.windows(2).all(|w| w[0] < w[1]));
        assert!(VOID.iter().all(|v| ELEMENTS.contains(v)));
    }

    #[test]
    fn a_tag_never_closed_stands_alone_and_is_kept() {
        let runs = split("<b>open", None, Syntaxes::ALL, &mut Ids::default());
        match &runs[0] {
            Run::Code(c) => assert!(c.kind == CodeKind::Standalone && !c.deletable),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn syntaxes_not_chosen_stay_text() {
        assert_eq!(shape("%s {x}", Syntaxes::NONE), vec!["t:%s {x}"]);
        assert_eq!(
            shape("%s {x}", Syntaxes::PRINTF),
            vec!["Standalone1:%s", "t: {x}"]
        );
    }

    #[test]
    fn offsets_follow_the_source() {
        let runs = split("ab{x}cd", Some(10), Syntaxes::ALL, &mut Ids::default());
        let srcs: Vec<Option<usize>> = runs
            .iter()
            .map(|r| match r {
                Run::Text { src, .. } => *src,
                Run::Code(c) => c.src,
                Run::Switch(s) => s.src,
            })
            .collect();
        assert_eq!(srcs, vec![Some(10), Some(12), Some(15)]);
    }
}
