use super::*;
use crate::formats::conformance;

#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    assert!(conformance::run_corpus(&XcStrings, "xcstrings") >= 1);
}
