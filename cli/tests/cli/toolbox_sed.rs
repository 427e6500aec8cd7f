//! `kapi sed` (`ksed`) through the binary: the change set a substitution compiles to, the
//! round trip `--print-ops` → `kapi apply` == `kapi sed`, the dry run, the flags, and every
//! refusal with its exit code.

use super::Kapi;

const GUIDE: &str = "# Guide\n\nSign in to the [dashboard](/dash) and colour it.\nThe colour stays.\n\n```sh\ncolour --check\n```\n\n- A colour, a colour, a colour.\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n  - path: \"i18n/*.json\"\n    format: json\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allowlist\n    terms:\n      - text: allowlist\n        lang: en\n        status: preferred\n      - text: whitelist\n        lang: en\n        status: forbidden\n",
    );
    kapi.write("docs/guide.md", GUIDE);
    kapi.write("docs/copy.md", GUIDE);
    kapi.write("i18n/en.json", "{\n  \"greet\": \"Hello, {name}, and hello again!\",\n  \"list\": \"Add it to the allowlist.\"\n}\n");
    kapi
}

#[test]
fn print_ops_then_apply_gives_the_bytes_sed_gives() {
    let kapi = project();
    let ops = kapi.run(&["sed", "--print-ops", "s/colou?r/hue/g", "docs/copy.md"]);
    assert_eq!(ops.code, 0, "{}", ops.transcript());
    let set = ops.json();
    assert_eq!(set["schema"], "kapi.change/v1");
    for op in set["operations"].as_array().unwrap() {
        assert_eq!(op["op"], "replace_text", "{op}");
        assert!(op["if_match"].as_str().unwrap().starts_with('r'), "{op}");
    }
    assert_eq!(
        kapi.read("docs/copy.md"),
        GUIDE,
        "--print-ops writes nothing"
    );
    kapi.write("set.json", &ops.stdout);
    let applied = kapi.run(&["apply", "set.json"]);
    assert_eq!(applied.code, 0, "{}", applied.transcript());
    let direct = kapi.run(&["sed", "s/colou?r/hue/g", "docs/guide.md"]);
    assert_eq!(direct.code, 0, "{}", direct.transcript());
    assert_eq!(kapi.read("docs/guide.md"), kapi.read("docs/copy.md"));
    assert_eq!(
        kapi.read("docs/guide.md"),
        "# Guide\n\nSign in to the [dashboard](/dash) and hue it.\nThe hue stays.\n\n```sh\ncolour --check\n```\n\n- A hue, a hue, a hue.\n",
        "the code block is not prose"
    );
    let again = kapi.run(&["sed", "s/colou?r/hue/g", "docs/guide.md"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert!(
        again.stderr.contains("nothing to change"),
        "{}",
        again.stderr
    );
}

#[test]
fn without_g_only_the_first_match_of_each_block_and_n_picks_one() {
    let kapi = project();
    assert_eq!(kapi.run(&["sed", "s/colour/hue/", "docs/guide.md"]).code, 0);
    assert!(
        kapi.read("docs/guide.md")
            .contains("and hue it.\nThe colour stays.\n")
    );
    assert!(
        kapi.read("docs/guide.md")
            .contains("- A hue, a colour, a colour.\n")
    );
    assert_eq!(
        kapi.run(&["sed", "s/colour/tint/2", "docs/copy.md"]).code,
        0
    );
    assert!(
        kapi.read("docs/copy.md")
            .contains("- A colour, a tint, a colour.\n"),
        "{}",
        kapi.read("docs/copy.md")
    );
    assert!(
        kapi.read("docs/copy.md").contains("The tint stays."),
        "the second in the paragraph"
    );
}

#[test]
fn a_match_the_literal_ops_cannot_say_lands_exactly_as_substituted() {
    let kapi = project();
    // `colour,` only at the end of a word group: the literal `colour` occurs earlier too.
    let ops = kapi.run(&[
        "sed",
        "--print-ops",
        r"s/colour\.$/shade./",
        "docs/guide.md",
    ]);
    assert_eq!(ops.code, 0, "{}", ops.transcript());
    kapi.write("set.json", &ops.stdout);
    assert_eq!(kapi.run(&["apply", "set.json"]).code, 0);
    assert!(
        kapi.read("docs/guide.md")
            .contains("- A colour, a colour, a shade.\n"),
        "{}",
        kapi.read("docs/guide.md")
    );
}

#[test]
fn groups_ignore_case_and_other_delimiters() {
    let kapi = project();
    // `-i` and `-E` are sed's habits: accepted, and ksed does what it always does.
    let run = kapi.run(&[
        "sed",
        "-i",
        "-E",
        r"s|SIGN (in)|log \1 (&)|i",
        "docs/guide.md",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        kapi.read("docs/guide.md")
            .contains("log in (Sign in) to the"),
        "{}",
        kapi.read("docs/guide.md")
    );
}

#[test]
fn the_dry_run_prints_a_diff_and_writes_nothing() {
    let kapi = project();
    let run = kapi.run(&["sed", "-n", "s/The colour/Its colour/", "docs/guide.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("-The colour stays.\n+Its colour stays.\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("dry run"), "{}", run.stdout);
    assert_eq!(kapi.read("docs/guide.md"), GUIDE);
}

#[test]
fn a_substitution_that_breaks_a_term_rule_is_refused_whole() {
    let kapi = project();
    let run = kapi.run(&[
        "sed",
        "s/allowlist/whitelist/",
        "i18n/en.json",
        "docs/guide.md",
    ]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert!(run.stdout.contains("gate_failed"), "{}", run.stdout);
    assert!(run.stdout.contains("nothing was written"), "{}", run.stdout);
    assert!(kapi.read("i18n/en.json").contains("allowlist"));
}

#[test]
fn a_match_that_takes_in_markup_or_a_placeholder_is_left_alone_and_named() {
    let kapi = project();
    let run = kapi.run(&["sed", "s/the dashboard/the board/", "docs/guide.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("left alone in docs/guide.md s1/p: `the dashboard`"),
        "{}",
        run.stderr
    );
    assert_eq!(kapi.read("docs/guide.md"), GUIDE);
    let run = kapi.run(&["sed", "s/Hello, .*again/Hi/", "i18n/en.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stderr.contains("left alone in i18n/en.json greet"),
        "{}",
        run.stderr
    );
    let run = kapi.run(&["sed", "s/hello again/hi/", "i18n/en.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        kapi.read("i18n/en.json")
            .contains("\"Hello, {name}, and hi!\""),
        "{}",
        kapi.read("i18n/en.json")
    );
}

#[test]
fn bad_scripts_flags_and_paths_are_refused() {
    let kapi = project();
    for script in ["y/a/b/", "s/a/b", "s/a/b/q", "s/(/b/", r"s/a/\2/"] {
        let run = kapi.run(&["sed", script, "docs/guide.md"]);
        assert_eq!(run.code, 2, "{script}: {}", run.transcript());
        assert!(run.stderr.contains("hint:"), "{script}: {}", run.stderr);
    }
    let json = kapi.run(&["sed", "s/a/b", "docs/guide.md", "--json"]);
    assert_eq!(json.stderr_json()["code"], "usage");
    assert_eq!(
        kapi.run(&["sed", "s/a/b/", "docs"]).code,
        2,
        "a folder needs -r"
    );
    assert_eq!(
        kapi.run(&["sed", "-n", "--print-ops", "s/a/b/", "docs/guide.md"])
            .code,
        2
    );
    assert_eq!(kapi.run(&["sed", "s/a/b/", "nowhere.md"]).code, 1);
    let walked = kapi.run(&["sed", "-r", "-n", "s/colour/hue/", "docs"]);
    assert_eq!(walked.code, 0, "{}", walked.transcript());
    assert!(walked.stdout.contains("2 documents"), "{}", walked.stdout);
}

#[test]
fn an_agent_lands_a_substitution_as_itself() {
    let kapi = project().env("KAPI_ACTOR", "agent:ci");
    let run = kapi.run(&["sed", "s/colour/hue/", "docs/guide.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let actor = &run.json()["actor"];
    assert_eq!(
        (actor["kind"].as_str(), actor["name"].as_str()),
        (Some("agent"), Some("ci")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_match_across_a_wrapped_line_is_replaced() {
    let kapi = project();
    let run = kapi.run(&["sed", r"s/it\.\sThe/it. Its/", "docs/guide.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        kapi.read("docs/guide.md")
            .contains("and colour it. Its colour stays.\n"),
        "{}",
        kapi.read("docs/guide.md")
    );
}

#[test]
fn many_distinct_matches_in_a_long_block_compile_in_bounded_time() {
    let kapi = project();
    let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
    kapi.write("docs/long.md", format!("# Long\n\n{}\n", words.join(" ")));
    let run = kapi.run(&["sed", "--print-ops", r"s/(w[0-9]+)/(\1)/g", "docs/long.md"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ops = run.json()["operations"].as_array().unwrap().len();
    assert!(
        ops <= 2,
        "one operation for the block, not one per word: {ops}"
    );
    kapi.write("set.json", &run.stdout);
    assert_eq!(kapi.run(&["apply", "set.json"]).code, 0);
    assert!(kapi.read("docs/long.md").contains("(w0) (w1) (w2)"));
}
