//! Reads arbitrary bytes as `asciidoc`: a read that succeeds writes back the same bytes, and
//! `read_owned` and `read_each` read what `read` reads (`kapi_fuzz::reads_back`), whatever
//! titles, delimited blocks, lists, tables and inline markup the scanner made of them. Run with
//! `cargo +nightly fuzz run asciidoc` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kapi_fuzz::reads_back("asciidoc", data);
});
