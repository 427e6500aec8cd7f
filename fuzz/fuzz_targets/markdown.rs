//! Reads arbitrary bytes as `markdown`: a read that succeeds writes back the same bytes, and
//! `read_owned` and `read_each` read what `read` reads (`kapi_fuzz::reads_back`); read in the
//! smallest pieces the windowed plan cuts, the text reads as it does whole. Run with
//! `cargo +nightly fuzz run markdown` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kapi_fuzz::reads_back("markdown", data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert!(
            kapi_core::formats::markdown::pieces_agree(text),
            "read in pieces, the text reads otherwise"
        );
    }
});
