//! `kapi.yaml` edited in place: any recipe text either takes the field (and then reads back as
//! YAML holding the new value) or is refused, never a panic. `cargo +nightly fuzz run recipe_text`.
#![no_main]

use kapi_core::project::recipe_text::set_in_text;
use libfuzzer_sys::fuzz_target;

const FIELDS: &[&str] = &["name", "defaults.target_languages", "gates.ship.min_score"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let field = FIELDS[usize::from(pick) % FIELDS.len()];
    let value = match field {
        "name" => serde_json::json!("yes: no"),
        "defaults.target_languages" => serde_json::json!(["fr", "de-CH"]),
        _ => serde_json::json!(90),
    };
    if let Some(out) = set_in_text(text, field, &value) {
        let parsed: Result<serde_yaml::Value, _> = serde_yaml::from_str(&out);
        assert!(parsed.is_ok(), "an edit wrote YAML that does not parse:\n{out}");
    }
});
