//! Code comments as content: each language's comments, found by its tree-sitter grammar, are
//! blocks of prose a check reads at their real lines, and that the comment write path edits.
//!
//! A block is one comment (line comments on consecutive lines joined, a block comment, a
//! doc comment or a Python docstring), keyed by the declarations around it and the one it
//! documents (`comments.rs`); its prose has the markers, leading `*` and indentation
//! stripped, with inline code, examples and doc tags as codes (`prose.rs`). Commented-out
//! code (the comment's text parses as code in the same grammar, alone or where a statement
//! stands, and holds code punctuation: on every line, where the grammar reads plain words as
//! code, as shell and Ruby do) and tool directives (`eslint-disable`, `noqa`,
//! `go:generate`, …) are blocks with the role `code`, never checked. Doc comments are prose
//! whatever they hold. String literals and code are never read: only comment nodes are.
//!
//! A parse that runs past [`PARSE_STEPS_PER_BYTE`] steps a byte, or past
//! [`PARSE_MICROS_PER_BYTE`] µs a byte and [`PARSE_MICROS_BASE`] (a grammar's error recovery
//! on hostile text can take seconds for a few KB), is stopped and the file refused, so no
//! input costs unbounded time (the time bound depends on the machine: a file refused here
//! would take seconds anywhere); the tree is walked with a cursor, never by
//! recursion. The skeleton's holes are whole comments; an edited one is written again in
//! the comment's own style ([`write`]).

mod comments;
pub mod langs;
mod prose;
mod write;

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser, Tree};

use super::output::Output;
use super::{Each, Format, FormatInfo, Parsed, ReadError, Skeleton, WriteError};
use crate::model::{Block, KeyDeduper, Role};
pub use comments::Shape;
pub use langs::{LANGS, Lang};

/// The parser's steps allowed per byte of input (it reports every 100): real files take far
/// fewer than one; error recovery on hostile text is what this bounds.
pub const PARSE_STEPS_PER_BYTE: usize = 64;

/// The parse time allowed per byte, in microseconds, besides [`PARSE_MICROS_BASE`]: real
/// files parse at 5-30 MB/s (0.03-0.2 µs a byte), so this stops only runaway error recovery.
pub const PARSE_MICROS_PER_BYTE: u64 = 5;

/// The parse time every file is allowed, in microseconds.
pub const PARSE_MICROS_BASE: u64 = 250_000;

/// The longest comment whose text is tried as code (a longer one is prose).
const CODE_TRY_MAX: usize = 4096;

impl Format for Lang {
    fn info(&self) -> &'static FormatInfo {
        // `Lang`s are statics: their infos live as long.
        langs::info_of(self)
    }

    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        let (text, encoding) = super::decode_auto(bytes)?;
        let skeleton = Skeleton::decoded(&text, encoding);
        read_comments(self, &text, skeleton, None).and_then(Output::finish)
    }

    fn read_each(&self, bytes: Vec<u8>, each: Each<'_>) -> Result<Parsed, ReadError> {
        let (text, encoding) = super::decode_auto(&bytes)?;
        let skeleton = Skeleton::decoded(&text, encoding);
        read_comments(self, &text, skeleton, Some(each)).and_then(Output::finish)
    }

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(self, parsed)
    }
}

/// Parses `text` with `lang`'s grammar, stopping past its budget ([`parse_bounded`]).
pub fn parse(lang: &Lang, text: &str) -> Result<Tree, ReadError> {
    let mut parser = Parser::new();
    parser
        .set_language(&lang.language())
        .map_err(|e| ReadError::Syntax {
            line: 1,
            column: 1,
            message: format!("the {} grammar does not load: {e}", lang.info.name),
        })?;
    parse_bounded(&mut parser, text).ok_or_else(|| ReadError::TooLarge {
        at: "1:1".into(),
        message: format!(
            "the {} parser gave up: recovering from the file's syntax errors took more than \
             {PARSE_STEPS_PER_BYTE} steps a byte or {} ms",
            lang.info.name,
            parse_budget(text.len()).as_millis()
        ),
    })
}

/// The time a parse of `len` bytes may take: [`PARSE_MICROS_PER_BYTE`] a byte and
/// [`PARSE_MICROS_BASE`] (a real file parses in well under a tenth of it).
fn parse_budget(len: usize) -> Duration {
    let micros = u64::try_from(len)
        .unwrap_or(u64::MAX)
        .saturating_mul(PARSE_MICROS_PER_BYTE)
        .saturating_add(PARSE_MICROS_BASE);
    Duration::from_micros(micros)
}

/// Parses `text`, or `None` past [`PARSE_STEPS_PER_BYTE`] steps a byte or the time
/// `parse_budget` allows: a grammar's error recovery on hostile text can take seconds for
/// a few KB (a step is not bounded in cost), so both bound it.
pub fn parse_bounded(parser: &mut Parser, text: &str) -> Option<Tree> {
    let bytes = text.as_bytes();
    let budget = bytes.len().saturating_mul(PARSE_STEPS_PER_BYTE) / 100 + 1000;
    let deadline = Instant::now() + parse_budget(bytes.len());
    let mut reports = 0usize;
    let mut progress = |_: &tree_sitter::ParseState| {
        reports += 1;
        if reports > budget || Instant::now() > deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let mut input = |at: usize, _| bytes.get(at..).unwrap_or_default();
    let tree = parser.parse_with_options(&mut input, None, Some(options));
    if tree.is_none() {
        // A stopped parse would resume on the next call otherwise.
        parser.reset();
    }
    tree
}

/// How many syntax errors (error and missing nodes) a tree holds.
pub fn syntax_errors(tree: &Tree) -> usize {
    if !tree.root_node().has_error() {
        return 0;
    }
    let mut cursor = tree.walk();
    let mut count = 0;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() && !node.is_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

fn read_comments<'e>(
    lang: &Lang,
    text: &str,
    skeleton: Skeleton,
    each: Option<Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = parse(lang, text)?;
    let found = comments::find(lang, text, tree.root_node());
    drop(tree);
    let mut out = Output::new(lang.info.id, skeleton, each);
    let mut keys = KeyDeduper::default();
    let mut budget = super::KeyBudget::new(text.len());
    let mut tried = Parser::new();
    let code_parser = tried.set_language(&lang.language()).is_ok();
    for comment in found {
        budget.charge(comment.key.len(), text, comment.span.start)?;
        let lines = write::lines(text, &comment);
        let codes = prose::Codes {
            tags: lang.tags && comment.doc,
            doctest: comment.shape == Shape::Docstring,
        };
        let runs = prose::runs(&lines, codes);
        let prose_text: Vec<&str> = lines.iter().map(|l| l.text).collect();
        let not_prose = directive(&prose_text)
            || (!comment.doc
                && code_parser
                && looks_like_code(lang, &mut tried, &prose_text.join("\n")));
        let role = if not_prose {
            Role::Code
        } else {
            Role::Paragraph
        };
        let mut block = Block::new(keys.key(&comment.key), role, runs);
        block.translatable = !not_prose;
        block.span = comment.span.clone();
        if not_prose {
            block.locked = Some("commented-out code or a tool directive, not prose".into());
        }
        let index = out.index();
        out.skeleton
            .hole(comment.span.clone(), index, &block.source);
        out.push(text, block);
        if out.refused() {
            break;
        }
    }
    Ok(out)
}

/// Whether a comment's text is a tool's directive rather than prose.
fn directive(lines: &[&str]) -> bool {
    const PREFIXES: &[&str] = &[
        "go:",
        "+build",
        "eslint-",
        "eslint ",
        "prettier-ignore",
        "noqa",
        "type:",
        "pylint:",
        "mypy:",
        "pyright:",
        "fmt:",
        "nolint",
        "NOLINT",
        "@ts-",
        "rubocop:",
        "shellcheck ",
        "-*-",
        "clang-format ",
        "istanbul ",
        "c8 ",
        "tslint:",
        "jshint ",
        "global ",
        "#region",
        "#endregion",
        "<editor-fold",
        "</editor-fold>",
        "region ",
        "endregion",
        "SPDX-License-Identifier:",
        "frozen_string_literal:",
        "vim:",
        "swiftlint:",
        "ktlint-",
        "@formatter:",
        "noinspection ",
        "language=",
        "nosec",
        "pragma:",
        "coverage:",
        "biome-ignore",
        "deno-lint-ignore",
        "webpackChunkName",
    ];
    let first = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty());
    first.is_some_and(|line| PREFIXES.iter().any(|p| line.starts_with(p)))
        && lines.iter().filter(|l| !l.trim().is_empty()).count() == 1
}

/// Whether a comment's `text` is commented-out code: it holds code punctuation and the
/// language's parser reads it with no error, alone or where a statement stands.
fn looks_like_code(lang: &Lang, parser: &mut Parser, text: &str) -> bool {
    const PUNCTUATION: [char; 9] = ['(', ')', '=', ';', '{', '}', '[', '$', '|'];
    if text.len() > CODE_TRY_MAX || !text.contains(PUNCTUATION) {
        return false;
    }
    if lang.words_parse
        && text
            .lines()
            .any(|l| !l.trim().is_empty() && !l.contains(PUNCTUATION))
    {
        return false;
    }
    // Prose ends its sentences; code rarely ends a comment with a full stop.
    if text.trim_end().ends_with(['.', '?', '!']) && !text.trim_end().ends_with("...") {
        return false;
    }
    let attempts = std::iter::once(("", "")).chain(lang.code_in.iter().copied());
    for (before, after) in attempts {
        let wrapped = format!("{before}{text}{after}");
        parser.reset();
        if let Some(tree) = parse_bounded(parser, &wrapped) {
            let root = tree.root_node();
            if !root.has_error() && root.named_child_count() > 0 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod tests;
