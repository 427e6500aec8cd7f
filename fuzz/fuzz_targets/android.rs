//! Reads arbitrary bytes as `android`; whenever the read succeeds, a write without edits must
//! give back the same bytes. The sniff and the foreign-file test read the same bytes (never a
//! panic; a file the sniff takes is never foreign). Run with `cargo +nightly fuzz run android` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(format) = kapi_core::formats::by_id("android") else {
        return;
    };
    let head = &data[..data.len().min(4096)];
    if format.sniff(head) {
        assert!(format.foreign(head).is_none(), "a sniffed file is foreign");
    }
    if let Ok(parsed) = format.read(data) {
        let written = format.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
});
