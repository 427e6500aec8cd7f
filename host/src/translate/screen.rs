//! What a remote provider's answer must not carry, and what a provider's error must not show:
//! an answer is refused before it reaches the change service when it holds a secret (the
//! provider's own key, or anything `kapi redact` detects) or a control or bidi character its
//! source does not hold; an error text is scrubbed of the key and of what `kapi redact` finds.
//!
//! Choices where the issue is silent: a find the source holds as well (an email address the
//! string names, a tab it carries) is the string's own and lands; tab, line feed and carriage
//! return are the only control characters a source may lend its answer; the bidi controls
//! refused are the embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), the
//! ones that reorder what a reader sees (Trojan Source), while the marks (U+200E, U+200F,
//! U+061C) that right-to-left text uses are text. The offline `pseudo` provider is kapi's own
//! (its `ar-XB` form wraps text in U+202E by design) and is not screened.

use crate::services::redact::redact;

/// Why `answer` (a translation of `source`) is refused, if it is. `key` is the provider's
/// key, when it has one.
pub fn refusal(source: &str, answer: &str, key: Option<&str>) -> Option<String> {
    if let Some(key) = key.filter(|k| !k.trim().is_empty())
        && answer.contains(key)
    {
        return Some("the answer holds the provider's own key: refused, and never written".into());
    }
    for c in answer.chars() {
        if source.contains(c) {
            continue;
        }
        if c.is_control() {
            return Some(format!(
                "the answer holds the control character U+{:04X}, which the source does not: refused",
                u32::from(c)
            ));
        }
        if is_bidi_control(c) {
            return Some(format!(
                "the answer holds the bidi control U+{:04X} (it reorders what a reader sees), which the source does not: refused",
                u32::from(c)
            ));
        }
    }
    let found = redact(answer);
    for r in &found.redactions {
        let Some(text) = answer.get(r.start..r.end) else {
            continue;
        };
        if !source.contains(text) {
            return Some(format!(
                "the answer holds a {} the source does not (as `kapi redact` reads it): refused, and never written",
                r.kind
            ));
        }
    }
    None
}

/// An embedding, override or isolate: U+202A-U+202E, U+2066-U+2069.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` (an error a provider or the wire gave) with the key and every find of
/// `kapi redact` masked.
pub fn scrub(text: &str, key: Option<&str>) -> String {
    let text = match key.filter(|k| !k.trim().is_empty()) {
        Some(key) => text.replace(key, "[redacted:provider_key]"),
        None => text.to_owned(),
    };
    redact(&text).text
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "k3y-0f-the-pr0vider";

    #[test]
    fn an_answer_with_a_secret_or_a_control_is_refused() {
        let ok = |s: &str, a: &str| refusal(s, a, Some(KEY));
        assert_eq!(ok("Save {0}", "Enregistrer {0}"), None);
        assert!(ok("Save", &format!("Enregistrer {KEY}")).is_some_and(|m| m.contains("key")));
        assert!(
            ok("Save", "Enregistrer sk-proj-A1b2C3d4E5f6G7h8I9j0K")
                .is_some_and(|m| m.contains("secret_key"))
        );
        // A find the source holds is the string's own.
        assert_eq!(
            ok("Write to help@example.com", "Écrivez à help@example.com"),
            None
        );
        assert!(ok("Write to us", "Écrivez à evil@example.com").is_some());
        assert!(ok("Save", "Enregistrer\u{202E}txt.exe").is_some_and(|m| m.contains("U+202E")));
        assert!(ok("Save", "Enr\u{2066}egistrer").is_some());
        assert!(ok("Save", "Enre\u{0007}gistrer").is_some_and(|m| m.contains("U+0007")));
        assert!(ok("Save", "Enre\ngistrer").is_some());
        assert_eq!(ok("Line\none", "Ligne\nune"), None);
        // Right-to-left marks are text.
        assert_eq!(ok("Save", "حفظ\u{200F}"), None);
        assert_eq!(refusal("Save", "Enregistrer", Some("")), None);
    }

    #[test]
    fn an_error_text_is_scrubbed() {
        let body = format!("{{\"error\": \"invalid key {KEY}; mail admin@corp.example\"}}");
        let clean = scrub(&body, Some(KEY));
        assert!(
            !clean.contains(KEY) && !clean.contains("admin@corp.example"),
            "{clean}"
        );
        assert!(clean.contains("[redacted:provider_key]"), "{clean}");
    }
}
