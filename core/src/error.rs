//! The `Hint` trait: every typed error in `core` and `host` offers the fix beside itself, so the
//! CLI, an MCP tool result and a hook all give the same advice.

/// The fixes an error offers: a command to run, the valid values, or the closest match.
pub trait Hint {
    /// Imperative sentences without a full stop, each rendered as `hint: …`.
    fn hints(&self) -> Vec<String> {
        Vec::new()
    }
}
