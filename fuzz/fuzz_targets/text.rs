//! Reads arbitrary bytes as text; whenever the read succeeds, a write without edits must
//! give back the same bytes. Run with `cargo fuzz run text` from `fuzz/`.
#![no_main]

use kapi_core::formats::Format;
use kapi_core::formats::plaintext::PlainText;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = PlainText.read(data) {
        let written = PlainText.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
});
