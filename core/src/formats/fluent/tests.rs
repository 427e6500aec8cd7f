use super::*;
use crate::formats::conformance;
use crate::model::{Edition, Run, SwitchKind, fingerprint_runs};

/// Each block's key and text as Fluent resolves it (codes as their bytes, a switch as its
/// branches' texts in brackets).
fn blocks(text: &str) -> Vec<(String, String)> {
    let parsed = Fluent.read(text.as_bytes()).unwrap();
    assert_eq!(
        Fluent.write(&parsed).unwrap(),
        text.as_bytes(),
        "no-op write"
    );
    parsed
        .document
        .blocks
        .iter()
        .map(|b| (b.key.clone(), shown(&b.source.runs)))
        .collect()
}

fn shown(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Code(code) => out.push_str(&format!("<{}>", code.data)),
            Run::Switch(s) => {
                for b in &s.branches {
                    out.push_str(&format!("[{}:{}]", b.case, shown(&b.runs)));
                }
            }
        }
    }
    out
}

/// Sets block `key`'s runs, writes, and checks that a re-read gives the same runs;
/// returns the written text.
fn edit(text: &str, key: &str, runs: Vec<Run>) -> String {
    let mut parsed = Fluent.read(text.as_bytes()).unwrap();
    let block = parsed.document.block_mut(key).unwrap();
    block.source = Edition::new(runs.clone());
    let written = String::from_utf8(Fluent.write(&parsed).unwrap()).unwrap();
    let reread = Fluent
        .read(written.as_bytes())
        .unwrap_or_else(|e| panic!("{e}: {written}"));
    let again = reread.document.block(key).unwrap();
    assert_eq!(
        fingerprint_runs(&again.source.runs),
        fingerprint_runs(&runs),
        "{written:?} reads back as {:?}",
        again.source.runs
    );
    let keys = |p: &Parsed| conformance::keys(p).join(",");
    assert_eq!(keys(&reread), keys(&parsed), "{written}");
    written
}

#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    let edited = conformance::run_corpus(&Fluent, "fluent");
    // The rest hold no text outside a placeable or select (call and select fixtures), or
    // only junk and comments.
    assert!(edited > 30, "{edited}");
}

#[test]
fn messages_terms_and_attributes_are_blocks_with_notes() {
    let text = "### Resource comment\n\n## Group\n\n# Shown on the home page.\n# Keep it short.\nhello = Hello, { $name }!\n    .title = Greeting for { -brand }\n\n# Stands alone.\n\n-brand = Firefox\n    .gender = masculine\nonly-attrs =\n    .label = Label { msg.attr } { NUMBER($n, minimumFractionDigits: 2) } { 5 }\nhello = again\n";
    assert_eq!(
        blocks(text),
        [
            ("hello", "Hello, <{ $name }>!"),
            ("hello.title", "Greeting for <{ -brand }>"),
            ("-brand", "Firefox"),
            ("-brand.gender", "masculine"),
            (
                "only-attrs.label",
                "Label <{ msg.attr }> <{ NUMBER($n, minimumFractionDigits: 2) }> <{ 5 }>"
            ),
            ("hello#2", "again"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    let parsed = Fluent.read(text.as_bytes()).unwrap();
    let notes: Vec<&[String]> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.notes.as_slice())
        .collect();
    let home = ["Shown on the home page.\nKeep it short.".to_owned()];
    assert_eq!(notes[..3], [&home[..], &home[..], &[][..]]);
}

#[test]
fn a_select_expression_is_a_switch_with_a_branch_per_variant() {
    let text = "emails = You have { $count ->\n    [0] no mail\n    [one] one mail\n   *[other] { $count } mails\n}.\nshared = { $gender ->\n    [male] his\n   *[other] { PLATFORM() ->\n        [macos] their Mac\n       *[other] their\n    }\n} photo\nrank = { NUMBER($pos, type: \"ordinal\") ->\n   *[one] st\n    [two] nd\n}\n";
    assert_eq!(
        blocks(text),
        [
            (
                "emails",
                "You have [=0:no mail][one:one mail][other:<{ $count }> mails]."
            ),
            (
                "shared",
                "[male:his][other:[macos:their Mac][other:their]] photo"
            ),
            ("rank", "[one:st][two:nd]"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    let parsed = Fluent.read(text.as_bytes()).unwrap();
    let switch = |i: usize| match parsed.document.blocks[i]
        .source
        .runs
        .iter()
        .find_map(|r| match r {
            Run::Switch(s) => Some(s.clone()),
            _ => None,
        }) {
        Some(s) => s,
        None => panic!("{i}: no switch"),
    };
    let emails = switch(0);
    assert_eq!(
        (emails.kind, emails.pivot.as_str()),
        (SwitchKind::Plural, "count")
    );
    assert_eq!(emails.head, "{ $count ->");
    assert_eq!(emails.branches[2].open, "\n   *[other] ");
    assert_eq!(emails.tail, "\n}");
    assert_eq!(switch(1).kind, SwitchKind::Select);
    assert_eq!(
        (switch(2).kind, switch(2).pivot.as_str()),
        (SwitchKind::Ordinal, "pos")
    );
    // An edit of one branch rewrites the pattern, which reads back the same.
    let mut runs = parsed.document.blocks[0].source.runs.clone();
    if let Some(Run::Switch(s)) = runs.get_mut(1) {
        s.branches[1].runs = vec![Run::text("a {single} mail\n[really]")];
    }
    let out = edit(text, "emails", runs);
    assert!(
        out.contains("    [one] a {\"{\"}single{\"}\"} mail\n        {\"[\"}really]\n   *[other]"),
        "{out}"
    );
}

#[test]
fn multiline_values_read_as_fluent_resolves_them() {
    let text = "key01 = A multiline value\n    continued on the next line\n\n    and also down here.\n\nkey02 =\n    A value starting\n      on a new line.   \n\nkey03 =\n{\".\"}\n    four\n\nkey04 =     Leading and trailing whitespace.     \nkey05 = { \"{\" }braces{\"}\"} and {\"  \"}\n";
    assert_eq!(
        blocks(text),
        [
            (
                "key01",
                "A multiline value\ncontinued on the next line\n\nand also down here."
            ),
            ("key02", "A value starting\n  on a new line."),
            ("key03", ".\n    four"),
            ("key04", "Leading and trailing whitespace."),
            ("key05", "{braces} and   "),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
}

#[test]
fn edits_are_escaped_and_reindented() {
    let text = "plain = Old text\n    .attr = Old attr\nmulti =\n    Line one\n    line two\nlist = Items\n";
    let out = edit(text, "plain", vec![Run::text("New text")]);
    assert_eq!(out, text.replace("Old text", "New text"));
    let out = edit(text, "plain.attr", vec![Run::text("one\ntwo")]);
    assert!(out.contains("    .attr = one\n        two\n"), "{out}");
    let out = edit(text, "multi", vec![Run::text("First\n\n  second\nthird ")]);
    assert!(
        out.contains("multi =\n    First\n\n    {\"  \"}second\n    third{\" \"}\n"),
        "{out}"
    );
    let out = edit(text, "list", vec![Run::text("[a]\n*b\n.c {d}")]);
    assert!(
        out.contains("list = [a]\n    {\"*\"}b\n    {\".\"}c {\"{\"}d{\"}\"}\n"),
        "{out}"
    );
    let out = edit(text, "plain", vec![Run::text(" \nspaced\n")]);
    assert!(
        out.contains("plain = {\" \\u000A\"}spaced{\"\\u000A\"}\n"),
        "{out}"
    );
    edit(text, "plain", vec![]);
    edit(text, "plain", vec![Run::text("a\r\nb \"q\" \\ }")]);
}

#[test]
fn crlf_and_a_bom_round_trip_and_an_edit_keeps_crlf() {
    let text = "\u{feff}# Note\r\nhello = Hello\r\n    world\r\n    .title = T\r\n";
    assert_eq!(
        blocks(text),
        [("hello", "Hello\nworld"), ("hello.title", "T")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    let out = edit(text, "hello", vec![Run::text("a\nb")]);
    assert_eq!(
        out,
        "\u{feff}# Note\r\nhello = a\r\n    b\r\n    .title = T\r\n"
    );
}

#[test]
fn junk_stays_in_the_skeleton_and_the_rest_is_read() {
    let text = "value = Value\n    .Continued\ngood = Yes\nbad { here\n  more junk\nunclosed = { $x\n# attached to nothing\nbroken = {$n ->\n    [one] no default\n}\nlast = Fine\n";
    assert_eq!(
        blocks(text),
        [("value", "Value"), ("good", "Yes"), ("last", "Fine")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
}

#[test]
fn hostile_input_is_bounded() {
    let many = "k = { $a } text\n".repeat(50_000);
    let parsed = Fluent.read(many.as_bytes()).unwrap();
    assert_eq!(parsed.document.blocks.len(), 50_000);
    assert_eq!(Fluent.write(&parsed).unwrap(), many.as_bytes());
    let dense = format!("k = {}\n", "{ $a }".repeat(20_000));
    let error = Fluent.read(dense.as_bytes()).unwrap_err();
    assert!(matches!(error, ReadError::TooDense { .. }), "{error}");
    let deep = format!("k = {}$a{}\n", "{ ".repeat(100_000), " }".repeat(100_000));
    let error = Fluent.read(deep.as_bytes()).unwrap_err();
    assert!(matches!(error, ReadError::TooDeep { .. }), "{error}");
    let mut nested = String::from("k = ");
    for _ in 0..40 {
        nested.push_str("{ $a ->\n *[x] ");
    }
    nested.push_str(&"y\n}".repeat(40));
    assert!(matches!(
        Fluent.read(nested.as_bytes()),
        Err(ReadError::TooDeep { .. })
    ));
    let variants = format!(
        "k = {{ $a ->\n{}  *[other] z\n}}\n",
        "  [one] x\n".repeat(20_000)
    );
    assert!(
        Fluent.read(variants.as_bytes()).is_err(),
        "past the code limit"
    );
    for junk in [
        "{",
        "}",
        "k = {",
        "k = \"",
        "-",
        "#x",
        "k = { $a -> }",
        "\r\r\r",
        "k =\n",
    ] {
        let parsed = Fluent.read(junk.as_bytes()).unwrap();
        assert_eq!(Fluent.write(&parsed).unwrap(), junk.as_bytes());
    }
    let lines = "k = a\n".to_owned() + &"  b\n".repeat(100_000);
    assert_eq!(
        Fluent.read(lines.as_bytes()).unwrap().document.blocks.len(),
        1
    );
}
