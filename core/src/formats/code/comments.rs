//! Finds a parsed file's comments in one walk of its syntax tree: line comments on
//! consecutive lines joined into one, each with the declarations around it and the one it
//! documents, for a key that survives edits elsewhere in the file.
//!
//! A key is the path of named declarations the comment sits in (at most [`SCOPES`], the
//! innermost) and what it is: `Reader.parse/doc` for the documentation of `fn parse` in
//! `impl Reader` (a `///` or `/**` right above it, no blank line between, attributes and
//! decorators allowed; its docstring; in Go, Ruby, shell and TOML, whose documentation has
//! no marker, any comment right above it); `Reader.parse/comment` for a plain comment right
//! above it or one inside its body; `doc` and `comment` at the top of the file. A repeated key is
//! numbered (`comment#2`). Lines move, keys do not: only renaming the declaration or moving
//! the comment to another changes a key.

use std::ops::Range;

use tree_sitter::{Node, TreeCursor};

use super::langs::Lang;

/// The innermost declarations a key names.
pub const SCOPES: usize = 4;

/// The longest declaration name a key takes (longer ones are left out).
const NAME_MAX: usize = 80;

/// How a comment is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Line comments (one or more consecutive lines) with this marker.
    Line(&'static str),
    /// A block comment with this opener and closer.
    Block(&'static str, &'static str),
    /// A Python docstring: the string's quotes are its markers.
    Docstring,
}

/// One comment: a run of line comments, a block comment or a docstring.
#[derive(Debug, Clone)]
pub struct Comment {
    /// Bytes of the whole comment, markers included (the last line's ending excluded).
    pub span: Range<usize>,
    pub shape: Shape,
    /// Documentation (a doc marker or a docstring).
    pub doc: bool,
    /// The key before numbering.
    pub key: String,
}

/// A comment node found by the walk, before line comments are joined.
struct Found {
    span: Range<usize>,
    shape: Shape,
    doc: bool,
    trailing: bool,
    scope: Vec<String>,
    /// What it documents, once the walk reaches the declaration after it.
    documents: Option<String>,
    /// Inner documentation (`//!`, `/*!`): of the scope it sits in.
    inner: bool,
}

/// Every comment of `tree` over `text`, in file order.
pub fn find(lang: &Lang, text: &str, root: Node<'_>) -> Vec<Comment> {
    let mut found: Vec<Found> = Vec::new();
    let mut walk = Walk {
        lang,
        text,
        scopes: Vec::new(),
        pending: Vec::new(),
    };
    walk.run(root.walk(), &mut found);
    // Where documentation has no marker of its own (Go, Ruby, shell), the comment right
    // above a declaration is its documentation.
    let plain_docs = lang.doc.is_empty() && !lang.docstrings;
    join(text, found, plain_docs)
}

struct Walk<'a> {
    lang: &'a Lang,
    text: &'a str,
    /// Per open node (depth), the declaration name it gives, if any.
    scopes: Vec<Option<String>>,
    /// Per depth, the comment found last at that depth that waits for the declaration
    /// after it (an index into the found comments).
    pending: Vec<Option<usize>>,
}

impl Walk<'_> {
    /// A preorder walk with the cursor: no recursion, whatever the nesting.
    fn run(&mut self, mut cursor: TreeCursor<'_>, found: &mut Vec<Found>) {
        // Counted here: the cursor's own depth walks its whole stack on every call.
        let mut depth = 0usize;
        loop {
            let node = cursor.node();
            self.scopes.truncate(depth);
            self.pending.resize(depth + 1, None);
            self.visit(node, depth, found);
            let descend = !is_comment(&node) && node.child_count() > 0;
            self.scopes.push(if descend {
                decl_name(&node, self.text)
            } else {
                None
            });
            if descend && cursor.goto_first_child() {
                depth += 1;
                self.pending.push(None);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                depth = depth.saturating_sub(1);
                self.pending.truncate(depth + 1);
            }
        }
    }

    fn visit(&mut self, node: Node<'_>, depth: usize, found: &mut Vec<Found>) {
        if is_comment(&node) {
            let span = node.start_byte()..node.end_byte();
            let Some(raw) = self.text.get(span.clone()) else {
                return;
            };
            let Some((shape, doc, inner)) = shape_of(self.lang, raw) else {
                return;
            };
            let trailing = !line_start_is_blank(self.text, span.start);
            let index = found.len();
            found.push(Found {
                span,
                shape,
                doc,
                trailing,
                scope: self.scope(),
                documents: None,
                inner,
            });
            if !trailing && !inner {
                self.pending[depth] = Some(index);
            }
            return;
        }
        if !node.is_named() || is_annotation(node.kind()) {
            return;
        }
        if self.lang.docstrings {
            self.docstring(node, found);
        }
        if let Some(index) = self.pending[depth].take() {
            let comment = &mut found[index];
            let gap = self.text.get(comment.span.end..node.start_byte());
            if gap.is_some_and(|gap| !has_blank_line(gap)) {
                comment.documents = decl_name(&node, self.text);
            }
        }
    }

    /// A Python docstring: the first statement of a module, class or function body, when it
    /// is a string alone.
    fn docstring(&self, node: Node<'_>, found: &mut Vec<Found>) {
        let body = match node.kind() {
            "module" => Some(node),
            "function_definition" | "class_definition" => node.child_by_field_name("body"),
            _ => None,
        };
        let Some(body) = body else { return };
        let mut cursor = body.walk();
        let Some(first) = body.named_children(&mut cursor).find(|n| !n.is_extra()) else {
            return;
        };
        if first.kind() != "expression_statement" || first.named_child_count() != 1 {
            return;
        }
        let Some(string) = first.named_child(0).filter(|s| s.kind() == "string") else {
            return;
        };
        let mut scope = self.scope();
        if node.kind() != "module" {
            // The walk is at the definition, not yet inside it: it is the scope.
            if let Some(name) = decl_name(&node, self.text) {
                scope.push(name);
                if scope.len() > SCOPES {
                    scope.remove(0);
                }
            }
        }
        found.push(Found {
            span: string.start_byte()..string.end_byte(),
            shape: Shape::Docstring,
            doc: true,
            trailing: false,
            scope,
            documents: None,
            inner: true,
        });
    }

    /// The innermost [`SCOPES`] declaration names open at the walk.
    fn scope(&self) -> Vec<String> {
        let names: Vec<String> = self.scopes.iter().flatten().cloned().collect();
        let skip = names.len().saturating_sub(SCOPES);
        names.into_iter().skip(skip).collect()
    }
}

/// Whether a node is a comment, by the kinds the grammars give them (JavaScript's
/// `<!--` is not one: it is markup).
fn is_comment(node: &Node<'_>) -> bool {
    matches!(
        node.kind(),
        "comment" | "line_comment" | "block_comment" | "multiline_comment"
    )
}

/// Attributes and decorators between a doc comment and what it documents.
fn is_annotation(kind: &str) -> bool {
    matches!(
        kind,
        "attribute_item"
            | "inner_attribute_item"
            | "decorator"
            | "annotation"
            | "marker_annotation"
            | "attribute_list"
            | "attribute"
            | "modifiers"
    )
}

/// How a comment's text is marked, whether it documents, and whether it documents its own
/// scope (`//!`); `None` for text no marker of the language opens (a shebang is not prose).
fn shape_of(lang: &Lang, raw: &str) -> Option<(Shape, bool, bool)> {
    if raw.starts_with("#!") && lang.line.contains(&"#") {
        return None;
    }
    for &(open, close) in lang.block {
        if raw.starts_with(open) && raw.len() >= open.len() {
            // `/**/` is an empty block, not a doc comment.
            let doc = lang.doc.contains(&open) && !raw.starts_with("/**/");
            return Some((Shape::Block(open, close), doc, open == "/*!"));
        }
    }
    for &marker in lang.line {
        if let Some(rest) = raw.strip_prefix(marker) {
            // `////` is a plain comment, not documentation.
            let doc = lang.doc.contains(&marker) && !rest.starts_with('/');
            return Some((Shape::Line(marker), doc, marker == "//!"));
        }
    }
    None
}

/// Whether only spaces and tabs come before `at` on its line.
fn line_start_is_blank(text: &str, at: usize) -> bool {
    let before = &text[..at];
    let start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    before[start..].bytes().all(|b| b == b' ' || b == b'\t')
}

/// Whether `gap` holds a line with nothing but spaces and tabs between two line breaks.
fn has_blank_line(gap: &str) -> bool {
    let mut breaks = 0;
    let mut bytes = gap.bytes().peekable();
    while let Some(b) = bytes.next() {
        match b {
            b'\r' => {
                if bytes.peek() == Some(&b'\n') {
                    bytes.next();
                }
                breaks += 1;
            }
            b'\n' => breaks += 1,
            b' ' | b'\t' => {}
            _ => breaks = 0,
        }
        if breaks >= 2 {
            return true;
        }
    }
    false
}

/// The name a declaration node gives: its `name` field, a Rust `impl`'s type, a C
/// function's declarator, a variable's, a TOML table or key; `None` for a node that
/// declares nothing (a call, a shell command).
pub fn decl_name(node: &Node<'_>, text: &str) -> Option<String> {
    let kind = node.kind();
    if kind == "export_statement" {
        let declaration = node.child_by_field_name("declaration")?;
        return (declaration.kind() != "export_statement")
            .then(|| decl_name(&declaration, text))
            .flatten();
    }
    if !is_declaration(kind) {
        return None;
    }
    let named = match kind {
        "impl_item" => node.child_by_field_name("type"),
        "decorated_definition" => node
            .child_by_field_name("definition")
            .and_then(|d| d.child_by_field_name("name")),
        "table" | "table_array_element" | "pair" => node.named_child(0),
        _ => node
            .child_by_field_name("name")
            .or_else(|| declarator(node))
            .or_else(|| {
                // `const f = …`, `type T struct`: the first declarator's or spec's name (a
                // declaration's alone: a Python module's first child is not its name).
                kind.ends_with("declaration")
                    .then(|| node.named_child(0))
                    .flatten()
                    .and_then(|first| first.child_by_field_name("name"))
            }),
    }?;
    let name = named.utf8_text(text.as_bytes()).ok()?.trim();
    let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    (!name.is_empty() && name.len() <= NAME_MAX && !name.contains('/')).then_some(name)
}

/// Whether a node kind declares something a comment may document.
fn is_declaration(kind: &str) -> bool {
    const ENDS: &[&str] = &[
        "_item",
        "definition",
        "declaration",
        "_specifier",
        "_spec",
        "_variant",
        "_signature",
        "_entry",
    ];
    ENDS.iter().any(|end| kind.ends_with(end))
        || matches!(
            kind,
            "class"
                | "module"
                | "method"
                | "singleton_method"
                | "singleton_class"
                | "pair"
                | "table"
                | "table_array_element"
        )
}

/// A C or C++ definition's name, down its declarators (`int *f(void)`).
fn declarator<'t>(node: &Node<'t>) -> Option<Node<'t>> {
    if !node.kind().ends_with("definition") && !node.kind().ends_with("declaration") {
        return None;
    }
    let mut at = node.child_by_field_name("declarator")?;
    for _ in 0..6 {
        if at.kind().contains("identifier") {
            return Some(at);
        }
        at = at.child_by_field_name("declarator")?;
    }
    None
}

/// Joins line comments on consecutive lines (the same marker and column, nothing but the
/// line break between) and gives each comment its key.
fn join(text: &str, found: Vec<Found>, plain_docs: bool) -> Vec<Comment> {
    let mut out: Vec<(Comment, Option<String>)> = Vec::new();
    let mut last: Option<Found> = None;
    for f in found {
        if let (Some(prev), Some((comment, documents))) = (&last, out.last_mut())
            && joins(text, prev, &f)
        {
            comment.span.end = f.span.end;
            *documents = f.documents.clone();
            last = Some(f);
            continue;
        }
        let key = key_of(&f);
        out.push((
            Comment {
                span: f.span.clone(),
                shape: f.shape,
                doc: f.doc,
                key,
            },
            f.documents.clone(),
        ));
        last = Some(f);
    }
    out.into_iter()
        .map(|(mut comment, documents)| {
            if let Some(name) = documents {
                let what = if comment.doc || plain_docs {
                    "doc"
                } else {
                    "comment"
                };
                comment.key = rekey(&comment.key, &name, what);
            }
            comment.span.end = trim_line_end(text, comment.span.clone());
            comment
        })
        .collect()
}

/// Whether `next` continues the line comment `prev` ends.
fn joins(text: &str, prev: &Found, next: &Found) -> bool {
    let (Shape::Line(a), Shape::Line(b)) = (prev.shape, next.shape) else {
        return false;
    };
    if a != b || prev.trailing || next.trailing {
        return false;
    }
    let Some(gap) = text.get(prev.span.end..next.span.start) else {
        return false;
    };
    let breaks = gap.matches('\n').count().max(gap.matches('\r').count());
    let column = |at: usize| at - text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    gap.bytes().all(|b| b.is_ascii_whitespace())
        && breaks <= 1
        && column(prev.span.start) == column(next.span.start)
}

/// A comment's key before it is known to document a declaration.
fn key_of(f: &Found) -> String {
    let scope = f.scope.join(".");
    let what = if f.doc && (f.inner || matches!(f.shape, Shape::Docstring)) {
        "doc"
    } else {
        "comment"
    };
    if scope.is_empty() {
        what.to_owned()
    } else {
        format!("{scope}/{what}")
    }
}

/// The key of a comment right above the declaration `name`: `scope.name/doc` for its
/// documentation, `scope.name/comment` for a plain comment.
fn rekey(key: &str, name: &str, what: &str) -> String {
    let scope = key.rsplit_once('/').map_or("", |(scope, _)| scope);
    if scope.is_empty() {
        format!("{name}/{what}")
    } else {
        format!("{scope}.{name}/{what}")
    }
}

/// A comment's span without the line ending a line comment's node may hold.
fn trim_line_end(text: &str, span: Range<usize>) -> usize {
    let slice = text.get(span.clone()).unwrap_or_default();
    span.start + slice.trim_end_matches(['\n', '\r']).len()
}
