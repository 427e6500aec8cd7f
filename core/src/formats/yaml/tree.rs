//! The tree the YAML scanner reads: scalars as written (style, span, block header),
//! mappings and sequences, and the helpers that read keys and slices of the text.

use std::borrow::Cow;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A scalar as written: what the writer needs to render an edit in the same style.
#[derive(Debug, Clone)]
pub(super) struct Scalar<'a> {
    pub(super) style: Style,
    pub(super) value: Cow<'a, str>,
    /// The bytes of the scalar: quotes and block header included (the hole).
    pub(super) span: Range<usize>,
    /// Where `value` starts in the file when it is a verbatim slice of it.
    pub(super) verbatim: Option<usize>,
    /// The tag written before it (`!!str`), if any.
    pub(super) tag: Option<&'a str>,
    /// Inside a flow collection.
    pub(super) flow: bool,
    /// For `|` and `>` scalars.
    pub(super) block: Option<Box<BlockInfo>>,
}

#[derive(Debug, Clone)]
pub(super) struct BlockInfo {
    /// Indentation of the collection holding the scalar (-1 at the top level).
    pub(super) parent: isize,
    /// Indentation of the content lines.
    pub(super) indent: usize,
    pub(super) chomp: Chomp,
    /// The header has an indentation indicator.
    pub(super) explicit: bool,
    /// After the indicators up to the end of the header line: spaces and a comment.
    pub(super) tail: Range<usize>,
    /// Blank lines follow the last content line (they stay in the skeleton).
    pub(super) trailing_empty: bool,
    /// The hole reaches the end of the file with no line break after it.
    pub(super) eof: bool,
}

#[derive(Debug)]
pub(super) enum Node<'a> {
    Scalar(Scalar<'a>),
    Alias(Range<usize>),
    /// An empty value, at this offset.
    Null(usize),
    Map(Vec<Entry<'a>>, Range<usize>),
    Seq(Vec<Node<'a>>, Range<usize>),
}

#[derive(Debug)]
pub(super) struct Entry<'a> {
    pub(super) key: Cow<'a, str>,
    pub(super) key_start: usize,
    pub(super) notes: Vec<String>,
    pub(super) value: Node<'a>,
}

impl<'a> Node<'a> {
    pub(super) fn end(&self) -> usize {
        match self {
            Node::Scalar(s) => s.span.end,
            Node::Alias(r) | Node::Map(_, r) | Node::Seq(_, r) => r.end,
            Node::Null(at) => *at,
        }
    }

    pub(super) fn start(&self) -> usize {
        match self {
            Node::Scalar(s) => s.span.start,
            Node::Alias(r) | Node::Map(_, r) | Node::Seq(_, r) => r.start,
            Node::Null(at) => *at,
        }
    }

    pub(super) fn with_tag(mut self, tag: Option<&'a str>) -> Node<'a> {
        if let (Node::Scalar(s), Some(tag)) = (&mut self, tag)
            && s.tag.is_none()
        {
            s.tag = Some(tag);
        }
        self
    }
}

/// The text of a key: a scalar's value, else the key as written.
pub(super) fn key_text<'a>(node: Node<'a>, text: &'a str) -> Cow<'a, str> {
    match node {
        Node::Scalar(s) => s.value,
        Node::Null(_) => Cow::Borrowed(""),
        other => Cow::Borrowed(slice(text, other.start(), other.end()).trim()),
    }
}

pub(super) fn slice(text: &str, from: usize, to: usize) -> &str {
    text.get(from..to).unwrap_or_default()
}
