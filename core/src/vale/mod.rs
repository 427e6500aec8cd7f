//! Vale styles: reading a Vale configuration (`.vale.ini`), its style folders, vocabularies
//! and inline comment directives, so kapi runs the style packages docs teams already have.
pub mod config;
