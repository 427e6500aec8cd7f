//! Reads arbitrary bytes as a Vale rule file; a rule that parses and compiles runs over a
//! fixed prose sample cut into Vale's pieces: never a panic, whatever the YAML holds.
//! Run with `cargo +nightly fuzz run vale_rule` from `fuzz/`.
#![no_main]

use kapi_core::vale::rules::{CompiledRule, FileState, Rule, prose_scopes};
use libfuzzer_sys::fuzz_target;

const PROSE: &str = "# Title case Heading\n\nIt was decided that the the team will utilize a \
                     number of tools. So, there is a fine kettle of fish here.\n\nNodeJS and \
                     Node.js, e.g. in v1.2.0, are very unique.\n";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(rule) = Rule::parse("Fuzz.Rule", "Rule.yml", &text) else {
        return;
    };
    let Ok(compiled) = CompiledRule::compile(rule, &["Kapi".to_owned()]) else {
        return;
    };
    let mut state = FileState::default();
    for piece in prose_scopes(PROSE, 0, "md") {
        if compiled.applies_to(&piece) {
            let _ = compiled.run(&piece, &mut state);
        }
    }
});
