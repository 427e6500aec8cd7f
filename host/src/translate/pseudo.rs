//! The `pseudo` provider: offline pseudo-localization ([`kapi_core::pseudo`]), every inline
//! code and plural branch kept; nothing leaves the machine. Into `ar-XB` the text is also
//! wrapped right to left (U+202E … U+202C), as Android's bidi pseudo-locale. Without `--to` it
//! writes only to the pseudo-locales (`en-XA`, `ar-XB`: the collection's target template names
//! their files), never a real language; a real language `--to` names takes only what is missing.

use super::provider::{Answer, Batch, Provider, ProviderError};

pub struct Pseudo {
    pub name: String,
    pub expansion: f32,
}

impl Provider for Pseudo {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> Option<&str> {
        None
    }

    fn translate(&self, batch: &Batch) -> Result<Vec<Answer>, ProviderError> {
        let bidi = batch
            .target_lang
            .replace(['_', '-'], "")
            .eq_ignore_ascii_case("arxb")
            || batch
                .target_lang
                .replace(['_', '-'], "")
                .eq_ignore_ascii_case("arrxb");
        Ok(batch
            .items
            .iter()
            .map(|item| {
                let edition = kapi_core::pseudo::pseudo(&item.source, self.expansion);
                let text = kapi_core::projection::render(&edition.runs).0;
                // `ar-XB`: the text runs right to left (RLO … PDF), as Android's pseudo-locale.
                Ok(if bidi {
                    format!("\u{202E}{text}\u{202C}")
                } else {
                    text
                })
            })
            .collect())
    }

    fn remote(&self) -> bool {
        false
    }
}
