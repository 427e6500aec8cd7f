//! The formats this build reads and what each can do, resolved from its declaration alone:
//! `kapi formats` and MCP `list_formats`; one of them by id or by file, `kapi formats
//! describe` and MCP `describe_format` (a file's format found as `detect_format` finds it).

use std::collections::BTreeMap;

use kapi_core::formats::{self, FormatInfo};
use serde::Serialize;

use super::detect_format::{detect_at, judged};
use crate::app::{App, Base, ResolvedPath};
use crate::error::HostError;

/// `kapi.formats/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FormatList {
    pub schema: &'static str,
    pub formats: Vec<FormatRow>,
}

/// One format, resolved from its declaration alone (no file is read).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FormatRow {
    #[serde(flatten)]
    pub info: FormatInfo,
    pub reader: bool,
    pub writer: bool,
    pub editable: bool,
    pub round_trip: bool,
    pub generative: bool,
    pub bilingual: bool,
    /// A source file whose comments are its content (edited in the file, not by a change set).
    pub comments: bool,
    /// `faithful` (editable through a skeleton), `yes` (editable, rewritten whole), `comment`
    /// (a source file's comments, through `kapi apply`'s comment write path) or `no`.
    pub edit: &'static str,
    /// Each change operation and whether this format takes it: `yes`, `unsupported`, or
    /// `comment` (`set_content` on a source file's comment, through `kapi apply`'s comment write
    /// path; over MCP the agent edits the file and runs `check_file`).
    pub operations: BTreeMap<&'static str, &'static str>,
}

impl FormatRow {
    pub fn new(info: FormatInfo) -> Self {
        let c = info.capabilities;
        let edit = match (c.editable, c.round_trip) {
            (true, true) => "faithful",
            (true, false) => "yes",
            _ if c.comments => "comment",
            _ => "no",
        };
        let content = if c.editable { "yes" } else { "unsupported" };
        let set_content = if c.comments { "comment" } else { content };
        let operations = BTreeMap::from([
            ("set_content", set_content),
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
            comments: c.comments,
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

/// `kapi.format/v1`: one format and what it can do.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Described {
    pub schema: &'static str,
    #[serde(flatten)]
    pub format: FormatRow,
}

/// Which format to describe: by id, or the one kapi reads a file with (one of the two).
#[derive(Debug, Default, Clone)]
pub struct DescribeRequest {
    pub format: Option<String>,
    pub path: Option<String>,
}

/// The format `request` names. A path (a tool's: from the project's root, [`Base::Root`]) is
/// judged as [`detect`](super::detect_format::detect) judges it: its collection's declared format, else its extension,
/// else its first bytes (it need not exist).
pub fn describe(app: &App, request: &DescribeRequest) -> Result<Described, HostError> {
    let path = match given(request.path.as_deref()) {
        Some(path) => Some(judged(app, Base::Root, path)?),
        None => None,
    };
    describe_at(app, given(request.format.as_deref()), path.as_ref())
}

/// [`describe`] for a format id or a path already resolved ([`judged`]): one of the two.
pub fn describe_at(
    app: &App,
    format: Option<&str>,
    path: Option<&ResolvedPath>,
) -> Result<Described, HostError> {
    let row = match (given(format), path) {
        (Some(id), None) => formats::by_id(id)
            .map(|f| FormatRow::new(*f.info()))
            .ok_or_else(|| HostError::UnknownFormatId {
                format: id.to_owned(),
                field: app.surface.pick("FORMAT", "format"),
            })?,
        (None, Some(path)) => detect_at(app, Some(path), None)?.format.ok_or_else(|| {
            // Saying what the file is instead, where a format can tell (a drawable `.xml`).
            crate::document::unknown_format(path.given(), path.abs())
        })?,
        _ => {
            return Err(HostError::Usage {
                message: "name a format id or a file (one of them)".into(),
                hint: Some("`markdown`, or `docs/intro.md`".into()),
            });
        }
    };
    Ok(Described {
        schema: "kapi.format/v1",
        format: row,
    })
}

impl Described {
    /// The description as a person reads it: identity, what it can do, each operation.
    pub fn render(&self) -> String {
        let f = &self.format;
        let yes = |b: bool| if b { "yes" } else { "no" };
        let exts: Vec<String> = f.info.extensions.iter().map(|e| format!(".{e}")).collect();
        let mut out = format!(
            "{} ({})\nextensions   {}\nedit         {}\neditable     {}\nround trip   {}\ngenerative   {}\nbilingual    {}\n",
            f.info.name,
            f.info.id,
            if exts.is_empty() {
                "none".into()
            } else {
                exts.join(" ")
            },
            match f.edit {
                "faithful" =>
                    "faithful: an edit changes only the edited text, byte for byte elsewhere",
                "yes" => "yes: the file is rewritten whole",
                _ if f.bilingual => "no: bilingual, read and checked",
                _ => "no",
            },
            yes(f.editable),
            yes(f.round_trip),
            yes(f.generative),
            yes(f.bilingual),
        );
        for (op, takes) in &f.operations {
            out.push_str(&format!("{op:<13}{takes}\n"));
        }
        out
    }
}

/// A value the caller gave: set and not blank.
fn given(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside any project (`no_project`), so only the file's name decides.
    fn app() -> App {
        let env = crate::env::Env {
            no_project: true,
            ..Default::default()
        };
        App::new(env, std::env::temp_dir(), None)
    }

    #[test]
    fn a_format_is_described_by_id_or_by_file() {
        let by_id = |id: &str| {
            describe(
                &app(),
                &DescribeRequest {
                    format: Some(id.into()),
                    path: None,
                },
            )
        };
        let markdown = by_id("markdown").expect("markdown");
        assert_eq!(markdown.format.info.id, "markdown");
        assert_eq!(markdown.format.edit, "faithful");
        let text = markdown.render();
        assert!(
            text.starts_with("Markdown (markdown)\nextensions   .md"),
            "{text}"
        );
        assert!(text.contains("set_content  yes\n"), "{text}");
        assert!(matches!(
            by_id("nope"),
            Err(HostError::UnknownFormatId { .. })
        ));
        let po = describe(
            &app(),
            &DescribeRequest {
                format: None,
                path: Some("locale/fr.po".into()),
            },
        )
        .expect("po");
        assert_eq!(po.format.info.id, "po");
        let none = describe(
            &app(),
            &DescribeRequest {
                format: None,
                path: Some("a.unknown-ext".into()),
            },
        );
        assert!(matches!(none, Err(HostError::UnknownFormat { .. })));
        for both_or_neither in [
            DescribeRequest::default(),
            DescribeRequest {
                format: Some("markdown".into()),
                path: Some("a.md".into()),
            },
        ] {
            assert!(matches!(
                describe(&app(), &both_or_neither),
                Err(HostError::Usage { .. })
            ));
        }
    }
}
