//! Block identity through the binary: a change set that edits a Markdown heading and the
//! paragraph under it lands; sent again, it is refused `stale` for each operation with the
//! current rev and text (its keys still resolve: they come from no text), and a fresh set
//! naming the paragraph by the same key at the new rev applies.

use serde_json::{Value, json};

use crate::Kapi;
use crate::apply::{RECIPE, apply, set, statuses};

const PAGE: &str = "# Install\n\nRun the installer.\n\nThen restart.\n\n## Use\n\nOpen it.\n";

/// The blocks `kapi inspect --json` reads from the page.
fn blocks(kapi: &Kapi) -> Vec<Value> {
    let read = kapi.run(&["inspect", "docs/install.md", "--json"]);
    assert_eq!(read.code, 0, "{}", read.transcript());
    read.json()["blocks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn keys(blocks: &[Value]) -> Vec<String> {
    blocks
        .iter()
        .map(|b| b["ref"]["block"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_resent_set_is_stale_after_it_edited_a_heading_and_the_paragraph_under_it() {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write("docs/install.md", PAGE);
    let read = blocks(&kapi);
    let (heading, paragraph) = (&read[0], &read[1]);
    let ops = json!([
        {"op": "set_content", "at": heading["ref"], "if_match": heading["rev"],
         "content": "Setting up"},
        {"op": "set_content", "at": paragraph["ref"], "if_match": paragraph["rev"],
         "content": "Run the new installer."}
    ]);
    let first = apply(&kapi, &set(ops.clone()), &["--json"]);
    assert_eq!(first.code, 0, "{}", first.transcript());
    assert_eq!(statuses(&first), ["applied", "applied"]);
    let landed = "# Setting up\n\nRun the new installer.\n\nThen restart.\n\n## Use\n\nOpen it.\n";
    assert_eq!(kapi.read("docs/install.md"), landed);
    let now = blocks(&kapi);
    assert_eq!(keys(&now), keys(&read), "an edit moved a key");

    // The same set again: every operation is stale and carries what the block holds now.
    let again = apply(&kapi, &set(ops), &["--json"]);
    assert_eq!(again.code, 3, "{}", again.transcript());
    let result = again.json();
    assert_eq!(result["status"], "refused", "{result:#}");
    for (index, block) in [(0, &now[0]), (1, &now[1])] {
        let op = &result["operations"][index];
        assert_eq!(op["status"], "stale", "{op:#}");
        assert_eq!(op["current"]["rev"], block["rev"], "{op:#}");
        assert_eq!(op["current"]["text"], block["text"], "{op:#}");
    }
    assert_eq!(result["operations"][0]["current"]["text"], "Setting up");
    assert_eq!(
        result["operations"][1]["current"]["text"],
        "Run the new installer."
    );
    assert_eq!(kapi.read("docs/install.md"), landed, "a stale set wrote");

    // Rebased on the new rev, the paragraph under the edited heading takes an edit by the
    // key it had before.
    let fresh = set(json!([
        {"op": "set_content", "at": now[1]["ref"], "if_match": now[1]["rev"],
         "content": "Run the newest installer."}
    ]));
    let rebased = apply(&kapi, &fresh, &["--json"]);
    assert_eq!(rebased.code, 0, "{}", rebased.transcript());
    assert_eq!(statuses(&rebased), ["applied"]);
    assert!(
        kapi.read("docs/install.md")
            .contains("\n\nRun the newest installer.\n\n"),
        "{}",
        kapi.read("docs/install.md")
    );

    // The keys are positional; the label keeps the heading's words and follows them.
    assert_eq!(keys(&read), ["s1/h", "s1/p", "s1/p#2", "s2/h", "s2/p"]);
    let labels = |blocks: &[Value]| -> Vec<String> {
        blocks
            .iter()
            .map(|b| b["label"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(
        labels(&read),
        ["install/h", "install/p", "install/p#2", "use/h", "use/p"]
    );
    assert_eq!(
        labels(&blocks(&kapi)),
        [
            "setting-up/h",
            "setting-up/p",
            "setting-up/p#2",
            "use/h",
            "use/p"
        ]
    );
}
