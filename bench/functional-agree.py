#!/usr/bin/env python3
"""kapi's `translation.*` rules against translate-toolkit's pofilter on real PO files.

Runs pofilter's 14 functional tests (each file with `--language` from its `Language:`
header) and `kapi check --json` on each file, and counts per rule the messages both flag,
pofilter alone, kapi alone. Run by hand (needs `pip install translate-toolkit` and a built
kapi):

    python3 bench/functional-agree.py target/debug/kapi ../shared/corpus/po/django-*.po
"""

import collections
import json
import re
import subprocess
import sys
import tempfile

# bench/translate.py would shadow translate-toolkit's package.
sys.path = [p for p in sys.path if not p.endswith("bench")]
from translate.storage import po as pofile  # noqa: E402

MAP = {
    "endpunc": "end-punctuation", "startpunc": "start-punctuation", "numbers": "numbers",
    "urls": "urls", "emails": "emails", "accelerators": "accelerators",
    "newlines": "newlines", "escapes": "escapes", "brackets": "brackets",
    "doublespacing": "double-space", "startwhitespace": "start-whitespace",
    "endwhitespace": "end-whitespace", "long": "too-long", "short": "too-short",
}


def escaped(s):
    """A msgid as kapi's block key writes it (PO escapes kept)."""
    return (s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            .replace("\r", "\\r").replace("\t", "\\t"))


def main(kapi, files):
    both, ponly, konly = (collections.Counter() for _ in range(3))
    messages = 0
    for path in files:
        with open(path, "rb") as f:
            store = pofile.pofile(f)
        lang = store.gettargetlanguage() or ""
        messages += sum(1 for u in store.units if not u.isheader() and u.istranslated())
        with tempfile.NamedTemporaryFile(suffix=".po") as out:
            subprocess.run(["pofilter", "--progress=none", f"--language={lang}",
                            *[f"--test={t}" for t in MAP], path, out.name], check=True)
            with open(out.name, "rb") as f:
                flagged = pofile.pofile(f).units
        pf = {}
        for u in flagged:
            if u.isheader():
                continue
            ctx = u.getcontext()
            key = (escaped(ctx) + "|" if ctx else "") + escaped(str(u.source))
            pf[key] = {MAP[t] for t in re.findall(r"\(pofilter\) (\w+):", u.getnotes())
                       if t in MAP}
        run = subprocess.run([kapi, "check", path, "--json"], capture_output=True, text=True)
        kf = collections.defaultdict(set)
        for x in json.loads(run.stdout)["findings"]:
            if x["rule"].startswith("translation."):
                kf[x["block"]].add(x["rule"].split(".", 1)[1])
        for key in set(pf) | set(kf):
            a, b = pf.get(key, set()), kf.get(key, set())
            both.update(a & b)
            ponly.update(a - b)
            konly.update(b - a)
    print(f"{len(files)} files, {messages} translated messages")
    print("| rule | both | pofilter alone | kapi alone |\n|---|---|---|---|")
    for rule in MAP.values():
        print(f"| `translation.{rule}` | {both[rule]} | {ponly[rule]} | {konly[rule]} |")
    print(f"| all | {sum(both.values())} | {sum(ponly.values())} | {sum(konly.values())} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
