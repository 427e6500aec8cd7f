//! Suppression: the findings a project allows where they stand — `kapi-disable…` directives in
//! a file's comments, a term's `exceptions:`, the recipe's `rules:` exclusions — set apart from
//! the findings, counted and listed with what allowed each, never silently dropped.
//!
//! # Directives
//! What eslint, textlint and markdownlint users type, in a comment of the file:
//! - `kapi-disable [RULE, …]` … `kapi-enable [RULE, …]`: a region, from the directive's line to
//!   the line of the `kapi-enable` that ends it (or the end of the file). `kapi-enable` with no
//!   rule ends every region; with rules, it ends theirs (inside a `kapi-disable` of every rule,
//!   those rules report again).
//! - `kapi-disable-next-line [RULE, …]`: findings that start on the next line, and every finding
//!   of the first block after it (a paragraph the comment sits above, however many lines), when
//!   only blank lines and comment lines lie between (a PO entry's `#:` and `#,` lines).
//! - `kapi-disable-line [RULE, …]`: findings that start on the directive's own line.
//!
//! No rule means every rule; a RULE is a rule id (`voice.sentence-too-long`) or an analyzer
//! (`terms`: each of its rules), separated by commas or spaces; ` -- ` starts a free-text reason.
//! A directive is one comment on one line, as the format writes comments: `<!-- … -->` in
//! Markdown, HTML and the XML formats, also `{/* … */}` in Markdown (MDX style); `#` in YAML,
//! PO and properties (and `!` there); `..` in reStructuredText (`.. kapi-disable-next-line`),
//! `//` in AsciiDoc;
//! the language's own comment markers in source files. In a
//! Markdown or HTML code block or inline code it is an example, not a directive. JSON, plain
//! text and Word documents have no comments, so no directives. A finding with no line (a
//! document rule such as `voice.required-pattern`) is suppressed by a `kapi-disable` that is
//! never ended.
//!
//! A directive that suppressed nothing, or names a rule kapi does not have, is itself a finding
//! (`suppress.unused-directive`, minor), as eslint's `--report-unused-disable-directives`
//! reports: a stale directive would otherwise hide the next real finding there. It is not
//! reported when the check covered only part of the file or of the rules (`--diff-against`, one
//! analyzer, a file reached only through its translations) or held back findings past the cap:
//! the directive may have suppressed one unseen. A `kapi-enable` is never unused, but one that
//! names no rule is reported (it ends no region). A directive cannot name
//! `suppress.unused-directive`; the recipe's `rules:` can set it aside (a page of examples).
//!
//! Each keyword reads a bounded reach of its line (`REACH_BACK`, `REACH_ON`), and past
//! [`MAX_DIRECTIVES`] keywords are counted, not read, so a line of thousands is linear.
//! At most [`MAX_DIRECTIVES`] directives are read in one file; the rest are ignored (and one
//! finding says so).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::analyzers::rule::{self, declare_rule};
use super::{ANALYZERS, Finding};
use crate::governance::Severity;
use crate::model::{Block, CodeKind, Role, Run};
use crate::text::LineIndex;

declare_rule! {
    /// ## What it flags
    /// A `kapi-disable`, `kapi-disable-next-line` or `kapi-disable-line` comment that suppressed
    /// no finding, or that names a rule kapi does not have.
    ///
    /// ## Why it matters
    /// A directive left behind after the text it excused was fixed silently hides the next
    /// real finding written there; a misspelt rule name suppresses nothing at all.
    ///
    /// ## Example
    /// `<!-- kapi-disable-next-line voice.sentense-too-long -->` above a short sentence.
    /// Use instead: remove the comment, or name the rule as `kapi help rules` lists it.
    pub UNUSED_DIRECTIVE = "suppress.unused-directive", Severity::Minor
}

/// The most directives read in one file: more are ignored (a file is not a list of them).
pub const MAX_DIRECTIVES: usize = 1_000;

/// How far a directive reads: back from its keyword to the comment's opener, and on from it
/// to the comment's end (its rules and reason), in bytes. A longer comment is no directive.
const REACH_BACK: usize = 64;
const REACH_ON: usize = 1_024;

/// The most text between a next-line directive and the block it covers (comment lines).
const MAX_BETWEEN: usize = 4_096;

/// The most suppressed findings a report lists (every one is counted).
pub const MAX_SUPPRESSED: usize = super::MAX_FINDINGS;

/// How a format writes the comments a directive lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `<!-- … -->`, and `{/* … */}` when `jsx`; a directive inside a code block or inline
    /// code is an example, not a directive (Markdown, HTML).
    Markup { jsx: bool },
    /// `<!-- … -->` in an XML file (Android strings, XLIFF).
    Xml,
    /// Comments opened by one of these markers (`//`, `#`, …); `/*` ends at `*/` on the same
    /// line, the others at the end of the line.
    Comments(&'static [&'static str]),
}

impl Syntax {
    /// Whether a trimmed line is a comment of this syntax.
    fn opens_comment(self, line: &str) -> bool {
        match self {
            Syntax::Markup { jsx } => line.starts_with("<!--") || (jsx && line.starts_with("{/*")),
            Syntax::Xml => line.starts_with("<!--"),
            Syntax::Comments(openers) => openers.iter().any(|o| line.starts_with(o)),
        }
    }
}

/// reStructuredText's comments: explicit markup (`.. kapi-disable-next-line`); one inside a
/// literal block or an inline literal is an example, as in Markdown.
const RST: Syntax = Syntax::Comments(&[".."]);

/// AsciiDoc's line comments (`// kapi-disable-next-line`); one inside a listing block or a
/// monospace span is an example.
const ASCIIDOC: Syntax = Syntax::Comments(&["//"]);

/// The comment syntax of a format, by its id; `None` for a format with no comments (JSON,
/// plain text, Word).
pub fn syntax_for(format: &str) -> Option<Syntax> {
    Some(match format {
        "markdown" | "mdx" => Syntax::Markup { jsx: true },
        "html" => Syntax::Markup { jsx: false },
        "android" | "xliff" | "xliff2" => Syntax::Xml,
        "yaml" | "po" => Syntax::Comments(&["#"]),
        "rst" => RST,
        "asciidoc" => ASCIIDOC,
        "properties" => Syntax::Comments(&["#", "!"]),
        "python" | "ruby" | "shell" | "toml" => Syntax::Comments(&["#"]),
        "rust" | "javascript" | "typescript" | "tsx" | "go" | "java" | "c" | "cpp" | "csharp"
        | "kotlin" | "swift" => Syntax::Comments(&["//", "/*"]),
        _ => return None,
    })
}

/// What kind of thing allowed a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SuppressionKind {
    /// A `kapi-disable…` comment in the file.
    Directive,
    /// A term's `exceptions:` in the terms file.
    Exception,
    /// A `rules:` exclusion in `kapi.yaml`.
    Recipe,
}

/// What allowed a finding, and where it is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuppressedBy {
    pub kind: SuppressionKind,
    /// The directive as written (`kapi-disable-next-line voice.sentence-too-long`), the
    /// exception, or the recipe's key.
    pub text: String,
    /// The file it is written in (the finding's own file for a directive), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// A finding the project allows where it stands, with what allowed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Suppressed {
    #[serde(flatten)]
    pub finding: Finding,
    pub suppressed_by: SuppressedBy,
}

/// One rule the recipe says does not apply to a file (`rules:` in `kapi.yaml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRule {
    /// A rule id or an analyzer.
    pub selector: String,
    /// What the report names as the reason (`rules.voice.sentence-too-long.exclude`).
    pub text: String,
    /// The recipe file and the line of the key.
    pub path: String,
    pub line: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Disable,
    Enable,
    NextLine,
    SameLine,
}

impl Kind {
    const KEYWORDS: [(&'static str, Kind); 4] = [
        ("kapi-disable-next-line", Kind::NextLine),
        ("kapi-disable-line", Kind::SameLine),
        ("kapi-disable", Kind::Disable),
        ("kapi-enable", Kind::Enable),
    ];
}

#[derive(Debug, Clone)]
struct Directive {
    kind: Kind,
    /// Known rule ids and analyzers it names (empty: every rule).
    selectors: Vec<String>,
    /// Names it gives that are neither.
    unknown: Vec<String>,
    /// Byte range of the comment in the file.
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    /// As written, markers and reason left out: `kapi-disable-line terms`.
    text: String,
    /// Inside a code block or inline code: an example, not a directive.
    in_code: bool,
    /// Per selector (or the one slot of a directive naming none): it suppressed something.
    used: Vec<bool>,
    /// The key of the block that starts on the line after it (next-line directives).
    next_block: Option<String>,
    /// A Vale comment (`<!-- vale off -->`): never reported unused (Vale users write them
    /// ahead of what they may hide).
    vale: bool,
}

impl Directive {
    /// The slot `rule` falls under, if the directive covers it.
    fn covers(&self, rule: &str) -> Option<usize> {
        if self.selectors.is_empty() {
            return if self.unknown.is_empty() {
                Some(0)
            } else {
                None
            };
        }
        self.selectors
            .iter()
            .position(|s| s == rule || s == analyzer(rule))
    }
}

/// A span of lines a region directive covers: `[from, to)`, `to` past the end for a region
/// never ended.
#[derive(Debug, Clone, Copy)]
struct Region {
    from: usize,
    to: usize,
    directive: usize,
    slot: usize,
}

/// One file's suppression: its directives (read from its text on first use), the recipe's
/// exclusions for it, and what they set apart.
#[derive(Debug, Default)]
pub struct Suppression {
    syntax: Option<Syntax>,
    /// `--no-suppress`: nothing is set apart.
    off: bool,
    file_rules: Vec<FileRule>,
    scanned: bool,
    directives: Vec<Directive>,
    /// Directives past [`MAX_DIRECTIVES`] that were not read.
    ignored: usize,
    /// Regions by selector (`None`: every rule), each list sorted and disjoint.
    regions: HashMap<Option<String>, Vec<Region>>,
    /// Inside an every-rule region, where a rule or analyzer reports again.
    excepted: HashMap<String, Vec<(usize, usize)>>,
    /// Next-line and same-line directives by the line they cover.
    by_line: HashMap<usize, Vec<usize>>,
    /// Next-line directives whose block is still to come, in file order.
    pending: std::collections::VecDeque<usize>,
    /// Block keys next-line directives cover.
    by_block: HashMap<String, Vec<usize>>,
    held: Vec<Suppressed>,
    count: usize,
    file_rules_used: Vec<bool>,
    /// Rule ids and styles besides kapi's that a directive may name (the Vale rules in force).
    names: Vec<String>,
}

impl Suppression {
    /// Suppression for a file written in `syntax` (`None`: no directives), with the recipe's
    /// exclusions for it; `off` (`--no-suppress`) sets nothing apart.
    pub fn new(syntax: Option<Syntax>, file_rules: Vec<FileRule>, off: bool) -> Self {
        let used = vec![false; file_rules.len()];
        Suppression {
            syntax,
            off,
            file_rules,
            file_rules_used: used,
            ..Suppression::default()
        }
    }

    /// Lets directives name `names` too (the Vale rules and styles in force).
    pub fn with_names(mut self, names: Vec<String>) -> Self {
        self.names = names;
        self
    }

    /// Whether nothing is set apart (`--no-suppress`).
    pub fn is_off(&self) -> bool {
        self.off
    }

    /// Reads the directives of `text` (once; later calls do nothing), building the line index
    /// in `lines` only when the text holds one.
    pub fn scan(&mut self, text: &str, lines: &mut Option<LineIndex>) {
        if self.scanned {
            return;
        }
        self.scanned = true;
        let Some(syntax) = self.syntax.filter(|_| !self.off) else {
            return;
        };
        let kapi = memchr::memmem::Finder::new(b"kapi-");
        let vale = memchr::memmem::Finder::new(b"vale ");
        let bytes = text.as_bytes();
        if kapi.find(bytes).is_none() && vale.find(bytes).is_none() {
            return;
        }
        let lines = lines.get_or_insert_with(|| LineIndex::new(text));
        let mut found: Vec<(usize, bool)> = kapi.find_iter(bytes).map(|at| (at, false)).collect();
        found.extend(vale.find_iter(bytes).map(|at| (at, true)));
        found.sort_unstable();
        for (at, is_vale) in found {
            if self.directives.len() >= MAX_DIRECTIVES {
                // Past the cap a keyword is counted, never read (each read looks along its line).
                let rest = bytes.get(at..).unwrap_or_default();
                if is_vale
                    || Kind::KEYWORDS
                        .iter()
                        .any(|(k, _)| rest.starts_with(k.as_bytes()))
                {
                    self.ignored += 1;
                }
                continue;
            }
            let names = &self.names;
            let read = if is_vale {
                read_vale_directive(text, at, syntax, names)
            } else {
                read_directive(text, at, syntax, names)
            };
            if let Some(mut directive) = read {
                (directive.line, directive.column) = lines.position(text, directive.start);
                self.directives.push(directive);
            }
        }
        self.pending = self
            .directives
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind == Kind::NextLine)
            .map(|(i, _)| i)
            .collect();
        self.index();
    }

    /// Marks the directives `block` holds as examples when it is code (a code block, or inline
    /// code in its runs), and notes the block a next-line directive above it covers. Blocks come
    /// in reading order; a directive counts once every block before it was noted.
    pub fn note_block(&mut self, text: &str, block: &Block) {
        if self.directives.is_empty() {
            return;
        }
        let span = block.span.clone();
        let markup = matches!(self.syntax, Some(Syntax::Markup { .. }))
            || self.syntax == Some(RST)
            || self.syntax == Some(ASCIIDOC);
        // The directives inside the block: they are in file order.
        let first = self.directives.partition_point(|d| d.start < span.start);
        let inside = first..self.directives.partition_point(|d| d.start < span.end);
        if markup && !inside.is_empty() {
            let inline: Vec<(usize, usize)> = code_spans(&block.source.runs);
            let mut changed = false;
            for d in &mut self.directives[inside] {
                let in_code = block.role == Role::Code
                    || inline.iter().any(|&(s, e)| d.start >= s && d.start < e);
                if in_code && !d.in_code {
                    d.in_code = true;
                    changed = true;
                }
            }
            if changed {
                self.index();
            }
        }
        self.cover_next(text, block);
    }

    /// Gives each next-line directive above `block` its block: the first that starts after it,
    /// when only blank lines and comment lines lie between (a PO entry's `#:` lines, a blank
    /// line before a paragraph). Each directive is looked at once, by the first block after it.
    fn cover_next(&mut self, text: &str, block: &Block) {
        while let Some(&i) = self.pending.front() {
            let d = &self.directives[i];
            if d.end > block.span.start {
                return;
            }
            self.pending.pop_front();
            if d.in_code || d.next_block.is_some() {
                continue;
            }
            let between = text.get(d.end..block.span.start).unwrap_or_default();
            let syntax = self.syntax;
            let only_comments = between.len() <= MAX_BETWEEN
                && between.lines().all(|line| {
                    let line = line.trim();
                    line.is_empty() || syntax.is_some_and(|s| s.opens_comment(line))
                });
            if only_comments {
                self.directives[i].next_block = Some(block.key.clone());
                self.by_block.entry(block.key.clone()).or_default().push(i);
            }
        }
    }

    /// Rebuilds the line and region indexes from the directives that count.
    fn index(&mut self) {
        self.by_line.clear();
        let mut sweep = Sweep::default();
        for (i, d) in self.directives.iter().enumerate() {
            if d.in_code {
                continue;
            }
            let line = d.line;
            let every = d.selectors.is_empty() && d.unknown.is_empty();
            match d.kind {
                Kind::NextLine => self.by_line.entry(line + 1).or_default().push(i),
                Kind::SameLine => self.by_line.entry(line).or_default().push(i),
                Kind::Disable if every => {
                    sweep.close_all(line);
                    sweep.all = Some((line, i));
                }
                Kind::Disable => {
                    for (slot, s) in d.selectors.iter().enumerate() {
                        sweep.close(s, line);
                        sweep.open.insert(s.clone(), (line, i, slot));
                    }
                }
                Kind::Enable if every => sweep.close_all(line),
                Kind::Enable => {
                    for s in &d.selectors {
                        if let Some((from, at, slot)) = sweep.open.remove(s) {
                            sweep.region(Some(s.clone()), from, line, at, slot);
                        }
                        if sweep.all.is_some() {
                            sweep.except.entry(s.clone()).or_insert(line);
                        }
                    }
                }
            }
        }
        sweep.close_all(usize::MAX);
        for list in sweep.regions.values_mut() {
            list.sort_by_key(|r| r.from);
        }
        for list in sweep.excepted.values_mut() {
            list.sort_unstable();
        }
        (self.regions, self.excepted) = (sweep.regions, sweep.excepted);
    }

    /// What allows a finding of `rule` at `line` (0: none) in block `block`, if anything:
    /// the recipe, a same-line or next-line directive, a region. Marks what allowed it as used.
    pub fn verdict(
        &mut self,
        rule: &str,
        line: usize,
        block: Option<&str>,
        path: &str,
    ) -> Option<SuppressedBy> {
        if self.off || rule == UNUSED_DIRECTIVE.id {
            return None;
        }
        if let Some(by) = self.recipe_verdict(rule) {
            return Some(by);
        }
        if self.directives.is_empty() {
            return None;
        }
        let mut hit: Option<(usize, usize)> = None;
        if line > 0 {
            for i in self.by_line.get(&line).into_iter().flatten() {
                let d = &self.directives[*i];
                let applies = match d.kind {
                    Kind::SameLine => d.line == line,
                    _ => d.line + 1 == line,
                };
                if let Some(slot) = d.covers(rule).filter(|_| applies) {
                    hit = Some((*i, slot));
                    break;
                }
            }
        }
        if hit.is_none()
            && let Some(ids) = block.and_then(|b| self.by_block.get(b))
        {
            hit = ids
                .iter()
                .find_map(|&i| self.directives[i].covers(rule).map(|slot| (i, slot)));
        }
        if hit.is_none() {
            hit = self.region_at(rule, if line == 0 { usize::MAX - 1 } else { line });
        }
        let (i, slot) = hit?;
        let d = &mut self.directives[i];
        d.used[slot] = true;
        Some(SuppressedBy {
            kind: SuppressionKind::Directive,
            text: d.text.clone(),
            path: Some(path.to_owned()),
            line: Some(d.line),
        })
    }

    /// What the recipe's `rules:` say of `rule` in this file: the rule's own entry first, then
    /// its analyzer's.
    fn recipe_verdict(&mut self, rule: &str) -> Option<SuppressedBy> {
        if self.off {
            return None;
        }
        let i = self
            .file_rules
            .iter()
            .position(|r| r.selector == rule)
            .or_else(|| {
                self.file_rules
                    .iter()
                    .position(|r| r.selector == analyzer(rule))
            })?;
        self.file_rules_used[i] = true;
        let r = &self.file_rules[i];
        Some(SuppressedBy {
            kind: SuppressionKind::Recipe,
            text: r.text.clone(),
            path: Some(r.path.clone()),
            line: r.line,
        })
    }

    fn region_at(&self, rule: &str, line: usize) -> Option<(usize, usize)> {
        let find = |key: &Option<String>| {
            let list = self.regions.get(key)?;
            let i = list.partition_point(|r| r.from <= line);
            let r = list.get(i.checked_sub(1)?)?;
            (line < r.to).then_some((r.directive, r.slot))
        };
        for key in [rule, analyzer(rule)] {
            if let Some(found) = find(&Some(key.to_owned())) {
                return Some(found);
            }
        }
        let excepted = [rule, analyzer(rule)].iter().any(|key| {
            self.excepted.get(*key).is_some_and(|list| {
                let i = list.partition_point(|&(from, _)| from <= line);
                i > 0 && line < list[i - 1].1
            })
        });
        if excepted {
            return None;
        }
        find(&None)
    }

    /// Sets `finding` apart with what allowed it (listed up to [`MAX_SUPPRESSED`], every one
    /// counted).
    pub fn keep(&mut self, finding: Finding, by: SuppressedBy) {
        self.count += 1;
        if self.held.len() < MAX_SUPPRESSED {
            self.held.push(Suppressed {
                finding,
                suppressed_by: by,
            });
        }
    }

    /// Counts a suppressed finding the report does not list.
    pub fn count_only(&mut self) {
        self.count += 1;
    }

    /// Whether the report has room to list another suppressed finding.
    pub fn has_room(&self) -> bool {
        self.held.len() < MAX_SUPPRESSED
    }

    /// Sets apart those of `findings` a directive or the recipe allows; the rest are returned.
    pub fn filter(&mut self, findings: Vec<Finding>) -> Vec<Finding> {
        let mut kept = Vec::with_capacity(findings.len());
        for finding in findings {
            let by = {
                let (line, path) = (finding.line, finding.path.clone());
                self.verdict(&finding.rule, line, finding.block.as_deref(), &path)
            };
            match by {
                Some(by) => self.keep(finding, by),
                None => kept.push(finding),
            }
        }
        kept
    }

    /// The findings set apart (listed, and how many in all), and, when `report_unused`, a
    /// `suppress.unused-directive` finding for each directive that set nothing apart.
    pub fn finish(mut self, path: &str, report_unused: bool) -> Outcome {
        let mut unused = Vec::new();
        if report_unused {
            for d in self.directives.iter().filter(|d| !d.in_code && !d.vale) {
                if let Some(message) = unused_message(d) {
                    unused.push(Finding {
                        link: None,
                        rule: UNUSED_DIRECTIVE.id.to_owned(),
                        severity: UNUSED_DIRECTIVE.severity,
                        path: path.to_owned(),
                        line: d.line,
                        column: d.column,
                        start: d.start,
                        end: d.end,
                        block: None,
                        message,
                        matched: Some(d.text.clone()),
                        suggestion: None,
                    });
                }
            }
            if self.ignored > 0
                && let Some(last) = self.directives.last()
            {
                unused.push(Finding {
                    link: None,
                    rule: UNUSED_DIRECTIVE.id.to_owned(),
                    severity: UNUSED_DIRECTIVE.severity,
                    path: path.to_owned(),
                    line: last.line,
                    column: last.column,
                    start: last.start,
                    end: last.end,
                    block: None,
                    message: format!(
                        "{} more directives after this one were not read: kapi reads at most {MAX_DIRECTIVES} in a file",
                        self.ignored
                    ),
                    matched: None,
                    suggestion: None,
                });
            }
        }
        // The recipe may set unused directives aside too (a file of examples).
        let mut outcome = Outcome::default();
        for finding in unused {
            match self.recipe_verdict(UNUSED_DIRECTIVE.id) {
                Some(by) => self.keep(finding, by),
                None => outcome.unused.push(finding),
            }
        }
        outcome.held = self.held;
        outcome.count = self.count;
        outcome
    }
}

/// What a file's suppression set apart, and its unused directives.
#[derive(Debug, Default)]
pub struct Outcome {
    pub held: Vec<Suppressed>,
    /// Every finding set apart, listed or not.
    pub count: usize,
    /// `suppress.unused-directive` findings.
    pub unused: Vec<Finding>,
}

/// The directives read in order, region by region: what is open, and the regions closed.
#[derive(Default)]
struct Sweep {
    /// A region of every rule: its first line and its directive.
    all: Option<(usize, usize)>,
    /// Regions of one selector: first line, directive, slot.
    open: HashMap<String, (usize, usize, usize)>,
    /// Inside `all`, where a selector reports again: from which line.
    except: HashMap<String, usize>,
    regions: HashMap<Option<String>, Vec<Region>>,
    excepted: HashMap<String, Vec<(usize, usize)>>,
}

impl Sweep {
    /// Records a region of `[from, to)`, when it holds a line.
    fn region(
        &mut self,
        key: Option<String>,
        from: usize,
        to: usize,
        directive: usize,
        slot: usize,
    ) {
        if from < to {
            self.regions.entry(key).or_default().push(Region {
                from,
                to,
                directive,
                slot,
            });
        }
    }

    /// Ends `selector`'s region and its exception at `line`.
    fn close(&mut self, selector: &str, line: usize) {
        if let Some((from, at, slot)) = self.open.remove(selector) {
            self.region(Some(selector.to_owned()), from, line, at, slot);
        }
        if let Some(from) = self.except.remove(selector) {
            self.excepted
                .entry(selector.to_owned())
                .or_default()
                .push((from, line));
        }
    }

    /// Ends every region at `line`.
    fn close_all(&mut self, line: usize) {
        let selectors: Vec<String> = self
            .open
            .keys()
            .chain(self.except.keys())
            .cloned()
            .collect();
        for s in selectors {
            self.close(&s, line);
        }
        if let Some((from, at)) = self.all.take() {
            self.region(None, from, line, at, 0);
        }
    }
}

/// Why a directive counts as unused, if it does. A `kapi-enable` is never unused, but one that
/// names no rule is reported: it ends no region, so the region it meant to end goes on.
fn unused_message(d: &Directive) -> Option<String> {
    let mut parts = Vec::new();
    let (itself, unknown): (Vec<&String>, Vec<&String>) =
        d.unknown.iter().partition(|n| *n == UNUSED_DIRECTIVE.id);
    if !unknown.is_empty() {
        let known = known_names();
        let names: Vec<String> = unknown
            .iter()
            .map(|name| match crate::suggest::closest(name, &known) {
                Some(close) => format!("`{name}` (did you mean `{close}`?)"),
                None => format!("`{name}`"),
            })
            .collect();
        parts.push(format!(
            "names no rule kapi has: {} (`kapi help rules` lists them)",
            names.join(", ")
        ));
    }
    if !itself.is_empty() {
        parts.push(format!(
            "cannot set `{}` aside: the recipe's `rules:` can",
            UNUSED_DIRECTIVE.id
        ));
    }
    if d.kind == Kind::Enable {
        return (!parts.is_empty()).then(|| format!("`{}` {}", d.text, parts.join("; ")));
    }
    let idle: Vec<&str> = if d.selectors.is_empty() {
        Vec::new()
    } else {
        d.selectors
            .iter()
            .zip(&d.used)
            .filter(|(_, used)| !**used)
            .map(|(s, _)| s.as_str())
            .collect()
    };
    let none_used = !d.used.iter().any(|u| *u);
    if none_used && d.unknown.is_empty() {
        parts.push("suppressed nothing: remove it, or move it to the finding it was for".into());
    } else if !none_used && !idle.is_empty() {
        let names: Vec<String> = idle.iter().map(|s| format!("`{s}`")).collect();
        parts.push(format!("suppressed nothing for {}", names.join(", ")));
    }
    (!parts.is_empty()).then(|| format!("`{}` {}", d.text, parts.join("; ")))
}

/// The analyzer of a rule id (`terms` of `terms.forbidden`), or a Vale rule's style
/// (`Microsoft` of `Microsoft.Passive`).
fn analyzer(rule: &str) -> &str {
    rule.split_once('.').map_or(rule, |(analyzer, _)| analyzer)
}

/// `at` moved back to the nearest character boundary of `text`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Every rule id and analyzer a directive may name.
fn known_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = rule::all().iter().map(|r| r.id).collect();
    names.extend(ANALYZERS);
    names
}

/// Whether `name` is a rule id or an analyzer.
fn is_known(name: &str) -> bool {
    ANALYZERS.contains(&name) || rule::find(name).is_some()
}

/// The byte ranges of a block's inline code spans (class `code`) in the file.
fn code_spans(runs: &[Run]) -> Vec<(usize, usize)> {
    runs.iter()
        .filter_map(|run| match run {
            Run::Code(code) if code.kind == CodeKind::Standalone && code.class == "code" => {
                code.src.map(|s| (s, s + code.data.len()))
            }
            _ => None,
        })
        .collect()
}

/// The directive whose keyword starts at `at` of `text`, when it sits in a comment as
/// `syntax` writes one.
fn read_directive(text: &str, at: usize, syntax: Syntax, names: &[String]) -> Option<Directive> {
    let rest = text.get(at..)?;
    let (keyword, kind) = Kind::KEYWORDS
        .iter()
        .find(|(k, _)| rest.starts_with(k))
        .copied()?;
    let (body, open_at, end) = comment_body(text, at, keyword.len(), syntax)?;
    if body.starts_with('-') {
        return None; // `kapi-disable-foo`: not a keyword of ours
    }
    let named = body.split(" -- ").next().unwrap_or_default();
    let mut selectors = Vec::new();
    let mut unknown = Vec::new();
    for name in named
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|n| !n.is_empty())
    {
        if (is_known(name) || names.iter().any(|n| n == name)) && name != UNUSED_DIRECTIVE.id {
            if !selectors.iter().any(|s| s == name) {
                selectors.push(name.to_owned());
            }
        } else {
            unknown.push(name.to_owned());
        }
    }
    let mut shown = keyword.to_owned();
    for name in selectors.iter().chain(&unknown) {
        shown.push(' ');
        shown.push_str(name);
    }
    let slots = selectors.len().max(1);
    Some(Directive {
        kind,
        selectors,
        unknown,
        start: open_at,
        end,
        line: 0,
        column: 0,
        text: shown,
        in_code: false,
        used: vec![false; slots],
        next_block: None,
        vale: false,
    })
}

/// The comment around a keyword of `keyword_len` bytes at `at`, when it sits in a comment as
/// `syntax` writes one: what follows the keyword up to the comment's end, where the comment
/// opens and where it ends.
fn comment_body(
    text: &str,
    at: usize,
    keyword_len: usize,
    syntax: Syntax,
) -> Option<(&str, usize, usize)> {
    let keyword = text.get(at..at + keyword_len)?;
    // Only a reach of the line around the keyword is read: a scan of its whole line for each
    // keyword would be quadratic in a line of them.
    let back = floor_boundary(text, at.saturating_sub(REACH_BACK));
    let line_start = text[back..at].rfind('\n').map_or(back, |i| back + i + 1);
    let from = at + keyword.len();
    let on = floor_boundary(text, (from + REACH_ON).min(text.len()));
    let line_end = text[from..on].find('\n').map_or(on, |i| from + i);
    let before = text[line_start..at].trim_end_matches([' ', '\t']);
    let after_keyword = &text[from..line_end];
    // The keyword ends at a space, the end of the comment or the line.
    if keyword_len > 0
        && after_keyword
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, '-' | '*'))
    {
        return None;
    }
    let (opener, closer) = opener_before(before, syntax)?;
    let open_at = line_start + before.len() - opener.len();
    // A line comment's marker starts the line or follows a blank (`a#b` is no comment).
    let bounded = closer.is_some()
        || text[..open_at]
            .chars()
            .next_back()
            .is_none_or(|c| c == '\n' || c == ' ' || c == '\t');
    if !bounded {
        return None;
    }
    let (body, end) = match closer {
        Some(closer) => {
            let i = after_keyword.find(closer)?;
            (&after_keyword[..i], at + keyword.len() + i + closer.len())
        }
        None => (after_keyword.trim_end_matches('\r'), line_end),
    };
    Some((body, open_at, end))
}

/// Vale's comment directive whose `vale ` starts at `at` (`<!-- vale off -->`,
/// `<!-- vale Microsoft.Passive = NO -->`), as a region directive: `vale off` disables every
/// rule (kapi's too) until `vale on`; `Style.Rule = NO` and `Style = NO` disable that rule or
/// style until `= YES`. A directive naming matches (`Rule["a"] = NO`) covers the whole rule;
/// `vale style(s) = …` is not honoured (read, never a directive).
fn read_vale_directive(
    text: &str,
    at: usize,
    syntax: Syntax,
    names: &[String],
) -> Option<Directive> {
    use crate::vale::config::Directive as Vale;
    let (body, open_at, end) = comment_body(text, at, 0, syntax)?;
    let parsed = crate::vale::config::parse_directive(body)?;
    let (kind, name) = match parsed {
        Vale::Off => (Kind::Disable, None),
        Vale::On => (Kind::Enable, None),
        Vale::Rule { rule, enabled } | Vale::Matches { rule, enabled, .. } => (
            if enabled { Kind::Enable } else { Kind::Disable },
            Some(rule),
        ),
        Vale::Style { style, enabled } => (
            if enabled { Kind::Enable } else { Kind::Disable },
            Some(style),
        ),
        Vale::SetStyles(_) | Vale::Unrecognized(_) => return None,
    };
    let (selectors, unknown) = match name {
        None => (Vec::new(), Vec::new()),
        Some(n) if is_known(&n) || names.contains(&n) => (vec![n], Vec::new()),
        Some(n) => (Vec::new(), vec![n]),
    };
    Some(Directive {
        kind,
        selectors,
        unknown,
        start: open_at,
        end,
        line: 0,
        column: 0,
        text: body.trim().to_owned(),
        in_code: false,
        used: vec![false],
        next_block: None,
        vale: true,
    })
}

/// The comment opener `before` (the line up to the keyword, trailing blanks trimmed) ends
/// with, and the closer the comment needs on the same line.
fn opener_before(before: &str, syntax: Syntax) -> Option<(&'static str, Option<&'static str>)> {
    let markup: &[(&'static str, Option<&'static str>)] = &[("<!--", Some("-->"))];
    let jsx: &[(&'static str, Option<&'static str>)] =
        &[("<!--", Some("-->")), ("{/*", Some("*/}"))];
    let candidates: Vec<(&'static str, Option<&'static str>)> = match syntax {
        Syntax::Markup { jsx: true } => jsx.to_vec(),
        Syntax::Markup { jsx: false } | Syntax::Xml => markup.to_vec(),
        Syntax::Comments(openers) => openers
            .iter()
            .map(|&o| (o, (o == "/*").then_some("*/")))
            .collect(),
    };
    candidates
        .into_iter()
        .find(|(opener, _)| before.ends_with(opener))
}

#[cfg(test)]
#[path = "suppress_tests.rs"]
mod tests;
