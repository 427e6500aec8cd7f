//! Flutter ARB (`app_en.arb`, `app_fr.arb`): a JSON catalog of ICU messages, read by the JSON
//! scanner and written by the JSON writer, whose `@` members are context, not content.
//!
//! - Each top-level string member is a message: one block keyed by its name, its ICU plurals
//!   and selects (nested too) switches, its `{placeholders}` codes, as in any JSON catalog.
//! - `@name` (an object) is the message's metadata: its `description` and `context`, and each
//!   placeholder's `example` (`{count}: e.g. 3`), are the block's notes for translators, never
//!   checked or translated; its `type`s and formats are left alone. Members under `@name` are
//!   no block.
//! - `@@locale`, `@@last_modified` and every `@@` member are the file's metadata: no block.
//! - i18next's `_one`/`_other` siblings are not grouped: an ARB message holds its plural.
//!
//! A translation pairs with its source by the message's name, as JSON catalogs do; the file
//! naming (`app_{lang}.arb`, with `locales:` for `en_GB`-style codes) is the collection's
//! `target` template.
use std::collections::HashMap;

use super::{Entries, Entry, Scanned, Scanner, build, decode};
use crate::formats::output::Output;
use crate::formats::{Capabilities, Format, FormatInfo, Parsed, ReadError, Skeleton, WriteError};

pub const ARB_INFO: FormatInfo = FormatInfo {
    id: "arb",
    name: "Flutter ARB",
    extensions: &["arb"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

pub struct Arb;

impl Format for Arb {
    fn info(&self) -> &'static FormatInfo {
        &ARB_INFO
    }

    crate::formats::output::text_reads!(decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        super::Json.write(parsed)
    }
}

/// Each message's notes, by its key: its metadata's description, context and examples.
#[derive(Debug, Default)]
pub struct Notes(HashMap<String, Vec<String>>);

impl Notes {
    /// The notes of the message keyed `key`.
    pub fn of(&self, key: &str) -> Vec<String> {
        self.0.get(key).cloned().unwrap_or_default()
    }
}

fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<crate::formats::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let scanned = Scanner::new(text).scan()?;
    let (scanned, notes) = split(text, scanned);
    Ok(build(
        text,
        Output::new(ARB_INFO.id, skeleton, each),
        scanned,
        Some(&notes),
    ))
}

/// The messages of `scanned` (its `@` members left out, nothing grouped), and the notes the
/// `@` members hold for them.
fn split(text: &str, scanned: Scanned) -> (Scanned, Notes) {
    let mut kept = Entries::default();
    let mut notes = Notes::default();
    for mut entry in scanned.entries.into_all() {
        let (top, rest) = top_segment(&entry.key);
        let Some(meta) = top.strip_prefix('@') else {
            entry.group = None;
            entry.sibling = None;
            kept.push(entry);
            continue;
        };
        if meta.starts_with('@') {
            continue;
        }
        let value = value_of(text, &entry);
        if value.trim().is_empty() {
            continue;
        }
        let note = match rest.split('.').collect::<Vec<_>>().as_slice() {
            ["description"] => value,
            ["context"] => format!("context: {value}"),
            ["placeholders", name, "example"] => format!("{{{name}}}: e.g. {value}"),
            _ => continue,
        };
        notes.0.entry(meta.to_owned()).or_default().push(note);
    }
    (
        Scanned {
            entries: kept,
            groups: Vec::new(),
        },
        notes,
    )
}

/// A key's first segment and the rest after its `.` (a quoted segment kept quoted).
fn top_segment(key: &str) -> (&str, &str) {
    if key.starts_with('\'') {
        // A quoted segment ends at a `'` not doubled.
        let bytes = key.as_bytes();
        let mut at = 1;
        while at < bytes.len() {
            if bytes[at] == b'\'' {
                if bytes.get(at + 1) == Some(&b'\'') {
                    at += 2;
                    continue;
                }
                let end = at + 1;
                let rest = key.get(end..).unwrap_or_default();
                return (&key[..end], rest.strip_prefix('.').unwrap_or(rest));
            }
            at += 1;
        }
        return (key, "");
    }
    match key.split_once('.') {
        Some((top, rest)) => (top, rest),
        None => (key, ""),
    }
}

/// A string entry's value as it reads (escapes undone).
fn value_of(text: &str, entry: &Entry) -> String {
    match &entry.decoded {
        Some(decoded) => decoded.text.clone(),
        None => text.get(entry.content()).unwrap_or_default().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::conformance;
    use crate::model::Run;

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&Arb, "arb") > 10);
    }

    #[test]
    fn metadata_is_notes_and_messages_are_blocks() {
        let text = r#"{
  "@@locale": "en",
  "itemCount": "{count, plural, =0{No items} one{One item} other{{count} items}}",
  "@itemCount": {
    "description": "How many items the cart holds.",
    "placeholders": {"count": {"type": "int", "example": "3"}}
  },
  "hello": "Hello {name}",
  "@hello": {"description": "A greeting.", "context": "home"}
}"#;
        let parsed = Arb.read(text.as_bytes()).unwrap();
        let keys: Vec<&str> = parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(keys, ["itemCount", "hello"]);
        let count = &parsed.document.blocks[0];
        assert_eq!(
            count.notes,
            ["How many items the cart holds.", "{count}: e.g. 3"]
        );
        assert!(matches!(count.source.runs.first(), Some(Run::Switch(_))));
        let hello = &parsed.document.blocks[1];
        assert_eq!(hello.notes, ["A greeting.", "context: home"]);
        assert_eq!(Arb.write(&parsed).unwrap(), text.as_bytes());
        assert_eq!(top_segment("'a.b'.c"), ("'a.b'", "c"));
        assert_eq!(top_segment("@x.description"), ("@x", "description"));
    }

    #[test]
    fn i18next_suffixes_are_not_grouped() {
        let text = r#"{"items_one": "One", "items_other": "Many"}"#;
        let parsed = Arb.read(text.as_bytes()).unwrap();
        assert_eq!(parsed.document.blocks.len(), 2);
    }
}
