//! `kapi cat` (`kcat`): the readable prose of each block with its ref, and with `--editions`
//! its translations beside it (`kapi.cat/v1`). A block that is not prose (a code block,
//! commented-out code) is left out; a mark stands for nothing, each placeholder shows as
//! written (`{name}`) and a plural as its cases (`{one: # file | other: # files}`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use kapi_core::model::{Ref, Role, SOURCE};
use kapi_core::readable::Readable;
use kapi_core::text::LineIndex;
use serde::Serialize;

use crate::app::App;
use crate::document::Editions;
use crate::error::HostError;

/// What to print.
#[derive(Debug, Clone)]
pub struct CatRequest {
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub editions: Editions,
}

/// `kapi.cat/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Cat {
    pub schema: &'static str,
    pub files: Vec<CatFile>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CatFile {
    pub doc: String,
    pub format: &'static str,
    pub blocks: Vec<CatBlock>,
}

/// One prose block.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CatBlock {
    #[serde(rename = "ref")]
    pub at: Ref,
    /// 1-based line of the block in the file, when the format knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub role: Role,
    /// The readable prose ([`Readable::display`]).
    pub text: String,
    /// Each target edition asked for: its prose, `null` where the translation lacks it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub editions: BTreeMap<String, Option<String>>,
}

/// Reads each named file's prose blocks.
pub fn cat(app: &App, request: &CatRequest) -> Result<Cat, HostError> {
    let project = app.project()?;
    let files = super::files(
        app,
        project.as_ref(),
        &request.paths,
        request.recursive,
        "print",
    )?;
    let mut out = Vec::with_capacity(files.len());
    for file in &files {
        let loaded = super::load(app, project.as_ref(), file, &request.editions)?;
        let text = &loaded.parsed.skeleton.original;
        let lines = LineIndex::new(text);
        let langs: Vec<String> = match &request.editions {
            Editions::Source => Vec::new(),
            Editions::Some(langs) => langs.clone(),
            Editions::All => {
                let mut all: Vec<String> = loaded
                    .targets
                    .iter()
                    .map(|t| t.lang.clone())
                    .chain(
                        loaded
                            .parsed
                            .document
                            .blocks
                            .iter()
                            .flat_map(|b| b.targets.keys().cloned()),
                    )
                    .collect();
                all.sort();
                all.dedup();
                all
            }
        };
        let blocks = loaded
            .parsed
            .document
            .blocks
            .iter()
            .filter(|b| super::prose(b))
            .map(|b| CatBlock {
                at: Ref {
                    doc: loaded.doc.clone(),
                    block: b.key.clone(),
                    edition: SOURCE.into(),
                    branch: None,
                },
                line: super::block_line(&loaded, &lines, b),
                role: b.role,
                text: Readable::of(&b.source).display(),
                editions: langs
                    .iter()
                    .map(|l| {
                        (
                            l.clone(),
                            b.targets.get(l).map(|e| Readable::of(e).display()),
                        )
                    })
                    .collect(),
            })
            .collect();
        out.push(CatFile {
            doc: loaded.doc,
            format: loaded.format.info().id,
            blocks,
        });
    }
    Ok(Cat {
        schema: "kapi.cat/v1",
        files: out,
    })
}
