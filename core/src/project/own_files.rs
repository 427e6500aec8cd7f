//! kapi's own rules files: an `AGENTS.md` or `CLAUDE.md` that holds nothing but kapi's section
//! (between `<!-- kapi:rules -->` and `<!-- /kapi:rules -->`), or a `CLAUDE.md` that holds
//! nothing but the import of its `AGENTS.md` (`@AGENTS.md`), is kapi's, never content.
//!
//! Such a file is not declared by any collection, so it is not checked, counted or listed
//! (`kapi check`, `kapi stats`, `kapi cat`, `kapi grep`, `kapi context collections`, `kapi up`)
//! even where a collection's glob covers it. A file that holds a person's text around the
//! section is the person's content (the Markdown reader still skips kapi's section in it).
//!
//! The test is by content, not by kapi's record of the files it created (machine state under
//! `.kapi/work/`, git-ignored): a teammate's clone sees the same files as kapi's. Blank lines
//! around the section, a byte-order mark and CRLF line endings are still kapi's file; a
//! second section, a stray marker or any other text makes it the person's.

use std::io::Read;
use std::path::Path;

/// The line that opens kapi's section.
pub const START_MARKER: &str = "<!-- kapi:rules -->";
/// The line that closes kapi's section.
pub const END_MARKER: &str = "<!-- /kapi:rules -->";
/// The file names kapi writes its rules into.
pub const RULES_FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];
/// What a `CLAUDE.md` kapi creates beside an `AGENTS.md` that holds the section says.
pub const CLAUDE_IMPORT: &str = "@AGENTS.md";
/// A file longer than this is never kapi's own: kapi's sections are a few dozen lines.
const MAX_OWN_LEN: u64 = 256 * 1024;

/// Whether a file name (the last path component) is one kapi writes its rules into.
pub fn is_rules_file_name(name: &str) -> bool {
    RULES_FILE_NAMES.contains(&name)
}

/// Whether `text` holds kapi's one section and nothing else but blank lines.
pub fn holds_only_section(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // 0: before the section, 1: inside it, 2: after it.
    let mut state = 0u8;
    for line in text.lines() {
        match (line.trim(), state) {
            (START_MARKER, 0) => state = 1,
            (END_MARKER, 1) => state = 2,
            (START_MARKER | END_MARKER, _) => return false,
            (other, 0 | 2) if !other.is_empty() => return false,
            _ => {}
        }
    }
    state == 2
}

/// Whether the file at `path` is kapi's own rules file: named `AGENTS.md` or `CLAUDE.md`, and
/// holding only kapi's section ([`holds_only_section`]). A file that cannot be read, is not
/// UTF-8 or is larger than any section kapi writes is not kapi's.
pub fn is_kapis_own(path: &Path) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_rules_file_name);
    if !named {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    if file.take(MAX_OWN_LEN + 1).read_to_end(&mut bytes).is_err()
        || bytes.len() as u64 > MAX_OWN_LEN
    {
        return false;
    }
    let claude = path.file_name().is_some_and(|n| n == "CLAUDE.md");
    std::str::from_utf8(&bytes)
        .is_ok_and(|text| holds_only_section(text) || (claude && only_the_import(text)))
}

/// Whether `text` is the import of `AGENTS.md` alone ([`CLAUDE_IMPORT`], or `@./AGENTS.md`),
/// blank lines and a byte-order mark aside.
pub fn only_the_import(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    matches!(text.trim(), CLAUDE_IMPORT | "@./AGENTS.md")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: &str = "<!-- kapi:rules -->\n## Rules (kapi)\n- One.\n<!-- /kapi:rules -->\n";

    #[test]
    fn a_claude_md_that_is_the_import_alone_is_kapis() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("CLAUDE.md");
        std::fs::write(&claude, "@AGENTS.md\n").unwrap();
        assert!(is_kapis_own(&claude));
        std::fs::write(&claude, "@AGENTS.md\n\nAlso: run the tests.\n").unwrap();
        assert!(!is_kapis_own(&claude), "a person's text beside it");
        let agents = dir.path().join("AGENTS.md");
        std::fs::write(&agents, "@AGENTS.md\n").unwrap();
        assert!(!is_kapis_own(&agents), "only CLAUDE.md imports");
    }

    #[test]
    fn only_the_section_and_blank_lines_is_kapis() {
        assert!(holds_only_section(SECTION));
        assert!(holds_only_section(&format!("\n\n{SECTION}\n")));
        assert!(holds_only_section(&SECTION.replace('\n', "\r\n")));
        assert!(holds_only_section(&format!("\u{feff}{SECTION}")));
        assert!(holds_only_section(
            "  <!-- kapi:rules -->  \n<!-- /kapi:rules -->"
        ));
    }

    #[test]
    fn any_other_text_makes_it_the_persons() {
        for text in [
            "",
            "\n",
            "# Ours\n",
            &format!("# Ours\n\n{SECTION}"),
            &format!("{SECTION}More.\n"),
            &format!("{SECTION}{SECTION}"),
            "<!-- kapi:rules -->\nhalf\n",
            "<!-- /kapi:rules -->\n",
            "<!-- /kapi:rules -->\n<!-- kapi:rules -->\n",
            "<!-- kapi:rules -->\n<!-- kapi:rules -->\n<!-- /kapi:rules -->\n",
        ] {
            assert!(!holds_only_section(text), "{text:?}");
        }
    }

    #[test]
    fn a_file_is_kapis_by_its_name_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert!(is_kapis_own(&write("AGENTS.md", SECTION.as_bytes())));
        assert!(is_kapis_own(&write("CLAUDE.md", SECTION.as_bytes())));
        assert!(!is_kapis_own(&write("README.md", SECTION.as_bytes())));
        assert!(!is_kapis_own(&write("AGENTS.md", b"# Ours\n")));
        let mut bad = SECTION.as_bytes().to_vec();
        bad.extend_from_slice(b"\xff\n");
        assert!(!is_kapis_own(&write("AGENTS.md", &bad)));
        let long = format!(
            "<!-- kapi:rules -->\n{}<!-- /kapi:rules -->\n",
            "- x\n".repeat(70_000)
        );
        assert!(!is_kapis_own(&write("AGENTS.md", long.as_bytes())));
        assert!(!is_kapis_own(&dir.path().join("missing/AGENTS.md")));
        assert!(!is_kapis_own(dir.path()));
    }
}
