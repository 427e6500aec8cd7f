//! The MCP tool sets, in one table: which tools each set serves. `kapi mcp --tools SET,…`
//! chooses sets (default `writing`); `--all-tools` adds the listing helpers; `--all` serves
//! every set and the helpers. The server registers every tool, then removes each one no
//! selected set lists, so the table is the only place a tool's exposure is decided.

use std::collections::BTreeSet;

/// Each set and its tools. `writing` also serves the `context://` resource templates.
pub const SETS: &[(&str, &[&str])] = &[
    (
        "writing",
        &[
            "context_read",
            "context_search",
            "context_note",
            "context_session_summary",
            "check_file",
            "read_blocks",
            "apply_edits",
            "describe_format",
        ],
    ),
    (
        "content",
        &[
            "check_text",
            "voice_check",
            "voice_rewrite",
            "term-check",
            "detect_format",
            "redact",
        ],
    ),
    ("review", &["review_queue", "review_block", "apply_edits"]),
    ("translation", &["stats", "up_plan", "translate", "up"]),
];

/// The listing helpers `--all-tools` (and `--all`) add, and `pseudo_translate`.
pub const HELPERS: &[&str] = &[
    "list_formats",
    "list_profiles",
    "list_collections",
    "pseudo_translate",
];

/// The sets a server serves and the tools that makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub sets: Vec<&'static str>,
    pub tools: BTreeSet<&'static str>,
    /// Whether the `context://` resource templates are served (the `writing` set).
    pub resources: bool,
}

/// The valid set names, for messages.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&str> = SETS.iter().map(|(n, _)| *n).collect();
    names.push("all");
    names
}

/// Resolves `--tools`, `--all-tools` and `--all`; an unknown set is an error listing the
/// valid ones.
pub fn select(tools: Option<&str>, all_tools: bool, all: bool) -> Result<Selection, String> {
    let mut sets: Vec<&'static str> = Vec::new();
    if all {
        sets = SETS.iter().map(|(n, _)| *n).collect();
    } else {
        let wanted = tools.unwrap_or("writing");
        for name in wanted.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                for (n, _) in SETS {
                    if !sets.contains(n) {
                        sets.push(n);
                    }
                }
                continue;
            }
            match SETS.iter().find(|(n, _)| *n == name) {
                Some((n, _)) => {
                    if !sets.contains(n) {
                        sets.push(n);
                    }
                }
                None => {
                    return Err(format!(
                        "unknown tool set `{name}`; valid sets: {}",
                        names().join(", ")
                    ));
                }
            }
        }
        if sets.is_empty() {
            return Err(format!(
                "no tool set named; valid sets: {}",
                names().join(", ")
            ));
        }
    }
    let mut selected: BTreeSet<&'static str> = BTreeSet::new();
    for (name, tools) in SETS {
        if sets.contains(name) {
            selected.extend(tools.iter().copied());
        }
    }
    if all || all_tools {
        selected.extend(HELPERS.iter().copied());
    }
    Ok(Selection {
        resources: sets.contains(&"writing"),
        sets,
        tools: selected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_a_person_decides_and_nothing_that_runs_code_is_served() {
        let all = select(None, true, true).unwrap();
        for tool in &all.tools {
            for word in [
                "keep", "drop", "widen", "reset", "sync", "exec", "eval", "shell", "run", "script",
                "hook",
            ] {
                assert!(!tool.contains(word), "`{tool}` must not be an MCP tool");
            }
        }
        // Each tool's job is named once: no two sets disagree, and helpers are not set tools.
        for helper in HELPERS {
            assert!(SETS.iter().all(|(_, tools)| !tools.contains(helper)));
        }
    }

    #[test]
    fn sets_resolve_and_unknown_ones_list_the_valid() {
        let w = select(None, false, false).unwrap();
        assert_eq!(w.sets, ["writing"]);
        assert!(
            w.resources && w.tools.contains("apply_edits") && !w.tools.contains("list_formats")
        );
        let two = select(Some("content,review"), true, false).unwrap();
        assert!(two.tools.contains("term-check") && two.tools.contains("review_block"));
        assert!(two.tools.contains("list_profiles") && !two.resources);
        let all = select(None, false, true).unwrap();
        assert_eq!(all.sets.len(), SETS.len());
        let e = select(Some("writing,nope"), false, false).unwrap_err();
        assert!(e.contains("nope") && e.contains("translation"), "{e}");
    }
}
