//! Loading governance for a point (placeholder until the governance work lands).
use super::TermEntry;
use super::voice::VoiceProfile;

pub fn fingerprint_of(voice: Option<&VoiceProfile>, terms: &[TermEntry]) -> String {
    let _ = (voice, terms);
    "g0000000000000000".to_owned()
}
