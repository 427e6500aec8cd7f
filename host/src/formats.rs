//! The formats this build reads, as `kapi formats` and MCP `list_formats`/`describe_format`
//! report them: each resolved from its declaration alone, without reading a file.

use std::collections::BTreeMap;

use kapi_core::formats::{self, FormatInfo};
use serde::Serialize;

/// `kapi.formats/v1`.
#[derive(Debug, Serialize)]
pub struct FormatList {
    pub schema: &'static str,
    pub formats: Vec<FormatRow>,
}

/// One format, resolved from its declaration alone (no file is read).
#[derive(Debug, Serialize)]
pub struct FormatRow {
    #[serde(flatten)]
    pub info: FormatInfo,
    pub reader: bool,
    pub writer: bool,
    pub editable: bool,
    pub round_trip: bool,
    pub generative: bool,
    pub bilingual: bool,
    /// `faithful` (editable through a skeleton), `yes` (editable, rewritten whole) or `no`.
    pub edit: &'static str,
    /// Each change operation and whether this format takes it: `yes`, or `unsupported`.
    pub operations: BTreeMap<&'static str, &'static str>,
}

impl FormatRow {
    pub fn new(info: FormatInfo) -> Self {
        let c = info.capabilities;
        let edit = match (c.editable, c.round_trip) {
            (true, true) => "faithful",
            (true, false) => "yes",
            _ => "no",
        };
        let content = if c.editable { "yes" } else { "unsupported" };
        let operations = BTreeMap::from([
            ("set_content", content),
            ("replace_text", content),
            // A review decision on a target edition never writes the file.
            ("decide", "yes"),
        ]);
        FormatRow {
            info,
            reader: true,
            writer: true,
            editable: c.editable,
            round_trip: c.round_trip,
            generative: c.generative,
            bilingual: c.bilingual,
            edit,
            operations,
        }
    }
}

/// The formats this build reads, as a hint names them where `kapi formats` cannot be run
/// (an MCP caller): `kapi reads markdown, text, …`.
pub fn reads() -> String {
    format!("kapi reads {}", formats::ids().join(", "))
}

/// Every format this build reads.
pub fn list() -> FormatList {
    FormatList {
        schema: "kapi.formats/v1",
        formats: formats::all()
            .iter()
            .map(|f| FormatRow::new(*f.info()))
            .collect(),
    }
}
