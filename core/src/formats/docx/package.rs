//! The zip package of a Word document: reading its parts within the size limit, and
//! rebuilding the zip around a rewritten `document.xml`.

use std::io::{Cursor, Read, Write};

use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::blocks::read_document;
use super::styles::read_styles;
use super::{DOCUMENT, STYLES};
use crate::formats::xml;
use crate::formats::{Parsed, ReadError, WriteError};

/// A read error about the package rather than a position in a part.
fn package_error(message: impl Into<String>) -> ReadError {
    ReadError::Syntax {
        line: 1,
        column: 1,
        message: message.into(),
    }
}

pub(super) fn read_limited(
    bytes: &[u8],
    limit: u64,
    each: Option<crate::formats::Each<'_>>,
) -> Result<Parsed, ReadError> {
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        package_error(format!(
            "not a Word document: the file is not a readable zip archive (truncated or \
             damaged?): {e}"
        ))
    })?;
    // One budget for every part read: what has inflated so far counts against the rest.
    let mut budget = Inflated { limit, used: 0 };
    let xml = budget.part(&mut archive, DOCUMENT)?.ok_or_else(|| {
        package_error(format!(
            "not a Word document: the zip archive has no `{DOCUMENT}`"
        ))
    })?;
    let styles = budget
        .part(&mut archive, STYLES)?
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map(|text| read_styles(&text))
        .unwrap_or_default();
    let text = decode_part(xml)?;
    let mut parsed = read_document(text, &styles, each)?;
    parsed.container = Some(bytes.to_vec());
    Ok(parsed)
}

/// The inflated bytes the parts read so far take, against one limit for the package.
struct Inflated {
    limit: u64,
    used: u64,
}

impl Inflated {
    /// The decompressed bytes of the entry `name`, `None` when the archive has none. The
    /// declared size is never trusted: the part is read through the bytes left of the limit
    /// (plus one, to tell a part that fits from one that goes past), so an inflation bomb
    /// stops as soon as it passes the limit.
    fn part(
        &mut self,
        archive: &mut ZipArchive<Cursor<&[u8]>>,
        name: &str,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let file = match archive.by_name(name) {
            Ok(file) => file,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(package_error(format!("cannot open `{name}`: {e}"))),
        };
        let left = self.limit.saturating_sub(self.used);
        let too_big = || ReadError::TooLarge {
            at: name.to_owned(),
            message: format!(
                "the Word document inflates past {}: kapi reads at most {} of a file, \
                 counting a zip's parts as they inflate",
                megabytes(self.limit),
                megabytes(self.limit)
            ),
        };
        if file.size() > left {
            return Err(too_big());
        }
        // The declared size is a hint for the buffer only (it is at most `left`).
        let mut out = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0));
        file.take(left + 1)
            .read_to_end(&mut out)
            .map_err(|e| package_error(format!("cannot decompress `{name}`: {e}")))?;
        if out.len() as u64 > left {
            return Err(too_big());
        }
        self.used += out.len() as u64;
        Ok(Some(out))
    }
}

/// `n` bytes for a message: `100 MB`, or `1000 bytes` below a megabyte.
pub(super) fn megabytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MB", n / (1024 * 1024))
    } else {
        format!("{n} bytes")
    }
}

/// `document.xml` as UTF-8 text (the bytes themselves, not a copy); other encodings are
/// refused.
fn decode_part(bytes: Vec<u8>) -> Result<String, ReadError> {
    let utf16 = bytes.starts_with(&[0xFF, 0xFE])
        || bytes.starts_with(&[0xFE, 0xFF])
        || bytes.first() == Some(&0)
        || bytes.get(1) == Some(&0);
    if utf16 {
        return Err(package_error(format!(
            "`{DOCUMENT}` is UTF-16; kapi reads Word documents whose XML is UTF-8 (save the \
             document again from Word)"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
        ReadError::syntax_at(
            before,
            at,
            format!("`{DOCUMENT}` is not valid UTF-8 (byte {at})"),
        )
    })?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Some(label) = xml::declared_encoding(body.as_bytes())
        && !matches!(label.to_ascii_lowercase().as_str(), "utf-8" | "utf8")
    {
        return Err(package_error(format!(
            "`{DOCUMENT}` declares the encoding {label:?}; kapi reads Word documents whose XML \
             is UTF-8"
        )));
    }
    Ok(text)
}

fn container_error(e: impl std::fmt::Display) -> WriteError {
    WriteError::Container {
        message: format!("cannot rebuild the Word document's zip: {e}"),
    }
}

/// The zip again, with `document.xml` replaced and every other entry copied raw.
pub(super) fn rebuild(container: &[u8], xml: &[u8]) -> Result<Vec<u8>, WriteError> {
    let mut archive = ZipArchive::new(Cursor::new(container)).map_err(container_error)?;
    let mut writer = ZipWriter::new(Cursor::new(Vec::with_capacity(
        container.len() + xml.len() / 4,
    )));
    writer
        .set_raw_comment(archive.comment().into())
        .map_err(container_error)?;
    for index in 0..archive.len() {
        let file = archive.by_index_raw(index).map_err(container_error)?;
        if file.name_raw() != DOCUMENT.as_bytes() {
            writer.raw_copy_file(file).map_err(container_error)?;
            continue;
        }
        let method = match file.compression() {
            CompressionMethod::Stored => CompressionMethod::Stored,
            _ => CompressionMethod::Deflated,
        };
        let mut options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(xml.len() as u64 >= u64::from(u32::MAX));
        if let Some(time) = file.last_modified() {
            options = options.last_modified_time(time);
        }
        if let Some(mode) = file.unix_mode() {
            options = options.unix_permissions(mode);
        }
        drop(file);
        writer
            .start_file(DOCUMENT, options)
            .map_err(container_error)?;
        writer.write_all(xml).map_err(container_error)?;
    }
    let cursor = writer.finish().map_err(container_error)?;
    Ok(cursor.into_inner())
}
