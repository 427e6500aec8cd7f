//! What a Vale configuration names on disk: finding the `.vale.ini`, reading it, and listing
//! the style folders and vocabularies under its `StylesPath`. Rule files are listed with their
//! text, never parsed here.

use std::path::{Path, PathBuf};

use super::error::{ConfigError, ConfigErrorKind, Notice, NoticeKind};
use super::{ValeConfig, parse};

/// The names Vale looks for in each folder, in its order (`loadConfig`).
pub const CONFIG_NAMES: [&str; 5] = [".vale", "_vale", "vale.ini", ".vale.ini", "_vale.ini"];

/// The largest rule or vocabulary file read; a larger one is skipped with a notice.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The built-in style, which has no folder.
const BUILT_IN: &str = "Vale";

/// One rule file of a style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFile {
    /// `Style.Rule`: the style's folder name and the file name without `.yml`.
    pub id: String,
    pub path: PathBuf,
    /// The file's YAML, unparsed.
    pub text: String,
}

/// A style folder under `StylesPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    pub name: String,
    pub dir: PathBuf,
    /// Its `*.yml` files, by name.
    pub rules: Vec<RuleFile>,
}

/// One line of a vocabulary file: a case-sensitive regular expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VocabEntry {
    pub pattern: String,
    /// The 1-based line in its file.
    pub line: usize,
}

/// A vocabulary: its `accept.txt` entries become `Vale.Terms`, its `reject.txt` `Vale.Avoid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    pub name: String,
    pub dir: PathBuf,
    /// `accept.txt`: the `Vale.Terms` entries.
    pub accept: Vec<VocabEntry>,
    /// `reject.txt`: the `Vale.Avoid` entries.
    pub reject: Vec<VocabEntry>,
}

/// What is on disk for a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedStyles {
    /// `StylesPath` resolved against the configuration's folder, when set.
    pub styles_path: Option<PathBuf>,
    /// Every style the configuration names that has a folder, in first-mention order, then
    /// the packages' styles.
    pub styles: Vec<Style>,
    /// Every vocabulary `Vocab` names that has a folder, in that order.
    pub vocabularies: Vec<Vocabulary>,
    /// Missing styles, rules, packages and vocabularies; unreadable files.
    pub notices: Vec<Notice>,
}

impl LoadedStyles {
    /// The `Vale.Terms` entries: every vocabulary's `accept.txt`, in `Vocab` order, each
    /// pattern once.
    pub fn vale_terms(&self) -> Vec<&VocabEntry> {
        unique(self.vocabularies.iter().flat_map(|v| v.accept.iter()))
    }

    /// The `Vale.Avoid` entries: every vocabulary's `reject.txt`, in `Vocab` order, each
    /// pattern once.
    pub fn vale_avoid(&self) -> Vec<&VocabEntry> {
        unique(self.vocabularies.iter().flat_map(|v| v.reject.iter()))
    }

    /// The rule file of `id` (`Style.Rule`), when loaded.
    pub fn rule(&self, id: &str) -> Option<&RuleFile> {
        let (style, _) = id.split_once('.')?;
        self.styles
            .iter()
            .find(|s| s.name == style)?
            .rules
            .iter()
            .find(|r| r.id == id)
    }
}

fn unique<'a>(entries: impl Iterator<Item = &'a VocabEntry>) -> Vec<&'a VocabEntry> {
    let mut seen = std::collections::HashSet::new();
    entries
        .filter(|e| seen.insert(e.pattern.as_str()))
        .collect()
}

/// The nearest configuration file from `start` upward: in each folder, the first of
/// [`CONFIG_NAMES`] that is a file.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        CONFIG_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// Reads and parses the configuration file at `path`.
pub fn read_config(path: &Path) -> Result<ValeConfig, ConfigError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: file.clone(),
        line: None,
        kind: ConfigErrorKind::Unreadable(e),
    })?;
    parse(&file, &text)
}

/// The folder Vale's `sync` puts a package's own configuration in, under `StylesPath`.
const PIPE_DIR: &str = ".vale-config";

/// Reads the configuration file at `path` as Vale does after `vale sync`: the configurations
/// synced packages put in `<StylesPath>/.vale-config/` (by file name), then `path` itself,
/// parsed as one ([`parse_sources`](super::parse_sources)). Without a `StylesPath` or that
/// folder, the same as [`read_config`].
pub fn read_config_with_packages(path: &Path) -> Result<ValeConfig, ConfigError> {
    let own = read_config(path)?;
    let Some(pipe) = own
        .styles_path
        .as_ref()
        .map(|p| base_of(path).join(p).join(PIPE_DIR))
    else {
        return Ok(own);
    };
    let Ok(entries) = std::fs::read_dir(&pipe) else {
        return Ok(own);
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    if files.is_empty() {
        return Ok(own);
    }
    files.sort();
    files.push(path.to_path_buf());
    let mut texts: Vec<(String, String)> = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| ConfigError {
            file: name.clone(),
            line: None,
            kind: ConfigErrorKind::Unreadable(e),
        })?;
        texts.push((name, text));
    }
    let sources: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    super::parse_sources(&sources)
}

fn base_of(config_path: &Path) -> &Path {
    config_path.parent().unwrap_or(Path::new(""))
}

/// Whether a package is synced: its style folder, or its configuration in `.vale-config/`
/// (`<n>-<Name>.ini`), is under `StylesPath`.
fn package_synced(styles_path: &Path, name: &str) -> bool {
    if styles_path.join(name).is_dir() {
        return true;
    }
    let suffix = format!("-{name}.ini");
    std::fs::read_dir(styles_path.join(PIPE_DIR)).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(&suffix)))
    })
}

/// The entries of a vocabulary file: each line trimmed, blank ones and those starting `# `
/// skipped, as Vale reads them.
pub fn parse_vocab(text: &str) -> Vec<VocabEntry> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let word = line.trim();
            (!word.is_empty() && !word.starts_with("# ")).then(|| VocabEntry {
                pattern: word.to_owned(),
                line: i + 1,
            })
        })
        .collect()
}

/// The folder name a `Packages` entry installs: the last path segment, without `.zip`.
pub fn package_name(entry: &str) -> &str {
    let last = entry
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(entry);
    last.strip_suffix(".zip").unwrap_or(last)
}

/// Lists what `config` (read from `config_path`) names under its `StylesPath`.
pub fn load(config_path: &Path, config: &ValeConfig) -> Result<LoadedStyles, ConfigError> {
    let styles_path = config
        .styles_path
        .as_ref()
        .map(|p| base_of(config_path).join(p));
    let mut out = LoadedStyles {
        styles_path: styles_path.clone(),
        styles: Vec::new(),
        vocabularies: Vec::new(),
        notices: Vec::new(),
    };
    if let Some(dir) = &styles_path
        && !dir.is_dir()
    {
        return Err(ConfigError {
            file: config.file.clone(),
            line: None,
            kind: ConfigErrorKind::NoStylesPath {
                path: config.styles_path.clone().unwrap_or_default(),
                resolved: dir.display().to_string(),
            },
        });
    }
    let mut names = config.named_styles();
    for entry in &config.packages {
        let name = package_name(entry);
        if !styles_path
            .as_ref()
            .is_some_and(|d| package_synced(d, name))
        {
            out.notices.push(notice(NoticeKind::MissingPackage {
                name: name.to_owned(),
            }));
        } else if styles_path.as_ref().is_some_and(|d| d.join(name).is_dir())
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_owned());
        }
    }
    for name in names.iter().filter(|n| *n != BUILT_IN) {
        match styles_path.as_ref().map(|d| d.join(name)) {
            Some(dir) if dir.is_dir() => {
                let style = read_style(name, dir, &mut out.notices);
                out.styles.push(style);
            }
            _ => out
                .notices
                .push(notice(NoticeKind::MissingStyle { name: name.clone() })),
        }
    }
    missing_rules(config, &mut out);
    for name in &config.vocab {
        let found = styles_path.as_ref().and_then(|d| {
            [
                d.join("config/vocabularies").join(name),
                d.join("Vocab").join(name),
            ]
            .into_iter()
            .find(|p| p.is_dir())
        });
        match found {
            Some(dir) => {
                let accept = read_list(&dir.join("accept.txt"), &mut out.notices);
                let reject = read_list(&dir.join("reject.txt"), &mut out.notices);
                out.vocabularies.push(Vocabulary {
                    name: name.clone(),
                    dir,
                    accept,
                    reject,
                });
            }
            None => out
                .notices
                .push(notice(NoticeKind::MissingVocabulary { name: name.clone() })),
        }
    }
    Ok(out)
}

fn notice(kind: NoticeKind) -> Notice {
    Notice {
        file: None,
        line: None,
        kind,
    }
}

/// A rule setting whose style folder is loaded but which has no file there.
fn missing_rules(config: &ValeConfig, out: &mut LoadedStyles) {
    let known: std::collections::HashSet<&str> = out
        .styles
        .iter()
        .flat_map(|s| s.rules.iter().map(|r| r.id.as_str()))
        .collect();
    let loaded: std::collections::HashSet<&str> =
        out.styles.iter().map(|s| s.name.as_str()).collect();
    let mut reported: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut missing: Vec<Notice> = Vec::new();
    for section in config.global.iter().chain(config.sections.iter()) {
        for setting in &section.rules {
            let Some((style, _)) = setting.rule.split_once('.') else {
                continue;
            };
            let id = setting.rule.as_str();
            if loaded.contains(style) && !known.contains(id) && reported.insert(id) {
                missing.push(Notice {
                    file: config.sources.get(setting.source).cloned(),
                    line: Some(setting.line),
                    kind: NoticeKind::MissingRule {
                        rule: setting.rule.clone(),
                    },
                });
            }
        }
    }
    out.notices.extend(missing);
}

/// A file's text, or a notice; `None` when it does not exist.
fn read_text(path: &Path, notices: &mut Vec<Notice>) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let failed = |reason: String| {
        notice(NoticeKind::Unreadable {
            path: path.display().to_string(),
            reason,
        })
    };
    if meta.len() > MAX_FILE_BYTES {
        notices.push(failed(format!("larger than {MAX_FILE_BYTES} bytes")));
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) => {
            notices.push(failed(e.to_string()));
            None
        }
    }
}

fn read_list(path: &Path, notices: &mut Vec<Notice>) -> Vec<VocabEntry> {
    read_text(path, notices)
        .map(|t| parse_vocab(&t))
        .unwrap_or_default()
}

/// The `*.yml` files of a style folder, by file name.
fn read_style(name: &str, dir: PathBuf, notices: &mut Vec<Notice>) -> Style {
    let mut files: Vec<(String, PathBuf)> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let path = e.path();
                let file_name = path.file_name()?.to_str()?.to_owned();
                let stem = file_name.strip_suffix(".yml")?.to_owned();
                (!stem.is_empty() && path.is_file()).then_some((stem, path))
            })
            .collect(),
        Err(e) => {
            notices.push(notice(NoticeKind::Unreadable {
                path: dir.display().to_string(),
                reason: e.to_string(),
            }));
            Vec::new()
        }
    };
    files.sort();
    let rules = files
        .into_iter()
        .filter_map(|(stem, path)| {
            let text = read_text(&path, notices)?;
            Some(RuleFile {
                id: format!("{name}.{stem}"),
                path,
                text,
            })
        })
        .collect();
    Style {
        name: name.to_owned(),
        dir,
        rules,
    }
}
