//! kapi-core: the content model, format readers and writers, governance (voice and terms),
//! the checks, the project recipe and the SQLite store. It never prints and never reads the
//! environment: every input (paths, the current instant, the actor) is passed in by the host.
#![warn(clippy::disallowed_methods)]

pub mod change;
pub mod check;
pub mod error;
pub mod formats;
pub mod governance;
pub mod model;
pub mod plurals;
pub mod project;
pub mod projection;
pub mod pseudo;
pub mod readable;
pub mod store;
pub mod suggest;
pub mod text;
pub mod vale;
pub mod yaml_text;

pub use error::Hint;
