//! The syntax docs generators read inside Markdown's prose (MDX, VitePress, Docusaurus, Hugo,
//! Jekyll, mdBook, Pandoc), found in a block's bytes so [`super::collapse`] makes each a code.
//!
//! CommonMark reads all of it as text, so without this a term check reads the words inside,
//! an agent sees it as prose, and an edit escapes it (`{/\*id\*/}`). Each form below becomes
//! one standalone code that no edit may drop, holding its bytes as written; the class says
//! which form it is:
//!
//! - `id`: a heading's id, as an MDX comment (`## Title {/*title*/}`, every heading of the
//!   React docs) or an attribute list (`## Title {#title}`, `{#id .class key=value}`:
//!   VitePress, Hugo, Pandoc, kramdown's `{: #id}`); at the heading's end it takes the blank
//!   space before it, so the heading's text is `Title`. Anywhere else in a heading (where an
//!   edit moved it) it is still the id.
//! - `attributes`: an attribute list elsewhere, on a line of its own (Hugo's and kramdown's
//!   block attributes, `{.note}`, `{: .note}`) or right after a link, an image, code or
//!   emphasis (`[text](url){.class}`, Pandoc's spans).
//! - `jsx`: a JSX comment `{/* … */}` and a brace holding a string alone (`{' '}`, `{"\n"}`),
//!   in any file. In an MDX-style file (one holding a JSX comment `{/*` anywhere, as every
//!   React docs page does), every balanced `{…}` in prose is an expression and a code
//!   (`{user.name}`, `{count + 1}`), and so is a JSX tag CommonMark cannot read as HTML
//!   because a value is an expression (`<img style={{margin: 0}} />`). In other Markdown a
//!   brace group is prose, since projects write `{name}` placeholders and sets (`{a, b}`) in
//!   sentences; a simple `{name}` is still a placeholder code ([`super::super::inline`]).
//! - `directive`: a GitHub alert's marker on a quote's first line (`> [!NOTE]`), and a
//!   container line (markdown-it-container, VitePress, Docusaurus admonitions, Pandoc fenced
//!   divs): three or more colons at a line's start, the container's type and
//!   attributes (`::: tip `, `:::warning`, `:::note[`, `::: {.aside}`), the closing `:::`,
//!   and the line breaks before and after such a line, so an edit can neither join a
//!   container line to the prose nor drop one. A custom title is prose (the site renders it:
//!   `::: details Click me`, `:::note[Read this]`), so it is checked and translated; the `]`
//!   after a bracketed title is a code again.
//! - `template`: Hugo shortcodes `{{< name args >}}`, `{{% name %}}` (and the escaped
//!   `{{</* … */>}}` the Hugo docs show them with), Liquid and Jinja tags `{% tag %}` and
//!   expressions `{{ expr }}` (`{{{ raw }}}` too), mdBook's `{{#include …}}`,
//!   `{{#rustdoc_include …}}` and `{{#playground …}}`: anywhere in a block, over lines too.
//! - `verbatim`: what holds code and not prose, with its opening and closing tags: the
//!   components [`CODE_COMPONENTS`] (the React docs' `<TerminalBlock>` of shell commands and
//!   `<ConsoleBlock>` of console output, Docusaurus's `<CodeBlock>`), the HTML elements
//!   [`CODE_ELEMENTS`] (`<code>`, `<samp>`…; not `<kbd>`, whose key names are translated:
//!   `Ctrl` is `Strg` on a German keyboard) within one block, the Hugo shortcodes
//!   [`CODE_SHORTCODES`] (`{{< highlight go >}}` … `{{< /highlight >}}`) and the Liquid
//!   tags [`CODE_TAGS`] (`{% highlight %}`, `{% comment %}`). A component or shortcode may
//!   span blocks: with blank lines inside, each block between its tags is one code (an HTML
//!   block opens and closes a component as it holds its tags), and one never closed holds
//!   the rest of the file. The lists are fixed (no recipe key): the names are the ones real
//!   docs trees use for code, and a component not in the list is read as prose, as before.
//!
//! What is inside an inline code span, an HTML tag, a link's destination or an escape (`\{`)
//! is never taken for syntax. A form that would cut a code or a link pair in two stays
//! text. Every search is bounded: each terminator is searched for once per block from where
//! the last search stopped, brace pairs are matched in one pass, and a JSX tag's scan has a
//! budget of a few times the block's length.

use std::ops::Range;

use memchr::memmem;

use crate::model::{CodeKind, Role, Run};

mod tokens;
use tokens::*;

/// Components whose content is code, not prose, across blocks: React docs' terminal and
/// console blocks, Docusaurus's code block.
pub const CODE_COMPONENTS: &[&str] = &[
    "CodeBlock",
    "ConsoleBlock",
    "ConsoleBlockMulti",
    "ConsoleLogLine",
    "TerminalBlock",
];
/// HTML elements whose content is code, inside one block (`<kbd>` is not: key names are
/// translated).
pub const CODE_ELEMENTS: &[&str] = &["code", "pre", "samp", "var"];
/// Hugo shortcodes whose content is code.
pub const CODE_SHORTCODES: &[&str] = &["code", "code-toggle", "highlight"];
/// Liquid block tags whose content is not prose (`{% endhighlight %}` closes `highlight`).
pub const CODE_TAGS: &[&str] = &["comment", "highlight"];

/// A byte not in any run of the block (a continuation prefix, an escape's backslash).
const UNCOVERED: u8 = 0x01;
/// A byte of a code the reader made (a code span, an HTML tag, a link's destination).
const OPAQUE: u8 = 0x02;
/// A backslash escape and the character it escapes (`\{`): no syntax, and no code's end.
const ESCAPED: u8 = 0x03;

/// A form found: its range in the block (from the hole's start) and its class.
pub(super) type Span = (Range<usize>, &'static str);

/// What opens a stretch of code that may go on past the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closer {
    /// `</Name>`.
    Component(&'static str),
    /// `{{< /name >}}` or `{{% /name %}}`.
    Shortcode(&'static str),
    /// `{% endname %}`.
    Tag(&'static str),
}

/// A stretch of code opened and not closed yet, and how many of its kind are open in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Open {
    closer: Closer,
    depth: u32,
}

/// What the reader carries from block to block.
#[derive(Debug, Default)]
pub(super) struct SiteSyntax {
    /// The file is MDX-style: it holds a JSX comment.
    pub(super) mdx: bool,
    open: Option<Open>,
    /// The last block ended inside a shortcode whose `>}}` starts the next line, which
    /// CommonMark reads as a block quote: the next block's first `}}` is the shortcode's.
    closes_next: bool,
}

/// Whether the line after offset `at` (the end of a block's text) is a block quote's line
/// that holds `}}` (`>}}`, blank space aside; text an edit put before the `}}` aside too).
fn next_line_closes(text: &str, at: usize) -> bool {
    let rest = text.as_bytes().get(at..).unwrap_or_default();
    let rest = &rest[blanks(rest)..];
    let rest = rest.strip_prefix(b"\r").unwrap_or(rest);
    let Some(rest) = rest.strip_prefix(b"\n") else {
        return false;
    };
    let Some(line) = rest[blanks(rest)..].strip_prefix(b">") else {
        return false;
    };
    let line = &line[..memchr::memchr2(b'\n', b'\r', line).unwrap_or(line.len())];
    memmem::find(line, b"}}").is_some()
}

/// Whether `text` holds a JSX comment: `{/*` (not a Go template's `{{/*`), then `*/}` with
/// no blank line between (so in one block). An unterminated `{/*` does not count: it is
/// prose, which an edit escapes.
pub(super) fn mdx_style(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut ends = Finder::default();
    let mut from = 0;
    while let Some(open) = memmem::find(&bytes[from..], b"{/*").map(|i| from + i) {
        if open > 0 && bytes[open - 1] == b'{' {
            from = open + 3;
            continue;
        }
        let Some(end) = ends.find(bytes, b"*/}", open + 3) else {
            return false;
        };
        match blank_line(&bytes[open..end]) {
            None => return true,
            // A `{/*` after that blank line may still close before the next one.
            Some(at) => from = open + at + 1,
        }
    }
    false
}

/// Where the first blank line (a line of spaces and tabs alone) of `bytes` starts.
fn blank_line(bytes: &[u8]) -> Option<usize> {
    memchr::memchr2_iter(b'\n', b'\r', bytes).find_map(|nl| {
        let rest = &bytes[nl + 1..];
        let rest = if bytes[nl] == b'\r' {
            rest.strip_prefix(b"\n").unwrap_or(rest)
        } else {
            rest
        };
        matches!(rest.get(blanks(rest)), Some(b'\n' | b'\r')).then_some(nl + 1)
    })
}

impl SiteSyntax {
    pub(super) fn new(text: &str) -> Self {
        SiteSyntax {
            mdx: mdx_style(text),
            open: None,
            closes_next: false,
        }
    }

    /// Whether a prose block with these runs may hold a form (a quick look first, so a block
    /// with none is not scanned).
    fn may_hold(&self, runs: &[Run]) -> bool {
        if self.open.is_some() || self.closes_next {
            return true;
        }
        let mut line_start = true;
        for (i, run) in runs.iter().enumerate() {
            match run {
                Run::Text { text, .. } => {
                    if memchr::memchr(b'{', text.as_bytes()).is_some()
                        || (line_start && text.starts_with(":::"))
                        || (i == 0 && text.starts_with("[!"))
                    {
                        return true;
                    }
                    line_start = text == "\n";
                }
                Run::Code(code) => {
                    if code.kind == CodeKind::Standalone
                        && code.class == "html"
                        && component_tag(code.data.as_bytes(), 0).is_some()
                    {
                        return true;
                    }
                    line_start = false;
                }
                Run::Switch(_) => line_start = false,
            }
        }
        false
    }

    /// The forms in the prose block `text[hole]` whose runs are `runs`, at their file
    /// offsets, in order. In a heading, an id at its end takes the blank space before it; in a
    /// quote, a GitHub alert's marker (`> [!NOTE]`) on its first line is a code.
    pub(super) fn find(
        &mut self,
        text: &str,
        hole: Range<usize>,
        runs: &[Run],
        role: Role,
    ) -> Vec<Span> {
        let heading = role == Role::Heading;
        if !self.may_hold(runs) {
            return Vec::new();
        }
        let Some(raw) = text.get(hole.clone()) else {
            return Vec::new();
        };
        let mask = mask(raw.as_bytes(), hole.start, runs);
        let mut scan = Scan {
            raw: raw.as_bytes(),
            m: &mask,
            mdx: self.mdx,
            spans: Vec::new(),
            pairs: None,
            finders: Finders::default(),
            budget: raw.len().saturating_mul(8).saturating_add(4096),
            unclosed: false,
            next_closes: next_line_closes(text, hole.end),
            continued: false,
            quote: role == Role::Quote,
            heading,
        };
        if std::mem::take(&mut self.closes_next)
            && let Some(at) = memmem::find(&mask, b"}}")
        {
            scan.spans.push((at..at + 2, "template"));
        }
        self.open = scan.run(self.open);
        self.closes_next = scan.continued;
        let mut spans = scan.spans;
        normalize(&mut spans);
        if heading {
            // A heading's id, wherever an edit put it; at the end it takes the blank space
            // before it.
            let last = spans.len().saturating_sub(1);
            for (k, (range, class)) in spans.iter_mut().enumerate() {
                let id = *class == "attributes"
                    || (*class == "jsx" && raw.as_bytes()[range.start..].starts_with(b"{/*"));
                if !id {
                    continue;
                }
                *class = "id";
                if k == last && trim_end_blank(&mask[range.end..]) == 0 {
                    let before = &raw.as_bytes()[..range.start];
                    range.start -= before.len() - trim_end_blank(before);
                }
            }
        }
        for (range, _) in &mut spans {
            *range = range.start + hole.start..range.end + hole.start;
        }
        spans
    }

    /// Notes the components and shortcodes an HTML block (`raw`) opens and closes: its
    /// bytes are the file's, kept as they are, but a paragraph after it may be inside one.
    pub(super) fn html_block(&mut self, raw: &str) {
        let bytes = raw.as_bytes();
        let mut at = 0;
        loop {
            if let Some(open) = self.open {
                match close_of(bytes, at, open) {
                    Ok(end) => {
                        self.open = None;
                        at = end;
                    }
                    Err(still) => {
                        self.open = Some(still);
                        return;
                    }
                }
            }
            // The next component a block opens (an HTML block's shortcodes are its own).
            let Some(next) = memchr::memchr_iter(b'<', bytes.get(at..).unwrap_or_default())
                .map(|i| at + i)
                .find_map(|i| {
                    component_tag(bytes, i)
                        .filter(|t| t.kind == TagKind::Open && CODE_COMPONENTS.contains(&t.name))
                })
            else {
                return;
            };
            self.open = Some(Open {
                closer: Closer::Component(next.name),
                depth: 1,
            });
            at = next.end;
        }
    }
}

/// The block's bytes with those of no run [`UNCOVERED`], and those of a code (but emphasis,
/// strong, strikethrough and a link's `[`, whose markers a form may hold, and the tags of
/// [`CODE_COMPONENTS`] and [`CODE_ELEMENTS`]) [`OPAQUE`], and those of an escape (`\{`)
/// [`ESCAPED`].
fn mask(raw: &[u8], base: usize, runs: &[Run]) -> Vec<u8> {
    let mut m = vec![UNCOVERED; raw.len()];
    // Copies the bytes of `len` from file offset `at` into the mask, or makes them opaque.
    let mut put = |at: usize, len: usize, copy: bool| {
        let Some(from) = at.checked_sub(base) else {
            return;
        };
        let to = from.saturating_add(len).min(raw.len());
        if let (Some(dst), Some(src)) = (m.get_mut(from..to), raw.get(from..to)) {
            if copy {
                dst.copy_from_slice(src);
            } else {
                dst.fill(OPAQUE);
            }
        }
    };
    for run in runs {
        match run {
            Run::Text {
                text,
                src: Some(at),
            } => put(*at, text.len(), true),
            Run::Code(code) => {
                let Some(at) = code.src else { continue };
                let data = code.data.as_bytes();
                let markers = code.kind != CodeKind::Standalone
                    && data.iter().all(|b| matches!(b, b'*' | b'_' | b'~' | b'['));
                let tag = code.class == "html" && component_tag(data, 0).is_some();
                put(at, data.len(), markers || tag);
            }
            _ => {}
        }
    }
    // `\{`: the backslash is no run's, and the character it escapes is no syntax; neither is
    // a line's continuation prefix.
    let mut i = 1;
    while i < m.len() {
        if m[i - 1] == UNCOVERED && raw[i - 1] == b'\\' && raw[i].is_ascii_punctuation() {
            m[i - 1] = ESCAPED;
            m[i] = ESCAPED;
            i += 1;
        }
        i += 1;
    }
    m
}

/// Sorts the spans and joins those that overlap, and a line break with what it touches (a
/// break takes the class of the form it joins; breaks alone are `directive`).
fn normalize(spans: &mut Vec<Span>) {
    spans.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    // Whether the last span ends with a line break.
    let mut tail_break = false;
    for (range, class) in spans.drain(..) {
        let is_break = class == BREAK;
        match out.last_mut() {
            Some((last, last_class))
                if range.start < last.end
                    || (range.start == last.end && (tail_break || is_break)) =>
            {
                if range.end > last.end {
                    last.end = range.end;
                    tail_break = is_break;
                }
                if *last_class == BREAK {
                    *last_class = class;
                }
            }
            _ => {
                out.push((range, class));
                tail_break = is_break;
            }
        }
    }
    for (_, class) in &mut out {
        if *class == BREAK {
            *class = "directive";
        }
    }
    *spans = out;
}

/// The class of a line break around a container line, while spans are gathered.
const BREAK: &str = "break";

/// The cached result of one terminator's last search, so each is searched for once per
/// stretch of the block: (where the search started, what it found).
#[derive(Default)]
struct Finder {
    last: Option<(usize, Option<usize>)>,
}

impl Finder {
    /// The first `pat` at or after `at` in `m`.
    fn find(&mut self, m: &[u8], pat: &[u8], at: usize) -> Option<usize> {
        if let Some((from, found)) = self.last
            && at >= from
        {
            match found {
                None => return None,
                Some(f) if f >= at => return Some(f),
                Some(_) => {}
            }
        }
        let found = m
            .get(at..)
            .and_then(|rest| memmem::find(rest, pat))
            .map(|i| at + i);
        self.last = Some((at, found));
        found
    }
}

#[derive(Default)]
struct Finders {
    shortcode: Finder,
    percent_shortcode: Finder,
    tag: Finder,
    triple: Finder,
    double: Finder,
    comment: Finder,
}

/// One block's scan.
struct Scan<'a> {
    raw: &'a [u8],
    m: &'a [u8],
    mdx: bool,
    spans: Vec<Span>,
    /// Matched brace pairs `(open, close)`, sorted, computed at the first brace that needs
    /// them.
    pairs: Option<Vec<(usize, usize)>>,
    finders: Finders,
    /// Bytes a JSX tag's scan may still look at in this block.
    budget: usize,
    /// An element of [`CODE_ELEMENTS`] was not closed in the block: the search for a
    /// close, which went to the block's end, is not made again.
    unclosed: bool,
    /// The line after the block is a quote's that holds `}}` (a shortcode's end, `>}}`).
    next_closes: bool,
    /// The block ends inside a shortcode that the next line closes.
    continued: bool,
    /// The block is a block quote's paragraph.
    quote: bool,
    /// The block is a heading: an attribute list anywhere in it is its id.
    heading: bool,
}

impl Scan<'_> {
    /// Scans the block, `open` the stretch of code open at its start; returns what is open
    /// at its end.
    fn run(&mut self, open: Option<Open>) -> Option<Open> {
        let len = self.m.len();
        let mut i = 0;
        if let Some(open) = open {
            match close_of(self.m, 0, open) {
                Ok(end) => {
                    self.spans.push((0..end, "verbatim"));
                    i = end;
                }
                Err(still) => {
                    self.spans.push((0..len, "verbatim"));
                    return Some(still);
                }
            }
        }
        let mut line = i == 0;
        while i < len {
            if line {
                line = false;
                if let Some(next) = self.line_start(i) {
                    i = next;
                    continue;
                }
            }
            let Some(at) = memchr::memchr3(b'{', b'<', b'\n', self.m.get(i..).unwrap_or_default())
                .map(|k| i + k)
            else {
                break;
            };
            match self.m[at] {
                b'\n' => {
                    i = at + 1;
                    while self.m.get(i) == Some(&UNCOVERED) {
                        i += 1;
                    }
                    line = true;
                }
                b'{' => match self.brace(at) {
                    Step::Next(next) => i = next,
                    Step::Open(open, from) => {
                        self.spans.push((from..len, "verbatim"));
                        return Some(open);
                    }
                },
                _ => match self.angle(at) {
                    Step::Next(next) => i = next,
                    Step::Open(open, from) => {
                        self.spans.push((from..len, "verbatim"));
                        return Some(open);
                    }
                },
            }
        }
        None
    }

    /// A line starting at `at`: a container directive or a whole-line attribute list there
    /// is taken, with the line breaks around it; returns where the scan goes on.
    fn line_start(&mut self, at: usize) -> Option<usize> {
        let line_end = memchr::memchr(b'\n', &self.m[at..]).map_or(self.m.len(), |k| at + k);
        let alert = (at == 0 && self.quote)
            .then(|| self.alert(line_end))
            .flatten();
        let end = alert.or_else(|| self.directive(at, line_end)).or_else(|| {
            let close = self.pair_at(at)?;
            (self.rest_is_blank(close + 1, line_end) && attribute_list(&self.m[at + 1..close]))
                .then(|| {
                    self.spans.push((at..close + 1, "attributes"));
                    close + 1
                })
        })?;
        self.breaks_around(at, line_end);
        Some(end.max(at + 1))
    }

    /// A GitHub alert's marker alone on a quote's first line (`[!NOTE]`, `[!WARNING]`…, to
    /// `line_end`): GitHub renders the alert's title from it, so it is no prose.
    fn alert(&mut self, line_end: usize) -> Option<usize> {
        let line = &self.m[..line_end];
        let len = trim_end_blank(line);
        let name = line.get(2..len.checked_sub(1)?)?;
        let ok = line.starts_with(b"[!")
            && line.get(len - 1) == Some(&b']')
            && !name.is_empty()
            && name.iter().all(u8::is_ascii_alphabetic);
        ok.then(|| {
            self.spans.push((0..len, "directive"));
            len
        })
    }

    /// The line breaks before the line starting at `at` and after it (ending at
    /// `line_end`), as directive codes: the newline with the blank space before it and the
    /// next line's continuation prefix.
    fn breaks_around(&mut self, at: usize, line_end: usize) {
        // Back from the line's start over its prefix to the newline before it.
        let mut start = at;
        while start > 0 && self.m[start - 1] == UNCOVERED {
            start -= 1;
        }
        if start > 0 && self.m[start - 1] == b'\n' {
            let from = self.back_over_blank(start - 1);
            self.spans.push((from..at, BREAK));
        }
        if line_end < self.m.len() {
            let from = self.back_over_blank(line_end);
            let mut to = line_end + 1;
            while self.m.get(to) == Some(&UNCOVERED) {
                to += 1;
            }
            self.spans.push((from..to, BREAK));
        }
    }

    /// `at` moved back over blank space and a `\r` that no run holds.
    fn back_over_blank(&self, mut at: usize) -> usize {
        while at > 0
            && self.m[at - 1] == UNCOVERED
            && matches!(self.raw[at - 1], b' ' | b'\t' | b'\r')
        {
            at -= 1;
        }
        at
    }

    /// Whether `m[from..to]` is blank space or bytes no run holds.
    fn rest_is_blank(&self, from: usize, to: usize) -> bool {
        self.m
            .get(from..to)
            .is_some_and(|rest| rest.iter().all(|&b| matches!(b, b' ' | b'\t' | UNCOVERED)))
    }

    /// A container line at `at` (to `line_end`): its codes, and where the scan goes on (its
    /// title, which is prose).
    fn directive(&mut self, at: usize, line_end: usize) -> Option<usize> {
        let line = &self.m[at..line_end];
        let len = trim_end_blank(line);
        let line = &line[..len];
        let colons = line.iter().take_while(|&&b| b == b':').count();
        if colons < 3 {
            return None;
        }
        let mut k = colons + blanks(&line[colons..]);
        let name = line[k..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
            .count();
        k += name;
        // Attributes after the type (`{.class}`, `{title="x"}`), on the line.
        let mut attributes = false;
        if line.get(k) == Some(&b'{')
            && let Some(close) = line[k..].iter().position(|&b| b == b'}')
        {
            k += close + 1;
            attributes = true;
        }
        if name == 0 && !attributes && k < len {
            // Colons, then words with no type: not a container line.
            return None;
        }
        // Docusaurus: `:::note[Title]`, the title between the brackets.
        if name > 0
            && line.get(k) == Some(&b'[')
            && let Some(close) = line[k + 1..].iter().rposition(|&b| b == b']')
        {
            let close = k + 1 + close;
            if close == k + 1 {
                self.spans.push((at..at + len, "directive"));
                return Some(at + len);
            }
            self.spans.push((at..at + k + 1, "directive"));
            self.spans.push((at + close..at + len, "directive"));
            return Some(at + k + 1);
        }
        k += blanks(&line[k..]);
        // Pandoc's closing colons after a title (`::: Warning :::`).
        let trailing = line.iter().rev().take_while(|&&b| b == b':').count();
        let mut title_end = len;
        if trailing >= 3 && len - trailing >= k && len > colons {
            title_end = trim_end_blank(&line[..len - trailing]);
        }
        if title_end <= k {
            self.spans.push((at..at + len, "directive"));
            return Some(at + len);
        }
        self.spans.push((at..at + k, "directive"));
        if title_end < len {
            self.spans.push((at + title_end..at + len, "directive"));
        }
        Some(at + k)
    }

    /// The brace pair opening at `at`, if its close is matched.
    fn pair_at(&mut self, at: usize) -> Option<usize> {
        let m = self.m;
        let pairs = self.pairs.get_or_insert_with(|| brace_pairs(m));
        let k = pairs.binary_search_by_key(&at, |&(o, _)| o).ok()?;
        Some(pairs[k].1)
    }

    /// A `{` at `at`.
    fn brace(&mut self, at: usize) -> Step {
        let m = self.m;
        let rest = &m[at..];
        if rest.starts_with(b"{{<") || rest.starts_with(b"{{%") {
            return self.shortcode(at);
        }
        if rest.starts_with(b"{%") {
            return self.liquid(at);
        }
        let template = if rest.starts_with(b"{{{") {
            Some((b"}}}".as_slice(), &mut self.finders.triple))
        } else if rest.starts_with(b"{{") {
            Some((b"}}".as_slice(), &mut self.finders.double))
        } else if rest.starts_with(b"{/*") {
            Some((b"*/}".as_slice(), &mut self.finders.comment))
        } else {
            None
        };
        if let Some((end, finder)) = template {
            let class = if rest.starts_with(b"{/*") {
                "jsx"
            } else {
                "template"
            };
            return match finder.find(m, end, at + end.len()) {
                // A JSX comment may be empty (`{/**/}`); a template holds something.
                Some(found)
                    if class == "jsx"
                        || m[at + end.len()..found]
                            .iter()
                            .any(|b| !b.is_ascii_whitespace()) =>
                {
                    self.spans.push((at..found + end.len(), class));
                    Step::Next(found + end.len())
                }
                _ => Step::Next(at + 1),
            };
        }
        let Some(close) = self.pair_at(at) else {
            return Step::Next(at + 1);
        };
        let inner = &m[at + 1..close];
        if string_alone(inner) {
            self.spans.push((at..close + 1, "jsx"));
            return Step::Next(close + 1);
        }
        if attribute_list(inner) && self.attribute_place(at, close) {
            self.spans.push((at..close + 1, "attributes"));
            return Step::Next(close + 1);
        }
        if self.mdx {
            self.spans.push((at..close + 1, "jsx"));
            return Step::Next(close + 1);
        }
        Step::Next(at + 1)
    }

    /// Whether an attribute list from `at` to `close` stands where one applies: at the
    /// block's end (a heading's), or right after a link, an image, code or an autolink (a
    /// code the reader made ends there with `)`, `` ` `` or `>`) or a bracketed span
    /// (`[text]{.class}`). Not after a word or a `_`: `\sum_{c=1}` is TeX.
    fn attribute_place(&self, at: usize, close: usize) -> bool {
        let after = close + 1;
        if self.heading || self.rest_is_blank(after, self.m.len()) {
            return true;
        }
        at > 0
            && match self.raw[at - 1] {
                b']' => true,
                b')' | b'`' | b'>' => self.m[at - 1] == OPAQUE,
                _ => false,
            }
    }

    /// A Hugo shortcode at `at` (`{{<` or `{{%`).
    fn shortcode(&mut self, at: usize) -> Step {
        let m = self.m;
        let percent = m.get(at + 2) == Some(&b'%');
        let (end, finder) = if percent {
            (b"%}}".as_slice(), &mut self.finders.percent_shortcode)
        } else {
            (b">}}".as_slice(), &mut self.finders.shortcode)
        };
        let Some(found) = finder.find(m, end, at + 3) else {
            if !percent && self.next_closes && !self.continued {
                // `{{< figure\n  src="a.png"\n>}}`: the shortcode goes on in the next block.
                self.spans.push((at..m.len(), "template"));
                self.continued = true;
                return Step::Next(m.len());
            }
            return Step::Next(at + 1);
        };
        let stop = found + end.len();
        let code_name = shortcode(m, at, stop)
            .filter(|s| s.opens)
            .and_then(|s| CODE_SHORTCODES.iter().find(|n| n.as_bytes() == s.name));
        if let Some(&name) = code_name {
            return self.verbatim(at, stop, Closer::Shortcode(name));
        }
        self.spans.push((at..stop, "template"));
        Step::Next(stop)
    }

    /// The code-holding element opened at `at` (its opening ends at `stop`): one `verbatim`
    /// code to its `closer`, or, unclosed here, still open past the window.
    fn verbatim(&mut self, at: usize, stop: usize, closer: Closer) -> Step {
        let open = Open { closer, depth: 1 };
        match close_of(self.m, stop, open) {
            Ok(close) => {
                self.spans.push((at..close, "verbatim"));
                Step::Next(close)
            }
            Err(still) => Step::Open(still, at),
        }
    }

    /// A Liquid or Jinja tag at `at` (`{%`).
    fn liquid(&mut self, at: usize) -> Step {
        let m = self.m;
        let Some(found) = self.finders.tag.find(m, b"%}", at + 2) else {
            return Step::Next(at + 1);
        };
        let stop = found + 2;
        let name = tag_name(&m[at + 2..found]);
        if let Some(&name) = CODE_TAGS.iter().find(|n| n.as_bytes() == name) {
            return self.verbatim(at, stop, Closer::Tag(name));
        }
        self.spans.push((at..stop, "template"));
        Step::Next(stop)
    }

    /// A `<` at `at`: a code-holding component or element, or in an MDX-style file a JSX
    /// tag that CommonMark read as text.
    fn angle(&mut self, at: usize) -> Step {
        let m = self.m;
        if let Some(tag) = component_tag(m, at) {
            let component = CODE_COMPONENTS.contains(&tag.name);
            if tag.kind != TagKind::Open || (!component && self.unclosed) {
                return Step::Next(tag.end);
            }
            let open = Open {
                closer: Closer::Component(tag.name),
                depth: 1,
            };
            return match close_of(m, tag.end, open) {
                Ok(close) => {
                    self.spans.push((at..close, "verbatim"));
                    Step::Next(close)
                }
                Err(still) if component => Step::Open(still, at),
                // An element never closed in its block is left as it is.
                Err(_) => {
                    self.unclosed = true;
                    Step::Next(tag.end)
                }
            };
        }
        if self.mdx
            && let Some(end) = self.jsx_tag(at)
        {
            self.spans.push((at..end, "jsx"));
            return Step::Next(end);
        }
        Step::Next(at + 1)
    }

    /// The end of a JSX tag at `at` whose attributes CommonMark did not read (a value is an
    /// expression): `<name`, attributes (`a="x"`, `a='x'`, `a={…}`, `{...spread}`, `a`),
    /// then `>` or `/>`. Spends [`Scan::budget`].
    fn jsx_tag(&mut self, at: usize) -> Option<usize> {
        let m = self.m;
        let mut k = at + 1;
        if !m.get(k).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        k += name_len(&m[k..]);
        let mut expression = false;
        loop {
            let start = k;
            k += m[k..]
                .iter()
                .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | UNCOVERED))
                .count();
            self.budget = self.budget.checked_sub(k - start + 1)?;
            match m.get(k)? {
                b'>' => return expression.then_some(k + 1),
                b'/' if m.get(k + 1) == Some(&b'>') => return expression.then_some(k + 2),
                b'{' => {
                    k = self.pair_at(k)? + 1;
                    expression = true;
                    continue;
                }
                b if b.is_ascii_alphabetic() || *b == b'_' => {}
                _ => return None,
            }
            let name = name_len(&m[k..]);
            self.budget = self.budget.checked_sub(name)?;
            k += name;
            if m.get(k) != Some(&b'=') {
                continue;
            }
            k += 1;
            match m.get(k)? {
                q @ (b'"' | b'\'') => {
                    let close = memchr::memchr(*q, &m[k + 1..])?;
                    self.budget = self.budget.checked_sub(close)?;
                    k += close + 2;
                }
                b'{' => {
                    k = self.pair_at(k)? + 1;
                    expression = true;
                }
                _ => return None,
            }
        }
    }
}

/// Where a block's scan goes from a form.
enum Step {
    /// On from this offset.
    Next(usize),
    /// A stretch of code opened at the offset and not closed in the block.
    Open(Open, usize),
}

#[cfg(test)]
mod tests;
