//! From the YAML tree to blocks: key paths, the Rails language root, plural maps as
//! switches, which scalars are strings, and one skeleton hole per string.

use std::fmt::Write as _;
use std::ops::Range;

use super::scanner::Parser;
use super::tree::{Entry, Node, Scalar, Style};
use super::{INFO, SYNTAXES};
use crate::formats::inline::placeholders::{self, Ids};
use crate::formats::output::Output;
use crate::formats::{KeyBudget, ReadError, Skeleton};
use crate::model::{Block, Branch, KeyDeduper, PLURAL_CATEGORIES, Role, Run, Switch, SwitchKind};
use crate::yaml_text::{is_symbol, resolves_to_non_string};

/// Reads `text` into `skeleton` (whose text is `text`), or hands each block to `each`.
pub(super) fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<crate::formats::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let mut parser = Parser::over(text)?;
    let docs = parser.stream()?;
    // A document that is one scalar is not inside a collection.
    let scalars = parser.scalars + docs.iter().filter(|d| matches!(d, Node::Scalar(_))).count();
    let mut out = Output::new(INFO.id, skeleton, each);
    out.reserve(scalars);
    let mut builder = Builder {
        out,
        text,
        // Paths are unique within one document whose mappings repeat no key, so the
        // deduper (a hash and a copy per key) is only needed otherwise.
        keys: (docs.len() > 1 || parser.repeats).then(KeyDeduper::default),
        path: String::new(),
        budget: KeyBudget::new(text.len()),
        over_budget: None,
    };
    for doc in &docs {
        builder.root(doc);
        if let Some(at) = builder.over_budget {
            return Err(builder.budget.refusal(text, at));
        }
    }
    Ok(builder.out)
}

pub(super) struct Builder<'t, 'e> {
    pub(super) out: Output<'e>,
    /// The text the blocks' offsets index.
    pub(super) text: &'t str,
    pub(super) keys: Option<KeyDeduper>,
    pub(super) path: String,
    pub(super) budget: KeyBudget,
    /// Where the keys first went past the budget; no block is made after it.
    pub(super) over_budget: Option<usize>,
}

impl Builder<'_, '_> {
    pub(super) fn root(&mut self, node: &Node) {
        self.path.clear();
        if let Node::Map(entries, _) = node
            && let [entry] = entries.as_slice()
            && matches!(entry.value, Node::Map(..))
            && !is_plural_map(&entry.value)
            && is_language_tag(&entry.key)
        {
            self.walk(&entry.value, 0, &entry.notes, None);
            return;
        }
        self.walk(node, 0, &[], None);
    }

    /// Blocks for `node` at `self.path` (`depth` segments deep).
    pub(super) fn walk(&mut self, node: &Node, depth: u32, notes: &[String], from: Option<usize>) {
        match node {
            Node::Scalar(scalar) if is_string(scalar) => {
                let mut ids = Ids::default();
                let runs = placeholders::split(&scalar.value, scalar.verbatim, SYNTAXES, &mut ids);
                let key = self.key(scalar.span.start);
                let mut block = Block::new(key, Role::Key, runs);
                block.level = depth.saturating_sub(1);
                block.span = from.unwrap_or(scalar.span.start)..scalar.span.end;
                block.notes = notes.to_vec();
                let index = self.out.index();
                self.out
                    .skeleton
                    .hole(scalar.span.clone(), index, &block.source);
                self.out.push(self.text, block);
            }
            Node::Map(entries, span) if is_plural_map(node) => {
                self.plural(entries, span, depth, notes, from);
            }
            Node::Map(entries, _) => {
                for entry in entries {
                    let len = self.path.len();
                    if !self.path.is_empty() {
                        self.path.push('.');
                    }
                    push_segment(&mut self.path, &entry.key);
                    self.walk(&entry.value, depth + 1, &entry.notes, Some(entry.key_start));
                    self.path.truncate(len);
                }
            }
            Node::Seq(items, _) => {
                for (index, item) in items.iter().enumerate() {
                    let len = self.path.len();
                    if !self.path.is_empty() {
                        self.path.push('.');
                    }
                    // Writing to a String cannot fail.
                    let _ = write!(self.path, "{index}");
                    self.walk(item, depth + 1, &[], None);
                    self.path.truncate(len);
                }
            }
            Node::Scalar(_) | Node::Alias(_) | Node::Null(_) => {}
        }
    }

    /// The key of the block at `at`, charged to the budget.
    pub(super) fn key(&mut self, at: usize) -> String {
        if self.over_budget.is_none() && !self.budget.take(self.path.len()) {
            self.over_budget = Some(at);
        }
        if self.over_budget.is_some() {
            return String::new();
        }
        let base = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        match &mut self.keys {
            Some(keys) => keys.key(base),
            None => base.to_owned(),
        }
    }

    /// One block whose source is a plural switch, one hole per branch.
    pub(super) fn plural(
        &mut self,
        entries: &[Entry],
        span: &Range<usize>,
        depth: u32,
        notes: &[String],
        from: Option<usize>,
    ) {
        let index = self.out.index();
        let mut branches = Vec::with_capacity(entries.len());
        let mut spans = Vec::with_capacity(entries.len());
        for entry in entries {
            if let Node::Scalar(scalar) = &entry.value {
                let mut ids = Ids::default();
                let runs = placeholders::split(&scalar.value, scalar.verbatim, SYNTAXES, &mut ids);
                spans.push(scalar.span.clone());
                branches.push(Branch::new(entry.key.clone(), runs));
            }
        }
        let mut path = String::from("count:");
        for (span, branch) in spans.into_iter().zip(&branches) {
            path.truncate("count:".len());
            path.push_str(&branch.case);
            self.out
                .skeleton
                .push(span, index, None, Some(&path), &branch.runs);
        }
        let switch = Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches,
            head: String::new(),
            tail: String::new(),
            src: entries.first().map(|e| e.key_start),
            forms: None,
        };
        let key = self.key(span.start);
        let mut block = Block::new(key, Role::Key, vec![Run::Switch(Box::new(switch))]);
        block.level = depth.saturating_sub(1);
        block.span = from.unwrap_or(span.start)..span.end;
        block.notes = notes.to_vec();
        self.out.push(self.text, block);
    }
}

/// Appends a key segment, escaping `.`, `#` and `\` with a backslash.
pub(super) fn push_segment(path: &mut String, key: &str) {
    for c in key.chars() {
        if matches!(c, '.' | '#' | '\\') {
            path.push('\\');
        }
        path.push(c);
    }
}

/// Whether a mapping is a Rails plural map: CLDR category keys with `other`, strings
/// under each.
pub(super) fn is_plural_map(node: &Node) -> bool {
    let Node::Map(entries, _) = node else {
        return false;
    };
    entries.iter().any(|e| e.key == "other")
        && entries.iter().all(|e| {
            PLURAL_CATEGORIES.contains(&&*e.key)
                && matches!(&e.value, Node::Scalar(s) if is_string(s))
        })
        && (1..entries.len()).all(|i| entries[..i].iter().all(|e| e.key != entries[i].key))
}

/// Whether a scalar is a string: quoted, block, `!!str`, or plain and not null, a
/// boolean, a number, a date or a Ruby symbol.
pub(super) fn is_string(scalar: &Scalar) -> bool {
    match scalar.tag {
        Some("!!str" | "!" | "!<tag:yaml.org,2002:str>" | "tag:yaml.org,2002:str") => true,
        Some(_) => false,
        None => {
            scalar.style != Style::Plain
                || !(resolves_to_non_string(&scalar.value) || is_symbol(&scalar.value))
        }
    }
}

/// ISO 639-1 codes, and the three-letter codes Rails locales use.
pub(super) const LANGUAGES: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce \
    ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv \
    ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr \
    ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn \
    no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so \
    sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh \
    yi yo za zh zu ast bal ceb chr ckb dsb fil fur gsw haw hsb kab kok lij mai mni nds nso sah \
    sat scn sco szl tzm yue zgh";

/// A BCP 47 style language tag: a known language, then region, script or variant
/// subtags after `-` or `_` (`pt-BR`, `zh_CN`, `sr-Latn`, `es-419`).
pub(super) fn is_language_tag(s: &str) -> bool {
    let mut parts = s.split(['-', '_']);
    let Some(language) = parts.next() else {
        return false;
    };
    if !(2..=3).contains(&language.len())
        || !language.bytes().all(|b| b.is_ascii_lowercase())
        || !LANGUAGES.split_ascii_whitespace().any(|l| l == language)
    {
        return false;
    }
    parts.all(|part| {
        let alpha = part.bytes().all(|b| b.is_ascii_alphabetic());
        let digits = part.bytes().all(|b| b.is_ascii_digit());
        (part.len() == 2 && alpha)
            || (part.len() == 3 && digits)
            || (part.len() == 4 && alpha)
            || ((5..=8).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_alphanumeric()))
    })
}
