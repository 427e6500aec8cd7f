//! Renderings of a finished [`crate::check::CheckReport`] for other tools: GitHub Actions
//! workflow commands ([`github`]), SARIF 2.1.0 ([`sarif`]) and Vale's line output ([`line`](mod@line)).
//! The report's own JSON is its `Serialize` (`kapi.check/v1`).

pub mod github;
pub mod line;
pub mod sarif;
