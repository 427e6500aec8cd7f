//! Sending batches: a few requests in flight at once (the provider's `concurrency`), each
//! retried after a transient failure with backoff (0.5 s, 1 s, 2 s … each wait at most 30 s,
//! up to the provider's `retries`, at most 10), and a request budget shared by every batch of
//! the run: once spent, the batches not sent are answered "not sent". A final failure (a 4xx,
//! a bad URL, an answer too large) is never retried.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::provider::{Answer, Batch, Provider, ProviderError};

/// The most retries of one batch, whatever the recipe says (the recipe refuses more).
pub const MAX_RETRIES: u32 = 10;

/// The longest wait before a retry: the doubling stops here.
pub const MAX_WAIT: Duration = Duration::from_secs(30);

/// What sending did: an answer per item of each batch, in order, and the requests made.
pub struct Sent {
    pub answers: Vec<Vec<Answer>>,
    pub requests: usize,
    pub budget_spent: bool,
}

/// How batches are sent.
pub struct Sending<'a> {
    pub provider: &'a dyn Provider,
    pub concurrency: usize,
    pub retries: u32,
    /// Most requests, retries included, over the whole run.
    pub budget: Option<usize>,
    /// Requests the run sent before these batches (they count against the budget).
    pub already: usize,
    /// The first wait before a retry; it doubles each time.
    pub backoff: Duration,
    /// Told how many items have an answer so far.
    pub progress: &'a (dyn Fn(usize) + Sync),
}

/// Sends every batch and collects the answers.
pub fn send(batches: &[Batch], how: &Sending<'_>) -> Sent {
    let requests = AtomicUsize::new(how.already);
    let done_items = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let spent = std::sync::atomic::AtomicBool::new(false);
    let results: Mutex<Vec<(usize, Vec<Answer>)>> = Mutex::new(Vec::with_capacity(batches.len()));
    let workers = how.concurrency.clamp(1, 16).min(batches.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(batch) = batches.get(i) else { break };
                    let answers = one(batch, how, &requests, &spent);
                    let n = done_items.fetch_add(batch.items.len(), Ordering::Relaxed)
                        + batch.items.len();
                    (how.progress)(n);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, answers));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    Sent {
        answers: results.into_iter().map(|(_, a)| a).collect(),
        requests: requests.into_inner(),
        budget_spent: spent.into_inner(),
    }
}

/// One batch's answers: the provider's, or the same failure for every item.
fn one(
    batch: &Batch,
    how: &Sending<'_>,
    requests: &AtomicUsize,
    spent: &std::sync::atomic::AtomicBool,
) -> Vec<Answer> {
    let fail = |why: String| batch.items.iter().map(|_| Err(why.clone())).collect();
    let mut wait = how.backoff;
    let mut attempt = 0;
    loop {
        let n = requests.fetch_add(1, Ordering::SeqCst);
        if how.budget.is_some_and(|max| n >= max) {
            requests.fetch_sub(1, Ordering::SeqCst);
            spent.store(true, Ordering::SeqCst);
            return fail(format!(
                "not sent: the request budget ({}) is spent",
                how.budget.unwrap_or(0)
            ));
        }
        match how.provider.translate(batch) {
            Ok(answers) if answers.len() == batch.items.len() => return answers,
            Ok(_) => return fail("the provider answered a different number of strings".into()),
            Err(ProviderError::Transient(_)) if attempt < how.retries.min(MAX_RETRIES) => {
                attempt += 1;
                std::thread::sleep(wait.min(MAX_WAIT));
                wait = wait.saturating_mul(2).min(MAX_WAIT);
            }
            Err(ProviderError::Transient(why)) => {
                return fail(format!("{why} (after {} tries)", attempt + 1));
            }
            Err(ProviderError::Failed(why)) => return fail(why),
        }
    }
}
