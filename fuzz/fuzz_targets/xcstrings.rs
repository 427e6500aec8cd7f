//! Reads arbitrary bytes as `xcstrings`: a read that succeeds writes back the same bytes, and
//! `read_owned` and `read_each` read what `read` reads (`kapi_fuzz::reads_back`), whatever
//! keys, localizations, variations and substitutions the reader made of them. Run with
//! `cargo +nightly fuzz run xcstrings` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kapi_fuzz::reads_back("xcstrings", data);
});
