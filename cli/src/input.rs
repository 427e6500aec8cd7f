//! A verb's input: a file, or `-` for standard input, read up to a cap; as bytes for the verb
//! to decode (`kapi apply`), or as the UTF-8 text every file read takes (`kapi redact`,
//! `kapi formats detect`).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use kapi_core::formats::ReadError;
use kapi_host::HostError;

/// The most a verb reads as text, as every file read does.
pub const MAX_TEXT: u64 = 100 * 1024 * 1024;

/// What was read: its name in messages (`<stdin>` for `-`) and at most `cap + 1` bytes, so
/// the caller can tell input past the cap.
pub fn read(input: &Path, app: &kapi_host::App, cap: u64) -> Result<(PathBuf, Vec<u8>), HostError> {
    let mut bytes = Vec::new();
    if input.as_os_str() == "-" {
        let name = PathBuf::from("<stdin>");
        return match io::stdin().lock().take(cap + 1).read_to_end(&mut bytes) {
            Ok(_) => Ok((name, bytes)),
            Err(e) => Err(HostError::io(&name, e)),
        };
    }
    let file = std::fs::File::open(app.absolute(input)).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            HostError::NoSuchPath {
                path: input.to_path_buf(),
            }
        } else {
            HostError::io(input, e)
        }
    })?;
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| HostError::io(input, e))?;
    Ok((input.to_path_buf(), bytes))
}

/// The input as text: refused past [`MAX_TEXT`], and unless it is UTF-8 (with the position
/// of the first byte that is not).
pub fn text(input: &Path, app: &kapi_host::App) -> Result<String, HostError> {
    let (path, bytes) = read(input, app, MAX_TEXT)?;
    if bytes.len() as u64 > MAX_TEXT {
        let size = bytes.len() as u64;
        return Err(HostError::TooLarge { path, size });
    }
    match ReadError::decode(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Err(source) => Err(HostError::Read { path, source }),
    }
}

/// `--editions`: `fr,de`, or `*` for every one; the source alone when absent or empty.
pub fn editions(arg: Option<&str>) -> kapi_host::document::Editions {
    use kapi_host::document::Editions;
    match arg.map(str::trim) {
        None | Some("") => Editions::Source,
        Some("*") => Editions::All,
        Some(list) => Editions::Some(
            list.split(',')
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty() && l != "source")
                .collect(),
        ),
    }
}
