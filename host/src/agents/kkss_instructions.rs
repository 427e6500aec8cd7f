//! kapi's block at the top of KKSS's `.kkss/assistant/instructions.md`, between its markers,
//! inside the first characters KKSS reads.

use std::path::Path;

use super::HostWiring;
use super::host_files::{Plan, read_existing};

/// KKSS reads only the first 6,000 characters of `instructions.md`.
pub const KKSS_INSTRUCTIONS_WINDOW: usize = 6000;
pub const KKSS_BEGIN: &str = "<!-- kapi:begin -->";
pub const KKSS_END: &str = "<!-- kapi:end -->";

/// kapi's block at the top of KKSS's `instructions.md` (kept well under 800 characters).
const KKSS_BLOCK: &str = "kapi keeps this project's voice, terms and check gate (kapi.yaml). \
Follow the rules in kapi's section of AGENTS.md; call kapi__context_read for a file no rule covers. \
Record what the project does every time with kapi__context_note (with the path it was seen in), \
and the wording the person changes. Run kapi__check_file on each changed file before reporting \
done. Load the kapi skill for the details.";

/// kapi's block at the top of `.kkss/assistant/instructions.md`, between its markers.
pub(super) fn kkss_instructions(
    root: &Path,
    plan: &mut Plan,
    wiring: &mut HostWiring,
) -> Result<(), String> {
    const REL: &str = ".kkss/assistant/instructions.md";
    let existing = read_existing(root, REL)?;
    let text = existing.clone().unwrap_or_default();
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = format!("{KKSS_BEGIN}{nl}{KKSS_BLOCK}{nl}{KKSS_END}{nl}");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let is = |l: &str, m: &str| l.trim() == m;
    let begin = lines.iter().position(|l| is(l, KKSS_BEGIN));
    let end = lines.iter().position(|l| is(l, KKSS_END));
    let out = match (begin, end) {
        (None, None) => {
            if text.is_empty() {
                block
            } else {
                format!("{block}{nl}{text}")
            }
        }
        (Some(b), Some(e)) if e > b => {
            let start: usize = lines[..b].iter().map(|l| l.len()).sum();
            if text[..start].chars().count() + block.chars().count() > KKSS_INSTRUCTIONS_WINDOW {
                wiring.warnings.push(format!(
                    "{REL}: kapi's block ends beyond the first {KKSS_INSTRUCTIONS_WINDOW} characters KKSS reads; move it to the top"
                ));
            }
            let after: String = lines[e + 1..].concat();
            format!("{}{block}{after}", &text[..start])
        }
        (Some(b), _) => {
            return Err(format!(
                "{REL}: line {}: kapi's block opens here and is not closed (no `{KKSS_END}` after it); close or delete it and run `kapi init` again",
                b + 1
            ));
        }
        (None, Some(e)) => {
            return Err(format!(
                "{REL}: line {}: `{KKSS_END}` closes no block; delete it and run `kapi init` again",
                e + 1
            ));
        }
    };
    if existing.as_deref() != Some(out.as_str()) {
        plan.writes.push((REL.to_owned(), out.into_bytes()));
    }
    Ok(())
}
