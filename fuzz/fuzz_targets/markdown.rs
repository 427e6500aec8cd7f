//! Reads arbitrary bytes as markdown; whenever the read succeeds, a write without edits must
//! give back the same bytes. Run with `cargo fuzz run markdown` from `fuzz/`.
#![no_main]

use kapi_core::formats::Format;
use kapi_core::formats::markdown::Markdown;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = Markdown.read(data) {
        let written = Markdown.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
});
