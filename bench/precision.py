#!/usr/bin/env python3
"""How far `kapi check` can be trusted on real documentation: precision over hand-labelled
findings, recall of planted violations and the rate of false flags on planted look-alikes, for
each project under testdata/realdocs/ (issue 38's "How to know it is right").

    python3 bench/precision.py                     # every project, the debug build
    python3 bench/precision.py --unlabelled        # and print what is left to judge
    KAPI_BIN=target/release/kapi python3 bench/precision.py react

Each project (testdata/realdocs/<project>/: kapi.yaml, .kapi/, docs/, SOURCES.md) is copied to a
temporary folder and checked there with `kapi check --json --no-cache`. Its findings are then
read against two hand-written files (the format is in testdata/realdocs/README.md):

- labels.tsv: one row per finding in the real files (`docs/**`, not `planted-*.md`), judged
  true or false. A row matches a finding with the same path and rule whose matched text is the
  row's (whitespace runs as one space; a row ending in `…` is a prefix), the nearest line within
  LINE_SLACK lines, each row used once. So a row survives a reader change that moves nothing,
  and a finding whose span or text changed is unlabelled: it is a new finding, to be judged.
- planted.tsv: what the planted files (`docs/**/planted-*.md`, written for this) must report
  and must not. A row holds when a finding of its rule (`terms.*` names a family) spans its line
  and its matched text contains the row's (`-`: any). `report` rows held are recall; `silent`
  rows held are false flags. A finding in a planted file that no row explains is unlabelled.

Figures: precision = true / (true + false) over labelled findings in the real files; recall =
planted violations reported / planted violations; false-flag rate = planted look-alikes
reported / planted look-alikes. Goals (issue 38): precision >= 97%, recall >= 95%, false flags
<= 5%. Exit status: 0 when every project meets them and no finding is unlabelled, 1 when not,
2 when a project cannot be checked. `cli/tests/cli/precision.rs` holds the binary to the same
figures with the same matching.

--heldout scores each project's held-out set instead: the files under heldout/ (a second
collection in the project's kapi.yaml: more files of the same tree, which no fix was tuned
against), labelled in heldout-labels.tsv (the labels.tsv format). It has no planted files, so its
goals are precision >= 97% and no finding unlabelled. The sample's figures never count a held-out
finding, and the held-out figures never count a sample's.

--strip-exceptions drops the terms files' `exceptions:` lines from the copy, for a binary that
does not know the field yet (the baseline in bench/RESULTS.md was measured so).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
REALDOCS = os.path.join(ROOT, "testdata", "realdocs")
LINE_SLACK = 5
PREFIX_CHARS = 60
GOALS = {"precision": 0.97, "recall": 0.95, "false_flags": 0.05}
HELDOUT_DIR = "heldout"
HELDOUT_LABELS = "heldout-labels.tsv"
LABEL_COLUMNS = ["path", "line", "rule", "matched", "verdict", "class", "why"]
PLANTED_COLUMNS = ["path", "line", "rule", "matched", "expect", "class", "why"]


def norm(text):
    """Matched text as the label files hold it: whitespace runs as one space."""
    return " ".join(text.split())


def short(text):
    """`norm(text)`, cut to PREFIX_CHARS characters with `…` when longer."""
    text = norm(text)
    return text if len(text) <= PREFIX_CHARS else text[: PREFIX_CHARS - 1] + "…"


def read_tsv(path, columns):
    """The rows of a label file as dicts; `#` lines and blank lines are comments."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if cells == columns:
                continue
            if len(cells) != len(columns):
                raise SystemExit(f"{path}:{number}: {len(cells)} columns, expected {len(columns)}")
            row = dict(zip(columns, cells))
            row["line"] = int(row["line"])
            row["at"] = f"{os.path.basename(path)}:{number}"
            rows.append(row)
    return rows


def strip_exceptions_from(lines):
    """The terms file's lines without its `exceptions:` fields: a flow list on one line, or a
    block list (the field, its comments and its deeper `- ` items)."""
    kept, depth = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if depth is not None:
            if not text or text.startswith("#") or (indent >= depth and text.startswith("- ")):
                continue
            depth = None
        if text.startswith("exceptions:"):
            if text == "exceptions:":
                depth = indent
            continue
        kept.append(line)
    return kept


def run_kapi(kapi, project, strip_exceptions):
    """The `kapi.check/v1` report of a temporary copy of `project`, and the copy's file bytes."""
    with tempfile.TemporaryDirectory(prefix="kapi-precision-") as tmp:
        copy = os.path.join(tmp, "project")
        shutil.copytree(project, copy)
        if strip_exceptions:
            for dirpath, _, names in os.walk(os.path.join(copy, ".kapi")):
                for name in names:
                    if name.endswith("terms.yaml"):
                        path = os.path.join(dirpath, name)
                        kept = strip_exceptions_from(open(path, encoding="utf-8").readlines())
                        open(path, "w", encoding="utf-8").writelines(kept)
        env = {"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1", "HOME": tmp}
        out = subprocess.run([kapi, "check", "--json", "--no-cache", "--quiet"], cwd=copy, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if out.returncode not in (0, 3):
            raise RuntimeError(f"kapi check exited {out.returncode}: {out.stderr.decode(errors='replace')}")
        report = json.loads(out.stdout)
        files = {}
        for f in report["findings"]:
            if f["path"] not in files:
                with open(os.path.join(copy, f["path"]), "rb") as fh:
                    files[f["path"]] = fh.read()
        return report, files


def end_line(finding, files):
    """The line a finding's span ends on."""
    data = files.get(finding["path"], b"")
    end = max(finding["start"], finding["end"] - 1)
    return finding["line"] + data[finding["start"]:end].count(b"\n")


def is_planted(path):
    return os.path.basename(path).startswith("planted-")


def is_heldout(path):
    """A finding in the held-out set (the `heldout` collection's files), not the sample."""
    return path.startswith(HELDOUT_DIR + "/")


def label_key_matches(label, finding):
    want, got = label["matched"], norm(finding["matched"])
    return got.startswith(want[:-1]) if want.endswith("…") else got == want


def match_labels(findings, labels):
    """{finding index: label}, nearest line first, each label used once."""
    pairs = []
    by_place = collections.defaultdict(list)
    for j, label in enumerate(labels):
        by_place[(label["path"], label["rule"])].append(j)
    for i, f in enumerate(findings):
        for j in by_place.get((f["path"], f["rule"]), []):
            label = labels[j]
            distance = abs(label["line"] - f["line"])
            if distance <= LINE_SLACK and label_key_matches(label, f):
                pairs.append((distance, f["start"], i, j))
    pairs.sort()
    taken, used = {}, set()
    for _, _, i, j in pairs:
        if i not in taken and j not in used:
            taken[i] = labels[j]
            used.add(j)
    return taken, [labels[j] for j in range(len(labels)) if j not in used]


def rule_matches(pattern, rule):
    if pattern == "*":
        return True
    return rule.startswith(pattern[:-1]) if pattern.endswith("*") else rule == pattern


def planted_hits(row, findings, files):
    """Indices of the findings a planted row covers."""
    hits = []
    for i, f in enumerate(findings):
        if f["path"] != row["path"] or not rule_matches(row["rule"], f["rule"]):
            continue
        if not f["line"] <= row["line"] <= end_line(f, files):
            continue
        if row["matched"] not in ("", "-") and row["matched"] not in norm(f["matched"]):
            continue
        hits.append(i)
    return hits


def ratio(num, den):
    return num / den if den else None


def judge(natural, labels):
    """The labels' verdicts on the real files' findings: counts, classes, what is left."""
    bad = [l for l in labels if l["verdict"] not in ("true", "false")]
    if bad:
        raise SystemExit("verdict must be true|false: " + ", ".join(r["at"] for r in bad))
    matched, stale = match_labels(natural, labels)
    verdicts = collections.Counter(l["verdict"] for l in matched.values())
    by_rule = collections.defaultdict(collections.Counter)
    for l in matched.values():
        by_rule[l["rule"]][l["verdict"]] += 1
    return {
        "natural": len(natural),
        "true": verdicts["true"],
        "false": verdicts["false"],
        "precision": ratio(verdicts["true"], verdicts["true"] + verdicts["false"]),
        "false_classes": collections.Counter(l["class"] for l in matched.values() if l["verdict"] == "false"),
        "false_rows": sorted((l for l in matched.values() if l["verdict"] == "false"),
                             key=lambda l: (l["path"], l["line"])),
        "by_rule": by_rule,
        "unlabelled": [f for i, f in enumerate(natural) if i not in matched],
        "stale_true": [l for l in stale if l["verdict"] == "true"],
        "stale_false": [l for l in stale if l["verdict"] == "false"],
    }


def score_heldout(project_dir, kapi, strip_exceptions):
    """The held-out set's figures: its findings against heldout-labels.tsv (no planted files)."""
    report, files = run_kapi(kapi, project_dir, strip_exceptions)
    natural = [f for f in report["findings"] if is_heldout(f["path"])]
    result = judge(natural, read_tsv(os.path.join(project_dir, HELDOUT_LABELS), LABEL_COLUMNS))
    result["files"] = files
    result["meets"] = not result["unlabelled"] and (result["precision"] or 0) >= GOALS["precision"]
    return result


def score(project_dir, kapi, strip_exceptions):
    report, files = run_kapi(kapi, project_dir, strip_exceptions)
    findings = report["findings"]
    labels = read_tsv(os.path.join(project_dir, "labels.tsv"), LABEL_COLUMNS)
    planted = read_tsv(os.path.join(project_dir, "planted.tsv"), PLANTED_COLUMNS)
    natural = [f for f in findings if not is_planted(f["path"]) and not is_heldout(f["path"])]
    matched, stale = match_labels(natural, labels)
    verdicts = collections.Counter(l["verdict"] for l in matched.values())
    false_classes = collections.Counter(l["class"] for l in matched.values() if l["verdict"] == "false")
    unlabelled = [f for i, f in enumerate(natural) if i not in matched]
    explained, reported, flagged, missed = set(), [], [], []
    for row in planted:
        hits = planted_hits(row, findings, files)
        explained.update(hits)
        if row["expect"] == "report":
            (reported if hits else missed).append(row)
        elif hits:
            flagged.append(row)
    silent_rows = [r for r in planted if r["expect"] == "silent"]
    unexpected = [f for i, f in enumerate(findings) if is_planted(f["path"]) and i not in explained]
    bad = [l for l in labels if l["verdict"] not in ("true", "false")]
    bad += [r for r in planted if r["expect"] not in ("report", "silent")]
    if bad:
        raise SystemExit("verdict must be true|false and expect report|silent: "
                         + ", ".join(r["at"] for r in bad))
    result = {
        "findings": len(findings),
        "natural": len(natural),
        "true": verdicts["true"],
        "false": verdicts["false"],
        "unlabelled": unlabelled,
        "precision": ratio(verdicts["true"], verdicts["true"] + verdicts["false"]),
        "false_classes": false_classes,
        "planted_reports": len(reported) + len(missed),
        "missed": missed,
        "recall": ratio(len(reported), len(reported) + len(missed)),
        "planted_silent": len(silent_rows),
        "flagged": flagged,
        "flag_classes": collections.Counter(r["class"] for r in flagged),
        "false_flags": ratio(len(flagged), len(silent_rows)),
        "unexpected": unexpected,
        "stale_true": [l for l in stale if l["verdict"] == "true"],
        "stale_false": [l for l in stale if l["verdict"] == "false"],
        "files": files,
    }
    result["meets"] = (not unlabelled and not unexpected
                       and (result["precision"] or 0) >= GOALS["precision"]
                       and (result["recall"] or 0) >= GOALS["recall"]
                       and (result["false_flags"] or 0) <= GOALS["false_flags"])
    return result


def pct(value):
    return "n/a" if value is None else f"{100 * value:.1f}%"


def row_line(f, files):
    """A finding as a label row to judge, after a comment with its message and whole text."""
    last = end_line(f, files)
    lines = f"{f['line']}" if last == f["line"] else f"{f['line']}-{last}"
    comment = f"# {f['path']}:{lines} {f['message']} | {norm(f['matched'])}"
    cells = [f["path"], str(f["line"]), f["rule"], short(f["matched"]), "?", "?", ""]
    return comment + "\n" + "\t".join(cells)


def print_project(name, r, unlabelled):
    print(f"## {name}")
    print(f"findings {r['findings']} ({r['natural']} in the real files): "
          f"labelled true {r['true']}, false {r['false']}, unlabelled {len(r['unlabelled'])}")
    print(f"precision {pct(r['precision'])} (goal >= 97%)")
    print(f"planted recall {pct(r['recall'])}: {r['planted_reports'] - len(r['missed'])} "
          f"of {r['planted_reports']} violations reported (goal >= 95%)")
    print(f"false flags {pct(r['false_flags'])}: {len(r['flagged'])} of {r['planted_silent']} "
          f"look-alikes reported (goal <= 5%)")
    scope = r["false_classes"].get("rule-scope", 0)
    if scope:
        print(f"precision {pct(ratio(r['true'], r['true'] + r['false'] - scope))} without the {scope} "
              f"`rule-scope` findings (the project's own patterns, not kapi's reading)")
    if r["false_classes"]:
        print("false findings by class: " + ", ".join(f"{c} {n}" for c, n in r["false_classes"].most_common()))
    if r["flag_classes"]:
        print("false flags by class: " + ", ".join(f"{c} {n}" for c, n in r["flag_classes"].most_common()))
    for row in r["missed"]:
        print(f"  missed  {row['path']}:{row['line']} {row['rule']} `{row['matched']}` ({row['class']})")
    for row in r["flagged"]:
        print(f"  flagged {row['path']}:{row['line']} {row['rule']} `{row['matched']}` ({row['class']})")
    if r["stale_true"] or r["stale_false"]:
        print(f"labels with no finding now: {len(r['stale_true'])} judged true (a lost finding?), "
              f"{len(r['stale_false'])} judged false (gone)")
    if r["unexpected"]:
        print(f"findings in planted files no planted row explains: {len(r['unexpected'])}")
    if unlabelled:
        for f in r["unlabelled"] + r["unexpected"]:
            print(row_line(f, r["files"]))
    print()


def print_heldout(name, r, unlabelled):
    print(f"## {name} (held-out)")
    print(f"findings {r['natural']}: labelled true {r['true']}, false {r['false']}, "
          f"unlabelled {len(r['unlabelled'])}")
    print(f"precision {pct(r['precision'])} (goal >= 97%)")
    print("by rule: " + ", ".join(
        f"{rule} {c['true']} true {c['false']} false" for rule, c in sorted(r["by_rule"].items())))
    if r["false_classes"]:
        print("false findings by class: " + ", ".join(f"{c} {n}" for c, n in r["false_classes"].most_common()))
    for l in r["false_rows"]:
        print(f"  false   {l['path']}:{l['line']} {l['rule']} `{l['matched']}` ({l['class']}: {l['why']})")
    if r["stale_true"] or r["stale_false"]:
        print(f"labels with no finding now: {len(r['stale_true'])} judged true (a lost finding?), "
              f"{len(r['stale_false'])} judged false (gone)")
    if unlabelled:
        for f in r["unlabelled"]:
            print(row_line(f, r["files"]))
    print()


def score_all(names, args, scorer, printer, counts):
    """Scores and prints each project; gives whether all meet the goal and the summed counts."""
    ok, totals = True, collections.Counter()
    for name in names:
        try:
            r = scorer(os.path.join(REALDOCS, name), args.kapi, args.strip_exceptions)
        except (RuntimeError, OSError, ValueError) as e:
            print(f"{name}: cannot check: {e}", file=sys.stderr)
            sys.exit(2)
        printer(name, r, args.unlabelled)
        ok = ok and r["meets"]
        totals.update(counts(r))
    return ok, totals


def labelled_counts(r):
    return {"true": r["true"], "false": r["false"], "unlabelled": len(r["unlabelled"])}


def main_heldout(names, args):
    """Score each project's held-out set; exit as main does."""
    ok, totals = score_all(names, args, score_heldout, print_heldout, labelled_counts)
    if len(names) > 1:
        print(f"## all (held-out): precision {pct(ratio(totals['true'], totals['true'] + totals['false']))} "
              f"({totals['true']} true, {totals['false']} false, {totals['unlabelled']} unlabelled)")
    sys.exit(0 if ok else 1)


def default_kapi():
    if os.environ.get("KAPI_BIN"):
        return os.environ["KAPI_BIN"]
    for build in ("debug", "release"):
        path = os.path.join(ROOT, "target", build, "kapi")
        if os.path.exists(path):
            return path
    return "kapi"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="*", help="project folders under testdata/realdocs (default: all)")
    parser.add_argument("--kapi", default=default_kapi(), help="the kapi binary (default: KAPI_BIN, else target/debug/kapi)")
    parser.add_argument("--unlabelled", action="store_true", help="print unlabelled findings as label rows to judge")
    parser.add_argument("--strip-exceptions", action="store_true", help="drop `exceptions:` from the terms files first")
    parser.add_argument("--heldout", action="store_true",
                        help="score the held-out sets (heldout/, heldout-labels.tsv) instead of the samples")
    args = parser.parse_args()
    # The checks run inside each project: a relative path to the binary is made absolute first.
    if os.sep in args.kapi:
        args.kapi = os.path.abspath(args.kapi)
    names = args.projects or sorted(
        d for d in os.listdir(REALDOCS) if os.path.exists(os.path.join(REALDOCS, d, "kapi.yaml"))
        and (not args.heldout or os.path.isdir(os.path.join(REALDOCS, d, HELDOUT_DIR))))
    if args.heldout:
        main_heldout(names, args)
    ok, totals = score_all(names, args, score, print_project, lambda r: {
        **labelled_counts(r), "reports": r["planted_reports"], "missed": len(r["missed"]),
        "silent": r["planted_silent"], "flagged": len(r["flagged"])})
    if len(names) > 1:
        print(f"## all: precision {pct(ratio(totals['true'], totals['true'] + totals['false']))} "
              f"({totals['true']} true, {totals['false']} false, {totals['unlabelled']} unlabelled); "
              f"planted recall {pct(ratio(totals['reports'] - totals['missed'], totals['reports']))}; "
              f"false flags {pct(ratio(totals['flagged'], totals['silent']))}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
