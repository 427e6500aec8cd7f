//! The conformance suite, one test binary: every module drives the built `kapi` binary
//! (`KAPI_BIN`, default `target/debug/kapi`) through `common`'s harness, in a cleared
//! environment, and reads its JSON through the typed wire structs in `crate::common::wire`.

mod common;

mod apply;
mod context_loop;
mod formats;
mod handbook;
mod hints;
mod hooks;
mod hooks_flat;
mod host_start;
mod hostile;
mod landing;
mod mcp;
mod parity;
mod sessions;
mod translations;
