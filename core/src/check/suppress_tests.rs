use super::*;
use crate::check::analyzers::{hygiene, terms, voice};
use crate::model::{Code, Run};

fn scanned(text: &str, syntax: Syntax) -> (Suppression, LineIndex) {
    let mut s = Suppression::new(Some(syntax), Vec::new(), false);
    let mut lines = None;
    s.scan(text, &mut lines);
    (s, lines.unwrap_or_else(|| LineIndex::new(text)))
}

fn md(text: &str) -> (Suppression, LineIndex) {
    scanned(text, Syntax::Markup { jsx: true })
}

fn kinds(s: &Suppression) -> Vec<(Kind, Vec<String>, usize)> {
    s.directives
        .iter()
        .map(|d| (d.kind, d.selectors.clone(), d.line))
        .collect()
}

#[test]
fn directives_are_read_from_each_format_s_comments() {
    let text = "a\n<!-- kapi-disable terms, voice.sentence-too-long -- legacy page -->\nb <!-- kapi-disable-line -->\n{/* kapi-disable-next-line hygiene */}\n<!-- kapi-enable -->\n";
    let (s, _) = md(text);
    assert_eq!(
        kinds(&s),
        vec![
            (
                Kind::Disable,
                vec!["terms".to_owned(), "voice.sentence-too-long".to_owned()],
                2
            ),
            (Kind::SameLine, vec![], 3),
            (Kind::NextLine, vec!["hygiene".to_owned()], 4),
            (Kind::Enable, vec![], 5),
        ]
    );
    assert_eq!(
        s.directives[0].text,
        "kapi-disable terms voice.sentence-too-long"
    );
    let (yaml, _) = scanned(
        "greeting: Hi # kapi-disable-line\n# kapi-disable-next-line terms.forbidden\nx: y\n",
        Syntax::Comments(&["#"]),
    );
    assert_eq!(
        kinds(&yaml),
        vec![
            (Kind::SameLine, vec![], 1),
            (Kind::NextLine, vec!["terms.forbidden".to_owned()], 2)
        ]
    );
    let (rust, _) = scanned(
        "/* kapi-disable */ fn a() {}\n// kapi-enable\n",
        Syntax::Comments(&["//", "/*"]),
    );
    assert_eq!(
        kinds(&rust),
        vec![(Kind::Disable, vec![], 1), (Kind::Enable, vec![], 2)]
    );
}

#[test]
fn look_alikes_are_not_directives() {
    for text in [
        "Run kapi-disable to turn it off.\n",
        "<!-- a kapi-disable -->\n",
        "<!-- kapi-disabled -->\n",
        "<!-- kapi-disable-foo -->\n",
        "<!-- kapi-disable\n-->\n",
        "# kapi-disable\n",
    ] {
        let (s, _) = md(text);
        assert!(s.directives.is_empty(), "{text:?}");
    }
    let (yaml, _) = scanned("a: b#kapi-disable\n", Syntax::Comments(&["#"]));
    assert!(yaml.directives.is_empty());
    let (json, mut lines) = (Suppression::new(None, Vec::new(), false), None::<LineIndex>);
    let mut json = json;
    json.scan("{\"a\": \"<!-- kapi-disable -->\"}", &mut lines);
    assert!(json.directives.is_empty());
}

fn rule_at(s: &mut Suppression, rule: &'static crate::check::Rule, line: usize) -> Option<usize> {
    s.verdict(rule.id, line, None, "a.md")
        .and_then(|by| by.line)
}

#[test]
fn regions_lines_and_rules_decide_what_is_set_apart() {
    let text = "1\n<!-- kapi-disable terms -->\n3\n<!-- kapi-enable terms -->\n5\n<!-- kapi-disable -->\n7\n<!-- kapi-enable voice -->\n9\n";
    let (mut s, _) = md(text);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 1), None);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 3), Some(2));
    assert_eq!(rule_at(&mut s, &voice::SENTENCE_TOO_LONG, 3), None);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 5), None);
    assert_eq!(rule_at(&mut s, &voice::SENTENCE_TOO_LONG, 7), Some(6));
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 7), Some(6));
    // `kapi-enable voice` inside a region of every rule: voice reports again, the rest not.
    assert_eq!(rule_at(&mut s, &voice::SENTENCE_TOO_LONG, 9), None);
    assert_eq!(rule_at(&mut s, &hygiene::REPEATED_WORD, 9), Some(6));
    // A region never ended also covers the document's findings (line 0).
    assert_eq!(rule_at(&mut s, &hygiene::REPEATED_WORD, 0), Some(6));
    let out = s.finish("a.md", true);
    assert!(out.unused.is_empty(), "{:?}", out.unused);
}

#[test]
fn next_line_covers_the_line_and_the_block_that_starts_there() {
    let text = "<!-- kapi-disable-next-line voice.sentence-too-long -->\nA long\nparagraph.\n\nMore <!-- kapi-disable-line -->\n";
    let (mut s, _) = md(text);
    let mut block = Block::new("top/p", Role::Paragraph, vec![Run::text_at("A long", 56)]);
    block.span = 56..74;
    s.note_block(text, &block);
    assert_eq!(rule_at(&mut s, &voice::SENTENCE_TOO_LONG, 2), Some(1));
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 2), None);
    let by_block = s.verdict(voice::SENTENCE_TOO_LONG.id, 3, Some("top/p"), "a.md");
    assert_eq!(by_block.and_then(|b| b.line), Some(1));
    assert_eq!(rule_at(&mut s, &voice::SENTENCE_TOO_LONG, 3), None);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 5), Some(5));
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 6), None);
}

#[test]
fn a_directive_in_code_is_an_example() {
    let text = "```\n<!-- kapi-disable -->\n```\n\nSee `<!-- kapi-disable-line -->` here.\n";
    let (mut s, _) = md(text);
    assert_eq!(s.directives.len(), 2);
    let mut fence = Block::new("top/code", Role::Code, vec![Run::text_at("x", 4)]);
    fence.span = 0..31;
    s.note_block(text, &fence);
    let at = text.find('`').unwrap_or(0);
    let inline = text[33..].find('`').map(|i| 33 + i).unwrap_or(at);
    let code = Code::new(
        "1",
        CodeKind::Standalone,
        "code",
        "`<!-- kapi-disable-line -->`",
        false,
    );
    let mut code = code;
    code.src = Some(inline);
    let mut para = Block::new(
        "top/p",
        Role::Paragraph,
        vec![Run::text_at("See ", 33), Run::Code(Box::new(code))],
    );
    para.span = 33..text.len();
    s.note_block(text, &para);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 2), None);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 5), None);
    assert!(s.finish("a.md", true).unused.is_empty());
}

#[test]
fn an_unused_or_misspelt_directive_is_a_finding() {
    let text = "<!-- kapi-disable-next-line voice.sentense-too-long -->\nShort.\n<!-- kapi-disable-line terms, voice -->\nx\n";
    let (mut s, _) = md(text);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 3), Some(3));
    let out = s.finish("a.md", true);
    let messages: Vec<(usize, &str)> = out
        .unused
        .iter()
        .map(|f| (f.line, f.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        vec![
            (
                1,
                "`kapi-disable-next-line voice.sentense-too-long` names no rule kapi has: `voice.sentense-too-long` (did you mean `voice.sentence-too-long`?) (`kapi help rules` lists them)"
            ),
            (
                3,
                "`kapi-disable-line terms voice` suppressed nothing for `voice`"
            ),
        ]
    );
    assert!(
        out.unused
            .iter()
            .all(|f| f.rule == "suppress.unused-directive")
    );
}

#[test]
fn the_recipe_and_no_suppress() {
    let rule = FileRule {
        selector: "voice".into(),
        text: "rules.voice.exclude".into(),
        path: "kapi.yaml".into(),
        line: Some(7),
    };
    let mut s = Suppression::new(None, vec![rule.clone()], false);
    let by = s.verdict(voice::SENTENCE_TOO_LONG.id, 3, None, "a.md");
    assert_eq!(
        by.map(|b| (b.kind, b.line)),
        Some((SuppressionKind::Recipe, Some(7)))
    );
    assert!(s.verdict(terms::FORBIDDEN.id, 3, None, "a.md").is_none());
    let mut off = Suppression::new(Some(Syntax::Markup { jsx: true }), vec![rule], true);
    let mut lines = None;
    off.scan("<!-- kapi-disable -->\n", &mut lines);
    assert!(
        off.verdict(voice::SENTENCE_TOO_LONG.id, 3, None, "a.md")
            .is_none()
    );
    assert!(off.finish("a.md", true).unused.is_empty());
}

#[test]
fn hostile_directive_floods_are_bounded() {
    let text = "<!-- kapi-disable-line -->\n".repeat(MAX_DIRECTIVES + 50);
    let (mut s, _) = md(&text);
    assert_eq!(s.directives.len(), MAX_DIRECTIVES);
    for line in 1..=2000 {
        let _ = rule_at(&mut s, &terms::FORBIDDEN, line);
    }
    let out = s.finish("a.md", true);
    assert!(
        out.unused
            .last()
            .is_some_and(|f| f.message.contains("50 more directives"))
    );
    // Many regions opened and closed: each verdict is a few binary searches.
    let text = "<!-- kapi-disable terms -->\n<!-- kapi-enable -->\n".repeat(400);
    let (mut s, _) = md(&text);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 799), Some(799));
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 800), None);
}

#[test]
fn a_next_line_directive_covers_the_first_block_after_comment_and_blank_lines() {
    let po = "# kapi-disable-next-line terms\n#: src/a.c:12\n#, c-format\nmsgid \"The whitelist.\"\nmsgstr \"\"\n";
    let (mut s, _) = scanned(po, Syntax::Comments(&["#"]));
    let at = po.find("msgid").unwrap_or(0);
    let mut entry = Block::new("The whitelist.", Role::Key, vec![Run::text_at("x", at)]);
    entry.span = at..po.len();
    s.note_block(po, &entry);
    let by = s.verdict(terms::FORBIDDEN.id, 4, Some("The whitelist."), "a.po");
    assert_eq!(by.and_then(|b| b.line), Some(1));
    // Prose between: the block after it is not the directive's.
    let text = "<!-- kapi-disable-next-line -->\nSome words.\n\nNext paragraph.\n";
    let (mut s, _) = md(text);
    let at = text.find("Next").unwrap_or(0);
    let mut next = Block::new("top/p#2", Role::Paragraph, vec![Run::text_at("Next", at)]);
    next.span = at..text.len();
    s.note_block(text, &next);
    assert!(
        s.verdict(terms::FORBIDDEN.id, 4, Some("top/p#2"), "a.md")
            .is_none()
    );
    // A blank line between the comment and its paragraph is fine.
    let text = "<!-- kapi-disable-next-line -->\n\nA whitelist.\n";
    let (mut s, _) = md(text);
    let at = text.find('A').unwrap_or(0);
    let mut para = Block::new("top/p", Role::Paragraph, vec![Run::text_at("A", at)]);
    para.span = at..text.len();
    s.note_block(text, &para);
    assert!(
        s.verdict(terms::FORBIDDEN.id, 3, Some("top/p"), "a.md")
            .is_some()
    );
}

#[test]
fn an_enable_that_names_no_rule_is_reported_and_the_unused_rule_is_the_recipe_s() {
    let text = "<!-- kapi-disable terms -->\nx\n<!-- kapi-enable termz -->\n<!-- kapi-disable-line suppress.unused-directive -->\n";
    let (mut s, _) = md(text);
    assert_eq!(rule_at(&mut s, &terms::FORBIDDEN, 2), Some(1));
    let out = s.finish("a.md", true);
    let messages: Vec<&str> = out.unused.iter().map(|f| f.message.as_str()).collect();
    assert!(
        messages.iter().any(|m| m.starts_with(
            "`kapi-enable termz` names no rule kapi has: `termz` (did you mean `terms`?)"
        )),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m
            .contains("cannot set `suppress.unused-directive` aside: the recipe's `rules:` can")),
        "{messages:?}"
    );
    // The recipe sets unused directives aside.
    let rule = FileRule {
        selector: "suppress.unused-directive".into(),
        text: "rules.suppress.unused-directive.exclude".into(),
        path: "kapi.yaml".into(),
        line: Some(3),
    };
    let mut s = Suppression::new(Some(Syntax::Markup { jsx: true }), vec![rule], false);
    let mut lines = None;
    s.scan("<!-- kapi-disable-line -->\n", &mut lines);
    let out = s.finish("a.md", true);
    assert!(out.unused.is_empty());
    assert_eq!(out.count, 1);
    assert_eq!(out.held[0].suppressed_by.kind, SuppressionKind::Recipe);
}

#[test]
fn a_rule_s_own_recipe_entry_wins_over_its_analyzer_s() {
    let entry = |selector: &str, line| FileRule {
        selector: selector.into(),
        text: format!("rules.{selector}.exclude"),
        path: "kapi.yaml".into(),
        line: Some(line),
    };
    let mut s = Suppression::new(
        None,
        vec![entry("terms", 3), entry("terms.forbidden", 5)],
        false,
    );
    let by = s.verdict(terms::FORBIDDEN.id, 1, None, "a.md");
    assert_eq!(by.and_then(|b| b.line), Some(5));
    let by = s.verdict(terms::DEPRECATED.id, 1, None, "a.md");
    assert_eq!(by.and_then(|b| b.line), Some(3));
}

#[test]
fn a_line_of_keywords_is_read_in_linear_time() {
    // Each keyword reads a bounded reach of its line: 200,000 on one line is quick, and past
    // the cap they are counted, not read.
    let text = format!("Text {}", "kapi-enable ".repeat(200_000));
    let (s, _) = md(&text);
    assert!(s.directives.is_empty());
    let text = format!("Text {}", "<!-- kapi-disable-line --> ".repeat(50_000));
    let (s, _) = md(&text);
    assert_eq!(s.directives.len(), MAX_DIRECTIVES);
    assert_eq!(s.ignored, 50_000 - MAX_DIRECTIVES);
}
