//! kapi-host: the runtime every surface shares — project resolution per call, the actor,
//! check, context and init — so the CLI, the MCP server and hooks give the same answers.

pub mod agents;
pub mod app;
pub mod apply;
pub mod check;
pub mod context;
pub mod derived;
pub mod document;
pub mod env;
pub mod error;
pub mod hooks;
pub mod init;
mod init_catalogs;
pub mod inspect;
pub mod mcp;
mod memo;
pub mod notes;
pub mod notices;
pub mod policy;
pub mod search;
pub mod services;
pub mod surface;
pub mod toolbox;
pub mod translate;

pub use app::App;
pub use error::{ErrorKind, HostError, hints_for, kind_of};
pub use surface::Surface;
