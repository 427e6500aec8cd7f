//! The capabilities every surface calls, one module each: a request in, a report out, with
//! no knowledge of the surface (the CLI verb and the MCP tool are adapters that decode,
//! call and render). The rest still lives beside its surface and moves here (issue 17).

pub mod detect_format;
pub mod redact;
