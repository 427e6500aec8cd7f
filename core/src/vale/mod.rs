//! Vale styles: a Vale configuration (`.vale.ini`, its styles, vocabularies and inline
//! directives: `config`) and its rule files with the engine that runs them (`rules`).
//!
//! Groundwork for issue 43: both parts are tested against Vale's semantics and the packages'
//! fixtures, but not yet wired into `kapi check` (the findings, gate and surfaces).
pub mod config;
pub mod rules;
pub mod styles;
