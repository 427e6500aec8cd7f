//! `kapi check` reads prose as a reader sees it: sentences end inside emphasis and links, and
//! at the boundaries people expect; URLs, domains, e-mail addresses, handles and paths are not
//! words; one finding is reported once (issue 38, items 1, 3 and 6).

use serde_json::Value;

use super::Kapi;

/// A project with a voice of short sentences and two prohibited patterns that overlap, and a
/// forbidden `whitelist`.
fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: prose\ndefaults:\n  source_language: en\n  voice: .kapi/voice.yaml\n  \
         terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write(
        ".kapi/voice.yaml",
        "name: Short\nstyle:\n  prohibited_patterns:\n    - regex: '(?i)\\bsimply\\b'\n      \
         description: Minimising word\n    - regex: '(?i)\\b(simply|just)\\b'\n      \
         description: Minimisers\n  constraints:\n    max_sentence_words: 8\n    severity: minor\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allowlist\n    terms:\n      - text: whitelist\n        \
         lang: en\n        status: forbidden\n        replacement: allowlist\n",
    );
    kapi
}

/// `(rule, line, matched)` of every finding `kapi check --json PATH` reports.
fn findings(kapi: &Kapi, path: &str) -> Vec<(String, u64, String)> {
    let run = kapi.run(&["check", "--json", path]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", run.transcript()));
    report["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings:\n{}", run.transcript()))
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
                f["matched"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn row(rule: &str, line: u64, matched: &str) -> (String, u64, String) {
    (rule.to_owned(), line, matched.to_owned())
}

#[test]
fn sentences_end_inside_markup_and_where_readers_expect() {
    let kapi = project();
    kapi.write(
        "docs/sentences.md",
        "# A heading that wraps\n\
         \n\
         **Open all the settings first.** Then pick a new theme.\n\
         \n\
         Read [the whole guide first.](https://example.com/guide) Then come back here again.\n\
         \n\
         - This list item is wrapped in the middle of\n  its one sentence. It goes on.\n\
         \n\
         Use e.g. Rust or Go. Mr. Smith set v1.2.0. Edit config.yaml. Then go.\n\
         \n\
         Run it. `cargo run` builds it first. Wait... Then go on.\n\
         \n\
         This sentence really is longer than the voice allows writers.\n",
    );
    assert_eq!(
        findings(&kapi, "docs/sentences.md"),
        [
            row(
                "voice.sentence-too-long",
                7,
                "This list item is wrapped in the middle of\n  its one sentence."
            ),
            row(
                "voice.sentence-too-long",
                14,
                "This sentence really is longer than the voice allows writers."
            ),
        ]
    );
}

#[test]
fn addresses_are_not_words_and_the_same_word_in_a_sentence_is() {
    let kapi = project();
    kapi.write(
        "docs/addresses.md",
        "Read https://example.com/whitelist-guide or legacy.whitelist.org.\n\
         \n\
         Mail ops@whitelist.io, ping @whitelist, edit src/whitelist/config.yaml.\n\
         \n\
         Run ./whitelist.sh now.\n\
         \n\
         Add it to the whitelist/blacklist.\n",
    );
    assert_eq!(
        findings(&kapi, "docs/addresses.md"),
        [row("terms.forbidden", 7, "whitelist")]
    );
}

#[test]
fn one_finding_is_reported_once() {
    let kapi = project();
    kapi.write(
        "docs/once.md",
        "Click “Save to continue.\n\nClick \"Save to continue.\n\nSimply save it.\n",
    );
    assert_eq!(
        findings(&kapi, "docs/once.md"),
        [
            row("hygiene.unbalanced-quote", 1, "“"),
            row("hygiene.unbalanced-quote", 3, "\""),
            row("voice.prohibited-pattern", 5, "Simply"),
        ]
    );
}
