use super::*;
use crate::formats::conformance;
use crate::model::{Edition, Run, fingerprint_runs};

#[test]
fn the_corpus_round_trips_and_edits_one_block() {
    let edited = conformance::run_corpus(&Fluent, "fluent");
    assert!(edited > 30, "{edited}");
}
