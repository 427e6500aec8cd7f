//! Exit codes: one enum, one mapping from errors, documented for `kapi help exit-codes`.
//! They are public API: scripts and assistants branch on them.

/// How a run of `kapi` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 0: success; a check that passed its gate.
    Success,
    /// 1: operational error (I/O, store, a bad project or governance file).
    Error,
    /// 2: usage error, or input that does not decode (bad flags, a malformed change set).
    Usage,
    /// 3: a gate was not met: a failing check, a refused change set.
    GateNotMet,
    /// 130: interrupted.
    Interrupted,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Error => 1,
            Outcome::Usage => 2,
            Outcome::GateNotMet => 3,
            Outcome::Interrupted => 130,
        }
    }

    /// The `code` field of the JSON error envelope.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "ok",
            Outcome::Error => "error",
            Outcome::Usage => "usage",
            Outcome::GateNotMet => "gate",
            Outcome::Interrupted => "signal",
        }
    }

    /// Every code with its meaning, for `kapi help exit-codes`.
    pub const ALL: &[(u8, &str, &str)] = &[
        (0, "ok", "success; a check that passed its gate"),
        (
            1,
            "error",
            "operational error: I/O, the store, a bad project, voice or terms file, an unreadable file",
        ),
        (
            2,
            "usage",
            "usage error: bad flags, a missing argument, input that does not decode, or under `--strict` a recipe key kapi does not read",
        ),
        (
            3,
            "gate",
            "a gate was not met: `kapi check` found failing findings, `kapi apply` refused an operation (nothing was written), the actor may not run a person's verb (`kapi context review`), or `kapi inspect --verify` found a file that would not write back identical",
        ),
        (130, "signal", "interrupted (Ctrl-C)"),
    ];
}

/// The outcome an error maps to.
pub fn outcome_for(err: &anyhow::Error) -> Outcome {
    match kapi_host::kind_of(err) {
        kapi_host::ErrorKind::Usage => Outcome::Usage,
        kapi_host::ErrorKind::Operational => Outcome::Error,
        kapi_host::ErrorKind::Refused => Outcome::GateNotMet,
    }
}
