use super::*;
use crate::error::Hint;

const FULL: &str = "\
version: v1
name: handbook
x-extra: {keep: me}
defaults:
  source_language: en
  target_languages: [fr, de]
  voice: .kapi/voice.yaml
  terms_source: .kapi/terms.yaml
  exclude: [\"**/drafts/**\"]
  custom_default: 3
collections:
  - path: README.md
  - name: guides
    base: docs
    channel: handbook/docs
    preview: {kind: web, url: x}
    content:
      - path: \"**/*.md\"
        format: markdown
        channel: handbook/blog
        target: \"{lang}/{relpath}\"
        note: kept
profiles:
  handbook:
    channels: [docs, blog, {id: web, concept: web-site}]
    voice: .kapi/profiles/handbook/voice.yaml
    termstore: .kapi/profiles/handbook/terms.yaml
    valid_from: 2026-01-01
    valid_to: 2027-01-01
    owner: docs-team
gates:
  fail_on: major
  min_score: 80
  ship:
    fail_on: minor
    min_score: 90
";

fn parse(text: &str) -> Result<Recipe, RecipeError> {
    Recipe::parse(text, Path::new("kapi.yaml"))
}

fn err(text: &str) -> RecipeError {
    match parse(text) {
        Err(e) => e,
        Ok(r) => panic!("expected an error, parsed {r:?}"),
    }
}

#[test]
fn full_recipe_parses_every_documented_key() {
    let r = parse(FULL).unwrap();
    assert_eq!(r.name.as_deref(), Some("handbook"));
    assert_eq!(
        r.defaults.target_languages,
        Some(vec!["fr".into(), "de".into()])
    );
    assert_eq!(
        r.defaults.voice.as_ref().unwrap().profile_file,
        ".kapi/voice.yaml"
    );
    assert_eq!(r.collections.len(), 2);
    assert!(r.collections[0].is_bare());
    let g = &r.collections[1];
    assert_eq!(g.base.as_deref(), Some("docs"));
    assert_eq!(g.channel.as_ref().unwrap().to_string(), "handbook/docs");
    assert_eq!(
        g.content[0].channel.as_ref().unwrap().to_string(),
        "handbook/blog"
    );
    assert_eq!(g.content[0].format.as_ref().unwrap().name, "markdown");
    let p = r.profile("handbook").unwrap();
    assert_eq!(p.channels.len(), 3);
    assert_eq!(p.channels[2].concept.as_deref(), Some("web-site"));
    assert_eq!(p.valid_to.as_ref().unwrap().render(), "2027-01-01");
    let gates = r.gates();
    assert_eq!(
        gates.default,
        GateSpec {
            fail_on: Some(FailOn::Major),
            min_score: Some(80)
        }
    );
    assert_eq!(
        gates.ship,
        GateSpec {
            fail_on: Some(FailOn::Minor),
            min_score: Some(90)
        }
    );
    assert_eq!(
        r.qualified_channels(),
        ["handbook/docs", "handbook/blog", "handbook/web"]
    );
}

#[test]
fn save_keeps_unknown_keys_and_key_order() {
    let mut r = parse(FULL).unwrap();
    r.name = Some("renamed".into());
    let text = r.to_yaml().unwrap();
    for kept in [
        "x-extra",
        "custom_default: 3",
        "preview:",
        "note: kept",
        "owner: docs-team",
    ] {
        assert!(text.contains(kept), "{kept} lost in:\n{text}");
    }
    let pos = |k: &str| text.find(k).unwrap();
    assert!(pos("version:") < pos("name: renamed"));
    assert!(pos("name: renamed") < pos("x-extra"));
    assert!(pos("x-extra") < pos("defaults:"));
    let again = parse(&text).unwrap();
    assert_eq!(again.collections, r.collections);
    assert_eq!(again.profiles, r.profiles);
    assert_eq!(again.gates(), r.gates());
}

#[test]
fn save_writes_the_file_atomically_and_it_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kapi.yaml");
    let r = parse(FULL).unwrap();
    r.save(&path).unwrap();
    let back = Recipe::load(&path).unwrap();
    assert_eq!(back.defaults, r.defaults);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn missing_or_wrong_version_is_refused() {
    assert!(matches!(
        err("name: x\n"),
        RecipeError::MissingVersion { .. }
    ));
    let e = err("version: v2\n");
    assert!(matches!(e, RecipeError::UnsupportedVersion { .. }));
    assert_eq!(
        e.to_string(),
        "kapi.yaml:1:1: unsupported recipe version `v2` in `version`"
    );
}

#[test]
fn retired_keys_name_their_replacement() {
    let e = err("version: v1\ncontent: []\n");
    assert!(e.hints()[0].contains("collections"), "{:?}", e.hints());
    let e = err("version: v1\ncoordinates: {}\n");
    assert!(e.hints()[0].contains("profiles"));
}

#[test]
fn syntax_error_carries_line_and_column() {
    let e = err("version: v1\nname: [unclosed\n");
    let site = e.site().unwrap();
    assert!(site.line.is_some() && site.column.is_some(), "{e}");
}

#[test]
fn unknown_channel_lists_valid_qualified_forms_with_location() {
    let text = "version: v1\nprofiles:\n  hb:\n    channels: [docs, blog]\ncollections:\n  - name: g\n    channel: hb/dcos\n    content:\n      - path: a.md\n";
    let e = err(text);
    assert_eq!(
        e.to_string(),
        "kapi.yaml:7:5: unknown channel `hb/dcos` in `collections[0].channel`"
    );
    let hints = e.hints();
    assert_eq!(hints[0], "use `hb/docs`");
    assert!(hints[1].contains("`hb/docs`, `hb/blog`"));
}

#[test]
fn item_channel_errors_point_at_the_item() {
    let text = "version: v1\nprofiles:\n  hb:\n    channels: [docs]\ncollections:\n  - path: x\n  - name: g\n    content:\n      - path: a.md\n        channel: docs\n";
    let e = err(text);
    assert!(matches!(e, RecipeError::UnqualifiedChannel { .. }));
    assert_eq!(e.site().unwrap().key, "collections[1].content[0].channel");
    assert_eq!(
        (e.site().unwrap().line, e.site().unwrap().column),
        (Some(10), Some(9))
    );
    assert_eq!(e.hints(), ["write the channel as `hb/docs`"]);
    let e = err(
        "version: v1\ncollections:\n  - name: g\n    channel: nope/docs\n    content: [{path: a}]\n",
    );
    assert!(matches!(e, RecipeError::UnknownProfile { .. }));
}

#[test]
fn collection_shape_errors_are_fatal() {
    let bare_channel = "version: v1\nprofiles: {p: {channels: [c]}}\ncollections:\n  - path: a\n    channel: p/c\n";
    assert!(matches!(
        err(bare_channel),
        RecipeError::BareEntryKey { .. }
    ));
    assert!(matches!(
        err("version: v1\ncollections:\n  - path: a\n    content: []\n"),
        RecipeError::BareEntryKey { .. }
    ));
    assert!(matches!(
        err("version: v1\ncollections:\n  - name: g\n    content: []\n"),
        RecipeError::EmptyContent { .. }
    ));
    assert!(matches!(
        err("version: v1\ncollections:\n  - name: g\n    path: x\n    content: [{path: a}]\n"),
        RecipeError::NamedCollectionWithPath { .. }
    ));
    let e = err("version: v1\ncollections:\n  - name: g\n    content:\n      - format: json\n");
    assert!(matches!(e, RecipeError::MissingKey { .. }));
    assert_eq!(e.site().unwrap().key, "collections[0].content[0].path");
    assert!(matches!(
        err("version: v1\ncollections:\n  - format: md\n"),
        RecipeError::MissingKey { .. }
    ));
}

#[test]
fn profile_errors_are_fatal() {
    type Case = (&'static str, fn(&RecipeError) -> bool);
    let cases: &[Case] = &[
        ("profiles: {Hand_Book: {}}", |e| {
            matches!(e, RecipeError::NotASlug { .. })
        }),
        ("profiles: {hb: {channels: [Docs]}}", |e| {
            matches!(e, RecipeError::NotASlug { .. })
        }),
        ("profiles: {hb: {channels: [docs, docs]}}", |e| {
            matches!(e, RecipeError::DuplicateChannel { .. })
        }),
        (
            "profiles: {hb: {channels: [{id: d, concept: 'a b'}]}}",
            |e| matches!(e, RecipeError::ConceptWhitespace { .. }),
        ),
        ("profiles: {hb: {concept: 'a b'}}", |e| {
            matches!(e, RecipeError::ConceptWhitespace { .. })
        }),
        ("defaults: {voice: ''}", |e| {
            matches!(e, RecipeError::VoiceSources { found: 0, .. })
        }),
        ("profiles: {hb: {voice: {}}}", |e| {
            matches!(e, RecipeError::VoiceSources { found: 0, .. })
        }),
        ("profiles: {hb: {voice: {profile_file: a, pack: b}}}", |e| {
            matches!(e, RecipeError::VoiceSources { found: 2, .. })
        }),
        ("profiles: {hb: {valid_from: soon}}", |e| {
            matches!(e, RecipeError::BadDate { .. })
        }),
        (
            "profiles: {hb: {valid_from: 2026-02-01, valid_to: 2026-01-01}}",
            |e| matches!(e, RecipeError::EmptyWindow { .. }),
        ),
        (
            "profiles: {hb: {valid_from: 2026-01-01, valid_to: 2026-01-01}}",
            |e| matches!(e, RecipeError::EmptyWindow { .. }),
        ),
        ("gates: {fail_on: major2}", |e| {
            matches!(e, RecipeError::BadFailOn { .. })
        }),
        ("gates: {ship: {min_score: 101}}", |e| {
            matches!(e, RecipeError::MinScoreTooHigh { .. })
        }),
        ("collections: [{name: g, content: [{path: 'a/{b'}]}]", |e| {
            matches!(e, RecipeError::BadGlob { .. })
        }),
        ("defaults: {exclude: ['[z']}", |e| {
            matches!(e, RecipeError::BadGlob { .. })
        }),
    ];
    for (body, check) in cases {
        let e = err(&format!("version: v1\n{body}\n"));
        assert!(check(&e), "{body}: {e:?}");
        assert!(!e.hints().is_empty(), "{body}: no hint");
    }
}

#[test]
fn rfc3339_bounds_parse_and_render_as_instants() {
    let b = Bound::parse("2026-03-01T09:30:00Z").unwrap();
    assert_eq!(b.render(), "2026-03-01T09:30:00Z");
    assert_eq!(
        Bound::parse("2026-03-01T00:00:00Z").unwrap().render(),
        "2026-03-01"
    );
    assert!(Bound::parse("March").is_none());
}

#[test]
fn voice_map_form_and_format_map_form_survive_save() {
    let text = "version: v1\ndefaults:\n  voice: {profile_file: v.yaml}\ncollections:\n  - path: a.json\n    format: {name: json, config: {indent: 2}}\n";
    let r = parse(text).unwrap();
    assert!(!r.defaults.voice.as_ref().unwrap().short);
    let out = r.to_yaml().unwrap();
    assert!(out.contains("profile_file: v.yaml"), "{out}");
    assert!(out.contains("indent: 2"), "{out}");
}

#[test]
fn a_recipe_built_in_code_saves_and_reloads() {
    let mut r = Recipe::new(Some("site".into()));
    r.defaults.voice = Some(VoiceRef::new(".kapi/voice.yaml"));
    r.collections.push(Collection::bare("README.md"));
    r.collections
        .push(Collection::named("docs", vec![Item::new("docs/**/*.md")]));
    let text = r.to_yaml().unwrap();
    let back = parse(&text).unwrap();
    assert_eq!(back.name.as_deref(), Some("site"));
    assert_eq!(back.collections.len(), 2);
    assert!(text.starts_with("version: v1\n"), "{text}");
}

#[test]
fn empty_file_lacks_a_version() {
    assert!(matches!(err(""), RecipeError::MissingVersion { .. }));
    let e = err("- a\n");
    assert!(matches!(e, RecipeError::WrongType { .. }));
    assert_eq!(
        e.to_string(),
        "kapi.yaml: the document must be a mapping of recipe keys"
    );
}

#[test]
fn languages_read_and_save_at_every_level() {
    let text = "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - name: g\n    target_languages: [fr]\n    content:\n      - path: a.md\n        source_language: de\n        target_languages: [it, es]\n";
    let mut r = parse(text).unwrap();
    assert_eq!(r.defaults.source_language.as_deref(), Some("en"));
    assert_eq!(r.defaults.target_languages, None);
    let g = &r.collections[0];
    assert_eq!(
        (g.source_language.as_deref(), g.target_languages.clone()),
        (None, Some(vec!["fr".into()]))
    );
    let item = &g.content[0];
    assert_eq!(item.source_language.as_deref(), Some("de"));
    assert_eq!(item.target_languages, Some(vec!["it".into(), "es".into()]));
    r.defaults.target_languages = Some(vec!["ja".into()]);
    r.collections[0].target_languages = None;
    r.collections[0].content[0].source_language = None;
    let again = parse(&r.to_yaml().unwrap()).unwrap();
    let languages = |r: &Recipe| {
        let g = &r.collections[0];
        let item = &g.content[0];
        [
            (
                r.defaults.source_language.clone(),
                r.defaults.target_languages.clone(),
            ),
            (g.source_language.clone(), g.target_languages.clone()),
            (item.source_language.clone(), item.target_languages.clone()),
        ]
    };
    assert_eq!(languages(&again), languages(&r));
    let e = err("version: v1\ncollections:\n  - path: a.md\n    target_languages: {fr: 1}\n");
    assert_eq!(e.site().unwrap().key, "collections[0].target_languages");
}

#[test]
fn providers_parse_with_defaults_and_a_secret_is_refused_where_it_stands() {
    let r = parse(
        "version: v1\nproviders:\n  local:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:8080/v1\n    model: m\n    api_key_env: KEY\n    batch: 5\n  fake:\n    kind: pseudo\n    expansion: 1.5\n",
    )
    .unwrap();
    assert_eq!(r.providers.len(), 2);
    let local = &r.providers[0];
    assert_eq!(
        (
            local.name.as_str(),
            local.batch,
            local.concurrency,
            local.timeout_secs,
            local.retries
        ),
        ("local", 5, 2, 60, 3)
    );
    assert!(
        matches!(&local.kind, providers::ProviderKind::OpenAiCompatible { api_key_env: Some(v), .. } if v == "KEY")
    );
    assert_eq!(
        r.providers[1].kind,
        providers::ProviderKind::Pseudo { expansion: 1.5 }
    );
    for (text, key, says) in [
        (
            "version: v1\nproviders:\n  x:\n    kind: openai-compatible\n    base_url: u\n    model: m\n    api_key: sk-123\n",
            "providers.x.api_key",
            "holds a secret",
        ),
        (
            "version: v1\nproviders:\n  x:\n    kind: deepl\n",
            "providers.x.kind",
            "`deepl` is not a provider kind",
        ),
        (
            "version: v1\nproviders:\n  x:\n    kind: openai-compatible\n    model: m\n",
            "providers.x.base_url",
            "is required",
        ),
        (
            "version: v1\nproviders:\n  x:\n    kind: pseudo\n    batch: 0\n",
            "providers.x.batch",
            "whole number",
        ),
        (
            "version: v1\nproviders:\n  x:\n    kind: pseudo\n    expansion: 9\n",
            "providers.x.expansion",
            "1.0 to 3.0",
        ),
    ] {
        let e = err(text);
        assert_eq!(e.site().map(|s| s.key.as_str()), Some(key), "{e}");
        assert!(e.to_string().contains(says), "{e}");
        assert!(
            !e.to_string().contains("sk-123"),
            "the secret is never echoed: {e}"
        );
        // A key that is there is located; a missing one is named.
        assert_eq!(
            e.site().and_then(|s| s.line).is_some(),
            says != "is required",
            "{e}"
        );
    }
}

/// Each unknown key as `line:column key -> fix`.
fn unknown(text: &str) -> Vec<String> {
    parse(text)
        .unwrap()
        .unknown_keys()
        .iter()
        .map(|k| {
            format!(
                "{}:{} {} -> {}",
                k.at.line.unwrap_or(0),
                k.at.column.unwrap_or(0),
                k.at.key,
                k.fix().unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn unknown_keys_are_listed_in_file_order_with_the_key_meant() {
    assert_eq!(
        unknown(FULL),
        [
            "10:3 defaults.custom_default -> ",
            "16:5 collections[1].preview -> ",
            "22:9 collections[1].content[0].note -> ",
            "30:5 profiles.handbook.owner -> ",
        ],
        "`x-extra` is the person's own"
    );
    let text = "version: v1\ndefaults:\n  languages: [fr]\n  min_score: 3\ncolections: []\nexclude: [a]\ngates:\n  minscore: 80\n  ship: {failon: minor}\n";
    assert_eq!(
        unknown(text),
        [
            "3:3 defaults.languages -> did you mean `defaults.target_languages`?",
            "4:3 defaults.min_score -> did you mean `gates.min_score`?",
            "5:1 colections -> did you mean `collections`?",
            "6:1 exclude -> did you mean `defaults.exclude`?",
            "8:3 gates.minscore -> did you mean `gates.min_score`?",
            "9:3 gates.ship.failon -> did you mean `gates.ship.fail_on`?",
        ]
    );
    let r = parse(text).unwrap();
    let keys = r.unknown_keys();
    assert_eq!(
        keys[0].to_string(),
        "kapi.yaml:3:3: `defaults.languages` is not a key kapi reads, so it does nothing; did you mean `defaults.target_languages`?"
    );
    assert_eq!(
        keys[1].message(),
        "`defaults.min_score` does nothing here; did you mean `gates.min_score`?"
    );
    assert!(Recipe::new(None).unknown_keys().is_empty());
}

#[test]
fn a_key_read_on_another_kind_of_entry_says_where_it_goes() {
    let text = "version: v1\ncollections:\n  - path: a.md\n    base: docs\n    target: \"{lang}/{relpath}\"\n  - name: g\n    format: markdown\n    content:\n      - path: b.md\n        base: x\n        format: {name: json, confg: {}}\n";
    let r = parse(text).unwrap();
    let said: Vec<String> = r.unknown_keys().iter().map(UnknownKey::message).collect();
    assert_eq!(
        said,
        [
            "`collections[0].base` does nothing on a bare entry; give the entry a `name` and move its glob into an item under `content` to use `base`",
            "`collections[1].format` does nothing on a named collection; give each item under `content` its own `format`",
            "`collections[1].content[0].base` does nothing on an item; put `base` on the collection, beside `content`",
            "`collections[1].content[0].format.confg` is not a key kapi reads, so it does nothing; did you mean `collections[1].content[0].format.config`?",
        ],
        "a bare entry's `target` is read"
    );
    // Profiles, channels and voices; flow style is located at its nearest written key.
    let text = "version: v1\nprofiles:\n  hb:\n    channels: [docs, {id: web, concpt: x}]\n    voice: {profile_file: v.yaml, extra: 1}\n    termstores: t.yaml\n";
    assert_eq!(
        unknown(text),
        [
            "4:5 profiles.hb.channels[1].concpt -> did you mean `profiles.hb.channels[1].concept`?",
            "5:5 profiles.hb.voice.extra -> ",
            "6:5 profiles.hb.termstores -> did you mean `profiles.hb.termstore`?",
        ]
    );
}

#[test]
fn unknown_keys_refused_strictly_name_the_first_and_count_the_rest() {
    let r = parse("version: v1\nfoo: 1\nbar: 2\n").unwrap();
    let e = RecipeError::UnknownKeys {
        keys: r.unknown_keys().to_vec(),
    };
    assert_eq!(
        e.to_string(),
        "kapi.yaml:2:1: `foo` is not a key kapi reads (and 1 more: `bar`)"
    );
    assert_eq!(e.site().map(|s| s.line), Some(Some(2)));
    assert_eq!(
        e.hints(),
        ["rename or remove the key; without `--strict` kapi names it and goes on"]
    );
}

const RULES: &str = "version: v1\nrules:\n  voice.sentence-too-long:\n    exclude: [\"docs/reference/**\", ./CHANGELOG.md]\n  voice:\n    exclude: docs/legal/**\n  terms:\n  hygiene: {exclude: []}\n";

#[test]
fn rule_exclusions_name_a_rule_or_an_analyzer_with_the_line() {
    let r = parse(RULES).unwrap();
    let entries = r.rule_exclusions();
    let summary: Vec<(&str, Vec<&str>, Option<usize>)> = entries
        .iter()
        .map(|e| {
            (
                e.rule.as_str(),
                e.globs.iter().map(String::as_str).collect(),
                e.line,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "voice.sentence-too-long",
                vec!["docs/reference/**", "./CHANGELOG.md"],
                Some(3)
            ),
            ("voice", vec!["docs/legal/**"], Some(5)),
            ("terms", vec![], Some(7)),
            ("hygiene", vec![], Some(8)),
        ]
    );
    assert!(r.unknown_keys().is_empty());
    let origin = |rule: &str, rel: &str| r.excludes(rule, rel).map(RuleExclusion::origin);
    // The rule's own entry first, then its analyzer's.
    assert_eq!(
        origin("voice.sentence-too-long", "docs/reference/api/a.md"),
        Some("kapi.yaml:3".into())
    );
    assert_eq!(
        origin("voice.sentence-too-long", "./CHANGELOG.md"),
        Some("kapi.yaml:3".into())
    );
    assert_eq!(
        origin("voice.sentence-too-long", "docs/legal/terms.md"),
        Some("kapi.yaml:5".into())
    );
    assert_eq!(
        origin("voice.prohibited-pattern", "docs/legal/terms.md"),
        Some("kapi.yaml:5".into())
    );
    // A glob is the collections': `*` stays in its folder, and paths are from the root.
    assert_eq!(
        origin("voice.prohibited-pattern", "docs/reference/a.md"),
        None
    );
    assert_eq!(origin("voice.sentence-too-long", "docs/CHANGELOG.md"), None);
    assert_eq!(origin("terms.forbidden", "docs/legal/terms.md"), None);
    assert_eq!(origin("voicex.thing", "docs/legal/terms.md"), None);
    let e = &entries[1];
    assert!(e.covers("voice.required-pattern") && !e.covers("voicemail.x") && e.covers("voice"));
    assert!(parse("version: v1\n").unwrap().rule_exclusions().is_empty());
}

#[test]
fn an_off_by_default_rule_is_turned_on_with_its_allowed_strings() {
    let r = parse("version: v1\nrules:\n  translation.unchanged:\n    enable: true\n    allow: [URL, 42]\n  terms:\n    allow: Port\n").unwrap();
    assert_eq!(
        r.enabled("translation.unchanged"),
        Some(vec!["URL".to_owned(), "42".to_owned()])
    );
    assert_eq!(r.allowed("translation.unchanged"), ["URL", "42"]);
    assert!(r.unknown_keys().is_empty(), "{:?}", r.unknown_keys());
    // Off: no entry, or one without `enable: true` (its `allow:` still read by translate).
    assert_eq!(r.enabled("terms.forbidden"), None);
    let off = parse("version: v1\nrules:\n  translation.unchanged:\n    allow: URL\n").unwrap();
    assert_eq!(off.enabled("translation.unchanged"), None);
    assert_eq!(off.allowed("translation.unchanged"), ["URL"]);
    for bad in [
        "version: v1\nrules:\n  translation.unchanged:\n    enable: maybe\n",
        "version: v1\nrules:\n  translation.unchanged:\n    allow: [{a: b}]\n",
    ] {
        let e = err(bad);
        assert!(matches!(e, RecipeError::WrongType { .. }), "{e:?}");
        assert!(
            e.to_string().contains("rules.translation.unchanged."),
            "{e}"
        );
    }
}

#[test]
fn a_rule_kapi_does_not_have_is_an_error_with_the_closest() {
    let e = err("version: v1\nrules:\n  voice.sentence-to-long:\n    exclude: [a]\n");
    assert!(matches!(e, RecipeError::UnknownRule { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "kapi.yaml:3:3: `voice.sentence-to-long` in `rules` is neither a rule nor an analyzer"
    );
    assert_eq!(e.hints()[0], "did you mean `voice.sentence-too-long`?");
    assert_eq!(
        err("version: v1\nrules:\n  term:\n    exclude: a\n").hints()[0],
        "did you mean `terms`?"
    );
    for (text, key) in [
        ("version: v1\nrules: [a]\n", "rules"),
        ("version: v1\nrules:\n  terms: docs/**\n", "rules.terms"),
        (
            "version: v1\nrules:\n  terms: {exclude: {a: 1}}\n",
            "rules.terms.exclude",
        ),
        (
            "version: v1\nrules:\n  terms: {exclude: [1]}\n",
            "rules.terms.exclude",
        ),
    ] {
        let e = err(text);
        assert!(matches!(e, RecipeError::WrongType { .. }), "{text}: {e:?}");
        assert_eq!(e.site().map(|s| s.key.as_str()), Some(key), "{text}");
        assert!(e.site().and_then(|s| s.line).is_some(), "{text}: located");
    }
    let e = err("version: v1\nrules:\n  hygiene:\n    exclude:\n      - ok/**\n      - \"a/{b\"\n");
    assert!(matches!(e, RecipeError::BadGlob { .. }), "{e:?}");
    assert_eq!(
        e.site().map(|s| s.key.as_str()),
        Some("rules.hygiene.exclude[1]")
    );
    assert_eq!(e.site().and_then(|s| s.line), Some(4));
}

#[test]
fn rules_and_unknown_keys_survive_a_save() {
    let text = format!("{RULES}defaults:\n  languages: [fr]\n");
    let mut r = parse(&text).unwrap();
    r.name = Some("x".into());
    let saved = r.to_yaml().unwrap();
    let again = parse(&saved).unwrap();
    let rules = |r: &Recipe| -> Vec<(String, Vec<String>)> {
        r.rule_exclusions()
            .iter()
            .map(|e| (e.rule.clone(), e.globs.clone()))
            .collect()
    };
    assert_eq!(rules(&again), rules(&r));
    assert!(saved.contains("languages:"), "{saved}");
    assert_eq!(again.unknown_keys().len(), 1);
}

#[test]
fn a_recipe_of_many_unknown_keys_lists_a_bounded_few() {
    let mut text = String::from("version: v1\ndefaults:\n");
    for i in 0..20_000 {
        text.push_str(&format!("  k{i}: 1\n"));
    }
    let r = parse(&text).unwrap();
    assert_eq!(r.unknown_keys().len(), MAX_UNKNOWN_KEYS);
    assert_eq!(r.unknown_keys()[0].at.line, Some(3));
}

#[test]
fn an_item_marked_generated_is_read_kept_and_named_where_it_does_nothing() {
    let text = "version: v1\ncollections:\n  - path: po/*.pot\n    target: \"po/{lang}.po\"\n  - path: pseudo/en.json\n    target: \"pseudo/{lang}.json\"\n    generated: true\n  - name: g\n    generated: true\n    content:\n      - path: b.json\n        generated: false\n";
    let r = parse(text).unwrap();
    let generated: Vec<bool> = r
        .collections
        .iter()
        .flat_map(|c| c.content.iter().map(|i| i.generated))
        .collect();
    assert_eq!(generated, [false, true, false]);
    let said: Vec<String> = r.unknown_keys().iter().map(UnknownKey::message).collect();
    assert_eq!(
        said,
        [
            "`collections[2].generated` does nothing on a named collection; give each item under `content` its own `generated`"
        ]
    );
    let e = err("version: v1\ncollections:\n  - path: a.json\n    generated: yes please\n");
    assert!(
        e.to_string().contains("collections[0].generated")
            && e.to_string().contains("`true` or `false`"),
        "{e}"
    );
    // A save writes each back as the file says it.
    let saved = r.to_yaml().unwrap();
    assert_eq!(saved.matches("generated: true").count(), 2, "{saved}");
    assert_eq!(saved.matches("generated: false").count(), 1, "{saved}");
    let mut r = r;
    r.collections[1].content[0].generated = false;
    let saved = r.to_yaml().unwrap();
    assert_eq!(saved.matches("generated: true").count(), 1, "{saved}");
}

#[test]
fn locales_are_read_kept_on_save_and_a_bad_tag_is_located() {
    let text = "version: v1\ncollections:\n  - name: app\n    locales:\n      de: de-DE\n      pt-BR: pt-rBR\n    content:\n      - path: en.json\n  - path: a.md\n    locales: {fr: fr-FR}\n";
    let r = Recipe::parse(text, Path::new("kapi.yaml")).unwrap();
    assert_eq!(
        r.collections[0].locales,
        [
            ("de".to_owned(), "de-DE".to_owned()),
            ("pt-BR".to_owned(), "pt-rBR".to_owned())
        ]
    );
    assert_eq!(
        r.collections[1].locales,
        [("fr".to_owned(), "fr-FR".to_owned())]
    );
    assert!(r.unknown_keys().is_empty(), "{:?}", r.unknown_keys());
    let again = Recipe::parse(&r.to_yaml().unwrap(), Path::new("kapi.yaml")).unwrap();
    assert_eq!(again.collections[0].locales, r.collections[0].locales);
    assert_eq!(again.collections[1].locales, r.collections[1].locales);
    let bad = "version: v1\ncollections:\n  - name: app\n    locales:\n      de: de-DE\n      persian: fa\n    content:\n      - path: en.json\n";
    let e = Recipe::parse(bad, Path::new("kapi.yaml")).unwrap_err();
    assert!(matches!(e, RecipeError::BadLocale { .. }), "{e:?}");
    assert_eq!(e.site().unwrap().key, "collections[0].locales.persian");
    assert_eq!(e.site().unwrap().line, Some(6));
    assert!(e.to_string().contains("not a BCP 47 language tag"), "{e}");
    for (value, why) in [
        ("{de: \"\"}", "no code"),
        ("{de: a/b}", "no `/`"),
        ("[de]", "a mapping"),
    ] {
        let text = format!("version: v1\ncollections:\n  - path: a.md\n    locales: {value}\n");
        let e = Recipe::parse(&text, Path::new("kapi.yaml")).unwrap_err();
        assert!(e.to_string().contains(why), "{value}: {e}");
    }
}

#[test]
fn locales_on_an_item_is_named_as_misplaced() {
    let text = "version: v1\ncollections:\n  - name: app\n    content:\n      - path: en.json\n        locales: {de: de-DE}\n";
    let r = Recipe::parse(text, Path::new("kapi.yaml")).unwrap();
    let keys = r.unknown_keys();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].at.key, "collections[0].content[0].locales");
}
