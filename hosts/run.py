#!/usr/bin/env python3
"""kapi's wiring under the real host CLIs: `make e2e-hosts`.

Runs the real Claude Code, Codex, OpenCode, Copilot, Qwen Code, Gemini, droid (Factory) and Kilo
Code CLIs (pinned in hosts/package.json, installed by hosts/install.sh into hosts/node_modules)
against a scripted model on 127.0.0.1 (hosts/mock.py), each run with a throwaway HOME and a fresh
project where `kapi init --agents` was run for all of them, and checks what reached the model:
tool results, hook messages, the skill listing and the instructions. It also records what each
host puts in the environment of the commands it runs (issue 16, item 6).

Every check ends as one of:
  pass              it works
  expected failure  it fails the way a known, open issue says it does (the issue is named); when
                    the issue is fixed it passes and is reported as pass, with a note to drop the mark
  FAIL              anything else: the run exits 1
  info              a finding recorded for the report, never a failure

Usage: python3 hosts/run.py [--host NAME] [--scenario NAME] [--kapi PATH] [--keep]
Everything a run leaves is under hosts/work/ (cleared at the start of each run): per run the
project, the HOME, the host's stdout/stderr and every request the mock received; report.json sums up.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mock import AnthropicMock, Call, ChatMock, GeminiMock, OpenAIMock, Text  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODULES = HERE / "node_modules"
WORK = HERE / "work"

PASS, XFAIL, FAIL, INFO = "pass", "expected failure", "FAIL", "info"

# Variables of the caller's own environment that must not reach a host run: kapi's own (the
# Makefile exports KAPI_NO_PROJECT), and any host's or model's, so what a host adds is its own.
SCRUB = re.compile(r"^(KAPI_|CLAUDE|ANTHROPIC_|CODEX_|OPENAI_|OPENCODE|KILO|FACTORY_|DROID_|XDG_|AI_AGENT$|MCP_|NPM_CONFIG_|npm_)")
SECRET = re.compile(r"(TOKEN|SECRET|PASSWORD|API_KEY)", re.I)
SHELL_NOISE = {"PWD", "OLDPWD", "SHLVL", "_"}

HOST_TIMEOUT = 120  # seconds, one host process


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class Check:
    host: str
    scenario: str
    name: str
    status: str
    detail: str
    note: str = ""


@dataclass
class Ctx:
    host: "Host"
    scenario: str
    checks: list = field(default_factory=list)

    def add(self, name, status, detail, note=""):
        self.checks.append(Check(self.host.name, self.scenario, name, status, detail, note))

    def expect(self, name, ok, detail, xfail=None):
        """`xfail=(symptom_seen, why)`: a known failure. Without the symptom a failure is FAIL."""
        if ok:
            note = ""
            if xfail:
                note = f"expected to fail ({xfail[1]}) and passes now: drop the expected-failure mark"
            self.add(name, PASS, detail, note)
        elif xfail and xfail[0]:
            self.add(name, XFAIL, detail, xfail[1])
        else:
            self.add(name, FAIL, detail)

    def info(self, name, detail):
        self.add(name, INFO, detail)


# ---------------------------------------------------------------------------------------------
# Processes: every one is started in its own process group and ended by its PID


def run_bounded(argv, *, cwd, env, timeout, stdin=subprocess.DEVNULL, on_start=None):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    if on_start:
        on_start(p.pid)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _end_group(p.pid, signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            _end_group(p.pid, signal.SIGKILL)
            out, err = p.communicate()
    finally:
        # whatever the host left in its group (an MCP server, a hook) ends with it
        _end_group(p.pid, signal.SIGKILL)
    return p.returncode, out or "", err or "", timed_out, time.monotonic() - t0


def _end_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class McpWatcher:
    """While a host runs, finds the `kapi mcp` process it started (a descendant of the host's PID)
    and reads its command line, folder and environment from /proc, once."""

    def __init__(self):
        self.root = None
        self.found = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self, pid):
        self.root = pid
        self.thread.start()

    def _loop(self):
        while not self.stop.is_set() and self.found is None:
            try:
                self._scan()
            except Exception:
                pass
            self.stop.wait(0.05)

    def _scan(self):
        parent = {}
        for d in glob.glob("/proc/[0-9]*"):
            try:
                with open(d + "/stat") as f:
                    stat = f.read()
                parent[int(d[6:])] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        for pid in parent:
            q, seen = pid, 0
            while q in parent and q != self.root and seen < 64:
                q, seen = parent[q], seen + 1
            if q != self.root or pid == self.root:
                continue
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                if len(argv) < 2 or not argv[0].endswith(b"kapi") or argv[1] != b"mcp":
                    continue
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
                self.found = {
                    "argv": [a.decode() for a in argv if a],
                    "cwd": os.readlink(f"/proc/{pid}/cwd"),
                    "env": dict(e.decode("utf-8", "replace").split("=", 1) for e in env if b"=" in e),
                }
                return
            except OSError:
                continue

    def end(self):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(2)


# ---------------------------------------------------------------------------------------------
# The project


PROJECT_FILES = {
    "kapi.yaml": (
        "version: v1\nname: hosts\ndefaults:\n  source_language: en\n  target_languages: [fr]\n"
        "  terms_source: .kapi/terms.yaml\ncollections:\n  - path: \"docs/**/*.md\"\n"
        "  - name: app\n    content:\n      - path: \"i18n/en.json\"\n        target: \"i18n/{lang}.json\"\n        generated: true\n"
        "gates:\n  fail_on: major\n"
    ),
    ".kapi/terms.yaml": (
        "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n      - text: sign in\n        lang: en\n"
        "        status: preferred\n      - text: login\n        lang: en\n        status: forbidden\n"
        "        replacement: sign in\n"
    ),
    "docs/good.md": "# Guide\n\nUse the sign in page.\n",
    "docs/api/auth.md": "# API\n\nCall the sign in endpoint first.\n",
    "i18n/en.json": "{\"hello\": \"Hello\"}\n",
    "i18n/fr.json": "{\"hello\": \"Bonjour\"}\n",
}


def base_env(kapi_dir: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not SCRUB.match(k)}
    env["HOME"] = str(home)
    env["PATH"] = f"{kapi_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    env.pop("NO_COLOR", None)
    return env


def opencode_style_home(kapi_dir, home: Path, name: str, mock) -> dict:
    """The throwaway HOME of OpenCode and its fork Kilo Code: the mock as an
    OpenAI-compatible provider in `~/.config/<name>/<name>.json`, and the XDG folders."""
    config = home / ".config" / name
    config.mkdir(parents=True, exist_ok=True)
    (config / f"{name}.json").write_text(json.dumps({
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                              "options": {"baseURL": f"{mock.url}/v1", "apiKey": "dummy"},
                              "models": {"mock-model": {"name": "Mock model", "tool_call": True,
                                                        "limit": {"context": 200000, "output": 8000}}}}},
        "model": "mock/mock-model", "small_model": "mock/mock-model",
        "autoupdate": False, "share": "disabled"}))
    env = base_env(kapi_dir, home)
    env.update(XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".local/state"))
    return env


def make_project(where: Path, kapi: Path, kapi_dir: Path):
    where.mkdir(parents=True)
    for rel, text in PROJECT_FILES.items():
        p = where / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    env = base_env(kapi_dir, where.parent / "init-home")
    (where.parent / "init-home").mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(where)], check=True, env=env, timeout=30)
    rc, out, err, _, _ = run_bounded([str(kapi), "init", "--agents",
                                      "claude-code,codex,opencode,copilot,qwen,gemini,factory,kilo"],
                                     cwd=where,
                                     env=env, timeout=60)
    (where.parent / "kapi-init.txt").write_text(f"exit {rc}\n{out}\n{err}")
    return rc, out + err


def kapi_json(kapi: Path, kapi_dir: Path, project: Path, *args):
    """Runs kapi as a person at their terminal (no host variables) and decodes its --json output."""
    env = base_env(kapi_dir, project.parent / "init-home")
    rc, out, err, _, _ = run_bounded([str(kapi), *args, "--json"], cwd=project, env=env, timeout=60)
    try:
        return json.loads(out)
    except ValueError:
        return {"_rc": rc, "_out": out, "_err": err}


def mcp_instructions(kapi: Path, kapi_dir: Path, project: Path) -> str:
    """kapi's MCP `instructions`, read from the server itself as a host starts it."""
    env = base_env(kapi_dir, project.parent / "init-home")
    req = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "e2e-hosts", "version": "0"}}}) + "\n"
    p = subprocess.Popen([str(kapi), "mcp", "--project", "kapi.yaml"], cwd=project, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(req, timeout=20)
    except subprocess.TimeoutExpired:
        out = ""
    finally:
        _end_group(p.pid, signal.SIGKILL)
        p.wait()
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") == 1:
            return (msg.get("result") or {}).get("instructions") or ""
    return ""


# ---------------------------------------------------------------------------------------------
# What reached the model


def texts(obj) -> list:
    """Every string a request item carries as text (text, content, output; Gemini's tool result
    `error`), depth first."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, str) and k in ("text", "content", "output", "input", "error"):
                out.append(v)
            elif isinstance(v, (dict, list)):
                out.extend(texts(v))
    elif isinstance(obj, list):
        for v in obj:
            out.extend(texts(v))
    return out


@dataclass
class Run:
    host: str
    rc: int
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float
    requests: list
    session_id: str | None
    home: Path
    given_env: dict
    mcp: dict | None
    # Model turns a host's run spent before the scenario's own (droid: waiting for kapi's MCP
    # tools, see Factory); the scenario's turn 0 is the model's turn `skip`.
    skip: int = 0

    def main(self):
        return [r for r in self.requests if r.main and r.turn >= self.skip]

    def first_body_text(self) -> str:
        """The first main request: its JSON and, decoded, every text it carries."""
        m = self.main()
        if not m:
            return ""
        return json.dumps(m[0].body, ensure_ascii=False) + "\n" + "\n".join(texts(m[0].body))

    def feedback(self, turn: int) -> str:
        """What the host sent the model after the model's turn `turn` (0-based): tool results,
        hook messages, everything up to the model's next turn, from the last request made."""
        m = self.main()
        if not m:
            return ""
        body = m[-1].body
        turn += self.skip
        if self.host == "gemini":
            items, seen, out = body.get("contents", []), -1, []
            for it in items:
                if it.get("role") == "model":
                    seen += 1
                    if seen > turn:
                        break
                    continue
                if seen == turn:
                    out.append(it)
        elif self.host in ("claude-code", "opencode", "copilot", "qwen", "factory", "kilo"):
            items, seen, out = body.get("messages", []), -1, []
            for it in items:
                if it.get("role") == "assistant":
                    seen += 1
                    if seen > turn:
                        break
                    continue
                if seen == turn:
                    out.append(it)
        else:
            out, run, in_model = [], -1, False
            for it in body.get("input", []):
                t = it.get("type")
                model_item = t in ("function_call", "custom_tool_call", "local_shell_call", "reasoning") or (
                    t == "message" and it.get("role") == "assistant")
                if model_item and not in_model:
                    run += 1
                in_model = model_item
                if run > turn:
                    break
                if run == turn and not model_item:
                    out.append(it)
        return "\n".join(texts(out))

    def all_feedback(self) -> str:
        return "\n".join(self.feedback(t) for t in range(len(self.main())))


# ---------------------------------------------------------------------------------------------
# Hosts


def research_hooks(events, dump_dir: Path):
    """Hook entries (user level, in the throwaway HOME) that keep each hook's payload and env."""
    cmd = ('d="%s"; n="$(date +%%s%%N)-$$"; cat > "$d/payload-%s-$n.json"; env > "$d/env-%s-$n.txt"')
    return {ev: [{"hooks": [{"type": "command", "command": cmd % (dump_dir, ev, ev)}]}] for ev in events}


class Host:
    name = ""
    version = ""

    def __init__(self, bin_path: Path, kapi_dir: Path):
        self.bin = bin_path
        self.kapi_dir = kapi_dir

    def launch(self, argv, cwd: Path, env: dict, mock, home: Path, session_of) -> Run:
        """Runs the host under its deadline, finding the `kapi mcp` it starts; then stops the
        mock and reads the host's session id from its output (`session_of(stdout)`)."""
        watcher = McpWatcher()
        try:
            rc, out, err, to, secs = run_bounded(argv, cwd=cwd, env=env, timeout=HOST_TIMEOUT,
                                                 on_start=watcher.start)
        finally:
            watcher.end()
            mock.stop()
        try:
            sid = session_of(out)
        except (ValueError, AttributeError, TypeError):
            sid = None
        return Run(self.name, rc, out, err, to, secs, mock.requests, sid, home, env, watcher.found)


def json_lines(out: str):
    """Each JSON object of a host's line-by-line output."""
    for line in out.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            yield item


def last_value(key: str):
    """Reads a session id as the last JSON line of the output that names `key` gives it."""
    return lambda out: next((v for v in reversed([e.get(key) for e in json_lines(out)]) if v), None)


class ClaudeCode(Host):
    name = "claude-code"

    def mcp(self, tool, args):
        return Call(f"mcp__kapi__{tool}", args)

    def shell(self, cmd):
        return Call("Bash", {"command": cmd, "description": "run a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        return Call("Write", {"file_path": str(project / rel), "content": content})

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = AnthropicMock(script).start()
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        if research:
            dump = home / "research"
            dump.mkdir()
            (home / ".claude" / "settings.json").write_text(json.dumps(
                {"hooks": research_hooks(["SessionStart", "PreToolUse", "PostToolUse", "Stop"], dump)}))
        env = base_env(self.kapi_dir, home)
        env.update(ANTHROPIC_BASE_URL=mock.url, ANTHROPIC_API_KEY="dummy",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                   DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1")
        # -p loads the project's .mcp.json and .claude/settings.json hooks without a trust dialog;
        # --allowedTools answers the permission prompts -p cannot show (root refuses
        # --dangerously-skip-permissions).
        # hook_events: each hook's run (its exit code, its output) as a stream-json event.
        output = ["stream-json", "--verbose", "--include-hook-events"] if hook_events else ["json"]
        argv = [str(self.bin), "-p", prompt, "--output-format", *output,
                "--allowedTools", "mcp__kapi", "Bash", "Edit", "Write", "Read"]
        return self.launch(argv, cwd, env, mock, home,
                           last_value("session_id"))


class Codex(Host):
    name = "codex"

    def mcp(self, tool, args):
        return Call(tool, args, namespace="mcp__kapi")

    def shell(self, cmd):
        return Call("exec_command", {"cmd": cmd, "max_output_tokens": 20000})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        if old is None:
            body = "".join("+" + line + "\n" for line in content.splitlines())
            patch = f"*** Begin Patch\n*** Add File: {rel}\n{body}*** End Patch\n"
        else:
            minus = "".join("-" + line + "\n" for line in old.splitlines())
            plus = "".join("+" + line + "\n" for line in content.splitlines())
            patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n{minus}{plus}*** End Patch\n"
        return Call("apply_patch", patch, custom=True)

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = OpenAIMock(script).start()
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        # A person's own setup: the model provider, trust for this project, and kapi on PATH in
        # the login shell Codex runs commands in (Debian's /etc/profile resets PATH).
        (codex_home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "mock"\napproval_policy = "never"\n'
            'sandbox_mode = "workspace-write"\ncheck_for_update_on_startup = false\n\n'
            '[analytics]\nenabled = false\n\n'
            f'[model_providers.mock]\nname = "mock"\nbase_url = "{mock.url}/v1"\nwire_api = "responses"\n'
            'request_max_retries = 0\nstream_max_retries = 0\n\n'
            f'[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n')
        (home / ".bash_profile").write_text(f'export PATH="{self.kapi_dir}:$PATH"\n')
        if research:
            dump = home / "research"
            dump.mkdir()
            (codex_home / "hooks.json").write_text(json.dumps(
                {"hooks": research_hooks(["SessionStart", "PreToolUse", "PostToolUse", "Stop"], dump)}))
        env = base_env(self.kapi_dir, home)
        env["CODEX_HOME"] = str(codex_home)
        # --strict-config: a key of kapi's .codex/config.toml this Codex does not know fails the run.
        # --dangerously-bypass-hook-trust: Codex runs a project's hooks only once a person trusted
        # their exact content in the TUI (/hooks); exec has no such prompt and skips them silently.
        argv = [str(self.bin), "exec", "--json", "--strict-config"]
        argv += ["--dangerously-bypass-hook-trust"] if trust_hooks else []
        argv.append(prompt)
        return self.launch(argv, cwd, env, mock, home,
                           lambda out: next((e.get("thread_id") for e in json_lines(out) if e.get("type") == "thread.started"), None))


class OpenCode(Host):
    """OpenCode 1.x (`opencode-ai`): Chat Completions through an `@ai-sdk/openai-compatible`
    provider in the throwaway HOME's config; the project's `opencode.json` server and kapi's
    `.opencode/plugins/kapi.js` load with no approval step. It has no stop hook."""
    name = "opencode"

    def mcp(self, tool, args):
        return Call(f"kapi_{tool}", args)

    def shell(self, cmd):
        return Call("bash", {"command": cmd, "description": "run a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        return Call("write", {"filePath": str(project / rel), "content": content})

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = ChatMock(script).start()
        env = opencode_style_home(self.kapi_dir, home, "opencode", mock)
        env.update(OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1",
                   OPENCODE_DISABLE_LSP_DOWNLOAD="1", PWD=str(cwd))
        argv = [str(self.bin), "run", "--format", "json", "--model", "mock/mock-model", prompt]
        return self.launch(argv, cwd, env, mock, home,
                           last_value("sessionID"))


class Copilot(Host):
    """The GitHub Copilot CLI (`@github/copilot`), offline with a BYOK provider: Chat Completions
    from the mock, no GitHub login. It reads Claude Code's `.mcp.json` and runs the hooks in
    `.claude/settings.json` ("VS Code compatible" mode), only in a trusted folder."""
    name = "copilot"

    def mcp(self, tool, args):
        return Call(f"kapi-{tool}", args)

    def shell(self, cmd):
        return Call("bash", {"command": cmd, "description": "run a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        return Call("create", {"path": str(project / rel), "file_text": content})

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = ChatMock(script).start()
        # A person trusts the project folder once (a session started below it is inside it).
        (home / ".copilot").mkdir(parents=True, exist_ok=True)
        (home / ".copilot" / "config.json").write_text(json.dumps({"trusted_folders": [str(project)]}))
        env = base_env(self.kapi_dir, home)
        # The package extracts 235 MB at each start into XDG_CACHE_HOME: one cache for every run.
        env.update(COPILOT_PROVIDER_BASE_URL=f"{mock.url}/v1", COPILOT_PROVIDER_TYPE="openai",
                   COPILOT_PROVIDER_API_KEY="dummy", COPILOT_MODEL="gpt-4.1", COPILOT_OFFLINE="true",
                   COPILOT_AUTO_UPDATE="false", XDG_CACHE_HOME=str(WORK / "copilot-cache"),
                   TERM="xterm", CI="1")
        argv = [str(self.bin), "-p", prompt, "--trust-folder", "--allow-all-tools", "--allow-all-paths",
                "--allow-all-mcp-server-instructions", "--output-format", "json", "--no-auto-update",
                "--log-dir", str(home / "logs")]
        return self.launch(argv, cwd, env, mock, home,
                           last_value("sessionId"))


class GeminiFamily(Host):
    """Gemini CLI and its fork Qwen Code: the same shell and write tools."""

    def shell(self, cmd):
        return Call("run_shell_command", {"command": cmd, "description": "run a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        return Call("write_file", {"file_path": str(project / rel), "content": content})


class Qwen(GeminiFamily):
    """Qwen Code (`@qwen-code/qwen-code`): Chat Completions from `OPENAI_BASE_URL`, its memory
    side-agent off (it would send a second request with tools). It loads the project's
    `.qwen/settings.json` (kapi's server and hooks) with no trust step by default; its MCP tools
    are deferred (named in the first user message, called by name)."""
    name = "qwen"

    def mcp(self, tool, args):
        return Call(f"mcp__kapi__{tool}", args)

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = ChatMock(script).start()
        (home / ".qwen").mkdir(parents=True, exist_ok=True)
        (home / ".qwen" / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False}}))
        env = base_env(self.kapi_dir, home)
        env.update(OPENAI_BASE_URL=f"{mock.url}/v1", OPENAI_API_KEY="dummy", OPENAI_MODEL="mock-model",
                   QWEN_CODE_SUPPRESS_YOLO_WARNING="1", TERM="xterm", CI="1")
        argv = [str(self.bin), "-p", prompt, "--output-format", "json", "--yolo"]
        return self.launch(argv, cwd, env, mock, home,
                           lambda out: next((m.get("session_id") for m in reversed(json.loads(out)) if m.get("session_id")), None))


class Gemini(GeminiFamily):
    """Gemini CLI (`@google/gemini-cli`): the Gemini API from `GOOGLE_GEMINI_BASE_URL`, an API
    key, the folder trusted by `GEMINI_CLI_TRUST_WORKSPACE=true` (`--skip-trust` would drop the
    project's `.gemini/settings.json`)."""
    name = "gemini"

    def mcp(self, tool, args):
        return Call(f"mcp_kapi_{tool}", args)

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = GeminiMock(script).start()
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}))
        env = base_env(self.kapi_dir, home)
        env.update(GOOGLE_GEMINI_BASE_URL=mock.url, GEMINI_API_KEY="dummy",
                   GEMINI_CLI_TRUST_WORKSPACE="true", TERM="xterm", CI="1")
        argv = [str(self.bin), "-p", prompt, "--output-format", "json", "--yolo"]
        return self.launch(argv, cwd, env, mock, home,
                           lambda out: json.loads(out).get("session_id"))


# The ToolSearch queries that load kapi's deferred check_file in droid (see Factory.waiting), taken
# in turn: droid ends a session that repeats one tool call with the same arguments.
DROID_LOADS = ("select:kapi___check_file", "+kapi check_file")


def droid_waiting_turns(messages) -> int:
    """How many of a droid conversation's first model turns were Factory.waiting's: each a
    ToolSearch call with one of DROID_LOADS alone."""
    n = 0
    for m in messages or []:
        if not isinstance(m, dict) or m.get("role") != "assistant":
            continue
        calls = m.get("tool_calls") or []
        try:
            ok = bool(calls) and all((c.get("function") or {}).get("name") == "ToolSearch"
                                     and json.loads((c.get("function") or {}).get("arguments") or "{}")
                                     .get("query") in DROID_LOADS for c in calls)
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            break
        n += 1
    return n


class Factory(Host):
    """Factory's droid CLI (npm `droid`, its binary from `@factory/cli-linux-x64`): a BYOK custom
    model in the throwaway HOME's `~/.factory/settings.json` (`generic-chat-completion-api`: Chat
    Completions from the mock), no login. `droid exec --auto low` (below `low` no Edit or Create
    tool is offered). The project's `.factory/mcp.json` and `.factory/hooks.json` load with no
    approval step; kapi's tools are deferred: named in a system reminder, loaded with ToolSearch
    (`select:kapi___check_file`), called as `kapi___<tool>`."""
    name = "factory"
    WAIT_TURNS, WAIT_SECONDS = 40, 0.5

    def mcp(self, tool, args):
        return Call(f"kapi___{tool}", args)

    def shell(self, cmd):
        return Call("Execute", {"summary": "run a command", "command": cmd, "riskLevel": "low",
                                "riskLevelReason": "runs a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        if old is None:
            return Call("Create", {"file_path": str(project / rel), "content": content})
        return Call("Edit", {"file_path": str(project / rel), "old_str": old, "new_str": content,
                             "change_all": False})

    def waiting(self, script):
        """`droid exec` sends its first request without waiting for its MCP servers to start (in
        6 of 9 hand runs the first requests lacked kapi's tools; a real model's latency hides it),
        and ToolSearch answers "Not found" for a server not yet connected. So the scripted model
        first loads kapi's check_file with ToolSearch, again every WAIT_SECONDS (the queries of
        DROID_LOADS in turn) until the request offers it, at most WAIT_TURNS turns, then plays the
        scenario's script; the run's `skip` counts those turns. Without kapi on PATH there is
        nothing to wait for."""
        if not (self.kapi_dir / "kapi").exists():
            return script

        def wait_then(turn, body):
            offered = any((t.get("function") or {}).get("name") == "kapi___check_file"
                          for t in body.get("tools") or [])
            waited = droid_waiting_turns(body.get("messages"))
            if offered or turn > waited or waited >= self.WAIT_TURNS:
                return script(turn - waited, body)
            if waited:
                time.sleep(self.WAIT_SECONDS)
            return [Call("ToolSearch", {"query": DROID_LOADS[waited % len(DROID_LOADS)]})]
        return wait_then

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = ChatMock(self.waiting(script)).start()
        (home / ".factory").mkdir(parents=True, exist_ok=True)
        (home / ".factory" / "settings.json").write_text(json.dumps({"customModels": [{
            "model": "mock-model", "displayName": "Mock", "baseUrl": f"{mock.url}/v1", "apiKey": "dummy",
            "provider": "generic-chat-completion-api"}]}))
        env = base_env(self.kapi_dir, home)
        env.update(TERM="dumb", FACTORY_AIRGAP_ENABLED="1")
        argv = [str(self.bin), "exec", "--auto", "low", "--model", "custom:Mock-0", "--output-format", "json",
                prompt]
        run = self.launch(argv, cwd, env, mock, home, lambda out: json.loads(out).get("session_id"))
        last = [r for r in run.requests if r.main]
        run.skip = droid_waiting_turns(last[-1].body.get("messages")) if last else 0
        return run


class Kilo(Host):
    """Kilo Code's CLI 7.x (npm `@kilocode/cli`, an OpenCode fork; its binary from
    `@kilocode/cli-linux-x64`): Chat Completions through an `@ai-sdk/openai-compatible` provider
    in the throwaway HOME's `~/.config/kilo/kilo.json`, merged with the project's `kilo.jsonc`
    that kapi wrote (its `mcp.kapi`). kapi's `.kilo/plugin/kapi.js` loads with no approval step:
    pre-edit and post-edit around the edit tools, and the stop on `session.idle`, whose block it
    sends as the session's next message (`client.session.promptAsync`)."""
    name = "kilo"

    def mcp(self, tool, args):
        return Call(f"kapi_{tool}", args)

    def shell(self, cmd):
        return Call("bash", {"command": cmd, "description": "run a command"})

    def write(self, project: Path, rel: str, content: str, old: str | None = None):
        if old is None:
            return Call("write", {"filePath": str(project / rel), "content": content})
        return Call("edit", {"filePath": str(project / rel), "oldString": old, "newString": content})

    def run(self, project: Path, cwd: Path, home: Path, prompt: str, script, research=False,
            trust_hooks=True, hook_events=False) -> Run:
        mock = ChatMock(script).start()
        env = opencode_style_home(self.kapi_dir, home, "kilo", mock)
        env.update(KILO_DISABLE_MODELS_FETCH="1", KILO_DISABLE_AUTOUPDATE="1",
                   KILO_DISABLE_LSP_DOWNLOAD="1", KILO_TELEMETRY_LEVEL="off",
                   KILO_DISABLE_CODEBASE_INDEXING="1", KILO_DISABLE_SESSION_INGEST="1", PWD=str(cwd))
        argv = [str(self.bin), "run", "--format", "json", "--model", "mock/mock-model", prompt]
        return self.launch(argv, cwd, env, mock, home, last_value("sessionID"))


def find_hosts(kapi_dir: Path) -> dict:
    hosts = {}
    native = sorted(glob.glob(str(MODULES / "@anthropic-ai" / "claude-code-*" / "claude")))
    claude = Path(native[0]) if native else MODULES / ".bin" / "claude"
    codex = MODULES / ".bin" / "codex"  # the npm wrapper, as `npm i -g @openai/codex` runs it
    # OpenCode's Linux x64 binary package itself (`opencode-ai` pins every platform's, which
    # this registry does not all hold, so its lock cannot be installed with `npm ci`).
    opencode = MODULES / "opencode-linux-x64" / "bin" / "opencode"
    copilot = MODULES / ".bin" / "copilot"
    qwen = MODULES / ".bin" / "qwen"
    gemini = MODULES / ".bin" / "gemini"
    droid = MODULES / ".bin" / "droid"
    kilo = MODULES / ".bin" / "kilo"
    for cls, path in ((ClaudeCode, claude), (Codex, codex), (OpenCode, opencode), (Copilot, copilot),
                      (Qwen, qwen), (Gemini, gemini), (Factory, droid), (Kilo, kilo)):
        h = cls(path, kapi_dir)
        try:
            v = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30,
                               env=base_env(kapi_dir, WORK), stdin=subprocess.DEVNULL)
            h.version = (v.stdout or v.stderr).strip().splitlines()[-1] if v.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            h.version = ""
        hosts[h.name] = h
    return hosts


# ---------------------------------------------------------------------------------------------
# Scenarios: each names where the host starts, the model's turns, and the checks


def script_of(steps):
    def script(turn, body):
        return [steps[turn]] if turn < len(steps) else [Text("Done.")]
    return script


def common_checks(ctx: Ctx, run: Run):
    if run.timed_out:
        ctx.add("host finished", FAIL, f"timed out after {HOST_TIMEOUT}s; stderr: {run.stderr[-800:]}")
    elif run.rc != 0:
        ctx.add("host finished", FAIL, f"exit {run.rc}; stderr: {run.stderr[-1500:]}")
    if not run.main():
        ctx.add("model reached", FAIL, f"the mock got no main request; stderr: {run.stderr[-1500:]}")
        return False
    return True


def mcp_listed(run: Run) -> bool:
    body = run.first_body_text()
    name = {"claude-code": "mcp__kapi__check_file", "opencode": "kapi_check_file",
            "copilot": "kapi-check_file", "qwen": "mcp__kapi__check_file",
            "gemini": "mcp_kapi_check_file", "factory": "kapi___check_file",
            "kilo": "kapi_check_file"}.get(run.host, "mcp__kapi")
    return name in body




def sc_mcp_root(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project, "Check docs/good.md.", [host.mcp("check_file", {"path": "docs/good.md"})])
    if not common_checks(ctx, run):
        return run
    ctx.expect("kapi's MCP tools offered to the model", mcp_listed(run),
               "check_file (Claude Code: mcp__kapi__check_file; Codex: namespace mcp__kapi) in the first request")
    if host.name == "factory":
        everything = [r for r in run.requests if r.main]
        first = json.dumps(everything[0].body.get("messages", [])) if everything else ""
        ctx.info("droid's first request names kapi's tools (droid exec starts MCP servers in the background)",
                 f"{'kapi___check_file' in first}; the model waited {run.skip} turn(s) for them "
                 "(`\"blockOnMcpLoad\": true` in ~/.factory/settings.json makes droid exec wait)")
    fb = run.feedback(0)
    ok = "kapi.check/v1" in fb and '"pass":true' in fb.replace(" ", "")
    ctx.expect("check_file answers from the project root", ok, _clip(fb))
    return run


def sc_mcp_subfolder(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project / "docs" / "api", "Check docs/api/auth.md.",
                     [host.mcp("check_file", {"path": "docs/api/auth.md"})])
    if not common_checks(ctx, run):
        return run
    if host.name in ("copilot", "qwen", "gemini"):
        # The Copilot CLI (1.0.102), Qwen Code (0.24.4) and Gemini CLI (0.61.0) read a
        # workspace's MCP file (`.mcp.json`, `.qwen/settings.json`, `.gemini/settings.json`) only
        # in the folder they start in: a session started below the project's root has no kapi
        # tools. A note, so a change is seen.
        ctx.add(f"{host.name} started in docs/api offers kapi's tools", INFO,
                f"offered: {mcp_listed(run)} (start it at the project's root)")
        return run
    ctx.expect("kapi's MCP server connected from docs/api", mcp_listed(run), "the host found the project's wiring")
    fb = run.feedback(0)
    ok = "kapi.check/v1" in fb and '"pass":true' in fb.replace(" ", "")
    # Issue 16 item 1: the host starts `kapi mcp --project kapi.yaml` in docs/api; the relative
    # recipe is found from there up to the repository's root.
    ctx.expect("check_file answers from a subfolder (docs/api)", ok, _clip(fb))
    return run


def sc_mcp_error(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project, "Check docs/missing.md.", [host.mcp("check_file", {"path": "docs/missing.md"})])
    if not common_checks(ctx, run):
        return run
    fb = run.feedback(0)
    # A tool error is kapi's JSON as text with no structuredContent: a host that validates
    # structured content against the declared outputSchema hands the model kapi's message,
    # not "Structured content does not match the tool's output schema".
    ok = "no such file" in fb and "docs/missing.md" in fb and "output schema" not in fb
    if host.name == "gemini":
        # Gemini CLI 0.61 answers kapi's tool error (`isError`, no structuredContent) with its
        # own "Structured content does not match the tool's output schema": a note until it is
        # understood, so a change either way is seen.
        ctx.add("Gemini CLI hands the model kapi's tool error", INFO, f"{ok}: {_clip(fb)}")
        return run
    ctx.expect("a tool error reaches the model as kapi's message", ok, _clip(fb))
    return run


def sc_post_edit(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project, "Write docs/new.md.",
                     [host.write(project, "docs/new.md", "# New\n\nUse the login page.\n")])
    if not common_checks(ctx, run):
        return run
    written = (project / "docs/new.md").exists()
    fb = run.feedback(0)
    ok = written and "terms.forbidden" in fb and "docs/new.md" in fb
    ctx.expect("post-edit hook's findings reach the model after the edit", ok,
               f"file written: {written}; next request: {_clip(fb)}")
    if host.name == "opencode":  # no stop hook: nothing holds the session
        return run
    later = "\n".join(run.feedback(t) for t in range(1, len(run.main())))
    ctx.expect("stop hook keeps the model working while the session's finding is there",
               "introduced 1 failing finding" in later and "terms.forbidden" in later, _clip(later))
    return run


def failures_before_the_session(env):
    """Failures that were there before the session: one committed, one a person's uncommitted
    change."""
    project = env["project"]
    (project / "docs/bad.md").write_text("# Bad\n\nUse the login page.\n")
    genv = base_env(env["kapi_dir"], project.parent / "init-home")
    ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "-c", "commit.gpgsign=false"]
    for args in (["add", "-A"], ["commit", "-q", "-m", "before the session"]):
        subprocess.run(["git", *ident, *args], cwd=project, env=genv, check=True, timeout=30,
                       capture_output=True)
    (project / "docs/good.md").write_text("# Guide\n\nUse the login page, for now.\n")


def sc_answer_only(ctx, env):
    """Issue 38 item 9: a session that only answers a question, in a project with failures that
    were there before it, is not held at its stop; the stop says once, without blocking, that
    the project has other failures."""
    host, project = ctx.host, env["project"]
    failures_before_the_session(env)
    run = env["run"](project, "What does this project document?", [])
    if not common_checks(ctx, run):
        return run
    later = "\n".join(run.feedback(t) for t in range(len(run.main())))
    held = len(run.main()) > 1 or "docs/bad.md:3" in later or "Fix these before you finish" in later
    ctx.expect("the stop hook does not hold a session that edited nothing", not held,
               f"{len(run.main())} model request(s); after the answer: {_clip(later)}")
    states = sorted((project / ".kapi/work/hooks").glob("*.json"))
    told = [p.name for p in states if '"reported"' in p.read_text()]
    if host.name != "opencode":  # OpenCode has no stop hook to run
        ctx.expect("the stop hook ran and said once that the project has other failures", bool(told),
                   f"session state: {[p.name for p in states] or 'none'}")
    ship = kapi_json(env["kapi"], env["kapi_dir"], project, "check", "--ship")
    ctx.expect("`kapi check --ship` still fails on them", ship.get("pass") is False,
               f"pass {ship.get('pass')!r}, failed {((ship.get('gate') or {}).get('failed'))!r}")
    return run


def sc_own_finding(ctx, env):
    """Issue 38 item 9: in the same project, a session that writes a failing file is held for
    that file alone (the block's reason names it, not the failures that were there before), with
    the project's other failures as a systemMessage beside the block."""
    host, project = ctx.host, env["project"]
    failures_before_the_session(env)
    run = env["run"](project, "Write docs/new.md.",
                     [host.write(project, "docs/new.md", "# New\n\nUse the login page.\n")])
    if not common_checks(ctx, run):
        return run
    later = "\n".join(run.feedback(t) for t in range(1, len(run.main())))
    ok = "introduced 1 failing finding" in later and "docs/new.md:3:9" in later
    ctx.expect("the stop hook holds the session to the finding it introduced", ok, _clip(later))
    ctx.expect("the stop's reason names no finding that was there before",
               "docs/bad.md" not in later and "docs/good.md:3" not in later, _clip(later))
    return run


def sc_pre_edit(ctx, env):
    host, project = ctx.host, env["project"]
    before = (project / "i18n/fr.json").read_text()
    run = env["run"](project, "Fix the French greeting.",
                     [host.write(project, "i18n/fr.json", "{\"hello\": \"Salut\"}\n", old=before)])
    if not common_checks(ctx, run):
        return run
    after = (project / "i18n/fr.json").read_text()
    fb = run.feedback(0)
    ok = after == before and "i18n/en.json" in fb and ("kapi apply" in fb or "apply_edits" in fb)
    ctx.expect("pre-edit hook denies the edit of a generated target (i18n/fr.json)", ok,
               f"file unchanged: {after == before}; next request: {_clip(fb)}")
    return run


def _section(path: Path) -> str:
    text = path.read_text() if path.exists() else ""
    m = re.search(r"<!-- kapi:rules -->\n(.*?)<!-- /kapi:rules -->", text, re.S)
    return m.group(1) if m else ""


def _skill_description(project: Path, rel: str) -> str:
    text = (project / rel).read_text() if (project / rel).exists() else ""
    m = re.search(r"^description:\s*['\"]?(.*?)['\"]?\s*$", text, re.M)
    return m.group(1) if m else ""


def sc_listing(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project, "Hello.", [])
    if not common_checks(ctx, run):
        return run
    body = run.first_body_text()
    skill_file = ".claude/skills/kapi/SKILL.md" if host.name == "claude-code" else ".agents/skills/kapi/SKILL.md"
    desc = _skill_description(project, skill_file)[:80]
    # Claude Code and Codex list `- kapi: …`; droid `kapi: …`; OpenCode, Copilot, Qwen Code, Gemini
    # and Kilo `<skill><name>kapi</name>…`. (At a line's start: AGENTS.md's `<!-- kapi:rules -->`
    # holds `- kapi:` too.)
    if host.name in ("opencode", "copilot", "gemini", "kilo", "qwen"):
        named = re.search(r"<name>\s*kapi\s*</name>", body) is not None
    else:
        named = re.search(r"(?m)^kapi: " if host.name == "factory" else r"(?m)^- kapi: ", body) is not None
    # Copilot writes the description as XML (`project&apos;s`).
    listed = desc in body or desc.replace("'", "&apos;") in body
    ctx.expect("the kapi skill is listed to the model", bool(desc) and named and listed,
               f"kapi with `{desc}…` from {skill_file}")
    # One copy of the rules: Claude Code reads AGENTS.md's section through CLAUDE.md's import.
    rules_file = "AGENTS.md"
    via = " (through CLAUDE.md's `@AGENTS.md`)" if host.name == "claude-code" else ""
    if host.name == "claude-code":
        claude = (project / "CLAUDE.md").read_text()
        ctx.expect("CLAUDE.md is the import of AGENTS.md alone", claude == "@AGENTS.md\n", repr(claude[:80]))
    lines = [ln for ln in _section(project / rules_file).splitlines() if ln.strip() and "login" in ln]
    ctx.expect(f"kapi's rules section of {rules_file} reaches the model{via}", bool(lines) and lines[0] in body,
               f"line {lines[0]!r}" if lines else f"no rules section with the forbidden term in {rules_file}")
    instr = env["instructions"]
    head = instr.split(".")[0] if instr else ""
    if host.name == "factory":
        # droid 0.215.0 never reads an MCP server's `instructions` (its MCP client's
        # getInstructions() has no caller): not in the prompt, the deferred-tools reminder or
        # ToolSearch's answer. A note, so a change is seen.
        ctx.add("droid hands the model kapi's MCP instructions", INFO,
                f"{bool(head) and head in body}: droid 0.215.0 does not pass a server's instructions on")
        return run
    ctx.expect("kapi's MCP instructions reach the model", bool(head) and head in body,
               f"{head!r}" + ("" if host.name == "claude-code" else " (Codex: as the mcp__kapi namespace's description)"))
    return run


ENV_BEGIN, ENV_END = "<<<kapi-e2e-env", "kapi-e2e-env>>>"


def sc_shell_note(ctx, env):
    host, project = ctx.host, env["project"]
    text = f"Writes 'Sign in' with a capital S (e2e-hosts, {host.name})"
    steps = [
        host.shell(f"echo '{ENV_BEGIN}'; env; echo '{ENV_END}'"),
        host.shell(f"kapi context note --path docs --text \"{text}\" --json"),
        host.shell("kapi context log --session this --json"),
    ]
    run = env["run"](project, "Record what you noticed.", steps, research=True)
    if not common_checks(ctx, run):
        return run
    # what the host put in the environment of the command it ran (issue 16 item 6)
    seen = parse_env(run.feedback(0))
    ctx.expect("the shell tool ran `env`", bool(seen), _clip(run.feedback(0)))
    if seen:
        check_shell_markers(ctx, run, seen)
    env["research"]["shell_env"] = env_diff(run.given_env, seen)
    env["research"]["session_id"] = run.session_id
    env["research"].update(hook_research(run))
    if run.mcp:
        env["research"]["mcp_server"] = {"argv": run.mcp["argv"], "cwd": run.mcp["cwd"],
                                         "env": env_diff(run.given_env, run.mcp["env"])}
    # the note, as the person sees it afterwards
    note_out = run.feedback(1)
    ctx.expect("`kapi context note` from the host's shell records the note", '"recorded"' in note_out
               or '"status":"recorded"' in note_out.replace(" ", ""), _clip(note_out))
    log = kapi_json(env["kapi"], env["kapi_dir"], project, "context", "log")
    entry = next((e for e in log.get("entries", []) if e.get("kind") == "note"
                  and (e.get("evidence") or {}).get("text") == text), None)
    actor = entry.get("actor") if entry else None
    session = entry.get("session") if entry else None
    # Issue 16 item 6: the host's own marker in its shell makes the note the agent's.
    ctx.expect(f"the shell note is recorded as agent:{host.name}", actor == f"agent:{host.name}",
               f"actor {actor!r}")
    sid = run.session_id or ""
    log_this = run.feedback(2)
    listed = text in log_this
    ctx.expect("`kapi context log --session this`, run next in the same host session, lists the note", listed,
               f"note session {session!r}, host session {sid!r}; log: {_clip(log_this, 300)}")
    # The note is in the host's own session: kapi reads the id from the variable the host
    # exports to its shell (host/src/env.rs HOST_MARKERS) and records it as `<host>:<id>`.
    want = f"{host.name}:{sid}" if sid else None
    ctx.expect("the shell note is recorded in the host's own session", bool(sid) and session == want,
               f"note session {session!r}; expected {want!r} (the host's session id {sid!r})")
    return run


# What each host exports to its shell tool's commands, as kapi's HOST_MARKERS (host/src/env.rs)
# reads it: the marker that makes a command the host's agent, and the variable carrying the
# host's own session id (the id the host reports: Claude Code's `session_id`, Codex's
# `thread.started` thread id).
SHELL_MARKERS = {"claude-code": ("CLAUDECODE", "CLAUDE_CODE_SESSION_ID"),
                 "codex": ("CODEX_THREAD_ID", "CODEX_THREAD_ID"),
                 "copilot": ("COPILOT_CLI", "COPILOT_AGENT_SESSION_ID"),
                 "qwen": ("QWEN_CODE", "QWEN_CODE_SESSION_ID")}


def check_shell_markers(ctx, run: Run, seen: dict):
    marker, session_var = SHELL_MARKERS[ctx.host.name]
    sid = run.session_id or ""
    ok = bool(seen.get(marker)) and bool(sid) and seen.get(session_var) == sid
    names = f"{marker} (its session id)" if marker == session_var else f"{marker} and {session_var} (its session id)"
    ctx.expect(f"the host's shell sets {names}, as kapi reads them", ok,
               f"{marker}={seen.get(marker)!r}, {session_var}={seen.get(session_var)!r}; host session {sid!r}")


def parse_env(text: str) -> dict:
    # The output's marker ends its line; a host that echoes the command (Qwen Code) names it
    # first, inside the command.
    begin = ENV_BEGIN + "\n"
    if begin not in text:
        return {}
    body = text.split(begin, 1)[1].split(ENV_END, 1)[0]
    out = {}
    for line in body.splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def env_diff(given: dict, seen: dict) -> dict:
    """What a host added to or changed in the environment it was started with."""
    out = {}
    for k, v in sorted(seen.items()):
        if k in SHELL_NOISE or given.get(k) == v:
            continue
        if k in given and k == "PATH":
            v = v.replace(given[k], "$PATH")
        out[k] = "<redacted>" if SECRET.search(k) and k not in given else v
    removed = sorted(k for k in given if k not in seen and k not in SHELL_NOISE)
    if removed:
        out["(removed)"] = " ".join(removed)
    return out


def hook_research(run: Run) -> dict:
    dump = run.home / "research"
    out = {}
    for f in sorted(dump.glob("payload-*.json")) if dump.exists() else []:
        event = f.name.split("-")[1]
        try:
            payload = json.loads(f.read_text() or "{}")
        except ValueError:
            continue
        key = f"hook_payload_{event}"
        if key not in out:
            out[key] = {k: (v if k in ("session_id", "hook_event_name", "source", "turn_id", "model",
                                       "permission_mode", "tool_name", "cwd", "transcript_path") else "…")
                        for k, v in payload.items()}
        envf = f.with_name(f.name.replace("payload-", "env-").replace(".json", ".txt"))
        if f"hook_env_{event}" not in out and envf.exists():
            seen = dict(line.split("=", 1) for line in envf.read_text().splitlines() if "=" in line
                        and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", line))
            out[f"hook_env_{event}"] = env_diff(run.given_env, seen)
    return out


def _clip(s: str, n: int = 600) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n] + "…"


def sc_codex_untrusted_hooks(ctx, env):
    host, project = ctx.host, env["project"]
    run = env["run"](project, "Write docs/new.md.",
                     [host.write(project, "docs/new.md", "# New\n\nUse the login page.\n")], trust_hooks=False)
    if not common_checks(ctx, run):
        return run
    fb = run.all_feedback()
    said = [ln for ln in run.stderr.splitlines() if "hook" in ln.lower()]
    for line in run.stdout.splitlines():
        try:
            item = json.loads(line).get("item") or {}
        except ValueError:
            continue
        if item.get("type") == "error" and "hook" in str(item.get("message", "")).lower():
            said.append(item["message"])
    ctx.info("kapi's project hooks without a person's /hooks review (no --dangerously-bypass-hook-trust)",
             f"post-edit block reached the model: {'terms.forbidden' in fb}; what Codex said about hooks: "
             f"{_clip(' | '.join(said), 400) or 'nothing'}")
    return run


def sc_no_kapi(ctx, env):
    """Issue 40 item 3: a teammate without kapi. The host runs with no `kapi` anywhere on PATH,
    in a project whose committed files run kapi's hooks and server; the edit lands, and no hook
    error reaches the person (the host's output) or the model."""
    host, project = ctx.host, env["project"]
    empty = project.parent / "no-kapi-bin"
    empty.mkdir(exist_ok=True)
    saved_dir, saved_path = host.kapi_dir, os.environ.get("PATH", "")
    os.environ["PATH"] = ":".join(d for d in saved_path.split(":") if d and not (Path(d) / "kapi").exists())
    host.kapi_dir = empty
    try:
        run = env["run"](project, "Write docs/new.md.",
                         [host.write(project, "docs/new.md", "# New\n\nUse the login page.\n")],
                         hook_events=True)
    finally:
        host.kapi_dir, os.environ["PATH"] = saved_dir, saved_path
    if not common_checks(ctx, run):
        return run
    written = (project / "docs/new.md").exists()
    seen = run.stdout + "\n" + run.stderr + "\n" + "\n".join(run.feedback(t) for t in range(len(run.main())))
    # A hook that failed to start says so: `kapi: not found`, exit 127.
    lines = [ln[:300] for ln in seen.splitlines()
             if "hook" in ln.lower() and any(w in ln for w in ("not found", " 127", ":127", "exit code 127"))]
    # Claude Code reports each hook's run (--include-hook-events): every one ends 0, silent.
    for line in run.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict) and ev.get("subtype") == "hook_response" and (
                str(ev.get("exit_code")) != "0" or ev.get("stderr") or ev.get("outcome") != "success"):
            lines.append(f"{ev.get('hook_name')}: exit {ev.get('exit_code')}, {ev.get('stderr', '')[:120]}")
    ctx.expect("without kapi on PATH the edit lands and no hook error reaches the person or the model",
               written and not lines, f"written: {written}; hook lines: {_clip(chr(10).join(lines))}")
    return run


SCENARIOS = {
    "mcp-root": ("(a) MCP connected; check_file from the project root", sc_mcp_root),
    "mcp-subfolder": ("(b) check_file from a session started in docs/api", sc_mcp_subfolder),
    "mcp-error": ("(b2) a tool error (check_file of a missing file) reaches the model as kapi's message", sc_mcp_error),
    "post-edit": ("(c) the post-edit hook's block reaches the model", sc_post_edit),
    "pre-edit": ("(d) the pre-edit hook denies a generated target's edit", sc_pre_edit),
    "answer-only": ("(c2) a session that only answers is not held by failures that were there before it",
                    sc_answer_only),
    "own-finding": ("(c3) a session is held for the finding it introduced, not for the others", sc_own_finding),
    "listing": ("(e) the skill, the rules section and the MCP instructions reach the model", sc_listing),
    "shell-note": ("(f) a note from the host's shell: actor, session, and the env the host sets", sc_shell_note),
    "untrusted-hooks": ("(g) Codex exec with kapi's hooks not yet trusted by a person", sc_codex_untrusted_hooks),
    "no-kapi": ("(h) a teammate without kapi: the edit lands, no hook error", sc_no_kapi),
}
# Claude Code -p treats the folder as trusted; OpenCode has no stop hook (own-finding is the
# stop gate's) and puts no marker of its own in its shell's environment (shell-note's); Gemini
# CLI's shell has no session variable, and kapi reads no marker of droid's or Kilo Code's shell
# (host/src/env.rs HOST_MARKERS).
ONLY = {"untrusted-hooks": {"codex"},
        "own-finding": {"claude-code", "codex", "copilot", "qwen", "gemini", "factory", "kilo"},
        "shell-note": {"claude-code", "codex", "copilot", "qwen"}}


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", action="append",
                    choices=["claude-code", "codex", "opencode", "copilot", "qwen", "gemini", "factory", "kilo"])
    ap.add_argument("--scenario", action="append", choices=list(SCENARIOS))
    ap.add_argument("--kapi", default=os.environ.get("KAPI_BIN") or str(ROOT / "target/debug/kapi"))
    ap.add_argument("--keep", action="store_true", help="keep hosts/work/ even when every check passed")
    args = ap.parse_args()

    kapi = Path(args.kapi).resolve()
    if not os.access(kapi, os.X_OK):
        sys.exit(f"e2e-hosts: no kapi binary at {kapi} (cargo build --bin kapi, or --kapi PATH)")
    if not (MODULES / ".bin").is_dir():
        sys.exit("e2e-hosts: the host CLIs are not installed: run `bash hosts/install.sh` (make e2e-hosts does)")
    shutil.rmtree(WORK, ignore_errors=True)
    kapi_dir = WORK / "bin"
    kapi_dir.mkdir(parents=True)
    (kapi_dir / "kapi").symlink_to(kapi)

    hosts = find_hosts(kapi_dir)
    chosen = args.host or list(hosts)
    scenarios = args.scenario or list(SCENARIOS)
    checks, research, t0 = [], {}, time.monotonic()
    for hname in chosen:
        host = hosts[hname]
        print(f"== {hname} {host.version or '(did not start)'}", flush=True)
        if not host.version:
            checks.append(Check(hname, "-", "host CLI starts", FAIL, f"{host.bin} --version failed"))
            print(f"  FAIL  {host.bin} --version failed")
            continue
        research[hname] = {"version": host.version}
        for sname in scenarios:
            if hname not in ONLY.get(sname, {hname}):
                continue
            title, fn = SCENARIOS[sname]
            base = WORK / hname / sname
            project = base / "project"
            ctx = Ctx(host, sname)
            took = ""
            rc, init_out = make_project(project, kapi, kapi_dir)
            if rc != 0:
                ctx.add("kapi init", FAIL, f"exit {rc}: {_clip(init_out)}")
            else:
                env = {"project": project, "kapi": kapi, "kapi_dir": kapi_dir, "research": research[hname],
                       "instructions": mcp_instructions(kapi, kapi_dir, project)}

                def do_run(cwd, prompt, steps, research=False, trust_hooks=True, hook_events=False,
                           _base=base, _host=host, _project=project):
                    home = _base / "home"
                    home.mkdir(parents=True, exist_ok=True)
                    run = _host.run(_project, cwd, home, prompt, script_of(steps), research=research,
                                    trust_hooks=trust_hooks, hook_events=hook_events)
                    (_base / "stdout.txt").write_text(run.stdout)
                    (_base / "stderr.txt").write_text(run.stderr)
                    (_base / "requests.json").write_text(json.dumps(
                        [r.__dict__ for r in run.requests], indent=1, ensure_ascii=False))
                    return run

                env["run"] = do_run
                try:
                    run = fn(ctx, env)
                    took = f" ({run.seconds:.1f}s)" if run else ""
                except Exception as e:  # a harness bug is a failure, not a crash
                    ctx.add("scenario ran", FAIL, f"{type(e).__name__}: {e}")
                    took = ""
            print(f"  {sname}: {title}{took}", flush=True)
            for c in ctx.checks:
                print(f"    {c.status:<16} {c.name}")
                if c.status == XFAIL:
                    print(f"{'':21}why:  {c.note}")
                    print(f"{'':21}seen: {_clip(c.detail, 300)}")
                elif c.status in (FAIL, INFO):
                    print(f"{'':21}{c.detail}")
                elif c.note:
                    print(f"{'':21}note: {c.note}")
            checks.extend(ctx.checks)

    if not args.host and not args.scenario:
        checks.extend(sdk_client_checks(kapi, kapi_dir))
    print_research(research)
    (WORK / "report.json").write_text(json.dumps(
        {"checks": [c.__dict__ for c in checks], "research": research}, indent=1, ensure_ascii=False))
    n = {s: sum(1 for c in checks if c.status == s) for s in (PASS, XFAIL, FAIL, INFO)}
    print(f"\n{n[XFAIL]} expected failures (named issues, still open), {n[INFO]} notes, "
          f"{time.monotonic() - t0:.0f}s; details in hosts/work/report.json")
    print(f"e2e-hosts: {n[PASS]} passed, {n[FAIL]} failed")
    sys.exit(1 if n[FAIL] else 0)


def sdk_client_checks(kapi: Path, kapi_dir: Path) -> list:
    """The official MCP TypeScript SDK's client against `kapi mcp` (hosts/sdk_client.mjs): its
    `callTool` validates structuredContent against the declared outputSchema, in error results
    too, and throws on a mismatch."""
    print("== the MCP TypeScript SDK client (@modelcontextprotocol/sdk)", flush=True)
    project = WORK / "sdk" / "project"
    rc, init_out = make_project(project, kapi, kapi_dir)
    if rc != 0:
        return [Check("sdk", "client", "kapi init", FAIL, f"exit {rc}: {_clip(init_out)}")]
    env = base_env(kapi_dir, project.parent / "init-home")
    rc, out, err, timed_out, _ = run_bounded(
        ["node", str(HERE / "sdk_client.mjs"), str(kapi), str(project)], cwd=HERE, env=env, timeout=120)
    checks = []
    for line in out.splitlines():
        try:
            c = json.loads(line)
        except ValueError:
            continue
        checks.append(Check("sdk", "client", c["name"], PASS if c["ok"] else FAIL, str(c["detail"])))
    if rc != 0 or timed_out or not checks:
        checks.append(Check("sdk", "client", "the SDK client ran", FAIL,
                            f"exit {rc}{' (timed out)' if timed_out else ''}: {_clip(err)}"))
    for c in checks:
        print(f"    {c.status:<16} {c.name}")
        if c.status == FAIL:
            print(f"{'':21}{_clip(c.detail, 400)}")
    return checks


def print_research(research):
    for hname, r in research.items():
        if "shell_env" not in r:
            continue
        print(f"\n== {hname} {r.get('version', '')}: what the host sets for the commands it runs (issue 16 item 6)")
        print(f"  session id (host's own): {r.get('session_id')}")
        print("  shell tool environment, added or changed:")
        for k, v in r["shell_env"].items():
            print(f"    {k}={v}")
        for key in sorted(k for k in r if k.startswith("hook_payload_")):
            print(f"  {key[len('hook_payload_'):]} hook payload: {json.dumps(r[key], ensure_ascii=False)}")
        hk = next((k for k in ("hook_env_PostToolUse", "hook_env_PreToolUse", "hook_env_SessionStart") if k in r), None)
        if hk:
            print(f"  hook command environment ({hk[9:]}), added or changed:")
            for k, v in r[hk].items():
                print(f"    {k}={v}")
        if "mcp_server" in r:
            m = r["mcp_server"]
            print(f"  MCP server: {' '.join(m['argv'])} in {m['cwd']}; environment, added or changed:")
            for k, v in m["env"].items():
                print(f"    {k}={v}")


if __name__ == "__main__":
    main()
