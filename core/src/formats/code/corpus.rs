//! Real source files from well-known projects (`testdata/formats/code/<language>/`): each
//! reads, writes back byte for byte, and takes an edit of a comment that still parses.

use std::collections::HashSet;

use super::langs::{LANGS, Lang};
use super::{parse, syntax_errors};
use crate::formats::conformance;
use crate::formats::conformance::keys;
use crate::formats::{Format, Parsed};
use crate::model::{Block, Edition, Run};

/// The prose an edit puts in a comment: long enough to wrap in any comment it replaces.
const NEW: &str = "A new sentence for this comment that is long enough to need wrapping across more than one line when written back in place.";

/// The fewest blocks a real file of the corpus has.
const MIN_BLOCKS: usize = 3;

/// One file of the corpus: its path (for messages) and its text.
struct Real {
    name: String,
    text: String,
}

/// The language whose format id is `id`.
fn lang(id: &str) -> &'static Lang {
    LANGS
        .iter()
        .copied()
        .find(|l| l.info.id == id)
        .unwrap_or_else(|| panic!("no language `{id}`"))
}

/// Every file of `id`'s corpus, at least two.
fn corpus(id: &str) -> Vec<Real> {
    let files: Vec<Real> = conformance::fixtures(&format!("code/{id}"))
        .into_iter()
        .map(|path| {
            let name = path.display().to_string();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            Real { name, text }
        })
        .collect();
    assert!(files.len() >= 2, "{id}: fewer than two real files");
    files
}

fn read(lang: &Lang, file: &Real) -> Parsed {
    lang.read(file.text.as_bytes())
        .unwrap_or_else(|e| panic!("{}: read failed: {e}", file.name))
}

/// A block's prose with its whitespace runs made single spaces.
fn words(block: &Block) -> String {
    let plain = Edition::new(block.source.runs.clone()).plain_text();
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn has_codes(block: &Block) -> bool {
    block.source.runs.iter().any(|r| matches!(r, Run::Code(_)))
}

/// How many syntax errors `lang`'s grammar finds in `text`.
fn errors(lang: &Lang, name: &str, text: &str) -> usize {
    let tree = parse(lang, text).unwrap_or_else(|e| panic!("{name}: parse failed: {e}"));
    syntax_errors(&tree)
}

/// Writes `parsed` as text.
fn written(lang: &Lang, name: &str, parsed: &Parsed) -> String {
    let bytes = lang
        .write(parsed)
        .unwrap_or_else(|e| panic!("{name}: write failed: {e}"));
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: wrote no UTF-8: {e}"))
}

/// A no-op write gives the bytes read; `read_owned` and `read_each` hand over the same
/// blocks (and holes) as `read`.
fn round_trip(id: &str) {
    let lang = lang(id);
    for file in corpus(id) {
        conformance::assert_round_trip(lang, &file.name, file.text.as_bytes());
    }
}

/// Each file has a few blocks, some prose; keys are unique; every text run (and every
/// one-line code) read from the file is a verbatim slice of it, inside its comment.
fn blocks(id: &str) {
    let lang = lang(id);
    for file in corpus(id) {
        let name = &file.name;
        let parsed = read(lang, &file);
        let blocks = &parsed.document.blocks;
        assert!(
            blocks.len() >= MIN_BLOCKS,
            "{name}: {} blocks, fewer than {MIN_BLOCKS}",
            blocks.len()
        );
        assert!(
            blocks.iter().any(|b| b.translatable),
            "{name}: no translatable comment"
        );
        let mut seen = HashSet::new();
        for block in blocks {
            let key = &block.key;
            assert!(seen.insert(key.as_str()), "{name}: key `{key}` twice");
            let span = block.span.clone();
            let comment = file.text.get(span.clone());
            assert!(
                comment.is_some(),
                "{name}: `{key}` spans {span:?}, off the text"
            );
            for run in &block.source.runs {
                if let Run::Code(code) = run {
                    assert!(
                        closed(&code.data),
                        "{name}: `{key}` has an example that never closes: {:?}",
                        code.data
                    );
                }
                let (slice, at) = match run {
                    Run::Text {
                        text,
                        src: Some(at),
                    } => (text.as_str(), *at),
                    Run::Code(code) if !code.data.contains('\n') => match code.src {
                        Some(at) => (code.data.as_str(), at),
                        None => continue,
                    },
                    _ => continue,
                };
                let found = file.text.get(at..at + slice.len());
                assert_eq!(
                    found,
                    Some(slice),
                    "{name}: `{key}` has a run at {at} that is not the file's text there"
                );
                assert!(
                    span.start <= at && at + slice.len() <= span.end,
                    "{name}: `{key}` has a run at {at} outside its comment {span:?}"
                );
            }
        }
    }
}

/// Whether a code is no fenced example, or one whose last line closes it (real files close
/// their examples: an open one has swallowed the prose after it).
fn closed(data: &str) -> bool {
    let Some(fence) = ["```", "~~~"].into_iter().find(|m| data.starts_with(m)) else {
        return true;
    };
    data.len() > fence.len() && data.trim_end().ends_with(fence)
}

/// The first translatable comment of `parsed` with prose, one without codes if any.
fn first_prose(parsed: &Parsed) -> Option<usize> {
    let blocks = &parsed.document.blocks;
    let prose = |b: &Block| b.translatable && b.locked.is_none() && !words(b).is_empty();
    blocks
        .iter()
        .position(|b| prose(b) && !has_codes(b))
        .or_else(|| blocks.iter().position(prose))
}

/// [`NEW`] in place of a block's prose, its codes kept after it.
fn replaced(block: &Block) -> Vec<Run> {
    let mut runs = vec![Run::text(NEW)];
    for run in &block.source.runs {
        if let Run::Code(_) = run {
            runs.push(Run::text(" "));
            runs.push(run.clone());
        }
    }
    runs
}

/// Asserts that `out`, written after editing the blocks at `edited` of `before` (read from
/// `file`), parses with no more errors than the file, reads back with the same keys, and
/// each edited block reads back with the new words.
fn assert_edit_lands(lang: &Lang, file: &Real, before: &Parsed, edited: &[usize], out: &str) {
    let name = &file.name;
    let was = errors(lang, name, &file.text);
    let now = errors(lang, name, out);
    let keys_edited: Vec<&str> = edited
        .iter()
        .map(|&i| before.document.blocks[i].key.as_str())
        .collect();
    let what = match keys_edited.as_slice() {
        [key] => format!("`{key}`"),
        keys => format!("{} comments", keys.len()),
    };
    assert!(
        now <= was,
        "{name}: {now} syntax errors after editing {what}, {was} before"
    );
    let reread = lang
        .read(out.as_bytes())
        .unwrap_or_else(|e| panic!("{name}: re-read after editing {what} failed: {e}"));
    let (now, was) = (keys(&reread), keys(before));
    if let Some(at) = (0..now.len().max(was.len())).find(|&i| now.get(i) != was.get(i)) {
        panic!(
            "{name}: keys moved after editing {what}: block {at} was {:?}, is {:?}",
            was.get(at),
            now.get(at)
        );
    }
    for key in keys_edited {
        let block = reread
            .document
            .block(key)
            .unwrap_or_else(|| panic!("{name}: `{key}` is gone after its edit"));
        let prose = words(block);
        assert!(
            prose.contains(NEW),
            "{name}: `{key}` reads back as {prose:?}, without the edit"
        );
        assert!(
            block.translatable,
            "{name}: `{key}` is no prose after its edit"
        );
    }
}

/// The first prose comment of each file, given new words, is written so that the file
/// parses as before and reads back with the same keys and the new words; the edit stays in
/// that comment's bytes and no other block changes.
fn edit_first(id: &str) {
    let lang = lang(id);
    for file in corpus(id) {
        let name = &file.name;
        let mut parsed = read(lang, &file);
        let index =
            first_prose(&parsed).unwrap_or_else(|| panic!("{name}: no prose comment to edit"));
        let before = parsed.clone();
        let block = &mut parsed.document.blocks[index];
        block.source.runs = replaced(block);
        let out = written(lang, name, &parsed);
        assert_edit_lands(lang, &file, &before, &[index], &out);
        let edited = conformance::assert_edits_one_block(lang, name, file.text.as_bytes());
        assert!(
            edited.is_some(),
            "{name}: no block took the conformance edit"
        );
    }
}

/// Every prose comment of each file given new words at once: the file still parses as
/// before, and reads back with the same keys and each edit.
fn edit_all(id: &str) {
    let lang = lang(id);
    for file in corpus(id) {
        let mut parsed = read(lang, &file);
        let before = parsed.clone();
        let mut edited = Vec::new();
        for (i, block) in parsed.document.blocks.iter_mut().enumerate() {
            if block.translatable && block.locked.is_none() && !words(block).is_empty() {
                block.source.runs = replaced(block);
                edited.push(i);
            }
        }
        assert!(
            !edited.is_empty(),
            "{}: no prose comment to edit",
            file.name
        );
        let out = written(lang, &file.name, &parsed);
        assert_edit_lands(lang, &file, &before, &edited, &out);
    }
}

/// Every language has a corpus, and every corpus directory names a language.
#[test]
fn every_language_has_real_files() {
    for lang in LANGS {
        assert!(corpus(lang.info.id).len() >= 2);
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats/code");
    for entry in std::fs::read_dir(&root)
        .expect("the corpus directory")
        .flatten()
    {
        if entry.path().is_dir() {
            let id = entry.file_name().to_string_lossy().into_owned();
            assert!(
                LANGS.iter().any(|l| l.info.id == id),
                "testdata/formats/code/{id} names no language"
            );
        }
    }
}

/// One module of tests per language, each over that language's files.
macro_rules! languages {
    ($($id:ident),* $(,)?) => {$(
        mod $id {
            #[test]
            fn reads_and_writes_back_unchanged() {
                super::round_trip(stringify!($id));
            }

            #[test]
            fn blocks_have_unique_keys_and_verbatim_prose() {
                super::blocks(stringify!($id));
            }

            #[test]
            fn the_first_comment_edited_still_parses() {
                super::edit_first(stringify!($id));
            }

            #[test]
            fn every_comment_edited_still_parses() {
                super::edit_all(stringify!($id));
            }
        }
    )*};
}

languages!(
    rust, python, javascript, typescript, tsx, go, java, c, cpp, csharp, kotlin, swift, ruby,
    shell, toml,
);
