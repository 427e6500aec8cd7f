//! The `openai-compatible` provider: any server speaking the OpenAI chat-completions API
//! (hosted services, and the local servers teams run: Ollama, llama.cpp's server, vLLM).
//!
//! One request per batch: `POST {base_url}/chat/completions` with the model, temperature 0, a
//! system message (the task, the rule to keep every `<x id="…"/>` tag, and the brief for the
//! target path and language) and a user message holding a JSON object of block keys to source
//! texts; the answer's first choice must be the same object with the translations (a code
//! fence around it is taken off). A 408, a 429, a 5xx, a timeout or a refused or dropped
//! connection is transient (retried by the caller with backoff); any other failure (another
//! 4xx, an answer over 64 MiB, a URL the client cannot use) is final. The key, when there is
//! one, goes in the `Authorization` header only: never in a message, and an error text (a
//! 401 body quoting it) is scrubbed of it and of what `kapi redact` finds before it is shown.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::provider::{Answer, Batch, Provider, ProviderError};
use super::screen::scrub;

pub struct OpenAi {
    name: String,
    url: String,
    model: String,
    key: Option<String>,
    agent: ureq::Agent,
}

impl OpenAi {
    pub fn new(
        name: &str,
        base_url: &str,
        model: &str,
        key: Option<String>,
        timeout: Duration,
    ) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build();
        OpenAi {
            name: name.to_owned(),
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            model: model.to_owned(),
            key,
            agent: ureq::Agent::new_with_config(config),
        }
    }

    fn body(&self, batch: &Batch) -> Value {
        let texts: Map<String, Value> = batch
            .items
            .iter()
            .map(|item| (item.key.clone(), Value::String(item.text.clone())))
            .collect();
        let system = format!(
            "You translate a software project's strings from {src} to {tgt}.\n\
             The user message is a JSON object: each key names a string, each value is its {src} text. \
             Answer with the same JSON object, each value translated into {tgt}, and nothing else.\n\
             Keep every tag of the form <x id=\"…\"/> exactly as written, in an order that reads well in {tgt}: \
             each stands for markup or a placeholder. Keep `&lt;` and `&amp;` as written.\n\
             Follow the project's brief below: its voice, and its terms to use and to avoid in {tgt}.\n\n{brief}",
            src = batch.source_lang,
            tgt = batch.target_lang,
            brief = batch.brief,
        );
        json!({
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": Value::Object(texts).to_string()},
            ],
        })
    }
}

impl Provider for OpenAi {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn remote(&self) -> bool {
        true
    }

    fn translate(&self, batch: &Batch) -> Result<Vec<Answer>, ProviderError> {
        let mut request = self.agent.post(&self.url).content_type("application/json");
        if let Some(key) = &self.key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let wire = |e: ureq::Error| {
            let why = scrub(&format!("{}: {}", self.url, transport(&e)), self.key());
            if transient(&e) {
                ProviderError::Transient(why)
            } else {
                ProviderError::Failed(why)
            }
        };
        let mut response = request.send(self.body(batch).to_string()).map_err(wire)?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(wire)?;
        match status {
            200..=299 => answers(batch, &text).map_err(ProviderError::Failed),
            408 | 429 | 500..=599 => Err(ProviderError::Transient(format!(
                "{} answered {status}",
                self.url
            ))),
            // The body is the server's: it may quote the key it was sent.
            _ => Err(ProviderError::Failed(format!(
                "{} answered {status}: {}",
                self.url,
                scrub(&text.chars().take(200).collect::<String>(), self.key())
            ))),
        }
    }

    fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }
}

/// The most bytes an answer may hold; a larger one fails (and is not retried).
const MAX_BODY: u64 = 64 << 20;

/// What went wrong on the wire, without anything a request carried.
fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "timed out".into(),
        ureq::Error::BodyExceedsLimit(n) => {
            format!("the answer is larger than {n} bytes")
        }
        other => other.to_string(),
    }
}

/// Whether a failure on the wire may go away by itself (a timeout, a refused or dropped
/// connection, a name not resolved yet); a bad URL, a body too large, TLS or a protocol
/// error will not.
fn transient(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Timeout(_)
            | ureq::Error::Io(_)
            | ureq::Error::ConnectionFailed
            | ureq::Error::HostNotFound
    )
}

/// Each item's translation from a chat-completions answer.
fn answers(batch: &Batch, body: &str) -> Result<Vec<Answer>, String> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or("the answer has no `choices[0].message.content`")?;
    let content = content.trim();
    let content = content
        .strip_prefix("```json")
        .or_else(|| content.strip_prefix("```"))
        .and_then(|c| c.strip_suffix("```"))
        .map_or(content, str::trim);
    let object: Map<String, Value> = serde_json::from_str(content)
        .map_err(|e| format!("the model's answer is not the JSON object asked for: {e}"))?;
    Ok(batch
        .items
        .iter()
        .map(|item| match object.get(&item.key) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(_) => Err("the model's answer for it is not a string".into()),
            None => Err("the model gave no answer for it".into()),
        })
        .collect())
}
