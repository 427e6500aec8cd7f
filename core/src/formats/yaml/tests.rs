use super::blocks::{is_string, push_segment};
use super::*;
use crate::formats::conformance::keys;
use crate::model::Edition;
use crate::model::{Run, SwitchKind};
use crate::yaml_text::{is_symbol, resolves_to_non_string};

fn read(text: &str) -> Parsed {
    Yaml.read(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Yaml.write(parsed).unwrap()).unwrap()
}

fn native(runs: &[Run]) -> String {
    let mut out = String::new();
    super::super::render_runs(runs, &mut out, &mut |t, o| o.push_str(t));
    out
}

/// `key = text` per block; a plural shows its branches.
fn table(parsed: &Parsed) -> Vec<String> {
    parsed
        .document
        .blocks
        .iter()
        .map(|b| {
            let leaves = b.source.leaves();
            if leaves.is_empty() {
                format!("{} = {:?}", b.key, native(&b.source.runs))
            } else {
                let branches: Vec<String> = leaves
                    .iter()
                    .map(|(path, runs)| format!("{path}={:?}", native(runs)))
                    .collect();
                format!("{} = {}", b.key, branches.join(" "))
            }
        })
        .collect()
}

fn set_text(parsed: &mut Parsed, key: &str, text: &str) {
    let block = parsed
        .document
        .block_mut(key)
        .unwrap_or_else(|| panic!("no block {key}"));
    block.source = Edition::new(vec![Run::text(text)]);
}

fn set_branch(parsed: &mut Parsed, key: &str, branch: &str, text: &str) {
    let block = parsed.document.block_mut(key).unwrap();
    *block.source.branch_mut(branch).unwrap() = vec![Run::text(text)];
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    super::super::conformance::fixtures("yaml")
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn every_fixture_round_trips_and_runs_point_into_the_file() {
    for (name, bytes) in fixtures() {
        let parsed = Yaml.read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!parsed.document.blocks.is_empty(), "{name}: no blocks");
        assert_eq!(Yaml.write(&parsed).unwrap(), bytes, "{name}");
        let text = parsed.skeleton.text();
        for block in &parsed.document.blocks {
            for run in &block.source.runs {
                if let Run::Text {
                    text: t,
                    src: Some(at),
                } = run
                {
                    assert_eq!(&text[*at..*at + t.len()], t, "{name}: {}", block.key);
                }
            }
        }
    }
}

/// The string values serde_yaml (libyaml) reads, by this module's key scheme.
fn serde_strings(value: &serde_yaml::Value, path: &str, out: &mut Vec<(String, String)>) {
    let join = |seg: &str| {
        let mut p = path.to_owned();
        if !p.is_empty() {
            p.push('.');
        }
        push_segment(&mut p, seg);
        p
    };
    match value {
        serde_yaml::Value::String(s) => out.push((path.to_owned(), s.clone())),
        serde_yaml::Value::Mapping(map) => {
            for (k, v) in map {
                let key = match k {
                    serde_yaml::Value::String(s) => s.clone(),
                    other => serde_yaml::to_string(other).unwrap().trim().to_owned(),
                };
                serde_strings(v, &join(&key), out);
            }
        }
        serde_yaml::Value::Sequence(items) => {
            for (i, v) in items.iter().enumerate() {
                serde_strings(v, &join(&i.to_string()), out);
            }
        }
        serde_yaml::Value::Tagged(t) => serde_strings(&t.value, path, out),
        _ => {}
    }
}

/// Every string this scanner reads, by path (no Rails root or plural folding); aliases
/// and scalars with an application tag go to `skip`.
fn own_strings(node: &Node, path: &str, out: &mut Vec<(String, String)>, skip: &mut Vec<String>) {
    let join = |seg: &str| {
        let mut p = path.to_owned();
        if !p.is_empty() {
            p.push('.');
        }
        push_segment(&mut p, seg);
        p
    };
    match node {
        Node::Scalar(s) if is_string(s) => out.push((path.to_owned(), s.value.to_string())),
        Node::Scalar(s) if s.tag.is_some() => skip.push(path.to_owned()),
        Node::Alias(_) => skip.push(path.to_owned()),
        Node::Map(entries, _) => {
            for e in entries {
                own_strings(&e.value, &join(&e.key), out, skip);
            }
        }
        Node::Seq(items, _) => {
            for (i, v) in items.iter().enumerate() {
                own_strings(v, &join(&i.to_string()), out, skip);
            }
        }
        _ => {}
    }
}

/// Compares the strings of every document with libyaml's; returns how many were
/// compared (0 when libyaml refuses the text).
fn cross_check(name: &str, text: &str) -> usize {
    use serde::Deserialize;
    let mut values = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        match serde_yaml::Value::deserialize(doc) {
            Ok(value) => values.push(value),
            Err(e) => {
                println!("{name}: libyaml refuses it: {e}");
                return 0;
            }
        }
    }
    let docs = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(docs.len(), values.len(), "{name}: documents");
    let mut compared = 0;
    for (doc, value) in docs.iter().zip(&values) {
        let mut theirs = Vec::new();
        serde_strings(value, "", &mut theirs);
        let mut ours = Vec::new();
        let mut skip = Vec::new();
        own_strings(doc, "", &mut ours, &mut skip);
        let theirs: HashMap<String, String> = theirs.into_iter().collect();
        for (path, value) in &ours {
            assert_eq!(theirs.get(path), Some(value), "{name}: `{path}`\n{text}");
        }
        // What libyaml reads as a string and this scanner does not is a YAML 1.1 word.
        let ours: HashMap<String, String> = ours.into_iter().collect();
        for (path, value) in &theirs {
            if !ours.contains_key(path) && !skip.iter().any(|s| path.starts_with(s.as_str())) {
                assert!(
                    resolves_to_non_string(value) || is_symbol(value),
                    "{name}: `{path}` = {value:?} is a string to libyaml"
                );
            }
        }
        compared += ours.len();
    }
    compared
}

#[test]
fn strings_match_what_libyaml_reads() {
    let mut checked = 0;
    for (name, bytes) in fixtures() {
        let (text, _) = crate::formats::decode_auto(&bytes).unwrap();
        checked += cross_check(&name, text.trim_start_matches('\u{feff}'));
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn scalar_styles_read_as_libyaml_reads_them() {
    let cases = [
        "a: plain text\nb: 'it''s'\nc: \"tab\\there \\\"q\\\" \\u00e9 \\x41\"\n",
        "a: one\n  two\n\n  three\nb: x\n",
        "a: 'one\n  two\n\n\n  three '\nb: \"x\\\n   y \\\n  z\"\n",
        "a: \"trail  \n  next\"\nb: \"esc\\t\n  next\"\n",
        "a: |\n  line 1\n   line 2\n\n  line 3\nb: x\n",
        "a: |-\n  strip\n\n\nb: |+\n  keep\n\n\nc: |\n  clip\n\n",
        "a: >\n  folded\n  text\n\n  para\n    more\n  back\nb: x\n",
        "a: >-\n  folded\n  strip\n",
        "- |2\n   lead\n  x\n- >+\n  k\n\n",
        "a: |  # comment\n  x\n",
        "a:\n  - b: |\n      nested\n    c: d\n",
        "a: [x, 'y z', \"w\", {k: v, m: [1, n]}]\n",
        "{a: b, c: [d, e], 'f': \"g\"}\n",
        "a: &anc text\nb: *anc\nc: !!str 123\nd: !foo bar\n",
        "--- \n- a\n- b\n...\n",
        "a: x # comment\n# own line\nb: \"y\" # more\n",
        "a: 'multi\r\n  line'\r\nb: |\r\n  crlf\r\n  text\r\n",
        "a: http://example.com/x?y=1#frag\nb: a:b\nc: -x\n",
        "? explicit\n: value\nk: v\n",
        "a: >\n\n  leading empty\n  line\n",
        "top:\n  - - nested\n    - seq\n  - x\n",
        "a: |\n  text\n",
        "a: one\n\n  # not a comment? it ends the scalar\nb: two\n",
        "a:   spaced   words   \nb:\tx\n",
        "a: >\n  one\n\n\n  two\n   three\n\n  four\n",
        "a: |+\n  keep\n\n",
        "a: |-\n  strip\n\n",
        "a: >+\n  k\n\n\n",
        "--- |\n  top literal\n",
        "--- >-\n  top\n  folded\n",
        "--- plain top\n",
        "a: \"  lead \\\"q\\\" \\\n   cont \\ttab  \n\n  after  \"\n",
        "a: ' x ''y'' \n\n z '\n",
        "a: [\n  [x, y],\n  {k: v},\n  'q',\n]\n",
        "base: &b\n  k: v\nderived:\n  <<: *b\n  k2: w\n",
        "a:\n- x\n- y\nb:\n  - z\n",
        "- a: 1\n  b:\n  - c\n  - d: e\n    f: g\n- h\n",
        "a: |\r\n  win\r\n\r\n  dows\r\nb: c\r\n",
        "a: |2\n\n   x\n  y\n",
        "{\"a\":b, c: \"d\"}\n",
        "- x\n# between\n- y\n",
        "%YAML 1.2\n%TAG ! tag:example.com,2000:\n---\na: b\n",
        "a: 'multi\n\n\n  blank'\n",
        "a: \"x\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\e\\0\"\n",
        "a:\n  b:\n    c: deep\n  d: back\ne: top\n",
        "a: -1 minute\nb: 1 minute\nc: +x\nd: .5em\n",
        "a: x:y\nb: x :y\nc: '#'\nd: a#b\n",
        "key with spaces: v\n'quoted key': w\n\"dq key\": x\n",
        "a: \n  - x\n",
        "a: !!str\n  tagged on next line\n",
        "a: &x |\n  anchored block\nb: *x\n",
        "- - - deep\n    - seq\n  - z\n",
        "a: {b: {c: [d, {e: f}]}}\n",
        "a: [b, c]   # trailing\n",
        "a: >\n    more\n    indented\n",
        "a: |\n  x\n  \n  y\n",
        "a: |\n  x\n \n  y\n",
        "a: plain with 'quotes' and \"dq\"\n",
    ];
    for case in cases {
        let parsed = read(case);
        assert_eq!(write(&parsed), case);
        assert!(cross_check(case, case) > 0, "{case}");
    }
}

#[test]
fn keys_are_dot_paths_with_indexes_and_escapes() {
    let parsed = read(
        "a:\n  b: x\n  list:\n    - y\n    - z: w\n  \"dot.key\": v\n  'hash#1': v\n  'back\\\\': v\n  n: 5\n  t: true\n  y: yes\n  nil: ~\n  sym: :day\n  q: '5'\n",
    );
    assert_eq!(
        keys(&parsed),
        [
            "a.b",
            "a.list.0",
            "a.list.1.z",
            "a.dot\\.key",
            "a.hash\\#1",
            "a.back\\\\\\\\",
            "a.q"
        ]
    );
    let levels: Vec<u32> = parsed.document.blocks.iter().map(|b| b.level).collect();
    assert_eq!(levels, [1, 2, 3, 1, 1, 1, 1]);
}

#[test]
fn a_rails_language_root_is_not_part_of_the_keys() {
    for root in ["en", "fr", "pt-BR", "zh-CN", "sr-Latn", "es-419", "zh_TW"] {
        let parsed = read(&format!("{root}:\n  hello: Hello\n  bye: Bye\n"));
        assert_eq!(keys(&parsed), ["hello", "bye"], "{root}");
    }
    for root in ["config", "app", "english", "EN", "x-y"] {
        let parsed = read(&format!("{root}:\n  hello: Hello\n"));
        assert_eq!(keys(&parsed), [format!("{root}.hello")], "{root}");
    }
    // Not the only root key, or not a mapping: kept.
    assert_eq!(keys(&read("en:\n  a: b\nfr:\n  a: c\n")), ["en.a", "fr.a"]);
    assert_eq!(keys(&read("en: Hello\n")), ["en"]);
    // en.yml and fr.yml of rails-i18n read with the same keys.
    let files: HashMap<String, Vec<u8>> = fixtures().into_iter().collect();
    let en = Yaml.read(&files["rails-i18n-en.yml"]).unwrap();
    let fr = Yaml.read(&files["rails-i18n-fr.yml"]).unwrap();
    let en: std::collections::BTreeSet<&str> = keys(&en).into_iter().collect();
    let fr: std::collections::BTreeSet<&str> = keys(&fr).into_iter().collect();
    assert!(en.contains("errors.messages.blank"));
    assert!(
        en.intersection(&fr).count() * 10 > en.len() * 9,
        "{en:?}\n{fr:?}"
    );
}

#[test]
fn a_plural_map_is_one_block_with_a_switch_and_a_hole_per_branch() {
    let text = "en:\n  inbox:\n    zero: No messages\n    one: \"%{count} message\"\n    other: '%{count} messages'\n  plain:\n    one: x\n    other: 5\n  odd:\n    one: x\n    few: y\n";
    let mut parsed = read(text);
    assert_eq!(
        table(&parsed),
        [
            "inbox = count:zero=\"No messages\" count:one=\"%{count} message\" count:other=\"%{count} messages\"",
            "plain.one = \"x\"",
            "odd.one = \"x\"",
            "odd.few = \"y\"",
        ]
    );
    let block = &parsed.document.blocks[0];
    let Run::Switch(switch) = &block.source.runs[0] else {
        panic!("{block:?}")
    };
    assert_eq!(
        (switch.id.as_str(), switch.kind, switch.pivot.as_str()),
        ("1", SwitchKind::Plural, "count")
    );
    match &switch.branches[1].runs[0] {
        Run::Code(code) => {
            assert_eq!((code.id.as_str(), code.data.as_str()), ("1", "%{count}"))
        }
        other => panic!("{other:?}"),
    }
    let branches: Vec<_> = parsed
        .skeleton
        .holes
        .iter()
        .filter_map(|h| h.branch())
        .collect();
    assert_eq!(branches, ["count:zero", "count:one", "count:other"]);
    set_branch(&mut parsed, "inbox", "count:one", "One: message");
    let out = write(&parsed);
    assert_eq!(
        out,
        text.replace("\"%{count} message\"", "\"One: message\"")
    );
    set_branch(&mut parsed, "inbox", "count:other", "it's %{count}");
    let out = write(&parsed);
    assert!(out.contains("other: 'it''s %{count}'"), "{out}");
    assert_eq!(
        table(&read(&out))[0],
        "inbox = count:zero=\"No messages\" count:one=\"One: message\" count:other=\"it's %{count}\""
    );
}

#[test]
fn placeholders_are_codes() {
    let parsed = read("a: \"Hi %{name}, %<n>d {{x}} {y} %s <b>bold</b> &amp;\"\n");
    let codes: Vec<&str> = parsed.document.blocks[0]
        .source
        .runs
        .iter()
        .filter_map(|r| match r {
            Run::Code(c) => Some(c.data.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        codes,
        [
            "%{name}", "%<n>d", "{{x}}", "{y}", "%s", "<b>", "</b>", "&amp;"
        ]
    );
}

#[test]
fn non_strings_aliases_and_null_are_not_blocks() {
    let parsed = read(
        "a: 1\nb: -2.5e3\nc: 0x1F\nd: true\ne: No\nf: ~\ng: null\nh:\ni: .inf\nj: 2001-12-14\nk: *x\nl: :sym\nm: !!int 3\nn: 1:30\no: yes please\np: '1'\nq: !!str true\nr: !custom text\n",
    );
    assert_eq!(keys(&parsed), ["o", "p", "q"]);
}

#[test]
fn edits_keep_the_style_when_they_can() {
    let cases: &[(&str, &str, &str)] = &[
        // (document, new text, expected document)
        ("a: old\n", "new text", "a: new text\n"),
        ("a: old\n", "needs: quotes", "a: \"needs: quotes\"\n"),
        ("a: old\n", " lead", "a: \" lead\"\n"),
        ("a: old\n", "true", "a: \"true\"\n"),
        ("a: old\n", "12", "a: \"12\"\n"),
        ("a: old\n", "# no", "a: \"# no\"\n"),
        ("a: old\n", "two\nlines", "a: \"two\\nlines\"\n"),
        ("a: old\n", "", "a: \"\"\n"),
        ("a: old # c\n", "x", "a: x # c\n"),
        ("a: 'old'\n", "it's", "a: 'it''s'\n"),
        ("a: 'old'\n", "tab\there", "a: \"tab\\there\"\n"),
        (
            "a: \"old\"\n",
            "say \"hi\" \\ \u{1}",
            "a: \"say \\\"hi\\\" \\\\ \\x01\"\n",
        ),
        ("a: [old, b]\n", "x, y", "a: [\"x, y\", b]\n"),
        ("a: [old, b]\n", "x y", "a: [x y, b]\n"),
        ("a: {k: old}\n", "{x}", "a: {k: \"{x}\"}\n"),
        ("a: &r old\n", "new", "a: &r new\n"),
        ("a: !!str old\n", "new", "a: !!str new\n"),
        ("a: old\n  more\nb: c\n", "one line", "a: one line\nb: c\n"),
        ("a: \"old\n  more\"\nb: c\n", "x", "a: \"x\"\nb: c\n"),
        (
            "a: |\n  old\nb: c\n",
            "new\ntext\n",
            "a: |\n  new\n  text\nb: c\n",
        ),
        (
            "a: |\n  old\nb: c\n",
            "no newline",
            "a: |-\n  no newline\nb: c\n",
        ),
        ("a: |-\n  old\n", "x\n", "a: |\n  x\n"),
        (
            "a: |+\n  old\n\nb: c\n",
            "x\n\n\n",
            "a: |+\n  x\n\n\nb: c\n",
        ),
        ("a: |+\n  old\n\nb: c\n", "x", "a: |-\n  x\nb: c\n"),
        ("a: |\n  old\nb: c\n", "x\n\n", "a: |+\n  x\n\nb: c\n"),
        ("a: |\n  old\n\nb: c\n", "x\n\n", "a: \"x\\n\\n\"\n\nb: c\n"),
        (
            "a: | # note\n    old\n",
            " lead\n",
            "a: |4 # note\n     lead\n",
        ),
        ("- |2\n    old\n", "x\n", "- |2\n  x\n"),
        ("- |2\n    old\n", "  x\n", "- |2\n    x\n"),
        ("a: |\n  old", "x\ny\n", "a: |\n  x\n  y\n"),
        ("a: |\n  old", "x", "a: |-\n  x"),
        (
            "a: >\n  old\n",
            "one\ntwo\n\nthree\n  indented\nback\n",
            "a: >\n  one\n\n  two\n\n\n  three\n    indented\n  back\n",
        ),
        (
            "a: >-\n  old\n",
            "long line of words",
            "a: >-\n  long line of words\n",
        ),
        (
            "a: |\n  old\n",
            "bad \u{7} char\n",
            "a: \"bad \\a char\\n\"\n",
        ),
        (
            "a: |\r\n  old\r\nb: c\r\n",
            "x\ny\n",
            "a: |\r\n  x\r\n  y\r\nb: c\r\n",
        ),
    ];
    for (doc, new, want) in cases {
        let mut parsed = read(doc);
        let key = parsed.document.blocks[0].key.clone();
        set_text(&mut parsed, &key, new);
        let out = write(&parsed);
        assert_eq!(&out, want, "{doc:?} <- {new:?}");
        let again = read(&out);
        assert_eq!(
            again.document.block(&key).map(|b| native(&b.source.runs)),
            Some(new.to_string()),
            "{doc:?} <- {new:?}: {out:?}"
        );
    }
}

/// Values that are hard to write back in each style.
const HARD: &[&str] = &[
    "plain",
    "",
    " ",
    "  lead and trail  ",
    "a: b",
    "a #b",
    "#x",
    "- x",
    "? x",
    ": x",
    "x:",
    "'q'",
    "\"dq\"",
    "it's",
    "back\\slash",
    "tab\tin",
    "\ttab lead",
    "line\nbreak",
    "\nlead break",
    "trail break\n",
    "two\n\nbreaks\n\n",
    "\n",
    "\n\n",
    "  indented\nfirst",
    "x\n  more indented\ny",
    "x\n \ny",
    "crlf\r\nline",
    "cr\ronly",
    "nul\0x",
    "bell\u{7}",
    "del\u{7f}",
    "nel\u{85}x",
    "ls\u{2028}ps\u{2029}",
    "bom\u{feff}",
    "nbsp\u{a0}",
    "emoji 🎉 and é",
    "true",
    "~",
    "null",
    "0x1F",
    "1.5",
    "2001-12-14",
    ":sym",
    "[flow]",
    "{flow}",
    "a, b",
    "%{x} and {{y}}",
    "---",
    "...",
    "--- x",
    "&anchor",
    "*alias",
    "!tag",
    "|",
    ">",
    "@at",
    "`tick",
    "trailing space ",
    "many   spaces",
    "a\n\n\n\nb",
    "x\n\n  y\n\nz\n",
];

#[test]
fn every_hard_value_reads_back_identical_in_every_style() {
    let docs = [
        "k: v\n",
        "k: 'v'\n",
        "k: \"v\"\n",
        "k: |\n  v\n",
        "k: |-\n  v\n",
        "k: |+\n  v\n\n",
        "k: >\n  v\n",
        "k: >-\n  v\n",
        "k: |2\n  v\n",
        "- |\n  v\n",
        "k: [v, w]\n",
        "k: {a: v}\n",
        "k: v\nz: end\n",
        "k: |\n  v\nz: end\n",
        "k: |\n  v\n\n\nz: end\n",
        "k: |+\n  v\n\n\nz: end\n",
        "k: >\n  v\n\nz: end\n",
        "k: |\n  v",
        "k: v",
        "a:\n  b:\n    k: |\n      v\n    z: end\n",
        "k: |\r\n  v\r\nz: end\r\n",
        "- [v]\n",
        "k: |1\n v\n",
    ];
    for doc in docs {
        for value in HARD {
            let mut parsed = read(doc);
            let key = parsed.document.blocks[0].key.clone();
            set_text(&mut parsed, &key, value);
            let out = write(&parsed);
            let again = Yaml
                .read(out.as_bytes())
                .unwrap_or_else(|e| panic!("{doc:?} <- {value:?}: {e}\n{out}"));
            let block = again.document.block(&key);
            let mut got = String::new();
            if let Some(b) = block {
                super::super::render_runs(&b.source.runs, &mut got, &mut |t, o| o.push_str(t));
            }
            assert_eq!(&got, value, "{doc:?} <- {value:?}: {out:?}");
            assert_eq!(keys(&again), keys(&parsed), "{doc:?} <- {value:?}: {out:?}");
            if doc.contains("z: end") {
                assert!(out.contains("z: end"), "{out}");
            }
            // libyaml agrees.
            if let Ok(v) = serde_yaml::from_str::<serde_yaml::Value>(&out)
                && !value.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}'])
            {
                let mut theirs = Vec::new();
                serde_strings(&v, "", &mut theirs);
                assert!(
                    theirs.iter().any(|(k, v)| k == &key && v == value),
                    "{doc:?} <- {value:?}: {out:?} libyaml: {theirs:?}"
                );
            }
        }
    }
}

#[test]
fn comments_anchors_tags_markers_bom_and_crlf_stay() {
    let text = "\u{feff}%YAML 1.2\r\n---\r\n# lead\r\nbase: &b !!str Base # c\r\nref: *b\r\nlist: [a, 'b']\r\n...\r\n--- \r\nsecond: doc\r\n";
    let mut parsed = read(text);
    assert_eq!(keys(&parsed), ["base", "list.0", "list.1", "second"]);
    assert_eq!(parsed.document.blocks[0].notes, ["lead"]);
    set_text(&mut parsed, "base", "New base");
    set_text(&mut parsed, "second", "x: y");
    assert_eq!(
        write(&parsed),
        text.replace("Base", "New base")
            .replace("second: doc", "second: \"x: y\"")
    );
    // A second document repeats keys with a suffix.
    assert_eq!(keys(&read("a: x\n---\na: y\n")), ["a", "a#2"]);
}

#[test]
fn malformed_yaml_is_an_error_with_its_position() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("a: \"open\nb: c\n", 1, 4, "never closed"),
        ("a: 'open\n", 1, 4, "never closed"),
        ("a:\n  b: 1\n c: 2\n", 3, 2, "indentation"),
        ("a:\n\tb: 1\n", 2, 1, "tab"),
        ("a: b: c\n", 1, 5, "`:`"),
        ("a: [1, 2\n", 1, 4, "`]`"),
        ("a: {x: 1\n", 1, 4, "`}`"),
        ("a: [x: y: z]\n", 1, 9, "`,` or `]`"),
        ("a: [1] x\n", 1, 8, "unexpected `x`"),
        ("a: b\nc\n", 2, 1, "without `: `"),
        ("a: \"bad \\q\"\n", 1, 9, "unknown escape"),
        ("a: |x\n  y\n", 1, 5, "block scalar header"),
        ("a: |0\n  y\n", 1, 5, "1 to 9"),
        ("a: 1\n- b\n", 2, 1, "sequence item"),
        ("- a: 1\n - b\n", 2, 2, "indentation"),
        ("a: |\n  x\n\ty\n", 3, 1, "tab"),
        ("a: @x\n", 1, 4, "cannot start"),
        ("a: - b\n", 1, 4, "block collection"),
        ("a\nb: c\n", 1, 1, "one line"),
        ("k: v\n  x: y\n", 2, 4, "`:`"),
    ];
    for (text, line, column, message) in cases {
        match Yaml.read(text.as_bytes()) {
            Err(ReadError::Syntax {
                line: l,
                column: c,
                message: m,
            }) => {
                assert_eq!((l, c), (*line, *column), "{text:?}: {m}");
                assert!(m.contains(message), "{text:?}: {m}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    // The corpus file that is a Ruby hash, not YAML.
    let ruby =
        include_bytes!("../../../../testdata/formats/yaml-invalid/okapi-railsyaml-Test02.yml");
    match Yaml.read(ruby) {
        Err(ReadError::Syntax { line, message, .. }) => {
            assert_eq!(line, 2, "{message}");
        }
        other => panic!("{other:?}"),
    }
    let deep = "[".repeat(100_000);
    assert_eq!(
        Yaml.read(deep.as_bytes()).unwrap_err().to_string(),
        "1:100: collections nest deeper than 100 levels"
    );
    // 98 brackets around a scalar (100 levels with the document and the scalar) read,
    // on a test thread's 2 MB stack, in a debug build too.
    let ok = "[".repeat(98) + "x" + &"]".repeat(98);
    assert_eq!(read(&ok).document.blocks.len(), 1);
    let deep: String = (0..500)
        .map(|i| format!("{}- x:\n", " ".repeat(i * 2)))
        .collect();
    assert!(Yaml.read(deep.as_bytes()).is_err());
}

#[test]
fn truncated_and_garbled_input_never_panics() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in fixtures() {
        for cut in crate::formats::conformance::cuts(bytes.len()) {
            inputs.push(bytes[..cut].to_vec());
        }
        for (i, seed) in [7usize, 13, 29, 31].iter().enumerate() {
            let garbled: Vec<u8> = bytes
                .iter()
                .enumerate()
                .map(|(j, &b)| {
                    if (j * seed + i) % 97 == 0 {
                        b"\"'[]{}:-#|>&*!\t\n ?,%\\"[(j + i) % 21]
                    } else {
                        b
                    }
                })
                .collect();
            inputs.push(garbled);
        }
    }
    for case in [
        "",
        "\u{feff}",
        "---",
        "...",
        "-",
        "- ",
        "?",
        ": ",
        "|",
        ">-",
        "'",
        "\"",
        "\"\\",
        "[",
        "{",
        "]",
        "}",
        "&",
        "*",
        "!",
        "a:\n  |",
        "- - - -",
        "? ? ?",
        "\r",
        "\r\r\n",
        "a: |\n\n\n",
        "a: >+\n  \n  ",
        "{a: [b, {c: d}]}",
        "a: \"\\u12\"",
        "- |1\n  x",
    ] {
        inputs.push(case.as_bytes().to_vec());
    }
    for input in inputs {
        if let Ok(mut parsed) = Yaml.read(&input) {
            assert_eq!(Yaml.write(&parsed).unwrap(), input);
            for block in &mut parsed.document.blocks {
                block.source.runs.push(Run::text(" \"x\": #y\n\t'z' \\"));
            }
            let out = Yaml.write(&parsed).unwrap();
            let again = Yaml.read(&out).unwrap_or_else(|e| {
                panic!(
                    "{e}\n{}\n=>\n{}",
                    String::from_utf8_lossy(&input),
                    String::from_utf8_lossy(&out)
                )
            });
            assert_eq!(again.document.blocks.len(), parsed.document.blocks.len());
        }
    }
}

#[test]
fn utf16_files_are_read_and_written_back() {
    let text = "\u{feff}a: héllo\nb: 'x'\n";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut parsed = Yaml.read(&bytes).unwrap();
    assert_eq!(Yaml.write(&parsed).unwrap(), bytes);
    set_text(&mut parsed, "a", "wörld");
    let out = Yaml.write(&parsed).unwrap();
    let want: Vec<u8> = text
        .replace("héllo", "wörld")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(out, want);
}

#[test]
fn own_fixtures_read_as_expected() {
    let files: HashMap<String, Vec<u8>> = fixtures().into_iter().collect();
    for name in ["block-scalars.yml", "flow-collections.yml", "plurals.yml"] {
        let parsed = Yaml.read(&files[name]).unwrap();
        insta::assert_snapshot!(
            format!("yaml_blocks_{}", name.replace(['.', '-'], "_")),
            table(&parsed).join("\n")
        );
    }
}
