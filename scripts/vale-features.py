#!/usr/bin/env python3
"""Runs every Vale package's features (testdata/vale/<Package>/features/rules.feature) through
`kapi check --format line` in the scenario's fixture folder and compares the alerts with the
feature's. Usage: vale-features.py KAPI [PACKAGE...]; prints per-scenario agreement."""
import os, re, subprocess, sys

ANALYZERS = {"hygiene", "terms", "voice", "placeholders", "plurals", "translation-terms",
             "translation", "suppress", "read"}

def scenarios(feature):
    out = []
    name = None
    lines = open(feature, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("Scenario:"):
            name = line.split(":", 1)[1].strip()
        m = re.match(r'When I (?:test|lint|run) "?([^"]+)"?', line)
        if m:
            folder = m.group(1)
        if line.startswith("Then the output should contain exactly:") or line.startswith("Then the output should contain:"):
            exact = "exactly" in line
            j = i + 1
            while lines[j].strip() != '"""':
                j += 1
            k = j + 1
            expected = []
            while lines[k].strip() != '"""':
                if lines[k].strip():
                    expected.append(lines[k].strip())
                k += 1
            out.append((name, folder, expected, exact))
            i = k
        i += 1
    return out

def main():
    kapi = os.path.abspath(sys.argv[1])
    root = os.path.join(os.path.dirname(__file__), "..", "testdata", "vale")
    packages = sys.argv[2:] or sorted(os.listdir(root))
    total = agree = 0
    for package in packages:
        feature = os.path.join(root, package, "features", "rules.feature")
        if not os.path.exists(feature):
            continue
        for name, folder, expected, exact in scenarios(feature):
            where = os.path.join(root, package, "fixtures", folder)
            run = subprocess.run([kapi, "check", "--format", "line", "--no-cache"], cwd=where,
                                 capture_output=True, text=True)
            got = [l for l in run.stdout.splitlines()
                   if l.split(":")[3].split(".")[0] not in ANALYZERS] if run.stdout else []
            if run.returncode not in (0, 3):
                got = ["ERROR " + run.stderr.strip()[:300]]
            exp, have = set(expected), set(got)
            ok = exp == have
            total += len(exp)
            agree += len(exp & have)
            print(f"{'ok  ' if ok else 'DIFF'} {package}/{folder} ({name}): {len(exp & have)}/{len(exp)} expected, {len(have - exp)} extra")
            if not ok and os.environ.get("VERBOSE"):
                for l in sorted(exp - have): print("   - " + l)
                for l in sorted(have - exp): print("   + " + l)
    print(f"alerts agreed: {agree}/{total}")

main()
