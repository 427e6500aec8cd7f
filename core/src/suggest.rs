//! Names for people: the closest of the valid names to one mistyped ("did you mean"), and a
//! slug (`my-docs-2`) made from free text, for ids, project names and hints.
//!
//! One threshold for every "did you mean": a candidate within an edit distance of a third of
//! the word's length (at least 2), so `prohibited_pattern` finds `prohibited_patterns` and
//! `zzz` finds nothing.

/// The candidate closest to `word` by edit distance, when it is within a third of the word's
/// length (at least 2); the first of the closest on a tie.
pub fn closest<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let candidate = candidate.as_ref();
        let d = distance(word, candidate);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The candidate a mistyped key most likely means: [`closest`], else [`by_words`].
pub fn closest_key<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<&'a str> {
    closest(word, candidates).or_else(|| by_words(word, candidates))
}

/// The first candidate of which `word` is one `_`- or `-`-separated word or run of words
/// (`languages` in `target_languages`; `min_score` is its own run), else the first that is
/// one such run of `word`'s (`fail_on` in `fail_on_severity`). Case is ignored; a run of one
/// letter never matches.
pub fn by_words<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<&'a str> {
    let words = |s: &str| -> Vec<String> {
        s.split(['_', '-'])
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let contains = |outer: &[String], inner: &[String]| {
        !inner.is_empty()
            && inner.iter().map(String::len).sum::<usize>() > 1
            && outer.windows(inner.len()).any(|w| w == inner)
    };
    let key = words(word);
    let mut candidates = candidates.iter().map(AsRef::as_ref);
    candidates
        .clone()
        .find(|c| contains(&words(c), &key))
        .or_else(|| candidates.find(|c| contains(&key, &words(c))))
}

/// The Levenshtein distance between `a` and `b`, in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            row[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

/// A slug of `text`: its ASCII letters and digits lower-cased, every other run of characters
/// one `-`, none at either end; empty when `text` has no ASCII letter or digit (the caller
/// names its own fallback).
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let kept = out.trim_end_matches('-').len();
    out.truncate(kept);
    out
}

/// Whether `s` is a slug as ids are written: `^[a-z0-9][a-z0-9-]*$`.
pub fn is_slug(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit() => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_is_suggested_only_when_close() {
        let fields = ["prohibited_patterns", "preferred_terms", "tone"];
        assert_eq!(
            closest("prohibited_pattern", &fields),
            Some("prohibited_patterns")
        );
        assert_eq!(closest("tnoe", &fields), Some("tone"));
        assert_eq!(closest("zzz", &fields), None);
        assert_eq!(closest("x", &[] as &[&str]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("été", "ete"), 2);
    }

    #[test]
    fn a_key_is_matched_by_its_words_when_no_spelling_is_close() {
        let keys = ["source_language", "target_languages", "voice", "exclude"];
        assert_eq!(closest_key("languages", &keys), Some("target_languages"));
        assert_eq!(
            closest_key("target_langauges", &keys),
            Some("target_languages")
        );
        assert_eq!(closest_key("language", &keys), Some("source_language"));
        assert_eq!(closest_key("voice_file", &keys), Some("voice"));
        assert_eq!(closest_key("colour", &keys), None);
        assert_eq!(closest_key("", &keys), None);
        assert_eq!(
            closest_key("tone_of_voice_x", &["x"]),
            None,
            "one-letter words"
        );
        assert_eq!(
            by_words("min_score", &["gates", "min_score"]),
            Some("min_score")
        );
        assert_eq!(
            by_words("minscore", &["min_score"]),
            None,
            "spelling is `closest`'s"
        );
    }

    #[test]
    fn a_slug_keeps_ascii_letters_and_digits() {
        for (text, want) in [
            ("My Docs_2", "my-docs-2"),
            ("  Install / Setup  ", "install-setup"),
            ("***", ""),
            ("Café au lait", "caf-au-lait"),
            ("--a--b--", "a-b"),
        ] {
            assert_eq!(slug(text), want, "{text}");
            assert!(want.is_empty() || is_slug(&slug(text)), "{text}");
        }
        assert!(is_slug("a-1"));
        assert!(!is_slug("-a"));
        assert!(!is_slug("A"));
        assert!(!is_slug(""));
    }
}
