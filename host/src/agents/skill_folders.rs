//! The skill folders kapi keeps in a project (`.claude/skills/kapi`, `.agents/skills/kapi`,
//! KKSS's): SKILL.md as shipped (KKSS's with its own header), earlier copies removed by content.

use std::collections::BTreeSet;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::host_files::{Plan, check_path};
use super::mcp_entries::SERVER;
use super::{HostWiring, WiringInput};

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The KKSS copy of SKILL.md: the header KKSS reads (`name`, a one-line `description`), then the
/// body as shipped.
pub fn kkss_skill(skill: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(skill).map_err(|_| "SKILL.md is not UTF-8".to_owned())?;
    let (front, body) = split_frontmatter(text).ok_or("SKILL.md has no `---` frontmatter")?;
    let field = |key: &str| {
        front.lines().find_map(|l| {
            l.strip_prefix(key)
                .and_then(|r| r.strip_prefix(':'))
                .map(str::trim)
        })
    };
    let description = field("description").ok_or("SKILL.md has no `description:`")?;
    if description.is_empty() || description.starts_with('>') || description.starts_with('|') {
        return Err("SKILL.md's description is not on one line, as KKSS requires".into());
    }
    Ok(format!("---\nname: {SERVER}\ndescription: {description}\n---\n{body}").into_bytes())
}

/// The frontmatter (without its fences) and the body after it.
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// Keeps a skill folder holding what this binary ships.
pub(super) fn skill_dir(
    root: &Path,
    dir: &str,
    kkss: bool,
    input: &WiringInput,
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    check_path(root, dir)?;
    let mut shipped: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, bytes) in &input.skill_files {
        let bytes = if kkss && name == "SKILL.md" {
            kkss_skill(bytes)?
        } else {
            bytes.clone()
        };
        let rel = format!("{dir}/{name}");
        check_path(root, &rel)?;
        shipped.push((rel, bytes));
    }
    let known: BTreeSet<String> = input
        .skill_files
        .iter()
        .chain(&input.served)
        .map(|(_, b)| sha256_hex(b))
        .chain(shipped.iter().map(|(_, b)| sha256_hex(b)))
        .chain(input.retired.iter().map(|s| s.to_ascii_lowercase()))
        .collect();
    let names: BTreeSet<&str> = shipped.iter().map(|(r, _)| r.as_str()).collect();
    let mut present = Vec::new();
    list_files(&root.join(dir), dir, &mut present)?;
    for rel in present {
        if names.contains(rel.as_str()) {
            continue;
        }
        let bytes = std::fs::read(root.join(&rel)).map_err(|e| format!("{rel}: {e}"))?;
        if known.contains(&sha256_hex(&bytes)) {
            plan.removes.push(rel);
            continue;
        }
        // A served file's name with other content: an earlier kapi's copy someone changed.
        let name = rel
            .strip_prefix(dir)
            .unwrap_or(&rel)
            .trim_start_matches('/');
        if input.served.iter().any(|(n, _)| n == name) {
            let topic = name.strip_prefix("references/").unwrap_or(name);
            let topic = topic.strip_suffix(".md").unwrap_or(topic);
            wiring.warnings.push(format!(
                "{rel}: an earlier kapi copied this reference here and it was changed since, so kapi leaves it; `kapi help {topic}` prints the current one: delete the file once you no longer need your changes"
            ));
        }
        wiring.foreign.push(rel);
    }
    plan.writes.extend(shipped);
    Ok(())
}

/// Every file under `path` (relative names joined to `rel`), refusing symlinks.
fn list_files(path: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{rel}: {e}")),
    };
    let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
    names.sort_by_key(std::fs::DirEntry::file_name);
    for entry in names {
        let name = format!("{rel}/{}", entry.file_name().to_string_lossy());
        let kind = entry.file_type().map_err(|e| format!("{name}: {e}"))?;
        if kind.is_dir() {
            list_files(&entry.path(), &name, out)?;
        } else {
            // A symlink is not kapi's copy: named, never followed or removed.
            out.push(name);
        }
    }
    Ok(())
}
