//! `placeholders` and `translation` against translate-toolkit's pofilter: every case of
//! `testdata/pofilter/` (one PO entry per case) is checked by the real binary, and the
//! findings of each entry under the rules its file's `# kapi-rules:` line names (else every
//! `placeholders.*` rule) must be the ones its `# kapi:` comment names (`pass` for none). The
//! `# pofilter:` comments are checked against the real pofilter by
//! `scripts/pofilter-agree.sh`, run by hand.

use std::collections::BTreeMap;

use super::{Kapi, testdata};

/// One case: the entry's key (its `msgid` as written, PO escapes kept) and the rule ids
/// kapi must report for it, sorted.
#[derive(Debug)]
struct Case {
    key: String,
    want: Vec<String>,
}

/// The rules a case file's `# kapi:` lines speak for: its `# kapi-rules:` line, else every
/// `placeholders.*` rule (prefixes end with `.`).
fn kapi_rules(text: &str) -> Vec<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("# kapi-rules:"))
        .map(|rest| rest.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_else(|| vec!["placeholders.".to_owned()])
}

fn covered(rules: &[String], rule: &str) -> bool {
    rules
        .iter()
        .any(|r| r == rule || r.ends_with('.') && rule.starts_with(r.as_str()))
}

/// The cases of a case file: every entry but the header. An entry without a `# kapi:` line
/// is an error of the file.
fn cases(name: &str, text: &str) -> Vec<Case> {
    let rules = kapi_rules(text);
    let mut out = Vec::new();
    for entry in text.split("\n\n") {
        let mut want: Option<Vec<String>> = None;
        let mut key: Option<String> = None;
        let mut in_msgid = false;
        for line in entry.lines() {
            if let Some(rest) = line.strip_prefix("# kapi:") {
                let words: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
                assert!(!words.is_empty(), "{name}: an empty `# kapi:` line");
                want = Some(if words == ["pass"] { Vec::new() } else { words });
            } else if let Some(rest) = line.strip_prefix("msgid ") {
                key = Some(quoted(name, rest));
                in_msgid = true;
            } else if in_msgid && line.starts_with('"') {
                if let Some(k) = key.as_mut() {
                    k.push_str(&quoted(name, line));
                }
            } else {
                in_msgid = false;
            }
        }
        let Some(key) = key else { continue };
        if key.is_empty() {
            continue; // the header
        }
        let mut want = want.unwrap_or_else(|| panic!("{name}: {key}: no `# kapi:` line"));
        for rule in &want {
            assert!(
                covered(&rules, rule),
                "{name}: {key}: `{rule}` is not one of the file's rules {rules:?}"
            );
        }
        want.sort();
        out.push(Case { key, want });
    }
    out
}

/// The inside of a `"…"` segment, escapes kept (the PO reader's keys keep them).
fn quoted(name: &str, segment: &str) -> String {
    segment
        .trim()
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{name}: not a quoted string: {segment}"))
        .to_owned()
}

#[test]
fn every_pofilter_case_gets_the_verdict_it_records() {
    let dir = testdata().join("pofilter");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/pofilter")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "po"))
        .collect();
    files.sort();
    assert!(files.len() >= 16, "case files: {files:?}");

    let kapi = Kapi::empty();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a file name")
            .to_owned();
        let text = std::fs::read_to_string(path).expect("a case file");
        let cases = cases(&name, &text);
        assert!(!cases.is_empty(), "{name}: no cases");
        kapi.write(&name, &text);
        let run = kapi.run(&["check", &name, "--json"]);
        // 0: no finding at the gate's severity; 3: the gate is not met.
        assert!(
            run.code == 0 || run.code == 3,
            "{name}: kapi check failed:\n{}",
            run.transcript()
        );
        let report = run.json();
        let rules = kapi_rules(&text);
        let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for finding in report["findings"].as_array().expect("findings") {
            let rule = finding["rule"].as_str().expect("a rule id");
            if !covered(&rules, rule) {
                continue;
            }
            let block = finding["block"].as_str().expect("a finding's block");
            got.entry(block.to_owned())
                .or_default()
                .push(rule.to_owned());
        }
        for case in &cases {
            let mut have = got.remove(&case.key).unwrap_or_default();
            have.sort();
            if have != case.want {
                wrong.push(format!(
                    "{name}: {:?}: the case says {:?}, kapi reports {:?}",
                    case.key, case.want, have
                ));
            }
            checked += 1;
        }
        for (block, rules) in got {
            wrong.push(format!(
                "{name}: {block:?}: findings for no case: {rules:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 120, "{checked} cases");
}

#[test]
fn a_case_file_is_read_as_its_cases() {
    let text = "# header\nmsgid \"\"\nmsgstr \"\"\n\n# pofilter: printf\n# kapi: placeholders.extra placeholders.missing\nmsgid \"a \"\n\"%s\"\nmsgstr \"b\"\n\n# kapi: pass\nmsgid \"x \\\"y\\\"\"\nmsgstr \"z\"\n";
    let got = cases("t.po", text);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].key, "a %s");
    assert_eq!(got[0].want, ["placeholders.extra", "placeholders.missing"]);
    assert_eq!(got[1].key, "x \\\"y\\\"");
    assert!(got[1].want.is_empty());
}
