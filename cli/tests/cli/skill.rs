//! The skill (`skills/kapi/`) and `kapi help TOPIC`: SKILL.md's limits (body words, frontmatter),
//! every `kapi …` command a skill file names exists with the flags it names, and every topic
//! `kapi help` lists prints with its links rewritten.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Kapi;

fn skill_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/kapi")
}

/// Every file under the skill directory, as (path relative to it, text), for text files.
fn skill_files() -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).expect("read skill dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let rel = path.strip_prefix(root).expect("under root");
                out.push((rel.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    let root = skill_dir();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

fn skill_md() -> String {
    std::fs::read_to_string(skill_dir().join("SKILL.md")).expect("SKILL.md")
}

/// The frontmatter lines and the body of SKILL.md.
fn split(text: &str) -> (Vec<&str>, &str) {
    let rest = text.strip_prefix("---\n").expect("SKILL.md opens with ---");
    let end = rest.find("\n---\n").expect("frontmatter closes with ---");
    (rest[..end].lines().collect(), &rest[end + 5..])
}

#[test]
fn skill_md_body_is_under_365_words() {
    let text = skill_md();
    let (_, body) = split(&text);
    let words = body.split_whitespace().count();
    assert!(words > 0 && words < 365, "SKILL.md body has {words} words");
}

#[test]
fn skill_md_frontmatter_names_kapi_with_a_quoted_one_line_description() {
    let text = skill_md();
    let (lines, _) = split(&text);
    assert!(lines.contains(&"name: kapi"), "{lines:?}");
    let description: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("description:"))
        .collect();
    assert_eq!(description.len(), 1, "{lines:?}");
    let value = description[0]
        .strip_prefix("description: ")
        .expect("`description: ` then the value");
    assert!(
        value.len() > 2 && value.starts_with('"') && value.ends_with('"'),
        "not double-quoted on one line: {value}"
    );
    let inner = &value[1..value.len() - 1];
    assert!(!inner.trim().is_empty());
    assert!(
        inner.chars().count() < 1024,
        "{} chars",
        inner.chars().count()
    );
    assert!(!inner.contains('"') && !inner.contains('<'), "{inner}");
    assert!(inner.starts_with("Use when"), "trigger first: {inner}");
    // Every line of the frontmatter is a field the Agent Skills standard allows.
    for line in &lines {
        let key = line.split(':').next().unwrap_or_default();
        assert!(["name", "description"].contains(&key), "field {key}");
    }
    // The same values as the binary parses.
    let (name, desc) = kapi_host::agents::skills::frontmatter(&text).expect("frontmatter parses");
    assert_eq!((name.as_str(), desc.as_str()), ("kapi", inner));
}

/// One `kapi …` command a skill file names: its words up to the end of the span.
#[derive(Debug)]
struct Named {
    file: String,
    words: Vec<String>,
}

/// The text spans that can hold a command: inline code (single backticks) and fenced code lines.
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            spans.push(line.to_owned());
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        for (i, part) in parts.iter().enumerate() {
            if i % 2 == 1 && i + 1 < parts.len() {
                spans.push((*part).to_owned());
            }
        }
    }
    spans
}

fn named_commands() -> Vec<Named> {
    let mut out = Vec::new();
    for (file, text) in skill_files() {
        if !file.ends_with(".md") {
            continue;
        }
        for span in code_spans(&text) {
            let tokens: Vec<&str> = span.split_whitespace().collect();
            for (i, token) in tokens.iter().enumerate() {
                if *token != "kapi" {
                    continue;
                }
                let mut words = Vec::new();
                for word in &tokens[i + 1..] {
                    if ["|", "&&", ";", "#", "or"].contains(word) || *word == "kapi" {
                        break;
                    }
                    let word = word.trim_end_matches([')', ',', ';', ':', '`']);
                    words.push(word.to_owned());
                }
                if words
                    .first()
                    .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
                {
                    out.push(Named {
                        file: file.clone(),
                        words,
                    });
                }
            }
        }
    }
    out
}

/// The subcommand names a command's help lists under `Commands:`.
fn subcommands(help: &str) -> Vec<String> {
    help.split("Commands:")
        .nth(1)
        .map(|section| {
            section
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_command_a_skill_file_names_exists_with_its_flags() {
    let kapi = Kapi::empty();
    let named = named_commands();
    assert!(named.len() > 40, "found only {} commands", named.len());
    let mut helps: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut help_for = |path: &[String]| -> String {
        helps
            .entry(path.to_vec())
            .or_insert_with(|| {
                let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
                args.push("--help");
                let run = kapi.run(&args);
                assert_eq!(run.code, 0, "kapi {args:?}: {}", run.transcript());
                run.stdout
            })
            .clone()
    };
    let topics = Kapi::empty().run(&["help"]).stdout;
    for cmd in &named {
        let verb = cmd.words[0].clone();
        let mut path = vec![verb.clone()];
        let mut help = help_for(&path);
        if let Some(sub) = cmd.words.get(1)
            && subcommands(&help).contains(sub)
        {
            path.push(sub.clone());
            help = help_for(&path);
        }
        for word in &cmd.words[path.len()..] {
            let flag = word.split('=').next().unwrap_or_default();
            let is_flag = flag.starts_with("--") && flag.len() > 2
                || flag.len() == 2 && flag.starts_with('-') && flag != "--";
            if is_flag {
                assert!(
                    help.contains(flag),
                    "{}: `kapi {}` names {flag}, which `kapi {} --help` does not list",
                    cmd.file,
                    cmd.words.join(" "),
                    path.join(" ")
                );
            }
        }
        // `kapi help TOPIC`: the topic exists.
        if verb == "help"
            && let Some(topic) = cmd.words.get(1)
            && topic
                .chars()
                .all(|c| c.is_ascii_lowercase() || "-/".contains(c))
        {
            assert!(
                topics.contains(&format!("  {topic} ")),
                "{}: `kapi help {topic}` is not a topic",
                cmd.file
            );
        }
    }
}

/// The topic names the overview lists under its two topic headings.
fn listed_topics(overview: &str) -> Vec<String> {
    let mut out = Vec::new();
    for heading in ["Topics (", "Skill topics ("] {
        let section = overview
            .split(&format!("\n{heading}"))
            .nth(1)
            .expect(heading);
        out.extend(
            section
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .filter_map(|l| l.split_whitespace().next().map(str::to_owned)),
        );
    }
    out
}

/// Markdown links to `.md` files left in a text: `](…md)`.
fn md_links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')')?];
            (target.ends_with(".md") || target.contains(".md#")).then_some(target)
        })
        .collect()
}

#[test]
fn every_topic_kapi_help_lists_prints_without_md_links() {
    let kapi = Kapi::empty();
    let overview = kapi.run(&["help"]);
    assert_eq!(overview.code, 0);
    let topics = listed_topics(&overview.stdout);
    for want in [
        "exit-codes",
        "changes",
        "hooks",
        "skill",
        "edit",
        "create",
        "voice",
        "translate",
        "project",
        "context",
        "check",
        "growing-context",
        "i18n",
        "i18n/react",
        "i18n/vue",
        "i18n/angular",
        "i18n/rails",
        "i18n/django",
        "i18n/android",
        "i18n/ios",
        "i18n/flutter",
    ] {
        assert!(topics.iter().any(|t| t == want), "{want}: {topics:?}");
    }
    for topic in &topics {
        let run = kapi.run(&["help", topic]);
        assert_eq!(run.code, 0, "{topic}: {}", run.transcript());
        assert!(!run.stdout.trim().is_empty(), "{topic}");
        assert!(
            md_links(&run.stdout).is_empty(),
            "{topic} keeps links to files: {:?}",
            md_links(&run.stdout)
        );
    }
}

#[test]
fn a_reference_prints_with_its_links_as_help_commands() {
    let kapi = Kapi::empty();
    let edit = kapi.run(&["help", "edit"]);
    assert_eq!(edit.code, 0);
    assert!(edit.stdout.starts_with("# Edit content"), "{}", edit.stdout);
    assert!(edit.stdout.contains("`kapi help check`"), "{}", edit.stdout);
    let i18n = kapi.run(&["help", "i18n"]);
    assert!(
        i18n.stdout.contains("`kapi help i18n/react`"),
        "{}",
        i18n.stdout
    );
    let react = kapi.run(&["help", "i18n/react"]);
    assert!(
        react.stdout.contains("`kapi help edit`"),
        "{}",
        react.stdout
    );
    let skill = kapi.run(&["help", "skill"]);
    assert!(skill.stdout.contains("name: kapi"), "{}", skill.stdout);
    // A name that is a command and a reference: the command's options, then the reference.
    let check = kapi.run(&["help", "check"]);
    assert!(check.stdout.contains("--fail-on"), "{}", check.stdout);
    assert!(
        check.stdout.contains("# The check report"),
        "{}",
        check.stdout
    );
}

#[test]
fn the_json_help_carries_a_reference() {
    let run = Kapi::empty().run(&["help", "voice", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let json = run.json();
    assert_eq!(json["schema"], "kapi.help/v1");
    assert_eq!(json["topic"], "voice");
    assert!(
        json["text"]
            .as_str()
            .unwrap_or_default()
            .contains("kapi help")
    );
}

#[test]
fn an_unknown_topic_exits_2_listing_the_skill_topics() {
    let run = Kapi::empty().run(&["help", "nope"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    for name in ["exit-codes", "edit", "i18n/react"] {
        assert!(run.stderr.contains(name), "{name}: {}", run.transcript());
    }
    let escape = Kapi::empty().run(&["help", "../SKILL"]);
    assert_eq!(escape.code, 2, "{}", escape.transcript());
}

#[test]
fn help_overview_snapshot() {
    let run = Kapi::empty().run(&["help"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("help_overview", run.stdout);
}

#[test]
fn the_embedded_tree_matches_skills_kapi() {
    let embedded: Vec<(String, Vec<u8>)> = kapi_host::agents::skills::files()
        .into_iter()
        .map(|(p, b)| (p.to_owned(), b.to_vec()))
        .collect();
    let on_disk: Vec<(String, Vec<u8>)> = skill_files()
        .into_iter()
        .map(|(p, t)| (p, t.into_bytes()))
        .collect();
    assert_eq!(
        embedded.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        on_disk.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    assert!(
        embedded == on_disk,
        "the embedded skill differs from skills/kapi/"
    );
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(dir), std::fs::read(&p)) {
                out.insert(rel.display().to_string(), bytes);
            }
        }
    }
    out
}

#[test]
fn every_committed_copy_of_the_skill_equals_skills_kapi() {
    let root = crate::testdata().join("..");
    let mut source = tree(&root.join("skills/kapi"));
    source.remove("retired.sha256");
    let plugin = root.join("packages/kapi-claude-plugin/skills/kapi");
    assert!(plugin.exists(), "run `make plugin-bundle`");
    assert_eq!(
        tree(&plugin),
        source,
        "packages/kapi-claude-plugin differs: run `make plugin-bundle`"
    );
    let dev =
        std::fs::read(root.join(".claude/skills/kapi/SKILL.md")).expect("run `make dev-skills`");
    assert_eq!(Some(&dev), source.get("SKILL.md"), "run `make dev-skills`");
}
