//! Paragraph styles from `word/styles.xml` (which styles are headings and lists), and the
//! role and level they, a paragraph's numbering and its place give it.

use std::collections::HashMap;

use super::reader::Para;
use super::{Tokens, attr_value, local, w_prefix};
use crate::formats::xml::Token;
use crate::model::Role;

/// What a paragraph style says about its paragraphs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct StyleInfo {
    heading: Option<u32>,
    list: Option<u32>,
}

/// Paragraph styles by id, from `styles.xml`; a malformed part gives what was read so far.
pub(super) fn read_styles(text: &str) -> HashMap<String, StyleInfo> {
    let w = w_prefix(text);
    let style_id = format!("{w}:styleId");
    let w_val = format!("{w}:val");
    let mut styles = HashMap::new();
    let mut current: Option<(String, StyleInfo, bool)> = None;
    for token in Tokens::new(text) {
        let Ok(token) = token else {
            break;
        };
        let (span, name, kind) = match token {
            Token::Start { span, name, empty } => (span, name, Some(empty)),
            Token::End { span, name } => (span, name, None),
            _ => continue,
        };
        let Some(local_name) = local(text.get(name.clone()).unwrap_or_default(), &w) else {
            continue;
        };
        let attr = |want: &str| attr_value(text, name.end, &span, |n| n == want);
        match (kind, local_name) {
            (Some(false), "style") => {
                current = attr(&style_id)
                    .or_else(|| attr("styleId"))
                    .map(|id| (id.to_owned(), StyleInfo::default(), false));
            }
            (None, "style") => {
                if let Some((id, info, _)) = current.take() {
                    styles.insert(id, info);
                }
            }
            (Some(_), _) => {
                let Some((_, info, numbered)) = current.as_mut() else {
                    continue;
                };
                let val = attr(&w_val).or_else(|| attr("val"));
                match local_name {
                    "name" => {
                        let lower = val.unwrap_or_default().to_ascii_lowercase();
                        if lower == "title" {
                            info.heading = Some(0);
                        } else if let Some(n) = lower.strip_prefix("heading ") {
                            info.heading = n.trim().parse().ok().or(info.heading);
                        } else if let Some(level) = list_style_level(&lower) {
                            info.list = Some(level);
                        }
                    }
                    "outlineLvl" => {
                        if let Some(level) = val.and_then(|v| v.parse::<u32>().ok())
                            && level < 9
                            && info.heading.is_none()
                        {
                            info.heading = Some(level + 1);
                        }
                    }
                    "numPr" => {
                        *numbered = true;
                        info.list = info.list.or(Some(1));
                    }
                    "ilvl" if *numbered => {
                        if let Some(level) = val.and_then(|v| v.parse::<u32>().ok()) {
                            info.list = Some(level.saturating_add(1));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    styles
}

/// The level a list style's name or id gives: `list bullet 2` / `ListNumber3` → 2 / 3,
/// `List Bullet` → 1.
fn list_style_level(style: &str) -> Option<u32> {
    let lower: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let rest = lower
        .strip_prefix("listbullet")
        .or_else(|| lower.strip_prefix("listnumber"))?;
    if rest.is_empty() {
        Some(1)
    } else {
        rest.parse().ok()
    }
}

/// The heading level a style id gives without `styles.xml`: `Heading2` → 2, `Title` → 0.
fn heading_style_level(style: &str) -> Option<u32> {
    let lower = style.to_ascii_lowercase();
    if lower == "title" {
        return Some(0);
    }
    lower
        .strip_prefix("heading")
        .and_then(|n| n.trim().parse().ok())
}

/// A paragraph's role and level: heading, then list, then table cell.
pub(super) fn role(para: &Para, styles: &HashMap<String, StyleInfo>) -> (Role, u32) {
    let style = para.style.as_deref();
    let info = style.and_then(|s| styles.get(s)).copied();
    let heading = para
        .outline
        .map(|o| o + 1)
        .or(info.and_then(|i| i.heading))
        .or_else(|| style.and_then(heading_style_level));
    if let Some(level) = heading {
        return (Role::Heading, level);
    }
    let list = match para.numbered {
        Some(true) => Some(para.ilvl.unwrap_or(0).saturating_add(1)),
        Some(false) => None,
        None => info
            .and_then(|i| i.list)
            .or_else(|| style.and_then(list_style_level)),
    };
    if let Some(level) = list {
        return (Role::ListItem, level);
    }
    if para.cell {
        return (Role::TableCell, 0);
    }
    (Role::Paragraph, 0)
}
