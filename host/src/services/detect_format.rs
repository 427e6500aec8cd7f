//! `detect_format`: the format kapi would read a path or a text with (a collection's declared
//! format, else the extension, else the first bytes; for a text alone, its content), and
//! what that format can do. MCP's `detect_format` and `kapi formats detect`. A path is
//! resolved once ([`judged`]): it need not exist, and one outside the project is judged by its
//! name alone.

use std::path::Path;

use kapi_core::formats::{self, Format};
use serde::Serialize;

use crate::app::{App, Base, ResolvedPath};
use crate::error::HostError;

/// What to detect: a path (it need not exist; its collection's declared format wins), its
/// content to sniff (alone, or beside the path when formats share its extension), or both.
#[derive(Debug, Default, Clone)]
pub struct DetectRequest {
    pub path: Option<String>,
    pub content: Option<String>,
}

/// `kapi.detect-format/v1`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Detected {
    pub schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How it was found: `declared` (a collection names it), `extension`, `sniff` (formats
    /// share the extension; the first bytes decided) or `content` (no path: the content alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'static str>,
    /// The format and what it can do; `null` when no format reads it.
    pub format: Option<crate::services::formats::FormatRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The XML catalog formats a head shows (`lower` is it in lower case): Qt's `<TS>`, a
/// `.stringsdict` plist, a `.resx` `<root>` of `<data>`.
fn xml_catalogs(head: &[u8], lower: &str, guesses: &mut Vec<Option<&'static dyn Format>>) {
    if kapi_core::formats::qt::is_ts(head) {
        guesses.push(formats::by_id("qt"));
    }
    if lower.contains("<plist") && lower.contains("nsstringlocalizedformatkey") {
        guesses.push(formats::by_id("stringsdict"));
    }
    if lower.contains("<root") && lower.contains("<data ") {
        guesses.push(formats::by_id("resx"));
    }
}

/// The format for content alone: markup, data or prose, each guess confirmed by its reader.
fn sniff_content(content: &str) -> Option<(&'static dyn Format, &'static str)> {
    let t = content.trim_start_matches('\u{feff}').trim_start();
    if t.is_empty() {
        return None;
    }
    let head = &t.as_bytes()[..t.len().min(4096)];
    let reads = |f: &'static dyn Format| f.read(content.as_bytes()).is_ok();
    let by = |id: &str| formats::by_id(id).filter(|f| reads(*f));
    let mut guesses: Vec<Option<&'static dyn Format>> = Vec::new();
    if t.starts_with('<') {
        let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
        xml_catalogs(head, &lower, &mut guesses);
        if lower.contains("<xliff") {
            guesses.push(formats::for_file(Path::new("content.xlf"), head));
        }
        if lower.contains("<resources") {
            guesses.push(formats::for_file(Path::new("content.xml"), head));
        }
        if !lower.starts_with("<?xml") || lower.contains("<html") {
            guesses.push(formats::by_id("html"));
        }
    }
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(value) = serde_json::from_str::<serde_json::Value>(t)
    {
        // A String Catalog holds every language; an ARB file has `@` metadata.
        if value.get("sourceLanguage").is_some() && value.get("strings").is_some() {
            guesses.push(formats::by_id("xcstrings"));
        }
        if value
            .as_object()
            .is_some_and(|o| o.keys().any(|k| k.starts_with('@')))
        {
            guesses.push(formats::by_id("arb"));
        }
        guesses.push(formats::by_id("json"));
    }
    let lines: Vec<&str> = t
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.iter().any(|l| l.starts_with("msgid \""))
        && lines.iter().any(|l| l.starts_with("msgstr"))
    {
        guesses.push(formats::by_id("po"));
    }
    // Apple `.strings` (`"key" = "value";`) and Fluent (`id = … { $var }`, a select, a term,
    // an attribute) before properties, which would read either.
    if lines
        .iter()
        .any(|l| l.starts_with('"') && l.ends_with("\";"))
    {
        guesses.push(formats::by_id("strings"));
    }
    let fluent = |l: &&str| {
        l.contains("{ $")
            || l.contains("->")
            || l.trim_start().starts_with('.')
            || (l.starts_with('-') && l.contains(" = "))
    };
    if lines.iter().any(|l| l.contains(" = ")) && lines.iter().any(fluent) {
        guesses.push(formats::by_id("fluent"));
    }
    let key = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '"' | '\''))
    };
    let content_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| !l.starts_with('#') && !l.starts_with('!'))
        .collect();
    if !content_lines.is_empty()
        && content_lines
            .iter()
            .all(|l| l.split_once('=').is_some_and(|(k, _)| key(k.trim())))
    {
        guesses.push(formats::by_id("properties"));
    }
    let yaml_line = |l: &str| {
        l.starts_with(' ')
            || l.starts_with("- ")
            || l.starts_with('#')
            || l == "---"
            || l.split_once(':')
                .is_some_and(|(k, v)| key(k) && (v.is_empty() || v.starts_with(' ')))
    };
    if lines.iter().all(|l| yaml_line(l))
        && matches!(
            serde_yaml::from_str::<serde_yaml::Value>(t),
            Ok(serde_yaml::Value::Mapping(_) | serde_yaml::Value::Sequence(_))
        )
    {
        guesses.push(formats::by_id("yaml"));
    }
    let markdown = lines.iter().any(|l| {
        let l = l.trim_start();
        l.starts_with("# ")
            || l.starts_with("## ")
            || l.starts_with("```")
            || l.starts_with("- ")
            || l.starts_with("* ")
            || l.starts_with("> ")
            || l.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    }) || t.contains("](")
        || t.contains("**")
        || t.contains('`');
    guesses.extend(docs_markup(&lines, t).into_iter().map(formats::by_id));
    if markdown {
        guesses.push(formats::by_id("markdown"));
    }
    for guess in guesses.into_iter().flatten() {
        if reads(guess) {
            return Some((guess, "content"));
        }
    }
    by("text").map(|f| (f, "content"))
}

/// The docs-as-code formats `lines` (of the text `t`) look written in, in the order they are
/// tried before Markdown: MDX, reStructuredText, AsciiDoc.
fn docs_markup(lines: &[&str], t: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    // MDX: ESM at a line's start (`import … from`, `export const`) beside JSX components.
    let mdx = lines.iter().any(|l| {
        (l.starts_with("import ") && l.contains(" from "))
            || l.starts_with("export const ")
            || l.starts_with("export default ")
    }) && lines.iter().any(|l| {
        let l = l.trim_start();
        l.starts_with('<') && l[1..].starts_with(|c: char| c.is_ascii_uppercase())
    });
    if mdx {
        found.push("mdx");
    }
    // reStructuredText: a directive or hyperlink target (`.. note::`, `.. _label:`), or a
    // Sphinx role (`:ref:`…``), which Markdown never writes.
    let rst = lines.iter().any(|l| {
        let l = l.trim_start();
        l.starts_with(".. ") && (l.contains(":: ") || l.ends_with("::") || l.starts_with(".. _"))
    }) || [":ref:`", ":doc:`", ":func:`", ":class:`", "`_ "]
        .iter()
        .any(|role| t.contains(role));
    if rst {
        found.push("rst");
    }
    // AsciiDoc: a `= Title` or `== Section`, or an attribute entry, beside a delimited block,
    // a block attribute line or a preprocessor directive.
    let adoc_title = lines.iter().any(|l| {
        l.starts_with("= ") || l.starts_with("== ") || (l.starts_with(':') && l[1..].contains(": "))
    });
    let adoc_block = lines.iter().any(|l| {
        let l = l.trim_end();
        matches!(l, "----" | "====" | "****" | "|===" | "...." | "--")
            || (l.starts_with('[') && l.ends_with(']') && !l.contains("]("))
            || l.starts_with("include::")
            || l.starts_with("ifdef::")
            || ["NOTE: ", "TIP: ", "WARNING: ", "IMPORTANT: ", "CAUTION: "]
                .iter()
                .any(|p| l.starts_with(p))
    });
    if adoc_title && adoc_block {
        found.push("asciidoc");
    }
    found
}

/// The format kapi reads `request`'s path (a tool's: from the project's root,
/// [`Base::Root`]) or content with, and how it was found.
pub fn detect(app: &App, p: &DetectRequest) -> Result<Detected, HostError> {
    let path = p.path.as_deref().map(str::trim).filter(|s| !s.is_empty());
    let path = match path {
        Some(path) => Some(judged(app, Base::Root, path)?),
        None => None,
    };
    detect_at(app, path.as_ref(), p.content.as_deref())
}

/// A path detect judges, resolved once ([`App::resolve_target`]: it need not exist), inside
/// the project the call binds; one outside it, by its path or through a link, is judged by
/// its name alone ([`App::resolve_name`], read against the same base: no collection declares
/// it), as it is with no project.
pub fn judged(app: &App, base: Base, path: &str) -> Result<ResolvedPath, HostError> {
    let project = app.project()?;
    match app.resolve_target(base, project.as_ref(), Path::new(path)) {
        Err(HostError::OutsideProject { .. } | HostError::LeavesProject { .. }) => {
            Ok(app.resolve_name(base, project.as_ref(), Path::new(path)))
        }
        resolved => resolved,
    }
}

/// [`detect`] for a path already resolved ([`judged`]) and the content, either or both.
pub fn detect_at(
    app: &App,
    path: Option<&ResolvedPath>,
    content: Option<&str>,
) -> Result<Detected, HostError> {
    let Some(resolved) = path else {
        let Some(content) = content else {
            return Err(HostError::Usage {
                message: "name a `path`, a `content`, or both".into(),
                hint: Some("`{\"path\": \"docs/intro.md\"}`".into()),
            });
        };
        return Ok(match sniff_content(content) {
            Some((f, by)) => Detected {
                schema: "kapi.detect-format/v1",
                path: None,
                by: Some(by),
                format: Some(crate::services::formats::FormatRow::new(*f.info())),
                note: None,
            },
            None => Detected {
                schema: "kapi.detect-format/v1",
                path: None,
                by: None,
                format: None,
                note: Some(if content.trim().is_empty() {
                    "the content is empty".into()
                } else {
                    "no format reads the content".into()
                }),
            },
        });
    };
    let project = app.project()?;
    let abs = resolved.abs();
    // Project-relative inside the project; else absolute under a project, as given with none.
    let path = match (resolved.rel(), &project) {
        (Some(rel), _) if !rel.is_empty() => rel.to_owned(),
        (_, Some(_)) => abs.display().to_string(),
        (_, None) => resolved.given().display().to_string(),
    };
    let collections = match &project {
        Some(p) => Some(p.collections()?),
        None => None,
    };
    let declared = collections
        .as_ref()
        .zip(resolved.rel())
        .and_then(|(c, rel)| crate::document::declared_at(c, rel));
    let sharing = formats::by_extension(abs).count();
    let (format, by) = match (&declared, content) {
        (Some(_), _) => (crate::document::pick(abs, declared.as_deref())?, "declared"),
        (None, Some(content)) => (
            formats::for_file(abs, content.as_bytes()),
            if sharing > 1 { "sniff" } else { "extension" },
        ),
        (None, None) => (
            crate::document::pick(abs, None)?,
            if sharing > 1 { "sniff" } else { "extension" },
        ),
    };
    Ok(match format {
        Some(f) => Detected {
            schema: "kapi.detect-format/v1",
            path: Some(path.clone()),
            by: Some(by),
            format: Some(crate::services::formats::FormatRow::new(*f.info())),
            note: None,
        },
        None => Detected {
            schema: "kapi.detect-format/v1",
            path: Some(path.clone()),
            by: None,
            format: None,
            note: Some(format!(
                "no format reads `{path}`: kapi reads {}",
                extensions().join(", ")
            )),
        },
    })
}

/// Every extension a format reads, once each (`.md`, `.xlf`, …).
fn extensions() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in formats::all() {
        for e in f.info().extensions {
            let e = format!(".{e}");
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

impl Detected {
    /// The text form: the format, how it was found and what it can do; or why none reads it.
    pub fn render(&self) -> String {
        let d = self;
        match (&d.format, d.by) {
            (Some(row), by) => {
                let mut out = format!(
                    "{} (`{}`), found by {}: edit {}, bilingual {}, generative {}",
                    row.info.name,
                    row.info.id,
                    by.unwrap_or("extension"),
                    row.edit,
                    row.bilingual,
                    row.generative
                );
                out.push('\n');
                out
            }
            (None, _) => format!(
                "No format: {}\n",
                d.note.as_deref().unwrap_or("none reads it")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_format_by_path_and_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(
            root.join("kapi.yaml"),
            "version: v1\nname: t\ncollections:\n  - path: \"docs/**/*.md\"\n",
        )
        .unwrap();
        let app = App::new(crate::env::Env::default(), root.clone(), Some(root));
        let run = |path: Option<&str>, content: Option<&str>| {
            let d = detect(
                &app,
                &DetectRequest {
                    path: path.map(str::to_owned),
                    content: content.map(str::to_owned),
                },
            )
            .unwrap();
            (d.format.map(|f| f.info.id), d.by)
        };
        let detect_request = |request: &DetectRequest| detect(&app, request);
        assert_eq!(
            run(Some("docs/a.md"), None),
            (Some("markdown"), Some("extension"))
        );
        assert_eq!(
            run(Some("x.xlf"), Some("<xliff version=\"2.0\"></xliff>")),
            (Some("xliff2"), Some("sniff"))
        );
        assert_eq!(run(Some("a.exe"), None), (None, None));
        assert_eq!(
            run(None, Some("{\"a\": 1}")),
            (Some("json"), Some("content"))
        );
        assert_eq!(run(None, Some("msgid \"a\"\nmsgstr \"b\"\n")).0, Some("po"));
        assert_eq!(run(None, Some("a: 1\nb:\n  - c\n")).0, Some("yaml"));
        assert_eq!(run(None, Some("a.b=c\n")).0, Some("properties"));
        // The catalog formats of issue 42, by content alone.
        let catalogs = [
            (
                "<?xml version=\"1.0\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\"><context><name>c</name><message><source>Hi</source></message></context></TS>",
                "qt",
            ),
            (
                "<root><data name=\"a\"><value>A</value></data></root>",
                "resx",
            ),
            (
                "<plist version=\"1.0\"><dict><key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string></dict></dict></plist>",
                "stringsdict",
            ),
            (
                "{\"sourceLanguage\": \"en\", \"strings\": {}, \"version\": \"1.0\"}",
                "xcstrings",
            ),
            ("{\"@@locale\": \"en\", \"hi\": \"Hi\"}", "arb"),
            ("\"hi\" = \"Hi\";\n", "strings"),
            ("hello = Hello { $name }\n    .title = Greeting\n", "fluent"),
        ];
        for (content, id) in catalogs {
            assert_eq!(run(None, Some(content)).0, Some(id), "{content}");
        }
        assert_eq!(run(None, Some("<p>Hi</p>")).0, Some("html"));
        assert_eq!(run(None, Some("# Title\n\nText.\n")).0, Some("markdown"));
        assert_eq!(
            run(
                None,
                Some("import { Tabs } from './tabs';\n\n# Title\n\n<Tabs>\n\nText.\n\n</Tabs>\n")
            )
            .0,
            Some("mdx")
        );
        assert_eq!(
            run(
                None,
                Some("Title\n=====\n\n.. note::\n\n   Mind :ref:`this`.\n")
            )
            .0,
            Some("rst")
        );
        assert_eq!(
            run(
                None,
                Some("= Title\n:toc:\n\n== One\n\n[source,java]\n----\nx\n----\n")
            )
            .0,
            Some("asciidoc")
        );
        assert_eq!(run(None, Some("Just words.")).0, Some("text"));
        assert!(
            detect_request(&DetectRequest::default()).is_err(),
            "neither path nor content"
        );
    }
}
