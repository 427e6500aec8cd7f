//! `kapi review` as a queue a person can work (issue 39 item 9): it lists drafts (targets a
//! tool or an agent wrote that no person decided), not every human translation; filters by
//! actor, time, language and document; shows one draft's writer, time and the text it
//! replaced; and `--accept` / `--reject` are flags, a rejection writing the replaced text back.

use super::{Kapi, Run};

const RECIPE: &str = "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr, de]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n";

/// A catalog translated by people into French and German (`new` left empty in both).
fn project() -> Kapi {
    let kapi = Kapi::bound();
    kapi.write("kapi.yaml", RECIPE);
    kapi.write(
        "locales/en.json",
        "{\n  \"greeting\": \"Hello {name}\",\n  \"bye\": \"Goodbye\",\n  \"new\": \"New\"\n}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Au revoir\",\n  \"new\": \"\"\n}\n",
    );
    kapi.write(
        "locales/de.json",
        "{\n  \"greeting\": \"Hallo {name}\",\n  \"bye\": \"Tschüss\",\n  \"new\": \"\"\n}\n",
    );
    kapi
}

fn ok(run: Run) -> Run {
    assert_eq!(run.code, 0, "{}", run.transcript());
    run
}

fn queue(kapi: &Kapi, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["review", "--json"];
    all.extend_from_slice(args);
    ok(kapi.run(&all)).json()
}

fn blocks(q: &serde_json::Value) -> Vec<String> {
    q["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["ref"]["edition"].as_str().unwrap(),
                i["ref"]["block"].as_str().unwrap()
            )
        })
        .collect()
}

/// The rev of `block`'s `lang` edition, as its review view gives it.
fn rev(kapi: &Kapi, lang: &str, block: &str) -> String {
    let view = ok(kapi.run(&[
        "review",
        "--json",
        "--doc",
        "locales/en.json",
        "--lang",
        lang,
        "--block",
        block,
    ]))
    .json();
    view["rev"]
        .as_str()
        .unwrap_or_else(|| panic!("no rev in {view}"))
        .to_owned()
}

/// An agent writes `text` over `block`'s `lang` edition through `kapi apply`.
fn agent_writes(kapi: &Kapi, lang: &str, block: &str, text: &str) {
    let set = serde_json::json!({"schema": "kapi.change/v1", "operations": [{
        "op": "set_content",
        "at": {"doc": "locales/en.json", "block": block, "edition": lang},
        "if_match": rev(kapi, lang, block), "content": text}]});
    kapi.write("set.json", set.to_string());
    ok(kapi.run_env(&[("KAPI_ACTOR", "agent:claude")], &["apply", "set.json"]));
}

fn redacted(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        // RFC 3339 times the store recorded: `2026-12-07T12:06:42.276579997Z`.
        let mut line = line.to_owned();
        while let Some(start) = line.find("20").filter(|&i| {
            line[i..].len() > 20
                && line.as_bytes()[i + 4] == b'-'
                && line.as_bytes()[i + 10] == b'T'
        }) {
            let end = line[start..]
                .find('Z')
                .map_or(line.len(), |e| start + e + 1);
            line.replace_range(start..end, "[time]");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn the_queue_lists_drafts_not_the_translations_people_wrote() {
    let kapi = project();
    // Six human translations (two of them empty): none is a draft.
    let q = queue(&kapi, &[]);
    assert_eq!(
        (q["scope"].as_str(), q["total"].as_u64()),
        (Some("drafts"), Some(0)),
        "{q}"
    );
    let all = queue(&kapi, &["--all"]);
    assert_eq!(all["scope"], "undecided");
    assert_eq!(all["total"], 6, "{all}");
    assert!(all["items"][0].get("written").is_none(), "{all}");

    // The pseudo provider fills the empty French `new`: one draft, by the tool.
    ok(kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--provider",
        "pseudo",
    ]));
    let q = queue(&kapi, &[]);
    assert_eq!(blocks(&q), ["fr new"], "{q}");
    let written = &q["items"][0]["written"];
    assert_eq!(written["by"], "tool:pseudo");
    assert_eq!(written["replaced"], "");
    assert!(
        written["at"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{written}"
    );
    insta::assert_snapshot!("queue_text", redacted(&ok(kapi.run(&["review"])).stdout));
    insta::assert_snapshot!(
        "block_text",
        redacted(
            &ok(kapi.run(&[
                "review",
                "--doc",
                "locales/en.json",
                "--lang",
                "fr",
                "--block",
                "new"
            ]))
            .stdout
        )
    );
    let block = ok(kapi.run(&[
        "review",
        "--json",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "new",
    ]))
    .json();
    assert_eq!(
        (block["draft"].as_bool(), block["written"]["by"].as_str()),
        (Some(true), Some("tool:pseudo"))
    );
    // A person's block is no draft and names no writer.
    let bye = ok(kapi.run(&[
        "review",
        "--json",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "bye",
    ]))
    .json();
    assert_eq!(bye["draft"], false);
    assert!(bye.get("written").is_none(), "{bye}");

    // Rejected, the draft that filled an empty target leaves it empty again.
    ok(kapi.run(&[
        "review",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "new",
        "--reject",
    ]));
    assert!(
        kapi.read("locales/fr.json").contains("\"new\": \"\""),
        "{}",
        kapi.read("locales/fr.json")
    );
    assert_eq!(queue(&kapi, &[])["total"], 0);
}

#[test]
fn a_rejected_draft_restores_the_text_it_replaced_and_an_accepted_one_leaves_the_queue() {
    let kapi = project();
    agent_writes(&kapi, "fr", "bye", "Adieu");
    let q = queue(&kapi, &[]);
    assert_eq!(blocks(&q), ["fr bye"], "{q}");
    assert_eq!(q["items"][0]["written"]["by"], "agent:claude");
    assert_eq!(q["items"][0]["written"]["replaced"], "Au revoir");
    let at = [
        "review",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "bye",
    ];
    let view = ok(kapi.run(&at)).stdout;
    assert!(
        view.contains("written by agent:claude at ") && view.contains("replaced: Au revoir"),
        "{view}"
    );

    // Neither verdict is an agent's (exit 3), and nothing is written.
    for flag in ["--accept", "--reject"] {
        let run = kapi.run_env(
            &[("KAPI_ACTOR", "agent:claude")],
            &[&at[..], &[flag]].concat(),
        );
        assert_eq!(run.code, 3, "{flag}: {}", run.transcript());
        assert!(run.stderr.contains("a person's"), "{}", run.stderr);
    }
    assert!(kapi.read("locales/fr.json").contains("\"Adieu\""));

    // The person rejects it: the text it replaced is back, through the change service.
    let run = ok(kapi.run(&[&at[..], &["--reject"]].concat()));
    assert!(
        run.stdout.contains("wrote locales/fr.json"),
        "{}",
        run.stdout
    );
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Au revoir\",\n  \"new\": \"\"\n}\n"
    );
    assert_eq!(queue(&kapi, &[])["total"], 0);
    // Rejecting what is no draft is a usage error naming the way instead.
    let again = kapi.run(&[&at[..], &["--reject"]].concat());
    assert_eq!(again.code, 2, "{}", again.transcript());
    assert!(again.stderr.contains("is no draft"), "{}", again.stderr);

    // Accepted, a draft leaves the queue, and the decision is the person's.
    agent_writes(&kapi, "fr", "bye", "Salut");
    assert_eq!(queue(&kapi, &[])["total"], 1);
    ok(kapi.run(&[&at[..], &["--accept"]].concat()));
    assert_eq!(queue(&kapi, &[])["total"], 0);
    let decisions = kapi.read(".kapi/decisions.jsonl");
    assert!(
        decisions.contains("\"outcome\":\"establish\""),
        "{decisions}"
    );
    assert!(kapi.read("locales/fr.json").contains("\"Salut\""));

    // A draft a kapi before `before` was recorded wrote: listed, its replaced text unknown,
    // and a rejection refused (exit 2) naming the way instead, nothing written.
    agent_writes(&kapi, "fr", "bye", "Bye");
    {
        let db = rusqlite::Connection::open(kapi.path().join(".kapi/work/store.db")).unwrap();
        let ops: String = db
            .query_row(
                "SELECT operations FROM changes ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let mut ops: serde_json::Value = serde_json::from_str(&ops).unwrap();
        for op in ops.as_array_mut().unwrap() {
            op.as_object_mut().unwrap().remove("before");
        }
        db.execute(
            "UPDATE changes SET operations = ?1 WHERE id = (SELECT MAX(id) FROM changes)",
            [ops.to_string()],
        )
        .unwrap();
    }
    let q = queue(&kapi, &[]);
    assert_eq!(blocks(&q), ["fr bye"], "{q}");
    assert!(q["items"][0]["written"].get("replaced").is_none(), "{q}");
    assert!(ok(kapi.run(&at)).stdout.contains("replaced: not recorded"));
    let old = kapi.run(&[&at[..], &["--reject"]].concat());
    assert_eq!(old.code, 2, "{}", old.transcript());
    assert!(
        old.stderr.contains("did not record the text"),
        "{}",
        old.stderr
    );
    assert!(kapi.read("locales/fr.json").contains("\"Bye\""));
    ok(kapi.run(&[&at[..], &["--accept"]].concat()));

    // A person's hand edit after a draft makes the text theirs: no draft.
    let all = queue(&kapi, &["--all", "--lang", "fr"]);
    let hello = all["items"][0]["target"]
        .as_str()
        .unwrap()
        .replace("Bonjour", "Coucou");
    agent_writes(&kapi, "fr", "greeting", &hello);
    assert_eq!(blocks(&queue(&kapi, &[])), ["fr greeting"]);
    let fr = kapi.read("locales/fr.json").replace("Coucou", "Bonsoir");
    kapi.write("locales/fr.json", fr);
    assert_eq!(queue(&kapi, &[])["total"], 0);
}

#[test]
fn the_filters_narrow_the_queue_and_bad_flags_exit_2() {
    let kapi = project();
    ok(kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "de",
        "--provider",
        "pseudo",
    ]));
    agent_writes(&kapi, "fr", "bye", "Adieu");
    assert_eq!(blocks(&queue(&kapi, &[])), ["fr bye", "de new"]);
    assert_eq!(blocks(&queue(&kapi, &["--actor", "tool"])), ["de new"]);
    assert_eq!(
        blocks(&queue(&kapi, &["--actor", "tool:pseudo"])),
        ["de new"]
    );
    assert_eq!(
        blocks(&queue(&kapi, &["--actor", "agent:claude"])),
        ["fr bye"]
    );
    assert_eq!(blocks(&queue(&kapi, &["--actor", "claude"])), ["fr bye"]);
    assert!(blocks(&queue(&kapi, &["--actor", "person"])).is_empty());
    assert_eq!(blocks(&queue(&kapi, &["--lang", "de"])), ["de new"]);
    assert_eq!(
        blocks(&queue(&kapi, &["--doc", "locales/en.json", "--lang", "fr"])),
        ["fr bye"]
    );
    assert_eq!(blocks(&queue(&kapi, &["--since", "2000-01-01"])).len(), 2);
    assert!(blocks(&queue(&kapi, &["--since", "2999-01-01T00:00:00Z"])).is_empty());
    let one = queue(&kapi, &["--limit", "1"]);
    assert_eq!(
        (one["total"].as_u64(), one["truncated"].as_bool()),
        (Some(2), Some(true))
    );

    let bad = kapi.run(&["review", "--since", "last week"]);
    assert_eq!(bad.code, 2, "{}", bad.transcript());
    assert!(
        bad.stderr.contains("`last week` is not a time"),
        "{}",
        bad.stderr
    );
    for args in [
        &["review", "--accept"][..],
        &[
            "review",
            "--doc",
            "locales/en.json",
            "--lang",
            "fr",
            "--block",
            "bye",
            "--accept",
            "--reject",
        ],
        &[
            "review",
            "--doc",
            "locales/en.json",
            "--lang",
            "fr",
            "--block",
            "bye",
            "--actor",
            "tool",
        ],
    ] {
        let run = kapi.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.transcript());
    }
}

/// A PO file holds its own targets: a draft an agent or a provider writes into it is listed
/// (no `target` template needed), and rejecting it gives the file back byte for byte, the
/// draft's `fuzzy` mark gone with it, an emptied target included.
#[test]
fn a_po_draft_is_listed_and_rejecting_it_gives_the_file_back_byte_for_byte() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locale/*.po\"\n",
    );
    // Django admin's French catalog, as its translators wrote it.
    let real = std::fs::read(super::testdata().join("formats/po/django-admin-fr-djangojs.po"))
        .expect("the Django catalog");
    kapi.write("locale/fr.po", &real);
    assert_eq!(queue(&kapi, &[])["total"], 0);
    let all = queue(&kapi, &["--all", "--doc", "locale/fr.po"]);
    assert_eq!(all["total"], 76, "every human translation, only with --all");
    let item = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["ref"]["block"] == "Available %s")
        .expect("Available %s");
    let set = serde_json::json!({"schema": "kapi.change/v1", "operations": [{
        "op": "set_content", "at": item["ref"], "if_match": item["rev"],
        "content": item["target"].as_str().unwrap().replace("disponible(s)", "libres")}]});
    kapi.write("set.json", set.to_string());
    ok(kapi.run_env(&[("KAPI_ACTOR", "agent:claude")], &["apply", "set.json"]));
    assert!(
        kapi.read("locale/fr.po")
            .contains("#, fuzzy, javascript-format")
    );

    let q = queue(&kapi, &[]);
    assert_eq!(blocks(&q), ["fr Available %s"], "{q}");
    assert_eq!(q["items"][0]["target_doc"], "locale/fr.po");
    assert_eq!(q["items"][0]["written"]["replaced"], item["target"]);
    let at = [
        "review",
        "--doc",
        "locale/fr.po",
        "--lang",
        "fr",
        "--block",
        "Available %s",
    ];
    let view = ok(kapi.run(&at)).stdout;
    assert!(
        view.contains("--block 'Available %s' --accept"),
        "a hint a shell reads back: {view}"
    );
    ok(kapi.run(&[&at[..], &["--reject"]].concat()));
    assert!(
        std::fs::read(kapi.path().join("locale/fr.po")).unwrap() == real,
        "{}",
        kapi.read("locale/fr.po")
    );
    assert_eq!(queue(&kapi, &[])["total"], 0);

    // A provider fills an empty target whose source has a placeholder; rejected, it is empty
    // again (the code guard does not hold an emptied target to its codes).
    let empty = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Open %s\"\nmsgstr \"\"\n";
    kapi.write("locale/app.po", empty);
    ok(kapi.run(&[
        "translate",
        "locale/app.po",
        "--to",
        "fr",
        "--provider",
        "pseudo",
    ]));
    assert!(kapi.read("locale/app.po").contains("#, fuzzy"));
    let q = queue(&kapi, &["--doc", "locale/app.po"]);
    assert_eq!(blocks(&q), ["fr Open %s"], "{q}");
    assert_eq!(q["items"][0]["written"]["replaced"], "");
    ok(kapi.run(&[
        "review",
        "--doc",
        "locale/app.po",
        "--lang",
        "fr",
        "--block",
        "Open %s",
        "--reject",
    ]));
    assert_eq!(kapi.read("locale/app.po"), empty);
}

/// A plural an agent rewrote branch by branch is one draft: its view shows each branch's
/// write and the text it replaced, and rejecting it writes every branch back.
#[test]
fn a_plural_drafted_branch_by_branch_is_rejected_whole() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"locales/en.json\"\n    target: \"locales/{lang}.json\"\n",
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"files\": \"{count, plural, one {# file} other {# files}}\"\n}\n",
    );
    let fr = "{\n  \"files\": \"{count, plural, one {# fichier} other {# fichiers}}\"\n}\n";
    kapi.write("locales/fr.json", fr);
    let read = ok(kapi.run(&["inspect", "locales/en.json", "--editions", "fr", "--json"])).json();
    let branches = read["blocks"][0]["editions"]["fr"]["branches"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(branches.len(), 2, "{read}");
    let ops: Vec<serde_json::Value> = branches
        .iter()
        .map(|b| {
            serde_json::json!({"op": "set_content",
                "at": {"doc": "locales/en.json", "block": "files", "edition": "fr", "branch": b["path"]},
                "if_match": b["rev"], "content": b["text"].as_str().unwrap().replace("fichier", "dossier")})
        })
        .collect();
    kapi.write(
        "set.json",
        serde_json::json!({"schema": "kapi.change/v1", "operations": ops}).to_string(),
    );
    ok(kapi.run_env(&[("KAPI_ACTOR", "agent:claude")], &["apply", "set.json"]));
    assert_eq!(blocks(&queue(&kapi, &[])), ["fr files"]);
    let at = [
        "review",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "files",
    ];
    insta::assert_snapshot!("plural_block_text", redacted(&ok(kapi.run(&at)).stdout));
    let view = ok(kapi.run(&[&at[..], &["--json"]].concat())).json();
    let replaced: Vec<&str> = view["drafts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["replaced"].as_str().unwrap())
        .collect();
    assert_eq!(
        replaced,
        ["<x id=\"1/\"/> fichier", "<x id=\"1/\"/> fichiers"]
    );
    ok(kapi.run(&[&at[..], &["--reject"]].concat()));
    assert_eq!(kapi.read("locales/fr.json"), fr);
    assert_eq!(queue(&kapi, &[])["total"], 0);
}

/// A rejection is a write like any other: restoring a text that uses a word the terms forbid
/// introduces a failing finding, so the commit check refuses it (exit 3) and the file keeps
/// the draft.
#[test]
fn a_rejection_the_commit_check_refuses_exits_3_and_writes_nothing() {
    let kapi = project();
    kapi.write(
        ".kapi/terms.yaml",
        "version: v1\nconcepts:\n  - id: email\n    terms:\n      - {text: e-mail, lang: fr, status: forbidden, replacement: courriel}\n",
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"greeting\": \"Hello {name}\",\n  \"bye\": \"Goodbye\",\n  \"new\": \"New\",\n  \"send\": \"Send an email\"\n}\n",
    );
    // The person's French uses the forbidden word; an agent's draft does not.
    kapi.write(
        "locales/fr.json",
        "{\n  \"greeting\": \"Bonjour {name}\",\n  \"bye\": \"Au revoir\",\n  \"new\": \"\",\n  \"send\": \"Envoyez un e-mail\"\n}\n",
    );
    agent_writes(&kapi, "fr", "send", "Envoyez un courriel");
    let drafted = kapi.read("locales/fr.json");
    assert!(drafted.contains("\"Envoyez un courriel\""), "{drafted}");
    let run = kapi.run(&[
        "review",
        "--doc",
        "locales/en.json",
        "--lang",
        "fr",
        "--block",
        "send",
        "--reject",
    ]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert!(
        run.stdout.contains("translation-terms.avoid"),
        "{}",
        run.stdout
    );
    assert_eq!(kapi.read("locales/fr.json"), drafted);
    assert_eq!(blocks(&queue(&kapi, &[])), ["fr send"]);
}
