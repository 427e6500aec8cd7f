//! SARIF 2.1.0 output, for code-scanning dashboards: one run whose driver lists every rule
//! (its explanation as the full description) and one result per finding the report holds (a
//! report past its cap says in the run's `properties.truncated` how many more it counted).
//! Columns count Unicode code points, as the report's do (`columnKind: unicodeCodePoints`).
//! Each result carries `partialFingerprints` ([`FINGERPRINT`]), so code scanning keeps an
//! alert's identity when lines move, and a suppressed finding is a result with a
//! `suppressions` entry (GitHub closes it as suppressed rather than dropping it silently).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::check::Finding;
use crate::check::analyzers::rule;
use crate::check::report::CheckReport;
use crate::check::suppress::{SuppressedBy, SuppressionKind};
use crate::governance::Severity;

/// The `partialFingerprints` key of a result: [`Finding::fingerprint`], which holds while the
/// finding's lines move (its rule, file, matched text and which occurrence of them it is).
pub const FINGERPRINT: &str = "kapiFinding/v1";

/// The SARIF schema the output follows.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where the tool is documented.
pub const INFORMATION_URI: &str = "https://example.invalid/kapi";

/// Renders the report as a SARIF 2.1.0 log naming this build's version.
pub fn render(report: &CheckReport) -> Value {
    render_with_version(report, env!("CARGO_PKG_VERSION"))
}

/// Renders the report as a SARIF 2.1.0 log naming `version` as the tool's version.
pub fn render_with_version(report: &CheckReport, version: &str) -> Value {
    let rules = rule::all();
    let mut descriptors: Vec<Value> = rules
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "shortDescription": {"text": rule.summary()},
                "fullDescription": {"text": rule.help().trim_end()},
                "help": {"text": rule.help().trim_end(), "markdown": rule.help().trim_end()},
                "defaultConfiguration": {"level": level(rule.severity)},
            })
        })
        .collect();
    // A rule from outside kapi's table (a Vale style's `Style.Rule`): described by its id and
    // its `link`, after kapi's own.
    let mut external: Vec<String> = Vec::new();
    let everything = report
        .findings
        .iter()
        .chain(report.suppressed.iter().map(|s| &s.finding));
    for finding in everything {
        if rule::find(&finding.rule).is_none() && !external.contains(&finding.rule) {
            external.push(finding.rule.clone());
            let mut descriptor = json!({
                "id": finding.rule,
                "shortDescription": {"text": finding.rule},
                "defaultConfiguration": {"level": level(finding.severity)},
            });
            if let Some(link) = &finding.link {
                descriptor["helpUri"] = json!(link);
            }
            descriptors.push(descriptor);
        }
    }
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    let mut occurrence = |finding: &Finding| {
        let what = finding.matched.as_deref().unwrap_or(&finding.message);
        let key = (finding.rule.clone(), finding.path.clone(), what.to_owned());
        let n = seen.entry(key).or_insert(0);
        *n += 1;
        *n - 1
    };
    let suppressed = report
        .suppressed
        .iter()
        .map(|s| (&s.finding, Some(&s.suppressed_by)));
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| (f, None))
        .chain(suppressed)
        .map(|(finding, by)| {
            let artifact = json!({"uri": uri(&finding.path)});
            let physical = if finding.line == 0 {
                json!({"artifactLocation": artifact})
            } else {
                json!({
                    "artifactLocation": artifact,
                    "region": {
                        "startLine": finding.line,
                        "startColumn": finding.column,
                        "byteOffset": finding.start,
                        "byteLength": finding.end.saturating_sub(finding.start),
                    },
                })
            };
            let mut result = json!({
                "ruleId": finding.rule,
                "level": level(finding.severity),
                "message": {"text": finding.advice()},
                "locations": [{"physicalLocation": physical}],
                "properties": {"severity": finding.severity.as_str()},
            });
            if let Some(index) = rules.iter().position(|r| r.id == finding.rule) {
                result["ruleIndex"] = json!(index);
            } else if let Some(index) = external.iter().position(|r| *r == finding.rule) {
                result["ruleIndex"] = json!(rules.len() + index);
            }
            if let Some(block) = &finding.block {
                result["properties"]["block"] = json!(block);
            }
            if let Some(suggestion) = &finding.suggestion {
                result["properties"]["suggestion"] = json!(suggestion);
            }
            result["partialFingerprints"] =
                json!({FINGERPRINT: finding.fingerprint(occurrence(finding))});
            if let Some(by) = by {
                result["suppressions"] = json!([suppression(by)]);
            }
            result
        })
        .collect();
    let mut log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kapi",
                "informationUri": INFORMATION_URI,
                "version": version,
                "rules": descriptors,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    if report.truncated > 0 {
        // The findings the report counts but holds no result for (past its cap).
        log["runs"][0]["properties"] = json!({"truncated": report.truncated});
    }
    log
}

/// A suppressed finding's SARIF `suppression`: `inSource` for a directive in the file,
/// `external` for the terms file or the recipe, with what allowed it as the justification.
fn suppression(by: &SuppressedBy) -> Value {
    let kind = match by.kind {
        SuppressionKind::Directive => "inSource",
        SuppressionKind::Exception | SuppressionKind::Recipe => "external",
    };
    let mut justification = by.text.clone();
    if let Some(path) = &by.path {
        justification.push_str(&format!(" ({path}"));
        if let Some(line) = by.line {
            justification.push_str(&format!(":{line}"));
        }
        justification.push(')');
    }
    json!({"kind": kind, "justification": justification})
}

/// SARIF's level for a severity: critical and major are errors, minor a warning, info a note.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::Major => "error",
        Severity::Minor => "warning",
        Severity::Info => "note",
    }
}

/// A relative URI reference for a path: `/` separators, reserved bytes percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'\\' => out.push('/'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_becomes_a_sarif_log() {
        let log = render_with_version(&crate::check::render::github::tests::sample(), "0.0.0-test");
        // The rule descriptors are the registry's; keep the snapshot to the results.
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(rules, rule::all().len());
        let mut trimmed = log.clone();
        trimmed["runs"][0]["tool"]["driver"]["rules"] =
            json!([log["runs"][0]["tool"]["driver"]["rules"][0].clone()]);
        insta::assert_json_snapshot!(trimmed);
    }

    #[test]
    fn the_default_version_is_this_build() {
        let log = render(&crate::check::render::github::tests::sample());
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["version"],
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(log["version"], "2.1.0");
    }

    #[test]
    fn a_truncated_report_counts_what_it_holds_no_result_for() {
        let mut report = crate::check::render::github::tests::sample();
        assert!(render(&report)["runs"][0].get("properties").is_none());
        report.truncated = 7;
        assert_eq!(render(&report)["runs"][0]["properties"]["truncated"], 7);
    }

    #[test]
    fn paths_become_relative_uris() {
        assert_eq!(uri("docs\\a b/ç.md"), "docs/a%20b/%C3%A7.md");
    }
}
