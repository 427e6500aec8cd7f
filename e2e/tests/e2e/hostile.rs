//! Hostile inputs through the real binary (issue 15, item 7): one line of repeated words
//! through `kapi check`, megabytes of findings-heavy text through MCP `check_text`. Each
//! completes with every finding counted and the report holding at most 10,000 of them (1,000
//! over MCP).
//!
//! The inputs are generated here, never committed. The one line is 200,000 words (1.2 MB)
//! rather than the 800,000: a check is linear in its input now, so the smaller line
//! exercises the same path in a debug build in a few seconds (`make bench-hostile` measures the
//! full sizes on a release build). No test asserts a duration.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::wire::CheckReport;
use crate::common::{Bind, PROTOCOL, Server, cli};

/// What a `kapi check` report holds at most (kapi-core's `MAX_FINDINGS`, the documented cap).
const HELD: u64 = 10_000;

/// What an MCP tool's report holds at most.
const HELD_MCP: u64 = 1_000;

/// A project whose terms deprecate `login` and whose voice limits a sentence to 35 words, so
/// `login login …` gives a `terms.deprecated` finding per word, a `hygiene.repeated-word` per
/// pair and one `voice.sentence-too-long`: all minor, none failing the default gate.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        let p = Project { _tmp: tmp, root };
        p.write(
            "kapi.yaml",
            "version: v1\nname: hostile\ndefaults:\n  source_language: en\n  voice: .kapi/voice.yaml\n  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.md\"\ngates:\n  fail_on: major\n",
        );
        p.write(
            ".kapi/voice.yaml",
            "name: hostile\ndescription: Tests.\nstyle:\n  constraints:\n    max_sentence_words: 35\n",
        );
        p.write(
            ".kapi/terms.yaml",
            "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - {text: sign in, lang: en, status: preferred}\n      - {text: login, lang: en, status: deprecated, replacement: sign in}\n",
        );
        p
    }

    fn write(&self, rel: &str, text: &str) {
        crate::common::write_file(&self.root, rel, text);
    }

    fn path(&self) -> &Path {
        &self.root
    }
}

/// `n` words `login` on one line.
fn one_line(n: usize) -> String {
    let mut text = vec!["login"; n].join(" ");
    text.push('\n');
    text
}

/// The findings `one_line(n)` gives: a term per word, a repeat per pair, one long sentence.
fn expected(n: usize) -> u64 {
    (n + n / 2 + 1) as u64
}

/// The findings the summary counts, the ones the report holds, and the ones it counts
/// without holding (`truncated`, absent when none).
fn held_and_truncated(report: &CheckReport) -> (u64, u64, u64) {
    let held = report.findings.len() as u64;
    (report.summary.findings, held, report.truncated)
}

#[test]
fn one_line_of_200k_repeated_words_is_checked_with_every_finding_counted() {
    let p = Project::new();
    let words = 200_000;
    p.write("docs/one.txt", &one_line(words));
    let out = cli(
        p.path(),
        Bind::Discover,
        &["check", "--json", "docs/one.txt"],
    );
    assert_eq!(
        out.code, 0,
        "minor findings pass the gate\nstderr: {}",
        out.stderr
    );
    let ctx = "kapi check --json docs/one.txt";
    let report = out.answer(ctx).check(ctx);
    let (total, held, truncated) = held_and_truncated(&report);
    assert_eq!(total, expected(words));
    assert_eq!(report.summary.minor, total);
    assert_eq!(report.summary.score, 0);
    assert_eq!((held, truncated), (HELD, total - HELD));
    // The first findings of the line are the ones held, located by byte and character.
    let findings = &report.findings;
    assert_eq!(findings[0].column, 1);
    for f in findings {
        assert_eq!(f.line, 1, "{f:?}");
        assert_eq!(f.column, f.start + 1, "{f:?}");
    }

    let text = cli(p.path(), Bind::Discover, &["check", "docs/one.txt"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let note = format!(
        "{} more findings are counted but not shown: the text shows the first {HELD} by path (`--json` holds the {HELD} most severe)",
        total - HELD
    );
    assert!(
        text.stdout.contains(&note),
        "{}",
        &text.stdout[text.stdout.len().saturating_sub(600)..]
    );
    assert!(text.stdout.contains(&format!("{total} findings")));
}

#[test]
fn check_text_of_4_mb_over_mcp_answers_with_every_finding_counted() {
    let p = Project::new();
    let words = 4_000_000 / "login ".len();
    let (mut server, _) =
        Server::start_with(p.path(), Bind::Discover, &["--tools", "content"], PROTOCOL);
    let result = server
        .tool("check_text", json!({"text": one_line(words)}))
        .ok("check_text of 4 MB");
    let (total, held, truncated) = held_and_truncated(&result.check());
    assert_eq!(total, expected(words));
    assert_eq!((held, truncated), (HELD_MCP, total - HELD_MCP));
    assert!(
        result
            .text
            .contains(&format!("… and {} more finding(s)", total - HELD_MCP)),
        "{}",
        &result.text[..result.text.len().min(300)]
    );
    // And it still serves.
    assert!(server.request("ping", json!({})).get("result").is_some());
    assert_eq!(server.close(), 0);
}
