//! The text agents read and write: an edition's runs with inline codes as `<x id="1"/>`
//! (open), `<x id="/1"/>` (close) and `<x id="1/"/>` (standalone), and back.
//!
//! A switch (plural, select) shows in the text as a standalone tag with its own id; its
//! branches are read and written apart, each with its path (`count:one`). Literal text that
//! would read as a tag is escaped so the projection is reversible: `&` starting `&lt;` or
//! `&amp;` becomes `&amp;`, and `<` starting a tag becomes `&lt;`. Nothing else is escaped,
//! so ordinary prose (`a < b`, `AT&T`) reads as written.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::model::{Code, CodeKind, Run, Switch};

static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"<x\s+id="([^"]*)"\s*/>"#).unwrap_or_else(|e| unreachable!("tag pattern: {e}"))
});

/// A code as a read lists it beside the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CodeInfo {
    /// The id in the tag (`1`).
    pub id: String,
    /// `open`, `close`, `standalone`, or `plural`/`select`/`selectordinal` for a switch.
    pub kind: String,
    /// What it is in the format's words (`emphasis`, `link`, `placeholder`, `tag`…).
    pub class: String,
    /// The native bytes.
    pub data: String,
    /// Whether an edit may drop it (formatting) or must keep it (a placeholder).
    pub deletable: bool,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
}

/// Renders runs as agent text, listing each code (a close code is listed once, by its open).
pub fn render(runs: &[Run]) -> (String, Vec<CodeInfo>) {
    let mut text = String::new();
    let mut codes = Vec::new();
    for run in runs {
        match run {
            Run::Text { text: t, .. } => escape_into(t, &mut text),
            Run::Code(code) => {
                let tag = match code.kind {
                    CodeKind::Open => code.id.clone(),
                    CodeKind::Close => format!("/{}", code.id),
                    CodeKind::Standalone => format!("{}/", code.id),
                };
                push_tag(&mut text, &tag);
                if code.kind != CodeKind::Close {
                    codes.push(info(code));
                }
            }
            Run::Switch(switch) => {
                push_tag(&mut text, &format!("{}/", switch.id));
                codes.push(switch_info(switch));
            }
        }
    }
    (text, codes)
}

/// Just the text of [`render`].
pub fn render_text(runs: &[Run]) -> String {
    render(runs).0
}

fn push_tag(out: &mut String, id: &str) {
    out.push_str("<x id=\"");
    out.push_str(id);
    out.push_str("\"/>");
}

fn info(code: &Code) -> CodeInfo {
    let kind = match code.kind {
        CodeKind::Open => "open",
        CodeKind::Close => "close",
        CodeKind::Standalone => "standalone",
    };
    CodeInfo {
        id: code.id.clone(),
        kind: kind.into(),
        class: code.class.clone(),
        data: code.data.clone(),
        deletable: code.deletable,
        attrs: code.attrs.clone(),
    }
}

fn switch_info(switch: &Switch) -> CodeInfo {
    let mut data = String::new();
    crate::formats::render_runs(
        std::slice::from_ref(&Run::Switch(Box::new(switch.clone()))),
        &mut data,
        &mut |t, o| o.push_str(t),
    );
    let mut attrs = BTreeMap::new();
    attrs.insert("pivot".to_owned(), switch.pivot.clone());
    attrs.insert(
        "cases".to_owned(),
        switch
            .branches
            .iter()
            .map(|b| b.case.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    );
    CodeInfo {
        id: switch.id.clone(),
        kind: switch.kind.as_str().into(),
        class: "switch".into(),
        data,
        deletable: false,
        attrs,
    }
}

/// Escapes literal text so no part of it reads as a tag or as an escape.
pub fn escape_into(text: &str, out: &mut String) {
    if !text.contains(['<', '&']) {
        out.push_str(text);
        return;
    }
    let mut at = 0;
    // `<` and `&` are ASCII, so every index found is a char boundary.
    for (i, found) in text.match_indices(['<', '&']) {
        let rest = &text[i..];
        let escape = match found {
            "&" => rest.starts_with("&lt;") || rest.starts_with("&amp;"),
            _ => TAG.find(rest).is_some_and(|m| m.start() == 0),
        };
        if escape {
            out.push_str(&text[at..i]);
            out.push_str(if found == "&" { "&amp;" } else { "&lt;" });
            at = i + 1;
        }
    }
    out.push_str(&text[at..]);
}

/// Undoes [`escape_into`].
pub fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("&amp;") {
            out.push('&');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("&lt;") {
            out.push('<');
            rest = after;
        } else {
            out.push('&');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Why agent text does not fit the runs it replaces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the tag <x id=\"{id}\"/> names no code of this text")]
    Unknown { id: String },
    #[error("the code <x id=\"{id}\"/> is missing; keep every tag the read showed")]
    Missing { id: String },
    #[error("the code <x id=\"{id}\"/> appears more than once")]
    Repeated { id: String },
    #[error("<x id=\"/{id}\"/> closes a code that is not open at that point")]
    Unbalanced { id: String },
}

impl ParseError {
    /// The code's id (without `/`).
    pub fn id(&self) -> &str {
        match self {
            ParseError::Unknown { id }
            | ParseError::Missing { id }
            | ParseError::Repeated { id }
            | ParseError::Unbalanced { id } => id,
        }
    }
}

/// Parses agent text back into runs, taking every code (and switch) from `original` by its
/// tag, so native data survives. Refuses a tag that names no code, a code dropped (unless
/// deletable, with its pair), repeated or left unbalanced.
pub fn parse(text: &str, original: &[Run]) -> Result<Vec<Run>, ParseError> {
    // Index the original codes by tag.
    let mut known: BTreeMap<String, &Run> = BTreeMap::new();
    for run in original {
        match run {
            Run::Code(code) => {
                let tag = match code.kind {
                    CodeKind::Open => code.id.clone(),
                    CodeKind::Close => format!("/{}", code.id),
                    CodeKind::Standalone => format!("{}/", code.id),
                };
                known.insert(tag, run);
            }
            Run::Switch(switch) => {
                known.insert(format!("{}/", switch.id), run);
            }
            Run::Text { .. } => {}
        }
    }
    let mut runs: Vec<Run> = Vec::new();
    let mut used: BTreeMap<String, ()> = BTreeMap::new();
    let mut open: Vec<String> = Vec::new();
    let mut at = 0;
    for caps in TAG.captures_iter(text) {
        let (Some(whole), Some(id)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        push_text(&mut runs, &text[at..whole.start()]);
        at = whole.end();
        let tag = id.as_str();
        let bare = tag.trim_start_matches('/').trim_end_matches('/').to_owned();
        let Some(run) = known.get(tag) else {
            return Err(ParseError::Unknown { id: bare });
        };
        if used.insert(tag.to_owned(), ()).is_some() {
            return Err(ParseError::Repeated { id: bare });
        }
        if let Run::Code(code) = run {
            match code.kind {
                CodeKind::Open => open.push(code.id.clone()),
                CodeKind::Close => {
                    if open.last() != Some(&code.id) {
                        return Err(ParseError::Unbalanced { id: bare });
                    }
                    open.pop();
                }
                CodeKind::Standalone => {}
            }
        }
        runs.push(strip_src((*run).clone()));
    }
    push_text(&mut runs, &text[at..]);
    if let Some(id) = open.pop() {
        return Err(ParseError::Unbalanced { id });
    }
    for (tag, run) in &known {
        if used.contains_key(tag) {
            continue;
        }
        let (deletable, id) = match run {
            Run::Code(code) => (code.deletable, code.id.clone()),
            Run::Switch(switch) => (false, switch.id.clone()),
            Run::Text { .. } => continue,
        };
        // A deletable pair may go, but only whole.
        let partner_used = match run {
            Run::Code(code) if code.kind == CodeKind::Open => {
                used.contains_key(&format!("/{}", code.id))
            }
            Run::Code(code) if code.kind == CodeKind::Close => used.contains_key(&code.id),
            _ => false,
        };
        if !deletable || partner_used {
            return Err(ParseError::Missing { id });
        }
    }
    Ok(runs)
}

fn push_text(runs: &mut Vec<Run>, raw: &str) {
    if raw.is_empty() {
        return;
    }
    let text = unescape(raw);
    if let Some(Run::Text { text: last, .. }) = runs.last_mut() {
        last.push_str(&text);
    } else {
        runs.push(Run::text(text));
    }
}

fn strip_src(run: Run) -> Run {
    match run {
        Run::Code(mut code) => {
            code.src = None;
            Run::Code(code)
        }
        Run::Switch(mut switch) => {
            switch.src = None;
            Run::Switch(switch)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, SwitchKind};

    fn code(id: &str, kind: CodeKind, data: &str, deletable: bool) -> Run {
        Run::from(Code::new(id, kind, "tag", data, deletable))
    }

    fn sample() -> Vec<Run> {
        vec![
            Run::text("Open the "),
            code("1", CodeKind::Open, "[", true),
            Run::text("dashboard"),
            code("1", CodeKind::Close, "](/dash)", true),
            Run::text(" for "),
            code("2", CodeKind::Standalone, "{name}", false),
        ]
    }

    #[test]
    fn renders_tags_and_lists_codes_once() {
        let (text, codes) = render(&sample());
        assert_eq!(
            text,
            "Open the <x id=\"1\"/>dashboard<x id=\"/1\"/> for <x id=\"2/\"/>"
        );
        assert_eq!(codes.len(), 2);
        assert_eq!(codes[0].kind, "open");
        assert_eq!(codes[1].data, "{name}");
    }

    #[test]
    fn parse_of_render_gives_the_runs_back() {
        let runs = sample();
        assert_eq!(parse(&render_text(&runs), &runs), Ok(runs));
    }

    #[test]
    fn literal_tags_and_escapes_survive_the_round_trip() {
        for literal in [
            "a <x id=\"1\"/> b",
            "&lt; and &amp; and &amp;lt;",
            "a < b & c",
            "AT&T <b>",
            "Здравствуйте <x id=\"1\"/> & &amp; é<",
        ] {
            let runs = vec![Run::text(literal)];
            let text = render_text(&runs);
            assert_eq!(parse(&text, &runs), Ok(runs.clone()), "{literal} as {text}");
        }
        assert_eq!(render_text(&[Run::text("a < b & c")]), "a < b & c");
    }

    #[test]
    fn refusals_name_the_code() {
        let runs = sample();
        let cases = [
            (
                "Open <x id=\"1\"/>it<x id=\"/1\"/>",
                ParseError::Missing { id: "2".into() },
            ),
            ("<x id=\"9/\"/>", ParseError::Unknown { id: "9".into() }),
            (
                "<x id=\"2/\"/><x id=\"2/\"/><x id=\"1\"/><x id=\"/1\"/>",
                ParseError::Repeated { id: "2".into() },
            ),
            (
                "<x id=\"/1\"/>x<x id=\"1\"/><x id=\"2/\"/>",
                ParseError::Unbalanced { id: "1".into() },
            ),
            (
                "<x id=\"1\"/>x <x id=\"2/\"/>",
                ParseError::Unbalanced { id: "1".into() },
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text, &runs), Err(want), "{text}");
        }
    }

    #[test]
    fn a_deletable_pair_may_go_whole() {
        let runs = sample();
        let parsed = parse("Open the dashboard for <x id=\"2/\"/>", &runs).unwrap();
        assert_eq!(parsed.len(), 2);
    }

    #[test]
    fn a_switch_is_one_standalone_tag_that_must_stay() {
        let switch = Run::from(Switch {
            id: "1".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("a file")]),
                Branch::new("other", vec![Run::text("files")]),
            ],
            head: String::new(),
            tail: String::new(),
            src: None,
            forms: None,
        });
        let runs = vec![Run::text("You have "), switch];
        let (text, codes) = render(&runs);
        assert_eq!(text, "You have <x id=\"1/\"/>");
        assert_eq!(codes[0].kind, "plural");
        assert_eq!(codes[0].attrs["cases"], "one other");
        assert!(parse("You have none", &runs).is_err());
        assert_eq!(parse(&text, &runs), Ok(runs));
    }
}
