//! Adding the keys a translation file lacks to it, in place: each missing entry of the source
//! (Android `strings.xml`, JSON, YAML, Java properties, Apple `.strings`, .NET `.resx`, Fluent)
//! is copied into the target at the
//! source's position (after the nearest key before it in the same object that the target
//! holds, or after the sibling object holding it; else before the nearest after it),
//! re-indented to the target's indentation, and every other byte of the target is kept.
//!
//! Choices where the issue is silent: the entry keeps the source's text (the translator's
//! starting point, and what an app shows until it is translated, never an empty string); its
//! own escapes and quoting are the source's, which the same format reads; keys the target holds
//! and the source lacks stay where they are. The result is read back before it is returned: it
//! must parse, hold every block the target held with the same text, and hold each added key,
//! else nothing is written and the error names the keys. A key whose object holds only deeper
//! keys in the target goes before the first of them (JSON, YAML). A key whose parent object (a
//! JSON or YAML mapping, an Android `<string-array>`) the target lacks, or holds nothing kapi
//! reads in, has no place: it is named, and the rest are added. Only UTF-8 files are edited.
//! A Fluent entry keeps its own indentation (an attribute's `.title` line is indented under its
//! message, whatever the anchor's); an entry that shares a line with another (two `.strings`
//! entries on one line) does not read back alone, so nothing is written and the keys are named.

use std::collections::HashMap;

use super::Format;
use crate::model::{Block, Document};

/// What adding the keys did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// The target's new bytes.
    pub bytes: Vec<u8>,
    /// The keys added, in source order.
    pub added: Vec<String>,
    /// The keys that have no place in the target (their parent is missing there).
    pub unplaced: Vec<String>,
}

/// The formats [`add_keys`] edits.
pub fn supported(format_id: &str) -> bool {
    matches!(
        format_id,
        "android" | "json" | "arb" | "yaml" | "properties" | "strings" | "resx" | "fluent"
    )
}

/// Adds the `missing` keys of `source` (whose text is `source_text`) to the target file
/// `target_text` (read as `target`), for a format [`supported`] names.
pub fn add_keys(
    format: &dyn Format,
    source_text: &str,
    source: &Document,
    target_text: &str,
    target: &Document,
    missing: &[&str],
) -> Result<Added, String> {
    let id = format.info().id;
    if !supported(id) {
        return Err(format!("kapi does not add keys to a `{id}` file"));
    }
    // An ARB file is JSON: its messages are top-level members, added as JSON's are.
    let id = if id == "arb" { "json" } else { id };
    let in_target: HashMap<&str, &Block> =
        target.blocks.iter().map(|b| (b.key.as_str(), b)).collect();
    let wanted: std::collections::HashSet<&str> = missing.iter().copied().collect();
    // Each insertion: (offset in the target, text), in source order.
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut out = Added::default();
    let blocks = &source.blocks;
    for (i, block) in blocks.iter().enumerate() {
        if !wanted.contains(block.key.as_str()) {
            continue;
        }
        let parent = parent(id, &block.key);
        let same =
            |b: &&Block| parent_of(id, &b.key) == parent && in_target.contains_key(b.key.as_str());
        let before = blocks[..i]
            .iter()
            .rev()
            .find(same)
            .and_then(|b| in_target.get(b.key.as_str()));
        let after = blocks[i + 1..]
            .iter()
            .find(same)
            .and_then(|b| in_target.get(b.key.as_str()));
        let entry = entry_text(id, source_text, block);
        // The nearest key before it in its object at any depth: when that is a deeper one
        // (in a sibling object), the entry goes after that sibling object, as in the source.
        let under = |k: &str| parent.is_empty() || k.starts_with(&format!("{parent}."));
        let nearer = blocks[..i]
            .iter()
            .rev()
            .find(|b| under(&b.key) && in_target.contains_key(b.key.as_str()))
            .and_then(|b| in_target.get(b.key.as_str()))
            .filter(|b| parent_of(id, &b.key) != parent)
            .and_then(|cousin| after_cousin(id, target_text, cousin, &parent, &entry));
        let place = match (before, after) {
            _ if nearer.is_some() => nearer,
            (Some(anchor), _) => Some(after_anchor(id, target_text, anchor, &entry)),
            (None, Some(anchor)) => Some(before_anchor(id, target_text, anchor, &entry)),
            (None, None) => cousin_before(
                id,
                target_text,
                &blocks[i + 1..],
                &in_target,
                &parent,
                &entry,
            )
            .or_else(|| {
                parent
                    .is_empty()
                    .then(|| top_level_end(id, target_text, target, &entry))
                    .flatten()
            }),
        };
        match place {
            Some(insert) => {
                inserts.push(insert);
                out.added.push(block.key.clone());
            }
            None => out.unplaced.push(block.key.clone()),
        }
    }
    // Applied from the end, so each offset still points where it was computed; two at one
    // offset keep source order.
    let mut text = target_text.to_owned();
    let mut order: Vec<usize> = (0..inserts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((inserts[i].0, i)));
    for i in order {
        let (at, piece) = &inserts[i];
        if !text.is_char_boundary(*at) {
            return Err("an entry falls inside a character of the file".into());
        }
        text.insert_str(*at, piece);
    }
    verify(format, target, &text, &out.added)?;
    out.bytes = text.into_bytes();
    Ok(out)
}

/// Reads `text` back: it parses, every block `before` held keeps its text, and each key of
/// `added` is there.
fn verify(
    format: &dyn Format,
    before: &Document,
    text: &str,
    added: &[String],
) -> Result<(), String> {
    let parsed = format
        .read(text.as_bytes())
        .map_err(|e| format!("the file with the keys added does not read back ({e})"))?;
    let now: HashMap<&str, &Block> = parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.as_str(), b))
        .collect();
    for b in &before.blocks {
        match now.get(b.key.as_str()) {
            Some(n) if n.source.plain_text() == b.source.plain_text() => {}
            _ => {
                return Err(format!(
                    "adding the keys would change `{}`, which the file holds",
                    b.key
                ));
            }
        }
    }
    if parsed.document.blocks.len() != before.blocks.len() + added.len() {
        return Err(format!(
            "the file would hold {} entries, not the {} it held and the {} added",
            parsed.document.blocks.len(),
            before.blocks.len(),
            added.len()
        ));
    }
    if let Some(lost) = added.iter().find(|k| !now.contains_key(k.as_str())) {
        return Err(format!(
            "`{lost}` does not read back from where it would go"
        ));
    }
    Ok(())
}

/// The parent of `key`: its object's path (JSON, YAML), its array's name (Android), or ``.
fn parent(id: &str, key: &str) -> String {
    parent_of(id, key).to_owned()
}

fn parent_of<'k>(id: &str, key: &'k str) -> &'k str {
    // A repeated key's `#2` is no part of its path.
    let key = match key.rsplit_once('#') {
        Some((k, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => k,
        _ => key,
    };
    match id {
        "android" => key
            .strip_suffix(']')
            .and_then(|k| k.rsplit_once('['))
            .map_or("", |(name, _)| name),
        "json" => {
            let (mut quoted, mut cut) = (false, None);
            for (i, c) in key.char_indices() {
                match c {
                    '\'' => quoted = !quoted,
                    '.' if !quoted => cut = Some(i),
                    _ => {}
                }
            }
            cut.map_or("", |i| &key[..i])
        }
        "yaml" => {
            let (mut escaped, mut cut) = (false, None);
            for (i, c) in key.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '.' => cut = Some(i),
                    _ => {}
                }
            }
            cut.map_or("", |i| &key[..i])
        }
        _ => "",
    }
}

/// How deep `key` is: 0 at the top.
fn level(id: &str, key: &str) -> usize {
    let mut n = 0;
    let mut k = key;
    while !parent_of(id, k).is_empty() && n < 1000 {
        k = parent_of(id, k);
        n += 1;
    }
    n
}

/// In a JSON or YAML file whose object `parent` holds no sibling of the entry, only deeper
/// keys (`messages: {nested: {…}}`): the entry goes before the member of `parent` that holds
/// the first of them the target has, found by walking up its lines' indentation.
fn cousin_before(
    id: &str,
    text: &str,
    after: &[Block],
    in_target: &HashMap<&str, &Block>,
    parent: &str,
    entry: &Entry,
) -> Option<(usize, String)> {
    if !matches!(id, "json" | "yaml") {
        return None;
    }
    let under = |k: &str| parent.is_empty() || k.starts_with(&format!("{parent}."));
    let cousin = after
        .iter()
        .filter(|b| under(&b.key))
        .find_map(|b| in_target.get(b.key.as_str()))?;
    let (at, _) = member_line(id, text, cousin, parent)?;
    let pad = indent_of(text.get(at..)?).to_owned();
    if id == "json" {
        return Some((at, format!("{pad}{},\n", entry.body)));
    }
    Some((at, entry.indented(&pad)))
}

/// The line of the member of `parent` that holds `cousin` (a key deeper in it): its start and
/// indentation, found by walking up the lines' indentation.
fn member_line(id: &str, text: &str, cousin: &Block, parent: &str) -> Option<(usize, usize)> {
    let child_level = if parent.is_empty() {
        0
    } else {
        level(id, parent) + 1
    };
    let steps = level(id, &cousin.key).checked_sub(child_level)?;
    if steps == 0 {
        return None;
    }
    let mut at = line_start(text, cousin.span.start);
    let mut indent = indent_of(text.get(at..)?).len();
    for _ in 0..steps {
        let mut found = None;
        let mut end = at;
        while end > 0 {
            let start = line_start(text, end - 1);
            let line = text.get(start..end)?;
            let body = line.trim_start_matches([' ', '\t']);
            let blank = body.trim().is_empty() || body.starts_with('#') || body.starts_with("//");
            let here = line.len() - body.len();
            if !blank && here < indent {
                found = Some((start, here));
                break;
            }
            end = start;
        }
        (at, indent) = found?;
    }
    Some((at, indent))
}

/// In a JSON or YAML file: `entry` right after the member of `parent` holding `cousin` (the
/// first line past it indented no deeper than the member is where that member ends).
fn after_cousin(
    id: &str,
    text: &str,
    cousin: &Block,
    parent: &str,
    entry: &Entry,
) -> Option<(usize, String)> {
    if !matches!(id, "json" | "yaml") {
        return None;
    }
    let (member, indent) = member_line(id, text, cousin, parent)?;
    let pad = indent_of(text.get(member..)?).to_owned();
    // The first line after the cousin's indented no deeper than the member.
    let mut at = line_end(
        text,
        cousin.span.end.saturating_sub(1).max(cousin.span.start),
    );
    let mut last_end = at;
    while at < text.len() {
        let end = line_end(text, at);
        let line = text.get(at..end)?;
        let body = line.trim_start_matches([' ', '\t']);
        let blank = body.trim().is_empty() || body.starts_with('#');
        if !blank && line.len() - body.len() <= indent {
            break;
        }
        if !blank {
            last_end = end;
        }
        at = end;
    }
    if id == "yaml" {
        let lead = if text.get(..last_end).is_some_and(|t| t.ends_with('\n')) {
            ""
        } else {
            "\n"
        };
        return Some((last_end, format!("{lead}{}", entry.indented(&pad))));
    }
    // JSON: the member's own closing line is the one `at` stops at (`}` or `},`).
    let end = line_end(text, at);
    let close = text.get(at..end)?.trim_end();
    if close.trim_start().starts_with('}') && close.ends_with(',') {
        return Some((end, format!("{pad}{},\n", entry.body)));
    }
    if close.trim_start().starts_with('}') {
        return Some((at + close.len(), format!(",\n{pad}{}", entry.body)));
    }
    None
}

/// The start of the line holding byte `at` (a byte search: `at` may fall inside a character).
fn line_start(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    bytes
        .get(..at.min(bytes.len()))
        .and_then(|b| b.iter().rposition(|&c| c == b'\n'))
        .map_or(0, |i| i + 1)
}

/// The end of the line holding byte `at`, past its `\n` (the file's end on its last line).
fn line_end(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    bytes
        .get(at.min(bytes.len())..)
        .and_then(|b| b.iter().position(|&c| c == b'\n'))
        .map_or(text.len(), |i| at + i + 1)
}

fn indent_of(line: &str) -> &str {
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// The source's entry for `block` without its first line's indentation: whole lines for a
/// line-based format; for JSON, from its line's start to the end of its value, with no comma.
/// Later lines keep their indentation relative to the first.
fn entry_text(id: &str, text: &str, block: &Block) -> Entry {
    let start = line_start(text, block.span.start);
    let end = if id == "json" {
        block.span.end.min(text.len())
    } else {
        line_end(text, block.span.end.saturating_sub(1).max(block.span.start))
    };
    let raw = text.get(start..end).unwrap_or_default();
    // Fluent's indentation is syntax (an attribute's, a continuation line's): kept as written.
    let indent = if id == "fluent" {
        String::new()
    } else {
        indent_of(raw).to_owned()
    };
    let mut lines: Vec<String> = Vec::new();
    for line in raw.split_inclusive('\n') {
        lines.push(
            line.strip_prefix(indent.as_str())
                .unwrap_or(line)
                .to_owned(),
        );
    }
    let mut body = lines.concat();
    if !body.ends_with('\n') && id != "json" {
        body.push('\n');
    }
    Entry { body }
}

struct Entry {
    /// Lines without the first line's indentation (a line-based entry ends in `\n`).
    body: String,
}

impl Entry {
    /// The entry with `indent` before each of its lines.
    fn indented(&self, indent: &str) -> String {
        let mut out = String::with_capacity(self.body.len() + indent.len() * 4);
        for line in self.body.split_inclusive('\n') {
            if line.trim().is_empty() {
                out.push_str(line);
            } else {
                out.push_str(indent);
                out.push_str(line);
            }
        }
        out
    }
}

/// The target line `anchor` starts on, and its indentation (none for Fluent, whose entries
/// keep their own).
fn anchor_indent<'t>(id: &str, text: &'t str, anchor: &Block) -> &'t str {
    if id == "fluent" {
        return "";
    }
    let start = line_start(text, anchor.span.start);
    indent_of(text.get(start..).unwrap_or_default())
}

/// Where and what to insert to put `entry` right after the target's `anchor`.
fn after_anchor(id: &str, text: &str, anchor: &Block, entry: &Entry) -> (usize, String) {
    let indent = anchor_indent(id, text, anchor).to_owned();
    if id == "json" {
        let end = anchor.span.end.min(text.len());
        let rest = text.get(end..).unwrap_or_default();
        let gap = rest.len() - rest.trim_start().len();
        if rest.trim_start().starts_with(',') {
            // `"a": "A",` → `"a": "A",\n  "new": "N",`
            return (end + gap + 1, format!("\n{}{},", indent, entry.body));
        }
        return (end, format!(",\n{}{}", indent, entry.body));
    }
    let at = line_end(
        text,
        anchor.span.end.saturating_sub(1).max(anchor.span.start),
    );
    let lead = if text.get(..at).is_some_and(|t| t.ends_with('\n')) || at == 0 {
        ""
    } else {
        "\n"
    };
    (at, format!("{lead}{}", entry.indented(&indent)))
}

/// Where and what to insert to put `entry` right before the target's `anchor`.
fn before_anchor(id: &str, text: &str, anchor: &Block, entry: &Entry) -> (usize, String) {
    let indent = anchor_indent(id, text, anchor).to_owned();
    let at = line_start(text, anchor.span.start);
    if id == "json" {
        return (at, format!("{}{},\n", indent, entry.body));
    }
    (at, entry.indented(&indent))
}

/// Where a top-level entry goes when the target holds no sibling of it: before `</resources>`,
/// before a JSON document's closing `}`, or at the end of a properties or YAML file (indented
/// as the target's top-level entries are).
fn top_level_end(
    id: &str,
    text: &str,
    target: &Document,
    entry: &Entry,
) -> Option<(usize, String)> {
    let top = target
        .blocks
        .iter()
        .find(|b| parent_of(id, &b.key).is_empty())
        .map(|b| anchor_indent(id, text, b).to_owned());
    match id {
        "android" => {
            let close = text.rfind("</resources>")?;
            let at = line_start(text, close);
            let indent = if text.get(at..close).is_some_and(|t| t.trim().is_empty()) {
                "    "
            } else {
                return None;
            };
            Some((at, entry.indented(indent)))
        }
        "resx" => {
            let close = text.rfind("</root>")?;
            let at = line_start(text, close);
            if !text.get(at..close).is_some_and(|t| t.trim().is_empty()) {
                return None;
            }
            Some((at, entry.indented(top.as_deref().unwrap_or("  "))))
        }
        "properties" | "strings" | "fluent" => {
            let lead = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            Some((text.len(), format!("{lead}{}", entry.body)))
        }
        "json" => {
            let indent = top?;
            let close = text.rfind('}')?;
            let body = text.get(..close)?.trim_end();
            let end = body.len();
            if body.ends_with('{') {
                return None;
            }
            Some((end, format!(",\n{indent}{}", entry.body)))
        }
        "yaml" => {
            let indent = top?;
            let lead = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            Some((text.len(), format!("{lead}{}", entry.indented(&indent))))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::by_id;

    fn add(id: &str, source: &str, target: &str) -> Result<Added, String> {
        let format = by_id(id).unwrap();
        let s = format.read(source.as_bytes()).unwrap();
        let t = format.read(target.as_bytes()).unwrap();
        let have: std::collections::HashSet<&str> =
            t.document.blocks.iter().map(|b| b.key.as_str()).collect();
        let missing: Vec<&str> = s
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .filter(|k| !have.contains(k))
            .collect();
        add_keys(format, source, &s.document, target, &t.document, &missing)
    }

    fn text(a: &Added) -> &str {
        std::str::from_utf8(&a.bytes).unwrap()
    }

    #[test]
    fn android_entries_land_at_the_source_position_in_the_target_indentation() {
        let source = "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"b\">B \\'q\\'</string>\n    <plurals name=\"p\">\n        <item quantity=\"one\">x</item>\n        <item quantity=\"other\">xs</item>\n    </plurals>\n    <string name=\"c\">C</string>\n</resources>\n";
        let target = "<resources>\n  <string name=\"orphan\">O</string>\n  <string name=\"a\">Á</string>\n  <string name=\"c\">Ç</string>\n</resources>";
        let out = add("android", source, target).unwrap();
        assert_eq!(out.added, ["b", "p"]);
        assert_eq!(
            text(&out),
            "<resources>\n  <string name=\"orphan\">O</string>\n  <string name=\"a\">Á</string>\n  <string name=\"b\">B \\'q\\'</string>\n  <plurals name=\"p\">\n      <item quantity=\"one\">x</item>\n      <item quantity=\"other\">xs</item>\n  </plurals>\n  <string name=\"c\">Ç</string>\n</resources>"
        );
        // Only before a sibling, and into an empty file.
        let out = add(
            "android",
            source,
            "<resources>\n    <string name=\"c\">Ç</string>\n</resources>\n",
        )
        .unwrap();
        assert!(
            text(&out).starts_with("<resources>\n    <string name=\"a\">A</string>\n"),
            "{}",
            text(&out)
        );
    }

    #[test]
    fn json_commas_are_kept_right_and_nested_keys_go_into_their_object() {
        let source = "{\n  \"a\": \"A\",\n  \"n\": {\n    \"x\": \"X\",\n    \"y\": \"Y\\n\",\n    \"z\": \"Z\"\n  },\n  \"b\": \"B\"\n}\n";
        let target = "{\n    \"a\": \"Á\",\n    \"n\": {\n        \"y\": \"Ý\\n\"\n    },\n    \"old\": \"O\"\n}\n";
        let out = add("json", source, target).unwrap();
        assert_eq!(out.added, ["n.x", "n.z", "b"]);
        assert!(out.unplaced.is_empty());
        // `b` goes after the object `n`, where the source has it.
        assert_eq!(
            text(&out),
            "{\n    \"a\": \"Á\",\n    \"n\": {\n        \"x\": \"X\",\n        \"y\": \"Ý\\n\",\n        \"z\": \"Z\"\n    },\n    \"b\": \"B\",\n    \"old\": \"O\"\n}\n"
        );
    }

    #[test]
    fn a_key_whose_object_the_target_lacks_is_named_and_the_rest_added() {
        let source = "{\n  \"a\": \"A\",\n  \"n\": {\n    \"x\": \"X\"\n  }\n}\n";
        let out = add("json", source, "{\n  \"old\": \"O\"\n}\n").unwrap();
        assert_eq!(out.unplaced, ["n.x"]);
        assert_eq!(out.added, ["a"]);
        assert_eq!(text(&out), "{\n  \"old\": \"O\",\n  \"a\": \"A\"\n}\n");
    }

    #[test]
    fn strings_resx_and_fluent_entries_land_in_the_targets_layout() {
        let source =
            "/* Greeting */\n\"hello\" = \"Hello %@\";\n\"bye\" = \"Bye\";\n\"quit\" = \"Quit\";\n";
        let out = add("strings", source, "\"quit\" = \"Quitter\";\n").unwrap();
        assert_eq!(out.added, ["hello", "bye"]);
        assert_eq!(
            text(&out),
            "\"hello\" = \"Hello %@\";\n\"bye\" = \"Bye\";\n\"quit\" = \"Quitter\";\n"
        );
        let out = add("strings", source, "").unwrap();
        assert_eq!(out.added, ["hello", "bye", "quit"]);
        let source = "<root>\n  <data name=\"a\" xml:space=\"preserve\">\n    <value>A {0}</value>\n    <comment>c</comment>\n  </data>\n  <data name=\"b\"><value>B</value></data>\n</root>";
        let target = "<root>\n    <data name=\"b\"><value>Bé</value></data>\n</root>";
        let out = add("resx", source, target).unwrap();
        assert_eq!(
            text(&out),
            "<root>\n    <data name=\"a\" xml:space=\"preserve\">\n      <value>A {0}</value>\n      <comment>c</comment>\n    </data>\n    <data name=\"b\"><value>Bé</value></data>\n</root>"
        );
        let out = add("resx", source, "<root>\n</root>").unwrap();
        assert_eq!(out.added, ["a", "b"]);
        let source = "# Shown on the title bar\ntitle = Files\n    and more\n    .tooltip = All { $n } files\nquit = Quit\n";
        let target = "title = Fichiers\nquit = Quitter\n";
        let out = add("fluent", source, target).unwrap();
        assert_eq!(out.added, ["title.tooltip"]);
        assert_eq!(
            text(&out),
            "title = Fichiers\n    .tooltip = All { $n } files\nquit = Quitter\n"
        );
        let out = add("fluent", source, "quit = Quitter").unwrap();
        assert_eq!(out.added, ["title", "title.tooltip"]);
        assert_eq!(
            text(&out),
            "title = Files\n    and more\n    .tooltip = All { $n } files\nquit = Quitter"
        );
    }

    #[test]
    fn yaml_and_properties_keep_their_own_layout() {
        let source = "en:\n  a: A\n  n:\n    x: X\n    y: |\n      long\n      text\n  b: \"B\"\n";
        let target = "fr:\n    a: Á\n    n:\n        x: X́\n";
        let out = add("yaml", source, target).unwrap();
        assert_eq!(out.added, ["n.y", "b"]);
        assert_eq!(
            text(&out),
            "fr:\n    a: Á\n    n:\n        x: X́\n        y: |\n          long\n          text\n    b: \"B\"\n"
        );
        let source = "# c\na=A\nlong=one \\\n  two\nb = B\n";
        let out = add("properties", source, "b = Bé\nold=O").unwrap();
        assert_eq!(out.added, ["a", "long"]);
        assert_eq!(text(&out), "a=A\nlong=one \\\n  two\nb = Bé\nold=O");
    }

    #[test]
    fn a_key_whose_object_holds_only_deeper_keys_goes_before_them() {
        let source = "en:\n  errors:\n    messages:\n      invalid: \"is invalid\"\n      restrict:\n        one: \"one %{record}\"\n        many: many\n";
        let target = "fr:\n  errors:\n    messages:\n      restrict:\n        one: \"un %{record}\"\n        many: plusieurs\n";
        let out = add("yaml", source, target).unwrap();
        assert_eq!(out.added, ["errors.messages.invalid"]);
        assert_eq!(
            text(&out),
            "fr:\n  errors:\n    messages:\n      invalid: \"is invalid\"\n      restrict:\n        one: \"un %{record}\"\n        many: plusieurs\n"
        );
        let source = "{\n  \"a\": \"A\",\n  \"n\": {\n    \"x\": \"X\"\n  }\n}\n";
        let out = add("json", source, "{\n  \"n\": {\n    \"x\": \"Ẋ\"\n  }\n}\n").unwrap();
        let after = "{\n  \"n\": {\n    \"x\": \"X\"\n  },\n  \"b\": \"B\"\n}\n";
        let last = add("json", after, "{\n  \"n\": {\n    \"x\": \"Ẋ\"\n  }\n}\n").unwrap();
        assert_eq!(
            text(&last),
            "{\n  \"n\": {\n    \"x\": \"Ẋ\"\n  },\n  \"b\": \"B\"\n}\n"
        );
        assert_eq!(
            text(&out),
            "{\n  \"a\": \"A\",\n  \"n\": {\n    \"x\": \"Ẋ\"\n  }\n}\n"
        );
    }

    #[test]
    fn an_entry_ending_in_a_wide_character_is_copied_alone() {
        let source = "a=Á\nb=Ω\nc=Ç\n";
        let out = add("properties", source, "a=A\nc=C\n").unwrap();
        assert_eq!(text(&out), "a=A\nb=Ω\nc=C\n");
        let source = "<resources>\n    <string name=\"a\">Á</string>\n    <string name=\"b\">日本</string>\n</resources>\n";
        let out = add(
            "android",
            source,
            "<resources>\n    <string name=\"a\">A</string>\n</resources>\n",
        )
        .unwrap();
        assert_eq!(
            text(&out),
            "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"b\">日本</string>\n</resources>\n"
        );
    }

    #[test]
    fn a_result_that_does_not_read_back_is_refused() {
        // A YAML flow mapping cannot take a block entry after its one line.
        let err = add("yaml", "a: A\nb: B\n", "{a: Á}\n").unwrap_err();
        assert!(err.contains("read back"), "{err}");
    }
}
