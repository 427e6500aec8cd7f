//! The findings a check holds: at most [`MAX_FINDINGS`], the most severe first, with every
//! finding counted, so a file of a million slips costs a report of bounded size.
//!
//! Choices: the cap is per report (and so per document), not per rule or file; the findings
//! kept are the most severe, then the first in report order (path, line, column, rule), so
//! what fails the gate is the last to go. The summary, the score and the gate count every
//! finding, held or not; the report says how many it let go (`truncated`).

use super::Finding;
use crate::governance::Severity;

/// The most findings a report holds. Past it, findings are counted and let go: a report of
/// 10,000 findings is about 3 MB of JSON, and nobody reads further before fixing the cause.
pub const MAX_FINDINGS: usize = 10_000;

/// Findings held up to a cap, every one counted by severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    held: Vec<Finding>,
    /// The findings let go, by severity (critical, major, minor, info).
    dropped: [usize; 4],
    cap: usize,
    /// The last finding kept at the latest shrink: one that sorts after it can never be
    /// held, so it is counted without being built ([`Findings::would_hold`]).
    threshold: Option<Finding>,
}

impl Default for Findings {
    fn default() -> Self {
        Findings::with_cap(MAX_FINDINGS)
    }
}

/// A severity's place in the counts kept by severity: critical, major, minor, info.
pub(crate) fn slot(severity: Severity) -> usize {
    match severity {
        Severity::Critical => 0,
        Severity::Major => 1,
        Severity::Minor => 2,
        Severity::Info => 3,
    }
}

/// What a finding is kept by: severity, then report order.
type Key<'a> = (Severity, &'a str, usize, usize, &'a str, usize);

fn key(f: &Finding) -> Key<'_> {
    (
        f.severity,
        f.path.as_str(),
        f.line,
        f.column,
        f.rule.as_str(),
        f.start,
    )
}

/// Report order: path, line, column, rule, then the byte offset.
pub fn report_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    (a.path.as_str(), a.line, a.column, a.rule.as_str(), a.start).cmp(&(
        b.path.as_str(),
        b.line,
        b.column,
        b.rule.as_str(),
        b.start,
    ))
}

impl Findings {
    /// An empty set holding at most `cap` findings (`usize::MAX`: every one).
    pub fn with_cap(cap: usize) -> Self {
        Findings {
            held: Vec::new(),
            dropped: [0; 4],
            cap,
            threshold: None,
        }
    }

    /// Adds a finding. Holding twice the cap, the set keeps the cap's worth it would keep in
    /// the end (sorting a bounded buffer now and then: linear in the findings added).
    pub fn push(&mut self, finding: Finding) {
        self.held.push(finding);
        if self.held.len() >= self.cap.saturating_mul(2).max(1) {
            self.shrink();
        }
    }

    /// Whether a finding with this severity, place and rule could still be held: `false`
    /// once the set holds its cap of findings that all sort before it. The caller then
    /// [`Findings::count`]s it instead of building it.
    pub fn would_hold(
        &self,
        severity: Severity,
        path: &str,
        (line, column): (usize, usize),
        rule: &str,
        start: usize,
    ) -> bool {
        self.threshold
            .as_ref()
            .is_none_or(|t| (severity, path, line, column, rule, start) < key(t))
    }

    /// Counts a finding that is not held.
    pub fn count(&mut self, severity: Severity) {
        self.dropped[slot(severity)] += 1;
    }

    /// Lowers the cap to `cap` (never raises it), letting go of what no longer fits.
    pub fn hold_at_most(&mut self, cap: usize) {
        if cap < self.cap {
            self.cap = cap;
            self.threshold = None;
            self.shrink();
        }
    }

    /// The findings held and the counts of those let go (critical, major, minor, info): what
    /// [`Findings::from_parts`] rebuilds the set from (a cached check).
    pub fn parts(&self) -> (&[Finding], [usize; 4]) {
        (&self.held, self.dropped)
    }

    /// A set holding `held` with `dropped` counted, at the default cap.
    pub fn from_parts(held: Vec<Finding>, dropped: [usize; 4]) -> Self {
        let mut findings = Findings {
            dropped,
            ..Findings::default()
        };
        for finding in held {
            findings.push(finding);
        }
        findings
    }

    /// Adds another set's findings and counts.
    pub fn append(&mut self, other: Findings) {
        for (mine, theirs) in self.dropped.iter_mut().zip(other.dropped) {
            *mine += theirs;
        }
        for finding in other.held {
            self.push(finding);
        }
    }

    /// Keeps the `cap` most severe findings, earliest first, and counts the rest.
    pub(crate) fn shrink(&mut self) {
        if self.held.len() <= self.cap {
            return;
        }
        self.held.sort_by(|a, b| key(a).cmp(&key(b)));
        for gone in self.held.drain(self.cap..) {
            self.dropped[slot(gone.severity)] += 1;
        }
        self.threshold = self.held.last().cloned();
    }

    /// The findings held (in no particular order until [`Findings::into_sorted`]).
    pub fn iter(&self) -> std::slice::Iter<'_, Finding> {
        self.held.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Finding> {
        self.held.iter_mut()
    }

    /// How many findings there were, held or not.
    pub fn total(&self) -> usize {
        self.held.len() + self.dropped.iter().sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Every finding counted by severity: (critical, major, minor, info).
    pub fn counts(&self) -> [usize; 4] {
        let mut counts = self.dropped;
        for finding in &self.held {
            counts[slot(finding.severity)] += 1;
        }
        counts
    }

    /// The findings held, at most the cap, in report order, and how many were let go.
    pub fn into_sorted(mut self) -> (Vec<Finding>, usize) {
        self.shrink();
        self.held.sort_by(report_order);
        let dropped = self.dropped.iter().sum();
        (self.held, dropped)
    }

    /// The findings held, in report order (what a caller that reports no truncation reads).
    pub fn into_vec(self) -> Vec<Finding> {
        self.into_sorted().0
    }
}

impl Extend<Finding> for Findings {
    fn extend<I: IntoIterator<Item = Finding>>(&mut self, iter: I) {
        for finding in iter {
            self.push(finding);
        }
    }
}

impl From<Vec<Finding>> for Findings {
    fn from(findings: Vec<Finding>) -> Self {
        let mut out = Findings::default();
        out.extend(findings);
        out
    }
}

impl<'a> IntoIterator for &'a mut Findings {
    type Item = &'a mut Finding;
    type IntoIter = std::slice::IterMut<'a, Finding>;
    fn into_iter(self) -> Self::IntoIter {
        self.held.iter_mut()
    }
}

impl<'a> IntoIterator for &'a Findings {
    type Item = &'a Finding;
    type IntoIter = std::slice::Iter<'a, Finding>;
    fn into_iter(self) -> Self::IntoIter {
        self.held.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(line: usize, severity: Severity) -> Finding {
        Finding {
            link: None,
            rule: "hygiene.repeated-word".into(),
            severity,
            path: "a.md".into(),
            line,
            column: 1,
            start: line,
            end: line,
            block: None,
            message: String::new(),
            matched: None,
            suggestion: None,
        }
    }

    #[test]
    fn past_the_cap_the_most_severe_then_the_first_are_kept_and_every_one_counted() {
        let mut set = Findings::with_cap(3);
        for line in (1..=20).rev() {
            let severity = if line == 17 {
                Severity::Critical
            } else {
                Severity::Minor
            };
            set.push(finding(line, severity));
        }
        assert_eq!(set.total(), 20);
        assert_eq!(set.counts(), [1, 0, 19, 0]);
        let (held, dropped) = set.into_sorted();
        let lines: Vec<usize> = held.iter().map(|f| f.line).collect();
        assert_eq!((lines, dropped), (vec![1, 2, 17], 17));
    }

    #[test]
    fn past_a_shrink_a_finding_that_sorts_last_is_known_not_to_be_held() {
        let mut set = Findings::with_cap(2);
        let place = |line: usize| (line, 1);
        assert!(set.would_hold(Severity::Info, "a.md", place(99), "x", 99));
        for line in 1..=4 {
            set.push(finding(line, Severity::Minor));
        }
        let rule = "hygiene.repeated-word";
        assert!(!set.would_hold(Severity::Minor, "a.md", place(3), rule, 3));
        assert!(set.would_hold(Severity::Minor, "a.md", place(1), rule, 0));
        assert!(set.would_hold(Severity::Critical, "z.md", place(9), rule, 9));
        set.count(Severity::Minor);
        assert_eq!(set.total(), 5);
    }

    #[test]
    fn append_adds_the_counts_of_what_the_other_let_go() {
        let mut a = Findings::with_cap(2);
        let mut b = Findings::with_cap(2);
        for line in 1..=5 {
            a.push(finding(line, Severity::Minor));
            b.push(finding(line + 10, Severity::Major));
        }
        a.append(b);
        assert_eq!(a.total(), 10);
        assert_eq!(a.counts(), [0, 5, 5, 0]);
        let (held, dropped) = a.into_sorted();
        assert_eq!(held.len() + dropped, 10);
        assert!(held.iter().all(|f| f.severity == Severity::Major));
    }

    #[test]
    fn under_the_cap_nothing_is_let_go() {
        let set: Findings = vec![finding(2, Severity::Minor), finding(1, Severity::Info)].into();
        let (held, dropped) = set.into_sorted();
        assert_eq!(dropped, 0);
        assert_eq!(held.iter().map(|f| f.line).collect::<Vec<_>>(), [1, 2]);
    }
}
