//! Reads arbitrary bytes as `xliff`; whenever the read succeeds, a write without edits must
//! give back the same bytes. Run with `cargo +nightly fuzz run xliff` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(format) = kapi_core::formats::by_id("xliff") else {
        return;
    };
    if let Ok(parsed) = format.read(data) {
        let written = format.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
});
