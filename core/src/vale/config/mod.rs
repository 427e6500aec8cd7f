//! Reading a Vale configuration: the `.vale.ini` file, what it means for one path, the style
//! folders and vocabularies it names on disk, and Vale's inline comment directives.
//!
//! The reference is Vale v3 (`errata-ai/vale`, `internal/core/ini.go`, `config.go`, `file.go`,
//! `internal/glob`, `internal/lint/lint.go`). The choices, where kapi follows Vale and where it
//! does not:
//!
//! - **The INI dialect** is go-ini's as Vale loads it (`errata-ai/ini`, shadows allowed):
//!   keys before any `[section]` are the core options; `[*]` is the global section;
//!   `[formats]` maps one extension to another (`mdx = md`); `[asciidoctor]` holds attributes;
//!   every other section is a glob (text after its `]` is ignored). A section named twice is
//!   one section. `=` or `:` separates a key from its value. A value in backticks or `"""` is
//!   taken as written, over several lines if it is not closed on the first; a value ending in
//!   `\` takes the next lines, trimmed; otherwise ` #` or ` ;` starts a comment and then one
//!   pair of surrounding `'` or `"` is dropped (so `"a # b"` reads `"a`, as in Vale). A
//!   repeated key adds its values to a list key and replaces a single-valued key or a rule
//!   setting (go-ini keeps the first, except for `StylesPath`; kapi the last, as a reader
//!   expects).
//! - **Lists** (`BasedOnStyles`, `Vocab`, `BlockIgnores`...) split on every `,` as Vale's
//!   `StringsWithShadows`: there is no escape, so, as in Vale, a regular expression in
//!   `BlockIgnores` or `TokenIgnores` cannot hold a comma. Entries are trimmed, empty ones
//!   dropped and duplicates kept once (`mergeValues`). `Packages` and `IgnorePatterns` are
//!   read with go-ini's `Strings`, where `\,` is a comma.
//! - **Errors** are what Vale refuses: a core option inside a section, a section option among
//!   the core options, `Transform` or `CommentDelimiters` in `[*]`, `CommentDelimiters` that
//!   are not two (a repeated key adds up, as go-ini's shadows), a `MinAlertLevel` that is not
//!   a level, a glob that does not compile, a line that is neither a section, a key nor a
//!   comment, a `StylesPath` that is not a folder. Every one names the file, the line when
//!   there is one, and the fix ([`crate::error::Hint`]). **Notices** are what Vale silently
//!   ignores: unknown keys (kept in [`ValeConfig::unknown`]), a rule value that is none of
//!   `YES`, `NO` or a level (the rule is off, as in Vale), the deprecated `IgnorePatterns`
//!   (read as `BlockIgnores`); and, on disk, missing styles, rules, packages and vocabularies
//!   (Vale stops on a missing style or vocabulary; kapi goes on without it and says so).
//! - **Globs** follow `internal/glob`: a pattern with `**` is matched the doublestar way (`*`
//!   and `?` stay within one folder, `**` crosses folders); a pattern without `**` the gobwas
//!   way without separators (`*` matches across `/`, so `[*.md]` matches `docs/a.md`). Both
//!   have `{a,b}` alternatives and `[...]` classes; a leading `!` negates. kapi compiles them
//!   with `globset` (already a dependency), whose matching is linear in the path; it allows
//!   nested `{}` as gobwas does but refuses a hostile nesting depth, and kapi refuses a
//!   pattern over 1,024 bytes, both as a [`ConfigError`]. A path is matched relative to the
//!   configuration's folder with `/` separators (Vale matches the path as given on its
//!   command line, usually the same when run from that folder).
//! - **Resolution** for a path ([`ValeConfig::resolve`]) is Vale's `NewFile` and
//!   `Linter.shouldRun`: the path, then (when `[formats]` maps its extension) the path with the
//!   mapped extension, each matched against every section in file order. `BasedOnStyles` of
//!   the last match *replaces* the global one (Vale does not merge styles across sections,
//!   whatever a reader of the INI may expect); rule settings of the matches apply in the same
//!   order (a later one wins), then `[*]`'s fill the rules no section set. Unlike Vale, a
//!   rule's level override applies only where its section matches: Vale's `RuleToLevel` is one
//!   map for every file, the last level assigned anywhere winning everywhere
//!   ([`ValeConfig::vale_level`] gives that value, for exact parity). `BlockIgnores` and
//!   `TokenIgnores` of `[*]` and every matching section add up (Vale matches their sections
//!   against the extension only; kapi against the path, as for styles). `Lang`, `Transform`
//!   and `CommentDelimiters` come from the last matching section (`Lang` else from `[*]`;
//!   Vale picks one in map order).
//! - **On disk** ([`load()`]): `StylesPath` is relative to the configuration's folder; a style is
//!   `<StylesPath>/<Style>/*.yml`, listed as `Style.Rule` with its text, never parsed here;
//!   the built-in `Vale` style has no folder. Vocabularies are
//!   `<StylesPath>/config/vocabularies/<Name>/` (Vale v3), else `<StylesPath>/Vocab/<Name>/`
//!   (older), each with `accept.txt` and `reject.txt`: one case-sensitive regular expression a
//!   line, blank lines and lines starting `# ` skipped, as Vale reads them; they become the
//!   `Vale.Terms` and `Vale.Avoid` entries. `Packages` are only recorded: kapi never
//!   downloads; a package is usable only when `vale sync` has already put it under
//!   `StylesPath` (its style folder, or its own configuration as
//!   `.vale-config/<n>-<Name>.ini`); a missing one is a notice telling to run `vale sync`.
//!   [`read_config_with_packages`] reads those package configurations before the project's,
//!   as one configuration, as Vale does; [`read_config`] reads the file alone.
//! - **Finding the configuration** ([`find_config`]) walks up from a folder and takes the first
//!   of `.vale`, `_vale`, `vale.ini`, `.vale.ini`, `_vale.ini` found, as Vale's `loadConfig`;
//!   the home folder and `VALE_CONFIG_PATH` are the caller's business.
//! - **Comment directives** ([`directive`]) are Vale's grammar on the trimmed comment text:
//!   `vale off`, `vale on`, `vale Style.Rule = YES|NO`, `vale Style.Rule["a", "b"] = NO`,
//!   `vale Style = YES|NO`, `vale style = A` and `vale styles = A, B` (Vale 3.9). A list such
//!   as `vale A.B = NO, C.D = NO` is not Vale's grammar and is reported unrecognized.

pub mod directive;
mod error;
mod glob;
mod ini;
mod load;
mod resolve;

pub use directive::{Directive, DirectiveState, disabled_at, parse_directive};
pub use error::{ConfigError, ConfigErrorKind, Notice, NoticeKind};
pub use ini::{parse, parse_sources};
pub use load::{
    CONFIG_NAMES, LoadedStyles, RuleFile, Style, VocabEntry, Vocabulary, find_config, load,
    package_name, parse_vocab, read_config, read_config_with_packages,
};
pub use resolve::{
    DEFAULT_IGNORED_CLASSES, DEFAULT_IGNORED_SCOPES, DEFAULT_SKIPPED_SCOPES, Resolved, RuleState,
};

use glob::SectionGlob;

/// A Vale alert level, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Suggestion,
    Warning,
    Error,
}

impl Level {
    /// The level Vale spells `name` (`suggestion`, `warning`, `error`), case-sensitive as Vale.
    pub fn from_name(name: &str) -> Option<Level> {
        match name {
            "suggestion" => Some(Level::Suggestion),
            "warning" => Some(Level::Warning),
            "error" => Some(Level::Error),
            _ => None,
        }
    }

    /// Vale's name of the level.
    pub fn name(self) -> &'static str {
        match self {
            Level::Suggestion => "suggestion",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// What a section says of one rule: `Style.Rule = NO|YES|suggestion|warning|error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleValue {
    /// `NO`, or a value Vale does not know (then a notice says so).
    Off,
    /// `YES`: on, at the rule's own level.
    On,
    /// On, at this level.
    Level(Level),
}

/// One `Style.Rule = value` line of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSetting {
    /// The rule id, `Style.Rule` as written.
    pub rule: String,
    pub value: RuleValue,
    /// The 1-based line of the key.
    pub line: usize,
    /// The file of the line: an index into [`ValeConfig::sources`].
    pub source: usize,
}

/// A key kapi does not know, kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The section (`""` for the core options before any section).
    pub section: String,
    pub key: String,
    pub value: String,
    pub line: usize,
    /// The file of the line: an index into [`ValeConfig::sources`].
    pub source: usize,
}

/// A glob section (`[*.md]`) or the global section `[*]`.
#[derive(Debug, Clone)]
pub struct Section {
    /// The pattern as written between the brackets.
    pub pattern: String,
    /// The 1-based line of the first `[pattern]` header.
    pub line: usize,
    /// `BasedOnStyles`, when the section sets it.
    pub based_on_styles: Option<Vec<String>>,
    /// The `Style.Rule = value` lines, in file order.
    pub rules: Vec<RuleSetting>,
    /// `BlockIgnores` (and the deprecated `IgnorePatterns`): regular expressions.
    pub block_ignores: Vec<String>,
    /// `TokenIgnores`: regular expressions.
    pub token_ignores: Vec<String>,
    /// `Transform`: an XSLT stylesheet path, as written.
    pub transform: Option<String>,
    /// `Lang`: a language code.
    pub lang: Option<String>,
    /// `CommentDelimiters = {/*, */}`: the opening and closing delimiters.
    pub comment_delimiters: Option<(String, String)>,
    glob: SectionGlob,
}

impl Section {
    /// Whether the section's pattern matches `path` (relative, `/`-separated).
    pub fn matches(&self, path: &str) -> bool {
        self.glob.matches(path)
    }
}

/// A parsed `.vale.ini`: what it says, before anything is read from disk.
#[derive(Debug, Clone)]
pub struct ValeConfig {
    /// The configuration's own file, as the caller named it (the last of `sources`).
    pub file: String,
    /// Every file read, in order: the synced packages' configurations
    /// (`<StylesPath>/.vale-config/*`) when read with them, then the configuration itself.
    pub sources: Vec<String>,
    /// `StylesPath` as written (relative to the configuration's folder unless absolute).
    pub styles_path: Option<String>,
    /// `MinAlertLevel`; Vale's default is `suggestion`.
    pub min_alert_level: Level,
    /// `Vocab`: vocabulary names.
    pub vocab: Vec<String>,
    /// `Packages`: names or URLs, recorded only (kapi never downloads).
    pub packages: Vec<String>,
    /// `IgnoredScopes`, when set (else Vale's [`DEFAULT_IGNORED_SCOPES`]).
    pub ignored_scopes: Option<Vec<String>>,
    /// `SkippedScopes`, when set (else Vale's [`DEFAULT_SKIPPED_SCOPES`]).
    pub skipped_scopes: Option<Vec<String>>,
    /// `IgnoredClasses`: HTML classes whose elements are skipped.
    pub ignored_classes: Vec<String>,
    /// `WordTemplate`, recorded.
    pub word_template: Option<String>,
    /// `NLPEndpoint`, recorded.
    pub nlp_endpoint: Option<String>,
    /// `[formats]`: extension (without dot) → the format it is read as, in file order.
    pub formats: Vec<(String, String)>,
    /// `[asciidoctor]` attributes, in file order.
    pub asciidoctor: Vec<(String, String)>,
    /// `[*]`, when present.
    pub global: Option<Section>,
    /// Every other glob section, in file order.
    pub sections: Vec<Section>,
    /// Keys kapi does not know, kept.
    pub unknown: Vec<UnknownKey>,
    /// What Vale would silently ignore or accept with a change, for the user to see.
    pub notices: Vec<Notice>,
}

impl ValeConfig {
    /// The format `ext` (without its dot) is read as, per `[formats]` (the last mapping wins).
    pub fn format_for(&self, ext: &str) -> Option<&str> {
        self.formats
            .iter()
            .rev()
            .find(|(from, _)| from == ext)
            .map(|(_, to)| to.as_str())
    }

    /// The level Vale gives `rule` in every file: the last level assigned to it in `[*]`, then
    /// in the sections in file order (Vale's `RuleToLevel`; `YES` and `NO` leave it).
    pub fn vale_level(&self, rule: &str) -> Option<Level> {
        self.global
            .iter()
            .chain(self.sections.iter())
            .flat_map(|s| s.rules.iter())
            .filter(|r| r.rule == rule)
            .filter_map(|r| match r.value {
                RuleValue::Level(level) => Some(level),
                _ => None,
            })
            .next_back()
    }

    /// Every style the configuration names: in `BasedOnStyles` anywhere and as the style of a
    /// rule setting, in first-mention order.
    pub fn named_styles(&self) -> Vec<String> {
        let names = self
            .global
            .iter()
            .chain(self.sections.iter())
            .flat_map(|section| {
                let styles = section.based_on_styles.iter().flatten().map(String::as_str);
                let of_rules = (section.rules.iter())
                    .filter_map(|setting| setting.rule.split_once('.').map(|(style, _)| style));
                styles.chain(of_rules)
            })
            .filter(|name| !name.is_empty());
        ini::unique(names.map(str::to_owned))
    }
}

#[cfg(test)]
mod tests;
