//! `voice`: the measurable parts of the voice in force. Prohibited patterns and the sentence
//! and paragraph limits are checked per block; required patterns once per document.
//! Every regex was compiled when the governance loaded: nothing compiles here.

use std::ops::Range;

use super::rule::declare_rule;
use crate::check::Sink;
use crate::check::sentences::{for_each_sentence, trimmed};
use crate::governance::{Governance, PatternRule, Severity};
use crate::model::{CodeKind, Edition, Role, Run};
use crate::text::CODE_MARK;

declare_rule! {
    /// ## What it flags
    /// Text matching one of the voice's `style.prohibited_patterns`, in any block. The
    /// message is the pattern's `description`, and the severity its `severity`. Patterns run
    /// over the prose as a reader sees it (emphasis and link markup gone, each inline code one
    /// opaque character). A match inside a URL, domain, e-mail address, @handle or file path
    /// that holds none of its `.`, `/`, `@`, `:` is not a finding (`!` in `#!/bin`). Words two
    /// patterns both match are reported once, by the more severe (the first declared of two as
    /// severe), its message naming the other's after `; also:`.
    ///
    /// ## Why it matters
    /// Prohibited patterns capture habits the voice rules out (minimisers such as "simply",
    /// exclamation marks, "click here"), so every writer and every assistant avoids them.
    ///
    /// ## Example
    /// With `(?i)\bsimply\b` prohibited: `Simply run the installer.` Use instead:
    /// `Run the installer.`
    pub PROHIBITED_PATTERN = "voice.prohibited-pattern", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A document in which nothing matches one of the voice's `style.required_patterns`.
    /// The patterns run once over all the document's prose, so the finding has no block
    /// and no line.
    ///
    /// ## Why it matters
    /// Required patterns state what every page must say (where to get support, a licence
    /// line), which is easy to forget on a new page.
    ///
    /// ## Example
    /// With `(?i)support` required, a page that never says where to get help. Use instead:
    /// add `Questions? Contact support at help@example.com.`
    pub REQUIRED_PATTERN = "voice.required-pattern", Severity::Major
}

declare_rule! {
    /// ## What it flags
    /// A sentence with more words than the voice's `style.constraints.max_sentence_words`.
    /// Sentences are read as a reader sees them: emphasis and link markup gone
    /// (`**Save first.** Then quit.` is two), each inline code one word. A sentence ends at a
    /// stop (`.`, `!`, `?`, `…`) followed by whitespace, where Unicode's sentence rules
    /// (UAX #29) end one: `.`, `...` and `…` only before a word that is not lower case (or an
    /// inline code), `!` and `?` before anything but a lower-case word after a closing quote
    /// (`“Ready?” she asked`). Never in an abbreviation (`e.g.`, `i.e.`, `vs.`, `cf.`,
    /// `Mr.`, `Dr.`, `St.`, `U.S.`, `J. Doe`; `etc.` before a capital does end one), a
    /// number (`3.14`, `v1.2.0`), a file name or a URL (`config.yaml`, `example.com/a.b`),
    /// or inside a code; a footnote, line break or HTML tag right after the stop stays with
    /// the sentence it ends. CJK full stops (`。！？`) end one with no space after them. A
    /// line break is a space: a hard-wrapped paragraph, list item or heading is read whole,
    /// and a heading is one sentence unless it has a stop.
    ///
    /// ## Why it matters
    /// Long sentences are harder to read, to scan and to translate; readers skim them and
    /// miss the action.
    ///
    /// ## Example
    /// `When you have finished editing the configuration file and saved it you should
    /// restart the service so that the new settings take effect.` Use instead: `Save the
    /// configuration file. Restart the service to apply the new settings.`
    pub SENTENCE_TOO_LONG = "voice.sentence-too-long", Severity::Minor
}

declare_rule! {
    /// ## What it flags
    /// A paragraph with more sentences than the voice's
    /// `style.constraints.max_paragraph_sentences`, its sentences counted as
    /// `voice.sentence-too-long` finds them (a hard-wrapped paragraph is one paragraph; its
    /// line breaks end no sentence). List items, headings and table cells are not paragraphs.
    ///
    /// ## Why it matters
    /// Long paragraphs read as walls of text; splitting them gives each idea its own
    /// place and makes pages easier to scan.
    ///
    /// ## Example
    /// One paragraph of eight sentences covering install, configuration and upgrade.
    /// Use instead: three paragraphs, one per task.
    pub PARAGRAPH_TOO_LONG = "voice.paragraph-too-long", Severity::Minor
}

/// Runs the per-block `voice` rules over one block's prose, pushing hits in prose offsets.
/// `cuts` are where the block's prose is cut before its sentences are read ([`cuts`]; none
/// for a plain block): no sentence runs across one.
pub fn check_block(gov: &Governance, role: Role, prose: &str, cuts: &[usize], hits: &mut dyn Sink) {
    prohibited(&gov.prohibited, prose, hits);
    let limits = &gov.constraints;
    if limits.max_sentence_words.is_none() && limits.max_paragraph_sentences.is_none() {
        return;
    }
    let mut sentences = 0usize;
    let mut from = 0;
    let ends = cuts
        .iter()
        .copied()
        .filter(|&at| at > 0 && at < prose.len() && prose.is_char_boundary(at))
        .chain([prose.len()]);
    for to in ends {
        if to <= from {
            continue;
        }
        let (piece, offset) = (&prose[from..to], from);
        from = to;
        // A piece of marks alone (a container's marker line) holds no sentence.
        if piece.chars().any(char::is_alphanumeric) {
            sentences_of(piece, offset, limits, &mut sentences, hits);
        }
    }
    if role == Role::Paragraph
        && let Some(max) = limits.max_paragraph_sentences
        && sentences > max as usize
    {
        let mut hit = PARAGRAPH_TOO_LONG.hit(
            trimmed(prose, 0..prose.len()),
            format!("paragraph has {sentences} sentences; the limit is {max}"),
        );
        hit.severity = limits.severity;
        hits.push(hit);
    }
}

/// Counts the sentences of `piece` (at `offset` of the block's prose) into `sentences` and
/// reports each over the limit.
fn sentences_of(
    piece: &str,
    offset: usize,
    limits: &crate::governance::Constraints,
    sentences: &mut usize,
    hits: &mut dyn Sink,
) {
    for_each_sentence(piece, |range, words| {
        if words == 0 {
            return;
        }
        *sentences += 1;
        if let Some(max) = limits.max_sentence_words
            && words > max as usize
        {
            let mut hit = SENTENCE_TOO_LONG.hit(
                range.start + offset..range.end + offset,
                format!("sentence has {words} words; the limit is {max}"),
            );
            hit.severity = limits.severity;
            hits.push(hit);
        }
    });
}

/// Where a block's prose is cut before its sentences are read, in prose offsets, in order:
/// after its lead-in label ([`lead_in`]), and before and after each container marker
/// (`::: tip Title`, the line break that ends it, the closing `:::`: codes of class
/// `directive`), so a container's title and the text under it are never one sentence.
pub fn cuts(edition: &Edition) -> Vec<usize> {
    let mut cuts = Vec::new();
    let lead = lead_in(edition);
    if lead > 0 {
        cuts.push(lead);
    }
    let directive = |run: &Run| matches!(run, Run::Code(code) if code.class == "directive");
    if !edition.runs.iter().any(directive) {
        return cuts;
    }
    let mut at = 0;
    for run in &edition.runs {
        match run {
            Run::Text { text, .. } => at += text.len(),
            Run::Code(code) if code.kind == CodeKind::Standalone => {
                if code.class == "directive" {
                    cuts.push(at);
                    cuts.push(at + CODE_MARK.len_utf8());
                }
                at += CODE_MARK.len_utf8();
            }
            Run::Code(_) => {}
            Run::Switch(_) => {
                let mut view = String::new();
                crate::text::push_prose(&mut view, std::slice::from_ref(run));
                at += view.len();
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// The most words a lead-in label holds (`**Note**:`, `**Paths to code in modules**:`).
const MAX_LEAD_WORDS: usize = 6;

/// Where a block's lead-in label ends in its prose view: an emphasised or strong phrase of at
/// most `MAX_LEAD_WORDS` (6) words that opens the block and is followed by a colon or a dash
/// (`**Safety**: If …`, `_[Motor](…)_ - These users …`, `**Note:** …`), the separator and the
/// space after it included. 0 when the block opens otherwise. Docs write such a label as a
/// heading for the item, not as words of its first sentence, so the sentence is counted
/// without it.
pub fn lead_in(edition: &Edition) -> usize {
    let runs = &edition.runs;
    let mut i = 0;
    let mut at = 0;
    // Blank text before the label.
    while let Some(Run::Text { text, .. }) = runs.get(i) {
        if !text.trim().is_empty() {
            return 0;
        }
        at += text.len();
        i += 1;
    }
    let Some(Run::Code(open)) = runs.get(i) else {
        return 0;
    };
    if open.kind != CodeKind::Open || !matches!(open.class.as_str(), "strong" | "emphasis") {
        return 0;
    }
    let mut label = String::new();
    let mut closed = false;
    for run in &runs[i + 1..] {
        i += 1;
        match run {
            Run::Text { text, .. } => {
                label.push_str(text);
                at += text.len();
            }
            Run::Code(code) if code.kind == CodeKind::Close && code.id == open.id => {
                closed = true;
                break;
            }
            Run::Code(code) if code.kind == CodeKind::Standalone => {
                label.push(CODE_MARK);
                at += CODE_MARK.len_utf8();
            }
            Run::Code(_) => {}
            Run::Switch(_) => return 0,
        }
    }
    let words = label.split_whitespace().count();
    if !closed || words == 0 || words > MAX_LEAD_WORDS {
        return 0;
    }
    // The separator: inside the label (`**Note:**`) or right after it.
    let after = match runs.get(i + 1) {
        Some(Run::Text { text, .. }) => text.as_str(),
        _ => "",
    };
    let inside = label.trim_end().ends_with(':');
    let sep = [":", " -", " –", " —"]
        .iter()
        .find(|s| after.starts_with(**s))
        .map(|s| s.len());
    let sep = match (inside, sep) {
        (true, _) => 0,
        (false, Some(sep)) => sep,
        (false, None) => return 0,
    };
    let rest = &after[sep..];
    let blank = rest.len() - rest.trim_start().len();
    at + sep + blank
}

/// Runs the per-document `voice` rules over the document's prose (every translatable
/// block's prose joined with `\n`). Hits have the empty range `0..0`: they sit in no block.
pub fn check_document(gov: &Governance, text: &str, hits: &mut dyn Sink) {
    for rule in &gov.required {
        if rule.regex.is_match(text) {
            continue;
        }
        let pattern = rule.regex.as_str();
        let message = match rule
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            Some(description) => format!("{description} (nothing matches `{pattern}`)"),
            None => format!("nothing matches the required pattern `{pattern}`"),
        };
        let mut hit = REQUIRED_PATTERN.hit(0..0, message);
        hit.severity = rule.severity;
        hits.push(hit);
    }
}

/// Every prohibited pattern's non-empty matches, in order of place, each range once: where two
/// patterns match the same words (`\bsimply\b` and `simply|just`), the more severe reports them
/// (the first declared of those as severe), its message naming the others' after `; also:`,
/// so a minor pattern declared first never hides a critical one from the gate.
fn prohibited(rules: &[PatternRule], prose: &str, hits: &mut dyn Sink) {
    if let [rule] = rules {
        for found in rule.regex.find_iter(prose).filter(|m| !m.is_empty()) {
            push_prohibited(rule, found.range(), &[], hits);
        }
        return;
    }
    let mut matches: Vec<_> = rules
        .iter()
        .map(|rule| {
            rule.regex
                .find_iter(prose)
                .filter(|m| !m.is_empty())
                .peekable()
        })
        .collect();
    // The rules that matched the range in hand, in the order they are declared.
    let mut same: Vec<&PatternRule> = Vec::new();
    loop {
        let mut first: Option<Range<usize>> = None;
        for found in &mut matches {
            if let Some(m) = found.peek()
                && first
                    .as_ref()
                    .is_none_or(|r| (m.start(), m.end()) < (r.start, r.end))
            {
                first = Some(m.range());
            }
        }
        let Some(range) = first else { break };
        same.clear();
        for (rule, found) in rules.iter().zip(&mut matches) {
            if found.peek().is_some_and(|m| m.range() == range) {
                found.next();
                same.push(rule);
            }
        }
        // `Severity` orders the most severe first; `min_by_key` keeps the first of a tie.
        let Some(at) = (0..same.len()).min_by_key(|&i| same[i].severity) else {
            continue;
        };
        let rule = same.remove(at);
        push_prohibited(rule, range, &same, hits);
    }
}

/// Pushes `rule`'s hit at `range`, its message naming the other rules that matched the same
/// words (`others`) after its own.
fn push_prohibited(
    rule: &PatternRule,
    range: Range<usize>,
    others: &[&PatternRule],
    hits: &mut dyn Sink,
) {
    let mut message = pattern_message(rule);
    if !others.is_empty() {
        let mut named = vec![message.clone()];
        for other in others {
            let said = pattern_message(other);
            if !named.contains(&said) {
                message.push_str(if named.len() == 1 { "; also: " } else { "; " });
                message.push_str(&said);
                named.push(said);
            }
        }
    }
    let mut hit = PROHIBITED_PATTERN.hit(range, message);
    hit.severity = rule.severity;
    hits.push(hit);
}

/// What a prohibited pattern's finding says: its description, else the pattern.
fn pattern_message(rule: &PatternRule) -> String {
    match rule
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(description) => description.to_owned(),
        None => format!("matches `{}`", rule.regex.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;
    use crate::governance::Constraints;

    fn pattern(re: &str, description: Option<&str>, severity: Severity) -> PatternRule {
        PatternRule {
            regex: Regex::new(re).unwrap_or_else(|e| panic!("test regex: {e}")),
            description: description.map(str::to_owned),
            severity,
            field: "style.prohibited_patterns[0]".to_owned(),
        }
    }

    fn limits(words: Option<u32>, sentences: Option<u32>) -> Governance {
        let mut gov = Governance::empty();
        gov.constraints = Constraints {
            max_sentence_words: words,
            max_paragraph_sentences: sentences,
            severity: Severity::Minor,
        };
        gov
    }

    type Row = (&'static str, Severity, Range<usize>, String);

    fn block(gov: &Governance, role: Role, prose: &str) -> Vec<Row> {
        let mut hits = Vec::new();
        check_block(gov, role, prose, &[], &mut hits);
        hits.into_iter()
            .map(|h| (h.rule.id, h.severity, h.range, h.message))
            .collect()
    }

    fn code(id: &str, kind: CodeKind, class: &str, data: &str) -> Run {
        crate::model::Code::new(id, kind, class, data, false).into()
    }

    #[test]
    fn a_container_title_and_the_text_under_it_are_not_one_sentence() {
        let edition = Edition::new(vec![
            code("1", CodeKind::Standalone, "directive", ":::warning "),
            Run::text("Notes on Production Use"),
            code("2", CodeKind::Standalone, "directive", "\n"),
            Run::text("Use the production build here."),
            code("3", CodeKind::Standalone, "directive", "\n:::"),
        ]);
        let prose = crate::text::Prose::from_edition(&edition);
        let gov = limits(Some(5), Some(1));
        let mut hits = Vec::new();
        check_block(
            &gov,
            Role::Paragraph,
            &prose.text,
            &cuts(&edition),
            &mut hits,
        );
        let rows: Vec<(&str, String)> = hits
            .iter()
            .map(|h| (h.rule.id, prose.text[h.range.clone()].to_owned()))
            .collect();
        // Two sentences (title, text), the marker lines none; without the cuts, one of 8 words.
        assert_eq!(
            rows,
            vec![(
                "voice.paragraph-too-long",
                "\u{FFFC}Notes on Production Use\u{FFFC}Use the production build here.\u{FFFC}"
                    .to_owned()
            )]
        );
        let mut uncut = Vec::new();
        check_block(&gov, Role::Paragraph, &prose.text, &[], &mut uncut);
        assert_eq!(uncut[0].message, "sentence has 8 words; the limit is 5");
    }

    #[test]
    fn a_lead_in_label_is_no_part_of_the_first_sentence() {
        let strong = |label: &str, after: &str| {
            Edition::new(vec![
                code("1", CodeKind::Open, "strong", "**"),
                Run::text(label),
                code("1", CodeKind::Close, "strong", "**"),
                Run::text(after),
            ])
        };
        let safety = strong("Safety", ": If it is unsafe, say why.");
        assert_eq!(lead_in(&safety), "Safety: ".len());
        assert_eq!(lead_in(&strong("Note:", " Save first.")), "Note: ".len());
        assert_eq!(
            lead_in(&strong("Motor", " - These users")),
            "Motor - ".len()
        );
        // Bold words that start a sentence, a long phrase, or no separator: no label.
        assert_eq!(lead_in(&strong("Never", " run it twice.")), 0);
        assert_eq!(
            lead_in(&strong("one two three four five six seven", ": x")),
            0
        );
        let plain = Edition::new(vec![Run::text("Safety: If it is unsafe.")]);
        assert_eq!(lead_in(&plain), 0);
        // An emphasised link as the label (`_[Motor](url)_ - …`).
        let linked = Edition::new(vec![
            code("1", CodeKind::Open, "emphasis", "_"),
            code("2", CodeKind::Open, "link", "["),
            Run::text("Motor"),
            code("2", CodeKind::Close, "link", "](u)"),
            code("1", CodeKind::Close, "emphasis", "_"),
            Run::text(" - These users benefit."),
        ]);
        assert_eq!(lead_in(&linked), "Motor - ".len());
        // The first sentence is counted without it.
        let gov = limits(Some(6), None);
        let prose = "Safety: If it is unsafe, say why.";
        let mut hits = Vec::new();
        check_block(&gov, Role::ListItem, prose, &cuts(&safety), &mut hits);
        assert!(hits.is_empty(), "{hits:?}");
        check_block(&gov, Role::ListItem, prose, &[], &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].message, "sentence has 7 words; the limit is 6");
    }

    #[test]
    fn prohibited_patterns_report_every_leftmost_match_with_the_rule_severity() {
        let mut gov = Governance::empty();
        gov.prohibited.push(pattern(
            r"(?i)\b(simply|just)\s+(click|run)\b",
            Some("Minimising words"),
            Severity::Minor,
        ));
        gov.prohibited
            .push(pattern(r"!{2,}", None, Severity::Major));
        gov.prohibited
            .push(pattern(r"x*", Some("zero-width"), Severity::Major));
        let rows = block(&gov, Role::Paragraph, "Simply click it!! Then just run.");
        assert_eq!(
            rows,
            vec![
                (
                    "voice.prohibited-pattern",
                    Severity::Minor,
                    0..12,
                    "Minimising words".to_owned()
                ),
                (
                    "voice.prohibited-pattern",
                    Severity::Major,
                    15..17,
                    "matches `!{2,}`".to_owned()
                ),
                (
                    "voice.prohibited-pattern",
                    Severity::Minor,
                    23..31,
                    "Minimising words".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn two_patterns_matching_the_same_words_report_them_once_by_the_more_severe() {
        let mut gov = Governance::empty();
        gov.prohibited
            .push(pattern(r"(?i)\bsimply\b", Some("first"), Severity::Minor));
        gov.prohibited.push(pattern(
            r"(?i)simply|just",
            Some("second"),
            Severity::Critical,
        ));
        gov.prohibited
            .push(pattern(r"(?i)\bsimply", None, Severity::Major));
        let rows = block(&gov, Role::Paragraph, "Simply run it, just once.");
        let found: Vec<(Severity, Range<usize>, &str)> = rows
            .iter()
            .map(|r| (r.1, r.2.clone(), r.3.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    Severity::Critical,
                    0..6,
                    "second; also: first; matches `(?i)\\bsimply`"
                ),
                (Severity::Critical, 15..19, "second"),
            ]
        );
    }

    #[test]
    fn of_two_patterns_as_severe_on_the_same_words_the_first_declared_reports_them() {
        let mut gov = Governance::empty();
        for description in ["Minimising words", "Talks down", "Minimising words"] {
            gov.prohibited.push(pattern(
                r"(?i)\bsimply\b",
                Some(description),
                Severity::Minor,
            ));
        }
        let rows = block(&gov, Role::Paragraph, "Simply run it.");
        let found: Vec<(Severity, &str)> = rows.iter().map(|r| (r.1, r.3.as_str())).collect();
        assert_eq!(
            found,
            [(Severity::Minor, "Minimising words; also: Talks down")]
        );
        // One pattern alone is its description, as before.
        gov.prohibited.truncate(1);
        let rows = block(&gov, Role::Paragraph, "Simply run it.");
        assert_eq!(rows[0].3, "Minimising words");
    }

    #[test]
    fn required_patterns_are_checked_once_over_the_document() {
        let mut gov = Governance::empty();
        gov.required.push(pattern(
            "(?i)support",
            Some("Every page says where to get support"),
            Severity::Minor,
        ));
        gov.required
            .push(pattern(r"(?m)^Licence", None, Severity::Major));
        gov.required
            .push(pattern(r"first\nsecond", None, Severity::Major));
        let mut hits = Vec::new();
        check_document(&gov, "first\nsecond mentions Support", &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].rule.id, "voice.required-pattern");
        assert_eq!(hits[0].severity, Severity::Major);
        assert_eq!(hits[0].range, 0..0);
        assert_eq!(
            hits[0].message,
            "nothing matches the required pattern `(?m)^Licence`"
        );
        let mut hits = Vec::new();
        check_document(&gov, "Licence\nfirst\nsecond", &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            hits[0].message,
            "Every page says where to get support (nothing matches `(?i)support`)"
        );
        assert_eq!(hits[0].severity, Severity::Minor);
    }

    #[test]
    fn a_long_sentence_is_reported_with_its_range_and_count() {
        let gov = limits(Some(5), None);
        let prose = "Short one. This sentence has far too many words in it! Fine again?";
        let rows = block(&gov, Role::Paragraph, prose);
        assert_eq!(
            rows,
            vec![(
                "voice.sentence-too-long",
                Severity::Minor,
                11..54,
                "sentence has 9 words; the limit is 5".to_owned()
            )]
        );
        assert_eq!(
            &prose[11..54],
            "This sentence has far too many words in it!"
        );
    }

    #[test]
    fn constraint_severity_comes_from_the_constraints() {
        let mut gov = limits(Some(2), None);
        gov.constraints.severity = Severity::Major;
        assert_eq!(
            block(&gov, Role::Paragraph, "one two three")[0].1,
            Severity::Major
        );
    }

    #[test]
    fn a_line_break_ends_no_sentence_in_any_block() {
        let gov = limits(Some(3), None);
        let text = "one two three\nfour five six";
        for role in [
            Role::Paragraph,
            Role::ListItem,
            Role::Heading,
            Role::TableCell,
        ] {
            let rows = block(&gov, role, text);
            assert_eq!(rows.len(), 1, "{role:?}");
            assert_eq!(rows[0].2, 0..text.len());
            assert_eq!(rows[0].3, "sentence has 6 words; the limit is 3");
        }
        assert!(block(&gov, Role::Heading, "One two. Three four.").is_empty());
    }

    #[test]
    fn a_sentence_ends_inside_emphasis_as_a_reader_sees_it() {
        use crate::model::{Code, CodeKind, Edition, Run};
        use crate::text::Prose;
        let pair =
            |id: &str, kind, data: &str| Run::from(Code::new(id, kind, "strong", data, true));
        let edition = Edition::new(vec![
            pair("1", CodeKind::Open, "**"),
            Run::text("Open the settings first."),
            pair("1", CodeKind::Close, "**"),
            Run::text(" Then pick a theme."),
        ]);
        let prose = Prose::from_edition(&edition);
        let gov = limits(Some(4), Some(1));
        let rows = block(&gov, Role::Paragraph, &prose.text);
        let ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            ids,
            ["voice.paragraph-too-long"],
            "two short sentences: {rows:?}"
        );
    }

    #[test]
    fn a_long_paragraph_is_reported_over_the_whole_paragraph() {
        let gov = limits(None, Some(2));
        let prose = "  One. Two! Three? Four.\n";
        let rows = block(&gov, Role::Paragraph, prose);
        assert_eq!(
            rows,
            vec![(
                "voice.paragraph-too-long",
                Severity::Minor,
                2..24,
                "paragraph has 4 sentences; the limit is 2".to_owned()
            )]
        );
        assert!(
            block(&gov, Role::ListItem, prose).is_empty(),
            "paragraphs only"
        );
        assert!(block(&gov, Role::Paragraph, "One. Two.").is_empty());
    }

    #[test]
    fn fixture_paragraph_breaks_both_limits() {
        let text = include_str!("../../../../testdata/check/voice/long.txt");
        let gov = limits(Some(30), Some(3));
        let rows = block(&gov, Role::Paragraph, text.trim_end());
        let ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            ids,
            vec!["voice.sentence-too-long", "voice.paragraph-too-long"]
        );
        assert_eq!(rows[0].3, "sentence has 41 words; the limit is 30");
        assert_eq!(rows[1].3, "paragraph has 4 sentences; the limit is 3");
    }
}
