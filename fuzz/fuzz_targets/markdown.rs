//! Reads arbitrary bytes as `markdown`; whenever the read succeeds, a write without edits must
//! give back the same bytes, and `read_owned` must read what `read` reads. Run with
//! `cargo +nightly fuzz run markdown` from `fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(format) = kapi_core::formats::by_id("markdown") else {
        return;
    };
    // Handing the reader the bytes reads the same (it keeps them as the skeleton's text).
    let read = format.read(data);
    let owned = format.read_owned(data.to_vec());
    match (&read, &owned) {
        (Ok(a), Ok(b)) => assert!(
            a.document == b.document && a.skeleton == b.skeleton,
            "read_owned read another document"
        ),
        (Err(_), Err(_)) => {}
        _ => panic!("read and read_owned disagree on whether the bytes read"),
    }
    if let Ok(parsed) = read {
        let written = format.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
});
