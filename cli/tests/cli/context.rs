//! `kapi context`: the brief for a path or a profile, markdown and JSON from one answer.

use serde::Deserialize;

use super::Kapi;

#[derive(Debug, Deserialize)]
struct Answer {
    schema: String,
    scope: String,
    point: Point,
    voice: Option<Voice>,
    terms: Terms,
    terms_total: usize,
    windows: Vec<serde_json::Value>,
    fingerprint: String,
    notes: Vec<String>,
}
#[derive(Debug, Deserialize)]
struct Point {
    path: Option<String>,
    profile: Option<String>,
    channel: Option<String>,
    collection: Option<String>,
    default: bool,
    #[serde(rename = "ref")]
    reference: String,
}
#[derive(Debug, Deserialize)]
struct Voice {
    name: String,
    source: String,
    guide: String,
}
#[derive(Debug, Deserialize)]
struct Terms {
    #[serde(rename = "use")]
    use_: Vec<Term>,
    avoid: Vec<Term>,
}
#[derive(Debug, Deserialize)]
struct Term {
    text: String,
    status: String,
    replacement: Option<String>,
}

fn answer(kapi: &Kapi, args: &[&str]) -> Answer {
    let run = kapi.run(args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not kapi.context/v1 ({e}): {}", run.stdout))
}

#[test]
fn brief_for_a_path_names_the_point_voice_and_terms() {
    let kapi = Kapi::with_project("mini");
    let a = answer(&kapi, &["context", "docs/bad.md", "--json"]);
    assert_eq!(a.schema, "kapi.context/v1");
    assert_eq!(a.scope, "project");
    assert_eq!(a.point.path.as_deref(), Some("docs/bad.md"));
    assert_eq!(a.point.profile.as_deref(), Some("mini"));
    assert_eq!(a.point.channel.as_deref(), Some("docs"));
    assert_eq!(a.point.collection.as_deref(), Some("docs"));
    assert_eq!(a.point.reference, "mini/docs");
    assert!(!a.point.default);
    let voice = a.voice.expect("a voice is bound");
    assert_eq!(voice.name, "Mini");
    assert_eq!(voice.source, ".kapi/voice.yaml");
    assert!(voice.guide.contains("Voice Guide: Mini"));
    let avoid: Vec<&str> = a.terms.avoid.iter().map(|t| t.text.as_str()).collect();
    assert!(
        avoid.contains(&"whitelist") && avoid.contains(&"utilize") && avoid.contains(&"Confluence"),
        "{avoid:?}"
    );
    let login = a
        .terms
        .avoid
        .iter()
        .find(|t| t.text == "login")
        .expect("login");
    assert_eq!(login.status, "deprecated");
    assert_eq!(login.replacement.as_deref(), Some("sign in"));
    assert!(a.terms.use_.iter().any(|t| t.text == "sign in"));
    assert_eq!(a.terms_total, a.terms.use_.len() + a.terms.avoid.len());
    assert_eq!(a.windows.len(), 1);
    assert!(a.fingerprint.starts_with('g'));
    let _ = a.notes;
}

#[test]
fn markdown_brief_embeds_the_voice_guide_and_the_terms() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["context", "docs/bad.md"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let md = run.stdout;
    assert!(md.starts_with("# Context at docs/bad.md\n"), "{md}");
    assert!(
        md.contains("## Voice Guide: Mini"),
        "the guide's headings are demoted: {md}"
    );
    assert!(md.contains("## Terms to avoid"), "{md}");
    assert!(md.contains("~~whitelist~~"), "{md}");
    assert!(md.contains("## Terms to use"), "{md}");
    assert!(md.contains("kapi check"), "{md}");
}

#[test]
fn channel_override_changes_the_voice_at_that_point() {
    let kapi = Kapi::with_project("mini");
    let docs = answer(&kapi, &["context", "docs/clean.md", "--json"]);
    let blog = answer(&kapi, &["context", "docs/blog/post.md", "--json"]);
    assert_eq!(blog.point.channel.as_deref(), Some("blog"));
    assert_ne!(docs.fingerprint, blog.fingerprint);
}

#[test]
fn unclaimed_path_sits_at_the_default_point() {
    let kapi = Kapi::with_project("mini");
    let a = answer(&kapi, &["context", "notes/elsewhere.md", "--json"]);
    assert!(a.point.default);
    assert_eq!(a.point.reference, "default");
}

#[test]
fn expired_profile_falls_back_and_says_so() {
    let kapi = Kapi::with_project("mini");
    let a = answer(&kapi, &["context", "docs/legacy/old.md", "--json"]);
    assert!(
        a.notes.iter().any(|n| n.contains("expired")),
        "{:?}",
        a.notes
    );
}

#[test]
fn profile_named_directly_is_briefed_as_declared() {
    let kapi = Kapi::with_project("mini");
    let a = answer(&kapi, &["context", "--profile", "old", "--json"]);
    assert_eq!(a.point.profile.as_deref(), Some("old"));
    let run = kapi.run(&["context", "--profile", "nope"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("nope"), "{}", run.transcript());
}

#[test]
fn path_outside_the_project_is_refused() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run(&["context", "../../elsewhere.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("outside the project"),
        "{}",
        run.transcript()
    );
}

#[test]
fn relative_paths_read_against_the_working_folder_inside_the_project() {
    let kapi = Kapi::with_project("mini");
    let run = kapi.run_in("docs", &["context", "bad.md", "--json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.json()["point"]["path"], "docs/bad.md");
}

#[test]
fn without_a_project_the_brief_says_only_hygiene_applies() {
    let kapi = Kapi::empty();
    let a = answer(&kapi, &["context", "x.md", "--json"]);
    assert_eq!(a.scope, "none");
    assert!(a.voice.is_none());
    assert!(a.notes.iter().any(|n| n.contains("no kapi project")));
}

#[test]
fn context_needs_a_path_or_a_profile() {
    let run = Kapi::with_project("mini").run(&["context"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
}
