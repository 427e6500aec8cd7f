//! Vale styles: Vale's rule files (YAML) and the engine that runs them over scoped text, so
//! kapi runs the style packages docs teams already have (issue 43).
pub mod rules;
