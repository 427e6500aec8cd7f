//! How tool calls run: each on a thread of its own, so a slow call never holds back a `ping`
//! or a fast call, with a flag that `notifications/cancelled` sets to stop its work.
//!
//! rmcp reads stdin, answers `ping` and the lifecycle itself, and runs each request as a task;
//! a tool's work is synchronous, so [`super::server`] hands each call to tokio's blocking pool
//! (std threads) and the runtime's one thread stays free. Choices:
//! - At most [`max_running`] calls run at once (the cores, 2 to 8); the rest wait their turn
//!   in arrival order. A call cancelled while it waits never starts.
//! - A tool that is not read-only (`readOnlyHint` not set) takes [`Calls::writer`] first, so two
//!   never run at once: `apply_edits` also takes its lock file, but notes, decisions and
//!   recipes write the store and project files, and one writer at a time keeps their order.
//! - Cancelling: rmcp drops the answer of a request cancelled before it answered (the spec's
//!   "should not respond") and ignores a notice for one already answered; the flag stops the
//!   work itself: `check_text`, `check_file`, `voice_check`, `term-check` and `voice_rewrite`
//!   poll it between blocks. A call reads its flag with [`cancel_flag`] on its own thread.
//! - When the client closes stdin, every call received still runs and is answered, in its
//!   turn (`super::stdio`); only a call still running when the transport stops waiting is
//!   cancelled, and the server exits once it returns (a writer finishes its write).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

thread_local! {
    /// The flag of the call this thread runs, while it runs it.
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// The cancel flag of the tool call running on this thread (`None` off a call thread: a
/// unit test, the CLI).
pub(crate) fn cancel_flag() -> Option<Arc<AtomicBool>> {
    FLAG.with(|f| f.borrow().clone())
}

/// How many tool calls run at once: the cores, at least 2 and at most 8.
pub(crate) fn max_running() -> usize {
    crate::memo::cores().clamp(2, 8)
}

/// The server's tool calls: the slots, the writers' lock, and each running call's flag.
#[derive(Debug)]
pub(crate) struct Calls {
    pub slots: Arc<tokio::sync::Semaphore>,
    pub writer: Arc<tokio::sync::Mutex<()>>,
    running: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    next: AtomicU64,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            slots: Arc::new(tokio::sync::Semaphore::new(max_running())),
            writer: Arc::new(tokio::sync::Mutex::new(())),
            running: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
        }
    }
}

/// One call's registration: its flag, unregistered when dropped.
pub(crate) struct Running {
    calls: Arc<Calls>,
    id: u64,
    pub flag: Arc<AtomicBool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(mut running) = self.calls.running.lock() {
            running.remove(&self.id);
        }
    }
}

impl Calls {
    /// Registers a call; its flag is set by [`Calls::cancel_all`] or by whoever holds it.
    pub fn start(self: &Arc<Self>) -> Running {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let flag = Arc::new(AtomicBool::new(false));
        if let Ok(mut running) = self.running.lock() {
            running.insert(id, Arc::clone(&flag));
        }
        Running {
            calls: Arc::clone(self),
            id,
            flag,
        }
    }

    /// Sets the flag of every call still running (the client went away).
    pub fn cancel_all(&self) {
        if let Ok(running) = self.running.lock() {
            for flag in running.values() {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// Runs `f` with `flag` as this thread's call flag.
pub(crate) fn with_flag<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            FLAG.with(|f| f.borrow_mut().take());
        }
    }
    FLAG.with(|f| *f.borrow_mut() = Some(flag));
    let _reset = Reset;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_sees_its_own_flag_and_cancel_all_sets_every_running_one() {
        let calls = Arc::new(Calls::default());
        let cancelled = || cancel_flag().is_some_and(|f| f.load(Ordering::Relaxed));
        assert!(cancel_flag().is_none() && !cancelled());
        let first = calls.start();
        let second = calls.start();
        let seen = with_flag(Arc::clone(&first.flag), || {
            let before = cancelled();
            first.flag.store(true, Ordering::Relaxed);
            (before, cancelled())
        });
        assert_eq!(seen, (false, true));
        assert!(
            cancel_flag().is_none(),
            "the flag is the call's, not the thread's"
        );
        assert!(!second.flag.load(Ordering::Relaxed));
        calls.cancel_all();
        assert!(second.flag.load(Ordering::Relaxed));
        drop((first, second));
        assert!(calls.running.lock().map(|r| r.is_empty()).unwrap_or(false));
    }
}
