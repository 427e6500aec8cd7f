//! Tests of the `.vale.ini` reader: keys, sections, resolution, errors, and the corpus.

use std::path::{Path, PathBuf};

use super::*;
use crate::error::Hint;

fn cfg(text: &str) -> ValeConfig {
    parse(".vale.ini", text).expect("the configuration parses")
}

fn err(text: &str) -> ConfigError {
    parse(".vale.ini", text).expect_err("the configuration is refused")
}

const FULL: &str = r#"# A comment
; another
StylesPath = styles # inline comment
MinAlertLevel = warning
Vocab = Base, Product
Packages = Microsoft, https://example.com/write-good.zip
IgnoredScopes = code, tt
SkippedScopes = script, style, pre
IgnoredClasses = no-lint
WordTemplate = \b(?:%s)\b
NLPEndpoint = http://localhost:8080
Shiny = yes

[formats]
mdx = md
txt = md

[asciidoctor]
experimental = YES

[*]
BasedOnStyles = Vale
Vale.Repetition = NO
Vale.Spelling = error

[*.{md,txt}]
BasedOnStyles = Microsoft, write-good
Microsoft.Passive = NO
write-good.Weasel = suggestion
Microsoft.Avoid = maybe
BlockIgnores = (?s) *({< file [^>]* >}.*?{</ ?file >}), \
(?s) *({< highlight [^>]* >}.*?{</ ?highlight >})
TokenIgnores = (\$+[^\n$]+\$+), (\{\{[^}]+\}\})
Lang = en_US
Transform = docs.xsl
CommentDelimiters = {/*, */}
Colour = blue

[docs/**/*.md]
BasedOnStyles = Google
write-good.Weasel = YES
TokenIgnores = (:[a-z]+:)
"#;

#[test]
fn every_core_key_is_read() {
    let c = cfg(FULL);
    assert_eq!(c.styles_path.as_deref(), Some("styles"));
    assert_eq!(c.min_alert_level, Level::Warning);
    assert_eq!(c.vocab, ["Base", "Product"]);
    assert_eq!(
        c.packages,
        ["Microsoft", "https://example.com/write-good.zip"]
    );
    assert_eq!(
        c.ignored_scopes.as_deref(),
        Some(&["code".to_owned(), "tt".to_owned()][..])
    );
    assert_eq!(c.skipped_scopes.as_deref().map(<[String]>::len), Some(3));
    assert_eq!(c.ignored_classes, ["no-lint"]);
    assert_eq!(c.word_template.as_deref(), Some(r"\b(?:%s)\b"));
    assert_eq!(c.nlp_endpoint.as_deref(), Some("http://localhost:8080"));
    assert_eq!(
        c.formats,
        [
            ("mdx".to_owned(), "md".to_owned()),
            ("txt".to_owned(), "md".to_owned())
        ]
    );
    assert_eq!(
        c.asciidoctor,
        [("experimental".to_owned(), "YES".to_owned())]
    );
    assert_eq!(c.format_for("mdx"), Some("md"));
    assert_eq!(c.format_for("rst"), None);
}

#[test]
fn sections_keep_their_keys() {
    let c = cfg(FULL);
    let global = c.global.as_ref().expect("[*]");
    assert_eq!(
        global.based_on_styles.as_deref(),
        Some(&["Vale".to_owned()][..])
    );
    assert_eq!(global.rules.len(), 2);
    assert_eq!(c.sections.len(), 2);
    let md = &c.sections[0];
    assert_eq!(md.pattern, "*.{md,txt}");
    assert_eq!(md.line, 26);
    assert_eq!(
        md.based_on_styles.as_deref(),
        Some(&["Microsoft".to_owned(), "write-good".to_owned()][..])
    );
    assert_eq!(
        md.rules,
        [
            RuleSetting {
                rule: "Microsoft.Passive".into(),
                value: RuleValue::Off,
                line: 28,
                source: 0,
            },
            RuleSetting {
                rule: "write-good.Weasel".into(),
                value: RuleValue::Level(Level::Suggestion),
                line: 29,
                source: 0,
            },
            RuleSetting {
                rule: "Microsoft.Avoid".into(),
                value: RuleValue::Off,
                line: 30,
                source: 0,
            },
        ]
    );
    assert_eq!(md.block_ignores.len(), 2);
    assert!(md.block_ignores[1].starts_with("(?s) *({< highlight"));
    assert_eq!(md.token_ignores, [r"(\$+[^\n$]+\$+)", r"(\{\{[^}]+\}\})"]);
    assert_eq!(md.lang.as_deref(), Some("en_US"));
    assert_eq!(md.transform.as_deref(), Some("docs.xsl"));
    assert_eq!(md.comment_delimiters, Some(("{/*".into(), "*/}".into())));
    assert_eq!(
        c.named_styles(),
        ["Vale", "Microsoft", "write-good", "Google"]
    );
}

#[test]
fn unknown_keys_and_odd_values_are_notices() {
    let c = cfg(FULL);
    assert_eq!(c.unknown.len(), 2);
    assert_eq!(
        (c.unknown[0].section.as_str(), c.unknown[0].key.as_str()),
        ("", "Shiny")
    );
    assert_eq!(c.unknown[1].key, "Colour");
    assert_eq!(c.unknown[1].section, "*.{md,txt}");
    assert_eq!(c.unknown[1].line, 37);
    let kinds: Vec<&NoticeKind> = c.notices.iter().map(|n| &n.kind).collect();
    assert!(kinds.contains(&&NoticeKind::UnknownRuleValue {
        rule: "Microsoft.Avoid".into(),
        value: "maybe".into()
    }));
    assert_eq!(c.notices.len(), 3);
    assert!(
        c.notices[0]
            .to_string()
            .starts_with(".vale.ini:12: unknown core option `Shiny`")
    );
    let old = cfg("[*]\nIgnorePatterns = (a)\n");
    assert_eq!(old.global.expect("[*]").block_ignores, ["(a)"]);
    assert!(matches!(old.notices[0].kind, NoticeKind::Deprecated { .. }));
}

#[test]
fn resolution_replaces_styles_and_layers_rules() {
    let c = cfg(FULL);
    let readme = c.resolve("README.md");
    assert_eq!(readme.styles, ["Microsoft", "write-good"]);
    assert_eq!(readme.rule_state("Microsoft.Passive"), RuleState::Off);
    assert_eq!(readme.rule_state("Microsoft.Terms"), RuleState::On(None));
    assert_eq!(
        readme.rule_state("write-good.Weasel"),
        RuleState::On(Some(Level::Suggestion))
    );
    assert_eq!(
        readme.rule_state("Vale.Spelling"),
        RuleState::On(Some(Level::Error))
    );
    assert_eq!(readme.rule_state("Vale.Repetition"), RuleState::Off);
    // `[*]`'s style is replaced, not merged, as in Vale.
    assert_eq!(readme.rule_state("Vale.Terms"), RuleState::Off);
    assert_eq!(readme.rule_state("Google.Will"), RuleState::Off);
    assert_eq!(readme.lang.as_deref(), Some("en_US"));
    assert_eq!(
        readme.comment_delimiters,
        Some(("{/*".into(), "*/}".into()))
    );

    let guide = c.resolve("./docs/guide/start.md");
    assert_eq!(guide.path, "docs/guide/start.md");
    assert_eq!(guide.styles, ["Google"]);
    assert_eq!(guide.rule_state("write-good.Weasel"), RuleState::On(None));
    assert_eq!(guide.rule_state("Microsoft.Passive"), RuleState::Off);
    assert_eq!(guide.rule_state("Microsoft.Terms"), RuleState::Off);
    assert_eq!(guide.token_ignores.len(), 3);
    assert_eq!(guide.active_styles(), ["Google", "write-good", "Vale"]);

    let other = c.resolve("src/main.rs");
    assert_eq!(other.styles, ["Vale"]);
    assert_eq!(other.rule_state("Vale.Terms"), RuleState::On(None));
    assert_eq!(other.rule_state("Vale.Repetition"), RuleState::Off);
    assert!(other.lang.is_none());
    assert_eq!(other.min_alert_level, Level::Warning);
    assert_eq!(
        other.ignored_classes,
        ["problematic", "pre", "code", "no-lint"]
    );
    assert_eq!(other.ignored_scopes, ["code", "tt"]);
    assert_eq!(other.skipped_scopes, ["script", "style", "pre"]);
    let defaults = cfg("").resolve("a.md");
    assert_eq!(defaults.ignored_scopes, DEFAULT_IGNORED_SCOPES);
    assert_eq!(defaults.skipped_scopes, DEFAULT_SKIPPED_SCOPES);
}

#[test]
fn formats_map_the_path_matched() {
    let c = cfg("[formats]\nmdx = md\n[*.md]\nBasedOnStyles = A\n[*.mdx]\nA.B = NO\n");
    let page = c.resolve("pages/index.mdx");
    assert_eq!(page.normed_path.as_deref(), Some("pages/index.md"));
    assert_eq!(page.format.as_deref(), Some("md"));
    assert_eq!(page.styles, ["A"]);
    assert_eq!(page.rule_state("A.B"), RuleState::Off);
    assert_eq!(page.rule_state("A.C"), RuleState::On(None));
    let plain = c.resolve("index.md");
    assert!(plain.normed_path.is_none());
    assert_eq!(plain.rule_state("A.B"), RuleState::On(None));
}

#[test]
fn the_mapped_path_is_matched_after_the_path_as_vale_does() {
    let c = cfg("[formats]\nmdx = md\n[*.md]\nBasedOnStyles = B\n[*.mdx]\nBasedOnStyles = A\n");
    // Vale: `a.mdx` picks A, then `a.md` picks B, which stays.
    assert_eq!(c.resolve("a.mdx").styles, ["B"]);
    assert_eq!(c.resolve("a.md").styles, ["B"]);
}

#[test]
fn vales_level_is_one_for_every_file() {
    let c = cfg("[*]\nS.R = warning\n[*.md]\nS.R = error\n[*.txt]\nS.R = YES\n");
    assert_eq!(c.vale_level("S.R"), Some(Level::Error));
    assert_eq!(c.vale_level("S.Q"), None);
    assert_eq!(c.resolve("a.txt").rule_state("S.R"), RuleState::On(None));
    assert_eq!(
        c.resolve("a.rst").rule_state("S.R"),
        RuleState::On(Some(Level::Warning))
    );
}

#[test]
fn later_sections_win_and_repeated_sections_merge() {
    let c = cfg("[*.md]\nS.R = error\n\
         [docs/*]\nS.R = warning\nBasedOnStyles = T\n\
         [*.md]\nBasedOnStyles = U\n");
    assert_eq!(c.sections.len(), 2);
    let r = c.resolve("docs/a.md");
    // `[*.md]` is one section, first in file order: `[docs/*]` comes after it.
    assert_eq!(r.rule_state("S.R"), RuleState::On(Some(Level::Warning)));
    assert_eq!(r.styles, ["T"]);
    let s = c.resolve("a.md");
    assert_eq!(s.styles, ["U"]);
    assert_eq!(s.rule_state("S.R"), RuleState::On(Some(Level::Error)));
}

#[test]
fn errors_name_the_line_and_the_fix() {
    let e = err("StylesPath = a\n\n[*]\nStylesPath = b\n");
    assert_eq!(e.line, Some(4));
    assert!(matches!(e.kind, ConfigErrorKind::CoreKeyInSection { .. }));
    assert_eq!(
        e.to_string(),
        ".vale.ini:4: `StylesPath` is a core option, but it is inside `[*]`"
    );
    assert_eq!(
        e.hints(),
        ["move `StylesPath` above the first `[section]` of the file"]
    );

    let e = err("BasedOnStyles = A\n");
    assert!(matches!(e.kind, ConfigErrorKind::SectionKeyInCore { .. }));
    assert_eq!(e.line, Some(1));

    let e = err("MinAlertLevel = info\n");
    assert!(matches!(e.kind, ConfigErrorKind::BadLevel { .. }));

    let e = err("# ok\n[*.{md\nA = B\n");
    assert!(matches!(e.kind, ConfigErrorKind::Syntax { .. }), "{e}");
    assert_eq!(e.line, Some(2));

    // Nested alternatives compile, as gobwas's; only a hostile depth is refused.
    let nested = cfg("[*.{md,{a,b}}]\nA.B = NO\n");
    assert_eq!(nested.resolve("x.b").rule_state("A.B"), RuleState::Off);
    let e = err(&format!("[{}a{}]\n", "{".repeat(150), "}".repeat(150)));
    assert!(matches!(e.kind, ConfigErrorKind::BadGlob { .. }), "{e}");

    let e = err("[*]\njust words\n");
    assert_eq!(e.line, Some(2));
    assert!(!e.hints().is_empty());

    let e = err("[*.md]\nCommentDelimiters = {/*\n");
    assert!(matches!(
        e.kind,
        ConfigErrorKind::BadDelimiters { count: 1 }
    ));
    // As Vale's `ini_test.go`: quoted, repeated (shadowed), and in `[*]`.
    let quoted = cfg("[*.md]\nCommentDelimiters = \"{/*,*/}\"\n");
    assert_eq!(
        quoted.sections[0].comment_delimiters,
        Some(("{/*".into(), "*/}".into()))
    );
    let e =
        err("[*.md]\nCommentDelimiters = \"{/*,*/}\"\n\n[*.md]\nCommentDelimiters = \"<<,>>\"\n");
    assert!(matches!(
        e.kind,
        ConfigErrorKind::BadDelimiters { count: 4 }
    ));
    assert_eq!(e.line, Some(5));
    let e = err("[*]\nCommentDelimiters = \"{/*,*/}\"\n");
    assert!(matches!(e.kind, ConfigErrorKind::NotGlobal { .. }));
    assert!(e.to_string().contains("syntax-specific"));
    let e = err("[*]\nTransform = a.xsl\n");
    assert!(matches!(e.kind, ConfigErrorKind::NotGlobal { .. }));

    let e = err("[]\n");
    assert!(matches!(e.kind, ConfigErrorKind::Syntax { .. }));
}

#[test]
fn dialect_details() {
    let c = cfg("\u{feff}StylesPath = 'a b' # c\r\n\
         [DEFAULT]\nMinAlertLevel: error\n\
         [*] ; all\nBasedOnStyles = A,,A , B\nBasedOnStyles = C\n\
         TokenIgnores = `(x),\n(y)`\n");
    assert_eq!(c.styles_path.as_deref(), Some("a b"));
    assert_eq!(c.min_alert_level, Level::Error);
    let global = c.global.expect("[*]");
    assert_eq!(
        global.based_on_styles.as_deref(),
        Some(&["A".to_owned(), "B".to_owned(), "C".to_owned()][..])
    );
    assert_eq!(global.token_ignores, ["(x)", "(y)"]);
    // go-ini cuts the comment before it drops the quotes.
    assert_eq!(
        cfg("StylesPath = \"a # b\"\n").styles_path.as_deref(),
        Some("\"a")
    );
    let empty = cfg("");
    assert!(empty.global.is_none() && empty.sections.is_empty() && empty.notices.is_empty());
    assert_eq!(empty.resolve("a.md").rule_state("A.B"), RuleState::Off);
}

#[test]
fn hostile_inputs_are_bounded() {
    // A large file: many sections and keys, parsed in one pass.
    let mut big = String::from("StylesPath = s\n");
    for i in 0..5_000 {
        big.push_str(&format!(
            "[dir{i}/**/*.md]\nBasedOnStyles = S{i}\nS.R{i} = NO\n"
        ));
    }
    let c = cfg(&big);
    assert_eq!(c.sections.len(), 5_000);
    assert_eq!(c.resolve("dir42/x/y.md").styles, ["S42"]);
    // A long continuation, a long line, deep globs, nested braces.
    let long = format!("[*]\nBlockIgnores = {}x\n", "a, \\\n".repeat(20_000));
    assert_eq!(cfg(&long).global.expect("[*]").block_ignores.len(), 2);
    let line = format!("[*]\nTokenIgnores = {}\n", "(x)".repeat(200_000));
    assert_eq!(cfg(&line).global.expect("[*]").token_ignores.len(), 1);
    let deep = format!("[{}*.md]\nA.B = NO\n", "**/".repeat(300));
    assert_eq!(
        cfg(&deep)
            .resolve(&("d/".repeat(5_000) + "a.md"))
            .rule_state("A.B"),
        RuleState::Off
    );
    let nested = format!("[{}a{}]\n", "{".repeat(100_000), "}".repeat(100_000));
    assert!(matches!(err(&nested).kind, ConfigErrorKind::BadGlob { .. }));
    // Long lists and many repeated keys stay linear (deduplicated once, with a set).
    let entries: Vec<String> = (0..100_000).map(|i| format!("S{i}")).collect();
    let list = format!("[*]\nBasedOnStyles = {}\n", entries.join(", "));
    let c = cfg(&list);
    assert_eq!(
        c.global
            .as_ref()
            .map(|g| g.based_on_styles.iter().flatten().count()),
        Some(100_000)
    );
    assert_eq!(c.named_styles().len(), 100_000);
    let repeated = format!("[*]\n{}", "TokenIgnores = (a), (b)\n".repeat(50_000));
    assert_eq!(
        cfg(&repeated).global.expect("[*]").token_ignores,
        ["(a)", "(b)"]
    );
    let binary = "\0\u{1}[\u{7f}]==\\\n\\";
    let _ = parse("x", binary);
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/vale")
}

/// Rules the Microsoft fixtures enable that the package no longer ships.
const STALE: &[&str] = &[
    "Microsoft.Backend",
    "Microsoft.ComplexWords",
    "Microsoft.RangeFormat",
    "Microsoft.Ranges",
];

#[test]
fn corpus_fixtures_parse_resolve_and_find_their_rules() {
    let mut checked = 0;
    for package in ["write-good", "Microsoft"] {
        let root = corpus().join(package);
        let mut fixtures: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures"))
            .expect("fixtures")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        fixtures.sort();
        for fixture in fixtures {
            let ini = fixture.join(".vale.ini");
            assert_eq!(find_config(&fixture).as_deref(), Some(ini.as_path()));
            let config = read_config(&ini).expect("the fixture's .vale.ini parses");
            assert!(
                config.notices.is_empty(),
                "{}: {:?}",
                ini.display(),
                config.notices
            );
            let loaded = load(&ini, &config).expect("its StylesPath exists");
            let styles_path = loaded.styles_path.clone().expect("StylesPath");
            assert_eq!(
                styles_path.canonicalize().expect("a folder"),
                root.canonicalize().expect("a folder")
            );
            let resolved = config.resolve("test.md");
            let enabled: Vec<&String> = resolved
                .rules
                .iter()
                .filter(|(_, v)| *v != RuleValue::Off)
                .map(|(id, _)| id)
                .collect();
            assert!(!enabled.is_empty(), "{}", ini.display());
            for id in enabled {
                assert_eq!(resolved.rule_state(id), RuleState::On(None));
                match loaded.rule(id) {
                    Some(rule) => {
                        assert!(rule.path.starts_with(&styles_path));
                        assert!(rule.text.contains("extends:"), "{id}");
                        checked += 1;
                    }
                    None => {
                        assert!(STALE.contains(&id.as_str()), "{id} has no rule file");
                        assert!(loaded.notices.iter().any(|n| matches!(&n.kind,
                            NoticeKind::MissingRule { rule } if rule == id)));
                    }
                }
            }
            assert_eq!(loaded.styles.len(), 1);
            assert_eq!(loaded.styles[0].name, package);
        }
    }
    assert!(checked > 40, "{checked} rules found");
}

#[test]
fn corpus_styles_list_every_rule_file() {
    let root = corpus().join("write-good");
    let config = cfg("StylesPath = .\n[*]\nBasedOnStyles = write-good, Vale\n");
    let loaded = load(&root.join(".vale.ini"), &config).expect("loads");
    let ids: Vec<&str> = loaded.styles[0]
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "write-good.Cliches",
            "write-good.E-Prime",
            "write-good.Illusions",
            "write-good.Passive",
            "write-good.So",
            "write-good.ThereIs",
            "write-good.TooWordy",
            "write-good.Weasel"
        ]
    );
    assert!(loaded.notices.is_empty(), "{:?}", loaded.notices);
}

#[test]
fn vocabularies_packages_and_missing_things() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    let styles = root.join("styles");
    std::fs::create_dir_all(styles.join("config/vocabularies/Base")).expect("mkdir");
    std::fs::create_dir_all(styles.join("Vocab/Old")).expect("mkdir");
    std::fs::create_dir_all(styles.join("Mine")).expect("mkdir");
    std::fs::create_dir_all(styles.join("Microsoft")).expect("mkdir");
    std::fs::write(
        styles.join("config/vocabularies/Base/accept.txt"),
        "# Product names\nkapi\n\n  [Vv]ale  \n#notacomment\n",
    )
    .expect("write");
    std::fs::write(
        styles.join("config/vocabularies/Base/reject.txt"),
        "utilize\n",
    )
    .expect("write");
    std::fs::write(styles.join("Vocab/Old/accept.txt"), "Foo\n").expect("write");
    std::fs::write(styles.join("Mine/Rule.yml"), "extends: existence\n").expect("write");
    std::fs::write(styles.join("Mine/notes.txt"), "not a rule").expect("write");
    std::fs::write(styles.join("Mine/Bad.yml"), [0xff, 0xfe]).expect("write");
    let ini = root.join(".vale.ini");
    std::fs::write(
        &ini,
        "StylesPath = styles\nVocab = Base, Old, Gone\n\
         Packages = Microsoft, https://x.test/p/Google.zip\n\
         [*]\nBasedOnStyles = Mine, Absent\nMine.Nope = YES\n",
    )
    .expect("write");
    let nested = root.join("a/b");
    std::fs::create_dir_all(&nested).expect("mkdir");
    assert_eq!(find_config(&nested), Some(ini.clone()));

    let config = read_config(&ini).expect("parses");
    let loaded = load(&ini, &config).expect("loads");
    let base = &loaded.vocabularies[0];
    assert_eq!(base.name, "Base");
    let accept: Vec<(&str, usize)> = base
        .accept
        .iter()
        .map(|e| (e.pattern.as_str(), e.line))
        .collect();
    assert_eq!(accept, [("kapi", 2), ("[Vv]ale", 4), ("#notacomment", 5)]);
    assert_eq!(base.reject[0].pattern, "utilize");
    assert_eq!(loaded.vocabularies[1].name, "Old");
    assert_eq!(loaded.vocabularies[1].accept[0].pattern, "Foo");
    assert!(loaded.vocabularies[1].reject.is_empty());
    let terms: Vec<&str> = loaded
        .vale_terms()
        .iter()
        .map(|e| e.pattern.as_str())
        .collect();
    assert_eq!(terms, ["kapi", "[Vv]ale", "#notacomment", "Foo"]);
    assert_eq!(loaded.vale_avoid().len(), 1);
    let names: Vec<&str> = loaded.styles.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Mine", "Microsoft"]);
    assert_eq!(loaded.styles[0].rules.len(), 1);
    assert_eq!(loaded.styles[0].rules[0].id, "Mine.Rule");
    let kinds: Vec<&NoticeKind> = loaded.notices.iter().map(|n| &n.kind).collect();
    assert!(kinds.contains(&&NoticeKind::MissingPackage {
        name: "Google".into()
    }));
    assert!(kinds.contains(&&NoticeKind::MissingStyle {
        name: "Absent".into()
    }));
    assert!(kinds.contains(&&NoticeKind::MissingRule {
        rule: "Mine.Nope".into()
    }));
    assert!(kinds.contains(&&NoticeKind::MissingVocabulary {
        name: "Gone".into()
    }));
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, NoticeKind::Unreadable { .. }))
    );
    assert!(loaded.notices.iter().all(|n| !n.to_string().is_empty()));

    std::fs::write(&ini, "StylesPath = nowhere\n").expect("write");
    let config = read_config(&ini).expect("parses");
    let e = load(&ini, &config).expect_err("no StylesPath folder");
    assert!(matches!(&e.kind, ConfigErrorKind::NoStylesPath { path, .. } if path == "nowhere"));
    assert!(e.hints()[0].starts_with("create the folder"));
    std::fs::write(&ini, "StylesPath = ~/styles\n").expect("write");
    let config = read_config(&ini).expect("parses");
    let e = load(&ini, &config).expect_err("no `~` expansion");
    assert!(e.hints()[0].contains("does not expand"));
    let e = read_config(&root.join("missing.ini")).expect_err("no file");
    assert!(matches!(e.kind, ConfigErrorKind::Unreadable(_)));
}

#[test]
fn config_names_follow_vales_order() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("_vale.ini"), "").expect("write");
    std::fs::write(dir.path().join(".vale.ini"), "").expect("write");
    assert_eq!(find_config(dir.path()), Some(dir.path().join(".vale.ini")));
    std::fs::create_dir(dir.path().join("vale.ini")).expect("a folder is no config");
    assert_eq!(find_config(dir.path()), Some(dir.path().join(".vale.ini")));
    assert_eq!(package_name("https://x.test/a/Google.zip"), "Google");
    assert_eq!(package_name("Microsoft"), "Microsoft");
}

/// Scenarios of Vale's `testdata/features/config.feature`, as the rules they turn on.
#[test]
fn vales_config_feature_scenarios() {
    // Ignore BasedOnStyle for formats it doesn't match.
    let c = cfg("MinAlertLevel = warning\n[*.py]\nBasedOnStyles = vale\nvale.Spelling = NO\n");
    assert_eq!(
        c.resolve("test.md").rule_state("vale.Editorializing"),
        RuleState::Off
    );
    assert_eq!(
        c.resolve("test.py").rule_state("vale.Editorializing"),
        RuleState::On(None)
    );
    // Overwrite BasedOnStyle on a per-syntax basis.
    let c = cfg("[*]\nBasedOnStyles = vale\nvale.Spelling = NO\n\
         [*.py]\nBasedOnStyles = write-good\nwrite-good.E-Prime = NO\n");
    let py = c.resolve("test.py");
    assert_eq!(py.styles, ["write-good"]);
    assert_eq!(py.rule_state("vale.Editorializing"), RuleState::Off);
    assert_eq!(py.rule_state("write-good.E-Prime"), RuleState::Off);
    assert_eq!(c.resolve("test.md").styles, ["vale"]);
    // Overwrite disabled rules on a per-syntax and a per-file basis.
    for section in ["*.py", "test.py"] {
        let c = cfg(&format!(
            "[*]\nBasedOnStyles = write-good\nwrite-good.Weasel = NO\n\
             [{section}]\nwrite-good.Weasel = YES\n"
        ));
        assert_eq!(
            c.resolve("test.py").rule_state("write-good.Weasel"),
            RuleState::On(None)
        );
        assert_eq!(
            c.resolve("test.md").rule_state("write-good.Weasel"),
            RuleState::Off
        );
    }
    // Load individual rules.
    let c = cfg("[*]\nBasedOnStyles = vale\nwrite-good.ThereIs = YES\ndemo.Spelling = YES\n");
    let py = c.resolve("test.py");
    assert_eq!(py.rule_state("write-good.ThereIs"), RuleState::On(None));
    assert_eq!(py.rule_state("write-good.Weasel"), RuleState::Off);
    assert_eq!(py.active_styles(), ["vale", "write-good", "demo"]);
    // Change an external rule's level.
    let c = cfg("MinAlertLevel = error\n[*.{md,py}]\nwrite-good.Weasel = error\n");
    let py = c.resolve("test.py");
    assert_eq!(
        py.rule_state("write-good.Weasel"),
        RuleState::On(Some(Level::Error))
    );
    assert_eq!(py.min_alert_level, Level::Error);
    // A negated directory glob.
    let c = cfg("[!content/b/*]\nBasedOnStyles = Vale\n");
    assert_eq!(c.resolve("content/a.md").styles, ["Vale"]);
    assert!(c.resolve("content/b/x.md").styles.is_empty());
}

#[test]
fn synced_package_configurations_are_read_first() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    let pipe = root.join("styles/.vale-config");
    std::fs::create_dir_all(&pipe).expect("mkdir");
    std::fs::create_dir_all(root.join("styles/Mine")).expect("mkdir");
    std::fs::write(
        pipe.join("0-Hugo.ini"),
        "[formats]\nmdx = md\n[*.md]\nTokenIgnores = (\\{\\{[^}]+\\}\\})\nVale.Spelling = maybe\n",
    )
    .expect("write");
    let ini = root.join(".vale.ini");
    std::fs::write(
        &ini,
        "StylesPath = styles\nPackages = Hugo, Gone\n[*.md]\nBasedOnStyles = Mine\n",
    )
    .expect("write");

    let own = read_config(&ini).expect("parses");
    assert_eq!(own.sources.len(), 1);
    assert!(own.formats.is_empty());

    let config = read_config_with_packages(&ini).expect("parses with the packages");
    assert_eq!(config.sources.len(), 2);
    assert_eq!(config.file, ini.display().to_string());
    assert_eq!(config.format_for("mdx"), Some("md"));
    let page = config.resolve("content/page.mdx");
    assert_eq!(page.styles, ["Mine"]);
    assert_eq!(page.token_ignores, [r"(\{\{[^}]+\}\})"]);
    // A notice names the package's file.
    let odd = &config.notices[0];
    assert_eq!(odd.file.as_deref(), Some(config.sources[0].as_str()));
    assert_eq!(odd.line, Some(5));
    assert!(odd.to_string().contains("0-Hugo.ini:5:"));

    let loaded = load(&ini, &config).expect("loads");
    let missing: Vec<&NoticeKind> = loaded.notices.iter().map(|n| &n.kind).collect();
    assert_eq!(
        missing,
        [&NoticeKind::MissingPackage {
            name: "Gone".into()
        }]
    );

    // An error in a package's file names that file.
    std::fs::write(pipe.join("1-Bad.ini"), "[*.md]\nStylesPath = x\n").expect("write");
    let e = read_config_with_packages(&ini).expect_err("a core key in a section");
    assert!(e.file.ends_with("1-Bad.ini"), "{e}");
    assert_eq!(e.line, Some(2));
}
