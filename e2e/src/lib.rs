//! The conformance suite lives in `tests/`; this crate has no library code.
