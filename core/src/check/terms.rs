//! TODO(helper) terms
