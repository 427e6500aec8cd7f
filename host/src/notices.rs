//! Warnings about the project's own files that a process says once, whatever surface loads
//! them: today a recipe key kapi does not read ([`crate::App::vet`]).
//!
//! The host never prints: a surface installs a sink ([`install`]; the command line's writes
//! `warning: …` on stderr, or a `{"note": …}` line under `--json`, and `kapi mcp`'s is its log
//! on stderr), and a surface without one (a hook, whose answer is one protocol reply) takes
//! what was said ([`take`]) to put into its reply. Each text is said once per process, so a
//! command that loads the recipe for each file, or an MCP server that answers many calls, says
//! it once; a different text (the recipe edited) is said again. Bounded: past
//! [`MAX_REMEMBERED`] texts the memory starts over, and past [`MAX_KEPT`] unsaid ones the rest
//! are dropped.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// The most texts remembered as said before the memory starts over.
pub const MAX_REMEMBERED: usize = 1024;
/// The most texts kept for [`take`] when no sink is installed.
pub const MAX_KEPT: usize = 64;

type Sink = Box<dyn Fn(&str) + Send + Sync>;

static SINK: OnceLock<Sink> = OnceLock::new();

#[derive(Default)]
struct State {
    said: HashSet<String>,
    kept: Vec<String>,
}

fn state() -> &'static Mutex<State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE.get_or_init(Mutex::default)
}

/// Installs where warnings go for the rest of the process; `false` when one already was.
pub fn install(sink: impl Fn(&str) + Send + Sync + 'static) -> bool {
    SINK.set(Box::new(sink)).is_ok()
}

/// Says `text` unless this process said it already: to the sink, else kept for [`take`].
pub fn warn_once(text: &str) {
    {
        let mut state = state().lock().unwrap_or_else(|e| e.into_inner());
        if state.said.contains(text) {
            return;
        }
        if state.said.len() >= MAX_REMEMBERED {
            state.said.clear();
        }
        state.said.insert(text.to_owned());
        if SINK.get().is_none() {
            if state.kept.len() < MAX_KEPT {
                state.kept.push(text.to_owned());
            }
            return;
        }
    }
    if let Some(sink) = SINK.get() {
        sink(text);
    }
}

/// The warnings said with no sink installed, in order; each is taken once.
pub fn take() -> Vec<String> {
    std::mem::take(&mut state().lock().unwrap_or_else(|e| e.into_inner()).kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_said_once_and_taken_once() {
        // No sink in this test binary: each text is kept for `take`.
        let text = format!("notices test {}", std::process::id());
        warn_once(&text);
        warn_once(&text);
        let taken: Vec<String> = take().into_iter().filter(|t| *t == text).collect();
        assert_eq!(taken, std::slice::from_ref(&text));
        warn_once(&text);
        assert!(!take().contains(&text), "said already");
    }
}
