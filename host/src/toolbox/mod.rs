//! The text tools, format-aware: `kapi cat`, `grep`, `sed` and `diff` (`kcat`, `kgrep`,
//! `ksed`, `kdiff` through a link of that name) see a file's blocks and their readable prose
//! ([`kapi_core::readable`]), never its markup or placeholders.
//!
//! Each tool names files as `kapi check` does: a file, a folder walked (honouring
//! `.gitignore` and the recipe's `exclude`) when the caller asks for it, or with no path
//! every file the project's collections declare. Only prose blocks are shown and searched: a
//! code block, or commented-out code in a source file, is not prose.

pub mod cat;
pub mod diff;
pub mod grep;
pub mod sed;

use std::path::PathBuf;

use kapi_core::model::Block;
use kapi_core::project::Project;
use kapi_core::text::LineIndex;

use crate::app::App;
use crate::check::Named;
use crate::document::{self, Editions, Hold, Loaded};
use crate::error::HostError;

/// The files `paths` name; a folder only when `recursive` (as `grep -r` asks), else a usage
/// error saying so.
pub(crate) fn files(
    app: &App,
    project: Option<&Project>,
    paths: &[PathBuf],
    recursive: bool,
    verb: &str,
) -> Result<Vec<Named>, HostError> {
    if !recursive {
        for path in paths {
            if app.absolute(path).is_dir() {
                return Err(HostError::Usage {
                    message: format!("`{}` is a folder", path.display()),
                    hint: Some(format!(
                        "add `-r` to {verb} every file it holds, as `grep -r` does"
                    )),
                });
            }
        }
    }
    crate::check::named_files(app, project, paths)
}

/// One file read for a text tool, with the target editions `editions` names.
pub(crate) fn load(
    app: &App,
    project: Option<&Project>,
    file: &Named,
    editions: &Editions,
) -> Result<Loaded, HostError> {
    let path = app.resolve(project, &file.abs)?;
    let mut loaded = document::load_resolved(
        app,
        project,
        &path,
        editions,
        Some(file.format.info().id),
        Hold::All,
    )?;
    // Named as the walk named it (outside a project, as given rather than absolute).
    loaded.doc.clone_from(&file.doc);
    Ok(loaded)
}

/// `each` over `files` on every core, the answers in the files' order.
pub(crate) fn each_file<T: Send>(files: &[Named], each: impl Fn(&Named) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(files.len());
    if workers <= 1 {
        return files.iter().map(&each).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<(usize, T)>> =
        std::sync::Mutex::new(Vec::with_capacity(files.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let answer = each(file);
                    done.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, answer));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, answer)| answer).collect()
}

/// Whether a text tool shows and searches `block`: prose, not code.
pub(crate) fn prose(block: &Block) -> bool {
    block.translatable
}

/// The 1-based line and column of a file offset in the text `loaded` was read from: none for
/// a file inside a container (a .docx), whose offsets are in a part.
pub(crate) fn position(
    loaded: &Loaded,
    lines: &LineIndex,
    offset: Option<usize>,
) -> Option<(usize, usize)> {
    let text = &loaded.parsed.skeleton.original;
    offset
        .filter(|&o| o <= text.len() && loaded.parsed.container.is_none())
        .map(|o| lines.position(text, o))
}

/// The 1-based line of `block` in the file, when the format knows it.
pub(crate) fn block_line(loaded: &Loaded, lines: &LineIndex, block: &Block) -> Option<usize> {
    let known = block.span.start > 0 || block.span.end > 0;
    position(loaded, lines, known.then_some(block.span.start)).map(|(line, _)| line)
}
