//! `kapi help [TOPIC]`: the commands grouped by intent, one command's help, or a topic
//! (`exit-codes`, `environment`, `files`, `changes`, `hooks`, `rules [ID]`, and the skill's references:
//! `skill`, `edit`, `i18n/react`, …). Exits 0, or 2 for an unknown topic.
//!
//! The skill topics come from the tree embedded in kapi-host (`kapi_host::agents::skills`), with links
//! between references rewritten as the `kapi help` command that serves each. A name that is both
//! a command and a reference (`check`, `context`) prints the command's help, then the reference.

use std::io::{self, Write};

use clap::{Args, CommandFactory};
use serde::Serialize;

use crate::exit::Outcome;
use crate::printer::{Printer, Render, Style};

/// List the commands, or print a command's help or a topic
#[derive(Debug, Args)]
pub struct HelpArgs {
    /// A command (`check`), a topic (`exit-codes`, `files`, `changes`, `rules`, …) or a skill
    /// reference (`skill`, `edit`, `i18n/react`, …)
    #[arg(value_name = "TOPIC")]
    pub topic: Option<String>,
    /// For `rules`: one rule id (`terms.forbidden`)
    #[arg(value_name = "ID")]
    pub id: Option<String>,
}

/// The verbs by intent, as `kapi help` lists them.
const GROUPS: &[(&str, &[&str])] = &[
    ("Start", &["init"]),
    ("Learn what governs a file", &["context"]),
    ("Read content", &["inspect"]),
    ("Text tools, format-aware", &["cat", "grep", "sed", "diff"]),
    ("Change content and assets", &["apply", "schema", "rewrite"]),
    ("Check", &["check", "redact"]),
    ("Translations", &["stats", "translate", "up", "review"]),
    ("Serve assistants", &["mcp", "hook"]),
    ("Formats", &["formats"]),
    ("Help", &["help"]),
];

const TOPICS: &[(&str, &str)] = &[
    ("exit-codes", "what each exit code means"),
    ("environment", "the environment variables kapi reads"),
    (
        "files",
        "kapi.yaml, .kapi/voice.yaml and .kapi/terms.yaml, field by field",
    ),
    (
        "changes",
        "change sets (`kapi.change/v1`): operations, statuses, who may send what",
    ),
    (
        "hooks",
        "the assistant hooks: what each does, how each host reads it, failing open",
    ),
    (
        "rules",
        "every check rule and what it flags (`kapi help rules ID` for one)",
    ),
];

const FILES: &str = include_str!("../../../docs/files.md");
const CHANGES: &str = include_str!("../../../docs/changes.md");
const HOOKS: &str = include_str!("../../../docs/hooks.md");

/// A help text (`kapi.help/v1` under `--json`).
#[derive(Debug, Serialize)]
pub struct HelpText {
    schema: &'static str,
    topic: String,
    text: String,
}

impl Render for HelpText {
    fn render(&self, out: &mut dyn Write, _: &Style) -> io::Result<()> {
        out.write_all(self.text.as_bytes())
    }
}

pub fn run(args: &HelpArgs, _: &kapi_host::App, printer: &mut Printer) -> anyhow::Result<Outcome> {
    let Some(topic) = args.topic.as_deref() else {
        print_overview(printer)?;
        return Ok(Outcome::Success);
    };
    let text = match topic {
        "exit-codes" => {
            let mut text =
                String::from("Exit codes (public API: scripts and assistants branch on them):\n\n");
            for (code, name, meaning) in crate::exit::Outcome::ALL {
                text.push_str(&format!("  {code:<4} {name:<7} {meaning}\n"));
            }
            text.push_str("\nUnder `--json`, an error is `{\"error\": \"...\", \"code\": \"usage|error|gate|signal\"}` on stderr.\n");
            text.push_str("`kapi grep` and `kapi diff` (kgrep, kdiff) exit as grep and diff do: 0 a match (the same), 1 none (different), 2 trouble.\n");
            text
        }
        "environment" => {
            let mut text = String::from("Environment variables kapi reads:\n\n");
            for (name, meaning) in kapi_host::env::ALL {
                text.push_str(&format!("  {name:<16} {meaning}\n"));
            }
            text
        }
        "files" => FILES.to_owned(),
        "changes" => CHANGES.to_owned(),
        "hooks" => HOOKS.to_owned(),
        "rules" => rules_text(args.id.as_deref())?,
        verb => {
            let mut command = crate::Cli::command();
            let reference = kapi_host::agents::skills::topic(verb);
            match (command.find_subcommand_mut(verb), reference) {
                (Some(sub), reference) => {
                    let mut sub = sub.clone().bin_name(format!("kapi {verb}"));
                    let mut text = sub.render_long_help().to_string();
                    if let Some(reference) = reference {
                        text.push_str("\n────────\n\n");
                        text.push_str(&reference);
                    }
                    text
                }
                (None, Some(reference)) => reference,
                (None, None) => {
                    let mut valid: Vec<String> = GROUPS
                        .iter()
                        .flat_map(|(_, v)| v.iter().map(|v| (*v).to_owned()))
                        .collect();
                    valid.extend(TOPICS.iter().map(|(t, _)| (*t).to_owned()));
                    for (topic, _) in kapi_host::agents::skills::topics() {
                        if !valid.contains(&topic) {
                            valid.push(topic);
                        }
                    }
                    return Err(anyhow::Error::new(kapi_host::HostError::Usage {
                        message: format!("no help topic `{verb}`"),
                        hint: Some(format!("choose one of: {}", valid.join(", "))),
                    }));
                }
            }
        }
    };
    printer.emit(&HelpText {
        schema: "kapi.help/v1",
        topic: topic.to_owned(),
        text,
    })?;
    Ok(Outcome::Success)
}

/// What each kind of file is held to, the same at every entry point.
const CHECKED_WHERE: &str = "
What is checked where:
  A source document (and an edition in the source language) meets hygiene, terms and voice.
  A translation meets placeholders (against its source) and translation-terms (the terms of
  its language): a catalog's target file (a collection item's `target` template, such as
  locales/fr.json for locales/en.json) and a bilingual file's target editions (PO, XLIFF).
  Every entry point holds a file to the same checks: `kapi check` with no path, with the file
  or a folder that holds it, `--diff-against REV` (the changed blocks; a changed source block
  whose translations did not change is listed as stale, a note and not a failure), MCP
  `check_file`, the post-edit and stop hooks, and the commit check of `kapi apply` and
  `apply_edits` (a translation edited as its source's `\"edition\": \"fr\"` or as its own file).
";

/// How a finding the project allows where it stands is suppressed, and what the report says.
const SUPPRESSING: &str = "
Suppressing a finding where it is right (what eslint, textlint and markdownlint users type):
  <!-- kapi-disable-next-line RULE, … -->   the next line, and the first block after it (blank
                                            and comment lines between are fine: a PO `#:`)
  <!-- kapi-disable-line RULE, … -->        its own line
  <!-- kapi-disable RULE, … --> … <!-- kapi-enable RULE, … -->   a region (to the end of the
                                            file when never ended; `kapi-enable` alone ends all)
  No RULE means every rule; a RULE is a rule id or an analyzer (`terms`); ` -- ` starts a reason.
  One comment on one line, as the format writes comments: `<!-- -->` in Markdown, HTML and the
  XML formats, `{/* */}` in MDX-style Markdown, `#` in YAML, PO and properties (`!` there too),
  `..` in reStructuredText (`.. kapi-disable-next-line RULE`), `//` in AsciiDoc, the
  language's comment markers in source files. In a code block or inline code it is an
  example, not a directive. JSON, plain text and Word files have no comments.
  Also: a term's `exceptions:` in the terms file (phrases where it is allowed), and the recipe's
  `rules:` (paths a rule does not apply to; `kapi help files`).
  A suppressed finding is never dropped: the report counts it (`summary.suppressed`), `--json`
  lists each with what allowed it and the directive's line, SARIF marks it `suppressions`, and
  `kapi check --no-suppress` reports them all. A directive that suppressed nothing, or names no
  rule, is a finding (`suppress.unused-directive`; only the recipe's `rules:` sets it aside),
  except when the check saw part of the file (`--diff-against`, only its translations) or one
  analyzer. The commit check of `kapi apply` compares an edition before and after an edit: it
  honours term exceptions and `rules:`, not directives (an edit refused in a disabled region
  is one a person can land with `\"gate\": \"report\"`).
";

const VALE_RULES: &str = "
Vale styles: where a Vale configuration governs a file (`defaults.vale` or
  `profiles.<p>.vale` in kapi.yaml; outside a kapi project, the nearest `.vale.ini`), the
  rules of its styles are kapi rules too, each named `Style.Rule` (`Microsoft.Passive`), with
  Vale's message and the rule's `link`. Level to severity: error = major (fails the default
  gate, as Vale exits 1), warning = minor, suggestion = info. Run: existence, substitution,
  occurrence, repetition, consistency, conditional, capitalization, Vale.Terms, Vale.Avoid and
  Vale.Repetition, and metric and readability once per file (at 1:1, as Vale); not assessed
  (listed in the report's coverage with the reason): spelling, sequence, script, and a
  pattern with a variable-length lookbehind.
  `<!-- vale off -->`/`<!-- vale on -->` and `<!-- vale Style.Rule = NO -->`/`= YES` are
  honoured as kapi's directives are (`vale off` covers kapi's own rules too), and `kapi-disable
  Style.Rule` or `Style` works. `kapi check --format line` prints Vale's line output. More in
  `kapi help files` (Vale styles).
";

fn rules_text(id: Option<&str>) -> anyhow::Result<String> {
    let rules = kapi_core::check::analyzers::rule::all();
    match id {
        None => {
            let mut text =
                String::from("Rules `kapi check` reports (`kapi help rules ID` explains one):\n\n");
            let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
            for rule in rules {
                let severity = rule.severity.as_str();
                text.push_str(&format!("  {:<width$} {severity}\n", rule.id));
            }
            text.push_str(CHECKED_WHERE);
            text.push_str(SUPPRESSING);
            text.push_str(VALE_RULES);
            Ok(text)
        }
        Some(id) => match kapi_core::check::analyzers::rule::find(id) {
            Some(rule) => Ok(format!(
                "{} (default severity {})\n\n{}",
                rule.id,
                rule.severity.as_str(),
                rule.explanation
                    .lines()
                    .map(|l| l.strip_prefix(' ').unwrap_or(l))
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
            None => Err(anyhow::Error::new(kapi_host::HostError::Usage {
                message: format!("no rule `{id}`"),
                hint: Some("run `kapi help rules` to list them".into()),
            })),
        },
    }
}

/// `kapi help` with no topic: the verbs grouped by intent, and the topics.
pub fn print_overview(printer: &mut Printer) -> io::Result<()> {
    let command = crate::Cli::command();
    let mut text = String::from(
        "kapi: the project's own context (terms, voice, rules) for assistants and people\n\nUsage: kapi [OPTIONS] <COMMAND>\n",
    );
    for (group, verbs) in GROUPS {
        text.push_str(&format!("\n{group}:\n"));
        for verb in *verbs {
            let about = command
                .find_subcommand(verb)
                .and_then(|c| c.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default();
            text.push_str(&format!("  {verb:<10} {about}\n"));
        }
    }
    text.push_str("\nTopics (`kapi help TOPIC`):\n");
    for (topic, about) in TOPICS {
        text.push_str(&format!("  {topic:<12} {about}\n"));
    }
    text.push_str("\nSkill topics (`kapi help TOPIC`: how an assistant works with kapi):\n");
    for (topic, about) in kapi_host::agents::skills::topics() {
        text.push_str(&format!("  {topic:<16} {about}\n"));
    }
    text.push_str(
        "\nGlobal options: --json, -p/--project PATH, -q/--quiet, --color auto|always|never\n",
    );
    text.push_str("`kapi help COMMAND` or `kapi COMMAND --help` prints a command's options.\n");
    printer.emit(&HelpText {
        schema: "kapi.help/v1",
        topic: String::new(),
        text,
    })
}
