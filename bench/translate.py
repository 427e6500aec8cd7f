#!/usr/bin/env python3
"""Unattended translation's benchmark: `kapi up --provider pseudo` over Django's PO files
(every `msgstr` emptied first, so every message is to do), the throughput in messages and MB
a second, and the same project's `kapi check` afterwards. Django's wheel is fetched with pip
once (the PO files only, under bench/work, as bench/formats.sh does). Median and min-max of
RUNS runs, each on a fresh copy. Writes the section between the `translate` markers of
bench/RESULTS.md.

    KAPI_BIN=target/release/kapi python3 bench/translate.py      (make bench-translate)
    KAPI_BIN=target/release/kapi python3 bench/translate.py large   (the large catalog alone)

Then one JSON catalog of 20,000 keys translated whole (`large`), the issue 39 figure.
"""
import glob
import os
import re
import shutil
import statistics
import subprocess
import time
import zipfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
KAPI = os.environ.get("KAPI_BIN", os.path.join(ROOT, "target/release/kapi"))
WORK = os.environ.get("BENCH_WORK", os.path.join(BENCH, "work"))
RESULTS = os.environ.get("RESULTS_MD", os.path.join(BENCH, "RESULTS.md"))
RUNS = int(os.environ.get("RUNS", "3"))
DJANGO = "5.2.19"
ENV = {k: v for k, v in os.environ.items() if k not in ("KAPI_NO_PROJECT", "KAPI_PROJECT")}


def django_po():
    """Django's PO files, fetched once."""
    dj = os.path.join(WORK, f"django-{DJANGO}")
    files = os.path.join(dj, "locale-files")
    if not os.path.isdir(files):
        os.makedirs(dj, exist_ok=True)
        subprocess.run(["python3", "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--no-deps", "-d", dj, f"django=={DJANGO}"], check=True)
        wheel = zipfile.ZipFile(glob.glob(os.path.join(dj, "*.whl"))[0])
        for info in wheel.infolist():
            if info.filename.endswith(".po"):
                target = os.path.join(files, info.filename)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(wheel.read(info))
    return files


EMPTY = re.compile(r'^(msgstr(?:\[\d+\])?) ".*"\n(?:".*"\n)*', re.M)


def project(source):
    """A fresh project of the PO files with every translation emptied; (folder, messages, bytes)."""
    folder = os.path.join(WORK, "inputs/translate")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, ".kapi"))
    messages, size = 0, 0
    for path in glob.glob(os.path.join(source, "**/*.po"), recursive=True):
        text = open(path, encoding="utf-8").read()
        head, sep, body = text.partition('\n\n')
        body = EMPTY.sub(lambda m: m.group(1) + ' ""\n', body)
        messages += body.count("\nmsgid ") + body.startswith("msgid ")
        target = os.path.join(folder, "po", os.path.relpath(path, source))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(head + sep + body)
        size += len((head + sep + body).encode())
    with open(os.path.join(folder, "kapi.yaml"), "w") as f:
        f.write('version: v1\ndefaults:\n  source_language: en\ncollections:\n  - path: "po/**/*.po"\n')
    return folder, messages, size


def main():
    source = django_po()
    times, landed = [], 0
    for _ in range(RUNS):
        folder, messages, size = project(source)
        # `pseudo` writes to a real language only when `--to` names it (issue 39).
        langs = sorted({m for p in glob.glob(os.path.join(folder, "po/**/*.po"), recursive=True)
                        for m in re.findall(r'^"Language: ([^\\"]+)\\n"$', open(p, encoding="utf-8").read(), re.M)})
        start = time.perf_counter()
        out = subprocess.run([KAPI, "up", "--provider", "pseudo", "--to", ",".join(langs), "--json"],
                             cwd=folder, env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if out.returncode not in (0, 3):
            raise SystemExit(f"kapi up exited {out.returncode}: {out.stderr.decode()[:500]}")
        import json
        result = json.loads(out.stdout)
        landed = sum(d["landed"] for d in result["documents"])
        skipped = sum(len(d.get("skipped", [])) for d in result["documents"])
    start = time.perf_counter()
    check = subprocess.run([KAPI, "check", "--no-cache"], cwd=folder, env=ENV, stdout=subprocess.DEVNULL)
    check_s = time.perf_counter() - start
    files = len(glob.glob(os.path.join(folder, "po/**/*.po"), recursive=True))
    med = statistics.median(times)
    section = f"""<!-- translate:start -->
## Unattended translation: pseudo over Django's PO files (bench/translate.py, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)

`kapi up --provider pseudo` over Django {DJANGO}'s {files} PO files ({size / 1e6:.1f} MB,
{messages} messages) with every `msgstr` emptied first: each file read, each message
pseudo-localized, landed through the change service one document at a time (placeholder
guard, commit check, `#, fuzzy`) and written. Release build, median (min-max) of {RUNS} runs,
each on a fresh copy; load average {os.getloadavg()[0]:.2f} at the end.

| | median | min-max |
|---|---:|---:|
| `kapi up --provider pseudo` | {med:.1f} s | {min(times):.1f} s-{max(times):.1f} s |
| translations landed | {landed} | {skipped} refused |
| throughput | {landed / med:.0f} messages/s | {size / 1e6 / med:.2f} MB/s |
| `kapi check --no-cache` afterwards (exit {check.returncode}) | {check_s:.1f} s | |
<!-- translate:end -->
"""
    old = open(RESULTS).read() if os.path.exists(RESULTS) else ""
    pattern = re.compile(r"<!-- translate:start -->.*?<!-- translate:end -->\n?", re.S)
    new = pattern.sub(lambda _: section, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + section
    open(RESULTS, "w").write(new)
    print(section)


LARGE = 20000


def large():
    """One JSON catalog of LARGE keys, its French file missing: `kapi translate --provider
    pseudo` writes the file and lands every key. Linear time is the point (issue 39: 10,000
    keys took 24 s and 20,000 took 122 s); writes the `translate-large` section."""
    import json
    times = []
    for _ in range(RUNS):
        folder = os.path.join(WORK, "inputs/translate-large")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(os.path.join(folder, "locales"))
        with open(os.path.join(folder, "kapi.yaml"), "w") as f:
            f.write('version: v1\ndefaults:\n  source_language: en\n  target_languages: [fr]\n'
                    'collections:\n  - name: app\n    content:\n      - path: "locales/en.json"\n'
                    '        format: json\n        target: "locales/{lang}.json"\n')
        source = {f"key{i}": f"Message number {i} for {{name}}" for i in range(LARGE)}
        with open(os.path.join(folder, "locales/en.json"), "w") as f:
            json.dump(source, f, indent=2)
        start = time.perf_counter()
        out = subprocess.run([KAPI, "translate", "locales/en.json", "--to", "fr", "--provider",
                              "pseudo", "--json"], cwd=folder, env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if out.returncode != 0:
            raise SystemExit(f"kapi translate exited {out.returncode}: {out.stderr.decode()[:500]}")
        landed = json.loads(out.stdout)["documents"][0]["landed"]
        if landed != LARGE:
            raise SystemExit(f"{landed} of {LARGE} keys landed")
    # The store now holds the run: LARGE copies of the source (the file was written from it)
    # and LARGE translations. What reads it: stats, the plan, the review queue.
    store = {}
    for name, args in [("kapi stats", ["stats", "--json"]),
                       ("kapi stats --plan", ["stats", "--plan", "--json"]),
                       ("kapi review", ["review", "--json"])]:
        runs = []
        for _ in range(RUNS):
            start = time.perf_counter()
            out = subprocess.run([KAPI] + args, cwd=folder, env=ENV,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            runs.append(time.perf_counter() - start)
            if out.returncode != 0:
                raise SystemExit(f"kapi {' '.join(args)} exited {out.returncode}: {out.stderr.decode()[:500]}")
        store[name] = runs
    store_mb = os.path.getsize(os.path.join(folder, ".kapi/work/store.db")) / 1e6 \
        if os.path.exists(os.path.join(folder, ".kapi/work/store.db")) else 0.0
    med = statistics.median(times)
    section = f"""<!-- translate-large:start -->
## One large catalog: pseudo into a {LARGE:,}-key JSON catalog (bench/translate.py large, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)

`kapi translate locales/en.json --to fr --provider pseudo` on one JSON catalog of {LARGE:,}
keys (each `Message number N for {{name}}`), its French file missing: the file written from
the source, every key pseudo-localized and landed through the change service (code guard,
commit check) in one change set. Release build, median (min-max) of {RUNS} runs; load average
{os.getloadavg()[0]:.2f} at the end. Issue 39's goal: under 3 s (before: 10,000 keys 24 s,
20,000 keys 122 s, quadratic).

| | median | min-max |
|---|---:|---:|
| {LARGE:,} keys | {med:.2f} s | {min(times):.2f} s-{max(times):.2f} s |

Then what reads the store the run left ({2 * LARGE:,} recorded writes: each key's copy of its
source and its translation; {store_mb:.1f} MB), on the same project:

| | median | min-max |
|---|---:|---:|
""" + "".join(f"| `{name}` | {statistics.median(r):.2f} s | {min(r):.2f} s-{max(r):.2f} s |\n"
              for name, r in store.items()) + """<!-- translate-large:end -->
"""
    old = open(RESULTS).read() if os.path.exists(RESULTS) else ""
    pattern = re.compile(r"<!-- translate-large:start -->.*?<!-- translate-large:end -->\n?", re.S)
    new = pattern.sub(lambda _: section, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + section
    open(RESULTS, "w").write(new)
    print(section)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["large"]:
        large()
    else:
        main()
        large()
