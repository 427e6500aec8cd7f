//! What the text tools share: the names `kcat`, `kgrep`, `ksed` and `kdiff` (a link of that
//! name runs `kapi cat` …), and grep's and diff's exit codes: 0 found (or the same), 1 not
//! found (or different), 2 trouble — any error, printed as every verb prints one.

use std::ffi::OsString;
use std::path::Path;

use crate::exit::Outcome;
use crate::printer::Printer;

/// The verb a link name stands for.
const LINKS: &[(&str, &str)] = &[
    ("kcat", "cat"),
    ("kgrep", "grep"),
    ("ksed", "sed"),
    ("kdiff", "diff"),
];

/// `args` as `kapi` reads them: `kgrep PATTERN` becomes `kapi grep PATTERN` when the binary
/// was run through a link named `kgrep` (`kgrep.exe` on Windows).
pub fn alias(mut args: Vec<OsString>) -> Vec<OsString> {
    let name = args
        .first()
        .and_then(|a| Path::new(a).file_stem())
        .and_then(|s| s.to_str())
        .and_then(|s| {
            LINKS
                .iter()
                .find(|(link, _)| *link == s)
                .map(|(_, verb)| *verb)
        });
    if let Some(verb) = name {
        args[0] = OsString::from("kapi");
        args.insert(1, OsString::from(verb));
    }
    args
}

/// An error in a grep- or diff-like verb: printed, and exit 2 as grep and diff exit on
/// trouble (1 means "no match" there).
pub fn trouble(err: anyhow::Error, printer: &Printer) -> Outcome {
    crate::report(
        &err,
        printer.json,
        printer.style.color && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    Outcome::Usage
}

/// A prose text on one line: each line break shown as a space.
pub fn one_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\n', '\r'], " ")
}
