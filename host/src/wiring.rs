//! `kapi init` wires agent hosts up: per host, the MCP entry that starts `kapi mcp` for this
//! project, the skill's SKILL.md and, where the host runs them, the assistant hooks that call
//! `kapi hook pre-edit|post-edit|stop --host <host>` (Claude Code's `.claude/settings.json`,
//! Codex's `.codex/hooks.json`, KKSS's `.kkss/assistant/hooks.json`, Kiki's `.kiki/hooks.toml`;
//! [`crate::hooks::wiring`]), in exactly the format each host documents
//! (`design/background/agent-hosts.md`).
//!
//! Five properties hold for everything written:
//! - every path is under the project root (a symlinked host folder is refused);
//! - an entry is a command and nothing else: `kapi`, `mcp`, `--project kapi.yaml` and, when the
//!   recipe declares target languages, `--tools writing,translation` (no shell, no environment
//!   values, no credential);
//! - the project is named relatively, so the committed file works on every machine;
//! - an entry called `kapi` someone else wrote is read and left alone (one that differs from
//!   kapi's only in `--tools` is kapi's own and follows the recipe);
//! - the skill folder holds what this binary ships: `SKILL.md` alone, refreshed. Its references
//!   are served by `kapi help <topic>` (the plugin bundle carries the files), so a file an
//!   earlier kapi copied beside it (the content of a shipped reference, or its sha256 in the
//!   closed retired list) is removed, with the folders it empties; anything else is left and
//!   named, and a reference copy someone changed gets a warning naming its `kapi help` topic.
//!
//! A hook entry is a command too, `kapi hook <name> --host <host>` with the host's timeout
//! (Kiki runs it through its shell, so a `command -v kapi` guard lets a missing binary allow),
//! merged into the person's file with every other key, group and entry kept; a hook entry that
//! differs from kapi's is read and left alone, and named in a warning.
//!
//! Every JSON file kapi merges into (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`,
//! `.kiki/mcp.json`, `.kkss/assistant/mcp.json`, and the hook files `.claude/settings.json`,
//! `.codex/hooks.json`, `.kkss/assistant/hooks.json`) is read as JSONC, JSON with comments and
//! trailing commas as VS Code documents `.vscode/mcp.json`, and edited through its concrete
//! syntax tree (`JsonFile`, on the `jsonc-parser` crate): only kapi's entry is inserted (in the
//! file's own indentation, line endings and comma style) or its changed fields replaced, and
//! every other byte (comments, trailing commas, key order, layout) is written back as it was
//! read. A new file is pretty JSON. A file that is not JSON or JSONC is refused with its line,
//! column and the fix.
//!
//! Each host is planned in full before anything is written, and a host whose file is malformed,
//! whose folder is a symlink, whose file is read-only or whose write fails is refused on its
//! own, with nothing of it written (its files are staged beside their originals before any is
//! replaced): the other hosts are still wired. A file whose bytes would not change is not
//! written, so a second run changes nothing.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use kapi_core::change::stage::{self, StagedFile};
use kapi_core::project::Recipe;
use serde::Serialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::error::HostError;

/// The MCP server name and KKSS server id kapi writes.
pub const SERVER: &str = "kapi";
/// The recipe every entry names, relative to the project root.
pub const PROJECT_ARG: &str = "kapi.yaml";
/// The tool sets an entry asks for when the recipe declares target languages.
pub const TRANSLATION_TOOLS: &str = "writing,translation";
/// The variables kapi resolves its project root from; Codex clears the environment of a stdio
/// server and forwards only these names.
pub const ROOT_ENV_VARS: &[&str] = &[crate::env::KAPI_PROJECT, crate::env::KAPI_NO_PROJECT];
/// Codex's 10 s default is short for a first start; agent-hosts.md §4 asks for 30.
pub const CODEX_STARTUP_TIMEOUT_SEC: i64 = 30;
/// KKSS reads only the first 6,000 characters of `instructions.md`.
pub const KKSS_INSTRUCTIONS_WINDOW: usize = 6000;
pub const KKSS_BEGIN: &str = "<!-- kapi:begin -->";
pub const KKSS_END: &str = "<!-- kapi:end -->";
/// KKSS reserves these ids for its built-in tool families.
pub const KKSS_RESERVED_IDS: &[&str] = &["cad", "mesh", "kratos", "pdf", "app", "mcp"];

/// kapi's block at the top of KKSS's `instructions.md` (kept well under 800 characters).
const KKSS_BLOCK: &str = "kapi keeps this project's voice, terms and check gate (kapi.yaml). \
Follow the rules in kapi's section of AGENTS.md; call kapi__context_read for a file no rule covers. \
Record what the project does every time with kapi__context_note (with the path it was seen in), \
and the wording the person changes. Run kapi__check_file on each changed file before reporting \
done. Load the kapi skill for the details.";

/// An agent host kapi can wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HostId {
    ClaudeCode,
    Cursor,
    VsCode,
    Codex,
    Agents,
    Kkss,
    Kiki,
}

impl HostId {
    pub const ALL: [HostId; 7] = [
        HostId::ClaudeCode,
        HostId::Cursor,
        HostId::VsCode,
        HostId::Codex,
        HostId::Agents,
        HostId::Kkss,
        HostId::Kiki,
    ];

    /// The id `--agents` takes.
    pub fn id(self) -> &'static str {
        match self {
            HostId::ClaudeCode => "claude-code",
            HostId::Cursor => "cursor",
            HostId::VsCode => "vscode",
            HostId::Codex => "codex",
            HostId::Agents => "agents",
            HostId::Kkss => "kkss",
            HostId::Kiki => "kiki",
        }
    }

    /// The folder whose presence wires the host by default (none: always wired).
    pub fn folder(self) -> Option<&'static str> {
        match self {
            HostId::ClaudeCode => None,
            HostId::Cursor => Some(".cursor"),
            HostId::VsCode => Some(".vscode"),
            HostId::Codex => Some(".codex"),
            HostId::Agents => Some(".agents"),
            HostId::Kkss => Some(".kkss"),
            HostId::Kiki => Some(".kiki"),
        }
    }

    pub fn from_id(id: &str) -> Option<HostId> {
        HostId::ALL.into_iter().find(|h| h.id() == id)
    }

    /// What a person still has to do; kapi can never do it for them.
    pub fn next_steps(self) -> Vec<String> {
        let steps: &[&str] = match self {
            HostId::ClaudeCode => &[
                "start Claude Code in the project and approve the project MCP server `kapi` from .mcp.json when it asks (`claude mcp reset-project-choices` asks again)",
                "accept Claude Code's workspace-trust dialog: kapi's hooks in .claude/settings.json run only in a trusted workspace",
            ],
            HostId::Cursor => {
                &["enable the project server `kapi` in Cursor Settings ▸ MCP (.cursor/mcp.json)"]
            }
            HostId::VsCode => &[
                "trust the workspace in VS Code and start the server `kapi` from .vscode/mcp.json when Copilot asks",
            ],
            HostId::Codex => &[
                "trust the project in Codex: it reads .codex/config.toml and .codex/hooks.json only for a trusted project",
                "keep hooks enabled in Codex and review kapi's hooks in .codex/hooks.json when it asks (on Codex before 0.124, set `[features] codex_hooks = true` in ~/.codex/config.toml)",
            ],
            HostId::Agents => &[
                "nothing: clients that read .agents/skills (Codex, Kiki) find the skill on their own",
            ],
            HostId::Kkss => &[
                "trust the project folder in KKSS (Assistant extensions: the server shows yellow until you do)",
                "in Assistant extensions ▸ kapi ▸ Tools, mark kapi's read-only tools Read-only; every other tool asks each time",
                "keep `kapi` on the PATH KKSS starts hooks with: a PreToolUse hook that cannot start denies the call (or remove `kapi-pre-edit` from .kkss/assistant/hooks.json)",
            ],
            HostId::Kiki => &[
                "trust the workspace in Kiki: .kiki/mcp.json and .kiki/hooks.toml are active only in a trusted workspace",
            ],
        };
        steps.iter().map(|s| (*s).to_owned()).collect()
    }
}

/// Which hosts `--agents` names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Agents {
    /// No flag: Claude Code, plus each host whose folder the project already keeps.
    #[default]
    Detect,
    All,
    None,
    List(Vec<HostId>),
}

impl Agents {
    /// Parses `all`, `none` or a comma list of host ids; an unknown id names the valid ones.
    pub fn parse(text: &str) -> Result<Agents, HostError> {
        let trimmed = text.trim();
        match trimmed {
            "all" => return Ok(Agents::All),
            "none" => return Ok(Agents::None),
            _ => {}
        }
        let mut hosts = Vec::new();
        for part in trimmed.split(',').map(str::trim) {
            match HostId::from_id(part) {
                Some(h) => {
                    if !hosts.contains(&h) {
                        hosts.push(h);
                    }
                }
                None => {
                    return Err(HostError::Usage {
                        message: format!("`{part}` is not an agent host kapi wires"),
                        hint: Some(format!(
                            "use all, none, or a comma list of: {}",
                            valid_ids()
                        )),
                    });
                }
            }
        }
        Ok(Agents::List(hosts))
    }

    /// The hosts to wire in `root`, in a fixed order.
    pub fn resolve(&self, root: &Path) -> Vec<HostId> {
        let mut hosts: Vec<HostId> = match self {
            Agents::All => HostId::ALL.to_vec(),
            Agents::None => Vec::new(),
            Agents::List(list) => list.clone(),
            Agents::Detect => HostId::ALL
                .into_iter()
                .filter(|h| match h.folder() {
                    None => true,
                    // symlink_metadata: a symlinked folder is detected, then refused.
                    Some(dir) => std::fs::symlink_metadata(root.join(dir)).is_ok(),
                })
                .collect(),
        };
        hosts.sort();
        hosts.dedup();
        hosts
    }
}

/// `claude-code, cursor, …`.
pub fn valid_ids() -> String {
    HostId::ALL.map(HostId::id).join(", ")
}

/// What `wire` takes besides the recipe: the skill this binary ships.
#[derive(Debug, Clone, Default)]
pub struct WiringInput {
    /// The files a skill folder holds, relative to it: `SKILL.md` alone. Empty: no skill
    /// folder is written.
    pub skill_files: Vec<(String, Vec<u8>)>,
    /// The files shipped beside SKILL.md that `kapi help <topic>` serves instead of a copy
    /// (`references/edit.md`, …): an earlier kapi copied them into each skill folder, and a
    /// file there with the content of one of them is removed.
    pub served: Vec<(String, Vec<u8>)>,
    /// sha256 (lowercase hex) of files earlier kapi versions copied into a skill folder.
    pub retired: Vec<String>,
}

/// What wiring did, host by host.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WiringReport {
    pub hosts: Vec<HostWiring>,
}

impl WiringReport {
    /// True when some host was refused.
    pub fn refused(&self) -> bool {
        self.hosts.iter().any(|h| h.status == WiringStatus::Refused)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WiringStatus {
    /// Some file was written or removed.
    Wired,
    /// Everything was already as kapi writes it.
    Unchanged,
    /// Nothing was written for this host (see `error`).
    Refused,
}

/// One host's wiring.
#[derive(Debug, Clone, Serialize)]
pub struct HostWiring {
    pub host: &'static str,
    pub status: WiringStatus,
    /// Files written, relative to the root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub written: Vec<String>,
    /// Files an earlier kapi left in a skill folder, removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Files in kapi's skill folder kapi did not put there, left in place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign: Vec<String>,
    /// A `kapi` entry someone else wrote, left alone: the file that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_entry: Option<String>,
    /// Anything else worth saying (e.g. kapi's KKSS block beyond the 6,000-character window).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why the host was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a person still has to do.
    pub next_steps: Vec<String>,
}

/// The command and arguments every MCP entry carries.
pub fn server_args(recipe: &Recipe) -> Vec<String> {
    let mut args = vec![
        "mcp".to_owned(),
        "--project".to_owned(),
        PROJECT_ARG.to_owned(),
    ];
    if declares_targets(recipe) {
        args.push("--tools".to_owned());
        args.push(TRANSLATION_TOOLS.to_owned());
    }
    args
}

/// True when the recipe declares a target language anywhere.
pub fn declares_targets(recipe: &Recipe) -> bool {
    let some = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
    some(&recipe.defaults.target_languages)
        || recipe.collections.iter().any(|c| {
            some(&c.target_languages) || c.content.iter().any(|i| some(&i.target_languages))
        })
}

/// Wires each host `agents` names in the project at `root` (absolute).
pub fn wire(
    root: &Path,
    recipe: &Recipe,
    agents: &Agents,
    input: &WiringInput,
) -> Result<WiringReport, HostError> {
    let args = server_args(recipe);
    let mut report = WiringReport::default();
    for host in agents.resolve(root) {
        let mut wiring = HostWiring {
            host: host.id(),
            status: WiringStatus::Unchanged,
            written: Vec::new(),
            removed: Vec::new(),
            foreign: Vec::new(),
            kept_entry: None,
            warnings: Vec::new(),
            error: None,
            next_steps: host.next_steps(),
        };
        match plan_host(root, host, &args, input, &mut wiring).and_then(|plan| {
            plan.apply(root, &mut wiring)?;
            Ok(())
        }) {
            Ok(()) => {
                if !wiring.written.is_empty() || !wiring.removed.is_empty() {
                    wiring.status = WiringStatus::Wired;
                }
            }
            Err(e) => {
                wiring.status = WiringStatus::Refused;
                wiring.error = Some(e);
            }
        }
        report.hosts.push(wiring);
    }
    Ok(report)
}

/// Files to write and files to remove, relative to the root, decided before any is touched.
#[derive(Default)]
struct Plan {
    writes: Vec<(String, Vec<u8>)>,
    removes: Vec<String>,
}

impl Plan {
    /// Writes the host's changed files whole or not at all: a file the person made read-only
    /// refuses the host before anything is written, and every new file is staged beside its
    /// original before any replaces one. Then the removals.
    fn apply(self, root: &Path, wiring: &mut HostWiring) -> Result<(), String> {
        let mut staged = Vec::new();
        for (rel, bytes) in self.writes {
            let path = root.join(&rel);
            if std::fs::read(&path).ok().as_deref() == Some(&bytes[..]) {
                continue;
            }
            if std::fs::metadata(&path).is_ok_and(|m| m.permissions().readonly()) {
                return Err(format!(
                    "{rel} is read-only; kapi does not replace a file you made read-only, so nothing of this host was written: make it writable (`chmod u+w {rel}`) and run `kapi init` again"
                ));
            }
            staged.push(StagedFile {
                doc: rel,
                path,
                bytes,
            });
        }
        const NOTHING: &str =
            "nothing of this host was written: make its folder writable and run `kapi init` again";
        let mut created = Vec::new();
        if let Err(e) = create_parents(root, &staged, &mut created) {
            remove_dirs(&created);
            return Err(format!("{e}; {NOTHING}"));
        }
        let done = stage::commit(&staged, &stage::Control::default());
        for (file, landed) in staged.iter().zip(&done.landed) {
            if *landed {
                wiring.written.push(file.doc.clone());
            }
        }
        if let Some((i, e)) = done.error {
            let rel = &staged[i].doc;
            if done.landed.iter().any(|l| *l) {
                return Err(format!("{rel}: {e}"));
            }
            remove_dirs(&created);
            return Err(format!("{rel}: {e}; {NOTHING}"));
        }
        for rel in self.removes {
            let path = root.join(&rel);
            std::fs::remove_file(&path).map_err(|e| format!("{rel}: {e}"))?;
            // An emptied subfolder (`references/i18n/`, then `references/`) goes with its last
            // file; the skill folder itself keeps SKILL.md, so the walk stops there.
            for dir in path.ancestors().skip(1) {
                if dir == root || std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
            wiring.removed.push(rel);
        }
        Ok(())
    }
}

/// Creates the folders the staged files go in, recording the ones that did not exist (outer
/// first) in `created`, so a failed write can take them away again.
fn create_parents(
    root: &Path,
    staged: &[StagedFile],
    created: &mut Vec<PathBuf>,
) -> Result<(), String> {
    for file in staged {
        let Some(parent) = file.path.parent() else {
            continue;
        };
        let mut missing: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|d| *d != root && std::fs::symlink_metadata(d).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        for dir in missing {
            std::fs::create_dir(&dir).map_err(|e| {
                let shown = dir.strip_prefix(root).unwrap_or(&dir);
                format!("{}: {e}", shown.display())
            })?;
            created.push(dir);
        }
    }
    Ok(())
}

/// Removes the folders `create_parents` made, inner first (each only if still empty).
fn remove_dirs(created: &[PathBuf]) {
    for dir in created.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

fn plan_host(
    root: &Path,
    host: HostId,
    args: &[String],
    input: &WiringInput,
    wiring: &mut HostWiring,
) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let skill_dirs: &[&str] = match host {
        HostId::ClaudeCode => &[".claude/skills/kapi"],
        // Codex and Kiki read the cross-client folder.
        HostId::Codex | HostId::Agents | HostId::Kiki => &[".agents/skills/kapi"],
        HostId::Kkss => &[".kkss/assistant/skills/kapi"],
        HostId::Cursor | HostId::VsCode => &[],
    };
    match host {
        HostId::ClaudeCode => json_entry(root, ".mcp.json", host, args, &mut plan, wiring)?,
        HostId::Cursor => json_entry(root, ".cursor/mcp.json", host, args, &mut plan, wiring)?,
        HostId::VsCode => json_entry(root, ".vscode/mcp.json", host, args, &mut plan, wiring)?,
        HostId::Kiki => json_entry(root, ".kiki/mcp.json", host, args, &mut plan, wiring)?,
        HostId::Kkss => {
            json_entry(
                root,
                ".kkss/assistant/mcp.json",
                host,
                args,
                &mut plan,
                wiring,
            )?;
            kkss_instructions(root, &mut plan, wiring)?;
        }
        HostId::Codex => codex_entry(root, args, &mut plan, wiring)?,
        HostId::Agents => {}
    }
    crate::hooks::wiring::plan(root, host, &mut plan.writes, wiring)?;
    if !input.skill_files.is_empty() {
        for dir in skill_dirs {
            skill_dir(root, dir, host == HostId::Kkss, input, &mut plan, wiring)?;
        }
    }
    Ok(plan)
}

/// Refuses a path that leads through a symlink, or anything but plain folders and files.
fn check_path(root: &Path, rel: &str) -> Result<(), String> {
    let mut at = root.to_path_buf();
    let mut shown = PathBuf::new();
    for part in Path::new(rel).components() {
        let Component::Normal(name) = part else {
            return Err(format!("{rel}: not a path under the project"));
        };
        at.push(name);
        shown.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symlink; kapi writes host configuration only inside the project, so it leaves this host alone",
                    shown.display()
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("{}: {e}", shown.display())),
        }
    }
    Ok(())
}

/// Reads a file that may not exist yet, refusing a symlink on the way.
pub(crate) fn read_existing(root: &Path, rel: &str) -> Result<Option<String>, String> {
    check_path(root, rel)?;
    match std::fs::read(root.join(rel)) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{rel}: not UTF-8 text; kapi leaves it alone")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{rel}: {e}")),
    }
}

/// The entry kapi writes for a host.
fn json_server(host: HostId, args: &[String]) -> Map<String, Value> {
    let mut entry = Map::new();
    match host {
        HostId::VsCode => {
            entry.insert("type".into(), json!("stdio"));
        }
        HostId::Kkss => {
            entry.insert("id".into(), json!(SERVER));
        }
        _ => {}
    }
    entry.insert("command".into(), json!("kapi"));
    entry.insert("args".into(), json!(args));
    entry
}

/// `args` without a `--tools X` pair (and `--tools=X`).
fn without_tools<'a>(args: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if a == "--tools" {
            skip = true;
        } else if !a.starts_with("--tools=") {
            out.push(a);
        }
    }
    out
}

/// True when `entry` is what kapi writes for `host`, but for its tool sets.
fn is_kapis_json(host: HostId, entry: &Value, args: &[String]) -> bool {
    let Some(obj) = entry.as_object() else {
        return false;
    };
    let ours = json_server(host, args);
    let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
    let want: BTreeSet<&str> = ours.keys().map(String::as_str).collect();
    if keys != want {
        return false;
    }
    for (k, v) in &ours {
        if k == "args" {
            let Some(theirs) = obj["args"].as_array() else {
                return false;
            };
            let Some(theirs) = theirs.iter().map(Value::as_str).collect::<Option<Vec<_>>>() else {
                return false;
            };
            if without_tools(theirs) != without_tools(args.iter().map(String::as_str)) {
                return false;
            }
        } else if obj[k] != *v {
            return false;
        }
    }
    true
}

/// The refusal of a file kapi cannot read, with where and how to fix it.
pub(crate) fn unreadable(rel: &str, at: Option<(usize, usize)>, what: &str) -> String {
    let at = at.map_or(String::new(), |(l, c)| format!("line {l}, column {c}: "));
    format!(
        "{rel}: {at}{what}; kapi leaves a file it cannot read alone: fix it and run `kapi init` again"
    )
}

/// How kapi reads a JSON file it merges into: JSON plus comments and trailing commas (JSONC, as
/// VS Code reads `.vscode/mcp.json`), and nothing looser (no single quotes, bare keys or
/// missing commas: no host reads those).
fn jsonc_options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// A JSON (or JSONC) file kapi merges an entry into, held as its concrete syntax tree: kapi
/// inserts or replaces only its own values, and every other byte (comments, trailing commas,
/// key order, indentation, line endings) is written back as it was read.
pub(crate) struct JsonFile {
    root: CstRootNode,
    /// The text read; `None` for a new (or blank) file, written as pretty JSON.
    original: Option<String>,
}

impl JsonFile {
    /// Parses `existing` (absent or blank: a new file), refusing text that is not JSON or JSONC
    /// with its line and column.
    pub(crate) fn parse(rel: &str, existing: Option<&str>) -> Result<JsonFile, String> {
        let original = existing.filter(|t| !t.trim().is_empty());
        let root =
            CstRootNode::parse(original.unwrap_or_default(), &jsonc_options()).map_err(|e| {
                use jsonc_parser::errors::ParseErrorKind as Kind;
                // An unclosed value is reported where it opens: say so.
                let what: String = match e.kind() {
                    Kind::UnterminatedObject => "the object that opens here is never closed".into(),
                    Kind::UnterminatedArray => "the list that opens here is never closed".into(),
                    Kind::UnterminatedCommentBlock => {
                        "the comment that opens here is never closed".into()
                    }
                    kind => {
                        let what = kind.to_string();
                        let mut chars = what.chars();
                        chars
                            .next()
                            .map(|c| c.to_lowercase().chain(chars).collect())
                            .unwrap_or_default()
                    }
                };
                unreadable(
                    rel,
                    Some((e.line_display(), e.column_display())),
                    &format!("not valid JSON ({what})"),
                )
            })?;
        Ok(JsonFile {
            root,
            original: original.map(str::to_owned),
        })
    }

    /// The top-level object (created in a new file, or after a file's lone comments); `what`
    /// says what it should be when it is something else.
    pub(crate) fn object(&self, rel: &str, what: &str) -> Result<CstObject, String> {
        self.root.object_value_or_create().ok_or_else(|| {
            let text = self.original.as_deref().unwrap_or_default();
            unreadable(rel, json_position(text, &[]), what)
        })
    }

    /// The text to write: `None` when no byte changed, pretty JSON with a final newline for a
    /// new file, and otherwise the person's text with kapi's edits in it.
    pub(crate) fn finish(self, rel: &str) -> Result<Option<String>, String> {
        let Some(original) = &self.original else {
            let value = self.root.to_serde_value().unwrap_or_else(|| json!({}));
            let mut text =
                serde_json::to_string_pretty(&value).map_err(|e| format!("{rel}: {e}"))?;
            text.push('\n');
            return Ok(Some(text));
        };
        let text = self.root.to_string();
        Ok((text != *original).then_some(text))
    }
}

/// The property `name` of an object: the last one when the name repeats, as a JSON reader
/// keeps it.
pub(crate) fn json_prop(object: &CstObject, name: &str) -> Option<CstObjectProp> {
    object
        .properties()
        .into_iter()
        .filter(|p| p.decoded_name().as_deref() == Some(name))
        .last()
}

/// The value of a property, as JSON.
pub(crate) fn prop_value(prop: &CstObjectProp) -> Option<Value> {
    prop.value()?.to_serde_value()
}

/// A JSON value in the form the syntax tree inserts (key order kept).
pub(crate) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// Sets each of `ours`' fields in `object` whose value differs, leaving the rest (and its
/// formatting) as it is.
pub(crate) fn update_fields(object: &CstObject, ours: &Map<String, Value>) {
    for (key, value) in ours {
        match json_prop(object, key) {
            Some(prop) if prop_value(&prop).as_ref() == Some(value) => {}
            Some(prop) => prop.set_value(cst_value(value)),
            None => {
                object.append(key, cst_value(value));
            }
        }
    }
}

/// Where the value at `path` (object keys from the top) starts in a JSON or JSONC text, as
/// line and column; the top level for an empty path.
pub(crate) fn json_position(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    let root = CstRootNode::parse(text, &jsonc_options()).ok()?;
    let mut node = root.value()?;
    for key in path {
        node = json_prop(&node.as_object()?, key)?.value()?;
    }
    Some(line_col(text, node_offset(&node)))
}

/// The byte offset a node starts at: the length of everything before it in the tree.
fn node_offset(node: &CstNode) -> usize {
    let mut offset = 0;
    let mut current = node.clone();
    loop {
        offset += current
            .previous_siblings()
            .map(|n| n.to_string().len())
            .sum::<usize>();
        match current.parent() {
            Some(parent) => current = parent.into(),
            None => return offset,
        }
    }
}

/// Merges kapi's entry into a host's JSON MCP file in place, keeping every other byte.
fn json_entry(
    root: &Path,
    rel: &str,
    host: HostId,
    args: &[String],
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    let existing = read_existing(root, rel)?;
    let text = existing.as_deref().unwrap_or_default();
    let file = JsonFile::parse(rel, existing.as_deref())?;
    let key = if matches!(host, HostId::VsCode | HostId::Kkss) {
        "servers"
    } else {
        "mcpServers"
    };
    let top = file.object(
        rel,
        &format!("the top level is not a JSON object (`{{ \"{key}\": … }}`)"),
    )?;
    let ours = json_server(host, args);
    if host == HostId::Kkss {
        let Some(prop) = json_prop(&top, key) else {
            top.append(
                key,
                CstInputValue::Array(vec![cst_value(&Value::Object(ours))]),
            );
            return push_json(file, rel, plan);
        };
        let Some(list) = prop.value().and_then(|v| v.as_array()) else {
            return Err(unreadable(
                rel,
                json_position(text, &[key]),
                "`servers` is not a list of servers",
            ));
        };
        let found = list.elements().into_iter().find_map(|element| {
            let value = element.to_serde_value()?;
            (value.get("id").and_then(Value::as_str) == Some(SERVER)).then_some((element, value))
        });
        match found {
            Some((element, value)) if is_kapis_json(host, &value, args) => {
                if let Some(object) = element.as_object() {
                    update_fields(&object, &ours);
                }
            }
            Some(_) => wiring.kept_entry = Some(rel.to_owned()),
            None => {
                list.append(cst_value(&Value::Object(ours)));
            }
        }
    } else {
        let servers = match json_prop(&top, key) {
            Some(prop) => prop.value().and_then(|v| v.as_object()).ok_or_else(|| {
                unreadable(
                    rel,
                    json_position(text, &[key]),
                    &format!("`{key}` is not an object of server names to servers"),
                )
            })?,
            None => {
                top.append(
                    key,
                    CstInputValue::Object(vec![(
                        SERVER.to_owned(),
                        cst_value(&Value::Object(ours)),
                    )]),
                );
                return push_json(file, rel, plan);
            }
        };
        match json_prop(&servers, SERVER) {
            Some(prop) => match prop_value(&prop) {
                Some(entry) if is_kapis_json(host, &entry, args) => {
                    if let Some(object) = prop.object_value() {
                        update_fields(&object, &ours);
                    }
                }
                _ => wiring.kept_entry = Some(rel.to_owned()),
            },
            None => {
                servers.append(SERVER, cst_value(&Value::Object(ours)));
            }
        }
    }
    push_json(file, rel, plan)
}

/// Plans the write of a merged JSON file, when a byte changed.
fn push_json(file: JsonFile, rel: &str, plan: &mut Plan) -> Result<(), String> {
    if let Some(text) = file.finish(rel)? {
        plan.writes.push((rel.to_owned(), text.into_bytes()));
    }
    Ok(())
}

/// Line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn toml_array(items: &[String]) -> toml_edit::Array {
    items.iter().map(String::as_str).collect()
}

/// `[mcp_servers.kapi]` in `.codex/config.toml`, edited in place so comments and layout survive.
fn codex_entry(
    root: &Path,
    args: &[String],
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    const REL: &str = ".codex/config.toml";
    let existing = read_existing(root, REL)?;
    let text = existing.clone().unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, col) = line_col(&text, e.span().map_or(0, |s| s.start));
        format!(
            "{REL}: line {line}, column {col}: {}; kapi leaves a file it cannot read alone: fix it and run `kapi init` again",
            e.message()
        )
    })?;
    let env_vars: Vec<String> = ROOT_ENV_VARS.iter().map(|s| (*s).to_owned()).collect();
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| format!("{REL}: `mcp_servers` is not a table; kapi leaves it alone"))?;
    match servers.get_mut(SERVER) {
        None => {
            let mut t = toml_edit::Table::new();
            t.insert("command", toml_edit::value("kapi"));
            t.insert("args", toml_edit::value(toml_array(args)));
            t.insert("env_vars", toml_edit::value(toml_array(&env_vars)));
            t.insert(
                "startup_timeout_sec",
                toml_edit::value(CODEX_STARTUP_TIMEOUT_SEC),
            );
            servers.insert(SERVER, toml_edit::Item::Table(t));
        }
        Some(item) => {
            let ours = item
                .as_table_like_mut()
                .filter(|t| is_kapis_toml(*t, args, &env_vars));
            match ours {
                Some(t) => {
                    // Only the tool sets can differ: replace `args` only when they do.
                    let current: Vec<String> = t
                        .get("args")
                        .and_then(|a| a.as_array())
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    if current != args {
                        let mut array = toml_array(args);
                        if let Some(old) = t.get("args").and_then(|a| a.as_value()) {
                            *array.decor_mut() = toml_edit::Decor::default();
                            let mut value = toml_edit::Value::Array(array);
                            *value.decor_mut() = old.decor().clone();
                            t.insert("args", toml_edit::Item::Value(value));
                        } else {
                            t.insert("args", toml_edit::value(array));
                        }
                    }
                }
                None => wiring.kept_entry = Some(REL.to_owned()),
            }
        }
    }
    let out = doc.to_string();
    if existing.as_deref() == Some(out.as_str()) {
        return Ok(());
    }
    plan.writes.push((REL.to_owned(), out.into_bytes()));
    Ok(())
}

/// True when a Codex table is what kapi writes, but for its tool sets.
fn is_kapis_toml(t: &dyn toml_edit::TableLike, args: &[String], env_vars: &[String]) -> bool {
    let keys: BTreeSet<&str> = t.iter().map(|(k, _)| k).collect();
    let want: BTreeSet<&str> = ["command", "args", "env_vars", "startup_timeout_sec"].into();
    if keys != want {
        return false;
    }
    let strings = |key: &str| -> Option<Vec<String>> {
        t.get(key)?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let theirs = strings("args").unwrap_or_default();
    t.get("command").and_then(|c| c.as_str()) == Some("kapi")
        && t.get("startup_timeout_sec").and_then(|c| c.as_integer())
            == Some(CODEX_STARTUP_TIMEOUT_SEC)
        && strings("env_vars").as_deref() == Some(env_vars)
        && strings("args").is_some()
        && without_tools(theirs.iter().map(String::as_str))
            == without_tools(args.iter().map(String::as_str))
}

/// kapi's block at the top of `.kkss/assistant/instructions.md`, between its markers.
fn kkss_instructions(root: &Path, plan: &mut Plan, wiring: &mut HostWiring) -> Result<(), String> {
    const REL: &str = ".kkss/assistant/instructions.md";
    let existing = read_existing(root, REL)?;
    let text = existing.clone().unwrap_or_default();
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = format!("{KKSS_BEGIN}{nl}{KKSS_BLOCK}{nl}{KKSS_END}{nl}");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let is = |l: &str, m: &str| l.trim() == m;
    let begin = lines.iter().position(|l| is(l, KKSS_BEGIN));
    let end = lines.iter().position(|l| is(l, KKSS_END));
    let out = match (begin, end) {
        (None, None) => {
            if text.is_empty() {
                block
            } else {
                format!("{block}{nl}{text}")
            }
        }
        (Some(b), Some(e)) if e > b => {
            let start: usize = lines[..b].iter().map(|l| l.len()).sum();
            if text[..start].chars().count() + block.chars().count() > KKSS_INSTRUCTIONS_WINDOW {
                wiring.warnings.push(format!(
                    "{REL}: kapi's block ends beyond the first {KKSS_INSTRUCTIONS_WINDOW} characters KKSS reads; move it to the top"
                ));
            }
            let after: String = lines[e + 1..].concat();
            format!("{}{block}{after}", &text[..start])
        }
        (Some(b), _) => {
            return Err(format!(
                "{REL}: line {}: kapi's block opens here and is not closed (no `{KKSS_END}` after it); close or delete it and run `kapi init` again",
                b + 1
            ));
        }
        (None, Some(e)) => {
            return Err(format!(
                "{REL}: line {}: `{KKSS_END}` closes no block; delete it and run `kapi init` again",
                e + 1
            ));
        }
    };
    if existing.as_deref() != Some(out.as_str()) {
        plan.writes.push((REL.to_owned(), out.into_bytes()));
    }
    Ok(())
}

fn sha256_hex(bytes: &[u8]) -> String {
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
fn skill_dir(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(targets: bool) -> Recipe {
        let mut r = Recipe::default();
        if targets {
            r.defaults.target_languages = Some(vec!["fr".into()]);
        }
        r
    }

    fn skill() -> WiringInput {
        WiringInput {
            skill_files: vec![(
                "SKILL.md".into(),
                b"---\nname: kapi\ndescription: \"Use when editing prose: kapi checks it.\"\n---\n# kapi\n\nBody.\n".to_vec(),
            )],
            served: Vec::new(),
            retired: Vec::new(),
        }
    }

    fn read(root: &Path, rel: &str) -> String {
        std::fs::read_to_string(root.join(rel)).unwrap()
    }

    /// Every file `wire` writes, parsed with its host's rules.
    #[test]
    fn every_file_written_follows_its_hosts_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let report = wire(root, &recipe(true), &Agents::All, &skill()).unwrap();
        assert!(!report.refused(), "{report:?}");
        let args = json!([
            "mcp",
            "--project",
            "kapi.yaml",
            "--tools",
            "writing,translation"
        ]);
        for (rel, key) in [
            (".mcp.json", "mcpServers"),
            (".cursor/mcp.json", "mcpServers"),
            (".kiki/mcp.json", "mcpServers"),
            (".vscode/mcp.json", "servers"),
        ] {
            let v: Value = serde_json::from_str(&read(root, rel)).unwrap();
            let top: Vec<&String> = v.as_object().unwrap().keys().collect();
            assert_eq!(top, [key], "{rel}");
            let entry = v[key]["kapi"].as_object().unwrap();
            assert_eq!(entry["command"], "kapi", "{rel}");
            assert_eq!(entry["args"], args, "{rel}");
            let fields: BTreeSet<&str> = entry.keys().map(String::as_str).collect();
            if key == "servers" {
                // VS Code requires `type`.
                assert_eq!(entry["type"], "stdio");
                assert_eq!(fields, ["args", "command", "type"].into());
            } else {
                assert_eq!(fields, ["args", "command"].into(), "{rel}");
            }
            // Claude Code names: letters, digits, `-`, `_`.
            assert!(
                "kapi"
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
            );
        }
        // Kiki: only the fields its mcpServers schema knows.
        let kiki: Value = serde_json::from_str(&read(root, ".kiki/mcp.json")).unwrap();
        let allowed = [
            "command",
            "args",
            "env",
            "cwd",
            "startupTimeoutMs",
            "enabled",
            "enabledTools",
            "disabledTools",
        ];
        for k in kiki["mcpServers"]["kapi"].as_object().unwrap().keys() {
            assert!(allowed.contains(&k.as_str()), "{k}");
        }
        // KKSS: an id of lowercase letters, digits and hyphens, up to 32, a letter first, no
        // `__`, not reserved.
        let kkss: Value = serde_json::from_str(&read(root, ".kkss/assistant/mcp.json")).unwrap();
        let servers = kkss["servers"].as_array().unwrap();
        assert_eq!(servers.len(), 1);
        let id = servers[0]["id"].as_str().unwrap();
        assert!(id.len() <= 32 && id.starts_with(|c: char| c.is_ascii_lowercase()));
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
        assert!(!id.contains("__") && !KKSS_RESERVED_IDS.contains(&id));
        assert_eq!(servers[0]["command"], "kapi");
        assert_eq!(servers[0]["args"], args);
        assert!(servers[0].get("env").is_none());
        // Codex: TOML with only fields RawMcpServerConfig knows, env_vars naming variables.
        let codex: toml_edit::DocumentMut = read(root, ".codex/config.toml").parse().unwrap();
        let t = codex["mcp_servers"]["kapi"].as_table().unwrap();
        let keys: BTreeSet<&str> = t.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["args", "command", "env_vars", "startup_timeout_sec"].into()
        );
        assert_eq!(t["command"].as_str(), Some("kapi"));
        let vars: Vec<&str> = t["env_vars"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(vars, ROOT_ENV_VARS);
        // Skills: name = folder, [a-z0-9-], no reserved words; description quoted, one line,
        // ≤ 1024; KKSS's header is name and description only.
        for dir in [
            ".claude/skills/kapi",
            ".agents/skills/kapi",
            ".kkss/assistant/skills/kapi",
        ] {
            let text = read(root, &format!("{dir}/SKILL.md"));
            let (front, body) = split_frontmatter(&text).unwrap();
            assert!(body.starts_with("# kapi"), "{dir}");
            let name = front
                .lines()
                .find_map(|l| l.strip_prefix("name: "))
                .unwrap();
            assert_eq!(name, dir.rsplit('/').next().unwrap());
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            );
            assert!(!name.contains("claude") && !name.contains("anthropic"));
            let desc = front
                .lines()
                .find_map(|l| l.strip_prefix("description: "))
                .unwrap();
            assert!(desc.starts_with('"') && desc.ends_with('"') && desc.len() <= 1024);
            if dir.starts_with(".kkss") {
                assert_eq!(front.lines().count(), 2, "{front}");
            }
        }
        let instructions = read(root, ".kkss/assistant/instructions.md");
        assert!(instructions.starts_with(KKSS_BEGIN));
        assert!(instructions.find(KKSS_END).unwrap() < 800);
    }

    #[test]
    fn codex_keeps_comments_layout_and_other_servers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mine = "# my codex settings\nmodel = \"o5\"  # fast\n\n[mcp_servers.other]\ncommand = \"other\" # theirs\n";
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        std::fs::write(root.join(".codex/config.toml"), mine).unwrap();
        let list = Agents::List(vec![HostId::Codex]);
        wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        let text = read(root, ".codex/config.toml");
        assert!(text.starts_with(mine), "{text}");
        assert!(text.contains("[mcp_servers.kapi]\ncommand = \"kapi\"\nargs = [\"mcp\", \"--project\", \"kapi.yaml\"]\nenv_vars = [\"KAPI_PROJECT\", \"KAPI_NO_PROJECT\"]\nstartup_timeout_sec = 30\n"), "{text}");
        // The recipe gains target languages: only the args follow.
        wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
        let text = read(root, ".codex/config.toml");
        assert!(text.starts_with(mine), "{text}");
        assert!(text.contains("args = [\"mcp\", \"--project\", \"kapi.yaml\", \"--tools\", \"writing,translation\"]\n"), "{text}");
        let again = wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
        assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
    }

    #[test]
    fn kkss_block_goes_on_top_and_is_replaced_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
        std::fs::write(
            root.join(".kkss/assistant/instructions.md"),
            "Units are SI.\n",
        )
        .unwrap();
        let list = Agents::List(vec![HostId::Kkss]);
        wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        let text = read(root, ".kkss/assistant/instructions.md");
        assert!(text.starts_with(KKSS_BEGIN), "{text}");
        assert!(
            text.ends_with("<!-- kapi:end -->\n\nUnits are SI.\n"),
            "{text}"
        );
        let again = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
        std::fs::write(
            root.join(".kkss/assistant/instructions.md"),
            "Mine.\n<!-- kapi:begin -->\nold\n",
        )
        .unwrap();
        let refused = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(refused.hosts[0].status, WiringStatus::Refused);
        assert!(
            refused.hosts[0]
                .error
                .as_deref()
                .unwrap()
                .contains("line 2")
        );
    }

    /// Property 5: the skill folder holds what this binary ships: SKILL.md alone, a reference
    /// an earlier kapi copied removed by content, a changed copy and anything else named.
    #[test]
    fn the_skill_folder_holds_what_this_binary_ships() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let old_reference = b"# edit\n\nAn earlier kapi's reference.\n";
        let served_edit = b"# edit\n\nThis kapi's reference, served by `kapi help edit`.\n";
        let served_react = b"# React\n\nA playbook.\n";
        let mut input = skill();
        input.retired = vec![sha256_hex(old_reference).to_uppercase()];
        input.served = vec![
            ("references/edit.md".into(), served_edit.to_vec()),
            ("references/i18n/react.md".into(), served_react.to_vec()),
        ];
        for skill_dir in [".claude/skills/kapi", ".agents/skills/kapi"] {
            let d = root.join(skill_dir);
            std::fs::create_dir_all(d.join("references/i18n")).unwrap();
            std::fs::write(d.join("SKILL.md"), "stale").unwrap();
            std::fs::write(d.join("references/old.md"), old_reference).unwrap();
            std::fs::write(d.join("references/i18n/react.md"), served_react).unwrap();
            std::fs::write(d.join("notes.md"), "mine").unwrap();
        }
        // The Claude Code copy of the edit reference was changed by someone; the other is
        // this kapi's.
        std::fs::write(
            root.join(".claude/skills/kapi/references/edit.md"),
            "# edit\n\nWith my own notes.\n",
        )
        .unwrap();
        std::fs::write(
            root.join(".agents/skills/kapi/references/edit.md"),
            served_edit,
        )
        .unwrap();
        let list = Agents::List(vec![HostId::ClaudeCode, HostId::Agents]);
        let report = wire(root, &recipe(false), &list, &input).unwrap();
        let claude = &report.hosts[0];
        let agents = &report.hosts[1];
        for (h, skill_dir) in [
            (claude, ".claude/skills/kapi"),
            (agents, ".agents/skills/kapi"),
        ] {
            assert_eq!(h.status, WiringStatus::Wired, "{h:?}");
            assert_eq!(
                std::fs::read(root.join(skill_dir).join("SKILL.md")).unwrap(),
                input.skill_files[0].1
            );
            assert!(!root.join(skill_dir).join("references/i18n").exists());
            assert_eq!(read(root, &format!("{skill_dir}/notes.md")), "mine");
        }
        assert_eq!(
            claude.removed,
            [
                ".claude/skills/kapi/references/i18n/react.md",
                ".claude/skills/kapi/references/old.md"
            ]
        );
        assert_eq!(
            claude.foreign,
            [
                ".claude/skills/kapi/notes.md",
                ".claude/skills/kapi/references/edit.md"
            ]
        );
        assert_eq!(
            read(root, ".claude/skills/kapi/references/edit.md"),
            "# edit\n\nWith my own notes.\n"
        );
        assert_eq!(claude.warnings.len(), 1, "{:?}", claude.warnings);
        assert!(
            claude.warnings[0].starts_with(".claude/skills/kapi/references/edit.md: an earlier kapi copied this reference here and it was changed since")
                && claude.warnings[0].contains("`kapi help edit`"),
            "{:?}",
            claude.warnings
        );
        assert_eq!(
            agents.removed,
            [
                ".agents/skills/kapi/references/edit.md",
                ".agents/skills/kapi/references/i18n/react.md",
                ".agents/skills/kapi/references/old.md"
            ]
        );
        assert_eq!(agents.foreign, [".agents/skills/kapi/notes.md"]);
        assert!(agents.warnings.is_empty(), "{:?}", agents.warnings);
        // Emptied folders went with their last file.
        assert!(!root.join(".agents/skills/kapi/references").exists());
        // Again: nothing written, the foreign files still named.
        let again = wire(root, &recipe(false), &list, &input).unwrap();
        for h in &again.hosts {
            assert_eq!(h.status, WiringStatus::Unchanged, "{h:?}");
            assert!(h.written.is_empty() && h.removed.is_empty());
        }
        assert_eq!(again.hosts[0].foreign.len(), 2);
        assert_eq!(again.hosts[1].foreign.len(), 1);
        // No skill shipped: no skill folder written.
        let bare = tempfile::tempdir().unwrap();
        wire(
            bare.path(),
            &recipe(false),
            &Agents::All,
            &WiringInput::default(),
        )
        .unwrap();
        assert!(!bare.path().join(".claude/skills").exists());
        assert!(!bare.path().join(".agents").exists());
    }

    /// A JSONC MCP file (comments, trailing commas, four-space indentation) gains kapi's entry
    /// in the person's style; every other byte stays.
    #[test]
    fn a_jsonc_mcp_file_gains_kapis_entry_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let theirs = "// VS Code's MCP servers\n{\n    \"servers\": {\n        \"db\": {\"command\": \"db\"}, // pinned\n    },\n    /* keep */ \"inputs\": [],\n}\n";
        std::fs::create_dir_all(root.join(".vscode")).unwrap();
        std::fs::write(root.join(".vscode/mcp.json"), theirs).unwrap();
        let list = Agents::List(vec![HostId::VsCode]);
        let report = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(report.hosts[0].status, WiringStatus::Wired, "{report:?}");
        let kapi = "        \"kapi\": {\n            \"type\": \"stdio\",\n            \"command\": \"kapi\",\n            \"args\": [\"mcp\", \"--project\", \"kapi.yaml\"],\n        },\n";
        let want = theirs.replace("// pinned\n", &format!("// pinned\n{kapi}"));
        assert_eq!(read(root, ".vscode/mcp.json"), want);
        // The recipe gains target languages: only kapi's `args` follow.
        wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
        let tools = want.replace(
            "\"kapi.yaml\"]",
            "\"kapi.yaml\", \"--tools\", \"writing,translation\"]",
        );
        assert_eq!(read(root, ".vscode/mcp.json"), tools);
        let again = wire(root, &recipe(true), &list, &WiringInput::default()).unwrap();
        assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
        // A new file is pretty JSON.
        let fresh = tempfile::tempdir().unwrap();
        wire(fresh.path(), &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(
            read(fresh.path(), ".vscode/mcp.json"),
            "{\n  \"servers\": {\n    \"kapi\": {\n      \"type\": \"stdio\",\n      \"command\": \"kapi\",\n      \"args\": [\n        \"mcp\",\n        \"--project\",\n        \"kapi.yaml\"\n      ]\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn kkss_servers_in_jsonc_keep_their_layout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let theirs = "{\n\t// lab tools\n\t\"servers\": [\n\t\t{\"id\": \"acme\", \"command\": \"acme\"},\n\t],\n}\n";
        std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
        std::fs::write(root.join(".kkss/assistant/mcp.json"), theirs).unwrap();
        let list = Agents::List(vec![HostId::Kkss]);
        wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        let text = read(root, ".kkss/assistant/mcp.json");
        let kapi = "\t\t{\n\t\t\t\"id\": \"kapi\",\n\t\t\t\"command\": \"kapi\",\n\t\t\t\"args\": [\"mcp\", \"--project\", \"kapi.yaml\"],\n\t\t},\n";
        assert_eq!(
            text,
            theirs.replace("\"acme\"},\n", &format!("\"acme\"}},\n{kapi}"))
        );
        let again = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(again.hosts[0].status, WiringStatus::Unchanged);
    }

    #[test]
    fn a_json_file_kapi_cannot_read_names_line_column_and_fix() {
        for (text, want) in [
            (
                "{\n  \"mcpServers\": {\n    \"x\": 1,\n  ]\n}\n",
                ".mcp.json: line 4, column 3: not valid JSON (unexpected token in object)",
            ),
            (
                "// mine\n{\"mcpServers\": {\n",
                ".mcp.json: line 2, column 16: not valid JSON (the object that opens here is never closed)",
            ),
            (
                "{'mcpServers': {}}",
                ".mcp.json: line 1, column 2: not valid JSON (single-quoted strings are not allowed)",
            ),
            (
                "/* mine */\n  [1]\n",
                ".mcp.json: line 2, column 3: the top level is not a JSON object",
            ),
            (
                "{\n  // c\n  \"mcpServers\": []\n}",
                ".mcp.json: line 3, column 17: `mcpServers` is not an object",
            ),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(".mcp.json"), text).unwrap();
            let list = Agents::List(vec![HostId::ClaudeCode]);
            let report = wire(dir.path(), &recipe(false), &list, &WiringInput::default()).unwrap();
            let error = report.hosts[0].error.as_deref().unwrap();
            assert!(error.starts_with(want), "{error}");
            assert!(
                error.ends_with("fix it and run `kapi init` again"),
                "{error}"
            );
            assert_eq!(read(dir.path(), ".mcp.json"), text);
        }
    }

    #[test]
    fn a_kapi_entry_someone_else_wrote_in_kkss_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let theirs = "{\"servers\": [{\"id\": \"kapi\", \"command\": \"/opt/other\"}, {\"id\": \"acme\", \"command\": \"acme\"}]}";
        std::fs::create_dir_all(root.join(".kkss/assistant")).unwrap();
        std::fs::write(root.join(".kkss/assistant/mcp.json"), theirs).unwrap();
        let list = Agents::List(vec![HostId::Kkss]);
        let report = wire(root, &recipe(false), &list, &WiringInput::default()).unwrap();
        assert_eq!(
            report.hosts[0].kept_entry.as_deref(),
            Some(".kkss/assistant/mcp.json")
        );
        assert_eq!(read(root, ".kkss/assistant/mcp.json"), theirs);
    }

    #[test]
    fn agents_parse() {
        assert_eq!(Agents::parse("all").unwrap(), Agents::All);
        assert_eq!(Agents::parse("none").unwrap(), Agents::None);
        assert_eq!(
            Agents::parse("cursor,codex").unwrap(),
            Agents::List(vec![HostId::Cursor, HostId::Codex])
        );
        let err = Agents::parse("cursor,emacs").unwrap_err();
        assert!(err.to_string().contains("emacs"));
        assert!(kapi_core::Hint::hints(&err)[0].contains("claude-code, cursor, vscode"));
    }
}
