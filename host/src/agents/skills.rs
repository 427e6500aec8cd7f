//! The assistant skill, embedded: `skills/kapi/` (SKILL.md, `references/`, the i18n registry and
//! `retired.sha256`) compiled into the binary with include_dir, so the topics `kapi help` serves
//! and the SKILL.md `kapi init` writes always match the commands this binary has.
//!
//! A topic is a reference file named by its path under `references/` without `.md` (`edit`,
//! `i18n/react`), a data file there by its full name (`i18n/frameworks.yaml`), or `skill` for
//! SKILL.md. Served text has its links between references rewritten as the `kapi help …`
//! command that serves each: `[edit](edit.md)` becomes `` `kapi help edit` ``.
//!
//! `kapi init` writes SKILL.md alone into a project's skill folders, so these topics are how an
//! assistant there reads a reference; the plugin bundle (`make plugin-bundle`) carries the
//! files themselves.

use include_dir::{Dir, File, include_dir};

static TREE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../skills/kapi");

/// The topic SKILL.md is served as.
pub const SKILL_TOPIC: &str = "skill";

/// SKILL.md as shipped.
pub fn skill_md() -> &'static str {
    text_of(
        TREE.get_file("SKILL.md")
            .expect("skills/kapi/SKILL.md is embedded"),
    )
}

/// Every embedded file (path relative to the skill directory, bytes), sorted by path: what a
/// copy of the skill holds.
pub fn files() -> Vec<(&'static str, &'static [u8])> {
    let mut out = Vec::new();
    walk(&TREE, &mut out);
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

fn walk(dir: &'static Dir<'static>, out: &mut Vec<(&'static str, &'static [u8])>) {
    for file in dir.files() {
        if let Some(path) = file.path().to_str() {
            out.push((path, file.contents()));
        }
    }
    for sub in dir.dirs() {
        walk(sub, out);
    }
}

fn text_of(file: &'static File<'static>) -> &'static str {
    file.contents_utf8().unwrap_or_default()
}

/// The order references are listed in: the task references, then `i18n` and its playbooks
/// (sorted). A reference not named here follows, sorted.
const ORDER: &[&str] = &[
    "edit",
    "create",
    "voice",
    "translate",
    "project",
    "context",
    "check",
    "growing-context",
    "toolbox",
    "i18n",
];

/// The topics, in order: `skill` first, then every reference file (`edit`, …, `i18n`,
/// `i18n/react`, …), each with a one-line about (its first heading).
pub fn topics() -> Vec<(String, String)> {
    let mut out = vec![(
        SKILL_TOPIC.to_owned(),
        "the skill: four habits an assistant keeps, in CLI and MCP form".to_owned(),
    )];
    let mut refs: Vec<(String, String)> = files()
        .into_iter()
        .filter_map(|(path, bytes)| {
            let name = topic_of_path(path)?;
            let text = std::str::from_utf8(bytes).ok()?;
            let about = about(text, !name.starts_with("i18n/"));
            Some((name, about))
        })
        .collect();
    refs.sort_by_key(|(name, _)| {
        let group = name.split('/').next().unwrap_or_default();
        let rank = ORDER
            .iter()
            .position(|o| *o == group)
            .unwrap_or(ORDER.len());
        (rank, name.clone())
    });
    out.extend(refs);
    out
}

/// A reference's topic name: `references/i18n/react.md` → `i18n/react`.
fn topic_of_path(path: &str) -> Option<String> {
    path.strip_prefix("references/")?
        .strip_suffix(".md")
        .map(str::to_owned)
}

/// The first heading's text (lowercased at its first letter when `lower`: a playbook's heading
/// starts with a proper name), or the first non-empty line.
fn about(text: &str, lower: bool) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let line = line.trim_start_matches('#').trim();
    if !lower {
        return line.to_owned();
    }
    let mut chars = line.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// One topic's text with its links rewritten as `kapi help` commands, or `None` when no topic
/// has that name.
pub fn topic(name: &str) -> Option<String> {
    let (path, text) = if name == SKILL_TOPIC {
        ("SKILL.md".to_owned(), skill_md())
    } else {
        if name.is_empty() || name.contains("..") || name.ends_with(".md") {
            return None;
        }
        // A data file beside the references is served by its own name
        // (`i18n/frameworks.yaml`); a reference without its `.md`.
        let path = if name.ends_with(".yaml") {
            format!("references/{name}")
        } else {
            format!("references/{name}.md")
        };
        let text = TREE.get_file(&path).map(text_of)?;
        (path, text)
    };
    Some(rewrite_links(&path, text))
}

/// Rewrites every Markdown link to an embedded `.md` file (relative to `path`, the file the text
/// is from) as the `kapi help` command that serves it. Other links are left as written.
pub fn rewrite_links(path: &str, text: &str) -> String {
    let base: Vec<&str> = match path.rfind('/') {
        Some(i) => path[..i].split('/').collect(),
        None => Vec::new(),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('[') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        if let Some((len, target)) = link_at(tail)
            && let Some(command) = help_command(&base, target)
        {
            out.push_str(&command);
            rest = &tail[len..];
            continue;
        }
        out.push('[');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// `[text](target)` at the start of `s`: its length and target.
fn link_at(s: &str) -> Option<(usize, &str)> {
    let close = s.find("](")?;
    if s[1..close].contains(['[', '\n']) {
        return None;
    }
    let after = &s[close + 2..];
    let end = after.find(')')?;
    let target = &after[..end];
    if target.contains([' ', '\n']) {
        return None;
    }
    Some((close + 2 + end + 1, target))
}

/// The `kapi help` command serving `target` (a link relative to the folder `base`).
fn help_command(base: &[&str], target: &str) -> Option<String> {
    if target.contains("://") || !target.ends_with(".md") {
        return None;
    }
    let mut parts: Vec<&str> = base.to_vec();
    for seg in target.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let resolved = parts.join("/");
    if resolved == "SKILL.md" {
        return Some(format!("`kapi help {SKILL_TOPIC}`"));
    }
    let name = topic_of_path(&resolved)?;
    TREE.get_file(&resolved)?;
    Some(format!("`kapi help {name}`"))
}

/// The `name` and `description` of a SKILL.md's YAML frontmatter, when it has both.
pub fn frontmatter(text: &str) -> Option<(String, String)> {
    let (yaml, _) = split_frontmatter(text)?;
    let value: serde_yaml::Value = serde_yaml::from_str(yaml).ok()?;
    let name = value.get("name")?.as_str()?.to_owned();
    let description = value.get("description")?.as_str()?.to_owned();
    Some((name, description))
}

/// A SKILL.md split into its frontmatter (without the `---` lines) and its body.
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let end = rest.find("\n---")?;
    let yaml = &rest[..end + 1];
    let after = &rest[end + 4..];
    let body = after
        .strip_prefix("\r\n")
        .or_else(|| after.strip_prefix('\n'))
        .unwrap_or(after);
    Some((yaml, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_frontmatter_names_kapi() {
        let (name, description) = frontmatter(skill_md()).expect("frontmatter");
        assert_eq!(name, "kapi");
        assert!(!description.is_empty() && description.chars().count() < 1024);
    }

    #[test]
    fn links_become_help_commands() {
        assert_eq!(
            rewrite_links("references/edit.md", "See [check](check.md)."),
            "See `kapi help check`."
        );
        assert_eq!(
            rewrite_links("references/i18n.md", "| [react](i18n/react.md) |"),
            "| `kapi help i18n/react` |"
        );
        assert_eq!(
            rewrite_links("references/i18n/vue.md", "[edit](../edit.md)"),
            "`kapi help edit`"
        );
        // Not a topic, or not a link: left as written.
        let kept = "[x](https://example.com/a.md) [y](nope.md) [z]";
        assert_eq!(rewrite_links("references/edit.md", kept), kept);
    }

    #[test]
    fn every_topic_resolves_without_md_links() {
        let topics = topics();
        assert_eq!(topics[0].0, SKILL_TOPIC);
        for name in ["edit", "create", "voice", "translate", "project", "context"] {
            assert!(topics.iter().any(|(t, _)| t == name), "{name}");
        }
        for name in [
            "check",
            "growing-context",
            "i18n",
            "i18n/react",
            "i18n/flutter",
        ] {
            assert!(topics.iter().any(|(t, _)| t == name), "{name}");
        }
        for (name, about) in &topics {
            assert!(!about.is_empty(), "{name}");
            let text = topic(name).unwrap_or_else(|| panic!("{name}"));
            assert!(!text.contains(".md)"), "{name} keeps a link");
        }
        assert!(topic("nope").is_none());
        assert!(topic("../SKILL").is_none());
        // The framework registry the i18n reference names is served too.
        let registry = topic("i18n/frameworks.yaml").expect("i18n/frameworks.yaml");
        assert!(registry.contains("frameworks:"), "{registry}");
        assert!(topic("i18n/nope.yaml").is_none());
    }

    #[test]
    fn files_hold_the_tree() {
        let files = files();
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        for want in [
            "SKILL.md",
            "retired.sha256",
            "references/edit.md",
            "references/i18n/frameworks.yaml",
        ] {
            assert!(paths.contains(&want), "{want} in {paths:?}");
        }
    }

    /// The closed list of files earlier kapis copied: `SHA256  PATH` lines, none of them a file
    /// this kapi ships (those are recognised from the tree itself).
    #[test]
    fn the_retired_list_names_only_content_no_longer_shipped() {
        use sha2::{Digest, Sha256};
        let (_, list) = files()
            .into_iter()
            .find(|(p, _)| *p == "retired.sha256")
            .expect("retired.sha256");
        let shipped: Vec<String> = files()
            .into_iter()
            .map(|(_, b)| {
                Sha256::digest(b)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect()
            })
            .collect();
        let text = std::str::from_utf8(list).expect("UTF-8");
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert!(!lines.is_empty());
        for line in lines {
            let (hash, path) = line.split_once("  ").expect(line);
            assert!(
                hash.len() == 64
                    && hash
                        .chars()
                        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
                "{line}"
            );
            assert!(path.starts_with("references/"), "{line}");
            assert!(!shipped.iter().any(|s| s == hash), "{line} is shipped");
        }
    }

    #[test]
    fn frameworks_registry_lists_every_playbook() {
        let (_, yaml) = files()
            .into_iter()
            .find(|(p, _)| *p == "references/i18n/frameworks.yaml")
            .expect("frameworks.yaml");
        let value: serde_yaml::Value =
            serde_yaml::from_slice(yaml).expect("frameworks.yaml parses");
        let frameworks = value
            .get("frameworks")
            .and_then(|f| f.as_sequence())
            .expect("a frameworks list");
        let mut listed = Vec::new();
        for fw in frameworks {
            let id = fw.get("id").and_then(|v| v.as_str()).expect("id");
            for field in ["name", "playbook", "detect", "catalogs", "kapi", "support"] {
                assert!(fw.get(field).is_some(), "{id}: {field}");
            }
            let cost = fw.get("cost").and_then(|v| v.as_str()).expect("cost");
            assert!(["low", "medium", "high"].contains(&cost), "{id}: {cost}");
            let kapi = fw.get("kapi").expect("kapi");
            for field in ["path", "format"] {
                assert!(kapi.get(field).is_some(), "{id}: kapi.{field}");
            }
            let playbook = fw.get("playbook").and_then(|v| v.as_str()).expect("path");
            let path = format!("references/{playbook}");
            assert!(TREE.get_file(&path).is_some(), "{id}: {path} missing");
            listed.push(path);
        }
        let playbooks: Vec<&str> = files()
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| p.starts_with("references/i18n/") && p.ends_with(".md"))
            .collect();
        for p in &playbooks {
            assert!(listed.iter().any(|l| l == p), "{p} not in frameworks.yaml");
        }
        for want in [
            "react", "vue", "angular", "rails", "django", "android", "ios", "flutter",
        ] {
            assert!(
                listed.contains(&format!("references/i18n/{want}.md")),
                "{want}"
            );
        }
    }
}
