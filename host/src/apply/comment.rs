//! The comment write path: a source file whose comment an edit rewrote lands only when it
//! still parses with no syntax error it did not have (the same tree-sitter grammar that read
//! it), and when the language's formatter, where one is installed, leaves it as written.
//!
//! The formatter formats the file's text before and after the edit (standard input to
//! standard output, in the file's folder so its configuration applies): when it leaves the
//! file as it was read, it must leave the edited file as written, or the edit is refused with
//! the lines it would change. A formatter that is not installed, fails on the file as read,
//! or would already change the file as read, verifies nothing: the result says so
//! (`not_verified`), never a silent pass. A formatter gets [`FORMATTER_SECONDS`] a run.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kapi_core::change::result::CommentWrite;
use kapi_core::formats::code::{self, LANGS, Lang};

/// How long a formatter may run on one file.
pub const FORMATTER_SECONDS: u64 = 20;

/// A formatter, as a command reading the file on standard input; `{path}` is replaced by
/// the file's path (for the tools that pick their settings by it).
struct Formatter {
    lang: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

/// The formatters tried per language, in order: the first installed one is run.
const FORMATTERS: &[Formatter] = &[
    Formatter {
        lang: "rust",
        program: "rustfmt",
        args: &["--edition", "2021", "--emit", "stdout"],
    },
    Formatter {
        lang: "go",
        program: "gofmt",
        args: &[],
    },
    Formatter {
        lang: "python",
        program: "ruff",
        args: &["format", "--stdin-filename", "{path}", "-"],
    },
    Formatter {
        lang: "python",
        program: "black",
        args: &["-q", "--stdin-filename", "{path}", "-"],
    },
    Formatter {
        lang: "javascript",
        program: "prettier",
        args: &["--stdin-filepath", "{path}"],
    },
    Formatter {
        lang: "typescript",
        program: "prettier",
        args: &["--stdin-filepath", "{path}"],
    },
    Formatter {
        lang: "tsx",
        program: "prettier",
        args: &["--stdin-filepath", "{path}"],
    },
    Formatter {
        lang: "c",
        program: "clang-format",
        args: &["--assume-filename={path}"],
    },
    Formatter {
        lang: "cpp",
        program: "clang-format",
        args: &["--assume-filename={path}"],
    },
    Formatter {
        lang: "java",
        program: "clang-format",
        args: &["--assume-filename={path}"],
    },
    Formatter {
        lang: "csharp",
        program: "clang-format",
        args: &["--assume-filename={path}"],
    },
    Formatter {
        lang: "shell",
        program: "shfmt",
        args: &["--filename", "{path}"],
    },
    Formatter {
        lang: "swift",
        program: "swift-format",
        args: &[],
    },
    Formatter {
        lang: "toml",
        program: "taplo",
        args: &["fmt", "-"],
    },
];

/// The language a format id names, when it is a comment format.
pub fn lang_of(id: &str) -> Option<&'static Lang> {
    LANGS.iter().copied().find(|l| l.info.id == id)
}

/// Verifies an edited source file: `before` as read, `after` as it would be written, at `abs`
/// (`doc` names it in messages). `Err` refuses the edit, saying why.
pub fn verify(
    lang: &Lang,
    doc: &str,
    abs: &Path,
    before: &str,
    after: &[u8],
) -> Result<CommentWrite, String> {
    let Ok(after_text) = std::str::from_utf8(after) else {
        return Err(format!(
            "after this edit `{doc}` would not be UTF-8; nothing was written"
        ));
    };
    let errors = |text: &str| code::parse(lang, text).map(|t| code::syntax_errors(&t));
    let was = errors(before).map_err(|e| format!("`{doc}` does not parse: {e}"))?;
    let now = errors(after_text).map_err(|e| format!("`{doc}` after this edit: {e}"))?;
    if now > was {
        return Err(format!(
            "after this edit `{doc}` would not parse as {}: {now} syntax error(s) where it had {was}; nothing was written",
            lang.info.name
        ));
    }
    let mut write = CommentWrite {
        parses: true,
        formatter: None,
        not_verified: None,
    };
    match formatted(lang, abs, before, after_text) {
        Verdict::Agrees(program) => write.formatter = Some(format!("{program} agrees")),
        Verdict::Differs(program, line) => {
            return Err(format!(
                "`{program}` would change `{doc}` after this edit (first at line {line}): wrap the comment as the formatter does; nothing was written"
            ));
        }
        Verdict::NotVerified(why) => write.not_verified = Some(why),
    }
    Ok(write)
}

enum Verdict {
    Agrees(&'static str),
    /// The formatter would change the edited file, first at this line.
    Differs(&'static str, usize),
    NotVerified(String),
}

fn formatted(lang: &Lang, abs: &Path, before: &str, after: &str) -> Verdict {
    let candidates: Vec<&Formatter> = FORMATTERS
        .iter()
        .filter(|f| f.lang == lang.info.id)
        .collect();
    if candidates.is_empty() {
        return Verdict::NotVerified(format!("kapi knows no formatter for {}", lang.info.name));
    }
    let mut missing = Vec::new();
    for formatter in candidates {
        let was = match run(formatter, abs, before) {
            Ran::Missing => {
                missing.push(formatter.program);
                continue;
            }
            Ran::Failed(why) => {
                return Verdict::NotVerified(format!(
                    "`{}` failed on the file as read: {why}",
                    formatter.program
                ));
            }
            Ran::Output(out) => out,
        };
        if was != before {
            return Verdict::NotVerified(format!(
                "`{}` would change the file as read, so it cannot tell this edit's layout",
                formatter.program
            ));
        }
        return match run(formatter, abs, after) {
            Ran::Output(now) if now == after => Verdict::Agrees(formatter.program),
            Ran::Output(now) => Verdict::Differs(formatter.program, first_difference(after, &now)),
            Ran::Failed(why) => Verdict::NotVerified(format!(
                "`{}` failed on the edited file: {why}",
                formatter.program
            )),
            Ran::Missing => Verdict::NotVerified(format!("`{}` vanished", formatter.program)),
        };
    }
    Verdict::NotVerified(format!(
        "no formatter is installed (tried {})",
        missing
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The 1-based line where two texts first differ.
fn first_difference(a: &str, b: &str) -> usize {
    a.lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
        + 1
}

enum Ran {
    Missing,
    Failed(String),
    Output(String),
}

/// Runs a formatter over `text` on standard input, in the file's folder.
fn run(formatter: &Formatter, abs: &Path, text: &str) -> Ran {
    let path = abs.to_string_lossy();
    let args: Vec<String> = formatter
        .args
        .iter()
        .map(|a| a.replace("{path}", &path))
        .collect();
    let dir = abs.parent().filter(|d| d.is_dir());
    let mut command = Command::new(formatter.program);
    command
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ran::Missing,
        Err(e) => return Ran::Failed(e.to_string()),
    };
    let input = text.to_owned();
    let stdin = child.stdin.take();
    let feeder = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            // A formatter that stops reading early fails below, by its exit.
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let errors = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.take(64 * 1024).read_to_end(&mut out);
        }
        out
    });
    let deadline = Instant::now() + Duration::from_secs(FORMATTER_SECONDS);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = feeder.join();
    let out = reader.join().unwrap_or_default();
    let err = errors.join().unwrap_or_default();
    match status {
        None => Ran::Failed(format!("it ran past {FORMATTER_SECONDS} s and was stopped")),
        Some(status) if !status.success() => {
            let first = String::from_utf8_lossy(&err)
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .to_owned();
            Ran::Failed(format!("{status}: {first}"))
        }
        Some(_) => match String::from_utf8(out) {
            Ok(out) => Ran::Output(out),
            Err(_) => Ran::Failed("its output is not UTF-8".into()),
        },
    }
}
