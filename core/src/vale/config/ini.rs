//! The `.vale.ini` parser: go-ini's dialect as Vale loads it, into a [`ValeConfig`]. Pure over
//! the text; one pass, linear in its length.

use std::collections::{HashMap, HashSet};

use super::error::{ConfigError, ConfigErrorKind, Notice, NoticeKind};
use super::glob::SectionGlob;
use super::{Level, RuleSetting, RuleValue, Section, UnknownKey, ValeConfig};

/// The options allowed only before any section.
const CORE_KEYS: &[&str] = &[
    "StylesPath",
    "MinAlertLevel",
    "Vocab",
    "Packages",
    "IgnoredScopes",
    "SkippedScopes",
    "IgnoredClasses",
    "WordTemplate",
    "NLPEndpoint",
];

/// The options allowed only inside a glob section.
const SECTION_KEYS: &[&str] = &[
    "BasedOnStyles",
    "BlockIgnores",
    "IgnorePatterns",
    "TokenIgnores",
    "Transform",
    "Lang",
    "CommentDelimiters",
];

/// What one logical line of the file is.
enum Item {
    /// `[name]`: the text between `[` and the last `]` (anything after it is ignored, as
    /// go-ini does).
    Section(String),
    /// `key = value`, the value read as go-ini's `readValue` reads it.
    Key(String, String),
    /// Neither: a line without `=` or `:`, an unclosed `[`, an unclosed multi-line quote.
    Bad(String),
}

/// An item and the 1-based line it starts on.
struct Lexed {
    line: usize,
    item: Item,
}

/// Splits `text` into items, skipping blank lines and comments (`#` or `;` first). One pass:
/// a value may take the following lines (a trailing `\`, an open backtick or `"""`).
fn lex(text: &str) -> Vec<Lexed> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Lexed> = Vec::new();
    let mut next = 0;
    while next < lines.len() {
        let line = next + 1;
        let text = lines[next].trim_start();
        next += 1;
        if text.is_empty() || text.starts_with(['#', ';']) {
            continue;
        }
        let item = if let Some(rest) = text.strip_prefix('[') {
            match rest.rfind(']') {
                Some(close) => Item::Section(rest[..close].trim().to_owned()),
                None => Item::Bad(text.to_owned()),
            }
        } else {
            match text.find(['=', ':']) {
                Some(at) if !text[..at].trim().is_empty() => {
                    match read_value(text[at + 1..].trim_start(), &lines, &mut next) {
                        Some(value) => Item::Key(text[..at].trim().to_owned(), value),
                        None => Item::Bad(text.to_owned()),
                    }
                }
                _ => Item::Bad(text.to_owned()),
            }
        };
        out.push(Lexed { line, item });
    }
    out
}

/// A value as go-ini's `readValue` reads it with Vale's options (`raw` starts at its first
/// non-blank): after a backtick or `"""`, up to the last closing one, over several lines if it
/// is not closed on the first (`None` when it never is); else trimmed; a trailing `\` joins
/// the next non-blank lines, trimmed (then nothing more is done); else cut at the first
/// ` #`, or else ` ;`, and one pair of surrounding `'` or `"` dropped.
fn read_value(raw: &str, lines: &[&str], next: &mut usize) -> Option<String> {
    let quote = if raw.len() > 3 && raw.starts_with("\"\"\"") {
        "\"\"\""
    } else if raw.starts_with('`') {
        "`"
    } else {
        ""
    };
    if !quote.is_empty() {
        let body = &raw[quote.len()..];
        if let Some(end) = body.rfind(quote) {
            return Some(body[..end].to_owned());
        }
        let mut value = format!("{body}\n");
        while let Some(line) = lines.get(*next) {
            *next += 1;
            if let Some(end) = line.rfind(quote) {
                value.push_str(&line[..end]);
                return Some(value);
            }
            value.push_str(line);
            value.push('\n');
        }
        return None;
    }
    let value = raw.trim();
    if let Some(head) = value.strip_suffix('\\') {
        let mut value = head.to_owned();
        while let Some(line) = lines.get(*next) {
            let line = line.trim();
            *next += 1;
            if line.is_empty() {
                break;
            }
            value.push_str(line);
            if value.ends_with('\\') {
                value.pop();
            } else {
                break;
            }
        }
        return Some(value);
    }
    let cut = value.find(" #").or_else(|| value.find(" ;"));
    let value = cut.map_or(value, |at| value[..at].trim());
    for quote in ['\'', '"'] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
            && !inner.contains(quote)
        {
            return Some(inner.to_owned());
        }
    }
    Some(value.to_owned())
}

/// A list value as Vale reads most lists (go-ini's `StringsWithShadows`, then `mergeValues`):
/// split on every `,` (there is no escape), entries trimmed, empty ones dropped, duplicates
/// kept once (a repeated key's lists are joined, then deduplicated once more at the end).
pub(crate) fn split_list(value: &str) -> Vec<String> {
    let entries = value.split(',').map(str::trim).filter(|e| !e.is_empty());
    unique(entries.map(str::to_owned))
}

/// `items` in order, each once: linear, whatever a hostile file holds.
pub(crate) fn unique(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(item.clone()))
        .collect()
}

/// A list value as go-ini's `Strings(",")` reads it (`Packages`, `IgnorePatterns`): `\,` is
/// a literal comma and `\\` a backslash; entries trimmed, empty ones dropped.
fn split_escaped(value: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars();
    let push = |entry: &mut String, out: &mut Vec<String>| {
        let item = entry.trim();
        if !item.is_empty() {
            out.push(item.to_owned());
        }
        entry.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(',') => current.push(','),
                Some('\\') => current.push('\\'),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => current.push('\\'),
            },
            ',' => push(&mut current, &mut out),
            _ => current.push(c),
        }
    }
    push(&mut current, &mut out);
    unique(out)
}

/// Appends a repeated key's entries; `dedup_lists` keeps each once at the end.
fn extend_unique(list: &mut Vec<String>, more: Vec<String>) {
    list.extend(more);
}

/// Keeps each entry of every list once, in first-seen order (Vale's `mergeValues` over a
/// repeated key's values).
fn dedup_lists(config: &mut ValeConfig) {
    let lists = [
        &mut config.vocab,
        &mut config.packages,
        &mut config.ignored_classes,
    ];
    for list in lists {
        *list = unique(std::mem::take(list));
    }
    for list in [&mut config.ignored_scopes, &mut config.skipped_scopes]
        .into_iter()
        .flatten()
    {
        *list = unique(std::mem::take(list));
    }
    for section in config.global.iter_mut().chain(config.sections.iter_mut()) {
        if let Some(styles) = section.based_on_styles.as_mut() {
            *styles = unique(std::mem::take(styles));
        }
        section.block_ignores = unique(std::mem::take(&mut section.block_ignores));
        section.token_ignores = unique(std::mem::take(&mut section.token_ignores));
    }
}

/// Where the parser is.
enum Place {
    Core,
    Formats,
    Asciidoctor,
    /// Index into the sections (the global one is index `usize::MAX`).
    Glob(usize),
}

const GLOBAL: usize = usize::MAX;

/// Parses the text of a `.vale.ini`; `file` is the name errors and notices use.
pub fn parse(file: &str, text: &str) -> Result<ValeConfig, ConfigError> {
    parse_sources(&[(file, text)])
}

/// Parses several configuration files as Vale loads them together (the synced packages'
/// `.vale-config/*` files, then the project's `.vale.ini`): one configuration, as if the
/// files were one, each starting among the core options; a section named in several files
/// is one section. Errors and notices name the file. The last source is the configuration's
/// own file.
pub fn parse_sources(sources: &[(&str, &str)]) -> Result<ValeConfig, ConfigError> {
    let mut config = ValeConfig {
        file: String::new(),
        sources: Vec::new(),
        styles_path: None,
        min_alert_level: Level::Suggestion,
        vocab: Vec::new(),
        packages: Vec::new(),
        ignored_scopes: None,
        skipped_scopes: None,
        ignored_classes: Vec::new(),
        word_template: None,
        nlp_endpoint: None,
        formats: Vec::new(),
        asciidoctor: Vec::new(),
        global: None,
        sections: Vec::new(),
        unknown: Vec::new(),
        notices: Vec::new(),
    };
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (file, text) in sources {
        config.file = (*file).to_owned();
        config.sources.push((*file).to_owned());
        let mut place = Place::Core;
        for Lexed { line, item } in lex(text) {
            match item {
                Item::Section(name) => {
                    place = open_section(&mut config, &mut by_name, &name, line)?;
                }
                Item::Bad(text) => {
                    let text: String = text.chars().take(80).collect();
                    let kind = ConfigErrorKind::Syntax { text };
                    return Err(ConfigError::at(file, line, kind));
                }
                Item::Key(key, value) => match place {
                    Place::Core => core_key(&mut config, &key, value, line)?,
                    Place::Formats => config.formats.push((key, value)),
                    Place::Asciidoctor => config.asciidoctor.push((key, value)),
                    Place::Glob(index) => section_key(&mut config, index, &key, value, line)?,
                },
            }
        }
    }
    dedup_lists(&mut config);
    Ok(config)
}

/// A `[name]` header: finds or creates its section.
fn open_section(
    config: &mut ValeConfig,
    by_name: &mut HashMap<String, usize>,
    name: &str,
    number: usize,
) -> Result<Place, ConfigError> {
    if name.is_empty() {
        let text = "[]".to_owned();
        return Err(ConfigError::at(
            &config.file,
            number,
            ConfigErrorKind::Syntax { text },
        ));
    }
    match name {
        "DEFAULT" => return Ok(Place::Core),
        "formats" => return Ok(Place::Formats),
        "asciidoctor" => return Ok(Place::Asciidoctor),
        _ => {}
    }
    if name == "*" {
        if config.global.is_none() {
            config.global = Some(new_section(&config.file, name, number)?);
        }
        return Ok(Place::Glob(GLOBAL));
    }
    if let Some(&index) = by_name.get(name) {
        return Ok(Place::Glob(index));
    }
    config
        .sections
        .push(new_section(&config.file, name, number)?);
    let index = config.sections.len() - 1;
    by_name.insert(name.to_owned(), index);
    Ok(Place::Glob(index))
}

fn new_section(file: &str, pattern: &str, line: usize) -> Result<Section, ConfigError> {
    let glob = SectionGlob::compile(pattern).map_err(|reason| {
        ConfigError::at(
            file,
            line,
            ConfigErrorKind::BadGlob {
                pattern: pattern.to_owned(),
                reason,
            },
        )
    })?;
    Ok(Section {
        pattern: pattern.to_owned(),
        line,
        based_on_styles: None,
        rules: Vec::new(),
        block_ignores: Vec::new(),
        token_ignores: Vec::new(),
        transform: None,
        lang: None,
        comment_delimiters: None,
        glob,
    })
}

fn core_key(
    config: &mut ValeConfig,
    key: &str,
    value: String,
    line: usize,
) -> Result<(), ConfigError> {
    match key {
        "StylesPath" => config.styles_path = Some(value),
        "MinAlertLevel" => {
            config.min_alert_level = Level::from_name(&value).ok_or_else(|| {
                ConfigError::at(&config.file, line, ConfigErrorKind::BadLevel { value })
            })?;
        }
        "Vocab" => extend_unique(&mut config.vocab, split_list(&value)),
        "Packages" => extend_unique(&mut config.packages, split_escaped(&value)),
        "IgnoredScopes" => {
            extend_unique(
                config.ignored_scopes.get_or_insert_default(),
                split_list(&value),
            );
        }
        "SkippedScopes" => {
            extend_unique(
                config.skipped_scopes.get_or_insert_default(),
                split_list(&value),
            );
        }
        "IgnoredClasses" => extend_unique(&mut config.ignored_classes, split_list(&value)),
        "WordTemplate" => config.word_template = Some(value),
        "NLPEndpoint" => config.nlp_endpoint = Some(value),
        _ if SECTION_KEYS.contains(&key) => {
            return Err(ConfigError::at(
                &config.file,
                line,
                ConfigErrorKind::SectionKeyInCore {
                    key: key.to_owned(),
                },
            ));
        }
        _ => unknown(config, "", key, value, line),
    }
    Ok(())
}

fn unknown(config: &mut ValeConfig, section: &str, key: &str, value: String, line: usize) {
    config.notices.push(Notice {
        file: Some(config.file.clone()),
        line: Some(line),
        kind: NoticeKind::UnknownKey {
            section: section.to_owned(),
            key: key.to_owned(),
        },
    });
    config.unknown.push(UnknownKey {
        section: section.to_owned(),
        key: key.to_owned(),
        value,
        line,
        source: config.sources.len().saturating_sub(1),
    });
}

fn section_key(
    config: &mut ValeConfig,
    index: usize,
    key: &str,
    value: String,
    line: usize,
) -> Result<(), ConfigError> {
    let file = config.file.clone();
    let source = config.sources.len().saturating_sub(1);
    let section = if index == GLOBAL {
        config.global.as_mut()
    } else {
        config.sections.get_mut(index)
    };
    let Some(section) = section else {
        return Ok(());
    };
    let pattern = section.pattern.clone();
    let mut notice = None;
    match key {
        "BasedOnStyles" => {
            extend_unique(
                section.based_on_styles.get_or_insert_default(),
                split_list(&value),
            );
        }
        "BlockIgnores" => extend_unique(&mut section.block_ignores, split_list(&value)),
        "IgnorePatterns" => {
            extend_unique(&mut section.block_ignores, split_escaped(&value));
            notice = Some(NoticeKind::Deprecated {
                key: key.to_owned(),
                instead: "BlockIgnores".to_owned(),
            });
        }
        "TokenIgnores" => extend_unique(&mut section.token_ignores, split_list(&value)),
        "Transform" if index != GLOBAL => section.transform = Some(value),
        "Lang" => section.lang = Some(value),
        "Transform" | "CommentDelimiters" if index == GLOBAL => {
            return Err(ConfigError::at(
                &file,
                line,
                ConfigErrorKind::NotGlobal {
                    key: key.to_owned(),
                },
            ));
        }
        "CommentDelimiters" => {
            // A repeated key adds its values, as go-ini's shadows: then it is too many.
            let mut parts: Vec<String> = section
                .comment_delimiters
                .take()
                .map(|(open, close)| vec![open, close])
                .unwrap_or_default();
            parts.extend(split_list(&value));
            let [open, close] = <[String; 2]>::try_from(parts).map_err(|parts| {
                ConfigError::at(
                    &file,
                    line,
                    ConfigErrorKind::BadDelimiters { count: parts.len() },
                )
            })?;
            section.comment_delimiters = Some((open, close));
        }
        _ if CORE_KEYS.contains(&key) => {
            return Err(ConfigError::at(
                &file,
                line,
                ConfigErrorKind::CoreKeyInSection {
                    key: key.to_owned(),
                    section: pattern,
                },
            ));
        }
        _ if key.contains('.') => {
            let rule_value = match value.as_str() {
                "NO" => RuleValue::Off,
                "YES" => RuleValue::On,
                other => match Level::from_name(other) {
                    Some(level) => RuleValue::Level(level),
                    None => {
                        notice = Some(NoticeKind::UnknownRuleValue {
                            rule: key.to_owned(),
                            value: value.clone(),
                        });
                        RuleValue::Off
                    }
                },
            };
            section.rules.push(RuleSetting {
                source,
                rule: key.to_owned(),
                value: rule_value,
                line,
            });
        }
        _ => {
            unknown(config, &pattern, key, value, line);
            return Ok(());
        }
    }
    if let Some(kind) = notice {
        config.notices.push(Notice {
            file: Some(file),
            line: Some(line),
            kind,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_on_commas() {
        assert_eq!(split_list(" a, b ,,a, c"), ["a", "b", "c"]);
        // Vale's lists have no escape: a comma in a regular expression splits it.
        assert_eq!(split_list(r"x{1\,3}, y"), [r"x{1\", "3}", "y"]);
        assert_eq!(
            split_escaped(r"x{1\,3}, y\\z, \d"),
            ["x{1,3}", r"y\z", r"\d"]
        );
        assert!(split_list("  ").is_empty());
    }

    fn value(raw: &str) -> Option<String> {
        read_value(raw, &[], &mut 0)
    }

    /// go-ini's `readValue`, case by case.
    #[test]
    fn values_read_as_go_ini_reads_them() {
        let cases = [
            ("styles # where they are", "styles"),
            ("a#b", "a#b"),
            ("v ; c", "v"),
            ("v\t# c", "v\t# c"),
            // ` #` is looked for first, then ` ;`.
            ("a ; b # c", "a ; b"),
            ("'quoted'", "quoted"),
            ("\"a, b\"", "a, b"),
            ("\"a\" \"b\"", "\"a\" \"b\""),
            // The comment is cut before the quotes are looked at.
            ("\"a # b\"", "\"a"),
            ("`x ; y`", "x ; y"),
            ("`a` `b` # c", "a` `b"),
            ("\"\"\"x\"\"\" tail", "x"),
            ("", ""),
        ];
        for (raw, expected) in cases {
            assert_eq!(value(raw).as_deref(), Some(expected), "{raw}");
        }
    }

    #[test]
    fn values_over_several_lines() {
        let items = lex("A = a, \\\n  b, \\\n c # d\n[x] junk\nB = `one,\ntwo`\nC = \\\n\nD = 1\n");
        let keys: Vec<(usize, String)> = items
            .iter()
            .map(|l| match &l.item {
                Item::Key(k, v) => (l.line, format!("{k}={v}")),
                Item::Section(name) => (l.line, format!("[{name}]")),
                Item::Bad(text) => (l.line, format!("bad {text}")),
            })
            .collect();
        assert_eq!(
            keys,
            [
                (1, "A=a, b, c # d".to_owned()),
                (4, "[x]".to_owned()),
                (5, "B=one,\ntwo".to_owned()),
                (7, "C=".to_owned()),
                (9, "D=1".to_owned()),
            ]
        );
        assert!(matches!(
            lex("A = `open\nnever closed\n")[0].item,
            Item::Bad(_)
        ));
        assert!(matches!(lex("[open\n")[0].item, Item::Bad(_)));
        assert!(matches!(lex("no delimiter\n")[0].item, Item::Bad(_)));
        assert!(matches!(lex(" = value\n")[0].item, Item::Bad(_)));
    }
}
