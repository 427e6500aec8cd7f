//! `placeholders`: a translation keeps the source's variables and markup. Modelled on the
//! checks translators already trust: gettext's `msgfmt -c` (format directives match in number
//! and type; positional `%1$s` may reorder) and translate-toolkit's `pofilter` tests
//! `printf`, `pythonbraceformat`, `xmltags` and `variables` (Mozilla's, for `{{name}}`).
//! `testdata/pofilter/` holds one PO case per behaviour with pofilter's verdict and kapi's;
//! `scripts/pofilter-agree.sh` checks the first against the real pofilter and
//! `cli/tests/cli/pofilter.rs` the second against the binary.
//!
//! Compared as multisets of normalised placeholders ([`Token`]): printf by argument position
//! and the whole directive, flags (as a set), width, precision, length and conversion family
//! (`%#100s` is not `%10s`, `%'d` not `%d`, `%S` not `%s`, `%i` is `%d`), sequential
//! directives numbered in order, so `%s … %d` matches `%2$d … %1$s` reversed; Python
//! `%(name)s` by name and directive; `{name}`, `{{ name }}`, `${name}`, `%{name}` by name,
//! whitespace ignored; auto-numbered `{}` by the argument it takes (`{} {}` are `{0} {1}`, so
//! their count is kept); `%%` not a variable. A `{{name}}` a format leaves as text (gettext
//! reads `{{` as an escaped brace) still counts. Tags by element name, open, close and
//! self-closing apart as written (`<br/>` is not `<br>`), attributes as a set, the values of
//! text and locale attributes (`alt`, `title`, `lang`, `xml:lang`, `dir`…) free; a word in
//! angle brackets in prose (`<Error>` in "Returns `<Error>` when it fails") is text, as the
//! splitter reads it ([`ProseTags::lookalike`]). In a plural, a target branch may drop a variable
//! the source uses (Russian `one` also covers 21, so translators write the number out or
//! not), but never add one the source never uses; a variable every source branch uses must
//! appear in some target branch. Where kapi and pofilter disagree, each rule's
//! `## Differences from pofilter` says why.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::rule::declare_rule;
use crate::formats::inline::placeholders::ProseTags;
use crate::governance::Severity;
use crate::model::{CodeKind, Edition, Run};

declare_rule! {
    /// ## What it flags
    /// A variable of the source (`{name}`, `{}`, `%1$s`, `%'d`, `%S`, `%(count)d`,
    /// `{{user}}`) missing from the translation, or there in another form (`%10s` for the
    /// source's `%#100s`).
    ///
    /// ## What is compared
    /// - printf directives (`%s`, `%1$d`, `%5.2f`, Mozilla's `%S`): the argument each reads
    ///   and the whole directive: flags (as a set: `%+-8d` is `%-+8d`), width, precision,
    ///   length (`%ld` is not `%d`; the `l` printf ignores in `%lf` is dropped) and the
    ///   conversion by the argument type it reads (`%i` is `%d`, `%e` and `%g` are `%f`, `%X`
    ///   and `%o` are `%x`; `%S`, a wide or UTF-16 string, is not `%s`). A directive without
    ///   `n$` takes the next argument, so `%s of %d` matches `%2$d sur %1$s`. Directives are
    ///   counted: a source with two `%s` needs two.
    /// - Python `%(name)s`: by name and the rest of the directive (`%(num)5d` is not
    ///   `%(num)d`).
    /// - `{name}`, `{0}`, `{{name}}`, `${name}`, `%{name}` (an AsciiDoc attribute reference too),
///   and a reStructuredText substitution reference (`|version|`): by name, spaces ignored
    ///   (`{{ count }}` is `{{count}}`). A name may be used fewer or more times than in the
    ///   source. A `{{name}}` the format leaves as text (gettext reads `{{` as Python's
    ///   escaped brace) still counts.
    /// - Python's auto-numbered fields `{}` (and `{:>10}`, `{!r}`): by the argument each
    ///   takes, in order, so `{} and {}` are `{0} and {1}`: a translation keeps their count,
    ///   and may number them to reorder (`{1} … {0}`).
    /// - `%%` is no variable. In a plural, a target branch may drop a variable (Russian `one`
    ///   also covers 21), as long as some branch keeps it.
    ///
    /// ## Why it matters
    /// The program fills variables in at run time: a translation without one drops
    /// information, and with printf-style strings it can crash the program when arguments and
    /// directives disagree (`msgfmt -c` refuses such a catalog). A changed flag or width
    /// changes what is printed (`%'d` groups thousands, `%#100s` pads to 100 columns).
    ///
    /// ## Example
    /// Source `Delete {count} files?`, translation `Supprimer les fichiers ?` Use instead:
    /// `Supprimer {count} fichiers ?`
    ///
    /// ## Differences from pofilter
    /// The cases are in `testdata/pofilter/`; kapi agrees with pofilter's `printf`,
    /// `pythonbraceformat` and `variables` tests except:
    /// - `%i` for `%d` (or `%g` for `%f`) passes: the same argument type, as `msgfmt -c`
    ///   accepts; pofilter wants the same letter.
    /// - `%-+8d` for `%+-8d` passes: printf reads flags as a set; pofilter compares text.
    /// - `%lf` for `%lu` is flagged: pofilter's length pattern matches a literal `|`, so it
    ///   reads both as the conversion `%l` and passes them.
    /// - `%1$S … %1$S` for `%1$S … %2$S` is flagged (`%2$S` missing): pofilter only checks
    ///   that each directive of the translation exists in the source and that the counts
    ///   match.
    /// - `{{name}}` in a `python-brace-format` message counts: pofilter's
    ///   `pythonbraceformat` removes `{{` and `}}` first (its Mozilla `variables` test does
    ///   count them).
    /// - `{{ count }}` for `{{count}}` passes (i18next trims the spaces), and so does a
    ///   variable used fewer times than in the source, or in another order: pofilter's
    ///   `variables` compares the text between the braces, counts each variable, and flags
    ///   any reordering as "Added variables".
    pub MISSING = "placeholders.missing", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A variable in the translation that the source does not have (a misspelt `{nmae}`, a
    /// `%d` where the source had `%s`, a third `{}` where the source has two).
    ///
    /// ## What is compared
    /// What `placeholders.missing` compares (`kapi help rules placeholders.missing`), the
    /// other way round: printf directives by argument and whole directive (flags, width,
    /// precision, length, conversion family), counted; names by name; auto-numbered `{}` by
    /// the argument each takes, so a translation with more `{}` than its source asks for an
    /// argument the program does not pass.
    ///
    /// ## Why it matters
    /// The program has no value for it: the reader sees `{nmae}` verbatim, or a printf call
    /// reads an argument that is not there (`str.format` raises `IndexError` for a `{}` too
    /// many).
    ///
    /// ## Example
    /// Source `Hello, {name}`, translation `Bonjour, {nom}` Use instead: `Bonjour, {name}`
    ///
    /// ## Differences from pofilter
    /// Those of `placeholders.missing`, and one of its own: source `String {1}`, translation
    /// `{} and {}` is flagged (argument 0, which the source never shows, is extra).
    /// pofilter's `pythonbraceformat` counts how many arguments each text needs (two and
    /// two) and passes it; kapi compares which arguments each text shows, as it does for
    /// names.
    pub EXTRA = "placeholders.extra", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// Markup tags (`<b>`, `</a>`, `<br/>`) the source and translation do not share, or share
    /// in another form (`<br>` for `<br/>`, `<a href="b">` for `<a href="a">`).
    ///
    /// ## What is compared
    /// Tags as a multiset (a translation may reorder them, not lose or invent them), each by:
    /// - its element name, case ignored;
    /// - its shape as written: opening, closing or self-closing. A self-closing tag stays
    ///   self-closing: `<br/>` is `<br />`, not `<br>` (which XML reads as an element never
    ///   closed), and `<icon/>` is not `<icon></icon>`;
    /// - its attributes, as a set of names and values. The values of attributes a
    ///   translation may change are not compared, but the attribute must stay: text for the
    ///   reader (`alt`, `title`, `placeholder`, `aria-label`, `label`, `summary`, `abbr`,
    ///   `standby`) and the locale attributes `lang`, `xml:lang`, `dir` (and OpenOffice
    ///   help's `xml-lang`), which name the translation's language and direction
    ///   (`<p lang="ar" dir="rtl">`). `hreflang` names the linked page's language: it stays.
    ///
    /// Not markup: a word in angle brackets in prose (`<Error>` in "Returns `<Error>` when it
    /// fails", `<Enter>`, `<username>`): a bare name, no HTML or XLIFF element, with no
    /// letter touching it and never closed in the text. It is a word to translate. A
    /// `<name>` that is closed (`<term>…</term>`), has attributes, is self-closing or runs
    /// into a word (`<text_to_translate>Save`) is markup. Entities (`&lt;b&gt;`) and
    /// comparisons (`1 < 2`) are text.
    ///
    /// ## Why it matters
    /// A lost closing tag breaks the rendered page; a lost link drops the reader's way on. A
    /// translation may reorder tags, not lose or invent them.
    ///
    /// ## Example
    /// Source `Read the <a>guide</a>`, translation `Lisez le guide` Use instead:
    /// `Lisez le <a>guide</a>`
    ///
    /// ## Differences from pofilter
    /// The cases are in `testdata/pofilter/`; kapi agrees with pofilter's `xmltags` except:
    /// - a prose lookalike translated (`Returns <Error>` → `Renvoie <Erreur>`) passes;
    ///   pofilter flags it, a false positive its own documentation names. Both pass a text
    ///   that is only `<Error>`.
    /// - tags and attributes in another order pass; pofilter compares ordered lists.
    /// - `placeholder`, `aria-label` and the other reader-facing attributes may change;
    ///   pofilter lets only `img`'s `alt`, `title`, `lang` and `dir` change.
    /// - a dropped `xml:lang` is flagged; pofilter's attribute pattern `(\w*)=` cannot read a
    ///   name with a colon, so it never sees `xml:lang`.
    /// - a text that is one tag with no attribute (`<b>` alone) is compared; pofilter skips
    ///   it.
    pub TAGS = "placeholders.tags", Severity::Minor
}

/// A placeholder reduced to what must match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Token {
    /// printf: argument position and the directive without it: flags (sorted, each once),
    /// width, precision, length and conversion family (`#100s`, `'d`, `.2f`, `ld`, `S`).
    Printf(u32, String),
    /// A named variable (`{name}`, `{{name}}`, `%(name)s` with its directive). An
    /// auto-numbered Python field (`{}`, `{:>10}`) is named by the argument it takes, `0`,
    /// `1`… in order, as `{0}`, `{1}` are.
    Named(String),
    /// A tag: name, `<`, `</` or `/>` (as written: `<br>` is not `<br/>`), and its
    /// attributes (`name=value`, sorted; the value of an attribute a translation may change,
    /// such as `alt`, `title` or `lang`, as `*`).
    Tag(String, &'static str, String),
}

impl Token {
    pub fn is_tag(&self) -> bool {
        matches!(self, Token::Tag(..))
    }

    /// How the token reads in a message.
    pub fn show(&self) -> String {
        match self {
            Token::Printf(pos, spec) => format!("%{pos}${spec}"),
            Token::Named(name) => format!("{{{name}}}"),
            Token::Tag(name, "</", _) => format!("</{name}>"),
            Token::Tag(name, "/>", _) => format!("<{name}/>"),
            Token::Tag(name, _, _) => format!("<{name}>"),
        }
    }
}

/// Where the numbering of sequential placeholders stands in an edition: printf directives
/// without `n$` and Python fields without a name (`{}`) each take the next argument.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Positions {
    /// printf directives seen (the next one without `n$` is argument `printf + 1`).
    printf: u32,
    /// Auto-numbered `{}` fields seen (the next one is argument `brace`, from 0).
    brace: u32,
}

/// A problem found between a source and its translation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub rule: &'static crate::check::Rule,
    /// The native form as written where it was found (source for missing, target for extra).
    pub data: String,
    pub message: String,
}

/// The tokens of runs (recursing into every branch), each with its native data.
fn tokens(runs: &[Run], out: &mut Vec<(Token, String)>) {
    let mut positions = Positions::default();
    collect(runs, &mut positions, out);
}

fn collect(runs: &[Run], positions: &mut Positions, out: &mut Vec<(Token, String)>) {
    // Formats that keep markup as text (gettext, properties) have tags in their text, maybe
    // with a variable inside (`<a href="%(url)s">`): scan the text with variables put back.
    // `plain` is the text alone, for variables a format leaves as text (`{{name}}`).
    let mut scan = String::new();
    let mut plain = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => {
                scan.push_str(text);
                plain.push_str(text);
            }
            Run::Code(code) => {
                plain.push('\0');
                match token_of(&code.class, code.kind, &code.data, positions) {
                    Some(token) => {
                        if token.is_tag() {
                            scan.push('\0');
                        } else {
                            scan.push_str(&code.data);
                        }
                        out.push((token, code.data.clone()));
                    }
                    None => scan.push('\0'),
                }
            }
            Run::Switch(switch) => {
                scan_text(&scan, &plain, out);
                scan.clear();
                plain.clear();
                // The pivot is a variable of the text only where the message writes it (ICU's
                // `{count, plural, …}`); a format that stores each form apart (PO, Android,
                // Qt's `<numerusform>`s) names it for kapi alone.
                if !switch.head.is_empty() {
                    out.push((Token::Named(switch.pivot.clone()), switch.pivot.clone()));
                }
                // An empty form is untranslated, not wrong.
                for branch in switch.branches.iter().filter(|b| !b.runs.is_empty()) {
                    let mut p = *positions;
                    collect(&branch.runs, &mut p, out);
                }
            }
        }
    }
    scan_text(&scan, &plain, out);
}

/// Tags written as text (in `scan`, the text with variables put back) and double-brace
/// variables written as text (in `plain`, the text alone): gettext reads `{{name}}` as
/// Python's escaped braces, yet in a catalog of an i18next or Handlebars program it is a
/// variable, and pofilter's Mozilla `variables` test counts it as one.
fn scan_text(scan: &str, plain: &str, out: &mut Vec<(Token, String)>) {
    if plain.contains("{{") {
        let mut unused = Positions::default();
        for m in TEXT_DOUBLE_BRACE.find_iter(plain) {
            let data = m.as_str();
            if let Some(token) = token_of("placeholder", CodeKind::Standalone, data, &mut unused) {
                out.push((token, data.to_owned()));
            }
        }
    }
    if !scan.contains('<') {
        return;
    }
    let mut unused = Positions::default();
    let mut prose = ProseTags::new(scan);
    for m in TEXT_TAG.find_iter(scan) {
        let data = m.as_str();
        let kind = if data.ends_with("/>") {
            CodeKind::Standalone
        } else if data.starts_with("</") {
            CodeKind::Close
        } else {
            // A word in angle brackets in a sentence ("Returns <Error> when it fails") is
            // prose, as the splitter reads it.
            if prose.lookalike(m.range(), data) {
                continue;
            }
            CodeKind::Open
        };
        if let Some(token) = token_of("tag", kind, data, &mut unused) {
            out.push((token, data.to_owned()));
        }
    }
}

/// The parts of a printf directive after `%` (and after `n$` or `(name)`): flags, width,
/// precision, length and conversion, normalised to what changes the output: flags sorted
/// and once each, the `l` a float conversion ignores dropped, the conversion by family.
fn printf_spec(body: &str) -> String {
    let mut chars = body.chars().peekable();
    let mut flags: Vec<char> = Vec::new();
    while let Some(&c) = chars.peek() {
        if !matches!(c, '-' | '+' | ' ' | '#' | '0' | '\'') {
            break;
        }
        if !flags.contains(&c) {
            flags.push(c);
        }
        chars.next();
    }
    flags.sort_unstable();
    let rest: String = chars.collect();
    let Some(conv) = rest.chars().last() else {
        return flags.into_iter().collect();
    };
    let middle = rest.get(..rest.len() - conv.len_utf8()).unwrap_or_default();
    let family = family(conv);
    // Width and precision are digits, `*` or `.`; the length is the letters after them.
    let split = middle
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(middle.len());
    let (size, length) = middle.split_at(split);
    let length = if family == 'f' && length == "l" {
        ""
    } else {
        length
    };
    let mut spec: String = flags.into_iter().collect();
    spec.push_str(size);
    spec.push_str(length);
    spec.push(family);
    spec
}

/// Normalises one code; `None` for codes that are not variables or tags (formatting,
/// entities, `%%`). `positions` numbers the directives that take the next argument.
pub fn token_of(
    class: &str,
    kind: CodeKind,
    data: &str,
    positions: &mut Positions,
) -> Option<Token> {
    let data = data.trim();
    if data == "%%" {
        return None;
    }
    if class == "substitution" {
        // A reStructuredText substitution reference (`|version|`, `|logo|_`): a variable the
        // build replaces, by name.
        return Some(Token::Named(data.trim_end_matches('_').to_owned()));
    }
    if let Some(rest) = data.strip_prefix("%(") {
        let (name, spec) = rest.split_once(')')?;
        return Some(Token::Named(format!("{name}:{}", printf_spec(spec))));
    }
    if data.starts_with('%') && !data.starts_with("%{") && !data.starts_with("%<") {
        let body = &data[1..];
        let explicit = body
            .split_once('$')
            .and_then(|(n, rest)| Some((n.parse::<u32>().ok()?, rest)));
        let (pos, spec) = match explicit {
            Some((n, rest)) => (n, rest),
            None => {
                positions.printf += 1;
                (positions.printf, body)
            }
        };
        return Some(Token::Printf(pos, printf_spec(spec)));
    }
    if let Some(inner) = data.strip_prefix('{').and_then(|d| d.strip_suffix('}'))
        && (inner.is_empty() || inner.starts_with([':', '!']))
    {
        // Python's auto-numbered field: the next argument, as `{0}`, `{1}`… would name it.
        let n = positions.brace;
        positions.brace += 1;
        return Some(Token::Named(format!("{n}{inner}")));
    }
    if let Some(inner) = data
        .strip_prefix("{{")
        .and_then(|d| d.strip_suffix("}}"))
        .or_else(|| data.strip_prefix("${").and_then(|d| d.strip_suffix('}')))
        .or_else(|| data.strip_prefix("%{").and_then(|d| d.strip_suffix('}')))
        .or_else(|| data.strip_prefix('{').and_then(|d| d.strip_suffix('}')))
    {
        let name: String = inner
            .trim_start_matches('-')
            .split(',')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        return (!name.is_empty()).then_some(Token::Named(name));
    }
    if let Some(rest) = data.strip_prefix("%<") {
        let name = rest.split('>').next().unwrap_or("");
        return Some(Token::Named(name.to_owned()));
    }
    if data.starts_with("$t(") {
        return Some(Token::Named(data.to_owned()));
    }
    if data.starts_with('<') && !data.starts_with("<!--") {
        let inner = data.trim_start_matches('<');
        let (closing, inner) = match inner.strip_prefix('/') {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let name: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            return None;
        }
        // As written: a self-closing tag stays self-closing (`<br/>` is not `<br>`, which
        // XML reads as an element never closed).
        let shape = if closing || kind == CodeKind::Close {
            "</"
        } else if data
            .strip_suffix('>')
            .is_some_and(|d| d.trim_end().ends_with('/'))
        {
            "/>"
        } else {
            "<"
        };
        return Some(Token::Tag(name, shape, attributes(data)));
    }
    None
}

/// Attributes a translation may change: the words of `alt`, `title`… (pofilter's `xmltags`
/// allows `alt` on `img` and `title` anywhere), and the locale attributes `lang`, `xml:lang`
/// (`xml-lang` in OpenOffice help) and `dir`, which name the translation's language and
/// direction (`lang="ar" dir="rtl"`). The attribute must still be there.
const CHANGEABLE_ATTRIBUTES: &[&str] = &[
    "lang",
    "xml:lang",
    "xml-lang",
    "dir",
    "alt",
    "title",
    "placeholder",
    "aria-label",
    "summary",
    "label",
    "abbr",
    "standby",
];

static TEXT_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"</?[A-Za-z][A-Za-z0-9_:-]*(?:\s+[^<>]*?)?\s*/?>"#)
        .unwrap_or_else(|e| unreachable!("tag pattern: {e}"))
});

/// `{{name}}` as text: the splitter's double-brace syntax, not across a code (`\0`).
static TEXT_DOUBLE_BRACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{-?\s*[^{}\s\x00][^{}\x00]*?\s*\}\}")
        .unwrap_or_else(|e| unreachable!("double brace pattern: {e}"))
});

static ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z_:][A-Za-z0-9_:.-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)"#)
        .unwrap_or_else(|e| unreachable!("attribute pattern: {e}"))
});

/// A tag's attributes, normalised: `name=value` sorted, changeable values as `*`.
fn attributes(tag: &str) -> String {
    let mut attrs: Vec<String> = ATTRIBUTE
        .captures_iter(tag)
        .filter_map(|c| {
            let name = c.get(1)?.as_str().to_ascii_lowercase();
            let value = c.get(2)?.as_str().trim_matches(['"', '\'']);
            Some(if CHANGEABLE_ATTRIBUTES.contains(&name.as_str()) {
                format!("{name}=*")
            } else {
                format!("{name}={value}")
            })
        })
        .collect();
    attrs.sort();
    attrs.join(" ")
}

/// printf conversions that take the same argument type compare equal (`%i` is `%d`).
fn family(conv: char) -> char {
    match conv {
        'd' | 'i' | 'u' => 'd',
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => 'f',
        'x' | 'X' | 'o' => 'x',
        's' => 's',
        other => other,
    }
}

/// A token for a message: its native form, and for an auto-numbered field (`{}`, which
/// reads the same in both texts) the argument it takes.
fn describe(token: &Token, data: &str) -> String {
    match token {
        Token::Named(name)
            if data.trim().starts_with("{}")
                || data.trim().starts_with("{:")
                || data.trim().starts_with("{!") =>
        {
            let n: String = name.chars().take_while(char::is_ascii_digit).collect();
            format!("`{data}` for argument {n} (the {} `{{}}`)", ordinal(&n))
        }
        _ => format!("`{data}`"),
    }
}

/// `0` → `1st`, `1` → `2nd`…
fn ordinal(n: &str) -> String {
    let n = n.parse::<u32>().map_or(1, |n| n.saturating_add(1));
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Compares a target edition with its source. Each mismatch is reported once per token.
pub fn compare(source: &Edition, target: &Edition) -> Vec<Mismatch> {
    // An untranslated target (no text in any form) is missing, not wrong.
    if target.runs.is_empty()
        || target.leaves().iter().all(|(_, runs)| runs.is_empty())
            && target.runs.iter().all(|r| matches!(r, Run::Switch(_)))
    {
        return Vec::new();
    }
    let mut src = Vec::new();
    tokens(&source.runs, &mut src);
    let mut tgt = Vec::new();
    tokens(&target.runs, &mut tgt);
    let plural = source
        .runs
        .iter()
        .chain(&target.runs)
        .any(|r| matches!(r, Run::Switch(_)));
    let count = |list: &[(Token, String)]| {
        let mut map: BTreeMap<Token, (usize, String)> = BTreeMap::new();
        for (token, data) in list {
            let entry = map.entry(token.clone()).or_insert((0, data.clone()));
            entry.0 += 1;
        }
        map
    };
    let (s, t) = (count(&src), count(&tgt));
    let mut out = Vec::new();
    surplus(&s, &t, plural, &MISSING, &mut out, |what| {
        format!("the translation lacks {what}, which the source has")
    });
    surplus(&t, &s, plural, &EXTRA, &mut out, |what| {
        format!("the translation has {what}, which the source does not")
    });
    out
}

/// Each token `more` holds more times than `fewer` (any at all, in a plural or for a name)
/// is a mismatch: [`TAGS`] for a tag, else `rule`; its message is what `says` of the token.
fn surplus(
    more: &BTreeMap<Token, (usize, String)>,
    fewer: &BTreeMap<Token, (usize, String)>,
    plural: bool,
    rule: &'static crate::check::Rule,
    out: &mut Vec<Mismatch>,
    says: impl Fn(&str) -> String,
) {
    for (token, (n, data)) in more {
        let have = fewer.get(token).map_or(0, |(m, _)| *m);
        // A name may be used fewer or more times in a translation (`{name}` once where the
        // source says it twice); printf directives and tags are counted.
        let counted = !matches!(token, Token::Named(_));
        let over = if plural || !counted {
            have == 0
        } else {
            have < *n
        };
        if over {
            out.push(Mismatch {
                rule: if token.is_tag() { &TAGS } else { rule },
                data: data.clone(),
                message: says(&describe(token, data)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::inline::placeholders::{Ids, Syntaxes, split};

    #[test]
    fn surplus_counts_printf_and_tags_but_only_the_presence_of_a_name() {
        let counts = |list: &[(Token, usize)]| -> BTreeMap<Token, (usize, String)> {
            list.iter()
                .map(|(t, n)| (t.clone(), (*n, "d".to_owned())))
                .collect()
        };
        let printf = Token::Printf(0, "s".into());
        let name = Token::Named("n".into());
        let tag = Token::Tag("b".into(), "<", String::new());
        let more = counts(&[(printf.clone(), 2), (name.clone(), 2), (tag.clone(), 1)]);
        let fewer = counts(&[(printf.clone(), 1), (name.clone(), 1)]);
        let rules = |plural: bool| {
            let mut out = Vec::new();
            surplus(&more, &fewer, plural, &MISSING, &mut out, |what| {
                what.to_owned()
            });
            out.iter().map(|m| m.rule.id).collect::<Vec<_>>()
        };
        assert_eq!(rules(false), [MISSING.id, TAGS.id]);
        assert_eq!(rules(true), [TAGS.id], "a plural counts presence only");
    }

    fn ed(text: &str) -> Edition {
        Edition::new(split(text, None, Syntaxes::ALL, &mut Ids::default()))
    }

    fn rules(source: &str, target: &str) -> Vec<&'static str> {
        compare(&ed(source), &ed(target))
            .iter()
            .map(|m| m.rule.id)
            .collect()
    }

    #[test]
    fn matching_translations_pass() {
        let table = [
            ("Delete {count} files?", "Supprimer {count} fichiers ?"),
            ("%s of %d", "%2$d sur %1$s"),
            ("%(name)s left", "%(name)s est parti"),
            ("Hi {{ user }}", "Salut {{user}}"),
            ("100%% done", "fini à 100 %"),
            (
                "Read the <a href=\"x\">guide</a>",
                "Lisez le <a href=\"x\">guide</a>",
            ),
            (
                "<img src=\"a.png\" alt=\"A cat\">",
                "<img alt=\"Un chat\" src=\"a.png\">",
            ),
            ("%i items", "%d éléments"),
            ("Hi %(name)s and %(name)s", "Salut %(name)s"),
            // printf: the same flags (as a set), width, precision and length.
            ("Remove %'d files", "Retirer %'d fichiers"),
            ("I am %#100.50hhf", "Je suis %#100.50hhf"),
            ("Balance %+-8d", "Solde %-+8d"),
            ("Size %lf", "Taille %f"),
            ("%2$5.2f by %1$s", "%1$s : %2$5.2f"),
            // Mozilla's %S.
            ("Open %S now", "Ouvrir %S maintenant"),
            ("%1$S is sharing %2$S", "%2$S est partagé par %1$S"),
            // Auto-numbered fields: counted, `{}` is `{0}`, and may become numbered.
            ("String {} and number {}", "Chaîne {} et nombre {}"),
            ("Hello {}", "Bonjour {0}"),
            ("From {} to {}", "Vers {1} depuis {0}"),
            ("Use {{}} here", "Utilisez {{}} ici"),
            // Locale attributes change, translatable ones too.
            (
                "<p lang=\"en\" dir=\"ltr\">Hello</p>",
                "<p lang=\"ar\" dir=\"rtl\">مرحبا</p>",
            ),
            ("<p xml:lang=\"en\">Hi</p>", "<p xml:lang=\"fr\">Salut</p>"),
            (
                "<a xml-lang=\"en\" href=\"x\">a</a>",
                "<a xml-lang=\"fr\" href=\"x\">b</a>",
            ),
            // `<br/>` and `<br />` are one self-closing tag.
            ("Row<br/>row", "Ligne<br />ligne"),
            // A word in angle brackets in prose is translated.
            (
                "Returns <Error> when it fails",
                "Renvoie <Erreur> en cas d'échec",
            ),
            (
                "Press <Enter> to continue",
                "Appuyez sur <Entrée> pour continuer",
            ),
            ("<Error>", "<Fout>"),
            // Literal angle text of several words is text too (Sphinx, `perf`).
            ("<original entry>", "<entrée originale>"),
            (
                "(The <<original entry>> is located in %s, line %d.)",
                "(L'<<entrée originale>> se trouve dans %s, à la ligne %d.)",
            ),
            ("Value: <not supported>", "Valeur : <non pris en charge>"),
        ];
        for (s, t) in table {
            assert_eq!(rules(s, t), Vec::<&str>::new(), "{s} / {t}");
        }
    }

    #[test]
    fn tags_written_as_text_count_and_empty_targets_are_untranslated() {
        let text = |t: &str| Edition::new(vec![Run::text(t)]);
        let got = compare(&text("Read <b>this</b>"), &text("Lisez ceci"));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(compare(&text("Hello {name}"), &Edition::new(vec![])).is_empty());
    }

    const MISSING_EXTRA: &[&str] = &["placeholders.missing", "placeholders.extra"];
    const TAGS_2: &[&str] = &["placeholders.tags", "placeholders.tags"];

    #[test]
    fn mismatches_name_their_rule() {
        let table: &[(&str, &str, &[&str])] = &[
            (
                "Delete {count} files?",
                "Supprimer les fichiers ?",
                &["placeholders.missing"],
            ),
            (
                "Hello, {name}",
                "Bonjour, {nom}",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "%s files",
                "%d fichiers",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "Read the <b>guide</b>",
                "Lisez le guide",
                &["placeholders.tags", "placeholders.tags"],
            ),
            ("%s and %s", "%s et", &["placeholders.missing"]),
            (
                "Delete %(items)s",
                "Scrios %(items)r roghnaithe",
                &["placeholders.missing", "placeholders.extra"],
            ),
            (
                "Save",
                "<text_to_translate>Enregistrer",
                &["placeholders.tags"],
            ),
            ("{a} and {a}", "{a} et {b}", &["placeholders.extra"]),
            (
                "See <a href=\"/x\">this</a>",
                "Voir <a href=\\\"/x\\\">ceci</a>",
                &["placeholders.tags", "placeholders.tags"],
            ),
            // printf flags, width, precision and length are part of the directive.
            ("Name: %#100s", "Nom : %10s", MISSING_EXTRA),
            ("Delete %'d items", "Supprimer %d éléments", MISSING_EXTRA),
            ("Total %5.2f", "Total %.2f", MISSING_EXTRA),
            ("Code %05d", "Code %5d", MISSING_EXTRA),
            ("Size %ld bytes", "Taille %d octets", MISSING_EXTRA),
            ("Used %lu", "Utilisé %lf", MISSING_EXTRA),
            ("Count %(num)5d", "Nombre %(num)d", MISSING_EXTRA),
            // %S is a placeholder, and not %s.
            ("Download %S", "Télécharger %s", MISSING_EXTRA),
            (
                "%S could not be opened",
                "Impossible d'ouvrir",
                &["placeholders.missing"],
            ),
            ("%1$S opens %2$S", "%1$S ouvre %1$S", MISSING_EXTRA),
            // `{}` fields keep their count.
            ("Copied {} to {}", "Copié {}", &["placeholders.missing"]),
            ("Saved {}", "{} enregistré dans {}", &["placeholders.extra"]),
            ("Only {0}", "Seulement {1}", MISSING_EXTRA),
            (
                "String {1}",
                "Nombre {} et chaîne {}",
                &["placeholders.extra"],
            ),
            // An i18next variable renamed.
            ("Hello {{name}}", "Bonjour {{nom}}", MISSING_EXTRA),
            // A locale attribute may change, not go.
            ("<div lang=\"en\">Hi</div>", "<div>Salut</div>", TAGS_2),
            (
                "<a hreflang=\"en\">a</a>",
                "<a hreflang=\"fr\">b</a>",
                TAGS_2,
            ),
            // A self-closing tag stays self-closing.
            ("Line<br/>next", "Ligne<br>suite", TAGS_2),
            ("First<br>second", "Premier<br/>second", TAGS_2),
            (
                "test <img src='a.jpg'/ >",
                "essai <img src='a.jpg'  >",
                TAGS_2,
            ),
            // Prose lookalikes are not markup; markup a translation adds is.
            (
                "Shows <Error> in red",
                "Affiche <b>Erreur</b> en rouge",
                TAGS_2,
            ),
            (
                "Clear the <term>cache</term>",
                "Videz le <terme>cache</terme>",
                &[
                    "placeholders.tags",
                    "placeholders.tags",
                    "placeholders.tags",
                    "placeholders.tags",
                ],
            ),
        ];
        for (s, t, want) in table {
            assert_eq!(rules(s, t), *want, "{s} / {t}");
        }
    }

    /// Formats that leave markup and `{{name}}` as text (gettext, properties): the text is
    /// scanned, with the splitter's rules.
    #[test]
    fn text_is_scanned_for_tags_and_double_braces() {
        let text = |t: &str| Edition::new(vec![Run::text(t)]);
        let table: &[(&str, &str, usize)] = &[
            ("Hello {{name}}", "Bonjour {{nom}}", 2),
            ("Hello {{ name }}", "Bonjour {{name}}", 0),
            (
                "Returns <Error> when it fails",
                "Renvoie <Erreur> en cas d'échec",
                0,
            ),
            ("Type <username>.", "Tapez <username>.", 0),
            ("Line<br/>next", "Ligne<br>suite", 2),
            (
                "<p xml:lang=\"en\">Hi</p>",
                "<p xml:lang=\"fr\">Salut</p>",
                0,
            ),
            ("<p xml:lang=\"en\">Hi</p>", "<p>Salut</p>", 2),
            ("Save", "<text_to_translate>Enregistrer", 1),
        ];
        for (s, t, n) in table {
            let got = compare(&text(s), &text(t));
            assert_eq!(got.len(), *n, "{s} / {t}: {got:?}");
        }
        // A double brace around a code is not a variable of its own (`{{{}}}` is Python's
        // `{` field `}`).
        let runs = split("Set {{{}}}", None, Syntaxes::PRINTF, &mut Ids::default());
        let mut out = Vec::new();
        tokens(&runs, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn directives_normalise_to_what_changes_the_output() {
        let token = |data: &str, positions: &mut Positions| {
            token_of("printf", CodeKind::Standalone, data, positions)
        };
        let one = |data: &str| token(data, &mut Positions::default());
        let printf = |pos: u32, spec: &str| Some(Token::Printf(pos, spec.to_owned()));
        assert_eq!(one("%#100s"), printf(1, "#100s"));
        assert_eq!(one("%'d"), printf(1, "'d"));
        assert_eq!(one("%+-8d"), one("%-+8d"));
        assert_eq!(one("%+-8d"), printf(1, "+-8d"));
        assert_eq!(one("%lf"), printf(1, "f"));
        assert_eq!(one("%ld"), printf(1, "ld"));
        assert_eq!(one("%i"), printf(1, "d"));
        assert_eq!(one("%2$5.2f"), printf(2, "5.2f"));
        assert_eq!(one("%S"), printf(1, "S"));
        assert_eq!(one("%(num)5d"), Some(Token::Named("num:5d".into())));
        let mut positions = Positions::default();
        let named = |n: &str| Some(Token::Named(n.to_owned()));
        assert_eq!(token("{}", &mut positions), named("0"));
        assert_eq!(token("{:>10}", &mut positions), named("1:>10"));
        assert_eq!(token("{!r}", &mut positions), named("2!r"));
        assert_eq!(token("{0}", &mut positions), named("0"));
        assert_eq!(token("%s", &mut positions), printf(1, "s"));
        assert_eq!(token("%d", &mut positions), printf(2, "d"));
        let tag =
            |data: &str| token_of("tag", CodeKind::Standalone, data, &mut Positions::default());
        assert_eq!(
            tag("<br>"),
            Some(Token::Tag("br".into(), "<", String::new()))
        );
        assert_eq!(tag("<br />"), tag("<br/>"));
        assert_eq!(
            tag("<p lang=\"en\" dir=\"ltr\" class=\"x\">"),
            Some(Token::Tag("p".into(), "<", "class=x dir=* lang=*".into()))
        );
    }

    #[test]
    fn an_auto_numbered_field_is_named_by_its_argument_in_messages() {
        let got = compare(&ed("Copied {} to {}"), &ed("Copié {}"));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            got[0].message,
            "the translation lacks `{}` for argument 1 (the 2nd `{}`), which the source has"
        );
    }
}
