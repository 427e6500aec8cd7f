//! Tests of the rule kinds, the package test (write-good against its feature file) and
//! hostile inputs.
