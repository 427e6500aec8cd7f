//! `translation.unchanged`: a translation that is its source's text, reported only where the
//! recipe turns the rule on (`rules: {translation.unchanged: {enable: true, allow: […]}}`).
//!
//! Choices: off by default, because a target equal to its source is often right (`Port`,
//! `URL`, `OPML`, a French `Attention`) and is never stale for that alone. Equal means the
//! same text as agents read it, codes included, after trimming; a source with no letters
//! (`%d`, `—`, `42`) is never reported. The allowed list lives in the recipe beside the
//! switch (`allow:`), compared whole and case-sensitively with the trimmed source text.

use super::rule::declare_rule;
use crate::governance::Severity;
use crate::model::Edition;

declare_rule! {
    /// ## What it flags
    /// A translation whose text is its source's, unchanged. Off by default: turn it on in
    /// `kapi.yaml` with `rules: {translation.unchanged: {enable: true}}`, and list what may
    /// stay the same with `allow: [URL, OPML, Port]`.
    ///
    /// ## Why it matters
    /// A copy of the source is often a string nobody translated (a tool or a merge copied
    /// it). kapi never calls it stale for that, since `URL` or a French `Attention` is a
    /// correct translation; this rule is the opt-in review of such copies.
    ///
    /// ## Example
    /// Source `Save changes`, French `Save changes`.
    /// Use instead: `Enregistrer les modifications` (or add the string to `allow:` when it
    /// is right as it is).
    pub UNCHANGED = "translation.unchanged", Severity::Minor
}

/// Whether `target` is `source`'s text unchanged, and the source is not on `allow`.
pub fn reported(source: &Edition, target: &Edition, allow: &[String]) -> bool {
    let source = crate::projection::render(&source.runs).0;
    let target = crate::projection::render(&target.runs).0;
    let text = source.trim();
    text.chars().any(char::is_alphabetic)
        && text == target.trim()
        && !allow.iter().any(|a| a.trim() == text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Run;

    fn e(text: &str) -> Edition {
        Edition::new(vec![Run::text(text)])
    }

    #[test]
    fn a_copy_is_reported_unless_allowed_or_wordless() {
        assert!(reported(&e("Save"), &e("Save"), &[]));
        assert!(!reported(&e("Save"), &e("Enregistrer"), &[]));
        assert!(!reported(&e("URL"), &e("URL"), &["URL".into()]));
        assert!(!reported(&e("42"), &e("42"), &[]));
    }
}
