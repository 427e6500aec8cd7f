//! The content model every format reads into: a document of blocks, each with a stable key,
//! a role, a nesting level and editions made of runs (text and inline codes).
//!
//! Text runs remember the byte offset in the file they were read from, so a finding on a
//! block's prose maps back to a file position without re-reading the file.

use std::collections::BTreeMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

/// What a block is in its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
    /// Byte offset of `data` in the file it was read from, when it was read from one.
    #[serde(skip)]
    pub src: Option<usize>,
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
    Code(Code),
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
}

impl Edition {
    pub fn new(runs: Vec<Run>) -> Self {
        Self { runs }
    }

    /// The prose alone, codes dropped: what a person reads.
    pub fn plain_text(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            if let Run::Text { text, .. } = run {
                out.push_str(text);
            }
        }
        out
    }

    /// A fast 64-bit hash of the canonical content (what [`Edition::rev`] covers; source
    /// offsets ignored): tells an edited edition from the one read, in memory only.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for run in &self.runs {
            match run {
                Run::Text { text, .. } => {
                    0u8.hash(&mut hasher);
                    text.hash(&mut hasher);
                }
                Run::Code(code) => {
                    1u8.hash(&mut hasher);
                    (&code.id, &code.class, &code.data, code.kind, code.deletable)
                        .hash(&mut hasher);
                }
            }
        }
        hasher.finish()
    }

    /// `r` + 16 hex of SHA-256 over the canonical content: text, codes with their data.
    pub fn rev(&self) -> String {
        let mut hasher = Sha256::new();
        for run in &self.runs {
            match run {
                Run::Text { text, .. } => {
                    hasher.update(b"T");
                    hasher.update((text.len() as u64).to_le_bytes());
                    hasher.update(text.as_bytes());
                }
                Run::Code(code) => {
                    hasher.update(b"C");
                    for part in [code.id.as_str(), code.class.as_str(), code.data.as_str()] {
                        hasher.update((part.len() as u64).to_le_bytes());
                        hasher.update(part.as_bytes());
                    }
                    hasher.update([code.kind as u8, u8::from(code.deletable)]);
                }
            }
        }
        let digest = hasher.finalize();
        let mut rev = String::with_capacity(17);
        rev.push('r');
        for byte in &digest[..8] {
            rev.push_str(&format!("{byte:02x}"));
        }
        rev
    }
}

/// A unit of content with a stable key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// Structural name or catalog key, unique in the document (`install/p#2`).
    pub key: String,
    pub role: Role,
    /// Nesting depth: heading level, list depth; 0 at top level.
    pub level: u32,
    /// Whether the block is prose to check and translate (code blocks are not).
    pub translatable: bool,
    pub source: Edition,
    /// One edition per target language, keyed by language tag.
    pub targets: BTreeMap<String, Edition>,
    /// Byte range of the whole block in the file (for line reporting and `--diff-against`).
    #[serde(skip)]
    pub span: std::ops::Range<usize>,
}

impl Block {
    pub fn new(key: impl Into<String>, role: Role, runs: Vec<Run>) -> Self {
        Self {
            key: key.into(),
            role,
            level: 0,
            translatable: role != Role::Code,
            source: Edition::new(runs),
            targets: BTreeMap::new(),
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

/// Makes keys unique in reading order: the second `intro/p` becomes `intro/p#2`.
#[derive(Debug, Default)]
pub struct KeyDeduper {
    seen: std::collections::HashMap<String, u32>,
}

impl KeyDeduper {
    pub fn key(&mut self, base: &str) -> String {
        let count = self.seen.entry(base.to_owned()).or_insert(0);
        *count += 1;
        if *count == 1 {
            base.to_owned()
        } else {
            format!("{base}#{count}")
        }
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
            Run::Code(Code {
                id: "1".into(),
                kind: CodeKind::Standalone,
                class: "code".into(),
                data: data.into(),
                deletable: false,
                src: None,
            })
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
    fn deduper_numbers_repeats_from_two() {
        let mut d = KeyDeduper::default();
        assert_eq!(d.key("intro/p"), "intro/p");
        assert_eq!(d.key("intro/p"), "intro/p#2");
        assert_eq!(d.key("intro/p"), "intro/p#3");
    }
}
