//! The `pseudo` provider: offline pseudo-localization ([`kapi_core::pseudo`]), every inline
//! code and plural branch kept; nothing leaves the machine.

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
        Ok(batch
            .items
            .iter()
            .map(|item| {
                let edition = kapi_core::pseudo::pseudo(&item.source, self.expansion);
                Ok(kapi_core::projection::render(&edition.runs).0)
            })
            .collect())
    }

    fn remote(&self) -> bool {
        false
    }
}
