//! Pseudo-localization: an edition rewritten so that a person sees at a glance which strings
//! went through translation and which are hard-coded, and where a longer language would
//! truncate: ASCII vowels and many consonants swapped for accented Latin-1 letters
//! (`Save` → `Såvé`), the text
//! lengthened by a factor with `~`, and brackets around each string (`[Såvé~~]`).
//!
//! Inline codes (placeholders, markup) and plural or select branches are kept exactly: only
//! text runs change, so the result passes every placeholder guard. The brackets go around the
//! edition's top-level runs; an edition that is nothing but one plural or select (a PO or
//! Android plural, an ICU message of one switch) gets them inside each branch instead, where
//! a format that stores each form apart can write them. Deterministic: the same input gives
//! the same output. A Markdown shortcut reference link (`[text]` with its definition below)
//! is named by its text, so any change of that text, this one or a translation, leaves it
//! plain text on the next read.

use crate::model::{Edition, Run};

/// How pseudo-localization lengthens text: 1.3 adds 30% (at least one `~` for any text).
pub const DEFAULT_EXPANSION: f32 = 1.3;

/// The pseudo-localized form of `edition`; its state is left as it is.
pub fn pseudo(edition: &Edition, expansion: f32) -> Edition {
    let mut out = edition.clone();
    let only_switches =
        !out.runs.is_empty() && out.runs.iter().all(|r| matches!(r, Run::Switch(_)));
    if only_switches {
        for run in &mut out.runs {
            if let Run::Switch(switch) = run {
                for branch in &mut switch.branches {
                    branch.runs = bracketed(&branch.runs, expansion);
                }
            }
        }
    } else {
        out.runs = bracketed(&out.runs, expansion);
    }
    out
}

/// `runs` with their letters accented, padded, and between brackets.
fn bracketed(runs: &[Run], expansion: f32) -> Vec<Run> {
    let mut letters = 0usize;
    let mut body: Vec<Run> = runs.iter().map(|r| accented(r, &mut letters)).collect();
    let pad = if letters == 0 {
        0
    } else {
        let extra = (letters as f32 * (expansion - 1.0).max(0.0)).ceil();
        (extra as usize).max(1)
    };
    body.insert(0, Run::text("["));
    body.push(Run::text(format!("{}]", "~".repeat(pad))));
    merge_text(body)
}

/// One run with its letters accented (a nested switch's branches too: the outer brackets
/// cover them), counting the letters.
fn accented(run: &Run, letters: &mut usize) -> Run {
    match run {
        Run::Text { text, .. } => Run::text(accent_text(text, letters)),
        Run::Code(code) => Run::Code(code.clone()),
        Run::Switch(switch) => {
            let mut switch = switch.clone();
            for branch in &mut switch.branches {
                branch.runs = branch.runs.iter().map(|r| accented(r, letters)).collect();
            }
            Run::Switch(switch)
        }
    }
}

/// `text` with its letters accented, except inside what reads as markup a format left as
/// text (an HTML tag `<a href="…">` in a PO message, an entity `&amp;`): those stay as
/// written, or the translation would break them.
fn accent_text(text: &str, letters: &mut usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let keep = match c {
            '<' => tag_len(rest),
            '&' => entity_len(rest),
            _ => 0,
        };
        if keep > 0 {
            out.push_str(&rest[..keep]);
            rest = &rest[keep..];
            continue;
        }
        if c.is_ascii_alphabetic() {
            *letters += 1;
        }
        out.push(accent(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The length of an HTML tag at the start of `text` (`<a …>`, `</a>`, `<br/>`), else 0.
fn tag_len(text: &str) -> usize {
    let body = &text[1..];
    let starts = body.starts_with('/') || body.starts_with(|c: char| c.is_ascii_alphabetic());
    match (starts, body.find(['>', '<', '\n'])) {
        (true, Some(end)) if body.as_bytes()[end] == b'>' && end <= 2048 => end + 2,
        _ => 0,
    }
}

/// The length of an entity at the start of `text` (`&amp;`, `&#39;`), else 0.
fn entity_len(text: &str) -> usize {
    let body = &text[1..];
    match body.find(';') {
        Some(end)
            if end > 0
                && end <= 10
                && body[..end]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '#') =>
        {
            end + 2
        }
        _ => 0,
    }
}

/// Adjacent text runs joined into one.
fn merge_text(runs: Vec<Run>) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::with_capacity(runs.len());
    for run in runs {
        match (out.last_mut(), run) {
            (Some(Run::Text { text, .. }), Run::Text { text: more, .. }) => text.push_str(&more),
            (_, run) => out.push(run),
        }
    }
    out
}

/// The accented letter that stands for `c`, anything else as it is: only Latin-1
/// letters, so a file in a legacy Western encoding (ISO-8859-1, windows-1252) still writes.
fn accent(c: char) -> char {
    match c {
        'a' => 'å',
        'c' => 'ç',
        'd' => 'ð',
        'e' => 'é',
        'i' => 'î',
        'n' => 'ñ',
        'o' => 'ö',
        'p' => 'þ',
        'u' => 'û',
        'y' => 'ý',
        'A' => 'Å',
        'C' => 'Ç',
        'D' => 'Ð',
        'E' => 'É',
        'I' => 'Î',
        'N' => 'Ñ',
        'O' => 'Ö',
        'P' => 'Þ',
        'U' => 'Û',
        'Y' => 'Ý',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, Code, CodeKind, Switch, SwitchKind};
    use crate::projection;

    #[test]
    fn letters_are_accented_padded_and_bracketed_and_codes_kept() {
        let edition = Edition::new(vec![
            Run::text("Save "),
            Code::new("1", CodeKind::Standalone, "placeholder", "{name}", false).into(),
            Run::text(" now"),
        ]);
        let out = pseudo(&edition, DEFAULT_EXPANSION);
        assert_eq!(
            projection::render(&out.runs).0,
            "[Såvé <x id=\"1/\"/> ñöw~~~]"
        );
        assert_eq!(pseudo(&edition, DEFAULT_EXPANSION), out, "deterministic");
        assert_eq!(
            projection::render(&pseudo(&edition, 2.0).runs).0,
            "[Såvé <x id=\"1/\"/> ñöw~~~~~~~]"
        );
    }

    #[test]
    fn an_edition_of_one_switch_is_bracketed_in_each_branch() {
        let switch = Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "n".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("file")]),
                Branch::new("other", vec![Run::text("files")]),
            ],
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        };
        let out = pseudo(&Edition::new(vec![switch.into()]), DEFAULT_EXPANSION);
        let leaves: Vec<String> = out
            .leaves()
            .iter()
            .map(|(_, r)| projection::render(r).0)
            .collect();
        assert_eq!(leaves, ["[fîlé~~]", "[fîlés~~]"]);
    }

    /// Every fixture of every format kapi writes: each prose block's source pseudo-localized,
    /// the file written, read back: the same keys, and every block's codes as they were.
    #[test]
    fn pseudo_writes_back_in_every_format_with_every_code_kept() {
        use crate::formats::{self, conformance};
        let codes = |e: &Edition| {
            let (_, codes) = projection::render(&e.runs);
            // Kind and class: an HTML tag's data holds attributes read as blocks of their own.
            codes
                .into_iter()
                .map(|c| (c.kind, c.class))
                .collect::<Vec<_>>()
        };
        let mut written = 0;
        for (dir, id) in [
            ("markdown", "markdown"),
            ("html", "html"),
            ("json", "json"),
            ("yaml", "yaml"),
            ("properties", "properties"),
            ("android", "android"),
            ("text", "text"),
            ("docx", "docx"),
        ] {
            let format = formats::by_id(id).unwrap_or_else(|| panic!("{id}"));
            for path in conformance::fixtures(dir) {
                let bytes = std::fs::read(&path).unwrap();
                let Ok(mut parsed) = format.read(&bytes) else {
                    continue;
                };
                for block in parsed
                    .document
                    .blocks
                    .iter_mut()
                    .filter(|b| b.translatable && b.locked.is_none())
                {
                    block.source = pseudo(&block.source, DEFAULT_EXPANSION);
                }
                let name = path.display();
                let out = format
                    .write(&parsed)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let back = format.read(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(
                    conformance::keys(&back),
                    conformance::keys(&parsed),
                    "{name}"
                );
                for (a, b) in back.document.blocks.iter().zip(&parsed.document.blocks) {
                    // A Markdown shortcut reference link (`[text]`, closed by a bare `]`) is
                    // named by its text: changed text no longer names its definition.
                    let shortcut = b
                        .source
                        .runs
                        .iter()
                        .any(|r| matches!(r, Run::Code(c) if c.data == "]"));
                    if !shortcut {
                        assert_eq!(codes(&a.source), codes(&b.source), "{name} {}", a.key);
                    }
                }
                written += 1;
            }
        }
        assert!(written > 50, "{written} files");
    }

    #[test]
    fn markup_left_as_text_stays_as_written() {
        let out = pseudo(
            &Edition::new(vec![Run::text("See <a href=\"x\">docs</a> &amp; more < 3")]),
            1.0,
        );
        assert_eq!(
            projection::render(&out.runs).0,
            "[Séé <a href=\"x\">ðöçs</a> &amp;amp; möré < 3~]"
        );
    }

    #[test]
    fn empty_text_stays_bracketed_without_padding() {
        let out = pseudo(&Edition::new(vec![Run::text("123")]), DEFAULT_EXPANSION);
        assert_eq!(projection::render(&out.runs).0, "[123]");
    }
}
