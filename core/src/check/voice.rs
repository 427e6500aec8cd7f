//! TODO(helper) voice
