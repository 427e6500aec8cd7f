//! The content model every format reads into: a document of blocks, each with a stable key,
//! a role, a nesting level and editions made of runs (text and inline codes).
//!
//! Text runs remember the byte offset in the file they were read from, so a finding on a
//! block's prose maps back to a file position without re-reading the file.
//!
//! Plurals and selects are [`Switch`] runs: a pivot (`count`) and branches by case (CLDR
//! category `one`, `other`, an exact `=0`, or a select value), addressed by a branch path
//! `pivot:case`, nested with `/` (`count:one/gender:female`). A format that stores each form
//! apart (Android `<plurals>`, PO `msgstr[N]`) reads one block whose edition is one switch.

use std::collections::BTreeMap;

mod targets;
pub use targets::Targets;

use serde::Serialize;
use sha2::{Digest, Sha256};

/// What a block is in its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Paragraph,
    Heading,
    ListItem,
    TableCell,
    Quote,
    Code,
    Html,
    /// A front-matter field or a catalog entry: prose under a key.
    Key,
    Other,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Paragraph => "paragraph",
            Role::Heading => "heading",
            Role::ListItem => "list-item",
            Role::TableCell => "table-cell",
            Role::Quote => "quote",
            Role::Code => "code",
            Role::Html => "html",
            Role::Key => "key",
            Role::Other => "other",
        }
    }
}

/// How an inline code sits in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeKind {
    /// Opens a pair (`**`, `[`, `<b>`).
    Open,
    /// Closes the pair opened by the code with the same id.
    Close,
    /// Stands alone (inline code, a placeholder, an image, a line break with its indent).
    Standalone,
}

/// An inline code: markup or a placeholder that an edit must keep as it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Code {
    /// Pairs an open code with its close code; unique within the edition.
    pub id: String,
    pub kind: CodeKind,
    /// What the code is, in the format's words (`emphasis`, `link`, `code`, `placeholder`…).
    pub class: String,
    /// The native bytes of the code, exactly as written in the file.
    pub data: String,
    /// Whether an edit may drop the code (formatting) or must keep it (a placeholder).
    pub deletable: bool,
    /// Attributes an edit may change (a link's `href`, an image's `alt`), by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// Byte offset of `data` in the file it was read from, when it was read from one.
    #[serde(skip)]
    pub src: Option<usize>,
}

impl Code {
    /// A code with no attributes and no source offset.
    pub fn new(
        id: impl Into<String>,
        kind: CodeKind,
        class: impl Into<String>,
        data: impl Into<String>,
        deletable: bool,
    ) -> Self {
        Self {
            id: id.into(),
            kind,
            class: class.into(),
            data: data.into(),
            deletable,
            attrs: BTreeMap::new(),
            src: None,
        }
    }

    /// The same code, read at byte `src` of the file.
    pub fn at(mut self, src: usize) -> Self {
        self.src = Some(src);
        self
    }
}

/// Whether a [`Switch`] chooses by number or by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SwitchKind {
    /// CLDR plural categories (`zero one two few many other`) and exact `=N` cases.
    Plural,
    /// Ordinal plural categories (ICU `selectordinal`).
    Ordinal,
    /// Free values (`male`, `female`, `other`).
    Select,
}

impl SwitchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SwitchKind::Plural => "plural",
            SwitchKind::Ordinal => "selectordinal",
            SwitchKind::Select => "select",
        }
    }
}

/// The CLDR plural categories in their canonical order.
pub const PLURAL_CATEGORIES: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// One case of a [`Switch`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Branch {
    /// `one`, `other`, `=0`, `female`…
    pub case: String,
    pub runs: Vec<Run>,
    /// Native bytes before the branch's runs (` one {` in ICU), replayed by a writer of the
    /// same format; empty for formats that store each form apart.
    #[serde(skip)]
    pub open: String,
    /// Native bytes after the branch's runs (`}` in ICU).
    #[serde(skip)]
    pub close: String,
}

impl Branch {
    pub fn new(case: impl Into<String>, runs: Vec<Run>) -> Self {
        Self {
            case: case.into(),
            runs,
            open: String::new(),
            close: String::new(),
        }
    }
}

/// A plural or select: text that varies with a value, one branch per case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Switch {
    /// Shares the id sequence of the edition's codes; shown to agents as `<x id="N/"/>`.
    pub id: String,
    pub kind: SwitchKind,
    /// The variable the switch reads (`count`, `gender`; `n` for gettext, `quantity` for
    /// Android).
    pub pivot: String,
    pub branches: Vec<Branch>,
    /// Native bytes before the first branch (`{count, plural, `), for a same-format writer.
    #[serde(skip)]
    pub head: String,
    /// Native bytes after the last branch (`}`).
    #[serde(skip)]
    pub tail: String,
    /// Byte offset of `head` in the file, when read from one.
    #[serde(skip)]
    pub src: Option<usize>,
    /// The forms the file itself says a plural target holds (PO's `Plural-Forms`), shared by
    /// the file's switches; `None` where the target language's CLDR categories decide.
    /// Not content: no part of the rev.
    #[serde(skip)]
    pub forms: Option<std::sync::Arc<Forms>>,
}

/// What a file says its plural targets hold ([`Switch::forms`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Forms {
    /// The case of each form the file asks for, in order (`msgstr[0]` first).
    pub cases: Vec<String>,
    /// Why the file's rule of forms is unsound, and the file offset where it is written.
    pub fault: Option<(String, usize)>,
    /// What sets the forms, for the words a finding uses.
    pub origin: FormsOrigin,
}

/// What sets a file's plural forms ([`Forms::origin`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FormsOrigin {
    /// A PO header's `Plural-Forms: nplurals=N`, each form a `msgstr[i]`.
    #[default]
    PluralForms,
    /// Qt Linguist's rule for the `.ts` file's language, each form a `<numerusform>`.
    QtNumerus,
}

impl Switch {
    pub fn branch(&self, case: &str) -> Option<&Branch> {
        self.branches.iter().find(|b| b.case == case)
    }
}

/// One piece of an edition's content.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Run {
    /// Prose. `src` is the file byte offset where `text` starts when `text` is a verbatim
    /// slice of the file (no escapes undone); `None` when the text was decoded.
    Text {
        text: String,
        #[serde(skip)]
        src: Option<usize>,
    },
    /// Boxed, so a run list of mostly text stays small (a text run is 48 bytes, not 144).
    Code(Box<Code>),
    Switch(Box<Switch>),
}

impl From<Code> for Run {
    fn from(code: Code) -> Self {
        Run::Code(Box::new(code))
    }
}

impl From<Switch> for Run {
    fn from(switch: Switch) -> Self {
        Run::Switch(Box::new(switch))
    }
}

impl Run {
    pub fn text(text: impl Into<String>) -> Self {
        Run::Text {
            text: text.into(),
            src: None,
        }
    }
    pub fn text_at(text: impl Into<String>, src: usize) -> Self {
        Run::Text {
            text: text.into(),
            src: Some(src),
        }
    }
}

/// One language's content of a block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Edition {
    pub runs: Vec<Run>,
    /// The state a bilingual file records for a target (`translated`, `needs-review-…`,
    /// gettext `fuzzy`); `None` when the format has none. Part of the rev.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Box<str>>,
}

impl Edition {
    pub fn new(runs: Vec<Run>) -> Self {
        Self { runs, state: None }
    }

    /// The edition's codes, switches and branches, however deep: what
    /// [`crate::formats::MAX_CODES`] bounds.
    pub fn code_count(&self) -> usize {
        code_count(&self.runs)
    }

    /// The prose alone, codes dropped: what a person reads. A switch contributes its
    /// `other` branch (else its first).
    pub fn plain_text(&self) -> String {
        let mut out = String::new();
        plain_into(&self.runs, &mut out);
        out
    }

    /// The runs of the branch at `path` (`count:one`, `count:other/gender:male`); the whole
    /// edition for an empty path.
    pub fn branch(&self, path: &str) -> Option<&[Run]> {
        branch_runs(&self.runs, path)
    }

    /// Mutable runs of the branch at `path`.
    pub fn branch_mut(&mut self, path: &str) -> Option<&mut Vec<Run>> {
        branch_runs_mut(&mut self.runs, path)
    }

    /// Every leaf branch, as `(path, runs)`, in reading order; empty when the edition has no
    /// switch.
    pub fn leaves(&self) -> Vec<(String, &[Run])> {
        let mut out = Vec::new();
        leaves_into(&self.runs, "", &mut out);
        out
    }

    /// A fast 64-bit hash of the canonical content (what [`Edition::rev`] covers; source
    /// offsets ignored): tells an edited edition from the one read, in memory only.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::Hasher;
        let mut hasher = rustc_hash::FxHasher::default();
        hash_runs(&self.runs, &mut HashSink(&mut hasher));
        if let Some(state) = &self.state {
            HashSink(&mut hasher).part(b"S", state.as_bytes());
        }
        hasher.finish()
    }

    /// `r` + 16 hex of SHA-256 over the canonical content: text, codes with their data and
    /// attributes, every branch of every switch, and the state.
    pub fn rev(&self) -> String {
        let mut hasher = Sha256::new();
        hash_runs(&self.runs, &mut hasher);
        if let Some(state) = &self.state {
            hasher.part(b"S", state.as_bytes());
        }
        rev_of(hasher)
    }
}

/// [`Edition::fingerprint`] of a bare run list (a branch, a hole's content).
pub fn fingerprint_runs(runs: &[Run]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hash_runs(runs, &mut HashSink(&mut hasher));
    hasher.finish()
}

/// [`Edition::rev`] of a bare run list (one branch).
pub fn rev_runs(runs: &[Run]) -> String {
    let mut hasher = Sha256::new();
    hash_runs(runs, &mut hasher);
    rev_of(hasher)
}

fn rev_of(hasher: Sha256) -> String {
    let digest = hasher.finalize();
    let mut rev = String::with_capacity(17);
    rev.push('r');
    for byte in &digest[..8] {
        rev.push_str(&format!("{byte:02x}"));
    }
    rev
}

/// Where canonical content is hashed: SHA-256 for revs, FxHash (fast, in memory only) for
/// fingerprints.
trait Sink {
    fn bytes(&mut self, bytes: &[u8]);
    /// A tagged, length-prefixed part, so no two contents hash the same bytes.
    fn part(&mut self, tag: &[u8], bytes: &[u8]) {
        self.bytes(tag);
        self.bytes(&(bytes.len() as u64).to_le_bytes());
        self.bytes(bytes);
    }
    /// [`Sink::part`] of `pieces` joined (`len` bytes in all), without joining them.
    fn part_pieces<'p>(&mut self, tag: &[u8], len: usize, pieces: impl Iterator<Item = &'p str>) {
        self.bytes(tag);
        self.bytes(&(len as u64).to_le_bytes());
        for piece in pieces {
            self.bytes(piece.as_bytes());
        }
    }
}

impl Sink for Sha256 {
    fn bytes(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

struct HashSink<'a>(&'a mut rustc_hash::FxHasher);

impl Sink for HashSink<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(self.0, bytes);
    }
    /// Tag and length as one word, then the bytes: a third of the hasher calls of the
    /// default (fingerprints stay in memory; revs keep the SHA-256 layout).
    /// The bytes go in blocks of [`HASH_BLOCK`], so the same bytes hash the same however
    /// they are cut into pieces ([`Sink::part_pieces`]).
    #[inline]
    fn part(&mut self, tag: &[u8], bytes: &[u8]) {
        let tag = tag.first().copied().unwrap_or(0);
        std::hash::Hasher::write_u64(self.0, ((bytes.len() as u64) << 8) | u64::from(tag));
        if bytes.len() <= HASH_BLOCK {
            // One block or none: what the loop below does, without it (most texts).
            if !bytes.is_empty() {
                std::hash::Hasher::write(self.0, bytes);
            }
            return;
        }
        for block in bytes.chunks(HASH_BLOCK) {
            std::hash::Hasher::write(self.0, block);
        }
    }
    fn part_pieces<'p>(&mut self, tag: &[u8], len: usize, pieces: impl Iterator<Item = &'p str>) {
        let tag = tag.first().copied().unwrap_or(0);
        std::hash::Hasher::write_u64(self.0, ((len as u64) << 8) | u64::from(tag));
        let mut block = [0u8; HASH_BLOCK];
        let mut filled = 0;
        for piece in pieces {
            let mut rest = piece.as_bytes();
            while !rest.is_empty() {
                if filled == 0 && rest.len() >= HASH_BLOCK {
                    // Whole blocks straight from the piece.
                    let (whole, tail) = rest.split_at(HASH_BLOCK);
                    std::hash::Hasher::write(self.0, whole);
                    rest = tail;
                    continue;
                }
                let take = (HASH_BLOCK - filled).min(rest.len());
                let (head, tail) = rest.split_at(take);
                if let Some(to) = block.get_mut(filled..filled + take) {
                    to.copy_from_slice(head);
                }
                filled += take;
                rest = tail;
                if filled == HASH_BLOCK {
                    std::hash::Hasher::write(self.0, &block);
                    filled = 0;
                }
            }
        }
        if filled > 0 {
            std::hash::Hasher::write(self.0, block.get(..filled).unwrap_or_default());
        }
    }
}

/// The bytes a fingerprint hashes per call: a text's bytes hash the same whether it is one
/// run or several adjacent ones.
const HASH_BLOCK: usize = 256;

/// Hashes runs canonically: adjacent text runs hash as one and an empty one as nothing (a
/// reader may split text where a writer joins it: the content is the same), so an edit that
/// keeps the text keeps the rev.
fn hash_runs(runs: &[Run], sink: &mut impl Sink) {
    let mut i = 0;
    while i < runs.len() {
        if let Run::Text { text, .. } = &runs[i] {
            let mut end = i + 1;
            while matches!(runs.get(end), Some(Run::Text { .. })) {
                end += 1;
            }
            if end == i + 1 {
                // An empty text run is no content.
                if !text.is_empty() {
                    sink.part(b"T", text.as_bytes());
                }
            } else {
                // Hashed as one text, without joining the runs into a new string.
                let pieces = || {
                    runs[i..end].iter().filter_map(|run| match run {
                        Run::Text { text, .. } => Some(text.as_str()),
                        _ => None,
                    })
                };
                let len: usize = pieces().map(str::len).sum();
                if len > 0 {
                    sink.part_pieces(b"T", len, pieces());
                }
            }
            i = end;
            continue;
        }
        hash_run(&runs[i], sink);
        i += 1;
    }
}

fn hash_run(run: &Run, sink: &mut impl Sink) {
    {
        match run {
            Run::Text { text, .. } => sink.part(b"T", text.as_bytes()),
            Run::Code(code) => {
                sink.part(b"C", code.id.as_bytes());
                sink.part(b"c", code.class.as_bytes());
                sink.part(b"d", code.data.as_bytes());
                sink.bytes(&[code.kind as u8, u8::from(code.deletable)]);
                for (name, value) in &code.attrs {
                    sink.part(b"a", name.as_bytes());
                    sink.part(b"v", value.as_bytes());
                }
            }
            Run::Switch(switch) => {
                sink.part(b"W", switch.id.as_bytes());
                sink.part(b"k", switch.kind.as_str().as_bytes());
                sink.part(b"p", switch.pivot.as_bytes());
                sink.part(b"h", switch.head.as_bytes());
                sink.part(b"t", switch.tail.as_bytes());
                for branch in &switch.branches {
                    sink.part(b"B", branch.case.as_bytes());
                    sink.part(b"o", branch.open.as_bytes());
                    sink.part(b"e", branch.close.as_bytes());
                    hash_runs(&branch.runs, sink);
                    sink.bytes(b"E");
                }
                sink.bytes(b"w");
            }
        }
    }
}

/// The codes, switches and branches of `runs`, however deep ([`Edition::code_count`]).
pub fn code_count(runs: &[Run]) -> usize {
    runs.iter()
        .map(|run| match run {
            Run::Text { .. } => 0,
            Run::Code(_) => 1,
            Run::Switch(switch) => {
                1 + switch
                    .branches
                    .iter()
                    .map(|b| 1 + code_count(&b.runs))
                    .sum::<usize>()
            }
        })
        .sum()
}

/// Whether `runs` hold no code or switch and only whitespace: an untranslated target (a PO
/// `msgstr ""`, an empty `<target/>`).
pub fn plain_empty(runs: &[Run]) -> bool {
    runs.iter()
        .all(|r| matches!(r, Run::Text { text, .. } if text.trim().is_empty()))
}

fn plain_into(runs: &[Run], out: &mut String) {
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(_) => {}
            Run::Switch(switch) => {
                if let Some(branch) = switch.branch("other").or(switch.branches.first()) {
                    plain_into(&branch.runs, out);
                }
            }
        }
    }
}

/// Splits the first segment off a branch path: `count:one/gender:male` →
/// `(("count", "one"), "gender:male")`.
/// A branch path's first `pivot:case` and the rest (`count:one/gender:male`).
pub(crate) fn first_segment(path: &str) -> Option<((&str, &str), &str)> {
    let (head, rest) = path.split_once('/').unwrap_or((path, ""));
    let (pivot, case) = head.split_once(':')?;
    Some(((pivot, case), rest))
}

fn branch_runs<'a>(runs: &'a [Run], path: &str) -> Option<&'a [Run]> {
    if path.is_empty() {
        return Some(runs);
    }
    let ((pivot, case), rest) = first_segment(path)?;
    runs.iter().find_map(|run| match run {
        Run::Switch(s) if s.pivot == pivot => {
            branch_runs(&s.branches.iter().find(|b| b.case == case)?.runs, rest)
        }
        _ => None,
    })
}

fn branch_runs_mut<'a>(runs: &'a mut Vec<Run>, path: &str) -> Option<&'a mut Vec<Run>> {
    if path.is_empty() {
        return Some(runs);
    }
    let ((pivot, case), rest) = first_segment(path)?;
    let switch = runs.iter_mut().find_map(|run| match run {
        Run::Switch(s) if s.pivot == pivot && s.branches.iter().any(|b| b.case == case) => Some(s),
        _ => None,
    })?;
    let branch = switch.branches.iter_mut().find(|b| b.case == case)?;
    branch_runs_mut(&mut branch.runs, rest)
}

fn leaves_into<'a>(runs: &'a [Run], prefix: &str, out: &mut Vec<(String, &'a [Run])>) {
    for run in runs {
        if let Run::Switch(switch) = run {
            for branch in &switch.branches {
                let path = if prefix.is_empty() {
                    format!("{}:{}", switch.pivot, branch.case)
                } else {
                    format!("{prefix}/{}:{}", switch.pivot, branch.case)
                };
                let before = out.len();
                leaves_into(&branch.runs, &path, out);
                if out.len() == before {
                    out.push((path, &branch.runs));
                }
            }
        }
    }
}

/// The name of a block's source edition in a [`Ref`].
pub const SOURCE: &str = "source";

/// Where an edition (or one branch of it) lives: what a read hands out and an edit names.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Ref {
    /// Project-relative path, or the path as given outside a project.
    pub doc: String,
    pub block: String,
    /// `source` or a language tag.
    pub edition: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// A unit of content with a stable key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// Structural name or catalog key, unique in the document (`s3/p#2`, `errors.notFound`).
    /// Never derived from text an edit can change, so an edit keeps it.
    pub key: String,
    /// A readable name beside a structural key, when the format has one: Markdown's
    /// heading-slug name (`install/p#2`). Only for people and assistants to read; an edit
    /// names the block by `key`, and a label may change when the heading above is edited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Box<str>>,
    pub role: Role,
    /// Nesting depth: heading level, list depth; 0 at top level.
    pub level: u32,
    /// Whether the block is prose to check and translate (code blocks are not).
    pub translatable: bool,
    pub source: Edition,
    /// One edition per target language, keyed by language tag.
    pub targets: Targets,
    /// Notes the file keeps for translators (XLIFF `<note>`, PO `#.` comments).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the block takes no edit though the format is editable (`translatable="false"`),
    /// when the reader knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked: Option<Box<str>>,
    /// Byte range of the whole block in the file (for line reporting and `--diff-against`).
    #[serde(skip)]
    pub span: std::ops::Range<usize>,
}

impl Block {
    /// The edition named `source` or by a language tag.
    pub fn edition(&self, name: &str) -> Option<&Edition> {
        if name == SOURCE {
            Some(&self.source)
        } else {
            self.targets.get(name)
        }
    }

    pub fn edition_mut(&mut self, name: &str) -> Option<&mut Edition> {
        if name == SOURCE {
            Some(&mut self.source)
        } else {
            self.targets.get_mut(name)
        }
    }

    pub fn new(key: impl Into<String>, role: Role, runs: Vec<Run>) -> Self {
        Self {
            key: key.into(),
            label: None,
            role,
            level: 0,
            translatable: role != Role::Code,
            source: Edition::new(runs),
            targets: Targets::new(),
            notes: Vec::new(),
            locked: None,
            span: 0..0,
        }
    }
}

/// A file read by a format.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Document {
    /// The format id that read it (`markdown`).
    pub format: String,
    pub blocks: Vec<Block>,
}

impl Document {
    pub fn block(&self, key: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.key == key)
    }
    pub fn block_mut(&mut self, key: &str) -> Option<&mut Block> {
        self.blocks.iter_mut().find(|b| b.key == key)
    }
}

/// Pairs each block of a source document with its translation in `target`: by key (a
/// catalog's keys; Markdown's positional keys, `s3/p#2`, pair the n-th paragraph of the
/// n-th section), and by position when some key is missing from the other file but both
/// documents have the same blocks in the same roles and no catalog entry (role `key`) is
/// among the unpaired. Returns, per source block, the index
/// of its translation.
pub fn align(source: &Document, target: &Document) -> Vec<Option<usize>> {
    let by_key: std::collections::HashMap<&str, usize> = target
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.key.as_str(), i))
        .collect();
    let keyed: Vec<Option<usize>> = source
        .blocks
        .iter()
        .map(|b| by_key.get(b.key.as_str()).copied())
        .collect();
    let same_shape = source.blocks.len() == target.blocks.len()
        && source
            .blocks
            .iter()
            .zip(&target.blocks)
            .all(|(s, t)| s.role == t.role && s.level == t.level);
    // A catalog entry (role `key`) pairs by its key only: position would give a missing
    // key the translation of another one.
    let keyed_only = source
        .blocks
        .iter()
        .zip(&keyed)
        .any(|(b, pair)| pair.is_none() && b.role == Role::Key);
    if keyed.iter().all(Option::is_some) || !same_shape || keyed_only {
        return keyed;
    }
    (0..source.blocks.len()).map(Some).collect()
}

/// Makes keys unique in reading order: the second `s2/p` becomes `s2/p#2`.
#[derive(Debug, Default)]
pub struct KeyDeduper {
    seen: rustc_hash::FxHashMap<String, u32>,
}

impl KeyDeduper {
    pub fn key(&mut self, base: &str) -> String {
        if let Some(count) = self.seen.get_mut(base) {
            *count += 1;
            return format!("{base}#{count}");
        }
        self.seen.insert(base.to_owned(), 1);
        base.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rev_changes_with_text_and_with_code_data() {
        let a = Edition::new(vec![Run::text("Open "), Run::text("it")]);
        let b = Edition::new(vec![Run::text("Open "), Run::text("them")]);
        assert_ne!(a.rev(), b.rev());
        assert!(a.rev().starts_with('r') && a.rev().len() == 17);
        let code = |data: &str| {
            Run::Code(Box::new(Code {
                id: "1".into(),
                kind: CodeKind::Standalone,
                class: "code".into(),
                data: data.into(),
                deletable: false,
                attrs: Default::default(),
                src: None,
            }))
        };
        assert_ne!(
            Edition::new(vec![code("`a`")]).rev(),
            Edition::new(vec![code("`b`")]).rev()
        );
    }

    #[test]
    fn rev_ignores_source_offsets() {
        assert_eq!(
            Edition::new(vec![Run::text_at("x", 3)]).rev(),
            Edition::new(vec![Run::text_at("x", 9)]).rev()
        );
    }

    #[test]
    fn rev_and_fingerprint_ignore_how_text_is_split() {
        let split = Edition::new(vec![Run::text("> a"), Run::text(""), Run::text("b")]);
        let joined = Edition::new(vec![Run::text("> ab")]);
        assert_eq!(split.rev(), joined.rev());
        assert_eq!(split.fingerprint(), joined.fingerprint());
        assert_ne!(joined.rev(), Edition::new(vec![Run::text("> a b")]).rev());
        assert_eq!(
            Edition::new(vec![Run::text("")]).rev(),
            Edition::new(vec![]).rev()
        );
    }

    #[test]
    fn long_text_hashes_the_same_cut_anywhere() {
        let text = format!("{}yz", "x".repeat(300));
        let joined = Edition::new(vec![Run::text(text.clone())]);
        for cut in [1, 255, 256, 257, 301] {
            let (a, b) = text.split_at(cut);
            let split = Edition::new(vec![Run::text(a), Run::text(b)]);
            assert_eq!(split.fingerprint(), joined.fingerprint(), "{cut}");
            assert_eq!(split.rev(), joined.rev(), "{cut}");
        }
        let thirds = Edition::new(vec![
            Run::text(&text[..100]),
            Run::text(&text[100..200]),
            Run::text(&text[200..]),
        ]);
        assert_eq!(thirds.fingerprint(), joined.fingerprint());
        // SHA-256 over `T`, the length (u64 LE) and the bytes: the rev a store keeps.
        assert_eq!(joined.rev(), "r213d7e1aba06c233");
    }

    #[test]
    fn deduper_numbers_repeats_from_two() {
        let mut d = KeyDeduper::default();
        assert_eq!(d.key("s2/p"), "s2/p");
        assert_eq!(d.key("s2/p"), "s2/p#2");
        assert_eq!(d.key("s2/p"), "s2/p#3");
    }
}
