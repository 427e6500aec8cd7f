//! Reads arbitrary bytes as `mdx`: a read that succeeds writes back the same bytes, and
//! `read_owned` and `read_each` read what `read` reads (`kapi_fuzz::reads_back`), whatever the
//! JSX and ESM mask made of the lines pulldown-cmark parsed. Run with
//! `cargo +nightly fuzz run mdx` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kapi_fuzz::reads_back("mdx", data);
});
