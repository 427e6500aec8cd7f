//! The provider path held to the gate (issue 39 item 12), through the binary and against a
//! hostile OpenAI-compatible mock on 127.0.0.1 ([`super::translate::mock`]): a PO or XLIFF
//! target that gains a placeholder is refused on every path (`kapi apply`, `translate`, `up`,
//! MCP `apply_edits`) as a JSON target is; an answer carrying a secret or a control or bidi
//! character is refused; a provider's error body is scrubbed; an empty target whose source has
//! placeholders is filled; retries are capped and final errors not retried; a run stops
//! sending when a write fails; one large catalog translates in linear time.

use std::time::Duration;

use serde_json::{Value, json};

use super::Kapi;
use super::translate::{KEY, asked, completion, mock, project, provider_recipe};

/// A project with a PO file and an XLIFF file into French, and a JSON catalog with a `target`
/// template; each French string translated and free of placeholders.
fn bilingual(providers: &str) -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        format!("version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"po/*.po\"\n  - path: \"xliff/*.xlf\"\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        format: json\n        target: \"locales/{{lang}}.json\"\n{providers}"),
    );
    kapi.write(
        "po/fr.po",
        "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\"\n\nmsgid \"Goodbye\"\nmsgstr \"Au revoir\"\n\nmsgid \"Open\"\nmsgstr \"\"\n",
    );
    kapi.write(
        "xliff/a.xlf",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n  <file original=\"a\" source-language=\"en\" target-language=\"fr\" datatype=\"plaintext\">\n    <body>\n      <trans-unit id=\"one\">\n        <source>Save</source>\n        <target>Enregistrer</target>\n      </trans-unit>\n      <trans-unit id=\"two\">\n        <source>Close</source>\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n",
    );
    kapi.write("locales/en.json", "{\n  \"bye\": \"Goodbye\"\n}\n");
    kapi.write("locales/fr.json", "{\n  \"bye\": \"Au revoir\"\n}\n");
    kapi
}

/// The `fr` edition's rev of `block` in `doc`, as `kapi inspect` reads it.
fn fr_rev(kapi: &Kapi, doc: &str, block: &str) -> String {
    let read = kapi
        .run(&["inspect", doc, "--editions", "fr", "--json"])
        .json();
    let blocks = read["blocks"].as_array().cloned().unwrap_or_default();
    let b = blocks
        .iter()
        .find(|b| b["ref"]["block"] == block)
        .unwrap_or_else(|| panic!("no block {block} in {read:#}"));
    b["editions"]["fr"]["rev"]
        .as_str()
        .unwrap_or_else(|| panic!("no fr rev: {b:#}"))
        .to_owned()
}

fn set(doc: &str, block: &str, rev: &str, content: &str) -> Value {
    json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
        "at": {"doc": doc, "block": block, "edition": "fr"},
        "if_match": rev, "content": content}]})
}

/// One `tools/call apply_edits` on `kapi mcp`: the change result.
fn mcp_apply(kapi: &Kapi, set: &Value) -> Value {
    let mut args = set.clone();
    if let Some(o) = args.as_object_mut() {
        o.remove("schema");
    }
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "apply_edits", "arguments": args}}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let run = kapi.run_stdin(&["mcp"], input.as_bytes());
    let reply = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no reply: {}", run.transcript()));
    let text = reply
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no result: {reply:#}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_po_or_xliff_target_that_gains_a_placeholder_is_refused_on_every_path() {
    let kapi = bilingual("");
    let files = ["po/fr.po", "xliff/a.xlf", "locales/fr.json"];
    let before: Vec<String> = files.iter().map(|f| kapi.read(f)).collect();
    // `kapi apply`, one edit per file and placeholder kind.
    for (doc, block, content) in [
        ("po/fr.po", "Goodbye", "Au revoir %s"),
        ("po/fr.po", "Goodbye", "Au revoir {{x}}"),
        ("xliff/a.xlf", "one", "Enregistrer %(n)d"),
        ("locales/en.json", "bye", "Au revoir {{x}}"),
    ] {
        let rev = fr_rev(&kapi, doc, block);
        kapi.write("set.json", set(doc, block, &rev, content).to_string());
        let run = kapi.run(&["apply", "set.json", "--json"]);
        assert_eq!(run.code, 3, "{doc} {content}: {}", run.transcript());
        let op = &run.json()["operations"][0];
        assert_eq!(op["status"], "gate_failed", "{op:#}");
        assert_eq!(op["findings"][0]["rule"], "placeholders.extra", "{op:#}");
    }
    // MCP `apply_edits`.
    let rev = fr_rev(&kapi, "po/fr.po", "Goodbye");
    let result = mcp_apply(&kapi, &set("po/fr.po", "Goodbye", &rev, "Au revoir %(n)d"));
    assert_eq!(
        result["operations"][0]["status"], "gate_failed",
        "{result:#}"
    );
    for (file, was) in files.iter().zip(&before) {
        assert_eq!(&kapi.read(file), was, "{file} is untouched");
    }
    // `kapi translate` and `kapi up` with a provider that adds `%s` to every answer.
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            *v = Value::String(format!("FR {} %s", v.as_str().unwrap_or_default()));
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = bilingual(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    let before: Vec<String> = files.iter().map(|f| kapi.read(f)).collect();
    let run = kapi.run(&["translate", "po/fr.po", "--provider", "local", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let skipped = run.json()["documents"][0]["skipped"].clone();
    assert_eq!(skipped[0]["block"], "Open", "{skipped:#}");
    assert_eq!(skipped[0]["status"], "gate_failed", "{skipped:#}");
    let up = kapi.run(&["up", "--provider", "local", "--json"]);
    assert_eq!(up.code, 3, "{}", up.transcript());
    let statuses: Vec<Value> = up.json()["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["skipped"].as_array().cloned().unwrap_or_default())
        .map(|s| s["status"].clone())
        .collect();
    assert!(
        statuses.len() == 2 && statuses.iter().all(|s| s == "gate_failed"),
        "the PO and the XLIFF unit: {statuses:?}"
    );
    for (file, was) in files.iter().zip(&before) {
        assert_eq!(&kapi.read(file), was, "{file} is untouched");
    }
    assert_eq!(kapi.run(&["check"]).code, 0);
}

#[test]
fn an_answer_with_a_secret_a_control_or_a_bidi_override_is_refused() {
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for (key, v) in out.iter_mut() {
            let text = v.as_str().unwrap_or_default().to_owned();
            *v = Value::String(match key.as_str() {
                "greet" => format!("{text} {KEY}"),
                "bye" => "Au revoir\u{202E}exe.txt".into(),
                k if k.starts_with("files") => format!("{text}\u{0007}"),
                _ => text,
            });
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let result = run.json();
    let skipped = result["documents"][0]["skipped"]
        .as_array()
        .unwrap()
        .clone();
    let why = |block: &str| {
        skipped
            .iter()
            .find(|s| s["block"].as_str().is_some_and(|b| b.starts_with(block)))
            .unwrap_or_else(|| panic!("{block} not skipped: {skipped:?}"))
            .clone()
    };
    assert_eq!(why("greet")["status"], "unsafe");
    assert!(why("greet")["message"].as_str().unwrap().contains("key"));
    assert!(why("bye")["message"].as_str().unwrap().contains("U+202E"));
    assert!(why("files")["message"].as_str().unwrap().contains("U+0007"));
    let de = kapi.read("locales/de.json");
    assert!(
        !de.contains(KEY) && !de.contains('\u{202E}') && !de.contains('\u{7}'),
        "{de}"
    );
    assert!(!run.stdout.contains(KEY) && !run.stderr.contains(KEY));

    // A secret `kapi redact` detects, which the source does not hold.
    let leaky = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            *v = Value::String("Tschüss ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8".into());
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&leaky.url, "")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let skipped = run.json()["documents"][0]["skipped"].clone();
    assert!(
        skipped
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "unsafe"
                && s["message"].as_str().unwrap().contains("github_token")),
        "{skipped:#}"
    );
    assert!(!kapi.read("locales/de.json").contains("ghp_"));
}

#[test]
fn a_provider_error_body_is_scrubbed_of_the_key_and_secrets() {
    let server = mock(Box::new(|_, _| {
        let body = format!(
            "{{\"error\": {{\"message\": \"Incorrect API key provided: {KEY}. Mail ops@provider.example\"}}}}"
        );
        (401, body, Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&server.url, "    retries: 3\n")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stdout.contains("answered 401"), "{}", run.stdout);
    assert!(
        run.stdout.contains("[redacted:provider_key]") && run.stdout.contains("[redacted:email]"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains(KEY) && !run.stderr.contains(KEY),
        "{}",
        run.transcript()
    );
    assert!(!run.stdout.contains("ops@provider.example"));
    assert_eq!(server.seen.lock().unwrap().len(), 1, "a 401 is not retried");
}

#[test]
fn an_empty_target_whose_source_has_placeholders_is_filled() {
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            *v = Value::String(format!("DE {}", v.as_str().unwrap_or_default()));
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    // What i18next-parser writes: each value empty (the plural, missing, is added).
    kapi.write(
        "locales/de.json",
        "{\n  \"greet\": \"\",\n  \"bye\": \"\"\n}\n",
    );
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let de = kapi.read("locales/de.json");
    assert!(de.contains("\"greet\": \"DE Hello, {name}!\""), "{de}");
    assert!(de.contains("\"bye\": \"DE Goodbye\""), "{de}");
    assert!(
        de.contains("\"files\": \"{n, plural, one {DE # file} other {DE # files}}\""),
        "{de}"
    );
    assert_eq!(kapi.run(&["check", "locales"]).code, 0);
}

#[test]
fn retries_are_capped_and_what_cannot_change_is_not_retried() {
    // A recipe asking for more retries than the cap is refused where it says so.
    let kapi = project(&provider_recipe(
        "http://127.0.0.1:9/v1",
        "    retries: 100000\n",
    ))
    .env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["up", "--provider", "local"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("providers.local.retries")
            && run.stderr.contains("from 0 to 10")
            && run.stderr.contains("kapi.yaml"),
        "{}",
        run.stderr
    );
    // A URL the client cannot use is refused before anything is sent.
    let kapi = project(&provider_recipe("ftp://127.0.0.1:9/v1", "")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["up", "--provider", "local"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("ftp://") && run.stderr.contains("http"),
        "{}",
        run.stderr
    );
    // A 400 is final; a 408 is retried.
    let bad = mock(Box::new(|_, _| (400, "{}".into(), Duration::ZERO)));
    let kapi = project(&provider_recipe(&bad.url, "    retries: 5\n")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_eq!(bad.seen.lock().unwrap().len(), 1, "a 400 is not retried");
    let slow = mock(Box::new(|n, body| match n {
        0 => (408, "{}".into(), Duration::ZERO),
        _ => {
            let out = asked(body);
            (200, completion(&out), Duration::ZERO)
        }
    }));
    let kapi = project(&provider_recipe(&slow.url, "    retries: 1\n")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de"]);
    assert_eq!(slow.seen.lock().unwrap().len(), 2, "{}", run.transcript());
}

#[test]
fn a_run_stops_sending_when_a_write_fails() {
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            *v = Value::String(format!("X {}", v.as_str().unwrap_or_default()));
        }
        (200, completion(&out), Duration::ZERO)
    }));
    // Every commit's first file fails to land, as on a full disk.
    let kapi = project(&provider_recipe(&server.url, ""))
        .env("KAPI_TEST_KEY", KEY)
        .env("KAPI_TEST_FAIL_RENAME", "0");
    let run = kapi.run(&["up", "--provider", "local", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_eq!(
        server.seen.lock().unwrap().len(),
        1,
        "the first catalog's request only: {}",
        run.stdout
    );
    let result = run.json();
    let not_sent: Vec<&Value> = result["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["skipped"].as_array().into_iter().flatten())
        .filter(|s| s["status"] == "not_sent")
        .collect();
    assert!(
        !not_sent.is_empty()
            && not_sent
                .iter()
                .all(|s| s["message"].as_str().unwrap().contains("a write failed")),
        "{result:#}"
    );
}

#[test]
fn one_large_catalog_translates_whole() {
    // 20,000 keys land in one change set. How long it takes is `bench/translate.py large`'s to
    // record (1.4 s in a release build; it was 122 s, quadratic), never a test's to time: a
    // quadratic run here takes minutes and nextest's slow-timeout ends it.
    let kapi = project("");
    let mut source = String::from("{\n");
    for i in 0..20_000 {
        let comma = if i + 1 < 20_000 { "," } else { "" };
        source.push_str(&format!(
            "  \"key{i}\": \"Message number {i} for {{name}}\"{comma}\n"
        ));
    }
    source.push_str("}\n");
    kapi.write("locales/en.json", source);
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "de",
        "--provider",
        "pseudo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["documents"][0]["landed"], 20_000);
}
