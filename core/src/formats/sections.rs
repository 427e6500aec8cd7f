//! Positional block keys by section, for the docs-as-code formats whose titles cut a file into
//! sections (reStructuredText, AsciiDoc): `top/p` before the first title, `s3/h` for the third
//! title, `s3/p#2` for its section's second paragraph, each with a readable label
//! (`install/p#2`) from the title's words.
//!
//! Keys come from no text, so an edit of a block or of a title keeps every key; a title
//! added or removed shifts the sections after it. Markdown's reader keeps its own copy of this
//! scheme over its event stream (`markdown::Blocks::key`), with the same keys and labels.
use std::fmt::Write as _;

use rustc_hash::FxHashMap;

/// The longest section name a label takes from a title's words, in bytes: a label repeats it
/// in every block of the section, so a title of a megabyte must not cost a megabyte per block.
const MAX_SLUG: usize = 64;

/// The keys of one file's blocks, in reading order.
#[derive(Debug, Default)]
pub struct Sections {
    /// Titles seen so far: the current section's number.
    titles: usize,
    /// The current section's readable name (its title's slug).
    slug: String,
    /// Blocks of each kind in the current section.
    counts: FxHashMap<&'static str, u32>,
    /// Labels given so far, across the file, for numbering repeats.
    labels: FxHashMap<String, u32>,
}

impl Sections {
    /// Starts the next section, named from its title's `words`. Every title starts one,
    /// even one with no words, so an edit that empties a title moves no other key.
    pub fn title(&mut self, words: &str) {
        if self.titles == 0 {
            // Blocks before the first title were labelled by their keys: a later section
            // slugged `top` numbers its labels after them.
            for (kind, &count) in &self.counts {
                self.labels.insert(format!("top/{kind}"), count);
            }
        }
        self.titles += 1;
        self.counts.clear();
        self.slug = slug(words);
        if self.slug.is_empty() {
            self.slug.push_str("section");
        }
    }

    /// The key of the next block of `kind` in the current section (`s3/p#2`), and its label
    /// under a title (`install/p#2`).
    pub fn key(&mut self, kind: &'static str) -> (String, Option<Box<str>>) {
        let count = self.counts.entry(kind).or_insert(0);
        *count += 1;
        let count = *count;
        let mut key = String::with_capacity(16);
        if self.titles == 0 {
            key.push_str("top");
        } else {
            let _ = write!(key, "s{}", self.titles);
        }
        key.push('/');
        key.push_str(kind);
        if count > 1 {
            let _ = write!(key, "#{count}");
        }
        if self.titles == 0 {
            return (key, None);
        }
        let mut label = format!("{}/{kind}", self.slug);
        match self.labels.get_mut(&label) {
            Some(seen) => {
                *seen += 1;
                let _ = write!(label, "#{seen}");
            }
            None => {
                self.labels.insert(label.clone(), 1);
            }
        }
        (key, Some(label.into_boxed_str()))
    }
}

/// A title's section name: lowercase letters and digits, anything else one `-`, at most
/// `MAX_SLUG` (64) bytes.
pub fn slug(words: &str) -> String {
    let mut slug = String::with_capacity(words.len().min(MAX_SLUG));
    for c in words.chars() {
        if slug.len() >= MAX_SLUG {
            break;
        }
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_count_per_section_and_labels_per_title() {
        let mut s = Sections::default();
        assert_eq!(s.key("p"), ("top/p".into(), None));
        s.title("Install it!");
        assert_eq!(s.key("h").0, "s1/h");
        assert_eq!(s.key("p"), ("s1/p".into(), Some("install-it/p".into())));
        assert_eq!(s.key("p"), ("s1/p#2".into(), Some("install-it/p#2".into())));
        s.title("Install it");
        assert_eq!(s.key("p"), ("s2/p".into(), Some("install-it/p#3".into())));
        s.title("");
        assert_eq!(s.key("li").1.as_deref(), Some("section/li"));
        assert!(slug(&"word ".repeat(1000)).len() <= MAX_SLUG + 4);
    }
}
