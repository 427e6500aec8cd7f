//! Markup after a `<`: comments, CDATA, declarations, end tags, and start tags with their
//! attributes, raw-text (`script`, `style`) and RCDATA (`title`, `textarea`) content.

use super::elements::{RAW, RCDATA, is_block, one_of};
use super::lexer::{
    Attr, Kind, Lexer, TagName, Token, find_end_tag, find_seq, is_space, slice, tag_name,
};

impl Lexer<'_> {
    /// Recognises the markup at `i` (a `<`), pushing the text before it and its tokens;
    /// `None` when the `<` is text.
    pub(super) fn markup(&mut self, i: usize, text_from: usize) -> Option<usize> {
        let rest = self.b.get(i..)?;
        if rest.starts_with(b"<!--") {
            return Some(self.comment(i, text_from));
        }
        if rest.starts_with(b"<![CDATA[") {
            let end = find_seq(self.b, i + 9, b"]]>").map_or(self.b.len(), |e| e + 3);
            self.text(text_from, i);
            self.token(Kind::Comment, i..end);
            return Some(end);
        }
        match rest.get(1).copied() {
            Some(b'!' | b'?') => Some(self.declaration(i, text_from)),
            Some(b'/') => self.end_tag(i, text_from),
            Some(c) if c.is_ascii_alphabetic() => Some(self.start_tag(i, text_from)),
            _ => None,
        }
    }

    /// A comment at `i` (`<!--`): up to `-->`, or `<!-->` and `<!--->` alone.
    fn comment(&mut self, i: usize, text_from: usize) -> usize {
        let b = self.b;
        let body = i + 4;
        let end = if b.get(body) == Some(&b'>') {
            body + 1
        } else if b.get(body..body + 2) == Some(b"->") {
            body + 2
        } else {
            find_seq(b, body, b"-->").map_or(b.len(), |e| e + 3)
        };
        self.text(text_from, i);
        self.token(Kind::Comment, i..end);
        end
    }

    /// A declaration or bogus markup at `i`, up to the next `>` (or the end of the file).
    fn declaration(&mut self, i: usize, text_from: usize) -> usize {
        let end = self.find(i + 2, b'>').map_or(self.b.len(), |e| e + 1);
        self.text(text_from, i);
        self.token(Kind::Decl, i..end);
        end
    }

    /// What follows `</` at `i`: an end tag when a letter does, else markup (`</>` and
    /// bogus `</…>`); `None` for a `</` that ends the file.
    fn end_tag(&mut self, i: usize, text_from: usize) -> Option<usize> {
        let b = self.b;
        let len = b.len();
        match b.get(i + 2).copied() {
            Some(c) if c.is_ascii_alphabetic() => {
                let name_end = (i + 2..len)
                    .find(|&j| {
                        b.get(j)
                            .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
                    })
                    .unwrap_or(len);
                self.text(text_from, i);
                let name = tag_name(slice(self.text, &(i + 2..name_end)));
                Some(self.end_token(i, name_end, name))
            }
            Some(b'>') => {
                self.text(text_from, i);
                self.token(Kind::Decl, i..i + 3);
                Some(i + 3)
            }
            Some(_) => Some(self.declaration(i, text_from)),
            None => None,
        }
    }

    /// A start tag at `i` (`<` and a letter), and for a raw-text or RCDATA element its
    /// content and end tag; returns the offset after them.
    fn start_tag(&mut self, i: usize, text_from: usize) -> usize {
        let len = self.b.len();
        let mark = self.attrs.len();
        self.text(text_from, i);
        let Some((token, end)) = self.parse_tag(i) else {
            // The file ends inside the tag: the rest is markup.
            self.attrs.truncate(mark);
            self.token(Kind::Decl, i..len);
            return len;
        };
        let name = token.name.clone();
        if !token.self_closing && one_of(&name, RAW) {
            return self.raw_element(token, i, end);
        }
        let self_closing = token.self_closing;
        self.tokens.push(token);
        if !self_closing && one_of(&name, RCDATA) {
            return self.rcdata(name, end);
        }
        end
    }

    /// A raw-text element (`script`, `style`…) whose start tag `token` spans `i..end`: one
    /// token up to its end tag's `>` (`plaintext` to the end of the file).
    fn raw_element(&mut self, token: Token, i: usize, end: usize) -> usize {
        let len = self.b.len();
        let close = if token.name == "plaintext" {
            None
        } else {
            find_end_tag(self.b, end, &token.name)
        };
        let stop = match close {
            Some(at) => self.find(at, b'>').map_or(len, |e| e + 1),
            None => len,
        };
        self.tokens.push(Token {
            kind: Kind::Raw,
            span: i..stop,
            ..token
        });
        stop
    }

    /// The content of an RCDATA element (`title`, `textarea`) from `end`, text and
    /// references, then its end tag; returns the offset after them.
    fn rcdata(&mut self, name: TagName, end: usize) -> usize {
        let len = self.b.len();
        let Some(at) = find_end_tag(self.b, end, &name) else {
            self.text_and_entities(end, len);
            return len;
        };
        self.text_and_entities(end, at);
        self.end_token(at, at, name)
    }

    /// The end tag at `at` named `name`, closed by the first `>` from `from`: its token, or
    /// the rest as markup when the file ends inside it. Returns the offset after it.
    fn end_token(&mut self, at: usize, from: usize, name: TagName) -> usize {
        let len = self.b.len();
        let Some(gt) = self.find(from, b'>') else {
            self.token(Kind::Decl, at..len);
            return len;
        };
        self.tokens.push(Token {
            kind: Kind::End,
            span: at..gt + 1,
            block: is_block(&name),
            name,
            attrs: 0..0,
            self_closing: false,
        });
        gt + 1
    }

    /// A start tag at `i` (`<` and a letter): the token and the offset after its `>`;
    /// `None` when the file ends inside it. Attributes are pushed to `self.attrs`.
    pub(super) fn parse_tag(&mut self, i: usize) -> Option<(Token, usize)> {
        let b = self.b;
        let len = b.len();
        let mut j = i + 1;
        while j < len && !is_space(b[j]) && b[j] != b'/' && b[j] != b'>' {
            j += 1;
        }
        let name = tag_name(slice(self.text, &(i + 1..j)));
        let first = self.attrs_base + self.attrs.len();
        let mut last_end = j;
        loop {
            while j < len && (is_space(b[j]) || b[j] == b'/') {
                j += 1;
            }
            let c = *b.get(j)?;
            if c == b'>' {
                let self_closing = j > last_end && b.get(j - 1) == Some(&b'/');
                let token = Token {
                    kind: Kind::Start,
                    span: i..j + 1,
                    block: is_block(&name),
                    name,
                    attrs: first..self.attrs_base + self.attrs.len(),
                    self_closing,
                };
                return Some((token, j + 1));
            }
            let name_start = j;
            j += 1;
            while j < len && !is_space(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
                j += 1;
            }
            let name_end = j;
            last_end = j;
            let mut k = j;
            while k < len && is_space(b[k]) {
                k += 1;
            }
            let mut value = None;
            if b.get(k) == Some(&b'=') {
                k += 1;
                while k < len && is_space(b[k]) {
                    k += 1;
                }
                match b.get(k).copied() {
                    Some(q @ (b'"' | b'\'')) => {
                        let close = self.find(k + 1, q)?;
                        value = Some(k + 1..close);
                        j = close + 1;
                    }
                    Some(_) => {
                        let from = k;
                        while k < len && !is_space(b[k]) && b[k] != b'>' {
                            k += 1;
                        }
                        value = Some(from..k);
                        j = k;
                    }
                    None => return None,
                }
                last_end = j;
            }
            self.attrs.push(Attr {
                name: name_start..name_end,
                value,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_token_is_an_end_tag_or_the_rest_as_markup() {
        let mut lexer = Lexer::new("</b >x</i");
        assert_eq!(lexer.end_token(0, 3, "b".into()), 5);
        assert_eq!(lexer.end_token(6, 8, "i".into()), 9);
        let got: Vec<_> = lexer
            .tokens
            .iter()
            .map(|t| (t.kind, t.span.clone(), &*t.name))
            .collect();
        assert!(
            matches!(
                got.as_slice(),
                [(Kind::End, s1, "b"), (Kind::Decl, s2, "")] if *s1 == (0..5) && *s2 == (6..9)
            ),
            "{got:?}"
        );
    }
}
