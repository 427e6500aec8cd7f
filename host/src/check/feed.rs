//! The jobs of a check, handed from the plan to the workers as each is built (the first file
//! is checked while the rest are still planned), and its findings handed on in report order.
//!
//! Findings are released to a [`Progress`] that streams them as soon as no file still to be
//! planned or checked can add one that sorts before them: each job names the least path its
//! findings can carry (its own, or one of its translation files'), so a finding is held only
//! while a job with a lesser path is pending. The release is the report's own order (path,
//! line, column, rule), at most [`MAX_FINDINGS`] in all; after a file that could not be
//! checked nothing more is released (the check ends in that error).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use kapi_core::check::{Finding, Findings, MAX_FINDINGS};

use super::{Job, Progress};

/// The queue between the plan and the workers, and the release of their findings.
pub(super) struct Feed<'a> {
    state: Mutex<State>,
    ready: Condvar,
    /// Where findings are released; `None` when nobody streams them.
    sink: Option<&'a dyn Progress>,
    /// Taken, in release order, before the state's lock is let go: the sink is called with
    /// no lock a worker needs for its next file, and batches still reach it in order.
    printing: Mutex<()>,
}

#[derive(Default)]
struct State {
    jobs: Vec<Arc<Job>>,
    /// The next job a worker takes.
    next: usize,
    /// No more jobs are coming: the plan is done (or failed).
    closed: bool,
    /// Stop handing out jobs (the plan failed, a check was cancelled).
    stopped: bool,
    release: Release,
}

impl<'a> Feed<'a> {
    pub(super) fn new(sink: Option<&'a dyn Progress>) -> Self {
        Feed {
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
            sink: sink.filter(|s| s.streams()),
            printing: Mutex::new(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked while holding the lock left whole values behind: every
        // change to the state is one assignment or push.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a planned job for the workers.
    pub(super) fn push(&self, job: Job) {
        let mut state = self.lock();
        if self.sink.is_some() {
            let index = state.jobs.len();
            state.release.pending.insert((least_path(&job), index));
        }
        state.jobs.push(Arc::new(job));
        drop(state);
        self.ready.notify_one();
    }

    /// No more jobs: the workers end when the queue is empty.
    pub(super) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        let released = match self.sink {
            Some(_) => {
                state.release.planned = true;
                state.release.flush()
            }
            None => Vec::new(),
        };
        self.hand_over(state, released);
        self.ready.notify_all();
    }

    /// Lets go of the state and hands `released` to the sink, in the order it was released.
    fn hand_over(&self, state: MutexGuard<'_, State>, released: Vec<Vec<Finding>>) {
        let Some(sink) = self.sink.filter(|_| !released.is_empty()) else {
            return;
        };
        let turn = self.printing.lock().unwrap_or_else(|e| e.into_inner());
        drop(state);
        for findings in &released {
            sink.findings(findings);
        }
        drop(turn);
    }

    /// Hands out no more jobs (the plan failed, or the check was cancelled).
    pub(super) fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        state.closed = true;
        state.release.failed = true;
        drop(state);
        self.ready.notify_all();
    }

    /// The next job to check, waiting while the plan may still add one; `None` when none is
    /// left.
    pub(super) fn next(&self) -> Option<(usize, Arc<Job>)> {
        let mut state = self.lock();
        loop {
            if state.stopped {
                return None;
            }
            if let Some(job) = state.jobs.get(state.next) {
                let taken = (state.next, Arc::clone(job));
                state.next += 1;
                return Some(taken);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Records that job `index` was checked (`None`: it failed), releasing what it unblocks.
    pub(super) fn finished(&self, index: usize, findings: Option<&Findings>) {
        if self.sink.is_none() {
            return;
        }
        let mut state = self.lock();
        let Some(job) = state.jobs.get(index).cloned() else {
            return;
        };
        let release = &mut state.release;
        release.pending.remove(&(least_path(&job), index));
        let released = match findings {
            Some(findings) => {
                for finding in findings {
                    let held = release.held.entry(finding.path.clone()).or_default();
                    held.push(finding.clone());
                }
                release.flush()
            }
            None => {
                release.failed = true;
                Vec::new()
            }
        };
        self.hand_over(state, released);
    }

    /// How many jobs were planned.
    pub(super) fn planned(&self) -> usize {
        self.lock().jobs.len()
    }

    /// The planned jobs, and how many findings were released (`None`: nobody streamed).
    pub(super) fn into_parts(self) -> (Vec<Arc<Job>>, Option<usize>) {
        let streams = self.sink.is_some();
        let state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        (state.jobs, streams.then_some(state.release.sent))
    }
}

/// Findings waiting for the files that could sort before them.
#[derive(Default)]
struct Release {
    /// Jobs planned and not yet checked, by the least path their findings can name.
    pending: BTreeSet<(String, usize)>,
    /// Findings held, by path.
    held: BTreeMap<String, Vec<Finding>>,
    /// Every job is planned: a path no pending job can name is final.
    planned: bool,
    /// A file could not be checked: the check ends in an error, nothing more is released.
    failed: bool,
    /// Findings released so far.
    sent: usize,
}

impl Release {
    /// Takes, in report order, every held path that no pending job can add to.
    fn flush(&mut self) -> Vec<Vec<Finding>> {
        let mut released = Vec::new();
        if !self.planned || self.failed {
            return released;
        }
        let open = self.pending.first().map(|(path, _)| path.clone());
        while let Some(entry) = self.held.first_entry() {
            if open.as_ref().is_some_and(|open| entry.key() >= open) {
                break;
            }
            let mut findings = entry.remove();
            findings.sort_by(kapi_core::check::report_order);
            let room = MAX_FINDINGS.saturating_sub(self.sent);
            findings.truncate(room);
            if !findings.is_empty() {
                self.sent += findings.len();
                released.push(findings);
            }
        }
        released
    }
}

/// The least path a job's findings can name: the file's own, or one of its translation
/// files' (a catalog's `fr.json` before its `en.json`).
fn least_path(job: &Job) -> String {
    job.targets
        .iter()
        .map(|t| t.display.as_str())
        .fold(job.display.as_str(), std::cmp::min)
        .to_owned()
}
