//! Apple `.stringsdict` (`en.lproj/Localizable.stringsdict`): the plural rules of a
//! `.strings` table, an XML property list read through [`super::xml`] and written back byte
//! for byte.
//!
//! # Blocks and keys
//! The plist's top `<dict>` maps each message key to a `<dict>`:
//! - its `NSStringLocalizedFormatKey` string (`You have %#@files@`) is a block keyed by the
//!   message key, its `%#@files@` variable references codes;
//! - each variable (`files`) whose `NSStringFormatSpecTypeKey` is `NSStringPluralRuleType` is
//!   ONE block keyed `message/variable`, whose edition is a plural [`Switch`] (pivot: the
//!   variable's name) with a branch and a skeleton hole per category string (`zero`, `one`,
//!   `two`, `few`, `many`, `other`) in file order, branch path `files:one`. Its
//!   `NSStringFormatValueTypeKey` and other keys stay in the skeleton.
//!
//! A translation's `.stringsdict` pairs by these keys, and the `plurals` analyzer holds each
//! variable to its language's categories (Russian `one few many other`).
//!
//! # Runs
//! A string's character data with XML references decoded; printf placeholders (`%d`, `%@`,
//! `%1$@`) and variable references (`%#@name@`) are codes a translation keeps.
//!
//! # Writing
//! An edited string is written with `&`, `<` and `>` as references; the rest is copied.
use std::sync::LazyLock;

use regex::Regex;

use super::inline::placeholders::{self, Ids, Syntaxes};
use super::output::Output;
use super::resx::value_pieces;
use super::xml::{self, Tree};
use super::{Capabilities, Format, FormatInfo, Keys, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, Branch, PLURAL_CATEGORIES, Role, Run, Switch, SwitchKind};

pub const INFO: FormatInfo = FormatInfo {
    id: "stringsdict",
    name: "Apple stringsdict",
    extensions: &["stringsdict"],
    capabilities: Capabilities {
        editable: true,
        round_trip: true,
        generative: false,
        bilingual: false,
        comments: false,
    },
};

/// A variable reference in a format key: `%#@name@`.
static VARIABLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"%(?:\d+\$)?#@[^@\s]+@").unwrap_or_else(|_| unreachable!()));

pub struct StringsDict;

impl Format for StringsDict {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(xml::decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        super::resx::write_escaped(parsed)
    }
}

/// The `<key>`/value pairs of a `<dict>` element.
fn pairs(tree: &Tree<'_>, dict: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut key: Option<String> = None;
    for child in tree.children(dict) {
        match (tree.local(child), key.take()) {
            ("key", _) => key = Some(tree.text_content(child)),
            (_, Some(k)) => out.push((k, child)),
            _ => {}
        }
    }
    out
}

fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = Tree::parse(text)?;
    let mut out = Output::new(INFO.id, skeleton, each);
    let mut keys = Keys::new(text.len());
    let Some(top) = tree.children(0).find(|&c| tree.local(c) == "dict") else {
        return Ok(out);
    };
    for (message, entry) in pairs(&tree, top) {
        if out.refused() {
            break;
        }
        if tree.local(entry) != "dict" {
            continue;
        }
        for (name, value) in pairs(&tree, entry) {
            if name == "NSStringLocalizedFormatKey" {
                if tree.local(value) == "string"
                    && let Some((content, runs)) = string_runs(text, &tree, value)?
                {
                    let key = keys.key(&message, text, content.start)?;
                    let mut block = Block::new(key, Role::Key, runs);
                    block.span = content.clone();
                    let index = out.index();
                    out.skeleton.hole(content, index, &block.source);
                    out.push(text, block);
                }
                continue;
            }
            if tree.local(value) != "dict" {
                continue;
            }
            let spec = pairs(&tree, value);
            let plural = spec.iter().any(|(k, v)| {
                k == "NSStringFormatSpecTypeKey"
                    && tree.text_content(*v).trim() == "NSStringPluralRuleType"
            });
            if !plural {
                continue;
            }
            let index = out.index();
            let mut branches: Vec<Branch> = Vec::new();
            for (category, string) in &spec {
                if !PLURAL_CATEGORIES.contains(&category.as_str())
                    || tree.local(*string) != "string"
                    || branches.iter().any(|b| &b.case == category)
                {
                    continue;
                }
                let Some((content, runs)) = string_runs(text, &tree, *string)? else {
                    continue;
                };
                out.skeleton.push(
                    content,
                    index,
                    None,
                    Some(&format!("{name}:{category}")),
                    &runs,
                );
                branches.push(Branch::new(category.clone(), runs));
            }
            if branches.is_empty() {
                continue;
            }
            let at = tree.get(value).map_or(0, |v| v.span().start);
            let switch = Switch {
                id: Ids::default().next(),
                kind: SwitchKind::Plural,
                pivot: name.clone(),
                branches,
                head: String::new(),
                tail: String::new(),
                src: Some(at),
                forms: None,
            };
            let key = keys.key(&format!("{message}/{name}"), text, at)?;
            let mut block = Block::new(key, Role::Key, vec![Run::Switch(Box::new(switch))]);
            block.span = tree.get(value).map_or(0..0, |v| v.span());
            out.push(text, block);
        }
    }
    Ok(out)
}

/// A string's content (by byte range) and its runs.
type Read = (std::ops::Range<usize>, Vec<Run>);

/// A `<string>`'s content and runs; `None` for an empty element or one holding markup.
fn string_runs(text: &str, tree: &Tree<'_>, string: usize) -> Result<Option<Read>, ReadError> {
    let Some(element) = tree.get(string) else {
        return Ok(None);
    };
    let content = element.content();
    if element.empty()
        || text
            .get(content.clone())
            .is_some_and(|raw| raw.contains('<'))
    {
        return Ok(None);
    }
    let mut ids = Ids::default();
    let runs = value_pieces(text, content.clone())?.into_runs(Syntaxes::NONE, &mut ids);
    Ok(Some((content, variables(runs, &mut ids))))
}

/// Runs with each variable reference (`%#@name@`) and printf placeholder a code.
fn variables(runs: Vec<Run>, ids: &mut Ids) -> Vec<Run> {
    placeholders::split_at_matches(
        runs,
        &VARIABLE,
        ids,
        |_| true,
        |text, src, ids| placeholders::split(text, src, Syntaxes::PRINTF, ids),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::conformance;

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&StringsDict, "stringsdict") > 5);
    }

    #[test]
    fn a_format_key_and_a_plural_variable_are_blocks() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>%d files</key>\n\t<dict>\n\t\t<key>NSStringLocalizedFormatKey</key>\n\t\t<string>You have %#@files@</string>\n\t\t<key>files</key>\n\t\t<dict>\n\t\t\t<key>NSStringFormatSpecTypeKey</key>\n\t\t\t<string>NSStringPluralRuleType</string>\n\t\t\t<key>NSStringFormatValueTypeKey</key>\n\t\t\t<string>d</string>\n\t\t\t<key>one</key>\n\t\t\t<string>%d file</string>\n\t\t\t<key>other</key>\n\t\t\t<string>%d files &amp; more</string>\n\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n";
        let parsed = StringsDict.read(text.as_bytes()).unwrap();
        let blocks = &parsed.document.blocks;
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].key, "%d files");
        assert_eq!(blocks[0].source.plain_text(), "You have ");
        assert_eq!(blocks[1].key, "%d files/files");
        let Some(Run::Switch(switch)) = blocks[1].source.runs.first() else {
            panic!("{:?}", blocks[1]);
        };
        let cases: Vec<&str> = switch.branches.iter().map(|b| b.case.as_str()).collect();
        assert_eq!(cases, ["one", "other"]);
        assert_eq!(switch.pivot, "files");
        assert_eq!(StringsDict.write(&parsed).unwrap(), text.as_bytes());
        let mut edited = parsed.clone();
        if let Some(Run::Switch(s)) = edited.document.blocks[1].source.runs.first_mut() {
            s.branches[0].runs = vec![Run::text("one <file>")];
        }
        let out = String::from_utf8(StringsDict.write(&edited).unwrap()).unwrap();
        assert!(out.contains("<string>one &lt;file&gt;</string>"), "{out}");
    }
}
