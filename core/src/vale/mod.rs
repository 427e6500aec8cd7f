//! Vale styles: a Vale configuration (`.vale.ini`, its styles, vocabularies and inline
//! directives: `config`), its rule files with the engine that runs them (`rules`), the
//! configuration loaded for a check (`styles`) and its rules run over a document (`run`).
//!
//! A Vale alert is a kapi finding: its rule id is `Style.Rule`, its level a severity
//! ([`severity`]), its message Vale's, its `link` the finding's.
pub mod config;
pub mod rules;
pub mod run;
pub mod styles;

use crate::governance::Severity;

/// The severity of a Vale level: `error` is major (it fails the default gate, as it makes
/// Vale exit 1), `warning` minor, `suggestion` info.
pub fn severity(level: rules::Level) -> Severity {
    match level {
        rules::Level::Error => Severity::Major,
        rules::Level::Warning => Severity::Minor,
        rules::Level::Suggestion => Severity::Info,
    }
}

/// What to write instead, when the rule's action says it and the message does not already:
/// a `replace` with one replacement.
pub fn suggestion(message: &str, action: Option<&rules::Action>) -> Option<String> {
    let action = action?;
    match (action.name, action.params.as_slice()) {
        (rules::ActionName::Replace, [one]) if !message.contains(one.as_str()) => Some(one.clone()),
        _ => None,
    }
}
