//! The SQLite store (placeholder until the project work lands).
