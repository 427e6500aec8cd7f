//! TODO(helper) sarif
