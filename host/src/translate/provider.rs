//! The provider interface: a batch of blocks in, a translation per block out. A provider is
//! one file (`pseudo.rs`, `openai.rs`); another (DeepL, Anthropic's Messages API) implements
//! [`Provider`] and joins [`for_spec`].
//!
//! Each [`Item`] carries the source edition (its text with inline codes as `<x id="…"/>`
//! tags, the runs themselves for a provider that works on them) and the brief for the
//! block's target path and language (the voice, the terms to use and avoid). A provider
//! answers the text back with the same tags; the change service refuses one that drops or
//! invents a tag, so a provider never needs to be trusted with them.

use std::time::Duration;

use kapi_core::model::Edition;
use kapi_core::project::recipe::providers::{ProviderKind, ProviderSpec};

/// One block to translate.
#[derive(Debug, Clone)]
pub struct Item {
    /// The block's key, which the answer names it by.
    pub key: String,
    /// The source text, inline codes as `<x id="…"/>` tags.
    pub text: String,
    pub source: Edition,
}

/// One batch: blocks of one document into one language, with the brief that governs them.
#[derive(Debug, Clone)]
pub struct Batch {
    pub source_lang: String,
    pub target_lang: String,
    /// The brief (`kapi context` for the target path, in the target language) as Markdown.
    pub brief: String,
    pub items: Vec<Item>,
}

/// A translation for one item: its text with the same `<x id="…"/>` tags (the change
/// service's guard judges them), or why there is none.
pub type Answer = Result<String, String>;

/// Why a batch got no answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// Worth trying again later (a 408, a 429, a 5xx, a timeout, a refused or dropped
    /// connection): retried with backoff, up to the provider's `retries`.
    Transient(String),
    /// Not worth retrying: what cannot change on its own (a 4xx other than 408 and 429, an
    /// answer that does not read or is too large, a URL the client cannot use).
    Failed(String),
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProviderError::Transient(m) | ProviderError::Failed(m) => f.write_str(m),
        }
    }
}

/// A machine translator.
pub trait Provider: Send + Sync {
    /// The recipe's name for it (`pseudo`, `local`).
    fn name(&self) -> &str;
    /// The model it calls, when it has one.
    fn model(&self) -> Option<&str>;
    /// One request: an answer per item, in the items' order.
    fn translate(&self, batch: &Batch) -> Result<Vec<Answer>, ProviderError>;
    /// Whether it sends text anywhere (a dry run says so). A remote provider's answers are
    /// screened (`translate::screen`) before they land.
    fn remote(&self) -> bool;
    /// The key it sends, when it has one: an answer holding it is refused, and an error
    /// showing it is scrubbed.
    fn key(&self) -> Option<&str> {
        None
    }
}

/// The provider a recipe entry describes. `secret` reads the environment variable the entry
/// names for its key.
pub fn for_spec(
    spec: &ProviderSpec,
    secret: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn Provider>, String> {
    match &spec.kind {
        ProviderKind::Pseudo { expansion } => Ok(Box::new(super::pseudo::Pseudo {
            name: spec.name.clone(),
            expansion: *expansion,
        })),
        ProviderKind::OpenAiCompatible {
            base_url,
            model,
            api_key_env,
        } => {
            let scheme = base_url
                .split_once("://")
                .map(|(s, _)| s.to_ascii_lowercase());
            if !matches!(scheme.as_deref(), Some("http" | "https")) {
                return Err(format!(
                    "the provider `{}` has `base_url: {base_url}`, which is not an http:// or https:// URL",
                    spec.name
                ));
            }
            let key = match api_key_env {
                Some(var) => Some(secret(var).ok_or_else(|| {
                    format!(
                        "the provider `{}` reads its key from `{var}`, which is not set",
                        spec.name
                    )
                })?),
                None => None,
            };
            Ok(Box::new(super::openai::OpenAi::new(
                &spec.name,
                base_url,
                model,
                key,
                Duration::from_secs(spec.timeout_secs),
            )))
        }
    }
}
