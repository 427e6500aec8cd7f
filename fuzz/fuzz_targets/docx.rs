//! Reads arbitrary bytes as `docx`: a read that succeeds writes back the same bytes, and
//! `read_owned` reads what `read` reads (`kapi_fuzz::reads_back`). Run with
//! `cargo +nightly fuzz run docx` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kapi_fuzz::reads_back("docx", data));
