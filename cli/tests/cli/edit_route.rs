//! What `kapi help edit` tells an assistant about `set_content`, held to what the binary does
//! (issue 38, item 11): Markdown typed into it lands escaped as literal text, a code the read
//! did not show is refused, HTML refuses a typed tag, plain text takes it as typed, and a
//! catalog's message takes a typed placeholder as one. Each claim is checked against the help
//! text, so the reference cannot drift from the binary silently.

use serde_json::{Value, json};

use crate::{Kapi, Run};

fn agent(kapi: &Kapi, args: &[&str]) -> Run {
    kapi.run_env(&[("KAPI_ACTOR", "agent:test")], args)
}

fn blocks(kapi: &Kapi, file: &str) -> Vec<Value> {
    let run = kapi.run(&["inspect", file, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()["blocks"].as_array().cloned().unwrap_or_default()
}

/// One operation on the block at `index` of `file`, sent by an agent; `extra` adds to it.
fn edit(kapi: &Kapi, file: &str, index: usize, op: Value, dry: bool) -> Run {
    let block = &blocks(kapi, file)[index];
    let mut op = op;
    op["at"] = block["ref"].clone();
    op["if_match"] = block["rev"].clone();
    let set = json!({"schema": "kapi.change/v1", "operations": [op]});
    kapi.write("set.json", set.to_string());
    let mut args = vec!["apply", "set.json"];
    if dry {
        args.push("--dry-run");
    }
    agent(kapi, &args)
}

fn set_content(kapi: &Kapi, file: &str, index: usize, content: &str, dry: bool) -> Run {
    edit(
        kapi,
        file,
        index,
        json!({"op": "set_content", "content": content}),
        dry,
    )
}

/// The line a dry run's diff adds.
fn added(run: &Run) -> String {
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    run.stdout
        .lines()
        .find(|l| l.starts_with('+') && !l.starts_with("+++"))
        .unwrap_or_else(|| panic!("no added line: {}", run.stdout))[1..]
        .to_owned()
}

fn help_edit(kapi: &Kapi) -> String {
    let run = kapi.run(&["help", "edit"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn markdown_typed_into_set_content_lands_escaped_as_the_edit_reference_says() {
    let kapi = Kapi::empty();
    kapi.write("a.md", "# Guide\n\nSome *em* and **b** text.\n\nOther.\n");
    let typed = "Use `x`, **b** and [l](u).";
    let lands = added(&set_content(&kapi, "a.md", 2, typed, true));
    assert_eq!(lands, r"Use \`x\`, \*\*b\*\* and \[l\](u).");
    let help = help_edit(&kapi);
    assert!(
        help.contains(&format!(
            "`` {typed} `` lands\n  as ``{lands}`` in the file"
        )),
        "`kapi help edit` no longer shows what lands:\n{help}"
    );
    // Written, it reads back as the same literal text: no code was made of it.
    assert_eq!(set_content(&kapi, "a.md", 2, typed, false).code, 0);
    let block = &blocks(&kapi, "a.md")[2];
    assert_eq!(block["text"], typed);
    assert_eq!(block["codes"], json!([]));

    // `replace_text` escapes what it puts in the same way.
    let replaced = added(&edit(
        &kapi,
        "a.md",
        1,
        json!({"op": "replace_text", "find": "text", "replace": "`text`"}),
        true,
    ));
    assert_eq!(replaced, r"Some *em* and **b** \`text\`.");
    assert!(help.contains("`replace_text` does the same"), "{help}");

    // A brace is escaped: template syntax and JSX cannot be typed in.
    let braces = added(&set_content(&kapi, "a.md", 2, "Show {count} items", true));
    assert_eq!(braces, r"Show \{count} items");
    assert!(
        help.contains(r"`Show {count} items` lands as `Show \{count} items`"),
        "{help}"
    );
}

#[test]
fn set_content_refuses_a_code_the_read_did_not_show_and_lets_a_formatting_pair_go() {
    let kapi = Kapi::empty();
    kapi.write(
        "a.md",
        "# Guide\n\nRun `build` with *care*, see [docs](https://x.dev).\n",
    );
    let help = help_edit(&kapi);
    // The read shows the codes: inline code, an emphasis pair, a link.
    let text = blocks(&kapi, "a.md")[1]["text"].clone();
    assert_eq!(
        text,
        r#"Run <x id="1/"/> with <x id="2"/>care<x id="/2"/>, see <x id="3"/>docs<x id="/3"/>."#
    );
    let invented = set_content(
        &kapi,
        "a.md",
        1,
        r#"Run <x id="1/"/> and <x id="4/"/> with <x id="2"/>care<x id="/2"/>, see <x id="3"/>docs<x id="/3"/>."#,
        true,
    );
    assert_eq!(invented.code, 3, "{}", invented.stdout);
    assert!(
        invented.stdout.contains("guard") && invented.stdout.contains("cannot invent a code"),
        "{}",
        invented.stdout
    );
    assert!(
        help.contains("A tag the read did not show is refused (`guard`)"),
        "{help}"
    );
    // An emphasis pair may go whole; inline code and a link may not.
    let pair_gone = set_content(
        &kapi,
        "a.md",
        1,
        r#"Run <x id="1/"/> with care, see <x id="3"/>docs<x id="/3"/>."#,
        true,
    );
    assert_eq!(
        added(&pair_gone),
        "Run `build` with care, see [docs](https://x.dev)."
    );
    for lost in [
        r#"Run it with <x id="2"/>care<x id="/2"/>, see <x id="3"/>docs<x id="/3"/>."#,
        r#"Run <x id="1/"/> with <x id="2"/>care<x id="/2"/>, see docs."#,
    ] {
        let run = set_content(&kapi, "a.md", 1, lost, true);
        assert_eq!(run.code, 3, "{lost}: {}", run.stdout);
        assert!(run.stdout.contains("would be lost"), "{}", run.stdout);
    }
    assert!(
        help.contains(
            "Every code must\n  stay, except that an emphasis or bold pair may go whole."
        ),
        "{help}"
    );
}

#[test]
fn html_plain_text_and_catalogs_take_typed_markup_as_the_edit_reference_says() {
    let kapi = Kapi::empty();
    let help = help_edit(&kapi);

    kapi.write("a.html", "<p>Hello <b>world</b>.</p>\n");
    let html = set_content(
        &kapi,
        "a.html",
        0,
        r#"Hello <x id="1"/>world<x id="/1"/> and <i>you</i>."#,
        true,
    );
    assert_eq!(html.code, 3, "{}", html.stdout);
    assert!(html.stdout.contains("unsupported"), "{}", html.stdout);
    assert!(
        help.contains("HTML: a tag you type is refused (`unsupported`)."),
        "{help}"
    );

    kapi.write("a.txt", "Hello world.\n");
    let typed = "Use `x`, **b** and [l](u) <i>t</i>.";
    assert_eq!(added(&set_content(&kapi, "a.txt", 0, typed, true)), typed);
    assert!(help.contains("Plain text: written as typed."), "{help}");

    kapi.write("en.json", "{\"hello\": \"Hello {name}.\"}\n");
    let run = set_content(
        &kapi,
        "en.json",
        0,
        r#"Hello <x id="1/"/>, {count} "new" <i>mails</i>."#,
        false,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        kapi.read("en.json"),
        "{\"hello\": \"Hello {name}, {count} \\\"new\\\" <i>mails</i>.\"}\n"
    );
    let block = &blocks(&kapi, "en.json")[0];
    let codes: Vec<&str> = block["codes"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["data"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["{name}", "{count}", "<i>"], "{block}");
    assert!(
        help.contains("so a `{count}`, `%d` or `<i>` you type becomes a placeholder or tag"),
        "{help}"
    );
}
