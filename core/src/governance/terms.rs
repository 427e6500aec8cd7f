//! Terms files (placeholder until the governance work lands).
