//! `kapi translate` and `kapi up` through the binary: the built-in `pseudo` provider, and an
//! `openai-compatible` provider served by a mock of the chat-completions API on 127.0.0.1
//! (started and ended by each test): a correct answer lands, a dropped placeholder is refused
//! and reported, a 429 is retried, a timeout and a spent budget are reported, and the key
//! never shows in any output or file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::Kapi;

pub(super) const KEY: &str = "sk-test-5ecret-never-shown";

/// A project with one JSON catalog (a placeholder, a plural) into French and German.
pub(super) fn project(providers: &str) -> Kapi {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        format!("version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr, de]\ncollections:\n  - name: app\n    content:\n      - path: \"locales/en.json\"\n        format: json\n        target: \"locales/{{lang}}.json\"\n{providers}"),
    );
    kapi.write(
        "locales/en.json",
        "{\n  \"greet\": \"Hello, {name}!\",\n  \"files\": \"{n, plural, one {# file} other {# files}}\",\n  \"bye\": \"Goodbye\"\n}\n",
    );
    kapi.write(
        "locales/fr.json",
        "{\n  \"greet\": \"Bonjour, {name} !\"\n}\n",
    );
    kapi
}

#[test]
fn pseudo_fills_every_catalog_and_the_result_passes_check() {
    let kapi = project("");
    let dry = kapi.run(&[
        "up",
        "--provider",
        "pseudo",
        "--to",
        "fr,de",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.transcript());
    let plan = dry.json();
    assert_eq!(plan["schema"], "kapi.translate/v1");
    assert_eq!(plan["dry_run"], true);
    assert!(
        plan["characters"].as_u64().unwrap() > 0 && plan["estimated_tokens"].as_u64().unwrap() > 0
    );
    assert!(
        !kapi.path().join("locales/de.json").exists(),
        "a dry run writes nothing"
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "fr,de"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("locales/en.json → de (locales/de.json, created)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("as tool:pseudo"), "{}", run.stdout);
    let de = kapi.read("locales/de.json");
    assert!(de.contains("\"greet\": \"[Héllö, {name}!~~]\""), "{de}");
    assert!(de.contains("one {[# fîlé~~]} other {[# fîlés~~]}"), "{de}");
    let fr = kapi.read("locales/fr.json");
    assert!(
        fr.contains("\"greet\": \"Bonjour, {name} !\""),
        "a translation is kept: {fr}"
    );
    assert!(fr.contains("\"bye\": \"[Gööðbýé~~~]\""), "{fr}");
    let check = kapi.run(&["check", "locales"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
    let stats = kapi.run(&["stats", "--json"]).json();
    for lang in stats["languages"].as_array().unwrap() {
        assert_eq!(lang["translated"], lang["total"], "{lang}");
    }
    let log = kapi.run(&["context", "log", "--json"]).json();
    let entry = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "translate")
        .cloned();
    let entry = entry.unwrap_or_else(|| panic!("no translate entry: {log:#}"));
    assert_eq!(entry["actor"], "tool:pseudo", "{entry:#}");
    assert_eq!(entry["evidence"]["provider"], "pseudo", "{entry:#}");
    assert_eq!(
        entry["evidence"]["documents"].as_array().map(Vec::len),
        Some(2),
        "{entry:#}"
    );
    let again = kapi.run(&["up", "--provider", "pseudo", "--to", "fr,de"]);
    assert_eq!(again.code, 0);
    assert!(again.stdout.contains("sent 0 requests"), "{}", again.stdout);
    let translate = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--provider",
        "pseudo",
    ]);
    assert_eq!(translate.code, 0, "{}", translate.transcript());
}

/// `--to` names languages a file translates into: another language, or no tag at all, is
/// refused before anything is written (exit 2, the targets named); `_` and `-` read alike.
#[test]
fn to_a_language_that_is_no_target_is_refused() {
    let kapi = project("");
    for (to, says) in [
        (
            "es",
            "no file translates into `es`: the project takes its targets: `de`, `fr`",
        ),
        ("fr,dee", "no file translates into `dee`"),
        ("../x", "`../x` is not a language tag"),
    ] {
        for verb in [&["up"][..], &["translate", "locales/en.json"][..]] {
            let mut args: Vec<&str> = verb.to_vec();
            args.extend(["--provider", "pseudo", "--to", to]);
            let run = kapi.run(&args);
            assert_eq!(run.code, 2, "{to}: {}", run.transcript());
            assert!(run.stderr.contains(says), "{to}: {}", run.stderr);
        }
    }
    assert!(
        !kapi.path().join("locales/de.json").exists(),
        "nothing written"
    );
    assert_eq!(
        kapi.read("locales/fr.json"),
        "{\n  \"greet\": \"Bonjour, {name} !\"\n}\n"
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "DE"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        kapi.path().join("locales/de.json").exists(),
        "{}",
        run.transcript()
    );
}

#[test]
fn a_provider_must_be_named_known_and_have_its_key() {
    let kapi = project(
        "providers:\n  local:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_env: KAPI_TEST_KEY\n  other:\n    kind: pseudo\n",
    );
    let none = kapi.run(&["up"]);
    assert_eq!(none.code, 2, "{}", none.transcript());
    assert!(
        none.stderr.contains("--provider") && none.stderr.contains("local, other, pseudo"),
        "{}",
        none.stderr
    );
    let unknown = kapi.run(&["up", "--provider", "deepl"]);
    assert_eq!(unknown.code, 2, "{}", unknown.transcript());
    let keyless = kapi.run(&["up", "--provider", "local"]);
    assert_eq!(keyless.code, 2, "{}", keyless.transcript());
    assert!(
        keyless.stderr.contains("KAPI_TEST_KEY"),
        "{}",
        keyless.stderr
    );
    kapi.write(
        "kapi.yaml",
        format!(
            "{}providers:\n  x:\n    kind: pseudo\n    api_key: {KEY}\n",
            "version: v1\n"
        ),
    );
    let secret = kapi.run(&["up"]);
    assert_eq!(secret.code, 1, "{}", secret.transcript());
    assert!(
        secret.stderr.contains("holds a secret") && !secret.stderr.contains(KEY),
        "{}",
        secret.stderr
    );
}

/// What the mock answers to one request: a status, a body, after a delay.
pub(super) type Reply = Box<dyn Fn(usize, &Value) -> (u16, String, Duration) + Send + Sync>;

/// A chat-completions mock on 127.0.0.1: each request's JSON body and headers are kept.
pub(super) struct Mock {
    pub(super) url: String,
    pub(super) seen: Arc<Mutex<Vec<(String, Value)>>>,
}

pub(super) fn mock(reply: Reply) -> Mock {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let kept = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let (mut head, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let (status, answer, delay) = reply(n, &body);
            kept.lock().unwrap().push((head, body));
            std::thread::sleep(delay);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    Mock { url, seen }
}

/// The strings a request asks for, by key.
pub(super) fn asked(body: &Value) -> serde_json::Map<String, Value> {
    let user = body
        .pointer("/messages/1/content")
        .and_then(Value::as_str)
        .unwrap_or("{}");
    serde_json::from_str(user).unwrap_or_default()
}

/// A chat-completions answer whose content is `object`.
pub(super) fn completion(object: &serde_json::Map<String, Value>) -> String {
    json!({"choices": [{"message": {"role": "assistant", "content": Value::Object(object.clone()).to_string()}}]}).to_string()
}

/// Each string as `FR:` + itself (tags kept), except keys `drop` names, whose tags go.
fn translated(body: &Value, drop: &str) -> String {
    let mut out = asked(body);
    for (key, v) in out.iter_mut() {
        let text = v.as_str().unwrap_or_default();
        *v = if !drop.is_empty() && key.starts_with(drop) {
            Value::String("FR: lost".into())
        } else {
            Value::String(format!("FR: {text}"))
        };
    }
    completion(&out)
}

pub(super) fn provider_recipe(url: &str, extra: &str) -> String {
    format!(
        "providers:\n  local:\n    kind: openai-compatible\n    base_url: {url}\n    model: test-model\n    api_key_env: KAPI_TEST_KEY\n{extra}"
    )
}

#[test]
fn answers_land_as_the_provider_and_a_dropped_placeholder_is_refused() {
    let server = mock(Box::new(|_, body| {
        (200, translated(body, "greet"), Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&server.url, "")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de", "--json"]);
    assert_eq!(run.code, 3, "a refused block: {}", run.transcript());
    let result = run.json();
    assert_eq!(result["actor"], "tool:local/test-model");
    let de = &result["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["lang"] == "de")
        .unwrap()
        .clone();
    assert_eq!(de["skipped"][0]["block"], "greet");
    assert_eq!(de["skipped"][0]["status"], "guard");
    let file = kapi.read("locales/de.json");
    assert!(
        file.contains("\"bye\": \"FR: Goodbye\""),
        "the rest landed: {file}"
    );
    assert!(
        file.contains("\"greet\": \"Hello, {name}!\""),
        "the refused one kept its copy: {file}"
    );
    let seen = server.seen.lock().unwrap();
    let (head, body) = &seen[0];
    assert!(
        head.to_ascii_lowercase().contains(&format!(
            "authorization: bearer {}",
            KEY.to_ascii_lowercase()
        )),
        "{head}"
    );
    assert_eq!(body["model"], "test-model");
    let system = body
        .pointer("/messages/0/content")
        .and_then(Value::as_str)
        .unwrap();
    assert!(
        system.contains("<x id=") && system.contains("en") && system.contains("de"),
        "{system}"
    );
    assert!(
        !body.to_string().contains(KEY),
        "the key is never in a message"
    );
    for text in [run.stdout.as_str(), run.stderr.as_str(), file.as_str()] {
        assert!(!text.contains(KEY), "the key never shows: {text}");
    }
}

#[test]
fn a_429_is_retried_and_a_timeout_and_a_spent_budget_are_reported() {
    let server = mock(Box::new(|n, body| match n {
        0 => (429, "{}".into(), Duration::ZERO),
        _ => (200, translated(body, ""), Duration::ZERO),
    }));
    let kapi = project(&provider_recipe(&server.url, "    retries: 2\n")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(server.seen.lock().unwrap().len(), 2, "one 429, one answer");
    assert!(kapi.read("locales/de.json").contains("FR: Goodbye"));

    let slow = mock(Box::new(|_, body| {
        (200, translated(body, ""), Duration::from_secs(3))
    }));
    let kapi = project(&provider_recipe(
        &slow.url,
        "    timeout: 1\n    retries: 0\n",
    ))
    .env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["translate", "locales/en.json", "--to", "de", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(!run.stdout.is_empty(), "{}", run.transcript());
    let skipped = run.json()["documents"][0]["skipped"].clone();
    assert!(
        skipped.as_array().unwrap().iter().all(
            |s| s["status"] == "failed" && s["message"].as_str().unwrap().contains("timed out")
        ),
        "{skipped}"
    );

    let ok = mock(Box::new(|_, body| {
        (200, translated(body, ""), Duration::ZERO)
    }));
    let kapi = project(&provider_recipe(&ok.url, "    batch: 1\n")).env("KAPI_TEST_KEY", KEY);
    let run = kapi.run(&["up", "--max-requests", "2", "--json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let result = run.json();
    assert_eq!(
        (
            result["requests"].as_u64(),
            result["budget_spent"].as_bool()
        ),
        (Some(2), Some(true))
    );
    assert_eq!(ok.seen.lock().unwrap().len(), 2);
    assert!(run.stdout.contains("not_sent"), "{}", run.stdout);
}

#[test]
fn an_exact_match_in_the_content_memory_comes_first() {
    let kapi = project("");
    kapi.write(
        "memory.json",
        r#"{"schema": "kapi.change/v1", "operations": [{"op": "memory", "pair": {"source": "Goodbye", "target": "Au revoir", "target_lang": "fr"}}]}"#,
    );
    let stored = kapi.run(&["apply", "memory.json"]);
    assert_eq!(stored.code, 0, "{}", stored.transcript());
    let run = kapi.run(&[
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--provider",
        "pseudo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        run.json()["documents"][0]["from_memory"],
        1,
        "{}",
        run.stdout
    );
    assert!(
        kapi.read("locales/fr.json")
            .contains("\"bye\": \"Au revoir\""),
        "{}",
        kapi.read("locales/fr.json")
    );
}

const PO: &str = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\"\n\nmsgid \"Hello, %(name)s!\"\nmsgstr \"\"\n\nmsgid \"Goodbye\"\nmsgstr \"Au revoir\"\n";

const XLIFF: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n  <file original=\"a\" source-language=\"en\" target-language=\"fr\" datatype=\"plaintext\">\n    <body>\n      <trans-unit id=\"one\">\n        <source>Save {0}</source>\n        <target>Enregistrer {0}</target>\n      </trans-unit>\n      <trans-unit id=\"two\">\n        <source>Open</source>\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n";

#[test]
fn bilingual_files_take_drafts_marked_for_review_and_a_person_edits_them_plainly() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\ncollections:\n  - path: \"po/*.po\"\n  - path: \"xliff/*.xlf\"\n",
    );
    kapi.write("po/fr.po", PO);
    kapi.write("xliff/a.xlf", XLIFF);
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "fr"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let po = kapi.read("po/fr.po");
    assert!(
        po.contains("#, fuzzy\nmsgid \"Hello, %(name)s!\"\nmsgstr \"[Héllö, %(name)s!~~]\""),
        "{po}"
    );
    assert!(
        po.contains("msgid \"Goodbye\"\nmsgstr \"Au revoir\""),
        "{po}"
    );
    let xliff = kapi.read("xliff/a.xlf");
    assert!(
        xliff.contains("<source>Open</source>\n        <target state=\"needs-review-translation\">[Öþéñ~~]</target>"),
        "{xliff}"
    );
    assert_eq!(kapi.run(&["check"]).code, 0);
    let again = kapi.run(&["up", "--provider", "pseudo", "--to", "fr"]);
    assert!(
        again.stdout.contains("sent 0 requests"),
        "a draft waits for review: {}",
        again.stdout
    );

    // A person's edit of a PO target lands as written, with no draft flag.
    kapi.write("po/fr.po", PO);
    let read = kapi
        .run(&["inspect", "po/fr.po", "--editions", "fr", "--json"])
        .json();
    let fr = &read["blocks"][0]["editions"]["fr"];
    assert_eq!(
        fr["accepts"],
        json!(["set_content", "replace_text", "decide"]),
        "{fr}"
    );
    let set = json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
        "at": {"doc": "po/fr.po", "block": "Hello, %(name)s!", "edition": "fr"},
        "if_match": fr["rev"], "content": "Bonjour, <x id=\"1/\"/> !"}]});
    kapi.write("set.json", set.to_string());
    assert_eq!(kapi.run(&["apply", "set.json"]).code, 0);
    assert!(
        kapi.read("po/fr.po")
            .contains("\nmsgid \"Hello, %(name)s!\"\nmsgstr \"Bonjour, %(name)s !\""),
        "{}",
        kapi.read("po/fr.po")
    );
    assert!(!kapi.read("po/fr.po").contains("fuzzy"));
    let source = json!({"schema": "kapi.change/v1", "operations": [{"op": "set_content",
        "at": {"doc": "po/fr.po", "block": "Goodbye", "edition": "source"},
        "if_match": read["blocks"][1]["rev"], "content": "Bye"}]});
    kapi.write("source.json", source.to_string());
    let refused = kapi.run(&["apply", "source.json"]);
    assert_eq!(
        refused.code, 3,
        "the source of a bilingual file is edited where it is authored"
    );
}

#[test]
fn a_language_with_more_plural_forms_than_the_source_gets_every_form() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"*.po\"\n",
    );
    kapi.write(
        "bs.po",
        "msgid \"\"\nmsgstr \"\"\n\"Language: bs\\n\"\n\"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n\"\n\n#, python-format\nmsgid \"%(count)s file\"\nmsgid_plural \"%(count)s files\"\nmsgstr[0] \"\"\nmsgstr[1] \"\"\nmsgstr[2] \"\"\n",
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "bs"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let po = kapi.read("bs.po");
    assert!(po.contains("msgstr[0] \"[%(count)s fîlé~~]\"\nmsgstr[1] \"[%(count)s fîlés~~]\"\nmsgstr[2] \"[%(count)s fîlés~~]\""), "{po}");
    assert_eq!(kapi.run(&["check"]).code, 0);
}

#[test]
fn an_xliff_2_segment_takes_its_target_marked_translated() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"*.xlf\"\n",
    );
    kapi.write(
        "a.xlf",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\">\n  <file id=\"f1\">\n    <unit id=\"u1\">\n      <segment>\n        <source>Save <ph id=\"1\"/> now</source>\n        <target>Jetzt <ph id=\"1\"/> speichern</target>\n      </segment>\n    </unit>\n    <unit id=\"u2\">\n      <segment>\n        <source>Open</source>\n      </segment>\n    </unit>\n  </file>\n</xliff>\n",
    );
    let run = kapi.run(&["up", "--provider", "pseudo", "--to", "de"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let xliff = kapi.read("a.xlf");
    assert!(xliff.contains("<segment state=\"translated\">\n        <source>Open</source>\n        <target>[Öþéñ~~]</target>"), "{xliff}");
    assert!(
        xliff.contains("<target>Jetzt <ph id=\"1\"/> speichern</target>"),
        "a translation is kept: {xliff}"
    );
    assert_eq!(kapi.run(&["check"]).code, 0);
}
