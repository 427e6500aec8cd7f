//! Reads arbitrary bytes as `android`: a read that succeeds writes back the same bytes, and
//! `read_owned` reads what `read` reads (`kapi_fuzz::reads_back`). The sniff and the
//! foreign-file test read the same bytes (never a panic; a file the sniff takes is never
//! foreign). Run with `cargo +nightly fuzz run android` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(format) = kapi_core::formats::by_id("android") {
        let head = &data[..data.len().min(4096)];
        if format.sniff(head) {
            assert!(format.foreign(head).is_none(), "a sniffed file is foreign");
        }
    }
    kapi_fuzz::reads_back("android", data);
});
