//! Reads arbitrary bytes as `fluent`: a read that succeeds writes back the same bytes, and
//! `read_owned` and `read_each` read what `read` reads (`kapi_fuzz::reads_back`), whatever
//! messages, attributes, placeables, select expressions and junk the reader made of them. Run with
//! `cargo +nightly fuzz run fluent` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kapi_fuzz::reads_back("fluent", data);
});
