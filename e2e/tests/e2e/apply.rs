//! The change loop through the built binary (`KAPI_BIN`, default `target/debug/kapi`) on every
//! editable format: `kapi inspect --json` reads a copy of a real fixture, the test edits one
//! block's text and `kapi apply -` writes it (or refuses it, writing nothing). Each sub-case
//! runs in its own temporary folder on a fresh copy, so the fixtures are never touched.
//!
//! Fixtures are chosen by what they hold (the smallest file of the format's folder under
//! `testdata/formats/` with an editable block that has letters and, where the case needs it,
//! an inline code, a plural or a code block), so the suite keeps working as fixtures change.
//! What a format cannot have is declared per format in `SPECS`, with the reason: its module
//! generates no sub-case that needs it (a sub-case run for it fails), and one test holds the
//! declaration to the fixtures (no fixture of the format has it). What a format is declared
//! to have must be found. No sub-case passes by doing nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::common::wire::{Blocks, ChangeResult, EditionView, Record, Ref, array_field, str_field};
use crate::common::{Bind, Out, cli_with, workspace};

// ---------------------------------------------------------------------------------------------
// Running kapi

/// Where and as whom kapi runs.
#[derive(Clone, Copy)]
struct At<'a> {
    dir: &'a Path,
    /// Bind the project in `dir` (otherwise `KAPI_NO_PROJECT=1`).
    project: bool,
    /// `KAPI_ACTOR`; `None` leaves it unset (a person).
    actor: Option<&'a str>,
}

impl<'a> At<'a> {
    fn plain(dir: &'a Path) -> Self {
        At {
            dir,
            project: false,
            actor: None,
        }
    }
    fn project(dir: &'a Path) -> Self {
        At {
            dir,
            project: true,
            actor: None,
        }
    }
    fn agent(self) -> Self {
        At {
            actor: Some("agent:test"),
            ..self
        }
    }
}

/// `kapi ARGS` at `at`, with `stdin` on standard input.
fn kapi(at: At<'_>, args: &[&str], stdin: Option<&str>) -> Out {
    let bind = if at.project {
        Bind::Discover
    } else {
        Bind::Explicit
    };
    let actor: Vec<(&str, &str)> = at.actor.map(|a| ("KAPI_ACTOR", a)).into_iter().collect();
    cli_with(at.dir, bind, &actor, args, stdin)
}

/// `kapi inspect DOC --json` (with `--editions`, when given): the `kapi.blocks/v1` document.
fn read(at: At<'_>, doc: &str, editions: Option<&str>, ctx: &str) -> Blocks {
    let mut args = vec!["inspect", doc, "--json"];
    if let Some(langs) = editions {
        args.extend(["--editions", langs]);
    }
    let out = kapi(at, &args, None);
    assert_eq!(out.code, 0, "{ctx}: inspect {doc}: {}", out.stderr);
    let read = out.answer(ctx).blocks(&format!("{ctx}: inspect {doc}"));
    assert!(read.next.is_none(), "{ctx}: inspect {doc} paged");
    read
}

/// `kapi inspect --verify DOC` exits 0: the file as written reads and writes back identical.
fn verify(at: At<'_>, doc: &str, ctx: &str) {
    let out = kapi(at, &["inspect", "--verify", doc], None);
    assert_eq!(
        out.code, 0,
        "{ctx}: inspect --verify {doc} after the edit\n{}\n{}",
        out.stdout, out.stderr
    );
}

/// `kapi apply - --json` with `set` on standard input: the exit code and the result.
fn apply(at: At<'_>, set: &Value, ctx: &str) -> (i32, ChangeResult) {
    let out = kapi(at, &["apply", "-", "--json"], Some(&set.to_string()));
    let result = out.answer(ctx).change(&format!("{ctx}: {}", out.stderr));
    (out.code, result)
}

fn change_set(operations: Vec<Value>) -> Value {
    json!({"schema": "kapi.change/v1", "operations": operations})
}

fn set_content(at: &Ref, if_match: &str, content: &str) -> Value {
    json!({"op": "set_content", "at": at, "if_match": if_match, "content": content})
}

/// Asserts the set's status, each operation's status and the exit code.
fn expect(code: i32, result: &ChangeResult, set_status: &str, ops: &[&str], exit: i32, ctx: &str) {
    let statuses: Vec<&str> = result
        .operations
        .iter()
        .map(|o| o.status.as_str())
        .collect();
    assert_eq!(statuses, ops, "{ctx}: operation statuses in {result:#?}");
    assert_eq!(
        result.status, set_status,
        "{ctx}: set status in {result:#?}"
    );
    assert_eq!(code, exit, "{ctx}: exit code for {result:#?}");
}

// ---------------------------------------------------------------------------------------------
// Reading blocks

/// Each `<x id="…"/>` tag of a projected text, in order.
fn tags(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<x id=\"") {
        let Some(len) = rest[start..].find("\"/>") else {
            break;
        };
        out.push(&rest[start..start + len + 3]);
        rest = &rest[start + len + 3..];
    }
    out
}

/// The text without its tags.
fn untagged(text: &str) -> String {
    let mut out = text.to_owned();
    for tag in tags(text) {
        out = out.replacen(tag, "", 1);
    }
    out
}

fn has_letters(text: &str) -> bool {
    untagged(text).chars().any(char::is_alphabetic)
}

fn text(block: &Record) -> &str {
    &block.text
}

fn key(block: &Record) -> &str {
    &block.at.block
}

fn accepts(accepts: &[String], op: &str) -> bool {
    accepts.iter().any(|o| o == op)
}

fn blocks(read: &Blocks) -> &[Record] {
    &read.blocks
}

fn block<'a>(read: &'a Blocks, key_: &str, ctx: &str) -> &'a Record {
    blocks(read)
        .iter()
        .find(|b| key(b) == key_)
        .unwrap_or_else(|| panic!("{ctx}: block `{key_}` is gone after the edit"))
}

/// A block's `fr` edition; a block without one fails the test.
fn fr_edition<'a>(block: &'a Record, ctx: &str) -> &'a EditionView {
    block
        .editions
        .get("fr")
        .unwrap_or_else(|| panic!("{ctx}: block {} has no fr edition", key(block)))
}

/// An edition's rev; an edition without one (its target lacks the block) fails the test.
fn rev_of(edition: &EditionView, ctx: &str) -> String {
    edition
        .rev
        .clone()
        .unwrap_or_else(|| panic!("{ctx}: the edition has no rev: {edition:#?}"))
}

/// An edited text: a word appended before any trailing whitespace, every tag kept.
fn revised(text: &str, word: &str) -> String {
    let kept = text.trim_end();
    format!("{kept} {word}{}", &text[kept.len()..])
}

/// The tag whose loss the code guard must refuse, and the code's id: a formatting pair's
/// close tag alone (`pair`), or a placeholder (a standalone code that may not be deleted).
fn droppable(block: &Record, pair: bool) -> Option<(String, String)> {
    block.codes.iter().find_map(|c| {
        let id = &c.id;
        let tag = match (pair, c.kind.as_str()) {
            (true, "open") => format!("<x id=\"/{id}\"/>"),
            (false, "standalone") if !c.deletable => format!("<x id=\"{id}/\"/>"),
            _ => return None,
        };
        text(block).contains(&tag).then(|| (tag, id.to_owned()))
    })
}

/// A block `set_content` may edit as flat text: it accepts the edit, has letters, and no
/// plural or select.
fn editable(block: &Record) -> bool {
    accepts(&block.accepts, "set_content") && has_letters(text(block)) && block.branches.is_empty()
}

/// The block the loop edits: the first editable one with a droppable code when `codes`,
/// else the first editable one.
fn main_block(read: &Blocks, codes: bool) -> Option<&Record> {
    let mut editable = blocks(read).iter().filter(|b| editable(b));
    if codes {
        editable.find(|b| droppable(b, true).is_some() || droppable(b, false).is_some())
    } else {
        editable.next()
    }
}

/// The first block with a plural or select that `set_content` accepts (one whose only code
/// is its switch first).
fn plural_block(read: &Blocks) -> Option<&Record> {
    let plurals = || {
        blocks(read)
            .iter()
            .filter(|b| accepts(&b.accepts, "set_content") && !b.branches.is_empty())
    };
    plurals()
        .find(|b| b.codes.len() == 1)
        .or_else(|| plurals().next())
}

/// The first read-only code block (its `accepts` empty because it is code, not prose).
fn code_block(read: &Blocks) -> Option<&Record> {
    blocks(read)
        .iter()
        .find(|b| b.role == "code" && b.accepts.is_empty())
}

/// The first read-only block that is not code (`accepts` empty).
fn read_only_block(read: &Blocks) -> Option<&Record> {
    blocks(read)
        .iter()
        .find(|b| b.role != "code" && b.accepts.is_empty())
}

/// Every block's rev by key, except `except`'s.
fn revs_except(read: &Blocks, except: &str) -> Vec<(String, String)> {
    blocks(read)
        .iter()
        .filter(|b| key(b) != except)
        .map(|b| (key(b).to_owned(), b.rev.clone()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Formats and fixtures

/// Whether a format's fixtures hold a feature a sub-case needs, or why it cannot.
#[derive(Clone, Copy)]
enum Has {
    Yes,
    /// The format cannot have it, for the reason given: no sub-case needing it is generated
    /// for the format, and no fixture of the format may have it.
    No(&'static str),
}

/// Fails a sub-case run for a format declared without what it needs.
fn needs(has: Has, format: &str, what: &str) {
    if let Has::No(why) = has {
        panic!("{format} is declared without {what} ({why}): its module must not run this case");
    }
}

struct Spec {
    /// The id in `kapi formats`, also the folder under `testdata/formats/`.
    format: &'static str,
    /// Inline codes (formatting pairs or placeholders) the code guard protects.
    codes: Has,
    /// Plurals or selects, edited branch by branch.
    plurals: Has,
    /// Code blocks, which take no edit.
    code_blocks: Has,
}

/// Every editable format (the test checks this against `kapi formats --json`).
const SPECS: &[Spec] = &[
    Spec {
        format: "markdown",
        codes: Has::Yes,
        plurals: Has::No("Markdown has no plural or select syntax"),
        code_blocks: Has::Yes,
    },
    Spec {
        format: "mdx",
        codes: Has::Yes,
        plurals: Has::No("MDX has no plural or select syntax"),
        code_blocks: Has::Yes,
    },
    Spec {
        format: "rst",
        codes: Has::Yes,
        plurals: Has::No("reStructuredText has no plural or select syntax"),
        code_blocks: Has::Yes,
    },
    Spec {
        format: "asciidoc",
        codes: Has::Yes,
        plurals: Has::No("AsciiDoc has no plural or select syntax"),
        code_blocks: Has::Yes,
    },
    Spec {
        format: "text",
        codes: Has::No("plain text has no inline codes"),
        plurals: Has::No("plain text has no plural or select syntax"),
        code_blocks: Has::No("plain text has no code blocks: every paragraph is prose"),
    },
    Spec {
        format: "html",
        codes: Has::Yes,
        plurals: Has::No("HTML has no plural or select syntax"),
        code_blocks: Has::Yes,
    },
    Spec {
        format: "json",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No("a JSON catalog holds strings, never code blocks"),
    },
    Spec {
        format: "arb",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No("an ARB catalog holds messages, never code blocks"),
    },
    Spec {
        format: "resx",
        codes: Has::Yes,
        plurals: Has::No(".NET resources have no plural syntax: a plural is one key per form"),
        code_blocks: Has::No("a .NET resource file holds strings, never code blocks"),
    },
    Spec {
        format: "strings",
        codes: Has::Yes,
        plurals: Has::No("Apple .strings has no plural syntax: plurals live in .stringsdict"),
        code_blocks: Has::No("an Apple .strings file holds strings, never code blocks"),
    },
    Spec {
        format: "stringsdict",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No("a .stringsdict holds plural strings, never code blocks"),
    },
    Spec {
        format: "fluent",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No("a Fluent file holds messages, never code blocks"),
    },
    Spec {
        format: "yaml",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No("a YAML catalog holds strings, never code blocks"),
    },
    Spec {
        format: "properties",
        codes: Has::Yes,
        plurals: Has::No("kapi reads no plural syntax in Java properties"),
        code_blocks: Has::No("a properties file holds strings, never code blocks"),
    },
    Spec {
        format: "android",
        codes: Has::Yes,
        plurals: Has::Yes,
        code_blocks: Has::No(
            "Android resources hold strings, never code blocks (a translatable=\"false\" string is read-only: checked with the code-block case)",
        ),
    },
    Spec {
        format: "docx",
        codes: Has::Yes,
        plurals: Has::No("Word documents have no plural or select syntax"),
        code_blocks: Has::No("kapi reads no code blocks from Word documents"),
    },
];

/// The formats kapi reads but does not edit, with their fixture folders.
const NOT_EDITABLE: &[&str] = &["po", "qt", "xcstrings", "xliff", "xliff2"];

fn spec(format: &str) -> &'static Spec {
    SPECS
        .iter()
        .find(|s| s.format == format)
        .unwrap_or_else(|| panic!("no spec for {format}"))
}

/// The fixtures of a format's folder, smallest first (then by path).
fn fixtures(format: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![workspace().join("testdata/formats").join(format)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SOURCES.md") && format != "markdown" {
                // A folder's provenance, not one of its fixtures.
            } else if path.extension().is_some_and(|e| e == "txt") && format != "text" {
                // reST in `.txt` (Sphinx's test roots) is read as rST only when a recipe item
                // says `format: rst`; `formats.rs` reads the folder `--as rst`.
            } else {
                let size = entry.metadata().map_or(0, |m| m.len());
                files.push((size, path));
            }
        }
    }
    files.sort();
    files.into_iter().map(|(_, p)| p).collect()
}

/// The first `n` fixtures (smallest first) whose read satisfies `pick`, read in place.
fn pick_fixtures(format: &str, n: usize, pick: impl Fn(&Blocks) -> bool) -> Vec<PathBuf> {
    let root = workspace();
    let mut out = Vec::new();
    for path in fixtures(format) {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let read = read(At::plain(&root), &rel, None, &format!("{format} {rel}"));
        assert_eq!(
            read.format, format,
            "{format} {rel}: read as another format"
        );
        if pick(&read) {
            out.push(path);
            if out.len() == n {
                break;
            }
        }
    }
    out
}

/// The fixture the loop edits: the smallest with a main block.
fn main_fixture(spec: &Spec) -> PathBuf {
    let codes = matches!(spec.codes, Has::Yes);
    let found = pick_fixtures(spec.format, 1, |r| main_block(r, codes).is_some());
    found.into_iter().next().unwrap_or_else(|| {
        panic!(
            "{}: no fixture has an editable block with letters{}",
            spec.format,
            if codes { " and a droppable code" } else { "" }
        )
    })
}

/// A temporary folder holding a copy of `fixture`, its mtime set far in the past (so a
/// rewrite shows): the folder, the copy's name (the `doc` refs name) and a context string.
fn copy(fixture: &Path, format: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let name = fixture
        .file_name()
        .and_then(|n| n.to_str())
        .expect("fixture name")
        .to_owned();
    place(fixture, &dir.path().join(&name));
    let ctx = format!("{format} fixture {name}");
    (dir, name, ctx)
}

fn place(fixture: &Path, to: &Path) {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::copy(fixture, to).expect("copy fixture");
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(to)
        .and_then(|f| f.set_modified(old))
        .expect("set mtime");
}

/// A file's bytes and mtime, to show nothing was written.
fn snapshot(path: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(path).expect("read file");
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime");
    (bytes, mtime)
}

fn assert_untouched(path: &Path, before: &(Vec<u8>, SystemTime), ctx: &str) {
    let now = snapshot(path);
    assert!(now.0 == before.0, "{ctx}: the file's bytes changed");
    assert_eq!(now.1, before.1, "{ctx}: the file was rewritten (mtime)");
}

/// Binds a project in `dir`: `kapi.yaml` (source language en, a collection over `*.ext`) and
/// `.kapi/terms.yaml` forbidding `utilize`.
fn bind_project(dir: &Path, ext: &str) {
    std::fs::create_dir_all(dir.join(".kapi")).expect("mkdir .kapi");
    std::fs::write(
        dir.join("kapi.yaml"),
        format!(
            "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"**/*.md\"\n  - path: \"**/*.{ext}\"\n"
        ),
    )
    .expect("kapi.yaml");
    std::fs::write(
        dir.join(".kapi/terms.yaml"),
        "version: v1\nconcepts:\n  - id: use\n    terms:\n      - {text: use, lang: en, status: preferred}\n      - {text: utilize, lang: en, status: forbidden, replacement: use}\n",
    )
    .expect("terms.yaml");
}

// ---------------------------------------------------------------------------------------------
// The sub-cases, each on one format

/// 1. Read, change one block's text (tags kept), apply with its rev: applied, only that block
///    moved, and the file verifies. 2. The same set again: stale, with the new text and rev.
fn edit_then_stale(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let path = dir.path().join(&doc);
    let before = read(at, &doc, None, &ctx);
    let b = main_block(&before, matches!(spec.codes, Has::Yes)).expect("main block");
    let k = key(b).to_owned();
    let ctx = format!("{ctx} block {k}");
    let new = revised(text(b), "Revised");
    let set = change_set(vec![set_content(&b.at, &b.rev, &new)]);

    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "applied", &["applied"], 0, &ctx);
    assert!(result.documents[0].written, "{ctx}: {result:#?}");
    let after = read(at, &doc, None, &ctx);
    let edited = block(&after, &k, &ctx);
    assert_eq!(text(edited), new, "{ctx}: the block's text after the edit");
    assert_ne!(edited.rev, b.rev, "{ctx}: the rev moved");
    assert_eq!(
        revs_except(&after, &k),
        revs_except(&before, &k),
        "{ctx}: another block changed"
    );
    verify(at, &doc, &ctx);

    let written = snapshot(&path);
    let (code, result) = apply(at, &set, &ctx);
    let ctx = format!("{ctx} (the same set again)");
    expect(code, &result, "refused", &["stale"], 3, &ctx);
    let current = result.operations[0]
        .current
        .as_ref()
        .unwrap_or_else(|| panic!("{ctx}: no current in {result:#?}"));
    assert_eq!(current.text, new, "{ctx}: current.text");
    assert_eq!(current.rev, edited.rev, "{ctx}: current.rev");
    assert_untouched(&path, &written, &ctx);
}

/// 1 (continued). The rev an applied result reports is the rev the next read returns, so a
///    second set built on the result (no read between) applies instead of coming back stale.
fn result_rev(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let before = read(at, &doc, None, &ctx);
    let b = main_block(&before, matches!(spec.codes, Has::Yes)).expect("main block");
    let k = key(b).to_owned();
    let ctx = format!("{ctx} block {k}");
    let new = revised(text(b), "Revised");
    let set = change_set(vec![set_content(&b.at, &b.rev, &new)]);
    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "applied", &["applied"], 0, &ctx);
    let rev = result.operations[0]
        .rev
        .clone()
        .unwrap_or_else(|| panic!("{ctx}: no rev in {result:#?}"));
    let after = read(at, &doc, None, &ctx);
    assert_eq!(
        block(&after, &k, &ctx).rev,
        rev,
        "{ctx}: the result's rev is the rev a read returns"
    );
    let ctx = format!("{ctx} (a second set on the result's rev)");
    let set = change_set(vec![set_content(&b.at, &rev, &revised(&new, "Again"))]);
    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "applied", &["applied"], 0, &ctx);
}

/// 3. Dropping a pair's close tag alone, or a placeholder: guard, nothing written.
fn drop_code(spec: &Spec) {
    needs(spec.codes, spec.format, "inline codes");
    let dropping = |b: &Record, pair: bool| editable(b) && droppable(b, pair).is_some();
    let mut tried = 0;
    for (pair, what) in [(true, "a pair's close tag"), (false, "a placeholder")] {
        let found = pick_fixtures(spec.format, 1, |r| {
            blocks(r).iter().any(|b| dropping(b, pair))
        });
        let Some(fixture) = found.into_iter().next() else {
            // No fixture of this format has this kind of code (Java properties have
            // placeholders and no pairs): the other kind is tried, and one must exist.
            continue;
        };
        tried += 1;
        let (dir, doc, ctx) = copy(&fixture, spec.format);
        let at = At::plain(dir.path());
        let path = dir.path().join(&doc);
        let read = read(at, &doc, None, &ctx);
        let b = blocks(&read)
            .iter()
            .find(|b| dropping(b, pair))
            .expect("the block found before");
        let (tag, id) = droppable(b, pair).expect("droppable");
        let ctx = format!("{ctx} block {} dropping {what} {tag}", key(b));
        let content = revised(text(b), "Revised").replacen(&tag, "", 1);
        let before = snapshot(&path);
        let set = change_set(vec![set_content(&b.at, &b.rev, &content)]);
        let (code, result) = apply(at, &set, &ctx);
        expect(code, &result, "refused", &["guard"], 3, &ctx);
        let guard = result.operations[0]
            .guard
            .as_ref()
            .unwrap_or_else(|| panic!("{ctx}: no guard in {result:#?}"));
        assert_eq!(guard.code, id, "{ctx}: guard.code in {guard:?}");
        assert_untouched(&path, &before, &ctx);
    }
    assert!(
        tried > 0,
        "{}: no fixture has a droppable code",
        spec.format
    );
}

/// 4. Flat text over a plural: guard; one branch edited by its path and rev: applied.
fn plural(spec: &Spec) {
    needs(spec.plurals, spec.format, "plurals");
    let found = pick_fixtures(spec.format, 2, |r| plural_block(r).is_some());
    assert!(
        !found.is_empty(),
        "{}: no fixture has a plural",
        spec.format
    );
    for fixture in found {
        let (dir, doc, ctx) = copy(&fixture, spec.format);
        let at = At::plain(dir.path());
        let path = dir.path().join(&doc);
        let before = read(at, &doc, None, &ctx);
        let b = plural_block(&before).expect("plural block");
        let k = key(b).to_owned();
        let ctx = format!("{ctx} block {k}");

        let untouched = snapshot(&path);
        let flat = untagged(&b.branches[0].text);
        let flat = if has_letters(&flat) {
            flat
        } else {
            "Flat text".into()
        };
        let set = change_set(vec![set_content(&b.at, &b.rev, &flat)]);
        let (code, result) = apply(at, &set, &format!("{ctx} flattened"));
        expect(
            code,
            &result,
            "refused",
            &["guard"],
            3,
            &format!("{ctx} flattened to {flat:?}"),
        );
        let codes = &b.codes;
        if codes.len() == 1 {
            let guard = result.operations[0]
                .guard
                .as_ref()
                .unwrap_or_else(|| panic!("{ctx}: no guard in {result:#?}"));
            assert_eq!(guard.code, codes[0].id, "{ctx}: guard.code");
            assert_eq!(
                guard.kind.as_deref(),
                Some(codes[0].kind.as_str()),
                "{ctx}: guard.kind"
            );
        }
        assert_untouched(&path, &untouched, &format!("{ctx} flattened"));

        let branches = &b.branches;
        let branch = branches
            .iter()
            .find(|br| has_letters(&br.text))
            .unwrap_or(&branches[0]);
        let bpath = branch.path.clone();
        let ctx = format!("{ctx} branch {bpath}");
        let new = revised(&branch.text, "Revised");
        let mut at_branch = b.at.clone();
        at_branch.branch = Some(bpath.clone());
        let set = change_set(vec![set_content(&at_branch, &branch.rev, &new)]);
        let (code, result) = apply(at, &set, &ctx);
        expect(code, &result, "applied", &["applied"], 0, &ctx);
        let after = read(at, &doc, None, &ctx);
        let edited = block(&after, &k, &ctx);
        for (old, now) in branches.iter().zip(&edited.branches) {
            assert_eq!(old.path, now.path, "{ctx}: the branches moved");
            if old.path == bpath {
                assert_eq!(now.text, new, "{ctx}: the branch's text");
                assert_eq!(
                    Some(&now.rev),
                    result.operations[0].rev.as_ref(),
                    "{ctx}: the result's rev is the branch's new rev"
                );
            } else {
                assert_eq!(now.rev, old.rev, "{ctx}: another branch changed");
            }
        }
        assert_eq!(
            revs_except(&after, &k),
            revs_except(&before, &k),
            "{ctx}: another block changed"
        );
        verify(at, &doc, &ctx);
    }
}

/// 5. A block key the document does not have: not_found.
fn unknown_block(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let path = dir.path().join(&doc);
    let read = read(at, &doc, None, &ctx);
    let b = main_block(&read, matches!(spec.codes, Has::Yes)).expect("main block");
    let mut missing = b.at.clone();
    missing.block = "kapi-e2e/no-such-block#9".to_owned();
    let before = snapshot(&path);
    let set = change_set(vec![set_content(&missing, &b.rev, "Anything")]);
    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "refused", &["not_found"], 3, &ctx);
    assert_untouched(&path, &before, &ctx);
}

/// 6. A code block takes no edit: unsupported. So does any other read-only block the chosen
///    fixtures hold (an Android string marked translatable="false", an HTML block in Markdown).
fn code_block_unsupported(spec: &Spec) {
    let mut cases: Vec<(PathBuf, &str)> = Vec::new();
    if let Has::Yes = spec.code_blocks {
        let found = pick_fixtures(spec.format, 1, |r| code_block(r).is_some());
        let fixture = found
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{}: no fixture has a code block", spec.format));
        cases.push((fixture, "code block"));
    }
    // Another read-only block (an Android string marked translatable="false"), where a
    // fixture has one.
    let read_only = |r: &Blocks| read_only_block(r).is_some();
    cases.extend(
        pick_fixtures(spec.format, 1, read_only)
            .into_iter()
            .map(|fixture| (fixture, "read-only block")),
    );
    assert!(
        !cases.is_empty(),
        "{}: no fixture has a code block or another read-only block: its module must not run this case",
        spec.format
    );
    for (fixture, what) in cases {
        let (dir, doc, ctx) = copy(&fixture, spec.format);
        let at = At::plain(dir.path());
        let path = dir.path().join(&doc);
        let read = read(at, &doc, None, &ctx);
        let b = if what == "code block" {
            code_block(&read)
        } else {
            read_only_block(&read)
        };
        let b = b.unwrap_or_else(|| panic!("{ctx}: the {what} found before"));
        let ctx = format!("{ctx} {what} {}", key(b));
        assert!(b.why.is_some(), "{ctx}: a read-only block says why: {b:#?}");
        let before = snapshot(&path);
        let set = change_set(vec![set_content(
            &b.at,
            &b.rev,
            &revised(text(b), "Revised"),
        )]);
        let (code, result) = apply(at, &set, &ctx);
        expect(code, &result, "refused", &["unsupported"], 3, &ctx);
        assert_untouched(&path, &before, &ctx);
    }
}

/// 7. An agent's `term` op: not_permitted with what to do instead; the content op beside it:
///    not_applied.
fn agent_term(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let path = dir.path().join(&doc);
    let read = read(at, &doc, None, &ctx);
    let b = main_block(&read, matches!(spec.codes, Has::Yes)).expect("main block");
    let ctx = format!("{ctx} block {} as agent:test", key(b));
    let before = snapshot(&path);
    let set = change_set(vec![
        set_content(&b.at, &b.rev, &revised(text(b), "Revised")),
        json!({"op": "term", "term": {"text": "sign in", "lang": "en", "status": "preferred"}}),
    ]);
    let (code, result) = apply(at.agent(), &set, &ctx);
    expect(
        code,
        &result,
        "refused",
        &["not_applied", "not_permitted"],
        3,
        &ctx,
    );
    assert_eq!(result.actor.kind, "agent", "{ctx}: actor");
    let instead = result.operations[1]
        .instead
        .as_deref()
        .unwrap_or_else(|| panic!("{ctx}: no `instead` in {result:#?}"));
    assert!(!instead.trim().is_empty(), "{ctx}: `instead` is empty");
    assert_untouched(&path, &before, &ctx);
}

/// 8. A forbidden term introduced in a project: gate_failed with the finding; with
///    `"gate": "report"` an agent is not permitted and a person lands it.
fn gate(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let ext = Path::new(&doc)
        .extension()
        .and_then(|e| e.to_str())
        .expect("extension");
    bind_project(dir.path(), ext);
    let at = At::project(dir.path());
    let path = dir.path().join(&doc);
    let before_read = read(at, &doc, None, &ctx);
    let b = main_block(&before_read, matches!(spec.codes, Has::Yes)).expect("main block");
    let k = key(b).to_owned();
    let ctx = format!("{ctx} block {k} in a project forbidding `utilize`");
    let new = revised(text(b), "Please utilize it.");
    let op = set_content(&b.at, &b.rev, &new);
    let before = snapshot(&path);

    let (code, result) = apply(at, &change_set(vec![op.clone()]), &ctx);
    expect(code, &result, "refused", &["gate_failed"], 3, &ctx);
    let findings = &result.operations[0].findings;
    assert!(
        findings.iter().any(|f| f
            .matched
            .as_deref()
            .is_some_and(|m| m.eq_ignore_ascii_case("utilize"))
            && f.introduced),
        "{ctx}: the forbidden term is not among the findings: {result:#?}"
    );
    assert_untouched(&path, &before, &ctx);

    let report = json!({"schema": "kapi.change/v1", "gate": "report", "operations": [op]});
    let actx = format!("{ctx} (report gate, as agent:test)");
    let (code, result) = apply(at.agent(), &report, &actx);
    expect(code, &result, "refused", &["not_permitted"], 3, &actx);
    let instead = result.operations[0]
        .instead
        .as_deref()
        .unwrap_or_else(|| panic!("{actx}: no `instead` in {result:#?}"));
    assert!(!instead.trim().is_empty(), "{actx}: `instead` is empty");
    assert_untouched(&path, &before, &actx);

    let pctx = format!("{ctx} (report gate, as a person)");
    let (code, result) = apply(at, &report, &pctx);
    expect(code, &result, "applied", &["applied"], 0, &pctx);
    assert!(
        result.operations[0].findings.iter().any(|f| f.introduced),
        "{pctx}: the introduced finding is reported: {result:#?}"
    );
    let after = read(at, &doc, None, &pctx);
    assert_eq!(
        text(block(&after, &k, &pctx)),
        new,
        "{pctx}: the text landed"
    );
}

/// 9. The content the edition already holds, with its rev: unchanged, nothing written.
fn unchanged(spec: &Spec) {
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let path = dir.path().join(&doc);
    let read = read(at, &doc, None, &ctx);
    let b = main_block(&read, matches!(spec.codes, Has::Yes)).expect("main block");
    let ctx = format!("{ctx} block {}", key(b));
    let before = snapshot(&path);
    let set = change_set(vec![set_content(&b.at, &b.rev, text(b))]);
    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "unchanged", &["unchanged"], 0, &ctx);
    assert_eq!(
        result.operations[0].rev.as_ref(),
        Some(&b.rev),
        "{ctx}: rev"
    );
    assert_untouched(&path, &before, &ctx);
}

/// One sub-case as a test of the format its module is named after.
macro_rules! case {
    ($(#[$attr:meta])* $name:ident => $run:ident) => {
        #[test]
        $(#[$attr])*
        fn $name() {
            let format = module_path!().rsplit("::").next().expect("a module path");
            super::$run(super::spec(format));
        }
    };
}

mod markdown {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(
        the_result_rev_is_the_rev_a_read_returns => result_rev
    );
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(a_code_block_is_unsupported => code_block_unsupported);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(
        the_same_content_is_unchanged => unchanged
    );
}

mod text {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod html {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(a_code_block_is_unsupported => code_block_unsupported);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod json {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(flattening_a_plural_is_a_guard_and_a_branch_edits => plural);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod yaml {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(flattening_a_plural_is_a_guard_and_a_branch_edits => plural);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod properties {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod android {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(
        the_result_rev_is_the_rev_a_read_returns => result_rev
    );
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(flattening_a_plural_is_a_guard_and_a_branch_edits => plural);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(a_code_block_is_unsupported => code_block_unsupported);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(
        the_same_content_is_unchanged => unchanged
    );
}

mod fluent {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(the_result_rev_is_the_rev_a_read_returns => result_rev);
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(flattening_a_plural_is_a_guard_and_a_branch_edits => plural);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

mod docx {
    case!(edit_applies_then_resend_is_stale => edit_then_stale);
    case!(
        the_result_rev_is_the_rev_a_read_returns => result_rev
    );
    case!(dropping_a_code_is_a_guard => drop_code);
    case!(an_unknown_block_is_not_found => unknown_block);
    case!(an_agents_term_is_not_permitted => agent_term);
    case!(a_forbidden_term_fails_the_gate => gate);
    case!(the_same_content_is_unchanged => unchanged);
}

// ---------------------------------------------------------------------------------------------
// Across formats

#[test]
fn the_specs_cover_every_editable_format() {
    let root = workspace();
    let out = kapi(At::plain(&root), &["formats", "--json"], None);
    assert_eq!(out.code, 0, "kapi formats: {}", out.stderr);
    let formats = out.json("kapi formats --json");
    let mut editable = Vec::new();
    let mut read_only = Vec::new();
    for f in array_field(&formats, "formats") {
        let id = str_field(f, "id").to_owned();
        if f["editable"] == true {
            editable.push(id);
        } else if f["comments"] != true {
            // Source code's comments are edited through the comment write path.
            read_only.push(id);
        }
    }
    let mut specs: Vec<String> = SPECS.iter().map(|s| s.format.to_owned()).collect();
    editable.sort();
    specs.sort();
    assert_eq!(editable, specs, "editable formats vs the specs here");
    read_only.sort();
    assert_eq!(read_only, NOT_EDITABLE, "formats kapi does not edit");
}

/// Whether a block (a `kapi.blocks/v1` record) holds a feature.
type BlockHolds = fn(&Record) -> bool;

/// What a format is declared not to have, no fixture of it has: no block with an inline
/// code, a plural or select, or a code block. (Its module runs no sub-case that needs it.)
#[test]
fn what_a_format_is_declared_without_no_fixture_has() {
    let mut checked = 0;
    for spec in SPECS {
        let features: [(Has, &str, BlockHolds); 3] = [
            (spec.codes, "an inline code", |b| !b.codes.is_empty()),
            (spec.plurals, "a plural or select", |b| {
                !b.branches.is_empty()
            }),
            (spec.code_blocks, "a code block", |b| b.role == "code"),
        ];
        for (has, what, holds) in features {
            if let Has::No(why) = has {
                let found = pick_fixtures(spec.format, 1, |r| blocks(r).iter().any(holds));
                assert!(
                    found.is_empty(),
                    "{}: declared without {what} ({why}), but {} has one",
                    spec.format,
                    found[0].display()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 22, "the declarations checked");
    // The formats whose module runs no read-only case (no code blocks) have no other
    // read-only block in any fixture either.
    for format in [
        "text",
        "json",
        "arb",
        "strings",
        "yaml",
        "properties",
        "docx",
    ] {
        let found = pick_fixtures(format, 1, |r| read_only_block(r).is_some());
        assert!(
            found.is_empty(),
            "{format}: {} has a read-only block: run a_code_block_is_unsupported for it",
            found[0].display()
        );
    }
}

/// Outside a project, the result names each document as the set (and the read) named it.
#[test]
fn the_result_names_the_document_as_the_set_did() {
    let spec = spec("markdown");
    let fixture = main_fixture(spec);
    let (dir, doc, ctx) = copy(&fixture, spec.format);
    let at = At::plain(dir.path());
    let read = read(at, &doc, None, &ctx);
    let b = main_block(&read, true).expect("main block");
    let ctx = format!("{ctx} block {} outside a project", key(b));
    let set = change_set(vec![set_content(
        &b.at,
        &b.rev,
        &revised(text(b), "Revised"),
    )]);
    let (code, result) = apply(at, &set, &ctx);
    expect(code, &result, "applied", &["applied"], 0, &ctx);
    let written = &result.documents[0];
    assert_eq!(written.doc, doc, "{ctx}: documents[0].doc");
    let diff = &written.diff;
    assert!(
        diff.starts_with(&format!("--- a/{doc}\n+++ b/{doc}\n")),
        "{ctx}: the diff's header: {diff}"
    );
}

/// PO and XLIFF are read and checked, not edited: a set_content is unsupported.
#[test]
fn a_format_kapi_does_not_edit_is_unsupported() {
    for format in NOT_EDITABLE {
        let found = pick_fixtures(format, 1, |r| {
            blocks(r).iter().any(|b| has_letters(text(b)))
        });
        let fixture = found
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{format}: no fixture with a block"));
        let (dir, doc, ctx) = copy(&fixture, format);
        let at = At::plain(dir.path());
        let path = dir.path().join(&doc);
        let read = read(at, &doc, None, &ctx);
        let b = blocks(&read)
            .iter()
            .find(|b| has_letters(text(b)))
            .expect("a block");
        let ctx = format!("{ctx} block {}", key(b));
        assert!(
            !accepts(&b.accepts, "set_content"),
            "{ctx}: a non-editable format's block accepts set_content"
        );
        let before = snapshot(&path);
        let set = change_set(vec![set_content(
            &b.at,
            &b.rev,
            &revised(text(b), "Revised"),
        )]);
        let (code, result) = apply(at, &set, &ctx);
        expect(code, &result, "refused", &["unsupported"], 3, &ctx);
        assert_untouched(&path, &before, &ctx);
    }
}

/// A JSON catalog with a translation: the `fr` edition is edited in `locales/fr.json` only,
/// and a placeholder dropped from it is a guard.
#[test]
fn a_catalog_translation_is_edited_in_its_own_file() {
    // Pairs of JSON fixtures: a French file and its source (`-fr` → `-en` or `-base`).
    let all = fixtures("json");
    let mut pairs = Vec::new();
    for fr in &all {
        let name = fr.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.contains("-fr") {
            continue;
        }
        for source in ["-en", "-base"] {
            let en = fr.with_file_name(name.replacen("-fr", source, 1));
            if en.is_file() {
                pairs.push((en, fr.clone()));
            }
        }
    }
    let mut tested = false;
    for (en, fr) in pairs {
        let dir = tempfile::tempdir().expect("temp dir");
        place(&en, &dir.path().join("locales/en.json"));
        place(&fr, &dir.path().join("locales/fr.json"));
        std::fs::create_dir_all(dir.path().join(".kapi")).expect("mkdir .kapi");
        std::fs::write(
            dir.path().join("kapi.yaml"),
            "version: v1\ndefaults: {source_language: en, target_languages: [fr]}\ncollections:\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        target: \"locales/{lang}.json\"\n",
        )
        .expect("kapi.yaml");
        let ctx = format!(
            "json catalog {} + {}",
            en.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            fr.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        let at = At::project(dir.path());
        let doc = "locales/en.json";
        let before = read(at, doc, Some("fr"), &ctx);
        // The first block whose fr edition takes an edit and holds letters and a placeholder.
        // (A block whose fr edition is missing, or has no text, is not one.)
        let Some(b) = blocks(&before).iter().find(|b| {
            b.editions.get("fr").is_some_and(|fr| {
                fr.text.as_deref().is_some_and(|t| {
                    accepts(&fr.accepts, "set_content")
                        && has_letters(t)
                        && tags(t).iter().any(|tag| tag.ends_with("/\"/>"))
                })
            })
        }) else {
            continue;
        };
        tested = true;
        let k = key(b).to_owned();
        let ctx = format!("{ctx} block {k} (fr)");
        let edition = fr_edition(b, &ctx);
        assert_eq!(
            edition.doc, "locales/fr.json",
            "{ctx}: the fr edition's doc"
        );
        let fr_text = edition.text.clone().expect("fr text");
        let new = revised(&fr_text, "Révisé");
        let mut at_fr = b.at.clone();
        at_fr.edition = "fr".to_owned();
        let en_path = dir.path().join("locales/en.json");
        let fr_path = dir.path().join("locales/fr.json");
        let en_before = snapshot(&en_path);
        let fr_before = snapshot(&fr_path);

        let (code, result) = apply(
            at,
            &change_set(vec![set_content(&at_fr, &rev_of(edition, &ctx), &new)]),
            &ctx,
        );
        expect(code, &result, "applied", &["applied"], 0, &ctx);
        let written: Vec<&str> = result
            .documents
            .iter()
            .filter(|d| d.written)
            .map(|d| d.doc.as_str())
            .collect();
        assert_eq!(written, ["locales/fr.json"], "{ctx}: documents written");
        assert_untouched(&en_path, &en_before, &format!("{ctx}: locales/en.json"));
        assert!(
            snapshot(&fr_path).0 != fr_before.0,
            "{ctx}: locales/fr.json did not change"
        );
        let after = read(at, doc, Some("fr"), &ctx);
        let edited = block(&after, &k, &ctx);
        assert_eq!(
            fr_edition(edited, &ctx).text.as_deref(),
            Some(new.as_str()),
            "{ctx}: fr text"
        );
        assert_eq!(edited.rev, b.rev, "{ctx}: the source edition moved");
        assert_eq!(
            revs_except(&after, &k),
            revs_except(&before, &k),
            "{ctx}: a source block changed"
        );
        let fr_revs = |read: &Blocks| -> Vec<(String, Option<Option<String>>)> {
            blocks(read)
                .iter()
                .filter(|b| key(b) != k)
                .map(|b| {
                    let rev = b.editions.get("fr").map(|fr| fr.rev.clone());
                    (key(b).to_owned(), rev)
                })
                .collect()
        };
        assert_eq!(
            fr_revs(&after),
            fr_revs(&before),
            "{ctx}: another fr edition changed"
        );
        verify(at, "locales/fr.json", &ctx);

        // A placeholder dropped from the fr text: guard, nothing written.
        let edition = fr_edition(edited, &ctx);
        let placeholder = tags(&new)
            .into_iter()
            .find(|t| t.ends_with("/\"/>"))
            .expect("placeholder")
            .to_owned();
        let gctx = format!("{ctx} dropping {placeholder}");
        let content = new.replacen(&placeholder, "", 1);
        let fr_now = snapshot(&fr_path);
        let (code, result) = apply(
            at,
            &change_set(vec![set_content(&at_fr, &rev_of(edition, &gctx), &content)]),
            &gctx,
        );
        expect(code, &result, "refused", &["guard"], 3, &gctx);
        assert_untouched(&fr_path, &fr_now, &gctx);
        assert_untouched(&en_path, &en_before, &gctx);
        break;
    }
    assert!(
        tested,
        "no pair of JSON fixtures (`-fr` beside `-en`/`-base`) has a fr string with a placeholder"
    );
}
