//! The host's typed errors: what went wrong and where, each with the fix (`Hint`), and the
//! kind a caller maps to an exit code (usage or operational).

use std::path::PathBuf;

use kapi_core::Hint;
use kapi_core::formats::ReadError;

use crate::Surface;

/// How a caller should classify an error: bad usage (exit 2) or an operational failure (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Usage,
    Operational,
    /// The caller may not do this (the actor policy): exit 3, like a refused change set.
    Refused,
}

/// Errors the host returns to every surface.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("no kapi project here: no `kapi.yaml` in `{}` or any folder above it", .searched.display())]
    NoProject { searched: PathBuf },
    #[error("no PATH given and no kapi project here")]
    NothingToCheck,
    #[error("`{}` is outside the project at `{}`", .path.display(), .root.display())]
    OutsideProject { path: PathBuf, root: PathBuf },
    #[error("`{}` leads outside the project (to `{}`)", .path.display(), .target.display())]
    LeavesProject { path: PathBuf, target: PathBuf },
    #[error("`{}` is {} MB; kapi reads files up to 100 MB", .path.display(), .size / (1024 * 1024))]
    TooLarge { path: PathBuf, size: u64 },
    #[error("the cursor `{cursor}` belongs to another version of the file")]
    StaleCursor { cursor: String },
    #[error("`{}`: no such file or folder", .path.display())]
    NoSuchPath { path: PathBuf },
    #[error("`{}` is not a regular file (it is {what})", .path.display())]
    NotAFile { path: PathBuf, what: &'static str },
    #[error("`{}`: no format reads this file{}", .path.display(), .what.as_ref().map(|w| format!(": {w}")).unwrap_or_default())]
    UnknownFormat {
        path: PathBuf,
        /// What the file is instead, when a format can tell (an Android drawable).
        what: Option<String>,
    },
    #[error("`{format}` in `{field}` is not a format this build reads")]
    UnknownFormatId { format: String, field: String },
    #[error("{}:{source}", .path.display())]
    Read { path: PathBuf, source: ReadError },
    #[error("`{}`: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the project declares no content to check")]
    NoContent,
    #[error("no files to check under {paths}")]
    NoFilesMatched { paths: String },
    #[error("git: {message}")]
    Git { message: String },
    #[error("{0}")]
    Recipe(#[from] kapi_core::project::RecipeError),
    #[error("{0}")]
    Governance(#[from] kapi_core::governance::GovernanceError),
    /// A Vale configuration or rule file that cannot be used.
    #[error("{0}")]
    Vale(#[from] kapi_core::vale::styles::ValeError),
    #[error("{0}")]
    Store(#[from] kapi_core::store::StoreError),
    #[error("{0}")]
    Discover(#[from] kapi_core::project::discover::DiscoverError),
    #[error("{message}")]
    Usage {
        message: String,
        hint: Option<String>,
    },
    #[error("internal error: {message}")]
    Internal { message: String },
    /// A file kapi must edit, but whose markers it cannot read (a rules section not closed):
    /// an operational error (exit 1), nothing written.
    #[error("{message}")]
    BadFile { message: String, hint: String },
    /// The actor policy refuses the call before anything changes.
    #[error("{message}")]
    NotPermitted { message: String, instead: String },
    /// A change set that does not decode (exit 2): the input, then where and what.
    #[error("change set {input}: {error}")]
    ChangeSet {
        input: String,
        error: Box<kapi_core::change::DecodeError>,
    },
}

impl HostError {
    /// Refuses anything but a regular file or a folder: a FIFO, socket or device would block
    /// a read, or never end it.
    #[cfg(unix)]
    pub fn special_file(path: &std::path::Path, meta: &std::fs::Metadata) -> Option<Self> {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let what = if t.is_fifo() {
            "a named pipe"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_block_device() || t.is_char_device() {
            "a device"
        } else {
            return None;
        };
        Some(HostError::NotAFile {
            path: path.to_path_buf(),
            what,
        })
    }

    #[cfg(not(unix))]
    pub fn special_file(_: &std::path::Path, _: &std::fs::Metadata) -> Option<Self> {
        None
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            HostError::NothingToCheck | HostError::Usage { .. } | HostError::ChangeSet { .. } => {
                ErrorKind::Usage
            }
            // Refused only because the caller asked for a strict reading: a usage error.
            HostError::Recipe(kapi_core::project::RecipeError::UnknownKeys { .. }) => {
                ErrorKind::Usage
            }
            HostError::NotPermitted { .. } => ErrorKind::Refused,
            _ => ErrorKind::Operational,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HostError::Io {
            path: path.into(),
            source,
        }
    }
}

impl Hint for HostError {
    fn hints(&self) -> Vec<String> {
        self.hints_on(Surface::Cli)
    }
}

impl HostError {
    /// The message as `surface`'s caller reads it: over MCP a project named by the call's
    /// `project` (or the one the server was started with) is not a flag the caller typed.
    pub fn message_on(&self, surface: Surface) -> String {
        use kapi_core::project::discover::{DiscoverError, Origin};
        match (surface, self) {
            (
                Surface::Mcp,
                HostError::Discover(
                    DiscoverError::NotFound {
                        path,
                        origin: Origin::Flag,
                    }
                    | DiscoverError::NoProject {
                        path,
                        origin: Origin::Flag,
                    },
                ),
            ) => {
                let what = match self {
                    HostError::Discover(DiscoverError::NotFound { .. }) => "no such file or folder",
                    _ => "no `kapi.yaml` here or in any parent folder",
                };
                format!(
                    "{}: {what} (from the call's `project`, or the project the server was started with)",
                    path.display()
                )
            }
            _ => self.to_string(),
        }
    }

    /// The fixes, naming what the caller on `surface` types: a flag on the command line, a
    /// tool's field over MCP.
    pub fn hints_on(&self, surface: Surface) -> Vec<String> {
        let project = surface.project();
        match self {
            HostError::NoProject { .. } => {
                vec![format!("run `kapi init` to create one here, or pass {project}")]
            }
            HostError::NothingToCheck => vec![
                surface.pick("name files or folders: `kapi check docs/`", "name a file in `path`"),
                "or run inside a kapi project (`kapi init` creates one)".into(),
            ],
            HostError::OutsideProject { .. } => vec![
                format!("name a path inside the project, or pass {project} for the project that holds it"),
            ],
            HostError::NoSuchPath { .. } => vec!["check the path for typos".into()],
            HostError::NotAFile { .. } => vec![
                "name a regular file; to check text from a pipe, save it to a file first".into(),
            ],
            HostError::LeavesProject { .. } => vec![
                format!("a symlink may not lead a read out of the project; name the file where it lives, with {project} for its project"),
            ],
            HostError::StaleCursor { .. } => {
                vec![format!("the file changed between pages: read again from the start, without {}", surface.field("cursor"))]
            }
            HostError::TooLarge { .. } => vec![
                "split the file, or exclude it with `defaults.exclude` in `kapi.yaml`".into(),
            ],
            HostError::UnknownFormat { .. } | HostError::UnknownFormatId { .. } => {
                vec![surface.pick("run `kapi formats` to list the formats this build reads", crate::services::formats::reads())]
            }
            HostError::Read { source, .. } => source.hints(),
            HostError::Io { .. } => vec![],
            HostError::NoContent => vec![
                "declare content under `collections` in `kapi.yaml`, e.g. `- path: \"docs/**/*.md\"`".into(),
            ],
            HostError::NoFilesMatched { .. } => {
                vec![surface.pick("run `kapi formats` to see which file extensions kapi reads", format!("{}: name files in one of them", crate::services::formats::reads()))]
            }
            HostError::Git { .. } => vec!["run it inside a git work tree and name a revision git knows, e.g. `HEAD`".into()],
            HostError::Recipe(e) => e.hints(),
            HostError::Governance(e) => e.hints(),
            HostError::Vale(e) => e.hints(),
            HostError::Store(e) => e.hints(),
            HostError::Discover(e) => match (surface, e) {
                (
                    Surface::Mcp,
                    kapi_core::project::discover::DiscoverError::NotFound { .. }
                    | kapi_core::project::discover::DiscoverError::NoProject { .. },
                ) => vec![format!(
                    "run `kapi init` to create a project, or pass {project} to name one"
                )],
                _ => e.hints(),
            },
            HostError::Usage { hint, .. } => hint.iter().cloned().collect(),
            HostError::BadFile { hint, .. } => vec![hint.clone()],
            HostError::Internal { .. } => vec!["run it again; if it repeats, report it with the command".into()],
            HostError::ChangeSet { error, .. } => match surface {
                Surface::Cli => error.hints(),
                Surface::Mcp => error
                    .hint
                    .iter()
                    .cloned()
                    .chain(["`apply_edits`'s input schema (`tools/list`) is the change set's JSON Schema".to_owned()])
                    .collect(),
            },
            HostError::NotPermitted { instead, .. } => vec![instead.clone()],
        }
    }
}

/// The hints an error chain offers, from the first error in it that carries some.
pub fn hints_for(err: &anyhow::Error) -> Vec<String> {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<HostError>() {
            return e.hints();
        }
    }
    Vec::new()
}

/// The kind of an error chain: usage when a [`HostError`] in it says so, else operational.
pub fn kind_of(err: &anyhow::Error) -> ErrorKind {
    err.chain()
        .find_map(|c| c.downcast_ref::<HostError>().map(HostError::kind))
        .unwrap_or(ErrorKind::Operational)
}
