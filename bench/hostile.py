#!/usr/bin/env python3
"""kapi on hostile inputs: what one process costs in wall time and peak memory when the input
is built to be expensive (issue 15, item 7). Each case generates its input into
bench/work/hostile/ (git-ignored), runs the release binary under `/usr/bin/time -v` and
records the wall time, the maximum resident set size and the exit code; the figures print as
a Markdown table. The target: time linear in the input, peak memory at most about 5x the
input plus a few MB.

    make bench-hostile                                  (release build, every case)
    KAPI_BIN=target/release/kapi python3 bench/hostile.py [CASE...]

A case is a `Case(name, what, run)` in CASES: `run(case_dir)` writes its input into
`case_dir` (bench/work/hostile/project/cases/NAME/) and returns a `Result`; `cli()` and `mcp()` below do the measuring, so a new case
is a generator and one line in the list. `HOSTILE_TIMEOUT` (seconds, default 900) stops a
case that runs longer; `HOSTILE_MARKDOWN=FILE` also writes the table to FILE.

The check cases run in one small project (`project()`): its terms deprecate `login` for
`sign in`, its voice limits a sentence to 35 words, so every word of `login login …` is a
`terms.deprecated` finding and every second one a `hygiene.repeated-word`.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
KAPI = os.environ.get("KAPI_BIN", os.path.join(ROOT, "target/release/kapi"))
WORK = os.path.join(os.environ.get("BENCH_WORK", os.path.join(BENCH, "work")), "hostile")
TIMEOUT = float(os.environ.get("HOSTILE_TIMEOUT", "900"))
TIME = "/usr/bin/time"

# kapi must bind the bench project (make exports KAPI_NO_PROJECT=1 for the test suite).
ENV = {k: v for k, v in os.environ.items() if k not in ("KAPI_NO_PROJECT", "KAPI_PROJECT", "KAPI_ACTOR")}


class Case:
    def __init__(self, name, what, run):
        self.name, self.what, self.run = name, what, run


class Result:
    def __init__(self, input_bytes, wall=None, rss_kb=None, code=None, note=""):
        self.input_bytes, self.wall, self.rss_kb, self.code, self.note = (
            input_bytes, wall, rss_kb, code, note)


# ---------------------------------------------------------------------------------------
# Measuring

def parse_time(path):
    """(wall seconds, max RSS in KB) from a `/usr/bin/time -v` report."""
    text = open(path).read()
    wall = rss = None
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    if m:
        wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if m:
        rss = int(m.group(1))
    return wall, rss


def run_timed(case_dir, args, **kw):
    """Starts `/usr/bin/time -v kapi ARGS` in its own process group (so a timeout stops kapi
    too); the Popen and the report's path."""
    report = os.path.join(case_dir, "time.txt")
    if os.path.exists(report):
        os.remove(report)
    p = subprocess.Popen([TIME, "-v", "-o", report, KAPI, *args], cwd=project(), env=ENV,
                         start_new_session=True, **kw)
    return p, report


def stop(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def cli(case_dir, args, input_bytes):
    """`kapi ARGS --json` in the bench project under /usr/bin/time -v; the note gives the
    report's finding counts (stdout goes to a file, read after the run)."""
    out_path = os.path.join(case_dir, "stdout.json")
    with open(out_path, "wb") as out:
        p, report = run_timed(case_dir, args, stdout=out, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            stop(p)
            return Result(input_bytes, note=f"stopped after {TIMEOUT:.0f} s")
    wall, rss = parse_time(report)
    try:
        with open(out_path) as f:
            report = json.load(f)
        held = len(report.get("findings", []))
        total = report.get("summary", {}).get("findings")
        note = f"{total} findings, {held} held"
    except ValueError:
        note = "stdout is not JSON"
    os.remove(out_path)
    return Result(input_bytes, wall, rss, p.returncode, note)


def mcp(case_dir, calls, input_bytes):
    """`kapi mcp -p PROJECT` under /usr/bin/time -v: initialize, then every call in `calls`
    (tool name, arguments) sent at once and a `ping` after them; the note says which answer
    came first and what the last call's report held. The process ends when stdin closes."""
    p, report = run_timed(case_dir, ["mcp", "-p", project(), "--all"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "bench", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ids = {}
    for i, (name, arguments) in enumerate(calls, start=1):
        ids[i] = name
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})
    ping = len(calls) + 1
    ids[ping] = "ping"
    send({"jsonrpc": "2.0", "id": ping, "method": "ping"})
    order, last = [], None
    deadline = time.monotonic() + TIMEOUT
    while len(order) < len(ids) and time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        msg = json.loads(line)
        if msg.get("id") in ids:
            order.append(ids[msg["id"]])
            if msg["id"] == len(calls):
                last = msg
    p.stdin.close()
    try:
        p.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(p)
        return Result(input_bytes, note=f"stopped after {TIMEOUT:.0f} s")
    wall, rss = parse_time(report)
    note = "answers: " + ", ".join(order)
    content = (last or {}).get("result", {}).get("structuredContent") or {}
    if "summary" in content:
        note += (f"; {content['summary'].get('findings')} findings, "
                 f"{len(content.get('findings', []))} held")
    return Result(input_bytes, wall, rss, p.returncode, note)


# ---------------------------------------------------------------------------------------
# Inputs

def project():
    """The bench project (written once): terms deprecating `login`, a 35-word sentence limit,
    no gate failure on minor findings."""
    root = os.path.join(WORK, "project")
    files = {
        "kapi.yaml": 'version: v1\nname: hostile\ndefaults:\n  source_language: en\n'
                     '  voice: .kapi/voice.yaml\n  terms_source: .kapi/terms.yaml\n'
                     'collections:\n  - path: "docs/**/*.md"\ngates:\n  fail_on: major\n',
        ".kapi/voice.yaml": "name: hostile\ndescription: Bench voice.\nstyle:\n  constraints:\n"
                            "    max_sentence_words: 35\n",
        ".kapi/terms.yaml": "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n"
                            "      - {text: sign in, lang: en, status: preferred}\n"
                            "      - {text: login, lang: en, status: deprecated, replacement: sign in}\n",
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
    return root


def words(n, per_line=None, word="login"):
    """`n` copies of `word`: one line, or `per_line` to a line."""
    if per_line is None:
        return " ".join([word] * n) + "\n"
    lines = [" ".join([word] * per_line) for _ in range(n // per_line)]
    return "\n".join(lines) + "\n"


def write(case_dir, name, text):
    path = os.path.join(case_dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path, len(text.encode())


def check_words(n, per_line=None):
    def run(case_dir):
        path, size = write(case_dir, "input.txt", words(n, per_line))
        return cli(case_dir, ["check", "--json", path], size)
    return run


def check_text_mcp(target_bytes):
    def run(case_dir):
        text = words(target_bytes // len("login "))
        return mcp(case_dir, [("check_text", {"text": text})], len(text.encode()))
    return run


CASES = [
    Case("check-line-800k", "`kapi check --json`: one line of 800,000 words", check_words(800_000)),
    Case("check-line-2m", "`kapi check --json`: one line of 2,000,000 words", check_words(2_000_000)),
    Case("check-lines-800k", "`kapi check --json`: 800,000 words, 10 to a line", check_words(800_000, 10)),
    Case("check-lines-2m", "`kapi check --json`: 2,000,000 words, 10 to a line", check_words(2_000_000, 10)),
    Case("mcp-check-text-4mb", "MCP `check_text` of 4 MB on one line, then `ping`", check_text_mcp(4_000_000)),
]


# ---------------------------------------------------------------------------------------

def mb(n):
    return f"{n / 1e6:.1f} MB"


def main():
    if not os.path.exists(KAPI):
        raise SystemExit(f"no kapi at {KAPI}: cargo build --release --bin kapi")
    if not os.path.exists(TIME):
        raise SystemExit(f"{TIME} is needed for wall time and peak memory (apt-get install time)")
    chosen = sys.argv[1:]
    unknown = [c for c in chosen if c not in {case.name for case in CASES}]
    if unknown:
        raise SystemExit(f"unknown case(s) {', '.join(unknown)}; cases: "
                         + ", ".join(case.name for case in CASES))
    rows = []
    for case in CASES:
        if chosen and case.name not in chosen:
            continue
        # Inside the project: `kapi check` checks a file there under its rules.
        case_dir = os.path.join(project(), "cases", case.name)
        os.makedirs(case_dir, exist_ok=True)
        print(f"==> {case.name}", file=sys.stderr)
        r = case.run(case_dir)
        wall = f"{r.wall:.2f} s" if r.wall is not None else "–"
        rss = mb(r.rss_kb * 1024) if r.rss_kb is not None else "–"
        ratio = f"{r.rss_kb * 1024 / r.input_bytes:.1f}x" if r.rss_kb else "–"
        code = "–" if r.code is None else str(r.code)
        rows.append(f"| {case.name} | {case.what} | {mb(r.input_bytes)} | {wall} | {rss} | "
                    f"{ratio} | {code} | {r.note} |")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = "\n".join([
        f"kapi: {KAPI}; load average {load} at the end",
        "",
        "| case | what | input | wall | max RSS | RSS / input | exit | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *rows,
    ])
    print(table)
    if os.environ.get("HOSTILE_MARKDOWN"):
        with open(os.environ["HOSTILE_MARKDOWN"], "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
