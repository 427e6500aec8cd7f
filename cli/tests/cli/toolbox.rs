//! The text tools through the binary: `kapi cat`, `grep` and `diff` (and the `kcat`, `kgrep`,
//! `kdiff` link names): what each prints, every flag, and every refusal with its exit code.

use serde::Deserialize;

use super::Kapi;

const GUIDE: &str = "# Guide\n\nOpen the [dashboard](/dash)\nfor your team.\n\n```sh\nkapi check dashboard\n```\n\n- Reports live on the dashboard.\n";

/// A project with a Markdown guide and a JSON catalog translated into French.
fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: app\n    content:\n      - path: \"i18n/en.json\"\n        format: json\n        target: \"i18n/{lang}.json\"\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write("docs/guide.md", GUIDE);
    kapi.write(
        "i18n/en.json",
        "{\n  \"greet\": \"Hello, {name}!\",\n  \"files\": \"{n, plural, one {# file} other {# files}}\",\n  \"bye\": \"Goodbye\"\n}\n",
    );
    kapi.write("i18n/fr.json", "{\n  \"greet\": \"Bonjour, {name} !\"\n}\n");
    kapi
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cat {
    schema: String,
    files: Vec<CatFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatFile {
    doc: String,
    format: String,
    blocks: Vec<CatBlock>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatBlock {
    #[serde(rename = "ref")]
    at: Ref,
    line: Option<usize>,
    role: String,
    text: String,
    #[serde(default)]
    editions: std::collections::BTreeMap<String, Option<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ref {
    doc: String,
    block: String,
    edition: String,
}

#[test]
fn cat_prints_each_prose_block_with_its_ref_and_no_markup() {
    let kapi = project();
    let run = kapi.run(&["cat", "docs/guide.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    docs/guide.md:1   s1/h   Guide
    docs/guide.md:3   s1/p   Open the dashboard for your team.
    docs/guide.md:10  s1/li  Reports live on the dashboard.
    ");
    let json: Cat =
        serde_json::from_str(&kapi.run(&["cat", "docs/guide.md", "--json"]).stdout).unwrap();
    assert_eq!(json.schema, "kapi.cat/v1");
    let file = &json.files[0];
    assert_eq!(
        (file.doc.as_str(), file.format.as_str()),
        ("docs/guide.md", "markdown")
    );
    let p = &file.blocks[1];
    assert_eq!(
        (
            p.at.doc.as_str(),
            p.at.block.as_str(),
            p.at.edition.as_str()
        ),
        ("docs/guide.md", "s1/p", "source")
    );
    assert_eq!((p.line, p.role.as_str()), (Some(3), "paragraph"));
    assert_eq!(
        p.text, "Open the dashboard\nfor your team.",
        "the line break is kept in JSON"
    );
    assert!(
        file.blocks.iter().all(|b| !b.text.contains("kapi check")),
        "no code block"
    );
}

#[test]
fn cat_shows_placeholders_as_written_plurals_by_case_and_translations_with_editions() {
    let kapi = project();
    let run = kapi.run(&["cat", "i18n/en.json", "--editions", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    i18n/en.json:2  greet  Hello, {name}!
                    fr     Bonjour, {name} !
    i18n/en.json:3  files  {one: # file | other: # files}
                    fr     (missing)
    i18n/en.json:4  bye    Goodbye
                    fr     (missing)
    ");
    let all: Cat = serde_json::from_str(
        &kapi
            .run(&["cat", "i18n/en.json", "--editions", "*", "--json"])
            .stdout,
    )
    .unwrap();
    let greet = &all.files[0].blocks[0];
    assert_eq!(
        greet.editions.get("fr"),
        Some(&Some("Bonjour, {name} !".to_owned()))
    );
    assert_eq!(all.files[0].blocks[2].editions.get("fr"), Some(&None));
}

#[test]
fn cat_with_no_path_prints_the_collections_and_a_folder_needs_r() {
    let kapi = project();
    let run = kapi.run(&["cat"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains("docs/guide.md:3") && run.stdout.contains("i18n/en.json:2"),
        "{}",
        run.stdout
    );
    let folder = kapi.run(&["cat", "docs"]);
    assert_eq!(folder.code, 2, "{}", folder.transcript());
    assert!(
        folder.stderr.contains("`docs` is a folder") && folder.stderr.contains("-r"),
        "{}",
        folder.stderr
    );
    let walked = kapi.run(&["cat", "-r", "docs"]);
    assert_eq!(walked.code, 0, "{}", walked.transcript());
    assert!(
        walked.stdout.contains("docs/guide.md:1"),
        "{}",
        walked.stdout
    );
}

#[test]
fn cat_refuses_a_file_that_does_not_read_and_one_no_format_reads() {
    let kapi = Kapi::empty();
    kapi.write("broken.json", "{\"a\": ");
    let run = kapi.run(&["cat", "broken.json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("broken.json"), "{}", run.stderr);
    kapi.write("data.bin", "x");
    let run = kapi.run(&["cat", "data.bin"]);
    assert_ne!(run.code, 0, "{}", run.transcript());
    let run = kapi.run(&["cat", "missing.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
}

#[test]
fn grep_finds_a_phrase_across_markup_with_its_ref_line_and_column() {
    let kapi = project();
    let run = kapi.run(&["grep", "the dashboard", "docs/guide.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    docs/guide.md:3:6: s1/p: Open the dashboard
    docs/guide.md:10:19: s1/li: Reports live on the dashboard.
    ");
    let json = kapi
        .run(&["grep", "team", "docs/guide.md", "--json"])
        .json();
    assert_eq!(json["schema"], "kapi.grep/v1");
    assert_eq!(json["searched"], 1);
    let m = &json["matches"][0];
    assert_eq!(
        m["ref"],
        serde_json::json!({"doc": "docs/guide.md", "block": "s1/p", "edition": "source"})
    );
    assert_eq!(
        (m["line"].as_u64(), m["column"].as_u64()),
        (Some(4), Some(10))
    );
    assert_eq!(
        (m["match"].as_str(), m["text"].as_str()),
        (Some("team"), Some("for your team."))
    );
    assert_eq!(json["files"], serde_json::json!(["docs/guide.md"]));
}

#[test]
fn grep_never_matches_inside_code_or_a_placeholder() {
    let kapi = project();
    let code = kapi.run(&["grep", "kapi check", "docs/guide.md"]);
    assert_eq!(
        code.code,
        1,
        "a code block is not prose: {}",
        code.transcript()
    );
    assert_eq!(code.stdout, "");
    let placeholder = kapi.run(&["grep", "name", "i18n/en.json"]);
    assert_eq!(placeholder.code, 1, "{}", placeholder.transcript());
    let around = kapi.run(&["grep", "Hello, .+!", "i18n/en.json"]);
    assert_eq!(
        around.code,
        1,
        "a match may not take in a placeholder: {}",
        around.transcript()
    );
    let plural = kapi.run(&["grep", "files", "i18n/en.json"]);
    assert_eq!(
        plural.code,
        0,
        "a plural's branches are prose: {}",
        plural.transcript()
    );
    assert!(
        plural.stdout.starts_with("i18n/en.json:3:"),
        "{}",
        plural.stdout
    );
}

#[test]
fn grep_flags_ignore_case_words_fixed_strings_and_file_names() {
    let kapi = project();
    let code = |args: &[&str]| kapi.run(args).code;
    assert_eq!(code(&["grep", "DASHBOARD", "docs/guide.md"]), 1);
    assert_eq!(code(&["grep", "-i", "DASHBOARD", "docs/guide.md"]), 0);
    assert_eq!(code(&["grep", "-w", "dash", "docs/guide.md"]), 1);
    assert_eq!(code(&["grep", "dash", "docs/guide.md"]), 0);
    assert_eq!(code(&["grep", "-w", "dashboard", "docs/guide.md"]), 0);
    assert_eq!(code(&["grep", "-F", "team.", "docs/guide.md"]), 0);
    assert_eq!(code(&["grep", "-F", "tea.", "docs/guide.md"]), 1);
    assert_eq!(code(&["grep", "tea.", "docs/guide.md"]), 0);
    let names = kapi.run(&["grep", "-l", "-r", "o", "docs", "i18n/en.json"]);
    assert_eq!(names.code, 0, "{}", names.transcript());
    assert_eq!(names.stdout, "docs/guide.md\ni18n/en.json\n");
    let french = kapi.run(&["grep", "Bonjour", "i18n/en.json", "--editions", "fr"]);
    assert_eq!(french.code, 0, "{}", french.transcript());
    assert!(
        french
            .stdout
            .starts_with("i18n/fr.json:2:13: greet [fr]: Bonjour"),
        "{}",
        french.stdout
    );
    assert_eq!(
        code(&["grep", "Bonjour", "i18n/en.json"]),
        1,
        "the source alone by default"
    );
    let project = kapi.run(&["grep", "-l", "team"]);
    assert_eq!(
        project.stdout, "docs/guide.md\n",
        "no path: the collections"
    );
}

#[test]
fn grep_exits_two_on_trouble_and_searches_the_rest() {
    let kapi = project();
    let bad = kapi.run(&["grep", "(", "docs/guide.md"]);
    assert_eq!(bad.code, 2, "{}", bad.transcript());
    assert!(
        bad.stderr.contains("not a regular expression") && bad.stderr.contains("-F"),
        "{}",
        bad.stderr
    );
    let folder = kapi.run(&["grep", "team", "docs"]);
    assert_eq!(folder.code, 2, "{}", folder.transcript());
    kapi.write("docs/broken.md", "ok");
    kapi.write("i18n/broken.json", "{\"a\":");
    let some = kapi.run(&["grep", "team", "docs/guide.md", "i18n/broken.json"]);
    assert_eq!(some.code, 2, "{}", some.transcript());
    assert!(
        some.stdout.contains("docs/guide.md:4:10"),
        "{}",
        some.stdout
    );
    assert!(some.stderr.contains("i18n/broken.json"), "{}", some.stderr);
    let missing = kapi.run(&["grep", "x", "nowhere.md"]);
    assert_eq!(missing.code, 2, "{}", missing.transcript());
    let json = kapi.run(&["grep", "(", "docs/guide.md", "--json"]);
    assert_eq!(json.stderr_json()["code"], "usage");
}

#[test]
fn diff_lines_blocks_up_by_text_and_names_what_changed() {
    let kapi = project();
    kapi.write(
        "docs/new.md",
        "# Guide\n\nA new first paragraph.\n\nOpen the [console](/dash)\nfor your team.\n\n```sh\nkapi check dashboard\n```\n",
    );
    let run = kapi.run(&["diff", "docs/guide.md", "docs/new.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    --- docs/guide.md
    +++ docs/new.md
    added s1/p (line 3)
      + A new first paragraph.
    changed s1/p#2 (was s1/p) (line 3 → 5)
      - Open the dashboard for your team.
      + Open the console for your team.
    removed s1/li (line 10)
      - Reports live on the dashboard.
    ");
    let json = kapi.run(&["diff", "docs/guide.md", "docs/new.md", "--json"]);
    assert_eq!(json.code, 1);
    let json = json.json();
    assert_eq!(
        (json["schema"].as_str(), json["same"].as_u64()),
        (Some("kapi.diff/v1"), Some(1))
    );
    assert_eq!(json["changes"][1]["change"], "changed");
    assert_eq!(json["changes"][1]["was"], "s1/p");
    let same = kapi.run(&["diff", "docs/guide.md", "docs/guide.md"]);
    assert_eq!(
        (same.code, same.stdout.as_str()),
        (0, ""),
        "{}",
        same.transcript()
    );
}

#[test]
fn diff_against_a_git_revision_and_its_refusals() {
    let kapi = project();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(kapi.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "one"]);
    kapi.write("i18n/en.json", "{\n  \"greet\": \"Hi, {name}!\",\n  \"files\": \"{n, plural, one {# file} other {# files}}\",\n  \"new\": \"New\"\n}\n");
    let run = kapi.run(&["diff", "--rev", "HEAD", "i18n/en.json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    insta::assert_snapshot!(run.stdout, @r"
    --- HEAD:i18n/en.json
    +++ i18n/en.json
    changed greet (line 2 → 2)
      - Hello, {name}!
      + Hi, {name}!
    added new (line 4)
      + New
    removed bye (line 4)
      - Goodbye
    ");
    assert_eq!(
        kapi.run(&["diff", "--rev", "HEAD", "docs/guide.md"]).code,
        0
    );
    let bad = kapi.run(&["diff", "--rev", "nope", "docs/guide.md"]);
    assert_eq!(bad.code, 2, "{}", bad.transcript());
    assert!(
        bad.stderr.contains("`nope` is not a revision"),
        "{}",
        bad.stderr
    );
    assert_eq!(
        kapi.run(&["diff", "docs/guide.md"]).code,
        2,
        "one file needs --rev"
    );
    assert_eq!(kapi.run(&["diff", "docs/guide.md", "nowhere.md"]).code, 2);
}

#[test]
fn link_names_run_their_verb() {
    let kapi = project();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kapi"));
    for (link, args, expect) in [
        ("kcat", vec!["docs/guide.md"], "docs/guide.md:1"),
        ("kgrep", vec!["team", "docs/guide.md"], "docs/guide.md:4:10"),
        (
            "kdiff",
            vec!["docs/guide.md", "i18n/en.json"],
            "--- docs/guide.md",
        ),
        (
            "ksed",
            vec!["--print-ops", "s/team/crew/", "docs/guide.md"],
            "\"replace\": \"crew\"",
        ),
    ] {
        let path = kapi.path().join(link);
        std::os::unix::fs::symlink(bin, &path).expect("link");
        let out = std::process::Command::new(&path)
            .args(&args)
            .current_dir(kapi.path())
            .env("NO_COLOR", "1")
            .env_remove("KAPI_NO_PROJECT")
            .output()
            .expect("the link runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(expect),
            "{link}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_long_block_with_many_matches_is_counted_whole_and_listed_in_bounds() {
    let kapi = Kapi::empty();
    let chunk = format!("{}[link](x) ", "a b c d e f g h ".repeat(20));
    kapi.write("big.md", format!("# T\n\n{}\n", chunk.repeat(4000)));
    let run = kapi.run(&["grep", "-w", "a", "big.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["count"], 80_000);
    let matches = json["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 10_000);
    assert!(
        matches
            .iter()
            .all(|m| m["text"].as_str().unwrap().len() <= 200),
        "a long line is cut around each match"
    );
    assert!(
        run.stderr
            .contains("80000 matches; the first 10000 are listed"),
        "{}",
        run.stderr
    );
    let sed = kapi.run(&["sed", "-n", "s/a b/A B/g", "big.md"]);
    assert_eq!(sed.code, 0, "{}", sed.stderr);
    let across = kapi.run(&["sed", "-n", "s/h link/X/g", "big.md"]);
    assert_eq!(across.code, 0, "{}", across.stderr);
    assert!(
        across.stderr.contains("more matches left alone"),
        "{}",
        across.stderr
    );
}

#[test]
fn a_literal_object_replacement_character_is_prose_not_a_mark() {
    let kapi = Kapi::empty();
    kapi.write("f.md", "\u{FFFC} &amp; ab\u{20AC}\n");
    let run = kapi.run(&["grep", "ab", "f.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.contains("ab\u{20AC}"), "{}", run.stdout);
}

#[test]
fn two_long_different_files_compare_in_bounded_time() {
    let kapi = Kapi::empty();
    let para = |side: &str| {
        (0..3000)
            .map(|i| format!("{side} paragraph {i} says something.\n\n"))
            .collect::<String>()
    };
    kapi.write("a.txt", para("old"));
    kapi.write("b.txt", para("new"));
    let run = kapi.run(&["diff", "a.txt", "b.txt", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["changes"].as_array().unwrap().len(), 3000);
}
