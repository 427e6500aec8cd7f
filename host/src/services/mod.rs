//! The capabilities every surface calls, one module each: a request in, a report out, with
//! no knowledge of the surface (the CLI verb and the MCP tool are adapters that decode,
//! call and render). `docs/mcp.md` pairs each MCP tool with its command.

pub mod check_text;
pub mod detect_format;
pub mod formats;
pub mod recipe;
pub mod redact;
pub mod review;
pub mod session_summary;
pub mod stats;
pub mod term_check;
pub mod text_scope;
pub mod translation;
pub mod voice_check;
pub mod voice_rewrite;
pub mod writes;
