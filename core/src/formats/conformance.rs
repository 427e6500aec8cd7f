//! The checks every format passes, shared by each format's tests: a no-op write gives the
//! bytes read, an edit to one block changes only that block's bytes and keeps every other
//! block's key and rev, and an edit of each kind of block keeps every key, so the edit sent
//! again is refused `stale` with the current rev and text.

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::{Format, Parsed};
use crate::change::Operation;
use crate::change::edit::{self, Edited as EditOutcome};
use crate::model::{Block, Ref, Role, Run, SOURCE, rev_runs};
use crate::projection;

/// How many cut points a truncation test tries per fixture: enough to end inside every kind
/// of construct a fixture holds; the depth (every byte, every mutation) is the fuzz targets'
/// (`scripts/fuzz.sh`), so `make test` stays fast.
pub const CUTS: usize = 64;

/// The lengths a truncation test cuts `len` bytes at, ascending, each below `len`: the first
/// 32 (a file that ends in its first token), then every `len / CUTS`-th (at least every one):
/// about [`CUTS`] for a large fixture, every length for one under `2 * CUTS` bytes.
pub fn cuts(len: usize) -> Vec<usize> {
    let step = (len / CUTS).max(1);
    let mut cuts: Vec<usize> = (0..len.min(32)).chain((0..len).step_by(step)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Every file under `testdata/formats/<dir>` (relative to the workspace root), sorted; a
/// folder's `SOURCES.md` (where its files came from) is no fixture but in `markdown`.
pub fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("testdata/formats")
        .join(dir);
    let markdown = dir == "markdown";
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SOURCES.md") && !markdown {
                // A folder's provenance, not one of its fixtures.
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no fixtures under {}", root.display());
    files
}

/// The keys of a read's blocks, in order.
pub fn keys(parsed: &Parsed) -> Vec<&str> {
    parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.as_str())
        .collect()
}

/// Reads and writes `bytes` with no edit and asserts the output is identical; returns the
/// parse for further checks.
pub fn assert_round_trip(format: &dyn Format, name: &str, bytes: &[u8]) -> Parsed {
    let parsed = format
        .read(bytes)
        .unwrap_or_else(|e| panic!("{name}: read failed: {e}"));
    // Taking the bytes reads the same document and skeleton.
    let owned = format
        .read_owned(bytes.to_vec())
        .unwrap_or_else(|e| panic!("{name}: read_owned failed: {e}"));
    assert!(
        owned.document == parsed.document && owned.skeleton == parsed.skeleton,
        "{name}: read_owned differs from read"
    );
    // Streamed, the same blocks in the same order, each with the text its offsets index.
    let (mut streamed, mut holes) = (Vec::new(), Vec::new());
    let mut texts_agree = true;
    let rest = format
        .read_each(bytes.to_vec(), &mut |text, block, its| {
            texts_agree &= if streamed.is_empty() {
                text == parsed.skeleton.text()
            } else {
                text.len() == parsed.skeleton.text().len()
            };
            texts_agree &= its.iter().all(|h| h.block == streamed.len());
            holes.extend_from_slice(its);
            streamed.push(block);
        })
        .unwrap_or_else(|e| panic!("{name}: read_each failed: {e}"));
    assert!(
        texts_agree,
        "{name}: read_each hands blocks another text, or others' holes"
    );
    assert!(
        streamed == parsed.document.blocks,
        "{name}: read_each hands other blocks than read reads"
    );
    let mut read_holes = parsed.skeleton.holes.clone();
    read_holes.sort_by_key(|h| h.block);
    assert!(
        holes == read_holes,
        "{name}: read_each hands other holes than read makes"
    );
    assert!(
        rest.document.blocks.is_empty()
            && rest.skeleton.holes.is_empty()
            && rest.skeleton.text() == parsed.skeleton.text()
            && rest.container == parsed.container,
        "{name}: read_each keeps what it handed over, or loses the text"
    );
    let written = format
        .write(&parsed)
        .unwrap_or_else(|e| panic!("{name}: write failed: {e}"));
    if written != bytes {
        let at = written
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(written.len().min(bytes.len()));
        let show = |b: &[u8]| {
            String::from_utf8_lossy(&b[at.saturating_sub(40)..(at + 40).min(b.len())]).into_owned()
        };
        panic!(
            "{name}: round trip differs at byte {at} (read {} bytes, wrote {})\n  read:  {:?}\n  wrote: {:?}",
            bytes.len(),
            written.len(),
            show(bytes),
            show(&written)
        );
    }
    parsed
}

/// Which edition of which block [`assert_edits_one_block`] edited.
#[derive(Debug)]
pub struct Edited {
    pub key: String,
    pub edition: String,
    pub branch: Option<String>,
}

/// Edits the first editable text run (a target edition for bilingual formats when one
/// exists, else the source; inside a branch when the edition is a switch), writes, and
/// asserts that the bytes changed only inside that edition's hole, that a re-read shows the
/// edit, and that every other block keeps its key and rev. Returns `None` when the file
/// has no text to edit.
pub fn assert_edits_one_block(format: &dyn Format, name: &str, bytes: &[u8]) -> Option<Edited> {
    const MARK: &str = "Zq edited";
    let mut parsed = format
        .read(bytes)
        .unwrap_or_else(|e| panic!("{name}: read failed: {e}"));
    let bilingual = format.info().capabilities.bilingual;
    let index = first_editable_hole(&parsed, bilingual)?;
    let hole = parsed.skeleton.holes[index].clone();
    let before: Vec<Revs> = revs(&parsed);
    let block = &mut parsed.document.blocks[hole.block];
    let key = block.key.clone();
    let edition_name = hole.edition().unwrap_or(SOURCE).to_owned();
    let mark = |block: &mut Block| mark_text(block, &edition_name, hole.branch(), MARK, name);
    mark(block);
    let written = format
        .write(&parsed)
        .unwrap_or_else(|e| panic!("{name}: write after edit failed: {e}"));
    // Holding the edited block alone writes the same bytes.
    let mut picked = super::output::read_picked(format, bytes.to_vec(), &mut |_, b| b.key == key)
        .unwrap_or_else(|e| panic!("{name}: read_picked failed: {e}"));
    assert_eq!(picked.indices, [hole.block], "{name}: picked another block");
    mark(&mut picked.parsed.document.blocks[0]);
    let alone = format
        .write(&picked.parsed)
        .unwrap_or_else(|e| panic!("{name}: write of the picked block failed: {e}"));
    assert!(
        alone == written,
        "{name}: editing `{key}` held alone writes other bytes than with every block held"
    );
    // The change must lie inside the hole (compared in decoded text).
    let reread = format
        .read(&written)
        .unwrap_or_else(|e| panic!("{name}: re-read after edit failed: {e}"));
    let changed = changed_span(parsed.skeleton.text(), reread.skeleton.text());
    let extent = format.extent(parsed.skeleton.text(), hole.span.clone());
    assert!(
        changed.start >= extent.start && changed.end <= extent.end,
        "{name}: editing `{key}` changed bytes {changed:?} outside its hole {:?} (extent {extent:?})",
        hole.span
    );
    // The edit reads back, and nothing else moved.
    let again = reread
        .document
        .block(&key)
        .unwrap_or_else(|| panic!("{name}: `{key}` is gone after the edit"));
    let edition = again
        .edition(&edition_name)
        .unwrap_or_else(|| panic!("{name}: `{key}` lost edition {edition_name}"));
    let text = edition
        .branch(hole.branch().unwrap_or(""))
        .map(|runs| crate::model::Edition::new(runs.to_vec()).plain_text())
        .unwrap_or_default();
    assert!(
        text.contains(MARK),
        "{name}: `{key}` reads back as {text:?}, without the edit"
    );
    let after = revs(&reread);
    assert_eq!(before.len(), after.len(), "{name}: block count changed");
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0, "{name}: a key moved after editing `{key}`");
        if b.0 != key {
            assert_eq!(b, a, "{name}: `{}` changed after editing `{key}`", b.0);
        }
    }
    Some(Edited {
        key,
        edition: edition_name,
        branch: hole.branch().map(str::to_owned),
    })
}

/// The index of the first hole [`assert_edits_one_block`] may edit: a translatable
/// block's, whose runs hold a text run with a letter (for a bilingual format with
/// targets, a target's hole).
fn first_editable_hole(parsed: &Parsed, bilingual: bool) -> Option<usize> {
    for (index, hole) in parsed.skeleton.holes.iter().enumerate() {
        let Some(block) = parsed.document.blocks.get(hole.block) else {
            continue;
        };
        if !block.translatable {
            continue;
        }
        if bilingual && hole.edition().is_none() && !block.targets.is_empty() {
            continue;
        }
        let Some(runs) = super::hole_runs(&parsed.document, hole) else {
            continue;
        };
        if runs
            .iter()
            .any(|r| matches!(r, Run::Text { text, .. } if text.chars().any(char::is_alphabetic)))
        {
            return Some(index);
        }
    }
    None
}

/// Appends ` {mark}` to the first text run with a letter of `block`'s edition `edition`
/// (in `branch`), which then comes from no offset of the file.
fn mark_text(block: &mut Block, edition: &str, branch: Option<&str>, mark: &str, name: &str) {
    let edition = block
        .edition_mut(edition)
        .unwrap_or_else(|| panic!("{name}: hole names a missing edition"));
    let runs = edition
        .branch_mut(branch.unwrap_or(""))
        .unwrap_or_else(|| panic!("{name}: hole names a missing branch"));
    for run in runs.iter_mut() {
        if let Run::Text { text, src } = run
            && text.chars().any(char::is_alphabetic)
        {
            text.push(' ');
            text.push_str(mark);
            *src = None;
            break;
        }
    }
}

/// The bytes of `old` that `new` replaces: what lies between their common prefix and
/// suffix.
fn changed_span(old: &str, new: &str) -> Range<usize> {
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len() - prefix)
        .min(new.len() - prefix);
    prefix..old.len() - suffix
}

type Revs = (String, String, Vec<(String, String)>);

fn revs(parsed: &Parsed) -> Vec<Revs> {
    parsed
        .document
        .blocks
        .iter()
        .map(|b| {
            (
                b.key.clone(),
                b.source.rev(),
                b.targets
                    .iter()
                    .map(|(lang, e)| (lang.clone(), e.rev()))
                    .collect(),
            )
        })
        .collect()
}

/// Runs every check over every fixture of a format; returns how many files had an edit.
/// The identity check ([`assert_keys_survive_edits`]) must edit some block of the corpus
/// of every editable format; bilingual ones take no edit and skip it (its doc says why).
pub fn run_corpus(format: &dyn Format, dir: &str) -> usize {
    let mut edited = 0;
    let mut identity = 0;
    for path in fixtures(dir) {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_round_trip(format, &name, &bytes);
        if assert_edits_one_block(format, &name, &bytes).is_some() {
            edited += 1;
        }
        identity += assert_keys_survive_edits(format, &name, &bytes);
    }
    let caps = format.info().capabilities;
    if caps.editable && !caps.bilingual {
        assert!(identity > 0, "{dir}: the identity check edited no block");
    }
    edited
}

/// The identity check: edits one block of each role (the first editable one; a heading
/// too) through the change machinery, `set_content` at the rev read, writes, and re-reads.
/// Asserts that every key is where it was, that each edited key names the edited text, and
/// that the same operation sent again is refused [`Edited::Stale`](crate::change::edit::Edited)
/// with the re-read's rev and text, as `kapi apply` refuses a change set resent after it
/// landed. Returns how many blocks were edited.
///
/// Bilingual interchange formats (XLIFF, PO) are not checked: they take no edit (`kapi
/// apply` answers `unsupported`), so no written file could move a key, and their keys are
/// the catalog's ids, which no edit of a text reaches.
pub fn assert_keys_survive_edits(format: &dyn Format, name: &str, bytes: &[u8]) -> usize {
    const MARK: &str = "Zq again";
    if format.info().capabilities.bilingual || !format.info().capabilities.editable {
        // Skipped, not passed: XLIFF and PO take no edit (`kapi apply` answers
        // `unsupported`), so there is no written file whose keys could move. Their keys are
        // unit ids and `msgctxt|msgid`, which only the file's author changes.
        return 0;
    }
    let mut parsed = format
        .read(bytes)
        .unwrap_or_else(|e| panic!("{name}: read failed: {e}"));
    let keys: Vec<String> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.key.clone())
        .collect();
    let ops = one_edit_per_role(&parsed, name, MARK);
    for op in &ops {
        let at = op.at().expect("a content operation");
        let block = parsed
            .document
            .block_mut(&at.block)
            .expect("the block just read");
        let outcome = edit::apply(&mut block.source, op, None);
        assert!(
            matches!(outcome, EditOutcome::Applied { .. }),
            "{name}: editing `{}` gave {outcome:?}",
            at.block
        );
    }
    let written = format
        .write(&parsed)
        .unwrap_or_else(|e| panic!("{name}: write after the edits failed: {e}"));
    let reread = format
        .read(&written)
        .unwrap_or_else(|e| panic!("{name}: re-read after the edits failed: {e}"));
    let again: Vec<String> = reread
        .document
        .blocks
        .iter()
        .map(|b| b.key.clone())
        .collect();
    assert_eq!(
        again,
        keys,
        "{name}: keys moved after editing {:?}",
        ops.iter()
            .filter_map(|o| o.at().map(|a| a.block.as_str()))
            .collect::<Vec<_>>()
    );
    for op in &ops {
        assert_landed_once(&reread, op, name, MARK);
    }
    ops.len()
}

/// One operation per role, built from the read as an assistant builds it: a `set_content`
/// of the first editable block of each role, at the rev read, with ` {mark}` appended to
/// its first text run with a letter.
fn one_edit_per_role(parsed: &Parsed, name: &str, mark: &str) -> Vec<Operation> {
    let mut roles: Vec<Role> = Vec::new();
    let mut ops: Vec<Operation> = Vec::new();
    for hole in &parsed.skeleton.holes {
        let Some(block) = parsed.document.blocks.get(hole.block) else {
            continue;
        };
        if hole.edition().is_some()
            || !block.translatable
            || block.locked.is_some()
            || roles.contains(&block.role)
        {
            continue;
        }
        // The hole's branch, else the whole edition when its own text has words, else its
        // first leaf branch that has.
        let words = |runs: &[Run]| {
            runs.iter().any(
                |r| matches!(r, Run::Text { text, .. } if text.chars().any(char::is_alphabetic)),
            )
        };
        let branch = match hole.branch() {
            Some(path) => Some(path.to_owned()),
            None if words(&block.source.runs) => None,
            None => block
                .source
                .leaves()
                .into_iter()
                .find(|(_, runs)| words(runs))
                .map(|(path, _)| path),
        };
        let Some(runs) = block.source.branch(branch.as_deref().unwrap_or("")) else {
            continue;
        };
        if !words(runs) {
            continue;
        }
        let mut edited = runs.to_vec();
        if let Some(Run::Text { text, src }) = edited
            .iter_mut()
            .find(|r| matches!(r, Run::Text { text, .. } if text.chars().any(char::is_alphabetic)))
        {
            text.push(' ');
            text.push_str(mark);
            *src = None;
        }
        roles.push(block.role);
        ops.push(Operation::SetContent {
            at: Ref {
                doc: name.to_owned(),
                block: block.key.clone(),
                edition: SOURCE.to_owned(),
                branch: branch.clone(),
            },
            if_match: match &branch {
                None => block.source.rev(),
                Some(_) => rev_runs(runs),
            },
            content: projection::render(&edited).0,
        });
    }
    ops
}

/// Asserts that `op` landed in `reread` (its block reads back with `mark`), and that sent
/// again it is refused stale with what the block holds now, changing nothing.
fn assert_landed_once(reread: &Parsed, op: &Operation, name: &str, mark: &str) {
    let at = op.at().expect("a content operation");
    let block = reread
        .document
        .block(&at.block)
        .unwrap_or_else(|| panic!("{name}: `{}` is gone after its edit", at.block));
    let now = edit::current(&block.source, at.branch.as_deref())
        .unwrap_or_else(|| panic!("{name}: `{}` lost its branch", at.block));
    assert!(
        now.text.contains(mark),
        "{name}: `{}` reads back as {:?}, without the edit",
        at.block,
        now.text
    );
    // Sent again after it landed: stale, with what the block holds now.
    let mut resent = block.source.clone();
    match edit::apply(&mut resent, op, Some(&now.rev)) {
        EditOutcome::Stale(current) => assert_eq!(current, now, "{name}: `{}`", at.block),
        other => panic!(
            "{name}: `{}` sent again gave {other:?}, not stale",
            at.block
        ),
    }
    assert_eq!(
        resent, block.source,
        "{name}: a stale edit changed `{}`",
        at.block
    );
}

/// Every editable block of a file takes a `set_content` of its own text (as a read shows it,
/// codes as `<x/>` tags) as a no-op: the edit answers unchanged, and the file writes back the
/// same bytes. Returns how many blocks were tried.
pub fn assert_own_text_is_a_no_op(format: &dyn Format, name: &str, bytes: &[u8]) -> usize {
    let mut parsed = format
        .read(bytes)
        .unwrap_or_else(|e| panic!("{name}: read failed: {e}"));
    let mut tried = 0;
    for block in &mut parsed.document.blocks {
        if !block.translatable || block.locked.is_some() {
            continue;
        }
        let op = Operation::SetContent {
            at: Ref {
                doc: name.to_owned(),
                block: block.key.clone(),
                edition: SOURCE.to_owned(),
                branch: None,
            },
            if_match: block.source.rev(),
            content: projection::render(&block.source.runs).0,
        };
        let outcome = edit::apply(&mut block.source, &op, None);
        assert!(
            matches!(outcome, EditOutcome::Unchanged),
            "{name}: `{}` took its own text as {outcome:?}",
            block.key
        );
        tried += 1;
    }
    let written = format
        .write(&parsed)
        .unwrap_or_else(|e| panic!("{name}: write failed: {e}"));
    assert!(
        written == bytes,
        "{name}: a no-op set_content changed the bytes"
    );
    tried
}
