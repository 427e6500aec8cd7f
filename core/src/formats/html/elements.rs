//! The HTML element and attribute tables the reader decides by: prose attributes, raw
//! text, void, block and inline elements, and the class a tag's code gets.

/// Attributes whose value is prose, on any element.
pub(super) const PROSE_ATTRS: &[&str] = &[
    "alt",
    "title",
    "placeholder",
    "aria-label",
    "label",
    "summary",
];

/// `<meta name=…>` values whose `content` is prose.
pub(super) const META_NAMES: &[&str] = &[
    "description",
    "keywords",
    "og:title",
    "og:description",
    "twitter:title",
    "twitter:description",
];

/// Elements whose content is raw text (no tags, no references): skipped whole.
pub(super) const RAW: &[&str] = &["script", "style", "xmp", "iframe", "noembed", "plaintext"];

/// Elements whose content is text and references but no tags.
pub(super) const RCDATA: &[&str] = &["title", "textarea"];

/// Inline elements with no content.
pub(super) const INLINE_VOID: &[&str] = &["br", "img", "input", "wbr", "embed", "keygen", "image"];

/// Block-level elements with no content.
pub(super) const BLOCK_VOID: &[&str] = &[
    "hr", "meta", "link", "base", "col", "area", "param", "source", "track", "basefont", "bgsound",
    "frame", "isindex",
];

/// Elements that end a segment (besides [`BLOCK_VOID`]); every other element is inline.
pub(super) const BLOCKS: &[&str] = &[
    "html",
    "head",
    "body",
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
    "colgroup",
    "blockquote",
    "pre",
    "listing",
    "address",
    "article",
    "aside",
    "footer",
    "header",
    "nav",
    "section",
    "main",
    "figure",
    "figcaption",
    "form",
    "fieldset",
    "legend",
    "menu",
    "dir",
    "details",
    "summary",
    "dialog",
    "center",
    "frameset",
    "noframes",
    "object",
    "applet",
    "map",
    "select",
    "optgroup",
    "option",
    "datalist",
    "textarea",
    "button",
    "label",
    "title",
    "noscript",
    "template",
    "canvas",
    "video",
    "audio",
    "picture",
    "svg",
    "math",
    "hgroup",
    "search",
    "output",
    "progress",
    "meter",
    "marquee",
];

/// Block starts that close an open `p`.
pub(super) const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dd",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "ul",
];

/// Inline formatting an edit may drop as a pair.
pub(super) const FORMATTING: &[&str] = &[
    "b", "i", "u", "s", "em", "strong", "small", "big", "sup", "sub", "mark", "font", "span", "tt",
    "code", "q", "abbr", "acronym", "cite", "dfn", "kbd", "samp", "var", "del", "ins", "strike",
    "bdi", "bdo", "nobr", "blink", "time", "data", "br", "wbr",
];

/// Inline elements whose content is code, not prose.
pub(super) const CODE_INLINE: &[&str] = &["code", "kbd", "samp", "tt"];

pub(super) fn is_block(name: &str) -> bool {
    BLOCKS.contains(&name) || BLOCK_VOID.contains(&name)
}

/// The class a tag's code gets.
pub(super) fn tag_class(name: &str) -> &str {
    match name {
        "a" => "link",
        "img" | "image" => "image",
        "br" => "break",
        _ => name,
    }
}
