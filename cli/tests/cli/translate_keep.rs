//! Never overwrite a person's work (issue 39 item 5), through the binary: `kapi translate` and
//! `kapi up` fill what is missing or empty, leave a translation a person may have written (equal
//! to its source, or with placeholders that differ) unless `--force`; `pseudo` writes only to
//! the pseudo-locales (`en-XA`, `ar-XB`) unless `--to` names a real language, and then only what
//! is missing; a provider's answer equal to its source does not land.

use std::time::Duration;

use serde_json::Value;

use super::Kapi;
use super::translate::{KEY, asked, completion, mock, provider_recipe};

/// A catalog into French (a person's `Port` and `URL`, a missing `new`) and the pseudo-locales.
fn shop(providers: &str) -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        format!("version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr, en-XA, ar-XB]\ncollections:\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        format: json\n        target: \"locales/{{lang}}.json\"\n{providers}"),
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"port\": \"Port\",\n  \"url\": \"URL {name}\",\n  \"new\": \"New\"\n}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\n  \"port\": \"Port\",\n  \"url\": \"URL\",\n  \"new\": \"\"\n}\n",
    );
    kapi
}

#[test]
fn pseudo_goes_to_pseudo_locales_and_never_replaces_a_person() {
    let kapi = shop("");
    let fr = kapi.read("locales/fr.json");
    let run = kapi.run(&["up", "--provider", "pseudo"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        kapi.read("locales/fr.json"),
        fr,
        "a real language is not pseudo's"
    );
    let xa = kapi.read("locales/en-XA.json");
    assert!(xa.contains("\"port\": \"[Þört~~]\""), "{xa}");
    let xb = kapi.read("locales/ar-XB.json");
    assert!(
        xb.contains("\"port\": \"\u{202E}[Þört~~]\u{202C}\""),
        "{xb}"
    );
    // `--to` names the real language: only the missing key, even with `--force`.
    for force in [false, true] {
        let mut args = vec![
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "pseudo",
        ];
        if force {
            args.push("--force");
        }
        let run = kapi.run(&args);
        assert_eq!(run.code, 0, "{}", run.transcript());
        let fr = kapi.read("locales/fr.json");
        assert!(
            fr.contains("\"port\": \"Port\"") && fr.contains("\"url\": \"URL\""),
            "{fr}"
        );
        assert!(fr.contains("\"new\": \"[Ñéw~]\""), "{fr}");
    }
}

#[test]
fn a_provider_leaves_a_persons_translation_unless_forced_and_its_echo_does_not_land() {
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for (key, v) in out.iter_mut() {
            let text = v.as_str().unwrap_or_default().to_owned();
            // `new` comes back untranslated: the source text.
            *v = Value::String(if key == "new" {
                text
            } else {
                format!("FR {text}")
            });
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = shop(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "fr", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let result = run.json();
    let fr = &result["documents"][0];
    assert_eq!(fr["todo"], 1, "only the empty key: {fr:#}");
    assert_eq!(fr["skipped"][0]["status"], "not_translated", "{fr:#}");
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"port\": \"Port\",\n  \"url\": \"URL\",\n  \"new\": \"\"\n}\n",
        "nothing replaced, the echo not landed"
    );
    // Still to do on the next run.
    let stats = kapi.run(&["stats", "--plan", "--json"]).json();
    assert!(stats.to_string().contains("\"new\""), "{stats:#}");
    // `--force` replaces what a person may have written.
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--force",
        "--json",
    ]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    let fr = kapi.read("locales/fr.json");
    assert!(fr.contains("\"port\": \"FR Port\""), "{fr}");
    // A target that lost the source's placeholder cannot take the source's tags (the code
    // guard): it is listed, not replaced.
    let skipped = run.json()["documents"][0]["skipped"].clone();
    assert!(
        skipped
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["block"] == "url" && s["status"] == "guard"),
        "{skipped:#}"
    );
}

#[test]
fn an_english_po_file_is_not_a_translation_of_itself() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"po/*.po\"\n",
    );
    let en = "msgid \"\"\nmsgstr \"\"\n\"Language: en\\n\"\n\nmsgid \"Port\"\nmsgstr \"\"\n\nmsgid \"Open\"\nmsgstr \"Open\"\n";
    kapi.write("po/en.po", en);
    kapi.write(
        "po/fr.po",
        "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\nmsgid \"Port\"\nmsgstr \"\"\n",
    );
    let stats = kapi.run(&["stats", "--json"]);
    assert_eq!(stats.code, 0, "{}", stats.transcript());
    let text = stats.stdout.clone();
    let report = stats.json();
    let langs: Vec<String> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["editions"].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["lang"].as_str().map(str::to_owned))
        .collect();
    assert!(
        langs.iter().filter(|l| *l == "en").count() == 2 && langs.contains(&"fr".to_owned()),
        "en only as the two files' source: {langs:?} {text}"
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "en,fr", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(kapi.read("po/en.po"), en, "the English file is left alone");
    assert!(kapi.read("po/fr.po").contains("msgstr \"[Þört~~]\""));
}

/// A key `translate` added to a target file holds its source until a translation lands: the
/// store records the copy, so when the provider fails on it or answers the source, `stats`
/// counts it missing, the review queue lists no draft, and the next run retries it without
/// `--force`. A copy a person changes is theirs.
#[test]
fn a_key_added_as_a_copy_of_its_source_stays_missing_until_translated() {
    let server = mock(Box::new(|n, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            let text = v.as_str().unwrap_or_default().to_owned();
            // The first run's answer is the source itself; the next run's a translation.
            *v = Value::String(if n == 0 { text } else { format!("FR {text}") });
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = Kapi::bound().env("KAPI_TEST_KEY", KEY);
    kapi.write(
        "kapi.yaml",
        format!("version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        format: json\n        target: \"locales/{{lang}}.json\"\n{}", provider_recipe(&server.url, "")),
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"open\": \"Open\",\n  \"save\": \"Save\",\n  \"quit\": \"Quit\"\n}\n",
    );
    kapi.write("locales/fr.json", "{\n  \"open\": \"Ouvrir\"\n}\n");
    let run = kapi.run(&["translate", "locales/en.json", "--to", "fr", "--json"]);
    assert_eq!(run.code, 3, "{}", run.transcript());
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"open\": \"Ouvrir\",\n  \"save\": \"Save\",\n  \"quit\": \"Quit\"\n}\n",
        "the keys are added as copies, the echo does not land"
    );
    let plan = kapi
        .run(&["stats", "--plan", "--lang", "fr", "--json"])
        .json();
    assert_eq!(
        plan["plan"][0]["missing"],
        serde_json::json!(["save", "quit"]),
        "{plan:#}"
    );
    let review = kapi.run(&["review", "--json"]);
    assert_eq!(review.code, 0, "{}", review.transcript());
    assert_eq!(
        review.json()["items"],
        serde_json::json!([]),
        "no draft: {}",
        review.stdout
    );
    // A person decides `quit` stays as it is in French: changed by hand, it is theirs.
    kapi.write(
        "locales/fr.json",
        "{\n  \"open\": \"Ouvrir\",\n  \"save\": \"Save\",\n  \"quit\": \"Quitter\"\n}\n",
    );
    let run = kapi.run(&["translate", "locales/en.json", "--to", "fr", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["documents"][0]["todo"], 1, "{}", run.stdout);
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"open\": \"Ouvrir\",\n  \"save\": \"FR Save\",\n  \"quit\": \"Quitter\"\n}\n",
        "retried without --force"
    );
    assert_eq!(
        kapi.run(&["stats", "--plan", "--lang", "fr", "--json"])
            .json()["plan"],
        serde_json::json!([]),
    );
}

/// One `tools/call` of `tool` on `kapi mcp --all`: its structured result.
fn mcp_call(kapi: &Kapi, tool: &str, arguments: Value) -> Value {
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let run = kapi.run_stdin(&["mcp", "--all"], input.as_bytes());
    let reply = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no reply: {}", run.transcript()));
    reply["result"]["structuredContent"].clone()
}

/// Over MCP as on the command line: `pseudo_translate` with no `to` writes the pseudo-locales,
/// not the server's first target language, and `translate` takes `force`.
#[test]
fn mcp_pseudo_goes_to_pseudo_locales_and_translate_takes_force() {
    let server = mock(Box::new(|_, body| {
        let mut out = asked(body);
        for v in out.values_mut() {
            let text = v.as_str().unwrap_or_default().to_owned();
            *v = Value::String(format!("FR {text}"));
        }
        (200, completion(&out), Duration::ZERO)
    }));
    let kapi = shop(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    let fr = kapi.read("locales/fr.json");
    let result = mcp_call(&kapi, "pseudo_translate", serde_json::json!({}));
    assert_eq!(result["schema"], "kapi.translate/v1", "{result:#}");
    assert_eq!(
        kapi.read("locales/fr.json"),
        fr,
        "a real language is not pseudo's"
    );
    assert!(kapi.read("locales/en-XA.json").contains("[Þört~~]"));
    let result = mcp_call(
        &kapi,
        "translate",
        serde_json::json!({"paths": ["locales/en.json"], "to": ["fr"], "provider": "local"}),
    );
    assert_eq!(result["documents"][0]["todo"], 1, "only `new`: {result:#}");
    assert!(kapi.read("locales/fr.json").contains("\"port\": \"Port\""));
    let result = mcp_call(
        &kapi,
        "translate",
        serde_json::json!({"paths": ["locales/en.json"], "to": ["fr"], "provider": "local", "force": true}),
    );
    let fr = kapi.read("locales/fr.json");
    assert!(fr.contains("\"port\": \"FR Port\""), "{result:#}\n{fr}");
}
