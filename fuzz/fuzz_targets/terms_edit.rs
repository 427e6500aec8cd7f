//! `.kapi/terms.yaml` editing: any file text and any term either edit (and the result reads
//! back as a valid terms file holding the term) or give an error, never a panic.
//! `cargo +nightly fuzz run terms_edit`.
#![no_main]

use kapi_core::governance::TermStatus;
use kapi_core::governance::terms::TermsFile;
use kapi_core::governance::terms_edit::{TermUpsert, upsert};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The first line names the term; the rest is the file.
    let (term, file) = text.split_once('\n').unwrap_or((text, ""));
    let op = TermUpsert {
        text: term.to_owned(),
        lang: "en".into(),
        status: TermStatus::Forbidden,
        concept: None,
        replaces: Some("use".into()),
        replacement: Some("use".into()),
        note: None,
        case: None,
        severity: None,
        definition: None,
        // An exception holding the term, so the edit writes the field too.
        exceptions: Some(vec![format!("{} Day", term.trim())]),
    };
    if let Ok((new, _)) = upsert(Some(file), "terms.yaml", &op) {
        let parsed = TermsFile::parse(&new, "terms.yaml");
        assert!(parsed.is_ok(), "an edit wrote an invalid terms file:\n{new}");
    }
});
