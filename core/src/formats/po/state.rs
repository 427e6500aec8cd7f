//! Writing what a message's target is beside its text: the `fuzzy` flag its state gives,
//! and the check that a plural target holds the forms the header's `Plural-Forms` asks for.

use std::collections::HashMap;
use std::ops::Range;

use super::blocks::{Header, header};
use crate::formats::{Hole, HoleKind, WriteError};
use crate::model::{Document, Edition, Run, SwitchKind};

/// What the writer checks an edited target against: the header, and how many `msgstr[i]`
/// forms each plural message holds (its target's branch holes).
pub(super) struct Plurals {
    header: Header,
    forms: HashMap<usize, usize>,
}

impl Plurals {
    /// Read once, the first time a target is edited.
    pub(super) fn new(original: &str, holes: &[Hole]) -> Self {
        let mut forms: HashMap<usize, usize> = HashMap::new();
        for hole in holes {
            if hole.kind() == HoleKind::Runs && hole.edition().is_some() && hole.branch().is_some()
            {
                *forms.entry(hole.block).or_default() += 1;
            }
        }
        Plurals {
            header: header(original).unwrap_or_default(),
            forms,
        }
    }

    /// Refuses an edited target the message cannot hold: a plural message takes one branch
    /// per form, named in `msgstr[i]` order as the reader names them for the header's
    /// `nplurals` (which must be how many forms the message holds); a singular one takes
    /// no switch.
    pub(super) fn check(
        &self,
        document: &Document,
        hole: &Hole,
        edition: &Edition,
    ) -> Result<(), WriteError> {
        let key = || {
            document
                .blocks
                .get(hole.block)
                .map_or_else(String::new, |b| b.key.clone())
        };
        let in_file = self.forms.get(&hole.block).copied().unwrap_or(0);
        if in_file == 0 {
            if edition.runs.iter().any(|r| matches!(r, Run::Switch(_))) {
                return Err(WriteError::Block {
                    key: key(),
                    message: "the target holds a switch, but the message has no \
                              `msgid_plural`: a singular message takes one `msgstr`"
                        .into(),
                });
            }
            return Ok(());
        }
        let n = self.header.nplurals.unwrap_or(in_file);
        let found: Vec<String> = match edition.runs.as_slice() {
            [Run::Switch(s)] if s.kind == SwitchKind::Plural => s
                .branches
                .iter()
                .map(|b| {
                    if s.pivot == "n" {
                        b.case.clone()
                    } else {
                        format!("{}:{}", s.pivot, b.case)
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        // Both bounded by the file: `n` has at most three digits, `found` was built by the
        // caller.
        let expected = self.header.form_names(n);
        let mut have: Vec<&str> = found.iter().map(String::as_str).collect();
        let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
        have.sort_unstable();
        want.sort_unstable();
        if in_file == n && have == want {
            return Ok(());
        }
        Err(WriteError::PluralForms {
            key: key(),
            expected,
            found,
            in_file,
        })
    }
}

/// The `#,` lines in place of `span` (empty where a `#,` line would go) with the `fuzzy`
/// flag present or not: copied when they say so already; else `fuzzy` is added first to
/// the first `#,` line (a `#, fuzzy` line when there is none), or taken from every `#,`
/// line, dropping a line left with no flag.
pub(super) fn render_flags(original: &str, span: Range<usize>, fuzzy: bool) -> String {
    let held = original.get(span.clone()).unwrap_or_default();
    let is_flags = |line: &str| line.starts_with("#,");
    let words = |line: &str| -> Vec<String> {
        line.get(2..)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let has = held
        .split_inclusive('\n')
        .filter(|l| is_flags(l))
        .any(|l| words(l).iter().any(|w| w == "fuzzy"));
    if has == fuzzy {
        return held.to_owned();
    }
    let mut out = String::with_capacity(held.len() + 16);
    if fuzzy {
        let Some(first) = held.split_inclusive('\n').next() else {
            // No `#,` line: one before the keyword, ending as that line does.
            let rest = original.get(span.start..).unwrap_or_default();
            let crlf = rest
                .find('\n')
                .is_some_and(|nl| rest.get(..nl).is_some_and(|l| l.ends_with('\r')));
            return format!("#, fuzzy{}", if crlf { "\r\n" } else { "\n" });
        };
        let body = first.trim_end_matches(['\r', '\n']);
        let eol = &first[body.len()..];
        let flags = body.get(2..).unwrap_or_default();
        if flags.trim().is_empty() {
            out.push_str("#, fuzzy");
        } else {
            out.push_str("#, fuzzy, ");
            out.push_str(flags.trim_start());
        }
        out.push_str(eol);
        out.push_str(held.get(first.len()..).unwrap_or_default());
        return out;
    }
    for line in held.split_inclusive('\n') {
        if !is_flags(line) {
            out.push_str(line);
            continue;
        }
        let body = line.trim_end_matches(['\r', '\n']);
        let kept: Vec<String> = words(body).into_iter().filter(|w| w != "fuzzy").collect();
        if kept.is_empty() {
            continue;
        }
        out.push_str("#, ");
        out.push_str(&kept.join(", "));
        out.push_str(&line[body.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::render_flags;

    fn flags(held: &str, fuzzy: bool) -> String {
        let text = format!("{held}msgid \"a\"\nmsgstr \"b\"\n");
        render_flags(&text, 0..held.len(), fuzzy)
    }

    #[test]
    fn the_fuzzy_flag_is_added_merged_and_removed() {
        let table: &[(&str, bool, &str)] = &[
            ("", true, "#, fuzzy\n"),
            ("", false, ""),
            ("#, c-format\n", true, "#, fuzzy, c-format\n"),
            ("#,c-format\n", true, "#, fuzzy, c-format\n"),
            ("#,\n", true, "#, fuzzy\n"),
            ("#, c-format\n", false, "#, c-format\n"),
            ("#, fuzzy\n", false, ""),
            ("#, fuzzy\n", true, "#, fuzzy\n"),
            ("#,  fuzzy ,c-format\n", true, "#,  fuzzy ,c-format\n"),
            ("#, fuzzy, c-format\n", false, "#, c-format\n"),
            ("#, c-format, fuzzy\r\n", false, "#, c-format\r\n"),
            (
                "#, c-format\n#: a.c:1\n#, fuzzy\n",
                false,
                "#, c-format\n#: a.c:1\n",
            ),
            ("#, fuzzy, fuzzy\n#, fuzzy\n", false, ""),
        ];
        for (held, fuzzy, want) in table {
            assert_eq!(flags(held, *fuzzy), *want, "{held:?} {fuzzy}");
        }
        let crlf = "msgid \"a\"\r\nmsgstr \"b\"\r\n";
        assert_eq!(render_flags(crlf, 0..0, true), "#, fuzzy\r\n");
    }
}
