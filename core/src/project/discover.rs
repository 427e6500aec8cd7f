//! placeholder until the project work lands
