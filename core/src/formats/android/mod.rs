//! Android string resources (`res/values*/strings.xml`): each `<string>`, each item of a
//! `<string-array>` and each `<plurals>` is a block, read with aapt2's rules for escapes,
//! quotes and whitespace, and written back byte for byte; the XML itself is scanned by [`super::xml`].
//!
//! # Blocks and keys
//! - `<string name="k">` is a [`Role::Key`] block keyed `k`; a name that repeats (a
//!   `product` variant) is numbered by [`crate::model::KeyDeduper`] (`k#2`).
//! - `<string-array name="a">` (and `<array>`) gives one block per `<item>`, keyed `a[0]`,
//!   `a[1]`, … in file order, at level 1.
//! - `<plurals name="p">` is ONE block keyed `p` whose edition is one [`Switch`] (kind
//!   plural, pivot `quantity`, id `1`), a branch per `<item quantity>` in file order and one
//!   skeleton hole per item (branch path `quantity:one`). Each branch numbers its codes from
//!   `1`. A repeated quantity keeps its first item; the repeat stays in the skeleton.
//! - `translatable="false"` on the element makes its blocks not translatable, with
//!   `locked` saying why. XML comments directly above an element (no blank line between)
//!   are its notes (an array's go to its first item).
//!
//! Everything else (the XML declaration, comments, whitespace, other resource types,
//! element tags and attributes) is skeleton; each value's content between its tags is a
//! hole.
//!
//! # Runs
//! The text is what the app shows: XML entities (`&amp;`, `&#39;`) are decoded; Android
//! escapes `\'`, `\"`, `\\`, `\n`, `\t`, `\@`, `\?`, `\uXXXX` (and `\x` for any other `x`)
//! are decoded; outside double quotes a run of whitespace reads as one space and the
//! value's leading and trailing whitespace is dropped. An unescaped `"` (quoting whitespace
//! and apostrophes) is a standalone code of class `quote`, so an edit keeps the quoting.
//! Inline elements (`<b>`, `<i>`, `<u>`, `<a href>`, `<xliff:g id example>`) are open and
//! close codes holding their tags as written (class `tag`, deletable; `xliff`, not
//! deletable); an empty element, a comment or a processing instruction is a standalone
//! code; a CDATA section is an open code `<![CDATA[` and a close code `]]>` around its
//! text, which is the value (Android escapes still apply inside, entities do not). printf
//! specifiers (`%1$s`, `%d`, `%%`) are codes unless the element says `formatted="false"`.
//! Text runs carry their file offset only where the piece is verbatim in the file (an
//! escaped `\'` reads as `'` at the offset of the `'`).
//!
//! # Writing
//! An edited value is re-escaped the Android way: `\\`, `\'`, `\"`, `\n`, `\t`, other
//! control characters as `\uXXXX`, `&` and `<` as `&amp;` and `&lt;` (`>` as `&gt;` after
//! `]]`), a leading `@` or `?` as `\@` or `\?`, and a space that would be trimmed or
//! collapsed as `\u0020`. Inside a CDATA section `&` and `<` stay as they are, and inside
//! quotes spaces are written as they are. An empty element written as `<string name="k"/>`
//! takes an edit by becoming `<string name="k">…</string>`.
//!
//! Malformed XML (an unclosed or mismatched element, an unterminated comment, CDATA or
//! attribute, an unknown entity, content outside the root) is a [`ReadError`] with its line
//! and column. The file is read as UTF-8, or UTF-16 when a BOM says so, or in the legacy
//! encoding its XML declaration names (`encoding="ISO-8859-1"`), and written back in it.
//! Text an edit types that looks like a printf specifier (`%s`) reads back as a code.
//! Elements nest at most 256 deep, `<resources>` included ([`super::MAX_DEPTH`]); a deeper
//! element is refused ([`ReadError::TooDeep`]) at its start tag. Block keys (an array's
//! name repeats in every item's key) may add up to four times the file's size plus 16 MB
//! ([`super::KeyBudget`]).
//!
//! ```text
//! <!-- Shown on start -->                      → note of `hello`
//! <string name="hello">Hi <b>%1$s</b>\'s</string>
//!                                               → `hello`: "Hi " <b> %1$s </b> "'s"
//! <plurals name="files">
//!     <item quantity="one">%d file</item>      → `files`, branch quantity:one
//!     <item quantity="other">%d files</item>   → `files`, branch quantity:other
//! </plurals>
//! ```
use std::ops::Range;

use super::inline::placeholders::{Ids, Syntaxes};
use super::output::Output;
use super::properties::Pieces;
use super::xml::{self, Token, Tree};
use super::{
    Capabilities, Format, FormatInfo, Hole, Keys, Parsed, ReadError, Skeleton, WriteError,
};
use crate::model::{Block, Branch, Code, CodeKind, Role, Run, Switch, SwitchKind};

pub const INFO: FormatInfo = FormatInfo {
    id: "android",
    name: "Android strings",
    extensions: &["xml"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// Why a `translatable="false"` block takes no edit.
const LOCKED: &str = "marked translatable=\"false\"";

pub struct Android;

impl Format for Android {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        let original = parsed.skeleton.text();
        parsed
            .skeleton
            .fill(&parsed.document, |hole: &Hole, runs: &[Run]| {
                let held = original.get(hole.span.clone()).unwrap_or_default();
                let mut out = String::new();
                render(runs, parsed.skeleton.encoding, &mut out);
                if held == "/>" {
                    // An empty element written short: open it, unless it stays empty.
                    if out.is_empty() {
                        return Ok(held.to_owned());
                    }
                    let name = element_name_before(original, hole.span.start);
                    return Ok(format!(">{out}</{name}>"));
                }
                Ok(out)
            })
    }

    fn sniff(&self, head: &[u8]) -> bool {
        root_name(head).as_deref() == Some("resources")
    }

    fn foreign(&self, head: &[u8]) -> Option<String> {
        let root = root_name(head)?;
        if root == "resources" {
            return None;
        }
        // Drawables, menus, navigation graphs, preferences, animators; layouts are views
        // (`LinearLayout`, `androidx.….ConstraintLayout`).
        let android = ANDROID_ROOTS.contains(&root.as_str())
            || root.contains('.')
            || root.starts_with(|c: char| c.is_ascii_uppercase());
        Some(if root == "manifest" {
            "the Android manifest (`<manifest>`), not strings".to_owned()
        } else if android {
            format!("an Android `<{root}>` resource, not strings")
        } else {
            format!(
                "an XML file whose root element is `<{root}>`, not Android strings (`<resources>`)"
            )
        })
    }
}

/// Root elements of Android resource files that are not strings.
const ANDROID_ROOTS: &[&str] = &[
    "vector",
    "selector",
    "shape",
    "layer-list",
    "ripple",
    "animated-vector",
    "animated-selector",
    "bitmap",
    "nine-patch",
    "inset",
    "clip",
    "scale",
    "level-list",
    "transition",
    "menu",
    "navigation",
    "set",
    "objectAnimator",
    "animator",
    "alpha",
    "rotate",
    "translate",
    "adaptive-icon",
    "font-family",
    "network-security-config",
    "full-backup-content",
    "data-extraction-rules",
    "paths",
    "searchable",
    "appwidget-provider",
    "accessibility-service",
    "locale-config",
    "shortcuts",
    "PreferenceScreen",
];

/// The root element's name, when the head is XML whose root starts within it (after any
/// BOM, declaration, comments and doctype; UTF-16 read by its low bytes, enough for ASCII
/// markup); `None` for anything else.
fn root_name(head: &[u8]) -> Option<String> {
    let narrowed: Vec<u8>;
    let mut head = match head {
        [0xFF, 0xFE, rest @ ..] => {
            narrowed = rest.iter().step_by(2).copied().collect();
            &narrowed[..]
        }
        [0xFE, 0xFF, rest @ ..] => {
            narrowed = rest.iter().skip(1).step_by(2).copied().collect();
            &narrowed[..]
        }
        [0xEF, 0xBB, 0xBF, rest @ ..] => rest,
        _ => head,
    };
    let after = |head: &[u8], open: &[u8], close: &[u8]| -> Option<usize> {
        let rest = head.get(open.len()..)?;
        let at = rest.windows(close.len()).position(|w| w == close)?;
        Some(open.len() + at + close.len())
    };
    loop {
        let skip = head.iter().take_while(|b| b.is_ascii_whitespace()).count();
        head = &head[skip..];
        let next = if head.starts_with(b"<?") {
            after(head, b"<?", b"?>")
        } else if head.starts_with(b"<!--") {
            after(head, b"<!--", b"-->")
        } else if head.starts_with(b"<!DOCTYPE") {
            after(head, b"<!DOCTYPE", b">")
        } else {
            let name: Vec<u8> = head
                .strip_prefix(b"<")?
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'-' | b'_' | b'.'))
                .copied()
                .collect();
            let end = head.get(1 + name.len());
            if name.is_empty()
                || !matches!(end, None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/'))
            {
                return None;
            }
            return String::from_utf8(name).ok();
        };
        head = &head[next?..];
    }
}

/// The name of the element whose start tag ends just before `at` (for `<x .../>`).
fn element_name_before(text: &str, at: usize) -> &str {
    let before = text.get(..at).unwrap_or_default();
    let open = before.rfind('<').map_or(before.len(), |i| i + 1);
    let rest = before.get(open..).unwrap_or_default();
    let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    &rest[..end]
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | ':' | '-' | '.') || !c.is_ascii()
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// An element of the tree, as the reader uses it.
#[derive(Debug, Clone)]
struct Tag {
    index: usize,
    /// The start tag (or the empty-element tag).
    open: Range<usize>,
    name: Range<usize>,
    /// Between the start tag and the end tag.
    content: Range<usize>,
    /// Past the end tag (past the start tag for an empty element).
    end: usize,
    empty: bool,
}

impl Tag {
    fn start(&self) -> usize {
        self.open.start
    }
}

/// The file's text: as its XML declaration names a legacy encoding (unless a BOM says
/// otherwise), else UTF-8 or UTF-16 by its BOM. Glue over [`xml::decode`], which refuses a
/// label no encoding has and reads a BOM-less file declared UTF-16 as UTF-16: here both read
/// as UTF-8, as they always have.
fn decode(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, super::Encoding), ReadError> {
    match xml::declared_encoding(bytes).and_then(|label| super::Encoding::for_label(&label)) {
        None
        | Some(super::Encoding::Utf8 | super::Encoding::Utf16Le | super::Encoding::Utf16Be) => {
            super::decode_auto(bytes)
        }
        Some(_) => xml::decode(bytes),
    }
}

/// The bytes that end a plain slice of a value's text: a reference, an escape, a quote and
/// whitespace (which Android collapses). A table: a value's text is read a word at a time.
const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = *b"&\\\" \t\n\r\x0b\x0c";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    prolog(text)?;
    let tree = parse(text)?;
    let mut reader = Reader {
        text,
        tree,
        out: Output::new(INFO.id, skeleton, each),
        keys: Keys::new(text.len()),
    };
    // A block per `<string>`, `<string-array>` item or `<plurals>` at most.
    if !reader.out.streams() {
        // One pass over the `<`s (two substring searches took 7% of a read).
        let bytes = text.as_bytes();
        let values = memchr::memchr_iter(b'<', bytes)
            .filter(|&at| {
                let rest = bytes.get(at + 1..).unwrap_or_default();
                rest.starts_with(b"string") || rest.starts_with(b"item")
            })
            .count();
        reader.out.reserve(values);
    }
    let root = reader.tag(reader.tree.root);
    if let Some(root) = &root {
        reader.resources(root)?;
    }
    epilog(text, root.map_or(text.len(), |root| root.end))?;
    Ok(reader.out)
}

/// Checks what comes before the root element (a BOM, whitespace, the XML declaration,
/// comments, processing instructions, a `<!DOCTYPE`) and that the root is `<resources>`,
/// before the whole file is parsed.
fn prolog(text: &str) -> Result<(), ReadError> {
    let end = text.len();
    let mut at = 0;
    loop {
        if at >= end {
            return Err(ReadError::syntax_at(
                text,
                at,
                "expected the root element `<resources>`, found the end of the file",
            ));
        }
        let (token, next) = xml::next_token(text, at, end)?;
        match token {
            Token::Text(span) => {
                let raw = text.get(span.clone()).unwrap_or_default();
                let bom = if span.start == 0 && raw.starts_with('\u{feff}') {
                    3
                } else {
                    0
                };
                if let Some(i) = raw
                    .get(bom..)
                    .and_then(|rest| rest.find(|c: char| !matches!(c, ' ' | '\t' | '\r' | '\n')))
                {
                    return Err(ReadError::syntax_at(
                        text,
                        span.start + bom + i,
                        "expected the root element `<resources>`",
                    ));
                }
            }
            Token::Pi(_) | Token::Comment(_) => {}
            Token::Doctype(span)
                if text
                    .get(span.clone())
                    .is_some_and(|d| d.starts_with("<!DOCTYPE")) => {}
            Token::Start { span, name, .. } => {
                let name = text.get(name).unwrap_or_default();
                if name != "resources" {
                    return Err(ReadError::syntax_at(
                        text,
                        span.start,
                        format!("the root element is `<{name}>`: expected `<resources>`"),
                    ));
                }
                return Ok(());
            }
            Token::Doctype(_) | Token::CData { .. } | Token::End { .. } => {
                return Err(ReadError::syntax_at(
                    text,
                    at,
                    "expected the root element `<resources>`",
                ));
            }
        }
        if next <= at {
            return Ok(());
        }
        at = next;
    }
}

/// After `</resources>` (at `at`) only whitespace, comments and processing instructions.
fn epilog(text: &str, mut at: usize) -> Result<(), ReadError> {
    let end = text.len();
    while at < end {
        let (token, next) = xml::next_token(text, at, end)?;
        let bad = match token {
            Token::Text(span) => text
                .get(span.clone())
                .and_then(|raw| raw.find(|c: char| !matches!(c, ' ' | '\t' | '\r' | '\n')))
                .map(|i| span.start + i),
            Token::Pi(_) | Token::Comment(_) => None,
            _ => Some(at),
        };
        if let Some(bad) = bad {
            return Err(ReadError::syntax_at(
                text,
                bad,
                "unexpected content after `</resources>`",
            ));
        }
        if next <= at {
            break;
        }
        at = next;
    }
    Ok(())
}

/// [`Tree::parse`], with one error worded as this reader always has: xml.rs ends a start tag
/// at the first `<` it meets and, when that `<` is inside a quoted value, says just that.
/// When the value's quote never comes back in the rest of the file, the value was never
/// closed: the error names the attribute, at its opening quote.
fn parse(text: &str) -> Result<Tree<'_>, ReadError> {
    Tree::parse(text).map_err(|error| unclosed_value(text, &error).unwrap_or(error))
}

/// The unclosed attribute value behind `error`, if that is what it is (see [`parse`]).
fn unclosed_value(text: &str, error: &ReadError) -> Option<ReadError> {
    let place = |e: &ReadError| match e {
        ReadError::Syntax { line, column, .. } => Some((*line, *column)),
        _ => None,
    };
    let want = place(error)?;
    // The token xml.rs stopped at, read as `Tree::parse` reads them.
    let end = text.len();
    let mut at = 0;
    let failed = loop {
        match xml::next_token(text, at, end) {
            Ok((_, next)) if next > at && next < end => at = next,
            Ok(_) => return None,
            Err(failed) => break failed,
        }
    };
    if place(&failed) != Some(want) {
        return None;
    }
    let after_lt = text.get(at + 1..)?;
    let name_end = at + 1 + after_lt.find(|c: char| !is_name_char(c))?;
    let lt = name_end + text.get(name_end..)?.find('<')?;
    if place(&ReadError::syntax_at(text, lt, "")) != Some(want) {
        return None;
    }
    // The attributes that are whole before the `<`; the next one is the open value.
    let after = xml::attributes(text, name_end, &(at..lt + 1))
        .map_while(Result::ok)
        .last()
        .map_or(name_end, |attr| attr.value.end + 1);
    let head = text.get(after..lt)?;
    let quote_at = head.find(['"', '\''])?;
    let quote = head.get(quote_at..quote_at + 1)?;
    if text.get(lt..)?.contains(quote) {
        return None;
    }
    let attr = head.get(..quote_at)?.trim_end().strip_suffix('=')?.trim();
    Some(ReadError::syntax_at(
        text,
        after + quote_at,
        format!("the value of the attribute `{attr}` is never closed"),
    ))
}

/// The entity or character reference at `at` (`&`, before `end`): its character and the
/// offset past its `;`. [`Tree::parse`] checked every reference already.
fn reference_at(text: &str, at: usize, end: usize) -> Result<(char, usize), ReadError> {
    let rest = text.get(at..end).unwrap_or_default();
    if let Some(semi) = rest.bytes().take(12).position(|b| b == b';')
        && let Some(c) = rest.get(1..semi).and_then(xml::reference)
    {
        return Ok((c, at + semi + 1));
    }
    xml::check_references(text, rest, at)?;
    Err(ReadError::syntax_at(
        text,
        at,
        "`&` starts no entity: write `&amp;` for a literal `&`",
    ))
}

/// What the reader builds.
struct Reader<'t, 'e> {
    text: &'t str,
    tree: Tree<'t>,
    out: Output<'e>,
    keys: Keys,
}

/// The attributes of a value element that matter here.
struct Attrs {
    name: Option<String>,
    translatable: bool,
    syntaxes: Syntaxes,
}

impl Reader<'_, '_> {
    fn tag(&self, index: usize) -> Option<Tag> {
        let element = self.tree.get(index)?;
        Some(Tag {
            index,
            open: element.open(),
            name: element.name(),
            content: element.content(),
            end: element.span().end,
            empty: element.empty(),
        })
    }

    fn name(&self, tag: &Tag) -> &str {
        self.text.get(tag.name.clone()).unwrap_or_default()
    }

    /// The children of `<resources>`.
    fn resources(&mut self, root: &Tag) -> Result<(), ReadError> {
        self.children(root, Vec::new(), true, |reader, tag, notes| {
            match reader.name(tag) {
                "string" => reader.string(tag, notes)?,
                "string-array" | "array" => reader.array(tag, notes)?,
                "plurals" => reader.plurals(tag, notes)?,
                _ => {}
            }
            Ok(())
        })
    }

    /// Walks the content of `parent`: calls `child` for each child element with the notes
    /// above it (comments directly above, no blank line or other text between). A CDATA
    /// section or a processing instruction ends the notes when `special_ends_notes`.
    fn children(
        &mut self,
        parent: &Tag,
        mut notes: Vec<String>,
        special_ends_notes: bool,
        mut child: impl FnMut(&mut Self, &Tag, Vec<String>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let text = self.text;
        let kids: Vec<usize> = self.tree.children(parent.index).collect();
        let mut kids = kids.into_iter();
        let end = parent.content.end;
        let mut at = parent.content.start;
        while at < end {
            let (token, mut next) = xml::next_token(text, at, end)?;
            match token {
                Token::Text(span) => {
                    let gap = text.get(span).unwrap_or_default();
                    if gap.bytes().filter(|&b| b == b'\n').count() > 1 || !gap.trim().is_empty() {
                        notes.clear();
                    }
                }
                Token::Comment(span) => {
                    let inner = span.start + 4..span.end.saturating_sub(3);
                    notes.push(text.get(inner).unwrap_or_default().trim().to_owned());
                }
                Token::CData { .. } | Token::Pi(_) => {
                    if special_ends_notes {
                        notes.clear();
                    }
                }
                Token::Doctype(span) => {
                    return Err(ReadError::syntax_at(
                        text,
                        span.start,
                        "unexpected `<!`: expected an element or a comment",
                    ));
                }
                Token::Start { span, .. } => {
                    let tag = kids.next().and_then(|index| self.tag(index));
                    let Some(tag) = tag.filter(|tag| tag.start() == span.start) else {
                        break;
                    };
                    next = tag.end;
                    child(self, &tag, std::mem::take(&mut notes))?;
                }
                Token::End { .. } => {}
            }
            if next <= at {
                break;
            }
            at = next;
        }
        Ok(())
    }

    fn attrs(&self, tag: &Tag) -> Attrs {
        let text = self.text;
        let mut attrs = Attrs {
            name: None,
            translatable: true,
            syntaxes: Syntaxes::PRINTF,
        };
        for attr in xml::attributes(text, tag.name.end, &tag.open).map_while(Result::ok) {
            let raw = text.get(attr.value.clone()).unwrap_or_default();
            let value = xml::unescape(text, raw, attr.value.start).unwrap_or(raw.into());
            match text.get(attr.name).unwrap_or_default() {
                "name" => attrs.name = Some(value.into_owned()),
                "translatable" => attrs.translatable = value.trim() != "false",
                "formatted" if value.trim() == "false" => attrs.syntaxes = Syntaxes::NONE,
                _ => {}
            }
        }
        attrs
    }

    /// The content of a value element: its hole span and runs. An empty element's hole is
    /// its `/>`.
    fn value(
        &mut self,
        tag: &Tag,
        syntaxes: Syntaxes,
        ids: &mut Ids,
    ) -> Result<(Range<usize>, Vec<Run>), ReadError> {
        if tag.empty {
            return Ok((tag.open.end.saturating_sub(2)..tag.open.end, Vec::new()));
        }
        let text = self.text;
        let mut decoder = Decoder::new(text);
        // The item index of the open code of each inline element open.
        let mut open: Vec<usize> = Vec::new();
        let end = tag.content.end;
        let mut at = tag.content.start;
        while at < end {
            if decoder.codes > super::MAX_CODES {
                return Err(ReadError::too_dense(text, tag.start()));
            }
            let (token, next) = xml::next_token(text, at, end)?;
            match token {
                Token::Text(span) => Self::chars(&mut decoder, text, span, tag.start())?,
                Token::Comment(span) => {
                    decoder.code(CodeKind::Standalone, "comment", span, None);
                }
                Token::CData { span, inner } => {
                    let item = decoder.code(CodeKind::Open, "cdata", span.start..inner.start, None);
                    let data = text.get(inner.clone()).unwrap_or_default();
                    for (i, c) in data.char_indices() {
                        let from = inner.start + i;
                        decoder.char(c, from..from + c.len_utf8(), true);
                    }
                    decoder.code(CodeKind::Close, "", inner.end..span.end, Some(item));
                }
                Token::Pi(span) => {
                    decoder.code(CodeKind::Standalone, "pi", span, None);
                }
                Token::Doctype(span) => {
                    return Err(ReadError::syntax_at(
                        text,
                        span.start,
                        "unexpected `<!` in a value",
                    ));
                }
                Token::Start { span, name, empty } => {
                    let class = if text.get(name) == Some("xliff:g") {
                        "xliff"
                    } else {
                        "tag"
                    };
                    if empty {
                        decoder.code(CodeKind::Standalone, class, span, None);
                    } else {
                        open.push(decoder.code(CodeKind::Open, class, span, None));
                    }
                }
                Token::End { span, .. } => {
                    let item = open.pop();
                    decoder.code(CodeKind::Close, "", span, item);
                }
            }
            if next <= at {
                break;
            }
            at = next;
        }
        let runs = decoder.finish(syntaxes, ids);
        Ok((tag.content.clone(), runs))
    }

    /// The character data `span` of a value (the element starts at `start`). A plain slice
    /// ends at a byte [`SPECIAL`] marks.
    fn chars(
        decoder: &mut Decoder,
        text: &str,
        span: Range<usize>,
        start: usize,
    ) -> Result<(), ReadError> {
        let mut at = span.start;
        while at < span.end {
            if decoder.codes > super::MAX_CODES {
                return Err(ReadError::too_dense(text, start));
            }
            let rest = text.get(at..span.end).unwrap_or_default();
            if rest.starts_with('&') {
                let (c, next) = reference_at(text, at, span.end)?;
                decoder.char(c, at..next, false);
                at = next;
                continue;
            }
            // Plain content up to the next special character, as one slice.
            let plain = rest
                .bytes()
                .position(|b| SPECIAL[usize::from(b)])
                .unwrap_or(rest.len());
            if plain > 0 && decoder.is_settled() {
                decoder.content_str(rest.get(..plain).unwrap_or_default(), at);
                at += plain;
                continue;
            }
            let Some(c) = rest.chars().next() else {
                break;
            };
            decoder.char(c, at..at + c.len_utf8(), true);
            at += c.len_utf8();
        }
        Ok(())
    }

    fn locked_block(key: String, runs: Vec<Run>, attrs: &Attrs, level: u32) -> Block {
        let mut block = Block::new(key, Role::Key, runs);
        block.level = level;
        if !attrs.translatable {
            block.translatable = false;
            block.locked = Some(LOCKED.into());
        }
        block
    }

    fn string(&mut self, tag: &Tag, notes: Vec<String>) -> Result<(), ReadError> {
        let attrs = self.attrs(tag);
        let (hole, runs) = self.value(tag, attrs.syntaxes, &mut Ids::default())?;
        let key = self.keys.key(
            attrs.name.as_deref().unwrap_or("string"),
            self.text,
            tag.start(),
        )?;
        let mut block = Self::locked_block(key, runs, &attrs, 0);
        block.notes = notes;
        block.span = tag.start()..tag.end;
        let index = self.out.index();
        self.out.skeleton.hole(hole, index, &block.source);
        self.out.push(self.text, block);
        Ok(())
    }

    /// The children of a `<string-array>` or `<plurals>`: calls `item` for each `<item>`
    /// with the notes above it; other elements are skipped.
    fn items(
        &mut self,
        tag: &Tag,
        mut item: impl FnMut(&mut Self, &Tag, Vec<String>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        self.children(tag, Vec::new(), false, |reader, child, notes| {
            if reader.name(child) == "item" {
                item(reader, child, notes)
            } else {
                Ok(())
            }
        })
    }

    fn array(&mut self, tag: &Tag, notes: Vec<String>) -> Result<(), ReadError> {
        let attrs = self.attrs(tag);
        let name = attrs.name.clone().unwrap_or_else(|| "array".to_owned());
        let mut index = 0;
        let mut first_notes = Some(notes);
        self.items(tag, |reader, item, notes| {
            let (hole, runs) = reader.value(item, attrs.syntaxes, &mut Ids::default())?;
            let key = reader
                .keys
                .key(&format!("{name}[{index}]"), reader.text, item.start())?;
            index += 1;
            let mut block = Self::locked_block(key, runs, &attrs, 1);
            block.notes = first_notes.take().unwrap_or_default();
            block.notes.extend(notes);
            block.span = item.start()..item.end;
            let index = reader.out.index();
            reader.out.skeleton.hole(hole, index, &block.source);
            reader.out.push(reader.text, block);
            Ok(())
        })
    }

    fn plurals(&mut self, tag: &Tag, notes: Vec<String>) -> Result<(), ReadError> {
        let attrs = self.attrs(tag);
        let index = self.out.index();
        let mut branches: Vec<Branch> = Vec::new();
        self.items(tag, |reader, item, _| {
            let Some(quantity) = reader.tree.attr(item.index, "quantity") else {
                return Err(ReadError::syntax_at(
                    reader.text,
                    item.start(),
                    "an `<item>` of `<plurals>` has no `quantity`: expected one of zero, one, \
                     two, few, many, other",
                ));
            };
            let quantity = quantity.trim().to_owned();
            let (hole, runs) = reader.value(item, attrs.syntaxes, &mut Ids::default())?;
            if branches.iter().any(|b| b.case == quantity) {
                return Ok(());
            }
            let path = format!("quantity:{quantity}");
            reader
                .out
                .skeleton
                .push(hole, index, None, Some(&path), &runs);
            branches.push(Branch::new(quantity, runs));
            Ok(())
        })?;
        let switch = Switch {
            id: Ids::default().next(),
            kind: SwitchKind::Plural,
            pivot: "quantity".into(),
            branches,
            head: String::new(),
            tail: String::new(),
            src: Some(tag.start()),
            forms: None,
        };
        let key = self.keys.key(
            attrs.name.as_deref().unwrap_or("plurals"),
            self.text,
            tag.start(),
        )?;
        let mut block = Self::locked_block(key, vec![Run::Switch(Box::new(switch))], &attrs, 0);
        block.notes = notes;
        block.span = tag.start()..tag.end;
        self.out.push(self.text, block);
        Ok(())
    }
}

/// One piece of a value while it is decoded.
enum Item {
    Text(Pieces),
    /// A code without its id yet, and for a close code the item index of its open code.
    Code(Code, Option<usize>),
}

/// Turns a value's characters and markup into runs with aapt2's rules: escapes, quotes,
/// whitespace collapsed outside quotes, leading and trailing whitespace dropped.
struct Decoder<'t> {
    text: &'t str,
    items: Vec<Item>,
    quoted: bool,
    /// Some content (not whitespace, not markup) was read.
    started: bool,
    /// The last text written is a collapsed space (more whitespace adds nothing).
    last_space: bool,
    /// That space ends the value so far (dropped if nothing but markup follows).
    trailing: bool,
    /// A backslash waiting for the character it escapes.
    escape: Option<usize>,
    /// A `\u` escape collecting its hex digits.
    unicode: Option<String>,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// Codes made so far: past [`super::MAX_CODES`] the value is refused.
    codes: usize,
}

impl<'t> Decoder<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            items: Vec::new(),
            codes: 0,
            quoted: false,
            started: false,
            last_space: false,
            trailing: false,
            escape: None,
            unicode: None,
            high: None,
        }
    }

    fn push_text(&mut self, c: char, at: Option<usize>) {
        self.add_text(|pieces| pieces.push(c, at));
    }

    /// Adds to the text item the content ends with (`add` writes into it), opening one when
    /// the last item is not text.
    fn add_text(&mut self, add: impl FnOnce(&mut Pieces)) {
        if let Some(Item::Text(pieces)) = self.items.last_mut() {
            add(pieces);
        } else {
            let mut pieces = Pieces::default();
            add(&mut pieces);
            self.items.push(Item::Text(pieces));
        }
    }

    /// No escape is waiting for its next characters.
    fn is_settled(&self) -> bool {
        self.escape.is_none() && self.unicode.is_none() && self.high.is_none()
    }

    /// Plain content read verbatim at `at` (no escapes, quotes or whitespace in it).
    fn content_str(&mut self, text: &str, at: usize) {
        self.add_text(|pieces| pieces.push_str(text, at));
        self.started = true;
        self.last_space = false;
        self.trailing = false;
    }

    /// A character that is content.
    fn content(&mut self, c: char, at: Option<usize>) {
        if self.high.take().is_some() {
            self.push_text('\u{fffd}', None);
        }
        self.push_text(c, at);
        self.started = true;
        self.last_space = false;
        self.trailing = false;
    }

    /// Ends a pending escape before markup or the end of the value.
    fn settle(&mut self) {
        if let Some(digits) = self.unicode.take() {
            self.content('u', None);
            for d in digits.chars() {
                self.content(d, None);
            }
        }
        if let Some(at) = self.escape.take() {
            self.content('\\', Some(at));
        }
        if self.high.take().is_some() {
            self.push_text('\u{fffd}', None);
            self.started = true;
            self.last_space = false;
            self.trailing = false;
        }
    }

    /// One character of the value as XML gives it; `raw` is where it was written and
    /// `verbatim` whether the file holds it as is (not as an entity).
    fn char(&mut self, c: char, raw: Range<usize>, verbatim: bool) {
        let at = verbatim.then_some(raw.start);
        if let Some(digits) = &mut self.unicode {
            if c.is_ascii_hexdigit() {
                digits.push(c);
                if digits.len() == 4 {
                    let code = u32::from_str_radix(digits, 16).unwrap_or(0xFFFD);
                    self.unicode = None;
                    match (self.high.take(), code) {
                        (None, 0xD800..=0xDBFF) => self.high = Some(code),
                        (Some(high), 0xDC00..=0xDFFF) => {
                            let joined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                            self.content(char::from_u32(joined).unwrap_or('\u{fffd}'), None);
                        }
                        (high, code) => {
                            self.high = high;
                            self.content(char::from_u32(code).unwrap_or('\u{fffd}'), None);
                        }
                    }
                }
                return;
            }
            self.settle();
        }
        if self.escape.take().is_some() {
            match c {
                'n' => self.content('\n', None),
                't' => self.content('\t', None),
                'u' => self.unicode = Some(String::with_capacity(4)),
                c => self.content(c, at),
            }
            return;
        }
        if self.high.is_some() && c != '\\' {
            self.settle();
        }
        match c {
            '\\' => self.escape = Some(raw.start),
            '"' => {
                self.code(CodeKind::Standalone, "quote", raw, None);
                self.quoted = !self.quoted;
                self.started = true;
                self.last_space = false;
                self.trailing = false;
            }
            c if is_space(c) && !self.quoted => {
                if self.started && !self.last_space {
                    self.push_text(' ', at.filter(|_| c == ' '));
                    self.last_space = true;
                    self.trailing = true;
                }
            }
            c => self.content(c, at),
        }
    }

    /// Markup (or a quote) written as `raw`; returns its item index.
    fn code(
        &mut self,
        kind: CodeKind,
        class: &str,
        raw: Range<usize>,
        open: Option<usize>,
    ) -> usize {
        self.settle();
        let data = self.text.get(raw.clone()).unwrap_or_default();
        let (class, deletable) = match (kind, open.and_then(|i| self.items.get(i))) {
            (CodeKind::Close, Some(Item::Code(code, _))) => (code.class.clone(), code.deletable),
            _ => (
                class.to_owned(),
                matches!(
                    (kind, class),
                    (CodeKind::Open, "tag") | (CodeKind::Standalone, "comment")
                ),
            ),
        };
        let code = Code::new("", kind, class, data, deletable).at(raw.start);
        self.items.push(Item::Code(code, open));
        self.codes += 1;
        self.items.len() - 1
    }

    fn finish(mut self, syntaxes: Syntaxes, ids: &mut Ids) -> Vec<Run> {
        self.settle();
        if self.trailing {
            // The collapsed space ends the last text item: drop it.
            if let Some(index) = self.items.iter().rposition(|i| matches!(i, Item::Text(_)))
                && let Some(Item::Text(pieces)) = self.items.get_mut(index)
            {
                if let Some((text, _)) = pieces.pieces.last_mut() {
                    text.pop();
                    if text.is_empty() {
                        pieces.pieces.pop();
                    }
                }
                if pieces.pieces.is_empty() {
                    self.items.remove(index);
                }
            }
        }
        if self.items.len() == 1
            && let Some(Item::Text(_)) = self.items.first()
            && let Some(Item::Text(pieces)) = self.items.pop()
        {
            return pieces.into_runs(syntaxes, ids);
        }
        let mut runs = Vec::with_capacity(self.items.len());
        // The run index of each item's code, to give a close code its open code's id.
        let mut code_ids: Vec<Option<String>> = Vec::with_capacity(self.items.len());
        for item in self.items {
            match item {
                Item::Text(pieces) => {
                    runs.extend(pieces.into_runs(syntaxes, ids));
                    code_ids.push(None);
                }
                Item::Code(mut code, open) => {
                    code.id = match open.and_then(|i| code_ids.get(i).cloned().flatten()) {
                        Some(id) => id,
                        None => ids.next(),
                    };
                    code_ids.push(Some(code.id.clone()));
                    runs.push(Run::Code(Box::new(code)));
                }
            }
        }
        runs
    }
}

/// Whether a code reads as text to aapt2 (a printf specifier, a quote) rather than markup.
fn is_content(code: &Code) -> bool {
    !matches!(
        code.class.as_str(),
        "tag" | "xliff" | "comment" | "cdata" | "pi"
    )
}

/// Whether the file's encoding holds `c`.
fn encodable(encoding: super::Encoding, c: char) -> bool {
    match encoding {
        super::Encoding::Latin1 => (c as u32) <= 0xFF,
        super::Encoding::Legacy(enc) => c.is_ascii() || !enc.encode(c.encode_utf8(&mut [0; 4])).2,
        _ => true,
    }
}

/// Writes an edited value's runs with Android escaping; characters the file's encoding
/// cannot hold are written as `\uXXXX` escapes.
fn render(runs: &[Run], encoding: super::Encoding, out: &mut String) {
    enum Piece<'r> {
        Char(char),
        Code(&'r Code),
    }
    let mut flat: Vec<Piece> = Vec::new();
    fn flatten<'r>(runs: &'r [Run], flat: &mut Vec<Piece<'r>>) {
        for run in runs {
            match run {
                Run::Text { text, .. } => flat.extend(text.chars().map(Piece::Char)),
                Run::Code(code) => flat.push(Piece::Code(code)),
                Run::Switch(switch) => {
                    for branch in &switch.branches {
                        flatten(&branch.runs, flat);
                    }
                }
            }
        }
    }
    flatten(runs, &mut flat);
    // Index of the last piece that is content: a space after it would be trimmed.
    let last_content = flat.iter().rposition(|p| match p {
        Piece::Char(c) => *c != ' ',
        Piece::Code(code) => is_content(code),
    });
    let (mut quoted, mut cdata, mut started, mut last_space) = (false, false, false, false);
    for (index, piece) in flat.iter().enumerate() {
        let c = match piece {
            Piece::Code(code) => {
                out.push_str(&code.data);
                match code.class.as_str() {
                    "quote" => quoted = !quoted,
                    "cdata" => cdata = code.kind == CodeKind::Open,
                    _ => {}
                }
                if is_content(code) {
                    (started, last_space) = (true, false);
                }
                continue;
            }
            Piece::Char(c) => *c,
        };
        if c == ' ' && !quoted {
            let kept = started && !last_space && last_content.is_some_and(|l| index < l);
            if kept {
                out.push(' ');
                last_space = true;
            } else {
                out.push_str("\\u0020");
                (started, last_space) = (true, false);
            }
            continue;
        }
        match c {
            ' ' => out.push(' '),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '@' | '?' if !started => {
                out.push('\\');
                out.push(c);
            }
            '&' if !cdata => out.push_str("&amp;"),
            '<' if !cdata => out.push_str("&lt;"),
            '>' if out.ends_with("]]") => {
                out.push_str(if cdata { "\\u003E" } else { "&gt;" });
            }
            c if c.is_control() || !encodable(encoding, c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
        (started, last_space) = (true, false);
    }
}

#[cfg(test)]
mod conformance_tests {
    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(super::super::conformance::run_corpus(&super::Android, "android") > 0);
    }
}

#[cfg(test)]
mod tests;
