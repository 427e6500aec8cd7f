//! CLI tests: every module drives the real `kapi` binary in a temporary folder with a clean
//! environment (`NO_COLOR=1`, and `KAPI_NO_PROJECT=1` unless the test binds a project).

mod apple_strings;
mod apply;
mod arb;
mod asciidoc;
mod check;
mod check_cache;
mod check_prose;
mod check_stream;
mod check_suppress;
mod ci_example;
mod comments;
mod context;
mod context_notes;
mod context_search;
mod edit_route;
mod errors;
mod fluent;
mod functional_checks;
mod help;
mod host_actor;
mod hostile;
mod identity;
mod init;
mod inspect;
mod landing;
mod locales;
mod markdown_syntax;
mod mcp_wire;
mod mdx;
mod outside;
mod plurals;
mod pofilter;
mod precision;
mod qt;
mod recipe_keys;
mod resx;
mod review_fixes;
mod review_queue;
mod rst;
mod rules_files;
mod skill;
mod stale;
mod stats;
mod store;
mod terms_case;
mod toolbox;
mod toolbox_sed;
mod translate;
mod translate_gate;
mod translate_keep;
mod vale_packages;
mod wiring;
mod xcstrings;

use std::path::{Path, PathBuf};
use std::process::Output;

/// A temp folder, maybe seeded from `testdata/projects/<name>`, where `kapi` runs.
pub struct Kapi {
    dir: tempfile::TempDir,
    bind_project: bool,
    env: Vec<(String, String)>,
}

/// One finished run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Exit code, stdout and stderr as one text to snapshot.
    pub fn transcript(&self) -> String {
        format!(
            "exit: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
    pub fn stderr_json(&self) -> serde_json::Value {
        let line = self.stderr.lines().last().unwrap_or_default();
        serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}):\n{}", self.stderr))
    }
}

pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture dir");
    for entry in std::fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

impl Kapi {
    /// An empty folder; no project is discovered.
    pub fn empty() -> Self {
        Kapi {
            dir: tempfile::tempdir().expect("temp dir"),
            bind_project: false,
            env: Vec::new(),
        }
    }

    /// A copy of `testdata/projects/<name>`, bound as the project.
    pub fn with_project(name: &str) -> Self {
        let kapi = Kapi {
            dir: tempfile::tempdir().expect("temp dir"),
            bind_project: true,
            env: Vec::new(),
        };
        copy_dir(&testdata().join("projects").join(name), kapi.dir.path());
        kapi
    }

    /// An empty folder bound as the project (the test writes `kapi.yaml`).
    pub fn bound() -> Self {
        Kapi {
            dir: tempfile::tempdir().expect("temp dir"),
            bind_project: true,
            env: Vec::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(path, content).expect("write file");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).expect("read file")
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    #[allow(clippy::disallowed_methods)]
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kapi"));
        let mut cmd = std::process::Command::new(bin);
        cmd.current_dir(self.dir.path())
            .env_clear()
            .env("NO_COLOR", "1")
            .args(args);
        // kapi on PATH, as the entries `kapi init` writes expect it (a test may drop it).
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let dirs = bin
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .chain(std::env::split_paths(&inherited));
        if let Ok(path) = std::env::join_paths(dirs) {
            cmd.env("PATH", path);
        }
        if !self.bind_project {
            cmd.env("KAPI_NO_PROJECT", "1");
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(".", args)
    }

    pub fn run_in(&self, sub: &str, args: &[&str]) -> Run {
        let mut cmd = self.command(args);
        cmd.current_dir(self.dir.path().join(sub));
        let out: Output = cmd.output().expect("the kapi binary starts");
        self.finish(&out)
    }

    /// Runs with the variables `env` set on top of the test's own.
    pub fn run_env(&self, env: &[(&str, &str)], args: &[&str]) -> Run {
        let out = self
            .command(args)
            .envs(env.iter().copied())
            .output()
            .expect("the kapi binary starts");
        self.finish(&out)
    }

    /// Runs with `input` on standard input.
    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        use std::io::Write;
        let mut cmd = self.command(args);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("the kapi binary starts");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input);
        }
        let out = child.wait_with_output().expect("kapi finishes");
        self.finish(&out)
    }

    fn finish(&self, out: &Output) -> Run {
        let root = self
            .dir
            .path()
            .canonicalize()
            .expect("canonical temp dir")
            .display()
            .to_string();
        let raw = self.dir.path().display().to_string();
        let text = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes)
                .replace(&root, "[ROOT]")
                .replace(&raw, "[ROOT]")
        };
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: text(&out.stdout),
            stderr: text(&out.stderr),
        }
    }
}
