//! The printer: the only code that writes results to stdout. A result implements `Serialize`
//! (its JSON form) and `Render` (its text form); `--json` picks which, never the logic.

use std::io::{self, Write};

/// Colour choices; colour never carries meaning on its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Wraps `text` in an ANSI colour when colour is on.
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
}

/// A result people read.
pub trait Render: serde::Serialize {
    /// Writes the text form; `style` may add colour, never meaning.
    fn render(&self, out: &mut dyn Write, style: &Style) -> io::Result<()>;
}

/// A service's report whose text form is the one string the service renders (what MCP
/// answers with too): JSON as the report, text as that string, ending in one newline.
pub struct Rendered<'a, T>(pub &'a T, pub fn(&T) -> String);

impl<T: serde::Serialize> serde::Serialize for Rendered<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<T: serde::Serialize> Render for Rendered<'_, T> {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        writeln!(out, "{}", (self.1)(self.0).trim_end())
    }
}

/// Writes results to stdout.
pub struct Printer {
    pub json: bool,
    pub quiet: bool,
    pub style: Style,
    out: io::Stdout,
}

impl Printer {
    pub fn new(json: bool, quiet: bool, style: Style) -> Self {
        Printer {
            json,
            quiet,
            style,
            out: io::stdout(),
        }
    }

    /// Prints a result as JSON or text. A reader that went away is not an error.
    pub fn emit<T: Render>(&mut self, value: &T) -> io::Result<()> {
        self.emit_as(value, self.json)
    }

    /// Prints a result as JSON or text whatever `--json` said (a verb's `--format` chose),
    /// through one buffer: stdout alone writes a line at a time, a `write` each.
    pub fn emit_as<T: Render>(&mut self, value: &T, json: bool) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(64 << 10, self.out.lock());
        let written = if json {
            serde_json::to_writer(&mut out, value)
                .map_err(io::Error::from)
                .and_then(|()| writeln!(out))
        } else {
            value.render(&mut out, &self.style)
        };
        quiet_pipe(written.and_then(|()| out.flush()))
    }

    /// Writes a result as `write` makes it, through one buffer, so a long one is never held
    /// whole. A reader that went away is not an error.
    pub fn stream(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(64 << 10, self.out.lock());
        quiet_pipe(write(&mut out).and_then(|()| out.flush()))
    }

    /// A writer to stdout that other threads share, for a result printed while it is made (a
    /// check's findings as their files finish).
    pub fn live(&self) -> Live {
        Live {
            out: std::sync::Mutex::new(io::BufWriter::with_capacity(64 << 10, io::stdout())),
            flush_each: std::io::IsTerminal::is_terminal(&self.out),
            error: std::sync::Mutex::new(None),
            style: self.style,
        }
    }

    /// Prints raw text (a rendering chosen by a flag, such as SARIF or GitHub annotations).
    pub fn raw(&mut self, text: &str) -> io::Result<()> {
        let mut out = self.out.lock();
        quiet_pipe(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
    }

    /// A note for the person on stderr; under `--json`, one `{"note": "..."}` line, so
    /// stderr holds only JSON as the contract says.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let mut err = io::stderr().lock();
            if self.json {
                let _ = writeln!(err, "{}", serde_json::json!({ "note": text }));
            } else {
                let _ = writeln!(err, "{text}");
            }
        }
    }
}

/// Stdout shared by threads ([`Printer::live`]): each write is whole (one call at a time);
/// a terminal sees each at once, a pipe or file gets full buffers. The first error is kept
/// for [`Live::finish`].
pub struct Live {
    out: std::sync::Mutex<io::BufWriter<io::Stdout>>,
    flush_each: bool,
    error: std::sync::Mutex<Option<io::Error>>,
    pub style: Style,
}

impl Live {
    /// Writes what `write` makes (nothing more once a write failed).
    pub fn write(&self, write: impl FnOnce(&mut dyn Write, &Style) -> io::Result<()>) {
        let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if error.is_some() {
            return;
        }
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let mut written = write(&mut *out, &self.style);
        if self.flush_each {
            written = written.and_then(|()| out.flush());
        }
        if let Err(e) = written {
            *error = Some(e);
        }
    }

    /// Flushes what is left; the first write error, if any (a reader that went away is not
    /// one).
    pub fn finish(self) -> io::Result<()> {
        let mut out = self.out.into_inner().unwrap_or_else(|e| e.into_inner());
        let error = self.error.into_inner().unwrap_or_else(|e| e.into_inner());
        quiet_pipe(match error {
            Some(e) => Err(e),
            None => out.flush(),
        })
    }
}

fn quiet_pipe(result: io::Result<()>) -> io::Result<()> {
    result.or_else(|e| {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Ok(())
        } else {
            Err(e)
        }
    })
}
