//! Every environment variable kapi reads, as documented constants, read in one place.
//! `core` never reads the environment; the host reads it here and passes values down.

/// A path to a recipe, a project root, or any path inside a project.
pub const KAPI_PROJECT: &str = "KAPI_PROJECT";
/// When set and non-empty, no project is discovered (tests and nested builds set it).
pub const KAPI_NO_PROJECT: &str = "KAPI_NO_PROJECT";
/// The session id operations are recorded under (default: one per process).
pub const KAPI_SESSION: &str = "KAPI_SESSION";
/// Who is calling from the command line: `person` (default), `agent` or `tool`, optionally
/// with a name (`agent:claude-code`).
pub const KAPI_ACTOR: &str = "KAPI_ACTOR";
/// Test hook, honoured by debug builds only: the index of the document whose rename a
/// change set's write fails, as a crash between two documents would.
pub const KAPI_TEST_FAIL_RENAME: &str = "KAPI_TEST_FAIL_RENAME";
/// Test hook, honoured by debug builds only: the index of the file whose rename a change
/// set's write waits before (up to 30 s) until a signal asks kapi to stop.
pub const KAPI_TEST_PAUSE_RENAME: &str = "KAPI_TEST_PAUSE_RENAME";
/// Test hook, honoured by debug builds only: non-empty makes recording a change set in the
/// store fail after its files landed, as a full disk would.
pub const KAPI_TEST_FAIL_RECORD: &str = "KAPI_TEST_FAIL_RECORD";
/// Test hook, honoured by debug builds only: non-empty makes `kapi hook` panic mid-evaluation,
/// to prove a panic still ends in the fail-open answer.
pub const KAPI_TEST_HOOK_PANIC: &str = "KAPI_TEST_HOOK_PANIC";
/// Claude Code's project root, exported to its hook processes; a hook whose payload names no
/// `cwd` resolves against it.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// KKSS's project folder, exported to its hook processes (same use).
pub const KKSS_PROJECT_ROOT: &str = "KKSS_PROJECT_ROOT";
/// When set and non-empty, no colour is written (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";

/// Every variable with its meaning, for `kapi help environment`.
pub const ALL: &[(&str, &str)] = &[
    (
        KAPI_PROJECT,
        "a recipe, a project root or any path inside a project to bind",
    ),
    (
        KAPI_NO_PROJECT,
        "non-empty: never discover a project (tests set it)",
    ),
    (KAPI_SESSION, "the session id operations are recorded under"),
    (
        KAPI_ACTOR,
        "`person` (default), `agent` or `tool`, optionally `kind:name`",
    ),
    (NO_COLOR, "non-empty: no colour in output"),
    (
        CLAUDE_PROJECT_DIR,
        "set by Claude Code for hooks: the folder `kapi hook` resolves against when the payload has no cwd",
    ),
    (
        KKSS_PROJECT_ROOT,
        "set by KKSS for hooks: the folder `kapi hook` resolves against when the payload has no cwd",
    ),
];

/// The environment as kapi uses it, read once at start-up.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub project: Option<std::path::PathBuf>,
    pub no_project: bool,
    pub session: Option<String>,
    pub actor: Option<String>,
    pub no_color: bool,
    /// [`KAPI_TEST_FAIL_RENAME`] (debug builds only).
    pub fail_rename: Option<usize>,
    /// [`KAPI_TEST_PAUSE_RENAME`] (debug builds only).
    pub pause_rename: Option<usize>,
    /// [`KAPI_TEST_FAIL_RECORD`] (debug builds only).
    pub fail_record: bool,
    /// [`KAPI_TEST_HOOK_PANIC`] (debug builds only).
    pub hook_panic: bool,
    /// [`CLAUDE_PROJECT_DIR`], else [`KKSS_PROJECT_ROOT`]: a hook host's project folder.
    pub host_project_dir: Option<std::path::PathBuf>,
}

impl Env {
    /// The one place kapi reads the environment.
    #[allow(clippy::disallowed_methods)]
    pub fn read() -> Self {
        let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Env {
            project: non_empty(KAPI_PROJECT).map(Into::into),
            no_project: non_empty(KAPI_NO_PROJECT).is_some(),
            session: non_empty(KAPI_SESSION).map(|v| v.to_string_lossy().into_owned()),
            actor: non_empty(KAPI_ACTOR).map(|v| v.to_string_lossy().into_owned()),
            no_color: non_empty(NO_COLOR).is_some(),
            fail_rename: if cfg!(debug_assertions) {
                non_empty(KAPI_TEST_FAIL_RENAME).and_then(|v| v.to_str()?.parse().ok())
            } else {
                None
            },
            pause_rename: if cfg!(debug_assertions) {
                non_empty(KAPI_TEST_PAUSE_RENAME).and_then(|v| v.to_str()?.parse().ok())
            } else {
                None
            },
            fail_record: cfg!(debug_assertions) && non_empty(KAPI_TEST_FAIL_RECORD).is_some(),
            hook_panic: cfg!(debug_assertions) && non_empty(KAPI_TEST_HOOK_PANIC).is_some(),
            host_project_dir: non_empty(CLAUDE_PROJECT_DIR)
                .or_else(|| non_empty(KKSS_PROJECT_ROOT))
                .map(Into::into),
        }
    }
}
