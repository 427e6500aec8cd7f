#!/usr/bin/env python3
"""The text tools' benchmark: `kapi grep` (kgrep) over the Rust book (bench/data/rust-book,
every Markdown file read and its prose searched) against `grep -rn` and `rg -n` over the same
tree, for a fixed word, a case-insensitive regular expression and a file list (`-l`).
Median and min-max of RUNS runs each, after one warm-up. Writes the section between the
`toolbox` markers of bench/RESULTS.md.

    KAPI_BIN=target/release/kapi python3 bench/toolbox.py      (make bench-toolbox)
"""
import os
import re
import shutil
import statistics
import subprocess
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
KAPI = os.environ.get("KAPI_BIN", os.path.join(ROOT, "target/release/kapi"))
BOOK = os.path.join(BENCH, "data/rust-book")
RESULTS = os.environ.get("RESULTS_MD", os.path.join(BENCH, "RESULTS.md"))
RUNS = int(os.environ.get("RUNS", "15"))
ENV = dict(os.environ, KAPI_NO_PROJECT="1")

SEARCHES = [
    ("a word: `ownership`", ["-F", "ownership"]),
    ("`-i 'borrow(ed\\|ing)? check'`", ["-i", "borrow(ed|ing)? check"]),
    ("file names: `-l -F lifetime`", ["-l", "-F", "lifetime"]),
]


def argv(tool, flags):
    """The command line of `tool` for one search over the book."""
    if tool == "kapi":
        return [KAPI, "grep", "-r", *flags, "."]
    if tool == "grep":
        extended = ["-E"] if "-F" not in flags else []
        return ["grep", "-rn", "--include=*.md", *extended, *flags, "."]
    return ["rg", "-n", "--no-config", "-g", "*.md", *flags, "."]


def timed(cmd):
    """(milliseconds, lines of output) of one run."""
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=BOOK, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = 1000 * (time.perf_counter() - start)
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {out.returncode}")
    return elapsed, out.stdout.count(b"\n")


def fmt(ms):
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def main():
    if not os.path.isdir(BOOK):
        raise SystemExit("bench/data/rust-book is missing")
    for tool in ("grep", "rg"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is not installed (rg: `apt install ripgrep`)")
    files = sum(1 for _, _, names in os.walk(BOOK) for n in names if n.endswith(".md"))
    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(BOOK) for n in names if n.endswith(".md"))
    rows = []
    for label, flags in SEARCHES:
        for tool in ("kapi", "grep", "rg"):
            cmd = argv(tool, flags)
            timed(cmd)
            runs = [timed(cmd) for _ in range(RUNS)]
            times = sorted(r[0] for r in runs)
            rows.append((label, tool, statistics.median(times), times[0], times[-1], runs[0][1]))
    load = os.getloadavg()[0]
    table = "\n".join(
        f"| {label} | {tool} | {fmt(med)} | {fmt(lo)}-{fmt(hi)} | {lines} |"
        for label, tool, med, lo, hi, lines in rows
    )
    ratios = []
    for label, _ in SEARCHES:
        by = {r[1]: r[2] for r in rows if r[0] == label}
        ratios.append(f"{label}: kapi {by['kapi'] / by['grep']:.1f}x grep, {by['kapi'] / by['rg']:.1f}x rg")
    section = f"""<!-- toolbox:start -->
## Text tools: kgrep over the Rust book (bench/toolbox.py, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)

`kapi grep -r` over the Rust book ({files} Markdown files, {size / 1e6:.1f} MB) against
`grep -rn --include=*.md` and `rg -n -g '*.md'` over the same tree. Release build, median
(min-max) of {RUNS} runs after a warm-up; load average {load:.2f} at the end. grep and rg read
lines of bytes; kapi reads each file as Markdown and searches the prose of its blocks (code
blocks, link targets and HTML left out, a phrase across a link found), so its match counts
differ (`lines` is lines of output).

| search | tool | median | min-max | lines |
|---|---|---:|---:|---:|
{table}

{'; '.join(ratios)}.
<!-- toolbox:end -->
"""
    old = open(RESULTS).read() if os.path.exists(RESULTS) else ""
    pattern = re.compile(r"<!-- toolbox:start -->.*?<!-- toolbox:end -->\n?", re.S)
    new = pattern.sub(lambda _: section, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + section
    open(RESULTS, "w").write(new)
    print(section)


if __name__ == "__main__":
    main()
