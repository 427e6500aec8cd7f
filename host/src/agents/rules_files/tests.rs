//! The rules files: sections set and removed byte for byte, broken markers refused, the plan
//! within its budgets, and a sync that writes, removes and skips what it should.

use std::path::PathBuf;

use kapi_core::governance::notes::{KeptNote, NotesFile};

use super::plan::{contains_word, sibling_of};
use super::*;
use crate::App;

fn body(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

const SECTION: &str = "<!-- kapi:rules -->\nA\nB\n<!-- /kapi:rules -->\n";

#[test]
fn new_text_is_just_the_section() {
    assert_eq!(set_section("", Some(&body(&["A", "B"]))).unwrap(), SECTION);
    assert_eq!(set_section("", None).unwrap(), "");
}

#[test]
fn person_text_is_kept_byte_for_byte() {
    let mine = "# Mine\n\nHello.\n";
    let added = set_section(mine, Some(&body(&["A", "B"]))).unwrap();
    assert_eq!(added, format!("{mine}\n{SECTION}"));
    let replaced = set_section(&added, Some(&body(&["C"]))).unwrap();
    assert_eq!(
        replaced,
        format!("{mine}\n<!-- kapi:rules -->\nC\n<!-- /kapi:rules -->\n")
    );
    assert_eq!(set_section(&replaced, None).unwrap(), mine);

    // No final line break: one is added before the blank line.
    let bare = set_section("Mine", Some(&body(&["A", "B"]))).unwrap();
    assert_eq!(bare, format!("Mine\n\n{SECTION}"));
}

#[test]
fn crlf_files_stay_crlf() {
    let mine = "# Mine\r\n\r\nHello.\r\n";
    let added = set_section(mine, Some(&body(&["A"]))).unwrap();
    assert_eq!(
        added,
        "# Mine\r\n\r\nHello.\r\n\r\n<!-- kapi:rules -->\r\nA\r\n<!-- /kapi:rules -->\r\n"
    );
    let replaced = set_section(&added, Some(&body(&["B", "C"]))).unwrap();
    assert!(replaced.starts_with(mine));
    assert_eq!(
        replaced.matches('\n').count(),
        replaced.matches("\r\n").count()
    );
    assert_eq!(set_section(&replaced, None).unwrap(), mine);
}

#[test]
fn a_section_between_person_text_is_replaced_and_removed_in_place() {
    let text = "Top\n<!-- kapi:rules -->\nold\n<!-- /kapi:rules -->\nBottom\n";
    assert_eq!(
        set_section(text, Some(&body(&["new", "er"]))).unwrap(),
        "Top\n<!-- kapi:rules -->\nnew\ner\n<!-- /kapi:rules -->\nBottom\n"
    );
    assert_eq!(set_section(text, None).unwrap(), "Top\nBottom\n");
    // A section with no line break after its end marker keeps having none.
    let open_end = "Top\n\n<!-- kapi:rules -->\nold\n<!-- /kapi:rules -->";
    assert_eq!(
        set_section(open_end, Some(&body(&["x"]))).unwrap(),
        "Top\n\n<!-- kapi:rules -->\nx\n<!-- /kapi:rules -->"
    );
    assert_eq!(set_section(open_end, None).unwrap(), "Top\n");
}

#[test]
fn a_body_line_cannot_break_the_section() {
    let text = set_section("", Some(&body(&["two\nlines", " <!-- /kapi:rules --> "]))).unwrap();
    assert_eq!(
        text,
        "<!-- kapi:rules -->\ntwo lines\n`<!-- /kapi:rules -->`\n<!-- /kapi:rules -->\n"
    );
    assert_eq!(set_section(&text, None).unwrap(), "");
}

#[test]
fn broken_markers_are_refused_with_their_lines() {
    let unterminated = "a\nb\n<!-- kapi:rules -->\nrule\n";
    assert_eq!(
        set_section(unterminated, Some(&body(&["x"]))),
        Err(RulesError::Unterminated { line: 3 })
    );
    assert_eq!(
        set_section(unterminated, None),
        Err(RulesError::Unterminated { line: 3 })
    );
    let nested = "<!-- kapi:rules -->\n<!-- kapi:rules -->\n<!-- /kapi:rules -->\n";
    assert_eq!(
        set_section(nested, None),
        Err(RulesError::Unterminated { line: 1 })
    );
    let two = format!("{SECTION}\nmine\n{SECTION}");
    assert_eq!(
        set_section(&two, Some(&body(&["x"]))),
        Err(RulesError::TwoSections {
            first: 1,
            second: 7
        })
    );
    let stray = "mine\n\n  <!-- /kapi:rules -->\n";
    assert_eq!(
        set_section(stray, Some(&body(&["x"]))),
        Err(RulesError::StrayEnd { line: 3 })
    );
    let stray_after = format!("{SECTION}<!-- /kapi:rules -->\n");
    assert_eq!(
        set_section(&stray_after, None),
        Err(RulesError::StrayEnd { line: 5 })
    );
    let host = RulesError::Unterminated { line: 3 }.in_file("help/AGENTS.md");
    let message = host.to_string();
    assert!(
        message.contains("help/AGENTS.md") && message.contains("line 3"),
        "{message}"
    );
    assert_eq!(host.kind(), crate::ErrorKind::Operational);
}

#[test]
fn words_match_whole() {
    assert!(contains_word("Our Workspace API", "Workspace"));
    assert!(contains_word("Workspace", "Workspace"));
    assert!(!contains_word("Workspaces hold pages", "Workspace"));
    assert!(!contains_word("MyWorkspace", "Workspace"));
    assert!(!contains_word("workspace", "Workspace"));
    assert!(contains_word("the (Workspace).", "Workspace"));
}

#[test]
fn siblings_share_the_parent() {
    assert_eq!(sibling_of("api/a.md", "", "help"), Some("api".into()));
    assert_eq!(sibling_of("help/a.md", "", "help"), None);
    assert_eq!(sibling_of("top.md", "", "help"), None);
    assert_eq!(
        sibling_of("docs/api/v1/a.md", "docs", "help"),
        Some("docs/api".into())
    );
    assert_eq!(sibling_of("docs/a.md", "docs", "help"), None);
    assert_eq!(sibling_of("other/api/a.md", "docs", "help"), None);
}

// --- On a project -----------------------------------------------------------------------

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    /// Every Markdown file is content, the rules files left out (`defaults.exclude`): each
    /// folder may hold its own.
    fn new(terms: &str) -> Self {
        Fixture::with_recipe(
            terms,
            "version: v1\ndefaults:\n  source_language: en\n  exclude: [\"**/AGENTS.md\", \"**/CLAUDE.md\"]\ncollections:\n  - path: \"**/*.md\"\n",
        )
    }

    fn with_recipe(terms: &str, recipe: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let f = Fixture { _dir: dir, root };
        f.write("kapi.yaml", recipe);
        f.write(".kapi/terms.yaml", terms);
        f
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(rel)).is_ok()
    }

    fn plan(&self, notes: &[KeptNote]) -> RulesPlan {
        let app = App::new(
            crate::env::Env {
                no_project: false,
                ..Default::default()
            },
            self.root.clone(),
            Some(self.root.clone()),
        );
        let project = app.require_project().unwrap();
        let notes = NotesFile {
            version: "v1".into(),
            notes: notes.to_vec(),
        };
        plan(&app, &project, &notes, &Content::of(&project).unwrap()).unwrap()
    }

    /// Every file's bytes under the root, `.kapi/work` included.
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        for entry in ignore::WalkBuilder::new(&self.root)
            .standard_filters(false)
            .build()
            .flatten()
        {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                let rel = crate::app::relative_to(entry.path(), &self.root).unwrap();
                out.insert(rel, std::fs::read(entry.path()).unwrap());
            }
        }
        out
    }
}

const TERMS: &str = "\
version: v1
concepts:
  - id: sign-in
    terms:
      - text: sign in
        lang: en
        status: preferred
      - text: log in
        lang: en
        status: deprecated
        replacement: sign in
";

fn note(id: &str, path: &str, text: &str) -> KeptNote {
    KeptNote {
        id: id.into(),
        path: path.into(),
        text: Some(text.into()),
        ..KeptNote::default()
    }
}

fn rename(id: &str, path: &str, from: &str, to: &str) -> KeptNote {
    KeptNote {
        id: id.into(),
        path: path.into(),
        from: Some(from.into()),
        to: Some(to.into()),
        ..KeptNote::default()
    }
}

fn simple_plan(folders: &[(&str, &[&str])]) -> RulesPlan {
    RulesPlan {
        root: body(&["## Project rules (kapi)", CHECK_LINE]),
        folders: folders
            .iter()
            .map(|(f, lines)| ((*f).to_owned(), body(lines)))
            .collect(),
        moved: Vec::new(),
    }
}

#[test]
fn plan_states_terms_notes_and_folders() {
    let f = Fixture::new(TERMS);
    f.write("help/a.md", "Help.\n");
    f.write("docs/a.md", "Docs.\n");
    f.write("README.md", "Read me.\n");
    let plan = f.plan(&[
        note("n1", "", "Product names are written as the UI shows them."),
        note("n2", "help", "Steps are numbered."),
        note("n3", "docs/a.md", "British spelling."),
        note("n4", "README.md", "Keep it short."),
    ]);
    assert_eq!(
        plan.root,
        body(&[
            "## Project rules (kapi)",
            "Words to use:",
            "- \"sign in\"",
            "Words to avoid:",
            "- \"log in\" → \"sign in\"",
            "Notes a person kept:",
            "- Product names are written as the UI shows them.",
            "- In `README.md`: Keep it short.",
            "Folders with rules of their own:",
            "- `docs/`: see docs/AGENTS.md",
            "- `help/`: see help/AGENTS.md",
            CHECK_LINE,
        ])
    );
    assert_eq!(
        plan.folders["help"],
        body(&[
            "## Rules for `help/` (kapi)",
            "- Steps are numbered.",
            CHECK_LINE
        ])
    );
    assert_eq!(
        plan.folders["docs"],
        body(&[
            "## Rules for `docs/` (kapi)",
            "- In `a.md`: British spelling.",
            CHECK_LINE
        ])
    );
    assert_eq!(plan.folders.len(), 2);
}

#[test]
fn plan_states_the_voice_in_a_few_lines() {
    let f = Fixture::new(TERMS);
    f.write(
            ".kapi/voice.yaml",
            "name: Larkspur\ntone:\n  personality: [direct, warm]\n  formality: neutral\nstyle:\n  prohibited_patterns:\n    - regex: '!{2,}'\n      description: Stacked exclamation marks\n  constraints:\n    max_sentence_words: 30\n",
        );
    let plan = f.plan(&[]);
    let voice: Vec<&str> = plan.root[1..5].iter().map(String::as_str).collect();
    assert_eq!(
        voice,
        [
            "- Voice: Larkspur.",
            "- Tone: direct, warm; neutral formality.",
            "- Sentences of at most 30 words.",
            "- Flagged by `kapi check`: Stacked exclamation marks.",
        ]
    );
}

#[test]
fn a_rename_held_for_a_folder_stays_in_siblings_that_use_the_word() {
    let f = Fixture::new(TERMS);
    f.write("help/a.md", "Open the Workspace menu.\n");
    f.write("api/b.md", "The Workspace API lists pages.\n");
    f.write("guide/c.md", "Workspaces hold pages.\n");
    f.write("other/d.md", "Nothing to see.\n");
    f.write("notes.md", "Workspace at the top is not in a folder.\n");
    let plan = f.plan(&[rename("n1", "help", "Workspace", "Space")]);
    assert_eq!(
        plan.folders["help"],
        body(&[
            "## Rules for `help/` (kapi)",
            "- Write \"Space\", not \"Workspace\".",
            CHECK_LINE
        ])
    );
    assert_eq!(
        plan.folders["api"],
        body(&[
            "## Rules for `api/` (kapi)",
            "- \"Workspace\" is correct here; do not rename it to \"Space\".",
            CHECK_LINE
        ])
    );
    assert!(!plan.folders.contains_key("guide"), "{plan:?}");
    assert!(!plan.folders.contains_key("other"));
    assert_eq!(plan.folders.len(), 2);
    assert!(
        plan.root
            .contains(&"- `api/`: see api/AGENTS.md".to_owned())
    );
    // The rules files kapi writes are not content: once api stops using the word, its
    // line goes, though api/AGENTS.md still says "Workspace".
    sync(&f.root, &plan, &Content::none()).unwrap();
    assert!(
        f.read("api/AGENTS.md")
            .contains("\"Workspace\" is correct here")
    );
    f.write("api/b.md", "The Space API lists pages.\n");
    let later = f.plan(&[rename("n1", "help", "Workspace", "Space")]);
    assert!(!later.folders.contains_key("api"), "{later:?}");
    f.write("api/b.md", "The Workspace API lists pages.\n");
    // The same rename held for api too: no line saying the word stays there.
    let both = f.plan(&[
        rename("n1", "help", "Workspace", "Space"),
        rename("n2", "api", "Workspace", "Space"),
    ]);
    assert!(
        !both.folders["api"]
            .iter()
            .any(|l| l.contains("is correct here"))
    );
}

#[test]
fn budgets_hold_with_a_line_saying_what_was_left_out() {
    let mut terms = String::from("version: v1\nconcepts:\n");
    for i in 0..80 {
        terms.push_str(&format!(
                "  - id: c{i:02}\n    terms:\n      - text: word{i:02}\n        lang: en\n        status: preferred\n"
            ));
    }
    let f = Fixture::new(&terms);
    std::fs::create_dir_all(f.root.join("help")).unwrap();
    let notes: Vec<KeptNote> = (0..40)
        .map(|i| note(&format!("n{i}"), "help", &format!("Rule {i:02}.")))
        .collect();
    let mut all = notes.clone();
    all.push(note("r1", "", "A root rule."));
    let plan = f.plan(&all);

    assert_eq!(plan.root.len(), ROOT_BUDGET);
    assert_eq!(plan.root.last().unwrap(), CHECK_LINE);
    let left = &plan.root[ROOT_BUDGET - 2];
    assert!(
        left.contains("words to use") && left.contains("`kapi context PATH`"),
        "{left}"
    );
    // What ranks higher is kept whole.
    assert!(plan.root.contains(&"- A root rule.".to_owned()));
    assert!(
        plan.root
            .contains(&"- `help/`: see help/AGENTS.md".to_owned())
    );
    assert!(plan.root.contains(&"- \"word00\"".to_owned()));
    assert!(!plan.root.contains(&"- \"word79\"".to_owned()));

    let help = &plan.folders["help"];
    assert_eq!(help.len(), FOLDER_BUDGET);
    assert_eq!(help.last().unwrap(), CHECK_LINE);
    assert_eq!(
        help[FOLDER_BUDGET - 2],
        "- Left out to keep this short: 18 notes; `kapi context help/` gives the rest."
    );
    assert_eq!(help[1], "- Rule 00.");

    // Written through sync, the section's body is the budget.
    sync(&f.root, &plan, &Content::none()).unwrap();
    let text = f.read("help/AGENTS.md");
    assert_eq!(text.lines().count(), FOLDER_BUDGET + 2);
}

#[test]
fn sync_writes_root_and_folders_and_a_second_sync_changes_nothing() {
    let f = Fixture::new(TERMS);
    f.write("help/a.md", "Help.\n");
    f.write("AGENTS.md", "# How we work\r\n\r\nBe kind.\r\n");
    let plan = f.plan(&[note("n2", "help", "Steps are numbered.")]);
    let first = sync(&f.root, &plan, &Content::none()).unwrap();
    assert_eq!(
        first.written,
        ["AGENTS.md", "CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]
    );
    assert!(first.unchanged.is_empty() && first.removed.is_empty() && first.skipped.is_empty());

    let agents = f.read("AGENTS.md");
    assert!(agents.starts_with("# How we work\r\n\r\nBe kind.\r\n\r\n<!-- kapi:rules -->\r\n"));
    assert!(agents.ends_with(&format!("{CHECK_LINE}\r\n<!-- /kapi:rules -->\r\n")));
    assert_eq!(
        f.read("help/AGENTS.md"),
        format!(
            "<!-- kapi:rules -->\n## Rules for `help/` (kapi)\n- Steps are numbered.\n{CHECK_LINE}\n<!-- /kapi:rules -->\n"
        )
    );
    // One copy of the rules: each CLAUDE.md kapi creates imports its AGENTS.md.
    assert_eq!(f.read("help/CLAUDE.md"), "@AGENTS.md\n");
    assert_eq!(f.read("CLAUDE.md"), "@AGENTS.md\n");
    let created: Vec<String> = serde_json::from_str(&f.read(CREATED_FILES)).unwrap();
    assert_eq!(created, ["CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]);

    let before = f.snapshot();
    let second = sync(&f.root, &plan, &Content::none()).unwrap();
    assert!(second.written.is_empty(), "{second:?}");
    assert_eq!(
        second.unchanged,
        ["AGENTS.md", "CLAUDE.md", "help/AGENTS.md", "help/CLAUDE.md"]
    );
    assert_eq!(f.snapshot(), before);
}

#[test]
fn a_dropped_folder_loses_its_section_and_only_kapis_empty_files() {
    let f = Fixture::new(TERMS);
    f.write("help/CLAUDE.md", "# Mine\n");
    f.write("docs/AGENTS.md", "");
    f.write("docs/CLAUDE.md", "");
    std::fs::create_dir_all(f.root.join("api")).unwrap();
    let plan = simple_plan(&[
        ("help", &["## help", CHECK_LINE]),
        ("docs", &["## docs", CHECK_LINE]),
        ("api", &["## api", CHECK_LINE]),
    ]);
    sync(&f.root, &plan, &Content::none()).unwrap();
    assert!(
        f.read("help/CLAUDE.md")
            .starts_with("# Mine\n\n<!-- kapi:rules -->\n")
    );
    // The person adds to a file kapi created.
    let api = f.read("api/CLAUDE.md");
    f.write("api/CLAUDE.md", &format!("Mine too.\n\n{api}"));

    let report = sync(&f.root, &simple_plan(&[]), &Content::none()).unwrap();
    assert_eq!(
        report.removed,
        [
            "api/AGENTS.md",
            "api/CLAUDE.md",
            "docs/AGENTS.md",
            "docs/CLAUDE.md",
            "help/AGENTS.md",
            "help/CLAUDE.md"
        ]
    );
    assert!(
        !f.exists("help/AGENTS.md"),
        "kapi created it and nothing else is in it"
    );
    assert_eq!(f.read("help/CLAUDE.md"), "# Mine\n");
    assert!(!f.exists("api/AGENTS.md"));
    assert_eq!(f.read("api/CLAUDE.md"), "Mine too.\n");
    // The person created these; emptied of the section, they stay.
    assert_eq!(f.read("docs/AGENTS.md"), "");
    assert_eq!(f.read("docs/CLAUDE.md"), "");
    let created: Vec<String> = serde_json::from_str(&f.read(CREATED_FILES)).unwrap();
    assert_eq!(created, ["AGENTS.md", "CLAUDE.md", "api/CLAUDE.md"]);
    assert!(f.exists("AGENTS.md") && f.exists("CLAUDE.md"));

    // Found by their markers with no record of them (a fresh clone): still removed.
    f.write("docs/AGENTS.md", &format!("Docs.\n\n{SECTION}"));
    let report = sync(&f.root, &simple_plan(&[]), &Content::none()).unwrap();
    assert_eq!(report.removed, ["docs/AGENTS.md"]);
    assert_eq!(f.read("docs/AGENTS.md"), "Docs.\n");
}

#[test]
fn a_claude_md_importing_agents_md_gets_no_section() {
    let f = Fixture::new(TERMS);
    f.write(
        "CLAUDE.md",
        &format!("  @AGENTS.md \nMore of mine.\n\n{SECTION}"),
    );
    f.write("help/CLAUDE.md", "@./AGENTS.md\n");
    let plan = simple_plan(&[("help", &["## help", CHECK_LINE])]);
    let report = sync(&f.root, &plan, &Content::none()).unwrap();
    // A person's file that imports and says more is passed over; the import alone is the
    // folder's rules, up to date.
    assert_eq!(
        report.skipped,
        [("CLAUDE.md".to_owned(), "imports @AGENTS.md".to_owned())]
    );
    assert_eq!(report.unchanged, ["help/CLAUDE.md"]);
    assert_eq!(report.removed, ["CLAUDE.md"]);
    assert_eq!(report.written, ["AGENTS.md", "help/AGENTS.md"]);
    assert_eq!(f.read("CLAUDE.md"), "  @AGENTS.md \nMore of mine.\n");
    assert_eq!(f.read("help/CLAUDE.md"), "@./AGENTS.md\n");
    assert!(f.read("AGENTS.md").contains(START_MARKER));
}

#[cfg(unix)]
#[test]
fn a_claude_md_that_is_agents_md_gets_no_section() {
    let f = Fixture::new(TERMS);
    f.write("AGENTS.md", "# Ours\n");
    std::os::unix::fs::symlink("AGENTS.md", f.root.join("CLAUDE.md")).unwrap();
    // A link to an AGENTS.md this sync creates.
    std::fs::create_dir_all(f.root.join("help")).unwrap();
    std::os::unix::fs::symlink("AGENTS.md", f.root.join("help/CLAUDE.md")).unwrap();
    // A hard link.
    f.write("docs/AGENTS.md", "# Docs\n");
    std::fs::hard_link(f.root.join("docs/AGENTS.md"), f.root.join("docs/CLAUDE.md")).unwrap();
    let plan = simple_plan(&[
        ("help", &["## help", CHECK_LINE]),
        ("docs", &["## docs", CHECK_LINE]),
    ]);
    let report = sync(&f.root, &plan, &Content::none()).unwrap();
    assert_eq!(
        report.skipped,
        [
            (
                "CLAUDE.md".to_owned(),
                "the same file as AGENTS.md".to_owned()
            ),
            (
                "docs/CLAUDE.md".to_owned(),
                "the same file as docs/AGENTS.md".to_owned()
            ),
            (
                "help/CLAUDE.md".to_owned(),
                "the same file as help/AGENTS.md".to_owned()
            ),
        ]
    );
    assert_eq!(
        report.written,
        ["AGENTS.md", "docs/AGENTS.md", "help/AGENTS.md"]
    );
    let meta = std::fs::symlink_metadata(f.root.join("CLAUDE.md")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    let text = f.read("AGENTS.md");
    assert!(text.starts_with("# Ours\n\n<!-- kapi:rules -->\n"));
    assert_eq!(text.matches(START_MARKER).count(), 1);
    assert_eq!(f.read("docs/CLAUDE.md").matches(START_MARKER).count(), 1);
    assert_eq!(f.read("help/CLAUDE.md").matches(START_MARKER).count(), 1);
    // And again: nothing to do.
    let again = sync(&f.root, &plan, &Content::none()).unwrap();
    assert!(again.written.is_empty(), "{again:?}");
}

#[test]
fn a_broken_file_anywhere_refuses_the_whole_sync() {
    let f = Fixture::new(TERMS);
    f.write("help/AGENTS.md", "Mine.\n<!-- kapi:rules -->\nhalf\n");
    let plan = simple_plan(&[("help", &["## help", CHECK_LINE])]);
    let before = f.snapshot();
    let err = sync(&f.root, &plan, &Content::none()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("help/AGENTS.md") && message.contains("line 2"),
        "{message}"
    );
    assert!(!f.exists("AGENTS.md"), "nothing written before the refusal");
    assert_eq!(f.snapshot(), before);

    // A stray end marker in a file outside the plan refuses it too.
    f.write("help/AGENTS.md", "Mine.\n");
    f.write("old/CLAUDE.md", "<!-- /kapi:rules -->\n");
    let err = sync(&f.root, &plan, &Content::none())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("old/CLAUDE.md") && err.contains("line 1"),
        "{err}"
    );
    assert!(!f.exists("AGENTS.md"));
}

#[test]
fn a_folder_that_does_not_exist_is_skipped() {
    let f = Fixture::new(TERMS);
    let plan = simple_plan(&[("gone", &["## gone", CHECK_LINE])]);
    let report = sync(&f.root, &plan, &Content::none()).unwrap();
    assert_eq!(report.written, ["AGENTS.md", "CLAUDE.md"]);
    assert_eq!(
        report.skipped,
        [
            (
                "gone/AGENTS.md".to_owned(),
                "the folder does not exist".to_owned()
            ),
            (
                "gone/CLAUDE.md".to_owned(),
                "the folder does not exist".to_owned()
            )
        ]
    );
    assert!(!f.exists("gone"));
}

// --- Folders inside a content collection ----------------------------------------------------

/// A docs site: `docs/` and `guides/tutorials/` are content, `guides/` itself is not; a Hugo-like
/// `content/en/` tree with no rules around it.
fn site() -> Fixture {
    let f = Fixture::with_recipe(
        TERMS,
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n  - path: \"guides/tutorials/**/*.md\"\n  - path: \"content/en/**/*.md\"\n",
    );
    f.write("docs/learn/a.md", "Learn.\n");
    f.write("guides/tutorials/b.md", "Tutorial.\n");
    f.write("guides/README.txt", "Guides.\n");
    f.write("content/en/blog/c.md", "Blog.\n");
    f
}

fn project_content(f: &Fixture) -> Content {
    let project = kapi_core::project::Project::load(&f.root.join("kapi.yaml")).unwrap();
    Content::of(&project).unwrap()
}

#[test]
fn a_folder_inside_a_collection_has_its_rules_in_the_nearest_folder_outside_one() {
    let f = site();
    let plan = f.plan(&[
        note("n1", "docs/learn", "Steps are numbered."),
        note("n2", "guides", "Guides speak to beginners."),
        note(
            "n3",
            "guides/tutorials",
            "Each tutorial ends with a summary.",
        ),
        note("n4", "content/en/blog", "Posts are signed."),
    ]);
    assert_eq!(plan.folders.keys().collect::<Vec<_>>(), ["guides"]);
    assert_eq!(
        plan.folders["guides"],
        body(&[
            "## Rules for `guides/` (kapi)",
            "- Guides speak to beginners.",
            "Under `guides/tutorials/`:",
            "- Each tutorial ends with a summary.",
            CHECK_LINE
        ])
    );
    // The root holds what no folder outside a collection can: never a new file in `content/`.
    let root = plan.root.join("\n");
    assert!(
        root.contains("Under `content/en/blog/`:\n- Posts are signed.\nUnder `docs/learn/`:\n- Steps are numbered.\n"),
        "{root}"
    );
    assert!(
        root.contains(
            "Folders with rules of their own:\n- `guides/`: see guides/AGENTS.md\n- `guides/tutorials/`: see guides/AGENTS.md\n"
        ),
        "{root}"
    );
    assert!(
        !root.contains("see docs/learn") && !root.contains("see content"),
        "{root}"
    );
    assert_eq!(plan.root.last().unwrap(), CHECK_LINE);
    let moved: Vec<(&str, &str, &str)> = plan
        .moved
        .iter()
        .map(|m| (m.folder.as_str(), m.host.as_str(), m.glob.as_str()))
        .collect();
    assert_eq!(
        moved,
        [
            ("content/en/blog", "", "content/en/**/*.md"),
            ("docs/learn", "", "docs/**/*.md"),
            ("guides/tutorials", "guides", "guides/tutorials/**/*.md"),
        ]
    );

    let report = sync(&f.root, &plan, &project_content(&f)).unwrap();
    assert_eq!(
        report.written,
        [
            "AGENTS.md",
            "CLAUDE.md",
            "guides/AGENTS.md",
            "guides/CLAUDE.md"
        ]
    );
    assert!(report.skipped.is_empty(), "{report:?}");
    for rel in [
        "docs/learn/AGENTS.md",
        "docs/AGENTS.md",
        "content/AGENTS.md",
        "content/en/blog/CLAUDE.md",
        "guides/tutorials/AGENTS.md",
    ] {
        assert!(!f.exists(rel), "{rel}");
    }
    let into: Vec<(&str, Vec<String>)> = report
        .moved
        .iter()
        .map(|m| (m.folder.as_str(), m.into.clone()))
        .collect();
    assert_eq!(
        into,
        [
            ("content/en/blog", body(&["AGENTS.md", "CLAUDE.md"])),
            ("docs/learn", body(&["AGENTS.md", "CLAUDE.md"])),
            (
                "guides/tutorials",
                body(&["guides/AGENTS.md", "guides/CLAUDE.md"])
            ),
        ]
    );
    assert_eq!(
        report.moved[1].sentence(),
        "rules for `docs/learn/` are in AGENTS.md and CLAUDE.md: the content collection `docs/**/*.md` covers the folder, where a rules file would be published as a page"
    );
}

#[test]
fn the_folders_a_host_holds_keep_to_their_budget_and_its_own() {
    let mut terms = String::from("version: v1\nconcepts:\n");
    for i in 0..80 {
        terms.push_str(&format!(
            "  - id: c{i:02}\n    terms:\n      - text: word{i:02}\n        lang: en\n        status: preferred\n"
        ));
    }
    let f = Fixture::with_recipe(
        &terms,
        "version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: \"docs/**/*.md\"\n",
    );
    f.write("docs/learn/a.md", "Learn.\n");
    let mut notes: Vec<KeptNote> = (0..40)
        .map(|i| note(&format!("n{i}"), "docs/learn", &format!("Rule {i:02}.")))
        .collect();
    notes.push(note("r1", "", "A root rule."));
    let plan = f.plan(&notes);
    // The folder's lines as its own section would hold them (heading and gate line aside),
    // under its name, on top of the root's own budget.
    assert_eq!(plan.root.len(), ROOT_BUDGET + FOLDER_BUDGET - 1);
    assert_eq!(plan.root.last().unwrap(), CHECK_LINE);
    assert!(plan.root.contains(&"- A root rule.".to_owned()));
    assert!(plan.root.contains(&"- \"word00\"".to_owned()));
    assert!(plan.root.contains(&"- Rule 00.".to_owned()));
    assert!(
        plan.root.contains(
            &"- Left out to keep this short: 18 notes; `kapi context docs/learn/` gives the rest."
                .to_owned()
        ),
        "{:?}",
        plan.root
    );
}

#[test]
fn a_section_inside_a_collection_goes_and_kapis_own_file_with_it() {
    let f = site();
    let section =
        "<!-- kapi:rules -->\n## Rules for `docs/learn/` (kapi)\n- Old.\n<!-- /kapi:rules -->\n";
    // No record that kapi created these (a teammate's clone): only their content says so.
    f.write("docs/learn/AGENTS.md", section);
    f.write("docs/learn/CLAUDE.md", &format!("\n{section}\n"));
    f.write("docs/old/AGENTS.md", section);
    f.write("docs/mine/AGENTS.md", &format!("# Mine\n\n{section}"));
    f.write("docs/mine/CLAUDE.md", "# Mine too\n");
    // A plan that names folders a collection covers (as an earlier plan did) writes nothing
    // there either.
    let plan = RulesPlan {
        moved: f.plan(&[note("n1", "docs/mine", "Ask Dana.")]).moved,
        ..simple_plan(&[
            ("docs/learn", &["## learn", CHECK_LINE]),
            ("docs/guide", &["## guide", CHECK_LINE]),
        ])
    };
    f.write("docs/guide/AGENTS.md", "# Guide\n");
    let report = sync(&f.root, &plan, &project_content(&f)).unwrap();
    assert_eq!(
        report.removed,
        [
            "docs/learn/AGENTS.md",
            "docs/learn/CLAUDE.md",
            "docs/mine/AGENTS.md",
            "docs/old/AGENTS.md"
        ]
    );
    assert_eq!(
        report.deleted,
        [
            "docs/learn/AGENTS.md",
            "docs/learn/CLAUDE.md",
            "docs/old/AGENTS.md"
        ]
    );
    assert_eq!(f.read("docs/mine/AGENTS.md"), "# Mine\n");
    assert_eq!(f.read("docs/mine/CLAUDE.md"), "# Mine too\n");
    assert_eq!(f.read("docs/guide/AGENTS.md"), "# Guide\n");
    assert!(!f.exists("docs/guide/CLAUDE.md"));
    let why = "inside the content collection `docs/**/*.md`, where kapi's text would be published; the folder's rules are in AGENTS.md";
    let guide = "inside a content collection, where kapi's text would be published";
    assert_eq!(
        report.skipped,
        [
            ("docs/guide/AGENTS.md".to_owned(), guide.to_owned()),
            ("docs/mine/AGENTS.md".to_owned(), why.to_owned()),
            ("docs/mine/CLAUDE.md".to_owned(), why.to_owned()),
        ]
    );
    assert!(!f.exists("docs/learn/AGENTS.md") && !f.exists("docs/old/AGENTS.md"));
    // Nothing half: the next sync finds nothing to do.
    let again = sync(&f.root, &plan, &project_content(&f)).unwrap();
    assert!(
        again.written.is_empty() && again.removed.is_empty(),
        "{again:?}"
    );
}
