//! Voice profiles (placeholder until the governance work lands).
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VoiceProfile {
    pub name: String,
}
