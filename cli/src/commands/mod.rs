//! Every verb: one `Command` enum and one `match`. Each verb lives in its own file.

pub mod apply;
pub mod cat;
pub mod check;
pub mod check_text;
pub mod context;
pub mod diff;
pub mod formats;
pub mod grep;
pub mod help;
pub mod hook;
pub mod init;
pub mod inspect;
pub mod mcp;
pub mod redact;
pub mod review;
pub mod rewrite;
pub mod schema;
pub mod sed;
pub mod stats;
pub mod toolbox;
pub mod translate;

use clap::Subcommand;

use crate::exit::Outcome;
use crate::printer::Printer;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Make this folder a kapi project: recipe, starter voice, terms and store
    ///
    /// Detects Markdown trees as collections and the source language, and writes the project's
    /// rules into a section of AGENTS.md and CLAUDE.md (`--no-rules-files` opts out). On a
    /// folder that already has a `kapi.yaml`, changes nothing you own and says what it kept.
    ///
    /// Exit codes: 0 the project is ready (every host wired, or left alone because its entry is
    /// someone else's); 1 the existing recipe is broken (nothing is written) or a rules file's
    /// kapi section cannot be read (not closed, two of them, a stray end: the file is left as it
    /// was, the line named); 1 too when a host was refused (its file malformed, its folder a
    /// link, its file read-only): that host is named with its file and position, the others
    /// are wired; 2 bad flags, or under `--strict` a recipe key kapi does not read (nothing is
    /// written).
    ///
    /// Then wires the agent hosts `--agents` names: each one's MCP entry and hooks, and SKILL.md
    /// alone in each skill folder (`kapi help <topic>` serves its references; a copy an earlier
    /// kapi left there is removed, one you changed is kept and named). A JSON file you keep
    /// (`.mcp.json`, `.vscode/mcp.json`, `.claude/settings.json`, …) may be JSONC: kapi inserts
    /// or updates its own entry in your indentation, and your comments, trailing commas and
    /// layout stay byte for byte. A second run writes nothing.
    ///
    /// host         files kapi writes                            hook events            verified
    /// claude-code  .mcp.json, .claude/settings.json,             PreToolUse,            real CLI
    ///              .claude/skills/kapi/                          PostToolUse, Stop      (2.1.332)
    /// codex        .codex/config.toml, .codex/hooks.json,        PreToolUse,            real CLI
    ///              .agents/skills/kapi/                          PostToolUse, Stop      (0.171.0)
    /// opencode     opencode.json, .opencode/plugins/kapi.js,     plugin before/after    real CLI
    ///              .agents/skills/kapi/                          an edit; no stop hook  (1.18.33)
    /// copilot      .mcp.json, .claude/settings.json (Claude      PreToolUse,            real CLI
    ///              Code's: it reads them), .agents/skills/kapi/  PostToolUse, Stop      (1.0.102)
    /// qwen         .qwen/settings.json (server and hooks),       PreToolUse,            real CLI
    ///              .agents/skills/kapi/                          PostToolUse, Stop      (0.24.4)
    /// gemini       .gemini/settings.json (server, hooks, and     BeforeTool,            real CLI
    ///              context files), .agents/skills/kapi/          AfterTool, AfterAgent  (0.61.0)
    /// factory      .factory/mcp.json, .factory/hooks.json,       PreToolUse,            real CLI
    ///              .agents/skills/kapi/                          PostToolUse, Stop      (0.215.0)
    /// kilo         kilo.jsonc, .kilo/plugin/kapi.js,             plugin before/after    real CLI
    ///              .agents/skills/kapi/                          an edit, session idle  (7.7.7)
    /// cursor       .cursor/mcp.json, .cursor/hooks.json,         preToolUse,            payload
    ///              .agents/skills/kapi/                          afterFileEdit, stop    tests
    /// windsurf     .windsurf/hooks.json, .agents/skills/kapi/;   pre_write_code,        payload
    ///              prints the MCP entry to paste (per user)      post_write_code        tests
    /// kiro         .kiro/settings/mcp.json, .kiro/hooks/         PreToolUse             payload
    ///              kapi.json, .kiro/skills/kapi/                                        tests
    /// crush        .crushrc (or the crush.json you keep),        PreToolUse             payload
    ///              .agents/skills/kapi/                                                 tests
    /// zed          .zed/settings.json, .agents/skills/kapi/      none (Zed has none)    format tests
    /// junie        .junie/mcp/mcp.json, .junie/skills/kapi/      none (per user only)   format tests
    /// amp          .amp/settings.json, .agents/skills/kapi/      none (code plugins)    format tests
    /// roo          .roo/mcp.json, .agents/skills/kapi/           none (Roo has none)    format tests
    /// cline        .agents/skills/kapi/; prints the MCP entry    none                   format tests
    /// goose        .agents/skills/kapi/; prints the extension    none                   format tests
    /// vscode       .vscode/mcp.json                              (Copilot: see copilot) format tests
    /// agents       .agents/skills/kapi/                          -                      (read by 17)
    /// kkss         .kkss/assistant/: mcp.json, hooks.json,       PreToolUse,            format tests
    ///              skills/kapi/, instructions.md                 PostToolUse, TurnEnd
    /// kiki         .kiki/mcp.json, .kiki/hooks.toml,             PreToolUse,            format tests
    ///              .agents/skills/kapi/                          PostToolUse, Stop
    ///
    /// "real CLI": `make e2e-hosts` runs that host from npm against a scripted model (MCP tools,
    /// a tool error, post-edit findings, a generated target's edit denied, the stop gate where
    /// there is one, the skill, the rules and the MCP instructions in the prompt, no kapi on
    /// PATH); "payload tests": kapi's tests send the host's documented payloads to the binary
    /// and read its answers as the host documents; "format tests": kapi's tests hold the files
    /// to the host's documented format. Cursor also runs Claude Code's hooks: kapi's stand aside
    /// there when .cursor/hooks.json runs its own.
    ///
    /// Every host also reads the rules in AGENTS.md (Claude Code through CLAUDE.md's
    /// `@AGENTS.md`; Junie once its guidelines path names it; Zed unless a file ahead of it
    /// in Zed's order exists, which init names). Each hook command a shell runs starts
    /// `command -v kapi … || exit 0`, so a teammate without kapi gets no hook error;
    /// `kapi help hooks` says what each host does.
    #[command(verbatim_doc_comment)]
    Init(init::InitArgs),
    /// The brief for a location, and the verbs that grow the project's context
    ///
    /// `kapi context PATH`: the voice, the terms to use and avoid, the notes kept for it, in
    /// Markdown (the same bytes an MCP client reads from `context://PATH`) or `kapi.context/v1`
    /// with `--json`; a path outside the project is refused (exit 1). For assistants: `search`,
    /// `note`, `log`. A person's: `review`, `reset`, `sync` (another actor is refused, exit 3).
    Context(context::ContextArgs),
    /// Check prose against the project's terms, voice and hygiene rules
    ///
    /// With no PATH inside a project, checks every file the collections declare. Folders are
    /// walked honouring `.gitignore` and the recipe's `exclude`. `--text FILE|-` checks a draft
    /// before it is saved, bound where it will be (`--context-path`) or to a profile
    /// (`--profile`); `--only voice|terms` gives one analyzer's report (MCP's `check_text`,
    /// `voice_check`, `term-check`). Exits 0 when the gate holds, 3 when it does not, 1 when a
    /// file or the project cannot be read, 2 on bad flags.
    Check(check::CheckArgs),
    /// Show a file's blocks as an assistant reads them, or verify it round-trips
    ///
    /// One record per block: its ref (doc, block key, edition), rev, role, text with inline
    /// codes as `<x id="…"/>` tags, the codes, plural branches, target editions (`--editions
    /// fr,de` or `*`) and the edits each accepts. A text view by default, JSON lines with
    /// `--jsonl`, one `kapi.blocks/v1` document with `--json`. `--verify` reads each file, writes
    /// it back in memory and exits 3 when any would not come back byte for byte (1 when one
    /// cannot be read).
    Inspect(inspect::InspectArgs),
    /// Apply a change set (`kapi.change/v1`) whole or not at all
    ///
    /// Every operation is checked before anything is written: each edit names the `rev` it read
    /// (`if_match`), keeps its inline codes and plural branches, and must introduce no failing
    /// finding. One refusal writes nothing. The actor comes from `KAPI_ACTOR` (`person` by
    /// default, `agent:NAME`, `tool:NAME`). Exits 0 applied or unchanged, 3 when an operation is
    /// refused, 2 when the set does not decode, 1 on I/O. `kapi help changes` explains the format.
    Apply(apply::ApplyArgs),
    /// Print the JSON Schema of an input kapi takes (`kapi schema change`)
    Schema(schema::SchemaArgs),
    /// Serve kapi to an editor or agent over MCP (stdio)
    ///
    /// Tool sets: `writing` (default: context_read, context_search, context_note,
    /// context_session_summary, check_file, read_blocks, apply_edits, describe_format, and the
    /// `context://` resources), `content`, `review`, `translation`, `all`. Every change set and
    /// note is recorded as an agent named by the client, in the host's session when the host
    /// hands it over (`CLAUDE_CODE_SESSION_ID`, `CODEX_THREAD_ID`), else one per server process. The
    /// session's row in the project's store opens at `initialize` with the client's name and
    /// every request moves it forward; a row not seen for 30 minutes ages out on the next write.
    Mcp(mcp::McpArgs),
    /// List the file formats kapi reads and what each can do
    ///
    /// `kapi formats describe FORMAT` (or `--path FILE`) gives one format in full: what it
    /// can do and each change operation it takes (MCP's `describe_format`). `kapi formats
    /// detect PATH` names the format kapi would read a file with and how it knows (the
    /// collection's declared format, the extension, or the first bytes where formats share
    /// it); `kapi formats detect -` judges a text on stdin by its content (MCP's
    /// `detect_format`). Paths are named from the working folder. Exits 0, 1 when no format
    /// has that id or reads the file, 2 on bad flags.
    Formats(formats::FormatsArgs),
    /// Mask emails, phone numbers, API keys and tokens as `[redacted:KIND]`
    ///
    /// Reads FILE (or standard input) and prints the text with each find masked, and nothing
    /// else, so it pipes; what was masked goes to stderr (`redacted: 1 email, 1 secret_key`).
    /// `--json` prints one `kapi.redact/v1` document: the text, each find with its kind and
    /// byte span, and every detector with what it finds. The same service as MCP's `redact`.
    /// Exits 0, 1 when the input cannot be read or is not UTF-8, 2 on bad flags.
    Redact(redact::RedactArgs),
    /// Swap discouraged terms in a text for the project's replacements
    ///
    /// Reads FILE (or standard input) and prints it with each forbidden, competitor or
    /// deprecated term replaced as the project says, cased like the words it replaces, and
    /// each product name written in another case (`terms.case`: `Github`) as the project
    /// writes it, and nothing else, so it pipes; what was swapped and what was left (a term
    /// with no replacement, split by markup, or allowed where it stands) goes to stderr. Never
    /// rephrases; code, addresses and what `kapi check` sets apart (a `kapi-disable…`
    /// comment, a term's `exceptions:`, the recipe's `rules:` for `--context-path`) are left
    /// alone. `--context-path` binds the terms where the text will be saved, `--profile` a
    /// profile's.
    /// `--json` prints one `kapi.voice-rewrite/v1` document. The same service as MCP's
    /// `voice_rewrite`. Exits 0, 1 when the input or project cannot be read, 2 on bad flags.
    Rewrite(rewrite::RewriteArgs),
    /// Per file: whether it reads, blocks, words, codes, and translation progress
    ///
    /// For each file named (folders walked as `kapi check` walks them; none: every file the
    /// collections declare): whether it reads (else `path:line:column: message`), its format,
    /// and per edition (the source and each target language) its blocks, words, characters,
    /// inline codes and plural/select switches, with each target's translated, missing
    /// (target file, key or text absent) and stale blocks (an untranslated copy, placeholders
    /// that differ from the source's, or marked fuzzy); then sums per format and language.
    /// A catalog's targets are the files its `target` template names; a bilingual file
    /// (XLIFF, PO) carries its own. `--json` prints `kapi.stats/v1`. `--plan` lists the
    /// missing and stale keys of each target file instead, with why each stale one is stale
    /// (`kapi.up-plan/v1`). The same services as MCP's `stats` and `up_plan`. Exits 0, 1 when
    /// a file does not read (the report is printed whole first) or the project cannot be
    /// read, 2 on bad flags.
    Stats(stats::StatsArgs),
    /// Print the prose of each block with its ref (`kcat`)
    ///
    /// One line per prose block: where it is (`doc:line`), its key, and its text as a reader
    /// sees it — markup gone, each placeholder as written, a plural as its cases. Code blocks
    /// are left out. `--editions fr,de` (or `*`) prints each translation under its block.
    /// `--json` prints `kapi.cat/v1`. A folder needs `-r`. Exits 0, 1 when a file cannot be
    /// read, 2 on bad flags.
    Cat(cat::CatArgs),
    /// Search the prose of blocks across formats (`kgrep`)
    ///
    /// Reports each match as `doc:line:col: key: text`, never inside markup or a placeholder:
    /// a phrase with a link in it is found, a pattern that would take in a placeholder is
    /// not. `-i`, `-w`, `-F`, `-l`, `-r` as grep's; `^` and `$` anchor to a block's prose.
    /// `--editions` searches translations too; `--json` prints `kapi.grep/v1`. Exits as grep:
    /// 0 a match, 1 none, 2 trouble.
    Grep(grep::GrepArgs),
    /// Substitute in the prose of blocks, through the change service (`ksed`)
    ///
    /// `s/FROM/TO/FLAGS` (FROM a regular expression; TO with `&` and `\1`; flags `g`, `i`,
    /// N) compiles into a `kapi.change/v1` set of `replace_text` operations guarded by each
    /// block's rev. `--print-ops` prints the set for `kapi apply`; without it the set is
    /// applied as `kapi apply` applies it (refused whole when an edit would drop a
    /// placeholder or break a term rule), in place; `-n` is a dry run with a diff. A match
    /// that takes in markup is left alone and named. Exits as `kapi apply`.
    Sed(sed::SedArgs),
    /// Compare two files block by block (`kdiff`)
    ///
    /// Each prose block added, removed or changed, by key, with its old and new text; blocks
    /// are lined up by their text, so an inserted paragraph does not mark every later one.
    /// `--rev REV FILE` compares a file with its version at a git revision. `--json` prints
    /// `kapi.diff/v1`. Exits as diff: 0 the same, 1 different, 2 trouble.
    Diff(diff::DiffArgs),
    /// Fill missing and stale translations with a provider
    ///
    /// For each named source catalog and target language (`--to fr,de`, default each
    /// catalog's): the translation file is written from the source's skeleton when missing,
    /// exact matches come from the content memory, the rest go to the provider `--provider`
    /// names (`providers:` in kapi.yaml; `pseudo` is built in) with the brief for the path,
    /// and every answer lands through the change service as `tool:<provider>`: placeholders
    /// guarded, the commit check run. A refused or failed block is reported; the rest land.
    /// `--dry-run` lists what would be sent; `--max-requests` caps the requests. Exits 0 all
    /// landed, 3 some refused, 1 some failed or the budget was spent, 2 on bad flags.
    Translate(translate::TranslateArgs),
    /// Fill every declared catalog's missing and stale translations (`kapi translate` over
    /// `kapi stats --plan`'s list)
    Up(translate::UpArgs),
    /// The drafts awaiting a person's review, or one in full; accept or reject one
    ///
    /// Lists drafts: target editions a tool or an agent wrote (`kapi translate`, `kapi up`, an
    /// assistant's `kapi apply`, as the store recorded them) that no person decided at their
    /// current rev, each with the source and target text, who wrote it and when, and the agents'
    /// advice. A translation a person wrote (by hand, or through kapi as `person`) is no
    /// draft; `--all` lists every undecided target edition. Narrow with `--doc`, `--lang`,
    /// `--actor` (`tool:pseudo`, `agent`, a name), `--since` (a date or RFC 3339 time) and
    /// `--limit`. `--block KEY --doc DOC --lang LANG` shows one in full: codes, who wrote it,
    /// when, the text it replaced, placeholder findings, every decision and advice. With it,
    /// `--accept` records a person's decision (outcome establish) and `--reject` writes back
    /// the text the draft replaced (emptied when it filled an empty target), each a change set
    /// through the change service like `kapi apply`. The same service as MCP's `review_queue`
    /// and `review_block`. Exits 0; 1 when the project or document cannot be read; 2 on bad
    /// flags, a bad `--since` or a `--reject` of what is no draft; 3 when the verdict is refused
    /// (an actor who is not a person, a stale rev, the commit check).
    Review(review::ReviewArgs),
    /// Run an assistant hook (post-edit, stop, pre-edit) for Claude Code, Codex, KKSS or Kiki
    ///
    /// Written into each host's hook configuration by `kapi init`. The host pipes its event
    /// JSON in; kapi answers the way that host reads a verdict (Claude Code and Codex: JSON on
    /// exit 0; KKSS and Kiki: exit 2 with the reason on stderr) and fails open: a hook that
    /// cannot evaluate allows the action and says so on stderr (and in a `systemMessage` where
    /// the host shows one). Never exits 1. `kapi help hooks` explains each host's protocol.
    Hook(hook::HookArgs),
    /// List the commands, or print a command's help or a topic
    Help(help::HelpArgs),
}

pub fn run(
    command: &Command,
    app: &kapi_host::App,
    printer: &mut Printer,
) -> anyhow::Result<Outcome> {
    match command {
        Command::Init(args) => init::run(args, app, printer),
        Command::Context(args) => context::run(args, app, printer),
        Command::Check(args) => check::run(args, app, printer),
        Command::Inspect(args) => inspect::run(args, app, printer),
        Command::Apply(args) => apply::run(args, app, printer),
        Command::Schema(args) => schema::run(args, app, printer),
        Command::Mcp(args) => mcp::run(args, app, printer),
        Command::Formats(args) => formats::run(args, app, printer),
        Command::Redact(args) => redact::run(args, app, printer),
        Command::Rewrite(args) => rewrite::run(args, app, printer),
        Command::Stats(args) => stats::run(args, app, printer),
        Command::Cat(args) => cat::run(args, app, printer),
        Command::Grep(args) => grep::run(args, app, printer),
        Command::Sed(args) => sed::run(args, app, printer),
        Command::Diff(args) => diff::run(args, app, printer),
        Command::Translate(args) => translate::run_translate(args, app, printer),
        Command::Up(args) => translate::run_up(args, app, printer),
        Command::Review(args) => review::run(args, app, printer),
        Command::Hook(args) => hook::run(args, app, printer),
        Command::Help(args) => help::run(args, app, printer),
    }
}
