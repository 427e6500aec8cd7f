//! What the docs-as-code scanners (reStructuredText, AsciiDoc) share: where a block is read
//! ([`Ctx`]) and how one is ended ([`Emit`]: its positional key, its hole, handed to the output).
use std::ops::Range;

use super::lines::Body;
use super::output::Output;
use super::sections::Sections;
use crate::model::{Block, Role, Run};

/// Where a block is read: the kind its paragraphs take in keys, their role and nesting.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    pub kind: &'static str,
    pub role: Role,
    pub level: u32,
    pub depth: usize,
    /// Whether section titles may start here (the file's top level only, as docutils and
    /// Asciidoctor allow).
    pub top: bool,
}

impl Ctx {
    /// The file's top level: paragraphs `p`.
    pub fn top() -> Ctx {
        Ctx {
            kind: "p",
            role: Role::Paragraph,
            level: 0,
            depth: 0,
            top: true,
        }
    }

    /// A body nested in this one, whose paragraphs are `kind` with `role`.
    pub fn nested(self, kind: &'static str, role: Role) -> Ctx {
        Ctx {
            kind,
            role,
            level: self.level + 1,
            depth: self.depth + 1,
            top: false,
        }
    }
}

/// Ends blocks: keys them by section ([`Sections`]), makes their holes, hands them over.
pub struct Emit<'t, 'e> {
    pub text: &'t str,
    pub out: Output<'e>,
    sections: Sections,
}

impl<'t, 'e> Emit<'t, 'e> {
    pub fn new(text: &'t str, out: Output<'e>) -> Self {
        Emit {
            text,
            out,
            sections: Sections::default(),
        }
    }

    /// Starts the next section, named from its title's words.
    pub fn title(&mut self, words: &str) {
        self.sections.title(words);
    }

    /// Ends a block of `kind` (no block when it has no runs): its key, and its hole when it
    /// takes edits in place (`hole`); `locked` says why it takes none.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        kind: &'static str,
        role: Role,
        level: u32,
        runs: Vec<Run>,
        span: Range<usize>,
        hole: bool,
        locked: Option<&str>,
    ) {
        if runs.is_empty() {
            return;
        }
        let (key, label) = self.sections.key(kind);
        let mut block = Block::new(key, role, runs);
        block.label = label;
        block.level = level;
        block.span = span.clone();
        block.locked = locked.map(Into::into);
        let index = self.out.index();
        if hole {
            self.out.skeleton.hole(span, index, &block.source);
        }
        self.out.push(self.text, block);
    }

    /// A code block: the lines of `body`, as they stand, from its first line's text.
    pub fn code(&mut self, body: Body) {
        let text = self.text;
        let mut span: Option<Range<usize>> = None;
        for line in body.lines(text).filter(|l| !l.blank()) {
            span = Some(span.map_or(line.content, |s| s.start)..line.end_trimmed(text));
        }
        if let Some(span) = span {
            self.push_code(span);
        }
    }

    /// A code block of the bytes at `span`, as they stand.
    pub fn push_code(&mut self, span: Range<usize>) {
        let raw = self.text.get(span.clone()).unwrap_or_default();
        let runs = vec![Run::text_at(raw, span.start)];
        self.push("code", Role::Code, 0, runs, span, true, None);
    }
}
