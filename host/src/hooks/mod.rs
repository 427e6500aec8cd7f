//! `kapi hook post-edit|stop|pre-edit`: the assistant hooks that drive kapi from inside a host's
//! loop, one protocol adapter per host, failing open (seed s-03, "Three hooks").

pub mod wiring;

/// The three hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookName {
    /// After an edit tool wrote a file: the writing check on that file.
    PostEdit,
    /// When the assistant is about to end its turn: the project's ship gates.
    Stop,
    /// Before an edit tool writes a file: refuses hand-edits of generated translation targets.
    PreEdit,
}

impl HookName {
    pub const ALL: [HookName; 3] = [HookName::PreEdit, HookName::PostEdit, HookName::Stop];

    pub fn id(self) -> &'static str {
        match self {
            HookName::PostEdit => "post-edit",
            HookName::Stop => "stop",
            HookName::PreEdit => "pre-edit",
        }
    }

    pub fn from_id(id: &str) -> Option<HookName> {
        HookName::ALL.into_iter().find(|h| h.id() == id)
    }
}

/// The hook protocols kapi speaks: how a host hands a hook its payload and reads its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    ClaudeCode,
    Codex,
    Kkss,
    Kiki,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::ClaudeCode,
        Protocol::Codex,
        Protocol::Kkss,
        Protocol::Kiki,
    ];

    /// The value of `--host`.
    pub fn id(self) -> &'static str {
        match self {
            Protocol::ClaudeCode => "claude-code",
            Protocol::Codex => "codex",
            Protocol::Kkss => "kkss",
            Protocol::Kiki => "kiki",
        }
    }

    pub fn from_id(id: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.id() == id)
    }

    /// The timeout, in seconds, `kapi init` writes for a hook on this host. The hook's own
    /// deadline is 60% of it, so kapi answers before the host gives up on it.
    pub fn timeout_secs(self, hook: HookName) -> u64 {
        match (self, hook) {
            (Protocol::ClaudeCode | Protocol::Codex, HookName::PreEdit) => 30,
            (Protocol::ClaudeCode | Protocol::Codex, HookName::PostEdit) => 120,
            (Protocol::ClaudeCode | Protocol::Codex, HookName::Stop) => 300,
            (Protocol::Kkss | Protocol::Kiki, HookName::PreEdit) => 10,
            (Protocol::Kkss, HookName::PostEdit) => 30,
            (Protocol::Kkss, HookName::Stop) => 60,
            (Protocol::Kiki, HookName::PostEdit) => 60,
            (Protocol::Kiki, HookName::Stop) => 120,
        }
    }

    /// The argument list after the binary: `hook <name> --host <id>`.
    pub fn hook_args(self, hook: HookName) -> [&'static str; 4] {
        ["hook", hook.id(), "--host", self.id()]
    }

    /// The whole command as a shell line: `kapi hook <name> --host <id>`.
    pub fn hook_command(self, hook: HookName) -> String {
        format!("kapi {}", self.hook_args(hook).join(" "))
    }
}
