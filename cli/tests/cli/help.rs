//! `kapi help`, `--help` and `--version`.

use super::Kapi;

#[test]
fn help_lists_the_verbs_grouped_by_intent() {
    let run = Kapi::empty().run(&["help"]);
    assert_eq!(run.code, 0);
    for needle in [
        "Start:",
        "init",
        "context",
        "Check:",
        "check",
        "formats",
        "exit-codes",
        "rules",
    ] {
        assert!(run.stdout.contains(needle), "{needle}: {}", run.stdout);
    }
}

#[test]
fn help_for_a_verb_prints_its_options() {
    let run = Kapi::empty().run(&["help", "check"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("--diff-against"), "{}", run.stdout);
    assert!(run.stdout.contains("--fail-on"), "{}", run.stdout);
}

#[test]
fn help_topics_print() {
    let kapi = Kapi::empty();
    let codes = kapi.run(&["help", "exit-codes"]);
    assert!(
        codes.stdout.contains("130") && codes.stdout.contains("gate"),
        "{}",
        codes.stdout
    );
    let env = kapi.run(&["help", "environment"]);
    assert!(env.stdout.contains("KAPI_NO_PROJECT"), "{}", env.stdout);
    let files = kapi.run(&["help", "files"]);
    assert!(
        files.stdout.contains("prohibited_patterns"),
        "{}",
        files.stdout
    );
    let rules = kapi.run(&["help", "rules"]);
    assert!(rules.stdout.contains("terms.forbidden"), "{}", rules.stdout);
    let one = kapi.run(&["help", "rules", "hygiene.repeated-word"]);
    assert_eq!(one.code, 0);
    assert!(one.stdout.contains("What it flags"), "{}", one.stdout);
    let hooks = kapi.run(&["help", "hooks"]);
    assert_eq!(hooks.code, 0);
    for want in [
        "## Failing open",
        "stop_hook_active",
        "KKSS",
        "Kiki",
        "`--deadline-ms`",
    ] {
        assert!(hooks.stdout.contains(want), "{want}: {}", hooks.stdout);
    }
    // `kapi hook --help` is help (clap's), not a hook call.
    for args in [&["hook", "--help"][..], &["hook", "-h"]] {
        let hook = kapi.run(args);
        assert_eq!(hook.code, 0, "{args:?}");
        assert!(hook.stdout.contains("--host"), "{args:?}: {}", hook.stdout);
    }
    // A help flag before the verb is clap's own help, never a hook call.
    let top = kapi.run(&["--help", "hook"]);
    assert_eq!(top.code, 0);
    assert!(top.stdout.contains("Usage: kapi"), "{}", top.stdout);
}

#[test]
fn unknown_help_topic_is_a_usage_error_listing_the_topics() {
    let run = Kapi::empty().run(&["help", "nope"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("exit-codes"), "{}", run.transcript());
}

#[test]
fn version_prints_the_crate_version() {
    let run = Kapi::empty().run(&["--version"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout.trim(),
        format!("kapi {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn formats_lists_markdown_and_text() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("markdown") && run.stdout.contains("text"),
        "{}",
        run.stdout
    );
    let json = kapi.run(&["formats", "--json"]).json();
    assert_eq!(json["schema"], "kapi.formats/v1");
    assert_eq!(json["formats"][0]["capabilities"]["editable"], true);
}

/// `kapi formats describe|detect`: a path is named from the working folder (a collection
/// declares `notes/*.txt` as Markdown), an unread file says what it is instead, a pipe is
/// judged by its name without waiting on it.
#[test]
fn formats_judge_a_path_from_the_working_folder() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: t\ncollections:\n  - path: \"notes/*.txt\"\n    format: markdown\n",
    );
    kapi.write("notes/a.txt", "# A\n");
    let id = |run: &super::Run| run.json()["id"].as_str().map(str::to_owned);
    let here = kapi.run_in(
        "notes",
        &["formats", "describe", "--path", "a.txt", "--json"],
    );
    assert_eq!(
        id(&here).as_deref(),
        Some("markdown"),
        "{}",
        here.transcript()
    );
    let root = kapi.run(&["formats", "describe", "--path", "a.txt", "--json"]);
    assert_eq!(id(&root).as_deref(), Some("text"), "{}", root.transcript());
    let detected = kapi.run_in("notes", &["formats", "detect", "a.txt", "--json"]);
    assert_eq!(
        detected.json()["by"],
        "declared",
        "{}",
        detected.transcript()
    );

    kapi.write(
        "res/drawable/icon.xml",
        "<vector xmlns:android=\"http://schemas.android.com/apk/res/android\"/>\n",
    );
    let drawable = kapi.run(&["formats", "describe", "--path", "res/drawable/icon.xml"]);
    assert_eq!(drawable.code, 1, "{}", drawable.transcript());
    assert!(drawable.stderr.contains("<vector>"), "{}", drawable.stderr);
    let unknown = kapi.run(&["formats", "describe", "nope"]);
    assert!(
        unknown.stderr.contains("`nope` in `FORMAT`"),
        "{}",
        unknown.stderr
    );

    #[cfg(unix)]
    {
        let made = std::process::Command::new("mkfifo")
            .arg(kapi.path().join("pipe.xml"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // A reader that opened the pipe would wait for a writer forever.
        let run = kapi.run(&["formats", "detect", "pipe.xml", "--json"]);
        assert_eq!(
            run.json()["format"]["id"],
            "android",
            "{}",
            run.transcript()
        );
    }
}

#[test]
fn every_verb_help_is_snapshotted() {
    let kapi = Kapi::empty();
    for verb in [
        "init", "context", "check", "inspect", "apply", "schema", "mcp", "formats", "redact",
        "rewrite", "stats", "review", "help",
    ] {
        let run = kapi.run(&[verb, "--help"]);
        assert_eq!(run.code, 0, "{verb}");
        insta::assert_snapshot!(format!("help_{verb}"), run.stdout);
    }
}
