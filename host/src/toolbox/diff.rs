//! `kapi diff` (`kdiff`): two files, or a file and its version at a git revision, compared
//! block by block by their readable prose (`kapi.diff/v1`): each block added, removed or
//! whose text changed, named by its key.
//!
//! Blocks are lined up by their text (a longest common subsequence, `similar`'s Myers), so
//! a paragraph inserted near the top does not make every later block "changed" though its
//! positional key (`s3/p#2`) moved; within a run of unequal blocks they pair as `pairs`
//! says (a catalog's blocks by key; a document's by the words they share, in the same
//! place); what is
//! left is added or removed. A block whose key alone changed is not a difference. Each file
//! is read with its own format; only prose blocks count.

use std::path::PathBuf;

use kapi_core::formats::Format;
use kapi_core::model::Block;
use kapi_core::readable::Readable;
use kapi_core::text::LineIndex;
use serde::Serialize;
use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

use crate::app::App;
use crate::error::HostError;

/// What to compare.
#[derive(Debug, Clone)]
pub enum DiffRequest {
    /// Two files.
    Files(PathBuf, PathBuf),
    /// A file against its bytes at a git revision.
    Rev(String, PathBuf),
}

/// `kapi.diff/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Diff {
    pub schema: &'static str,
    /// The old side: a document, or `REV:doc`.
    pub a: String,
    pub b: String,
    pub format: &'static str,
    pub changes: Vec<Change>,
    /// Prose blocks equal on both sides.
    pub same: usize,
}

/// One block that differs.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Change {
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    /// Its key: on the new side, or the old side's for a removed block.
    pub block: String,
    /// Its key on the old side, when it differs from `block`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<String>,
    /// 1-based lines on each side, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_a: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_b: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// One side: its prose blocks, their text and lines.
struct Side {
    name: String,
    format: &'static dyn Format,
    blocks: Vec<(Block, String, Option<usize>)>,
}

fn side(
    name: String,
    format: &'static dyn Format,
    bytes: Vec<u8>,
    shown: &str,
) -> Result<Side, HostError> {
    let parsed = format.read_owned(bytes).map_err(|source| HostError::Read {
        path: PathBuf::from(shown),
        source,
    })?;
    let text = &parsed.skeleton.original;
    let lines = LineIndex::new(text);
    let whole = parsed.container.is_none();
    let blocks = parsed
        .document
        .blocks
        .into_iter()
        .filter(super::prose)
        .map(|b| {
            let known = whole && (b.span.start > 0 || b.span.end > 0) && b.span.start <= text.len();
            let line = known.then(|| lines.line(b.span.start));
            let prose = Readable::of(&b.source).display();
            (b, prose, line)
        })
        .collect();
    Ok(Side {
        name,
        format,
        blocks,
    })
}

/// Reads a named file for a side: its format, its bytes.
fn named(app: &App, path: &PathBuf) -> Result<(String, &'static dyn Format, PathBuf), HostError> {
    let project = app.project()?;
    let file = super::files(
        app,
        project.as_ref(),
        std::slice::from_ref(path),
        false,
        "compare",
    )?
    .into_iter()
    .next()
    .ok_or_else(|| crate::document::unknown_format(path, &app.absolute(path)))?;
    Ok((file.doc, file.format, file.abs))
}

/// Compares the two sides `request` names.
pub fn diff(app: &App, request: &DiffRequest) -> Result<Diff, HostError> {
    let (a, b) = match request {
        DiffRequest::Files(a, b) => {
            let (a_doc, a_format, a_abs) = named(app, a)?;
            let (b_doc, b_format, b_abs) = named(app, b)?;
            let a_bytes = crate::document::read_bytes(&a_abs, &a_doc)?;
            let b_bytes = crate::document::read_bytes(&b_abs, &b_doc)?;
            (
                side(a_doc.clone(), a_format, a_bytes, &a_doc)?,
                side(b_doc.clone(), b_format, b_bytes, &b_doc)?,
            )
        }
        DiffRequest::Rev(rev, path) => {
            let (doc, format, abs) = named(app, path)?;
            let old_name = format!("{rev}:{doc}");
            let now = crate::document::read_bytes(&abs, &doc)?;
            let old = match crate::check::diff::blob_at(&app.cwd, rev, &abs)? {
                Some(bytes) => side(old_name.clone(), format, bytes, &old_name)?,
                // Not in the revision: every block is added.
                None => Side {
                    name: old_name,
                    format,
                    blocks: Vec::new(),
                },
            };
            (old, side(doc.clone(), format, now, &doc)?)
        }
    };
    Ok(compare(&a, &b))
}

fn compare(a: &Side, b: &Side) -> Diff {
    let old: Vec<&str> = a.blocks.iter().map(|(_, t, _)| t.as_str()).collect();
    let new: Vec<&str> = b.blocks.iter().map(|(_, t, _)| t.as_str()).collect();
    let mut changes = Vec::new();
    let mut same = 0;
    let (mut dels, mut ins): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    // Myers' diff gives up on its best answer past the deadline (a huge file of changes).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    for op in capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline)) {
        match op {
            DiffOp::Equal { len, .. } => {
                hunk(a, b, &mut dels, &mut ins, &mut changes);
                same += len;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => dels.extend(old_index..old_index + old_len),
            DiffOp::Insert {
                new_index, new_len, ..
            } => ins.extend(new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                dels.extend(old_index..old_index + old_len);
                ins.extend(new_index..new_index + new_len);
            }
        }
    }
    hunk(a, b, &mut dels, &mut ins, &mut changes);
    Diff {
        schema: "kapi.diff/v1",
        a: a.name.clone(),
        b: b.name.clone(),
        format: b.format.info().id,
        changes,
        same,
    }
}

/// Whether two blocks of different keys may be one block moved: the same role, and the same
/// key once a positional `#N` is set aside (Markdown's `s1/p` and `s1/p#2`); a catalog's
/// `bye` and `new` are two messages.
fn same_place(a: &Block, b: &Block) -> bool {
    let base = |key: &str| {
        key.rsplit_once('#')
            .filter(|(_, n)| n.bytes().all(|c| c.is_ascii_digit()))
            .map_or(key, |(base, _)| base)
            .to_owned()
    };
    a.role == b.role && base(&a.key) == base(&b.key)
}

/// Formats whose keys name their blocks (a catalog's message ids): a block pairs only with
/// the block of the same key. Elsewhere keys say where a block stands (`s1/p#2`).
const NAMED_KEYS: &[&str] = &[
    "json",
    "yaml",
    "properties",
    "android",
    "po",
    "xliff",
    "xliff2",
];

/// How alike two texts are, from 0 to 1: the share of their words they have in common (a
/// count, so a pair costs the two texts' length, not their product).
fn likeness(a: &str, b: &str) -> f32 {
    let mut words: std::collections::HashMap<&str, isize> = std::collections::HashMap::new();
    let mut total = 0usize;
    for w in a.split_whitespace() {
        *words.entry(w).or_default() += 1;
        total += 1;
    }
    let mut common = 0usize;
    for w in b.split_whitespace() {
        total += 1;
        if let Some(n) = words.get_mut(w)
            && *n > 0
        {
            *n -= 1;
            common += 1;
        }
    }
    if total == 0 {
        return 1.0;
    }
    (2 * common) as f32 / total as f32
}

/// The most (removed, inserted) pairs a run of unequal blocks compares by likeness; a
/// larger run pairs in order only.
const MAX_COMPARED: usize = 10_000;

/// Which removed block (index into `dels`) each inserted one pairs with, and which removed
/// ones are taken. Named keys pair by key alone. Positional keys pair by likeness (the most
/// alike first, at least half alike) among blocks in the same place ([`same_place`]); then,
/// when as many removed as inserted blocks are left, they pair in order (a paragraph
/// rewritten where it stood).
fn pairs(a: &Side, b: &Side, dels: &[usize], ins: &[usize]) -> (Vec<Option<usize>>, Vec<bool>) {
    let mut pair: Vec<Option<usize>> = vec![None; ins.len()];
    let mut taken = vec![false; dels.len()];
    let named =
        NAMED_KEYS.contains(&a.format.info().id) && NAMED_KEYS.contains(&b.format.info().id);
    let mut candidates: Vec<(f32, usize, usize)> = Vec::new();
    let compare = named || dels.len().saturating_mul(ins.len()) <= MAX_COMPARED;
    for (p, &n) in ins.iter().enumerate().filter(|_| compare) {
        for (k, &o) in dels.iter().enumerate() {
            let (old, new) = (&a.blocks[o], &b.blocks[n]);
            if named {
                if old.0.key == new.0.key {
                    candidates.push((1.0, p, k));
                }
            } else if same_place(&old.0, &new.0) {
                let alike = likeness(&old.1, &new.1);
                if alike >= 0.5 {
                    candidates.push((alike, p, k));
                }
            }
        }
    }
    candidates.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    for (_, p, k) in candidates {
        if pair[p].is_none() && !taken[k] {
            pair[p] = Some(k);
            taken[k] = true;
        }
    }
    let left_ins: Vec<usize> = (0..ins.len()).filter(|&p| pair[p].is_none()).collect();
    let left_dels: Vec<usize> = (0..dels.len()).filter(|&k| !taken[k]).collect();
    if !named && left_ins.len() == left_dels.len() {
        for (&p, &k) in left_ins.iter().zip(&left_dels) {
            if same_place(&a.blocks[dels[k]].0, &b.blocks[ins[p]].0) {
                pair[p] = Some(k);
                taken[k] = true;
            }
        }
    }
    (pair, taken)
}

/// One run of unequal blocks: pairs by key, then by place ([`same_place`]) in order; the rest added or
/// removed, in the new side's order with each removed block where it stood.
fn hunk(a: &Side, b: &Side, dels: &mut Vec<usize>, ins: &mut Vec<usize>, out: &mut Vec<Change>) {
    let (pair, taken) = pairs(a, b, dels, ins);
    let removed = |o: usize| {
        let (block, text, line) = &a.blocks[o];
        Change {
            change: "removed",
            block: block.key.clone(),
            was: None,
            line_a: *line,
            line_b: None,
            old: Some(text.clone()),
            new: None,
        }
    };
    let mut next_del = 0;
    for (p, &n) in ins.iter().enumerate() {
        let (block, text, line) = &b.blocks[n];
        if let Some(d) = pair[p] {
            while next_del < d {
                if !taken[next_del] {
                    out.push(removed(dels[next_del]));
                }
                next_del += 1;
            }
            let (old_block, old_text, old_line) = &a.blocks[dels[d]];
            out.push(Change {
                change: "changed",
                block: block.key.clone(),
                was: (old_block.key != block.key).then(|| old_block.key.clone()),
                line_a: *old_line,
                line_b: *line,
                old: Some(old_text.clone()),
                new: Some(text.clone()),
            });
        } else {
            out.push(Change {
                change: "added",
                block: block.key.clone(),
                was: None,
                line_a: None,
                line_b: *line,
                old: None,
                new: Some(text.clone()),
            });
        }
    }
    for (k, &o) in dels.iter().enumerate() {
        if !taken[k] && k >= next_del {
            out.push(removed(o));
        }
    }
    dels.clear();
    ins.clear();
}
