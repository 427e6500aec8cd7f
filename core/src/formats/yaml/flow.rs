//! YAML flow collections: `[a, b]` sequences and `{k: v}` mappings, with single-pair
//! mappings inside sequences and the spaces, line breaks and comments between tokens.

use super::scanner::{Parser, is_blank, is_blankz, is_break, is_flow_indicator};
use super::tree::{Entry, Node, key_text};
use crate::formats::ReadError;

impl<'a> Parser<'a> {
    /// A node inside a flow collection.
    pub(super) fn flow_node(&mut self) -> Result<Node<'a>, ReadError> {
        self.enter()?;
        let node = self.flow_node_inner();
        self.depth -= 1;
        node
    }

    pub(super) fn flow_node_inner(&mut self) -> Result<Node<'a>, ReadError> {
        self.skip_flow_space()?;
        let tag = self.properties();
        self.skip_flow_space()?;
        let c = self.byte(self.pos);
        let next = self.byte(self.pos + 1);
        let node = match c {
            b'[' => self.flow_seq()?,
            b'{' => self.flow_map()?,
            b'"' | b'\'' => Node::Scalar(self.quoted(true)?),
            b'*' => self.alias(),
            0 | b',' | b']' | b'}' => Node::Null(self.pos),
            b':' if is_blankz(next) || is_flow_indicator(next) => Node::Null(self.pos),
            b'@' | b'`' | b'|' | b'>' | b'%' => {
                return Err(self.err(
                    self.pos,
                    format!(
                        "`{}` cannot start a plain value: quote the value",
                        char::from(c)
                    ),
                ));
            }
            b'-' if is_blankz(next) => {
                return Err(self.err(
                    self.pos,
                    "a block sequence `- ` cannot be inside a flow collection",
                ));
            }
            _ => {
                let at = self.pos;
                let scalar = self.plain(-1, true)?;
                if scalar.value.is_empty() {
                    Node::Null(at)
                } else {
                    Node::Scalar(scalar)
                }
            }
        };
        Ok(node.with_tag(tag))
    }

    /// Spaces, line breaks and comments between flow tokens.
    pub(super) fn skip_flow_space(&mut self) -> Result<(), ReadError> {
        let len = self.b.len();
        loop {
            let c = self.byte(self.pos);
            if is_blank(c) {
                self.pos += 1;
            } else if self.pos < len && is_break(c) {
                self.pos = self.after_break(self.pos);
                if self.is_marker(self.pos) {
                    return Err(self.err(
                        self.pos,
                        "a document marker inside a flow collection: close it with `]` or `}` \
                         first",
                    ));
                }
            } else if c == b'#' {
                self.pos = self.line_end(self.pos);
            } else {
                return Ok(());
            }
        }
    }

    pub(super) fn flow_seq(&mut self) -> Result<Node<'a>, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mark = self.items.len();
        loop {
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b']' => {
                    self.pos += 1;
                    break;
                }
                0 => {
                    return Err(self.err(open, "this flow sequence is never closed: expected `]`"));
                }
                _ => {}
            }
            let before = self.pos;
            if self.byte(self.pos) == b'?' && is_blankz(self.byte(self.pos + 1)) {
                self.pos += 1;
            }
            let key_start = self.pos;
            let node = self.flow_node()?;
            self.skip_flow_space()?;
            let item = if self.byte(self.pos) == b':' {
                self.pos += 1;
                let value = self.flow_value()?;
                let end = value.end().max(self.pos);
                if matches!(value, Node::Scalar(_)) {
                    self.scalars += 1;
                }
                Node::Map(
                    vec![Entry {
                        key: key_text(node, self.text),
                        key_start,
                        notes: Vec::new(),
                        value,
                    }],
                    key_start..end,
                )
            } else {
                node
            };
            self.items.push(item);
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b',' => self.pos += 1,
                b']' => {}
                0 => {
                    return Err(self.err(open, "this flow sequence is never closed: expected `]`"));
                }
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `,` or `]` in the flow sequence, found `{}`",
                            self.char_at(self.pos)
                        ),
                    ));
                }
            }
            if self.pos == before {
                return Err(self.err(self.pos, "expected a value in the flow sequence"));
            }
        }
        Ok(Node::Seq(self.close_items(mark), open..self.pos))
    }

    /// The value after a `:` in a flow collection (empty before `,`, `]` or `}`).
    pub(super) fn flow_value(&mut self) -> Result<Node<'a>, ReadError> {
        self.skip_flow_space()?;
        match self.byte(self.pos) {
            b',' | b']' | b'}' | 0 => Ok(Node::Null(self.pos)),
            _ => self.flow_node(),
        }
    }

    pub(super) fn flow_map(&mut self) -> Result<Node<'a>, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mark = self.entries.len();
        loop {
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b'}' => {
                    self.pos += 1;
                    break;
                }
                0 => {
                    return Err(self.err(open, "this flow mapping is never closed: expected `}`"));
                }
                _ => {}
            }
            let before = self.pos;
            if self.byte(self.pos) == b'?' && is_blankz(self.byte(self.pos + 1)) {
                self.pos += 1;
            }
            let key_start = self.pos;
            let key = self.flow_node()?;
            self.skip_flow_space()?;
            let value = if self.byte(self.pos) == b':' {
                self.pos += 1;
                self.flow_value()?
            } else {
                Node::Null(self.pos)
            };
            self.entries.push(Entry {
                key: key_text(key, self.text),
                key_start,
                notes: Vec::new(),
                value,
            });
            self.skip_flow_space()?;
            match self.byte(self.pos) {
                b',' => self.pos += 1,
                b'}' => {}
                0 => {
                    return Err(self.err(open, "this flow mapping is never closed: expected `}`"));
                }
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `,` or `}}` in the flow mapping, found `{}`",
                            self.char_at(self.pos)
                        ),
                    ));
                }
            }
            if self.pos == before {
                return Err(self.err(self.pos, "expected a key in the flow mapping"));
            }
        }
        Ok(Node::Map(self.close_entries(mark), open..self.pos))
    }
}
