//! Reads arbitrary bytes as a Word document's `word/document.xml` (stored in a zip, so the
//! bytes reach the XML reader instead of the zip reader, which the `docx` target mostly
//! exercises); whenever the read succeeds, a write without edits must give back the same
//! bytes, and so must a write with the first block's text replaced when it succeeds.
//! Run with `cargo +nightly fuzz run docx_xml` from `fuzz/`.
#![no_main]

use std::io::{Cursor, Write};

use kapi_core::model::Run;
use libfuzzer_sys::fuzz_target;
use zip::write::SimpleFileOptions;

fuzz_target!(|data: &[u8]| {
    let Some(format) = kapi_core::formats::by_id("docx") else {
        return;
    };
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    if writer.start_file("word/document.xml", stored).is_err() || writer.write_all(data).is_err() {
        return;
    }
    let Ok(zip) = writer.finish().map(Cursor::into_inner) else {
        return;
    };
    let Ok(mut parsed) = format.read(&zip) else {
        return;
    };
    let written = format.write(&parsed);
    assert_eq!(
        written.as_deref(),
        Ok(zip.as_slice()),
        "a no-op round trip changed the bytes"
    );
    if let Some(block) = parsed.document.blocks.first_mut() {
        block.source.runs.push(Run::text("x & <y>"));
        // An edit may be refused (unbalanced codes); it must not panic.
        let _ = format.write(&parsed);
    }
});
