//! The `.vale.ini` parser: go-ini's dialect as Vale loads it, into a [`ValeConfig`]. Pure over
//! the text; one pass, linear in its length.

use std::collections::HashMap;

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

/// One logical line: a physical line, or several joined by a trailing `\`.
struct Line {
    number: usize,
    text: String,
}

/// Splits `text` into logical lines: a key's value ending in `\` continues on the next line.
fn logical_lines(text: &str) -> Vec<Line> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<Line> = Vec::new();
    let mut pending: Option<Line> = None;
    for (index, raw) in text.lines().enumerate() {
        let raw = raw.trim_end_matches('\r');
        if let Some(mut line) = pending.take() {
            let next = raw.trim();
            line.text.push_str(next);
            if let Some(stripped) = line.text.strip_suffix('\\') {
                let keep = stripped.len();
                line.text.truncate(keep);
                pending = Some(line);
            } else {
                out.push(line);
            }
            continue;
        }
        let trimmed = raw.trim();
        let is_key = !trimmed.is_empty()
            && !trimmed.starts_with(['#', ';', '['])
            && trimmed.contains(['=', ':']);
        let line = Line {
            number: index + 1,
            text: trimmed.to_owned(),
        };
        if is_key && trimmed.ends_with('\\') && !value_is_quoted(trimmed) {
            let mut line = line;
            line.text.pop();
            pending = Some(line);
        } else {
            out.push(line);
        }
    }
    out.extend(pending);
    out
}

fn value_is_quoted(line: &str) -> bool {
    split_key(line).is_some_and(|(_, v)| v.trim_start().starts_with(['"', '`']))
}

/// `key = value` or `key: value`, split at the first delimiter.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let at = line.find(['=', ':'])?;
    Some((line[..at].trim(), &line[at + 1..]))
}

/// A value as go-ini reads it: quoted as written, else up to an inline comment (`#` or `;`
/// after a space or tab), trimmed.
fn clean_value(raw: &str) -> String {
    let value = raw.trim();
    for quote in ['"', '`'] {
        if let Some(rest) = value.strip_prefix(quote)
            && let Some(end) = rest.find(quote)
        {
            return rest[..end].to_owned();
        }
    }
    let bytes = value.as_bytes();
    let mut end = value.len();
    for (i, &b) in bytes.iter().enumerate() {
        if (b == b'#' || b == b';') && i > 0 && (bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            end = i;
            break;
        }
    }
    value[..end].trim().to_owned()
}

/// A list value: split on `,` (`\,` is a literal comma), trimmed, empty entries dropped,
/// duplicates kept once (Vale's `mergeValues`).
pub(crate) fn split_list(value: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars().peekable();
    let push = |entry: &mut String, out: &mut Vec<String>| {
        let item = entry.trim();
        if !item.is_empty() && !out.iter().any(|e| e == item) {
            out.push(item.to_owned());
        }
        entry.clear();
    };
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&',') {
            current.push(',');
            chars.next();
        } else if c == ',' {
            push(&mut current, &mut out);
        } else {
            current.push(c);
        }
    }
    push(&mut current, &mut out);
    out
}

fn extend_unique(list: &mut Vec<String>, more: Vec<String>) {
    for item in more {
        if !list.contains(&item) {
            list.push(item);
        }
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
    let mut config = ValeConfig {
        file: file.to_owned(),
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
    let mut place = Place::Core;
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for line in logical_lines(text) {
        let t = line.text.as_str();
        if t.is_empty() || t.starts_with(['#', ';']) {
            continue;
        }
        if t.starts_with('[') {
            place = open_section(&mut config, &mut by_name, t, line.number)?;
            continue;
        }
        let Some((key, raw)) = split_key(t) else {
            return Err(syntax(file, &line));
        };
        if key.is_empty() {
            return Err(syntax(file, &line));
        }
        let value = clean_value(raw);
        match place {
            Place::Core => core_key(&mut config, key, value, line.number)?,
            Place::Formats => config.formats.push((key.to_owned(), value)),
            Place::Asciidoctor => config.asciidoctor.push((key.to_owned(), value)),
            Place::Glob(index) => section_key(&mut config, index, key, value, line.number)?,
        }
    }
    Ok(config)
}

fn syntax(file: &str, line: &Line) -> ConfigError {
    let text: String = line.text.chars().take(80).collect();
    ConfigError::at(file, line.number, ConfigErrorKind::Syntax { text })
}

/// A `[name]` header: finds or creates its section.
fn open_section(
    config: &mut ValeConfig,
    by_name: &mut HashMap<String, usize>,
    text: &str,
    number: usize,
) -> Result<Place, ConfigError> {
    let bad = || {
        ConfigError::at(
            &config.file,
            number,
            ConfigErrorKind::Syntax {
                text: text.chars().take(80).collect(),
            },
        )
    };
    let close = text.rfind(']').ok_or_else(bad)?;
    let rest = text[close + 1..].trim();
    if !rest.is_empty() && !rest.starts_with(['#', ';']) {
        return Err(bad());
    }
    let name = text[1..close].trim();
    if name.is_empty() {
        return Err(bad());
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
        "Packages" => extend_unique(&mut config.packages, split_list(&value)),
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
            extend_unique(&mut section.block_ignores, split_list(&value));
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
    fn lists_split_on_commas_with_escapes() {
        assert_eq!(split_list(" a, b ,,a, c"), ["a", "b", "c"]);
        assert_eq!(split_list(r"x{1\,3}, y"), ["x{1,3}", "y"]);
        assert!(split_list("  ").is_empty());
    }

    #[test]
    fn values_drop_inline_comments_unless_quoted() {
        assert_eq!(clean_value(" styles # where they are"), "styles");
        assert_eq!(clean_value(" a#b "), "a#b");
        assert_eq!(clean_value(" \"a # b\" trailing"), "a # b");
        assert_eq!(clean_value(" `x ; y`"), "x ; y");
        assert_eq!(clean_value(" v ; c"), "v");
    }

    #[test]
    fn continuation_lines_join() {
        let lines = logical_lines("A = a, \\\n  b, \\\n c\n[x]\n");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text, "A = a, b, c");
        assert_eq!(lines[0].number, 1);
        assert_eq!(lines[1].number, 4);
    }
}
