//! The scan of `document.xml`: paragraphs, runs, hyperlinks and `<w:t>` pieces, with the
//! key tree of bodies, tables, cells and text boxes they sit in.

use std::ops::Range;

use super::DOCUMENT;
use super::{StartTag, Tokens, attr_value, local};
use crate::formats::ReadError;
use crate::formats::xml::{self, Token};

pub(super) const BOLD: u8 = 1;
pub(super) const ITALIC: u8 = 2;
pub(super) const UNDERLINE: u8 = 4;
pub(super) const STRIKE: u8 = 8;
pub(super) const SUPERSCRIPT: u8 = 16;
pub(super) const SUBSCRIPT: u8 = 32;
pub(super) const LINK: u8 = 64;

/// One step of a key: `body`, `tbl#2`, `r#1`, `c#3`, `p#4`, `txbx#1` (`txbx` for a text box
/// outside any paragraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    Body,
    Table,
    Row,
    Cell,
    Para,
    TextBox,
}

/// No node, element or paragraph.
const NONE: u32 = u32::MAX;

/// A node of the key tree. A key is written out only for a paragraph that becomes a block,
/// by walking its nodes up, so an empty paragraph or cell costs a few bytes and not a copy
/// of its path (a path grows with the nesting).
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    seg: Seg,
    n: u32,
}

#[derive(Debug)]
struct Container {
    node: u32,
    paragraphs: u32,
    tables: u32,
    cell: bool,
}

#[derive(Debug)]
pub(super) struct Para {
    pub(super) node: u32,
    pub(super) span: Range<usize>,
    pub(super) style: Option<String>,
    pub(super) ilvl: Option<u32>,
    /// `Some(true)` for a non-zero `numId`, `Some(false)` for `numId` 0 (numbering off).
    pub(super) numbered: Option<bool>,
    pub(super) outline: Option<u32>,
    pub(super) cell: bool,
    text_boxes: u32,
    pub(super) segments: u32,
}

/// A `<w:r>` or `<w:hyperlink>`: where it starts and ends, and a run's formatting. Offsets
/// are `u32`: a part is at most [`crate::formats::MAX_INPUT_BYTES`].
#[derive(Debug, Clone)]
pub(super) struct Element {
    pub(super) span: Range<u32>,
    pub(super) flags: u8,
    /// The `<w:rPr>` bytes of a run.
    pub(super) props: Range<u32>,
}

/// The content of one `<w:t>`.
#[derive(Debug)]
pub(super) struct Piece {
    pub(super) para: u32,
    /// Where the `<w:t …>` start tag begins.
    pub(super) tag: u32,
    text: Range<u32>,
    /// The innermost run and hyperlink, [`NONE`] when there is none.
    run: u32,
    link: u32,
}

impl Piece {
    pub(super) fn text(&self) -> Range<usize> {
        wide(&self.text)
    }
    pub(super) fn run(&self) -> Option<usize> {
        (self.run != NONE).then_some(self.run as usize)
    }
    pub(super) fn link(&self) -> Option<usize> {
        (self.link != NONE).then_some(self.link as usize)
    }
}

pub(super) fn wide(range: &Range<u32>) -> Range<usize> {
    range.start as usize..range.end as usize
}

/// An offset into a part, which is at most [`crate::formats::MAX_INPUT_BYTES`] long.
fn narrow(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(NONE - 1)
}

/// Tables inside tables kapi reads in a Word document; each adds three elements
/// (`w:tbl`, `w:tr`, `w:tc`), so this stays below [`crate::formats::MAX_DEPTH`] elements.
pub(super) const MAX_TABLE_DEPTH: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Other,
    Container(usize),
    Table(usize),
    Row(usize),
    Para(usize),
    ParaProps(usize),
    NumProps(usize),
    Run(usize),
    RunProps(usize),
    Link(usize),
    /// `mc:Fallback`: read for well-formedness only.
    Skip,
}

/// An open element: its name, where its start tag begins, its frame, and how many pieces
/// had been read when it opened (to tell one that holds none).
struct Open {
    name: Range<usize>,
    start: usize,
    frame: Frame,
    pieces: usize,
}

pub(super) struct DocReader<'a> {
    text: &'a str,
    w: String,
    nodes: Vec<Node>,
    containers: Vec<Container>,
    /// Tables and rows: node and count of rows or cells.
    tables: Vec<(u32, u32)>,
    rows: Vec<(u32, u32)>,
    pub(super) paras: Vec<Para>,
    /// Paragraphs outside any container, counted for their keys.
    loose_paras: u32,
    pub(super) elements: Vec<Element>,
    pub(super) pieces: Vec<Piece>,
    stack: Vec<Open>,
    /// Open `w:tbl` elements.
    open_tables: usize,
    skip: usize,
}

fn is_on(val: Option<&str>) -> bool {
    !matches!(val, Some("0" | "false" | "off" | "none"))
}

impl<'a> DocReader<'a> {
    pub(super) fn new(text: &'a str, w: String) -> Self {
        Self {
            text,
            w,
            nodes: Vec::new(),
            containers: Vec::new(),
            tables: Vec::new(),
            rows: Vec::new(),
            paras: Vec::new(),
            loose_paras: 0,
            elements: Vec::new(),
            pieces: Vec::new(),
            stack: Vec::new(),
            open_tables: 0,
            skip: 0,
        }
    }

    fn innermost(&self, pick: impl Fn(Frame) -> Option<usize>) -> Option<usize> {
        self.stack.iter().rev().find_map(|open| pick(open.frame))
    }

    /// The innermost frame chosen by `pick` inside the innermost paragraph.
    fn in_paragraph(&self, pick: impl Fn(Frame) -> Option<usize>) -> Option<usize> {
        for open in self.stack.iter().rev() {
            if let Frame::Para(_) = open.frame {
                return None;
            }
            if let Some(found) = pick(open.frame) {
                return Some(found);
            }
        }
        None
    }

    fn node(&mut self, parent: u32, seg: Seg, n: u32) -> u32 {
        self.nodes.push(Node { parent, seg, n });
        narrow(self.nodes.len() - 1)
    }

    /// The key of `node`: its segments from the root, joined with `/`.
    pub(super) fn key(&self, node: u32) -> String {
        let mut chain = Vec::new();
        let mut at = node;
        while let Some(n) = self.nodes.get(at as usize) {
            chain.push(*n);
            at = n.parent;
        }
        let mut key = String::new();
        for n in chain.iter().rev() {
            if !key.is_empty() {
                key.push('/');
            }
            let name = match n.seg {
                Seg::Body => "body",
                Seg::Table => "tbl",
                Seg::Row => "r",
                Seg::Cell => "c",
                Seg::Para => "p",
                Seg::TextBox => "txbx",
            };
            key.push_str(name);
            if n.seg != Seg::Body && n.n > 0 {
                key.push('#');
                key.push_str(&n.n.to_string());
            }
        }
        key
    }

    /// The `w:val` attribute of a property element, as written.
    fn val(&self, tag: &StartTag) -> Option<&'a str> {
        attr_value(self.text, tag.name.end, &tag.span, |n| {
            local(n, &self.w) == Some("val") || n == "val"
        })
    }

    /// The frame a start tag opens, and its side effects on counters and properties.
    fn open(&mut self, name: &str, tag: &StartTag) -> Frame {
        if self.skip > 0 {
            return Frame::Other;
        }
        if name.ends_with(":Fallback") {
            return Frame::Skip;
        }
        let Some(local) = local(name, &self.w) else {
            return Frame::Other;
        };
        let parent = self.stack.last().map_or(Frame::Other, |open| open.frame);
        let span = narrow(tag.span.start)..narrow(tag.span.end);
        match local {
            "body" => {
                let node = self.node(NONE, Seg::Body, 0);
                self.container(node, false)
            }
            "tbl" => self.table(),
            "tr" => match parent {
                Frame::Table(t) => self.row(t),
                _ => self.row_in_wrapper(),
            },
            "tc" => self.cell(),
            "txbxContent" => self.text_box(),
            "p" => self.paragraph(tag),
            "pPr" => match parent {
                Frame::Para(p) => Frame::ParaProps(p),
                _ => Frame::Other,
            },
            "numPr" => match parent {
                Frame::ParaProps(p) => Frame::NumProps(p),
                _ => Frame::Other,
            },
            "r" => {
                self.elements.push(Element {
                    span,
                    flags: 0,
                    props: 0..0,
                });
                Frame::Run(self.elements.len() - 1)
            }
            "rPr" => match parent {
                Frame::Run(r) => {
                    self.elements[r].props.start = span.start;
                    Frame::RunProps(r)
                }
                _ => Frame::Other,
            },
            "hyperlink" => {
                self.elements.push(Element {
                    span,
                    flags: LINK,
                    props: 0..0,
                });
                Frame::Link(self.elements.len() - 1)
            }
            _ => {
                self.property(local, tag, parent);
                Frame::Other
            }
        }
    }

    /// A `w:tbl` of the innermost container (none outside one).
    fn table(&mut self) -> Frame {
        let Some(c) = self.innermost(|f| match f {
            Frame::Container(c) => Some(c),
            _ => None,
        }) else {
            return Frame::Other;
        };
        self.containers[c].tables += 1;
        let (parent, n) = (self.containers[c].node, self.containers[c].tables);
        let node = self.node(parent, Seg::Table, n);
        self.tables.push((node, 0));
        Frame::Table(self.tables.len() - 1)
    }

    /// A `w:tc` of the innermost row (none outside one).
    fn cell(&mut self) -> Frame {
        let Some(r) = self.innermost(|f| match f {
            Frame::Row(r) => Some(r),
            _ => None,
        }) else {
            return Frame::Other;
        };
        self.rows[r].1 += 1;
        let (parent, n) = self.rows[r];
        let node = self.node(parent, Seg::Cell, n);
        self.container(node, true)
    }

    /// A `w:txbxContent`: a text box of the innermost paragraph, or a loose one.
    fn text_box(&mut self) -> Frame {
        let node = match self.innermost(|f| match f {
            Frame::Para(p) => Some(p),
            _ => None,
        }) {
            Some(p) => {
                self.paras[p].text_boxes += 1;
                let (parent, n) = (self.paras[p].node, self.paras[p].text_boxes);
                self.node(parent, Seg::TextBox, n)
            }
            None => self.node(NONE, Seg::TextBox, 0),
        };
        self.container(node, false)
    }

    /// A `w:p` of the innermost container, or one outside any container.
    fn paragraph(&mut self, tag: &StartTag) -> Frame {
        let (node, cell) = match self.innermost(|f| match f {
            Frame::Container(c) => Some(c),
            _ => None,
        }) {
            Some(c) => {
                self.containers[c].paragraphs += 1;
                let container = &self.containers[c];
                let (parent, n, cell) = (container.node, container.paragraphs, container.cell);
                (self.node(parent, Seg::Para, n), cell)
            }
            None => {
                self.loose_paras += 1;
                (self.node(NONE, Seg::Para, self.loose_paras), false)
            }
        };
        self.paras.push(Para {
            node,
            span: tag.span.start..tag.span.end,
            style: None,
            ilvl: None,
            numbered: None,
            outline: None,
            cell,
            text_boxes: 0,
            segments: 0,
        });
        Frame::Para(self.paras.len() - 1)
    }

    /// A `w:tr` of table `t`.
    fn row(&mut self, t: usize) -> Frame {
        self.tables[t].1 += 1;
        let (parent, n) = self.tables[t];
        let node = self.node(parent, Seg::Row, n);
        self.rows.push((node, 0));
        Frame::Row(self.rows.len() - 1)
    }

    /// A `w:tr` under a wrapper (`w:sdt`, `w:customXml`) inside a table.
    fn row_in_wrapper(&mut self) -> Frame {
        let Some(t) = self.innermost(|f| match f {
            Frame::Table(t) => Some(t),
            _ => None,
        }) else {
            return Frame::Other;
        };
        self.row(t)
    }

    fn container(&mut self, node: u32, cell: bool) -> Frame {
        self.containers.push(Container {
            node,
            paragraphs: 0,
            tables: 0,
            cell,
        });
        Frame::Container(self.containers.len() - 1)
    }

    /// A property element (start or empty) inside a paragraph's or run's properties.
    fn property(&mut self, local: &str, tag: &StartTag, parent: Frame) {
        if !matches!(
            parent,
            Frame::ParaProps(_) | Frame::NumProps(_) | Frame::RunProps(_)
        ) {
            return;
        }
        let val = self.val(tag);
        match parent {
            Frame::ParaProps(p) => match local {
                "pStyle" => self.paras[p].style = val.map(str::to_owned),
                "outlineLvl" => {
                    self.paras[p].outline = val.and_then(|v| v.parse().ok()).filter(|&l| l < 9);
                }
                _ => {}
            },
            Frame::NumProps(p) => match local {
                "ilvl" => self.paras[p].ilvl = val.and_then(|v| v.parse().ok()),
                "numId" => self.paras[p].numbered = Some(val.is_some_and(|v| v != "0")),
                _ => {}
            },
            Frame::RunProps(r) => {
                let flag = match local {
                    "b" => BOLD,
                    "i" => ITALIC,
                    "u" => UNDERLINE,
                    "strike" | "dstrike" => STRIKE,
                    "vertAlign" => match val {
                        Some("superscript") => SUPERSCRIPT,
                        Some("subscript") => SUBSCRIPT,
                        _ => 0,
                    },
                    "rStyle" => match val {
                        Some("Strong") => BOLD,
                        Some("Emphasis") => ITALIC,
                        _ => 0,
                    },
                    _ => 0,
                };
                let element = &mut self.elements[r];
                if local == "vertAlign" || local == "rStyle" || is_on(val) {
                    element.flags |= flag;
                } else {
                    element.flags &= !flag;
                }
            }
            _ => {}
        }
    }

    /// Drops `node` when it is the last one: nothing below it was kept.
    fn drop_node(&mut self, node: u32) {
        if node as usize + 1 == self.nodes.len() {
            self.nodes.pop();
        }
    }

    /// Ends `frame` at `end`. A paragraph, run or link that holds no text, and a table, row
    /// or cell left with nothing kept below it, is dropped when it is the last of its kind:
    /// only the counters its parent keeps remember it, so markup without text costs no
    /// memory beyond the open elements.
    fn close(&mut self, frame: Frame, end: usize, pieces_at_open: usize) {
        let empty = self.pieces.len() == pieces_at_open;
        match frame {
            Frame::Para(p) => {
                self.paras[p].span.end = end;
                if empty && p + 1 == self.paras.len() {
                    let node = self.paras[p].node;
                    self.paras.pop();
                    self.drop_node(node);
                }
            }
            Frame::Run(r) | Frame::Link(r) => {
                self.elements[r].span.end = narrow(end);
                if empty && r + 1 == self.elements.len() {
                    self.elements.pop();
                }
            }
            Frame::RunProps(r) => self.elements[r].props.end = narrow(end),
            Frame::Skip => self.skip = self.skip.saturating_sub(1),
            Frame::Container(c) => {
                let node = self.containers[c].node;
                if empty && c + 1 == self.containers.len() {
                    self.containers.pop();
                    self.drop_node(node);
                }
            }
            Frame::Table(t) => {
                self.open_tables = self.open_tables.saturating_sub(1);
                let node = self.tables[t].0;
                if empty && t + 1 == self.tables.len() && node as usize + 1 == self.nodes.len() {
                    self.tables.pop();
                    self.drop_node(node);
                }
            }
            Frame::Row(r) => {
                let node = self.rows[r].0;
                if empty && r + 1 == self.rows.len() && node as usize + 1 == self.nodes.len() {
                    self.rows.pop();
                    self.drop_node(node);
                }
            }
            _ => {}
        }
    }

    /// Refuses nesting past [`crate::formats::MAX_DEPTH`] elements or [`MAX_TABLE_DEPTH`] tables, at
    /// the start tag that goes past it.
    fn deeper(&self, frame: Frame, at: usize) -> Result<(), ReadError> {
        if self.stack.len() >= crate::formats::MAX_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                at,
                &format!("`{DOCUMENT}` elements"),
                crate::formats::MAX_DEPTH,
            ));
        }
        if matches!(frame, Frame::Table(_)) && self.open_tables >= MAX_TABLE_DEPTH {
            return Err(ReadError::too_deep(
                self.text,
                at,
                "tables",
                MAX_TABLE_DEPTH,
            ));
        }
        Ok(())
    }

    pub(super) fn scan(&mut self) -> Result<(), ReadError> {
        let text = self.text;
        let mut tokens = Tokens::new(text);
        while let Some(token) = tokens.next() {
            match token? {
                Token::Start { span, name, empty } => {
                    let tag = StartTag { span, name };
                    tag.check_name_end(text)?;
                    let name = text.get(tag.name.clone()).unwrap_or_default();
                    let pieces = self.pieces.len();
                    let frame = self.open(name, &tag);
                    if empty {
                        // `<w:p/>` counts like `<w:p></w:p>`: keys are positions.
                        if frame != Frame::Skip {
                            self.close(frame, tag.span.end, pieces);
                        }
                        continue;
                    }
                    if frame == Frame::Skip {
                        self.skip += 1;
                    }
                    if self.skip == 0 && local(name, &self.w) == Some("t") {
                        self.text_piece(&mut tokens, &tag)?;
                        continue;
                    }
                    self.deeper(frame, tag.span.start)?;
                    if matches!(frame, Frame::Table(_)) {
                        self.open_tables += 1;
                    }
                    self.stack.push(Open {
                        name: tag.name,
                        start: tag.span.start,
                        frame,
                        pieces,
                    });
                }
                Token::End { span, name } => {
                    let name = text.get(name).unwrap_or_default();
                    let Some(open) = self.stack.pop() else {
                        return Err(ReadError::syntax_at(
                            text,
                            span.start,
                            format!("`</{name}>` closes an element that was never opened"),
                        ));
                    };
                    let open_name = text.get(open.name).unwrap_or_default();
                    if open_name != name {
                        return Err(ReadError::syntax_at(
                            text,
                            span.start,
                            format!(
                                "expected `</{open_name}>` (opened at {}), found `</{name}>`",
                                position(text, open.start)
                            ),
                        ));
                    }
                    self.close(open.frame, span.end, open.pieces);
                }
                Token::Text(_)
                | Token::CData { .. }
                | Token::Comment(_)
                | Token::Pi(_)
                | Token::Doctype(_) => {}
            }
        }
        if let Some(open) = self.stack.last() {
            return Err(ReadError::syntax_at(
                text,
                text.len(),
                format!(
                    "`{DOCUMENT}` ends inside `<{}>` opened at {}",
                    text.get(open.name.clone()).unwrap_or_default(),
                    position(text, open.start)
                ),
            ));
        }
        Ok(())
    }

    /// Reads a `<w:t>`'s content and its end tag.
    fn text_piece(&mut self, tokens: &mut Tokens<'_>, tag: &StartTag) -> Result<(), ReadError> {
        let text = self.text;
        let start = tag.span.end;
        // The content is character data up to the next `<`, which must be the end tag.
        let (end, close) = match tokens.next().transpose()? {
            Some(Token::Text(span)) => (span.end, tokens.next().transpose()?),
            other => (start, other),
        };
        let name = text.get(tag.name.clone()).unwrap_or_default();
        match close {
            Some(Token::End { name: close, .. }) if text.get(close.clone()) == Some(name) => {}
            _ => {
                return Err(ReadError::syntax_at(
                    text,
                    end,
                    format!("expected `</{name}>`: a `<{name}>` holds text only"),
                ));
            }
        }
        let raw = text.get(start..end).unwrap_or_default();
        xml::check_references(text, raw, start)?;
        let Some(para) = self.innermost(|f| match f {
            Frame::Para(p) => Some(p),
            _ => None,
        }) else {
            return Ok(());
        };
        if raw.is_empty() {
            return Ok(());
        }
        let run = self.in_paragraph(|f| match f {
            Frame::Run(r) => Some(r),
            _ => None,
        });
        let link = self.in_paragraph(|f| match f {
            Frame::Link(l) => Some(l),
            _ => None,
        });
        self.pieces.push(Piece {
            para: narrow(para),
            tag: narrow(tag.span.start),
            text: narrow(start)..narrow(end),
            run: run.map_or(NONE, narrow),
            link: link.map_or(NONE, narrow),
        });
        Ok(())
    }
}

/// `line:column` of a byte offset, for messages.
fn position(text: &str, offset: usize) -> String {
    match ReadError::syntax_at(text, offset, "") {
        ReadError::Syntax { line, column, .. } => format!("{line}:{column}"),
        _ => offset.to_string(),
    }
}
