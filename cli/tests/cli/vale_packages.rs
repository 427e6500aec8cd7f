//! Vale's style packages on their own fixtures: every scenario of each package's
//! `features/rules.feature` (the alerts Vale gives), run through `kapi check --format line` in
//! the scenario's fixture folder, which holds a `.vale.ini` and no `kapi.yaml`. kapi's alerts
//! must be Vale's, but for the differences listed in [`KNOWN`], each with its reason, and each
//! must still occur (a fixed one is taken off the list).

use std::collections::BTreeSet;
use std::path::Path;

use super::{Kapi, copy_dir, testdata};

const PACKAGES: [&str; 6] = [
    "write-good",
    "proselint",
    "Microsoft",
    "Google",
    "alex",
    "Joblint",
];

/// kapi's own analyzers, whose findings the packages' features do not list.
const KAPI_ANALYZERS: [&str; 9] = [
    "hygiene",
    "terms",
    "voice",
    "placeholders",
    "plurals",
    "translation-terms",
    "translation",
    "suppress",
    "read",
];

/// An alert kapi gives (`+`) or does not give (`-`) unlike the feature, and why.
struct Known {
    package: &'static str,
    /// `+` or `-`, then the line as `--format line` prints it, or a prefix of it.
    line: &'static str,
    why: &'static str,
}

/// The features that predate Vale 3.4 (April 2024), when `ignorecase` also capitalised a
/// substitution's replacement; since then only `capitalize: true` does, and kapi follows
/// today's Vale: `Use 'aren't' instead of 'Are not'` where the feature has `'Aren't'`.
const CAPITALIZE: &str = "Vale >= 3.4 capitalises a replacement only with `capitalize: true`";

const KNOWN: &[Known] = &[
    Known {
        package: "Google",
        line: "-test.md:7:5:Google.Colons:",
        why: "`(?<!:[^ ]+?)` is .NET's variable-length lookbehind: the rule is unassessed",
    },
    Known {
        package: "proselint",
        line: "-test.md:45:21:proselint.DenizenLabels:Did you mean 'Hong Konger'?",
        why: "Vale >= 3.7 puts the quoted replacement in a message that quotes `%s` once",
    },
    Known {
        package: "proselint",
        line: "+test.md:45:21:proselint.DenizenLabels:Did you mean ''Hong Konger''?",
        why: "the same alert, with today's Vale message",
    },
    Known {
        package: "write-good",
        line: "+test.md:5:23:write-good.Weasel:'fairly' is a weasel word!",
        why: "the package lists `fairly` since its feature was written",
    },
    Known {
        package: "alex",
        line: "-fail.md:",
        why: "the feature names `alex.Profanity`, which the package split into ProfanityLikely, ProfanityMaybe and ProfanityUnlikely",
    },
    Known {
        package: "alex",
        line: "+fail.md:",
        why: "the same alerts under the package's current rule names, and its `alex.OCD`",
    },
    Known {
        package: "Microsoft",
        line: "-test.md:",
        why: CAPITALIZE,
    },
    Known {
        package: "Microsoft",
        line: "+test.md:",
        why: CAPITALIZE,
    },
];

/// One scenario: its name, its fixture folder and the lines it expects.
struct Scenario {
    name: String,
    folder: String,
    expected: BTreeSet<String>,
}

fn scenarios(feature: &str) -> Vec<Scenario> {
    let mut out = Vec::new();
    let (mut name, mut folder) = (String::new(), String::new());
    let mut lines = feature.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if let Some(n) = line.strip_prefix("Scenario:") {
            name = n.trim().to_owned();
        } else if let Some(rest) = line.strip_prefix("When I test ") {
            folder = rest.trim_matches('"').to_owned();
        } else if line.starts_with("Then the output should contain") {
            let mut expected = BTreeSet::new();
            let _open = lines.next();
            for l in lines.by_ref() {
                let l = l.trim();
                if l == "\"\"\"" {
                    break;
                }
                if !l.is_empty() {
                    expected.insert(l.to_owned());
                }
            }
            out.push(Scenario {
                name: name.clone(),
                folder: folder.clone(),
                expected,
            });
        }
    }
    out
}

fn known(package: &str, sign: char, line: &str) -> bool {
    KNOWN.iter().any(|k| {
        k.package == package
            && k.line.starts_with(sign)
            && line.starts_with(&k.line[1..])
            && !k.why.is_empty()
    })
}

#[test]
fn every_package_gives_vale_s_alerts_on_its_fixtures() {
    let mut report = Vec::new();
    let (mut agreed, mut total) = (0, 0);
    let mut used: BTreeSet<(&str, String)> = BTreeSet::new();
    for package in PACKAGES {
        let sandbox = Kapi::empty();
        copy_dir(&testdata().join("vale").join(package), sandbox.path());
        let feature = std::fs::read_to_string(sandbox.path().join("features/rules.feature"))
            .expect("feature");
        for scenario in scenarios(&feature) {
            let dir = sandbox.path().join("fixtures").join(&scenario.folder);
            assert!(Path::new(&dir).is_dir(), "{package}: {}", scenario.folder);
            let out = sandbox
                .command(&["check", "--format", "line", "--no-cache"])
                .current_dir(&dir)
                .output()
                .expect("kapi runs");
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 3)),
                "{package}/{}: exit {code:?}: {}",
                scenario.folder,
                String::from_utf8_lossy(&out.stderr)
            );
            let got: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| {
                    let rule = l.split(':').nth(3).unwrap_or_default();
                    let analyzer = rule.split('.').next().unwrap_or_default();
                    !KAPI_ANALYZERS.contains(&analyzer)
                })
                .map(str::to_owned)
                .collect();
            let missing: Vec<&String> = scenario.expected.difference(&got).collect();
            let extra: Vec<&String> = got.difference(&scenario.expected).collect();
            total += scenario.expected.len();
            agreed += scenario.expected.len() - missing.len();
            for (sign, lines) in [('-', &missing), ('+', &extra)] {
                for line in lines {
                    assert!(
                        known(package, sign, line),
                        "{package}/{} ({}): {sign}{line}",
                        scenario.folder,
                        scenario.name
                    );
                    let k = KNOWN
                        .iter()
                        .find(|k| {
                            k.package == package
                                && k.line.starts_with(sign)
                                && line.starts_with(&k.line[1..])
                        })
                        .map(|k| k.line.to_owned())
                        .unwrap_or_default();
                    used.insert((package, k));
                }
            }
            report.push(format!(
                "{package}/{}: {}/{} ({} extra)",
                scenario.folder,
                scenario.expected.len() - missing.len(),
                scenario.expected.len(),
                extra.len()
            ));
        }
    }
    for k in KNOWN {
        assert!(
            used.contains(&(k.package, k.line.to_owned())),
            "known difference no longer seen (take it off the list): {} {}",
            k.package,
            k.line
        );
    }
    println!("{}\nalerts agreed: {agreed}/{total}", report.join("\n"));
    assert!(total > 250, "{total}");
}

/// A kapi project whose recipe names a Vale configuration: `Style.Rule` findings with the
/// rule's link in JSON and SARIF, Vale's comments honoured and counted, a metric rule at the
/// file's start, an unassessed kind in the coverage, and a refusal naming the rule file.
#[test]
fn a_project_names_its_vale_configuration_and_every_surface_reads_it() {
    let kapi = Kapi::bound();
    kapi.write(
        "kapi.yaml",
        "version: v1\ndefaults:\n  vale: .vale.ini\ncollections:\n  - path: \"docs/*.md\"\n",
    );
    kapi.write(
        ".vale.ini",
        "StylesPath = styles\n\n[*.md]\nBasedOnStyles = House\n",
    );
    kapi.write(
        "styles/House/Simply.yml",
        "extends: existence\nmessage: \"Don't use '%s'.\"\nlevel: error\nlink: https://example.com/simply\ntokens: [simply]\n",
    );
    kapi.write(
        "styles/House/Readable.yml",
        "extends: metric\nmessage: \"Grade %s\"\nformula: words / sentences\ncondition: \"> 1\"\n",
    );
    kapi.write(
        "docs/a.md",
        "# Guide\n\nRun it simply.\n\n<!-- vale House.Simply = NO -->\n\nThen simply stop.\n\n<!-- vale House.Simply = YES -->\n\nOr simply go.\n",
    );
    let json = kapi.run(&["check", "--json", "--no-cache"]);
    assert_eq!(json.code, 3, "{}", json.transcript());
    let report = json.json();
    let findings = report["findings"].as_array().expect("findings");
    let vale: Vec<(u64, &str)> = findings
        .iter()
        .filter(|f| f["rule"] == "House.Simply")
        .map(|f| {
            (
                f["line"].as_u64().unwrap_or(0),
                f["severity"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(vale, [(3, "major"), (11, "major")], "{report:#}");
    assert!(
        findings
            .iter()
            .all(|f| f["rule"] != "House.Simply" || f["link"] == "https://example.com/simply")
    );
    assert_eq!(
        report["summary"]["suppressed"].as_u64(),
        Some(1),
        "{report:#}"
    );
    // A document rule (`metric`) is assessed once per file, at its start.
    let metric: Vec<(u64, &str)> = findings
        .iter()
        .filter(|f| f["rule"] == "House.Readable")
        .map(|f| {
            (
                f["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(metric, [(1, "Grade 3.00")], "{report:#}");
    // A kind kapi does not assess is listed in the coverage with the reason.
    kapi.write(
        "styles/House/Tagged.yml",
        "extends: sequence\nmessage: m\ntokens:\n  - tag: NN\n",
    );
    let again = kapi.run(&["check", "--json", "--no-cache"]).json();
    let unassessed = again["coverage"]["unassessed"].to_string();
    assert!(unassessed.contains("House.Tagged"), "{unassessed}");
    let sarif = kapi.run(&["check", "--format", "sarif", "--no-cache"]);
    let log = sarif.json();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    let house = rules
        .iter()
        .find(|r| r["id"] == "House.Simply")
        .expect("described");
    assert_eq!(house["helpUri"], "https://example.com/simply");
    let line = kapi.run(&["check", "--format", "line", "--no-cache"]);
    assert!(
        line.stdout
            .contains("docs/a.md:3:8:House.Simply:Don't use 'simply'."),
        "{}",
        line.stdout
    );
    // A rule file Vale would refuse is an error naming it.
    kapi.write(
        "styles/House/Bad.yml",
        "extends: existence\nlevel: error\ntokens: [x]\n",
    );
    let bad = kapi.run(&["check", "--no-cache"]);
    assert_eq!(bad.code, 1, "{}", bad.transcript());
    assert!(
        bad.stderr.contains("Bad.yml") && bad.stderr.contains("message"),
        "{}",
        bad.stderr
    );
}
