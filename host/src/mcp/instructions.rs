//! The text `initialize` carries to every client (design: "The MCP server introduces itself"):
//! about 140 words stating the habits, naming only the tools the server serves.

use std::collections::BTreeSet;

/// The most words the instructions may hold.
pub const WORD_BUDGET: usize = 160;

/// The instructions for a server serving `tools`.
pub fn text(tools: &BTreeSet<&str>) -> String {
    let has = |t: &str| tools.contains(t);
    let mut parts: Vec<String> = vec![
        "kapi holds this project's own context: its terms, voice and rules.".into(),
        "Follow the rules in kapi's section of AGENTS.md and CLAUDE.md while you write.".into(),
    ];
    if has("context_read") {
        parts.push("Call context_read only for a file no section covers, or for the full answer; it also names the old names that stay correct there.".into());
    }
    if has("context_note") {
        parts.push("With context_note, record what the files do every time (names as written, the spelling variety, a word chosen over a common alternative) with the path it was seen in, since a note applies only there; leave alone a word they write two ways.".into());
        parts.push("Record the person's changes with context_note too (from, to, path), and take back a mistake with its withdraw field.".into());
    }
    if has("read_blocks") && has("apply_edits") {
        parts.push(
            "Edit content with read_blocks, then apply_edits with each block's ref and rev.".into(),
        );
    }
    if has("check_file") {
        parts.push("Run check_file on each file you changed.".into());
    }
    if has("context_session_summary") {
        parts.push("After a note, end with context_session_summary.".into());
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::sets;

    #[test]
    fn the_writing_set_instructions_stay_in_budget_and_name_served_tools_only() {
        let w = sets::select(None, false, false).unwrap();
        let text = text(&w.tools);
        let words = text.split_whitespace().count();
        assert!(
            (100..=WORD_BUDGET).contains(&words),
            "{words} words: {text}"
        );
        for tool in [
            "context_read",
            "context_note",
            "check_file",
            "context_session_summary",
        ] {
            assert!(text.contains(tool), "{tool}");
        }
        let content = sets::select(Some("content"), false, false).unwrap();
        let other = super::text(&content.tools);
        for tool in ["context_read", "context_note", "check_file", "apply_edits"] {
            assert!(!other.contains(tool), "{tool} is not served: {other}");
        }
    }
}
