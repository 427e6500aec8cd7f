//! Reads arbitrary bytes as source code in one of the comment formats (the first byte picks
//! the language): a read that succeeds writes back the same bytes (`kapi_fuzz::reads_back`),
//! and an edit of its first comment writes without a panic and, when the file parsed with no
//! error, keeps every block's key. Run with `cargo +nightly fuzz run code` from `fuzz/`.
#![no_main]

use kapi_core::formats::Format;
use kapi_core::formats::code::LANGS;
use kapi_core::model::Run;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, source)) = data.split_first() else {
        return;
    };
    let lang = LANGS[usize::from(pick) % LANGS.len()];
    kapi_fuzz::reads_back(lang.info.id, source);
    let Ok(mut parsed) = lang.read(source) else {
        return;
    };
    let keys: Vec<String> = parsed.document.blocks.iter().map(|b| b.key.clone()).collect();
    let Some(block) = parsed.document.blocks.iter_mut().find(|b| b.translatable) else {
        return;
    };
    block.source.runs = vec![Run::text("A new comment, long enough to wrap when it is written back in its place.")];
    let Ok(written) = lang.write(&parsed) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(source) else {
        return;
    };
    let clean = kapi_core::formats::code::parse(lang, text)
        .is_ok_and(|t| kapi_core::formats::code::syntax_errors(&t) == 0);
    if clean {
        if let Ok(again) = lang.read(&written) {
            let now: Vec<String> = again.document.blocks.iter().map(|b| b.key.clone()).collect();
            assert_eq!(now.len(), keys.len(), "an edited comment split or merged blocks");
        }
    }
});
