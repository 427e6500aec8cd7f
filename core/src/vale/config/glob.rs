//! A section's glob, compiled the way Vale's `internal/glob` matches it (see the module doc).

use globset::{GlobBuilder, GlobMatcher};

/// The longest pattern kapi compiles: a bound on hostile input, far above any real section.
pub(crate) const MAX_PATTERN_BYTES: usize = 1024;

/// A compiled section pattern.
#[derive(Debug, Clone)]
pub(crate) struct SectionGlob {
    matcher: GlobMatcher,
    negated: bool,
}

impl SectionGlob {
    /// Compiles `pattern`; the error is the reason, for a `ConfigError`.
    pub(crate) fn compile(pattern: &str) -> Result<SectionGlob, String> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "longer than {MAX_PATTERN_BYTES} bytes ({} bytes)",
                pattern.len()
            ));
        }
        // Vale's `NewGlob` strips every leading `!` and negates once.
        let (body, negated) = match pattern.strip_prefix('!') {
            Some(_) => (pattern.trim_start_matches('!'), true),
            None => (pattern, false),
        };
        // With `**`, doublestar: `*` stays within a folder. Without, gobwas with no separators:
        // `*` matches `/` too.
        let doublestar = body.contains("**");
        let glob = GlobBuilder::new(body)
            .literal_separator(doublestar)
            .backslash_escape(true)
            .build()
            .map_err(|e| e.kind().to_string())?;
        Ok(SectionGlob {
            matcher: glob.compile_matcher(),
            negated,
        })
    }

    /// Whether `path` (relative, `/`-separated) matches.
    pub(crate) fn matches(&self, path: &str) -> bool {
        self.matcher.is_match(path) != self.negated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        SectionGlob::compile(pattern)
            .expect("pattern compiles")
            .matches(path)
    }

    #[test]
    fn a_star_without_double_star_crosses_folders_as_gobwas() {
        assert!(m("*", "a.md"));
        assert!(m("*", "docs/a.md"));
        assert!(m("*.md", "docs/deep/a.md"));
        assert!(!m("*.md", "a.txt"));
        assert!(m("docs/*.md", "docs/deep/a.md"));
    }

    #[test]
    fn with_double_star_a_star_stays_in_its_folder() {
        assert!(m("docs/**/*.md", "docs/a.md"));
        assert!(m("docs/**/*.md", "docs/x/y/a.md"));
        assert!(!m("docs/**/*.md", "other/a.md"));
        assert!(!m("docs/**/a*.md", "docs/x/b/c.md"));
        assert!(m("**/*.md", "a/b/c.md"));
    }

    #[test]
    fn alternatives_classes_and_negation() {
        assert!(m("*.{md,txt}", "a.txt"));
        assert!(m("*.{md,txt}", "a.md"));
        assert!(!m("*.{md,txt}", "a.rst"));
        assert!(m("[ab].md", "a.md"));
        assert!(!m("[ab].md", "c.md"));
        assert!(m("[!ab].md", "c.md"));
        assert!(m("?.md", "x.md"));
        assert!(!m("!*.md", "a.md"));
        assert!(m("!*.md", "a.txt"));
    }

    /// Vale's own cases (`internal/glob/glob_test.go`).
    #[test]
    fn vales_glob_cases() {
        let cases: &[(&str, &[(&str, bool)])] = &[
            (
                "docs/**",
                &[
                    ("docs/a.md", true),
                    ("docs/info/b.py", true),
                    ("info/c.cc", false),
                ],
            ),
            (
                "!docs/**",
                &[
                    ("docs/a.md", false),
                    ("docs/info/b.py", false),
                    ("info/c.cc", true),
                ],
            ),
            (
                "!**/*.min.js",
                &[("a/b/c/foo.py", true), ("a/b/c/foo.min.js", false)],
            ),
            (
                "docs/**/*.md",
                &[
                    ("docs/a.md", true),
                    ("docs/info/b.md", true),
                    ("docs/c.cc", false),
                ],
            ),
            (
                "{documentation,website}/content/{ja,zh-tw}/**/*.adoc",
                &[
                    ("website/content/zh-tw/where.adoc", true),
                    ("documentation/content/ja/articles/test.adoc", true),
                ],
            ),
        ];
        for (pattern, paths) in cases {
            for (path, expected) in *paths {
                assert_eq!(m(pattern, path), *expected, "{pattern} -> {path}");
            }
        }
    }

    #[test]
    fn hostile_patterns_are_refused_or_bounded() {
        let nested = format!("{}a{}", "{".repeat(200), "}".repeat(200));
        assert!(SectionGlob::compile(&nested).is_err());
        let long = "*".repeat(MAX_PATTERN_BYTES + 1);
        assert!(SectionGlob::compile(&long).is_err());
        let deep = "**/".repeat(300) + "*.md";
        let glob = SectionGlob::compile(&deep).expect("deep globs compile");
        let path = "a/".repeat(2000) + "b.md";
        assert!(glob.matches(&path));
        assert!(SectionGlob::compile("[ab").is_err());
    }
}
