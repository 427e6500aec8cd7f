//! MDX (`.mdx`, issue 41) through the binary: `kapi formats` lists it, `kapi init` offers its
//! trees, `kapi inspect` reads ESM as code and a JSX tag's props as markup, `kapi check` finds a
//! planted term in prose at its own line and column and never in markup, a JSX comment
//! suppresses, and `kapi apply` changes one block and leaves every other byte.

use serde_json::{Value, json};

use super::Kapi;

const RECIPE: &str = "version: v1\nname: mdx\ndefaults:\n  source_language: en\n  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.mdx\"\ngates:\n  fail_on: major\n";
const TERMS: &str = "version: v1\nconcepts:\n  - id: allow\n    terms:\n      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}\n";

/// A Starlight page: front matter, ESM, a component whose props (over several lines, one a
/// `#` line) name the forbidden word, prose inside a component, a JSX comment, and an inline
/// element whose `{…}` prop names it (a file with no JSX comment reads it so too).
const PAGE: &str = "---\ntitle: Lists\n---\n\nimport { Tabs, TabItem } from '@astrojs/starlight/components';\nimport CommandTabs from '@components/CommandTabs.astro';\nexport const whitelist = ['a'];\n\nAdd the host to the whitelist.\n\n<CommandTabs\n  npm=\"npm run whitelist\n# the whitelist step\"\n  yarn={`yarn whitelist`}\n/>\n\n<Tabs>\n<TabItem label=\"whitelist\">\n\nThe whitelist holds hosts.\n\n</TabItem>\n</Tabs>\n\n{/* kapi-disable-next-line terms.forbidden */}\nOur whitelist API keeps its name.\n\nPress <Kbd keys={[\"whitelist\"]} /> to add a host.\n";

fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(".kapi/terms.yaml", TERMS);
    kapi.write("docs/lists.mdx", PAGE);
    kapi
}

#[test]
fn formats_lists_mdx_and_init_offers_its_trees() {
    let kapi = Kapi::empty();
    let run = kapi.run(&["formats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let formats = run.json();
    let mdx = formats["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "mdx")
        .cloned()
        .unwrap_or_else(|| panic!("{formats}"));
    assert_eq!(mdx["extensions"], json!(["mdx"]), "{mdx}");
    kapi.write("docs/guide/intro.mdx", "# Intro\n\nThe tool is fast.\n");
    kapi.write("README.md", "# Readme\n");
    let run = kapi.run(&["init", "--agents", "none"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let recipe = kapi.read("kapi.yaml");
    assert!(recipe.contains("- path: \"docs/**/*.mdx\""), "{recipe}");
    assert!(recipe.contains("- path: \"*.md\""), "{recipe}");
}

#[test]
fn esm_is_code_and_props_are_markup() {
    let kapi = project();
    let run = kapi.run(&["inspect", "--json", "docs/lists.mdx"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc = run.json();
    assert_eq!(doc["format"], "mdx", "{doc}");
    let blocks = doc["blocks"].as_array().unwrap();
    let esm: Vec<&Value> = blocks
        .iter()
        .filter(|b| b["ref"]["block"] == "top/esm")
        .collect();
    assert_eq!(esm.len(), 1, "{doc}");
    assert_eq!(esm[0]["role"], "code");
    assert!(
        esm[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("import { Tabs")
    );
    let prose: Vec<&str> = blocks
        .iter()
        .filter(|b| b["role"] == "paragraph")
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        prose,
        [
            "Add the host to the whitelist.",
            "The whitelist holds hosts.",
            "<x id=\"1/\"/>\nOur whitelist API keeps its name.",
            "Press <x id=\"1/\"/> to add a host."
        ],
        "{doc}"
    );
}

#[test]
fn check_finds_prose_at_its_position_never_markup_and_a_jsx_comment_suppresses() {
    let kapi = project();
    let run = kapi.run(&["check", "--json", "docs/lists.mdx"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let report = run.json();
    let at: Vec<(u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    // Line 9 "Add the host to the whitelist." and line 20 "The whitelist holds hosts.";
    // the ESM, the props and the `# the whitelist step` line inside one are markup; line 26
    // is suppressed by the JSX comment above it.
    assert_eq!(at, [(9, 21), (20, 5)], "{report}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report}");
}

#[test]
fn apply_changes_one_block_and_every_other_byte_stays() {
    let kapi = project();
    let run = kapi.run(&["inspect", "--json", "docs/lists.mdx"]);
    let doc = run.json();
    let block = doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["text"] == "The whitelist holds hosts.")
        .cloned()
        .unwrap();
    let change = json!({"schema": "kapi.change/v1", "operations": [{
        "op": "replace_text", "at": block["ref"], "if_match": block["rev"],
        "find": "whitelist", "replace": "allowlist"}]});
    kapi.write("change.json", change.to_string());
    let run = kapi.run(&["apply", "--json", "change.json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        kapi.read("docs/lists.mdx"),
        PAGE.replace("The whitelist holds", "The allowlist holds")
    );
}
