//! Reading a document the way every verb does: the format (the collection's `format`, else
//! the extension, sniffed when formats share one), the limits, and the target editions.
//!
//! Limits: a file over [`MAX_FILE_BYTES`] is refused before it is read, and inside a
//! project a path that is (or passes through) a symlink to a place outside the project is
//! refused, so a read never leaves the project a recipe governs. Target editions of a
//! monolingual source come from the collection item's `target` template (`{lang}.json`):
//! each target file is read with the source's format and its blocks join the source's by key.
//! A bilingual file (XLIFF, PO) carries its own target editions.

use std::collections::BTreeSet;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use kapi_core::formats::{self, Format, Parsed};
use kapi_core::model::Block;
use kapi_core::project::Project;
use kapi_core::project::collections::Collections;
use sha2::Digest;

use crate::app::{App, ResolvedPath, normalize, relative_to};
use crate::error::HostError;

/// The largest file kapi reads: 100 MB (the readers' own limit, which a .docx's parts count
/// against as they inflate).
pub const MAX_FILE_BYTES: u64 = formats::MAX_INPUT_BYTES;

/// The format for a file: the one its collection item declares, else the one its extension
/// names, sniffing the first bytes when several formats share the extension. `None` when no
/// format reads it.
pub fn pick(path: &Path, declared: Option<&str>) -> Result<Option<&'static dyn Format>, HostError> {
    if let Some(id) = declared {
        let format = formats::by_id(id).ok_or_else(|| HostError::UnknownFormatId {
            format: id.to_owned(),
            field: "collections".to_owned(),
        })?;
        // A glob over `res/**/*.xml` declared `android` also names drawables and layouts, and
        // one over `*.ts` declared `qt` TypeScript files.
        if id == "android" && format.foreign(&head(path)).is_some() {
            return Ok(None);
        }
        if id == "qt" && !is_qt_ts(path) {
            return Ok(None);
        }
        return Ok(Some(format));
    }
    let candidates: Vec<&'static dyn Format> = formats::by_extension(path).collect();
    match candidates.as_slice() {
        [] => Ok(None),
        // A `.xml` that is not a string resource (a drawable, a layout) is no format's file.
        [only] if only.info().id == "android" => {
            Ok(only.foreign(&head(path)).is_none().then_some(*only))
        }
        [only] => Ok(Some(*only)),
        _ => Ok(formats::for_file(path, &head(path))),
    }
}

/// The comment format that reads the file at `path` (absolute), judged by its extension and
/// its first bytes: a `.ts` file is TypeScript unless it is a Qt Linguist `<TS>` file.
pub fn comment_format(path: &Path) -> Option<&'static dyn Format> {
    path.extension()?;
    formats::comment_format(path, &head(path))
}

/// Whether the file at `path` is a Qt Linguist `.ts` file (an XML `<TS>` root), not TypeScript.
pub fn is_qt_ts(path: &Path) -> bool {
    kapi_core::formats::qt::is_ts(&head(path))
}

/// The first 4 KB of a regular file (empty when it cannot be read, or is a pipe or a device
/// an open would wait on: the read proper reports why).
fn head(path: &Path) -> Vec<u8> {
    let mut head = Vec::with_capacity(4096);
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return head;
    }
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(4096).read_to_end(&mut head);
    }
    head
}

/// Why no format reads `path`, when a format that owns its extension can tell what the file
/// is instead ("an Android `<vector>` resource, not strings").
pub fn foreign(path: &Path) -> Option<String> {
    path.extension()?;
    let head = head(path);
    formats::by_extension(path).find_map(|f| f.foreign(&head))
}

/// The error for a file no format reads, saying what it is when that is known.
pub fn unknown_format(path: &Path, abs: &Path) -> HostError {
    HostError::UnknownFormat {
        path: path.to_path_buf(),
        what: foreign(abs),
    }
}

/// The format a project's collections declare for `abs`, if any.
pub fn declared_format(
    project: Option<&Project>,
    collections: Option<&Collections>,
    abs: &Path,
) -> Option<String> {
    let (project, collections) = (project?, collections?);
    declared_at(collections, &relative_to(abs, &project.root)?)
}

/// The format the collections declare for the project-relative `rel`, if any.
pub(crate) fn declared_at(collections: &Collections, rel: &str) -> Option<String> {
    collections.matches(rel).and_then(|m| m.format)
}

/// Refuses a path inside `root` that resolves (through a symlink) to a place outside it.
pub fn stay_inside(path: &Path, abs: &Path, root: &Path) -> Result<(), HostError> {
    let (Ok(real), Ok(real_root)) = (abs.canonicalize(), root.canonicalize()) else {
        return Ok(());
    };
    if real.starts_with(&real_root) {
        Ok(())
    } else {
        Err(HostError::LeavesProject {
            path: path.to_path_buf(),
            target: real,
        })
    }
}

/// Reads a file's bytes, refusing one over [`MAX_FILE_BYTES`].
pub fn read_bytes(abs: &Path, display: &str) -> Result<Vec<u8>, HostError> {
    let meta = std::fs::metadata(abs).map_err(|e| HostError::io(display, e))?;
    if let Some(e) = HostError::special_file(Path::new(display), &meta) {
        return Err(e);
    }
    if meta.is_file() && meta.len() > MAX_FILE_BYTES {
        return Err(HostError::TooLarge {
            path: PathBuf::from(display),
            size: meta.len(),
        });
    }
    // The size as read when the file was opened: room for all of it, without doubling.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    std::fs::File::open(abs)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| HostError::io(display, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(HostError::TooLarge {
            path: PathBuf::from(display),
            size: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

/// What a read keeps of a file's bytes once the format has taken them: their rev and length
/// (the bytes are the skeleton's text, or gone, so a file is in memory once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    pub len: usize,
    /// Their SHA-256, to tell bytes written back from the bytes read without keeping them.
    pub digest: [u8; 32],
}

impl FileRead {
    pub fn of(bytes: &[u8]) -> Self {
        let digest: [u8; 32] = sha2::Sha256::digest(bytes).into();
        FileRead {
            len: bytes.len(),
            digest,
        }
    }

    /// The rev of the bytes as read ([`crate::inspect::rev_of_digest`]).
    pub fn rev(&self) -> String {
        crate::inspect::rev_of_digest(&self.digest)
    }

    /// Whether `bytes` are the bytes read.
    pub fn same(&self, bytes: &[u8]) -> bool {
        bytes.len() == self.len && <[u8; 32]>::from(sha2::Sha256::digest(bytes)) == self.digest
    }
}

/// Reads and parses one file with `format`, handing it the bytes.
pub fn parse(
    abs: &Path,
    display: &str,
    format: &dyn Format,
) -> Result<(FileRead, Parsed), HostError> {
    let bytes = read_bytes(abs, display)?;
    let read = FileRead::of(&bytes);
    let parsed = format.read_owned(bytes).map_err(|source| HostError::Read {
        path: PathBuf::from(display),
        source,
    })?;
    Ok((read, parsed))
}

/// [`parse`], handing each block to `each` as the format reads it ([`Format::read_each`]), so
/// the document is never held whole: the returned read has no blocks.
pub fn parse_each(
    abs: &Path,
    display: &str,
    format: &dyn Format,
    each: formats::Each<'_>,
) -> Result<(FileRead, Parsed), HostError> {
    let bytes = read_bytes(abs, display)?;
    let read = FileRead::of(&bytes);
    let parsed = format
        .read_each(bytes, each)
        .map_err(|source| HostError::Read {
            path: PathBuf::from(display),
            source,
        })?;
    Ok((read, parsed))
}

/// [`parse`], holding only the blocks whose key is in `keys`, with their holes
/// ([`formats::output::read_picked`]): what an edit of those blocks needs to write the file.
pub fn parse_picked(
    abs: &Path,
    display: &str,
    format: &dyn Format,
    keys: &BTreeSet<String>,
) -> Result<(FileRead, formats::output::Picked), HostError> {
    let bytes = read_bytes(abs, display)?;
    let read = FileRead::of(&bytes);
    let picked = formats::output::read_picked(format, bytes, &mut |_, b| keys.contains(&b.key))
        .map_err(|source| HostError::Read {
            path: PathBuf::from(display),
            source,
        })?;
    Ok((read, picked))
}

/// Which of a file's blocks a load holds (a source with target files is held whole: its
/// blocks pair with theirs by key or position).
pub enum Hold<'a> {
    All,
    /// Those whose index is in the range: a page of `kapi inspect`. The rest are counted.
    Window(&'a Range<usize>),
    /// Those with these keys, and their holes: what an edit of them writes with.
    Keys(&'a BTreeSet<String>),
    /// None: each is handed to the function with its index as it is read, and counted (a
    /// whole document printed a block at a time). Held whole when target files pair with it.
    Each(&'a mut dyn FnMut(usize, Block)),
}

/// One target language's file for a monolingual source.
#[derive(Debug)]
pub struct TargetFile {
    pub lang: String,
    pub abs: PathBuf,
    /// As a `ref.doc` names it (project-relative).
    pub doc: String,
    /// `None` when the file does not exist yet.
    pub parsed: Option<Parsed>,
    /// Its rev and length as read, beside `parsed`.
    pub read: Option<FileRead>,
}

/// A document as a read hands it out.
pub struct Loaded {
    pub abs: PathBuf,
    /// Project-relative path inside a project, else the path as given.
    pub doc: String,
    pub format: &'static dyn Format,
    /// The file's rev and length as read.
    pub read: FileRead,
    /// The blocks read: all of them, or those [`load_holding`] was told to hold.
    pub parsed: Parsed,
    /// How many blocks the file holds.
    pub total: usize,
    /// The index in the file of `parsed`'s first block (0 unless a window starts later).
    pub first: usize,
    /// Under [`Hold::Keys`], the index in the file of each block held.
    pub picked: Option<Vec<usize>>,
    /// The translation files the collection's `target` template names, read.
    pub targets: Vec<TargetFile>,
    /// Whether the document was read inside a project.
    pub in_project: bool,
    /// Whether its blocks were handed over as they were read ([`Hold::Each`]) rather than held.
    pub streamed: bool,
}

/// Which target editions to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Editions {
    /// The source alone (and a bilingual file's own targets are dropped).
    Source,
    /// These languages.
    Some(Vec<String>),
    /// Every language the recipe or the file names.
    All,
}

impl Editions {
    pub fn wants(&self, lang: &str) -> bool {
        match self {
            Editions::Source => false,
            Editions::Some(langs) => langs.iter().any(|l| l == lang),
            Editions::All => true,
        }
    }
}

/// Loads `path` (relative to the working folder) with its target editions.
pub fn load(
    app: &App,
    path: &Path,
    editions: &Editions,
    format_id: Option<&str>,
) -> Result<Loaded, HostError> {
    load_holding(app, path, editions, format_id, Hold::All)
}

/// [`load`], holding only the blocks `hold` names: the file is read block by block and the
/// rest are counted, not held, so a page of a large file, or an edit of a few of its blocks,
/// costs the file and those blocks.
pub fn load_holding(
    app: &App,
    path: &Path,
    editions: &Editions,
    format_id: Option<&str>,
    hold: Hold<'_>,
) -> Result<Loaded, HostError> {
    let project = app.project()?;
    let path = app.resolve(project.as_ref(), path)?;
    load_resolved(app, project.as_ref(), &path, editions, format_id, hold)
}

/// [`load_holding`] for a path already resolved against `project` (the project it was
/// resolved under, [`App::resolve`]): refused when it is a folder or not a regular file.
pub fn load_resolved(
    app: &App,
    project: Option<&Project>,
    path: &ResolvedPath,
    editions: &Editions,
    format_id: Option<&str>,
    hold: Hold<'_>,
) -> Result<Loaded, HostError> {
    let meta = path.meta()?;
    if let Some(e) = HostError::special_file(path.given(), meta) {
        return Err(e);
    }
    if meta.is_dir() {
        return Err(HostError::Usage {
            message: format!("`{}` is a folder; name a file", path.given().display()),
            hint: Some(app.surface.pick(
                "list the files with `ls`, then `kapi inspect FILE`",
                "name one of its files in `path`",
            )),
        });
    }
    let collections = match project {
        Some(p) => Some(p.collections()?),
        None => None,
    };
    let abs = path.abs().to_path_buf();
    let rel = path.rel();
    let declared = match format_id {
        Some(id) => Some(id.to_owned()),
        None => collections
            .as_ref()
            .zip(rel)
            .and_then(|(c, rel)| declared_at(c, rel)),
    };
    let format =
        pick(&abs, declared.as_deref())?.ok_or_else(|| unknown_format(path.given(), &abs))?;
    let doc = path.doc();
    let bilingual = format.info().capabilities.bilingual;
    let target_paths = match (&collections, rel) {
        (Some(collections), Some(rel)) if !bilingual => target_paths(collections, rel, editions),
        _ => Vec::new(),
    };
    let hold = if target_paths.is_empty() {
        hold
    } else {
        Hold::All
    };
    let streamed = matches!(hold, Hold::Each(_));
    let wanted = |block: &mut Block| {
        if bilingual {
            block.targets.retain(|lang, _| editions.wants(lang));
        }
    };
    let mut held = read_held(&abs, &doc, format, hold, &wanted)?;
    let targets = match project {
        Some(project) => read_targets(project, target_paths, format, &mut held.parsed)?,
        None => Vec::new(),
    };
    Ok(Loaded {
        abs,
        doc,
        format,
        read: held.read,
        parsed: held.parsed,
        total: held.total,
        first: held.first,
        picked: held.picked,
        targets,
        in_project: project.is_some(),
        streamed,
    })
}

/// The translation files of the monolingual project file `rel` that `editions` wants: its
/// collection item's `target` template, per language (language, project-relative path).
fn target_paths(
    collections: &Collections,
    rel: &str,
    editions: &Editions,
) -> Vec<(String, String)> {
    if *editions == Editions::Source {
        return Vec::new();
    }
    collections.matches(rel).map_or_else(Vec::new, |item| {
        item.target_paths(rel)
            .into_iter()
            .filter(|(lang, _)| editions.wants(lang))
            .collect()
    })
}

/// What a read held of a file's blocks, and where they sit in it.
struct Held {
    read: FileRead,
    parsed: Parsed,
    /// How many blocks the file holds.
    total: usize,
    /// The index in the file of `parsed`'s first block.
    first: usize,
    /// Under [`Hold::Keys`], the index in the file of each block held.
    picked: Option<Vec<usize>>,
}

/// Reads `abs` with `format`, holding the blocks `hold` names, each passed through `wanted`
/// (which drops the target editions a load does not want).
fn read_held(
    abs: &Path,
    doc: &str,
    format: &dyn Format,
    hold: Hold<'_>,
    wanted: &dyn Fn(&mut Block),
) -> Result<Held, HostError> {
    Ok(match hold {
        Hold::All => {
            let (read, mut parsed) = parse(abs, doc, format)?;
            parsed.document.blocks.iter_mut().for_each(wanted);
            let total = parsed.document.blocks.len();
            Held {
                read,
                parsed,
                total,
                first: 0,
                picked: None,
            }
        }
        Hold::Keys(keys) => {
            let (read, mut picked) = parse_picked(abs, doc, format, keys)?;
            picked.parsed.document.blocks.iter_mut().for_each(wanted);
            Held {
                read,
                parsed: picked.parsed,
                total: picked.total,
                first: 0,
                picked: Some(picked.indices),
            }
        }
        Hold::Window(window) => {
            let (mut kept, mut total) = (Vec::new(), 0);
            let (read, mut parsed) = parse_each(abs, doc, format, &mut |_, mut block, _| {
                if window.contains(&total) {
                    wanted(&mut block);
                    kept.push(block);
                }
                total += 1;
            })?;
            parsed.document.blocks = kept;
            Held {
                read,
                parsed,
                total,
                first: window.start,
                picked: None,
            }
        }
        Hold::Each(each) => {
            let mut total = 0;
            let (read, parsed) = parse_each(abs, doc, format, &mut |_, mut block, _| {
                wanted(&mut block);
                each(total, block);
                total += 1;
            })?;
            Held {
                read,
                parsed,
                total,
                first: total,
                picked: None,
            }
        }
    })
}

/// Reads each translation file in `target_paths` that exists (refusing one that leads out
/// of the project) with the source's `format`, and joins its blocks to `parsed`'s.
fn read_targets(
    project: &Project,
    target_paths: Vec<(String, String)>,
    format: &dyn Format,
    parsed: &mut Parsed,
) -> Result<Vec<TargetFile>, HostError> {
    let mut targets = Vec::new();
    for (lang, target_rel) in target_paths {
        let target = read_target(project, lang, target_rel, format)?;
        if let Some(parsed_target) = &target.parsed {
            join_target(parsed, &target.lang, parsed_target);
        }
        targets.push(target);
    }
    Ok(targets)
}

/// Reads the `lang` translation file at the project-relative `target_rel` with the source's
/// `format`, when it exists (refusing one that leads out of the project); not joined to its
/// source ([`join_target`] does that).
pub fn read_target(
    project: &Project,
    lang: String,
    target_rel: String,
    format: &dyn Format,
) -> Result<TargetFile, HostError> {
    let target_abs = normalize(&project.root.join(&target_rel));
    let doc = relative_to(&target_abs, &project.root).unwrap_or(target_rel);
    let (read, parsed) = if target_abs.is_file() {
        stay_inside(Path::new(&doc), &target_abs, &project.root)?;
        let (read, parsed) = parse(&target_abs, &doc, format)?;
        (Some(read), Some(parsed))
    } else {
        (None, None)
    };
    Ok(TargetFile {
        lang,
        abs: target_abs,
        doc,
        parsed,
        read,
    })
}

/// Copies each target file block's edition into its source block ([`kapi_core::model::align`]:
/// by key, or by position for a translated Markdown file with the same shape).
pub fn join_target(source: &mut Parsed, lang: &str, target: &Parsed) {
    let pairs = kapi_core::model::align(&source.document, &target.document);
    for (block, pair) in source.document.blocks.iter_mut().zip(pairs) {
        if let Some(t) = pair.and_then(|i| target.document.blocks.get(i)) {
            block.targets.insert(lang.to_owned(), t.source.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_holds_its_blocks_and_counts_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.md");
        std::fs::write(&path, "# A\n\nOne.\n\nTwo.\n\nThree.\n").unwrap();
        let format = formats::by_id("markdown").unwrap();
        let all = read_held(&path, "page.md", format, Hold::All, &|_| {}).unwrap();
        assert_eq!((all.total, all.first), (4, 0));
        assert_eq!(all.parsed.document.blocks.len(), 4);
        let window = 1..3;
        let held = read_held(&path, "page.md", format, Hold::Window(&window), &|_| {}).unwrap();
        assert_eq!((held.total, held.first), (4, 1));
        let keys: Vec<&str> = held
            .parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        let all_keys: Vec<&str> = all
            .parsed
            .document
            .blocks
            .iter()
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(keys, all_keys[1..3]);
        assert!(held.picked.is_none());
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        match read_bytes(&path, "big.txt") {
            Err(HostError::TooLarge { size, .. }) => assert_eq!(size, MAX_FILE_BYTES + 1),
            other => panic!("{other:?}"),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_project_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "x").unwrap();
        let link = root.path().join("link.md");
        std::os::unix::fs::symlink(outside.path().join("secret.md"), &link).unwrap();
        assert!(matches!(
            stay_inside(Path::new("link.md"), &link, root.path()),
            Err(HostError::LeavesProject { .. })
        ));
        std::fs::write(root.path().join("in.md"), "x").unwrap();
        assert!(stay_inside(Path::new("in.md"), &root.path().join("in.md"), root.path()).is_ok());
    }
}
