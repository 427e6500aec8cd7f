//! Markdown (placeholder until the formats work lands).
use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, Skeleton, WriteError};
use crate::model::Document;

pub const INFO: FormatInfo = FormatInfo {
    id: "markdown",
    name: "Markdown",
    extensions: &["md", "markdown", "mdx"],
    capabilities: Capabilities { editable: true, round_trip: true, generative: true, bilingual: false },
};

pub struct Markdown;

impl Format for Markdown {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }
    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        ReadError::decode(bytes)?;
        Ok(Parsed { document: Document { format: INFO.id.into(), blocks: vec![] }, skeleton: Skeleton::over(bytes) })
    }
    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        parsed.skeleton.fill(&parsed.document, |_, e| Ok(e.plain_text()))
    }
}
