//! Scores: a file's is 100 minus its findings' penalties (critical 25, major 5, minor 1), floored
//! at 0; a project's, or a folder's, is the mean of its files' scores weighted by their words.
//!
//! Why weighted: summing every penalty in a tree gave the untouched React docs `score 0` — a
//! number that says only that the tree is large. The mean says how clean a typical word is,
//! and does not move when a clean file is added or a big tree checked. A file with no words (a
//! catalog that failed to read, a page of code blocks) weighs nothing; when no file has words,
//! every file weighs the same. Suppressed findings cost nothing.
//!
//! Thresholds: the voice in force at a file may set `min_score`, which that file must reach (a
//! profile's voice file sets it for the files the profile governs); the recipe's
//! `gates.min_score` (or `--min-score`) is held by the whole. The gate names each threshold
//! that failed.

use serde::Serialize;

use super::findings::slot;
use crate::governance::Severity;

/// One file of a check, for its score: how many words were checked in it and its findings by
/// severity (critical, major, minor, info), and the minimum its voice sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTally {
    pub path: String,
    pub words: usize,
    pub counts: [usize; 4],
    /// `min_score` of the voice in force, with the voice file that sets it.
    pub min_score: Option<(u32, String)>,
}

impl FileTally {
    pub fn score(&self) -> u32 {
        score_of(self.counts)
    }

    pub fn findings(&self) -> usize {
        self.counts.iter().sum()
    }

    /// Counts one finding of `severity` against the file.
    pub fn count(&mut self, severity: Severity) {
        self.counts[slot(severity)] += 1;
    }
}

/// One file's score as the report lists it (files with findings, or below their minimum).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileScore {
    pub path: String,
    pub words: usize,
    pub findings: usize,
    pub score: u32,
    /// The minimum its voice sets, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_score: Option<u32>,
    /// The voice file that sets `min_score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voice: Option<String>,
}

/// 100 minus the penalties of findings counted by severity, floored at 0.
pub fn score_of(counts: [usize; 4]) -> u32 {
    let [critical, major, minor, info] = counts;
    let cost = |n: usize, severity: Severity| {
        u32::try_from(n)
            .unwrap_or(u32::MAX)
            .saturating_mul(severity.penalty())
    };
    let penalty = cost(critical, Severity::Critical)
        .saturating_add(cost(major, Severity::Major))
        .saturating_add(cost(minor, Severity::Minor))
        .saturating_add(cost(info, Severity::Info));
    100u32.saturating_sub(penalty)
}

/// The word-weighted mean of the files' scores, rounded down, so a tree scores 100 only when
/// every file does and the gate's `min_score` holds the exact mean (99.75 is 99, below a
/// minimum of 100); every file weighs the same when none has words; 100 for no file.
pub fn mean(files: &[FileTally]) -> u32 {
    let words: u128 = files.iter().map(|f| f.words as u128).sum();
    let (sum, weight) = if words > 0 {
        let sum: u128 = files
            .iter()
            .map(|f| f.words as u128 * u128::from(f.score()))
            .sum();
        (sum, words)
    } else {
        let sum: u128 = files.iter().map(|f| u128::from(f.score())).sum();
        (sum, files.len() as u128)
    };
    if weight == 0 {
        return 100;
    }
    u32::try_from(sum / weight).unwrap_or(100)
}

/// The files the report lists: those with findings or below their minimum, by path.
pub fn listed(files: &[FileTally]) -> Vec<FileScore> {
    let mut listed: Vec<FileScore> = files
        .iter()
        .filter(|f| f.findings() > 0 || below(f).is_some())
        .map(|f| FileScore {
            path: f.path.clone(),
            words: f.words,
            findings: f.findings(),
            score: f.score(),
            min_score: f.min_score.as_ref().map(|(m, _)| *m),
            voice: f.min_score.as_ref().map(|(_, v)| v.clone()),
        })
        .collect();
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    listed
}

/// The minimum a file misses, with the voice that sets it.
fn below(file: &FileTally) -> Option<(u32, &str)> {
    let (min, voice) = file.min_score.as_ref()?;
    (file.score() < *min).then_some((*min, voice.as_str()))
}

/// How many files of a failing minimum the gate's reason names before "and N more".
const NAMED: usize = 3;

/// The gate's reason for files below their voice's minimum, if any is.
pub fn files_below(files: &[FileTally]) -> Option<String> {
    let mut failing: Vec<(&FileTally, u32, &str)> = files
        .iter()
        .filter_map(|f| below(f).map(|(min, voice)| (f, min, voice)))
        .collect();
    if failing.is_empty() {
        return None;
    }
    failing.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    let named: Vec<String> = failing
        .iter()
        .take(NAMED)
        .map(|(f, min, voice)| {
            format!(
                "{} scores {}, below the minimum {min} its voice sets ({voice})",
                f.path,
                f.score()
            )
        })
        .collect();
    let more = failing.len().saturating_sub(NAMED);
    let mut reason = named.join("; ");
    if more > 0 {
        reason.push_str(&format!(
            "; and {more} more file{} below {}",
            if more == 1 { "" } else { "s" },
            if more == 1 { "its minimum" } else { "theirs" }
        ));
    }
    Some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, words: usize, counts: [usize; 4]) -> FileTally {
        FileTally {
            path: path.into(),
            words,
            counts,
            min_score: None,
        }
    }

    #[test]
    fn a_file_s_score_is_100_minus_its_penalties() {
        assert_eq!(score_of([0, 0, 0, 0]), 100);
        assert_eq!(score_of([1, 2, 3, 9]), 100 - 25 - 10 - 3);
        assert_eq!(score_of([9, 0, 0, 0]), 0);
        assert_eq!(score_of([usize::MAX, usize::MAX, 0, 0]), 0);
    }

    #[test]
    fn a_tree_s_score_is_the_word_weighted_mean() {
        // 223 clean-ish files do not add up to zero.
        let files: Vec<FileTally> = (0..223)
            .map(|i| file(&format!("f{i}.md"), 1000, [0, 1, 3, 0]))
            .collect();
        assert_eq!(mean(&files), 92);
        let files = [
            file("big.md", 9000, [0, 0, 0, 0]),
            file("small.md", 1000, [2, 0, 0, 0]),
        ];
        assert_eq!(mean(&files), 95);
        let wordless = [
            file("a.json", 0, [0, 2, 0, 0]),
            file("b.json", 0, [0, 0, 0, 0]),
        ];
        assert_eq!(mean(&wordless), 95);
        assert_eq!(mean(&[]), 100);
        let huge = [
            file("a", usize::MAX, [0, 0, 0, 0]),
            file("b", usize::MAX, [4, 0, 0, 0]),
        ];
        assert_eq!(mean(&huge), 50);
        // A tree scores 100 only when every file does: 99.75 is 99, below a minimum of 100.
        let almost = [
            file("bad.md", 9, [0, 2, 0, 0]),
            file("good.md", 351, [0, 0, 0, 0]),
        ];
        assert_eq!(mean(&almost), 99);
    }

    #[test]
    fn files_below_their_voice_s_minimum_are_named_a_few_at_a_time() {
        let mut files: Vec<FileTally> = (1..=5)
            .map(|i| {
                let mut f = file(&format!("docs/{i}.md"), 10, [0, i, 0, 0]);
                f.min_score = Some((90, ".kapi/voice.yaml".into()));
                f
            })
            .collect();
        assert_eq!(
            files_below(&files).as_deref(),
            Some(
                "docs/3.md scores 85, below the minimum 90 its voice sets (.kapi/voice.yaml); \
                 docs/4.md scores 80, below the minimum 90 its voice sets (.kapi/voice.yaml); \
                 docs/5.md scores 75, below the minimum 90 its voice sets (.kapi/voice.yaml)"
            )
        );
        files.push(file("docs/clean.md", 5, [0, 0, 0, 0]));
        let listed = listed(&files);
        assert_eq!(listed.len(), 5, "the clean file is not listed");
        assert_eq!(listed[0].min_score, Some(90));
        for f in &mut files {
            f.counts = [0, 4, 0, 0];
        }
        let reason = files_below(&files).unwrap_or_default();
        assert!(
            reason.ends_with("; and 2 more files below theirs"),
            "{reason}"
        );
    }
}
