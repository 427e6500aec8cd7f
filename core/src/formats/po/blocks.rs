//! The blocks of a catalog: the header's language, each message's key, source and target
//! editions (plural switches included), state and notes.

use super::INFO;
use super::codes::runs_of;
use super::parser::{Comments, Flow, parse};
use super::writer::push_escaped;
use crate::formats::inline::placeholders::{Ids, Syntaxes};
use crate::formats::output::Output;
use crate::formats::{ReadError, Skeleton};
use std::sync::Arc;

use crate::model::{Block, Branch, Edition, Forms, KeyDeduper, Role, Run, Switch, SwitchKind};
use crate::plurals::PluralForms;

/// What the header says about the file.
#[derive(Debug, Default)]
pub(super) struct Header {
    /// Names already worked out, by form count ([`Header::form_names`] evaluates the
    /// formula over a thousand numbers: once per count, not once per message).
    names: std::cell::RefCell<Vec<(usize, Vec<String>)>>,
    /// `Language:` as written (a gettext locale: `zh_CN`, `sr@latin`).
    pub(super) language: Option<String>,
    /// `Plural-Forms: nplurals=N`, when N is a number (a POT's `INTEGER` is not).
    pub(super) nplurals: Option<usize>,
    /// `Plural-Forms` read ([`PluralForms`]), when the header has one.
    pub(super) plural_forms: Option<PluralForms>,
    /// Where the header message starts in the file.
    pub(super) at: usize,
}

/// The header: the first message with an empty `msgid` and no context (read up to it, so
/// a file with its header first, as gettext writes them, costs one message).
pub(super) fn header(text: &str) -> Result<Header, ReadError> {
    let mut found = None;
    parse(text, &mut |entry| {
        if entry.is_header() {
            let at = entry.start;
            found = entry.strs.into_iter().next().map(|s| (s.text, at));
            return Ok(Flow::Stop);
        }
        Ok(Flow::Go)
    })?;
    let at = found.as_ref().map_or(0, |(_, at)| *at);
    let mut header = header_of(found.as_ref().map(|(t, _)| t.as_str()));
    header.at = at;
    Ok(header)
}

fn header_of(text: Option<&str>) -> Header {
    let mut out = Header::default();
    let Some(text) = text else {
        return out;
    };
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("language") {
            let value = value.trim();
            if !value.is_empty() {
                out.language = Some(value.to_owned());
            }
        } else if name.trim().eq_ignore_ascii_case("plural-forms") {
            let forms = PluralForms::parse(value);
            out.nplurals = forms.nplurals;
            out.plural_forms = Some(forms);
        }
    }
    out
}

impl Header {
    /// The branch names of a plural message's `forms` target forms, `msgstr[0]` first: the
    /// CLDR category each serves by the header's formula ([`PluralForms::names`]).
    pub(super) fn form_names(&self, forms: usize) -> Vec<String> {
        if let Ok(known) = self.names.try_borrow()
            && let Some((_, names)) = known.iter().find(|(n, _)| *n == forms)
        {
            return names.clone();
        }
        let names = match &self.plural_forms {
            Some(pf) => pf.names(self.language.as_deref(), forms),
            None => PluralForms::parse("").names(self.language.as_deref(), forms),
        };
        if let Ok(mut known) = self.names.try_borrow_mut() {
            known.push((forms, names.clone()));
        }
        names
    }

    /// What the file says each plural target holds: `nplurals` forms named as the reader
    /// names them, and the header's fault; `None` without a numeric `nplurals`.
    pub(super) fn forms(&self) -> Option<Arc<Forms>> {
        let n = self.nplurals?;
        let fault = self
            .plural_forms
            .as_ref()
            .and_then(|pf| pf.fault.clone())
            .map(|f| (f, self.at));
        Some(Arc::new(Forms {
            cases: self.form_names(n),
            fault,
            origin: crate::model::FormsOrigin::PluralForms,
        }))
    }
}

/// A gettext locale name as a language tag: `zh_CN` → `zh-CN`, `sr@latin` → `sr-Latn`,
/// `ca@valencia` → `ca-x-valencia` (a modifier too long for a private-use subtag is left off);
/// `None` when it names no language (`persian`, `English`): the file's target edition is then
/// `target`, as a POT's, and [`header_language`] names the value.
pub(super) fn language_tag(locale: &str) -> Option<String> {
    let locale = locale.split_once('.').map_or(locale, |(l, _)| l);
    let (base, modifier) = locale.split_once('@').unwrap_or((locale, ""));
    let base = base.replace('_', "-");
    let mut tag = base.clone();
    match modifier.to_ascii_lowercase().as_str() {
        "" => {}
        "latin" => tag.push_str("-Latn"),
        "cyrillic" => tag.push_str("-Cyrl"),
        other => {
            tag.push_str("-x-");
            tag.push_str(other);
        }
    }
    use crate::project::locales::is_tag;
    if is_tag(&tag) {
        Some(tag)
    } else {
        is_tag(&base).then_some(base)
    }
}

/// A PO header's `Language:` that names no language tag: the value as written and its line
/// (1-based) in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotALanguage {
    pub value: String,
    pub line: usize,
}

/// The header's `Language:` when it is written but is no language tag (`language_tag`):
/// kapi reads the file's translations as edition `target` and a surface names the value.
/// `None` when the header names a language or none, or the file does not parse.
pub fn header_language(text: &str) -> Option<NotALanguage> {
    let value = header(text).ok()?.language?;
    if language_tag(&value).is_some() {
        return None;
    }
    // The line holding `Language:` in the header (the first message gettext writes).
    let line = text
        .lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches(['"', ' ']);
            l.get(..9)
                .is_some_and(|h| h.eq_ignore_ascii_case("language:"))
        })
        .map_or(1, |i| i + 1);
    Some(NotALanguage { value, line })
}

/// The placeholder syntaxes a message's flags call for.
pub(super) fn syntaxes(comments: &Comments) -> Syntaxes {
    const PRINTF_FLAGS: &[&str] = &[
        "c-format",
        "objc-format",
        "python-format",
        "javascript-format",
        "php-format",
        "perl-format",
        "lua-format",
        "gcc-internal-format",
        "gfc-internal-format",
        "awk-format",
        "tcl-format",
        "scheme-format",
        "elisp-format",
        "librep-format",
        "ruby-format",
    ];
    const BRACE_FLAGS: &[&str] = &[
        "python-brace-format",
        "java-format",
        "java-printf-format",
        "csharp-format",
        "perl-brace-format",
        "rust-format",
    ];
    let mut printf = false;
    let mut brace = false;
    let mut any = false;
    for flag in &comments.flags {
        if PRINTF_FLAGS.contains(flag) {
            printf = true;
            any = true;
        } else if BRACE_FLAGS.contains(flag) {
            // `java-printf-format` is printf in Java's syntax.
            if *flag == "java-printf-format" {
                printf = true;
            } else {
                brace = true;
            }
            any = true;
        } else if flag.ends_with("-format") && !flag.starts_with("no-") {
            any = true;
        }
    }
    if !any {
        printf = true;
        brace = true;
    }
    for flag in &comments.flags {
        if let Some(name) = flag.strip_prefix("no-") {
            if PRINTF_FLAGS.contains(&name) {
                printf = false;
            }
            if BRACE_FLAGS.contains(&name) {
                brace = false;
            }
        }
    }
    Syntaxes {
        printf,
        brace,
        ..Syntaxes::NONE
    }
}

/// Appends `s` as a key part: PO escapes, and `|` as `\|`.
fn push_key_part(s: &str, out: &mut String) {
    // Every character that takes an escape is ASCII: copy the runs between them whole.
    let mut chunk = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if b < 0x20 || matches!(b, b'|' | b'"' | b'\\' | 0x7f) {
            out.push_str(s.get(chunk..i).unwrap_or_default());
            if b == b'|' {
                out.push_str("\\|");
            } else {
                push_escaped(char::from(b), out);
            }
            chunk = i + 1;
        }
    }
    out.push_str(s.get(chunk..).unwrap_or_default());
}

/// The document of `text`, its holes in `skeleton` (whose text is `text`, or is given it
/// after).
/// Reads `text` into `skeleton` (whose text is `text`, or is given it after), or hands each
/// block to `each` ([`Format::read_each`]).
pub(super) fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<crate::formats::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let header = header(text)?;
    let lang = header
        .language
        .as_deref()
        .and_then(language_tag)
        .unwrap_or_else(|| "target".to_owned());
    let forms = header.forms();
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = KeyDeduper::default();
    let mut key = String::new();
    parse(text, &mut |mut entry| {
        let entry = &mut entry;
        // Blocks and holes grow with the file read so far, not by doubling.
        out.make_room(2 + entry.strs.len(), entry.end(), text.len());
        let translated = entry.strs.iter().any(|s| !s.text.is_empty());
        let Some(id) = entry.id.as_mut() else {
            return Ok(Flow::Go);
        };
        if entry.ctx.is_none() && id.text.is_empty() {
            // The header.
            return Ok(Flow::Go);
        }
        let index = out.index();
        key.clear();
        if let Some(ctx) = &entry.ctx {
            push_key_part(&ctx.text, &mut key);
            key.push('|');
        }
        push_key_part(&id.text, &mut key);
        let syntaxes = syntaxes(&entry.comments);

        // Source: the msgid, or a switch of msgid and msgid_plural.
        let source = match &mut entry.plural {
            None => {
                let runs = runs_of(id, syntaxes, &mut Ids::default());
                out.skeleton.push(id.span.clone(), index, None, None, &runs);
                runs
            }
            Some(plural) => {
                let one = runs_of(id, syntaxes, &mut Ids::default());
                let other = runs_of(plural, syntaxes, &mut Ids::default());
                out.skeleton
                    .push(id.span.clone(), index, None, Some("n:one"), &one);
                out.skeleton
                    .push(plural.span.clone(), index, None, Some("n:other"), &other);
                vec![switch(
                    vec![Branch::new("one", one), Branch::new("other", other)],
                    None,
                )]
            }
        };

        // Target: the msgstr, or a switch of msgstr[0..N].
        let target = if entry.plural.is_none() {
            let mut runs = Vec::new();
            if let Some(s) = entry.strs.first_mut() {
                runs = runs_of(s, syntaxes, &mut Ids::default());
                out.skeleton
                    .push(s.span.clone(), index, Some(&lang), None, &runs);
            }
            runs
        } else {
            let names = header.form_names(entry.strs.len().max(header.nplurals.unwrap_or(0)));
            let mut branches = Vec::with_capacity(entry.strs.len());
            for (s, case) in entry.strs.iter_mut().zip(names) {
                let runs = runs_of(s, syntaxes, &mut Ids::default());
                let path = format!("n:{case}");
                out.skeleton
                    .push(s.span.clone(), index, Some(&lang), Some(&path), &runs);
                branches.push(Branch::new(case, runs));
            }
            vec![switch(branches, forms.clone())]
        };
        let state = if entry.comments.has_flag("fuzzy") {
            Some("fuzzy".to_owned())
        } else if translated {
            Some("translated".to_owned())
        } else {
            None
        };

        let mut block = Block::new(keys.key(&key), Role::Key, source);
        let target = Edition {
            runs: target,
            state: state.map(String::into_boxed_str),
        };
        out.skeleton
            .push_state(entry.flags_span(), index, &lang, Some(&target));
        block.targets.insert(lang.clone(), target);
        for lines in [&entry.comments.translator, &entry.comments.extracted] {
            if lines.is_empty() {
                continue;
            }
            let note = lines.join("\n");
            let note = note.trim_end();
            if !note.is_empty() {
                block.notes.push(note.to_owned());
            }
        }
        block.span = entry.start..entry.end();
        out.push(text, block);
        Ok(Flow::Go)
    })?;
    Ok(out)
}

fn switch(branches: Vec<Branch>, forms: Option<Arc<Forms>>) -> Run {
    Run::Switch(Box::new(Switch {
        id: "1".into(),
        kind: SwitchKind::Plural,
        pivot: "n".into(),
        branches,
        head: String::new(),
        tail: String::new(),
        src: None,
        forms,
    }))
}
