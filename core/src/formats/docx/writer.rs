//! Writing an edited block back into `document.xml`: its codes' data and its text escaped,
//! with `<w:t>` and `<w:r>` opened and closed so the markup stays balanced.

use super::Tokens;
use crate::formats::xml::{self, Token};
use crate::formats::{Hole, WriteError};
use crate::model::{Document, Run};

/// The length of a `<w:t …>` start tag at the start of `s`, if there is one.
fn text_tag_len(s: &str, w: &str) -> Option<usize> {
    let open = if w.is_empty() {
        "<t".to_owned()
    } else {
        format!("<{w}:t")
    };
    let rest = s.strip_prefix(open.as_str())?;
    if !rest.starts_with([' ', '\t', '\r', '\n', '>']) {
        return None;
    }
    let end = s.find('>')?;
    (!s[..end].ends_with('/')).then_some(end + 1)
}

/// Whether `s` ends with a `<w:t …>` start tag (an open text the next text goes into).
fn ends_in_text(s: &str, w: &str) -> bool {
    s.rfind('<')
        .and_then(|lt| s.get(lt..))
        .and_then(|tail| text_tag_len(tail, w).map(|len| len == tail.len()))
        .unwrap_or(false)
}

fn needs_preserve(text: &str) -> bool {
    text.starts_with(char::is_whitespace)
        || text.ends_with(char::is_whitespace)
        || text.contains("  ")
        || text.contains(['\t', '\n', '\r'])
}

/// Adds `xml:space="preserve"` to the `<w:t>` start tag that ends `out`, unless it has an
/// `xml:space` already.
fn ensure_preserve(out: &mut String) {
    let Some(lt) = out.rfind('<') else {
        return;
    };
    if out[lt..].contains("xml:space") {
        return;
    }
    if out.ends_with('>') {
        out.pop();
        out.push_str(" xml:space=\"preserve\">");
    }
}

/// Whether XML 1.0 can hold `c` in character data.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `w:name`, or `name` when WordprocessingML is the default namespace.
pub(super) fn qualified(w: &str, name: &str) -> String {
    if w.is_empty() {
        name.to_owned()
    } else {
        format!("{w}:{name}")
    }
}

/// Writes text into the open `<w:t>`: escapes, tabs and line breaks as elements.
fn write_text(text: &str, w: &str, out: &mut String) {
    let t = qualified(w, "t");
    let mut previous = '\0';
    let mut at = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '\t' | '\n' | '\r') {
            xml::escape_text(text.get(at..i).unwrap_or_default(), out);
            at = i + 1;
            match c {
                '\t' => out.push_str(&format!(
                    "</{t}><{tab}/><{t} xml:space=\"preserve\">",
                    tab = qualified(w, "tab")
                )),
                '\n' if previous == '\r' => {}
                _ => out.push_str(&format!(
                    "</{t}><{br}/><{t} xml:space=\"preserve\">",
                    br = qualified(w, "br")
                )),
            }
        }
        previous = c;
    }
    xml::escape_text(text.get(at..).unwrap_or_default(), out);
}

pub(super) fn render(
    original: &str,
    w: &str,
    hole: &Hole,
    runs: &[Run],
    document: &Document,
) -> Result<String, WriteError> {
    let key = document
        .blocks
        .get(hole.block)
        .map_or_else(String::new, |b| b.key.clone());
    let fail = |message: String| WriteError::Block {
        key: key.clone(),
        message,
    };
    let held = original
        .get(hole.span.clone())
        .ok_or_else(|| fail("the hole lies outside document.xml".into()))?;
    let w_tag = |name: &str| qualified(w, name);
    let mut out = String::with_capacity(held.len() + 32);
    let mut inside = false;
    if let Some(len) = text_tag_len(held, w) {
        out.push_str(&held[..len]);
        inside = true;
    }
    let mut pending = String::new();
    let flush = |out: &mut String, pending: &mut String, inside: bool| {
        if pending.is_empty() {
            return Ok(());
        }
        if let Some(c) = pending.chars().find(|&c| !xml_char(c)) {
            return Err(fail(format!(
                "{c:?} cannot be written in a Word document (XML 1.0 has no such character)"
            )));
        }
        if inside {
            if needs_preserve(pending) {
                ensure_preserve(out);
            }
            write_text(pending, w, out);
        } else {
            out.push_str(&format!(
                "<{r}><{t} xml:space=\"preserve\">",
                r = w_tag("r"),
                t = w_tag("t")
            ));
            write_text(pending, w, out);
            out.push_str(&format!("</{t}></{r}>", r = w_tag("r"), t = w_tag("t")));
        }
        pending.clear();
        Ok(())
    };
    for run in runs {
        match run {
            Run::Text { text, .. } => pending.push_str(text),
            Run::Code(code) => {
                flush(&mut out, &mut pending, inside)?;
                out.push_str(&code.data);
                inside = ends_in_text(&code.data, w);
            }
            Run::Switch(_) => {
                return Err(fail(
                    "a Word paragraph cannot hold a plural or select switch".into(),
                ));
            }
        }
    }
    flush(&mut out, &mut pending, inside)?;
    // End where the hole ended: inside the last `<w:t>`, or after a run's markup (when the
    // codes that closed it were deleted with what they held).
    let t = w_tag("t");
    let expected = balance(held);
    let end_inside = expected
        .as_ref()
        .is_some_and(|(_, open)| open.last() == Some(&t.as_str()));
    if inside && !end_inside {
        out.push_str(&format!("</{t}></{r}>", r = w_tag("r")));
    } else if !inside && end_inside {
        out.push_str(&format!("<{r}><{t}>", r = w_tag("r")));
    }
    if expected != balance(&out) {
        return Err(fail(
            "the edit leaves Word's markup unbalanced: keep each open code with its close \
             code, in order, and keep the codes that are not deletable"
                .into(),
        ));
    }
    Ok(out)
}

/// What a fragment of XML does to the element stack: the elements it closes that it did
/// not open, and those it leaves open; `None` when it closes the wrong element.
fn balance(fragment: &str) -> Option<(Vec<&str>, Vec<&str>)> {
    let mut closes = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    for token in Tokens::new(fragment) {
        match token.ok()? {
            Token::Start {
                name, empty: false, ..
            } => open.push(fragment.get(name)?),
            Token::End { name, .. } => {
                let name = fragment.get(name)?;
                match open.last() {
                    Some(&top) if top == name => {
                        open.pop();
                    }
                    Some(_) => return None,
                    None => closes.push(name),
                }
            }
            _ => {}
        }
    }
    Some((closes, open))
}
