//! TODO(helper) hygiene
