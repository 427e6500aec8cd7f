//! Markup and template syntax of docs generators written in Markdown (MDX-style heading ids
//! and expressions, container directives, Hugo shortcodes, Liquid and mdBook tags, components
//! that hold code) through the binary: `kapi inspect` shows each as a code, `kapi check`
//! never reads a word inside one, and `kapi apply` keeps its bytes.

use serde_json::{Value, json};

use crate::Kapi;
use crate::apply::{apply, set, statuses};

/// An MDX-style page as the React docs write one.
const REACT: &str = "---
title: Installation
---

## Try React {/*try-react*/}

Read the guide.{' '}
Then {/* a note */} start with {user.name ?? 'you'}.

<img src=\"/a.png\" style={{margin: '0 auto'}} />

<TerminalBlock>

npm install react

</TerminalBlock>

pnpm
<TerminalBlock>
pnpm add react
</TerminalBlock>
";

/// VitePress and Docusaurus containers, and a Pandoc-style heading id.
const VITEPRESS: &str = "# Guide {#guide .wide}

::: tip Tip
Body text here.
:::

:::warning

Careful now.

:::

:::note[Your title]
Docusaurus body.
:::
";

/// Hugo shortcodes, Liquid tags and expressions, an mdBook include.
const HUGO: &str = "# Shortcodes

See {{< ref \"install.md\" >}} and {{% param \"x\" %}} for more.

{{< figure src=\"a.png\" alt=\"A\" >}}

{{< code-toggle file=hugo >}}
[params]
foo = 'bar'
{{< /code-toggle >}}

{% include note.html %} and {{ page.title }} and {{#include file.rs:anchor}}.
";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\nname: sites\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: allowlist, lang: en, status: preferred}\n      - {text: whitelist, lang: en, status: forbidden}\n",
    );
    kapi.write("docs/react.md", REACT);
    kapi.write("docs/vitepress.md", VITEPRESS);
    kapi.write("docs/hugo.md", HUGO);
    kapi
}

/// Every block of `doc`: (key, text as agents read it, codes).
fn blocks(kapi: &Kapi, doc: &str) -> Vec<(String, String, Vec<Value>)> {
    let run = kapi.run(&["inspect", doc, "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    run.json()["blocks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|b| {
            (
                b["ref"]["block"].as_str().unwrap_or_default().to_owned(),
                b["text"].as_str().unwrap_or_default().to_owned(),
                b["codes"].as_array().cloned().unwrap_or_default(),
            )
        })
        .collect()
}

fn block<'b>(
    all: &'b [(String, String, Vec<Value>)],
    key: &str,
) -> &'b (String, String, Vec<Value>) {
    all.iter()
        .find(|(k, ..)| k == key)
        .unwrap_or_else(|| panic!("no block {key} in {all:#?}"))
}

/// (class, data) of each code.
fn codes(codes: &[Value]) -> Vec<(String, String)> {
    codes
        .iter()
        .map(|c| {
            (
                c["class"].as_str().unwrap_or_default().to_owned(),
                c["data"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn pair(class: &str, data: &str) -> (String, String) {
    (class.to_owned(), data.to_owned())
}

#[test]
fn inspect_shows_mdx_heading_ids_expressions_and_code_components_as_codes() {
    let kapi = project();
    let all = blocks(&kapi, "docs/react.md");
    let (_, text, c) = block(&all, "s1/h");
    assert_eq!(text, "Try React<x id=\"1/\"/>");
    assert_eq!(codes(c), [pair("id", " {/*try-react*/}")]);
    let (_, text, c) = block(&all, "s1/p");
    assert_eq!(
        text,
        "Read the guide.<x id=\"1/\"/>\nThen <x id=\"2/\"/> start with <x id=\"3/\"/>."
    );
    assert_eq!(
        codes(c),
        [
            pair("jsx", "{' '}"),
            pair("jsx", "{/* a note */}"),
            pair("jsx", "{user.name ?? 'you'}"),
        ]
    );
    let (_, text, c) = block(&all, "s1/p#2");
    assert_eq!(text, "<x id=\"1/\"/>");
    assert_eq!(
        codes(c),
        [pair(
            "jsx",
            "<img src=\"/a.png\" style={{margin: '0 auto'}} />"
        )]
    );
    // A component that holds shell commands: its paragraph, between blank lines, is code;
    // without blank lines, the component is one code inside the paragraph.
    let (_, text, c) = block(&all, "s1/p#3");
    assert_eq!(text, "<x id=\"1/\"/>");
    assert_eq!(codes(c), [pair("verbatim", "npm install react")]);
    let (_, text, c) = block(&all, "s1/p#4");
    assert_eq!(text, "pnpm\n<x id=\"1/\"/>");
    assert_eq!(
        codes(c),
        [pair(
            "verbatim",
            "<TerminalBlock>\npnpm add react\n</TerminalBlock>"
        )]
    );
}

#[test]
fn inspect_shows_containers_and_attribute_ids_as_codes_and_a_title_as_prose() {
    let kapi = project();
    let all = blocks(&kapi, "docs/vitepress.md");
    let (_, text, c) = block(&all, "s1/h");
    assert_eq!(text, "Guide<x id=\"1/\"/>");
    assert_eq!(codes(c), [pair("id", " {#guide .wide}")]);
    let (_, text, c) = block(&all, "s1/p");
    assert_eq!(
        text,
        "<x id=\"1/\"/>Tip<x id=\"2/\"/>Body text here.<x id=\"3/\"/>"
    );
    assert_eq!(
        codes(c),
        [
            pair("directive", "::: tip "),
            pair("directive", "\n"),
            pair("directive", "\n:::"),
        ]
    );
    let texts: Vec<&str> = all.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Guide<x id=\"1/\"/>",
            "<x id=\"1/\"/>Tip<x id=\"2/\"/>Body text here.<x id=\"3/\"/>",
            "<x id=\"1/\"/>",
            "Careful now.",
            "<x id=\"1/\"/>",
            "<x id=\"1/\"/>Your title<x id=\"2/\"/>Docusaurus body.<x id=\"3/\"/>",
        ]
    );
    let (_, _, c) = block(&all, "s1/p#5");
    assert_eq!(
        codes(c),
        [
            pair("directive", ":::note["),
            pair("directive", "]\n"),
            pair("directive", "\n:::"),
        ]
    );
}

#[test]
fn inspect_shows_shortcodes_liquid_and_mdbook_tags_as_codes() {
    let kapi = project();
    let all = blocks(&kapi, "docs/hugo.md");
    let (_, text, c) = block(&all, "s1/p");
    assert_eq!(text, "See <x id=\"1/\"/> and <x id=\"2/\"/> for more.");
    assert_eq!(
        codes(c),
        [
            pair("template", "{{< ref \"install.md\" >}}"),
            pair("template", "{{% param \"x\" %}}"),
        ]
    );
    let (_, text, _) = block(&all, "s1/p#2");
    assert_eq!(text, "<x id=\"1/\"/>");
    // A shortcode that holds code: the pair and what it holds are one code.
    let (_, text, c) = block(&all, "s1/p#3");
    assert_eq!(text, "<x id=\"1/\"/>");
    assert_eq!(
        codes(c),
        [pair(
            "verbatim",
            "{{< code-toggle file=hugo >}}\n[params]\nfoo = 'bar'\n{{< /code-toggle >}}"
        )]
    );
    let (_, text, c) = block(&all, "s1/p#4");
    assert_eq!(
        text,
        "<x id=\"1/\"/> and <x id=\"2/\"/> and <x id=\"3/\"/>."
    );
    assert_eq!(
        codes(c),
        [
            pair("template", "{% include note.html %}"),
            pair("template", "{{ page.title }}"),
            pair("template", "{{#include file.rs:anchor}}"),
        ]
    );
    // Every file still comes back byte for byte.
    let verify = kapi.run(&[
        "inspect",
        "--verify",
        "docs/react.md",
        "docs/vitepress.md",
        "docs/hugo.md",
    ]);
    assert_eq!(verify.code, 0, "{}", verify.transcript());
}

#[test]
fn check_reads_no_word_inside_site_syntax_and_still_reads_the_prose() {
    let kapi = project();
    kapi.write(
        "docs/inside.md",
        "## Lists {/*whitelist*/}

## Access {#whitelist}

See {{< whitelist >}} and {% whitelist %} and {/* whitelist */} here.

::: whitelist
Allowed words only.
:::

<TerminalBlock>

npm run whitelist

</TerminalBlock>
",
    );
    let run = kapi.run(&["check", "docs/inside.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let findings = run.json()["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(findings.is_empty(), "{findings:#?}");

    kapi.write(
        "docs/prose.md",
        "## Lists {/*lists*/}\n\nAdd the site to the whitelist.\n\n::: tip The whitelist\nBody.\n:::\n",
    );
    let run = kapi.run(&["check", "docs/prose.md", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let lines: Vec<i64> = run.json()["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|f| f["rule"] == "terms.forbidden")
        .filter_map(|f| f["line"].as_i64())
        .collect();
    // The sentence, and the container's title, which the site renders.
    assert_eq!(lines, [3, 5], "{}", run.stdout);
}

/// The ref and rev of block `key` of `doc`.
fn at(kapi: &Kapi, doc: &str, key: &str) -> (Value, String) {
    let run = kapi.run(&["inspect", doc, "--json"]);
    let blocks = run.json()["blocks"].as_array().cloned().unwrap_or_default();
    let b = blocks
        .iter()
        .find(|b| b["ref"]["block"] == key)
        .unwrap_or_else(|| panic!("no block {key}"));
    (
        b["ref"].clone(),
        b["rev"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn apply_keeps_the_bytes_of_site_syntax_in_an_edited_block() {
    let kapi = project();
    let (heading, heading_rev) = at(&kapi, "docs/react.md", "s1/h");
    let (para, para_rev) = at(&kapi, "docs/react.md", "s1/p");
    let (tip, tip_rev) = at(&kapi, "docs/vitepress.md", "s1/p");
    let (see, see_rev) = at(&kapi, "docs/hugo.md", "s1/p");
    let change = set(json!([
        {"op": "set_content", "at": heading, "if_match": heading_rev,
         "content": "Try React *now*<x id=\"1/\"/>"},
        {"op": "replace_text", "at": para, "if_match": para_rev,
         "find": "start with", "replace": "begin with"},
        {"op": "set_content", "at": tip, "if_match": tip_rev,
         "content": "<x id=\"1/\"/>Note<x id=\"2/\"/>- New body.<x id=\"3/\"/>"},
        {"op": "replace_text", "at": see, "if_match": see_rev,
         "find": "for more", "replace": "for details"},
    ]));
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(statuses(&run), ["applied"; 4]);
    let react = kapi.read("docs/react.md");
    assert!(
        react.contains("## Try React \\*now\\* {/*try-react*/}\n"),
        "{react}"
    );
    assert!(
        react.contains(
            "Read the guide.{' '}\nThen {/* a note */} begin with {user.name ?? 'you'}.\n"
        ),
        "{react}"
    );
    // A line the edit starts after a container's marker is escaped where it would start a
    // list, so the container still holds one paragraph.
    let vitepress = kapi.read("docs/vitepress.md");
    assert!(
        vitepress.contains("::: tip Note\n\\- New body.\n:::\n"),
        "{vitepress}"
    );
    let hugo = kapi.read("docs/hugo.md");
    assert!(
        hugo.contains("See {{< ref \"install.md\" >}} and {{% param \"x\" %}} for details.\n"),
        "{hugo}"
    );
    // An edit that drops the syntax is refused: it is a code the block must keep.
    let (heading, heading_rev) = at(&kapi, "docs/react.md", "s1/h");
    let drop = set(json!([
        {"op": "set_content", "at": heading, "if_match": heading_rev, "content": "Try React"},
    ]));
    let run = apply(&kapi, &drop, &["--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(statuses(&run), ["guard"]);
}
