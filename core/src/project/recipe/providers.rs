//! `providers:` in `kapi.yaml`: the machine translators `kapi translate` and `kapi up` may
//! call, by name. A secret is never stored in the recipe: a provider names the environment
//! variable that holds its key (`api_key_env`), and a key written inline is a load error.
//!
//! ```yaml
//! providers:
//!   local:
//!     kind: openai-compatible          # or `pseudo`
//!     base_url: http://127.0.0.1:11434/v1
//!     model: llama3.1
//!     api_key_env: OPENAI_API_KEY      # optional for a local server
//!     batch: 20                        # blocks a request carries (at most 1000)
//!     concurrency: 2                   # requests in flight (at most 16)
//!     timeout: 60                      # seconds a request may take (at most 3600)
//!     retries: 3                       # after a 408, 429, 5xx or timeout, with backoff (at most 10)
//! ```

use serde_yaml::{Mapping, Value};

/// What a provider is.
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderKind {
    /// Offline pseudo-localization ([`crate::pseudo`]), lengthening text by `expansion`.
    Pseudo { expansion: f32 },
    /// A server speaking the OpenAI chat-completions API.
    OpenAiCompatible {
        base_url: String,
        model: String,
        /// The environment variable holding the key, when the server needs one.
        api_key_env: Option<String>,
    },
}

/// One `providers.<name>` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSpec {
    pub name: String,
    pub kind: ProviderKind,
    /// Blocks one request carries (default 20).
    pub batch: usize,
    /// Requests in flight at once (default 2).
    pub concurrency: usize,
    /// Seconds a request may take (default 60).
    pub timeout_secs: u64,
    /// Retries after a 429 or 5xx answer (default 3).
    pub retries: u32,
}

impl ProviderSpec {
    /// The built-in `pseudo` provider, there whether or not the recipe names it.
    pub fn builtin_pseudo() -> ProviderSpec {
        ProviderSpec {
            name: "pseudo".into(),
            kind: ProviderKind::Pseudo {
                expansion: crate::pseudo::DEFAULT_EXPANSION,
            },
            batch: 50,
            concurrency: 1,
            timeout_secs: 60,
            retries: 0,
        }
    }
}

/// The keys a provider entry takes.
const KEYS: &[&str] = &[
    "kind",
    "base_url",
    "model",
    "api_key_env",
    "expansion",
    "batch",
    "concurrency",
    "timeout",
    "retries",
];

/// The whole numbers a provider key takes, from and to: `retries` at most 10 (with the wait
/// doubling from 0.5 s up to 30 s, about 2.5 minutes for one batch), `concurrency` at most 16
/// requests in flight, `timeout` at most an hour, `batch` at most 1000 blocks a request.
pub fn range(key: &str) -> (u64, u64) {
    match key {
        "retries" => (0, 10),
        "concurrency" => (1, 16),
        "timeout" => (1, 3600),
        "batch" => (1, 1000),
        _ => (1, 1_000_000),
    }
}

/// Reads one entry; `number` reads a whole number from 1 at a key.
pub(super) fn parse_provider(
    name: &str,
    m: &Mapping,
    string: &dyn Fn(&str) -> Result<Option<String>, super::RecipeError>,
    number: &dyn Fn(&str, u64) -> Result<u64, super::RecipeError>,
    error: &dyn Fn(&str, ProviderProblem) -> super::RecipeError,
) -> Result<ProviderSpec, super::RecipeError> {
    for key in m.keys().filter_map(Value::as_str) {
        let lower = key.to_ascii_lowercase();
        if ["api_key", "key", "token", "secret", "password"].contains(&lower.as_str()) {
            return Err(error(key, ProviderProblem::Secret));
        }
        if !KEYS.contains(&key) {
            return Err(error(key, ProviderProblem::UnknownKey));
        }
    }
    let kind = match string("kind")?.as_deref() {
        Some("pseudo") => {
            let expansion = match m.get("expansion") {
                None | Some(Value::Null) => crate::pseudo::DEFAULT_EXPANSION,
                Some(v) => match v.as_f64() {
                    Some(f) if (1.0..=3.0).contains(&f) => f as f32,
                    _ => return Err(error("expansion", ProviderProblem::Expansion)),
                },
            };
            ProviderKind::Pseudo { expansion }
        }
        Some("openai-compatible") => ProviderKind::OpenAiCompatible {
            base_url: string("base_url")?
                .ok_or_else(|| error("base_url", ProviderProblem::Missing))?,
            model: string("model")?.ok_or_else(|| error("model", ProviderProblem::Missing))?,
            api_key_env: string("api_key_env")?,
        },
        Some(other) => return Err(error("kind", ProviderProblem::Kind(other.to_owned()))),
        None => return Err(error("kind", ProviderProblem::Missing)),
    };
    let pseudo = matches!(kind, ProviderKind::Pseudo { .. });
    Ok(ProviderSpec {
        name: name.to_owned(),
        batch: number("batch", if pseudo { 50 } else { 20 })? as usize,
        concurrency: number("concurrency", if pseudo { 1 } else { 2 })? as usize,
        timeout_secs: number("timeout", 60)?,
        retries: u32::try_from(number("retries", 3)?).unwrap_or(u32::MAX),
        kind,
    })
}

/// What is wrong with a provider entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderProblem {
    Secret,
    UnknownKey,
    Missing,
    Kind(String),
    Expansion,
    /// Not a whole number from `min` to `max`.
    Number {
        min: u64,
        max: u64,
    },
}

impl ProviderProblem {
    pub fn message(&self) -> String {
        match self {
            ProviderProblem::Secret => "holds a secret; kapi.yaml is committed".into(),
            ProviderProblem::UnknownKey => {
                format!("is not a provider key (keys: {})", KEYS.join(", "))
            }
            ProviderProblem::Missing => "is required".into(),
            ProviderProblem::Kind(found) => format!("`{found}` is not a provider kind"),
            ProviderProblem::Expansion => "must be a number from 1.0 to 3.0".into(),
            ProviderProblem::Number { min, max } => {
                format!("must be a whole number from {min} to {max}")
            }
        }
    }

    pub fn hint(&self) -> String {
        match self {
            ProviderProblem::Secret => {
                "name the environment variable that holds it instead: `api_key_env: OPENAI_API_KEY`"
                    .into()
            }
            ProviderProblem::UnknownKey => "remove it, or fix its spelling".into(),
            ProviderProblem::Missing => {
                "add it: `kind: pseudo`, or `kind: openai-compatible` with `base_url` and `model`"
                    .into()
            }
            ProviderProblem::Kind(_) => "use `pseudo` or `openai-compatible`".into(),
            ProviderProblem::Expansion => "1.3 lengthens text by 30%".into(),
            ProviderProblem::Number { .. } => {
                "e.g. `batch: 20`, `retries: 3`, `concurrency: 2`, `timeout: 60`".into()
            }
        }
    }
}
