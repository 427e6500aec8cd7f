//! The JSON a host pipes into a hook, read leniently: which host sent it (sniffed when `--host`
//! does not say), the session, the working directory, the files an edit names, the loop flag.
//!
//! Field names by host (agent-hosts.md §1.4, §5): Claude Code and Codex send `session_id`,
//! `cwd`, `tool_name`, `tool_input.file_path` (Codex's `apply_patch` carries a patch in
//! `tool_input.command`, a string or an argument array, as its shell tool's heredoc does) and, on Stop, `stop_hook_active`; Kiki sends `client_type`,
//! `session_title`, `cwd` and `tool_input.path`; KKSS sends `conversationId`, the tool's parsed
//! `args` and `files.projectRoot`; Cursor sends `conversation_id`, `workspace_roots`,
//! `cursor_version`, a top-level `file_path` after an edit, `tool_input` before one and
//! `loop_count` on stop; Windsurf's Cascade sends `trajectory_id`, `agent_action_name` and
//! `tool_info.file_path`. Every field is optional and read whatever its type: a missing one is
//! the caller's to judge, never a panic.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Protocol;

/// A host's payload, as kapi uses it: only the fields a hook reads are kept, each read whatever
/// its JSON type (a field of another type counts as absent), so a payload of any size or shape
/// costs no more memory than those fields (a `Write` payload's whole-file `content` is skipped
/// unread).
#[derive(Debug, Clone, Default)]
pub struct Payload {
    session_id: Text,
    conversation_id: Text,
    cwd: Text,
    files: Obj<Files>,
    tool_name: Text,
    tool: ToolName,
    stop_hook_active: Flag,
    tool_input: Obj<Input>,
    args: Obj<Input>,
    input: Obj<Input>,
    client_type: Present,
    session_title: Present,
    turn_id: Present,
    transcript_path: Present,
    hook_event_name: Present,
    // Cursor: `conversation_id`, `workspace_roots`, a top-level `file_path` (afterFileEdit),
    // `loop_count` (stop), `cursor_version`.
    conversation_id_snake: Text,
    workspace_roots: First,
    file_path: Text,
    loop_count: Count,
    cursor_version: Present,
    // Windsurf (Cascade): `trajectory_id`, `agent_action_name`, `tool_info.file_path`.
    trajectory_id: Text,
    agent_action_name: Present,
    tool_info: Obj<Input>,
}

#[derive(Debug, Clone, Default)]
struct Files {
    project_root: Text,
}

/// A tool's input: the path fields edit tools use, and the texts a patch may travel in.
#[derive(Debug, Clone, Default)]
struct Input {
    file_path: Text,
    path: Text,
    notebook_path: Text,
    file_path_camel: Text,
    command: Args,
    patch: Text,
    input: Text,
}

/// A JSON object read into a struct by key, the last of a repeated key winning (as a JSON
/// object model would), every other key skipped unread.
macro_rules! object {
    ($ty:ident { $($key:literal => $field:ident),* $(,)? }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        let mut out = <$ty>::default();
                        while let Some(key) = map.next_key::<Text>()? {
                            match key.0.as_deref() {
                                $(Some($key) => out.$field = map.next_value()?,)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

object!(Payload {
    "session_id" => session_id,
    "conversationId" => conversation_id,
    "cwd" => cwd,
    "files" => files,
    "tool_name" => tool_name,
    "tool" => tool,
    "stop_hook_active" => stop_hook_active,
    "tool_input" => tool_input,
    "args" => args,
    "input" => input,
    "client_type" => client_type,
    "session_title" => session_title,
    "turn_id" => turn_id,
    "transcript_path" => transcript_path,
    "hook_event_name" => hook_event_name,
    "conversation_id" => conversation_id_snake,
    "workspace_roots" => workspace_roots,
    "file_path" => file_path,
    "loop_count" => loop_count,
    "cursor_version" => cursor_version,
    "trajectory_id" => trajectory_id,
    "agent_action_name" => agent_action_name,
    "tool_info" => tool_info,
});

object!(Files {
    "projectRoot" => project_root,
});

object!(Input {
    "file_path" => file_path,
    "path" => path,
    "notebook_path" => notebook_path,
    "filePath" => file_path_camel,
    "command" => command,
    "patch" => patch,
    "input" => input,
});

impl Payload {
    /// Parses the bytes a host piped in; the error says why they are not a JSON object. A
    /// UTF-8 byte-order mark before the JSON (a Windows host's, PowerShell's) is skipped.
    pub fn parse(bytes: &[u8]) -> Result<Payload, String> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = std::str::from_utf8(bytes).map_err(|e| {
            format!(
                "the payload is not UTF-8 (byte {}); no decision was made",
                e.valid_up_to()
            )
        })?;
        let not_json = |e: serde_json::Error| {
            format!(
                "the payload is not JSON (line {}, column {}: {e})",
                e.line(),
                e.column()
            )
        };
        if !text.trim_start().starts_with('{') {
            serde_json::from_str::<IgnoredAny>(text).map_err(not_json)?;
            return Err("the payload is JSON but not an object".into());
        }
        serde_json::from_str(text).map_err(not_json)
    }

    /// Which host sent this, from the fields only one host sends; `None` when nothing says.
    pub fn sniff(&self) -> Option<Protocol> {
        if self.client_type.0 || self.session_title.0 {
            Some(Protocol::Kiki)
        } else if self.cursor_version.0 {
            Some(Protocol::Cursor)
        } else if self.agent_action_name.0 && self.tool_info.0.is_some() {
            Some(Protocol::Windsurf)
        } else if self.conversation_id.0.is_some() || self.files.0.is_some() {
            Some(Protocol::Kkss)
        } else if self.turn_id.0 {
            Some(Protocol::Codex)
        } else if self.transcript_path.0 && self.hook_event_name.0 {
            Some(Protocol::ClaudeCode)
        } else {
            None
        }
    }

    /// The session (or conversation) the hook runs in: `session_id`, KKSS's `conversationId`,
    /// Cursor's `conversation_id`, Windsurf's `trajectory_id`.
    pub fn session(&self) -> Option<&str> {
        self.session_id
            .get()
            .or_else(|| self.conversation_id.get())
            .or_else(|| self.conversation_id_snake.get())
            .or_else(|| self.trajectory_id.get())
    }

    /// The session's working directory: `cwd`, else KKSS's `files.projectRoot`, else Cursor's
    /// first workspace root.
    pub fn cwd(&self) -> Option<PathBuf> {
        self.cwd
            .get()
            .or_else(|| self.files.0.as_ref().and_then(|f| f.project_root.get()))
            .or_else(|| self.workspace_roots.0.as_deref().filter(|s| !s.is_empty()))
            .map(PathBuf::from)
    }

    /// The tool the event is about.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool_name.get().or(self.tool.0.as_deref())
    }

    /// True when this stop follows a stop-hook continuation (Claude Code, Codex), or a
    /// follow-up message a stop hook sent (Cursor's `loop_count` above 0).
    pub fn stop_hook_active(&self) -> bool {
        self.stop_hook_active.0 || self.loop_count.0 > 0
    }

    fn inputs(&self) -> impl Iterator<Item = &Input> {
        [&self.tool_input, &self.args, &self.input, &self.tool_info]
            .into_iter()
            .filter_map(|o| o.0.as_ref())
    }

    fn collect(&self, patch: fn(&str) -> Vec<String>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |p: &str| {
            if !p.is_empty() && !out.iter().any(|o| o == p) {
                out.push(p.to_owned());
            }
        };
        // Cursor's afterFileEdit names the file at the top level.
        if let Some(p) = self.file_path.get() {
            push(p);
        }
        for input in self.inputs() {
            for field in [
                &input.file_path,
                &input.path,
                &input.notebook_path,
                &input.file_path_camel,
            ] {
                if let Some(p) = field.get() {
                    push(p);
                }
            }
            for text in [input.command.get(), input.patch.get(), input.input.get()]
                .into_iter()
                .flatten()
            {
                for p in patch(text) {
                    push(&p);
                }
            }
        }
        out
    }

    /// Every file an edit tool names: `file_path` or `path` (or `notebook_path`) in
    /// `tool_input` or KKSS's `args`, or every file an `apply_patch` patch touches (deleted and
    /// moved-away files included): what pre-edit guards.
    pub fn touched_paths(&self) -> Vec<String> {
        self.collect(patch_paths)
    }

    /// The files that hold the edit's result: as [`Payload::touched_paths`], without the files
    /// a patch deletes or moves away: what post-edit checks.
    pub fn edited_paths(&self) -> Vec<String> {
        self.collect(patch_written)
    }
}

/// A field's string value; any other JSON type reads as absent.
#[derive(Debug, Clone, Default)]
struct Text(Option<String>);

impl Text {
    fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

/// A command: a string, or an argument array (Codex's shell tool sends `["bash", "-lc",
/// "apply_patch <<'EOF' …"]`, its `apply_patch` `["apply_patch", "*** Begin Patch …"]`) read as
/// its string arguments one per line; any other JSON type reads as absent.
#[derive(Debug, Clone, Default)]
struct Args(Option<String>);

impl Args {
    fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

/// The first string of an array (Cursor's `workspace_roots`); any other JSON type reads as
/// absent.
#[derive(Debug, Clone, Default)]
struct First(Option<String>);

/// A non-negative count (Cursor's `loop_count`); any other JSON type reads as 0.
#[derive(Debug, Clone, Copy, Default)]
struct Count(u64);

/// A field's boolean value; any other JSON type reads as false.
#[derive(Debug, Clone, Copy, Default)]
struct Flag(bool);

/// True when the field is there at all (whatever its value, `null` included).
#[derive(Debug, Clone, Copy, Default)]
struct Present(bool);

/// An object field read as `T`; any other JSON type reads as absent.
#[derive(Debug, Clone)]
struct Obj<T>(Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

/// KKSS names the tool `tool`, as a string or an object with a `name`.
#[derive(Debug, Clone, Default)]
struct ToolName(Option<String>);

/// What a field of an unexpected type leaves behind: it is read to its end and dropped.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Visitor methods that read a JSON type a field does not take as the field's `Default`.
macro_rules! default_for {
    ($ty:ty; $($m:ident),*) => { $( default_for!(@ $ty, $m); )* };
    (@ $ty:ty, visit_bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_i64) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_u64) => {
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_f64) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<$ty, E> { Ok(<$ty>::default()) }
    };
    (@ $ty:ty, visit_seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$ty, A::Error> {
            drain_seq(seq)?;
            Ok(<$ty>::default())
        }
    };
    (@ $ty:ty, visit_map) => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$ty, A::Error> {
            drain_map(map)?;
            Ok(<$ty>::default())
        }
    };
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(Some(v.to_owned())))
            }
            default_for!(Text; visit_bool, visit_i64, visit_u64, visit_f64, visit_unit, visit_seq, visit_map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Args;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Args, E> {
                Ok(Args(Some(v.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Args, A::Error> {
                let mut out = String::new();
                while let Some(Text(arg)) = seq.next_element::<Text>()? {
                    if let Some(arg) = arg {
                        out.push_str(&arg);
                        out.push('\n');
                    }
                }
                Ok(Args(Some(out)))
            }
            default_for!(Args; visit_bool, visit_i64, visit_u64, visit_f64, visit_unit, visit_map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }
            default_for!(Flag; visit_str, visit_i64, visit_u64, visit_f64, visit_unit, visit_seq, visit_map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for First {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = First;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<First, A::Error> {
                let mut first = None;
                while let Some(Text(item)) = seq.next_element::<Text>()? {
                    if first.is_none() {
                        first = item;
                    }
                }
                Ok(First(first))
            }
            default_for!(First; visit_bool, visit_str, visit_i64, visit_u64, visit_f64, visit_unit, visit_map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(v))
            }
            default_for!(Count; visit_bool, visit_str, visit_i64, visit_f64, visit_unit, visit_seq, visit_map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Present(true))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            default_for!(Obj<T>; visit_bool, visit_str, visit_i64, visit_u64, visit_f64, visit_unit, visit_seq);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ToolName, E> {
                Ok(ToolName(Some(v.to_owned())))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolName, A::Error> {
                let mut name = None;
                while let Some(key) = map.next_key::<Text>()? {
                    if key.0.as_deref() == Some("name") {
                        name = map.next_value::<Text>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ToolName(name))
            }
            default_for!(ToolName; visit_bool, visit_i64, visit_u64, visit_f64, visit_unit, visit_seq);
        }
        d.deserialize_any(V)
    }
}

/// True when a tool name reads as one that writes files (`Edit`, `Write`, `MultiEdit`,
/// `apply_patch`, KKSS's `*__write_file`, Gemini CLI's `replace`, Factory's `Create`, …).
pub fn is_edit_tool(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["edit", "write", "patch", "replace", "create"]
        .iter()
        .any(|w| lower.contains(w))
}

/// What a line of an `apply_patch` patch does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PatchOp {
    Add,
    Update,
    Delete,
    MoveTo,
}

/// The files a Codex `apply_patch` patch names, in order, with what it does to each; an
/// `Update` followed by `Move to` is reported as a `Delete` of the old path.
fn patch_ops(text: &str) -> Vec<(PatchOp, String)> {
    if !text.contains("*** Begin Patch") {
        return Vec::new();
    }
    let mut out: Vec<(PatchOp, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        for (prefix, op) in [
            ("*** Add File: ", PatchOp::Add),
            ("*** Update File: ", PatchOp::Update),
            ("*** Delete File: ", PatchOp::Delete),
            ("*** Move to: ", PatchOp::MoveTo),
        ] {
            let Some(p) = line.strip_prefix(prefix).map(str::trim) else {
                continue;
            };
            if p.is_empty() {
                continue;
            }
            if op == PatchOp::MoveTo
                && let Some(last) = out.last_mut()
                && last.0 == PatchOp::Update
            {
                last.0 = PatchOp::Delete;
            }
            out.push((op, p.to_owned()));
        }
    }
    out
}

/// Every file a Codex `apply_patch` patch touches (added, updated, deleted, moved from or to).
pub fn patch_paths(text: &str) -> Vec<String> {
    patch_ops(text).into_iter().map(|(_, p)| p).collect()
}

/// The files that exist after a patch applies: added, updated, or moved to.
pub fn patch_written(text: &str) -> Vec<String> {
    patch_ops(text)
        .into_iter()
        .filter(|(op, _)| *op != PatchOp::Delete)
        .map(|(_, p)| p)
        .collect()
}

/// `path` made absolute against `cwd`, with `.` and `..` folded lexically (Windows
/// separators turned to `/` first, as Claude Code sends them there).
pub fn resolve(path: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    let path = if cfg!(windows) {
        PathBuf::from(path)
    } else {
        PathBuf::from(path.replace('\\', "/"))
    };
    let abs = if path.is_absolute() {
        path
    } else {
        cwd?.join(path)
    };
    Some(crate::app::normalize(&abs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn payload(v: Value) -> Payload {
        Payload::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn sniffs_each_host_from_its_own_fields() {
        let kiki = payload(json!({"client_type": "kimi_code_cli", "cwd": "/p"}));
        assert_eq!(kiki.sniff(), Some(Protocol::Kiki));
        let kkss = payload(json!({"conversationId": "c1", "files": {"projectRoot": "/p"}}));
        assert_eq!(kkss.sniff(), Some(Protocol::Kkss));
        assert_eq!(kkss.cwd(), Some(PathBuf::from("/p")));
        assert_eq!(kkss.session(), Some("c1"));
        let codex =
            payload(json!({"turn_id": "t", "transcript_path": null, "hook_event_name": "Stop"}));
        assert_eq!(codex.sniff(), Some(Protocol::Codex));
        let claude = payload(json!({"transcript_path": "/t", "hook_event_name": "Stop"}));
        assert_eq!(claude.sniff(), Some(Protocol::ClaudeCode));
        assert_eq!(payload(json!({"cwd": "/p"})).sniff(), None);
    }

    /// Cursor's documented payloads (cursor.com/docs/hooks): the conversation, the first
    /// workspace root, `file_path` at the top level after an edit, `loop_count` on stop.
    #[test]
    fn reads_cursor_and_windsurf_payloads() {
        let after = payload(
            json!({"hook_event_name": "afterFileEdit", "conversation_id": "c9",
            "cursor_version": "2.1", "workspace_roots": ["/p", "/q"], "file_path": "/p/a.md",
            "edits": [{"old_string": "x", "new_string": "y"}]}),
        );
        assert_eq!(after.sniff(), Some(Protocol::Cursor));
        assert_eq!(after.session(), Some("c9"));
        assert_eq!(after.cwd(), Some(PathBuf::from("/p")));
        assert_eq!(after.edited_paths(), ["/p/a.md"]);
        let pre = payload(
            json!({"hook_event_name": "preToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "/p/b.md"}, "cursor_version": "2.1"}),
        );
        assert_eq!(pre.touched_paths(), ["/p/b.md"]);
        let stop =
            payload(json!({"hook_event_name": "stop", "status": "completed", "loop_count": 0}));
        assert!(!stop.stop_hook_active());
        let again = payload(json!({"hook_event_name": "stop", "loop_count": 2}));
        assert!(again.stop_hook_active());
        let odd = payload(json!({"loop_count": "2", "workspace_roots": "/p"}));
        assert!(!odd.stop_hook_active());
        assert_eq!(odd.cwd(), None);
        // Windsurf's Cascade (docs.windsurf.com/windsurf/cascade/hooks).
        let cascade = payload(
            json!({"agent_action_name": "pre_write_code", "trajectory_id": "t1",
            "execution_id": "e", "tool_info": {"file_path": "/p/c.md", "edits": []}}),
        );
        assert_eq!(cascade.sniff(), Some(Protocol::Windsurf));
        assert_eq!(cascade.session(), Some("t1"));
        assert_eq!(cascade.edited_paths(), ["/p/c.md"]);
    }

    #[test]
    fn finds_the_edited_file_in_every_shape() {
        let claude = payload(json!({"tool_input": {"file_path": "/p/a.md"}}));
        assert_eq!(claude.edited_paths(), ["/p/a.md"]);
        let kiki = payload(json!({"tool_input": {"path": "a.md"}}));
        assert_eq!(kiki.edited_paths(), ["a.md"]);
        let kkss = payload(json!({"tool": "files__write_file", "args": {"path": "docs/b.md"}}));
        assert_eq!(kkss.edited_paths(), ["docs/b.md"]);
        assert_eq!(kkss.tool_name(), Some("files__write_file"));
        let named = payload(json!({"tool": {"name": "x__write_file", "server": "x"}}));
        assert_eq!(named.tool_name(), Some("x__write_file"));
        let codex = payload(json!({"tool_name": "apply_patch", "tool_input": {"command":
            "*** Begin Patch\n*** Update File: docs/a.md\n@@\n-x\n+y\n*** Add File: docs/n.md\n+z\n*** End Patch\n"}}));
        assert_eq!(codex.edited_paths(), ["docs/a.md", "docs/n.md"]);
        let bash = payload(json!({"tool_input": {"command": "ls -l"}}));
        assert!(bash.edited_paths().is_empty());
        // An argument array: Codex's shell tool with a heredoc, and `apply_patch` with the
        // patch as its argument (issue 40, item 7).
        let shell = payload(
            json!({"tool_name": "shell", "tool_input": {"command": ["bash", "-lc",
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: docs/a.md\n@@\n-x\n+y\n*** End Patch\nEOF\n"]}}),
        );
        assert_eq!(shell.edited_paths(), ["docs/a.md"]);
        let argv = payload(json!({"tool_input": {"command": ["apply_patch",
            "*** Begin Patch\n*** Add File: docs/n.md\n+z\n*** End Patch\n", 7, null]}}));
        assert_eq!(argv.edited_paths(), ["docs/n.md"]);
        let ls = payload(json!({"tool_input": {"command": ["ls", "-l"]}}));
        assert!(ls.edited_paths().is_empty());
        // Gemini CLI's edit tools.
        assert!(is_edit_tool("replace") && is_edit_tool("write_file"));
    }

    #[test]
    fn a_patch_that_deletes_or_moves_guards_every_file_and_checks_the_survivors() {
        let codex = payload(json!({"tool_input": {"command":
            "*** Begin Patch\n*** Delete File: docs/gone.md\n*** Update File: docs/old.md\n*** Move to: docs/new.md\n@@\n-x\n+y\n*** End Patch\n"}}));
        assert_eq!(
            codex.touched_paths(),
            ["docs/gone.md", "docs/old.md", "docs/new.md"]
        );
        assert_eq!(codex.edited_paths(), ["docs/new.md"]);
    }

    #[test]
    fn fields_of_another_type_read_as_absent() {
        let odd = payload(
            json!({"cwd": 5, "session_id": ["x"], "stop_hook_active": "yes",
            "tool_input": "not an object", "tool_name": {"deep": [1, {"a": null}]}, "files": []}),
        );
        assert_eq!(odd.cwd(), None);
        assert_eq!(odd.session(), None);
        assert!(!odd.stop_hook_active());
        assert!(odd.edited_paths().is_empty());
        assert_eq!(odd.tool_name(), None);
        assert_eq!(odd.sniff(), None);
        let active = payload(json!({"stop_hook_active": true}));
        assert!(active.stop_hook_active());
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value() {
        let p = Payload::parse(
            br#"{"cwd": "/a", "cwd": "/p", "tool_input": {"path": "x.md", "path": "a.md"}}"#,
        )
        .unwrap();
        assert_eq!(p.cwd(), Some(PathBuf::from("/p")));
        assert_eq!(p.edited_paths(), ["a.md"]);
    }

    #[test]
    fn a_huge_field_kapi_does_not_read_is_skipped() {
        let big = "x".repeat(4 * 1024 * 1024);
        let p = payload(
            json!({"cwd": "/p", "tool_input": {"file_path": "/p/a.md", "content": big},
            "tool_response": {"originalFile": [0, 1, 2, {"k": "v"}]}}),
        );
        assert_eq!(p.edited_paths(), ["/p/a.md"]);
    }

    #[test]
    fn refuses_what_is_not_a_json_object_with_the_reason() {
        assert!(Payload::parse(b"{oops").unwrap_err().contains("line 1"));
        assert!(
            Payload::parse(b"[1]")
                .unwrap_err()
                .contains("not an object")
        );
        assert!(Payload::parse(b"garbage").unwrap_err().contains("not JSON"));
        assert!(Payload::parse(&[0xff, 0xfe]).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn resolves_relative_paths_against_the_cwd_only() {
        assert_eq!(
            resolve("docs/../a.md", Some(Path::new("/p"))),
            Some(PathBuf::from("/p/a.md"))
        );
        assert_eq!(resolve("a.md", None), None);
        assert_eq!(resolve("/x/a.md", None), Some(PathBuf::from("/x/a.md")));
    }
}
