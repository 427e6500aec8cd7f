//! A path outside the project is refused as outside the project whether or not it exists:
//! the policy answer comes before "no such file", on every verb that takes a path.

use serde_json::json;

use crate::apply::{apply, set, shop, statuses};

/// A file outside the project that is not there, named relative (`../`) and absolute.
fn missing_outside() -> (tempfile::TempDir, [String; 2]) {
    let outside = tempfile::tempdir().expect("temp dir");
    let abs = outside.path().join("gone.md").display().to_string();
    (outside, ["../kapi-no-such-folder/gone.md".to_owned(), abs])
}

#[test]
fn check_inspect_and_review_refuse_a_missing_file_outside_as_outside() {
    let kapi = shop();
    let (_outside, paths) = missing_outside();
    for path in &paths {
        for args in [
            vec!["check", path.as_str()],
            vec!["inspect", path.as_str()],
            vec!["inspect", path.as_str(), "--limit", "1"],
            vec![
                "review",
                "--doc",
                path.as_str(),
                "--lang",
                "fr",
                "--block",
                "x",
            ],
            vec!["stats", path.as_str()],
            vec!["context", path.as_str()],
        ] {
            let run = kapi.run(&args);
            assert_eq!(run.code, 1, "{args:?}: {}", run.transcript());
            assert!(
                run.stderr
                    .contains(&format!("`{path}` is outside the project")),
                "{args:?}: {}",
                run.transcript()
            );
            assert!(
                !run.stderr.contains("no such file"),
                "{args:?}: {}",
                run.transcript()
            );
        }
    }
    // Inside the project, a missing file is still missing.
    let inside = kapi.run(&["check", "docs/gone.md"]);
    assert_eq!(inside.code, 1, "{}", inside.transcript());
    assert!(
        inside
            .stderr
            .contains("`docs/gone.md`: no such file or folder"),
        "{}",
        inside.transcript()
    );
}

#[test]
fn apply_refuses_a_missing_document_outside_as_outside() {
    let kapi = shop();
    // A `..` in a doc is refused as the set decodes (exit 2); an absolute one is admitted or
    // refused by the project.
    let (_outside, [_, path]) = missing_outside();
    {
        let change = set(
            json!([{"op": "set_content", "at": {"doc": path, "block": "x/p"},
                                 "if_match": "*", "content": "Y"}]),
        );
        let run = apply(&kapi, &change, &["--json"]);
        assert_eq!(run.code, 3, "{path}: {}", run.transcript());
        assert_eq!(statuses(&run), ["not_permitted"], "{path}: {}", run.stdout);
        assert!(
            run.stdout
                .contains(&format!("`{path}` is outside the project")),
            "{path}: {}",
            run.stdout
        );
    }
    // Inside the project, a missing document is still not found.
    let change = set(
        json!([{"op": "set_content", "at": {"doc": "docs/gone.md", "block": "x/p"},
                             "if_match": "*", "content": "Y"}]),
    );
    let run = apply(&kapi, &change, &["--json"]);
    assert_eq!(statuses(&run), ["not_found"], "{}", run.stdout);
}

/// A path that leads out of the project through a link is refused as such by every verb that
/// reads or binds a file there (`check`, `context`, `stats`), as `check` always refused it;
/// `kapi formats detect` judges it by its name alone, as it judges a path outside the project.
#[cfg(unix)]
#[test]
fn a_path_through_a_link_out_of_the_project_is_refused_but_detect_judges_its_name() {
    let kapi = shop();
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("guide.md"), "# Guide\n\nOpen it.\n").expect("written");
    std::os::unix::fs::symlink(outside.path(), kapi.path().join("docs/shared")).expect("linked");
    for args in [
        vec!["check", "docs/shared/guide.md"],
        vec!["context", "docs/shared/guide.md"],
        vec!["stats", "docs/shared/guide.md"],
    ] {
        let run = kapi.run(&args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.transcript());
        assert!(
            run.stderr
                .contains("`docs/shared/guide.md` leads outside the project"),
            "{args:?}: {}",
            run.transcript()
        );
    }
    let detect = kapi.run(&["formats", "detect", "--json", "docs/shared/guide.md"]);
    assert_eq!(detect.code, 0, "{}", detect.transcript());
    let report: serde_json::Value = serde_json::from_str(&detect.stdout).expect("JSON");
    assert_eq!(report["format"]["id"], "markdown", "{report}");
    assert_eq!(report["path"], "docs/shared/guide.md", "{report}");
}
