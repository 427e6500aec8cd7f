//! Reading `kapi.yaml`: [`Recipe::parse`] and one parser per section (defaults, profiles and
//! their channels, collections and items, gates; `rules` in `rules`), each error located at
//! its key; then the keys it does not read are listed (`keys`).

use std::path::Path;

use serde_yaml::{Mapping, Value};

use super::*;
use crate::yaml_text::Outline;

/// The file being parsed and its outline, to locate a key path's line and column.
struct Ctx<'a> {
    file: &'a Path,
    outline: Outline,
}

impl Ctx<'_> {
    fn site(&self, key: &str) -> Box<Site> {
        let loc = self.outline.locate(key);
        Box::new(Site {
            file: self.file.to_path_buf(),
            key: key.to_owned(),
            line: loc.map(|l| l.0),
            column: loc.map(|l| l.1),
        })
    }

    fn wrong(&self, key: &str, expected: &'static str) -> RecipeError {
        RecipeError::WrongType {
            at: self.site(key),
            expected,
        }
    }

    fn string(&self, v: Option<&Value>, key: &str) -> Result<Option<String>, RecipeError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(self.wrong(key, "a string")),
        }
    }

    fn boolean(&self, v: Option<&Value>, key: &str) -> Result<Option<bool>, RecipeError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.wrong(key, "`true` or `false`")),
        }
    }

    fn strings(&self, v: Option<&Value>, key: &str) -> Result<Option<Vec<String>>, RecipeError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Sequence(seq)) => {
                let mut out = Vec::with_capacity(seq.len());
                for (i, item) in seq.iter().enumerate() {
                    let k = format!("{key}[{i}]");
                    match self.string(Some(item), &k)? {
                        Some(s) => out.push(s),
                        None => return Err(self.wrong(&k, "a string")),
                    }
                }
                Ok(Some(out))
            }
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(_) => Err(self.wrong(key, "a list of strings")),
        }
    }

    fn mapping<'v>(&self, v: &'v Value, key: &str) -> Result<&'v Mapping, RecipeError> {
        v.as_mapping().ok_or_else(|| self.wrong(key, "a mapping"))
    }
}

fn get<'m>(m: &'m Mapping, key: &str) -> Option<&'m Value> {
    m.get(key)
}

fn present(m: &Mapping, key: &str) -> bool {
    !matches!(m.get(key), None | Some(Value::Null))
}

impl Recipe {
    /// Parses and validates recipe text; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Recipe, RecipeError> {
        let ctx = Ctx {
            file: path,
            outline: Outline::new(text),
        };
        let value: Value = serde_yaml::from_str(text).map_err(|e| {
            let loc = e.location();
            RecipeError::Syntax {
                at: Box::new(Site {
                    file: path.to_path_buf(),
                    key: String::new(),
                    line: loc.as_ref().map(|l| l.line()),
                    column: loc.as_ref().map(|l| l.column()),
                }),
                message: e.to_string(),
            }
        })?;
        let raw = match value {
            Value::Mapping(m) => m,
            Value::Null => Mapping::new(),
            _ => return Err(ctx.wrong("", "a mapping of recipe keys")),
        };
        match ctx.string(get(&raw, "version"), "version")? {
            None => {
                return Err(RecipeError::MissingVersion {
                    at: ctx.site("version"),
                });
            }
            Some(v) if v != RECIPE_VERSION => {
                return Err(RecipeError::UnsupportedVersion {
                    at: ctx.site("version"),
                    found: v,
                });
            }
            Some(_) => {}
        }
        for (key, replacement) in [("content", "collections"), ("coordinates", "profiles")] {
            if raw.contains_key(key) {
                return Err(RecipeError::RetiredKey {
                    at: ctx.site(key),
                    replacement,
                });
            }
        }
        let name = ctx.string(get(&raw, "name"), "name")?;
        let defaults = match get(&raw, "defaults") {
            None | Some(Value::Null) => Defaults::default(),
            Some(v) => parse_defaults(&ctx, ctx.mapping(v, "defaults")?)?,
        };
        let profiles = match get(&raw, "profiles") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_profiles(&ctx, ctx.mapping(v, "profiles")?)?,
        };
        let collections = match get(&raw, "collections") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Sequence(seq)) => {
                let mut out = Vec::with_capacity(seq.len());
                for (i, v) in seq.iter().enumerate() {
                    out.push(parse_collection(&ctx, v, i, &profiles)?);
                }
                out
            }
            Some(_) => return Err(ctx.wrong("collections", "a list")),
        };
        let gates = match get(&raw, "gates") {
            None | Some(Value::Null) => GateConfig::default(),
            Some(v) => parse_gates(&ctx, ctx.mapping(v, "gates")?)?,
        };
        let providers = match get(&raw, "providers") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_providers(&ctx, ctx.mapping(v, "providers")?)?,
        };
        let rules = match get(&raw, "rules") {
            None => Vec::new(),
            Some(v) => super::rules::parse_rules(path, &ctx.outline, v)?,
        };
        let unknown = super::keys::unknown_keys(&raw, path, &ctx.outline);
        Ok(Recipe {
            version: RECIPE_VERSION.to_owned(),
            name,
            defaults,
            collections,
            profiles,
            gates,
            providers,
            rules,
            unknown,
            raw,
        })
    }
}

fn parse_voice(ctx: &Ctx<'_>, v: &Value, key: &str) -> Result<Option<VoiceRef>, RecipeError> {
    match v {
        Value::Null => Ok(None),
        Value::String(p) if p.trim().is_empty() => Err(RecipeError::VoiceSources {
            at: ctx.site(key),
            found: 0,
        }),
        Value::String(p) => Ok(Some(VoiceRef::new(p.clone()))),
        Value::Mapping(m) => {
            let sources: Vec<&str> = ["profile_file", "profile", "pack"]
                .into_iter()
                .filter(|k| present(m, k))
                .collect();
            if sources.len() != 1 {
                return Err(RecipeError::VoiceSources {
                    at: ctx.site(key),
                    found: sources.len(),
                });
            }
            if sources[0] != "profile_file" {
                return Err(RecipeError::UnsupportedVoiceSource {
                    at: ctx.site(&format!("{key}.{}", sources[0])),
                    source_key: sources[0].to_owned(),
                });
            }
            let k = format!("{key}.profile_file");
            let profile_file = ctx
                .string(get(m, "profile_file"), &k)?
                .ok_or_else(|| ctx.wrong(&k, "a path"))?;
            Ok(Some(VoiceRef {
                profile_file,
                short: false,
                raw: m.clone(),
            }))
        }
        _ => Err(ctx.wrong(key, "a path or `{profile_file: PATH}`")),
    }
}

fn check_glob(ctx: &Ctx<'_>, pattern: &str, key: &str) -> Result<(), RecipeError> {
    match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(RecipeError::BadGlob {
            at: ctx.site(key),
            glob: pattern.to_owned(),
            message: e.kind().to_string(),
        }),
    }
}

fn parse_defaults(ctx: &Ctx<'_>, m: &Mapping) -> Result<Defaults, RecipeError> {
    let exclude = ctx
        .strings(get(m, "exclude"), "defaults.exclude")?
        .unwrap_or_default();
    for (i, pattern) in exclude.iter().enumerate() {
        check_glob(ctx, pattern, &format!("defaults.exclude[{i}]"))?;
    }
    let (source_language, target_languages) = parse_languages(ctx, m, "defaults")?;
    Ok(Defaults {
        source_language,
        target_languages,
        voice: match get(m, "voice") {
            Some(v) => parse_voice(ctx, v, "defaults.voice")?,
            None => None,
        },
        terms_source: ctx.string(get(m, "terms_source"), "defaults.terms_source")?,
        vale: ctx.string(get(m, "vale"), "defaults.vale")?,
        exclude,
        raw: m.clone(),
    })
}

fn parse_bound(ctx: &Ctx<'_>, m: &Mapping, key: &str) -> Result<Option<Bound>, RecipeError> {
    match ctx.string(get(m, key.rsplit('.').next().unwrap_or(key)), key)? {
        None => Ok(None),
        Some(text) => match Bound::parse(&text) {
            Some(b) => Ok(Some(b)),
            None => Err(RecipeError::BadDate {
                at: ctx.site(key),
                found: text,
            }),
        },
    }
}

fn parse_profiles(ctx: &Ctx<'_>, m: &Mapping) -> Result<Vec<Profile>, RecipeError> {
    let mut out = Vec::with_capacity(m.len());
    for (k, v) in m {
        let name = match k {
            Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        let key = format!("profiles.{name}");
        if !is_slug(&name) {
            return Err(RecipeError::NotASlug {
                at: ctx.site(&key),
                found: name,
            });
        }
        let pm = match v {
            Value::Null => Mapping::new(),
            other => ctx.mapping(other, &key)?.clone(),
        };
        let mut channels: Vec<Channel> = Vec::new();
        match get(&pm, "channels") {
            None | Some(Value::Null) => {}
            Some(Value::Sequence(seq)) => {
                for (i, c) in seq.iter().enumerate() {
                    let ck = format!("{key}.channels[{i}]");
                    let channel = match c {
                        Value::String(id) => Channel {
                            id: id.clone(),
                            concept: None,
                            raw: None,
                        },
                        Value::Mapping(cm) => {
                            let id = ctx.string(get(cm, "id"), &format!("{ck}.id"))?.ok_or_else(
                                || RecipeError::MissingKey {
                                    at: ctx.site(&format!("{ck}.id")),
                                },
                            )?;
                            let concept =
                                ctx.string(get(cm, "concept"), &format!("{ck}.concept"))?;
                            Channel {
                                id,
                                concept,
                                raw: Some(cm.clone()),
                            }
                        }
                        _ => return Err(ctx.wrong(&ck, "a slug or `{id, concept}`")),
                    };
                    if !is_slug(&channel.id) {
                        return Err(RecipeError::NotASlug {
                            at: ctx.site(&ck),
                            found: channel.id,
                        });
                    }
                    if let Some(concept) = &channel.concept
                        && concept.chars().any(char::is_whitespace)
                    {
                        return Err(RecipeError::ConceptWhitespace {
                            at: ctx.site(&format!("{ck}.concept")),
                            found: concept.clone(),
                        });
                    }
                    if channels.iter().any(|c| c.id == channel.id) {
                        return Err(RecipeError::DuplicateChannel {
                            at: ctx.site(&ck),
                            channel: channel.id,
                        });
                    }
                    channels.push(channel);
                }
            }
            Some(_) => return Err(ctx.wrong(&format!("{key}.channels"), "a list")),
        }
        let voice = match get(&pm, "voice") {
            Some(v) => parse_voice(ctx, v, &format!("{key}.voice"))?,
            None => None,
        };
        let termstore = ctx.string(get(&pm, "termstore"), &format!("{key}.termstore"))?;
        let vale = ctx.string(get(&pm, "vale"), &format!("{key}.vale"))?;
        let concept = ctx.string(get(&pm, "concept"), &format!("{key}.concept"))?;
        if let Some(c) = &concept
            && c.chars().any(char::is_whitespace)
        {
            return Err(RecipeError::ConceptWhitespace {
                at: ctx.site(&format!("{key}.concept")),
                found: c.clone(),
            });
        }
        let valid_from = parse_bound(ctx, &pm, &format!("{key}.valid_from"))?;
        let valid_to = parse_bound(ctx, &pm, &format!("{key}.valid_to"))?;
        if let (Some(f), Some(t)) = (&valid_from, &valid_to)
            && t.at <= f.at
        {
            return Err(RecipeError::EmptyWindow {
                at: ctx.site(&format!("{key}.valid_to")),
                valid_from: f.text.clone(),
                valid_to: t.text.clone(),
            });
        }
        out.push(Profile {
            name,
            channels,
            voice,
            termstore,
            vale,
            concept,
            valid_from,
            valid_to,
            raw: pm,
        });
    }
    Ok(out)
}

fn parse_channel_ref(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
    profiles: &[Profile],
) -> Result<Option<ChannelRef>, RecipeError> {
    let Some(text) = ctx.string(get(m, "channel"), key)? else {
        return Ok(None);
    };
    let valid = qualified(profiles);
    let Some((p, c)) = text.split_once('/') else {
        return Err(RecipeError::UnqualifiedChannel {
            at: ctx.site(key),
            found: text,
            valid,
        });
    };
    let Some(profile) = profiles.iter().find(|x| x.name == p) else {
        return Err(RecipeError::UnknownProfile {
            at: ctx.site(key),
            found: text,
            valid,
        });
    };
    if !profile.has_channel(c) {
        return Err(RecipeError::UnknownChannel {
            at: ctx.site(key),
            found: text,
            valid,
        });
    }
    Ok(Some(ChannelRef {
        profile: p.to_owned(),
        channel: c.to_owned(),
    }))
}

fn parse_format(
    ctx: &Ctx<'_>,
    v: Option<&Value>,
    key: &str,
) -> Result<Option<FormatRef>, RecipeError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => Ok(Some(FormatRef {
            name: name.clone(),
            config: None,
            raw: Mapping::new(),
        })),
        Some(Value::Mapping(m)) => {
            let nk = format!("{key}.name");
            let name = ctx
                .string(get(m, "name"), &nk)?
                .ok_or_else(|| RecipeError::MissingKey { at: ctx.site(&nk) })?;
            Ok(Some(FormatRef {
                name,
                config: get(m, "config").cloned(),
                raw: m.clone(),
            }))
        }
        Some(_) => Err(ctx.wrong(key, "a format name or `{name, config}`")),
    }
}

fn parse_item(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
    profiles: &[Profile],
) -> Result<Item, RecipeError> {
    let pk = format!("{key}.path");
    let path = ctx
        .string(get(m, "path"), &pk)?
        .ok_or_else(|| RecipeError::MissingKey { at: ctx.site(&pk) })?;
    let format = parse_format(ctx, get(m, "format"), &format!("{key}.format"))?;
    let target = ctx.string(get(m, "target"), &format!("{key}.target"))?;
    let channel = parse_channel_ref(ctx, m, &format!("{key}.channel"), profiles)?;
    let (source_language, target_languages) = parse_languages(ctx, m, key)?;
    let generated = ctx
        .boolean(get(m, "generated"), &format!("{key}.generated"))?
        .unwrap_or(false);
    Ok(Item {
        path,
        format,
        target,
        channel,
        source_language,
        target_languages,
        generated,
        raw: m.clone(),
    })
}

/// The `source_language` and `target_languages` of the mapping at `key` (the defaults, a
/// collection or an item: each may set both).
fn parse_languages(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
) -> Result<(Option<String>, Option<Vec<String>>), RecipeError> {
    let source = ctx.string(get(m, "source_language"), &format!("{key}.source_language"))?;
    let targets = ctx.strings(
        get(m, "target_languages"),
        &format!("{key}.target_languages"),
    )?;
    Ok((source, targets))
}

/// The `locales:` of the collection at `key`: a mapping of BCP 47 tags to the codes its files
/// use. A key that is no tag, or a code that is empty or holds a `/` or a `{`, is refused
/// where it stands.
fn parse_locales(
    ctx: &Ctx<'_>,
    m: &Mapping,
    key: &str,
) -> Result<Vec<(String, String)>, RecipeError> {
    let lk = format!("{key}.locales");
    let map = match get(m, "locales") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(v) => v
            .as_mapping()
            .ok_or_else(|| ctx.wrong(&lk, "a mapping of language tags to codes (`de: de-DE`)"))?,
    };
    let mut out: Vec<(String, String)> = Vec::with_capacity(map.len());
    for (k, v) in map {
        let tag = ctx
            .string(Some(k), &lk)?
            .ok_or_else(|| ctx.wrong(&lk, "a mapping of language tags to codes"))?;
        let ek = format!("{lk}.{tag}");
        let bad = |problem: String| {
            let mut at = ctx.site(&ek);
            if at.line.is_none() {
                // Written in flow style (`locales: {de: de-DE}`): the line of `locales`.
                let outer = ctx.site(&lk);
                (at.line, at.column) = (outer.line, outer.column);
            }
            RecipeError::BadLocale {
                at,
                tag: tag.clone(),
                problem,
            }
        };
        if let Some(problem) = crate::project::locales::tag_problem(&tag) {
            return Err(bad(format!("is not a BCP 47 language tag: {problem}")));
        }
        let code = ctx
            .string(Some(v), &ek)?
            .ok_or_else(|| bad("maps to no code".into()))?;
        if code.trim().is_empty() || code.contains(['/', '\\', '{', '}']) || code == ".." {
            return Err(bad(format!(
                "maps to `{code}`, which is no code a file name can hold (no `/`, `{{` or `}}`)"
            )));
        }
        if out.iter().any(|(t, _)| *t == tag) {
            return Err(bad("is mapped twice".into()));
        }
        out.push((tag, code));
    }
    Ok(out)
}

fn parse_collection(
    ctx: &Ctx<'_>,
    v: &Value,
    i: usize,
    profiles: &[Profile],
) -> Result<Collection, RecipeError> {
    let key = format!("collections[{i}]");
    let m = ctx.mapping(v, &key)?;
    let name = ctx.string(get(m, "name"), &format!("{key}.name"))?;
    let Some(name) = name else {
        // A bare entry.
        for k in ["channel", "content"] {
            if present(m, k) {
                return Err(RecipeError::BareEntryKey {
                    at: ctx.site(&format!("{key}.{k}")),
                });
            }
        }
        let mut item = parse_item(ctx, m, &key, profiles)?;
        check_glob(ctx, &item.path, &format!("{key}.path"))?;
        item.channel = None;
        return Ok(Collection {
            locales: parse_locales(ctx, m, &key)?,
            content: vec![item],
            ..Collection::default()
        });
    };
    if present(m, "path") {
        return Err(RecipeError::NamedCollectionWithPath {
            at: ctx.site(&format!("{key}.path")),
        });
    }
    let ck = format!("{key}.content");
    let content = match get(m, "content") {
        None | Some(Value::Null) => return Err(RecipeError::EmptyContent { at: ctx.site(&ck) }),
        Some(Value::Sequence(seq)) if seq.is_empty() => {
            return Err(RecipeError::EmptyContent { at: ctx.site(&ck) });
        }
        Some(Value::Sequence(seq)) => {
            let mut items = Vec::with_capacity(seq.len());
            for (j, item) in seq.iter().enumerate() {
                let ik = format!("{ck}[{j}]");
                items.push(parse_item(ctx, ctx.mapping(item, &ik)?, &ik, profiles)?);
            }
            items
        }
        Some(_) => return Err(ctx.wrong(&ck, "a list of items")),
    };
    let base = ctx.string(get(m, "base"), &format!("{key}.base"))?;
    for (j, item) in content.iter().enumerate() {
        check_glob(
            ctx,
            &crate::project::collections::join(base.as_deref(), &item.path),
            &format!("{ck}[{j}].path"),
        )?;
    }
    let channel = parse_channel_ref(ctx, m, &format!("{key}.channel"), profiles)?;
    let (source_language, target_languages) = parse_languages(ctx, m, &key)?;
    let locales = parse_locales(ctx, m, &key)?;
    Ok(Collection {
        name: Some(name),
        base,
        channel,
        source_language,
        target_languages,
        locales,
        content,
        raw: m.clone(),
    })
}

fn parse_providers(
    ctx: &Ctx<'_>,
    m: &Mapping,
) -> Result<Vec<providers::ProviderSpec>, RecipeError> {
    let mut out = Vec::with_capacity(m.len());
    for (name, v) in m {
        let name = match name.as_str() {
            Some(n) => n.to_owned(),
            None => return Err(ctx.wrong("providers", "a mapping of provider names")),
        };
        let base = format!("providers.{name}");
        let entry = ctx.mapping(v, &base)?;
        let key = |k: &str| format!("{base}.{k}");
        let string = |k: &str| ctx.string(get(entry, k), &key(k));
        let error = |k: &str, problem| RecipeError::Provider {
            at: ctx.site(&key(k)),
            problem,
        };
        let number = |k: &str, default: u64| match get(entry, k) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => {
                let (min, max) = providers::range(k);
                v.as_u64()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| error(k, providers::ProviderProblem::Number { min, max }))
            }
        };
        out.push(providers::parse_provider(
            &name, entry, &string, &number, &error,
        )?);
    }
    Ok(out)
}

fn parse_gate(ctx: &Ctx<'_>, m: &Mapping, key: &str) -> Result<GateSpec, RecipeError> {
    let fk = if key.is_empty() {
        "gates.fail_on".to_owned()
    } else {
        format!("{key}.fail_on")
    };
    let sk = if key.is_empty() {
        "gates.min_score".to_owned()
    } else {
        format!("{key}.min_score")
    };
    let fail_on = match ctx.string(get(m, "fail_on"), &fk)? {
        None => None,
        Some(f) => Some(match f.as_str() {
            "critical" => FailOn::Critical,
            "major" => FailOn::Major,
            "minor" => FailOn::Minor,
            "none" => FailOn::None,
            _ => {
                return Err(RecipeError::BadFailOn {
                    at: ctx.site(&fk),
                    found: f,
                });
            }
        }),
    };
    let min_score = match get(m, "min_score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(s) if s > 100 => {
                return Err(RecipeError::MinScoreTooHigh {
                    at: ctx.site(&sk),
                    found: s,
                });
            }
            Some(s) => Some(u32::try_from(s).unwrap_or(100)),
            None => return Err(ctx.wrong(&sk, "a whole number from 0 to 100")),
        },
        Some(_) => return Err(ctx.wrong(&sk, "a whole number from 0 to 100")),
    };
    Ok(GateSpec { fail_on, min_score })
}

fn parse_gates(ctx: &Ctx<'_>, m: &Mapping) -> Result<GateConfig, RecipeError> {
    let default = parse_gate(ctx, m, "")?;
    let (ship, ship_raw) = match get(m, "ship") {
        None | Some(Value::Null) => (GateSpec::default(), None),
        Some(v) => {
            let sm = ctx.mapping(v, "gates.ship")?;
            (parse_gate(ctx, sm, "gates.ship")?, Some(sm.clone()))
        }
    };
    Ok(GateConfig {
        default,
        ship,
        raw: m.clone(),
        ship_raw,
    })
}
