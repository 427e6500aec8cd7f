//! The typed error and the notices of reading a Vale configuration.

use crate::error::Hint;

/// Why a Vale configuration could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{}", render(file, *line, kind))]
pub struct ConfigError {
    /// The file, as the caller named it.
    pub file: String,
    /// The 1-based line, when the error is about one.
    pub line: Option<usize>,
    pub kind: ConfigErrorKind,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigErrorKind {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Unreadable(#[source] std::io::Error),
    /// A line that is neither a `[section]`, a `key = value` nor a comment.
    #[error("`{text}` is not a section, a `key = value` line or a comment")]
    Syntax { text: String },
    /// A core option (`StylesPath`...) inside a section.
    #[error("`{key}` is a core option, but it is inside `[{section}]`")]
    CoreKeyInSection { key: String, section: String },
    /// A section option (`BasedOnStyles`...) among the core options.
    #[error("`{key}` is a section option, but it is before any `[section]`")]
    SectionKeyInCore { key: String },
    /// A section option Vale refuses in `[*]` (`Transform`, `CommentDelimiters`).
    #[error("`{key}` is a syntax-specific option; it cannot be in `[*]`")]
    NotGlobal { key: String },
    /// `MinAlertLevel` is not a level.
    #[error("MinAlertLevel is `{value}`, not `suggestion`, `warning` or `error`")]
    BadLevel { value: String },
    /// A section's glob does not compile.
    #[error("the glob `[{pattern}]` does not compile: {reason}")]
    BadGlob { pattern: String, reason: String },
    /// `CommentDelimiters` is not two delimiters.
    #[error("CommentDelimiters has {count} entries, not two")]
    BadDelimiters { count: usize },
    /// `StylesPath` names a folder that does not exist.
    #[error("StylesPath `{path}` is not a folder (looked at `{resolved}`)")]
    NoStylesPath {
        /// As written.
        path: String,
        /// Joined to the configuration's folder.
        resolved: String,
    },
}

fn render(file: &str, line: Option<usize>, kind: &ConfigErrorKind) -> String {
    match line {
        Some(line) => format!("{file}:{line}: {kind}"),
        None => format!("{file}: {kind}"),
    }
}

impl ConfigError {
    pub(crate) fn at(file: &str, line: usize, kind: ConfigErrorKind) -> ConfigError {
        ConfigError {
            file: file.to_owned(),
            line: Some(line),
            kind,
        }
    }
}

impl Hint for ConfigError {
    fn hints(&self) -> Vec<String> {
        let hint = match &self.kind {
            ConfigErrorKind::Unreadable(_) => return Vec::new(),
            ConfigErrorKind::Syntax { .. } => {
                "write `key = value`, `[glob]`, or start the line with `#` to comment it out"
                    .to_owned()
            }
            ConfigErrorKind::CoreKeyInSection { key, .. } => {
                format!("move `{key}` above the first `[section]` of the file")
            }
            ConfigErrorKind::SectionKeyInCore { key } => {
                format!("move `{key}` into a section such as `[*]` or `[*.md]`")
            }
            ConfigErrorKind::NotGlobal { key } => {
                format!("move `{key}` into a section for the files it is for, such as `[*.md]`")
            }
            ConfigErrorKind::BadLevel { .. } => {
                "set MinAlertLevel to `suggestion`, `warning` or `error`".to_owned()
            }
            ConfigErrorKind::BadGlob { .. } => {
                "close every `[` and `{` of the pattern; `*`, `**`, `?`, `[abc]` and `{a,b}` \
                 are allowed"
                    .to_owned()
            }
            ConfigErrorKind::BadDelimiters { .. } => {
                "write the opening and closing delimiters, as `CommentDelimiters = {/*, */}`"
                    .to_owned()
            }
            ConfigErrorKind::NoStylesPath { path, .. } if path.starts_with('~') => {
                "write StylesPath without `~` (kapi does not expand it), relative to the \
                 .vale.ini's folder or absolute"
                    .to_owned()
            }
            ConfigErrorKind::NoStylesPath { .. } => {
                "create the folder, or fix StylesPath (it is relative to the .vale.ini's folder)"
                    .to_owned()
            }
        };
        vec![hint]
    }
}

/// Something Vale accepts silently that the user should see; never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The configuration file the notice is about, when it is about one of its lines.
    pub file: Option<String>,
    /// The 1-based line in that file.
    pub line: Option<usize>,
    pub kind: NoticeKind,
}

/// What a notice is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeKind {
    /// A key kapi does not know (kept in `ValeConfig::unknown`).
    UnknownKey { section: String, key: String },
    /// A rule value that is none of `YES`, `NO`, `suggestion`, `warning`, `error`: the rule is
    /// off, as in Vale.
    UnknownRuleValue { rule: String, value: String },
    /// `IgnorePatterns` is Vale's old name of `BlockIgnores`; read as such.
    Deprecated { key: String, instead: String },
    /// A package `Packages` names has no folder under StylesPath: kapi never downloads.
    MissingPackage { name: String },
    /// A style named by the configuration has no folder under StylesPath.
    MissingStyle { name: String },
    /// A rule the configuration sets has no `.yml` file in its style's folder.
    MissingRule { rule: String },
    /// A vocabulary `Vocab` names has no folder.
    MissingVocabulary { name: String },
    /// A file under StylesPath could not be read (not UTF-8, permissions); it is skipped.
    Unreadable { path: String, reason: String },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: ")?,
            (Some(file), None) => write!(f, "{file}: ")?,
            (None, Some(line)) => write!(f, "line {line}: ")?,
            (None, None) => {}
        }
        match &self.kind {
            NoticeKind::UnknownKey { section, key } if section.is_empty() => {
                write!(f, "unknown core option `{key}`, kept and ignored")
            }
            NoticeKind::UnknownKey { section, key } => {
                write!(f, "unknown key `{key}` in `[{section}]`, kept and ignored")
            }
            NoticeKind::UnknownRuleValue { rule, value } => write!(
                f,
                "`{rule} = {value}`: not YES, NO or a level, so the rule is off (as in Vale)"
            ),
            NoticeKind::Deprecated { key, instead } => {
                write!(f, "`{key}` is deprecated; read as `{instead}`")
            }
            NoticeKind::MissingPackage { name } => write!(
                f,
                "package `{name}` is not under StylesPath: kapi never downloads packages; \
                 run `vale sync` first"
            ),
            NoticeKind::MissingStyle { name } => {
                write!(f, "style `{name}` has no folder under StylesPath")
            }
            NoticeKind::MissingRule { rule } => {
                write!(f, "rule `{rule}` has no .yml file in its style's folder")
            }
            NoticeKind::MissingVocabulary { name } => write!(
                f,
                "vocabulary `{name}` is neither config/vocabularies/{name}/ nor Vocab/{name}/ \
                 under StylesPath"
            ),
            NoticeKind::Unreadable { path, reason } => {
                write!(f, "`{path}` skipped: {reason}")
            }
        }
    }
}
