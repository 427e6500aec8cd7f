//! The forms docs generators write in prose, read as codes; what stays prose; edits that keep
//! them; and hostile inputs that stay bounded.

use std::fmt::Write as _;

use super::super::*;
use crate::model::Document;

fn read(text: &str) -> Parsed {
    Markdown
        .read(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn write(parsed: &Parsed) -> String {
    String::from_utf8(Markdown.write(parsed).unwrap()).unwrap()
}

/// Each translatable block as `text with <x/> codes | class:data, …`.
fn shown(document: &Document) -> Vec<String> {
    document
        .blocks
        .iter()
        .filter(|b| b.translatable)
        .map(shown_block)
        .collect()
}

/// A block as `text with <x/> codes | class:data, …`.
fn shown_block(b: &Block) -> String {
    let mut text = String::new();
    let mut codes = Vec::new();
    for run in &b.source.runs {
        match run {
            Run::Text { text: t, .. } => text.push_str(t),
            Run::Code(c) => {
                let id = match c.kind {
                    CodeKind::Open => c.id.clone(),
                    CodeKind::Close => format!("/{}", c.id),
                    CodeKind::Standalone => format!("{}/", c.id),
                };
                let _ = write!(text, "<x id=\"{id}\"/>");
                codes.push(format!("{}:{}", c.class, c.data));
            }
            Run::Switch(_) => text.push_str("<switch/>"),
        }
    }
    format!("{} | {}", text, codes.join(", ")).replace('\n', "⏎")
}

/// Reads `text`, checks it round-trips and reads back the same when every block is written
/// as if edited, and gives its blocks as [`shown`] shows them.
fn blocks(text: &str) -> Vec<String> {
    let parsed = read(text);
    assert_eq!(write(&parsed), text, "round trip");
    let mut edited = read(text);
    for block in &mut edited.document.blocks {
        block.source = Edition::new(block.source.runs.clone());
    }
    let mut all: Vec<&Hole> = edited.skeleton.holes.iter().collect();
    all.sort_by_key(|h| h.span.start);
    let (mut out, mut at) = (String::new(), 0);
    for hole in all {
        out.push_str(&text[at..hole.span.start]);
        let block = &edited.document.blocks[hole.block];
        out.push_str(&render(text, hole, block.role, &block.source.runs));
        at = hole.span.end;
    }
    out.push_str(&text[at..]);
    let again = read(&out);
    assert_eq!(shown(&again.document), shown(&parsed.document), "{out}");
    assert!(pieces_agree(text), "pieces: {text}");
    shown(&parsed.document)
}

fn one(text: &str) -> String {
    let all = blocks(text);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.into_iter().next().unwrap_or_default()
}

#[test]
fn heading_ids_are_codes_with_the_space_before_them() {
    let table = [
        (
            "## Try React {/*try-react*/}\n",
            "Try React<x id=\"1/\"/> | id: {/*try-react*/}",
        ),
        ("# Guide {#guide}\n", "Guide<x id=\"1/\"/> | id: {#guide}"),
        (
            "## A {#a .wide data-x=\"1 2\"}\n",
            "A<x id=\"1/\"/> | id: {#a .wide data-x=\"1 2\"}",
        ),
        (
            "## Section 1 {class=foo}\n",
            "Section 1<x id=\"1/\"/> | id: {class=foo}",
        ),
        (
            "## Kramdown {: #k}\n",
            "Kramdown<x id=\"1/\"/> | id: {: #k}",
        ),
        ("## Pandoc {-}\n", "Pandoc<x id=\"1/\"/> | id: {-}"),
        ("## Closed {#c} ##\n", "Closed<x id=\"1/\"/> | id: {#c}"),
        ("Setext {#s}\n===\n", "Setext<x id=\"1/\"/> | id: {#s}"),
        (
            "## The `useState` hook {/*usestate*/}\n",
            "The <x id=\"1/\"/> hook<x id=\"2/\"/> | code:`useState`, id: {/*usestate*/}",
        ),
        (
            "## Use *this* {/*use_this*/}\n",
            "Use <x id=\"1\"/>this<x id=\"/1\"/><x id=\"2/\"/> | emphasis:*, emphasis:*, id: {/*use_this*/}",
        ),
    ];
    for (text, want) in table {
        assert_eq!(one(text), want, "{text}");
    }
    // The section's label is the title's: the id is no word of it.
    let parsed = read("## Try React {/*try-react*/}\n\nText.\n\n## Guide {#custom}\n\nMore.\n");
    let labels: Vec<_> = parsed
        .document
        .blocks
        .iter()
        .filter_map(|b| b.label.as_deref())
        .collect();
    assert_eq!(labels, ["try-react/h", "try-react/p", "guide/h", "guide/p"]);
}

#[test]
fn jsx_comments_and_string_braces_are_codes_in_any_file() {
    let table = [
        (
            "Read it.{' '}\nThen go.\n",
            "Read it.<x id=\"1/\"/>⏎Then go. | jsx:{' '}",
        ),
        ("A {\"\\n\"} b\n", "A <x id=\"1/\"/> b | jsx:{\"\\n\"}"),
        (
            "{/* TODO: fix */}\n",
            "<x id=\"1/\"/> | jsx:{/* TODO: fix */}",
        ),
        (
            "Line {/* a\ncomment */} end.\n",
            "Line <x id=\"1/\"/> end. | jsx:{/* a\ncomment */}",
        ),
        // CommonMark pairs the `*` ending one comment with the one starting the next.
        (
            "{/* One. */}\n{/* Two. */} After *this*.\n",
            "<x id=\"1/\"/>\n<x id=\"2/\"/> After <x id=\"3\"/>this<x id=\"/3\"/>. | jsx:{/* One. */}, jsx:{/* Two. */}, emphasis:*, emphasis:*",
        ),
        (
            "A *b {/* c* */} d\n",
            "A *b <x id=\"1/\"/> d | jsx:{/* c* */}",
        ),
        (
            "- item {/*docs-19*/}\n",
            "item <x id=\"1/\"/> | jsx:{/*docs-19*/}",
        ),
    ];
    for (text, want) in table {
        assert_eq!(one(text), want.replace('\n', "⏎"), "{text}");
    }
}

#[test]
fn brace_expressions_are_codes_only_in_an_mdx_style_file() {
    // Plain Markdown: a set, a sentence in braces and prose placeholders stay as they were
    // (a simple `{name}` is a placeholder code, as in every catalog).
    assert_eq!(
        one("Pick from {x or y} or {count + 1} as {name}.\n"),
        "Pick from {x or y} or {count + 1} as <x id=\"1/\"/>. | placeholder:{name}"
    );
    // A brace around a code span is a template literal only in MDX.
    assert_eq!(one("A {`x`} b\n"), "A {<x id=\"1/\"/>} b | code:`x`");
    // With a JSX comment anywhere, the file is MDX-style: every brace group is an
    // expression, and a JSX tag CommonMark cannot read is one code.
    let all = blocks(
        "{/* mdx */}\n\nPick {a, b} or {count + 1} as {user?.name ?? 'you'} {`x`}.\n\n<img src=\"/a.png\" style={{margin: '0 auto'}} />\n\n<span style={{color: 'red'}}>Mount</span> starts.\n",
    );
    assert_eq!(
        all[1..],
        [
            "Pick <x id=\"1/\"/> or <x id=\"2/\"/> as <x id=\"3/\"/> <x id=\"4/\"/>. | jsx:{a, b}, jsx:{count + 1}, jsx:{user?.name ?? 'you'}, jsx:{`x`}",
            "<x id=\"1/\"/> | jsx:<img src=\"/a.png\" style={{margin: '0 auto'}} />",
            "<x id=\"1/\"/>Mount<x id=\"2/\"/> starts. | jsx:<span style={{color: 'red'}}>, html:</span>",
        ]
    );
    assert!(!syntax::mdx_style("Go templates: {{/* a comment */}}\n"));
}

#[test]
fn containers_are_codes_and_their_titles_prose() {
    let table = [
        (
            "::: tip Tip\nBody.\n:::\n",
            "<x id=\"1/\"/>Tip<x id=\"2/\"/>Body.<x id=\"3/\"/> | directive:::: tip , directive:\n, directive:\n:::",
        ),
        (
            ":::warning\nCareful.\n:::\n",
            "<x id=\"1/\"/>Careful.<x id=\"2/\"/> | directive::::warning\n, directive:\n:::",
        ),
        (
            ":::note[Your *title*]\nBody.\n:::\n",
            "<x id=\"1/\"/>Your <x id=\"2\"/>title<x id=\"/2\"/><x id=\"3/\"/>Body.<x id=\"4/\"/> | directive::::note[, emphasis:*, emphasis:*, directive:]\n, directive:\n:::",
        ),
        (
            ":::tip[]\nBody.\n:::\n",
            "<x id=\"1/\"/>Body.<x id=\"2/\"/> | directive::::tip[]\n, directive:\n:::",
        ),
        (
            "::: details Click me\n::: code-group\nx\n:::\n:::\n",
            "<x id=\"1/\"/>Click me<x id=\"2/\"/>x<x id=\"3/\"/> | directive:::: details , directive:\n::: code-group\n, directive:\n:::\n:::",
        ),
        (
            "::: {.aside #a}\nPandoc.\n:::\n",
            "<x id=\"1/\"/>Pandoc.<x id=\"2/\"/> | directive:::: {.aside #a}\n, directive:\n:::",
        ),
        // Pandoc: one word is the div's class, and closing colons may follow it.
        (
            "::: Warning :::\nBody.\n::::::\n",
            "<x id=\"1/\"/>Body.<x id=\"2/\"/> | directive:::: Warning :::\n, directive:\n::::::",
        ),
        (
            "Text first.\n:::\n",
            "Text first.<x id=\"1/\"/> | directive:\n:::",
        ),
        // Not a container: colons inside a line, or words with no type.
        ("Ratio 1:::2 holds.\n", "Ratio 1:::2 holds. | "),
        (
            "::: *stars*\n",
            "::: <x id=\"1\"/>stars<x id=\"/1\"/> | emphasis:*, emphasis:*",
        ),
    ];
    for (text, want) in table {
        assert_eq!(one(text), want.replace('\n', "⏎"), "{text}");
    }
    // In a list item and a quote, the line's continuation prefix is in the break's code.
    assert_eq!(
        one("- :::tip\n  Item body.\n  :::\n"),
        "<x id=\"1/\"/>Item body.<x id=\"2/\"/> | directive::::tip⏎  , directive:⏎  :::"
    );
    assert_eq!(
        one("> ::: tip Quoted\n> Body.\n> :::\n"),
        "<x id=\"1/\"/>Quoted<x id=\"2/\"/>Body.<x id=\"3/\"/> | directive:::: tip , directive:⏎> , directive:⏎> :::"
    );
    // A GitHub alert's marker on a quote's first line; elsewhere it is text.
    assert_eq!(
        one("> [!NOTE]\n> Read this.\n"),
        "<x id=\"1/\"/>Read this. | directive:[!NOTE]⏎> "
    );
    assert_eq!(one("See [!NOTE] here.\n"), "See [!NOTE] here. | ");
    // Separate paragraphs: each marker line is a block of one code.
    assert_eq!(
        blocks(":::warning\n\nCareful.\n\n:::\n"),
        [
            "<x id=\"1/\"/> | directive::::warning",
            "Careful. | ",
            "<x id=\"1/\"/> | directive::::"
        ]
    );
}

#[test]
fn template_syntax_is_a_code_inline_and_over_lines() {
    let table = [
        (
            "See {{< ref \"a.md\" >}} and {{% param x %}}.\n",
            "See <x id=\"1/\"/> and <x id=\"2/\"/>. | template:{{< ref \"a.md\" >}}, template:{{% param x %}}",
        ),
        (
            "{{< figure\n  src=\"a.png\"\n  alt=\"A\"\n/>}}\n",
            "<x id=\"1/\"/> | template:{{< figure\n  src=\"a.png\"\n  alt=\"A\"\n/>}}",
        ),
        (
            "Shown as {{</* x */>}} here.\n",
            "Shown as <x id=\"1/\"/> here. | template:{{</* x */>}}",
        ),
        (
            "{% include note.html %} and {%- if a -%}.\n",
            "<x id=\"1/\"/> and <x id=\"2/\"/>. | template:{% include note.html %}, template:{%- if a -%}",
        ),
        (
            "{{ page.title | upcase }} and {{{ raw }}}.\n",
            "<x id=\"1/\"/> and <x id=\"2/\"/>. | template:{{ page.title | upcase }}, template:{{{ raw }}}",
        ),
        (
            "{{#include ../listings/ch01/main.rs:here}}\n",
            "<x id=\"1/\"/> | template:{{#include ../listings/ch01/main.rs:here}}",
        ),
        (
            "{{#rustdoc_include a.rs}} {{#playground b.rs editable}}\n",
            "<x id=\"1/\"/> <x id=\"2/\"/> | template:{{#rustdoc_include a.rs}}, template:{{#playground b.rs editable}}",
        ),
        // A paired shortcode that holds prose keeps it prose.
        (
            "{{% note %}}\nRead this.\n{{% /note %}}\n",
            "<x id=\"1/\"/>⏎Read this.⏎<x id=\"2/\"/> | template:{{% note %}}, template:{{% /note %}}",
        ),
        // Empty braces are no template.
        ("Literal {{}} and {{ }}.\n", "Literal {{}} and {{ }}. | "),
    ];
    for (text, want) in table {
        assert_eq!(one(text), want.replace('\n', "⏎"), "{text}");
    }
    // `>}}` at a line's start is a block quote to CommonMark: the shortcode is a code in the
    // paragraph and its `}}` one in the quote.
    assert_eq!(
        blocks("{{< figure\n  src=\"a.png\"\n  caption=\"Zion\"\n>}}\n\nAfter.\n"),
        [
            "<x id=\"1/\"/> | template:{{< figure⏎  src=\"a.png\"⏎  caption=\"Zion\"",
            "<x id=\"1/\"/> | template:}}",
            "After. | "
        ]
    );
}

#[test]
fn code_holding_components_shortcodes_and_tags_are_one_code() {
    // Within one block.
    assert_eq!(
        one("pnpm\n<TerminalBlock>\npnpm add x\n</TerminalBlock>\n"),
        "pnpm⏎<x id=\"1/\"/> | verbatim:<TerminalBlock>⏎pnpm add x⏎</TerminalBlock>"
    );
    assert_eq!(
        one("Use <code>a &vert; b</code> or <var>n</var>, press <kbd>Ctrl</kbd>.\n"),
        "Use <x id=\"1/\"/> or <x id=\"2/\"/>, press <x id=\"3/\"/>Ctrl<x id=\"4/\"/>. | verbatim:<code>a &vert; b</code>, verbatim:<var>n</var>, html:<kbd>, html:</kbd>"
    );
    // An element never closed in its block stays as it was.
    assert_eq!(
        one("Open <code> here and <code>x</code>.\n"),
        "Open <x id=\"1/\"/> here and <x id=\"2/\"/>x<x id=\"3/\"/>. | html:<code>, html:<code>, html:</code>"
    );
    // Across blocks: every block between the HTML blocks that open and close it.
    assert_eq!(
        blocks(
            "<ConsoleBlockMulti>\n\n<ConsoleLogLine level=\"error\">\n\nWarning: a whitelist.\n\n</ConsoleLogLine>\n\n- item\n\n</ConsoleBlockMulti>\n\nProse again.\n"
        ),
        [
            "<x id=\"1/\"/> | verbatim:Warning: a whitelist.",
            "<x id=\"1/\"/> | verbatim:item",
            "Prose again. | "
        ]
    );
    assert_eq!(
        blocks(
            "{{< highlight go >}}\n\nfunc main() {}\n\n# not a heading\n\n{{< /highlight >}}\n\nProse.\n"
        ),
        [
            "<x id=\"1/\"/> | verbatim:{{< highlight go >}}",
            "<x id=\"1/\"/> | verbatim:func main() {}",
            "<x id=\"1/\"/> | verbatim:not a heading",
            "<x id=\"1/\"/> | verbatim:{{< /highlight >}}",
            "Prose. | "
        ]
    );
    assert_eq!(
        blocks(
            "{% highlight ruby %}\ndef x\n\nend\n{% endhighlight %}\n\n{% comment %}\nA note.\n{% endcomment %}\n\nProse.\n"
        ),
        [
            "<x id=\"1/\"/> | verbatim:{% highlight ruby %}⏎def x",
            "<x id=\"1/\"/> | verbatim:end⏎{% endhighlight %}",
            "<x id=\"1/\"/> | verbatim:{% comment %}⏎A note.⏎{% endcomment %}",
            "Prose. | "
        ]
    );
    // Self-closing: nothing held.
    assert_eq!(
        blocks("{{< code-toggle config=x />}}\n\nProse.\n"),
        [
            "<x id=\"1/\"/> | template:{{< code-toggle config=x />}}",
            "Prose. | "
        ]
    );
    // One never closed holds the rest of the file.
    assert_eq!(
        blocks("Before.\n\n<TerminalBlock>\n\nnpm i\n\nmore\n"),
        [
            "Before. | ",
            "<x id=\"1/\"/> | verbatim:npm i",
            "<x id=\"1/\"/> | verbatim:more"
        ]
    );
}

#[test]
fn what_only_looks_like_syntax_stays_as_it_was() {
    let table = [
        // Escaped, in code, in a link's destination.
        (
            "An \\{/* escaped */} brace.\n",
            "An {/* escaped */} brace. | ",
        ),
        (
            "Write `{/* x */}` and `{{< y >}}`.\n",
            "Write <x id=\"1/\"/> and <x id=\"2/\"/>. | code:`{/* x */}`, code:`{{< y >}}`",
        ),
        (
            "See [the id](https://x.test/{a}/b).\n",
            "See <x id=\"1\"/>the id<x id=\"/1\"/>. | link:[, link:](https://x.test/{a}/b)",
        ),
        // TeX, and a brace that is a word's.
        ("Sum \\sum_{c=1} over.\n", "Sum \\sum_{c=1} over. | "),
        ("Mid {#word} sentence.\n", "Mid {#word} sentence. | "),
        // Unterminated.
        ("Open {/* never closed.\n", "Open {/* never closed. | "),
        ("Open {{< never closed.\n", "Open {{< never closed. | "),
        ("Open {% never closed.\n", "Open {% never closed. | "),
    ];
    for (text, want) in table {
        assert_eq!(one(text), want, "{text}");
    }
    // Attributes after a link or a bracketed span, and on a line of their own (one code with
    // the line break before it, and with what that break touches).
    assert_eq!(
        one("A [link](/x){.external} and [span]{.smallcaps}\n{: .note}\n"),
        "A <x id=\"1\"/>link<x id=\"/1\"/><x id=\"2/\"/> and [span]<x id=\"3/\"/> | link:[, link:](/x), attributes:{.external}, attributes:{.smallcaps}⏎{: .note}"
    );
}

#[test]
fn an_edit_keeps_every_form_byte_for_byte() {
    let text = "## Try React {/*try-react*/}\n\n::: tip Tip\nBody {{< x >}}.\n:::\n";
    let mut parsed = read(text);
    let heading = parsed.document.block_mut("s1/h").unwrap();
    let mut runs = heading.source.runs.clone();
    runs[0] = Run::text("Try *it*");
    heading.source = Edition::new(runs);
    let tip = parsed.document.block_mut("s1/p").unwrap();
    let runs: Vec<Run> = tip
        .source
        .runs
        .iter()
        .map(|r| match r {
            Run::Text { text, .. } if text == "Tip" => Run::text("Note"),
            Run::Text { text, .. } if text == "Body " => Run::text("1. New "),
            other => other.clone(),
        })
        .collect();
    tip.source = Edition::new(runs);
    assert_eq!(
        write(&parsed),
        "## Try \\*it\\* {/*try-react*/}\n\n::: tip Note\n1\\. New {{< x >}}.\n:::\n"
    );
}

/// Inputs built to make a careless scan quadratic or deep: each reads in well under a
/// second in a debug build (a quadratic scan of these would take minutes), or is refused.
#[test]
fn hostile_inputs_read_in_bounded_time() {
    let n = 100_000;
    let inputs = [
        format!("{}x{}\n", "{".repeat(n), "}".repeat(n)),
        format!("{}\n", "{".repeat(n)),
        format!("{}\n", "{{< ".repeat(n)),
        format!("{}\n", "{/* ".repeat(n)),
        format!("{}\n", "{% ".repeat(n)),
        format!("{}\n", "{' ".repeat(n)),
        format!("{}\n", ":::\n".repeat(n)),
        format!("{}\n", "::: tip\n\n".repeat(n / 4)),
        format!("{}\n", "<code> ".repeat(n / 2)),
        format!("{}\n", "<TerminalBlock ".repeat(n / 4)),
        format!("{{/* mdx */}}\n\n{}\n", "<a x=\"".repeat(n / 2)),
        format!("{{/* mdx */}}\n\n{}\n", "<a b={ ".repeat(n / 2)),
        format!("<TerminalBlock>\n\n{}", "npm i\n\n".repeat(n / 2)),
        format!("{{{{< highlight >}}}}\n{}", "x {{< a >}}\n".repeat(n / 10)),
        format!("# T {}\n", "{#a} ".repeat(n / 4)),
    ];
    for text in &inputs {
        let start = std::time::Instant::now();
        let _ = Markdown.read(text.as_bytes());
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "{}: {:?}",
            &text[..40.min(text.len())],
            start.elapsed()
        );
    }
    // A block of more codes than a block may hold is refused, not read.
    let dense = format!("{}\n", "{' '} ".repeat(crate::formats::MAX_CODES + 1));
    assert!(matches!(
        Markdown.read(dense.as_bytes()),
        Err(ReadError::TooDense { .. })
    ));
}

/// A component open across the cuts of a large file reads in pieces as it reads whole.
#[test]
fn a_component_open_across_pieces_reads_as_it_does_whole() {
    let mut text = String::from("Intro.\n\n<TerminalBlock>\n\n");
    for i in 0..2_000 {
        let _ = write!(text, "npm run task{i}\n\n");
    }
    text.push_str("</TerminalBlock>\n\nAfter {{< x >}}.\n\n::: tip T\nBody.\n:::\n");
    assert!(pieces_agree(&text));
    let parsed = read(&text);
    let last: Vec<String> = shown(&parsed.document).into_iter().rev().take(2).collect();
    assert_eq!(
        last,
        [
            "<x id=\"1/\"/>T<x id=\"2/\"/>Body.<x id=\"3/\"/> | directive:::: tip , directive:⏎, directive:⏎:::",
            "After <x id=\"1/\"/>. | template:{{< x >}}"
        ]
    );
}

/// Documents put together at random from the pieces of every form (a fixed seed, so a
/// failure repeats): each reads back byte for byte, reads in pieces as whole, and reads the
/// same after every block is written as if edited. What the fuzz target does for any bytes,
/// aimed at this module.
#[test]
fn random_documents_of_every_form_round_trip() {
    const PIECES: &[&str] = &[
        "{/*",
        "*/}",
        "{{<",
        ">}}",
        "{{%",
        "%}}",
        "{%",
        "%}",
        "{{",
        "}}",
        "{",
        "}",
        ":::",
        "::: tip ",
        ":::note[",
        "]",
        "\n",
        "\n\n",
        "<TerminalBlock>",
        "</TerminalBlock>",
        "<code>",
        "</code>",
        "{#id}",
        " {.c}",
        "## ",
        "- ",
        "> ",
        "*",
        "_",
        "`",
        "[a](b)",
        "\\",
        "word ",
        "'",
        "\"",
        "{{< highlight >}}",
        "{{< /highlight >}}",
        "{% highlight %}",
        "{% endhighlight %}",
        "<img s={{a}} />",
        "\n>}}\n",
        "\r\n",
        "  ",
        "é",
        "1. ",
        "{' '}",
        "<a b={c}>",
        "{: .n}",
        "# ",
        "x",
        "\n  ",
        "---\n",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3_000 {
        let len = 1 + (next() % 40) as usize;
        let text: String = (0..len)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        let Ok(parsed) = Markdown.read(text.as_bytes()) else {
            continue;
        };
        assert_eq!(write(&parsed), text, "round trip: {text:?}");
        assert!(pieces_agree(&text), "pieces: {text:?}");
        for block in &parsed.document.blocks {
            for run in &block.source.runs {
                if let Run::Code(c) = run
                    && let Some(at) = c.src
                {
                    assert_eq!(text.get(at..at + c.data.len()), Some(&*c.data), "{text:?}");
                }
            }
        }
    }
}

/// Text an edit writes that would read as syntax is escaped (every `{`, a container's colons
/// at a line's start, `${`, `%{`), so it reads back as the text sent; an escape read keeps
/// its backslash when the block is edited.
#[test]
fn an_edit_escapes_text_that_would_read_as_syntax() {
    let mut parsed = read("# T\n\nOld.\n\nKeep \\{{x}} and \\${y} as text.\n");
    set_source(
        &mut parsed,
        "s1/p",
        "Type {/* this */}, {{x}}, {% y %}\n::: and {#z}.",
    );
    let block = parsed.document.block_mut("s1/p#2").unwrap();
    let runs: Vec<Run> = block
        .source
        .runs
        .iter()
        .map(|r| match r {
            Run::Text { text, .. } if text == "Keep " => Run::text("Still "),
            other => other.clone(),
        })
        .collect();
    block.source = Edition::new(runs);
    let written = write(&parsed);
    assert_eq!(
        written,
        "# T\n\nType \\{/\\* this \\*/}, \\{\\{x}}, \\{% y %}\n\\::: and \\{#z}.\n\nStill \\{{x}} and \\${y} as text.\n"
    );
    let again = read(&written);
    assert_eq!(
        again.document.block("s1/p").unwrap().source.plain_text(),
        "Type {/* this */}, {{x}}, {% y %}\n::: and {#z}."
    );
    // `\{{x}}` is a `{` and the placeholder `{x}` (`\${y}` a `$` and `{y}`), before the
    // edit and after.
    let kept = "{<x id=\"1/\"/>} and $<x id=\"2/\"/> as text. | placeholder:{x}, placeholder:{y}";
    assert_eq!(
        shown(&read("Keep \\{{x}} and \\${y} as text.\n").document)[0],
        format!("Keep {kept}")
    );
    assert_eq!(shown(&again.document)[2], format!("Still {kept}"));
}

fn set_source(parsed: &mut Parsed, key: &str, text: &str) {
    let block = parsed
        .document
        .block_mut(key)
        .unwrap_or_else(|| panic!("no block {key}"));
    block.source = Edition::new(vec![Run::text(text)]);
}

/// The real pages in `testdata/formats/markdown` (see its SOURCES.md): each block that holds
/// a form, as agents read it, with the forms' codes.
#[test]
fn real_docs_pages_read_their_syntax_as_codes() {
    const CLASSES: &[&str] = &[
        "id",
        "jsx",
        "attributes",
        "directive",
        "template",
        "verbatim",
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/formats/markdown");
    let mut out = String::new();
    for name in [
        "react-dev-invalid-hook-call-warning.md",
        "react-dev-blog-react-compiler-1.md",
        "vuejs-docs-conditional.md",
        "hugo-docs-shortcodes-figure.md",
        "hugo-docs-configuration-roles.md",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let parsed = read(&text);
        assert_eq!(write(&parsed), text, "{name}");
        let _ = writeln!(out, "## {name}");
        for block in &parsed.document.blocks {
            let holds = block
                .source
                .runs
                .iter()
                .any(|r| matches!(r, Run::Code(c) if CLASSES.contains(&c.class.as_str())));
            if holds {
                let _ = writeln!(out, "{} | {}", block.key, shown_block(block));
            }
        }
    }
    insta::assert_snapshot!("markdown_syntax_real_docs_pages", out);
}

/// Text an edit puts before a container's marker on its line, or after its closing colons,
/// goes on a line of its own: the container still reads as one.
#[test]
fn a_container_marker_keeps_its_line_in_an_edit() {
    let text = "- ::: tip Tip\n  Body.\n  :::\n";
    let mut parsed = read(text);
    let block = parsed.document.block_mut("top/li").unwrap();
    let mut runs = vec![Run::text("Before")];
    runs.extend(block.source.runs.iter().cloned());
    runs.push(Run::text("after"));
    block.source = Edition::new(runs);
    let written = write(&parsed);
    assert_eq!(
        written,
        "- Before\n  ::: tip Tip\n  Body.\n  :::\n  after\n"
    );
    assert_eq!(
        shown(&read(&written).document),
        [
            "Before<x id=\"1/\"/>Tip<x id=\"2/\"/>Body.<x id=\"3/\"/>after | directive:⏎  ::: tip , directive:⏎  , directive:⏎  :::⏎  "
        ]
    );
}
