//! `translation`: translate-toolkit's functional checks of a translation beside its source
//! (pofilter's `endpunc`, `startpunc`, `numbers`, `urls`, `emails`, `accelerators`,
//! `newlines`, `escapes`, `brackets`, `doublespacing`, `startwhitespace`, `endwhitespace`,
//! `long`, `short`), each a rule, with pofilter's semantics and language data ([`lang`]).
//!
//! Choices where translate-toolkit leaves one to its caller:
//! - Text: each check reads a target as its file decodes it (PO escapes undone), with
//!   pofilter's preconditions: an empty or blank target is untranslated and not checked;
//!   `endpunc` is skipped when `endwhitespace` fails, `startpunc` when `startwhitespace` does.
//!   A line break lost or added at one end is `newlines`'s finding alone (pofilter also
//!   reports it as white space at that end).
//! - Placeholders and tags a format reads as codes are masked (one U+FFFC each) for every
//!   check but `long`/`short`, which count them as written: a moved or lost `%(name)s` is
//!   `placeholders.*`'s to report, never a bracket, number or punctuation finding too.
//! - Plurals: each form of the translation is compared with the source form of the same
//!   CLDR category, else the source's `other` (pofilter pairs the first form with `msgid`
//!   and the rest with `msgid_plural`: the same for every language but those with one form).
//!   A rule reports once per message, at its first failing form.
//! - Accelerators are read by file type, from the name of the file the findings name:
//!   `_File` and `&File` in gettext PO (GNOME's and KDE's conventions; pofilter's
//!   `--gnome` and `--kde`), `&File` in Java properties, XLIFF and Qt files, none elsewhere
//!   (Android, JSON, YAML and web catalogs have no mnemonic marker: `&` there is "and").
//! - `urls` and `emails` compare what each text holds as a multiset: a translation may
//!   reorder them (pofilter compares ordered lists).
//! - `numbers` reads native digits (Arabic-Indic, Persian, Bengali) as ASCII on both sides
//!   (pofilter converts the source only, so an Arabic translation written in Arabic digits
//!   fails it).

pub mod lang;

use std::sync::LazyLock;

use regex::Regex;

use super::placeholders::Mismatch;
use super::rule::declare_rule;
use crate::check::Rule;
use crate::governance::Severity;
use crate::model::{Edition, Run, Switch};

declare_rule! {
    /// ## What it flags
    /// A translation that ends with other punctuation than its source (pofilter's `endpunc`):
    /// a lost `:` or `…`, a `.` the source does not have, `?` for `.`. The source's marks
    /// are first written the target language's way: a French `:` is ` :`, a Chinese or
    /// Japanese `.` is `。`, a Greek `?` is `;`, an Armenian `.` is `։`.
    ///
    /// ## Why it matters
    /// A label's colon, a menu item's ellipsis (it opens a dialog) and a question's mark
    /// are part of what the interface says; a lost one is a visible slip.
    ///
    /// ## Example
    /// Source `Open file…`, translation `Ouvrir un fichier` Use instead:
    /// `Ouvrir un fichier…`
    ///
    /// ## Differences from pofilter
    /// The cases are in `testdata/pofilter/functional-*.po`. kapi passes, where pofilter
    /// flags:
    /// - the period of a source that is one abbreviation (`Jan.`, `Sept.`, `p.m.`: one word
    ///   of at most four letters, or with a `.` inside) left out (`janv`, `1月`);
    /// - a full-width mark for its ASCII one (`！` for `!`, `？` for `?`).
    ///
    /// A placeholder at the end is masked: `Total: %d` ends with no punctuation, as in
    /// pofilter, and a translation that moves the placeholder (`%d au total`) is
    /// `placeholders.*`'s concern, not this rule's.
    pub END_PUNCTUATION = "translation.end-punctuation", Severity::Info
}

declare_rule! {
    /// ## What it flags
    /// A translation that starts with other punctuation than its source (pofilter's
    /// `startpunc`): a lost `-`, `(` or `...`, or one added. Spanish questions and
    /// exclamations start with `¿` and `¡`, which the source's first sentence implies.
    ///
    /// ## Why it matters
    /// Leading punctuation is usually structure: a list dash, an option's `--`, an
    /// ellipsis that continues another string.
    ///
    /// ## Example
    /// Source `(optional)`, translation `facultatif)` Use instead: `(facultatif)`
    ///
    /// ## Differences from pofilter
    /// - Quotation marks are left out: each language quotes its own way and often
    ///   elsewhere (`“%(value)s” is not valid` → `Значение «%(value)s» недопустимо`); on
    ///   Django's catalogs these were most of pofilter's `startpunc` findings.
    /// - A placeholder at the start is masked: a translation that moves `%s` from the start
    ///   (`Fichiers %s`) passes; pofilter reads `%` as punctuation and flags it.
    pub START_PUNCTUATION = "translation.start-punctuation", Severity::Info
}

declare_rule! {
    /// ## What it flags
    /// A number of the source that the translation does not have as often (pofilter's
    /// `numbers`): `180°`, `1.5`, `403`, `2024`. Native digits (Arabic-Indic, Persian,
    /// Bengali) count as the number they write.
    ///
    /// ## Why it matters
    /// A changed number is a wrong fact: a port, a limit, a version, a size.
    ///
    /// ## Example
    /// Source `Use at least 8 characters`, translation `Utilisez au moins 6 caractères`
    /// Use instead: `Utilisez au moins 8 caractères`
    ///
    /// ## Differences from pofilter
    /// Native digits in the translation count (pofilter converts only the source's).
    /// Numbers inside a placeholder (`%1$s`) are masked.
    pub NUMBERS = "translation.numbers", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A URL (`http://`, `https://`, `ftp:`, `www.`) of the source missing from the
    /// translation, or one the source does not have (pofilter's `urls`).
    ///
    /// ## Why it matters
    /// A translated or mistyped URL leads nowhere. Where a localized page exists, change
    /// the URL on purpose and suppress the finding there.
    ///
    /// ## Example
    /// Source `See https://example.com/help`, translation `Voir https://exemple.com/aide`
    /// Use instead: `Voir https://example.com/help`
    ///
    /// ## Differences from pofilter
    /// The URLs are compared as a set with counts: a translation may reorder them. A URL is
    /// ASCII and ends before the punctuation that closes its sentence: `https://docs.rs/regex.`
    /// is `https://docs.rs/regex`, as is `https://docs.rs/regex를` (a Korean particle written
    /// onto it) and `https://docs.rs/regex。` (pofilter reads each as another URL).
    pub URLS = "translation.urls", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// An email address of the source missing from the translation, or one the source does
    /// not have (pofilter's `emails`).
    ///
    /// ## Why it matters
    /// A translated address sends mail nowhere.
    ///
    /// ## Example
    /// Source `Write to help@example.com`, translation `Écrivez à aide@exemple.com`
    /// Use instead: `Écrivez à help@example.com`
    ///
    /// ## Differences from pofilter
    /// The addresses are compared as a set with counts: a translation may reorder them.
    pub EMAILS = "translation.emails", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// An accelerator (the marked letter of a menu item: `_File`, `&File`) the translation
    /// lost, added or repeated (pofilter's `accelerators`). The marker depends on the file
    /// type: `_` and `&` in gettext PO files (GNOME's and KDE's conventions), `&` in Java
    /// properties, XLIFF and Qt files; other catalogs have none. A marker before a letter
    /// the target language cannot type as one key (`&é` in German) is not an accelerator.
    ///
    /// ## Why it matters
    /// Without its marker a menu item has no keyboard shortcut; with two, the toolkit
    /// picks one and the other shows as a literal `_`.
    ///
    /// ## Example
    /// Source `_Open`, translation `Ouvrir` Use instead: `_Ouvrir`
    ///
    /// ## Differences from pofilter
    /// pofilter's standard checker has no marker; kapi reads a PO file as `--gnome` and
    /// `--kde` together. The `&` of a character reference (`&amp;`, `&#8230;`) is no
    /// accelerator (pofilter's `--kde` counts `&amp;` as one on `a`).
    pub ACCELERATORS = "translation.accelerators", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A translation with a different number of line breaks (`\n`, `\r`) than its source,
    /// or that does not start or end with a line break where the source does (pofilter's
    /// `newlines`; `msgfmt -c` refuses the last two).
    ///
    /// ## Why it matters
    /// Programs print these strings as they are: a lost final `\n` runs the next output
    /// into this line, an added one leaves a blank line.
    ///
    /// ## Example
    /// Source `Done.\n`, translation `Terminé.` Use instead: `Terminé.\n`
    ///
    /// ## Severity
    /// Major when a line break at the start or end is lost or added (what `msgfmt -c`
    /// refuses); minor when only the count inside the text differs.
    ///
    /// ## Differences from pofilter
    /// A line break lost or added at an end is this rule's finding alone; pofilter also
    /// reports it as `startwhitespace` or `endwhitespace`.
    pub NEWLINES = "translation.newlines", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A translation with a different number of backslashes than its source, as the file
    /// decodes them (pofilter's `escapes`): a literal `\n` written where the source has a
    /// line break, a lost `\\`.
    ///
    /// ## Why it matters
    /// A backslash the program reads as an escape (a regular expression, a path, a printf
    /// pattern) changes meaning when it is lost or added.
    ///
    /// ## Example
    /// Source `C:\\Users`, translation `C:Utilisateurs` Use instead: `C:\\Utilisateurs`
    pub ESCAPES = "translation.escapes", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A bracket `(`, `)`, `[`, `]`, `{`, `}` the source has more or fewer times than the
    /// translation (pofilter's `brackets`).
    ///
    /// ## Why it matters
    /// A lost closing bracket reads as a typo; a lost `{` or `}` can break a template.
    ///
    /// ## Example
    /// Source `Size (in MB)`, translation `Taille (en Mo` Use instead: `Taille (en Mo)`
    ///
    /// ## Differences from pofilter
    /// - Brackets the translation adds in balanced pairs (`English` → `Anglais (US)`) pass:
    ///   an explanation is the translator's to add. A lost bracket, or an added one left
    ///   open, is flagged.
    /// - A full-width bracket (`（`, `）`, Chinese and Japanese) is the bracket it writes.
    /// - Brackets inside a placeholder (`%(name)s`, `{count}`) are masked.
    pub BRACKETS = "translation.brackets", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// Two spaces in a row the translation has a different number of times than its source
    /// (pofilter's `doublespacing`).
    ///
    /// ## Why it matters
    /// A doubled space is usually a slip; where the source has one on purpose (alignment),
    /// the translation needs it too.
    ///
    /// ## Example
    /// Source `Name: Ada`, translation `Nom :  Ada` Use instead: `Nom : Ada`
    pub DOUBLE_SPACE = "translation.double-space", Severity::Info
}

declare_rule! {
    /// ## What it flags
    /// Leading white space (spaces, tabs, line breaks) that differs between the source and
    /// the translation (pofilter's `startwhitespace`).
    ///
    /// ## Why it matters
    /// The program joins this string to another: the space is part of the layout.
    ///
    /// ## Example
    /// Source ` of %d`, translation `sur %d` Use instead: ` sur %d`
    pub START_WHITESPACE = "translation.start-whitespace", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// Trailing white space that differs between the source and the translation (pofilter's
    /// `endwhitespace`). In Chinese and Japanese a full-width mark needs no space after it
    /// (`Limit: ` → `限制：`).
    ///
    /// ## Why it matters
    /// A label such as `Password: ` is followed by another string; without its space the
    /// two run together.
    ///
    /// ## Example
    /// Source `Password: `, translation `Mot de passe :` Use instead: `Mot de passe : `
    pub END_WHITESPACE = "translation.end-whitespace", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A translation more than ten times as long as its source, or of several characters
    /// where the source has one (pofilter's `long`).
    ///
    /// ## Why it matters
    /// Usually a translation pasted into the wrong entry, or a note left in the target.
    ///
    /// ## Example
    /// Source `X`, translation `Fermer la fenêtre` Use instead: `X`
    pub TOO_LONG = "translation.too-long", Severity::Info
}

declare_rule! {
    /// ## What it flags
    /// A translation less than a tenth as long as its source, or of one character where the
    /// source has several (pofilter's `short`).
    ///
    /// ## Why it matters
    /// Usually a truncated or placeholder translation. A one-character word is sometimes
    /// right (Chinese `是` for `Yes`): the rule is information, not a gate.
    ///
    /// ## Example
    /// Source `Delete the selected files`, translation `S` Use instead:
    /// `Supprimer les fichiers sélectionnés`
    ///
    /// ## Differences from pofilter
    /// One Han ideograph, kana or Hangul syllable is a word and passes (`Yes` → `是`,
    /// `Mon` → `月`).
    pub TOO_SHORT = "translation.too-short", Severity::Info
}

/// Every rule of the analyzer, in the order its checks run.
pub static RULES: &[&Rule] = &[
    &NEWLINES,
    &ESCAPES,
    &NUMBERS,
    &URLS,
    &EMAILS,
    &ACCELERATORS,
    &BRACKETS,
    &START_WHITESPACE,
    &END_WHITESPACE,
    &START_PUNCTUATION,
    &END_PUNCTUATION,
    &DOUBLE_SPACE,
    &TOO_LONG,
    &TOO_SHORT,
];

/// What stands for a code in the masked text: no letter, digit, space or punctuation.
const MASK: char = '\u{fffc}';

/// The accelerator markers of the file at `path`, by its extension (see the module docs).
pub fn accelerator_markers(path: &str) -> &'static [char] {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "po" | "pot" => &['_', '&'],
        "properties" | "xlf" | "xliff" | "ts" | "resx" => &['&'],
        _ => &[],
    }
}

/// One form of a message: as written (codes' text kept) and masked (each code one [`MASK`]).
#[derive(Debug, Default)]
struct Form {
    raw: String,
    masked: String,
}

/// The text of `runs` with each switch read at `case`: that branch, else `other`, else the
/// first (`first`) or last branch.
fn render(runs: &[Run], case: Option<&str>, first: bool, out: &mut Form) {
    for run in runs {
        match run {
            Run::Text { text, .. } => {
                out.raw.push_str(text);
                out.masked.push_str(text);
            }
            Run::Code(code) => {
                out.raw.push_str(&code.data);
                out.masked.push(MASK);
            }
            Run::Switch(switch) => {
                if let Some(branch) = pick(switch, case, first) {
                    render(&branch.runs, case, first, out);
                }
            }
        }
    }
}

fn pick<'s>(
    switch: &'s Switch,
    case: Option<&str>,
    first: bool,
) -> Option<&'s crate::model::Branch> {
    case.and_then(|c| switch.branch(c))
        .or_else(|| switch.branch("other"))
        .or_else(|| {
            if first {
                switch.branches.first()
            } else {
                switch.branches.last()
            }
        })
}

/// The case names of every switch in `runs`, in order, each once (at most 16).
fn cases(runs: &[Run], out: &mut Vec<String>) {
    for run in runs {
        if let Run::Switch(switch) = run {
            for branch in &switch.branches {
                if out.len() < 16 && !out.contains(&branch.case) {
                    out.push(branch.case.clone());
                }
                cases(&branch.runs, out);
            }
        }
    }
}

/// Runs every check over a translation into `lang`, with the accelerator `markers` of its
/// file: each rule at most once, with the severity it is reported at (its rule's, but a
/// line break count that differs only inside the text is minor).
pub fn compare(
    source: &Edition,
    target: &Edition,
    lang: &str,
    markers: &[char],
) -> Vec<(Mismatch, Severity)> {
    let language = lang::of(lang);
    let mut list = Vec::new();
    cases(&target.runs, &mut list);
    let picks: Vec<Option<&str>> = if list.is_empty() {
        vec![None]
    } else {
        list.iter().map(|c| Some(c.as_str())).collect()
    };
    let mut out: Vec<(Mismatch, Severity)> = Vec::new();
    for case in picks {
        let mut t = Form::default();
        // The target's own branch only: a form it lacks is untranslated, not wrong.
        if let Some(c) = case
            && !has_case(&target.runs, c)
        {
            continue;
        }
        render(&target.runs, case, true, &mut t);
        let mut s = Form::default();
        render(&source.runs, case, false, &mut s);
        // A source of one text whose translation has a form per number (Qt's `%n file(s)`):
        // the `(s)` is what the forms replace, not a bracket to keep.
        if case.is_some() && !has_switch(&source.runs) {
            s.raw = drop_plural_suffixes(&s.raw);
            s.masked = drop_plural_suffixes(&s.masked);
        }
        for m in check_form(&s, &t, &language, markers) {
            if !out.iter().any(|(o, _)| std::ptr::eq(o.rule, m.rule)) {
                let severity = if std::ptr::eq(m.rule, &NEWLINES) && m.data.is_empty() {
                    Severity::Minor
                } else {
                    m.rule.severity
                };
                out.push((m, severity));
            }
        }
    }
    out
}

fn has_switch(runs: &[Run]) -> bool {
    runs.iter().any(|r| matches!(r, Run::Switch(_)))
}

/// `text` without the plural suffixes in brackets written after a word: `file(s)`,
/// `match(es)`, `Datei(en)` (one to three letters).
fn drop_plural_suffixes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let letters = after[1..]
            .chars()
            .take_while(|c| c.is_alphabetic())
            .take(4)
            .count();
        let inner: usize = after[1..].chars().take(letters).map(char::len_utf8).sum();
        let suffix = before.chars().next_back().is_some_and(char::is_alphabetic)
            && (1..=3).contains(&letters)
            && after[1 + inner..].starts_with(')');
        if suffix {
            rest = &after[inner + 2..];
        } else {
            out.push('(');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

fn has_case(runs: &[Run], case: &str) -> bool {
    runs.iter().any(|r| match r {
        Run::Switch(s) => {
            s.branch(case).is_some() || s.branches.iter().any(|b| has_case(&b.runs, case))
        }
        _ => false,
    })
}

fn mismatch(rule: &'static Rule, data: impl Into<String>, message: impl Into<String>) -> Mismatch {
    Mismatch {
        rule,
        data: data.into(),
        message: message.into(),
    }
}

/// The checks over one form of a message.
fn check_form(s: &Form, t: &Form, lang: &lang::Lang, markers: &[char]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    // pofilter's preconditions: untranslated (empty) and blank targets are not checked.
    if t.raw.is_empty() || t.raw.trim().is_empty() {
        return out;
    }
    newlines(&s.raw, &t.raw, &mut out);
    escapes(&s.raw, &t.raw, &mut out);
    numbers(&s.masked, &t.masked, lang, &mut out);
    found_all(&s.masked, &t.masked, &URL, &URLS, "URL", &mut out);
    found_all(
        &s.masked,
        &t.masked,
        &EMAIL,
        &EMAILS,
        "email address",
        &mut out,
    );
    if !lang.ignores_accelerators {
        for &marker in markers {
            accelerators(&s.masked, &t.masked, marker, lang, &mut out);
        }
    }
    brackets(&s.masked, &t.masked, &mut out);
    // A line break one end lacks is `newlines`'s alone, not white space at that end too.
    let start_break = s.raw.starts_with('\n') != t.raw.starts_with('\n');
    let end_break = s.raw.ends_with('\n') != t.raw.ends_with('\n');
    let start_ok = whitespace_start(&s.masked) == whitespace_start(&t.masked);
    if !start_ok && !start_break {
        out.push(mismatch(
            &START_WHITESPACE,
            show_space(whitespace_start(&t.masked)),
            format!(
                "the translation starts with {}, the source with {}",
                describe_space(whitespace_start(&t.masked)),
                describe_space(whitespace_start(&s.masked))
            ),
        ));
    }
    let s_end = lang.punctranslate(&s.masked);
    let end_ok = whitespace_end(&s_end) == whitespace_end(&t.masked);
    if !end_ok && !end_break {
        out.push(mismatch(
            &END_WHITESPACE,
            show_space(whitespace_end(&t.masked)),
            format!(
                "the translation ends with {}, the source with {}",
                describe_space(whitespace_end(&t.masked)),
                describe_space(whitespace_end(&s_end))
            ),
        ));
    }
    if start_ok {
        start_punctuation(s, t, lang, markers, &mut out);
    }
    if end_ok {
        end_punctuation(&s.masked, &t.masked, lang, &mut out);
    }
    double_space(s, t, markers, &mut out);
    length(&s.raw, &t.raw, &mut out);
    out
}

fn newlines(s: &str, t: &str, out: &mut Vec<Mismatch>) {
    let counts = |x: &str| (x.matches('\n').count(), x.matches('\r').count());
    // What `msgfmt -c` refuses: a line break at one end that the other text lacks. `data`
    // is empty for a count that differs only inside the text (reported as minor).
    let ends = |x: &str| (x.starts_with('\n'), x.ends_with('\n'));
    let message = if s.ends_with('\n') != t.ends_with('\n') {
        Some((
            "\\n",
            if s.ends_with('\n') {
                "the source ends with a line break, the translation does not"
            } else {
                "the translation ends with a line break, the source does not"
            }
            .to_owned(),
        ))
    } else if s.starts_with('\n') != t.starts_with('\n') {
        Some((
            "\\n",
            if s.starts_with('\n') {
                "the source starts with a line break, the translation does not"
            } else {
                "the translation starts with a line break, the source does not"
            }
            .to_owned(),
        ))
    } else if counts(s) != counts(t) {
        let data = if ends(s) == ends(t) && counts(s).1 == counts(t).1 {
            ""
        } else {
            "\\n"
        };
        Some((
            data,
            format!(
                "the translation has {} line break(s), the source {}",
                counts(t).0 + counts(t).1,
                counts(s).0 + counts(s).1
            ),
        ))
    } else {
        None
    };
    if let Some((data, message)) = message {
        out.push(mismatch(&NEWLINES, data, message));
    }
}

fn escapes(s: &str, t: &str, out: &mut Vec<Mismatch>) {
    if s.matches('\\').count() != t.matches('\\').count()
        || s.matches("\\\\").count() != t.matches("\\\\").count()
    {
        out.push(mismatch(
            &ESCAPES,
            "\\",
            format!(
                "the translation has {} backslash(es), the source {}",
                t.matches('\\').count(),
                s.matches('\\').count()
            ),
        ));
    }
}

/// translate-toolkit's `getnumbers`: runs of digits, with `.` inside a number and `°`
/// after one kept (`1.5`, `180°`, `12.34.56`).
fn numbers_in(text: &str) -> Vec<String> {
    let mut numbers = Vec::new();
    let mut in_number = false;
    let mut last = String::new();
    let mut carry = String::new();
    for c in text.chars() {
        let digit = is_digit(c);
        if digit {
            in_number = true;
        } else if in_number && c != '.' && c != '°' {
            in_number = false;
            if !last.is_empty() {
                numbers.push(std::mem::take(&mut last));
            }
        }
        if in_number {
            if c == '°' {
                last.push(c);
            } else if c == '.' {
                carry.push(c);
            } else {
                last.push_str(&carry);
                last.push(c);
                carry.clear();
            }
        } else {
            carry.clear();
        }
    }
    if in_number && !last.is_empty() {
        numbers.push(last);
    }
    numbers
}

/// Python's `str.isdigit`, near enough: decimal digits of any script and `¹²³`.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '¹' | '²' | '³') || decimal(c)
}

/// A decimal digit of a script other than ASCII (Arabic-Indic, Devanagari…): the Unicode
/// blocks' digit ranges.
fn decimal(c: char) -> bool {
    const ZEROS: &[u32] = &[
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0xFF10,
    ];
    let n = c as u32;
    ZEROS.iter().any(|&z| (z..z + 10).contains(&n))
}

fn numbers(s: &str, t: &str, lang: &lang::Lang, out: &mut Vec<Mismatch>) {
    let s = lang.ascii_digits(s);
    let t = lang.ascii_digits(t);
    let mut seen = std::collections::HashSet::new();
    // Each distinct number once, and at most 64 of them: a text of a million numbers costs
    // its length, not its length squared.
    for n in numbers_in(&s)
        .into_iter()
        .filter(|n| seen.insert(n.clone()))
        .take(64)
    {
        let (a, b) = (s.matches(n.as_str()).count(), t.matches(n.as_str()).count());
        if a != b {
            out.push(mismatch(
                &NUMBERS,
                n.clone(),
                format!("the source has `{n}` {a} time(s), the translation {b}"),
            ));
            return;
        }
    }
}

/// A URL: ASCII, never ending on the punctuation that closes a sentence (`.`, `,`, `;`,
/// `:`, `?`).
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"https?:[A-Za-z0-9_/\.:;+\-~%#\$?=&,()]*[A-Za-z0-9_/+\-~%#\$=&()]",
        r"|www\.[A-Za-z0-9_/\.:;+\-~%#\$?=&,()]*[A-Za-z0-9_/+\-~%#\$=&()]",
        r"|ftp:[A-Za-z0-9_/\.:;+\-~%#?=&,]*[A-Za-z0-9_/+\-~%#=&]",
    ))
    .unwrap_or_else(|e| unreachable!("url pattern: {e}"))
});

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\w\.\-]+@[\w\.\-]+").unwrap_or_else(|e| unreachable!("email pattern: {e}"))
});

/// What `pattern` finds in each text, compared as multisets.
fn found_all(
    s: &str,
    t: &str,
    pattern: &Regex,
    rule: &'static Rule,
    what: &str,
    out: &mut Vec<Mismatch>,
) {
    fn all<'x>(pattern: &Regex, x: &'x str) -> Vec<&'x str> {
        let mut v: Vec<&str> = pattern.find_iter(x).map(|m| m.as_str()).collect();
        v.sort_unstable();
        v
    }
    let (a, b) = (all(pattern, s), all(pattern, t));
    if a == b {
        return;
    }
    // Both lists are sorted: one merge finds the first the translation lacks, else the first
    // it adds.
    let (mut i, mut j) = (0, 0);
    let (mut missing, mut extra) = (None, None);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                missing = missing.or(Some(*x));
                i += 1;
            }
            (Some(x), None) => {
                missing = missing.or(Some(*x));
                i += 1;
            }
            (_, Some(y)) => {
                extra = extra.or(Some(*y));
                j += 1;
            }
            (None, None) => break,
        }
    }
    let (data, message) = match (missing, extra) {
        (Some(m), _) => (
            m.to_owned(),
            format!("the translation lacks the {what} `{m}`, which the source has"),
        ),
        (None, e) => {
            let e = e.unwrap_or_default();
            (
                e.to_owned(),
                format!("the translation has the {what} `{e}`, which the source does not"),
            )
        }
    };
    out.push(mismatch(rule, data, message));
}

/// translate-toolkit's `isvalidaccelerator`: with no letter list, a letter or digit that
/// carries no diacritic (or `-`, `?`, or `_` itself).
fn valid_accelerator(c: char, letters: Option<&str>) -> bool {
    match letters {
        Some(list) => list.contains(c),
        None => {
            if matches!(c, '_' | '-' | '?') {
                return true;
            }
            if !c.is_alphanumeric() {
                return false;
            }
            // A precomposed letter with a diacritic decomposes into two; one without does
            // not. Latin-1 and Latin Extended letters are the ones that matter here.
            c.is_ascii() || !has_diacritic(c)
        }
    }
}

/// Whether `c` is a Latin, Greek or Cyrillic letter with a diacritic (one that Unicode
/// decomposes): the accented letters of Latin-1 Supplement and Latin Extended-A/B, and the
/// accented Greek and Cyrillic ones.
fn has_diacritic(c: char) -> bool {
    let n = c as u32;
    matches!(n, 0x00C0..=0x00C5 | 0x00C7..=0x00CF | 0x00D1..=0x00D6 | 0x00D9..=0x00DD
        | 0x00E0..=0x00E5 | 0x00E7..=0x00EF | 0x00F1..=0x00F6 | 0x00F9..=0x00FD | 0x00FF)
        || (0x0100..=0x017F).contains(&n)
            && !matches!(
                n,
                0x0110
                    | 0x0111
                    | 0x0126
                    | 0x0127
                    | 0x0131
                    | 0x0138
                    | 0x0141
                    | 0x0142
                    | 0x014A
                    | 0x014B
                    | 0x0152
                    | 0x0153
                    | 0x0166
                    | 0x0167
                    | 0x017F
            )
        || matches!(n, 0x0386 | 0x0388..=0x038A | 0x038C | 0x038E..=0x0390 | 0x03AA..=0x03B0 | 0x03CA..=0x03CE)
        || matches!(n, 0x0400 | 0x0401 | 0x0403 | 0x0407 | 0x040C..=0x040E | 0x0419 | 0x0439 | 0x0450 | 0x0451 | 0x0453 | 0x0457 | 0x045C..=0x045E)
}

/// (valid, invalid) accelerators marked by `marker` in `text`: the character after each
/// marker, the scan going on after it.
fn accelerators_in(text: &str, marker: char, letters: Option<&str>) -> (usize, Vec<char>) {
    let mut valid = 0;
    let mut bad = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != marker {
            continue;
        }
        if marker == '&' && ENTITY.is_match(chars.as_str()) {
            continue;
        }
        let Some(next) = chars.next() else { break };
        if valid_accelerator(next, letters) {
            valid += 1;
        } else {
            bad.push(next);
        }
    }
    (valid, bad)
}

fn accelerators(s: &str, t: &str, marker: char, lang: &lang::Lang, out: &mut Vec<Mismatch>) {
    let (n1, _) = accelerators_in(s, marker, None);
    let (n2, bad2) = accelerators_in(t, marker, lang.accel_letters);
    if n1 == n2 {
        return;
    }
    let message = match (n1, n2) {
        (1, 0) => match bad2.as_slice() {
            [bad] => {
                format!("the accelerator `{marker}` stands before `{bad}`, which cannot be one")
            }
            _ => format!("the translation lacks the source's accelerator `{marker}`"),
        },
        (0, _) => format!("the translation adds an accelerator `{marker}`"),
        (1, _) => format!("the accelerator `{marker}` is repeated in the translation"),
        _ => format!(
            "the accelerator `{marker}` occurs {n1} time(s) in the source and {n2} in the translation"
        ),
    };
    out.push(mismatch(&ACCELERATORS, marker.to_string(), message));
}

fn brackets(s: &str, t: &str, out: &mut Vec<Mismatch>) {
    let mut missing = Vec::new();
    let mut added = Vec::new();
    let mut unbalanced = false;
    // A full-width bracket (Chinese and Japanese `（`) is the bracket it writes.
    for (open, close) in [
        (('(', '（'), (')', '）')),
        (('[', '［'), (']', '］')),
        (('{', '｛'), ('}', '｝')),
    ] {
        let count =
            |x: &str, (b, wide): (char, char)| x.chars().filter(|&c| c == b || c == wide).count();
        let (so, sc) = (count(s, open), count(s, close));
        let (to, tc) = (count(t, open), count(t, close));
        // Brackets the translation adds in pairs (an explanation, `English (US)`) are its
        // own; one it loses, or a pair it leaves open, is a slip.
        unbalanced |= so == sc && to != tc;
        for (b, a, c) in [(open.0, so, to), (close.0, sc, tc)] {
            if c < a {
                missing.push(format!("`{b}`"));
            } else if c > a {
                added.push(format!("`{b}`"));
            }
        }
    }
    if missing.is_empty() && !unbalanced {
        return;
    }
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("lacks {}", missing.join(", ")));
    }
    if !added.is_empty() {
        parts.push(format!("adds {}", added.join(", ")));
    }
    let data = missing
        .first()
        .or(added.first())
        .map(|b| b.trim_matches('`').to_owned())
        .unwrap_or_default();
    out.push(mismatch(
        &BRACKETS,
        data,
        format!("the translation {} (bracket count)", parts.join(" and ")),
    ));
}

fn whitespace_start(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

fn whitespace_end(text: &str) -> &str {
    &text[text.trim_end().len()..]
}

fn show_space(space: &str) -> String {
    space.escape_default().to_string()
}

fn describe_space(space: &str) -> String {
    if space.is_empty() {
        "no white space".to_owned()
    } else {
        format!("`{}`", show_space(space))
    }
}

/// translate-toolkit's `filteraccelerators`: each valid accelerator's marker dropped.
fn drop_accelerators(text: &str, markers: &[char]) -> String {
    let mut out = text.to_owned();
    for &marker in markers {
        if !out.contains(marker) {
            continue;
        }
        let mut next = String::with_capacity(out.len());
        for (i, c) in out.char_indices() {
            let rest = &out[i + c.len_utf8()..];
            if c == marker
                && rest
                    .chars()
                    .next()
                    .is_some_and(|n| valid_accelerator(n, None))
                && !(marker == '&' && ENTITY.is_match(rest))
            {
                continue;
            }
            next.push(c);
        }
        out = next;
    }
    out
}

/// What follows the `&` of a character reference (`&amp;`, `&#8230;`): no accelerator.
static ENTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")
        .unwrap_or_else(|e| unreachable!("entity pattern: {e}"))
});

static WORD_APOSTROPHE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\w+'\w+").unwrap_or_else(|e| unreachable!("apostrophe pattern: {e}"))
});

static TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<[^>]+>").unwrap_or_else(|e| unreachable!("tag pattern: {e}")));

/// translate-toolkit's `filterwordswithpunctuation` (`can't` → `cant`, Afrikaans `'n` →
/// `n`) and `filterxml` (tags dropped), after the accelerators are dropped.
fn plain_for_punctuation(text: &str, markers: &[char]) -> String {
    let text = drop_accelerators(text, markers);
    let text = if text.contains('\'') {
        let words =
            WORD_APOSTROPHE.replace_all(&text, |c: &regex::Captures<'_>| c[0].replace('\'', ""));
        words.replace("'n", "n").replace("'t", "t")
    } else {
        text
    };
    TAG.replace_all(&text, "").into_owned()
}

fn start_punctuation(
    s: &Form,
    t: &Form,
    lang: &lang::Lang,
    markers: &[char],
    out: &mut Vec<Mismatch>,
) {
    let s1 = lang.punctranslate(&plain_for_punctuation(&s.masked, markers));
    let t1 = plain_for_punctuation(&t.masked, markers);
    // Quotation marks are left out: each language quotes its own way (`“x”`, `«x»`, `„x“`)
    // and often elsewhere in the sentence.
    // With them go the spaces (a French `«\u{a0}`): leading white space is
    // `translation.start-whitespace`'s.
    let lead = |x: &str| -> String {
        x.chars()
            .take_while(|&c| lang.is_punctuation(c) || c.is_whitespace())
            .filter(|&c| !lang::is_quote(c) && !c.is_whitespace())
            .collect()
    };
    let (a, b) = (lead(&s1), lead(&t1));
    if a != b {
        out.push(mismatch(
            &START_PUNCTUATION,
            b.clone(),
            format!(
                "the translation starts with {}, the source with {}",
                quote_or_none(&b),
                quote_or_none(&a)
            ),
        ));
    }
}

fn end_punctuation(s: &str, t: &str, lang: &lang::Lang, out: &mut Vec<Mismatch>) {
    let s1 = lang.punctranslate(s);
    let ends = |x: &str| -> String {
        let x = x.trim_end();
        let mut tail: Vec<char> = x
            .chars()
            .rev()
            .take_while(|&c| lang.sentence_end.contains(c) || c == ':' || c.is_whitespace())
            .collect();
        tail.reverse();
        // A full-width mark (`！`, `？`, `：`) is the mark it writes.
        tail.into_iter()
            .map(|c| match c {
                '\u{a0}' => ' ',
                '\u{ff01}'..='\u{ff1f}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
                _ => c,
            })
            .collect()
    };
    // A source that is one abbreviation (`Jan.`, `Sept.`, `p.m.`: one word of at most four
    // letters, or with a `.` inside) need not keep its period.
    let word = s.trim().strip_suffix('.').unwrap_or_default();
    let abbreviation = !word.is_empty()
        && !word.contains(char::is_whitespace)
        && (word.chars().count() <= 4 || word.contains('.'));
    let (a, b) = (ends(&s1), ends(t));
    if abbreviation && a.trim_end_matches('。').trim_end_matches('.').is_empty() && b.is_empty() {
        return;
    }
    if a != b {
        out.push(mismatch(
            &END_PUNCTUATION,
            b.clone(),
            format!(
                "the translation ends with {}, the source with {}",
                quote_or_none(&b),
                quote_or_none(&a)
            ),
        ));
    }
}

fn quote_or_none(x: &str) -> String {
    if x.trim().is_empty() {
        "no punctuation".to_owned()
    } else {
        format!("`{x}`")
    }
}

fn double_space(s: &Form, t: &Form, markers: &[char], out: &mut Vec<Mismatch>) {
    let count = |x: &str| drop_accelerators(x, markers).matches("  ").count();
    let (a, b) = (count(&s.raw), count(&t.raw));
    if a != b {
        out.push(mismatch(
            &DOUBLE_SPACE,
            "  ",
            format!("the translation has {b} double space(s), the source {a}"),
        ));
    }
}

/// A Han ideograph, kana or Hangul syllable: a word on its own.
fn one_char_word(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn length(s: &str, t: &str, out: &mut Vec<Mismatch>) {
    let (a, b) = (s.trim().chars().count(), t.trim().chars().count());
    // The ratios in whole numbers: `b < a * 0.1` is `10 b < a`.
    // One character is a whole word in Chinese, Japanese and Korean (`是` for `Yes`).
    let word = t.trim().chars().next().is_some_and(one_char_word);
    if a > 0 && b > 0 && 10 * b < a || a > 1 && b == 1 && !word {
        out.push(mismatch(
            &TOO_SHORT,
            String::new(),
            format!("the translation has {b} character(s), the source {a}"),
        ));
    }
    if a > 0 && 10 * a < b || a == 1 && b > 1 {
        out.push(mismatch(
            &TOO_LONG,
            String::new(),
            format!("the translation has {b} character(s), the source {a}"),
        ));
    }
}

#[cfg(test)]
mod tests;
