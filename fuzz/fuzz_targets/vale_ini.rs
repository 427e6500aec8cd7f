//! Reads arbitrary bytes as a `.vale.ini` and resolves the result for a few paths, and as an
//! inline `vale …` directive: never a panic, whatever the sections, globs and quoting hold.
//! Run with `cargo +nightly fuzz run vale_ini` from `fuzz/`.
#![no_main]

use kapi_core::vale::config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(parsed) = config::parse(".vale.ini", &text) {
        for path in ["a.md", "docs/guide/b.rst", "x/y/z.txt", ""] {
            let _ = parsed.resolve(path);
        }
    }
    let _ = config::parse_directive(&text);
    let _ = config::parse_vocab(&text);
});
