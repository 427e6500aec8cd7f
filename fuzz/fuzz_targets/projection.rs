//! The agent text projection: any text (as one text run) renders to `<x id>` text that parses
//! back to the same run, whatever tags and escapes it holds. `cargo +nightly fuzz run projection`.
#![no_main]

use kapi_core::model::Run;
use kapi_core::projection;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.is_empty() {
        return;
    }
    let runs = vec![Run::text(text)];
    let rendered = projection::render_text(&runs);
    assert_eq!(projection::parse(&rendered, &runs), Ok(runs));
});
