//! The HTML lexer: tokens (text, character references, tags, comments, declarations) with
//! exact spans, lexed on demand so a streamed read holds only the segment in hand.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Text,
    /// A character reference: `&amp;`, `&#8217;`, `&#x2014;`.
    Entity,
    /// `<!-- … -->` and `<![CDATA[ … ]]>`.
    Comment,
    /// `<!DOCTYPE …>`, `<?…>`, bogus `<!…>` and `</…>` that are no end tag.
    Decl,
    Start,
    End,
    /// A raw-text element (`script`, `style`…): start tag, content and end tag in one.
    Raw,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) kind: Kind,
    pub(super) span: Range<usize>,
    /// The tag name, lowercased (start, end and raw tokens); empty otherwise.
    pub(super) name: TagName,
    /// Whether the name is a block element's ([`super::elements::is_block`], asked once).
    pub(super) block: bool,
    /// The token's attributes: a range of [`Lexer::attrs`].
    pub(super) attrs: Range<usize>,
    pub(super) self_closing: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Attr {
    pub(super) name: Range<usize>,
    /// The value without its quotes.
    pub(super) value: Option<Range<usize>>,
}

/// A tag name, lowercased: a known element's is the static name (no allocation per tag).
pub(super) type TagName = std::borrow::Cow<'static, str>;

/// The lowercased name of the tag whose name is `raw`.
pub(super) fn tag_name(raw: &str) -> TagName {
    static KNOWN: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::LazyLock::new(|| super::elements::KNOWN.iter().copied().collect());
    if !raw.bytes().any(|b| b.is_ascii_uppercase()) {
        return KNOWN.get(raw).map_or_else(
            || TagName::Owned(raw.to_owned()),
            |&name| TagName::Borrowed(name),
        );
    }
    let lower = raw.to_ascii_lowercase();
    KNOWN
        .get(lower.as_str())
        .map_or(TagName::Owned(lower), |&name| TagName::Borrowed(name))
}

pub(super) fn slice<'a>(text: &'a str, range: &Range<usize>) -> &'a str {
    text.get(range.clone()).unwrap_or_default()
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

/// The end of the character reference starting at `i` (an `&`), when there is one.
pub(super) fn entity_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    match *b.get(j)? {
        b'#' => {
            j += 1;
            let hex = matches!(b.get(j), Some(b'x' | b'X'));
            if hex {
                j += 1;
            }
            let from = j;
            while let Some(&c) = b.get(j) {
                let digit = if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                };
                if !digit || j - from >= 8 {
                    break;
                }
                j += 1;
            }
            if j == from {
                return None;
            }
        }
        c if c.is_ascii_alphabetic() => {
            while let Some(&c) = b.get(j) {
                if !c.is_ascii_alphanumeric() || j - i > 40 {
                    break;
                }
                j += 1;
            }
        }
        _ => return None,
    }
    (b.get(j) == Some(&b';')).then_some(j + 1)
}

pub(super) struct Lexer<'a> {
    pub(super) text: &'a str,
    pub(super) b: &'a [u8],
    pub(super) tokens: Vec<Token>,
    pub(super) attrs: Vec<Attr>,
    /// Attributes handed on before `attrs[0]` ([`Lexer::hand_attrs`]): a token's `attrs`
    /// counts from the first attribute of the file.
    pub(super) attrs_base: usize,
    /// Where [`Lexer::step`] goes on: the next byte to look at, the start of the text
    /// not yet a token, and whether the end was reached.
    pub(super) pos: usize,
    pub(super) text_from: usize,
    pub(super) ended: bool,
    /// For `>`, `"` and `'`: the lowest offset a search failed from; none lies at or after.
    pub(super) missing: [usize; 3],
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            b: text.as_bytes(),
            tokens: Vec::new(),
            attrs: Vec::new(),
            attrs_base: 0,
            pos: 0,
            text_from: 0,
            ended: false,
            missing: [usize::MAX; 3],
        }
    }

    /// Moves the attributes lexed so far to `to` (a reader's, which holds them while their
    /// tokens are in hand).
    pub(super) fn hand_attrs(&mut self, to: &mut Vec<Attr>) {
        self.attrs_base += self.attrs.len();
        to.append(&mut self.attrs);
    }

    /// The next `byte` (one of `>`, `"`, `'`) at or after `from`, remembering failures so
    /// repeated searches stay linear.
    pub(super) fn find(&mut self, from: usize, byte: u8) -> Option<usize> {
        let slot = match byte {
            b'>' => 0,
            b'"' => 1,
            _ => 2,
        };
        let limit = self.missing[slot].min(self.b.len());
        if from >= limit {
            return None;
        }
        match memchr::memchr(byte, self.b.get(from..limit)?) {
            Some(i) => Some(from + i),
            None => {
                self.missing[slot] = from;
                None
            }
        }
    }

    pub(super) fn token(&mut self, kind: Kind, span: Range<usize>) {
        self.tokens.push(Token {
            kind,
            span,
            name: TagName::Borrowed(""),
            block: false,
            attrs: 0..0,
            self_closing: false,
        });
    }

    pub(super) fn text(&mut self, from: usize, to: usize) {
        if to > from {
            self.token(Kind::Text, from..to);
        }
    }

    /// Text and references (no tags) in `from..to`.
    pub(super) fn text_and_entities(&mut self, from: usize, to: usize) {
        let mut i = from;
        let mut text_from = from;
        while let Some(off) = self.b.get(i..to).and_then(|r| memchr::memchr(b'&', r)) {
            i += off;
            match entity_end(self.b, i).filter(|&e| e <= to) {
                Some(end) => {
                    self.text(text_from, i);
                    self.token(Kind::Entity, i..end);
                    i = end;
                    text_from = end;
                }
                None => i += 1,
            }
        }
        self.text(text_from, to);
    }

    pub(super) fn run(&mut self, start: usize) {
        self.begin(start);
        while self.step() {}
    }

    /// Starts lexing at `start` (past a BOM).
    pub(super) fn begin(&mut self, start: usize) {
        self.pos = start;
        self.text_from = start;
    }

    /// Lexes on until at least one more token is pushed or the text ends; false once the
    /// text has ended and nothing more was pushed.
    pub(super) fn step(&mut self) -> bool {
        let before = self.tokens.len();
        while self.tokens.len() == before {
            let found = self
                .b
                .get(self.pos..)
                .and_then(|r| memchr::memchr2(b'<', b'&', r));
            let Some(off) = found else {
                if !self.ended {
                    self.ended = true;
                    self.text(self.text_from, self.b.len());
                }
                return self.tokens.len() > before;
            };
            let i = self.pos + off;
            if self.b.get(i) == Some(&b'&') {
                match entity_end(self.b, i) {
                    Some(end) => {
                        self.text(self.text_from, i);
                        self.token(Kind::Entity, i..end);
                        self.pos = end;
                        self.text_from = end;
                    }
                    None => self.pos = i + 1,
                }
                continue;
            }
            match self.markup(i, self.text_from) {
                Some(end) => {
                    self.pos = end;
                    self.text_from = end;
                }
                None => self.pos = i + 1,
            }
        }
        true
    }
}

/// The offset of `needle` at or after `from`.
pub(super) fn find_seq(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|p| from + p)
}

/// The offset of `</name` (any case, followed by a space, `/`, `>` or the end) at or
/// after `from`.
pub(super) fn find_end_tag(b: &[u8], from: usize, name: &str) -> Option<usize> {
    let mut at = from;
    while let Some(p) = find_seq(b, at, b"</") {
        let name_at = p + 2;
        let after = name_at + name.len();
        if b.get(name_at..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && b.get(after)
                .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
        {
            return Some(p);
        }
        at = p + 2;
    }
    None
}
