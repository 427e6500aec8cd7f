//! TODO(helper) github
