//! Every format's fixtures through the built binary (`KAPI_BIN`, default `target/debug/kapi`):
//! `kapi inspect --verify` writes each file back identical, `kapi inspect --json` reads it
//! into `kapi.blocks/v1` with a ref and rev per block, and `kapi check` reads it.

use crate::common::{Bind, command, wire, workspace};

fn kapi(args: &[&str]) -> (i32, String, String) {
    let out = command(&workspace(), Bind::Explicit)
        .args(args)
        .output()
        .expect("the kapi binary runs (build it first: cargo build --bin kapi)");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The fixtures of one format folder, as workspace-relative paths.
fn fixtures(dir: &str) -> Vec<String> {
    let dir_name = dir;
    let mut files = Vec::new();
    let mut stack = vec![workspace().join("testdata/formats").join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SOURCES.md") && dir_name != "markdown"
            {
                // A folder's provenance, not one of its fixtures.
            } else if let Ok(rel) = path.strip_prefix(workspace()) {
                files.push(rel.display().to_string());
            }
        }
    }
    files.sort();
    files
}

/// Folders and the format each file is read with (`None`: by extension and sniffing).
const FOLDERS: &[(&str, Option<&str>)] = &[
    ("markdown", None),
    ("mdx", Some("mdx")),
    // Sphinx's test roots keep reST in `.txt`, so the folder is read `--as rst`.
    ("rst", Some("rst")),
    ("asciidoc", Some("asciidoc")),
    ("text", Some("text")),
    ("html", None),
    ("json", None),
    ("arb", None),
    ("yaml", None),
    ("properties", None),
    ("android", Some("android")),
    ("resx", None),
    ("strings", None),
    ("stringsdict", None),
    ("po", None),
    ("xliff", None),
    ("xliff2", None),
    ("qt", None),
    ("xcstrings", None),
    ("fluent", None),
    ("docx", None),
];

#[test]
fn every_fixture_writes_back_byte_for_byte_through_the_binary() {
    for (dir, format) in FOLDERS {
        let files = fixtures(dir);
        assert!(!files.is_empty(), "{dir}");
        let mut args = vec!["inspect", "--verify", "--json"];
        if let Some(format) = format {
            args.extend(["--as", format]);
        }
        args.extend(files.iter().map(String::as_str));
        let (code, stdout, stderr) = kapi(&args);
        let report = wire::parse(&stdout, &format!("{dir}\n{stderr}"));
        for file in report["files"].as_array().expect("files") {
            assert_eq!(file["status"], "identical", "{dir}: {file}");
            if format.is_none() {
                let want = if *dir == "xliff2" { "xliff2" } else { dir };
                assert_eq!(
                    file["format"], want,
                    "{dir}: detected as {}",
                    file["format"]
                );
            }
        }
        assert_eq!(code, 0, "{dir}: {stderr}");
    }
}

#[test]
fn every_fixture_reads_into_blocks_with_refs_and_revs() {
    for (dir, format) in FOLDERS {
        for file in fixtures(dir) {
            let mut args = vec!["inspect", "--json", "--editions", "*", file.as_str()];
            if let Some(format) = format {
                args.extend(["--as", format]);
            }
            let (code, stdout, stderr) = kapi(&args);
            assert_eq!(code, 0, "{file}: {stderr}");
            let doc = wire::parse(&stdout, &file);
            assert_eq!(doc["schema"], "kapi.blocks/v1");
            let blocks = doc["blocks"].as_array().expect("blocks");
            assert_eq!(doc["total"].as_u64(), Some(blocks.len() as u64), "{file}");
            let mut keys = std::collections::HashSet::new();
            for block in blocks {
                assert_eq!(block["ref"]["doc"], file.as_str());
                assert!(
                    keys.insert(block["ref"]["block"].to_string()),
                    "{file}: a key twice"
                );
                assert!(block["rev"].as_str().is_some_and(|r| r.starts_with('r')));
                if block["accepts"].as_array().is_some_and(|a| a.is_empty()) {
                    assert!(
                        block["why"].is_string(),
                        "{file}: read-only without a reason"
                    );
                }
            }
        }
    }
}

#[test]
fn every_fixture_is_checked_without_an_error() {
    for (dir, format) in FOLDERS {
        if format.is_some() {
            continue;
        }
        let files = fixtures(dir);
        let mut args = vec!["check", "--fail-on", "none", "--json"];
        args.extend(files.iter().map(String::as_str));
        let (code, stdout, stderr) = kapi(&args);
        assert_eq!(code, 0, "{dir}: {stderr}");
        let report = wire::parse(&stdout, dir);
        assert_eq!(
            report["target"]["files"].as_u64(),
            Some(files.len() as u64),
            "{dir}"
        );
    }
}
