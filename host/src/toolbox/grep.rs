//! `kapi grep` (`kgrep`): a pattern searched in the readable prose of blocks across formats
//! (`kapi.grep/v1`), each match named by its ref and its line and column in the file.
//!
//! The pattern is a regular expression (Rust `regex` syntax, linear time on any input), or a
//! fixed string with `-F`; `-i` ignores case and `-w` matches whole words only. It runs over
//! each edition's readable prose ([`kapi_core::readable`]): paired markup vanishes, so a
//! phrase with a link in it is found, and a match that would take in a placeholder or other
//! inline code is no match. `^` and `$` anchor to a block's prose, not a line of the file;
//! `\s` crosses a wrapped line. An empty match is not reported. A file that cannot be read is
//! named in `errors` and the search goes on. Every match is counted; the first
//! [`MAX_MATCHES`] are listed, each with its line of prose, cut to 80 bytes or so each side.

use std::ops::Range;
use std::path::PathBuf;

use kapi_core::model::{Ref, SOURCE};
use kapi_core::readable::{Displayed, MARK, Readable};
use kapi_core::text::LineIndex;
use regex::Regex;
use serde::Serialize;

use crate::app::App;
use crate::document::{Editions, Loaded};
use crate::error::HostError;
use crate::services::translation::Unreadable;

/// The most matches an answer lists (all are counted): a pattern that matches every word of
/// a large tree still answers in bounded memory.
pub const MAX_MATCHES: usize = 10_000;

/// How many files are read at once before their matches are merged.
const BATCH: usize = 32;

/// How many characters of a long line an answer shows on each side of a match.
const CONTEXT: usize = 80;

/// How a pattern matches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Matching {
    /// A fixed string, not a regular expression (`-F`).
    pub fixed: bool,
    /// Case-insensitive (`-i`).
    pub ignore_case: bool,
    /// Whole words only (`-w`): no letter, digit or `_` on either side.
    pub word: bool,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Matcher {
    regex: Regex,
    word: bool,
}

impl Matcher {
    /// Compiles `pattern` as `matching` says; a pattern that does not compile is a usage
    /// error naming why.
    pub fn new(pattern: &str, matching: Matching) -> Result<Matcher, HostError> {
        let body = if matching.fixed {
            regex::escape(pattern)
        } else {
            pattern.to_owned()
        };
        let regex = regex::RegexBuilder::new(&body)
            .case_insensitive(matching.ignore_case)
            .size_limit(1 << 24)
            .build()
            .map_err(|e| HostError::Usage {
                message: format!("the pattern `{pattern}` is not a regular expression: {e}"),
                hint: Some(
                    "escape the special characters, or add `-F` to search for it as written".into(),
                ),
            })?;
        Ok(Matcher {
            regex,
            word: matching.word,
        })
    }

    /// The non-empty matches in `text` that hold no mark (and, with `-w`, stand as whole
    /// words), in order.
    pub fn find<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Range<usize>> + 't {
        self.regex.find_iter(text).filter_map(move |m| {
            let whole = !self.word
                || !(text[..m.start()].chars().next_back().is_some_and(word_char)
                    || text[m.end()..].chars().next().is_some_and(word_char));
            (!m.is_empty() && whole && !m.as_str().contains(MARK)).then(|| m.range())
        })
    }
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// What to search.
#[derive(Debug, Clone)]
pub struct GrepRequest {
    pub pattern: String,
    pub matching: Matching,
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub editions: Editions,
}

/// `kapi.grep/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Grep {
    pub schema: &'static str,
    pub pattern: String,
    /// How many files were searched.
    pub searched: usize,
    /// How many matches there are; `matches` holds the first [`MAX_MATCHES`].
    pub count: usize,
    pub matches: Vec<GrepMatch>,
    /// The documents with a match, in order.
    pub files: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Unreadable>,
}

/// One match.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct GrepMatch {
    #[serde(rename = "ref")]
    pub at: Ref,
    /// The file that holds the edition, when it is not `ref.doc` (a catalog's translation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line and column (in characters) of the match in the file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What matched.
    #[serde(rename = "match")]
    pub matched: String,
    /// The line of the block's readable prose that holds the match.
    pub text: String,
    /// Where the match sits in `text`, in bytes.
    #[serde(skip)]
    pub span: Range<usize>,
}

/// Searches each named file.
pub fn grep(app: &App, request: &GrepRequest) -> Result<Grep, HostError> {
    let matcher = Matcher::new(&request.pattern, request.matching)?;
    let project = app.project()?;
    let files = super::files(
        app,
        project.as_ref(),
        &request.paths,
        request.recursive,
        "search",
    )?;
    let mut out = Grep {
        schema: "kapi.grep/v1",
        pattern: request.pattern.clone(),
        searched: files.len(),
        count: 0,
        matches: Vec::new(),
        files: Vec::new(),
        errors: Vec::new(),
    };
    // Files are read a batch at a time, on every core, and merged in order: the answer lists
    // the first matches in file order, and holds at most a batch's worth beyond them.
    for batch in files.chunks(BATCH) {
        let room = MAX_MATCHES.saturating_sub(out.matches.len());
        let parts = super::each_file(batch, |file| {
            let mut part = out.empty();
            match super::load(app, project.as_ref(), file, &request.editions) {
                Ok(loaded) => search(&matcher, &loaded, &request.editions, room, &mut part),
                Err(e) => part.errors.push(Unreadable {
                    doc: file.doc.clone(),
                    error: e.to_string(),
                }),
            }
            part
        });
        for (file, part) in batch.iter().zip(parts) {
            out.count += part.count;
            if part.count > 0 {
                out.files.push(file.doc.clone());
            }
            let room = MAX_MATCHES.saturating_sub(out.matches.len());
            out.matches.extend(part.matches.into_iter().take(room));
            out.errors.extend(part.errors);
        }
    }
    Ok(out)
}

impl Grep {
    /// An answer with nothing found yet, for the same pattern.
    fn empty(&self) -> Grep {
        Grep {
            schema: self.schema,
            pattern: String::new(),
            searched: 0,
            count: 0,
            matches: Vec::new(),
            files: Vec::new(),
            errors: Vec::new(),
        }
    }
}

/// The matches in one loaded document, source first, then each edition asked for.
fn search(matcher: &Matcher, loaded: &Loaded, editions: &Editions, room: usize, out: &mut Grep) {
    let lines = LineIndex::new(&loaded.parsed.skeleton.original);
    let target_lines: Vec<Option<(LineIndex, &str, &str)>> = loaded
        .targets
        .iter()
        .map(|t| {
            t.parsed.as_ref().map(|p| {
                let text = p.skeleton.original.as_str();
                (LineIndex::new(text), text, t.doc.as_str())
            })
        })
        .collect();
    for block in loaded
        .parsed
        .document
        .blocks
        .iter()
        .filter(|b| super::prose(b))
    {
        let mut each = |edition: &str, view: Readable| {
            let at = Ref {
                doc: loaded.doc.clone(),
                block: block.key.clone(),
                edition: edition.to_owned(),
                branch: None,
            };
            let file = loaded.targets.iter().position(|t| t.lang == edition);
            let located = |offset: Option<usize>| match file.and_then(|i| target_lines[i].as_ref())
            {
                Some((lines, text, _)) => offset
                    .filter(|&o| o <= text.len())
                    .map(|o| lines.position(text, o)),
                None => super::position(loaded, &lines, offset),
            };
            let line = match file {
                None => super::block_line(loaded, &lines, block),
                Some(_) => None,
            };
            let place = Place {
                at,
                file: file
                    .and_then(|i| target_lines[i].as_ref())
                    .map(|(_, _, doc)| (*doc).to_owned()),
                located: &located,
                block_line: line,
            };
            matches_in(matcher, &view, &place, room, out);
        };
        each(SOURCE, Readable::of(&block.source));
        if *editions != Editions::Source {
            for (lang, edition) in block.targets.iter() {
                if editions.wants(lang) {
                    each(lang, Readable::of(edition));
                }
            }
        }
    }
}

/// Where an edition's matches are reported: its ref, the file holding it when that is not
/// `ref.doc`, a file offset's line and column, and the block's line for decoded text.
struct Place<'a> {
    at: Ref,
    file: Option<String>,
    located: &'a dyn Fn(Option<usize>) -> Option<(usize, usize)>,
    block_line: Option<usize>,
}

fn matches_in(matcher: &Matcher, view: &Readable, place: &Place<'_>, room: usize, out: &mut Grep) {
    let mut shown: Option<(Displayed, Vec<usize>)> = None;
    for m in matcher.find(&view.text) {
        out.count += 1;
        if out.matches.len() >= room {
            continue;
        }
        let (display, lines) = shown.get_or_insert_with(|| {
            let display = view.displayed();
            let lines = std::iter::once(0)
                .chain(display.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            (display, lines)
        });
        let text = &display.text;
        let start = display.offset(m.start);
        let end = (start + m.len()).min(text.len());
        let line = lines.partition_point(|&l| l <= start).saturating_sub(1);
        let line_start = lines[line];
        let line_end = lines.get(line + 1).map_or(text.len(), |&next| next - 1);
        // A long line is shown around the match, at most CONTEXT characters each side.
        let from = floor(text, start.saturating_sub(CONTEXT).max(line_start));
        let to = ceil(text, (end + CONTEXT).min(line_end.max(end)));
        let position = (place.located)(view.file_offset(m.start));
        out.matches.push(GrepMatch {
            at: place.at.clone(),
            file: place.file.clone(),
            // A match in decoded text (an escape, an entity) has no column: its block's line.
            line: position.map(|(l, _)| l).or(place.block_line),
            column: position.map(|(_, c)| c),
            matched: view.text[m].to_owned(),
            text: text[from..to].to_owned(),
            span: start - from..end - from,
        });
    }
}

/// The char boundary at or before `i`.
fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The char boundary at or after `i`.
fn ceil(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}
